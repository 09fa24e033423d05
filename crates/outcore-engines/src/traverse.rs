//! The traverse engine: semi-external graph access with run-ahead
//! prefetching (RASP, TR-823 section 6).
//!
//! The algorithm calls [`Traverse::run_ahead`] with the vertices it will
//! visit next (its FIFO, the top of its heap, its cursor); the engine issues
//! reads for their blocks until the device holds `depth` requests, skips
//! blocks already cached or in flight (the paper could not), and coalesces
//! vertices that share a block into one read. Results never depend on it:
//! `neighbours` reads whatever is missing on demand.

use crate::compact_index::CompactIndex;
use outcore_io::{Backend, Bitmap, BlockCache, Budget, BudgetError, CacheStats, Reservation};
use outcore_store::{Block, BlockTable, Codec, EdgeStarts, IndexEntries, ListDecoder, ListSource, Store, StoreError};
use rayon::prelude::*;
use serde::Serialize;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Mutex, MutexGuard};

#[derive(Clone, Debug)]
pub struct TraverseOptions {
    /// Cache block size (a multiple of 4 KiB).
    pub block_bytes: usize,
    /// Reads kept in flight by the prefetcher.
    pub depth: usize,
    pub prefetch: bool,
    /// Use the pread thread pool even where io_uring works.
    pub force_pread: bool,
    /// Vertices the prefetcher may run ahead of the algorithm.
    pub max_ahead: usize,
    /// Cache size; by default what the budget has left beyond `keep`.
    pub cache_bytes: Option<u64>,
    /// The longest list a reader decodes by itself: the readers are
    /// charged for lists of at most this many entries, and one reader the
    /// engine shares for the longest; a longer list (for blocked codecs,
    /// any list of a block that holds a longer one) is read by that shared
    /// reader, one at a time. By default the engine chooses, from what the
    /// budget has left, between the longest list (nothing shared) and
    /// [`SHARED_READER_FROM`] entries.
    pub parallel_longest: Option<u64>,
}

impl Default for TraverseOptions {
    fn default() -> Self {
        TraverseOptions {
            block_bytes: 4096,
            depth: 64,
            prefetch: true,
            force_pread: false,
            max_ahead: 4096,
            cache_bytes: None,
            parallel_longest: None,
        }
    }
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct TraverseStats {
    pub cache: CacheStats,
    pub cache_bytes: u64,
    pub io_backend: String,
    /// Neighbour lists read through the cache.
    pub lists_read: u64,
    /// Memory of the vertex index (Elias-Fano), with the edge starts of
    /// compressed encodings.
    pub index_bytes: u64,
    /// Memory of the degrees kept beside the index (0: asked of the index).
    pub fast_degree_bytes: u64,
    /// The longest list a reader decodes by itself
    /// ([`TraverseOptions::parallel_longest`]).
    pub parallel_longest: u64,
    /// Lists read by the shared reader of the longest lists.
    pub lists_read_shared: u64,
}

/// The fewest entries the engine lets a reader decode by itself (unless
/// [`TraverseOptions::parallel_longest`] asks for fewer): when the budget
/// is tight, lists longer than this are read by one reader the threads
/// share, and each thread's reader is charged for lists of this length
/// only.
pub const SHARED_READER_FROM: u64 = 1 << 12;

const ADJACENCY: u32 = 0;
const WEIGHTS: u32 = 1;

pub struct Traverse {
    /// What every reader shares: index, degrees, block table, cache, and
    /// the reader of the longest lists.
    shared: Shared,
    /// Readers the budget was charged for: at most this many threads read
    /// at once ([`Traverse::par_lists`]).
    threads: usize,
}

/// The part of the engine its readers share (`Sync`): one block cache
/// behind a lock, so that the threads' run-ahead and reads meet in it.
struct Shared {
    /// The adjacency file, for error messages.
    adjacency_path: std::path::PathBuf,
    codec: &'static dyn Codec,
    vertices: u64,
    index: CompactIndex,
    /// Where the budget has room: the degrees beside the index (or the
    /// edge starts), so that the random degree lookups of NETALX's hot
    /// lists and bottom-up steps cost a read, not a select.
    fast_degrees: Option<FastDegrees>,
    /// For codecs whose index does not give degrees (it counts bits): the
    /// first edge of each vertex, as Elias-Fano (degrees and weight offsets).
    edge_starts: Option<CompactIndex>,
    /// Blocked codecs: the block table and which blocks passed their checksum.
    blocks: Option<BlockTable>,
    verified: Vec<AtomicBool>,
    /// Blocked codecs whose adjacency has page checksums: a list is read
    /// from the pages that hold it and the lists it may refer to
    /// ([`Codec::reference_reach`]), each page checked by the cache, and
    /// not with its whole block, checked against the block table (a block
    /// is rarely aligned to pages: about 2.2 pages a list where one holds
    /// it).
    narrow: bool,
    cache: Mutex<BlockCache>,
    /// The reader charged for the longest list: it reads the lists the
    /// others are not charged for ([`Shared::read_alone`]), and serves
    /// `Traverse`'s own `&mut` methods.
    longest_reader: Mutex<ReaderState>,
    /// The longest list the other readers decode by themselves.
    parallel_longest: u64,
    /// Blocked codecs, when some list is longer than `parallel_longest`:
    /// a bit for each block that holds such a list (the other readers read
    /// no list of it, since a list's reader holds its whole block and its
    /// decoder may decode the block's earlier lists).
    long_blocks: Option<Vec<u64>>,
    /// Whether some list is longer than `parallel_longest`.
    routes: bool,
    lists_read_shared: AtomicU64,
    weighted: bool,
    opts: TraverseOptions,
    lists_read: AtomicU64,
    store_dir: std::path::PathBuf,
    _charges: Vec<Reservation>,
    /// Held while the engine lives: the page checksums it checks reads against.
    _page_checks: outcore_store::PageChecks,
}

/// What one reader keeps to itself: its decoder (which may remember the
/// lists it decoded), the block whose bytes it holds, and buffers.
struct ReaderState {
    decoder: Box<dyn ListDecoder>,
    current_block: Option<usize>,
    block_bytes: Vec<u8>,
    list: Vec<u64>,
    perm: Vec<usize>,
    bytes: Vec<u8>,
}

impl ReaderState {
    fn new(codec: &'static dyn Codec) -> Self {
        ReaderState {
            decoder: codec.decoder(),
            current_block: None,
            block_bytes: Vec::new(),
            list: Vec::new(),
            perm: Vec::new(),
            bytes: Vec::new(),
        }
    }
}

/// A reader of a [`Traverse`] engine for one thread ([`Traverse::reader`]):
/// its own decoder and buffers over the engine's shared index and cache.
pub struct Reader<'a> {
    g: &'a Traverse,
    state: ReaderState,
}

impl Reader<'_> {
    /// Replace `out` with `v`'s neighbours (see [`Traverse::neighbours`]).
    pub fn neighbours(&mut self, v: u64, out: &mut Vec<u64>) -> Result<(), StoreError> {
        self.g.shared.neighbours(&mut self.state, v, out)
    }
    /// Replace `out` with the weights of `v`'s edges (see [`Traverse::weights`]).
    pub fn weights(&mut self, v: u64, out: &mut Vec<f32>) -> Result<(), StoreError> {
        self.g.shared.weights(&mut self.state, v, out)
    }
}

/// The smallest cache the engine runs with.
const MIN_FRAMES: usize = 64;

impl Traverse {
    /// Bytes of the smallest block cache the engine runs with: 64 frames of
    /// `block_bytes`, each with its bookkeeping
    /// ([`BlockCache::frame_bytes`]).
    pub fn min_cache_bytes(block_bytes: usize) -> u64 {
        (MIN_FRAMES * BlockCache::frame_bytes(block_bytes)) as u64
    }

    /// The smallest budget that opening `layout` of `store` takes besides
    /// the algorithm's state: the vertex index (and, for compressed
    /// encodings, the edge starts and block table; the page checksums, where
    /// the layout has them) and a cache of the
    /// minimum 64 blocks.
    pub fn min_bytes(store: &Store, layout: &str, block_bytes: usize) -> Result<u64, StoreError> {
        Self::min_bytes_with(store, layout, &TraverseOptions { block_bytes, ..Default::default() })
    }

    /// [`Traverse::min_bytes`] with `opts`' block size and
    /// [`TraverseOptions::parallel_longest`].
    pub fn min_bytes_with(store: &Store, layout: &str, opts: &TraverseOptions) -> Result<u64, StoreError> {
        let lay = store.layout(layout)?;
        let mut bytes = Self::index_bytes(store, layout)? + Self::min_cache_bytes(opts.block_bytes);
        let longest = lay.longest_list()?;
        let narrowest = opts.parallel_longest.map_or(longest, |p| p.min(longest)).min(SHARED_READER_FROM);
        bytes += list_bytes(&lay, longest, narrowest, rayon::current_num_threads());
        if outcore_io::verify::verification_enabled() {
            bytes += lay.page_sums_bytes();
        }
        if let Some(p) = lay.blocks_path() {
            let b = std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
            bytes += b + b / 24;
        }
        Ok(bytes)
    }

    /// Memory of `layout`'s index as the engine holds it (Elias-Fano, with
    /// the edge starts of compressed encodings), before the select
    /// structure's data-dependent spill: what opening it charges at least.
    pub fn index_bytes(store: &Store, layout: &str) -> Result<u64, StoreError> {
        let lay = store.layout(layout)?;
        let n = store.vertices();
        let (last, flag) = last_entry(&lay)?;
        let mut bytes = CompactIndex::bytes(n + 1, lay.codec().position(last), flag != 0);
        if lay.degrees_path().is_some() {
            bytes += CompactIndex::bytes(n + 1, store.manifest().arcs, false);
        }
        Ok(bytes)
    }

    /// Open `layout` of `store`. The vertex index is loaded into memory as
    /// Elias-Fano ([`CompactIndex`], a few bits per vertex); the cache
    /// takes what the budget has left beyond `keep` bytes, which the
    /// algorithm reserves for its own state.
    ///
    /// A budget too small names the part that did not fit, and suggests a
    /// budget that opens the engine: at least what is in use already,
    /// [`min_bytes_with`](Self::min_bytes_with) and `keep`, not only what
    /// that part needed (the parts after it would fail in turn).
    pub fn open(store: &Store, layout: &str, budget: &Budget, opts: &TraverseOptions, keep: u64) -> Result<Self, StoreError> {
        let used_before = budget.used();
        Self::open_in(store, layout, budget, opts, keep).map_err(|e| match e {
            StoreError::Budget(mut e) => {
                if let Ok(min) = Self::min_bytes_with(store, layout, opts) {
                    e.suggest = e.suggest.max((used_before + min + keep).div_ceil(1 << 20) << 20);
                }
                StoreError::Budget(e)
            }
            e => e,
        })
    }

    fn open_in(store: &Store, layout: &str, budget: &Budget, opts: &TraverseOptions, keep: u64) -> Result<Self, StoreError> {
        let lay = store.layout(layout)?;
        let vertices = store.vertices();
        let index_path = lay.index_path();
        let (last, flag) = last_entry(&lay)?;
        // the index and the edge starts (a compressed layout's) load at once
        let load_index = || -> Result<CompactIndex, StoreError> {
            let index = match lay.index_entries()? {
                IndexEntries::EliasFano(cursor) => CompactIndex::load(cursor, budget)?,
                mut words => CompactIndex::build(&index_path, vertices + 1, lay.codec().position(last), flag, budget, |push| {
                    words.for_each(vertices + 1, push)
                })?,
            };
            check_index(&lay, &index, last)?;
            Ok(index)
        };
        let load_starts = || match lay.degrees_path() {
            Some(path) => edge_starts(&lay, &path, store.manifest().arcs, budget).map(Some),
            None => Ok(None),
        };
        let (index, edge_starts) = rayon::join(load_index, load_starts);
        let (index, edge_starts) = (index?, edge_starts?);
        let mut files = vec![lay.adjacency_path()];
        let weighted = lay.weights_path().is_some();
        if let Some(w) = lay.weights_path() {
            files.push(w);
        }
        // random reads checked a page at a time where the layout has page
        // checksums (README "Every read is checked"); before the cache
        // and the checking ahead below look up how each file is checked
        let page_checks = lay.check_by_pages(budget)?;
        let narrow = lay.record().blocks.is_some() && lay.record().adjacency_pages.is_some();
        let mut charges = Vec::new();
        let blocks = match lay.record().blocks.as_ref() {
            Some(_) => {
                let bytes = std::fs::metadata(lay.blocks_path().unwrap()).map(|m| m.len()).unwrap_or(0);
                charges.push(budget.reserve("block table", bytes + bytes / 24)?);
                lay.block_table()?
            }
            None => None,
        };
        let block = opts.block_bytes;
        let frame = BlockCache::frame_bytes(block);
        let codec = lay.codec();
        let degrees_from = match &edge_starts {
            Some(starts) => RangeDegrees::Difference(starts),
            None if codec.index_unit() == outcore_store::IndexUnit::Edges && flag == 0 => RangeDegrees::Difference(&index),
            None => RangeDegrees::Codec(&index, codec),
        };
        // the longest list bounds what the readers decode: the layout's
        // record of it, checked against the index by the pass that takes
        // the degrees below (a pass of its own where they have no room), or
        // a pass of its own now where the layout has none
        let (hubs_counted, longest) = match lay.record().longest_list {
            Some(recorded) => (None, recorded),
            None => {
                let (hubs, longest) = FastDegrees::hubs(degrees_from);
                (Some(hubs), longest)
            }
        };
        let index_longest = |found: u64| -> Result<(), StoreError> {
            if found > longest {
                return Err(StoreError::invalid(
                    store.dir().join("manifest.json"),
                    format!("layout {layout} records {longest} entries as its longest list, and its index has one of {found}"),
                ));
            }
            Ok(())
        };
        let threads = rayon::current_num_threads();
        let widest = opts.parallel_longest.map_or(longest, |p| p.min(longest));
        let narrowest = widest.min(SHARED_READER_FROM);
        let readers = |parallel| list_bytes(&lay, longest, parallel, threads);
        charges.push(budget.reserve(
            &format!(
                "the lists {threads} readers decode (up to {narrowest} entries each) and one shared reader (the longest has {longest} entries)"
            ),
            readers(narrowest),
        )?);
        // checking the files ahead of the reads, where the budget has room
        // for it beside the smallest cache (README "Every read is checked")
        // (a compressed layout without page checksums has its blocks
        // checked one by one against its block table as they are decoded:
        // the cache leaves its adjacency file to that, which reads no more
        // than the lists' blocks)
        let self_checked = usize::from(blocks.is_some() && !narrow);
        let ahead_bytes = BlockCache::check_ahead_bytes(&files[self_checked..], block);
        let ahead = ahead_bytes > 0 && budget.available() >= keep + (MIN_FRAMES * frame) as u64 + 2 * ahead_bytes;
        if ahead {
            charges.push(budget.reserve("checking the files ahead of the reads", ahead_bytes)?);
        }
        // degrees beside the index where the budget has room for them beside
        // the smallest cache: 16 bits a vertex, against a select in the
        // index for every degree asked
        // (the hubs' map is charged once the pass has counted them, where
        // the layout's longest list was recorded, and the degrees are
        // dropped if it does not fit)
        let min_cache = (MIN_FRAMES * frame) as u64;
        let fits = |bytes: u64| budget.available() >= keep + bytes + min_cache;
        let fast_degrees = if fits(FastDegrees::bytes(vertices, hubs_counted.unwrap_or(0))) {
            let short_charge = budget.reserve("degrees beside the index", FastDegrees::bytes(vertices, 0))?;
            let (short, found) = FastDegrees::short(degrees_from);
            index_longest(found.longest)?;
            let map_bytes = FastDegrees::bytes(vertices, found.hubs) - FastDegrees::bytes(vertices, 0);
            if map_bytes == 0 || fits(map_bytes) {
                charges.push(short_charge);
                if map_bytes > 0 {
                    charges.push(budget.reserve("degrees beside the index: the hubs' map", map_bytes)?);
                }
                Some(FastDegrees::with_hubs(degrees_from, short, &found))
            } else {
                None
            }
        } else {
            if hubs_counted.is_none() {
                index_longest(FastDegrees::hubs(degrees_from).1)?;
            }
            None
        };
        // longer lists on every reader where the budget has room beyond the
        // cache: all of it beyond the cache asked for, or a quarter of what
        // the smallest cache leaves
        let room = match opts.cache_bytes {
            Some(c) => budget.available().saturating_sub(keep + c.max((MIN_FRAMES * frame) as u64)),
            None => budget.available().saturating_sub(keep + (MIN_FRAMES * frame) as u64) / 4,
        };
        let parallel_longest = std::iter::once(widest)
            .chain((0..widest.max(1).ilog2()).rev().map(|b| 1u64 << b))
            .find(|&p| p <= narrowest || readers(p) - readers(narrowest) <= room)
            .unwrap_or(narrowest)
            .max(narrowest);
        if parallel_longest > narrowest {
            charges.push(budget.reserve(
                &format!("the lists the {threads} readers decode, up to {parallel_longest} entries each"),
                readers(parallel_longest) - readers(narrowest),
            )?);
        }
        let long_vertices = match &fast_degrees {
            _ if parallel_longest >= longest => Vec::new(),
            Some(fast) => fast.longer_than(parallel_longest),
            None => longer_than(degrees_from, parallel_longest),
        };
        let long_blocks = match &blocks {
            Some(table) if !long_vertices.is_empty() => {
                let mut bits = vec![0u64; table.len().div_ceil(64)];
                for &v in &long_vertices {
                    let b = table.block_of(v);
                    bits[b / 64] |= 1 << (b % 64);
                }
                Some(bits)
            }
            _ => None,
        };
        let data_bytes: u64 = files.iter().map(|f| std::fs::metadata(f).map(|m| m.len()).unwrap_or(0)).sum();
        let useful = (data_bytes.div_ceil(block as u64) as usize + files.len()).max(MIN_FRAMES);
        let mut affordable = (budget.available().saturating_sub(keep) / frame as u64) as usize;
        if let Some(c) = opts.cache_bytes {
            affordable = affordable.min((c / frame as u64) as usize);
        }
        if affordable < MIN_FRAMES {
            return Err(BudgetError {
                what: format!("the algorithm's vertex state ({}) and a block cache of {MIN_FRAMES} blocks", outcore_io::format_bytes(keep)),
                needed: keep + (MIN_FRAMES * frame) as u64,
                available: budget.available(),
                total: budget.total(),
                suggest: (budget.used() + keep + (MIN_FRAMES * frame) as u64).div_ceil(1 << 20) << 20,
            }
            .into());
        }
        let frames = useful.min(affordable);
        let cache_charge = budget.reserve("block cache", (frames * frame) as u64)?;
        let mut cache = BlockCache::new(&files, block, frames, opts.depth, opts.force_pread)?;
        if blocks.is_some() && !narrow {
            cache.checked_by_caller(ADJACENCY);
        }
        if ahead {
            cache.check_ahead();
        }
        charges.push(cache_charge);
        let codec = lay.codec();
        Ok(Traverse {
            shared: Shared {
                store_dir: store.dir().to_path_buf(),
                adjacency_path: lay.adjacency_path(),
                codec,
                vertices,
                index,
                fast_degrees,
                edge_starts,
                verified: (0..blocks.as_ref().map_or(0, |b| b.len())).map(|_| AtomicBool::new(false)).collect(),
                blocks,
                narrow,
                cache: Mutex::new(cache),
                longest_reader: Mutex::new(ReaderState::new(codec)),
                parallel_longest,
                long_blocks,
                routes: !long_vertices.is_empty(),
                lists_read_shared: AtomicU64::new(0),
                weighted,
                opts: opts.clone(),
                lists_read: AtomicU64::new(0),
                _charges: charges,
                _page_checks: page_checks,
            },
            threads,
        })
    }

    pub fn vertices(&self) -> u64 {
        self.shared.vertices
    }
    pub fn weighted(&self) -> bool {
        self.shared.weighted
    }
    pub fn backend(&self) -> Backend {
        self.shared.cache().backend()
    }

    #[inline]
    pub fn degree(&self, v: u64) -> u64 {
        self.degrees().degree(v)
    }

    /// The degrees alone, to share across threads.
    pub fn degrees(&self) -> Degrees<'_> {
        self.shared.degrees()
    }

    /// Total adjacency entries.
    pub fn arcs(&self) -> u64 {
        let s = &self.shared;
        match &s.edge_starts {
            Some(starts) => starts.get(s.vertices),
            None => s.codec.degree(s.index.get(0), s.index.get(s.vertices)).unwrap_or(0),
        }
    }

    /// Replace `out` with `v`'s neighbours.
    pub fn neighbours(&mut self, v: u64, out: &mut Vec<u64>) -> Result<(), StoreError> {
        self.shared.read_by(self.shared.own_reader(), v, out, Shared::read_list)
    }

    /// Replace `out` with the weights of `v`'s edges, in neighbour order.
    pub fn weights(&mut self, v: u64, out: &mut Vec<f32>) -> Result<(), StoreError> {
        self.shared.read_by(self.shared.own_reader(), v, out, Shared::read_weights)
    }

    /// A reader for another thread: its own decoder and buffers, this
    /// engine's index and block cache.
    pub fn reader(&self) -> Reader<'_> {
        Reader { g: self, state: ReaderState::new(self.shared.codec) }
    }

    /// Read the lists of `vertices` on every core, in consecutive pieces of
    /// the slice, each piece by a reader of its own that runs ahead over
    /// the piece. `visit(v, list, out)` sees each list once and appends
    /// what it finds to its piece's output; the outputs come back in piece
    /// order, so that, concatenated, they are what one thread visiting
    /// `vertices` in order would have found. Also returns the entries read.
    pub fn par_lists<T: Send>(
        &self,
        vertices: &[u32],
        visit: impl Fn(u32, &[u64], &mut Vec<T>) + Sync,
    ) -> Result<(Vec<Vec<T>>, u64), StoreError> {
        self.par_pieces(vertices, |reader, v, nbrs, _, found| {
            reader.neighbours(v as u64, nbrs)?;
            visit(v, nbrs, found);
            Ok(())
        })
    }

    /// [`Traverse::par_lists`] with each list's weights, in neighbour order.
    pub fn par_weighted_lists<T: Send>(
        &self,
        vertices: &[u32],
        visit: impl Fn(u32, &[u64], &[f32], &mut Vec<T>) + Sync,
    ) -> Result<(Vec<Vec<T>>, u64), StoreError> {
        self.par_pieces(vertices, |reader, v, nbrs, weights, found| {
            reader.neighbours(v as u64, nbrs)?;
            reader.weights(v as u64, weights)?;
            visit(v, nbrs, weights, found);
            Ok(())
        })
    }

    #[allow(clippy::type_complexity)]
    fn par_pieces<T: Send>(
        &self,
        vertices: &[u32],
        read: impl Fn(&mut Reader<'_>, u32, &mut Vec<u64>, &mut Vec<f32>, &mut Vec<T>) -> Result<(), StoreError> + Sync,
    ) -> Result<(Vec<Vec<T>>, u64), StoreError> {
        // no more threads than the budget has readers for
        let workers = self.threads.min(rayon::current_num_threads()).max(1);
        let piece = if workers == 1 { vertices.len().max(1) } else { vertices.len().div_ceil(4 * workers).max(MIN_PIECE) };
        let pieces: Vec<&[u32]> = vertices.chunks(piece).collect();
        let read_piece = |reader: &mut Reader<'_>, list: &[u32]| -> Result<(Vec<T>, u64), StoreError> {
            let mut ahead = Lookahead::default();
            let (mut nbrs, mut weights, mut found, mut entries) = (Vec::new(), Vec::new(), Vec::new(), 0u64);
            for head in 0..list.len() {
                ahead.before(self, list, head)?;
                read(reader, list[head], &mut nbrs, &mut weights, &mut found)?;
                entries += nbrs.len() as u64;
            }
            Ok((found, entries))
        };
        let mut done: Vec<(usize, (Vec<T>, u64))> = if workers == 1 || pieces.len() <= 1 {
            let mut reader = self.reader();
            pieces.iter().enumerate().map(|(i, p)| Ok((i, read_piece(&mut reader, p)?))).collect::<Result<_, StoreError>>()?
        } else {
            // each worker takes the next piece until none is left
            use rayon::prelude::*;
            let next = std::sync::atomic::AtomicUsize::new(0);
            let per_worker: Vec<Vec<_>> = (0..workers)
                .into_par_iter()
                .map(|_| {
                    let mut reader = self.reader();
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Relaxed);
                        let Some(p) = pieces.get(i) else { return Ok(done) };
                        done.push((i, read_piece(&mut reader, p)?));
                    }
                })
                .collect::<Result<_, StoreError>>()?;
            let mut all: Vec<_> = per_worker.into_iter().flatten().collect();
            all.sort_unstable_by_key(|(i, _)| *i);
            all
        };
        let read = done.iter().map(|(_, p)| p.1).sum();
        Ok((done.drain(..).map(|(_, p)| p.0).collect(), read))
    }

    /// Issue reads for the blocks of `upcoming` vertices, in order, until
    /// the device has `depth` reads in flight. Adjacent vertices' blocks are
    /// merged into runs read by one request each. Returns how many
    /// vertices were fully handled, so the caller can advance its cursor.
    pub fn run_ahead(&self, upcoming: impl IntoIterator<Item = u64>) -> Result<usize, StoreError> {
        self.shared.run_ahead(upcoming)
    }

    /// Whether the prefetcher is on.
    pub fn prefetching(&self) -> bool {
        self.shared.opts.prefetch
    }
    /// How far ahead the algorithm should look.
    pub fn max_ahead(&self) -> usize {
        self.shared.opts.max_ahead
    }

    pub fn stats(&self) -> TraverseStats {
        let s = &self.shared;
        let cache = s.cache();
        TraverseStats {
            cache: cache.stats.clone(),
            cache_bytes: (cache.frames() * cache.block_size()) as u64,
            io_backend: cache.backend().name().to_string(),
            lists_read: s.lists_read.load(Relaxed),
            index_bytes: s.index.memory_bytes() + s.edge_starts.as_ref().map_or(0, |s| s.memory_bytes()),
            fast_degree_bytes: s.fast_degrees.as_ref().map_or(0, |f| f.bytes),
            parallel_longest: s.parallel_longest,
            lists_read_shared: s.lists_read_shared.load(Relaxed),
        }
    }
}

/// Fewest vertices [`Traverse::par_lists`] gives a thread at a time.
const MIN_PIECE: usize = 256;

impl Shared {
    /// The block cache. (A reader that panics while holding it takes the
    /// whole run down with it: rayon passes the panic to the caller, and
    /// the engine's drop only waits for the reads in flight.)
    fn cache(&self) -> MutexGuard<'_, BlockCache> {
        self.cache.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The file bytes to fetch for `v`'s list, whose index entries are
    /// `lo..hi`: for blocked codecs, its block, or where lists are read
    /// narrow ([`Shared::reach`]) the bytes from the first list it may
    /// refer to.
    fn fetch_range(&self, v: u64, lo: u64, hi: u64) -> (u64, u64) {
        match &self.blocks {
            Some(t) if self.narrow => {
                let (_, b0, b1) = self.reach(t.get(t.block_of(v)), v, lo, hi);
                (b0, b1)
            }
            Some(t) => {
                let b = t.get(t.block_of(v));
                (b.first_byte, b.end_byte)
            }
            None => self.codec.byte_range(lo, hi),
        }
    }

    /// What decoding `v`'s list (index entries `lo..hi`) of `block` may
    /// read, where lists are read narrow: from the first list it may refer
    /// to (inside the block) to its end and 8 bytes more inside the block
    /// (the decoders load 8 bytes at a time, and take a slower path near
    /// the end of what they are given). The first vertex and bytes.
    fn reach(&self, block: Block, v: u64, lo: u64, hi: u64) -> (u64, u64, u64) {
        let first = v.saturating_sub(self.codec.reference_reach()).max(block.first_vertex);
        let from = if first == v { lo } else { self.index.get(first) };
        let (b0, b1) = self.codec.byte_range(from, hi);
        (first, b0, (b1 + 8).min(block.end_byte).max(b1))
    }

    fn degrees(&self) -> Degrees<'_> {
        Degrees { fast: self.fast_degrees.as_ref(), edge_starts: self.edge_starts.as_ref(), index: &self.index, codec: self.codec }
    }

    /// The reader of the longest lists, for a list another reader was
    /// not charged for.
    fn longest_reader(&self) -> MutexGuard<'_, ReaderState> {
        self.lists_read_shared.fetch_add(1, Relaxed);
        self.own_reader()
    }

    /// The reader of the longest lists. (As with the cache, a panic while
    /// it is held takes the whole run down.)
    fn own_reader(&self) -> MutexGuard<'_, ReaderState> {
        self.longest_reader.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// After the shared reader read a list: where the other readers leave
    /// it the longer lists, its decoder lets go of what it kept beyond
    /// their length (it is charged for the longest list in flight only,
    /// [`Layout::list_bytes_releasing`]).
    ///
    /// [`Layout::list_bytes_releasing`]: outcore_store::Layout::list_bytes_releasing
    fn release(&self, reader: &mut ReaderState) {
        if self.routes {
            reader.decoder.release_above(self.parallel_longest as usize);
        }
    }

    /// `read` of `v` into `out` by the shared reader (`reader`, its lock
    /// held), then [`Shared::release`].
    fn read_by<T>(
        &self,
        mut reader: MutexGuard<'_, ReaderState>,
        v: u64,
        out: &mut Vec<T>,
        read: fn(&Self, &mut ReaderState, u64, &mut Vec<T>) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let result = read(self, &mut reader, v, out);
        self.release(&mut reader);
        result
    }

    /// Whether `v`'s list is for the shared reader of the longest lists:
    /// it is longer than the other readers were charged for, or (blocked
    /// codecs) its block holds such a list.
    #[inline]
    fn read_alone(&self, v: u64) -> bool {
        if !self.routes {
            return false;
        }
        match (&self.long_blocks, &self.blocks) {
            (Some(bits), Some(table)) => {
                let b = table.block_of(v);
                bits[b / 64] >> (b % 64) & 1 == 1
            }
            _ => self.degrees().degree(v) > self.parallel_longest,
        }
    }

    /// `v`'s neighbours, read by `st` or, if it is not charged for them,
    /// by the shared reader of the longest lists.
    fn neighbours(&self, st: &mut ReaderState, v: u64, out: &mut Vec<u64>) -> Result<(), StoreError> {
        if self.read_alone(v) {
            return self.read_by(self.longest_reader(), v, out, Self::read_list);
        }
        self.read_list(st, v, out)
    }

    /// `v`'s weights, as [`Shared::neighbours`] reads its list.
    fn weights(&self, st: &mut ReaderState, v: u64, out: &mut Vec<f32>) -> Result<(), StoreError> {
        if self.read_alone(v) {
            return self.read_by(self.longest_reader(), v, out, Self::read_weights);
        }
        self.read_weights(st, v, out)
    }

    /// `v`'s neighbours, read by `st` (whichever list it is).
    fn read_list(&self, st: &mut ReaderState, v: u64, out: &mut Vec<u64>) -> Result<(), StoreError> {
        let (lo, hi) = self.index.range(v);
        out.clear();
        // no bits and no flag (a CEESOR self loop takes no bits)
        if self.codec.position(lo) == self.codec.position(hi) && lo == self.codec.position(lo) {
            return Ok(());
        }
        self.lists_read.fetch_add(1, Relaxed);
        let index = &self.index;
        let entry = |u: u64| index.range(u);
        let (bytes, first_byte, first_vertex, block) = match &self.blocks {
            Some(table) if self.narrow => {
                let block = table.get(table.block_of(v));
                let (first_vertex, b0, b1) = self.reach(block, v, lo, hi);
                st.bytes.clear();
                self.cache().read_range(ADJACENCY, b0, b1, &mut st.bytes)?;
                (&st.bytes, b0, first_vertex, Some(block))
            }
            Some(table) => {
                let number = table.block_of(v);
                let block = table.get(number);
                if st.current_block != Some(number) {
                    st.current_block = None;
                    st.block_bytes.clear();
                    self.cache().read_range(ADJACENCY, block.first_byte, block.end_byte, &mut st.block_bytes)?;
                    if !self.verified[number].load(Relaxed) {
                        block.verify(&self.adjacency_path, &st.block_bytes)?;
                        self.verified[number].store(true, Relaxed);
                    }
                    st.current_block = Some(number);
                }
                (&st.block_bytes, block.first_byte, block.first_vertex, Some(block))
            }
            None => {
                let (b0, b1) = self.codec.byte_range(lo, hi);
                st.bytes.clear();
                self.cache().read_range(ADJACENCY, b0, b1, &mut st.bytes)?;
                (&st.bytes, b0, v, None)
            }
        };
        let src = ListSource { vertices: self.vertices, bytes, first_byte, first_vertex, entry: &entry };
        let place = || block.map(|b| format!("{}, ", b.describe())).unwrap_or_default();
        st.decoder
            .decode(v, lo, hi, &src, out)
            .map_err(|e| StoreError::invalid(&self.adjacency_path, format!("{}vertex {v}: {e}", place())))?;
        if let Some(&u) = out.iter().find(|&&u| u >= self.vertices) {
            return Err(StoreError::invalid(
                &self.adjacency_path,
                format!("{}vertex {v} has neighbour {u}, beyond the store's {} vertices", place(), self.vertices),
            ));
        }
        Ok(())
    }

    /// `v`'s weights, read by `st` (whichever list it is).
    fn read_weights(&self, st: &mut ReaderState, v: u64, out: &mut Vec<f32>) -> Result<(), StoreError> {
        out.clear();
        if !self.weighted {
            return Err(StoreError::NoWeights { store: self.store_dir.clone(), reader: "this traversal".into() });
        }
        let (lo, hi) = match &self.edge_starts {
            Some(s) => s.range(v),
            None => self.index.range(v),
        };
        st.bytes.clear();
        self.cache().read_range(WEIGHTS, lo * 4, hi * 4, &mut st.bytes)?;
        out.extend(st.bytes.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())));
        if !self.codec.reorders_weights() {
            return Ok(());
        }
        let mut list = std::mem::take(&mut st.list);
        self.read_list(st, v, &mut list)?;
        if self.codec.storage_order(v, &list, &mut st.perm) {
            let stored = out.clone();
            for (s, &i) in st.perm.iter().enumerate() {
                out[i] = stored[s];
            }
        }
        st.list = list;
        Ok(())
    }

    fn run_ahead(&self, upcoming: impl IntoIterator<Item = u64>) -> Result<usize, StoreError> {
        if !self.opts.prefetch {
            return Ok(0);
        }
        let mut cache = self.cache();
        let bs = cache.block_size() as u64;
        let max_run = outcore_io::cache::MAX_RUN as u64;
        // the pending run of adjacency blocks and the vertices it covers
        let (mut run, mut covered, mut done) = (None::<(u64, u64)>, 0usize, 0usize);
        for v in upcoming.into_iter().take(self.opts.max_ahead) {
            let (lo, hi) = self.index.range(v);
            if lo != hi {
                let (w0, w1) = match &self.edge_starts {
                    Some(s) => s.range(v),
                    None => (lo, hi),
                };
                if self.weighted && w1 > w0 {
                    for b in (w0 * 4) / bs..=(w1 * 4 - 1) / bs {
                        if !cache.prefetch(WEIGHTS, b)? {
                            break;
                        }
                    }
                }
                let (b0, b1) = self.fetch_range(v, lo, hi);
                let (b0, b1) = (b0 / bs, (b1.max(b0 + 1) - 1) / bs);
                run = match run {
                    Some((s, e)) if b0 <= e + 1 && b1.max(e) - s < max_run => Some((s, b1.max(e))),
                    Some((s, e)) => {
                        if !cache.prefetch_run(ADJACENCY, s, e)? {
                            cache.submit()?;
                            return Ok(done);
                        }
                        done += covered;
                        covered = 0;
                        Some((b0, b1))
                    }
                    None => Some((b0, b1)),
                };
            }
            covered += 1;
        }
        if let Some((s, e)) = run {
            if cache.prefetch_run(ADJACENCY, s, e)? {
                done += covered;
            }
        } else {
            done += covered;
        }
        cache.submit()?;
        Ok(done)
    }
}

/// Vertices between two top-ups of a [`Lookahead`] that has some to spare.
const TOP_UP: usize = 16;

/// A run-ahead cursor over a list of vertices the algorithm will visit in
/// order (a BFS queue or frontier): before each visit it prefetches the
/// blocks of the vertices after it, never re-issuing what it already did.
#[derive(Default)]
pub struct Lookahead {
    ahead: usize,
}

impl Lookahead {
    /// Call before visiting `list[head]`. It tops the prefetches up every
    /// [`TOP_UP`] vertices, or when they are about to run out: each top-up
    /// takes the cache's lock, which the engine's other threads share.
    pub fn before(&mut self, g: &Traverse, list: &[u32], head: usize) -> Result<(), StoreError> {
        if !g.prefetching() {
            return Ok(());
        }
        self.ahead = self.ahead.max(head + 1);
        let end = list.len().min(head + g.max_ahead());
        if self.ahead < end && (head.is_multiple_of(TOP_UP) || self.ahead <= head + TOP_UP) {
            self.ahead += g.run_ahead(list[self.ahead..end].iter().map(|&v| v as u64))?;
        }
        Ok(())
    }
}

/// Memory of the lists `threads` readers (each decoding lists of at most
/// `parallel_longest` entries, and given lists of up to `longest` by the
/// shared reader) and the shared reader of the longest lists decode at
/// once ([`Layout::list_bytes`]).
///
/// [`Layout::list_bytes`]: outcore_store::Layout::list_bytes
fn list_bytes(lay: &outcore_store::Layout, longest: u64, parallel_longest: u64, threads: usize) -> u64 {
    // what a reader hands its caller: the neighbours, 8 bytes each, and their weights
    let given = |entries: u64| entries * if lay.weights_path().is_some() { 8 + 4 } else { 8 };
    let reader = lay.list_bytes(parallel_longest) - given(parallel_longest) + given(longest);
    // the shared reader: the longest list in flight, and what its decoder
    // keeps between lists up to the others' length (Shared::release)
    threads as u64 * reader + lay.list_bytes_releasing(longest, parallel_longest)
}

/// The vertices whose lists have more than `entries` entries (one pass
/// over the index on every core).
fn longer_than(from: RangeDegrees<'_>, entries: u64) -> Vec<u64> {
    match from {
        RangeDegrees::Difference(ranges) => longer_than_by(ranges, entries, |lo, hi| hi - lo),
        RangeDegrees::Codec(ranges, codec) => longer_than_by(ranges, entries, |lo, hi| codec.degree(lo, hi).unwrap_or(0)),
    }
}

fn longer_than_by(ranges: &CompactIndex, entries: u64, degree: impl Fn(u64, u64) -> u64 + Sync) -> Vec<u64> {
    let vertices = ranges.len().saturating_sub(1);
    let chunk = FastDegrees::CHUNK;
    (0..vertices.div_ceil(chunk))
        .into_par_iter()
        .flat_map_iter(|c| {
            let mut long = Vec::new();
            ranges.for_each_range_in(c * chunk, (c + 1) * chunk, |v, lo, hi| {
                if degree(lo, hi) > entries {
                    long.push(v);
                }
            });
            long
        })
        .collect()
}

/// The first edge of every vertex, from `lay`'s degrees file (`path`), in
/// one pass: the store's `arcs` bound the sequence, and the degrees must
/// sum to exactly that.
fn edge_starts(lay: &outcore_store::Layout, path: &std::path::Path, arcs: u64, budget: &Budget) -> Result<CompactIndex, StoreError> {
    let vertices = lay.vertices();
    if lay.record().index_format == outcore_store::IndexFormat::U64 && std::fs::metadata(path).map(|m| m.len()).unwrap_or(0) != vertices * 4
    {
        return Err(StoreError::invalid(path, format!("is not {vertices} u32 degrees")));
    }
    let sum_error = |total: String| StoreError::invalid(path, format!("degrees sum to {total}, the store has {arcs} arcs"));
    let starts = match lay.edge_starts()?.ok_or_else(|| StoreError::invalid(path, "is not a layout's degrees"))? {
        // its largest entry is its last, checked against the arcs below
        EdgeStarts::EliasFano(cursor) => CompactIndex::load(cursor, budget)?,
        mut degrees => CompactIndex::build(path, vertices + 1, arcs, 0, budget, |push| {
            degrees.for_each(vertices, |at| if at > arcs { Err(sum_error(format!("more than {arcs}"))) } else { push(at) })
        })?,
    };
    let total = starts.get(vertices);
    if total != arcs {
        return Err(sum_error(total.to_string()));
    }
    Ok(starts)
}

/// A traverse engine's degrees, without its cache (`Sync`).
#[derive(Clone, Copy)]
pub struct Degrees<'a> {
    fast: Option<&'a FastDegrees>,
    edge_starts: Option<&'a CompactIndex>,
    index: &'a CompactIndex,
    codec: &'static dyn Codec,
}

impl Degrees<'_> {
    #[inline]
    pub fn degree(&self, v: u64) -> u64 {
        match (self.fast, self.edge_starts) {
            (Some(fast), _) => fast.get(v),
            (None, Some(starts)) => {
                let (lo, hi) = starts.range(v);
                hi - lo
            }
            (None, None) => {
                let (lo, hi) = self.index.range(v);
                self.codec.degree(lo, hi).expect("codec with degrees in the index")
            }
        }
    }

    /// The degrees of `first..first + out.len()` into `out` (vertices past
    /// the last get 0): where they are not kept beside the index, one
    /// select and a pass over the entries, not two selects a vertex.
    pub fn fill(&self, first: u64, out: &mut [u64]) {
        out.fill(0);
        self.for_each_in(first, first + out.len() as u64, |v, d| out[(v - first) as usize] = d);
    }

    /// Calls `f(v, degree)` for the vertices `first..end` below the last, in
    /// order: where the degrees are not kept beside the index, one select
    /// and a pass over the entries.
    pub fn for_each_in(&self, first: u64, end: u64, mut f: impl FnMut(u64, u64)) {
        match (self.fast, self.edge_starts) {
            (Some(fast), _) => {
                for v in first..end.min(fast.short.len() as u64) {
                    f(v, fast.get(v));
                }
            }
            (None, Some(starts)) => starts.for_each_range_in(first, end, |v, lo, hi| f(v, hi - lo)),
            (None, None) => self
                .index
                .for_each_range_in(first, end, |v, lo, hi| f(v, self.codec.degree(lo, hi).expect("codec with degrees in the index"))),
        }
    }

    /// The sum of the degrees of the vertices set in `bits`, on every core.
    /// Where the degrees are not kept beside the index, a stretch of
    /// [`Self::SUM_STRETCH`] vertices with more than one in
    /// [`Self::SELECTS_PER_PASS`] set is summed by one pass over its
    /// entries (a few nanoseconds each) rather than by a select per vertex
    /// (two or three cache misses).
    pub fn sum_over(&self, bits: &Bitmap) -> u64 {
        let words = (Self::SUM_STRETCH / 64) as usize;
        bits.words()
            .par_chunks(words)
            .enumerate()
            .map(|(c, stretch)| {
                let set: u64 = stretch.iter().map(|w| w.count_ones() as u64).sum();
                let first = c as u64 * Self::SUM_STRETCH;
                if set == 0 {
                    0
                } else if self.fast.is_none() && set * Self::SELECTS_PER_PASS > Self::SUM_STRETCH {
                    let mut sum = 0;
                    self.for_each_in(first, first + stretch.len() as u64 * 64, |v, d| {
                        sum += (stretch[((v - first) / 64) as usize] >> (v % 64) & 1) * d
                    });
                    sum
                } else {
                    let mut sum = 0;
                    for (i, &word) in stretch.iter().enumerate() {
                        let mut word = word;
                        while word != 0 {
                            sum += self.degree(first + i as u64 * 64 + word.trailing_zeros() as u64);
                            word &= word - 1;
                        }
                    }
                    sum
                }
            })
            .sum()
    }

    /// Vertices per task of [`Self::sum_over`].
    pub const SUM_STRETCH: u64 = 1 << 16;
    /// A select costs about as much as this many entries of a pass.
    pub const SELECTS_PER_PASS: u64 = 16;
}

/// Hot lists are ranked by a traverse engine's degrees.
impl outcore_store::hot::RankDegrees for Degrees<'_> {
    fn vertices(&self) -> u64 {
        self.index.len().saturating_sub(1)
    }
    /// One pass over the index (or the kept degrees), not a select a vertex.
    fn for_each_degree(&self, f: &mut dyn FnMut(u64, u64)) {
        self.for_each_in(0, outcore_store::hot::RankDegrees::vertices(self), f)
    }
    #[inline]
    fn degree(&self, u: u64) -> u64 {
        Degrees::degree(self, u)
    }
    /// Where the degrees are kept beside the index (a select in the index
    /// is left alone).
    #[inline]
    fn prefetch(&self, u: u64) {
        if let Some(fast) = self.fast {
            outcore_io::prefetch(&fast.short, u as usize);
        }
    }
}

/// Where a layout's degrees come from: the difference of consecutive
/// entries (edge starts, or an index counted in edges without flag bits),
/// or what the codec makes of a list's index entries. A pass over every
/// vertex's degree is written once per kind, so the difference is inlined
/// into it.
#[derive(Clone, Copy)]
enum RangeDegrees<'a> {
    Difference(&'a CompactIndex),
    Codec(&'a CompactIndex, &'static dyn Codec),
}

impl RangeDegrees<'_> {
    /// One vertex's degree (the passes over every vertex inline theirs).
    fn degree_of(&self, v: u64) -> u64 {
        match *self {
            RangeDegrees::Difference(ranges) => {
                let (lo, hi) = ranges.range(v);
                hi - lo
            }
            RangeDegrees::Codec(ranges, codec) => {
                let (lo, hi) = ranges.range(v);
                codec.degree(lo, hi).unwrap_or(0)
            }
        }
    }
}

/// Degrees taken from the index once: 16 bits each, and a hash map for
/// the few of at least 65,535. (A byte each with the hubs of degree 255 or
/// more in the map took 1.44x as long to rank a Kronecker graph's lists at
/// scale 24: most entries name a hub, and a map lookup costs two cache
/// misses.)
struct FastDegrees {
    /// What the budget was charged.
    bytes: u64,
    short: Vec<u16>,
    long: std::collections::HashMap<u64, u64, std::hash::BuildHasherDefault<SpreadHasher>>,
}

impl FastDegrees {
    /// Vertices per task of the passes over the index.
    const CHUNK: u64 = 1 << 20;

    /// Vertices of degree at least 65,535, and the largest degree (one
    /// pass over the index on every core).
    fn hubs(from: RangeDegrees<'_>) -> (u64, u64) {
        match from {
            RangeDegrees::Difference(ranges) => Self::hubs_by(ranges, |lo, hi| hi - lo),
            RangeDegrees::Codec(ranges, codec) => Self::hubs_by(ranges, |lo, hi| codec.degree(lo, hi).unwrap_or(0)),
        }
    }

    fn hubs_by(ranges: &CompactIndex, degree: impl Fn(u64, u64) -> u64 + Sync) -> (u64, u64) {
        let vertices = ranges.len().saturating_sub(1);
        (0..vertices.div_ceil(Self::CHUNK))
            .into_par_iter()
            .map(|c| {
                let (mut hubs, mut longest) = (0u64, 0u64);
                ranges.for_each_range_in(c * Self::CHUNK, (c + 1) * Self::CHUNK, |_, lo, hi| {
                    let d = degree(lo, hi);
                    hubs += (d >= u16::MAX as u64) as u64;
                    longest = longest.max(d);
                });
                (hubs, longest)
            })
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1.max(b.1)))
    }

    /// Bytes for the degrees of `vertices` vertices with `hubs` hubs.
    fn bytes(vertices: u64, hubs: u64) -> u64 {
        // hashbrown: a power of two of buckets at most 7/8 full, 16 bytes and a control byte each
        let buckets = if hubs == 0 { 0 } else { (hubs * 8 / 7 + 1).next_power_of_two().max(4) };
        vertices * 2 + buckets * 17 + 64
    }

    /// The 16-bit degrees, a pass over the index on every core, which
    /// also finds the hubs and the largest degree.
    fn short(from: RangeDegrees<'_>) -> (Vec<u16>, HubsFound) {
        match from {
            RangeDegrees::Difference(ranges) => Self::short_by(ranges, |lo, hi| hi - lo),
            RangeDegrees::Codec(ranges, codec) => Self::short_by(ranges, |lo, hi| codec.degree(lo, hi).unwrap_or(0)),
        }
    }

    fn short_by(ranges: &CompactIndex, degree: impl Fn(u64, u64) -> u64 + Sync) -> (Vec<u16>, HubsFound) {
        let vertices = ranges.len().saturating_sub(1);
        // written once, then looked up once per arc ranked or summed
        let mut short = vec![0u16; vertices as usize];
        outcore_io::huge::advise_huge_pages(&mut short);
        let chunks: Vec<HubsFound> = short
            .par_chunks_mut(Self::CHUNK as usize)
            .enumerate()
            .map(|(c, part)| {
                let first = c as u64 * Self::CHUNK;
                let mut found = HubsFound::NONE;
                ranges.for_each_range_in(first, first + part.len() as u64, |v, lo, hi| {
                    let d = degree(lo, hi);
                    part[(v - first) as usize] = d.min(u16::MAX as u64) as u16;
                    found.longest = found.longest.max(d);
                    if d >= u16::MAX as u64 {
                        found.hubs += 1;
                        found.first = found.first.min(v);
                        found.end = v + 1;
                    }
                });
                found
            })
            .collect();
        (short, chunks.into_iter().fold(HubsFound::NONE, HubsFound::and))
    }

    /// The degrees from their 16-bit `short` (from [`Self::short`], which
    /// `found` the hubs), the hubs' into the map (charged at
    /// [`Self::bytes`] with `found.hubs`).
    fn with_hubs(from: RangeDegrees<'_>, short: Vec<u16>, found: &HubsFound) -> Self {
        let mut long = std::collections::HashMap::with_capacity_and_hasher(found.hubs as usize, Default::default());
        if found.hubs > 0 {
            for v in (found.first..found.end).filter(|&v| short[v as usize] == u16::MAX) {
                long.insert(v, from.degree_of(v));
            }
        }
        FastDegrees { bytes: Self::bytes(short.len() as u64, found.hubs), short, long }
    }

    /// The vertices of degree more than `entries`, on every core.
    fn longer_than(&self, entries: u64) -> Vec<u64> {
        self.short
            .par_chunks(Self::CHUNK as usize)
            .enumerate()
            .flat_map_iter(|(c, part)| {
                let first = c as u64 * Self::CHUNK;
                (first..first + part.len() as u64).filter(move |&v| self.get(v) > entries)
            })
            .collect()
    }

    #[inline]
    fn get(&self, v: u64) -> u64 {
        match self.short[v as usize] {
            u16::MAX => self.long[&v],
            d => d as u64,
        }
    }
}

/// What [`FastDegrees::short`]'s pass found: the vertices of degree at
/// least 65,535, the largest degree, and the vertices `first..end` that
/// hold the hubs (`first` > `end` if none).
struct HubsFound {
    hubs: u64,
    longest: u64,
    first: u64,
    end: u64,
}

impl HubsFound {
    const NONE: HubsFound = HubsFound { hubs: 0, longest: 0, first: u64::MAX, end: 0 };

    /// What two stretches of vertices found, together.
    fn and(self, other: HubsFound) -> HubsFound {
        HubsFound {
            hubs: self.hubs + other.hubs,
            longest: self.longest.max(other.longest),
            first: self.first.min(other.first),
            end: self.end.max(other.end),
        }
    }
}

/// A multiplicative hash for vertex ids (spreads consecutive ids over the
/// table's control bits).
#[derive(Default)]
struct SpreadHasher(u64);

impl std::hash::Hasher for SpreadHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (x ^ (x >> 29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// The last entry of `lay`'s index (read ahead of the index itself, to
/// size the Elias-Fano sequence; the index checks it again as it streams)
/// and the mask of the codec's flag bits. An index of the wrong length is
/// an error.
fn last_entry(lay: &outcore_store::Layout) -> Result<(u64, u64), StoreError> {
    Ok((lay.last_index_entry()?, lay.index_flag()))
}

/// The index of `lay`, loaded (positions never decrease: [`CompactIndex`]
/// checked that): its last entry is the one read ahead, and it ends inside
/// the adjacency file.
fn check_index(lay: &outcore_store::Layout, index: &CompactIndex, last_read_ahead: u64) -> Result<(), StoreError> {
    let codec = lay.codec();
    let adjacency = std::fs::metadata(lay.adjacency_path()).map(|m| m.len()).unwrap_or(0);
    let (first, last) = (index.get(0), index.get(index.len() - 1));
    if last != last_read_ahead {
        return Err(StoreError::invalid(
            lay.index_path(),
            format!("changed while it was read (last entry {last_read_ahead}, then {last})"),
        ));
    }
    if codec.position(last) > adjacency.saturating_mul(8) || codec.byte_range(first, last).1 > adjacency {
        return Err(StoreError::invalid(
            lay.index_path(),
            format!("ends at entry {last}, beyond the {adjacency} bytes of {}", lay.adjacency_path().display()),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The degrees' charge covers their hub map as the standard library
    /// builds it: from the map's own capacity, its buckets (a power of
    /// two, at most 7/8 full from 8 on, one left free below) of 16 bytes
    /// and a control byte each, for few hubs and many; and no more than
    /// twice that.
    #[test]
    fn the_hub_map_is_charged_its_buckets() {
        for hubs in [1u64, 3, 7, 8, 100, 1_000, 100_000] {
            let mut long: std::collections::HashMap<u64, u64, std::hash::BuildHasherDefault<SpreadHasher>> =
                std::collections::HashMap::with_capacity_and_hasher(hubs as usize, Default::default());
            (0..hubs).for_each(|v| {
                long.insert(v * 7, v);
            });
            let capacity = long.capacity() as u64;
            let buckets = if capacity < 7 { capacity + 1 } else { (capacity * 8 / 7).next_power_of_two() };
            let charged = FastDegrees::bytes(10, hubs) - 10 * 2;
            assert!(charged >= buckets * 17, "{hubs} hubs: {charged} bytes charged, {buckets} buckets of 17");
            // and not much more: at most twice the buckets
            assert!(charged <= 2 * buckets * 17 + 64, "{hubs} hubs: {charged} bytes charged, {buckets} buckets of 17");
        }
    }

    /// The degrees' one pass over an index of four of its tasks' chunks,
    /// with hubs in the first (the largest degree, and one at its last
    /// vertex) and the third, none in the last, and a vertex of degree
    /// 65,534 just short of one: every degree comes back, the pass counts
    /// the hubs and the largest degree, and the vertices longer than a
    /// bound are those of the degrees.
    #[test]
    fn the_degrees_pass_finds_hubs_in_every_chunk() {
        let n = 3 * FastDegrees::CHUNK + 5;
        let degree = |v: u64| match v {
            5 => 200_000,
            7 => u16::MAX as u64 - 1,
            v if v == FastDegrees::CHUNK - 1 => u16::MAX as u64,
            v if v == 2 * FastDegrees::CHUNK + 11 => 70_000,
            v => v % 5,
        };
        let total: u64 = (0..n).map(degree).sum();
        let index = CompactIndex::build(std::path::Path::new("test"), n + 1, total, 0, &Budget::new(1 << 30), |push| {
            let mut at = 0;
            push(0)?;
            for v in 0..n {
                at += degree(v);
                push(at)?;
            }
            Ok(())
        })
        .unwrap();
        let (short, found) = FastDegrees::short(RangeDegrees::Difference(&index));
        assert_eq!((found.hubs, found.longest), (3, 200_000));
        // and the pass of its own (no room for the degrees, or no record)
        assert_eq!(FastDegrees::hubs(RangeDegrees::Difference(&index)), (3, 200_000));
        let fast = FastDegrees::with_hubs(RangeDegrees::Difference(&index), short, &found);
        assert_eq!(fast.long.len(), 3);
        for v in 0..n {
            assert_eq!(fast.get(v), degree(v), "degree of {v}");
        }
        for bound in [3, u16::MAX as u64 - 1, 100_000] {
            let want: Vec<u64> = (0..n).filter(|&v| degree(v) > bound).collect();
            assert_eq!(fast.longer_than(bound), want, "longer than {bound}");
        }
    }
}
