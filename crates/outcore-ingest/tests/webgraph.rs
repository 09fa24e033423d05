//! WebGraph BV input: cnr-2000 imports to exactly the arcs its README
//! oracles give (counts, self loops, the first lists, the SHA-256 of the
//! sorted arc list), its transpose equals our in-edge layout, and a
//! truncated bitstream is an error that leaves no store.

mod common;

use common::*;
use outcore_ingest::{import_file, ImportOptions, NoProgress};
use outcore_store::Store;
use sha2::{Digest, Sha256};
use std::path::Path;

fn lists(store: &Path, layout: &str) -> Vec<Vec<u64>> {
    let s = Store::open(store).unwrap();
    let mut scan = s.layout(layout).unwrap().scan().unwrap();
    let mut out = Vec::new();
    while let Some((_, n, _)) = scan.next_list().unwrap() {
        out.push(n.to_vec());
    }
    out
}

#[test]
fn cnr_2000_imports_exactly() {
    let data = shared().join("cnr-2000");
    let dir = tempfile::tempdir().unwrap();
    let st = dir.path().join("cnr");
    let opts = ImportOptions { in_layout: true, ..Default::default() };
    let report = import_file(&data.join("cnr-2000.graph"), &st, &opts, &NoProgress).unwrap();
    assert_eq!(report.vertices, 325_557);
    let m = Store::open(&st).unwrap().manifest().clone();
    assert!(m.directed);
    assert_eq!((m.vertices, m.edges, m.self_loops), (325_557, 3_216_152, 87_442));

    let out = lists(&st, "out");
    let oracle = std::fs::read_to_string(data.join("cnr-2000_edges.txt")).unwrap();
    for (v, line) in oracle.lines().enumerate() {
        let want: Vec<u64> = line.split_whitespace().map(|x| x.parse().unwrap()).collect();
        assert_eq!(out[v], want, "node {v}");
    }
    let mut hash = Sha256::new();
    for (u, n) in out.iter().enumerate() {
        for v in n {
            hash.update(format!("{u}\t{v}\n").as_bytes());
        }
    }
    let hex: String = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(hex, "db55a42aeba48ffea2a740285d9df875112869cd8fc7d7af65867f9414d72f41");

    // the transpose, any of whose files names it, is our in-edge layout
    let t = dir.path().join("cnr-t");
    import_file(&data.join("cnr-2000-t.properties"), &t, &ImportOptions::default(), &NoProgress).unwrap();
    assert_eq!(lists(&t, "out"), lists(&st, "in"));
}

#[test]
fn a_truncated_bitstream_is_an_error_and_leaves_no_store() {
    let data = shared().join("cnr-2000");
    let dir = tempfile::tempdir().unwrap();
    let graph = std::fs::read(data.join("cnr-2000.graph")).unwrap();
    std::fs::write(dir.path().join("g.graph"), &graph[..graph.len() / 2]).unwrap();
    std::fs::copy(data.join("cnr-2000.properties"), dir.path().join("g.properties")).unwrap();
    let st = dir.path().join("s");
    let err = import_file(&dir.path().join("g.graph"), &st, &ImportOptions::default(), &NoProgress).err().unwrap().to_string();
    assert!(err.contains("g.graph") && (err.contains("corrupt") || err.contains("truncated")), "{err}");
    assert!(!st.exists());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2, "staging left behind");
}
