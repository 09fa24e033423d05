//! Sorted runs of (vertex, value) pairs on disk: the update logs and
//! sparse vertex files of BigSparse (section 4.2.3), in outcore's one run
//! format (`outcore_io::runs`): each record the gap from the previous
//! vertex id as an LEB128 varint followed by the value's bytes; ids
//! strictly increase, so a run is also a set. Gaps keep a reduced log near
//! one byte per id.

use bytemuck::Pod;
use outcore_io::runs::{self, RunFile};
use outcore_io::IoError;
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

/// Writes `(vertex, value)` records with increasing vertex ids.
pub struct RunWriter<T> {
    inner: runs::RunWriter<(u64, T)>,
}

impl<T: Record> RunWriter<T> {
    pub fn create(path: &Path, chunk_bytes: usize) -> Result<Self, IoError> {
        Ok(RunWriter { inner: runs::RunWriter::create(path, chunk_bytes)? })
    }

    /// Append `(v, x)`; `v` must exceed the previous id.
    #[inline]
    pub fn push(&mut self, v: u64, x: &T) -> Result<(), IoError> {
        self.inner.push(&(v, *x))
    }

    pub fn finish(self) -> Result<Run<T>, IoError> {
        let RunFile { path, entries, bytes } = self.inner.finish()?;
        Ok(Run { path, entries, bytes, _t: PhantomData })
    }
}

/// Reads a run front to back; `head` is the next record.
pub struct RunReader<T> {
    inner: runs::RunReader<(u64, T)>,
}

impl<T: Record> RunReader<T> {
    pub fn open(path: &Path, chunk_bytes: usize) -> Result<Self, IoError> {
        Ok(RunReader { inner: runs::RunReader::open(path, chunk_bytes)? })
    }

    #[inline]
    pub fn head(&self) -> Option<&(u64, T)> {
        self.inner.head()
    }

    /// Take the head and decode the next record.
    #[inline]
    pub fn advance(&mut self) -> Result<Option<(u64, T)>, IoError> {
        self.inner.advance()
    }

    /// Drop the head and decode the next record.
    #[inline(always)]
    pub fn skip(&mut self) -> Result<(), IoError> {
        self.inner.skip()
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
