//! Checksums verified on first use. A store records the xxh3 of every
//! block of every file it holds (the manifest's `blocks`); opening the store
//! registers those hashes here, by file identity (device and inode, length
//! and modification time), and every reader of this crate then checks a
//! block the first time this process uses it, before its bytes are handed
//! to the caller: [`crate::SeqReader`] hashes each chunk as its read-ahead
//! thread brings it in (no extra reads when chunks and blocks coincide),
//! [`crate::BlockCache`] and other positioned readers read and hash a whole
//! block the first time any byte of it is asked for. A block that does not
//! match is an error naming the file, the block and its byte range; a file
//! nobody registered (a temporary file, an edge list) is read unchecked.
//!
//! Temporary files that are never changed once written (sort runs, the
//! interval engine's tables) are registered with the hashes their
//! [`crate::SeqWriter`] computed ([`register_written`]), so that reading
//! them back is checked the same way. A file changed in place must not be
//! registered: file times are too coarse to tell two versions apart.

use crate::{read_full_at, AlignedBuf, IoError, DIRECT_ALIGN};
use std::collections::HashMap;
use std::fs::{File, Metadata};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use xxhash_rust::xxh3::Xxh3;

/// Registered files beyond which those no longer on disk are forgotten.
const PRUNE_AT: usize = 4096;

/// Bytes read at a time when a block is verified by a read of its own
/// (small: it is not charged to a budget, like a thread's stack).
const VERIFY_READ_BYTES: usize = 64 << 10;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
struct FileKey {
    dev: u64,
    ino: u64,
}

/// What identifies one version of a file: the same inode rewritten in
/// place (a different length or modification time) is another file.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Version {
    len: u64,
    mtime_ns: i128,
}

fn identity(meta: &Metadata) -> (FileKey, Version) {
    (
        FileKey { dev: meta.dev(), ino: meta.ino() },
        Version { len: meta.len(), mtime_ns: meta.mtime() as i128 * 1_000_000_000 + meta.mtime_nsec() as i128 },
    )
}

/// The recorded block hashes of one file and which blocks this process has
/// checked so far.
pub struct FileChecks {
    path: PathBuf,
    version: Version,
    block_bytes: u64,
    hashes: Vec<u64>,
    verified: Vec<AtomicU64>,
}

fn registry() -> &'static Mutex<HashMap<FileKey, Arc<FileChecks>>> {
    static REGISTRY: OnceLock<Mutex<HashMap<FileKey, Arc<FileChecks>>>> = OnceLock::new();
    REGISTRY.get_or_init(Default::default)
}

/// Whether reads are checked. `OUTCORE_VERIFY_READS=0` turns checking off;
/// it exists so that benchmarks can measure what checking costs in the same
/// run, and is not meant for anything else.
pub fn verification_enabled() -> bool {
    static ENABLED: OnceLock<bool> = OnceLock::new();
    *ENABLED.get_or_init(|| std::env::var("OUTCORE_VERIFY_READS").map_or(true, |v| v != "0"))
}

/// The hash a block is recorded and checked with (xxh3, 64 bits).
pub fn block_hash(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// Register the recorded hashes of the file at `path` (whose metadata,
/// taken without following links, is `meta`): one hash per `block_bytes`
/// block, the last block possibly short. A file registered before with the
/// same identity and hashes keeps what this process verified of it.
pub fn register(path: &Path, meta: &Metadata, block_bytes: u64, hashes: Vec<u64>) {
    insert(path, meta, block_bytes, hashes);
}

/// [`register`] until the returned [`Registration`] is dropped, which puts
/// back what this one replaced (finer checksums held for as long as the
/// reader that charged their memory to its budget lives).
pub fn register_until_dropped(path: &Path, meta: &Metadata, block_bytes: u64, hashes: Vec<u64>) -> Registration {
    match insert(path, meta, block_bytes, hashes) {
        Some((key, ours, replaced)) => Registration { key, ours: Some(ours), replaced },
        None => Registration { key: identity(meta).0, ours: None, replaced: None },
    }
}

/// A registration made by [`register_until_dropped`]. Dropping it puts
/// back the checks it replaced (with what they had verified), or forgets
/// the file if there were none, unless something replaced it since.
pub struct Registration {
    key: FileKey,
    ours: Option<Arc<FileChecks>>,
    replaced: Option<Arc<FileChecks>>,
}

impl Drop for Registration {
    fn drop(&mut self) {
        let Some(ours) = self.ours.take() else { return };
        let mut map = registry().lock().unwrap_or_else(|p| p.into_inner());
        if map.get(&self.key).is_some_and(|c| Arc::ptr_eq(c, &ours)) {
            match self.replaced.take() {
                Some(before) => map.insert(self.key, before),
                None => map.remove(&self.key),
            };
        }
    }
}

/// Put the checks into the registry; returns the key, the new entry and
/// what it replaced, or `None` when nothing changed (a record that cannot
/// describe the file, or the same one again).
#[allow(clippy::type_complexity)]
fn insert(path: &Path, meta: &Metadata, block_bytes: u64, hashes: Vec<u64>) -> Option<(FileKey, Arc<FileChecks>, Option<Arc<FileChecks>>)> {
    if block_bytes == 0 || hashes.len() as u64 != meta.len().div_ceil(block_bytes).max(1) {
        // a record that cannot describe this file; the store's own checks report it
        return None;
    }
    let (key, version) = identity(meta);
    let mut map = registry().lock().unwrap_or_else(|p| p.into_inner());
    if let Some(old) = map.get(&key) {
        if old.version == version && old.block_bytes == block_bytes && old.hashes == hashes {
            return None;
        }
    }
    if map.len() >= PRUNE_AT {
        // temporary files come and go: forget the ones that are gone
        map.retain(|_, c| std::fs::symlink_metadata(&c.path).is_ok_and(|m| identity(&m).1 == c.version));
    }
    let words = hashes.len().div_ceil(64);
    let checks = Arc::new(FileChecks {
        path: path.to_path_buf(),
        version,
        block_bytes,
        hashes,
        verified: (0..words).map(|_| AtomicU64::new(0)).collect(),
    });
    let replaced = map.insert(key, checks.clone());
    Some((key, checks, replaced))
}

/// Register a file this process has just written through a
/// [`crate::SeqWriter`] and will not change, with the hashes it computed.
pub fn register_written(summary: &crate::WriteSummary) -> Result<(), IoError> {
    let meta = std::fs::symlink_metadata(&summary.path).map_err(|e| IoError::new(&summary.path, "stat", e))?;
    register(&summary.path, &meta, summary.hashes.block_bytes, summary.hashes.blocks.clone());
    Ok(())
}

/// The checks registered for the open file `file`, if any (and if checking is on).
pub fn checks_for(file: &File) -> Option<Arc<FileChecks>> {
    if !verification_enabled() {
        return None;
    }
    let meta = file.metadata().ok()?;
    let (key, version) = identity(&meta);
    let map = registry().lock().unwrap_or_else(|p| p.into_inner());
    map.get(&key).filter(|c| c.version == version).cloned()
}

/// The checks registered for the file at `path`, if any.
pub fn checks_for_path(path: &Path) -> Option<Arc<FileChecks>> {
    checks_for(&File::open(path).ok()?)
}

impl FileChecks {
    pub fn path(&self) -> &Path {
        &self.path
    }
    /// The recorded hash of each block.
    pub fn hashes(&self) -> &[u64] {
        &self.hashes
    }
    pub fn block_bytes(&self) -> u64 {
        self.block_bytes
    }
    /// Whether each checksum block fits in a cache frame of `frame_bytes`
    /// (page checksums): then a read checks the blocks it covers from its
    /// own frame, with no read of its own and no background pass.
    pub fn checked_from_frames_of(&self, frame_bytes: usize) -> bool {
        self.block_bytes <= frame_bytes as u64
    }
    /// Number of blocks.
    pub fn blocks(&self) -> u64 {
        self.hashes.len() as u64
    }
    /// The block holding byte `offset`.
    pub fn block_of(&self, offset: u64) -> u64 {
        offset / self.block_bytes
    }
    /// Bytes `start..end` of block `b`.
    pub fn block_range(&self, b: u64) -> (u64, u64) {
        let start = b * self.block_bytes;
        (start, (start + self.block_bytes).min(self.version.len))
    }

    pub fn is_verified(&self, b: u64) -> bool {
        self.verified.get((b / 64) as usize).is_some_and(|w| w.load(Ordering::Acquire) & (1 << (b % 64)) != 0)
    }

    fn mark(&self, b: u64) {
        self.verified[(b / 64) as usize].fetch_or(1 << (b % 64), Ordering::AcqRel);
    }

    fn mismatch(&self, b: u64) -> IoError {
        let (start, end) = self.block_range(b);
        IoError::new(
            &self.path,
            "verify",
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!(
                    "checksum mismatch in block {b} (bytes {start}..{end}): the file is damaged and nothing read from it was used (`outcore info --verify STORE` lists every damaged file)"
                ),
            ),
        )
    }

    /// Check `bytes`, the whole of block `b`, against its hash.
    pub fn check_block(&self, b: u64, bytes: &[u8]) -> Result<(), IoError> {
        let (start, end) = self.block_range(b);
        if b >= self.blocks() || bytes.len() as u64 != end - start || block_hash(bytes) != self.hashes[b as usize] {
            return Err(self.mismatch(b));
        }
        self.mark(b);
        Ok(())
    }

    /// Verify block `b` of `file` (this file, open) with a read of its own,
    /// unless this process already has.
    pub fn verify_block(&self, file: &File, b: u64) -> Result<(), IoError> {
        if self.is_verified(b) {
            return Ok(());
        }
        self.verify_block_through(file, b, &mut AlignedBuf::new(VERIFY_READ_BYTES, DIRECT_ALIGN))
    }

    /// [`FileChecks::verify_block`], reading the block in pieces of
    /// `buf`'s capacity (a multiple of [`DIRECT_ALIGN`]) through `buf`,
    /// whose contents it overwrites: a sequential reader checks a block
    /// larger than its chunk through the chunk it is about to fill, and so
    /// holds no more than its chunks.
    pub fn verify_block_through(&self, file: &File, b: u64, buf: &mut AlignedBuf) -> Result<(), IoError> {
        if self.is_verified(b) {
            return Ok(());
        }
        if b >= self.blocks() {
            return Err(self.mismatch(b));
        }
        let (start, end) = self.block_range(b);
        let piece = buf.capacity() / DIRECT_ALIGN * DIRECT_ALIGN;
        let mut hasher = Xxh3::new();
        let mut at = start;
        while at < end {
            let want = ((end - at) as usize).min(piece).div_ceil(DIRECT_ALIGN) * DIRECT_ALIGN;
            let got = read_full_at(file, buf, want, at).map_err(|e| IoError::new(&self.path, format!("read at byte {at}"), e))?;
            let used = (got as u64).min(end - at) as usize;
            if used == 0 {
                return Err(self.mismatch(b));
            }
            hasher.update(&buf[..used]);
            at += used as u64;
        }
        crate::drop_cached(file, start, end - start);
        if hasher.digest() != self.hashes[b as usize] {
            return Err(self.mismatch(b));
        }
        self.mark(b);
        Ok(())
    }

    /// Read block `b` of `file` whole into `buf` (capacity at least
    /// [`FileChecks::block_bytes`]) and check it; its length on success.
    pub fn read_block(&self, file: &File, b: u64, buf: &mut AlignedBuf) -> Result<usize, IoError> {
        if b >= self.blocks() {
            return Err(self.mismatch(b));
        }
        let (start, end) = self.block_range(b);
        let want = ((end - start) as usize).div_ceil(DIRECT_ALIGN) * DIRECT_ALIGN;
        let got = read_full_at(file, buf, want, start).map_err(|e| IoError::new(&self.path, format!("read at byte {start}"), e))?;
        crate::drop_cached(file, start, end - start);
        let len = (end - start) as usize;
        if got < len {
            return Err(self.mismatch(b));
        }
        self.check_block(b, &buf[..len])?;
        Ok(len)
    }

    /// Verify every block that bytes `lo..hi` of `file` touch.
    pub fn verify_range(&self, file: &File, lo: u64, hi: u64) -> Result<(), IoError> {
        if hi <= lo {
            return Ok(());
        }
        for b in self.block_of(lo)..=self.block_of(hi - 1) {
            self.verify_block(file, b)?;
        }
        Ok(())
    }

    /// Check the blocks that `bytes`, read from `file` at `offset`, touch:
    /// those it holds whole are hashed from `bytes`, the others are read
    /// and hashed on their own.
    pub fn check_read(&self, file: &File, offset: u64, bytes: &[u8]) -> Result<(), IoError> {
        if bytes.is_empty() {
            return Ok(());
        }
        let end = offset + bytes.len() as u64;
        for b in self.block_of(offset)..=self.block_of(end - 1) {
            if self.is_verified(b) {
                continue;
            }
            let (start, stop) = self.block_range(b);
            if start >= offset && stop <= end {
                self.check_block(b, &bytes[(start - offset) as usize..(stop - offset) as usize])?;
            } else {
                self.verify_block(file, b)?;
            }
        }
        Ok(())
    }
}

/// Bytes of memory a [`Background`] check of one file takes (a block's buffer).
pub const BACKGROUND_BYTES: u64 = BACKGROUND_CHUNK as u64;
const BACKGROUND_CHUNK: usize = 1 << 20;

/// A thread that checks a registered file's blocks from end to start, so
/// that they are checked ahead of random reads that would otherwise check
/// each one on the spot (a whole block read where a page was asked for).
/// It waits for [`Background::resume`], which a reader calls when its
/// first random read finds a block unchecked: a scan before that (hot
/// lists built by a scan) checks the blocks as it reads them, and the
/// thread then finds nothing left to do. It reads only the blocks no
/// reader of this process has checked yet, so a block a random read
/// reached first is not read again. It stops at the start of the file, at
/// the first damaged block (which the reader that asks for it then
/// reports), or when dropped.
pub struct Background {
    stop: Arc<std::sync::atomic::AtomicBool>,
    go: Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Background {
    /// A thread ready to check `path` (once resumed), unless every block of
    /// it is checked already.
    pub fn start(path: &Path, checks: &Arc<FileChecks>) -> Option<Background> {
        if (0..checks.blocks()).all(|b| checks.is_verified(b)) {
            return None;
        }
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let go = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (flag, start, path, checks) = (stop.clone(), go.clone(), path.to_path_buf(), checks.clone());
        let thread = std::thread::Builder::new()
            .name("outcore-verify".into())
            .spawn(move || {
                while !start.load(Ordering::Acquire) {
                    if flag.load(Ordering::Acquire) {
                        return;
                    }
                    std::thread::park();
                }
                let mut opts = std::fs::OpenOptions::new();
                opts.read(true);
                let Ok((file, _)) = crate::open_maybe_direct(&path, &opts) else { return };
                // a file changed since it was registered is not this one: its readers report it
                if file.metadata().map_or(true, |m| identity(&m).1 != checks.version) {
                    return;
                }
                let mut buf = (checks.block_bytes() <= BACKGROUND_CHUNK as u64).then(|| AlignedBuf::new(BACKGROUND_CHUNK, DIRECT_ALIGN));
                // from the end back: the random reads that need these
                // checks (sweeps in id order) go from the start forward,
                // so the two meet once instead of reading the same blocks
                // side by side
                for b in (0..checks.blocks()).rev() {
                    if flag.load(Ordering::Relaxed) {
                        return;
                    }
                    if checks.is_verified(b) {
                        continue;
                    }
                    // one read of the whole block where it fits the buffer, else in pieces
                    let checked = match &mut buf {
                        Some(buf) => checks.read_block(&file, b, buf).map(|_| ()),
                        None => checks.verify_block(&file, b),
                    };
                    if checked.is_err() {
                        return;
                    }
                }
            })
            .ok()?;
        Some(Background { stop, go, thread: Some(thread) })
    }

    /// Let the thread start checking (at once if it is already running).
    pub fn resume(&self) {
        if !self.go.swap(true, Ordering::AcqRel) {
            if let Some(t) = &self.thread {
                t.thread().unpark();
            }
        }
    }

    /// Wait until the thread has checked the whole file (or stopped at a damaged block).
    #[cfg(test)]
    fn finish(mut self) {
        self.resume();
        if let Some(t) = self.thread.take() {
            t.join().unwrap();
        }
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{hash_file_blocks, SeqReader};
    use std::io::Write;

    fn file_of(dir: &Path, name: &str, len: usize) -> PathBuf {
        let path = dir.join(name);
        let data: Vec<u8> = (0..len).map(|i| (i * 31 % 251) as u8).collect();
        std::fs::File::create(&path).unwrap().write_all(&data).unwrap();
        path
    }

    #[test]
    fn a_registration_until_dropped_puts_back_what_it_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = file_of(dir.path(), "f", 100_000);
        let meta = std::fs::symlink_metadata(&path).unwrap();
        let file = File::open(&path).unwrap();
        register(&path, &meta, 1 << 20, hash_file_blocks(&path, 1 << 20).unwrap().blocks);
        checks_for_path(&path).unwrap().verify_block(&file, 0).unwrap();
        let pages = hash_file_blocks(&path, 4096).unwrap().blocks;
        let held = register_until_dropped(&path, &meta, 4096, pages.clone());
        assert_eq!(checks_for_path(&path).unwrap().block_bytes(), 4096);
        // the same checks again change nothing, and their guard puts nothing back
        drop(register_until_dropped(&path, &meta, 4096, pages.clone()));
        assert_eq!(checks_for_path(&path).unwrap().block_bytes(), 4096);
        drop(held);
        let back = checks_for_path(&path).unwrap();
        assert_eq!(back.block_bytes(), 1 << 20);
        assert!(back.is_verified(0), "what the replaced checks had verified is kept");
        // a guard whose checks were replaced since leaves the new ones alone
        let held = register_until_dropped(&path, &meta, 4096, pages);
        register(&path, &meta, 8192, hash_file_blocks(&path, 8192).unwrap().blocks);
        drop(held);
        assert_eq!(checks_for_path(&path).unwrap().block_bytes(), 8192);
    }

    fn register_now(path: &Path, block: u64) {
        let h = hash_file_blocks(path, block).unwrap();
        register(path, &std::fs::symlink_metadata(path).unwrap(), block, h.blocks);
    }

    fn flip(path: &Path, at: u64) {
        use std::os::unix::fs::FileExt;
        let f = std::fs::OpenOptions::new().read(true).write(true).open(path).unwrap();
        let mut b = [0u8];
        f.read_exact_at(&mut b, at).unwrap();
        b[0] ^= 0x10;
        f.write_all_at(&b, at).unwrap();
    }

    fn read_all(path: &Path, chunk: usize) -> Result<Vec<u8>, IoError> {
        let mut r = SeqReader::open(path, chunk)?;
        let mut out = Vec::new();
        while let Some(c) = r.next_chunk()? {
            out.extend_from_slice(c);
        }
        Ok(out)
    }

    #[test]
    fn a_registered_file_reads_whole_and_checked_with_any_chunk() {
        let d = tempfile::tempdir().unwrap();
        let path = file_of(d.path(), "a", 300_000);
        register_now(&path, 64 << 10);
        let want = std::fs::read(&path).unwrap();
        for chunk in [4096, 64 << 10, 1 << 20] {
            assert_eq!(read_all(&path, chunk).unwrap(), want);
        }
        let c = checks_for_path(&path).unwrap();
        assert_eq!(c.blocks(), 5);
        assert!((0..5).all(|b| c.is_verified(b)));
    }

    #[test]
    fn a_flipped_bit_is_an_error_naming_block_and_bytes() {
        let d = tempfile::tempdir().unwrap();
        let path = file_of(d.path(), "b", 300_000);
        let h = hash_file_blocks(&path, 64 << 10).unwrap();
        flip(&path, 200_000);
        // the hashes of the file before the flip, registered for it as it is now
        register(&path, &std::fs::symlink_metadata(&path).unwrap(), 64 << 10, h.blocks);
        for chunk in [4096, 64 << 10, 1 << 20] {
            let err = read_all(&path, chunk).unwrap_err().to_string();
            assert!(err.contains("checksum mismatch in block 3 (bytes 196608..262144)"), "{err}");
            assert!(err.contains("/b: verify"), "{err}");
        }
        let c = checks_for_path(&path).unwrap();
        let file = File::open(&path).unwrap();
        assert!(c.verify_block(&file, 2).is_ok());
        assert!(c.verify_range(&file, 100_000, 250_000).is_err());
        assert!(!c.is_verified(3));
        // an unregistered file reads as it is
        let other = file_of(d.path(), "c", 10_000);
        assert_eq!(read_all(&other, 4096).unwrap().len(), 10_000);
        assert!(checks_for_path(&other).is_none());
    }

    #[test]
    fn a_rewritten_file_is_not_checked_against_old_hashes() {
        let d = tempfile::tempdir().unwrap();
        let path = file_of(d.path(), "e", 100_000);
        register_now(&path, 64 << 10);
        std::fs::File::options().append(true).open(&path).unwrap().write_all(b"more").unwrap();
        assert!(checks_for_path(&path).is_none());
        assert_eq!(read_all(&path, 4096).unwrap().len(), 100_004);
    }

    #[test]
    fn the_background_check_reads_what_no_reader_has_checked_and_stops_at_damage() {
        let d = tempfile::tempdir().unwrap();
        // blocks of 64 KiB, and of 2 MiB (beyond the background's buffer: checked in pieces)
        for (name, block, len) in [("f", 64u64 << 10, 300_000), ("g", 2 << 20, 5_000_000)] {
            let path = file_of(d.path(), name, len);
            register_now(&path, block);
            let c = checks_for_path(&path).unwrap();
            c.verify_block(&File::open(&path).unwrap(), 1).unwrap();
            // nothing is read until it is resumed
            let background = Background::start(&path, &c).unwrap();
            std::thread::sleep(std::time::Duration::from_millis(50));
            assert_eq!((0..c.blocks()).filter(|&b| c.is_verified(b)).count(), 1, "{name}: checked before resumed");
            background.finish();
            assert!((0..c.blocks()).all(|b| c.is_verified(b)), "{name}");
            // nothing left to check: no thread
            assert!(Background::start(&path, &c).is_none(), "{name}");
        }
        // a damaged block stops it there: the blocks after it are checked, it and those before are not
        let path = file_of(d.path(), "h", 300_000);
        let h = hash_file_blocks(&path, 64 << 10).unwrap();
        flip(&path, 140_000);
        register(&path, &std::fs::symlink_metadata(&path).unwrap(), 64 << 10, h.blocks);
        let c = checks_for_path(&path).unwrap();
        Background::start(&path, &c).unwrap().finish();
        assert!(c.is_verified(3) && c.is_verified(4), "blocks after the damage");
        assert!(!c.is_verified(0) && !c.is_verified(1) && !c.is_verified(2), "the damaged block and those before it");
    }
}
