//! Vertex hashing. Real ids are clustered (consecutive, or multiples of a
//! stride), so `id mod capacity` piles them onto neighbouring slots; a
//! 64-bit finaliser spreads them. A table's home slot is the hash's top
//! bits, so one sorted batch sweeps every table of a partition in order;
//! the owner partition is taken from the low bits, independent of the top.

/// SplitMix64's finaliser: a bijection on u64 with full avalanche.
pub use outcore_io::hash::splitmix64 as mix;

/// The partition that owns a source vertex (hash(source) mod P, section 4.4.2).
#[inline]
pub fn owner(hash: u64, partitions: usize) -> usize {
    (((hash & 0xffff_ffff) * partitions as u64) >> 32) as usize
}
