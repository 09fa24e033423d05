//! PageRank on sort-reduce (BigSparse section 5.2): each vertex pushes
//! PR(u)/outdeg(u) along its out-edges, updates are summed, and finalize
//! applies the damping and the sinks' share lazily, as the next iteration
//! reads the ranks.

use super::{Ranks, Schedule};
use crate::cells::AtomicSum;
use crate::needs::{open_sortreduce, EngineStats};
use crate::run::Context;
use crate::values::VertexValues;
use outcore_engines::sortreduce::Program;
use outcore_store::StoreError;

/// PageRank as a sort-reduce program: the state is PR(v).
struct PushRank {
    damping: f64,
    /// (1-d)/|V| + d * (sinks' rank)/|V| of the previous iteration.
    base: f64,
    /// Rank of the sinks among the vertices read this superstep.
    sinks: AtomicSum,
    /// L1 change of the ranks finalized this superstep.
    change: AtomicSum,
}

impl Program for PushRank {
    type State = f64;
    type Update = f64;
    const FINALIZE_ALL: bool = true;
    fn visit(&self, _u: u64, rank: &f64, degree: u64) {
        if degree == 0 {
            self.sinks.add(*rank);
        }
    }
    fn edge(&self, _u: u64, rank: &f64, degree: u64, _v: u64, _w: f32) -> Option<f64> {
        Some(rank / degree as f64)
    }
    fn reduce(&self, a: f64, b: f64) -> f64 {
        a + b
    }
    fn finalize(&self, _v: u64, old: f64, sum: Option<f64>) -> f64 {
        let new = self.base + self.damping * sum.unwrap_or(0.0);
        self.change.add((new - old).abs());
        new
    }
    fn is_active(&self, _v: u64, _old: &f64, _new: &f64) -> bool {
        true
    }
}

pub fn pagerank(cx: &Context, pr: &Schedule) -> Result<Ranks, StoreError> {
    let n = cx.store.vertices();
    let nf = n as f64;
    let mut engine = open_sortreduce(cx, &["out"], 8)?;
    let values = engine.values(|_| 1.0 / nf)?;
    let program = |base| PushRank { damping: pr.damping, base, sinks: AtomicSum::default(), change: AtomicSum::default() };
    let (mut done, mut delta) = (0, f64::INFINITY);
    let mut current = program(0.0);
    let mut log = None;
    cx.progress().begin("pagerank", pr.iterations as u64, false);
    while done < pr.iterations {
        // finalizes the ranks of iteration `done` (from the last log) while pushing them
        let next = engine.step(&current, &values, log.take())?;
        if done > 0 {
            delta = current.change.get();
            if pr.converged(delta) {
                next.remove();
                break;
            }
        }
        log = Some(next);
        current = program((1.0 - pr.damping) / nf + pr.damping * current.sinks.get() / nf);
        done += 1;
        cx.progress().set(done as u64);
    }
    cx.progress().end();
    if let Some(log) = log {
        engine.finish(&current, &values, log)?;
        delta = current.change.get();
    }
    let stats = EngineStats::SortReduce(engine.stats().clone(), 8);
    Ok(Ranks { rank: Box::new(VertexValues::external(engine, values)), iterations: done, delta, stats })
}
