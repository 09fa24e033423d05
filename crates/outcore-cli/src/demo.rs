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
        "  import   {:>7.2} s  {} undirected edges ({} duplicates and {} self loops as generated), store {} ({} buckets, {} sort runs)",
        t.elapsed().as_secs_f64(),
        crate::grouped(report.edges),
        crate::grouped(report.duplicates_removed),
        crate::grouped(report.self_loops),
        format_bytes(store_bytes),
        report.buckets,
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
    drop(ids);
    drop(budget);

    // BFS (NETALX hybrid on the traverse engine) from the highest-degree vertex.
    let (budget, _base) = crate::traverse::budget(a.memory)?;
    let ids = store.id_map(&budget)?;
    let n = store.vertices();
    let c = crate::traverse::Common {
        store: store_path.clone(),
        memory: a.memory,
        engine: "traverse".into(),
        temp: None,
        prefetch: "on".into(),
        block: 4096,
        depth: None,
        pread: false,
        output: None,
        json: false,
    };
    let t = Instant::now();
    let state = outcore_algorithms::hybrid_bfs::state_bytes(n);
    let crate::traverse::HybridEngines { mut out, hot, .. } = crate::traverse::open_hybrid(&store, &budget, &c, state)?;
    let setup = t.elapsed().as_secs_f64();
    let root = d.out.top[0].0;
    let t = Instant::now();
    let (tree, _) = outcore_algorithms::hybrid_bfs::hybrid_bfs(&mut out, None, &hot, root, &budget, &Default::default())?;
    let secs = t.elapsed().as_secs_f64();
    let s = out.stats();
    println!(
        "  bfs      {:>7.2} s  hybrid BFS from {}: {} vertices and {} edges reached ({:.0} M edges/s), {} levels; cache {} with hit rate {:.1}%, {} read ({} I/O); {} in-memory neighbours per vertex, built in {setup:.2} s",
        secs,
        ids.original(root),
        crate::grouped(tree.reached),
        crate::grouped(tree.arcs_scanned / 2),
        tree.arcs_scanned as f64 / 2.0 / secs.max(1e-9) / 1e6,
        tree.level.iter().filter(|&&l| l != outcore_algorithms::bfs::NONE).max().map_or(0, |l| l + 1),
        format_bytes(s.cache_bytes),
        s.cache.hit_rate() * 100.0,
        format_bytes(s.cache.bytes_read),
        s.io_backend,
        hot.k
    );
    drop((tree, out, hot));

    let t = Instant::now();
    let labels = outcore_algorithms::wcc::wcc(&store, &budget)?;
    let mut sizes = std::collections::HashMap::new();
    for &l in &labels {
        *sizes.entry(l).or_insert(0u64) += 1;
    }
    let largest = sizes.values().max().copied().unwrap_or(0);
    println!(
        "  wcc      {:>7.2} s  {} components; the largest has {} vertices ({} isolated vertices are components of their own)",
        t.elapsed().as_secs_f64(),
        crate::grouped(sizes.len() as u64),
        crate::grouped(largest),
        crate::grouped(d.out.zero)
    );
    drop((labels, sizes, budget));

    // PageRank (Graphalytics semantics) on the G-Store tiles, engine chosen from the budget.
    let t = Instant::now();
    let rec =
        outcore_ingest::tiles::add_tiles(&store_path, outcore_ingest::tiles::DEFAULT_GROUP, outcore_ingest::tiles::SPAN_BITS, a.memory)?;
    let tiles_seconds = t.elapsed().as_secs_f64();
    let store = Store::open(&store_path)?;
    let (budget, _base) = crate::traverse::budget(a.memory)?;
    let t = Instant::now();
    let pr = outcore_algorithms::pagerank::PageRankOptions { damping: 0.85, iterations: 10, tolerance: None };
    let r = outcore_algorithms::pagerank::pagerank(&store, &pr, &budget, &Default::default())?;
    let secs = t.elapsed().as_secs_f64();
    let mut top = (0, 0.0);
    let mut total = 0.0;
    r.rank.for_each(|v, x| {
        total += x;
        if x > top.1 {
            top = (v, x)
        }
    })?;
    let read: u64 = r.report.stream.as_ref().map_or(0, |s| s.iterations.iter().map(|i| i.bytes_read).sum());
    println!(
        "  pagerank {:>7.2} s  {} iterations on engine {} ({:.3} s each, {} read; tiles added in {tiles_seconds:.2} s, {} edges in {} tiles); top vertex {} with rank {:.3e}, ranks sum to {total:.6}",
        secs,
        r.iterations,
        r.report.engine.name(),
        secs / r.iterations.max(1) as f64,
        format_bytes(read),
        crate::grouped(rec.edges),
        crate::grouped(rec.tiles),
        ids.original(top.0),
        top.1
    );
    println!("           engine choice: {}", r.report.reason);
    drop(r);

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
