//! External merge sort in bounded memory. Records collect in a buffer;
//! a full buffer is sorted (in parallel), deduplicated if asked, and
//! spilled as a run (outcore's one run format, `outcore_io::runs`: delta-
//! and varint-encoded) by a background thread while the next buffer
//! fills. `finish` merges the runs k-way (`outcore_io::runs::Merge`), in
//! several passes when the budget cannot hold a reader for every run.

use crate::error::{IngestError, Result};
use outcore_io::runs::{get_varint, put_varint, Merge, RunReader, RunRecord, RunWriter};
use outcore_io::{Budget, Minimum, Reservation};
use rayon::slice::ParallelSliceMut;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::thread::JoinHandle;

/// A fixed-size record that can be sorted and stored delta-encoded in a run.
pub trait SortRecord: RunRecord + Ord {
    /// Records that describe the same edge (kept once when deduplicating:
    /// the first in sort order wins).
    fn same(&self, other: &Self) -> bool;
}

/// A u64 key: a packed edge `source << 32 | target` or a plain id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Key64(pub u64);

impl RunRecord for Key64 {
    const MAX_ENCODED: usize = 10;
    #[inline]
    fn encode(&self, prev: Option<&Self>, out: &mut Vec<u8>) {
        put_varint(self.0 - prev.map_or(0, |p| p.0), out);
    }
    #[inline]
    fn decode(prev: Option<&Self>, bytes: &[u8], pos: &mut usize) -> std::result::Result<Self, &'static str> {
        Ok(Key64(prev.map_or(0, |p| p.0) + get_varint(bytes, pos)?))
    }
}

impl SortRecord for Key64 {
    #[inline]
    fn same(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

/// An edge with 64-bit ids and a weight stored as an order-preserving key
/// (see [`weight_key`]), so duplicates keep their smallest weight.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct WideEdge {
    pub source: u64,
    pub target: u64,
    pub weight: u32,
}

/// Map an f32 to a u32 whose unsigned order is the float order.
#[inline]
pub fn weight_key(w: f32) -> u32 {
    let b = w.to_bits();
    if b & 0x8000_0000 != 0 {
        !b
    } else {
        b | 0x8000_0000
    }
}

#[inline]
pub fn weight_from_key(k: u32) -> f32 {
    f32::from_bits(if k & 0x8000_0000 != 0 { k & 0x7fff_ffff } else { !k })
}

const NO_EDGE: WideEdge = WideEdge { source: 0, target: 0, weight: 0 };

impl RunRecord for WideEdge {
    const MAX_ENCODED: usize = 24;
    #[inline]
    fn encode(&self, prev: Option<&Self>, out: &mut Vec<u8>) {
        let prev = prev.unwrap_or(&NO_EDGE);
        let ds = self.source - prev.source;
        put_varint(ds, out);
        put_varint(if ds == 0 { self.target - prev.target } else { self.target }, out);
        out.extend_from_slice(&self.weight.to_le_bytes());
    }
    #[inline]
    fn decode(prev: Option<&Self>, bytes: &[u8], pos: &mut usize) -> std::result::Result<Self, &'static str> {
        let prev = prev.unwrap_or(&NO_EDGE);
        let ds = get_varint(bytes, pos)?;
        let t = get_varint(bytes, pos)?;
        let Some(w) = bytes.get(*pos..*pos + 4) else { return Err("truncated weight") };
        let weight = u32::from_le_bytes(w.try_into().unwrap());
        *pos += 4;
        Ok(if ds == 0 {
            WideEdge { source: prev.source, target: prev.target + t, weight }
        } else {
            WideEdge { source: prev.source + ds, target: t, weight }
        })
    }
}

impl SortRecord for WideEdge {
    #[inline]
    fn same(&self, other: &Self) -> bool {
        self.source == other.source && self.target == other.target
    }
}

/// Counters for reports and tests.
#[derive(Clone, Debug, Default)]
pub struct SortStats {
    pub records_in: u64,
    pub runs: u64,
    pub spilled_bytes: u64,
    pub merge_passes: u64,
}

fn sort_run<R: SortRecord>(buf: &mut Vec<R>, dedup: bool) {
    buf.par_sort_unstable();
    if dedup {
        buf.dedup_by(|b, a| a.same(b));
    }
}

fn write_run<R: SortRecord>(path: &Path, records: &[R]) -> Result<u64> {
    let mut w = RunWriter::create(path, RUN_WRITER_CHUNK)?;
    for r in records {
        w.push(r)?;
    }
    Ok(w.finish()?.bytes)
}

/// The chunk of the writer of a spilled run.
const RUN_WRITER_CHUNK: usize = 128 << 10;

/// What a spill's run writer holds (three chunks, one being written).
const SPILL_WRITER_BYTES: u64 = 3 * RUN_WRITER_CHUNK as u64;

/// A spill in flight returns its buffer for reuse, and the run's size.
type SpillHandle<R> = JoinHandle<Result<(Vec<R>, u64)>>;

/// For rebuilding a layout of the store at `dir` from a sort of its edges
/// within `memory` bytes: checks `minimum` ([`layout_minimum_for`]),
/// charges the process baseline and its scan or writer, and gives
/// `f` a sorter of half of the rest, spilling into a staging directory in
/// `dir`, which is removed however `f` ends.
pub(crate) fn with_layout_sorter<T>(
    dir: &Path,
    name: &str,
    memory: u64,
    minimum: &Minimum,
    f: impl FnOnce(ExternalSorter<WideEdge>, &Budget) -> Result<T>,
) -> Result<T> {
    minimum.check(memory)?;
    let budget = Budget::new(memory);
    let _base = budget.reserve("program, thread stacks and allocator slack", outcore_io::PROCESS_BASELINE)?;
    let _io = budget.reserve(&format!("{name}: {}", IO_PART), minimum.part(IO_PART))?;
    let tmp = outcore_io::TempArea::create(dir, &format!("{name}-sort"))?;
    let sorter = ExternalSorter::new(tmp.path(), name, &budget, budget.available() / 2, false)?;
    f(sorter, &budget)
}

/// What [`layout_minimum_for`] calls the larger of the scan and the writer.
const IO_PART: &str = "store scan, then layout writer";

/// What a sort of [`WideEdge`]s takes at its smallest: buffers of a MiB,
/// the spill's run writer and the merge's pipe (merges of two runs at a
/// time fit in the buffers' room once they are released).
pub const SORT_FLOOR: u64 = (1 << 20) + SPILL_WRITER_BYTES + pipe_bytes::<WideEdge>();

/// The least that building layout `name` (`tiles`, `in`) takes, before
/// the store is known (an import's plan): a scan and writer of a store
/// with short lists.
pub fn layout_minimum(name: &str) -> Minimum {
    Minimum::new(format!("building the {name} layout"))
        .with("program, thread stacks and allocator slack", outcore_io::PROCESS_BASELINE)
        .with(IO_PART, 12 << 20)
        .with("sort and merge buffers at their smallest", SORT_FLOOR)
}

/// The least that building layout `name` (`tiles`, `in`) of `store`
/// takes: the larger of the scan of `out` and the new layout's writer
/// (the scan ends before the writer starts; an `in` layout's lists are
/// charged as they grow).
pub fn layout_minimum_for(store: &outcore_store::Store, name: &str) -> Result<Minimum> {
    let out = store.layout("out")?;
    let weighted = out.record().weights.is_some();
    let writer = match name {
        "tiles" => outcore_store::tiles::TileWriter::buffer_bytes(weighted),
        _ => outcore_store::CsrWriter::buffer_bytes(out.record().encoding, weighted),
    };
    Ok(Minimum::new(format!("building the {name} layout"))
        .with("program, thread stacks and allocator slack", outcore_io::PROCESS_BASELINE)
        .with(IO_PART, out.scan_bytes()?.max(writer))
        .with("sort and merge buffers at their smallest", SORT_FLOOR))
}

pub struct ExternalSorter<R: SortRecord> {
    dir: PathBuf,
    name: String,
    budget: Budget,
    /// The two buffers' charge (handed on to an in-memory result).
    charge: Option<Reservation>,
    buf: Vec<R>,
    /// The second buffer, while no spill holds it.
    spare: Option<Vec<R>>,
    capacity: usize,
    dedup: bool,
    /// Spilled, removed with the sorter unless `finish` takes them.
    runs: RunFiles,
    spill: Option<SpillHandle<R>>,
    pub stats: SortStats,
}

impl<R: SortRecord> ExternalSorter<R> {
    /// A sorter whose two buffers (one filling, one sorting and spilling)
    /// and the writer of the run being spilled take `memory` bytes of
    /// `budget` (the buffers 1,024 records each at least); runs go to
    /// `dir` as `<name>-<n>.run`.
    pub fn new(dir: &Path, name: &str, budget: &Budget, memory: u64, dedup: bool) -> Result<Self> {
        let size = std::mem::size_of::<R>() as u64;
        let buffers = memory.saturating_sub(SPILL_WRITER_BYTES).max(2 * 1024 * size);
        let charge = budget.reserve(&format!("sort buffers ({name})"), buffers + SPILL_WRITER_BYTES)?;
        let capacity = (buffers / (2 * size)) as usize;
        Ok(ExternalSorter {
            dir: dir.to_path_buf(),
            name: name.to_string(),
            budget: budget.clone(),
            charge: Some(charge),
            buf: Vec::with_capacity(capacity.min(1 << 20)),
            spare: Some(Vec::new()),
            capacity,
            dedup,
            runs: RunFiles::default(),
            spill: None,
            stats: SortStats::default(),
        })
    }

    #[inline]
    pub fn push(&mut self, r: R) -> Result<()> {
        if self.buf.len() == self.capacity {
            self.spill()?;
        }
        self.buf.push(r);
        self.stats.records_in += 1;
        Ok(())
    }

    fn wait_spill(&mut self) -> Result<()> {
        if let Some(h) = self.spill.take() {
            let (buf, bytes) = h.join().map_err(|_| IngestError::Usage("sort thread panicked".into()))??;
            self.stats.spilled_bytes += bytes;
            self.spare = Some(buf);
        }
        Ok(())
    }

    fn spill(&mut self) -> Result<()> {
        self.wait_spill()?;
        let mut next = self.spare.take().expect("spare buffer");
        next.clear();
        if next.capacity() < self.capacity {
            next.reserve_exact(self.capacity - next.capacity());
        }
        let mut full = std::mem::replace(&mut self.buf, next);
        let path = self.dir.join(format!("{}-{}.run", self.name, self.runs.0.len()));
        self.runs.0.push(path.clone());
        self.stats.runs += 1;
        let dedup = self.dedup;
        self.spill = Some(std::thread::spawn(move || {
            sort_run(&mut full, dedup);
            let bytes = write_run(&path, &full)?;
            Ok((full, bytes))
        }));
        Ok(())
    }

    /// Sort what is left and return the records in order.
    pub fn finish(mut self) -> Result<Merged<R>> {
        if self.runs.0.is_empty() {
            let mut buf = std::mem::take(&mut self.buf);
            self.spare = None;
            sort_run(&mut buf, self.dedup);
            // the records stay in the buffer the sorter's charge paid for
            let charge = self.charge.take().expect("the sorter's charge");
            let stats = self.stats.clone();
            drop(self);
            return Ok(Merged { source: Source::Memory(buf.into_iter(), charge), last: None, dedup: false, stats });
        }
        if !self.buf.is_empty() {
            self.spill()?;
        }
        self.wait_spill()?;
        self.buf = Vec::new();
        self.spare = None;
        let runs = std::mem::take(&mut self.runs);
        let (budget, dir, name, dedup) = (self.budget.clone(), self.dir.clone(), self.name.clone(), self.dedup);
        let mut stats = self.stats.clone();
        drop(self); // release the sort buffers before the merge takes its readers
        let (runs, chunk, charge) = reduce_runs::<R>(runs, &budget, &dir, &name, dedup, &mut stats)?;
        stats.merge_passes += 1;
        let pipe = budget.reserve(&format!("merge pipe ({name})"), pipe_bytes::<R>())?;
        let merger = RunMerger::open(runs, chunk, charge)?;
        Ok(Merged::piped(merger, pipe, dedup, stats))
    }
}

impl<R: SortRecord> Drop for ExternalSorter<R> {
    fn drop(&mut self) {
        // the run being spilled is written to its end before the runs
        // (a field, dropped after this) are removed
        let _ = self.wait_spill();
    }
}

/// Reader chunk for `k` runs within half of what the budget has left (the
/// other half stays for whoever consumes the merge): each run reader holds
/// two chunks in its `SeqReader`, one in its window, and slack (charged as
/// [`RunReader::held_bytes`], under four chunks from [`MIN_MERGE_CHUNK`]
/// on).
fn merge_chunk(budget: &Budget, k: usize) -> usize {
    let per_run = budget.available() / 2 / (4 * k as u64).max(1);
    per_run.min(1 << 20) as usize / 4096 * 4096
}

const MIN_MERGE_CHUNK: usize = 16 << 10;

/// What a merge pass holds beside its readers: the pipe, and the writer
/// of the run it makes (three chunks of four reader chunks).
const fn merge_pass_beside<R>() -> u64 {
    pipe_bytes::<R>() + 3 * 4 * MIN_MERGE_CHUNK as u64
}

/// Run files that are removed when dropped, unless taken: a sort that
/// fails between its spills and its last merge, or a merge dropped half
/// way, leaves none behind.
#[derive(Default)]
struct RunFiles(Vec<PathBuf>);

impl Drop for RunFiles {
    fn drop(&mut self) {
        for r in &self.0 {
            let _ = std::fs::remove_file(r);
        }
    }
}

/// Merge groups of runs until one merge can read all that remain.
fn reduce_runs<R: SortRecord>(
    mut runs: RunFiles,
    budget: &Budget,
    dir: &Path,
    name: &str,
    dedup: bool,
    stats: &mut SortStats,
) -> Result<(RunFiles, usize, Reservation)> {
    let mut generation = 0;
    loop {
        let chunk = merge_chunk(budget, runs.0.len());
        if chunk >= MIN_MERGE_CHUNK || runs.0.len() <= 2 {
            let chunk = chunk.max(4096);
            let charge = budget.reserve(&format!("merge readers ({name})"), RunReader::<R>::held_bytes(chunk) * runs.0.len() as u64)?;
            return Ok((runs, chunk, charge));
        }
        // a pass merges groups of `fan_in` runs into one each: their
        // readers, beside the pipe and the writer of the run it makes
        let fan_in = (budget.available().saturating_sub(merge_pass_beside::<R>()) / RunReader::<R>::held_bytes(MIN_MERGE_CHUNK)) as usize;
        if fan_in < 2 {
            let least = 2 * RunReader::<R>::held_bytes(MIN_MERGE_CHUNK) + merge_pass_beside::<R>();
            return Err(budget.reserve("a merge pass: two run readers, its pipe and its run writer", least).unwrap_err().into());
        }
        generation += 1;
        stats.merge_passes += 1;
        // a group's runs are removed as its merge ends; the run it makes
        // is in `next` from the start
        let mut next = RunFiles::default();
        for (i, group) in runs.0.chunks(fan_in).enumerate() {
            if group.len() == 1 {
                next.0.push(group[0].clone());
                continue;
            }
            let charge = budget.reserve("merge readers", RunReader::<R>::held_bytes(MIN_MERGE_CHUNK) * group.len() as u64)?;
            let pipe = budget.reserve("merge pipe and run writer", merge_pass_beside::<R>())?;
            let merger = RunMerger::<R>::open(RunFiles(group.to_vec()), MIN_MERGE_CHUNK, charge)?;
            let mut merged = Merged::piped(merger, pipe, dedup, SortStats::default());
            let path = dir.join(format!("{name}-m{generation}-{i}.run"));
            next.0.push(path.clone());
            let mut w = RunWriter::create(&path, MIN_MERGE_CHUNK * 4)?;
            while let Some(r) = merged.next()? {
                w.push(&r)?;
            }
            stats.spilled_bytes += w.finish()?.bytes;
            drop(merged);
        }
        // every run was merged, or carried into `next`
        runs.0.clear();
        runs = next;
    }
}

/// The k-way merge of a group of run files, which it removes when dropped
/// (runs are consumed once), after its readers (fields drop in order).
struct RunMerger<R: SortRecord> {
    merge: Merge<R>,
    _runs: RunFiles,
    _charge: Reservation,
}

impl<R: SortRecord> RunMerger<R> {
    fn open(runs: RunFiles, chunk: usize, charge: Reservation) -> Result<Self> {
        let readers = runs.0.iter().map(|p| RunReader::open(p, chunk)).collect::<std::result::Result<Vec<_>, _>>()?;
        Ok(RunMerger { merge: Merge::new(readers)?, _runs: runs, _charge: charge })
    }

    #[inline]
    fn next(&mut self) -> Result<Option<R>> {
        Ok(self.merge.next()?)
    }
}

/// Records per block handed from the merge thread to the consumer.
const PIPE_BLOCK: usize = 1 << 12;

/// Full blocks the channel from the merge thread holds.
const PIPE_QUEUE: usize = 3;

/// What a merge's pipe holds at most: a block is made only when none
/// comes back for reuse, so besides the queued ones there are at most the
/// one filling and the one being read.
const fn pipe_bytes<R>() -> u64 {
    ((PIPE_QUEUE + 2) * PIPE_BLOCK * std::mem::size_of::<R>()) as u64
}

enum Source<R: SortRecord> {
    Memory(std::vec::IntoIter<R>, #[allow(dead_code)] Reservation),
    /// A thread merges the runs (and deduplicates) into blocks, so merging
    /// and whatever consumes the records run on separate cores.
    Pipe {
        blocks: Receiver<Result<Vec<R>>>,
        recycle: SyncSender<Vec<R>>,
        block: Vec<R>,
        pos: usize,
        thread: Option<JoinHandle<()>>,
        /// The blocks' memory ([`pipe_bytes`]).
        _charge: Reservation,
    },
}

/// The sorted output of an [`ExternalSorter`].
pub struct Merged<R: SortRecord> {
    source: Source<R>,
    last: Option<R>,
    dedup: bool,
    pub stats: SortStats,
}

impl<R: SortRecord> Merged<R> {
    fn piped(mut merger: RunMerger<R>, charge: Reservation, dedup: bool, stats: SortStats) -> Self {
        let (tx, rx) = sync_channel::<Result<Vec<R>>>(PIPE_QUEUE);
        let (recycle_tx, recycle_rx) = sync_channel::<Vec<R>>(4);
        let thread = std::thread::spawn(move || {
            let mut last: Option<R> = None;
            loop {
                let mut block = recycle_rx.try_recv().unwrap_or_else(|_| Vec::with_capacity(PIPE_BLOCK));
                block.clear();
                let mut done = false;
                while block.len() < PIPE_BLOCK {
                    match merger.next() {
                        Ok(Some(r)) => {
                            if dedup {
                                if let Some(l) = &last {
                                    if l.same(&r) {
                                        continue;
                                    }
                                }
                                last = Some(r);
                            }
                            block.push(r);
                        }
                        Ok(None) => {
                            done = true;
                            break;
                        }
                        Err(e) => {
                            let _ = tx.send(Err(e));
                            return;
                        }
                    }
                }
                if !block.is_empty() && tx.send(Ok(block)).is_err() {
                    return;
                }
                if done {
                    return;
                }
            }
        });
        Merged {
            source: Source::Pipe { blocks: rx, recycle: recycle_tx, block: Vec::new(), pos: 0, thread: Some(thread), _charge: charge },
            last: None,
            dedup: false,
            stats,
        }
    }

    #[inline]
    // fallible, so not an Iterator (whose `next` returns a bare Option)
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Result<Option<R>> {
        loop {
            let r = match &mut self.source {
                Source::Memory(it, _) => it.next(),
                Source::Pipe { blocks, recycle, block, pos, .. } => {
                    if *pos == block.len() {
                        match blocks.recv() {
                            Ok(Ok(b)) => {
                                let used = std::mem::replace(block, b);
                                let _ = recycle.try_send(used);
                                *pos = 0;
                            }
                            Ok(Err(e)) => return Err(e),
                            Err(_) => return Ok(None),
                        }
                    }
                    *pos += 1;
                    Some(block[*pos - 1])
                }
            };
            let Some(r) = r else { return Ok(None) };
            if self.dedup {
                if let Some(last) = &self.last {
                    if last.same(&r) {
                        continue;
                    }
                }
                self.last = Some(r);
            }
            return Ok(Some(r));
        }
    }
}

impl<R: SortRecord> Drop for Merged<R> {
    fn drop(&mut self) {
        if let Source::Pipe { blocks, thread, .. } = &mut self.source {
            // Disconnect so the merge thread stops, then wait for it (it owns run files).
            drop(std::mem::replace(blocks, sync_channel(0).1));
            if let Some(t) = thread.take() {
                let _ = t.join();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The names of the files in `dir`: what a sort left there.
    fn files_in(dir: &Path) -> Vec<std::ffi::OsString> {
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name()).collect()
    }

    /// A sorter of 32 KiB buffers in `dir` (1,024 keys a run) given `keys`
    /// distinct keys, which it has spilled but the last buffer's.
    fn spilled(dir: &Path, budget: &Budget, keys: u64) -> ExternalSorter<Key64> {
        let mut s = ExternalSorter::new(dir, "t", budget, 32 << 10, false).unwrap();
        for i in 0..keys {
            s.push(Key64(i.wrapping_mul(0x9E37_79B9_7F4A_7C15))).unwrap();
        }
        assert!(files_in(dir).len() > 1, "no runs spilled");
        s
    }

    fn sort_all<R: SortRecord + std::fmt::Debug>(records: &[R], memory: u64, budget_total: u64, dedup: bool) -> (Vec<R>, SortStats) {
        let dir = tempfile::tempdir().unwrap();
        let budget = Budget::new(budget_total);
        let mut s = ExternalSorter::new(dir.path(), "t", &budget, memory, dedup).unwrap();
        for r in records {
            s.push(*r).unwrap();
        }
        let mut m = s.finish().unwrap();
        let mut out = Vec::new();
        while let Some(r) = m.next().unwrap() {
            out.push(r);
        }
        let stats = m.stats.clone();
        drop(m);
        assert_eq!(files_in(dir.path()), Vec::<std::ffi::OsString>::new(), "runs left behind");
        (out, stats)
    }

    /// 200,000 keys of 50,000 values sorted with 32 KiB of sort buffers
    /// (some 200 runs) under a budget of `total` bytes, checked against a
    /// sort in memory; the sort's counters.
    fn many_runs(total: u64) -> SortStats {
        let records: Vec<Key64> = (0..200_000u64).map(|i| Key64(i.wrapping_mul(0x9E3779B97F4A7C15) % 50_000)).collect();
        let (out, stats) = sort_all(&records, 32 << 10, total, true);
        let mut expect: Vec<Key64> = records.clone();
        expect.sort();
        expect.dedup();
        assert_eq!(out, expect);
        assert!(stats.runs > 50, "{stats:?}");
        assert_eq!(stats.records_in, records.len() as u64, "{stats:?}");
        stats
    }

    /// A sorter dropped before it finishes (an import that fails or is
    /// interrupted half-way) removes the runs it spilled.
    #[test]
    fn a_sorter_dropped_unfinished_leaves_no_runs() {
        let dir = tempfile::tempdir().unwrap();
        let budget = Budget::new(64 << 20);
        drop(spilled(dir.path(), &budget, 100_000));
        let left = files_in(dir.path());
        assert!(left.is_empty(), "left behind: {left:?}");
        // dropped the moment its first spill starts: the run being written
        // is waited for, then removed (a spill thread left running would
        // write it after the drop)
        let mut s = ExternalSorter::new(dir.path(), "t", &budget, 32 << 10, false).unwrap();
        (0..=s.capacity as u64).for_each(|i| s.push(Key64(i)).unwrap());
        assert!(s.spill.is_some(), "no spill started");
        drop(s);
        std::thread::sleep(std::time::Duration::from_millis(100));
        let left = files_in(dir.path());
        assert!(left.is_empty(), "left behind by a spill in flight: {left:?}");
    }

    /// A merge pass needs two run readers beside its pipe and its writer:
    /// with that much left it merges two runs at a time (many passes, the
    /// records all there, in order); with a byte less the sort fails with
    /// a budget error that says so, leaving no runs behind.
    #[test]
    fn a_merge_pass_needs_two_readers_beside_its_pipe_and_writer() {
        let least = 2 * RunReader::<Key64>::held_bytes(MIN_MERGE_CHUNK) + merge_pass_beside::<Key64>();
        let records: Vec<Key64> = (0..100_000u64).map(|i| Key64(i.wrapping_mul(0x9E37_79B9_7F4A_7C15) % 80_000)).collect();
        let mut expect = records.clone();
        expect.sort();
        expect.dedup();
        for left in [least, least - 1] {
            let dir = tempfile::tempdir().unwrap();
            let budget = Budget::new(64 << 20);
            let mut s = ExternalSorter::new(dir.path(), "t", &budget, 32 << 10, true).unwrap();
            for &r in &records {
                s.push(r).unwrap();
            }
            // once the sort buffers are released, `left` bytes remain
            let _hog = budget.reserve("the rest", budget.available() - left + s.charge.as_ref().unwrap().bytes()).unwrap();
            match s.finish() {
                Ok(mut m) => {
                    assert_eq!(left, least, "merged with {left} bytes left");
                    let mut out = Vec::new();
                    while let Some(r) = m.next().unwrap() {
                        out.push(r);
                    }
                    assert_eq!(out, expect);
                    assert!(m.stats.merge_passes >= 5, "{:?}", m.stats);
                }
                Err(e) => {
                    assert_eq!(left, least - 1, "{left} bytes left: {e}");
                    assert!(e.to_string().contains("a merge pass: two run readers, its pipe and its run writer"), "{e}");
                }
            }
            assert_eq!(files_in(dir.path()), Vec::<std::ffi::OsString>::new(), "{left} bytes left: runs left behind");
        }
    }

    /// The last merge with room for its readers but not its pipe fails
    /// with a budget error that names the pipe, and removes the runs.
    #[test]
    fn a_last_merge_without_room_for_its_pipe_leaves_no_runs() {
        let dir = tempfile::tempdir().unwrap();
        let budget = Budget::new(64 << 20);
        // buffers of 1,024 edges: two runs
        let mut s = ExternalSorter::new(dir.path(), "t", &budget, 32 << 10, false).unwrap();
        for i in 0..2_000u64 {
            s.push(WideEdge { source: i.wrapping_mul(0x9E37_79B9_7F4A_7C15), target: i, weight: 0 }).unwrap();
        }
        // readers of 28 KiB chunks take half of what is left; the pipe does not fit the rest
        let left = 500 << 10;
        assert!(pipe_bytes::<WideEdge>() > left / 2);
        let _hog = budget.reserve("the rest", budget.available() - left + s.charge.as_ref().unwrap().bytes()).unwrap();
        let e = s.finish().err().expect("a merge without room for its pipe");
        assert!(e.to_string().contains("merge pipe (t)"), "{e}");
        let left = files_in(dir.path());
        assert!(left.is_empty(), "left behind: {left:?}");
    }

    /// A merge dropped before its end (a consumer that fails) stops its
    /// thread and removes its runs before the drop returns.
    #[test]
    fn a_merge_dropped_half_way_leaves_no_runs() {
        let dir = tempfile::tempdir().unwrap();
        let budget = Budget::new(64 << 20);
        let mut m = spilled(dir.path(), &budget, 200_000).finish().unwrap();
        assert!(m.next().unwrap().is_some());
        assert!(files_in(dir.path()).len() > 1, "no runs to merge");
        drop(m);
        let left = files_in(dir.path());
        assert!(left.is_empty(), "left behind: {left:?}");
    }

    /// A 1 MiB budget forces merge passes before the last merge (a few:
    /// each merges groups of several runs).
    #[test]
    fn many_runs_and_multi_pass_merge() {
        let stats = many_runs(1 << 20);
        assert!((2..=4).contains(&stats.merge_passes), "{stats:?}");
    }

    /// A budget whose half holds four 16 KiB reader chunks a run: one
    /// merge (the final one), no pass before it.
    #[test]
    fn many_runs_within_the_budget_merge_at_once() {
        let stats = many_runs(64 << 20);
        assert_eq!(stats.merge_passes, 1, "{stats:?}");
    }

    proptest! {
        #[test]
        fn wide_edges_sort_and_dedup_keeping_smallest_weight(
            edges in prop::collection::vec((0u64..1000, 0u64..1000, -5.0f32..5.0), 0..3000),
            dedup in any::<bool>(),
        ) {
            let records: Vec<WideEdge> = edges.iter().map(|&(s, t, w)| WideEdge { source: s << 30, target: t, weight: weight_key(w) }).collect();
            let (out, _) = sort_all(&records, 16 << 10, 64 << 20, dedup);
            let mut expect = records.clone();
            expect.sort();
            // one record an edge when deduplicating, told apart by its ends
            // here (not by the `same` under test)
            if dedup { expect.dedup_by(|b, a| (a.source, a.target) == (b.source, b.target)); }
            prop_assert_eq!(&out, &expect);
            let distinct: std::collections::HashSet<(u64, u64)> = edges.iter().map(|e| (e.0, e.1)).collect();
            prop_assert_eq!(out.len(), if dedup { distinct.len() } else { edges.len() });
            if dedup {
                for r in &out {
                    let min = edges.iter().filter(|e| e.0 << 30 == r.source && e.1 == r.target).map(|e| e.2).fold(f32::INFINITY, f32::min);
                    prop_assert_eq!(weight_from_key(r.weight), min);
                }
            }
        }
    }
}
