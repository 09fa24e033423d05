//! Import in external memory: a tiny budget that forces many sort runs
//! (and, for sparse 64-bit ids, the join-based relabel) must give exactly
//! the store that a large budget gives.

mod common;

use common::*;
use outcore_ingest::{import_file, ImportOptions, NoProgress};

fn import_with(input: &std::path::Path, opts: ImportOptions) -> (tempfile::TempDir, outcore_ingest::ImportReport) {
    let dir = tempfile::tempdir().unwrap();
    let r = import_file(input, &dir.path().join("store"), &opts, &NoProgress).unwrap();
    (dir, r)
}

#[test]
fn tiny_budget_gives_a_byte_identical_store() {
    for (file, directed, layouts_in) in [("MIT8.edgelist", false, false), ("wiki-Vote.txt", true, true), ("CA-CondMat.txt", false, false)] {
        let input = shared().join("real").join(file);
        let base = ImportOptions { directed: Some(directed), in_layout: layouts_in, ..Default::default() };
        let (big, rbig) = import_with(&input, ImportOptions { memory: 1 << 30, ..base.clone() });
        let (small, rsmall) = import_with(&input, ImportOptions { memory: 40 << 20, sort_buffer: Some(64 << 10), ..base });
        assert_eq!(rbig.sort_runs, 0, "{file}: large budget sorts in memory");
        assert!(rsmall.sort_runs >= 20, "{file}: only {} runs", rsmall.sort_runs);
        let (a, b) = (store_files(&big.path().join("store")), store_files(&small.path().join("store")));
        assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
        for (name, bytes) in &a {
            assert!(bytes == &b[name], "{file}: {name} differs between budgets");
        }
    }
}

/// Ids spread over 2^60 cannot use the rank bitmap: import falls back to
/// the external id sort and relabels by joins, with wide sort records.
#[test]
fn sparse_64bit_ids_use_the_external_relabel() {
    let src = shared().join("real/p2p-Gnutella05.txt");
    let plain = read_edge_list(&src, true, false);
    let spread = |id: u64| id.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 4;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("sparse.el");
    let mut text = String::new();
    let mut want = Expected::new();
    for &(u, v) in plain.arcs.keys() {
        text += &format!("{} {}\n", spread(u), spread(v));
        want.add(spread(u), spread(v), 1.0, true);
    }
    std::fs::write(&file, text).unwrap();
    for (memory, sort_buffer) in [(1u64 << 30, None), (40 << 20, Some(32 << 10))] {
        let out = dir.path().join(format!("s{memory}"));
        let r =
            import_file(&file, &out, &ImportOptions { memory, sort_buffer, in_layout: true, ..Default::default() }, &NoProgress).unwrap();
        let got = dump_store(&out);
        assert_eq!(got.vertices, want.vertices);
        assert!(got.arcs == want.arcs, "adjacency differs at memory {memory}");
        let m = outcore_store::Store::open(&out).unwrap().manifest().clone();
        assert_eq!(m.id_map, "sorted");
        if sort_buffer.is_some() {
            assert!(r.sort_runs > 10, "{r:?}");
        }
        // in-layout is the exact transpose
        let store = outcore_store::Store::open(&out).unwrap();
        let mut scan = store.layout("in").unwrap().scan().unwrap();
        let mut transposed = 0;
        let ids = store.id_map(&outcore_io::Budget::unlimited()).unwrap();
        while let Some((v, nbrs, _)) = scan.next_list().unwrap() {
            for &s in nbrs {
                assert!(want.arcs.contains_key(&(ids.original(s), ids.original(v))));
                transposed += 1;
            }
        }
        assert_eq!(transposed, want.arcs.len());
    }
}

#[test]
fn budget_too_small_is_refused_with_the_minimum() {
    let input = shared().join("real/power.graph");
    let dir = tempfile::tempdir().unwrap();
    let err =
        import_file(&input, &dir.path().join("s"), &ImportOptions { memory: 4 << 20, ..Default::default() }, &NoProgress).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("memory budget") && msg.contains("the smallest budget that would work"), "{msg}");
    let outcore_ingest::IngestError::Budget(b) = err else { panic!("not a budget error: {msg}") };
    assert!(b.suggest > 4 << 20, "{msg}");
    assert!(!dir.path().join("s").exists());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "staging left behind");
}

/// A hub whose bucket exceeds the budget is sorted by runs instead; the
/// result equals the plain sort path's store byte for byte.
#[test]
fn oversized_bucket_falls_back_to_runs() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("star.bin32");
    let n = 1u32 << 16;
    let mut bytes = Vec::new();
    for i in 0..1_500_000u32 {
        let (s, t) = if i % 4 == 0 { (i % n, (i / 3) % n) } else { (7, (i.wrapping_mul(2654435761)) % n) };
        bytes.extend_from_slice(&s.to_le_bytes());
        bytes.extend_from_slice(&t.to_le_bytes());
    }
    std::fs::write(&file, bytes).unwrap();
    let bucketed = dir.path().join("bucketed");
    let r = import_file(
        &file,
        &bucketed,
        &ImportOptions { num_vertices: Some(n as u64), memory: 40 << 20, in_layout: true, ..Default::default() },
        &NoProgress,
    )
    .unwrap();
    assert!(r.buckets > 0, "{r:?}");
    let sorted = dir.path().join("sorted");
    let r2 = import_file(
        &file,
        &sorted,
        &ImportOptions {
            num_vertices: Some(n as u64),
            memory: 40 << 20,
            sort_buffer: Some(1 << 20),
            in_layout: true,
            ..Default::default()
        },
        &NoProgress,
    )
    .unwrap();
    assert_eq!(r2.buckets, 0);
    assert!(r2.sort_runs > 1);
    let (a, b) = (store_files(&bucketed), store_files(&sorted));
    for name in ["out.ef", "out.adj", "in.ef", "in.adj"] {
        assert!(a[name] == b[name], "{name} differs between the bucketed and the sorted path");
    }
}
