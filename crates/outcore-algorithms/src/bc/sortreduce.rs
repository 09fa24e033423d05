//! Brandes on sort-reduce, fully external. BigSparse's BC (section 5.2)
//! keeps only parents and counts one path per vertex; this is the real
//! one. Forward: each level pushes sigma along out-edges, sums reduce, and
//! a vertex reached for the first time takes its level; every level's
//! active set is kept as a sparse vertex file (the update logs). Backward,
//! deepest level first: the vertices of level L (a left join of their level
//! file with their dependencies) push (1 + delta)/sigma along in-edges;
//! sums reduce, and joining them with level L-1's file gives level L-1's
//! dependencies. The dependencies of all levels are merged and added to
//! the BC vertex file.

use crate::bfs::check_ids;
use outcore_engines::sortreduce::source::{Counted, Join, LeftJoin, Listed, Tee};
use outcore_engines::sortreduce::{Program, Run, SortReduce, ValueFile};
use outcore_io::Progress;
use outcore_store::StoreError;

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
pub fn bc_sortreduce(
    engine: &mut SortReduce,
    predecessors: &str,
    sources: &[u64],
    targets: Option<&[u64]>,
    scale: f64,
    progress: &dyn Progress,
) -> Result<ValueFile<f64>, StoreError> {
    let n = engine.vertices();
    for &s in sources {
        check_ids(n, s)?;
    }
    let bc = engine.values(|_| 0.0f64)?;
    progress.begin("bc", sources.len() as u64, false);
    for (k, &s) in sources.iter().enumerate() {
        progress.set(k as u64);
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
            let active = LeftJoin::new(members, known, |w, [_, sigma]: [f64; 2], d: Option<f64>| {
                Some((super::traverse::path_end(targets, w, s) + d.unwrap_or(0.0)) / sigma)
            });
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
    progress.end();
    Ok(bc)
}
