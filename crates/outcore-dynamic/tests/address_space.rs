//! Many stores open in one process: each store reserves address space (not
//! memory) for its heaps, and a process has 128 TiB of it. A test binary
//! running tests in parallel, a Python session or MPI ranks checking their
//! parts hold many stores at once; CI once failed with ENOMEM when each
//! store reserved 16 TiB and two tests held five stores each.

use outcore_dynamic::store::{DynamicStore, StoreOptions, Update};

#[test]
fn forty_stores_with_four_partitions_each_are_open_at_once_and_work() {
    let dir = tempfile::tempdir().unwrap();
    let mut stores = Vec::new();
    for i in 0..40u64 {
        let path = dir.path().join(format!("s{i}"));
        let mut store = DynamicStore::create(&path, StoreOptions { partitions: 4, ..Default::default() }).unwrap();
        store.apply(&[Update::InsertEdge { u: i, v: i + 1, w: 1.0 }]).unwrap();
        store.commit().unwrap();
        stores.push(store);
    }
    // every store is still usable while the others are open
    for (i, store) in stores.iter().enumerate() {
        let mut arcs = Vec::new();
        store.for_each_edge(|u, e| arcs.push((u, e.target)));
        assert_eq!(arcs, vec![(i as u64, i as u64 + 1)]);
    }
    drop(stores);
    // and reopening them all at once works too
    let reopened: Vec<DynamicStore> = (0..40).map(|i| DynamicStore::open(&dir.path().join(format!("s{i}"))).unwrap()).collect();
    assert_eq!(reopened.iter().map(|s| s.arcs()).sum::<u64>(), 40);
}
