//! SpMV on intervals (VENUS): x is the value table and each vertex sums
//! over its in-list.

use super::Product;
use crate::needs::{interval_layouts, EngineStats};
use crate::run::Context;
use crate::values::VertexValues;
use outcore_engines::{IntervalEngine, IntervalProgram, NeighbourList, Values};
use outcore_store::StoreError;

struct IntervalProduct;

impl IntervalProgram for IntervalProduct {
    type Value = f64;
    fn gather(&self, _: u64, _: u64, lists: &[NeighbourList], values: &Values<f64>) -> f64 {
        let l = &lists[0];
        values.sum_over(l.ids, |k, x| l.weights.get(k).map_or(1.0, |&w| w as f64) * x)
    }
}

pub fn spmv(cx: &Context, x: &dyn Fn(u64) -> f64) -> Result<Product, StoreError> {
    let structure = interval_layouts(cx.store, false);
    let mut e = IntervalEngine::open(cx.store, structure, false, cx.budget, &cx.interval_options(), |v, _| x(v))?;
    e.iterate(&IntervalProduct, |_, _, _, _| {})?;
    let stats = EngineStats::Interval(e.stats().clone());
    Ok(Product { y: Box::new(VertexValues::Intervals { engine: Box::new(e), scale_by_degree: None }), stats })
}
