//! y = A^T x in memory: y(v) = sum over arcs u -> v of weight(u, v) x(u)
//! (weight 1 when unweighted). An undirected graph holds both arcs.

use crate::MemGraph;

pub fn spmv(g: &MemGraph, x: &[f64]) -> Vec<f64> {
    let mut y = vec![0.0; g.vertices() as usize];
    for u in 0..g.vertices() {
        let ws = g.edge_weights(u);
        for (k, &v) in g.neighbours(u).iter().enumerate() {
            y[v as usize] += ws.map_or(1.0, |w| w[k] as f64) * x[u as usize];
        }
    }
    y
}
