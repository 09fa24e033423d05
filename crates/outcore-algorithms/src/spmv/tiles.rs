//! SpMV on tiles: x and y in memory, each tuple adds along both
//! directions when the store is undirected (its upper triangle).

use super::Product;
use crate::cells::F64Cells;
use crate::needs::{open_stream, EngineStats};
use crate::run::Context;
use crate::values::Held;
use outcore_engines::{TileEdges, TileProgram};
use outcore_store::StoreError;

struct TileProduct<'a> {
    x: &'a [f64],
    y: &'a F64Cells,
    undirected: bool,
    weighted: bool,
}

impl TileProgram for TileProduct<'_> {
    fn reverse(&self) -> bool {
        self.undirected
    }
    fn weights(&self) -> bool {
        self.weighted
    }
    fn forward(&self, t: &TileEdges) {
        let (s0, t0) = (t.source_base as usize, t.target_base as usize);
        for (k, &[ls, lt]) in t.edges.iter().enumerate() {
            let w = t.weights.get(k).map_or(1.0, |&w| w as f64);
            self.y.add(t0 + lt as usize, w * self.x[s0 + ls as usize]);
        }
    }
    fn backward(&self, t: &TileEdges) {
        let (s0, t0) = (t.source_base as usize, t.target_base as usize);
        for (k, &[ls, lt]) in t.edges.iter().enumerate() {
            let (u, v) = (s0 + ls as usize, t0 + lt as usize);
            if u != v {
                let w = t.weights.get(k).map_or(1.0, |&w| w as f64);
                self.y.add(u, w * self.x[v]);
            }
        }
    }
}

pub fn spmv(cx: &Context, x: &dyn Fn(u64) -> f64) -> Result<Product, StoreError> {
    let store = cx.store;
    let n = store.vertices();
    let weighted = store.manifest().weighted;
    let charge = cx.budget.reserve("SpMV x and y", super::state_bytes(n))?;
    let mut stream = open_stream(cx, weighted)?;
    let undirected = stream.record_ref().upper_triangle;
    if weighted && stream.record_ref().weights.is_none() {
        return Err(StoreError::StaleLayout {
            store: store.dir().to_path_buf(),
            layout: "tiles".into(),
            reason: "was built without the store's weights".into(),
        });
    }
    let xs: Vec<f64> = (0..n).map(x).collect();
    let y = F64Cells::new(n as usize, 0.0);
    stream.iterate(&TileProduct { x: &xs, y: &y, undirected, weighted })?;
    Ok(Product { y: Box::new(Held { values: y.into_vec(), charge }), stats: EngineStats::Stream(stream.stats().clone()) })
}
