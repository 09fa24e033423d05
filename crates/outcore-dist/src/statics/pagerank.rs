//! PageRank across ranks, with the single-machine semantics of
//! `outcore_algorithms::pagerank` (Graphalytics: synchronous steps from
//! 1/|V|, sinks' rank spread over every vertex, stopping by the same
//! [`Schedule`]). Each iteration a rank reads its part's lists once.
//!
//! - A directed graph pushes: each owned vertex's share goes into its
//!   owned targets and into one sum per ghost, and the ghosts' sums go to
//!   their owners (combined per destination before sending).
//! - An undirected graph pulls (a list is both out- and in-neighbours):
//!   each rank first pulls its ghosts' shares from their owners, then sums
//!   each owned vertex's incoming shares as its list is read. The old and
//!   new ranks are read and written in owned order, so they stream through
//!   a file beside the part (BigSparse's vertex data on the SSD), and a
//!   rank holds one f64 an owned vertex (its share), not two.

use super::{par_rounds_all, RankFigures, ROUND_BYTES};
use crate::error::{DistError, Result};
use crate::part::{ask_round_bytes, push_round_bytes, Part, PartShape, Place};
use outcore_algorithms::pagerank::Schedule;
use outcore_io::{SeqReader, SeqWriter};
use std::time::Instant;

/// Chunks of the rank files' streams: a reader holds two, a writer three.
const RANKS_CHUNK_BYTES: usize = 256 << 10;

pub struct DistPageRank {
    /// Per owned vertex.
    pub rank: Vec<f64>,
    pub iterations: u32,
    /// L1 change of the last iteration, all ranks.
    pub delta: f64,
    pub stopped_by: &'static str,
    pub figures: RankFigures,
}

/// Bytes of state of a part of `shape`. Directed (a push): per owned
/// vertex its rank and next rank (a share and a degree are computed as
/// they are needed, from the rank and the index); per ghost its sum; a
/// round of (place, share) pairs and its vertices, and a round of the
/// sums' exchange (each with its place). Undirected (a pull): per owned
/// vertex its share, per ghost its share; a round's sums (one a list)
/// and its vertices; a round of the pull; the rank files' streams.
pub fn state_bytes(shape: &PartShape) -> u64 {
    if shape.directed {
        shape.owned * (8 + 8) + shape.ghosts * 8 + shape.round_arcs * (ROUND_BYTES + 4) + push_round_bytes(1, shape.ranks)
    } else {
        shape.owned * 8
            + shape.ghosts * 8
            + shape.round_arcs * (ROUND_BYTES + 4)
            + ask_round_bytes(shape.ranks)
            + 5 * RANKS_CHUNK_BYTES as u64
    }
}

pub fn pagerank(part: &Part, schedule: &Schedule) -> Result<DistPageRank> {
    pagerank_with(part, schedule, None)
}

/// [`pagerank`], an undirected graph's rank files in `temp_dir` (default:
/// the part's directory).
pub fn pagerank_with(part: &Part, schedule: &Schedule, temp_dir: Option<&std::path::Path>) -> Result<DistPageRank> {
    let n = part.vertices();
    let run = Run {
        part,
        schedule,
        start: Instant::now(),
        before: part.comm().traffic(),
        n,
        owned: part.owned_count() as usize,
        nf: n.max(1) as f64,
        d: schedule.damping,
        temp_dir: temp_dir.unwrap_or(&part.dir),
    };
    if part.directed() {
        push(&run)
    } else {
        pull(&run)
    }
}

/// What both ways of running share.
struct Run<'a, 'c> {
    part: &'a Part<'c>,
    schedule: &'a Schedule,
    start: Instant,
    before: crate::comm::Traffic,
    /// Vertices of the graph (and as f64, at least 1), owned vertices.
    n: u64,
    owned: usize,
    nf: f64,
    d: f64,
    /// Where an undirected graph's rank files go.
    temp_dir: &'a std::path::Path,
}

impl Run<'_, '_> {
    /// Owned vertex `i`'s degree.
    fn degree(&self, i: usize) -> u64 {
        self.part.graph.degree(self.part.owned_vertex(i as u32) as u64)
    }
    fn result(&self, rank: Vec<f64>, iterations: u32, delta: f64) -> DistPageRank {
        let figures = RankFigures::now(self.part, self.start, self.before);
        DistPageRank { rank, iterations, delta, stopped_by: self.schedule.stopped_by(delta), figures }
    }
}

/// An undirected graph's PageRank by pulling shares (the module's comment).
fn pull(run: &Run) -> Result<DistPageRank> {
    let Run { part, schedule, n, owned, nf, d, .. } = *run;
    let comm = part.comm();
    let degree = |i: usize| run.degree(i);
    if schedule.iterations == 0 || n == 0 {
        return Ok(run.result(vec![1.0 / nf; owned], 0, f64::INFINITY));
    }
    let ingest = |e: outcore_io::IoError| DistError::Ingest(e.into());
    // the rank files: removed when done, on an interrupt, or (killed
    // outright) by the next run here
    let temp = crate::dynamic::agree(comm, outcore_io::TempArea::create(run.temp_dir, "pagerank").map_err(ingest))?;
    crate::dynamic::agree(comm, temp.require_free(2 * 8 * owned as u64, "PageRank's rank files").map_err(ingest))?;
    // `share[i]`: owned vertex i's share of its rank for each neighbour
    // (a sink, which no list names, keeps its rank there)
    let to_share = |i: usize, r: f64, sinks: &mut f64| match degree(i) {
        0 => {
            *sinks += r;
            r
        }
        k => d * r / k as f64,
    };
    let mut sinks = 0.0;
    let mut share: Vec<f64> = (0..owned).map(|i| to_share(i, 1.0 / nf, &mut sinks)).collect();
    let mut ghost_share = vec![0.0f64; part.ghost_count()];
    let mut done = 0u32;
    let mut delta;
    let files = [temp.file("ranks-a"), temp.file("ranks-b")];
    loop {
        let base = (1.0 - d) / nf + d * comm.sum_f64(sinks) / nf;
        part.pull_each(|i| share[i as usize].to_bits(), |g, x| ghost_share[g as usize] = f64::from_bits(x));
        // every core sums lists' shares; each vertex's new rank is written
        // here, in owned order, beside its old one read
        let (old_path, new_path) = (&files[(done as usize + 1) % 2], &files[done as usize % 2]);
        let pass = (|| -> Result<f64> {
            let mut old = if done == 0 { None } else { Some(SeqReader::open(old_path, RANKS_CHUNK_BYTES).map_err(ingest)?) };
            let mut new = SeqWriter::scratch(new_path, RANKS_CHUNK_BYTES).map_err(ingest)?;
            let (mut change, mut failed) = (0.0, None);
            // the vertex being summed (a long list comes in pieces) and the next to write
            let (mut current, mut next) = ((0u32, 0.0f64), 0u32);
            let mut finish = |i: u32, sum: f64, change: &mut f64| -> Result<()> {
                if i != next {
                    return Err(DistError::Corrupt(format!("{}: PageRank summed vertex {i} where {next} was due", part.dir.display())));
                }
                let was = match &mut old {
                    None => 1.0 / nf,
                    Some(r) => next_rank(r, old_path, i as usize)?,
                };
                let now = base + sum;
                *change += (now - was).abs();
                new.write_bytes(&now.to_le_bytes()).map_err(ingest)?;
                next += 1;
                Ok(())
            };
            let (places, shares, ghosts) = (part.places(), &share, &ghost_share);
            par_rounds_all(
                part,
                false,
                |i, nbrs, _, out| {
                    let sum: f64 = nbrs
                        .iter()
                        .map(|&v| match places.place(v as u32) {
                            Place::Owned(j) => shares[j as usize],
                            Place::Ghost(g) => ghosts[g as usize],
                        })
                        .sum();
                    out.push((i, sum))
                },
                |(i, sum)| {
                    if i == current.0 {
                        current.1 += sum;
                    } else if failed.is_none() {
                        if let Err(e) = finish(current.0, current.1, &mut change) {
                            failed = Some(e);
                        }
                        current = (i, sum);
                    }
                },
            )
            .map_err(|e| DistError::Ingest(e.into()))?;
            if let Some(e) = failed {
                return Err(e);
            }
            if owned > 0 {
                finish(current.0, current.1, &mut change)?;
            }
            new.finish().map_err(ingest)?;
            Ok(change)
        })();
        delta = comm.sum_f64(crate::dynamic::agree(comm, pass)?);
        done += 1;
        let stop = done >= schedule.iterations || schedule.tolerance.is_some_and(|t| delta < t);
        // the new ranks back: as shares for the next iteration, or the result
        sinks = 0.0;
        let back = (|| -> Result<()> {
            let mut ranks = SeqReader::open(new_path, RANKS_CHUNK_BYTES).map_err(ingest)?;
            for i in 0..owned {
                let r = next_rank(&mut ranks, new_path, i)?;
                share[i] = if stop { r } else { to_share(i, r, &mut sinks) };
            }
            Ok(())
        })();
        crate::dynamic::agree(comm, back)?;
        if stop {
            break;
        }
    }
    drop(temp);
    Ok(run.result(share, done, delta))
}

/// Owned vertex `i`'s rank, the next in a rank file at `path`.
fn next_rank(ranks: &mut SeqReader, path: &std::path::Path, i: usize) -> Result<f64> {
    match ranks.next_word::<8>().map_err(|e| DistError::Ingest(e.into()))? {
        Some(word) => Ok(f64::from_le_bytes(word)),
        None => Err(DistError::Corrupt(format!("{}: ends before owned vertex {i}", path.display()))),
    }
}

/// A directed graph's PageRank by pushing shares (the module's comment).
fn push(run: &Run) -> Result<DistPageRank> {
    let Run { part, schedule, n, owned, nf, d, .. } = *run;
    let comm = part.comm();
    let degree = |i: usize| run.degree(i);
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
    Ok(run.result(rank, done, delta))
}
