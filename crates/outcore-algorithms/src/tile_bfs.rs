//! Level-synchronous BFS on tiles (G-Store section II-B): the frontier is
//! a bitmap, and an iteration reads only the tiles whose source span (or,
//! on an undirected store's upper triangle, either span) holds frontier
//! vertices; each tuple from a frontier vertex to an unvisited one sets the
//! next level. The cache keeps the tiles of spans the next frontier has
//! reached so far.

use crate::analytics::{choose, open_stream, AnalyticsOptions, Engine, EngineReport, SpanFlags, U64Cells};
use outcore_engines::{TileEdges, TileProgram};
use outcore_io::Budget;
use outcore_store::{Store, StoreError};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Level of vertices the search does not reach.
pub const UNREACHED: u64 = u64::MAX;

pub struct TileBfsResult {
    pub level: Vec<u64>,
    pub reached: u64,
    /// Levels explored (iterations of the engine).
    pub depth: u32,
    pub report: EngineReport,
}

/// Memory: levels and two frontier bitmaps.
pub fn state_bytes(n: u64) -> u64 {
    n * 8 + n.div_ceil(64) * 16
}

struct Expand<'a> {
    level: &'a U64Cells,
    depth: u64,
    frontier: &'a [u64],
    next: &'a [AtomicU64],
    active: &'a SpanFlags,
    reached: &'a SpanFlags,
    undirected: bool,
}

impl Expand<'_> {
    #[inline]
    fn in_frontier(&self, v: usize) -> bool {
        self.frontier[v >> 6] >> (v & 63) & 1 == 1
    }
    #[inline]
    fn visit(&self, v: usize) -> bool {
        if self.level.get(v) != UNREACHED {
            return false;
        }
        self.level.set(v, self.depth + 1);
        let w = &self.next[v >> 6];
        w.store(w.load(Relaxed) | 1 << (v & 63), Relaxed);
        true
    }
}

impl TileProgram for Expand<'_> {
    fn reverse(&self) -> bool {
        self.undirected
    }
    fn needed(&self, i: u32, j: u32) -> bool {
        self.active.get(i) || (self.undirected && self.active.get(j))
    }
    fn keep(&self, i: u32, j: u32) -> bool {
        self.reached.get(i) || (self.undirected && self.reached.get(j))
    }
    fn forward(&self, t: &TileEdges) {
        let (s0, t0) = (t.source_base as usize, t.target_base as usize);
        let mut any = false;
        for &[ls, lt] in t.edges {
            if self.in_frontier(s0 + ls as usize) {
                any |= self.visit(t0 + lt as usize);
            }
        }
        if any {
            self.reached.set(t.j);
        }
    }
    fn backward(&self, t: &TileEdges) {
        let (s0, t0) = (t.source_base as usize, t.target_base as usize);
        let mut any = false;
        for &[ls, lt] in t.edges {
            if self.in_frontier(t0 + lt as usize) {
                any |= self.visit(s0 + ls as usize);
            }
        }
        if any {
            self.reached.set(t.i);
        }
    }
}

/// BFS from `root` (dense id) over the tile layout.
pub fn bfs_tiles(store: &Store, root: u64, budget: &Budget, opts: &AnalyticsOptions) -> Result<TileBfsResult, StoreError> {
    let n = store.vertices();
    if root >= n {
        return Err(StoreError::invalid(store.dir(), format!("root {root} is not a vertex (the store has {n})")));
    }
    let mut opts = opts.clone();
    if opts.engine == Engine::Interval || opts.engine == Engine::Auto {
        opts.engine = Engine::Auto;
    }
    let (engine, reason) = choose(store, budget, &opts, state_bytes(n), false, &[])?;
    if matches!(engine, Engine::Interval | Engine::SortReduce) {
        return Err(StoreError::invalid(store.dir(), format!("BFS on tiles needs its levels in memory: {reason}")));
    }
    let _charge = budget.reserve("BFS levels and frontier bitmaps", state_bytes(n))?;
    let mut stream = open_stream(store, budget, engine, false, &opts)?;
    let rec = stream.record_ref().clone();
    let words = n.div_ceil(64) as usize;
    let level = U64Cells::from_fn(n as usize, |v| if v as u64 == root { 0 } else { UNREACHED });
    let mut frontier = vec![0u64; words];
    frontier[(root >> 6) as usize] |= 1 << (root & 63);
    let next: Vec<AtomicU64> = (0..words).map(|_| AtomicU64::new(0)).collect();
    let mut active = SpanFlags::new(rec.spans as usize, false);
    active.set((root >> rec.span_bits) as u32);
    let mut reached = SpanFlags::new(rec.spans as usize, false);
    let (mut depth, mut count) = (0u64, 1u64);
    loop {
        stream.iterate(&Expand {
            level: &level,
            depth,
            frontier: &frontier,
            next: &next,
            active: &active,
            reached: &reached,
            undirected: rec.upper_triangle,
        })?;
        depth += 1;
        let mut found = 0u64;
        for (f, w) in frontier.iter_mut().zip(&next) {
            *f = w.swap(0, Relaxed);
            found += f.count_ones() as u64;
        }
        if found == 0 {
            break;
        }
        count += found;
        std::mem::swap(&mut active, &mut reached);
        reached.clear();
    }
    let report = EngineReport { engine, reason, stream: Some(stream.stats().clone()), interval: None, sortreduce: None };
    Ok(TileBfsResult { level: level.into_vec(), reached: count, depth: depth as u32, report })
}
