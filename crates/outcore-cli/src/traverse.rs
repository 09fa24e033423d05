//! `outcore bfs|sssp STORE` and union-find `wcc`: traversals on the traverse engine.

use anyhow::{bail, Context, Result};
use outcore_algorithms::bfs::{bfs, BfsTree, NONE};
use outcore_algorithms::hybrid_bfs::{hybrid_bfs, HotLists, HybridOptions, LevelStats};
use outcore_algorithms::sssp::{sssp, ShortestPaths};
use outcore_algorithms::wcc::wcc;
use outcore_engines::{Traverse, TraverseOptions, TraverseStats};
use outcore_io::{format_bytes, Budget, Reservation, SeqWriter, PROCESS_BASELINE};
use outcore_store::{IdMap, Store};
use serde_json::json;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args, Clone)]
pub struct Common {
    pub store: PathBuf,
    /// Memory budget, page cache included.
    #[arg(long, default_value = "1G", value_parser = crate::parse_memory)]
    pub memory: u64,
    /// Engine: auto, traverse (semi-external, run-ahead prefetch) or
    /// sortreduce (fully external: vertex values on disk, which auto picks
    /// when the state and index do not fit); bfs also runs on tiles:
    /// memory (every tile cached) or stream.
    #[arg(long, default_value = "auto", value_parser = ["auto", "traverse", "sortreduce", "memory", "stream"])]
    pub engine: String,
    /// Directory for the sort-reduce engine's logs (default: inside the store).
    #[arg(long)]
    pub temp: Option<PathBuf>,
    /// The run-ahead prefetcher.
    #[arg(long, default_value = "on", value_parser = ["on", "off"])]
    pub prefetch: String,
    /// Cache block size.
    #[arg(long, default_value = "4K", value_parser = crate::parse_memory)]
    pub block: u64,
    /// Reads kept in flight (default: the target `outcore probe` recorded, else 64).
    #[arg(long)]
    pub depth: Option<usize>,
    /// Use the pread thread pool instead of io_uring.
    #[arg(long)]
    pub pread: bool,
    /// Write `vertex value` lines (Graphalytics format, original ids) here.
    #[arg(long)]
    pub output: Option<PathBuf>,
    /// Print a JSON summary.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args)]
pub struct BfsArgs {
    #[command(flatten)]
    pub common: Common,
    /// Root vertex (original id); default: a vertex of highest out-degree.
    #[arg(long)]
    pub root: Option<u64>,
    /// top-down, hybrid (NETALX direction-optimizing), or auto (hybrid).
    #[arg(long, default_value = "auto", value_parser = ["auto", "top-down", "hybrid"])]
    pub direction: String,
    /// What --output holds per vertex: level (Graphalytics) or parent.
    #[arg(long, default_value = "level", value_parser = ["level", "parent"])]
    pub values: String,
    /// Hybrid switching thresholds (section 3.4.4.4).
    #[arg(long, default_value_t = 4096.0)]
    pub alpha: f64,
    #[arg(long, default_value_t = 4.0)]
    pub beta: f64,
    /// Run N searches in one process (the first from --root, the others
    /// from random vertices of degree >= 1); the report covers the last,
    /// and `runs` in --json lists all. Later runs show a warm cache.
    #[arg(long, default_value_t = 1)]
    pub repeat: usize,
}

/// `count` roots: `first`, then distinct random vertices of degree >= 1.
fn more_roots(first: u64, count: usize, g: &Traverse) -> Vec<u64> {
    let n = g.vertices();
    let mut roots = vec![first];
    let mut i = 0u64;
    while roots.len() < count && i < 100 * count as u64 + n {
        let v = outcore_ingest::generate::hash64(0xB0075 ^ i) % n.max(1);
        i += 1;
        if g.degree(v) > 0 && !roots.contains(&v) {
            roots.push(v);
        }
    }
    roots
}

#[derive(clap::Args)]
pub struct SsspArgs {
    #[command(flatten)]
    pub common: Common,
    /// Root vertex (original id); default: a vertex of highest out-degree.
    #[arg(long)]
    pub root: Option<u64>,
}

/// Whether auto picks the sort-reduce engine for `algorithm`.
fn external(c: &Common, algorithm: &str) -> Result<bool> {
    let store = Store::open(&c.store)?;
    let state = crate::external::traverse_state(algorithm, store.vertices());
    Ok(crate::external::auto_is_external(&store, c.memory, state))
}

/// Blocks of the smallest cache an engine runs with.
const MIN_CACHE_BLOCKS: u64 = 64;

/// The budget with the process baseline charged.
pub fn budget(memory: u64) -> Result<(Budget, Reservation)> {
    let b = Budget::new(memory);
    let base = b.reserve("program, thread stacks and allocator slack", PROCESS_BASELINE)?;
    Ok((b, base))
}

fn engine_options(c: &Common, cache_bytes: Option<u64>) -> Result<TraverseOptions> {
    if c.block == 0 || c.block % 4096 != 0 {
        bail!("--block must be a multiple of 4K");
    }
    Ok(TraverseOptions {
        block_bytes: c.block as usize,
        depth: c.depth.or_else(outcore_io::probe::recorded_depth).unwrap_or(64).max(1),
        prefetch: c.prefetch == "on",
        force_pread: c.pread,
        cache_bytes,
        ..Default::default()
    })
}

/// The engines and in-memory neighbour lists of a hybrid BFS.
pub struct HybridEngines {
    pub out: Traverse,
    /// In-edges of a directed graph (undirected graphs use `out`).
    pub inn: Option<Traverse>,
    pub hot: HotLists,
}

/// What every command opens first: the store, the budget (with the process
/// baseline charged, held by the reservation) and the id map.
pub fn open_run(path: &std::path::Path, memory: u64) -> Result<(Store, Budget, Reservation, IdMap)> {
    let store = Store::open(path)?;
    let (budget, base) = budget(memory)?;
    let ids = store.id_map(&budget)?;
    Ok((store, budget, base, ids))
}

/// Split the budget for hybrid BFS: `state` for the algorithm, the
/// index(es), the minimum caches, then half of what is left for the
/// in-memory neighbours and half for the caches.
pub fn open_hybrid(store: &Store, budget: &Budget, c: &Common, state: u64) -> Result<HybridEngines> {
    let n = store.vertices();
    let directed = store.manifest().directed;
    let engines = if directed { 2 } else { 1 };
    let index_each = (n + 1) * 8;
    let min_cache = MIN_CACHE_BLOCKS * c.block;
    let rest = budget.available().saturating_sub(state + index_each * engines + min_cache * engines);
    let hot_share = rest / 2;
    let cache_each = min_cache + (rest - hot_share) / engines;
    let keep_for_in = if directed { index_each + cache_each } else { 0 };
    let out = Traverse::open(store, "out", budget, &engine_options(c, Some(cache_each))?, state + hot_share + keep_for_in)?;
    let inn =
        if directed { Some(Traverse::open(store, "in", budget, &engine_options(c, Some(cache_each))?, state + hot_share)?) } else { None };
    let degrees = inn.as_ref().unwrap_or(&out);
    let k = HotLists::choose_k(degrees, hot_share);
    let hot = HotLists::build(store, "in", degrees, k, budget)?;
    Ok(HybridEngines { out, inn, hot })
}

/// Dense id of `root` (original id), or the highest-degree vertex.
fn resolve_root(store: &Store, ids: &IdMap, root: Option<u64>, g: &Traverse) -> Result<u64> {
    match root {
        Some(r) => ids.dense(r).with_context(|| format!("{}: root {r} is not a vertex of this store", store.dir().display())),
        None => Ok((0..g.vertices()).max_by_key(|&v| (g.degree(v), std::cmp::Reverse(v))).context("the store has no vertices")?),
    }
}

pub fn write_values(path: &std::path::Path, ids: &IdMap, n: u64, mut value: impl FnMut(u64, &mut Vec<u8>)) -> Result<()> {
    let mut w = ValueWriter::create(path)?;
    for v in 0..n {
        w.push(ids, v, &mut value)?;
    }
    w.finish()
}

/// Writes `vertex value` lines (original ids) in vertex order.
pub struct ValueWriter {
    file: SeqWriter,
    buf: Vec<u8>,
}

impl ValueWriter {
    pub fn create(path: &std::path::Path) -> Result<Self> {
        Ok(ValueWriter { file: SeqWriter::create(path, 1 << 20, outcore_io::CHECKSUM_BLOCK_BYTES)?, buf: Vec::with_capacity(1 << 20) })
    }
    pub fn push(&mut self, ids: &IdMap, v: u64, value: &mut impl FnMut(u64, &mut Vec<u8>)) -> Result<()> {
        write!(self.buf, "{} ", ids.original(v)).unwrap();
        value(v, &mut self.buf);
        self.buf.push(b'\n');
        if self.buf.len() >= 1 << 20 {
            self.file.write_bytes(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }
    pub fn finish(mut self) -> Result<()> {
        self.file.write_bytes(&self.buf)?;
        self.file.finish()?;
        Ok(())
    }
}

/// Graphalytics floats: scientific with 15 decimals, two-digit exponent (`2.476533217845853e-08`).
pub fn graphalytics_float(x: f64, out: &mut Vec<u8>) {
    if x.is_infinite() {
        out.extend_from_slice(b"infinity");
        return;
    }
    let s = format!("{x:.15e}");
    let (mantissa, exp) = s.split_once('e').unwrap();
    let exp: i32 = exp.parse().unwrap();
    write!(out, "{mantissa}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs()).unwrap();
}

fn summary(
    algorithm: &str,
    c: &Common,
    root: Option<u64>,
    seconds: f64,
    edges: u64,
    reached: u64,
    stats: &[TraverseStats],
    budget: &Budget,
) -> serde_json::Value {
    let bytes: u64 = stats.iter().map(|s| s.cache.bytes_read).sum();
    let hits: u64 = stats.iter().map(|s| s.cache.hits).sum();
    let all: u64 = stats.iter().map(|s| s.cache.hits + s.cache.late + s.cache.misses).sum();
    json!({
        "algorithm": algorithm,
        "engine": "traverse",
        "engine_reason": "semi-external: vertex state and index in memory, adjacency through the block cache",
        "root": root,
        "seconds": seconds,
        "vertices_reached": reached,
        "edges_traversed": edges,
        "teps": if seconds > 0.0 { edges as f64 / seconds } else { 0.0 },
        "bytes_read": bytes,
        "cache_hit_rate": if all == 0 { 0.0 } else { hits as f64 / all as f64 },
        "prefetch": c.prefetch == "on",
        "io_backend": stats.first().map(|s| s.io_backend.clone()),
        "cache": stats,
        "budget_bytes": budget.total(),
        "budget_peak_bytes": budget.peak(),
        "peak_rss_bytes": outcore_io::peak_rss_bytes(),
    })
}

/// Edges a search traversed: arcs scanned, each undirected edge counted once.
fn edges_traversed(tree: &BfsTree, directed: bool) -> u64 {
    if directed {
        tree.arcs_scanned
    } else {
        tree.arcs_scanned / 2
    }
}

pub fn run_bfs(a: BfsArgs) -> Result<ExitCode> {
    let c = &a.common;
    if c.engine == "memory" || c.engine == "stream" {
        if a.direction == "hybrid" || a.values == "parent" {
            bail!(
                "--engine {} runs a level-synchronous BFS on tiles (levels only); use --engine traverse for hybrid BFS or parents",
                c.engine
            );
        }
        return crate::analytics::run_tile_bfs(c, a.root);
    }
    if c.engine == "sortreduce" || (c.engine == "auto" && external(c, "bfs")?) {
        if a.direction == "hybrid" {
            bail!("--engine sortreduce runs a level-synchronous top-down BFS; use --engine traverse for hybrid BFS");
        }
        return crate::external::run_bfs(c, a.root, &a.values);
    }
    let (store, budget, _base, ids) = open_run(&c.store, c.memory)?;
    let n = store.vertices();
    let directed = store.manifest().directed;
    // bottom-up steps need in-edges: an undirected graph's are its out-edges
    let has_in_edges = !directed || store.manifest().layouts.contains_key("in");
    if a.direction == "hybrid" && !has_in_edges {
        bail!(
            "{}: hybrid BFS on a directed graph needs in-edges; add them with: outcore layout add STORE in (or use --direction top-down)",
            c.store.display()
        );
    }
    let hybrid = a.direction != "top-down" && has_in_edges;
    let start_setup = Instant::now();
    let state = if hybrid { outcore_algorithms::hybrid_bfs::state_bytes(n) } else { BfsTree::state_bytes(n) };
    let mut runs = Vec::new();
    let (tree, levels, stats, setup, seconds, k) = if hybrid {
        let HybridEngines { mut out, mut inn, hot } = open_hybrid(&store, &budget, c, state)?;
        let k = hot.k;
        let root = resolve_root(&store, &ids, a.root, &out)?;
        let setup = start_setup.elapsed().as_secs_f64();
        let mut last = None;
        for r in more_roots(root, a.repeat.max(1), &out) {
            drop(last.take());
            let t = Instant::now();
            let (tree, levels) = hybrid_bfs(&mut out, inn.as_mut(), &hot, r, &budget, &HybridOptions { alpha: a.alpha, beta: a.beta })?;
            let secs = t.elapsed().as_secs_f64();
            runs.push(json!({"root": ids.original(r), "seconds": secs, "edges": edges_traversed(&tree, directed)}));
            last = Some((tree, levels, secs));
        }
        let (tree, levels, seconds) = last.unwrap();
        let mut stats = vec![out.stats()];
        stats.extend(inn.map(|g| g.stats()));
        (tree, levels, stats, setup, seconds, Some(k))
    } else {
        let mut g = Traverse::open(&store, "out", &budget, &engine_options(c, None)?, state)?;
        let root = resolve_root(&store, &ids, a.root, &g)?;
        let setup = start_setup.elapsed().as_secs_f64();
        let mut last = None;
        for r in more_roots(root, a.repeat.max(1), &g) {
            drop(last.take());
            let t = Instant::now();
            let tree = bfs(&mut g, r, &budget)?;
            let secs = t.elapsed().as_secs_f64();
            runs.push(json!({"root": ids.original(r), "seconds": secs, "edges": edges_traversed(&tree, directed)}));
            last = Some((tree, secs));
        }
        let (tree, seconds) = last.unwrap();
        (tree, Vec::<LevelStats>::new(), vec![g.stats()], setup, seconds, None)
    };
    let edges = edges_traversed(&tree, directed);
    if let Some(path) = &c.output {
        write_values(path, &ids, n, |v, out| {
            let x = if a.values == "parent" { tree.parent[v as usize] } else { tree.level[v as usize] };
            match (x == NONE, a.values == "parent") {
                (true, true) => out.extend_from_slice(b"-1"),
                (true, false) => write!(out, "{}", i64::MAX).unwrap(),
                (false, true) => write!(out, "{}", ids.original(x as u64)).unwrap(),
                (false, false) => write!(out, "{x}").unwrap(),
            }
        })?;
    }
    let root_orig = ids.original(tree.root);
    if c.json {
        let mut s = summary(if hybrid { "hybrid-bfs" } else { "bfs" }, c, Some(root_orig), seconds, edges, tree.reached, &stats, &budget);
        s["setup_seconds"] = json!(setup);
        s["hot_neighbours_k"] = json!(k);
        s["levels"] = json!(levels);
        s["runs"] = json!(runs);
        println!("{}", serde_json::to_string_pretty(&s)?);
    } else {
        let hit = stats.iter().map(|s| s.cache.hit_rate()).next().unwrap_or(0.0);
        println!(
            "{} from {root_orig}: reached {} of {} vertices, {} edges in {seconds:.3} s ({:.1} M edges/s); {} read, cache hit rate {:.1}%, {} I/O; setup {setup:.2} s{}",
            if hybrid { "hybrid BFS" } else { "BFS" },
            crate::grouped(tree.reached),
            crate::grouped(n),
            crate::grouped(edges),
            edges as f64 / seconds.max(1e-9) / 1e6,
            format_bytes(stats.iter().map(|s| s.cache.bytes_read).sum()),
            hit * 100.0,
            stats[0].io_backend,
            k.map(|k| format!(", {k} in-memory neighbours per vertex")).unwrap_or_default()
        );
    }
    Ok(ExitCode::SUCCESS)
}

pub fn run_sssp(a: SsspArgs) -> Result<ExitCode> {
    let c = &a.common;
    if c.engine != "auto" && c.engine != "traverse" && c.engine != "sortreduce" {
        bail!("sssp runs on the traverse or sortreduce engine (--engine auto, traverse or sortreduce)");
    }
    if c.engine == "sortreduce" || (c.engine == "auto" && external(c, "sssp")?) {
        return crate::external::run_sssp(c, a.root);
    }
    let (store, budget, _base, ids) = open_run(&c.store, c.memory)?;
    if !store.manifest().weighted {
        bail!("{}: SSSP needs edge weights; re-import with --weighted", c.store.display());
    }
    let n = store.vertices();
    let mut g = Traverse::open(&store, "out", &budget, &engine_options(c, None)?, ShortestPaths::state_bytes(n))?;
    let root = resolve_root(&store, &ids, a.root, &g)?;
    let t = Instant::now();
    let sp = sssp(&mut g, root, &budget)?;
    let seconds = t.elapsed().as_secs_f64();
    if let Some(path) = &c.output {
        write_values(path, &ids, n, |v, out| graphalytics_float(sp.dist[v as usize], out))?;
    }
    let edges = sp.arcs_scanned;
    if c.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&summary("sssp", c, Some(ids.original(root)), seconds, edges, sp.reached, &[g.stats()], &budget))?
        );
    } else {
        let s = g.stats();
        println!(
            "SSSP from {}: reached {} of {} vertices, {} edges relaxed in {seconds:.3} s; {} read, cache hit rate {:.1}%",
            ids.original(root),
            crate::grouped(sp.reached),
            crate::grouped(n),
            crate::grouped(edges),
            format_bytes(s.cache.bytes_read),
            s.cache.hit_rate() * 100.0
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `wcc --engine traverse` (and auto when the parent array fits): union-find
/// over one sequential scan.
pub fn run_union_find(c: &crate::analytics::StreamCommon) -> Result<ExitCode> {
    let (store, budget, _base, ids) = open_run(&c.store, c.memory)?;
    let n = store.vertices();
    let t = Instant::now();
    let labels = wcc(&store, &budget)?;
    let seconds = t.elapsed().as_secs_f64();
    let components = labels.iter().enumerate().filter(|&(v, &l)| v as u32 == l).count();
    if let Some(path) = &c.output {
        write_values(path, &ids, n, |v, out| write!(out, "{}", ids.original(labels[v as usize] as u64)).unwrap())?;
    }
    let edges = store.manifest().edges;
    if c.json {
        let s = json!({
            "algorithm": "wcc",
            "engine": "traverse",
            "engine_reason": "union-find over one sequential scan of the adjacency (sequential cursor); the parent array fits",
            "seconds": seconds,
            "components": components,
            "bytes_read": store.layout_bytes("out"),
            "budget_bytes": budget.total(),
            "budget_peak_bytes": budget.peak(),
            "peak_rss_bytes": outcore_io::peak_rss_bytes(),
        });
        println!("{}", serde_json::to_string_pretty(&s)?);
    } else {
        println!(
            "WCC (union-find): {} components over {} vertices and {} edges in {seconds:.3} s",
            crate::grouped(components as u64),
            crate::grouped(n),
            crate::grouped(edges)
        );
    }
    Ok(ExitCode::SUCCESS)
}
