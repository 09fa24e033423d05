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
use outcore_store::ef::EfCursor;
use outcore_store::StoreError;
use rayon::prelude::*;
use std::path::Path;
use sux::dict::elias_fano::{EfSeq, EliasFanoConcurrentBuilder};
use sux::prelude::*;
use sux::rank_sel::SelectAdaptConst;
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

/// The first entry below the one before it, as (index, before, entry):
/// the upper bits order the entries only across their high parts, the
/// lower bits within one. A pass on every core, chunks overlapping by one.
fn first_descent(positions: &EfSeq) -> Option<(usize, usize, usize)> {
    const CHUNK: usize = 1 << 20;
    let n = positions.len();
    (0..n.div_ceil(CHUNK)).into_par_iter().find_map_first(|c| {
        let start = c * CHUNK;
        let end = (start + CHUNK + 1).min(n);
        let mut previous = 0;
        for (i, x) in (start..end).zip(positions.iter_from(start)) {
            if x < previous {
                return Some((i, previous, x));
            }
            previous = x;
        }
        None
    })
}

/// Words as sux keeps them (`usize` is 64 bits wide on every target
/// outcore builds for: the file's words are its words).
fn usizes(words: Vec<u64>) -> Vec<usize> {
    const _: () = assert!(usize::BITS == 64);
    words.into_iter().map(|w| w as usize).collect()
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

    /// Load a whole Elias-Fano index file from `cursor` (fresh), charging
    /// `budget` first. The file keeps sux's split (`EfHeader::plan`), so
    /// its words become the sequence's own: no entry is decoded and pushed
    /// again (at Graph500 scale 25, 0.14-0.23 s against 0.54-0.60 s, with
    /// the hot columns loading on the other core). They are
    /// checked as [`Self::build`] checks entries: one upper bit per entry
    /// and none past the last possible one, entries that never decrease
    /// (a pass on every core: lower bits can break the order within a high
    /// part), and the last entry the header's (then none passes the
    /// largest).
    /// Where sux would split the file's range otherwise (its width comes
    /// from floating point), the entries are pushed one by one.
    pub fn load(mut cursor: Box<EfCursor>, budget: &Budget) -> Result<Self, StoreError> {
        let header = *cursor.header();
        let (n, max, flag) = (header.entries, header.max, header.flag);
        let path = cursor.path().to_path_buf();
        let sux_width = if n > 0 && max >= n { (max as f64 / n as f64).log2().floor() as u32 } else { 0 };
        if sux_width != header.low_width {
            return Self::build(&path, n, max, flag, budget, |push| cursor.for_each(push));
        }
        let planned = Self::bytes(n, max, flag != 0);
        let charge = budget.reserve("vertex index (Elias-Fano)", planned)?;
        // sux's sequence of the file's shape, its zeroed parts replaced one
        // at a time by the file's words (dropped first: the parts never
        // take more than the index will)
        let shell = EliasFanoConcurrentBuilder::new(n as usize, max as usize).build();
        let mut failed = None;
        let (mut last_low, mut last_high) = (0, 0);
        let low_bits = |zeros| {
            drop(zeros);
            let words = cursor.read_low_words().map(|(words, low)| (words, low, header.low_width as usize, n as usize));
            let (mut words, low, width, len) = words.unwrap_or_else(|e| {
                failed = Some(e);
                (Vec::new(), 0, 0, 0)
            });
            last_low = low;
            if words.is_empty() {
                // sux reads a word even at width 0 (BitFieldVec::new keeps one)
                words.push(0);
            }
            // the file's ceil(n l / 64) low words (a file of another length
            // fails to open), at least one; an error leaves one and no entries
            // SAFETY: so `words` holds at least `len * width` bits, and a word
            unsafe { BitFieldVec::from_raw_parts(usizes(words).into_boxed_slice(), width, len) }
        };
        // SAFETY: the low bits are n entries of sux's width `sux_width` (or
        // none after an error, when the sequence is dropped unused below)
        let shell = unsafe { shell.map_low_bits(low_bits) };
        let high_bits = |zeros| {
            drop(zeros);
            let read = if failed.is_none() { cursor.read_high_words() } else { Ok((Vec::new(), 0)) };
            let (words, high) = read.unwrap_or_else(|e| {
                failed = Some(e);
                (Vec::new(), 0)
            });
            last_high = high;
            let bits = if words.is_empty() { 0 } else { header.high_bits() as usize };
            // SAFETY: the file's high_words = ceil(bits / 64) words (or
            // none after an error)
            unsafe { BitVec::from_raw_parts(usizes(words).into_boxed_slice(), bits) }
        };
        // SAFETY: read_high_words checked n ones, none past `bits`: n
        // entries of high parts at most max >> l, as a builder leaves them
        let shell = unsafe { shell.map_high_bits(high_bits) };
        let flag_words = if failed.is_none() { cursor.read_flag_words()? } else { Vec::new() };
        if let Some(e) = failed {
            return Err(e);
        }
        cursor.check_last_entry(last_low, last_high, &flag_words)?;
        // SAFETY: as EliasFanoBuilder::build_with_seq: the high bits hold n
        // ones (checked above), over which the select structure is built
        let positions: EfSeq = unsafe { shell.map_high_bits(SelectAdaptConst::<_, _, 12, 3>::new) };
        if let Some((i, previous, position)) = first_descent(&positions) {
            return Err(StoreError::invalid(&path, format!("decreases at vertex {} ({previous} > {position})", i - 1)));
        }
        let flagged = (flag != 0).then(|| {
            let mut bitmap = Bitmap::new(n);
            bitmap.words_mut().copy_from_slice(&flag_words);
            bitmap
        });
        let real = mem_dbg::MemSize::mem_size(&positions, mem_dbg::SizeFlags::default()) as u64
            + flagged.as_ref().map_or(0, |_| outcore_io::bitmap_bytes(n));
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
    pub fn for_each_range(&self, f: impl FnMut(u64, u64, u64)) {
        self.for_each_range_in(0, self.len().saturating_sub(1), f);
    }

    /// [`Self::for_each_range`] for the v in `from..to` (one select, then
    /// a pass): a part of the vertices, for a pass on every core.
    pub fn for_each_range_in(&self, from: u64, to: u64, mut f: impl FnMut(u64, u64, u64)) {
        let to = to.min(self.len().saturating_sub(1));
        if from >= to {
            return;
        }
        let mut entries = self.positions.iter_from(from as usize).zip(from..=to).map(|(x, i)| x as u64 | self.flag_of(i));
        let Some(mut lo) = entries.next() else { return };
        for (v, hi) in (from..).zip(entries) {
            f(v, lo, hi);
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

    /// The flag mask (the top bit when `flags`) and the index of `lengths`
    /// with a flag only where `flags` allows one.
    fn flagged_index(lengths: Vec<(u64, bool)>, flags: bool) -> (u64, Vec<u64>) {
        let flag = if flags { 1 << 63 } else { 0 };
        let lengths: Vec<(u64, bool)> = lengths.into_iter().map(|(l, f)| (l, f && flags)).collect();
        (flag, index_of(&lengths, flag))
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
            let (flag, entries) = flagged_index(lengths, flags);
            let index = build(&entries, flag).unwrap();
            prop_assert_eq!(index.len(), entries.len() as u64);
            prop_assert_eq!(index.is_empty(), entries.is_empty());
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

    /// `entries` written as an Elias-Fano file under `dir` (as an import
    /// writes an index), its path.
    fn write_file(dir: &Path, entries: &[u64], flag: u64) -> std::path::PathBuf {
        use outcore_store::ef::{write_ef, EfHeader};
        let path = dir.join("out.ef");
        let max = entries.last().map_or(0, |&x| x & !flag);
        let header = EfHeader::plan(entries.len() as u64, max, flag, entries.last().copied().unwrap_or(0));
        let mut out = outcore_io::SeqWriter::scratch(&path, 1 << 16).unwrap();
        write_ef(&mut out, &header, &path, |f| entries.iter().try_for_each(|&e| f(e))).unwrap();
        out.finish().unwrap();
        path
    }

    fn load(path: &Path, len: u64, flag: u64) -> Result<CompactIndex, StoreError> {
        CompactIndex::load(Box::new(EfCursor::open(path, len, flag)?), &Budget::new(1 << 30))
    }

    proptest! {
        /// A file loaded whole equals a plain vector (and the index built
        /// entry by entry), with empty lists anywhere and with or without
        /// flag bits.
        #[test]
        fn a_file_loaded_whole_equals_a_plain_vector(
            lengths in proptest::collection::vec((prop_oneof![Just(0u64), 0u64..5, 0u64..100_000], any::<bool>()), 0..600),
            flags in any::<bool>(),
        ) {
            let (flag, entries) = flagged_index(lengths, flags);
            let dir = tempfile::tempdir().unwrap();
            let index = load(&write_file(dir.path(), &entries, flag), entries.len() as u64, flag).unwrap();
            prop_assert_eq!(index.len(), entries.len() as u64);
            for (i, &x) in entries.iter().enumerate() {
                prop_assert_eq!(index.get(i as u64), x);
            }
            let mut seen = Vec::new();
            index.for_each_range(|v, lo, hi| seen.push((v as usize, lo, hi)));
            let want: Vec<_> = entries.windows(2).enumerate().map(|(v, w)| (v, w[0], w[1])).collect();
            prop_assert_eq!(seen, want);
            prop_assert_eq!(index.memory_bytes(), build(&entries, flag).unwrap().memory_bytes());
        }

        /// One bit flipped anywhere past the header: loading whole is an
        /// error naming the file, or (a flipped low bit, or one past the
        /// last entry's bits) the entries the cursor reads one by one when
        /// it accepts the file too; never a panic, never entries that
        /// decrease or pass the largest.
        #[test]
        fn a_damaged_file_loads_as_the_cursor_reads_it_or_not_at_all(
            lengths in proptest::collection::vec((0u64..50, any::<bool>()), 1..300),
            flags in any::<bool>(),
            at in any::<prop::sample::Index>(),
        ) {
            let (flag, entries) = flagged_index(lengths, flags);
            let dir = tempfile::tempdir().unwrap();
            let path = write_file(dir.path(), &entries, flag);
            let mut bytes = std::fs::read(&path).unwrap();
            let header = outcore_store::ef::HEADER_WORDS as usize * 8;
            let bit = header * 8 + at.index((bytes.len() - header) * 8);
            bytes[bit / 8] ^= 1 << (bit % 8);
            std::fs::write(&path, &bytes).unwrap();
            let n = entries.len() as u64;
            let max = entries.last().unwrap() & !flag;
            let mut cursor = EfCursor::open(&path, n, flag).unwrap();
            let mut read = Vec::new();
            let by_cursor = cursor.for_each(|e| {
                read.push(e);
                Ok(())
            });
            match load(&path, n, flag) {
                Ok(index) => {
                    let got: Vec<u64> = (0..n).map(|i| index.get(i)).collect();
                    prop_assert!(got.windows(2).all(|w| w[0] & !flag <= w[1] & !flag));
                    prop_assert!(got.iter().all(|&e| e & !flag <= max));
                    if by_cursor.is_ok() {
                        prop_assert_eq!(got, read);
                    }
                }
                Err(e) => prop_assert!(e.to_string().contains("out.ef"), "{}", e),
            }
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

    /// What building an index charges: the bytes planned from its length
    /// and largest position before any entry is seen, or what it holds
    /// when its select structure spilled past that (an index whose lists
    /// are long in one stretch and short everywhere else spreads that
    /// stretch's ones far apart); never less than it holds.
    #[test]
    fn an_index_is_charged_its_plan_or_what_it_holds() {
        let mut rng = outcore_io::SplitMix64(3);
        let even: Vec<(u64, bool)> = (0..200_000).map(|_| (rng.next_u64() % 16, rng.next_u64().is_multiple_of(3))).collect();
        let stretch: Vec<(u64, bool)> =
            (0..200_000u64).map(|i| (if i < 8192 { 1 << 20 } else { i % 2 }, rng.next_u64().is_multiple_of(3))).collect();
        let mut spilled = false;
        for lengths in [even, stretch] {
            for flags in [false, true] {
                let (flag, entries) = flagged_index(lengths.clone(), flags);
                let max = entries.last().unwrap() & !flag;
                let budget = Budget::new(1 << 30);
                let index = CompactIndex::build(Path::new("x.index"), entries.len() as u64, max, flag, &budget, |push| {
                    entries.iter().try_for_each(|&x| push(x))
                })
                .unwrap();
                let planned = CompactIndex::bytes(entries.len() as u64, max, flags);
                let holds = index.memory_bytes();
                assert_eq!(budget.used(), planned.max(holds), "flags {flags}: planned {planned}, holds {holds}");
                spilled |= holds > planned;
            }
        }
        assert!(spilled, "no index spilled past its plan: the stretch of long lists should have made one");
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
