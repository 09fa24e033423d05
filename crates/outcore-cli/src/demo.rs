//! `outcore demo`: the embedded default job. Generates a Graph500
//! Kronecker graph, imports it into a store with a memory budget smaller
//! than the store, and runs the out-of-core algorithms that exist (degree
//! statistics) under that budget, printing a short summary.

use anyhow::Result;
use outcore_algorithms::degree_summary;
use outcore_ingest::generate::{self, Generator, Kronecker};
use outcore_ingest::{import_from, ImportOptions};
use outcore_io::{format_bytes, peak_rss_bytes, Budget};
use outcore_store::Store;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// Kronecker scale (2^scale vertices, 16 * 2^scale edges).
    #[arg(long, default_value_t = 20)]
    pub scale: u32,
    /// Memory budget for every step.
    #[arg(long, default_value = "64M", value_parser = crate::parse_memory)]
    pub memory: u64,
    /// Keep the store here instead of a temporary directory.
    #[arg(long)]
    pub keep: Option<PathBuf>,
}

pub fn run(a: Args) -> Result<ExitCode> {
    let tmp = tempfile::Builder::new().prefix("outcore-demo-").tempdir()?;
    let store_path = a.keep.clone().unwrap_or_else(|| tmp.path().join("kronecker.store"));
    let g = Kronecker::graph500(a.scale, 16, 1);
    println!(
        "outcore demo: Graph500 Kronecker scale {} ({} vertices, {} generated edges), memory budget {}",
        a.scale,
        crate::grouped(g.vertices()),
        crate::grouped(g.edges()),
        format_bytes(a.memory)
    );

    let t = Instant::now();
    let opts = ImportOptions { directed: Some(false), memory: a.memory, force: a.keep.is_some(), ..Default::default() };
    let source = |sink: &mut dyn outcore_ingest::formats::EdgeSink,
                  p: &mut dyn FnMut(std::sync::Arc<std::sync::atomic::AtomicU64>, u64, bool)| {
        generate::emit(&g, sink, p)
    };
    let bars = crate::progress::Bars::new(false);
    let report = import_from(&source, &store_path, &opts, BTreeMap::from([("generator".to_string(), "kronecker".to_string())]), &bars)?;
    let store = Store::open(&store_path)?;
    let store_bytes: u64 = store.manifest().files.values().map(|f| f.bytes).sum();
    println!(
        "  import   {:>7.2} s  {} undirected edges ({} duplicates and {} self loops as generated), store {} in {} sort runs",
        t.elapsed().as_secs_f64(),
        crate::grouped(report.edges),
        crate::grouped(report.duplicates_removed),
        crate::grouped(report.self_loops),
        format_bytes(store_bytes),
        report.sort_runs
    );

    let t = Instant::now();
    let budget = Budget::new(a.memory);
    let d = degree_summary(&store, 5, true, &budget)?;
    let ids = store.id_map(&budget)?;
    println!(
        "  degrees  {:>7.2} s  min {} max {} mean {:.2}; {} isolated vertices; top: {}",
        t.elapsed().as_secs_f64(),
        d.out.min,
        crate::grouped(d.out.max),
        d.out.mean,
        crate::grouped(d.out.zero),
        d.out.top.iter().map(|&(v, deg)| format!("{}({})", ids.original(v), deg)).collect::<Vec<_>>().join(" ")
    );
    let hist: Vec<String> = d.out.histogram.iter().enumerate().map(|(k, c)| format!("{}:{}", 1u64 << k, c)).collect();
    println!("  degree histogram (from: count) {}", hist.join(" "));
    let peak = peak_rss_bytes().unwrap_or(0);
    println!(
        "  memory   peak RSS {} (budget {}, store {}: the graph does {}fit in the budget)",
        format_bytes(peak),
        format_bytes(a.memory),
        format_bytes(store_bytes),
        if store_bytes > a.memory { "not " } else { "" }
    );
    if a.keep.is_some() {
        println!("  store kept at {}", store_path.display());
    }
    Ok(ExitCode::SUCCESS)
}
