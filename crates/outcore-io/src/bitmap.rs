//! Bit per vertex: the one bitmap of outcore (frontiers, visited sets,
//! parent-edge marks, id presence), and its atomic twin for bits set by
//! several threads at once.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Bytes of a bitmap of `bits` bits.
pub const fn bitmap_bytes(bits: u64) -> u64 {
    bits.div_ceil(64) * 8
}

/// A fixed-size bitmap over `0..len`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bitmap {
    words: Vec<u64>,
    len: u64,
}

impl Bitmap {
    pub fn new(len: u64) -> Self {
        Bitmap { words: vec![0; len.div_ceil(64) as usize], len }
    }
    pub fn len(&self) -> u64 {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    #[inline]
    pub fn get(&self, i: u64) -> bool {
        self.words[(i / 64) as usize] >> (i % 64) & 1 == 1
    }
    #[inline]
    pub fn set(&mut self, i: u64) {
        self.words[(i / 64) as usize] |= 1 << (i % 64);
    }
    #[inline]
    pub fn unset(&mut self, i: u64) {
        self.words[(i / 64) as usize] &= !(1 << (i % 64));
    }
    pub fn clear(&mut self) {
        self.words.iter_mut().for_each(|w| *w = 0);
    }
    pub fn count_ones(&self) -> u64 {
        self.words.iter().map(|w| w.count_ones() as u64).sum()
    }
    pub fn words(&self) -> &[u64] {
        &self.words
    }
    pub fn words_mut(&mut self) -> &mut [u64] {
        &mut self.words
    }
    /// The first unset bit, if any.
    pub fn first_unset(&self) -> Option<u64> {
        self.words
            .iter()
            .enumerate()
            .find(|(_, &w)| w != u64::MAX)
            .map(|(k, &w)| k as u64 * 64 + w.trailing_ones() as u64)
            .filter(|&i| i < self.len)
    }
    /// Set bits from `from` on, ascending, into `out` (at most `max` of
    /// them); returns where to continue (`len` rounded up when done).
    pub fn collect(&self, from: u64, max: usize, out: &mut Vec<u32>) -> u64 {
        out.clear();
        let mut w = (from / 64) as usize;
        let mut bits = self.words.get(w).map_or(0, |x| x & (!0u64 << (from % 64)));
        loop {
            while bits != 0 {
                let v = (w * 64) as u64 + bits.trailing_zeros() as u64;
                if out.len() == max {
                    return v;
                }
                out.push(v as u32);
                bits &= bits - 1;
            }
            w += 1;
            if w >= self.words.len() {
                return (self.words.len() * 64) as u64;
            }
            bits = self.words[w];
        }
    }
    /// Every set bit, ascending.
    pub fn ones(&self) -> impl Iterator<Item = u64> + '_ {
        self.words.iter().enumerate().flat_map(|(k, &w)| {
            let mut bits = w;
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let b = bits.trailing_zeros() as u64;
                    bits &= bits - 1;
                    k as u64 * 64 + b
                })
            })
        })
    }
}

/// A bitmap that threads set concurrently (relaxed `fetch_or`).
#[derive(Debug, Default)]
pub struct AtomicBitmap {
    words: Vec<AtomicU64>,
    len: u64,
}

impl AtomicBitmap {
    pub fn new(len: u64) -> Self {
        AtomicBitmap { words: (0..len.div_ceil(64)).map(|_| AtomicU64::new(0)).collect(), len }
    }
    pub fn len(&self) -> u64 {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    #[inline]
    pub fn get(&self, i: u64) -> bool {
        self.words[(i / 64) as usize].load(Relaxed) >> (i % 64) & 1 == 1
    }
    /// Set bit `i`; whether it was unset before.
    #[inline]
    pub fn set(&self, i: u64) -> bool {
        let bit = 1 << (i % 64);
        self.words[(i / 64) as usize].fetch_or(bit, Relaxed) & bit == 0
    }
    /// Move the bits into `into` (which must have the same length) and
    /// clear this one; returns how many were set.
    pub fn drain_into(&self, into: &mut Bitmap) -> u64 {
        let mut count = 0;
        for (dst, src) in into.words.iter_mut().zip(&self.words) {
            *dst = src.swap(0, Relaxed);
            count += dst.count_ones() as u64;
        }
        count
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_list_every_set_bit_once_in_order() {
        let n = 1000u64;
        let mut b = Bitmap::new(n);
        let set: Vec<u64> = (0..n).filter(|v| v % 7 == 3 || *v == 63 || *v == 64 || *v == 999).collect();
        for &v in &set {
            b.set(v);
        }
        assert_eq!(b.ones().collect::<Vec<_>>(), set);
        assert_eq!(b.count_ones(), set.len() as u64);
        for max in [1usize, 5, 64, 10_000] {
            let (mut from, mut got, mut chunk) = (0u64, Vec::new(), Vec::new());
            while from < n {
                from = b.collect(from, max, &mut chunk);
                assert!(chunk.len() <= max);
                got.extend(chunk.iter().map(|&v| v as u64));
            }
            assert_eq!(got, set, "chunks of {max}");
        }
    }

    #[test]
    fn atomic_bits_drain_and_report_first_setting() {
        let a = AtomicBitmap::new(130);
        assert!(a.set(129));
        assert!(!a.set(129));
        assert!(a.set(0));
        let mut b = Bitmap::new(130);
        assert_eq!(a.drain_into(&mut b), 2);
        assert!(b.get(0) && b.get(129) && !b.get(1));
        assert!(!a.get(129));
        b.unset(0);
        assert_eq!(b.first_unset(), Some(0));
    }
}
