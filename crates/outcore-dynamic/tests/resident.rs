//! A resident limit is kept: after a batch that grew the process past it,
//! the heap's mapped pages are written back and dropped, and the undo
//! logs' pages leave the page cache. One test in its own binary, so that
//! no other test's memory moves the figures.

use outcore_dynamic::store::{DynamicStore, StoreOptions, Update};

/// This process's file-backed resident bytes (the heap's mapped pages
/// among them), from /proc/self/statm.
fn file_resident() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
    statm.split_whitespace().nth(2).unwrap().parse::<u64>().unwrap() * 4096
}

/// Bytes of the `.undo` files in `dir` that are in the page cache.
fn undo_cached(dir: &std::path::Path) -> u64 {
    let mut cached = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "undo") {
            continue;
        }
        let file = std::fs::File::open(&path).unwrap();
        let len = file.metadata().unwrap().len() as usize;
        if len == 0 {
            continue;
        }
        // SAFETY: a private read-only mapping of a file this test owns,
        // read by mincore only, unmapped before the file is closed.
        unsafe {
            use std::os::fd::AsRawFd;
            let map = libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ, libc::MAP_PRIVATE, file.as_raw_fd(), 0);
            assert_ne!(map, libc::MAP_FAILED, "{}", path.display());
            let mut pages = vec![0u8; len.div_ceil(4096)];
            assert_eq!(libc::mincore(map, len, pages.as_mut_ptr()), 0, "{}", path.display());
            libc::munmap(map, len);
            cached += pages.iter().filter(|&&p| p & 1 == 1).count() as u64 * 4096;
        }
    }
    cached
}

#[test]
fn a_resident_limit_drops_the_heap_pages_after_a_batch() {
    let _bound = outcore_io::bound::watch("a_resident_limit_drops_the_heap_pages_after_a_batch");
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
    // after a commit, a batch that changes committed pages logs them
    // first: past the limit the undo log leaves the page cache too
    let deletes: Vec<Update> = (0..300_000u64).map(|i| Update::DeleteEdge { u: i % 100_000, v: i * 7919 % 1_000_003 }).collect();
    for s in [&mut store, &mut again] {
        s.commit().unwrap();
        s.apply(&deletes).unwrap();
        assert_eq!(s.arcs(), 300_000);
    }
    let (dropped, left) = (undo_cached(&dir.path().join("d")), undo_cached(&dir.path().join("e")));
    assert!(
        left > 1 << 20 && dropped < left / 8,
        "the undo logs' cached bytes: {dropped} after a batch past the limit, {left} without one"
    );
}
