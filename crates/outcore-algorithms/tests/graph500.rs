//! Graph500 validation accepts correct BFS and SSSP trees and rejects a
//! deliberately corrupted one for each of the five rules.

use outcore_algorithms::bfs::{bfs, BfsTree, NONE};
use outcore_algorithms::graph500::{validate_bfs, validate_sssp};
use outcore_algorithms::sssp::{sssp, ShortestPaths};
use outcore_algorithms::MemGraph;
use outcore_engines::{Traverse, TraverseOptions};
use outcore_ingest::{import_file, ImportOptions, NoProgress};
use outcore_io::Budget;
use outcore_store::Store;

mod common;
use common::bounded;

fn store(file: &str, opts: ImportOptions) -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let src = outcore_io::shared_dir(env!("CARGO_MANIFEST_DIR")).join("data/real").join(file);
    import_file(&src, &dir.path().join("s"), &opts, &NoProgress).unwrap();
    let s = Store::open(&dir.path().join("s")).unwrap();
    (dir, s)
}

/// A weighted store of the edges in `text` (one "u v w" a line).
fn weighted(text: &str, directed: bool) -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("edges.wel");
    std::fs::write(&input, text).unwrap();
    let opts = ImportOptions { directed: Some(directed), weighted: true, ..Default::default() };
    import_file(&input, &dir.path().join("s"), &opts, &NoProgress).unwrap();
    let st = Store::open(&dir.path().join("s")).unwrap();
    (dir, st)
}

fn depths(parent: &[u32], root: u64) -> Vec<u32> {
    (0..parent.len())
        .map(|v| {
            if parent[v] == NONE {
                return NONE;
            }
            let (mut x, mut d) = (v as u32, 0);
            while x as u64 != root {
                x = parent[x as usize];
                d += 1;
            }
            d
        })
        .collect()
}

fn rule(result: Result<outcore_algorithms::graph500::Validated, outcore_algorithms::graph500::Violation>) -> u8 {
    match result {
        Ok(_) => 0,
        Err(v) => v.rule,
    }
}

#[test]
fn bfs_validation_accepts_correct_trees_and_rejects_each_rule() {
    let (_d, st) = store("CA-GrQc.txt", ImportOptions { directed: Some(false), ..Default::default() });
    let budget = Budget::unlimited();
    let g = MemGraph::load(&st, "out", &budget).unwrap();
    let n = st.vertices();
    let mut eng = Traverse::open(&st, "out", &budget, &TraverseOptions::default(), BfsTree::state_bytes(n, st.manifest().arcs)).unwrap();
    let root = (0..n).max_by_key(|&v| g.degree(v)).unwrap();
    let tree = bounded("BFS", || bfs(&mut eng, root, &budget)).unwrap();
    let ok = validate_bfs(&st, root, &tree.parent, &tree.level, &budget).unwrap().unwrap();
    let reached_arcs: u64 = (0..n).filter(|&v| tree.parent[v as usize] != NONE).map(|v| g.degree(v)).sum();
    let loops = (0..n).filter(|&v| tree.parent[v as usize] != NONE && g.neighbours(v).contains(&v)).count() as u64;
    assert_eq!(ok.edges, (reached_arcs - loops) / 2 + loops);

    let leaf = (0..n)
        .find(|&v| v != root && tree.parent[v as usize] != NONE && tree.level[v as usize] >= 2 && !tree.parent.contains(&(v as u32)))
        .unwrap();
    let p = tree.parent[leaf as usize];

    // rule 1: a cycle between a vertex and its parent
    let mut parent = tree.parent.clone();
    parent[p as usize] = leaf as u32;
    assert_eq!(rule(validate_bfs(&st, root, &parent, &tree.level, &budget).unwrap()), 1);

    // rule 2: a reported level that is not the tree depth
    let mut level = tree.level.clone();
    level[leaf as usize] += 1;
    assert_eq!(rule(validate_bfs(&st, root, &tree.parent, &level, &budget).unwrap()), 2);

    // rule 3: hang a vertex under a neighbour of its own level, so its old
    // parent edge spans two levels
    let (v, q) = (0..n)
        .filter(|&v| v != root && tree.parent[v as usize] != NONE && !tree.parent.contains(&(v as u32)))
        .find_map(|v| g.neighbours(v).iter().find(|&&q| tree.level[q as usize] == tree.level[v as usize] && q != v).map(|&q| (v, q)))
        .expect("a leaf with a same-level neighbour");
    let mut parent = tree.parent.clone();
    parent[v as usize] = q as u32;
    let level = depths(&parent, root);
    assert_eq!(rule(validate_bfs(&st, root, &parent, &level, &budget).unwrap()), 3);

    // rule 4: drop a reached leaf from the tree
    let mut parent = tree.parent.clone();
    let mut level = tree.level.clone();
    parent[leaf as usize] = NONE;
    level[leaf as usize] = NONE;
    assert_eq!(rule(validate_bfs(&st, root, &parent, &level, &budget).unwrap()), 4);

    // rule 5: a parent one level up that is not a neighbour
    let x = (0..n).find(|&x| tree.level[x as usize] == tree.level[leaf as usize] - 1 && !g.neighbours(leaf).contains(&x)).unwrap();
    let mut parent = tree.parent.clone();
    parent[leaf as usize] = x as u32;
    assert_eq!(rule(validate_bfs(&st, root, &parent, &tree.level, &budget).unwrap()), 5);
}

/// In a directed graph a parent must reach its child by an arc from the
/// parent: 0 -> 1 and 2 -> 1 only, and a tree that hangs 2 under 1 (the
/// arc runs from 2 to 1) breaks rule 5; the true tree (2 unreached)
/// passes.
#[test]
fn bfs_validation_of_a_directed_graph_wants_the_arc_from_the_parent() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("g.el"), "0 1\n2 1\n").unwrap();
    let opts = ImportOptions { directed: Some(true), num_vertices: Some(3), ..Default::default() };
    import_file(&d.path().join("g.el"), &d.path().join("s"), &opts, &NoProgress).unwrap();
    let st = Store::open(&d.path().join("s")).unwrap();
    let budget = Budget::unlimited();
    let ok = validate_bfs(&st, 0, &[0, 0, NONE], &[0, 1, NONE], &budget).unwrap();
    assert_eq!(ok.map(|v| v.edges).ok(), Some(1), "the true tree");
    assert_eq!(rule(validate_bfs(&st, 0, &[0, 0, 1], &[0, 1, 2], &budget).unwrap()), 5);
}

#[test]
fn sssp_validation_accepts_dijkstra_and_rejects_corruptions() {
    let (_d, st) = store("netscience.csv", ImportOptions { directed: Some(false), weighted: true, ..Default::default() });
    let budget = Budget::unlimited();
    let g = MemGraph::load(&st, "out", &budget).unwrap();
    let n = st.vertices();
    let mut eng = Traverse::open(&st, "out", &budget, &TraverseOptions::default(), ShortestPaths::state_bytes(n)).unwrap();
    let root = (0..n).max_by_key(|&v| g.degree(v)).unwrap();
    let sp = bounded("Dijkstra on netscience", || sssp(&mut eng, root, &budget)).unwrap();
    let ok = validate_sssp(&st, root, &sp.parent, &sp.dist, &budget).unwrap().unwrap();
    // nedge as the spec defines it: input edges in the root's component,
    // an undirected edge once (a loop is one edge)
    let reached_arcs: u64 = (0..n).filter(|&v| sp.parent[v as usize] != NONE).map(|v| g.degree(v)).sum();
    let loops = (0..n).filter(|&v| sp.parent[v as usize] != NONE && g.neighbours(v).contains(&v)).count() as u64;
    assert!(reached_arcs > 0);
    assert_eq!(ok.edges, (reached_arcs - loops) / 2 + loops);
    let leaf = (0..n).find(|&v| v != root && sp.parent[v as usize] != NONE && !sp.parent.contains(&(v as u32))).unwrap();
    let mut dist = sp.dist.clone();
    dist[leaf as usize] += 10.0;
    assert_eq!(rule(validate_sssp(&st, root, &sp.parent, &dist, &budget).unwrap()), 3);
    // a leaf hung from the root, which has no edge to it
    let far = (0..n)
        .find(|&v| v != root && sp.parent[v as usize] != NONE && !sp.parent.contains(&(v as u32)) && !g.neighbours(root).contains(&v))
        .expect("a leaf of the tree that the root has no edge to");
    let mut parent = sp.parent.clone();
    parent[far as usize] = root as u32;
    assert_eq!(rule(validate_sssp(&st, root, &parent, &sp.dist, &budget).unwrap()), 5);
    let mut parent = sp.parent.clone();
    parent[leaf as usize] = NONE;
    assert_eq!(rule(validate_sssp(&st, root, &parent, &sp.dist, &budget).unwrap()), 4);
}

/// nedge counts a loop in the root's component once, beside each
/// undirected edge once, in both validations: three edges and a loop
/// reached from 0, and an edge with a loop of its own out of reach.
#[test]
fn validation_counts_a_loop_in_the_component_once() {
    let (_dir, st) = weighted("0 1 1.0\n1 2 2.0\n2 2 0.5\n0 3 1.0\n4 5 1.0\n5 5 1.0\n", false);
    let budget = Budget::unlimited();
    let n = st.vertices();
    let mut eng = Traverse::open(&st, "out", &budget, &TraverseOptions::default(), ShortestPaths::state_bytes(n)).unwrap();
    let sp = bounded("Dijkstra on loops", || sssp(&mut eng, 0, &budget)).unwrap();
    assert_eq!(validate_sssp(&st, 0, &sp.parent, &sp.dist, &budget).unwrap().unwrap().edges, 4);
    let tree = bounded("BFS on loops", || bfs(&mut eng, 0, &budget)).unwrap();
    assert_eq!(validate_bfs(&st, 0, &tree.parent, &tree.level, &budget).unwrap().unwrap().edges, 4);
}

/// On a directed graph an arc from the tree to a vertex outside it breaks
/// rule 4 (the tree spans what the root reaches); and distances are
/// compared with a tolerance relative to their size (1e-9 of the
/// distance, at least 1e-9): 2e-9 off at distance 3 passes, 5e-9 off
/// breaks rule 3.
#[test]
fn sssp_validation_on_a_directed_graph_and_at_its_tolerance() {
    let (_dir, st) = weighted("0 1 1.0\n1 2 2.0\n0 3 1.0\n3 0 1.0\n", true);
    let budget = Budget::unlimited();
    let mut eng = Traverse::open(&st, "out", &budget, &TraverseOptions::default(), ShortestPaths::state_bytes(4)).unwrap();
    let sp = bounded("Dijkstra on a chain", || sssp(&mut eng, 0, &budget)).unwrap();
    assert_eq!(sp.dist, [0.0, 1.0, 3.0, 1.0]);
    assert_eq!(validate_sssp(&st, 0, &sp.parent, &sp.dist, &budget).unwrap().unwrap().edges, 4);
    let mut parent = sp.parent.clone();
    parent[2] = NONE;
    assert_eq!(rule(validate_sssp(&st, 0, &parent, &sp.dist, &budget).unwrap()), 4, "the arc 1->2 leaves the tree");
    let mut dist = sp.dist.clone();
    dist[2] = 3.0 + 2e-9;
    assert!(validate_sssp(&st, 0, &sp.parent, &dist, &budget).unwrap().is_ok(), "2e-9 off at distance 3 is rounding");
    dist[2] = 3.0 + 5e-9;
    assert_eq!(rule(validate_sssp(&st, 0, &sp.parent, &dist, &budget).unwrap()), 3, "5e-9 off at distance 3 is not");
}

/// The SSSP validator with no root to go by (none asked for, none in the
/// report) takes the vertex at distance 0 as the root, and passes a
/// correct run so; sort-reduce refuses `--method` and `--delta`, which
/// choose the traverse engine's version, rather than running Bellman-Ford
/// in their place, and runs when neither is given.
#[test]
fn sssp_validation_finds_the_root_at_distance_zero_and_sortreduce_refuses_a_method() {
    use outcore_algorithms::run::{execute, validate, Algorithm, RunOptions};
    use outcore_algorithms::sssp::Sssp;
    use outcore_algorithms::{Args, Engine, EngineChoice, Error};
    let (_d, st) = store("netscience.csv", ImportOptions { directed: Some(false), weighted: true, ..Default::default() });
    let on = |engine| RunOptions { memory: 1 << 40, engine: EngineChoice::Fixed(engine), ..Default::default() };
    let defaults = Sssp.parse(&Args::new()).unwrap();
    let mut run = bounded("sssp on traverse", || execute(&Sssp, &st, &defaults, &on(Engine::Traverse))).unwrap();
    assert!(run.report.figures.remove("root").is_some(), "the run reports its root");
    let verdict = bounded("sssp validation", || validate(&Sssp, &st, &defaults, &run)).unwrap();
    assert!(verdict.passed, "without a root figure: {}", verdict.detail);
    for chosen in [Args::new().with("method", "dijkstra"), Args::new().with("method", "delta-stepping"), Args::new().with("delta", 0.5)] {
        let p = Sssp.parse(&chosen).unwrap();
        match bounded("sssp on sort-reduce", || execute(&Sssp, &st, &p, &on(Engine::SortReduce))) {
            Err(Error::Unsupported { engine: Engine::SortReduce, why, .. }) => assert!(why.contains("--method"), "{chosen:?}: {why}"),
            Err(e) => panic!("{chosen:?} on sort-reduce: {e}"),
            Ok(_) => panic!("{chosen:?} on sort-reduce ran"),
        }
    }
    let run = bounded("sssp on sort-reduce", || execute(&Sssp, &st, &defaults, &on(Engine::SortReduce))).unwrap();
    assert_eq!(run.report.engine, Engine::SortReduce);
}
