//! What both decoder fuzzers (`fuzz_decoders`, the mutation fuzzer, and
//! fuzz/afl's `decoders`, coverage-guided) do with a damaged input, and the
//! seeds they start from: CA-GrQc imported as raw32, ceesor and gapref,
//! with tiles. Each check returns `Some(why)` for a finding other than a
//! panic (a decoded id beyond the vertex count, an entry read back wrong);
//! a panic is the caller's to catch.
//!
//! - `raw32`, `ceesor`, `gapref`: one block of the layout (a compressed
//!   layout's block, or about 4 KiB of raw32 lists), its bytes and its
//!   vertices' index entries damaged, decoded list by list through the
//!   codec's decoder exactly as the engines do.
//! - `tiles`: the tile data and index files damaged, read through
//!   `TileScan` (unregistered files: nothing checks their checksums first,
//!   so the reader's own checks are what is tested).
//! - `index-raw32`, `index-ceesor`: the index file's bytes damaged and
//!   built into the traverse engine's Elias-Fano index.
//! - `ef-file`: a store's Elias-Fano index file (format version 2, CEESOR:
//!   flag bits too) damaged and read through `EfCursor`.
#![allow(dead_code)]

use outcore_engines::CompactIndex;
use outcore_ingest::{import_file, tiles::add_tiles, ImportOptions, NoProgress};
use outcore_store::manifest::TilesRecord;
use outcore_store::tiles::TileScan;
use outcore_store::{Encoding, ListSource, Store};
use std::path::{Path, PathBuf};

/// Every decoder target, in the order the fuzzers run them.
pub const TARGETS: [&str; 7] = ["raw32", "ceesor", "gapref", "tiles", "index-raw32", "index-ceesor", "ef-file"];

/// One layout in memory: its codec, index, adjacency bytes and blocks
/// (first vertex, end vertex, first byte, end byte).
pub struct Lists {
    pub encoding: Encoding,
    pub vertices: u64,
    pub index: Vec<u64>,
    pub adjacency: Vec<u8>,
    pub blocks: Vec<(u64, u64, u64, u64)>,
}

/// What a target fuzzes, set up once: the undamaged files it damages.
pub enum Target {
    Lists(Lists),
    Tiles { rec: TilesRecord, vertices: u64, data: Vec<u8>, index: Vec<u8>, copy: PathBuf },
    Index { encoding: Encoding, file: Vec<u8> },
    EfFile { file: Vec<u8>, entries: u64, flag: u64, path: PathBuf },
}

fn import(shared: &Path, store: &Path, encoding: Option<Encoding>) {
    let opts = ImportOptions { encoding, memory: 256 << 20, ..Default::default() };
    import_file(&shared.join("real/CA-GrQc.txt"), store, &opts, &NoProgress).unwrap();
}

/// Import the seed store of target `name` under `work`.
pub fn setup(name: &str, shared: &Path, work: &Path) -> Target {
    let store = work.join(name);
    match name {
        "raw32" | "ceesor" | "gapref" => {
            import(shared, &store, Some(Encoding::from_name(name).unwrap()));
            Target::Lists(load(&store))
        }
        "tiles" => {
            import(shared, &store, None);
            // small spans: many tiles, and local ids that can point past a short last span
            let rec = add_tiles(&store, 4, 9, 256 << 20, &NoProgress).unwrap();
            let vertices = Store::open(&store).unwrap().vertices();
            let copy = work.join("tiles-fuzz");
            std::fs::create_dir_all(&copy).unwrap();
            let data = std::fs::read(store.join(&rec.data)).unwrap();
            let index = std::fs::read(store.join(&rec.index)).unwrap();
            Target::Tiles { rec, vertices, data, index, copy }
        }
        "index-raw32" | "index-ceesor" => {
            let encoding = if name == "index-raw32" { Encoding::Raw32 } else { Encoding::Ceesor };
            import(shared, &store, Some(encoding));
            let file = load(&store).index.iter().flat_map(|x| x.to_le_bytes()).collect();
            Target::Index { encoding, file }
        }
        "ef-file" => {
            import(shared, &store, Some(Encoding::Ceesor));
            let st = Store::open(&store).unwrap();
            let lay = st.layout("out").unwrap();
            let file = std::fs::read(lay.index_path()).unwrap();
            let flag = lay.index_flag();
            Target::EfFile { file, entries: st.vertices() + 1, flag, path: work.join("fuzz.ef") }
        }
        _ => panic!("no decoder target {name}; the targets are {}", TARGETS.join(", ")),
    }
}

pub fn load(store: &Path) -> Lists {
    let st = Store::open(store).unwrap();
    let lay = st.layout("out").unwrap();
    let mut entries = lay.index_entries().unwrap();
    let index: Vec<u64> = (0..=st.vertices()).map(|i| entries.entry(i).unwrap()).collect();
    let adjacency = std::fs::read(lay.adjacency_path()).unwrap();
    let vertices = st.vertices();
    let codec = lay.codec();
    let blocks = match lay.block_table().unwrap() {
        Some(t) => (0..t.len()).map(|b| t.get(b)).map(|b| (b.first_vertex, b.end_vertex, b.first_byte, b.end_byte)).collect(),
        None => {
            // raw lists: runs of vertices of about 4 KiB
            let mut blocks = Vec::new();
            let mut v = 0;
            while v < vertices {
                let mut end = v + 1;
                while end < vertices
                    && codec.byte_range(index[v as usize], index[end as usize]).1 - codec.byte_range(index[v as usize], index[v as usize]).0
                        < 4096
                {
                    end += 1;
                }
                let (b0, b1) = codec.byte_range(index[v as usize], index[end as usize]);
                blocks.push((v, end, b0, b1));
                v = end;
            }
            blocks
        }
    };
    Lists { encoding: lay.record().encoding, vertices, index, adjacency, blocks }
}

impl Lists {
    /// Block `b`'s bytes and its vertices' index entries (one more than
    /// its vertices), undamaged.
    pub fn block(&self, b: usize) -> (Vec<u8>, Vec<u64>) {
        let (v0, v1, b0, b1) = self.blocks[b];
        (self.adjacency[b0 as usize..b1 as usize].to_vec(), self.index[v0 as usize..=v1 as usize].to_vec())
    }

    /// Decode every list of block `b` from (damaged) `bytes` and `entries`,
    /// as the readers do: a list whose index goes backwards or leaves its
    /// block is refused before decoding.
    pub fn decode_block(&self, b: usize, bytes: &[u8], entries: &[u64]) -> Option<String> {
        let codec = outcore_store::codec_for(self.encoding);
        let (v0, v1, b0, b1) = self.blocks[b];
        let entry = |u: u64| {
            let i = (u.wrapping_sub(v0)) as usize;
            (entries.get(i).copied().unwrap_or(0), entries.get(i + 1).copied().unwrap_or(0))
        };
        let end_byte = b0 + bytes.len() as u64;
        let src = ListSource { vertices: self.vertices, bytes, first_byte: b0, first_vertex: v0, entry: &entry };
        let mut decoder = codec.decoder();
        let mut out = Vec::new();
        for v in v0..v1 {
            let (lo, hi) = entry(v);
            if hi < lo {
                continue; // the readers refuse an index going backwards before decoding
            }
            let (r0, r1) = codec.byte_range(lo, hi);
            if r0 < b0 || r1 > b1.min(end_byte) {
                continue; // and a list outside its block
            }
            // every decoder must not panic; raw lists are checked by the
            // readers after decoding, the compressed decoders promise
            // ascending ids inside the graph
            let decoded = decoder.decode(v, lo, hi, &src, &mut out).is_ok();
            if decoded && self.encoding != Encoding::Raw32 {
                if let Some(w) = out.windows(2).find(|w| w[0] >= w[1]) {
                    return Some(format!("vertex {v}: decoded {} then {}", w[0], w[1]));
                }
                if let Some(u) = out.iter().find(|&&u| u >= self.vertices) {
                    return Some(format!("vertex {v}: decoded id {u} >= {} vertices", self.vertices));
                }
            }
        }
        None
    }
}

/// Damaged tile files read through `TileScan`: an error, or tiles whose
/// local ids stay within their spans.
pub fn read_tiles(rec: &TilesRecord, vertices: u64, copy: &Path, data: &[u8], index: &[u8]) -> Option<String> {
    std::fs::write(copy.join(&rec.data), data).unwrap();
    std::fs::write(copy.join(&rec.index), index).unwrap();
    let Ok(mut scan) = TileScan::open(copy, rec, vertices) else { return None };
    while let Ok(Some(t)) = scan.next_tile() {
        let limit = |s: u32| (vertices.saturating_sub((s as u64) << rec.span_bits)).min(1 << rec.span_bits);
        if let Some(e) = t.edges.iter().find(|e| e[0] as u64 >= limit(t.i) || e[1] as u64 >= limit(t.j)) {
            return Some(format!("tile ({}, {}) gave local ids {e:?} beyond its spans", t.i, t.j));
        }
    }
    None
}

/// A damaged Elias-Fano index file read back through `EfCursor`, every
/// `stride`-th entry and the last: an error, or entries that never
/// decrease, stay within the header's largest position and end at its last
/// entry (a damaged file may decode to other such entries: the store's
/// block checksums catch those).
pub fn read_ef_file(path: &Path, entries: u64, flag: u64, bytes: &[u8], stride: u64) -> Option<String> {
    use outcore_store::ef::EfCursor;
    std::fs::write(path, bytes).unwrap();
    let mut cursor = EfCursor::open(path, entries, flag).ok()?;
    let header = *cursor.header();
    let mut previous = 0;
    for at in (0..entries).step_by(stride.max(1) as usize).chain(std::iter::once(entries - 1)) {
        let entry = cursor.entry(at).ok()?;
        let position = entry & !flag;
        if position < previous || position > header.max {
            return Some(format!("entry {at} reads {position} after {previous}, largest {}", header.max));
        }
        previous = position;
    }
    (cursor.entry(entries - 1).ok()? != header.last).then(|| "the last entry differs from the header's".to_string())
}

/// The traverse engine's Elias-Fano index ([`CompactIndex`]) built from a
/// damaged index file's entries as the engine builds it (the last entry
/// sizes it, the codec's flag bits go beside it): an error, or every entry
/// and range read back as written.
pub fn build_index(encoding: Encoding, bytes: &[u8], budget: &outcore_io::Budget) -> Option<String> {
    let codec = outcore_store::codec_for(encoding);
    let flag = !codec.position(u64::MAX);
    let entries: Vec<u64> = bytes.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect();
    let max = codec.position(*entries.last()?);
    let built = CompactIndex::build(Path::new("out.index"), entries.len() as u64, max, flag, budget, |push| {
        entries.iter().try_for_each(|&x| push(x))
    });
    let index = built.ok()?;
    if let Some(v) = (0..entries.len()).find(|&v| index.get(v as u64) != entries[v]) {
        return Some(format!("entry {v} reads {}, written {}", index.get(v as u64), entries[v]));
    }
    if let Some(v) = (0..entries.len() - 1).find(|&v| index.range(v as u64) != (entries[v], entries[v + 1])) {
        return Some(format!("range of vertex {v} reads {:?}", index.range(v as u64)));
    }
    None
}
