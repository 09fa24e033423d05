//! Graph500 across ranks (`outcore-dist graph500 --scale N`,
//! specification 3.0, as the reference MPI code runs it):
//! - **generation**: each rank generates its contiguous share of the
//!   Kronecker edge list (the same edges, labels and weights as `outcore
//!   graph500`'s generator) into a file of its own;
//! - **kernel 1** (construction): each rank routes its edges to the owners
//!   of both ends (an all-to-all per batch) and each owner imports what it
//!   receives into its part, under its `--memory`, keeping every input
//!   edge (duplicates and self loops), so a part's degrees count input
//!   edge ends and `nedge` is the spec's;
//! - **kernel 2**: direction-optimizing BFS across ranks
//!   ([`crate::statics::bfs`]) from the roots `outcore graph500` picks
//!   (the same hashed sequence of candidates, of degree >= 1);
//! - **kernel 3**: SSSP across ranks ([`crate::statics::sssp`]);
//! - every result validated across ranks by the five rules
//!   ([`crate::statics::validate`]); times are the slowest rank's.

use crate::comm::Comm;
use crate::dynamic::agree;
use crate::error::{DistError, Result};
use crate::owner::Owner;
use crate::part::{Part, PartShape};
use crate::statics::{bfs, sssp, validate};
use outcore::graph500::Kernel;
use outcore_ingest::error::IngestError;
use outcore_ingest::formats::{Declared, EdgeSink, SinkError};
use outcore_ingest::generate::{Generator, Kronecker};
use outcore_ingest::import::{import_from, ImportOptions, SelfLoops};
use outcore_io::{SeqReader, SeqWriter};
use std::collections::BTreeMap;
use std::time::Instant;

#[derive(Clone, Debug)]
pub struct Graph500Options {
    pub scale: u32,
    pub edge_factor: u64,
    pub roots: usize,
    pub seed: u64,
    /// Per rank, page cache included.
    pub memory: u64,
    pub sssp: bool,
}

pub struct Graph500Outcome {
    pub roots: usize,
    /// The slowest rank's.
    pub generation_seconds: f64,
    pub construction_seconds: f64,
    pub bfs: Kernel,
    pub sssp: Option<Kernel>,
    pub vertices: u64,
    pub arcs: u64,
    /// Bytes sent between ranks, all ranks, in each phase.
    pub construction_bytes_sent: u64,
    pub bfs_bytes_sent: u64,
}

/// (source, target, weight bits) per generated edge.
const RECORD: usize = 20;
const CHUNK: usize = RECORD * 4096 * 4;
/// Edges a rank routes per all-to-all.
const BATCH: u64 = 1 << 18;

fn ingest(e: impl Into<IngestError>) -> DistError {
    DistError::Ingest(e.into())
}

/// The slowest rank's seconds.
fn slowest(comm: &dyn Comm, seconds: f64) -> f64 {
    comm.max(&[(seconds * 1e9) as u64])[0] as f64 / 1e9
}

pub fn run(comm: &dyn Comm, opts: &Graph500Options) -> Result<Graph500Outcome> {
    let (rank, ranks) = (comm.rank(), comm.size());
    if !(1..=32).contains(&opts.scale) {
        return Err(DistError::Usage(format!("--scale {}: between 1 and 32", opts.scale)));
    }
    if opts.roots == 0 {
        return Err(DistError::Usage("--roots: at least 1".into()));
    }
    let mut g = Kronecker::graph500(opts.scale, opts.edge_factor, opts.seed);
    g.weighted = opts.sssp;
    let (n, m) = (g.vertices(), g.edges());
    // this rank's files, removed at the end, on an error and on Ctrl-C
    let tmp = agree(comm, outcore_io::TempArea::create(&std::env::temp_dir(), &format!("graph500-rank{rank}")).map_err(ingest))?;

    // generation: edges [lo, hi) of the list
    let t = Instant::now();
    let (lo, hi) = (m * rank as u64 / ranks as u64, m * (rank as u64 + 1) / ranks as u64);
    let list = tmp.file("edges");
    let generated = (|| -> std::result::Result<(), IngestError> {
        let mut w = SeqWriter::scratch(&list, CHUNK)?;
        let mut buf = Vec::with_capacity(CHUNK);
        for i in lo..hi {
            let (s, t) = g.edge(i);
            buf.extend_from_slice(&s.to_le_bytes());
            buf.extend_from_slice(&t.to_le_bytes());
            buf.extend_from_slice(&g.weight(i).to_le_bytes());
            if buf.len() >= CHUNK {
                w.write_bytes(&buf)?;
                buf.clear();
            }
        }
        w.write_bytes(&buf)?;
        w.finish()?;
        Ok(())
    })();
    agree(comm, generated.map_err(DistError::from))?;
    let generation_seconds = slowest(comm, t.elapsed().as_secs_f64());

    // kernel 1: route and build the parts
    let before = comm.traffic();
    let t = Instant::now();
    let owner = Owner::Splitmix2;
    let part_dir = tmp.file("part");
    let import_opts = ImportOptions {
        directed: Some(true),
        weighted: opts.sssp,
        unweighted: !opts.sssp,
        dedup: false,
        self_loops: SelfLoops::Keep,
        memory: opts.memory,
        ..Default::default()
    };
    agree(comm, outcore_ingest::import::minimum(&import_opts).check(opts.memory).map_err(|e| DistError::from(IngestError::from(e))))?;
    let batches = comm.max(&[(hi - lo).div_ceil(BATCH)])[0];
    let failed: std::cell::RefCell<Option<IngestError>> = std::cell::RefCell::new(None);
    let source = |sink: &mut dyn EdgeSink,
                  _: &mut dyn FnMut(std::sync::Arc<std::sync::atomic::AtomicU64>, u64, bool)|
     -> std::result::Result<(), IngestError> {
        let refused = |e: SinkError| match e {
            SinkError::Reject(reason) => IngestError::file(&part_dir, reason),
            SinkError::Abort(e) => e,
        };
        // a rank that fails goes on taking part in every exchange, so that no rank waits for it
        let keep = |r: std::result::Result<(), SinkError>| {
            if let Err(e) = r {
                failed.borrow_mut().get_or_insert(refused(e));
            }
        };
        keep(sink.declare(&Declared { directed: Some(true), weighted: opts.sssp, ..Default::default() }));
        for v in 0..n {
            if owner.rank_of(v, ranks) == rank && failed.borrow().is_none() {
                keep(sink.vertex(v));
            }
        }
        keep(sink.vertices_done());
        let mut reader = match SeqReader::open(&list, CHUNK) {
            Ok(r) => Some(r),
            Err(e) => {
                failed.borrow_mut().get_or_insert(e.into());
                None
            }
        };
        let mut pending: Vec<u8> = Vec::new();
        for _ in 0..batches {
            // the next BATCH edges of this rank's list
            while pending.len() < BATCH as usize * RECORD {
                match reader.as_mut().map(|r| r.next_chunk()) {
                    Some(Ok(Some(chunk))) => pending.extend_from_slice(chunk),
                    Some(Err(e)) => {
                        failed.borrow_mut().get_or_insert(e.into());
                        reader = None;
                    }
                    _ => break,
                }
            }
            let take = pending.len().min(BATCH as usize * RECORD);
            let mut out: Vec<Vec<u64>> = vec![Vec::new(); ranks];
            for rec in pending[..take].chunks_exact(RECORD) {
                let s = u64::from_le_bytes(rec[0..8].try_into().unwrap());
                let t = u64::from_le_bytes(rec[8..16].try_into().unwrap());
                let w = u32::from_le_bytes(rec[16..20].try_into().unwrap()) as u64;
                // both arcs, a self loop's too: each end counts an edge end
                out[owner.rank_of(s, ranks)].extend_from_slice(&[s, t, w]);
                out[owner.rank_of(t, ranks)].extend_from_slice(&[t, s, w]);
            }
            pending.drain(..take);
            for got in comm.all_to_all(&out) {
                for a in got.chunks_exact(3) {
                    if failed.borrow().is_none() {
                        keep(sink.edge(a[0], a[1], f32::from_bits(a[2] as u32)));
                    }
                }
            }
        }
        match failed.borrow_mut().take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    };
    let mut provenance = BTreeMap::new();
    provenance.insert("generator".to_string(), format!("graph500 kronecker, part {rank} of {ranks}"));
    let report = agree(comm, import_from(&source, &part_dir, &import_opts, provenance, &outcore_io::NoProgress).map_err(DistError::from))?;
    drop(std::fs::remove_file(&list));
    crate::import::write_manifests(comm, &part_dir, report.vertices, report.edges, false, opts.sssp, "graph500 kronecker")?;
    let (budget, _baseline) = agree(comm, crate::part::rank_budget(opts.memory))?;
    // beside the search's state, its results while they are validated
    // (levels and parents kept; the parents asked of their owners and the
    // answers, a round of questions at a time)
    let keep = |shape: &PartShape| {
        bfs::state_bytes(shape).max(if opts.sssp { sssp::state_bytes(shape) } else { 0 })
            + shape.local() * 16
            + crate::part::ask_round_bytes(shape.ranks)
    };
    let part = Part::open_at(comm, Ok(part_dir.clone()), &budget, keep, bfs::HOT_SHARE)?;
    let state = keep(&part.shape());
    let hot = agree(comm, bfs::hot_lists(&part, &budget, state))?;
    let construction_seconds = slowest(comm, t.elapsed().as_secs_f64());
    let construction_bytes_sent = comm.sum(&[comm.traffic().bytes_sent - before.bytes_sent])[0];

    // the roots: `outcore graph500`'s sequence of candidates, of degree >= 1
    let roots = pick_roots(&part, n, opts.roots, opts.seed ^ 0xB00F)?;
    let (mut k2, mut k3) = (Kernel::default(), Kernel::default());
    let before = comm.traffic();
    for &root in &roots {
        let t = Instant::now();
        let r = bfs::bfs(&part, root, &bfs::BfsOptions::default(), hot.as_ref())?.expect("a root of degree >= 1 is a vertex");
        k2.times.push(slowest(comm, t.elapsed().as_secs_f64()));
        let t = Instant::now();
        if let Err(why) = validate::validate_bfs(&part, root, &r)? {
            return Err(DistError::Corrupt(format!("BFS from {root} failed validation: {why}")));
        }
        k2.validation.push(slowest(comm, t.elapsed().as_secs_f64()));
        k2.nedges.push(r.edges_traversed as f64);
        if opts.sssp {
            let t = Instant::now();
            let s = sssp::sssp(&part, root)?.expect("a root of degree >= 1 is a vertex");
            k3.times.push(slowest(comm, t.elapsed().as_secs_f64()));
            let t = Instant::now();
            if let Err(why) = validate::validate_sssp(&part, root, &s)? {
                return Err(DistError::Corrupt(format!("SSSP from {root} failed validation: {why}")));
            }
            k3.validation.push(slowest(comm, t.elapsed().as_secs_f64()));
            // the same component as the BFS's: its input edges
            k3.nedges.push(r.edges_traversed as f64);
        }
    }
    let bfs_bytes_sent = comm.sum(&[comm.traffic().bytes_sent - before.bytes_sent])[0];
    Ok(Graph500Outcome {
        roots: roots.len(),
        generation_seconds,
        construction_seconds,
        bfs: k2,
        sssp: opts.sssp.then_some(k3),
        vertices: part.vertices(),
        arcs: part.manifest.arcs,
        construction_bytes_sent,
        bfs_bytes_sent,
    })
}

/// `count` distinct roots of degree >= 1 from the candidates
/// `splitmix64(key ^ i) % n`, i = 0, 1, ... (as `outcore graph500`), their
/// degrees asked of their owners 256 candidates at a time.
fn pick_roots(part: &Part, n: u64, count: usize, key: u64) -> Result<Vec<u64>> {
    let degree = |i: u32| part.graph.degree(part.owned_vertex(i) as u64);
    let with_edges = part.comm().sum(&[(0..part.owned_count()).filter(|&i| degree(i) > 0).count() as u64])[0];
    let want = count.min(with_edges as usize);
    let (mut roots, mut seen, mut i) = (Vec::new(), std::collections::HashSet::new(), 0u64);
    while roots.len() < want {
        let candidates: Vec<u64> = (i..i + 256).map(|k| outcore_io::hash::splitmix64(key ^ k) % n).collect();
        i += 256;
        let degrees = part.ask(&candidates, degree)?;
        for (&v, &d) in candidates.iter().zip(&degrees) {
            if roots.len() < want && d > 0 && seen.insert(v) {
                roots.push(v);
            }
        }
    }
    Ok(roots)
}
