//! `outcore dynamic` end to end: BFS and PageRank on the dynamic store
//! equal the static engines on its snapshot; a process killed mid-apply
//! leaves a store that reopens at its last commit; bad streams and damaged
//! stores get one-line errors and leave the store as it was; the
//! colouring is proper after every batch.

mod common;
use common::{edge_lines, outcore};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;

fn ok(args: &[&str]) -> String {
    let (code, out, err) = outcore(args);
    assert_eq!(code, 0, "outcore {args:?}: {err}");
    out
}

fn shared() -> PathBuf {
    outcore_io::shared_dir(env!("CARGO_MANIFEST_DIR")).join("data")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn pairs(path: &Path) -> HashMap<u64, String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let (v, x) = l.split_once(' ').unwrap();
            (v.parse().unwrap(), x.to_string())
        })
        .collect()
}

/// Deletes of every 7th edge, inserts of new edges, and a vertex delete.
fn churn(edges: &[(u64, u64)]) -> String {
    let mut text = String::from("# churn\n");
    for (i, &(u, v)) in edges.iter().enumerate() {
        if i % 7 == 0 {
            text.push_str(&format!("- {u} {v}\n"));
        }
        if i % 11 == 0 {
            text.push_str(&format!("+ {u} {}\n", edges[(i * 31) % edges.len()].1));
        }
    }
    text.push_str(&format!("- {}\n", edges[5].0));
    text
}

fn stats(store: &Path) -> serde_json::Value {
    serde_json::from_str(&ok(&["dynamic", "stats", s(store), "--json", "--check"])).unwrap()
}

#[test]
fn bfs_and_pagerank_equal_the_static_engines_on_the_snapshot() {
    let d = tempfile::tempdir().unwrap();
    for (graph, undirected) in [("CA-GrQc.txt", true), ("wiki-Vote.txt", false)] {
        let input = shared().join("real").join(graph);
        let store = d.path().join(format!("{graph}.dyn"));
        let mut create = vec!["dynamic", "create", s(&store), "--partitions", "3"];
        if undirected {
            create.push("--undirected");
        }
        ok(&create);
        let edges = edge_lines(&input);
        let updates = d.path().join("churn.updates");
        std::fs::write(&updates, churn(&edges)).unwrap();
        let out = ok(&["dynamic", "apply", s(&store), s(&input), s(&updates)]);
        assert!(out.contains("deleted"), "{out}");
        assert_eq!(stats(&store)["check"], "ok");
        let snap = d.path().join(format!("{graph}.snap"));
        ok(&["dynamic", "snapshot", s(&store), s(&snap), "--layouts", "out,tiles"]);
        let root = edges[100].0.to_string();
        let (a, b) = (d.path().join("a.txt"), d.path().join("b.txt"));
        ok(&["dynamic", "bfs", s(&store), "--root", &root, "--output", s(&a), "--force"]);
        ok(&["bfs", s(&snap), "--root", &root, "--output", s(&b), "--force"]);
        let (dynamic, fixed) = (pairs(&a), pairs(&b));
        assert_eq!(dynamic.len(), fixed.len(), "{graph}: vertex sets differ");
        let differ: Vec<_> = fixed.iter().filter(|(v, l)| dynamic.get(v) != Some(l)).take(5).collect();
        assert!(differ.is_empty(), "{graph}: BFS levels differ (static: {differ:?})");
        ok(&["dynamic", "pagerank", s(&store), "--iterations", "10", "--output", s(&a), "--force"]);
        ok(&["pagerank", s(&snap), "--iterations", "10", "--output", s(&b), "--force"]);
        let (dynamic, fixed) = (pairs(&a), pairs(&b));
        assert_eq!(dynamic.len(), fixed.len());
        for (v, x) in &fixed {
            let (x, y): (f64, f64) = (x.parse().unwrap(), dynamic[v].parse().unwrap());
            assert!((x - y).abs() <= 1e-9 * x.abs().max(1e-12), "{graph}: rank of {v}: static {x}, dynamic {y}");
        }
    }
}

#[test]
fn a_killed_apply_reopens_at_the_last_commit() {
    let d = tempfile::tempdir().unwrap();
    let store = d.path().join("dyn");
    ok(&["dynamic", "create", s(&store), "--undirected", "--partitions", "2"]);
    let first = d.path().join("first.updates");
    let mut text = String::new();
    for i in 0..20_000u64 {
        text.push_str(&format!("+ {} {}\n", i % 3000, (i * 7919) % 5000));
    }
    std::fs::write(&first, &text).unwrap();
    ok(&["dynamic", "apply", s(&store), s(&first)]);
    let before = stats(&store);
    let levels = d.path().join("before.txt");
    ok(&["dynamic", "bfs", s(&store), "--root", "1", "--output", s(&levels), "--force"]);
    // A long stream of inserts and deletes touching the committed tables.
    let second = d.path().join("second.updates");
    let mut text = String::new();
    for i in 0..3_000_000u64 {
        let (u, v) = ((i * 2654435761) % 6000, (i * 40503) % 9000);
        text.push_str(&if i % 3 == 0 { format!("- {} {}\n", i % 3000, (i * 7919) % 5000) } else { format!("+ {u} {v}\n") });
    }
    std::fs::write(&second, &text).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_outcore"))
        .args(["dynamic", "apply", s(&store), s(&second), "--memory", "64M"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(700));
    child.kill().unwrap(); // SIGKILL
    let status = child.wait().unwrap();
    assert!(status.code().is_none(), "apply finished before the kill; make the second stream longer");
    let after = stats(&store);
    assert_eq!(after["check"], "ok");
    assert_eq!(after["arcs"], before["arcs"], "the store is not at its last commit");
    assert_eq!(after["commit"], before["commit"]);
    let now = d.path().join("after.txt");
    ok(&["dynamic", "bfs", s(&store), "--root", "1", "--output", s(&now), "--force"]);
    assert_eq!(pairs(&now), pairs(&levels));
    // and it takes updates again
    ok(&["dynamic", "apply", s(&store), s(&first)]);
    assert_eq!(stats(&store)["arcs"], before["arcs"]);
}

#[test]
fn bad_streams_and_damaged_stores_get_one_line_errors() {
    let d = tempfile::tempdir().unwrap();
    let store = d.path().join("dyn");
    ok(&["dynamic", "create", s(&store), "--weighted"]);
    let good = d.path().join("good.updates");
    std::fs::write(&good, "+ 1 2 0.5\n+ 2 3\n- 4 5\n- 9\n").unwrap();
    let out = ok(&["dynamic", "apply", s(&store), s(&good)]);
    assert!(out.contains("1 deletes of missing edges") && out.contains("1 deletes of missing vertices"), "{out}");
    let before = stats(&store);
    let cases: [(&str, &[u8], &str); 6] = [
        ("a.updates", b"+ 5 6\n+ 7 x\n", "a.updates:2: 'x' is not a vertex id"),
        ("b.updates", b"+ 5 6\n* 1 2\n", "b.updates:2: unknown operation '*'"),
        ("c.updates", b"- 1 2 3\n", "c.updates:1: '-' takes 1 (vertex) or 2 (edge) fields, found 3"),
        ("d.updates", b"+ 1 2 heavy\n", "d.updates:1: 'heavy' is not a number"),
        ("e.updb", b"OCUPD\x01\0\0\x01\0\0\0\0\0\x80\x3f\x01\0\0\0\0\0\0\0\x02\0", "e.updb: byte 8: truncated record"),
        ("f.updb", b"NOTMAGIC", "f.updb: not a binary update stream"),
    ];
    for (name, bytes, needle) in cases {
        let f = d.path().join(name);
        std::fs::write(&f, bytes).unwrap();
        let (code, _, err) = outcore(&["dynamic", "apply", s(&store), s(&f)]);
        assert_ne!(code, 0);
        let err = err.trim_end();
        assert!(err.starts_with("error: ") && !err.contains('\n') && err.contains(needle), "{name}: {err:?}");
        assert_eq!(stats(&store)["arcs"], before["arcs"], "{name} changed the store");
    }
    assert_eq!(ok(&["dynamic", "query", s(&store), "neighbours", "1"]).trim(), "2 0.5");
    // Another version, a damaged state file, a truncated heap.
    let state = store.join("STATE");
    let text = std::fs::read_to_string(&state).unwrap();
    std::fs::write(&state, text.replace("\"version\": 1", "\"version\": 99")).unwrap();
    let (code, _, err) = outcore(&["dynamic", "stats", s(&store)]);
    assert!(code != 0 && err.contains("written by store version 99"), "{err}");
    std::fs::write(&state, &text[..text.len() / 2]).unwrap();
    let (code, _, err) = outcore(&["dynamic", "stats", s(&store)]);
    assert!(code != 0 && err.contains("STATE: not a dynamic store state file"), "{err}");
    std::fs::write(&state, &text).unwrap();
    let heap = store.join("part-0.heap");
    std::fs::OpenOptions::new().write(true).open(&heap).unwrap().set_len(100).unwrap();
    let (code, _, err) = outcore(&["dynamic", "stats", s(&store)]);
    assert!(code != 0 && err.contains("part-0.heap") && err.contains("truncated"), "{err}");
}

#[test]
fn colouring_is_proper_after_every_batch() {
    let d = tempfile::tempdir().unwrap();
    let store = d.path().join("dyn");
    ok(&["dynamic", "create", s(&store), "--undirected", "--partitions", "2"]);
    let input = shared().join("real/CA-GrQc.txt");
    let edges = edge_lines(&input);
    ok(&["dynamic", "apply", s(&store), s(&input)]);
    let updates = d.path().join("churn.updates");
    std::fs::write(&updates, churn(&edges)).unwrap();
    let colours = d.path().join("colours.txt");
    let out = ok(&["dynamic", "color", s(&store), s(&updates), "--check", "--memory", "64M", "--output", s(&colours), "--force"]);
    assert!(out.contains("proper after each of"), "{out}");
    // Independently: the final edge set from the inputs, and the colours file.
    let mut set: HashSet<(u64, u64)> = HashSet::new();
    for &(u, v) in &edges {
        set.insert((u.min(v), u.max(v)));
    }
    for line in std::fs::read_to_string(&updates).unwrap().lines().skip(1) {
        let f: Vec<u64> = line[2..].split(' ').map(|x| x.parse().unwrap()).collect();
        match (&line[..1], f.len()) {
            ("+", 2) => {
                set.insert((f[0].min(f[1]), f[0].max(f[1])));
            }
            ("-", 2) => {
                set.remove(&(f[0].min(f[1]), f[0].max(f[1])));
            }
            ("-", 1) => set.retain(|&(a, b)| a != f[0] && b != f[0]),
            _ => unreachable!(),
        }
    }
    let c: HashMap<u64, String> = pairs(&colours);
    let mut conflicts = 0;
    for &(u, v) in &set {
        if u != v && c[&u] == c[&v] {
            conflicts += 1;
        }
    }
    assert_eq!(conflicts, 0);
    let used: HashSet<&String> = c.values().collect();
    assert!(used.len() >= 2 && used.len() < 60, "{} colours", used.len());
}
