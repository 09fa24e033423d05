//! The Graph500 SSSP rules: the BFS rules with distances: a tree rooted at
//! the root, d(v) = d(parent) + w on tree edges, d(v) <= d(u) + w on every
//! edge, the tree spans the root's component, and every parent edge exists.

use crate::graph500::rules::{component_edges, missing_parent_edge, prepare, violation, Validated, Violation};
use crate::values::UNREACHED_U32 as NONE;
use outcore_io::Budget;
use outcore_store::{Store, StoreError};

/// Check an SSSP result (`parent`, `dist`) against the store's weighted edges.
pub fn validate_sssp(
    store: &Store,
    root: u64,
    parent: &[u32],
    dist: &[f64],
    budget: &Budget,
) -> Result<Result<Validated, Violation>, StoreError> {
    let n = store.vertices() as usize;
    let (_charge, depth) = match prepare(store, root, parent, budget)? {
        Ok(x) => x,
        Err(v) => return Ok(Err(v)),
    };
    if dist[root as usize] != 0.0 {
        return Ok(violation(2, format!("the root has distance {}", dist[root as usize])));
    }
    let directed = store.manifest().directed;
    let tolerance = |x: f64| 1e-9 * x.abs().max(1.0);
    let mut parent_edge = outcore_io::Bitmap::new(n as u64);
    parent_edge.set(root);
    let (mut arcs_in, mut loops_in) = (0u64, 0u64);
    let _scan_charge = crate::needs::charge_scans(budget, store, &["out"])?;
    let mut scan = store.layout("out")?.scan()?;
    while let Some((u, nbrs, ws)) = scan.next_list()? {
        let in_u = depth[u as usize] != NONE;
        for (i, &v) in nbrs.iter().enumerate() {
            let w = *ws.get(i).unwrap_or(&1.0) as f64;
            let in_v = depth[v as usize] != NONE;
            if in_u != in_v && (in_u || !directed) {
                return Ok(violation(4, format!("edge {u}-{v} leaves the tree: the tree does not span the component")));
            }
            if !in_u {
                continue;
            }
            let (du, dv) = (dist[u as usize], dist[v as usize]);
            if dv > du + w + tolerance(dv) {
                return Ok(violation(3, format!("edge {u}->{v} of weight {w} would shorten {v} from {dv} to {}", du + w)));
            }
            arcs_in += 1;
            loops_in += (u == v) as u64;
            if parent[v as usize] == u as u32 && (dv - (du + w)).abs() <= tolerance(dv) {
                parent_edge.set(v);
            }
        }
    }
    if let Some(v) = missing_parent_edge(&depth, &parent_edge) {
        let p = parent[v] as usize;
        return Ok(violation(5, format!("vertex {v}: no edge from its parent {p} of weight d({v}) - d({p}) = {}", dist[v] - dist[p])));
    }
    Ok(Ok(Validated { edges: component_edges(directed, arcs_in, loops_in) }))
}
