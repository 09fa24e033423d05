//! Heap accounting for checks of the memory budget: an allocator that
//! counts the bytes live and their peak. A test binary installs it
//! (`#[global_allocator] static HEAP: CountingAllocator = CountingAllocator;`)
//! and compares how far the heap grows during a run ([`heap_growth`]) with
//! what the run charged to its [`crate::Budget`].

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicI64, Ordering};

/// The system allocator, counting the bytes live and their peak.
pub struct CountingAllocator;

static LIVE: AtomicI64 = AtomicI64::new(0);
static PEAK: AtomicI64 = AtomicI64::new(0);

fn grew(bytes: i64) {
    let now = LIVE.fetch_add(bytes, Ordering::SeqCst) + bytes;
    PEAK.fetch_max(now, Ordering::SeqCst);
}

// SAFETY: every call goes to the system allocator with the caller's
// arguments unchanged; the counters only observe them.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size() as i64);
        // SAFETY: the caller's layout, passed on (GlobalAlloc's contract).
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        grew(-(layout.size() as i64));
        // SAFETY: `ptr` came from `alloc` above with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        grew(layout.size() as i64);
        // SAFETY: the caller's layout, passed on.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        grew(new_size as i64 - layout.size() as i64);
        // SAFETY: `ptr` came from this allocator with `layout`; the caller
        // vouches for `new_size`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// How far the heap grows above where it is when `f` starts, while `f`
/// runs. The counters are the process's, and count only where
/// [`CountingAllocator`] is installed: the caller makes sure nothing else
/// allocates meanwhile (one such test at a time).
pub fn heap_growth<T>(f: impl FnOnce() -> T) -> (T, u64) {
    let base = LIVE.load(Ordering::SeqCst);
    PEAK.store(base, Ordering::SeqCst);
    let out = f();
    (out, (PEAK.load(Ordering::SeqCst) - base).max(0) as u64)
}

/// The bytes live on the heap now, as [`CountingAllocator`] counts them
/// (0 where it is not installed): the difference of two readings is what
/// the code between them kept.
pub fn live_bytes() -> i64 {
    LIVE.load(Ordering::SeqCst)
}
