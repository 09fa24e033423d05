//! WCC by label propagation on intervals (VENUS): each vertex takes the
//! minimum over its in- and out-lists, until an iteration changes nothing.

use super::Labels;
use crate::needs::{interval_layouts, EngineStats};
use crate::run::Context;
use crate::values::VertexValues;
use outcore_engines::{IntervalEngine, IntervalProgram, NeighbourList, Values};
use outcore_store::StoreError;

struct IntervalMin;

impl IntervalProgram for IntervalMin {
    type Value = u64;
    fn gather(&self, v: u64, _: u64, lists: &[NeighbourList], values: &Values<u64>) -> u64 {
        lists.iter().flat_map(|l| l.ids.iter()).fold(values.get(v), |m, &u| m.min(values.get(u)))
    }
}

pub fn wcc(cx: &Context) -> Result<Labels, StoreError> {
    let structure = interval_layouts(cx.store, true);
    let mut e = IntervalEngine::open(cx.store, structure, false, cx.budget, &cx.interval_options(), |v, _| v)?;
    let mut iterations = 0;
    loop {
        let mut changes = 0u64;
        e.iterate(&IntervalMin, |_, _, old, new| changes += (old != new) as u64)?;
        iterations += 1;
        if changes == 0 {
            break;
        }
    }
    let stats = Some(EngineStats::Interval(e.stats().clone()));
    Ok(Labels { labels: Box::new(VertexValues::Intervals { engine: Box::new(e), scale_by_degree: None }), iterations, stats })
}
