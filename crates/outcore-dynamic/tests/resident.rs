//! A resident limit is kept: after a batch that grew the process past it,
//! the heap's mapped pages are written back and dropped. One test in its
//! own binary, so that no other test's memory moves the figures.

use outcore_dynamic::store::{DynamicStore, StoreOptions, Update};

/// This process's file-backed resident bytes (the heap's mapped pages
/// among them), from /proc/self/statm.
fn file_resident() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
    statm.split_whitespace().nth(2).unwrap().parse::<u64>().unwrap() * 4096
}

#[test]
fn a_resident_limit_drops_the_heap_pages_after_a_batch() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = DynamicStore::create(&dir.path().join("d"), StoreOptions { partitions: 1, ..Default::default() }).unwrap();
    let updates: Vec<Update> = (0..600_000u64).map(|i| Update::InsertEdge { u: i % 100_000, v: i * 7919 % 1_000_003, w: 1.0 }).collect();
    let before = file_resident();
    // a limit this process is already past: every batch ends by dropping
    store.set_resident_limit(Some(outcore_dynamic::store::resident_bytes() / 2));
    store.apply(&updates).unwrap();
    let heap = store.heap_bytes();
    let grown = file_resident().saturating_sub(before);
    assert!(heap > 8 << 20, "a heap of {heap} bytes is too small to see");
    assert!(grown < heap / 4, "the heap's pages stayed resident: {grown} bytes grown against a heap of {heap}");
    assert_eq!(store.arcs(), 600_000);
    // and without a limit the same batch leaves them resident, so the
    // figure above measures the drop, not a mapping that never faulted in
    let mut again = DynamicStore::create(&dir.path().join("e"), StoreOptions { partitions: 1, ..Default::default() }).unwrap();
    let before = file_resident();
    again.apply(&updates).unwrap();
    let kept = file_resident().saturating_sub(before);
    assert!(kept > heap / 2, "without a limit only {kept} bytes of a {heap}-byte heap were resident");
}
