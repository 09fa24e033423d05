//! The Graph500 validation rules (specification section "Validation"),
//! shared by the BFS and SSSP validators: the parent array is a tree
//! rooted at the root (rule 1), checked here; the scans of rules 2 to 5 live
//! in `bfs/validate.rs` and `sssp/validate.rs`.

use crate::values::UNREACHED_U32 as NONE;
use outcore_io::Budget;
use outcore_store::{Store, StoreError};

#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    pub rule: u8,
    pub message: String,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "validation rule {} failed: {}", self.rule, self.message)
    }
}

pub(crate) fn violation(rule: u8, message: String) -> Result<Validated, Violation> {
    Err(Violation { rule, message })
}

/// A result that passed; `edges` counts the graph's edges inside the
/// tree's component (the Graph500 `nedge` for TEPS).
#[derive(Debug, Clone, PartialEq)]
pub struct Validated {
    pub edges: u64,
}

/// Depth of every vertex in the parent tree (rule 1), NONE outside it.
pub(crate) fn tree_depths(parent: &[u32], root: u64) -> Result<Vec<u32>, Violation> {
    let n = parent.len();
    if parent[root as usize] != root as u32 {
        return Err(Violation { rule: 1, message: format!("the root {root} is not its own parent") });
    }
    let mut depth = vec![NONE; n];
    depth[root as usize] = 0;
    let mut path = Vec::new();
    for v in 0..n {
        if parent[v] == NONE || depth[v] != NONE {
            continue;
        }
        path.clear();
        let mut x = v as u32;
        while depth[x as usize] == NONE {
            if path.len() > n {
                return Err(Violation { rule: 1, message: format!("the parent chain of vertex {v} has a cycle") });
            }
            path.push(x);
            let p = parent[x as usize];
            if p == NONE || p as usize >= n {
                return Err(Violation { rule: 1, message: format!("vertex {x} has parent {p}, which is not in the tree") });
            }
            if p == x {
                return Err(Violation { rule: 1, message: format!("vertex {x} is its own parent but is not the root") });
            }
            x = p;
        }
        let mut d = depth[x as usize];
        for &y in path.iter().rev() {
            d += 1;
            depth[y as usize] = d;
        }
    }
    Ok(depth)
}

/// The budget charge and tree depths (rule 1) shared by both validators.
#[allow(clippy::type_complexity)]
pub(crate) fn prepare(
    store: &Store,
    root: u64,
    parent: &[u32],
    budget: &Budget,
) -> Result<Result<(outcore_io::Reservation, Vec<u32>), Violation>, StoreError> {
    let n = store.vertices();
    let charge = budget.reserve("validation depths and parent-edge bitmap", n * 4 + n / 8 + 8)?;
    Ok(tree_depths(parent, root).map(|d| (charge, d)))
}

/// A tree vertex whose parent edge the scan did not find (rule 5).
pub(crate) fn missing_parent_edge(depth: &[u32], found: &outcore_io::Bitmap) -> Option<usize> {
    (0..depth.len()).find(|&v| depth[v] != NONE && !found.get(v as u64))
}

/// Graph500's nedge: edges of the component (undirected edges once).
pub(crate) fn component_edges(directed: bool, arcs: u64, loops: u64) -> u64 {
    if directed {
        arcs
    } else {
        (arcs - loops) / 2 + loops
    }
}
