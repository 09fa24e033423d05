//! BFS, PageRank, WCC and SSSP across ranks on partitioned stores, at 1 to
//! 4 ranks (ranks as threads: `comm::run_threads`; `tests/mpi.rs` runs the
//! same through `mpirun`), against the in-memory references of
//! `outcore-algorithms` on the unpartitioned store: BFS levels exactly and
//! every parent a neighbour on the level above (Graph500's rules),
//! PageRank within 1e-9 and after the same number of iterations, WCC the
//! same partition, SSSP distances to f32 precision with every parent's
//! distance plus its arc's weight equal to the child's.

use outcore_algorithms::bfs::HotLists;
use outcore_algorithms::pagerank::{reference::pagerank_until, Params};
use outcore_algorithms::{bfs::reference::bfs_levels, sssp::reference::sssp as sssp_reference, wcc::reference::wcc as wcc_reference};
use outcore_algorithms::{values::UNREACHED_U64 as UNREACHED, MemGraph};
use outcore_dist::comm::{run_threads, Comm};
use outcore_dist::part::Part;
use outcore_dist::partition::partition;
use outcore_dist::statics::{bfs, pagerank, sssp, wcc};
use outcore_ingest::import::{import_file, ImportOptions};
use outcore_io::Budget;
use outcore_store::Store;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

struct Graph {
    g: MemGraph,
    original: Vec<u64>,
    dense: HashMap<u64, u64>,
}

fn load(input: &Path, dir: &Path, directed: Option<bool>, weighted: bool) -> (PathBuf, Graph) {
    let path = dir.join("source");
    import_file(input, &path, &ImportOptions { directed, weighted, ..Default::default() }, &outcore_io::NoProgress).unwrap();
    let store = Store::open(&path).unwrap();
    let g = MemGraph::load(&store, "out", &Budget::unlimited()).unwrap();
    let ids = store.id_map(&Budget::unlimited()).unwrap();
    let original: Vec<u64> = (0..store.vertices()).map(|v| ids.original(v)).collect();
    let dense = original.iter().enumerate().map(|(d, &o)| (o, d as u64)).collect();
    (path, Graph { g, original, dense })
}

/// Every rank's (original id, values) pairs, merged; each vertex once.
fn merged<T: Clone>(per_rank: Vec<Vec<(u64, T)>>, n: usize) -> HashMap<u64, T> {
    let mut all = HashMap::new();
    for (id, x) in per_rank.into_iter().flatten() {
        assert!(all.insert(id, x).is_none(), "vertex {id} reported by two ranks");
    }
    assert_eq!(all.len(), n, "every vertex reported once");
    all
}

fn open<'c>(comm: &'c dyn Comm, pattern: &str) -> Part<'c> {
    // small: the engine's cache is a few blocks, so lists are read and
    // evicted, lists are read in rounds of a few arcs, and what ranks push
    // to owners goes in several rounds of a few entries each
    Part::open(comm, pattern, &Budget::new(24 << 20), |shape| bfs::state_bytes(shape) + sssp::state_bytes(shape))
        .unwrap()
        .with_round_arcs(7)
        .with_push_round(5)
}

fn check_bfs(gr: &Graph, pattern: &str, ranks: usize, root: u64, opts: &bfs::BfsOptions) {
    check_bfs_hot(gr, pattern, ranks, root, opts, None)
}

/// With hot lists: `Some(0)` as many columns as a 64 MiB budget allows
/// (`bfs::hot_lists`, which must give some), `Some(k)` exactly k.
fn check_bfs_hot(gr: &Graph, pattern: &str, ranks: usize, root: u64, opts: &bfs::BfsOptions, hot_k: Option<u32>) {
    let per_rank = run_threads(ranks, |comm| {
        let budget = Budget::new(64 << 20);
        let keep = bfs::state_bytes;
        let part = match hot_k {
            None => open(comm, pattern),
            // (lists read, and levels scanned, a few vertices at a time)
            Some(_) => Part::open_sharing(comm, pattern, &budget, keep, bfs::HOT_SHARE).unwrap().with_round_arcs(7),
        };
        let hot = match hot_k {
            None => None,
            Some(0) => {
                let state = keep(&part.shape());
                let hot = bfs::hot_lists(&part, &budget, state).unwrap().expect("a column fits");
                assert!(hot.k >= 2, "the budget's share holds several columns");
                Some(hot)
            }
            Some(k) => Some(HotLists::build(&part.store, "out", &part.graph, k, &budget, String::new()).unwrap()),
        };
        let r = bfs::bfs(&part, root, opts, hot.as_ref()).unwrap().expect("the root is a vertex");
        // parents as local ids when the graph is undirected, else as ids,
        // in 4 bytes when every id fits
        let fit = gr.original.iter().all(|&o| o < u32::MAX as u64);
        match (&r.parent, part.directed(), fit) {
            (bfs::Parents::Local(_), false, _) | (bfs::Parents::Narrow(_), true, true) | (bfs::Parents::Ids(_), true, false) => {}
            _ => panic!("parents kept in the wrong width (directed {}, ids fit {fit})", part.directed()),
        }
        (0..part.owned_count())
            .map(|i| (part.owned_id(i), (r.level_of(i as usize), r.parent_of(&part.original, i as usize))))
            .collect::<Vec<_>>()
    });
    let got = merged(per_rank, gr.original.len());
    let want = bfs_levels(&gr.g, gr.dense[&root]);
    for (d, &o) in gr.original.iter().enumerate() {
        let (level, parent) = got[&o];
        assert_eq!(level, want[d], "level of {o} from {root} at {ranks} ranks ({opts:?}, hot lists {hot_k:?})");
        if level == UNREACHED {
            assert_eq!(parent, UNREACHED);
        } else if level == 0 {
            assert_eq!(parent, o);
        } else {
            let p = gr.dense[&parent];
            assert_eq!(want[p as usize] + 1, level, "parent {parent} of {o} is not on the level above");
            assert!(gr.g.neighbours(p).contains(&(d as u64)), "parent {parent} of {o} is not its neighbour");
        }
    }
}

fn check_pagerank(gr: &Graph, pattern: &str, ranks: usize, params: Params) {
    let schedule = params.schedule(gr.original.len() as u64);
    let per_rank = run_threads(ranks, |comm| {
        let part = open(comm, pattern);
        let r = pagerank::pagerank(&part, &schedule).unwrap();
        (0..part.owned_count()).map(|i| (part.owned_id(i), (r.rank[i as usize], r.iterations))).collect::<Vec<_>>()
    });
    let got = merged(per_rank, gr.original.len());
    let (want, iterations, _) = pagerank_until(&gr.g, schedule.damping, schedule.iterations, schedule.tolerance);
    for (d, &o) in gr.original.iter().enumerate() {
        let (x, its) = got[&o];
        assert_eq!(its, iterations, "PageRank iterations at {ranks} ranks ({params:?})");
        assert!((x - want[d]).abs() < 1e-9, "PageRank of {o} at {ranks} ranks: {x} against {}", want[d]);
    }
}

fn check_wcc(gr: &Graph, pattern: &str, ranks: usize) {
    let per_rank = run_threads(ranks, |comm| {
        let part = open(comm, pattern);
        let r = wcc::wcc(&part).unwrap();
        // labels in 4 bytes exactly when every id fits
        let narrow = gr.original.iter().all(|&o| o < u32::MAX as u64);
        assert_eq!(matches!(r.label, wcc::Labels::Narrow(_)), narrow);
        (0..part.owned_count()).map(|i| (part.owned_id(i), (r.label_of(i as usize), r.components))).collect::<Vec<_>>()
    });
    let got = merged(per_rank, gr.original.len());
    let want = wcc_reference(&gr.g);
    // the reference's components, each named by its smallest original id
    let mut smallest: HashMap<u64, u64> = HashMap::new();
    for (d, &o) in gr.original.iter().enumerate() {
        let e = smallest.entry(want[d]).or_insert(o);
        *e = (*e).min(o);
    }
    for (d, &o) in gr.original.iter().enumerate() {
        assert_eq!(got[&o].0, smallest[&want[d]], "component of {o} at {ranks} ranks");
        assert_eq!(got[&o].1, smallest.len() as u64, "components at {ranks} ranks");
    }
}

fn check_sssp(gr: &Graph, pattern: &str, ranks: usize, root: u64) {
    let per_rank = run_threads(ranks, |comm| {
        let part = open(comm, pattern);
        let r = sssp::sssp(&part, root).unwrap().expect("the root is a vertex");
        (0..part.owned_count()).map(|i| (part.owned_id(i), (r.distance[i as usize], r.parent[i as usize]))).collect::<Vec<_>>()
    });
    let got = merged(per_rank, gr.original.len());
    let want = sssp_reference(&gr.g, gr.dense[&root]);
    let weights = gr.g.weights.as_ref().expect("weighted");
    for (d, &o) in gr.original.iter().enumerate() {
        let (x, parent) = got[&o];
        if want[d].is_infinite() {
            assert!(x.is_infinite() && parent == UNREACHED, "{o} is unreachable from {root}");
            continue;
        }
        assert!((x - want[d]).abs() <= 1e-6 * want[d].max(1.0), "distance of {o} from {root} at {ranks} ranks: {x} against {}", want[d]);
        if o == root {
            assert_eq!(parent, root);
            continue;
        }
        let p = gr.dense[&parent] as usize;
        let (start, end) = (gr.g.offsets[p] as usize, gr.g.offsets[p + 1] as usize);
        let arc = (start..end).filter(|&k| gr.g.targets[k] == d as u64).map(|k| weights[k] as f64).fold(f64::INFINITY, f64::min);
        assert!(arc.is_finite(), "parent {parent} of {o} is not its neighbour");
        assert!((got[&parent].0 + arc - x).abs() <= 1e-6 * x.max(1.0), "parent {parent} of {o} is not on a shortest path");
    }
}

/// The first vertex with an out-arc, the middle one, the last one (original ids).
fn roots(gr: &Graph) -> Vec<u64> {
    let n = gr.original.len() as u64;
    let first = (0..n).find(|&v| gr.g.degree(v) > 0).unwrap();
    vec![gr.original[first as usize], gr.original[(n / 2) as usize], gr.original[(n - 1) as usize]]
}

fn parts(source: &Path, dir: &Path, ranks: usize) -> String {
    let pattern = dir.join(format!("p{ranks}/part-{{rank}}")).display().to_string();
    partition(source, &pattern, ranks, outcore_ingest::hot::DEFAULT_COLUMNS, 64 << 20, false, &outcore_io::NoProgress).unwrap();
    pattern
}

/// The hot lists `outcore partition` stores in each part of an undirected
/// graph (ranked by degree in the whole graph, counted from the edges) are
/// the lists a rank builds by scanning its part, each ghost ranked by the
/// degree its owner reports; a rank loads them instead of building them.
#[test]
fn stored_hot_lists_of_parts_are_the_lists_ranks_build() {
    use outcore_algorithms::bfs::hybrid::HotOrigin;
    let shared = outcore_io::shared_dir(env!("CARGO_MANIFEST_DIR")).join("data/real/CA-GrQc.txt");
    let dir = tempfile::tempdir().unwrap();
    let (source, _) = load(&shared, dir.path(), Some(false), false);
    for ranks in [1, 2, 4] {
        let stored = parts(&source, dir.path(), ranks);
        let bare = dir.path().join(format!("bare{ranks}/part-{{rank}}")).display().to_string();
        partition(&source, &bare, ranks, 0, 64 << 20, false, &outcore_io::NoProgress).unwrap();
        let compared = run_threads(ranks, |comm| {
            let budget = Budget::new(64 << 20);
            let keep = bfs::state_bytes;
            let lists = |pattern: &str| {
                let part = Part::open_sharing(comm, pattern, &budget, keep, bfs::HOT_SHARE).unwrap();
                let state = keep(&part.shape());
                let hot = bfs::hot_lists(&part, &budget, state).unwrap().expect("a column fits");
                let columns: Vec<Vec<u32>> = (0..hot.k as usize).map(|j| hot.column(j).to_vec()).collect();
                (columns, hot.origin.clone())
            };
            let (loaded, loaded_origin) = lists(&stored);
            let (built, built_origin) = lists(&bare);
            assert!(matches!(loaded_origin, HotOrigin::Stored { columns: 16 }), "{loaded_origin:?}");
            assert!(matches!(built_origin, HotOrigin::Built { .. }), "{built_origin:?}");
            let k = loaded.len().min(built.len());
            assert!(k >= 2, "{} stored and {} built columns", loaded.len(), built.len());
            for j in 0..k {
                assert!(loaded[j] == built[j], "rank {} of {ranks}: column {j} loaded differs from the one built", comm.rank());
            }
            k
        });
        assert_eq!(compared.len(), ranks);
    }
}

#[test]
fn unweighted_graphs_at_one_to_four_ranks_equal_the_references() {
    let shared = outcore_io::shared_dir(env!("CARGO_MANIFEST_DIR")).join("data/real");
    for (file, directed) in [("CA-GrQc.txt", false), ("wiki-Vote.txt", true)] {
        let dir = tempfile::tempdir().unwrap();
        let (source, gr) = load(&shared.join(file), dir.path(), Some(directed), false);
        for ranks in [1, 2, 4] {
            let pattern = parts(&source, dir.path(), ranks);
            for root in roots(&gr) {
                check_bfs(&gr, &pattern, ranks, root, &bfs::BfsOptions::default());
                if !directed {
                    // bottom-up steps settled from hot lists: all that fit, or two a vertex
                    check_bfs_hot(&gr, &pattern, ranks, root, &bfs::BfsOptions::default(), Some(0));
                    check_bfs_hot(&gr, &pattern, ranks, root, &bfs::BfsOptions::default(), Some(2));
                }
            }
            // top-down only, and a hybrid that switches at every chance
            let root = roots(&gr)[0];
            check_bfs(&gr, &pattern, ranks, root, &bfs::BfsOptions { direction: bfs::Direction::TopDown, ..Default::default() });
            check_bfs(&gr, &pattern, ranks, root, &bfs::BfsOptions { alpha: 1e6, beta: 1.0, ..Default::default() });
            check_pagerank(&gr, &pattern, ranks, Params::default());
            check_pagerank(&gr, &pattern, ranks, Params { damping: 0.5, iterations: Some(7), tolerance: None });
            check_wcc(&gr, &pattern, ranks);
        }
    }
}

/// Ids past 32 bits: WCC keeps its labels, and BFS on a directed graph
/// its parents, as 8-byte ids (below that, 4 bytes: the graphs above), and
/// both still equal the references. CA-GrQc with 2^33 added to every id,
/// both ways.
#[test]
fn ids_past_32_bits_equal_the_references() {
    let shared = outcore_io::shared_dir(env!("CARGO_MANIFEST_DIR")).join("data/real/CA-GrQc.txt");
    let text = std::fs::read_to_string(shared).unwrap();
    let shifted: String = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let ids: Vec<u64> = l.split_whitespace().map(|x| x.parse::<u64>().unwrap() + (1 << 33)).collect();
            format!("{} {}\n", ids[0], ids[1])
        })
        .collect();
    for directed in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("wide.txt");
        std::fs::write(&input, &shifted).unwrap();
        let (source, gr) = load(&input, dir.path(), Some(directed), false);
        assert!(gr.original.iter().all(|&o| o > u32::MAX as u64));
        for ranks in [1, 3] {
            let pattern = parts(&source, dir.path(), ranks);
            check_bfs(&gr, &pattern, ranks, roots(&gr)[1], &bfs::BfsOptions::default());
            check_wcc(&gr, &pattern, ranks);
        }
    }
}

#[test]
fn weighted_graphs_at_one_to_four_ranks_equal_the_references() {
    let shared = outcore_io::shared_dir(env!("CARGO_MANIFEST_DIR")).join("data/graphalytics/evlp");
    for name in ["example-directed", "example-undirected"] {
        let dir = tempfile::tempdir().unwrap();
        let (source, gr) = load(&shared.join(format!("{name}.properties")), dir.path(), None, true);
        for ranks in [1, 2, 3, 4] {
            let pattern = parts(&source, dir.path(), ranks);
            for root in roots(&gr) {
                check_sssp(&gr, &pattern, ranks, root);
                check_bfs(&gr, &pattern, ranks, root, &bfs::BfsOptions::default());
            }
            check_pagerank(&gr, &pattern, ranks, Params { damping: 0.99, iterations: Some(30), tolerance: None });
            check_wcc(&gr, &pattern, ranks);
        }
    }
}

#[test]
fn graph500_across_one_to_four_ranks_validates_and_measures_what_one_machine_does() {
    // the single-machine benchmark from the same generator, seed and roots: its nedge per root
    let one = outcore::graph500::run(
        &outcore::graph500::Options { scale: 11, roots: 8, memory: 256 << 20, ..Default::default() },
        &outcore_io::NoProgress,
    )
    .unwrap();
    for ranks in [1, 2, 4] {
        let opts = outcore_dist::graph500::Graph500Options { scale: 11, edge_factor: 16, roots: 8, seed: 1, memory: 256 << 20, sssp: true };
        let outcomes = run_threads(ranks, |comm| outcore_dist::graph500::run(comm, &opts).unwrap());
        for r in &outcomes {
            assert_eq!(r.roots, 8);
            assert_eq!(r.vertices, 1 << 11);
            // every input edge is kept, both arcs of each
            assert_eq!(r.arcs, (2 * 16) << 11, "arcs at {ranks} ranks");
            assert_eq!(r.bfs.nedges, one.bfs.nedges, "Graph500 nedge per root at {ranks} ranks");
            let sp = r.sssp.as_ref().unwrap();
            assert_eq!(sp.times.len(), 8);
            assert_eq!(sp.nedges, r.bfs.nedges);
            assert!(r.bfs.times.iter().all(|&t| t > 0.0) && r.construction_seconds > 0.0 && r.generation_seconds > 0.0);
            if ranks > 1 {
                assert!(r.construction_bytes_sent > 0 && r.bfs_bytes_sent > 0);
            }
        }
    }
}

#[test]
fn the_validators_fail_damaged_results() {
    let shared = outcore_io::shared_dir(env!("CARGO_MANIFEST_DIR")).join("data/graphalytics/evlp/example-undirected.properties");
    let dir = tempfile::tempdir().unwrap();
    let (source, gr) = load(&shared, dir.path(), None, true);
    let pattern = parts(&source, dir.path(), 2);
    let root = roots(&gr)[0];
    let verdicts = run_threads(2, |comm| {
        let part = open(comm, &pattern);
        let mut b = bfs::bfs(&part, root, &Default::default(), None).unwrap().unwrap();
        let mut s = sssp::sssp(&part, root).unwrap().unwrap();
        let mut verdicts = vec![
            outcore_dist::statics::validate::validate_bfs(&part, root, &b).unwrap().is_ok(),
            outcore_dist::statics::validate::validate_sssp(&part, root, &s).unwrap().is_ok(),
        ];
        // rank 1 damages one reached vertex that is not the root: a level, then a parent, then a distance
        let damage = |level: &[u32]| (0..level.len()).find(|&i| level[i] != bfs::UNREACHED_LEVEL && level[i] > 0);
        let at = if comm.rank() == 1 { damage(&b.level) } else { None };
        if let Some(i) = at {
            b.level[i] += 1;
        }
        verdicts.push(outcore_dist::statics::validate::validate_bfs(&part, root, &b).unwrap().is_ok());
        if let Some(i) = at {
            b.level[i] -= 1;
            // its own parent
            match &mut b.parent {
                bfs::Parents::Ids(ids) => ids[i] = part.owned_id(i as u32),
                bfs::Parents::Narrow(ids) => ids[i] = bfs::NarrowId(part.owned_id(i as u32) as u32),
                bfs::Parents::Local(local) => local[i] = part.owned_vertex(i as u32),
            }
        }
        verdicts.push(outcore_dist::statics::validate::validate_bfs(&part, root, &b).unwrap().is_ok());
        if let Some(i) = at {
            s.distance[i] *= 0.5;
        }
        verdicts.push(outcore_dist::statics::validate::validate_sssp(&part, root, &s).unwrap().is_ok());
        (verdicts, at.is_some())
    });
    assert!(verdicts[1].1, "rank 1 had a vertex to damage");
    for (v, _) in &verdicts {
        assert_eq!(v, &vec![true, true, false, false, false], "every rank agrees: correct results pass, damaged ones fail");
    }
}

#[test]
fn sssp_refuses_a_negative_weight_on_every_rank() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("neg.wel");
    std::fs::write(&input, "1 2 1.0\n2 3 -2.0\n3 1 0.5\n4 5 1.0\n").unwrap();
    let source = dir.path().join("source");
    let opts = ImportOptions { directed: Some(true), weighted: true, ..Default::default() };
    import_file(&input, &source, &opts, &outcore_io::NoProgress).unwrap();
    let pattern = parts(&source, dir.path(), 2);
    let errors = run_threads(2, |comm| match sssp::sssp(&open(comm, &pattern), 1) {
        Ok(_) => String::new(),
        Err(e) => e.to_string(),
    });
    // the rank that read the edge names it; the other says which rank stopped the job
    assert!(errors.iter().any(|e| e.contains("weights must be non-negative for SSSP, and edge 2 -> 3 has weight -2")), "{errors:?}");
    assert!(errors.iter().all(|e| !e.is_empty()), "{errors:?}");
}

/// A part's tables, checked vertex by vertex at 1 to 4 ranks: every local
/// vertex is owned by this rank (its owned index lists it back) or a ghost
/// whose home is its owner by the partition's hash and, at that owner, the
/// vertex with its original id; owned and ghost indices each number their
/// vertices once; and the exchanges built on them carry each value to the
/// right vertex (a pull gives each ghost its own id, a push of every
/// ghost's id arrives at the owned vertex of that id, in rounds of 5).
#[test]
fn a_parts_places_and_exchanges_name_the_right_vertices() {
    /// A local vertex's original id, place, and (a ghost's) owner and index there.
    type LocalVertex = (u64, outcore_dist::part::Place, Option<(usize, u32)>);
    use outcore_dist::part::Place;
    let shared = outcore_io::shared_dir(env!("CARGO_MANIFEST_DIR")).join("data/real/CA-GrQc.txt");
    let dir = tempfile::tempdir().unwrap();
    let (source, gr) = load(&shared, dir.path(), Some(false), false);
    for ranks in [1, 2, 3, 4] {
        let pattern = parts(&source, dir.path(), ranks);
        // per rank: its owned ids, and per local vertex (id, place, home)
        let seen = run_threads(ranks, |comm| {
            let part = open(comm, &pattern);
            let places = part.places();
            let owned_ids: Vec<u64> = (0..part.owned_count()).map(|i| part.owned_id(i)).collect();
            let local: Vec<LocalVertex> = (0..part.original.len() as u32)
                .map(|v| {
                    let place = places.place(v);
                    let home = match place {
                        Place::Owned(i) => {
                            assert_eq!(part.owned_vertex(i), v, "rank {}: owned index {i} lists vertex {v}", comm.rank());
                            None
                        }
                        Place::Ghost(g) => Some(places.ghost_home(g)),
                    };
                    (part.original.get(v), place, home)
                })
                .collect();
            let pulled = part.pull_all(|i| part.owned_id(i));
            let ghost_ids: Vec<(u32, u64)> =
                local.iter().filter_map(|&(id, p, _)| if let Place::Ghost(g) = p { Some((g, id)) } else { None }).collect();
            for &(g, id) in &ghost_ids {
                assert_eq!(pulled[g as usize], id, "rank {}: ghost {g} pulled another vertex's value", comm.rank());
            }
            let mut arrived = 0usize;
            part.push_some(ghost_ids.iter().map(|&(g, id)| (g, [id])), |j, [id]| {
                assert_eq!(part.owned_id(j), id, "rank {}: a push for {id} arrived at owned index {j}", comm.rank());
                arrived += 1;
            });
            // every ghost's value, its id, as `push_all` sends it
            let mut arrived_all = 0usize;
            part.push_all(
                |g| pulled[g as usize],
                |j, id| {
                    assert_eq!(part.owned_id(j), id, "rank {}: push_all's {id} arrived at owned index {j}", comm.rank());
                    arrived_all += 1;
                },
            );
            assert_eq!(arrived_all, arrived, "rank {}: push_all and push_some of every ghost deliver as many", comm.rank());
            (owned_ids, local, part.ghost_count(), arrived, part.owner(0))
        });
        let total_ghosts: usize = seen.iter().map(|s| s.2).sum();
        assert_eq!(seen.iter().map(|s| s.3).sum::<usize>(), total_ghosts, "{ranks} ranks: every ghost's push arrives once");
        let mut owners = HashMap::new();
        for (r, (owned_ids, local, ghosts, _, _)) in seen.iter().enumerate() {
            let (mut owned_seen, mut ghost_seen) = (vec![false; owned_ids.len()], vec![false; *ghosts]);
            for &(id, place, home) in local {
                match (place, home) {
                    (Place::Owned(i), None) => {
                        assert!(!std::mem::replace(&mut owned_seen[i as usize], true), "rank {r}: owned index {i} twice");
                        assert_eq!(owned_ids[i as usize], id);
                        assert!(owners.insert(id, r).is_none(), "vertex {id} owned by two ranks");
                    }
                    (Place::Ghost(g), Some((q, j))) => {
                        assert!(!std::mem::replace(&mut ghost_seen[g as usize], true), "rank {r}: ghost index {g} twice");
                        assert_ne!(q, r, "rank {r}: ghost {id} at home on its own rank");
                        assert_eq!(seen[q].0[j as usize], id, "rank {r}: ghost {id}'s home is another vertex at rank {q}");
                    }
                    other => panic!("rank {r}: vertex {id}: {other:?}"),
                }
            }
            assert!(owned_seen.into_iter().all(|s| s) && ghost_seen.into_iter().all(|s| s), "rank {r}: indices with no vertex");
        }
        // every vertex of the graph owned once
        assert_eq!(owners.len(), gr.original.len(), "{ranks} ranks");
    }
}
