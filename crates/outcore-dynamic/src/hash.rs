//! Vertex hashing. Real ids are clustered (consecutive, or multiples of a
//! stride), so `id mod capacity` piles them onto neighbouring slots; a
//! 64-bit finaliser spreads them. A table's home slot is the hash's top
//! bits, so one sorted batch sweeps every table of a partition in order;
//! the owner partition is taken from the low bits, independent of the top.

/// SplitMix64's finaliser: a bijection on u64 with full avalanche.
#[inline]
pub fn mix(id: u64) -> u64 {
    let mut z = id.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The partition that owns a source vertex (hash(source) mod P, section 4.4.2).
#[inline]
pub fn owner(hash: u64, partitions: usize) -> usize {
    (((hash & 0xffff_ffff) * partitions as u64) >> 32) as usize
}
