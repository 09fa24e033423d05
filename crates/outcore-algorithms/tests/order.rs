//! The vertex orderings of `--order` (CEESOR's DFS enumeration, descending
//! degree, BFS, reverse Cuthill-McKee) computed from stores, against plain
//! references written here from each order's stated rule: a recursive DFS
//! and enumeration (TR-823 section 3), a sort by degree, a queue. The
//! stores are undirected and directed (whose `in` lists are merged with
//! `out`), with many components; and the ordering's memory against its
//! stated minimum.

mod common;

use common::*;
use outcore_algorithms::order::{self, Order};
use outcore_ingest::{import_file, ImportOptions, NoProgress};
use outcore_io::Budget;
use outcore_store::Store;
use std::collections::VecDeque;
use std::path::Path;

fn import(input: &Path, dir: &Path, directed: bool) -> Store {
    let out = dir.join("s");
    let opts = ImportOptions { directed: Some(directed), in_layout: directed, ..Default::default() };
    import_file(input, &out, &opts, &NoProgress).unwrap();
    Store::open(&out).unwrap()
}

/// The graph as the orderings see it.
struct Seen {
    /// Each vertex's neighbours in either direction, ascending, without
    /// repeats or itself.
    lists: Vec<Vec<u64>>,
    /// Out-degree plus in-degree (the store's, loops and arcs both ways
    /// counted as stored): what "degree" means to the orders.
    degree: Vec<u64>,
}

/// From the store's scans of `out` (and `in`).
fn seen(store: &Store) -> Seen {
    let n = store.vertices() as usize;
    let (mut lists, mut degree) = (vec![Vec::new(); n], vec![0u64; n]);
    let layouts: &[&str] = if store.manifest().directed { &["out", "in"] } else { &["out"] };
    for layout in layouts {
        let mut scan = store.layout(layout).unwrap().scan().unwrap();
        while let Some((v, targets, _)) = scan.next_list().unwrap() {
            degree[v as usize] += targets.len() as u64;
            lists[v as usize].extend(targets.iter().filter(|&&u| u != v));
        }
    }
    for l in &mut lists {
        l.sort_unstable();
        l.dedup();
    }
    Seen { lists, degree }
}

/// new_of_old from the old ids in their new order.
fn numbered(sequence: &[u64]) -> Vec<u32> {
    let mut new_of_old = vec![u32::MAX; sequence.len()];
    for (new, &old) in sequence.iter().enumerate() {
        assert_eq!(new_of_old[old as usize], u32::MAX, "vertex {old} numbered twice");
        new_of_old[old as usize] = new as u32;
    }
    new_of_old
}

/// Descending degree, ties by id.
fn by_degree(g: &Seen) -> Vec<u32> {
    let mut vertices: Vec<u64> = (0..g.lists.len() as u64).collect();
    vertices.sort_by(|&a, &b| g.degree[b as usize].cmp(&g.degree[a as usize]).then(a.cmp(&b)));
    numbered(&vertices)
}

/// Breadth first, components from the lowest id and neighbours by id; or
/// Cuthill-McKee (components from a vertex of least degree, neighbours by
/// ascending degree, ties by id), reversed.
fn breadth_first(g: &Seen, cuthill_mckee: bool) -> Vec<u32> {
    let (lists, degree) = (&g.lists, |v: u64| g.degree[v as usize]);
    let mut starts: Vec<u64> = (0..lists.len() as u64).collect();
    if cuthill_mckee {
        starts.sort_by_key(|&v| (degree(v), v));
    }
    let mut seen = vec![false; lists.len()];
    let mut sequence = Vec::new();
    for s in starts {
        if seen[s as usize] {
            continue;
        }
        seen[s as usize] = true;
        let mut queue = VecDeque::from([s]);
        while let Some(v) = queue.pop_front() {
            sequence.push(v);
            let mut fresh: Vec<u64> = lists[v as usize].iter().copied().filter(|&u| !seen[u as usize]).collect();
            if cuthill_mckee {
                fresh.sort_by_key(|&u| (degree(u), u));
            }
            for u in fresh {
                seen[u as usize] = true;
                queue.push_back(u);
            }
        }
    }
    if cuthill_mckee {
        sequence.reverse();
    }
    numbered(&sequence)
}

/// CEESOR's enumeration, recursively: a DFS forest (roots by id,
/// neighbours by id), then each tree with its heaviest subtree first (the
/// first of equals), the others in the order the DFS found them, and each
/// vertex placed as soon as the subtrees before it weigh at least half of
/// its own subtree (a leaf at once).
fn ceesor(lists: &[Vec<u64>]) -> Vec<u32> {
    fn explore(v: u64, lists: &[Vec<u64>], seen: &mut [bool], children: &mut [Vec<u64>], weight: &mut [u64]) {
        for &u in &lists[v as usize] {
            if !seen[u as usize] {
                seen[u as usize] = true;
                children[v as usize].push(u);
                explore(u, lists, seen, children, weight);
                weight[v as usize] += weight[u as usize];
            }
        }
    }
    fn place(v: u64, children: &[Vec<u64>], weight: &[u64], sequence: &mut Vec<u64>) {
        let kids = &children[v as usize];
        let mut turn: Vec<u64> = kids.clone();
        if let Some(heaviest) = (0..kids.len()).max_by_key(|&i| (weight[kids[i] as usize], std::cmp::Reverse(i))) {
            turn.remove(heaviest);
            turn.insert(0, kids[heaviest]);
        }
        let (mut done, mut placed) = (0, false);
        for c in turn {
            if !placed && 2 * done >= weight[v as usize] {
                sequence.push(v);
                placed = true;
            }
            done += weight[c as usize];
            place(c, children, weight, sequence);
        }
        if !placed {
            sequence.push(v);
        }
    }
    let n = lists.len();
    let (mut seen, mut children, mut weight) = (vec![false; n], vec![Vec::new(); n], vec![1u64; n]);
    let mut sequence = Vec::new();
    for root in 0..n as u64 {
        if !seen[root as usize] {
            seen[root as usize] = true;
            explore(root, lists, &mut seen, &mut children, &mut weight);
            place(root, &children, &weight, &mut sequence);
        }
    }
    numbered(&sequence)
}

/// The reference of `order`, on a thread with room for the recursion.
fn reference(g: &Seen, order: Order) -> Vec<u32> {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn_scoped(scope, || match order {
                Order::None => (0..g.lists.len() as u32).collect(),
                Order::Dfs => ceesor(&g.lists),
                Order::Degree => by_degree(g),
                Order::Bfs => breadth_first(g, false),
                Order::Rcm => breadth_first(g, true),
            })
            .unwrap()
            .join()
            .unwrap()
    })
}

/// Every order computed from the store equals its reference, within its
/// stated minimum (beside nothing else), and one byte less is refused.
fn orders_equal_their_references(store: &Store, what: &str) {
    let g = seen(store);
    for order in Order::ALL {
        let want = reference(&g, order);
        let minimum = order::minimum_bytes(store, order).unwrap();
        let got = bounded(order.name(), || order::compute(store, order, &Budget::new(minimum)))
            .unwrap_or_else(|e| panic!("{what}: {} at its minimum of {minimum} bytes: {e}", order.name()));
        assert!(order::is_permutation(&got), "{what}: {}", order.name());
        let differ = (0..want.len()).filter(|&v| got[v] != want[v]).count();
        assert_eq!(differ, 0, "{what}: {} numbers {differ} of {} vertices unlike its reference", order.name(), want.len());
        if order != Order::None {
            let err = order::compute(store, order, &Budget::new(minimum - 1)).err();
            assert!(err.is_some(), "{what}: {} ran one byte under its stated minimum", order.name());
        }
    }
}

#[test]
fn orders_equal_their_references_on_an_undirected_graph_of_many_components() {
    // a Kronecker graph of scale 12 leaves many vertices isolated and some
    // small components beside the giant one; a few hand-made pieces more
    let dir = tempfile::tempdir().unwrap();
    let input = kronecker_edges(dir.path(), "k12.el", 12, 8, 5);
    // a path, a star and a triangle past the Kronecker ids
    let mut text = std::fs::read_to_string(&input).unwrap();
    for (a, b) in
        [(5000, 5001), (5001, 5002), (5002, 5003), (6000, 6001), (6000, 6002), (6000, 6003), (7000, 7001), (7001, 7002), (7002, 7000)]
    {
        text.push_str(&format!("{a} {b}\n"));
    }
    std::fs::write(&input, text).unwrap();
    let store = import(&input, dir.path(), false);
    let g = seen(&store);
    let lists = &g.lists;
    let components = {
        let bfs = reference(&g, Order::Bfs);
        // a component's start is the vertex BFS numbers right after the previous component's end
        let mut by_new = vec![0u64; lists.len()];
        for (old, &new) in bfs.iter().enumerate() {
            by_new[new as usize] = old as u64;
        }
        let mut seen = vec![false; lists.len()];
        let mut count = 0;
        for &v in &by_new {
            if !seen[v as usize] {
                count += 1;
                let mut stack = vec![v];
                seen[v as usize] = true;
                while let Some(x) = stack.pop() {
                    for &u in &lists[x as usize] {
                        if !std::mem::replace(&mut seen[u as usize], true) {
                            stack.push(u);
                        }
                    }
                }
            }
        }
        count
    };
    assert!(components > 3, "only {components} components");
    orders_equal_their_references(&store, "Kronecker 12 and pieces");
}

#[test]
fn orders_equal_their_references_on_a_directed_graph() {
    // wiki-Vote: arcs in both directions between some pairs, which the
    // orderings see as one undirected edge
    let dir = tempfile::tempdir().unwrap();
    let store = import(&shared().join("real/wiki-Vote.txt"), dir.path(), true);
    orders_equal_their_references(&store, "wiki-Vote");
}

/// A directed store without `in` cannot be seen as undirected: the
/// ordering says which layout to add.
#[test]
fn a_directed_store_without_in_is_refused_with_the_command_that_adds_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s");
    let opts = ImportOptions { directed: Some(true), in_layout: false, ..Default::default() };
    import_file(&shared().join("real/wiki-Vote.txt"), &out, &opts, &NoProgress).unwrap();
    let store = Store::open(&out).unwrap();
    for order in [Order::Dfs, Order::Degree, Order::Bfs, Order::Rcm] {
        let err = order::compute(&store, order, &Budget::unlimited()).expect_err("needs in");
        assert!(err.to_string().contains("outcore layout add STORE in"), "{}: {err}", order.name());
    }
}

/// The names `--order` takes (README: none, dfs, degree, bfs, rcm), each
/// read back as its order.
#[test]
fn each_order_is_read_back_from_its_name() {
    assert_eq!(Order::names(), "none, dfs, degree, bfs, rcm");
    for order in Order::ALL {
        assert_eq!(Order::from_name(order.name()), Some(order), "{}", order.name());
    }
    assert_eq!(Order::from_name("DFS"), None);
    assert_eq!(Order::from_name(""), None);
}

/// The permutation check the tests above (and tests/encodings.rs) rely on
/// accepts exactly the permutations of 0..n.
#[test]
fn the_permutation_check_accepts_exactly_permutations() {
    for p in [&[][..], &[0], &[2, 0, 1], &[3, 1, 0, 2]] {
        assert!(order::is_permutation(p), "{p:?}");
    }
    // a repeat, an id out of range (at and past n), both
    for p in [&[0, 0][..], &[1, 1, 0], &[0, 2], &[0, 1, 5], &[3, 3, 3]] {
        assert!(!order::is_permutation(p), "{p:?}");
    }
}
