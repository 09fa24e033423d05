//! Graph500 result validation (specification section "Validation") and
//! the statistics block of the reference implementation's output.
//!
//! The five BFS rules, checked with one sequential scan of the edges:
//! 1. the parent array is a tree rooted at the root (no cycles);
//! 2. tree edges join vertices whose levels differ by exactly one (the
//!    levels the search reported must equal the tree depths);
//! 3. every edge joins vertices whose levels differ by at most one, or two
//!    vertices both outside the tree;
//! 4. the tree spans the root's component (no edge leaves the tree);
//! 5. every vertex and its parent are joined by an edge of the graph.
//! SSSP uses the same structure with distances: tree, d(v) = d(parent) + w
//! on tree edges, d(v) <= d(u) + w on every edge, spanning, parent edges.

use crate::bfs::NONE;
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

fn violation(rule: u8, message: String) -> Result<Validated, Violation> {
    Err(Violation { rule, message })
}

/// A result that passed; `edges` counts the graph's edges inside the
/// tree's component (the Graph500 `nedge` for TEPS).
#[derive(Debug, Clone, PartialEq)]
pub struct Validated {
    pub edges: u64,
}

/// Depth of every vertex in the parent tree (rule 1), NONE outside it.
fn tree_depths(parent: &[u32], root: u64) -> Result<Vec<u32>, Violation> {
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
fn prepare(
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
fn missing_parent_edge(depth: &[u32], found: &[u64]) -> Option<usize> {
    (0..depth.len()).find(|&v| depth[v] != NONE && found[v / 64] & (1 << (v % 64)) == 0)
}

/// Graph500's nedge: edges of the component (undirected edges once).
fn component_edges(directed: bool, arcs: u64, loops: u64) -> u64 {
    if directed {
        arcs
    } else {
        (arcs - loops) / 2 + loops
    }
}

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
    let mut parent_edge = vec![0u64; n.div_ceil(64)];
    parent_edge[root as usize / 64] |= 1 << (root % 64);
    let mut arcs_in = 0u64;
    let mut loops_in = 0u64;
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
                parent_edge[v as usize / 64] |= 1 << (v % 64);
            }
            if !directed && parent[u as usize] == v as u32 {
                parent_edge[u as usize / 64] |= 1 << (u % 64);
            }
        }
    }
    if let Some(v) = missing_parent_edge(&depth, &parent_edge) {
        return Ok(violation(5, format!("vertex {v} and its parent {} are not joined by an edge", parent[v])));
    }
    Ok(Ok(Validated { edges: component_edges(directed, arcs_in, loops_in) }))
}

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
    let mut parent_edge = vec![0u64; n.div_ceil(64)];
    parent_edge[root as usize / 64] |= 1 << (root % 64);
    let (mut arcs_in, mut loops_in) = (0u64, 0u64);
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
                parent_edge[v as usize / 64] |= 1 << (v % 64);
            }
        }
    }
    if let Some(v) = missing_parent_edge(&depth, &parent_edge) {
        let p = parent[v] as usize;
        return Ok(violation(5, format!("vertex {v}: no edge from its parent {p} of weight d({v}) - d({p}) = {}", dist[v] - dist[p])));
    }
    Ok(Ok(Validated { edges: component_edges(directed, arcs_in, loops_in) }))
}

/// The reference implementation's statistics of a sample.
#[derive(Debug, Clone, PartialEq)]
pub struct Statistics {
    pub min: f64,
    pub first_quartile: f64,
    pub median: f64,
    pub third_quartile: f64,
    pub max: f64,
    pub mean: f64,
    pub stddev: f64,
    pub harmonic_mean: f64,
    pub harmonic_stddev: f64,
}

/// As `get_statistics` in the reference code: quartiles average the two
/// middle order statistics, stddev uses n-1, and the harmonic standard
/// deviation is sqrt(sum (1/x - 1/h)^2) / (n-1) * h^2.
pub fn statistics(sample: &[f64]) -> Statistics {
    let mut x = sample.to_vec();
    x.sort_by(|a, b| a.total_cmp(b));
    let n = x.len();
    assert!(n > 0);
    let mean = x.iter().sum::<f64>() / n as f64;
    let var = if n > 1 { x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64 } else { 0.0 };
    let hmean = n as f64 / x.iter().map(|v| 1.0 / v).sum::<f64>();
    let htemp: f64 = x.iter().map(|v| (1.0 / v - 1.0 / hmean).powi(2)).sum();
    Statistics {
        min: x[0],
        first_quartile: (x[(n - 1) / 4] + x[n / 4]) * 0.5,
        median: (x[(n - 1) / 2] + x[n / 2]) * 0.5,
        third_quartile: (x[n - 1 - (n - 1) / 4] + x[n - 1 - n / 4]) * 0.5,
        max: x[n - 1],
        mean,
        stddev: var.sqrt(),
        harmonic_mean: hmean,
        harmonic_stddev: if n > 1 { htemp.sqrt() / (n - 1) as f64 * hmean * hmean } else { 0.0 },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statistics_match_the_reference_definitions() {
        let s = statistics(&[4.0, 1.0, 3.0, 2.0]);
        assert_eq!((s.min, s.max, s.median, s.mean), (1.0, 4.0, 2.5, 2.5));
        assert_eq!((s.first_quartile, s.third_quartile), (1.5, 3.5));
        assert!((s.stddev - (5.0f64 / 3.0).sqrt()).abs() < 1e-12);
        assert!((s.harmonic_mean - 4.0 / (1.0 + 0.5 + 1.0 / 3.0 + 0.25)).abs() < 1e-12);
    }
}
