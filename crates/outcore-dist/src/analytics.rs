//! Analytics on the live distributed dynamic store (thesis section 4.7,
//! across ranks): BFS and PageRank, level-synchronous, each rank holding
//! the values of the vertices it owns and sending to owners what their
//! vertices receive (one all-to-all exchange per level or iteration).
//! Results equal the single-machine store's (`outcore dynamic bfs`,
//! `pagerank`): the tests compare them.

use crate::dynamic::DistDynamic;
use outcore_algorithms::dynamic::{IdMap, VertexIndex};
use outcore_algorithms::values::UNREACHED_U64 as UNREACHED;

/// The vertices a rank owns (sources of its store, and every edge target
/// whose owner it is, wherever the edge lives), in id order.
pub type OwnedVertices = VertexIndex;

/// This rank's vertices (a collective: every rank sends each edge
/// target to its owner).
pub fn owned_vertices(d: &DistDynamic) -> OwnedVertices {
    let comm = d.comm();
    let mut ids = Vec::new();
    d.store.for_each_source(|u| ids.push(u));
    let mut targets: Vec<Vec<u64>> = vec![Vec::new(); comm.size()];
    d.store.for_each_edge(|_, e| targets[d.rank_of(e.target)].push(e.target));
    for t in &mut targets {
        t.sort_unstable();
        t.dedup();
    }
    for got in comm.all_to_all(&targets) {
        ids.extend(got);
    }
    VertexIndex::from_ids(ids)
}

pub struct DistBfs {
    pub owned: OwnedVertices,
    /// Level per owned vertex ([`UNREACHED`] if not reached).
    pub level: Vec<u64>,
    /// Over all ranks.
    pub vertices: u64,
    pub reached: u64,
    pub arcs_scanned: u64,
    pub depth: u64,
}

/// BFS from `root`; None (on every rank) if `root` is not a vertex.
pub fn bfs(d: &DistDynamic, root: u64) -> Option<DistBfs> {
    let comm = d.comm();
    let p = comm.size();
    let owned = owned_vertices(d);
    let mut level = vec![UNREACHED; owned.len()];
    let mut frontier = Vec::new();
    if let Some(r) = owned.dense(root) {
        level[r as usize] = 0;
        frontier.push(r as usize);
    }
    let totals = comm.sum(&[owned.len() as u64, frontier.len() as u64]);
    if totals[1] == 0 {
        return None;
    }
    let (mut reached, mut scanned, mut depth) = (1u64, 0u64, 0u64);
    loop {
        let mut out: Vec<Vec<u64>> = vec![Vec::new(); p];
        for &v in &frontier {
            d.store.for_each_neighbour(owned.ids[v], |e| {
                scanned += 1;
                out[d.rank_of(e.target)].push(e.target);
            });
        }
        for o in &mut out {
            o.sort_unstable();
            o.dedup();
        }
        let next_level = depth + 1;
        frontier.clear();
        for got in comm.all_to_all(&out) {
            for w in got {
                let i = owned.dense(w).expect("a target's owner holds it") as usize;
                if level[i] == UNREACHED {
                    level[i] = next_level;
                    frontier.push(i);
                }
            }
        }
        let found = comm.sum(&[frontier.len() as u64])[0];
        if found == 0 {
            break;
        }
        reached += found;
        depth = next_level;
    }
    let arcs_scanned = comm.sum(&[scanned])[0];
    Some(DistBfs { owned, level, vertices: totals[0], reached, arcs_scanned, depth })
}

pub struct DistPageRank {
    pub owned: OwnedVertices,
    pub rank: Vec<f64>,
    pub vertices: u64,
}

/// PageRank with Graphalytics semantics (as `outcore dynamic pagerank`):
/// parallel edges count as often as they occur; sinks spread their rank
/// over every vertex.
pub fn pagerank(d: &DistDynamic, damping: f64, iterations: u32) -> DistPageRank {
    let comm = d.comm();
    let p = comm.size();
    let owned = owned_vertices(d);
    let n = comm.sum(&[owned.len() as u64])[0];
    let mut degree = vec![0u64; owned.len()];
    d.store.for_each_edge(|u, e| degree[owned.dense(u).expect("a source is owned") as usize] += e.count as u64);
    if n == 0 {
        return DistPageRank { owned, rank: Vec::new(), vertices: 0 };
    }
    let nf = n as f64;
    let mut rank = vec![1.0 / nf; owned.len()];
    for _ in 0..iterations {
        let sinks = comm.sum_f64((0..owned.len()).filter(|&u| degree[u] == 0).map(|u| rank[u]).sum());
        let base = (1.0 - damping) / nf + damping * sinks / nf;
        // each target's incoming share, summed here before it is sent
        let mut shares: Vec<IdMap<f64>> = (0..p).map(|_| IdMap::default()).collect();
        d.store.for_each_edge(|u, e| {
            let i = owned.dense(u).expect("a source is owned") as usize;
            *shares[d.rank_of(e.target)].entry(e.target).or_default() += rank[i] / degree[i] as f64 * e.count as f64;
        });
        let out: Vec<Vec<u64>> = shares.iter().map(|m| m.iter().flat_map(|(&v, &x)| [v, x.to_bits()]).collect()).collect();
        let mut pushed = vec![0.0f64; owned.len()];
        for got in comm.all_to_all(&out) {
            for pair in got.chunks_exact(2) {
                pushed[owned.dense(pair[0]).expect("a target's owner holds it") as usize] += f64::from_bits(pair[1]);
            }
        }
        for (r, x) in rank.iter_mut().zip(&pushed) {
            *r = base + damping * x;
        }
    }
    DistPageRank { owned, rank, vertices: n }
}
