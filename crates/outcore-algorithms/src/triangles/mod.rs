//! Triangles and the local clustering coefficient (Graphalytics LCC).
//!
//! Both are counted on the undirected simple graph under the store: the
//! neighbourhood N(v) of a vertex is its out- and in-neighbours (each
//! distinct neighbour once, v itself left out); a triangle is three
//! vertices pairwise in each other's neighbourhoods.
//!
//! - `triangles`: per vertex, the triangles it belongs to (networkx's
//!   `triangles`); the report gives the total, each triangle once.
//! - `lcc`: per vertex with d = |N(v)| >= 2, the ordered pairs (u, w) of
//!   N(v) with an arc u -> w, over d (d - 1); 0 when d <= 1 (Graphalytics
//!   LCC; on an undirected graph, networkx's `clustering`). A directed
//!   triangle's edge counts once for each direction it has.
//!
//! Version: [`oriented`], on the traverse engine's sequential cursor
//! (`out`, and `in` beside it for a directed store): the degree-ordered
//! orientation (each triangle counted once, from its lowest-ranked vertex)
//! written to a temporary forward CSR; then the forward lists in parts
//! that fit the budget, each part held in memory while one scan of the
//! forward CSR intersects every list with them, on every core.

pub mod oriented;
pub mod reference;
pub mod validate;

use crate::needs::engine_figures;
use crate::params::{Args, ParamKind, ParamSpec};
use crate::plan::{Engine, Need, Support};
use crate::run::{Algorithm, Check, ColumnSpec, Compare, Context, Info, RunOptions, Validation};
use crate::values::{Column, Held, Outcome, ValueKind};
use crate::MemGraph;
use outcore_store::{Store, StoreError};

/// Triangle counting, the registry's `triangles`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Triangles;

/// The local clustering coefficient, the registry's `lcc`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Lcc;

#[derive(Clone, Copy, Debug, Default)]
pub struct Params {
    /// The most forward-list entries one part holds (default: what the
    /// budget allows).
    pub part_entries: Option<u64>,
}

static PARAMS: &[ParamSpec] = &[ParamSpec {
    name: "part_entries",
    kind: ParamKind::Count,
    default: None,
    help: "Most forward-list entries held in memory at once (default: as many as the budget allows); each further part costs one more pass over the forward lists",
}];

fn parse(a: &Args) -> Result<Params, StoreError> {
    let part_entries = a.opt("part_entries")?;
    if part_entries == Some(0) {
        return Err(StoreError::parameter("part_entries", "must be at least 1"));
    }
    Ok(Params { part_entries })
}

pub use crate::neighbourhood::layouts;

fn support(store: &Store, engine: Engine, lcc: bool) -> Result<Support, StoreError> {
    Ok(match engine {
        Engine::Traverse => Support::Runs(Need::new(
            layouts(store),
            oriented::min_bytes(store, lcc)?,
            "degrees, counters, stream buffers and a part of the forward lists",
        )),
        _ => Support::No(
            "triangles are counted by the degree-ordered orientation over sequential scans (the traverse engine's cursor)".into(),
        ),
    })
}

static TRIANGLES_INFO: Info = Info {
    name: "triangles",
    title: "triangle counting",
    about: "Triangles each vertex belongs to, direction ignored (networkx triangles), and the total",
    params: PARAMS,
    engines: &[Engine::Traverse],
    columns: &[ColumnSpec { name: "triangles", kind: ValueKind::Count, compare: Compare::Exact }],
};

static LCC_INFO: Info = Info {
    name: "lcc",
    title: "LCC",
    about: "Local clustering coefficient (Graphalytics LCC; networkx clustering on undirected graphs)",
    params: PARAMS,
    engines: &[Engine::Traverse],
    columns: &[ColumnSpec { name: "lcc", kind: ValueKind::Real, compare: Compare::Relative(1e-9) }],
};

fn report(cx: &mut Context, counts: &oriented::Counts) {
    cx.figure("triangles_total", counts.total);
    cx.figure("wedges_checked", counts.intersections);
    cx.figure("forward_arcs", counts.forward_arcs);
    cx.figure("parts", counts.parts);
    cx.figure("max_degree", counts.max_degree);
    engine_figures(cx, &counts.stats);
    cx.figure("engine_summary", counts.stats.describe());
}

impl Algorithm for Triangles {
    type Params = Params;

    fn info(&self) -> &'static Info {
        &TRIANGLES_INFO
    }
    fn parse(&self, a: &Args) -> Result<Params, StoreError> {
        parse(a)
    }
    fn support(&self, store: &Store, engine: Engine, _: &Params, _: &RunOptions) -> Result<Support, StoreError> {
        support(store, engine, false)
    }
    fn run(&self, cx: &mut Context, p: &Params) -> Result<Outcome, StoreError> {
        let started = std::time::Instant::now();
        let counts = oriented::count(cx, false, p.part_entries)?;
        cx.set_seconds(started.elapsed().as_secs_f64());
        report(cx, &counts);
        Ok(Outcome::new(vec![Column {
            name: "triangles",
            kind: ValueKind::Count,
            data: Box::new(Held { values: counts.triangles, charge: counts.charge }),
        }]))
    }
    fn reference(&self, _: &Store, g: &MemGraph, _: &Params) -> Result<Outcome, StoreError> {
        let (triangles, _) = reference::count(g);
        Ok(Outcome::new(vec![Column::new("triangles", ValueKind::Count, triangles)]))
    }
    fn reference_bytes(&self, store: &Store, _: &Params) -> u64 {
        reference::bytes(store.vertices(), store.manifest().arcs)
    }
    /// The reference where the graph fits beside the result, else a sample recounted.
    fn validate(&self, check: &Check, p: &Params) -> Result<Validation, StoreError> {
        match check.against_reference(self, p)? {
            Some(v) => Ok(v),
            None => validate::triangles(check),
        }
    }
}

impl Algorithm for Lcc {
    type Params = Params;

    fn info(&self) -> &'static Info {
        &LCC_INFO
    }
    fn parse(&self, a: &Args) -> Result<Params, StoreError> {
        parse(a)
    }
    fn support(&self, store: &Store, engine: Engine, _: &Params, _: &RunOptions) -> Result<Support, StoreError> {
        support(store, engine, true)
    }
    fn run(&self, cx: &mut Context, p: &Params) -> Result<Outcome, StoreError> {
        let started = std::time::Instant::now();
        let mut counts = oriented::count(cx, true, p.part_entries)?;
        // the per-vertex triangles are not LCC's result: their 8 bytes a
        // vertex make room for the coefficients within the charge
        counts.triangles = Vec::new();
        let lcc = oriented::coefficients(&counts);
        cx.set_seconds(started.elapsed().as_secs_f64());
        report(cx, &counts);
        let mean = if lcc.is_empty() { 0.0 } else { lcc.iter().sum::<f64>() / lcc.len() as f64 };
        cx.figure("average_clustering", mean);
        Ok(Outcome::new(vec![Column { name: "lcc", kind: ValueKind::Real, data: Box::new(Held { values: lcc, charge: counts.charge }) }]))
    }
    fn reference(&self, _: &Store, g: &MemGraph, _: &Params) -> Result<Outcome, StoreError> {
        let (_, lcc) = reference::count(g);
        Ok(Outcome::new(vec![Column::new("lcc", ValueKind::Real, lcc)]))
    }
    fn reference_bytes(&self, store: &Store, _: &Params) -> u64 {
        reference::bytes(store.vertices(), store.manifest().arcs)
    }
    /// The reference where the graph fits beside the result, else a sample recomputed.
    fn validate(&self, check: &Check, p: &Params) -> Result<Validation, StoreError> {
        match check.against_reference(self, p)? {
            Some(v) => Ok(v),
            None => validate::lcc(check),
        }
    }
}
