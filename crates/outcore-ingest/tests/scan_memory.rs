//! What a sequential scan of a layout holds against what it states
//! ([`Layout::scan_bytes`], which the algorithms charge to the budget): a
//! counting allocator measures how far the heap grows while every list is
//! read, on each encoding, weighted and not, with lists long enough that
//! the decoders' own lists (gapref's recent lists) outweigh the rest.

use outcore_ingest::{import_file, ImportOptions, NoProgress};
use outcore_io::heap::{heap_growth, CountingAllocator};
use outcore_store::{Encoding, Store};

#[global_allocator]
static HEAP: CountingAllocator = CountingAllocator;

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
