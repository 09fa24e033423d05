//! WCC by label propagation on sort-reduce (BigSparse): vertices whose
//! label dropped push it along both lists; updates reduce by min and a
//! vertex is active when its label drops.

use super::Labels;
use crate::needs::{interval_layouts, open_sortreduce, EngineStats};
use crate::run::Context;
use crate::values::VertexValues;
use outcore_engines::sortreduce::Program;
use outcore_store::StoreError;

pub fn wcc(cx: &Context) -> Result<Labels, StoreError> {
    let structure = interval_layouts(cx.store, true);
    let mut e = open_sortreduce(cx, structure, 8)?;
    let labels = e.values(|v| v)?;
    let mut log = e.step(&PushMin, &labels, None)?;
    let mut iterations = 1;
    while !log.is_empty() {
        log = e.step(&PushMin, &labels, Some(log))?;
        iterations += 1;
    }
    log.remove();
    let stats = Some(EngineStats::SortReduce(e.stats().clone(), 8));
    Ok(Labels { labels: Box::new(VertexValues::external(e, labels)), iterations, stats })
}

/// Min-label propagation as a sort-reduce program.
struct PushMin;

impl Program for PushMin {
    type State = u64;
    type Update = u64;
    fn edge(&self, _u: u64, label: &u64, _degree: u64, _v: u64, _w: f32) -> Option<u64> {
        Some(*label)
    }
    fn reduce(&self, a: u64, b: u64) -> u64 {
        a.min(b)
    }
    fn finalize(&self, _v: u64, old: u64, label: Option<u64>) -> u64 {
        label.map_or(old, |l| l.min(old))
    }
    fn is_active(&self, _v: u64, old: &u64, new: &u64) -> bool {
        new < old
    }
}
