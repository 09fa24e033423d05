//! Analytics directly on the dynamic store (thesis section 4.7): BFS and
//! PageRank read adjacency from the live Robin Hood tables, so their
//! results can be compared with the static engines on a snapshot; and the
//! incremental colouring of section 4.8, maintained batch by batch.
//!
//! Vertices are the store's sources, explicit vertices and edge targets,
//! numbered densely in id order for the per-vertex arrays.

pub mod bfs;
pub mod coloring;
pub mod pagerank;

use outcore_dynamic::hash::mix;
use outcore_dynamic::store::DynamicStore;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Hashes u64 ids with the store's mixer (SipHash is needlessly slow here).
#[derive(Default)]
pub struct IdHasher(u64);
impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, _: &[u8]) {
        unreachable!("ids hash as u64")
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = mix(x)
    }
}
pub type IdMap<V> = HashMap<u64, V, BuildHasherDefault<IdHasher>>;

/// The vertex set of a dynamic store, in id order.
pub struct VertexIndex {
    pub ids: Vec<u64>,
    dense: IdMap<u32>,
}

impl VertexIndex {
    pub fn build(store: &DynamicStore) -> VertexIndex {
        let mut ids = Vec::new();
        store.for_each_source(|u| ids.push(u));
        store.for_each_edge(|_, e| ids.push(e.target));
        Self::from_ids(ids)
    }

    /// The index of `ids` (any order, repeats allowed).
    pub fn from_ids(mut ids: Vec<u64>) -> VertexIndex {
        ids.sort_unstable();
        ids.dedup();
        let mut dense = IdMap::default();
        dense.reserve(ids.len());
        for (i, &u) in ids.iter().enumerate() {
            dense.insert(u, i as u32);
        }
        VertexIndex { ids, dense }
    }

    #[inline]
    pub fn dense(&self, id: u64) -> Option<u32> {
        self.dense.get(&id).copied()
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }
}
