//! Sparse matrix-vector product y = A^T x over the adjacency matrix A
//! (a_uv = the weight of u -> v, or 1): y(v) = sum_{u->v} a_uv x(u); an
//! undirected store's matrix is symmetric.
//!
//! Versions: [`tiles`] (`memory`, `stream`), [`scan`] (the traverse
//! engine's cursor over `out`) and [`interval`] (VENUS). x is held in
//! memory by the caller, so there is no sort-reduce version.

pub mod interval;
pub mod reference;
pub mod scan;
pub mod tiles;

use crate::needs::{self, engine_figures, EngineStats};
use crate::params::{Args, ParamKind, ParamSpec};
use crate::plan::{Engine, Support};
use crate::run::{Algorithm, Check, ColumnSpec, Compare, Context, Info, RunOptions, Validation};
use crate::values::{Column, ColumnData, Outcome, ValueKind};
use crate::MemGraph;
use outcore_io::{Budget, Reservation};
use outcore_store::{Store, StoreError};
use std::path::PathBuf;
use std::sync::Arc;

/// SpMV, the registry's `spmv`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Spmv;

/// The input vector x.
#[derive(Clone, Debug, Default)]
pub enum Vector {
    /// All ones (y holds weighted in-degrees).
    #[default]
    Ones,
    /// Dense values, one per vertex in dense order.
    Dense(Arc<Vec<f64>>),
    /// A file of `vertex value` lines in original ids (missing vertices
    /// are 0), read into memory when the run starts.
    File(PathBuf),
}

#[derive(Clone, Debug, Default)]
pub struct Params {
    pub x: Vector,
}

/// What one engine version returns.
pub struct Product {
    pub y: Box<dyn ColumnData>,
    pub stats: EngineStats,
}

/// Memory of the tile and scan versions: x and y.
pub fn state_bytes(n: u64) -> u64 {
    n * 16
}

static INFO: Info = Info {
    name: "spmv",
    title: "SpMV",
    about: "Sparse matrix-vector product y = A^T x (x: all ones, or a file of vertex values)",
    params: &[ParamSpec {
        name: "vector",
        kind: ParamKind::VertexFile,
        default: None,
        help: "x as `vertex value` lines (original ids; missing vertices are 0), held in memory; default: all ones",
    }],
    engines: &[Engine::Memory, Engine::Stream, Engine::Traverse, Engine::Interval, Engine::SortReduce],
    columns: &[ColumnSpec { name: "y", kind: ValueKind::Real, compare: Compare::Relative(1e-9) }],
};

/// Read `vertex value` lines into a dense vector (0 where absent).
pub fn read_vector(store: &Store, budget: &Budget, path: &std::path::Path) -> Result<(Vec<f64>, Reservation), StoreError> {
    let n = store.vertices();
    let charge = budget.reserve("SpMV input vector", n * 8)?;
    let text = std::fs::read_to_string(path).map_err(|e| StoreError::invalid(path, format!("cannot read: {e}")))?;
    let mut pairs = Vec::new();
    for (k, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |why: &str| StoreError::invalid(path, format!("line {}: {why}: '{line}'", k + 1));
        let mut parts = line.split_whitespace();
        let (Some(v), Some(value), None) = (parts.next(), parts.next(), parts.next()) else {
            return Err(bad("expected 'vertex value'"));
        };
        let v: u64 = v.parse().map_err(|_| bad("the vertex is not an integer"))?;
        let value: f64 = value.parse().map_err(|_| bad("the value is not a number"))?;
        pairs.push((v, value, k + 1));
    }
    let originals: Vec<u64> = pairs.iter().map(|p| p.0).collect();
    let dense = match store.ids()?.find_all(&originals)? {
        Ok(d) => d,
        Err(missing) => {
            let line = pairs.iter().find(|p| p.0 == missing).map_or(0, |p| p.2);
            return Err(StoreError::invalid(path, format!("line {line}: no such vertex in the store: {missing}")));
        }
    };
    let mut x = vec![0.0; n as usize];
    for (d, p) in dense.iter().zip(&pairs) {
        x[*d as usize] = p.1;
    }
    Ok((x, charge))
}

impl Algorithm for Spmv {
    type Params = Params;

    fn info(&self) -> &'static Info {
        &INFO
    }

    fn parse(&self, a: &Args) -> Result<Params, StoreError> {
        Ok(Params { x: a.text("vector").map_or(Vector::Ones, |p| Vector::File(p.into())) })
    }

    fn support(&self, store: &Store, engine: Engine, _: &Params, _: &RunOptions) -> Result<Support, StoreError> {
        let n = store.vertices();
        let weighted = store.manifest().weighted;
        Ok(match engine {
            Engine::Memory | Engine::Stream => needs::tiles(store, engine, state_bytes(n), weighted, "x and y"),
            Engine::Traverse => needs::scan(store, &["out"], state_bytes(n), "x and y")?,
            Engine::Interval => needs::interval(store, needs::interval_layouts(store, false), 8, 0)?,
            Engine::SortReduce => Support::No("SpMV holds its input vector in memory; the interval engine keeps values on disk".into()),
        })
    }

    fn run(&self, cx: &mut Context, p: &Params) -> Result<Outcome, StoreError> {
        let n = cx.store.vertices();
        let file = match &p.x {
            Vector::File(path) => Some(read_vector(cx.store, cx.budget, path)?),
            _ => None,
        };
        let x: Box<dyn Fn(u64) -> f64> = match (&p.x, &file) {
            (Vector::Dense(v), _) if v.len() as u64 != n => {
                return Err(StoreError::parameter("vector", format!("has {} entries for {n} vertices", v.len())))
            }
            (Vector::Dense(v), _) => {
                let v = v.clone();
                Box::new(move |u| v[u as usize])
            }
            (_, Some((v, _))) => Box::new(|u| v[u as usize]),
            _ => Box::new(|_| 1.0),
        };
        let started = std::time::Instant::now();
        let r = match cx.engine() {
            Engine::Memory | Engine::Stream => tiles::spmv(cx, &x)?,
            Engine::Traverse => scan::spmv(cx, &x)?,
            Engine::Interval => interval::spmv(cx, &x)?,
            Engine::SortReduce => unreachable!("the plan refuses sort-reduce for SpMV"),
        };
        cx.set_seconds(started.elapsed().as_secs_f64());
        drop(x);
        drop(file);
        let mut norm = 0.0;
        r.y.for_each(&mut |_, y| norm += y.as_f64() * y.as_f64())?;
        cx.figure("y_l2_norm", norm.sqrt());
        cx.figure("iterations", 1);
        engine_figures(cx, &r.stats);
        cx.figure("engine_summary", r.stats.describe());
        Ok(Outcome::new(vec![Column { name: "y", kind: ValueKind::Real, data: r.y }]))
    }

    fn reference(&self, store: &Store, g: &MemGraph, p: &Params) -> Result<Outcome, StoreError> {
        let n = g.vertices();
        let x = match &p.x {
            Vector::Ones => vec![1.0; n as usize],
            Vector::Dense(v) => v.to_vec(),
            Vector::File(path) => read_vector(store, &Budget::unlimited(), path)?.0,
        };
        Ok(Outcome::new(vec![Column::new("y", ValueKind::Real, reference::spmv(g, &x))]))
    }

    fn validate(&self, check: &Check, p: &Params) -> Result<Validation, StoreError> {
        check.by_reference(self, p)
    }
}
