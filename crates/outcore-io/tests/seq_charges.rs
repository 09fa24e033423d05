//! What a sequential reader holds against what it says it holds
//! ([`SeqReader::buffer_bytes`], which every reader's charge to a budget
//! is built on): a counting allocator measures how far the heap grows
//! while a reader opens and reads a whole file.

use outcore_io::heap::{heap_growth, CountingAllocator};
use outcore_io::{SeqReader, SEQ_READER_BOOKKEEPING};
use std::io::Read;

#[global_allocator]
static HEAP: CountingAllocator = CountingAllocator;

/// With chunks of a page, of an odd size and of a MiB, and files shorter
/// and longer than a chunk: the heap grows no further than the charge, and
/// no less than the charge's chunks (so the charge is not loose by more
/// than its bookkeeping).
#[test]
fn a_reader_holds_what_buffer_bytes_says() {
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
