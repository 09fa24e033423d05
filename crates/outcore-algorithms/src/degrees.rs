//! Degree counting, the first out-of-core algorithm: out-degrees come from
//! the vertex index alone (read sequentially), in-degrees from one
//! sequential scan of the adjacency with a counter per vertex. Memory: the
//! in-degree counters (4 bytes per vertex) and a few I/O chunks.

use outcore_io::Budget;
use outcore_store::{Store, StoreError};
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct DegreeStats {
    pub min: u64,
    pub max: u64,
    pub mean: f64,
    /// Vertices with degree 0.
    pub zero: u64,
    /// `histogram[k]` counts vertices with degree in [2^k, 2^(k+1)) (k=0: degree 1).
    pub histogram: Vec<u64>,
    /// The highest-degree vertices, as (dense id, degree), highest first.
    pub top: Vec<(u64, u64)>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct DegreeSummary {
    pub out: DegreeStats,
    /// In-degrees (equal to `out` for undirected graphs).
    pub r#in: Option<DegreeStats>,
}

struct Acc {
    min: u64,
    max: u64,
    sum: u128,
    n: u64,
    zero: u64,
    histogram: Vec<u64>,
    top: BinaryHeap<Reverse<(u64, Reverse<u64>)>>,
    k: usize,
}

impl Acc {
    fn new(k: usize) -> Self {
        Acc { min: u64::MAX, max: 0, sum: 0, n: 0, zero: 0, histogram: Vec::new(), top: BinaryHeap::new(), k }
    }
    fn add(&mut self, v: u64, d: u64) {
        self.min = self.min.min(d);
        self.max = self.max.max(d);
        self.sum += d as u128;
        self.n += 1;
        if d == 0 {
            self.zero += 1;
        } else {
            let b = 63 - d.leading_zeros() as usize;
            if self.histogram.len() <= b {
                self.histogram.resize(b + 1, 0);
            }
            self.histogram[b] += 1;
        }
        if self.k > 0 {
            // ties: the smaller vertex id ranks higher
            let item = Reverse((d, Reverse(v)));
            if self.top.len() < self.k {
                self.top.push(item);
            } else if item < *self.top.peek().unwrap() {
                self.top.pop();
                self.top.push(item);
            }
        }
    }
    fn finish(self) -> DegreeStats {
        let mut top: Vec<(u64, u64)> = self.top.into_iter().map(|Reverse((d, Reverse(v)))| (v, d)).collect();
        top.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        DegreeStats {
            min: if self.n == 0 { 0 } else { self.min },
            max: self.max,
            mean: if self.n == 0 { 0.0 } else { self.sum as f64 / self.n as f64 },
            zero: self.zero,
            histogram: self.histogram,
            top,
        }
    }
}

/// Degree statistics of a store with the `top_k` highest-degree vertices.
/// In-degrees are computed for directed graphs when `with_in` is set.
pub fn degree_summary(store: &Store, top_k: usize, with_in: bool, budget: &Budget) -> Result<DegreeSummary, StoreError> {
    let out_layout = store.layout("out")?;
    let mut acc = Acc::new(top_k);
    out_layout.for_each_degree(|v, d| acc.add(v, d))?;
    let out = acc.finish();
    let r#in = if store.manifest().directed && with_in {
        let n = store.vertices();
        let _charge = budget.reserve("in-degree counters", n * 4)?;
        let mut counts = vec![0u32; n as usize];
        let mut scan = out_layout.scan()?;
        while let Some((_, nbrs, _)) = scan.next_list()? {
            for &t in nbrs {
                counts[t as usize] = counts[t as usize].saturating_add(1);
            }
        }
        let mut acc = Acc::new(top_k);
        for (v, &c) in counts.iter().enumerate() {
            acc.add(v as u64, c as u64);
        }
        Some(acc.finish())
    } else {
        None
    };
    Ok(DegreeSummary { out, r#in })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accumulator_ranks_ties_by_id_and_buckets_by_powers_of_two() {
        let mut a = Acc::new(2);
        for (v, d) in [(0, 3), (1, 0), (2, 7), (3, 7), (4, 1)] {
            a.add(v, d);
        }
        let s = a.finish();
        assert_eq!((s.min, s.max, s.zero), (0, 7, 1));
        assert_eq!(s.mean, 18.0 / 5.0);
        assert_eq!(s.top, vec![(2, 7), (3, 7)]);
        assert_eq!(s.histogram, vec![1, 1, 2]);
    }
}
