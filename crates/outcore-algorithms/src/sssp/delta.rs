//! Delta-stepping (Meyer and Sanders, J. Algorithms 2003) on the traverse
//! engine, on every core. Tentative distances fall into buckets of width
//! delta; the lowest non-empty bucket is settled in rounds: its vertices'
//! lists and weights are read in id order on every core
//! ([`Traverse::par_weighted_lists`], a reader and a run-ahead per piece),
//! the relaxations they offer are applied in that order by one thread, and
//! the vertices whose distance dropped into the bucket make the next
//! round. (Every edge is relaxed in each round, light or heavy: Meyer and
//! Sanders' split saves re-relaxing heavy edges, not memory.)
//!
//! Memory: distance (8 bytes), parent (4) and the round's list (4) per
//! vertex, two bitmaps (tentative, in the next round), and a round's
//! relaxations (at most 2^18 arcs, 24 bytes each). No bucket lists: the
//! next bucket is found by a parallel scan of the tentative vertices, so
//! nothing grows with the number of relaxations.
//!
//! Distances equal Dijkstra's exactly (each is the least of the same
//! sums, d(u) + w); a parent is the first vertex, in id order within the
//! round that set it, to offer the final distance, whatever the threads.

use super::dijkstra::ShortestPaths;
use crate::bfs::top_down::{round_end, ROUND_ARCS};
use crate::bfs::{check_ids, NONE};
use outcore_engines::Traverse;
use outcore_io::{bitmap_bytes, Bitmap, Budget};
use outcore_store::StoreError;
use rayon::prelude::*;

/// What reading a list offers: a shorter distance for `v` through `u`, or
/// an edge whose weight SSSP cannot take.
enum Offer {
    Shorter { v: u32, u: u32, dist: f64 },
    Invalid { v: u32, u: u32, weight: f32 },
}

/// Memory of [`sssp_delta`] for `n` vertices and `arcs` arcs: distances (8 bytes a
/// vertex), parents, the round and the next (4 each) and the round being
/// gathered (4), two bitmaps, and a round's offers: at most one per arc
/// of the round ([`ROUND_ARCS`], whatever the vertex count: a vertex
/// offered a shorter path by several lists gets each; nor more than the
/// graph's arcs), in per-piece
/// vectors that may hold twice their offers' bytes as they grow.
pub fn state_bytes(n: u64, arcs: u64) -> u64 {
    n * 24 + 2 * bitmap_bytes(n) + 2 * ROUND_ARCS.min(arcs) * std::mem::size_of::<Offer>() as u64
}

/// Shortest paths from `root` by delta-stepping with buckets of width
/// `delta` (by default the mean weight of the root's edges). A negative or
/// NaN weight met on the way is an error naming the edge.
pub fn sssp_delta(g: &Traverse, root: u64, delta: Option<f64>, budget: &Budget) -> Result<(ShortestPaths, f64), StoreError> {
    let n = g.vertices();
    check_ids(n, root)?;
    if !g.weighted() {
        return Err(StoreError::NoWeights { store: "the store".into(), reader: "SSSP".into() });
    }
    let charge = budget.reserve("delta-stepping distances, parents, rounds and bitmaps", state_bytes(n, g.arcs()))?;
    let delta = match delta {
        Some(d) if d > 0.0 && d.is_finite() => d,
        Some(d) => return Err(StoreError::parameter("delta", format!("must be a positive number, not {d}"))),
        None => {
            let mut weights = Vec::new();
            g.reader().weights(root, &mut weights)?;
            let mean = weights.iter().map(|&w| w as f64).sum::<f64>() / weights.len().max(1) as f64;
            if mean > 0.0 && mean.is_finite() {
                mean
            } else {
                1.0
            }
        }
    };
    let mut dist = vec![f64::INFINITY; n as usize];
    let mut parent = vec![NONE; n as usize];
    let (mut tentative, mut queued) = (Bitmap::new(n), Bitmap::new(n));
    dist[root as usize] = 0.0;
    parent[root as usize] = root as u32;
    tentative.set(root);
    let (mut round, mut next): (Vec<u32>, Vec<u32>) = (Vec::new(), Vec::new());
    let (mut arcs, mut buckets) = (0u64, 0u64);
    while let Some(bucket) = lowest_bucket(&tentative, &dist, delta) {
        buckets += 1;
        members(&tentative, &dist, delta, bucket, &mut round);
        while !round.is_empty() {
            for &v in &round {
                tentative.unset(v as u64);
            }
            next.clear();
            let mut at = 0;
            while at < round.len() {
                let stop = round_end(g, &round, at, round.len());
                let d = &dist;
                let (offers, read) = g.par_weighted_lists(&round[at..stop], |u, list, weights, offers: &mut Vec<Offer>| {
                    let du = d[u as usize];
                    for (&v, &w) in list.iter().zip(weights) {
                        if w < 0.0 || w.is_nan() {
                            offers.push(Offer::Invalid { v: v as u32, u, weight: w });
                        } else if du + (w as f64) < d[v as usize] {
                            offers.push(Offer::Shorter { v: v as u32, u, dist: du + w as f64 });
                        }
                    }
                })?;
                arcs += read;
                for offer in offers.into_iter().flatten() {
                    match offer {
                        Offer::Invalid { v, u, weight } => {
                            return Err(StoreError::parameter(
                                "weights",
                                format!("must be non-negative for SSSP, and edge {u} -> {v} (dense ids) has weight {weight}"),
                            ))
                        }
                        Offer::Shorter { v, u, dist: nd } if nd < dist[v as usize] => {
                            dist[v as usize] = nd;
                            parent[v as usize] = u;
                            tentative.set(v as u64);
                            if bucket_of(nd, delta) == bucket && !queued.get(v as u64) {
                                queued.set(v as u64);
                                next.push(v);
                            }
                        }
                        Offer::Shorter { .. } => {}
                    }
                }
                at = stop;
            }
            // the next round in id order: its blocks in file order
            next.sort_unstable();
            for &v in &next {
                queued.unset(v as u64);
            }
            std::mem::swap(&mut round, &mut next);
        }
    }
    let reached = dist.par_iter().filter(|d| d.is_finite()).count() as u64;
    Ok((ShortestPaths::from_parts(root, dist, parent, reached, arcs, charge).with_buckets(buckets), delta))
}

/// The bucket of width `delta` a distance falls in. Membership is decided by
/// this one quotient everywhere: `d < (b + 1) * delta` is not the same test
/// (the product can round down to `d` while the quotient rounds below
/// `b + 1`: 4405 / (881 / 3) is 14.999..., yet 15 * (881 / 3) is 4405), and
/// mixing the two left such a vertex in no round of its own bucket, forever.
fn bucket_of(d: f64, delta: f64) -> u64 {
    (d / delta) as u64
}

/// The lowest bucket holding a tentative vertex, on every core.
fn lowest_bucket(tentative: &Bitmap, dist: &[f64], delta: f64) -> Option<u64> {
    tentative
        .words()
        .par_iter()
        .enumerate()
        .filter(|(_, &w)| w != 0)
        .filter_map(|(i, &w)| bits(w).map(|b| bucket_of(dist[i * 64 + b], delta)).min())
        .min()
}

/// The tentative vertices in `bucket` (none is in a lower one), ascending, into `out`.
fn members(tentative: &Bitmap, dist: &[f64], delta: f64, bucket: u64, out: &mut Vec<u32>) {
    const WORDS: usize = 1024;
    out.clear();
    let found: Vec<Vec<u32>> = tentative
        .words()
        .par_chunks(WORDS)
        .enumerate()
        .map(|(c, words)| {
            let mut found = Vec::new();
            for (i, &w) in words.iter().enumerate() {
                let base = (c * WORDS + i) * 64;
                found.extend(bits(w).map(|b| base + b).filter(|&v| bucket_of(dist[v], delta) == bucket).map(|v| v as u32));
            }
            found
        })
        .collect();
    for f in found {
        out.extend_from_slice(&f);
    }
}

/// The positions of the set bits of `w`, ascending.
fn bits(mut w: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (w != 0).then(|| {
            let b = w.trailing_zeros() as usize;
            w &= w - 1;
            b
        })
    })
}
