//! Adding NETALX's in-memory neighbours to a store as the `hot` layout
//! (Iwabuchi, thesis section 3.4.3; `outcore layout add STORE hot`): per
//! vertex its first K neighbours, highest degree first, stored column by
//! column so that a run loads the first k <= K columns with one sequential
//! read instead of scanning the CSR. One scan of the source layout (`in`
//! of a directed store, `out` of a symmetric one) with its degrees in
//! memory (4 bytes a vertex), its lists ranked in batches on every core,
//! and K column writers; new files get a fresh
//! generation name and the manifest is replaced atomically last.

use crate::error::{IngestError, Result};
use crate::tiles::{publish_layout, remove_unlisted_layout_files};
use outcore_io::{Budget, Counter, Minimum, Progress, SeqWriter, Staged, CHECKSUM_BLOCK_BYTES};
use outcore_store::hot::{source_layout, HotBatches};
use outcore_store::manifest::MAX_HOT_COLUMNS;
use outcore_store::{FileRecord, HotColumn, HotRecord, Store};
use std::path::Path;

/// Columns built unless asked otherwise: at 16 the lists of a Kronecker
/// graph of edge factor 16 hold about half of its arcs.
pub const DEFAULT_COLUMNS: u32 = 16;

/// Bytes of each column writer's chunk (it holds three).
const COLUMN_CHUNK_BYTES: usize = 256 << 10;

/// The smallest budget [`add_hot`] runs in on `store` with `columns`.
pub fn minimum(store: &Store, columns: u32) -> Result<Minimum> {
    minimum_of(store, source_of(store)?, columns)
}

/// The smallest budget of a hot layout of `columns` sampling `source`
/// (with the degrees it is ranked by: 4 bytes a vertex).
pub fn minimum_of(store: &Store, source: &str, columns: u32) -> Result<Minimum> {
    Ok(Minimum::new("building the hot layout")
        .with("program, thread stacks and allocator slack", outcore_io::PROCESS_BASELINE)
        .with("degrees of the source layout", store.vertices() * 4)
        .with("column writers", columns as u64 * 3 * COLUMN_CHUNK_BYTES as u64)
        .with(BATCHES, HotBatches::bytes(store.layout(source)?.longest_list()?))
        .with(SCAN, store.layout(source)?.scan_bytes()?))
}

/// What the budget calls the scan of the source layout.
const SCAN: &str = "hot layout: scan of the source layout";

/// What the budget calls the batches ranked in parallel.
const BATCHES: &str = "hot layout: batches of lists ranked in parallel";

/// The layout whose lists the hot lists sample: `in` of a directed store
/// (which must have it), `out` of a symmetric one.
fn source_of(store: &Store) -> Result<&'static str> {
    let source = source_layout(store.manifest().directed);
    if !store.has_layout(source) {
        return Err(IngestError::file(
            store.dir(),
            "a directed store's hot lists sample its in-edges: add them first (`outcore layout add STORE in`)",
        ));
    }
    Ok(source)
}

/// Build (or rebuild) the hot layout of the store at `dir` with `columns`
/// columns, within `memory` bytes.
pub fn add_hot(dir: &Path, columns: u32, memory: u64, progress: &dyn Progress) -> Result<HotRecord> {
    build(dir, columns, memory, None, progress)
}

/// [`add_hot`] for one part of a partitioned store: the lists of `source`
/// (a part holds arcs, so `out` of an undirected graph's part), each
/// neighbour ranked by `degrees[u]` (its degree in the whole graph, which
/// for a ghost is not its degree in the part). `degrees` has an entry per
/// vertex of the store; the caller holds it, and `memory` covers it.
pub fn add_hot_ranked_by(
    dir: &Path,
    source: &'static str,
    columns: u32,
    memory: u64,
    degrees: &[u32],
    progress: &dyn Progress,
) -> Result<HotRecord> {
    build(dir, columns, memory, Some((source, degrees)), progress)
}

/// [`add_hot`], or [`add_hot_ranked_by`] when `ranked` gives the source
/// and the degrees.
fn build(dir: &Path, columns: u32, memory: u64, ranked: Option<(&'static str, &[u32])>, progress: &dyn Progress) -> Result<HotRecord> {
    outcore_io::release_free_memory();
    let _lock = outcore_store::StoreLock::exclusive(dir)?;
    let store = Store::open(dir)?;
    let mut manifest = store.manifest().clone();
    let n = manifest.vertices;
    if columns == 0 || columns as usize > MAX_HOT_COLUMNS {
        return Err(IngestError::Parameter { name: "columns".into(), reason: format!("must be between 1 and {MAX_HOT_COLUMNS}") });
    }
    if n >= u32::MAX as u64 {
        return Err(IngestError::file(dir, "hot lists hold 32-bit ids: the store has 2^32 vertices or more"));
    }
    let source = match ranked {
        Some((source, degrees)) => {
            if !store.has_layout(source) {
                return Err(IngestError::file(dir, format!("hot lists of layout {source}: the store has no such layout")));
            }
            if degrees.len() as u64 != n {
                return Err(IngestError::file(dir, format!("{} degrees to rank by, for {n} vertices", degrees.len())));
            }
            source
        }
        None => source_of(&store)?,
    };
    let minimum = minimum_of(&store, source, columns)?;
    minimum.check(memory)?;
    let budget = Budget::new(memory);
    let _degrees_charge = budget.reserve("hot layout: degrees of the source layout", n * 4)?;
    let _writers_charge = budget.reserve("hot layout: column writers", columns as u64 * 3 * COLUMN_CHUNK_BYTES as u64)?;
    let _batches_charge = budget.reserve(BATCHES, minimum.part(BATCHES))?;
    let _scan_charge = budget.reserve(SCAN, minimum.part(SCAN))?;
    remove_unlisted_layout_files(dir, &manifest);
    let layout = store.layout(source)?;
    let mut own_degrees: Vec<u32>;
    let degrees: &[u32] = match ranked {
        Some((_, degrees)) => degrees,
        None => {
            // looked up once per arc ranked, at random
            own_degrees = vec![0u32; n as usize];
            outcore_io::huge::advise_huge_pages(&mut own_degrees);
            layout.for_each_degree(|v, d| own_degrees[v as usize] = d.min(u32::MAX as u64) as u32)?;
            &own_degrees
        }
    };
    let generation = manifest.hot.as_ref().map_or(0, |h| {
        h.columns.first().and_then(|c| c.file.trim_start_matches("hot-g").split('.').next()?.parse::<u64>().ok()).map_or(0, |g| g + 1)
    });
    let names: Vec<String> = (0..columns).map(|j| format!("hot-g{generation}.{j}")).collect();
    let staged: Vec<Staged> = names.iter().map(|f| Staged::named(dir.join(f))).collect();
    let mut writers = names
        .iter()
        .map(|f| SeqWriter::create(&dir.join(f), COLUMN_CHUNK_BYTES, CHECKSUM_BLOCK_BYTES))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    let mut entries = vec![0u64; columns as usize];
    let scan = layout.scan()?;
    let mut read = Counter::new(progress, "hot: read", manifest.arcs);
    let adjacency = layout.adjacency_path();
    // each list checked on the reading thread, ranked on every core
    let inspect = |nbrs: &[u64]| -> Result<()> {
        read.add(nbrs.len() as u64);
        if let Some(&u) = nbrs.iter().find(|&&u| u >= n) {
            return Err(IngestError::file(&adjacency, format!("holds neighbour {u}, beyond the store's {n} vertices")));
        }
        outcore_io::check_interrupt(dir)?;
        Ok(())
    };
    let mut emit = |ranked: &[u32]| -> Result<()> {
        for (j, &u) in ranked.iter().enumerate() {
            writers[j].write_bytes(&u.to_le_bytes())?;
            entries[j] += 1;
        }
        Ok(())
    };
    HotBatches::rank(scan, columns as usize, degrees, inspect, &mut emit)?;
    read.end();
    let source_xxh3 = manifest
        .layouts
        .get(source)
        .and_then(|r| manifest.files.get(&r.adjacency))
        .map(|f| f.xxh3.clone())
        .ok_or_else(|| IngestError::file(dir, format!("the adjacency of layout {source} is not in the manifest's list of files")))?;
    let mut record = HotRecord { source: source.to_string(), source_xxh3, columns: Vec::new() };
    for ((writer, name), count) in writers.into_iter().zip(&names).zip(entries) {
        let summary = writer.finish()?;
        manifest.files.insert(name.clone(), FileRecord::from_hashes(&summary.hashes));
        record.columns.push(HotColumn { file: name.clone(), entries: count });
    }
    let old = manifest.hot.replace(record.clone());
    let old_files: Vec<String> = old.iter().flat_map(|h| h.columns.iter().map(|c| c.file.clone())).collect();
    for f in &old_files {
        manifest.files.remove(f);
    }
    publish_layout(dir, &manifest, staged)?;
    for f in old_files {
        let _ = std::fs::remove_file(dir.join(f));
    }
    Ok(record)
}
