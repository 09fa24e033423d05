//! Dense vertex files and the lazy activation of a superstep's update log
//! (BigSparse Algorithm 3, last loop, evaluated just in time as section
//! 4.3 describes): the next superstep's active vertices are computed from
//! the log and the vertex file while the edges are being read, and the
//! new values are written on the way.
//!
//! A log that touches most vertices (or a program that finalizes every
//! vertex) rewrites the vertex file sequentially; a sparse one updates the
//! pages it touches in place, in increasing order.
//!
//! Vertex files are checked like store files (issue 14): written with a
//! hash per 64 KiB block, registered ([`outcore_io::verify`]) so that every
//! read checks them, and an update in place checks each block it loads and
//! registers the new hash of each block it writes.

use super::run::{Record, Run, RunReader};
use super::source::{DenseSource, VertexSource};
use super::{Program, VALUE_CHUNK_BYTES};
use outcore_io::verify::FileChecks;
use outcore_io::{open_maybe_direct, read_full_at, verify, AlignedBuf, IoContext, SeqWriter, DIRECT_ALIGN};
use outcore_store::StoreError;
use std::marker::PhantomData;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One value per vertex, in vertex order, in a file of the engine's work area.
pub struct ValueFile<S> {
    path: PathBuf,
    vertices: u64,
    _s: PhantomData<S>,
}

impl<S: Record> ValueFile<S> {
    pub(crate) fn create(path: PathBuf, vertices: u64, mut init: impl FnMut(u64) -> S) -> Result<(Self, u64), StoreError> {
        let mut w = SeqWriter::scratch_blocks(&path, VALUE_CHUNK_BYTES, PAGED_WINDOW as u64)?;
        let mut buf = Vec::with_capacity(64 << 10);
        for v in 0..vertices {
            buf.extend_from_slice(bytemuck::bytes_of(&init(v)));
            if buf.len() >= 60 << 10 {
                w.write_bytes(&buf)?;
                buf.clear();
            }
        }
        w.write_bytes(&buf)?;
        let summary = w.finish()?;
        verify::register_written(&summary)?;
        let bytes = summary.bytes;
        Ok((ValueFile { path, vertices, _s: PhantomData }, bytes))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
    pub fn vertices(&self) -> u64 {
        self.vertices
    }
    pub fn bytes(&self) -> u64 {
        self.vertices * std::mem::size_of::<S>() as u64
    }
    /// Delete the file.
    pub fn remove(self) {
        let _ = std::fs::remove_file(&self.path);
    }
    /// Every vertex and its value, in order.
    pub fn source(&self) -> Result<DenseSource<S>, StoreError> {
        DenseSource::open(&self.path, self.vertices)
    }
}

/// Bytes of a vertex file's checksum block and of the in-place window.
const PAGED_WINDOW: usize = 64 << 10;

/// Positioned read-modify-write of a vertex file through a 64 KiB window,
/// one checksum block.
struct PagedValues<S> {
    file: std::fs::File,
    path: PathBuf,
    /// The file's registered checks (None when checking is off), and the
    /// hashes of its blocks as this update leaves them.
    checks: Option<(Arc<FileChecks>, Vec<u64>)>,
    window: AlignedBuf,
    start: u64,
    valid: usize,
    dirty: bool,
    bytes_read: u64,
    bytes_written: u64,
    _s: PhantomData<S>,
}

impl<S: Record> PagedValues<S> {
    fn open(path: &Path) -> Result<Self, StoreError> {
        let (file, _) = open_maybe_direct(path, std::fs::OpenOptions::new().read(true).write(true)).ctx(path, "open")?;
        let checks = verify::checks_for(&file).filter(|c| c.block_bytes() == PAGED_WINDOW as u64).map(|c| {
            let hashes = c.hashes().to_vec();
            (c, hashes)
        });
        Ok(PagedValues {
            file,
            path: path.to_path_buf(),
            checks,
            window: AlignedBuf::new(PAGED_WINDOW, DIRECT_ALIGN),
            start: 0,
            valid: 0,
            dirty: false,
            bytes_read: 0,
            bytes_written: 0,
            _s: PhantomData,
        })
    }

    fn flush(&mut self) -> Result<(), StoreError> {
        if self.dirty {
            if let Some((_, hashes)) = &mut self.checks {
                hashes[self.start as usize / PAGED_WINDOW] = verify::block_hash(&self.window.spare()[..self.valid]);
            }
            let len = self.valid.div_ceil(DIRECT_ALIGN) * DIRECT_ALIGN;
            self.file.write_all_at(&self.window.spare()[..len], self.start).ctx(&self.path, &format!("write at byte {}", self.start))?;
            self.bytes_written += len as u64;
            self.dirty = false;
        }
        Ok(())
    }

    /// The window holding bytes `lo..lo+size`, loaded if needed.
    fn load(&mut self, lo: u64) -> Result<usize, StoreError> {
        let size = std::mem::size_of::<S>() as u64;
        if lo < self.start || lo + size > self.start + self.valid as u64 {
            self.flush()?;
            self.start = lo / PAGED_WINDOW as u64 * PAGED_WINDOW as u64;
            let n = read_full_at(&self.file, &mut self.window, PAGED_WINDOW, self.start)
                .ctx(&self.path, &format!("read at byte {}", self.start))?;
            self.valid = n;
            if let Some((checks, _)) = &self.checks {
                checks.check_block(self.start / PAGED_WINDOW as u64, &self.window.spare()[..n])?;
            }
            self.bytes_read += n as u64;
            if lo + size > self.start + n as u64 {
                return Err(StoreError::invalid(&self.path, format!("vertex file ends before byte {}", lo + size)));
            }
        }
        Ok((lo - self.start) as usize)
    }

    /// Write the last window, set the file's length to `bytes` and register
    /// its new block hashes. Returns the bytes read and written.
    fn close(mut self, bytes: u64) -> Result<(u64, u64), StoreError> {
        self.flush()?;
        self.file.set_len(bytes).ctx(&self.path, "truncate")?;
        if let Some((_, hashes)) = self.checks.take() {
            let meta = self.file.metadata().ctx(&self.path, "stat")?;
            verify::register(&self.path, &meta, PAGED_WINDOW as u64, hashes);
        }
        Ok((self.bytes_read, self.bytes_written))
    }

    fn get(&mut self, v: u64) -> Result<S, StoreError> {
        let size = std::mem::size_of::<S>();
        let at = self.load(v * size as u64)?;
        Ok(bytemuck::pod_read_unaligned(&self.window.spare()[at..at + size]))
    }

    fn set(&mut self, v: u64, x: &S) -> Result<(), StoreError> {
        let size = std::mem::size_of::<S>();
        let at = self.load(v * size as u64)?;
        self.window.spare()[at..at + size].copy_from_slice(bytemuck::bytes_of(x));
        self.dirty = true;
        Ok(())
    }
}

// One per activation: boxing the large variant would only add an allocation.
#[allow(clippy::large_enum_variant)]
enum Mode<S> {
    Rewrite { old: DenseSource<S>, out: SeqWriter, buf: Vec<u8>, tmp: PathBuf },
    InPlace(PagedValues<S>),
    Done,
}

/// What an activation did.
#[derive(Clone, Copy, Debug, Default)]
pub struct ActivationStats {
    pub bytes_read: u64,
    pub bytes_written: u64,
}

/// The active vertices of the next superstep, from a log and the vertex
/// file: `finalize(v, old, update)` for each vertex with an update (every
/// vertex, for programs that finalize all), yielded if `is_active`.
pub struct Activation<'a, P: Program> {
    program: &'a P,
    values: &'a ValueFile<P::State>,
    log: RunReader<P::Update>,
    log_entries: u64,
    mode: Mode<P::State>,
    pub stats: ActivationStats,
}

impl<'a, P: Program> Activation<'a, P> {
    pub(crate) fn new(program: &'a P, values: &'a ValueFile<P::State>, log: &Run<P::Update>) -> Result<Self, StoreError> {
        let n = values.vertices();
        let entries = log.entries;
        let page = 4096 / std::mem::size_of::<P::State>().max(1) as u64;
        // in place when the log touches few pages, counting a touched page as 8 sequential ones
        let in_place = !P::FINALIZE_ALL && entries.saturating_mul(8) < n / page.max(1);
        let mode = if in_place {
            Mode::InPlace(PagedValues::open(values.path())?)
        } else {
            let tmp = values.path().with_extension("next");
            Mode::Rewrite {
                old: values.source()?,
                out: SeqWriter::scratch_blocks(&tmp, VALUE_CHUNK_BYTES, PAGED_WINDOW as u64)?,
                buf: Vec::with_capacity(64 << 10),
                tmp,
            }
        };
        Ok(Activation {
            program,
            values,
            log: log.reader(VALUE_CHUNK_BYTES)?,
            log_entries: entries,
            mode,
            stats: ActivationStats::default(),
        })
    }

    fn bad_update(&self, v: u64) -> StoreError {
        StoreError::invalid(self.values.path(), format!("update for vertex {v}, beyond the {} vertices", self.values.vertices()))
    }

    fn finish(&mut self) -> Result<(), StoreError> {
        match std::mem::replace(&mut self.mode, Mode::Done) {
            Mode::Rewrite { out, tmp, buf, .. } => {
                let mut out = out;
                out.write_bytes(&buf)?;
                let s = out.finish()?;
                verify::register_written(&s)?;
                self.stats.bytes_written += s.bytes;
                self.stats.bytes_read += self.values.bytes();
                if let Some(&(v, _)) = self.log.head() {
                    return Err(self.bad_update(v));
                }
                std::fs::rename(&tmp, self.values.path()).ctx(&tmp, "rename")?;
            }
            Mode::InPlace(rw) => {
                let (read, written) = rw.close(self.values.bytes())?;
                self.stats.bytes_read += read;
                self.stats.bytes_written += written;
            }
            Mode::Done => {}
        }
        Ok(())
    }

    /// Run to the end (every value written), whatever was read of it.
    pub fn complete(mut self) -> Result<ActivationStats, StoreError> {
        while self.next()?.is_some() {}
        Ok(self.stats)
    }
}

impl<P: Program> VertexSource<P::State> for Activation<'_, P> {
    fn next(&mut self) -> Result<Option<(u64, P::State)>, StoreError> {
        let n = self.values.vertices();
        loop {
            match &mut self.mode {
                Mode::Done => return Ok(None),
                Mode::Rewrite { old, out, buf, .. } => {
                    let Some((v, x)) = old.next()? else {
                        self.finish()?;
                        return Ok(None);
                    };
                    let update = if self.log.head().is_some_and(|h| h.0 == v) { self.log.advance()?.map(|h| h.1) } else { None };
                    let touched = update.is_some() || P::FINALIZE_ALL;
                    let new = if touched { self.program.finalize(v, x, update) } else { x };
                    buf.extend_from_slice(bytemuck::bytes_of(&new));
                    if buf.len() >= 60 << 10 {
                        out.write_bytes(buf)?;
                        buf.clear();
                    }
                    if touched && self.program.is_active(v, &x, &new) {
                        return Ok(Some((v, new)));
                    }
                }
                Mode::InPlace(rw) => {
                    let Some((v, u)) = self.log.advance()? else {
                        self.finish()?;
                        return Ok(None);
                    };
                    if v >= n {
                        return Err(self.bad_update(v));
                    }
                    let x = rw.get(v)?;
                    let new = self.program.finalize(v, x, Some(u));
                    rw.set(v, &new)?;
                    self.log_entries = self.log_entries.saturating_sub(1);
                    if self.program.is_active(v, &x, &new) {
                        return Ok(Some((v, new)));
                    }
                }
            }
        }
    }
    fn size_hint(&self) -> u64 {
        if P::FINALIZE_ALL {
            self.values.vertices()
        } else {
            self.log_entries
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::FileExt;

    /// Flip a byte as the disk would: contents change, the file's length
    /// and modification time do not.
    fn flip(path: &Path, at: u64) {
        let f = std::fs::OpenOptions::new().read(true).write(true).open(path).unwrap();
        let modified = f.metadata().unwrap().modified().unwrap();
        let mut b = [0u8];
        f.read_exact_at(&mut b, at).unwrap();
        f.write_all_at(&[b[0] ^ 0x10], at).unwrap();
        f.set_modified(modified).unwrap();
    }

    fn read_all(values: &ValueFile<u64>) -> Result<Vec<u64>, StoreError> {
        let mut src = values.source()?;
        let mut out = Vec::new();
        while let Some((_, x)) = src.next()? {
            out.push(x);
        }
        Ok(out)
    }

    #[test]
    fn vertex_files_are_checked_and_updates_in_place_keep_their_hashes_true() {
        let dir = tempfile::tempdir().unwrap();
        let n = 100_000u64; // 800 KB: 13 blocks of 64 KiB
        let (values, _) = ValueFile::create(dir.path().join("values"), n, |v| v * 3).unwrap();
        assert!(read_all(&values).unwrap() == (0..n).map(|v| v * 3).collect::<Vec<_>>());

        // sparse updates in place in blocks 1, 5 and the last, then a full read
        let mut rw = PagedValues::<u64>::open(values.path()).unwrap();
        let touched = [9000u64, 9001, 45_000, n - 1];
        for &v in &touched {
            assert_eq!(rw.get(v).unwrap(), v * 3);
            rw.set(v, &7).unwrap();
        }
        rw.close(values.bytes()).unwrap();
        let expect: Vec<u64> = (0..n).map(|v| if touched.contains(&v) { 7 } else { v * 3 }).collect();
        let registered = verify::checks_for_path(values.path()).expect("the updated file is registered");
        let actual = outcore_io::hash_file_blocks(values.path(), PAGED_WINDOW as u64).unwrap();
        assert_eq!(registered.hashes(), &actual.blocks[..], "registered hashes are the file's");
        assert!(read_all(&values).unwrap() == expect, "a block changed in place reads back under its new hash");

        // a flipped byte in block 6 of a file not yet read is an error
        // naming the file and the block, for the sequential reader and for
        // the in-place window (which checks every block it loads)
        let (values, _) = ValueFile::create(dir.path().join("values2"), n, |v| v * 3).unwrap();
        flip(values.path(), 6 * 65536 + 100);
        let err = match read_all(&values) {
            Ok(_) => panic!("a damaged vertex file read without an error"),
            Err(e) => e.to_string(),
        };
        assert!(err.contains("values") && err.contains("checksum mismatch in block 6"), "{err}");
        let mut rw = PagedValues::<u64>::open(values.path()).unwrap();
        assert_eq!(rw.get(10).unwrap(), 30, "an undamaged block still reads");
        let err = rw.get(6 * 8192 + 3).unwrap_err().to_string();
        assert!(err.contains("checksum mismatch in block 6"), "{err}");
    }
}
