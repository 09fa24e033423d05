//! `outcore graph500 --scale N`: the Graph500 benchmark (the library's
//! `outcore::graph500`) and the statistics block of the reference code.

use anyhow::Result;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// 2^scale vertices (Graph500 sizes: toy 26, mini 29, small 32).
    #[arg(long)]
    pub scale: u32,
    /// Edges generated per vertex (Graph500: 16).
    #[arg(long, default_value_t = 16)]
    pub edge_factor: u64,
    /// Search roots (distinct, of degree >= 1).
    #[arg(long, default_value_t = 64)]
    pub roots: usize,
    /// Seed of the generator and of the root sample.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Memory budget for every kernel, page cache included.
    #[arg(long, default_value = "1G", value_parser = crate::parse_memory)]
    pub memory: u64,
    /// Where the store goes (default: a temporary directory, removed after).
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// Replace an outcore store already at --dir (never anything else).
    #[arg(long, requires = "dir")]
    pub force: bool,
    /// Skip kernel 3 (SSSP).
    #[arg(long)]
    pub no_sssp: bool,
    /// The run-ahead prefetcher.
    #[arg(long, default_value = "on", value_parser = ["on", "off"])]
    pub prefetch: String,
}

pub fn run(a: Args) -> Result<ExitCode> {
    let opts = outcore::graph500::Options {
        scale: a.scale,
        edge_factor: a.edge_factor,
        roots: a.roots,
        seed: a.seed,
        memory: a.memory,
        dir: a.dir.clone(),
        force: a.force,
        sssp: !a.no_sssp,
        traverse: outcore_engines::TraverseOptions {
            prefetch: a.prefetch == "on",
            depth: outcore_io::probe::recorded_depth().unwrap_or(64).max(1),
            ..Default::default()
        },
    };
    let bars = crate::progress::Bars::new(false);
    let r = outcore::graph500::run(&opts, &bars)?;
    let block = outcore::graph500::Block {
        scale: a.scale,
        edge_factor: a.edge_factor,
        roots: r.roots,
        generation_seconds: r.generation_seconds,
        processes: 1,
        construction_seconds: r.construction_seconds,
    };
    print!("{}", block.text(&r.bfs, r.sssp.as_ref()));
    println!(
        "# outcore: traverse engine, {} I/O, prefetch {}, {} in-memory neighbours per vertex, cache {} (hit rate {:.1}%), budget {}, peak RSS {}",
        r.io_backend,
        a.prefetch,
        r.hot_neighbours,
        outcore_io::format_bytes(r.cache_bytes),
        r.cache_hit_rate * 100.0,
        outcore_io::format_bytes(a.memory),
        outcore_io::format_bytes(outcore_io::peak_rss_bytes().unwrap_or(0))
    );
    println!("# all {} BFS{} results passed the five validation rules", r.roots, if a.no_sssp { "" } else { " and SSSP" });
    Ok(ExitCode::SUCCESS)
}
