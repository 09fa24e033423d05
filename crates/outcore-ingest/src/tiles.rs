//! Adding the G-Store tile layout to a store (`outcore layout add STORE
//! tiles`), in bounded memory: one sequential scan of the out-CSR, an
//! external sort by (group, tile, local ids), one sequential write. New
//! files get a fresh generation name and the manifest is replaced
//! atomically last, so an interrupted conversion leaves the store as it was.

use crate::error::{IngestError, Result};
use crate::sort::{with_layout_sorter, WideEdge};
use outcore_io::{Counter, Progress, Staged};
use outcore_store::tiles::TileWriter;
use outcore_store::{FileRecord, Manifest, Store, TilesRecord};
use std::path::Path;

/// log2 of the vertices of a span: 16-bit local ids.
pub const SPAN_BITS: u32 = 16;

/// Tiles per group side. G-Store uses 256; on Kronecker scale 25 (2 cores,
/// 2 MiB L2) PageRank iterations measured 3.64 s with 16, 3.70 s with 256
/// and 3.81 s with 4 (bench/stream, same session), so 16 is the default.
pub const DEFAULT_GROUP: u32 = 16;

/// Build (or rebuild) the tile layout of the store at `dir` with `group`
/// tiles per group side and 2^`span_bits` vertices per span (G-Store's 16
/// unless testing small graphs), within `memory` bytes.
pub fn add_tiles(dir: &Path, group: u32, span_bits: u32, memory: u64, progress: &dyn Progress) -> Result<TilesRecord> {
    outcore_io::release_free_memory();
    // no reader has the store open while its layouts change
    let _lock = outcore_store::StoreLock::exclusive(dir)?;
    let store = Store::open(dir)?;
    let mut manifest = store.manifest().clone();
    let n = manifest.vertices;
    if n > 1 << 32 {
        return Err(IngestError::file(dir, "tiles hold at most 2^32 vertices (16-bit spans, 16-bit tile coordinates)"));
    }
    if group == 0 || group > 1 << 16 {
        return Err(IngestError::Parameter { name: "group".into(), reason: "must be between 1 and 65536".into() });
    }
    if !(1..=SPAN_BITS).contains(&span_bits) {
        return Err(IngestError::Parameter {
            name: "span_bits".into(),
            reason: format!("must be between 1 and {SPAN_BITS} (local ids are 16-bit)"),
        });
    }
    if n.div_ceil(1 << span_bits) > 1 << 16 {
        return Err(IngestError::file(dir, format!("2^{span_bits}-vertex spans make more than 65536 spans of {n} vertices")));
    }
    remove_unlisted_layout_files(dir, &manifest);
    let directed = manifest.directed;
    let q = group as u64;
    let mask = (1u64 << span_bits) - 1;
    let io = crate::sort::layout_minimum_for(&store, "tiles")?;
    with_layout_sorter(dir, "tiles", memory, &io, |mut sorter, _| {
        let mut scan = store.layout("out")?.scan()?;
        let mut read = Counter::new(progress, "tiles: read", manifest.arcs);
        while let Some((u, nbrs, weights)) = scan.next_list()? {
            read.add(nbrs.len() as u64);
            for (k, &v) in nbrs.iter().enumerate() {
                if !directed && u > v {
                    continue; // the upper triangle holds each undirected edge once
                }
                let (i, j) = (u >> span_bits, v >> span_bits);
                let key = (i / q) << 48 | (j / q) << 32 | i << 16 | j;
                let weight = weights.get(k).map_or(0, |w| w.to_bits());
                sorter.push(WideEdge { source: key, target: (u & mask) << 16 | (v & mask), weight })?;
            }
        }
        drop(scan);
        let generation = manifest
            .tiles
            .as_ref()
            .map_or(0, |t| t.data.trim_start_matches("tiles-g").split('.').next().and_then(|g| g.parse::<u64>().ok()).unwrap_or(0) + 1);
        let (data_name, index_name) = (format!("tiles-g{generation}.edges"), format!("tiles-g{generation}.index"));
        let weights_name = manifest.weighted.then(|| format!("tiles-g{generation}.weights"));
        // the new files are removed unless the manifest comes to list them
        let staged: Vec<Staged> = [Some(&data_name), Some(&index_name), weights_name.as_ref()]
            .into_iter()
            .flatten()
            .map(|f| Staged::named(dir.join(f)))
            .collect();
        let mut writer = TileWriter::create_named(dir, &data_name, &index_name, weights_name.as_deref())?;
        read.end();
        let mut merged = sorter.finish()?;
        let mut written = Counter::new(progress, "tiles: write", if directed { manifest.arcs } else { manifest.edges });
        while let Some(r) = merged.next()? {
            written.add(1);
            let (i, j) = ((r.source >> 16) & 0xffff, r.source & 0xffff);
            writer.push(i as u32, j as u32, (r.target >> 16) as u16, r.target as u16, f32::from_bits(r.weight))?;
        }
        drop(merged);
        written.end();
        let (edges, tiles, data, index, weights) = writer.finish()?;
        let old = manifest.tiles.take();
        let record = TilesRecord {
            span_bits,
            group,
            spans: n.div_ceil(1 << span_bits),
            edges,
            tiles,
            upper_triangle: !directed,
            data: data_name,
            index: index_name,
            weights: weights_name,
        };
        manifest.files.insert(record.data.clone(), FileRecord::from_hashes(&data.hashes));
        manifest.files.insert(record.index.clone(), FileRecord::from_hashes(&index.hashes));
        if let (Some(name), Some(w)) = (&record.weights, &weights) {
            manifest.files.insert(name.clone(), FileRecord::from_hashes(&w.hashes));
        }
        let old_files: Vec<String> =
            old.iter().flat_map(|t| [Some(t.data.clone()), Some(t.index.clone()), t.weights.clone()]).flatten().collect();
        for f in &old_files {
            manifest.files.remove(f);
        }
        manifest.tiles = Some(record.clone());
        publish_layout(dir, &manifest, staged)?;
        for f in old_files {
            let _ = std::fs::remove_file(dir.join(f));
        }
        Ok(record)
    })
}

/// Remove layout files (`tiles-g*`, `hot-g*`, `in.*`, scratch files included) that the manifest does not list:
/// what a layout build killed outright (no chance to clean up) left in the
/// store. Says so in one line.
pub(crate) fn remove_unlisted_layout_files(dir: &Path, manifest: &Manifest) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut removed = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let layout_file = name.starts_with("tiles-g") && [".edges", ".index", ".weights"].iter().any(|x| name.ends_with(x))
            || name.strip_prefix("hot-g").and_then(|r| r.split_once('.')).is_some_and(|(g, j)| {
                !g.is_empty() && g.bytes().all(|b| b.is_ascii_digit()) && !j.is_empty() && j.bytes().all(|b| b.is_ascii_digit())
            })
            || name.strip_prefix("in.").is_some_and(|suffix| outcore_store::LAYOUT_FILE_SUFFIXES.contains(&suffix))
            // what an index upgrade or an import killed before its manifest left
            || name.strip_prefix("out.").is_some_and(|suffix| {
                ["ef", "starts", "entries", "starts.entries", "adj.pages", "weights.pages"].contains(&suffix)
            });
        if layout_file && !manifest.files.contains_key(&name) && e.file_type().map(|t| t.is_file()).unwrap_or(false) {
            let _ = std::fs::remove_file(e.path());
            removed.push(name);
        }
    }
    if !removed.is_empty() {
        eprintln!("note: removed {} left in {} by an interrupted layout build", removed.join(", "), dir.display());
    }
}

/// Write `manifest`, which lists the `staged` layout files, making them part
/// of the store. They are released first (an interrupt must not remove
/// listed files), and removed here if the manifest cannot be written.
pub(crate) fn publish_layout(dir: &Path, manifest: &Manifest, staged: Vec<Staged>) -> Result<()> {
    outcore_io::check_interrupt(dir)?;
    let kept: Vec<_> = staged.into_iter().map(Staged::keep).collect();
    manifest.write_atomic(dir).inspect_err(|_| {
        for p in &kept {
            let _ = std::fs::remove_file(p);
        }
    })?;
    Ok(())
}
