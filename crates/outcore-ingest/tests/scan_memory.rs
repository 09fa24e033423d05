//! What a sequential scan of a layout holds against what it states
//! ([`Layout::scan_bytes`], which the algorithms charge to the budget): a
//! counting allocator measures how far the heap grows while every list is
//! read, on each encoding, weighted and not, with lists long enough that
//! the decoders' own lists (gapref's recent lists) outweigh the rest.

use outcore_ingest::{import_file, ImportOptions, NoProgress};
use outcore_store::{Encoding, Store};
use std::alloc::{GlobalAlloc, Layout as AllocLayout, System};
use std::sync::atomic::{AtomicI64, Ordering};

/// The system allocator, counting the bytes live and their peak.
struct Counting;

static LIVE: AtomicI64 = AtomicI64::new(0);
static PEAK: AtomicI64 = AtomicI64::new(0);

fn grew(bytes: i64) {
    let now = LIVE.fetch_add(bytes, Ordering::SeqCst) + bytes;
    PEAK.fetch_max(now, Ordering::SeqCst);
}

// SAFETY: every call goes to the system allocator with the caller's
// arguments unchanged; the counters only observe them.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: AllocLayout) -> *mut u8 {
        grew(layout.size() as i64);
        // SAFETY: the caller's layout, passed on (GlobalAlloc's contract).
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: AllocLayout) {
        grew(-(layout.size() as i64));
        // SAFETY: `ptr` came from `alloc` above with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: AllocLayout) -> *mut u8 {
        grew(layout.size() as i64);
        // SAFETY: the caller's layout, passed on.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: AllocLayout, new_size: usize) -> *mut u8 {
        grew(new_size as i64 - layout.size() as i64);
        // SAFETY: `ptr` came from this allocator with `layout`; the caller
        // vouches for `new_size`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// How far the heap grows above where it is now while `f` runs (the one
/// test of this file: nothing else allocates beside it).
fn heap_growth<T>(f: impl FnOnce() -> T) -> (T, u64) {
    let base = LIVE.load(Ordering::SeqCst);
    PEAK.store(base, Ordering::SeqCst);
    let out = f();
    (out, (PEAK.load(Ordering::SeqCst) - base).max(0) as u64)
}

/// 48 hubs of 20,000 to 30,000 neighbours each among 60,000 vertices, and
/// a sparse rest: the hubs' lists are the longest by far.
fn hubs(path: &std::path::Path, weighted: bool) {
    let mut rng = outcore_io::SplitMix64(5);
    let mut text = String::new();
    for hub in 0..48u64 {
        let degree = 20_000 + rng.next_u64() % 10_000;
        for _ in 0..degree {
            let v = 1_000 + rng.next_u64() % 59_000;
            text.push_str(&format!("{hub} {v}"));
            if weighted {
                text.push_str(&format!(" {}", rng.next_u64() % 100));
            }
            text.push('\n');
        }
    }
    for v in 1_000..60_000u64 {
        text.push_str(&format!("{v} {}{}\n", (v * 7) % 60_000, if weighted { " 1" } else { "" }));
    }
    std::fs::write(path, text).unwrap();
}

#[test]
fn a_scan_holds_no_more_than_it_states() {
    let dir = tempfile::tempdir().unwrap();
    for weighted in [false, true] {
        let input = dir.path().join(format!("hubs-{weighted}.el"));
        hubs(&input, weighted);
        for encoding in Encoding::ALL {
            let what = format!("{} {}", encoding.name(), if weighted { "weighted" } else { "unweighted" });
            let out = dir.path().join(format!("s-{}-{weighted}", encoding.name()));
            let opts = ImportOptions { directed: Some(true), weighted, encoding: Some(encoding), ..Default::default() };
            import_file(&input, &out, &opts, &NoProgress).unwrap();
            let store = Store::open(&out).unwrap();
            let layout = store.layout("out").unwrap();
            let stated = layout.scan_bytes().unwrap();
            let longest = layout.longest_list().unwrap();
            assert!(longest >= 20_000, "{what}: the longest list has {longest} entries");
            let (arcs, grown) = heap_growth(|| {
                let mut scan = layout.scan().unwrap();
                let mut arcs = 0u64;
                while let Some((_, targets, weights)) = scan.next_list().unwrap() {
                    assert_eq!(weights.len(), if weighted { targets.len() } else { 0 }, "{what}");
                    arcs += targets.len() as u64;
                }
                arcs
            });
            assert_eq!(arcs, store.manifest().arcs, "{what}: the scan read every arc");
            assert!(grown <= stated, "{what}: the scan grew the heap {grown} bytes; it states {stated}");
            // what the index's and the adjacency's chunks alone take: the counter counts
            let chunks = 2 * 2 * outcore_store::STREAM_CHUNK_BYTES as u64;
            assert!(grown >= chunks, "{what}: the heap grew only {grown} bytes, less than the read-ahead chunks ({chunks})");
        }
    }
}
