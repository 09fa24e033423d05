//! A mutation fuzzer for the list decoders and the tile reader (issue 14
//! item 3). Seeds: CA-GrQc imported as raw32, ceesor and gapref, with tiles.
//! An input is one block of a layout (a compressed layout's block, or 4 KiB
//! of raw32 lists) with its bytes and its vertices' index entries mutated,
//! decoded list by list through the codec's decoder exactly as the engines
//! do; for `tiles`, the tile data and index files mutated and read through
//! `TileScan` (unregistered files: nothing checks their checksums first, so
//! the reader's own checks are what is tested); for `index-raw32` and
//! `index-ceesor`, the index file's bytes mutated and built into the
//! traverse engine's Elias-Fano index; for `ef-file`, a store's Elias-Fano
//! index file (format version 2) mutated and read through `EfCursor`. A finding is a panic, a decoded id
//! beyond the vertex count or an index entry read back wrong; each is saved
//! under OUT.
//!
//!   cargo run --release -p outcore-ingest --example fuzz_decoders -- [INPUTS per target] [OUT] [TARGET...]

use outcore_engines::CompactIndex;
use outcore_ingest::{import_file, tiles::add_tiles, ImportOptions, NoProgress};
use outcore_store::tiles::TileScan;
use outcore_store::{Encoding, ListSource, Store};
use std::path::{Path, PathBuf};

#[path = "fuzz/mutate.rs"]
mod mutate;
use mutate::{panic_text, Findings, Rng};

/// Flip, replace, or zero a few bytes.
fn damage(rng: &mut Rng, data: &mut [u8]) {
    if data.is_empty() {
        return;
    }
    for _ in 0..1 + rng.below(4) {
        let i = rng.below(data.len());
        match rng.below(3) {
            0 => data[i] ^= 1 << rng.below(8),
            1 => data[i] = rng.next() as u8,
            _ => data[i] = if rng.below(2) == 0 { 0 } else { 0xff },
        }
    }
}

/// One layout in memory: its codec, index, adjacency bytes and blocks (first vertex, end vertex, first byte, end byte).
struct Lists {
    encoding: Encoding,
    vertices: u64,
    index: Vec<u64>,
    adjacency: Vec<u8>,
    blocks: Vec<(u64, u64, u64, u64)>,
}

fn load(store: &Path) -> Lists {
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

/// Decode every list of one mutated block; Some(why) is a finding.
fn decode_block(lists: &Lists, rng: &mut Rng) -> (Vec<u8>, Option<String>) {
    let codec = outcore_store::codec_for(lists.encoding);
    let &(v0, v1, b0, b1) = &lists.blocks[rng.below(lists.blocks.len())];
    let mut bytes = lists.adjacency[b0 as usize..b1 as usize].to_vec();
    let mut entries: Vec<u64> = lists.index[v0 as usize..=v1 as usize].to_vec();
    if rng.below(4) == 0 {
        // an index entry damaged too
        let i = rng.below(entries.len());
        entries[i] ^= 1 << rng.below(64);
    } else {
        damage(rng, &mut bytes);
    }
    let saved = bytes.clone();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let entry = |u: u64| {
            let i = (u.wrapping_sub(v0)) as usize;
            (entries.get(i).copied().unwrap_or(0), entries.get(i + 1).copied().unwrap_or(0))
        };
        let src = ListSource { vertices: lists.vertices, bytes: &bytes, first_byte: b0, first_vertex: v0, entry: &entry };
        let mut decoder = codec.decoder();
        let mut out = Vec::new();
        for v in v0..v1 {
            let (lo, hi) = entry(v);
            if hi < lo {
                continue; // the readers refuse an index going backwards before decoding
            }
            let (r0, r1) = codec.byte_range(lo, hi);
            if r0 < b0 || r1 > b1 {
                continue; // and a list outside its block
            }
            if decoder.decode(v, lo, hi, &src, &mut out).is_ok() {
                if let Some(u) = out.iter().find(|&&u| u >= lists.vertices) {
                    if lists.encoding != Encoding::Raw32 {
                        // raw ids are checked by the readers after decoding; the compressed decoders promise it
                        return Some(format!("vertex {v}: decoded id {u} >= {} vertices", lists.vertices));
                    }
                }
            }
        }
        None
    }));
    match result {
        Ok(f) => (saved, f),
        Err(p) => (saved, Some(format!("panic: {}", panic_text(&*p)))),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let inputs: u64 = args.first().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let out = PathBuf::from(args.get(1).cloned().unwrap_or_else(|| "bench/out/fuzz".into()));
    let wanted: Vec<&String> = args.iter().skip(2).collect();
    let want = |name: &str| wanted.is_empty() || wanted.iter().any(|w| *w == name);
    std::fs::create_dir_all(&out).unwrap();
    let shared = outcore_io::shared_dir(env!("CARGO_MANIFEST_DIR")).join("data");
    let work = tempfile::tempdir().unwrap();
    std::panic::set_hook(Box::new(|_| {}));
    Findings::header();
    let mut total = 0;
    for (name, encoding) in [("raw32", Encoding::Raw32), ("ceesor", Encoding::Ceesor), ("gapref", Encoding::Gapref)] {
        if !want(name) {
            continue;
        }
        let store = work.path().join(name);
        let opts = ImportOptions { encoding: Some(encoding), memory: 256 << 20, ..Default::default() };
        import_file(&shared.join("real/CA-GrQc.txt"), &store, &opts, &NoProgress).unwrap();
        let lists = load(&store);
        let mut rng = Rng(0x51_7CC1_B727_220A ^ name.len() as u64);
        let mut findings = Findings::new(name, &out);
        for i in 0..inputs {
            let state = rng.0;
            let (bytes, finding) = decode_block(&lists, &mut rng);
            if let Some(why) = finding {
                if !findings.record(i, state, &why, &[(format!("{name}-{i}.block"), &bytes)]) {
                    break;
                }
            }
        }
        total += findings.finish(inputs);
    }
    if want("tiles") {
        let store = work.path().join("tiles");
        let opts = ImportOptions { memory: 256 << 20, ..Default::default() };
        import_file(&shared.join("real/CA-GrQc.txt"), &store, &opts, &NoProgress).unwrap();
        // small spans: many tiles, and local ids that can point past a short last span
        let rec = add_tiles(&store, 4, 9, 256 << 20, &NoProgress).unwrap();
        let vertices = Store::open(&store).unwrap().vertices();
        let copy = work.path().join("tiles-fuzz");
        std::fs::create_dir_all(&copy).unwrap();
        let data = std::fs::read(store.join(&rec.data)).unwrap();
        let index = std::fs::read(store.join(&rec.index)).unwrap();
        let mut rng = Rng(0x7113_5EED);
        let mut findings = Findings::new("tiles", &out);
        for i in 0..inputs {
            let state = rng.0;
            let (mut d, mut x) = (data.clone(), index.clone());
            if rng.below(3) == 0 {
                damage(&mut rng, &mut x);
            } else {
                damage(&mut rng, &mut d);
            }
            std::fs::write(copy.join(&rec.data), &d).unwrap();
            std::fs::write(copy.join(&rec.index), &x).unwrap();
            let result = std::panic::catch_unwind(|| -> Option<String> {
                let Ok(mut scan) = TileScan::open(&copy, &rec, vertices) else { return None };
                while let Ok(Some(t)) = scan.next_tile() {
                    let limit = |s: u32| (vertices.saturating_sub((s as u64) << rec.span_bits)).min(1 << rec.span_bits);
                    if let Some(e) = t.edges.iter().find(|e| e[0] as u64 >= limit(t.i) || e[1] as u64 >= limit(t.j)) {
                        return Some(format!("tile ({}, {}) gave local ids {e:?} beyond its spans", t.i, t.j));
                    }
                }
                None
            });
            let finding = match result {
                Ok(f) => f,
                Err(p) => Some(format!("panic: {}", panic_text(&*p))),
            };
            if let Some(why) = finding {
                if !findings.record(i, state, &why, &[(format!("tiles-{i}.edges"), &d), (format!("tiles-{i}.index"), &x)]) {
                    break;
                }
            }
        }
        total += findings.finish(inputs);
    }
    for (name, encoding) in [("index-raw32", Encoding::Raw32), ("index-ceesor", Encoding::Ceesor)] {
        if want(name) {
            total += fuzz_index(name, encoding, inputs, &shared, work.path(), &out);
        }
    }
    if want("ef-file") {
        total += fuzz_ef_file(inputs, &shared, work.path(), &out);
    }
    std::process::exit(if total == 0 { 0 } else { 1 });
}

/// A store's Elias-Fano index file (format version 2, CEESOR: flag bits
/// too) with bytes damaged, read back through [`EfCursor`] in full or
/// skipping: an error, or entries that never decrease, stay within the
/// header's largest position and end at its last entry (a damaged file may
/// decode to other such entries: the store's block checksums catch those).
/// A panic or an entry breaking that promise is a finding.
fn fuzz_ef_file(inputs: u64, shared: &Path, work: &Path, out: &Path) -> u64 {
    use outcore_store::ef::EfCursor;
    let store = work.join("ef-file");
    let opts = ImportOptions { encoding: Some(Encoding::Ceesor), memory: 256 << 20, ..Default::default() };
    import_file(&shared.join("real/CA-GrQc.txt"), &store, &opts, &NoProgress).unwrap();
    let st = Store::open(&store).unwrap();
    let lay = st.layout("out").unwrap();
    let file = std::fs::read(lay.index_path()).unwrap();
    let entries = st.vertices() + 1;
    let flag = !lay.codec().position(u64::MAX);
    let path = work.join("fuzz.ef");
    let mut rng = Rng(0xEF_F11E);
    let mut findings = Findings::new("ef-file", out);
    for i in 0..inputs {
        let state = rng.0;
        let mut bytes = file.clone();
        damage(&mut rng, &mut bytes);
        let stride = 1 + rng.below(64) as u64;
        std::fs::write(&path, &bytes).unwrap();
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| -> Option<String> {
            let mut cursor = EfCursor::open(&path, entries).ok()?;
            let header = *cursor.header();
            let mut previous = 0;
            for at in (0..entries).step_by(stride as usize).chain(std::iter::once(entries - 1)) {
                let entry = cursor.entry(at).ok()?;
                let position = entry & !flag;
                if position < previous || position > header.max {
                    return Some(format!("entry {at} reads {position} after {previous}, largest {}", header.max));
                }
                previous = position;
            }
            (cursor.entry(entries - 1).ok()? != header.last).then(|| "the last entry differs from the header's".to_string())
        }));
        let finding = match result {
            Ok(f) => f,
            Err(p) => Some(format!("panic: {}", panic_text(&*p))),
        };
        if let Some(why) = finding {
            if !findings.record(i, state, &why, &[(format!("ef-file-{i}.ef"), &bytes)]) {
                break;
            }
        }
    }
    findings.finish(inputs)
}

/// The traverse engine's Elias-Fano index ([`CompactIndex`]) built from a
/// damaged index file's entries as the engine builds it (the last entry
/// sizes it, the codec's flag bits go beside it): an error, or every entry
/// and range read back as written. A panic or a wrong entry is a finding.
fn fuzz_index(name: &str, encoding: Encoding, inputs: u64, shared: &Path, work: &Path, out: &Path) -> u64 {
    let store = work.join(name);
    let opts = ImportOptions { encoding: Some(encoding), memory: 256 << 20, ..Default::default() };
    import_file(&shared.join("real/CA-GrQc.txt"), &store, &opts, &NoProgress).unwrap();
    let lists = load(&store);
    let codec = outcore_store::codec_for(encoding);
    let flag = !codec.position(u64::MAX);
    let file: Vec<u8> = lists.index.iter().flat_map(|x| x.to_le_bytes()).collect();
    let mut rng = Rng(0xEF_1DE8 ^ name.len() as u64);
    let mut findings = Findings::new(name, out);
    let budget = outcore_io::Budget::new(256 << 20);
    for i in 0..inputs {
        let state = rng.0;
        let mut bytes = file.clone();
        damage(&mut rng, &mut bytes);
        let entries: Vec<u64> = bytes.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect();
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| -> Option<String> {
            let max = codec.position(*entries.last().unwrap());
            let built = CompactIndex::build(Path::new("out.index"), entries.len() as u64, max, flag, &budget, |push| {
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
        }));
        let finding = match result {
            Ok(f) => f,
            Err(p) => Some(format!("panic: {}", panic_text(&*p))),
        };
        if let Some(why) = finding {
            if !findings.record(i, state, &why, &[(format!("{name}-{i}.index"), &bytes)]) {
                break;
            }
        }
    }
    findings.finish(inputs)
}
