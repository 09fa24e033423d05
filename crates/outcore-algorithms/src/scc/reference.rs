//! Strongly connected components in memory by Kosaraju's two passes: the
//! finishing order of a depth-first search over the graph, then searches
//! over the reverse graph in reverse finishing order, each collecting one
//! component. Each vertex is labelled with the smallest (dense) id of its
//! component. Iterative, so deep graphs do not overflow the stack.

use crate::MemGraph;

/// The most [`scc`] holds beside `g`, for a graph of `n` vertices and
/// `arcs` arcs: the visited flags, the finishing order, the search stack
/// (16 bytes an entry, up to every vertex, and the old buffer beside the
/// new as it grows: 48 bytes a vertex), the reverse graph, the labels, and
/// one component's members and search list (24 bytes a vertex each,
/// growing likewise).
pub fn bytes(n: u64, arcs: u64) -> u64 {
    n * (1 + 8 + 48 + 8 + 24 + 24) + MemGraph::transpose_bytes(n, arcs)
}

pub fn scc(g: &MemGraph) -> Vec<u64> {
    let n = g.vertices() as usize;
    // 1. finishing order
    let mut visited = vec![false; n];
    let mut order = Vec::with_capacity(n);
    let mut stack: Vec<(usize, usize)> = Vec::new();
    for s in 0..n {
        if visited[s] {
            continue;
        }
        visited[s] = true;
        stack.push((s, 0));
        while let Some(&mut (v, ref mut next)) = stack.last_mut() {
            let list = g.neighbours(v as u64);
            if let Some(&w) = list.get(*next) {
                *next += 1;
                if !visited[w as usize] {
                    visited[w as usize] = true;
                    stack.push((w as usize, 0));
                }
            } else {
                order.push(v);
                stack.pop();
            }
        }
    }
    // 2. components of the reverse graph, in reverse finishing order
    let reverse = g.transpose();
    let mut label = vec![u64::MAX; n];
    let mut members = Vec::new();
    for &s in order.iter().rev() {
        if label[s] != u64::MAX {
            continue;
        }
        members.clear();
        label[s] = 0;
        let mut todo = vec![s];
        while let Some(v) = todo.pop() {
            members.push(v);
            for &w in reverse.neighbours(v as u64) {
                if label[w as usize] == u64::MAX {
                    label[w as usize] = 0;
                    todo.push(w as usize);
                }
            }
        }
        let smallest = *members.iter().min().unwrap() as u64;
        for &v in &members {
            label[v] = smallest;
        }
    }
    label
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_cycles_joined_one_way_and_a_tail() {
        // 0 -> 1 -> 2 -> 0, 2 -> 3, 3 -> 4 -> 3, 5 -> 0
        let e: Vec<(u64, u64, f32)> = [(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 3), (5, 0)].iter().map(|&(a, b)| (a, b, 1.0)).collect();
        let g = MemGraph::from_edges(6, &e, true, false);
        assert_eq!(scc(&g), vec![0, 0, 0, 3, 3, 5]);
    }
}
