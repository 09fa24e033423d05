//! Which rank owns a vertex: hash(vertex) mod P, as the thesis's
//! distributed DegAwareRHH (section 4.4.2). The hash is SplitMix64 applied
//! twice: each rank's dynamic store picks its own partitions (and table
//! slots) from the once-mixed id, so the rank must come from bits
//! independent of those, or every vertex of a rank would land in the same
//! few of its partitions.

use outcore_dynamic::hash::mix;

/// The owner function of a distributed store, named in its manifest (a
/// range partition may join it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Owner {
    /// `(low 32 bits of splitmix64(splitmix64(v))) * P >> 32`.
    Splitmix2,
}

impl Owner {
    #[inline]
    pub fn rank_of(self, v: u64, ranks: usize) -> usize {
        match self {
            Owner::Splitmix2 => outcore_dynamic::hash::owner(mix(mix(v)), ranks),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_are_balanced_and_independent_of_the_stores_partitions() {
        let (ranks, parts) = (4, 4);
        let mut count = vec![vec![0u64; parts]; ranks];
        for v in 0..400_000u64 {
            let r = Owner::Splitmix2.rank_of(v, ranks);
            count[r][outcore_dynamic::hash::owner(mix(v), parts)] += 1;
        }
        // every (rank, partition) pair gets its 1/16th, within 3%
        for row in &count {
            for &c in row {
                assert!((24_250..=25_750).contains(&c), "{count:?}");
            }
        }
    }
}
