//! Dense internal ids to the original ids of the input, and back. Import
//! relabels by rank: dense id i is the i-th smallest original id, so the
//! order of ids is preserved and the map is one sorted array (or nothing,
//! when the input ids were already 0..V-1). A reordered store keeps the
//! original id of every dense id (`permuted`).

use crate::StoreError;
use outcore_io::{Budget, Reservation, SeqReader};
use std::path::Path;

pub enum IdMap {
    Identity {
        vertices: u64,
        base: u64,
    },
    Sorted {
        ids: Vec<u64>,
        _charge: Reservation,
    },
    /// After a reordering (`--order`): the original id of each dense id,
    /// in no particular order.
    Permuted {
        ids: Vec<u64>,
        _charge: Reservation,
    },
}

impl IdMap {
    pub const PERMUTED: &'static str = "permuted";

    /// Load the map of a store (8 bytes per vertex, charged to `budget`).
    pub fn load(dir: &Path, kind: &str, base: u64, vertices: u64, budget: &Budget) -> Result<Self, StoreError> {
        match kind {
            "identity" => Ok(IdMap::Identity { vertices, base }),
            "sorted" | "permuted" => {
                let charge = budget.reserve("id map", vertices * 8)?;
                let path = dir.join("idmap");
                let mut ids = Vec::with_capacity(vertices as usize);
                SeqReader::for_each_u64(&path, |id| {
                    ids.push(id);
                    Ok(())
                })?;
                if ids.len() as u64 != vertices {
                    return Err(StoreError::invalid(&path, format!("holds {} ids, manifest says {vertices}", ids.len())));
                }
                if kind == "sorted" {
                    Ok(IdMap::Sorted { ids, _charge: charge })
                } else {
                    Ok(IdMap::Permuted { ids, _charge: charge })
                }
            }
            other => Err(StoreError::invalid(dir.join("manifest.json"), format!("unknown id_map kind '{other}'"))),
        }
    }

    pub fn vertices(&self) -> u64 {
        match self {
            IdMap::Identity { vertices, .. } => *vertices,
            IdMap::Sorted { ids, .. } | IdMap::Permuted { ids, .. } => ids.len() as u64,
        }
    }

    /// Original id of dense vertex `v`.
    pub fn original(&self, v: u64) -> u64 {
        match self {
            IdMap::Identity { base, .. } => v + base,
            IdMap::Sorted { ids, .. } | IdMap::Permuted { ids, .. } => ids[v as usize],
        }
    }

    /// Dense id of original id `id`, if the graph has that vertex.
    pub fn dense(&self, id: u64) -> Option<u64> {
        match self {
            IdMap::Identity { vertices, base } => (id >= *base && id - base < *vertices).then(|| id - base),
            IdMap::Sorted { ids, .. } => ids.binary_search(&id).ok().map(|i| i as u64),
            IdMap::Permuted { ids, .. } => ids.iter().position(|&x| x == id).map(|i| i as u64),
        }
    }
}
