//! The stream engine over the G-Store tile layout (Kumar & Huang, SC'16,
//! sections V and VI): slide, cache, rewind.
//!
//! The budget left after the algorithm's vertex state is split into two
//! segments and a cache pool. Each iteration first *rewinds*: it processes
//! the tiles the pool kept from the last iteration, with no I/O. It then
//! *slides* over the tiles still needed, in storage order: one segment is
//! filled by O_DIRECT reads in the background (packed tiles are rounded out
//! to 4 KiB and neighbouring tiles coalesced into one read) while the other
//! is processed. Processed tiles are *cached* by copying them into the
//! pool; when it is full, the algorithm's partial knowledge of the next
//! iteration (`TileProgram::keep`) decides what is evicted (section VI-C).
//! When the frontier is sparse, only tiles with active rows or columns are
//! read (`TileProgram::needed`).
//!
//! Parallelism without atomics on the hot path: a segment's tiles are
//! processed in two passes, first grouped by column (tasks own the target
//! span `j`, `forward`), then, if the program wants the reverse direction
//! (the upper triangle of an undirected graph, or WCC/CDLP ignoring
//! direction), grouped by row (tasks own the source span `i`,
//! `backward`). No two concurrent calls write the same span, so programs
//! keep their state in relaxed atomics that compile to plain loads and
//! stores. (G-Store assigns rows to threads; with the upper triangle both
//! endpoints of a tuple are written, so rows alone would race.)
//!
//! Tiles larger than half a segment are cut into pieces of consecutive
//! edges; each piece is read, processed and cached as a unit.

use outcore_io::{AlignedBuf, Budget, Reservation, SegmentRead, SegmentReader};
use outcore_store::tiles::read_tile_index;
use outcore_store::{Store, StoreError, TilesRecord};
use rayon::prelude::*;
use serde::Serialize;
use std::time::Instant;

#[cfg(target_endian = "big")]
compile_error!("tiles are little-endian and read in place");

/// The edges of one tile (or piece of a tile) handed to a program.
pub struct TileEdges<'a> {
    pub i: u32,
    pub j: u32,
    /// Global id of local source 0 (`i << span_bits`) and of local target 0.
    pub source_base: u64,
    pub target_base: u64,
    /// (local source, local target) pairs.
    pub edges: &'a [[u16; 2]],
    /// One weight per edge if the program asked for weights, else empty.
    pub weights: &'a [f32],
}

/// An iterative algorithm over tiles. The engine never calls `forward` for
/// two tiles of the same column, nor `backward` for two tiles of the same
/// row, at the same time, and never mixes the two passes.
pub trait TileProgram: Sync {
    /// Also process each stored tuple from target to source (`backward`).
    fn reverse(&self) -> bool;
    /// Load the tile weights (weighted stores only).
    fn weights(&self) -> bool {
        false
    }
    /// Does tile (i, j) need processing this iteration? Asked once per
    /// iteration for every tile, before any is processed.
    fn needed(&self, _i: u32, _j: u32) -> bool {
        true
    }
    /// Partial information: is tile (i, j) likely needed next iteration?
    /// Asked when the cache pool is full, to choose what to evict.
    fn keep(&self, _i: u32, _j: u32) -> bool {
        true
    }
    /// Apply each tuple source -> target; may write only span `j`'s state.
    fn forward(&self, tile: &TileEdges);
    /// Apply each tuple target -> source; may write only span `i`'s state.
    fn backward(&self, _tile: &TileEdges) {}
}

#[derive(Clone, Debug)]
pub struct StreamOptions {
    /// Bytes per segment; default from the budget (an eighth of what is
    /// left, between 1 MiB and 64 MiB).
    pub segment_bytes: Option<u64>,
    /// Keep tiles in a cache pool between iterations (slide-cache-rewind).
    pub cache: bool,
    /// Cap on the cache pool (default: what the budget leaves).
    pub pool_bytes: Option<u64>,
    /// Reads in flight per segment fill.
    pub depth: usize,
    pub force_pread: bool,
    /// Largest gap between two needed tiles that is read through rather
    /// than split into two reads.
    pub coalesce_gap: u64,
}

impl Default for StreamOptions {
    fn default() -> Self {
        StreamOptions { segment_bytes: None, cache: true, pool_bytes: None, depth: 64, force_pread: false, coalesce_gap: 256 << 10 }
    }
}

/// The smallest segment the engine runs with.
pub const MIN_SEGMENT_BYTES: u64 = 1 << 20;
const ALIGN: u64 = 4096;

/// What one iteration did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct IterationStats {
    pub seconds: f64,
    /// Bytes read from the device (alignment and coalescing included).
    pub bytes_read: u64,
    /// Reads issued to the device: one a file for each extent of pieces
    /// that lie together (within the coalescing gap) in one segment.
    pub reads: u64,
    /// Tile bytes (edges and weights) processed from the cache pool.
    pub bytes_from_cache: u64,
    /// Tile bytes processed in all.
    pub bytes_processed: u64,
    pub edges_processed: u64,
    /// Tiles (pieces) skipped because the program did not need them.
    pub pieces_skipped: u64,
    /// Pieces evicted from the pool because the program will not need them.
    pub pieces_evicted: u64,
    pub segments: u64,
    /// Seconds spent waiting for reads that processing did not hide.
    pub io_wait_seconds: f64,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct StreamStats {
    pub io_backend: String,
    pub segment_bytes: u64,
    pub pool_bytes: u64,
    /// Tile bytes of the layout (edges, plus weights when loaded).
    pub layout_bytes: u64,
    pub iterations: Vec<IterationStats>,
}

/// Heap a piece takes while the engine is open with `files` files (edges,
/// and weights): itself and its cached flag, its entry in the pool's
/// (whose vector is sized to every piece once the pool takes one, and
/// compacted in place), and what it takes during a pass
/// ([`pass_piece_bytes`]).
const fn piece_bytes(files: u64) -> u64 {
    (size_of::<Piece>() + 1 + size_of::<PoolEntry>()) as u64 + pass_piece_bytes(files)
}

/// Heap a piece takes during a pass over `files` files, at most: served
/// from the pool, its view (a [`TileEdges`]) and its place in the order of
/// the program's passes over the views (an index and a group); read from
/// the device, its place in the pass's [`Plan`], a read a file and a
/// segment's end (the plan's vectors are sized to these bounds at once),
/// and its view and order while its segment is processed. (The copies of
/// a segment's reads it is filled by are the segments'
/// ([`TileStream::segments_bytes`]).)
const fn pass_piece_bytes(files: u64) -> u64 {
    let order = size_of::<usize>() + size_of::<&[usize]>();
    let rewind = (size_of::<TileEdges>() + order) as u64;
    let slide = (size_of::<Placed>() + size_of::<(usize, usize)>() + size_of::<TileEdges>() + order) as u64
        + files * size_of::<SegmentRead>() as u64;
    if rewind > slide {
        rewind
    } else {
        slide
    }
}

/// Heap a tile takes while the engine is open: its coordinates, and its
/// flag in a pass's needs.
const TILE_BYTES: u64 = size_of::<(u32, u32)>() as u64 + 1;

/// The most edges a piece holds: a tile is cut so that a piece fits a
/// segment's share for each of `files` files, less two pages of alignment.
fn max_piece_edges(segment_bytes: u64, files: u64) -> u64 {
    ((segment_bytes / files).saturating_sub(2 * ALIGN) / 4).max(1)
}

#[derive(Clone, Copy)]
struct Piece {
    tile: u32,
    e0: u64,
    e1: u64,
}

#[derive(Clone, Copy)]
struct PoolEntry {
    piece: u32,
    /// Offset in the pool, in 4-byte words; edges then weights.
    at: usize,
    edges: usize,
}

pub struct TileStream {
    rec: TilesRecord,
    /// The store's vertices, and the tile data file, to check what is read.
    vertices: u64,
    data_path: std::path::PathBuf,
    coords: Vec<(u32, u32)>,
    pieces: Vec<Piece>,
    /// Whether each piece is in the pool.
    cached: Vec<bool>,
    pool: Vec<u32>,
    pool_words: usize,
    entries: Vec<PoolEntry>,
    pool_has_weights: bool,
    weighted: bool,
    reader: SegmentReader,
    buffers: Vec<AlignedBuf>,
    segment_bytes: u64,
    opts: StreamOptions,
    stats: StreamStats,
    _charges: Vec<Reservation>,
}

/// A needed piece inside a segment buffer: byte offsets of its edges and weights.
struct Placed {
    piece: u32,
    edges_at: usize,
    weights_at: usize,
}

/// A pass's needed pieces that the pool does not hold, grouped into
/// segments of coalesced reads. Its vectors are sized at once to their
/// bounds (a place, a read a file and a segment for every piece), so that
/// what a pass holds is what [`pass_piece_bytes`] charges, however the
/// pieces fall.
struct Plan {
    placed: Vec<Placed>,
    reads: Vec<SegmentRead>,
    /// Where each segment's places and reads end.
    ends: Vec<(usize, usize)>,
}

impl Plan {
    fn with_room(pieces: usize, files: usize) -> Self {
        Plan { placed: Vec::with_capacity(pieces), reads: Vec::with_capacity(pieces * files), ends: Vec::with_capacity(pieces) }
    }
    fn starts(&self, segment: usize) -> (usize, usize) {
        segment.checked_sub(1).map_or((0, 0), |s| self.ends[s])
    }
    fn placed(&self, segment: usize) -> &[Placed] {
        &self.placed[self.starts(segment).0..self.ends[segment].0]
    }
    fn reads(&self, segment: usize) -> &[SegmentRead] {
        &self.reads[self.starts(segment).1..self.ends[segment].1]
    }
    /// Close the segment open (if it holds a piece).
    fn end_segment(&mut self) {
        let last = self.ends.last().map_or(0, |e| e.0);
        if self.placed.len() > last {
            self.ends.push((self.placed.len(), self.reads.len()));
        }
    }
}

impl TileStream {
    /// The tile layout of `store`, or an error saying how to add it.
    pub fn record(store: &Store) -> Result<TilesRecord, StoreError> {
        store.manifest().tiles.clone().ok_or_else(|| store.missing("tiles", "the stream engine"))
    }

    /// Tile bytes one pass reads (edges, and weights if `weights`).
    pub fn layout_bytes(rec: &TilesRecord, weights: bool) -> u64 {
        rec.edges * if weights && rec.weights.is_some() { 8 } else { 4 }
    }

    /// Memory the engine needs besides the pool: index, two segments of
    /// `segment_bytes`, and its pieces (every file of the layout read).
    pub fn fixed_bytes(rec: &TilesRecord, segment_bytes: u64) -> u64 {
        let files = if rec.weights.is_some() { 2 } else { 1 };
        Self::tiles_bytes(rec.tiles, rec.edges, segment_bytes, files) + Self::segments_bytes(segment_bytes)
    }

    /// Memory of two segments of `segment_bytes`: their buffers, and the
    /// copy of its reads each is filled by (a read is a page at least, so
    /// a segment takes a read a page at most).
    pub fn segments_bytes(segment_bytes: u64) -> u64 {
        2 * (segment_bytes + segment_bytes / ALIGN * size_of::<SegmentRead>() as u64)
    }

    /// Memory of the tile index and of the pieces `tiles` tiles of `edges`
    /// edges in all are cut into with segments of `segment_bytes` over
    /// `files` files (edges, and weights): a piece a tile, and one more for
    /// every [`max_piece_edges`] edges.
    pub fn tiles_bytes(tiles: u64, edges: u64, segment_bytes: u64, files: u64) -> u64 {
        Self::index_read_bytes(tiles) + tiles * TILE_BYTES + (tiles + edges / max_piece_edges(segment_bytes, files)) * piece_bytes(files)
    }

    /// Memory of reading the index of `tiles` tiles, while the engine opens:
    /// the file, and its entries as read.
    fn index_read_bytes(tiles: u64) -> u64 {
        (tiles * 16 + 8) + tiles * size_of::<(u32, u32, u64)>() as u64
    }

    /// Open the tile layout with what the budget has left: two segments and
    /// a cache pool (no bigger than the layout).
    pub fn open(store: &Store, budget: &Budget, weights: bool, opts: StreamOptions) -> Result<Self, StoreError> {
        let rec = Self::record(store)?;
        let weighted = weights && rec.weights.is_some();
        let files = if weighted { 2 } else { 1 };
        let reading = budget.reserve("reading the tile index", Self::index_read_bytes(rec.tiles))?;
        let (index, end) = read_tile_index(store.dir(), &rec)?;
        let index_charge = budget.reserve("tile index", rec.tiles * TILE_BYTES)?;
        let coords: Vec<(u32, u32)> = index.iter().map(|&(i, j, _)| (i, j)).collect();
        let available = budget.available();
        let segment_bytes = match opts.segment_bytes {
            Some(s) => (s.div_ceil(ALIGN) * ALIGN).max(4 * ALIGN * files),
            // at least a minimum segment per file (edges, and weights)
            None => ((available / 8).clamp(MIN_SEGMENT_BYTES * files, 64 << 20)) >> 20 << 20,
        };
        let layout_bytes = Self::layout_bytes(&rec, weighted);
        // no bigger than the layout needs (two pages of alignment slack per file)
        let segment_bytes = segment_bytes.min((layout_bytes / files).div_ceil(ALIGN) * ALIGN * files + 4 * ALIGN * files);
        let segments_charge = budget.reserve("two stream segments", Self::segments_bytes(segment_bytes))?;
        // pieces: a tile's edges cut so that a piece fits a segment's file share, less two pages of alignment
        let max_edges = max_piece_edges(segment_bytes, files);
        // a tile's first edge and the edge after its last
        let tile_edges = |t: usize| (index[t].2, index.get(t + 1).map_or(end, |x| x.2));
        // (the index's starts are in order: `read_tile_index` checks them)
        let pieces_of = |t: usize| {
            let (first, past) = tile_edges(t);
            (past - first).div_ceil(max_edges)
        };
        let count: u64 = (0..index.len()).map(pieces_of).sum();
        let pieces_charge = budget.reserve("tile pieces and the pool's entries", count * piece_bytes(files))?;
        let mut pieces = Vec::with_capacity(count as usize);
        for t in 0..index.len() {
            let (mut e0, stop) = tile_edges(t);
            while e0 < stop {
                let e1 = stop.min(e0 + max_edges);
                pieces.push(Piece { tile: t as u32, e0, e1 });
                e0 = e1;
            }
        }
        drop(index);
        drop(reading);
        let pool_bytes = if opts.cache {
            budget.available().saturating_sub(1 << 20).min(layout_bytes).min(opts.pool_bytes.unwrap_or(u64::MAX)) / 4 * 4
        } else {
            0
        };
        let pool_charge = budget.reserve("tile cache pool", pool_bytes)?;
        let mut paths = vec![store.dir().join(&rec.data)];
        if weighted {
            paths.push(store.dir().join(rec.weights.as_ref().unwrap()));
        }
        for p in &paths {
            let len = std::fs::metadata(p).map_err(|e| StoreError::invalid(p, format!("cannot stat: {e}")))?.len();
            if len < end * 4 {
                return Err(StoreError::invalid(p, format!("{len} bytes, the tile index needs {} (truncated)", end * 4)));
            }
        }
        let reader = SegmentReader::open(&paths, opts.depth, opts.force_pread)?;
        let stats =
            StreamStats { io_backend: reader.backend().name().into(), segment_bytes, pool_bytes, layout_bytes, iterations: Vec::new() };
        Ok(TileStream {
            vertices: store.vertices(),
            data_path: paths[0].clone(),
            coords,
            cached: vec![false; pieces.len()],
            pieces,
            pool: Vec::new(),
            pool_words: (pool_bytes / 4) as usize,
            entries: Vec::new(),
            pool_has_weights: weighted,
            weighted,
            buffers: (0..2).map(|_| AlignedBuf::new(segment_bytes as usize, ALIGN as usize)).collect(),
            reader,
            segment_bytes,
            opts,
            rec,
            stats,
            _charges: vec![index_charge, segments_charge, pieces_charge, pool_charge],
        })
    }

    pub fn record_ref(&self) -> &TilesRecord {
        &self.rec
    }

    pub fn stats(&self) -> &StreamStats {
        &self.stats
    }

    /// One pass over the tiles the program needs.
    pub fn iterate<P: TileProgram>(&mut self, program: &P) -> Result<IterationStats, StoreError> {
        let start = Instant::now();
        let waited_before = self.reader.waited;
        let mut it = IterationStats::default();
        let weights = program.weights() && self.weighted;
        if weights != self.pool_has_weights {
            self.clear_pool();
            self.pool_has_weights = weights;
        }
        let span_bits = self.rec.span_bits;
        let needed: Vec<bool> = self.coords.iter().map(|&(i, j)| program.needed(i, j)).collect();
        let reverse = program.reverse();

        // Rewind: what the pool kept, no I/O.
        {
            let mut work = Vec::with_capacity(self.entries.len());
            for e in &self.entries {
                let p = self.pieces[e.piece as usize];
                if !needed[p.tile as usize] {
                    continue;
                }
                let n = e.edges;
                let edges: &[[u16; 2]] = cast_words(&self.pool[e.at..e.at + n]);
                let w: &[f32] = if weights { cast_words(&self.pool[e.at + n..e.at + 2 * n]) } else { &[] };
                work.push(self.tile_edges(p.tile, edges, w, span_bits));
                it.bytes_from_cache += (n * if weights { 8 } else { 4 }) as u64;
            }
            run(program, &work, reverse);
            it.edges_processed += work.iter().map(|w| w.edges.len() as u64).sum::<u64>();
        }

        // Slide over the rest.
        let plan = self.plan(&needed, weights, &mut it);
        it.segments = plan.ends.len() as u64;
        it.reads = plan.reads.len() as u64;
        let mut segments = 0..plan.ends.len();
        let mut in_flight: Option<usize> = None;
        if let Some(seg) = segments.next() {
            let buf = self.buffers.pop().expect("two buffers");
            self.reader.fill(buf, plan.reads(seg).to_vec());
            in_flight = Some(seg);
        }
        while let Some(seg) = in_flight.take() {
            let filled = self.reader.wait();
            let mut buf = filled.buf;
            buf.set_len(buf.capacity());
            let result = filled.result;
            if let Some(next) = segments.next() {
                let other = self.buffers.pop().expect("two buffers");
                self.reader.fill(other, plan.reads(next).to_vec());
                in_flight = Some(next);
            }
            let bytes = match result {
                Ok(b) => b,
                Err(e) => {
                    self.buffers.push(buf);
                    return Err(e.into());
                }
            };
            it.bytes_read += bytes;
            let mut work = Vec::with_capacity(plan.placed(seg).len());
            for pl in plan.placed(seg) {
                let p = self.pieces[pl.piece as usize];
                let n = (p.e1 - p.e0) as usize;
                let edges: &[[u16; 2]] = cast_bytes(&buf[..], pl.edges_at, n);
                // read from the device: checked before any program sees it (the pool keeps only checked pieces)
                let (i, j) = self.coords[p.tile as usize];
                if let Err(e) = outcore_store::tiles::check_tile_edges(&self.data_path, self.vertices, span_bits, i, j, edges) {
                    drop(work);
                    self.buffers.push(buf);
                    return Err(e);
                }
                let w: &[f32] = if weights { cast_bytes(&buf[..], pl.weights_at, n) } else { &[] };
                work.push(self.tile_edges(p.tile, edges, w, span_bits));
            }
            run(program, &work, reverse);
            it.edges_processed += work.iter().map(|w| w.edges.len() as u64).sum::<u64>();
            drop(work);
            if self.opts.cache && self.pool_words > 0 {
                self.cache_segment(program, plan.placed(seg), &buf, weights, &mut it);
            }
            self.buffers.push(buf);
        }
        it.bytes_processed = it.edges_processed * if weights { 8 } else { 4 };
        it.io_wait_seconds = (self.reader.waited - waited_before).as_secs_f64();
        it.seconds = start.elapsed().as_secs_f64();
        self.stats.iterations.push(it.clone());
        Ok(it)
    }

    fn tile_edges<'a>(&self, tile: u32, edges: &'a [[u16; 2]], weights: &'a [f32], span_bits: u32) -> TileEdges<'a> {
        let (i, j) = self.coords[tile as usize];
        TileEdges { i, j, source_base: (i as u64) << span_bits, target_base: (j as u64) << span_bits, edges, weights }
    }

    /// Group the needed, uncached pieces into segments of coalesced reads.
    fn plan(&self, needed: &[bool], weights: bool, it: &mut IterationStats) -> Plan {
        let files: usize = if weights { 2 } else { 1 };
        let share = (self.segment_bytes / files as u64) as usize;
        let wanted = |(k, p): &(usize, &Piece)| needed[p.tile as usize] && !self.cached[*k];
        let mut plan = Plan::with_room(self.pieces.iter().enumerate().filter(wanted).count(), files);
        let mut used = 0usize; // bytes of the file share in use, including the open extent
        let mut extent: Option<(u64, u64, usize)> = None; // aligned start, end (bytes), buffer offset
        let close_extent = |plan: &mut Plan, extent: &mut Option<(u64, u64, usize)>| {
            if let Some((a, b, at)) = extent.take() {
                let len = (b.div_ceil(ALIGN) * ALIGN - a) as usize;
                for f in 0..files {
                    plan.reads.push(SegmentRead { file: f, offset: a, len, buf_offset: at + f * share, need: (b - a) as usize });
                }
            }
        };
        for (k, p) in self.pieces.iter().enumerate() {
            if !needed[p.tile as usize] {
                it.pieces_skipped += 1;
                continue;
            }
            if self.cached[k] {
                continue;
            }
            let (b0, b1) = (p.e0 * 4, p.e1 * 4);
            // try to extend the open extent, else open a new one, else start a new segment
            let mut placed = false;
            if let Some((a, b, at)) = extent {
                if b0 <= b + self.opts.coalesce_gap {
                    let new_used = at + (b1.div_ceil(ALIGN) * ALIGN - a) as usize;
                    if new_used <= share {
                        extent = Some((a, b1, at));
                        used = new_used;
                        placed = true;
                    }
                }
            }
            if !placed {
                close_extent(&mut plan, &mut extent);
                let a = b0 / ALIGN * ALIGN;
                let len = (b1.div_ceil(ALIGN) * ALIGN - a) as usize;
                if used + len > share {
                    plan.end_segment();
                    used = 0;
                }
                extent = Some((a, b1, used));
                used += len;
            }
            let (a, _, at) = extent.unwrap();
            let off = at + (b0 - a) as usize;
            plan.placed.push(Placed { piece: k as u32, edges_at: off, weights_at: off + share });
        }
        close_extent(&mut plan, &mut extent);
        plan.end_segment();
        plan
    }

    /// Copy the segment's pieces into the pool; when it is full, evict what
    /// the program says the next iteration will not need (once per segment).
    fn cache_segment<P: TileProgram>(&mut self, program: &P, placed: &[Placed], buf: &AlignedBuf, weights: bool, it: &mut IterationStats) {
        let mut analysed_now = false;
        for pl in placed {
            let p = self.pieces[pl.piece as usize];
            let n = (p.e1 - p.e0) as usize;
            let words = if weights { 2 * n } else { n };
            if self.pool.len() + words > self.pool_words {
                if analysed_now {
                    continue;
                }
                it.pieces_evicted += self.evict(program);
                analysed_now = true;
                if self.pool.len() + words > self.pool_words {
                    continue;
                }
            }
            let (i, j) = self.coords[p.tile as usize];
            if analysed_now && !program.keep(i, j) {
                continue;
            }
            let at = self.pool.len();
            if self.pool.capacity() == 0 {
                self.pool.reserve_exact(self.pool_words);
                self.entries.reserve_exact(self.pieces.len());
            }
            self.pool.extend_from_slice(cast_bytes::<u32>(&buf[..], pl.edges_at, n));
            if weights {
                self.pool.extend_from_slice(cast_bytes::<u32>(&buf[..], pl.weights_at, n));
            }
            self.cached[pl.piece as usize] = true;
            self.entries.push(PoolEntry { piece: pl.piece, at, edges: n });
        }
    }

    /// Drop pool entries the program will not need and compact the rest;
    /// returns how many were dropped.
    fn evict<P: TileProgram>(&mut self, program: &P) -> u64 {
        let words_per_edge = if self.pool_has_weights { 2 } else { 1 };
        let mut write = 0usize;
        let before = self.entries.len() as u64;
        let (pieces, coords, cached, pool) = (&self.pieces, &self.coords, &mut self.cached, &mut self.pool);
        // in place, in the pool's order: each kept entry moves down
        self.entries.retain_mut(|e| {
            let (i, j) = coords[pieces[e.piece as usize].tile as usize];
            if !program.keep(i, j) {
                cached[e.piece as usize] = false;
                return false;
            }
            let words = e.edges * words_per_edge;
            pool.copy_within(e.at..e.at + words, write);
            e.at = write;
            write += words;
            true
        });
        self.pool.truncate(write);
        before - self.entries.len() as u64
    }

    fn clear_pool(&mut self) {
        for e in self.entries.drain(..) {
            self.cached[e.piece as usize] = false;
        }
        self.pool.clear();
    }
}

/// Process `work` in the two conflict-free passes.
fn run<P: TileProgram>(program: &P, work: &[TileEdges], reverse: bool) {
    if work.is_empty() {
        return;
    }
    // the order and its groups (a group a view at most) are what
    // `pass_piece_bytes` charges them
    let mut order: Vec<usize> = (0..work.len()).collect();
    fn groups<'a>(order: &'a [usize], same: &dyn Fn(usize, usize) -> bool) -> Vec<&'a [usize]> {
        let mut groups = Vec::with_capacity(order.len());
        groups.extend(order.chunk_by(|&a, &b| same(a, b)));
        groups
    }
    order.sort_by_key(|&k| (work[k].j, k));
    groups(&order, &|a, b| work[a].j == work[b].j).into_par_iter().for_each(|group| {
        for &k in group {
            program.forward(&work[k]);
        }
    });
    if reverse {
        order.sort_by_key(|&k| (work[k].i, k));
        groups(&order, &|a, b| work[a].i == work[b].i).into_par_iter().for_each(|group| {
            for &k in group {
                program.backward(&work[k]);
            }
        });
    }
}

/// Plain-old-data that can be viewed in place in a 4-byte aligned buffer.
trait Word: Copy {}
impl Word for [u16; 2] {}
impl Word for f32 {}
impl Word for u32 {}

fn cast_bytes<T: Word>(buf: &[u8], at: usize, n: usize) -> &[T] {
    assert!(at.is_multiple_of(4) && at + n * 4 <= buf.len() && (buf.as_ptr() as usize).is_multiple_of(4));
    // SAFETY: in bounds and aligned (checked); T is 4 bytes of plain data with no invalid bit patterns.
    unsafe { std::slice::from_raw_parts(buf.as_ptr().add(at) as *const T, n) }
}

fn cast_words<T: Word>(words: &[u32]) -> &[T] {
    // SAFETY: u32 and T have the same size and alignment 4 (or less) and no invalid bit patterns.
    unsafe { std::slice::from_raw_parts(words.as_ptr() as *const T, words.len()) }
}
