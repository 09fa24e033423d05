//! Partitioned static stores: one outcore store per rank, holding the arcs
//! whose source that rank owns (the owner function of the distributed
//! dynamic store), so that a distributed engine reads only its own part
//! from its own node's disk; plus, in every part, `partition.json`: the
//! global manifest (ranks, owner, the whole graph's counts, every part's
//! identity and checksum).
//!
//! [`partition`] cuts an existing store on one machine (`outcore
//! partition`): it writes the store's edges once as a temporary edge list
//! in original ids (the export, under the memory budget), then imports
//! each rank's share from it through the import pipeline (external sort,
//! CSR), so neither the graph nor its id map need fit in memory. An
//! undirected store's edges become both arcs, each on its source's owner;
//! every vertex is listed in its owner's part, isolated ones too.

use crate::error::{DistError, Result};
use crate::manifest::part_dir;
use crate::owner::Owner;
use outcore_ingest::error::IngestError;
use outcore_ingest::export::{export, ExportFormat, ExportOptions};
use outcore_ingest::formats::{Declared, EdgeSink, SinkError};
use outcore_ingest::import::{import_from, ImportOptions, Progress, SelfLoops};
use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::{Path, PathBuf};

pub const FORMAT: &str = "outcore-dist-static";
pub const VERSION: u32 = 1;
pub const MANIFEST: &str = "partition.json";

/// One part, as the global manifest lists it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PartRecord {
    pub rank: usize,
    pub vertices: u64,
    pub arcs: u64,
    /// xxh3 of the part's store manifest (`manifest.json`), which holds
    /// every file's checksum: a part of another store does not match.
    pub manifest_xxh3: String,
}

/// `partition.json`, the same in every part but for `rank`.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PartitionManifest {
    pub format: String,
    pub version: u32,
    pub ranks: usize,
    pub rank: usize,
    pub owner: Owner,
    /// Of the whole graph: whether its edges were undirected (each part
    /// holds arcs, and is a directed store).
    pub directed: bool,
    pub weighted: bool,
    pub vertices: u64,
    pub arcs: u64,
    pub source: String,
    pub parts: Vec<PartRecord>,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct PartitionReport {
    pub parts: Vec<PathBuf>,
    pub manifest: PartitionManifest,
    pub seconds: f64,
}

/// The xxh3 of a part's store manifest, as `partition.json` records it.
pub(crate) fn manifest_hash(dir: &Path) -> Result<String> {
    let path = dir.join("manifest.json");
    let bytes = std::fs::read(&path).map_err(|e| IngestError::file(&path, e.to_string()))?;
    Ok(format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&bytes)))
}

/// Call `f(u, v, weight)` for every edge of the edge list the export wrote
/// (`u v` or `u v w` a line, original ids).
fn exported_edges(
    edges: &Path,
    weighted: bool,
    mut f: impl FnMut(u64, u64, f32) -> std::result::Result<(), IngestError>,
) -> std::result::Result<(), IngestError> {
    let file = std::fs::File::open(edges).map_err(|e| IngestError::file(edges, e.to_string()))?;
    for (n, line) in std::io::BufReader::with_capacity(1 << 20, file).lines().enumerate() {
        let line = line.map_err(|e| IngestError::file(edges, e.to_string()))?;
        let mut fields = line.split_ascii_whitespace();
        let mut next = || fields.next().and_then(|x| x.parse::<u64>().ok());
        let (Some(u), Some(v)) = (next(), next()) else {
            return Err(IngestError::file(edges, format!("line {}: not an edge the export wrote", n + 1)));
        };
        let w = if weighted { line.split_ascii_whitespace().nth(2).and_then(|x| x.parse::<f32>().ok()).unwrap_or(1.0) } else { 1.0 };
        f(u, v, w)?;
    }
    Ok(())
}

/// The degree in the whole undirected graph (arcs leaving it, a loop
/// once) of every vertex of the part at `part`, in its dense order, or
/// None when `source`'s ids do not ascend (a recoded store). Found by
/// walking the source's ids and degrees beside the part's ids, both
/// ascending: sequential reads, no lookups. Holds the degrees (4 bytes a
/// vertex of the part), charged to `memory`.
fn whole_graph_degrees(part: &Path, source: &outcore_store::Store, memory: u64) -> std::result::Result<Option<Vec<u32>>, IngestError> {
    let source_ids = source.ids()?;
    if !source_ids.ascending() {
        return Ok(None);
    }
    let store = outcore_store::Store::open(part)?;
    let n = store.vertices();
    let budget = outcore_io::Budget::new(memory);
    let _charge = budget.reserve("partition: a part's whole-graph degrees, for its hot lists", 4 * n)?;
    let mut degrees = Vec::with_capacity(n as usize);
    let (mut theirs, mut their_degrees) = (source_ids.stream()?, source.layout("out")?.degrees()?);
    let mut ours = store.ids()?.stream()?;
    let lacks = |id: u64| IngestError::file(part, format!("holds vertex {id}, which {} lacks", source.dir().display()));
    while let Some(id) = ours.next_id()? {
        // the source's entry for `id`: ids ascend in both
        loop {
            let x = theirs.next_id()?.ok_or_else(|| lacks(id))?;
            let d = their_degrees.next_degree()?;
            if x == id {
                degrees.push(d.min(u32::MAX as u64) as u32);
                break;
            }
            if x > id {
                return Err(lacks(id));
            }
        }
    }
    Ok(Some(degrees))
}

/// Cut the store at `source` into `ranks` parts at `pattern` (`{rank}`
/// replaced), each part of an undirected graph with `hot_columns` hot
/// lists (0: none). `memory` bounds every step; `force` replaces existing
/// parts.
pub fn partition(
    source: &Path,
    pattern: &str,
    ranks: usize,
    hot_columns: u32,
    memory: u64,
    force: bool,
    progress: &dyn Progress,
) -> Result<PartitionReport> {
    let start = std::time::Instant::now();
    if ranks == 0 || ranks > 1 << 16 {
        return Err(DistError::Usage(format!("--ranks {ranks}: between 1 and 65536")));
    }
    let store = outcore_store::Store::open(source).map_err(IngestError::from)?;
    let m = store.manifest().clone();
    let parts: Vec<PathBuf> = (0..ranks).map(|r| part_dir(pattern, r, ranks)).collect::<Result<_>>()?;
    for p in &parts {
        crate::manifest::create_parent(p)?;
        outcore_store::check_output(p, outcore_store::OutputKind::Store, force, &[source]).map_err(IngestError::from)?;
    }
    // the edges once, in original ids, beside the first part
    let parent = parts[0].parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    // removed when done, on an interrupt, or (killed outright) by the next run here
    let scratch = outcore_io::temp::TempArea::create(parent, "partition").map_err(IngestError::from)?;
    let edges = scratch.file("edges.el");
    let format = if m.weighted { ExportFormat::Wel } else { ExportFormat::El };
    export(source, &edges, &ExportOptions { format, memory, ..Default::default() }, progress)?;
    let owner = Owner::Splitmix2;
    let mut records = Vec::new();
    for (rank, part) in parts.iter().enumerate() {
        let edges = &edges;
        let m = &m;
        let refused = |e: SinkError| match e {
            SinkError::Reject(reason) => IngestError::file(edges, reason),
            SinkError::Abort(e) => e,
        };
        let emit = |sink: &mut dyn EdgeSink, _: &mut dyn FnMut(std::sync::Arc<std::sync::atomic::AtomicU64>, u64, bool)| {
            sink.declare(&Declared { directed: Some(true), weighted: m.weighted, ..Default::default() }).map_err(refused)?;
            let mut ids = store.ids()?.stream()?;
            while let Some(id) = ids.next_id()? {
                if owner.rank_of(id, ranks) == rank {
                    sink.vertex(id).map_err(refused)?;
                }
            }
            sink.vertices_done().map_err(refused)?;
            exported_edges(edges, m.weighted, |u, v, w| {
                if owner.rank_of(u, ranks) == rank {
                    sink.edge(u, v, w).map_err(refused)?;
                }
                if !m.directed && u != v && owner.rank_of(v, ranks) == rank {
                    sink.edge(v, u, w).map_err(refused)?;
                }
                Ok(())
            })
        };
        let opts = ImportOptions {
            directed: Some(true),
            weighted: m.weighted,
            unweighted: !m.weighted,
            dedup: false,
            self_loops: SelfLoops::Keep,
            memory,
            force,
            ..Default::default()
        };
        let mut provenance = BTreeMap::new();
        provenance.insert("input".into(), format!("part {rank} of {ranks} of {}", source.display()));
        provenance.insert("format".into(), FORMAT.into());
        progress.begin(&format!("part {rank}"), 1, false);
        let r = import_from(&emit, part, &opts, provenance, progress)?;
        progress.end();
        // the hot lists of a part of an undirected graph (a distributed
        // BFS's bottom-up steps), ranked by degree in the whole graph; they
        // hold 32-bit ids
        if !m.directed && hot_columns > 0 && r.vertices > 0 && r.vertices < u32::MAX as u64 {
            if let Some(degrees) = whole_graph_degrees(part, &store, memory)? {
                progress.begin(&format!("part {rank}: hot lists"), 1, false);
                outcore_ingest::hot::add_hot_ranked_by(part, "out", hot_columns, memory, &degrees, progress)?;
                progress.end();
            }
        }
        records.push(PartRecord { rank, vertices: r.vertices, arcs: r.edges, manifest_xxh3: manifest_hash(part)? });
    }
    drop(scratch);
    let mut manifest = PartitionManifest {
        format: FORMAT.into(),
        version: VERSION,
        ranks,
        rank: 0,
        owner,
        directed: m.directed,
        weighted: m.weighted,
        vertices: m.vertices,
        arcs: records.iter().map(|r| r.arcs).sum(),
        source: source.display().to_string(),
        parts: records,
    };
    for (rank, part) in parts.iter().enumerate() {
        manifest.rank = rank;
        let text = serde_json::to_string_pretty(&manifest).expect("serializes");
        let path = part.join(MANIFEST);
        std::fs::write(&path, text).map_err(|e| IngestError::file(&path, e.to_string()))?;
    }
    manifest.rank = 0;
    Ok(PartitionReport { parts, manifest, seconds: start.elapsed().as_secs_f64() })
}

/// Check that the parts at `pattern` are one partitioned store of `ranks`
/// parts (each part's rank, the same global manifest, every part's store
/// manifest as recorded), and return its manifest.
pub fn check_parts(pattern: &str, ranks: usize) -> Result<PartitionManifest> {
    let mut first: Option<PartitionManifest> = None;
    for rank in 0..ranks {
        let dir = part_dir(pattern, rank, ranks)?;
        let path = dir.join(MANIFEST);
        let text = std::fs::read_to_string(&path).map_err(|e| {
            DistError::Usage(format!("{}: {e}: not a part of a partitioned store (the part of rank {rank})", path.display()))
        })?;
        let m: PartitionManifest =
            serde_json::from_str(&text).map_err(|e| DistError::Corrupt(format!("{}: not a partition manifest ({e})", path.display())))?;
        if m.format != FORMAT || m.version != VERSION {
            return Err(DistError::Corrupt(format!("{}: format {} version {}", path.display(), m.format, m.version)));
        }
        if m.ranks != ranks {
            return Err(DistError::Usage(format!("{}: the store has {} parts, this job {ranks} ranks", path.display(), m.ranks)));
        }
        if m.rank != rank || m.parts.len() != ranks {
            return Err(DistError::Corrupt(format!("{}: is the part of rank {}, opened as rank {rank}", path.display(), m.rank)));
        }
        if manifest_hash(&dir)? != m.parts[rank].manifest_xxh3 {
            return Err(DistError::Corrupt(format!(
                "{}: its store is not the one the partition recorded (checksum mismatch)",
                dir.display()
            )));
        }
        match &first {
            None => first = Some(m),
            Some(f) if f.parts != m.parts || f.source != m.source => {
                return Err(DistError::Corrupt(format!("{}: a part of another partitioned store than rank 0's", dir.display())));
            }
            Some(_) => {}
        }
    }
    first.ok_or_else(|| DistError::Usage("no parts".into()))
}
