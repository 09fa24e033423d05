//! What the external sort charges against what it allocates: a counting
//! allocator measures how far the heap grows while records are sorted
//! into runs and merged, and the budget's peak must cover it (the budget
//! is a promise: README "Memory budget").

use outcore_ingest::sort::{ExternalSorter, Key64};
use outcore_io::heap::{heap_growth, CountingAllocator};
use outcore_io::Budget;

#[global_allocator]
static HEAP: CountingAllocator = CountingAllocator;

/// Small sort buffers (some 200 runs) under a budget that merges them all
/// at once, and one that needs passes before the last merge: the heap
/// grows no further than the budget's peak and some bookkeeping.
#[test]
fn the_external_sort_charges_what_it_allocates() {
    let records: Vec<u64> = (0..200_000u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) % 150_000).collect();
    let mut expect = records.clone();
    expect.sort_unstable();
    expect.dedup();
    for total in [64u64 << 20, 1 << 20] {
        let dir = tempfile::tempdir().unwrap();
        let budget = Budget::new(total);
        let (out, grown) = heap_growth(|| -> Result<Vec<u64>, outcore_ingest::IngestError> {
            let mut sorter = ExternalSorter::new(dir.path(), "t", &budget, 32 << 10, true)?;
            for &r in &records {
                sorter.push(Key64(r))?;
            }
            let mut merged = sorter.finish()?;
            let mut out = Vec::with_capacity(expect.len());
            while let Some(Key64(r)) = merged.next()? {
                out.push(r);
            }
            Ok(out)
        });
        let out = out.unwrap();
        let charged = budget.peak() + expect.len() as u64 * 8;
        assert_eq!(out, expect, "budget {total}");
        assert!(
            grown <= charged + (64 << 10),
            "budget {total}: the heap grew {grown} bytes, {charged} charged (the output's {} included)",
            expect.len() * 8
        );
    }
}
