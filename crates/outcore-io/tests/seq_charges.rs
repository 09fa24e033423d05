//! What a sequential reader holds against what it says it holds
//! ([`SeqReader::buffer_bytes`], which every reader's charge to a budget
//! is built on): a counting allocator measures how far the heap grows
//! while a reader opens and reads a whole file.

use outcore_io::heap::{heap_growth, CountingAllocator};
use outcore_io::{SeqReader, SEQ_READER_BOOKKEEPING};
use std::io::Read;

#[global_allocator]
static HEAP: CountingAllocator = CountingAllocator;

/// The heap counters are the process's: one measured test at a time.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// With chunks of a page, of an odd size and of a MiB, and files shorter
/// and longer than a chunk: the heap grows no further than the charge, and
/// no less than the charge's chunks (so the charge is not loose by more
/// than its bookkeeping).
#[test]
fn a_reader_holds_what_buffer_bytes_says() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let _bound = outcore_io::bound::watch("a_reader_holds_what_buffer_bytes_says");
    let dir = tempfile::tempdir().unwrap();
    for (chunk, file_bytes) in [(4096usize, 100_000usize), (10_000, 3_000), (1 << 20, 5 << 20), (1 << 20, 100)] {
        let what = format!("chunk {chunk}, file {file_bytes}");
        let path = dir.path().join(format!("f{chunk}-{file_bytes}"));
        let bytes: Vec<u8> = (0..file_bytes).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        let (sum, grown) = heap_growth(|| {
            let mut reader = SeqReader::open(&path, chunk).unwrap();
            let mut one = [0u8; 1];
            let mut sum = 0u64;
            while reader.read_exact(&mut one).is_ok() {
                sum += one[0] as u64;
            }
            sum
        });
        assert_eq!(sum, bytes.iter().map(|&b| b as u64).sum::<u64>(), "{what}: every byte read once");
        let charged = SeqReader::buffer_bytes(chunk);
        assert!(grown <= charged, "{what}: the heap grew {grown} bytes, {charged} charged");
        assert!(grown + SEQ_READER_BOOKKEEPING >= charged, "{what}: the heap grew only {grown} bytes, {charged} charged");
    }
}

/// A run reader (the sort's and the engines' merges read their runs with
/// one each) holds what [`RunReader::held_bytes`] says, with chunks of a
/// page (where the reader's two chunks and its window are least of it), of
/// an odd size (rounded up as the reader rounds it) and of a MiB: the
/// heap grows no further, and no less than the charge less the reader's
/// bookkeeping.
#[test]
fn a_run_reader_holds_what_held_bytes_says() {
    use outcore_io::runs::{RunReader, RunWriter};
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let _bound = outcore_io::bound::watch("a_run_reader_holds_what_held_bytes_says");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run");
    let records: Vec<(u64, u64)> = (0..200_000u64).map(|i| (i * 8 + i % 7, i.wrapping_mul(0x9E37_79B9_7F4A_7C15))).collect();
    let mut writer = RunWriter::<(u64, u64)>::create(&path, 64 << 10).unwrap();
    records.iter().for_each(|r| writer.push(r).unwrap());
    writer.finish().unwrap();
    for chunk in [4096usize, 10_000, 1 << 20] {
        let (read, grown) = heap_growth(|| {
            let mut reader = RunReader::<(u64, u64)>::open(&path, chunk).unwrap();
            let (mut count, mut wrong) = (0usize, 0usize);
            while let Some(r) = reader.advance().unwrap() {
                wrong += usize::from(records.get(count) != Some(&r));
                count += 1;
            }
            (count, wrong)
        });
        assert_eq!(read, (records.len(), 0), "chunk {chunk}: records read, and wrong");
        let charged = RunReader::<(u64, u64)>::held_bytes(chunk);
        assert!(grown <= charged, "chunk {chunk}: the heap grew {grown} bytes, {charged} charged");
        assert!(grown + SEQ_READER_BOOKKEEPING >= charged, "chunk {chunk}: the heap grew only {grown} bytes, {charged} charged");
    }
}
