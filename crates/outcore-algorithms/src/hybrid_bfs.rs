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
//! shrinks and m_td < m_bu / beta (alpha 4096, beta 4 in the paper).

use crate::bfs::{BfsTree, NONE};
use outcore_engines::{Lookahead, Traverse};
use outcore_io::{Budget, Reservation};
use outcore_store::{Store, StoreError};
use serde::Serialize;

/// The in-memory part of each vertex's in-adjacency.
pub struct HotLists {
    pub k: u32,
    data: Vec<u32>,
    _charge: Reservation,
}

/// Largest k considered.
const MAX_K: u32 = 64;

impl HotLists {
    /// The largest k <= 64 whose lists take at most `bytes` (0 if none fits).
    pub fn choose_k(g: &Traverse, bytes: u64) -> u32 {
        let n = g.vertices();
        // at_least[j] = vertices with degree >= j
        let mut at_least = vec![0u64; MAX_K as usize + 2];
        for v in 0..n {
            at_least[g.degree(v).min(MAX_K as u64 + 1) as usize] += 1;
        }
        for j in (1..at_least.len() - 1).rev() {
            at_least[j] += at_least[j + 1];
        }
        let mut total = 0u64;
        let mut k = 0;
        for j in 1..=MAX_K as usize {
            total += at_least[j] * 4;
            if total > bytes {
                break;
            }
            k = j as u32;
        }
        k
    }

    /// Build by one sequential scan of `layout` (the in-edges); `g` gives degrees.
    pub fn build(store: &Store, layout: &str, g: &Traverse, k: u32, budget: &Budget) -> Result<Self, StoreError> {
        let n = g.vertices();
        let bytes: u64 = (0..n).map(|v| g.degree(v).min(k as u64) * 4).sum();
        let charge = budget.reserve("hybrid BFS in-memory neighbours", bytes)?;
        let mut data = Vec::with_capacity((bytes / 4) as usize);
        let mut scan = store.layout(layout)?.scan()?;
        let mut by_degree: Vec<(u64, u32)> = Vec::new();
        while let Some((_, nbrs, _)) = scan.next_list()? {
            let take = nbrs.len().min(k as usize);
            if take == 0 {
                continue;
            }
            if take == nbrs.len() {
                // all of it fits: keep them, highest degree first
                by_degree.clear();
                by_degree.extend(nbrs.iter().map(|&u| (g.degree(u), u as u32)));
            } else {
                by_degree.clear();
                by_degree.extend(nbrs.iter().map(|&u| (g.degree(u), u as u32)));
                by_degree.select_nth_unstable_by(take - 1, |a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
                by_degree.truncate(take);
            }
            by_degree.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
            data.extend(by_degree.iter().map(|&(_, u)| u));
        }
        Ok(HotLists { k, data, _charge: charge })
    }
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
    /// Lists read through the engine (SSD or cache) in this level.
    pub lists_read: u64,
}

#[derive(Clone, Debug)]
pub struct HybridOptions {
    pub alpha: f64,
    pub beta: f64,
}

impl Default for HybridOptions {
    fn default() -> Self {
        HybridOptions { alpha: 4096.0, beta: 4.0 }
    }
}

/// Memory of a hybrid BFS: the tree and frontier ([`BfsTree::state_bytes`]),
/// the next frontier and the bottom-up SSD list (4 bytes per vertex each),
/// and the frontier bitmap.
pub fn state_bytes(n: u64) -> u64 {
    BfsTree::state_bytes(n) + 8 * n + n / 8 + 64
}

/// Hybrid BFS from `root`. `inn` reads in-edges for bottom-up steps; pass
/// `None` for undirected graphs (in-edges are out-edges). `hot` must be
/// built from the same in-edges.
pub fn hybrid_bfs(
    out: &mut Traverse,
    mut inn: Option<&mut Traverse>,
    hot: &HotLists,
    root: u64,
    budget: &Budget,
    opts: &HybridOptions,
) -> Result<(BfsTree, Vec<LevelStats>), StoreError> {
    let n = out.vertices();
    let (mut tree, mut frontier) = BfsTree::new(n, root, budget)?;
    let _extra_charge =
        budget.reserve("hybrid BFS next frontier, SSD list and frontier bitmap", state_bytes(n) - BfsTree::state_bytes(n))?;
    let mut in_frontier = vec![0u64; (n as usize).div_ceil(64)];
    let in_degree = |g: &Option<&mut Traverse>, out: &Traverse, v: u64| match g {
        Some(g) => g.degree(v),
        None => out.degree(v),
    };
    let mut m_bu: u64 = (0..n).map(|v| in_degree(&inn, out, v)).sum();
    tree.parent[root as usize] = root as u32;
    tree.level[root as usize] = 0;
    m_bu -= in_degree(&inn, out, root);
    frontier.push(root as u32);
    let mut reached = 1u64;
    let mut next: Vec<u32> = Vec::with_capacity(n as usize);
    let mut direction = Direction::TopDown;
    let mut prev_size = 0usize;
    let mut stats = Vec::new();
    let mut nbrs = Vec::new();
    let mut level = 0u32;
    let mut need_ssd: Vec<u32> = Vec::with_capacity(n as usize);
    while !frontier.is_empty() {
        let m_td: u64 = frontier.iter().map(|&v| out.degree(v as u64)).sum();
        let size = frontier.len();
        direction = match direction {
            Direction::TopDown if size > prev_size && m_td as f64 > m_bu as f64 / opts.alpha => Direction::BottomUp,
            Direction::BottomUp if size < prev_size && (m_td as f64) < m_bu as f64 / opts.beta => Direction::TopDown,
            d => d,
        };
        let before = out.stats().lists_read + inn.as_ref().map_or(0, |g| g.stats().lists_read);
        next.clear();
        match direction {
            Direction::TopDown => {
                // expand in vertex-id order, so blocks are read in file order
                frontier.sort_unstable();
                let mut ahead = Lookahead::default();
                for head in 0..frontier.len() {
                    ahead.before(out, &frontier, head)?;
                    let v = frontier[head];
                    out.neighbours(v as u64, &mut nbrs)?;
                    for &w in &nbrs {
                        if tree.parent[w as usize] == NONE {
                            tree.parent[w as usize] = v;
                            tree.level[w as usize] = level + 1;
                            next.push(w as u32);
                        }
                    }
                }
            }
            Direction::BottomUp => {
                in_frontier.iter_mut().for_each(|x| *x = 0);
                for &v in &frontier {
                    in_frontier[v as usize / 64] |= 1 << (v % 64);
                }
                let is_frontier = |u: u32| in_frontier[u as usize / 64] & (1 << (u % 64)) != 0;
                // 1. in-memory neighbours
                need_ssd.clear();
                let mut offset = 0usize;
                for w in 0..n {
                    let deg = in_degree(&inn, out, w);
                    let kk = deg.min(hot.k as u64) as usize;
                    if tree.parent[w as usize] == NONE {
                        match hot.data[offset..offset + kk].iter().find(|&&u| is_frontier(u)) {
                            Some(&u) => {
                                tree.parent[w as usize] = u;
                                tree.level[w as usize] = level + 1;
                                next.push(w as u32);
                            }
                            None if deg > kk as u64 => need_ssd.push(w as u32),
                            None => {}
                        }
                    }
                    offset += kk;
                }
                // 2. the rest from the SSD, in id order, with run-ahead
                let g: &mut Traverse = match inn.as_mut() {
                    Some(g) => g,
                    None => &mut *out,
                };
                let mut ahead = Lookahead::default();
                for i in 0..need_ssd.len() {
                    ahead.before(g, &need_ssd, i)?;
                    let w = need_ssd[i];
                    g.neighbours(w as u64, &mut nbrs)?;
                    if let Some(&u) = nbrs.iter().find(|&&u| is_frontier(u as u32)) {
                        tree.parent[w as usize] = u as u32;
                        tree.level[w as usize] = level + 1;
                        next.push(w);
                    }
                }
            }
        }
        let after = out.stats().lists_read + inn.as_ref().map_or(0, |g| g.stats().lists_read);
        stats.push(LevelStats { direction, frontier: size as u64, lists_read: after - before });
        for &w in &next {
            m_bu -= in_degree(&inn, out, w as u64);
        }
        reached += next.len() as u64;
        prev_size = size;
        std::mem::swap(&mut frontier, &mut next);
        level += 1;
    }
    tree.reached = reached;
    tree.arcs_scanned = (0..n).filter(|&v| tree.parent[v as usize] != NONE).map(|v| out.degree(v)).sum();
    Ok((tree, stats))
}
