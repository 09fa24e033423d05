//! The sort-reduce engine (BigSparse, Jun et al.): fully external
//! analytics for when even the vertex values do not fit in memory.
//! Memory is set by the budget alone, never by |V| or |E|.
//!
//! A superstep (Algorithm 3, Figure 3):
//! 1. the active vertices come from a [`source::VertexSource`], usually the
//!    lazy [`values::Activation`] of the previous superstep's update log;
//! 2. their lists are read (a sequential scan of the layout when many are
//!    active, positioned lookups by several threads when few are: the
//!    VListSplit of section 4.4) and the [`Program`]'s edge program emits
//!    (vertex, update) pairs into fixed-size batches;
//! 3. a sorter thread sort-reduces each full batch in memory
//!    ([`reduce::sort_reduce`], parallel over id windows) and spills it
//!    as a sorted run; reading the edges and sorting overlap;
//! 4. runs are merged k at a time with reduction at every merge
//!    ([`reduce::merge_reduce`]) until one remains: the superstep's update
//!    log, a sparse vertex file. Each merge reads ahead and writes behind
//!    on background threads while it merges.
//!
//! Everything lives in a [`TempArea`] that is removed on success, error
//! and Ctrl-C; free disk space is checked before each superstep.

pub mod reduce;
pub mod run;
pub mod source;
pub mod values;

use outcore_io::{Budget, BudgetError, Reservation, TempArea};
use outcore_store::{Layout, Store, StoreError, STREAM_CHUNK_BYTES};
use reduce::{merge_reduce, sort_reduce, SortSpace};
pub use run::{Record, Run, RunReader, RunWriter};
use serde::Serialize;
use source::VertexSource;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Mutex;
use std::time::Instant;
pub use values::{Activation, ActivationStats, ValueFile};

/// Chunk of the vertex-file readers and writers.
pub const VALUE_CHUNK_BYTES: usize = 256 << 10;
/// Chunk of a run writer (three are held) and of each merge input (two).
const RUN_CHUNK_BYTES: usize = 512 << 10;
const MERGE_CHUNK_BYTES: usize = 64 << 10;
/// Updates per batch handed from the edge readers to the sorter.
const UPDATE_CHUNK: usize = 16 << 10;
/// Vertices per lookup task.
const LOOKUP_TASK: usize = 256;
/// A looked-up list costs about as much device time as this many bytes of a scan.
const LOOKUP_COST_BYTES: u64 = 32 << 10;
const MAX_FAN_IN: usize = 1024;
/// Larger batches reduce a little more but sort no faster.
const MAX_BATCH_UPDATES: usize = 1 << 25;

/// A push-style vertex program (Algorithm 1's four functions).
pub trait Program: Sync {
    /// The value each vertex keeps in the vertex file.
    type State: Record;
    /// What edge programs send; reduced with [`Program::reduce`].
    type Update: Record;
    /// Finalize every vertex each superstep, not only those with updates.
    const FINALIZE_ALL: bool = false;
    /// Called once per active vertex with its degree (all lists together):
    /// a place for global sums, which must be thread-safe.
    fn visit(&self, _u: u64, _state: &Self::State, _degree: u64) {}
    /// The edge program: what `u` sends along its edge to `v`, if anything.
    fn edge(&self, u: u64, state: &Self::State, degree: u64, v: u64, weight: f32) -> Option<Self::Update>;
    /// The vertex program: associative and commutative.
    fn reduce(&self, a: Self::Update, b: Self::Update) -> Self::Update;
    /// The new value from the old one and the reduced update (`None`: no update).
    fn finalize(&self, v: u64, old: Self::State, update: Option<Self::Update>) -> Self::State;
    /// Whether `v` is active in the next superstep.
    fn is_active(&self, v: u64, old: &Self::State, new: &Self::State) -> bool;
}

/// How a superstep reads the lists of its active vertices.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Access {
    /// Lookups when the active vertices are few, else a scan.
    #[default]
    Auto,
    Scan,
    Lookup,
}

#[derive(Clone, Debug)]
pub struct SortReduceOptions {
    /// Directory for update logs and vertex files (default: inside the store).
    pub temp_dir: Option<PathBuf>,
    pub access: Access,
    /// Caps on the updates of one in-memory batch and on the merge fan-in
    /// (default: what the budget allows); tests use them to force spills.
    pub max_batch_updates: Option<usize>,
    pub max_fan_in: Option<usize>,
    /// Threads issuing lookups (the device's queue depth).
    pub lookup_threads: usize,
}

impl Default for SortReduceOptions {
    fn default() -> Self {
        SortReduceOptions { temp_dir: None, access: Access::Auto, max_batch_updates: None, max_fan_in: None, lookup_threads: 8 }
    }
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct SuperstepStats {
    pub access: &'static str,
    pub active: u64,
    /// Updates the edge programs emitted.
    pub updates: u64,
    /// Updates left after the in-memory sort-reduce of each batch.
    pub reduced_in_memory: u64,
    pub runs: u64,
    /// External merge passes (levels of k-way merges).
    pub merge_passes: u32,
    /// Updates in the reduced log.
    pub log_entries: u64,
    pub update_bytes_written: u64,
    pub update_bytes_read: u64,
    pub value_bytes_read: u64,
    pub value_bytes_written: u64,
    /// Bytes of the layouts a scan read (lookups read only the pages they need).
    pub edge_bytes_scanned: u64,
    pub generate_seconds: f64,
    pub merge_seconds: f64,
    pub seconds: f64,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct SortReduceStats {
    pub batch_updates: usize,
    /// Updates per chunk handed to the sorter.
    pub chunk_updates: usize,
    pub fan_in: usize,
    pub lookup_threads: usize,
    pub supersteps: Vec<SuperstepStats>,
}

impl SortReduceStats {
    pub fn updates(&self) -> u64 {
        self.supersteps.iter().map(|s| s.updates).sum()
    }
    /// Updates after the in-memory phase over updates emitted.
    pub fn reduction_ratio(&self) -> f64 {
        let u = self.updates();
        if u == 0 {
            1.0
        } else {
            self.supersteps.iter().map(|s| s.reduced_in_memory).sum::<u64>() as f64 / u as f64
        }
    }
    pub fn bytes_written(&self) -> u64 {
        self.supersteps.iter().map(|s| s.update_bytes_written + s.value_bytes_written).sum()
    }
    pub fn bytes_read(&self) -> u64 {
        self.supersteps.iter().map(|s| s.update_bytes_read + s.value_bytes_read + s.edge_bytes_scanned).sum()
    }
    pub fn merge_passes(&self) -> u32 {
        self.supersteps.iter().map(|s| s.merge_passes).sum()
    }
}

pub struct SortReduce {
    vertices: u64,
    arcs: u64,
    layouts: Vec<Layout>,
    names: Vec<String>,
    /// Bytes of each layout's files.
    layout_bytes: Vec<u64>,
    temp: TempArea,
    opts: SortReduceOptions,
    stats: SortReduceStats,
    files: AtomicU64,
    /// Indices into `layouts` read by supersteps.
    using: Vec<usize>,
    /// The budget held for batches, merge inputs and streams; given back
    /// by [`SortReduce::release_budget`] once only the files are read.
    charge: Option<Reservation>,
}

/// Bytes one sequential scan holds per file (reader chunks and window).
const SCAN_BYTES_PER_FILE: u64 = 4 * STREAM_CHUNK_BYTES as u64;
/// Bytes one lookup holds per file.
const LOOKUP_BYTES_PER_FILE: u64 = 192 << 10;
/// Per merge input: two reader chunks and the decode buffer (up to two chunks).
const MERGE_INPUT_BYTES: u64 = 4 * MERGE_CHUNK_BYTES as u64;

fn files_of(l: &Layout) -> u64 {
    2 + l.weights_path().is_some() as u64 + l.blocks_path().is_some() as u64 + l.degrees_path().is_some() as u64
}

/// Memory besides the batches: scans or lookups, the activation's value
/// streams, a run writer, the accumulation windows, chunk slack.
pub fn fixed_bytes(layout_files: u64, lookup_threads: usize, update_bytes: usize) -> u64 {
    let entry = (8 + update_bytes).next_multiple_of(8) as u64;
    // per reader: its files and a chunk (plus a spare chunk)
    let reader = |files_bytes: u64| files_bytes + UPDATE_CHUNK as u64 * entry;
    let scan = reader(layout_files * SCAN_BYTES_PER_FILE) + UPDATE_CHUNK as u64 * entry;
    let lookups = lookup_threads as u64 * reader(layout_files * LOOKUP_BYTES_PER_FILE) + UPDATE_CHUNK as u64 * entry;
    // the activation's three value streams, a run writer, the threads'
    // windows and what the allocator keeps between phases (measured)
    scan.max(lookups) + 12 * VALUE_CHUNK_BYTES as u64 + 3 * RUN_CHUNK_BYTES as u64 + (10 << 20)
}

/// What one merge group returns: its run and its statistics.
type MergeResult<U> = Result<(Run<U>, SuperstepStats), StoreError>;

/// The smallest batch the engine runs with.
const MIN_BATCH_UPDATES: usize = 4 * UPDATE_CHUNK;

impl SortReduce {
    /// The smallest budget (beyond what is already charged) the engine
    /// opens with over `layouts` of `store` for updates of `update_bytes`.
    pub fn min_bytes(store: &Store, layouts: &[&str], update_bytes: usize, opts: &SortReduceOptions) -> Result<u64, StoreError> {
        let structure = store.layouts_for(layouts, "the sort-reduce engine")?;
        let layout_files: u64 = structure.iter().map(files_of).sum();
        Ok(Self::min_for(layout_files, opts.lookup_threads.max(1), update_bytes))
    }

    fn min_for(layout_files: u64, threads: usize, update_bytes: usize) -> u64 {
        let entry = (8 + update_bytes).next_multiple_of(8) as u64;
        fixed_bytes(layout_files, threads, update_bytes) + (MIN_BATCH_UPDATES as u64 * entry * 2).max(2 * MERGE_INPUT_BYTES + (6 << 20))
    }

    /// The engine over `layouts` of `store` for updates of `update_bytes`.
    pub fn open(
        store: &Store,
        layouts: &[&str],
        update_bytes: usize,
        budget: &Budget,
        opts: &SortReduceOptions,
    ) -> Result<Self, StoreError> {
        let structure = store.layouts_for(layouts, "the sort-reduce engine")?;
        let layout_files: u64 = structure.iter().map(files_of).sum();
        let threads = opts.lookup_threads.max(1);
        let fixed = fixed_bytes(layout_files, threads, update_bytes);
        let entry = (8 + update_bytes).next_multiple_of(8) as u64;
        let min = Self::min_for(layout_files, threads, update_bytes);
        let available = budget.available();
        if available < min {
            return Err(BudgetError {
                what: format!("one sort buffer of {} updates and the sort-reduce engine's streams", MIN_BATCH_UPDATES),
                needed: min,
                available,
                total: budget.total(),
                suggest: budget.total() + min - available,
            }
            .into());
        }
        let rest = available - fixed;
        let batch = ((rest / (2 * entry)) as usize).min(MAX_BATCH_UPDATES).min(opts.max_batch_updates.unwrap_or(usize::MAX)).max(1);
        let fan_in = ((rest.saturating_sub(6 << 20) / MERGE_INPUT_BYTES) as usize)
            .clamp(2, MAX_FAN_IN)
            .min(opts.max_fan_in.unwrap_or(usize::MAX))
            .max(2);
        // batches and merges take turns with the same memory
        let phases = (2 * batch as u64 * entry).max(fan_in as u64 * MERGE_INPUT_BYTES + (6 << 20));
        let charge = budget.reserve("sort-reduce batches, merge inputs and streams", fixed + phases)?;
        let parent = opts.temp_dir.clone().unwrap_or_else(|| store.dir().to_path_buf());
        let temp = TempArea::create(&parent, "sortreduce")?;
        let file_bytes = |p: PathBuf| std::fs::metadata(p).map_or(0, |m| m.len());
        let layout_bytes = structure
            .iter()
            .map(|l| {
                file_bytes(l.index_path())
                    + file_bytes(l.adjacency_path())
                    + l.weights_path().map_or(0, file_bytes)
                    + l.blocks_path().map_or(0, file_bytes)
            })
            .collect();
        let arcs = store.manifest().arcs;
        Ok(SortReduce {
            vertices: store.vertices(),
            arcs,
            layouts: structure,
            names: layouts.iter().map(|n| n.to_string()).collect(),
            layout_bytes,
            temp,
            opts: SortReduceOptions { lookup_threads: threads, ..opts.clone() },
            stats: SortReduceStats {
                batch_updates: batch,
                chunk_updates: UPDATE_CHUNK.min(batch),
                fan_in,
                lookup_threads: threads,
                supersteps: Vec::new(),
            },
            files: AtomicU64::new(0),
            using: (0..layouts.len()).collect(),
            charge: Some(charge),
        })
    }

    pub fn vertices(&self) -> u64 {
        self.vertices
    }
    /// The run is over: give back the budget held for batches, merge inputs
    /// and streams (the engine keeps its files, which results read with a
    /// chunk or two). It cannot run supersteps afterwards.
    pub fn release_budget(&mut self) {
        self.charge = None;
    }
    fn working(&self) -> Result<(), StoreError> {
        match self.charge {
            Some(_) => Ok(()),
            None => Err(StoreError::invalid(self.temp.path(), "the sort-reduce engine gave back its memory; open another to run more")),
        }
    }
    pub fn stats(&self) -> &SortReduceStats {
        &self.stats
    }

    fn file(&self, what: &str) -> PathBuf {
        self.temp.file(&format!("{what}-{}", self.files.fetch_add(1, Ordering::Relaxed)))
    }

    /// A new vertex file with `init(v)` for every vertex.
    pub fn values<S: Record>(&self, init: impl FnMut(u64) -> S) -> Result<ValueFile<S>, StoreError> {
        self.temp.require_free(self.vertices * 2 * std::mem::size_of::<S>() as u64, "the vertex files")?;
        Ok(ValueFile::create(self.file("values"), self.vertices, init)?.0)
    }

    /// A sparse vertex file from a list in memory (seeds: a BFS root, sources).
    pub fn log_from<U: Record>(&self, items: Vec<(u64, U)>) -> Result<Run<U>, StoreError> {
        let mut items = items;
        items.sort_by_key(|e| e.0);
        items.dedup_by_key(|e| e.0);
        let mut w = RunWriter::create(&self.file("seed"), 64 << 10)?;
        for (v, x) in &items {
            if *v >= self.vertices {
                return Err(StoreError::invalid(self.temp.path(), format!("vertex {v} is beyond the {} vertices", self.vertices)));
            }
            w.push(*v, x)?;
        }
        Ok(w.finish()?)
    }

    /// Write a source to a sparse vertex file (to keep a superstep's active set).
    pub fn save<T: Record>(&self, mut source: impl VertexSource<T>) -> Result<Run<T>, StoreError> {
        let mut w = RunWriter::create(&self.file("saved"), RUN_CHUNK_BYTES)?;
        while let Some((v, x)) = source.next()? {
            w.push(v, &x)?;
        }
        Ok(w.finish()?)
    }

    /// Read only these of the engine's layouts in the next supersteps
    /// (BC's backward passes read in-edges, its forward passes out-edges).
    pub fn use_layouts(&mut self, names: &[&str]) -> Result<(), StoreError> {
        let mut using = Vec::new();
        for name in names {
            using.push(self.names.iter().position(|l| l == name).ok_or_else(|| {
                StoreError::invalid(self.temp.path(), format!("the sort-reduce engine was not opened with layout '{name}'"))
            })?);
        }
        self.using = using;
        Ok(())
    }

    /// A new, empty writer for a sparse vertex file in the work area.
    pub fn run_writer<T: Record>(&self, what: &str) -> Result<RunWriter<T>, StoreError> {
        Ok(RunWriter::create(&self.file(what), RUN_CHUNK_BYTES)?)
    }

    /// The lazy activation of `log` against `values` (what [`Self::step`] reads).
    pub fn activate<'a, P: Program>(
        &self,
        program: &'a P,
        values: &'a ValueFile<P::State>,
        log: &Run<P::Update>,
    ) -> Result<Activation<'a, P>, StoreError> {
        Activation::new(program, values, log)
    }

    /// Bytes of the layouts a scan of the supersteps' layouts reads.
    fn scanned_bytes(&self) -> u64 {
        self.using.iter().map(|&k| self.layout_bytes[k]).sum()
    }

    /// One superstep: with no log, every vertex of `values` is active with
    /// its stored value; with a log, the active vertices are its lazy
    /// activation (and `values` is updated on the way). Returns the new log.
    pub fn step<P: Program>(
        &mut self,
        program: &P,
        values: &ValueFile<P::State>,
        log: Option<Run<P::Update>>,
    ) -> Result<Run<P::Update>, StoreError> {
        match log {
            None => self.superstep(values.source()?, program),
            Some(log) => {
                let mut act = self.activate(program, values, &log)?;
                let scan_by_log = log.entries.saturating_mul(LOOKUP_COST_BYTES) >= self.scanned_bytes();
                let out = if self.opts.access == Access::Auto && !P::FINALIZE_ALL && scan_by_log && log.entries < self.vertices / 4 {
                    // The log says "scan", but most of its vertices may not
                    // become active (BFS's late levels): activate it into a
                    // file first and choose by the real count.
                    let active = self.save(&mut act)?;
                    let out = self.superstep(source::Counted::new(active.reader(VALUE_CHUNK_BYTES)?, active.entries), program)?;
                    let last = self.stats.supersteps.last_mut().unwrap();
                    last.update_bytes_written += active.bytes;
                    last.update_bytes_read += active.bytes;
                    active.remove();
                    out
                } else {
                    self.superstep(&mut act, program)?
                };
                let last = self.stats.supersteps.last_mut().unwrap();
                last.value_bytes_read += act.stats.bytes_read;
                last.value_bytes_written += act.stats.bytes_written;
                last.update_bytes_read += log.bytes;
                log.remove();
                Ok(out)
            }
        }
    }

    /// Apply a last log to `values` without another superstep.
    pub fn finish<P: Program>(
        &mut self,
        program: &P,
        values: &ValueFile<P::State>,
        log: Run<P::Update>,
    ) -> Result<ActivationStats, StoreError> {
        let stats = self.activate(program, values, &log)?.complete()?;
        log.remove();
        Ok(stats)
    }

    /// One superstep from an explicit active source; returns the reduced update log.
    pub fn superstep<P: Program>(&mut self, mut active: impl VertexSource<P::State>, program: &P) -> Result<Run<P::Update>, StoreError> {
        self.working()?;
        let start = Instant::now();
        let hint = active.size_hint();
        let layout_bytes = self.scanned_bytes();
        let arcs = self.arcs * self.using.len() as u64;
        let lookup = match self.opts.access {
            Access::Scan => false,
            Access::Lookup => true,
            Access::Auto => hint.saturating_mul(LOOKUP_COST_BYTES) < layout_bytes,
        };
        // disk: the unreduced updates of the vertices about to be read, once
        let expected = if self.vertices == 0 { 0 } else { (hint.min(self.vertices) as u128 * arcs as u128 / self.vertices as u128) as u64 };
        let update_disk = expected * (std::mem::size_of::<P::Update>() as u64 + 3);
        self.temp.require_free(update_disk, "the update logs of the next superstep")?;

        let mut st = SuperstepStats { access: if lookup { "lookup" } else { "scan" }, ..Default::default() };
        let batch = self.stats.batch_updates;
        let chunk = self.stats.chunk_updates;
        let producers = if lookup { self.opts.lookup_threads } else { 1 };
        // a batch in the sorter's hands, one chunk per reader, one spare
        let chunks = batch.div_ceil(chunk) + producers + 1;
        let chunk_pool = ChunkPool::new(chunks, chunk);
        let (pool, this) = (&chunk_pool, &*self);
        let (runs, generated) = std::thread::scope(|scope| -> Result<_, StoreError> {
            let (tx, rx) = sync_channel::<Vec<(u64, P::Update)>>(chunks);
            let sorter = scope.spawn(move || this.sort_batches(rx, pool, program));
            let generated = if lookup {
                this.generate_by_lookup(&mut active, program, tx, pool)
            } else {
                this.generate_by_scan(&mut active, program, tx, pool)
            };
            let sorted = sorter.join().expect("sorter thread panicked")?;
            Ok((sorted, generated?))
        })?;
        // the chunks' memory goes to the merges
        drop(chunk_pool);
        outcore_io::release_free_memory();
        // whatever the scan did not reach is still activated (values written to the end)
        while active.next()?.is_some() {}
        let (active_count, updates) = generated;
        st.active = active_count;
        st.updates = updates;
        st.edge_bytes_scanned = if lookup { 0 } else { layout_bytes };
        st.generate_seconds = start.elapsed().as_secs_f64();
        st.runs = runs.len() as u64;
        st.reduced_in_memory = runs.iter().map(|r| r.entries).sum();
        st.update_bytes_written = runs.iter().map(|r| r.bytes).sum();
        let merging = Instant::now();
        let log = self.merge_all(runs, program, &mut st)?;
        st.merge_seconds = merging.elapsed().as_secs_f64();
        st.log_entries = log.entries;
        st.seconds = start.elapsed().as_secs_f64();
        outcore_io::release_free_memory();
        self.stats.supersteps.push(st);
        Ok(log)
    }

    fn sort_batches<P: Program>(
        &self,
        rx: Receiver<Vec<(u64, P::Update)>>,
        pool: &ChunkPool<P::Update>,
        program: &P,
    ) -> Result<Vec<Run<P::Update>>, StoreError> {
        let mut space = SortSpace::new(self.stats.batch_updates);
        let reduce = |a, b| program.reduce(a, b);
        let mut pending: Vec<Vec<(u64, P::Update)>> = Vec::new();
        let mut held = 0usize;
        let mut runs = Vec::new();
        let mut spill = |pending: &mut Vec<Vec<(u64, P::Update)>>| -> Result<(), StoreError> {
            let mut w = RunWriter::create(&self.file("run"), RUN_CHUNK_BYTES)?;
            sort_reduce(pending, self.vertices, &mut space, &reduce, |c| pool.give(c), |v, x| w.push(v, x))?;
            runs.push(w.finish()?);
            Ok(())
        };
        for chunk in rx {
            held += chunk.len();
            pending.push(chunk);
            if held >= self.stats.batch_updates {
                spill(&mut pending)?;
                held = 0;
            }
        }
        if held > 0 {
            spill(&mut pending)?;
        }
        Ok(runs)
    }

    /// Read every layout front to back, emitting for the active vertices.
    fn generate_by_scan<P: Program>(
        &self,
        active: &mut impl VertexSource<P::State>,
        program: &P,
        tx: SyncSender<Vec<(u64, P::Update)>>,
        pool: &ChunkPool<P::Update>,
    ) -> Result<(u64, u64), StoreError> {
        let mut scans = self.using.iter().map(|&k| self.layouts[k].scan()).collect::<Result<Vec<_>, _>>()?;
        let mut emitter = Emitter::new(tx, pool, self.stats.chunk_updates)?;
        let mut count = 0;
        while let Some((u, state)) = active.next()? {
            count += 1;
            emitter.emit_vertex(program, &mut scans, u, &state)?;
        }
        emitter.flush()?;
        Ok((count, emitter.emitted))
    }

    /// Split the active vertices into tasks of consecutive vertices taken
    /// by several lookup threads (each then reads in increasing order).
    fn generate_by_lookup<P: Program>(
        &self,
        active: &mut impl VertexSource<P::State>,
        program: &P,
        tx: SyncSender<Vec<(u64, P::Update)>>,
        pool: &ChunkPool<P::Update>,
    ) -> Result<(u64, u64), StoreError> {
        let threads = self.opts.lookup_threads;
        let (task_tx, task_rx) = sync_channel::<Vec<(u64, P::State)>>(2 * threads);
        let task_rx = Mutex::new(task_rx);
        let emitted = AtomicU64::new(0);
        std::thread::scope(|scope| -> Result<u64, StoreError> {
            let mut workers = Vec::new();
            for _ in 0..threads {
                let tx = tx.clone();
                let (task_rx, emitted) = (&task_rx, &emitted);
                workers.push(scope.spawn(move || -> Result<(), StoreError> {
                    let mut lookups = self.using.iter().map(|&k| self.layouts[k].lookup()).collect::<Result<Vec<_>, _>>()?;
                    let mut emitter = Emitter::new(tx, pool, self.stats.chunk_updates)?;
                    loop {
                        let task = task_rx.lock().unwrap().recv();
                        let Ok(task) = task else { break };
                        for (u, state) in task {
                            emitter.emit_vertex(program, &mut lookups, u, &state)?;
                        }
                    }
                    emitter.flush()?;
                    emitted.fetch_add(emitter.emitted, Ordering::Relaxed);
                    Ok(())
                }));
            }
            drop(tx);
            let mut count = 0;
            let mut task = Vec::with_capacity(LOOKUP_TASK);
            while let Some(x) = active.next()? {
                count += 1;
                task.push(x);
                // a send fails only when every worker has stopped on an error, reported below
                if task.len() == LOOKUP_TASK && task_tx.send(std::mem::replace(&mut task, Vec::with_capacity(LOOKUP_TASK))).is_err() {
                    break;
                }
            }
            if !task.is_empty() {
                let _ = task_tx.send(task);
            }
            drop(task_tx);
            for w in workers {
                w.join().expect("lookup thread panicked")?;
            }
            Ok(count)
        })
        .map(|count| (count, emitted.load(Ordering::Relaxed)))
    }

    /// Merge and reduce runs into one (sparse vertex files combined by the
    /// program's reduction); counted in the last superstep's figures.
    pub fn merge<P: Program>(&mut self, runs: Vec<Run<P::Update>>, program: &P) -> Result<Run<P::Update>, StoreError> {
        self.working()?;
        let mut st = SuperstepStats::default();
        let run = self.merge_all(runs, program, &mut st)?;
        if let Some(last) = self.stats.supersteps.last_mut() {
            last.update_bytes_read += st.update_bytes_read;
            last.update_bytes_written += st.update_bytes_written;
        }
        Ok(run)
    }

    /// Merge runs `fan_in` at a time, level by level, into one log. Levels
    /// before the last merge several groups at once, one per core, each
    /// with a share of the fan-in (the memory is the same).
    fn merge_all<P: Program>(
        &self,
        mut runs: Vec<Run<P::Update>>,
        program: &P,
        st: &mut SuperstepStats,
    ) -> Result<Run<P::Update>, StoreError> {
        let fan_in = self.stats.fan_in;
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 8);
        while runs.len() > 1 {
            if runs.len() <= fan_in {
                let merged = self.merge_group(runs, program, "log", st)?;
                runs = vec![merged];
                st.merge_passes += 1;
                break;
            }
            let parallel = cores.min(fan_in / 2).max(1);
            let per = (fan_in / parallel).max(2);
            let mut groups: Vec<Vec<Run<P::Update>>> = Vec::new();
            let mut rest = runs.into_iter().peekable();
            while rest.peek().is_some() {
                groups.push(rest.by_ref().take(per).collect());
            }
            let mut next = Vec::with_capacity(groups.len());
            while !groups.is_empty() {
                let round: Vec<Vec<Run<P::Update>>> = groups.drain(..parallel.min(groups.len())).collect();
                let results: Vec<MergeResult<P::Update>> = std::thread::scope(|scope| {
                    let handles: Vec<_> = round
                        .into_iter()
                        .map(|group| {
                            scope.spawn(move || {
                                let mut part = SuperstepStats::default();
                                self.merge_group(group, program, "merged", &mut part).map(|r| (r, part))
                            })
                        })
                        .collect();
                    handles.into_iter().map(|h| h.join().expect("merge thread panicked")).collect()
                });
                for r in results {
                    let (run, part) = r?;
                    st.update_bytes_read += part.update_bytes_read;
                    st.update_bytes_written += part.update_bytes_written;
                    next.push(run);
                }
            }
            runs = next;
            st.merge_passes += 1;
        }
        match runs.pop() {
            Some(r) => Ok(r),
            None => Ok(RunWriter::<P::Update>::create(&self.file("log"), 4096)?.finish()?),
        }
    }

    /// Merge-reduce one group of runs into a new run, deleting the inputs.
    fn merge_group<P: Program>(
        &self,
        group: Vec<Run<P::Update>>,
        program: &P,
        what: &str,
        st: &mut SuperstepStats,
    ) -> Result<Run<P::Update>, StoreError> {
        let reduce = |a, b| program.reduce(a, b);
        let mut readers = group.iter().map(|r| r.reader(MERGE_CHUNK_BYTES)).collect::<Result<Vec<_>, _>>()?;
        let mut w = RunWriter::create(&self.file(what), RUN_CHUNK_BYTES)?;
        merge_reduce(&mut readers, &reduce, |v, x| w.push(v, x))?;
        drop(readers);
        st.update_bytes_read += group.iter().map(|r| r.bytes).sum::<u64>();
        group.into_iter().for_each(Run::remove);
        let merged = w.finish()?;
        st.update_bytes_written += merged.bytes;
        Ok(merged)
    }
}

/// A fixed set of update chunks shared by the readers and the sorter, so
/// that updates in flight never exceed what the budget charged for them.
struct ChunkPool<U> {
    give: SyncSender<Vec<(u64, U)>>,
    take: Mutex<Receiver<Vec<(u64, U)>>>,
}

impl<U: Record> ChunkPool<U> {
    fn new(chunks: usize, size: usize) -> Self {
        let (give, take) = sync_channel(chunks);
        for _ in 0..chunks {
            give.send(Vec::with_capacity(size)).unwrap();
        }
        ChunkPool { give, take: Mutex::new(take) }
    }
    fn take(&self) -> Result<Vec<(u64, U)>, StoreError> {
        self.take.lock().unwrap().recv().map_err(|_| StoreError::invalid("sort-reduce", "the sorter stopped"))
    }
    fn give(&self, mut chunk: Vec<(u64, U)>) {
        chunk.clear();
        let _ = self.give.try_send(chunk);
    }
}

/// Collects a reader's updates into chunks for the sorter.
struct Emitter<'a, U> {
    tx: SyncSender<Vec<(u64, U)>>,
    pool: &'a ChunkPool<U>,
    chunk: Vec<(u64, U)>,
    size: usize,
    emitted: u64,
}

impl<'a, U: Record> Emitter<'a, U> {
    fn new(tx: SyncSender<Vec<(u64, U)>>, pool: &'a ChunkPool<U>, size: usize) -> Result<Self, StoreError> {
        Ok(Emitter { tx, chunk: pool.take()?, pool, size, emitted: 0 })
    }

    /// Read `u`'s list in each of `lists` (positioned at or before it),
    /// run the edge program over them, and visit `u` with its degree.
    fn emit_vertex<P: Program<Update = U>>(
        &mut self,
        program: &P,
        lists: &mut [outcore_store::AdjacencyScan],
        u: u64,
        state: &P::State,
    ) -> Result<(), StoreError> {
        let mut degree = 0;
        for l in lists.iter_mut() {
            l.seek(u)?;
            let (_, ids, ws) = l.next_list()?.unwrap();
            degree += ids.len() as u64;
            self.emit_list(program, u, state, ids, ws)?;
        }
        program.visit(u, state, degree);
        Ok(())
    }

    #[inline]
    fn emit_list<P: Program<Update = U>>(
        &mut self,
        program: &P,
        u: u64,
        state: &P::State,
        ids: &[u64],
        ws: &[f32],
    ) -> Result<(), StoreError> {
        let degree = ids.len() as u64;
        for (k, &v) in ids.iter().enumerate() {
            if let Some(x) = program.edge(u, state, degree, v, ws.get(k).copied().unwrap_or(1.0)) {
                self.emitted += 1;
                self.chunk.push((v, x));
                if self.chunk.len() >= self.size {
                    self.send()?;
                }
            }
        }
        Ok(())
    }

    fn send(&mut self) -> Result<(), StoreError> {
        let next = self.pool.take()?;
        self.hand_over(next)
    }

    /// Send the current chunk to the sorter, continuing with `next`.
    fn hand_over(&mut self, next: Vec<(u64, U)>) -> Result<(), StoreError> {
        let full = std::mem::replace(&mut self.chunk, next);
        // the sorter only hangs up after an error, which the superstep reports
        self.tx.send(full).map_err(|_| StoreError::invalid("sort-reduce", "the sorter stopped"))
    }

    /// Send what is left; the last chunk is not replaced (taking one could
    /// wait for a sorter that waits for this reader's chunks).
    fn flush(&mut self) -> Result<(), StoreError> {
        if !self.chunk.is_empty() {
            self.hand_over(Vec::new())?;
        }
        Ok(())
    }
}
