//! Direction-optimizing BFS across ranks (Beamer, Buluc, Asanovic and
//! Patterson, "Distributed Memory Breadth-First Search Revisited:
//! Enabling Bottom-Up Search", 2013, sections 3-4), each rank reading its
//! part through the traverse engine.
//!
//! - A top-down step reads the lists of the rank's frontier vertices. A
//!   neighbour it owns is visited at once; for one owned elsewhere (a
//!   ghost) it keeps the smallest parent found and, at the end of the
//!   step, sends (ghost, parent) pairs to the owners (one all-to-all). A
//!   ghost once sent is never sent again: its owner visited it then.
//! - A bottom-up step (undirected graphs, where out- and in-neighbours are
//!   the same lists) gathers every rank's frontier as a bitmap of its
//!   owned vertices (an allgather), then checks each unvisited vertex's
//!   hot list in memory (NETALX, Iwabuchi's thesis chapter 3: its k
//!   neighbours of highest degree in the whole graph, built by one scan of
//!   the part at open, k as large as the budget allows) and reads the
//!   lists of those it does not settle, stopping at the first neighbour in
//!   the frontier.
//! - The switch is the paper's: to bottom-up when the frontier's arcs
//!   pass the unvisited vertices' arcs / alpha, back to top-down when the
//!   frontier, shrinking, falls below |V| / beta.
//!
//! A vertex's parent is a neighbour on the level above (Graph500's rule);
//! levels equal the single-machine BFS exactly.

use super::{par_rounds, OwnedChunks, RankFigures, ROUND_BYTES};
use crate::error::Result;
use crate::part::{bit, bitmap, push_round_bytes, set_bit, OriginalIds, Part, PartShape, Place};
use outcore_algorithms::bfs::hybrid::SWEEP_BLOCK;
use outcore_algorithms::bfs::HotLists;
use outcore_algorithms::values::UNREACHED_U64 as UNREACHED;
use outcore_io::Budget;
use rayon::prelude::*;
use std::time::Instant;

/// The share of what a rank's budget leaves (beyond its tables, the state
/// and the engine's smallest opening) that goes to hot lists; the cache
/// takes the rest (the single machine's split, `HybridEngines::open`).
pub const HOT_SHARE: f64 = 0.5;

/// Hot lists for the bottom-up steps of an undirected part opened with
/// [`HOT_SHARE`] spared: the k highest-degree neighbours of every local
/// vertex, a ghost ranked by its degree in the whole graph, k as large as
/// the budget beyond `state` allows. Loaded with one sequential read when
/// every part stores them (`outcore partition` writes them); else built by
/// one sequential scan of the part, the ghosts' degrees asked of their
/// owners first, when any rank has room for a column. None for a directed
/// part (top-down only) or when not one column fits. A collective.
pub fn hot_lists(part: &Part, budget: &Budget, state: u64) -> Result<Option<HotLists>> {
    if part.directed() {
        return Ok(None);
    }
    let ingest = |e: outcore_store::StoreError| crate::error::DistError::Ingest(e.into());
    // stored: no scan, no degrees to rank by, so more columns fit
    let room = budget.available().saturating_sub(state);
    let stored = HotLists::stored_k(&part.store, "out", room);
    if part.comm().max(&[stored.is_err() as u64])[0] == 0 {
        return match stored {
            Ok(0) => Ok(None),
            _ => HotLists::open(&part.store, "out", &part.graph, room, budget).map(Some).map_err(ingest),
        };
    }
    // beside the state, the scan that builds them (a rank that cannot
    // size it fails every rank here, before the collectives below)
    let scan = crate::dynamic::agree(part.comm(), outcore_algorithms::bfs::hybrid::build_part_bytes(&part.store, "out").map_err(ingest))?;
    let k = HotLists::choose_k(&part.graph, budget.available().saturating_sub(state + scan));
    // the ghosts' degrees are a collective: asked for only when some rank
    // has room for a column, and then by every rank
    if part.comm().max(&[k as u64])[0] == 0 {
        return Ok(None);
    }
    let ghost_degree = part.pull_all(|i| part.graph.degree(part.owned_vertex(i) as u64));
    if k == 0 {
        return Ok(None);
    }
    // every local vertex's degree in the whole graph, for the ranking: in
    // the state's room (not yet in use), charged while the lists are built
    let n = part.original.len() as u64;
    let _ranking =
        budget.reserve("hot lists: the degrees they are ranked by", 4 * n + 8 * ghost_degree.len() as u64).map_err(|e| ingest(e.into()))?;
    let places = part.places();
    let degree: Vec<u32> = (0..part.original.len() as u32)
        .map(|u| match places.place(u) {
            Place::Owned(_) => part.graph.degree(u as u64),
            Place::Ghost(g) => ghost_degree[g as usize],
        })
        .map(|d| d.min(u32::MAX as u64) as u32)
        .collect();
    drop(ghost_degree);
    let why = "a part's hot lists are built at open".to_string();
    HotLists::build_ranked_by(&part.store, "out", &part.graph, k, budget, why, degree.as_slice()).map(Some).map_err(ingest)
}

/// Which steps a run may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    /// Top-down and bottom-up as the frontier asks (undirected graphs;
    /// a directed graph runs top-down).
    Hybrid,
    TopDown,
}

#[derive(Clone, Copy, Debug)]
pub struct BfsOptions {
    pub direction: Direction,
    pub alpha: f64,
    pub beta: f64,
}

impl Default for BfsOptions {
    /// The paper's alpha 15 and beta 18 (section 3).
    fn default() -> Self {
        BfsOptions { direction: Direction::Hybrid, alpha: 15.0, beta: 18.0 }
    }
}

/// One level.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Step {
    pub level: u64,
    pub bottom_up: bool,
    /// Vertices in the frontier the step started from (all ranks).
    pub frontier: u64,
    pub seconds: f64,
}

pub struct DistBfs {
    /// Per owned vertex: its level ([`UNREACHED_LEVEL`] if not reached;
    /// [`DistBfs::level_of`] widens it) and its parent (the vertex itself
    /// for the root; [`DistBfs::parent_of`] gives its original id).
    pub level: Vec<u32>,
    pub parent: Parents,
    /// Over all ranks.
    pub reached: u64,
    pub depth: u64,
    /// Adjacency entries read, all ranks.
    pub arcs_read: u64,
    /// Input edges in the root's component (Graph500's nedge: an
    /// undirected edge once), all ranks.
    pub edges_traversed: u64,
    pub steps: Vec<Step>,
    pub figures: RankFigures,
}

/// Each owned vertex's parent, as the search keeps it.
pub enum Parents {
    /// Original ids ([`UNREACHED`] if not reached): on a directed graph,
    /// whose parents (in-neighbours) a part need not hold.
    Ids(Vec<u64>),
    /// Original ids in 4 bytes ([`NO_PARENT`] if not reached): a directed
    /// graph whose ids all fit.
    Narrow(Vec<NarrowId>),
    /// Local ids of the part ([`NO_PARENT`] if not reached): on an
    /// undirected graph, whose parents are neighbours, all in the part (4
    /// bytes a vertex, not 8).
    Local(Vec<u32>),
}

/// An unreached vertex's parent in [`Parents::Local`] and [`Parents::Narrow`].
pub const NO_PARENT: u32 = u32::MAX;

/// An original id below `u32::MAX`, in 4 bytes ([`Parents::Narrow`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct NarrowId(pub u32);

impl DistBfs {
    /// Owned vertex `i`'s parent's original id ([`UNREACHED`] if not
    /// reached); `original` is the part's ([`crate::part::Part::original`]).
    pub fn parent_of(&self, original: &OriginalIds, i: usize) -> u64 {
        match &self.parent {
            Parents::Ids(ids) => ids[i],
            Parents::Narrow(ids) => match ids[i].0 {
                NO_PARENT => UNREACHED,
                id => id as u64,
            },
            Parents::Local(local) => match local[i] {
                NO_PARENT => UNREACHED,
                v => original.get(v),
            },
        }
    }
    /// Owned vertex `i`'s level as the single machine gives it
    /// ([`UNREACHED`] if not reached).
    pub fn level_of(&self, i: usize) -> u64 {
        match self.level[i] {
            UNREACHED_LEVEL => UNREACHED,
            l => l as u64,
        }
    }
}

/// An unreached vertex's level in [`DistBfs::level`].
pub const UNREACHED_LEVEL: u32 = u32::MAX;
/// A ghost no frontier vertex reached in this step (its best parent is
/// kept as the owned index of the parent, 4 bytes, not its id).
const NO_PROPOSAL: u32 = u32::MAX;

/// The ghosts given a parent in this step: a scan of their best parents
/// (no list of them is kept).
fn proposed(best: &[u32]) -> impl Iterator<Item = u32> + '_ {
    (0..best.len() as u32).filter(|&g| best[g as usize] != NO_PROPOSAL)
}

/// Bytes of state of a part of `shape`: per owned vertex its level (u32)
/// and parent (a local id, 4 bytes, on an undirected graph; an original
/// id on a directed one, 4 bytes when every id fits, else 8:
/// [`Parents`]), and a bit of the frontier bitmap (the frontiers and the
/// lists to read are found by scanning the levels, a round's arcs'
/// worth of vertices at a time, not held); per ghost its best parent (an
/// owned index) and a bit, whether it was sent; the gathered frontier
/// bitmaps; a top-down round's pairs, and a round of an exchange.
pub fn state_bytes(shape: &PartShape) -> u64 {
    shape.owned * (4 + if shape.directed && !shape.ids_fit_u32() { 8 } else { 4 })
        + shape.owned.div_ceil(8)
        + shape.round_arcs * 4
        + shape.ghosts * 4
        + shape.ghosts.div_ceil(8)
        + shape.vertices.div_ceil(8) * 2
        + shape.round_arcs * ROUND_BYTES
        + push_round_bytes(1, shape.ranks)
}

/// How the search keeps a parent ([`Parents`]): an original id, or a
/// local id. Both ascend with the original ids, so the smaller key is the
/// parent of smaller id.
trait ParentKey: Copy + Ord + Send + Sync {
    const NONE: Self;
    /// Local vertex `v` of the part.
    fn local(v: u32, original: &OriginalIds) -> Self;
    /// The vertex of original id `id`, sent by another rank (None if the
    /// part lacks it).
    fn id(id: u64, part: &Part) -> Option<Self>;
    fn parents(keys: Vec<Self>) -> Parents;
}

impl ParentKey for u64 {
    const NONE: u64 = UNREACHED;
    fn local(v: u32, original: &OriginalIds) -> u64 {
        original.get(v)
    }
    fn id(id: u64, _: &Part) -> Option<u64> {
        Some(id)
    }
    fn parents(keys: Vec<u64>) -> Parents {
        Parents::Ids(keys)
    }
}

impl ParentKey for NarrowId {
    const NONE: NarrowId = NarrowId(NO_PARENT);
    fn local(v: u32, original: &OriginalIds) -> NarrowId {
        // (only for graphs whose ids all fit: `PartShape::ids_fit_u32`)
        NarrowId(original.get(v) as u32)
    }
    fn id(id: u64, _: &Part) -> Option<NarrowId> {
        Some(NarrowId(id as u32))
    }
    fn parents(keys: Vec<NarrowId>) -> Parents {
        Parents::Narrow(keys)
    }
}

impl ParentKey for u32 {
    const NONE: u32 = NO_PARENT;
    fn local(v: u32, _: &OriginalIds) -> u32 {
        v
    }
    fn id(id: u64, part: &Part) -> Option<u32> {
        part.find_local(id)
    }
    fn parents(keys: Vec<u32>) -> Parents {
        Parents::Local(keys)
    }
}

/// Owned vertex `j` found from `from` in a top-down step to `next_level`:
/// visited now, or, found again in the same step, given the smaller parent.
fn reach<P: ParentKey>(level: &mut [u32], parent: &mut [P], j: u32, from: P, next_level: u32) {
    let j = j as usize;
    if level[j] == UNREACHED_LEVEL {
        level[j] = next_level;
        parent[j] = from;
    } else if level[j] == next_level && from < parent[j] {
        parent[j] = from;
    }
}

/// The in-memory part of a bottom-up step (NETALX): each unvisited owned
/// vertex whose hot list holds a frontier vertex takes the hottest such
/// as parent; those left whose lists are longer than k are marked
/// [`PENDING`] in `level`, to be read (the caller finds them by a scan and
/// unmarks those still unreached). A block of [`SWEEP_BLOCK`] local
/// vertices per task, on every core: owned indices ascend with local ids,
/// so each block's owned vertices are one range of `level` and `parent`.
fn sweep_hot_lists<P: ParentKey>(
    part: &Part,
    hot: &HotLists,
    in_frontier: &(impl Fn(u32) -> bool + Sync),
    level: &mut [u32],
    parent: &mut [P],
    next_level: u32,
) {
    let places = part.places();
    let local = part.original.len();
    let block = SWEEP_BLOCK as usize;
    let bounds: Vec<usize> = (0..=local.div_ceil(block)).map(|b| part.owned_before((b * block).min(local) as u32) as usize).collect();
    let mut chunks = Vec::with_capacity(bounds.len().saturating_sub(1));
    let (mut levels, mut parents) = (&mut level[..], &mut parent[..]);
    for w in bounds.windows(2) {
        let (l, rest_l) = std::mem::take(&mut levels).split_at_mut(w[1] - w[0]);
        let (p, rest_p) = std::mem::take(&mut parents).split_at_mut(w[1] - w[0]);
        (levels, parents) = (rest_l, rest_p);
        chunks.push((l, p));
    }
    let (k, graph) = (hot.k as u64, &part.graph);
    chunks.into_par_iter().enumerate().for_each(|(b, (levels, parents))| {
        let first = b * block;
        hot.walk_block(b, block.min(local - first), graph.degrees(), |i, degree, row| {
            let Place::Owned(j) = places.place((first + i) as u32) else { return };
            let j = j as usize - bounds[b];
            if levels[j] != UNREACHED_LEVEL {
                return;
            }
            match row.find(in_frontier) {
                Some(t) => {
                    levels[j] = next_level;
                    parents[j] = P::local(t, places.original);
                }
                // a list no longer than k is all in memory
                None if degree > k => levels[j] = PENDING,
                None => {}
            }
        });
    });
}

/// An unvisited vertex whose list a bottom-up step still has to read
/// (held in `level` only from [`sweep_hot_lists`] to the reads).
const PENDING: u32 = UNREACHED_LEVEL - 1;

/// BFS from the vertex with original id `root`; None (on every rank) if it is not a vertex.
/// `hot` (from [`hot_lists`]) settles bottom-up vertices without reading their lists.
pub fn bfs(part: &Part, root: u64, opts: &BfsOptions, hot: Option<&HotLists>) -> Result<Option<DistBfs>> {
    if part.directed() && part.shape().ids_fit_u32() {
        search::<NarrowId>(part, root, opts, hot)
    } else if part.directed() {
        search::<u64>(part, root, opts, hot)
    } else {
        search::<u32>(part, root, opts, hot)
    }
}

/// [`bfs`], keeping parents as `P`.
fn search<P: ParentKey>(part: &Part, root: u64, opts: &BfsOptions, hot: Option<&HotLists>) -> Result<Option<DistBfs>> {
    let start = Instant::now();
    let comm = part.comm();
    let before = comm.traffic();
    let owned = part.owned_count() as usize;
    let mut level = vec![UNREACHED_LEVEL; owned];
    let mut parent = vec![P::NONE; owned];
    let degree = |i: u32| part.graph.degree(part.owned_vertex(i) as u64);
    // this rank's frontier: its size and arcs (its vertices are those at
    // level `depth`)
    let (mut frontier, mut frontier_arcs) = (0u64, 0u64);
    if let Some(i) = part.find_owned(root) {
        level[i as usize] = 0;
        parent[i as usize] = P::local(part.owned_vertex(i), &part.original);
        (frontier, frontier_arcs) = (1, degree(i));
    }
    if comm.sum(&[frontier])[0] == 0 {
        return Ok(None);
    }
    let n = part.vertices();
    let hybrid = opts.direction == Direction::Hybrid && !part.directed();
    // ghosts sent to their owners (visited there by now), and this step's best parents
    let mut sent = bitmap(part.ghost_count());
    let mut ghost_parent = vec![NO_PROPOSAL; part.ghost_count()];
    let mut unvisited_arcs: u64 = (0..owned as u32).map(degree).sum::<u64>() - frontier_arcs;
    let (mut depth, mut reached, mut read, mut bottom_up, mut last_frontier) = (0u64, 1u64, 0u64, false, 0u64);
    // a parent pushed from another rank that this part lacks (an
    // undirected part that is not): reported once the search ends
    let mut stranger = None;
    let mut steps = Vec::new();
    loop {
        let t = Instant::now();
        let g = comm.sum(&[frontier, frontier_arcs, unvisited_arcs]);
        let (nf, mf, mu) = (g[0], g[1], g[2]);
        if nf == 0 {
            break;
        }
        if hybrid {
            if !bottom_up && mf as f64 > mu as f64 / opts.alpha {
                bottom_up = true;
            } else if bottom_up && nf < last_frontier && (nf as f64) < n as f64 / opts.beta {
                bottom_up = false;
            }
        }
        last_frontier = nf;
        // a level is a u32 (no path in a graph of fewer than 2^32 - 2
        // vertices a rank is that long)
        let next_level = u32::try_from(depth + 1).ok().filter(|&l| l < PENDING).expect("a BFS level below 2^32 - 2");
        let this_level = depth as u32;
        if bottom_up {
            let mut mine = bitmap(owned);
            for (i, &l) in level.iter().enumerate() {
                if l == this_level {
                    set_bit(&mut mine, i as u32);
                }
            }
            let all = part.gather_bitmaps(&mine);
            let me = part.rank();
            let places = part.places();
            let in_frontier = |v: u32| match places.place(v) {
                Place::Owned(i) => bit(&all[me], i),
                Place::Ghost(g) => {
                    let (r, i) = places.ghost_home(g);
                    bit(&all[r], i)
                }
            };
            // the hot lists first, in memory; every core then reads the
            // lists of the vertices they did not settle, each stopping at
            // its first neighbour in the frontier
            let unsettled = match hot {
                Some(hot) => {
                    sweep_hot_lists(part, hot, &in_frontier, &mut level, &mut parent, next_level);
                    PENDING
                }
                None => UNREACHED_LEVEL,
            };
            let mut chunks = OwnedChunks::new(part);
            while let Some(chunk) = chunks.next_where(|i| level[i as usize] == unsettled) {
                read += par_rounds(
                    part,
                    chunk,
                    false,
                    |i, nbrs, _, out| {
                        if let Some(&p) = nbrs.iter().find(|&&t| in_frontier(t as u32)) {
                            out.push((i, P::local(p as u32, places.original)));
                        }
                    },
                    // (a long list comes in pieces: its first find stands)
                    |(i, p)| {
                        if level[i as usize] != next_level {
                            level[i as usize] = next_level;
                            parent[i as usize] = p;
                        }
                    },
                )
                .map_err(|e| crate::error::DistError::Ingest(e.into()))?;
            }
            for l in level.iter_mut().filter(|l| **l == PENDING) {
                *l = UNREACHED_LEVEL;
            }
        } else {
            // every core reads the frontier's lists; what they find is
            // applied here, in frontier order
            let places = part.places();
            let shipped = &sent;
            let mut chunks = OwnedChunks::new(part);
            let mut from = (NO_PROPOSAL, P::NONE);
            while let Some(chunk) = chunks.next_where(|i| level[i as usize] == this_level) {
                read += par_rounds(
                    part,
                    chunk,
                    false,
                    |i, nbrs, _, out| {
                        for &t in nbrs {
                            // (an owned vertex already visited is passed over by `reach`)
                            let new = match places.place(t as u32) {
                                Place::Owned(_) => true,
                                Place::Ghost(g) => !bit(shipped, g),
                            };
                            if new {
                                out.push((t as u32, i));
                            }
                        }
                    },
                    |(t, i)| match places.place(t) {
                        Place::Owned(j) => {
                            // (a list's pairs come together: its vertex's id is looked up once)
                            if from.0 != i {
                                from = (i, P::local(part.owned_vertex(i), places.original));
                            }
                            reach(&mut level, &mut parent, j, from.1, next_level)
                        }
                        Place::Ghost(g) => {
                            // owned indices ascend with original ids: the
                            // smallest is the parent of smallest id
                            ghost_parent[g as usize] = ghost_parent[g as usize].min(i);
                        }
                    },
                )
                .map_err(|e| crate::error::DistError::Ingest(e.into()))?;
            }
            // (on an undirected graph a parent from another rank is a
            // neighbour, so in this part: its local id is found)
            part.push_some(proposed(&ghost_parent).map(|g| (g, [part.owned_id(ghost_parent[g as usize])])), |j, [from]| {
                match P::id(from, part) {
                    Some(from) => reach(&mut level, &mut parent, j, from, next_level),
                    None => drop(stranger.get_or_insert((from, j))),
                }
            });
            for (g, best) in ghost_parent.iter_mut().enumerate().filter(|(_, best)| **best != NO_PROPOSAL) {
                set_bit(&mut sent, g as u32);
                *best = NO_PROPOSAL;
            }
        }
        // the next frontier: the vertices this step reached
        (frontier, frontier_arcs) = (0, 0);
        for i in (0..owned as u32).filter(|&i| level[i as usize] == next_level) {
            frontier += 1;
            frontier_arcs += degree(i);
        }
        unvisited_arcs -= frontier_arcs;
        steps.push(Step { level: depth, bottom_up, frontier: nf, seconds: t.elapsed().as_secs_f64() });
        let found = comm.sum(&[frontier])[0];
        if found > 0 {
            depth = next_level as u64;
            reached += found;
        }
    }
    crate::dynamic::agree(
        comm,
        match stranger {
            None => Ok(()),
            Some((from, j)) => Err(crate::error::DistError::Corrupt(format!(
                "{}: an undirected part lacks vertex {from}, which another rank holds as a neighbour of vertex {}",
                part.dir.display(),
                part.owned_id(j)
            ))),
        },
    )?;
    // Graph500's nedge: the reached vertices' arcs (an undirected edge
    // from both ends, so halved; a self loop is stored once)
    let reached_arcs: u64 = (0..owned as u32).filter(|&i| level[i as usize] != UNREACHED_LEVEL).map(degree).sum();
    let totals = comm.sum(&[read, reached_arcs]);
    let edges_traversed = if part.directed() { totals[1] } else { totals[1] / 2 };
    let figures = RankFigures::now(part, start, before);
    let parent = P::parents(parent);
    Ok(Some(DistBfs { level, parent, reached, depth, arcs_read: totals[0], edges_traversed, steps, figures }))
}
