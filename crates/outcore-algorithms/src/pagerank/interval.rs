//! PageRank on intervals (VENUS): the value table holds PR(v)/outdeg(v)
//! (PR(v) for sinks), and each vertex sums its in-neighbours' values.

use super::{Ranks, Schedule};
use crate::needs::{interval_layouts, EngineStats};
use crate::run::Context;
use crate::values::VertexValues;
use outcore_engines::{IntervalEngine, IntervalProgram, NeighbourList, Values};
use outcore_store::StoreError;

struct IntervalPull {
    damping: f64,
    base: f64,
}

impl IntervalProgram for IntervalPull {
    type Value = f64;
    fn gather(&self, _v: u64, out_degree: u64, lists: &[NeighbourList], values: &Values<f64>) -> f64 {
        let sum = values.sum(lists[0].ids);
        let rank = self.base + self.damping * sum;
        if out_degree > 0 {
            rank / out_degree as f64
        } else {
            rank
        }
    }
}

pub fn pagerank(cx: &Context, pr: &Schedule) -> Result<Ranks, StoreError> {
    let store = cx.store;
    let n = store.vertices();
    let nf = n as f64;
    let mut sinks = 0.0;
    let structure = interval_layouts(store, false);
    let mut engine = IntervalEngine::open(store, structure, true, cx.budget, &cx.interval_options(), |_, deg| {
        if deg > 0 {
            1.0 / nf / deg as f64
        } else {
            sinks += 1.0 / nf;
            1.0 / nf
        }
    })?;
    let (mut done, mut delta) = (0, f64::INFINITY);
    cx.progress().begin("pagerank", pr.iterations as u64, false);
    while done < pr.iterations {
        let program = IntervalPull { damping: pr.damping, base: (1.0 - pr.damping) / nf + pr.damping * sinks / nf };
        let (mut next_sinks, mut change) = (0.0, 0.0);
        engine.iterate(&program, |_, deg, old, new| {
            if deg == 0 {
                next_sinks += new;
                change += (new - old).abs();
            } else {
                change += (new - old).abs() * deg as f64;
            }
        })?;
        sinks = next_sinks;
        delta = change;
        done += 1;
        cx.progress().set(done as u64);
        if pr.converged(delta) {
            break;
        }
    }
    cx.progress().end();
    let stats = EngineStats::Interval(engine.stats().clone());
    let rank = Box::new(VertexValues::Intervals { engine: Box::new(engine), scale_by_degree: Some(Box::new(store.layout("out")?)) });
    Ok(Ranks { rank, iterations: done, delta, stats })
}
