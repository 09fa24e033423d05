//! The streaming analytics (PageRank, WCC, CDLP, SpMV, BFS on tiles) in
//! every regime equal the Graphalytics expected outputs and the in-memory
//! reference implementations. Small spans give the small graphs grids of
//! many tiles, and tiny segments, pools and intervals force many reads,
//! evictions and intervals.

mod common;

use common::*;

use outcore_algorithms::analytics::{AnalyticsOptions, Engine};
use outcore_algorithms::reference;
use outcore_algorithms::{cdlp::cdlp, label_wcc::wcc, pagerank, spmv::spmv, tile_bfs, MemGraph};
use outcore_engines::{IntervalOptions, StreamOptions};
use outcore_ingest::{import_file, tiles::add_tiles, ImportOptions, NoProgress};
use outcore_io::Budget;
use outcore_store::Store;
use std::collections::HashMap;
use std::path::Path;

/// A store with out (and, directed, in) CSR and tiles of 2^`span_bits` vertices.
fn store(input: &Path, directed: Option<bool>, weighted: bool, span_bits: u32) -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let st = dir.path().join("s");
    let opts = ImportOptions { directed, weighted, in_layout: true, ..Default::default() };
    import_file(input, &st, &opts, &NoProgress).unwrap();
    add_tiles(&st, 3, span_bits, 64 << 20).unwrap();
    (dir, Store::open(&st).unwrap())
}

/// The regimes every algorithm runs in, for a layout of `tile_bytes`.
fn regimes(tile_bytes: u64, interval_values: u64) -> Vec<(&'static str, AnalyticsOptions)> {
    let memory = AnalyticsOptions { engine: Engine::Memory, ..Default::default() };
    let stream = AnalyticsOptions {
        engine: Engine::Stream,
        stream: StreamOptions { segment_bytes: Some(16 << 10), pool_bytes: Some(tile_bytes / 3), coalesce_gap: 0, ..Default::default() },
        ..Default::default()
    };
    let no_cache = AnalyticsOptions {
        engine: Engine::Stream,
        stream: StreamOptions { segment_bytes: Some(16 << 10), cache: false, ..Default::default() },
        ..Default::default()
    };
    let interval = AnalyticsOptions {
        engine: Engine::Interval,
        interval: IntervalOptions { max_interval_values: Some(interval_values), ..Default::default() },
        ..Default::default()
    };
    vec![("memory", memory), ("stream", stream), ("stream without cache", no_cache), ("intervals", interval)]
}

const GRAPHALYTICS: [&str; 6] =
    ["example-directed", "example-undirected", "test-bfs-directed", "test-bfs-undirected", "test-wcc-directed", "test-wcc-undirected"];

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
            let budget = Budget::unlimited();
            if let Some(want) = expected(name, "PR") {
                let d: f64 = property(name, "pr.damping-factor").unwrap().parse().unwrap();
                let iterations: u32 = property(name, "pr.num-iterations").unwrap().parse().unwrap();
                let r = pagerank::pagerank(&st, &pagerank::PageRankOptions { damping: d, iterations, tolerance: None }, &budget, &opts)
                    .unwrap();
                assert_eq!(r.report.engine, opts.engine);
                let got = r.rank.to_vec().unwrap();
                for (v, x) in got.iter().enumerate() {
                    let e: f64 = want[&original(v as u64)].parse().unwrap();
                    assert!((x - e).abs() <= 1e-4 * e, "{name} {regime} PR vertex {}: {x} vs {e}", original(v as u64));
                }
                *checked.entry("PR").or_insert(0) += 1;
            }
            if let Some(want) = expected(name, "WCC") {
                let r = wcc(&st, &budget, &opts).unwrap();
                for (v, l) in r.labels.to_vec().unwrap().iter().enumerate() {
                    assert_eq!(original(*l).to_string(), want[&original(v as u64)], "{name} {regime} WCC vertex {}", original(v as u64));
                }
                *checked.entry("WCC").or_insert(0) += 1;
            }
            if let Some(want) = expected(name, "CDLP") {
                let iterations: u32 = property(name, "cdlp.max-iterations").unwrap().parse().unwrap();
                let r = cdlp(&st, iterations, &budget, &opts).unwrap();
                for (v, l) in r.labels.to_vec().unwrap().iter().enumerate() {
                    assert_eq!(original(*l).to_string(), want[&original(v as u64)], "{name} {regime} CDLP vertex {}", original(v as u64));
                }
                *checked.entry("CDLP").or_insert(0) += 1;
            }
            if let (Some(want), true) = (expected(name, "BFS"), opts.engine != Engine::Interval) {
                let root = ids.dense(property(name, "bfs.source-vertex").unwrap().parse().unwrap()).unwrap();
                let r = tile_bfs::bfs_tiles(&st, root, &budget, &opts).unwrap();
                for (v, &l) in r.level.iter().enumerate() {
                    let shown = if l == tile_bfs::UNREACHED { i64::MAX.to_string() } else { l.to_string() };
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
    let cases = [("wiki-Vote.txt", true), ("CA-GrQc.txt", false), ("p2p-Gnutella05.txt", true)];
    for (file, directed) in cases {
        let (_d, st) = store(&shared().join("real").join(file), Some(directed), false, 9);
        let g = MemGraph::load(&st, "out", &Budget::unlimited()).unwrap();
        let n = g.vertices();
        let rec = st.manifest().tiles.clone().unwrap();
        assert!(rec.tiles > 50 && rec.edges * 4 > 3 * (16 << 10), "{file}: {} tiles", rec.tiles);
        let pr_want = reference::pagerank::pagerank(&g, 0.85, 10);
        let wcc_want = reference::wcc::wcc(&g);
        let cdlp_want = reference::cdlp::cdlp(&g, 5);
        let x: Vec<f64> = (0..n).map(|v| 1.0 + (v % 7) as f64).collect();
        let spmv_want = reference::spmv::spmv(&g, &x);
        let root = (0..n).max_by_key(|&v| g.degree(v)).unwrap();
        let bfs_want = reference::bfs::bfs_levels(&g, root);
        for (regime, opts) in regimes(rec.edges * 4, n / 5) {
            let budget = Budget::unlimited();
            let pr = pagerank::pagerank(&st, &pagerank::PageRankOptions { damping: 0.85, iterations: 10, tolerance: None }, &budget, &opts)
                .unwrap();
            for (v, (a, b)) in pr.rank.to_vec().unwrap().iter().zip(&pr_want).enumerate() {
                assert!((a - b).abs() <= 1e-12 + 1e-9 * b, "{file} {regime} PR vertex {v}: {a} vs {b}");
            }
            let w = wcc(&st, &budget, &opts).unwrap();
            assert_eq!(w.labels.to_vec().unwrap(), wcc_want, "{file} {regime} WCC");
            let c = cdlp(&st, 5, &budget, &opts).unwrap();
            assert_eq!(c.labels.to_vec().unwrap(), cdlp_want, "{file} {regime} CDLP");
            let y = spmv(&st, Some(&x), &budget, &opts).unwrap();
            for (v, (a, b)) in y.y.to_vec().unwrap().iter().zip(&spmv_want).enumerate() {
                assert!((a - b).abs() <= 1e-9 * b.abs().max(1.0), "{file} {regime} SpMV vertex {v}: {a} vs {b}");
            }
            if opts.engine != Engine::Interval {
                let b = tile_bfs::bfs_tiles(&st, root, &budget, &opts).unwrap();
                assert_eq!(b.level, bfs_want, "{file} {regime} BFS");
            }
            // the regimes really stream, evict and cut
            match regime {
                "stream" => {
                    let s = pr.report.stream.as_ref().unwrap();
                    assert!(s.iterations.iter().all(|i| i.segments > 1), "{file}: one segment per iteration");
                    assert!(s.iterations[1].bytes_from_cache > 0 && s.iterations[1].bytes_read > 0, "{file}: no partial cache reuse");
                    let ws = w.report.stream.as_ref().unwrap();
                    assert!(ws.iterations.iter().skip(1).any(|i| i.pieces_skipped > 0), "{file}: WCC never skipped a tile");
                    assert!(ws.iterations.iter().any(|i| i.pieces_evicted > 0), "{file}: WCC never evicted a tile");
                }
                "memory" => {
                    let s = pr.report.stream.as_ref().unwrap();
                    assert!(s.iterations.iter().skip(1).all(|i| i.bytes_read == 0), "{file}: memory regime read after the first pass");
                }
                "intervals" => assert!(pr.report.interval.as_ref().unwrap().intervals >= 5, "{file}: too few intervals"),
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
    let want = reference::spmv::spmv(&g, &x);
    for (regime, opts) in regimes(1 << 10, 3) {
        let got = spmv(&st, Some(&x), &Budget::unlimited(), &opts).unwrap().y.to_vec().unwrap();
        for (a, b) in got.iter().zip(&want) {
            assert!((a - b).abs() < 1e-9, "{regime}: {a} vs {b}");
        }
    }
}

#[test]
fn missing_layouts_small_budgets_and_bad_options_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let st = dir.path().join("s");
    import_file(&shared().join("real/wiki-Vote.txt"), &st, &ImportOptions { directed: Some(true), ..Default::default() }, &NoProgress)
        .unwrap();
    let store = Store::open(&st).unwrap();
    let pr = pagerank::PageRankOptions { damping: 0.85, iterations: 2, tolerance: None };
    let stream = AnalyticsOptions { engine: Engine::Stream, ..Default::default() };
    let err = pagerank::pagerank(&store, &pr, &Budget::unlimited(), &stream).err().unwrap().to_string();
    assert!(err.contains("outcore layout add") && err.contains("tiles"), "{err}");
    let interval = AnalyticsOptions { engine: Engine::Interval, ..Default::default() };
    let err = pagerank::pagerank(&store, &pr, &Budget::unlimited(), &interval).err().unwrap().to_string();
    assert!(err.contains("'in' layout") && err.contains("outcore layout add"), "{err}");
    outcore_ingest::in_layout::add_in(&st, 64 << 20).unwrap();
    let store = Store::open(&st).unwrap();
    let r = pagerank::pagerank(&store, &pr, &Budget::unlimited(), &interval).unwrap();
    assert_eq!(r.report.engine, Engine::Interval);
    add_tiles(&st, 256, 16, 1 << 30).unwrap();
    let store = Store::open(&st).unwrap();
    let err = pagerank::pagerank(&store, &pr, &Budget::new(1 << 20), &stream).err().unwrap().to_string();
    assert!(err.contains("use --memory"), "{err}");
    let bad = pagerank::PageRankOptions { tolerance: Some(0.0), ..pr };
    let err = pagerank::pagerank(&store, &bad, &Budget::unlimited(), &AnalyticsOptions::default()).err().unwrap().to_string();
    assert!(err.contains("tolerance must be > 0"), "{err}");
    // with a tolerance PageRank stops early, close to the fixed point
    let tol = pagerank::PageRankOptions { damping: 0.85, iterations: 100, tolerance: Some(1e-6) };
    let r = pagerank::pagerank(&store, &tol, &Budget::unlimited(), &AnalyticsOptions::default()).unwrap();
    assert!(r.iterations < 100 && r.delta < 1e-6, "{} iterations", r.iterations);
}

#[test]
fn auto_picks_the_regime_from_the_budget() {
    let (_d, st) = store(&shared().join("real/CA-GrQc.txt"), Some(false), false, 16);
    let pr = pagerank::PageRankOptions { damping: 0.85, iterations: 3, tolerance: None };
    let auto = AnalyticsOptions::default();
    let big = pagerank::pagerank(&st, &pr, &Budget::new(1 << 30), &auto).unwrap();
    assert_eq!(big.report.engine, Engine::Memory, "{}", big.report.reason);
    let n = st.vertices();
    // room for the ranks and two segments but not for the tiles
    let tight = Budget::new(pagerank::state_bytes(n) + (2 << 20) + (st.manifest().tiles.as_ref().unwrap().edges * 4) / 2 + (3 << 20));
    let mid = pagerank::pagerank(&st, &pr, &tight, &auto).unwrap();
    assert_eq!(mid.report.engine, Engine::Stream, "{}", mid.report.reason);
    let a = big.rank.to_vec().unwrap();
    for (x, y) in a.iter().zip(mid.rank.to_vec().unwrap()) {
        assert!((x - y).abs() < 1e-12);
    }
    assert_eq!(a.len() as u64, n);
}

#[test]
fn interval_runs_leave_no_temporary_files_and_clear_those_of_killed_runs() {
    let (_d, st) = store(&shared().join("real/CA-GrQc.txt"), Some(false), false, 16);
    let stale = st.dir().join(".intervals-4000000000");
    std::fs::create_dir_all(&stale).unwrap();
    std::fs::write(stale.join("values-0"), b"left by a killed run").unwrap();
    let opts = AnalyticsOptions { engine: Engine::Interval, ..Default::default() };
    let pr = pagerank::PageRankOptions { damping: 0.85, iterations: 2, tolerance: None };
    let r = pagerank::pagerank(&st, &pr, &Budget::unlimited(), &opts).unwrap();
    assert_eq!(r.rank.to_vec().unwrap().len() as u64, st.vertices());
    drop(r);
    let left: Vec<_> = std::fs::read_dir(st.dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".intervals"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}
