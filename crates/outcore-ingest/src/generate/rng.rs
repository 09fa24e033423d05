//! Counter-based randomness: edge `i` of a generator draws from a stream
//! seeded by (seed, i), so edges are independent of generation order.

pub use outcore_io::hash::splitmix64 as hash64;
use outcore_io::SplitMix64;

/// A uniform double in [0, 1) from 53 random bits.
#[inline]
pub fn uniform01(bits: u64) -> f64 {
    (bits >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// The random stream of one edge (SplitMix64 seeded by seed and index).
pub struct EdgeRng(SplitMix64);

impl EdgeRng {
    #[inline]
    pub fn new(seed: u64, stream: u64, index: u64) -> Self {
        EdgeRng(SplitMix64(hash64(hash64(seed ^ stream.wrapping_mul(0xD6E8_FEB8_6659_FD93)) ^ index)))
    }
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }
    #[inline]
    pub fn next_f64(&mut self) -> f64 {
        uniform01(self.next_u64())
    }
    /// Uniform in 0..n (multiply-shift; bias below 2^-64 * n).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        self.0.below(n)
    }
}
