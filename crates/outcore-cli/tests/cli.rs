//! The `outcore` binary end to end: bad input gets a one-line error that
//! names the file, the line or byte, and the reason; nothing half-written
//! is left that looks like a store; good input round-trips.

mod common;
use common::{bounded, outcore, tmpfs};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn shared() -> PathBuf {
    outcore_io::shared_dir(env!("CARGO_MANIFEST_DIR")).join("data")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Import must fail with one line containing every `needles`, leave no
/// store and no staging directory behind.
fn assert_import_fails(dir: &Path, input: &Path, extra: &[&str], needles: &[&str]) {
    let store = dir.join("store");
    let mut args = vec!["import", s(input), "-o", s(&store)];
    args.extend_from_slice(extra);
    let (code, _, err) = outcore(&args);
    assert_ne!(code, 0, "{input:?} should fail");
    let err = err.trim_end();
    assert!(err.starts_with("error: ") && !err.contains('\n'), "not one line: {err:?}");
    for n in needles {
        assert!(err.contains(n), "message {err:?} lacks {n:?}");
    }
    assert!(!store.exists(), "a store was left behind");
    let leftovers: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("partial"))
        .collect();
    assert!(leftovers.is_empty(), "staging left behind: {leftovers:?}");
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn malformed_lines_name_file_line_and_reason() {
    let d = tempfile::tempdir().unwrap();
    let f = write(d.path(), "g.el", b"1 2\n3 x\n");
    assert_import_fails(d.path(), &f, &[], &["g.el:2:", "'x' is not a vertex id"]);
    let f = write(d.path(), "one.txt", b"# c\n1 2\n7\n");
    assert_import_fails(d.path(), &f, &[], &["one.txt:3:", "expected 2 columns"]);
    let f = write(d.path(), "w.wel", b"1 2 0.5\n2 3\n");
    assert_import_fails(d.path(), &f, &[], &["w.wel:2:", "expected 3 columns"]);
    let f = write(d.path(), "w2.wel", b"1 2 heavy\n");
    assert_import_fails(d.path(), &f, &[], &["w2.wel:1:", "'heavy' is not a number"]);
    let f = write(d.path(), "bad.el.gz", b"\x1f\x8b\x08\x00garbage");
    assert_import_fails(d.path(), &f, &[], &["bad.el.gz", "gzip"]);
}

#[test]
fn wrong_headers_are_reported() {
    let d = tempfile::tempdir().unwrap();
    let f = write(d.path(), "g.graph", b"3 5\n2\n1 3\n2\n");
    assert_import_fails(d.path(), &f, &[], &["g.graph:1:", "declares 5 edges but the rows list 4 endpoints"]);
    let f = write(d.path(), "rows.graph", b"4 1\n2\n1\n");
    assert_import_fails(d.path(), &f, &[], &["rows.graph:1:", "declares 4 vertices but the file has 2 rows"]);
    let f = write(d.path(), "a.mtx", b"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n");
    assert_import_fails(d.path(), &f, &[], &["a.mtx:1:", "'array' matrices are not graphs"]);
    let f = write(d.path(), "n.mtx", b"%%MatrixMarket matrix coordinate pattern general\n3 3 4\n1 2\n2 3\n");
    assert_import_fails(d.path(), &f, &[], &["n.mtx:2:", "declares 4 entries but the file has 2"]);
    // found by bench/fuzz: a 1 KB file declaring billions of (isolated) vertices wrote a 25 GB index
    let f = write(d.path(), "huge.mtx", b"%%MatrixMarket matrix coordinate pattern general\n3117806079 3 1\n1 2\n");
    assert_import_fails(
        d.path(),
        &f,
        &[],
        &["huge.mtx:2:", "declares a 3117806079 x 3 matrix, more vertices than a 68-byte file may declare"],
    );
    // found by bench/afl: an entry count near 2^62 overflowed the bucket sizing (a panic)
    let f = write(d.path(), "many.mtx", b"%%MatrixMarket matrix coordinate integer general\n8179 16721 3333333333333333333\n1 2 3\n");
    assert_import_fails(d.path(), &f, &[], &["many.mtx:", "declares 3333333333333333333 entries but the file has 1"]);
    let f = write(d.path(), "many.graph", b"2 18446744073709551615\n2\n1\n");
    assert_import_fails(d.path(), &f, &[], &["many.graph:1:", "declares 18446744073709551615 edges"]);
    let f = write(d.path(), "h.mtx", b"%%MatrixMarket matrix coordinate pattern general\n3 3\n");
    assert_import_fails(d.path(), &f, &[], &["h.mtx:2:", "size line must be 'rows cols entries'"]);
    write(d.path(), "ga.v", b"1\n2\n3\n");
    write(d.path(), "ga.e", b"1 2\n2 3\n");
    let p = write(d.path(), "ga.properties", b"graph.ga.directed = true\ngraph.ga.meta.edges = 3\n");
    assert_import_fails(d.path(), &p, &[], &["ga.properties", "meta.edges = 3 but", "lists 2 edges"]);
    let f = write(d.path(), "sym.mtx", b"%%MatrixMarket matrix coordinate pattern symmetric\n2 2 1\n2 1\n");
    assert_import_fails(d.path(), &f, &["--directed"], &["sym.mtx:2:", "undirected by definition"]);
}

#[test]
fn ids_out_of_range_are_reported() {
    let d = tempfile::tempdir().unwrap();
    let f = write(d.path(), "g.graph", b"3 2\n2 9\n1\n\n");
    assert_import_fails(d.path(), &f, &[], &["g.graph:2:", "neighbour 9 out of range 1..=3"]);
    let f = write(d.path(), "g.el", b"0 1\n1 2\n2 5\n");
    assert_import_fails(d.path(), &f, &["--num-vertices", "3"], &["g.el:3:", "vertex id 5 out of range 0..3"]);
    let f = write(d.path(), "m.mtx", b"%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n4 1\n");
    assert_import_fails(d.path(), &f, &[], &["m.mtx:4:", "outside the 3 x 3 matrix"]);
    write(d.path(), "gv.v", b"1\n2\n");
    write(d.path(), "gv.e", b"1 2\n2 7\n");
    let p = write(d.path(), "gv.properties", b"graph.gv.directed = true\n");
    assert_import_fails(d.path(), &p, &[], &["gv.e:2:", "vertex 7 is not in the vertex list"]);
    let f = write(d.path(), "big.el", b"1 99999999999999999999999\n");
    assert_import_fails(d.path(), &f, &[], &["big.el:1:", "not a vertex id"]);
}

/// Found by bench/afl: an id near 2^63 overflowed the id bitmap's size (a
/// panic). Ids anywhere in u64 are ids: such a graph imports, through the
/// external id map, and keeps its original ids.
#[test]
fn ids_near_the_top_of_u64_import() {
    let d = tempfile::tempdir().unwrap();
    let f = write(d.path(), "g.el", b"0 9444444444444444444\n9444444444444444444 18446744073709551615\n");
    let store = d.path().join("store");
    let (code, _, err) = outcore(&["import", s(&f), "-o", s(&store), "--quiet"]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = outcore(&["export", s(&store), "-o", s(&d.path().join("back.el")), "--quiet"]);
    assert_eq!(code, 0, "{err}{out}");
    let mut lines: Vec<String> = std::fs::read_to_string(d.path().join("back.el")).unwrap().lines().map(String::from).collect();
    lines.sort();
    assert_eq!(lines, ["0 9444444444444444444", "9444444444444444444 18446744073709551615"]);
}

#[test]
fn truncated_binary_and_missing_files() {
    let d = tempfile::tempdir().unwrap();
    let f = write(d.path(), "g.bin32", &[1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 5, 0, 0, 0]);
    assert_import_fails(d.path(), &f, &[], &["g.bin32: byte 16:", "truncated: 4 trailing bytes"]);
    let f = write(d.path(), "g.bin64", &[0u8; 20]);
    assert_import_fails(d.path(), &f, &[], &["g.bin64: byte 16:", "truncated"]);
    assert_import_fails(d.path(), &d.path().join("nope.el"), &[], &["nope.el: no such file"]);
    let f = write(d.path(), "g.xyz", b"1 2\n");
    assert_import_fails(d.path(), &f, &[], &["g.xyz", "pass --format"]);
}

#[test]
fn existing_output_needs_force_and_force_replaces_it() {
    let d = tempfile::tempdir().unwrap();
    let a = write(d.path(), "a.el", b"0 1\n1 2\n");
    let b = write(d.path(), "b.el", b"5 6\n");
    let store = d.path().join("store");
    assert_eq!(outcore(&["import", s(&a), "-o", s(&store)]).0, 0);
    let before = std::fs::read(store.join("manifest.json")).unwrap();
    let (code, _, err) = outcore(&["import", s(&b), "-o", s(&store)]);
    assert_ne!(code, 0);
    assert!(err.contains("already exists") && err.contains("--force"), "{err}");
    assert_eq!(std::fs::read(store.join("manifest.json")).unwrap(), before, "existing store touched");
    // a failing --force import leaves the old store intact
    let bad = write(d.path(), "bad.el", b"1 q\n");
    assert_ne!(outcore(&["import", s(&bad), "-o", s(&store), "--force"]).0, 0);
    assert_eq!(std::fs::read(store.join("manifest.json")).unwrap(), before);
    assert_eq!(outcore(&["import", s(&b), "-o", s(&store), "--force"]).0, 0);
    let (_, out, _) = outcore(&["info", s(&store), "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!((v["vertices"].as_u64(), v["edges"].as_u64()), (Some(2), Some(1)));
}

#[test]
fn full_disk_fails_cleanly() {
    let d = tempfile::tempdir().unwrap();
    let mnt = d.path().join("small");
    std::fs::create_dir(&mnt).unwrap();
    let _guard = tmpfs(&mnt, "512k");
    let input = shared().join("real/MIT8.edgelist");
    assert_import_fails(&mnt, &input, &["--undirected", "--memory", "64M"], &["No space left on device", "small/."]);
    assert_eq!(std::fs::read_dir(&mnt).unwrap().count(), 0, "files left on the full disk");
}

#[test]
fn damaged_stores_are_detected() {
    let d = tempfile::tempdir().unwrap();
    let store = d.path().join("store");
    assert_eq!(outcore(&["import", s(&shared().join("real/wiki-Vote.txt")), "-o", s(&store)]).0, 0);
    let (code, out, _) = outcore(&["info", s(&store), "--verify"]);
    assert_eq!(code, 0);
    // idmap, out.ef, out.adj and its page checksums out.adj.pages
    assert!(out.contains("all 4 files match"), "{out}");
    let adj = store.join("out.adj");
    let mut bytes = std::fs::read(&adj).unwrap();
    bytes[1000] ^= 0x40;
    std::fs::write(&adj, &bytes).unwrap();
    let (code, _, err) = outcore(&["info", s(&store), "--verify"]);
    assert_ne!(code, 0);
    assert!(err.contains("out.adj: checksum mismatch in block 0"), "{err}");
    std::fs::write(&adj, &bytes[..bytes.len() - 4]).unwrap();
    let (_, _, err) = outcore(&["info", s(&store)]);
    assert!(err.contains("out.adj: is") && err.contains("store damaged"), "{err}");
    std::fs::remove_file(store.join("manifest.json")).unwrap();
    let (code, _, err) = outcore(&["info", s(&store)]);
    assert_ne!(code, 0);
    assert!(err.contains("not a complete outcore store"), "{err}");
}

#[test]
fn generate_to_file_then_import_equals_generate_into_store() {
    let d = tempfile::tempdir().unwrap();
    let el = d.path().join("k.bin32");
    let (code, _, err) = outcore(&["generate", "kronecker", "--scale", "12", "--edge-factor", "8", "--seed", "3", "-o", s(&el)]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::metadata(&el).unwrap().len(), 8 * 4096 * 8);
    let direct = d.path().join("direct");
    assert_eq!(outcore(&["generate", "kronecker", "--scale", "12", "--edge-factor", "8", "--seed", "3", "--store", s(&direct)]).0, 0);
    let imported = d.path().join("imported");
    let (code, _, err) = outcore(&[
        "import",
        s(&el),
        "-o",
        s(&imported),
        "--undirected",
        "--num-vertices",
        "4096",
        "--memory",
        "40M",
        "--sort-buffer",
        "256K",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.is_empty(), "no progress output when stderr is piped: {err:?}");
    for f in ["out.ef", "out.adj"] {
        assert!(std::fs::read(direct.join(f)).unwrap() == std::fs::read(imported.join(f)).unwrap(), "{f} differs");
    }
    let (_, out, _) = outcore(&["info", s(&direct), "--json", "--verify"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["vertices"], 4096);
    assert_eq!(v["directed"], false);
    assert_eq!(v["verify"]["ok"], true);
    assert!(v["degrees"]["out"]["max"].as_u64().unwrap() > 20 * v["degrees"]["out"]["mean"].as_f64().unwrap() as u64);
}

/// The budget is a promise that includes the page cache: run the demo
/// under memcap (a memory cgroup) with the cap equal to the budget.
#[test]
fn demo_runs_under_a_budget_smaller_than_its_store() {
    let memcap = outcore_io::shared_dir(env!("CARGO_MANIFEST_DIR")).join("tools/memcap");
    let (code, out, err) =
        bounded(Command::new(memcap).args(["48M", "--", env!("CARGO_BIN_EXE_outcore"), "demo", "--scale", "19", "--memory", "48M"]));
    assert_eq!(code, 0, "killed or failed under a 48 MiB cap: {err}");
    assert!(err.contains("failcnt=0") || !err.contains("failcnt"), "{err}");
    assert!(out.contains("the graph does not fit in the budget"), "{out}");
    assert!(out.contains("degrees") && out.contains("top:"), "{out}");
    assert!(out.contains("pagerank") && out.contains("ranks sum to 1.0000"), "{out}");
}

fn graphalytics_case(d: &Path, name: &str) -> PathBuf {
    let store = d.join(name);
    if store.exists() {
        return store;
    }
    let props = shared().join(format!("graphalytics/evlp/{name}.properties"));
    let (code, _, err) = outcore(&["import", s(&props), "-o", s(&store), "--layouts", "out,in"]);
    assert_eq!(code, 0, "{err}");
    store
}

fn read_pairs(path: &Path) -> Vec<(String, String)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| {
            let (a, b) = l.split_once(' ').unwrap();
            (a.to_string(), b.to_string())
        })
        .collect()
}

/// An output file names each vertex once, the same vertices in the same
/// order as the expected file, before any value is compared.
fn assert_same_vertices(got: &[(String, String)], want: &[(String, String)], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: {} lines for {} vertices", got.len(), want.len());
    let mut seen = std::collections::HashSet::new();
    for ((v1, _), (v2, _)) in got.iter().zip(want) {
        assert_eq!(v1, v2, "{what}: vertex order");
        assert!(seen.insert(v1), "{what}: vertex {v1} twice");
    }
}

fn property(name: &str, key: &str) -> String {
    let text = std::fs::read_to_string(shared().join(format!("graphalytics/evlp/{name}.properties"))).unwrap();
    text.lines()
        .find_map(|l| l.split_once('=').filter(|(k, _)| k.trim() == format!("graph.{name}.{key}")).map(|(_, v)| v.trim().to_string()))
        .unwrap()
}

/// `bfs`, `sssp` and `wcc --output` reproduce the Graphalytics reference
/// files, in every direction mode, with the prefetcher on and off, and with
/// a budget that leaves the cache its minimum.
#[test]
fn traversal_outputs_match_graphalytics() {
    let d = tempfile::tempdir().unwrap();
    let modes: [&[&str]; 4] = [
        &["--prefetch", "on"],
        &["--prefetch", "off"],
        &["--memory", "15M", "--prefetch", "on"],
        &["--memory", "15M", "--prefetch", "off", "--pread"],
    ];
    for name in ["example-directed", "example-undirected", "test-bfs-directed", "test-bfs-undirected"] {
        let store = graphalytics_case(d.path(), name);
        let want = read_pairs(&shared().join(format!("graphalytics/evlp/{name}-BFS")));
        let root = property(name, "bfs.source-vertex");
        for mode in modes {
            for direction in ["top-down", "hybrid"] {
                let out = d.path().join(format!("{name}-bfs.txt"));
                let mut args = vec!["bfs", s(&store), "--root", &root, "--direction", direction, "--output", s(&out), "--force"];
                args.extend_from_slice(mode);
                let (code, _, err) = outcore(&args);
                assert_eq!(code, 0, "{name} {mode:?} {direction}: {err}");
                assert_eq!(read_pairs(&out), want, "{name} {mode:?} {direction}");
            }
        }
    }
    for name in ["example-directed", "example-undirected"] {
        let store = graphalytics_case(d.path(), name);
        let want = read_pairs(&shared().join(format!("graphalytics/evlp/{name}-SSSP")));
        let root = property(name, "sssp.source-vertex");
        for mode in modes {
            let out = d.path().join(format!("{name}-sssp.txt"));
            let mut args = vec!["sssp", s(&store), "--root", &root, "--output", s(&out), "--force"];
            args.extend_from_slice(mode);
            assert_eq!(outcore(&args).0, 0);
            let got = read_pairs(&out);
            assert_same_vertices(&got, &want, &format!("{name} sssp {mode:?}"));
            for ((v1, x), (v2, y)) in got.iter().zip(&want) {
                assert_eq!(v1, v2);
                if y == "infinity" {
                    assert_eq!(x, "infinity");
                } else {
                    let (x, y): (f64, f64) = (x.parse().unwrap(), y.parse().unwrap());
                    assert!((x - y).abs() <= 1e-4 * y.abs(), "{name} vertex {v1}: {x} vs {y}");
                }
            }
        }
    }
    for name in ["example-directed", "example-undirected", "test-wcc-directed", "test-wcc-undirected"] {
        let store = d.path().join(format!("{name}-w"));
        let props = shared().join(format!("graphalytics/evlp/{name}.properties"));
        assert_eq!(outcore(&["import", s(&props), "-o", s(&store)]).0, 0);
        let out = d.path().join(format!("{name}-wcc.txt"));
        assert_eq!(outcore(&["wcc", s(&store), "--output", s(&out), "--force"]).0, 0);
        // the reference labels are the smallest id of each component, as ours are
        assert_eq!(read_pairs(&out), read_pairs(&shared().join(format!("graphalytics/evlp/{name}-WCC"))), "{name}");
    }
}

#[test]
fn traversal_bad_input_is_one_line() {
    let d = tempfile::tempdir().unwrap();
    let store = graphalytics_case(d.path(), "test-bfs-undirected");
    let one_line = |args: &[&str], needle: &str| {
        let (code, _, err) = outcore(args);
        assert_ne!(code, 0, "{args:?}");
        let err = err.trim_end();
        assert!(err.starts_with("error: ") && !err.contains('\n') && err.contains(needle), "{args:?}: {err:?}");
    };
    one_line(&["bfs", s(&store), "--root", "999"], "root 999 is not a vertex");
    one_line(&["sssp", s(&store), "--root", "1"], "SSSP needs edge weights");
    one_line(&["bfs", s(&store), "--memory", "12M"], "too small");
    // the message names a budget that works, as a flag to paste
    let (_, _, err) = outcore(&["bfs", s(&store), "--memory", "12M"]);
    let suggested = err.split("use --memory ").nth(1).and_then(|t| t.split_whitespace().next()).expect("a --memory hint").to_string();
    let (code, _, err) = outcore(&["bfs", s(&store), "--memory", &suggested]);
    assert_eq!(code, 0, "the suggested --memory {suggested} failed: {err}");
    one_line(&["bfs", s(&store), "--block", "1000"], "multiple of 4K");
    let dir_store = d.path().join("dir");
    assert_eq!(outcore(&["import", s(&shared().join("graphalytics/evlp/test-bfs-directed.properties")), "-o", s(&dir_store)]).0, 0);
    // the hint is the command that fixes it, runnable as printed
    one_line(&["bfs", s(&dir_store), "--direction", "hybrid"], &format!("add it with: outcore layout add {} in", s(&dir_store)));
    // ...and after adding it, the hybrid BFS runs
    assert_eq!(outcore(&["layout", "add", s(&dir_store), "in"]).0, 0);
    assert_eq!(outcore(&["bfs", s(&dir_store), "--direction", "hybrid"]).0, 0);
    let neg = write(d.path(), "neg.wel", b"0 1 1.5\n1 2 -2\n");
    let neg_store = d.path().join("neg");
    assert_eq!(outcore(&["import", s(&neg), "-o", s(&neg_store)]).0, 0);
    one_line(&["sssp", s(&neg_store), "--root", "0"], "non-negative");
}

#[test]
fn graph500_runs_all_kernels_and_validates() {
    let (code, out, err) = outcore(&["graph500", "--scale", "10", "--roots", "8", "--memory", "64M"]);
    assert_eq!(code, 0, "{err}");
    for key in [
        "SCALE:",
        "NBFS:",
        "construction_time:",
        "bfs  harmonic_mean_TEPS:",
        "sssp  harmonic_mean_TEPS:",
        "bfs  median_validate:",
        "median_nedge:",
    ] {
        assert!(out.contains(key), "missing {key} in {out}");
    }
    assert!(out.lines().any(|l| l.starts_with("NBFS:") && l.trim_end().ends_with(" 8")), "{out}");
    assert!(out.contains("all 8 BFS and SSSP results passed the five validation rules"), "{out}");
    let value = |key: &str| -> Vec<f64> {
        out.lines().filter_map(|l| l.strip_prefix(key)).map(|x| x.trim().parse().unwrap_or_else(|_| panic!("{key}{x}"))).collect()
    };
    // generation and construction are timed apart
    assert!(value("graph_generation:")[0] > 0.0 && value("construction_time:")[0] > 0.0, "{out}");
    // nedge as the spec defines it: the input edges (duplicates and self
    // loops included) of the root's component, from the same edge list
    // generated apart and joined here by union-find
    let d = tempfile::tempdir().unwrap();
    let list = d.path().join("k10.el");
    assert_eq!(outcore(&["generate", "kronecker", "--scale", "10", "-o", s(&list)]).0, 0);
    let text = std::fs::read_to_string(&list).unwrap();
    let edges: Vec<(usize, usize)> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let (a, b) = l.split_once(' ').unwrap();
            (a.parse().unwrap(), b.trim().parse().unwrap())
        })
        .collect();
    assert_eq!(edges.len(), 16 << 10);
    let mut parent: Vec<usize> = (0..1 << 10).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    for &(a, b) in &edges {
        let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
        parent[ra] = rb;
    }
    let mut per_component: BTreeMap<usize, f64> = BTreeMap::new();
    for &(a, _) in &edges {
        *per_component.entry(find(&mut parent, a)).or_default() += 1.0;
    }
    let largest = per_component.values().cloned().fold(0.0, f64::max);
    // BFS then SSSP: each kernel's nedge statistics
    for (min, max) in value("min_nedge:").into_iter().zip(value("max_nedge:")) {
        assert_eq!(max, largest, "{out}");
        assert!(per_component.values().any(|&e| e == min), "min_nedge {min} is no component's edge count");
    }
}

#[test]
fn streaming_analytics_reproduce_graphalytics_in_every_engine() {
    let d = tempfile::tempdir().unwrap();
    let one_line = |args: &[&str], needle: &str| {
        let (code, _, err) = outcore(args);
        assert_ne!(code, 0, "{args:?}");
        let err = err.trim_end();
        assert!(err.starts_with("error: ") && !err.contains('\n') && err.contains(needle), "{args:?}: {err:?}");
    };
    for name in ["example-directed", "example-undirected"] {
        let store = graphalytics_case(d.path(), name);
        one_line(&["pagerank", s(&store), "--engine", "stream"], "outcore layout add");
        one_line(&["pagerank", s(&store), "--engine", "warp"], "unknown engine 'warp'");
        one_line(&["pagerank", s(&store), "--tolerance", "0"], "--tolerance must be positive");
        one_line(&["layout", "add", s(&store), "grid"], "unknown layout 'grid'");
        assert_eq!(outcore(&["layout", "add", s(&store), "tiles", "--span-bits", "2"]).0, 0);
        let props = std::fs::read_to_string(shared().join(format!("graphalytics/evlp/{name}.properties"))).unwrap();
        let param = |key: &str| {
            props.lines().find_map(|l| l.split_once('=').filter(|(k, _)| k.trim().ends_with(key)).map(|x| x.1.trim().to_string())).unwrap()
        };
        for engine in ["auto", "memory", "stream", "interval"] {
            let run = |alg: &str, extra: &[&str]| {
                let out = d.path().join(format!("{name}-{alg}-{engine}.txt"));
                let mut args = vec![
                    alg,
                    s(&store),
                    "--engine",
                    engine,
                    "--interval-values",
                    "4",
                    "--segment",
                    "16K",
                    "--json",
                    "--output",
                    s(&out),
                    "--force",
                ];
                args.extend_from_slice(extra);
                let (code, stdout, err) = outcore(&args);
                assert_eq!(code, 0, "{args:?}: {err}");
                let summary: serde_json::Value = serde_json::from_str(&stdout).unwrap();
                if engine != "auto" {
                    assert_eq!(summary["engine"], engine, "{stdout}");
                } else {
                    assert_eq!(summary["engine"], "memory", "{stdout}");
                    assert!(summary["engine_reason"].as_str().unwrap().contains("fit"), "{stdout}");
                }
                read_pairs(&out)
            };
            let want = |alg: &str| read_pairs(&shared().join(format!("graphalytics/evlp/{name}-{alg}")));
            let pr = run("pagerank", &["--iterations", &param("pr.num-iterations"), "--damping", &param("pr.damping-factor")]);
            assert_same_vertices(&pr, &want("PR"), &format!("{name} {engine} PR"));
            for ((v1, x), (v2, y)) in pr.iter().zip(&want("PR")) {
                assert_eq!(v1, v2);
                let (x, y): (f64, f64) = (x.parse().unwrap(), y.parse().unwrap());
                assert!((x - y).abs() <= 1e-4 * y, "{name} {engine} vertex {v1}: {x} vs {y}");
            }
            assert_eq!(run("cdlp", &["--iterations", &param("cdlp.max-iterations")]), want("CDLP"), "{name} {engine} CDLP");
            if engine != "auto" {
                assert_eq!(run("wcc", &[]), want("WCC"), "{name} {engine} WCC");
            }
            // y = A^T 1: each vertex's weighted in-degree, from the edge file
            let y = run("spmv", &[]);
            assert_same_vertices(&y, &pr, &format!("{name} {engine} SpMV"));
            let edges = std::fs::read_to_string(shared().join(format!("graphalytics/evlp/{name}.e"))).unwrap();
            let mut want_y: BTreeMap<String, f64> = pr.iter().map(|(v, _)| (v.clone(), 0.0)).collect();
            for line in edges.lines().filter(|l| !l.trim().is_empty()) {
                let f: Vec<&str> = line.split_whitespace().collect();
                // weights are stored as f32
                let w: f64 = f.get(2).map_or(1.0, |w| w.parse::<f32>().unwrap() as f64);
                *want_y.get_mut(f[1]).unwrap() += w;
                if param("directed") == "false" {
                    *want_y.get_mut(f[0]).unwrap() += w;
                }
            }
            for (v, x) in &y {
                let x: f64 = x.parse().unwrap();
                assert!((x - want_y[v]).abs() <= 1e-9 * want_y[v].max(1.0), "{name} {engine} SpMV vertex {v}: {x} vs {}", want_y[v]);
            }
        }
        let out = d.path().join(format!("{name}-bfs-stream.txt"));
        let root = param("bfs.source-vertex");
        let (code, _, err) = outcore(&["bfs", s(&store), "--engine", "stream", "--root", &root, "--output", s(&out), "--force"]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(read_pairs(&out), read_pairs(&shared().join(format!("graphalytics/evlp/{name}-BFS"))), "{name} BFS on tiles");
    }
}

/// The stream and interval engines keep the budget (page cache included)
/// on a store larger than it, and agree with each other and with the
/// unlimited run.
#[test]
fn streaming_engines_keep_a_budget_smaller_than_the_store() {
    let d = tempfile::tempdir().unwrap();
    let store = d.path().join("k19");
    let (code, _, err) = outcore(&[
        "generate",
        "kronecker",
        "--scale",
        "19",
        "--store",
        s(&store),
        "--undirected",
        "--layouts",
        "out,tiles",
        "--memory",
        "256M",
    ]);
    assert_eq!(code, 0, "{err}");
    let store_bytes: u64 = std::fs::read_dir(&store).unwrap().map(|e| e.unwrap().metadata().unwrap().len()).sum();
    assert!(store_bytes > 80 << 20, "store of {store_bytes} bytes");
    let memcap = outcore_io::shared_dir(env!("CARGO_MANIFEST_DIR")).join("tools/memcap");
    let capped = |cap: &str, args: &[&str]| {
        let (code, _, err) =
            bounded(Command::new(&memcap).args([cap, "--", env!("CARGO_BIN_EXE_outcore")]).args(args).args(["--memory", cap]));
        assert_eq!(code, 0, "{args:?} under {cap}: {err}");
        assert!(err.contains("failcnt=0") || !err.contains("failcnt"), "{err}");
    };
    let pr = |engine: &str, cap: Option<&str>| {
        let out = d.path().join(format!("pr-{engine}.txt"));
        let args = ["pagerank", s(&store), "--engine", engine, "--iterations", "3", "--output", s(&out), "--force"];
        match cap {
            Some(cap) => capped(cap, &args),
            None => assert_eq!(outcore(&args).0, 0),
        }
        read_pairs(&out).into_iter().map(|(_, x)| x.parse::<f64>().unwrap()).collect::<Vec<_>>()
    };
    let want = pr("memory", None);
    for (engine, cap) in [("stream", "40M"), ("interval", "48M")] {
        let got = pr(engine, Some(cap));
        assert_eq!(got.len(), want.len());
        for (a, b) in got.iter().zip(&want) {
            assert!((a - b).abs() <= 1e-12 + 1e-9 * b, "{engine}: {a} vs {b}");
        }
    }
    let wcc = |engine: &str| {
        let out = d.path().join(format!("wcc-{engine}.txt"));
        capped("40M", &["wcc", s(&store), "--engine", engine, "--output", s(&out), "--force"]);
        read_pairs(&out)
    };
    assert_eq!(wcc("stream"), wcc("traverse"));
}

/// `--engine sortreduce` on pagerank, wcc, bfs and sssp reproduces the
/// Graphalytics outputs and reports its updates, reduction and merges;
/// `bc` gives the same values on both of its engines; algorithms without
/// a sort-reduce version say so in one line; no temporary files remain.
#[test]
fn sortreduce_commands_reproduce_graphalytics() {
    let d = tempfile::tempdir().unwrap();
    for name in ["example-directed", "example-undirected"] {
        let store = graphalytics_case(d.path(), name);
        let want = |alg: &str| read_pairs(&shared().join(format!("graphalytics/evlp/{name}-{alg}")));
        let run = |alg: &str, extra: &[&str]| {
            let out = d.path().join(format!("{name}-{alg}-sr.txt"));
            let mut args = vec![alg, s(&store), "--engine", "sortreduce", "--memory", "64M", "--json", "--output", s(&out), "--force"];
            args.extend_from_slice(extra);
            let (code, stdout, err) = outcore(&args);
            assert_eq!(code, 0, "{args:?}: {err}");
            let summary: serde_json::Value = serde_json::from_str(&stdout).unwrap();
            assert_eq!(summary["engine"], "sortreduce", "{stdout}");
            let sr = &summary["sortreduce"];
            assert!(sr["updates_generated"].as_u64().unwrap() > 0, "{stdout}");
            let ratio = sr["reduction_ratio"].as_f64().unwrap();
            assert!(ratio > 0.0 && ratio <= 1.0, "{stdout}");
            assert!(sr["merge_passes"].is_u64() && sr["bytes_written"].as_u64().unwrap() > 0, "{stdout}");
            read_pairs(&out)
        };
        let close = |got: Vec<(String, String)>, want: Vec<(String, String)>, what: &str| {
            assert_same_vertices(&got, &want, &format!("{name} {what}"));
            for ((v1, x), (v2, y)) in got.iter().zip(&want) {
                assert_eq!(v1, v2);
                if x != y {
                    let (x, y): (f64, f64) = (x.parse().unwrap(), y.parse().unwrap());
                    assert!((x - y).abs() <= 1e-4 * y, "{name} {what} vertex {v1}: {x} vs {y}");
                }
            }
        };
        let pr =
            run("pagerank", &["--iterations", &property(name, "pr.num-iterations"), "--damping", &property(name, "pr.damping-factor")]);
        close(pr, want("PR"), "PageRank");
        assert_eq!(run("wcc", &[]), want("WCC"), "{name} WCC");
        assert_eq!(run("bfs", &["--root", &property(name, "bfs.source-vertex")]), want("BFS"), "{name} BFS");
        close(run("sssp", &["--root", &property(name, "sssp.source-vertex")]), want("SSSP"), "SSSP");

        let (code, _, err) = outcore(&["cdlp", s(&store), "--engine", "sortreduce"]);
        assert!(code != 0 && err.trim_end().lines().count() == 1 && err.contains("--engine interval"), "{err}");

        let bc = |engine: &str| {
            let out = d.path().join(format!("{name}-bc-{engine}.txt"));
            let (code, _, err) = outcore(&["bc", s(&store), "--engine", engine, "--sources", "all", "--output", s(&out), "--force"]);
            assert_eq!(code, 0, "{err}");
            read_pairs(&out)
        };
        let (semi, external) = (bc("traverse"), bc("sortreduce"));
        close(semi.clone(), external, "BC");
        assert!(semi.iter().any(|(_, x)| x.parse::<f64>().unwrap() > 0.0));
        let leftovers: Vec<_> =
            std::fs::read_dir(&store).unwrap().map(|e| e.unwrap().file_name()).filter(|n| n.to_string_lossy().starts_with('.')).collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }
}

/// Ctrl-C during a sort-reduce run removes its update logs and vertex
/// files (while its threads are still writing them) and exits with 130.
#[test]
fn interrupted_sortreduce_runs_leave_no_temporary_files() {
    let d = tempfile::tempdir().unwrap();
    let store = d.path().join("k.store");
    let (code, _, err) = outcore(&["generate", "kronecker", "--scale", "16", "--store", s(&store)]);
    assert_eq!(code, 0, "{err}");
    let child = Command::new(env!("CARGO_BIN_EXE_outcore"))
        .args(["pagerank", s(&store), "--engine", "sortreduce", "--memory", "64M", "--iterations", "100000"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let temp_exists = || std::fs::read_dir(&store).unwrap().any(|e| e.unwrap().file_name().to_string_lossy().starts_with(".outcore-"));
    let started = std::time::Instant::now();
    while !temp_exists() {
        assert!(started.elapsed().as_secs() < 60, "the run never started");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(700));
    assert!(Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap().success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("staging files removed"));
    assert!(!temp_exists(), "temporary files left after Ctrl-C");
    assert_eq!(outcore(&["info", s(&store), "--verify"]).0, 0, "the store is intact");
}

/// `pagerank|wcc|cdlp|spmv|bfs|bc STORE` run on a store imported with
/// default flags (a directed graph with only its out-edges), pass their
/// validators under `--verify`, and say what a missing layout would buy.
#[test]
fn algorithms_run_on_a_default_store_and_verify() {
    let d = tempfile::tempdir().unwrap();
    let store = d.path().join("wiki");
    assert_eq!(outcore(&["import", s(&shared().join("real/wiki-Vote.txt")), "-o", s(&store)]).0, 0);
    for alg in ["pagerank", "wcc", "cdlp", "spmv", "bfs", "bc"] {
        let (code, out, err) = outcore(&[alg, s(&store), "--verify", "--json"]);
        assert_eq!(code, 0, "{alg}: {err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["verify"]["passed"], true, "{alg}: {out}");
        assert!(v["engine"].is_string() && v["engine_reason"].is_string() && v["plan"]["considered"].is_array(), "{alg}: {out}");
        // the whole command, which holds the run and its setup
        let timed = v["seconds"].as_f64().unwrap() + v["setup_seconds"].as_f64().unwrap_or(0.0);
        assert!(v["process_seconds"].as_f64().unwrap() >= timed, "{alg}: {out}");
    }
    let (_, out, _) = outcore(&["pagerank", s(&store), "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["engine"], "traverse", "{out}");
    let hint = format!("outcore layout add {} tiles", s(&store));
    assert!(v["layout_hints"].as_array().unwrap().iter().any(|h| h.as_str().unwrap().contains(&hint)), "{out}");
    // WCC on a directed store without its in-edges is union-find, and says
    // why; with them and without the hot layout, Afforest scans and says
    // what the hot layout would save; with it, Afforest samples from it
    let (_, out, _) = outcore(&["wcc", s(&store), "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["version"], "union-find", "{out}");
    assert!(v["why_not_afforest"].as_str().unwrap().contains("`in` layout"), "{out}");
    assert_eq!(outcore(&["layout", "add", s(&store), "in"]).0, 0);
    let (_, out, _) = outcore(&["wcc", s(&store), "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["version"] == "afforest" && v["sampled_from"] == "heads", "{out}");
    assert!(v["hot_layout_would_save"].as_str().unwrap().contains("outcore layout add STORE hot"), "{out}");
    // the text reports say what the hot layout would save, as notes
    let (_, out, _) = outcore(&["wcc", s(&store)]);
    assert!(out.contains("\n  note: sampling from the hot layout would read at most"), "{out}");
    // one search gathers them, repeated searches build them first
    let (_, out, _) = outcore(&["bfs", s(&store), "--direction", "hybrid"]);
    assert!(out.contains("\n  note: the in-memory neighbours were gathered by the search"), "{out}");
    assert!(out.contains("which a stored hot layout would mostly spare"), "{out}");
    assert!(out.contains("`outcore layout add STORE hot` stores them"), "{out}");
    let (_, out, _) = outcore(&["bfs", s(&store), "--direction", "hybrid", "--repeat", "2"]);
    assert!(out.contains("\n  note: the in-memory neighbours were built by a scan"), "{out}");
    assert!(out.contains("`outcore layout add STORE hot` stores them"), "{out}");
    assert_eq!(outcore(&["layout", "add", s(&store), "hot"]).0, 0);
    for alg in ["wcc", "bfs"] {
        let (_, out, _) = outcore(&[alg, s(&store)]);
        assert!(!out.contains("note:"), "{alg}: {out}");
    }
    let (_, out, _) = outcore(&["wcc", s(&store), "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["version"] == "afforest" && v["sampled_from"] == "hot" && v["hot_layout_would_save"].is_null(), "{out}");
    // the text report says so too, and PASS
    let (code, out, _) = outcore(&["wcc", s(&store), "--verify"]);
    assert_eq!(code, 0);
    assert!(out.contains("verify: PASS"), "{out}");
    // a sort-reduce run at the default budget still writes vertex-valued results (parents)
    let parents = d.path().join("parents.txt");
    let (code, _, err) = outcore(&["bfs", s(&store), "--engine", "sortreduce", "--values", "parent", "--output", s(&parents), "--force"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(read_pairs(&parents).len(), 7115);
    // SSSP needs weights: one line that says how to get them
    let (code, _, err) = outcore(&["sssp", s(&store)]);
    assert!(code != 0 && err.contains("needs edge weights") && err.contains("--weighted"), "{err}");
}

/// `export` writes the graph in original ids; importing it gives the same store.
#[test]
fn export_round_trips_through_the_cli() {
    let d = tempfile::tempdir().unwrap();
    let store = d.path().join("a");
    let input = shared().join("real/netscience.csv");
    assert_eq!(outcore(&["import", s(&input), "-o", s(&store), "--undirected", "--weighted"]).0, 0);
    let file = d.path().join("g.wel");
    let (code, out, err) = outcore(&["export", s(&store), "-o", s(&file)]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("exported") && out.contains("as wel"), "{out}");
    let (code, _, err) = outcore(&["export", s(&store), "-o", s(&file)]);
    assert!(code != 0 && err.contains("already exists") && err.contains("--force"), "{err}");
    let again = d.path().join("b");
    assert_eq!(outcore(&["import", s(&file), "-o", s(&again), "--undirected", "--weighted"]).0, 0);
    for f in ["out.ef", "out.adj", "out.weights", "idmap"] {
        assert!(std::fs::read(store.join(f)).unwrap() == std::fs::read(again.join(f)).unwrap(), "{f} differs");
    }
}

/// A manifest that names a file outside its store (a crafted download) is
/// refused by every reader and writer, and nothing outside is touched.
#[test]
fn a_manifest_naming_files_outside_the_store_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let store = d.path().join("s");
    assert_eq!(outcore(&["import", s(&shared().join("real/CA-GrQc.txt")), "-o", s(&store), "--undirected", "--layouts", "out,tiles"]).0, 0);
    let victim = d.path().join("victim");
    std::fs::write(&victim, b"not the store's").unwrap();
    let manifest = store.join("manifest.json");
    let text = std::fs::read_to_string(&manifest).unwrap();
    for (from, to) in [("\"tiles-g0.edges\"", format!("{:?}", victim.display().to_string())), ("\"out.adj\"", "\"../victim\"".to_string())]
    {
        assert!(text.contains(from), "{from} in {text}");
        std::fs::write(&manifest, text.replace(from, &to)).unwrap();
        for args in [vec!["layout", "add", s(&store), "tiles"], vec!["bfs", s(&store)], vec!["info", s(&store)]] {
            let (code, _, err) = outcore(&args);
            assert_ne!(code, 0, "{args:?}");
            assert!(err.contains("not a plain file name inside the store") && err.trim_end().lines().count() == 1, "{args:?}: {err}");
        }
        assert_eq!(std::fs::read(&victim).unwrap(), b"not the store's");
    }
    // a link inside the store, in place of one of its files or of the manifest
    std::fs::write(&manifest, &text).unwrap();
    assert_eq!(outcore(&["info", s(&store), "--verify"]).0, 0);
    for name in ["out.adj", "manifest.json"] {
        let file = store.join(name);
        let moved = d.path().join(format!("moved-{name}"));
        std::fs::rename(&file, &moved).unwrap();
        std::os::unix::fs::symlink(&moved, &file).unwrap();
        for args in [vec!["info", s(&store)], vec!["bfs", s(&store)]] {
            let (code, _, err) = outcore(&args);
            assert_ne!(code, 0, "{args:?} with {name} a link");
            assert!(err.contains("is not a regular file") && err.contains(name), "{args:?}: {err}");
        }
        std::fs::remove_file(&file).unwrap();
        std::fs::rename(&moved, &file).unwrap();
    }
    assert_eq!(outcore(&["info", s(&store), "--verify"]).0, 0);
}

/// Counts a manifest claims are checked against the sizes it records
/// before anything is allocated: 2^60 vertices, or more arcs than the
/// adjacency holds, are one-line errors from every command, at once.
#[test]
fn a_manifest_claiming_impossible_counts_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let store = d.path().join("s");
    assert_eq!(outcore(&["import", s(&shared().join("real/CA-GrQc.txt")), "-o", s(&store), "--undirected", "--layouts", "out,tiles"]).0, 0);
    let manifest = store.join("manifest.json");
    let text = std::fs::read_to_string(&manifest).unwrap();
    for (from, to, needle) in [
        ("\"vertices\": 5242", "\"vertices\": 1152921504606846976", "more than any store holds"),
        ("\"vertices\": 5242", "\"vertices\": 5243", "5243 entries of 8 bytes need 41944"),
        ("\"arcs\": 28980", "\"arcs\": 28981", "the adjacency of layout out"),
        ("\"span_bits\": 16", "\"span_bits\": 60", "span bits 60"),
    ] {
        assert!(text.contains(from), "{from} in {text}");
        std::fs::write(&manifest, text.replace(from, to)).unwrap();
        for args in [vec!["info", s(&store)], vec!["bfs", s(&store)], vec!["pagerank", s(&store)], vec!["wcc", s(&store)]] {
            let (code, _, err) = outcore(&args);
            assert_ne!(code, 0, "{args:?} with {to}");
            assert!(
                err.contains(needle) && err.contains("damaged or crafted") && err.trim_end().lines().count() == 1,
                "{args:?} with {to}: {err}"
            );
        }
    }
    std::fs::write(&manifest, text).unwrap();
    assert_eq!(outcore(&["info", s(&store), "--verify"]).0, 0);
}

/// `generate ratings` to a file and `import --bipartite` give the store
/// `generate ratings --store` makes; `als --output` writes every user and
/// item once, as `u ID x1..xk` / `i ID x1..xk`, in that order, on both
/// engines alike; a store without sides is refused with the fix.
#[test]
fn ratings_import_and_als_output() {
    let d = tempfile::tempdir().unwrap();
    let flags = ["--users", "70", "--items", "40", "--rank", "3", "--density", "0.1", "--noise", "0.05", "--seed", "4"];
    let wel = d.path().join("r.wel");
    let mut args = vec!["generate", "ratings"];
    args.extend_from_slice(&flags);
    let (code, _, err) = outcore(&[&args[..], &["-o", s(&wel)]].concat());
    assert_eq!(code, 0, "{err}");
    let lines = std::fs::read_to_string(&wel).unwrap();
    assert_eq!(lines.lines().count(), 280, "70 x 40 x 0.1 ratings drawn");
    assert!(lines.lines().all(|l| l.split(' ').count() == 3), "user item rating lines");
    let direct = d.path().join("direct");
    assert_eq!(outcore(&[&args[..], &["--store", s(&direct)]].concat()).0, 0);
    let imported = d.path().join("imported");
    let (code, _, err) = outcore(&["import", s(&wel), "-o", s(&imported), "--bipartite"]);
    assert_eq!(code, 0, "{err}");
    for f in ["out.ef", "out.adj", "out.weights", "idmap"] {
        assert!(std::fs::read(direct.join(f)).unwrap() == std::fs::read(imported.join(f)).unwrap(), "{f} differs");
    }
    let (_, out, _) = outcore(&["info", s(&imported)]);
    assert!(out.contains("bipartite   70 users"), "{out}");
    let mut outputs = Vec::new();
    for engine in ["traverse", "interval"] {
        let f = d.path().join(format!("factors-{engine}.txt"));
        let (code, out, err) =
            outcore(&["als", s(&imported), "--rank", "4", "--iterations", "3", "--engine", engine, "-o", s(&f), "--verify"]);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains("verify: PASS") && out.contains("training RMSE") && out.contains("70 users, 40 items"), "{out}");
        let text = std::fs::read_to_string(&f).unwrap();
        let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split(' ').collect()).collect();
        assert_eq!(rows.len(), 110, "one line a user and an item");
        assert!(rows.iter().all(|r| r.len() == 6), "side, id and 4 factors");
        let users: Vec<u64> = rows[..70].iter().map(|r| (r[0] == "u").then(|| r[1].parse().unwrap()).unwrap()).collect();
        let items: Vec<u64> = rows[70..].iter().map(|r| (r[0] == "i").then(|| r[1].parse().unwrap()).unwrap()).collect();
        assert_eq!(users, (0..70).collect::<Vec<_>>(), "every user once, in order");
        assert_eq!(items, (0..40).collect::<Vec<_>>(), "every item once, in order");
        outputs.push(rows.iter().map(|r| r[2..].iter().map(|x| x.parse::<f64>().unwrap()).collect::<Vec<_>>()).collect::<Vec<_>>());
    }
    for (a, b) in outputs[0].iter().flatten().zip(outputs[1].iter().flatten()) {
        assert!((a - b).abs() < 1e-4, "traverse {a} against interval {b}");
    }
    let plain = d.path().join("plain");
    assert_eq!(outcore(&["generate", "uniform", "--scale", "6", "--store", s(&plain)]).0, 0);
    let (code, _, err) = outcore(&["als", s(&plain)]);
    assert_ne!(code, 0);
    assert!(err.contains("needs a bipartite store") && err.contains("--bipartite"), "{err}");
}
