//! `bfs|sssp --engine sortreduce` and `outcore bc`: runs on the fully
//! external sort-reduce engine, whose results are vertex files streamed
//! to the output, and the JSON figures every sort-reduce run reports.

use crate::traverse::{budget, graphalytics_float, Common};
use anyhow::{bail, Context, Result};
use outcore_algorithms::analytics::for_each_stored;
use outcore_algorithms::bc::{self, Sources};
use outcore_algorithms::bfs::{bfs_sortreduce, BfsTree, NONE};
use outcore_algorithms::sssp::{sssp_sortreduce, ShortestPaths};
use outcore_engines::sortreduce::{Record, SortReduce, SortReduceOptions, SortReduceStats, ValueFile};
use outcore_engines::{Traverse, TraverseOptions};
use outcore_io::{format_bytes, Budget};
use outcore_store::{IdMap, Store};
use serde_json::json;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// What a sort-reduce run did, for `--json`.
pub fn sortreduce_json(s: &SortReduceStats, update_bytes: usize) -> serde_json::Value {
    json!({
        "batch_updates": s.batch_updates,
        "fan_in": s.fan_in,
        "lookup_threads": s.lookup_threads,
        "supersteps": s.supersteps.len(),
        "updates_generated": s.updates(),
        "update_bytes_generated": s.updates() * (8 + update_bytes as u64),
        "reduction_ratio": s.reduction_ratio(),
        "merge_passes": s.merge_passes(),
        "bytes_written": s.bytes_written(),
        "bytes_read": s.bytes_read(),
        "per_superstep": s.supersteps,
    })
}

/// One line about a sort-reduce run.
pub fn describe_sortreduce(s: &SortReduceStats) -> String {
    format!(
        "engine sortreduce: {} supersteps, {} updates, {:.1}% left after in-memory reduction, {} merge passes, {} written, {} read",
        s.supersteps.len(),
        crate::grouped(s.updates()),
        100.0 * s.reduction_ratio(),
        s.merge_passes(),
        format_bytes(s.bytes_written()),
        format_bytes(s.bytes_read())
    )
}

/// Whether `--engine auto` leaves the traverse engine for sort-reduce:
/// the state and the vertex index do not fit with a minimal cache.
pub fn auto_is_external(store: &Store, memory: u64, state: u64) -> bool {
    let n = store.vertices();
    // the traverse engine runs with a cache of 64 blocks
    state + (n + 1) * 8 + (256 << 10) + outcore_io::PROCESS_BASELINE > memory
}

fn open_engine(store: &Store, layouts: &[&str], update_bytes: usize, budget: &Budget, temp: &Option<PathBuf>) -> Result<SortReduce> {
    let opts = SortReduceOptions { temp_dir: temp.clone(), ..Default::default() };
    Ok(SortReduce::open(store, layouts, update_bytes, budget, &opts)?)
}

/// Dense id of `root` (original id), or the vertex of highest out-degree
/// (one pass over the degrees).
pub fn root_or_hub(store: &Store, ids: &IdMap, root: Option<u64>) -> Result<u64> {
    match root {
        Some(r) => ids.dense(r).with_context(|| format!("{}: root {r} is not a vertex of this store", store.dir().display())),
        None => {
            let mut best = (0, 0);
            store.layout("out")?.for_each_degree(|v, d| {
                if d > best.1 {
                    best = (v, d)
                }
            })?;
            Ok(best.0)
        }
    }
}

fn write_file<T: Record>(path: &Path, ids: &IdMap, values: &ValueFile<T>, format: impl Fn(T, &mut Vec<u8>)) -> Result<()> {
    crate::analytics::write_lines(path, ids, |emit| for_each_stored(values, |v, x| emit(v, &|out| format(x, out))))
}

fn summary(algorithm: &str, reason: &str, seconds: f64, engine: &SortReduce, update_bytes: usize, budget: &Budget) -> serde_json::Value {
    json!({
        "algorithm": algorithm,
        "engine": "sortreduce",
        "engine_reason": reason,
        "seconds": seconds,
        "sortreduce": sortreduce_json(engine.stats(), update_bytes),
        "budget_bytes": budget.total(),
        "budget_peak_bytes": budget.peak(),
        "peak_rss_bytes": outcore_io::peak_rss_bytes(),
    })
}

fn reason(c: &Common) -> &'static str {
    if c.engine == "sortreduce" {
        "requested"
    } else {
        "the vertex state and index do not fit the budget: sort-reduce, memory independent of |V|"
    }
}

pub fn run_bfs(c: &Common, root: Option<u64>, values: &str) -> Result<ExitCode> {
    let (store, budget, _base, ids) = crate::traverse::open_run(&c.store, c.memory)?;
    let root = root_or_hub(&store, &ids, root)?;
    let engine = open_engine(&store, &["out"], 4, &budget, &c.temp)?;
    let t = Instant::now();
    let tree = bfs_sortreduce(engine, root)?;
    let seconds = t.elapsed().as_secs_f64();
    if let Some(path) = &c.output {
        write_file(path, &ids, &tree.values, |[level, parent], out| match (level == NONE, values == "parent") {
            (true, true) => out.extend_from_slice(b"-1"),
            (true, false) => write!(out, "{}", i64::MAX).unwrap(),
            (false, true) => write!(out, "{}", ids.original(parent as u64)).unwrap(),
            (false, false) => write!(out, "{level}").unwrap(),
        })?;
    }
    let edges = if store.manifest().directed { tree.arcs_scanned } else { tree.arcs_scanned / 2 };
    if c.json {
        let mut s = summary("bfs", reason(c), seconds, &tree.engine, 4, &budget);
        s["root"] = json!(ids.original(root));
        s["vertices_reached"] = json!(tree.reached);
        s["depth"] = json!(tree.depth);
        s["edges_traversed"] = json!(edges);
        s["teps"] = json!(edges as f64 / seconds.max(1e-9));
        println!("{}", serde_json::to_string_pretty(&s)?);
    } else {
        println!(
            "BFS from {}: reached {} of {} vertices in {} levels, {} edges in {seconds:.3} s; {}",
            ids.original(root),
            crate::grouped(tree.reached),
            crate::grouped(store.vertices()),
            tree.depth,
            crate::grouped(edges),
            describe_sortreduce(tree.engine.stats())
        );
    }
    Ok(ExitCode::SUCCESS)
}

pub fn run_sssp(c: &Common, root: Option<u64>) -> Result<ExitCode> {
    let (store, budget, _base, ids) = crate::traverse::open_run(&c.store, c.memory)?;
    if !store.manifest().weighted {
        bail!("{}: SSSP needs edge weights; re-import with --weighted", c.store.display());
    }
    let root = root_or_hub(&store, &ids, root)?;
    let engine = open_engine(&store, &["out"], 8, &budget, &c.temp)?;
    let t = Instant::now();
    let sp = sssp_sortreduce(engine, root)?;
    let seconds = t.elapsed().as_secs_f64();
    if let Some(path) = &c.output {
        write_file(path, &ids, &sp.dist, graphalytics_float)?;
    }
    if c.json {
        let mut s = summary("sssp", reason(c), seconds, &sp.engine, 8, &budget);
        s["root"] = json!(ids.original(root));
        s["vertices_reached"] = json!(sp.reached);
        s["edges_relaxed"] = json!(sp.arcs_scanned);
        println!("{}", serde_json::to_string_pretty(&s)?);
    } else {
        println!(
            "SSSP from {}: reached {} of {} vertices in {} supersteps, {} edges relaxed in {seconds:.3} s; {}",
            ids.original(root),
            crate::grouped(sp.reached),
            crate::grouped(store.vertices()),
            sp.supersteps,
            crate::grouped(sp.arcs_scanned),
            describe_sortreduce(sp.engine.stats())
        );
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(clap::Args)]
pub struct BcArgs {
    pub store: PathBuf,
    /// Exact BC from these sources (original ids; repeat the flag for more).
    #[arg(long = "source", conflicts_with = "sources")]
    pub source: Vec<u64>,
    /// `all` (exact) or N: N sources sampled at random, sums scaled by |V|/N
    /// (default: all up to 4,096 vertices, else 64).
    #[arg(long)]
    pub sources: Option<String>,
    /// Seed of the source sample.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Memory budget, page cache included.
    #[arg(long, default_value = "1G", value_parser = crate::parse_memory)]
    pub memory: u64,
    /// auto, traverse (state in memory, 32 bytes a vertex) or sortreduce (fully external).
    #[arg(long, default_value = "auto", value_parser = ["auto", "traverse", "sortreduce"])]
    pub engine: String,
    /// Directory for the sort-reduce engine's logs (default: inside the store).
    #[arg(long)]
    pub temp: Option<PathBuf>,
    /// Write `vertex value` lines (original ids) here.
    #[arg(long)]
    pub output: Option<PathBuf>,
    /// Print a JSON summary.
    #[arg(long)]
    pub json: bool,
}

pub fn run_bc(a: BcArgs) -> Result<ExitCode> {
    let store = Store::open(&a.store)?;
    let (budget, _base) = budget(a.memory)?;
    let ids = store.id_map(&budget)?;
    let n = store.vertices();
    let directed = store.manifest().directed;
    let sources = if !a.source.is_empty() {
        let dense = a
            .source
            .iter()
            .map(|&r| ids.dense(r).with_context(|| format!("{}: source {r} is not a vertex of this store", a.store.display())))
            .collect::<Result<Vec<_>>>()?;
        Sources::Given(dense)
    } else {
        match a.sources.as_deref() {
            Some("all") => Sources::All,
            Some(k) => Sources::Sample {
                count: k
                    .parse()
                    .ok()
                    .filter(|&k: &u64| k > 0)
                    .with_context(|| format!("--sources takes 'all' or a positive count, not '{k}'"))?,
                seed: a.seed,
            },
            None if n <= 4096 => Sources::All,
            None => Sources::Sample { count: 64, seed: a.seed },
        }
    };
    let (picked, scale) = bc::pick_sources(n, &sources, directed)?;
    let external = a.engine == "sortreduce" || (a.engine == "auto" && auto_is_external(&store, a.memory, bc::state_bytes(n)));
    let predecessors = if directed { "in" } else { "out" };
    if external && directed && !store.manifest().layouts.contains_key("in") {
        bail!("{}: BC on sort-reduce reads in-edges; add them with: outcore layout add {} in", a.store.display(), a.store.display());
    }
    let t = Instant::now();
    let (engine_name, mut summary_json);
    if external {
        let layouts: &[&str] = if directed { &["out", "in"] } else { &["out"] };
        let mut engine = open_engine(&store, layouts, 8, &budget, &a.temp)?;
        let values = bc::bc_sortreduce(&mut engine, predecessors, &picked, scale)?;
        let seconds = t.elapsed().as_secs_f64();
        if let Some(path) = &a.output {
            write_file(path, &ids, &values, graphalytics_float)?;
        }
        engine_name = "sortreduce";
        summary_json = summary("bc", if a.engine == "auto" { reason_auto() } else { "requested" }, seconds, &engine, 8, &budget);
        if !a.json {
            println!("{}", describe_sortreduce(engine.stats()));
        }
    } else {
        let mut g = Traverse::open(&store, "out", &budget, &TraverseOptions::default(), bc::state_bytes(n))?;
        let (values, arcs) = bc::bc_traverse(&mut g, &picked, scale, &budget)?;
        let seconds = t.elapsed().as_secs_f64();
        if let Some(path) = &a.output {
            crate::traverse::write_values(path, &ids, n, |v, out| graphalytics_float(values[v as usize], out))?;
        }
        engine_name = "traverse";
        summary_json = json!({
            "algorithm": "bc",
            "engine": "traverse",
            "engine_reason": if a.engine == "auto" { "distances, path counts, dependencies and the index fit the budget" } else { "requested" },
            "seconds": seconds,
            "arcs_read": arcs,
            "bytes_read": g.stats().cache.bytes_read,
            "budget_bytes": budget.total(),
            "budget_peak_bytes": budget.peak(),
            "peak_rss_bytes": outcore_io::peak_rss_bytes(),
        });
    }
    let seconds = summary_json["seconds"].as_f64().unwrap_or(0.0);
    let exact = !matches!(sources, Sources::Sample { .. }) || picked.len() as u64 == n;
    if a.json {
        summary_json["sources"] = json!(picked.len());
        summary_json["exact"] = json!(exact);
        summary_json["scale"] = json!(scale);
        println!("{}", serde_json::to_string_pretty(&summary_json)?);
    } else {
        println!(
            "BC ({}) from {} of {} vertices{} on the {engine_name} engine in {seconds:.3} s",
            if exact { "exact" } else { "sampled" },
            crate::grouped(picked.len() as u64),
            crate::grouped(n),
            if exact { String::new() } else { format!(", sums scaled by {scale:.1}") },
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn reason_auto() -> &'static str {
    "BC's 32 bytes a vertex and the index do not fit the budget: sort-reduce, memory independent of |V|"
}

/// Memory the traverse versions keep, for `auto`.
pub fn traverse_state(algorithm: &str, n: u64) -> u64 {
    match algorithm {
        "sssp" => ShortestPaths::state_bytes(n),
        _ => BfsTree::state_bytes(n),
    }
}
