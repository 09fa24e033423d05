//! CEESOR's vertex enumeration (TR-823 section 3). A DFS of the graph
//! treated as undirected, with an explicit stack, builds a forest and the
//! weight (vertex count) of every subtree. Each tree is then enumerated
//! recursively: the heaviest child subtree first, the others in DFS order;
//! the root is placed as soon as the subtrees enumerated so far weigh at
//! least half of its own weight. No edge joins two sibling subtrees (a
//! DFS property), so each subtree's edges stay inside its id range.
//!
//! Memory: parent, weight, child index and the new ids (4 bytes each per
//! vertex), the DFS stack, and the lists of the vertices on it.

use super::Undirected;
use outcore_store::StoreError;

const NONE: u32 = u32::MAX;

/// The DFS forest: parent of each vertex, subtree weights, roots, and
/// children in discovery order (CSR over `child_start`).
pub struct Forest {
    pub parent: Vec<u32>,
    pub weight: Vec<u32>,
    pub roots: Vec<u32>,
    pub child_start: Vec<u32>,
    pub children: Vec<u32>,
}

/// Depth-first forest of `g`, roots taken in id order, neighbours in list
/// order.
pub fn dfs_forest(g: &mut impl Undirected) -> Result<Forest, StoreError> {
    let n = g.vertices() as usize;
    let mut parent = vec![NONE; n];
    let mut weight = vec![1u32; n];
    let mut seen = vec![false; n];
    let mut preorder: Vec<u32> = Vec::with_capacity(n);
    let mut roots = Vec::new();
    // frames: (vertex, its neighbour list, cursor); lists are reused
    let mut stack: Vec<(u32, Vec<u64>, usize)> = Vec::new();
    let mut spare: Vec<Vec<u64>> = Vec::new();
    for s in 0..n as u32 {
        if seen[s as usize] {
            continue;
        }
        roots.push(s);
        seen[s as usize] = true;
        preorder.push(s);
        let mut list = spare.pop().unwrap_or_default();
        g.neighbours(s as u64, &mut list)?;
        stack.push((s, list, 0));
        while let Some((v, list, cursor)) = stack.last_mut() {
            if *cursor < list.len() {
                let u = list[*cursor] as usize;
                *cursor += 1;
                if !seen[u] {
                    seen[u] = true;
                    parent[u] = *v;
                    preorder.push(u as u32);
                    let mut l = spare.pop().unwrap_or_default();
                    g.neighbours(u as u64, &mut l)?;
                    stack.push((u as u32, l, 0));
                }
            } else {
                let (v, list, _) = stack.pop().unwrap();
                spare.push(list);
                let p = parent[v as usize];
                if p != NONE {
                    weight[p as usize] += weight[v as usize];
                }
            }
        }
    }
    let mut child_start = vec![0u32; n + 1];
    for &p in &parent {
        if p != NONE {
            child_start[p as usize + 1] += 1;
        }
    }
    for v in 0..n {
        child_start[v + 1] += child_start[v];
    }
    let mut fill = child_start.clone();
    let mut children = vec![0u32; child_start[n] as usize];
    for &v in &preorder {
        let p = parent[v as usize];
        if p != NONE {
            children[fill[p as usize] as usize] = v;
            fill[p as usize] += 1;
        }
    }
    Ok(Forest { parent, weight, roots, child_start, children })
}

/// Enumerate `forest` as section 3 says; returns new_of_old.
pub fn enumerate(forest: &Forest) -> Vec<u32> {
    let n = forest.parent.len();
    let mut new_of_old = vec![NONE; n];
    let mut next = 0u32;
    /// One vertex being enumerated.
    struct Frame {
        vertex: u32,
        heaviest: Option<usize>,
        slot: usize,
        end: usize,
        done: u64,
        placed: bool,
    }
    let frame = |v: u32| {
        let (a, b) = (forest.child_start[v as usize] as usize, forest.child_start[v as usize + 1] as usize);
        Frame { vertex: v, heaviest: heaviest_of(forest, v), slot: a, end: b, done: 0, placed: false }
    };
    let mut stack: Vec<Frame> = Vec::new();
    for &r in &forest.roots {
        stack.push(frame(r));
        while let Some(f) = stack.last_mut() {
            if !f.placed && 2 * f.done >= forest.weight[f.vertex as usize] as u64 {
                new_of_old[f.vertex as usize] = next;
                next += 1;
                f.placed = true;
            }
            // the heaviest subtree first, then the others in DFS order
            let child = match f.heaviest.take() {
                Some(h) => Some(h),
                None => {
                    if Some(f.slot) == heaviest_of(forest, f.vertex) {
                        f.slot += 1;
                    }
                    (f.slot < f.end).then(|| {
                        f.slot += 1;
                        f.slot - 1
                    })
                }
            };
            match child {
                Some(i) => {
                    let c = forest.children[i];
                    f.done += forest.weight[c as usize] as u64;
                    stack.push(frame(c));
                }
                None => {
                    // a leaf (any other vertex is placed by now)
                    if !f.placed {
                        new_of_old[f.vertex as usize] = next;
                        next += 1;
                    }
                    stack.pop();
                }
            }
        }
    }
    debug_assert_eq!(next as usize, n);
    new_of_old
}

/// The child slot of `v`'s heaviest subtree (the first of equals).
fn heaviest_of(forest: &Forest, v: u32) -> Option<usize> {
    let (a, b) = (forest.child_start[v as usize] as usize, forest.child_start[v as usize + 1] as usize);
    (a..b).max_by_key(|&i| (forest.weight[forest.children[i] as usize], std::cmp::Reverse(i)))
}

/// CEESOR's enumeration of `g`: new_of_old.
pub fn ceesor_order(g: &mut impl Undirected) -> Result<Vec<u32>, StoreError> {
    Ok(enumerate(&dfs_forest(g)?))
}

#[cfg(test)]
mod tests {
    use super::super::{is_permutation, offset_bits, ListsGraph};
    use super::*;

    /// Reference: recursive DFS; checks that every subtree takes a
    /// contiguous id range, that the heaviest child comes first, and that
    /// the root sits where the paper puts it.
    fn check(g: &mut ListsGraph) {
        let forest = dfs_forest(g).unwrap();
        let p = enumerate(&forest);
        assert!(is_permutation(&p));
        let n = p.len();
        // DFS property: no edge between different subtrees of one vertex,
        // i.e. every edge joins an ancestor and a descendant.
        let depth = |mut v: u32| {
            let mut d = 0;
            while forest.parent[v as usize] != NONE {
                v = forest.parent[v as usize];
                d += 1;
            }
            d
        };
        let is_ancestor = |a: u32, mut v: u32| loop {
            if v == a {
                return true;
            }
            if forest.parent[v as usize] == NONE {
                return false;
            }
            v = forest.parent[v as usize];
        };
        for (u, l) in g.0.iter().enumerate() {
            for &v in l {
                let (a, b) = if depth(u as u32) < depth(v as u32) { (u as u32, v as u32) } else { (v as u32, u as u32) };
                assert!(is_ancestor(a, b), "edge {u}-{v} crosses subtrees");
            }
        }
        // subtree ranges
        let mut lo = p.clone();
        let mut hi = p.clone();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&v| std::cmp::Reverse(depth(v as u32)));
        for &v in &order {
            let par = forest.parent[v];
            if par != NONE {
                lo[par as usize] = lo[par as usize].min(lo[v]);
                hi[par as usize] = hi[par as usize].max(hi[v]);
            }
        }
        for v in 0..n {
            assert_eq!((hi[v] - lo[v] + 1), forest.weight[v], "subtree of {v} is not contiguous");
            let kids = &forest.children[forest.child_start[v] as usize..forest.child_start[v + 1] as usize];
            if let Some(&first) = kids.iter().min_by_key(|&&c| lo[c as usize]) {
                let heaviest = kids.iter().map(|&c| forest.weight[c as usize]).max().unwrap();
                assert_eq!(forest.weight[first as usize], heaviest, "vertex {v}: heaviest child not first");
                // the root follows exactly the children enumerated before it,
                // and those weigh at least half, the ones before the last less
                let before: Vec<u32> = kids.iter().filter(|&&c| lo[c as usize] < p[v]).copied().collect();
                let w: u64 = before.iter().map(|&c| forest.weight[c as usize] as u64).sum();
                assert!(2 * w >= forest.weight[v] as u64 || before.len() == kids.len(), "vertex {v} placed too early");
                if let Some(&last) = before.iter().max_by_key(|&&c| lo[c as usize]) {
                    assert!(2 * (w - forest.weight[last as usize] as u64) < forest.weight[v] as u64, "vertex {v} placed too late");
                }
            }
        }
    }

    #[test]
    fn enumeration_follows_section_3() {
        // an ordering that never ends fails the test at the suite's time bound
        outcore_io::bound::bounded("enumeration_follows_section_3", || {
            // two triangles joined by a bridge, a tail and an isolated vertex
            let mut g = ListsGraph::from_edges(9, &[(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 5), (5, 3), (5, 6), (6, 7)]);
            check(&mut g);
            let mut rng = 12345u64;
            for n in [10usize, 50, 300] {
                for density in [1u64, 3] {
                    let edges: Vec<(u64, u64)> = (0..n as u64 * density)
                        .map(|_| {
                            rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                            ((rng >> 33) % n as u64, (rng >> 13) % n as u64)
                        })
                        .collect();
                    check(&mut ListsGraph::from_edges(n, &edges));
                }
            }
        })
    }

    #[test]
    fn dfs_lowers_the_offset_cost_of_a_scrambled_grid() {
        // an ordering that never ends fails the test at the suite's time bound
        outcore_io::bound::bounded("dfs_lowers_the_offset_cost_of_a_scrambled_grid", || {
            // a 40 x 40 grid, labelled by a scrambling permutation
            let side = 40u64;
            let n = side * side;
            let label = |i: u64| (i * 7919) % n;
            let mut edges = Vec::new();
            for r in 0..side {
                for c in 0..side {
                    let v = r * side + c;
                    if c + 1 < side {
                        edges.push((label(v), label(v + 1)));
                    }
                    if r + 1 < side {
                        edges.push((label(v), label(v + side)));
                    }
                }
            }
            let mut g = ListsGraph::from_edges(n as usize, &edges);
            let identity: Vec<u32> = (0..n as u32).collect();
            let p = ceesor_order(&mut g).unwrap();
            let (before, after) = (offset_bits(&g, &identity), offset_bits(&g, &p));
            assert!(after * 10 < before * 7, "DFS order: {after} offset bits, scrambled {before}");
        })
    }
}
