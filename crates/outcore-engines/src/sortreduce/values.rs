//! Dense vertex files and the lazy activation of a superstep's update log
//! (BigSparse Algorithm 3, last loop, evaluated just in time as section
//! 4.3 describes): the next superstep's active vertices are computed from
//! the log and the vertex file while the edges are being read, and the
//! new values are written on the way.
//!
//! A log that touches most vertices (or a program that finalizes every
//! vertex) rewrites the vertex file sequentially; a sparse one updates the
//! pages it touches in place, in increasing order.

use super::run::{Record, Run, RunReader};
use super::source::{DenseSource, VertexSource};
use super::{Program, VALUE_CHUNK_BYTES};
use outcore_io::{open_maybe_direct, read_full_at, AlignedBuf, IoContext, SeqWriter, DIRECT_ALIGN};
use outcore_store::StoreError;
use std::marker::PhantomData;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// One value per vertex, in vertex order, in a file of the engine's work area.
pub struct ValueFile<S> {
    path: PathBuf,
    vertices: u64,
    _s: PhantomData<S>,
}

impl<S: Record> ValueFile<S> {
    pub(crate) fn create(path: PathBuf, vertices: u64, mut init: impl FnMut(u64) -> S) -> Result<(Self, u64), StoreError> {
        let mut w = SeqWriter::scratch(&path, VALUE_CHUNK_BYTES)?;
        let mut buf = Vec::with_capacity(64 << 10);
        for v in 0..vertices {
            buf.extend_from_slice(bytemuck::bytes_of(&init(v)));
            if buf.len() >= 60 << 10 {
                w.write_bytes(&buf)?;
                buf.clear();
            }
        }
        w.write_bytes(&buf)?;
        let bytes = w.finish()?.bytes;
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

/// Positioned read-modify-write of a vertex file through a 64 KiB window.
struct PagedValues<S> {
    file: std::fs::File,
    path: PathBuf,
    window: AlignedBuf,
    start: u64,
    valid: usize,
    dirty: bool,
    bytes_read: u64,
    bytes_written: u64,
    _s: PhantomData<S>,
}

const PAGED_WINDOW: usize = 64 << 10;

impl<S: Record> PagedValues<S> {
    fn open(path: &Path) -> Result<Self, StoreError> {
        let (file, _) = open_maybe_direct(path, std::fs::OpenOptions::new().read(true).write(true)).ctx(path, "open")?;
        Ok(PagedValues {
            file,
            path: path.to_path_buf(),
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
            self.start = lo / DIRECT_ALIGN as u64 * DIRECT_ALIGN as u64;
            let n = read_full_at(&self.file, &mut self.window, PAGED_WINDOW, self.start)
                .ctx(&self.path, &format!("read at byte {}", self.start))?;
            self.valid = n;
            self.bytes_read += n as u64;
            if lo + size > self.start + n as u64 {
                return Err(StoreError::invalid(&self.path, format!("vertex file ends before byte {}", lo + size)));
            }
        }
        Ok((lo - self.start) as usize)
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
                out: SeqWriter::scratch(&tmp, VALUE_CHUNK_BYTES)?,
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
                self.stats.bytes_written += s.bytes;
                self.stats.bytes_read += self.values.bytes();
                if let Some(&(v, _)) = self.log.head() {
                    return Err(self.bad_update(v));
                }
                std::fs::rename(&tmp, self.values.path()).ctx(&tmp, "rename")?;
            }
            Mode::InPlace(mut rw) => {
                rw.flush()?;
                rw.file.set_len(self.values.bytes()).ctx(&rw.path, "truncate")?;
                self.stats.bytes_read += rw.bytes_read;
                self.stats.bytes_written += rw.bytes_written;
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
