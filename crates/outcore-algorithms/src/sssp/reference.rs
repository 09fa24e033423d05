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

/// What [`sssp_rounds`] finds, with the counts of its rounds.
pub struct Rounds {
    pub dist: Vec<f64>,
    /// The source is its own parent; an unreachable vertex has `u64::MAX`.
    pub parent: Vec<u64>,
    pub reached: u64,
    /// Arcs relaxed: every arc of every vertex whose distance fell.
    pub arcs_relaxed: u64,
    /// Rounds, the one that relaxed nothing included.
    pub rounds: u32,
}

/// Shortest paths by synchronous rounds of relaxation (Bellman-Ford with a
/// frontier), as the sort-reduce engine runs them (BigSparse section 3):
/// the first round offers the source distance 0; in each round every
/// vertex takes the best offer made to it in the round before if its
/// distance falls (best: the smaller distance, then the smaller offering
/// vertex; an equal distance later never replaces it), and every vertex
/// whose distance fell offers its distance plus the weight along each of
/// its arcs. The rounds end when one makes no offer.
pub fn sssp_rounds(g: &MemGraph, source: u64) -> Rounds {
    let weights = g.weights.as_ref().expect("sssp needs a weighted graph");
    let n = g.vertices() as usize;
    let mut dist = vec![f64::INFINITY; n];
    let mut parent = vec![u64::MAX; n];
    let mut offers = std::collections::BTreeMap::from([(source, (0.0f64, source))]);
    let (mut arcs_relaxed, mut rounds) = (0u64, 0u32);
    loop {
        rounds += 1;
        let mut fell = Vec::new();
        for (&v, &(d, by)) in &offers {
            if d < dist[v as usize] {
                dist[v as usize] = d;
                parent[v as usize] = by;
                fell.push(v);
            }
        }
        let mut next = std::collections::BTreeMap::<u64, (f64, u64)>::new();
        for &u in &fell {
            let start = g.offsets[u as usize] as usize;
            for (i, &v) in g.neighbours(u).iter().enumerate() {
                arcs_relaxed += 1;
                let offer = (dist[u as usize] + weights[start + i] as f64, u);
                let best = next.entry(v).or_insert(offer);
                if offer < *best {
                    *best = offer;
                }
            }
        }
        if next.is_empty() {
            break;
        }
        offers = next;
    }
    let reached = dist.iter().filter(|d| d.is_finite()).count() as u64;
    Rounds { dist, parent, reached, arcs_relaxed, rounds }
}
