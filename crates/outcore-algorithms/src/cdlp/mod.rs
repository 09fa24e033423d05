//! Community detection by label propagation, as Graphalytics defines it:
//! every vertex starts with its own id; in each of a fixed number of
//! synchronous iterations it takes the label most frequent among its
//! neighbours (in- and out-neighbours of a directed graph, so a vertex
//! linked both ways counts twice), the smallest such label on ties, and
//! keeps its own when it has no neighbours.
//!
//! Versions: [`tiles`] (`memory`, `stream`: bands of spans), [`scan`] (the
//! traverse engine's cursor over `out`, with `in` in lockstep or bands)
//! and [`interval`] (VENUS). The most frequent label does not reduce
//! pairwise in fixed space, so there is no sort-reduce version.

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
use outcore_store::{Store, StoreError};

/// CDLP, the registry's `cdlp`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Cdlp;

#[derive(Clone, Copy, Debug)]
pub struct Params {
    pub iterations: u32,
}

impl Default for Params {
    fn default() -> Self {
        Params { iterations: 10 }
    }
}

/// What one engine version returns.
pub struct Communities {
    pub labels: Box<dyn ColumnData>,
    /// Bands per iteration (1 when every label fits at once).
    pub bands: u64,
    /// The band buffer of neighbour labels, for the versions that cut bands.
    pub band_bytes: Option<u64>,
    pub stats: EngineStats,
}

/// Memory of the tile regime besides the band buffer: labels, next
/// labels, per-vertex tuple counts, and a band's slot starts and cursors.
pub fn state_bytes(n: u64) -> u64 {
    n * 28
}

/// The most frequent value of `labels` (sorted here), smallest on ties.
pub fn mode(labels: &mut [u64]) -> Option<u64> {
    labels.sort_unstable();
    let (mut best, mut best_count) = (None, 0usize);
    for run in labels.chunk_by(|a, b| a == b) {
        if run.len() > best_count {
            best = Some(run[0]);
            best_count = run.len();
        }
    }
    best
}

static INFO: Info = Info {
    name: "cdlp",
    title: "CDLP",
    about: "Community detection by label propagation (Graphalytics CDLP)",
    params: &[ParamSpec {
        name: "iterations",
        kind: ParamKind::Count,
        default: Some("10"),
        help: "Iterations (Graphalytics: the graph's cdlp.max-iterations)",
    }],
    engines: &[Engine::Memory, Engine::Stream, Engine::Traverse, Engine::Interval, Engine::SortReduce],
    columns: &[ColumnSpec { name: "community", kind: ValueKind::Vertex, compare: Compare::Exact }],
};

impl Algorithm for Cdlp {
    type Params = Params;

    fn info(&self) -> &'static Info {
        &INFO
    }

    fn parse(&self, a: &Args) -> Result<Params, StoreError> {
        Ok(Params { iterations: a.get("iterations", 10)? })
    }

    fn support(&self, store: &Store, engine: Engine, _: &Params, _: &RunOptions) -> Result<Support, StoreError> {
        let n = store.vertices();
        let banded = scan::banded(store);
        Ok(match engine {
            Engine::Memory | Engine::Stream => {
                let band = if store.has_layout("tiles") { tiles::band_floor(store)? } else { 0 };
                needs::tiles(
                    store,
                    engine,
                    state_bytes(n) + band,
                    false,
                    "labels, next labels, counts, cursors and a band of neighbour labels",
                )
            }
            Engine::Traverse => needs::scan(
                store,
                scan::scanned(store.manifest().directed && !banded),
                scan::planned_bytes(store)?,
                "labels and next labels",
            )?,
            Engine::Interval => needs::interval(store, needs::interval_layouts(store, true), 8, interval::scratch_bytes(store)?)?,
            Engine::SortReduce => Support::No(
                "the most frequent label does not reduce pairwise in fixed space; the interval engine keeps values on disk".into(),
            ),
        })
    }

    fn run(&self, cx: &mut Context, p: &Params) -> Result<Outcome, StoreError> {
        let started = std::time::Instant::now();
        let r = match cx.engine() {
            Engine::Memory | Engine::Stream => tiles::cdlp(cx, p.iterations)?,
            Engine::Traverse => scan::cdlp(cx, p.iterations)?,
            Engine::Interval => interval::cdlp(cx, p.iterations)?,
            Engine::SortReduce => unreachable!("the plan refuses sort-reduce for CDLP"),
        };
        cx.set_seconds(started.elapsed().as_secs_f64());
        let mut kept = 0u64;
        r.labels.for_each(&mut |v, l| kept += (v == l.as_u64()) as u64)?;
        cx.figure("iterations", p.iterations);
        cx.figure("bands_per_iteration", r.bands);
        if let Some(b) = r.band_bytes {
            cx.figure("band_bytes", b);
        }
        cx.figure("labels_kept_by_their_vertex", kept);
        engine_figures(cx, &r.stats);
        cx.figure("engine_summary", r.stats.describe());
        Ok(Outcome::new(vec![Column { name: "community", kind: ValueKind::Vertex, data: r.labels }]))
    }

    fn reference(&self, _store: &Store, g: &MemGraph, p: &Params) -> Result<Outcome, StoreError> {
        Ok(Outcome::new(vec![Column::new("community", ValueKind::Vertex, reference::cdlp(g, p.iterations))]))
    }

    fn reference_bytes(&self, store: &Store, _: &Params) -> u64 {
        // an unreadable layout fails the reference's own load
        reference::bytes(store).unwrap_or(0)
    }

    fn validate(&self, check: &Check, p: &Params) -> Result<Validation, StoreError> {
        check.by_reference(self, p)
    }
}
