//! CDLP on intervals (VENUS): each vertex sorts the labels of its own
//! in- and out-lists and takes the mode.

use super::{mode, Communities};
use crate::needs::{interval_layouts, EngineStats};
use crate::run::Context;
use crate::values::VertexValues;
use outcore_engines::{IntervalEngine, IntervalProgram, NeighbourList, Values};
use outcore_store::StoreError;
use std::cell::RefCell;

struct IntervalMode;

thread_local! {
    static SCRATCH: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

impl IntervalProgram for IntervalMode {
    type Value = u64;
    fn gather(&self, v: u64, _: u64, lists: &[NeighbourList], values: &Values<u64>) -> u64 {
        SCRATCH.with(|s| {
            let mut s = s.borrow_mut();
            s.clear();
            s.extend(lists.iter().flat_map(|l| l.ids.iter()).map(|&u| values.get(u)));
            mode(&mut s).unwrap_or_else(|| values.get(v))
        })
    }
}

pub fn cdlp(cx: &Context, iterations: u32) -> Result<Communities, StoreError> {
    let structure = interval_layouts(cx.store, true);
    let mut e = IntervalEngine::open(cx.store, structure, false, cx.budget, &cx.interval_options(), |v, _| v)?;
    cx.progress().begin("cdlp", iterations as u64, false);
    for iteration in 0..iterations {
        e.iterate(&IntervalMode, |_, _, _, _| {})?;
        cx.progress().set(iteration as u64 + 1);
    }
    cx.progress().end();
    let stats = EngineStats::Interval(e.stats().clone());
    Ok(Communities {
        labels: Box::new(VertexValues::Intervals { engine: Box::new(e), scale_by_degree: None }),
        bands: 0,
        band_bytes: None,
        stats,
    })
}
