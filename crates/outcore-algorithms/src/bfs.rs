//! Top-down BFS on the traverse engine, with RASP run-ahead: the FIFO
//! queue is the iterator state the prefetcher reads ahead of the cursor
//! (TR-823 section 6). Each level is expanded in vertex-id order, so the
//! blocks it needs are read in file order and about once per level, not
//! once per vertex that shares them. Output: a parent tree and levels.

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
