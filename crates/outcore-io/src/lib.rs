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
pub mod bitmap;
pub mod block;
pub mod bound;
mod budget;
pub mod cache;
mod checksum;
mod error;
pub mod hash;
pub mod heap;
pub mod huge;
pub mod probe;
mod progress;
pub mod runs;
mod segments;
mod seq;
pub mod staging;
pub mod temp;
pub mod verify;

pub use aligned::AlignedBuf;
pub use bitmap::{bitmap_bytes, AtomicBitmap, Bitmap};
pub use block::{open_block_io, Backend, BlockIo, ReadRequest};
pub use budget::{format_bytes, parse_size, Budget, BudgetError, Minimum, Reservation, PROCESS_BASELINE};
pub use cache::{BlockCache, CacheStats};
pub use checksum::{
    hash_file_blocks, hash_file_blocks_and_pages, BlockHasher, BlockHashes, BlockSplitter, ChecksumMismatch, CHECKSUM_BLOCK_BYTES,
};
pub use error::{IoContext, IoError};
pub use hash::{splitmix64, SplitMix64};
pub use progress::{Counter, NoProgress, Progress};
pub use segments::{Filled, SegmentRead, SegmentReader};
pub use seq::{
    drop_cached, open_maybe_direct, read_full_at, PageSumWriter, SeqReader, SeqWriter, WriteSummary, DIRECT_ALIGN, PAGE_BYTES,
    SEQ_READER_BOOKKEEPING,
};
pub use staging::{check_interrupt, interrupted, Staged};
pub use temp::TempArea;

/// Make freed large buffers go back to the kernel. glibc raises its mmap
/// threshold each time a large mmapped block is freed, after which large
/// buffers come from heap arenas that never shrink, and resident memory
/// drifts above the budget. A fixed threshold (and a few arenas) keeps the
/// process's footprint equal to what the budget charged. Call once, early.
pub fn pin_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes glibc's allocation thresholds.
    unsafe {
        const M_TRIM_THRESHOLD: libc::c_int = -1;
        const M_MMAP_THRESHOLD: libc::c_int = -3;
        const M_ARENA_MAX: libc::c_int = -8;
        libc::mallopt(M_MMAP_THRESHOLD, 128 << 10);
        libc::mallopt(M_TRIM_THRESHOLD, 1 << 20);
        libc::mallopt(M_ARENA_MAX, 4);
    }
}

/// Give memory that freed buffers left in the allocator's arenas back to
/// the kernel (glibc keeps it resident otherwise, and a later phase of the
/// same run would count it against the budget a second time).
pub fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim returns free arena memory to the kernel; it touches no live allocation.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Peak resident set size of this process in bytes (VmHWM), if known.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Ask the CPU to bring `values[k]` into cache ahead of a random access
/// (a hint; nothing happens when `k` is out of bounds or off x86-64).
#[inline(always)]
pub fn prefetch<T>(values: &[T], k: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(x) = values.get(k) {
        // SAFETY: a prefetch is a hint, and the address is in bounds.
        unsafe { std::arch::x86_64::_mm_prefetch(x as *const T as *const i8, std::arch::x86_64::_MM_HINT_T0) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (values, k);
}

/// The workplace's shared directory (data sets, `memcap`, `devprobe`):
/// `$OUTCORE_SHARED` if set, else `shared/` beside the checkout that holds
/// `manifest_dir` (a crate's directory, `crates/NAME`). Tests use it.
pub fn shared_dir(manifest_dir: &str) -> std::path::PathBuf {
    match std::env::var_os("OUTCORE_SHARED") {
        Some(dir) => dir.into(),
        None => std::path::Path::new(manifest_dir).join("../../../shared"),
    }
}
