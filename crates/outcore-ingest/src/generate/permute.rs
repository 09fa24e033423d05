//! A pseudo-random permutation of 0..n in O(1) memory: a 4-round Feistel
//! network over the smallest even-bit power of two >= n, with cycle
//! walking to stay inside 0..n. Replaces Graph500's stored `randperm`.

use super::rng::hash64;

#[derive(Clone, Debug)]
pub struct Permutation {
    n: u64,
    half_bits: u32,
    keys: [u64; 4],
}

impl Permutation {
    pub fn new(n: u64, seed: u64) -> Self {
        let bits = 64 - n.saturating_sub(1).leading_zeros();
        let half_bits = bits.div_ceil(2).max(1);
        let mut keys = [0; 4];
        for (r, k) in keys.iter_mut().enumerate() {
            *k = hash64(seed ^ (r as u64 + 1).wrapping_mul(0xA076_1D64_78BD_642F));
        }
        Permutation { n, half_bits, keys }
    }

    #[inline]
    fn feistel(&self, x: u64) -> u64 {
        let mask = (1u64 << self.half_bits) - 1;
        let (mut l, mut r) = (x >> self.half_bits, x & mask);
        for k in self.keys {
            let f = hash64(r ^ k) & mask;
            (l, r) = (r, l ^ f);
        }
        (l << self.half_bits) | r
    }

    /// The image of `x` (0 <= x < n).
    #[inline]
    pub fn apply(&self, x: u64) -> u64 {
        debug_assert!(x < self.n);
        let mut y = self.feistel(x);
        while y >= self.n {
            y = self.feistel(y);
        }
        y
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_a_bijection_for_awkward_sizes() {
        for n in [1u64, 2, 3, 7, 100, 1000, 4096, 5000] {
            let p = Permutation::new(n, 42);
            let mut seen = vec![false; n as usize];
            for x in 0..n {
                let y = p.apply(x);
                assert!(!seen[y as usize], "n={n}: {y} twice");
                seen[y as usize] = true;
            }
        }
        let p = Permutation::new(1000, 1);
        assert!((0..1000).filter(|&x| p.apply(x) == x).count() < 20, "not shuffled");
    }
}
