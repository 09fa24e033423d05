//! Sorted runs of (vertex, value) pairs on disk: the update logs and
//! sparse vertex files of BigSparse (section 4.2.3). A run is a sequence
//! of records, each the gap from the previous vertex id as an LEB128
//! varint followed by the value's bytes; ids strictly increase, so a run
//! is also a set. Gaps keep a reduced log near one byte per id.

use bytemuck::Pod;
use outcore_io::{IoError, SeqReader, SeqWriter};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

/// A fixed-size value stored as its bytes (vertex states and updates).
pub trait Record: Pod + Send + Sync {}
impl<T: Pod + Send + Sync> Record for T {}

/// A finished run: where it is and what it holds.
#[derive(Debug)]
pub struct Run<T> {
    pub path: PathBuf,
    pub entries: u64,
    pub bytes: u64,
    _t: PhantomData<T>,
}

impl<T: Record> Run<T> {
    pub fn reader(&self, chunk_bytes: usize) -> Result<RunReader<T>, IoError> {
        RunReader::open(&self.path, chunk_bytes)
    }
    pub fn is_empty(&self) -> bool {
        self.entries == 0
    }
    /// Delete the file (runs are consumed once).
    pub fn remove(self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Largest record: a 10-byte varint and the value.
const fn max_record<T>() -> usize {
    10 + std::mem::size_of::<T>()
}

pub struct RunWriter<T> {
    out: SeqWriter,
    last: Option<u64>,
    entries: u64,
    scratch: Vec<u8>,
    _t: PhantomData<T>,
}

impl<T: Record> RunWriter<T> {
    pub fn create(path: &Path, chunk_bytes: usize) -> Result<Self, IoError> {
        Ok(RunWriter {
            out: SeqWriter::scratch(path, chunk_bytes)?,
            last: None,
            entries: 0,
            scratch: Vec::with_capacity(64 << 10),
            _t: PhantomData,
        })
    }

    /// Append `(v, x)`; `v` must exceed the previous id.
    #[inline]
    pub fn push(&mut self, v: u64, x: &T) -> Result<(), IoError> {
        let gap = match self.last {
            Some(l) => {
                debug_assert!(v > l, "run ids must increase ({l} then {v})");
                v - l
            }
            None => v,
        };
        self.last = Some(v);
        self.entries += 1;
        let mut g = gap;
        while g >= 0x80 {
            self.scratch.push(g as u8 | 0x80);
            g >>= 7;
        }
        self.scratch.push(g as u8);
        self.scratch.extend_from_slice(bytemuck::bytes_of(x));
        if self.scratch.len() >= (64 << 10) - max_record::<T>() {
            self.out.write_bytes(&self.scratch)?;
            self.scratch.clear();
        }
        Ok(())
    }

    pub fn finish(mut self) -> Result<Run<T>, IoError> {
        self.out.write_bytes(&self.scratch)?;
        let summary = self.out.finish()?;
        Ok(Run { path: summary.path, entries: self.entries, bytes: summary.bytes, _t: PhantomData })
    }
}

/// Reads a run front to back; `head` is the next record.
pub struct RunReader<T> {
    input: SeqReader,
    buf: Vec<u8>,
    pos: usize,
    eof: bool,
    last: u64,
    head: Option<(u64, T)>,
}

impl<T: Record> RunReader<T> {
    pub fn open(path: &Path, chunk_bytes: usize) -> Result<Self, IoError> {
        // room for a chunk and a record's tail from the one before, allocated once
        let buf = Vec::with_capacity(chunk_bytes.max(4096) + max_record::<T>());
        let mut r = RunReader { input: SeqReader::open(path, chunk_bytes)?, buf, pos: 0, eof: false, last: 0, head: None };
        r.head = r.decode(true)?;
        Ok(r)
    }

    #[inline]
    pub fn head(&self) -> Option<&(u64, T)> {
        self.head.as_ref()
    }

    /// Take the head and decode the next record.
    #[inline]
    pub fn advance(&mut self) -> Result<Option<(u64, T)>, IoError> {
        let h = self.head;
        self.skip()?;
        Ok(h)
    }

    /// Drop the head and decode the next record; inline for the common
    /// record (a one-byte gap with the buffer holding a whole record).
    #[inline(always)]
    pub fn skip(&mut self) -> Result<(), IoError> {
        let size = std::mem::size_of::<T>();
        if self.head.is_some() && self.buf.len() - self.pos >= max_record::<T>() {
            let b = self.buf[self.pos];
            if b != 0 && b < 0x80 {
                let x = bytemuck::pod_read_unaligned(&self.buf[self.pos + 1..self.pos + 1 + size]);
                self.pos += 1 + size;
                self.last += b as u64;
                self.head = Some((self.last, x));
                return Ok(());
            }
        }
        self.skip_slow()
    }

    #[inline(never)]
    fn skip_slow(&mut self) -> Result<(), IoError> {
        if self.head.is_some() {
            self.head = self.decode(false)?;
        }
        Ok(())
    }

    fn corrupt(&self, why: &str) -> IoError {
        IoError::new(self.input.path(), format!("update log at byte {}", self.input.position()), std::io::Error::other(why.to_string()))
    }

    #[inline]
    fn decode(&mut self, first: bool) -> Result<Option<(u64, T)>, IoError> {
        if self.buf.len() - self.pos < max_record::<T>() && !self.eof {
            self.buf.drain(..self.pos);
            self.pos = 0;
            while self.buf.len() < max_record::<T>() {
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
        let (mut gap, mut shift) = (0u64, 0);
        loop {
            let Some(&b) = self.buf.get(self.pos) else { return Err(self.corrupt("truncated id")) };
            self.pos += 1;
            gap |= ((b & 0x7f) as u64) << shift;
            if b & 0x80 == 0 {
                break;
            }
            shift += 7;
            if shift > 63 {
                return Err(self.corrupt("id gap longer than 64 bits"));
            }
        }
        let size = std::mem::size_of::<T>();
        let Some(bytes) = self.buf.get(self.pos..self.pos + size) else { return Err(self.corrupt("truncated value")) };
        let x = bytemuck::pod_read_unaligned(bytes);
        self.pos += size;
        if !first && gap == 0 {
            return Err(self.corrupt("ids do not increase"));
        }
        self.last += gap;
        Ok(Some((self.last, x)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn runs_round_trip(mut ids in proptest::collection::vec(0u64..1 << 40, 0..3000), chunk in 1usize..4) {
            ids.sort();
            ids.dedup();
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("run");
            let mut w = RunWriter::<[u32; 3]>::create(&path, 4096 * chunk).unwrap();
            for &v in &ids {
                w.push(v, &[v as u32, 7, (v >> 32) as u32]).unwrap();
            }
            let run = w.finish().unwrap();
            prop_assert_eq!(run.entries, ids.len() as u64);
            let mut r = run.reader(4096 * chunk).unwrap();
            for &v in &ids {
                prop_assert_eq!(r.advance().unwrap(), Some((v, [v as u32, 7, (v >> 32) as u32])));
            }
            prop_assert_eq!(r.advance().unwrap(), None);
        }
    }

    #[test]
    fn a_truncated_run_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run");
        let mut w = RunWriter::<u64>::create(&path, 4096).unwrap();
        for v in 0..100 {
            w.push(v * 1000, &v).unwrap();
        }
        w.finish().unwrap();
        let len = std::fs::metadata(&path).unwrap().len();
        std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(len - 3).unwrap();
        let mut r = RunReader::<u64>::open(&path, 4096).unwrap();
        let e = loop {
            match r.advance() {
                Ok(Some(_)) => {}
                Ok(None) => panic!("truncation not seen"),
                Err(e) => break e.to_string(),
            }
        };
        assert!(e.contains("run") && e.contains("truncated value"), "{e}");
    }
}
