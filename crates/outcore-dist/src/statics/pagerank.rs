//! PageRank across ranks, with the single-machine semantics of
//! `outcore_algorithms::pagerank` (Graphalytics: synchronous steps from
//! 1/|V|, sinks' rank spread over every vertex, stopping by the same
//! [`Schedule`]). Each iteration a rank reads its part's lists once, adds
//! each owned vertex's share into its owned targets and into one sum per
//! ghost, and sends the ghosts' sums to their owners in ghost order (one
//! all-to-all, no ids: the combining per destination of the issue).

use super::{par_rounds_all, RankFigures, ROUND_BYTES};
use crate::error::{DistError, Result};
use crate::part::{push_round_bytes, Part, PartShape, Place};
use outcore_algorithms::pagerank::Schedule;
use std::time::Instant;

pub struct DistPageRank {
    /// Per owned vertex.
    pub rank: Vec<f64>,
    pub iterations: u32,
    /// L1 change of the last iteration, all ranks.
    pub delta: f64,
    pub stopped_by: &'static str,
    pub figures: RankFigures,
}

/// Bytes of state of a part of `shape`: per owned vertex its rank and
/// next rank (a share and a degree are computed as they are needed, from
/// the rank and the index); per ghost its sum; a round of (place, share)
/// pairs and its vertices, and a round of the sums' exchange (each with its place).
pub fn state_bytes(shape: &PartShape) -> u64 {
    shape.owned * (8 + 8) + shape.ghosts * 8 + shape.round_arcs * (ROUND_BYTES + 4) + push_round_bytes(1, shape.ranks)
}

pub fn pagerank(part: &Part, schedule: &Schedule) -> Result<DistPageRank> {
    let start = Instant::now();
    let comm = part.comm();
    let before = comm.traffic();
    let n = part.vertices();
    let owned = part.owned_count() as usize;
    let degree = |i: usize| part.graph.degree(part.owned_vertex(i as u32) as u64);
    let nf = n.max(1) as f64;
    let d = schedule.damping;
    let mut rank = vec![1.0 / nf; owned];
    let (mut done, mut delta) = (0u32, f64::INFINITY);
    let mut ghost_sum = vec![0.0f64; part.ghost_count()];
    while done < schedule.iterations && n > 0 {
        let sinks = comm.sum_f64((0..owned).filter(|&i| degree(i) == 0).map(|i| rank[i]).sum());
        let base = (1.0 - d) / nf + d * sinks / nf;
        let mut next = vec![0.0f64; owned];
        ghost_sum.iter_mut().for_each(|x| *x = 0.0);
        // every core reads lists and places each out-neighbour, each
        // vertex's share of its rank going to each; the sums are added
        // here, in list order
        let (places, now, graph) = (part.places(), &rank, &part.graph);
        par_rounds_all(
            part,
            false,
            // (a long list comes in pieces: the share is of its whole degree)
            |i, nbrs, _, out| {
                let share = d * now[i as usize] / graph.degree(places.owned_vertex(i) as u64) as f64;
                out.extend(nbrs.iter().map(|&v| (places.place(v as u32), share)))
            },
            |(place, share)| match place {
                Place::Owned(j) => next[j as usize] += share,
                Place::Ghost(g) => ghost_sum[g as usize] += share,
            },
        )
        .map_err(|e| DistError::Ingest(e.into()))?;
        part.push_all(|g| ghost_sum[g as usize].to_bits(), |j, x| next[j as usize] += f64::from_bits(x));
        let mut change = 0.0;
        for (r, x) in rank.iter_mut().zip(&next) {
            let v = base + x;
            change += (v - *r).abs();
            *r = v;
        }
        delta = comm.sum_f64(change);
        done += 1;
        if schedule.tolerance.is_some_and(|t| delta < t) {
            break;
        }
    }
    let figures = RankFigures::now(part, start, before);
    Ok(DistPageRank { rank, iterations: done, delta, stopped_by: schedule.stopped_by(delta), figures })
}
