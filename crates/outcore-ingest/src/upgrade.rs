//! Rewriting a format version 1 store's indexes as Elias-Fano (`outcore
//! layout upgrade STORE`): each u64 index becomes `NAME.ef`, each u32
//! degrees file `NAME.starts` (issue 15 item 1). Only the indexes are read
//! and written, a few bits a vertex instead of 64, so it takes seconds
//! where a new import takes minutes; the adjacency, weights, blocks,
//! tiles and hot columns stay as they are. Each layout's longest list is
//! recorded where the manifest lacks it, and the page checksums of raw
//! adjacency and of weights written where the store lacks them (stores
//! written before 2026-11-24: their random reads are then checked a 4 KiB
//! page at a time). The manifest is replaced last
//! and the old files removed after it, so an interrupted run leaves the
//! store as it was.

use crate::error::Result;
use outcore_io::Staged;
use outcore_store::{page_sums_name, write_page_sums, FileRecord, IndexFormat, Store, FORMAT_VERSION};
use std::path::Path;

/// What an upgrade did: the layouts rewritten, and the bytes of their
/// index and degrees files before and after.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Upgrade {
    pub layouts: Vec<String>,
    pub bytes_before: u64,
    pub bytes_after: u64,
    /// Layouts whose longest list was recorded (stores written before the
    /// manifest recorded it).
    pub longest_recorded: Vec<String>,
    /// Page checksum files written (stores written before them).
    pub page_sums_written: Vec<String>,
    /// Their bytes.
    pub page_sums_bytes: u64,
}

/// Upgrade the store at `dir` to the current format version (nothing to do for a
/// store whose layouts are Elias-Fano already, record their longest list
/// and have their page checksums).
pub fn upgrade(dir: &Path) -> Result<Upgrade> {
    // no reader has the store open while its layouts change
    let _lock = outcore_store::StoreLock::exclusive(dir)?;
    let store = Store::open(dir)?;
    let mut manifest = store.manifest().clone();
    crate::tiles::remove_unlisted_layout_files(dir, &manifest);
    let mut done = Upgrade::default();
    let mut staged = Vec::new();
    let mut old = Vec::new();
    for (name, record) in &store.manifest().layouts {
        if record.index_format != IndexFormat::U64 {
            continue;
        }
        // removed unless the manifest comes to list them
        staged.extend(["ef", "starts"].iter().map(|x| Staged::named(dir.join(format!("{name}.{x}")))));
        let (new, files) = store.layout(name)?.to_elias_fano(name, manifest.arcs)?;
        for f in std::iter::once(&record.index).chain(&record.degrees) {
            done.bytes_before += manifest.files.remove(f).map_or(0, |r| r.bytes);
            old.push(f.clone());
        }
        for (file, summary) in files {
            done.bytes_after += summary.hashes.bytes;
            manifest.files.insert(file, FileRecord::from_hashes(&summary.hashes));
        }
        manifest.layouts.insert(name.clone(), new);
        done.layouts.push(name.clone());
    }
    // the longest list of each layout, for the traverse engine's budget
    // (one pass over the degrees here instead of one per run)
    for (name, record) in manifest.layouts.iter_mut() {
        if record.longest_list.is_none() {
            let longest = store.layout(name)?.longest_list()?;
            record.longest_list = Some(longest);
            done.longest_recorded.push(name.clone());
        }
    }
    // page checksums, so that a random read of a layout's adjacency or of
    // weights checks its own 4 KiB pages and not a 1 MiB block (raw
    // layouts) or a whole codec block (blocked codecs)
    let files = &mut manifest.files;
    for record in manifest.layouts.values_mut() {
        let wanted = [
            record.adjacency_pages.is_none().then(|| record.adjacency.clone()),
            record.weights.clone().filter(|_| record.weights_pages.is_none()),
        ];
        for (i, file) in wanted.into_iter().enumerate() {
            let Some(file) = file else { continue };
            let sums = page_sums_name(&file);
            staged.push(Staged::named(dir.join(&sums)));
            let summary = write_page_sums(&dir.join(&file), &dir.join(&sums))?;
            done.page_sums_bytes += summary.bytes;
            files.insert(sums.clone(), FileRecord::from_hashes(&summary.hashes));
            *(if i == 0 { &mut record.adjacency_pages } else { &mut record.weights_pages }) = Some(sums.clone());
            done.page_sums_written.push(sums);
        }
    }
    if done.layouts.is_empty() && done.longest_recorded.is_empty() && done.page_sums_written.is_empty() {
        return Ok(done);
    }
    manifest.version = FORMAT_VERSION;
    drop(store);
    crate::tiles::publish_layout(dir, &manifest, staged)?;
    for f in old {
        let _ = std::fs::remove_file(dir.join(f));
    }
    Ok(done)
}
