//! Betweenness centrality by Brandes' algorithm (2001) from the given
//! sources, unweighted: a BFS counting shortest paths (sigma), then
//! dependencies accumulated in reverse BFS order,
//!   delta(v) = sum over successors w of sigma(v)/sigma(w) * (1 + delta(w)).
//! Returns sum over sources s of delta_s(v) (v != s), unscaled. With
//! targets, only shortest paths that end at a target other than s count
//! (networkx's betweenness_centrality_subset): the 1 becomes 1 when w is
//! such a target and 0 otherwise.

use crate::MemGraph;
use std::collections::VecDeque;

/// What [`bc_subset`] holds beside `g` for `n` vertices, `sources`
/// sources and `targets` targets: the sums, and one source's distances,
/// path counts and dependencies, its order and queue (8 bytes a vertex
/// each, allocated once and reused from source to source), and the
/// sources and targets picked (8 bytes each).
pub fn bytes(n: u64, sources: u64, targets: u64) -> u64 {
    n * (8 + 3 * 8 + 2 * 8) + 8 * (sources + targets)
}

pub fn bc(g: &MemGraph, sources: &[u64]) -> Vec<f64> {
    bc_subset(g, sources, None)
}

/// As [`bc`], counting only paths to `targets` (dense ids, sorted) when given.
pub fn bc_subset(g: &MemGraph, sources: &[u64], targets: Option<&[u64]>) -> Vec<f64> {
    let n = g.vertices() as usize;
    let mut bc = vec![0.0; n];
    let (mut dist, mut sigma, mut delta) = (vec![u64::MAX; n], vec![0.0; n], vec![0.0; n]);
    let (mut order, mut queue) = (Vec::with_capacity(n), VecDeque::with_capacity(n));
    for &s in sources {
        for &v in &order {
            let v = v as usize;
            (dist[v], sigma[v], delta[v]) = (u64::MAX, 0.0, 0.0);
        }
        order.clear();
        queue.push_back(s);
        dist[s as usize] = 0;
        sigma[s as usize] = 1.0;
        while let Some(v) = queue.pop_front() {
            order.push(v);
            for &w in g.neighbours(v) {
                if dist[w as usize] == u64::MAX {
                    dist[w as usize] = dist[v as usize] + 1;
                    queue.push_back(w);
                }
                if dist[w as usize] == dist[v as usize] + 1 {
                    sigma[w as usize] += sigma[v as usize];
                }
            }
        }
        for &v in order.iter().rev() {
            for &w in g.neighbours(v) {
                if dist[w as usize] == dist[v as usize] + 1 {
                    let ends = match targets {
                        None => 1.0,
                        Some(t) if w != s && t.binary_search(&w).is_ok() => 1.0,
                        Some(_) => 0.0,
                    };
                    delta[v as usize] += sigma[v as usize] / sigma[w as usize] * (ends + delta[w as usize]);
                }
            }
            if v != s {
                bc[v as usize] += delta[v as usize];
            }
        }
    }
    bc
}
