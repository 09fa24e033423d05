//! The dynamic store: a directory of partitions, each owned by one worker
//! thread while a batch is applied (owner = hash(source) mod P, the
//! single-node form of the thesis's process-per-partition design, section
//! 4.4.2), so the hot path takes no locks.
//!
//! Layout of `DIR/`:
//! - `STATE`: JSON: format, version, options, the committed epoch, and per
//!   partition its table places and counters. Replaced atomically (write,
//!   fsync, rename) by each commit.
//! - `part-K.heap`: the partition's shared tables (a shared mapping), and
//!   `part-K.aN.heap` for N < 32: its edge chunks, by hash range.
//! - `part-K[.aN].undo`: each heap's undo log of the epoch being built.
//! - `part-K[.aN].free.E`: each heap's free blocks at commit E (checksummed).
//! - `lock`: held (flock) while a process has the store open for writing.
//!
//! Durability: updates are durable once [`DynamicStore::commit`] returns
//! (each heap's undo log fsync'ed, then its written pages written in place
//! and fsync'ed, then the free lists, then `STATE` written, fsync'ed and
//! renamed over the old one, with the directory fsync'ed before and after).
//! A process that dies at any point (kill -9, panic, out of memory) or a
//! power failure at any point leaves a store that reopens at its last
//! commit (or, failing during a commit, possibly at that commit): opening
//! replays the undo logs backwards (see `heap.rs` for why that suffices,
//! and `tests/powerfail.rs` for the proof by fault injection).

use crate::durable;
use crate::error::{DynError, Result};
use crate::hash::{mix, owner};
use crate::heap::{Heap, HeapMeta};
use crate::partition::{Config, Counts, Edge, Inserted, Partition, TableDesc, TableStats, ARENAS};
use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

pub const FORMAT: &str = "outcore-dynamic";
pub const VERSION: u32 = 1;

/// Options fixed when a store is created.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StoreOptions {
    pub partitions: usize,
    /// Every edge is stored in both directions.
    pub undirected: bool,
    pub weighted: bool,
    /// Parallel edges are kept (with a multiplicity); otherwise an insert
    /// of an existing edge is ignored and counted.
    pub multigraph: bool,
    pub threshold: u32,
}

impl Default for StoreOptions {
    fn default() -> Self {
        StoreOptions { partitions: 1, undirected: false, weighted: false, multigraph: false, threshold: DEFAULT_THRESHOLD }
    }
}

/// Measured on Kronecker graphs (bench/dynamic, see README): vertices with
/// fewer distinct neighbours share the low-degree table.
pub const DEFAULT_THRESHOLD: u32 = 4;

/// The largest threshold: a vertex's low-degree edges share one key (its
/// source), so they lie in one run of the table however large it grows,
/// and a run longer than a probe reaches ([`crate::rhh::MAX_DIST`], with
/// room for the other keys among them) could never be inserted.
pub const MAX_THRESHOLD: u32 = 64;

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
struct PartState {
    low: TableDesc,
    vertices: TableDesc,
    counts: Counts,
    /// Committed end of each heap: the tables', then each arena's.
    heap_ends: Vec<u64>,
}

/// Most partitions a store has.
const MAX_PARTITIONS: usize = 4096;

/// Largest `STATE` read (4096 partitions of 33 heaps each take about 2 MiB).
const MAX_STATE_BYTES: u64 = 16 << 20;

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
struct State {
    format: String,
    version: u32,
    options: StoreOptions,
    epoch: u32,
    partitions: Vec<PartState>,
}

/// One update of a stream.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Update {
    InsertEdge { u: u64, v: u64, w: f32 },
    DeleteEdge { u: u64, v: u64 },
    InsertVertex { u: u64 },
    SetProperty { u: u64, value: u64 },
    DeleteVertex { u: u64 },
}

/// What applying updates did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct ApplyReport {
    pub updates: u64,
    pub inserted: u64,
    /// Inserts of an edge already present: parallel edges in a multigraph,
    /// ignored duplicates otherwise.
    pub existing: u64,
    pub deleted: u64,
    /// Deletes of edges that were not there (not an error).
    pub missing: u64,
    pub vertices_inserted: u64,
    pub properties_set: u64,
    pub vertices_deleted: u64,
    pub vertices_missing: u64,
    /// Edges removed because an endpoint was deleted.
    pub edges_of_deleted_vertices: u64,
}

impl ApplyReport {
    pub fn add(&mut self, o: &ApplyReport) {
        self.updates += o.updates;
        self.inserted += o.inserted;
        self.existing += o.existing;
        self.deleted += o.deleted;
        self.missing += o.missing;
        self.vertices_inserted += o.vertices_inserted;
        self.properties_set += o.properties_set;
        self.vertices_deleted += o.vertices_deleted;
        self.vertices_missing += o.vertices_missing;
        self.edges_of_deleted_vertices += o.edges_of_deleted_vertices;
    }
}

/// An update routed to its partition; `hash` orders a batch so every
/// table of the partition is swept in slot order.
#[derive(Clone, Copy)]
struct Op {
    hash: u64,
    u: u64,
    v: u64,
    w: f32,
    kind: u8,
    /// The mirror of an undirected edge (not counted in the report).
    mirror: bool,
}

const INSERT: u8 = 0;
const DELETE: u8 = 1;
const VERTEX: u8 = 2;
const PROPERTY: u8 = 3;

pub struct DynamicStore {
    dir: PathBuf,
    pub options: StoreOptions,
    epoch: u32,
    parts: Vec<Partition>,
    lock: Option<File>,
    /// When heap pages are written back during an apply (None: see
    /// [`Self::set_resident_limit`]).
    resident_limit: Option<Resident>,
}

/// Heap `h` of partition `k`: 0 holds the shared tables, 1.. the chunk arenas.
fn heap_name(k: usize, h: usize) -> String {
    if h == 0 {
        format!("part-{k}")
    } else {
        format!("part-{k}.a{}", h - 1)
    }
}
fn heap_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("{name}.heap"))
}
fn undo_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("{name}.undo"))
}
fn free_path(dir: &Path, name: &str, epoch: u32) -> PathBuf {
    dir.join(format!("{name}.free.{epoch}"))
}
/// Address space per mapping: every heap of the store (undo logs are
/// written, not mapped).
fn reserve(partitions: usize) -> usize {
    crate::heap::reserve_for(partitions * (1 + ARENAS))
}

fn lock(dir: &Path) -> Result<File> {
    let path = dir.join("lock");
    let f = OpenOptions::new().read(true).write(true).create(true).truncate(false).open(&path).map_err(|e| DynError::io(&path, e))?;
    // SAFETY: flock on a descriptor this function owns; no memory is involved.
    if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        return Err(DynError::Usage(format!("{}: the store is open in another process", dir.display())));
    }
    Ok(f)
}

impl DynamicStore {
    /// Create an empty store in `dir` (which must not exist or be empty).
    pub fn create(dir: &Path, options: StoreOptions) -> Result<DynamicStore> {
        if options.partitions == 0 || options.partitions > MAX_PARTITIONS {
            return Err(DynError::Parameter { name: "partitions".into(), reason: "must be between 1 and 4096".into() });
        }
        if !(1..=MAX_THRESHOLD).contains(&options.threshold) {
            return Err(DynError::Parameter { name: "threshold".into(), reason: format!("must be between 1 and {MAX_THRESHOLD}") });
        }
        if dir.join("STATE").exists() {
            return Err(DynError::Usage(format!("{}: a dynamic store already exists here", dir.display())));
        }
        if let Ok(entries) = std::fs::read_dir(dir) {
            let n = entries.count();
            if n > 0 {
                return Err(DynError::Usage(format!(
                    "{}: is a directory of {n} entr{} that is not a dynamic store; create the store at a new path or in an empty directory",
                    dir.display(),
                    if n == 1 { "y" } else { "ies" }
                )));
            }
        }
        std::fs::create_dir_all(dir).map_err(|e| DynError::io(dir, e))?;
        let lock = lock(dir)?;
        let cfg = Config { weighted: options.weighted, multigraph: options.multigraph, threshold: options.threshold };
        let mut parts = Vec::new();
        let reserve = reserve(options.partitions);
        for k in 0..options.partitions {
            let mut heaps = Vec::new();
            for h in 0..=ARENAS {
                let name = heap_name(k, h);
                let _ = std::fs::remove_file(heap_path(dir, &name));
                heaps.push(Heap::create(&heap_path(dir, &name), &undo_path(dir, &name), reserve)?);
            }
            let tables = heaps.remove(0);
            parts.push(Partition::create(cfg, tables, heaps)?);
        }
        let mut store = DynamicStore { dir: dir.to_path_buf(), options, epoch: 0, parts, lock: Some(lock), resident_limit: None };
        store.commit()?;
        Ok(store)
    }

    /// Open a store, rolling back whatever an interrupted process left
    /// after its last commit.
    pub fn open(dir: &Path) -> Result<DynamicStore> {
        let state_path = dir.join("STATE");
        if !dir.is_dir() {
            return Err(DynError::Usage(format!("{}: no such directory", dir.display())));
        }
        // a store holds only its own files: a link (to a file outside, which
        // opening would map for writing) is refused before anything is opened
        for entry in std::fs::read_dir(dir).map_err(|e| DynError::io(dir, e))?.flatten() {
            if entry.file_type().map(|t| t.is_symlink()).unwrap_or(true) {
                return Err(DynError::Corrupt(format!("{}: is a link; a dynamic store holds only its own files", entry.path().display())));
            }
        }
        if dir.join(PREPARED).exists() {
            return Err(DynError::Usage(format!(
                "{}: a distributed commit of this store is pending ({PREPARED}); open the distributed store with outcore-dist, which finishes or drops it with the other ranks",
                dir.display()
            )));
        }
        let state = read_state(&state_path)?;
        if state.partitions.len() != state.options.partitions {
            return Err(DynError::Corrupt(format!("{}: partition list does not match the options", state_path.display())));
        }
        let lock = lock(dir)?;
        let o = state.options;
        let cfg = Config { weighted: o.weighted, multigraph: o.multigraph, threshold: o.threshold };
        let mut parts = Vec::new();
        let reserve = reserve(o.partitions);
        for (k, p) in state.partitions.iter().enumerate() {
            if p.heap_ends.len() != 1 + ARENAS {
                return Err(DynError::Corrupt(format!(
                    "{}: partition {k} lists {} heaps, expected {}",
                    state_path.display(),
                    p.heap_ends.len(),
                    1 + ARENAS
                )));
            }
            let mut heaps = Vec::new();
            for (h, &end) in p.heap_ends.iter().enumerate() {
                let name = heap_name(k, h);
                let free = read_free(&free_path(dir, &name, state.epoch))?;
                let meta = HeapMeta { end, free };
                heaps.push(Heap::open(&heap_path(dir, &name), &undo_path(dir, &name), &meta, state.epoch, reserve)?);
                remove_stale_free(dir, &name, state.epoch);
            }
            let tables = heaps.remove(0);
            parts.push(Partition::open(cfg, tables, heaps, p.low, p.vertices, p.counts, &state_path)?);
        }
        Ok(DynamicStore { dir: dir.to_path_buf(), options: o, epoch: state.epoch, parts, lock: Some(lock), resident_limit: None })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Keep the process's resident set under `bytes` (the `--memory`
    /// promise covers the page cache): heap pages are written back and
    /// dropped when it grows past it. Pages written between commits are the
    /// process's own memory until written back, so without a limit (None)
    /// they are written back when they pass a quarter of what the process may
    /// use (its cgroup's limit, or the machine's memory), and clean pages
    /// are left to the kernel.
    pub fn set_resident_limit(&mut self, bytes: Option<u64>) {
        self.resident_limit = bytes.map(Resident::Total);
    }

    /// Write back the pages written since the last write-back when they
    /// pass `bytes` (of the process's anonymous memory), leaving clean
    /// pages to the kernel: the policy without a resident limit, with
    /// another threshold.
    pub fn set_written_limit(&mut self, bytes: u64) {
        self.resident_limit = Some(Resident::Written(bytes));
    }

    /// Drop every update since the last commit (as a crash would, then reopen).
    pub fn roll_back(&mut self) -> Result<()> {
        self.parts.clear();
        self.lock = None;
        let limit = self.resident_limit;
        *self = DynamicStore::open(&self.dir.clone())?;
        self.resident_limit = limit;
        Ok(())
    }

    /// The last committed epoch.
    pub fn epoch(&self) -> u32 {
        self.epoch
    }

    /// Make every update applied so far durable.
    pub fn commit(&mut self) -> Result<()> {
        self.write_state("STATE.tmp")?;
        self.install_state("STATE.tmp")
    }

    /// The first phase of a commit that other stores must agree to (the
    /// distributed store's two-phase commit): every update applied so far
    /// is made durable and the next state is written to `STATE.prepared`,
    /// but `STATE` still names the last commit. Then either
    /// [`Self::finish_prepared`] makes it the commit, or
    /// [`Self::abort_prepared`] drops it; a process that dies in between
    /// leaves a store that [`Self::open`] refuses until
    /// [`Self::resolve_prepared`] has decided. Returns the prepared epoch.
    pub fn prepare_commit(&mut self) -> Result<u32> {
        self.write_state(PREPARED)
    }

    /// Make the prepared state the commit (see [`Self::prepare_commit`]).
    pub fn finish_prepared(&mut self) -> Result<()> {
        self.install_state(PREPARED)
    }

    /// Drop the prepared state and every update since the last commit.
    pub fn abort_prepared(&mut self) -> Result<()> {
        let path = self.dir.join(PREPARED);
        if path.exists() {
            durable::remove(&path)?;
            durable::sync_dir(&self.dir)?;
        }
        self.roll_back()
    }

    /// The epoch a prepared commit left in `dir` (None: nothing pending).
    pub fn prepared_epoch(dir: &Path) -> Result<Option<u32>> {
        let path = dir.join(PREPARED);
        if !path.exists() {
            return Ok(None);
        }
        Ok(Some(read_state(&path)?.epoch))
    }

    /// Decide a prepared commit a process left in `dir` (see
    /// [`Self::prepare_commit`]): `commit` makes it the store's state,
    /// otherwise it is dropped (and opening rolls the heaps back to the
    /// last commit). Returns the prepared epoch, None if nothing was pending.
    pub fn resolve_prepared(dir: &Path, commit: bool) -> Result<Option<u32>> {
        let _lock = lock(dir)?;
        let path = dir.join(PREPARED);
        let Some(prepared) = Self::prepared_epoch(dir)? else { return Ok(None) };
        if commit {
            let current = read_state(&dir.join("STATE"))?.epoch;
            if prepared != current + 1 {
                return Err(DynError::Corrupt(format!(
                    "{}: prepares commit {prepared}, but the store is at commit {current}",
                    path.display()
                )));
            }
            durable::rename(&path, &dir.join("STATE"))?;
        } else {
            durable::remove(&path)?;
        }
        durable::sync_dir(dir)?;
        Ok(Some(prepared))
    }

    /// Write back every heap and the free lists, then the next state to
    /// `file` (synced, the directory too). Returns the new epoch.
    fn write_state(&mut self, file: &str) -> Result<u32> {
        let epoch = self.epoch + 1;
        let dir = self.dir.clone();
        let results: Vec<Result<PartState>> = std::thread::scope(|s| {
            let handles: Vec<_> = self
                .parts
                .iter_mut()
                .enumerate()
                .map(|(k, p)| {
                    let dir = &dir;
                    s.spawn(move || {
                        let mut heap_ends = Vec::new();
                        for (h, heap) in p.heaps_mut().enumerate() {
                            heap.write_back(true)?;
                            let meta = heap.meta();
                            write_free(&free_path(dir, &heap_name(k, h), epoch), &meta.free)?;
                            heap_ends.push(meta.end);
                        }
                        Ok(PartState { low: p.low, vertices: p.vertices, counts: p.counts, heap_ends })
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().expect("commit thread")).collect()
        });
        let partitions = results.into_iter().collect::<Result<Vec<_>>>()?;
        let state = State { format: FORMAT.into(), version: VERSION, options: self.options, epoch, partitions };
        let text = serde_json::to_string_pretty(&state).expect("state serializes");
        durable::write_synced(&self.dir.join(file), text.as_bytes())?;
        // the free lists' entries are durable before STATE names them
        durable::sync_dir(&self.dir)?;
        Ok(epoch)
    }

    /// Rename the state that [`Self::write_state`] wrote (of the next
    /// epoch) over `STATE`: the commit point. Then start the next epoch.
    fn install_state(&mut self, file: &str) -> Result<()> {
        let epoch = self.epoch + 1;
        durable::rename(&self.dir.join(file), &self.dir.join("STATE"))?;
        durable::sync_dir(&self.dir)?;
        self.epoch = epoch;
        for (k, p) in self.parts.iter_mut().enumerate() {
            for (h, heap) in p.heaps_mut().enumerate() {
                heap.committed()?;
                remove_stale_free(&self.dir, &heap_name(k, h), epoch);
            }
        }
        Ok(())
    }

    #[inline]
    fn part_of(&self, u: u64) -> &Partition {
        &self.parts[owner(mix(u), self.parts.len())]
    }

    /// Apply updates in order (not yet durable: see [`Self::commit`]).
    pub fn apply(&mut self, updates: &[Update]) -> Result<ApplyReport> {
        let mut report = ApplyReport::default();
        let mut start = 0;
        while start < updates.len() {
            let deletes = matches!(updates[start], Update::DeleteVertex { .. });
            let end = start
                + updates[start..]
                    .iter()
                    .position(|x| matches!(x, Update::DeleteVertex { .. }) != deletes)
                    .unwrap_or(updates.len() - start);
            let r = if deletes { self.delete_vertices(&updates[start..end])? } else { self.apply_round(&updates[start..end])? };
            report.add(&r);
            start = end;
        }
        Ok(report)
    }

    /// Updates without vertex deletes: each partition applies its share.
    fn apply_round(&mut self, updates: &[Update]) -> Result<ApplyReport> {
        self.apply_ops_routed(updates.iter().map(|&x| (x, false)), updates.len(), self.options.undirected)
    }

    /// Apply updates that a distributed store has already routed to this
    /// store (the owner of each source): `(update, mirror)` pairs, applied
    /// in order as given, with no mirror made here (an undirected insert's
    /// mirror is routed to its own owner, flagged `true`, and not counted
    /// in the report). Vertex deletes are not routed updates (see
    /// [`Self::delete_vertices_everywhere`]).
    pub fn apply_routed(&mut self, updates: &[(Update, bool)]) -> Result<ApplyReport> {
        if updates.iter().any(|(x, _)| matches!(x, Update::DeleteVertex { .. })) {
            return Err(DynError::Usage("a vertex delete is not a routed update: use delete_vertices_everywhere".into()));
        }
        let originals = updates.iter().filter(|(_, m)| !m).count();
        let mut r = self.apply_ops_routed(updates.iter().copied(), updates.len(), false)?;
        r.updates = originals as u64;
        Ok(r)
    }

    /// Delete vertices `us` from this store as one part of a distributed
    /// store: each one's entry and out-edges if its source is here, and
    /// every edge here that ends at one of them (found by a scan, since the
    /// sources of those edges, or of an undirected edge's mirror, may live
    /// anywhere). Returns the report and, per vertex, whether this store
    /// had it (an entry or an edge to it).
    pub fn delete_vertices_everywhere(&mut self, us: &[u64]) -> Result<(ApplyReport, Vec<bool>)> {
        let updates: Vec<Update> = us.iter().map(|&u| Update::DeleteVertex { u }).collect();
        self.delete_vertices_scanning(&updates, true)
    }

    /// Route updates (no vertex deletes) to partitions and apply them;
    /// `mirror_here`: make each undirected edge's mirror in this store.
    fn apply_ops_routed(&mut self, updates: impl Iterator<Item = (Update, bool)>, len: usize, mirror_here: bool) -> Result<ApplyReport> {
        let p = self.parts.len();
        let mut batches: Vec<Vec<Op>> = (0..p).map(|_| Vec::with_capacity(len / p + 16)).collect();
        let undirected = mirror_here;
        let mut push = |u: u64, v: u64, w: f32, kind: u8, mirror: bool| {
            let hash = mix(u);
            batches[owner(hash, p)].push(Op { hash, u, v, w, kind, mirror });
        };
        for (x, mirrored) in updates {
            match x {
                Update::InsertEdge { u, v, w } => {
                    push(u, v, w, INSERT, mirrored);
                    if undirected && u != v {
                        push(v, u, w, INSERT, true);
                    }
                }
                Update::DeleteEdge { u, v } => {
                    push(u, v, 0.0, DELETE, mirrored);
                    if undirected && u != v {
                        push(v, u, 0.0, DELETE, true);
                    }
                }
                Update::InsertVertex { u } => push(u, 0, 0.0, VERTEX, mirrored),
                Update::SetProperty { u, value } => push(u, value, 0.0, PROPERTY, mirrored),
                Update::DeleteVertex { .. } => unreachable!(),
            }
        }
        let limit = self.resident_limit.unwrap_or_else(|| Resident::Written(default_written_limit()));
        let results: Vec<Result<ApplyReport>> = std::thread::scope(|s| {
            let handles: Vec<_> =
                self.parts.iter_mut().zip(batches).map(|(part, mut ops)| s.spawn(move || apply_ops(part, &mut ops, limit))).collect();
            handles.into_iter().map(|h| h.join().expect("apply thread")).collect()
        });
        let mut report = ApplyReport { updates: len as u64, ..Default::default() };
        for r in results {
            report.add(&r?);
        }
        Ok(report)
    }

    /// Delete vertices with their out-edges and in-edges. In undirected
    /// stores the in-edges are the mirrors of the out-edges; in directed
    /// ones a scan of all partitions finds them.
    fn delete_vertices(&mut self, updates: &[Update]) -> Result<ApplyReport> {
        Ok(self.delete_vertices_scanning(updates, !self.options.undirected)?.0)
    }

    /// [`Self::delete_vertices`], scanning every partition for in-edges
    /// when `scan` (else undirected in-edges are found as mirrors).
    fn delete_vertices_scanning(&mut self, updates: &[Update], scan: bool) -> Result<(ApplyReport, Vec<bool>)> {
        let mut report = ApplyReport { updates: updates.len() as u64, ..Default::default() };
        let mut gone = HashSet::new();
        let mut found = HashSet::new();
        let mut mirrors = Vec::new();
        for x in updates {
            let Update::DeleteVertex { u } = *x else { unreachable!() };
            let k = owner(mix(u), self.parts.len());
            let arcs = self.parts[k].counts.arcs;
            if let Some(targets) = self.parts[k].delete_vertex(u)? {
                found.insert(u);
                report.edges_of_deleted_vertices += arcs - self.parts[k].counts.arcs;
                if !scan {
                    mirrors.extend(targets.into_iter().filter(|&t| t != u).map(|t| (t, u)));
                }
            }
            gone.insert(u);
        }
        if scan {
            for part in &self.parts {
                part.for_each_edge(|s, e| {
                    if gone.contains(&e.target) {
                        mirrors.push((s, e.target));
                    }
                });
            }
        }
        for (s, t) in mirrors {
            let k = owner(mix(s), self.parts.len());
            // All parallel copies go with the vertex.
            while self.parts[k].delete_edge(s, t)? {
                report.edges_of_deleted_vertices += 1;
                found.insert(t);
            }
        }
        // as after any batch: shrink the shared tables the deletes emptied
        for part in &mut self.parts {
            part.maintain()?;
        }
        report.vertices_deleted = found.len() as u64;
        report.vertices_missing = gone.len() as u64 - report.vertices_deleted;
        let had = updates.iter().map(|x| matches!(*x, Update::DeleteVertex { u } if found.contains(&u))).collect();
        Ok((report, had))
    }

    /// Out-degree (parallel edges counted).
    pub fn degree(&self, u: u64) -> u64 {
        self.part_of(u).degree(u)
    }

    pub fn for_each_neighbour(&self, u: u64, f: impl FnMut(Edge)) {
        self.part_of(u).for_each_neighbour(u, f)
    }

    pub fn neighbours(&self, u: u64) -> Vec<Edge> {
        let mut out = Vec::new();
        self.for_each_neighbour(u, |e| out.push(e));
        out
    }

    pub fn edge(&self, u: u64, v: u64) -> Option<Edge> {
        self.part_of(u).edge(u, v)
    }

    pub fn property(&self, u: u64) -> Option<u64> {
        self.part_of(u).property(u)
    }

    /// Edges stored (each direction of an undirected edge counts once;
    /// parallel edges counted).
    pub fn arcs(&self) -> u64 {
        self.parts.iter().map(|p| p.counts.arcs).sum()
    }

    pub fn partitions(&self) -> &[Partition] {
        &self.parts
    }

    /// Every stored arc, partition by partition.
    pub fn for_each_edge(&self, mut f: impl FnMut(u64, Edge)) {
        for p in &self.parts {
            p.for_each_edge(&mut f)
        }
    }

    /// Every vertex with out-edges or an entry, partition by partition
    /// (targets without out-edges are not listed).
    pub fn for_each_source(&self, mut f: impl FnMut(u64)) {
        for p in &self.parts {
            p.for_each_vertex(&mut f)
        }
    }

    /// Heap bytes in use (allocated, free blocks included).
    pub fn heap_bytes(&self) -> u64 {
        self.parts.iter().flat_map(|p| p.heaps()).map(|h| h.bytes()).sum()
    }
    pub fn free_bytes(&self) -> u64 {
        self.parts.iter().flat_map(|p| p.heaps()).map(|h| h.free_bytes()).sum()
    }

    pub fn counts(&self) -> Counts {
        let mut c = Counts::default();
        for p in &self.parts {
            c.add(&p.counts);
        }
        c
    }

    pub fn table_stats(&self) -> Vec<TableStats> {
        self.parts.iter().map(|p| p.table_stats()).collect()
    }

    /// Check every partition's invariants.
    pub fn check(&self) -> std::result::Result<(), String> {
        for (k, p) in self.parts.iter().enumerate() {
            p.check().map_err(|e| format!("partition {k}: {e}"))?;
        }
        Ok(())
    }

    /// Bytes the undo logs saved since the store was opened.
    pub fn undo_bytes(&self) -> u64 {
        self.parts.iter().flat_map(|p| p.heaps()).map(|h| h.undo.saved_bytes).sum()
    }
}

/// Updates between a prefetch and its use: enough to overlap several
/// cache or page misses, few enough that the lines are still there.
const PREFETCH_DISTANCE: usize = 12;

/// When heap pages are written back during an apply.
#[derive(Clone, Copy)]
enum Resident {
    /// The whole resident set (written pages and cached clean ones) past
    /// this: write back, then drop every page of the partition's heaps.
    Total(u64),
    /// The pages written since the last write-back (the process's
    /// anonymous memory) past this: write them back; clean pages are the
    /// kernel's to reclaim.
    Written(u64),
}

/// Sort a partition's ops by hash (stable: ops on one source keep their
/// order) and apply them.
fn apply_ops(part: &mut Partition, ops: &mut Vec<Op>, resident_limit: Resident) -> Result<ApplyReport> {
    radix_sort_by_hash(ops);
    let mut r = ApplyReport::default();
    let (mut run_end, mut prepared) = (0, false);
    for (i, op) in ops.iter().enumerate() {
        if let Some(ahead) = ops.get(i + PREFETCH_DISTANCE) {
            part.prefetch(ahead.u, ahead.v);
        }
        if i == run_end {
            // A run of inserts from one source: make room for all at once.
            run_end = i + ops[i..].iter().take_while(|o| o.u == op.u && o.kind == INSERT).count().max(1);
            prepared = op.kind == INSERT && run_end - i > 1;
            if prepared {
                part.prepare_inserts(op.u, (run_end - i) as u64)?;
            }
        }
        match op.kind {
            INSERT => match part.insert_edge(op.u, op.v, op.w)? {
                Inserted::New if !op.mirror => r.inserted += 1,
                Inserted::Existing if !op.mirror => r.existing += 1,
                _ => {}
            },
            DELETE => {
                let found = part.delete_edge(op.u, op.v)?;
                if !op.mirror {
                    if found {
                        r.deleted += 1
                    } else {
                        r.missing += 1
                    }
                }
            }
            VERTEX => {
                part.upsert_vertex(op.u, None)?;
                r.vertices_inserted += 1;
            }
            PROPERTY => {
                part.upsert_vertex(op.u, Some(op.v))?;
                r.properties_set += 1;
            }
            _ => unreachable!(),
        }
        if prepared && i + 1 == run_end {
            part.settle(op.u)?;
        }
        // The mapped pages count against the budget: when the process is
        // over it, write this partition's pages back and drop them.
        if i & 0xffff == 0xffff {
            keep_resident_under(part, resident_limit)?;
        }
    }
    // and after every batch, however small (a distributed store applies
    // many small ones)
    keep_resident_under(part, resident_limit)?;
    part.maintain()?;
    Ok(r)
}

fn keep_resident_under(part: &mut Partition, resident_limit: Resident) -> Result<()> {
    match resident_limit {
        Resident::Total(limit) if resident_bytes() > limit => release(part),
        Resident::Written(limit) if written_bytes() > limit => part.heaps_mut().try_for_each(|h| h.write_back(false).map(|_| ())),
        _ => Ok(()),
    }
}

fn release(part: &mut Partition) -> Result<()> {
    part.heaps_mut().try_for_each(|h| h.release_pages())
}

/// A quarter of the memory this process may use: its memory cgroup's
/// limit (cgroup v2 `memory.max`, v1 `memory.limit_in_bytes`) or, without
/// one, the machine's memory. Written pages and the page cache copies they
/// are made from are both resident; of the fractions tried under memcap
/// (1/2, 1/4, 1/8 of a cap well below the heap), a quarter deleted fastest.
pub fn default_written_limit() -> u64 {
    static LIMIT: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *LIMIT.get_or_init(|| {
        let read_u64 = |p: &str| std::fs::read_to_string(p).ok().and_then(|s| s.trim().parse::<u64>().ok());
        let machine = std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|m| m.lines().find(|l| l.starts_with("MemTotal:")).and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok()))
            .map_or(u64::MAX, |kib| kib * 1024);
        let cgroup = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
        let mut limit = machine;
        for line in cgroup.lines() {
            let mut f = line.splitn(3, ':');
            let (_, controllers, path) = (f.next(), f.next().unwrap_or(""), f.next().unwrap_or(""));
            let file = if controllers.is_empty() {
                format!("/sys/fs/cgroup{path}/memory.max")
            } else if controllers.split(',').any(|c| c == "memory") {
                format!("/sys/fs/cgroup/memory{path}/memory.limit_in_bytes")
            } else {
                continue;
            };
            if let Some(l) = read_u64(&file) {
                limit = limit.min(l);
            }
        }
        limit / 4
    })
}

/// This process's resident and file-backed resident pages, from
/// /proc/self/statm (0 where it cannot be read).
fn statm_pages() -> (u64, u64) {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let mut f = statm.split_whitespace().skip(1).map(|x| x.parse::<u64>().unwrap_or(0));
    (f.next().unwrap_or(0), f.next().unwrap_or(0))
}

/// This process's anonymous resident memory (resident minus file-backed):
/// heap pages written since their last write-back, and the heap allocations.
pub fn written_bytes() -> u64 {
    let (resident, file) = statm_pages();
    resident.saturating_sub(file) * 4096
}

/// Resident set of this process (mapped file pages included).
pub fn resident_bytes() -> u64 {
    statm_pages().0 * 4096
}

/// Stable LSD radix sort on the top 32 bits of the hash (two 16-bit passes).
fn radix_sort_by_hash(ops: &mut Vec<Op>) {
    if ops.len() < 64 {
        ops.sort_by_key(|o| o.hash >> 32);
        return;
    }
    let mut tmp: Vec<Op> = Vec::with_capacity(ops.len());
    for shift in [32u32, 48] {
        let mut counts = vec![0usize; 1 << 16];
        for o in ops.iter() {
            counts[((o.hash >> shift) & 0xffff) as usize] += 1;
        }
        let mut sum = 0;
        for c in counts.iter_mut() {
            let n = *c;
            *c = sum;
            sum += n;
        }
        tmp.clear();
        let spare = &mut tmp.spare_capacity_mut()[..ops.len()];
        for o in ops.iter() {
            let b = ((o.hash >> shift) & 0xffff) as usize;
            spare[counts[b]].write(*o);
            counts[b] += 1;
        }
        // SAFETY: the counts are the exclusive prefix sums of the bucket
        // sizes, so the loop wrote each of the first ops.len() slots once.
        unsafe { tmp.set_len(ops.len()) };
        std::mem::swap(ops, &mut tmp);
    }
}

/// The state a prepared commit writes (see [`DynamicStore::prepare_commit`]).
const PREPARED: &str = "STATE.prepared";

/// Read and check a state file.
fn read_state(state_path: &Path) -> Result<State> {
    let size = std::fs::symlink_metadata(state_path).map_err(|e| DynError::io(state_path, e))?.len();
    if size > MAX_STATE_BYTES {
        return Err(DynError::Corrupt(format!("{}: {size} bytes, more than any state file needs", state_path.display())));
    }
    let text = std::fs::read_to_string(state_path).map_err(|e| DynError::io(state_path, e))?;
    let state: State = serde_json::from_str(&text)
        .map_err(|e| DynError::Corrupt(format!("{}: not a dynamic store state file ({e})", state_path.display())))?;
    if state.format != FORMAT {
        return Err(DynError::Corrupt(format!("{}: format '{}', expected '{FORMAT}'", state_path.display(), state.format)));
    }
    if state.version != VERSION {
        return Err(DynError::Corrupt(format!(
            "{}: written by store version {}, this outcore reads version {VERSION}",
            state_path.display(),
            state.version
        )));
    }
    if state.options.partitions == 0 || state.options.partitions > MAX_PARTITIONS || !(1..=MAX_THRESHOLD).contains(&state.options.threshold)
    {
        return Err(DynError::Corrupt(format!(
            "{}: {} partitions, threshold {}: not a state this outcore writes",
            state_path.display(),
            state.options.partitions,
            state.options.threshold
        )));
    }
    Ok(state)
}

/// Free lists: `count: u64`, then `(size, offset)` pairs, then the xxh3 of all before.
fn write_free(path: &Path, free: &[(u64, u64)]) -> Result<()> {
    let mut bytes = Vec::with_capacity(16 + free.len() * 16);
    bytes.extend_from_slice(&(free.len() as u64).to_le_bytes());
    for &(s, o) in free {
        bytes.extend_from_slice(&s.to_le_bytes());
        bytes.extend_from_slice(&o.to_le_bytes());
    }
    let sum = xxhash_rust::xxh3::xxh3_64(&bytes);
    bytes.extend_from_slice(&sum.to_le_bytes());
    durable::write_synced(path, &bytes)
}

fn read_free(path: &Path) -> Result<Vec<(u64, u64)>> {
    let bytes = std::fs::read(path).map_err(|e| DynError::io(path, e))?;
    let bad = || DynError::Corrupt(format!("{}: damaged free list (truncated or checksum mismatch)", path.display()));
    if bytes.len() < 16 {
        return Err(bad());
    }
    let n = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    if bytes.len() != 16 + n * 16 {
        return Err(bad());
    }
    let sum = u64::from_le_bytes(bytes[bytes.len() - 8..].try_into().unwrap());
    if xxhash_rust::xxh3::xxh3_64(&bytes[..bytes.len() - 8]) != sum {
        return Err(bad());
    }
    Ok((0..n)
        .map(|i| {
            let at = 8 + i * 16;
            (u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()), u64::from_le_bytes(bytes[at + 8..at + 16].try_into().unwrap()))
        })
        .collect())
}

fn remove_stale_free(dir: &Path, name: &str, epoch: u32) {
    let prefix = format!("{name}.free.");
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            if let Some(rest) = name.strip_prefix(&prefix) {
                if rest != epoch.to_string() {
                    let _ = durable::remove(&e.path());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The invariant checker (`check`, which the model tests lean on)
    /// finds a partition's recorded counts wrong when either is wrong alone.
    #[test]
    fn check_finds_either_count_wrong_alone() {
        let _bound = outcore_io::bound::watch("check_finds_either_count_wrong_alone");
        let dir = tempfile::tempdir().unwrap();
        let mut store = DynamicStore::create(&dir.path().join("d"), StoreOptions { partitions: 1, ..Default::default() }).unwrap();
        // a hub with an edge chunk, and low-degree vertices in the shared table
        let mut updates: Vec<Update> = (1..=100).map(|v| Update::InsertEdge { u: 0, v, w: 1.0 }).collect();
        updates.extend((1..50).map(|u| Update::InsertEdge { u, v: u + 1, w: 1.0 }));
        store.apply(&updates).unwrap();
        store.check().unwrap();
        let counts = store.parts[0].counts;
        assert_eq!((counts.arcs, counts.chunked), (149, 1));
        store.parts[0].counts.arcs += 1;
        let e = store.check().expect_err("one arc too many recorded");
        assert!(e.contains("150 recorded") || e.contains("arcs: 150"), "{e}");
        store.parts[0].counts = counts;
        store.parts[0].counts.chunked += 1;
        let e = store.check().expect_err("one chunk too many recorded");
        assert!(e.contains("chunked: 2"), "{e}");
        store.parts[0].counts = counts;
        store.check().unwrap();
    }
}
