//! What the iterative analytics (PageRank, WCC, CDLP, SpMV) share: the
//! choice of regime from the budget (DESIGN.md, "What out-of-core means
//! here"), per-vertex state cells, and results that may live on disk.
//!
//! - `memory`: the stream engine with a pool that holds every tile, so only
//!   the first pass reads the device;
//! - `stream`: vertex state in memory, tiles streamed with slide-cache-rewind;
//! - `interval`: vertex values on disk too, VENUS intervals;
//! - `sortreduce`: vertex values on disk, updates logged and sort-reduced
//!   (BigSparse): memory independent of |V|, for when even the interval
//!   engine's per-vertex bits and a few intervals' values do not fit.

use outcore_engines::sortreduce::{SortReduce, SortReduceOptions, SortReduceStats, ValueFile};
use outcore_engines::{IntervalEngine, IntervalOptions, IntervalStats, StreamOptions, StreamStats, TileStream, VertexValue};
use outcore_io::{format_bytes, Budget, BudgetError};
use outcore_store::{Layout, Store, StoreError};
use serde::Serialize;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    Auto,
    Memory,
    Stream,
    Interval,
    #[serde(rename = "sortreduce")]
    SortReduce,
}

impl std::str::FromStr for Engine {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match s {
            "auto" => Engine::Auto,
            "memory" => Engine::Memory,
            "stream" => Engine::Stream,
            "interval" => Engine::Interval,
            "sortreduce" => Engine::SortReduce,
            _ => return Err(format!("unknown engine '{s}' (auto, memory, stream, interval, sortreduce)")),
        })
    }
}

impl Engine {
    pub fn name(self) -> &'static str {
        match self {
            Engine::Auto => "auto",
            Engine::Memory => "memory",
            Engine::Stream => "stream",
            Engine::Interval => "interval",
            Engine::SortReduce => "sortreduce",
        }
    }
}

#[derive(Clone, Debug)]
pub struct AnalyticsOptions {
    pub engine: Engine,
    pub stream: StreamOptions,
    pub interval: IntervalOptions,
    pub sortreduce: SortReduceOptions,
}

impl Default for AnalyticsOptions {
    fn default() -> Self {
        AnalyticsOptions {
            engine: Engine::Auto,
            stream: StreamOptions::default(),
            interval: IntervalOptions::default(),
            sortreduce: SortReduceOptions::default(),
        }
    }
}

/// The engine a run used, why, and what it did.
#[derive(Clone, Debug, Serialize)]
pub struct EngineReport {
    pub engine: Engine,
    pub reason: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream: Option<StreamStats>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interval: Option<IntervalStats>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sortreduce: Option<SortReduceStats>,
}

impl EngineReport {
    pub fn new(engine: Engine, reason: String) -> Self {
        EngineReport { engine, reason, stream: None, interval: None, sortreduce: None }
    }
}

/// Structure layouts the interval engine reads: the neighbours of an
/// undirected store; in-edges (and out-edges when direction is ignored) of
/// a directed one.
pub fn interval_layouts(store: &Store, both_directions: bool) -> Vec<&'static str> {
    match (store.manifest().directed, both_directions) {
        (false, _) => vec!["out"],
        (true, false) => vec!["in"],
        (true, true) => vec!["in", "out"],
    }
}

/// Pick the regime. `tile_state` is the vertex state the tile program keeps
/// in memory; `weights` whether it streams the tile weights.
pub fn choose(
    store: &Store,
    budget: &Budget,
    opts: &AnalyticsOptions,
    tile_state: u64,
    weights: bool,
    structure: &[&str],
) -> Result<(Engine, String), StoreError> {
    let tiles = store.manifest().tiles.clone();
    let available = budget.available();
    let have_structure = structure.iter().all(|l| store.manifest().layouts.contains_key(*l));
    let tile_error = || TileStream::record(store).err().unwrap();
    let fits = |bytes: u64, what: &str| -> Result<(), StoreError> {
        if bytes <= available {
            Ok(())
        } else {
            Err(BudgetError {
                what: what.into(),
                needed: bytes,
                available,
                total: budget.total(),
                suggest: budget.total() + bytes - available,
            }
            .into())
        }
    };
    match opts.engine {
        Engine::Memory => {
            let rec = tiles.ok_or_else(tile_error)?;
            let need = tile_state + TileStream::layout_bytes(&rec, weights) + TileStream::fixed_bytes(&rec, 1 << 20) + (1 << 20);
            fits(need, "vertex state and every tile (engine memory)")?;
            Ok((Engine::Memory, "requested".into()))
        }
        Engine::Stream => {
            let rec = tiles.ok_or_else(tile_error)?;
            fits(tile_state + TileStream::fixed_bytes(&rec, 1 << 20), "vertex state and two stream segments")?;
            Ok((Engine::Stream, "requested".into()))
        }
        Engine::Interval => Ok((Engine::Interval, "requested".into())),
        Engine::SortReduce => Ok((Engine::SortReduce, "requested".into())),
        Engine::Auto => {
            let Some(rec) = tiles else {
                if have_structure {
                    return Ok((
                        Engine::Interval,
                        "the store has no tiles layout (outcore layout add STORE tiles); intervals over the CSR".into(),
                    ));
                }
                return Err(tile_error());
            };
            let data = TileStream::layout_bytes(&rec, weights);
            let memory_need = tile_state + data + TileStream::fixed_bytes(&rec, 64 << 20);
            if memory_need <= available {
                return Ok((
                    Engine::Memory,
                    format!(
                        "vertex state ({}) and every tile ({}) fit the {} left of the budget: after the first pass nothing is read",
                        format_bytes(tile_state),
                        format_bytes(data),
                        format_bytes(available)
                    ),
                ));
            }
            let stream_need = tile_state + TileStream::fixed_bytes(&rec, 1 << 20);
            if stream_need <= available {
                return Ok((
                    Engine::Stream,
                    format!(
                        "vertex state ({}) fits the {} left of the budget but the tiles ({}) do not: tiles streamed, the rest a cache pool",
                        format_bytes(tile_state),
                        format_bytes(available),
                        format_bytes(data)
                    ),
                ));
            }
            if !have_structure {
                fits(stream_need, &format!("vertex state and two stream segments (intervals would need the layouts {structure:?})"))?;
            }
            // VENUS needs a bit and a rank per vertex and works best with few
            // intervals; below that, sort-reduce, whose memory is independent of |V|
            let n = store.vertices();
            let interval_need = outcore_engines::interval::fixed_bytes(n, structure.len()) + n * 8 / 4;
            if interval_need > available {
                return Ok((
                    Engine::SortReduce,
                    format!(
                        "neither the vertex state ({}) nor the interval engine's bitmaps and a quarter of the values ({}) fit the {} left of the budget: sort-reduce, memory independent of |V|",
                        format_bytes(tile_state),
                        format_bytes(interval_need),
                        format_bytes(available)
                    ),
                ));
            }
            Ok((
                Engine::Interval,
                format!(
                    "vertex state ({}) does not fit the {} left of the budget beside two segments: VENUS intervals, values on disk",
                    format_bytes(tile_state),
                    format_bytes(available)
                ),
            ))
        }
    }
}

/// For algorithms without a sort-reduce version: auto falls back to
/// intervals, an explicit request is an error saying why.
pub fn without_sortreduce(choice: (Engine, String), opts: &AnalyticsOptions, why: &str) -> Result<(Engine, String), StoreError> {
    match choice {
        (Engine::SortReduce, _) if opts.engine == Engine::SortReduce => {
            Err(StoreError::invalid("--engine sortreduce", format!("{why}; use --engine interval for vertex values on disk")))
        }
        (Engine::SortReduce, reason) => Ok((Engine::Interval, format!("{reason} (this algorithm has no sort-reduce version: intervals)"))),
        other => Ok(other),
    }
}

/// An f64 sum many threads add to (sort-reduce programs' global sums).
#[derive(Default)]
pub struct AtomicSum(AtomicU64);

impl AtomicSum {
    pub fn add(&self, x: f64) {
        let mut cur = self.0.load(Relaxed);
        loop {
            let next = (f64::from_bits(cur) + x).to_bits();
            match self.0.compare_exchange_weak(cur, next, Relaxed, Relaxed) {
                Ok(_) => return,
                Err(seen) => cur = seen,
            }
        }
    }
    pub fn get(&self) -> f64 {
        f64::from_bits(self.0.load(Relaxed))
    }
}

/// Open the sort-reduce engine over `layouts` for updates of `update_bytes`.
pub fn open_sortreduce(
    store: &Store,
    layouts: &[&str],
    update_bytes: usize,
    budget: &Budget,
    opts: &AnalyticsOptions,
) -> Result<SortReduce, StoreError> {
    SortReduce::open(store, layouts, update_bytes, budget, &opts.sortreduce)
}

/// Per-vertex f64 state written under the stream engine's ownership rule
/// (one writer per span at a time): relaxed atomics, plain loads and stores.
pub struct F64Cells(Vec<AtomicU64>);

impl F64Cells {
    pub fn new(n: usize, x: f64) -> Self {
        F64Cells((0..n).map(|_| AtomicU64::new(x.to_bits())).collect())
    }
    #[inline]
    pub fn get(&self, v: usize) -> f64 {
        f64::from_bits(self.0[v].load(Relaxed))
    }
    #[inline]
    pub fn set(&self, v: usize, x: f64) {
        self.0[v].store(x.to_bits(), Relaxed)
    }
    /// Not an atomic add: only the owner of `v`'s span may call it.
    #[inline]
    pub fn add(&self, v: usize, x: f64) {
        self.set(v, self.get(v) + x)
    }
    pub fn fill(&mut self, x: f64) {
        self.0.iter_mut().for_each(|c| *c.get_mut() = x.to_bits());
    }
    /// The values, in place (no second copy).
    pub fn into_vec(self) -> Vec<f64> {
        let mut v = std::mem::ManuallyDrop::new(self.0);
        // SAFETY: AtomicU64 has the size, alignment and bit validity of u64, and f64 of u64.
        unsafe { Vec::from_raw_parts(v.as_mut_ptr() as *mut f64, v.len(), v.capacity()) }
    }
}

/// Per-vertex u64 state, same rule as [`F64Cells`].
pub struct U64Cells(Vec<AtomicU64>);

impl U64Cells {
    pub fn from_fn(n: usize, f: impl Fn(usize) -> u64) -> Self {
        U64Cells((0..n).map(|v| AtomicU64::new(f(v))).collect())
    }
    #[inline]
    pub fn get(&self, v: usize) -> u64 {
        self.0[v].load(Relaxed)
    }
    #[inline]
    pub fn set(&self, v: usize, x: u64) {
        self.0[v].store(x, Relaxed)
    }
    /// The values, in place (no second copy).
    pub fn into_vec(self) -> Vec<u64> {
        let mut v = std::mem::ManuallyDrop::new(self.0);
        // SAFETY: AtomicU64 has the size, alignment and bit validity of u64.
        unsafe { Vec::from_raw_parts(v.as_mut_ptr() as *mut u64, v.len(), v.capacity()) }
    }
}

/// One flag per span (changed, active), set by the span's owner.
pub struct SpanFlags(Vec<AtomicBool>);

impl SpanFlags {
    pub fn new(spans: usize, x: bool) -> Self {
        SpanFlags((0..spans).map(|_| AtomicBool::new(x)).collect())
    }
    #[inline]
    pub fn get(&self, s: u32) -> bool {
        self.0[s as usize].load(Relaxed)
    }
    #[inline]
    pub fn set(&self, s: u32) {
        self.0[s as usize].store(true, Relaxed)
    }
    pub fn any(&self) -> bool {
        self.0.iter().any(|f| f.load(Relaxed))
    }
    pub fn clear(&mut self) {
        self.0.iter_mut().for_each(|f| *f.get_mut() = false);
    }
}

/// Per-vertex results: in memory, or (interval regime) in the engine's
/// value table, optionally multiplied by the out-degree when read.
pub enum VertexResult<T: VertexValue> {
    Memory(Vec<T>),
    Intervals {
        engine: Box<IntervalEngine<T>>,
        scale_by_degree: Option<Layout>,
    },
    /// A vertex file of the sort-reduce engine (which keeps it until dropped).
    External {
        engine: Box<SortReduce>,
        values: ValueFile<T>,
    },
}

impl VertexResult<f64> {
    /// Call `f(v, value)` for every vertex in order.
    pub fn for_each(&self, mut f: impl FnMut(u64, f64)) -> Result<(), StoreError> {
        match self {
            VertexResult::Memory(v) => v.iter().enumerate().for_each(|(k, &x)| f(k as u64, x)),
            VertexResult::Intervals { engine, scale_by_degree } => {
                let mut degrees = scale_by_degree.as_ref().map(|l| l.degrees()).transpose()?;
                let mut failure = None;
                engine.for_each_value(|v, x| {
                    let d = match degrees.as_mut().map(|d| d.next_degree()) {
                        Some(Ok(d)) => d,
                        Some(Err(e)) => {
                            failure.get_or_insert(e);
                            0
                        }
                        None => 0,
                    };
                    f(v, if d > 0 { x * d as f64 } else { x })
                })?;
                if let Some(e) = failure {
                    return Err(e);
                }
            }
            VertexResult::External { values, .. } => for_each_stored(values, f)?,
        }
        Ok(())
    }
}

/// Every value of a vertex file, in vertex order.
pub fn for_each_stored<T: outcore_engines::sortreduce::Record>(values: &ValueFile<T>, mut f: impl FnMut(u64, T)) -> Result<(), StoreError> {
    use outcore_engines::sortreduce::source::VertexSource;
    let mut source = values.source()?;
    while let Some((v, x)) = source.next()? {
        f(v, x);
    }
    Ok(())
}

impl VertexResult<u64> {
    pub fn for_each(&self, mut f: impl FnMut(u64, u64)) -> Result<(), StoreError> {
        match self {
            VertexResult::Memory(v) => v.iter().enumerate().for_each(|(k, &x)| f(k as u64, x)),
            VertexResult::Intervals { engine, .. } => engine.for_each_value(f)?,
            VertexResult::External { values, .. } => for_each_stored(values, f)?,
        }
        Ok(())
    }
}

macro_rules! to_vec {
    ($t:ty) => {
        impl VertexResult<$t> {
            /// All values in memory (tests and small graphs).
            pub fn to_vec(&self) -> Result<Vec<$t>, StoreError> {
                let mut out = Vec::new();
                self.for_each(|_, x| out.push(x))?;
                Ok(out)
            }
        }
    };
}
to_vec!(f64);
to_vec!(u64);

/// Open the stream engine for a chosen tile regime.
pub fn open_stream(
    store: &Store,
    budget: &Budget,
    engine: Engine,
    weights: bool,
    opts: &AnalyticsOptions,
) -> Result<TileStream, StoreError> {
    let mut options = opts.stream.clone();
    // the memory regime holds every tile in the pool
    options.cache |= engine == Engine::Memory;
    let s = TileStream::open(store, budget, weights, options)?;
    if engine == Engine::Memory && s.stats().pool_bytes < s.stats().layout_bytes {
        return Err(BudgetError {
            what: "every tile in the cache pool (engine memory)".into(),
            needed: s.stats().layout_bytes,
            available: s.stats().pool_bytes,
            total: budget.total(),
            suggest: budget.total() + s.stats().layout_bytes - s.stats().pool_bytes,
        }
        .into());
    }
    Ok(s)
}
