//! PageRank as Graphalytics defines it, in memory: synchronous steps from
//! 1/|V|, damping `d`, and the rank of sinks (no out-edges) spread evenly
//! over all vertices:
//!   PR(v) = (1-d)/|V| + d * sum_{u->v} PR(u)/outdeg(u) + d/|V| * sum_{sinks w} PR(w)

use crate::MemGraph;

/// One step of the iteration from `rank`.
pub fn step(g: &MemGraph, damping: f64, rank: &[f64]) -> Vec<f64> {
    let n = rank.len();
    let nf = n as f64;
    let sink_mass: f64 = (0..n).filter(|&u| g.degree(u as u64) == 0).map(|u| rank[u]).sum();
    let base = (1.0 - damping) / nf + damping * sink_mass / nf;
    let mut next = vec![base; n];
    for (u, &r) in rank.iter().enumerate() {
        let d = g.degree(u as u64);
        if d > 0 {
            let share = damping * r / d as f64;
            for &v in g.neighbours(u as u64) {
                next[v as usize] += share;
            }
        }
    }
    next
}

/// `iterations` steps from 1/|V|.
pub fn pagerank(g: &MemGraph, damping: f64, iterations: u32) -> Vec<f64> {
    pagerank_until(g, damping, iterations, None).0
}

/// At most `iterations` steps, stopping after the first whose L1 change
/// is below `tolerance`; also returns the steps taken and the last change.
pub fn pagerank_until(g: &MemGraph, damping: f64, iterations: u32, tolerance: Option<f64>) -> (Vec<f64>, u32, f64) {
    let n = g.vertices() as usize;
    if n == 0 {
        return (Vec::new(), 0, 0.0);
    }
    let mut rank = vec![1.0 / n as f64; n];
    let (mut done, mut delta) = (0, f64::INFINITY);
    while done < iterations {
        let next = step(g, damping, &rank);
        delta = next.iter().zip(&rank).map(|(a, b)| (a - b).abs()).sum();
        rank = next;
        done += 1;
        if tolerance.is_some_and(|t| delta < t) {
            break;
        }
    }
    (rank, done, delta)
}
