//! Counter-based randomness: edge `i` of a generator draws from a stream
//! seeded by (seed, i), so edges are independent of generation order.

/// SplitMix64 finalizer: a strong 64-bit mix.
#[inline]
pub fn hash64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A uniform double in [0, 1) from 53 random bits.
#[inline]
pub fn uniform01(bits: u64) -> f64 {
    (bits >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// The random stream of one edge (SplitMix64 seeded by seed and index).
pub struct EdgeRng(u64);

impl EdgeRng {
    #[inline]
    pub fn new(seed: u64, stream: u64, index: u64) -> Self {
        EdgeRng(hash64(hash64(seed ^ stream.wrapping_mul(0xD6E8_FEB8_6659_FD93)) ^ index))
    }
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    #[inline]
    pub fn next_f64(&mut self) -> f64 {
        uniform01(self.next_u64())
    }
    /// Uniform in 0..n (multiply-shift; bias below 2^-64 * n).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }
}
