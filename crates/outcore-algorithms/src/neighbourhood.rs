//! A vertex's neighbourhood on the undirected simple graph under a store:
//! its out- and in-neighbours, each distinct neighbour once, itself left
//! out, read by one sequential scan of `out` (with `in` in lockstep for a
//! directed store). Triangles, LCC and k-core count on it. An entry is a
//! u32 id whose top bit says the edge exists in both directions.

use outcore_store::{Store, StoreError};

/// The entry flag: the edge exists in both directions.
pub const BOTH: u32 = 1 << 31;
/// The id bits of an entry (stores of up to 2^31 - 1 vertices).
pub const ID: u32 = BOTH - 1;

/// The structure layouts a neighbourhood scan reads: the neighbours of an
/// undirected store; out- and in-neighbours of a directed one.
pub fn layouts(store: &Store) -> &'static [&'static str] {
    if store.manifest().directed {
        &["out", "in"]
    } else {
        &["out"]
    }
}

/// Memory of [`for_each_neighbourhood`]: the scans of its layouts
/// ([`crate::needs::scan_bytes`]) and, for the longest lists, the sorted
/// out- and in-lists (8 bytes an entry) and the neighbourhood (4).
pub fn scan_bytes(store: &Store) -> Result<u64, StoreError> {
    let mut bytes = crate::needs::scan_bytes(store, layouts(store))?;
    for &l in layouts(store) {
        if store.has_layout(l) {
            bytes += store.layout(l)?.longest_list()? * 12;
        }
    }
    Ok(bytes)
}

/// Refuse a store whose ids do not fit an entry, naming `what` runs.
pub fn check_ids(store: &Store, what: &str) -> Result<(), StoreError> {
    let n = store.vertices();
    if n > ID as u64 {
        return Err(StoreError::parameter("store", format!("{what} handles up to {ID} vertices (31-bit ids); this store has {n}")));
    }
    Ok(())
}

/// Calls `f(v, N(v))` for every vertex in order: N(v) sorted by id, each
/// neighbour once, v left out; an entry carries [`BOTH`] when the edge
/// exists in both directions (always, in an undirected store). Returns the
/// bytes read and the passes made. Memory: [`scan_bytes`], which the
/// caller charges.
pub fn for_each_neighbourhood(
    store: &Store,
    reader: &str,
    mut f: impl FnMut(u64, &[u32]) -> Result<(), StoreError>,
) -> Result<(u64, u64), StoreError> {
    let directed = store.manifest().directed;
    let layouts = layouts(store);
    let lays = store.layouts_for(layouts, reader)?;
    let mut out_scan = lays[0].scan()?;
    let mut in_scan = if directed { Some(lays[1].scan()?) } else { None };
    let (mut outs, mut ins, mut around) = (Vec::new(), Vec::new(), Vec::new());
    let mut expected = 0u64;
    while let Some((v, targets, _)) = out_scan.next_list()? {
        sorted_distinct(targets, v, &mut outs);
        if let Some(scan) = in_scan.as_mut() {
            match scan.next_list()? {
                Some((w, sources, _)) if w == v => sorted_distinct(sources, v, &mut ins),
                _ => return Err(StoreError::invalid(store.dir(), format!("the in layout does not list vertex {v} beside out"))),
            }
            merge(&outs, &ins, &mut around);
        } else {
            around.clear();
            around.extend(outs.iter().map(|&w| w as u32 | BOTH));
        }
        if v != expected {
            return Err(StoreError::invalid(store.dir(), format!("the out layout skips from vertex {expected} to {v}")));
        }
        expected += 1;
        f(v, &around)?;
    }
    let bytes: u64 = layouts.iter().map(|l| store.layout_bytes(l)).sum();
    Ok((bytes, layouts.len() as u64))
}

/// The most entries one neighbourhood of [`for_each_neighbourhood`] has:
/// the longest list of each layout it scans, together.
pub fn longest(store: &Store) -> Result<u64, StoreError> {
    outcore_engines::interval::longest_lists(store, layouts(store))
}

/// `list` without `v` and repeats, sorted (the vector grows to the
/// longest list exactly, as [`scan_bytes`] charges it, not by doubling).
fn sorted_distinct(list: &[u64], v: u64, out: &mut Vec<u64>) {
    out.clear();
    out.reserve_exact(list.len());
    out.extend(list.iter().copied().filter(|&w| w != v));
    if !out.is_sorted() {
        out.sort_unstable();
    }
    out.dedup();
}

/// The union of out- and in-neighbours, flagged where a neighbour is both.
fn merge(outs: &[u64], ins: &[u64], around: &mut Vec<u32>) {
    around.clear();
    around.reserve_exact(outs.len() + ins.len());
    let (mut i, mut j) = (0, 0);
    while i < outs.len() || j < ins.len() {
        let (a, b) = (outs.get(i).copied().unwrap_or(u64::MAX), ins.get(j).copied().unwrap_or(u64::MAX));
        match a.cmp(&b) {
            std::cmp::Ordering::Less => {
                around.push(a as u32);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                around.push(b as u32);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                around.push(a as u32 | BOTH);
                i += 1;
                j += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_and_in_lists_merge_into_one_flagged_neighbourhood() {
        let mut around = Vec::new();
        merge(&[1, 4, 7], &[2, 4, 9], &mut around);
        assert_eq!(around, vec![1, 2, 4 | BOTH, 7, 9]);
        let mut out = Vec::new();
        sorted_distinct(&[5, 3, 3, 9, 7], 7, &mut out);
        assert_eq!(out, vec![3, 5, 9]);
    }
}
