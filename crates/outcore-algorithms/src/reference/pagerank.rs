//! PageRank as Graphalytics defines it: `iterations` synchronous steps
//! from 1/|V|, damping `d`, and the rank of sinks (no out-edges) spread
//! evenly over all vertices:
//!   PR(v) = (1-d)/|V| + d * sum_{u->v} PR(u)/outdeg(u) + d/|V| * sum_{sinks w} PR(w)

use crate::MemGraph;

pub fn pagerank(g: &MemGraph, damping: f64, iterations: u32) -> Vec<f64> {
    let n = g.vertices() as usize;
    if n == 0 {
        return Vec::new();
    }
    let nf = n as f64;
    let mut rank = vec![1.0 / nf; n];
    let mut next = vec![0.0; n];
    for _ in 0..iterations {
        let sink_mass: f64 = (0..n).filter(|&u| g.degree(u as u64) == 0).map(|u| rank[u]).sum();
        let base = (1.0 - damping) / nf + damping * sink_mass / nf;
        next.iter_mut().for_each(|x| *x = base);
        for u in 0..n {
            let d = g.degree(u as u64);
            if d > 0 {
                let share = damping * rank[u] / d as f64;
                for &v in g.neighbours(u as u64) {
                    next[v as usize] += share;
                }
            }
        }
        std::mem::swap(&mut rank, &mut next);
    }
    rank
}
