//! Brandes on the traverse engine: distances, path counts, dependencies
//! and the BFS order in memory (32 bytes a vertex), each reached vertex's
//! list read twice per source through the block cache.
//!
//! Every core: sources run in parallel, each worker with a reader of the
//! one engine (one block cache) and state of its own, worker i taking
//! sources i, i + w, i + 2w, ...; the workers' sums are added in worker
//! order, so a run's values depend on the number of workers only in the
//! last bits of the floating-point sums. How many workers the budget
//! affords is the caller's choice ([`workers`]).

use crate::bfs::{check_ids, NONE};
use outcore_engines::{Reader, Traverse};
use outcore_io::{Budget, Progress};
use outcore_store::StoreError;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Memory of one worker of [`bc_traverse`]: distance, sigma, delta, BC
/// and order slot per vertex.
pub fn state_bytes(n: u64) -> u64 {
    n * 32
}

/// Workers for `sources` sources with `spare` bytes of the budget beyond
/// the engine's minimum and one worker's state: at most the threads, and
/// each further worker's state at most half of what is spare, so that the
/// block cache keeps the rest.
pub fn workers(n: u64, sources: usize, spare: u64, threads: usize) -> usize {
    let extra = spare / 2 / state_bytes(n).max(1);
    (1 + extra as usize).min(threads).min(sources).max(1)
}

/// Brandes from each source over the traverse engine's out-lists, on
/// `workers` threads; returns `scale` times the sums, and the arcs read.
/// With `targets` (sorted dense ids), only shortest paths ending at one of
/// them (not the source) count.
pub fn bc_traverse(
    g: &Traverse,
    sources: &[u64],
    targets: Option<&[u64]>,
    scale: f64,
    workers: usize,
    budget: &Budget,
    progress: &dyn Progress,
) -> Result<(Vec<f64>, u64), StoreError> {
    let n = g.vertices();
    for &s in sources {
        check_ids(n, s)?;
    }
    let workers = workers.clamp(1, sources.len().max(1));
    let _charge = budget
        .reserve(&format!("BC distances, path counts, dependencies and order ({workers} workers)"), state_bytes(n) * workers as u64)?;
    let done = AtomicU64::new(0);
    progress.begin("bc", sources.len() as u64, false);
    let work = |i: usize, report: bool| -> Result<(Vec<f64>, u64), StoreError> {
        let mut state = Brandes::new(n);
        let mut reader = g.reader();
        let mut arcs = 0;
        for &s in sources.iter().skip(i).step_by(workers) {
            arcs += state.source(&mut reader, s, targets, scale)?;
            let k = done.fetch_add(1, Relaxed) + 1;
            if report {
                progress.set(k);
            }
        }
        Ok((state.bc, arcs))
    };
    let results: Vec<Result<(Vec<f64>, u64), StoreError>> = std::thread::scope(|scope| {
        let others: Vec<_> = (1..workers).map(|i| scope.spawn(move || work(i, false))).collect();
        let mut results = vec![work(0, true)];
        results.extend(others.into_iter().map(|h| h.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))));
        results
    });
    progress.end();
    let mut results = results.into_iter();
    let (mut bc, mut arcs) = results.next().expect("one worker at least")?;
    for r in results {
        let (sums, a) = r?;
        arcs += a;
        for (x, y) in bc.iter_mut().zip(sums) {
            *x += y;
        }
    }
    Ok((bc, arcs))
}

/// One worker's state: reset after each source for the vertices it reached.
struct Brandes {
    dist: Vec<u32>,
    sigma: Vec<f64>,
    delta: Vec<f64>,
    bc: Vec<f64>,
    order: Vec<u32>,
    nbrs: Vec<u64>,
}

impl Brandes {
    fn new(n: u64) -> Self {
        Brandes {
            dist: vec![NONE; n as usize],
            sigma: vec![0.0; n as usize],
            delta: vec![0.0; n as usize],
            bc: vec![0.0; n as usize],
            order: Vec::with_capacity(n as usize),
            nbrs: Vec::new(),
        }
    }

    /// Add `scale` times source `s`'s dependencies to the sums; returns the arcs read.
    fn source(&mut self, g: &mut Reader<'_>, s: u64, targets: Option<&[u64]>, scale: f64) -> Result<u64, StoreError> {
        let Brandes { dist, sigma, delta, bc, order, nbrs } = self;
        let mut arcs = 0;
        order.clear();
        order.push(s as u32);
        dist[s as usize] = 0;
        sigma[s as usize] = 1.0;
        let mut head = 0;
        while head < order.len() {
            let v = order[head] as usize;
            head += 1;
            g.neighbours(v as u64, nbrs)?;
            arcs += nbrs.len() as u64;
            for &w in nbrs.iter() {
                let w = w as usize;
                if dist[w] == NONE {
                    dist[w] = dist[v] + 1;
                    order.push(w as u32);
                }
                if dist[w] == dist[v] + 1 {
                    sigma[w] += sigma[v];
                }
            }
        }
        for &v in order.iter().rev() {
            let v = v as usize;
            g.neighbours(v as u64, nbrs)?;
            arcs += nbrs.len() as u64;
            let mut d = 0.0;
            for &w in nbrs.iter() {
                let w = w as usize;
                if dist[w] == dist[v] + 1 {
                    d += sigma[v] / sigma[w] * (path_end(targets, w as u64, s) + delta[w]);
                }
            }
            delta[v] = d;
            if v != s as usize {
                bc[v] += scale * d;
            }
        }
        for &v in order.iter() {
            dist[v as usize] = NONE;
            sigma[v as usize] = 0.0;
            delta[v as usize] = 0.0;
        }
        Ok(arcs)
    }
}

/// 1 when a shortest path from `s` ending at `w` counts: every path without
/// targets, else paths to a target other than the source.
pub fn path_end(targets: Option<&[u64]>, w: u64, s: u64) -> f64 {
    match targets {
        None => 1.0,
        Some(t) if w != s && t.binary_search(&w).is_ok() => 1.0,
        Some(_) => 0.0,
    }
}
