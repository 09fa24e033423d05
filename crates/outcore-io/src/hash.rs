//! SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
//! generators", OOPSLA 2014): the one 64-bit mixer of outcore. Generators
//! draw counter-based random streams from it, the dynamic store spreads
//! clustered vertex ids with it, and samplers pick vertices with it.

/// The golden-ratio increment of the SplitMix64 sequence.
pub const GOLDEN_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64's output function applied to `x + GOLDEN_GAMMA`: a bijection
/// on u64 with full avalanche (every input bit flips each output bit with
/// probability about 1/2).
#[inline]
pub fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(GOLDEN_GAMMA);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The SplitMix64 sequence from a state: `next` returns
/// `splitmix64(state)` and advances the state by [`GOLDEN_GAMMA`].
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let out = splitmix64(self.0);
        self.0 = self.0.wrapping_add(GOLDEN_GAMMA);
        out
    }
    /// Uniform in `0..n` (multiply-shift; bias below 2^-64 * n).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_reference_sequence() {
        // The first outputs of SplitMix64 seeded with 0 (Vigna's splitmix64.c).
        let mut s = SplitMix64(0);
        assert_eq!(s.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(s.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(s.next_u64(), 0x06C4_5D18_8009_454F);
    }
}
