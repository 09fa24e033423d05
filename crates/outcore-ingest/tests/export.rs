//! Export round-trips every shared graph: import, export, import the
//! export again, and the two stores are identical file for file (the
//! manifest's provenance aside); also through the external join (an id map
//! that does not fit the budget) and for reordered stores (same graph in
//! original ids). Bad requests are clear errors that leave nothing behind.

mod common;

use common::*;
use outcore_ingest::export::{export, ExportFormat, ExportOptions};
use outcore_ingest::recode::{recode, write_permutation, RecodeOptions};
use outcore_ingest::{import_file, ImportOptions, NoProgress};
use outcore_store::Store;
use std::path::Path;

fn import(input: &Path, out: &Path, directed: Option<bool>, weighted: bool) {
    let opts = ImportOptions { directed, weighted, memory: 256 << 20, ..Default::default() };
    import_file(input, out, &opts, &NoProgress).unwrap_or_else(|e| panic!("{}: {e}", input.display()));
}

/// Two stores hold the same files with the same bytes, and the same manifest but for provenance.
fn identical(a: &Path, b: &Path, what: &str) {
    let (fa, fb) = (store_files(a), store_files(b));
    let names = |f: &std::collections::BTreeMap<String, Vec<u8>>| f.keys().cloned().collect::<Vec<_>>();
    assert_eq!(names(&fa), names(&fb), "{what}: file names");
    for (name, bytes) in &fa {
        if name != "manifest.json" {
            assert!(bytes == &fb[name], "{what}: {name} differs");
        }
    }
    let (ma, mb) = (Store::open(a).unwrap().manifest().clone(), Store::open(b).unwrap().manifest().clone());
    assert_eq!(
        (ma.vertices, ma.edges, ma.arcs, ma.self_loops, ma.directed, ma.weighted, &ma.id_map, ma.id_base),
        (mb.vertices, mb.edges, mb.arcs, mb.self_loops, mb.directed, mb.weighted, &mb.id_map, mb.id_base),
        "{what}: manifest"
    );
    assert_eq!(ma.files, mb.files, "{what}: file records");
}

fn round_trip(input: &Path, directed: Option<bool>, weighted: bool, format: ExportFormat, memory: u64) -> bool {
    let dir = tempfile::tempdir().unwrap();
    let (first, second) = (dir.path().join("first"), dir.path().join("second"));
    import(input, &first, directed, weighted);
    let file = dir.path().join(format!("g.{}", if format == ExportFormat::Graphalytics { "properties" } else { format.name() }));
    let r = export(&first, &file, &ExportOptions { format, memory, ..Default::default() }, &outcore_io::NoProgress).unwrap();
    let again_directed = match format {
        ExportFormat::Mtx | ExportFormat::Graphalytics => None,
        _ => Some(Store::open(&first).unwrap().manifest().directed),
    };
    import(&file, &second, again_directed, weighted);
    identical(&first, &second, &format!("{} as {}", input.display(), format.name()));
    r.external_join
}

#[test]
fn every_shared_graph_round_trips() {
    let real = shared().join("real");
    let evlp = shared().join("graphalytics/evlp");
    // (file, directed, weighted, format)
    let edge_lists = [
        ("email-Eu-core.csv", true, false),
        ("netscience.csv", false, true),
        ("as20graph.txt", false, false),
        ("facebook-ego-1912.edges", false, false),
        ("wiki-Vote.txt", true, false),
        ("MIT8.edgelist", false, false),
        ("p2p-Gnutella05.txt", true, false),
        ("p2p-Gnutella06.txt", true, false),
        ("CA-GrQc.txt", false, false),
        ("CA-HepTh.txt", false, false),
        ("CA-CondMat.txt", false, false),
    ];
    let mut checked = 0;
    for (file, directed, weighted) in edge_lists {
        let format = if weighted { ExportFormat::Wel } else { ExportFormat::El };
        round_trip(&real.join(file), Some(directed), weighted, format, 256 << 20);
        checked += 1;
    }
    // METIS graphs keep their isolated vertices (ids 1..n) in Matrix Market
    for file in ["power.graph", "PGPgiantcompo.graph", "hep-th.graph", "polblogs.graph", "astro-ph.graph"] {
        round_trip(&real.join(file), None, false, ExportFormat::Mtx, 256 << 20);
        checked += 1;
    }
    for name in
        ["example-directed", "example-undirected", "test-bfs-directed", "test-bfs-undirected", "test-wcc-directed", "test-wcc-undirected"]
    {
        let weighted = name.starts_with("example");
        round_trip(&evlp.join(format!("{name}.properties")), None, weighted, ExportFormat::Graphalytics, 256 << 20);
        checked += 1;
    }
    // WebGraph: 0-based ids with isolated vertices, kept by the vertex list
    round_trip(&shared().join("cnr-2000/cnr-2000.graph"), Some(true), false, ExportFormat::Graphalytics, 256 << 20);
    checked += 1;
    // binary formats
    round_trip(&real.join("CA-GrQc.txt"), Some(false), false, ExportFormat::Bin32, 256 << 20);
    round_trip(&real.join("wiki-Vote.txt"), Some(true), false, ExportFormat::Bin64, 256 << 20);
    assert_eq!(checked, 11 + 5 + 6 + 1);
}

/// An id map larger than the budget allows: targets are joined by an
/// external sort; the file is in target order, the graph the same.
#[test]
fn the_external_join_gives_the_same_graph() {
    let real = shared().join("real");
    assert!(round_trip(&real.join("wiki-Vote.txt"), Some(true), false, ExportFormat::El, 32 << 20), "the id map was loaded");
    assert!(round_trip(&real.join("netscience.csv"), Some(false), true, ExportFormat::Wel, 32 << 20));
}

/// A reordered store (permuted id map) exports the same graph in original ids.
#[test]
fn reordered_stores_export_original_ids() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("raw");
    import(&shared().join("real/CA-GrQc.txt"), &raw, Some(false), false);
    let n = Store::open(&raw).unwrap().vertices() as u32;
    // reverse order: every dense id changes
    let perm: Vec<u32> = (0..n).rev().collect();
    let perm_file = dir.path().join("perm");
    write_permutation(&perm_file, &perm).unwrap();
    let reordered = dir.path().join("reordered");
    recode(
        &raw,
        &reordered,
        Some(&perm_file),
        &RecodeOptions { encoding: None, order: "reverse".into(), memory: 256 << 20, force: false, layouts: None },
        &outcore_io::NoProgress,
    )
    .unwrap();
    assert_eq!(Store::open(&reordered).unwrap().manifest().id_map, "permuted");
    for memory in [256 << 20, 32 << 20] {
        let file = dir.path().join(format!("g-{memory}.el"));
        export(&reordered, &file, &ExportOptions { memory, ..Default::default() }, &outcore_io::NoProgress).unwrap();
        let again = dir.path().join(format!("again-{memory}"));
        import(&file, &again, Some(false), false);
        assert_eq!(dump_store(&again), dump_store(&raw), "budget {memory}");
    }
}

#[test]
fn bad_requests_are_errors_that_leave_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s");
    import(&shared().join("real/CA-GrQc.txt"), &store, Some(false), false);
    let file = dir.path().join("g.mtx");
    // CA-GrQc's smallest id is 13, so Matrix Market holds it as it is
    let e = export(&store, &file, &ExportOptions { format: ExportFormat::Mtx, ..Default::default() }, &outcore_io::NoProgress);
    assert!(e.is_ok(), "{e:?}");
    let e = export(&store, &file, &ExportOptions { format: ExportFormat::El, ..Default::default() }, &outcore_io::NoProgress)
        .unwrap_err()
        .to_string();
    assert!(e.contains("already exists"), "{e}");
    let zero = dir.path().join("z");
    import(&shared().join("real/MIT8.edgelist"), &zero, Some(false), false);
    let e = export(
        &zero,
        &dir.path().join("z.mtx"),
        &ExportOptions { format: ExportFormat::Mtx, ..Default::default() },
        &outcore_io::NoProgress,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("1-based") && e.contains("vertex 0"), "{e}");
    let e = export(
        &store,
        &dir.path().join("x.el"),
        &ExportOptions { layout: "sideways".into(), ..Default::default() },
        &outcore_io::NoProgress,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("layout"), "{e}");
    assert!(!dir.path().join("z.mtx").exists() && !dir.path().join("x.el").exists(), "a failed export left its file");
    let partial: Vec<_> =
        std::fs::read_dir(dir.path()).unwrap().filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().contains("partial")).collect();
    assert!(partial.is_empty(), "partial files left: {partial:?}");
}
