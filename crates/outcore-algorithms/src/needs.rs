//! What each engine costs, for the algorithms' [`Need`] declarations: the
//! traverse engine's index and minimum cache, the tile engines' segments
//! and (for `memory`) every tile, the interval engine's bitmaps, the
//! sort-reduce engine's buffers. One model per engine, so that every
//! algorithm states its needs the same way and `auto` compares like with
//! like. Also the helpers that open an engine the way its need assumed.

use crate::plan::{Engine, Need, Support};
use crate::run::{Context, RunOptions};
use outcore_engines::sortreduce::{SortReduce, SortReduceOptions};
use outcore_engines::{TileStream, Traverse};
use outcore_io::{Budget, BudgetError, Reservation};
use outcore_store::{Store, StoreError};

/// The traverse engine over `layouts`, with `state` bytes of algorithm
/// state beside each layout's index and minimum cache.
pub fn traverse(store: &Store, layouts: &[&'static str], state: u64, opts: &RunOptions, what: &str) -> Result<Support, StoreError> {
    let block = opts.traverse.block_bytes;
    let mut bytes = state;
    for l in layouts {
        bytes += if store.has_layout(l) {
            Traverse::min_bytes(store, l, block)?
        } else {
            (store.vertices() + 1) * 8 + Traverse::min_cache_bytes(block)
        };
    }
    Ok(Support::Runs(Need::new(layouts, bytes, what)))
}

/// Sequential scans of `layouts` in lockstep with `state` bytes in memory
/// (each scan holds its read-ahead chunks and its longest list:
/// [`scan_bytes`]).
pub fn scan(store: &Store, layouts: &[&'static str], state: u64, what: &str) -> Result<Support, StoreError> {
    Ok(Support::Runs(Need::new(layouts, state + scan_bytes(store, layouts)?, what)))
}

/// Memory of sequential scans of `layouts` open at once
/// ([`Layout::scan_bytes`](outcore_store::Layout::scan_bytes)); a layout
/// the store lacks counts its read-ahead chunks (its plan names it missing).
pub fn scan_bytes(store: &Store, layouts: &[&str]) -> Result<u64, StoreError> {
    let mut bytes = 0;
    for &l in layouts {
        bytes += if store.has_layout(l) { store.layout(l)?.scan_bytes()? } else { 4 * outcore_store::STREAM_CHUNK_BYTES as u64 };
    }
    Ok(bytes)
}

/// Charge sequential scans of `layouts` open at once to `budget`, as
/// [`scan`] planned them.
pub fn charge_scans(budget: &Budget, store: &Store, layouts: &[&str]) -> Result<Reservation, StoreError> {
    let what = format!("read-ahead chunks and the longest list of a scan of {}", layouts.join(" and "));
    Ok(budget.reserve(&what, scan_bytes(store, layouts)?)?)
}

/// Tile bytes one pass reads, from the tile record or, before tiles exist,
/// estimated from the edge count (4 bytes an edge, upper triangle of an
/// undirected store; plus 4 for a weight).
fn tile_data(store: &Store, weights: bool) -> (u64, u64) {
    match &store.manifest().tiles {
        Some(rec) => (TileStream::layout_bytes(rec, weights), rec.tiles),
        None => {
            let m = store.manifest();
            let tuples = if m.directed { m.arcs } else { m.edges };
            (tuples * if weights { 8 } else { 4 }, tuples.min(1 << 20))
        }
    }
}

/// The tile engines: `memory` (every tile in the pool) or `stream` (two
/// segments and a pool of what is left).
pub fn tiles(store: &Store, engine: Engine, state: u64, weights: bool, what: &str) -> Support {
    let (data, tiles) = tile_data(store, weights);
    // a segment holds a share of every file read: edges, and weights
    let files = if weights && store.manifest().tiles.as_ref().is_none_or(|t| t.weights.is_some()) { 2 } else { 1 };
    // the tile bytes are 4 an edge a file read
    let fixed = |segment: u64| {
        TileStream::tiles_bytes(tiles, data / (4 * files), segment * files, files) + TileStream::segments_bytes(segment * files)
    };
    match engine {
        Engine::Memory => Support::Runs(
            Need::new(&["tiles"], state + data + fixed(1 << 20) + (1 << 20), format!("{what} and every tile"))
                .with_weights(weights)
                .auto_at(state + data + fixed(64 << 20)),
        ),
        _ => Support::Runs(Need::new(&["tiles"], state + fixed(1 << 20), format!("{what} and two stream segments")).with_weights(weights)),
    }
}

/// Structure layouts the interval engine reads: the neighbours of an
/// undirected store; in-edges (and out-edges when direction is ignored) of
/// a directed one.
pub fn interval_layouts(store: &Store, both_directions: bool) -> &'static [&'static str] {
    match (store.manifest().directed, both_directions) {
        (false, _) => &["out"],
        (true, false) => &["in"],
        (true, true) => &["in", "out"],
    }
}

/// The interval engine: its membership bitmap and buffers, what the
/// version keeps beside it (`state`), and (for `auto`) room for a quarter
/// of the values, so that intervals are few.
pub fn interval(store: &Store, layouts: &'static [&'static str], value_bytes: u64, state: u64) -> Result<Support, StoreError> {
    let n = store.vertices();
    let longest = outcore_engines::interval::longest_lists(store, layouts)?;
    let fixed = outcore_engines::interval::fixed_bytes(n, layouts.len(), value_bytes, longest) + state;
    Ok(Support::Runs(
        Need::new(layouts, fixed + (1 << 20), "the interval engine's bitmaps and buffers").auto_at(fixed + n * value_bytes / 4),
    ))
}

/// The sort-reduce engine over `layouts` for updates of `update_bytes`.
pub fn sortreduce(store: &Store, layouts: &[&'static str], update_bytes: usize, opts: &RunOptions) -> Result<Support, StoreError> {
    let bytes = if layouts.iter().all(|l| store.has_layout(l)) {
        SortReduce::min_bytes(store, layouts, update_bytes, &opts.sortreduce)?
    } else {
        42 << 20
    };
    Ok(Support::Runs(Need::new(layouts, bytes, "one sort buffer and the sort-reduce engine's streams")))
}

/// Open the sort-reduce engine over `layouts` for updates of `update_bytes`.
pub fn open_sortreduce(cx: &Context, layouts: &[&str], update_bytes: usize) -> Result<SortReduce, StoreError> {
    let opts: SortReduceOptions = cx.sortreduce_options();
    SortReduce::open(cx.store, layouts, update_bytes, cx.budget, &opts)
}

/// Open the stream engine for the planned tile regime.
pub fn open_stream(cx: &Context, weights: bool) -> Result<TileStream, StoreError> {
    let s = TileStream::open(cx.store, cx.budget, weights, cx.stream_options())?;
    if cx.engine() == Engine::Memory && s.stats().pool_bytes < s.stats().layout_bytes {
        return Err(BudgetError {
            what: "every tile in the cache pool (engine memory)".into(),
            needed: s.stats().layout_bytes,
            available: s.stats().pool_bytes,
            total: cx.budget.total(),
            suggest: cx.budget.total() + s.stats().layout_bytes - s.stats().pool_bytes,
        }
        .into());
    }
    Ok(s)
}

/// The traverse engine's figures for a report.
pub fn traverse_figures(cx: &mut Context, stats: &[outcore_engines::TraverseStats]) {
    let bytes: u64 = stats.iter().map(|s| s.cache.bytes_read).sum();
    let hits: u64 = stats.iter().map(|s| s.cache.hits).sum();
    let all: u64 = stats.iter().map(|s| s.cache.hits + s.cache.late + s.cache.misses).sum();
    cx.figure("bytes_read", bytes);
    cx.figure("cache_hit_rate", if all == 0 { 0.0 } else { hits as f64 / all as f64 });
    cx.figure("prefetch", cx.options.traverse.prefetch);
    cx.figure("io_backend", stats.first().map(|s| s.io_backend.clone()));
    cx.figure("index_bytes", stats.iter().map(|s| s.index_bytes).sum::<u64>());
    cx.figure("fast_degree_bytes", stats.iter().map(|s| s.fast_degree_bytes).sum::<u64>());
    cx.figure("cache", stats);
}

/// What the engine of an iterative run did.
#[derive(Clone, Debug)]
pub enum EngineStats {
    Stream(outcore_engines::StreamStats),
    Interval(outcore_engines::IntervalStats),
    /// The statistics and the bytes of one update's value.
    SortReduce(outcore_engines::sortreduce::SortReduceStats, usize),
    /// Sequential scans of the CSR (the traverse engine's cursor).
    Scan {
        bytes_read: u64,
        passes: u64,
    },
}

impl EngineStats {
    /// One line on what the engine did.
    pub fn describe(&self) -> String {
        use outcore_io::format_bytes;
        match self {
            EngineStats::Stream(s) => {
                let read: u64 = s.iterations.iter().map(|i| i.bytes_read).sum();
                let cached: u64 = s.iterations.iter().map(|i| i.bytes_from_cache).sum();
                format!(
                    "{} segments, {} pool: {} read, {} from the cache",
                    format_bytes(s.segment_bytes),
                    format_bytes(s.pool_bytes),
                    format_bytes(read),
                    format_bytes(cached)
                )
            }
            EngineStats::Interval(s) => format!("{} intervals (largest holds {} values)", s.intervals, s.largest_interval_values),
            EngineStats::SortReduce(s, _) => format!(
                "{} supersteps, {} updates, {:.1}% left after in-memory reduction, {} merge passes, {} written, {} read",
                s.supersteps.len(),
                s.updates(),
                100.0 * s.reduction_ratio(),
                s.merge_passes(),
                format_bytes(s.bytes_written()),
                format_bytes(s.bytes_read())
            ),
            // the bytes read are their own figure (`bytes_read`)
            EngineStats::Scan { passes: 0, .. } => "no sequential scan".into(),
            EngineStats::Scan { passes, .. } => format!("{passes} sequential scan{}", if *passes == 1 { "" } else { "s" }),
        }
    }
}

/// The stream / interval / sort-reduce figures of an iterative run.
pub fn engine_figures(cx: &mut Context, report: &EngineStats) {
    use serde_json::json;
    let per_iteration: Vec<serde_json::Value> = match report {
        EngineStats::Stream(s) => s
            .iterations
            .iter()
            .map(|i| {
                json!({
                    "seconds": i.seconds,
                    "bytes_read": i.bytes_read,
                    "reads": i.reads,
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
        EngineStats::Interval(s) => s.iterations.iter().map(|i| serde_json::to_value(i).unwrap()).collect(),
        EngineStats::SortReduce(s, _) => s.supersteps.iter().map(|i| serde_json::to_value(i).unwrap()).collect(),
        EngineStats::Scan { .. } => Vec::new(),
    };
    cx.figure("per_iteration", per_iteration);
    match report {
        EngineStats::Stream(s) => cx.figure(
            "stream",
            json!({"io_backend": s.io_backend, "segment_bytes": s.segment_bytes, "pool_bytes": s.pool_bytes, "layout_bytes": s.layout_bytes}),
        ),
        EngineStats::Interval(s) => cx.figure(
            "interval",
            json!({"intervals": s.intervals, "largest_interval_values": s.largest_interval_values, "setup_seconds": s.setup_seconds}),
        ),
        EngineStats::SortReduce(s, update_bytes) => cx.figure("sortreduce", sortreduce_json(s, *update_bytes)),
        EngineStats::Scan { bytes_read, passes } => {
            cx.figure("bytes_read", bytes_read);
            cx.figure("passes", passes);
        }
    }
}

/// What a sort-reduce run did (`update_bytes`: the size of one update's value).
pub fn sortreduce_json(s: &outcore_engines::sortreduce::SortReduceStats, update_bytes: usize) -> serde_json::Value {
    serde_json::json!({
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
