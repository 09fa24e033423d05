//! Afforest WCC out of core (Sutton, Ben-Nun and Barak, "Optimizing
//! Parallel Graph Connectivity Computation via Subgraph Sampling", IPDPS
//! 2018; gapbs `cc.cc`), on the traverse engine's two cursors.
//!
//! 1. Sampling: every vertex is linked to [`NEIGHBOUR_ROUNDS`] neighbours
//!    only (the paper's neighbour rounds, both in one pass), then the
//!    forest is compressed. The neighbours are the first columns of the
//!    `hot` layout where the store has one (its hottest neighbours, read
//!    beside the degrees: a few bytes a vertex), else the first ones of
//!    each list in one sequential scan.
//! 2. The largest intermediate component is found from [`SAMPLES`] random
//!    vertices; on graphs with a giant component it holds most vertices.
//! 3. Only the vertices outside it have their lists read (a forward lookup
//!    that reads the pages holding them, not the file) and every edge of
//!    theirs is linked. An edge between the giant component and a vertex
//!    outside it is met from the outside end: in a symmetric store that
//!    end's own list holds it, in a directed store its `in` list does, so
//!    a directed store needs its `in` layout.
//!
//! A list of at most [`NEIGHBOUR_ROUNDS`] entries is wholly linked by the
//! sampling scan: a bitmap marks those, and the final phase skips them
//! (isolated vertices above all, which a generated graph has in millions).
//!
//! Memory is union-find's (one u32 parent a vertex) plus that bitmap (one
//! bit a vertex) and a buffer of links; instead of a find per
//! edge it makes two links a vertex plus the edges outside the giant
//! component. Links point the larger root at the smaller, so the labels
//! are the smallest id of each component, as [`super::union_find`]'s are.
//!
//! Every core: the lists are read by one thread, in order, and their links
//! gathered in a buffer ([`LINK_BUFFER`] pairs), which a linking thread
//! then makes on every core at once while the reader fills a second one:
//! gapbs' lock-free link (a compare-and-swap of a root's parent).
//! Compressing is parallel too. The labels do not depend on the number of
//! threads.

use outcore_io::{Bitmap, Budget, Reservation, SplitMix64};
use outcore_store::hot::ColumnStream;
use outcore_store::{Store, StoreError};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// Neighbours of every vertex linked before the giant component is sought.
pub const NEIGHBOUR_ROUNDS: usize = 2;
/// Vertices sampled to find the giant component.
pub const SAMPLES: usize = 1024;

/// What the run did besides labelling.
#[derive(Clone, Debug, Default)]
pub struct AfforestStats {
    /// Vertices in the largest intermediate component after sampling.
    pub giant_vertices: u64,
    /// Where the sampled neighbours came from: the `hot` layout's first
    /// columns, or a scan of the adjacency.
    pub sampled_from: &'static str,
    /// Lists read in the final phase (vertices outside it whose lists the
    /// scan did not link whole, per layout).
    pub lists_finished: u64,
    /// Bytes read from the store's files: the sampling's (degrees and
    /// columns, or the scan) and the final phase's lookups.
    pub bytes_read: u64,
}

/// Links gathered before every core makes them.
pub const LINK_BUFFER: usize = 1 << 17;

/// Memory of the reads beside the state: one sequential scan of `out` at
/// a time (the sampling; from the hot layout, the degrees' scan and a
/// stream for each column it samples), and then lookups of each layout in
/// turn, which hold less (a paged window and a list).
pub fn read_bytes(store: &Store) -> Result<u64, StoreError> {
    Ok(crate::needs::scan_bytes(store, &["out"])? + hot_column_bytes(store))
}

/// How many columns of the hot layout the sampling reads side by side:
/// none when the store has no hot layout of the current generation (it
/// scans `out` instead).
fn hot_columns(store: &Store) -> usize {
    let usable = outcore_store::hot::unusable(store, outcore_store::hot::source_layout(store.manifest().directed)).is_none();
    let columns = store.manifest().hot.as_ref().map_or(0, |h| h.columns.len()).min(NEIGHBOUR_ROUNDS);
    if usable {
        columns
    } else {
        0
    }
}

/// What the sampling's column streams hold.
fn hot_column_bytes(store: &Store) -> u64 {
    hot_columns(store) as u64 * ColumnStream::bytes()
}

/// Memory: the parent array, the linked-lists bitmap and the link buffers.
pub fn state_bytes(n: u64) -> u64 {
    n * 4 + n.div_ceil(64) * 8 + LINK_BUFFER_BYTES
}

/// At most what sampling from a hot layout would read: the file the
/// source layout's degrees come from (its degrees file, or its index) and
/// two columns of at most a u32 a vertex each (a column holds one only
/// for the vertices whose lists are longer than its rank).
pub fn hot_sampling_bytes(store: &Store) -> u64 {
    let n = store.vertices();
    let manifest = store.manifest();
    let source = outcore_store::hot::source_layout(manifest.directed);
    let degrees =
        manifest.layouts.get(source).and_then(|r| manifest.files.get(r.degrees.as_ref().unwrap_or(&r.index))).map_or(0, |f| f.bytes);
    degrees + NEIGHBOUR_ROUNDS as u64 * n * 4
}

/// Why Afforest cannot run on `store`, if it cannot.
pub fn unsupported(store: &Store) -> Option<String> {
    if store.vertices() >= u32::MAX as u64 {
        Some("Afforest keeps 32-bit parents".into())
    } else if store.manifest().directed && !store.has_layout("in") {
        Some("a directed store needs its `in` layout (`outcore layout add STORE in`) so that Afforest meets every edge from outside the giant component".into())
    } else {
        None
    }
}

/// Join the trees of `u` and `v` (gapbs `Link`): the larger root goes
/// under the smaller by a compare-and-swap, so that threads can link at
/// once. Parents only ever point to smaller ids, so the roots are the
/// smallest ids of their components.
fn link(parent: &[AtomicU32], u: u32, v: u32) {
    let mut p1 = parent[u as usize].load(Relaxed);
    let mut p2 = parent[v as usize].load(Relaxed);
    while p1 != p2 {
        let (high, low) = (p1.max(p2), p1.min(p2));
        let p_high = parent[high as usize].load(Relaxed);
        // already under `low`, or put there now
        if p_high == low || p_high == high && parent[high as usize].compare_exchange(high, low, Relaxed, Relaxed).is_ok() {
            break;
        }
        p1 = parent[parent[high as usize].load(Relaxed) as usize].load(Relaxed);
        p2 = parent[low as usize].load(Relaxed);
    }
}

/// Every vertex's parent made its root, on every core (no link runs meanwhile).
fn compress(parent: &[AtomicU32]) {
    parent.par_iter().with_min_len(1 << 14).for_each(|p| loop {
        let (q, r) = (p.load(Relaxed), parent[p.load(Relaxed) as usize].load(Relaxed));
        if q == r {
            break;
        }
        p.store(r, Relaxed);
    });
}

/// Pairs to link, made on every core by a linking thread once a buffer
/// is full, while the next buffer fills: the reading thread does not wait
/// for the links (the sampling scan is the run's longest phase, and its
/// links take about as long as its reads). Two buffers of
/// [`LINK_BUFFER`] pairs: one filling, one being linked.
struct Links {
    pairs: Vec<(u32, u32)>,
    /// An empty buffer at hand, when the other is not being linked.
    spare: Option<Vec<(u32, u32)>>,
    to_linker: std::sync::mpsc::SyncSender<Vec<(u32, u32)>>,
    from_linker: std::sync::mpsc::Receiver<Vec<(u32, u32)>>,
}

/// The buffers' memory: two of [`LINK_BUFFER`] pairs.
pub const LINK_BUFFER_BYTES: u64 = 2 * LINK_BUFFER as u64 * std::mem::size_of::<(u32, u32)>() as u64;

impl Links {
    /// The buffers, and a linking thread in `scope` that links what it is
    /// handed into `parent` until they are dropped.
    fn start<'scope>(scope: &'scope std::thread::Scope<'scope, '_>, parent: &'scope [AtomicU32]) -> Self {
        let (to_linker, full) = std::sync::mpsc::sync_channel::<Vec<(u32, u32)>>(1);
        let (emptied, from_linker) = std::sync::mpsc::sync_channel(1);
        scope.spawn(move || {
            for mut pairs in full {
                pairs.par_iter().with_min_len(1 << 10).for_each(|&(u, v)| link(parent, u, v));
                pairs.clear();
                // the reader waits for it before it hands on another, or
                // has gone (an error): nothing more to link either way
                if emptied.send(pairs).is_err() {
                    break;
                }
            }
        });
        Links { pairs: Vec::with_capacity(LINK_BUFFER), spare: Some(Vec::with_capacity(LINK_BUFFER)), to_linker, from_linker }
    }

    fn add(&mut self, u: u32, v: u32) {
        self.pairs.push((u, v));
        if self.pairs.len() == LINK_BUFFER {
            self.hand_over();
        }
    }

    /// The linking thread's buffer back, linked.
    fn take_back(&mut self) {
        if self.spare.is_none() {
            // the thread sends every buffer back; it stops only when this is dropped
            self.spare = Some(self.from_linker.recv().expect("the linking thread sends every buffer back"));
        }
    }

    /// Hand the full buffer to the linking thread and fill the other.
    fn hand_over(&mut self) {
        self.take_back();
        let next = self.spare.take().unwrap_or_default();
        let full = std::mem::replace(&mut self.pairs, next);
        self.to_linker.send(full).expect("the linking thread runs until the buffers are dropped");
    }

    /// Every pair added so far linked.
    fn flush(&mut self) {
        if !self.pairs.is_empty() {
            self.hand_over();
        }
        self.take_back();
    }
}

/// The most frequent root among `SAMPLES` random vertices (compressed forest).
fn giant(parent: &[AtomicU32]) -> u32 {
    let mut rng = SplitMix64(0xAFF0_2E57);
    let mut counts = std::collections::HashMap::<u32, u32>::new();
    for _ in 0..SAMPLES {
        let v = rng.below(parent.len() as u64) as usize;
        *counts.entry(parent[v].load(Relaxed)).or_default() += 1;
    }
    counts.into_iter().max_by_key(|&(root, count)| (count, std::cmp::Reverse(root))).map(|(root, _)| root).unwrap_or(0)
}

/// Component labels (smallest id) and the budget charge that holds them.
pub fn wcc_charged(store: &Store, budget: &Budget) -> Result<(Vec<u32>, Reservation, AfforestStats), StoreError> {
    let n = store.vertices();
    if let Some(why) = unsupported(store) {
        return Err(StoreError::invalid(store.dir(), why));
    }
    let charge = budget.reserve("WCC parent array", n * 4)?;
    let bitmap_charge = budget.reserve("Afforest's linked-lists bitmap and link buffers", n.div_ceil(64) * 8 + LINK_BUFFER_BYTES)?;
    let _reads = budget.reserve("a scan of out, then lookups", read_bytes(store)?)?;
    let parent: Vec<AtomicU32> = (0..n as u32).map(AtomicU32::new).collect();
    let stats = std::thread::scope(|scope| link_all(store, &parent, Links::start(scope, &parent)))?;
    drop(bitmap_charge);
    compress(&parent);
    // in place: an AtomicU32 is a u32 in memory, and collecting a mapped
    // vector of one into one of the other reuses its allocation
    let labels: Vec<u32> = parent.into_iter().map(AtomicU32::into_inner).collect();
    Ok((labels, charge, stats))
}

/// Link every edge of `store` into `parent` as the module comment says
/// (everything but the last compression), through `links`.
fn link_all(store: &Store, parent: &[AtomicU32], mut links: Links) -> Result<AfforestStats, StoreError> {
    let n = store.vertices();
    let mut stats = AfforestStats::default();
    let directed = store.manifest().directed;
    let mut layouts = vec![store.layout("out")?];
    if directed {
        layouts.push(store.layout("in")?);
    }
    // the layout whose lists the sampling linked whole when short
    let mut linked_whole = Bitmap::new(n);
    let hot_columns = hot_columns(store);
    let whole = if hot_columns > 0 {
        // the first columns of the hot layout and the degrees: a few bytes
        // a vertex instead of the whole adjacency
        stats.sampled_from = "hot";
        let source = &layouts[directed as usize];
        let mut degrees = source.degrees()?;
        let mut columns = (0..hot_columns).map(|j| ColumnStream::open(store, j)).collect::<Result<Vec<_>, _>>()?;
        for v in 0..n {
            let degree = degrees.next_degree()?;
            for column in columns.iter_mut().take(degree as usize) {
                links.add(v as u32, column.next_entry()?);
            }
            if degree <= hot_columns as u64 {
                linked_whole.set(v);
            }
        }
        stats.bytes_read += degrees.bytes_read() + columns.iter().map(ColumnStream::bytes_read).sum::<u64>();
        directed as usize
    } else {
        stats.sampled_from = "scan";
        let mut scan = layouts[0].scan()?;
        // one entry more than it links shows whether it linked the list whole
        while let Some((u, nbrs, _)) = scan.next_list_prefix(NEIGHBOUR_ROUNDS + 1)? {
            for &v in nbrs.iter().take(NEIGHBOUR_ROUNDS) {
                links.add(u as u32, v as u32);
            }
            if nbrs.len() <= NEIGHBOUR_ROUNDS {
                linked_whole.set(u);
            }
        }
        stats.bytes_read += scan.bytes_read();
        0
    };
    links.flush();
    compress(parent);
    let c = if n == 0 { 0 } else { giant(parent) };
    stats.giant_vertices = parent.par_iter().filter(|p| p.load(Relaxed) == c).count() as u64;
    for (k, layout) in layouts.iter().enumerate() {
        let mut lookup = layout.lookup()?;
        for u in 0..n as u32 {
            // a parent of c means c's component; c's own root may have
            // moved below it since, which only costs that root a read
            if parent[u as usize].load(Relaxed) == c || k == whole && linked_whole.get(u as u64) {
                continue;
            }
            lookup.seek(u as u64)?;
            let Some((_, nbrs, _)) = lookup.next_list()? else {
                return Err(StoreError::invalid(layout.index_path(), format!("no list for vertex {u} of {n}")));
            };
            stats.lists_finished += 1;
            for &v in nbrs {
                links.add(u, v as u32);
            }
        }
        stats.bytes_read += lookup.bytes_read();
    }
    links.flush();
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The giant is the root sampled most often, not the smallest root
    /// sampled: a small component under root 0 and a large one under
    /// root 10 (a compressed forest, every parent a root).
    #[test]
    fn the_giant_is_the_most_frequent_root_not_the_smallest() {
        let parent: Vec<AtomicU32> = (0..5000u32).map(|v| AtomicU32::new(if v < 10 { 0 } else { 10 })).collect();
        assert_eq!(giant(&parent), 10);
        let parent: Vec<AtomicU32> = (0..5000u32).map(|v| AtomicU32::new(if v < 4990 { 0 } else { 4990 })).collect();
        assert_eq!(giant(&parent), 0);
    }
}
