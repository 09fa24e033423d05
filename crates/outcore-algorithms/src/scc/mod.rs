//! Strongly connected components of a directed graph: every vertex
//! labelled with the smallest id of its component (the vertices it reaches
//! and that reach it). Dense ids keep the order of original ids, so the
//! label is the smallest original id (in a reordered store: the
//! component's first vertex in store order; the partition is the same).
//! On an undirected store the components are the connected components.
//!
//! Version: [`scans`], forward-backward from a pivot, colouring rounds and
//! Tarjan's algorithm on what is left once it fits, all over sequential
//! scans of `out` (the traverse engine's cursor): 8 bytes a vertex.

pub mod reference;
pub mod scans;
pub mod validate;

use crate::needs::{self, engine_figures};
use crate::params::{Args, ParamKind, ParamSpec};
use crate::plan::{Engine, Support};
use crate::run::{Algorithm, Check, ColumnSpec, Compare, Context, Info, RunOptions, Validation};
use crate::values::{Column, Held, Outcome, ValueKind};
use crate::MemGraph;
use outcore_store::{Store, StoreError};

/// SCC, the registry's `scc`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Scc;

#[derive(Clone, Copy, Debug, Default)]
pub struct Params {
    /// The most arcs the subgraph left to Tarjan's step may have (default:
    /// what the budget allows).
    pub in_memory_arcs: Option<u64>,
}

static PARAMS: &[ParamSpec] = &[ParamSpec {
    name: "in_memory_arcs",
    kind: ParamKind::Count,
    default: None,
    help: "Most arcs left to the in-memory Tarjan step (default: as many as the budget allows); colouring rounds, each a few scans, run until what is left has no more",
}];

static INFO: Info = Info {
    name: "scc",
    title: "SCC",
    about: "Strongly connected components, each labelled with its smallest vertex id (networkx strongly_connected_components)",
    params: PARAMS,
    engines: &[Engine::Traverse],
    columns: &[ColumnSpec { name: "component", kind: ValueKind::Vertex, compare: Compare::Exact }],
};

impl Algorithm for Scc {
    type Params = Params;

    fn info(&self) -> &'static Info {
        &INFO
    }
    fn parse(&self, a: &Args) -> Result<Params, StoreError> {
        Ok(Params { in_memory_arcs: a.opt("in_memory_arcs")? })
    }
    fn support(&self, store: &Store, engine: Engine, _: &Params, _: &RunOptions) -> Result<Support, StoreError> {
        Ok(match engine {
            Engine::Traverse => needs::scan(store, &["out"], scans::state_bytes(store.vertices()), "labels, colours and two bitmaps")?,
            _ => Support::No("SCC runs on sequential scans of out (the traverse engine's cursor)".into()),
        })
    }
    fn run(&self, cx: &mut Context, p: &Params) -> Result<Outcome, StoreError> {
        let started = std::time::Instant::now();
        let r = scans::scc(cx, p.in_memory_arcs)?;
        cx.set_seconds(started.elapsed().as_secs_f64());
        let mut sizes = std::collections::HashMap::new();
        for &l in &r.labels {
            *sizes.entry(l).or_insert(0u64) += 1;
        }
        cx.figure("components", sizes.len());
        cx.figure("largest_component", sizes.values().copied().max().unwrap_or(0));
        cx.figure("pivot_component", r.pivot_component);
        cx.figure("colouring_rounds", r.colouring_rounds);
        cx.figure("left_to_tarjan_vertices", r.left_vertices);
        cx.figure("left_to_tarjan_arcs", r.left_arcs);
        engine_figures(cx, &r.stats);
        cx.figure("engine_summary", r.stats.describe());
        Ok(Outcome::new(vec![Column::new("component", ValueKind::Vertex, Held { values: r.labels, charge: r.charge })]))
    }
    fn reference(&self, _: &Store, g: &MemGraph, _: &Params) -> Result<Outcome, StoreError> {
        Ok(Outcome::new(vec![Column::new("component", ValueKind::Vertex, reference::scc(g))]))
    }
    fn reference_bytes(&self, store: &Store, _: &Params) -> u64 {
        reference::bytes(store.vertices(), store.manifest().arcs)
    }
    /// The reference where the graph fits beside the result, else labels
    /// checked and sampled components recomputed ([`validate`]).
    fn validate(&self, check: &Check, p: &Params) -> Result<Validation, StoreError> {
        match check.against_reference(self, p)? {
            Some(v) => Ok(v),
            None => validate::validate(check),
        }
    }
}
