//! BFS levels: hops from `root` along out-edges, [`UNREACHABLE`] if none.

use crate::values::UNREACHED_U64 as UNREACHABLE;
use crate::MemGraph;
use std::collections::VecDeque;

pub fn bfs_levels(g: &MemGraph, root: u64) -> Vec<u64> {
    let mut level = vec![UNREACHABLE; g.vertices() as usize];
    let mut queue = VecDeque::new();
    level[root as usize] = 0;
    queue.push_back(root);
    while let Some(u) = queue.pop_front() {
        for &v in g.neighbours(u) {
            if level[v as usize] == UNREACHABLE {
                level[v as usize] = level[u as usize] + 1;
                queue.push_back(v);
            }
        }
    }
    level
}
