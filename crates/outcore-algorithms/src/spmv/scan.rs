//! SpMV on the traverse engine's sequential cursor: x and y in memory (16
//! bytes a vertex) and one scan of `out` with its weights, each list
//! adding w(u, v) x(u) to y(v).

use super::Product;
use crate::needs::EngineStats;
use crate::run::Context;
use crate::values::Held;
use outcore_store::StoreError;

pub fn spmv(cx: &Context, x: &dyn Fn(u64) -> f64) -> Result<Product, StoreError> {
    let store = cx.store;
    let n = store.vertices();
    let charge = cx.budget.reserve("SpMV x and y", super::state_bytes(n))?;
    let _scans = crate::needs::charge_scans(cx.budget, store, &["out"])?;
    let xs: Vec<f64> = (0..n).map(x).collect();
    let mut y = vec![0.0f64; n as usize];
    let mut scan = store.layout("out")?.scan()?;
    while let Some((u, targets, weights)) = scan.next_list()? {
        let xu = xs[u as usize];
        for (k, &v) in targets.iter().enumerate() {
            y[v as usize] += weights.get(k).map_or(1.0, |&w| w as f64) * xu;
        }
    }
    drop(xs);
    Ok(Product { y: Box::new(Held { values: y, charge }), stats: EngineStats::Scan { bytes_read: store.layout_bytes("out"), passes: 1 } })
}
