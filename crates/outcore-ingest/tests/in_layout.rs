//! `layout add STORE in` builds the same in-edge CSR (and weights) as an
//! import with `--layouts out,in`.

mod common;

use common::*;
use outcore_ingest::{import_file, in_layout::add_in, ImportOptions, NoProgress};
use outcore_store::Store;
use std::path::Path;

fn dump(store: &Path, layout: &str) -> Vec<(Vec<u64>, Vec<f32>)> {
    let s = Store::open(store).unwrap();
    let mut scan = s.layout(layout).unwrap().scan().unwrap();
    let mut out = Vec::new();
    while let Some((_, n, w)) = scan.next_list().unwrap() {
        out.push((n.to_vec(), w.to_vec()));
    }
    out
}

#[test]
fn added_in_layout_equals_the_imported_one() {
    let cases = [
        (shared().join("real/wiki-Vote.txt"), ImportOptions { directed: Some(true), ..Default::default() }),
        (shared().join("graphalytics/evlp/example-directed.properties"), ImportOptions::default()),
    ];
    for (input, opts) in cases {
        let dir = tempfile::tempdir().unwrap();
        let (with, without) = (dir.path().join("with"), dir.path().join("without"));
        import_file(&input, &with, &ImportOptions { in_layout: true, ..opts.clone() }, &NoProgress).unwrap();
        import_file(&input, &without, &opts, &NoProgress).unwrap();
        let err = Store::open(&without).unwrap().layout("in").err();
        assert!(err.is_some(), "{input:?}: in layout before adding it");
        add_in(&without, 36 << 20, &outcore_io::NoProgress).unwrap();
        let want = dump(&with, "in");
        assert!(want.iter().any(|(n, _)| !n.is_empty()));
        assert_eq!(dump(&without, "in"), want, "{input:?}");
        for (name, r) in Store::open(&without).unwrap().verify() {
            assert!(r.is_ok(), "{name}: {r:?}");
        }
        let again = add_in(&without, 36 << 20, &outcore_io::NoProgress).err().unwrap().to_string();
        assert!(again.contains("already has an in layout"), "{again}");
        assert!(!std::fs::read_dir(&without).unwrap().any(|e| e.unwrap().file_name().to_string_lossy().starts_with(".outcore-")));
    }
    let dir = tempfile::tempdir().unwrap();
    let undirected = dir.path().join("u");
    import_file(
        &shared().join("real/CA-GrQc.txt"),
        &undirected,
        &ImportOptions { directed: Some(false), ..Default::default() },
        &NoProgress,
    )
    .unwrap();
    let err = add_in(&undirected, 36 << 20, &outcore_io::NoProgress).err().unwrap().to_string();
    assert!(err.contains("undirected"), "{err}");
}
