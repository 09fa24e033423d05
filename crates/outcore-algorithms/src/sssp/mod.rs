//! Single-source shortest paths over non-negative edge weights: every
//! vertex's distance from the root (Graphalytics SSSP; infinity when
//! unreachable) and a parent on a shortest path (Graph500 kernel 3).
//!
//! Versions: [`delta`] (delta-stepping on the traverse engine, every core:
//! the default, measured faster in and out of memory, README "The traverse
//! engine"), [`dijkstra`] (the traverse engine, run-ahead over the heap,
//! one thread: `--method dijkstra`) and [`sortreduce`] (Bellman-Ford
//! supersteps, distances on disk). The validator checks the Graph500 SSSP
//! rules.

pub mod delta;
pub mod dijkstra;
pub mod reference;
pub mod sortreduce;
pub mod validate;

use crate::needs::{self, engine_figures, traverse_figures, EngineStats};
use crate::params::{Args, ParamKind, ParamSpec};
use crate::plan::{Engine, Support};
use crate::run::{Algorithm, Check, ColumnSpec, Compare, Context, Info, RunOptions, Validation};
use crate::values::{projections, Column, Held, Outcome, Value, ValueKind};
use crate::MemGraph;
use outcore_engines::Traverse;
use outcore_store::{Store, StoreError};
use std::time::Instant;

pub use dijkstra::{sssp, ShortestPaths};
pub use sortreduce::{sssp_sortreduce, ExternalPaths};

/// SSSP, the registry's `sssp`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sssp;

#[derive(Clone, Copy, Debug, Default)]
pub struct Params {
    /// The root (an original id); default: a vertex of highest out-degree.
    pub root: Option<u64>,
    /// Delta-stepping (the default) rather than Dijkstra on the traverse engine.
    pub delta_stepping: bool,
    /// Whether `--method` or `--delta` was given (the sort-reduce engine,
    /// which has neither, refuses them rather than ignore them).
    pub method_given: bool,
    /// Its bucket width (default: the mean weight of the root's edges).
    pub delta: Option<f64>,
}

static INFO: Info = Info {
    name: "sssp",
    title: "SSSP",
    about: "Single-source shortest paths (delta-stepping on every core or Dijkstra with run-ahead, or Bellman-Ford on sort-reduce) on weighted stores",
    params: &[
        crate::params::ROOT,
        ParamSpec {
            name: "method",
            kind: ParamKind::Choice(&["dijkstra", "delta-stepping"]),
            default: Some("delta-stepping"),
            help:
                "Traverse engine: delta-stepping (every core, lists read in file order) or dijkstra (one thread, run-ahead over the heap)",
        },
        ParamSpec {
            name: "delta",
            kind: ParamKind::Real,
            default: None,
            help: "Delta-stepping's bucket width (default: the mean weight of the root's edges)",
        },
    ],
    engines: &[Engine::Traverse, Engine::SortReduce],
    columns: &[
        ColumnSpec { name: "distance", kind: ValueKind::Real, compare: Compare::Relative(1e-9) },
        ColumnSpec { name: "parent", kind: ValueKind::Vertex, compare: Compare::Validated },
    ],
};

impl Algorithm for Sssp {
    type Params = Params;

    fn info(&self) -> &'static Info {
        &INFO
    }

    fn parse(&self, a: &Args) -> Result<Params, StoreError> {
        let delta_stepping = a.choice("method", &["dijkstra", "delta-stepping"], "delta-stepping")? == "delta-stepping";
        let delta: Option<f64> = a.opt("delta")?;
        if let Some(d) = delta.filter(|d| !(*d > 0.0 && d.is_finite())) {
            return Err(StoreError::parameter("delta", format!("must be a positive number, not {d}")));
        }
        if delta.is_some() && !delta_stepping {
            return Err(StoreError::parameter("delta", "is delta-stepping's bucket width, and --method dijkstra has no buckets"));
        }
        let method_given = a.text("method").is_some() || delta.is_some();
        Ok(Params { root: a.opt("root")?, delta_stepping, method_given, delta })
    }

    fn support(&self, store: &Store, engine: Engine, p: &Params, opts: &RunOptions) -> Result<Support, StoreError> {
        let n = store.vertices();
        Ok(match engine {
            Engine::Traverse => {
                let (state, what) = if p.delta_stepping {
                    (delta::state_bytes(n, store.manifest().arcs), "distances, parents, rounds and bitmaps, and the index")
                } else {
                    (ShortestPaths::state_bytes(n), "distances, parents and heap, and the index")
                };
                match needs::traverse(store, &["out"], state, opts, what)? {
                    Support::Runs(need) => Support::Runs(need.with_weights(true)),
                    no => no,
                }
            }
            Engine::SortReduce if p.method_given => {
                Support::No("--method and --delta choose the traverse engine's version; sort-reduce runs Bellman-Ford".into())
            }
            Engine::SortReduce => match needs::sortreduce(store, &["out"], 16, opts)? {
                Support::Runs(need) => Support::Runs(need.with_weights(true)),
                no => no,
            },
            _ => Support::No("SSSP runs on the traverse and sort-reduce engines".into()),
        })
    }

    fn run(&self, cx: &mut Context, p: &Params) -> Result<Outcome, StoreError> {
        let store = cx.store;
        let n = store.vertices();
        let root = p.root.map(|r| cx.dense("root", r)).transpose()?;
        match cx.engine() {
            Engine::Traverse => {
                let state = if p.delta_stepping { delta::state_bytes(n, store.manifest().arcs) } else { ShortestPaths::state_bytes(n) };
                let mut g = Traverse::open(store, "out", cx.budget, &cx.options.traverse, state)?;
                let root = match root {
                    Some(r) => r,
                    None => {
                        crate::sources::traverse_hub(&g).ok_or_else(|| StoreError::invalid(store.dir(), "the store has no vertices"))?
                    }
                };
                let t = Instant::now();
                let sp = if p.delta_stepping {
                    let (sp, delta) = delta::sssp_delta(&g, root, p.delta, cx.budget)?;
                    cx.figure("method", "delta-stepping");
                    cx.figure("delta", delta);
                    cx.figure("buckets", sp.buckets);
                    sp
                } else {
                    cx.figure("method", "dijkstra");
                    sssp(&mut g, root, cx.budget)?
                };
                let seconds = t.elapsed().as_secs_f64();
                cx.set_seconds(seconds);
                cx.figure("root", store.ids()?.original(root)?);
                cx.figure("vertices_reached", sp.reached);
                cx.figure("edges_relaxed", sp.arcs_scanned);
                cx.figure("edges_traversed", sp.arcs_scanned);
                cx.figure("teps", sp.arcs_scanned as f64 / seconds.max(1e-9));
                traverse_figures(cx, &[g.stats()]);
                let (dist, parent, charge) = sp.into_parts();
                Ok(Outcome::new(vec![
                    Column { name: "distance", kind: ValueKind::Real, data: Box::new(Held { values: dist, charge }) },
                    Column::new("parent", ValueKind::Vertex, parent),
                ]))
            }
            Engine::SortReduce => {
                let root = match root {
                    Some(r) => r,
                    None => crate::sources::store_hub(store)?,
                };
                let engine = needs::open_sortreduce(cx, &["out"], 16)?;
                let t = Instant::now();
                let sp = sssp_sortreduce(engine, root)?;
                cx.set_seconds(t.elapsed().as_secs_f64());
                cx.figure("root", store.ids()?.original(root)?);
                cx.figure("vertices_reached", sp.reached);
                cx.figure("edges_relaxed", sp.arcs_scanned);
                cx.figure("supersteps", sp.supersteps);
                let stats = EngineStats::SortReduce(sp.engine.stats().clone(), 16);
                engine_figures(cx, &stats);
                cx.figure("engine_summary", stats.describe());
                Ok(Outcome::new(projections(
                    sp.engine,
                    sp.values,
                    &[
                        ("distance", ValueKind::Real, |x: &[f64; 2]| Value::F64(x[0])),
                        ("parent", ValueKind::Vertex, |x: &[f64; 2]| Value::U32(x[1] as u32)),
                    ],
                )))
            }
            _ => unreachable!("the plan refuses other engines for SSSP"),
        }
    }

    fn reference(&self, store: &Store, g: &MemGraph, p: &Params) -> Result<Outcome, StoreError> {
        if g.weights.is_none() {
            return Err(StoreError::NoWeights { store: store.dir().to_path_buf(), reader: "SSSP".into() });
        }
        let root = match p.root {
            Some(r) => store.ids()?.find(r)?.ok_or_else(|| StoreError::parameter("root", format!("{r} is not a vertex")))?,
            None => crate::sources::hub((0..g.vertices()).map(|v| (v, g.degree(v)))).unwrap_or(0),
        };
        Ok(Outcome::new(vec![Column::new("distance", ValueKind::Real, reference::sssp(g, root))]))
    }

    fn validate(&self, check: &Check, p: &Params) -> Result<Validation, StoreError> {
        const METHOD: &str = "Graph500 SSSP rules 1-5";
        let Some(dist) = check.outcome.column("distance") else {
            return Ok(Validation::fail(METHOD, "the run returned no distances"));
        };
        let n = check.store.vertices();
        let _charge = check.budget.reserve("SSSP validation: distances and parents", n * 12)?;
        let dist = dist.to_f64()?;
        if dist.len() as u64 != n {
            return Ok(Validation::fail(METHOD, format!("{} distances for {n} vertices", dist.len())));
        }
        let root_original = p.root.or_else(|| check.report.figure("root").and_then(|r| r.as_u64()));
        let root = match root_original {
            Some(r) => match check.store.ids()?.find(r)? {
                Some(d) => d as usize,
                None => return Ok(Validation::fail(METHOD, format!("the root {r} is not a vertex"))),
            },
            None => match dist.iter().position(|&d| d == 0.0) {
                Some(v) => v,
                None => return Ok(Validation::fail(METHOD, "no vertex is at distance 0")),
            },
        };
        let Some(parent) = check.outcome.column("parent") else {
            return Ok(Validation::fail(METHOD, "the run returned no parents"));
        };
        let parent = parent.to_u32()?;
        if parent.len() as u64 != n {
            return Ok(Validation::fail(METHOD, format!("{} parents for {n} vertices", parent.len())));
        }
        Ok(match validate::validate_sssp(check.store, root as u64, &parent, &dist, check.budget)? {
            Ok(v) => Validation::pass(METHOD, format!("valid shortest paths; {} edges in the root's component", v.edges)),
            Err(v) => Validation::fail(METHOD, v.to_string()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `--delta` must be a positive, finite number and goes with
    /// delta-stepping only; `--method` or `--delta`, either alone, counts
    /// as choosing the traverse engine's version (which sort-reduce
    /// refuses rather than ignores).
    #[test]
    fn parse_checks_delta_and_notes_a_chosen_method() {
        let parse = |a: Args| Sssp.parse(&a);
        for bad in ["0", "-0", "-1", "NaN", "inf", "-inf"] {
            let err = parse(Args::new().with("delta", bad)).unwrap_err().to_string();
            assert!(err.contains("delta") && err.contains("positive"), "--delta {bad}: {err}");
        }
        for good in [0.25, f64::MIN_POSITIVE, 1e300] {
            let p = parse(Args::new().with("delta", good)).unwrap();
            assert_eq!((p.delta, p.delta_stepping, p.method_given), (Some(good), true, true), "--delta {good}");
        }
        let err = parse(Args::new().with("delta", 1).with("method", "dijkstra")).unwrap_err().to_string();
        assert!(err.contains("no buckets"), "{err}");
        let p = parse(Args::new().with("method", "dijkstra")).unwrap();
        assert_eq!((p.delta, p.delta_stepping, p.method_given), (None, false, true));
        let p = parse(Args::new().with("method", "delta-stepping")).unwrap();
        assert_eq!((p.delta, p.delta_stepping, p.method_given), (None, true, true));
        let p = parse(Args::new()).unwrap();
        assert_eq!((p.delta, p.delta_stepping, p.method_given), (None, true, false));
    }
}
