//! The Graph500 BFS rules, checked with one sequential scan of the edges
//! (gapbs's verifier contract, with Graph500's numbering):
//! 1. the parent array is a tree rooted at the root (no cycles);
//! 2. tree edges join vertices whose levels differ by exactly one (the
//!    levels the search reported must equal the tree depths);
//! 3. every edge joins vertices whose levels differ by at most one, or two
//!    vertices both outside the tree;
//! 4. the tree spans the root's component (no edge leaves the tree);
//! 5. every vertex and its parent are joined by an edge of the graph.

use crate::graph500::rules::{component_edges, missing_parent_edge, prepare, violation, Validated, Violation};
use crate::values::UNREACHED_U32 as NONE;
use outcore_io::Budget;
use outcore_store::{Store, StoreError};

/// Check a BFS result (`parent` and the `level`s the search reported)
/// against the store's edges.
pub fn validate_bfs(
    store: &Store,
    root: u64,
    parent: &[u32],
    level: &[u32],
    budget: &Budget,
) -> Result<Result<Validated, Violation>, StoreError> {
    let n = store.vertices() as usize;
    let (_charge, depth) = match prepare(store, root, parent, budget)? {
        Ok(x) => x,
        Err(v) => return Ok(Err(v)),
    };
    for v in 0..n {
        if depth[v] != level[v] {
            return Ok(violation(
                2,
                format!("vertex {v} is at depth {} of the tree but the search reported level {}", depth[v] as i64, level[v] as i64),
            ));
        }
    }
    let directed = store.manifest().directed;
    let mut parent_edge = outcore_io::Bitmap::new(n as u64);
    parent_edge.set(root);
    let mut arcs_in = 0u64;
    let mut loops_in = 0u64;
    let _scan_charge = crate::needs::charge_scans(budget, store, &["out"])?;
    let mut scan = store.layout("out")?.scan()?;
    while let Some((u, nbrs, _)) = scan.next_list()? {
        let du = depth[u as usize];
        for &v in nbrs {
            let dv = depth[v as usize];
            match (du == NONE, dv == NONE) {
                (true, true) => continue,
                (false, true) | (true, false) if !directed || du != NONE => {
                    return Ok(violation(4, format!("edge {u}-{v} leaves the tree: the tree does not span the component")));
                }
                (true, false) => continue, // directed: an edge into the tree from outside is fine
                _ => {}
            }
            if (!directed && du.abs_diff(dv) > 1) || (directed && dv > du + 1) {
                return Ok(violation(3, format!("edge {u}-{v} joins levels {du} and {dv}")));
            }
            arcs_in += 1;
            loops_in += (u == v) as u64;
            if parent[v as usize] == u as u32 {
                parent_edge.set(v);
            }
            if !directed && parent[u as usize] == v as u32 {
                parent_edge.set(u);
            }
        }
    }
    if let Some(v) = missing_parent_edge(&depth, &parent_edge) {
        return Ok(violation(5, format!("vertex {v} and its parent {} are not joined by an edge", parent[v])));
    }
    Ok(Ok(Validated { edges: component_edges(directed, arcs_in, loops_in) }))
}
