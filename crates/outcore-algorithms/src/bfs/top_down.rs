//! Top-down BFS on the traverse engine, with RASP run-ahead: the FIFO
//! queue is the iterator state the prefetcher reads ahead of the cursor
//! (TR-823 section 6). Each level is expanded in vertex-id order, so the
//! blocks it needs are read in file order and about once per level, not
//! once per vertex that shares them. Output: a parent tree and levels.

use super::{BfsTree, NONE};
use outcore_engines::{Lookahead, Traverse};
use outcore_io::Budget;
use outcore_store::StoreError;

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
