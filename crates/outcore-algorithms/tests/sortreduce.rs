//! The sort-reduce engine (BigSparse) runs PageRank, BFS, SSSP and WCC to
//! the reference implementations' answers and to the Graphalytics expected
//! outputs, with batches and fan-ins so small that every superstep spills
//! many runs and merges them over several levels; by scans and by lookups.
//! Temporary files are gone afterwards, and bad budgets and full disks are
//! clear errors.

mod common;

use common::*;
use outcore_algorithms::pagerank::{self, PageRank};
use outcore_algorithms::values::{for_each_stored, UNREACHED_U64};
use outcore_algorithms::wcc::{self, Wcc};
use outcore_algorithms::{bfs, sssp, Engine, MemGraph, RunOptions};
use outcore_engines::sortreduce::{Access, SortReduce, SortReduceOptions};
use outcore_ingest::{import_file, ImportOptions, NoProgress};
use outcore_io::Budget;
use outcore_store::Store;
use std::collections::HashMap;
use std::path::Path;

fn options(access: Access, batch: usize, fan_in: usize) -> RunOptions {
    RunOptions {
        sortreduce: SortReduceOptions {
            access,
            max_batch_updates: Some(batch),
            max_fan_in: Some(fan_in),
            lookup_threads: 3,
            ..Default::default()
        },
        ..on(Engine::SortReduce)
    }
}

/// Tiny batches and 3-way merges: several merge levels even on 40 edges.
fn regimes() -> Vec<(&'static str, RunOptions)> {
    vec![("scan", options(Access::Scan, 3, 3)), ("lookup", options(Access::Lookup, 5, 2)), ("auto", options(Access::Auto, 64, 4))]
}

fn import(input: &Path, dir: &Path, directed: Option<bool>, weighted: bool) -> Store {
    let out = dir.join("s");
    let opts = ImportOptions { directed, weighted, in_layout: true, ..Default::default() };
    import_file(input, &out, &opts, &NoProgress).unwrap();
    Store::open(&out).unwrap()
}

fn engine(store: &Store, opts: &RunOptions, update_bytes: usize) -> SortReduce {
    SortReduce::open(store, &["out"], update_bytes, &Budget::unlimited(), &opts.sortreduce).unwrap()
}

fn no_temporary_files(store: &Store) {
    let left: Vec<String> = std::fs::read_dir(store.dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".outcore-"))
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
}

const GRAPHS: [&str; 6] =
    ["example-directed", "example-undirected", "test-bfs-directed", "test-bfs-undirected", "test-wcc-directed", "test-wcc-undirected"];

#[test]
fn graphalytics_outputs_on_sortreduce() {
    let mut checked = 0;
    for name in GRAPHS {
        let dir = tempfile::tempdir().unwrap();
        let st = import(&evlp().join(format!("{name}.properties")), dir.path(), None, name.starts_with("example"));
        let budget = Budget::unlimited();
        let ids = st.id_map(&budget).unwrap();
        for (regime, opts) in regimes() {
            let what = format!("{name} ({regime})");
            if let Some(want) = expected(name, "BFS") {
                let root = ids.dense(property(name, "bfs.source-vertex").unwrap().parse().unwrap()).unwrap();
                let t = bounded("BFS on sort-reduce", || bfs::sortreduce::bfs_sortreduce(engine(&st, &opts, 4), root)).unwrap();
                for_each_stored(&t.values, |v, [level, _]| {
                    let shown = if level == bfs::NONE { i64::MAX.to_string() } else { level.to_string() };
                    assert_eq!(shown, want[&ids.original(v)], "{what}: BFS level of {}", ids.original(v));
                })
                .unwrap();
                checked += 1;
            }
            if let Some(want) = expected(name, "WCC") {
                let r = run(&Wcc, &st, &Default::default(), &opts);
                assert_eq!(r.report.engine, Engine::SortReduce);
                let (mut forward, mut backward) = (HashMap::new(), HashMap::new());
                r.outcome.columns[0]
                    .for_each(|v, l| {
                        let l = l.as_u64();
                        let theirs = want[&ids.original(v)].clone();
                        assert_eq!(forward.entry(l).or_insert(theirs.clone()), &theirs, "{what}: one component split");
                        assert_eq!(backward.entry(theirs).or_insert(l), &l, "{what}: two components merged");
                    })
                    .unwrap();
                checked += 1;
            }
            if let Some(want) = expected(name, "PR") {
                let d: f64 = property(name, "pr.damping-factor").unwrap().parse().unwrap();
                let iterations: u32 = property(name, "pr.num-iterations").unwrap().parse().unwrap();
                let r = run(&PageRank, &st, &pagerank::Params::fixed(d, iterations), &opts);
                assert_eq!(figure(&r, "iterations"), iterations as f64);
                r.outcome.columns[0]
                    .for_each(|v, x| {
                        let x = x.as_f64();
                        let e: f64 = want[&ids.original(v)].parse().unwrap();
                        assert!((x - e).abs() <= 1e-4 * e, "{what}: PageRank of {}: {x} vs {e}", ids.original(v));
                    })
                    .unwrap();
                checked += 1;
            }
            if let Some(want) = expected(name, "SSSP") {
                let root = ids.dense(property(name, "sssp.source-vertex").unwrap().parse().unwrap()).unwrap();
                let p = bounded("SSSP on sort-reduce", || sssp::sssp_sortreduce(engine(&st, &opts, 16), root)).unwrap();
                for_each_stored(&p.values, |v, [x, _]: [f64; 2]| {
                    let theirs = &want[&ids.original(v)];
                    if theirs == "infinity" {
                        assert!(x.is_infinite(), "{what}: {} should be unreachable", ids.original(v));
                    } else {
                        let e: f64 = theirs.parse().unwrap();
                        assert!((x - e).abs() <= 1e-6 * e.max(1.0), "{what}: SSSP of {}: {x} vs {e}", ids.original(v));
                    }
                })
                .unwrap();
                checked += 1;
            }
        }
        no_temporary_files(&st);
    }
    assert_eq!(checked, 3 * (4 + 4 + 2 + 2));
}

/// Real graphs against the plain references, with merges several levels deep.
#[test]
fn real_graphs_match_the_references_with_deep_merges() {
    let real = shared().join("real");
    for (file, directed) in [("wiki-Vote.txt", true), ("CA-GrQc.txt", false), ("p2p-Gnutella05.txt", true)] {
        let dir = tempfile::tempdir().unwrap();
        let st = import(&real.join(file), dir.path(), Some(directed), false);
        let budget = Budget::unlimited();
        let g = MemGraph::load(&st, "out", &budget).unwrap();
        let n = st.vertices();
        let root = (0..n).max_by_key(|&v| g.degree(v)).unwrap();
        let want_pr = bounded("the reference", || pagerank::reference::pagerank(&g, 0.85, 8));
        let want_bfs = bounded("the reference", || bfs::reference::bfs_levels(&g, root));
        let want_wcc = bounded("the reference", || wcc::reference::wcc(&g));
        // the smallest id one level up with an edge to each vertex
        let mut first_parent = vec![u64::MAX; n as usize];
        for u in 0..n {
            for &v in g.neighbours(u) {
                let (lu, lv) = (want_bfs[u as usize], want_bfs[v as usize]);
                if lu != UNREACHED_U64 && lu + 1 == lv && first_parent[v as usize] == u64::MAX {
                    first_parent[v as usize] = u;
                }
            }
        }
        for (regime, opts) in [("scan", options(Access::Scan, 2000, 3)), ("lookup", options(Access::Lookup, 1500, 4))] {
            let what = format!("{file} ({regime})");
            let r = run(&PageRank, &st, &pagerank::Params::fixed(0.85, 8), &opts);
            let got = r.outcome.columns[0].to_f64().unwrap();
            for v in 0..n as usize {
                assert!((got[v] - want_pr[v]).abs() <= 1e-12 + 1e-9 * want_pr[v], "{what}: PageRank of {v}: {} vs {}", got[v], want_pr[v]);
            }
            let sr = &r.report.figures["sortreduce"];
            let steps = sr["per_superstep"].as_array().unwrap();
            assert!(
                steps.iter().all(|s| s["runs"].as_u64().unwrap() > 3 && s["merge_passes"].as_u64().unwrap() >= 2),
                "{what}: every superstep spills and merges twice"
            );
            let ratio = sr["reduction_ratio"].as_f64().unwrap();
            assert!(ratio < 1.0 && ratio > 0.0);

            let t = bounded("BFS on sort-reduce", || bfs::sortreduce::bfs_sortreduce(engine(&st, &opts, 4), root)).unwrap();
            assert!(t.engine.stats().supersteps.iter().any(|s| s.merge_passes >= 2), "{what}: BFS merges several levels");
            let mut reached = 0;
            for_each_stored(&t.values, |v, [level, parent]| {
                let want = want_bfs[v as usize];
                if want == UNREACHED_U64 {
                    assert_eq!(level, bfs::NONE, "{what}: {v} is unreachable");
                } else {
                    reached += 1;
                    assert_eq!(level as u64, want, "{what}: BFS level of {v}");
                    let p = parent as u64;
                    assert_eq!(p, if v == root { root } else { first_parent[v as usize] }, "{what}: parent of {v}");
                }
            })
            .unwrap();
            assert_eq!(t.reached, reached);

            let r = run(&Wcc, &st, &Default::default(), &opts);
            let steps = r.report.figures["sortreduce"]["per_superstep"].as_array().unwrap().clone();
            assert!(steps.iter().any(|s| s["merge_passes"].as_u64().unwrap() >= 2), "{what}: WCC merges several levels");
            let w = r.outcome.columns[0].to_u64().unwrap();
            assert_eq!(w, want_wcc, "{what}: WCC labels (the smallest id of each component)");
        }
        no_temporary_files(&st);
    }
}

/// SSSP on sort-reduce runs the plain reference's rounds
/// (`sssp::reference::sssp_rounds`): the same distances and parents (in a
/// round the smaller offered distance, then the smaller offering vertex;
/// an equal distance in a later round does not replace it), and the same
/// vertices reached, arcs relaxed and supersteps. Weights 0 to 3 make most
/// distances tie, within a round and across rounds.
#[test]
fn sssp_on_sortreduce_runs_the_reference_rounds() {
    let mut rng = outcore_io::SplitMix64(0x5550);
    let mut random = String::new();
    for _ in 0..1500 {
        random += &format!("{} {} {}\n", rng.below(300), rng.below(300), rng.below(4));
    }
    let dir = tempfile::tempdir().unwrap();
    let random_file = dir.path().join("random.wel");
    std::fs::write(&random_file, random).unwrap();
    let graphs = [(random_file.clone(), true), (random_file, false), (shared().join("real/netscience.csv"), false)];
    let mut checked = 0;
    for (file, directed) in graphs {
        let dir = tempfile::tempdir().unwrap();
        let st = import(&file, dir.path(), Some(directed), true);
        let g = MemGraph::load(&st, "out", &Budget::unlimited()).unwrap();
        let hub = (0..st.vertices()).max_by_key(|&v| g.degree(v)).unwrap();
        for root in [hub, st.vertices() / 2] {
            let want = bounded("the reference", || sssp::reference::sssp_rounds(&g, root));
            assert!(root != hub || want.reached > 10, "{}: the hub {root} reaches more than itself", file.display());
            // merges of several levels (the reference's rounds are short)
            for (regime, opts) in [("scan", options(Access::Scan, 64, 3)), ("lookup", options(Access::Lookup, 40, 2))] {
                let what = format!("{} (directed {directed}, root {root}, {regime})", file.display());
                let p = bounded("SSSP on sort-reduce", || sssp::sssp_sortreduce(engine(&st, &opts, 16), root)).unwrap();
                for_each_stored(&p.values, |v, [d, parent]: [f64; 2]| {
                    assert_eq!(d.to_bits(), want.dist[v as usize].to_bits(), "{what}: distance of {v}");
                    let parent = if parent == u32::MAX as f64 { u64::MAX } else { parent as u64 };
                    assert_eq!(parent, want.parent[v as usize], "{what}: parent of {v}");
                })
                .unwrap();
                assert_eq!(p.reached, want.reached, "{what}: vertices reached");
                assert_eq!(p.arcs_scanned, want.arcs_relaxed, "{what}: arcs relaxed");
                assert_eq!(p.supersteps, want.rounds, "{what}: supersteps");
                checked += 1;
            }
        }
        no_temporary_files(&st);
    }
    assert_eq!(checked, 3 * 2 * 2);
}

#[test]
fn too_small_a_budget_and_a_full_disk_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let st = import(&shared().join("real/CA-GrQc.txt"), dir.path(), Some(false), false);
    let before: Vec<_> = std::fs::read_dir(st.dir()).unwrap().map(|e| e.unwrap().file_name()).collect();
    let pr = pagerank::Params::fixed(0.85, 3);
    let small = RunOptions { memory: 14 << 20, ..options(Access::Auto, usize::MAX, usize::MAX) };
    let err = outcore_algorithms::execute(&PageRank, &st, &pr, &small).err().unwrap();
    let e = err.to_string();
    assert!(e.contains("one sort buffer") && e.contains("the smallest budget that would work"), "{e}");
    // ... and the budget it names works
    let outcore_algorithms::Error::Store(outcore_store::StoreError::Budget(b)) = err else { panic!("not a budget error: {e}") };
    let enough = RunOptions { memory: b.suggest, ..small };
    assert!(
        bounded("pagerank", || outcore_algorithms::execute(&PageRank, &st, &pr, &enough)).is_ok(),
        "the suggested {} is not enough",
        b.suggest
    );

    // a temporary directory on a full file system
    let full = dir.path().join("full");
    std::fs::create_dir(&full).unwrap();
    let _unmount = tmpfs(&full, "64k");
    let mut opts = options(Access::Scan, 100, 4);
    opts.temp_dir = Some(full.clone());
    let e = outcore_algorithms::execute(&PageRank, &st, &pr, &opts).err().unwrap().to_string();
    assert!(e.contains("free disk") || e.contains("No space left"), "{e}");
    assert_eq!(std::fs::read_dir(&full).unwrap().count(), 0, "temporary files removed after the failure");
    let after: Vec<_> = std::fs::read_dir(st.dir()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(before, after, "the store is untouched");
    assert!(Store::open(st.dir()).unwrap().verify().iter().all(|(_, r)| r.is_ok()));
}
