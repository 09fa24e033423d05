//! Betweenness centrality, Brandes (2001): for each source s, a BFS that
//! counts shortest paths sigma, then dependencies in reverse BFS order,
//!   delta_s(v) = sum over w with d(w) = d(v)+1 and v->w of sigma(v)/sigma(w) * (1 + delta_s(w)),
//! and BC(v) = sum over sources of delta_s(v), v != s. Exact for a given
//! set of sources; the sampled approximation (Brandes and Pich 2007) takes
//! k sources at random and scales by |V|/k. Like networkx, values are not
//! normalized and an undirected graph's are halved (each path is found
//! from both ends).
//!
//! - [`bc_traverse`]: semi-external: distances, path counts, dependencies
//!   and the BFS order in memory (32 bytes a vertex), lists read twice per
//!   source through the traverse engine.
//! - [`bc_sortreduce`]: fully external. BigSparse's BC (section 5.2) keeps
//!   only parents and counts one path per vertex; this is the real one.
//!   Forward: each level pushes sigma along out-edges, sums reduce, and a
//!   vertex reached for the first time takes its level; every level's
//!   active set is kept as a sparse vertex file (the update logs).
//!   Backward, deepest level first: the vertices of level L (a left join of
//!   their level file with their dependencies) push (1 + delta)/sigma along
//!   in-edges; sums reduce, and joining them with level L-1's file gives
//!   level L-1's dependencies. The dependencies of all levels are merged
//!   and added to the BC vertex file.

use crate::bfs::{check_ids, NONE};
use outcore_engines::sortreduce::source::{Counted, Join, LeftJoin, Listed, Tee};
use outcore_engines::sortreduce::{Program, Run, SortReduce, ValueFile};
use outcore_engines::Traverse;
use outcore_io::Budget;
use outcore_store::StoreError;

/// Which sources a BC run uses.
#[derive(Clone, Debug)]
pub enum Sources {
    /// Every vertex: exact BC.
    All,
    /// These dense ids: the exact partial sum over them.
    Given(Vec<u64>),
    /// `count` distinct vertices drawn with `seed`, scaled by |V|/count.
    Sample { count: u64, seed: u64 },
}

/// The sources and the factor every sum is multiplied by.
pub fn pick_sources(n: u64, sources: &Sources, directed: bool) -> Result<(Vec<u64>, f64), StoreError> {
    let half = if directed { 1.0 } else { 0.5 };
    Ok(match sources {
        Sources::All => ((0..n).collect(), half),
        Sources::Given(s) => {
            for &v in s {
                check_ids(n, v)?;
            }
            (s.clone(), half)
        }
        Sources::Sample { count, seed } => {
            if *count == 0 {
                return Err(StoreError::invalid("--sources", "sample at least one source"));
            }
            if *count >= n {
                return Ok(((0..n).collect(), half));
            }
            // a partial Fisher-Yates shuffle driven by a hash, over the ids drawn so far
            let mut swapped = std::collections::HashMap::new();
            let mut picked = Vec::with_capacity(*count as usize);
            for i in 0..*count {
                let j = i + splitmix64(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ i) % (n - i);
                let at_j = *swapped.get(&j).unwrap_or(&j);
                let at_i = *swapped.get(&i).unwrap_or(&i);
                swapped.insert(j, at_i);
                picked.push(at_j);
            }
            (picked, half * n as f64 / *count as f64)
        }
    })
}

fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Memory of [`bc_traverse`]: distance, sigma, delta, BC and order slot per vertex.
pub fn state_bytes(n: u64) -> u64 {
    n * 32
}

/// Brandes from each source over the traverse engine's out-lists; returns
/// `scale` times the sums, and the arcs read.
pub fn bc_traverse(g: &mut Traverse, sources: &[u64], scale: f64, budget: &Budget) -> Result<(Vec<f64>, u64), StoreError> {
    let n = g.vertices();
    for &s in sources {
        check_ids(n, s)?;
    }
    let _charge = budget.reserve("BC distances, path counts, dependencies and order", state_bytes(n))?;
    let mut dist = vec![NONE; n as usize];
    let mut sigma = vec![0.0f64; n as usize];
    let mut delta = vec![0.0f64; n as usize];
    let mut bc = vec![0.0f64; n as usize];
    let mut order: Vec<u32> = Vec::with_capacity(n as usize);
    let mut nbrs = Vec::new();
    let mut arcs = 0u64;
    for &s in sources {
        order.clear();
        order.push(s as u32);
        dist[s as usize] = 0;
        sigma[s as usize] = 1.0;
        let mut head = 0;
        while head < order.len() {
            let v = order[head] as usize;
            head += 1;
            g.neighbours(v as u64, &mut nbrs)?;
            arcs += nbrs.len() as u64;
            for &w in &nbrs {
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
            g.neighbours(v as u64, &mut nbrs)?;
            arcs += nbrs.len() as u64;
            let mut d = 0.0;
            for &w in &nbrs {
                let w = w as usize;
                if dist[w] == dist[v] + 1 {
                    d += sigma[v] / sigma[w] * (1.0 + delta[w]);
                }
            }
            delta[v] = d;
            if v != s as usize {
                bc[v] += scale * d;
            }
        }
        for &v in &order {
            dist[v as usize] = NONE;
            sigma[v as usize] = 0.0;
            delta[v as usize] = 0.0;
        }
    }
    Ok((bc, arcs))
}

/// Forward: the state is `[level, sigma]` (level infinite until reached).
struct CountPaths {
    level: f64,
}

impl Program for CountPaths {
    type State = [f64; 2];
    type Update = f64;
    fn edge(&self, _u: u64, s: &[f64; 2], _degree: u64, _v: u64, _w: f32) -> Option<f64> {
        Some(s[1])
    }
    fn reduce(&self, a: f64, b: f64) -> f64 {
        a + b
    }
    fn finalize(&self, _v: u64, old: [f64; 2], paths: Option<f64>) -> [f64; 2] {
        match paths {
            Some(p) if old[0].is_infinite() => [self.level, p],
            _ => old,
        }
    }
    fn is_active(&self, _v: u64, old: &[f64; 2], new: &[f64; 2]) -> bool {
        old[0].is_infinite() && new[0].is_finite()
    }
}

/// Backward: a vertex sends (1 + delta)/sigma to its predecessors' side.
struct PushDependency;

impl Program for PushDependency {
    type State = f64;
    type Update = f64;
    fn edge(&self, _u: u64, coefficient: &f64, _degree: u64, _v: u64, _w: f32) -> Option<f64> {
        Some(*coefficient)
    }
    fn reduce(&self, a: f64, b: f64) -> f64 {
        a + b
    }
    fn finalize(&self, _v: u64, old: f64, _: Option<f64>) -> f64 {
        old
    }
    fn is_active(&self, _v: u64, _: &f64, _: &f64) -> bool {
        false
    }
}

/// Adds scaled dependencies to the BC vertex file.
struct AddDependency {
    scale: f64,
}

impl Program for AddDependency {
    type State = f64;
    type Update = f64;
    fn edge(&self, _u: u64, _s: &f64, _degree: u64, _v: u64, _w: f32) -> Option<f64> {
        None
    }
    fn reduce(&self, a: f64, b: f64) -> f64 {
        a + b
    }
    fn finalize(&self, _v: u64, old: f64, d: Option<f64>) -> f64 {
        old + self.scale * d.unwrap_or(0.0)
    }
    fn is_active(&self, _v: u64, _: &f64, _: &f64) -> bool {
        false
    }
}

/// Brandes from each source on the sort-reduce engine, which must have
/// been opened with layouts `out` and `predecessors` (`in` for a directed
/// graph, `out` again for an undirected one). Returns the BC vertex file.
pub fn bc_sortreduce(engine: &mut SortReduce, predecessors: &str, sources: &[u64], scale: f64) -> Result<ValueFile<f64>, StoreError> {
    let n = engine.vertices();
    for &s in sources {
        check_ids(n, s)?;
    }
    let bc = engine.values(|_| 0.0f64)?;
    for &s in sources {
        engine.use_layouts(&["out"])?;
        let paths = engine.values(|_| [f64::INFINITY, 0.0])?;
        let mut log = engine.log_from(vec![(s, 1.0f64)])?;
        let mut levels: Vec<Run<[f64; 2]>> = Vec::new();
        loop {
            let program = CountPaths { level: levels.len() as f64 };
            let mut reached = Tee::new(engine.activate(&program, &paths, &log)?, engine.run_writer("level")?);
            let next = engine.superstep(&mut reached, &program)?;
            levels.push(reached.finish()?);
            std::mem::replace(&mut log, next).remove();
            if log.is_empty() {
                break;
            }
        }
        log.remove();
        paths.remove();

        engine.use_layouts(&[predecessors])?;
        let mut dependencies: Vec<Run<f64>> = Vec::new();
        // dependencies of the level being processed (none below the deepest)
        let mut below: Option<Run<f64>> = None;
        for level in (1..levels.len()).rev() {
            let members = Counted::new(levels[level].reader(1 << 16)?, levels[level].entries);
            let known = match &below {
                Some(r) => Box::new(r.reader(1 << 16)?) as Box<dyn outcore_engines::sortreduce::source::VertexSource<f64>>,
                None => Box::new(Listed::new(Vec::new())),
            };
            let active = LeftJoin::new(members, known, |_, [_, sigma]: [f64; 2], d: Option<f64>| Some((1.0 + d.unwrap_or(0.0)) / sigma));
            let sums = engine.superstep(active, &PushDependency)?;
            let up = levels[level - 1].reader(1 << 16)?;
            let joined = Join::new(up, sums.reader(1 << 16)?, |_, [_, sigma]: [f64; 2], sum: f64| Some(sigma * sum));
            let next = engine.save(joined)?;
            sums.remove();
            if let Some(b) = below.replace(next) {
                dependencies.push(b);
            }
        }
        // what is left is the source's own dependency, which BC leaves out
        if let Some(b) = below {
            b.remove();
        }
        levels.into_iter().for_each(Run::remove);
        let all = engine.merge(dependencies, &AddDependency { scale })?;
        engine.finish(&AddDependency { scale }, &bc, all)?;
    }
    Ok(bc)
}
