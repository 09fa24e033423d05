//! The distributed import (`outcore-dist import`): a graph that outgrows
//! one machine is never imported on one. Every rank reads its blocks of
//! the input edge lists (dealt round-robin, as update streams are), routes
//! each edge to the owner of its source (an undirected edge's other arc to
//! the owner of its other end; a directed edge's target, as a vertex, to
//! its owner), and each owner feeds what it receives into the import
//! pipeline, which sorts its share externally under its `--memory` and
//! writes its part. The parts form a partitioned static store, the same
//! as `outcore partition` writes (`partition.json` in each).
//!
//! Inputs are plain-text edge lists (`u v` or `u v w` per line, blank
//! lines and `#` or `%` comments skipped, fields split by spaces, tabs or
//! commas): those are what can be split at line starts. Import other
//! formats on one machine and cut them with `outcore partition`.

use crate::comm::Comm;
use crate::dynamic::agree;
use crate::error::{DistError, Result};
use crate::manifest::part_dir;
use crate::owner::Owner;
use crate::partition::{PartRecord, PartitionManifest, FORMAT, MANIFEST, VERSION};
use outcore_ingest::error::IngestError;
use outcore_ingest::formats::{Declared, EdgeSink, SinkError};
use outcore_ingest::import::{import_from, ImportOptions, SelfLoops};
use outcore_ingest::input::{fields, parse_u64, parse_weight, Compression, Input};
use std::collections::BTreeMap;
use std::fs::File;
use std::path::PathBuf;

#[derive(Clone, Debug)]
pub struct DistImportOptions {
    pub directed: bool,
    pub weighted: bool,
    /// Keep parallel edges (default: collapse them, as `outcore import`).
    pub multigraph: bool,
    /// Per rank.
    pub memory: u64,
    pub block_bytes: u64,
    pub force: bool,
}

const EDGE: u64 = 1;
const VERTEX: u64 = 2;
/// Words per record: `[kind, u, v, weight bits]`.
const WORDS: usize = 4;
const MESSAGE_WORDS: usize = 1 << 16;

/// This rank's blocks of every input, one per round.
struct EdgeBlocks {
    inputs: Vec<(PathBuf, File, u64)>,
    at: usize,
    round: u64,
    rank: u64,
    ranks: u64,
    block: u64,
}

impl EdgeBlocks {
    fn open(inputs: &[PathBuf], rank: usize, ranks: usize, block: u64) -> Result<EdgeBlocks> {
        let mut files = Vec::new();
        for path in inputs {
            crate::blocks::require_shared_file(path, "inputs")?;
            if Input::open(path)?.compression != Compression::None {
                return Err(DistError::Usage(format!(
                    "{}: compressed: the distributed import splits plain-text edge lists; decompress it, or import it with outcore import and cut it with outcore partition",
                    path.display()
                )));
            }
            let file = File::open(path).map_err(|e| IngestError::file(path, e.to_string()))?;
            let len = file.metadata().map_err(|e| IngestError::file(path, e.to_string()))?.len();
            files.push((path.clone(), file, len));
        }
        Ok(EdgeBlocks { inputs: files, at: 0, round: 0, rank: rank as u64, ranks: ranks as u64, block: block.max(1) })
    }

    /// This rank's next block: `(u, v, w)` per edge; None when every
    /// input is done (for every rank at the same round).
    fn next(&mut self, weighted: bool, out: &mut Vec<(u64, u64, f32)>) -> Result<Option<()>> {
        out.clear();
        while self.at < self.inputs.len() {
            let (path, file, len) = &self.inputs[self.at];
            let first = self.round * self.ranks * self.block;
            if first >= *len {
                // every rank moves to the next input at the same round
                self.at += 1;
                self.round = 0;
                continue;
            }
            let block = self.round * self.ranks + self.rank;
            self.round += 1;
            crate::blocks::read_text_block(file, path, *len, block, self.block, &mut |t| {
                let f: Vec<&[u8]> = fields(t).collect();
                if f.len() < 2 || f.len() > 3 {
                    return Err(format!("expected 'u v' or 'u v w', found {} fields", f.len()));
                }
                let w = if weighted && f.len() == 3 { parse_weight(f[2])? } else { 1.0 };
                out.push((parse_u64(f[0])?, parse_u64(f[1])?, w));
                Ok(())
            })?;
            return Ok(Some(()));
        }
        Ok(None)
    }
}

/// Import `inputs` into one part per rank at `pattern`. A collective.
pub fn import(comm: &dyn Comm, inputs: &[PathBuf], pattern: &str, opts: &DistImportOptions) -> Result<PartitionManifest> {
    let (rank, ranks) = (comm.rank(), comm.size());
    let owner = Owner::Splitmix2;
    let target = part_dir(pattern, rank, ranks).and_then(|t| {
        crate::manifest::create_parent(&t)?;
        outcore_store::check_output(&t, outcore_store::OutputKind::Store, opts.force, &[]).map_err(IngestError::from)?;
        Ok(t)
    });
    let target = agree(comm, target)?;
    let import_opts = ImportOptions {
        directed: Some(true),
        weighted: opts.weighted,
        unweighted: !opts.weighted,
        dedup: !opts.multigraph,
        self_loops: SelfLoops::Keep,
        memory: opts.memory,
        force: opts.force,
        ..Default::default()
    };
    // what the import checks before it reads, checked by every rank first
    // (a rank that stopped there would leave the others waiting for it)
    agree(comm, outcore_ingest::import::minimum(&import_opts).check(opts.memory).map_err(|e| DistError::from(IngestError::from(e))))?;
    let blocks = agree(comm, EdgeBlocks::open(inputs, rank, ranks, opts.block_bytes))?;
    let blocks = std::cell::RefCell::new(blocks);
    // a bad line found by this rank (named once the rounds have stopped)
    let bad_line: std::cell::RefCell<Option<DistError>> = std::cell::RefCell::new(None);
    let stopped_by: std::cell::Cell<Option<Vec<usize>>> = std::cell::Cell::new(None);
    let source = |sink: &mut dyn EdgeSink,
                  _: &mut dyn FnMut(std::sync::Arc<std::sync::atomic::AtomicU64>, u64, bool)|
     -> std::result::Result<(), IngestError> {
        let refused = |e: SinkError| match e {
            SinkError::Reject(reason) => IngestError::file(&target, reason),
            SinkError::Abort(e) => e,
        };
        sink.declare(&Declared { directed: Some(true), weighted: opts.weighted, ..Default::default() }).map_err(refused)?;
        sink.vertices_done().map_err(refused)?;
        let mut edges = Vec::new();
        let mut sink_failed: Option<IngestError> = None;
        let mut round = 0u64;
        loop {
            let read = blocks.borrow_mut().next(opts.weighted, &mut edges);
            let (more, bad) = match &read {
                Ok(m) => (m.is_some(), false),
                Err(_) => (false, true),
            };
            let mut out: Vec<Vec<u64>> = vec![Vec::new(); ranks];
            if !bad {
                for &(u, v, w) in &edges {
                    let (ru, rv) = (owner.rank_of(u, ranks), owner.rank_of(v, ranks));
                    out[ru].extend_from_slice(&[EDGE, u, v, w.to_bits() as u64]);
                    if !opts.directed && u != v {
                        out[rv].extend_from_slice(&[EDGE, v, u, w.to_bits() as u64]);
                    } else if rv != ru {
                        out[rv].extend_from_slice(&[VERTEX, v, 0, 0]);
                    }
                }
            }
            if let Err(e) = read {
                *bad_line.borrow_mut() = Some(e);
            }
            let chunks: Vec<Vec<Vec<u64>>> = out.into_iter().map(|o| o.chunks(MESSAGE_WORDS).map(|c| c.to_vec()).collect()).collect();
            let failed_here = bad || sink_failed.is_some();
            let tail = [more as u64, failed_here as u64];
            let tails = comm.round(round, &chunks, &tail, &mut |_, words| {
                if sink_failed.is_some() {
                    return;
                }
                for r in words.chunks_exact(WORDS) {
                    let done = if r[0] == EDGE { sink.edge(r[1], r[2], f32::from_bits(r[3] as u32)) } else { sink.vertex(r[1]) };
                    if let Err(e) = done {
                        sink_failed = Some(refused(e));
                        return;
                    }
                }
            });
            round += 1;
            let failing: Vec<usize> = (0..ranks).filter(|&r| tails[r][1] == 1).collect();
            if !failing.is_empty() {
                stopped_by.set(Some(failing));
                return Err(sink_failed.unwrap_or_else(|| IngestError::file(&target, "stopped")));
            }
            if tails.iter().all(|t| t[0] == 0) {
                return Ok(());
            }
        }
    };
    let mut provenance = BTreeMap::new();
    provenance.insert("input".into(), inputs.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(" "));
    provenance.insert("format".into(), format!("{FORMAT} (part {rank} of {ranks}, distributed import)"));
    let imported = import_from(&source, &target, &import_opts, provenance, &outcore_io::NoProgress);
    let imported = match (imported, stopped_by.take()) {
        (Ok(r), _) => Ok(r),
        (Err(e), Some(failing)) => Err(match bad_line.borrow_mut().take() {
            Some(bad) => bad,
            None if failing.contains(&rank) => e.into(),
            None => DistError::OtherRanks { ranks: failing },
        }),
        (Err(e), None) => Err(e.into()),
    };
    let report = agree(comm, imported)?;
    let source = inputs.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(" ");
    write_manifests(comm, &target, report.vertices, report.edges, opts.directed, opts.weighted, &source)
}

/// Write `partition.json` into this rank's part at `target` (a store just
/// written, with `vertices` and `arcs`): every part's record, gathered, on
/// every part. A collective; returns the manifest as rank 0's.
pub fn write_manifests(
    comm: &dyn Comm,
    target: &std::path::Path,
    vertices: u64,
    arcs: u64,
    directed: bool,
    weighted: bool,
    source: &str,
) -> Result<PartitionManifest> {
    let (rank, ranks) = (comm.rank(), comm.size());
    let owner = Owner::Splitmix2;
    // the global manifest: every part's record, on every part
    let owned = (|| -> Result<u64> {
        let store = outcore_store::Store::open(target).map_err(IngestError::from)?;
        let mut ids = store.ids().map_err(IngestError::from)?.stream().map_err(IngestError::from)?;
        let mut n = 0;
        while let Some(id) = ids.next_id().map_err(IngestError::from)? {
            n += (owner.rank_of(id, ranks) == rank) as u64;
        }
        Ok(n)
    })();
    let owned = agree(comm, owned)?;
    let hash = agree(comm, crate::partition::manifest_hash(target))?;
    let mine = serde_json::to_vec(&PartRecord { rank, vertices, arcs, manifest_xxh3: hash }).expect("serializes");
    let parts: Vec<PartRecord> = comm.all_gather(&mine).iter().map(|b| serde_json::from_slice(b).expect("a part record")).collect();
    let vertices = comm.sum(&[owned])[0];
    let mut manifest = PartitionManifest {
        format: FORMAT.into(),
        version: VERSION,
        ranks,
        rank,
        owner,
        directed,
        weighted,
        vertices,
        arcs: parts.iter().map(|p| p.arcs).sum(),
        source: source.to_string(),
        parts,
    };
    let path: PathBuf = target.join(MANIFEST);
    let written = std::fs::write(&path, serde_json::to_string_pretty(&manifest).expect("serializes"))
        .map_err(|e| DistError::from(IngestError::file(&path, e.to_string())));
    agree(comm, written)?;
    manifest.rank = 0;
    Ok(manifest)
}
