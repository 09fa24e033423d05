//! Single-source shortest paths by Dijkstra with a binary heap; weights
//! must be non-negative. Unreachable vertices get `f64::INFINITY`.

use crate::MemGraph;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

#[derive(PartialEq)]
struct Item(f64, u64);
impl Eq for Item {}
impl PartialOrd for Item {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Item {
    fn cmp(&self, o: &Self) -> Ordering {
        o.0.total_cmp(&self.0).then(o.1.cmp(&self.1))
    }
}

pub fn sssp(g: &MemGraph, source: u64) -> Vec<f64> {
    sssp_tree(g, source).0
}

/// Distances and parents: vertices are settled in (distance, id) order,
/// a list's arcs relaxed in its order, and a vertex's parent is the first
/// settled vertex that gave it its distance (a later equal offer does not
/// replace it). The source is its own parent; an unreachable vertex has
/// `u64::MAX`.
pub fn sssp_tree(g: &MemGraph, source: u64) -> (Vec<f64>, Vec<u64>) {
    let weights = g.weights.as_ref().expect("sssp needs a weighted graph");
    let mut dist = vec![f64::INFINITY; g.vertices() as usize];
    let mut parent = vec![u64::MAX; g.vertices() as usize];
    let mut heap = BinaryHeap::new();
    dist[source as usize] = 0.0;
    parent[source as usize] = source;
    heap.push(Item(0.0, source));
    while let Some(Item(d, u)) = heap.pop() {
        if d > dist[u as usize] {
            continue;
        }
        let start = g.offsets[u as usize] as usize;
        for (i, &v) in g.neighbours(u).iter().enumerate() {
            let nd = d + weights[start + i] as f64;
            if nd < dist[v as usize] {
                dist[v as usize] = nd;
                parent[v as usize] = u;
                heap.push(Item(nd, v));
            }
        }
    }
    (dist, parent)
}
