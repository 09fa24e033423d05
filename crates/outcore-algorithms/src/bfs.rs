//! Top-down BFS on the traverse engine, with RASP run-ahead: the FIFO
//! queue is the iterator state the prefetcher reads ahead of the cursor
//! (TR-823 section 6). Each level is expanded in vertex-id order, so the
//! blocks it needs are read in file order and about once per level, not
//! once per vertex that shares them. Output: a parent tree and levels.
//!
//! On sort-reduce (BigSparse section 5.2), [`bfs_sortreduce`]: the
//! frontier pushes its own id, updates reduce to the smallest parent, and
//! a vertex is active when it is reached for the first time; levels and
//! parents stay on disk.

use outcore_engines::sortreduce::{Program, SortReduce, ValueFile};
use outcore_engines::{Lookahead, Traverse};
use outcore_io::{Budget, Reservation};
use outcore_store::StoreError;

/// No parent / not reached.
pub const NONE: u32 = u32::MAX;

/// A BFS (or shortest-path) tree over dense ids.
pub struct BfsTree {
    pub root: u64,
    /// Parent of each vertex; the root is its own parent; [`NONE`] if unreached.
    pub parent: Vec<u32>,
    /// Hops from the root; [`NONE`] if unreached.
    pub level: Vec<u32>,
    /// Vertices reached, the root included.
    pub reached: u64,
    /// Adjacency entries of the reached vertices (edges scanned).
    pub arcs_scanned: u64,
    _charges: Vec<Reservation>,
}

impl BfsTree {
    /// Memory for parent and level arrays and the queue.
    pub fn state_bytes(vertices: u64) -> u64 {
        vertices * 12
    }

    /// Parent and level arrays only (8 bytes per vertex).
    pub(crate) fn without_queue(vertices: u64, root: u64, budget: &Budget) -> Result<Self, StoreError> {
        check_ids(vertices, root)?;
        let charge = budget.reserve("BFS parent and level arrays", vertices * 8)?;
        Ok(BfsTree {
            root,
            parent: vec![NONE; vertices as usize],
            level: vec![NONE; vertices as usize],
            reached: 0,
            arcs_scanned: 0,
            _charges: vec![charge],
        })
    }

    /// Parent and level arrays and an empty queue with room for every vertex.
    pub(crate) fn new(vertices: u64, root: u64, budget: &Budget) -> Result<(Self, Vec<u32>), StoreError> {
        let mut tree = Self::without_queue(vertices, root, budget)?;
        tree._charges.push(budget.reserve("BFS queue", vertices * 4)?);
        Ok((tree, Vec::with_capacity(vertices as usize)))
    }
}

pub(crate) fn check_ids(vertices: u64, root: u64) -> Result<(), StoreError> {
    if vertices >= u32::MAX as u64 {
        return Err(StoreError::invalid("store", "traversals support at most 2^32-2 vertices"));
    }
    if root >= vertices {
        return Err(StoreError::invalid("store", format!("root {root} is not a vertex")));
    }
    Ok(())
}

/// BFS from `root` (a dense id) along out-edges.
pub fn bfs(g: &mut Traverse, root: u64, budget: &Budget) -> Result<BfsTree, StoreError> {
    let (mut tree, mut queue) = BfsTree::new(g.vertices(), root, budget)?;
    tree.parent[root as usize] = root as u32;
    tree.level[root as usize] = 0;
    queue.push(root as u32);
    let mut head = 0;
    let mut ahead = Lookahead::default();
    let mut level_end = queue.len();
    let mut nbrs = Vec::new();
    while head < queue.len() {
        if head == level_end {
            // the next level is complete: expand it in block order
            queue[level_end..].sort_unstable();
            level_end = queue.len();
            ahead.reset(head);
        }
        ahead.before(g, &queue, head)?;
        let v = queue[head];
        head += 1;
        g.neighbours(v as u64, &mut nbrs)?;
        tree.arcs_scanned += nbrs.len() as u64;
        let next = tree.level[v as usize] + 1;
        for &w in &nbrs {
            if tree.parent[w as usize] == NONE {
                tree.parent[w as usize] = v;
                tree.level[w as usize] = next;
                queue.push(w as u32);
            }
        }
    }
    tree.reached = queue.len() as u64;
    Ok(tree)
}

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
