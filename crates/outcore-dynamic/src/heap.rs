//! A partition's heap: one file mapped shared (memmap2) with a large
//! virtual reservation, so it grows by extending the file and never
//! moves; tables and edge chunks are blocks at byte offsets in it. The
//! kernel pages it in and out, so it may be far larger than memory.
//!
//! Crash consistency (thesis section 4.5.1 leaves it open): every byte of
//! a block that existed at the last commit is saved to the undo log before
//! it is overwritten. The undo log is itself a shared mapping, written in
//! program order before the heap, so after a process crash (kill -9,
//! panic, OOM) replaying it backwards restores the last commit exactly.
//! Blocks allocated since the last commit need no undo: the committed
//! state does not reference them (they come from beyond the committed end
//! or from the committed free lists). Blocks freed since the last commit
//! are reused only after the next one.

use crate::error::{DynError, Result};
use crate::rhh::{Table, Undo};
use memmap2::{MmapOptions, MmapRaw};
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{compiler_fence, Ordering};

/// Virtual address space all heaps and undo logs of a process may
/// reserve together (not memory: pages exist only where files do).
const ADDRESS_SPACE: usize = 1 << 45;

/// Address space to reserve for each of `maps` mappings: a power of two,
/// at most 1 TiB, so that they fit in [`ADDRESS_SPACE`] together.
pub fn reserve_for(maps: usize) -> usize {
    let each = (ADDRESS_SPACE / maps.max(1)).min(1 << 40);
    1 << (usize::BITS - 1 - each.leading_zeros())
}
/// Offsets below this are never allocated; 0 means "no block".
pub const HEAP_START: u64 = 4096;
/// Size of a new heap file, and the most it grows by at once.
const INITIAL_LEN: u64 = 1 << 20;
const GROW_STEP: u64 = 64 << 20;
/// Linux 5.14+; older kernels refuse it and the pages fault in one by one.
const MADV_POPULATE_WRITE: libc::c_int = 23;

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
}

impl Heap {
    pub fn create(path: &Path, undo_path: &Path, reserve: usize) -> Result<Heap> {
        let file = OpenOptions::new().read(true).write(true).create_new(true).open(path).map_err(|e| DynError::io(path, e))?;
        file.set_len(INITIAL_LEN).map_err(|e| DynError::io(path, e))?;
        let map = map(&file, path, reserve)?;
        let undo = UndoLog::create(undo_path, 1, reserve)?;
        Ok(Heap {
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
        }
        .bound())
    }

    fn bound(mut self) -> Heap {
        self.undo.heap = (self.map.as_ptr() as usize, self.reserve);
        self
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
        let map = map(&file, path, reserve)?;
        let mut heap = Heap {
            path: path.to_path_buf(),
            file,
            map,
            file_len: len,
            end: meta.end,
            free: HashMap::new(),
            pending: Vec::new(),
            epoch: epoch + 1,
            committed_end: meta.end,
            undo: UndoLog::open_or_create(undo_path, epoch + 1, reserve)?,
            reserve,
        }
        .bound();
        for &(size, off) in &meta.free {
            heap.free.entry(size).or_default().push(off);
        }
        let restored = heap.undo.roll_back(&heap.map, len, epoch + 1, undo_path)?;
        if restored > 0 {
            heap.sync()?;
        }
        heap.undo.reset(epoch + 1)?;
        // Blocks past the committed end hold what the interrupted epoch
        // wrote; new blocks there must start zeroed.
        if len > meta.end {
            heap.file.set_len(meta.end).map_err(|e| DynError::io(path, e))?;
            heap.file_len = meta.end;
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
                    "{}: this heap may hold at most {} GiB (use more partitions)",
                    self.path.display(),
                    self.reserve >> 30
                )));
            }
            self.file.set_len(len).map_err(|e| DynError::io(&self.path, e))?;
            // Allocate the blocks now, in one extent, and fault the pages in
            // with one call: a write fault on a sparse page of a shared
            // mapping costs the file system a block allocation each.
            // SAFETY: fallocate on our own file descriptor; madvise on the
            // range just added to the file, inside the mapping (len <= reserve).
            unsafe {
                libc::fallocate(self.file.as_raw_fd(), 0, self.file_len as i64, (len - self.file_len) as i64);
                libc::madvise(
                    self.map.as_mut_ptr().add(self.file_len as usize) as *mut libc::c_void,
                    (len - self.file_len) as usize,
                    MADV_POPULATE_WRITE,
                );
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

    pub fn sync(&self) -> Result<()> {
        self.map.flush_range(0, self.end as usize).map_err(|e| DynError::io(&self.path, e))?;
        self.file.sync_all().map_err(|e| DynError::io(&self.path, e))
    }

    /// State to persist with a commit (after [`Heap::sync`]).
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
        self.undo.reset(self.epoch)
    }

    /// Write dirty pages back and drop the heap from the page cache (the
    /// memory budget covers mapped pages too).
    pub fn release_pages(&self) -> Result<()> {
        self.map.flush_range(0, self.end as usize).map_err(|e| DynError::io(&self.path, e))?;
        // SAFETY: dropping the pages of our own shared file mapping; they
        // were written back just above and fault in again from the file.
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

fn map(file: &File, path: &Path, reserve: usize) -> Result<MmapRaw> {
    MmapOptions::new().len(reserve).map_raw(file).map_err(|e| DynError::io(path, e))
}

/// What a commit records about a heap.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HeapMeta {
    pub end: u64,
    /// (size, offset) of free blocks.
    pub free: Vec<(u64, u64)>,
}

/// Undo records `[len: u32][pad][offset: u64][old bytes, padded to 8]`
/// after a 16-byte header `[epoch: u32][magic]`. The length is written
/// last, so a record with a length is complete; a zero length ends the log.
pub struct UndoLog {
    path: PathBuf,
    file: File,
    map: MmapRaw,
    len: u64,
    at: u64,
    /// The address and length of the heap mapping the log protects.
    heap: (usize, usize),
    pub saved_bytes: u64,
    reserve: usize,
}

const UNDO_MAGIC: u32 = 0x4f44_4e55; // "UNDO"
const UNDO_HEADER: u64 = 16;

impl UndoLog {
    fn create(path: &Path, epoch: u32, reserve: usize) -> Result<UndoLog> {
        let file = OpenOptions::new().read(true).write(true).create(true).truncate(true).open(path).map_err(|e| DynError::io(path, e))?;
        let mut log = Self::with_file(path, file, reserve)?;
        log.reset(epoch)?;
        Ok(log)
    }

    fn open_or_create(path: &Path, epoch: u32, reserve: usize) -> Result<UndoLog> {
        if !path.exists() {
            return Self::create(path, epoch, reserve);
        }
        let file = OpenOptions::new().read(true).write(true).open(path).map_err(|e| DynError::io(path, e))?;
        Self::with_file(path, file, reserve)
    }

    fn with_file(path: &Path, file: File, reserve: usize) -> Result<UndoLog> {
        let len = file.metadata().map_err(|e| DynError::io(path, e))?.len();
        if len as usize > reserve {
            return Err(DynError::Corrupt(format!("{}: larger than the address space this store may map", path.display())));
        }
        let map = map(&file, path, reserve)?;
        Ok(UndoLog { path: path.to_path_buf(), file, map, len, at: UNDO_HEADER, heap: (0, 0), saved_bytes: 0, reserve })
    }

    fn base(&self) -> *mut u8 {
        self.map.as_mut_ptr()
    }

    /// Restore every record of `epoch` in reverse order. Returns the count.
    fn roll_back(&mut self, heap: &MmapRaw, heap_len: u64, epoch: u32, path: &Path) -> Result<u64> {
        if self.len < UNDO_HEADER {
            return Ok(0);
        }
        // SAFETY: the log file holds at least UNDO_HEADER bytes (checked
        // above) and the mapping covers the file.
        let (head, magic) = unsafe { ((self.base() as *const u32).read(), (self.base() as *const u32).add(1).read()) };
        if magic != UNDO_MAGIC || head != epoch {
            return Ok(0);
        }
        let mut records = Vec::new();
        let mut at = UNDO_HEADER;
        while at + 16 <= self.len {
            // SAFETY: the 16-byte record header at `at` lies in the file (at + 16 <= len).
            let (n, off) = unsafe {
                let p = self.base().add(at as usize);
                ((p as *const u32).read() as u64, (p.add(8) as *const u64).read_unaligned())
            };
            if n == 0 {
                break;
            }
            if at + 16 + n > self.len || off + n > heap_len {
                return Err(DynError::Corrupt(format!("{}: undo record at byte {at} points outside the heap", path.display())));
            }
            records.push((off, n, at + 16));
            at += 16 + n.div_ceil(8) * 8;
        }
        for &(off, n, data) in records.iter().rev() {
            // SAFETY: the record's bytes lie in the log (data + n <= len) and
            // its target in the heap's file (off + n <= heap_len), checked
            // when the records were read; the two mappings are distinct.
            unsafe { std::ptr::copy_nonoverlapping(self.base().add(data as usize), heap.as_mut_ptr().add(off as usize), n as usize) };
        }
        Ok(records.len() as u64)
    }

    /// Empty the log and stamp it with the epoch it protects.
    fn reset(&mut self, epoch: u32) -> Result<()> {
        if self.len < 1 << 20 || self.len > 64 << 20 {
            self.file.set_len(0).map_err(|e| DynError::io(&self.path, e))?;
            self.file.set_len(1 << 20).map_err(|e| DynError::io(&self.path, e))?;
            self.len = 1 << 20;
        }
        // SAFETY: the file holds at least 1 MiB (ensured above), which the
        // mapping covers; `&mut self` makes this the only writer.
        unsafe {
            std::ptr::write_bytes(self.base().add(UNDO_HEADER as usize), 0, 16);
            (self.base() as *mut u32).write(epoch);
            (self.base() as *mut u32).add(1).write(UNDO_MAGIC);
        }
        self.at = UNDO_HEADER;
        Ok(())
    }

    fn release_pages(&self) {
        // SAFETY: dropping pages of our own shared file mapping; they fault
        // in again from the file.
        unsafe {
            libc::madvise(self.base() as *mut libc::c_void, self.len as usize, libc::MADV_DONTNEED);
        }
        outcore_io::drop_cached(&self.file, 0, self.len);
    }

    /// Append a record of `bytes`, the contents of the heap at `address`.
    fn record(&mut self, address: usize, bytes: &[u8]) {
        let (base, heap_len) = self.heap;
        let start = address.wrapping_sub(base);
        assert!(start <= heap_len && bytes.len() <= heap_len - start, "{}: an undo save outside the heap", self.path.display());
        let n = bytes.len();
        let need = 16 + (n as u64).div_ceil(8) * 8 + 16;
        if self.at + need > self.len {
            let len = ((self.at + need) * 2).div_ceil(1 << 20) << 20;
            if len as usize > self.reserve {
                panic!("{}: the undo log outgrew its address space; commit more often", self.path.display());
            }
            // The file only grows here; the mapping's reservation covers it.
            if let Err(e) = self.file.set_len(len) {
                panic!("{}: cannot grow the undo log: {e}", self.path.display());
            }
            self.len = len;
        }
        // SAFETY: the record (header, bytes, and the next terminator) fits
        // the file, grown above to at + need <= len, which the mapping covers;
        // `bytes` is a distinct region (the heap's mapping).
        unsafe {
            let p = self.base().add(self.at as usize);
            (p.add(8) as *mut u64).write_unaligned(start as u64);
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), p.add(16), n);
            // The terminator of the next record, then this record's length.
            std::ptr::write_bytes(p.add(need as usize - 16), 0, 16);
            compiler_fence(Ordering::Release);
            std::ptr::write_volatile(p as *mut u32, n as u32);
            compiler_fence(Ordering::Release);
        }
        self.at += need - 16;
        self.saved_bytes += n as u64;
    }
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
