//! Reading and writing the G-Store tile layout ([`TilesRecord`]).

use crate::{StoreError, TilesRecord, STREAM_CHUNK_BYTES};
use outcore_io::{SeqReader, SeqWriter, WriteSummary, CHECKSUM_BLOCK_BYTES};
use std::path::Path;

/// Writes tiles in storage order.
pub struct TileWriter {
    data: SeqWriter,
    index: SeqWriter,
    weights: Option<SeqWriter>,
    current: Option<(u32, u32)>,
    edges: u64,
    tiles: u64,
}

impl TileWriter {
    /// Memory a writer holds: three chunks for each file it writes (edges,
    /// index, and weights if `weighted`).
    pub fn buffer_bytes(weighted: bool) -> u64 {
        (2 + weighted as u64) * 3 * STREAM_CHUNK_BYTES as u64
    }

    /// Write `data` and `index` files in `dir`.
    pub fn create_named(dir: &Path, data: &str, index: &str, weights: Option<&str>) -> Result<Self, StoreError> {
        let create = |name: &str| SeqWriter::create(&dir.join(name), STREAM_CHUNK_BYTES, CHECKSUM_BLOCK_BYTES);
        Ok(TileWriter {
            data: create(data)?,
            index: create(index)?,
            weights: weights.map(create).transpose()?,
            current: None,
            edges: 0,
            tiles: 0,
        })
    }

    /// Add an edge of tile (i, j) with local ids; tiles must come in storage order.
    #[inline]
    pub fn push(&mut self, i: u32, j: u32, local_source: u16, local_target: u16, weight: f32) -> Result<(), StoreError> {
        if self.current != Some((i, j)) {
            self.current = Some((i, j));
            let mut entry = [0u8; 16];
            entry[..4].copy_from_slice(&i.to_le_bytes());
            entry[4..8].copy_from_slice(&j.to_le_bytes());
            entry[8..].copy_from_slice(&self.edges.to_le_bytes());
            self.index.write_bytes(&entry)?;
            self.tiles += 1;
        }
        let mut e = [0u8; 4];
        e[..2].copy_from_slice(&local_source.to_le_bytes());
        e[2..].copy_from_slice(&local_target.to_le_bytes());
        self.data.write_bytes(&e)?;
        if let Some(w) = &mut self.weights {
            w.write_bytes(&weight.to_le_bytes())?;
        }
        self.edges += 1;
        Ok(())
    }

    /// Close; returns (edges, tiles, summaries of data, index and weights).
    #[allow(clippy::type_complexity)]
    pub fn finish(mut self) -> Result<(u64, u64, WriteSummary, WriteSummary, Option<WriteSummary>), StoreError> {
        self.index.write_bytes(&self.edges.to_le_bytes())?;
        let weights = self.weights.map(|w| w.finish()).transpose()?;
        Ok((self.edges, self.tiles, self.data.finish()?, self.index.finish()?, weights))
    }
}

/// One tile: its coordinates and its edges as (local source, local target).
pub struct Tile<'a> {
    pub i: u32,
    pub j: u32,
    pub edges: &'a [[u16; 2]],
}

/// Reads every tile in storage order (bounded memory: the largest tile).
pub struct TileScan {
    index: Vec<(u32, u32, u64)>,
    end: u64,
    data: SeqReader,
    pos: usize,
    buf: Vec<[u16; 2]>,
    carry: Vec<u8>,
    vertices: u64,
    span_bits: u32,
}

/// The start-edge index: (i, j, first edge) per non-empty tile in storage
/// order, and the total edge count; checked for consistency.
#[allow(clippy::type_complexity)]
pub fn read_tile_index(dir: &Path, rec: &TilesRecord) -> Result<(Vec<(u32, u32, u64)>, u64), StoreError> {
    let path = dir.join(&rec.index);
    let file = std::fs::File::open(&path).map_err(|e| StoreError::invalid(&path, format!("cannot read: {e}")))?;
    let mut raw = Vec::new();
    std::io::Read::read_to_end(&mut &file, &mut raw).map_err(|e| StoreError::invalid(&path, format!("cannot read: {e}")))?;
    if let Some(c) = outcore_io::verify::checks_for(&file) {
        c.check_read(&file, 0, &raw)?;
    }
    if raw.len() as u64 != rec.tiles * 16 + 8 {
        return Err(StoreError::invalid(&path, format!("{} bytes for {} tiles", raw.len(), rec.tiles)));
    }
    let index: Vec<(u32, u32, u64)> = raw[..raw.len() - 8]
        .chunks_exact(16)
        .map(|c| {
            (
                u32::from_le_bytes(c[..4].try_into().unwrap()),
                u32::from_le_bytes(c[4..8].try_into().unwrap()),
                u64::from_le_bytes(c[8..].try_into().unwrap()),
            )
        })
        .collect();
    let end = u64::from_le_bytes(raw[raw.len() - 8..].try_into().unwrap());
    let mut last = 0;
    for (k, &(i, j, start)) in index.iter().enumerate() {
        if start < last || start > end || i as u64 >= rec.spans || j as u64 >= rec.spans {
            return Err(StoreError::invalid(&path, format!("entry {k} (tile {i}, {j}, first edge {start}) is out of order or range")));
        }
        last = start;
    }
    if end != rec.edges {
        return Err(StoreError::invalid(&path, format!("holds {end} edges, the manifest says {}", rec.edges)));
    }
    Ok((index, end))
}

/// Check that the local ids of tile (i, j)'s `edges` name vertices of the
/// store (`vertices`, spans of 2^`span_bits`): the last span is short, and
/// a damaged or crafted tile could point past it. `path` is the tile data file.
pub fn check_tile_edges(path: &Path, vertices: u64, span_bits: u32, i: u32, j: u32, edges: &[[u16; 2]]) -> Result<(), StoreError> {
    let limit = |span: u32| (vertices.saturating_sub((span as u64) << span_bits)).min(1 << span_bits);
    let (sources, targets) = (limit(i), limit(j));
    let (max_source, max_target) = edges.iter().fold((0u16, 0u16), |(a, b), e| (a.max(e[0]), b.max(e[1])));
    if edges.is_empty() || ((max_source as u64) < sources && (max_target as u64) < targets) {
        return Ok(());
    }
    let k = edges.iter().position(|e| e[0] as u64 >= sources || e[1] as u64 >= targets).unwrap_or(0);
    Err(StoreError::invalid(
        path,
        format!(
            "tile ({i}, {j}), edge {k}: local ids ({}, {}) beyond its spans of {sources} and {targets} vertices",
            edges[k][0], edges[k][1]
        ),
    ))
}

impl TileScan {
    pub fn open(dir: &Path, rec: &TilesRecord, vertices: u64) -> Result<Self, StoreError> {
        let (index, end) = read_tile_index(dir, rec)?;
        Ok(TileScan {
            vertices,
            span_bits: rec.span_bits,
            index,
            end,
            data: SeqReader::open(&dir.join(&rec.data), STREAM_CHUNK_BYTES)?,
            pos: 0,
            buf: Vec::new(),
            carry: Vec::new(),
        })
    }

    pub fn next_tile(&mut self) -> Result<Option<Tile<'_>>, StoreError> {
        let Some(&(i, j, start)) = self.index.get(self.pos) else { return Ok(None) };
        let stop = self.index.get(self.pos + 1).map_or(self.end, |t| t.2);
        let need = ((stop - start) * 4) as usize;
        self.pos += 1;
        while self.carry.len() < need {
            match self.data.next_chunk()? {
                Some(c) => self.carry.extend_from_slice(c),
                None => return Err(StoreError::invalid(self.data.path(), format!("ends inside tile ({i}, {j})"))),
            }
        }
        self.buf.clear();
        self.buf.extend(self.carry[..need].chunks_exact(4).map(|c| [u16::from_le_bytes([c[0], c[1]]), u16::from_le_bytes([c[2], c[3]])]));
        self.carry.drain(..need);
        check_tile_edges(self.data.path(), self.vertices, self.span_bits, i, j, &self.buf)?;
        Ok(Some(Tile { i, j, edges: &self.buf }))
    }
}
