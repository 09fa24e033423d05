//! Weakly connected components: every vertex labelled with the smallest id
//! of its component, direction ignored (Graphalytics WCC). Dense ids keep
//! the order of original ids, so the label is also the smallest original
//! id (in a reordered store: the component's first vertex in store order;
//! the partition is the same).
//!
//! Versions: on the traverse engine (4 bytes a vertex, the first choice
//! whenever its forest fits) [`afforest`] (a scan that links two
//! neighbours a vertex, then the lists outside the giant component only)
//! where the store is symmetric or has its `in` layout, else [`union_find`]
//! (one sequential scan, a link per edge, on every core); and label
//! propagation (G-Store section II; Graphalytics) on [`tiles`] (`memory`,
//! `stream`), [`interval`] (VENUS) and [`sortreduce`] (BigSparse): each
//! tuple lowers the larger label of its ends to the smaller until an
//! iteration changes nothing.

pub mod afforest;
mod forest;
pub mod interval;
pub mod reference;
pub mod sortreduce;
pub mod tiles;
pub mod union_find;
mod validate;

use crate::needs::{self, engine_figures, EngineStats};
use crate::params::{Args, ParamKind, ParamSpec};
use crate::plan::{Engine, Support};
use crate::run::{Algorithm, Check, ColumnSpec, Compare, Context, Info, RunOptions, Validation};
use crate::values::{Column, ColumnData, Held, Outcome, ValueKind};
use crate::MemGraph;
use outcore_store::{Store, StoreError};

pub use union_find::wcc;

/// The traverse engine's version.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Method {
    #[default]
    Auto,
    Afforest,
    UnionFind,
}

impl Method {
    /// Whether Afforest runs, or why not.
    fn afforest(self, store: &Store) -> Result<(), String> {
        match (self, afforest::unsupported(store)) {
            (Method::UnionFind, _) => Err("union-find was asked for".into()),
            (_, Some(why)) => Err(why),
            (_, None) => Ok(()),
        }
    }
}

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
    params: &[ParamSpec {
        name: "method",
        kind: ParamKind::Choice(&["auto", "afforest", "union-find"]),
        default: Some("auto"),
        help: "Traverse engine: afforest (symmetric stores, or directed ones with `in`), union-find (any store), or auto (afforest where it runs)",
    }],
    engines: &[Engine::Traverse, Engine::Memory, Engine::Stream, Engine::Interval, Engine::SortReduce],
    columns: &[ColumnSpec { name: "component", kind: ValueKind::Vertex, compare: Compare::Exact }],
};

impl Algorithm for Wcc {
    type Params = Method;

    fn info(&self) -> &'static Info {
        &INFO
    }

    fn parse(&self, a: &Args) -> Result<Method, StoreError> {
        Ok(match a.choice("method", &["auto", "afforest", "union-find"], "auto")? {
            "afforest" => Method::Afforest,
            "union-find" => Method::UnionFind,
            _ => Method::Auto,
        })
    }

    fn support(&self, store: &Store, engine: Engine, method: &Method, opts: &RunOptions) -> Result<Support, StoreError> {
        let n = store.vertices();
        Ok(match engine {
            Engine::Traverse if n >= u32::MAX as u64 => Support::No("union-find keeps 32-bit parents".into()),
            Engine::Traverse => match method.afforest(store) {
                Ok(()) => Support::Runs(crate::plan::Need::new(
                    // out, and in for a directed store
                    crate::neighbourhood::layouts(store),
                    afforest::state_bytes(n) + afforest::read_bytes(store)?,
                    "the Afforest parent array",
                )),
                Err(why) if *method == Method::Afforest => Support::No(why),
                Err(_) => needs::scan(store, &["out"], union_find::state_bytes(n), "the union-find parent array")?,
            },
            Engine::Memory | Engine::Stream => needs::tiles(store, engine, state_bytes(n), false, "one label a vertex"),
            Engine::Interval => needs::interval(store, needs::interval_layouts(store, true), 8, 0)?,
            Engine::SortReduce => needs::sortreduce(store, needs::interval_layouts(store, true), 8, opts)?,
        })
    }

    fn run(&self, cx: &mut Context, method: &Method) -> Result<Outcome, StoreError> {
        let started = std::time::Instant::now();
        let r = match cx.engine() {
            Engine::Traverse => {
                let bytes = cx.store.layout_bytes("out");
                let (values, charge, engine_stats) = match method.afforest(cx.store) {
                    Ok(()) => {
                        let (values, charge, stats) = afforest::wcc_charged(cx.store, cx.budget)?;
                        cx.figure("version", "afforest");
                        cx.figure("sampled_from", stats.sampled_from);
                        if stats.sampled_from != "hot" {
                            cx.figure("sampling_lanes", stats.sampling_lanes);
                            // what the hot layout would replace the sampling's reads with
                            let hot_bytes = afforest::hot_sampling_bytes(cx.store);
                            let instead = match stats.sampled_from {
                                "heads" => format!("reading the pages of every list's head in {}", outcore_io::format_bytes(bytes)),
                                _ => format!("scanning {}", outcore_io::format_bytes(bytes)),
                            };
                            let would_save = format!(
                                "sampling from the hot layout would read at most {} (degrees and two columns) instead of {instead}: outcore layout add STORE hot",
                                outcore_io::format_bytes(hot_bytes),
                            );
                            cx.figure("hot_layout_would_save", &would_save);
                            cx.note(would_save);
                        }
                        cx.figure("giant_component_vertices", stats.giant_vertices);
                        cx.figure("lists_read_outside_it", stats.lists_finished);
                        // what it read, counted: sampled from the hot layout or by the
                        // lists' heads it makes no pass over the adjacency
                        let passes = (stats.sampled_from == "scan") as u64;
                        (values, charge, EngineStats::Scan { bytes_read: stats.bytes_read, passes })
                    }
                    Err(why) => {
                        cx.figure("version", "union-find");
                        cx.figure("why_not_afforest", why);
                        let (values, charge) = union_find::wcc_charged(cx.store, cx.budget)?;
                        (values, charge, EngineStats::Scan { bytes_read: bytes, passes: 1 })
                    }
                };
                Labels { labels: Box::new(Held { values, charge }), iterations: 1, stats: Some(engine_stats) }
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

    fn reference(&self, _store: &Store, g: &MemGraph, _: &Method) -> Result<Outcome, StoreError> {
        Ok(Outcome::new(vec![Column::new("component", ValueKind::Vertex, reference::wcc(g))]))
    }

    fn validate(&self, check: &Check, _: &Method) -> Result<Validation, StoreError> {
        validate::validate(check)
    }
}
