//! Checking core numbers without the h-index rounds or the reference: in
//! one neighbourhood scan, every vertex v of core number k must have at
//! least k neighbours of core number >= k (so the vertices of core >= k
//! form a subgraph of minimum degree k, inside the true k-core: no core
//! number is too large), and at most k neighbours of core number >= k + 1
//! (a vertex with k + 1 of them would belong to the (k + 1)-core with
//! them: the core property is maximal at every vertex). Holds the core
//! numbers in memory (8 bytes a vertex).

use crate::neighbourhood::{for_each_neighbourhood, ID};
use crate::run::{Check, Validation};
use outcore_store::StoreError;

const METHOD: &str = "every vertex's neighbours of core >= k (at least k) and >= k + 1 (at most k)";

pub fn validate(check: &Check) -> Result<Validation, StoreError> {
    let n = check.store.vertices();
    let Some(column) = check.outcome.column("core") else {
        return Ok(Validation::fail(METHOD, "the run returned no core numbers"));
    };
    let _charge =
        check.budget.reserve("k-core validation: the core numbers and a scan", n * 8 + crate::neighbourhood::scan_bytes(check.store)?)?;
    let core = column.to_u64()?;
    if core.len() as u64 != n {
        return Ok(Validation::fail(METHOD, format!("{} core numbers for {n} vertices", core.len())));
    }
    let mut failure = None;
    for_each_neighbourhood(check.store, "k-core validation", |v, around| {
        if failure.is_some() {
            return Ok(());
        }
        let k = core[v as usize];
        let (mut at_least, mut above) = (0u64, 0u64);
        for &e in around {
            let c = core[(e & ID) as usize];
            at_least += (c >= k) as u64;
            above += (c > k) as u64;
        }
        if at_least < k {
            failure = Some(format!("vertex {v} (dense) has core {k} but only {at_least} neighbours of core >= {k}"));
        } else if above > k {
            failure = Some(format!("vertex {v} (dense) has core {k} but {above} neighbours of core > {k}: it belongs to a larger core"));
        }
        Ok(())
    })?;
    Ok(match failure {
        Some(why) => Validation::fail(METHOD, why),
        None => Validation::pass(METHOD, format!("{n} vertices")),
    })
}
