//! Adjacency encodings. A [`Codec`] turns one vertex's sorted neighbour
//! list into bytes and back; the vertex index stores positions in the
//! codec's [`IndexUnit`] (edges for fixed-width ids, bits for bit-level
//! codes), so a new encoding slots in without touching callers.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Encoding {
    /// Little-endian u32 ids, 4 bytes per edge.
    Raw32,
    /// Little-endian u64 ids, 8 bytes per edge.
    Raw64,
}

impl Encoding {
    pub const ALL: [Encoding; 2] = [Encoding::Raw32, Encoding::Raw64];
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Raw32 => "raw32",
            Encoding::Raw64 => "raw64",
        }
    }
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|e| e.name() == name)
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

/// What the numbers in a vertex index count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IndexUnit {
    Edges,
    Bits,
}

/// A neighbour-list encoding.
pub trait Codec: Send + Sync {
    fn encoding(&self) -> Encoding;
    fn index_unit(&self) -> IndexUnit;
    /// Largest vertex count this codec can address.
    fn max_vertices(&self) -> u64;
    /// Append `neighbours` (ascending, distinct unless the store keeps
    /// duplicates) of `vertex` to `out`, whose encoded length so far is
    /// `position` index units. Returns the new position.
    fn encode(&self, vertex: u64, neighbours: &[u64], position: u64, out: &mut Vec<u8>) -> u64;
    /// Byte range of the adjacency file that holds index positions `lo..hi`.
    fn byte_range(&self, lo: u64, hi: u64) -> (u64, u64);
    /// Number of neighbours stored at positions `lo..hi`, if the index tells.
    fn degree(&self, lo: u64, hi: u64) -> Option<u64>;
    /// Decode the list at positions `lo..hi`; `bytes` starts at
    /// `byte_range(lo, hi).0`. Appends to `out`.
    fn decode(&self, vertex: u64, lo: u64, hi: u64, bytes: &[u8], out: &mut Vec<u64>) -> Result<(), String>;
}

struct Raw32;
struct Raw64;

impl Codec for Raw32 {
    fn encoding(&self) -> Encoding {
        Encoding::Raw32
    }
    fn index_unit(&self) -> IndexUnit {
        IndexUnit::Edges
    }
    fn max_vertices(&self) -> u64 {
        1 << 32
    }
    fn encode(&self, _vertex: u64, neighbours: &[u64], position: u64, out: &mut Vec<u8>) -> u64 {
        out.reserve(neighbours.len() * 4);
        for &n in neighbours {
            out.extend_from_slice(&(n as u32).to_le_bytes());
        }
        position + neighbours.len() as u64
    }
    fn byte_range(&self, lo: u64, hi: u64) -> (u64, u64) {
        (lo * 4, hi * 4)
    }
    fn degree(&self, lo: u64, hi: u64) -> Option<u64> {
        Some(hi - lo)
    }
    fn decode(&self, _vertex: u64, lo: u64, hi: u64, bytes: &[u8], out: &mut Vec<u64>) -> Result<(), String> {
        let n = (hi - lo) as usize;
        if bytes.len() < n * 4 {
            return Err(format!("{} bytes for {n} raw32 ids", bytes.len()));
        }
        out.extend(bytes[..n * 4].chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap()) as u64));
        Ok(())
    }
}

impl Codec for Raw64 {
    fn encoding(&self) -> Encoding {
        Encoding::Raw64
    }
    fn index_unit(&self) -> IndexUnit {
        IndexUnit::Edges
    }
    fn max_vertices(&self) -> u64 {
        u64::MAX
    }
    fn encode(&self, _vertex: u64, neighbours: &[u64], position: u64, out: &mut Vec<u8>) -> u64 {
        out.reserve(neighbours.len() * 8);
        for &n in neighbours {
            out.extend_from_slice(&n.to_le_bytes());
        }
        position + neighbours.len() as u64
    }
    fn byte_range(&self, lo: u64, hi: u64) -> (u64, u64) {
        (lo * 8, hi * 8)
    }
    fn degree(&self, lo: u64, hi: u64) -> Option<u64> {
        Some(hi - lo)
    }
    fn decode(&self, _vertex: u64, lo: u64, hi: u64, bytes: &[u8], out: &mut Vec<u64>) -> Result<(), String> {
        let n = (hi - lo) as usize;
        if bytes.len() < n * 8 {
            return Err(format!("{} bytes for {n} raw64 ids", bytes.len()));
        }
        out.extend(bytes[..n * 8].chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())));
        Ok(())
    }
}

/// The codec implementing `encoding`.
pub fn codec_for(encoding: Encoding) -> &'static dyn Codec {
    match encoding {
        Encoding::Raw32 => &Raw32,
        Encoding::Raw64 => &Raw64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn round_trip(enc: Encoding, lists: &[Vec<u64>]) {
        let codec = codec_for(enc);
        let mut bytes = Vec::new();
        let mut index = vec![0u64];
        for (v, l) in lists.iter().enumerate() {
            let p = codec.encode(v as u64, l, *index.last().unwrap(), &mut bytes);
            index.push(p);
        }
        for (v, l) in lists.iter().enumerate() {
            let (lo, hi) = (index[v], index[v + 1]);
            let (b0, b1) = codec.byte_range(lo, hi);
            let mut out = Vec::new();
            codec.decode(v as u64, lo, hi, &bytes[b0 as usize..b1 as usize], &mut out).unwrap();
            assert_eq!(&out, l);
            assert_eq!(codec.degree(lo, hi), Some(l.len() as u64));
        }
    }

    proptest! {
        #[test]
        fn raw32_round_trips(lists in prop::collection::vec(prop::collection::btree_set(0u64..u32::MAX as u64, 0..50), 0..40)) {
            let lists: Vec<Vec<u64>> = lists.into_iter().map(|s| s.into_iter().collect()).collect();
            round_trip(Encoding::Raw32, &lists);
        }
        #[test]
        fn raw64_round_trips(lists in prop::collection::vec(prop::collection::btree_set(any::<u64>(), 0..50), 0..40)) {
            let lists: Vec<Vec<u64>> = lists.into_iter().map(|s| s.into_iter().collect()).collect();
            round_trip(Encoding::Raw64, &lists);
        }
    }

    #[test]
    fn names_round_trip() {
        for e in Encoding::ALL {
            assert_eq!(Encoding::from_name(e.name()), Some(e));
        }
        assert_eq!(Encoding::raw_for(1 << 32), Encoding::Raw32);
        assert_eq!(Encoding::raw_for((1 << 32) + 1), Encoding::Raw64);
    }
}
