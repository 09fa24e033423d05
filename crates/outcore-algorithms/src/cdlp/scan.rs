//! CDLP on the traverse engine's sequential cursor: labels and next labels
//! in memory (16 bytes a vertex) and scans of the CSR. An undirected
//! vertex's neighbours are its out-list, so one scan of `out` gives every
//! vertex its labels; a directed vertex also counts its in-neighbours,
//! which a lockstep scan of `in` beside `out` gives when the store has
//! that layout. Without it, the in-neighbours' labels are scattered into
//! per-vertex slots, in bands of vertices whose slots fit the budget, each
//! band one scan of `out` (as the tile version does with its bands).

use super::{mode, Communities};
use crate::needs::EngineStats;
use crate::run::Context;
use crate::values::Held;
use outcore_io::BudgetError;
use outcore_store::{Store, StoreError};

/// Whether a run gathers the labels in bands: a directed store without
/// `in` (the plan and the run ask this one question).
pub fn banded(store: &Store) -> bool {
    store.manifest().directed && !store.has_layout("in")
}

/// Room the plan adds for the band version, beyond its state: the run
/// takes half of what its budget leaves for the band, so at the plan's
/// minimum a band holds at least 4 MiB of labels (512 Ki), or all of them.
pub const BAND_ROOM: u64 = 8 << 20;

/// The neighbour labels the version without bands gathers at once: one
/// vertex's out-list and, in lockstep, its in-list, at most the longest of
/// each (a layout the store lacks counts none; its plan names it missing).
pub fn labels_bytes(store: &Store) -> Result<u64, StoreError> {
    let lockstep = store.manifest().directed && !banded(store);
    Ok(8 * outcore_engines::interval::longest_lists(store, scanned(lockstep))?)
}

/// What the plan asks for besides the scans: the state, and the band
/// version's [`BAND_ROOM`] or the other's [`labels_bytes`].
pub fn planned_bytes(store: &Store) -> Result<u64, StoreError> {
    let n = store.vertices();
    Ok(if banded(store) { state_bytes(n, true) + BAND_ROOM } else { state_bytes(n, false) + labels_bytes(store)? })
}

/// Memory besides the band buffer: labels and next labels (and, for the
/// band version, per-vertex slot counts).
pub fn state_bytes(n: u64, bands: bool) -> u64 {
    n * if bands { 20 } else { 16 }
}

/// The layouts scanned at once: `out`, with `in` beside it in lockstep.
pub fn scanned(lockstep: bool) -> &'static [&'static str] {
    if lockstep {
        &["out", "in"]
    } else {
        &["out"]
    }
}

pub fn cdlp(cx: &Context, iterations: u32) -> Result<Communities, StoreError> {
    let store = cx.store;
    let n = store.vertices();
    let banded = banded(store);
    let lockstep = store.manifest().directed && !banded;
    let charge = cx.budget.reserve("CDLP labels and next labels", state_bytes(n, banded))?;
    let _scans = crate::needs::charge_scans(cx.budget, store, scanned(lockstep))?;
    let mut labels: Vec<u64> = (0..n).collect();
    let mut next = labels.clone();
    let out = store.layout("out")?;
    let inn = if lockstep { Some(store.layout("in")?) } else { None };
    // one vertex's neighbour labels (the band version's band, below)
    let mut scratch = Vec::new();
    let mut labels_charge = None;
    if !banded {
        let bytes = labels_bytes(store)?;
        labels_charge = Some(cx.budget.reserve("CDLP neighbour labels of one vertex", bytes)?);
        scratch = Vec::with_capacity((bytes / 8) as usize);
    }
    let (mut passes, mut bytes, mut bands_per_iteration) = (0u64, 0u64, 1u64);
    // the band version: tuples arriving at each vertex (out- plus in-degree)
    let mut tuples = Vec::new();
    let mut band_charge = None;
    let mut band_bytes = None;
    let mut bands: Vec<(u64, u64)> = vec![(0, n)];
    if banded {
        tuples = vec![0u32; n as usize];
        let mut scan = out.scan()?;
        while let Some((u, targets, _)) = scan.next_list()? {
            tuples[u as usize] += targets.len() as u32;
            for &v in targets {
                tuples[v as usize] += 1;
            }
        }
        (passes, bytes) = (1, store.layout_bytes("out"));
        let total: u64 = tuples.iter().map(|&t| t as u64).sum();
        let capacity = (total * 8).min(cx.budget.available() / 2).max(8) / 8;
        band_charge = Some(cx.budget.reserve("CDLP band of neighbour labels", capacity * 8)?);
        band_bytes = Some(capacity * 8);
        bands.clear();
        let (mut lo, mut sum) = (0u64, 0u64);
        for v in 0..n {
            let t = tuples[v as usize] as u64;
            if t > capacity {
                return Err(BudgetError {
                    what: format!("the {t} neighbour labels of vertex {v}"),
                    needed: t * 8,
                    available: capacity * 8,
                    total: cx.budget.total(),
                    suggest: cx.budget.total() + 2 * (t - capacity) * 8,
                }
                .into());
            }
            if sum + t > capacity {
                bands.push((lo, v));
                (lo, sum) = (v, 0);
            }
            sum += t;
        }
        bands.push((lo, n));
        bands_per_iteration = bands.len() as u64;
        scratch = vec![0u64; capacity as usize];
    }
    cx.progress().begin("cdlp", iterations as u64, false);
    for iteration in 0..iterations {
        if !banded {
            let mut scan = out.scan()?;
            let mut in_scan = inn.as_ref().map(|l| l.scan()).transpose()?;
            while let Some((u, targets, _)) = scan.next_list()? {
                scratch.clear();
                scratch.extend(targets.iter().map(|&v| labels[v as usize]));
                if let Some(s) = in_scan.as_mut() {
                    if let Some((_, sources, _)) = s.next_list()? {
                        scratch.extend(sources.iter().map(|&w| labels[w as usize]));
                    }
                }
                next[u as usize] = mode(&mut scratch).unwrap_or(labels[u as usize]);
            }
            passes += 1 + lockstep as u64;
            bytes += store.layout_bytes("out") + if lockstep { store.layout_bytes("in") } else { 0 };
        } else {
            for &(lo, hi) in &bands {
                // slot ranges of the band's vertices
                let mut start = Vec::with_capacity((hi - lo + 1) as usize);
                let mut at = 0usize;
                for v in lo..hi {
                    start.push(at);
                    at += tuples[v as usize] as usize;
                }
                start.push(at);
                let mut cursor = start.clone();
                let mut scan = out.scan()?;
                while let Some((u, targets, _)) = scan.next_list()? {
                    let inside_u = (lo..hi).contains(&u);
                    for &v in targets {
                        if inside_u {
                            let c = &mut cursor[(u - lo) as usize];
                            scratch[*c] = labels[v as usize];
                            *c += 1;
                        }
                        if (lo..hi).contains(&v) {
                            let c = &mut cursor[(v - lo) as usize];
                            scratch[*c] = labels[u as usize];
                            *c += 1;
                        }
                    }
                }
                passes += 1;
                bytes += store.layout_bytes("out");
                for v in lo..hi {
                    let k = (v - lo) as usize;
                    if cursor[k] != start[k + 1] {
                        return Err(StoreError::invalid(store.dir(), format!("the out layout changed while CDLP read it (vertex {v})")));
                    }
                    next[v as usize] = mode(&mut scratch[start[k]..start[k + 1]]).unwrap_or(labels[v as usize]);
                }
            }
        }
        std::mem::swap(&mut labels, &mut next);
        cx.progress().set(iteration as u64 + 1);
    }
    cx.progress().end();
    drop((band_charge, labels_charge, scratch));
    Ok(Communities {
        labels: Box::new(Held { values: labels, charge }),
        bands: bands_per_iteration,
        band_bytes,
        stats: EngineStats::Scan { bytes_read: bytes, passes },
    })
}
