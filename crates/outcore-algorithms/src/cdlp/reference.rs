//! CDLP as Graphalytics defines it, in memory: synchronous iterations, each
//! vertex takes the most frequent label among its neighbours (in- and
//! out-neighbours of a directed graph, each occurrence counted), the
//! smallest on ties, its own when it has none.

use crate::MemGraph;
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
