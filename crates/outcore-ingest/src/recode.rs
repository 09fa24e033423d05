//! Rewriting a store in another encoding and/or vertex order (`outcore
//! recode`, `import --order`), in bounded memory.
//!
//! The relabel is external (a sort-join, as BigSparse and X-Stream do it):
//! the permutation `new_of_old` is a file of u32 read sequentially, never
//! held in memory. Per layout: scan it in source order and join the new
//! source id, sort by old target, join the new target id, sort by new
//! source, write. The id map becomes `permuted` (original id per new id),
//! so every result is still reported in original ids. The new store is
//! written into staging and committed atomically; the source is untouched.

use crate::error::{IngestError, Result};
use crate::sort::{ExternalSorter, WideEdge};
use outcore_io::{Budget, Counter, Minimum, Progress, SeqReader};
use outcore_store::{CsrWriter, Encoding, IdMap, Manifest, Store, StoreWriter, STREAM_CHUNK_BYTES};
use serde::Serialize;
use std::path::{Path, PathBuf};

#[derive(Clone, Debug)]
pub struct RecodeOptions {
    /// Encoding of the new layouts (default: the source's).
    pub encoding: Option<Encoding>,
    /// Name of the order recorded in the manifest (`none` for none).
    pub order: String,
    pub memory: u64,
    pub force: bool,
    /// Keep only these CSR layouts (default: all of the source's).
    pub layouts: Option<Vec<String>>,
}

#[derive(Clone, Debug, Serialize)]
pub struct RecodeReport {
    pub store: PathBuf,
    pub encoding: String,
    pub order: String,
    pub vertices: u64,
    pub arcs: u64,
    /// Bytes of each layout after the rewrite.
    pub layout_bytes: Vec<(String, u64)>,
    pub spilled_bytes: u64,
    pub seconds: f64,
}

/// Reads a file of u32 LE values in order.
struct U32Stream {
    reader: SeqReader,
    buf: Vec<u8>,
    at: usize,
    index: u64,
}

impl U32Stream {
    fn open(path: &Path) -> Result<Self> {
        Ok(U32Stream { reader: SeqReader::open(path, STREAM_CHUNK_BYTES)?, buf: Vec::new(), at: 0, index: 0 })
    }
    /// The value at position `i` (positions never go backwards).
    fn get(&mut self, i: u64) -> Result<u32> {
        while self.index <= i {
            if self.at + 4 > self.buf.len() {
                let rest = self.buf.split_off(self.at);
                self.buf = rest;
                self.at = 0;
                match self.reader.next_chunk()? {
                    Some(c) => self.buf.extend_from_slice(c),
                    None => return Err(IngestError::file(self.reader.path(), format!("ends before entry {i}"))),
                }
                continue;
            }
            self.at += 4;
            self.index += 1;
        }
        Ok(u32::from_le_bytes(self.buf[self.at - 4..self.at].try_into().unwrap()))
    }
}

/// Write the permutation `new_of_old` to `path` (u32 LE per old id).
pub fn write_permutation(path: &Path, new_of_old: &[u32]) -> Result<()> {
    let mut w = outcore_io::SeqWriter::create(path, STREAM_CHUNK_BYTES, outcore_io::CHECKSUM_BLOCK_BYTES)?;
    for &x in new_of_old {
        w.write_bytes(&x.to_le_bytes())?;
    }
    w.finish()?;
    Ok(())
}

/// The least a recode of `store` into `encoding` (`None`: each layout's
/// own) takes: for the layout that needs most, its scan, its writer and a
/// permutation stream at once (the lists are charged as they grow), and
/// three sorts at their smallest; or the tile or hot-list build after it,
/// if more (reckoned on the source's layouts).
pub fn minimum_for(store: &Store, encoding: Option<Encoding>) -> Result<Minimum> {
    let io = io_bytes(store, encoding)?;
    let mut minimum = Minimum::new("recode")
        .with("program, thread stacks and allocator slack", outcore_io::PROCESS_BASELINE)
        .with(IO_PART, io)
        .with("sort and merge buffers at their smallest", 3 * crate::sort::SORT_FLOOR);
    if store.manifest().tiles.is_some() {
        minimum = minimum.larger(crate::sort::layout_minimum_for(store, "tiles")?);
    }
    if let Some(h) = &store.manifest().hot {
        minimum = minimum.larger(crate::hot::minimum(store, h.columns.len() as u32)?);
    }
    Ok(minimum)
}

/// The scan, writer and permutation stream of the layout that needs most.
fn io_bytes(store: &Store, encoding: Option<Encoding>) -> Result<u64> {
    let mut io = 0;
    for (name, record) in &store.manifest().layouts {
        let writer = CsrWriter::buffer_bytes(encoding.unwrap_or(record.encoding), record.weights.is_some());
        io = io.max(store.layout(name)?.scan_bytes()? + writer + PERMUTATION_STREAM_BYTES);
    }
    Ok(io)
}

/// What the budget calls a recode's scan, writer and permutation stream.
const IO_PART: &str = "store scan, permutation stream and layout writer";

/// A [`U32Stream`]'s reader (two chunks) and its buffer (up to two more).
const PERMUTATION_STREAM_BYTES: u64 = 4 * STREAM_CHUNK_BYTES as u64;

/// Rewrite the store `src` as `dst`, relabelled by the permutation file
/// `permutation` if given, every layout in `opts.encoding`.
pub fn recode(src: &Path, dst: &Path, permutation: Option<&Path>, opts: &RecodeOptions, progress: &dyn Progress) -> Result<RecodeReport> {
    let started = std::time::Instant::now();
    outcore_io::release_free_memory();
    let store = Store::open(src)?;
    minimum_for(&store, opts.encoding)?.check(opts.memory)?;
    let m = store.manifest().clone();
    let n = m.vertices;
    if let (Some(_), Some(_)) = (permutation, m.bipartite) {
        return Err(IngestError::file(src, "is a bipartite store: its users come before its items, and a vertex order would mix them"));
    }
    if let Some(p) = permutation {
        let len = std::fs::metadata(p).map_err(|e| IngestError::file(p, e.to_string()))?.len();
        if len != n * 4 {
            return Err(IngestError::file(p, format!("holds {} entries, the store has {n} vertices", len / 4)));
        }
    }
    outcore_store::check_output(dst, outcore_store::OutputKind::Store, opts.force, &[src])?;
    let budget = Budget::new(opts.memory);
    let _base = budget.reserve("program, thread stacks and allocator slack", outcore_io::PROCESS_BASELINE)?;
    let _io = budget.reserve(IO_PART, io_bytes(&store, opts.encoding)?)?;
    let mut writer = StoreWriter::create_for(dst, opts.force, &[src])?;
    let tmp = writer.staging_dir().join("relabel-tmp");
    std::fs::create_dir_all(&tmp).map_err(|e| IngestError::file(&tmp, e.to_string()))?;
    let sort_memory = budget.available() / 3;
    let mut spilled = 0u64;
    let mut layouts = m.layouts.clone();
    let mut arcs_out = 0;
    if let Some(keep) = &opts.layouts {
        layouts.retain(|name, _| keep.contains(name));
    }
    for (name, record) in &m.layouts {
        if !layouts.contains_key(name) {
            continue;
        }
        let encoding = opts.encoding.unwrap_or(record.encoding);
        let lay = store.layout(name)?;
        let weighted = record.weights.is_some();
        let record_arcs = m.arcs;
        let mut csr = CsrWriter::new(&writer, name, encoding, n, weighted)?;
        csr.charge_lists_to(&budget);
        let mut scan = lay.scan()?;
        match permutation {
            None => {
                let mut done = Counter::new(progress, &format!("{name}: rewrite"), record_arcs);
                while let Some((u, targets, weights)) = scan.next_list()? {
                    done.add(targets.len() as u64);
                    for (k, &t) in targets.iter().enumerate() {
                        csr.push(u, t, weights.get(k).copied().unwrap_or(1.0))?;
                    }
                }
            }
            Some(p) => {
                // by old target: (old target, new source)
                let mut by_target = ExternalSorter::new(&tmp, &format!("{name}-a"), &budget, sort_memory, false)?;
                let mut perm = U32Stream::open(p)?;
                let mut done = Counter::new(progress, &format!("{name}: read"), record_arcs);
                while let Some((u, targets, weights)) = scan.next_list()? {
                    done.add(targets.len() as u64);
                    let nu = perm.get(u)? as u64;
                    for (k, &t) in targets.iter().enumerate() {
                        let weight = weights.get(k).map_or(0, |w| w.to_bits());
                        by_target.push(WideEdge { source: t, target: nu, weight })?;
                    }
                }
                drop((scan, perm));
                spilled += by_target.stats.spilled_bytes;
                let mut by_target = by_target.finish()?;
                let mut by_source = ExternalSorter::new(&tmp, &format!("{name}-b"), &budget, sort_memory, false)?;
                let mut perm = U32Stream::open(p)?;
                let mut done = Counter::new(progress, &format!("{name}: relabel"), record_arcs);
                while let Some(e) = by_target.next()? {
                    done.add(1);
                    let nt = perm.get(e.source)? as u64;
                    by_source.push(WideEdge { source: e.target, target: nt, weight: e.weight })?;
                }
                drop((by_target, perm));
                spilled += by_source.stats.spilled_bytes;
                let mut sorted = by_source.finish()?;
                let mut done = Counter::new(progress, &format!("{name}: write"), record_arcs);
                while let Some(e) = sorted.next()? {
                    done.add(1);
                    csr.push(e.source, e.target, if weighted { f32::from_bits(e.weight) } else { 1.0 })?;
                }
            }
        }
        let (rec, arcs) = csr.finish(&mut writer)?;
        if name == "out" {
            arcs_out = arcs;
        }
        layouts.insert(name.clone(), rec);
    }
    let mut manifest = Manifest { layouts, tiles: None, hot: None, files: Default::default(), ..m.clone() };
    if arcs_out != m.arcs {
        return Err(IngestError::file(src, format!("the out layout held {arcs_out} arcs, the manifest says {}", m.arcs)));
    }
    // the id map
    match permutation {
        None => {
            if m.id_map != "identity" {
                let mut out = writer.file("idmap")?;
                SeqReader::for_each_u64(&src.join("idmap"), |x| out.write_bytes(&x.to_le_bytes()))?;
                writer.finish_file(out)?;
            }
        }
        Some(p) => {
            let mut by_new = ExternalSorter::new(&tmp, "idmap", &budget, sort_memory, false)?;
            let mut perm = U32Stream::open(p)?;
            let mut push = |old: u64, original: u64| -> Result<()> {
                by_new.push(WideEdge { source: perm.get(old)? as u64, target: original, weight: 0 })?;
                Ok(())
            };
            if m.id_map == "identity" {
                for old in 0..n {
                    push(old, old + m.id_base)?;
                }
            } else {
                let mut old = 0u64;
                let mut failed = None;
                SeqReader::for_each_u64(&src.join("idmap"), |original| {
                    if failed.is_none() && old < n {
                        if let Err(e) = push(old, original) {
                            failed = Some(e);
                        }
                    }
                    old += 1;
                    Ok(())
                })?;
                if let Some(e) = failed {
                    return Err(e);
                }
                if old != n {
                    return Err(IngestError::file(&src.join("idmap"), format!("holds {old} ids, the store has {n} vertices")));
                }
            }
            spilled += by_new.stats.spilled_bytes;
            let mut sorted = by_new.finish()?;
            let mut out = writer.file("idmap")?;
            while let Some(e) = sorted.next()? {
                out.write_bytes(&e.target.to_le_bytes())?;
            }
            drop(sorted);
            writer.finish_file(out)?;
            manifest.id_map = IdMap::PERMUTED.into();
            manifest.id_base = 0;
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    let encoding = opts.encoding.unwrap_or_else(|| m.layouts.get("out").map_or(Encoding::Raw32, |l| l.encoding));
    manifest.provenance.insert("recoded_from".into(), src.display().to_string());
    manifest.provenance.insert("order".into(), opts.order.clone());
    manifest.provenance.insert("encoding".into(), encoding.name().into());
    let path = writer.commit(manifest)?;
    // the layouts built from the others, built again in the new order
    if let Some(t) = &m.tiles {
        crate::tiles::add_tiles(&path, t.group, t.span_bits, opts.memory, progress)?;
    }
    if let Some(h) = &m.hot {
        crate::hot::add_hot(&path, h.columns.len() as u32, opts.memory, progress)?;
    }
    let new = Store::open(&path)?;
    Ok(RecodeReport {
        layout_bytes: new.manifest().layouts.keys().map(|l| (l.clone(), new.layout_bytes(l))).collect(),
        store: path,
        encoding: encoding.name().into(),
        order: opts.order.clone(),
        vertices: n,
        arcs: m.arcs,
        spilled_bytes: spilled,
        seconds: started.elapsed().as_secs_f64(),
    })
}
