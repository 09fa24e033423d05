//! Triangles by the degree-ordered orientation, out of core.
//!
//! 1. Rank: vertices ordered by (degree, id), the degrees read from the
//!    layouts' indexes (4 bytes a vertex). Any total order counts right;
//!    this one bounds each vertex's forward list by about sqrt(2m).
//! 2. One scan of the neighbourhoods (`out`, with `in` in lockstep for a
//!    directed store; self loops and repeats dropped) writes each vertex's
//!    forward list, the neighbours ranked above it, to a temporary CSR (a
//!    file of lists, a file of their lengths), cut into parts: ranges of
//!    vertices whose lists fit the budget. An entry is a u32 id whose top
//!    bit says the edge exists in both directions (LCC counts each one).
//! 3. For each part: its lists are loaded, then every forward list u is
//!    read in order (the part itself when there is one part, else one
//!    sequential pass over the whole CSR) and intersected, on every core, with
//!    the lists of its forward neighbours v inside the part. Each common w
//!    is a triangle u < v < w in rank, found exactly once.
//!
//! Memory: the rank degrees (4 bytes a vertex), the triangle counters (8),
//! and for LCC the ordered-pair counters (8) and exact degrees (4); then
//! one part of the forward lists. I/O: two scans of the neighbourhoods'
//! indexes and lists, the forward lists written once and read (parts + 1)
//! times (once when they fit in one part).

use crate::needs::EngineStats;
use crate::neighbourhood::{for_each_neighbourhood, ID};
use crate::run::Context;
use outcore_io::{BudgetError, Reservation, SeqReader, SeqWriter, TempArea, CHECKSUM_BLOCK_BYTES};
use outcore_store::{Store, StoreError, STREAM_CHUNK_BYTES};
use rayon::prelude::*;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// The smallest part of forward lists the plan asks room for.
pub const MIN_PART_BYTES: u64 = 2 << 20;
/// Forward-list entries read per batch of the pass over all parts, and
/// their memory (an entry and, at most, an offset each).
const BATCH_ENTRIES: usize = 1 << 16;
const BATCH_BYTES: u64 = BATCH_ENTRIES as u64 * 12;
/// Stream buffers: the neighbourhood scan's ([`crate::neighbourhood::scan_bytes`]),
/// two chunks of 1 MiB for each forward file written or read at once
/// (two), and a MiB to spare.
fn stream_bytes(store: &Store) -> Result<u64, StoreError> {
    Ok(crate::neighbourhood::scan_bytes(store)? + ((4 + 1) << 20))
}

/// Memory besides the part: rank degrees and triangle counters, and for
/// LCC the pair counters and exact degrees.
pub fn state_bytes(n: u64, lcc: bool) -> u64 {
    n * if lcc { 24 } else { 12 }
}

/// The smallest budget the counting runs with: its state, the stream
/// buffers, a batch and the smallest part.
pub fn min_bytes(store: &Store, lcc: bool) -> Result<u64, StoreError> {
    Ok(state_bytes(store.vertices(), lcc) + stream_bytes(store)? + BATCH_BYTES + MIN_PART_BYTES)
}

/// What the counting found.
pub struct Counts {
    /// Triangles through each vertex.
    pub triangles: Vec<u64>,
    /// LCC only: ordered pairs of neighbours with an arc between them.
    pub linked: Vec<u64>,
    /// LCC only: |N(v)|.
    pub degrees: Vec<u32>,
    pub total: u64,
    /// Forward neighbours intersected (wedges u-v checked).
    pub intersections: u64,
    pub forward_arcs: u64,
    pub parts: u64,
    pub max_degree: u64,
    pub stats: EngineStats,
    /// The counters' share of the budget, handed on with the result.
    pub charge: Reservation,
}

/// The local clustering coefficients from LCC counts.
pub fn coefficients(c: &Counts) -> Vec<f64> {
    c.linked.iter().zip(&c.degrees).map(|(&pairs, &d)| if d <= 1 { 0.0 } else { pairs as f64 / (d as f64 * (d as f64 - 1.0)) }).collect()
}

/// One part: the forward lists of vertices `lo..hi`.
struct Part {
    lo: u64,
    hi: u64,
    /// Where its lists start in the forward file, in entries.
    first_entry: u64,
    entries: u64,
}

struct Lists {
    offsets: Vec<u64>,
    entries: Vec<u32>,
}

impl Lists {
    fn list(&self, i: usize) -> &[u32] {
        &self.entries[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }
    fn len(&self) -> usize {
        self.offsets.len() - 1
    }
}

pub fn count(cx: &Context, lcc: bool, part_entries: Option<u64>) -> Result<Counts, StoreError> {
    let store = cx.store;
    let n = store.vertices();
    crate::neighbourhood::check_ids(store, "triangle counting")?;
    let charge = cx.budget.reserve("triangle counters and rank degrees", state_bytes(n, lcc))?;
    let streams = cx.budget.reserve("the scans' and forward files' stream buffers", stream_bytes(store)?)?;
    let rank_degrees = rank_degrees(store)?;
    let rank_above = |a: u64, b: u64| (rank_degrees[a as usize], a) > (rank_degrees[b as usize], b);

    // 2. forward lists, in parts that fit what the budget has left
    let part_cap = cx.budget.available().saturating_sub(BATCH_BYTES);
    if part_cap < MIN_PART_BYTES {
        return Err(BudgetError {
            what: "a part of the forward lists".into(),
            needed: MIN_PART_BYTES,
            available: part_cap,
            total: cx.budget.total(),
            suggest: cx.budget.total() + MIN_PART_BYTES - part_cap,
        }
        .into());
    }
    let parent = cx.options.temp_dir.clone().unwrap_or_else(|| store.dir().to_path_buf());
    let temp = TempArea::create(&parent, "triangles")?;
    temp.require_free(store.manifest().arcs.div_ceil(2) * 4 + n * 4, "the forward lists")?;
    let mut exact = if lcc { vec![0u32; n as usize] } else { Vec::new() };
    let mut parts: Vec<Part> = Vec::new();
    let (mut part_bytes, mut forward_arcs, mut max_degree) = (0u64, 0u64, 0u64);
    let (lists_path, degrees_path) = (temp.file("forward"), temp.file("forward-degrees"));
    let mut lists = SeqWriter::create(&lists_path, STREAM_CHUNK_BYTES, CHECKSUM_BLOCK_BYTES)?;
    let mut degrees = SeqWriter::create(&degrees_path, STREAM_CHUNK_BYTES, CHECKSUM_BLOCK_BYTES)?;
    let mut forward = Vec::new();
    let (bytes, passes) = for_each_neighbourhood(store, "triangle counting", |v, around| {
        max_degree = max_degree.max(around.len() as u64);
        if lcc {
            exact[v as usize] = around.len() as u32;
        }
        forward.clear();
        forward.extend(around.iter().copied().filter(|&e| rank_above((e & ID) as u64, v)));
        let bytes = forward.len() as u64 * 4 + 8;
        if bytes > part_cap {
            return Err(BudgetError {
                what: format!("the {} forward neighbours of vertex {v}", forward.len()),
                needed: bytes,
                available: part_cap,
                total: cx.budget.total(),
                suggest: cx.budget.total() + bytes - part_cap,
            }
            .into());
        }
        let full = |part: &Part| part_bytes + bytes > part_cap || part_entries.is_some_and(|e| part.entries + forward.len() as u64 > e);
        if parts.last().is_none_or(full) {
            parts.push(Part { lo: v, hi: v, first_entry: forward_arcs, entries: 0 });
            part_bytes = 8;
        }
        let part = parts.last_mut().unwrap();
        part.hi = v + 1;
        part.entries += forward.len() as u64;
        part_bytes += bytes;
        forward_arcs += forward.len() as u64;
        degrees.write_bytes(&(forward.len() as u32).to_le_bytes())?;
        for &e in &forward {
            lists.write_bytes(&e.to_le_bytes())?;
        }
        Ok(())
    })?;
    // the forward files are checked when read back, like the store's
    outcore_io::verify::register_written(&lists.finish()?)?;
    outcore_io::verify::register_written(&degrees.finish()?)?;
    drop(rank_degrees);

    // 3. each part against every forward list
    let triangles: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
    let linked: Vec<AtomicU64> = if lcc { (0..n).map(|_| AtomicU64::new(0)).collect() } else { Vec::new() };
    let counters = Counters { triangles: &triangles, linked: lcc.then_some(&linked[..]) };
    let forward_bytes = forward_arcs * 4 + n * 4;
    let (mut read, mut intersections) = (bytes, 0u64);
    cx.progress().begin("triangles", parts.len() as u64, false);
    for (k, part) in parts.iter().enumerate() {
        let lists_charge = cx.budget.reserve("a part of the forward lists", (part.hi - part.lo + 1) * 8 + part.entries * 4)?;
        let held = load(&lists_path, &degrees_path, part)?;
        read += part.entries * 4 + (part.hi - part.lo) * 4;
        if parts.len() == 1 {
            intersections += counters.batch(part, &held, part.lo, &held);
        } else {
            let _batch = cx.budget.reserve("a batch of forward lists", BATCH_BYTES)?;
            let mut lists = SeqReader::open(&lists_path, STREAM_CHUNK_BYTES)?;
            let mut degrees = SeqReader::open(&degrees_path, STREAM_CHUNK_BYTES)?;
            let mut u = 0;
            while u < n {
                let batch = read_batch(&mut lists, &mut degrees, n - u)?;
                intersections += counters.batch(part, &held, u, &batch);
                u += batch.len() as u64;
            }
            read += forward_bytes;
        }
        drop(held);
        drop(lists_charge);
        outcore_io::check_interrupt(&lists_path)?;
        cx.progress().set(k as u64 + 1);
    }
    cx.progress().end();
    drop(streams);
    let triangles: Vec<u64> = triangles.into_iter().map(AtomicU64::into_inner).collect();
    let total = triangles.iter().sum::<u64>() / 3;
    Ok(Counts {
        triangles,
        linked: linked.into_iter().map(AtomicU64::into_inner).collect(),
        degrees: exact,
        total,
        intersections,
        forward_arcs,
        parts: parts.len() as u64,
        max_degree,
        stats: EngineStats::Scan { bytes_read: read, passes: passes + if parts.len() == 1 { 1 } else { parts.len() as u64 + 1 } },
        charge,
    })
}

/// Degrees for the ranking: out-degree plus in-degree of a directed store,
/// from the layouts' indexes (repeats and loops included: any total order
/// is right, and this one is near the true degree order).
fn rank_degrees(store: &Store) -> Result<Vec<u32>, StoreError> {
    let n = store.vertices() as usize;
    let mut degrees = vec![0u32; n];
    for name in crate::neighbourhood::layouts(store) {
        let lay = store.layout(name)?;
        let mut scan = lay.degrees()?;
        for d in degrees.iter_mut() {
            *d = d.saturating_add(scan.next_degree()?.min(u32::MAX as u64) as u32);
        }
    }
    Ok(degrees)
}

/// Little-endian u32s from a reader, carrying a value split across chunks.
fn read_u32s(reader: &mut SeqReader, count: u64, out: &mut Vec<u32>) -> Result<(), StoreError> {
    for _ in 0..count {
        match reader.next_word::<4>()? {
            Some(w) => out.push(u32::from_le_bytes(w)),
            None => return Err(StoreError::invalid(reader.path(), "ends before its lists do")),
        }
    }
    Ok(())
}

/// A part's lists, whole: its ranges of the forward files, read in place
/// and checked against the hashes registered when they were written.
fn load(lists: &Path, degrees: &Path, part: &Part) -> Result<Lists, StoreError> {
    let mut counts = Vec::with_capacity((part.hi - part.lo) as usize);
    read_range(degrees, part.lo * 4, part.hi * 4, &mut counts)?;
    let mut offsets = Vec::with_capacity(counts.len() + 1);
    offsets.push(0u64);
    for &c in &counts {
        offsets.push(offsets.last().unwrap() + c as u64);
    }
    drop(counts);
    if *offsets.last().unwrap() != part.entries {
        return Err(StoreError::invalid(
            degrees,
            format!("vertices {}..{} have {} forward entries, not {}", part.lo, part.hi, offsets.last().unwrap(), part.entries),
        ));
    }
    let mut entries = Vec::with_capacity(part.entries as usize);
    read_range(lists, part.first_entry * 4, (part.first_entry + part.entries) * 4, &mut entries)?;
    Ok(Lists { offsets, entries })
}

/// Bytes `lo..hi` of `path` as little-endian u32s, read a checksum block
/// at a time and checked.
fn read_range(path: &Path, lo: u64, hi: u64, out: &mut Vec<u32>) -> Result<(), StoreError> {
    use std::os::unix::fs::FileExt;
    let file = std::fs::File::open(path).map_err(|e| outcore_io::IoError::new(path, "open", e))?;
    let checks = outcore_io::verify::checks_for(&file);
    let mut buf = Vec::new();
    let mut at = lo;
    while at < hi {
        let end = ((at / CHECKSUM_BLOCK_BYTES + 1) * CHECKSUM_BLOCK_BYTES).min(hi);
        buf.resize((end - at) as usize, 0);
        file.read_exact_at(&mut buf, at).map_err(|e| outcore_io::IoError::new(path, format!("read at byte {at}"), e))?;
        if let Some(c) = &checks {
            c.check_read(&file, at, &buf)?;
        }
        outcore_io::drop_cached(&file, at, end - at);
        out.extend(buf.chunks_exact(4).map(|w| u32::from_le_bytes(w.try_into().unwrap())));
        at = end;
    }
    Ok(())
}

/// The next lists of the forward files, at most `left` of them and about
/// [`BATCH_ENTRIES`] entries (a longer list comes whole).
fn read_batch(lists: &mut SeqReader, degrees: &mut SeqReader, left: u64) -> Result<Lists, StoreError> {
    let (mut offsets, mut entries) = (vec![0u64], Vec::new());
    let mut degree = Vec::with_capacity(1);
    while (offsets.len() as u64) <= left && entries.len() < BATCH_ENTRIES {
        degree.clear();
        read_u32s(degrees, 1, &mut degree)?;
        read_u32s(lists, degree[0] as u64, &mut entries)?;
        offsets.push(entries.len() as u64);
    }
    Ok(Lists { offsets, entries })
}

struct Counters<'a> {
    triangles: &'a [AtomicU64],
    linked: Option<&'a [AtomicU64]>,
}

impl Counters<'_> {
    /// Intersect each list of `batch` (vertices from `first`) with the
    /// lists of its forward neighbours inside `part`; returns the wedges
    /// checked.
    fn batch(&self, part: &Part, held: &Lists, first: u64, batch: &Lists) -> u64 {
        (0..batch.len())
            .into_par_iter()
            .with_min_len(64)
            .map(|i| {
                let u = first + i as u64;
                let mine = batch.list(i);
                let (mut own, mut own_linked, mut wedges) = (0u64, 0u64, 0u64);
                for &uv in mine {
                    let v = (uv & ID) as u64;
                    if v < part.lo || v >= part.hi {
                        continue;
                    }
                    wedges += 1;
                    let theirs = held.list((v - part.lo) as usize);
                    intersect(mine, theirs, |uw, vw| {
                        let w = (uw & ID) as usize;
                        own += 1;
                        self.triangles[v as usize].fetch_add(1, Relaxed);
                        self.triangles[w].fetch_add(1, Relaxed);
                        if let Some(linked) = self.linked {
                            own_linked += pairs(vw);
                            linked[v as usize].fetch_add(pairs(uw), Relaxed);
                            linked[w].fetch_add(pairs(uv), Relaxed);
                        }
                    });
                }
                if own > 0 {
                    self.triangles[u as usize].fetch_add(own, Relaxed);
                }
                if let (Some(linked), true) = (self.linked, own_linked > 0) {
                    linked[u as usize].fetch_add(own_linked, Relaxed);
                }
                wedges
            })
            .sum()
    }
}

/// Ordered pairs an edge gives its opposite vertex: one per direction.
#[inline]
fn pairs(entry: u32) -> u64 {
    1 + (entry >> 31) as u64
}

/// Calls `f(a_entry, b_entry)` for every id in both sorted lists; gallops
/// through the longer when one is much shorter.
fn intersect(a: &[u32], b: &[u32], mut f: impl FnMut(u32, u32)) {
    let (short, long, swapped) = if a.len() <= b.len() { (a, b, false) } else { (b, a, true) };
    if short.is_empty() {
        return;
    }
    let mut emit = |s: u32, l: u32| if swapped { f(l, s) } else { f(s, l) };
    if short.len() * 16 < long.len() {
        let mut from = 0;
        for &s in short {
            let id = s & ID;
            match long[from..].binary_search_by_key(&id, |&e| e & ID) {
                Ok(k) => {
                    emit(s, long[from + k]);
                    from += k + 1;
                }
                Err(k) => from += k,
            }
            if from >= long.len() {
                break;
            }
        }
        return;
    }
    let (mut i, mut j) = (0, 0);
    while i < short.len() && j < long.len() {
        let (x, y) = (short[i] & ID, long[j] & ID);
        if x < y {
            i += 1;
        } else if x > y {
            j += 1;
        } else {
            emit(short[i], long[j]);
            i += 1;
            j += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::neighbourhood::BOTH;

    #[test]
    fn intersections_by_merge_and_by_galloping_agree_with_a_set() {
        let a: Vec<u32> = (0..40).map(|i| i * 3).collect();
        let b: Vec<u32> = (0..2000).map(|i| (i * 2) | if i % 3 == 0 { BOTH } else { 0 }).collect();
        for (x, y) in [(&a[..], &b[..]), (&b[..], &a[..]), (&a[..10], &b[..60])] {
            let mut got = Vec::new();
            intersect(x, y, |p, q| {
                assert_eq!(p & ID, q & ID);
                got.push((p, q));
            });
            let want: Vec<(u32, u32)> = x.iter().filter_map(|&p| y.iter().find(|&&q| q & ID == p & ID).map(|&q| (p, q))).collect();
            assert_eq!(got, want);
        }
    }
}
