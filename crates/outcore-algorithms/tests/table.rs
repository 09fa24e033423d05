//! Every algorithm of the registry, on every engine it declares, on every
//! encoding, on Graphalytics and real graphs: its result equals its
//! in-memory reference (by the rule its columns declare), its validator
//! passes it, and the validator fails it once one value is damaged. Adding
//! an algorithm is one module and one registry line; this test picks it up.

mod common;

use common::*;
use outcore_algorithms::pagerank;
use outcore_algorithms::params::Args;
use outcore_algorithms::registry::Registered;
use outcore_algorithms::run::Compare;
use outcore_algorithms::values::{Column, Outcome, ValueKind};
use outcore_algorithms::{Engine, Error, MemGraph, RunOptions};
use outcore_engines::sortreduce::SortReduceOptions;
use outcore_engines::{IntervalOptions, StreamOptions};
use outcore_ingest::recode::{recode, RecodeOptions};
use outcore_ingest::{import_file, tiles::add_tiles, ImportOptions, NoProgress};
use outcore_io::Budget;
use outcore_store::{Encoding, Store, StoreError};
use std::collections::BTreeMap;
use std::path::Path;

/// Small segments, pools, intervals and batches: every engine reads,
/// evicts, cuts and merges more than once even on small graphs (sort-reduce
/// batches of 500 updates, or a sixteenth of the arcs on larger graphs:
/// then 16 runs an iteration, still merged at fan-in 3 in three levels).
fn options(engine: Engine, n: u64, arcs: u64) -> RunOptions {
    RunOptions {
        stream: StreamOptions {
            segment_bytes: Some(16 << 10),
            pool_bytes: (engine == Engine::Stream).then_some(64 << 10),
            ..Default::default()
        },
        interval: IntervalOptions { max_interval_values: Some((n / 4).max(4)), ..Default::default() },
        sortreduce: SortReduceOptions {
            max_batch_updates: Some((arcs as usize / 16).max(500)),
            max_fan_in: Some(3),
            lookup_threads: 2,
            ..Default::default()
        },
        ..on(engine)
    }
}

/// Parameters that keep the table fast (BC from a few sources).
fn args(alg: &dyn Registered) -> Args {
    match alg.info().name {
        "bc" => Args::new().with("sources", 6).with("seed", 3),
        "cdlp" => Args::new().with("iterations", 4),
        "pagerank" => Args::new().with("iterations", 12),
        _ => Args::new(),
    }
}

/// Parameters other than the defaults, each checked against the reference
/// with the same parameters: damping 0.5 and 0.99, several tolerances,
/// other CDLP iteration counts, BFS (top-down and hybrid) and SSSP from
/// several roots, another
/// BC sample. `roots` are original ids of vertices of the graph, which has
/// `arcs` arcs.
fn other_args(alg: &dyn Registered, roots: &[u64], arcs: u64) -> Vec<Args> {
    let from = |name: &str| roots.iter().map(|&r| Args::new().with(name, r)).collect();
    match alg.info().name {
        "pagerank" => vec![
            // the defaults: until converged by networkx's rule
            Args::new(),
            // one step: its L1 change starts from the initial ranks (sinks' included)
            Args::new().with("iterations", 1),
            Args::new().with("damping", 0.5).with("tolerance", 1e-9),
            Args::new().with("damping", 0.99).with("iterations", 30),
            Args::new().with("damping", 0.99).with("tolerance", 1e-4).with("iterations", 100),
            Args::new().with("tolerance", 1e-3),
        ],
        "cdlp" => vec![Args::new().with("iterations", 1), Args::new().with("iterations", 7)],
        // the traverse engine's two versions, each asked for
        "wcc" => vec![Args::new().with("method", "afforest"), Args::new().with("method", "union-find")],
        "bfs" => {
            let mut sets: Vec<Args> = from("root");
            sets.extend(roots.iter().map(|&r| Args::new().with("root", r).with("direction", "top-down")));
            // a hybrid that switches direction often
            sets.push(Args::new().with("root", roots[0]).with("direction", "hybrid").with("alpha", 2).with("beta", 1000));
            sets
        }
        "sssp" => {
            // delta-stepping (the default) from every root, with narrow buckets, and Dijkstra
            let mut sets: Vec<Args> = from("root");
            sets.push(Args::new().with("root", roots[1]).with("delta", 0.05));
            sets.extend(roots.iter().map(|&r| Args::new().with("root", r).with("method", "dijkstra")));
            sets
        }
        "bc" => vec![Args::new().with("sources", 3).with("seed", 11)],
        // forward lists in many parts (one entry each on the small graphs,
        // a few dozen on the real ones): one pass over all of them per part
        "triangles" | "lcc" => vec![Args::new().with("part_entries", (arcs / 32).max(1)), Args::new().with("part_entries", 700)],
        // colouring rounds to the end, or until a few arcs are left to Tarjan
        "scc" => vec![Args::new().with("in_memory_arcs", 0), Args::new().with("in_memory_arcs", 50)],
        _ => Vec::new(),
    }
}

/// Roots for [`other_args`]: the first vertex with an out-edge, one of
/// degree one if there is one, the middle vertex and the last (original ids).
fn roots(st: &Store, g: &MemGraph) -> Vec<u64> {
    let n = g.vertices();
    let first = (0..n).find(|&v| g.degree(v) > 0).unwrap_or(0);
    let leaf = (0..n).find(|&v| g.degree(v) == 1).unwrap_or(first);
    let mut dense = vec![first, leaf, n / 2, n - 1];
    dense.dedup();
    let ids = st.id_map(&Budget::unlimited()).unwrap();
    dense.iter().map(|&v| ids.original(v)).collect()
}

/// A report's counters, computed again from the in-memory graph and the
/// result: BFS's traversed edges (the out-degrees of the reached vertices,
/// an undirected edge once) and reached vertices, Dijkstra's relaxed arcs,
/// PageRank's iterations and last L1 change (the reference stopped by the
/// same rule), CDLP's iterations.
fn check_counters(alg: &dyn Registered, st: &Store, g: &MemGraph, a: &Args, run: &outcore_algorithms::Run, what: &str) {
    let n = g.vertices();
    let report = &run.report;
    let number = |key: &str| report.figure(key).and_then(|x| x.as_f64()).unwrap_or_else(|| panic!("{what}: no figure {key}"));
    let reached = |column: &str| -> Vec<u64> {
        let c = run.outcome.column(column).unwrap();
        match c.kind {
            ValueKind::Real => c.to_f64().unwrap().iter().enumerate().filter(|(_, x)| x.is_finite()).map(|(v, _)| v as u64).collect(),
            _ => c.to_u64().unwrap().iter().enumerate().filter(|(_, &x)| x != u64::MAX).map(|(v, _)| v as u64).collect(),
        }
    };
    match alg.info().name {
        "pagerank" => {
            // the stopping rule as README states it: `iterations` alone runs
            // exactly that many; otherwise until the L1 change is below the
            // tolerance (default 1e-6 x |V|), at most `iterations` (default 1000)
            let damping: f64 = a.get("damping", 0.85).unwrap();
            let given: Option<u32> = a.opt("iterations").unwrap();
            let tolerance: Option<f64> = a.opt("tolerance").unwrap().or(given.is_none().then_some(1e-6 * n as f64));
            let (_, done, delta) = pagerank::reference::pagerank_until(g, damping, given.unwrap_or(1000), tolerance);
            assert_eq!(number("iterations"), done as f64, "{what}: iterations ({a:?})");
            let last = number("last_l1_change");
            assert!((last - delta).abs() <= 1e-9 * delta + 1e-15, "{what}: last L1 change {last:e}, reference {delta:e}");
            let stopped_by = match tolerance {
                Some(t) if delta < t => "converged",
                Some(_) => "iteration limit (not converged)",
                None => "fixed iterations",
            };
            assert_eq!(report.figure("stopped_by").and_then(|x| x.as_str()), Some(stopped_by), "{what}: stopped by");
            if report.engine == Engine::Traverse {
                // one sequential scan of `out` an iteration
                assert_eq!(number("passes"), done as f64, "{what}: passes");
                assert_eq!(number("bytes_read"), (done as u64 * st.layout_bytes("out")) as f64, "{what}: bytes read");
            }
            // ranks and contributions (f64) and out-degrees (u32) held in memory
            if matches!(report.engine, Engine::Memory | Engine::Stream | Engine::Traverse) {
                assert!(report.budget_peak_bytes >= 20 * n, "{what}: charged {} bytes for {n} vertices", report.budget_peak_bytes);
            }
        }
        "cdlp" => {
            let iterations = a.get("iterations", 0u32).unwrap() as u64;
            assert_eq!(number("iterations"), iterations as f64, "{what}: iterations");
            let labels = run.outcome.column("community").unwrap().to_u64().unwrap();
            let kept = labels.iter().enumerate().filter(|&(v, &l)| v as u64 == l).count();
            assert_eq!(number("labels_kept_by_their_vertex"), kept as f64, "{what}: labels kept by their vertex");
            if report.engine == Engine::Traverse {
                // every variant has `in` or is undirected: one scan of
                // `out` an iteration, with `in` beside it when directed
                let lockstep = st.manifest().directed;
                let bytes = st.layout_bytes("out") + if lockstep { st.layout_bytes("in") } else { 0 };
                assert_eq!(number("passes"), (iterations * (1 + lockstep as u64)) as f64, "{what}: passes");
                assert_eq!(number("bytes_read"), (iterations * bytes) as f64, "{what}: bytes read");
                assert_eq!(number("bands_per_iteration"), 1.0, "{what}: bands");
                assert!(report.figure("band_bytes").is_none(), "{what}: a band without bands");
            }
            // labels and next labels (u64 each) held in memory by the tile and scan versions
            if matches!(report.engine, Engine::Memory | Engine::Stream | Engine::Traverse) {
                assert!(report.budget_peak_bytes >= 16 * n, "{what}: charged {} bytes for {n} vertices", report.budget_peak_bytes);
            }
        }
        "spmv" => {
            // the norm of y, from the reference's y (x all ones, the table's parameters)
            let y = outcore_algorithms::spmv::reference::spmv(g, &vec![1.0; n as usize]);
            let norm = y.iter().map(|y| y * y).sum::<f64>().sqrt();
            let got = number("y_l2_norm");
            assert!((got - norm).abs() <= 1e-9 * norm.max(1.0), "{what}: |y| {got}, reference {norm}");
            assert_eq!(number("iterations"), 1.0, "{what}: iterations");
            // x and y (f64 each) held in memory by the tile and scan versions
            if matches!(report.engine, Engine::Memory | Engine::Stream | Engine::Traverse) {
                assert!(report.budget_peak_bytes >= 16 * n, "{what}: charged {} bytes for {n} vertices", report.budget_peak_bytes);
            }
        }
        "wcc" => {
            // components counted by a plain breadth-first search of the
            // in-memory graph, direction ignored
            let mut neighbours = vec![Vec::new(); n as usize];
            for u in 0..n {
                for &v in g.neighbours(u) {
                    neighbours[u as usize].push(v);
                    neighbours[v as usize].push(u);
                }
            }
            let (mut seen, mut components) = (vec![false; n as usize], 0u64);
            for s in 0..n as usize {
                if seen[s] {
                    continue;
                }
                components += 1;
                seen[s] = true;
                let mut queue = vec![s as u64];
                while let Some(u) = queue.pop() {
                    for &v in &neighbours[u as usize] {
                        if !std::mem::replace(&mut seen[v as usize], true) {
                            queue.push(v);
                        }
                    }
                }
            }
            assert_eq!(number("components"), components as f64, "{what}: components");
            if report.engine == Engine::Traverse {
                // the variants all have `in` (or are symmetric): Afforest runs unless union-find is asked for
                let method: String = a.get("method", "auto".to_string()).unwrap();
                let version = if method == "union-find" { "union-find" } else { "afforest" };
                assert_eq!(report.figure("version").and_then(|x| x.as_str()), Some(version), "{what}: version");
                assert_eq!(number("iterations"), 1.0, "{what}: iterations");
                // Afforest's parents (u32) and union-find's, held in memory
                assert!(report.budget_peak_bytes >= 4 * n, "{what}: charged {} bytes for {n} vertices", report.budget_peak_bytes);
            }
            // label propagation's iterations against a synchronous
            // propagation's rounds: sort-reduce applies a round's updates
            // together, at the start of the next superstep, so it runs one
            // superstep more than there are rounds (the last applies the
            // round that changed nothing) unless there is no arc to push
            // along; tiles and intervals update in place, so at most as
            // many as the rounds, and at least two once some label moves
            // (the last iteration changes nothing)
            let rounds = outcore_algorithms::wcc::reference::propagation_rounds(g) as f64;
            let iterations = number("iterations");
            match report.engine {
                Engine::SortReduce => {
                    let supersteps = if g.arcs() > 0 { rounds + 1.0 } else { 1.0 };
                    assert_eq!(iterations, supersteps, "{what}: supersteps, for {rounds} rounds of a synchronous propagation")
                }
                Engine::Memory | Engine::Stream | Engine::Interval => assert!(
                    iterations <= rounds && iterations >= rounds.min(2.0),
                    "{what}: {iterations} iterations, {rounds} rounds of a synchronous propagation"
                ),
                _ => {}
            }
            if matches!(report.engine, Engine::Memory | Engine::Stream) {
                // a label a vertex, 8 bytes
                assert!(report.budget_peak_bytes >= 8 * n, "{what}: charged {} bytes for {n} vertices", report.budget_peak_bytes);
            }
        }
        "bfs" => {
            let reached = reached("level");
            assert_eq!(number("vertices_reached"), reached.len() as f64, "{what}: vertices reached");
            let arcs: u64 = reached.iter().map(|&v| g.degree(v)).sum();
            let edges = if st.manifest().directed { arcs } else { arcs / 2 };
            if report.engine != Engine::Memory && report.engine != Engine::Stream {
                assert_eq!(number("edges_traversed"), edges as f64, "{what}: edges traversed");
            }
            if report.engine == Engine::Traverse {
                let teps = number("edges_traversed") / report.seconds.max(1e-9);
                assert!((number("teps") - teps).abs() <= 1e-12 * teps, "{what}: TEPS {}, {teps} from edges and seconds", number("teps"));
                if let Some(direction) = a.text("direction") {
                    assert_eq!(report.figure("direction").and_then(|x| x.as_str()), Some(direction), "{what}: direction");
                }
            }
        }
        "sssp" if report.engine == Engine::Traverse => {
            let reached = reached("distance");
            assert_eq!(number("vertices_reached"), reached.len() as f64, "{what}: vertices reached");
            let arcs: u64 = reached.iter().map(|&v| g.degree(v)).sum();
            let method = a.text("method").unwrap_or("delta-stepping");
            assert_eq!(report.figure("method").and_then(|x| x.as_str()), Some(method), "{what}: method");
            if method == "dijkstra" {
                assert_eq!(number("edges_relaxed"), arcs as f64, "{what}: arcs relaxed");
            } else {
                // a vertex whose distance drops again is read again
                assert!(number("edges_relaxed") >= arcs as f64, "{what}: arcs relaxed");
                // the bucket width: as asked, or the mean weight of the
                // root's edges (1 where that is not a positive number)
                let root = st.ids().unwrap().find(number("root") as u64).unwrap().unwrap();
                let weights = g.edge_weights(root).unwrap();
                let mean = weights.iter().map(|&w| w as f64).sum::<f64>() / weights.len().max(1) as f64;
                let default = if mean > 0.0 && mean.is_finite() { mean } else { 1.0 };
                let delta = a.opt::<f64>("delta").unwrap().unwrap_or(default);
                assert_eq!(number("delta"), delta, "{what}: delta");
                // every bucket a final distance falls in is settled once,
                // and no other: a bucket is the lowest holding a tentative
                // vertex only when that vertex's distance is final in it
                let dist = run.outcome.column("distance").unwrap().to_f64().unwrap();
                let buckets: std::collections::BTreeSet<u64> = reached.iter().map(|&v| (dist[v as usize] / delta) as u64).collect();
                assert_eq!(number("buckets"), buckets.len() as f64, "{what}: buckets");
            }
            let teps = number("edges_relaxed") / report.seconds.max(1e-9);
            assert!((number("teps") - teps).abs() <= 1e-12 * teps, "{what}: TEPS {}, {teps} from edges and seconds", number("teps"));
        }
        _ => {}
    }
}

/// The store in every encoding, with out, in and small tiles.
fn variants(input: &Path, directed: Option<bool>, weighted: bool, dir: &Path) -> Vec<(Encoding, Store)> {
    let raw = dir.join("raw32");
    import_file(input, &raw, &ImportOptions { directed, weighted, in_layout: true, ..Default::default() }, &NoProgress).unwrap();
    let mut out = Vec::new();
    for encoding in [Encoding::Raw32, Encoding::Raw64, Encoding::Ceesor, Encoding::Gapref] {
        let path = if encoding == Encoding::Raw32 {
            raw.clone()
        } else {
            let p = dir.join(encoding.name());
            let o = RecodeOptions { encoding: Some(encoding), order: "none".into(), memory: 256 << 20, force: true, layouts: None };
            recode(&raw, &p, None, &o, &outcore_io::NoProgress).unwrap();
            p
        };
        add_tiles(&path, 3, 7, 64 << 20, &outcore_io::NoProgress).unwrap();
        out.push((encoding, Store::open(&path).unwrap()));
    }
    out
}

/// `outcome` with one value of its first column damaged, if there is one to damage.
fn damaged(alg: &dyn Registered, outcome: &Outcome, n: u64) -> Option<Outcome> {
    let first = &outcome.columns[0];
    let spec = &alg.info().columns[0];
    let mut columns: Vec<Column> = Vec::new();
    match first.kind {
        ValueKind::Real => {
            let mut x = first.to_f64().unwrap();
            let v = (0..x.len()).find(|&v| x[v].is_finite() && x[v] > 0.0)?;
            x[v] = x[v] * 1.5 + 1.0;
            columns.push(Column::new(spec.name, first.kind, x));
        }
        ValueKind::Level => {
            let mut x = first.to_u64().unwrap();
            let v = (0..x.len()).find(|&v| x[v] != u64::MAX && x[v] > 0)?;
            x[v] += 1;
            columns.push(Column::new(spec.name, first.kind, x));
        }
        ValueKind::Vertex | ValueKind::Count => {
            let mut x = first.to_u64().unwrap();
            // a vertex labelled by another takes its own id
            let v = (0..x.len()).find(|&v| x[v] != v as u64)?;
            x[v] = if alg.info().name == "wcc" { v as u64 } else { (x[v] + 1) % n };
            columns.push(Column::new(spec.name, first.kind, x));
        }
    }
    for c in &outcome.columns[1..] {
        let kind = c.kind;
        if kind == ValueKind::Real {
            columns.push(Column::new(c.name, kind, c.to_f64().unwrap()));
        } else {
            columns.push(Column::new(c.name, kind, c.to_u64().unwrap()));
        }
    }
    Some(Outcome::new(columns))
}

/// The table's first half (its other test runs the rest): the two run
/// side by side, so the suite waits for the longer half only.
const FIRST_HALF: &[&str] = &["pagerank", "cdlp", "bc", "triangles", "kcore", "scc"];

#[test]
fn pagerank_cdlp_bc_triangles_kcore_and_scc_on_every_engine_and_encoding_equal_their_references() {
    table(registered().into_iter().filter(|a| FIRST_HALF.contains(&a.info().name)).collect());
}

#[test]
fn the_other_algorithms_on_every_engine_and_encoding_equal_their_references() {
    table(registered().into_iter().filter(|a| !FIRST_HALF.contains(&a.info().name)).collect());
}

fn table(algorithms: Vec<&'static dyn Registered>) {
    if algorithms.is_empty() {
        // OUTCORE_TABLE_ONLY named none of this half
        return;
    }
    let cases: [(&str, Option<bool>, bool); 5] = [
        ("graphalytics/evlp/example-directed.properties", None, true),
        ("graphalytics/evlp/example-undirected.properties", None, true),
        ("graphalytics/evlp/test-wcc-directed.properties", None, false),
        ("real/CA-GrQc.txt", Some(false), false),
        ("real/wiki-Vote.txt", Some(true), false),
    ];
    let mut ran: BTreeMap<(String, Engine), usize> = BTreeMap::new();
    let mut damaged_failed = 0;
    for (file, directed, weighted) in cases {
        let dir = tempfile::tempdir().unwrap();
        for (encoding, st) in variants(&shared().join(file), directed, weighted, dir.path()) {
            let g = MemGraph::load(&st, "out", &Budget::unlimited()).unwrap();
            let n = st.vertices();
            for &alg in &algorithms {
                let info = alg.info();
                let mut sets = vec![args(alg)];
                if matches!(encoding, Encoding::Raw32 | Encoding::Gapref) {
                    sets.extend(other_args(alg, &roots(&st, &g), st.manifest().arcs));
                }
                for a in sets {
                    let want = match bounded(&format!("{} reference ({file}, {a:?})", info.name), || alg.reference(&st, &g, &a)) {
                        Ok(w) => w,
                        // ALS needs a ratings store: tests/als.rs checks it on every engine and encoding
                        Err(Error::Store(StoreError::NoWeights { .. } | StoreError::NotBipartite { .. })) => continue,
                        Err(e) => panic!("{} reference on {file}: {e}", info.name),
                    };
                    for &engine in info.engines {
                        let what = format!("{} on {engine} ({file}, {}, {a:?})", info.name, encoding.name());
                        let mut run = match bounded(&what, || alg.run(&st, &a, &options(engine, n, st.manifest().arcs))) {
                            Ok(r) => r,
                            // combinations the algorithm declines, or weights it lacks
                            // (only where the store has none: a weighted store refused
                            // as unweighted is a failure)
                            Err(Error::Unsupported { .. }) => continue,
                            Err(Error::Store(StoreError::NoWeights { .. })) if !st.manifest().weighted => continue,
                            Err(e) => panic!("{what}: {e}"),
                        };
                        assert_eq!(run.report.engine, engine, "{what}");
                        for spec in info.columns {
                            let got = run.outcome.column(spec.name).unwrap_or_else(|| panic!("{what}: no column {}", spec.name));
                            assert_eq!(got.kind, spec.kind, "{what}: kind of {}", spec.name);
                            if spec.compare != Compare::Validated {
                                let w =
                                    want.column(spec.name).unwrap_or_else(|| panic!("{what}: the reference has no column {}", spec.name));
                                if let Err(why) = outcore_algorithms::compare::columns(spec, got, w).unwrap() {
                                    panic!("{what}: {why}");
                                }
                            }
                        }
                        bounded(&what, || check_counters(alg, &st, &g, &a, &run, &what));
                        let verdict = bounded(&what, || alg.validate(&st, &a, &run)).unwrap_or_else(|e| panic!("{what}: validation: {e}"));
                        assert!(verdict.passed, "{what}: the validator failed a correct result: {}", verdict.detail);
                        if let Some(bad) = damaged(alg, &run.outcome, n) {
                            run.replace_outcome(bad);
                            let verdict = bounded(&what, || alg.validate(&st, &a, &run)).unwrap();
                            assert!(!verdict.passed, "{what}: the validator passed a damaged result ({})", verdict.detail);
                            damaged_failed += 1;
                        }
                        *ran.entry((info.name.to_string(), engine)).or_default() += 1;
                    }
                }
            }
        }
    }
    // every declared pair ran somewhere (but those an algorithm declines)
    for &alg in &algorithms {
        for &engine in alg.info().engines {
            let declined = matches!((alg.info().name, engine), ("cdlp" | "spmv", Engine::SortReduce) | ("als", _));
            assert_eq!(ran.contains_key(&(alg.info().name.to_string(), engine)), !declined, "{} on {engine}", alg.info().name);
        }
    }
    assert!(damaged_failed > 10 * algorithms.len(), "only {damaged_failed} damaged results checked");
}

/// PageRank's validator on `ranks` in place of what run `r` found.
fn validate_ranks(
    st: &Store,
    p: &pagerank::Params,
    r: &mut outcore_algorithms::Run,
    ranks: Vec<f64>,
) -> outcore_algorithms::run::Validation {
    r.replace_outcome(Outcome::new(vec![Column::new("rank", ValueKind::Real, ranks)]));
    outcore_algorithms::run::validate(&pagerank::PageRank, st, p, r).unwrap()
}

/// PageRank's validator checks the ranks' sum first and on its own: ranks
/// of a correct run scaled by 1.01 fail by their sum (whatever the
/// one-more-step rule would say after them), and the ranks as run pass;
/// then each rank against the teleport share: half of it, the rest moved
/// to another vertex (the sum kept), fails by that rule, and so does a NaN
/// (which no sum or residual compares as too large).
#[test]
fn pagerank_validation_fails_ranks_that_do_not_sum_to_one() {
    let dir = tempfile::tempdir().unwrap();
    import_file(&evlp().join("example-directed.properties"), &dir.path().join("s"), &ImportOptions::default(), &NoProgress).unwrap();
    let st = Store::open(&dir.path().join("s")).unwrap();
    let p = pagerank::Params::fixed(0.85, 2);
    let mut r = run(&pagerank::PageRank, &st, &p, &on(Engine::Traverse));
    let ranks = r.outcome.columns[0].to_f64().unwrap();
    let mut validate = |ranks: Vec<f64>| validate_ranks(&st, &p, &mut r, ranks);
    let v = validate(ranks.clone());
    assert!(v.passed, "{}", v.detail);
    let v = validate(ranks.iter().map(|x| x * 1.01).collect());
    assert!(!v.passed && v.detail.contains("the ranks sum to 1.01"), "{}", v.detail);
    let floor = 0.15 / st.vertices() as f64;
    let mut moved = ranks.clone();
    moved[1] += moved[0] - floor / 2.0;
    moved[0] = floor / 2.0;
    let v = validate(moved);
    assert!(!v.passed && v.detail.contains("vertex 0 (dense) has rank") && v.detail.contains("below the teleport share"), "{}", v.detail);
    let mut nan = ranks.clone();
    nan[2] = f64::NAN;
    let v = validate(nan);
    assert!(!v.passed && v.detail.contains("vertex 2 (dense) has rank NaN"), "{}", v.detail);
}

/// PageRank's validator at its margins: a vertex no arc reaches, on a
/// graph without sinks, has exactly the teleport share and passes; a
/// cycle's ranks stay uniform, so its last change and the residual of one
/// more step are rounding (about 1e-16) and pass; and two ranks of a
/// converged run swapped (sum and shares kept) fail by one more step.
#[test]
fn pagerank_validation_at_its_margins() {
    let validate = |edges: &str, p: pagerank::Params, damage: &dyn Fn(&mut Vec<f64>)| {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("edges.el");
        std::fs::write(&input, edges).unwrap();
        let opts = ImportOptions { directed: Some(true), ..Default::default() };
        import_file(&input, &dir.path().join("s"), &opts, &NoProgress).unwrap();
        let st = Store::open(&dir.path().join("s")).unwrap();
        let mut r = run(&pagerank::PageRank, &st, &p, &on(Engine::Traverse));
        let mut ranks = r.outcome.columns[0].to_f64().unwrap();
        damage(&mut ranks);
        (ranks.clone(), validate_ranks(&st, &p, &mut r, ranks))
    };
    let (ranks, v) = validate("0 1\n1 2\n2 1\n", pagerank::Params::fixed(0.85, 5), &|_| ());
    assert_eq!(ranks[0], (1.0 - 0.85) / 3.0, "the unreached vertex's rank is the teleport share");
    assert!(v.passed, "{}", v.detail);
    let (ranks, v) = validate("0 1\n1 2\n2 0\n", pagerank::Params::fixed(0.85, 5), &|_| ());
    assert!(ranks.iter().all(|&x| (x - 1.0 / 3.0).abs() < 1e-15), "{ranks:?}");
    assert!(v.passed, "{}", v.detail);
    let converged = pagerank::Params { tolerance: Some(1e-12), ..Default::default() };
    let edges = "0 1\n1 2\n2 0\n0 2\n3 0\n";
    let (_, v) = validate(edges, converged, &|_| ());
    assert!(v.passed, "{}", v.detail);
    let (ranks, v) = validate(edges, converged, &|x| x.swap(0, 2));
    assert!(ranks[0] != ranks[2]);
    assert!(!v.passed && v.detail.contains("one more step changes the ranks"), "{}", v.detail);
}
