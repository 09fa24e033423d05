//! BFS on sort-reduce (BigSparse section 5.2): the frontier pushes its own
//! id, updates reduce to the smallest parent, and a vertex is active when
//! it is reached for the first time; levels and parents stay on disk.

use super::check_ids;
use crate::values::UNREACHED_U32 as NONE;
use outcore_engines::sortreduce::{Program, SortReduce, ValueFile};
use outcore_store::StoreError;

/// A BFS whose levels and parents are a vertex file of the sort-reduce engine.
pub struct ExternalTree {
    pub root: u64,
    /// `[level, parent]` per vertex, [`NONE`] where unreached.
    pub values: ValueFile<[u32; 2]>,
    pub reached: u64,
    pub arcs_scanned: u64,
    pub depth: u32,
    pub engine: SortReduce,
}

/// One level of BFS as a sort-reduce program: the state is `[level, parent]`.
struct PushParent {
    level: u32,
}

impl Program for PushParent {
    type State = [u32; 2];
    type Update = u32;
    fn edge(&self, u: u64, _s: &[u32; 2], _degree: u64, _v: u64, _w: f32) -> Option<u32> {
        Some(u as u32)
    }
    fn reduce(&self, a: u32, b: u32) -> u32 {
        a.min(b)
    }
    fn finalize(&self, _v: u64, old: [u32; 2], parent: Option<u32>) -> [u32; 2] {
        match parent {
            Some(p) if old[0] == NONE => [self.level, p],
            _ => old,
        }
    }
    fn is_active(&self, _v: u64, old: &[u32; 2], new: &[u32; 2]) -> bool {
        old[0] == NONE && new[0] != NONE
    }
}

/// BFS from `root` (a dense id) along out-edges on the sort-reduce engine.
pub fn bfs_sortreduce(mut engine: SortReduce, root: u64) -> Result<ExternalTree, StoreError> {
    check_ids(engine.vertices(), root)?;
    let values = engine.values(|_| [NONE, NONE])?;
    let mut log = engine.log_from(vec![(root, root as u32)])?;
    let (mut level, mut reached, mut arcs) = (0u32, 0u64, 0u64);
    loop {
        let next = engine.step(&PushParent { level }, &values, Some(log))?;
        let st = engine.stats().supersteps.last().unwrap();
        reached += st.active;
        arcs += st.updates;
        if next.is_empty() {
            next.remove();
            break;
        }
        log = next;
        level += 1;
    }
    Ok(ExternalTree { root, values, reached, arcs_scanned: arcs, depth: level, engine })
}
