//! Heap buffers aligned for O_DIRECT.

use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::ops::{Deref, DerefMut};

/// A fixed-capacity byte buffer aligned to `align` bytes, with a length.
pub struct AlignedBuf {
    ptr: *mut u8,
    cap: usize,
    len: usize,
    layout: Layout,
}

// SAFETY: the buffer owns its allocation exclusively (like a Vec<u8>).
unsafe impl Send for AlignedBuf {}
// SAFETY: shared access only reads (through Deref); writes need `&mut`.
unsafe impl Sync for AlignedBuf {}

impl AlignedBuf {
    /// A zeroed buffer of `cap` bytes (rounded up to `align`), length 0.
    pub fn new(cap: usize, align: usize) -> Self {
        let cap = cap.max(align).div_ceil(align) * align;
        let layout = Layout::from_size_align(cap, align).expect("valid layout");
        // SAFETY: the layout has a non-zero size (cap >= align >= 1).
        let ptr = unsafe { alloc_zeroed(layout) };
        if ptr.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        AlignedBuf { ptr, cap, len: 0, layout }
    }
    pub fn capacity(&self) -> usize {
        self.cap
    }
    pub fn set_len(&mut self, len: usize) {
        assert!(len <= self.cap);
        self.len = len;
    }
    /// Raw pointer to the start, for asynchronous reads into the buffer.
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.ptr
    }
    /// The whole capacity, whatever the length (bytes never written are zero).
    pub fn whole(&self) -> &[u8] {
        // SAFETY: `ptr` holds `cap` zero-initialized bytes owned by this buffer, borrowed shared.
        unsafe { std::slice::from_raw_parts(self.ptr, self.cap) }
    }
    /// The whole capacity, for filling.
    pub fn spare(&mut self) -> &mut [u8] {
        // SAFETY: `ptr` holds `cap` zero-initialized bytes owned by this buffer, borrowed mutably.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.cap) }
    }
}

impl Deref for AlignedBuf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: len <= cap (set_len checks it) initialized bytes owned by this buffer.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}
impl DerefMut for AlignedBuf {
    fn deref_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in deref, borrowed mutably.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}
impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: `ptr` was allocated with `layout` in `new` and is freed once.
        unsafe { dealloc(self.ptr, self.layout) }
    }
}
