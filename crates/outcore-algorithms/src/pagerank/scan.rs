//! PageRank on the traverse engine's sequential cursor: contributions,
//! next ranks and out-degrees in memory (20 bytes a vertex, as on tiles),
//! and one sequential scan of the out-edges per iteration, each list
//! pushing its vertex's contribution to its targets. It needs only the
//! `out` layout that every store has.

use super::{Ranks, Schedule};
use crate::needs::EngineStats;
use crate::run::Context;
use crate::values::Held;
use outcore_store::StoreError;

pub fn pagerank(cx: &Context, pr: &Schedule) -> Result<Ranks, StoreError> {
    let store = cx.store;
    let n = store.vertices();
    let charge = cx.budget.reserve("PageRank ranks, contributions and out-degrees", super::state_bytes(n))?;
    let _scans = crate::needs::charge_scans(cx.budget, store, &["out"])?;
    let out = store.layout("out")?;
    let mut degree = vec![0u32; n as usize];
    out.for_each_degree(|v, d| degree[v as usize] = d.min(u32::MAX as u64) as u32)?;
    let (d, nf) = (pr.damping, n as f64);
    let share = |rank: f64, deg: u32| if deg == 0 { rank } else { rank / deg as f64 };
    let mut contribution: Vec<f64> = degree.iter().map(|&g| share(1.0 / nf, g)).collect();
    let mut sinks: f64 = degree.iter().filter(|&&g| g == 0).count() as f64 / nf;
    let mut next = vec![0.0f64; n as usize];
    let (mut done, mut delta) = (0, f64::INFINITY);
    cx.progress().begin("pagerank", pr.iterations as u64, false);
    while done < pr.iterations {
        next.iter_mut().for_each(|x| *x = 0.0);
        let mut scan = out.scan()?;
        while let Some((u, targets, _)) = scan.next_list()? {
            let c = contribution[u as usize];
            for &v in targets {
                next[v as usize] += c;
            }
        }
        let base = (1.0 - d) / nf + d * sinks / nf;
        (delta, sinks) = (0.0, 0.0);
        for (v, c) in contribution.iter_mut().enumerate() {
            let (x, g) = (base + d * next[v], degree[v]);
            next[v] = x;
            let old = if g == 0 { *c } else { *c * g as f64 };
            delta += (x - old).abs();
            if g == 0 {
                sinks += x;
            }
            *c = share(x, g);
        }
        done += 1;
        cx.progress().set(done as u64);
        if pr.converged(delta) {
            break;
        }
    }
    cx.progress().end();
    let stats = EngineStats::Scan { bytes_read: store.layout_bytes("out") * done as u64, passes: done as u64 };
    Ok(Ranks { rank: Box::new(Held { values: next, charge }), iterations: done, delta, stats })
}
