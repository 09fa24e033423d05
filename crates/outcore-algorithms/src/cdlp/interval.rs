//! CDLP on intervals (VENUS): each vertex sorts the labels of its own
//! in- and out-lists and takes the mode.

use super::{mode, Communities};
use crate::needs::{interval_layouts, EngineStats};
use crate::run::Context;
use crate::values::VertexValues;
use outcore_engines::{IntervalEngine, IntervalProgram, NeighbourList, Values};
use outcore_store::{Store, StoreError};
use std::sync::Mutex;

/// One vertex's neighbour labels, a vector for each thread of the pool,
/// each as long as the longest lists of the layouts together: they never
/// grow.
struct IntervalMode {
    scratch: Vec<Mutex<Vec<u64>>>,
}

impl IntervalProgram for IntervalMode {
    type Value = u64;
    fn gather(&self, v: u64, _: u64, lists: &[NeighbourList], values: &Values<u64>) -> u64 {
        let thread = rayon::current_thread_index().unwrap_or(0) % self.scratch.len();
        let mut s = self.scratch[thread].lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        s.clear();
        s.extend(lists.iter().flat_map(|l| l.ids.iter()).map(|&u| values.get(u)));
        mode(&mut s).unwrap_or_else(|| values.get(v))
    }
}

/// The threads' neighbour labels ([`IntervalMode`]).
pub fn scratch_bytes(store: &Store) -> Result<u64, StoreError> {
    let longest = outcore_engines::interval::longest_lists(store, interval_layouts(store, true))?;
    Ok(rayon::current_num_threads() as u64 * 8 * longest)
}

pub fn cdlp(cx: &Context, iterations: u32) -> Result<Communities, StoreError> {
    let structure = interval_layouts(cx.store, true);
    let bytes = scratch_bytes(cx.store)?;
    let _scratch = cx.budget.reserve("CDLP neighbour labels of one vertex a thread", bytes)?;
    let threads = rayon::current_num_threads().max(1);
    let program = IntervalMode { scratch: (0..threads).map(|_| Mutex::new(Vec::with_capacity((bytes / 8) as usize / threads))).collect() };
    let mut e = IntervalEngine::open(cx.store, structure, false, cx.budget, &cx.interval_options(), |v, _| v)?;
    cx.progress().begin("cdlp", iterations as u64, false);
    for iteration in 0..iterations {
        e.iterate(&program, |_, _, _, _| {})?;
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
