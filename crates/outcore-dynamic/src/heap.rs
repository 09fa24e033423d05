//! A partition's heap: one file mapped with a large virtual reservation,
//! so it grows by extending the file and never moves; tables and edge
//! chunks are blocks at byte offsets in it. The kernel pages clean pages
//! in and out, so it may be far larger than memory. The part the last
//! commit can see (up to its end, rounded up to a page) is mapped private
//! (copy on write): pages written there are the process's own until
//! [`Heap::write_back`] copies them to the file. The rest, which only this
//! epoch's new blocks use, is mapped shared: nothing committed lives
//! there, so its pages may reach the file whenever the kernel likes, and
//! cost no copy.
//!
//! Crash consistency (thesis section 4.5.1 leaves it open), against a
//! killed process and against a power failure at any moment:
//! - every byte of a block that existed at the last commit is saved to the
//!   undo log before it is overwritten (blocks allocated since the last
//!   commit need no undo: the committed state does not reference them;
//!   blocks freed since the last commit are reused only after the next);
//! - the committed part of a heap file changes only in
//!   [`Heap::write_back`], which first makes the undo log durable
//!   (written, fsync'ed), then writes the dirty private pages in place
//!   (found in /proc/self/pagemap: a written page of a private mapping is
//!   an anonymous page) and fsyncs the heap (the shared part with it).
//!   Opening truncates a heap to its committed end, so whatever reached
//!   the shared part before a failure is dropped. A commit is a
//!   write-back of every heap, then `STATE`; the store writes back between
//!   commits too when its pages outgrow the memory budget;
//! - so after any failure the file differs from the last commit only in
//!   places whose old bytes are in a durable undo record. Opening replays
//!   the log backwards; the log is framed with a checksum, its epoch and a
//!   salt chosen at each reset, so a torn frame or one left from an
//!   earlier epoch or attempt ends it.

use crate::durable;
use crate::error::{DynError, Result};
use crate::rhh::{Table, Undo};
use memmap2::{MmapOptions, MmapRaw};
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// Virtual address space all heaps of one store reserve together (not
/// memory: pages exist only where files do). A process has 128 TiB of it
/// on x86-64 with 4-level paging, so about 30 stores can be open at once
/// in one process (tests, the Python package and MPI ranks sharing a
/// node do that).
pub const STORE_ADDRESS_SPACE: usize = 1 << 42;

/// Address space to reserve for each of `maps` mappings: a power of two,
/// at most 1 TiB, so that they fit in [`STORE_ADDRESS_SPACE`] together.
pub fn reserve_for(maps: usize) -> usize {
    let each = (STORE_ADDRESS_SPACE / maps.max(1)).min(1 << 40);
    1 << (usize::BITS - 1 - each.leading_zeros())
}
const PAGE: u64 = 4096;
/// Linux 5.14+; older kernels refuse it and the pages fault in one by one.
const MADV_POPULATE_WRITE: libc::c_int = 23;
/// Offsets below this are never allocated; 0 means "no block".
pub const HEAP_START: u64 = 4096;
/// Size of a new heap file, and the most it grows by at once.
const INITIAL_LEN: u64 = 1 << 20;
const GROW_STEP: u64 = 64 << 20;

pub struct Heap {
    path: PathBuf,
    file: File,
    map: MmapRaw,
    /// Bytes of the file.
    file_len: u64,
    /// Allocation frontier.
    pub end: u64,
    /// Free blocks by size, reusable now.
    free: HashMap<u64, Vec<u64>>,
    /// Blocks freed in this epoch that the last commit still references.
    pending: Vec<(u64, u64)>,
    /// The epoch being built (last commit + 1).
    pub epoch: u32,
    /// The committed end: blocks at or beyond it are new in this epoch.
    committed_end: u64,
    pub undo: UndoLog,
    /// Bytes of address space mapped: the most the heap can grow to.
    reserve: usize,
    /// Where the shared part of the mapping starts (page-aligned).
    shared_from: u64,
}

impl Heap {
    pub fn create(path: &Path, undo_path: &Path, reserve: usize) -> Result<Heap> {
        let file = durable::create_new(path)?;
        durable::set_len(&file, path, INITIAL_LEN)?;
        let map = map(&file, path, reserve)?;
        let undo = UndoLog::create(undo_path, 1)?;
        Heap {
            path: path.to_path_buf(),
            file,
            map,
            file_len: INITIAL_LEN,
            end: HEAP_START,
            free: HashMap::new(),
            pending: Vec::new(),
            epoch: 1,
            committed_end: HEAP_START,
            undo,
            reserve,
            shared_from: reserve as u64,
        }
        .bound()
    }

    fn bound(mut self) -> Result<Heap> {
        self.undo.heap = (self.map.as_ptr() as usize, self.reserve);
        self.place_boundary()?;
        Ok(self)
    }

    /// Map the committed part (up to the committed end, rounded up to a
    /// page) private and the rest shared. Called when the heap is opened
    /// and after each commit, when the pages that become private are on
    /// the disk and equal in the page cache and the mapping.
    fn place_boundary(&mut self) -> Result<()> {
        let boundary = self.committed_end.next_multiple_of(PAGE).min(self.reserve as u64);
        let (from, to, shared) = match boundary.cmp(&self.shared_from) {
            std::cmp::Ordering::Less => (boundary, self.shared_from, true),
            std::cmp::Ordering::Greater => (self.shared_from, boundary, false),
            std::cmp::Ordering::Equal => return Ok(()),
        };
        let flags = libc::MAP_FIXED | if shared { libc::MAP_SHARED } else { libc::MAP_PRIVATE | libc::MAP_NORESERVE };
        // Every address keeps meaning the same bytes: a private range that
        // becomes shared holds no private copies (none exist beyond the
        // committed end), and a shared range that becomes private was
        // synced by the commit that moved the boundary.
        // SAFETY: replaces pages [from, to) of this heap's own mapping (inside
        // its reservation, page-aligned) with the same file at the same offsets.
        let p = unsafe {
            libc::mmap(
                self.map.as_mut_ptr().add(from as usize) as *mut libc::c_void,
                (to - from) as usize,
                libc::PROT_READ | libc::PROT_WRITE,
                flags,
                self.file.as_raw_fd(),
                from as libc::off_t,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(DynError::io(&self.path, std::io::Error::last_os_error()));
        }
        self.shared_from = boundary;
        Ok(())
    }

    /// Open at the committed state `meta` (rolling back an interrupted epoch).
    pub fn open(path: &Path, undo_path: &Path, meta: &HeapMeta, epoch: u32, reserve: usize) -> Result<Heap> {
        let file = OpenOptions::new().read(true).write(true).open(path).map_err(|e| DynError::io(path, e))?;
        let len = file.metadata().map_err(|e| DynError::io(path, e))?.len();
        if len < meta.end {
            return Err(DynError::Corrupt(format!(
                "{}: {} bytes, but the last commit used {} (truncated?)",
                path.display(),
                len,
                meta.end
            )));
        }
        if len as usize > reserve {
            return Err(DynError::Corrupt(format!("{}: larger than the address space this store may map", path.display())));
        }
        // Roll back an interrupted epoch before anything maps the file.
        let mut undo = UndoLog::open_or_create(undo_path, epoch + 1)?;
        let restored = undo.roll_back(&file, path, len, epoch + 1)?;
        if restored > 0 {
            durable::sync(&file, path)?;
        }
        undo.reset(epoch + 1)?;
        // Blocks past the committed end hold what the interrupted epoch
        // wrote; new blocks there must start zeroed.
        let mut file_len = len;
        if len > meta.end {
            durable::set_len(&file, path, meta.end)?;
            file_len = meta.end;
        }
        let map = map(&file, path, reserve)?;
        let mut heap = Heap {
            path: path.to_path_buf(),
            file,
            map,
            file_len,
            end: meta.end,
            free: HashMap::new(),
            pending: Vec::new(),
            epoch: epoch + 1,
            committed_end: meta.end,
            undo,
            reserve,
            shared_from: reserve as u64,
        }
        .bound()?;
        for &(size, off) in &meta.free {
            heap.free.entry(size).or_default().push(off);
        }
        Ok(heap)
    }

    /// The address of `len` bytes at `off`, which must lie in the file.
    #[inline]
    fn ptr(&self, off: u64, len: u64) -> *mut u8 {
        assert!(off + len <= self.file_len, "{}: bytes {off}..{} beyond the file's {}", self.path.display(), off + len, self.file_len);
        // SAFETY: off + len <= file_len <= reserve, the length of the mapping.
        unsafe { self.map.as_mut_ptr().add(off as usize) }
    }

    /// The Robin Hood table of `cap` slots of `slot` bytes at `off`.
    ///
    /// # Safety
    /// The heap must outlive every use of the table (and of its copies),
    /// and only the thread that owns the heap may use it. The mapping
    /// itself never moves (the address space is reserved when the heap is
    /// opened) and the range is checked to lie in the file.
    #[inline]
    // SAFETY: an unsafe fn; its contract is the `# Safety` section above.
    pub unsafe fn table(&self, off: u64, cap: u64, slot: usize) -> Table {
        let p = self.ptr(off, Table::bytes(cap, slot));
        // SAFETY: the range lies in the file-backed part of the mapping,
        // which stays valid while the heap lives (the caller's promise).
        unsafe { Table::new(p, cap, slot) }
    }

    fn read<const N: usize>(&self, off: u64) -> [u8; N] {
        let p = self.ptr(off, N as u64);
        let mut out = [0u8; N];
        // SAFETY: `ptr` checked that N bytes at `off` lie in the mapping.
        unsafe { std::ptr::copy_nonoverlapping(p, out.as_mut_ptr(), N) };
        out
    }
    fn write(&mut self, off: u64, bytes: &[u8]) {
        let p = self.ptr(off, bytes.len() as u64);
        // SAFETY: `ptr` checked the range; `&mut self` excludes other writers.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len()) };
    }
    pub fn read_u8(&self, off: u64) -> u8 {
        self.read::<1>(off)[0]
    }
    pub fn read_u32(&self, off: u64) -> u32 {
        u32::from_le_bytes(self.read(off))
    }
    pub fn read_u64(&self, off: u64) -> u64 {
        u64::from_le_bytes(self.read(off))
    }
    pub fn write_u8(&mut self, off: u64, v: u8) {
        self.write(off, &[v]);
    }
    pub fn write_u32(&mut self, off: u64, v: u32) {
        self.write(off, &v.to_le_bytes());
    }
    pub fn write_u64(&mut self, off: u64, v: u64) {
        self.write(off, &v.to_le_bytes());
    }
    /// Save `len` bytes at `off` to the undo log before they change,
    /// unless the block is `fresh` (allocated in this epoch).
    pub fn save(&mut self, off: u64, len: u64, fresh: bool) {
        if !fresh {
            let p = self.ptr(off, len);
            // SAFETY: `ptr` checked the range; the slice lives for the
            // record call, which only copies it into the undo log's mapping.
            let bytes = unsafe { std::slice::from_raw_parts(p as *const u8, len as usize) };
            self.undo.record(p as usize, bytes);
        }
    }
    /// Ask the CPU to fetch the bytes at `off` (a hint).
    #[inline]
    pub fn prefetch(&self, off: u64) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a prefetch is a hint and never faults; the address is in the mapping.
        unsafe {
            std::arch::x86_64::_mm_prefetch(self.ptr(off, 1) as *const i8, std::arch::x86_64::_MM_HINT_T0)
        };
        #[cfg(not(target_arch = "x86_64"))]
        let _ = off;
    }

    /// Whether a block was allocated in this epoch (needs no undo).
    #[inline]
    pub fn fresh(&self, off: u64, block_epoch: u32) -> bool {
        off >= self.committed_end || block_epoch == self.epoch
    }

    /// Allocate `size` bytes (zeroed).
    pub fn alloc(&mut self, size: u64) -> Result<u64> {
        if let Some(off) = self.free.get_mut(&size).and_then(|v| v.pop()) {
            let p = self.ptr(off, size);
            // SAFETY: `ptr` checked that `size` bytes at `off` lie in the mapping.
            unsafe { std::ptr::write_bytes(p, 0, size as usize) };
            return Ok(off);
        }
        let off = self.end;
        let end = off + size;
        if end > self.file_len {
            let len = (end + GROW_STEP.min(self.file_len)).div_ceil(1 << 20) << 20;
            if len as usize > self.reserve {
                return Err(DynError::Full(format!(
                    "{}: this heap may hold at most {} MiB (a store maps at most {} GiB of address space, shared by its heaps)",
                    self.path.display(),
                    self.reserve >> 20,
                    STORE_ADDRESS_SPACE >> 30
                )));
            }
            durable::set_len(&self.file, &self.path, len)?;
            // Allocate the blocks now, in one extent, and fault the pages in
            // with one call: a write fault on a sparse page of a shared
            // mapping costs the file system a block allocation each. The
            // range is past the committed end, in the shared part.
            // SAFETY: fallocate on our own file descriptor; madvise on the
            // range just added to the file, inside the mapping (len <= reserve).
            unsafe {
                libc::fallocate(self.file.as_raw_fd(), 0, self.file_len as i64, (len - self.file_len) as i64);
                if self.file_len >= self.shared_from {
                    libc::madvise(
                        self.map.as_mut_ptr().add(self.file_len as usize) as *mut libc::c_void,
                        (len - self.file_len) as usize,
                        MADV_POPULATE_WRITE,
                    );
                }
            }
            self.file_len = len;
        }
        self.end = end;
        Ok(off)
    }

    /// Free a block; `fresh` = allocated in this epoch.
    pub fn free(&mut self, off: u64, size: u64, fresh: bool) {
        if fresh {
            self.free.entry(size).or_default().push(off);
        } else {
            self.pending.push((size, off));
        }
    }

    /// Undo target for writes into a block that the last commit references.
    pub fn undo_for(&mut self, fresh: bool) -> Option<&mut UndoLog> {
        if fresh {
            None
        } else {
            Some(&mut self.undo)
        }
    }

    /// Write the pages written since the last write-back to the file:
    /// the undo log made durable first, then every such page of the
    /// private part written in place, then (if `sync_heap`) the file
    /// synced, the shared part with it. The private copies are then dropped
    /// (the pages read from the file again). Without `sync_heap` (a
    /// write-back to free memory between commits) a heap with no such page
    /// does nothing. Returns the bytes written in place.
    pub fn write_back(&mut self, sync_heap: bool) -> Result<u64> {
        let len = self.end.min(self.file_len);
        let private = len.min(self.shared_from);
        let runs = dirty_runs(self.map.as_ptr(), private).map_err(|e| DynError::io(Path::new("/proc/self/pagemap"), e))?;
        if !sync_heap && runs.is_empty() {
            return Ok(0);
        }
        self.undo.sync()?;
        let mut written = 0;
        for &(start, n) in &runs {
            let n = n.min(private - start);
            // SAFETY: the run lies in [0, len), inside the file-backed part of
            // the mapping; `&mut self` excludes writers while it is read.
            let bytes = unsafe { std::slice::from_raw_parts(self.map.as_ptr().add(start as usize), n as usize) };
            durable::write_at(&self.file, &self.path, start, bytes)?;
            written += n;
        }
        if sync_heap && len > self.shared_from {
            durable::mapped_write(&self.path, self.shared_from, || {
                // SAFETY: [shared_from, len) lies in the file-backed part of the
                // mapping; `&mut self` excludes writers while it is copied.
                unsafe { std::slice::from_raw_parts(self.map.as_ptr().add(self.shared_from as usize), (len - self.shared_from) as usize) }
                    .to_vec()
            });
        }
        if sync_heap {
            durable::sync(&self.file, &self.path)?;
        }
        for &(start, n) in &runs {
            // SAFETY: dropping this process's private copies of pages of its
            // own mapping (page-aligned run inside it); the file now holds
            // the same bytes, and the pages fault in again from it.
            unsafe {
                libc::madvise(self.map.as_mut_ptr().add(start as usize) as *mut libc::c_void, n as usize, libc::MADV_DONTNEED);
            }
        }
        Ok(written)
    }

    /// State to persist with a commit (after [`Heap::write_back`]).
    pub fn meta(&self) -> HeapMeta {
        let mut free: Vec<(u64, u64)> = self.free.iter().flat_map(|(&s, v)| v.iter().map(move |&o| (s, o))).collect();
        free.extend(self.pending.iter().copied());
        free.sort_unstable();
        HeapMeta { end: self.end, free }
    }

    /// The commit of this epoch is durable: start the next one.
    pub fn committed(&mut self) -> Result<()> {
        for (size, off) in self.pending.drain(..) {
            self.free.entry(size).or_default().push(off);
        }
        self.epoch += 1;
        self.committed_end = self.end;
        self.place_boundary()?;
        self.undo.reset(self.epoch)
    }

    /// Write dirty pages back (see [`Heap::write_back`]) and drop the heap
    /// from memory and the page cache (the memory budget covers mapped
    /// pages too). Safe at any moment of an epoch: the undo log is durable
    /// before any page is written.
    pub fn release_pages(&mut self) -> Result<()> {
        self.write_back(true)?;
        // SAFETY: dropping the pages of our own mapping; none is this
        // process's own any more (written back just above), so they fault
        // in again from the file.
        unsafe {
            libc::madvise(self.map.as_mut_ptr() as *mut libc::c_void, self.file_len as usize, libc::MADV_DONTNEED);
        }
        outcore_io::drop_cached(&self.file, 0, self.file_len);
        self.undo.release_pages();
        Ok(())
    }

    pub fn bytes(&self) -> u64 {
        self.end
    }
    pub fn free_bytes(&self) -> u64 {
        self.free.iter().map(|(s, v)| s * v.len() as u64).sum::<u64>() + self.pending.iter().map(|p| p.0).sum::<u64>()
    }
}

/// A private (copy-on-write) mapping of `reserve` bytes of the file: what
/// the process writes stays its own until [`Heap::write_back`]. It is not
/// charged against the commit limit (MAP_NORESERVE): the reservation is
/// address space, and the pages written are bounded by the store's
/// resident limit, which writes them back.
fn map(file: &File, path: &Path, reserve: usize) -> Result<MmapRaw> {
    // This process changes the file only in write_back and open, through
    // the descriptor, with the same bytes the mapping holds; every access
    // to the mapping goes through raw pointers checked against its length.
    // SAFETY: the store's lock file excludes other writers of this file.
    let map = unsafe { MmapOptions::new().len(reserve).no_reserve_swap().map_copy(file) }.map_err(|e| {
        if e.raw_os_error() == Some(libc::ENOMEM) {
            DynError::io(
                path,
                std::io::Error::new(
                    e.kind(),
                    format!(
                        "no address space left to map {} MiB: this process has too many stores open (each reserves up to {} GiB of address space, not memory)",
                        reserve >> 20,
                        STORE_ADDRESS_SPACE >> 30
                    ),
                ),
            )
        } else {
            DynError::io(path, e)
        }
    })?;
    Ok(MmapRaw::from(map))
}

/// Page-aligned runs `(offset, bytes)` of the first `len` bytes of the
/// private mapping at `base` that this process has written (anonymous
/// pages, or swapped out), from /proc/self/pagemap: bit 63 present, 62
/// swapped, 61 a page of the file (not yet written).
fn dirty_runs(base: *const u8, len: u64) -> std::io::Result<Vec<(u64, u64)>> {
    // pagemap entries read at a time (a few in tests, so that they read several)
    const ENTRIES: u64 = if cfg!(test) { 16 } else { 1 << 16 };
    let pagemap = File::open("/proc/self/pagemap")?;
    let first_page = base as u64 / PAGE;
    let pages = len.div_ceil(PAGE);
    let mut runs: Vec<(u64, u64)> = Vec::new();
    let mut buf = vec![0u8; (pages.min(ENTRIES) * 8) as usize];
    let mut page = 0;
    while page < pages {
        let n = (pages - page).min(ENTRIES);
        let bytes = &mut buf[..(n * 8) as usize];
        pagemap.read_exact_at(bytes, (first_page + page) * 8)?;
        for (i, entry) in bytes.chunks_exact(8).enumerate() {
            let e = u64::from_le_bytes(entry.try_into().expect("8 bytes"));
            let written = (e >> 63 & 1 == 1 && e >> 61 & 1 == 0) || e >> 62 & 1 == 1;
            if written {
                let at = (page + i as u64) * PAGE;
                match runs.last_mut() {
                    Some((start, n)) if *start + *n == at => *n += PAGE,
                    _ => runs.push((at, PAGE)),
                }
            }
        }
        page += n;
    }
    Ok(runs)
}

/// What a commit records about a heap.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HeapMeta {
    pub end: u64,
    /// (size, offset) of free blocks.
    pub free: Vec<(u64, u64)>,
}

/// The undo log: frames, each written whole by one positioned write:
/// a 32-byte header `[magic: u32][epoch: u32][salt: u64][payload bytes:
/// u32][0: u32][xxh3 of the frame with this field zero: u64]`, then
/// records `[len: u32][0: u32][heap offset: u64][old bytes, padded to 8]`.
/// Frames follow each other from byte 0; the first that is short, torn,
/// of another epoch or of another salt (a frame an earlier attempt left
/// behind a truncation that did not reach the disk) ends the log.
pub struct UndoLog {
    path: PathBuf,
    file: File,
    /// The frame being filled: header space, then records.
    frame: Vec<u8>,
    /// Where the next frame goes.
    at: u64,
    epoch: u32,
    salt: u64,
    /// The address and length of the heap mapping the log protects.
    heap: (usize, usize),
    /// Bytes saved since the log was opened (all epochs).
    pub saved_bytes: u64,
    /// A frame that could not be written: the log is incomplete, so no
    /// page may be written back before the store is reopened.
    failed: Option<String>,
}

const UNDO_MAGIC: u32 = 0x4f44_4e55; // "UNDO"
const FRAME_HEADER: usize = 32;
/// A frame is written once its records reach this many bytes.
const FRAME_BYTES: usize = 64 << 10;
/// Longer saves are split into records of at most this many bytes.
const RECORD_MAX: usize = 32 << 10;
/// No frame is longer (longer ones are not this outcore's, and end the log).
const FRAME_MAX: usize = FRAME_HEADER + FRAME_BYTES + 16 + RECORD_MAX;

impl UndoLog {
    fn create(path: &Path, epoch: u32) -> Result<UndoLog> {
        let file = durable::create(path)?;
        let mut log = Self::with_file(path, file);
        log.reset(epoch)?;
        Ok(log)
    }

    fn open_or_create(path: &Path, epoch: u32) -> Result<UndoLog> {
        if !path.exists() {
            return Self::create(path, epoch);
        }
        let file = OpenOptions::new().read(true).write(true).open(path).map_err(|e| DynError::io(path, e))?;
        Ok(Self::with_file(path, file))
    }

    fn with_file(path: &Path, file: File) -> UndoLog {
        UndoLog {
            path: path.to_path_buf(),
            file,
            frame: vec![0; FRAME_HEADER],
            at: 0,
            epoch: 0,
            salt: 0,
            heap: (0, 0),
            saved_bytes: 0,
            failed: None,
        }
    }

    /// The frames of the log that are whole, of `epoch` and of the first
    /// frame's salt, in order, as (offset, payload bytes).
    fn frames(&self, epoch: u32) -> Result<Vec<(u64, usize)>> {
        let io = |e| DynError::io(&self.path, e);
        let len = self.file.metadata().map_err(io)?.len();
        let mut frames = Vec::new();
        let (mut at, mut salt) = (0u64, None);
        let mut buf = Vec::new();
        while at + FRAME_HEADER as u64 <= len {
            let mut head = [0u8; FRAME_HEADER];
            self.file.read_exact_at(&mut head, at).map_err(io)?;
            let word = |i: usize| u32::from_le_bytes(head[i..i + 4].try_into().expect("4 bytes"));
            let frame_salt = u64::from_le_bytes(head[8..16].try_into().expect("8 bytes"));
            let payload = word(16) as usize;
            if word(0) != UNDO_MAGIC || word(4) != epoch || salt.is_some_and(|s| s != frame_salt) {
                break;
            }
            if payload > FRAME_MAX - FRAME_HEADER || at + (FRAME_HEADER + payload) as u64 > len {
                break;
            }
            buf.resize(FRAME_HEADER + payload, 0);
            self.file.read_exact_at(&mut buf, at).map_err(io)?;
            let sum = u64::from_le_bytes(buf[24..32].try_into().expect("8 bytes"));
            buf[24..32].fill(0);
            if xxhash_rust::xxh3::xxh3_64(&buf) != sum {
                break;
            }
            salt = Some(frame_salt);
            frames.push((at, payload));
            at += (FRAME_HEADER + payload) as u64;
        }
        Ok(frames)
    }

    /// Restore every record of `epoch` to the heap file, last first.
    /// Returns the count. A whole frame whose records do not fit the heap
    /// is a damaged store (an error), never written.
    fn roll_back(&mut self, heap: &File, heap_path: &Path, heap_len: u64, epoch: u32) -> Result<u64> {
        let frames = self.frames(epoch)?;
        let mut restored = 0;
        let mut payload = Vec::new();
        for &(at, n) in frames.iter().rev() {
            payload.resize(n, 0);
            self.file.read_exact_at(&mut payload, at + FRAME_HEADER as u64).map_err(|e| DynError::io(&self.path, e))?;
            let mut records = Vec::new();
            let mut p = 0;
            while p < n {
                let bad = || {
                    DynError::Corrupt(format!(
                        "{}: undo record at byte {} does not fit the frame or the heap",
                        self.path.display(),
                        at as usize + FRAME_HEADER + p
                    ))
                };
                if p + 16 > n {
                    return Err(bad());
                }
                let len = u32::from_le_bytes(payload[p..p + 4].try_into().expect("4 bytes")) as usize;
                let off = u64::from_le_bytes(payload[p + 8..p + 16].try_into().expect("8 bytes"));
                if len == 0 || len > n - p - 16 || off.checked_add(len as u64).is_none_or(|e| e > heap_len) {
                    return Err(bad());
                }
                records.push((off, p + 16, len));
                p += 16 + len.div_ceil(8) * 8;
            }
            for &(off, data, len) in records.iter().rev() {
                durable::write_at(heap, heap_path, off, &payload[data..data + len])?;
                restored += 1;
            }
        }
        Ok(restored)
    }

    /// Empty the log and start the records of `epoch` under a new salt.
    fn reset(&mut self, epoch: u32) -> Result<()> {
        durable::set_len(&self.file, &self.path, 0)?;
        self.frame.truncate(FRAME_HEADER);
        self.at = 0;
        self.epoch = epoch;
        self.salt = fresh_salt();
        self.failed = None;
        Ok(())
    }

    /// Write the frame being filled (not yet durable).
    fn write_frame(&mut self) -> Result<()> {
        if self.frame.len() == FRAME_HEADER {
            return Ok(());
        }
        let payload = (self.frame.len() - FRAME_HEADER) as u32;
        let f = &mut self.frame;
        f[0..4].copy_from_slice(&UNDO_MAGIC.to_le_bytes());
        f[4..8].copy_from_slice(&self.epoch.to_le_bytes());
        f[8..16].copy_from_slice(&self.salt.to_le_bytes());
        f[16..20].copy_from_slice(&payload.to_le_bytes());
        f[20..32].fill(0);
        let sum = xxhash_rust::xxh3::xxh3_64(f);
        f[24..32].copy_from_slice(&sum.to_le_bytes());
        durable::write_at(&self.file, &self.path, self.at, f)?;
        self.at += f.len() as u64;
        f.truncate(FRAME_HEADER);
        Ok(())
    }

    /// Make every record so far durable; an error if any could not be
    /// written (then no page may be written back).
    pub fn sync(&mut self) -> Result<()> {
        if let Some(e) = &self.failed {
            return Err(DynError::Corrupt(format!("{}: an undo record could not be written ({e}); reopen the store", self.path.display())));
        }
        self.write_frame()?;
        durable::sync(&self.file, &self.path)
    }

    fn release_pages(&self) {
        outcore_io::drop_cached(&self.file, 0, self.at);
    }

    /// Append a record of `bytes`, the contents of the heap at `address`.
    fn record(&mut self, address: usize, bytes: &[u8]) {
        let (base, heap_len) = self.heap;
        let start = address.wrapping_sub(base);
        assert!(start <= heap_len && bytes.len() <= heap_len - start, "{}: an undo save outside the heap", self.path.display());
        for (i, piece) in bytes.chunks(RECORD_MAX).enumerate() {
            let f = &mut self.frame;
            f.extend_from_slice(&(piece.len() as u32).to_le_bytes());
            f.extend_from_slice(&[0; 4]);
            f.extend_from_slice(&((start + i * RECORD_MAX) as u64).to_le_bytes());
            f.extend_from_slice(piece);
            f.resize(f.len().next_multiple_of(8), 0);
            if f.len() >= FRAME_HEADER + FRAME_BYTES && self.failed.is_none() {
                if let Err(e) = self.write_frame() {
                    self.failed = Some(e.to_string());
                }
            }
        }
        if self.failed.is_some() {
            self.frame.truncate(FRAME_HEADER);
        }
        self.saved_bytes += bytes.len() as u64;
    }
}

/// A salt no earlier reset of this log is likely to have used.
fn fresh_salt() -> u64 {
    use std::hash::BuildHasher;
    static COUNT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    std::collections::hash_map::RandomState::new().hash_one((n, t, std::process::id()))
}

impl Undo for UndoLog {
    #[inline]
    fn save(&mut self, address: usize, bytes: &[u8]) {
        self.record(address, bytes)
    }
}

/// An optional undo log as an [`Undo`].
pub struct MaybeUndo<'a>(pub Option<&'a mut UndoLog>);
impl Undo for MaybeUndo<'_> {
    #[inline]
    fn wants(&self) -> bool {
        self.0.is_some()
    }
    #[inline]
    fn save(&mut self, address: usize, bytes: &[u8]) {
        if let Some(u) = self.0.as_mut() {
            u.record(address, bytes)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn on_disk(path: &Path, off: u64) -> u64 {
        let mut b = [0u8; 8];
        File::open(path).unwrap().read_exact_at(&mut b, off).unwrap();
        u64::from_le_bytes(b)
    }

    /// The pages of a private anonymous mapping this process wrote, in
    /// page-aligned runs, across several reads of the page map.
    #[test]
    fn dirty_runs_are_the_pages_written() {
        let _bound = outcore_io::bound::watch("dirty_runs_are_the_pages_written");
        let mut map = memmap2::MmapMut::map_anon((40 * PAGE) as usize).unwrap();
        for page in [1u64, 2, 17, 18, 35] {
            map[(page * PAGE + 5) as usize] = 1;
        }
        let runs = dirty_runs(map.as_ptr(), 40 * PAGE).unwrap();
        assert_eq!(runs, vec![(PAGE, 2 * PAGE), (17 * PAGE, 2 * PAGE), (35 * PAGE, PAGE)]);
    }

    /// What the power-failure design rests on: bytes the last commit can
    /// see reach the file only through a write-back (after their undo
    /// record is durable); new blocks beyond it go straight to the file.
    #[test]
    fn committed_bytes_reach_the_file_only_by_write_back() {
        let _bound = outcore_io::bound::watch("committed_bytes_reach_the_file_only_by_write_back");
        let dir = tempfile::tempdir().unwrap();
        let (path, undo) = (dir.path().join("h.heap"), dir.path().join("h.undo"));
        let mut h = Heap::create(&path, &undo, 1 << 30).unwrap();
        let a = h.alloc(10_000).unwrap();
        h.write_u64(a, 7);
        assert_eq!(on_disk(&path, a), 7, "a new block is in the shared part");
        h.write_back(true).unwrap();
        h.committed().unwrap();
        assert_eq!(h.shared_from, h.end.next_multiple_of(PAGE), "the commit moved the boundary to its end");

        h.save(a, 8, false);
        h.write_u64(a, 9);
        assert_eq!(on_disk(&path, a), 7, "a committed block changes in memory only");
        // a block of this epoch: private in the page the commit ended in,
        // shared past it
        let b = h.alloc(3 * PAGE).unwrap() + 2 * PAGE;
        h.write_u64(b, 5);
        assert!(b >= h.shared_from && on_disk(&path, b) == 5, "a block of this epoch past the boundary is shared");
        assert!(h.write_back(false).unwrap() >= 8);
        assert_eq!(on_disk(&path, a), 9, "the write-back wrote the committed block");
        assert_eq!(h.read_u64(a), 9, "and the mapping reads the file again");

        // the undo log holds the old bytes: reopening at the commit restores them
        let meta = HeapMeta { end: h.committed_end, free: Vec::new() };
        drop(h);
        let h = Heap::open(&path, &undo, &meta, 1, 1 << 30).unwrap();
        assert_eq!(h.read_u64(a), 7);
        assert_eq!(on_disk(&path, a), 7);
    }
}
