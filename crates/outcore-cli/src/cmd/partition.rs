//! `outcore partition STORE -o 'DIR/part-{rank}' --ranks P`: cut a static
//! store into one store per rank of a distributed job (see
//! `outcore_dist::partition`).

use anyhow::Result;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// The store to cut (left unchanged).
    pub store: PathBuf,
    /// The parts: a path with {rank} in it, e.g. parts/part-{rank}.
    #[arg(short, long)]
    pub output: String,
    /// Number of ranks (parts).
    #[arg(long)]
    pub ranks: usize,
    /// Hot lists stored in each part of an undirected graph: the first K
    /// neighbours of every vertex by degree in the whole graph, which a
    /// distributed BFS loads instead of building (0: none).
    #[arg(long, value_name = "K", default_value_t = outcore_ingest::hot::DEFAULT_COLUMNS)]
    pub hot_columns: u32,
    /// Memory budget, page cache included.
    #[arg(long, default_value = "1G", value_parser = crate::parse_memory)]
    pub memory: u64,
    /// Replace existing parts.
    #[arg(long)]
    pub force: bool,
    /// Print a JSON summary instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(a: Args) -> Result<ExitCode> {
    let bars = crate::progress::Bars::new(a.json);
    let r =
        outcore_dist::partition::partition(&a.store, &a.output, a.ranks, a.hot_columns, a.memory, a.force, &bars).map_err(|e| match e {
            // the CLI's error printer adds the fix for these
            outcore_dist::DistError::Ingest(i) => anyhow::Error::from(i),
            other => anyhow::Error::from(other),
        })?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&r)?);
    } else {
        let m = &r.manifest;
        println!(
            "cut {} ({} vertices, {} arcs, {}) into {} parts in {:.2} s:",
            a.store.display(),
            crate::grouped(m.vertices),
            crate::grouped(m.arcs),
            if m.directed { "directed" } else { "undirected: both arcs of every edge" },
            m.ranks,
            r.seconds
        );
        for (p, path) in m.parts.iter().zip(&r.parts) {
            println!("  rank {}: {} ({} vertices, {} arcs)", p.rank, path.display(), crate::grouped(p.vertices), crate::grouped(p.arcs));
        }
    }
    Ok(ExitCode::SUCCESS)
}
