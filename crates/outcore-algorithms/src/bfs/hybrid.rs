//! Direction-optimizing BFS in NETALX's single-graph model (Iwabuchi,
//! thesis chapter 3). Each vertex's first k in-neighbours, highest degree
//! first, are held in memory ([`HotLists`], k chosen from the budget), so a
//! bottom-up step finds most parents without touching the SSD. Only the
//! vertices whose in-memory neighbours are not in the frontier and whose
//! list is longer than k are read, in increasing id order with run-ahead.
//! Top-down steps read the out-lists through the engine, prefetching the
//! frontier ahead of the cursor.
//!
//! Direction switching (section 3.4.4.4), with measured degrees instead of
//! the edge factor: with m_td = the out-degree sum of the frontier and
//! m_bu = the in-degree sum of the unvisited vertices, go bottom-up when
//! the frontier grows and m_td > m_bu / alpha, and back top-down when it
//! shrinks and m_td < m_bu / beta. The paper has alpha 4096 and beta 4;
//! outcore's default alpha is Beamer's 15 ([`DEFAULT_ALPHA`] says why).
//!
//! Every core: a bottom-up step's in-memory part runs on blocks of
//! [`SWEEP_BLOCK`] vertices in parallel (each block owns its parents,
//! levels and words of the next frontier; [`HotLists`] keeps where each
//! column's cursor stands at every block), and the degree sums that steer
//! the direction are parallel. The lists read from the SSD, top-down and
//! for the bottom-up candidates, are read in id order on every core
//! ([`Traverse::par_lists`]: consecutive pieces, a reader and a run-ahead
//! each, one block cache), and what they find is applied in id order;
//! which parent a vertex gets does not depend on the number of threads.

use super::gathered::{entry_bytes, BlockAdds, Gathered, GatheredBlock};
use super::top_down::{read_round, round_bytes, round_end};
use super::{BfsTree, NONE};
use outcore_engines::Degrees;
use outcore_engines::{Traverse, TraverseOptions};
use outcore_io::{bitmap_bytes, Bitmap, Budget, Reservation};
use outcore_store::hot::{HotParts, RankDegrees};
use outcore_store::{Layout, Store, StoreError};
use rayon::prelude::*;
use serde::Serialize;

/// The in-memory part of each vertex's in-adjacency, column by column:
/// column j holds the j-th hottest in-neighbour of every vertex with more
/// than j, in vertex order (the `hot` layout's form).
pub struct HotLists {
    pub k: u32,
    columns: Vec<Vec<u32>>,
    /// Where column j's cursor stands at the first vertex of block b of
    /// [`SWEEP_BLOCK`] vertices: `cursors[b * k + j]`.
    cursors: Vec<u32>,
    /// Loaded from the store's `hot` layout, or built by a scan (and why).
    pub origin: HotOrigin,
    /// Why the run holds fewer columns than the store has, or none at
    /// all: what the next column takes beside what the budget left.
    pub short_of: Option<String>,
    /// Where the store has no hot layout and the run searches once: the
    /// neighbours its bottom-up steps keep as they read lists
    /// ([`super::gathered`]; no columns then).
    gathering: Option<Gathering>,
    _charge: Reservation,
}

/// What a search that gathers its in-memory neighbours holds: the lists it
/// keeps, and the layout its dense bottom-up steps scan.
struct Gathering {
    lists: Gathered,
    layout: Layout,
    /// Scans a dense bottom-up step reads at once, one per core where the
    /// budget holds them (0: none fits, and every list is read through the
    /// block cache).
    lanes: u64,
    /// Bytes the scans of dense steps read (outside the block cache), and
    /// the time of those steps.
    scanned: u64,
    scanned_seconds: f64,
    /// Memory of a lane of a dense step ([`dense_part_bytes`]), charged
    /// while the step reads.
    lane_bytes: u64,
    budget: Budget,
    /// The blocks' vectors and the lists kept so far.
    charge: Reservation,
}

impl Gathering {
    /// After a step: halve the kept lists if it found more than fit, and
    /// hold no more charge than the blocks and the lists take.
    fn settle(&mut self, overflow: bool) {
        if overflow {
            self.lists.halve(&self.budget);
        }
        self.charge.shrink_to(Gathered::fixed_bytes(self.lists.blocks()) + self.lists.held());
    }
}

/// What the bottom-up steps of a search kept, for the report.
#[derive(Clone, Debug, Serialize)]
pub struct GatheredSummary {
    /// Vertices whose hottest neighbours are kept.
    pub vertices: u64,
    /// Neighbours a vertex keeps at most (halved each time the room filled).
    pub take: usize,
    pub halvings: u32,
    /// Memory of the kept lists.
    pub bytes: u64,
    /// Bytes the dense bottom-up steps read by scans of the layout, and
    /// the time they took.
    pub scanned_bytes: u64,
    pub scanned_seconds: f64,
    /// Scans a dense step read at once.
    pub lanes: u64,
}

/// One vertex's in-memory neighbours during [`HotLists::walk_block`].
pub struct HotRow<'a> {
    columns: &'a [Vec<u32>],
    at: &'a [usize],
}

impl HotRow<'_> {
    /// The hottest neighbour that satisfies `wanted`.
    #[inline]
    pub fn find(&self, mut wanted: impl FnMut(u32) -> bool) -> Option<u32> {
        self.columns.iter().zip(self.at).map(|(column, &i)| column[i]).find(|&u| wanted(u))
    }
}

#[derive(Clone, Debug, Serialize)]
#[serde(tag = "from", rename_all = "snake_case")]
pub enum HotOrigin {
    /// The first k of the stored columns, one sequential read each.
    Stored { columns: usize },
    /// A scan of the in-edges this run (taking `seconds`), because the
    /// stored ones could not serve; read in `parts` parts of the vertex
    /// range, `lanes` of them at once.
    Built { why_not_stored: String, seconds: f64, parts: u64, lanes: u64 },
    /// None before the search: its bottom-up steps keep the hottest
    /// neighbours of the lists they read and find no parent in, for the
    /// steps after ([`super::gathered`]), because the stored ones could not
    /// serve and the run searches once.
    Gathered { why_not_stored: String },
}

/// Largest k considered.
const MAX_K: u32 = 64;

/// Vertices per task of a bottom-up sweep: a multiple of 64, so that each
/// task owns whole words of the next frontier.
pub const SWEEP_BLOCK: u64 = 1 << 12;

/// Stored columns a hybrid BFS loads before it gives the block caches and
/// the degrees beside the index more than their minimum, where they fit:
/// the first columns settle most of the bottom-up candidates, and each
/// saves far more reads than the same memory as cache. Kronecker scale 25
/// under `memcap 512M` (raw32, stored columns; caches dropped): 1 column,
/// the degrees and a 36 MiB cache read 1,250 MB in a 3.3-3.5 s search; 3
/// columns and a 9 MiB cache read 97 MB in 1.6-1.8 s. Past the first few the
/// reads are gone, and the degrees beside the index are worth more (at
/// 768M, 13 columns without them searched in 1.5 s, 4 with them in 1.2 s).
const FIRST_COLUMNS: usize = 3;

/// [`HotLists::stored_bytes`] of the store's hot `record`.
fn stored_share(store: &Store, record: &outcore_store::HotRecord, k: usize) -> u64 {
    outcore_store::hot::column_bytes(record, k) + cursor_bytes(store.vertices(), k as u64) + outcore_store::hot::load_bytes(k)
}

/// Why a run holds `k` of the `columns` columns (stored, or to be built
/// by a scan): `next` bytes for k + 1 against the `left` the budget gave
/// them.
fn short_of_columns(k: usize, columns: usize, next: u64, left: u64, how: &str) -> String {
    let (next, left) = (outcore_io::format_bytes(next), outcore_io::format_bytes(left));
    if k == 0 {
        format!(
            "no column of in-memory neighbours fits: the first ({how}) takes {next}, and the budget left {left} for them; the bottom-up steps read every list they check through the block cache"
        )
    } else {
        format!(
            "{k} of the {columns} {how} columns of in-memory neighbours fit: {} take {next}, and the budget left {left} for them",
            k + 1
        )
    }
}

/// Memory of the block cursors of `k` columns over `n` vertices.
fn cursor_bytes(n: u64, k: u64) -> u64 {
    n.div_ceil(SWEEP_BLOCK) * k * 4
}

/// Where each of `k` columns' cursors stands at the first vertex of every
/// block of [`SWEEP_BLOCK`] vertices (`[b * k + j]`: the vertices before
/// block b with more than j in-neighbours): a histogram of each block's
/// degrees on every core, then a running sum over the blocks. Also returns
/// the sums at the end: each column's entries.
fn block_cursors(degrees: Degrees<'_>, n: u64, k: usize) -> (Vec<u32>, Vec<u64>) {
    let mut at = vec![0u32; n.div_ceil(SWEEP_BLOCK) as usize * k];
    if k == 0 {
        return (at, Vec::new());
    }
    at.par_chunks_mut(k).enumerate().for_each(|(b, longer)| {
        let mut capped = vec![0u32; k + 1];
        let first = b as u64 * SWEEP_BLOCK;
        // one pass over the block's stretch of the index (or the kept
        // degrees), not two selects a vertex
        degrees.for_each_in(first, (first + SWEEP_BLOCK).min(n), |_, d| capped[d.min(k as u64) as usize] += 1);
        let mut count = 0;
        for j in (0..k).rev() {
            count += capped[j + 1];
            longer[j] = count;
        }
    });
    let mut before = vec![0u64; k];
    for block in at.chunks_mut(k) {
        for (cursor, sum) in block.iter_mut().zip(&mut before) {
            let here = *cursor as u64;
            *cursor = *sum as u32;
            *sum += here;
        }
    }
    (at, before)
}

/// The layout the hot lists of a BFS over `layout` (the in-edges) sample:
/// `layout` itself in a directed store, `out` in a symmetric one.
pub(crate) fn hot_source<'a>(store: &Store, layout: &'a str) -> &'a str {
    if store.manifest().directed {
        layout
    } else {
        outcore_store::hot::source_layout(false)
    }
}

fn hot_record(store: &Store) -> Result<&outcore_store::HotRecord, StoreError> {
    store.manifest().hot.as_ref().ok_or_else(|| StoreError::invalid(store.dir(), "the store has no hot layout"))
}

impl HotLists {
    /// The largest k <= 64 whose lists take at most `bytes` (0 if none fits),
    /// and no larger than the longest list: a column no vertex reaches
    /// would cost its cursors and hold nothing.
    pub fn choose_k(g: &Traverse, bytes: u64) -> u32 {
        let mut total = 0u64;
        let mut k = 0;
        for entries in column_entries(g, 0, g.vertices(), MAX_K as usize) {
            if entries == 0 {
                break;
            }
            total += entries * 4 + cursor_bytes(g.vertices(), 1);
            if total > bytes {
                break;
            }
            k += 1;
        }
        k
    }

    /// Column `j`: the j-th hottest in-neighbour of each vertex with more
    /// than j, in vertex order.
    pub fn column(&self, j: usize) -> &[u32] {
        &self.columns[j]
    }

    /// Bytes of the k columns' entries: what was read from the `hot`
    /// layout, or gathered by the scan.
    pub fn column_bytes(&self) -> u64 {
        self.columns.iter().map(|c| std::mem::size_of_val(c.as_slice()) as u64).sum()
    }

    /// Walk block `b` of [`SWEEP_BLOCK`] vertices (its first `len`), in
    /// vertex order, from the block's stored cursors: `visit(i, degree,
    /// row)` for its i-th vertex, `row` its in-memory neighbours (the
    /// first min(degree, k)), hottest first.
    /// `degrees` must be those the lists were built from. Blocks
    /// are independent: a sweep walks them on every core.
    pub fn walk_block(&self, b: usize, len: usize, degrees: Degrees<'_>, mut visit: impl FnMut(usize, u64, HotRow<'_>)) {
        let k = self.k as usize;
        let first = b as u64 * SWEEP_BLOCK;
        let mut at: Vec<usize> = self.cursors[b * k..(b + 1) * k].iter().map(|&c| c as usize).collect();
        let mut block_degrees = vec![0u64; len];
        degrees.fill(first, &mut block_degrees);
        for (i, &d) in block_degrees.iter().enumerate() {
            let kk = d.min(k as u64) as usize;
            visit(i, d, HotRow { columns: &self.columns[..kk], at: &at[..kk] });
            for cursor in &mut at[..kk] {
                *cursor += 1;
            }
        }
    }

    /// The stored hot layout's first columns that fit `bytes`, if the store
    /// has hot lists of `layout` (the in-edges) of its current generation;
    /// else built by one scan of `layout` with the k that fits.
    pub fn open(store: &Store, layout: &str, g: &Traverse, bytes: u64, budget: &Budget) -> Result<Self, StoreError> {
        match Self::stored_k(store, layout, bytes) {
            Ok(k) => {
                let charge = Self::reserve_stored(store, k, budget)?;
                let readers = budget.reserve("hot columns' readers", outcore_store::hot::load_bytes(k))?;
                let columns = outcore_store::hot::load_columns(store, k)?;
                drop(readers);
                Self::from_stored(store, layout, g, k, bytes, columns, charge)
            }
            Err(why) => Self::build_within(store, layout, g, bytes, budget, why),
        }
    }

    /// How many stored columns a run with `bytes` for its lists loads, or
    /// why the stored lists cannot serve it.
    pub fn stored_k(store: &Store, layout: &str, bytes: u64) -> Result<usize, String> {
        match (outcore_store::hot::unusable(store, hot_source(store, layout)), &store.manifest().hot) {
            (None, Some(record)) => {
                let fits = |k: usize| stored_share(store, record, k) <= bytes;
                Ok((0..=record.columns.len()).rev().find(|&k| fits(k)).unwrap_or(0))
            }
            (why, _) => Err(why.unwrap_or_default()),
        }
    }

    /// What `k` stored columns take while they load: the columns, their
    /// block cursors and the readers ([`HotLists::stored_k`] fits this).
    pub fn stored_bytes(store: &Store, k: usize) -> Result<u64, StoreError> {
        Ok(stored_share(store, hot_record(store)?, k))
    }

    /// The charge for `k` stored columns and their block cursors.
    fn reserve_stored(store: &Store, k: usize, budget: &Budget) -> Result<Reservation, StoreError> {
        let record = hot_record(store)?;
        let bytes = outcore_store::hot::column_bytes(record, k) + cursor_bytes(store.vertices(), k as u64);
        Ok(budget.reserve("hybrid BFS in-memory neighbours", bytes)?)
    }

    /// The lists from `k` loaded stored `columns`, checked against the
    /// degrees `g` gives; `bytes` is what the budget left for them (the
    /// lists say why they are fewer than the store's).
    fn from_stored(
        store: &Store,
        layout: &str,
        g: &Traverse,
        k: usize,
        bytes: u64,
        columns: Vec<Vec<u32>>,
        charge: Reservation,
    ) -> Result<Self, StoreError> {
        let record = hot_record(store)?;
        // column j has an entry for every vertex of degree > j: the
        // cursors of the bottom-up sweep rely on it
        let (cursors, longer) = block_cursors(g.degrees(), g.vertices(), k);
        if let Some(j) = (0..k).find(|&j| longer[j] != record.columns[j].entries) {
            let source = hot_source(store, layout);
            return Err(StoreError::invalid(
                store.dir().join(&record.columns[j].file),
                format!(
                    "hot column {j} holds {} entries, but {} vertices have more than {j} in-neighbours: the hot layout does not match layout {source}",
                    record.columns[j].entries, longer[j]
                ),
            ));
        }
        let origin = HotOrigin::Stored { columns: record.columns.len() };
        let short_of = (k < record.columns.len())
            .then(|| short_of_columns(k, record.columns.len(), stored_share(store, record, k + 1), bytes, "stored"));
        Ok(HotLists { k: k as u32, columns, cursors, origin, short_of, gathering: None, _charge: charge })
    }

    /// Lists built by a scan, with the k that fits `bytes`.
    fn build_within(
        store: &Store,
        layout: &str,
        g: &Traverse,
        bytes: u64,
        budget: &Budget,
        why_not_stored: String,
    ) -> Result<Self, StoreError> {
        // the scans that build them, one per core where the columns'
        // share is large beside them, else one
        let part = build_part_bytes(store, layout)?;
        let lanes = build_lanes(|scans| bytes >= 4 * scans, part);
        let columns_bytes = bytes.saturating_sub(lanes * part);
        let k = Self::choose_k(g, columns_bytes);
        let mut lists = Self::build(store, layout, g, k, budget, why_not_stored)?;
        if k == 0 {
            // what one column and its scan would take
            let first = column_entries(g, 0, g.vertices(), 1).first().map_or(0, |e| e * 4) + cursor_bytes(g.vertices(), 1);
            lists.short_of = Some(short_of_columns(0, 1, first + part, bytes, "built"));
        }
        Ok(lists)
    }

    /// No columns: the search's bottom-up steps gather each vertex's
    /// hottest neighbours as they read its list ([`super::gathered`]),
    /// within `bytes`, which also hold the scans that read the dense steps
    /// (as many lanes as cores where they fit; the lists take the rest) and a
    /// gathering step's batch of reads through the block cache. If `bytes`
    /// cannot hold the blocks' vectors, the search keeps none.
    pub fn gather_within(
        store: &Store,
        layout: &str,
        g: &Traverse,
        bytes: u64,
        budget: &Budget,
        why_not_stored: String,
    ) -> Result<Self, StoreError> {
        let n = g.vertices();
        let source = store.layout(layout)?;
        let (fixed, part) = Self::gather_bytes(store, layout)?;
        let origin = HotOrigin::Gathered { why_not_stored };
        if bytes < fixed {
            let charge = budget.reserve("hybrid BFS in-memory neighbours", 0)?;
            let (cursors, _) = block_cursors(g.degrees(), n, 0);
            let short_of = format!(
                "no in-memory neighbours: keeping those the bottom-up steps read takes at least {}, and the budget left {} for them; the bottom-up steps read every list they check through the block cache",
                outcore_io::format_bytes(fixed),
                outcore_io::format_bytes(bytes)
            );
            return Ok(HotLists { k: 0, columns: Vec::new(), cursors, origin, short_of: Some(short_of), gathering: None, _charge: charge });
        }
        // a lane a core where the scans fit; the kept lists take the rest
        let lanes = if bytes >= fixed + part { build_lanes(|scans| bytes >= fixed + scans, part) } else { 0 };
        let room = bytes - fixed - lanes * part;
        // the blocks now; the lists as they are kept, the scans and a batch
        // of reads while a step reads (the caches left them the room)
        let charge =
            budget.reserve("hybrid BFS: the blocks of in-memory neighbours its bottom-up steps gather", Gathered::fixed_bytes(n))?;
        let (cursors, _) = block_cursors(g.degrees(), n, 0);
        let gathering = Gathering {
            lists: Gathered::new(n, room),
            layout: source,
            lanes,
            scanned: 0,
            scanned_seconds: 0.0,
            lane_bytes: part,
            budget: budget.clone(),
            charge,
        };
        let nothing = budget.reserve("hybrid BFS in-memory neighbours", 0)?;
        Ok(HotLists { k: 0, columns: Vec::new(), cursors, origin, short_of: None, gathering: Some(gathering), _charge: nothing })
    }

    /// What gathering in-memory neighbours over `layout` (the in-edges)
    /// takes at least: the blocks' vectors and a batch of reads through the
    /// block cache; and what each lane of a dense step's scans takes
    /// ([`HotLists::gather_within`]).
    pub fn gather_bytes(store: &Store, layout: &str) -> Result<(u64, u64), StoreError> {
        Ok((Gathered::fixed_bytes(store.vertices()) + GATHER_READS_BYTES, dense_part_bytes(&store.layout(layout)?)?))
    }

    /// What the search's bottom-up steps kept so far, where they gather.
    pub fn gathered(&self) -> Option<GatheredSummary> {
        self.gathering.as_ref().map(|g| GatheredSummary {
            vertices: g.lists.kept(),
            take: g.lists.take(),
            halvings: g.lists.halvings,
            bytes: g.lists.held(),
            scanned_bytes: g.scanned,
            scanned_seconds: g.scanned_seconds,
            lanes: g.lanes,
        })
    }

    /// Build k columns by one sequential scan of `layout` (the in-edges);
    /// `g` gives degrees; the origin records `why_not_stored` and the time.
    pub fn build(store: &Store, layout: &str, g: &Traverse, k: u32, budget: &Budget, why_not_stored: String) -> Result<Self, StoreError> {
        let degrees = g.degrees();
        Self::build_ranked_by(store, layout, g, k, budget, why_not_stored, &degrees)
    }

    /// [`HotLists::build`], ranking the neighbours by `rank_degree` rather
    /// than by their degrees in `g` (a distributed part ranks a vertex
    /// owned elsewhere by its degree at its owner).
    ///
    /// The layout is read in parts of its vertex range, one per thread
    /// where the budget holds their scans ([`HotParts`]: each part read,
    /// decoded and ranked on a core of its own), and each part writes its
    /// vertices' entries straight into its stretch of every column, whose
    /// place the degrees give.
    pub fn build_ranked_by(
        store: &Store,
        layout: &str,
        g: &Traverse,
        k: u32,
        budget: &Budget,
        why_not_stored: String,
        rank_degree: &(impl RankDegrees + ?Sized),
    ) -> Result<Self, StoreError> {
        let started = std::time::Instant::now();
        let origin = |started: std::time::Instant, parts, lanes| HotOrigin::Built {
            why_not_stored,
            seconds: started.elapsed().as_secs_f64(),
            parts,
            lanes,
        };
        let n = g.vertices();
        // the parts, cut where the arcs before them reach an equal share
        let part = build_part_bytes(store, layout)?;
        let column_bytes = |entries: &[u64]| entries.iter().map(|e| e * 4).sum::<u64>() + cursor_bytes(n, k as u64);
        let all = column_entries(g, 0, n, k as usize);
        let lanes = build_lanes(|scans| budget.available() >= column_bytes(&all) + scans, part);
        // parts smaller than a lane's share, so that lanes that end early take more
        let parts = if lanes > 1 { PARTS_PER_LANE * lanes } else { 1 };
        let charge = budget.reserve("hybrid BFS in-memory neighbours", column_bytes(&all))?;
        if k == 0 {
            // no columns: nothing to read
            let (cursors, _) = block_cursors(g.degrees(), n, 0);
            return Ok(HotLists {
                k,
                columns: Vec::new(),
                cursors,
                origin: origin(started, 0, 0),
                short_of: None,
                gathering: None,
                _charge: charge,
            });
        }
        let _scans =
            budget.reserve(&format!("hot lists: a scan of {layout} and a batch of lists in each of {lanes} lanes"), lanes * part)?;
        let cuts = arc_cuts(g, parts);
        let per_part: Vec<Vec<u64>> = cuts.par_windows(2).map(|w| column_entries(g, w[0], w[1], k as usize)).collect();
        // each column at its exact size (grown by doubling, it would hold
        // up to twice its entries), handed out a stretch per part
        let mut columns: Vec<Vec<u32>> = all.iter().map(|&e| vec![0u32; e as usize]).collect();
        let mut stretches: Vec<Vec<&mut [u32]>> = per_part.iter().map(|_| Vec::with_capacity(k as usize)).collect();
        for (j, column) in columns.iter_mut().enumerate() {
            let mut rest = column.as_mut_slice();
            for (p, entries) in per_part.iter().enumerate() {
                let (mine, after) = rest.split_at_mut(entries[j] as usize);
                stretches[p].push(mine);
                rest = after;
            }
        }
        let path = store.layout(layout)?.adjacency_path();
        let sinks = stretches.iter_mut().map(|stretch| {
            let mut at = vec![0usize; k as usize];
            let path = &path;
            move |v: u64, ids: &[u32]| -> Result<(), StoreError> {
                let want = g.degree(v).min(k as u64);
                if ids.len() as u64 != want {
                    return Err(StoreError::invalid(
                        path,
                        format!("vertex {v}'s list ranks {} entries, its degree {} gives {want}", ids.len(), g.degree(v)),
                    ));
                }
                for ((column, at), &u) in stretch.iter_mut().zip(&mut at).zip(ids) {
                    // the stretches are sized from the same degrees: full only past the part's last vertex
                    let Some(slot) = column.get_mut(*at) else {
                        return Err(StoreError::invalid(path, format!("vertex {v}'s hot neighbours overrun its part of the columns")));
                    };
                    *slot = u;
                    *at += 1;
                }
                Ok(())
            }
        });
        HotParts::rank(&store.layout(layout)?, &cuts, lanes as usize, k as usize, rank_degree, sinks.collect())?;
        let (cursors, _) = block_cursors(g.degrees(), n, k as usize);
        Ok(HotLists { k, columns, cursors, origin: origin(started, parts, lanes), short_of: None, gathering: None, _charge: charge })
    }
}

/// Memory of one part of the scan that builds hot lists from `layout`:
/// its scan and its batch of lists ([`HotParts`]). One part is the least a
/// build takes; it takes a part per core where the budget has room.
pub fn build_part_bytes(store: &Store, layout: &str) -> Result<u64, StoreError> {
    Ok(crate::needs::scan_bytes(store, &[layout])? + HotParts::bytes(store.layout(layout)?.longest_list()?))
}

/// Lanes of a scan-built lists' ranking: as many as the current pool has
/// threads whose parts' memory (`part` bytes each) `fits`, at least one.
fn build_lanes(fits: impl Fn(u64) -> bool, part: u64) -> u64 {
    let threads = rayon::current_num_threads().max(1) as u64;
    (1..=threads).rev().find(|&lanes| fits(lanes * part)).unwrap_or(1)
}

/// Parts of a scan-built list's ranking per lane that reads them.
const PARTS_PER_LANE: u64 = 4;

/// Memory of one lane of a dense bottom-up step of a search that gathers
/// its in-memory neighbours: a scan of `layout` ([`Layout::scan_bytes`]),
/// the vertices it gathers in a block before they join the kept lists, and
/// a list's ranking.
fn dense_part_bytes(layout: &Layout) -> Result<u64, StoreError> {
    Ok(layout.scan_bytes()? + BlockAdds::most_bytes() + 16 * super::gathered::MAX_TAKE as u64)
}

/// Candidates a gathering bottom-up step reads through the block cache at
/// a time: each may report its kept neighbours, so the batch is smaller
/// than [`CHUNK`].
const GATHER_CHUNK: usize = 1 << 13;

/// What a gathering bottom-up step learns from the lists it reads through
/// the block cache, in list order.
enum ListRead {
    /// A vertex and the first of its in-neighbours in the frontier.
    Parent(u32, u32),
    /// A vertex with none in the frontier and how many of its hottest
    /// neighbours follow (none when it keeps some already).
    Missed(u32, u32),
    Kept(u32),
}

/// Memory of a batch of [`GATHER_CHUNK`] reads' reports: a vertex and its
/// kept neighbours each, in vectors grown by doubling.
const GATHER_READS_BYTES: u64 =
    2 * (GATHER_CHUNK * (1 + super::gathered::MAX_TAKE) * std::mem::size_of::<ListRead>()) as u64 + BlockAdds::most_bytes();

/// Parts of a dense bottom-up step, of about equal cost: the same number
/// whatever the threads, so that which lists are kept, when the room
/// fills, does not depend on them.
const DENSE_PARTS: u64 = 16;

/// A bottom-up step of a gathering search scans the layout when at least
/// 1 / DENSE_SHARE of the vertices with a list are its candidates: then a
/// pass over the file costs less than reading them one by one through the
/// block cache (on Kronecker scale 25 the first step's 16.4 M lists took
/// 9.4 s that way, about 1 us of CPU each; a scan reads the file at the
/// device's rate). A few long lists, however many arcs, are cheaper read
/// by themselves.
const DENSE_SHARE: u64 = 4;

/// What a vertex costs a part's scan, in arcs: its index entries, its
/// list's decoding and ranking set up, its entries handed on. On a
/// gapref copy of Kronecker scale 25 in descending-degree order, a part of
/// 151 thousand vertices and half the arcs took 2.5 s, the other half 5.6 s
/// (about 5 ns an arc, 90 ns a vertex); ranking in store order costs more
/// per arc.
const VERTEX_ARCS: u64 = 16;

/// Cuts of `0..listed` into `parts` runs of vertices of about equal cost
/// (arcs, and [`VERTEX_ARCS`] a vertex), from 0 to `listed`, ascending:
/// `listed` is one past the last vertex with a list (the vertices after
/// it have none, and no entry in any column, so no part reads them; in
/// degree order they are every isolated vertex, half of a Kronecker
/// graph's). A cut falls before the first vertex whose cost before it
/// reaches the next share. One pass on every core sums each stretch of
/// [`DEGREE_STRETCH`] vertices; only the stretches a cut falls in are
/// walked again, vertex by vertex.
fn arc_cuts(g: &Traverse, parts: u64) -> Vec<u64> {
    let degrees = g.degrees();
    // 32 bytes a stretch of 2^16 vertices
    let stretches: Vec<(u128, u64)> = par_stretches(g.vertices(), |first, end| {
        let (mut arcs, mut listed) = (0u128, 0u64);
        degrees.for_each_in(first, end, |v, d| {
            arcs += d as u128;
            if d > 0 {
                listed = v + 1;
            }
        });
        (arcs, listed)
    })
    .collect();
    let n = stretches.iter().map(|&(_, listed)| listed).max().unwrap_or(0);
    let total = g.arcs() as u128 + VERTEX_ARCS as u128 * n as u128;
    let mut cuts = vec![0];
    let mut before = 0u128;
    for (s, &(arcs, _)) in stretches.iter().enumerate() {
        let first = s as u64 * DEGREE_STRETCH;
        let end = (first + DEGREE_STRETCH).min(n);
        if first >= n || cuts.len() as u64 >= parts {
            break;
        }
        let after = before + arcs + VERTEX_ARCS as u128 * (end - first) as u128;
        if after * (parts as u128) < total * cuts.len() as u128 {
            // no vertex of the stretch has the next share before it
            before = after;
            continue;
        }
        degrees.for_each_in(first, end, |v, d| {
            while (cuts.len() as u64) < parts && before * parts as u128 >= total * cuts.len() as u128 && v > *cuts.last().unwrap() {
                cuts.push(v);
            }
            before += d as u128 + VERTEX_ARCS as u128;
        });
    }
    while (cuts.len() as u64) < parts + 1 {
        cuts.push(n);
    }
    *cuts.last_mut().unwrap() = n;
    cuts
}

/// Vertices per task of the passes over the degrees that set up hot
/// lists.
const DEGREE_STRETCH: u64 = 1 << 16;

/// `f(first, end)` for each stretch of [`DEGREE_STRETCH`] vertices of
/// `0..n`, on every core, in order.
fn par_stretches<T: Send>(n: u64, f: impl Fn(u64, u64) -> T + Sync + Send) -> impl ParallelIterator<Item = T> {
    (0..n.div_ceil(DEGREE_STRETCH)).into_par_iter().map(move |s| {
        let first = s * DEGREE_STRETCH;
        f(first, (first + DEGREE_STRETCH).min(n))
    })
}

/// Entries of the first `columns` hot columns among vertices
/// `first..end`: `entries[j]` counts those with more than `j`
/// in-neighbours (one histogram of their degrees, on every core).
fn column_entries(g: &Traverse, first: u64, end: u64, columns: usize) -> Vec<u64> {
    let degrees = g.degrees();
    // summed as the stretches finish: a histogram per core at a time
    let capped = par_stretches(end.saturating_sub(first), |from, to| {
        let mut capped = vec![0u64; columns + 1];
        degrees.for_each_in(first + from, first + to, |_, d| capped[d.min(columns as u64) as usize] += 1);
        capped
    })
    .reduce(
        || vec![0u64; columns + 1],
        |mut sum, part| {
            sum.iter_mut().zip(part).for_each(|(s, p)| *s += p);
            sum
        },
    );
    let mut entries = vec![0u64; columns];
    let mut longer = 0;
    for j in (0..columns).rev() {
        longer += capped[j + 1];
        entries[j] = longer;
    }
    entries
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Direction {
    TopDown,
    BottomUp,
}

#[derive(Clone, Debug, Serialize)]
pub struct LevelStats {
    pub direction: Direction,
    pub frontier: u64,
    /// Lists read through the engine (SSD or cache) or by scans of the
    /// layout in this level.
    pub lists_read: u64,
    /// Bytes the level read from the SSD (the block caches' misses and
    /// run-ahead, and the scans of a gathering search's dense steps).
    pub bytes_read: u64,
    /// Wall-clock time of the level.
    pub seconds: f64,
}

#[derive(Clone, Debug)]
pub struct HybridOptions {
    pub alpha: f64,
    pub beta: f64,
}

/// The default alpha: Beamer, Asanovic and Patterson's 15 (SC 2012), not
/// the thesis' 4096. With 4096 the search goes bottom-up while the frontier
/// is a few dozen vertices, and every unvisited vertex whose in-memory
/// neighbours miss that frontier is read from the SSD: on Kronecker and
/// uniform graphs of scale 21 (one thread, same run) 15 took 1/2 to 1/4 of
/// the time in memory and 1/3 to 1/6 under a cap of a quarter of the
/// store, reading 1/2 to 1/11 of the bytes.
pub const DEFAULT_ALPHA: f64 = 15.0;
/// The default beta, the thesis' 4.
pub const DEFAULT_BETA: f64 = 4.0;

impl Default for HybridOptions {
    fn default() -> Self {
        HybridOptions { alpha: DEFAULT_ALPHA, beta: DEFAULT_BETA }
    }
}

/// Vertices handled per chunk of the frontier or of the SSD candidates:
/// the run-ahead looks this far at most, and the lists stay this small.
const CHUNK: usize = 1 << 16;

/// Memory of a hybrid BFS (NETALX's layout): parent and level arrays
/// (4 bytes each per vertex), frontier, next and pending bitmaps (the
/// vertices a bottom-up step reads from the SSD), a chunk list (and room
/// for a second), and the pairs a round of lists read on every core
/// reports (a top-down round's, or at most one per SSD candidate of a
/// chunk).
pub fn state_bytes(n: u64, arcs: u64) -> u64 {
    8 * n + 3 * bitmap_bytes(n) + 2 * chunk_len(n) as u64 * 4 + round_bytes(arcs) + 64
}

/// Entries of a chunk list: [`CHUNK`], or fewer for small graphs.
fn chunk_len(n: u64) -> usize {
    CHUNK.min(n.max(1) as usize)
}

/// One past the last of vertices `0..n` whose degree in `degrees` is not
/// 0 (0 if none): the vertices after it have no list; and how many have
/// one. A pass on every core.
fn listed_end(degrees: Degrees<'_>, n: u64) -> (u64, u64) {
    par_stretches(n, |first, end| {
        let (mut last, mut count) = (0, 0);
        degrees.for_each_in(first, end, |v, d| {
            if d > 0 {
                last = v + 1;
                count += 1;
            }
        });
        (last, count)
    })
    .reduce(|| (0, 0), |a, b| (a.0.max(b.0), a.1 + b.1))
}

/// The in-degrees: of `inn`, or of `out` for an undirected graph.
fn in_degrees<'a>(inn: Option<&'a Traverse>, out: &'a Traverse) -> Degrees<'a> {
    inn.unwrap_or(out).degrees()
}

/// The sums of in- and out-degrees of the vertices in `bits`, on every
/// core (of an undirected graph, `inn` None, the one sum twice).
fn degree_sums(bits: &Bitmap, inn: Option<&Traverse>, out: &Traverse) -> (u64, u64) {
    let out_sum = out.degrees().sum_over(bits);
    (inn.map_or(out_sum, |g| g.degrees().sum_over(bits)), out_sum)
}

/// The in-memory part of a bottom-up step over vertices `0..swept`, a
/// block of [`SWEEP_BLOCK`] per task on every core: an unvisited vertex
/// with an in-memory neighbour in the frontier (its first k, or those the
/// search kept) takes the first such (hottest first) as parent; one
/// without, whose list is longer than what memory holds of it, is marked
/// in `pending` for the SSD. Returns the vertices found.
#[allow(clippy::too_many_arguments)]
fn sweep_in_memory(
    tree: &mut BfsTree,
    next: &mut Bitmap,
    hot: &HotLists,
    frontier: &Bitmap,
    degrees: Degrees<'_>,
    swept: u64,
    level: u32,
    pending: &mut Bitmap,
) -> usize {
    let block = SWEEP_BLOCK as usize;
    let k = hot.k as usize;
    let words = 0..swept.div_ceil(64) as usize;
    let kept = hot.gathering.as_ref().map(|g| &g.lists);
    tree.parent[..swept as usize]
        .par_chunks_mut(block)
        .zip(tree.level[..swept as usize].par_chunks_mut(block))
        .zip(next.words_mut()[words.clone()].par_chunks_mut(block / 64))
        .zip(pending.words_mut()[words].par_chunks_mut(block / 64))
        .enumerate()
        .map(|(b, (((parents, levels), words), pending))| {
            let mut found = 0;
            let mut rows = kept.map(|g| g.block(b).rows().peekable());
            hot.walk_block(b, parents.len(), degrees, |i, degree, row| {
                // the neighbours the search kept for this vertex, if any
                let mine = rows.as_mut().and_then(|rows| {
                    while rows.next_if(|&(at, _)| at < i).is_some() {}
                    rows.next_if(|&(at, _)| at == i).map(|(_, ids)| ids)
                });
                if parents[i] != NONE {
                    return;
                }
                let in_frontier = |u: &u32| frontier.get(*u as u64);
                match row.find(|u| frontier.get(u as u64)).or_else(|| mine.and_then(|ids| ids.iter().copied().find(in_frontier))) {
                    Some(u) => {
                        parents[i] = u;
                        levels[i] = level;
                        words[i / 64] |= 1 << (i % 64);
                        found += 1;
                    }
                    // a list no longer than what memory holds of it is all there
                    None if degree > (k as u64).max(mine.map_or(0, |ids| ids.len() as u64)) => pending[i / 64] |= 1 << (i % 64),
                    None => {}
                }
            });
            found
        })
        .sum()
}

/// What a bottom-up step read from the SSD: vertices found, lists read by
/// scans (not through the block cache), bytes those scans read.
#[derive(Default)]
struct StepReads {
    found: usize,
    lists_scanned: u64,
    bytes_scanned: u64,
}

/// The SSD part of a bottom-up step: the lists of the `pending` vertices
/// (cleared after), each of which takes the first of its in-neighbours in
/// the frontier as parent. A search that gathers keeps the hottest
/// neighbours of those with none; it reads them by scans of the layout
/// when they are a large share of the `listed` vertices (those with a
/// list; [`DENSE_SHARE`]), else through the block cache, in id order, on
/// every core.
#[allow(clippy::too_many_arguments)]
fn read_pending(
    g: &Traverse,
    hot: &mut HotLists,
    frontier: &Bitmap,
    pending: &mut Bitmap,
    tree: &mut BfsTree,
    next: &mut Bitmap,
    level: u32,
    (swept, listed): (u64, u64),
    chunk: &mut Vec<u32>,
) -> Result<StepReads, StoreError> {
    let candidates = pending.count_ones();
    let dense = |x: &Gathering| x.lanes > 0 && candidates.saturating_mul(DENSE_SHARE) >= listed;
    // the dense step's scans, charged while it reads (else it reads through the cache)
    let scans = match hot.gathering.as_ref().filter(|x| dense(x)) {
        Some(x) => x.budget.reserve("hybrid BFS: the scans of a dense bottom-up step", x.lanes * x.lane_bytes).ok(),
        None => None,
    };
    let reads = match (hot.gathering.as_mut(), scans) {
        (Some(gathering), Some(_scans)) => dense_step(g, gathering, frontier, pending, tree, next, level, swept)?,
        (gathering, _) => {
            StepReads { found: cached_step(g, gathering, frontier, pending, tree, next, level, chunk)?, ..Default::default() }
        }
    };
    pending.clear();
    Ok(reads)
}

/// [`read_pending`] through the block cache, a batch of candidates at a
/// time; a gathering search ranks the lists without a parent as it reads
/// them, and keeps what its room holds (in id order).
#[allow(clippy::too_many_arguments)]
fn cached_step(
    g: &Traverse,
    mut gathering: Option<&mut Gathering>,
    frontier: &Bitmap,
    pending: &Bitmap,
    tree: &mut BfsTree,
    next: &mut Bitmap,
    level: u32,
    chunk: &mut Vec<u32>,
) -> Result<usize, StoreError> {
    let mut found = 0;
    // a batch's reports, charged while they are read; without room, no gathering this step
    let reports =
        gathering.as_ref().map(|x| x.budget.reserve("hybrid BFS: a batch of lists read that keep neighbours", GATHER_READS_BYTES));
    if matches!(reports, Some(Err(_))) {
        gathering = None;
    }
    let batch = if gathering.is_some() { GATHER_CHUNK } else { chunk.capacity().max(1) };
    let take = gathering.as_ref().map_or(0, |x| x.lists.take());
    let degrees = g.degrees();
    let mut adds = BlockAdds::default();
    let mut overflow = false;
    let mut from = 0;
    while from < pending.len() {
        from = pending.collect(from, batch, chunk);
        if chunk.is_empty() {
            break;
        }
        let Some(gathering) = gathering.as_deref_mut() else {
            let (parents, _) = g.par_lists(chunk, |x, list, parents: &mut Vec<(u32, u32)>| {
                if let Some(&u) = list.iter().find(|&&u| frontier.get(u)) {
                    parents.push((x, u as u32));
                }
            })?;
            for (x, u) in parents.into_iter().flatten() {
                discover(tree, next, &mut found, x as u64, u, level);
            }
            continue;
        };
        let kept = &gathering.lists;
        let (reads, _) = g.par_lists(chunk, |x, list, out: &mut Vec<ListRead>| {
            if let Some(&u) = list.iter().find(|&&u| frontier.get(u)) {
                return out.push(ListRead::Parent(x, u as u32));
            }
            let (b, at) = ((x as u64 / SWEEP_BLOCK) as usize, (x as u64 % SWEEP_BLOCK) as u16);
            if take == 0 || kept.block(b).holds(at) {
                return out.push(ListRead::Missed(x, 0));
            }
            let mut hottest = Vec::with_capacity(take);
            outcore_store::hot::hottest(list, |u| degrees.degree(u), take, &mut hottest);
            out.push(ListRead::Missed(x, hottest.len() as u32));
            out.extend(hottest.iter().map(|&(_, u)| ListRead::Kept(u)));
        })?;
        let mut room = gathering.lists.room_left();
        let mut reads = reads.into_iter().flatten();
        while let Some(read) = reads.next() {
            match read {
                ListRead::Parent(x, u) => discover(tree, next, &mut found, x as u64, u, level),
                ListRead::Missed(x, len) if len > 0 => {
                    let b = (x as u64 / SWEEP_BLOCK) as usize;
                    if b != adds.block {
                        overflow |= !gathering.lists.merge(&adds, &gathering.budget, &mut gathering.charge);
                        adds.reset(b);
                    }
                    let ids = reads.by_ref().take(len as usize).map(|r| match r {
                        ListRead::Kept(u) => u,
                        _ => unreachable!("a missed list's kept neighbours follow it"),
                    });
                    if entry_bytes(len as usize) <= room {
                        room -= entry_bytes(len as usize);
                        adds.push(x as u64, ids);
                    } else {
                        ids.for_each(drop);
                        overflow = true;
                    }
                }
                ListRead::Missed(..) | ListRead::Kept(_) => {}
            }
        }
        overflow |= !gathering.lists.merge(&adds, &gathering.budget, &mut gathering.charge);
        adds.reset(adds.block);
    }
    if let Some(gathering) = gathering {
        gathering.settle(overflow);
    }
    Ok(found)
}

/// One part of a dense step: its blocks, and what it owns of the search's
/// state over them.
struct DensePart<'a> {
    blocks: std::ops::Range<usize>,
    parents: &'a mut [u32],
    levels: &'a mut [u32],
    words: &'a mut [u64],
    kept: &'a mut [GatheredBlock],
    /// Bytes of kept lists it may add.
    quota: u64,
    /// What its kept lists take.
    charge: Reservation,
}

/// [`read_pending`] by scans of the layout: the vertex range cut into
/// [`DENSE_PARTS`] runs of whole blocks of about equal cost, each read by
/// a scan of its own, `lanes` at once; each part keeps lists in a share of
/// the room left proportional to its cost (so that which are kept does not
/// depend on the order the parts finish in). When a part had more to keep
/// than its share, every kept list is halved after the step.
#[allow(clippy::too_many_arguments)]
fn dense_step(
    g: &Traverse,
    gathering: &mut Gathering,
    frontier: &Bitmap,
    pending: &Bitmap,
    tree: &mut BfsTree,
    next: &mut Bitmap,
    level: u32,
    swept: u64,
) -> Result<StepReads, StoreError> {
    let started = std::time::Instant::now();
    let degrees = g.degrees();
    let blocks = swept.div_ceil(SWEEP_BLOCK) as usize;
    // each block's candidates: their arcs, and a vertex's cost each
    let cost: Vec<u64> = (0..blocks)
        .into_par_iter()
        .map(|b| {
            let first = b as u64 * SWEEP_BLOCK;
            let mut cost = 0;
            degrees.for_each_in(first, (first + SWEEP_BLOCK).min(swept), |v, d| {
                if pending.get(v) {
                    cost += d + VERTEX_ARCS;
                }
            });
            cost
        })
        .collect();
    let total = cost.iter().sum::<u64>().max(1);
    let mut cuts = vec![0usize];
    let mut before = 0u64;
    for (b, &c) in cost.iter().enumerate() {
        before += c;
        if b + 1 < blocks && before as u128 * DENSE_PARTS as u128 >= total as u128 * cuts.len() as u128 {
            cuts.push(b + 1);
        }
    }
    cuts.push(blocks);
    let room = gathering.lists.room_left();
    let take = gathering.lists.take();
    let lanes = gathering.lanes as usize;
    // the parts, each owning its stretch of the state
    let mut parts = Vec::with_capacity(cuts.len() - 1);
    let (mut parents, mut levels) = (&mut tree.parent[..swept as usize], &mut tree.level[..swept as usize]);
    let mut words = &mut next.words_mut()[..swept.div_ceil(64) as usize];
    let mut kept = gathering.lists.blocks_mut();
    for w in cuts.windows(2) {
        let vertices = ((w[1] - w[0]) * SWEEP_BLOCK as usize).min(parents.len());
        let (p, rest_p) = std::mem::take(&mut parents).split_at_mut(vertices);
        let (l, rest_l) = std::mem::take(&mut levels).split_at_mut(vertices);
        let (x, rest_w) = std::mem::take(&mut words).split_at_mut(vertices.div_ceil(64));
        let (k, rest_k) = std::mem::take(&mut kept).split_at_mut(w[1] - w[0]);
        (parents, levels, words, kept) = (rest_p, rest_l, rest_w, rest_k);
        let share = cost[w[0]..w[1]].iter().sum::<u64>();
        let quota = (room as u128 * share as u128 / total as u128) as u64;
        let charge = gathering.budget.reserve("hybrid BFS: neighbours its bottom-up steps keep", 0)?;
        parts.push(DensePart { blocks: w[0]..w[1], parents: p, levels: l, words: x, kept: k, quota, charge });
    }
    // each lane a run of consecutive parts (of about equal cost), read by
    // one scan: an Elias-Fano index is read from its start to where a scan
    // begins
    let mut runs: Vec<Vec<DensePart<'_>>> = Vec::with_capacity(lanes);
    let count = parts.len();
    let mut parts = parts.into_iter();
    for lane in 0..lanes {
        let take_here = (lane + 1) * count / lanes - lane * count / lanes;
        runs.push(parts.by_ref().take(take_here).collect());
    }
    let (layout, budget) = (&gathering.layout, &gathering.budget);
    let done: Vec<(StepReads, bool, Vec<Reservation>)> = runs
        .into_par_iter()
        .filter(|run| !run.is_empty())
        .map(|run| scan_parts(layout, budget, run, frontier, pending, degrees, take, level, swept))
        .collect::<Result<_, StoreError>>()?;
    gathering.lists.recount();
    let mut reads = StepReads::default();
    let mut overflow = false;
    for (r, o, charges) in done {
        reads.found += r.found;
        reads.lists_scanned += r.lists_scanned;
        reads.bytes_scanned += r.bytes_scanned;
        overflow |= o;
        for charge in charges {
            gathering.charge.absorb(charge);
        }
    }
    gathering.scanned += reads.bytes_scanned;
    gathering.scanned_seconds += started.elapsed().as_secs_f64();
    gathering.settle(overflow);
    Ok(reads)
}

/// Consecutive parts of a [`dense_step`], by one scan of their vertices'
/// lists that decodes only the candidates'. Returns what it read and
/// whether a part had more lists to keep than its quota.
#[allow(clippy::too_many_arguments)]
fn scan_parts(
    layout: &Layout,
    budget: &Budget,
    run: Vec<DensePart<'_>>,
    frontier: &Bitmap,
    pending: &Bitmap,
    degrees: Degrees<'_>,
    take: usize,
    level: u32,
    swept: u64,
) -> Result<(StepReads, bool, Vec<Reservation>), StoreError> {
    let first = run[0].blocks.start as u64 * SWEEP_BLOCK;
    let end = (run[run.len() - 1].blocks.end as u64 * SWEEP_BLOCK).min(swept);
    let mut scan = layout.scan_range(first, end)?;
    let (mut reads, mut overflow) = (StepReads::default(), false);
    let mut adds = BlockAdds::with_room(run[0].blocks.start);
    let mut hottest = Vec::with_capacity(take);
    let mut charges = Vec::with_capacity(run.len());
    for mut part in run {
        let scratch = (&mut reads, &mut adds, &mut hottest);
        overflow |= scan_part(&mut scan, layout, budget, &mut part, (frontier, pending, degrees), take, level, swept, scratch)?;
        charges.push(part.charge);
    }
    reads.bytes_scanned = scan.bytes_read();
    Ok((reads, overflow, charges))
}

/// One part of [`scan_parts`], read on from where `scan` stands (the
/// part's first vertex); whether it had more lists to keep than its quota.
#[allow(clippy::too_many_arguments)]
fn scan_part(
    scan: &mut outcore_store::AdjacencyScan,
    layout: &Layout,
    budget: &Budget,
    part: &mut DensePart<'_>,
    (frontier, pending, degrees): (&Bitmap, &Bitmap, Degrees<'_>),
    take: usize,
    level: u32,
    swept: u64,
    (reads, adds, hottest): (&mut StepReads, &mut BlockAdds, &mut Vec<(u64, u32)>),
) -> Result<bool, StoreError> {
    let first = part.blocks.start as u64 * SWEEP_BLOCK;
    let end = (part.blocks.end as u64 * SWEEP_BLOCK).min(swept);
    let (mut used, mut overflow) = (0u64, false);
    adds.reset(part.blocks.start);
    for v in first..end {
        let candidate = pending.get(v);
        let listed = if candidate { scan.next_list()? } else { scan.next_list_prefix(0)? };
        let Some((_, list, _)) = listed else {
            return Err(StoreError::invalid(layout.adjacency_path(), format!("a scan of vertices {first}..{end} ended before vertex {v}")));
        };
        if !candidate {
            continue;
        }
        reads.lists_scanned += 1;
        let i = (v - first) as usize;
        if let Some(&u) = list.iter().find(|&&u| frontier.get(u)) {
            part.parents[i] = u as u32;
            part.levels[i] = level;
            part.words[i / 64] |= 1 << (i % 64);
            reads.found += 1;
            continue;
        }
        let b = (v / SWEEP_BLOCK) as usize;
        if take == 0 || part.kept[b - part.blocks.start].holds((v % SWEEP_BLOCK) as u16) {
            continue;
        }
        outcore_store::hot::hottest(list, |u| degrees.degree(u), take, hottest);
        let cost = entry_bytes(hottest.len());
        if used + cost > part.quota {
            overflow = true;
            continue;
        }
        used += cost;
        if b != adds.block {
            overflow |= !part.kept[adds.block - part.blocks.start].merge_charged(adds, budget, &mut part.charge);
            adds.reset(b);
        }
        adds.push(v, hottest.iter().map(|&(_, u)| u));
    }
    overflow |= !part.kept[adds.block - part.blocks.start].merge_charged(adds, budget, &mut part.charge);
    Ok(overflow)
}

#[inline]
fn discover(tree: &mut BfsTree, next: &mut Bitmap, found: &mut usize, w: u64, parent: u32, level: u32) {
    tree.parent[w as usize] = parent;
    tree.level[w as usize] = level;
    next.set(w);
    *found += 1;
}

/// Hybrid BFS from `root`. `inn` reads in-edges for bottom-up steps; pass
/// `None` for undirected graphs (in-edges are out-edges). `hot` must be
/// built from the same in-edges.
pub fn hybrid_bfs(
    out: &Traverse,
    inn: Option<&Traverse>,
    hot: &mut HotLists,
    root: u64,
    budget: &Budget,
    opts: &HybridOptions,
) -> Result<(BfsTree, Vec<LevelStats>), StoreError> {
    let n = out.vertices();
    let mut tree = BfsTree::without_queue(n, root, budget)?;
    let _extra_charge = budget.reserve("hybrid BFS frontier bitmaps and chunk lists", state_bytes(n, out.arcs()) - 8 * n)?;
    let (mut frontier, mut next, mut pending) = (Bitmap::new(n), Bitmap::new(n), Bitmap::new(n));
    // the in-degrees of every vertex sum to the in-edges' arcs
    let mut m_bu: u64 = inn.unwrap_or(out).arcs();
    tree.parent[root as usize] = root as u32;
    tree.level[root as usize] = 0;
    m_bu -= in_degrees(inn, out).degree(root);
    frontier.set(root);
    let (mut size, mut m_td) = (1usize, out.degree(root));
    // the out-degrees of the vertices reached: each frontier's, summed as it is found
    let mut arcs_scanned = m_td;
    let mut reached = 1u64;
    let mut direction = Direction::TopDown;
    let mut prev_size = 0usize;
    let mut stats = Vec::new();
    let mut nbrs = Vec::new();
    let mut level = 0u32;
    let chunk_max = chunk_len(n);
    let mut chunk: Vec<u32> = Vec::with_capacity(chunk_max);
    // a vertex without in-neighbours is reached by no step: bottom-up
    // steps sweep only up to the last with some (in degree order, the
    // isolated vertices after it are half of a Kronecker graph's)
    let (swept, listed) = listed_end(in_degrees(inn, out), n);
    while size > 0 {
        direction = match direction {
            Direction::TopDown if size > prev_size && m_td as f64 > m_bu as f64 / opts.alpha => Direction::BottomUp,
            Direction::BottomUp if size < prev_size && (m_td as f64) < m_bu as f64 / opts.beta => Direction::TopDown,
            d => d,
        };
        let read_so_far = || {
            let (o, i) = (out.stats(), inn.map(|g| g.stats()));
            (o.lists_read + i.as_ref().map_or(0, |s| s.lists_read), o.cache.bytes_read + i.as_ref().map_or(0, |s| s.cache.bytes_read))
        };
        let started = std::time::Instant::now();
        let (lists_before, bytes_before) = read_so_far();
        // lists the step read by scans of the layout, and their bytes
        let (mut lists_scanned, mut bytes_scanned) = (0, 0);
        // size of the next frontier
        let mut found = 0usize;
        match direction {
            Direction::TopDown => {
                // the frontier in id order, a chunk at a time: blocks in file
                // order; each chunk in rounds read on every core
                let mut from = 0;
                while from < n {
                    from = frontier.collect(from, chunk_max, &mut chunk);
                    let mut at = 0;
                    while at < chunk.len() {
                        let end = round_end(out, &chunk, at, chunk.len());
                        let (round, _) = read_round(out, &chunk[at..end], &tree.parent, &mut nbrs)?;
                        round.for_each(&nbrs, |w, v| {
                            if tree.parent[w as usize] == NONE {
                                discover(&mut tree, &mut next, &mut found, w as u64, v, level + 1);
                            }
                        });
                        at = end;
                    }
                }
            }
            Direction::BottomUp => {
                // 1. in-memory neighbours, a block per task; unresolved long lists are marked pending
                found += sweep_in_memory(&mut tree, &mut next, hot, &frontier, in_degrees(inn, out), swept, level + 1, &mut pending);
                // 2. the pending vertices' full lists, in id order, on every core
                let reads = read_pending(
                    inn.unwrap_or(out),
                    hot,
                    &frontier,
                    &mut pending,
                    &mut tree,
                    &mut next,
                    level + 1,
                    (swept, listed),
                    &mut chunk,
                )?;
                found += reads.found;
                (lists_scanned, bytes_scanned) = (reads.lists_scanned, reads.bytes_scanned);
            }
        }
        let (lists_after, bytes_after) = read_so_far();
        stats.push(LevelStats {
            direction,
            frontier: size as u64,
            lists_read: lists_after - lists_before + lists_scanned,
            bytes_read: bytes_after - bytes_before + bytes_scanned,
            seconds: started.elapsed().as_secs_f64(),
        });
        // the unvisited in-degree sum loses the newly visited vertices; the
        // next frontier's out-degree sum decides the next direction
        let visited_in;
        (visited_in, m_td) = degree_sums(&next, inn, out);
        m_bu -= visited_in;
        arcs_scanned += m_td;
        reached += found as u64;
        prev_size = size;
        size = found;
        std::mem::swap(&mut frontier, &mut next);
        next.clear();
        level += 1;
    }
    tree.reached = reached;
    tree.arcs_scanned = arcs_scanned;
    Ok((tree, stats))
}

/// The engines and in-memory neighbour lists of a hybrid BFS.
pub struct HybridEngines {
    pub out: Traverse,
    /// In-edges of a directed graph (undirected graphs use `out`).
    pub inn: Option<Traverse>,
    pub hot: HotLists,
}

impl HybridEngines {
    /// Split the budget for hybrid BFS: `state` for the algorithm, the
    /// index(es), the minimum caches, then half of what is left for the
    /// in-memory neighbours and half for the caches; stored lists take at
    /// least their first [`FIRST_COLUMNS`] columns where those fit, and
    /// the caches what the whole columns leave. Lists built by a
    /// scan take the scan's memory (its decoder's lists, sized by the
    /// longest list, are most of it for a compressed layout) off the top
    /// first, so that it is not taken from the columns alone (it is held
    /// only while they are built). Where the store has no hot layout and
    /// the run makes one search (`searches`), nothing is built: the
    /// search gathers its in-memory neighbours in the same share
    /// ([`HotLists::gather_within`]): a scan ranks every list to save the
    /// later bottom-up steps reads, where the first bottom-up step reads
    /// the lists of the vertices still unvisited anyway, and only those it
    /// leaves unvisited need in-memory neighbours. Several searches share
    /// lists built once.
    pub fn open(store: &Store, budget: &Budget, opts: &TraverseOptions, state: u64, searches: usize) -> Result<Self, StoreError> {
        let directed = store.manifest().directed;
        let engines = if directed { 2 } else { 1 };
        let min_cache = Traverse::min_cache_bytes(opts.block_bytes);
        // each engine's smallest opening: its index, its minimum cache, and
        // what checking its files takes (Traverse::min_bytes)
        let min_out = Traverse::min_bytes(store, "out", opts.block_bytes)?;
        let min_in = if directed { Traverse::min_bytes(store, "in", opts.block_bytes)? } else { 0 };
        let rest = budget.available().saturating_sub(state + min_out + min_in);
        // the caches share what the in-memory neighbours' `share` leaves;
        // `hot_kept` is what those still have to take once the engines are open
        let open_engines = |share: u64, hot_kept: u64| -> Result<(Traverse, Option<Traverse>), StoreError> {
            let cache_each = min_cache + (rest - share) / engines;
            let keep_for_in = if directed { min_in - min_cache + cache_each } else { 0 };
            let with_cache = TraverseOptions { cache_bytes: Some(cache_each), ..opts.clone() };
            let out = Traverse::open(store, "out", budget, &with_cache, state + hot_kept + keep_for_in)?;
            let inn = if directed { Some(Traverse::open(store, "in", budget, &with_cache, state + hot_kept)?) } else { None };
            Ok((out, inn))
        };
        // stored columns: half of it, and at least the first few where
        // they fit (FIRST_COLUMNS)
        let first = (0..=FIRST_COLUMNS).rev().find_map(|k| HotLists::stored_bytes(store, k).ok().filter(|&b| b <= rest));
        let hot_share = (rest / 2).max(first.unwrap_or(0));
        match HotLists::stored_k(store, "in", hot_share) {
            Ok(k) => {
                // the stored columns are read while the engines load their
                // indexes: charged first, so that the engines see the same
                // budget whichever finishes first; what the columns leave
                // of their share goes to the caches (whole columns rarely
                // fill it: at scale 25 the first alone is 65 MiB)
                let charge = HotLists::reserve_stored(store, k, budget)?;
                let readers = budget.reserve("hot columns' readers", outcore_store::hot::load_bytes(k))?;
                let taken = HotLists::stored_bytes(store, k)?;
                let (engines, columns) = rayon::join(|| open_engines(taken, 0), || outcore_store::hot::load_columns(store, k));
                drop(readers);
                let (out, inn) = engines?;
                let hot = HotLists::from_stored(store, "in", inn.as_ref().unwrap_or(&out), k, hot_share, columns?, charge)?;
                Ok(HybridEngines { out, inn, hot })
            }
            Err(why) if searches <= 1 => {
                // what gathering takes at least and a lane of scans off
                // the top, then half of the rest
                let (least, lane) = HotLists::gather_bytes(store, "in")?;
                let first = least + lane;
                let share = if rest > first { first + (rest - first) / 2 } else { rest / 2 };
                let (out, inn) = open_engines(share, share)?;
                let hot = HotLists::gather_within(store, "in", inn.as_ref().unwrap_or(&out), share, budget, why)?;
                Ok(HybridEngines { out, inn, hot })
            }
            Err(why) => {
                let scan = build_part_bytes(store, "in")?;
                let build_share = if rest > scan { scan + (rest - scan) / 2 } else { rest / 2 };
                let (out, inn) = open_engines(build_share, build_share)?;
                let hot = HotLists::build_within(store, "in", inn.as_ref().unwrap_or(&out), build_share, budget, why)?;
                Ok(HybridEngines { out, inn, hot })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bfs::tests::directed_store;

    /// The block cursors' charge is what `block_cursors` allocates, for
    /// every column count, over vertices of degree 0 to 3 in three blocks
    /// and a part of one; each column's cursor at a block counts the
    /// vertices before it with more in-neighbours than the column's rank.
    /// Vertices in three sweep blocks and a part of one, vertex v with
    /// v % 4 out-neighbours; its traverse engine over `out`.
    fn degrees_mod_4(dir: &std::path::Path) -> (Traverse, u64) {
        let n = 3 * SWEEP_BLOCK + 100;
        let store = directed_store(dir, n, (0..n).flat_map(|v| (1..=v % 4).map(move |d| (v, (v + d) % n))));
        (Traverse::open(&store, "out", &Budget::unlimited(), &TraverseOptions::default(), 0).unwrap(), n)
    }

    #[test]
    fn cursors_are_charged_what_they_take() {
        let dir = tempfile::tempdir().unwrap();
        let (g, n) = degrees_mod_4(dir.path());
        for k in 0..5usize {
            let (at, entries) = block_cursors(g.degrees(), n, k);
            assert_eq!(at.capacity() as u64 * 4, cursor_bytes(n, k as u64), "{k} columns");
            for (b, block) in at.chunks(k.max(1)).enumerate().filter(|_| k > 0) {
                let first = b as u64 * SWEEP_BLOCK;
                for (j, &cursor) in block.iter().enumerate() {
                    let before = (0..first).filter(|&v| v % 4 > j as u64).count() as u32;
                    assert_eq!(cursor, before, "{k} columns: block {b}, column {j}");
                }
            }
            let want: Vec<u64> = (0..k as u64).map(|j| (0..n).filter(|&v| v % 4 > j).count() as u64).collect();
            assert_eq!(entries, want, "{k} columns: each column's entries");
        }
    }

    /// `choose_k` takes the most columns whose entries (4 bytes each, the
    /// vertices with more neighbours than the column's rank) and cursors
    /// fit the bytes given: exactly k columns' bytes give k, a byte less
    /// k - 1; and more room than the lists need gives no empty column.
    #[test]
    fn choose_k_takes_the_columns_that_fit() {
        let dir = tempfile::tempdir().unwrap();
        let (g, n) = degrees_mod_4(dir.path());
        let column = |j: u64| (0..n).filter(|&v| v % 4 > j).count() as u64 * 4 + n.div_ceil(SWEEP_BLOCK) * 4;
        let mut bytes = 0;
        assert_eq!(HotLists::choose_k(&g, 0), 0);
        for k in 1..=3u64 {
            bytes += column(k - 1);
            assert_eq!(HotLists::choose_k(&g, bytes), k as u32, "{bytes} bytes");
            assert_eq!(HotLists::choose_k(&g, bytes - 1), k as u32 - 1, "{} bytes", bytes - 1);
        }
        // no vertex has a fourth list entry: room for more takes no empty column
        assert_eq!(HotLists::choose_k(&g, u64::MAX), 3);
    }

    /// Lists built in parts are read only up to the last vertex with a
    /// list (the parts' last cut is one past it; the vertices after it,
    /// isolated ones in degree order, are not read), and their columns
    /// equal a plain ranking (each list by descending degree, then id),
    /// also when the last vertex has a list.
    #[test]
    fn hot_lists_are_read_up_to_the_last_vertex_with_a_list() {
        let n = 1000u64;
        for listed in [600u64, 1000] {
            let dir = tempfile::tempdir().unwrap();
            let arcs: Vec<(u64, u64)> = (0..listed).flat_map(|v| (1..=v % 5).map(move |d| (v, (v * 7 + d) % n))).collect();
            let store = directed_store(dir.path(), n, arcs.iter().copied());
            let g = Traverse::open(&store, "out", &Budget::unlimited(), &TraverseOptions::default(), 0).unwrap();
            let last = (0..listed).rev().find(|v| v % 5 > 0).unwrap();
            let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
            let cuts = pool.install(|| arc_cuts(&g, 8));
            assert_eq!((cuts.len(), cuts.last()), (9, Some(&(last + 1))), "{listed} listed: {cuts:?}");
            let degree = |u: u64| arcs.iter().filter(|a| a.0 == u).count();
            let k = 3;
            let hot = pool.install(|| HotLists::build(&store, "out", &g, k as u32, &Budget::new(1 << 30), String::new())).unwrap();
            assert!(matches!(hot.origin, HotOrigin::Built { lanes: 2, parts: 8, .. }), "{:?}", hot.origin);
            let mut want = vec![Vec::new(); k];
            for v in 0..n {
                let mut list: Vec<u64> = arcs.iter().filter(|a| a.0 == v).map(|a| a.1).collect();
                list.sort_by_key(|&u| (std::cmp::Reverse(degree(u)), u));
                for (column, &u) in want.iter_mut().zip(&list) {
                    column.push(u as u32);
                }
            }
            for (j, column) in want.iter().enumerate() {
                assert_eq!(hot.column(j), column.as_slice(), "{listed} listed: column {j}");
            }
        }
    }

    /// The passes over the degrees that set up hot lists, on every core
    /// in stretches, equal plain walks over every vertex, on a graph of
    /// five stretches and a part of one (hubs first, the last 5,000
    /// vertices without a list): the parts' cuts for many part counts
    /// (a cut before the first vertex whose cost before it reaches the
    /// next share), the columns' entries over ranges that start and end
    /// within stretches, and the end of the listed vertices.
    #[test]
    fn the_degree_passes_equal_plain_walks() {
        let n = 5 * DEGREE_STRETCH + 123;
        let listed = n - 5_000;
        let degree = |v: u64| {
            if v < 100 {
                2_000 - 10 * v
            } else if v < listed {
                v % 7
            } else {
                0
            }
        };
        let dir = tempfile::tempdir().unwrap();
        let store = directed_store(dir.path(), n, (0..n).flat_map(|v| (1..=degree(v)).map(move |d| (v, (v * 7 + d) % n))));
        let g = Traverse::open(&store, "out", &Budget::unlimited(), &TraverseOptions::default(), 0).unwrap();
        let last = (0..n).rev().find(|&v| degree(v) > 0).unwrap() + 1;
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let count = (0..n).filter(|&v| degree(v) > 0).count() as u64;
        assert_eq!(pool.install(|| listed_end(g.degrees(), n)), (last, count));
        assert_eq!(pool.install(|| listed_end(g.degrees(), 3)), (3, 3));
        let total: u64 = (0..last).map(|v| degree(v) + VERTEX_ARCS).sum();
        for parts in [1u64, 2, 3, 8, 33, 1_000] {
            let mut want = vec![0u64];
            let mut before = 0;
            for v in 0..last {
                while (want.len() as u64) < parts && before * parts >= total * want.len() as u64 && v > *want.last().unwrap() {
                    want.push(v);
                }
                before += degree(v) + VERTEX_ARCS;
            }
            want.resize(parts as usize + 1, last);
            assert_eq!(pool.install(|| arc_cuts(&g, parts)), want, "{parts} parts");
        }
        for (first, end) in [(0, n), (7, 3 * DEGREE_STRETCH + 5), (DEGREE_STRETCH + 1, DEGREE_STRETCH + 2), (40, 40)] {
            let want: Vec<u64> = (0..9).map(|j| (first..end).filter(|&v| degree(v) > j).count() as u64).collect();
            assert_eq!(pool.install(|| column_entries(&g, first, end, 9)), want, "{first}..{end}");
        }
    }

    /// A hybrid BFS is charged at least its parent and level arrays (4
    /// bytes each a vertex), its frontier, next and pending bitmaps, its
    /// chunk lists (4 bytes an entry) and a round of lists read, as its
    /// doc says.
    #[test]
    fn the_hybrid_state_counts_its_arrays_and_bitmaps() {
        for (n, arcs) in [(1u64, 0u64), (1000, 5000), (1 << 20, 1 << 24), (3 << 30, 1 << 34)] {
            let floor = 8 * n + 3 * bitmap_bytes(n) + 2 * chunk_len(n) as u64 * 4 + round_bytes(arcs);
            assert!(state_bytes(n, arcs) >= floor, "{n} vertices, {arcs} arcs: {} < {floor}", state_bytes(n, arcs));
        }
    }

    /// Runs a hybrid BFS of `store` from `root` with `alpha` and `beta`,
    /// checks each level's frontier and direction against the switching
    /// rule worked out again from a plain BFS's levels, and returns the
    /// directions.
    fn directions_follow_the_rule(store: &Store, root: u64, alpha: f64, beta: f64) -> Vec<Direction> {
        let n = store.vertices();
        let budget = Budget::unlimited();
        let out = Traverse::open(store, "out", &budget, &TraverseOptions::default(), 0).unwrap();
        let inn = Traverse::open(store, "in", &budget, &TraverseOptions::default(), 0).unwrap();
        let mut hot = HotLists::build(store, "in", &inn, 2, &budget, "the test builds them".into()).unwrap();
        // the plain BFS's levels, from the out-lists of a sequential scan
        let mut lists = vec![Vec::new(); n as usize];
        let mut scan = store.layout("out").unwrap().scan().unwrap();
        while let Some((v, ids, _)) = scan.next_list().unwrap() {
            lists[v as usize] = ids.to_vec();
        }
        let mut in_degree = vec![0u64; n as usize];
        lists.iter().flatten().for_each(|&u| in_degree[u as usize] += 1);
        let mut levels: Vec<Vec<u64>> = vec![vec![root]];
        let mut seen = vec![false; n as usize];
        seen[root as usize] = true;
        while let Some(last) = levels.last().filter(|l| !l.is_empty()) {
            let mut next = Vec::new();
            for &v in last {
                for &u in &lists[v as usize] {
                    if !std::mem::replace(&mut seen[u as usize], true) {
                        next.push(u);
                    }
                }
            }
            levels.push(next);
        }
        levels.pop();
        let what = format!("alpha {alpha}, beta {beta}");
        let (_, stats) = hybrid_bfs(&out, Some(&inn), &mut hot, root, &budget, &HybridOptions { alpha, beta }).unwrap();
        assert_eq!(stats.len(), levels.len(), "{what}: one level each");
        let mut unvisited_in: u64 = in_degree.iter().sum();
        let (mut direction, mut prev_size) = (Direction::TopDown, 0usize);
        for (level, (frontier, got)) in levels.iter().zip(&stats).enumerate() {
            unvisited_in -= frontier.iter().map(|&v| in_degree[v as usize]).sum::<u64>();
            let out_arcs: u64 = frontier.iter().map(|&v| lists[v as usize].len() as u64).sum();
            let size = frontier.len();
            direction = match direction {
                Direction::TopDown if size > prev_size && out_arcs as f64 > unvisited_in as f64 / alpha => Direction::BottomUp,
                Direction::BottomUp if size < prev_size && (out_arcs as f64) < unvisited_in as f64 / beta => Direction::TopDown,
                d => d,
            };
            assert_eq!(got.frontier, size as u64, "{what}: level {level}'s frontier");
            assert_eq!(got.direction, direction, "{what}: level {level}");
            prev_size = size;
        }
        stats.iter().map(|s| s.direction).collect()
    }

    /// Each level's direction follows the switching rule (thesis section
    /// 3.4.4.4, Beamer's alpha and beta): to bottom-up when the frontier
    /// grows and its out-arcs pass the unvisited vertices' in-arcs over
    /// alpha; back when it shrinks and they fall under those over beta. On
    /// a skewed directed graph from its hub, with the defaults and with
    /// rules that switch sooner (both switches seen).
    #[test]
    fn each_level_goes_the_way_the_switching_rule_says() {
        let dir = tempfile::tempdir().unwrap();
        let n = 20_000u64;
        let mut rng = outcore_io::SplitMix64(17);
        let mut end = move || (rng.next_u64() % n) & (rng.next_u64() % n);
        let store = directed_store(dir.path(), n, (0..200_000).map(|_| (end(), end())));
        let g = Traverse::open(&store, "out", &Budget::unlimited(), &TraverseOptions::default(), 0).unwrap();
        let hub = (0..n).max_by_key(|&v| g.degree(v)).unwrap();
        let mut runs = Vec::new();
        for (alpha, beta) in [(DEFAULT_ALPHA, DEFAULT_BETA), (2.0, 1000.0), (2.0, 0.01)] {
            runs.push(directions_follow_the_rule(&store, hub, alpha, beta));
        }
        let back = |d: &Vec<Direction>| d.windows(2).any(|w| w == [Direction::BottomUp, Direction::TopDown]);
        assert!(runs.iter().any(|d| d.contains(&Direction::BottomUp)) && runs.iter().any(back), "{runs:?}");
    }

    /// The rule's boundaries, on a graph built to meet them (alpha and beta
    /// 4): 0 -> 1, 1 -> 100 leaves, each leaf -> one of 10 sinks. Level 1's
    /// frontier is as large as level 0's (one vertex) with out-arcs (100)
    /// past the unvisited in-arcs over alpha (200 / 4): it stays top-down,
    /// since the frontier did not grow. Level 2 goes bottom-up; at level 3
    /// the out-arcs (0) equal the unvisited in-arcs over beta (0 / 4): not
    /// under them, so it stays bottom-up.
    #[test]
    fn the_switching_rule_at_its_boundaries() {
        let dir = tempfile::tempdir().unwrap();
        let arcs = std::iter::once((0, 1)).chain((2..102).map(|leaf| (1, leaf))).chain((2..102).map(|leaf| (leaf, 102 + leaf % 10)));
        let store = directed_store(dir.path(), 112, arcs);
        use Direction::{BottomUp, TopDown};
        assert_eq!(directions_follow_the_rule(&store, 0, 4.0, 4.0), [TopDown, TopDown, BottomUp, BottomUp]);
    }

    /// A bottom-up step reads from the SSD only the lists its in-memory
    /// columns do not hold whole (k = 2): root 0 -> 1..=50 (each found in
    /// memory); 60 with two in-neighbours and 63 with three, none of them
    /// reached. Each of the two bottom-up levels (alpha 10^9 turns the
    /// first one already) reads 63's list and no other.
    #[test]
    fn a_bottom_up_step_reads_only_the_lists_not_in_memory() {
        let dir = tempfile::tempdir().unwrap();
        let arcs = (1..=50).map(|v| (0, v)).chain([(61, 60), (62, 60), (61, 63), (62, 63), (64, 63)]);
        let store = directed_store(dir.path(), 65, arcs);
        let budget = Budget::unlimited();
        let out = Traverse::open(&store, "out", &budget, &TraverseOptions::default(), 0).unwrap();
        let inn = Traverse::open(&store, "in", &budget, &TraverseOptions::default(), 0).unwrap();
        let mut hot = HotLists::build(&store, "in", &inn, 2, &budget, "the test builds them".into()).unwrap();
        let (tree, stats) = hybrid_bfs(&out, Some(&inn), &mut hot, 0, &budget, &HybridOptions { alpha: 1e9, beta: 4.0 }).unwrap();
        assert_eq!(tree.reached, 51);
        let levels: Vec<(Direction, u64)> = stats.iter().map(|s| (s.direction, s.lists_read)).collect();
        assert_eq!(levels, [(Direction::BottomUp, 1), (Direction::BottomUp, 1)]);
    }
}
