//! The distributed incremental colouring of thesis section 4.8.2 (after
//! Sallinen et al.): edge-centric, priority by vertex id (a smaller id
//! colours first), each vertex's colour kept by its owner as its vertex
//! property (`colour + 1`, as `outcore dynamic color` keeps it, so a
//! snapshot or a single-machine run continues from it).
//!
//! After a batch, the endpoints of every inserted edge are queued at their
//! owners. Then, in rounds until no rank has a queued vertex: each owner
//! asks the owners of its queued vertices' neighbours for their colour and
//! whether they are queued; a queued vertex none of whose higher-priority
//! (smaller) neighbours is queued keeps its colour if no such neighbour
//! has it, else takes the smallest colour none of them has, and queues
//! every lower-priority neighbour it now conflicts with, at that
//! neighbour's owner (the conflict is resolved by the owner of the
//! lower-priority end). Two neighbours never choose in the same round (the
//! larger waits for the smaller), and a vertex that changes colour queues
//! every larger neighbour it then conflicts with, so the colouring is
//! proper when the queues are empty; the smallest queued vertex is always
//! ready, so the rounds end. Each vertex takes the smallest colour its
//! smaller neighbours leave, so at most max degree + 1 colours are used.
//! Deleting an edge keeps both colours, as in the thesis.

use crate::dynamic::DistDynamic;
use crate::error::{DistError, Result};
use outcore_algorithms::dynamic::IdMap;
use outcore_dynamic::store::Update;
use std::collections::{BTreeSet, HashSet};

#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct ColorReport {
    /// Vertices given a new colour (over all ranks).
    pub recoloured: u64,
    /// Rounds of requests and replies.
    pub rounds: u64,
}

fn colour(d: &DistDynamic, u: u64) -> Option<u64> {
    d.store.property(u).filter(|&p| p > 0).map(|p| p - 1)
}

pub fn require_undirected(d: &DistDynamic) -> Result<()> {
    if d.manifest.options.undirected {
        return Ok(());
    }
    Err(DistError::Usage(format!("{}: colouring needs an undirected store (one created --undirected)", d.dir().display())))
}

/// Neighbours of `u` other than itself.
fn neighbours(d: &DistDynamic, u: u64) -> Vec<u64> {
    let mut out = Vec::new();
    d.store.for_each_neighbour(u, |e| {
        if e.target != u {
            out.push(e.target)
        }
    });
    out
}

/// Colour and queued flag of every vertex in `wanted` (owned elsewhere or
/// here): one request and one reply exchange.
fn ask(d: &DistDynamic, wanted: &BTreeSet<u64>, queued: &HashSet<u64>) -> IdMap<(Option<u64>, bool)> {
    let comm = d.comm();
    let mut requests: Vec<Vec<u64>> = vec![Vec::new(); comm.size()];
    for &w in wanted {
        requests[d.rank_of(w)].push(w);
    }
    let asked = comm.all_to_all(&requests);
    let replies: Vec<Vec<u64>> = asked
        .iter()
        .map(|ids| ids.iter().flat_map(|&w| [w, colour(d, w).map_or(0, |c| c + 1), queued.contains(&w) as u64]).collect())
        .collect();
    let mut info = IdMap::default();
    for got in comm.all_to_all(&replies) {
        for r in got.chunks_exact(3) {
            info.insert(r[0], (r[1].checked_sub(1), r[2] == 1));
        }
    }
    info
}

/// Repair the colouring around `seeds` (this rank's vertices whose colour
/// may be missing or in conflict). A collective.
pub fn repair(d: &mut DistDynamic, seeds: Vec<u64>) -> Result<ColorReport> {
    require_undirected(d)?;
    let comm = d.comm();
    let mut queued: HashSet<u64> = seeds.into_iter().collect();
    let mut report = ColorReport::default();
    let mut recoloured = 0u64;
    loop {
        if comm.sum(&[queued.len() as u64])[0] == 0 {
            break;
        }
        report.rounds += 1;
        let mut wanted = BTreeSet::new();
        let mut order: Vec<u64> = queued.iter().copied().collect();
        order.sort_unstable();
        let lists: Vec<Vec<u64>> = order.iter().map(|&x| neighbours(d, x)).collect();
        for list in &lists {
            wanted.extend(list.iter().copied());
        }
        let info = ask(d, &wanted, &queued);
        let mut writes = Vec::new();
        let mut notify: Vec<Vec<u64>> = vec![Vec::new(); comm.size()];
        let mut used = Vec::new();
        for (&x, list) in order.iter().zip(&lists) {
            if list.iter().any(|&w| w < x && info[&w].1) {
                continue; // a higher-priority neighbour has yet to choose
            }
            queued.remove(&x);
            used.clear();
            used.extend(list.iter().filter(|&&w| w < x).filter_map(|w| info[w].0));
            let current = colour(d, x);
            if current.is_some_and(|c| !used.contains(&c)) {
                continue;
            }
            used.sort_unstable();
            used.dedup();
            let c = used.iter().enumerate().find(|&(i, &c)| i as u64 != c).map_or(used.len() as u64, |(i, _)| i as u64);
            writes.push(Update::SetProperty { u: x, value: c + 1 });
            recoloured += 1;
            for &w in list {
                if w > x && info[&w].0.is_none_or(|cw| cw == c) {
                    notify[d.rank_of(w)].push(w);
                }
            }
        }
        let written = d.store.apply(&writes).map(|_| ()).map_err(DistError::from);
        crate::dynamic::agree(comm, written)?;
        for got in comm.all_to_all(&notify) {
            queued.extend(got);
        }
    }
    report.recoloured = comm.sum(&[recoloured])[0];
    Ok(report)
}

/// Colour every vertex that has none yet, and repair every conflict.
pub fn color_all(d: &mut DistDynamic) -> Result<ColorReport> {
    let mut seeds = Vec::new();
    d.store.for_each_source(|u| seeds.push(u));
    repair(d, seeds)
}

/// The checker: every edge joins two coloured vertices of different
/// colours. Returns the number of distinct colours on edge endpoints and
/// the largest degree (both over all ranks). A collective.
pub fn check_coloring(d: &DistDynamic) -> Result<(u64, u64)> {
    let comm = d.comm();
    let mut wanted = BTreeSet::new();
    let mut max_degree = 0u64;
    d.store.for_each_source(|u| {
        let n = neighbours(d, u);
        max_degree = max_degree.max(n.len() as u64);
        wanted.extend(n);
    });
    let info = ask(d, &wanted, &HashSet::new());
    let mut used = BTreeSet::new();
    let mut bad = None;
    d.store.for_each_edge(|u, e| {
        if u == e.target || bad.is_some() {
            return;
        }
        match (colour(d, u), info[&e.target].0) {
            (Some(a), Some(b)) if a != b => {
                used.insert(a);
                used.insert(b);
            }
            (Some(a), Some(_)) => bad = Some(format!("edge {u} - {} joins two vertices of colour {a}", e.target)),
            _ => bad = Some(format!("edge {u} - {} has an uncoloured endpoint", e.target)),
        }
    });
    let checked = bad.map_or(Ok(()), |e| Err(DistError::Usage(format!("the colouring is not proper: {e}"))));
    crate::dynamic::agree(comm, checked)?;
    let mine: Vec<u8> = used.iter().flat_map(|c| c.to_le_bytes()).collect();
    let all: BTreeSet<u64> = comm
        .all_gather(&mine)
        .iter()
        .flat_map(|b| b.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect::<Vec<_>>())
        .collect();
    Ok((all.len() as u64, comm.max(&[max_degree])[0]))
}

/// This rank's `(vertex, colour)` pairs, in id order.
pub fn colours(d: &DistDynamic) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    d.store.for_each_source(|u| {
        if let Some(c) = colour(d, u) {
            out.push((u, c))
        }
    });
    out.sort_unstable();
    out
}
