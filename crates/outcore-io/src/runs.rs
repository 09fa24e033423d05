//! Sorted runs on disk: the one run format of outcore. A run is a
//! sequence of records in ascending order, each encoded relative to the
//! one before it ([`RunRecord`]: gaps as LEB128 varints, so sorted keys cost
//! about a byte), written and read in chunks through the O_DIRECT streams.
//! The import's external sort spills its sorted buffers as runs and merges
//! them with [`Merge`], a binary heap over the runs' heads; the sort-reduce
//! engine's update logs and sparse vertex files are runs of `(vertex,
//! value)` records, merged with reduction over dense id windows (BigSparse
//! section 4.2.3), which costs O(1) a record where a heap costs O(log k).

use crate::{AlignedBuf, IoError, SeqReader, SeqWriter, DIRECT_ALIGN};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::path::{Path, PathBuf};

/// Append `v` as an LEB128 varint.
#[inline]
pub fn put_varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// The LEB128 varint at `bytes[*pos..]`, or why it cannot be read.
#[inline]
pub fn get_varint(bytes: &[u8], pos: &mut usize) -> Result<u64, &'static str> {
    let (mut v, mut shift) = (0u64, 0);
    loop {
        let Some(&b) = bytes.get(*pos) else { return Err("truncated varint") };
        *pos += 1;
        v |= ((b & 0x7f) as u64) << shift;
        if b < 0x80 {
            return Ok(v);
        }
        shift += 7;
        if shift > 63 {
            return Err("varint longer than 64 bits");
        }
    }
}

/// A record of a run, encoded relative to the record before it.
pub trait RunRecord: Copy + Send + Sync + 'static {
    /// The most bytes one encoded record takes.
    const MAX_ENCODED: usize;
    /// Append `self`; `prev` is the record before it in the run (not
    /// greater), `None` for the first.
    fn encode(&self, prev: Option<&Self>, out: &mut Vec<u8>);
    /// The record at `bytes[*pos..]` after `prev`, or why it is damaged.
    fn decode(prev: Option<&Self>, bytes: &[u8], pos: &mut usize) -> Result<Self, &'static str>;
}

/// `(key, value)` with strictly increasing keys: the key's gap as a
/// varint, then the value's bytes.
impl<T: bytemuck::Pod + Send + Sync> RunRecord for (u64, T) {
    const MAX_ENCODED: usize = 10 + std::mem::size_of::<T>();
    #[inline]
    fn encode(&self, prev: Option<&Self>, out: &mut Vec<u8>) {
        let gap = match prev {
            Some(p) => {
                debug_assert!(self.0 > p.0, "run keys must increase ({} then {})", p.0, self.0);
                self.0 - p.0
            }
            None => self.0,
        };
        put_varint(gap, out);
        out.extend_from_slice(bytemuck::bytes_of(&self.1));
    }
    #[inline(always)]
    fn decode(prev: Option<&Self>, bytes: &[u8], pos: &mut usize) -> Result<Self, &'static str> {
        let size = std::mem::size_of::<T>();
        // the common record: a one-byte gap
        let gap = match bytes.get(*pos) {
            Some(&b) if b < 0x80 => {
                *pos += 1;
                b as u64
            }
            Some(_) => get_varint(bytes, pos).map_err(|_| "damaged key gap")?,
            None => return Err("truncated key"),
        };
        let Some(value) = bytes.get(*pos..*pos + size) else { return Err("truncated value") };
        *pos += size;
        match prev {
            Some(_) if gap == 0 => Err("keys do not increase"),
            Some(p) => Ok((p.0 + gap, bytemuck::pod_read_unaligned(value))),
            None => Ok((gap, bytemuck::pod_read_unaligned(value))),
        }
    }
}

/// A finished run: where it is and what it holds.
#[derive(Debug, Clone)]
pub struct RunFile {
    pub path: PathBuf,
    pub entries: u64,
    pub bytes: u64,
}

/// Writes a run, a chunk at a time.
pub struct RunWriter<R> {
    out: SeqWriter,
    prev: Option<R>,
    entries: u64,
    scratch: Vec<u8>,
}

/// Bytes encoded before they go to the writer.
const SCRATCH: usize = 64 << 10;

impl<R: RunRecord> RunWriter<R> {
    /// A run at `path` through a writer of `chunk_bytes` chunks.
    pub fn create(path: &Path, chunk_bytes: usize) -> Result<Self, IoError> {
        Ok(RunWriter { out: SeqWriter::scratch(path, chunk_bytes)?, prev: None, entries: 0, scratch: Vec::with_capacity(SCRATCH) })
    }

    /// Append `r`, which must not sort before the previous record.
    #[inline]
    pub fn push(&mut self, r: &R) -> Result<(), IoError> {
        r.encode(self.prev.as_ref(), &mut self.scratch);
        self.prev = Some(*r);
        self.entries += 1;
        if self.scratch.len() >= SCRATCH - R::MAX_ENCODED {
            self.out.write_bytes(&self.scratch)?;
            self.scratch.clear();
        }
        Ok(())
    }

    pub fn entries(&self) -> u64 {
        self.entries
    }

    pub fn finish(mut self) -> Result<RunFile, IoError> {
        self.out.write_bytes(&self.scratch)?;
        let summary = self.out.finish()?;
        // a run is never changed once written: reading it back checks it
        crate::verify::register_written(&summary)?;
        Ok(RunFile { path: summary.path, entries: self.entries, bytes: summary.bytes })
    }
}

/// Reads a run front to back; `head` is the next record.
pub struct RunReader<R> {
    input: SeqReader,
    buf: Vec<u8>,
    pos: usize,
    eof: bool,
    head: Option<R>,
}

impl<R: RunRecord> RunReader<R> {
    /// What a reader opened with `chunk_bytes` holds: its [`SeqReader`]
    /// ([`SeqReader::buffer_bytes`]) and its window, a chunk (rounded up
    /// to [`DIRECT_ALIGN`], as the reader's are) and a record's tail from
    /// the chunk before.
    pub const fn held_bytes(chunk_bytes: usize) -> u64 {
        SeqReader::buffer_bytes(chunk_bytes) + (AlignedBuf::rounded(chunk_bytes, DIRECT_ALIGN) + R::MAX_ENCODED) as u64
    }

    pub fn open(path: &Path, chunk_bytes: usize) -> Result<Self, IoError> {
        // room for a chunk and a record's tail from the one before, allocated once
        let buf = Vec::with_capacity(AlignedBuf::rounded(chunk_bytes, DIRECT_ALIGN) + R::MAX_ENCODED);
        let mut r = RunReader { input: SeqReader::open(path, chunk_bytes)?, buf, pos: 0, eof: false, head: None };
        r.head = r.decode(None)?;
        Ok(r)
    }

    pub fn path(&self) -> &Path {
        self.input.path()
    }

    #[inline]
    pub fn head(&self) -> Option<&R> {
        self.head.as_ref()
    }

    /// Take the head and decode the next record.
    #[inline]
    pub fn advance(&mut self) -> Result<Option<R>, IoError> {
        let h = self.head;
        self.skip()?;
        Ok(h)
    }

    /// Drop the head and decode the next record; inline while the buffer
    /// holds a whole record.
    #[inline(always)]
    pub fn skip(&mut self) -> Result<(), IoError> {
        if self.head.is_some() && self.buf.len() - self.pos >= R::MAX_ENCODED {
            return match R::decode(self.head.as_ref(), &self.buf, &mut self.pos) {
                Ok(r) => {
                    self.head = Some(r);
                    Ok(())
                }
                Err(why) => Err(self.corrupt(why)),
            };
        }
        self.skip_slow()
    }

    #[inline(never)]
    fn skip_slow(&mut self) -> Result<(), IoError> {
        if let Some(h) = self.head {
            self.head = self.decode(Some(h))?;
        }
        Ok(())
    }

    fn corrupt(&self, why: &str) -> IoError {
        IoError::new(self.input.path(), format!("run at byte {}", self.input.position()), std::io::Error::other(why.to_string()))
    }

    /// The record after `prev`, refilling the buffer first; `None` at the end.
    fn decode(&mut self, prev: Option<R>) -> Result<Option<R>, IoError> {
        if self.buf.len() - self.pos < R::MAX_ENCODED && !self.eof {
            self.buf.drain(..self.pos);
            self.pos = 0;
            while self.buf.len() < R::MAX_ENCODED {
                match self.input.next_chunk()? {
                    Some(c) => self.buf.extend_from_slice(c),
                    None => {
                        self.eof = true;
                        break;
                    }
                }
            }
        }
        if self.pos == self.buf.len() {
            return Ok(None);
        }
        R::decode(prev.as_ref(), &self.buf, &mut self.pos).map(Some).map_err(|why| self.corrupt(why))
    }
}

/// The k-way merge of sorted runs: every record in order (ties by run).
pub struct Merge<R: RunRecord + Ord> {
    readers: Vec<RunReader<R>>,
    heap: BinaryHeap<Reverse<(R, usize)>>,
}

impl<R: RunRecord + Ord> Merge<R> {
    pub fn new(mut readers: Vec<RunReader<R>>) -> Result<Self, IoError> {
        let mut heap = BinaryHeap::with_capacity(readers.len());
        for (i, r) in readers.iter_mut().enumerate() {
            if let Some(rec) = r.advance()? {
                heap.push(Reverse((rec, i)));
            }
        }
        Ok(Merge { readers, heap })
    }

    /// The smallest record left.
    #[inline]
    // fallible, so not an Iterator (whose `next` returns a bare Option)
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Result<Option<R>, IoError> {
        let Some(mut top) = self.heap.peek_mut() else {
            return Ok(None);
        };
        let Reverse((rec, i)) = *top;
        match self.readers[i].advance()? {
            Some(next) => top.0 = (next, i),
            None => {
                std::collections::binary_heap::PeekMut::pop(top);
            }
        }
        Ok(Some(rec))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keyed_runs_round_trip_and_merge() {
        let dir = tempfile::tempdir().unwrap();
        let mut paths = Vec::new();
        for k in 0..3u64 {
            let path = dir.path().join(format!("r{k}"));
            let mut w = RunWriter::<(u64, u32)>::create(&path, 4096).unwrap();
            for v in (k..20_000).step_by(3) {
                w.push(&(v * 1000 + (v % 7) * 200, v as u32)).unwrap();
            }
            assert_eq!(w.finish().unwrap().entries, (20_000 - k).div_ceil(3));
            paths.push(path);
        }
        let readers = paths.iter().map(|p| RunReader::<(u64, u32)>::open(p, 4096).unwrap()).collect();
        let mut m = Merge::new(readers).unwrap();
        let mut got = Vec::new();
        while let Some(r) = m.next().unwrap() {
            got.push(r);
        }
        let mut want: Vec<(u64, u32)> = (0..20_000u64).map(|v| (v * 1000 + (v % 7) * 200, v as u32)).collect();
        want.sort();
        assert_eq!(got, want);
    }

    #[test]
    fn damage_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run");
        let mut w = RunWriter::<(u64, u64)>::create(&path, 4096).unwrap();
        for v in 0..100 {
            w.push(&(v * 1000, v)).unwrap();
        }
        w.finish().unwrap();
        let len = std::fs::metadata(&path).unwrap().len();
        std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(len - 3).unwrap();
        let mut r = RunReader::<(u64, u64)>::open(&path, 4096).unwrap();
        let e = loop {
            match r.advance() {
                Ok(Some(_)) => {}
                Ok(None) => panic!("truncation not seen"),
                Err(e) => break e.to_string(),
            }
        };
        assert!(e.contains("run at byte") && e.contains("truncated value"), "{e}");
    }
}
