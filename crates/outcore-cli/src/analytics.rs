//! `outcore pagerank|wcc|cdlp|spmv STORE` and `bfs --engine stream`: the
//! iterative analytics on the stream (tiles) and interval engines.

use crate::traverse::{graphalytics_float, open_run, write_values, ValueWriter};
use anyhow::{bail, Context, Result};
use outcore_algorithms::analytics::{AnalyticsOptions, Engine, EngineReport};
use outcore_engines::sortreduce::SortReduceOptions;
use outcore_engines::{IntervalOptions, StreamOptions};
use outcore_io::{format_bytes, Budget};
use outcore_store::{IdMap, Store};
use serde_json::json;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args, Clone)]
pub struct StreamCommon {
    pub store: PathBuf,
    /// Memory budget, page cache included.
    #[arg(long, default_value = "1G", value_parser = crate::parse_memory)]
    pub memory: u64,
    /// auto (from the budget), memory (every tile cached), stream (tiles,
    /// slide-cache-rewind), interval (VENUS, values on disk) or sortreduce
    /// (BigSparse, memory independent of |V|: pagerank and wcc); wcc also
    /// traverse (union-find, which auto picks when its parent array fits).
    #[arg(long, default_value = "auto")]
    pub engine: String,
    /// Directory for the interval and sort-reduce engines' temporary files
    /// (default: inside the store).
    #[arg(long)]
    pub temp: Option<PathBuf>,
    /// Stream segment size (default: from the budget, 1M to 64M).
    #[arg(long, value_parser = crate::parse_memory)]
    pub segment: Option<u64>,
    /// Keep tiles in a cache pool between iterations.
    #[arg(long, default_value = "on", value_parser = ["on", "off"])]
    pub cache: String,
    /// Reads in flight per segment (default: what `outcore probe` recorded, else 64).
    #[arg(long)]
    pub depth: Option<usize>,
    /// Use the pread thread pool instead of io_uring.
    #[arg(long)]
    pub pread: bool,
    /// Interval engine: cap the values of one interval and its boundary
    /// (default: what the budget allows).
    #[arg(long)]
    pub interval_values: Option<u64>,
    /// Write `vertex value` lines (Graphalytics format, original ids) here.
    #[arg(long)]
    pub output: Option<PathBuf>,
    /// Print a JSON summary.
    #[arg(long)]
    pub json: bool,
}

impl StreamCommon {
    fn options(&self) -> Result<AnalyticsOptions> {
        let engine: Engine = self.engine.parse().map_err(anyhow::Error::msg)?;
        Ok(AnalyticsOptions {
            engine,
            stream: StreamOptions {
                segment_bytes: self.segment,
                cache: self.cache == "on",
                depth: self.depth.or_else(outcore_io::probe::recorded_depth).unwrap_or(64).max(1),
                force_pread: self.pread,
                ..Default::default()
            },
            interval: IntervalOptions { max_interval_values: self.interval_values, temp_dir: self.temp.clone() },
            sortreduce: SortReduceOptions { temp_dir: self.temp.clone(), ..Default::default() },
        })
    }
}

#[derive(clap::Args)]
pub struct PageRankArgs {
    #[command(flatten)]
    pub common: StreamCommon,
    /// Iterations (Graphalytics runs a fixed number).
    #[arg(long, default_value_t = 10)]
    pub iterations: u32,
    #[arg(long, default_value_t = 0.85)]
    pub damping: f64,
    /// Stop early once the L1 change of an iteration is below this.
    #[arg(long)]
    pub tolerance: Option<f64>,
}

#[derive(clap::Args)]
pub struct CdlpArgs {
    #[command(flatten)]
    pub common: StreamCommon,
    /// Iterations (Graphalytics: the graph's cdlp.max-iterations).
    #[arg(long, default_value_t = 10)]
    pub iterations: u32,
}

#[derive(clap::Args)]
pub struct SpmvArgs {
    #[command(flatten)]
    pub common: StreamCommon,
    /// x as `vertex value` lines (original ids; missing vertices are 0),
    /// held in memory; default: all ones.
    #[arg(long)]
    pub vector: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct WccArgs {
    #[command(flatten)]
    pub common: StreamCommon,
}

/// The JSON summary every analytics command prints.
fn summary(algorithm: &str, iterations: u32, seconds: f64, report: &EngineReport, budget: &Budget) -> serde_json::Value {
    let per_iteration: Vec<serde_json::Value> = match (&report.stream, &report.interval) {
        (Some(s), _) => s
            .iterations
            .iter()
            .map(|i| {
                json!({
                    "seconds": i.seconds,
                    "bytes_read": i.bytes_read,
                    "bytes_from_cache": i.bytes_from_cache,
                    "cache_reuse": if i.bytes_processed > 0 { i.bytes_from_cache as f64 / i.bytes_processed as f64 } else { 0.0 },
                    "edges": i.edges_processed,
                    "segments": i.segments,
                    "tiles_skipped": i.pieces_skipped,
                    "tiles_evicted": i.pieces_evicted,
                    "io_wait_seconds": i.io_wait_seconds,
                })
            })
            .collect(),
        (None, Some(s)) => s.iterations.iter().map(|i| serde_json::to_value(i).unwrap()).collect(),
        _ => match &report.sortreduce {
            Some(s) => s.supersteps.iter().map(|i| serde_json::to_value(i).unwrap()).collect(),
            None => Vec::new(),
        },
    };
    json!({
        "algorithm": algorithm,
        "engine": report.engine,
        "engine_reason": report.reason,
        "iterations": iterations,
        "seconds": seconds,
        "seconds_per_iteration": seconds / iterations.max(1) as f64,
        "per_iteration": per_iteration,
        "stream": report.stream.as_ref().map(|s| json!({
            "io_backend": s.io_backend, "segment_bytes": s.segment_bytes, "pool_bytes": s.pool_bytes, "layout_bytes": s.layout_bytes,
        })),
        "interval": report.interval.as_ref().map(|s| json!({
            "intervals": s.intervals, "largest_interval_values": s.largest_interval_values, "setup_seconds": s.setup_seconds,
        })),
        "sortreduce": report.sortreduce.as_ref().map(|s| crate::external::sortreduce_json(s, 8)),
        "budget_bytes": budget.total(),
        "budget_peak_bytes": budget.peak(),
        "peak_rss_bytes": outcore_io::peak_rss_bytes(),
    })
}

fn describe(report: &EngineReport) -> String {
    match (&report.stream, &report.interval) {
        (Some(s), _) => {
            let read: u64 = s.iterations.iter().map(|i| i.bytes_read).sum();
            let cached: u64 = s.iterations.iter().map(|i| i.bytes_from_cache).sum();
            format!(
                "engine {} ({} segments, {} pool): {} read, {} from the cache",
                report.engine.name(),
                format_bytes(s.segment_bytes),
                format_bytes(s.pool_bytes),
                format_bytes(read),
                format_bytes(cached)
            )
        }
        (None, Some(s)) => {
            format!("engine interval: {} intervals (largest holds {} values)", s.intervals, crate::grouped(s.largest_interval_values))
        }
        _ => report.sortreduce.as_ref().map(crate::external::describe_sortreduce).unwrap_or_default(),
    }
}

/// Write `vertex value` lines; `each` calls `emit(v, format)` in vertex order.
pub fn write_lines(
    path: &std::path::Path,
    ids: &IdMap,
    each: impl FnOnce(&mut dyn FnMut(u64, &dyn Fn(&mut Vec<u8>))) -> Result<(), outcore_store::StoreError>,
) -> Result<()> {
    let mut w = ValueWriter::create(path)?;
    let mut failure = None;
    each(&mut |v, format| {
        if failure.is_none() {
            if let Err(e) = w.push(ids, v, &mut |_, out: &mut Vec<u8>| format(out)) {
                failure = Some(e);
            }
        }
    })?;
    if let Some(e) = failure {
        return Err(e);
    }
    w.finish()
}

fn write_labels(path: &std::path::Path, ids: &IdMap, labels: &outcore_algorithms::analytics::VertexResult<u64>) -> Result<()> {
    write_lines(path, ids, |emit| labels.for_each(|v, l| emit(v, &|out| write!(out, "{}", ids.original(l)).unwrap())))
}

fn write_floats(path: &std::path::Path, ids: &IdMap, values: &outcore_algorithms::analytics::VertexResult<f64>) -> Result<()> {
    write_lines(path, ids, |emit| values.for_each(|v, x| emit(v, &|out| graphalytics_float(x, out))))
}

fn open(c: &StreamCommon) -> Result<(Store, Budget, outcore_io::Reservation, IdMap, AnalyticsOptions)> {
    let opts = c.options()?;
    let (store, budget, base, ids) = open_run(&c.store, c.memory)?;
    Ok((store, budget, base, ids, opts))
}

pub fn run_pagerank(a: PageRankArgs) -> Result<ExitCode> {
    if let Some(t) = a.tolerance {
        if t.is_nan() || t <= 0.0 {
            bail!("--tolerance must be positive (got {t})");
        }
    }
    if !(0.0..=1.0).contains(&a.damping) {
        bail!("--damping must be between 0 and 1 (got {})", a.damping);
    }
    let c = &a.common;
    let (store, budget, _base, ids, opts) = open(c)?;
    let t = Instant::now();
    let pr = outcore_algorithms::pagerank::PageRankOptions { damping: a.damping, iterations: a.iterations, tolerance: a.tolerance };
    let r = outcore_algorithms::pagerank::pagerank(&store, &pr, &budget, &opts)?;
    let seconds = t.elapsed().as_secs_f64();
    if let Some(path) = &c.output {
        write_floats(path, &ids, &r.rank)?;
    }
    if c.json {
        let mut s = summary("pagerank", r.iterations, seconds, &r.report, &budget);
        s["last_l1_change"] = json!(r.delta);
        println!("{}", serde_json::to_string_pretty(&s)?);
    } else {
        println!(
            "PageRank: {} iterations over {} vertices in {seconds:.3} s ({:.3} s per iteration), last L1 change {:.3e}; {}",
            r.iterations,
            crate::grouped(store.vertices()),
            seconds / r.iterations.max(1) as f64,
            r.delta,
            describe(&r.report)
        );
    }
    Ok(ExitCode::SUCCESS)
}

pub fn run_wcc(a: WccArgs) -> Result<ExitCode> {
    let c = &a.common;
    if c.engine == "traverse" {
        return crate::traverse::run_union_find(c);
    }
    if c.engine == "auto" {
        // one sequential pass of union-find beats propagation whenever its parent array fits
        let store = Store::open(&c.store)?;
        let n = store.vertices();
        if n < u32::MAX as u64
            && store.manifest().layouts.contains_key("out")
            && n * 4 + outcore_io::PROCESS_BASELINE + (16 << 20) <= c.memory
        {
            return crate::traverse::run_union_find(c);
        }
    }
    let (store, budget, _base, ids, opts) = open(c)?;
    let t = Instant::now();
    let r = outcore_algorithms::label_wcc::wcc(&store, &budget, &opts)?;
    let seconds = t.elapsed().as_secs_f64();
    let mut components = 0u64;
    r.labels.for_each(|v, l| components += (v == l) as u64)?;
    if let Some(path) = &c.output {
        write_labels(path, &ids, &r.labels)?;
    }
    if c.json {
        let mut s = summary("wcc", r.iterations, seconds, &r.report, &budget);
        s["components"] = json!(components);
        println!("{}", serde_json::to_string_pretty(&s)?);
    } else {
        println!(
            "WCC (label propagation): {} components over {} vertices in {} iterations, {seconds:.3} s; {}",
            crate::grouped(components),
            crate::grouped(store.vertices()),
            r.iterations,
            describe(&r.report)
        );
    }
    Ok(ExitCode::SUCCESS)
}

pub fn run_cdlp(a: CdlpArgs) -> Result<ExitCode> {
    let c = &a.common;
    let (store, budget, _base, ids, opts) = open(c)?;
    let t = Instant::now();
    let r = outcore_algorithms::cdlp::cdlp(&store, a.iterations, &budget, &opts)?;
    let seconds = t.elapsed().as_secs_f64();
    let mut communities = 0u64;
    r.labels.for_each(|v, l| communities += (v == l) as u64)?;
    if let Some(path) = &c.output {
        write_labels(path, &ids, &r.labels)?;
    }
    if c.json {
        let mut s = summary("cdlp", r.iterations, seconds, &r.report, &budget);
        s["bands_per_iteration"] = json!(r.bands);
        s["labels_kept_by_their_vertex"] = json!(communities);
        println!("{}", serde_json::to_string_pretty(&s)?);
    } else {
        println!(
            "CDLP: {} iterations over {} vertices in {seconds:.3} s{}; {}",
            r.iterations,
            crate::grouped(store.vertices()),
            if r.bands > 1 { format!(" ({} bands per iteration)", r.bands) } else { String::new() },
            describe(&r.report)
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Read `vertex value` lines into a dense vector (0 where absent).
fn read_vector(path: &std::path::Path, ids: &IdMap, n: u64, budget: &Budget) -> Result<(Vec<f64>, outcore_io::Reservation)> {
    let charge = budget.reserve("SpMV input vector", n * 8)?;
    let text = std::fs::read_to_string(path).with_context(|| format!("{}: cannot read", path.display()))?;
    let mut x = vec![0.0; n as usize];
    for (k, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |why: &str| anyhow::anyhow!("{}:{}: {why}: '{line}'", path.display(), k + 1);
        let mut parts = line.split_whitespace();
        let (Some(v), Some(value), None) = (parts.next(), parts.next(), parts.next()) else {
            return Err(bad("expected 'vertex value'"));
        };
        let v: u64 = v.parse().map_err(|_| bad("the vertex is not an integer"))?;
        let value: f64 = value.parse().map_err(|_| bad("the value is not a number"))?;
        let d = ids.dense(v).ok_or_else(|| bad("no such vertex in the store"))?;
        x[d as usize] = value;
    }
    Ok((x, charge))
}

pub fn run_spmv(a: SpmvArgs) -> Result<ExitCode> {
    let c = &a.common;
    let (store, budget, _base, ids, opts) = open(c)?;
    let x = a.vector.as_ref().map(|p| read_vector(p, &ids, store.vertices(), &budget)).transpose()?;
    let t = Instant::now();
    let r = outcore_algorithms::spmv::spmv(&store, x.as_ref().map(|x| &x.0[..]), &budget, &opts)?;
    let seconds = t.elapsed().as_secs_f64();
    if let Some(path) = &c.output {
        write_floats(path, &ids, &r.y)?;
    }
    let mut norm = 0.0;
    r.y.for_each(|_, y| norm += y * y)?;
    if c.json {
        let mut s = summary("spmv", 1, seconds, &r.report, &budget);
        s["y_l2_norm"] = json!(norm.sqrt());
        println!("{}", serde_json::to_string_pretty(&s)?);
    } else {
        println!(
            "SpMV: y = A^T x over {} vertices in {seconds:.3} s, |y| = {:.6e}; {}",
            crate::grouped(store.vertices()),
            norm.sqrt(),
            describe(&r.report)
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `bfs --engine memory|stream`: level-synchronous BFS over the tiles.
pub fn run_tile_bfs(c: &crate::traverse::Common, root: Option<u64>) -> Result<ExitCode> {
    let (store, budget, _base, ids) = open_run(&c.store, c.memory)?;
    let opts = AnalyticsOptions {
        engine: c.engine.parse().map_err(anyhow::Error::msg)?,
        stream: StreamOptions {
            depth: c.depth.or_else(outcore_io::probe::recorded_depth).unwrap_or(64).max(1),
            force_pread: c.pread,
            ..Default::default()
        },
        interval: IntervalOptions::default(),
        sortreduce: SortReduceOptions::default(),
    };
    let n = store.vertices();
    let root = crate::external::root_or_hub(&store, &ids, root)?;
    let t = Instant::now();
    let r = outcore_algorithms::tile_bfs::bfs_tiles(&store, root, &budget, &opts)?;
    let seconds = t.elapsed().as_secs_f64();
    if let Some(path) = &c.output {
        write_values(path, &ids, n, |v, out| match r.level[v as usize] {
            outcore_algorithms::tile_bfs::UNREACHED => write!(out, "{}", i64::MAX).unwrap(),
            l => write!(out, "{l}").unwrap(),
        })?;
    }
    if c.json {
        let mut s = summary("bfs", r.depth, seconds, &r.report, &budget);
        s["root"] = json!(ids.original(root));
        s["vertices_reached"] = json!(r.reached);
        println!("{}", serde_json::to_string_pretty(&s)?);
    } else {
        println!(
            "BFS on tiles from {}: reached {} of {} vertices in {} levels, {seconds:.3} s; {}",
            ids.original(root),
            crate::grouped(r.reached),
            crate::grouped(n),
            r.depth,
            describe(&r.report)
        );
    }
    Ok(ExitCode::SUCCESS)
}
