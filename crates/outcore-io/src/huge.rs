//! Tables read at random (a degree per vertex, looked up once per arc) on
//! 2 MiB pages: at 4 KiB a page, nearly every lookup in a table of tens
//! of MiB also misses the TLB and walks the page tables.

/// Bytes of a transparent huge page on x86-64 (and aarch64 with 4 KiB pages).
const HUGE_PAGE_BYTES: usize = 2 << 20;

/// Ask the kernel to back the 2 MiB pages wholly inside `table` with huge
/// pages (transparent huge pages in `madvise` mode; nothing happens where
/// they are off, or where `table` holds no whole huge page). Call it on a
/// fresh zeroed vector (`vec![0; n]`, whose large blocks come from
/// `calloc` untouched) before writing it: each page is then faulted in as
/// a huge page when first written. Only pages inside `table` are advised,
/// so it resides in no more memory than its length.
pub fn advise_huge_pages<T>(table: &mut [T]) {
    let start = table.as_mut_ptr() as usize;
    let end = start + std::mem::size_of_val(table);
    let first = start.next_multiple_of(HUGE_PAGE_BYTES);
    let last = end / HUGE_PAGE_BYTES * HUGE_PAGE_BYTES;
    if last > first {
        // SAFETY: MADV_HUGEPAGE on whole pages inside the borrowed slice changes how the
        // kernel backs them, never their contents; an error (EINVAL where transparent huge
        // pages are compiled out) leaves them as they were.
        unsafe {
            libc::madvise(first as *mut libc::c_void, last - first, libc::MADV_HUGEPAGE);
        }
    }
}
