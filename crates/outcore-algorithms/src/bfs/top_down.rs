//! Top-down BFS on the traverse engine, with RASP run-ahead: the FIFO
//! queue is the iterator state the prefetcher reads ahead of the cursor
//! (TR-823 section 6). Each level is expanded in vertex-id order, so the
//! blocks it needs are read in file order and about once per level, not
//! once per vertex that shares them. Output: a parent tree and levels.
//!
//! Every core: a level is read in rounds of about [`ROUND_ARCS`] arcs,
//! each round's lists on every core ([`Traverse::par_lists`], a reader and
//! a run-ahead per piece), which report the (unvisited neighbour, vertex)
//! pairs they meet; one thread then takes them in round order. A vertex's
//! parent is its smallest-id neighbour on the level above, whatever the
//! number of threads.

use super::{BfsTree, NONE};
use outcore_engines::Traverse;
use outcore_io::Budget;
use outcore_store::StoreError;

/// Arcs read per round of a level, at most (a round of one vertex reads
/// its whole list).
pub const ROUND_ARCS: u64 = 1 << 18;

/// Memory of the pairs one round of several lists reports in a graph of
/// `arcs` arcs: 8 bytes each, at most one per arc of the round
/// ([`ROUND_ARCS`] or the graph's arcs, whatever the vertex count: a
/// neighbour met from several lists is reported by each; a round of one
/// list reports none), in per-piece vectors that may hold twice their
/// pairs' bytes as they grow.
pub fn round_bytes(arcs: u64) -> u64 {
    2 * 8 * ROUND_ARCS.min(arcs)
}

/// BFS from `root` (a dense id) along out-edges.
pub fn bfs(g: &mut Traverse, root: u64, budget: &Budget) -> Result<BfsTree, StoreError> {
    let (mut tree, mut queue) = BfsTree::new(g.vertices(), root, budget)?;
    let _round = budget.reserve("BFS round of discovered pairs", round_bytes(g.arcs()))?;
    tree.parent[root as usize] = root as u32;
    tree.level[root as usize] = 0;
    queue.push(root as u32);
    let mut nbrs = Vec::new();
    let mut level_start = 0;
    while level_start < queue.len() {
        let level_end = queue.len();
        // the level in id order: its blocks in file order
        queue[level_start..level_end].sort_unstable();
        let next = tree.level[queue[level_start] as usize] + 1;
        let mut at = level_start;
        while at < level_end {
            let end = round_end(g, &queue, at, level_end);
            let (found, read) = read_round(g, &queue[at..end], &tree.parent, &mut nbrs)?;
            tree.arcs_scanned += read;
            found.for_each(&nbrs, |w, v| {
                if tree.parent[w as usize] == NONE {
                    tree.parent[w as usize] = v;
                    tree.level[w as usize] = next;
                    queue.push(w);
                }
            });
            at = end;
        }
        level_start = level_end;
    }
    tree.reached = queue.len() as u64;
    Ok(tree)
}

/// What [`read_round`] found: the pairs its readers reported, or, for a
/// round of one list, that list in the caller's buffer (its pairs would
/// take as much memory again).
pub enum Found {
    Pairs(Vec<Vec<(u32, u32)>>),
    List(u32),
}

impl Found {
    /// `f(neighbour, vertex)` for each pair, in the order one thread
    /// visiting the round meets them; `nbrs` is the buffer [`read_round`] filled.
    pub fn for_each(self, nbrs: &[u64], mut f: impl FnMut(u32, u32)) {
        match self {
            Found::Pairs(pairs) => pairs.into_iter().flatten().for_each(|(w, v)| f(w, v)),
            Found::List(v) => nbrs.iter().for_each(|&w| f(w as u32, v)),
        }
    }
}

/// Read a round of a level (`round`, vertices in id order): the
/// (neighbour, vertex) pairs whose neighbour was unvisited as the round
/// began (a round of one list: all of it, into `nbrs`), and the entries read.
pub fn read_round(g: &Traverse, round: &[u32], parent: &[u32], nbrs: &mut Vec<u64>) -> Result<(Found, u64), StoreError> {
    if let [v] = *round {
        g.reader().neighbours(v as u64, nbrs)?;
        return Ok((Found::List(v), nbrs.len() as u64));
    }
    let (pairs, read) = g.par_lists(round, |v, list, pairs: &mut Vec<(u32, u32)>| {
        pairs.extend(list.iter().filter(|&&w| parent[w as usize] == NONE).map(|&w| (w as u32, v)));
    })?;
    Ok((Found::Pairs(pairs), read))
}

/// Where the round of `list[at..limit]` that starts at `at` ends: after
/// about [`ROUND_ARCS`] arcs, and after one vertex at least.
pub fn round_end(g: &Traverse, list: &[u32], at: usize, limit: usize) -> usize {
    let mut arcs = 0;
    let mut end = at;
    while end < limit {
        let degree = g.degree(list[end] as u64);
        if end > at && arcs + degree > ROUND_ARCS {
            break;
        }
        arcs += degree;
        end += 1;
    }
    end
}
