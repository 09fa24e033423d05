//! The streaming analytics (PageRank, WCC, CDLP, SpMV, BFS on tiles) in
//! every regime equal the Graphalytics expected outputs and the in-memory
//! reference implementations. Small spans give the small graphs grids of
//! many tiles, and tiny segments, pools and intervals force many reads,
//! evictions and intervals.

mod common;

use common::*;

use outcore_algorithms::bfs::{self, Bfs};
use outcore_algorithms::cdlp::{self, Cdlp};
use outcore_algorithms::pagerank::{self, PageRank};
use outcore_algorithms::plan::Support;
use outcore_algorithms::spmv::{self, Spmv, Vector};
use outcore_algorithms::wcc::{self, Wcc};
use outcore_algorithms::{execute, Algorithm, Engine, EngineChoice, MemGraph, RunOptions};
use outcore_engines::{IntervalOptions, StreamOptions};
use outcore_ingest::{import_file, tiles::add_tiles, ImportOptions, NoProgress};
use outcore_io::Budget;
use outcore_io::PROCESS_BASELINE;
use outcore_store::Store;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

/// A store with out (and, directed, in) CSR and tiles of 2^`span_bits` vertices.
fn store(input: &Path, directed: Option<bool>, weighted: bool, span_bits: u32) -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let st = dir.path().join("s");
    let opts = ImportOptions { directed, weighted, in_layout: true, ..Default::default() };
    import_file(input, &st, &opts, &NoProgress).unwrap();
    add_tiles(&st, 3, span_bits, 64 << 20, &outcore_io::NoProgress).unwrap();
    (dir, Store::open(&st).unwrap())
}

/// The regimes every algorithm runs in, for a layout of `tile_bytes`.
fn regimes(tile_bytes: u64, interval_values: u64) -> Vec<(&'static str, RunOptions)> {
    let memory = on(Engine::Memory);
    let stream = RunOptions {
        stream: StreamOptions { segment_bytes: Some(16 << 10), pool_bytes: Some(tile_bytes / 3), coalesce_gap: 0, ..Default::default() },
        ..on(Engine::Stream)
    };
    let no_cache =
        RunOptions { stream: StreamOptions { segment_bytes: Some(16 << 10), cache: false, ..Default::default() }, ..on(Engine::Stream) };
    let interval = RunOptions {
        interval: IntervalOptions { max_interval_values: Some(interval_values), ..Default::default() },
        ..on(Engine::Interval)
    };
    vec![("memory", memory), ("stream", stream), ("stream without cache", no_cache), ("intervals", interval)]
}

const GRAPHALYTICS: [&str; 6] =
    ["example-directed", "example-undirected", "test-bfs-directed", "test-bfs-undirected", "test-wcc-directed", "test-wcc-undirected"];

/// `column` of a run in memory.
fn u64s(r: &outcore_algorithms::Run, column: &str) -> Vec<u64> {
    r.outcome.column(column).unwrap().to_u64().unwrap()
}
fn f64s(r: &outcore_algorithms::Run, column: &str) -> Vec<f64> {
    r.outcome.column(column).unwrap().to_f64().unwrap()
}
fn per_iteration(r: &outcore_algorithms::Run) -> Vec<serde_json::Value> {
    r.report.figures["per_iteration"].as_array().unwrap().clone()
}

#[test]
fn graphalytics_outputs_in_every_regime() {
    let mut checked = HashMap::new();
    for name in GRAPHALYTICS {
        let (_d, st) = store(&evlp().join(format!("{name}.properties")), None, false, 1);
        let ids = st.id_map(&Budget::unlimited()).unwrap();
        let rec = st.manifest().tiles.clone().unwrap();
        assert!(rec.tiles >= 4, "{name}: {} tiles", rec.tiles);
        let original = |v: u64| ids.original(v);
        for (regime, opts) in regimes(rec.edges * 4, 4) {
            let EngineChoice::Fixed(engine) = opts.engine else { unreachable!() };
            if let Some(want) = expected(name, "PR") {
                let d: f64 = property(name, "pr.damping-factor").unwrap().parse().unwrap();
                let iterations: u32 = property(name, "pr.num-iterations").unwrap().parse().unwrap();
                let r = run(&PageRank, &st, &pagerank::Params::fixed(d, iterations), &opts);
                assert_eq!(r.report.engine, engine);
                for (v, x) in f64s(&r, "rank").iter().enumerate() {
                    let e: f64 = want[&original(v as u64)].parse().unwrap();
                    assert!((x - e).abs() <= 1e-4 * e, "{name} {regime} PR vertex {}: {x} vs {e}", original(v as u64));
                }
                *checked.entry("PR").or_insert(0) += 1;
            }
            if let Some(want) = expected(name, "WCC") {
                let r = run(&Wcc, &st, &Default::default(), &opts);
                for (v, l) in u64s(&r, "component").iter().enumerate() {
                    assert_eq!(original(*l).to_string(), want[&original(v as u64)], "{name} {regime} WCC vertex {}", original(v as u64));
                }
                *checked.entry("WCC").or_insert(0) += 1;
            }
            if let Some(want) = expected(name, "CDLP") {
                let iterations: u32 = property(name, "cdlp.max-iterations").unwrap().parse().unwrap();
                let r = run(&Cdlp, &st, &cdlp::Params { iterations }, &opts);
                for (v, l) in u64s(&r, "community").iter().enumerate() {
                    assert_eq!(original(*l).to_string(), want[&original(v as u64)], "{name} {regime} CDLP vertex {}", original(v as u64));
                }
                *checked.entry("CDLP").or_insert(0) += 1;
            }
            if let (Some(want), true) = (expected(name, "BFS"), engine != Engine::Interval) {
                let root: u64 = property(name, "bfs.source-vertex").unwrap().parse().unwrap();
                let r = run(&Bfs, &st, &bfs::Params { root: Some(root), ..Default::default() }, &opts);
                for (v, &l) in u64s(&r, "level").iter().enumerate() {
                    let shown = if l == u64::MAX { i64::MAX.to_string() } else { l.to_string() };
                    assert_eq!(shown, want[&original(v as u64)], "{name} {regime} BFS vertex {}", original(v as u64));
                }
                *checked.entry("BFS").or_insert(0) += 1;
            }
        }
    }
    assert_eq!(checked["PR"], 8);
    assert_eq!(checked["CDLP"], 8);
    assert_eq!(checked["WCC"], 16);
    assert_eq!(checked["BFS"], 12);
}

#[test]
fn real_graphs_match_the_references_with_many_reads_evictions_and_intervals() {
    // and a weighted store (CA-GrQc with weights 1 to 5 added): its tiles'
    // pool holds a weight beside each target, which evictions move with it
    let weighted_dir = tempfile::tempdir().unwrap();
    let grqc_weighted = weighted_grqc(weighted_dir.path());
    let real = |f: &str| shared().join("real").join(f);
    let cases = [
        (real("wiki-Vote.txt"), true, false),
        (real("CA-GrQc.txt"), false, false),
        (real("p2p-Gnutella05.txt"), true, false),
        (grqc_weighted, false, true),
    ];
    for (path, directed, weighted) in cases {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let (_d, st) = store(&path, Some(directed), weighted, 9);
        let ids = st.id_map(&Budget::unlimited()).unwrap();
        let g = MemGraph::load(&st, "out", &Budget::unlimited()).unwrap();
        let n = g.vertices();
        let rec = st.manifest().tiles.clone().unwrap();
        assert!(rec.tiles > 50 && rec.edges * 4 > 3 * (16 << 10), "{file}: {} tiles", rec.tiles);
        let pr_want = bounded("the reference PageRank", || pagerank::reference::pagerank(&g, 0.85, 10));
        let wcc_want = bounded("the reference", || wcc::reference::wcc(&g));
        let cdlp_want = bounded("the reference", || cdlp::reference::cdlp(&g, 5));
        let x: Vec<f64> = (0..n).map(|v| 1.0 + (v % 7) as f64).collect();
        let spmv_want = spmv::reference::spmv(&g, &x);
        let root = (0..n).max_by_key(|&v| g.degree(v)).unwrap();
        let bfs_want = bounded("the reference", || bfs::reference::bfs_levels(&g, root));
        let x = spmv::Params { x: Vector::Dense(Arc::new(x)) };
        for (regime, opts) in regimes(rec.edges * 4, n / 5) {
            let EngineChoice::Fixed(engine) = opts.engine else { unreachable!() };
            let pr = run(&PageRank, &st, &pagerank::Params::fixed(0.85, 10), &opts);
            assert_eq!(f64s(&pr, "rank").len(), pr_want.len(), "{file} {regime} PR values");
            for (v, (a, b)) in f64s(&pr, "rank").iter().zip(&pr_want).enumerate() {
                assert!((a - b).abs() <= 1e-12 + 1e-9 * b, "{file} {regime} PR vertex {v}: {a} vs {b}");
            }
            let w = run(&Wcc, &st, &Default::default(), &opts);
            assert_eq!(u64s(&w, "component"), wcc_want, "{file} {regime} WCC");
            let c = run(&Cdlp, &st, &cdlp::Params { iterations: 5 }, &opts);
            assert_eq!(u64s(&c, "community"), cdlp_want, "{file} {regime} CDLP");
            let y = run(&Spmv, &st, &x, &opts);
            assert_eq!(f64s(&y, "y").len(), spmv_want.len(), "{file} {regime} SpMV values");
            for (v, (a, b)) in f64s(&y, "y").iter().zip(&spmv_want).enumerate() {
                assert!((a - b).abs() <= 1e-9 * b.abs().max(1.0), "{file} {regime} SpMV vertex {v}: {a} vs {b}");
            }
            if engine != Engine::Interval {
                let b = run(&Bfs, &st, &bfs::Params { root: Some(ids.original(root)), ..Default::default() }, &opts);
                assert_eq!(u64s(&b, "level"), bfs_want, "{file} {regime} BFS");
            }
            // the regimes really stream, evict and cut
            let num = |i: &serde_json::Value, k: &str| i[k].as_u64().unwrap();
            match regime {
                "stream" => {
                    let s = per_iteration(&pr);
                    assert!(s.iter().all(|i| num(i, "segments") > 1), "{file}: one segment per iteration");
                    assert!(num(&s[1], "bytes_from_cache") > 0 && num(&s[1], "bytes_read") > 0, "{file}: no partial cache reuse");
                    let ws = per_iteration(&w);
                    assert!(ws.iter().skip(1).any(|i| num(i, "tiles_skipped") > 0), "{file}: WCC never skipped a tile");
                    assert!(ws.iter().any(|i| num(i, "tiles_evicted") > 0), "{file}: WCC never evicted a tile");
                }
                "memory" => {
                    let s = per_iteration(&pr);
                    assert!(s.iter().skip(1).all(|i| num(i, "bytes_read") == 0), "{file}: memory regime read after the first pass");
                }
                "intervals" => assert!(pr.report.figures["interval"]["intervals"].as_u64().unwrap() >= 5, "{file}: too few intervals"),
                _ => {}
            }
        }
    }
}

#[test]
fn weighted_spmv_uses_the_tile_weights() {
    let (_d, st) = store(&shared().join("graphalytics/evlp/example-directed.properties"), None, true, 1);
    assert!(st.manifest().tiles.as_ref().unwrap().weights.is_some());
    let g = MemGraph::load(&st, "out", &Budget::unlimited()).unwrap();
    let x: Vec<f64> = (0..g.vertices()).map(|v| v as f64 - 3.5).collect();
    let want = spmv::reference::spmv(&g, &x);
    let x = spmv::Params { x: Vector::Dense(Arc::new(x)) };
    for (regime, opts) in regimes(1 << 10, 3) {
        let got = f64s(&run(&Spmv, &st, &x, &opts), "y");
        assert_eq!(got.len(), want.len(), "{regime}: SpMV values");
        for (a, b) in got.iter().zip(&want) {
            assert!((a - b).abs() < 1e-9, "{regime}: {a} vs {b}");
        }
    }
}

/// What `alg` (default parameters) asks for on the traverse engine's scan
/// of directed wiki-Vote, what it says it is for, and the vertex count.
fn scan_need<A: outcore_algorithms::run::Algorithm>(alg: &A) -> (u64, String, u64, u64) {
    use outcore_algorithms::plan::Support;
    let (_dir, st) = store(&shared().join("real/wiki-Vote.txt"), Some(true), false, 6);
    let p = alg.parse(&outcore_algorithms::params::Args::new()).unwrap();
    let scan = outcore_algorithms::needs::scan_bytes(&st, &["out"]).unwrap();
    match alg.support(&st, Engine::Traverse, &p, &RunOptions::default()).unwrap() {
        Support::Runs(need) => (need.min_bytes, need.what, st.vertices(), scan),
        Support::No(why) => panic!("the scan declined: {why}"),
    }
}

/// SpMV on the scan asks for x and y (f64 each), 16 bytes a vertex,
/// beside the scan's read-ahead chunks and longest list (README "Memory").
#[test]
fn spmv_asks_for_sixteen_bytes_a_vertex() {
    let (need, what, n, scan) = scan_need(&Spmv);
    assert_eq!(need, 16 * n + scan, "{what}");
}

/// A vector file is read into a dense vector in the store's order, zeros
/// where it is silent, and charged 8 bytes a vertex.
#[test]
fn spmv_vector_files_are_read_in_dense_order_and_charged() {
    let (d, st) = store(&shared().join("graphalytics/evlp/example-directed.properties"), None, true, 1);
    let n = st.vertices();
    let ids = st.id_map(&Budget::unlimited()).unwrap();
    let path = d.path().join("x.txt");
    // every other vertex, by original id, with a comment and a blank line
    let mut text = String::from("# x\n\n");
    for v in (0..n).step_by(2) {
        text += &format!("{} {}\n", ids.original(v), v as f64 + 0.5);
    }
    std::fs::write(&path, text).unwrap();
    let budget = Budget::new(n * 8);
    let (x, charge) = spmv::read_vector(&st, &budget, &path).unwrap();
    assert_eq!(x, (0..n).map(|v| if v % 2 == 0 { v as f64 + 0.5 } else { 0.0 }).collect::<Vec<_>>());
    assert_eq!(budget.used(), n * 8, "the vector's charge");
    drop(charge);
    let Err(err) = spmv::read_vector(&st, &Budget::new(n * 8 - 1), &path) else { panic!("a vector beyond the budget was read") };
    let err = err.to_string();
    assert!(err.contains("SpMV input vector"), "{err}");
    // the `vector` parameter names the file: y is A^T x for that x
    use outcore_algorithms::run::Algorithm;
    let p = Spmv.parse(&outcore_algorithms::params::Args::new().with("vector", path.to_str().unwrap())).unwrap();
    let g = MemGraph::load(&st, "out", &Budget::unlimited()).unwrap();
    let want = spmv::reference::spmv(&g, &x);
    let got = f64s(&run(&Spmv, &st, &p, &on(Engine::Traverse)), "y");
    assert_eq!(got.len(), want.len());
    assert!(got.iter().zip(&want).all(|(a, b)| (a - b).abs() <= 1e-9 * b.abs().max(1.0)), "{got:?} against {want:?}");
    assert_ne!(want, spmv::reference::spmv(&g, &vec![1.0; n as usize]), "x is not all ones in effect");
    // a vertex the store lacks is an error naming its line
    let absent = (0..).find(|&v| ids.dense(v).is_none()).unwrap();
    std::fs::write(&path, format!("# x\n{} 1\n\n{absent} 2.5\n", ids.original(0))).unwrap();
    let Err(err) = spmv::read_vector(&st, &Budget::unlimited(), &path) else { panic!("an absent vertex was read") };
    let err = err.to_string();
    assert!(err.contains(&format!("line 4: no such vertex in the store: {absent}")), "{err}");
    // a dense x of the wrong length is refused before any product
    for engine in [Engine::Traverse, Engine::Memory] {
        let short = spmv::Params { x: Vector::Dense(Arc::new(vec![1.0; n as usize - 1])) };
        let Err(err) = execute(&Spmv, &st, &short, &on(engine)) else { panic!("{engine:?}: a short x was taken") };
        let err = err.to_string();
        assert!(err.contains(&format!("has {} entries for {n} vertices", n - 1)), "{engine:?}: {err}");
    }
}

#[test]
fn missing_layouts_small_budgets_and_bad_options_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let st = dir.path().join("s");
    import_file(&shared().join("real/wiki-Vote.txt"), &st, &ImportOptions { directed: Some(true), ..Default::default() }, &NoProgress)
        .unwrap();
    let store = Store::open(&st).unwrap();
    let pr = pagerank::Params::fixed(0.85, 2);
    let missing = |e: outcore_algorithms::Error, want: &str| match e {
        outcore_algorithms::Error::Store(outcore_store::StoreError::MissingLayout { layout, .. }) => assert_eq!(layout, want),
        other => panic!("not a missing {want} layout: {other}"),
    };
    missing(execute(&PageRank, &store, &pr, &on(Engine::Stream)).err().unwrap(), "tiles");
    let err = execute(&PageRank, &store, &pr, &on(Engine::Interval)).err().unwrap();
    assert!(err.to_string().contains("'in' layout"), "{err}");
    missing(err, "in");
    // what auto does without tiles or in-edges: the traverse engine's scan, and it says what tiles would buy
    let auto = run(&PageRank, &store, &pr, &RunOptions { memory: 1 << 30, ..Default::default() });
    assert_eq!(auto.report.engine, Engine::Traverse, "{}", auto.report.engine_reason);
    assert!(auto.report.plan.layout_gains.iter().any(|g| g.layout == "tiles" && g.engine == Engine::Memory), "{:?}", auto.report.plan);
    // a layout is added to a store nobody in this process has open
    drop(store);
    outcore_ingest::in_layout::add_in(&st, 64 << 20, &outcore_io::NoProgress).unwrap();
    let store = Store::open(&st).unwrap();
    let r = run(&PageRank, &store, &pr, &on(Engine::Interval));
    assert_eq!(r.report.engine, Engine::Interval);
    drop(store);
    add_tiles(&st, 256, 16, 1 << 30, &outcore_io::NoProgress).unwrap();
    let store = Store::open(&st).unwrap();
    let small = RunOptions { memory: PROCESS_BASELINE + (1 << 20), ..on(Engine::Stream) };
    let err = execute(&PageRank, &store, &pr, &small).err().unwrap().to_string();
    assert!(err.contains("the smallest budget that would work"), "{err}");
    let bad = pagerank::Params { tolerance: Some(0.0), ..pr };
    let err = execute(&PageRank, &store, &bad, &RunOptions::default()).err().unwrap().to_string();
    assert!(err.contains("tolerance must be positive"), "{err}");
    // with a tolerance PageRank stops early, close to the fixed point
    let tol = pagerank::Params { damping: 0.85, iterations: Some(100), tolerance: Some(1e-6) };
    let r = run(&PageRank, &store, &tol, &RunOptions::default());
    assert!(figure(&r, "iterations") < 100.0 && figure(&r, "last_l1_change") < 1e-6, "{} iterations", figure(&r, "iterations"));
}

/// A change equal to the tolerance does not stop PageRank ("fewer once an
/// iteration changes the ranks by less than the tolerance"): on one arc
/// 0 -> 1 with damping 1/2 every value is a short binary fraction, so the
/// changes are exact on every engine: 1/4, then 1/16. With tolerance 1/4
/// the reference and every engine stop after the second iteration.
#[test]
fn a_change_equal_to_the_tolerance_does_not_stop_pagerank() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("arc.el");
    std::fs::write(&input, "0 1\n").unwrap();
    let (_d, st) = store(&input, Some(true), false, 16);
    let pr = pagerank::Params { damping: 0.5, iterations: Some(50), tolerance: Some(0.25) };
    let g = MemGraph::load(&st, "out", &Budget::unlimited()).unwrap();
    let (want, steps, delta) = bounded("the reference PageRank", || pagerank::reference::pagerank_until(&g, 0.5, 50, Some(0.25)));
    assert_eq!((steps, delta), (2, 0.0625), "the reference");
    for &engine in PageRank.info().engines {
        let r = run(&PageRank, &st, &pr, &on(engine));
        assert_eq!(figure(&r, "iterations"), 2.0, "{engine}");
        assert_eq!(figure(&r, "last_l1_change"), 0.0625, "{engine}");
        assert_eq!(f64s(&r, "rank"), want, "{engine}");
    }
}

#[test]
fn auto_picks_the_regime_from_the_budget() {
    let (_d, st) = store(&shared().join("real/CA-GrQc.txt"), Some(false), false, 16);
    let pr = pagerank::Params::fixed(0.85, 3);
    let big = run(&PageRank, &st, &pr, &RunOptions::with_memory(1 << 30));
    assert_eq!(big.report.engine, Engine::Memory, "{}", big.report.engine_reason);
    let n = st.vertices();
    // room for the ranks and two segments but not for the tiles
    let tight = PROCESS_BASELINE + pagerank::state_bytes(n) + (2 << 20) + (st.manifest().tiles.as_ref().unwrap().edges * 4) / 2 + (3 << 20);
    let mid = run(&PageRank, &st, &pr, &RunOptions::with_memory(tight));
    assert_eq!(mid.report.engine, Engine::Stream, "{}", mid.report.engine_reason);
    // both regimes give the reference's ranks
    let g = MemGraph::load(&st, "out", &Budget::unlimited()).unwrap();
    let want = bounded("the reference PageRank", || pagerank::reference::pagerank(&g, 0.85, 3));
    for r in [&big, &mid] {
        let got = f64s(r, "rank");
        assert_eq!(got.len() as u64, n);
        for (v, (x, y)) in got.iter().zip(&want).enumerate() {
            assert!((x - y).abs() <= 1e-12 + 1e-9 * y, "{} vertex {v}: {x} vs {y}", r.report.engine);
        }
    }
}

/// `auto` takes the hybrid BFS's traverse version only with room for a
/// column of in-memory neighbours beyond its minimum (for repeated
/// searches the scan that builds it, then twice 4 bytes a vertex: half the
/// room beyond the scan goes to them): with half of that room (where no
/// other engine fits) it takes it as the only one that runs, and says so,
/// and builds no column; with all of it, as its choice, and builds one at
/// least. One search needs, instead of the scan, what gathering takes and
/// a lane of its scans, and gathers its neighbours.
#[test]
fn auto_takes_the_hybrid_bfs_once_a_hot_column_fits() {
    let (_d, st) = store(&shared().join("real/CA-GrQc.txt"), Some(false), false, 16);
    let n = st.vertices();
    let p = bfs::Params { root: Some(3466), repeat: 2, ..Default::default() };
    let need = match Bfs.support(&st, Engine::Traverse, &p, &RunOptions::with_memory(1 << 30)).unwrap() {
        Support::Runs(need) => need,
        Support::No(why) => panic!("{why}"),
    };
    let column = 8 * n + outcore_algorithms::bfs::hybrid::build_part_bytes(&st, "in").unwrap();
    assert_eq!(need.auto_bytes, need.min_bytes + column);
    let at = |p: &bfs::Params, bytes: u64| run(&Bfs, &st, p, &RunOptions::with_memory(PROCESS_BASELINE + bytes)).report;
    let half = at(&p, need.min_bytes + column / 2);
    assert_eq!(half.engine, Engine::Traverse, "{}", half.engine_reason);
    assert!(half.engine_reason.contains("only at the engine's minimum"), "{}", half.engine_reason);
    assert_eq!(half.figure("hot_neighbours_k").and_then(|k| k.as_u64()), Some(0), "half the room builds no column");
    let whole = at(&p, need.min_bytes + column + (1 << 20));
    assert_eq!(whole.engine, Engine::Traverse, "{}", whole.engine_reason);
    assert!(!whole.engine_reason.contains("only at the engine's minimum"), "{}", whole.engine_reason);
    let k = whole.figure("hot_neighbours_k").and_then(|k| k.as_u64()).unwrap();
    assert!(k >= 1, "the whole room builds a column");
    // the columns' bytes, which the search's cache reads do not count:
    // column j holds a u32 for each vertex of more than j neighbours (the
    // store is undirected: its in-lists are its out-lists)
    let g = MemGraph::load(&st, "out", &Budget::unlimited()).unwrap();
    let entries: u64 = (0..k).map(|j| (0..n).filter(|&v| g.degree(v) > j).count() as u64).sum();
    assert_eq!(whole.figure("hot_list_bytes").and_then(|b| b.as_u64()), Some(4 * entries), "k = {k}");
    assert_eq!(half.figure("hot_list_bytes").and_then(|b| b.as_u64()), Some(0), "no column, no bytes");
    // one search
    let once = bfs::Params { repeat: 1, ..p };
    let need = match Bfs.support(&st, Engine::Traverse, &once, &RunOptions::with_memory(1 << 30)).unwrap() {
        Support::Runs(need) => need,
        Support::No(why) => panic!("{why}"),
    };
    let (least, lane) = outcore_algorithms::bfs::HotLists::gather_bytes(&st, "in").unwrap();
    assert_eq!(need.auto_bytes, need.min_bytes + 8 * n + least + lane);
    let gathered = at(&once, need.auto_bytes + (1 << 20));
    assert!(!gathered.engine_reason.contains("only at the engine's minimum"), "{}", gathered.engine_reason);
    assert_eq!(gathered.figure("hot_lists").and_then(|h| h["from"].as_str().map(String::from)).as_deref(), Some("gathered"));
    let summary = gathered.figure("gathered").unwrap();
    assert!(summary["lanes"].as_u64().unwrap() >= 1 && summary["scanned_bytes"].as_u64().unwrap() > 0, "{summary}");
}

/// A hybrid BFS of a directed store runs at exactly the minimum it states
/// (both engines' indexes, smallest caches and checks, and its state), and
/// gives the reference's levels there.
#[test]
fn hybrid_bfs_of_a_directed_store_runs_at_its_stated_minimum() {
    let (_d, st) = store(&shared().join("real/wiki-Vote.txt"), Some(true), false, 16);
    let ids = st.id_map(&Budget::unlimited()).unwrap();
    let root = 1000;
    let p = bfs::Params { root: Some(ids.original(root)), ..Default::default() };
    let need = match Bfs.support(&st, Engine::Traverse, &p, &RunOptions::with_memory(1 << 30)).unwrap() {
        Support::Runs(need) => need,
        Support::No(why) => panic!("{why}"),
    };
    assert_eq!(need.layouts, ["out", "in"]);
    let opts = RunOptions { memory: PROCESS_BASELINE + need.min_bytes, ..on(Engine::Traverse) };
    let r = run(&Bfs, &st, &p, &opts);
    let g = MemGraph::load(&st, "out", &Budget::unlimited()).unwrap();
    assert_eq!(u64s(&r, "level"), bounded("the reference", || bfs::reference::bfs_levels(&g, root)));
}

/// With room for every neighbour label, CDLP gathers them in one band per
/// iteration on every engine, directed or not; with less it cuts more
/// bands and gives the same labels.
#[test]
fn cdlp_takes_one_band_when_every_label_fits() {
    for (file, directed) in [("wiki-Vote.txt", true), ("CA-GrQc.txt", false)] {
        let (_d, st) = store(&shared().join("real").join(file), Some(directed), false, 9);
        let p = cdlp::Params { iterations: 3 };
        let mut labels = Vec::new();
        for engine in [Engine::Memory, Engine::Stream, Engine::Traverse] {
            let r = run(&Cdlp, &st, &p, &RunOptions { memory: 1 << 30, ..on(engine) });
            assert_eq!(figure(&r, "bands_per_iteration"), 1.0, "{file} on {engine:?}");
            labels.push(u64s(&r, "community"));
        }
        assert!(labels.windows(2).all(|w| w[0] == w[1]), "{file}: the engines' labels differ");
        if directed {
            // without `in`, the scan gathers the labels in bands of its own
            let dir = tempfile::tempdir().unwrap();
            let out = dir.path().join("s");
            let opts = ImportOptions { directed: Some(true), ..Default::default() };
            import_file(&shared().join("real").join(file), &out, &opts, &NoProgress).unwrap();
            let plain = Store::open(&out).unwrap();
            let r = run(&Cdlp, &plain, &p, &RunOptions { memory: 1 << 30, ..on(Engine::Traverse) });
            assert_eq!(figure(&r, "bands_per_iteration"), 1.0, "{file} without in");
            assert!(u64s(&r, "community") == labels[0], "{file} without in: other labels");
        }
    }
}

/// The neighbour labels CDLP gathers at each vertex: its out-list, and the
/// in-list of a directed graph (a loop counts in both).
fn cdlp_tuples(g: &MemGraph) -> Vec<u64> {
    let mut t: Vec<u64> = (0..g.vertices()).map(|v| g.degree(v)).collect();
    if g.directed {
        for u in 0..g.vertices() {
            for &v in g.neighbours(u) {
                t[v as usize] += 1;
            }
        }
    }
    t
}

/// How many bands a greedy cut of `weights`, in order, into runs of at
/// most `capacity` gives: a run grows while its sum stays within it.
fn greedy_bands(weights: impl IntoIterator<Item = u64>, capacity: u64) -> u64 {
    let (mut bands, mut sum) = (0u64, 0u64);
    for w in weights {
        if bands == 0 || sum + w > capacity {
            bands += 1;
            sum = 0;
        }
        sum += w;
    }
    bands.max(1)
}

/// `arcs` seeded uniform draws over `n` ids, as a plain edge list in `dir`.
fn uniform_edges(dir: &Path, n: u64, arcs: u64, seed: u64) -> std::path::PathBuf {
    let mut rng = outcore_io::SplitMix64(seed);
    let text: String = (0..arcs).map(|_| format!("{} {}\n", rng.next_u64() % n, rng.next_u64() % n)).collect();
    let path = dir.join("uniform.el");
    std::fs::write(&path, text).unwrap();
    path
}

/// The smallest budget a plan states for `engine`, as `--memory`.
fn stated_minimum(st: &Store, p: &cdlp::Params, engine: Engine) -> u64 {
    match Cdlp.support(st, engine, p, &RunOptions::with_memory(1 << 30)).unwrap() {
        Support::Runs(need) => PROCESS_BASELINE + need.min_bytes,
        Support::No(why) => panic!("{engine:?}: {why}"),
    }
}

/// CDLP's scan of a directed store without `in` cuts its iterations into
/// bands of consecutive vertices whose neighbour labels fit the band it
/// took: at its stated minimum several (a band of at least 4 MiB), with
/// more room fewer, with room for all one. Each budget gives the
/// reference's labels, the bands a greedy cut of the labels counted from
/// the in-memory graph gives, one scan of `out` to count the labels and one
/// a band in each iteration, and a band within half of what the state and
/// the scan leave, charged.
#[test]
fn cdlp_scan_without_in_cuts_bands_that_fit_its_budget() {
    let dir = tempfile::tempdir().unwrap();
    let edges = uniform_edges(dir.path(), 1 << 17, 800_000, 5);
    let path = dir.path().join("s");
    import_file(&edges, &path, &ImportOptions { directed: Some(true), ..Default::default() }, &NoProgress).unwrap();
    let st = Store::open(&path).unwrap();
    assert!(!st.has_layout("in") && cdlp::scan::banded(&st));
    let g = MemGraph::load(&st, "out", &Budget::unlimited()).unwrap();
    let n = st.vertices();
    let tuples = cdlp_tuples(&g);
    let total: u64 = tuples.iter().sum();
    let p = cdlp::Params { iterations: 3 };
    let want = bounded("the reference", || cdlp::reference::cdlp(&g, p.iterations));
    let minimum = stated_minimum(&st, &p, Engine::Traverse);
    let scans = outcore_algorithms::needs::scan_bytes(&st, &["out"]).unwrap();
    assert_eq!(minimum, PROCESS_BASELINE + cdlp::scan::state_bytes(n, true) + cdlp::scan::BAND_ROOM + scans);
    let mut seen = Vec::new();
    for extra in [0, 8 << 20, 64 << 20] {
        let memory = minimum + extra;
        let what = format!("--memory {memory} ({extra} above the minimum)");
        let r = run(&Cdlp, &st, &p, &RunOptions { memory, ..on(Engine::Traverse) });
        assert_eq!(u64s(&r, "community"), want, "{what}");
        let band = figure(&r, "band_bytes") as u64;
        let bands = figure(&r, "bands_per_iteration") as u64;
        assert_eq!(bands, greedy_bands(tuples.iter().copied(), band / 8), "{what}: a band of {band} bytes");
        assert!(band >= total.min(1 << 19) * 8, "{what}: a band of {band} bytes");
        assert!(band <= (memory - PROCESS_BASELINE - cdlp::scan::state_bytes(n, true) - scans) / 2, "{what}: a band of {band} bytes");
        assert!(band <= total * 8, "{what}: a band of {band} bytes for {total} labels");
        assert!(r.report.budget_peak_bytes >= PROCESS_BASELINE + cdlp::scan::state_bytes(n, true) + band, "{what}: peak charge");
        let passes = 1 + p.iterations as u64 * bands;
        assert_eq!(figure(&r, "passes"), passes as f64, "{what}");
        assert_eq!(figure(&r, "bytes_read"), (passes * st.layout_bytes("out")) as f64, "{what}");
        let kept = want.iter().enumerate().filter(|&(v, &l)| v as u64 == l).count();
        assert_eq!(figure(&r, "labels_kept_by_their_vertex"), kept as f64, "{what}");
        seen.push(bands);
    }
    assert!(seen[0] >= 3 && seen[1] < seen[0] && seen[2] == 1, "bands at the three budgets: {seen:?}");
}

/// A vertex whose neighbour labels are more than the scan's band can hold
/// is a budget error naming it and its labels, and the budget it suggests
/// is the smallest that works: the suggestion runs, 64 KiB less does not.
/// (A directed star of a million leaves: at the plan's minimum a band
/// holds about half a million labels.)
#[test]
fn cdlp_scan_band_error_suggests_the_smallest_budget_that_works() {
    let dir = tempfile::tempdir().unwrap();
    let edges = dir.path().join("star.el");
    let leaves = 1_000_000u64;
    let text: String = (1..=leaves).map(|leaf| format!("0 {leaf}\n")).collect();
    std::fs::write(&edges, text).unwrap();
    let path = dir.path().join("s");
    import_file(&edges, &path, &ImportOptions { directed: Some(true), ..Default::default() }, &NoProgress).unwrap();
    let st = Store::open(&path).unwrap();
    let hub = st.id_map(&Budget::unlimited()).unwrap().dense(0).unwrap();
    let p = cdlp::Params { iterations: 2 };
    let at = |memory: u64| bounded("cdlp", || execute(&Cdlp, &st, &p, &RunOptions { memory, ..on(Engine::Traverse) }));
    let budget_error = |memory: u64| match at(memory) {
        Err(outcore_algorithms::Error::Store(outcore_store::StoreError::Budget(b))) => b,
        Err(e) => panic!("at {memory} bytes: not a budget error: {e}"),
        Ok(_) => panic!("at {memory} bytes: ran"),
    };
    let minimum = stated_minimum(&st, &p, Engine::Traverse);
    // the plan's refusal suggests its minimum in whole MiB
    assert_eq!(budget_error(1 << 20).suggest, minimum.div_ceil(1 << 20) << 20, "the plan's refusal");
    let short = budget_error(minimum);
    assert!(short.what.contains(&format!("the {leaves} neighbour labels of vertex {hub}")), "{short:?}");
    assert_eq!(short.needed, 8 * leaves, "{short:?}");
    assert!(short.available < short.needed && short.available >= 4 << 20, "{short:?}");
    let r = at(short.suggest).unwrap_or_else(|e| panic!("the suggested {} is not enough: {e}", short.suggest));
    // the hub in a band of its own, the leaves in one or two more
    let bands = figure(&r, "bands_per_iteration");
    assert!((2.0..=3.0).contains(&bands), "{bands} bands");
    let labels = u64s(&r, "community");
    // every leaf takes the hub's label (its only neighbour); the hub the smallest leaf's
    let g = MemGraph::load(&st, "out", &Budget::unlimited()).unwrap();
    assert_eq!(labels, bounded("the reference", || cdlp::reference::cdlp(&g, p.iterations)));
    let below = budget_error(short.suggest - (64 << 10));
    assert!(below.what.contains(&format!("vertex {hub}")), "64 KiB below the suggestion: {below:?}");
}

/// CDLP on tiles cuts its iterations into bands of consecutive spans whose
/// neighbour labels fit its band: the band's floor is the span with the
/// most labels (counted from the in-memory graph), and at the stated
/// minimum of the memory and stream engines the bands are many; with more
/// room fewer, with room for all one. Every budget gives the reference's
/// labels and the bands a greedy cut of the spans' labels gives, with a
/// band within a third of the budget (or the floor) and charged.
#[test]
fn cdlp_on_tiles_cuts_bands_that_fit_its_budget() {
    // a floor of megabytes too: 2^17 vertices, 800,000 arcs, in spans of 2^14
    let dir = tempfile::tempdir().unwrap();
    let uniform = uniform_edges(dir.path(), 1 << 17, 800_000, 5);
    let real = |file: &str| shared().join("real").join(file);
    for (input, directed, span_bits) in [(real("wiki-Vote.txt"), true, 9), (real("CA-GrQc.txt"), false, 9), (uniform, true, 14)] {
        let file = input.file_name().unwrap().to_string_lossy().into_owned();
        let (_d, st) = store(&input, Some(directed), false, span_bits);
        let g = MemGraph::load(&st, "out", &Budget::unlimited()).unwrap();
        let n = st.vertices();
        let mut tuples = cdlp_tuples(&g);
        if !directed {
            // the tile index counts an undirected loop at both of its ends
            for v in 0..n {
                tuples[v as usize] += g.neighbours(v).iter().filter(|&&w| w == v).count() as u64;
            }
        }
        let per_span: Vec<u64> = tuples.chunks(1 << span_bits).map(|c| c.iter().sum()).collect();
        let floor = cdlp::tiles::band_floor(&st).unwrap();
        assert_eq!(floor, 8 * per_span.iter().max().unwrap(), "{file}: the band's floor");
        let gathered: Vec<u64> = cdlp_tuples(&g).chunks(1 << span_bits).map(|c| c.iter().sum()).collect();
        let total: u64 = gathered.iter().sum();
        let p = cdlp::Params { iterations: 3 };
        let want = bounded("the reference", || cdlp::reference::cdlp(&g, p.iterations));
        for engine in [Engine::Memory, Engine::Stream] {
            let minimum = stated_minimum(&st, &p, engine);
            let mut seen = Vec::new();
            for extra in [0, total * 4, 64 << 20] {
                let memory = minimum + extra;
                let what = format!("{file} on {engine:?} at --memory {memory} ({extra} above the minimum)");
                let opts =
                    RunOptions { memory, stream: StreamOptions { segment_bytes: Some(16 << 10), ..Default::default() }, ..on(engine) };
                let r = run(&Cdlp, &st, &p, &opts);
                assert_eq!(u64s(&r, "community"), want, "{what}");
                let band = figure(&r, "band_bytes") as u64;
                let bands = figure(&r, "bands_per_iteration") as u64;
                assert_eq!(bands, greedy_bands(gathered.iter().copied(), band / 8), "{what}: a band of {band} bytes");
                assert!(band >= floor.min(total * 8) && band <= total * 8, "{what}: a band of {band} bytes, floor {floor}");
                assert!(band <= floor.max((memory - PROCESS_BASELINE) / 3), "{what}: a band of {band} bytes");
                assert!(r.report.budget_peak_bytes >= PROCESS_BASELINE + cdlp::state_bytes(n) + band, "{what}: peak charge");
                let kept = want.iter().enumerate().filter(|&(v, &l)| v as u64 == l).count();
                assert_eq!(figure(&r, "labels_kept_by_their_vertex"), kept as f64, "{what}");
                if engine == Engine::Stream && bands > 1 {
                    // a band reads only the tiles of its rows and columns
                    let skipped: u64 = per_iteration(&r).iter().map(|it| it["tiles_skipped"].as_u64().unwrap()).sum();
                    assert!(skipped > 0, "{what}: {bands} bands read every tile");
                }
                seen.push(bands);
            }
            assert!(seen[0] >= 3 && seen[1] < seen[0] && seen[2] == 1, "{file} on {engine:?}: bands at the three budgets: {seen:?}");
        }
    }
}

/// CDLP runs at exactly the minimum its plan states on every engine, where
/// one vertex has most of the labels: a star of 200,000 leaves, undirected
/// and directed with `in` (the threads sort the hub's labels, and the scan
/// gathers them), with the reference's labels.
#[test]
fn cdlp_runs_at_its_stated_minimum_on_a_star() {
    let dir = tempfile::tempdir().unwrap();
    let edges = dir.path().join("star.el");
    std::fs::write(&edges, (1..=200_000u64).map(|leaf| format!("0 {leaf}\n")).collect::<String>()).unwrap();
    let p = cdlp::Params { iterations: 2 };
    for directed in [false, true] {
        let (_d, st) = store(&edges, Some(directed), false, 16);
        let g = MemGraph::load(&st, "out", &Budget::unlimited()).unwrap();
        let want = bounded("the reference", || cdlp::reference::cdlp(&g, p.iterations));
        for engine in [Engine::Memory, Engine::Stream, Engine::Traverse] {
            let memory = stated_minimum(&st, &p, engine);
            let r = bounded("cdlp", || execute(&Cdlp, &st, &p, &RunOptions { memory, ..on(engine) }))
                .unwrap_or_else(|e| panic!("directed {directed} on {engine:?} at its stated minimum {memory}: {e}"));
            assert_eq!(u64s(&r, "community"), want, "directed {directed} on {engine:?}");
        }
    }
}

/// Every CDLP version shows its iterations as they finish: the phase
/// begins with the iteration count and moves to 1, 2, ... that count.
#[test]
fn cdlp_reports_each_iteration_as_it_ends() {
    let (_d, st) = store(&shared().join("real/wiki-Vote.txt"), Some(true), false, 9);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s");
    import_file(&shared().join("real/wiki-Vote.txt"), &path, &ImportOptions { directed: Some(true), ..Default::default() }, &NoProgress)
        .unwrap();
    let without_in = Store::open(&path).unwrap();
    let p = cdlp::Params { iterations: 4 };
    for (what, st, engine) in [
        ("memory", &st, Engine::Memory),
        ("stream", &st, Engine::Stream),
        ("scan with in", &st, Engine::Traverse),
        ("scan in bands", &without_in, Engine::Traverse),
        ("intervals", &st, Engine::Interval),
    ] {
        let recorder = Arc::new(Recorder::default());
        run(&Cdlp, st, &p, &RunOptions { progress: Some(recorder.clone()), ..on(engine) });
        let events = recorder.events.lock().unwrap().clone();
        let cdlp: Vec<(Option<u64>, u64)> = events.iter().filter(|e| e.0 == "cdlp").map(|e| (e.1, e.2)).collect();
        let want: Vec<(Option<u64>, u64)> = std::iter::once((None, 4)).chain((1..=4).map(|i| (Some(i), 0))).collect();
        assert_eq!(cdlp, want, "{what}: {events:?}");
    }
}

#[test]
fn interval_runs_leave_no_temporary_files_and_clear_those_of_killed_runs() {
    let (_d, st) = store(&shared().join("real/CA-GrQc.txt"), Some(false), false, 16);
    let stale = st.dir().join(".outcore-4000000000-intervals");
    std::fs::create_dir_all(&stale).unwrap();
    std::fs::write(stale.join("values-0"), b"left by a killed run").unwrap();
    let pr = pagerank::Params::fixed(0.85, 2);
    let r = run(&PageRank, &st, &pr, &on(Engine::Interval));
    assert_eq!(f64s(&r, "rank").len() as u64, st.vertices());
    drop(r);
    let left: Vec<_> = std::fs::read_dir(st.dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".outcore-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// The stream engine's counters against the tile files: every iteration
/// streams each edge once and each tile byte once (in whole 4 KiB
/// blocks); without a pool all is read, and with a pool that holds the
/// tiles only the first iteration reads.
#[test]
fn stream_byte_counters_equal_the_tile_files() {
    let (_d, st) = store(&shared().join("real/CA-GrQc.txt"), Some(false), false, 10);
    let tile_bytes: u64 = std::fs::read_dir(st.dir())
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name().to_string_lossy().starts_with("tiles-") && e.file_name().to_string_lossy().ends_with(".edges"))
        .map(|e| e.metadata().unwrap().len())
        .sum();
    assert!(tile_bytes > 0);
    for pool in [0u64, 1 << 30] {
        let opts = RunOptions {
            stream: StreamOptions { segment_bytes: Some(16 << 10), pool_bytes: Some(pool), ..Default::default() },
            ..on(Engine::Stream)
        };
        let r = run(&PageRank, &st, &pagerank::Params::fixed(0.85, 3), &opts);
        assert_eq!(figure(&r, "iterations"), 3.0);
        let per = r.report.figure("per_iteration").and_then(|x| x.as_array()).expect("per_iteration").clone();
        assert_eq!(per.len(), 3, "pool {pool}");
        for (k, it) in per.iter().enumerate() {
            let get = |key: &str| it[key].as_u64().unwrap_or_else(|| panic!("{key} in {it}"));
            let (edges, read, cached) = (get("edges"), get("bytes_read"), get("bytes_from_cache"));
            assert_eq!(edges, st.manifest().tiles.as_ref().unwrap().edges, "pool {pool}, iteration {k}: edges streamed");
            // device reads are whole 4 KiB blocks: each segment may add one at either end
            let slack = get("segments") * 2 * 4096;
            let total = read + cached;
            assert!(total >= tile_bytes && total <= tile_bytes + slack, "pool {pool}, iteration {k}: {total} bytes for {tile_bytes}");
            if pool == 0 {
                assert_eq!(cached, 0, "pool 0, iteration {k}: nothing from the cache");
            } else if k > 0 {
                assert_eq!(read, 0, "pool {pool}, iteration {k}: the pool holds every tile");
            }
        }
    }
}

/// PageRank charges what it holds on the tile and scan engines: ranks and
/// contributions (f64) and out-degrees (u32), 20 bytes a vertex, beside
/// the scan's read-ahead chunks and longest list (README "Memory").
#[test]
fn pagerank_asks_for_twenty_bytes_a_vertex() {
    let (need, what, n, scan) = scan_need(&PageRank);
    assert_eq!(need, 20 * n + scan, "{what}");
}

/// WCC asks for what it holds, by engine and method (README "Memory"):
/// on the scan, Afforest's 32-bit parents, a bit a vertex and its two link
/// buffers of 2^17 pairs (one filling, one being linked), reading `out`
/// (and `in` on a directed store), or union-find's 32-bit parents and the
/// same link buffers, reading `out`, when Afforest cannot run (a directed
/// store without `in`) or is not asked for; Afforest asked for where it
/// cannot run is declined; on tiles, a 64-bit label a vertex beyond what
/// the tiles' pass itself needs.
#[test]
fn wcc_asks_for_its_parents_or_labels() {
    use outcore_algorithms::plan::Support;
    use outcore_algorithms::run::Algorithm;
    let method = |m: &str| Wcc.parse(&outcore_algorithms::params::Args::new().with("method", m)).unwrap();
    let need = |st: &Store, engine: Engine, m: &str| match Wcc.support(st, engine, &method(m), &RunOptions::default()).unwrap() {
        Support::Runs(need) => need,
        Support::No(why) => panic!("{engine:?} declined WCC ({m}): {why}"),
    };
    let (_undirected_dir, undirected) = store(&shared().join("real/CA-GrQc.txt"), Some(false), false, 6);
    let (_directed_dir, directed) = store(&shared().join("real/wiki-Vote.txt"), Some(true), false, 6);
    let scan_buffers = |st: &Store, layouts: &[&str]| outcore_algorithms::needs::scan_bytes(st, layouts).unwrap();
    for (st, layouts) in [(&undirected, vec!["out"]), (&directed, vec!["out", "in"])] {
        let n = st.vertices();
        let afforest = 4 * n + n.div_ceil(64) * 8 + 2 * (1 << 17) * 8;
        for m in ["auto", "afforest"] {
            let got = need(st, Engine::Traverse, m);
            assert_eq!((got.min_bytes, &got.layouts), (afforest + scan_buffers(st, &["out"]), &layouts), "Afforest ({m}): {}", got.what);
        }
        let got = need(st, Engine::Traverse, "union-find");
        let union_find = 4 * n + 2 * (1 << 17) * 8;
        assert_eq!((got.min_bytes, &got.layouts[..]), (union_find + scan_buffers(st, &["out"]), &["out"][..]), "union-find: {}", got.what);
        // on tiles: the label array on top of the pass's own needs
        let pass = match outcore_algorithms::needs::tiles(st, Engine::Stream, 0, false, "") {
            Support::Runs(need) => need.min_bytes,
            Support::No(why) => panic!("tiles: {why}"),
        };
        assert_eq!(need(st, Engine::Stream, "auto").min_bytes, pass + 8 * n, "labels on tiles");
    }
    // a directed store without `in`: union-find unless Afforest is asked for by name
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s");
    import_file(&shared().join("real/wiki-Vote.txt"), &path, &ImportOptions { directed: Some(true), ..Default::default() }, &NoProgress)
        .unwrap();
    let bare = Store::open(&path).unwrap();
    let got = need(&bare, Engine::Traverse, "auto");
    assert_eq!(
        (got.min_bytes, &got.layouts[..]),
        (4 * bare.vertices() + 2 * (1 << 17) * 8 + scan_buffers(&bare, &["out"]), &["out"][..]),
        "auto without in: {}",
        got.what
    );
    match Wcc.support(&bare, Engine::Traverse, &method("afforest"), &RunOptions::default()).unwrap() {
        Support::No(why) => assert!(why.contains("`in` layout"), "{why}"),
        Support::Runs(need) => panic!("Afforest asked for without `in` ran: {}", need.what),
    }
}

/// WCC's report says what Afforest read, counted by its readers: by the
/// lists' heads (a raw layout) no scan (`passes` 0), the index and at
/// least a page of the heads; by a sampling
/// scan (a compressed copy) at least the index and the adjacency, in one
/// scan; from the hot layout no scan and its own count, not the
/// adjacency's size; union-find reads the layout once.
#[test]
fn wcc_reports_the_bytes_it_read() {
    use outcore_algorithms::wcc::afforest;
    let (dir, st) = store(&shared().join("real/CA-GrQc.txt"), Some(false), false, 6);
    let figures = |st: &Store, m: &str| {
        let p = Wcc.parse(&outcore_algorithms::params::Args::new().with("method", m)).unwrap();
        let report = run(&Wcc, st, &p, &RunOptions::with_memory(1 << 30)).report;
        let num = |k: &str| report.figure(k).and_then(|v| v.as_u64()).unwrap_or_else(|| panic!("{m}: no {k}"));
        let summary = report.figure("engine_summary").and_then(|v| v.as_str()).unwrap_or_default().to_string();
        (num("bytes_read"), num("passes"), summary)
    };
    let lay = st.layout("out").unwrap();
    let file = |p: std::path::PathBuf| std::fs::metadata(p).unwrap().len();
    let (heads, passes, summary) = figures(&st, "afforest");
    assert_eq!((passes, summary.as_str()), (0, "no sequential scan"));
    let (index, adjacency) = (file(lay.index_path()), file(lay.adjacency_path()));
    assert!(heads > index + adjacency.min(4096), "{heads} read by the heads and the lookups after them");
    assert_eq!(figures(&st, "union-find"), (st.layout_bytes("out"), 1, "1 sequential scan".to_string()));
    // a gapref copy is scanned
    let copy = dir.path().join("gapref");
    let opts = outcore_ingest::recode::RecodeOptions {
        encoding: Some(outcore_store::Encoding::Gapref),
        order: "none".into(),
        memory: 256 << 20,
        force: false,
        layouts: None,
    };
    outcore_ingest::recode::recode(&dir.path().join("s"), &copy, None, &opts, &NoProgress).unwrap();
    let gapref = Store::open(&copy).unwrap();
    let g = gapref.layout("out").unwrap();
    let (scanned, passes, summary) = figures(&gapref, "afforest");
    assert_eq!((passes, summary.as_str()), (1, "1 sequential scan"));
    assert!(scanned >= file(g.index_path()) + file(g.adjacency_path()), "{scanned} read by a sampling scan");
    drop((lay, st, g, gapref));
    let path = dir.path().join("s");
    outcore_ingest::hot::add_hot(&path, 2, 1 << 30, &NoProgress).unwrap();
    let st = Store::open(&path).unwrap();
    let (_, _, stats) = afforest::wcc_charged(&st, &Budget::unlimited()).unwrap();
    assert_eq!(stats.sampled_from, "hot");
    assert_eq!(
        figures(&st, "afforest"),
        (stats.bytes_read, 0, "no sequential scan".to_string()),
        "the report's bytes are the ones counted"
    );
}

#[test]
fn afforest_charges_what_it_holds_and_finds_the_largest_component_as_its_giant() {
    // the charges: parents (the labels' reservation, returned), then the
    // bitmap and link buffer for the run; the giant: the intermediate
    // component the sampling grows is part of the final largest one and
    // most of it, so only lists outside it are read
    use outcore_algorithms::wcc::afforest;
    for (input, directed, hot) in
        [("CA-GrQc", false, false), ("CA-GrQc", false, true), ("wiki-Vote", true, false), ("wiki-Vote", true, true)]
    {
        let (dir, without) = store(&shared().join(format!("real/{input}.txt")), Some(directed), false, 6);
        // what the report says sampling from the hot layout would read
        let said = afforest::hot_sampling_bytes(&without);
        drop(without);
        if hot {
            // against the files it then reads
            outcore_ingest::hot::add_hot(&dir.path().join("s"), 2, 1 << 30, &NoProgress).unwrap();
            let st = Store::open(&dir.path().join("s")).unwrap();
            let m = st.manifest();
            let source = &m.layouts[if directed { "in" } else { "out" }];
            let degrees = m.files[source.degrees.as_ref().unwrap_or(&source.index)].bytes;
            let columns: u64 = m.hot.as_ref().unwrap().columns[..2].iter().map(|c| m.files[&c.file].bytes).sum();
            let n = st.vertices();
            assert!(
                degrees + columns <= said && said <= degrees + 2 * 4 * n,
                "{input}: said {said}, reads {degrees} + {columns} (at most {})",
                degrees + 8 * n
            );
        }
        let st = Store::open(&dir.path().join("s")).unwrap();
        let what = format!("{input}, hot layout {hot}");
        let n = st.vertices();
        let budget = Budget::unlimited();
        let (labels, charge, stats) = afforest::wcc_charged(&st, &budget).unwrap();
        assert_eq!(charge.bytes(), 4 * n, "{what}: the labels' charge");
        assert!(budget.peak() >= afforest::state_bytes(n), "{what}: peak {} < state {}", budget.peak(), afforest::state_bytes(n));
        assert_eq!(stats.sampled_from, if hot { "hot" } else { "heads" }, "{what}");
        drop(charge);
        assert_eq!(budget.used(), 0, "{what}: every charge given back");
        let g = MemGraph::load(&st, "out", &Budget::unlimited()).unwrap();
        let want = bounded("the reference", || wcc::reference::wcc(&g));
        assert_eq!(labels.iter().map(|&l| l as u64).collect::<Vec<_>>(), want, "{what}: labels");
        let mut sizes: HashMap<u64, u64> = HashMap::new();
        for &l in &want {
            *sizes.entry(l).or_default() += 1;
        }
        let largest = *sizes.values().max().unwrap();
        // (sampled from a directed store's hot layout, the in-lists, the
        // vertices without in-arcs stay apart: 2,370 of wiki-Vote's 7,066)
        let share = if directed && hot { 3 } else { 2 };
        assert!(
            stats.giant_vertices <= largest && share * stats.giant_vertices > largest,
            "{what}: giant {} against the largest component's {largest}",
            stats.giant_vertices
        );
        // per layout read (out, and in when directed), only vertices outside the giant
        let layouts = 1 + directed as u64;
        assert!(stats.lists_finished <= layouts * (n - stats.giant_vertices), "{what}: {} lists read", stats.lists_finished);
    }
}

/// CA-GrQc with a weight of 1 to 5 on each edge, written into `dir`.
fn weighted_grqc(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("CA-GrQc-weighted.txt");
    let text = std::fs::read_to_string(shared().join("real/CA-GrQc.txt")).unwrap();
    let lines: Vec<String> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let ids: Vec<u64> = l.split_whitespace().map(|x| x.parse().unwrap()).collect();
            format!("{} {} {}", ids[0], ids[1], 1 + (ids[0] + ids[1]) % 5)
        })
        .collect();
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

/// A weighted program over several iterations reads from the cache pool
/// what it read from the device: the pool fills, is compacted (nothing
/// evicted: the program keeps every tile) and serves the next iterations,
/// whose weighted sums equal the first's and an independent reference.
#[test]
fn a_weighted_program_reads_the_same_tiles_from_a_full_pool() {
    use outcore_engines::{TileEdges, TileProgram, TileStream};
    use std::sync::Mutex;
    struct WeightedSums {
        y: Mutex<Vec<f64>>,
    }
    impl TileProgram for WeightedSums {
        fn reverse(&self) -> bool {
            true
        }
        fn weights(&self) -> bool {
            true
        }
        fn forward(&self, t: &TileEdges) {
            let mut y = self.y.lock().unwrap();
            for (k, &[ls, lt]) in t.edges.iter().enumerate() {
                let (u, v) = (t.source_base as usize + ls as usize, t.target_base as usize + lt as usize);
                y[v] += t.weights[k] as f64 * (u + 1) as f64;
            }
        }
        fn backward(&self, t: &TileEdges) {
            let mut y = self.y.lock().unwrap();
            for (k, &[ls, lt]) in t.edges.iter().enumerate() {
                let (u, v) = (t.source_base as usize + ls as usize, t.target_base as usize + lt as usize);
                if u != v {
                    y[u] += t.weights[k] as f64 * (v + 1) as f64;
                }
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let (_d, st) = store(&weighted_grqc(dir.path()), Some(false), true, 9);
    let g = MemGraph::load(&st, "out", &Budget::unlimited()).unwrap();
    let n = g.vertices();
    // y(v) = sum over v's neighbours u of w(u, v) (u + 1)
    let want: Vec<f64> =
        (0..n).map(|v| g.neighbours(v).iter().zip(g.edge_weights(v).unwrap()).map(|(&u, &w)| w as f64 * (u + 1) as f64).sum()).collect();
    let rec = st.manifest().tiles.clone().unwrap();
    // a pool of a third of the tiles' edges and weights
    let opts = StreamOptions { cache: true, pool_bytes: Some(rec.edges * 8 / 3), segment_bytes: Some(16 << 10), ..Default::default() };
    let mut stream = TileStream::open(&st, &Budget::unlimited(), true, opts).unwrap();
    let program = WeightedSums { y: Mutex::new(vec![0.0; n as usize]) };
    for iteration in 0..3 {
        program.y.lock().unwrap().iter_mut().for_each(|y| *y = 0.0);
        let stats = stream.iterate(&program).unwrap();
        if iteration > 0 {
            assert!(stats.bytes_from_cache > 0 && stats.bytes_read > 0, "iteration {iteration}: {stats:?}");
        }
        let y = program.y.lock().unwrap();
        for v in 0..n as usize {
            assert!((y[v] - want[v]).abs() <= 1e-9 * want[v].max(1.0), "iteration {iteration} vertex {v}: {} vs {}", y[v], want[v]);
        }
    }
}

/// The bytes a pass over the tiles reads, as the stream engine reports
/// them: the edge files, and the weight files only for a run that reads
/// weights (PageRank on a weighted store does not; SpMV does).
#[test]
fn stream_layout_bytes_are_the_tile_files_a_pass_reads() {
    let (_d, st) = store(&shared().join("graphalytics/evlp/example-directed.properties"), None, true, 1);
    let files = |suffix: &str| -> u64 {
        std::fs::read_dir(st.dir())
            .unwrap()
            .map(|e| e.unwrap())
            .filter(|e| e.file_name().to_string_lossy().starts_with("tiles-") && e.file_name().to_string_lossy().ends_with(suffix))
            .map(|e| e.metadata().unwrap().len())
            .sum()
    };
    let (edges, weights) = (files(".edges"), files(".weights"));
    assert!(edges > 0 && weights > 0, "edges {edges}, weights {weights}");
    let pr = run(&PageRank, &st, &pagerank::Params::fixed(0.85, 2), &on(Engine::Stream));
    let spmv = run(&Spmv, &st, &spmv::Params { x: Vector::Ones }, &on(Engine::Stream));
    for (what, r, want) in [("PageRank", &pr, edges), ("SpMV", &spmv, edges + weights)] {
        assert_eq!(r.report.figures["stream"]["layout_bytes"].as_u64(), Some(want), "{what}: {:?}", r.report.figures["stream"]);
        let first = &per_iteration(r)[0];
        let pass = first["bytes_read"].as_u64().unwrap() + first["bytes_from_cache"].as_u64().unwrap();
        assert_eq!(pass, want, "{what}: the first pass read {first}");
    }
}

/// The interval engine's v-shard counter: one interval holds every
/// vertex, so each iteration reads 4 bytes a vertex of v-shard; in many
/// intervals each reads its members and the boundary around them, so an
/// iteration reads at least as much and at most 4 bytes a vertex and arc.
/// Either way the value table is read and written once, 8 bytes a vertex.
#[test]
fn interval_shard_bytes_are_the_vertices_each_interval_holds() {
    let (_d, st) = store(&shared().join("real/CA-GrQc.txt"), Some(false), false, 16);
    let (n, arcs) = (st.vertices(), st.manifest().arcs);
    for cap in [None, Some(500)] {
        let opts = RunOptions { interval: IntervalOptions { max_interval_values: cap, ..Default::default() }, ..on(Engine::Interval) };
        let r = run(&PageRank, &st, &pagerank::Params::fixed(0.85, 2), &opts);
        let intervals = r.report.figures["interval"]["intervals"].as_u64().unwrap();
        assert_eq!(intervals == 1, cap.is_none(), "{cap:?}: {intervals} intervals");
        for it in per_iteration(&r) {
            let get = |key: &str| it[key].as_u64().unwrap_or_else(|| panic!("{key} in {it}"));
            let shard = get("shard_bytes_read");
            if intervals == 1 {
                assert_eq!(shard, 4 * n, "one interval: {it}");
            } else {
                assert!(shard > 4 * n && shard <= 4 * (n + arcs), "{intervals} intervals: {it}");
            }
            assert_eq!((get("value_bytes_read"), get("value_bytes_written"), get("edges")), (8 * n, 8 * n, arcs), "{cap:?}: {it}");
        }
    }
}

/// A vertex whose neighbours' values do not fit what the budget leaves
/// the interval engine is a budget error naming the vertex, and the budget
/// it suggests is the smallest that works: the suggestion runs, 64 KiB
/// less does not. (A star: the plan's minimum leaves the engine 1 MiB of
/// values, and the hub's interval needs 8 bytes for each of 300,001.)
#[test]
fn interval_budget_error_suggests_the_smallest_budget_that_works() {
    let dir = tempfile::tempdir().unwrap();
    let edges = dir.path().join("star.el");
    let text: String = (1..=300_000u64).map(|leaf| format!("0 {leaf}\n")).collect();
    std::fs::write(&edges, text).unwrap();
    let (_d, st) = store(&edges, Some(false), false, 16);
    let pr = pagerank::Params::fixed(0.85, 1);
    let at = |memory: u64| bounded("pagerank", || execute(&PageRank, &st, &pr, &RunOptions { memory, ..on(Engine::Interval) }));
    let budget_error = |memory: u64| match at(memory) {
        Err(outcore_algorithms::Error::Store(outcore_store::StoreError::Budget(b))) => b,
        Err(e) => panic!("at {memory} bytes: not a budget error: {e}"),
        Ok(_) => panic!("at {memory} bytes: ran"),
    };
    let plan_minimum = budget_error(1 << 20).suggest;
    let hub = budget_error(plan_minimum);
    assert!(hub.what.contains("vertex 0 and its 300000 neighbours"), "{hub:?}");
    assert_eq!(hub.needed, 8 * st.vertices(), "{hub:?}");
    assert!(at(hub.suggest).is_ok(), "the suggested {} is not enough", hub.suggest);
    let short = budget_error(hub.suggest - (64 << 10));
    assert!(short.what.contains("vertex 0"), "64 KiB below the suggestion: {short:?}");
}
