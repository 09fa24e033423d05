//! PageRank with Graphalytics semantics: from 1/|V|, damping d, the rank of
//! sinks spread over all vertices:
//!   PR(v) = (1-d)/|V| + d * sum_{u->v} PR(u)/outdeg(u) + d/|V| * sum_{sinks} PR(w)
//!
//! When to stop: given `iterations` alone, exactly that many (Graphalytics);
//! otherwise until the L1 change of an iteration is below `tolerance`
//! (default 1e-6 x |V|, networkx's rule, which this then reproduces), at
//! most `iterations` (default 1000). The report says which rule stopped it.
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
    /// Alone: run exactly this many iterations. With a tolerance: at most
    /// this many. `None`: at most [`MAX_ITERATIONS`], until converged.
    pub iterations: Option<u32>,
    /// Stop once the L1 change of an iteration is below this (default, when
    /// `iterations` is not given: [`TOLERANCE_PER_VERTEX`] x |V|).
    pub tolerance: Option<f64>,
}

/// The iteration limit of a run that stops on convergence.
pub const MAX_ITERATIONS: u32 = 1000;
/// The default tolerance per vertex: networkx stops once the L1 change is
/// below |V| x 1e-6.
pub const TOLERANCE_PER_VERTEX: f64 = 1e-6;

impl Default for Params {
    /// Converged ranks, as networkx computes them (damping 0.85).
    fn default() -> Self {
        Params { damping: 0.85, iterations: None, tolerance: None }
    }
}

impl Params {
    /// Graphalytics' fixed number of iterations.
    pub fn fixed(damping: f64, iterations: u32) -> Self {
        Params { damping, iterations: Some(iterations), tolerance: None }
    }

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

    /// The stopping rule on a graph of `n` vertices.
    pub fn schedule(&self, n: u64) -> Schedule {
        let tolerance = match (self.iterations, self.tolerance) {
            (_, Some(t)) => Some(t),
            (Some(_), None) => None,
            (None, None) => Some(TOLERANCE_PER_VERTEX * n.max(1) as f64),
        };
        Schedule { damping: self.damping, iterations: self.iterations.unwrap_or(MAX_ITERATIONS), tolerance }
    }
}

/// A run's stopping rule, resolved for its graph: at most `iterations`,
/// fewer once an iteration changes the ranks by less than `tolerance` (L1).
#[derive(Clone, Copy, Debug)]
pub struct Schedule {
    pub damping: f64,
    pub iterations: u32,
    pub tolerance: Option<f64>,
}

impl Schedule {
    /// Whether an iteration that changed the ranks by `delta` (L1) ends the
    /// run: its change is below the tolerance. Without a tolerance a run
    /// does all its iterations. Every engine's version stops by this.
    #[inline]
    pub fn converged(&self, delta: f64) -> bool {
        self.tolerance.is_some_and(|t| delta < t)
    }

    /// Which rule ended a run whose last change was `delta`.
    pub fn stopped_by(&self, delta: f64) -> &'static str {
        if self.converged(delta) {
            "converged"
        } else if self.tolerance.is_some() {
            "iteration limit (not converged)"
        } else {
            "fixed iterations"
        }
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
    about: "PageRank (Graphalytics semantics): until converged (networkx's rule), or a fixed number of iterations",
    params: &[
        ParamSpec {
            name: "iterations",
            kind: ParamKind::Count,
            default: None,
            help: "Run exactly N iterations (Graphalytics); with --tolerance, at most N (default: until converged, at most 1000)",
        },
        ParamSpec { name: "damping", kind: ParamKind::Real, default: Some("0.85"), help: "Damping factor d" },
        ParamSpec {
            name: "tolerance",
            kind: ParamKind::Real,
            default: None,
            help: "Stop once the L1 change of an iteration is below this (default without --iterations: 1e-6 x vertices, as networkx)",
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
        Params { damping: a.get("damping", 0.85)?, iterations: a.opt("iterations")?, tolerance: a.opt("tolerance")? }.check()
    }

    fn support(&self, store: &Store, engine: Engine, _p: &Params, opts: &RunOptions) -> Result<Support, StoreError> {
        let n = store.vertices();
        let what = "ranks, contributions and out-degrees";
        Ok(match engine {
            Engine::Memory | Engine::Stream => needs::tiles(store, engine, state_bytes(n), false, what),
            Engine::Traverse => needs::scan(store, &["out"], state_bytes(n), what)?,
            Engine::Interval => needs::interval(store, needs::interval_layouts(store, false), 8, 0)?,
            Engine::SortReduce => needs::sortreduce(store, &["out"], 8, opts)?,
        })
    }

    fn run(&self, cx: &mut Context, p: &Params) -> Result<Outcome, StoreError> {
        let p = p.check()?.schedule(cx.store.vertices());
        let p = &p;
        let started = std::time::Instant::now();
        let r = match cx.engine() {
            Engine::Memory | Engine::Stream => tiles::pagerank(cx, p)?,
            Engine::Traverse => scan::pagerank(cx, p)?,
            Engine::Interval => interval::pagerank(cx, p)?,
            Engine::SortReduce => sortreduce::pagerank(cx, p)?,
        };
        cx.set_seconds(started.elapsed().as_secs_f64());
        cx.figure("iterations", r.iterations);
        cx.figure("last_l1_change", r.delta);
        cx.figure("tolerance", p.tolerance);
        cx.figure("stopped_by", p.stopped_by(r.delta));
        engine_figures(cx, &r.stats);
        cx.figure("engine_summary", r.stats.describe());
        Ok(Outcome::new(vec![Column { name: "rank", kind: ValueKind::Real, data: r.rank }]))
    }

    fn reference(&self, _store: &Store, g: &MemGraph, p: &Params) -> Result<Outcome, StoreError> {
        let s = p.schedule(g.vertices());
        let (rank, _, _) = reference::pagerank_until(g, s.damping, s.iterations, s.tolerance);
        Ok(Outcome::new(vec![Column::new("rank", ValueKind::Real, rank)]))
    }

    fn validate(&self, check: &Check, p: &Params) -> Result<Validation, StoreError> {
        validate::validate(check, p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A change below the tolerance converges, one equal to it does not
    /// (README: "stops once an iteration changes the ranks by less than
    /// T"); without a tolerance nothing converges, not even no change.
    #[test]
    fn a_run_converges_below_its_tolerance_only() {
        let with = Schedule { damping: 0.85, iterations: 100, tolerance: Some(0.5) };
        assert!(with.converged(0.499_999_999));
        assert!(!with.converged(0.5));
        assert!(!with.converged(f64::INFINITY));
        assert_eq!(with.stopped_by(0.25), "converged");
        assert_eq!(with.stopped_by(0.5), "iteration limit (not converged)");
        let fixed = Schedule { damping: 0.85, iterations: 20, tolerance: None };
        assert!(!fixed.converged(0.0));
        assert_eq!(fixed.stopped_by(0.0), "fixed iterations");
    }

    /// The rule a run gets: `iterations` alone is exact; a tolerance, given
    /// or the default of 1e-6 per vertex, stops it at most at `iterations`
    /// (1000 by default).
    #[test]
    fn the_schedule_follows_the_parameters_given() {
        let s = Params { damping: 0.5, iterations: Some(7), tolerance: None }.schedule(10);
        assert_eq!((s.damping, s.iterations, s.tolerance), (0.5, 7, None));
        let s = Params { damping: 0.85, iterations: Some(7), tolerance: Some(1e-3) }.schedule(10);
        assert_eq!((s.iterations, s.tolerance), (7, Some(1e-3)));
        let s = Params::default().schedule(2_000);
        assert_eq!((s.iterations, s.tolerance), (MAX_ITERATIONS, Some(2_000.0 * TOLERANCE_PER_VERTEX)));
        // an empty graph's default tolerance is that of one vertex
        assert_eq!(Params::default().schedule(0).tolerance, Some(TOLERANCE_PER_VERTEX));
    }
}
