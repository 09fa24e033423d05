//! Incremental edge-centric graph colouring (thesis section 4.8, after
//! Sallinen et al. and the Jones-Plassmann heuristic). Priority is by
//! vertex id: a smaller id colours first. A vertex takes the smallest
//! colour that none of its higher-priority neighbours has.
//!
//! After a batch is applied, each inserted edge whose endpoints share a
//! colour (or are uncoloured) puts its lower-priority endpoint on a work
//! list. The list is processed in priority order; a vertex that changes
//! colour puts every lower-priority neighbour it now conflicts with on the
//! list. Since work only flows from higher to lower priority, each vertex
//! is recoloured at most once per batch. Deleting an edge keeps both
//! colours, as in the thesis (the colouring stays proper, perhaps no
//! longer minimal).
//!
//! Colours live in the store as vertex properties (`colour + 1`; 0 or no
//! entry: uncoloured), so colouring continues across runs. The graph must
//! be undirected: neighbours include every edge's other end.

use super::IdMap;
use outcore_dynamic::error::Result;
use outcore_dynamic::store::{ApplyReport, DynamicStore, Update};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet};

#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct ColorReport {
    /// Vertices given a new colour.
    pub recoloured: u64,
}

fn colour_of(store: &DynamicStore, overlay: &IdMap<u64>, u: u64) -> Option<u64> {
    overlay.get(&u).copied().or_else(|| store.property(u).filter(|&p| p > 0).map(|p| p - 1))
}

/// Apply `batch` and repair the colouring around the edges it inserted.
pub fn apply_colored(store: &mut DynamicStore, batch: &[Update]) -> Result<(ApplyReport, ColorReport)> {
    require_undirected(store)?;
    let report = store.apply(batch)?;
    let mut seeds: Vec<u64> = Vec::new();
    for x in batch {
        if let Update::InsertEdge { u, v, .. } = *x {
            if u != v {
                seeds.push(u);
                seeds.push(v);
            }
        }
    }
    let colours = repair(store, seeds)?;
    Ok((report, colours))
}

/// Colour every vertex of the store that has no colour yet, and repair
/// every conflict (a full greedy colouring of a fresh store).
pub fn color_all(store: &mut DynamicStore) -> Result<ColorReport> {
    require_undirected(store)?;
    let mut seeds = Vec::new();
    store.for_each_source(|u| seeds.push(u));
    repair(store, seeds)
}

fn require_undirected(store: &DynamicStore) -> Result<()> {
    if store.options.undirected {
        return Ok(());
    }
    Err(outcore_dynamic::error::DynError::Usage(format!(
        "{}: colouring needs an undirected store (one created undirected)",
        store.dir().display()
    )))
}

/// Process the work list seeded with `seeds` (vertices whose colour may
/// be missing or in conflict with a higher-priority neighbour).
fn repair(store: &mut DynamicStore, seeds: Vec<u64>) -> Result<ColorReport> {
    let mut overlay: IdMap<u64> = IdMap::default();
    let mut queued: HashSet<u64> = HashSet::new();
    let mut heap = BinaryHeap::new();
    for u in seeds {
        if queued.insert(u) {
            heap.push(Reverse(u));
        }
    }
    let mut report = ColorReport::default();
    let mut used = Vec::new();
    while let Some(Reverse(x)) = heap.pop() {
        // Colours of higher-priority neighbours.
        used.clear();
        let mut lower = Vec::new();
        store.for_each_neighbour(x, |e| {
            if e.target < x {
                if let Some(c) = colour_of(store, &overlay, e.target) {
                    used.push(c);
                }
            } else if e.target > x {
                lower.push(e.target);
            }
        });
        let current = colour_of(store, &overlay, x);
        if current.is_some_and(|c| !used.contains(&c)) {
            continue;
        }
        used.sort_unstable();
        used.dedup();
        let c = used.iter().enumerate().find(|&(i, &c)| i as u64 != c).map_or(used.len() as u64, |(i, _)| i as u64);
        overlay.insert(x, c);
        report.recoloured += 1;
        for w in lower {
            if colour_of(store, &overlay, w).is_none_or(|cw| cw == c) && queued.insert(w) {
                heap.push(Reverse(w));
            }
        }
    }
    let writes: Vec<Update> = overlay.iter().map(|(&u, &c)| Update::SetProperty { u, value: c + 1 }).collect();
    store.apply(&writes)?;
    Ok(report)
}

/// The checker: every edge joins two coloured vertices of different
/// colours. Returns the number of distinct colours on edge endpoints.
pub fn check_coloring(store: &DynamicStore) -> std::result::Result<u64, String> {
    let empty = IdMap::default();
    let mut used = HashSet::new();
    let mut bad = None;
    store.for_each_edge(|u, e| {
        if u == e.target || bad.is_some() {
            return;
        }
        match (colour_of(store, &empty, u), colour_of(store, &empty, e.target)) {
            (Some(a), Some(b)) if a != b => {
                used.insert(a);
                used.insert(b);
            }
            (Some(a), Some(_)) => bad = Some(format!("edge {u} - {} joins two vertices of colour {a}", e.target)),
            _ => bad = Some(format!("edge {u} - {} has an uncoloured endpoint", e.target)),
        }
    });
    bad.map_or(Ok(used.len() as u64), Err)
}

/// Colours by vertex (for output).
pub fn colours(store: &DynamicStore) -> Vec<(u64, u64)> {
    let empty = IdMap::default();
    let mut out = Vec::new();
    store.for_each_source(|u| {
        if let Some(c) = colour_of(store, &empty, u) {
            out.push((u, c))
        }
    });
    out.sort_unstable();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use outcore_dynamic::store::StoreOptions;

    #[test]
    fn stays_proper_after_every_insert_and_delete_batch() {
        let dir = tempfile::tempdir().unwrap();
        let opts = StoreOptions { partitions: 2, undirected: true, threshold: 3, ..Default::default() };
        let mut store = DynamicStore::create(&dir.path().join("d"), opts).unwrap();
        let mut rng = 11u64;
        let mut max_colours = 0;
        for round in 0..40 {
            let mut batch = Vec::new();
            for _ in 0..300 {
                rng = outcore_dynamic::hash::mix(rng);
                let (u, v) = (rng % 200, (rng >> 24) % 200);
                batch.push(match (rng >> 50) % 10 {
                    0..=6 => Update::InsertEdge { u, v, w: 1.0 },
                    7..=8 => Update::DeleteEdge { u, v },
                    _ => Update::DeleteVertex { u },
                });
            }
            let (_, r) = apply_colored(&mut store, &batch).unwrap();
            let used = check_coloring(&store).unwrap_or_else(|e| panic!("round {round}: {e}"));
            max_colours = max_colours.max(used);
            assert!(r.recoloured > 0 || round > 0);
            if round % 10 == 9 {
                store.commit().unwrap();
            }
        }
        // Greedy by priority uses at most max degree + 1 colours.
        let mut max_degree = 0;
        store.for_each_source(|u| max_degree = max_degree.max(store.degree(u)));
        assert!(max_colours <= max_degree + 1 && max_colours >= 2, "{max_colours} colours, max degree {max_degree}");
    }

    #[test]
    fn a_conflict_recolours_the_lower_priority_endpoint() {
        // The thesis's example (figure 4.20): 1-2, 1-4, then 4-3, 1-3, 3-4.
        let dir = tempfile::tempdir().unwrap();
        let opts = StoreOptions { undirected: true, ..Default::default() };
        let mut store = DynamicStore::create(&dir.path().join("d"), opts).unwrap();
        let e = |u, v| Update::InsertEdge { u, v, w: 1.0 };
        apply_colored(&mut store, &[e(1, 2), e(1, 4)]).unwrap();
        let c = |s: &DynamicStore, u| s.property(u).unwrap() - 1;
        assert_eq!((c(&store, 1), c(&store, 2), c(&store, 4)), (0, 1, 1));
        apply_colored(&mut store, &[e(4, 3)]).unwrap();
        assert_eq!(c(&store, 3), 0);
        apply_colored(&mut store, &[e(1, 3)]).unwrap();
        assert_eq!(c(&store, 3), 1, "3 conflicts with 1 and moves");
        apply_colored(&mut store, &[e(3, 4)]).unwrap();
        assert_eq!(c(&store, 4), 2, "4 conflicts with 3 and moves");
        apply_colored(&mut store, &[Update::DeleteEdge { u: 1, v: 3 }]).unwrap();
        assert_eq!(c(&store, 3), 1, "deletes keep colours");
        check_coloring(&store).unwrap();
    }
}
