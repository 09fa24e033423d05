//! Comparing a column with the reference's, by the rule its algorithm
//! declares: exactly, within a relative tolerance, or as a partition of
//! the vertices (labels whose names may differ).

use crate::run::{ColumnSpec, Compare};
use crate::values::Column;
use outcore_store::StoreError;

/// `Ok(Err(why))` names the first vertex where `got` and `want` differ.
pub fn columns(spec: &ColumnSpec, got: &Column, want: &Column) -> Result<Result<(), String>, StoreError> {
    if spec.compare == Compare::Partition {
        return partitions(spec, got, want);
    }
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
        Compare::Partition => unreachable!("compared above"),
    }
}

/// Whether two labellings group the vertices alike: a label of one side
/// always meets the same label of the other, both ways. Labels are
/// vertices (a component's member), so two vectors map them.
fn partitions(spec: &ColumnSpec, got: &Column, want: &Column) -> Result<Result<(), String>, StoreError> {
    let (a, b) = (got.to_u64()?, want.to_u64()?);
    if a.len() != b.len() {
        return Ok(Err(format!("{}: {} values, the reference has {}", spec.name, a.len(), b.len())));
    }
    let n = a.len();
    let (mut forward, mut backward) = (vec![u64::MAX; n], vec![u64::MAX; n]);
    for (v, (&x, &y)) in a.iter().zip(&b).enumerate() {
        if x >= n as u64 || y >= n as u64 {
            return Ok(Err(format!("{}: vertex {v} (dense) has label {x}, the reference {y}: a label is not a vertex", spec.name)));
        }
        let (f, g) = (&mut forward[x as usize], &mut backward[y as usize]);
        if (*f != u64::MAX && *f != y) || (*g != u64::MAX && *g != x) {
            return Ok(Err(format!("{}: vertex {v} (dense) is grouped differently from the reference", spec.name)));
        }
        (*f, *g) = (y, x);
    }
    Ok(Ok(()))
}

/// What comparing a column of `n` values holds: both sides as vectors,
/// and for a partition the two maps between their labels.
pub fn bytes(spec: &ColumnSpec, n: u64) -> u64 {
    match spec.compare {
        Compare::Partition => n * 32,
        _ => n * 16,
    }
}

/// Whether `x` is within `tol` (relative) of `y`; equal infinities agree.
pub fn close(x: f64, y: f64, tol: f64) -> bool {
    x == y || (x - y).abs() <= tol * y.abs().max(1e-300)
}
