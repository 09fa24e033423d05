//! A layout's vertex index held in memory as an Elias-Fano sequence (Elias
//! 1974, Fano 1971; sux's `EfSeq`, engineered as in Vigna's quasi-succinct
//! indices, WSDM 2013). Entry v of an index is where vertex v's list starts
//! (in the codec's index unit) and entries never decrease, so the whole
//! index costs about 2 + log2(average list length in index units) bits per
//! vertex instead of 64: at Graph500 scale 25 (raw32) about 7 bits, an
//! eighth of the 268 MB the plain array took of a 1 GB budget. Access is
//! O(1): one select in the upper bits, one read of the lower bits.
//!
//! CEESOR marks a self loop in an entry's top bit (`codec.position` masks
//! it off); such flags live in a bitmap beside the sequence.

use outcore_io::{Bitmap, Budget, Reservation};
use outcore_store::StoreError;
use std::path::Path;
use sux::dict::elias_fano::EfSeq;
use sux::prelude::*;
use sux::traits::indexed_dict::IndexedSeq;

/// An index in memory: `len` entries, each a non-decreasing position plus
/// the codec's flag bits.
pub struct CompactIndex {
    positions: EfSeq,
    /// Entries that carry `flag` (only for codecs with flag bits).
    flagged: Option<Bitmap>,
    flag: u64,
    _charges: (Reservation, Option<Reservation>),
}

/// Bytes of the select inventory sux builds over `ones` ones: one word per
/// 2^12 ones and 2^3 words of sub-inventory each, plus the sentinel.
fn inventory_bytes(ones: u64) -> u64 {
    (ones.div_ceil(1 << 12) * 9 + 1) * 8
}

impl CompactIndex {
    /// Bytes an index of `len` entries whose positions are at most `max`
    /// takes before any spill of its select structure (which
    /// [`Self::build`] charges as it finds it); `flags`: the codec has flag
    /// bits.
    pub fn bytes(len: u64, max: u64, flags: bool) -> u64 {
        let low_width = if len > 0 && max >= len { (max / len).ilog2() as u64 } else { 0 };
        let low = (len * low_width).div_ceil(64) * 8;
        let high = (len + 1 + (max >> low_width)).div_ceil(64) * 8;
        let flag_bits = if flags { outcore_io::bitmap_bytes(len) } else { 0 };
        low + high + inventory_bytes(len) + flag_bits + 256
    }

    /// Build from `entries` (in vertex order, `len` of them, positions at
    /// most `max`), charging `budget` first. `flag` is the mask of the
    /// codec's flag bits (0 for none): an entry's position is the rest, and
    /// its flag is kept beside it. An entry whose position decreases or
    /// passes `max`, or a count other than `len`, is an error naming `path`.
    pub fn build(
        path: &Path,
        len: u64,
        max: u64,
        flag: u64,
        budget: &Budget,
        entries: impl FnOnce(&mut dyn FnMut(u64) -> Result<(), StoreError>) -> Result<(), StoreError>,
    ) -> Result<Self, StoreError> {
        let planned = Self::bytes(len, max, flag != 0);
        let charge = budget.reserve("vertex index (Elias-Fano)", planned)?;
        let mut builder = EliasFanoBuilder::new(len as usize, max as usize);
        let mut flagged = (flag != 0).then(|| Bitmap::new(len));
        let (mut count, mut previous) = (0u64, 0u64);
        entries(&mut |entry| {
            let position = entry & !flag;
            if count == len {
                return Err(StoreError::invalid(path, format!("holds more than {len} entries")));
            }
            if position < previous {
                return Err(StoreError::invalid(path, format!("decreases at vertex {} ({previous} > {position})", count - 1)));
            }
            if position > max {
                return Err(StoreError::invalid(path, format!("entry {count} is {position}, beyond the end of the layout ({max})")));
            }
            // SAFETY: checked just above: fewer than `len` pushes, monotone, at most `max`
            unsafe { builder.push_unchecked(position as usize) };
            if entry & flag != 0 {
                flagged.as_mut().expect("a bitmap when the codec has flags").set(count);
            }
            (count, previous) = (count + 1, position);
            Ok(())
        })?;
        if count != len {
            return Err(StoreError::invalid(path, format!("holds {count} entries, expected {len}")));
        }
        let positions = builder.build_with_seq();
        // the select structure's spill depends on the data: charge what it took
        let real = mem_dbg::MemSize::mem_size(&positions, mem_dbg::SizeFlags::default()) as u64
            + flagged.as_ref().map_or(0, |_| outcore_io::bitmap_bytes(len));
        let spill = if real > planned { Some(budget.reserve("vertex index (Elias-Fano select spill)", real - planned)?) } else { None };
        Ok(CompactIndex { positions, flagged, flag, _charges: (charge, spill) })
    }

    /// Number of entries.
    pub fn len(&self) -> u64 {
        self.positions.len() as u64
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Entry `i` (position and flag bits).
    #[inline]
    pub fn get(&self, i: u64) -> u64 {
        self.positions.get(i as usize) as u64 | self.flag_of(i)
    }

    /// Entries `v` and `v + 1`: where `v`'s list starts and ends.
    #[inline]
    pub fn range(&self, v: u64) -> (u64, u64) {
        let mut it = self.positions.iter_from(v as usize);
        let lo = it.next().expect("v + 1 < len");
        let hi = it.next().expect("v + 1 < len");
        (lo as u64 | self.flag_of(v), hi as u64 | self.flag_of(v + 1))
    }

    /// Calls `f(v, lo, hi)` for every v in order (one pass over the
    /// sequence: a few nanoseconds an entry, against a select each for
    /// [`Self::range`]).
    pub fn for_each_range(&self, mut f: impl FnMut(u64, u64, u64)) {
        let mut entries = self.positions.iter().enumerate().map(|(i, x)| x as u64 | self.flag_of(i as u64));
        let Some(mut lo) = entries.next() else { return };
        for (v, hi) in entries.enumerate() {
            f(v as u64, lo, hi);
            lo = hi;
        }
    }

    #[inline]
    fn flag_of(&self, i: u64) -> u64 {
        match &self.flagged {
            Some(b) if b.get(i) => self.flag,
            _ => 0,
        }
    }

    /// Bytes held in memory.
    pub fn memory_bytes(&self) -> u64 {
        mem_dbg::MemSize::mem_size(&self.positions, mem_dbg::SizeFlags::default()) as u64
            + self.flagged.as_ref().map_or(0, |_| outcore_io::bitmap_bytes(self.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn build(entries: &[u64], flag: u64) -> Result<CompactIndex, StoreError> {
        let max = entries.last().map_or(0, |&x| x & !flag);
        let budget = Budget::new(1 << 30);
        CompactIndex::build(Path::new("x.index"), entries.len() as u64, max, flag, &budget, |push| {
            entries.iter().try_for_each(|&x| push(x))
        })
    }

    /// An index from list lengths (0 where a vertex has no list) and flags.
    fn index_of(lengths: &[(u64, bool)], flag: u64) -> Vec<u64> {
        let mut at = 0;
        let mut entries: Vec<u64> = lengths
            .iter()
            .map(|&(len, flagged)| {
                let entry = at | if flagged { flag } else { 0 };
                at += len;
                entry
            })
            .collect();
        entries.push(at);
        entries
    }

    proptest! {
        /// get and range equal a plain vector, with empty lists anywhere
        /// (both ends included) and with or without flag bits.
        #[test]
        fn access_equals_a_plain_vector(
            lengths in proptest::collection::vec((prop_oneof![Just(0u64), 0u64..5, 0u64..100_000], any::<bool>()), 0..600),
            flags in any::<bool>(),
        ) {
            let flag = if flags { 1 << 63 } else { 0 };
            let lengths: Vec<(u64, bool)> = lengths.into_iter().map(|(l, f)| (l, f && flags)).collect();
            let entries = index_of(&lengths, flag);
            let index = build(&entries, flag).unwrap();
            prop_assert_eq!(index.len(), entries.len() as u64);
            for (i, &x) in entries.iter().enumerate() {
                prop_assert_eq!(index.get(i as u64), x);
            }
            for v in 0..entries.len().saturating_sub(1) {
                prop_assert_eq!(index.range(v as u64), (entries[v], entries[v + 1]));
            }
            let mut seen = Vec::new();
            index.for_each_range(|v, lo, hi| seen.push((v as usize, lo, hi)));
            let want: Vec<_> = entries.windows(2).enumerate().map(|(v, w)| (v, w[0], w[1])).collect();
            prop_assert_eq!(seen, want);
            let max = entries.last().unwrap() & !flag;
            prop_assert!(index.memory_bytes() <= CompactIndex::bytes(entries.len() as u64, max, flags) + 64 * 8);
        }
    }

    #[test]
    fn a_few_bits_per_vertex() {
        // a million vertices with lists of 0..64 entries
        let mut rng = outcore_io::SplitMix64(7);
        let lengths: Vec<(u64, bool)> = (0..1_000_000).map(|_| (rng.next_u64() % 64, false)).collect();
        let entries = index_of(&lengths, 0);
        let index = build(&entries, 0).unwrap();
        let bits = index.memory_bytes() as f64 * 8.0 / entries.len() as f64;
        // 2 + log2(average 31.5) = 6.98, plus the select inventory
        assert!((6.5..8.0).contains(&bits), "{bits} bits per vertex");
        for v in (0..1_000_000).step_by(997) {
            assert_eq!(index.range(v), (entries[v as usize], entries[v as usize + 1]));
        }
    }

    #[test]
    fn bad_indexes_are_errors_naming_the_file() {
        let err = |entries: &[u64], max: u64, len: u64| {
            let budget = Budget::new(1 << 30);
            CompactIndex::build(Path::new("g/out.index"), len, max, 0, &budget, |push| entries.iter().try_for_each(|&x| push(x)))
                .err()
                .expect("an error")
                .to_string()
        };
        let decreasing = err(&[0, 5, 3, 9], 9, 4);
        assert!(decreasing.contains("g/out.index") && decreasing.contains("decreases at vertex 1"), "{decreasing}");
        let beyond = err(&[0, 5, 30], 9, 3);
        assert!(beyond.contains("beyond the end"), "{beyond}");
        let short = err(&[0, 5], 9, 3);
        assert!(short.contains("holds 2 entries, expected 3"), "{short}");
        let long = err(&[0, 5, 6, 7], 9, 3);
        assert!(long.contains("more than 3 entries"), "{long}");
        // a budget too small for the index is a budget error, before any allocation
        let tiny = Budget::new(64);
        let e = CompactIndex::build(Path::new("x"), 1000, 10_000, 0, &tiny, |_| Ok(())).err().unwrap();
        assert!(matches!(e, StoreError::Budget(_)), "{e}");
    }
}
