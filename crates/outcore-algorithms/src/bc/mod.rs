//! Betweenness centrality, Brandes (2001): for each source s, a BFS that
//! counts shortest paths sigma, then dependencies in reverse BFS order,
//!   delta_s(v) = sum over w with d(w) = d(v)+1 and v->w of sigma(v)/sigma(w) * (1 + delta_s(w)),
//! and BC(v) = sum over sources of delta_s(v), v != s. Exact for a given
//! set of sources; the sampled approximation (Brandes and Pich 2007) takes
//! k sources at random and scales by |V|/k. Like networkx, values are not
//! normalized and an undirected graph's are halved (each path is found
//! from both ends). With targets, only shortest paths that end at a target
//! count (networkx's `betweenness_centrality_subset`, before its scaling).
//!
//! Versions: [`traverse`] (semi-external, 32 bytes a vertex) and
//! [`sortreduce`] (fully external; directed stores need `in`).

pub mod reference;
pub mod sortreduce;
pub mod traverse;

use crate::needs::{self, engine_figures, EngineStats};
use crate::params::{Args, ParamKind, ParamSpec};
use crate::plan::{Engine, Support};
use crate::run::{Algorithm, Check, ColumnSpec, Compare, Context, Info, RunOptions, Validation};
use crate::values::{Column, Held, Outcome, ValueKind, VertexValues};
use crate::MemGraph;
use outcore_engines::Traverse;
use outcore_store::{Store, StoreError};

pub use sortreduce::bc_sortreduce;
pub use traverse::{bc_traverse, state_bytes};

/// Betweenness centrality, the registry's `bc`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Bc;

/// Which sources a BC run uses.
#[derive(Clone, Debug)]
pub enum Sources {
    /// Every vertex up to 4,096 vertices, else 64 drawn with `seed`.
    Default { seed: u64 },
    /// Every vertex: exact BC.
    All,
    /// These original ids: the exact partial sum over them.
    Given(Vec<u64>),
    /// `count` distinct vertices drawn with `seed`, sums scaled by |V|/count.
    Sample { count: u64, seed: u64 },
}

impl Default for Sources {
    fn default() -> Self {
        Sources::Default { seed: 1 }
    }
}

/// Sources as they are picked on a graph: the default made explicit.
enum Pick<'a> {
    All,
    Sample { count: u64, seed: u64 },
    Given(&'a [u64]),
}

impl Sources {
    /// How these sources are picked on `n` vertices.
    fn pick(&self, n: u64) -> Pick<'_> {
        match self {
            Sources::All => Pick::All,
            Sources::Default { .. } if n <= 4096 => Pick::All,
            Sources::Default { seed } => Pick::Sample { count: 64, seed: *seed },
            Sources::Sample { count, seed } => Pick::Sample { count: *count, seed: *seed },
            Sources::Given(ids) => Pick::Given(ids),
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct Params {
    pub sources: Sources,
    /// Original ids: count only shortest paths that end at one of these.
    pub targets: Option<Vec<u64>>,
}

impl Params {
    /// The bytes of the ids the parameters give (sources and targets),
    /// which a run and its validation hold throughout, beside the dense
    /// ids picked from them.
    fn given_bytes(&self) -> u64 {
        let sources = match &self.sources {
            Sources::Given(ids) => ids.len() as u64,
            _ => 0,
        };
        8 * (sources + self.targets_given())
    }
    /// The most a run holds of ids beside its state: those given, and the
    /// dense targets picked from them (at most one a target given).
    fn ids_bytes(&self) -> u64 {
        self.given_bytes() + 8 * self.targets_given()
    }
    fn targets_given(&self) -> u64 {
        self.targets.as_ref().map_or(0, |t| t.len() as u64)
    }
}

/// The targets as sorted, distinct dense ids.
pub fn pick_targets(store: &Store, targets: &Option<Vec<u64>>) -> Result<Option<Vec<u64>>, StoreError> {
    let Some(ids) = targets else { return Ok(None) };
    match store.ids()?.find_all(ids)? {
        Ok(mut dense) => {
            dense.sort_unstable();
            dense.dedup();
            Ok(Some(dense))
        }
        Err(missing) => Err(StoreError::parameter("target", format!("{missing} is not a vertex of {}", store.dir().display()))),
    }
}

/// The dense sources and the factor every sum is multiplied by.
pub fn pick_sources(store: &Store, sources: &Sources) -> Result<(Vec<u64>, f64, bool), StoreError> {
    let n = store.vertices();
    let half = if store.manifest().directed { 1.0 } else { 0.5 };
    let sample = |count: u64, seed: u64| -> Result<(Vec<u64>, f64, bool), StoreError> {
        if count == 0 {
            return Err(StoreError::parameter("sources", "must sample at least one source"));
        }
        if count >= n {
            return Ok(((0..n).collect(), half, true));
        }
        Ok((crate::sources::sample_without_replacement(n, count, seed), half * n as f64 / count as f64, false))
    };
    match sources.pick(n) {
        Pick::All => Ok(((0..n).collect(), half, true)),
        Pick::Sample { count, seed } => sample(count, seed),
        Pick::Given(ids) => match store.ids()?.find_all(ids)? {
            Ok(dense) => Ok((dense, half, true)),
            Err(missing) => Err(StoreError::parameter("source", format!("{missing} is not a vertex of {}", store.dir().display()))),
        },
    }
}

static INFO: Info = Info {
    name: "bc",
    title: "BC",
    about: "Betweenness centrality (Brandes): exact from given sources, or sampled",
    params: &[
        ParamSpec {
            name: "source",
            kind: ParamKind::Vertices,
            default: None,
            help: "Exact BC from these sources (original ids; repeat the flag for more)",
        },
        ParamSpec {
            name: "sources",
            kind: ParamKind::Text,
            default: None,
            help: "`all` (exact) or N: N sources sampled at random, sums scaled by |V|/N (default: all up to 4,096 vertices, else 64)",
        },
        ParamSpec { name: "seed", kind: ParamKind::Count, default: Some("1"), help: "Seed of the source sample" },
        ParamSpec {
            name: "target",
            kind: ParamKind::Vertices,
            default: None,
            help: "Count only shortest paths ending at these vertices (original ids; repeat the flag), as networkx's betweenness_centrality_subset",
        },
    ],
    engines: &[Engine::Traverse, Engine::SortReduce],
    columns: &[ColumnSpec { name: "centrality", kind: ValueKind::Real, compare: Compare::Relative(1e-9) }],
};

impl Algorithm for Bc {
    type Params = Params;

    fn info(&self) -> &'static Info {
        &INFO
    }

    fn parse(&self, a: &Args) -> Result<Params, StoreError> {
        let given: Vec<u64> = a.list("source")?;
        let seed = a.get("seed", 1)?;
        let sources = match (given.is_empty(), a.text("sources")) {
            (false, Some(_)) => return Err(StoreError::parameter("source", "and sources cannot be given together")),
            (false, None) => Sources::Given(given),
            (true, Some("all")) => Sources::All,
            (true, Some(k)) => Sources::Sample {
                count: k
                    .trim()
                    .parse()
                    .ok()
                    .filter(|&k: &u64| k > 0)
                    .ok_or_else(|| StoreError::parameter("sources", format!("takes 'all' or a positive count, not '{k}'")))?,
                seed,
            },
            (true, None) => Sources::Default { seed },
        };
        let targets: Vec<u64> = a.list("target")?;
        Ok(Params { sources, targets: (!targets.is_empty()).then_some(targets) })
    }

    fn support(&self, store: &Store, engine: Engine, p: &Params, opts: &RunOptions) -> Result<Support, StoreError> {
        let n = store.vertices();
        let layouts: &[&'static str] = if store.manifest().directed { &["out", "in"] } else { &["out"] };
        let what = "distances, path counts, dependencies and order, the ids given and picked, and the index";
        Ok(match engine {
            Engine::Traverse => needs::traverse(store, &["out"], state_bytes(n) + p.ids_bytes(), opts, what)?,
            Engine::SortReduce => match needs::sortreduce(store, layouts, 8, opts)? {
                // and the ids, held beside the engine
                Support::Runs(mut need) => {
                    need.min_bytes += p.ids_bytes();
                    need.auto_bytes += p.ids_bytes();
                    Support::Runs(need)
                }
                no => no,
            },
            _ => Support::No("BC runs on the traverse and sort-reduce engines".into()),
        })
    }

    fn run(&self, cx: &mut Context, p: &Params) -> Result<Outcome, StoreError> {
        let store = cx.store;
        let n = store.vertices();
        let (picked, scale, exact) = pick_sources(store, &p.sources)?;
        let targets = pick_targets(store, &p.targets)?;
        let _targets_charge =
            cx.budget.reserve("BC targets, and the ids given", targets.as_ref().map_or(0, |t| t.len() as u64 * 8) + p.given_bytes())?;
        cx.figure("sources", picked.len());
        cx.figure("targets", targets.as_ref().map(Vec::len));
        cx.figure("exact", exact);
        cx.figure("scale", scale);
        match cx.engine() {
            Engine::Traverse => {
                // sources in parallel where the budget has room for more than one worker's state
                let spare = cx
                    .budget
                    .available()
                    .saturating_sub(Traverse::min_bytes(store, "out", cx.options.traverse.block_bytes)? + state_bytes(n));
                let workers = traverse::workers(n, picked.len(), spare, rayon::current_num_threads());
                cx.figure("workers", workers);
                let g = Traverse::open(store, "out", cx.budget, &cx.options.traverse, state_bytes(n) * workers as u64)?;
                let (values, arcs) = bc_traverse(&g, &picked, targets.as_deref(), scale, workers, cx.budget, cx.progress())?;
                let charge = cx.budget.reserve("BC values", n * 8)?;
                cx.figure("arcs_read", arcs);
                cx.figure("bytes_read", g.stats().cache.bytes_read);
                Ok(Outcome::new(vec![Column { name: "centrality", kind: ValueKind::Real, data: Box::new(Held { values, charge }) }]))
            }
            Engine::SortReduce => {
                let directed = store.manifest().directed;
                let layouts: &[&str] = if directed { &["out", "in"] } else { &["out"] };
                let mut engine = needs::open_sortreduce(cx, layouts, 8)?;
                let values =
                    bc_sortreduce(&mut engine, if directed { "in" } else { "out" }, &picked, targets.as_deref(), scale, cx.progress())?;
                let stats = EngineStats::SortReduce(engine.stats().clone(), 8);
                engine_figures(cx, &stats);
                cx.figure("engine_summary", stats.describe());
                Ok(Outcome::new(vec![Column::new("centrality", ValueKind::Real, VertexValues::external(engine, values))]))
            }
            _ => unreachable!("the plan refuses other engines for BC"),
        }
    }

    fn reference(&self, store: &Store, g: &MemGraph, p: &Params) -> Result<Outcome, StoreError> {
        let (picked, scale, _) = pick_sources(store, &p.sources)?;
        let targets = pick_targets(store, &p.targets)?;
        let values: Vec<f64> = reference::bc_subset(g, &picked, targets.as_deref()).into_iter().map(|x| x * scale).collect();
        Ok(Outcome::new(vec![Column::new("centrality", ValueKind::Real, values)]))
    }

    fn reference_bytes(&self, store: &Store, p: &Params) -> u64 {
        let n = store.vertices();
        // as many as pick_sources and pick_targets pick, or more
        let sources = match p.sources.pick(n) {
            Pick::All => n,
            Pick::Sample { count, .. } => n.min(count),
            Pick::Given(ids) => ids.len() as u64,
        };
        reference::bytes(n, sources, p.targets.as_ref().map_or(0, |t| t.len() as u64)) + p.given_bytes()
    }

    fn validate(&self, check: &Check, p: &Params) -> Result<Validation, StoreError> {
        check.by_reference(self, p)
    }
}
