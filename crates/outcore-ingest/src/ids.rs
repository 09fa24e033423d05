//! Relabelling original ids to dense ids by rank (DESIGN.md: "id map").
//!
//! Ids are collected while the edges are parsed: in a bitmap while the id
//! range fits its share of the budget (rank queries then cost O(1)), and
//! otherwise in an external sort of the ids themselves, in which case the
//! edges are relabelled by merge-joins against the sorted id file.

use crate::error::{IngestError, Result};
use crate::sort::{ExternalSorter, Key64};
use outcore_io::{Budget, Reservation, SeqReader, SeqWriter};
use std::path::{Path, PathBuf};

/// `id` must lie in `first..first+count`.
#[inline]
pub fn check_range(id: u64, first: u64, count: u64) -> std::result::Result<(), crate::formats::SinkError> {
    if id.wrapping_sub(first) >= count {
        return Err(crate::formats::SinkError::Reject(format!("vertex id {id} out of range {first}..{}", first + count)));
    }
    Ok(())
}

/// Collects the vertex set during parsing.
pub enum IdCollector {
    /// Ids `first..first+count` and no others.
    Range {
        first: u64,
        count: u64,
    },
    Bitmap {
        words: Vec<u64>,
        charge: Option<Reservation>,
        limit_bytes: u64,
        closed: bool,
    },
    External {
        sorter: ExternalSorter<Key64>,
        dir: PathBuf,
    },
}

impl IdCollector {
    pub fn bitmap(limit_bytes: u64) -> Self {
        IdCollector::Bitmap { words: Vec::new(), charge: None, limit_bytes, closed: false }
    }

    /// After an explicit vertex list: edges may only use listed ids.
    pub fn close(&mut self) {
        if let IdCollector::Bitmap { closed, .. } = self {
            *closed = true;
        }
    }

    /// Record `id` (or check it, once the vertex set is closed).
    #[inline]
    pub fn observe(&mut self, id: u64, budget: &Budget, dir: &Path) -> std::result::Result<(), crate::formats::SinkError> {
        use crate::formats::SinkError;
        match self {
            IdCollector::Range { first, count } => check_range(id, *first, *count)?,
            IdCollector::Bitmap { words, charge, limit_bytes, closed } => {
                let w = (id / 64) as usize;
                if w >= words.len() {
                    if *closed {
                        return Err(SinkError::Reject(format!("vertex {id} is not in the vertex list")));
                    }
                    let want = (w + 1).next_power_of_two().max(1024);
                    // bitmap plus its rank directory (one u64 per 8 words)
                    // (9 bytes a word, without overflow for an id near 2^64)
                    let bytes = (want as u64).saturating_mul(9);
                    if bytes > *limit_bytes {
                        return self.go_external(budget, dir).and_then(|_| self.observe(id, budget, dir));
                    }
                    *charge = None;
                    *charge = Some(budget.reserve("id bitmap", bytes).map_err(|e| SinkError::Abort(e.into()))?);
                    words.resize(want, 0);
                }
                let bit = 1u64 << (id % 64);
                if *closed && words[w] & bit == 0 {
                    return Err(SinkError::Reject(format!("vertex {id} is not in the vertex list")));
                }
                words[w] |= bit;
            }
            IdCollector::External { sorter, .. } => sorter.push(Key64(id))?,
        }
        Ok(())
    }

    fn go_external(&mut self, budget: &Budget, dir: &Path) -> std::result::Result<(), crate::formats::SinkError> {
        let IdCollector::Bitmap { words, charge, closed, .. } = self else { unreachable!() };
        if *closed {
            // An explicit vertex list never reaches this: its ids were all seen.
            return Err(crate::formats::SinkError::Reject("vertex is not in the vertex list".into()));
        }
        let words = std::mem::take(words);
        drop(charge.take());
        let memory = (budget.available() / 4).max(64 << 10);
        let mut sorter = ExternalSorter::new(dir, "ids", budget, memory, true)?;
        for (w, &bits) in words.iter().enumerate() {
            let mut b = bits;
            while b != 0 {
                let t = b.trailing_zeros() as u64;
                sorter.push(Key64(w as u64 * 64 + t))?;
                b &= b - 1;
            }
        }
        *self = IdCollector::External { sorter, dir: dir.to_path_buf() };
        Ok(())
    }

    /// Finish collecting: the dense numbering, writing `idmap_path` when
    /// the ids are not already `base..base+n`.
    pub fn finish(self, idmap_path: &Path) -> Result<DenseIds> {
        match self {
            IdCollector::Range { first, count } => Ok(DenseIds::Identity { base: first, count }),
            IdCollector::Bitmap { words, charge, .. } => {
                let count: u64 = words.iter().map(|w| w.count_ones() as u64).sum();
                let first = words.iter().position(|&w| w != 0).map(|w| w as u64 * 64 + words[w].trailing_zeros() as u64).unwrap_or(0);
                let last = words.iter().rposition(|&w| w != 0).map(|w| w as u64 * 64 + 63 - words[w].leading_zeros() as u64).unwrap_or(0);
                if count == 0 || last - first + 1 == count {
                    return Ok(DenseIds::Identity { base: if count == 0 { 0 } else { first }, count });
                }
                let mut directory = Vec::with_capacity(words.len().div_ceil(8));
                let mut running = 0u64;
                for block in words.chunks(8) {
                    directory.push(running);
                    running += block.iter().map(|w| w.count_ones() as u64).sum::<u64>();
                }
                let mut w = SeqWriter::create(idmap_path, 1 << 20, outcore_io::CHECKSUM_BLOCK_BYTES)?;
                let mut out = Vec::with_capacity(1 << 16);
                for (i, &bits) in words.iter().enumerate() {
                    let mut b = bits;
                    while b != 0 {
                        out.extend_from_slice(&(i as u64 * 64 + b.trailing_zeros() as u64).to_le_bytes());
                        b &= b - 1;
                    }
                    if out.len() >= 1 << 16 {
                        w.write_bytes(&out)?;
                        out.clear();
                    }
                }
                w.write_bytes(&out)?;
                let summary = w.finish()?;
                Ok(DenseIds::Rank { words, directory, count, _charge: charge, summary })
            }
            IdCollector::External { sorter, .. } => {
                let mut merged = sorter.finish()?;
                let mut w = SeqWriter::create(idmap_path, 1 << 20, outcore_io::CHECKSUM_BLOCK_BYTES)?;
                let mut count = 0u64;
                while let Some(Key64(id)) = merged.next()? {
                    w.write_bytes(&id.to_le_bytes())?;
                    count += 1;
                }
                drop(merged);
                Ok(DenseIds::External { count, path: idmap_path.to_path_buf(), summary: w.finish()? })
            }
        }
    }
}

/// The dense numbering of the vertex set.
pub enum DenseIds {
    /// Original id = dense id + base.
    Identity { base: u64, count: u64 },
    /// Rank in a bitmap; the sorted ids are in the idmap file.
    Rank { words: Vec<u64>, directory: Vec<u64>, count: u64, _charge: Option<Reservation>, summary: outcore_io::WriteSummary },
    /// Only the sorted id file: relabel by merge-join ([`IdJoin`]).
    External { count: u64, path: PathBuf, summary: outcore_io::WriteSummary },
}

impl DenseIds {
    pub fn count(&self) -> u64 {
        match self {
            DenseIds::Identity { count, .. } | DenseIds::Rank { count, .. } | DenseIds::External { count, .. } => *count,
        }
    }

    /// Dense id of an original id known to be in the set (in-memory kinds).
    #[inline]
    pub fn rank(&self, id: u64) -> u64 {
        match self {
            DenseIds::Identity { base, .. } => id - base,
            DenseIds::Rank { words, directory, .. } => {
                let w = (id / 64) as usize;
                let block = w / 8;
                let mut r = directory[block];
                for x in &words[block * 8..w] {
                    r += x.count_ones() as u64;
                }
                r + (words[w] & ((1u64 << (id % 64)) - 1)).count_ones() as u64
            }
            DenseIds::External { .. } => unreachable!("external ids are joined, not looked up"),
        }
    }

    pub fn in_memory(&self) -> bool {
        !matches!(self, DenseIds::External { .. })
    }
}

/// Relabels a non-decreasing stream of original ids by walking the sorted
/// id file alongside it.
pub struct IdJoin {
    reader: SeqReader,
    window: Vec<u8>,
    pos: usize,
    current: Option<u64>,
    rank: u64,
}

impl IdJoin {
    pub fn open(path: &Path) -> Result<Self> {
        let mut j = IdJoin { reader: SeqReader::open(path, 1 << 20)?, window: Vec::new(), pos: 0, current: None, rank: 0 };
        j.current = j.read()?;
        Ok(j)
    }

    fn read(&mut self) -> Result<Option<u64>> {
        if self.window.len() - self.pos < 8 {
            self.window.drain(..self.pos);
            self.pos = 0;
            if let Some(c) = self.reader.next_chunk()? {
                self.window.extend_from_slice(c);
            }
            if self.window.len() < 8 {
                return Ok(None);
            }
        }
        let v = u64::from_le_bytes(self.window[self.pos..self.pos + 8].try_into().unwrap());
        self.pos += 8;
        Ok(Some(v))
    }

    /// Dense id of `id`; ids must come in non-decreasing order.
    pub fn rank_of(&mut self, id: u64) -> Result<u64> {
        while let Some(c) = self.current {
            if c >= id {
                break;
            }
            self.current = self.read()?;
            self.rank += 1;
        }
        if self.current != Some(id) {
            return Err(IngestError::file(self.reader.path(), format!("vertex {id} is not in the vertex list")));
        }
        Ok(self.rank)
    }
}
