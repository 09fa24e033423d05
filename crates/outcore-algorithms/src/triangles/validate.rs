//! Checking triangle counts and LCC on graphs too large for the in-memory
//! reference: recount a sample of vertices from scratch. The sample's
//! neighbourhoods are held in memory (one neighbourhood scan); a second
//! scan then meets every neighbour u of a sampled v and counts, for
//! triangles, the members of N(v) in N(u) (each triangle through v is met
//! from both of its other corners) and, for LCC, the arcs u -> w with w in
//! N(v) (the `out` lists, distinct, loops dropped). Nothing of the
//! orientation, the forward lists or the parts is used.

use crate::neighbourhood::{for_each_neighbourhood, ID};
use crate::run::{Check, Validation};
use outcore_io::hash::splitmix64;
use outcore_store::StoreError;
use std::collections::HashMap;

/// Vertices recounted.
pub const SAMPLE: usize = 64;

/// Bytes a sampled entry costs at most: in its list, and in the map of
/// neighbours (a slot, its vector and that vector's smallest allocation).
const ENTRY_BYTES: u64 = 96;

/// The sampled vertices with their neighbourhoods, where each neighbour
/// appears, and the budget charges that hold them.
struct Sampled {
    _charges: Vec<outcore_io::Reservation>,
    vertices: Vec<(u64, Vec<u32>)>,
    at: HashMap<u32, Vec<u32>>,
}

/// The sample, held beside a result of `result_bytes`: up to [`SAMPLE`]
/// distinct vertices spread by a hash, and their neighbourhoods. The scans
/// run one after the other and hold `scan` bytes
/// ([`crate::neighbourhood::scan_bytes`]), charged first; each sampled
/// neighbourhood is then charged [`ENTRY_BYTES`] an entry as the scan meets
/// it, and one that would leave less than `result_bytes` of the budget is
/// left out.
fn sampled(check: &Check, reader: &str, result_bytes: u64) -> Result<Sampled, StoreError> {
    let scan = crate::neighbourhood::scan_bytes(check.store)?;
    let mut charges = vec![check.budget.reserve("a scan of the sampled neighbourhoods", scan)?];
    let n = check.store.vertices();
    let mut chosen: Vec<u64> = (0..SAMPLE as u64 * 4).map(|k| splitmix64(0x5A3B1E ^ k) % n.max(1)).collect();
    chosen.sort_unstable();
    chosen.dedup();
    chosen.truncate(SAMPLE);
    let mut vertices = Vec::new();
    let mut next = chosen.iter().peekable();
    for_each_neighbourhood(check.store, reader, |v, around| {
        if next.peek() == Some(&&v) {
            next.next();
            let bytes = around.len() as u64 * ENTRY_BYTES;
            if check.budget.available() >= bytes + result_bytes {
                charges.push(check.budget.reserve("a sampled neighbourhood", bytes)?);
                vertices.push((v, around.iter().map(|&e| e & ID).collect()));
            }
        }
        Ok(())
    })?;
    let at = neighbours_of(&vertices);
    Ok(Sampled { _charges: charges, vertices, at })
}

/// Where each neighbour of a sampled vertex appears: u -> the sampled
/// vertices (indexes into the sample) whose neighbourhood holds u.
fn neighbours_of(sample: &[(u64, Vec<u32>)]) -> HashMap<u32, Vec<u32>> {
    let mut at: HashMap<u32, Vec<u32>> = HashMap::new();
    for (k, (_, around)) in sample.iter().enumerate() {
        for &u in around {
            at.entry(u).or_default().push(k as u32);
        }
    }
    at
}

fn members(sorted: &[u32], of: impl Iterator<Item = u32>) -> u64 {
    of.filter(|x| sorted.binary_search(x).is_ok()).count() as u64
}

/// Triangles: every sampled vertex's count recounted.
pub fn triangles(check: &Check) -> Result<Validation, StoreError> {
    const METHOD: &str = "a sample of vertices recounted";
    let Some(column) = check.outcome.column("triangles") else {
        return Ok(Validation::fail(METHOD, "the run returned no triangle counts"));
    };
    let got = column.to_u64()?;
    let Sampled { _charges, vertices: sample, at } = sampled(check, "triangle validation", got.len() as u64 * 8)?;
    let mut twice = vec![0u64; sample.len()];
    for_each_neighbourhood(check.store, "triangle validation", |u, around| {
        if let Some(ks) = at.get(&(u as u32)) {
            for &k in ks {
                twice[k as usize] += members(&sample[k as usize].1, around.iter().map(|&e| e & ID));
            }
        }
        Ok(())
    })?;
    for ((v, _), t) in sample.iter().zip(&twice) {
        let want = t / 2;
        if got.get(*v as usize) != Some(&want) {
            return Ok(Validation::fail(METHOD, format!("vertex {v} (dense) has {:?} triangles; recounted: {want}", got.get(*v as usize))));
        }
    }
    Ok(Validation::pass(METHOD, format!("{} vertices recounted from their neighbourhoods", sample.len())))
}

/// LCC: every sampled vertex's coefficient recomputed.
pub fn lcc(check: &Check) -> Result<Validation, StoreError> {
    const METHOD: &str = "a sample of vertices recomputed";
    let Some(column) = check.outcome.column("lcc") else {
        return Ok(Validation::fail(METHOD, "the run returned no coefficients"));
    };
    let got = column.to_f64()?;
    let Sampled { _charges, vertices: sample, at } = sampled(check, "LCC validation", got.len() as u64 * 8)?;
    let mut arcs = vec![0u64; sample.len()];
    let mut scan = check.store.layout("out")?.scan()?;
    let mut distinct: Vec<u32> = Vec::new();
    while let Some((u, targets, _)) = scan.next_list()? {
        let Some(ks) = at.get(&(u as u32)) else { continue };
        distinct.clear();
        distinct.extend(targets.iter().filter(|&&w| w != u).map(|&w| w as u32));
        distinct.sort_unstable();
        distinct.dedup();
        for &k in ks {
            arcs[k as usize] += members(&sample[k as usize].1, distinct.iter().copied());
        }
    }
    for ((v, around), a) in sample.iter().zip(&arcs) {
        let d = around.len() as f64;
        let want = if around.len() < 2 { 0.0 } else { *a as f64 / (d * (d - 1.0)) };
        let have = got.get(*v as usize).copied().unwrap_or(f64::NAN);
        let close = (have - want).abs() <= 1e-9 * want.abs().max(1e-300);
        if !close {
            return Ok(Validation::fail(METHOD, format!("vertex {v} (dense) has LCC {have}; recomputed: {want}")));
        }
    }
    Ok(Validation::pass(METHOD, format!("{} vertices recomputed from their neighbourhoods", sample.len())))
}
