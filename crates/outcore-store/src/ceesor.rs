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
        Box::new(CeesorDecoder { negative: Vec::new() })
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

struct CeesorDecoder {
    negative: Vec<u64>,
}

impl ListDecoder for CeesorDecoder {
    fn decode(&mut self, vertex: u64, lo: u64, hi: u64, src: &ListSource, out: &mut Vec<u64>) -> Result<(), String> {
        out.clear();
        self.negative.clear();
        let (start, end) = ((lo & !SELF_LOOP) - src.first_byte * 8, (hi & !SELF_LOOP) - src.first_byte * 8);
        let mut r = BitReader::new(src.bytes, start, end)?;
        let mut size = 1u64;
        let mut last = (0u64, true);
        while !r.only_padding_left() {
            // Algorithm 2: each leading 0 widens the entries by one bit; the
            // entry's own top bit is the 1 that ends the run.
            let (wider, offset, positive) = r.read_widening_entry(size)?;
            size = wider;
            if (offset, positive) <= last {
                return Err(format!("impossible code: offset {offset} out of order"));
            }
            last = (offset, positive);
            if positive {
                match vertex.checked_add(offset).filter(|&n| n < src.vertices) {
                    Some(n) => out.push(n),
                    None => return Err(format!("impossible code: neighbour {vertex} + {offset} is past the last vertex")),
                }
            } else {
                match vertex.checked_sub(offset) {
                    Some(n) => self.negative.push(n),
                    None => return Err(format!("impossible code: neighbour {vertex} - {offset} is below 0")),
                }
            }
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
        fn round_trips_ids_near_2_32(lists in lists(1 << 32)) {
            round_trip(Encoding::Ceesor, &lists.iter().map(|l| l.iter().map(|&x| x + (1 << 32) - 100).collect()).collect::<Vec<_>>());
        }
        #[test]
        fn round_trips_ids_near_2_40(lists in lists(u64::MAX >> 1)) {
            round_trip(Encoding::Ceesor, &lists.iter().map(|l| l.iter().map(|&x| (x >> 22) + (1 << 40)).collect::<std::collections::BTreeSet<u64>>().into_iter().collect()).collect::<Vec<_>>());
        }
    }
}
