//! Weakly connected components: every vertex labelled with the smallest id
//! of its component, direction ignored (Graphalytics WCC). Dense ids keep
//! the order of original ids, so the label is also the smallest original
//! id (in a reordered store: the component's first vertex in store order;
//! the partition is the same).
//!
//! Versions: [`union_find`] (the traverse engine: one sequential scan, 4
//! bytes a vertex, the first choice whenever its forest fits), and label
//! propagation (G-Store section II; Graphalytics) on [`tiles`] (`memory`,
//! `stream`), [`interval`] (VENUS) and [`sortreduce`] (BigSparse): each
//! tuple lowers the larger label of its ends to the smaller until an
//! iteration changes nothing.

pub mod interval;
pub mod reference;
pub mod sortreduce;
pub mod tiles;
pub mod union_find;
mod validate;

use crate::needs::{self, engine_figures, EngineStats};
use crate::params::Args;
use crate::plan::{Engine, Support};
use crate::run::{Algorithm, Check, ColumnSpec, Compare, Context, Info, RunOptions, Validation};
use crate::values::{Column, ColumnData, Held, Outcome, ValueKind};
use crate::MemGraph;
use outcore_store::{Store, StoreError};

pub use union_find::wcc;

/// WCC, the registry's `wcc`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Wcc;

/// What one engine version returns.
pub struct Labels {
    pub labels: Box<dyn ColumnData>,
    pub iterations: u32,
    pub stats: Option<EngineStats>,
}

/// Memory of label propagation on tiles: one label a vertex.
pub fn state_bytes(n: u64) -> u64 {
    n * 8
}

static INFO: Info = Info {
    name: "wcc",
    title: "WCC",
    about: "Weakly connected components: each vertex labelled with the smallest id in its component",
    params: &[],
    engines: &[Engine::Traverse, Engine::Memory, Engine::Stream, Engine::Interval, Engine::SortReduce],
    columns: &[ColumnSpec { name: "component", kind: ValueKind::Vertex, compare: Compare::Exact }],
};

impl Algorithm for Wcc {
    type Params = ();

    fn info(&self) -> &'static Info {
        &INFO
    }

    fn parse(&self, _: &Args) -> Result<(), StoreError> {
        Ok(())
    }

    fn support(&self, store: &Store, engine: Engine, _: &(), opts: &RunOptions) -> Result<Support, StoreError> {
        let n = store.vertices();
        Ok(match engine {
            Engine::Traverse if n >= u32::MAX as u64 => Support::No("union-find keeps 32-bit parents".into()),
            Engine::Traverse => needs::scan(&["out"], n * 4, "the union-find parent array"),
            Engine::Memory | Engine::Stream => needs::tiles(store, engine, state_bytes(n), false, "one label a vertex"),
            Engine::Interval => needs::interval(store, needs::interval_layouts(store, true), 8),
            Engine::SortReduce => needs::sortreduce(store, needs::interval_layouts(store, true), 8, opts)?,
        })
    }

    fn run(&self, cx: &mut Context, _: &()) -> Result<Outcome, StoreError> {
        let started = std::time::Instant::now();
        let r = match cx.engine() {
            Engine::Traverse => {
                let (values, charge) = union_find::wcc_charged(cx.store, cx.budget)?;
                let bytes = cx.store.layout_bytes("out");
                Labels {
                    labels: Box::new(Held { values, charge }),
                    iterations: 1,
                    stats: Some(EngineStats::Scan { bytes_read: bytes, passes: 1 }),
                }
            }
            Engine::Memory | Engine::Stream => tiles::wcc(cx)?,
            Engine::Interval => interval::wcc(cx)?,
            Engine::SortReduce => sortreduce::wcc(cx)?,
        };
        cx.set_seconds(started.elapsed().as_secs_f64());
        let mut components = 0u64;
        r.labels.for_each(&mut |v, l| components += (v == l.as_u64()) as u64)?;
        cx.figure("components", components);
        cx.figure("iterations", r.iterations);
        if let Some(s) = &r.stats {
            engine_figures(cx, s);
            cx.figure("engine_summary", s.describe());
        }
        Ok(Outcome::new(vec![Column { name: "component", kind: ValueKind::Vertex, data: r.labels }]))
    }

    fn reference(&self, _store: &Store, g: &MemGraph, _: &()) -> Result<Outcome, StoreError> {
        Ok(Outcome::new(vec![Column::new("component", ValueKind::Vertex, reference::wcc(g))]))
    }

    fn validate(&self, check: &Check, _: &()) -> Result<Validation, StoreError> {
        validate::validate(check)
    }
}
