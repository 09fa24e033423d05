//! Vertex orderings applied at import (`--order`): CEESOR's DFS
//! enumeration (TR-823 section 3), descending degree (NETALX), BFS and
//! reverse Cuthill-McKee. Each computes `new_of_old`, a permutation of the
//! dense ids, over the graph seen as undirected; the store layer's
//! external relabel (`outcore_ingest::recode`) then rewrites the layouts.

pub mod bfs;
pub mod degree;
pub mod dfs;

use outcore_engines::{Traverse, TraverseOptions};
use outcore_io::{Budget, Reservation};
use outcore_store::{Store, StoreError};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    None,
    Dfs,
    Degree,
    Bfs,
    Rcm,
}

impl Order {
    pub const ALL: [Order; 5] = [Order::None, Order::Dfs, Order::Degree, Order::Bfs, Order::Rcm];
    pub fn name(self) -> &'static str {
        match self {
            Order::None => "none",
            Order::Dfs => "dfs",
            Order::Degree => "degree",
            Order::Bfs => "bfs",
            Order::Rcm => "rcm",
        }
    }
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|o| o.name() == name)
    }
    pub fn names() -> String {
        Self::ALL.map(|o| o.name()).join(", ")
    }
}

/// A graph seen as undirected, one list at a time.
pub trait Undirected {
    fn vertices(&self) -> u64;
    /// Out-degree plus in-degree (directed) or degree (undirected).
    fn degree(&self, v: u64) -> u64;
    /// Replace `out` with the neighbours of `v` in either direction.
    fn neighbours(&mut self, v: u64, out: &mut Vec<u64>) -> Result<(), StoreError>;
}

/// A store's `out` layout (plus `in` for directed stores) through the
/// traverse engine, within a budget.
pub struct StoreView {
    out: Traverse,
    inn: Option<Traverse>,
    scratch: Vec<u64>,
}

impl StoreView {
    /// `keep` bytes of the budget stay free for the ordering's own arrays.
    pub fn open(store: &Store, budget: &Budget, keep: u64) -> Result<Self, StoreError> {
        let directed = store.manifest().directed;
        if directed && !store.manifest().layouts.contains_key("in") {
            return Err(StoreError::invalid(
                store.dir(),
                "ordering a directed graph treats it as undirected and needs its in layout: outcore layout add STORE in",
            ));
        }
        let opts = TraverseOptions::default();
        // `out` leaves the least `in` opens with, and takes at most half of
        // the cache room (at least a cache's minimum)
        let in_least = if directed { Traverse::min_bytes(store, "in", opts.block_bytes)? } else { 0 };
        let share =
            (budget.available().saturating_sub(keep) / if directed { 2 } else { 1 }).max(Traverse::min_cache_bytes(opts.block_bytes));
        let out = Traverse::open(store, "out", budget, &TraverseOptions { cache_bytes: Some(share), ..opts.clone() }, keep + in_least)?;
        let inn = if directed { Some(Traverse::open(store, "in", budget, &opts, keep)?) } else { None };
        Ok(StoreView { out, inn, scratch: Vec::new() })
    }
}

impl Undirected for StoreView {
    fn vertices(&self) -> u64 {
        self.out.vertices()
    }
    fn degree(&self, v: u64) -> u64 {
        self.out.degree(v) + self.inn.as_ref().map_or(0, |g| g.degree(v))
    }
    fn neighbours(&mut self, v: u64, out: &mut Vec<u64>) -> Result<(), StoreError> {
        self.out.neighbours(v, out)?;
        if let Some(g) = &mut self.inn {
            g.neighbours(v, &mut self.scratch)?;
            let n = out.len();
            out.extend_from_slice(&self.scratch);
            merge_in_place(out, n);
        }
        Ok(())
    }
}

/// `list[..mid]` and `list[mid..]` are ascending: make the whole ascending
/// without repeats.
fn merge_in_place(list: &mut Vec<u64>, mid: usize) {
    let right = list.split_off(mid);
    let left = std::mem::take(list);
    let (mut i, mut j) = (0, 0);
    while i < left.len() || j < right.len() {
        let x = match (left.get(i), right.get(j)) {
            (Some(&a), Some(&b)) if a <= b => {
                i += 1;
                j += (a == b) as usize;
                a
            }
            (Some(&a), None) => {
                i += 1;
                a
            }
            (_, Some(&b)) => {
                j += 1;
                b
            }
            (None, None) => unreachable!(),
        };
        list.push(x);
    }
}

/// An in-memory undirected graph (tests, small stores).
pub struct ListsGraph(pub Vec<Vec<u64>>);

impl ListsGraph {
    /// From edges on `n` vertices, both directions, loops and repeats dropped.
    pub fn from_edges(n: usize, edges: &[(u64, u64)]) -> Self {
        let mut lists = vec![Vec::new(); n];
        for &(a, b) in edges {
            if a != b {
                lists[a as usize].push(b);
                lists[b as usize].push(a);
            }
        }
        for l in &mut lists {
            l.sort_unstable();
            l.dedup();
        }
        ListsGraph(lists)
    }
}

impl Undirected for ListsGraph {
    fn vertices(&self) -> u64 {
        self.0.len() as u64
    }
    fn degree(&self, v: u64) -> u64 {
        self.0[v as usize].len() as u64
    }
    fn neighbours(&mut self, v: u64, out: &mut Vec<u64>) -> Result<(), StoreError> {
        out.clear();
        out.extend_from_slice(&self.0[v as usize]);
        Ok(())
    }
}

/// Bytes per vertex the orderings keep in memory (the largest of them).
pub const STATE_BYTES_PER_VERTEX: u64 = 24;

/// Compute `order`'s `new_of_old` for `store` within `budget`.
/// The least that computing `order` on `store` takes besides the process
/// baseline: its per-vertex state and the traverse engine's minimum on the
/// layouts it reads.
pub fn minimum_bytes(store: &Store, order: Order) -> Result<u64, StoreError> {
    if order == Order::None {
        return Ok(0);
    }
    let block = TraverseOptions::default().block_bytes;
    let mut bytes = store.vertices() * STATE_BYTES_PER_VERTEX + Traverse::min_bytes(store, "out", block)?;
    if store.manifest().directed && store.has_layout("in") {
        bytes += Traverse::min_bytes(store, "in", block)?;
    }
    Ok(bytes)
}

pub fn compute(store: &Store, order: Order, budget: &Budget) -> Result<Vec<u32>, StoreError> {
    let n = store.vertices();
    if n > u32::MAX as u64 {
        return Err(StoreError::invalid(store.dir(), format!("orderings handle up to 2^32 - 1 vertices, the store has {n}")));
    }
    if order == Order::None {
        return Ok((0..n as u32).collect());
    }
    let _state: Reservation = budget.reserve(&format!("{} ordering state", order.name()), n * STATE_BYTES_PER_VERTEX)?;
    let mut g = StoreView::open(store, budget, 0)?;
    match order {
        Order::None => unreachable!(),
        Order::Dfs => dfs::ceesor_order(&mut g),
        Order::Degree => Ok(degree::descending_degree_order(&g)),
        Order::Bfs => bfs::bfs_order(&mut g, false),
        Order::Rcm => bfs::bfs_order(&mut g, true),
    }
}

/// Whether `p` is a permutation of 0..p.len().
pub fn is_permutation(p: &[u32]) -> bool {
    let mut seen = vec![false; p.len()];
    p.iter().all(|&x| (x as usize) < p.len() && !std::mem::replace(&mut seen[x as usize], true))
}

/// CEESOR's cost of an ordering: sum over edges of bits of |offset|
/// (TR-823 section 3), the quantity the DFS enumeration minimises.
pub fn offset_bits(g: &ListsGraph, new_of_old: &[u32]) -> u64 {
    let mut bits = 0;
    for (u, l) in g.0.iter().enumerate() {
        for &v in l {
            let d = (new_of_old[u] as i64 - new_of_old[v as usize] as i64).unsigned_abs();
            bits += 64 - d.leading_zeros() as u64;
        }
    }
    bits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_in_and_out_lists() {
        let mut l = vec![1, 4, 9, 2, 4, 10];
        merge_in_place(&mut l, 3);
        assert_eq!(l, vec![1, 2, 4, 9, 10]);
    }
}
