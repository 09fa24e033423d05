//! Single-source shortest paths across ranks: Bellman-Ford supersteps
//! over the vertices whose distance fell in the last one. A rank reads the
//! weighted lists of its active vertices; an owned neighbour is relaxed at
//! once, a ghost's best offer (distance and parent) is kept and sent to
//! its owner at the end of the superstep (one all-to-all, an offer only
//! when it beats what this rank sent before). It stops when no distance
//! fell on any rank. Distances are sums of the stored f32 weights in f64;
//! they equal the single-machine SSSP's to f32 precision, and every
//! parent is a neighbour whose distance plus the arc's weight is the
//! vertex's.

use super::{par_rounds, RankFigures, ROUND_BYTES};
use crate::dynamic::agree;
use crate::error::{DistError, Result};
use crate::part::{push_round_bytes, Part, PartShape, Place};
use outcore_algorithms::values::UNREACHED_U64 as UNREACHED;
use std::time::Instant;

pub struct DistSssp {
    /// Per owned vertex: its distance (infinite if unreached) and its
    /// parent's original id (its own for the root, [`UNREACHED`] if unreached).
    pub distance: Vec<f64>,
    pub parent: Vec<u64>,
    pub supersteps: u32,
    pub reached: u64,
    /// Arcs relaxed, all ranks.
    pub arcs_relaxed: u64,
    pub figures: RankFigures,
}

/// Bytes of state of a part of `shape`: per owned vertex its distance,
/// parent, place in the active lists and whether it is queued; per ghost
/// the distance sent, the best offer and the list of those offered; a
/// round of weighted arcs and a round of the offers' exchange.
pub fn state_bytes(shape: &PartShape) -> u64 {
    shape.owned * (8 + 8 + 4 + 4 + 1) + shape.ghosts * (8 + 16 + 4) + shape.round_arcs * ROUND_BYTES + push_round_bytes(2, shape.ranks)
}

/// From the vertex with original id `root`; None (on every rank) if it is not a vertex.
pub fn sssp(part: &Part, root: u64) -> Result<Option<DistSssp>> {
    let start = Instant::now();
    let comm = part.comm();
    let before = comm.traffic();
    if !part.weighted() {
        return Err(DistError::Usage(format!("{}: SSSP needs weights; the partitioned store has none", part.dir.display())));
    }
    let owned = part.owned_count() as usize;
    let mut distance = vec![f64::INFINITY; owned];
    let mut parent = vec![UNREACHED; owned];
    let mut active: Vec<u32> = Vec::new();
    if let Some(i) = part.find_owned(root) {
        distance[i as usize] = 0.0;
        parent[i as usize] = root;
        active.push(i);
    }
    if comm.sum(&[active.len() as u64])[0] == 0 {
        return Ok(None);
    }
    let mut queued = vec![false; owned];
    let mut sent = vec![f64::INFINITY; part.ghost_count()];
    let mut offer: Vec<(f64, u64)> = vec![(f64::INFINITY, UNREACHED); part.ghost_count()];
    let (mut supersteps, mut relaxed) = (0u32, 0u64);
    loop {
        supersteps += 1;
        let mut next: Vec<u32> = Vec::new();
        let mut offered: Vec<u32> = Vec::new();
        let mut negative: Option<String> = None;
        // every core reads the active lists; the arcs are relaxed here, in list order
        let places = part.places();
        relaxed += par_rounds(
            part,
            &active,
            true,
            |i, nbrs, weights, out| out.extend(nbrs.iter().zip(weights).map(|(&v, &w)| (i, v as u32, w))),
            |(i, v, w)| {
                // looked up only for an arc that improves a distance
                let from = || places.original.get(part.owned_vertex(i));
                // (Bellman-Ford would not end on a negative cycle)
                if w.is_nan() || w < 0.0 {
                    negative.get_or_insert_with(|| format!("edge {} -> {} has weight {w}", from(), places.original.get(v)));
                    return;
                }
                let d = distance[i as usize] + w as f64;
                match places.place(v) {
                    Place::Owned(j) => {
                        let j = j as usize;
                        if d < distance[j] {
                            distance[j] = d;
                            parent[j] = from();
                            if !queued[j] {
                                queued[j] = true;
                                next.push(j as u32);
                            }
                        }
                    }
                    Place::Ghost(g) => {
                        let g = g as usize;
                        if d < sent[g] && d < offer[g].0 {
                            if offer[g].0 == f64::INFINITY {
                                offered.push(g as u32);
                            }
                            offer[g] = (d, from());
                        }
                    }
                }
            },
        )
        .map_err(|e| DistError::Ingest(e.into()))?;
        agree(
            comm,
            match negative {
                None => Ok(()),
                Some(why) => Err(DistError::Usage(format!("{}: weights must be non-negative for SSSP, and {why}", part.dir.display()))),
            },
        )?;
        let offers = &offer;
        let entry = |k: usize| {
            let (d, from) = offers[offered[k] as usize];
            (offered[k], [d.to_bits(), from])
        };
        part.push_some((0..offered.len()).map(entry), |j, [d, from]| {
            let (j, d) = (j as usize, f64::from_bits(d));
            if d < distance[j] || (d == distance[j] && from < parent[j] && parent[j] != part.owned_id(j as u32)) {
                distance[j] = d;
                parent[j] = from;
                if !queued[j] {
                    queued[j] = true;
                    next.push(j as u32);
                }
            }
        });
        for &g in &offered {
            sent[g as usize] = offer[g as usize].0;
            offer[g as usize] = (f64::INFINITY, UNREACHED);
        }
        for &j in &next {
            queued[j as usize] = false;
        }
        next.sort_unstable();
        active = next;
        if comm.sum(&[active.len() as u64])[0] == 0 {
            break;
        }
    }
    let reached = comm.sum(&[distance.iter().filter(|d| d.is_finite()).count() as u64])[0];
    let arcs_relaxed = comm.sum(&[relaxed])[0];
    let figures = RankFigures::now(part, start, before);
    Ok(Some(DistSssp { distance, parent, supersteps, reached, arcs_relaxed, figures }))
}
