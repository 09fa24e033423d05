//! Checking SCC labels on graphs too large for the in-memory reference:
//! every label must be a vertex that labels itself and no larger than the
//! vertices it labels; and for a sample of vertices s, the vertices
//! labelled like s must be exactly those s reaches and that reach s: the
//! forward and backward closures of s, each grown by sequential scans of
//! `out` until a scan adds nothing. Holds the labels (8 bytes a vertex)
//! and two bitmaps.

use crate::run::{Check, Validation};
use outcore_io::hash::splitmix64;
use outcore_io::Bitmap;
use outcore_store::{Store, StoreError};

/// Vertices whose whole component is checked.
pub const SAMPLE: u64 = 3;

const METHOD: &str = "labels are component minima; sampled components equal forward and backward reachability";

/// Grow `set` to its closure along `out` (forward) or against it.
fn close(store: &Store, set: &mut Bitmap, forward: bool) -> Result<u64, StoreError> {
    let mut passes = 0;
    loop {
        passes += 1;
        let mut changed = false;
        let mut scan = store.layout("out")?.scan()?;
        while let Some((u, targets, _)) = scan.next_list()? {
            if forward && set.get(u) {
                for &t in targets {
                    if !set.get(t) {
                        set.set(t);
                        changed = true;
                    }
                }
            } else if !forward && !set.get(u) && targets.iter().any(|&t| set.get(t)) {
                set.set(u);
                changed = true;
            }
        }
        if !changed {
            return Ok(passes);
        }
    }
}

pub fn validate(check: &Check) -> Result<Validation, StoreError> {
    let store = check.store;
    let n = store.vertices();
    let Some(column) = check.outcome.column("component") else {
        return Ok(Validation::fail(METHOD, "the run returned no labels"));
    };
    let _charge = check
        .budget
        .reserve("SCC validation: labels, two bitmaps and a scan", n * 8 + n.div_ceil(4) + crate::needs::scan_bytes(store, &["out"])?)?;
    let label = column.to_u64()?;
    if label.len() as u64 != n {
        return Ok(Validation::fail(METHOD, format!("{} labels for {n} vertices", label.len())));
    }
    for (v, &l) in label.iter().enumerate() {
        if l > v as u64 || label[l as usize] != l {
            return Ok(Validation::fail(METHOD, format!("vertex {v} (dense) has label {l}, not a component minimum labelling itself")));
        }
    }
    let mut passes = 0;
    for k in 0..SAMPLE.min(n) {
        let s = splitmix64(0x5CC ^ k) % n;
        let (mut forward, mut backward) = (Bitmap::new(n), Bitmap::new(n));
        forward.set(s);
        backward.set(s);
        passes += close(store, &mut forward, true)? + close(store, &mut backward, false)?;
        for v in 0..n {
            let inside = forward.get(v) && backward.get(v);
            if inside != (label[v as usize] == label[s as usize]) {
                return Ok(Validation::fail(
                    METHOD,
                    format!(
                        "vertex {v} (dense) is labelled {}, vertex {s} {}, but they {} each other",
                        label[v as usize],
                        label[s as usize],
                        if inside { "reach" } else { "do not both reach" }
                    ),
                ));
            }
        }
    }
    Ok(Validation::pass(METHOD, format!("{} components checked in {passes} scans", SAMPLE.min(n))))
}
