//! Triangles and LCC in memory, straight from the definitions: for every
//! vertex, every pair of its neighbours is looked up in a set of arcs.
//! O(sum of d^2): the oracle of the tests and of `--verify` on small graphs.

use crate::MemGraph;
use std::collections::{BTreeSet, HashSet};

/// The most [`count`] holds beside `g`, for a graph of `n` vertices and
/// `arcs` arcs: the neighbourhoods as B-tree sets (as k-core's
/// reference: 128 bytes a vertex, 32 a key, two keys an arc), the arcs in
/// a hash set (16-byte entries and a control byte, at most 8/7 x 2
/// buckets an entry, and the old table beside the new while it grows:
/// 60 bytes an arc), the two results and one neighbourhood as a vector.
pub fn bytes(n: u64, arcs: u64) -> u64 {
    n * (128 + 3 * 8) + arcs * (2 * 32 + 60)
}

/// Per vertex: the triangles it belongs to, and its local clustering
/// coefficient (Graphalytics LCC).
pub fn count(g: &MemGraph) -> (Vec<u64>, Vec<f64>) {
    let n = g.vertices();
    let mut arcs = HashSet::new();
    let mut neighbourhood = vec![BTreeSet::new(); n as usize];
    for u in 0..n {
        for &w in g.neighbours(u) {
            if u != w {
                arcs.insert((u, w));
                neighbourhood[u as usize].insert(w);
                neighbourhood[w as usize].insert(u);
            }
        }
    }
    let mut triangles = vec![0u64; n as usize];
    let mut lcc = vec![0f64; n as usize];
    for v in 0..n as usize {
        let around: Vec<u64> = neighbourhood[v].iter().copied().collect();
        let (mut pairs, mut linked) = (0u64, 0u64);
        for (i, &a) in around.iter().enumerate() {
            for &b in &around[i + 1..] {
                let (ab, ba) = (arcs.contains(&(a, b)), arcs.contains(&(b, a)));
                pairs += (ab || ba) as u64;
                linked += ab as u64 + ba as u64;
            }
        }
        triangles[v] = pairs;
        let d = around.len() as f64;
        lcc[v] = if around.len() <= 1 { 0.0 } else { linked as f64 / (d * (d - 1.0)) };
    }
    (triangles, lcc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directed_triangle_with_one_two_way_edge() {
        // 0 -> 1, 1 -> 2, 2 -> 0, 2 -> 1, and 3 hanging off 0
        let g = MemGraph::from_edges(4, &[(0, 1, 1.0), (1, 2, 1.0), (2, 0, 1.0), (2, 1, 1.0), (3, 0, 1.0)], true, false);
        let (t, lcc) = count(&g);
        assert_eq!(t, vec![1, 1, 1, 0]);
        // 0: N = {1, 2, 3}; arcs among them 1->2, 2->1: 2 / 6
        assert!((lcc[0] - 2.0 / 6.0).abs() < 1e-15);
        // 1: N = {0, 2}; arcs 2->0: 1 / 2
        assert!((lcc[1] - 0.5).abs() < 1e-15);
        assert_eq!(lcc[3], 0.0);
    }
}
