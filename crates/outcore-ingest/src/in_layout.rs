//! Adding the in-edge CSR to an existing directed store (`outcore layout
//! add STORE in`), in bounded memory: one scan of the out-edges, an
//! external sort by (target, source), one sequential write. The manifest
//! is replaced last, so an interrupted run leaves the store as it was.

use crate::error::{IngestError, Result};
use crate::sort::{with_layout_sorter, WideEdge};
use outcore_io::{Counter, Progress, Staged};
use outcore_store::{CsrWriter, FileRecord, LayoutRecord, Store};
use std::path::Path;

/// Build the `in` layout of the directed store at `dir` within `memory` bytes.
pub fn add_in(dir: &Path, memory: u64, progress: &dyn Progress) -> Result<LayoutRecord> {
    outcore_io::release_free_memory();
    // no reader has the store open while its layouts change
    let _lock = outcore_store::StoreLock::exclusive(dir)?;
    let store = Store::open(dir)?;
    let mut manifest = store.manifest().clone();
    if !manifest.directed {
        return Err(IngestError::file(dir, "an undirected store's out layout already lists every vertex's in-neighbours"));
    }
    if manifest.layouts.contains_key("in") {
        return Err(IngestError::file(dir, "already has an in layout"));
    }
    crate::tiles::remove_unlisted_layout_files(dir, &manifest);
    let out = store.layout("out")?;
    let weighted = out.record().weights.is_some();
    let io = crate::sort::layout_minimum_for(&store, "in")?;
    with_layout_sorter(dir, "in", memory, &io, |mut sorter, budget| {
        let mut scan = out.scan()?;
        let mut read = Counter::new(progress, "in: read", manifest.arcs);
        while let Some((u, targets, weights)) = scan.next_list()? {
            read.add(targets.len() as u64);
            for (k, &v) in targets.iter().enumerate() {
                sorter.push(WideEdge { source: v, target: u, weight: weights.get(k).map_or(0, |w| w.to_bits()) })?;
            }
        }
        drop(scan);
        // the new files are removed unless the manifest comes to list them
        let staged: Vec<Staged> = outcore_store::LAYOUT_FILE_SUFFIXES.iter().map(|x| Staged::named(dir.join(format!("in.{x}")))).collect();
        let mut writer = CsrWriter::create_in(dir, "in", out.record().encoding, manifest.vertices, weighted)?;
        writer.charge_lists_to(budget);
        read.end();
        let mut merged = sorter.finish()?;
        let mut written = Counter::new(progress, "in: write", manifest.arcs);
        while let Some(r) = merged.next()? {
            written.add(1);
            writer.push(r.source, r.target, f32::from_bits(r.weight))?;
        }
        written.end();
        drop(merged);
        let (record, _, files) = writer.finish_in()?;
        for (name, summary) in &files {
            manifest.files.insert(name.clone(), FileRecord::from_hashes(&summary.hashes));
        }
        manifest.layouts.insert("in".into(), record.clone());
        // the new layout's index is Elias-Fano: a version 1 store becomes the current version
        manifest.version = outcore_store::FORMAT_VERSION;
        crate::tiles::publish_layout(dir, &manifest, staged)?;
        Ok(record)
    })
}
