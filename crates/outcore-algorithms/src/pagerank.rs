//! PageRank over the tile layout (G-Store), Graphalytics semantics: fixed
//! iterations (or until the L1 change drops below a tolerance) from
//! 1/|V|, damping d, and the rank of sinks spread over all vertices. Rank
//! arrays and out-degrees stay in memory (20 bytes per vertex); each
//! iteration streams the tiles once in storage order with read-ahead. An
//! undirected tile edge (u, v), u <= v, carries rank both ways.

use outcore_io::Budget;
use outcore_store::tiles::TileScan;
use outcore_store::{Store, StoreError};

pub struct PageRankResult {
    pub rank: Vec<f64>,
    pub iterations: u32,
    /// L1 change of the last iteration.
    pub delta: f64,
    /// Tile edges streamed, over all iterations.
    pub edges_streamed: u64,
}

/// Memory: two rank arrays and the out-degrees.
pub fn state_bytes(n: u64) -> u64 {
    n * 20
}

pub fn pagerank(
    store: &Store,
    damping: f64,
    iterations: u32,
    tolerance: Option<f64>,
    budget: &Budget,
) -> Result<PageRankResult, StoreError> {
    let rec = store.manifest().tiles.clone().ok_or_else(|| {
        StoreError::invalid(store.dir(), format!("has no tiles layout; add it with: outcore layout add {} tiles", store.dir().display()))
    })?;
    let n = store.vertices();
    let _charge = budget.reserve("PageRank ranks and out-degrees", state_bytes(n))?;
    let mut degree = vec![0u32; n as usize];
    store.layout("out")?.for_each_degree(|v, d| degree[v as usize] = d.min(u32::MAX as u64) as u32)?;
    let undirected = rec.upper_triangle;
    let nf = n as f64;
    let mut rank = vec![1.0 / nf; n as usize];
    let mut next = vec![0.0f64; n as usize];
    let (mut done, mut delta, mut streamed) = (0, f64::INFINITY, 0u64);
    while done < iterations {
        let sinks: f64 = rank.iter().zip(&degree).filter(|(_, &d)| d == 0).map(|(r, _)| r).sum();
        let base = (1.0 - damping) / nf + damping * sinks / nf;
        next.iter_mut().for_each(|x| *x = base);
        let mut scan = TileScan::open(store.dir(), &rec)?;
        while let Some(tile) = scan.next_tile()? {
            let (s0, t0) = ((tile.i as usize) << rec.span_bits, (tile.j as usize) << rec.span_bits);
            for &[ls, lt] in tile.edges {
                let (u, v) = (s0 + ls as usize, t0 + lt as usize);
                next[v] += damping * rank[u] / degree[u] as f64;
                if undirected && u != v {
                    next[u] += damping * rank[v] / degree[v] as f64;
                }
            }
            streamed += tile.edges.len() as u64;
        }
        delta = rank.iter().zip(&next).map(|(a, b)| (a - b).abs()).sum();
        std::mem::swap(&mut rank, &mut next);
        done += 1;
        if tolerance.is_some_and(|t| delta < t) {
            break;
        }
    }
    Ok(PageRankResult { rank, iterations: done, delta, edges_streamed: streamed })
}
