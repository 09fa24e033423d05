//! A written limit is kept: after a batch, once the process's anonymous
//! memory passes the limit, the heap pages the batch wrote are written
//! back to the heap file and this process's copies dropped. One test in
//! its own binary, so that no other test's memory moves the figures.

use outcore_dynamic::store::{written_bytes, DynamicStore, StoreOptions, Update};

/// What `written_bytes` grows by while a store of its own, holding
/// 400,000 committed edges, takes a batch that deletes every other one
/// (writing the committed pages of its table in place), under `limit`;
/// and the store's heap bytes.
fn growth_under(limit: u64) -> (u64, u64) {
    let dir = tempfile::tempdir().unwrap();
    let mut store = DynamicStore::create(&dir.path().join("d"), StoreOptions { partitions: 1, ..StoreOptions::default() }).unwrap();
    let edge = |i: u64| (i, (i * 7919) % 400_000 + 1);
    store.apply(&(0..400_000u64).map(|i| Update::InsertEdge { u: edge(i).0, v: edge(i).1, w: 1.0 }).collect::<Vec<_>>()).unwrap();
    store.commit().unwrap();
    let deletes: Vec<Update> = (0..400_000u64).step_by(2).map(|i| Update::DeleteEdge { u: edge(i).0, v: edge(i).1 }).collect();
    store.set_written_limit(limit);
    let before = written_bytes();
    let report = store.apply(&deletes).unwrap();
    assert_eq!(report.deleted, 200_000);
    let grew = written_bytes().saturating_sub(before);
    (grew, store.heap_bytes())
}

#[test]
fn a_written_limit_writes_back_what_a_batch_wrote() {
    let _bound = outcore_io::bound::watch("a_written_limit_writes_back_what_a_batch_wrote");
    // without a limit that binds, the batch's heap pages stay this process's
    let (kept, heap) = growth_under(u64::MAX);
    assert!(heap >= 8 << 20, "a heap of {heap} bytes");
    assert!(kept >= heap / 2, "written bytes grew by {kept} with a heap of {heap} and no limit");
    // with one that does, they are written back after the batch
    let (left, heap) = growth_under(1);
    assert!(left < heap / 4, "written bytes grew by {left} with a heap of {heap} under a limit of 1 byte");
}
