//! What a layout writer charges for its lists (`CsrWriter::list_bytes`,
//! charged as the longest list grows) against what it allocates: a
//! counting allocator measures how far the heap grows while lists are
//! written, and the charge plus the writer's buffers must cover it (the
//! budget is a promise: README "Memory budget").

use outcore_io::heap::{heap_growth, CountingAllocator};
use outcore_io::Budget;
use outcore_store::{CsrWriter, Encoding};

#[global_allocator]
static HEAP: CountingAllocator = CountingAllocator;

/// Sixteen long lists, each about `entries` long: lists four apart are
/// equal (gapref copies them from its window of recent lists), the others
/// share about half their entries; every list is ascending.
fn lists(entries: u64) -> Vec<Vec<u64>> {
    let mut rng = outcore_io::SplitMix64(5);
    let salts: Vec<u64> = (0..4).map(|_| rng.next_u64()).collect();
    (0..16u64)
        .map(|v| (0..2 * entries).filter(|&t| (t.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ salts[(v % 4) as usize]) >> 63 == 0).collect())
        .collect()
}

/// For every encoding, unweighted: the heap grows no further than the
/// lists' charge, the writer's buffers and a little bookkeeping.
#[test]
fn writers_charge_what_their_lists_allocate() {
    let entries = 200_000u64;
    let lists = lists(entries);
    let longest = lists.iter().map(Vec::len).max().unwrap() as u64;
    for encoding in [Encoding::Raw32, Encoding::Raw64, Encoding::Gapref, Encoding::Ceesor] {
        let dir = tempfile::tempdir().unwrap();
        let budget = Budget::new(1 << 40);
        let (written, grown) = heap_growth(|| -> Result<u64, outcore_store::StoreError> {
            let mut w = CsrWriter::create_in(dir.path(), "out", encoding, 2 * entries, false)?;
            w.charge_lists_to(&budget);
            for (v, list) in lists.iter().enumerate() {
                w.push_list(v as u64, list)?;
            }
            let arcs = w.arcs();
            w.finish_in()?;
            Ok(arcs)
        });
        assert_eq!(written.unwrap(), lists.iter().map(|l| l.len() as u64).sum::<u64>());
        let charged = budget.peak();
        let buffers = CsrWriter::buffer_bytes(encoding, false);
        let what = format!("{encoding:?}: lists of up to {longest} entries");
        assert_eq!(charged, CsrWriter::list_bytes(encoding, false, longest), "{what}: the lists' charge");
        assert!(
            grown <= charged + buffers + (64 << 10),
            "{what}: the heap grew {grown} bytes; {charged} charged for the lists, {buffers} for buffers"
        );
        // nor is the charge loose: the heap grows by more than half of it
        assert!(2 * grown > charged, "{what}: the heap grew {grown} bytes; {charged} charged for the lists");
    }
}
