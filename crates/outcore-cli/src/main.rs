//! `outcore`: the command-line interface, a thin layer over the library
//! crates (ripgrep-style). Each subcommand lives in its own module.

mod analytics;
mod bench_decode;
mod demo;
mod dynamic;
mod external;
mod generate;
mod graph500;
mod import;
mod info;
mod layout;
mod probe;
mod progress;
mod recode;
mod traverse;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "outcore", version, about = "Graph analytics and graph store for graphs larger than memory")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Import an edge list or graph file into a store (external memory).
    Import(import::Args),
    /// Generate a synthetic graph (Kronecker/Graph500, uniform, Watts-Strogatz).
    Generate(generate::Args),
    /// Describe a store: counts, degrees, bytes per layout; --verify checksums.
    Info(info::Args),
    /// Generate, import and analyse a Kronecker graph under a memory budget.
    Demo(demo::Args),
    /// Breadth-first search (top-down or NETALX hybrid; or on tiles or sort-reduce).
    Bfs(traverse::BfsArgs),
    /// Single-source shortest paths (Dijkstra with run-ahead) on weighted stores.
    Sssp(traverse::SsspArgs),
    /// Weakly connected components (union-find, or label propagation on tiles, intervals or sort-reduce).
    Wcc(analytics::WccArgs),
    /// The Graph500 benchmark: construction, BFS and SSSP kernels, validation, statistics.
    Graph500(graph500::Args),
    /// Measure the device (sequential bandwidth, random IOPS by queue depth).
    Probe(probe::Args),
    /// Add a layout (tiles) to an existing store.
    Layout(layout::Args),
    /// Rewrite a store in another vertex order and/or adjacency encoding.
    Recode(recode::Args),
    /// Decode speed of a layout's encoding (edges/s on one core, from memory).
    BenchDecode(bench_decode::Args),
    /// PageRank (Graphalytics semantics) on tiles, intervals or sort-reduce.
    Pagerank(analytics::PageRankArgs),
    /// Community detection by label propagation (Graphalytics CDLP).
    Cdlp(analytics::CdlpArgs),
    /// Sparse matrix-vector product y = A^T x.
    Spmv(analytics::SpmvArgs),
    /// Betweenness centrality (Brandes): exact from given sources, or sampled.
    Bc(external::BcArgs),
    /// The dynamic store (degree-aware Robin Hood hashing): create, apply, query, stats, snapshot, color, bfs, pagerank.
    Dynamic(dynamic::Args),
}

fn main() -> ExitCode {
    outcore_io::pin_allocator();
    // Exit quietly when the reader of our output goes away (`| head`).
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // Ctrl-C removes the temporary areas (update logs, value tables) first.
    outcore_io::temp::remove_on_interrupt();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Import(a) => import::run(a),
        Command::Generate(a) => generate::run(a),
        Command::Info(a) => info::run(a),
        Command::Demo(a) => demo::run(a),
        Command::Bfs(a) => traverse::run_bfs(a),
        Command::Sssp(a) => traverse::run_sssp(a),
        Command::Wcc(a) => analytics::run_wcc(a),
        Command::Graph500(a) => graph500::run(a),
        Command::Probe(a) => probe::run(a),
        Command::Layout(a) => layout::run(a),
        Command::Recode(a) => recode::run(a),
        Command::BenchDecode(a) => bench_decode::run(a),
        Command::Pagerank(a) => analytics::run_pagerank(a),
        Command::Cdlp(a) => analytics::run_cdlp(a),
        Command::Spmv(a) => analytics::run_spmv(a),
        Command::Bc(a) => external::run_bc(a),
        Command::Dynamic(a) => dynamic::run(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            let msg = format!("{e:#}").replace('\n', " ");
            eprintln!("error: {msg}");
            ExitCode::FAILURE
        }
    }
}

/// `--memory` values: `512M`, `2G`, ...
pub fn parse_memory(s: &str) -> Result<u64, String> {
    outcore_io::parse_size(s)
}

/// `1234567` -> `1,234,567`.
pub fn grouped(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}
