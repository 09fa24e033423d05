//! k-core decomposition: the core number of every vertex, the largest k
//! such that the vertex is in a subgraph where every vertex has at least
//! k neighbours. On the undirected simple graph under the store (out- and
//! in-neighbours, each once, loops dropped), as networkx's `core_number`
//! of `G.to_undirected()`.
//!
//! Version: [`hindex`], the iterated h-index over sequential scans (the
//! traverse engine's cursor), 4 bytes a vertex. Peeling in degree order
//! (the [`reference`]) reads each list once but in an order no scan
//! follows; the h-index reads every list each round, in store order, and
//! skips the work of vertices none of whose neighbours fell.

pub mod hindex;
pub mod reference;
pub mod validate;

use crate::needs::engine_figures;
use crate::params::Args;
use crate::plan::{Engine, Support};
use crate::run::{Algorithm, Check, ColumnSpec, Compare, Context, Info, RunOptions, Validation};
use crate::values::{Column, Held, Outcome, ValueKind};
use crate::MemGraph;
use outcore_store::{Store, StoreError};

/// k-core decomposition, the registry's `kcore`.
#[derive(Clone, Copy, Debug, Default)]
pub struct KCore;

static INFO: Info = Info {
    name: "kcore",
    title: "k-core",
    about: "Core number of every vertex, direction ignored (networkx core_number), by the iterated h-index",
    params: &[],
    engines: &[Engine::Traverse],
    columns: &[ColumnSpec { name: "core", kind: ValueKind::Count, compare: Compare::Exact }],
};

impl Algorithm for KCore {
    type Params = ();

    fn info(&self) -> &'static Info {
        &INFO
    }
    fn parse(&self, _: &Args) -> Result<(), StoreError> {
        Ok(())
    }
    fn support(&self, store: &Store, engine: Engine, _: &(), _: &RunOptions) -> Result<Support, StoreError> {
        Ok(match engine {
            Engine::Traverse => Support::Runs(crate::plan::Need::new(
                crate::neighbourhood::layouts(store),
                hindex::state_bytes(store.vertices()) + crate::neighbourhood::scan_bytes(store)? + hindex::counts_bytes(store)?,
                "core values",
            )),
            _ => Support::No("the h-index rounds are sequential scans (the traverse engine's cursor)".into()),
        })
    }
    fn run(&self, cx: &mut Context, _: &()) -> Result<Outcome, StoreError> {
        let started = std::time::Instant::now();
        let r = hindex::kcore(cx)?;
        cx.set_seconds(started.elapsed().as_secs_f64());
        let degeneracy = r.cores.iter().copied().max().unwrap_or(0);
        cx.figure("degeneracy", degeneracy);
        cx.figure("rounds", r.rounds);
        cx.figure("values_lowered", r.lowered);
        engine_figures(cx, &r.stats);
        cx.figure("engine_summary", r.stats.describe());
        Ok(Outcome::new(vec![Column::new("core", ValueKind::Count, Held { values: r.cores, charge: r.charge })]))
    }
    fn reference(&self, _: &Store, g: &MemGraph, _: &()) -> Result<Outcome, StoreError> {
        Ok(Outcome::new(vec![Column::new("core", ValueKind::Count, reference::core_numbers(g))]))
    }
    fn reference_bytes(&self, store: &Store, _: &()) -> u64 {
        reference::bytes(store.vertices(), store.manifest().arcs)
    }
    /// The reference where the graph fits beside the result, else the
    /// core property checked at every vertex ([`validate`]).
    fn validate(&self, check: &Check, p: &()) -> Result<Validation, StoreError> {
        match check.against_reference(self, p)? {
            Some(v) => Ok(v),
            None => validate::validate(check),
        }
    }
}
