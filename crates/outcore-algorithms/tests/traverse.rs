//! Every traverse-engine algorithm equals its reference implementation
//! and the Graphalytics expected outputs, with the prefetcher on and off,
//! and with a budget that leaves the cache its minimum of 64 blocks.

use outcore_algorithms::bfs::hybrid::Direction;
use outcore_algorithms::bfs::reference::bfs_levels;
use outcore_algorithms::bfs::{bfs, hybrid_bfs, BfsTree, HotLists, HybridOptions, NONE};
use outcore_algorithms::sssp::reference::sssp_tree as ref_sssp_tree;
use outcore_algorithms::sssp::{sssp, ShortestPaths};
use outcore_algorithms::wcc::reference::wcc as ref_wcc;
use outcore_algorithms::wcc::{afforest, wcc};
use outcore_algorithms::MemGraph;
use outcore_engines::{Traverse, TraverseOptions};
use outcore_ingest::recode::{recode, RecodeOptions};
use outcore_ingest::{import_file, ImportOptions, NoProgress};
use outcore_io::Budget;
use outcore_store::hot::HotParts;
use outcore_store::Store;
use std::path::Path;

mod common;
use common::{bounded, shared};

struct Case {
    _dir: tempfile::TempDir,
    store: Store,
    name: String,
}

fn import(path: &Path, opts: ImportOptions) -> Case {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s");
    import_file(path, &out, &ImportOptions { in_layout: true, ..opts }, &NoProgress).unwrap();
    Case { store: Store::open(&out).unwrap(), _dir: dir, name: path.file_name().unwrap().to_string_lossy().into_owned() }
}

/// A directed weighted store of the edge list `text`, its id map, and the
/// dense id of each original id 0..n.
fn weighted_store(text: &str) -> (Case, outcore_store::IdMap, Vec<u64>) {
    let dir = tempfile::tempdir().unwrap();
    let edges = dir.path().join("edges.wel");
    std::fs::write(&edges, text).unwrap();
    let case = import(&edges, ImportOptions { directed: Some(true), weighted: true, ..Default::default() });
    let ids = case.store.ids().unwrap();
    let dense = (0..case.store.vertices()).map(|v| ids.find(v).unwrap().unwrap()).collect();
    let map = case.store.id_map(&Budget::unlimited()).unwrap();
    (case, map, dense)
}

fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    for g in
        ["example-directed", "example-undirected", "test-bfs-directed", "test-bfs-undirected", "test-wcc-directed", "test-wcc-undirected"]
    {
        v.push(import(&shared().join(format!("graphalytics/evlp/{g}.properties")), ImportOptions::default()));
    }
    for (f, directed) in [("CA-GrQc.txt", false), ("wiki-Vote.txt", true), ("p2p-Gnutella05.txt", true), ("power.graph", false)] {
        v.push(import(
            &shared().join("real").join(f),
            ImportOptions { directed: (!f.ends_with(".graph")).then_some(directed), ..Default::default() },
        ));
    }
    v.push(import(&shared().join("real/netscience.csv"), ImportOptions { directed: Some(false), weighted: true, ..Default::default() }));
    v
}

/// (budget label, prefetch) combinations; "tiny" leaves the minimum cache.
const MODES: [(&str, bool); 4] = [("large", true), ("large", false), ("tiny", true), ("tiny", false)];

fn engine(store: &Store, layout: &str, mode: (&str, bool), state: u64) -> (Budget, Traverse) {
    let total = if mode.0 == "tiny" { state + Traverse::min_bytes(store, layout, 4096).unwrap() } else { 1 << 30 };
    let budget = Budget::new(total);
    let opts = TraverseOptions { prefetch: mode.1, depth: 8, ..Default::default() };
    let g = Traverse::open(store, layout, &budget, &opts, state).unwrap();
    (budget, g)
}

fn reference_graph(store: &Store) -> MemGraph {
    MemGraph::load(store, "out", &Budget::unlimited()).unwrap()
}

fn roots(n: u64) -> Vec<u64> {
    [0, n / 3, n / 2, n - 1].into_iter().collect()
}

fn check_tree(tree: &BfsTree, g: &MemGraph, want: &[u64], what: &str) {
    for v in 0..g.vertices() as usize {
        let l = if tree.level[v] == NONE { u64::MAX } else { tree.level[v] as u64 };
        assert_eq!(l, want[v], "{what}: level of {v}");
        if tree.level[v] != NONE && v as u64 != tree.root {
            let p = tree.parent[v] as u64;
            assert!(g.neighbours(p).contains(&(v as u64)), "{what}: parent {p} of {v} is not an in-neighbour");
            assert_eq!(tree.level[p as usize] + 1, tree.level[v], "{what}: parent level");
        }
    }
}

#[test]
fn bfs_equals_reference_in_every_mode() {
    for case in cases() {
        let g = reference_graph(&case.store);
        let n = g.vertices();
        for mode in MODES {
            let (budget, mut eng) = engine(&case.store, "out", mode, BfsTree::state_bytes(n, case.store.manifest().arcs));
            for root in roots(n) {
                let tree = bfs(&mut eng, root, &budget).unwrap();
                check_tree(&tree, &g, &bfs_levels(&g, root), &format!("{} {mode:?} root {root}", case.name));
            }
            if mode == ("large", true) && n > 1000 {
                assert!(eng.stats().cache.prefetches > 0, "{}: prefetcher idle", case.name);
            }
            if !mode.1 {
                assert_eq!(eng.stats().cache.prefetches, 0);
            }
        }
    }
}

/// The direction of each level of a hybrid BFS by Beamer's rule (thesis
/// section 3.4.4.4), worked out from the reference levels alone: switch to
/// bottom-up when the frontier grew and its out-edges exceed the in-edges
/// of the unvisited vertices / alpha, back to top-down when it shrank and
/// they fall below those / beta.
fn expected_directions(g: &MemGraph, levels: &[u64], opts: &HybridOptions) -> Vec<Direction> {
    let n = g.vertices() as usize;
    let mut in_degree = vec![0u64; n];
    for v in 0..n {
        for &w in g.neighbours(v as u64) {
            in_degree[w as usize] += 1;
        }
    }
    let depth = levels.iter().filter(|&&l| l != u64::MAX).max().unwrap() + 1;
    let (mut size, mut out_edges, mut in_edges) = (vec![0u64; depth as usize], vec![0u64; depth as usize], vec![0u64; depth as usize]);
    for v in 0..n {
        if let Some(l) = Some(levels[v] as usize).filter(|_| levels[v] != u64::MAX) {
            size[l] += 1;
            out_edges[l] += g.neighbours(v as u64).len() as u64;
            in_edges[l] += in_degree[v];
        }
    }
    let mut unvisited_in_edges: u64 = in_degree.iter().sum();
    let (mut direction, mut previous, mut out) = (Direction::TopDown, 0u64, Vec::new());
    for l in 0..depth as usize {
        unvisited_in_edges -= in_edges[l];
        let (m_td, m_bu) = (out_edges[l] as f64, unvisited_in_edges as f64);
        direction = match direction {
            Direction::TopDown if size[l] > previous && m_td > m_bu / opts.alpha => Direction::BottomUp,
            Direction::BottomUp if size[l] < previous && m_td < m_bu / opts.beta => Direction::TopDown,
            d => d,
        };
        out.push(direction);
        previous = size[l];
    }
    out
}

/// How a test's hybrid BFS gets its in-memory neighbours: k columns built
/// by a scan, or gathered by the search with this much room for the kept
/// lists beside what gathering takes at least, its dense steps read by
/// scans (`Gathered`) or through the block cache (`Cached`, no room for a
/// scan).
#[derive(Clone, Copy, Debug)]
enum Hot {
    Built(u32),
    Gathered(u64),
    Cached(u64),
}

impl Hot {
    fn make(self, store: &Store, degrees: &Traverse, budget: &Budget) -> HotLists {
        let (least, lane) = HotLists::gather_bytes(store, "in").unwrap();
        // gathered lists are charged to a budget of their own: the tests' budgets are sized for the search
        let own = Budget::unlimited();
        let gather = |bytes| HotLists::gather_within(store, "in", degrees, bytes, &own, format!("the test asks for {self:?}")).unwrap();
        match self {
            Hot::Built(k) => HotLists::build(store, "in", degrees, k, budget, format!("the test asks for k = {k}")).unwrap(),
            // a lane a thread, and the room beside them
            Hot::Gathered(room) => gather(least + rayon::current_num_threads() as u64 * lane + room),
            Hot::Cached(room) => gather(least + room.min(lane - 1)),
        }
    }
}

#[test]
fn hybrid_bfs_equals_reference_for_every_k() {
    for case in cases() {
        let g = reference_graph(&case.store);
        let n = g.vertices();
        for mode in MODES {
            let state = outcore_algorithms::bfs::hybrid::state_bytes(n, case.store.manifest().arcs) + n * 64 * 4;
            // room for the in-layout's engine too (its index and smallest cache)
            let in_engine = if case.store.manifest().directed { Traverse::min_bytes(&case.store, "in", 4096).unwrap() } else { 0 };
            // and for a scan of `in` that builds the hot lists, and its batch of lists
            let build = outcore_algorithms::bfs::hybrid::build_part_bytes(&case.store, "in").unwrap();
            let (budget, out) = engine(&case.store, "out", mode, state + in_engine + build);
            let inn = case.store.manifest().directed.then(|| {
                Traverse::open(&case.store, "in", &budget, &TraverseOptions { prefetch: mode.1, depth: 8, ..Default::default() }, state)
                    .unwrap()
            });
            let degrees = inn.as_ref().unwrap_or(&out);
            for hot_lists in [
                Hot::Built(0),
                Hot::Built(2),
                Hot::Built(64),
                Hot::Gathered(1 << 20),
                Hot::Gathered(64),
                Hot::Cached(1 << 20),
                Hot::Cached(40),
            ] {
                let mut hot = hot_lists.make(&case.store, degrees, &budget);
                // the same lists serve every search: gathered ones grow from one to the next
                for root in roots(n) {
                    for opts in
                        [HybridOptions::default(), HybridOptions { alpha: 1e-9, beta: 1e9 }, HybridOptions { alpha: 1e12, beta: 1.0 }]
                    {
                        let (tree, levels) = hybrid_bfs(&out, inn.as_ref(), &mut hot, root, &budget, &opts).unwrap();
                        let want = bfs_levels(&g, root);
                        let what = format!("{} {mode:?} {hot_lists:?} root {root} {opts:?}", case.name);
                        check_tree(&tree, &g, &want, &what);
                        assert_eq!(levels.iter().map(|l| l.frontier).sum::<u64>(), tree.reached);
                        let directions: Vec<Direction> = levels.iter().map(|l| l.direction).collect();
                        assert_eq!(directions, expected_directions(&g, &want, &opts), "{what}");
                    }
                }
            }
        }
    }
}

/// A skewed undirected graph of 200,000 vertices and 1 M edge draws (the
/// AND of two uniform draws: low ids are hubs), many chunks and blocks of
/// the bottom-up sweep.
fn skewed(dir: &Path) -> Case {
    let edges = dir.join("skewed.el");
    let mut rng = outcore_io::SplitMix64(42);
    let n = 200_000u64;
    let mut text = String::new();
    for _ in 0..1_000_000 {
        let (a, b) = ((rng.next_u64() % n) & (rng.next_u64() % n), (rng.next_u64() % n) & (rng.next_u64() % n));
        text.push_str(&format!("{a} {b}\n"));
    }
    std::fs::write(&edges, text).unwrap();
    import(&edges, ImportOptions { directed: Some(false), ..Default::default() })
}

/// The bottom-up sweep's blocks run on every core: on a graph of many
/// chunks, one thread and four give the same parents, levels and level
/// statistics, and the levels are the reference's.
#[test]
fn hybrid_bfs_is_the_same_on_one_thread_and_on_four() {
    let dir = tempfile::tempdir().unwrap();
    let case = skewed(dir.path());
    let g = reference_graph(&case.store);
    let n = g.vertices();
    assert!(n > 65_536, "{n} vertices: two chunks of the sweep at least");
    let budget = Budget::new(1 << 30);
    let out = Traverse::open(&case.store, "out", &budget, &TraverseOptions::default(), 1 << 28).unwrap();
    let (mut kept, mut halved, mut scanned) = (0, 0, 0);
    for hot_lists in [Hot::Built(1), Hot::Built(4), Hot::Gathered(1 << 20), Hot::Gathered(2_000), Hot::Cached(1 << 20), Hot::Cached(2_000)]
    {
        let k = format!("{hot_lists:?}");
        // a leaf's BFS reaches the hubs late: bottom-up steps with long unresolved lists
        let leaf = (0..n).rev().find(|&v| g.degree(v) == 1).unwrap();
        for root in [0, leaf, n - 1] {
            let mut runs = Vec::new();
            for threads in [1, 4] {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                // lists of their own, made on the run's threads (gathered ones: as many lanes as threads)
                let mut hot = pool.install(|| hot_lists.make(&case.store, &out, &budget));
                let opts = HybridOptions { alpha: 4.0, beta: 24.0 };
                let (tree, levels) = pool.install(|| hybrid_bfs(&out, None, &mut hot, root, &budget, &opts)).unwrap();
                check_tree(&tree, &g, &bfs_levels(&g, root), &format!("k={k} root {root}, {threads} threads"));
                assert!(levels.iter().any(|l| l.direction == Direction::BottomUp), "root {root}: no bottom-up step");
                if let Some(summary) = hot.gathered() {
                    kept += summary.vertices;
                    halved += summary.halvings;
                    scanned += summary.scanned_bytes;
                    if threads == 4 && matches!(hot_lists, Hot::Gathered(_)) {
                        assert_eq!(summary.lanes, 4, "{k}: a lane a thread");
                    }
                }
                let stats: Vec<_> = levels.iter().map(|l| (l.direction, l.frontier, l.lists_read)).collect();
                runs.push((tree, format!("{stats:?}")));
            }
            let (one, four) = (&runs[0], &runs[1]);
            let reached = (0..n).filter(|&v| one.0.level[v as usize] != NONE);
            assert_eq!(one.0.arcs_scanned, reached.map(|v| g.degree(v)).sum::<u64>(), "k={k} root {root}: arcs of the reached vertices");
            assert!(one.0.parent == four.0.parent, "k={k} root {root}: parents differ between 1 and 4 threads");
            assert_eq!(one.1, four.1, "k={k} root {root}: level statistics");
            assert_eq!((one.0.reached, one.0.arcs_scanned), (four.0.reached, four.0.arcs_scanned));
        }
    }
    // the search gathered lists by scans and through the cache, and filled its room
    assert!(kept > 0 && scanned > 0 && halved > 0, "kept {kept} vertices' lists, scanned {scanned} bytes, halved {halved} times")
}

/// A search that gathers its in-memory neighbours reads its dense steps
/// by scans of the layout, which every encoding decodes its own way
/// (blocked codecs from the block that holds a part's first vertex, and a
/// list may refer to one the scan skipped): on the skewed graph,
/// undirected and directed (the in-edges), in raw32, gapref and CEESOR,
/// with room for the kept lists and with too little (they are halved), by
/// scans and through the block cache, the levels are the reference's, the
/// parents valid, and the same on one thread and four.
#[test]
fn gathering_hybrid_bfs_is_right_in_every_encoding() {
    use outcore_store::Encoding;
    let dir = tempfile::tempdir().unwrap();
    let undirected = skewed(dir.path());
    let directed = import(&dir.path().join("skewed.el"), ImportOptions { directed: Some(true), ..Default::default() });
    let mut stores = Vec::new();
    for (name, case) in [("undirected", &undirected), ("directed", &directed)] {
        for encoding in [Encoding::Gapref, Encoding::Ceesor] {
            let out = dir.path().join(format!("{name}-{}", encoding.name()));
            let opts = RecodeOptions { encoding: Some(encoding), order: "none".into(), memory: 256 << 20, force: false, layouts: None };
            recode(case.store.dir(), &out, None, &opts, &outcore_io::NoProgress).unwrap();
            stores.push((format!("{name} {}", encoding.name()), Store::open(&out).unwrap()));
        }
    }
    let all = [("undirected raw32".to_string(), &undirected.store), ("directed raw32".to_string(), &directed.store)]
        .into_iter()
        .chain(stores.iter().map(|(name, st)| (name.clone(), st)));
    let (mut scanned, mut halved) = (0, 0);
    for (name, store) in all {
        let g = reference_graph(store);
        let n = g.vertices();
        let budget = Budget::new(1 << 30);
        let out = Traverse::open(store, "out", &budget, &TraverseOptions::default(), 1 << 28).unwrap();
        let inn = store.manifest().directed.then(|| Traverse::open(store, "in", &budget, &TraverseOptions::default(), 1 << 28).unwrap());
        let leaf = (0..n).rev().find(|&v| g.degree(v) == 1).unwrap();
        for hot_lists in [Hot::Gathered(1 << 20), Hot::Gathered(2_000), Hot::Cached(1 << 20)] {
            for root in [0, leaf] {
                let mut parents = Vec::new();
                for threads in [1, 4] {
                    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                    let mut hot = pool.install(|| hot_lists.make(store, inn.as_ref().unwrap_or(&out), &budget));
                    let opts = HybridOptions { alpha: 4.0, beta: 24.0 };
                    let (tree, _) = pool.install(|| hybrid_bfs(&out, inn.as_ref(), &mut hot, root, &budget, &opts)).unwrap();
                    check_tree(&tree, &g, &bfs_levels(&g, root), &format!("{name} {hot_lists:?} root {root}, {threads} threads"));
                    let summary = hot.gathered().unwrap();
                    scanned += summary.scanned_bytes;
                    halved += summary.halvings;
                    parents.push(tree.parent);
                }
                assert!(parents[0] == parents[1], "{name} {hot_lists:?} root {root}: parents differ between 1 and 4 threads");
            }
        }
    }
    assert!(scanned > 0 && halved > 0, "scanned {scanned} bytes, halved {halved} times");
}

/// Top-down BFS reads each round's lists on every core: on the skewed
/// graph in every encoding (blocked codecs decode a block per reader), one
/// thread and four give the reference's levels and, for every vertex, its
/// smallest-id neighbour on the level above as parent (the order one
/// thread visits a sorted level in); the arcs read are the degree sums of
/// the reached vertices.
#[test]
fn top_down_bfs_is_the_same_on_one_thread_and_on_four_in_every_encoding() {
    use outcore_store::Encoding;
    let dir = tempfile::tempdir().unwrap();
    let edges = skewed(dir.path());
    let g = reference_graph(&edges.store);
    let n = g.vertices();
    let roots = [0, (0..n).rev().find(|&v| g.degree(v) == 1).unwrap()];
    for encoding in [Encoding::Raw32, Encoding::Gapref, Encoding::Ceesor] {
        let out = dir.path().join(encoding.name());
        let opts = RecodeOptions { encoding: Some(encoding), order: "none".into(), memory: 256 << 20, force: false, layouts: None };
        recode(edges.store.dir(), &out, None, &opts, &outcore_io::NoProgress).unwrap();
        let store = Store::open(&out).unwrap();
        for root in roots {
            let want = bfs_levels(&g, root);
            // every vertex's smallest-id neighbour on the level above
            let mut smallest = vec![NONE; n as usize];
            for u in (0..n).filter(|&u| want[u as usize] != u64::MAX) {
                for &w in g.neighbours(u) {
                    if want[w as usize] == want[u as usize] + 1 && smallest[w as usize] == NONE {
                        smallest[w as usize] = u as u32;
                    }
                }
            }
            let mut runs = Vec::new();
            for threads in [1, 4] {
                // a small cache and prefetch on: readers share and evict its blocks
                let (budget, mut eng) = engine(&store, "out", ("tiny", true), BfsTree::state_bytes(n, store.manifest().arcs));
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                let tree = pool.install(|| bfs(&mut eng, root, &budget)).unwrap();
                let what = format!("{} root {root}, {threads} threads", encoding.name());
                check_tree(&tree, &g, &want, &what);
                let reached: Vec<u64> = (0..n).filter(|&v| want[v as usize] != u64::MAX).collect();
                assert!(reached.iter().all(|&v| v == root || tree.parent[v as usize] == smallest[v as usize]), "{what}: parents");
                assert_eq!(tree.reached, reached.len() as u64, "{what}");
                assert_eq!(tree.arcs_scanned, reached.iter().map(|&v| g.degree(v)).sum::<u64>(), "{what}: arcs read");
                runs.push(tree.parent);
            }
            assert!(runs[0] == runs[1], "{} root {root}: parents differ between 1 and 4 threads", encoding.name());
        }
    }
}

/// A traverse engine's degree sums over a bitmap equal the degrees summed
/// vertex by vertex: on the skewed graph (two stretches of 65,536
/// vertices) in every encoding, with the degrees kept beside the index
/// (a large budget) and without (the smallest), over bitmaps whose
/// stretches are full, dense, sparse, empty or mixed, on 1 and 2 threads.
#[test]
fn degree_sums_over_a_bitmap_equal_the_degrees_summed_one_by_one() {
    use outcore_engines::Degrees;
    use outcore_io::Bitmap;
    use outcore_store::Encoding;
    let dir = tempfile::tempdir().unwrap();
    let edges = skewed(dir.path());
    let g = reference_graph(&edges.store);
    let n = g.vertices();
    assert!(n > Degrees::SUM_STRETCH, "{n} vertices: two stretches at least");
    let dense = Degrees::SUM_STRETCH / Degrees::SELECTS_PER_PASS;
    type Pick = Box<dyn Fn(u64) -> bool>;
    let picks: [(&str, Pick); 5] = [
        ("every vertex", Box::new(|_| true)),
        ("none", Box::new(|_| false)),
        ("every other", Box::new(|v| v % 2 == 1)),
        // just over and just under the share that takes the pass
        ("dense then sparse", Box::new(move |v| if v < Degrees::SUM_STRETCH { v % dense < 2 } else { v % (dense + 1) == 0 })),
        ("the last vertex of each stretch and the graph's", Box::new(move |v| (v + 1) % Degrees::SUM_STRETCH == 0 || v == n - 1)),
    ];
    for encoding in [Encoding::Raw32, Encoding::Gapref, Encoding::Ceesor] {
        let out = dir.path().join(encoding.name());
        let opts = RecodeOptions { encoding: Some(encoding), order: "none".into(), memory: 256 << 20, force: false, layouts: None };
        recode(edges.store.dir(), &out, None, &opts, &outcore_io::NoProgress).unwrap();
        let store = Store::open(&out).unwrap();
        for mode in ["tiny", "large"] {
            let (_budget, eng) = engine(&store, "out", (mode, true), 0);
            assert_eq!(eng.stats().fast_degree_bytes > 0, mode == "large", "{}: degrees kept beside the index", encoding.name());
            for (what, pick) in &picks {
                let mut bits = Bitmap::new(n);
                (0..n).filter(|&v| pick(v)).for_each(|v| bits.set(v));
                let want: u64 = (0..n).filter(|&v| pick(v)).map(|v| g.degree(v)).sum();
                for threads in [1, 2] {
                    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                    let got = pool.install(|| eng.degrees().sum_over(&bits));
                    assert_eq!(got, want, "{}, {mode} budget, {what}, {threads} threads", encoding.name());
                }
            }
        }
    }
}

/// The hybrid BFS's split of its budget: what its state and the two
/// engines' smallest openings leave, less the scan that builds the
/// in-memory neighbours where it fits, goes half to those (built within
/// that half and the scan) and half to the caches, which `out` and `in`
/// share equally: each cache is at most its share and most of it, the two
/// the same to within two frames, on budgets below the adjacency's size,
/// with room for the scan and without.
#[test]
fn hybrid_bfs_gives_the_caches_half_of_what_is_left_in_equal_shares() {
    use outcore_algorithms::bfs::hybrid::{state_bytes, HybridEngines};
    let dir = tempfile::tempdir().unwrap();
    skewed(dir.path());
    let case = import(&dir.path().join("skewed.el"), ImportOptions { directed: Some(true), ..Default::default() });
    let st = &case.store;
    let opts = TraverseOptions::default();
    let state = state_bytes(st.vertices(), st.manifest().arcs);
    let least = Traverse::min_bytes(st, "out", opts.block_bytes).unwrap() + Traverse::min_bytes(st, "in", opts.block_bytes).unwrap();
    let frame = outcore_io::BlockCache::frame_bytes(opts.block_bytes) as u64;
    // a part of the scan of `in` that builds them: the least the build
    // takes (several searches); one search gathers them, with a lane of
    // scans for its dense steps
    let build = outcore_algorithms::bfs::hybrid::build_part_bytes(st, "in").unwrap();
    let (gathering, lane) = HotLists::gather_bytes(st, "in").unwrap();
    let gather = gathering + lane;
    let mut scan_fitted = false;
    for (searches, scan, extra) in
        [2u64 << 20, 6 << 20, build + (1 << 20), gather + (1 << 20)].into_iter().flat_map(|extra| [(2, build, extra), (1, gather, extra)])
    {
        let budget = Budget::new(state + least + extra);
        let rest = budget.available() - state - least;
        let hot = if rest > scan { scan + (rest - scan) / 2 } else { rest / 2 };
        scan_fitted |= rest > scan;
        let share = Traverse::min_cache_bytes(opts.block_bytes) + (rest - hot) / 2;
        assert!(2 * share < st.layout_bytes("out"), "a share of {share} bytes: the cache could hold the whole layout");
        let HybridEngines { out, inn, .. } = HybridEngines::open(st, &budget, &opts, state, searches).unwrap();
        // what an engine keeps beside its cache (the degrees, the files'
        // checks ahead) comes out of its share too, the same for both
        let caches: Vec<u64> = [&out, inn.as_ref().unwrap()].iter().map(|g| g.stats().cache_bytes).collect();
        for (name, &cache) in ["out", "in"].iter().zip(&caches) {
            assert!(cache <= share && 2 * cache >= share, "{extra} bytes over the least: {name}'s cache {cache}, its share {share}");
        }
        assert!(caches[0].abs_diff(caches[1]) <= 2 * frame, "{extra} bytes over the least: caches {caches:?}, unequal shares");
    }
    assert!(scan_fitted, "no budget had room for the scan of {build} bytes");
}

/// Stored columns: a hybrid BFS loads the first three wherever what the
/// budget leaves beyond the state and the engines' least holds them, even
/// when half of it does not (the engines then open at their least), and
/// one byte fewer loads one column fewer.
#[test]
fn hybrid_bfs_loads_the_first_stored_columns_before_the_caches_grow() {
    use outcore_algorithms::bfs::hybrid::{state_bytes, HybridEngines};
    let dir = tempfile::tempdir().unwrap();
    skewed(dir.path());
    let Case { _dir: keep, store, .. } =
        import(&dir.path().join("skewed.el"), ImportOptions { directed: Some(true), ..Default::default() });
    let path = store.dir().to_path_buf();
    drop(store);
    outcore_ingest::hot::add_hot(&path, 4, 1 << 30, &NoProgress).unwrap();
    let st = &Store::open(&path).unwrap();
    let opts = TraverseOptions::default();
    let state = state_bytes(st.vertices(), st.manifest().arcs);
    let least = Traverse::min_bytes(st, "out", opts.block_bytes).unwrap() + Traverse::min_bytes(st, "in", opts.block_bytes).unwrap();
    for k in 1..=3usize {
        let columns = HotLists::stored_bytes(st, k).unwrap();
        for (rest, want) in [(columns, k), (columns - 1, k - 1)] {
            let budget = Budget::new(state + least + rest);
            // the engines open at their least beside the columns
            let engines = HybridEngines::open(st, &budget, &opts, state, 1).unwrap();
            assert_eq!(engines.hot.k as usize, want, "{rest} bytes beyond the least: {:?}", engines.hot.origin);
        }
    }
    // past three, half of what is left decides again
    let four = HotLists::stored_bytes(st, 4).unwrap();
    let budget = Budget::new(state + least + four);
    assert_eq!(HybridEngines::open(st, &budget, &opts, state, 1).unwrap().hot.k, 3);
    drop(keep);
}

/// A case's directory and name, its store closed.
struct Named {
    _keep: tempfile::TempDir,
    name: String,
}

/// The stored hot layout: the same columns a run would build, every level
/// and parent right from every root, a budget below one column runs with
/// k = 0 and says so, and stale lists are ignored with the reason.
#[test]
fn hybrid_bfs_with_the_stored_hot_layout() {
    use outcore_algorithms::bfs::hybrid::HotOrigin;
    for Case { _dir: keep, store, name } in cases() {
        let dir = store.dir().to_path_buf();
        drop(store);
        let case = Named { _keep: keep, name };
        outcore_ingest::hot::add_hot(&dir, 3, 1 << 30, &NoProgress).unwrap();
        let store = Store::open(&dir).unwrap();
        let g = reference_graph(&store);
        let n = g.vertices();
        let budget = Budget::new(1 << 30);
        let opts = TraverseOptions { depth: 8, ..Default::default() };
        let out = Traverse::open(&store, "out", &budget, &opts, 0).unwrap();
        let inn = store.manifest().directed.then(|| Traverse::open(&store, "in", &budget, &opts, 0).unwrap());
        let degrees = inn.as_ref().unwrap_or(&out);
        let built = HotLists::build(&store, "in", degrees, 3, &budget, "the test compares".into()).unwrap();
        let mut stored = HotLists::open(&store, "in", degrees, 1 << 30, &budget).unwrap();
        assert!(matches!(stored.origin, HotOrigin::Stored { columns: 3 }), "{}: {:?}", case.name, stored.origin);
        assert_eq!(stored.k, 3);
        assert_eq!(stored.short_of, None, "{}: every stored column fits", case.name);
        for j in 0..3 {
            assert_eq!(stored.column(j), built.column(j), "{} column {j}", case.name);
        }
        // a budget below the first column: k = 0, still from the store
        let first = store.manifest().hot.as_ref().unwrap().columns[0].entries * 4;
        let mut none = HotLists::open(&store, "in", degrees, first.saturating_sub(1), &budget).unwrap();
        assert_eq!(none.k, 0, "{}", case.name);
        // and says so: what the first column takes against what was left
        let short_of = none.short_of.as_deref().unwrap_or_default();
        assert!(short_of.starts_with("no column of in-memory neighbours fits: the first (stored) takes"), "{}: {short_of}", case.name);
        assert!(
            short_of.contains(&format!("the budget left {} for them", outcore_io::format_bytes(first - 1))),
            "{}: {short_of}",
            case.name
        );
        let one = HotLists::open(&store, "in", degrees, HotLists::stored_bytes(&store, 1).unwrap(), &budget).unwrap();
        assert_eq!(one.k, 1, "{}", case.name);
        let short_of = one.short_of.as_deref().unwrap_or_default();
        let two = outcore_io::format_bytes(HotLists::stored_bytes(&store, 2).unwrap());
        assert!(
            short_of.starts_with(&format!("1 of the 3 stored columns of in-memory neighbours fit: 2 take {two}")),
            "{}: {short_of}",
            case.name
        );
        for (hot, label) in [(&mut stored, "stored"), (&mut none, "k=0")] {
            for root in roots(n) {
                let (tree, _) = hybrid_bfs(&out, inn.as_ref(), hot, root, &budget, &HybridOptions::default()).unwrap();
                check_tree(&tree, &g, &bfs_levels(&g, root), &format!("{} {label} root {root}", case.name));
            }
        }
        drop((out, inn, built, stored, none, store));
        // lists of an older generation of the source layout are not used
        let path = dir.join("manifest.json");
        let mut m: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        m["hot"]["source_xxh3"] = serde_json::json!("0000000000000000");
        std::fs::write(&path, serde_json::to_string(&m).unwrap()).unwrap();
        let store = Store::open(&dir).unwrap();
        let out = Traverse::open(&store, "out", &budget, &opts, 0).unwrap();
        let inn = store.manifest().directed.then(|| Traverse::open(&store, "in", &budget, &opts, 0).unwrap());
        let stale = HotLists::open(&store, "in", inn.as_ref().unwrap_or(&out), 1 << 30, &budget).unwrap();
        match &stale.origin {
            HotOrigin::Built { why_not_stored, .. } => assert!(why_not_stored.contains("older generation"), "{why_not_stored}"),
            other => panic!("{}: stale hot lists used: {other:?}", case.name),
        }
        // built with no room for a column: k = 0, and says so
        let none = HotLists::open(&store, "in", inn.as_ref().unwrap_or(&out), 0, &budget).unwrap();
        assert_eq!(none.k, 0, "{}", case.name);
        let short_of = none.short_of.as_deref().unwrap_or_default();
        assert!(short_of.starts_with("no column of in-memory neighbours fits: the first (built) takes"), "{}: {short_of}", case.name);
        assert!(short_of.contains("the budget left 0 B for them"), "{}: {short_of}", case.name);
        drop((out, inn, stale, none, store));
        // a recode (here to gapref, in reverse order: every id changes)
        // builds them again: the new store's columns are those a run on it
        // would build
        let n = Store::open(&dir).unwrap().vertices() as u32;
        let reverse = case._keep.path().join("reverse");
        outcore_ingest::recode::write_permutation(&reverse, &(0..n).rev().collect::<Vec<u32>>()).unwrap();
        let recoded = case._keep.path().join("recoded");
        let opts = RecodeOptions {
            encoding: Some(outcore_store::Encoding::Gapref),
            order: "reverse".into(),
            memory: 1 << 30,
            force: false,
            layouts: None,
        };
        recode(&dir, &recoded, Some(&reverse), &opts, &outcore_io::NoProgress).unwrap();
        let store = Store::open(&recoded).unwrap();
        let out = Traverse::open(&store, "out", &budget, &opts_traverse(), 0).unwrap();
        let inn = store.manifest().directed.then(|| Traverse::open(&store, "in", &budget, &opts_traverse(), 0).unwrap());
        let degrees = inn.as_ref().unwrap_or(&out);
        let stored = HotLists::open(&store, "in", degrees, 1 << 30, &budget).unwrap();
        assert!(matches!(stored.origin, HotOrigin::Stored { columns: 3 }), "{} recoded: {:?}", case.name, stored.origin);
        let built = HotLists::build(&store, "in", degrees, 3, &budget, "the test compares".into()).unwrap();
        for j in 0..3 {
            assert_eq!(stored.column(j), built.column(j), "{} recoded: column {j}", case.name);
        }
    }
}

fn opts_traverse() -> TraverseOptions {
    TraverseOptions { depth: 8, ..Default::default() }
}

#[test]
fn sssp_equals_dijkstra_reference() {
    for case in cases().into_iter().filter(|c| c.store.manifest().weighted) {
        let g = reference_graph(&case.store);
        let n = g.vertices();
        for mode in MODES {
            let (budget, mut eng) = engine(&case.store, "out", mode, ShortestPaths::state_bytes(n));
            for root in roots(n) {
                let got = sssp(&mut eng, root, &budget).unwrap();
                let (want, want_parent) = ref_sssp_tree(&g, root);
                for v in 0..n as usize {
                    let (a, b) = (got.dist[v], want[v]);
                    assert!(a == b || (a - b).abs() <= 1e-9 * b.abs(), "{} {mode:?} root {root} vertex {v}: {a} vs {b}", case.name);
                    if a.is_finite() && v as u64 != root {
                        let p = got.parent[v] as u64;
                        let i = g.neighbours(p).iter().position(|&x| x == v as u64).expect("parent edge exists");
                        assert!((got.dist[p as usize] + g.edge_weights(p).unwrap()[i] as f64 - a).abs() <= 1e-9 * a.abs());
                    }
                }
                // both settle in (distance, id) order: a vertex's parent is
                // the first settled that gave it its distance
                let parents: Vec<u64> = got.parent.iter().map(|&p| if p == NONE { u64::MAX } else { p as u64 }).collect();
                assert!(parents == want_parent, "{} {mode:?} root {root}: parents differ from the reference's", case.name);
            }
        }
    }
}

/// Zero weights: a cycle of them leaves the parents a tree (a vertex keeps
/// the parent that first gave it its distance), in Dijkstra and in
/// delta-stepping.
#[test]
fn zero_weights_keep_the_parents_a_tree() {
    use outcore_algorithms::sssp::delta::{sssp_delta, state_bytes};
    let (case, ids, dense) = weighted_store("0 1 1.0\n1 2 0.0\n2 1 0.0\n2 3 0.0\n");
    let (budget, mut eng) = engine(&case.store, "out", ("large", true), ShortestPaths::state_bytes(4) + state_bytes(4, 4));
    // a zero-weight cycle relaxed forever would hang: the runs are bounded
    let dijkstra = bounded("Dijkstra over zero-weight edges", || sssp(&mut eng, dense[0], &budget)).unwrap();
    let (delta, _) = bounded("delta-stepping over zero-weight edges", || sssp_delta(&eng, dense[0], None, &budget)).unwrap();
    for (what, got) in [("Dijkstra", &dijkstra), ("delta-stepping", &delta)] {
        let dist: Vec<f64> = dense.iter().map(|&d| got.dist[d as usize]).collect();
        let parent: Vec<u64> = dense.iter().map(|&d| ids.original(got.parent[d as usize] as u64)).collect();
        assert_eq!(dist, [0.0, 1.0, 1.0, 1.0], "{what}");
        assert_eq!(parent, [0, 0, 1, 2], "{what}: parents");
    }
}

/// A distance on a bucket's boundary: 4405 / (881 / 3) rounds to 14.999...,
/// bucket 14, while 15 * (881 / 3) rounds to 4405, so a bucket's end taken
/// as `(b + 1) * delta` left vertex 1 in bucket 14 yet outside its rounds,
/// and delta-stepping looked for it there forever. It settles in bucket
/// 14, its neighbour in 15: three buckets, Dijkstra's distances.
#[test]
fn a_distance_on_a_bucket_boundary_is_settled_in_its_bucket() {
    use outcore_algorithms::sssp::delta::{sssp_delta, state_bytes};
    let delta = 881.0 / 3.0;
    assert_eq!(((4405.0f64 / delta) as u64, 15.0 * delta), (14, 4405.0), "the boundary this test is about");
    let (case, _, dense) = weighted_store("0 1 4405\n1 2 1\n");
    let (budget, eng) = engine(&case.store, "out", ("large", true), state_bytes(3, 2));
    let (got, used) = bounded("delta-stepping on three vertices", || sssp_delta(&eng, dense[0], Some(delta), &budget)).unwrap();
    let dist: Vec<f64> = dense.iter().map(|&d| got.dist[d as usize]).collect();
    assert_eq!(dist, [0.0, 4405.0, 4406.0]);
    assert_eq!((got.buckets, used), (3, delta), "buckets 0, 14 and 15, of the width asked for");
}

/// `sssp_delta` checks the width it is given itself (a library caller
/// need not go through `--delta`'s parsing): zero, a negative, an infinite
/// and a NaN width are errors naming `delta`; a positive width runs.
#[test]
fn delta_stepping_refuses_a_width_that_is_not_a_positive_number() {
    use outcore_algorithms::sssp::delta::{sssp_delta, state_bytes};
    let (case, _, _) = weighted_store("0 1 2.5\n1 2 1\n");
    let (budget, eng) = engine(&case.store, "out", ("large", true), state_bytes(3, 2));
    for width in [0.0, -0.0, -1.0, f64::INFINITY, f64::NAN, 0.5] {
        let got = bounded(&format!("delta-stepping with width {width}"), || sssp_delta(&eng, 0, Some(width), &budget))
            .map(|(sp, used)| (sp.reached, used))
            .map_err(|e| e.to_string());
        if width == 0.5 {
            assert_eq!(got, Ok((3, 0.5)), "width {width}");
        } else {
            let err = got.expect_err(&format!("width {width} ran"));
            assert!(err.contains("delta") && err.contains("positive"), "width {width}: {err}");
        }
    }
}

/// A round's offers are applied in the id order of the vertices that made
/// them, each only where it is shorter than the distance then held: 1 and
/// 2 (distance 1, one round of bucket 1 at the default width 1) both offer
/// 3, 4 and 5 a path; the larger offer comes second for 3 or for 4 in
/// either id order, and must not replace the smaller, and 5's two equal
/// offers leave it the parent in lower id order (the first to offer). A
/// relaxation through a weight over 1 is kept although its product with
/// the distance would not be shorter (3 + 4 < 10 < 3 * 4).
#[test]
fn delta_stepping_applies_a_round_s_offers_in_id_order_when_shorter() {
    use outcore_algorithms::sssp::delta::{sssp_delta, state_bytes};
    // edges, distances, parents (None: the lower of 1 and 2 in dense ids)
    type Expected = (&'static str, &'static [f64], &'static [Option<u64>]);
    let cases: [Expected; 2] = [
        (
            "0 1 1\n0 2 1\n1 3 1\n2 3 2\n1 4 2\n2 4 1\n1 5 1\n2 5 1\n",
            &[0.0, 1.0, 1.0, 2.0, 2.0, 2.0],
            &[Some(0), Some(0), Some(0), Some(1), Some(2), None],
        ),
        ("0 1 3\n0 2 10\n1 2 4\n", &[0.0, 3.0, 7.0], &[Some(0), Some(0), Some(1)]),
    ];
    for (text, want_dist, want_parent) in cases {
        let (case, ids, dense) = weighted_store(text);
        let n = case.store.vertices();
        let (budget, eng) = engine(&case.store, "out", ("large", true), state_bytes(n, case.store.manifest().arcs));
        let (got, used) = bounded("delta-stepping on a few vertices", || sssp_delta(&eng, dense[0], None, &budget)).unwrap();
        let dist: Vec<f64> = dense.iter().map(|&d| got.dist[d as usize]).collect();
        let parent: Vec<u64> = dense.iter().map(|&d| ids.original(got.parent[d as usize] as u64)).collect();
        let first_of_1_and_2 = if dense[1] < dense[2] { 1 } else { 2 };
        assert_eq!(dist, want_dist, "{text:?}: distances (width {used})");
        let want: Vec<u64> = want_parent.iter().map(|p| p.unwrap_or(first_of_1_and_2)).collect();
        assert_eq!(parent, want, "{text:?}: parents");
    }
}

/// More vertices than one piece of the search for a bucket's members
/// (1,024 bitmap words, 65,536 vertices): a star of 70,000 leaves, each
/// leaf with an edge to the next, is settled in every piece, with
/// Dijkstra's distances, on one thread and on two.
#[test]
fn delta_stepping_finds_a_bucket_s_members_past_the_first_65536_vertices() {
    use outcore_algorithms::sssp::delta::{sssp_delta, state_bytes};
    let dir = tempfile::tempdir().unwrap();
    let edges = dir.path().join("star.wel");
    let leaves = 70_000u64;
    let mut text = String::new();
    for v in 1..=leaves {
        text.push_str(&format!("0 {v} {}\n", 1 + v % 7));
        if v < leaves {
            text.push_str(&format!("{v} {} 0.5\n", v + 1));
        }
    }
    std::fs::write(&edges, text).unwrap();
    let case = import(&edges, ImportOptions { directed: Some(true), weighted: true, ..Default::default() });
    let (n, arcs) = (case.store.vertices(), case.store.manifest().arcs);
    let (budget, mut eng) = engine(&case.store, "out", ("large", true), ShortestPaths::state_bytes(n) + state_bytes(n, arcs));
    let root = case.store.ids().unwrap().find(0).unwrap().unwrap();
    let want = bounded("Dijkstra over 70,001 vertices", || sssp(&mut eng, root, &budget)).unwrap();
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let (got, _) = bounded("delta-stepping over 70,001 vertices", || pool.install(|| sssp_delta(&eng, root, None, &budget))).unwrap();
        assert_eq!(got.reached, n, "{threads} threads: every vertex reached");
        assert!(got.dist == want.dist, "{threads} threads: distances differ from Dijkstra's");
    }
}

/// Delta-stepping reads each round's lists on every core: on the weighted
/// real graph and a skewed weighted graph in three encodings (CEESOR
/// stores weights in another order), with buckets far narrower than an
/// edge, the default and wider than every path, on one thread and four,
/// its distances are Dijkstra's bit for bit, every parent edge gives its
/// vertex's distance exactly, and the parents are the same on any thread
/// count. A negative weight is an error naming the edge.
#[test]
fn delta_stepping_equals_dijkstra_on_one_thread_and_on_four() {
    use outcore_algorithms::sssp::delta::{sssp_delta, state_bytes};
    use outcore_store::Encoding;
    let dir = tempfile::tempdir().unwrap();
    let edges = dir.path().join("skewed-weighted.wel");
    let mut rng = outcore_io::SplitMix64(7);
    let n = 50_000u64;
    let mut text = String::new();
    for _ in 0..250_000 {
        let (a, b) = ((rng.next_u64() % n) & (rng.next_u64() % n), (rng.next_u64() % n) & (rng.next_u64() % n));
        text.push_str(&format!("{a} {b} {}\n", (rng.next_u64() % 1000) as f64 / 100.0));
    }
    std::fs::write(&edges, text).unwrap();
    let skewed = import(&edges, ImportOptions { directed: Some(true), weighted: true, ..Default::default() });
    let mut stores = Vec::new();
    for encoding in [Encoding::Gapref, Encoding::Ceesor] {
        let out = dir.path().join(encoding.name());
        let opts = RecodeOptions { encoding: Some(encoding), order: "none".into(), memory: 256 << 20, force: false, layouts: None };
        recode(skewed.store.dir(), &out, None, &opts, &outcore_io::NoProgress).unwrap();
        stores.push((encoding.name().to_string(), Store::open(&out).unwrap()));
    }
    let real: Vec<Case> = cases().into_iter().filter(|c| c.store.manifest().weighted).collect();
    assert!(!real.is_empty());
    let all = real.iter().map(|c| (c.name.clone(), &c.store)).chain(std::iter::once(("skewed raw32".to_string(), &skewed.store)));
    for (name, store) in all.chain(stores.iter().map(|(name, st)| (format!("skewed {name}"), st))) {
        let g = reference_graph(store);
        let n = g.vertices();
        let (budget, mut eng) = engine(store, "out", ("tiny", true), ShortestPaths::state_bytes(n) + state_bytes(n, store.manifest().arcs));
        // root 0 of the skewed graph is its largest hub
        let roots = if name.starts_with("skewed") { vec![0] } else { vec![0, n / 2] };
        for root in roots {
            let want = sssp(&mut eng, root, &budget).unwrap();
            for delta in [Some(1e-3), None, Some(1e12)] {
                let mut parents = Vec::new();
                for threads in [1, 4] {
                    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                    let (got, _) = pool.install(|| sssp_delta(&eng, root, delta, &budget)).unwrap();
                    let what = format!("{name} root {root} delta {delta:?} {threads} threads");
                    for v in 0..n as usize {
                        assert_eq!(got.dist[v].to_bits(), want.dist[v].to_bits(), "{what}: distance of {v}");
                        if got.dist[v].is_finite() && v as u64 != root {
                            let p = got.parent[v] as u64;
                            let i = g.neighbours(p).iter().position(|&x| x == v as u64).expect("parent edge exists");
                            assert_eq!(got.dist[p as usize] + g.edge_weights(p).unwrap()[i] as f64, got.dist[v], "{what}: parent of {v}");
                        }
                    }
                    assert_eq!(got.reached, want.reached, "{what}");
                    parents.push(got.parent);
                }
                assert!(parents[0] == parents[1], "{name} root {root} delta {delta:?}: parents differ between 1 and 4 threads");
            }
        }
    }
    // a negative weight
    let bad = dir.path().join("negative.wel");
    std::fs::write(&bad, "0 1 1.0\n1 2 -0.5\n").unwrap();
    let case = import(&bad, ImportOptions { directed: Some(true), weighted: true, ..Default::default() });
    let (budget, eng) = engine(&case.store, "out", ("large", true), state_bytes(3, 2));
    let err = sssp_delta(&eng, 0, None, &budget).err().expect("a negative weight is an error").to_string();
    assert!(err.contains("non-negative") && err.contains("-0.5"), "{err}");
}

#[test]
fn wcc_equals_union_find_reference() {
    for case in cases() {
        let g = reference_graph(&case.store);
        let got = wcc(&case.store, &Budget::new(case.store.vertices() * 4 + (8 << 20))).unwrap();
        let want = ref_wcc(&g);
        assert!(got.iter().map(|&x| x as u64).eq(want.iter().copied()), "{}", case.name);
    }
}

/// Bytes of `files` together.
fn file_bytes(files: &[std::path::PathBuf]) -> u64 {
    files.iter().map(|f| std::fs::metadata(f).unwrap().len()).sum()
}

/// A store without vertices (an empty edge list) has no components:
/// union-find and Afforest return no labels, directed and undirected.
#[test]
fn wcc_of_an_empty_store_is_empty() {
    let dir = tempfile::tempdir().unwrap();
    let edges = dir.path().join("empty.el");
    std::fs::write(&edges, "").unwrap();
    for directed in [true, false] {
        let case = import(&edges, ImportOptions { directed: Some(directed), ..Default::default() });
        assert_eq!(case.store.vertices(), 0);
        assert!(wcc(&case.store, &Budget::unlimited()).unwrap().is_empty(), "union-find, directed {directed}");
        let (labels, _, stats) = afforest::wcc_charged(&case.store, &Budget::unlimited()).unwrap();
        assert!(labels.is_empty() && stats.lists_finished == 0 && stats.giant_vertices == 0, "Afforest, directed {directed}: {stats:?}");
    }
}

#[test]
fn afforest_equals_the_reference_partition() {
    for case in cases() {
        let g = reference_graph(&case.store);
        let budget = Budget::new(afforest::state_bytes(case.store.vertices()) + (8 << 20));
        let want = ref_wcc(&g);
        // links are made on every core, and the sampling scans parts of
        // the vertices in a lane a thread where the budget holds their
        // scans: one thread and four, with a budget for one scan or more,
        // give the reference's labels
        let roomy = Budget::unlimited();
        // with room, the pages of the lists' heads are read (the cases are
        // raw32, with page checksums); the tight budget holds no more than
        // a scan
        for (threads, budget) in [(1, &budget), (4, &budget), (1, &roomy), (2, &roomy), (4, &roomy)] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let (got, _, stats) = pool.install(|| afforest::wcc_charged(&case.store, budget)).unwrap();
            assert!(got.iter().map(|&x| x as u64).eq(want.iter().copied()), "{}, {threads} threads", case.name);
            let roomy_run = std::ptr::eq(budget, &roomy);
            assert_eq!(stats.sampled_from, if roomy_run { "heads" } else { "scan" }, "{}", case.name);
            assert_eq!(stats.lists_sampled, case.store.vertices(), "{}, {threads} threads: every list sampled once", case.name);
            if roomy_run {
                assert_eq!(stats.sampling_lanes, threads as u64, "{}: a lane a thread", case.name);
            } else {
                assert!(stats.sampling_lanes >= 1 && stats.sampling_lanes <= threads as u64, "{}", case.name);
            }
            // the sampling scan reads the index and the adjacency whole;
            // the heads, the index and at least a page of lists
            let lay = case.store.layout("out").unwrap();
            let scanned = file_bytes(&[lay.index_path(), lay.adjacency_path()]);
            let least = if roomy_run { file_bytes(&[lay.index_path()]) + 1 } else { scanned };
            assert!(stats.bytes_read >= least, "{}: {} bytes read, the sampling alone reads {least}", case.name, stats.bytes_read);
            assert!(stats.giant_vertices >= 1 && stats.giant_vertices <= case.store.vertices(), "{}", case.name);
        }
    }
    // a graph of two link buffers and more: the skewed one, sampled from its lists
    let dir = tempfile::tempdir().unwrap();
    let case = skewed(dir.path());
    let g = reference_graph(&case.store);
    assert!(g.vertices() as usize > afforest::LINK_BUFFER / 2);
    let want = ref_wcc(&g);
    for threads in [1, 2, 4] {
        // four lanes' buffers hold half a link buffer each: they link
        // before the end of their parts
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let (got, _, stats) = pool.install(|| afforest::wcc_charged(&case.store, &Budget::unlimited())).unwrap();
        assert_eq!((stats.sampling_lanes, stats.lists_sampled), (threads as u64, g.vertices() as u64));
        assert!(got.iter().map(|&x| x as u64).eq(want.iter().copied()), "skewed, {threads} threads");
    }
}

/// Sampling from the hot layout's first columns gives the same partition,
/// with one column or several, and reads only what the columns miss.
#[test]
fn afforest_sampling_from_the_hot_layout() {
    for Case { _dir: keep, store, name } in cases() {
        let dir = store.dir().to_path_buf();
        let g = reference_graph(&store);
        let want = ref_wcc(&g);
        drop(store);
        for columns in [1, 2, 5] {
            outcore_ingest::hot::add_hot(&dir, columns, 1 << 30, &NoProgress).unwrap();
            let store = Store::open(&dir).unwrap();
            // what its plan states: the state, the reads and the columns' streams
            let budget = Budget::new(afforest::state_bytes(store.vertices()) + afforest::read_bytes(&store).unwrap());
            let (got, _, stats) = afforest::wcc_charged(&store, &budget).unwrap();
            assert_eq!(stats.sampled_from, "hot", "{name}");
            assert!(got.iter().map(|&x| x as u64).eq(want.iter().copied()), "{name} with {columns} hot columns");
            // the bytes read are counted, not the adjacency's size: the
            // degrees' file and the two sampled columns whole, then the
            // lookups (each index header a page of at most 64 KiB)
            let lay = store.layout("out").unwrap();
            let columns_read = (columns as usize).min(afforest::NEIGHBOUR_ROUNDS);
            let mut whole = vec![lay.degrees_path().unwrap_or_else(|| lay.index_path())];
            whole.extend((0..columns_read).map(|j| dir.join(&store.manifest().hot.as_ref().unwrap().columns[j].file)));
            let sampled = file_bytes(&whole);
            assert!(stats.bytes_read >= sampled, "{name}: {} bytes read, the sampling alone reads {sampled}", stats.bytes_read);
            if stats.lists_finished == 0 {
                assert!(
                    stats.bytes_read <= sampled + 3 * (64 << 10),
                    "{name}: {} bytes read, sampling {sampled}, no lookups",
                    stats.bytes_read
                );
            }
        }
        // columns of an older generation of the source layout are not
        // sampled: the lists are, by a scan
        let path = dir.join("manifest.json");
        let mut m: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        m["hot"]["source_xxh3"] = serde_json::json!("0000000000000000");
        std::fs::write(&path, serde_json::to_string(&m).unwrap()).unwrap();
        let store = Store::open(&dir).unwrap();
        let budget = Budget::new(afforest::state_bytes(store.vertices()) + (8 << 20));
        let (got, _, stats) = afforest::wcc_charged(&store, &budget).unwrap();
        assert_eq!(stats.sampled_from, "scan", "{name}: stale hot columns sampled");
        assert!(got.iter().map(|&x| x as u64).eq(want.iter().copied()), "{name} with stale hot columns");
        drop(keep);
    }
}

/// Many small components and a giant one, symmetric and directed; the
/// directed store has arcs from the giant component into small ones that
/// only their `in` lists show.
#[test]
fn afforest_on_many_small_components() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = outcore_io::SplitMix64(7);
    let mut lines = String::new();
    // a giant component on 0..2000 (a path plus random chords)
    for v in 1..2000u64 {
        lines += &format!("{} {}\n", v - 1, v);
        lines += &format!("{} {}\n", rng.below(2000), rng.below(2000));
    }
    // 500 pairs and triangles, some joined to the giant by an arc out of it
    for c in 0..500u64 {
        let base = 2000 + 3 * c;
        lines += &format!("{} {}\n{} {}\n", base + 1, base, base + 2, base + 1);
        if c % 7 == 0 {
            lines += &format!("{} {}\n", rng.below(2000), base + 2);
        }
    }
    // isolated self loops
    for v in 3500..3600u64 {
        lines += &format!("{v} {v}\n");
    }
    let f = dir.path().join("small.el");
    std::fs::write(&f, lines).unwrap();
    for directed in [false, true] {
        let case = import(&f, ImportOptions { directed: Some(directed), ..Default::default() });
        let g = reference_graph(&case.store);
        let budget = Budget::new(afforest::state_bytes(case.store.vertices()) + (8 << 20));
        let (got, _, stats) = afforest::wcc_charged(&case.store, &budget).unwrap();
        let want = ref_wcc(&g);
        assert!(got.iter().map(|&x| x as u64).eq(want.iter().copied()), "directed {directed}");
        let components = want.iter().enumerate().filter(|&(v, &l)| v as u64 == l).count();
        assert_eq!(components, 1 + 500 - 500usize.div_ceil(7) + 100, "directed {directed}");
        // the giant component was found, and its lists were not read again
        assert!(stats.giant_vertices >= 1900, "directed {directed}: giant {}", stats.giant_vertices);
        let outside = case.store.vertices() - stats.giant_vertices;
        assert!(stats.lists_finished <= outside * if directed { 2 } else { 1 }, "directed {directed}");
        if directed {
            // the sampling scanned out-lists: every in-list outside the
            // giant is read (the links, a few thousand, are made at the
            // end, so no parent changes while they are read)
            assert!(stats.lists_finished >= outside, "{} lists read, {outside} vertices outside the giant", stats.lists_finished);
        }
        if !directed {
            // pairs, triangles and loops have lists of at most two: the
            // sampling scan linked them whole and none is read again
            assert!(stats.lists_finished < outside / 4, "{} lists read of {outside} outside", stats.lists_finished);
        }
        // the same from the hot layout (a directed store's samples its in-lists)
        let Case { _dir: keep, store, .. } = case;
        let dir = store.dir().to_path_buf();
        drop(store);
        outcore_ingest::hot::add_hot(&dir, 2, 1 << 30, &NoProgress).unwrap();
        let store = Store::open(&dir).unwrap();
        let (got, _, stats) = afforest::wcc_charged(&store, &budget).unwrap();
        assert_eq!(stats.sampled_from, "hot");
        assert!(got.iter().map(|&x| x as u64).eq(want.iter().copied()), "directed {directed}, from hot");
        drop(keep);
    }
}

#[test]
fn afforest_refuses_a_directed_store_without_its_in_layout() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s");
    let opts = ImportOptions { directed: Some(true), ..Default::default() };
    import_file(&shared().join("real/wiki-Vote.txt"), &out, &opts, &NoProgress).unwrap();
    let store = Store::open(&out).unwrap();
    let why = afforest::unsupported(&store).unwrap();
    assert!(why.contains("`in` layout"), "{why}");
    let err = afforest::wcc_charged(&store, &Budget::new(1 << 30)).err().unwrap().to_string();
    assert!(err.contains("`in` layout"), "{err}");
}

#[test]
fn bad_roots_budgets_and_weights_are_clear_errors() {
    let case = import(&shared().join("real/CA-GrQc.txt"), ImportOptions { directed: Some(false), ..Default::default() });
    let n = case.store.vertices();
    let (budget, mut eng) = engine(&case.store, "out", ("large", true), BfsTree::state_bytes(n, case.store.manifest().arcs));
    let err = bfs(&mut eng, n + 5, &budget).err().unwrap().to_string();
    assert!(err.contains("is not a vertex"), "{err}");
    let err = sssp(&mut eng, 0, &budget).err().unwrap().to_string();
    assert!(err.contains("needs edge weights"), "{err}");
    let err = Traverse::open(&case.store, "out", &Budget::new(100_000), &TraverseOptions::default(), 0).err().unwrap().to_string();
    assert!(err.contains("too small") && err.contains("the smallest budget that would work"), "{err}");

    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("neg.wel");
    std::fs::write(&f, "0 1 1.5\n1 2 -2\n").unwrap();
    let neg = import(&f, ImportOptions::default());
    let (budget, mut eng) = engine(&neg.store, "out", ("large", true), ShortestPaths::state_bytes(3));
    let err = sssp(&mut eng, 0, &budget).err().unwrap().to_string();
    assert!(err.contains("weight -2") && err.contains("non-negative"), "{err}");
}

/// The hot lists of a graph of several batches (over a million arcs, with
/// hubs), built in parts read by a lane per thread (1, 2 and 5) and in the
/// one part a small budget leaves room for, each equal a plain ranking (every list
/// sorted by the reference graph's degrees, then ids) in store order and
/// in descending-degree order (where the parts take each list's first
/// entries without a lookup).
#[test]
fn hot_lists_ranked_in_parallel_parts_equal_a_plain_ranking() {
    let dir = tempfile::tempdir().unwrap();
    let case = skewed(dir.path());
    let by_degree = dir.path().join("by-degree");
    let opts = RecodeOptions { encoding: None, order: "degree".into(), memory: 256 << 20, force: false, layouts: None };
    let order = outcore_algorithms::order::compute(&case.store, outcore_algorithms::order::Order::Degree, &Budget::unlimited()).unwrap();
    let permutation = dir.path().join("by-degree.perm");
    outcore_ingest::recode::write_permutation(&permutation, &order).unwrap();
    recode(case.store.dir(), &by_degree, Some(&permutation), &opts, &outcore_io::NoProgress).unwrap();
    // and copies in degree order in the compressed encodings, whose scans
    // decode only each list's first k
    let mut stores = vec![("store order", case.store), ("degree order", Store::open(&by_degree).unwrap())];
    for (name, encoding) in
        [("degree order, gapref", outcore_store::Encoding::Gapref), ("degree order, ceesor", outcore_store::Encoding::Ceesor)]
    {
        let at = dir.path().join(name.replace([',', ' '], "-"));
        recode(&by_degree, &at, None, &RecodeOptions { encoding: Some(encoding), ..opts.clone() }, &outcore_io::NoProgress).unwrap();
        stores.push((name, Store::open(&at).unwrap()));
    }
    for (order, store) in stores {
        let store = &store;
        let g = reference_graph(store);
        let degree = |u: u64| g.offsets[u as usize + 1] - g.offsets[u as usize];
        assert!(store.manifest().arcs > 1_000_000, "several batches");
        let descending = (1..store.vertices()).all(|v| degree(v) <= degree(v - 1));
        assert_eq!(descending, order.starts_with("degree order"), "{order}");
        let k = 5usize;
        let mut want: Vec<Vec<u32>> = vec![Vec::new(); k];
        for v in 0..store.vertices() as usize {
            let mut list: Vec<u64> = g.targets[g.offsets[v] as usize..g.offsets[v + 1] as usize].to_vec();
            list.sort_by_key(|&u| (std::cmp::Reverse(degree(u)), u));
            for (column, &u) in want.iter_mut().zip(&list) {
                column.push(u as u32);
            }
        }
        let budget = Budget::new(1 << 30);
        let out = Traverse::open(store, "out", &budget, &TraverseOptions::default(), 0).unwrap();
        let column_bytes: u64 = want.iter().map(|c| c.len() as u64 * 4).sum();
        // each part's scan of `in` and batch of lists are charged beside the columns
        let part = outcore_algorithms::bfs::hybrid::build_part_bytes(store, "in").unwrap();
        let one_part = column_bytes + part + (1 << 20);
        assert!(one_part < column_bytes + 2 * part, "room for one part only");
        for (threads, room, lanes, parts) in [(1, 1u64 << 30, 1, 1), (2, 1 << 30, 2, 8), (5, 1 << 30, 5, 20), (2, one_part, 1, 1)] {
            let label = format!("{threads} threads, {lanes} lanes");
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let hot = pool.install(|| HotLists::build(store, "in", &out, k as u32, &Budget::new(room), label.clone())).unwrap();
            let built = |l, p| matches!(hot.origin, outcore_algorithms::bfs::hybrid::HotOrigin::Built { lanes, parts, .. } if (lanes, parts) == (l, p));
            assert!(built(lanes, parts), "{order}, {label}: {:?}", hot.origin);
            for (j, column) in want.iter().enumerate() {
                let got = hot.column(j);
                assert_eq!(got.len(), column.len(), "{order}, {label}: entries of column {j}");
                if let Some(i) = (0..got.len()).find(|&i| got[i] != column[i]) {
                    panic!("{order}, {label}: column {j} entry {i} is {}, a plain ranking gives {}", got[i], column[i]);
                }
            }
        }
    }
}

/// Cuts that do not part the vertex range into as many parts as there are
/// sinks (a cut too many or too few, not from 0, past the vertex count,
/// descending) are refused with an error naming the layout, and no sink
/// is called; cuts that do, empty parts among them, rank every list up to
/// the last cut (the vertices past it are not read).
#[test]
fn hot_parts_refuse_cuts_that_do_not_part_the_vertices() {
    let case = import(&shared().join("real/CA-GrQc.txt"), ImportOptions { directed: Some(false), ..Default::default() });
    let layout = case.store.layout("out").unwrap();
    let n = layout.vertices();
    let degrees: Vec<u32> = vec![1; n as usize];
    let rank = |cuts: &[u64], sinks: usize| {
        let called = std::sync::atomic::AtomicU64::new(0);
        let sinks: Vec<_> = (0..sinks)
            .map(|_| {
                |_: u64, _: &[u32]| -> Result<(), outcore_store::StoreError> {
                    called.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    Ok(())
                }
            })
            .collect();
        let result = HotParts::rank(&layout, cuts, 2, 2, degrees.as_slice(), sinks);
        (result, called.into_inner())
    };
    for (cuts, sinks) in
        [(vec![0, n / 2, n], 1), (vec![0, n], 2), (vec![1, n / 2, n], 2), (vec![0, n / 2, n + 1], 2), (vec![0, n / 2, n / 4, n], 3)]
    {
        let (result, called) = rank(&cuts, sinks);
        let err = result.err().unwrap_or_else(|| panic!("cuts {cuts:?} for {sinks} sinks are accepted")).to_string();
        assert!(err.contains("do not part") && err.contains(&layout.adjacency_path().display().to_string()), "{err}");
        assert_eq!(called, 0, "cuts {cuts:?}: no list is ranked");
    }
    for (cuts, sinks) in [(vec![0, n], 1), (vec![0, 0, n / 3, n / 3, n, n], 5), (vec![0, n / 2, n - 1], 2), (vec![0, 0], 1)] {
        let (result, called) = rank(&cuts, sinks);
        result.unwrap();
        assert_eq!(called, *cuts.last().unwrap(), "cuts {cuts:?}: every list up to the last cut ranked once");
    }
}

/// What `Traverse::index_bytes` predicts (and `min_bytes` and `info`
/// report) is what opening the layout holds for its index, to within a
/// KiB (on these stores the select structure does not spill), in every
/// encoding, on every case.
#[test]
fn the_index_bytes_predicted_are_the_index_bytes_held() {
    use outcore_store::Encoding;
    let dir = tempfile::tempdir().unwrap();
    let skewed_case = skewed(dir.path());
    let mut stores = vec![("skewed raw32".to_string(), skewed_case.store.dir().to_path_buf())];
    for encoding in [Encoding::Gapref, Encoding::Ceesor] {
        let out = dir.path().join(encoding.name());
        let opts = RecodeOptions { encoding: Some(encoding), order: "none".into(), memory: 256 << 20, force: false, layouts: None };
        recode(skewed_case.store.dir(), &out, None, &opts, &outcore_io::NoProgress).unwrap();
        stores.push((format!("skewed {}", encoding.name()), out));
    }
    let cases = cases();
    let all = cases.iter().map(|c| (c.name.clone(), c.store.dir().to_path_buf())).chain(stores);
    for (name, path) in all {
        let store = Store::open(&path).unwrap();
        let predicted = Traverse::index_bytes(&store, "out").unwrap();
        let g = Traverse::open(&store, "out", &Budget::new(1 << 30), &TraverseOptions::default(), 0).unwrap();
        let held = g.stats().index_bytes;
        // the structs' own words apart (136 bytes here), the same figure
        assert!(predicted.abs_diff(held) <= 1024, "{name}: predicted {predicted} bytes, the engine holds {held}");
    }
}

/// A budget with no room for the state and the smallest block cache is an
/// error whose suggested budget, in whole MiB, is the smallest that opens
/// the engine: the suggestion opens it and 1 MiB less does not.
#[test]
fn traverse_budget_error_suggests_the_smallest_budget_that_works() {
    let case = import(&shared().join("real/CA-GrQc.txt"), ImportOptions { directed: Some(false), ..Default::default() });
    let keep = 4 << 20;
    let open = |memory: u64| Traverse::open(&case.store, "out", &Budget::new(memory), &TraverseOptions::default(), keep);
    let budget_error = |memory: u64| match open(memory) {
        Err(outcore_store::StoreError::Budget(b)) => b,
        Err(e) => panic!("at {memory} bytes: not a budget error: {e}"),
        Ok(_) => panic!("at {memory} bytes: opened"),
    };
    let short = budget_error(1 << 20);
    assert!(short.what.contains("vertex state (4.0 MiB)") && short.suggest % (1 << 20) == 0, "{short:?}");
    assert!(open(short.suggest).is_ok(), "the suggested {} is not enough", short.suggest);
    budget_error(short.suggest - (1 << 20));
}

/// The smallest budget counts the cache's blocks at the size asked for (64
/// of them): a larger block raises it by exactly the cache's difference,
/// and the engine opens in it with that block size.
#[test]
fn the_smallest_budget_counts_the_block_size_asked_for() {
    let case = import(&shared().join("real/CA-GrQc.txt"), ImportOptions { directed: Some(false), ..Default::default() });
    let store = &case.store;
    let (small, large) = (4096, 1 << 16);
    let least = |block_bytes| Traverse::min_bytes(store, "out", block_bytes).unwrap();
    assert_eq!(least(large) - least(small), Traverse::min_cache_bytes(large) - Traverse::min_cache_bytes(small));
    let opts = TraverseOptions { block_bytes: large, ..Default::default() };
    assert!(Traverse::open(store, "out", &Budget::new(least(large)), &opts, 0).is_ok());
}

/// With `parallel_longest`, the readers are charged for lists of that
/// many entries and one shared reader for the longest: the engine opens in
/// less, reads the short lists on every core, hands a longer one to the
/// shared reader (whichever reader it was given to), and reads the longest
/// as it does without the option.
#[test]
fn readers_charged_for_short_lists_leave_the_long_ones_to_a_shared_reader() {
    let case = import(&shared().join("real/CA-GrQc.txt"), ImportOptions { directed: Some(false), ..Default::default() });
    let store = &case.store;
    let longest = store.layout("out").unwrap().longest_list().unwrap();
    let short = 8;
    let limited = TraverseOptions { parallel_longest: Some(short), ..Default::default() };
    let (full, less) = (Traverse::min_bytes(store, "out", 4096).unwrap(), Traverse::min_bytes_with(store, "out", &limited).unwrap());
    assert!(short < longest && less < full, "{less} bytes charged for lists of {short}, {full} for lists of {longest}");
    // the smallest budget with the option: it opens, where without it would not
    let budget = Budget::new(less);
    assert!(Traverse::open(store, "out", &budget, &TraverseOptions::default(), 0).is_err());
    let g = Traverse::open(store, "out", &budget, &limited, 0).unwrap();
    assert_eq!(g.stats().parallel_longest, short);
    let n = store.vertices() as u32;
    let reference = reference_graph(store);
    let all: Vec<u32> = (0..n).collect();
    let (found, _) = g.par_lists(&all, |v, list, out: &mut Vec<(u32, Vec<u64>)>| out.push((v, list.to_vec()))).unwrap();
    let found: Vec<(u32, Vec<u64>)> = found.into_iter().flatten().collect();
    assert_eq!(found.len(), n as usize);
    for (v, list) in found {
        assert_eq!(list, reference.neighbours(v as u64), "vertex {v}");
    }
    let long = all.iter().filter(|&&v| g.degree(v as u64) > short).count() as u64;
    let shared = g.stats().lists_read_shared;
    assert!(long > 0 && shared >= long, "{shared} lists read by the shared reader, {long} longer than {short}");
    let hub = (0..n).max_by_key(|&v| g.degree(v as u64)).unwrap();
    let mut list = Vec::new();
    g.reader().neighbours(hub as u64, &mut list).unwrap();
    assert_eq!(list.len() as u64, longest);
    assert_eq!(list, reference.neighbours(hub as u64));
}

/// Without the option, the engine lets every reader decode the longest
/// list where the budget has room for it, and otherwise charges them for
/// lists of [`SHARED_READER_FROM`] entries and shares one reader for the
/// longer ones: a tight budget opens, on every encoding, and the lists
/// read on every core equal the reference.
#[test]
fn a_tight_budget_shares_one_reader_for_the_longest_lists() {
    use outcore_engines::traverse::SHARED_READER_FROM;
    use outcore_store::Encoding;
    let dir = tempfile::tempdir().unwrap();
    let edges = skewed(dir.path());
    let reference = reference_graph(&edges.store);
    let n = reference.vertices() as u32;
    let all: Vec<u32> = (0..n).collect();
    for encoding in [Encoding::Raw32, Encoding::Gapref, Encoding::Ceesor] {
        let out = dir.path().join(encoding.name());
        let opts = RecodeOptions { encoding: Some(encoding), order: "none".into(), memory: 256 << 20, force: false, layouts: None };
        recode(edges.store.dir(), &out, None, &opts, &outcore_io::NoProgress).unwrap();
        let store = Store::open(&out).unwrap();
        let longest = store.layout("out").unwrap().longest_list().unwrap();
        assert!(longest > SHARED_READER_FROM, "the longest list has {longest} entries");
        let least = Traverse::min_bytes(&store, "out", 4096).unwrap();
        let g = Traverse::open(&store, "out", &Budget::new(least), &TraverseOptions::default(), 0).unwrap();
        assert_eq!(g.stats().parallel_longest, SHARED_READER_FROM, "{encoding:?}");
        let (found, _) = g.par_lists(&all, |v, list, out: &mut Vec<(u32, Vec<u64>)>| out.push((v, list.to_vec()))).unwrap();
        let found: Vec<(u32, Vec<u64>)> = found.into_iter().flatten().collect();
        assert_eq!(found.len(), n as usize, "{encoding:?}");
        for (v, list) in found {
            assert_eq!(list, reference.neighbours(v as u64), "{encoding:?} vertex {v}");
        }
        let long = all.iter().filter(|&&v| g.degree(v as u64) > SHARED_READER_FROM).count() as u64;
        let shared = g.stats().lists_read_shared;
        assert!(long > 0 && shared >= long, "{encoding:?}: {shared} lists read by the shared reader, {long} long ones");
        // a roomy budget: every reader decodes every list
        let g = Traverse::open(&store, "out", &Budget::new(least + (256 << 20)), &TraverseOptions::default(), 0).unwrap();
        assert_eq!(g.stats().parallel_longest, longest, "{encoding:?}");
        g.par_lists(&all, |_, _, _: &mut Vec<()>| ()).unwrap();
        assert_eq!(g.stats().lists_read_shared, 0, "{encoding:?}");
    }
}
