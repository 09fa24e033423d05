//! SSSP on sort-reduce: Bellman-Ford by supersteps (BigSparse section 3):
//! edge program dist + w, reduce and finalize by min, a vertex active when
//! its distance drops. Distances stay on disk.

use crate::bfs::check_ids;
use outcore_engines::sortreduce::{Program, SortReduce, ValueFile};
use outcore_store::StoreError;

/// Distances and parents as a vertex file of the sort-reduce engine.
pub struct ExternalPaths {
    pub root: u64,
    /// `[distance, parent]` per vertex (the parent as an exact f64; unreached:
    /// infinity and `u32::MAX`).
    pub values: ValueFile<[f64; 2]>,
    pub reached: u64,
    pub arcs_scanned: u64,
    pub supersteps: u32,
    pub engine: SortReduce,
}

/// Unreached parent.
const NO_PARENT: f64 = u32::MAX as f64;

/// Relaxation as a sort-reduce program: the state and the updates are
/// `[distance, parent]`; the smaller distance wins, then the smaller parent.
struct Relax;

fn better(a: [f64; 2], b: [f64; 2]) -> bool {
    a[0] < b[0] || (a[0] == b[0] && a[1] < b[1])
}

impl Program for Relax {
    type State = [f64; 2];
    type Update = [f64; 2];
    fn edge(&self, u: u64, s: &[f64; 2], _degree: u64, _v: u64, w: f32) -> Option<[f64; 2]> {
        Some([s[0] + w as f64, u as f64])
    }
    fn reduce(&self, a: [f64; 2], b: [f64; 2]) -> [f64; 2] {
        if better(b, a) {
            b
        } else {
            a
        }
    }
    fn finalize(&self, _v: u64, old: [f64; 2], d: Option<[f64; 2]>) -> [f64; 2] {
        match d {
            Some(d) if d[0] < old[0] => d,
            _ => old,
        }
    }
    fn is_active(&self, _v: u64, old: &[f64; 2], new: &[f64; 2]) -> bool {
        new[0] < old[0]
    }
}

/// Shortest paths from `root` (a dense id) along weighted out-edges on the sort-reduce engine.
pub fn sssp_sortreduce(mut engine: SortReduce, root: u64) -> Result<ExternalPaths, StoreError> {
    check_ids(engine.vertices(), root)?;
    let values = engine.values(|_| [f64::INFINITY, NO_PARENT])?;
    let mut log = engine.log_from(vec![(root, [0.0f64, root as f64])])?;
    let (mut supersteps, mut arcs) = (0u32, 0u64);
    loop {
        let next = engine.step(&Relax, &values, Some(log))?;
        arcs += engine.stats().supersteps.last().unwrap().updates;
        supersteps += 1;
        if next.is_empty() {
            next.remove();
            break;
        }
        log = next;
    }
    let mut reached = 0;
    crate::values::for_each_stored(&values, |_, d: [f64; 2]| reached += d[0].is_finite() as u64)?;
    Ok(ExternalPaths { root, values, reached, arcs_scanned: arcs, supersteps, engine })
}
