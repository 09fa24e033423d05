//! What the mutation sample of the dynamic store found no test for
//! (bench/mutants dynamic): the sum of apply reports, the property a
//! vertex keeps, creating a store in an empty directory, comment lines of
//! a text update stream; and, in a later sample, the count of missing
//! vertices, tables grown rather than rehashed, room made for a run of
//! inserts at once, a snapshot's progress, a table outside its heap
//! refused at open, each update's text form, the tables' statistics,
//! tombstones rehashed away neither late nor early, and a snapshot's
//! direction and weights; and, in the sample of 2026-12-05, a text
//! stream's batch size, the floor of a stream's batch, each mapping's
//! share of the address space, the count of inserted vertices, a vertex
//! given twice keeping its entry, an undirected multigraph's snapshot,
//! written-back deletes and inserts undone at open and a damaged chunk header
//! reported by check. (The written limit has a binary of its own,
//! tests/written.rs.)

use outcore_dynamic::store::{ApplyReport, DynamicStore, StoreOptions, Update};
use outcore_dynamic::updates::{StreamFormat, UpdateReader};

/// Adding reports adds every counter (a batched apply reports the sum of
/// its batches).
#[test]
fn reports_add_field_by_field() {
    let _bound = outcore_io::bound::watch("reports_add_field_by_field");
    let a = ApplyReport {
        updates: 2,
        inserted: 3,
        existing: 5,
        deleted: 7,
        missing: 11,
        vertices_inserted: 13,
        properties_set: 17,
        vertices_deleted: 19,
        vertices_missing: 23,
        edges_of_deleted_vertices: 29,
    };
    let mut sum = a;
    sum.add(&a);
    let doubled = ApplyReport {
        updates: 4,
        inserted: 6,
        existing: 10,
        deleted: 14,
        missing: 22,
        vertices_inserted: 26,
        properties_set: 34,
        vertices_deleted: 38,
        vertices_missing: 46,
        edges_of_deleted_vertices: 58,
    };
    assert_eq!(sum, doubled);
}

/// A property set on a vertex reads back as set, before and after a
/// commit and a reopen; a vertex without one has none or 0.
#[test]
fn a_property_reads_back_as_set() {
    let _bound = outcore_io::bound::watch("a_property_reads_back_as_set");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d");
    let mut store = DynamicStore::create(&path, StoreOptions::default()).unwrap();
    let mut updates = vec![Update::InsertEdge { u: 1, v: 2, w: 1.0 }, Update::InsertVertex { u: 9 }];
    updates.extend((10..60).map(|u| Update::SetProperty { u, value: u * 1000 + 7 }));
    let report = store.apply(&updates).unwrap();
    assert_eq!(report.properties_set, 50);
    for u in 10..60 {
        assert_eq!(store.property(u), Some(u * 1000 + 7), "vertex {u}");
    }
    store.commit().unwrap();
    drop(store);
    let store = DynamicStore::open(&path).unwrap();
    for u in 10..60 {
        assert_eq!(store.property(u), Some(u * 1000 + 7), "vertex {u} after a reopen");
    }
    assert!(matches!(store.property(9), None | Some(0)), "{:?}", store.property(9));
}

/// A store may be made in an empty directory, never in one holding
/// anything else.
#[test]
fn a_store_is_created_in_an_empty_directory_only() {
    let _bound = outcore_io::bound::watch("a_store_is_created_in_an_empty_directory_only");
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let store = DynamicStore::create(&empty, StoreOptions::default()).unwrap();
    drop(store);
    let full = dir.path().join("full");
    std::fs::create_dir(&full).unwrap();
    std::fs::write(full.join("notes.txt"), "mine").unwrap();
    let err = DynamicStore::create(&full, StoreOptions::default()).err().expect("a store over a user's directory").to_string();
    assert!(err.contains("1 entry") && err.contains("not a dynamic store"), "{err}");
    assert_eq!(std::fs::read_to_string(full.join("notes.txt")).unwrap(), "mine");
}

/// Blank lines and lines starting with `#` or `%` in a text stream are
/// comments: the updates are the other lines, in order.
#[test]
fn comment_lines_of_a_text_stream_are_skipped() {
    let _bound = outcore_io::bound::watch("comment_lines_of_a_text_stream_are_skipped");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("u.txt");
    std::fs::write(&path, "# inserts\n+ 1 2\n\n% a delete\n- 1 2\n#\n= 3 4\n").unwrap();
    let mut reader = UpdateReader::open(&path, Some(StreamFormat::Text), 100, false).unwrap();
    let mut batch = Vec::new();
    reader.next_batch(&mut batch, 100).unwrap();
    assert_eq!(
        batch,
        [Update::InsertEdge { u: 1, v: 2, w: 1.0 }, Update::DeleteEdge { u: 1, v: 2 }, Update::SetProperty { u: 3, value: 4 }]
    );
    reader.next_batch(&mut batch, 100).unwrap();
    assert!(batch.is_empty());
}

/// A hub's chunk, in the table statistics (`stats`): its live entries
/// counted, some removed ones as tombstones, until the table shrinks once
/// most are gone.
#[test]
fn a_hubs_chunk_is_counted_and_shrinks_after_deletes() {
    let _bound = outcore_io::bound::watch("a_hubs_chunk_is_counted_and_shrinks_after_deletes");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d");
    let mut store = with_hub(&path, 5000);
    let full = store.table_stats()[0];
    assert_eq!((full.chunks, full.chunk_live), (1, 5000), "{full:?}");
    assert!(full.chunk_slots >= 5000, "{full:?}");
    store.apply(&(0..100).map(|v| Update::DeleteEdge { u: 1, v: 10 + v }).collect::<Vec<_>>()).unwrap();
    let few = store.table_stats()[0];
    assert_eq!(few.chunk_live, 4900, "{few:?}");
    // a removal shifts its successors back where it can, else leaves a tombstone
    assert!((1..=100).contains(&few.chunk_tombstones), "{few:?}");
    store.apply(&(100..4950).map(|v| Update::DeleteEdge { u: 1, v: 10 + v }).collect::<Vec<_>>()).unwrap();
    let most = store.table_stats()[0];
    assert_eq!(most.chunk_live, 50, "{most:?}");
    assert!(most.chunk_slots * 8 <= full.chunk_slots, "the chunk kept {} slots for 50 entries: {most:?}", most.chunk_slots);
    store.check().unwrap();
}

/// The shared tables (low-degree edges, vertices) shrink after a batch
/// whose deletes leave them mostly empty, and what is left reads back.
#[test]
fn the_shared_tables_shrink_after_deletes() {
    let _bound = outcore_io::bound::watch("the_shared_tables_shrink_after_deletes");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d");
    let mut store = DynamicStore::create(&path, StoreOptions { partitions: 1, ..Default::default() }).unwrap();
    let n = 20_000u64;
    // sources 0..n with one edge each (the low-degree table), and isolated
    // vertices n..2n (the vertex table)
    let mut batch: Vec<Update> = (0..n).map(|u| Update::InsertEdge { u, v: u + 1, w: 1.0 }).collect();
    batch.extend((n..2 * n).map(|u| Update::InsertVertex { u }));
    store.apply(&batch).unwrap();
    let full = store.table_stats()[0];
    assert_eq!((full.low_live, full.vertex_live), (n, n), "{full:?}");
    assert!(full.low_slots >= n && full.vertex_slots >= n, "{full:?}");
    // delete the edges of all but 100 sources, and all but 100 vertices
    let mut gone: Vec<Update> = (100..n).map(|u| Update::DeleteEdge { u, v: u + 1 }).collect();
    gone.extend((n + 100..2 * n).map(|u| Update::DeleteVertex { u }));
    store.apply(&gone).unwrap();
    let few = store.table_stats()[0];
    assert_eq!((few.low_live, few.vertex_live), (100, 100), "{few:?}");
    assert!(few.low_slots * 8 <= full.low_slots, "the low-degree table kept {} slots for 100 edges: {few:?}", few.low_slots);
    assert!(few.vertex_slots * 8 <= full.vertex_slots, "the vertex table kept {} slots for 100 vertices: {few:?}", few.vertex_slots);
    for u in 0..100 {
        assert_eq!(store.neighbours(u).iter().map(|e| e.target).collect::<Vec<_>>(), [u + 1], "vertex {u}");
    }
    assert_eq!(store.arcs(), 100);
    store.check().unwrap();
}

/// A hub whose neighbours all hash to the same home slot (ids a user
/// could pick on purpose) overfills a chunk's probe range: the chunk grows
/// until they fit, and when deletes shrink it, the smaller chunk they
/// would overfill again is made larger until they fit. Every edge reads
/// back. Run under a time bound: a rebuild that never fits would
/// otherwise hang the suite.
#[test]
fn a_hub_of_colliding_neighbours_gets_a_chunk_they_fit() {
    let _bound = outcore_io::bound::watch("a_hub_of_colliding_neighbours_gets_a_chunk_they_fit");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        // 300 ids whose hashes share their top 8 bits: one home slot in
        // any chunk of up to 256 slots, and more than a probe reaches
        // (126) in one run until the chunk spreads them over hundreds
        let targets: Vec<u64> = (1u64..).filter(|&v| outcore_dynamic::hash::mix(v) >> 56 == 0x5a).take(300).collect();
        let dir = tempfile::tempdir().unwrap();
        let mut store = DynamicStore::create(&dir.path().join("d"), StoreOptions { partitions: 1, ..Default::default() }).unwrap();
        let report = store.apply(&targets.iter().map(|&v| Update::InsertEdge { u: 0, v, w: 1.0 }).collect::<Vec<_>>()).unwrap();
        let grown = store.table_stats()[0];
        // one delete leaves the chunk mostly empty: rebuilt at the smallest
        // capacity that fits 299 edges by count, which they overfill
        store.apply(&[Update::DeleteEdge { u: 0, v: targets[0] }]).unwrap();
        let mut got: Vec<u64> = store.neighbours(0).iter().map(|e| e.target).collect();
        got.sort_unstable();
        store.check().unwrap();
        let shrunk = store.table_stats()[0];
        // further deletes do not rebuild it again and again
        let rebuilds = store.counts().rehashes;
        store.apply(&targets[1..51].iter().map(|&v| Update::DeleteEdge { u: 0, v }).collect::<Vec<_>>()).unwrap();
        let rebuilt = store.counts().rehashes - rebuilds;
        assert!(rebuilt <= 1, "50 deletes rebuilt the chunk {rebuilt} times");
        assert_eq!(store.degree(0), 249);
        store.check().unwrap();
        tx.send((targets, report.inserted, got, grown, shrunk)).unwrap();
    });
    let (targets, inserted, got, grown, shrunk) =
        rx.recv_timeout(std::time::Duration::from_secs(120)).expect("the updates finish within 2 minutes");
    assert_eq!(inserted, 300);
    assert_eq!(got, targets[1..]);
    assert_eq!((grown.chunks, grown.chunk_live), (1, 300), "{grown:?}");
    assert_eq!((shrunk.chunks, shrunk.chunk_live), (1, 299), "{shrunk:?}");
    // 299 edges by count would take 512 slots: these took more
    assert!(shrunk.chunk_slots > 1024 && shrunk.chunk_max_probe <= 126, "{shrunk:?}");
}

/// The low-degree threshold is at most 64: a vertex's low-degree edges
/// share one key, and a longer run of them could never be inserted. At 64,
/// a vertex's 63 edges sit in the low-degree table among many others.
#[test]
fn the_threshold_is_bounded_and_its_largest_value_works() {
    let _bound = outcore_io::bound::watch("the_threshold_is_bounded_and_its_largest_value_works");
    let dir = tempfile::tempdir().unwrap();
    let err = DynamicStore::create(&dir.path().join("x"), StoreOptions { threshold: 65, ..Default::default() }).err().unwrap().to_string();
    assert!(err.contains("threshold") && err.contains("between 1 and 64"), "{err}");
    let mut store = DynamicStore::create(&dir.path().join("d"), StoreOptions { threshold: 64, ..Default::default() }).unwrap();
    let edges: Vec<Update> = (0..2000u64).flat_map(|u| (1..64).map(move |k| Update::InsertEdge { u, v: u + k, w: 1.0 })).collect();
    store.apply(&edges).unwrap();
    let stats = store.table_stats()[0];
    assert_eq!((stats.low_live, stats.chunks), (2000 * 63, 0), "{stats:?}");
    assert_eq!(store.degree(1999), 63);
    store.check().unwrap();
}

/// A binary update stream reads back as written, in batches of the size
/// asked (the last one shorter), then nothing.
#[test]
fn a_binary_stream_reads_back_in_batches() {
    let _bound = outcore_io::bound::watch("a_binary_stream_reads_back_in_batches");
    use outcore_dynamic::updates::{encode, BINARY_MAGIC};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("u.bin");
    let updates: Vec<Update> = (0..10u64)
        .map(|i| match i % 5 {
            0 => Update::InsertEdge { u: i, v: i + 1, w: 0.5 },
            1 => Update::DeleteEdge { u: i, v: 3 },
            2 => Update::InsertVertex { u: i },
            3 => Update::SetProperty { u: i, value: 1 << 40 },
            _ => Update::DeleteVertex { u: i },
        })
        .collect();
    let bytes: Vec<u8> = BINARY_MAGIC.iter().copied().chain(updates.iter().flat_map(encode)).collect();
    std::fs::write(&path, bytes).unwrap();
    assert_eq!(batches_of(&path, StreamFormat::Binary, 4), ([4, 4, 2].to_vec(), updates));
}

/// A stream's batch is half the budget at 128 bytes an update, between
/// 4,096 and 2^26 updates.
#[test]
fn a_streams_batch_is_half_its_budget() {
    let _bound = outcore_io::bound::watch("a_streams_batch_is_half_its_budget");
    use outcore_dynamic::stream::batch_for;
    assert_eq!(batch_for(1 << 30), (1 << 30) / 256);
    assert_eq!(batch_for(64 << 20), (64 << 20) / 256);
    assert_eq!(batch_for(1 << 20), 4096);
    // below a MiB the floor holds: 4,096 updates, not half the budget's worth
    assert_eq!(batch_for(1 << 19), 4096);
    assert_eq!(batch_for(0), 4096);
    assert_eq!(batch_for(1 << 40), 1 << 26);
}

/// A text stream's batches hold exactly as many updates as asked for,
/// the last one the rest (as a binary stream's do).
#[test]
fn a_text_stream_reads_back_in_batches() {
    let _bound = outcore_io::bound::watch("a_text_stream_reads_back_in_batches");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("u.txt");
    let updates: Vec<Update> = (0..10u64).map(|i| Update::InsertEdge { u: i, v: i + 1, w: 1.0 }).collect();
    let text: String = (0..10u64).map(|i| format!("+ {i} {}\n", i + 1)).collect();
    std::fs::write(&path, text).unwrap();
    assert_eq!(batches_of(&path, StreamFormat::Text, 4), ([4, 4, 2].to_vec(), updates));
}

/// The sizes of the batches of `batch` updates a stream is read in, and
/// the updates.
fn batches_of(path: &std::path::Path, format: StreamFormat, batch: usize) -> (Vec<usize>, Vec<Update>) {
    let mut reader = UpdateReader::open(path, Some(format), batch, false).unwrap();
    let (mut updates, mut got, mut sizes) = (Vec::new(), Vec::new(), Vec::new());
    loop {
        reader.next_batch(&mut updates, batch).unwrap();
        if updates.is_empty() {
            return (sizes, got);
        }
        sizes.push(updates.len());
        got.extend_from_slice(&updates);
    }
}

/// Each mapping's address space is the largest power of two that lets
/// `maps` of them share the store's, up to 1 TiB.
#[test]
fn mappings_share_the_stores_address_space() {
    let _bound = outcore_io::bound::watch("mappings_share_the_stores_address_space");
    use outcore_dynamic::heap::{reserve_for, STORE_ADDRESS_SPACE};
    assert_eq!(reserve_for(0), 1 << 40);
    assert_eq!(reserve_for(1), 1 << 40);
    assert_eq!(reserve_for(4), 1 << 40);
    assert_eq!(reserve_for(5), 1 << 39);
    assert_eq!(reserve_for(8), 1 << 39);
    assert_eq!(reserve_for(9), 1 << 38);
    for maps in 1..200 {
        let each = reserve_for(maps);
        assert!(each.is_power_of_two() && each * maps <= STORE_ADDRESS_SPACE, "{maps} maps of {each} bytes");
        assert!(each == 1 << 40 || each * 2 * maps > STORE_ADDRESS_SPACE, "{maps} maps of {each} bytes: twice as much would fit");
    }
}

/// Inserting vertices is counted in the report, one an update.
#[test]
fn inserted_vertices_are_counted() {
    let _bound = outcore_io::bound::watch("inserted_vertices_are_counted");
    let dir = tempfile::tempdir().unwrap();
    let mut store = DynamicStore::create(&dir.path().join("d"), StoreOptions::default()).unwrap();
    let report =
        store.apply(&[Update::InsertVertex { u: 5 }, Update::InsertEdge { u: 5, v: 6, w: 1.0 }, Update::InsertVertex { u: 7 }]).unwrap();
    assert_eq!((report.updates, report.inserted, report.vertices_inserted), (3, 1, 2), "{report:?}");
}

/// Without a resident limit, written pages are written back past a
/// quarter of what the process may use: at most a quarter of the
/// machine's memory, and not a token figure.
#[test]
fn the_default_written_limit_is_a_quarter_of_memory() {
    let _bound = outcore_io::bound::watch("the_default_written_limit_is_a_quarter_of_memory");
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap();
    let total_kib: u64 = meminfo.lines().find(|l| l.starts_with("MemTotal:")).unwrap().split_whitespace().nth(1).unwrap().parse().unwrap();
    let limit = outcore_dynamic::store::default_written_limit();
    assert!(limit <= total_kib * 1024 / 4, "{limit} bytes of a machine of {total_kib} KiB");
    assert!(limit >= 16 << 20, "a written limit of {limit} bytes");
}

/// The free space that growing chunks leave behind is kept across a
/// reopen: the free lists are saved at a commit and read back, so the
/// heap neither leaks it nor grows.
#[test]
fn free_space_survives_a_reopen() {
    let _bound = outcore_io::bound::watch("free_space_survives_a_reopen");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d");
    let mut store = DynamicStore::create(&path, StoreOptions { partitions: 1, ..StoreOptions::default() }).unwrap();
    // a hub whose chunk grows batch by batch, each commit freeing the last one
    for (from, to) in [(1, 10), (11, 100), (101, 2000)] {
        store.apply(&(from..=to).map(|v| Update::InsertEdge { u: 0, v, w: 1.0 }).collect::<Vec<_>>()).unwrap();
        store.commit().unwrap();
    }
    let (free, heap) = (store.free_bytes(), store.heap_bytes());
    assert!(free >= 100 * 8, "only {free} bytes free after a chunk grew past 100 slots");
    drop(store);
    let store = DynamicStore::open(&path).unwrap();
    assert_eq!((store.free_bytes(), store.heap_bytes()), (free, heap), "free and heap bytes after a reopen");
    store.check().unwrap();
    assert_eq!(store.degree(0), 2000);
}

/// `written_bytes` is this process's anonymous resident memory, in bytes:
/// touching 64 MiB of fresh heap raises it by most of that.
#[test]
fn written_bytes_counts_touched_heap_pages() {
    let _bound = outcore_io::bound::watch("written_bytes_counts_touched_heap_pages");
    let before = outcore_dynamic::store::written_bytes();
    let mut touched = vec![0u8; 64 << 20];
    for page in touched.chunks_mut(4096) {
        page[0] = 1;
    }
    let after = outcore_dynamic::store::written_bytes();
    assert!(after >= before + (48 << 20), "{before} bytes, then {after} with 64 MiB touched");
    assert_eq!(touched.iter().step_by(4096).map(|&b| b as usize).sum::<usize>(), 16384);
}

/// Deleting vertices reports how many the store had (an entry, out-edges
/// or an edge to it) and how many it did not, directed (found by a scan)
/// and undirected (found as mirrors).
#[test]
fn deleted_and_missing_vertices_are_counted() {
    let _bound = outcore_io::bound::watch("deleted_and_missing_vertices_are_counted");
    for undirected in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d");
        let mut store = DynamicStore::create(&path, StoreOptions { undirected, ..StoreOptions::default() }).unwrap();
        store.apply(&[(1, 2), (2, 3), (4, 5)].map(|(u, v)| Update::InsertEdge { u, v, w: 1.0 })).unwrap();
        let report = store.apply(&[1, 3, 7, 8, 9].map(|u| Update::DeleteVertex { u })).unwrap();
        assert_eq!((report.updates, report.vertices_deleted, report.vertices_missing), (5, 2, 3), "undirected {undirected}: {report:?}");
        store.check().unwrap();
    }
}

/// Inserts alone never rehash a table in place: a table that fills grows
/// (rehashing is for tables full of removed entries).
#[test]
fn inserts_grow_tables_and_never_rehash_them() {
    let _bound = outcore_io::bound::watch("inserts_grow_tables_and_never_rehash_them");
    let dir = tempfile::tempdir().unwrap();
    let mut store = DynamicStore::create(&dir.path().join("d"), StoreOptions { partitions: 1, ..StoreOptions::default() }).unwrap();
    for batch in 0..10u64 {
        store.apply(&(0..1000).map(|i| Update::InsertEdge { u: batch * 1000 + i, v: i + 1, w: 1.0 }).collect::<Vec<_>>()).unwrap();
    }
    let counts = store.counts();
    assert!(counts.grows > 0 && counts.rehashes == 0, "{counts:?}");
}

/// A run of inserts from one source, in one batch, makes room for all of
/// them at once: a hub of 5,000 edges grows its chunk once or twice, not
/// a doubling at a time.
#[test]
fn a_run_of_inserts_makes_room_at_once() {
    let _bound = outcore_io::bound::watch("a_run_of_inserts_makes_room_at_once");
    let dir = tempfile::tempdir().unwrap();
    let mut store = DynamicStore::create(&dir.path().join("d"), StoreOptions { partitions: 1, ..StoreOptions::default() }).unwrap();
    store.apply(&(0..5000).map(|v| Update::InsertEdge { u: 1, v: 10 + v, w: 1.0 }).collect::<Vec<_>>()).unwrap();
    let counts = store.counts();
    assert!(counts.grows <= 2, "{counts:?}");
    assert_eq!(store.degree(1), 5000);
}

/// A snapshot moves its progress bar as it reads the edges, not only at
/// its end.
#[test]
fn a_snapshot_reports_its_progress() {
    let _bound = outcore_io::bound::watch("a_snapshot_reports_its_progress");
    use std::sync::Mutex;
    /// Each phase begun with its total, and each position set in it.
    #[derive(Default)]
    struct Recorder {
        phase: Mutex<String>,
        begun: Mutex<Vec<(String, u64)>>,
        set: Mutex<Vec<(String, u64)>>,
    }
    impl outcore_io::Progress for Recorder {
        fn begin(&self, phase: &str, total: u64, _: bool) {
            *self.phase.lock().unwrap() = phase.to_string();
            self.begun.lock().unwrap().push((phase.to_string(), total));
        }
        fn set(&self, position: u64) {
            let phase = self.phase.lock().unwrap().clone();
            self.set.lock().unwrap().push((phase, position));
        }
        fn end(&self) {}
    }
    let dir = tempfile::tempdir().unwrap();
    let mut store = DynamicStore::create(&dir.path().join("d"), StoreOptions { partitions: 2, ..StoreOptions::default() }).unwrap();
    let arcs = 3 << 16;
    store.apply(&(0..arcs).map(|i| Update::InsertEdge { u: i % 5000, v: i, w: 1.0 }).collect::<Vec<_>>()).unwrap();
    let recorder = Recorder::default();
    outcore_dynamic::snapshot::snapshot(&store, &dir.path().join("s"), Default::default(), &recorder).unwrap();
    let begun = recorder.begun.lock().unwrap().clone();
    assert!(begun.contains(&("snapshot".to_string(), arcs)), "{begun:?}");
    let moved: Vec<u64> = recorder.set.lock().unwrap().iter().filter(|(p, _)| p == "snapshot").map(|e| e.1).collect();
    assert!(moved.len() >= 2 && moved.iter().all(|&at| at > 0 && at <= arcs), "{moved:?}");
}

/// A STATE whose table lies outside its heap, or holds more entries than
/// slots, is refused at open with the file and the table named, whatever
/// else about the table is right (a capacity that is a power of two).
#[test]
fn a_table_outside_its_heap_is_refused_at_open() {
    let _bound = outcore_io::bound::watch("a_table_outside_its_heap_is_refused_at_open");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d");
    let mut store = DynamicStore::create(&path, StoreOptions { partitions: 1, ..StoreOptions::default() }).unwrap();
    store.apply(&(0..100).map(|i| Update::InsertEdge { u: i, v: i + 1, w: 1.0 }).collect::<Vec<_>>()).unwrap();
    store.commit().unwrap();
    drop(store);
    let state = path.join("STATE");
    let text = std::fs::read_to_string(&state).unwrap();
    let original: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert!(original["partitions"][0]["low"]["cap"].as_u64().unwrap().is_power_of_two());
    for (field, value) in [("off", 1u64 << 50), ("live", u64::MAX), ("tombs", u64::MAX)] {
        let mut v = original.clone();
        v["partitions"][0]["low"][field] = value.into();
        std::fs::write(&state, v.to_string()).unwrap();
        let err = DynamicStore::open(&path).err().unwrap_or_else(|| panic!("{field} {value} opened")).to_string();
        assert!(
            err.contains("STATE") && err.contains("the low-degree table") && err.contains("not a table inside its heap"),
            "{field}: {err}"
        );
    }
    std::fs::write(&state, &text).unwrap();
    DynamicStore::open(&path).unwrap().check().unwrap();
}

/// `to_text` writes each kind of update as the text stream reads it back.
#[test]
fn every_update_reads_back_from_its_text() {
    let _bound = outcore_io::bound::watch("every_update_reads_back_from_its_text");
    let updates = [
        Update::InsertEdge { u: 1, v: 2, w: 1.0 },
        Update::InsertEdge { u: 3, v: 4, w: 0.5 },
        Update::DeleteEdge { u: 5, v: 6 },
        Update::InsertVertex { u: 7 },
        Update::DeleteVertex { u: 8 },
        Update::SetProperty { u: 9, value: 10 },
    ];
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("u.txt");
    let text: String = updates.iter().map(|x| outcore_dynamic::updates::to_text(x) + "\n").collect();
    std::fs::write(&path, &text).unwrap();
    let mut reader = UpdateReader::open(&path, Some(StreamFormat::Text), 100, true).unwrap();
    let mut batch = Vec::new();
    reader.next_batch(&mut batch, 100).unwrap();
    assert_eq!(batch, updates, "{text}");
}

/// The low-degree table's statistics (`stats`): its live entries, the
/// slots they take, how far they sit from their home slot, and the
/// tombstones deletes leave.
#[test]
fn the_low_degree_tables_statistics_add_up() {
    let _bound = outcore_io::bound::watch("the_low_degree_tables_statistics_add_up");
    let dir = tempfile::tempdir().unwrap();
    let mut store = DynamicStore::create(&dir.path().join("d"), StoreOptions { partitions: 1, ..StoreOptions::default() }).unwrap();
    store.apply(&(0..20_000).map(|u| Update::InsertEdge { u, v: u + 1, w: 1.0 }).collect::<Vec<_>>()).unwrap();
    let full = store.table_stats()[0];
    assert_eq!(full.low_live, 20_000, "{full:?}");
    assert!(full.low_slots.is_power_of_two() && full.low_slots * 9 >= full.low_live * 10, "{full:?}");
    // at 90% load some entries sit past their home slot
    assert!(full.low_max_probe >= 1 && full.low_probe_sum >= full.low_max_probe as u64, "{full:?}");
    assert!(full.low_probe_sum < full.low_live * full.low_max_probe as u64, "{full:?}");
    store.apply(&(0..20_000).step_by(4).map(|u| Update::DeleteEdge { u, v: u + 1 }).collect::<Vec<_>>()).unwrap();
    let fewer = store.table_stats()[0];
    assert_eq!(fewer.low_live, 15_000, "{fewer:?}");
    assert!((1..=5_000).contains(&fewer.low_tombstones), "{fewer:?}");
    store.check().unwrap();
}

/// The vertex table's statistics: vertices given by themselves are its
/// live entries, and at 90% load some sit past their home slot.
#[test]
fn the_vertex_tables_statistics_add_up() {
    let _bound = outcore_io::bound::watch("the_vertex_tables_statistics_add_up");
    let dir = tempfile::tempdir().unwrap();
    let mut store = DynamicStore::create(&dir.path().join("d"), StoreOptions { partitions: 1, ..StoreOptions::default() }).unwrap();
    store.apply(&(0..20_000).map(|u| Update::InsertVertex { u }).collect::<Vec<_>>()).unwrap();
    let s = store.table_stats()[0];
    assert_eq!(s.vertex_live, 20_000, "{s:?}");
    assert!(s.vertex_slots * 9 >= s.vertex_live * 10, "{s:?}");
    assert!(s.vertex_max_probe >= 1, "{s:?}");
}

/// Deletes and inserts that keep a table's size leave tombstones, and the
/// table is rehashed when they and the live entries would pass 90% of
/// its slots.
#[test]
fn tombstones_are_rehashed_away_before_a_table_fills() {
    let _bound = outcore_io::bound::watch("tombstones_are_rehashed_away_before_a_table_fills");
    let dir = tempfile::tempdir().unwrap();
    let mut store = DynamicStore::create(&dir.path().join("d"), StoreOptions { partitions: 1, ..StoreOptions::default() }).unwrap();
    store.apply(&(0..4_000).map(|u| Update::InsertEdge { u, v: u + 1, w: 1.0 }).collect::<Vec<_>>()).unwrap();
    let mut most = 0;
    for round in 1..=40u64 {
        // delete 400 of the live edges and insert 400 new ones
        let mut batch: Vec<Update> = ((round - 1) * 400..round * 400).map(|u| Update::DeleteEdge { u, v: u + 1 }).collect();
        batch.extend((0..400).map(|i| 4_000 + (round - 1) * 400 + i).map(|u| Update::InsertEdge { u, v: u + 1, w: 1.0 }));
        store.apply(&batch).unwrap();
        let s = store.table_stats()[0];
        assert_eq!(s.low_live, 4_000, "round {round}: {s:?}");
        assert!((s.low_live + s.low_tombstones) * 10 <= s.low_slots * 9, "round {round}: {s:?}");
        most = most.max(s.low_tombstones);
    }
    // and not before: tombstones gather until then (a rehash every few
    // rounds, not at every insert)
    let counts = store.counts();
    assert!(most >= 1_000 && (1..=10).contains(&counts.rehashes), "at most {most} tombstones, {counts:?}");
    store.check().unwrap();
}

/// A snapshot of a directed, weighted store is a directed, weighted static
/// store, whose arcs and weights are the dynamic store's.
#[test]
fn a_snapshot_keeps_direction_and_weights() {
    let _bound = outcore_io::bound::watch("a_snapshot_keeps_direction_and_weights");
    let dir = tempfile::tempdir().unwrap();
    let options = StoreOptions { partitions: 2, weighted: true, ..StoreOptions::default() };
    let mut store = DynamicStore::create(&dir.path().join("d"), options).unwrap();
    store.apply(&[(1, 2, 0.5), (2, 1, 2.5), (2, 3, 4.0)].map(|(u, v, w)| Update::InsertEdge { u, v, w })).unwrap();
    let target = dir.path().join("s");
    outcore_dynamic::snapshot::snapshot(&store, &target, Default::default(), &outcore_io::NoProgress).unwrap();
    let snap = outcore_store::Store::open(&target).unwrap();
    assert!(snap.manifest().directed);
    assert_eq!(snap.manifest().arcs, 3);
    let out = snap.layout("out").unwrap();
    assert!(out.weights_path().is_some(), "the snapshot kept no weights");
    let weights = std::fs::read(out.weights_path().unwrap()).unwrap();
    let mut weights: Vec<f32> = weights.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
    weights.sort_by(f32::total_cmp);
    assert_eq!(weights, [0.5, 2.5, 4.0]);
}

/// A vertex given twice (inserted, then its property set) stays given:
/// when deletes take its edges below the threshold and its chunk goes,
/// its entry stays, with its property.
#[test]
fn a_vertex_given_twice_keeps_its_property_when_its_chunk_goes() {
    let _bound = outcore_io::bound::watch("a_vertex_given_twice_keeps_its_property_when_its_chunk_goes");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d");
    let mut store = with_hub(&path, 20);
    assert_eq!(store.table_stats()[0].chunks, 1);
    store.apply(&[Update::InsertVertex { u: 1 }]).unwrap();
    store.apply(&[Update::SetProperty { u: 1, value: 77 }]).unwrap();
    store.apply(&(0..18).map(|v| Update::DeleteEdge { u: 1, v: 10 + v }).collect::<Vec<_>>()).unwrap();
    assert_eq!(store.table_stats()[0].chunks, 0, "the chunk of 2 edges stayed");
    assert_eq!((store.degree(1), store.property(1)), (2, Some(77)));
    store.commit().unwrap();
    drop(store);
    let store = DynamicStore::open(&path).unwrap();
    assert_eq!((store.degree(1), store.property(1)), (2, Some(77)), "after a reopen");
    store.check().unwrap();
}

/// An undirected multigraph's snapshot holds each copy of an edge once in
/// each direction: the store keeps both arcs, the snapshot feeds one.
#[test]
fn an_undirected_multigraphs_snapshot_holds_each_copy_once() {
    let _bound = outcore_io::bound::watch("an_undirected_multigraphs_snapshot_holds_each_copy_once");
    let dir = tempfile::tempdir().unwrap();
    let options = StoreOptions { partitions: 2, undirected: true, multigraph: true, ..StoreOptions::default() };
    let mut store = DynamicStore::create(&dir.path().join("d"), options).unwrap();
    store.apply(&[(1, 2), (2, 1), (2, 3), (4, 4)].map(|(u, v)| Update::InsertEdge { u, v, w: 1.0 })).unwrap();
    let target = dir.path().join("s");
    outcore_dynamic::snapshot::snapshot(&store, &target, Default::default(), &outcore_io::NoProgress).unwrap();
    let snap = outcore_store::Store::open(&target).unwrap();
    assert!(!snap.manifest().directed);
    // (1, 2) twice and (2, 3) as two arcs each, the self loop as one
    assert_eq!(snap.manifest().arcs, 7);
}

/// A batch whose pages were written back to the heap file (a written
/// limit of one byte) and that was never committed is undone at the next
/// open: the undo log's frames, full ones of 64 KiB included, are read
/// back, and the store holds its last commit.
#[test]
fn a_written_back_batch_without_a_commit_is_undone_at_open() {
    let _bound = outcore_io::bound::watch("a_written_back_batch_without_a_commit_is_undone_at_open");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d");
    let mut store = committed_low_degree_store(&path);
    let committed = store.arcs();
    store.set_written_limit(1);
    let deletes: Vec<Update> = (0..100_000u64).step_by(2).map(|i| Update::DeleteEdge { u: edge(i).0, v: edge(i).1 }).collect();
    assert_eq!(store.apply(&deletes).unwrap().deleted, 50_000);
    // a crash: the store is dropped without a commit
    drop(store);
    let store = DynamicStore::open(&path).unwrap();
    store.check().unwrap();
    assert_eq!((store.arcs(), committed), (100_000, 100_000));
    for i in (0..100_000u64).step_by(997) {
        assert!(store.edge(edge(i).0, edge(i).1).is_some(), "edge {i} lost");
    }
}

/// Inserts into a committed table short of growing, written back and
/// never committed, are undone too: they shift entries right, across the
/// table's end too, and the undo log keeps both parts of a wrapped shift.
#[test]
fn written_back_inserts_without_a_commit_are_undone_at_open() {
    let _bound = outcore_io::bound::watch("written_back_inserts_without_a_commit_are_undone_at_open");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d");
    let mut store = committed_low_degree_store(&path);
    let committed = store.table_stats()[0];
    // fill the low-degree table to 88 %: below the load that grows it
    let more = committed.low_slots * 88 / 100 - committed.low_live;
    assert!(more > 1000, "{committed:?}");
    store.set_written_limit(1);
    let inserts: Vec<Update> = (100_000..100_000 + more).map(|i| Update::InsertEdge { u: edge(i).0, v: edge(i).1, w: 1.0 }).collect();
    assert_eq!(store.apply(&inserts).unwrap().inserted, more);
    assert_eq!(store.table_stats()[0].low_slots, committed.low_slots, "the table grew");
    drop(store);
    let store = DynamicStore::open(&path).unwrap();
    store.check().unwrap();
    assert_eq!(store.arcs(), 100_000);
    let mut sources = Vec::new();
    store.for_each_edge(|u, e| sources.push((u, e.target)));
    sources.sort_unstable();
    let expected: Vec<(u64, u64)> = (0..100_000u64).map(edge).collect();
    assert_eq!(sources, expected);
}

/// 100,000 edges, one from each of as many sources, so all in the
/// low-degree table, committed.
fn committed_low_degree_store(path: &std::path::Path) -> DynamicStore {
    let mut store = DynamicStore::create(path, StoreOptions { partitions: 1, ..StoreOptions::default() }).unwrap();
    store.apply(&(0..100_000u64).map(|i| Update::InsertEdge { u: edge(i).0, v: edge(i).1, w: 1.0 }).collect::<Vec<_>>()).unwrap();
    store.commit().unwrap();
    store
}

/// Edge `i` of [`committed_low_degree_store`] (and of inserts after it).
fn edge(i: u64) -> (u64, u64) {
    (i, (i * 7919) % 100_000 + 1)
}

/// A chunk whose header claims more slots than its arena holds (a damaged
/// heap file) is reported by `check`, naming the vertex, not read.
#[test]
fn a_chunk_larger_than_its_arena_is_reported() {
    let _bound = outcore_io::bound::watch("a_chunk_larger_than_its_arena_is_reported");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d");
    let mut store = with_hub(&path, 100);
    store.commit().unwrap();
    drop(store);
    // the hub's chunk is the first block of the one arena that has one:
    // its header's byte 20 is log2 of its slots
    let (heap_start, slot_bits) = (outcore_dynamic::heap::HEAP_START, 20);
    let arenas: Vec<_> = std::fs::read_dir(&path)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_str().unwrap().contains(".a") && p.extension().is_some_and(|x| x == "heap"))
        .filter(|p| std::fs::read(p).unwrap().get(heap_start as usize + slot_bits).is_some_and(|&b| b != 0))
        .collect();
    assert_eq!(arenas.len(), 1, "{arenas:?}");
    let mut bytes = std::fs::read(&arenas[0]).unwrap();
    let at = heap_start as usize + slot_bits;
    assert!((7..=10).contains(&bytes[at]), "a chunk of 100 edges with 2^{} slots", bytes[at]);
    bytes[at] = 40;
    std::fs::write(&arenas[0], &bytes).unwrap();
    let store = DynamicStore::open(&path).unwrap();
    let e = store.check().unwrap_err();
    assert!(e.contains("vertex 1") && e.contains("claims 2^40 slots"), "{e}");
}

/// A store of one partition whose vertex 1 has `edges` edges, to 10 and
/// on: a hub, with a chunk of its own once past the threshold.
fn with_hub(path: &std::path::Path, edges: u64) -> DynamicStore {
    let mut store = DynamicStore::create(path, StoreOptions { partitions: 1, ..StoreOptions::default() }).unwrap();
    store.apply(&(0..edges).map(|v| Update::InsertEdge { u: 1, v: 10 + v, w: 1.0 }).collect::<Vec<_>>()).unwrap();
    store
}
