//! Static analytics across ranks on a partitioned store (issue: beyond one
//! machine, part 2): each rank reads its own part through the traverse
//! engine under its own budget ([`crate::part::Part`]) and exchanges with
//! the owners of the vertices its arcs reach. One file per algorithm:
//! - [`bfs`]: direction-optimizing BFS (Beamer, Buluc, Asanovic and
//!   Patterson 2013): top-down steps send (child, parent) to owners,
//!   bottom-up steps gather the frontier as a bitmap and check each
//!   unvisited vertex's neighbours locally;
//! - [`pagerank`]: contributions pushed to owners each iteration, summed
//!   per destination before sending;
//! - [`wcc`]: label propagation (minimum original id) with a shortcutting
//!   step that asks each label's owner for its label;
//! - [`sssp`]: Bellman-Ford supersteps over the vertices whose distance
//!   fell, proposals combined per destination (the minimum).
//!
//! Results are per owned vertex, with original ids, so that they equal the
//! single-machine algorithms' (the tests compare them).

pub mod bfs;
pub mod pagerank;
pub mod sssp;
pub mod validate;
pub mod wcc;

use crate::part::{Part, Place};
use outcore_engines::traverse::Lookahead;
use outcore_store::StoreError;

/// Bytes an arc's output may take in a round of [`par_rounds`] (of
/// [`Part::round_arcs`] arcs, and vertices, at most: each algorithm charges
/// this per arc of it): the largest item emitted
/// (16 bytes: BFS's (vertex, parent), SSSP's (source, target, weight)
/// with padding), twice (emitted per piece, then handed over); and the
/// round's vertices in local ids (4 bytes, at most one an arc).
pub const ROUND_BYTES: u64 = 32 + 4;

/// Read the lists of the owned vertices `list` (owned indices) on every
/// core, in rounds of at most [`Part::round_arcs`] arcs: `visit(owned index,
/// local neighbours, weights, out)` runs on any thread and may only read
/// shared state; `apply` then takes what the round's visits emitted, in
/// the order of `list`, so that the result is what one thread would have
/// found. A list longer than a round is read alone and visited in pieces
/// of a round's arcs, in order, each piece's emissions applied before the
/// next is visited: `visit` may see a vertex several times, so what a
/// round emits stays within what a round's arcs are charged. Returns the
/// entries read.
pub fn par_rounds<T: Send>(
    part: &Part,
    list: &[u32],
    weights: bool,
    visit: impl Fn(u32, &[u64], &[f32], &mut Vec<T>) + Sync,
    mut apply: impl FnMut(T),
) -> Result<u64, StoreError> {
    let places = part.places();
    let owned = |v: u32| match places.place(v) {
        Place::Owned(i) => i,
        Place::Ghost(_) => unreachable!("only owned vertices have lists in a part"),
    };
    // the round's vertices in local ids (a round at a time, not the whole list)
    let mut local: Vec<u32> = Vec::new();
    let (mut at, mut read, round) = (0, 0u64, part.round_arcs());
    let (mut nbrs, mut w, mut out) = (Vec::new(), Vec::new(), Vec::new());
    while at < list.len() {
        // an interrupt stops the work within a round
        outcore_io::staging::check_interrupt(&part.dir)?;
        let first = part.owned_vertex(list[at]) as u64;
        if part.graph.degree(first) > round {
            // (the engine's shared reader of the longest lists decodes it)
            let mut reader = part.graph.reader();
            reader.neighbours(first, &mut nbrs)?;
            if weights {
                reader.weights(first, &mut w)?;
            }
            read += nbrs.len() as u64;
            for (k, piece) in nbrs.chunks(round as usize).enumerate() {
                let piece_weights = if weights { &w[k * round as usize..][..piece.len()] } else { &[][..] };
                visit(list[at], piece, piece_weights, &mut out);
                out.drain(..).for_each(&mut apply);
            }
            at += 1;
            continue;
        }
        local.clear();
        let (mut end, mut arcs) = (at, 0u64);
        while end < list.len()
            && (end == at || (arcs + part.graph.degree(part.owned_vertex(list[end]) as u64) <= round && end - at < round as usize))
        {
            let v = part.owned_vertex(list[end]);
            arcs += part.graph.degree(v as u64);
            local.push(v);
            end += 1;
        }
        let (found, entries) = if weights {
            part.graph.par_weighted_lists(&local, |v, nbrs, w, out| visit(owned(v), nbrs, w, out))?
        } else {
            part.graph.par_lists(&local, |v, nbrs, out| visit(owned(v), nbrs, &[], out))?
        };
        read += entries;
        found.into_iter().flatten().for_each(&mut apply);
        at = end;
    }
    Ok(read)
}

/// Owned indices a round's worth at a time ([`Part::round_arcs`] at most,
/// 4 bytes each, charged by the caller), chosen by a scan of the owned
/// vertices rather than kept in a list of them all: feed each
/// [`OwnedChunks::next_where`] to [`par_rounds`].
pub struct OwnedChunks {
    at: u32,
    owned: u32,
    most: usize,
    chunk: Vec<u32>,
}

impl OwnedChunks {
    pub fn new(part: &Part) -> OwnedChunks {
        let most = part.round_arcs().clamp(1, u32::MAX as u64) as usize;
        OwnedChunks { at: 0, owned: part.owned_count(), most, chunk: Vec::with_capacity(most) }
    }

    /// The next owned indices, ascending, for which `wanted` holds; `None`
    /// when the scan is done. Between calls the caller may change what
    /// `wanted` answers, but only for indices already handed out or not
    /// wanted.
    pub fn next_where(&mut self, wanted: impl Fn(u32) -> bool) -> Option<&[u32]> {
        self.chunk.clear();
        while self.at < self.owned && self.chunk.len() < self.most {
            if wanted(self.at) {
                self.chunk.push(self.at);
            }
            self.at += 1;
        }
        (!self.chunk.is_empty()).then_some(&self.chunk[..])
    }
}

/// [`par_rounds`] over every owned vertex, in order, a round at a time
/// ([`OwnedChunks`]).
pub fn par_rounds_all<T: Send>(
    part: &Part,
    weights: bool,
    visit: impl Fn(u32, &[u64], &[f32], &mut Vec<T>) + Sync,
    mut apply: impl FnMut(T),
) -> Result<u64, StoreError> {
    let (mut chunks, mut read) = (OwnedChunks::new(part), 0u64);
    while let Some(chunk) = chunks.next_where(|_| true) {
        read += par_rounds(part, chunk, weights, &visit, &mut apply)?;
    }
    Ok(read)
}

/// What every distributed run reports, per rank.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct RankFigures {
    pub rank: usize,
    pub owned_vertices: u64,
    pub ghosts: u64,
    pub arcs: u64,
    /// Seconds in the algorithm, and of those waiting for other ranks.
    pub seconds: f64,
    pub seconds_communicating: f64,
    pub bytes_sent: u64,
    pub bytes_received: u64,
    /// Bytes the traverse engine read from the part's files.
    pub bytes_read: u64,
    pub lists_read: u64,
}

impl RankFigures {
    /// This rank's figures since `start` (traffic since `before`).
    pub fn now(part: &Part, start: std::time::Instant, before: crate::comm::Traffic) -> RankFigures {
        let t = part.comm().traffic();
        let stats = part.stats();
        RankFigures {
            rank: part.rank(),
            owned_vertices: part.owned_count() as u64,
            ghosts: part.ghost_count() as u64,
            arcs: part.graph.arcs(),
            seconds: start.elapsed().as_secs_f64(),
            seconds_communicating: t.wait_seconds - before.wait_seconds,
            bytes_sent: t.bytes_sent - before.bytes_sent,
            bytes_received: t.bytes_received - before.bytes_received,
            bytes_read: stats.cache.bytes_read,
            lists_read: stats.lists_read,
        }
    }
}

/// Visit the out-lists of the owned vertices `list` (owned indices) in
/// order, on one reader that runs ahead: `visit(owned index, local
/// neighbours, weights)` (weights empty unless asked for). Returns the
/// entries read.
pub fn for_each_list(part: &Part, list: &[u32], weights: bool, mut visit: impl FnMut(u32, &[u64], &[f32])) -> Result<u64, StoreError> {
    let local: Vec<u32> = list.iter().map(|&i| part.owned_vertex(i)).collect();
    let mut reader = part.graph.reader();
    let mut ahead = Lookahead::default();
    let (mut nbrs, mut w, mut read) = (Vec::new(), Vec::new(), 0u64);
    for head in 0..local.len() {
        ahead.before(&part.graph, &local, head)?;
        reader.neighbours(local[head] as u64, &mut nbrs)?;
        if weights {
            reader.weights(local[head] as u64, &mut w)?;
        }
        read += nbrs.len() as u64;
        visit(list[head], &nbrs, &w);
    }
    Ok(read)
}
