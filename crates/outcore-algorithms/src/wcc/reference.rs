//! Weakly connected components by union-find, ignoring direction. Each
//! vertex is labelled with the smallest (dense) id in its component.

use crate::MemGraph;

fn find(parent: &mut [u64], mut x: u64) -> u64 {
    while parent[x as usize] != x {
        parent[x as usize] = parent[parent[x as usize] as usize];
        x = parent[x as usize];
    }
    x
}

pub fn wcc(g: &MemGraph) -> Vec<u64> {
    let n = g.vertices();
    let mut parent: Vec<u64> = (0..n).collect();
    for u in 0..n {
        for &v in g.neighbours(u) {
            let (a, b) = (find(&mut parent, u), find(&mut parent, v));
            if a != b {
                // the smaller id becomes the root, so roots are component minima
                let (lo, hi) = if a < b { (a, b) } else { (b, a) };
                parent[hi as usize] = lo;
            }
        }
    }
    (0..n).map(|v| find(&mut parent, v)).collect()
}

/// Rounds of synchronous min-label propagation (direction ignored) until a
/// round changes nothing, that last round counted: every label starts as
/// its vertex and each round takes the minimum over the vertex and its
/// neighbours as the last round left them. What a Jacobi propagation
/// (sort-reduce) reports as its iterations, and the most an in-place one
/// (tiles, intervals) may take.
pub fn propagation_rounds(g: &MemGraph) -> u32 {
    let n = g.vertices();
    let mut label: Vec<u64> = (0..n).collect();
    let mut rounds = 0;
    loop {
        rounds += 1;
        let mut next = label.clone();
        for u in 0..n {
            for &v in g.neighbours(u) {
                next[v as usize] = next[v as usize].min(label[u as usize]);
                next[u as usize] = next[u as usize].min(label[v as usize]);
            }
        }
        if next == label {
            return rounds;
        }
        label = next;
    }
}
