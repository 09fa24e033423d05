//! PageRank with Graphalytics semantics (as `reference::pagerank`) over
//! the dynamic store: each partition pushes its sources' shares into a
//! private array, the arrays are summed. Parallel edges count as many
//! times as they occur, as in a snapshot that keeps them.

use super::VertexIndex;
use outcore_dynamic::store::DynamicStore;
use rayon::prelude::*;

pub struct DynamicPageRank {
    pub index: VertexIndex,
    pub rank: Vec<f64>,
}

pub fn pagerank(store: &DynamicStore, damping: f64, iterations: u32) -> DynamicPageRank {
    let index = VertexIndex::build(store);
    let n = index.len();
    if n == 0 {
        return DynamicPageRank { index, rank: Vec::new() };
    }
    let mut degree = vec![0u64; n];
    store.for_each_edge(|u, e| degree[index.dense(u).unwrap() as usize] += e.count as u64);
    let nf = n as f64;
    let mut rank = vec![1.0 / nf; n];
    for _ in 0..iterations {
        let sinks: f64 = (0..n).filter(|&u| degree[u] == 0).map(|u| rank[u]).sum();
        let base = (1.0 - damping) / nf + damping * sinks / nf;
        let pushed = store
            .partitions()
            .par_iter()
            .map(|part| {
                let mut next = vec![0.0f64; n];
                let (mut last, mut share) = (u64::MAX, 0.0);
                part.for_each_edge(|u, e| {
                    if u != last {
                        let d = index.dense(u).unwrap() as usize;
                        share = damping * rank[d] / degree[d] as f64;
                        last = u;
                    }
                    next[index.dense(e.target).unwrap() as usize] += share * e.count as f64;
                });
                next
            })
            .reduce(
                || vec![0.0; n],
                |mut a, b| {
                    a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                    a
                },
            );
        rank = pushed.into_iter().map(|x| base + x).collect();
    }
    DynamicPageRank { index, rank }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pagerank::reference::pagerank as reference;
    use crate::MemGraph;
    use outcore_dynamic::store::{StoreOptions, Update};

    #[test]
    fn matches_the_reference_with_sinks() {
        let dir = tempfile::tempdir().unwrap();
        let opts = StoreOptions { partitions: 2, ..Default::default() };
        let mut store = DynamicStore::create(&dir.path().join("d"), opts).unwrap();
        let mut rng = 9u64;
        let mut edges = Vec::new();
        for _ in 0..4000 {
            rng = outcore_dynamic::hash::mix(rng);
            edges.push((rng % 500, (rng >> 32) % 700));
        }
        let updates: Vec<Update> = edges.iter().map(|&(u, v)| Update::InsertEdge { u, v, w: 1.0 }).collect();
        store.apply(&updates).unwrap();
        let got = pagerank(&store, 0.85, 20);
        let dense: Vec<(u64, u64, f32)> =
            edges.iter().map(|&(u, v)| (got.index.dense(u).unwrap() as u64, got.index.dense(v).unwrap() as u64, 1.0)).collect();
        let g = MemGraph::from_edges(got.index.len() as u64, &dense, true, false);
        let want = outcore_io::bound::bounded("the reference PageRank", || reference(&g, 0.85, 20));
        for (a, b) in got.rank.iter().zip(&want) {
            assert!((a - b).abs() < 1e-12, "{a} vs {b}");
        }
    }
}
