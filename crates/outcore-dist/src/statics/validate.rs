//! Graph500's validation rules (specification section 6), checked across
//! ranks on a distributed BFS or SSSP result: every rank checks its owned
//! vertices and their lists, asking the owners of parents and pulling the
//! ghosts' values, and the ranks agree on the first violation.
//!
//! BFS: (1) the root is its own parent at level 0 and every other reached
//! vertex's parent is reached one level above, so the parents form a tree
//! (levels fall by one along every parent chain); (2) tree edges join
//! levels that differ by one; (3) the ends of every input edge are both
//! reached, levels at most one apart, or both unreached, so (4) the tree
//! spans the root's whole component; (5) each vertex and its parent are
//! joined by an input edge. SSSP: the same tree rules with distances: a
//! parent's distance plus the joining edge's weight is the vertex's, and
//! no edge offers a shorter distance.

use super::bfs::DistBfs;
use super::for_each_list;
use super::sssp::DistSssp;
use crate::error::{DistError, Result};
use crate::part::{Part, Place};
use outcore_algorithms::values::UNREACHED_U64 as UNREACHED;

/// The first violation any rank found (the lowest rank's), on every rank.
fn agree_on(part: &Part, mine: Option<String>) -> Option<String> {
    let all = part.comm().all_gather(mine.as_deref().unwrap_or("").as_bytes());
    all.into_iter().find(|b| !b.is_empty()).map(|b| String::from_utf8_lossy(&b).into_owned())
}

fn store(e: outcore_store::StoreError) -> DistError {
    DistError::Ingest(e.into())
}

/// Ok(Ok(())) if `r` passes every rule, Ok(Err(why)) if not.
pub fn validate_bfs(part: &Part, root: u64, r: &DistBfs) -> Result<std::result::Result<(), String>> {
    let owned = part.owned_count() as usize;
    let mut bad: Option<String> = None;
    let mut fail = |why: String| {
        bad.get_or_insert(why);
    };
    let parent_of = |i: usize| r.parent_of(&part.original, i);
    let parents: Vec<u64> = (0..owned).map(parent_of).filter(|&p| p != UNREACHED).collect();
    let mut asked = parents.clone();
    asked.sort_unstable();
    asked.dedup();
    let level_of = part.ask(&asked, |i| r.level_of(i as usize))?;
    for i in 0..owned {
        let (v, l, p) = (part.owned_id(i as u32), r.level_of(i), parent_of(i));
        if (l == UNREACHED) != (p == UNREACHED) {
            fail(format!("vertex {v}: level {l} but parent {p}"));
        } else if v == root && (l != 0 || p != root) {
            fail(format!("the root {root} has level {l} and parent {p}"));
        } else if l == 0 && v != root {
            fail(format!("vertex {v} is at level 0 but is not the root"));
        } else if l != UNREACHED && v != root {
            let pl = level_of[asked.binary_search(&p).expect("asked")];
            if pl == UNREACHED || pl + 1 != l {
                fail(format!("vertex {v} at level {l} has parent {p} at level {pl} (rules 1-2)"));
            }
        }
    }
    let ghost_level = part.pull_all(|i| r.level_of(i as usize));
    let all: Vec<u32> = (0..owned as u32).collect();
    for_each_list(part, &all, false, |i, nbrs, _| {
        let (v, l, p) = (part.owned_id(i), r.level_of(i as usize), parent_of(i as usize));
        let mut parent_seen = l == UNREACHED || v == root;
        for &t in nbrs {
            let lt = match part.place(t as u32) {
                Place::Owned(j) => r.level_of(j as usize),
                Place::Ghost(g) => ghost_level[g as usize],
            };
            parent_seen |= part.original.get(t as u32) == p;
            let ok = match (l == UNREACHED, lt == UNREACHED) {
                // a directed arc bounds its target only
                (true, _) => part.directed() || lt == UNREACHED,
                (false, true) => false,
                (false, false) => lt <= l + 1 && (part.directed() || l <= lt + 1),
            };
            if !ok {
                fail(format!("edge {v} {}: levels {l} and {lt} (rules 3-4)", part.original.get(t as u32)));
            }
        }
        if !parent_seen {
            fail(format!("vertex {v}: its parent {p} is not its neighbour (rule 5)"));
        }
    })
    .map_err(store)?;
    Ok(match agree_on(part, bad) {
        None => Ok(()),
        Some(why) => Err(why),
    })
}

/// Ok(Ok(())) if `r` passes every rule, Ok(Err(why)) if not. Distances
/// are compared with f32's relative precision.
pub fn validate_sssp(part: &Part, root: u64, r: &DistSssp) -> Result<std::result::Result<(), String>> {
    let owned = part.owned_count() as usize;
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-6 * a.abs().max(b.abs()).max(1.0);
    let mut bad: Option<String> = None;
    let mut fail = |why: String| {
        bad.get_or_insert(why);
    };
    let mut asked: Vec<u64> = r.parent.iter().copied().filter(|&p| p != UNREACHED).collect();
    asked.sort_unstable();
    asked.dedup();
    let dist_of: Vec<f64> = part.ask(&asked, |i| r.distance[i as usize].to_bits())?.into_iter().map(f64::from_bits).collect();
    let ghost_dist: Vec<f64> = part.pull_all(|i| r.distance[i as usize].to_bits()).into_iter().map(f64::from_bits).collect();
    for i in 0..owned {
        let (v, d, p) = (part.owned_id(i as u32), r.distance[i], r.parent[i]);
        if d.is_finite() != (p != UNREACHED) {
            fail(format!("vertex {v}: distance {d} but parent {p}"));
        } else if v == root && (d != 0.0 || p != root) {
            fail(format!("the root {root} has distance {d} and parent {p}"));
        }
    }
    let all: Vec<u32> = (0..owned as u32).collect();
    for_each_list(part, &all, true, |i, nbrs, weights| {
        let (v, d, p) = (part.owned_id(i), r.distance[i as usize], r.parent[i as usize]);
        let mut parent_seen = !d.is_finite() || v == root;
        let pd = if p != UNREACHED { dist_of[asked.binary_search(&p).expect("asked")] } else { f64::INFINITY };
        for (&t, &w) in nbrs.iter().zip(weights) {
            let dt = match part.place(t as u32) {
                Place::Owned(j) => r.distance[j as usize],
                Place::Ghost(g) => ghost_dist[g as usize],
            };
            let w = w as f64;
            if part.original.get(t as u32) == p && close(pd + w, d) {
                parent_seen = true;
            }
            // an undirected graph's arc is both ways; a directed one bounds its target only
            if d.is_finite() && !(dt <= d + w || close(dt, d + w)) {
                fail(format!("edge {v} {} (weight {w}) offers {} below the distance {dt}", part.original.get(t as u32), d + w));
            }
            if !part.directed() && d.is_finite() != dt.is_finite() {
                fail(format!("edge {v} {}: one end reached, the other not", part.original.get(t as u32)));
            }
        }
        if !parent_seen {
            fail(format!("vertex {v} at distance {d}: no edge from its parent {p} (distance {pd}) makes it"));
        }
    })
    .map_err(store)?;
    Ok(match agree_on(part, bad) {
        None => Ok(()),
        Some(why) => Err(why),
    })
}
