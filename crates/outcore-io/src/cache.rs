//! A block cache over [`BlockIo`]: fixed frames (sized from the memory
//! budget), CLOCK replacement, asynchronous prefetch that never evicts a
//! frame still being read, and statistics (hits, late hits on blocks still
//! in flight, misses, bytes read).

use crate::block::{open_block_io, Backend, BlockIo, ReadRequest, VectoredRead};
use crate::verify::FileChecks;
use crate::{AlignedBuf, IoContext, IoError, DIRECT_ALIGN};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Empty,
    Loading,
    Ready,
}

#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct CacheStats {
    /// Requested blocks found ready.
    pub hits: u64,
    /// Requested blocks still being read (a prefetch not yet complete).
    pub late: u64,
    /// Requested blocks that had to be read on demand.
    pub misses: u64,
    /// Reads issued ahead of need.
    pub prefetches: u64,
    pub reads: u64,
    pub bytes_read: u64,
}

impl CacheStats {
    pub fn hit_rate(&self) -> f64 {
        let all = self.hits + self.late + self.misses;
        if all == 0 {
            0.0
        } else {
            self.hits as f64 / all as f64
        }
    }
}

/// Most blocks read by one request.
pub const MAX_RUN: usize = 32;

/// Heap a cache keeps for each frame beside its block: the frame's share
/// of the block map (a hash table made for twice the frames: up to 4.6
/// buckets of 25 bytes a frame), its owner (16), state, valid length and
/// reference bit.
pub const FRAME_BOOKKEEPING_BYTES: usize = 144;

impl BlockCache {
    /// What one frame of `block` bytes costs the budget.
    pub const fn frame_bytes(block: usize) -> usize {
        block + FRAME_BOOKKEEPING_BYTES
    }
}

/// Marks request ids of multi-block reads.
const RUN_FLAG: u64 = 1 << 63;

pub struct BlockCache {
    block: usize,
    slab: AlignedBuf,
    frames: usize,
    map: HashMap<(u32, u64), u32>,
    owner: Vec<(u32, u64)>,
    state: Vec<State>,
    valid: Vec<u32>,
    referenced: Vec<bool>,
    hand: usize,
    io: Box<dyn BlockIo>,
    depth: usize,
    in_flight: usize,
    next_id: u64,
    file_len: Vec<u64>,
    /// The files, for error messages.
    paths: Vec<PathBuf>,
    completions: Vec<(u64, Result<usize, IoError>)>,
    batch: Vec<ReadRequest>,
    vectored: Vec<VectoredRead>,
    /// Frames of each multi-block read in flight, by request id.
    runs: HashMap<u64, Vec<u32>>,
    /// Frames whose read is in flight.
    loading: usize,
    /// Per file, its registered block hashes and a handle to read a block
    /// for checking ([`crate::verify`]); `None` for unregistered files.
    checks: Vec<Option<(Arc<FileChecks>, Arc<std::fs::File>)>>,
    /// With [`BlockCache::check_ahead`]: a whole checksum block, read to
    /// check it and put its pages in the cache (allocated on first use).
    scratch: Option<AlignedBuf>,
    /// Threads checking the files ahead of the reads ([`crate::verify::Background`]).
    background: Vec<crate::verify::Background>,
    ahead: bool,
    pub stats: CacheStats,
}

impl BlockCache {
    /// A cache of `frames` blocks of `block` bytes (a multiple of 4 KiB)
    /// over `files`, keeping up to `depth` reads in flight.
    pub fn new(files: &[PathBuf], block: usize, frames: usize, depth: usize, force_pread: bool) -> Result<Self, IoError> {
        assert!(block.is_multiple_of(DIRECT_ALIGN) && frames >= 2);
        let file_len = files.iter().map(|p| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0)).collect();
        let io = open_block_io(files, depth, force_pread)?;
        let mut checks = Vec::with_capacity(files.len());
        for path in files {
            let (file, _) = crate::open_maybe_direct(path, std::fs::OpenOptions::new().read(true)).ctx(path, "open")?;
            checks.push(crate::verify::checks_for(&file).map(|c| (c, Arc::new(file))));
        }
        let mut slab = AlignedBuf::new(block * frames, DIRECT_ALIGN);
        slab.set_len(block * frames);
        Ok(BlockCache {
            block,
            slab,
            frames,
            map: HashMap::with_capacity(frames * 2),
            owner: vec![(u32::MAX, 0); frames],
            state: vec![State::Empty; frames],
            valid: vec![0; frames],
            referenced: vec![false; frames],
            hand: 0,
            io,
            depth: depth.min(frames / 2).max(1),
            in_flight: 0,
            next_id: 0,
            file_len,
            paths: files.to_vec(),
            completions: Vec::new(),
            batch: Vec::new(),
            vectored: Vec::new(),
            runs: HashMap::new(),
            loading: 0,
            checks,
            scratch: None,
            background: Vec::new(),
            ahead: false,
            stats: CacheStats::default(),
        })
    }

    /// Leave `file` to the caller's checks: it checks every byte of it that
    /// it uses against checksums of its own, at a finer grain than the
    /// registered blocks (a compressed layout's block table), so the cache
    /// neither checks that file's registered blocks nor has a background
    /// reader check them. Call before [`BlockCache::check_ahead`].
    pub fn checked_by_caller(&mut self, file: u32) {
        self.checks[file as usize] = None;
    }

    pub fn block_size(&self) -> usize {
        self.block
    }
    pub fn frames(&self) -> usize {
        self.frames
    }
    pub fn backend(&self) -> Backend {
        self.io.backend()
    }
    pub fn in_flight(&self) -> usize {
        self.in_flight
    }
    pub fn depth(&self) -> usize {
        self.depth
    }
    /// Whether block `b` of `file` is cached or on its way.
    pub fn contains(&self, file: u32, b: u64) -> bool {
        self.map.contains_key(&(file, b))
    }

    /// A frame to reuse, by CLOCK; frames being read are skipped.
    fn victim(&mut self) -> Result<usize, IoError> {
        loop {
            for _ in 0..2 * self.frames {
                let f = self.hand;
                self.hand = (self.hand + 1) % self.frames;
                match self.state[f] {
                    State::Loading => continue,
                    State::Empty => return Ok(f),
                    State::Ready if self.referenced[f] => self.referenced[f] = false,
                    State::Ready => {
                        self.map.remove(&self.owner[f]);
                        self.state[f] = State::Empty;
                        return Ok(f);
                    }
                }
            }
            // every frame is in flight: wait for one
            self.reap(1)?;
        }
    }

    fn issue(&mut self, file: u32, b: u64) -> Result<(), IoError> {
        let f = self.victim()?;
        let offset = b * self.block as u64;
        let len = self.block;
        // SAFETY: f < frames, so the frame lies inside the slab of frames * block bytes.
        let buf = unsafe { self.slab.as_mut_ptr().add(f * self.block) };
        self.map.insert((file, b), f as u32);
        self.owner[f] = (file, b);
        self.state[f] = State::Loading;
        self.referenced[f] = true;
        let id = (f as u64) << 32 | (self.next_id & 0xffff_ffff);
        self.next_id += 1;
        self.batch.push(ReadRequest { id, file: file as usize, offset, len, buf });
        self.in_flight += 1;
        self.loading += 1;
        self.stats.reads += 1;
        Ok(())
    }

    /// One read for blocks `b0..b0+count` (none cached) into `count` frames.
    fn issue_run(&mut self, file: u32, b0: u64, count: usize) -> Result<(), IoError> {
        let id = RUN_FLAG | (self.next_id & 0xffff_ffff);
        self.next_id += 1;
        let mut frames = Vec::with_capacity(count);
        let mut bufs = Vec::with_capacity(count);
        for b in b0..b0 + count as u64 {
            let f = self.victim()?;
            self.map.insert((file, b), f as u32);
            self.owner[f] = (file, b);
            self.state[f] = State::Loading;
            self.referenced[f] = true;
            self.loading += 1;
            frames.push(f as u32);
            bufs.push(libc::iovec {
                // SAFETY: f < frames, so the frame lies inside the slab.
                iov_base: unsafe { self.slab.as_mut_ptr().add(f * self.block) } as *mut libc::c_void,
                iov_len: self.block,
            });
        }
        self.runs.insert(id, frames);
        self.vectored.push(VectoredRead { id, file: file as usize, offset: b0 * self.block as u64, bufs });
        self.in_flight += 1;
        self.stats.reads += 1;
        Ok(())
    }

    /// Start reading the blocks `b0..=b1` of `file` that are neither cached
    /// nor in flight, consecutive ones in one request of up to [`MAX_RUN`]
    /// blocks. Returns false if it stopped because the device is full.
    pub fn prefetch_run(&mut self, file: u32, b0: u64, b1: u64) -> Result<bool, IoError> {
        self.request(file, b0, b1, true)
    }

    /// Issue the missing blocks of `b0..=b1` (see [`BlockCache::prefetch_run`]);
    /// `ahead_of_need` counts them as prefetches rather than demand reads.
    fn request(&mut self, file: u32, b0: u64, b1: u64, ahead_of_need: bool) -> Result<bool, IoError> {
        if b0 * self.block as u64 >= self.file_len[file as usize] {
            return Ok(true);
        }
        let last = (self.file_len[file as usize].div_ceil(self.block as u64)).saturating_sub(1);
        let b1 = b1.min(last);
        let mut b = b0;
        while b <= b1 {
            if self.map.contains_key(&(file, b)) {
                b += 1;
                continue;
            }
            let mut end = b;
            while end < b1 && end + 1 - b < MAX_RUN as u64 && !self.map.contains_key(&(file, end + 1)) {
                end += 1;
            }
            if self.in_flight >= self.depth {
                self.reap(0)?;
                if self.in_flight >= self.depth {
                    return Ok(false);
                }
            }
            // keep at least half of the frames out of reads in flight
            let room = (self.frames / 2).saturating_sub(self.loading);
            let count = ((end - b + 1) as usize).min(room);
            if count == 0 {
                return Ok(false);
            }
            if count == 1 {
                self.issue(file, b)?;
            } else {
                self.issue_run(file, b, count)?;
            }
            if ahead_of_need {
                self.stats.prefetches += count as u64;
            }
            b += count as u64;
        }
        Ok(true)
    }

    fn flush_batch(&mut self) -> Result<(), IoError> {
        if !self.batch.is_empty() {
            let batch = std::mem::take(&mut self.batch);
            // SAFETY: each request's frame lies in the slab, which lives as
            // long as the cache; a frame in flight is marked Loading and
            // neither read nor reissued until its completion is reaped.
            unsafe { self.io.submit(&batch)? };
            self.batch = batch;
            self.batch.clear();
        }
        if !self.vectored.is_empty() {
            // SAFETY: as for `submit`: the frames of a run are Loading until reaped.
            unsafe { self.io.submit_vectored(std::mem::take(&mut self.vectored))? };
        }
        Ok(())
    }

    fn reap(&mut self, min: usize) -> Result<(), IoError> {
        self.flush_batch()?;
        self.completions.clear();
        let mut done = std::mem::take(&mut self.completions);
        self.io.complete(min.min(self.in_flight), &mut done)?;
        for (id, result) in done.drain(..) {
            self.in_flight -= 1;
            let n = result?;
            self.stats.bytes_read += n as u64;
            if id & RUN_FLAG != 0 {
                let mut left = n;
                for f in self.runs.remove(&id).expect("known run") {
                    let got = left.min(self.block);
                    left -= got;
                    self.valid[f as usize] = got as u32;
                    self.state[f as usize] = State::Ready;
                    self.loading -= 1;
                }
            } else {
                let f = (id >> 32) as usize;
                self.valid[f] = n as u32;
                self.state[f] = State::Ready;
                self.loading -= 1;
            }
        }
        self.completions = done;
        Ok(())
    }

    /// Start reading block `b` of `file` unless it is cached, in flight, or
    /// the device already has `depth` reads. Returns false when it could not.
    pub fn prefetch(&mut self, file: u32, b: u64) -> Result<bool, IoError> {
        self.request(file, b, b, true)
    }

    /// Send queued prefetches to the device.
    pub fn submit(&mut self) -> Result<(), IoError> {
        self.flush_batch()
    }

    /// The bytes of block `b` of `file`, reading (and waiting) if needed.
    pub fn get(&mut self, file: u32, b: u64) -> Result<&[u8], IoError> {
        let f = match self.map.get(&(file, b)) {
            Some(&f) => {
                let f = f as usize;
                if self.state[f] == State::Ready {
                    self.stats.hits += 1;
                } else {
                    self.stats.late += 1;
                }
                f
            }
            None => {
                self.stats.misses += 1;
                if self.in_flight >= self.depth {
                    self.reap(1)?;
                }
                self.issue(file, b)?;
                self.map[&(file, b)] as usize
            }
        };
        while self.state[f] != State::Ready {
            self.reap(1)?;
        }
        if let Some((checks, handle)) = &self.checks[file as usize] {
            let (lo, hi) = (b * self.block as u64, b * self.block as u64 + self.valid[f].max(1) as u64);
            if checks.checked_from_frames_of(self.block) {
                // checksum blocks no larger than a frame (page checksums):
                // checked from the frame itself, with no read of their own
                let frame = &self.slab[f * self.block..f * self.block + self.valid[f] as usize];
                for cb in checks.block_of(lo)..=checks.block_of(hi - 1) {
                    if !checks.is_verified(cb) {
                        let (start, end) = checks.block_range(cb);
                        let (from, to) = ((start - lo) as usize, ((end - lo) as usize).min(frame.len()));
                        checks.check_block(cb, &frame[from.min(to)..to])?;
                    }
                }
            } else if let Some(cb) = (checks.block_of(lo)..=checks.block_of(hi - 1)).find(|&cb| !checks.is_verified(cb)) {
                // the first use of a checksum block in this process reads and checks it whole
                if !self.ahead {
                    for cb in cb..=checks.block_of(hi - 1) {
                        checks.verify_block(handle, cb)?;
                    }
                } else {
                    // random reads need checks: the background readers start
                    for background in &self.background {
                        background.resume();
                    }
                    // and with a buffer for it, its pages then come from the cache
                    self.referenced[f] = true;
                    self.verify_and_install(file, cb)?;
                    return self.get(file, b);
                }
            }
        }
        self.referenced[f] = true;
        Ok(&self.slab[f * self.block..f * self.block + self.valid[f] as usize])
    }

    /// Bytes [`BlockCache::check_ahead`] takes beside the frames for
    /// `files` in a cache of `block`-byte frames: a buffer of the largest
    /// checksum block of the registered ones, and a reader per registered
    /// file (0 if none is registered, or if every registered file has
    /// checksum blocks no larger than a frame: those are checked from the
    /// frames as they are read).
    pub fn check_ahead_bytes(files: &[PathBuf], block: usize) -> u64 {
        let checks: Vec<_> =
            files.iter().filter_map(|p| crate::verify::checks_for_path(p)).filter(|c| !c.checked_from_frames_of(block)).collect();
        let largest = checks.iter().map(|c| c.block_bytes()).max().unwrap_or(0);
        largest + checks.len() as u64 * crate::verify::BACKGROUND_BYTES
    }

    /// Check the cached files ahead of the reads: a background reader per
    /// registered file, started by the first read that finds a block
    /// unchecked, checks the blocks nothing has checked yet (from the end
    /// of the file back), and a block a read reaches first is read whole
    /// into a buffer, checked, and its pages
    /// put in the cache. Without this, such a block is checked by a read of
    /// its own in small pieces. Costs [`BlockCache::check_ahead_bytes`].
    pub fn check_ahead(&mut self) {
        self.ahead = true;
        self.background = self
            .paths
            .iter()
            .zip(&self.checks)
            .filter_map(|(p, c)| c.as_ref().filter(|(c, _)| !c.checked_from_frames_of(self.block)).map(|(c, _)| (p, c)))
            .filter_map(|(p, c)| crate::verify::Background::start(p, c))
            .collect();
    }

    /// Read checksum block `cb` of `file` whole, check it, and put those of
    /// its pages the cache lacks into frames (at most a sixteenth of them).
    fn verify_and_install(&mut self, file: u32, cb: u64) -> Result<(), IoError> {
        let (checks, handle) = self.checks[file as usize].clone().expect("checked file");
        let scratch = self.scratch.get_or_insert_with(|| AlignedBuf::new(checks.block_bytes() as usize, DIRECT_ALIGN));
        if scratch.capacity() < checks.block_bytes() as usize {
            *scratch = AlignedBuf::new(checks.block_bytes() as usize, DIRECT_ALIGN);
        }
        let len = checks.read_block(&handle, cb, scratch)? as u64;
        let scratch = self.scratch.take().expect("scratch");
        let bs = self.block as u64;
        let start = checks.block_range(cb).0;
        let mut installed = 0;
        for page in start / bs..(start + len).div_ceil(bs) {
            if installed >= self.frames / 16 {
                break;
            }
            if self.map.contains_key(&(file, page)) || page * bs < start {
                continue;
            }
            let f = self.victim()?;
            let from = (page * bs - start) as usize;
            let n = (len as usize - from).min(self.block);
            self.slab[f * self.block..f * self.block + n].copy_from_slice(&scratch[from..from + n]);
            self.map.insert((file, page), f as u32);
            self.owner[f] = (file, page);
            self.state[f] = State::Ready;
            self.valid[f] = n as u32;
            self.referenced[f] = false;
            installed += 1;
        }
        self.scratch = Some(scratch);
        Ok(())
    }

    /// Append bytes `start..end` of `file` to `out`.
    pub fn read_range(&mut self, file: u32, start: u64, end: u64, out: &mut Vec<u8>) -> Result<(), IoError> {
        if start >= end {
            return Ok(());
        }
        let bs = self.block as u64;
        let (b0, b1) = (start / bs, (end - 1) / bs);
        // ask for every block first so a long list is read in parallel
        self.request(file, b0, b1, false)?;
        for b in b0..=b1 {
            let lo = if b == b0 { (start - b * bs) as usize } else { 0 };
            let hi = if b == b1 { (end - b * bs) as usize } else { self.block };
            let data = self.get(file, b)?;
            if data.len() < hi {
                let (len, path) = (data.len(), self.paths[file as usize].clone());
                return Err(IoError::new(
                    &path,
                    format!("read of bytes {}..{}", b * bs, b * bs + hi as u64),
                    std::io::Error::new(std::io::ErrorKind::UnexpectedEof, format!("only {len} of {hi} bytes (truncated?)")),
                ));
            }
            out.extend_from_slice(&data[lo..hi]);
        }
        Ok(())
    }

    /// Wait for every read in flight (before the buffers go away).
    pub fn drain(&mut self) -> Result<(), IoError> {
        while self.in_flight > 0 {
            self.reap(1)?;
        }
        Ok(())
    }
}

impl Drop for BlockCache {
    fn drop(&mut self) {
        let _ = self.drain();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file_with(n: usize) -> (tempfile::TempDir, PathBuf, Vec<u8>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let data: Vec<u8> = (0..n).map(|i| (i * 31 % 251) as u8).collect();
        std::fs::write(&path, &data).unwrap();
        (dir, path, data)
    }

    #[test]
    fn registered_files_are_checked_whole_blocks_at_a_time() {
        let (_d, path, data) = file_with(3 << 20);
        let hashes = crate::hash_file_blocks(&path, 1 << 20).unwrap();
        crate::verify::register(&path, &std::fs::symlink_metadata(&path).unwrap(), 1 << 20, hashes.blocks.clone());
        assert_eq!(BlockCache::check_ahead_bytes(std::slice::from_ref(&path), 4096), (1 << 20) + crate::verify::BACKGROUND_BYTES);
        let mut cache = BlockCache::new(std::slice::from_ref(&path), 4096, 512, 4, false).unwrap();
        cache.check_ahead();
        assert_eq!(cache.get(0, 5).unwrap(), &data[5 * 4096..6 * 4096]);
        // unless the background check got there first, the first checksum
        // block's other pages came with the check (up to a sixteenth of the frames)
        if cache.contains(0, 6) {
            assert!(cache.contains(0, 20) && !cache.contains(0, 40) && !cache.contains(0, 300));
            let misses = cache.stats.misses;
            assert_eq!(cache.get(0, 20).unwrap(), &data[20 * 4096..21 * 4096]);
            assert_eq!(cache.stats.misses, misses);
        }
        drop(cache);
        let checks = crate::verify::checks_for_path(&path).unwrap();
        let started = std::time::Instant::now();
        while let Some(b) = (0..3).find(|&b| !checks.is_verified(b)) {
            // a fresh cache's background reader, started by a read of an
            // unchecked block, checks the rest
            let mut cache = BlockCache::new(std::slice::from_ref(&path), 4096, 512, 4, false).unwrap();
            cache.check_ahead();
            let page = b as usize * 256;
            assert_eq!(cache.get(0, b * 256).unwrap(), &data[page * 4096..(page + 1) * 4096]);
            std::thread::sleep(std::time::Duration::from_millis(20));
            assert!(started.elapsed().as_secs() < 60, "the background check did not finish");
        }
        // checked once per process: another cache reads block 0 page by page
        let mut again = BlockCache::new(std::slice::from_ref(&path), 4096, 512, 4, true).unwrap();
        assert_eq!(again.get(0, 5).unwrap(), &data[5 * 4096..6 * 4096]);
        assert!(!again.contains(0, 6));
        // damage block 2, keep the hashes of the undamaged file
        use std::os::unix::fs::FileExt;
        let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        f.write_all_at(&[data[(2 << 20) + 7] ^ 1], (2 << 20) + 7).unwrap();
        crate::verify::register(&path, &std::fs::symlink_metadata(&path).unwrap(), 1 << 20, hashes.blocks);
        let mut cache = BlockCache::new(std::slice::from_ref(&path), 4096, 512, 4, false).unwrap();
        assert!(cache.get(0, 3).is_ok());
        let err = cache.get(0, 600).unwrap_err().to_string();
        assert!(err.contains("checksum mismatch in block 2 (bytes 2097152..3145728)"), "{err}");
        let mut out = Vec::new();
        assert!(cache.read_range(0, (2 << 20) - 10, (2 << 20) + 10, &mut out).is_err());
    }

    #[test]
    fn files_with_page_checksums_are_checked_from_the_pages_read() {
        let (_d, path, data) = file_with((3 << 20) + 1000);
        let pages: Vec<u64> = data.chunks(4096).map(crate::verify::block_hash).collect();
        crate::verify::register(&path, &std::fs::symlink_metadata(&path).unwrap(), 4096, pages.clone());
        // nothing to check ahead: each page is checked as it is read
        assert_eq!(BlockCache::check_ahead_bytes(std::slice::from_ref(&path), 4096), 0);
        let mut cache = BlockCache::new(std::slice::from_ref(&path), 4096, 64, 4, false).unwrap();
        cache.check_ahead();
        assert!(cache.background.is_empty());
        assert_eq!(cache.get(0, 300).unwrap(), &data[300 * 4096..301 * 4096]);
        assert_eq!(cache.get(0, 768).unwrap(), &data[768 * 4096..]);
        // the pages read, and nothing else, were read and checked
        assert_eq!(cache.stats.bytes_read, 4096 + 1000);
        let checks = crate::verify::checks_for_path(&path).unwrap();
        let checked: Vec<u64> = (0..checks.blocks()).filter(|&b| checks.is_verified(b)).collect();
        assert_eq!(checked, [300, 768]);
        drop(cache);
        // a damaged page is reported with its own byte range, the others still read
        use std::os::unix::fs::FileExt;
        let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        f.write_all_at(&[data[500 * 4096 + 9] ^ 4], 500 * 4096 + 9).unwrap();
        crate::verify::register(&path, &std::fs::symlink_metadata(&path).unwrap(), 4096, pages);
        let mut cache = BlockCache::new(std::slice::from_ref(&path), 4096, 64, 4, false).unwrap();
        assert_eq!(cache.get(0, 499).unwrap(), &data[499 * 4096..500 * 4096]);
        let err = cache.get(0, 500).unwrap_err().to_string();
        assert!(err.contains("checksum mismatch in block 500 (bytes 2048000..2052096)"), "{err}");
        // a cache of larger frames checks every page of a frame
        let mut wide = BlockCache::new(std::slice::from_ref(&path), 16384, 16, 4, false).unwrap();
        assert_eq!(wide.get(0, 2).unwrap(), &data[2 * 16384..3 * 16384]);
        assert!(wide.get(0, 125).unwrap_err().to_string().contains("checksum mismatch in block 500"));
    }

    #[test]
    fn random_ranges_match_the_file_on_both_backends() {
        let (_d, path, data) = file_with(300_001);
        for force_pread in [false, true] {
            let mut cache = BlockCache::new(std::slice::from_ref(&path), 4096, 24, 4, force_pread).unwrap();
            let mut x = 12345u64;
            for _ in 0..500 {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let start = (x >> 20) % data.len() as u64;
                let end = (start + (x >> 50) % 20_000).min(data.len() as u64);
                if (x >> 7).is_multiple_of(3) {
                    cache.prefetch(0, (x >> 30) % 74).unwrap();
                }
                if (x >> 9).is_multiple_of(4) {
                    let b = (x >> 33) % 74;
                    cache.prefetch_run(0, b, b + (x >> 40) % 40).unwrap();
                }
                let mut out = Vec::new();
                cache.read_range(0, start, end, &mut out).unwrap();
                assert_eq!(out, &data[start as usize..end as usize], "backend {:?}", cache.backend());
            }
            assert!(cache.stats.hits > 0 && cache.stats.misses > 0);
        }
    }
}
