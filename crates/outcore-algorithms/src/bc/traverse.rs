//! Brandes on the traverse engine: distances, path counts, dependencies
//! and the BFS order in memory (32 bytes a vertex), each reached vertex's
//! list read twice per source through the block cache.

use crate::bfs::{check_ids, NONE};
use outcore_engines::Traverse;
use outcore_io::{Budget, Progress};
use outcore_store::StoreError;

/// Memory of [`bc_traverse`]: distance, sigma, delta, BC and order slot per vertex.
pub fn state_bytes(n: u64) -> u64 {
    n * 32
}

/// Brandes from each source over the traverse engine's out-lists; returns
/// `scale` times the sums, and the arcs read. With `targets` (sorted dense
/// ids), only shortest paths ending at one of them (not the source) count.
pub fn bc_traverse(
    g: &mut Traverse,
    sources: &[u64],
    targets: Option<&[u64]>,
    scale: f64,
    budget: &Budget,
    progress: &dyn Progress,
) -> Result<(Vec<f64>, u64), StoreError> {
    let n = g.vertices();
    for &s in sources {
        check_ids(n, s)?;
    }
    let _charge = budget.reserve("BC distances, path counts, dependencies and order", state_bytes(n))?;
    let mut dist = vec![NONE; n as usize];
    let mut sigma = vec![0.0f64; n as usize];
    let mut delta = vec![0.0f64; n as usize];
    let mut bc = vec![0.0f64; n as usize];
    let mut order: Vec<u32> = Vec::with_capacity(n as usize);
    let mut nbrs = Vec::new();
    let mut arcs = 0u64;
    progress.begin("bc", sources.len() as u64, false);
    for (k, &s) in sources.iter().enumerate() {
        progress.set(k as u64);
        order.clear();
        order.push(s as u32);
        dist[s as usize] = 0;
        sigma[s as usize] = 1.0;
        let mut head = 0;
        while head < order.len() {
            let v = order[head] as usize;
            head += 1;
            g.neighbours(v as u64, &mut nbrs)?;
            arcs += nbrs.len() as u64;
            for &w in &nbrs {
                let w = w as usize;
                if dist[w] == NONE {
                    dist[w] = dist[v] + 1;
                    order.push(w as u32);
                }
                if dist[w] == dist[v] + 1 {
                    sigma[w] += sigma[v];
                }
            }
        }
        for &v in order.iter().rev() {
            let v = v as usize;
            g.neighbours(v as u64, &mut nbrs)?;
            arcs += nbrs.len() as u64;
            let mut d = 0.0;
            for &w in &nbrs {
                let w = w as usize;
                if dist[w] == dist[v] + 1 {
                    d += sigma[v] / sigma[w] * (path_end(targets, w as u64, s) + delta[w]);
                }
            }
            delta[v] = d;
            if v != s as usize {
                bc[v] += scale * d;
            }
        }
        for &v in &order {
            dist[v as usize] = NONE;
            sigma[v as usize] = 0.0;
            delta[v as usize] = 0.0;
        }
    }
    progress.end();
    Ok((bc, arcs))
}

/// 1 when a shortest path from `s` ending at `w` counts: every path without
/// targets, else paths to a target other than the source.
pub fn path_end(targets: Option<&[u64]>, w: u64, s: u64) -> f64 {
    match targets {
        None => 1.0,
        Some(t) if w != s && t.binary_search(&w).is_ok() => 1.0,
        Some(_) => 0.0,
    }
}
