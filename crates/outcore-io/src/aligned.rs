//! Heap buffers aligned for O_DIRECT.

use std::ops::{Deref, DerefMut};

/// A fixed-capacity byte buffer aligned to `align` bytes, with a length.
///
/// The bytes live in a zeroed slice one alignment longer than the
/// capacity, from its first aligned byte on. A zeroed `Vec` comes from
/// `calloc`, whose large blocks are fresh pages the kernel zeroes on first
/// touch: a block cache of hundreds of MiB costs nothing until its frames
/// are used (an aligned allocation would be zeroed by a `memset` of the
/// whole buffer up front, about 0.15 s at 271 MiB).
pub struct AlignedBuf {
    storage: Box<[u8]>,
    /// Where the aligned bytes start in `storage`.
    start: usize,
    cap: usize,
    len: usize,
}

impl AlignedBuf {
    /// The bytes of heap a buffer made by [`AlignedBuf::new`]`(cap, align)`
    /// holds: its capacity rounded up to `align`, and one alignment more to
    /// align it in.
    pub const fn held_bytes(cap: usize, align: usize) -> u64 {
        (Self::rounded(cap, align) + align) as u64
    }
    /// `cap` rounded up to a whole number of `align`-byte units, at least one:
    /// the capacity [`AlignedBuf::new`] gives.
    pub const fn rounded(cap: usize, align: usize) -> usize {
        let cap = if cap > align { cap } else { align };
        cap.div_ceil(align) * align
    }
    /// A zeroed buffer of `cap` bytes (rounded up to `align`), length 0.
    pub fn new(cap: usize, align: usize) -> Self {
        assert!(align.is_power_of_two());
        let cap = Self::rounded(cap, align);
        let storage = vec![0u8; cap + align].into_boxed_slice();
        let start = storage.as_ptr().align_offset(align);
        assert!(start < align, "a byte buffer can be aligned within one alignment");
        AlignedBuf { storage, start, cap, len: 0 }
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
        self.spare().as_mut_ptr()
    }
    /// The whole capacity, whatever the length (bytes never written are zero).
    pub fn whole(&self) -> &[u8] {
        &self.storage[self.start..self.start + self.cap]
    }
    /// The whole capacity, for filling.
    pub fn spare(&mut self) -> &mut [u8] {
        &mut self.storage[self.start..self.start + self.cap]
    }
}

impl Deref for AlignedBuf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.whole()[..self.len]
    }
}
impl DerefMut for AlignedBuf {
    fn deref_mut(&mut self) -> &mut [u8] {
        let len = self.len;
        &mut self.spare()[..len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_zeroed_and_as_long_as_asked() {
        for (cap, align) in [(1, 512), (4096, 4096), (10_000, 4096), (3 << 20, 4096), (0, 8)] {
            let mut b = AlignedBuf::new(cap, align);
            assert!((b.as_mut_ptr() as usize).is_multiple_of(align), "cap {cap} align {align}");
            assert!(b.capacity() >= cap.max(align) && b.capacity().is_multiple_of(align));
            assert!(b.whole().iter().all(|&x| x == 0));
            assert!(b.is_empty());
            b.set_len(b.capacity());
            b[0] = 7;
            let last = b.len() - 1;
            b[last] = 9;
            assert_eq!((b.whole()[0], b.whole()[last]), (7, 9));
        }
    }
}
