//! PageRank on tiles (G-Store): contributions, next ranks and out-degrees
//! in memory (20 bytes a vertex); each tuple (u, v) pushes u's contribution
//! to v, and back from v to u on an undirected store's upper triangle.

use super::{Ranks, Schedule};
use crate::cells::F64Cells;
use crate::needs::{open_stream, EngineStats};
use crate::run::Context;
use crate::values::Held;
use outcore_engines::{TileEdges, TileProgram};
use outcore_store::StoreError;

struct TilePush<'a> {
    contribution: &'a [f64],
    next: &'a F64Cells,
    undirected: bool,
}

impl TileProgram for TilePush<'_> {
    fn reverse(&self) -> bool {
        self.undirected
    }
    fn forward(&self, t: &TileEdges) {
        let (s0, t0) = (t.source_base as usize, t.target_base as usize);
        for &[ls, lt] in t.edges {
            self.next.add(t0 + lt as usize, self.contribution[s0 + ls as usize]);
        }
    }
    fn backward(&self, t: &TileEdges) {
        // Tuples come sorted by source: sum each source's run in a register,
        // and prefetch the (cold, random) contributions of the target span ahead.
        let (s0, t0) = (t.source_base as usize, t.target_base as usize);
        let edges = t.edges;
        let (mut run_source, mut sum) = (usize::MAX, 0.0);
        for (k, &[ls, lt]) in edges.iter().enumerate() {
            if let Some(&[_, ahead]) = edges.get(k + PREFETCH_AHEAD) {
                outcore_io::prefetch(self.contribution, t0 + ahead as usize);
            }
            let (u, v) = (s0 + ls as usize, t0 + lt as usize);
            if u != run_source {
                if run_source != usize::MAX {
                    self.next.add(run_source, sum);
                }
                (run_source, sum) = (u, 0.0);
            }
            if u != v {
                sum += self.contribution[v];
            }
        }
        if run_source != usize::MAX {
            self.next.add(run_source, sum);
        }
    }
}

/// Edges the backward pass prefetches ahead.
const PREFETCH_AHEAD: usize = 24;

pub fn pagerank(cx: &Context, pr: &Schedule) -> Result<Ranks, StoreError> {
    let store = cx.store;
    let n = store.vertices();
    let charge = cx.budget.reserve("PageRank ranks, contributions and out-degrees", super::state_bytes(n))?;
    let mut stream = open_stream(cx, false)?;
    let undirected = stream.record_ref().upper_triangle;
    let mut degree = vec![0u32; n as usize];
    store.layout("out")?.for_each_degree(|v, d| degree[v as usize] = d.min(u32::MAX as u64) as u32)?;
    let (d, nf) = (pr.damping, n as f64);
    // contribution[v] = PR(v) / outdeg(v), or PR(v) itself for a sink
    let share = |rank: f64, deg: u32| if deg == 0 { rank } else { rank / deg as f64 };
    let mut contribution: Vec<f64> = degree.iter().map(|&g| share(1.0 / nf, g)).collect();
    let mut sinks: f64 = degree.iter().filter(|&&g| g == 0).count() as f64 / nf;
    let mut next = F64Cells::new(n as usize, 0.0);
    let (mut done, mut delta) = (0, f64::INFINITY);
    cx.progress().begin("pagerank", pr.iterations as u64, false);
    while done < pr.iterations {
        next.fill(0.0);
        stream.iterate(&TilePush { contribution: &contribution, next: &next, undirected })?;
        let base = (1.0 - d) / nf + d * sinks / nf;
        (delta, sinks) = (0.0, 0.0);
        let last = done + 1 == pr.iterations;
        for (v, c) in contribution.iter_mut().enumerate() {
            let (x, g) = (base + d * next.get(v), degree[v]);
            next.set(v, x);
            let old = if g == 0 { *c } else { *c * g as f64 };
            delta += (x - old).abs();
            if g == 0 {
                sinks += x;
            }
            if !last {
                *c = share(x, g);
            }
        }
        done += 1;
        cx.progress().set(done as u64);
        if pr.converged(delta) {
            break;
        }
    }
    cx.progress().end();
    drop(contribution);
    Ok(Ranks {
        rank: Box::new(Held { values: next.into_vec(), charge }),
        iterations: done,
        delta,
        stats: EngineStats::Stream(stream.stats().clone()),
    })
}
