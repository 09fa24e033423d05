//! BFS order and reverse Cuthill-McKee: ids by breadth-first discovery,
//! so neighbours get nearby ids (the bandwidth of the adjacency matrix
//! shrinks). Cuthill-McKee starts each component at a vertex of least
//! degree and visits neighbours by ascending degree; RCM reverses the
//! result. Memory: the queue and a visited flag per vertex.

use super::Undirected;
use outcore_store::StoreError;

/// new_of_old by BFS (`rcm` false: components from the lowest id,
/// neighbours in id order) or reverse Cuthill-McKee (`rcm` true).
pub fn bfs_order(g: &mut impl Undirected, rcm: bool) -> Result<Vec<u32>, StoreError> {
    let n = g.vertices() as usize;
    let mut starts: Vec<u32> = (0..n as u32).collect();
    if rcm {
        starts.sort_by_key(|&v| (g.degree(v as u64), v));
    }
    let mut seen = vec![false; n];
    let mut queue: Vec<u32> = Vec::with_capacity(n);
    let mut list = Vec::new();
    let mut fresh: Vec<(u64, u32)> = Vec::new();
    for &s in &starts {
        if seen[s as usize] {
            continue;
        }
        seen[s as usize] = true;
        let mut head = queue.len();
        queue.push(s);
        while head < queue.len() {
            let v = queue[head];
            head += 1;
            g.neighbours(v as u64, &mut list)?;
            fresh.clear();
            for &u in &list {
                if !seen[u as usize] {
                    seen[u as usize] = true;
                    fresh.push((if rcm { g.degree(u) } else { 0 }, u as u32));
                }
            }
            if rcm {
                fresh.sort_unstable();
            }
            queue.extend(fresh.iter().map(|&(_, u)| u));
        }
    }
    if rcm {
        queue.reverse();
    }
    let mut new_of_old = vec![0u32; n];
    for (new, &old) in queue.iter().enumerate() {
        new_of_old[old as usize] = new as u32;
    }
    Ok(new_of_old)
}

#[cfg(test)]
mod tests {
    use super::super::{is_permutation, ListsGraph};
    use super::*;

    /// The bandwidth max |new(u) - new(v)| over edges.
    fn bandwidth(g: &ListsGraph, p: &[u32]) -> u64 {
        g.0.iter()
            .enumerate()
            .flat_map(|(u, l)| l.iter().map(move |&v| (p[u] as i64 - p[v as usize] as i64).unsigned_abs()))
            .max()
            .unwrap_or(0)
    }

    #[test]
    fn rcm_shrinks_the_bandwidth_of_a_shuffled_path() {
        // an ordering that never ends fails the test at the suite's time bound
        outcore_io::bound::bounded("rcm_shrinks_the_bandwidth_of_a_shuffled_path", || {
            // a path 0-1-2-...-99 under a scrambled labelling
            let n = 100u64;
            let label = |i: u64| (i * 37) % n;
            let edges: Vec<(u64, u64)> = (0..n - 1).map(|i| (label(i), label(i + 1))).collect();
            let mut g = ListsGraph::from_edges(n as usize, &edges);
            let identity: Vec<u32> = (0..n as u32).collect();
            assert!(bandwidth(&g, &identity) > 30);
            for rcm in [false, true] {
                let p = bfs_order(&mut g, rcm).unwrap();
                assert!(is_permutation(&p));
                // BFS from an end of a path (RCM's least degree) gives bandwidth 1;
                // plain BFS starts in the middle and interleaves the two halves.
                assert!(bandwidth(&g, &p) <= if rcm { 1 } else { 2 }, "rcm {rcm}: {}", bandwidth(&g, &p));
            }
        })
    }
}
