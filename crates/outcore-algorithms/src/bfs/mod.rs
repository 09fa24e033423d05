//! Breadth-first search from a root along out-edges: every vertex's level
//! (hops from the root; Graphalytics BFS) and a parent in the BFS tree
//! (Graph500 kernel 2).
//!
//! Versions:
//! - [`top_down`]: the traverse engine with RASP run-ahead over the queue;
//! - [`hybrid`]: NETALX's direction-optimizing BFS on the traverse engine,
//!   with each vertex's first k in-neighbours in memory (directed graphs
//!   need the `in` layout); `auto` runs it where it can;
//! - [`tiles`]: level-synchronous on tiles (`memory`, `stream`; G-Store
//!   section II-B), run when asked for;
//! - [`sortreduce`]: level-synchronous on sort-reduce (BigSparse), levels
//!   and parents on disk: what `auto` picks when the traverse engine's
//!   state and index do not fit.
//!
//! The validator checks the Graph500 rules; the reference is a plain
//! queue-based BFS.

pub mod gathered;
pub mod hybrid;
pub mod reference;
pub mod sortreduce;
pub mod tiles;
pub mod top_down;
pub mod validate;

use crate::needs::{self, engine_figures, traverse_figures};
use crate::params::{Args, ParamKind, ParamSpec};
use crate::plan::{Engine, Support};
use crate::run::{Algorithm, Check, ColumnSpec, Compare, Context, Info, RunOptions, Validation};
use crate::values::{projections, Column, Held, Outcome, Value, ValueKind};
use crate::MemGraph;
use outcore_engines::Traverse;
use outcore_io::{Budget, Reservation};
use outcore_store::{Store, StoreError};
use serde_json::json;
use std::time::Instant;

pub use crate::values::UNREACHED_U32 as NONE;
pub use hybrid::{hybrid_bfs, HotLists, HybridEngines, HybridOptions, LevelStats};
pub use top_down::bfs;

/// BFS, the registry's `bfs`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Bfs;

/// Which way a traverse-engine BFS expands its frontier.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Direction {
    /// Hybrid where the store has the in-edges it needs, else top-down.
    #[default]
    Auto,
    TopDown,
    /// NETALX's direction-optimizing BFS.
    Hybrid,
}

#[derive(Clone, Copy, Debug)]
pub struct Params {
    /// The root (an original id); default: a vertex of highest out-degree.
    pub root: Option<u64>,
    pub direction: Direction,
    /// Hybrid switching thresholds (thesis section 3.4.4.4).
    pub alpha: f64,
    pub beta: f64,
    /// Searches in one run (the first from `root`, the others from random
    /// vertices of degree >= 1); the results are the last search's.
    pub repeat: usize,
}

impl Default for Params {
    fn default() -> Self {
        Params { root: None, direction: Direction::Auto, alpha: hybrid::DEFAULT_ALPHA, beta: hybrid::DEFAULT_BETA, repeat: 1 }
    }
}

/// A BFS (or shortest-path) tree over dense ids.
pub struct BfsTree {
    pub root: u64,
    /// Parent of each vertex; the root is its own parent; [`NONE`] if unreached.
    pub parent: Vec<u32>,
    /// Hops from the root; [`NONE`] if unreached.
    pub level: Vec<u32>,
    /// Vertices reached, the root included.
    pub reached: u64,
    /// Adjacency entries of the reached vertices (edges scanned).
    pub arcs_scanned: u64,
    _charges: Vec<Reservation>,
}

impl BfsTree {
    /// Memory of a top-down BFS: parent and level arrays, the queue, and
    /// a round's discovered pairs ([`top_down::round_bytes`]).
    pub fn state_bytes(vertices: u64, arcs: u64) -> u64 {
        vertices * 12 + top_down::round_bytes(arcs)
    }

    /// Parent and level arrays only (8 bytes per vertex).
    pub(crate) fn without_queue(vertices: u64, root: u64, budget: &Budget) -> Result<Self, StoreError> {
        check_ids(vertices, root)?;
        let charge = budget.reserve("BFS parent and level arrays", vertices * 8)?;
        Ok(BfsTree {
            root,
            parent: vec![NONE; vertices as usize],
            level: vec![NONE; vertices as usize],
            reached: 0,
            arcs_scanned: 0,
            _charges: vec![charge],
        })
    }

    /// Parent and level arrays and an empty queue with room for every vertex.
    pub(crate) fn new(vertices: u64, root: u64, budget: &Budget) -> Result<(Self, Vec<u32>), StoreError> {
        let mut tree = Self::without_queue(vertices, root, budget)?;
        tree._charges.push(budget.reserve("BFS queue", vertices * 4)?);
        Ok((tree, Vec::with_capacity(vertices as usize)))
    }

    /// The levels and parents as result columns (their charges go with them).
    fn into_columns(self) -> Vec<Column> {
        let charges = self._charges;
        let mut charges = charges.into_iter();
        let first = charges.next();
        let level = match first {
            Some(charge) => Column { name: "level", kind: ValueKind::Level, data: Box::new(Held { values: self.level, charge }) },
            None => Column::new("level", ValueKind::Level, self.level),
        };
        let parent = Column::new("parent", ValueKind::Vertex, self.parent);
        vec![level, parent]
    }
}

/// Dense ids must fit the 32-bit state, and the root must be a vertex.
pub(crate) fn check_ids(vertices: u64, root: u64) -> Result<(), StoreError> {
    if vertices >= u32::MAX as u64 {
        return Err(StoreError::parameter("root", "is in a store of more than 2^32-2 vertices, which traversals do not support"));
    }
    if root >= vertices {
        return Err(StoreError::parameter("root", format!("{root} is not a vertex")));
    }
    Ok(())
}

/// Edges a search traversed: arcs scanned, each undirected edge counted once.
fn edges_traversed(arcs_scanned: u64, directed: bool) -> u64 {
    if directed {
        arcs_scanned
    } else {
        arcs_scanned / 2
    }
}

static INFO: Info = Info {
    name: "bfs",
    title: "BFS",
    about: "Breadth-first search: levels and a parent tree (top-down or NETALX hybrid; or on tiles or sort-reduce)",
    params: &[
        crate::params::ROOT,
        ParamSpec {
            name: "direction",
            kind: ParamKind::Choice(&["auto", "top-down", "hybrid"]),
            default: Some("auto"),
            help: "top-down, hybrid (NETALX direction-optimizing), or auto (hybrid where the in-edges are there)",
        },
        ParamSpec {
            name: "alpha",
            kind: ParamKind::Real,
            default: Some("15"),
            help: "Hybrid: go bottom-up when the frontier's edges exceed the unvisited's / alpha",
        },
        ParamSpec {
            name: "beta",
            kind: ParamKind::Real,
            default: Some("4"),
            help: "Hybrid: back top-down when they fall below the unvisited's / beta",
        },
        ParamSpec {
            name: "repeat",
            kind: ParamKind::Count,
            default: Some("1"),
            help: "Searches in one run (then from random vertices of degree >= 1); later ones show a warm cache",
        },
    ],
    engines: &[Engine::Traverse, Engine::SortReduce, Engine::Memory, Engine::Stream],
    columns: &[
        ColumnSpec { name: "level", kind: ValueKind::Level, compare: Compare::Exact },
        ColumnSpec { name: "parent", kind: ValueKind::Vertex, compare: Compare::Validated },
    ],
};

/// Whether a traverse-engine BFS with these parameters is hybrid.
fn is_hybrid(store: &Store, p: &Params) -> bool {
    let has_in_edges = !store.manifest().directed || store.has_layout("in");
    match p.direction {
        Direction::Auto => has_in_edges,
        Direction::TopDown => false,
        Direction::Hybrid => true,
    }
}

impl Algorithm for Bfs {
    type Params = Params;

    fn info(&self) -> &'static Info {
        &INFO
    }

    fn parse(&self, a: &Args) -> Result<Params, StoreError> {
        let direction = match a.choice("direction", &["auto", "top-down", "hybrid"], "auto")? {
            "top-down" => Direction::TopDown,
            "hybrid" => Direction::Hybrid,
            _ => Direction::Auto,
        };
        let repeat: usize = a.get("repeat", 1)?;
        Ok(Params {
            root: a.opt("root")?,
            direction,
            alpha: a.get("alpha", hybrid::DEFAULT_ALPHA)?,
            beta: a.get("beta", hybrid::DEFAULT_BETA)?,
            repeat: repeat.max(1),
        })
    }

    fn support(&self, store: &Store, engine: Engine, p: &Params, opts: &RunOptions) -> Result<Support, StoreError> {
        let n = store.vertices();
        if engine != Engine::Traverse && p.repeat > 1 {
            return Ok(Support::No("repeated searches run on the traverse engine".into()));
        }
        Ok(match engine {
            Engine::Traverse if is_hybrid(store, p) => {
                let layouts: &[&'static str] = if store.manifest().directed { &["out", "in"] } else { &["out"] };
                let what = "parents, levels and frontier bitmaps, the index, and room for a column of in-memory neighbours";
                match needs::traverse(store, layouts, hybrid::state_bytes(n, store.manifest().arcs), opts, what)? {
                    // Without one hot column (half the room left goes to
                    // them) a bottom-up step reads every unvisited list: at
                    // Kronecker scale 24 under 192 MiB that took 1.4x the
                    // sort-reduce BFS, with k = 2 under 320 MiB 0.5x.
                    Support::Runs(need) => {
                        // half the room beyond the minimum (and, unless
                        // they are stored, beyond the scan of `in` that
                        // builds them, or for one search the scan of its
                        // dense steps, which gather them) goes to the hot
                        // lists: a column
                        let build = if outcore_store::hot::unusable(store, hybrid::hot_source(store, "in")).is_none() {
                            0
                        } else if p.repeat <= 1 {
                            let (least, lane) = hybrid::HotLists::gather_bytes(store, "in")?;
                            least + lane
                        } else {
                            hybrid::build_part_bytes(store, "in")?
                        };
                        let wanted = need.min_bytes + build + 2 * 4 * n;
                        Support::Runs(need.auto_at(wanted))
                    }
                    no => no,
                }
            }
            Engine::Traverse => needs::traverse(
                store,
                &["out"],
                BfsTree::state_bytes(n, store.manifest().arcs),
                opts,
                "parents, levels and queue, and the index",
            )?,
            _ if p.direction == Direction::Hybrid => {
                Support::No("it runs a level-synchronous top-down BFS; the hybrid BFS runs on the traverse engine".into())
            }
            Engine::SortReduce => needs::sortreduce(store, &["out"], 4, opts)?,
            Engine::Memory | Engine::Stream => {
                match needs::tiles(store, engine, tiles::state_bytes(n), false, "levels, parents and frontier bitmaps") {
                    Support::Runs(need) => Support::Runs(need.on_request()),
                    no => no,
                }
            }
            Engine::Interval => Support::No("BFS has no interval version".into()),
        })
    }

    fn run(&self, cx: &mut Context, p: &Params) -> Result<Outcome, StoreError> {
        let store = cx.store;
        let directed = store.manifest().directed;
        let root = p.root.map(|r| cx.dense("root", r)).transpose()?;
        match cx.engine() {
            Engine::Traverse => run_traverse(cx, p, root, directed),
            Engine::SortReduce => {
                let root = match root {
                    Some(r) => r,
                    None => crate::sources::store_hub(store)?,
                };
                let engine = needs::open_sortreduce(cx, &["out"], 4)?;
                let t = Instant::now();
                let tree = sortreduce::bfs_sortreduce(engine, root)?;
                cx.set_seconds(t.elapsed().as_secs_f64());
                let edges = edges_traversed(tree.arcs_scanned, directed);
                root_figures(cx, root)?;
                cx.figure("vertices_reached", tree.reached);
                cx.figure("depth", tree.depth);
                cx.figure("edges_traversed", edges);
                cx.figure("teps", edges as f64 / t.elapsed().as_secs_f64().max(1e-9));
                let stats = needs::EngineStats::SortReduce(tree.engine.stats().clone(), 4);
                engine_figures(cx, &stats);
                cx.figure("engine_summary", stats.describe());
                Ok(Outcome::new(projections(
                    tree.engine,
                    tree.values,
                    &[
                        ("level", ValueKind::Level, |x: &[u32; 2]| Value::U32(x[0])),
                        ("parent", ValueKind::Vertex, |x: &[u32; 2]| Value::U32(x[1])),
                    ],
                )))
            }
            Engine::Memory | Engine::Stream => {
                let root = match root {
                    Some(r) => r,
                    None => crate::sources::store_hub(store)?,
                };
                let t = Instant::now();
                let r = tiles::bfs_tiles(cx, root)?;
                cx.set_seconds(t.elapsed().as_secs_f64());
                root_figures(cx, root)?;
                cx.figure("vertices_reached", r.reached);
                cx.figure("depth", r.depth);
                cx.figure("iterations", r.depth);
                engine_figures(cx, &r.stats);
                cx.figure("engine_summary", r.stats.describe());
                Ok(Outcome::new(vec![
                    Column { name: "level", kind: ValueKind::Level, data: Box::new(Held { values: r.level, charge: r.charge }) },
                    Column::new("parent", ValueKind::Vertex, r.parent),
                ]))
            }
            Engine::Interval => unreachable!("the plan refuses the interval engine for BFS"),
        }
    }

    fn reference(&self, store: &Store, g: &MemGraph, p: &Params) -> Result<Outcome, StoreError> {
        let root = match p.root {
            Some(r) => store.ids()?.find(r)?.ok_or_else(|| StoreError::parameter("root", format!("{r} is not a vertex")))?,
            None => crate::sources::hub((0..g.vertices()).map(|v| (v, g.degree(v)))).unwrap_or(0),
        };
        let levels = reference::bfs_levels(g, root);
        Ok(Outcome::new(vec![Column::new("level", ValueKind::Level, levels)]))
    }

    fn validate(&self, check: &Check, p: &Params) -> Result<Validation, StoreError> {
        const METHOD: &str = "Graph500 BFS rules 1-5";
        let (Some(level), Some(parent)) = (check.outcome.column("level"), check.outcome.column("parent")) else {
            return Ok(Validation::fail(METHOD, "the run returned no levels or no parents"));
        };
        let n = check.store.vertices();
        let _charge = check.budget.reserve("BFS validation: levels and parents", n * 8)?;
        let (level, parent) = (level.to_u32()?, parent.to_u32()?);
        if level.len() as u64 != n || parent.len() as u64 != n {
            return Ok(Validation::fail(METHOD, format!("{} levels and {} parents for {n} vertices", level.len(), parent.len())));
        }
        let Some(root) = level.iter().position(|&l| l == 0) else {
            return Ok(Validation::fail(METHOD, "no vertex is at level 0"));
        };
        if let Some(r) = p.root {
            let want = check.store.ids()?.find(r)?;
            if want != Some(root as u64) {
                return Ok(Validation::fail(METHOD, format!("the vertex at level 0 is not the root {r}")));
            }
        }
        Ok(match validate::validate_bfs(check.store, root as u64, &parent, &level, check.budget)? {
            Ok(v) => Validation::pass(METHOD, format!("a valid BFS tree; {} edges in the root's component", v.edges)),
            Err(v) => Validation::fail(METHOD, v.to_string()),
        })
    }
}

/// The root as an original id, for the report.
fn root_figures(cx: &mut Context, root: u64) -> Result<(), StoreError> {
    let original = cx.store.ids()?.original(root)?;
    cx.figure("root", original);
    Ok(())
}

fn run_traverse(cx: &mut Context, p: &Params, root: Option<u64>, directed: bool) -> Result<Outcome, StoreError> {
    let store = cx.store;
    let n = store.vertices();
    let hybrid = is_hybrid(store, p);
    let start_setup = Instant::now();
    let mut runs = Vec::new();
    let opts = cx.options.traverse.clone();
    let ids = store.ids()?;
    let pick = |g: &Traverse| root.or_else(|| crate::sources::traverse_hub(g));
    let (mut hot_origin, mut hot_bytes, mut hot_short_of, mut gathered) = (None, 0, None, None);
    let (tree, levels, stats, setup, seconds, k) = if hybrid {
        let state = hybrid::state_bytes(n, store.manifest().arcs);
        let HybridEngines { out, inn, mut hot } = HybridEngines::open(store, cx.budget, &opts, state, p.repeat)?;
        let k = hot.k;
        (hot_origin, hot_bytes, hot_short_of) = (Some(hot.origin.clone()), hot.column_bytes(), hot.short_of.clone());
        let first = pick(&out).ok_or_else(|| StoreError::invalid(store.dir(), "the store has no vertices"))?;
        let setup = start_setup.elapsed().as_secs_f64();
        let mut last = None;
        let hybrid_opts = HybridOptions { alpha: p.alpha, beta: p.beta };
        for r in crate::sources::traverse_roots(&out, p.repeat, 0xB0075, Some(first)) {
            drop(last.take());
            let t = Instant::now();
            let (tree, levels) = hybrid_bfs(&out, inn.as_ref(), &mut hot, r, cx.budget, &hybrid_opts)?;
            let secs = t.elapsed().as_secs_f64();
            runs.push(json!({"root": ids.original(r)?, "seconds": secs, "edges": edges_traversed(tree.arcs_scanned, directed)}));
            last = Some((tree, levels, secs));
        }
        let (tree, levels, seconds) = last.unwrap();
        let mut stats = vec![out.stats()];
        stats.extend(inn.map(|g| g.stats()));
        gathered = hot.gathered();
        drop(hot);
        (tree, levels, stats, setup, seconds, Some(k))
    } else {
        let mut g = Traverse::open(store, "out", cx.budget, &opts, BfsTree::state_bytes(n, store.manifest().arcs))?;
        let first = pick(&g).ok_or_else(|| StoreError::invalid(store.dir(), "the store has no vertices"))?;
        let setup = start_setup.elapsed().as_secs_f64();
        let mut last = None;
        for r in crate::sources::traverse_roots(&g, p.repeat, 0xB0075, Some(first)) {
            drop(last.take());
            let t = Instant::now();
            let tree = bfs(&mut g, r, cx.budget)?;
            let secs = t.elapsed().as_secs_f64();
            runs.push(json!({"root": ids.original(r)?, "seconds": secs, "edges": edges_traversed(tree.arcs_scanned, directed)}));
            last = Some((tree, secs));
        }
        let (tree, seconds) = last.unwrap();
        (tree, Vec::<LevelStats>::new(), vec![g.stats()], setup, seconds, None)
    };
    let edges = edges_traversed(tree.arcs_scanned, directed);
    cx.set_seconds(seconds);
    cx.figure("direction", if hybrid { "hybrid" } else { "top-down" });
    cx.figure("root", ids.original(tree.root)?);
    cx.figure("vertices_reached", tree.reached);
    cx.figure("edges_traversed", edges);
    cx.figure("teps", if seconds > 0.0 { edges as f64 / seconds } else { 0.0 });
    // levels plus one, NONE (u32::MAX) wrapping to 0: a pass without a
    // branch on which vertices were reached (half of them at random on a
    // Kronecker graph: 0.14 s at scale 25 with one)
    cx.figure("depth", tree.level.iter().map(|&l| l.wrapping_add(1)).max().unwrap_or(0));
    traverse_figures(cx, &stats);
    if let Some(g) = &gathered {
        // the dense bottom-up steps' scans read beside the block caches
        cx.figure("bytes_read", stats.iter().map(|s| s.cache.bytes_read).sum::<u64>() + g.scanned_bytes);
    }
    cx.figure("setup_seconds", setup);
    cx.figure("hot_neighbours_k", k);
    if let Some(origin) = &hot_origin {
        if let hybrid::HotOrigin::Built { why_not_stored, seconds, .. } = origin {
            // what a stored hot layout would have saved this run
            cx.figure("hot_layout_would_save_seconds", seconds);
            cx.figure("why_hot_lists_were_built", why_not_stored);
            cx.note(format!(
                "the in-memory neighbours were built by a scan, {seconds:.2} s of the setup ({why_not_stored}); stored, each column loads by one sequential read"
            ));
        }
        if let (hybrid::HotOrigin::Gathered { why_not_stored }, Some(g)) = (origin, &gathered) {
            cx.figure("why_hot_lists_were_gathered", why_not_stored);
            cx.figure("gathered", g);
            let halved = match g.halvings {
                0 => String::new(),
                h => format!(", halved {h} times as their room filled"),
            };
            cx.note(format!(
                "the in-memory neighbours were gathered by the search ({why_not_stored}): its bottom-up steps kept the hottest {} neighbours (at most) of the {} vertices whose whole lists they read without finding a parent, {}{halved}; their dense steps read {} by scans of the layout in {:.2} s, which a stored hot layout would mostly spare",
                g.take,
                g.vertices,
                outcore_io::format_bytes(g.bytes),
                outcore_io::format_bytes(g.scanned_bytes),
                g.scanned_seconds,
            ));
        }
        if let Some(short_of) = hot_short_of {
            cx.note(short_of);
        }
        cx.figure("hot_lists", origin);
        // read from the hot layout or gathered by the scan, in the setup:
        // not in the cache's `bytes_read`, which counts the search's reads
        cx.figure("hot_list_bytes", hot_bytes);
    }
    cx.figure("levels", levels);
    cx.figure("runs", runs);
    Ok(Outcome::new(tree.into_columns()))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use outcore_ingest::{import_file, ImportOptions, NoProgress};

    /// A directed store of `arcs` over `n` vertices, with `in`, in `dir`.
    pub(crate) fn directed_store(dir: &std::path::Path, n: u64, arcs: impl Iterator<Item = (u64, u64)>) -> Store {
        let edges = dir.join("g.el");
        std::fs::write(&edges, arcs.map(|(a, b)| format!("{a} {b}\n")).collect::<String>()).unwrap();
        let opts = ImportOptions { directed: Some(true), in_layout: true, num_vertices: Some(n), ..Default::default() };
        import_file(&edges, &dir.join("s"), &opts, &NoProgress).unwrap();
        Store::open(&dir.join("s")).unwrap()
    }

    #[test]
    fn each_direction_is_parsed_as_named() {
        for (name, direction) in [("auto", Direction::Auto), ("top-down", Direction::TopDown), ("hybrid", Direction::Hybrid)] {
            assert_eq!(Bfs.parse(&Args::new().with("direction", name)).unwrap().direction, direction, "{name}");
        }
        assert_eq!(Bfs.parse(&Args::new()).unwrap().direction, Direction::Auto);
        assert!(Bfs.parse(&Args::new().with("direction", "sideways")).is_err());
    }

    /// On a directed cycle with its in-edges: repeated searches run on the
    /// traverse engine only, and there a top-down search needs less than a
    /// hybrid one (no in-edge index, frontier bitmaps or hot column).
    #[test]
    fn repeated_searches_and_the_top_down_need() {
        let dir = tempfile::tempdir().unwrap();
        let store = directed_store(dir.path(), 1000, (0..1000).map(|v| (v, (v + 1) % 1000)));
        let run = RunOptions::default();
        let params = |direction: &str| Bfs.parse(&Args::new().with("direction", direction).with("repeat", 2)).unwrap();
        for engine in [Engine::Memory, Engine::Stream, Engine::SortReduce, Engine::Interval] {
            match Bfs.support(&store, engine, &params("top-down"), &run).unwrap() {
                Support::No(why) => assert!(why.contains("repeated searches run on the traverse engine"), "{engine}: {why}"),
                Support::Runs(_) => panic!("{engine} runs repeated searches"),
            }
        }
        let need = |direction: &str| match Bfs.support(&store, Engine::Traverse, &params(direction), &run).unwrap() {
            Support::Runs(need) => need.min_bytes,
            Support::No(why) => panic!("{direction} on the traverse engine: {why}"),
        };
        let (top_down, hybrid) = (need("top-down"), need("hybrid"));
        assert!(top_down < hybrid, "top-down needs {top_down} bytes, hybrid {hybrid}");
        assert_eq!(need("auto"), hybrid, "auto searches both ways where the store has in-edges");
    }

    /// A round's pairs: 8 bytes each, at most one per arc of the round, in
    /// vectors that may hold twice their bytes.
    #[test]
    fn a_round_is_charged_twice_its_pairs() {
        for arcs in [0, 1, 1000, top_down::ROUND_ARCS, 1 << 40] {
            assert_eq!(top_down::round_bytes(arcs), 2 * 8 * arcs.min(top_down::ROUND_ARCS), "{arcs} arcs");
        }
    }

    /// A list longer than a round is a round of its own, wherever it
    /// stands: a star of ROUND_ARCS + 1 leaves.
    #[test]
    fn a_list_longer_than_a_round_is_a_round_of_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let leaves = top_down::ROUND_ARCS + 1;
        let store = directed_store(dir.path(), leaves + 1, (1..=leaves).map(|v| (0, v)));
        let g = Traverse::open(&store, "out", &Budget::unlimited(), &outcore_engines::TraverseOptions::default(), 0).unwrap();
        assert_eq!(g.degree(0), leaves);
        assert_eq!(top_down::round_end(&g, &[0, 5, 6], 0, 3), 1, "the hub first");
        assert_eq!(top_down::round_end(&g, &[5, 6, 0, 7], 0, 4), 2, "the hub after two leaves");
        assert_eq!(top_down::round_end(&g, &[5, 6, 0, 7], 2, 4), 3, "the hub alone");
        assert_eq!(top_down::round_end(&g, &[5, 6, 7], 0, 3), 3, "leaves only");
    }
}
