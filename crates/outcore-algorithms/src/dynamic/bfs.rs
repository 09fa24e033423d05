//! Level-synchronous top-down BFS over the dynamic store's out-edges.
//! Each level's frontier is expanded in parallel; a vertex is claimed by
//! the first compare-and-swap on its level.

use super::VertexIndex;
use crate::values::UNREACHED_U64 as UNREACHED;
use outcore_dynamic::store::DynamicStore;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

pub struct DynamicBfs {
    pub index: VertexIndex,
    /// Level per dense vertex, [`UNREACHED`] if not reached.
    pub level: Vec<u64>,
    pub reached: u64,
    pub arcs_scanned: u64,
}

/// BFS from `root` (an original id). None if `root` is not a vertex.
pub fn bfs(store: &DynamicStore, root: u64) -> Option<DynamicBfs> {
    let index = VertexIndex::build(store);
    let r = index.dense(root)?;
    let level: Vec<AtomicU64> = (0..index.len()).map(|_| AtomicU64::new(UNREACHED)).collect();
    level[r as usize].store(0, Relaxed);
    let mut frontier = vec![r];
    let mut depth = 0;
    let (mut reached, scanned) = (1u64, AtomicU64::new(0));
    while !frontier.is_empty() {
        depth += 1;
        let next: Vec<u32> = frontier
            .par_iter()
            .fold(Vec::new, |mut out, &v| {
                let mut n = 0;
                store.for_each_neighbour(index.ids[v as usize], |e| {
                    n += 1;
                    let w = index.dense(e.target).expect("targets are indexed");
                    if level[w as usize].compare_exchange(UNREACHED, depth, Relaxed, Relaxed).is_ok() {
                        out.push(w);
                    }
                });
                scanned.fetch_add(n, Relaxed);
                out
            })
            .reduce(Vec::new, |mut a, mut b| {
                a.append(&mut b);
                a
            });
        reached += next.len() as u64;
        frontier = next;
    }
    Some(DynamicBfs { level: level.into_iter().map(|x| x.into_inner()).collect(), index, reached, arcs_scanned: scanned.into_inner() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bfs::reference::bfs_levels;
    use crate::MemGraph;
    use outcore_dynamic::store::{StoreOptions, Update};

    #[test]
    fn matches_the_reference_on_a_random_graph() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = DynamicStore::create(&dir.path().join("d"), StoreOptions { partitions: 3, ..Default::default() }).unwrap();
        let mut rng = 3u64;
        let mut edges = Vec::new();
        for _ in 0..5000 {
            rng = outcore_dynamic::hash::mix(rng);
            edges.push((rng % 900, (rng >> 32) % 900));
        }
        let updates: Vec<Update> = edges.iter().map(|&(u, v)| Update::InsertEdge { u, v, w: 1.0 }).collect();
        store.apply(&updates).unwrap();
        let got = bfs(&store, edges[0].0).unwrap();
        // The reference on the same graph, densely numbered the same way.
        let n = got.index.len() as u64;
        let dense: Vec<(u64, u64, f32)> =
            edges.iter().map(|&(u, v)| (got.index.dense(u).unwrap() as u64, got.index.dense(v).unwrap() as u64, 1.0)).collect();
        let g = MemGraph::from_edges(n, &dense, true, false);
        let want = outcore_io::bound::bounded("the reference BFS", || bfs_levels(&g, got.index.dense(edges[0].0).unwrap() as u64));
        assert_eq!(got.level, want);
    }
}
