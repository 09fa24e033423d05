//! The traverse engine: semi-external graph access with run-ahead
//! prefetching (RASP, TR-823 section 6).
//!
//! The algorithm calls [`Traverse::run_ahead`] with the vertices it will
//! visit next (its FIFO, the top of its heap, its cursor); the engine issues
//! reads for their blocks until the device holds `depth` requests, skips
//! blocks already cached or in flight (the paper could not), and coalesces
//! vertices that share a block into one read. Results never depend on it:
//! `neighbours` reads whatever is missing on demand.

use outcore_io::{Backend, BlockCache, Budget, BudgetError, CacheStats, Reservation};
use outcore_store::{Codec, IndexUnit, Store, StoreError};
use serde::Serialize;

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
}

impl Default for TraverseOptions {
    fn default() -> Self {
        TraverseOptions { block_bytes: 4096, depth: 64, prefetch: true, force_pread: false, max_ahead: 4096, cache_bytes: None }
    }
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct TraverseStats {
    pub cache: CacheStats,
    pub cache_bytes: u64,
    pub io_backend: String,
    /// Neighbour lists read through the cache.
    pub lists_read: u64,
}

const ADJACENCY: u32 = 0;
const WEIGHTS: u32 = 1;

pub struct Traverse {
    codec: &'static dyn Codec,
    vertices: u64,
    index: Vec<u64>,
    cache: BlockCache,
    weighted: bool,
    bytes: Vec<u8>,
    opts: TraverseOptions,
    lists_read: u64,
    _charges: Vec<Reservation>,
}

/// The smallest cache the engine runs with.
const MIN_FRAMES: usize = 64;

impl Traverse {
    /// Open `layout` of `store`. The vertex index (8 bytes per vertex) is
    /// loaded into memory; the cache takes what the budget has left beyond
    /// `keep` bytes, which the algorithm reserves for its own state.
    pub fn open(store: &Store, layout: &str, budget: &Budget, opts: &TraverseOptions, keep: u64) -> Result<Self, StoreError> {
        let lay = store.layout(layout)?;
        let vertices = store.vertices();
        let index_charge = budget.reserve("vertex index", (vertices + 1) * 8)?;
        let mut index = Vec::with_capacity(vertices as usize + 1);
        outcore_io::SeqReader::for_each_u64(&lay.index_path(), |x| {
            index.push(x);
            Ok(())
        })?;
        if index.len() as u64 != vertices + 1 {
            return Err(StoreError::invalid(lay.index_path(), format!("holds {} entries, expected {}", index.len(), vertices + 1)));
        }
        let mut files = vec![lay.adjacency_path()];
        let weighted = lay.weights_path().is_some();
        if let Some(w) = lay.weights_path() {
            if lay.codec().index_unit() != IndexUnit::Edges {
                return Err(StoreError::invalid(store.dir(), "weights with a bit-level index are not supported by the traverse engine"));
            }
            files.push(w);
        }
        let block = opts.block_bytes;
        let data_bytes: u64 = files.iter().map(|f| std::fs::metadata(f).map(|m| m.len()).unwrap_or(0)).sum();
        let useful = (data_bytes.div_ceil(block as u64) as usize + files.len()).max(MIN_FRAMES);
        let mut affordable = (budget.available().saturating_sub(keep) / block as u64) as usize;
        if let Some(c) = opts.cache_bytes {
            affordable = affordable.min((c / block as u64) as usize);
        }
        if affordable < MIN_FRAMES {
            return Err(BudgetError {
                what: format!("the algorithm's vertex state ({}) and a block cache of {MIN_FRAMES} blocks", outcore_io::format_bytes(keep)),
                needed: keep + (MIN_FRAMES * block) as u64,
                available: budget.available(),
                total: budget.total(),
                suggest: (budget.used() + keep + (MIN_FRAMES * block) as u64).div_ceil(1 << 20) << 20,
            }
            .into());
        }
        let frames = useful.min(affordable);
        let cache_charge = budget.reserve("block cache", (frames * block) as u64)?;
        let cache = BlockCache::new(&files, block, frames, opts.depth, opts.force_pread)?;
        Ok(Traverse {
            codec: lay.codec(),
            vertices,
            index,
            cache,
            weighted,
            bytes: Vec::new(),
            opts: opts.clone(),
            lists_read: 0,
            _charges: vec![index_charge, cache_charge],
        })
    }

    pub fn vertices(&self) -> u64 {
        self.vertices
    }
    pub fn weighted(&self) -> bool {
        self.weighted
    }
    pub fn backend(&self) -> Backend {
        self.cache.backend()
    }

    #[inline]
    pub fn degree(&self, v: u64) -> u64 {
        let (lo, hi) = (self.index[v as usize], self.index[v as usize + 1]);
        self.codec.degree(lo, hi).expect("codec with degrees in the index")
    }

    /// Total adjacency entries.
    pub fn arcs(&self) -> u64 {
        self.codec.degree(self.index[0], self.index[self.vertices as usize]).unwrap_or(0)
    }

    /// Replace `out` with `v`'s neighbours.
    pub fn neighbours(&mut self, v: u64, out: &mut Vec<u64>) -> Result<(), StoreError> {
        let (lo, hi) = (self.index[v as usize], self.index[v as usize + 1]);
        out.clear();
        if lo == hi {
            return Ok(());
        }
        let (b0, b1) = self.codec.byte_range(lo, hi);
        self.bytes.clear();
        self.cache.read_range(ADJACENCY, b0, b1, &mut self.bytes)?;
        self.lists_read += 1;
        self.codec.decode(v, lo, hi, &self.bytes, out).map_err(|e| StoreError::invalid("adjacency", format!("vertex {v}: {e}")))
    }

    /// Replace `out` with the weights of `v`'s edges, in neighbour order.
    pub fn weights(&mut self, v: u64, out: &mut Vec<f32>) -> Result<(), StoreError> {
        out.clear();
        if !self.weighted {
            return Err(StoreError::invalid("store", "has no edge weights; re-import with --weighted"));
        }
        let (lo, hi) = (self.index[v as usize], self.index[v as usize + 1]);
        self.bytes.clear();
        self.cache.read_range(WEIGHTS, lo * 4, hi * 4, &mut self.bytes)?;
        out.extend(self.bytes.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())));
        Ok(())
    }

    /// Issue reads for the blocks of `upcoming` vertices, in order, until
    /// the device has `depth` reads in flight. Adjacent vertices' blocks are
    /// merged into runs read by one request each. Returns how many
    /// vertices were fully handled, so the caller can advance its cursor.
    pub fn run_ahead(&mut self, upcoming: impl IntoIterator<Item = u64>) -> Result<usize, StoreError> {
        if !self.opts.prefetch {
            return Ok(0);
        }
        let bs = self.cache.block_size() as u64;
        let max_run = outcore_io::cache::MAX_RUN as u64;
        // the pending run of adjacency blocks and the vertices it covers
        let (mut run, mut covered, mut done) = (None::<(u64, u64)>, 0usize, 0usize);
        for v in upcoming.into_iter().take(self.opts.max_ahead) {
            let (lo, hi) = (self.index[v as usize], self.index[v as usize + 1]);
            if lo != hi {
                if self.weighted {
                    for b in (lo * 4) / bs..=(hi * 4 - 1) / bs {
                        if !self.cache.prefetch(WEIGHTS, b)? {
                            break;
                        }
                    }
                }
                let (b0, b1) = self.codec.byte_range(lo, hi);
                let (b0, b1) = (b0 / bs, (b1 - 1) / bs);
                run = match run {
                    Some((s, e)) if b0 <= e + 1 && b1.max(e) - s < max_run => Some((s, b1.max(e))),
                    Some((s, e)) => {
                        if !self.cache.prefetch_run(ADJACENCY, s, e)? {
                            self.cache.submit()?;
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
            if self.cache.prefetch_run(ADJACENCY, s, e)? {
                done += covered;
            }
        } else {
            done += covered;
        }
        self.cache.submit()?;
        Ok(done)
    }

    /// Whether the prefetcher is on.
    pub fn prefetching(&self) -> bool {
        self.opts.prefetch
    }
    /// How far ahead the algorithm should look.
    pub fn max_ahead(&self) -> usize {
        self.opts.max_ahead
    }

    pub fn stats(&self) -> TraverseStats {
        TraverseStats {
            cache: self.cache.stats.clone(),
            cache_bytes: (self.cache.frames() * self.cache.block_size()) as u64,
            io_backend: self.cache.backend().name().to_string(),
            lists_read: self.lists_read,
        }
    }
}

/// A run-ahead cursor over a list of vertices the algorithm will visit in
/// order (a BFS queue or frontier): before each visit it prefetches the
/// blocks of the vertices after it, never re-issuing what it already did.
#[derive(Default)]
pub struct Lookahead {
    ahead: usize,
}

impl Lookahead {
    /// Call before visiting `list[head]`.
    pub fn before(&mut self, g: &mut Traverse, list: &[u32], head: usize) -> Result<(), StoreError> {
        if !g.prefetching() {
            return Ok(());
        }
        self.ahead = self.ahead.max(head + 1);
        let end = list.len().min(head + g.max_ahead());
        if self.ahead < end {
            self.ahead += g.run_ahead(list[self.ahead..end].iter().map(|&v| v as u64))?;
        }
        Ok(())
    }

    /// Start over at `at` (the list was reordered from there on).
    pub fn reset(&mut self, at: usize) {
        self.ahead = at;
    }
}
