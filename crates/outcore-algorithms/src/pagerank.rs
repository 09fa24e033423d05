//! PageRank with Graphalytics semantics: from 1/|V|, damping d, the rank of
//! sinks spread over all vertices, a fixed number of iterations or until
//! the L1 change drops below a tolerance:
//!   PR(v) = (1-d)/|V| + d * sum_{u->v} PR(u)/outdeg(u) + d/|V| * sum_{sinks} PR(w)
//!
//! On tiles (G-Store): contributions, next ranks and out-degrees in memory
//! (20 bytes a vertex); each tuple (u, v) pushes u's contribution to v, and
//! back from v to u on an undirected store's upper triangle. On intervals
//! (VENUS): the value table holds PR(v)/outdeg(v) (PR(v) for sinks), and
//! each vertex sums its in-neighbours' values. On sort-reduce (BigSparse
//! section 5.2): each vertex pushes PR(u)/outdeg(u) along its out-edges,
//! updates are summed, and finalize applies the damping and the sinks'
//! share lazily, as the next iteration reads the ranks.

use crate::analytics::{
    choose, interval_layouts, open_sortreduce, open_stream, AnalyticsOptions, AtomicSum, Engine, EngineReport, F64Cells, VertexResult,
};
use outcore_engines::sortreduce::Program;
use outcore_engines::{IntervalEngine, IntervalProgram, NeighbourList, TileEdges, TileProgram, Values};
use outcore_io::Budget;
use outcore_store::{Store, StoreError};

#[derive(Clone, Copy, Debug)]
pub struct PageRankOptions {
    pub damping: f64,
    pub iterations: u32,
    /// Stop early once the L1 change of an iteration is below this.
    pub tolerance: Option<f64>,
}

pub struct PageRankResult {
    pub rank: VertexResult<f64>,
    pub iterations: u32,
    /// L1 change of the last iteration.
    pub delta: f64,
    pub report: EngineReport,
}

/// Memory of the tile regime: contributions (which also keep the ranks
/// of sinks, whose contributions no tuple reads), next ranks, out-degrees.
pub fn state_bytes(n: u64) -> u64 {
    n * 20
}

struct TilePush<'a> {
    contribution: &'a [f64],
    next: &'a F64Cells,
    undirected: bool,
}

impl TileProgram for TilePush<'_> {
    fn reverse(&self) -> bool {
        self.undirected
    }
    fn forward(&self, t: &TileEdges) {
        let (s0, t0) = (t.source_base as usize, t.target_base as usize);
        for &[ls, lt] in t.edges {
            self.next.add(t0 + lt as usize, self.contribution[s0 + ls as usize]);
        }
    }
    fn backward(&self, t: &TileEdges) {
        // Tuples come sorted by source: sum each source's run in a register,
        // and prefetch the (cold, random) contributions of the target span ahead.
        let (s0, t0) = (t.source_base as usize, t.target_base as usize);
        let edges = t.edges;
        let (mut run_source, mut sum) = (usize::MAX, 0.0);
        for (k, &[ls, lt]) in edges.iter().enumerate() {
            if let Some(&[_, ahead]) = edges.get(k + PREFETCH_AHEAD) {
                outcore_io::prefetch(self.contribution, t0 + ahead as usize);
            }
            let (u, v) = (s0 + ls as usize, t0 + lt as usize);
            if u != run_source {
                if run_source != usize::MAX {
                    self.next.add(run_source, sum);
                }
                (run_source, sum) = (u, 0.0);
            }
            if u != v {
                sum += self.contribution[v];
            }
        }
        if run_source != usize::MAX {
            self.next.add(run_source, sum);
        }
    }
}

/// Edges the backward pass prefetches ahead.
const PREFETCH_AHEAD: usize = 24;

struct IntervalPull {
    damping: f64,
    base: f64,
}

impl IntervalProgram for IntervalPull {
    type Value = f64;
    fn gather(&self, _v: u64, out_degree: u64, lists: &[NeighbourList], values: &Values<f64>) -> f64 {
        let sum = values.sum(lists[0].ids);
        let rank = self.base + self.damping * sum;
        if out_degree > 0 {
            rank / out_degree as f64
        } else {
            rank
        }
    }
}

pub fn pagerank(store: &Store, pr: &PageRankOptions, budget: &Budget, opts: &AnalyticsOptions) -> Result<PageRankResult, StoreError> {
    if !(0.0..=1.0).contains(&pr.damping) {
        return Err(StoreError::invalid(store.dir(), format!("damping {} is not between 0 and 1", pr.damping)));
    }
    if pr.tolerance.is_some_and(|t| t.is_nan() || t <= 0.0) {
        return Err(StoreError::invalid(store.dir(), "the tolerance must be > 0"));
    }
    let n = store.vertices();
    let structure = interval_layouts(store, false);
    let (engine, reason) = choose(store, budget, opts, state_bytes(n), false, &structure)?;
    if engine == Engine::Interval {
        return on_intervals(store, pr, budget, opts, &structure, reason);
    }
    if engine == Engine::SortReduce {
        return on_sortreduce(store, pr, budget, opts, reason);
    }
    let _charge = budget.reserve("PageRank ranks, contributions and out-degrees", state_bytes(n))?;
    let mut stream = open_stream(store, budget, engine, false, opts)?;
    let undirected = stream.record_ref().upper_triangle;
    let mut degree = vec![0u32; n as usize];
    store.layout("out")?.for_each_degree(|v, d| degree[v as usize] = d.min(u32::MAX as u64) as u32)?;
    let (d, nf) = (pr.damping, n as f64);
    // contribution[v] = PR(v) / outdeg(v), or PR(v) itself for a sink
    let share = |rank: f64, deg: u32| if deg == 0 { rank } else { rank / deg as f64 };
    let mut contribution: Vec<f64> = degree.iter().map(|&g| share(1.0 / nf, g)).collect();
    let mut sinks: f64 = degree.iter().filter(|&&g| g == 0).count() as f64 / nf;
    let mut next = F64Cells::new(n as usize, 0.0);
    let (mut done, mut delta) = (0, f64::INFINITY);
    while done < pr.iterations {
        next.fill(0.0);
        stream.iterate(&TilePush { contribution: &contribution, next: &next, undirected })?;
        let base = (1.0 - d) / nf + d * sinks / nf;
        (delta, sinks) = (0.0, 0.0);
        let last = done + 1 == pr.iterations;
        for (v, c) in contribution.iter_mut().enumerate() {
            let (x, g) = (base + d * next.get(v), degree[v]);
            next.set(v, x);
            let old = if g == 0 { *c } else { *c * g as f64 };
            delta += (x - old).abs();
            if g == 0 {
                sinks += x;
            }
            if !last {
                *c = share(x, g);
            }
        }
        done += 1;
        if pr.tolerance.is_some_and(|t| delta < t) {
            break;
        }
    }
    drop(contribution);
    let report = EngineReport { engine, reason, stream: Some(stream.stats().clone()), interval: None, sortreduce: None };
    Ok(PageRankResult { rank: VertexResult::Memory(next.into_vec()), iterations: done, delta, report })
}

fn on_intervals(
    store: &Store,
    pr: &PageRankOptions,
    budget: &Budget,
    opts: &AnalyticsOptions,
    structure: &[&str],
    reason: String,
) -> Result<PageRankResult, StoreError> {
    let n = store.vertices();
    let nf = n as f64;
    let mut sinks = 0.0;
    let mut engine = IntervalEngine::open(store, structure, true, budget, &opts.interval, |_, deg| {
        if deg > 0 {
            1.0 / nf / deg as f64
        } else {
            sinks += 1.0 / nf;
            1.0 / nf
        }
    })?;
    let (mut done, mut delta) = (0, f64::INFINITY);
    while done < pr.iterations {
        let program = IntervalPull { damping: pr.damping, base: (1.0 - pr.damping) / nf + pr.damping * sinks / nf };
        let (mut next_sinks, mut change) = (0.0, 0.0);
        engine.iterate(&program, |_, deg, old, new| {
            if deg == 0 {
                next_sinks += new;
                change += (new - old).abs();
            } else {
                change += (new - old).abs() * deg as f64;
            }
        })?;
        sinks = next_sinks;
        delta = change;
        done += 1;
        if pr.tolerance.is_some_and(|t| delta < t) {
            break;
        }
    }
    let report = EngineReport { engine: Engine::Interval, reason, stream: None, interval: Some(engine.stats().clone()), sortreduce: None };
    let rank = VertexResult::Intervals { engine: Box::new(engine), scale_by_degree: Some(store.layout("out")?) };
    Ok(PageRankResult { rank, iterations: done, delta, report })
}

/// PageRank as a sort-reduce program: the state is PR(v).
struct PushRank {
    damping: f64,
    /// (1-d)/|V| + d * (sinks' rank)/|V| of the previous iteration.
    base: f64,
    /// Rank of the sinks among the vertices read this superstep.
    sinks: AtomicSum,
    /// L1 change of the ranks finalized this superstep.
    change: AtomicSum,
}

impl Program for PushRank {
    type State = f64;
    type Update = f64;
    const FINALIZE_ALL: bool = true;
    fn visit(&self, _u: u64, rank: &f64, degree: u64) {
        if degree == 0 {
            self.sinks.add(*rank);
        }
    }
    fn edge(&self, _u: u64, rank: &f64, degree: u64, _v: u64, _w: f32) -> Option<f64> {
        Some(rank / degree as f64)
    }
    fn reduce(&self, a: f64, b: f64) -> f64 {
        a + b
    }
    fn finalize(&self, _v: u64, old: f64, sum: Option<f64>) -> f64 {
        let new = self.base + self.damping * sum.unwrap_or(0.0);
        self.change.add((new - old).abs());
        new
    }
    fn is_active(&self, _v: u64, _old: &f64, _new: &f64) -> bool {
        true
    }
}

fn on_sortreduce(
    store: &Store,
    pr: &PageRankOptions,
    budget: &Budget,
    opts: &AnalyticsOptions,
    reason: String,
) -> Result<PageRankResult, StoreError> {
    let n = store.vertices();
    let nf = n as f64;
    let mut engine = open_sortreduce(store, &["out"], 8, budget, opts)?;
    let values = engine.values(|_| 1.0 / nf)?;
    let program = |base| PushRank { damping: pr.damping, base, sinks: AtomicSum::default(), change: AtomicSum::default() };
    let (mut done, mut delta) = (0, f64::INFINITY);
    let mut current = program(0.0);
    let mut log = None;
    while done < pr.iterations {
        // finalizes the ranks of iteration `done` (from the last log) while pushing them
        let next = engine.step(&current, &values, log.take())?;
        if done > 0 {
            delta = current.change.get();
            if pr.tolerance.is_some_and(|t| delta < t) {
                next.remove();
                break;
            }
        }
        log = Some(next);
        current = program((1.0 - pr.damping) / nf + pr.damping * current.sinks.get() / nf);
        done += 1;
    }
    if let Some(log) = log {
        engine.finish(&current, &values, log)?;
        delta = current.change.get();
    }
    let mut report = EngineReport::new(Engine::SortReduce, reason);
    report.sortreduce = Some(engine.stats().clone());
    Ok(PageRankResult { rank: VertexResult::External { engine: Box::new(engine), values }, iterations: done, delta, report })
}
