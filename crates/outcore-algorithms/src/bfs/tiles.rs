//! Level-synchronous BFS on tiles (G-Store section II-B): the frontier is
//! a bitmap, and an iteration reads only the tiles whose source span (or,
//! on an undirected store's upper triangle, either span) holds frontier
//! vertices; each tuple from a frontier vertex to an unvisited one sets the
//! next level. The cache keeps the tiles of spans the next frontier has
//! reached so far.

use crate::cells::{SpanFlags, U64Cells};
use crate::needs::{open_stream, EngineStats};
use crate::run::Context;
use crate::values::UNREACHED_U64 as UNREACHED;
use outcore_engines::{TileEdges, TileProgram};
use outcore_io::{bitmap_bytes, AtomicBitmap, Bitmap};
use outcore_store::StoreError;

pub struct TileBfsResult {
    pub level: Vec<u64>,
    /// The vertex each was reached from (the root its own); unreached: `u64::MAX`.
    pub parent: Vec<u64>,
    pub reached: u64,
    /// Levels explored (iterations of the engine).
    pub depth: u32,
    pub stats: EngineStats,
    pub charge: outcore_io::Reservation,
}

/// Memory: levels, parents and two frontier bitmaps.
pub fn state_bytes(n: u64) -> u64 {
    n * 16 + 2 * bitmap_bytes(n)
}

struct Expand<'a> {
    level: &'a U64Cells,
    parent: &'a U64Cells,
    depth: u64,
    frontier: &'a Bitmap,
    next: &'a AtomicBitmap,
    active: &'a SpanFlags,
    reached: &'a SpanFlags,
    undirected: bool,
}

impl Expand<'_> {
    #[inline]
    fn in_frontier(&self, v: usize) -> bool {
        self.frontier.get(v as u64)
    }
    /// Reach `v` from `u` (the engine lets one thread at a time write `v`'s span).
    #[inline]
    fn visit(&self, v: usize, u: usize) -> bool {
        if self.level.get(v) != UNREACHED {
            return false;
        }
        self.level.set(v, self.depth + 1);
        self.parent.set(v, u as u64);
        self.next.set(v as u64);
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
                any |= self.visit(t0 + lt as usize, s0 + ls as usize);
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
                any |= self.visit(s0 + ls as usize, t0 + lt as usize);
            }
        }
        if any {
            self.reached.set(t.i);
        }
    }
}

/// BFS from `root` (dense id) over the tile layout.
pub fn bfs_tiles(cx: &Context, root: u64) -> Result<TileBfsResult, StoreError> {
    let store = cx.store;
    let n = store.vertices();
    super::check_ids(n, root)?;
    let charge = cx.budget.reserve("BFS levels, parents and frontier bitmaps", state_bytes(n))?;
    let mut stream = open_stream(cx, false)?;
    let rec = stream.record_ref().clone();
    let level = U64Cells::from_fn(n as usize, |v| if v as u64 == root { 0 } else { UNREACHED });
    let parent = U64Cells::from_fn(n as usize, |v| if v as u64 == root { root } else { UNREACHED });
    let mut frontier = Bitmap::new(n);
    frontier.set(root);
    let next = AtomicBitmap::new(n);
    let mut active = SpanFlags::new(rec.spans as usize, false);
    active.set((root >> rec.span_bits) as u32);
    let mut reached = SpanFlags::new(rec.spans as usize, false);
    let (mut depth, mut count) = (0u64, 1u64);
    loop {
        stream.iterate(&Expand {
            level: &level,
            parent: &parent,
            depth,
            frontier: &frontier,
            next: &next,
            active: &active,
            reached: &reached,
            undirected: rec.upper_triangle,
        })?;
        depth += 1;
        let found = next.drain_into(&mut frontier);
        if found == 0 {
            break;
        }
        count += found;
        std::mem::swap(&mut active, &mut reached);
        reached.clear();
    }
    Ok(TileBfsResult {
        level: level.into_vec(),
        parent: parent.into_vec(),
        reached: count,
        depth: depth as u32,
        stats: EngineStats::Stream(stream.stats().clone()),
        charge,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tiles BFS is charged its levels and parents (8 bytes each a
    /// vertex: `U64Cells`) and its two frontier bitmaps.
    #[test]
    fn the_state_counts_levels_parents_and_two_bitmaps() {
        for n in [0u64, 1, 1000, 3 << 30] {
            assert_eq!(state_bytes(n), 16 * n + 2 * bitmap_bytes(n), "{n} vertices");
        }
    }
}
