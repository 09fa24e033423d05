//! SSSP on the traverse engine: Dijkstra with an indexed binary heap (one
//! entry per vertex, so memory is O(V)) and RASP run-ahead over the top of
//! the heap, the vertices settled next (TR-823 section 6: "the top of the
//! SSSP heap").

use crate::bfs::{check_ids, NONE};
use outcore_engines::Traverse;
use outcore_io::{Budget, Reservation};
use outcore_store::StoreError;

pub struct ShortestPaths {
    pub root: u64,
    /// Distance from the root; infinity if unreachable.
    pub dist: Vec<f64>,
    /// Predecessor on a shortest path; the root is its own; NONE if unreachable.
    pub parent: Vec<u32>,
    pub reached: u64,
    pub arcs_scanned: u64,
    /// Buckets settled (delta-stepping; 0 for Dijkstra).
    pub buckets: u64,
    _charge: Reservation,
}

impl ShortestPaths {
    pub(crate) fn from_parts(root: u64, dist: Vec<f64>, parent: Vec<u32>, reached: u64, arcs: u64, charge: Reservation) -> Self {
        ShortestPaths { root, dist, parent, reached, arcs_scanned: arcs, buckets: 0, _charge: charge }
    }

    pub(crate) fn with_buckets(self, buckets: u64) -> Self {
        ShortestPaths { buckets, ..self }
    }

    /// Distances, parents, and the charge that holds them.
    pub fn into_parts(self) -> (Vec<f64>, Vec<u32>, Reservation) {
        (self.dist, self.parent, self._charge)
    }

    /// dist (8), parent (4), heap slot (4) and heap position (4) per vertex.
    pub fn state_bytes(vertices: u64) -> u64 {
        vertices * 20
    }
}

/// Min-heap of vertices keyed by `dist`, with positions for decrease-key.
struct IndexedHeap {
    heap: Vec<u32>,
    pos: Vec<u32>,
}

impl IndexedHeap {
    fn less(dist: &[f64], a: u32, b: u32) -> bool {
        dist[a as usize] < dist[b as usize] || (dist[a as usize] == dist[b as usize] && a < b)
    }
    fn up(&mut self, dist: &[f64], mut i: usize) {
        while i > 0 {
            let p = (i - 1) / 2;
            if !Self::less(dist, self.heap[i], self.heap[p]) {
                break;
            }
            self.heap.swap(i, p);
            self.pos[self.heap[i] as usize] = i as u32;
            self.pos[self.heap[p] as usize] = p as u32;
            i = p;
        }
    }
    fn down(&mut self, dist: &[f64], mut i: usize) {
        loop {
            let (l, r) = (2 * i + 1, 2 * i + 2);
            let mut m = i;
            if l < self.heap.len() && Self::less(dist, self.heap[l], self.heap[m]) {
                m = l;
            }
            if r < self.heap.len() && Self::less(dist, self.heap[r], self.heap[m]) {
                m = r;
            }
            if m == i {
                return;
            }
            self.heap.swap(i, m);
            self.pos[self.heap[i] as usize] = i as u32;
            self.pos[self.heap[m] as usize] = m as u32;
            i = m;
        }
    }
    fn push_or_decrease(&mut self, dist: &[f64], v: u32) {
        let p = self.pos[v as usize];
        if p == NONE {
            self.heap.push(v);
            self.pos[v as usize] = (self.heap.len() - 1) as u32;
            self.up(dist, self.heap.len() - 1);
        } else {
            self.up(dist, p as usize);
        }
    }
    fn pop(&mut self, dist: &[f64]) -> Option<u32> {
        let top = *self.heap.first()?;
        let last = self.heap.pop().unwrap();
        self.pos[top as usize] = NONE;
        if !self.heap.is_empty() {
            self.heap[0] = last;
            self.pos[last as usize] = 0;
            self.down(dist, 0);
        }
        Some(top)
    }
}

/// Dijkstra from `root` over the engine's weighted out-edges. A negative
/// weight met on the way is an error naming the edge.
pub fn sssp(g: &mut Traverse, root: u64, budget: &Budget) -> Result<ShortestPaths, StoreError> {
    let n = g.vertices();
    check_ids(n, root)?;
    if !g.weighted() {
        return Err(StoreError::NoWeights { store: "the store".into(), reader: "SSSP".into() });
    }
    let charge = budget.reserve("SSSP distance, parent and heap arrays", ShortestPaths::state_bytes(n))?;
    let mut dist = vec![f64::INFINITY; n as usize];
    let mut parent = vec![NONE; n as usize];
    let mut heap = IndexedHeap { heap: Vec::with_capacity(n as usize), pos: vec![NONE; n as usize] };
    dist[root as usize] = 0.0;
    parent[root as usize] = root as u32;
    heap.push_or_decrease(&dist, root as u32);
    let (mut nbrs, mut ws) = (Vec::new(), Vec::new());
    let (mut reached, mut arcs) = (0u64, 0u64);
    while let Some(u) = heap.pop(&dist) {
        if g.prefetching() {
            // the top levels of the heap hold the vertices settled soon
            let ahead = heap.heap.len().min(g.max_ahead()).min(63);
            g.run_ahead(heap.heap[..ahead].iter().map(|&v| v as u64))?;
        }
        reached += 1;
        g.neighbours(u as u64, &mut nbrs)?;
        g.weights(u as u64, &mut ws)?;
        arcs += nbrs.len() as u64;
        let du = dist[u as usize];
        for (&v, &w) in nbrs.iter().zip(&ws) {
            if w < 0.0 || w.is_nan() {
                return Err(StoreError::parameter(
                    "weights",
                    format!("must be non-negative for SSSP, and edge {u} -> {v} (dense ids) has weight {w}"),
                ));
            }
            let nd = du + w as f64;
            if nd < dist[v as usize] {
                dist[v as usize] = nd;
                parent[v as usize] = u;
                heap.push_or_decrease(&dist, v as u32);
            }
        }
    }
    Ok(ShortestPaths { root, dist, parent, reached, arcs_scanned: arcs, buckets: 0, _charge: charge })
}
