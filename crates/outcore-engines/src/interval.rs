//! The interval engine (VENUS, Cheng et al., ICDE'15, sections III-IV) for
//! when the vertex values do not fit in the budget beside the edges.
//!
//! The structure table is a CSR layout read sequentially: for an undirected
//! store its `out` layout (every vertex's neighbours), for a directed one
//! its `in` layout (the in-edges, VENUS's g-shards) and, for algorithms that
//! ignore direction, the `out` layout beside it. Vertices are cut into
//! consecutive intervals I so that the values of I and of its boundary
//! S(I) (the vertices its lists name) fit the budget; intervals are chosen
//! at open time by one pass over the structure, which also writes every
//! interval's sorted S(I) (the v-shard) to a temporary file.
//!
//! One iteration, for each interval in turn (VSP-II): read the v-shard,
//! fill the values of S(I) u I by a merge-join against the value table
//! (only the 1 MiB chunks that hold one are read), compute every vertex of
//! I from its lists, and append the new values to the next value table,
//! which is written sequentially and becomes the current one at the end.
//! Memory: one bit per vertex for membership plus a rank directory (3/16
//! of a byte per vertex), the values of the largest S(I) u I, and I/O
//! buffers; independent of the number of edges.

use outcore_io::{
    open_maybe_direct, AlignedBuf, Bitmap, Budget, BudgetError, IoContext, Reservation, SeqReader, SeqWriter, TempArea,
    CHECKSUM_BLOCK_BYTES,
};
use outcore_store::{AdjacencyScan, DegreeScan, Layout, Store, StoreError, STREAM_CHUNK_BYTES};
use rayon::prelude::*;
use serde::Serialize;
use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// A fixed-size vertex value stored little-endian in the value tables: a
/// scalar (PageRank, labels) or a vector (ALS's k-float factors).
pub trait VertexValue: Copy + Send + Sync + 'static {
    /// Bytes of one value in a value table.
    const BYTES: usize;
    /// Append the value's `BYTES` bytes to `out`.
    fn write_le(&self, out: &mut Vec<u8>);
    /// The value from its `BYTES` bytes.
    fn read_le(b: &[u8]) -> Self;
}

impl VertexValue for f64 {
    const BYTES: usize = 8;
    fn write_le(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn read_le(b: &[u8]) -> Self {
        f64::from_le_bytes(b.try_into().expect("8 bytes"))
    }
}

impl VertexValue for u64 {
    const BYTES: usize = 8;
    fn write_le(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn read_le(b: &[u8]) -> Self {
        u64::from_le_bytes(b.try_into().expect("8 bytes"))
    }
}

/// `K` 32-bit floats (ALS's latent factors), written as K little-endian f32.
impl<const K: usize> VertexValue for [f32; K] {
    const BYTES: usize = 4 * K;
    fn write_le(&self, out: &mut Vec<u8>) {
        for x in self {
            out.extend_from_slice(&x.to_le_bytes());
        }
    }
    fn read_le(b: &[u8]) -> Self {
        let mut v = [0f32; K];
        for (x, c) in v.iter_mut().zip(b.chunks_exact(4)) {
            *x = f32::from_le_bytes(c.try_into().expect("4 bytes"));
        }
        v
    }
}

/// One structure list of a vertex: neighbour ids and (weighted stores) weights.
pub struct NeighbourList<'a> {
    pub ids: &'a [u64],
    pub weights: &'a [f32],
}

/// The current values of an interval and its boundary.
pub struct Values<'a, T> {
    bitmap: &'a [u64],
    rank: &'a [u32],
    values: &'a [T],
}

impl<T: VertexValue> Values<'_, T> {
    #[inline]
    fn slot(&self, u: u64) -> usize {
        let (w, b) = ((u >> 6) as usize, u & 63);
        debug_assert!(self.bitmap[w] >> b & 1 == 1, "vertex {u} is not in S(I)");
        self.rank[w] as usize + (self.bitmap[w] & ((1u64 << b) - 1)).count_ones() as usize
    }

    /// The value of `u`, which must be in the interval or its boundary.
    #[inline]
    pub fn get(&self, u: u64) -> T {
        self.values[self.slot(u)]
    }

    /// Sum `f(value)` over `ids`, fetching values a few ids ahead (they
    /// lie at random in the interval's value array).
    #[inline]
    pub fn sum_over(&self, ids: &[u64], mut f: impl FnMut(usize, T) -> f64) -> f64 {
        const AHEAD: usize = 12;
        let mut sum = 0.0;
        for (k, &u) in ids.iter().enumerate() {
            if let Some(&next) = ids.get(k + AHEAD) {
                outcore_io::prefetch(self.values, self.slot(next));
            }
            sum += f(k, self.get(u));
        }
        sum
    }
}

impl Values<'_, f64> {
    /// The sum of the values of `ids` ([`Values::sum_over`]).
    #[inline]
    pub fn sum(&self, ids: &[u64]) -> f64 {
        self.sum_over(ids, |_, x| x)
    }
}

/// A vertex-centric program: the new value of `v` from its lists and the
/// current values of its neighbours (and its own).
pub trait IntervalProgram: Sync {
    type Value: VertexValue;
    fn gather(&self, v: u64, out_degree: u64, lists: &[NeighbourList], values: &Values<Self::Value>) -> Self::Value;
}

#[derive(Clone, Debug, Default)]
pub struct IntervalOptions {
    /// Cap on the values of one interval and its boundary (default: what
    /// the budget allows); tests and benchmarks use it to force many intervals.
    pub max_interval_values: Option<u64>,
    /// Directory for the value tables and v-shards (default: inside the store).
    pub temp_dir: Option<PathBuf>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct IntervalStats {
    pub intervals: u64,
    /// Values held by the largest interval and its boundary.
    pub largest_interval_values: u64,
    pub setup_seconds: f64,
    pub iterations: Vec<IntervalIteration>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct IntervalIteration {
    pub seconds: f64,
    /// Value-table bytes read by the merge-joins.
    pub value_bytes_read: u64,
    pub value_bytes_written: u64,
    /// v-shard bytes read.
    pub shard_bytes_read: u64,
    /// Structure (CSR index, adjacency, weights) and out-degree index bytes read.
    pub structure_bytes_read: u64,
    pub edges: u64,
}

struct Interval {
    first: u64,
    end: u64,
    boundary: u64,
}

/// Memory the engine keeps besides the interval values: the membership
/// bitmap and its rank directory, two batches of lists (each up to its
/// share of [`BATCH_IDS`] per layout, plus the vertex that crosses it:
/// `longest_lists` is the longest list of each layout, together) and
/// their new values (`value_bytes` each), and I/O buffers.
pub fn fixed_bytes(vertices: u64, layouts: usize, value_bytes: u64, longest_lists: u64) -> u64 {
    vertices.div_ceil(64) * 12
        + 2 * ((BATCH_IDS as u64 + longest_lists) * 12 + BATCH_VERTICES * 40)
        + BATCH_VERTICES * value_bytes
        // per structure layout: index and adjacency scans, two chunks and a window each;
        // the degree scan, the v-shard reader, the value table chunk, the writer and its buffer
        + (layouts as u64 * 8 + 12) * STREAM_CHUNK_BYTES as u64
}

/// Neighbour ids and vertices of one batch gathered in parallel.
const BATCH_IDS: usize = 1 << 18;
const BATCH_VERTICES: u64 = 1 << 14;

/// Read the lists of vertices `*v..` (up to a batch, not past `end`).
fn fill(batch: &mut Batch, scans: &mut [AdjacencyScan], degrees: &mut Option<DegreeScan>, v: &mut u64, end: u64) -> Result<(), StoreError> {
    batch.clear();
    batch.first = *v;
    while *v < end && batch.below_share() && *v - batch.first < BATCH_VERTICES {
        for (k, scan) in scans.iter_mut().enumerate() {
            let (_, ids, weights) = next_list(scan, *v)?;
            batch.push(k, ids, weights);
        }
        batch.degrees.push(match degrees {
            Some(s) => s.next_degree()?,
            None => 0,
        });
        *v += 1;
    }
    Ok(())
}

/// Consecutive vertices' lists, flat, one set per structure layout.
struct Batch {
    first: u64,
    ids: Vec<Vec<u64>>,
    weights: Vec<Vec<f32>>,
    /// Per layout: where each vertex's list ends.
    ends: Vec<Vec<usize>>,
    degrees: Vec<u64>,
}

impl Batch {
    fn new(layouts: usize) -> Self {
        Batch {
            first: 0,
            ids: vec![Vec::new(); layouts],
            weights: vec![Vec::new(); layouts],
            ends: vec![Vec::new(); layouts],
            degrees: Vec::new(),
        }
    }
    fn clear(&mut self) {
        self.ids.iter_mut().for_each(Vec::clear);
        self.weights.iter_mut().for_each(Vec::clear);
        self.ends.iter_mut().for_each(Vec::clear);
        self.degrees.clear();
    }
    fn ids(&self) -> usize {
        self.ids.iter().map(Vec::len).sum()
    }
    /// Whether every layout's lists are below its share of [`BATCH_IDS`]
    /// (so one holds at most its share and the longest list).
    fn below_share(&self) -> bool {
        self.ids.iter().all(|ids| ids.len() < self.share())
    }
    fn share(&self) -> usize {
        BATCH_IDS / self.ids.len().max(1)
    }
    fn push(&mut self, layout: usize, ids: &[u64], weights: &[f32]) {
        let share = self.share();
        extend_bounded(&mut self.ids[layout], ids, share);
        extend_bounded(&mut self.weights[layout], weights, share);
        self.ends[layout].push(self.ids[layout].len());
    }
    fn list(&self, layout: usize, k: usize) -> NeighbourList<'_> {
        let (a, b) = (if k == 0 { 0 } else { self.ends[layout][k - 1] }, self.ends[layout][k]);
        let w = &self.weights[layout];
        NeighbourList { ids: &self.ids[layout][a..b], weights: if w.is_empty() { &[] } else { &w[a..b] } }
    }
}

/// Append `items`, growing `v` by doubling up to `share` and past it only
/// to what it needs: its capacity stays within its share and the longest
/// list, as a batch's charge counts it.
fn extend_bounded<X: Copy>(v: &mut Vec<X>, items: &[X], share: usize) {
    let needed = v.len() + items.len();
    if needed > v.capacity() {
        let grown = (2 * v.capacity()).min(share).max(needed);
        v.reserve_exact(grown - v.len());
    }
    v.extend_from_slice(items);
}

/// The longest list of each of `layouts` of `store`, together (what one
/// vertex adds to a batch).
pub fn longest_lists(store: &Store, layouts: &[&str]) -> Result<u64, StoreError> {
    let mut sum = 0;
    for &l in layouts {
        if store.has_layout(l) {
            sum += store.layout(l)?.longest_list()?;
        }
    }
    Ok(sum)
}

pub struct IntervalEngine<T: VertexValue> {
    vertices: u64,
    layouts: Vec<Layout>,
    degrees: Option<Layout>,
    /// Bytes one pass over the structure (and the degree index) reads.
    structure_bytes: u64,
    intervals: Vec<Interval>,
    temp: TempArea,
    current: usize,
    /// Membership of the current interval's vertices and boundary, S(I).
    bitmap: Bitmap,
    rank: Vec<u32>,
    values: Vec<T>,
    stats: IntervalStats,
    _charges: Vec<Reservation>,
}

impl<T: VertexValue> IntervalEngine<T> {
    /// Structure `layouts` of `store` (which must exist); `degrees`: pass
    /// out-degrees to `gather`. Initial values come from `init(v, out_degree)`.
    pub fn open(
        store: &Store,
        layouts: &[&str],
        degrees: bool,
        budget: &Budget,
        opts: &IntervalOptions,
        mut init: impl FnMut(u64, u64) -> T,
    ) -> Result<Self, StoreError> {
        let setup = Instant::now();
        let n = store.vertices();
        if n > u32::MAX as u64 {
            return Err(StoreError::invalid(store.dir(), "the interval engine holds at most 2^32 vertices"));
        }
        assert!((1..=2).contains(&layouts.len()), "one or two structure layouts");
        let structure = store.layouts_for(layouts, "the interval engine")?;
        let degree_layout = if degrees { Some(store.layout("out")?) } else { None };
        let fixed = budget.reserve(
            "interval bitmap, rank directory and I/O buffers",
            fixed_bytes(n, layouts.len(), T::BYTES as u64, longest_lists(store, layouts)?),
        )?;
        let words = n.div_ceil(64) as usize;
        let value_bytes = T::BYTES as u64;
        let cap_budget = budget.available() / value_bytes;
        // intervals aim at `cap`; a vertex whose own list exceeds it gets an interval alone
        let cap = opts.max_interval_values.map_or(cap_budget, |m| m.min(cap_budget)).max(1);
        let parent = opts.temp_dir.clone().unwrap_or_else(|| store.dir().to_path_buf());
        let temp = TempArea::create(&parent, "intervals")?;

        // initial values
        let mut writer = SeqWriter::create(&temp.path().join("values-0"), STREAM_CHUNK_BYTES, CHECKSUM_BLOCK_BYTES)?;
        let mut deg = degree_layout.as_ref().map(|l| l.degrees()).transpose()?;
        let mut one = Vec::with_capacity(T::BYTES);
        for v in 0..n {
            let d = match &mut deg {
                Some(s) => s.next_degree()?,
                None => 0,
            };
            one.clear();
            init(v, d).write_le(&mut one);
            writer.write_bytes(&one)?;
        }
        // the engine's own files are checked when read back, like the store's
        outcore_io::verify::register_written(&writer.finish()?)?;

        // intervals and v-shards in one pass over the structure
        let mut bitmap = Bitmap::new(n);
        let mut shard = SeqWriter::create(&temp.path().join("shards"), STREAM_CHUNK_BYTES, CHECKSUM_BLOCK_BYTES)?;
        let mut scans = structure.iter().map(|l| l.scan()).collect::<Result<Vec<_>, _>>()?;
        let mut intervals = Vec::new();
        let (mut first, mut count, mut largest) = (0u64, 0u64, 0u64);
        let mut fresh: Vec<u64> = Vec::new();
        let mark = |bitmap: &mut Bitmap, fresh: &mut Vec<u64>, u: u64| {
            if !bitmap.get(u) {
                bitmap.set(u);
                fresh.push(u);
            }
        };
        let mut named: Vec<u64> = Vec::new();
        for v in 0..n {
            named.clear();
            named.push(v);
            for scan in scans.iter_mut() {
                named.extend_from_slice(next_list(scan, v)?.1);
            }
            fresh.clear();
            for &u in &named {
                mark(&mut bitmap, &mut fresh, u);
            }
            if count + fresh.len() as u64 > cap && v > first {
                for &u in &fresh {
                    bitmap.unset(u);
                }
                write_shard(&mut shard, &mut bitmap)?;
                intervals.push(Interval { first, end: v, boundary: count });
                largest = largest.max(count);
                first = v;
                count = 0;
                fresh.clear();
                for &u in &named {
                    mark(&mut bitmap, &mut fresh, u);
                }
            }
            count += fresh.len() as u64;
            if count > cap_budget {
                let need = count * value_bytes;
                return Err(BudgetError {
                    what: format!("the values of vertex {v} and its {} neighbours", count - 1),
                    needed: need,
                    available: cap_budget * value_bytes,
                    total: budget.total(),
                    suggest: budget.total() + need - cap_budget * value_bytes,
                }
                .into());
            }
        }
        if n > first || intervals.is_empty() {
            write_shard(&mut shard, &mut bitmap)?;
            intervals.push(Interval { first, end: n, boundary: count });
            largest = largest.max(count);
        }
        outcore_io::verify::register_written(&shard.finish()?)?;
        drop(scans);
        let values_charge = budget.reserve("values of the largest interval and its boundary", largest * value_bytes)?;
        let stats = IntervalStats {
            intervals: intervals.len() as u64,
            largest_interval_values: largest,
            setup_seconds: setup.elapsed().as_secs_f64(),
            iterations: Vec::new(),
        };
        let file_bytes = |p: PathBuf| std::fs::metadata(p).map_or(0, |m| m.len());
        let structure_bytes = structure
            .iter()
            .map(|l| file_bytes(l.index_path()) + file_bytes(l.adjacency_path()) + l.weights_path().map_or(0, file_bytes))
            .sum::<u64>()
            + degree_layout.as_ref().map_or(0, |l| file_bytes(l.index_path()));
        Ok(IntervalEngine {
            vertices: n,
            structure_bytes,
            layouts: structure,
            degrees: degree_layout,
            intervals,
            temp,
            current: 0,
            bitmap,
            rank: vec![0; words],
            values: Vec::with_capacity(largest as usize),
            stats,
            _charges: vec![fixed, values_charge],
        })
    }

    /// Vertices of the store it runs over (one value each).
    pub fn vertices(&self) -> u64 {
        self.vertices
    }
    pub fn stats(&self) -> &IntervalStats {
        &self.stats
    }

    fn table(&self, k: usize) -> PathBuf {
        self.temp.path().join(format!("values-{k}"))
    }

    /// One VSP-II pass; `visit(v, out_degree, old, new)` sees every vertex in order.
    pub fn iterate<P: IntervalProgram<Value = T>>(
        &mut self,
        program: &P,
        mut visit: impl FnMut(u64, u64, T, T),
    ) -> Result<IntervalIteration, StoreError> {
        let start = Instant::now();
        let mut it = IntervalIteration::default();
        let mut table = ValueTable::open(&self.table(self.current))?;
        let next = 1 - self.current;
        let mut writer = SeqWriter::create(&self.table(next), STREAM_CHUNK_BYTES, CHECKSUM_BLOCK_BYTES)?;
        let mut shard = SeqReader::open(&self.temp.path().join("shards"), STREAM_CHUNK_BYTES)?;
        let mut carry: Vec<u8> = Vec::new();
        let mut batches = [Batch::new(self.layouts.len()), Batch::new(self.layouts.len())];
        let mut scans = self.layouts.iter().map(|l| l.scan()).collect::<Result<Vec<_>, _>>()?;
        let mut degrees: Option<DegreeScan> = self.degrees.as_ref().map(|l| l.degrees()).transpose()?;
        for interval in &self.intervals {
            // v-shard ids -> membership bitmap and the values of S(I) u I
            self.bitmap.clear();
            self.values.clear();
            // `carry` holds the unread tail of the last shard chunk (at most one chunk)
            let mut left = interval.boundary as usize;
            while left > 0 {
                if carry.len() < 4 {
                    match shard.next_chunk()? {
                        Some(c) => carry.extend_from_slice(c),
                        None => return Err(StoreError::invalid(shard.path(), "ends inside an interval")),
                    }
                    continue;
                }
                let take = left.min(carry.len() / 4);
                for c in carry[..take * 4].chunks_exact(4) {
                    let u = u32::from_le_bytes(c.try_into().unwrap()) as u64;
                    self.bitmap.set(u);
                    self.values.push(table.get(u)?);
                }
                carry.drain(..take * 4);
                left -= take;
            }
            it.shard_bytes_read += interval.boundary * 4;
            let mut r = 0u32;
            for (w, rank) in self.bitmap.words().iter().zip(self.rank.iter_mut()) {
                *rank = r;
                r += w.count_ones();
            }
            let values = Values { bitmap: self.bitmap.words(), rank: &self.rank, values: &self.values };
            let mut bytes = Vec::with_capacity(((interval.end - interval.first) * T::BYTES as u64).min(STREAM_CHUNK_BYTES as u64) as usize);
            // Batches of lists: the next is read from the sequential scans
            // while the current one is gathered on the other cores.
            let mut v = interval.first;
            let mut current = std::mem::replace(&mut batches[0], Batch::new(0));
            let mut upcoming = std::mem::replace(&mut batches[1], Batch::new(0));
            fill(&mut current, &mut scans, &mut degrees, &mut v, interval.end)?;
            while !current.degrees.is_empty() {
                let layouts = scans.len();
                let (filled, new) = rayon::join(
                    || fill(&mut upcoming, &mut scans, &mut degrees, &mut v, interval.end),
                    || -> Vec<T> {
                        (0..current.degrees.len())
                            .into_par_iter()
                            .with_min_len(1024)
                            .map(|k| {
                                let lists = [
                                    current.list(0, k),
                                    if layouts > 1 { current.list(1, k) } else { NeighbourList { ids: &[], weights: &[] } },
                                ];
                                program.gather(current.first + k as u64, current.degrees[k], &lists[..layouts], &values)
                            })
                            .collect()
                    },
                );
                filled?;
                it.edges += current.ids() as u64;
                for (k, &x) in new.iter().enumerate() {
                    let u = current.first + k as u64;
                    visit(u, current.degrees[k], values.get(u), x);
                    x.write_le(&mut bytes);
                }
                if bytes.len() >= STREAM_CHUNK_BYTES {
                    writer.write_bytes(&bytes)?;
                    bytes.clear();
                }
                std::mem::swap(&mut current, &mut upcoming);
            }
            batches = [current, upcoming];
            writer.write_bytes(&bytes)?;
        }
        outcore_io::verify::register_written(&writer.finish()?)?;
        it.value_bytes_read = table.bytes_read;
        it.structure_bytes_read = self.structure_bytes;
        it.value_bytes_written = self.vertices * T::BYTES as u64;
        self.current = next;
        it.seconds = start.elapsed().as_secs_f64();
        self.stats.iterations.push(it.clone());
        Ok(it)
    }

    /// What [`IntervalEngine::for_each_value`] holds while it reads the
    /// value table: its reader's chunks and one value.
    pub fn value_read_bytes(&self) -> u64 {
        SeqReader::buffer_bytes(STREAM_CHUNK_BYTES) + T::BYTES as u64
    }
    /// The current values, in vertex order.
    pub fn for_each_value(&self, mut f: impl FnMut(u64, T)) -> Result<(), StoreError> {
        use std::io::Read;
        let path = self.table(self.current);
        let mut reader = SeqReader::open(&path, STREAM_CHUNK_BYTES)?;
        // the reader carries a value across its chunks
        let mut one = vec![0u8; T::BYTES];
        for v in 0..self.vertices {
            reader.read_exact(&mut one).map_err(|e| StoreError::invalid(&path, format!("value of vertex {v}: {e}")))?;
            f(v, T::read_le(&one));
        }
        if reader.position() != reader.len() {
            return Err(StoreError::invalid(&path, format!("holds more than the values of its {} vertices", self.vertices)));
        }
        Ok(())
    }
}

fn next_list(scan: &mut AdjacencyScan, v: u64) -> Result<(u64, &[u64], &[f32]), StoreError> {
    match scan.next_list()? {
        Some(x) if x.0 == v => Ok(x),
        _ => Err(StoreError::invalid(Path::new("structure layout"), format!("ends before vertex {v}"))),
    }
}

/// Append the set bits of `bitmap` as u32 ids, clearing it.
fn write_shard(shard: &mut SeqWriter, bitmap: &mut Bitmap) -> Result<(), StoreError> {
    let mut out = Vec::new();
    for (w, word) in bitmap.words_mut().iter_mut().enumerate() {
        let mut x = *word;
        while x != 0 {
            let b = x.trailing_zeros() as u64;
            out.extend_from_slice(&((w as u64 * 64 + b) as u32).to_le_bytes());
            x &= x - 1;
        }
        *word = 0;
        if out.len() >= STREAM_CHUNK_BYTES {
            shard.write_bytes(&out)?;
            out.clear();
        }
    }
    shard.write_bytes(&out)?;
    Ok(())
}

/// The current value table, read by 1 MiB chunks as ascending ids ask.
struct ValueTable {
    checks: Option<std::sync::Arc<outcore_io::verify::FileChecks>>,
    file: File,
    path: PathBuf,
    buf: AlignedBuf,
    chunk: Option<u64>,
    valid: usize,
    bytes_read: u64,
}

impl ValueTable {
    fn open(path: &Path) -> Result<Self, StoreError> {
        let mut o = OpenOptions::new();
        o.read(true);
        let (file, _) = open_maybe_direct(path, &o).ctx(path, "open")?;
        Ok(ValueTable {
            checks: outcore_io::verify::checks_for(&file),
            file,
            path: path.to_path_buf(),
            buf: AlignedBuf::new(STREAM_CHUNK_BYTES, 4096),
            chunk: None,
            valid: 0,
            bytes_read: 0,
        })
    }

    fn get<T: VertexValue>(&mut self, u: u64) -> Result<T, StoreError> {
        let at = u * T::BYTES as u64;
        let off = (at % STREAM_CHUNK_BYTES as u64) as usize;
        self.load(at / STREAM_CHUNK_BYTES as u64, u)?;
        if off + T::BYTES <= STREAM_CHUNK_BYTES {
            if off + T::BYTES > self.valid {
                return Err(StoreError::invalid(&self.path, format!("value table ends before vertex {u}")));
            }
            return Ok(T::read_le(&self.buf[off..off + T::BYTES]));
        }
        // a value that straddles two chunks (widths that do not divide a chunk)
        let mut bytes = self.buf[off..self.valid.max(off)].to_vec();
        self.load(at / STREAM_CHUNK_BYTES as u64 + 1, u)?;
        let rest = T::BYTES - bytes.len();
        if rest > self.valid {
            return Err(StoreError::invalid(&self.path, format!("value table ends before vertex {u}")));
        }
        bytes.extend_from_slice(&self.buf[..rest]);
        Ok(T::read_le(&bytes))
    }

    /// Make chunk `chunk` the one in the buffer (vertex `u` asked for it).
    fn load(&mut self, chunk: u64, u: u64) -> Result<(), StoreError> {
        if self.chunk == Some(chunk) {
            return Ok(());
        }
        self.buf.set_len(self.buf.capacity());
        let mut got = 0;
        while got < self.buf.len() {
            let n = self.file.read_at(&mut self.buf[got..], chunk * STREAM_CHUNK_BYTES as u64 + got as u64).ctx(&self.path, "read")?;
            got += n;
            if n == 0 || n % 4096 != 0 {
                break; // end of file (O_DIRECT reads stay aligned)
            }
        }
        if let Some(c) = &self.checks {
            c.check_read(&self.file, chunk * STREAM_CHUNK_BYTES as u64, &self.buf[..got])?;
        }
        if got == 0 {
            return Err(StoreError::invalid(&self.path, format!("value table ends before vertex {u}")));
        }
        self.valid = got;
        self.bytes_read += got as u64;
        self.chunk = Some(chunk);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A value table written and registered as the engine writes its own:
    /// `count` values of 12 bytes (ALS-like, so that some straddle two
    /// 1 MiB chunks), then `tail` more bytes.
    fn value_table(path: &Path, count: u64, tail: usize) {
        let mut w = SeqWriter::create(path, STREAM_CHUNK_BYTES, CHECKSUM_BLOCK_BYTES).unwrap();
        let mut bytes = Vec::new();
        for v in 0..count {
            bytes.clear();
            [v as f32, 1.0, 2.0].write_le(&mut bytes);
            w.write_bytes(&bytes).unwrap();
        }
        w.write_bytes(&vec![7u8; tail]).unwrap();
        outcore_io::verify::register_written(&w.finish().unwrap()).unwrap();
    }

    /// A value table past three chunks reads back every value, those that
    /// straddle two chunks too, each chunk checked against its own pages
    /// (read first, a later chunk checked at another offset fails them).
    /// Cut inside a straddling value, the table refuses that value and
    /// names it; cut right after it, the value still reads.
    #[test]
    fn value_tables_read_across_chunks_and_refuse_a_cut_value() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("values");
        let n = (3 * STREAM_CHUNK_BYTES / 12 + 10) as u64;
        value_table(&path, n, 0);
        let mut table = ValueTable::open(&path).unwrap();
        assert!(table.checks.is_some() || !outcore_io::verify::verification_enabled());
        for u in 0..n {
            assert_eq!(table.get::<[f32; 3]>(u).unwrap(), [u as f32, 1.0, 2.0], "vertex {u}");
        }
        // a table read first in its (whole) second chunk, its first unchecked
        let far = dir.path().join("far");
        value_table(&far, n, 0);
        let u = (STREAM_CHUNK_BYTES / 12 + 100) as u64;
        assert_eq!(ValueTable::open(&far).unwrap().get::<[f32; 3]>(u).unwrap(), [u as f32, 1.0, 2.0]);
        // the first value that straddles: 4 bytes in the first chunk, 8 in the second
        let straddling = (STREAM_CHUNK_BYTES / 12) as u64;
        assert!(straddling * 12 < STREAM_CHUNK_BYTES as u64 && (straddling + 1) * 12 > STREAM_CHUNK_BYTES as u64);
        let cut = dir.path().join("cut");
        value_table(&cut, straddling, 6);
        let err = ValueTable::open(&cut).unwrap().get::<[f32; 3]>(straddling).unwrap_err().to_string();
        assert!(err.contains(&format!("value table ends before vertex {straddling}")), "{err}");
        let whole = dir.path().join("whole");
        value_table(&whole, straddling + 1, 0);
        assert_eq!(ValueTable::open(&whole).unwrap().get::<[f32; 3]>(straddling).unwrap(), [straddling as f32, 1.0, 2.0]);
    }

    /// A batch at both of its bounds (`BATCH_VERTICES` vertices whose lists
    /// fill each layout's share of `BATCH_IDS`, as [`fill`] stops at
    /// either) holds its ids, weights, list ends and degrees in what
    /// [`fixed_bytes`] charges it: two such batches, the membership bitmap
    /// and its rank (12 bytes a 64 vertices) and the scans' buffers ((8 a
    /// layout + 12) chunks, as its comment counts them) come within it.
    #[test]
    fn two_full_batches_fit_what_fixed_bytes_charges() {
        let n = 1u64 << 20;
        for layouts in 1..=3 {
            let mut batch = Batch::new(layouts);
            let len = batch.share() / BATCH_VERTICES as usize;
            let (ids, weights) = (vec![9u64; len], vec![0.5f32; len]);
            let mut vertices = 0;
            while batch.below_share() && vertices < BATCH_VERTICES {
                for k in 0..layouts {
                    batch.push(k, &ids, &weights);
                }
                batch.degrees.push(len as u64);
                vertices += 1;
            }
            assert_eq!(vertices, BATCH_VERTICES, "{layouts} layouts");
            let held: usize = (0..layouts)
                .map(|k| batch.ids[k].capacity() * 8 + batch.weights[k].capacity() * 4 + batch.ends[k].capacity() * 8)
                .sum::<usize>()
                + batch.degrees.capacity() * 8;
            let buffers = (layouts as u64 * 8 + 12) * STREAM_CHUNK_BYTES as u64;
            let charged = fixed_bytes(n, layouts, 0, 0);
            assert!(
                2 * held as u64 + n.div_ceil(64) * 12 + buffers <= charged,
                "{layouts} layouts: two batches hold {} bytes beside {} of bitmap and buffers; {charged} charged",
                2 * held,
                n.div_ceil(64) * 12 + buffers
            );
        }
    }

    /// A batch filled as [`fill`] fills it, one list per layout per vertex
    /// while every layout is below its share, holds no more ids and
    /// weights than [`fixed_bytes`] charges a batch: `BATCH_IDS` and the
    /// longest lists, together.
    #[test]
    fn a_batch_holds_its_share_of_ids_per_layout() {
        for layouts in 1..=3 {
            let longest = [5usize, 3, 7];
            let mut batch = Batch::new(layouts);
            assert_eq!(batch.share(), BATCH_IDS / layouts);
            let (ids, weights) = ([9u64; 7], [0.5f32; 7]);
            while batch.below_share() {
                for (k, &len) in longest.iter().enumerate().take(layouts) {
                    batch.push(k, &ids[..len], &weights[..len]);
                }
            }
            let longest_lists: usize = longest[..layouts].iter().sum();
            assert!(batch.ids.iter().any(|ids| ids.len() >= batch.share()), "{layouts} layouts: stopped below every share");
            assert!(batch.ids() <= BATCH_IDS + longest_lists, "{layouts} layouts: {} ids", batch.ids());
            for k in 0..layouts {
                let held = batch.ids[k].len();
                assert!(held < batch.share() + longest[k], "layout {k} of {layouts}: {held}");
                assert!(
                    batch.ids[k].capacity() < batch.share() + longest[k],
                    "layout {k} of {layouts}: capacity {}",
                    batch.ids[k].capacity()
                );
                assert!(batch.weights[k].capacity() < batch.share() + longest[k]);
            }
        }
    }
}
