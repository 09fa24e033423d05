//! The distributed dynamic store (thesis section 4.4): every rank owns one
//! outcore dynamic store, holding the out-edges of the vertices it owns
//! (owner = hash(source) mod P). Update streams are read by all ranks at
//! once (see `blocks.rs`); each update travels to the owner of its source
//! through the visitor queue ([`Comm::round`]): per-owner buffers sent
//! with non-blocking sends while the messages of the others are received.
//! An undirected edge's mirror goes to its own owner, and a vertex delete
//! to every rank (the edges into the vertex may start anywhere).
//!
//! Termination: each round ends with an end-of-round marker from every
//! rank to every rank, sent after its data; since MPI delivers one
//! sender's messages in order, a receiver holding every marker holds the
//! round's every update, and applies them sender by sender, which is
//! stream order (the blocks of a round are dealt in rank order). The
//! markers carry each sender's count and whether it read a block or hit a
//! bad line, so every rank decides the same: go on, commit, or stop.
//!
//! Commit is atomic across ranks, in two phases: every rank prepares its
//! next epoch (durable, but `STATE` still names the last one); then rank 0
//! writes its `GLOBAL` record of the new global commit (the decision);
//! then the others write theirs, and every rank installs its prepared
//! state. Opening decides every pending part by rank 0's record: a part
//! whose prepared epoch the decision covers is finished, any other rolled
//! back, so every rank reopens at the same global commit after any rank
//! died at any moment.

use crate::blocks::BlockReader;
use crate::comm::{Comm, Traffic};
use crate::error::{DistError, Result};
use crate::manifest::{part_dir, DistManifest, GlobalRecord, FORMAT, VERSION};
use crate::owner::Owner;
use outcore_dynamic::store::{ApplyReport, DynamicStore, StoreOptions, Update};
use outcore_dynamic::updates::StreamFormat;
use std::path::{Path, PathBuf};

/// Words per message of the visitor queue (512 KiB).
const MESSAGE_WORDS: usize = 1 << 16;
/// Words per routed update: `[op | mirror << 8, u, v, weight bits or value]`.
const WORDS: usize = 4;

/// Every rank gets the same result: Ok if all ranks succeeded, else this
/// rank's error or one naming the ranks that failed.
pub fn agree<T>(comm: &dyn Comm, r: Result<T>) -> Result<T> {
    let flags = comm.all_gather(&[r.is_err() as u8]);
    let failing: Vec<usize> = flags.iter().enumerate().filter(|(_, f)| f.first() == Some(&1)).map(|(i, _)| i).collect();
    match r {
        Err(e) => Err(e),
        Ok(_) if !failing.is_empty() => Err(DistError::OtherRanks { ranks: failing }),
        Ok(v) => Ok(v),
    }
}

pub struct DistDynamic<'c> {
    comm: &'c dyn Comm,
    dir: PathBuf,
    pub store: DynamicStore,
    pub manifest: DistManifest,
    pub global: GlobalRecord,
}

/// How streams are read and committed.
#[derive(Clone, Debug)]
pub struct ApplyOptions {
    pub format: Option<StreamFormat>,
    /// Bytes of stream per block (one block per rank per round).
    pub block_bytes: u64,
    /// Commit after this many updates (None: once, at the end).
    pub commit_every: Option<u64>,
    /// Resident limit of this rank's store (its share of `--memory`).
    pub resident_limit: Option<u64>,
}

impl Default for ApplyOptions {
    fn default() -> Self {
        ApplyOptions { format: None, block_bytes: 1 << 20, commit_every: None, resident_limit: None }
    }
}

/// What an apply did: this rank's share and the sum over ranks.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct DistApplyReport {
    /// Over all ranks (updates counted once, where they were read).
    pub total: ApplyReport,
    /// Updates this rank applied to its own store (mirrors and vertex
    /// deletes included) and the edges they removed.
    pub applied_here: u64,
    pub rounds: u64,
    pub commits: u64,
}

fn encode(out: &mut Vec<u64>, x: &Update, mirror: bool) {
    let m = (mirror as u64) << 8;
    let (op, u, v, z) = match *x {
        Update::InsertEdge { u, v, w } => (1, u, v, w.to_bits() as u64),
        Update::DeleteEdge { u, v } => (2, u, v, 0),
        Update::InsertVertex { u } => (3, u, 0, 0),
        Update::DeleteVertex { u } => (4, u, 0, 0),
        Update::SetProperty { u, value } => (5, u, 0, value),
    };
    out.extend_from_slice(&[op | m, u, v, z]);
}

fn decode(w: &[u64]) -> (Update, bool) {
    let (u, v, z) = (w[1], w[2], w[3]);
    let x = match w[0] & 0xff {
        1 => Update::InsertEdge { u, v, w: f32::from_bits(z as u32) },
        2 => Update::DeleteEdge { u, v },
        3 => Update::InsertVertex { u },
        4 => Update::DeleteVertex { u },
        _ => Update::SetProperty { u, value: z },
    };
    (x, w[0] >> 8 & 1 == 1)
}

impl<'c> DistDynamic<'c> {
    /// Create an empty store: on each rank an empty dynamic store at
    /// `pattern` with `{rank}` replaced.
    pub fn create(comm: &'c dyn Comm, pattern: &str, options: StoreOptions) -> Result<DistDynamic<'c>> {
        let (rank, ranks) = (comm.rank(), comm.size());
        let id = {
            let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
            let mine = outcore_dynamic::hash::mix(seed ^ (std::process::id() as u64) << 32);
            u64::from_le_bytes(comm.broadcast(0, &mine.to_le_bytes()).try_into().expect("8 bytes"))
        };
        let made = (|| {
            let dir = part_dir(pattern, rank, ranks)?;
            let store = DynamicStore::create(&dir, options)?;
            let manifest = DistManifest { format: FORMAT.into(), version: VERSION, id, ranks, rank, owner: Owner::Splitmix2, options };
            manifest.write(&dir)?;
            let global = GlobalRecord { id, commit: 0, epoch: store.epoch(), updates: 0 };
            global.write(&dir)?;
            Ok(DistDynamic { comm, dir, store, manifest, global })
        })();
        agree(comm, made)
    }

    /// Open every rank's part, first deciding a commit that a failure
    /// left half done (see the module comment).
    pub fn open(comm: &'c dyn Comm, pattern: &str) -> Result<DistDynamic<'c>> {
        let (rank, ranks) = (comm.rank(), comm.size());
        let read = (|| {
            let dir = part_dir(pattern, rank, ranks)?;
            if !dir.is_dir() {
                return Err(DistError::Usage(format!("{}: no such directory (the part of rank {rank})", dir.display())));
            }
            let manifest = DistManifest::read(&dir)?;
            if manifest.ranks != ranks {
                return Err(DistError::Usage(format!(
                    "{}: the store has {} ranks, this job {ranks}: run it with mpirun -n {}",
                    dir.display(),
                    manifest.ranks,
                    manifest.ranks
                )));
            }
            if manifest.rank != rank {
                return Err(DistError::Corrupt(format!("{}: is the part of rank {}, opened by rank {rank}", dir.display(), manifest.rank)));
            }
            let global = GlobalRecord::read(&dir)?;
            Ok((dir, manifest, global))
        })();
        let (dir, manifest, global) = agree(comm, read)?;
        // every part of one store
        let ids = comm.all_gather(&manifest.id.to_le_bytes());
        if let Some(other) = ids.iter().position(|x| x[..] != ids[0][..]) {
            let mine = ids[rank] != ids[0];
            return agree(
                comm,
                Err(DistError::Corrupt(if mine || rank == 0 {
                    format!("{}: a part of another store than rank 0's (identity mismatch, rank {other})", dir.display())
                } else {
                    format!("rank {other}'s part is of another store than rank 0's")
                })),
            );
        }
        // the decision is rank 0's record
        let decided = comm.broadcast(0, &[global.commit.to_le_bytes(), global.updates.to_le_bytes()].concat());
        let commit = u64::from_le_bytes(decided[..8].try_into().unwrap());
        let updates = u64::from_le_bytes(decided[8..].try_into().unwrap());
        let recovered = (|| {
            let prepared = DynamicStore::prepared_epoch(&dir)?;
            let mut global = global;
            let target = if global.commit == commit {
                global.epoch
            } else if global.commit + 1 == commit && prepared.is_some() {
                global = GlobalRecord { id: manifest.id, commit, epoch: prepared.unwrap(), updates };
                global.write(&dir)?;
                global.epoch
            } else {
                return Err(DistError::Corrupt(format!(
                    "{}: at global commit {}, rank 0 at {commit}: the parts are of different states",
                    dir.display(),
                    global.commit
                )));
            };
            if let Some(p) = prepared {
                DynamicStore::resolve_prepared(&dir, p == target)?;
            }
            let store = DynamicStore::open(&dir)?;
            if store.epoch() != target {
                return Err(DistError::Corrupt(format!(
                    "{}: at epoch {}, but global commit {commit} needs {target}",
                    dir.display(),
                    store.epoch()
                )));
            }
            Ok(DistDynamic { comm, dir, store, manifest, global })
        })();
        agree(comm, recovered)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }
    pub fn comm(&self) -> &'c dyn Comm {
        self.comm
    }
    pub fn rank_of(&self, v: u64) -> usize {
        self.manifest.owner.rank_of(v, self.manifest.ranks)
    }

    /// The global commit (two phases, see the module comment), recording
    /// `updates` committed in all.
    pub fn commit(&mut self, updates: u64) -> Result<()> {
        let comm = self.comm;
        let epoch = match agree(comm, self.store.prepare_commit().map_err(DistError::from)) {
            Ok(epoch) => epoch,
            Err(e) => {
                let _ = self.store.abort_prepared();
                return Err(e);
            }
        };
        let record = GlobalRecord { id: self.manifest.id, commit: self.global.commit + 1, epoch, updates };
        // the decision: rank 0's record
        let decided = if comm.rank() == 0 { record.write(&self.dir) } else { Ok(()) };
        let failed = comm.broadcast(0, &[decided.is_err() as u8]);
        if failed[0] == 1 {
            let _ = self.store.abort_prepared();
            return Err(decided.err().unwrap_or(DistError::OtherRanks { ranks: vec![0] }));
        }
        let finished = (|| {
            if comm.rank() != 0 {
                record.write(&self.dir)?;
            }
            self.store.finish_prepared()?;
            Ok(())
        })();
        self.global = record;
        agree(comm, finished)
    }

    /// Read `files` on every rank, route each update to its owner, apply,
    /// and commit as asked and at the end. On a bad line (or a failure on
    /// any rank) every rank rolls back to the last global commit.
    pub fn apply_files(&mut self, files: &[PathBuf], opts: &ApplyOptions) -> Result<DistApplyReport> {
        self.apply_files_with(files, opts, &mut |_, _| Ok(()))
    }

    /// [`Self::apply_files`], calling `after_round` on every rank after
    /// each round is applied, with the vertices of this rank that gained
    /// an edge to another vertex in it (the incremental colouring's
    /// seeds). It is a collective: every rank calls it the same number of
    /// times.
    pub fn apply_files_with(
        &mut self,
        files: &[PathBuf],
        opts: &ApplyOptions,
        after_round: &mut dyn FnMut(&mut Self, Vec<u64>) -> Result<()>,
    ) -> Result<DistApplyReport> {
        let comm = self.comm;
        let (me, p) = (comm.rank(), comm.size());
        self.store.set_resident_limit(opts.resident_limit);
        let mut report = DistApplyReport::default();
        let mut local = ApplyReport::default();
        let mut since_commit = 0u64;
        let committed_before = self.global.updates;
        let mut round = 0u64;
        let mut block = Vec::new();
        let result = (|| -> Result<()> {
            for file in files {
                let reader = BlockReader::open(file, opts.format, me, p, opts.block_bytes, self.manifest.options.weighted);
                let mut reader = agree(comm, reader.map_err(DistError::from))?;
                loop {
                    let read = reader.next(&mut block);
                    let (more, bad) = match &read {
                        Ok(more) => (*more, false),
                        Err(_) => (false, true),
                    };
                    let mut out: Vec<Vec<u64>> = vec![Vec::new(); p];
                    if !bad {
                        for x in &block {
                            self.route(x, &mut out);
                        }
                    }
                    let chunks: Vec<Vec<Vec<u64>>> =
                        out.into_iter().map(|o| o.chunks(MESSAGE_WORDS).map(|c| c.to_vec()).collect()).collect();
                    let tail = [if bad { 0 } else { block.len() as u64 }, more as u64, bad as u64];
                    // sender by sender: stream order
                    let mut incoming: Vec<Vec<(Update, bool)>> = vec![Vec::new(); p];
                    let tails =
                        comm.round(round, &chunks, &tail, &mut |src, words| incoming[src].extend(words.chunks_exact(WORDS).map(decode)));
                    round += 1;
                    let bad_ranks: Vec<usize> = (0..p).filter(|&r| tails[r][2] == 1).collect();
                    if !bad_ranks.is_empty() {
                        return Err(match read {
                            Err(e) => e.into(),
                            Ok(_) => DistError::OtherRanks { ranks: bad_ranks },
                        });
                    }
                    let read_now: u64 = tails.iter().map(|t| t[0]).sum();
                    let incoming = incoming.concat();
                    let seeds: Vec<u64> = incoming
                        .iter()
                        .filter_map(|(x, _)| match *x {
                            Update::InsertEdge { u, v, .. } if u != v => Some(u),
                            _ => None,
                        })
                        .collect();
                    let applied = self.apply_round(&incoming, &mut local, &mut report);
                    agree(comm, applied)?;
                    after_round(self, seeds)?;
                    report.total.updates += read_now;
                    since_commit += read_now;
                    if opts.commit_every.is_some_and(|n| since_commit >= n) {
                        self.commit(committed_before + report.total.updates)?;
                        report.commits += 1;
                        since_commit = 0;
                    }
                    if tails.iter().all(|t| t[1] == 0) {
                        break;
                    }
                }
            }
            Ok(())
        })();
        report.rounds = round;
        if let Err(e) = result {
            let commit = self.global.commit;
            let rolled = self.store.roll_back();
            return Err(match rolled {
                Err(r) => r.into(),
                Ok(()) => DistError::Usage(format!(
                    "{e}\n(every rank rolled back to global commit {commit}: nothing of this run after it was kept; {} updates were committed before the error)",
                    self.global.updates.saturating_sub(committed_before)
                )),
            });
        }
        self.commit(committed_before + report.total.updates)?;
        report.commits += 1;
        // the report's counts, summed over ranks
        let mine = [
            local.inserted,
            local.existing,
            local.deleted,
            local.missing,
            local.vertices_inserted,
            local.properties_set,
            local.vertices_deleted,
            local.vertices_missing,
            local.edges_of_deleted_vertices,
        ];
        let all = comm.sum(&mine);
        let t = &mut report.total;
        [
            t.inserted,
            t.existing,
            t.deleted,
            t.missing,
            t.vertices_inserted,
            t.properties_set,
            t.vertices_deleted,
            t.vertices_missing,
            t.edges_of_deleted_vertices,
        ] = all.try_into().expect("nine counts");
        Ok(report)
    }

    fn route(&self, x: &Update, out: &mut [Vec<u64>]) {
        let p = out.len();
        let owner = |v| self.rank_of(v);
        let undirected = self.manifest.options.undirected;
        match *x {
            Update::InsertEdge { u, v, w } => {
                encode(&mut out[owner(u)], x, false);
                if undirected && u != v {
                    encode(&mut out[owner(v)], &Update::InsertEdge { u: v, v: u, w }, true);
                }
            }
            Update::DeleteEdge { u, v } => {
                encode(&mut out[owner(u)], x, false);
                if undirected && u != v {
                    encode(&mut out[owner(v)], &Update::DeleteEdge { u: v, v: u }, true);
                }
            }
            Update::InsertVertex { u } | Update::SetProperty { u, .. } => encode(&mut out[owner(u)], x, false),
            Update::DeleteVertex { .. } => {
                for o in out.iter_mut().take(p) {
                    encode(o, x, false);
                }
            }
        }
    }

    /// Apply one round's updates, in stream order; vertex deletes (which
    /// every rank received, in the same order) split it into runs.
    fn apply_round(&mut self, incoming: &[(Update, bool)], local: &mut ApplyReport, report: &mut DistApplyReport) -> Result<()> {
        let is_delete = |x: &(Update, bool)| matches!(x.0, Update::DeleteVertex { .. });
        let mut had: Vec<bool> = Vec::new();
        let mut result: Result<()> = Ok(());
        for run in incoming.chunk_by(|a, b| is_delete(a) == is_delete(b)) {
            if result.is_err() {
                break;
            }
            report.applied_here += run.len() as u64;
            result = if is_delete(&run[0]) {
                let us: Vec<u64> = run
                    .iter()
                    .filter_map(|(x, _)| match *x {
                        Update::DeleteVertex { u } => Some(u),
                        _ => None,
                    })
                    .collect();
                self.store.delete_vertices_everywhere(&us).map(|(r, found)| {
                    local.edges_of_deleted_vertices += r.edges_of_deleted_vertices;
                    had.extend(found);
                })
            } else {
                self.store.apply_routed(run).map(|r| local.add(&r))
            }
            .map_err(DistError::from);
        }
        // whether any rank had each deleted vertex (every rank received the
        // same deletes, so the vectors line up even where applying failed)
        had.resize(incoming.iter().filter(|x| is_delete(x)).count(), false);
        let any = self.comm.max(&had.iter().map(|&h| h as u64).collect::<Vec<_>>());
        if self.comm.rank() == 0 {
            let found = any.iter().filter(|&&h| h == 1).count() as u64;
            local.vertices_deleted += found;
            local.vertices_missing += any.len() as u64 - found;
        }
        result
    }

    /// Per-rank figures for `--json`.
    pub fn rank_figures(&self, report: Option<&DistApplyReport>) -> serde_json::Value {
        let traffic: Traffic = self.comm.traffic();
        let mut sources = 0u64;
        self.store.for_each_source(|_| sources += 1);
        serde_json::json!({
            "rank": self.comm.rank(),
            "part": self.dir,
            "updates_applied": report.map(|r| r.applied_here),
            "sources": sources,
            "arcs": self.store.arcs(),
            "heap_bytes": self.store.heap_bytes(),
            "epoch": self.store.epoch(),
            "traffic": traffic,
            "peak_rss_bytes": outcore_io::peak_rss_bytes(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::comm::Solo;

    fn edges(store: &DynamicStore) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        store.for_each_edge(|u, e| out.push((u, e.target)));
        out.sort_unstable();
        out
    }

    /// A process that died between the two phases: opening follows rank
    /// 0's record, finishing the prepared epoch if the record covers it
    /// and dropping it if not.
    #[test]
    fn opening_finishes_or_drops_a_half_done_commit_by_the_global_record() {
        let comm = Solo::default();
        let dir = tempfile::tempdir().unwrap();
        let pattern = format!("{}/part-{{rank}}", dir.path().display());
        let file = dir.path().join("s.updates");
        std::fs::write(&file, (0..300).map(|i| format!("+ {i} {}\n", i * 7 % 300)).collect::<String>()).unwrap();
        let mut d = DistDynamic::create(&comm, &pattern, StoreOptions::default()).unwrap();
        d.apply_files(&[file], &ApplyOptions { block_bytes: 100, ..Default::default() }).unwrap();
        let committed = edges(&d.store);
        assert_eq!((d.global.commit, d.global.updates), (1, 300));
        drop(d);
        for decided in [false, true] {
            let mut d = DistDynamic::open(&comm, &pattern).unwrap();
            let before = (d.global, edges(&d.store));
            d.store.apply(&[Update::InsertEdge { u: 1000, v: 1001, w: 1.0 }]).unwrap();
            let after = edges(&d.store);
            let epoch = d.store.prepare_commit().unwrap();
            if decided {
                // rank 0's record written, then the process died
                GlobalRecord { id: d.manifest.id, commit: before.0.commit + 1, epoch, updates: before.0.updates + 1 }
                    .write(d.dir())
                    .unwrap();
            }
            drop(d);
            let d = DistDynamic::open(&comm, &pattern).unwrap();
            if decided {
                assert_eq!((d.global.commit, d.store.epoch(), edges(&d.store)), (before.0.commit + 1, epoch, after));
            } else {
                assert_eq!((d.global, edges(&d.store)), before);
            }
        }
        assert!(committed.len() < edges(&DistDynamic::open(&comm, &pattern).unwrap().store).len());
    }
}
