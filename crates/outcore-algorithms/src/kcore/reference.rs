//! Core numbers in memory by Batagelj and Zaversnik's bucket peeling
//! (2003): repeatedly remove a vertex of least remaining degree; its
//! degree at removal is its core number. On the undirected simple graph
//! (direction ignored, loops and repeats dropped), as networkx's
//! `core_number` of `G.to_undirected()`.

use crate::MemGraph;
use std::collections::BTreeSet;

/// The most [`core_numbers`] holds beside `g`, for a graph of `n`
/// vertices and `arcs` arcs: a B-tree set a vertex (24 bytes, and a
/// 104-byte leaf once it has a neighbour), each arc in two sets (a key
/// takes at most 32 bytes of B-tree nodes: leaves at least five keys
/// full, a 200-byte inner node above six of them), four vectors for the
/// peeling and the result.
pub fn bytes(n: u64, arcs: u64) -> u64 {
    n * (24 + 104 + 5 * 8) + arcs * 2 * 32
}

pub fn core_numbers(g: &MemGraph) -> Vec<u64> {
    let n = g.vertices() as usize;
    let mut around = vec![BTreeSet::new(); n];
    for u in 0..n as u64 {
        for &w in g.neighbours(u) {
            if u != w {
                around[u as usize].insert(w as usize);
                around[w as usize].insert(u as usize);
            }
        }
    }
    let mut degree: Vec<usize> = around.iter().map(|s| s.len()).collect();
    let max = degree.iter().copied().max().unwrap_or(0);
    // vertices sorted by degree, with the start of each degree's bucket
    let mut start = vec![0usize; max + 2];
    for &d in &degree {
        start[d + 1] += 1;
    }
    for d in 0..=max {
        start[d + 1] += start[d];
    }
    let mut order = vec![0usize; n];
    let mut position = vec![0usize; n];
    let mut next = start.clone();
    for v in 0..n {
        position[v] = next[degree[v]];
        order[position[v]] = v;
        next[degree[v]] += 1;
    }
    for i in 0..n {
        let v = order[i];
        for &u in &around[v] {
            if degree[u] > degree[v] {
                // move u to the front of its bucket, then shrink it by one
                let (du, pu) = (degree[u], position[u]);
                let pw = start[du];
                let w = order[pw];
                if u != w {
                    order.swap(pu, pw);
                    position[u] = pw;
                    position[w] = pu;
                }
                start[du] += 1;
                degree[u] -= 1;
            }
        }
    }
    degree.into_iter().map(|d| d as u64).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clique_with_a_tail() {
        // K4 on 0..4, a path 3 - 4 - 5, and 6 alone
        let mut e: Vec<(u64, u64, f32)> = vec![(4, 5, 1.0), (3, 4, 1.0)];
        for a in 0..4 {
            for b in a + 1..4 {
                e.push((a, b, 1.0));
            }
        }
        let g = MemGraph::from_edges(7, &e, false, false);
        assert_eq!(core_numbers(&g), vec![3, 3, 3, 3, 1, 1, 0]);
    }
}
