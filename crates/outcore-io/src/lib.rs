//! The `io` layer of outcore (DESIGN.md, "I/O"): aligned buffers, O_DIRECT
//! sequential readers and writers with a background thread each (so device
//! time overlaps compute), per-block xxh3 checksums computed while writing,
//! and the memory budget that every large allocation is charged against.
//!
//! Everything above this crate reads and writes large files through
//! [`SeqReader`] and [`SeqWriter`], so that the page cache stays out of the
//! memory budget: reads and writes bypass it with O_DIRECT where the file
//! system allows, and drop what they touched with `posix_fadvise` where not.

mod aligned;
mod budget;
mod checksum;
mod error;
mod seq;

pub use aligned::AlignedBuf;
pub use budget::{format_bytes, parse_size, Budget, BudgetError, Reservation};
pub use checksum::{hash_file_blocks, BlockHasher, BlockHashes, ChecksumMismatch, CHECKSUM_BLOCK_BYTES};
pub use error::{IoContext, IoError};
pub use seq::{open_maybe_direct, SeqReader, SeqWriter, WriteSummary, DIRECT_ALIGN};

/// Peak resident set size of this process in bytes (VmHWM), if known.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}
