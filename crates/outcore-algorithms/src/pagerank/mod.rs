//! PageRank with Graphalytics semantics: from 1/|V|, damping d, the rank of
//! sinks spread over all vertices, a fixed number of iterations or until
//! the L1 change drops below a tolerance:
//!   PR(v) = (1-d)/|V| + d * sum_{u->v} PR(u)/outdeg(u) + d/|V| * sum_{sinks} PR(w)
//!
//! Versions: [`tiles`] (G-Store; engines `memory` and `stream`), [`scan`]
//! (the traverse engine's sequential cursor over `out`), [`interval`]
//! (VENUS) and [`sortreduce`] (BigSparse section 5.2). `auto` prefers them
//! in that order: tiles read an undirected edge once, the scan needs no
//! layout beyond `out`, intervals keep the values on disk, and sort-reduce
//! needs no memory that grows with |V|.

pub mod interval;
pub mod reference;
pub mod scan;
pub mod sortreduce;
pub mod tiles;
mod validate;

use crate::needs::{self, engine_figures, EngineStats};
use crate::params::{Args, ParamKind, ParamSpec};
use crate::plan::{Engine, Support};
use crate::run::{Algorithm, Check, ColumnSpec, Compare, Context, Info, RunOptions, Validation};
use crate::values::{Column, ColumnData, Outcome, ValueKind};
use crate::MemGraph;
use outcore_store::{Store, StoreError};

/// PageRank, the registry's `pagerank`.
#[derive(Clone, Copy, Debug, Default)]
pub struct PageRank;

#[derive(Clone, Copy, Debug)]
pub struct Params {
    pub damping: f64,
    pub iterations: u32,
    /// Stop early once the L1 change of an iteration is below this.
    pub tolerance: Option<f64>,
}

impl Default for Params {
    fn default() -> Self {
        Params { damping: 0.85, iterations: 10, tolerance: None }
    }
}

impl Params {
    fn check(self) -> Result<Self, StoreError> {
        if !(0.0..=1.0).contains(&self.damping) {
            return Err(StoreError::parameter("damping", format!("must be between 0 and 1 (got {})", self.damping)));
        }
        if let Some(t) = self.tolerance {
            if t.is_nan() || t <= 0.0 {
                return Err(StoreError::parameter("tolerance", format!("must be positive (got {t})")));
            }
        }
        Ok(self)
    }
}

/// What one engine version returns.
pub struct Ranks {
    pub rank: Box<dyn ColumnData>,
    pub iterations: u32,
    /// L1 change of the last iteration.
    pub delta: f64,
    pub stats: EngineStats,
}

/// Memory on tiles and scans: contributions (which also keep the ranks
/// of sinks, whose contributions no tuple reads), next ranks, out-degrees.
pub fn state_bytes(n: u64) -> u64 {
    n * 20
}

static INFO: Info = Info {
    name: "pagerank",
    title: "PageRank",
    about: "PageRank (Graphalytics semantics): fixed iterations, or until the L1 change is below a tolerance",
    params: &[
        ParamSpec {
            name: "iterations",
            kind: ParamKind::Count,
            default: Some("10"),
            help: "Iterations (Graphalytics runs a fixed number)",
        },
        ParamSpec { name: "damping", kind: ParamKind::Real, default: Some("0.85"), help: "Damping factor d" },
        ParamSpec {
            name: "tolerance",
            kind: ParamKind::Real,
            default: None,
            help: "Stop early once the L1 change of an iteration is below this",
        },
    ],
    engines: &[Engine::Memory, Engine::Stream, Engine::Traverse, Engine::Interval, Engine::SortReduce],
    columns: &[ColumnSpec { name: "rank", kind: ValueKind::Real, compare: Compare::Relative(1e-9) }],
};

impl Algorithm for PageRank {
    type Params = Params;

    fn info(&self) -> &'static Info {
        &INFO
    }

    fn parse(&self, a: &Args) -> Result<Params, StoreError> {
        Params { damping: a.get("damping", 0.85)?, iterations: a.get("iterations", 10)?, tolerance: a.opt("tolerance")? }.check()
    }

    fn support(&self, store: &Store, engine: Engine, _p: &Params, opts: &RunOptions) -> Result<Support, StoreError> {
        let n = store.vertices();
        let what = "ranks, contributions and out-degrees";
        Ok(match engine {
            Engine::Memory | Engine::Stream => needs::tiles(store, engine, state_bytes(n), false, what),
            Engine::Traverse => needs::scan(&["out"], state_bytes(n), what),
            Engine::Interval => needs::interval(store, needs::interval_layouts(store, false), 8),
            Engine::SortReduce => needs::sortreduce(store, &["out"], 8, opts)?,
        })
    }

    fn run(&self, cx: &mut Context, p: &Params) -> Result<Outcome, StoreError> {
        let p = p.check()?;
        let started = std::time::Instant::now();
        let r = match cx.engine() {
            Engine::Memory | Engine::Stream => tiles::pagerank(cx, &p)?,
            Engine::Traverse => scan::pagerank(cx, &p)?,
            Engine::Interval => interval::pagerank(cx, &p)?,
            Engine::SortReduce => sortreduce::pagerank(cx, &p)?,
        };
        cx.set_seconds(started.elapsed().as_secs_f64());
        cx.figure("iterations", r.iterations);
        cx.figure("last_l1_change", r.delta);
        engine_figures(cx, &r.stats);
        cx.figure("engine_summary", r.stats.describe());
        Ok(Outcome::new(vec![Column { name: "rank", kind: ValueKind::Real, data: r.rank }]))
    }

    fn reference(&self, _store: &Store, g: &MemGraph, p: &Params) -> Result<Outcome, StoreError> {
        let (rank, _, _) = reference::pagerank_until(g, p.damping, p.iterations, p.tolerance);
        Ok(Outcome::new(vec![Column::new("rank", ValueKind::Real, rank)]))
    }

    fn validate(&self, check: &Check, p: &Params) -> Result<Validation, StoreError> {
        validate::validate(check, p)
    }
}
