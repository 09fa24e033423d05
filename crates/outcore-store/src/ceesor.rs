//! CEESOR (Compressed Enumerated Encoded Sparse Offset Row), TR-823
//! section 2.4: each edge (u, v) is the offset |v - u| in the minimum
//! number of bits, big-endian, entries in ascending |offset| with one 0 bit
//! before every entry that needs one more bit (Algorithms 1 and 2), and the
//! sign bit (1 when v > u) right after its entry. The 64-bit bit-level
//! vertex index keeps a self loop in its top bit; the stream has no degree,
//! so the layout stores degrees beside it. Weights are stored in the same
//! |offset| order (ties: the smaller neighbour first).

use crate::bits::{falling_step_signs, rising_step_signs, word_at, BitReader, BitWriter};
use crate::codec::{Codec, Encoding, IndexUnit, ListDecoder, ListEncoder, ListSource};
use multiversion::multiversion;

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
        // the neighbours below the vertex
        1
    }
    fn decoder(&self) -> Box<dyn ListDecoder> {
        Box::new(CeesorDecoder::new())
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

/// A list of at most this many bits is decoded entry by entry, not by
/// runs of one width. Short lists widen every entry or two, and each run's
/// end is a branch the CPU cannot foresee; a step carries a chain from
/// each entry's load to the next one's position, which a long run's
/// entries do not. At Kronecker scale 22 (bench-decode, one core) the
/// lists up to 768 bits took 0.19 s against 0.22 by runs alone; the whole
/// layout, split here, took 0.95-1.03 of the time by runs (the best of
/// the splits tried, within the noise), and all lists by steps as long as
/// by runs.
const STEPPED_BITS: u64 = 1536;

/// Entries decoded before they join their side of the list.
const SIGN_BATCH: usize = 64;

/// A list's latest entries, as neighbours on either side of its vertex.
/// The signs fall at random: each entry is written to both sides and
/// counted in one, without a branch on its sign (a mispredicted branch
/// every other entry otherwise).
struct SignBatch {
    ups: [u64; SIGN_BATCH],
    downs: [u64; SIGN_BATCH],
}

/// The entry of `offset` and sign `positive` on its side of `vertex`:
/// written to both sides, counted in one. The counts stay below
/// SIGN_BATCH together (a batch is emptied when full), so the masks change
/// no index; they spare a bounds check for each.
#[inline(always)]
fn place(
    ups: &mut [u64; SIGN_BATCH],
    downs: &mut [u64; SIGN_BATCH],
    counts: (&mut usize, &mut usize),
    vertex: u64,
    offset: u64,
    positive: bool,
) {
    let (n_up, n_down) = counts;
    ups[*n_up % SIGN_BATCH] = vertex.wrapping_add(offset);
    downs[*n_down % SIGN_BATCH] = vertex.wrapping_sub(offset);
    *n_up += positive as usize;
    *n_down += !positive as usize;
}

#[cold]
fn outside(vertex: u64, offset: u64, positive: bool) -> String {
    if positive {
        format!("impossible code: neighbour {vertex} + {offset} is past the last vertex")
    } else {
        format!("impossible code: neighbour {vertex} - {offset} is below 0")
    }
}

/// Whether the offsets of one side's neighbours (`ups` ascending ids,
/// or `downs` descending ones) strictly rise; else the first that does
/// not. The differences of the ids are those of the offsets, modulo 2^64.
/// An entry below the one before it has its width (a wider one is
/// further), so it falls short by less than 2^63 and its difference less
/// one has its sign bit set: one pass ORs those and tests the sign bit
/// (vectorised). A rise of 2^63 or more sets it too, so a set bit is
/// looked at again, offset by offset.
#[inline]
fn first_not_rising(vertex: u64, ids: &[u64], up: bool) -> Option<u64> {
    let signs = if up { rising_step_signs(ids) } else { falling_step_signs(ids) };
    if signs >> 63 == 0 {
        return None;
    }
    let offset = |id: u64| if up { id.wrapping_sub(vertex) } else { vertex.wrapping_sub(id) };
    ids.windows(2).find(|w| offset(w[1]) <= offset(w[0])).map(|w| offset(w[1]))
}

/// A list's two sides (`ups` ascending, `downs` descending, each nearest
/// first) rise in offset, and the farthest neighbour of each lies on its
/// side of `vertex` inside the graph: a wrapped one lands on the other.
fn check_sides(vertex: u64, vertices: u64, ups: &[u64], downs: &[u64]) -> Result<(), String> {
    let not_rising = first_not_rising(vertex, ups, true).or_else(|| first_not_rising(vertex, downs, false));
    if let Some(offset) = not_rising {
        return Err(format!("impossible code: offset {offset} out of order"));
    }
    if let Some(&up) = ups.last().filter(|&&up| !up_inside(vertex, vertices, up)) {
        return Err(outside(vertex, up.wrapping_sub(vertex), true));
    }
    if let Some(&down) = downs.last().filter(|&&down| !down_inside(vertex, down)) {
        return Err(outside(vertex, vertex.wrapping_sub(down), false));
    }
    Ok(())
}

/// Whether a neighbour on the upper side lies above `vertex` inside the
/// graph (one that wrapped past 2^64 lands below it).
#[inline]
fn up_inside(vertex: u64, vertices: u64, up: u64) -> bool {
    up > vertex && up < vertices
}

/// Whether a neighbour on the lower side lies at most at `vertex` (one
/// that wrapped below 0 lands above it).
#[inline]
fn down_inside(vertex: u64, down: u64) -> bool {
    down <= vertex
}

/// Whether the `left` bits of a list at the top of `word` are padding: fewer
/// than 8 zeros (every entry holds a 1).
#[inline(always)]
fn only_padding(word: u64, left: u64) -> bool {
    left < 8 && (left == 0 || word >> (64 - left) == 0)
}

/// The bits of the list between index entries `lo..hi`, from the start
/// of its block's bytes.
#[inline]
fn list_bits(lo: u64, hi: u64, src: &ListSource) -> Result<(u64, u64), String> {
    let base = src.first_byte * 8;
    match ((lo & !SELF_LOOP).checked_sub(base), (hi & !SELF_LOOP).checked_sub(base)) {
        (Some(start), Some(end)) => Ok((start, end)),
        _ => Err("list starts before its block".into()),
    }
}

/// One more entry: its step from the last, less one, ORed into `steps`.
#[inline(always)]
fn follow((steps, last): (&mut u64, &mut u64), entry: u64) {
    *steps |= entry.wrapping_sub(*last).wrapping_sub(1);
    *last = entry;
}

/// Whether a list whose entries' `steps` are ORed as they were read is
/// in order, so that [`check_sides`] would pass it: its entries (each an
/// offset and then its sign, as an integer of its width) strictly rise,
/// and the farthest neighbour of each side lies inside.
///
/// An entry is its offset times two plus its sign, so entries that rise
/// are offsets that rise, the lower of a pair first: each side's
/// offsets rise. An entry that widens the run is above every narrower one
/// (its top bit is a 1), so the steps need no reset there. A step that
/// falls (or rises by 2^63 or more) sets the sign bit of `steps`: then the
/// sides are checked apart, and name the fault, or find none (two sides
/// in order, interleaved out of order, decode to the same list).
#[inline]
fn in_order(steps: u64, vertex: u64, vertices: u64, farthest_up: Option<&u64>, farthest_down: Option<&u64>) -> bool {
    steps >> 63 == 0
        && farthest_up.is_none_or(|&up| up_inside(vertex, vertices, up))
        && farthest_down.is_none_or(|&down| down_inside(vertex, down))
}

struct CeesorDecoder {
    /// A list longer than a batch: its neighbours below the vertex,
    /// nearest first (those above go to the caller's vector).
    negative: Vec<u64>,
    /// Kept from list to list: its arrays are not cleared for each.
    batch: Box<SignBatch>,
}

impl CeesorDecoder {
    fn new() -> Self {
        CeesorDecoder { negative: Vec::new(), batch: Box::new(SignBatch { ups: [0; SIGN_BATCH], downs: [0; SIGN_BATCH] }) }
    }
}

impl ListDecoder for CeesorDecoder {
    /// The vertex itself when the list holds it, then the entries nearest
    /// the vertex (the stream's first), up to `limit` in all: each checked
    /// to lie inside the graph and to come after the one before.
    fn decode_some(&mut self, vertex: u64, lo: u64, hi: u64, src: &ListSource, limit: usize, out: &mut Vec<u64>) -> Result<(), String> {
        if limit == usize::MAX {
            return self.decode(vertex, lo, hi, src, out);
        }
        out.clear();
        let (start, end) = list_bits(lo, hi, src)?;
        let mut bits = BitReader::new(src.bytes, start, end)?;
        if lo & SELF_LOOP != 0 && limit > 0 {
            out.push(vertex);
        }
        // the entries as integers (offset, then sign) rise: see in_order
        let (mut size, mut last) = (1u64, 0u128);
        while out.len() < limit && !bits.only_padding_left() {
            let (wider, offset, positive) = bits.read_widening_entry(size)?;
            size = wider;
            let entry = (offset as u128) << 1 | positive as u128;
            if entry <= last {
                return Err(format!("impossible code: offset {offset} out of order"));
            }
            last = entry;
            let neighbour = if positive { vertex.wrapping_add(offset) } else { vertex.wrapping_sub(offset) };
            let inside = if positive { up_inside(vertex, src.vertices, neighbour) } else { down_inside(vertex, neighbour) };
            if !inside {
                return Err(outside(vertex, offset, positive));
            }
            out.push(neighbour);
        }
        Ok(())
    }

    fn release_above(&mut self, entries: usize) {
        if self.negative.capacity() > entries {
            self.negative = Vec::new();
        }
    }

    /// A list of up to [`STEPPED_BITS`] bits is read entry by entry: each
    /// entry's leading zeros (Algorithm 2: each widens the entries by one
    /// bit; the entry's own top bit is the 1 that ends them) and then the
    /// entry, without a branch on whether it widens; two entries from one
    /// load when they fit in it.
    ///
    /// A longer list (or the rest of a short one that the step cannot
    /// take) is read in runs of entries as wide as the last, then the
    /// entry that widens them. A run's entries are loaded from their bit
    /// position, which advances by the width: the only value the run
    /// carries is that position, so no entry's load waits for the one
    /// before it. An entry of 28 bits or fewer brings the next one with it
    /// (one load holds 57 bits), which halves the loads and the chain of
    /// positions. The run ends at an entry whose top bit is a 0, at the end
    /// of the list, or when the batch is full.
    ///
    /// The entries are checked to rise as they are read ([`in_order`]);
    /// where they do not, each side is checked apart and names the fault.
    /// The neighbours are not checked against the graph one by one: they
    /// ascend by offset on each side, so the last of each side is.
    fn decode(&mut self, vertex: u64, lo: u64, hi: u64, src: &ListSource, out: &mut Vec<u64>) -> Result<(), String> {
        let start = lo & !SELF_LOOP;
        if start == hi & !SELF_LOOP && src.holds_bit(start) {
            // no entries (two in five of a Kronecker graph's lists), but
            // perhaps the vertex itself
            out.clear();
            if lo & SELF_LOOP != 0 {
                out.push(vertex);
            }
            return Ok(());
        }
        decode_list(&mut self.negative, &mut self.batch, vertex, lo, hi, src, out)
    }
}

/// [`CeesorDecoder::decode`] (see there), with the decoder's vector of
/// neighbours below the vertex and its batch. Compiled twice, chosen at
/// run time: for x86 with BMI2 and LZCNT (shifts by a run's width in any
/// register, in one instruction) and for any CPU.
#[multiversion(targets("x86_64+bmi1+bmi2+lzcnt+popcnt"))]
fn decode_list(
    negative: &mut Vec<u64>,
    batch: &mut SignBatch,
    vertex: u64,
    lo: u64,
    hi: u64,
    src: &ListSource,
    out: &mut Vec<u64>,
) -> Result<(), String> {
    out.clear();
    negative.clear();
    let (start, end) = list_bits(lo, hi, src)?;
    let bytes = src.bytes;
    if end > bytes.len() as u64 * 8 || start > end {
        return Err("list extends past its block".into());
    }
    if start == end {
        // no neighbour but perhaps the vertex itself
        if lo & SELF_LOOP != 0 {
            out.push(vertex);
        }
        return Ok(());
    }
    let SignBatch { ups, downs } = batch;
    // an entry's bits: its offset, then its sign (1: above the vertex)
    let (mut pos, mut width) = (start, 2u32);
    let (mut n_up, mut n_down) = (0usize, 0usize);
    // the entries' steps, ORed, and the last entry (see in_order)
    let (mut steps, mut last) = (0u64, 0u64);
    let mut finished = false;
    if end - start <= STEPPED_BITS {
        loop {
            let left = end - pos;
            let word = word_at(bytes, pos);
            if only_padding(word, left) {
                finished = true;
                break;
            }
            let zeros = word.leading_zeros();
            let wide = width + zeros;
            let used = (zeros + wide) as u64;
            if used > 56 || used > left || n_up + n_down + 2 > SIGN_BATCH {
                break;
            }
            let entry = word << zeros >> (64 - wide);
            follow((&mut steps, &mut last), entry);
            place(ups, downs, (&mut n_up, &mut n_down), vertex, entry >> 1, entry & 1 == 1);
            // the next entry from the same word, when it holds it
            let rest = word << used;
            let zeros = rest.leading_zeros();
            let next_wide = wide + zeros;
            let both = used + (zeros + next_wide) as u64;
            if both <= 56 && both <= left {
                let entry = rest << zeros >> (64 - next_wide);
                follow((&mut steps, &mut last), entry);
                place(ups, downs, (&mut n_up, &mut n_down), vertex, entry >> 1, entry & 1 == 1);
                (pos, width) = (pos + both, next_wide);
            } else {
                (pos, width) = (pos + used, wide);
            }
        }
    }
    while !finished {
        if width <= 56 {
            let room = (SIGN_BATCH - (n_up + n_down)) as u64;
            let limit = end.min(pos + room * width as u64);
            while pos + width as u64 <= limit {
                let word = word_at(bytes, pos);
                if word >> 63 == 0 {
                    break;
                }
                let entry = word >> (64 - width);
                follow((&mut steps, &mut last), entry);
                place(ups, downs, (&mut n_up, &mut n_down), vertex, entry >> 1, entry & 1 == 1);
                pos += width as u64;
                // the next entry from the same word, when it holds it
                if width <= 28 && pos + width as u64 <= limit {
                    let next = word << width;
                    if next >> 63 == 0 {
                        break;
                    }
                    let entry = next >> (64 - width);
                    follow((&mut steps, &mut last), entry);
                    place(ups, downs, (&mut n_up, &mut n_down), vertex, entry >> 1, entry & 1 == 1);
                    pos += width as u64;
                }
            }
        }
        if n_up + n_down == SIGN_BATCH {
            out.extend_from_slice(&ups[..n_up]);
            negative.extend_from_slice(&downs[..n_down]);
            (n_up, n_down) = (0, 0);
            continue;
        }
        let left = end - pos;
        let word = word_at(bytes, pos);
        if only_padding(word, left) {
            finished = true;
            continue;
        }
        // the entry that widens the run (a run stops short of the end
        // only at a 0), from the word at hand when it fits there with
        // its zeros
        let zeros = word.leading_zeros();
        let wide = width + zeros;
        let (offset, positive) = if zeros + wide <= 56 && pos + (zeros + wide) as u64 <= end {
            let entry = word << zeros >> (64 - wide);
            follow((&mut steps, &mut last), entry);
            (pos, width) = (pos + (zeros + wide) as u64, wide);
            (entry >> 1, entry & 1 == 1)
        } else {
            let mut r = BitReader::new(bytes, pos, end)?;
            let (size, offset, positive) = r.read_widening_entry(width as u64 - 1)?;
            (pos, width) = (r.position(), size as u32 + 1);
            // an entry of 57 bits or more is not followed by the steps:
            // the sides are checked apart
            steps = u64::MAX;
            (offset, positive)
        };
        place(ups, downs, (&mut n_up, &mut n_down), vertex, offset, positive);
    }
    let self_loop = lo & SELF_LOOP != 0;
    if out.is_empty() && negative.is_empty() {
        // the list fit one batch: checked there, and each side copied
        // once, the lower turned to ascend
        let (ups, downs) = (&ups[..n_up], &downs[..n_down]);
        out.reserve(downs.len() + self_loop as usize + ups.len());
        out.extend(downs.iter().rev());
        if self_loop {
            out.push(vertex);
        }
        out.extend_from_slice(ups);
        if !in_order(steps, vertex, src.vertices, ups.last(), downs.last()) {
            if let Err(e) = check_sides(vertex, src.vertices, ups, downs) {
                out.clear();
                return Err(e);
            }
        }
        return Ok(());
    }
    out.extend_from_slice(&ups[..n_up]);
    negative.extend_from_slice(&downs[..n_down]);
    if !in_order(steps, vertex, src.vertices, out.last(), negative.last()) {
        check_sides(vertex, src.vertices, out, negative)?;
    }
    let positives = out.len();
    out.resize(positives + negative.len() + self_loop as usize, 0);
    out.copy_within(0..positives, negative.len() + self_loop as usize);
    for (slot, &n) in out.iter_mut().zip(negative.iter().rev()) {
        *slot = n;
    }
    if self_loop {
        out[negative.len()] = vertex;
    }
    Ok(())
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
        let _bound = outcore_io::bound::watch("encodes_as_the_paper");
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
        let _bound = outcore_io::bound::watch("damaged_entries_are_impossible_codes");
        let mut w = BitWriter::new();
        let list: Vec<u64> = (1..=100).collect();
        Ceesor.encode(0, &list, &mut w);
        assert_eq!(decode_stream(&w, 0, 101).unwrap(), list);
        let err = decode_stream(&w, 0, 80).unwrap_err();
        assert!(err.contains("neighbour 0 + 100 is past the last vertex"), "{err}");
        // past 2^64: neighbours wrap round to below the vertex (the
        // farthest on that side is named)
        let near_the_top = u64::MAX - 50;
        let err = decode_stream(&w, near_the_top, u64::MAX).unwrap_err();
        assert!(err.contains(&format!("neighbour {near_the_top} + 100 is past the last vertex")), "{err}");
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

    /// `decoder_lists` states what the decoder keeps (the traverse engine
    /// and the scans charge it to the budget): after a list of `longest`
    /// neighbours all below its vertex, its side of them holds no more than
    /// `decoder_lists() * longest` entries, and some; `release_above` lets
    /// go of it exactly when it has room for more than it is given. (A
    /// vector grows by doubling, so `longest` is a power of two here: the
    /// statement counts lists, not that slack.)
    #[test]
    fn the_decoder_keeps_no_more_lists_than_it_states() {
        let _bound = outcore_io::bound::watch("the_decoder_keeps_no_more_lists_than_it_states");
        let longest = 1_024u64;
        let vertex = 5_000;
        let lists = [(vertex + 1..=vertex + longest).collect::<Vec<u64>>(), (vertex - longest..vertex).collect()];
        let mut decoder = CeesorDecoder::new();
        for list in &lists {
            let mut w = BitWriter::new();
            Ceesor.encode(vertex, list, &mut w);
            let end = w.len();
            w.align();
            let entry = |_: u64| (0, end);
            let src = ListSource { vertices: 10_000, bytes: w.bytes(), first_byte: 0, first_vertex: 0, entry: &entry };
            let mut out = Vec::new();
            decoder.decode(vertex, 0, end, &src, &mut out).unwrap();
            assert_eq!(&out, list);
        }
        let kept = decoder.negative.capacity() as u64;
        assert!(kept <= Ceesor.decoder_lists() * longest, "the decoder keeps {kept} entries; it states {} lists", Ceesor.decoder_lists());
        assert!(kept >= longest, "the decoder keeps only {kept} entries");
        decoder.release_above(kept as usize);
        assert_eq!(decoder.negative.capacity() as u64, kept);
        decoder.release_above(kept as usize - 1);
        assert_eq!(decoder.negative.capacity(), 0);
    }

    /// Entries that fall are found wherever the list is read: by steps
    /// (a short list), by runs (past `STEPPED_BITS`), early in the list and
    /// past its first batch; sides interleaved out of order but each in
    /// order decode to the same list, as the two sides' checks let them.
    #[test]
    fn falling_entries_are_found_in_steps_and_in_runs() {
        let _bound = outcore_io::bound::watch("falling_entries_are_found_in_steps_and_in_runs");
        // offsets 1,024 and on (11 bits), all above vertex 0: ten zeros
        // widen the entries from 1 offset bit to 11
        let stream = |offsets: &[u64]| {
            let mut w = BitWriter::new();
            w.write(0, 10);
            for &offset in offsets {
                w.write(offset, 11);
                w.write_bit(true);
            }
            w
        };
        for len in [20u64, 300] {
            let offsets: Vec<u64> = (1_024..1_024 + len).collect();
            let w = stream(&offsets);
            assert_eq!(w.len() > STEPPED_BITS, len == 300);
            assert_eq!(decode_stream(&w, 0, 2_000).unwrap(), offsets);
            for at in [1, len as usize / 2, len as usize - 1] {
                let mut swapped = offsets.clone();
                swapped.swap(at - 1, at);
                let err = decode_stream(&stream(&swapped), 0, 2_000).unwrap_err();
                assert!(err.contains(&format!("offset {} out of order", swapped[at])), "{len} entries, at {at}: {err}");
            }
        }
        // vertex 10: 6 above it (16) written before 5 below it (5), at
        // the same width
        let mut w = BitWriter::new();
        w.write(0, 2);
        for (offset, above) in [(6, true), (5, false)] {
            w.write(offset, 3);
            w.write_bit(above);
        }
        assert_eq!(decode_stream(&w, 10, 20).unwrap(), vec![5, 16]);
    }

    /// Entries out of order twice on one side (offsets 6, 5, 7, 6 at the
    /// same width, all above or all below the vertex) are refused: two
    /// faults do not cancel each other in the check over a side.
    #[test]
    fn two_faults_on_one_side_are_refused() {
        let _bound = outcore_io::bound::watch("two_faults_on_one_side_are_refused");
        for sign in [true, false] {
            let mut w = BitWriter::new();
            // offset 6 takes 3 bits: two zeros widen the entries from 1 bit
            w.write(0, 2);
            for offset in [6, 5, 7, 6] {
                w.write(offset, 3);
                w.write_bit(sign);
            }
            let err = decode_stream(&w, 50, 100).unwrap_err();
            assert!(err.contains("offset 5 out of order"), "sign {sign}: {err}");
        }
    }

    /// A list whose index entries are backwards, that ends past its block,
    /// or that is cut inside its first entry is refused, never read.
    #[test]
    fn lists_outside_their_bits_are_refused() {
        let _bound = outcore_io::bound::watch("lists_outside_their_bits_are_refused");
        let mut w = BitWriter::new();
        Ceesor.encode(5, &[6], &mut w);
        let bytes = w.bytes().to_vec();
        let decode = |lo: u64, hi: u64| {
            let entry = |_: u64| (lo, hi);
            let src = ListSource { vertices: 10, bytes: &bytes, first_byte: 0, first_vertex: 0, entry: &entry };
            let mut out = Vec::new();
            Ceesor.decoder().decode(5, lo, hi, &src, &mut out).map(|()| out)
        };
        assert_eq!(decode(0, w.len()), Ok(vec![6]));
        assert_eq!(decode(2, 1), Err("list extends past its block".to_string()));
        assert_eq!(decode(0, bytes.len() as u64 * 8 + 1), Err("list extends past its block".to_string()));
        // offset 1 above: the bits "1 1"; only the first is the list's
        let err = decode(0, 1).unwrap_err();
        assert!(err.contains("past the end"), "{err}");
        // eight zero bits after the entry are no padding (padding is
        // shorter than a byte) but a widening with no entry after it
        for zeros in [7, 8] {
            let mut padded = w.clone();
            padded.write(0, zeros);
            let read = decode_stream(&padded, 5, 10);
            if zeros < 8 {
                assert_eq!(read, Ok(vec![6]));
            } else {
                assert!(read.unwrap_err().contains("past the end"));
            }
        }
    }

    #[test]
    fn round_trips_offsets_past_2_56() {
        let _bound = outcore_io::bound::watch("round_trips_offsets_past_2_56");
        // vertex 2's offsets above it rise by more than 2^63 at once
        let lists = [vec![1, 1 << 56, (1 << 60) + 3, (1 << 63) + 5, (1 << 63) + (1 << 62)], vec![0, 2, 1 << 57], vec![3, (1 << 63) + 9]];
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

    /// `decode_some` gives the vertex (a self loop) and then the nearest
    /// neighbours by offset, the smaller first on ties: `limit` of the
    /// list, or all of it when it has no more; damage among them is an
    /// error as in a whole decoding.
    fn some_of(vertex: u64, list: &[u64], limit: usize, vertices: u64) -> Result<Vec<u64>, String> {
        let mut w = BitWriter::new();
        let flags = Ceesor.encode(vertex, list, &mut w);
        let end = w.len();
        w.align();
        let mut bytes = w.bytes().to_vec();
        bytes.extend([0; 8]);
        let entry = |_: u64| (flags, end | flags);
        let src = ListSource { vertices, bytes: &bytes, first_byte: 0, first_vertex: 0, entry: &entry };
        let mut out = Vec::new();
        Ceesor.decoder().decode_some(vertex, flags, end | flags, &src, limit, &mut out).map(|()| out)
    }

    #[test]
    fn some_neighbours_are_the_nearest() {
        let _bound = outcore_io::bound::watch("some_neighbours_are_the_nearest");
        assert_eq!(some_of(10, &[1, 8, 10, 11, 40], 3, 50).unwrap(), vec![10, 11, 8]);
        assert_eq!(some_of(10, &[1, 8, 12, 40], 2, 50).unwrap(), vec![8, 12]);
        assert_eq!(some_of(10, &[1, 8, 12, 40], 9, 50).unwrap(), vec![8, 12, 1, 40]);
        assert_eq!(some_of(10, &[], 3, 50).unwrap(), Vec::<u64>::new());
        assert_eq!(some_of(10, &[10], 0, 50).unwrap(), Vec::<u64>::new());
        // the same offsets, written falling: refused
        let mut w = BitWriter::new();
        w.write(0, 2);
        for offset in [6, 5] {
            w.write(offset, 3);
            w.write_bit(true);
        }
        let end = w.len();
        let mut bytes = w.bytes().to_vec();
        bytes.extend([0; 8]);
        let entry = |_: u64| (0, end);
        let src = ListSource { vertices: 100, bytes: &bytes, first_byte: 0, first_vertex: 0, entry: &entry };
        let err = Ceesor.decoder().decode_some(50, 0, end, &src, 3, &mut Vec::new()).unwrap_err();
        assert!(err.contains("offset 5 out of order"), "{err}");
        // a neighbour past the graph among those read is refused; one
        // past those read is not looked at
        let err = some_of(5, &[3, 900], 2, 100).unwrap_err();
        assert!(err.contains("neighbour 5 + 895 is past the last vertex"), "{err}");
        assert_eq!(some_of(5, &[3, 900], 1, 100).unwrap(), vec![3]);
    }

    proptest! {
        #[test]
        fn some_neighbours_are_part_of_the_list(list in prop::collection::btree_set(0u64..300, 0..80), vertex in 0u64..300, limit in 0usize..6) {
            let _bound = outcore_io::bound::watch("some_neighbours_are_part_of_the_list");
            let list: Vec<u64> = list.into_iter().collect();
            let got = some_of(vertex, &list, limit, 300).unwrap();
            prop_assert_eq!(got.len(), limit.min(list.len()));
            let mut nearest: Vec<u64> = list.clone();
            // the self loop first, then by offset, the smaller id on ties
            nearest.sort_by_key(|&u| (u != vertex, u.abs_diff(vertex), u));
            nearest.truncate(limit);
            prop_assert_eq!(got, nearest);
        }
        #[test]
        fn round_trips_small_ids(lists in lists(64)) {
            let _bound = outcore_io::bound::watch("round_trips_small_ids");
            round_trip(Encoding::Ceesor, &lists);
        }
        #[test]
        fn round_trips_long_lists(lists in long_lists()) {
            let _bound = outcore_io::bound::watch("round_trips_long_lists");
            round_trip(Encoding::Ceesor, &lists);
        }
        #[test]
        fn round_trips_ids_near_2_32(lists in lists(1 << 32)) {
            let _bound = outcore_io::bound::watch("round_trips_ids_near_2_32");
            round_trip(Encoding::Ceesor, &lists.iter().map(|l| l.iter().map(|&x| x + (1 << 32) - 100).collect()).collect::<Vec<_>>());
        }
        #[test]
        fn round_trips_ids_near_2_40(lists in lists(u64::MAX >> 1)) {
            let _bound = outcore_io::bound::watch("round_trips_ids_near_2_40");
            round_trip(Encoding::Ceesor, &lists.iter().map(|l| l.iter().map(|&x| (x >> 22) + (1 << 40)).collect::<std::collections::BTreeSet<u64>>().into_iter().collect()).collect::<Vec<_>>());
        }
    }
}
