//! `outcore demo`: the embedded default job. Generates a Graph500
//! Kronecker graph, imports it into a store with a memory budget smaller
//! than the store, and runs the out-of-core algorithms that exist (degree
//! statistics) under that budget, printing a short summary.

use anyhow::Result;
use outcore::bfs::{self, Bfs};
use outcore::pagerank::{self, PageRank};
use outcore::triangles::Lcc;
use outcore::wcc::Wcc;
use outcore::{Engine, EngineChoice, Entry, Graph, RunOptions};
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
    /// Keep the store here (a new path or an empty directory) instead of a temporary directory.
    #[arg(long)]
    pub keep: Option<PathBuf>,
    /// Replace an outcore store already at --keep (never anything else).
    #[arg(long, requires = "keep")]
    pub force: bool,
}

pub fn run(a: Args) -> Result<ExitCode> {
    if let Some(keep) = &a.keep {
        outcore_store::check_output(keep, outcore_store::OutputKind::Store, a.force, &[])?;
    }
    // removed at the end, on an error and on Ctrl-C
    let tmp = outcore_io::TempArea::create(&std::env::temp_dir(), "demo")?;
    let store_path = a.keep.clone().unwrap_or_else(|| tmp.file("kronecker.store"));
    let g = Kronecker::graph500(a.scale, 16, 1);
    println!(
        "outcore demo: Graph500 Kronecker scale {} ({} vertices, {} generated edges), memory budget {}",
        a.scale,
        crate::grouped(g.vertices()),
        crate::grouped(g.edges()),
        format_bytes(a.memory)
    );

    let t = Instant::now();
    let opts = ImportOptions { directed: Some(false), memory: a.memory, force: a.force, ..Default::default() };
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
    let ids = store.ids()?;
    let top: Vec<String> = d.out.top.iter().map(|&(v, deg)| Ok(format!("{}({})", ids.original(v)?, deg))).collect::<Result<_>>()?;
    println!(
        "  degrees  {:>7.2} s  min {} max {} mean {:.2}; {} isolated vertices; top: {}",
        t.elapsed().as_secs_f64(),
        d.out.min,
        crate::grouped(d.out.max),
        d.out.mean,
        crate::grouped(d.out.zero),
        top.join(" ")
    );
    let hist: Vec<String> = d.out.histogram.iter().enumerate().map(|(k, c)| format!("{}:{}", 1u64 << k, c)).collect();
    println!("  degree histogram (from: count) {}", hist.join(" "));
    // the id map and the open store are not the runs' to pay for
    let root = ids.original(d.out.top[0].0)?;
    drop((budget, ids, store));

    // BFS (NETALX hybrid on the traverse engine) from the highest-degree vertex.
    let graph = Graph::open(&store_path)?;
    let options = RunOptions { engine: EngineChoice::Fixed(Engine::Traverse), ..RunOptions::with_memory(a.memory) };
    let bfs = graph.run(&Bfs, &bfs::Params { root: Some(root), ..Default::default() }, &options)?;
    let r = bfs.report();
    let figure = |k: &str| r.figure(k).and_then(|v| v.as_u64()).unwrap_or(0);
    let edges = figure("edges_traversed");
    println!(
        "  bfs      {:>7.2} s  hybrid BFS from {root}: {} vertices and {} edges reached ({:.0} M edges/s), {} levels; {} read, cache hit rate {:.1}%; {}",
        r.seconds,
        crate::grouped(figure("vertices_reached")),
        crate::grouped(edges),
        edges as f64 / r.seconds.max(1e-9) / 1e6,
        figure("depth"),
        format_bytes(figure("bytes_read")),
        r.figure("cache_hit_rate").and_then(|v| v.as_f64()).unwrap_or(0.0) * 100.0,
        match r.figure("gathered") {
            Some(g) => format!(
                "the in-memory neighbours gathered by the search: {} vertices' hottest {} (at most)",
                crate::grouped(g["vertices"].as_u64().unwrap_or(0)),
                g["take"].as_u64().unwrap_or(0)
            ),
            None => format!(
                "{} in-memory neighbours per vertex, ready in {:.2} s",
                figure("hot_neighbours_k"),
                r.figure("setup_seconds").and_then(|v| v.as_f64()).unwrap_or(0.0)
            ),
        },
    );
    drop(bfs);

    let t = Instant::now();
    let wcc = graph.run(&Wcc, &Default::default(), &RunOptions::with_memory(a.memory))?;
    let mut sizes = std::collections::HashMap::new();
    wcc.column("component")?.for_each(|_, l| *sizes.entry(l.as_u64()).or_insert(0u64) += 1)?;
    let largest = sizes.values().max().copied().unwrap_or(0);
    println!(
        "  wcc      {:>7.2} s  {} components on the {} engine; the largest has {} vertices ({} isolated vertices are components of their own)",
        t.elapsed().as_secs_f64(),
        crate::grouped(sizes.len() as u64),
        wcc.report().engine,
        crate::grouped(largest),
        crate::grouped(d.out.zero)
    );
    drop((wcc, sizes));

    // LCC (Graphalytics) by the degree-ordered orientation, forward lists in parts that fit the budget.
    let lcc = graph.run(&Lcc, &Default::default(), &RunOptions::with_memory(a.memory))?;
    let r = lcc.report();
    let number = |k: &str| r.figure(k).and_then(|v| v.as_f64()).unwrap_or(0.0);
    println!(
        "  lcc      {:>7.2} s  {} triangles, average clustering {:.4}; forward lists in {} part{} ({} read, {})",
        r.seconds,
        crate::grouped(number("triangles_total") as u64),
        number("average_clustering"),
        number("parts"),
        if number("parts") == 1.0 { "" } else { "s" },
        format_bytes(number("bytes_read") as u64),
        r.engine_reason
    );
    drop(lcc);

    // PageRank (Graphalytics semantics) on the G-Store tiles, engine chosen from the budget.
    // (a layout is added to a store this process does not have open)
    drop(graph);
    let t = Instant::now();
    let rec = outcore::import::add_tiles(&store_path, outcore::import::DEFAULT_GROUP, outcore::import::SPAN_BITS, a.memory, &bars)?;
    let tiles_seconds = t.elapsed().as_secs_f64();
    let graph = Graph::open(&store_path)?;
    let pr = graph.run(&PageRank, &pagerank::Params::fixed(0.85, 10), &RunOptions::with_memory(a.memory))?;
    let r = pr.report();
    let mut top = (0, 0.0);
    let mut total = 0.0;
    pr.for_each("rank", |v, x| {
        if let Entry::Real(x) = x {
            total += x;
            if x > top.1 {
                top = (v, x)
            }
        }
    })?;
    let iterations = r.figure("iterations").and_then(|v| v.as_u64()).unwrap_or(0);
    println!(
        "  pagerank {:>7.2} s  {} iterations on engine {} ({:.3} s each; tiles added in {tiles_seconds:.2} s, {} edges in {} tiles); top vertex {} with rank {:.3e}, ranks sum to {total:.6}",
        r.seconds,
        iterations,
        r.engine,
        r.seconds / iterations.max(1) as f64,
        crate::grouped(rec.edges),
        crate::grouped(rec.tiles),
        top.0,
        top.1
    );
    println!("           engine choice: {}", r.engine_reason);
    drop(pr);

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
