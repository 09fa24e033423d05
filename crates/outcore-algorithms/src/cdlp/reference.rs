//! CDLP as Graphalytics defines it, in memory: synchronous iterations, each
//! vertex takes the most frequent label among its neighbours (in- and
//! out-neighbours of a directed graph, each occurrence counted), the
//! smallest on ties, its own when it has none.

use crate::MemGraph;
use outcore_store::{Store, StoreError};
use std::collections::BTreeMap;

pub fn cdlp(g: &MemGraph, iterations: u32) -> Vec<u64> {
    let n = g.vertices();
    let reverse = g.directed.then(|| g.transpose());
    let mut labels: Vec<u64> = (0..n).collect();
    for _ in 0..iterations {
        let next = (0..n)
            .map(|v| {
                let mut counts: BTreeMap<u64, usize> = BTreeMap::new();
                let ins = reverse.as_ref().map_or(&[][..], |r| r.neighbours(v));
                for &u in g.neighbours(v).iter().chain(ins) {
                    *counts.entry(labels[u as usize]).or_default() += 1;
                }
                // BTreeMap iterates labels in ascending order: the first maximum is the smallest label
                let mut best = (labels[v as usize], 0);
                for (&l, &c) in &counts {
                    if c > best.1 {
                        best = (l, c);
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
/// store, the labels of two iterations, and one vertex's label counts (a
/// B-tree map of 16-byte entries in 192-byte leaves at least five full, a
/// 288-byte inner node above six: at most 48 bytes a label) for its out-
/// and in-list at most (the longest `in` list, or every vertex when the
/// store has no `in` layout).
pub fn bytes(store: &Store) -> Result<u64, StoreError> {
    let m = store.manifest();
    let longest_out = store.layout("out")?.longest_list()?;
    let longest_in = match (m.directed, store.has_layout("in")) {
        (false, _) => 0,
        (true, true) => store.layout("in")?.longest_list()?,
        (true, false) => m.vertices,
    };
    let reverse = if m.directed { MemGraph::transpose_bytes(m.vertices, m.arcs) } else { 0 };
    // a map holds one leaf however few its labels
    Ok(reverse + m.vertices * 16 + (longest_out + longest_in).max(4) * 48)
}
