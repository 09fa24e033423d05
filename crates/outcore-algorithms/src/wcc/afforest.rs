//! Afforest WCC out of core (Sutton, Ben-Nun and Barak, "Optimizing
//! Parallel Graph Connectivity Computation via Subgraph Sampling", IPDPS
//! 2018; gapbs `cc.cc`), on the traverse engine's two cursors.
//!
//! 1. Sampling: every vertex is linked to [`NEIGHBOUR_ROUNDS`] neighbours
//!    only (the paper's neighbour rounds, both in one pass), then the
//!    forest is compressed. The neighbours are the first columns of the
//!    `hot` layout where the store has one (its hottest neighbours, read
//!    beside the degrees: a few bytes a vertex), else the first ones of
//!    each list: on a raw or CEESOR layout, read by the pages that hold them
//!    ([`outcore_store::heads`]: a long list's other pages are not read),
//!    otherwise by one sequential scan.
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
//! Every core: the sampling cuts the vertex range into parts of about
//! equal bytes, and a lane a core (as the budget holds their readers)
//! reads a part at a time ([`outcore_store::Layout::scan_heads`] or
//! [`outcore_store::Layout::scan_range`]), gathers its links in a buffer
//! and makes them when it is full. With room for one
//! scan only, one thread reads the lists, as the final phase's are read:
//! in order, their links gathered in a
//! buffer ([`LINK_BUFFER`] pairs), which a linking thread then makes on
//! every core at once while the reader fills a second one (in place, as
//! the reader waits, on a thread of a rayon pool). Links are gapbs'
//! lock-free link (a compare-and-swap of a root's parent).
//! Compressing is parallel too. The labels do not depend on the number of
//! threads.

use super::forest::{compress, labels, link, roots, Links};
pub use super::forest::{LINK_BUFFER, LINK_BUFFER_BYTES};
use outcore_io::{AtomicBitmap, Budget, Reservation, SplitMix64};
use outcore_store::heads::HeadScan;
use outcore_store::hot::ColumnStream;
use outcore_store::{AdjacencyScan, Layout, PageChecks, Store, StoreError};
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
    /// Parts of the vertex range scanned at once when the sampling scans
    /// (one a core, as the budget allows); 0 when it reads the hot layout.
    pub sampling_lanes: u64,
    /// Lists the sampling scan read (every vertex's once; 0 from the hot
    /// layout).
    pub lists_sampled: u64,
    /// Lists read in the final phase (vertices outside it whose lists the
    /// scan did not link whole, per layout).
    pub lists_finished: u64,
    /// Bytes read from the store's files: the sampling's (degrees and
    /// columns, or the scan) and the final phase's lookups.
    pub bytes_read: u64,
}

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
    let scan = crate::needs::scan_bytes(store, &["out"])?;
    let sampling = if hot_columns(store) > 0 { Sampling::Hot } else { Sampling::choose(&store.layout("out")?, scan, budget)? };
    // a scan per core where the budget has room for them
    let lane = match &sampling {
        Sampling::Heads { lane, .. } => *lane,
        _ => scan,
    };
    let lanes = if let Sampling::Hot = sampling { 1 } else { scan_lanes(budget.available(), lane) };
    let _more_scans = budget.reserve(&format!("the sampling's scans of out in {} more lanes", lanes - 1), (lanes - 1) * lane)?;
    let parent = roots(n);
    let stats = std::thread::scope(|scope| link_all(store, &parent, Links::start(scope, &parent), &sampling, lanes))?;
    drop(sampling);
    drop(bitmap_charge);
    Ok((labels(parent), charge, stats))
}

/// Where the sampling reads each vertex's first neighbours.
enum Sampling {
    /// The hot layout's first columns.
    Hot,
    /// The pages of the lists' heads ([`outcore_store::heads`]), their
    /// checksums registered and charged, and what a lane's scan holds
    /// (its first lane's extra over a scan charged too).
    Heads { pages: PageChecks, lane: u64, _first_lane: Reservation },
    /// A scan of the whole adjacency.
    Scan,
}

impl Sampling {
    /// Heads where `layout` is read by them and the budget holds their
    /// page checksums and a lane's scan (beyond the `scan` already
    /// charged for the first); a scan otherwise.
    fn choose(layout: &Layout, scan: u64, budget: &Budget) -> Result<Self, StoreError> {
        if !layout.reads_heads() {
            return Ok(Sampling::Scan);
        }
        let lane = layout.head_scan_bytes()?;
        let extra = lane.saturating_sub(scan);
        if extra + layout.page_sums_bytes() + Layout::PAGE_SUMS_READER_BYTES > budget.available() {
            return Ok(Sampling::Scan);
        }
        let first_lane = budget.reserve("the sampling's first head scan, beyond a scan", extra)?;
        Ok(Sampling::Heads { pages: layout.check_by_pages(budget)?, lane, _first_lane: first_lane })
    }

    /// A reader of the heads of `first..end`'s lists in `layout`.
    fn open(&self, layout: &Layout, first: u64, end: u64) -> Result<Heads, StoreError> {
        Ok(match self {
            Sampling::Heads { pages, .. } => Heads::Pages(Box::new(layout.scan_heads(first, end, NEIGHBOUR_ROUNDS + 1, pages)?)),
            _ => Heads::Scan(Box::new(layout.scan_range(first, end)?)),
        })
    }
}

/// The first neighbours of every list of a range: read by their pages,
/// or decoded by a scan ([`AdjacencyScan::next_list_some`]).
enum Heads {
    Pages(Box<HeadScan>),
    Scan(Box<AdjacencyScan>),
}

impl Heads {
    /// The next vertex and at most [`NEIGHBOUR_ROUNDS`] + 1 of its neighbours
    /// (all of them when it has no more).
    fn next(&mut self) -> Result<Option<(u64, &[u64])>, StoreError> {
        match self {
            Heads::Pages(heads) => heads.next_head(),
            Heads::Scan(scan) => Ok(scan.next_list_some(NEIGHBOUR_ROUNDS + 1)?.map(|(v, ids, _)| (v, ids))),
        }
    }

    fn bytes_read(&self) -> u64 {
        match self {
            Heads::Pages(heads) => heads.bytes_read(),
            Heads::Scan(scan) => scan.bytes_read(),
        }
    }
}

/// Link every edge of `store` into `parent` as the module comment says
/// (everything but the last compression), through `links`.
fn link_all(store: &Store, parent: &[AtomicU32], mut links: Links, sampling: &Sampling, lanes: u64) -> Result<AfforestStats, StoreError> {
    let n = store.vertices();
    let mut stats = AfforestStats::default();
    let directed = store.manifest().directed;
    let mut layouts = vec![store.layout("out")?];
    if directed {
        layouts.push(store.layout("in")?);
    }
    // the layout whose lists the sampling linked whole when short
    let linked_whole = AtomicBitmap::new(n);
    let hot_columns = hot_columns(store);
    let whole = if let Sampling::Hot = sampling {
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
        stats.sampled_from = if let Sampling::Heads { .. } = sampling { "heads" } else { "scan" };
        stats.sampling_lanes = lanes;
        if lanes > 1 {
            (stats.lists_sampled, stats.bytes_read) = sample_by_scan(&layouts[0], sampling, parent, &linked_whole, lanes)?;
        } else {
            // one reader, whose links the linking thread makes meanwhile
            // (a lane that links its own took 1.2-1.4 times as long)
            let mut heads = sampling.open(&layouts[0], 0, n)?;
            stats.lists_sampled = sample_lists(&mut heads, &linked_whole, |u, v| links.add(u, v))?;
            stats.bytes_read += heads.bytes_read();
        }
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

/// Lanes of the sampling scan: one a thread of the current pool, as many
/// as `available` bytes hold a scan of `scan` bytes for beside the one
/// already charged, at least one.
fn scan_lanes(available: u64, scan: u64) -> u64 {
    let threads = rayon::current_num_threads().max(1) as u64;
    (1..=threads).rev().find(|&lanes| (lanes - 1) * scan <= available).unwrap_or(1)
}

/// Parts of the vertex range a lane of the sampling scan takes at a time.
const PARTS_PER_LANE: u64 = 4;

/// The sampling by a scan of `layout`: every vertex linked to its first
/// [`NEIGHBOUR_ROUNDS`] neighbours, and marked in `linked_whole` when that
/// is its whole list. The vertex range is cut into parts of about equal
/// bytes ([`byte_cuts`]); `lanes` tasks of the current pool take them in
/// turn, each reading its part's heads ([`Sampling::open`]) and linking as
/// it reads (the links are lock-free). Returns the lists read and the bytes
/// read.
fn sample_by_scan(
    layout: &Layout,
    sampling: &Sampling,
    parent: &[AtomicU32],
    linked_whole: &AtomicBitmap,
    lanes: u64,
) -> Result<(u64, u64), StoreError> {
    use std::sync::atomic::{AtomicU64, AtomicUsize};
    let (cuts, index_read) = byte_cuts(layout, PARTS_PER_LANE * lanes)?;
    let (next, lists, bytes_read) = (AtomicUsize::new(0), AtomicU64::new(0), AtomicU64::new(index_read));
    // the link buffers' memory shared among the lanes
    let lane_pairs = (2 * LINK_BUFFER / lanes as usize).max(NEIGHBOUR_ROUNDS);
    (0..lanes).into_par_iter().try_for_each(|_| -> Result<(), StoreError> {
        let mut pairs = Vec::with_capacity(lane_pairs);
        loop {
            let p = next.fetch_add(1, Relaxed);
            let Some(w) = cuts.get(p..p + 2) else {
                link_in_turn(parent, &mut pairs);
                return Ok(());
            };
            if w[0] == w[1] {
                continue;
            }
            let mut scan = sampling.open(layout, w[0], w[1])?;
            let read = sample_lists(&mut scan, linked_whole, |u, v| {
                pairs.push((u, v));
                if pairs.len() == lane_pairs {
                    link_in_turn(parent, &mut pairs);
                }
            });
            bytes_read.fetch_add(scan.bytes_read(), Relaxed);
            if let Err(e) = read.map(|listed| lists.fetch_add(listed, Relaxed)) {
                next.store(cuts.len(), Relaxed); // the other lanes take no more parts
                return Err(e);
            }
        }
    })?;
    Ok((lists.into_inner(), bytes_read.into_inner()))
}

/// Every list of `scan` sampled: `link` called with the list's vertex and
/// each of [`NEIGHBOUR_ROUNDS`] of its neighbours (any of them: CEESOR's
/// nearest, read first), and the vertex marked in `linked_whole` when
/// those are its whole list (one entry more than it links shows it).
/// Returns the lists read.
fn sample_lists(heads: &mut Heads, linked_whole: &AtomicBitmap, mut link: impl FnMut(u32, u32)) -> Result<u64, StoreError> {
    let mut lists = 0;
    while let Some((u, nbrs)) = heads.next()? {
        lists += 1;
        for &v in nbrs.iter().take(NEIGHBOUR_ROUNDS) {
            link(u as u32, v as u32);
        }
        if nbrs.len() <= NEIGHBOUR_ROUNDS {
            linked_whole.set(u);
        }
    }
    Ok(lists)
}

/// The links of `pairs`, one after another on this thread, and `pairs`
/// emptied. A loop of links alone keeps several of their reads of the
/// parent array in flight, which links made between reads of lists do not
/// (on Kronecker scale 25 those took 7.5 s of CPU against 4.5).
fn link_in_turn(parent: &[AtomicU32], pairs: &mut Vec<(u32, u32)>) {
    for &(u, v) in pairs.iter() {
        link(parent, u, v);
    }
    pairs.clear();
}

/// Vertices between the index entries [`byte_cuts`] reads.
const CUT_STRIDE: u64 = 1 << 16;

/// Cuts of `layout`'s vertex range into `parts` runs of about equal bytes
/// of its adjacency, from 0 to the vertex count, ascending, and the bytes
/// of the index read to place them. The index is read forward (as its
/// cursor reads), one entry every [`CUT_STRIDE`] vertices: each cut is the
/// first of those vertices whose list starts at or past its share.
fn byte_cuts(layout: &Layout, parts: u64) -> Result<(Vec<u64>, u64), StoreError> {
    let n = layout.vertices();
    if parts <= 1 {
        return Ok((vec![0, n], 0));
    }
    let codec = layout.codec();
    let mut index = layout.index_entries()?;
    let mut starts = Vec::with_capacity((n / CUT_STRIDE + 2) as usize);
    let mut v = 0;
    loop {
        starts.push((v, codec.position(index.entry(v)?) as u128));
        if v == n {
            break;
        }
        v = (v + CUT_STRIDE).min(n);
    }
    let total = starts.last().map_or(0, |&(_, start)| start);
    let mut cuts = vec![0];
    for p in 1..parts {
        let share = total * p as u128 / parts as u128;
        let at = starts.partition_point(|&(_, start)| start < share).min(starts.len() - 1);
        cuts.push(starts[at].0.max(cuts[cuts.len() - 1]));
    }
    cuts.push(n);
    Ok((cuts, index.bytes_read()))
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
