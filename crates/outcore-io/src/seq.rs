//! Sequential file streams that keep the page cache out of the budget.
//!
//! [`SeqReader`] reads a file front to back in aligned chunks on a
//! background thread (read-ahead of one chunk); [`SeqWriter`] fills aligned
//! chunks and a background thread writes them while the next one fills,
//! hashing each block on the way. Both use O_DIRECT where the file system
//! accepts it (tmpfs does not) and otherwise drop the pages they touched.

use crate::{AlignedBuf, BlockHasher, BlockHashes, BlockSplitter, IoContext, IoError};
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::thread::JoinHandle;

/// Alignment of offsets, lengths and buffers for O_DIRECT.
pub const DIRECT_ALIGN: usize = 4096;

/// Open with `opts` plus O_DIRECT, or without it where the file system
/// refuses it (tmpfs); the flag says which.
pub fn open_maybe_direct(path: &Path, opts: &OpenOptions) -> io::Result<(File, bool)> {
    let mut direct = opts.clone();
    direct.custom_flags(libc::O_DIRECT);
    match direct.open(path) {
        Ok(f) => Ok((f, true)),
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => Ok((opts.open(path)?, false)),
        Err(e) => Err(e),
    }
}

/// Drop a file range from the page cache (buffered reads of files that
/// refused O_DIRECT).
pub fn drop_cached(file: &File, offset: u64, len: u64) {
    // SAFETY: an advice call on an open descriptor; no memory is passed.
    unsafe {
        libc::posix_fadvise(file.as_raw_fd(), offset as i64, len as i64, libc::POSIX_FADV_DONTNEED);
    }
}

/// Read up to `want` bytes at `offset` into `page` (positioned reads, for
/// O_DIRECT files too); fewer only at end of file. Returns the bytes read.
pub fn read_full_at(file: &File, page: &mut AlignedBuf, want: usize, offset: u64) -> std::io::Result<usize> {
    page.set_len(0);
    let mut n = 0;
    while n < want {
        match file.read_at(&mut page.spare()[n..want], offset + n as u64) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    page.set_len(n);
    Ok(n)
}

/// What the writer thread hands back: the file, whether it is O_DIRECT,
/// the block hashes, and the bytes written.
type WriterEnd = (File, bool, BlockHasher, u64, Option<PageSumWriter>);

/// What a [`SeqReader`] holds beside its chunks: its read-ahead thread's
/// handle and closure, the two channels the chunks pass through (about
/// 700 bytes each), its paths, and what waiting on a channel allocates.
/// Measured at about 1,950 bytes in all (tests/seq_charges.rs).
pub const SEQ_READER_BOOKKEEPING: u64 = 4 << 10;

/// The chunk [`SeqReader::for_each_u64`] reads in.
const FOR_EACH_CHUNK: usize = 1 << 20;

/// Reads a whole file sequentially in chunks, one chunk ahead.
pub struct SeqReader {
    path: PathBuf,
    len: u64,
    /// Where the reads start (0 unless opened by [`SeqReader::open_from`]).
    first_byte: u64,
    direct: bool,
    filled: Receiver<Result<AlignedBuf, IoError>>,
    recycle: Option<SyncSender<AlignedBuf>>,
    current: Option<AlignedBuf>,
    pos: usize,
    consumed: u64,
    thread: Option<JoinHandle<()>>,
}

impl SeqReader {
    /// What [`SeqReader::for_each_u64`] holds while it reads.
    pub fn for_each_u64_bytes() -> u64 {
        Self::buffer_bytes(FOR_EACH_CHUNK)
    }

    /// What a reader opened with `chunk_bytes` holds: two aligned chunks
    /// ([`AlignedBuf::held_bytes`]: each rounded up to [`DIRECT_ALIGN`],
    /// and an alignment more) and [`SEQ_READER_BOOKKEEPING`].
    pub const fn buffer_bytes(chunk_bytes: usize) -> u64 {
        2 * AlignedBuf::held_bytes(chunk_bytes, DIRECT_ALIGN) + SEQ_READER_BOOKKEEPING
    }

    /// Open `path`; memory used is two chunks of `chunk_bytes`
    /// ([`SeqReader::buffer_bytes`]). A file whose block hashes are
    /// registered ([`crate::verify`]) is checked.
    pub fn open(path: &Path, chunk_bytes: usize) -> Result<Self, IoError> {
        Self::open_checked(path, chunk_bytes, true)
    }

    /// Open `path` without checking it against registered hashes: for
    /// what computes hashes itself ([`crate::hash_file_blocks`]).
    pub fn open_unchecked(path: &Path, chunk_bytes: usize) -> Result<Self, IoError> {
        Self::open_checked(path, chunk_bytes, false)
    }

    /// [`SeqReader::open`], reading from byte `from` rounded down to
    /// [`DIRECT_ALIGN`] ([`SeqReader::first_byte`]) rather than from the
    /// start: one of several readers of parts of a file.
    pub fn open_from(path: &Path, chunk_bytes: usize, from: u64) -> Result<Self, IoError> {
        Self::open_at(path, chunk_bytes, true, from / DIRECT_ALIGN as u64 * DIRECT_ALIGN as u64)
    }

    fn open_checked(path: &Path, chunk_bytes: usize, checked: bool) -> Result<Self, IoError> {
        Self::open_at(path, chunk_bytes, checked, 0)
    }

    fn open_at(path: &Path, chunk_bytes: usize, checked: bool, first_byte: u64) -> Result<Self, IoError> {
        let mut opts = OpenOptions::new();
        opts.read(true);
        let (file, direct) = open_maybe_direct(path, &opts).ctx(path, "open")?;
        let len = file.metadata().ctx(path, "stat")?.len();
        let chunk = AlignedBuf::rounded(chunk_bytes, DIRECT_ALIGN);
        let (fill_tx, fill_rx) = sync_channel(2);
        let (recycle_tx, recycle_rx) = sync_channel::<AlignedBuf>(2);
        recycle_tx.send(AlignedBuf::new(chunk, DIRECT_ALIGN)).unwrap();
        recycle_tx.send(AlignedBuf::new(chunk, DIRECT_ALIGN)).unwrap();
        let thread_path = path.to_path_buf();
        let checks = if checked { crate::verify::checks_for(&file) } else { None };
        let thread = std::thread::spawn(move || read_ahead(file, direct, thread_path, checks, first_byte, fill_tx, recycle_rx));
        Ok(SeqReader {
            path: path.to_path_buf(),
            len,
            first_byte,
            direct,
            filled: fill_rx,
            recycle: Some(recycle_tx),
            current: None,
            pos: 0,
            consumed: 0,
            thread: Some(thread),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
    /// File length in bytes at open.
    pub fn len(&self) -> u64 {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The byte the first chunk starts at.
    pub fn first_byte(&self) -> u64 {
        self.first_byte
    }
    /// Bytes handed out so far.
    pub fn position(&self) -> u64 {
        self.consumed
    }
    /// Whether O_DIRECT is in use.
    pub fn is_direct(&self) -> bool {
        self.direct
    }

    fn ensure_current(&mut self) -> Result<bool, IoError> {
        if let Some(buf) = &self.current {
            if self.pos < buf.len() {
                return Ok(true);
            }
            let used = self.current.take().unwrap();
            if let Some(tx) = &self.recycle {
                let _ = tx.send(used);
            }
        }
        match self.filled.recv() {
            Ok(Ok(buf)) => {
                self.current = Some(buf);
                self.pos = 0;
                Ok(true)
            }
            Ok(Err(e)) => Err(e),
            Err(_) => Ok(false),
        }
    }

    /// The next unread bytes (at most one chunk), or `None` at end of file.
    pub fn next_chunk(&mut self) -> Result<Option<&[u8]>, IoError> {
        crate::staging::check_interrupt(&self.path)?;
        if !self.ensure_current()? {
            return Ok(None);
        }
        let buf = self.current.as_ref().unwrap();
        let slice = &buf[self.pos..];
        self.pos = buf.len();
        self.consumed += slice.len() as u64;
        Ok(Some(slice))
    }
}

/// The reader's thread: reads chunk after chunk into recycled buffers and,
/// for a file whose block hashes are registered, checks each block before
/// the chunk holding it is handed on ([`crate::verify`]).
fn read_ahead(
    file: File,
    direct: bool,
    path: PathBuf,
    checks: Option<std::sync::Arc<crate::verify::FileChecks>>,
    first_byte: u64,
    filled: SyncSender<Result<AlignedBuf, IoError>>,
    recycle: Receiver<AlignedBuf>,
) {
    let mut offset = first_byte;
    while let Ok(mut buf) = recycle.recv() {
        // reads end at multiples of the chunk size, so that a reader opened
        // within the file (whose first read is shorter) reads the same
        // chunks as one from its start: the registered blocks (1 MiB, the
        // chunk size) then lie whole in a chunk and are hashed from it,
        // not read a second time to be checked
        let cap = buf.capacity() - (offset % buf.capacity() as u64) as usize;
        if let Some(checks) = &checks {
            // the blocks this chunk holds only part of are checked first,
            // read through the chunk's own buffer (the ones it holds whole
            // are hashed from it below)
            if let Err(e) = check_blocks_beyond(checks, &file, offset, cap, &mut buf) {
                let _ = filled.send(Err(e));
                return;
            }
        }
        let mut n = 0usize;
        let mut eof = false;
        while n < cap {
            match file.read_at(&mut buf.spare()[n..cap], offset + n as u64) {
                Ok(0) => {
                    eof = true;
                    break;
                }
                Ok(k) => {
                    n += k;
                    if direct && !n.is_multiple_of(DIRECT_ALIGN) {
                        eof = true; // a short unaligned O_DIRECT read only happens at end of file
                        break;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    let _ = filled.send(Err(IoError::new(&path, format!("read at byte {}", offset + n as u64), e)));
                    return;
                }
            }
        }
        if !direct && n > 0 {
            drop_cached(&file, offset, n as u64);
        }
        buf.set_len(n);
        if let Some(checks) = &checks {
            if let Err(e) = checks.check_read(&file, offset, &buf) {
                let _ = filled.send(Err(e));
                return;
            }
        }
        offset += n as u64;
        if n > 0 && filled.send(Ok(buf)).is_err() {
            return;
        }
        if eof || n == 0 {
            return;
        }
    }
}

/// Check, through `buf`, the blocks of `checks` that bytes
/// `offset..offset + cap` of `file` (a chunk about to be read into `buf`)
/// reach into but do not hold whole, unless checked already.
fn check_blocks_beyond(
    checks: &crate::verify::FileChecks,
    file: &File,
    offset: u64,
    cap: usize,
    buf: &mut AlignedBuf,
) -> Result<(), IoError> {
    let end = offset + cap as u64;
    let (first, last) = (checks.block_of(offset), checks.block_of(end - 1).min(checks.blocks().saturating_sub(1)));
    for b in first..=last {
        let (start, stop) = checks.block_range(b);
        if start < offset || stop > end {
            checks.verify_block_through(file, b, buf)?;
        }
    }
    Ok(())
}

impl SeqReader {
    /// The next `W` bytes (a fixed-width value, which may straddle two
    /// chunks); `None` at the end of the file, an error when the file ends
    /// inside a value.
    #[inline]
    pub fn next_word<const W: usize>(&mut self) -> Result<Option<[u8; W]>, IoError> {
        // the common case: the value lies inside the current chunk
        if let Some(buf) = self.current.as_ref() {
            if let Some(bytes) = buf.get(self.pos..self.pos + W) {
                let word: [u8; W] = bytes.try_into().expect("a slice of W bytes");
                self.pos += W;
                self.consumed += W as u64;
                return Ok(Some(word));
            }
        }
        let mut word = [0u8; W];
        let mut have = 0;
        while have < W {
            let exhausted = self.current.as_ref().is_none_or(|b| self.pos >= b.len());
            if exhausted {
                crate::staging::check_interrupt(&self.path)?;
            }
            if !self.ensure_current()? {
                if have == 0 {
                    return Ok(None);
                }
                let why = format!("{have} trailing bytes after the last {W}-byte value");
                return Err(IoError::new(&self.path, "read", io::Error::other(why)));
            }
            let buf = self.current.as_ref().unwrap();
            let take = (W - have).min(buf.len() - self.pos);
            word[have..have + take].copy_from_slice(&buf[self.pos..self.pos + take]);
            self.pos += take;
            self.consumed += take as u64;
            have += take;
        }
        Ok(Some(word))
    }

    /// Read a whole file of little-endian u64s, calling `f` on each.
    pub fn for_each_u64(path: &Path, mut f: impl FnMut(u64) -> Result<(), IoError>) -> Result<(), IoError> {
        let mut reader = SeqReader::open(path, FOR_EACH_CHUNK)?;
        while let Some(word) = reader.next_word::<8>()? {
            f(u64::from_le_bytes(word))?;
        }
        Ok(())
    }
}

impl Read for SeqReader {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if !self.ensure_current().map_err(|e| io::Error::other(e.to_string()))? {
            return Ok(0);
        }
        let buf = self.current.as_ref().unwrap();
        let n = (buf.len() - self.pos).min(out.len());
        out[..n].copy_from_slice(&buf[self.pos..self.pos + n]);
        self.pos += n;
        self.consumed += n as u64;
        Ok(n)
    }
}

impl Drop for SeqReader {
    fn drop(&mut self) {
        self.recycle = None;
        // Unblock the thread if it waits to hand over a chunk.
        while self.filled.try_recv().is_ok() {}
        drop(std::mem::replace(&mut self.filled, sync_channel(0).1));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// What a finished [`SeqWriter`] wrote.
#[derive(Clone, Debug)]
pub struct WriteSummary {
    pub path: PathBuf,
    pub bytes: u64,
    pub hashes: BlockHashes,
    /// The page checksum file written beside it
    /// ([`SeqWriter::create_with_page_sums`]), if any.
    pub page_sums: Option<Box<WriteSummary>>,
}

impl WriteSummary {
    /// The file's name, without its directory.
    pub fn file_name(&self) -> String {
        self.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
    }
    /// This file's summary, then its page checksum file's, if any.
    pub fn with_page_sums(&self) -> impl Iterator<Item = &WriteSummary> {
        std::iter::once(self).chain(self.page_sums.as_deref())
    }
}

/// Writes a file sequentially; a background thread writes and hashes full
/// chunks while the caller fills the next one.
pub struct SeqWriter {
    path: PathBuf,
    chunk: usize,
    current: AlignedBuf,
    full: Option<SyncSender<AlignedBuf>>,
    empty: Receiver<Result<AlignedBuf, IoError>>,
    thread: Option<JoinHandle<Result<WriterEnd, IoError>>>,
    written: u64,
    /// fsync at finish (not for scratch files that die with the run).
    durable: bool,
}

impl SeqWriter {
    /// Create (or truncate) `path`; memory used is three chunks of `chunk_bytes`.
    pub fn create(path: &Path, chunk_bytes: usize, block_bytes: u64) -> Result<Self, IoError> {
        Self::create_inner(path, chunk_bytes, block_bytes, None)
    }

    /// [`SeqWriter::create`], and beside it the file `sums` (created or
    /// truncated) of the xxh3-64 of every [`PAGE_BYTES`] page of `path`,
    /// u64 LE each (one, of no bytes, for an empty file): checksums that a
    /// random reader checks a page against without reading the rest of a
    /// checksum block (README "Every read is checked"). Costs a chunk of
    /// 64 KiB beside this writer's three.
    pub fn create_with_page_sums(path: &Path, chunk_bytes: usize, block_bytes: u64, sums: &Path) -> Result<Self, IoError> {
        Self::create_inner(path, chunk_bytes, block_bytes, Some(PageSumWriter::create(sums, block_bytes)?))
    }

    fn create_inner(path: &Path, chunk_bytes: usize, block_bytes: u64, pages: Option<PageSumWriter>) -> Result<Self, IoError> {
        let mut opts = OpenOptions::new();
        opts.write(true).create(true).truncate(true);
        let (file, direct) = open_maybe_direct(path, &opts).ctx(path, "create")?;
        let chunk = AlignedBuf::rounded(chunk_bytes, DIRECT_ALIGN);
        let (full_tx, full_rx) = sync_channel::<AlignedBuf>(1);
        let (empty_tx, empty_rx) = sync_channel(2);
        empty_tx.send(Ok(AlignedBuf::new(chunk, DIRECT_ALIGN))).unwrap();
        let thread_path = path.to_path_buf();
        let thread = std::thread::spawn(move || write_behind(file, direct, thread_path, block_bytes, pages, full_rx, empty_tx));
        Ok(SeqWriter {
            path: path.to_path_buf(),
            chunk,
            current: AlignedBuf::new(chunk, DIRECT_ALIGN),
            full: Some(full_tx),
            empty: empty_rx,
            thread: Some(thread),
            written: 0,
            durable: true,
        })
    }

    /// Like [`SeqWriter::create`], for a scratch file: no fsync at finish.
    pub fn scratch(path: &Path, chunk_bytes: usize) -> Result<Self, IoError> {
        Self::scratch_blocks(path, chunk_bytes, crate::CHECKSUM_BLOCK_BYTES)
    }

    /// A scratch file hashed in blocks of `block_bytes` (for files that are
    /// then changed in place a block at a time).
    pub fn scratch_blocks(path: &Path, chunk_bytes: usize, block_bytes: u64) -> Result<Self, IoError> {
        let mut w = Self::create(path, chunk_bytes, block_bytes)?;
        w.durable = false;
        Ok(w)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
    /// Bytes accepted so far (the file offset of the next byte).
    pub fn position(&self) -> u64 {
        self.written
    }

    fn flush_chunk(&mut self) -> Result<(), IoError> {
        crate::staging::check_interrupt(&self.path)?;
        let next = match self.empty.recv() {
            Ok(Ok(buf)) => buf,
            Ok(Err(e)) => return Err(e),
            Err(_) => return Err(self.thread_error()),
        };
        let full = std::mem::replace(&mut self.current, next);
        self.current.set_len(0);
        if self.full.as_ref().unwrap().send(full).is_err() {
            return Err(self.thread_error());
        }
        Ok(())
    }

    fn thread_error(&mut self) -> IoError {
        match self.thread.take().map(|t| t.join()) {
            Some(Ok(Err(e))) => e,
            _ => IoError::new(&self.path, "write", io::Error::other("writer thread stopped")),
        }
    }

    /// Append bytes.
    pub fn write_bytes(&mut self, mut data: &[u8]) -> Result<(), IoError> {
        while !data.is_empty() {
            let len = self.current.len();
            let take = (self.chunk - len).min(data.len());
            self.current.set_len(len + take);
            self.current[len..len + take].copy_from_slice(&data[..take]);
            data = &data[take..];
            self.written += take as u64;
            if self.current.len() == self.chunk {
                self.flush_chunk()?;
            }
        }
        Ok(())
    }

    /// Write the tail, fsync, and return the size and checksums.
    pub fn finish(mut self) -> Result<WriteSummary, IoError> {
        let tail = std::mem::replace(&mut self.current, AlignedBuf::new(DIRECT_ALIGN, DIRECT_ALIGN));
        if !tail.is_empty() && self.full.as_ref().unwrap().send(tail).is_err() {
            return Err(self.thread_error());
        }
        self.full = None;
        let (file, _direct, hasher, bytes, pages) = match self.thread.take().unwrap().join() {
            Ok(r) => r?,
            Err(_) => return Err(IoError::new(&self.path, "write", io::Error::other("writer thread panicked"))),
        };
        file.set_len(bytes).ctx(&self.path, "truncate")?;
        if self.durable {
            file.sync_all().ctx(&self.path, "fsync")?;
        }
        let page_sums = match pages {
            Some(p) => Some(Box::new(p.finish()?)),
            None => None,
        };
        Ok(WriteSummary { path: self.path.clone(), bytes, hashes: hasher.finish(), page_sums })
    }
}

/// Bytes of a page that [`SeqWriter::create_with_page_sums`] checksums:
/// the traverse engine's cache block, the unit of a random read.
pub const PAGE_BYTES: usize = 4096;

/// Writes the page checksums of a file fed to it in order: xxh3-64 of
/// each [`PAGE_BYTES`] page, u64 LE, to a side file (README "Every read is
/// checked"). A [`SeqWriter`] made by [`SeqWriter::create_with_page_sums`]
/// feeds one as it writes; a file written before page checksums existed
/// is fed by a read of it.
pub struct PageSumWriter {
    side: SeqWriter,
    pages: BlockSplitter,
}

impl PageSumWriter {
    /// Create the side file `sums` (checksummed itself in `block_bytes`
    /// blocks); a chunk of 64 KiB.
    pub fn create(sums: &Path, block_bytes: u64) -> Result<Self, IoError> {
        Ok(PageSumWriter { side: SeqWriter::create(sums, 64 << 10, block_bytes)?, pages: BlockSplitter::new(PAGE_BYTES as u64) })
    }
    pub fn update(&mut self, data: &[u8]) -> Result<(), IoError> {
        let side = &mut self.side;
        self.pages.update(data, |h| side.write_bytes(&h.to_le_bytes()))
    }
    /// The last short page's hash (or the empty file's), then the side file's summary.
    pub fn finish(mut self) -> Result<WriteSummary, IoError> {
        let side = &mut self.side;
        self.pages.finish(|h| side.write_bytes(&h.to_le_bytes()))?;
        self.side.finish()
    }
}

fn write_behind(
    file: File,
    direct: bool,
    path: PathBuf,
    block_bytes: u64,
    mut pages: Option<PageSumWriter>,
    full: Receiver<AlignedBuf>,
    empty: SyncSender<Result<AlignedBuf, IoError>>,
) -> Result<WriterEnd, IoError> {
    let mut hasher = BlockHasher::new(block_bytes);
    let mut offset = 0u64;
    while let Ok(mut buf) = full.recv() {
        let len = buf.len();
        hasher.update(&buf);
        if let Some(p) = &mut pages {
            p.update(&buf)?;
        }
        // O_DIRECT needs whole aligned blocks: pad the tail, truncate later.
        let write_len = if direct { len.div_ceil(DIRECT_ALIGN) * DIRECT_ALIGN } else { len };
        if write_len > len {
            buf.set_len(write_len);
            buf[len..].fill(0);
        }
        let mut done = 0;
        while done < write_len {
            match file.write_at(&buf[done..write_len], offset + done as u64) {
                Ok(0) => {
                    let e = io::Error::from_raw_os_error(libc::ENOSPC);
                    return Err(IoError::new(&path, format!("write at byte {}", offset + done as u64), e));
                }
                Ok(k) => done += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(IoError::new(&path, format!("write at byte {}", offset + done as u64), e)),
            }
        }
        if !direct {
            // SAFETY: a write-back request on our own descriptor; no memory is passed.
            unsafe {
                libc::sync_file_range(
                    file.as_raw_fd(),
                    offset as i64,
                    len as i64,
                    libc::SYNC_FILE_RANGE_WRITE | libc::SYNC_FILE_RANGE_WAIT_AFTER,
                );
            }
            drop_cached(&file, offset, len as u64);
        }
        offset += len as u64;
        buf.set_len(0);
        if empty.send(Ok(buf)).is_err() {
            break;
        }
    }
    Ok((file, direct, hasher, offset, pages))
}

impl Write for SeqWriter {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.write_bytes(data).map_err(|e| io::Error::other(e.to_string()))?;
        Ok(data.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Drop for SeqWriter {
    fn drop(&mut self) {
        self.full = None;
        while self.empty.try_recv().is_ok() {}
        if let Some(t) = self.thread.take() {
            drop(std::mem::replace(&mut self.empty, sync_channel(0).1));
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xxhash_rust::xxh3::xxh3_64;

    #[test]
    fn page_sums_hold_the_hash_of_every_page() {
        let dir = tempfile::tempdir().unwrap();
        for len in [0usize, 1, 4096, 4097, 3 * 4096 + 1000, 70_000] {
            let (path, sums) = (dir.path().join("f"), dir.path().join("f.pages"));
            let data: Vec<u8> = (0..len).map(|i| (i * 131 % 253) as u8).collect();
            // a chunk that is not a multiple of a page, pieces of odd sizes
            let mut w = SeqWriter::create_with_page_sums(&path, 3 * 4096, 1 << 20, &sums).unwrap();
            for piece in data.chunks(777) {
                w.write_bytes(piece).unwrap();
            }
            let summary = w.finish().unwrap();
            assert_eq!(std::fs::read(&path).unwrap(), data);
            let want: Vec<u8> = if len == 0 {
                xxh3_64(&[]).to_le_bytes().to_vec()
            } else {
                data.chunks(PAGE_BYTES).flat_map(|p| xxh3_64(p).to_le_bytes()).collect()
            };
            assert_eq!(std::fs::read(&sums).unwrap(), want, "{len} bytes");
            let side = summary.page_sums.expect("the page checksum file's summary");
            assert_eq!((side.path.as_path(), side.bytes, side.hashes.file), (sums.as_path(), want.len() as u64, xxh3_64(&want)));
        }
        let plain = SeqWriter::create(&dir.path().join("g"), 4096, 1 << 20).unwrap();
        assert!(plain.finish().unwrap().page_sums.is_none());
    }

    #[test]
    fn write_then_read_round_trips_with_unaligned_tail() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let data: Vec<u8> = (0..1_000_003u32).map(|i| (i % 253) as u8).collect();
        let mut w = SeqWriter::create(&path, 64 << 10, 1 << 16).unwrap();
        for piece in data.chunks(77_777) {
            w.write_bytes(piece).unwrap();
        }
        let summary = w.finish().unwrap();
        assert_eq!(summary.bytes, data.len() as u64);
        assert_eq!(summary.hashes.file, xxh3_64(&data));
        assert_eq!(std::fs::metadata(&path).unwrap().len(), data.len() as u64);

        let mut r = SeqReader::open(&path, 64 << 10).unwrap();
        let mut back = Vec::new();
        while let Some(c) = r.next_chunk().unwrap() {
            back.extend_from_slice(c);
        }
        assert_eq!(back, data);

        let mut r = SeqReader::open(&path, 4096).unwrap();
        let mut via_read = Vec::new();
        r.read_to_end(&mut via_read).unwrap();
        assert_eq!(via_read, data);
    }

    #[test]
    fn empty_file_and_missing_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("empty");
        SeqWriter::create(&path, 4096, 4096).unwrap().finish().unwrap();
        let mut r = SeqReader::open(&path, 4096).unwrap();
        assert!(r.next_chunk().unwrap().is_none());
        let err = SeqReader::open(&dir.path().join("nope"), 4096).err().unwrap();
        assert!(err.to_string().contains("nope: open: No such file"), "{err}");
    }

    #[test]
    fn a_reader_opened_from_a_byte_reads_from_the_page_holding_it_in_the_chunks_of_a_whole_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let bytes: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        let mut w = SeqWriter::create(&path, 4096, 4096).unwrap();
        w.write_bytes(&bytes).unwrap();
        w.finish().unwrap();
        for (from, first) in [(0, 0), (4096, 4096), (10_000, 8192), (99_999, 98_304), (100_000, 98_304), (200_000, 196_608)] {
            let mut r = SeqReader::open_from(&path, 8192, from).unwrap();
            assert_eq!(r.first_byte(), first, "from {from}");
            let mut read = Vec::new();
            while let Some(chunk) = r.next_chunk().unwrap() {
                // every chunk ends where a reader from byte 0 ends one (at
                // a multiple of 8192, or at the end of the file): blocks
                // checked as they are read lie whole in a chunk
                let end = first as usize + read.len() + chunk.len();
                assert!(end.is_multiple_of(8192) || end == bytes.len(), "from {from}: a chunk ends at byte {end}");
                read.extend_from_slice(chunk);
            }
            assert_eq!(read, bytes[(first as usize).min(bytes.len())..], "from {from}");
        }
    }

    #[test]
    fn reader_dropped_early_does_not_hang() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let mut w = SeqWriter::create(&path, 4096, 4096).unwrap();
        w.write_bytes(&vec![1u8; 100_000]).unwrap();
        w.finish().unwrap();
        // the drop must return while the read-ahead thread still has chunks
        // to send; a hang fails the test after a bound instead of blocking it
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut r = SeqReader::open(&path, 4096).unwrap();
            let first = r.next_chunk().unwrap().map(|c| c.to_vec());
            drop(r);
            done.send(first).unwrap();
        });
        let first = finished.recv_timeout(std::time::Duration::from_secs(60)).expect("dropping a reader mid-file hung");
        let first = first.expect("a 100,000-byte file has a first chunk");
        assert_eq!(first.len(), 4096);
        assert!(first.iter().all(|&b| b == 1));
    }
}
