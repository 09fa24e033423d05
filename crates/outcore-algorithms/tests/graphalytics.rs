//! The reference implementations (the oracles of every engine's tests)
//! reproduce the LDBC Graphalytics expected outputs on every validation
//! graph in shared/data/graphalytics, through import and the id map.

mod common;

use common::*;

use outcore_algorithms::bfs::reference::bfs_levels;
use outcore_algorithms::pagerank::reference::pagerank;
use outcore_algorithms::sssp::reference::sssp;
use outcore_algorithms::wcc::reference::wcc;
use outcore_algorithms::MemGraph;
use outcore_ingest::{import_file, ImportOptions, NoProgress};
use outcore_io::Budget;
use outcore_store::{IdMap, Store};
use std::collections::HashMap;

struct Loaded {
    _dir: tempfile::TempDir,
    graph: MemGraph,
    ids: IdMap,
}

fn load(name: &str) -> Loaded {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s");
    import_file(&evlp().join(format!("{name}.properties")), &out, &ImportOptions::default(), &NoProgress).unwrap();
    let store = Store::open(&out).unwrap();
    let budget = Budget::unlimited();
    Loaded { graph: MemGraph::load(&store, "out", &budget).unwrap(), ids: store.id_map(&budget).unwrap(), _dir: dir }
}

const GRAPHS: [&str; 6] =
    ["example-directed", "example-undirected", "test-bfs-directed", "test-bfs-undirected", "test-wcc-directed", "test-wcc-undirected"];

#[test]
fn bfs_matches_exactly() {
    let mut checked = 0;
    for name in GRAPHS {
        let Some(want) = expected(name, "BFS") else {
            continue;
        };
        let g = load(name);
        let root: u64 = property(name, "bfs.source-vertex").unwrap().parse().unwrap();
        let levels = bounded("the reference BFS", || bfs_levels(&g.graph, g.ids.dense(root).unwrap()));
        assert_eq!(levels.len(), want.len());
        for (v, &l) in levels.iter().enumerate() {
            let shown = if l == u64::MAX { i64::MAX.to_string() } else { l.to_string() };
            assert_eq!(shown, want[&g.ids.original(v as u64)], "{name}: vertex {}", g.ids.original(v as u64));
        }
        checked += 1;
    }
    assert_eq!(checked, 4);
}

#[test]
fn wcc_matches_up_to_relabelling() {
    let mut checked = 0;
    for name in GRAPHS {
        let Some(want) = expected(name, "WCC") else {
            continue;
        };
        let g = load(name);
        // union-find merges both endpoints, so direction is ignored
        let labels = bounded("the reference WCC", || wcc(&g.graph));
        let mut forward = HashMap::new();
        let mut backward = HashMap::new();
        for (v, &l) in labels.iter().enumerate() {
            let theirs = want[&g.ids.original(v as u64)].clone();
            assert_eq!(forward.entry(l).or_insert(theirs.clone()), &theirs, "{name}: one component split");
            assert_eq!(backward.entry(theirs).or_insert(l), &l, "{name}: two components merged");
        }
        checked += 1;
    }
    assert_eq!(checked, 4);
}

#[test]
fn pagerank_within_graphalytics_epsilon() {
    for name in ["example-directed", "example-undirected"] {
        let want = expected(name, "PR").unwrap();
        let g = load(name);
        let d: f64 = property(name, "pr.damping-factor").unwrap().parse().unwrap();
        let iters: u32 = property(name, "pr.num-iterations").unwrap().parse().unwrap();
        let pr = bounded("the reference PageRank", || pagerank(&g.graph, d, iters));
        for (v, &r) in pr.iter().enumerate() {
            let expect: f64 = want[&g.ids.original(v as u64)].parse().unwrap();
            assert!((r - expect).abs() <= 1e-4 * expect.abs(), "{name}: vertex {} {r} vs {expect}", g.ids.original(v as u64));
        }
    }
}

#[test]
fn sssp_within_epsilon_and_infinity_for_unreachable() {
    for name in ["example-directed", "example-undirected"] {
        let want = expected(name, "SSSP").unwrap();
        let g = load(name);
        let root: u64 = property(name, "sssp.source-vertex").unwrap().parse().unwrap();
        let dist = bounded("the reference SSSP", || sssp(&g.graph, g.ids.dense(root).unwrap()));
        for (v, &x) in dist.iter().enumerate() {
            let theirs = &want[&g.ids.original(v as u64)];
            if theirs == "infinity" {
                assert!(x.is_infinite(), "{name}: vertex {} should be unreachable", g.ids.original(v as u64));
            } else {
                let expect: f64 = theirs.parse().unwrap();
                // weights are stored as f32: allow its rounding
                assert!((x - expect).abs() <= 1e-6 * expect.abs().max(1.0), "{name}: vertex {} {x} vs {expect}", g.ids.original(v as u64));
            }
        }
    }
}

#[test]
fn pagerank_conserves_rank_mass_with_sinks() {
    // Without the sink term two of the ten vertices leak rank every step.
    let g = load("example-directed");
    let pr = bounded("the reference PageRank", || pagerank(&g.graph, 0.85, 2));
    let sinks = (0..g.graph.vertices()).filter(|&v| g.graph.degree(v) == 0).count();
    assert_eq!(sinks, 2);
    let total: f64 = pr.iter().sum();
    assert!((total - 1.0).abs() < 1e-12, "rank mass is conserved: {total}");
}
