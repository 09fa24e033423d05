//! Checking PageRank without the code that computed it: the ranks are a
//! probability distribution, no rank is below the teleport share, and one
//! more step moves them by at most d times the last step's change (the
//! iteration is a contraction in L1 with factor d). A rank changed by a
//! bug, a wrong damping factor or a skipped iteration fails the last rule.

use super::Params;
use crate::run::{Check, Validation};
use outcore_store::StoreError;

const METHOD: &str = "sum, lower bound and L1 residual of one more step";

pub fn validate(check: &Check, p: &Params) -> Result<Validation, StoreError> {
    let store = check.store;
    let n = store.vertices();
    if n == 0 {
        return Ok(Validation::pass(METHOD, "no vertices"));
    }
    let Some(column) = check.outcome.column("rank") else {
        return Ok(Validation::fail(METHOD, "the run returned no ranks"));
    };
    let _charge = check.budget.reserve("PageRank validation: ranks, next ranks and degrees", n * 20)?;
    let rank = column.to_f64()?;
    if rank.len() as u64 != n {
        return Ok(Validation::fail(METHOD, format!("{} ranks for {n} vertices", rank.len())));
    }
    let nf = n as f64;
    let sum: f64 = rank.iter().sum();
    if (sum - 1.0).abs() > 1e-6 {
        return Ok(Validation::fail(METHOD, format!("the ranks sum to {sum}, not 1")));
    }
    let floor = (1.0 - p.damping) / nf;
    if let Some(v) = rank.iter().position(|&x| x.is_nan() || x < floor * (1.0 - 1e-9)) {
        return Ok(Validation::fail(METHOD, format!("vertex {v} (dense) has rank {:e}, below the teleport share {floor:e}", rank[v])));
    }
    let out = store.layout("out")?;
    let mut degree = vec![0u32; n as usize];
    out.for_each_degree(|v, d| degree[v as usize] = d as u32)?;
    let sinks: f64 = rank.iter().zip(&degree).filter(|(_, &d)| d == 0).map(|(r, _)| r).sum();
    let mut next = vec![(1.0 - p.damping) / nf + p.damping * sinks / nf; n as usize];
    let _scan_charge = crate::needs::charge_scans(check.budget, check.store, &["out"])?;
    let mut scan = out.scan()?;
    while let Some((u, targets, _)) = scan.next_list()? {
        let share = p.damping * rank[u as usize] / targets.len().max(1) as f64;
        for &v in targets {
            next[v as usize] += share;
        }
    }
    let residual: f64 = next.iter().zip(&rank).map(|(a, b)| (a - b).abs()).sum();
    let last = check.report.figure("last_l1_change").and_then(|x| x.as_f64()).unwrap_or(f64::INFINITY);
    let bound = p.damping * last * (1.0 + 1e-6) + 1e-12;
    if residual > bound {
        return Ok(Validation::fail(
            METHOD,
            format!("one more step changes the ranks by {residual:e} (L1), more than d x the last change = {bound:e}"),
        ));
    }
    Ok(Validation::pass(METHOD, format!("ranks sum to {sum:.12}; one more step changes them by {residual:e} <= {bound:e}")))
}
