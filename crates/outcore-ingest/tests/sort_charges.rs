//! What the external sort charges against what it allocates: a counting
//! allocator measures how far the heap grows while records are sorted
//! into runs and merged, and the budget's peak must cover it (the budget
//! is a promise: README "Memory budget").

use outcore_ingest::sort::{ExternalSorter, Key64, Merged};
use outcore_ingest::{import_file, ImportOptions, NoProgress};
use outcore_io::heap::{heap_growth, CountingAllocator};
use outcore_io::Budget;
use std::sync::Mutex;

#[global_allocator]
static HEAP: CountingAllocator = CountingAllocator;

/// The heap counters are the process's: one measured test at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// The records a merge hands out from the `from`th on, against `expect`,
/// without keeping them: how many came out in all, and how many of those
/// were not the record expected at their place.
fn compare_as_it_streams(merged: &mut Merged<Key64>, expect: &[u64], from: usize) -> Result<(usize, usize), outcore_ingest::IngestError> {
    let (mut count, mut wrong) = (from, 0);
    while let Some(Key64(r)) = merged.next()? {
        wrong += usize::from(expect.get(count) != Some(&r));
        count += 1;
    }
    Ok((count, wrong))
}

/// Small sort buffers (some 200 runs) under a budget that merges them all
/// at once, and one that needs passes before the last merge: the heap
/// grows no further than the budget's peak and some bookkeeping.
#[test]
fn the_external_sort_charges_what_it_allocates() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let records: Vec<u64> = (0..200_000u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) % 150_000).collect();
    let mut expect = records.clone();
    expect.sort_unstable();
    expect.dedup();
    for total in [64u64 << 20, 1 << 20] {
        let dir = tempfile::tempdir().unwrap();
        let budget = Budget::new(total);
        // the output is compared as it streams: a vector of it would
        // outgrow the merge passes, and hide their charges
        let (out, grown) = heap_growth(|| -> Result<(usize, usize, u64), outcore_ingest::IngestError> {
            let mut sorter = ExternalSorter::new(dir.path(), "t", &budget, 32 << 10, true)?;
            for &r in &records {
                sorter.push(Key64(r))?;
            }
            let mut merged = sorter.finish()?;
            let (count, wrong) = compare_as_it_streams(&mut merged, &expect, 0)?;
            Ok((count, wrong, merged.stats.merge_passes))
        });
        let (count, wrong, passes) = out.unwrap();
        assert_eq!((count, wrong), (expect.len(), 0), "budget {total}: records out, and out of place");
        let charged = budget.peak();
        assert!(grown <= charged + (64 << 10), "budget {total}: the heap grew {grown} bytes, {charged} charged");
        if total == 1 << 20 {
            assert!(passes > 1, "budget {total}: {passes} merge passes");
        }
    }
}

/// The final merge of two runs through readers of small chunks: its
/// pipe's blocks, which a consumer that waits lets the merge thread fill
/// (three queued, one filling, one read), are most of what it holds, and
/// charged as such. What a reader holds beyond its charge, or the pipe
/// beyond its charge, shows.
#[test]
fn the_final_merge_charges_its_pipe() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let records: Vec<u64> = (0..30_000u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15)).collect();
    let mut expect = records.clone();
    expect.sort_unstable();
    let dir = tempfile::tempdir().unwrap();
    let base = outcore_io::heap::live_bytes();
    // buffers of 16,384 records (256 KiB) beside the spill's writer: two
    // runs; then the merge has the whole budget, half of it for readers
    // (chunks of 40 KiB), the rest for the pipe
    let budget = Budget::new(640 << 10);
    let mut sorter = ExternalSorter::new(dir.path(), "t", &budget, 640 << 10, false).unwrap();
    records.iter().for_each(|&r| sorter.push(Key64(r)).unwrap());
    let mut merged = sorter.finish().unwrap();
    assert_eq!(merged.stats.runs, 2, "{:?}", merged.stats);
    let first = merged.next().unwrap();
    // the sort buffers are gone: what is charged now is the merge's
    let charged = budget.used();
    let at_first = outcore_io::heap::live_bytes();
    let (rest, growth) = heap_growth(|| -> Result<(usize, usize), outcore_ingest::IngestError> {
        // the merge thread fills the pipe meanwhile
        std::thread::sleep(std::time::Duration::from_millis(200));
        compare_as_it_streams(&mut merged, &expect, 1)
    });
    assert_eq!(first.map(|k| k.0), expect.first().copied());
    assert_eq!(rest.unwrap(), (expect.len(), 0), "records out, and out of place");
    // the heap's peak while the merge ran, above where it was before the sort
    let grown = (at_first + growth as i64 - base).max(0) as u64;
    assert!(grown > 160 << 10, "the heap grew {grown} bytes: five blocks of 4,096 records expected");
    assert!(grown <= charged + (32 << 10), "merging, the heap grew {grown} bytes; {charged} charged");
}

/// While records are pushed, the sorter holds its two buffers (one
/// filling, one sorting and spilling) and the spill's run writer, as it
/// charges them: with buffers of megabytes, a buffer grown past its
/// capacity or a writer charged short shows beyond the bookkeeping. What
/// it spilled is the size of its runs.
#[test]
fn the_external_sort_charges_its_buffers_and_writer_while_it_spills() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let records: Vec<u64> = (0..1_000_000u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15)).collect();
    let dir = tempfile::tempdir().unwrap();
    let budget = Budget::new(64 << 20);
    let base = outcore_io::heap::live_bytes();
    let (sorter, grown) = heap_growth(|| -> Result<ExternalSorter<Key64>, outcore_ingest::IngestError> {
        let mut sorter = ExternalSorter::new(dir.path(), "t", &budget, 4 << 20, false)?;
        records.iter().try_for_each(|&r| sorter.push(Key64(r)))?;
        Ok(sorter)
    });
    let sorter = sorter.unwrap();
    let charged = budget.peak();
    assert!(sorter.stats.runs >= 3, "{:?}", sorter.stats);
    assert!(grown <= charged + (64 << 10), "spilling, the heap grew {grown} bytes; {charged} charged");
    // then the merge: its readers and its pipe, charged as they are held
    // (the sort buffers, released, leave both the heap and the budget).
    // Heap and charges are both counted from before the sort: what the
    // sorter holds when this starts is not what it charges (its spill
    // writer is charged throughout, and held only while a run is written)
    let before = budget.used();
    budget.reset_peak();
    let at_start = outcore_io::heap::live_bytes();
    let (count, growth) = heap_growth(|| -> Result<usize, outcore_ingest::IngestError> {
        let mut merged = sorter.finish()?;
        // one merge: the runs are all still there
        assert_eq!(merged.stats.merge_passes, 1, "{:?}", merged.stats);
        let runs: u64 = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().metadata().unwrap().len()).sum();
        assert_eq!(merged.stats.spilled_bytes, runs, "{:?}", merged.stats);
        let mut count = 0;
        while merged.next()?.is_some() {
            count += 1;
        }
        Ok(count)
    });
    assert_eq!(count.unwrap(), records.len());
    let beyond = budget.peak() - before;
    assert!(beyond > 4 << 20, "merging, {beyond} bytes charged beyond the sort buffers: readers of a MiB expected");
    let (grown, charged) = ((at_start + growth as i64 - base).max(0) as u64, budget.peak());
    assert!(grown <= charged + (32 << 10), "finishing and merging, the heap grew {grown} bytes; {charged} charged");
}

/// The bucketed import (declared vertices) charges what it allocates:
/// its bucket buffers, each bucket sorted in memory (keys, targets and
/// two counters a source of its span, 2^15 sources here), and the
/// layouts' writers: the budget's peak covers the heap's.
#[test]
fn the_bucketed_import_charges_what_it_allocates() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let (n, m) = (1u64 << 17, 600_000u64);
    let input = dir.path().join("g.txt");
    let text: String = (0..m).map(|i| format!("{} {}\n", i.wrapping_mul(0x9E37_79B9_7F4A_7C15) % n, (i * 7_919) % n)).collect();
    std::fs::write(&input, text).unwrap();
    for memory in [256u64 << 20, 48 << 20] {
        let out = dir.path().join(format!("s{memory}"));
        let opts = ImportOptions { num_vertices: Some(n), memory, in_layout: true, ..Default::default() };
        let (report, grown) = heap_growth(|| import_file(&input, &out, &opts, &NoProgress));
        let report = report.unwrap();
        assert!(report.buckets > 1, "{memory}: {} buckets", report.buckets);
        assert_eq!(report.sort_runs, 0, "{memory}: the run sort, not the buckets");
        let charged = report.peak_budget_bytes;
        assert!(grown <= charged + (64 << 10), "{memory}: the heap grew {grown} bytes, {charged} charged");
    }
}

/// Pass 2 of the bucketed sort charges what it allocates: once pass 1's
/// buffers are returned, each bucket read back and sorted in memory (its
/// keys, its targets and two counters a source of its span) is charged
/// as it is held, and the heap grows no further than the budget's peak
/// from there (the peak of the whole sort is pass 1's buffers, which
/// would hide it). Lists come out in source order, sorted, deduplicated.
#[test]
fn the_bucket_sort_charges_each_bucket_it_holds() {
    use outcore_ingest::bucket::BucketSorter;
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let (n, m) = (1u64 << 17, 2_400_000u64);
    // a source's targets come in no order (a source recurs every n edges,
    // with another target each time), some repeated
    let edges: Vec<(u64, u64)> =
        (0..m).map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) % n, (i / 3).wrapping_mul(0x2545_F491_4F6C_DD1D) >> 47)).collect();
    let mut want: Vec<(u64, u64)> = edges.clone();
    want.sort_unstable();
    want.dedup();
    for memory in [128u64 << 20, 64 << 20] {
        let budget = Budget::new(memory);
        let mut sorter = BucketSorter::new(dir.path(), "t", n, m, &budget).unwrap();
        for &(s, t) in &edges {
            sorter.push(s, t).unwrap();
        }
        assert!(sorter.bucket_count() > 1, "{memory}: {} buckets", sorter.bucket_count());
        let (mut got, mut released_at, mut held) = (Vec::with_capacity(want.len()), 0, 0);
        let base = outcore_io::heap::live_bytes();
        let (result, grown) = heap_growth(|| {
            sorter.finish_then(
                true,
                || {
                    // from here: the heap's peak (heap_growth restarts it) and the budget's
                    heap_growth(|| ());
                    released_at = outcore_io::heap::live_bytes();
                    budget.reset_peak();
                    held = budget.used();
                    Ok(())
                },
                |s, list| {
                    got.extend(list.iter().map(|&t| (s, t)));
                    Ok(())
                },
            )
        });
        result.unwrap();
        assert_eq!(got, want, "{memory}");
        // the heap's peak after the release, above where it was then
        let pass2 = (base + grown as i64 - released_at).max(0) as u64;
        let charged = budget.peak() - held;
        assert!(pass2 <= charged + (64 << 10), "{memory}: pass 2 grew the heap {pass2} bytes, {charged} charged");
        // nor many times what it holds, with a bucket's buffers kept for the
        // next (a bucket sorted by runs instead charges half its slot)
        assert!(charged <= 3 * pass2, "{memory}: pass 2 charged {charged} bytes, the heap grew {pass2}");
    }
}
