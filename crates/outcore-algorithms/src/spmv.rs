//! Sparse matrix-vector product y = A^T x over the adjacency matrix A
//! (a_uv = the weight of u -> v, or 1): y(v) = sum_{u->v} a_uv x(u); an
//! undirected store's matrix is symmetric. On tiles x and y stay in memory
//! and each tuple adds along both directions when undirected; on intervals
//! x is the value table and each vertex sums over its in-list.

use crate::analytics::{
    choose, interval_layouts, open_stream, without_sortreduce, AnalyticsOptions, Engine, EngineReport, F64Cells, VertexResult,
};
use outcore_engines::{IntervalEngine, IntervalProgram, NeighbourList, TileEdges, TileProgram, Values};
use outcore_io::Budget;
use outcore_store::{Store, StoreError};

pub struct SpmvResult {
    pub y: VertexResult<f64>,
    pub report: EngineReport,
}

/// Memory of the tile regime: x and y.
pub fn state_bytes(n: u64) -> u64 {
    n * 16
}

struct TileProduct<'a> {
    x: &'a [f64],
    y: &'a F64Cells,
    undirected: bool,
    weighted: bool,
}

impl TileProgram for TileProduct<'_> {
    fn reverse(&self) -> bool {
        self.undirected
    }
    fn weights(&self) -> bool {
        self.weighted
    }
    fn forward(&self, t: &TileEdges) {
        let (s0, t0) = (t.source_base as usize, t.target_base as usize);
        for (k, &[ls, lt]) in t.edges.iter().enumerate() {
            let w = t.weights.get(k).map_or(1.0, |&w| w as f64);
            self.y.add(t0 + lt as usize, w * self.x[s0 + ls as usize]);
        }
    }
    fn backward(&self, t: &TileEdges) {
        let (s0, t0) = (t.source_base as usize, t.target_base as usize);
        for (k, &[ls, lt]) in t.edges.iter().enumerate() {
            let (u, v) = (s0 + ls as usize, t0 + lt as usize);
            if u != v {
                let w = t.weights.get(k).map_or(1.0, |&w| w as f64);
                self.y.add(u, w * self.x[v]);
            }
        }
    }
}

struct IntervalProduct;

impl IntervalProgram for IntervalProduct {
    type Value = f64;
    fn gather(&self, _: u64, _: u64, lists: &[NeighbourList], values: &Values<f64>) -> f64 {
        let l = &lists[0];
        values.sum_over(l.ids, |k, x| l.weights.get(k).map_or(1.0, |&w| w as f64) * x)
    }
}

/// y = A^T x; `x` defaults to all ones (then y holds weighted in-degrees).
pub fn spmv(store: &Store, x: Option<&[f64]>, budget: &Budget, opts: &AnalyticsOptions) -> Result<SpmvResult, StoreError> {
    let n = store.vertices();
    if x.is_some_and(|x| x.len() as u64 != n) {
        return Err(StoreError::invalid(store.dir(), format!("the vector has {} entries for {n} vertices", x.unwrap().len())));
    }
    let weighted = store.manifest().weighted;
    let structure = interval_layouts(store, false);
    let (engine, reason) = without_sortreduce(
        choose(store, budget, opts, state_bytes(n), weighted, &structure)?,
        opts,
        "SpMV holds its input vector in memory, so it has no sort-reduce version",
    )?;
    let value = |v: u64| x.map_or(1.0, |x| x[v as usize]);
    if engine == Engine::Interval {
        let mut e = IntervalEngine::open(store, &structure, false, budget, &opts.interval, |v, _| value(v))?;
        e.iterate(&IntervalProduct, |_, _, _, _| {})?;
        let report = EngineReport { engine, reason, stream: None, interval: Some(e.stats().clone()), sortreduce: None };
        return Ok(SpmvResult { y: VertexResult::Intervals { engine: Box::new(e), scale_by_degree: None }, report });
    }
    let _charge = budget.reserve("SpMV x and y", state_bytes(n))?;
    let mut stream = open_stream(store, budget, engine, weighted, opts)?;
    let undirected = stream.record_ref().upper_triangle;
    if weighted && stream.record_ref().weights.is_none() {
        return Err(StoreError::invalid(
            store.dir(),
            format!("the tiles were built without weights; rebuild them with: outcore layout add {} tiles", store.dir().display()),
        ));
    }
    let xs: Vec<f64> = (0..n).map(value).collect();
    let y = F64Cells::new(n as usize, 0.0);
    stream.iterate(&TileProduct { x: &xs, y: &y, undirected, weighted })?;
    let report = EngineReport { engine, reason, stream: Some(stream.stats().clone()), interval: None, sortreduce: None };
    Ok(SpmvResult { y: VertexResult::Memory(y.into_vec()), report })
}
