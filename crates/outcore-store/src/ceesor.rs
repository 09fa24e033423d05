//! CEESOR (Compressed Enumerated Encoded Sparse Offset Row), TR-823
//! section 2.4: each edge (u, v) is the offset |v - u| in the minimum
//! number of bits, big-endian, entries in ascending |offset| with one 0 bit
//! before every entry that needs one more bit (Algorithms 1 and 2), and the
//! sign bit (1 when v > u) right after its entry. The 64-bit bit-level
//! vertex index keeps a self loop in its top bit; the stream has no degree,
//! so the layout stores degrees beside it. Weights are stored in the same
//! |offset| order (ties: the smaller neighbour first).

use crate::bits::{BitReader, BitWriter};
use crate::codec::{Codec, Encoding, IndexUnit, ListDecoder, ListEncoder, ListSource};

pub struct Ceesor;

/// The index entry's self-loop flag.
pub const SELF_LOOP: u64 = 1 << 63;

/// Visit `neighbours` (ascending) in CEESOR order: the self loop first,
/// then ascending |offset|, the smaller neighbour first on ties. Calls
/// `f(ascending position, offset, positive)`.
fn for_each_in_offset_order(vertex: u64, neighbours: &[u64], mut f: impl FnMut(usize, u64, bool)) {
    let split = neighbours.partition_point(|&n| n < vertex);
    let mut right = split;
    if neighbours.get(split) == Some(&vertex) {
        f(split, 0, false);
        right += 1;
    }
    let mut left = split;
    while left > 0 || right < neighbours.len() {
        let lo = (left > 0).then(|| vertex - neighbours[left - 1]);
        let hi = (right < neighbours.len()).then(|| neighbours[right] - vertex);
        match (lo, hi) {
            (Some(a), Some(b)) if a <= b => {
                left -= 1;
                f(left, a, false);
            }
            (Some(a), None) => {
                left -= 1;
                f(left, a, false);
            }
            (_, Some(b)) => {
                f(right, b, true);
                right += 1;
            }
            (None, None) => unreachable!(),
        }
    }
}

impl Codec for Ceesor {
    fn encoding(&self) -> Encoding {
        Encoding::Ceesor
    }
    fn index_unit(&self) -> IndexUnit {
        IndexUnit::Bits
    }
    fn max_vertices(&self) -> u64 {
        u64::MAX
    }
    fn blocked(&self) -> bool {
        true
    }
    fn position(&self, entry: u64) -> u64 {
        entry & !SELF_LOOP
    }
    fn byte_range(&self, lo: u64, hi: u64) -> (u64, u64) {
        ((lo & !SELF_LOOP) / 8, (hi & !SELF_LOOP).div_ceil(8))
    }
    fn degree(&self, _lo: u64, _hi: u64) -> Option<u64> {
        None
    }
    fn encoder(&self) -> Box<dyn ListEncoder> {
        Box::new(Ceesor)
    }
    fn decoder_lists(&self) -> u64 {
        1
    }
    fn decoder(&self) -> Box<dyn ListDecoder> {
        Box::new(CeesorDecoder {
            negative: Vec::new(),
            batch: SignBatch { vertex: 0, vertices: 0, last: (0, true), ups: [0; SIGN_BATCH], downs: [0; SIGN_BATCH], n_up: 0, n_down: 0 },
        })
    }
    fn reorders_weights(&self) -> bool {
        true
    }
    fn storage_order(&self, vertex: u64, neighbours: &[u64], perm: &mut Vec<usize>) -> bool {
        perm.clear();
        for_each_in_offset_order(vertex, neighbours, |i, _, _| perm.push(i));
        true
    }
}

impl ListEncoder for Ceesor {
    fn encode(&mut self, vertex: u64, neighbours: &[u64], out: &mut BitWriter) -> u64 {
        let mut bits = 1u32;
        let mut flags = 0;
        for_each_in_offset_order(vertex, neighbours, |_, offset, positive| {
            if offset == 0 {
                flags = SELF_LOOP;
                return;
            }
            while bits < 64 && (1u64 << bits) - 1 < offset {
                out.write_bit(false);
                bits += 1;
            }
            out.write(offset, bits);
            out.write_bit(positive);
        });
        flags
    }
}

/// Entries decoded before they join their side of the list.
const SIGN_BATCH: usize = 64;

/// A list's latest entries, as neighbours on either side of its vertex.
/// The signs fall at random: each entry is written to both sides and
/// counted in one, without a branch on its sign (a mispredicted branch
/// every other entry otherwise).
struct SignBatch {
    vertex: u64,
    vertices: u64,
    /// The last entry's (offset, sign): entries ascend.
    last: (u64, bool),
    ups: [u64; SIGN_BATCH],
    downs: [u64; SIGN_BATCH],
    n_up: usize,
    n_down: usize,
}

#[cold]
fn outside(vertex: u64, offset: u64, positive: bool) -> String {
    if positive {
        format!("impossible code: neighbour {vertex} + {offset} is past the last vertex")
    } else {
        format!("impossible code: neighbour {vertex} - {offset} is below 0")
    }
}

/// The error for the first of the entries of `width` bits from `r` on
/// that is not above the one before it (`last`, an entry's bits).
#[cold]
fn out_of_order(mut r: BitReader, width: u32, mut last: u64) -> String {
    while let Ok(entry) = r.read(width) {
        if entry <= last {
            return format!("impossible code: offset {} out of order", entry >> 1);
        }
        last = entry;
    }
    "impossible code: offsets out of order".into()
}

/// Why [`SignBatch::fill`] stopped.
enum Stop {
    /// The list is read.
    End,
    /// The batch is full.
    Full,
    /// The next entry is wider than the last (or cut by the end).
    Widens,
}

impl SignBatch {
    /// Entries of `width` bits (an offset as wide as the last and its
    /// sign) into the batch until one is wider, the batch is full or the
    /// list ends; none when `width` is over 56. Its counters are held in
    /// registers meanwhile. An entry's bits, read as a number, order
    /// entries as (offset, sign) does, since offsets are below 2^55 here
    /// (widths only grow). The neighbours are not checked against the
    /// graph here: they ascend by offset on each side, so
    /// [`CeesorDecoder::decode`] checks the last of each.
    #[inline(always)]
    fn fill(&mut self, r: &mut BitReader, width: u32) -> Result<Stop, String> {
        if width > 56 {
            // the entries after a wider one take the general path; the
            // last entry may not fit 63 bits, so it is left as it is
            return Ok(if r.only_padding_left() { Stop::End } else { Stop::Widens });
        }
        let (mut n_up, mut n_down) = (self.n_up, self.n_down);
        let mut last = (self.last.0 << 1) | self.last.1 as u64;
        let (mut disorder, last_before, from) = (false, last, r.clone());
        let vertex = self.vertex;
        let (ups, downs) = (&mut self.ups, &mut self.downs);
        // n_up + n_down stays below SIGN_BATCH (at most that many entries
        // less the batch's are read), so the masks change no index; they
        // spare a bounds check for each
        r.entries_of_width(width, SIGN_BATCH - (n_up + n_down), |entry| {
            disorder |= entry <= last;
            last = entry;
            let (offset, positive) = (entry >> 1, (entry & 1) as usize);
            ups[n_up % SIGN_BATCH] = vertex.wrapping_add(offset);
            downs[n_down % SIGN_BATCH] = vertex.wrapping_sub(offset);
            n_up += positive;
            n_down += 1 - positive;
        });
        if disorder {
            return Err(out_of_order(from, width, last_before));
        }
        (self.n_up, self.n_down, self.last) = (n_up, n_down, (last >> 1, last & 1 == 1));
        Ok(if r.only_padding_left() {
            Stop::End
        } else if n_up + n_down == SIGN_BATCH {
            Stop::Full
        } else {
            Stop::Widens
        })
    }
    #[inline(always)]
    fn is_full(&self) -> bool {
        self.n_up + self.n_down == SIGN_BATCH
    }
    #[inline(always)]
    fn push(&mut self, offset: u64, positive: bool) -> Result<(), String> {
        if (offset, positive) <= self.last {
            return Err(format!("impossible code: offset {offset} out of order"));
        }
        self.last = (offset, positive);
        let vertex = self.vertex;
        let (up, down) = (vertex.wrapping_add(offset), vertex.wrapping_sub(offset));
        let inside = (positive & (up > vertex) & (up < self.vertices)) | (!positive & (offset <= vertex));
        if !inside {
            return Err(outside(vertex, offset, positive));
        }
        self.ups[self.n_up] = up;
        self.downs[self.n_down] = down;
        self.n_up += positive as usize;
        self.n_down += !positive as usize;
        Ok(())
    }
    /// The entries so far to their sides: `ups` ascending, `downs` by
    /// ascending offset (descending ids).
    fn flush(&mut self, ups: &mut Vec<u64>, downs: &mut Vec<u64>) {
        ups.extend_from_slice(&self.ups[..self.n_up]);
        downs.extend_from_slice(&self.downs[..self.n_down]);
        (self.n_up, self.n_down) = (0, 0);
    }
}

struct CeesorDecoder {
    negative: Vec<u64>,
    /// Kept from list to list: its arrays are not cleared for each.
    batch: SignBatch,
}

impl ListDecoder for CeesorDecoder {
    fn release_above(&mut self, entries: usize) {
        if self.negative.capacity() > entries {
            self.negative = Vec::new();
        }
    }

    fn decode(&mut self, vertex: u64, lo: u64, hi: u64, src: &ListSource, out: &mut Vec<u64>) -> Result<(), String> {
        out.clear();
        self.negative.clear();
        let (start, end) = ((lo & !SELF_LOOP) - src.first_byte * 8, (hi & !SELF_LOOP) - src.first_byte * 8);
        let mut r = BitReader::new(src.bytes, start, end)?;
        let mut size = 1u64;
        let batch = &mut self.batch;
        (batch.vertex, batch.vertices, batch.last, batch.n_up, batch.n_down) = (vertex, src.vertices, (0, true), 0, 0);
        loop {
            // Algorithm 2: each leading 0 widens the entries by one bit; the
            // entry's own top bit is the 1 that ends the run. Mostly an
            // entry is as wide as the last (its top bit a 1): that path's
            // length is known before its bits are, and it runs on a copy of
            // the reader held in registers.
            match r.in_registers(|r| batch.fill(r, size as u32 + 1))? {
                Stop::End => break,
                Stop::Full => {
                    batch.flush(out, &mut self.negative);
                    continue;
                }
                Stop::Widens => {}
            }
            let (wider, offset, positive) = r.read_widening_entry(size)?;
            size = wider;
            if batch.is_full() {
                batch.flush(out, &mut self.negative);
            }
            batch.push(offset, positive)?;
        }
        batch.flush(out, &mut self.negative);
        // the farthest neighbour on each side: a wrapped one lands on the
        // vertex's other side
        if let Some(&up) = out.last().filter(|&&up| up <= vertex || up >= src.vertices) {
            return Err(outside(vertex, up.wrapping_sub(vertex), true));
        }
        if let Some(&down) = self.negative.last().filter(|&&down| down > vertex) {
            return Err(outside(vertex, vertex.wrapping_sub(down), false));
        }
        let positives = out.len();
        let self_loop = lo & SELF_LOOP != 0;
        out.resize(positives + self.negative.len() + self_loop as usize, 0);
        out.copy_within(0..positives, self.negative.len() + self_loop as usize);
        for (i, &n) in self.negative.iter().rev().enumerate() {
            out[i] = n;
        }
        if self_loop {
            out[self.negative.len()] = vertex;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::tests::round_trip;
    use proptest::prelude::*;

    /// Figure 4/5 style: vertex 3 with neighbours 1, 2, 4, 7 -> offsets
    /// 1- 1+ 2- 4+: "1 0 | 1 1 | 0 10 0 | 0 100 1", the loop in the flag.
    #[test]
    fn encodes_as_the_paper() {
        let mut w = BitWriter::new();
        let flags = Ceesor.encode(3, &[1, 2, 3, 4, 7], &mut w);
        assert_eq!(flags, SELF_LOOP);
        let bits: String = (0..w.len()).map(|i| if w.bytes()[(i / 8) as usize] >> (7 - i % 8) & 1 == 1 { '1' } else { '0' }).collect();
        assert_eq!(bits, "1011010001001");
        let mut perm = Vec::new();
        assert!(Ceesor.storage_order(3, &[1, 2, 3, 4, 7], &mut perm));
        assert_eq!(perm, vec![2, 1, 3, 0, 4]);
    }

    /// Decode `stream` as the list of `vertex` in a graph of `vertices`.
    fn decode_stream(stream: &BitWriter, vertex: u64, vertices: u64) -> Result<Vec<u64>, String> {
        let mut bytes = stream.bytes().to_vec();
        bytes.extend([0; 8]);
        let entry = |_: u64| (0, stream.len());
        let src = ListSource { vertices, bytes: &bytes, first_byte: 0, first_vertex: 0, entry: &entry };
        let mut out = Vec::new();
        Ceesor.decoder().decode(vertex, 0, stream.len(), &src, &mut out).map(|()| out)
    }

    /// Damage past the first batch of entries is found as in it: a
    /// neighbour past the last vertex, one below 0, entries out of order.
    #[test]
    fn damaged_entries_are_impossible_codes() {
        let mut w = BitWriter::new();
        let list: Vec<u64> = (1..=100).collect();
        Ceesor.encode(0, &list, &mut w);
        assert_eq!(decode_stream(&w, 0, 101).unwrap(), list);
        let err = decode_stream(&w, 0, 80).unwrap_err();
        assert!(err.contains("neighbour 0 + 100 is past the last vertex"), "{err}");
        // past 2^64: neighbours wrap round to below the vertex (the first
        // entry at 7 bits, offset 64, is checked as it is read)
        let near_the_top = u64::MAX - 50;
        let err = decode_stream(&w, near_the_top, u64::MAX).unwrap_err();
        assert!(err.contains(&format!("neighbour {near_the_top} + 64 is past the last vertex")), "{err}");
        let list: Vec<u64> = (1..=60).collect();
        let mut w = BitWriter::new();
        Ceesor.encode(0, &list, &mut w);
        let err = decode_stream(&w, near_the_top, u64::MAX).unwrap_err();
        assert!(err.contains(&format!("neighbour {near_the_top} + 60 is past the last vertex")), "{err}");
        // the same offsets, all below the vertex: 100 of them from 99
        let mut w = BitWriter::new();
        let below: Vec<u64> = (100..200).collect();
        Ceesor.encode(200, &below, &mut w);
        assert_eq!(decode_stream(&w, 200, 201).unwrap(), below);
        let err = decode_stream(&w, 90, 201).unwrap_err();
        assert!(err.contains("neighbour 90 - 100 is below 0"), "{err}");
        // offsets 6+ then 5+ at the same width: "00 110 1 | 101 1"
        let mut w = BitWriter::new();
        for bit in [0, 0, 1, 1, 0, 1, 1, 0, 1, 1] {
            w.write_bit(bit == 1);
        }
        let err = decode_stream(&w, 10, 100).unwrap_err();
        assert!(err.contains("offset 5 out of order"), "{err}");
        // 64-bit offsets, 2^63 + 7 then 2^63 + 3: out of order too
        let mut w = BitWriter::new();
        for _ in 0..63 {
            w.write_bit(false);
        }
        for offset in [(1u64 << 63) + 7, (1 << 63) + 3] {
            w.write(offset, 64);
            w.write_bit(true);
        }
        let err = decode_stream(&w, 0, u64::MAX).unwrap_err();
        assert!(err.contains(&format!("offset {} out of order", (1u64 << 63) + 3)), "{err}");
    }

    #[test]
    fn round_trips_offsets_past_2_56() {
        let lists = [vec![1, 1 << 56, (1 << 60) + 3, (1 << 63) + 5, (1 << 63) + (1 << 62)], vec![0, 2, 1 << 57]];
        round_trip(Encoding::Ceesor, &lists);
    }

    /// Vertices in the middle of the ids, with lists longer than a batch:
    /// both signs, widening entries and batches that fill mid-list.
    fn long_lists() -> impl Strategy<Value = Vec<Vec<u64>>> {
        prop::collection::vec(prop::collection::btree_set(0u64..1000, 0..400), 0..4).prop_map(|ls| {
            let mut lists = vec![Vec::new(); 500];
            lists.extend(ls.into_iter().map(|s| s.into_iter().collect()));
            lists
        })
    }

    fn lists(max_id: u64) -> impl Strategy<Value = Vec<Vec<u64>>> {
        prop::collection::vec(prop::collection::btree_set(0u64..max_id, 0..60), 0..40)
            .prop_map(|ls| ls.into_iter().map(|s| s.into_iter().collect()).collect())
    }

    proptest! {
        #[test]
        fn round_trips_small_ids(lists in lists(64)) {
            round_trip(Encoding::Ceesor, &lists);
        }
        #[test]
        fn round_trips_long_lists(lists in long_lists()) {
            round_trip(Encoding::Ceesor, &lists);
        }
        #[test]
        fn round_trips_ids_near_2_32(lists in lists(1 << 32)) {
            round_trip(Encoding::Ceesor, &lists.iter().map(|l| l.iter().map(|&x| x + (1 << 32) - 100).collect()).collect::<Vec<_>>());
        }
        #[test]
        fn round_trips_ids_near_2_40(lists in lists(u64::MAX >> 1)) {
            round_trip(Encoding::Ceesor, &lists.iter().map(|l| l.iter().map(|&x| (x >> 22) + (1 << 40)).collect::<std::collections::BTreeSet<u64>>().into_iter().collect()).collect::<Vec<_>>());
        }
    }
}
