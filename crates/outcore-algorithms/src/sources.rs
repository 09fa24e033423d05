//! Picking roots and sources, the one home for it (as gapbs's
//! `SourcePicker`): the default root (a vertex of highest out-degree, the
//! smallest on ties), distinct random roots of degree >= 1 (Graph500's
//! search keys, `bfs --repeat`), and a uniform sample without replacement
//! (sampled betweenness).

use outcore_io::splitmix64;
use outcore_store::{Store, StoreError};
use std::collections::{HashMap, HashSet};

/// Keep `(v, d)` as the `best` so far where its degree is higher: over
/// vertices in ascending order, the smallest of those tied stays.
fn keep_highest(best: &mut Option<(u64, u64)>, v: u64, d: u64) {
    if best.is_none_or(|(_, bd)| d > bd) {
        *best = Some((v, d));
    }
}

/// The vertex of highest degree among `(vertex, degree)`, the smallest on ties.
pub fn hub(degrees: impl IntoIterator<Item = (u64, u64)>) -> Option<u64> {
    let mut best = None;
    for (v, d) in degrees {
        keep_highest(&mut best, v, d);
    }
    best.map(|b| b.0)
}

/// A vertex of highest degree of the traverse engine `g`, the smallest on
/// ties: one pass over its index (or the degrees it keeps beside it), not
/// two selects a vertex.
pub fn traverse_hub(g: &outcore_engines::Traverse) -> Option<u64> {
    let mut best = None;
    g.degrees().for_each_in(0, g.vertices(), |v, d| keep_highest(&mut best, v, d));
    best.map(|b| b.0)
}

/// A vertex of highest out-degree of `store` (one pass over the degrees).
pub fn store_hub(store: &Store) -> Result<u64, StoreError> {
    let mut best = None;
    store.layout("out")?.for_each_degree(|v, d| keep_highest(&mut best, v, d))?;
    best.map(|b| b.0).ok_or_else(|| StoreError::invalid(store.dir(), "the store has no vertices"))
}

/// Up to `count` distinct vertices of `0..n` with degree >= 1, drawn as
/// splitmix64(key ^ i) mod n for i = 0, 1, ... after `first` (if given);
/// fewer when fewer vertices have edges.
pub fn random_roots(n: u64, count: usize, key: u64, first: Option<u64>, degree: impl Fn(u64) -> u64) -> Vec<u64> {
    draw_roots(n, count, key, first, &degree, || (0..n).filter(|&v| degree(v) > 0).count())
}

/// [`random_roots`] over the degrees of the traverse engine `g`: the
/// vertices with edges counted by one pass over its index (or the degrees
/// it keeps beside it), not two selects a vertex.
pub fn traverse_roots(g: &outcore_engines::Traverse, count: usize, key: u64, first: Option<u64>) -> Vec<u64> {
    let with_edges = || {
        let mut with_edges = 0;
        g.degrees().for_each_in(0, g.vertices(), |_, d| with_edges += (d > 0) as usize);
        with_edges
    };
    draw_roots(g.vertices(), count, key, first, &|v| g.degree(v), with_edges)
}

/// [`random_roots`], the vertices with edges counted by `with_edges` only
/// where a root is to be drawn.
fn draw_roots(
    n: u64,
    count: usize,
    key: u64,
    first: Option<u64>,
    degree: &dyn Fn(u64) -> u64,
    with_edges: impl FnOnce() -> usize,
) -> Vec<u64> {
    let mut roots: Vec<u64> = first.into_iter().collect();
    if roots.len() >= count {
        // nothing to draw: no pass over the degrees (a select a vertex
        // where the traverse engine keeps none beside its index)
        return roots;
    }
    let mut seen: HashSet<u64> = roots.iter().copied().collect();
    let want = count.min(with_edges() + roots.len());
    let mut i = 0u64;
    while roots.len() < want && n > 0 {
        let v = splitmix64(key ^ i) % n;
        i += 1;
        if degree(v) > 0 && seen.insert(v) {
            roots.push(v);
        }
    }
    roots
}

/// `count` distinct vertices of `0..n`, uniformly (a partial Fisher-Yates
/// shuffle driven by a hash of `seed`, keeping only the swapped slots).
pub fn sample_without_replacement(n: u64, count: u64, seed: u64) -> Vec<u64> {
    if count >= n {
        return (0..n).collect();
    }
    let mut swapped = HashMap::new();
    let mut picked = Vec::with_capacity(count as usize);
    for i in 0..count {
        let j = i + splitmix64(seed.wrapping_mul(outcore_io::hash::GOLDEN_GAMMA) ^ i) % (n - i);
        let at_j = *swapped.get(&j).unwrap_or(&j);
        let at_i = *swapped.get(&i).unwrap_or(&i);
        swapped.insert(j, at_i);
        picked.push(at_j);
    }
    picked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pickers_keep_their_promises() {
        assert_eq!(hub([(0, 3), (1, 5), (2, 5)]), Some(1));
        let roots = random_roots(100, 10, 7, Some(3), |v| v % 2);
        assert_eq!(roots[0], 3);
        assert_eq!(roots.len(), 10);
        assert!(roots[1..].iter().all(|v| v % 2 == 1));
        assert_eq!(roots.iter().collect::<HashSet<_>>().len(), 10);
        assert_eq!(random_roots(10, 64, 1, None, |v| (v < 3) as u64).len(), 3);
        // the first root alone asked: no degree looked up
        let looked_up = std::cell::Cell::new(0);
        let degree = |_| {
            looked_up.set(looked_up.get() + 1);
            1
        };
        assert_eq!(random_roots(1000, 1, 7, Some(5), degree), vec![5]);
        assert_eq!(looked_up.get(), 0);
        assert_eq!(random_roots(1000, 2, 7, Some(5), degree).len(), 2);
        assert!(looked_up.get() >= 1000, "the vertices with edges are counted");
        let s = sample_without_replacement(1000, 50, 9);
        assert_eq!(s.iter().collect::<HashSet<_>>().len(), 50);
        assert!(s.iter().all(|&v| v < 1000));
        assert_eq!(sample_without_replacement(5, 9, 1), vec![0, 1, 2, 3, 4]);
    }

    /// The traverse engine's hub is the plain picker's over its degrees:
    /// the highest, the smallest of those tied (vertices 3 and 7 here).
    #[test]
    fn the_traverse_hub_is_the_highest_degree_smallest_on_ties() {
        let dir = tempfile::tempdir().unwrap();
        let n = 10;
        let degree = |v: u64| if v == 3 || v == 7 { 5 } else { v % 3 };
        let store =
            crate::bfs::tests::directed_store(dir.path(), n, (0..n).flat_map(move |v| (1..=degree(v)).map(move |d| (v, (v + d) % n))));
        let g = outcore_engines::Traverse::open(&store, "out", &outcore_io::Budget::unlimited(), &Default::default(), 0).unwrap();
        assert_eq!(traverse_hub(&g), hub((0..n).map(|v| (v, g.degree(v)))));
        assert_eq!(traverse_hub(&g), Some(3));
        // the roots drawn over its degrees: those of the plain picker
        for (count, first) in [(1, Some(3)), (5, Some(3)), (20, None)] {
            assert_eq!(traverse_roots(&g, count, 11, first), random_roots(n, count, 11, first, |v| g.degree(v)), "{count} roots");
        }
    }
}
