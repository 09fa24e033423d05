//! Bucketed import for a declared vertex range (generators, `--num-vertices`,
//! METIS, Matrix Market): edges are scattered by source range into bucket
//! files (one sequential write), then each bucket is read back, counting-
//! sorted by source and each neighbour list sorted on its own (one
//! sequential read, linear work apart from the short per-list sorts). A
//! bucket that turns out larger than memory is sorted by the run sorter.
//!
//! Records are packed `source << 32 | target` in dense ids, so this path
//! serves unweighted graphs of at most 2^32 vertices.

use crate::error::Result;
use crate::sort::{ExternalSorter, Key64};
use outcore_io::{open_maybe_direct, AlignedBuf, Budget, IoContext, IoError, Reservation, SeqReader, DIRECT_ALIGN};
use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::thread::JoinHandle;

struct Bucket {
    path: PathBuf,
    file: std::sync::Arc<File>,
    direct: bool,
    buf: AlignedBuf,
    written: u64,
    records: u64,
}

/// Threads writing bucket buffers, i.e. writes in flight.
const WRITERS: usize = 3;

/// log2 of the most sources one bucket covers.
const MAX_SPAN_BITS: u32 = 15;

type WriteJob = (std::sync::Arc<File>, bool, PathBuf, u64, AlignedBuf);

/// Scatters packed edges into per-source-range bucket files.
pub struct BucketSorter {
    dir: PathBuf,
    name: String,
    shift: u32,
    buckets: Vec<Bucket>,
    buffer_bytes: usize,
    jobs: Option<SyncSender<WriteJob>>,
    free: Receiver<std::result::Result<AlignedBuf, IoError>>,
    writers: Vec<JoinHandle<()>>,
    budget: Budget,
    _charge: Reservation,
    records: u64,
    /// Software write-combining: a few records per bucket gather here (in
    /// cache) and move to the bucket buffer together.
    staging: Vec<[u64; STAGE]>,
    staged: Vec<u8>,
}

impl BucketSorter {
    /// Buckets, the source bits of a bucket, and the bytes of a bucket
    /// buffer, for `vertices` and about `records_hint` records when
    /// `available` bytes of the budget are left.
    fn shape(vertices: u64, records_hint: u64, available: u64) -> (u64, u32, usize) {
        let pass2 = pass2_slot(available);
        // a bucket in memory takes 12 bytes per record
        let wanted = records_hint.saturating_mul(12).div_ceil(pass2).max(1);
        let buckets_max = (1u64 << 16).min(vertices.max(1));
        let count = wanted.min(buckets_max).next_power_of_two().min(buckets_max.next_power_of_two());
        // at most 2^15 sources per bucket, so its counters stay in cache
        let shift = (64 - (vertices.max(2) - 1).leading_zeros()).saturating_sub(count.trailing_zeros()).min(MAX_SPAN_BITS);
        let count = ((vertices.max(1) - 1) >> shift) + 1;
        let pass1 = available / 2;
        let in_flight = 2 * WRITERS as u64;
        let per = (pass1 / (count + in_flight)).clamp(DIRECT_ALIGN as u64 * 4, 1 << 20) as usize / DIRECT_ALIGN * DIRECT_ALIGN;
        (count, shift, per)
    }

    /// The buffers a sorter made now would reserve: the bucketed import
    /// is taken only when they fit (else the run sort, whose floor is small).
    pub fn buffer_bytes(vertices: u64, records_hint: u64, available: u64) -> u64 {
        let (count, _, per) = Self::shape(vertices, records_hint, available);
        per as u64 * (count + 2 * WRITERS as u64)
    }
}

/// Pass 2's memory for one bucket when `available` bytes are left: at most
/// 2 x SORTERS + 1 buckets are alive at once (see `finish`), each in an
/// equal slot, at least 1 MiB.
fn pass2_slot(available: u64) -> u64 {
    (available / (2 * SORTERS as u64 + 1)).max(1 << 20)
}

/// Records staged per bucket before they move to its buffer (4 cache lines).
const STAGE: usize = 32;

impl BucketSorter {
    /// `vertices` dense ids, about `records_hint` records; buckets sized so
    /// that one fits in half of what the budget has left.
    pub fn new(dir: &Path, name: &str, vertices: u64, records_hint: u64, budget: &Budget) -> Result<Self> {
        let (count, shift, per) = Self::shape(vertices, records_hint, budget.available());
        let in_flight = 2 * WRITERS as u64;
        let charge = budget.reserve(&format!("bucket buffers ({name})"), per as u64 * (count + in_flight))?;
        let mut buckets = Vec::with_capacity(count as usize);
        for b in 0..count {
            let path = dir.join(format!("{name}-{b}.bucket"));
            let mut opts = OpenOptions::new();
            opts.write(true).create(true).truncate(true);
            let (file, direct) = open_maybe_direct(&path, &opts).ctx(&path, "create")?;
            buckets.push(Bucket {
                path,
                file: std::sync::Arc::new(file),
                direct,
                buf: AlignedBuf::new(per, DIRECT_ALIGN),
                written: 0,
                records: 0,
            });
        }
        // WRITERS threads keep that many writes in flight (O_DIRECT writes are synchronous).
        let (jobs_tx, jobs_rx) = sync_channel::<WriteJob>(WRITERS);
        let jobs_rx = std::sync::Arc::new(std::sync::Mutex::new(jobs_rx));
        let (free_tx, free_rx) = sync_channel(2 * WRITERS + 1);
        for _ in 0..2 * WRITERS {
            free_tx.send(Ok(AlignedBuf::new(per, DIRECT_ALIGN))).unwrap();
        }
        let writers = (0..WRITERS)
            .map(|_| {
                let (jobs_rx, free_tx) = (jobs_rx.clone(), free_tx.clone());
                std::thread::spawn(move || loop {
                    let job = jobs_rx.lock().unwrap().recv();
                    let Ok((file, direct, path, offset, mut buf)) = job else {
                        return;
                    };
                    {
                        let len = buf.len();
                        let padded = if direct { len.div_ceil(DIRECT_ALIGN) * DIRECT_ALIGN } else { len };
                        buf.set_len(padded);
                        buf[len..].fill(0);
                        let r = file.write_all_at(&buf, offset).map_err(|e| IoError::new(&path, format!("write at byte {offset}"), e));
                        buf.set_len(0);
                        let failed = r.is_err();
                        if free_tx.send(r.map(|_| buf)).is_err() || failed {
                            return;
                        }
                    }
                })
            })
            .collect();
        Ok(BucketSorter {
            dir: dir.to_path_buf(),
            name: name.to_string(),
            shift,
            buckets,
            buffer_bytes: per,
            jobs: Some(jobs_tx),
            free: free_rx,
            writers,
            budget: budget.clone(),
            _charge: charge,
            records: 0,
            staging: vec![[0; STAGE]; count as usize],
            staged: vec![0; count as usize],
        })
    }

    pub fn bucket_count(&self) -> u64 {
        self.buckets.len() as u64
    }

    /// Records pushed so far.
    pub fn records(&self) -> u64 {
        self.records
    }

    #[inline]
    pub fn push(&mut self, source: u64, target: u64) -> Result<()> {
        let b = (source >> self.shift) as usize;
        let n = self.staged[b] as usize;
        self.staging[b][n] = source << 32 | target;
        self.records += 1;
        if n + 1 < STAGE {
            self.staged[b] = n as u8 + 1;
            return Ok(());
        }
        self.staged[b] = 0;
        self.unstage(b, STAGE)
    }

    /// Move `n` staged records of bucket `b` into its buffer. Buffers are
    /// multiples of 4 KiB and a full stage is 256 bytes, so a stage never
    /// straddles two buffers.
    fn unstage(&mut self, b: usize, n: usize) -> Result<()> {
        let bucket = &mut self.buckets[b];
        let len = bucket.buf.len();
        debug_assert!(len + n * 8 <= self.buffer_bytes);
        bucket.buf.set_len(len + n * 8);
        for (dst, r) in bucket.buf[len..].chunks_exact_mut(8).zip(&self.staging[b][..n]) {
            dst.copy_from_slice(&r.to_le_bytes());
        }
        bucket.records += n as u64;
        if bucket.buf.len() == self.buffer_bytes {
            self.flush(b)?;
        }
        Ok(())
    }

    fn flush(&mut self, b: usize) -> Result<()> {
        let fresh = match self.free.recv() {
            Ok(r) => r?,
            Err(_) => return Err(IoError::new(&self.buckets[b].path, "write", std::io::Error::other("bucket writer stopped")).into()),
        };
        let bucket = &mut self.buckets[b];
        let full = std::mem::replace(&mut bucket.buf, fresh);
        let offset = bucket.written;
        bucket.written += full.len() as u64;
        let job = (bucket.file.clone(), bucket.direct, bucket.path.clone(), offset, full);
        if self.jobs.as_ref().unwrap().send(job).is_err() {
            return Err(IoError::new(&bucket.path, "write", std::io::Error::other("bucket writer stopped")).into());
        }
        Ok(())
    }

    /// Flush every bucket; then call `f(source, sorted distinct-or-not targets)`
    /// for every source with edges, in increasing order.
    pub fn finish(self, dedup: bool, f: impl FnMut(u64, &[u64]) -> Result<()>) -> Result<()> {
        self.finish_then(dedup, || Ok(()), f)
    }

    /// As `finish`, calling `released` once pass 1's buffers are returned to
    /// the budget and before pass 2 sizes its slots: a second sorter made
    /// there gets the room pass 1 had, and pass 2 sorts within what is left.
    pub fn finish_then(
        mut self,
        dedup: bool,
        released: impl FnOnce() -> Result<()>,
        mut f: impl FnMut(u64, &[u64]) -> Result<()>,
    ) -> Result<()> {
        for b in 0..self.buckets.len() {
            let n = self.staged[b] as usize;
            self.staged[b] = 0;
            self.unstage(b, n)?;
        }
        for b in 0..self.buckets.len() {
            if !self.buckets[b].buf.is_empty() {
                self.flush(b)?;
            }
        }
        self.jobs = None;
        for w in self.writers.drain(..) {
            let _ = w.join();
        }
        while let Ok(r) = self.free.try_recv() {
            r?;
        }
        for bucket in &self.buckets {
            bucket.file.set_len(bucket.records * 8).ctx(&bucket.path, "truncate")?;
        }
        let buckets = std::mem::take(&mut self.buckets);
        let shift = self.shift;
        let (budget, dir, name) = (self.budget.clone(), self.dir.clone(), self.name.clone());
        drop(self); // release the pass-1 buffers
        released()?;
        // Two workers read and sort alternate buckets while this thread
        // hands out the lists of the bucket before, in order. At most
        // 2 * SORTERS + 1 buckets are alive at once (one being sorted and
        // one queued per worker, one being written), so each gets a fixed
        // slot of memory; a bucket larger than a slot is sorted by runs,
        // within one slot, on this thread. A written bucket's buffers wait
        // in its worker's recycle slot for the worker's next bucket, still
        // charged; a bucket sorted by runs first empties every recycle slot,
        // so that its own slot is free whatever the timing of the workers.
        let slot = pass2_slot(budget.available());
        let buckets: Vec<std::sync::Arc<Bucket>> = buckets.into_iter().map(std::sync::Arc::new).collect();
        let mut channels = Vec::new();
        let mut workers = Vec::new();
        for w in 0..SORTERS {
            let (tx, rx) = sync_channel::<Result<Sorted>>(1);
            let recycled = std::sync::Arc::new(std::sync::Mutex::new(None::<SortedBucket>));
            channels.push((rx, recycled.clone()));
            let worker_budget = budget.clone();
            let mine: Vec<(usize, std::sync::Arc<Bucket>)> =
                buckets.iter().cloned().enumerate().filter(|(b, _)| b % SORTERS == w).collect();
            workers.push(std::thread::spawn(move || {
                for (b, bucket) in mine {
                    let first = (b as u64) << shift;
                    // A sorted bucket keeps its targets (4 B/record) and one
                    // array of its sources' list starts; sorting it takes its
                    // keys (8 B/record, freed once counted) and a second
                    // array besides, and reading them the file's reader.
                    // Buffers come back from the consumer and are charged
                    // at their size while the keys are read; the rest is
                    // charged once the reader is gone, each part as it is
                    // held (sort_in_memory).
                    let starts = ((1u64 << shift) + 1) * 8;
                    let reading = SeqReader::for_each_u64_bytes();
                    let reused = recycled.lock().map(|mut slot| slot.take()).unwrap_or(None);
                    let reuse = reused.map(|sb| (sb.start, sb.targets)).unwrap_or_default();
                    // Reused targets are no larger than an earlier bucket of
                    // this worker that fit its slot in memory: a bucket no
                    // larger fits with them, and a larger one grows them to
                    // its own size, as it would fresh ones.
                    let keys = bucket.records * 8;
                    let kept = bucket.records.max(reuse.1.capacity() as u64) * 4 + starts;
                    let sorted = if keys + kept + starts + reading <= slot {
                        let held = buffer_bytes(&reuse.0, &reuse.1);
                        match worker_budget.reserve("bucket in memory", held) {
                            Ok(held) => sort_in_memory(&bucket.path, bucket.records, first, 1 << shift, held, kept, reuse, &worker_budget),
                            Err(_) => Ok(None),
                        }
                    } else {
                        Ok(None)
                    };
                    let sorted = sorted.map(|s| s.map_or(Sorted::External(bucket.path.clone(), b), Sorted::Memory));
                    if let Ok(Sorted::Memory(_)) = &sorted {
                        let _ = std::fs::remove_file(&bucket.path);
                    }
                    let failed = sorted.is_err();
                    if tx.send(sorted).is_err() || failed {
                        return;
                    }
                }
            }));
        }
        let mut list = Vec::new();
        let mut result = Ok(());
        for b in 0..buckets.len() {
            let (rx, recycle) = &channels[b % SORTERS];
            result = match rx.recv() {
                Ok(Ok(Sorted::Memory(sb))) => {
                    let r = sb.for_each_list(dedup, &mut list, &mut f);
                    if let Ok(mut slot) = recycle.lock() {
                        *slot = Some(sb);
                    }
                    r
                }
                Ok(Ok(Sorted::External(path, b))) => {
                    for (_, recycled) in &channels {
                        if let Ok(mut slot) = recycled.lock() {
                            *slot = None;
                        }
                    }
                    let r = sort_external(&path, &dir, &format!("{name}-{b}"), &budget, slot, dedup, &mut list, &mut f);
                    let _ = std::fs::remove_file(&path);
                    r
                }
                Ok(Err(e)) => Err(e),
                Err(_) => Err(crate::error::IngestError::Usage("bucket sorter stopped".into())),
            };
            if result.is_err() {
                break;
            }
        }
        drop(channels);
        for w in workers {
            let _ = w.join();
        }
        for bucket in &buckets {
            let _ = std::fs::remove_file(&bucket.path);
        }
        result
    }
}

/// Threads sorting buckets in pass 2.
const SORTERS: usize = 2;

/// What the sorting worker hands over.
enum Sorted {
    Memory(SortedBucket),
    /// Too large for the budget: sorted by runs on the consumer's side.
    External(PathBuf, usize),
}

/// One bucket's edges grouped by source, each list sorted.
struct SortedBucket {
    first: u64,
    start: Vec<u64>,
    targets: Vec<u32>,
    /// The buffers it was given (reused), and the rest of what it keeps.
    _charge: (Reservation, Reservation),
}

impl SortedBucket {
    fn for_each_list(&self, dedup: bool, list: &mut Vec<u64>, f: &mut impl FnMut(u64, &[u64]) -> Result<()>) -> Result<()> {
        for s in 0..self.start.len() - 1 {
            let (lo, hi) = (self.start[s] as usize, self.start[s + 1] as usize);
            if lo == hi {
                continue;
            }
            list.clear();
            list.extend(self.targets[lo..hi].iter().map(|&t| t as u64));
            if dedup {
                list.dedup();
            }
            f(self.first + s as u64, list)?;
        }
        Ok(())
    }
}

impl Drop for BucketSorter {
    fn drop(&mut self) {
        self.jobs = None;
        for w in self.writers.drain(..) {
            let _ = w.join();
        }
        for b in &self.buckets {
            let _ = std::fs::remove_file(&b.path);
        }
    }
}

fn read_keys(path: &Path, records: u64) -> Result<Vec<u64>> {
    let mut keys = Vec::with_capacity(records as usize);
    SeqReader::for_each_u64(path, |k| {
        keys.push(k);
        Ok(())
    })?;
    Ok(keys)
}

/// What a bucket's list starts and targets hold: their capacity, which is
/// what their charge covers.
fn buffer_bytes(start: &Vec<u64>, targets: &Vec<u32>) -> u64 {
    (start.capacity() * 8 + targets.capacity() * 4) as u64
}

/// Counting sort by source, then sort each list. `reuse` holds buffers of
/// an earlier bucket, so their pages are not faulted in again, charged by
/// `held`; what the sorted bucket keeps beyond them (`kept` in all), the
/// keys and the second array of list starts are charged once the file's
/// reader is gone, as each is allocated. `None` when the budget, shared
/// with whatever else runs, has no room for them then: the bucket is
/// sorted by runs instead.
#[allow(clippy::too_many_arguments)]
fn sort_in_memory(
    path: &Path,
    records: u64,
    first: u64,
    span: u64,
    held: Reservation,
    kept: u64,
    reuse: (Vec<u64>, Vec<u32>),
    budget: &Budget,
) -> Result<Option<SortedBucket>> {
    let keys_charge = budget.reserve("a bucket's keys", records * 8)?;
    let reading = budget.reserve("the reader of a bucket", SeqReader::for_each_u64_bytes())?;
    let keys = read_keys(path, records)?;
    drop(reading);
    let Ok(rest) = budget.reserve("bucket in memory", kept.saturating_sub(held.bytes())) else { return Ok(None) };
    let (mut start, mut targets) = reuse;
    // grown to their size exactly, as they are charged (a vector grown by
    // `resize` may double)
    start.clear();
    start.reserve_exact(span as usize + 1);
    start.resize(span as usize + 1, 0);
    for &k in &keys {
        start[((k >> 32) - first) as usize + 1] += 1;
    }
    for i in 0..span as usize {
        start[i + 1] += start[i];
    }
    targets.clear();
    targets.reserve_exact(keys.len());
    targets.resize(keys.len(), 0);
    let Ok(fill_charge) = budget.reserve("a bucket's list ends", (start.len() * 8) as u64) else { return Ok(None) };
    let mut fill = start.clone();
    for &k in &keys {
        let s = ((k >> 32) - first) as usize;
        targets[fill[s] as usize] = k as u32;
        fill[s] += 1;
    }
    drop((fill, fill_charge));
    drop((keys, keys_charge));
    for s in 0..span as usize {
        targets[start[s] as usize..start[s + 1] as usize].sort_unstable();
    }
    // what it keeps is what it is charged, to the byte
    debug_assert_eq!(buffer_bytes(&start, &targets), kept.max(held.bytes()), "a sorted bucket's charge");
    Ok(Some(SortedBucket { first, start, targets, _charge: (held, rest) }))
}

#[allow(clippy::too_many_arguments)]
fn sort_external(
    path: &Path,
    dir: &Path,
    name: &str,
    budget: &Budget,
    memory: u64,
    dedup: bool,
    list: &mut Vec<u64>,
    f: &mut impl FnMut(u64, &[u64]) -> Result<()>,
) -> Result<()> {
    // half the slot for sort buffers; the merge readers take from what is left of it
    let mut sorter = ExternalSorter::<Key64>::new(dir, name, budget, memory / 2, dedup)?;
    let mut failed = None;
    let reading = budget.reserve("the reader of a bucket sorted by runs", SeqReader::for_each_u64_bytes())?;
    SeqReader::for_each_u64(path, |k| {
        if failed.is_none() {
            failed = sorter.push(Key64(k)).err();
        }
        Ok(())
    })?;
    drop(reading);
    if let Some(e) = failed {
        return Err(e);
    }
    let mut merged = sorter.finish()?;
    let mut current = None;
    list.clear();
    while let Some(Key64(k)) = merged.next()? {
        let s = k >> 32;
        if current != Some(s) {
            if let Some(c) = current {
                f(c, list)?;
            }
            list.clear();
            current = Some(s);
        }
        list.push(k & 0xffff_ffff);
    }
    if let Some(c) = current {
        f(c, list)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shape of a bucketed sort, for inputs from tiny to 2^32
    /// vertices: buckets cover every vertex with no empty tail, a bucket
    /// spans at most 2^15 sources, there are at most 2^16 buckets while the
    /// span allows it, buffers are aligned and within their bounds and, when
    /// not at their floor, within half the budget; and a bucket is expected
    /// to fit pass 2's slot (twice over, for the rounding of the span).
    #[test]
    fn shapes_cover_every_vertex_and_fit_the_budget() {
        for vertices in [1u64, 2, 3, 1000, 5242, 1 << 16, (1 << 20) + 7, 1 << 26, 1 << 32] {
            for records in [0u64, 10, vertices * 8, vertices * 32] {
                for available in [4u64 << 20, 40 << 20, 1 << 30, 16 << 30] {
                    let what = format!("{vertices} vertices, {records} records, {available} bytes");
                    let (count, shift, per) = BucketSorter::shape(vertices, records, available);
                    assert!(count >= 1 && shift <= MAX_SPAN_BITS, "{what}: {count} buckets, shift {shift}");
                    assert!(count << shift >= vertices, "{what}: {count} buckets of 2^{shift} miss vertices");
                    assert!((count - 1) << shift < vertices.max(1), "{what}: an empty last bucket");
                    if vertices <= 1 << (16 + MAX_SPAN_BITS) {
                        assert!(count <= 1 << 16, "{what}: {count} buckets");
                    }
                    assert_eq!(per % DIRECT_ALIGN, 0, "{what}");
                    assert!((4 * DIRECT_ALIGN..=1 << 20).contains(&per), "{what}: buffers of {per}");
                    let buffers = per as u64 * (count + 2 * WRITERS as u64);
                    if per > 4 * DIRECT_ALIGN {
                        assert!(buffers <= available / 2, "{what}: {buffers} bytes of buffers");
                    }
                    assert_eq!(BucketSorter::buffer_bytes(vertices, records, available), buffers, "{what}");
                    if per < 1 << 20 {
                        // no room for the next larger aligned buffer
                        assert!(
                            buffers + (count + 2 * WRITERS as u64) * DIRECT_ALIGN as u64 > available / 2,
                            "{what}: buffers of {per} starved"
                        );
                    }
                    let pass2 = pass2_slot(available);
                    let per_bucket = (records * 12).saturating_mul(1 << shift) / vertices.max(1);
                    if (records * 12).div_ceil(pass2) <= (1 << 16).min(vertices) && shift < MAX_SPAN_BITS {
                        assert!(per_bucket <= 2 * pass2, "{what}: a bucket of {per_bucket} bytes for slots of {pass2}");
                    }
                }
            }
        }
    }

    /// The slots of the buckets alive at once in pass 2 share what is
    /// left, all of it, but never go below 1 MiB each.
    #[test]
    fn pass_2_slots_share_the_budget() {
        let alive = 2 * SORTERS as u64 + 1;
        for available in [0u64, 1 << 20, 4 << 20, 5 << 20, 40 << 20, 1 << 30, (16 << 30) + 3] {
            let slot = pass2_slot(available);
            assert!(slot >= 1 << 20, "{available}: slot {slot}");
            if available >= alive << 20 {
                assert!(slot * alive <= available && slot * alive > available - alive, "{available}: slot {slot}");
            }
        }
    }

    /// A bucket is sorted in memory when its keys, targets, two arrays of
    /// list starts and its file's reader fit its slot (a fifth of what
    /// pass 2 has), and by runs when they do not: one bucket of a million
    /// records, under budgets whose slot is 150 KB (1%) above and below
    /// what it takes in memory. Runs show as files while its lists are handed
    /// out; either way every record comes out, lists in source order,
    /// each sorted.
    #[test]
    fn a_bucket_is_sorted_in_memory_only_when_it_fits_its_slot() {
        let (vertices, records) = (1u64 << 17, 1_000_000u64);
        let starts = ((1u64 << MAX_SPAN_BITS) + 1) * 8;
        let in_memory = records * 12 + 2 * starts + SeqReader::for_each_u64_bytes();
        for (slot, by_runs) in [(in_memory + 150_000, false), (in_memory - 150_000, true)] {
            let dir = tempfile::tempdir().unwrap();
            let budget = Budget::new(slot * (2 * SORTERS as u64 + 1));
            let mut sorter = BucketSorter::new(dir.path(), "t", vertices, records, &budget).unwrap();
            // every source in the first bucket; the others empty
            for i in 0..records {
                sorter
                    .push(i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - MAX_SPAN_BITS), i.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 47)
                    .unwrap();
            }
            assert!(sorter.bucket_count() > 1);
            assert_eq!(sorter.shift, MAX_SPAN_BITS);
            let (mut seen, mut last, mut runs_seen) = (0, None, None);
            sorter
                .finish(false, |s, list| {
                    if runs_seen.is_none() {
                        let names = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap());
                        runs_seen = Some(names.filter(|n| n.ends_with(".run")).count() > 0);
                    }
                    assert!(last < Some(s) && list.windows(2).all(|w| w[0] <= w[1]), "source {s} after {last:?}");
                    (last, seen) = (Some(s), seen + list.len() as u64);
                    Ok(())
                })
                .unwrap();
            assert_eq!(seen, records, "slot {slot}");
            assert_eq!(runs_seen, Some(by_runs), "slot {slot}: {in_memory} bytes in memory; sorted by runs?");
        }
    }

    /// A sorter makes the buckets its shape gives, a file each, and says so.
    #[test]
    fn a_sorter_has_the_buckets_of_its_shape() {
        let dir = tempfile::tempdir().unwrap();
        let budget = Budget::new(256 << 20);
        let (vertices, records) = (1u64 << 20, 1u64 << 28);
        let sorter = BucketSorter::new(dir.path(), "t", vertices, records, &budget).unwrap();
        let (count, _, _) = BucketSorter::shape(vertices, records, 256 << 20);
        let files = std::fs::read_dir(dir.path())
            .unwrap()
            .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "bucket"))
            .count();
        assert!(count > 1);
        assert_eq!(sorter.bucket_count(), count);
        assert_eq!(files as u64, count);
    }

    /// A sorter dropped before it finishes (an import that fails half-way)
    /// removes its bucket files, records pushed or not.
    #[test]
    fn a_sorter_dropped_unfinished_leaves_no_files() {
        let dir = tempfile::tempdir().unwrap();
        let budget = Budget::new(256 << 20);
        let mut sorter = BucketSorter::new(dir.path(), "t", 1 << 20, 1 << 28, &budget).unwrap();
        for i in 0..100_000u64 {
            sorter.push(i * 7 % (1 << 20), i).unwrap();
        }
        assert!(std::fs::read_dir(dir.path()).unwrap().count() > 1);
        drop(sorter);
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert!(left.is_empty(), "left behind: {left:?}");
    }

    /// More records or less memory never means fewer buckets.
    #[test]
    fn more_records_or_less_memory_give_more_buckets() {
        // 2^20 vertices: at least 32 buckets of 2^15 sources
        let v = 1 << 20;
        let counts: Vec<u64> = [1u64 << 26, 1 << 28, 1 << 30].iter().map(|&r| BucketSorter::shape(v, r, 1 << 30).0).collect();
        assert!(counts.windows(2).all(|w| w[0] <= w[1]) && counts[0] < counts[2], "{counts:?}");
        let counts: Vec<u64> = [16u64 << 30, 1 << 30, 64 << 20].iter().map(|&a| BucketSorter::shape(v, 1 << 28, a).0).collect();
        assert!(counts.windows(2).all(|w| w[0] <= w[1]) && counts[0] < counts[2], "{counts:?}");
    }
}
