//! CDLP as Graphalytics defines it, in memory: synchronous iterations, each
//! vertex takes the most frequent label among its neighbours (in- and
//! out-neighbours of a directed graph, each occurrence counted), the
//! smallest on ties, its own when it has none.

use crate::MemGraph;
use outcore_store::{Store, StoreError};

pub fn cdlp(g: &MemGraph, iterations: u32) -> Vec<u64> {
    let n = g.vertices();
    let reverse = g.directed.then(|| g.transpose());
    // one vertex's neighbour labels, sorted: room for the most neighbours any has
    let most = (0..n).map(|v| g.degree(v) + reverse.as_ref().map_or(0, |r| r.degree(v))).max().unwrap_or(0);
    let mut around: Vec<u64> = Vec::with_capacity(most as usize);
    let mut labels: Vec<u64> = (0..n).collect();
    for _ in 0..iterations {
        let next = (0..n)
            .map(|v| {
                let ins = reverse.as_ref().map_or(&[][..], |r| r.neighbours(v));
                around.clear();
                around.extend(g.neighbours(v).iter().chain(ins).map(|&u| labels[u as usize]));
                around.sort_unstable();
                // runs of equal labels in ascending order: the first longest is the smallest label
                let mut best = (labels[v as usize], 0);
                for run in around.chunk_by(|a, b| a == b) {
                    if run.len() > best.1 {
                        best = (run[0], run.len());
                    }
                }
                best.0
            })
            .collect();
        labels = next;
    }
    labels
}

/// The most [`cdlp`] holds beside `g`: the reverse graph of a directed
/// store, the labels of two iterations, and the neighbour labels of one
/// vertex (its out- and in-list at most: the longest `in` list, or every
/// vertex when the store has no `in` layout).
pub fn bytes(store: &Store) -> Result<u64, StoreError> {
    let m = store.manifest();
    let longest_out = store.layout("out")?.longest_list()?;
    let longest_in = match (m.directed, store.has_layout("in")) {
        (false, _) => 0,
        (true, true) => store.layout("in")?.longest_list()?,
        (true, false) => m.vertices,
    };
    let reverse = if m.directed { MemGraph::transpose_bytes(m.vertices, m.arcs) } else { 0 };
    Ok(reverse + m.vertices * 16 + (longest_out + longest_in) * 8)
}
