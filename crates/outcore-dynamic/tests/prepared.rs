//! The dynamic store's side of the distributed two-phase commit: a
//! prepared commit can be finished or dropped, in the process or after it
//! died; and updates routed by a distributed store (mirrors made
//! elsewhere, vertex deletes by a scan) give the same graph as the store's
//! own apply.

use outcore_dynamic::store::{DynamicStore, StoreOptions, Update};
use std::collections::BTreeMap;

fn edges(store: &DynamicStore) -> BTreeMap<(u64, u64), u32> {
    let mut out = BTreeMap::new();
    store.for_each_edge(|u, e| {
        out.insert((u, e.target), e.count);
    });
    out
}

fn inserts(from: u64, n: u64) -> Vec<Update> {
    (from..from + n).map(|i| Update::InsertEdge { u: i % 97, v: (i * 7) % 89, w: 1.0 }).collect()
}

#[test]
fn a_prepared_commit_left_by_a_dead_process_is_finished_or_dropped_as_decided() {
    let _bound = outcore_io::bound::watch("a_prepared_commit_left_by_a_dead_process_is_finished_or_dropped_as_decided");
    for commit in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d");
        let mut store = DynamicStore::create(&path, StoreOptions { partitions: 2, ..Default::default() }).unwrap();
        store.apply(&inserts(0, 500)).unwrap();
        store.commit().unwrap();
        let before = edges(&store);
        store.apply(&inserts(500, 3000)).unwrap();
        let after = edges(&store);
        assert_ne!(before, after);
        assert_eq!(store.prepare_commit().unwrap(), 3);
        drop(store); // the process dies between the two phases
        let err = DynamicStore::open(&path).err().expect("a pending commit is refused").to_string();
        assert!(err.contains("distributed commit") && err.contains("pending"), "{err}");
        assert_eq!(DynamicStore::prepared_epoch(&path).unwrap(), Some(3));
        assert_eq!(DynamicStore::resolve_prepared(&path, commit).unwrap(), Some(3));
        let store = DynamicStore::open(&path).unwrap();
        store.check().unwrap();
        if commit {
            assert_eq!((store.epoch(), edges(&store)), (3, after));
        } else {
            assert_eq!((store.epoch(), edges(&store)), (2, before));
        }
        drop(store);
        assert_eq!(DynamicStore::resolve_prepared(&path, commit).unwrap(), None, "nothing left pending");
    }
}

#[test]
fn a_prepared_commit_is_finished_or_aborted_in_the_process() {
    let _bound = outcore_io::bound::watch("a_prepared_commit_is_finished_or_aborted_in_the_process");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d");
    let mut store = DynamicStore::create(&path, StoreOptions::default()).unwrap();
    store.apply(&inserts(0, 400)).unwrap();
    store.prepare_commit().unwrap();
    store.finish_prepared().unwrap();
    let first = edges(&store);
    store.apply(&inserts(400, 400)).unwrap();
    store.prepare_commit().unwrap();
    store.abort_prepared().unwrap();
    assert_eq!((store.epoch(), edges(&store)), (2, first.clone()));
    store.apply(&inserts(800, 10)).unwrap();
    store.commit().unwrap();
    drop(store);
    let store = DynamicStore::open(&path).unwrap();
    assert_eq!(store.epoch(), 3);
    assert!(edges(&store).len() > first.len());
}

#[test]
fn routed_updates_and_scanned_vertex_deletes_give_the_stores_own_graph() {
    let _bound = outcore_io::bound::watch("routed_updates_and_scanned_vertex_deletes_give_the_stores_own_graph");
    for undirected in [false, true] {
        for multigraph in [false, true] {
            let opts = StoreOptions { partitions: 3, undirected, multigraph, threshold: 2, ..Default::default() };
            let dir = tempfile::tempdir().unwrap();
            let mut own = DynamicStore::create(&dir.path().join("own"), opts).unwrap();
            let mut routed = DynamicStore::create(&dir.path().join("routed"), opts).unwrap();
            let mut rng = 5u64;
            let mut updates = Vec::new();
            for _ in 0..4000 {
                rng = outcore_dynamic::hash::mix(rng);
                let (u, v) = (rng % 60, (rng >> 20) % 60);
                updates.push(match (rng >> 40) % 20 {
                    0..=12 => Update::InsertEdge { u, v, w: 1.0 },
                    13..=17 => Update::DeleteEdge { u, v },
                    18 => Update::SetProperty { u, value: v },
                    _ => Update::DeleteVertex { u },
                });
            }
            let want = own.apply(&updates).unwrap();
            // as a distributed store applies them: mirrors made by the
            // router, vertex deletes by a scan of every edge
            let mut got = outcore_dynamic::store::ApplyReport::default();
            for run in updates.chunk_by(|a, b| matches!(a, Update::DeleteVertex { .. }) == matches!(b, Update::DeleteVertex { .. })) {
                if let Update::DeleteVertex { .. } = run[0] {
                    for x in run {
                        let Update::DeleteVertex { u } = *x else { unreachable!() };
                        got.add(&routed.delete_vertices_everywhere(&[u]).unwrap().0);
                    }
                    continue;
                }
                let mut routed_run = Vec::new();
                for &x in run {
                    routed_run.push((x, false));
                    match x {
                        Update::InsertEdge { u, v, w } if undirected && u != v => {
                            routed_run.push((Update::InsertEdge { u: v, v: u, w }, true))
                        }
                        Update::DeleteEdge { u, v } if undirected && u != v => routed_run.push((Update::DeleteEdge { u: v, v: u }, true)),
                        _ => {}
                    }
                }
                got.add(&routed.apply_routed(&routed_run).unwrap());
            }
            assert_eq!(edges(&routed), edges(&own), "undirected {undirected} multigraph {multigraph}");
            assert_eq!(
                (got.updates, got.inserted, got.deleted, got.edges_of_deleted_vertices),
                (want.updates, want.inserted, want.deleted, want.edges_of_deleted_vertices)
            );
            for u in 0..60 {
                assert_eq!(routed.property(u), own.property(u));
            }
            routed.check().unwrap();
        }
    }
}
