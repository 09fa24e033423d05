//! Weakly connected components by label propagation, the form the
//! streaming engines run (G-Store section II; Graphalytics WCC): every
//! vertex starts with its own id, and each tuple (u, v) lowers the larger
//! label of its two endpoints to the smaller, direction ignored, until an
//! iteration changes nothing. Labels end as the smallest id of each
//! component, which internal ids share with the original ids (relabelling
//! keeps their order).
//!
//! On tiles the labels are updated in place and an iteration reads only the
//! tiles with a row or column span that changed in the previous one. On
//! intervals each vertex takes the minimum over its in- and out-lists. On
//! sort-reduce, vertices whose label dropped push it along both lists;
//! updates reduce by min and a vertex is active when its label drops.

use crate::analytics::{
    choose, interval_layouts, open_sortreduce, open_stream, AnalyticsOptions, Engine, EngineReport, SpanFlags, U64Cells, VertexResult,
};
use outcore_engines::sortreduce::Program;
use outcore_engines::{IntervalEngine, IntervalProgram, NeighbourList, TileEdges, TileProgram, Values};
use outcore_io::Budget;
use outcore_store::{Store, StoreError};

pub struct WccResult {
    pub labels: VertexResult<u64>,
    pub iterations: u32,
    pub report: EngineReport,
}

/// Memory of the tile regime: one label a vertex.
pub fn state_bytes(n: u64) -> u64 {
    n * 8
}

struct TileMin<'a> {
    labels: &'a U64Cells,
    /// Spans that changed last iteration (tiles touching them are needed).
    changed: &'a SpanFlags,
    /// Spans changed so far this iteration.
    changing: &'a SpanFlags,
}

impl TileProgram for TileMin<'_> {
    fn reverse(&self) -> bool {
        true
    }
    fn needed(&self, i: u32, j: u32) -> bool {
        self.changed.get(i) || self.changed.get(j)
    }
    fn keep(&self, i: u32, j: u32) -> bool {
        self.changing.get(i) || self.changing.get(j)
    }
    fn forward(&self, t: &TileEdges) {
        let (s0, t0) = (t.source_base as usize, t.target_base as usize);
        let mut changed = false;
        for &[ls, lt] in t.edges {
            let (u, v) = (s0 + ls as usize, t0 + lt as usize);
            let l = self.labels.get(u);
            if l < self.labels.get(v) {
                self.labels.set(v, l);
                changed = true;
            }
        }
        if changed {
            self.changing.set(t.j);
        }
    }
    fn backward(&self, t: &TileEdges) {
        let (s0, t0) = (t.source_base as usize, t.target_base as usize);
        let mut changed = false;
        for &[ls, lt] in t.edges {
            let (u, v) = (s0 + ls as usize, t0 + lt as usize);
            let l = self.labels.get(v);
            if l < self.labels.get(u) {
                self.labels.set(u, l);
                changed = true;
            }
        }
        if changed {
            self.changing.set(t.i);
        }
    }
}

struct IntervalMin;

impl IntervalProgram for IntervalMin {
    type Value = u64;
    fn gather(&self, v: u64, _: u64, lists: &[NeighbourList], values: &Values<u64>) -> u64 {
        lists.iter().flat_map(|l| l.ids.iter()).fold(values.get(v), |m, &u| m.min(values.get(u)))
    }
}

pub fn wcc(store: &Store, budget: &Budget, opts: &AnalyticsOptions) -> Result<WccResult, StoreError> {
    let n = store.vertices();
    let structure = interval_layouts(store, true);
    let (engine, reason) = choose(store, budget, opts, state_bytes(n), false, &structure)?;
    if engine == Engine::SortReduce {
        let mut e = open_sortreduce(store, &structure, 8, budget, opts)?;
        let labels = e.values(|v| v)?;
        let mut log = e.step(&PushMin, &labels, None)?;
        let mut iterations = 1;
        while !log.is_empty() {
            log = e.step(&PushMin, &labels, Some(log))?;
            iterations += 1;
        }
        log.remove();
        let mut report = EngineReport::new(engine, reason);
        report.sortreduce = Some(e.stats().clone());
        return Ok(WccResult { labels: VertexResult::External { engine: Box::new(e), values: labels }, iterations, report });
    }
    if engine == Engine::Interval {
        let mut e = IntervalEngine::open(store, &structure, false, budget, &opts.interval, |v, _| v)?;
        let mut iterations = 0;
        loop {
            let mut changes = 0u64;
            e.iterate(&IntervalMin, |_, _, old, new| changes += (old != new) as u64)?;
            iterations += 1;
            if changes == 0 {
                break;
            }
        }
        let report = EngineReport { engine, reason, stream: None, interval: Some(e.stats().clone()), sortreduce: None };
        return Ok(WccResult { labels: VertexResult::Intervals { engine: Box::new(e), scale_by_degree: None }, iterations, report });
    }
    let _charge = budget.reserve("WCC labels", state_bytes(n))?;
    let mut stream = open_stream(store, budget, engine, false, opts)?;
    let spans = stream.record_ref().spans as usize;
    let labels = U64Cells::from_fn(n as usize, |v| v as u64);
    let mut changed = SpanFlags::new(spans, true);
    let mut changing = SpanFlags::new(spans, false);
    let mut iterations = 0;
    while changed.any() {
        stream.iterate(&TileMin { labels: &labels, changed: &changed, changing: &changing })?;
        iterations += 1;
        std::mem::swap(&mut changed, &mut changing);
        changing.clear();
    }
    let report = EngineReport { engine, reason, stream: Some(stream.stats().clone()), interval: None, sortreduce: None };
    Ok(WccResult { labels: VertexResult::Memory(labels.into_vec()), iterations, report })
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
