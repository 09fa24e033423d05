//! Comparing a column with the reference's, by the rule its algorithm
//! declares: exactly, within a relative tolerance, or as a partition of
//! the vertices (labels whose names may differ).

use crate::run::{ColumnSpec, Compare};
use crate::values::Column;
use outcore_store::StoreError;
use std::collections::HashMap;

/// `Ok(Err(why))` names the first vertex where `got` and `want` differ.
pub fn columns(spec: &ColumnSpec, got: &Column, want: &Column) -> Result<Result<(), String>, StoreError> {
    let (a, b) = (got.to_f64()?, want.to_f64()?);
    if a.len() != b.len() {
        return Ok(Err(format!("{}: {} values, the reference has {}", spec.name, a.len(), b.len())));
    }
    match spec.compare {
        Compare::Validated => Ok(Ok(())),
        Compare::Exact => Ok(match a.iter().zip(&b).position(|(x, y)| x != y && !(x.is_nan() && y.is_nan())) {
            Some(v) => Err(format!("{} of vertex {v} (dense) is {}, the reference says {}", spec.name, a[v], b[v])),
            None => Ok(()),
        }),
        Compare::Relative(tol) => Ok(match a.iter().zip(&b).position(|(x, y)| !close(*x, *y, tol)) {
            Some(v) => Err(format!("{} of vertex {v} (dense) is {:e}, the reference says {:e} (tolerance {tol:e})", spec.name, a[v], b[v])),
            None => Ok(()),
        }),
        Compare::Partition => {
            let (a, b) = (got.to_u64()?, want.to_u64()?);
            let mut forward: HashMap<u64, u64> = HashMap::new();
            let mut backward: HashMap<u64, u64> = HashMap::new();
            for (v, (&x, &y)) in a.iter().zip(&b).enumerate() {
                if *forward.entry(x).or_insert(y) != y || *backward.entry(y).or_insert(x) != x {
                    return Ok(Err(format!("{}: vertex {v} (dense) is grouped differently from the reference", spec.name)));
                }
            }
            Ok(Ok(()))
        }
    }
}

/// Whether `x` is within `tol` (relative) of `y`; equal infinities agree.
pub fn close(x: f64, y: f64, tol: f64) -> bool {
    x == y || (x - y).abs() <= tol * y.abs().max(1e-300)
}
