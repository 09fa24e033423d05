//! Betweenness centrality by Brandes' algorithm (2001) from the given
//! sources, unweighted: a BFS counting shortest paths (sigma), then
//! dependencies accumulated in reverse BFS order,
//!   delta(v) = sum over successors w of sigma(v)/sigma(w) * (1 + delta(w)).
//! Returns sum over sources s of delta_s(v) (v != s), unscaled.

use crate::MemGraph;
use std::collections::VecDeque;

pub fn bc(g: &MemGraph, sources: &[u64]) -> Vec<f64> {
    let n = g.vertices() as usize;
    let mut bc = vec![0.0; n];
    for &s in sources {
        let mut dist = vec![u64::MAX; n];
        let mut sigma = vec![0.0; n];
        let mut delta = vec![0.0; n];
        let mut order = Vec::new();
        let mut queue = VecDeque::from([s]);
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
                    delta[v as usize] += sigma[v as usize] / sigma[w as usize] * (1.0 + delta[w as usize]);
                }
            }
            if v != s {
                bc[v as usize] += delta[v as usize];
            }
        }
    }
    bc
}
