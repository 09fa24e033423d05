//! `outcore export STORE -o FILE`: the graph back out as an edge list in
//! original ids, streaming in bounded memory.

use anyhow::{Context, Result};
use outcore::import::{export, ExportFormat, ExportOptions};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// The store to write out.
    pub store: PathBuf,
    /// The file to write (graphalytics: NAME.e, NAME.v and NAME.properties beside it).
    #[arg(short, long)]
    pub output: PathBuf,
    /// el, wel, bin32, bin64, mtx or graphalytics (default: from the extension, else el).
    #[arg(long)]
    pub format: Option<String>,
    /// Which CSR to write: out, or in (each edge as target -> source read from the in-edges).
    #[arg(long, default_value = "out", value_parser = ["out", "in"])]
    pub layout: String,
    /// Memory budget, page cache included.
    #[arg(long, default_value = "1G", value_parser = crate::parse_memory)]
    pub memory: u64,
    /// Replace an existing output file.
    #[arg(long)]
    pub force: bool,
    /// Print a JSON summary instead of text.
    #[arg(long)]
    pub json: bool,
    /// Print the smallest budget the export needs and stop.
    #[arg(long)]
    pub dry_run: bool,
}

pub fn run(a: Args) -> Result<ExitCode> {
    if a.dry_run {
        let store = outcore_store::Store::open(&a.store)?;
        return crate::args::print_minimum(&outcore_ingest::export::minimum(&store, &a.layout)?, a.memory, a.json);
    }
    let format = match &a.format {
        Some(f) => ExportFormat::from_name(f).with_context(|| format!("unknown export format '{f}' ({})", ExportFormat::NAMES))?,
        None => ExportFormat::from_path(&a.output).unwrap_or(ExportFormat::El),
    };
    let bars = crate::progress::Bars::new(a.json);
    let r = export(&a.store, &a.output, &ExportOptions { format, layout: a.layout.clone(), memory: a.memory, force: a.force }, &bars)?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&r)?);
    } else {
        println!(
            "exported {} vertices and {} edges{} as {} to {} ({}, {:.2} s{})",
            crate::grouped(r.vertices),
            crate::grouped(r.edges),
            if r.weighted { " with weights" } else { "" },
            r.format,
            r.files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(", "),
            outcore::format_bytes(r.bytes),
            r.seconds,
            if r.external_join { "; ids joined by an external sort, output in target order" } else { "" }
        );
    }
    Ok(ExitCode::SUCCESS)
}
