//! Adjacency encodings. A [`Codec`] turns one vertex's ascending
//! neighbour list into bits and back; the vertex index stores positions in
//! the codec's [`IndexUnit`] (edges for fixed-width ids, bits for the
//! compressed codes), so a new encoding slots in without touching callers.
//!
//! Compressed codecs are *blocked*: lists are grouped into blocks of about
//! [`BLOCK_TARGET_BYTES`], each byte-aligned and checksummed in the
//! layout's block table, and a list may refer only to earlier lists of its
//! own block. Decoders always return lists in ascending order.

use crate::bits::BitWriter;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Encoding {
    /// Little-endian u32 ids, 4 bytes per edge.
    Raw32,
    /// Little-endian u64 ids, 8 bytes per edge.
    Raw64,
    /// CEESOR (TR-823 section 2): signed offsets from the source in
    /// minimum-width big-endian entries, ascending |offset|.
    Ceesor,
    /// Gap codes with references, intervals and residuals in the manner of
    /// WebGraph's BV format, over checksummed blocks ([`crate::gapref`]).
    Gapref,
}

impl Encoding {
    pub const ALL: [Encoding; 4] = [Encoding::Raw32, Encoding::Raw64, Encoding::Ceesor, Encoding::Gapref];
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Raw32 => "raw32",
            Encoding::Raw64 => "raw64",
            Encoding::Ceesor => "ceesor",
            Encoding::Gapref => "gapref",
        }
    }
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|e| e.name() == name)
    }
    pub fn names() -> String {
        Self::ALL.map(|e| e.name()).join(", ")
    }
    /// The narrowest raw encoding that holds ids below `vertices`.
    pub fn raw_for(vertices: u64) -> Self {
        if vertices <= 1 << 32 {
            Encoding::Raw32
        } else {
            Encoding::Raw64
        }
    }
}

/// Compressed codecs close a block at the first list boundary past this.
pub const BLOCK_TARGET_BYTES: usize = 4096;

/// What the numbers in a vertex index count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IndexUnit {
    Edges,
    Bits,
}

/// Where a list's bits are: `bytes` starts at byte `first_byte` of the
/// adjacency file and covers the list (for blocked codecs, its whole
/// block, which starts at vertex `first_vertex`); `entry(u)` gives the
/// index entries (lo, hi) of any vertex of the block up to the one decoded.
pub struct ListSource<'a> {
    /// Vertices of the graph: decoded ids must be below it.
    pub vertices: u64,
    pub bytes: &'a [u8],
    pub first_byte: u64,
    pub first_vertex: u64,
    pub entry: &'a dyn Fn(u64) -> (u64, u64),
}

impl ListSource<'_> {
    /// Whether stream bit `bit` (counted from the file's start) lies in
    /// these bytes or at their end: where an empty list may sit.
    pub fn holds_bit(&self, bit: u64) -> bool {
        bit.checked_sub(self.first_byte * 8).is_some_and(|at| at <= self.bytes.len() as u64 * 8)
    }
}

/// A neighbour-list encoding.
pub trait Codec: Send + Sync {
    fn encoding(&self) -> Encoding;
    /// Which revision of the encoding's format this codec reads and
    /// writes (a layout records it: [`codec_at`]).
    fn revision(&self) -> u32 {
        1
    }
    fn index_unit(&self) -> IndexUnit;
    /// Largest vertex count this codec can address.
    fn max_vertices(&self) -> u64;
    /// Lists come in checksummed blocks (see the module comment).
    fn blocked(&self) -> bool {
        false
    }
    /// The position part of an index entry (CEESOR keeps a flag on top).
    fn position(&self, entry: u64) -> u64 {
        entry
    }
    /// Byte range of the adjacency file that holds entries `lo..hi`.
    fn byte_range(&self, lo: u64, hi: u64) -> (u64, u64);
    /// Number of neighbours between entries `lo..hi`, if the index tells
    /// (otherwise the layout stores a degrees file).
    fn degree(&self, lo: u64, hi: u64) -> Option<u64>;
    /// A stateful encoder (it may remember earlier lists of the block).
    fn encoder(&self) -> Box<dyn ListEncoder>;
    /// How many lists before its own a list's decoding may read (the lists
    /// it refers to, and theirs): 0 where each list stands alone.
    fn reference_reach(&self) -> u64 {
        0
    }
    /// Lists an encoder keeps besides the one it is given (its memory: at
    /// most this many of the longest list, 8 bytes an entry).
    fn encoder_lists(&self) -> u64 {
        0
    }
    /// A stateful decoder (it may remember recently decoded lists).
    fn decoder(&self) -> Box<dyn ListDecoder>;
    /// Lists a decoder may keep besides the one it returns (its memory:
    /// at most this many of the longest list, 8 bytes an entry).
    fn decoder_lists(&self) -> u64 {
        0
    }
    /// Lists a decoder holds while it decodes one, at most (its memory
    /// when, after each list, it lets go of what it kept beyond a bound:
    /// [`ListDecoder::release_above`]).
    fn decoder_lists_in_flight(&self) -> u64 {
        self.decoder_lists()
    }
    /// Whether weights are stored in another order than ascending neighbours.
    fn reorders_weights(&self) -> bool {
        false
    }
    /// If weights are stored in another order than ascending neighbours:
    /// fill `perm` with, for each stored position, the position in the
    /// ascending list, and return true.
    fn storage_order(&self, _vertex: u64, _neighbours: &[u64], _perm: &mut Vec<usize>) -> bool {
        false
    }
}

pub trait ListEncoder: Send {
    /// A block starts: later lists may not refer to earlier ones.
    fn start_block(&mut self) {}
    /// Append `vertex`'s ascending, duplicate-free `neighbours`; returns the
    /// flag bits to put in the vertex's index entry.
    fn encode(&mut self, vertex: u64, neighbours: &[u64], out: &mut BitWriter) -> u64;
}

pub trait ListDecoder: Send + Sync {
    /// Decode the list between index entries `lo..hi` into `out` (cleared
    /// first), ascending. Impossible codes are errors, never wrong lists.
    fn decode(&mut self, vertex: u64, lo: u64, hi: u64, src: &ListSource, out: &mut Vec<u64>) -> Result<(), String>;
    /// The list's first `limit` ids (all of them if it has fewer), as
    /// [`ListDecoder::decode`] would give them; a codec that can stops
    /// early, and checks only what it reads.
    fn decode_prefix(&mut self, vertex: u64, lo: u64, hi: u64, src: &ListSource, limit: usize, out: &mut Vec<u64>) -> Result<(), String> {
        self.decode(vertex, lo, hi, src, out)?;
        out.truncate(limit);
        Ok(())
    }
    /// At most `limit` of the list's ids, any of them, and all of them
    /// when the list has `limit` or fewer: for a caller that needs only a
    /// few neighbours (Afforest's samples), in whatever order the codec
    /// reads first (CEESOR: the nearest by offset); a codec that can stops
    /// early, and checks only what it reads. By default the first `limit`
    /// ([`ListDecoder::decode_prefix`]).
    fn decode_some(&mut self, vertex: u64, lo: u64, hi: u64, src: &ListSource, limit: usize, out: &mut Vec<u64>) -> Result<(), String> {
        self.decode_prefix(vertex, lo, hi, src, limit, out)
    }
    /// Let go of every list kept with room for more than `entries`
    /// entries: what the decoder then keeps between lists is at most
    /// [`Codec::decoder_lists`] lists of `entries`, and while it decodes
    /// a longer one, [`Codec::decoder_lists_in_flight`] lists of it more.
    fn release_above(&mut self, _entries: usize) {}
}

struct Raw<const BYTES: usize>;

impl<const BYTES: usize> Codec for Raw<BYTES> {
    fn encoding(&self) -> Encoding {
        if BYTES == 4 {
            Encoding::Raw32
        } else {
            Encoding::Raw64
        }
    }
    fn index_unit(&self) -> IndexUnit {
        IndexUnit::Edges
    }
    fn max_vertices(&self) -> u64 {
        if BYTES == 4 {
            1 << 32
        } else {
            u64::MAX
        }
    }
    fn byte_range(&self, lo: u64, hi: u64) -> (u64, u64) {
        (lo * BYTES as u64, hi * BYTES as u64)
    }
    fn degree(&self, lo: u64, hi: u64) -> Option<u64> {
        Some(hi - lo)
    }
    fn encoder(&self) -> Box<dyn ListEncoder> {
        Box::new(Raw::<BYTES>)
    }
    fn decoder(&self) -> Box<dyn ListDecoder> {
        Box::new(Raw::<BYTES>)
    }
}

impl<const BYTES: usize> ListEncoder for Raw<BYTES> {
    fn encode(&mut self, _vertex: u64, neighbours: &[u64], out: &mut BitWriter) -> u64 {
        for &n in neighbours {
            out.write_bytes(&n.to_le_bytes()[..BYTES]);
        }
        0
    }
}

impl<const BYTES: usize> ListDecoder for Raw<BYTES> {
    fn decode(&mut self, vertex: u64, lo: u64, hi: u64, src: &ListSource, out: &mut Vec<u64>) -> Result<(), String> {
        self.decode_prefix(vertex, lo, hi, src, usize::MAX, out)
    }
    fn decode_prefix(&mut self, _vertex: u64, lo: u64, hi: u64, src: &ListSource, limit: usize, out: &mut Vec<u64>) -> Result<(), String> {
        out.clear();
        let hi = hi.min(lo.saturating_add(limit as u64));
        let b0 = (lo * BYTES as u64).checked_sub(src.first_byte).ok_or("list starts before its bytes")? as usize;
        let n = (hi - lo) as usize;
        let bytes = src.bytes.get(b0..b0 + n * BYTES).ok_or_else(|| format!("{} bytes for {n} ids", src.bytes.len()))?;
        if BYTES == 4 {
            out.extend(bytes.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap()) as u64));
        } else {
            out.extend(bytes.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())));
        }
        Ok(())
    }
}

/// The codec implementing `encoding` as this outcore writes it (its
/// newest revision).
pub fn codec_for(encoding: Encoding) -> &'static dyn Codec {
    match encoding {
        Encoding::Raw32 => &Raw::<4>,
        Encoding::Raw64 => &Raw::<8>,
        Encoding::Ceesor => &crate::ceesor::Ceesor,
        Encoding::Gapref => &crate::gapref::GAPREF,
    }
}

/// The codec implementing revision `revision` of `encoding`, as a layout
/// records it; `None` for a revision this outcore does not know.
pub fn codec_at(encoding: Encoding, revision: u32) -> Option<&'static dyn Codec> {
    match (encoding, revision) {
        (Encoding::Gapref, 1) => Some(&crate::gapref::GAPREF_ZETA_ONLY),
        _ => Some(codec_for(encoding)).filter(|c| c.revision() == revision),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Encode `lists` as a layout would (blocks for blocked codecs) and
    /// decode every list both in order and in random order.
    pub fn round_trip(enc: Encoding, lists: &[Vec<u64>]) {
        round_trip_with(codec_for(enc), lists)
    }

    /// [`round_trip`] with one codec (of any revision).
    pub fn round_trip_with(codec: &dyn Codec, lists: &[Vec<u64>]) {
        let enc = codec.encoding();
        let mut w = BitWriter::new();
        let mut enc_state = codec.encoder();
        let (mut index, mut block_starts) = (Vec::new(), vec![(0u64, 0u64)]);
        let pos = |w: &BitWriter| {
            if codec.index_unit() == IndexUnit::Bits {
                w.len()
            } else {
                w.len() / (8 * if enc == Encoding::Raw32 { 4 } else { 8 })
            }
        };
        for (v, l) in lists.iter().enumerate() {
            if codec.blocked() && w.len() / 8 >= (block_starts.last().unwrap().1 + 64) && !l.is_empty() {
                w.align();
                block_starts.push((v as u64, w.len() / 8));
                enc_state.start_block();
            }
            let at = pos(&w);
            let flags = enc_state.encode(v as u64, l, &mut w);
            index.push(at | flags);
            // the flags come off again: the position is where the list starts
            assert_eq!(codec.position(at | flags), at, "{} vertex {v}: flags {flags:#x}", enc.name());
        }
        index.push(pos(&w));
        w.align();
        let total = w.bytes().len() as u64;
        let entry = |u: u64| (index[u as usize], index[u as usize + 1]);
        let mut order: Vec<usize> = (0..lists.len()).collect();
        // forward and backward, every list whole; then forward and
        // backward again with every other list a prefix of it, by the same
        // decoder (a prefix must not stand in for the list it kept)
        for pass in 0..4 {
            let mut dec = codec.decoder();
            if pass > 0 {
                order.reverse();
            }
            for &v in &order {
                let b = block_starts.partition_point(|&(f, _)| f <= v as u64) - 1;
                let (first_vertex, first_byte) = block_starts[b];
                let end = block_starts.get(b + 1).map_or(total, |x| x.1);
                let (lo, hi) = entry(v as u64);
                let (bytes, first_byte) = if codec.blocked() {
                    (&w.bytes()[first_byte as usize..end as usize], first_byte)
                } else {
                    let (b0, b1) = codec.byte_range(lo, hi);
                    (&w.bytes()[b0 as usize..b1 as usize], b0)
                };
                let src = ListSource { vertices: u64::MAX, bytes, first_byte, first_vertex, entry: &entry };
                let mut out = vec![7];
                let limit = if pass >= 2 && v % 2 == 1 { v / 2 % 6 } else { usize::MAX };
                let decoded = match pass {
                    0 => dec.decode(v as u64, lo, hi, &src, &mut out),
                    _ => dec.decode_prefix(v as u64, lo, hi, &src, limit, &mut out),
                };
                if let Err(e) = decoded {
                    panic!("{e}: v {v} lo {lo} hi {hi} block {b} {block_starts:?} total {total}");
                }
                assert_eq!(&out, &lists[v][..lists[v].len().min(limit)], "{} vertex {v}, first {limit}", enc.name());
                if let Some(d) = codec.degree(lo, hi) {
                    assert_eq!(d, lists[v].len() as u64);
                }
            }
        }
    }

    fn lists(max_id: u64) -> impl Strategy<Value = Vec<Vec<u64>>> {
        prop::collection::vec(prop::collection::btree_set(0u64..max_id, 0..50), 0..40)
            .prop_map(|ls| ls.into_iter().map(|s| s.into_iter().collect()).collect())
    }

    proptest! {
        #[test]
        fn raw32_round_trips(lists in lists(u32::MAX as u64)) {
            let _bound = outcore_io::bound::watch("raw32_round_trips");
            round_trip(Encoding::Raw32, &lists);
        }
        #[test]
        fn raw64_round_trips(lists in prop::collection::vec(prop::collection::btree_set(any::<u64>(), 0..50), 0..40)) {
            let _bound = outcore_io::bound::watch("raw64_round_trips");
            let lists: Vec<Vec<u64>> = lists.into_iter().map(|s| s.into_iter().collect()).collect();
            round_trip(Encoding::Raw64, &lists);
        }
    }

    proptest! {
        /// Garbage is an error or some ascending list, never a panic.
        #[test]
        fn decoders_survive_garbage(bytes in prop::collection::vec(any::<u8>(), 1..200), lo in 0u64..64, len in 0u64..1600, v in 0u64..1000) {
            let _bound = outcore_io::bound::watch("decoders_survive_garbage");
            let hi = (lo + len).min(bytes.len() as u64 * 8);
            let lo = lo.min(hi);
            let entry = |u: u64| (lo.saturating_sub(v - u), hi);
            for codec in [codec_for(Encoding::Ceesor), codec_for(Encoding::Gapref), &crate::gapref::GAPREF_ZETA_ONLY] {
                let src = ListSource { vertices: 1 << 20, bytes: &bytes, first_byte: 0, first_vertex: 0, entry: &entry };
                let mut out = Vec::new();
                if codec.decoder().decode(v, lo, hi, &src, &mut out).is_ok() {
                    prop_assert!(out.windows(2).all(|w| w[0] < w[1]) && out.iter().all(|&x| x < 1 << 20), "{} revision {}: {out:?}", codec.encoding().name(), codec.revision());
                }
            }
        }
    }

    #[test]
    fn names_round_trip() {
        let _bound = outcore_io::bound::watch("names_round_trip");
        for e in Encoding::ALL {
            assert_eq!(Encoding::from_name(e.name()), Some(e));
        }
        assert_eq!(Encoding::raw_for(1 << 32), Encoding::Raw32);
        assert_eq!(Encoding::raw_for((1 << 32) + 1), Encoding::Raw64);
    }
}
