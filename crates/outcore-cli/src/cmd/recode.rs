//! `outcore recode SRC -o DST [--order] [--encoding]`, and the ordering
//! step of `import/generate --order`.

use anyhow::{Context, Result};
use outcore_algorithms::order::Order;
use outcore_ingest::recode::RecodeReport;
use outcore_store::Encoding;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// The store to rewrite (left unchanged).
    pub store: PathBuf,
    /// The new store.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Vertex order: none, dfs (CEESOR), degree (descending), bfs, rcm.
    #[arg(long, default_value = "none")]
    pub order: String,
    /// Encoding of the new layouts: raw32, raw64, ceesor, gapref (default: the source's).
    #[arg(long)]
    pub encoding: Option<String>,
    /// Memory budget, page cache included.
    #[arg(long, default_value = "1G", value_parser = crate::parse_memory)]
    pub memory: u64,
    /// Replace an existing output store.
    #[arg(long)]
    pub force: bool,
    /// Print a JSON summary instead of text.
    #[arg(long)]
    pub json: bool,
    /// Print the smallest budget the rewrite needs (without --order) and stop.
    #[arg(long)]
    pub dry_run: bool,
}

pub fn parse_order(name: &str) -> Result<Order> {
    Order::from_name(name).with_context(|| format!("unknown order '{name}' ({})", Order::names()))
}

pub fn parse_encoding(name: &str) -> Result<Encoding> {
    Encoding::from_name(name).with_context(|| format!("unknown encoding '{name}' ({})", Encoding::names()))
}

pub fn run(a: Args) -> Result<ExitCode> {
    if a.dry_run {
        let store = outcore_store::Store::open(&a.store)?;
        let encoding = a.encoding.as_deref().map(parse_encoding).transpose()?;
        return crate::args::print_minimum(&outcore_ingest::recode::minimum_for(&store, encoding)?, a.memory, a.json);
    }
    let order = parse_order(&a.order)?;
    let encoding = a.encoding.as_deref().map(parse_encoding).transpose()?;
    let bars = crate::progress::Bars::new(a.json);
    let opts = outcore::import::RecodeOptions { encoding, order: String::new(), memory: a.memory, force: a.force, layouts: None };
    let r = outcore::import::order_store(&a.store, &a.output, order, &opts, &bars)?;
    print_report(&r, a.json);
    Ok(ExitCode::SUCCESS)
}

pub fn print_report(r: &RecodeReport, json: bool) {
    if json {
        println!("{}", serde_json::to_string_pretty(r).unwrap());
        return;
    }
    let bits = |bytes: u64| bytes as f64 * 8.0 / r.arcs.max(1) as f64;
    let layouts: Vec<String> =
        r.layout_bytes.iter().map(|(l, b)| format!("{l} {} ({:.2} bits/arc)", outcore_io::format_bytes(*b), bits(*b))).collect();
    println!(
        "recoded {} vertices, {} arcs into {} ({} order, {}) in {:.2} s: {}",
        crate::grouped(r.vertices),
        crate::grouped(r.arcs),
        r.store.display(),
        r.order,
        r.encoding,
        r.seconds,
        layouts.join(", ")
    );
}
