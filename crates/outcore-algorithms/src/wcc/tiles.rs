//! WCC by label propagation on tiles (G-Store section II): labels are
//! updated in place, and an iteration reads only the tiles with a row or
//! column span that changed in the previous one.

use super::Labels;
use crate::cells::{SpanFlags, U64Cells};
use crate::needs::{open_stream, EngineStats};
use crate::run::Context;
use crate::values::Held;
use outcore_engines::{TileEdges, TileProgram};
use outcore_store::StoreError;

struct TileMin<'a> {
    labels: &'a U64Cells,
    /// Spans that changed last iteration (tiles touching them are needed).
    changed: &'a SpanFlags,
    /// Spans changed so far this iteration.
    changing: &'a SpanFlags,
}

impl TileProgram for TileMin<'_> {
    fn reverse(&self) -> bool {
        true
    }
    fn needed(&self, i: u32, j: u32) -> bool {
        self.changed.get(i) || self.changed.get(j)
    }
    fn keep(&self, i: u32, j: u32) -> bool {
        self.changing.get(i) || self.changing.get(j)
    }
    fn forward(&self, t: &TileEdges) {
        let (s0, t0) = (t.source_base as usize, t.target_base as usize);
        let mut changed = false;
        for &[ls, lt] in t.edges {
            let (u, v) = (s0 + ls as usize, t0 + lt as usize);
            let l = self.labels.get(u);
            if l < self.labels.get(v) {
                self.labels.set(v, l);
                changed = true;
            }
        }
        if changed {
            self.changing.set(t.j);
        }
    }
    fn backward(&self, t: &TileEdges) {
        let (s0, t0) = (t.source_base as usize, t.target_base as usize);
        let mut changed = false;
        for &[ls, lt] in t.edges {
            let (u, v) = (s0 + ls as usize, t0 + lt as usize);
            let l = self.labels.get(v);
            if l < self.labels.get(u) {
                self.labels.set(u, l);
                changed = true;
            }
        }
        if changed {
            self.changing.set(t.i);
        }
    }
}

pub fn wcc(cx: &Context) -> Result<Labels, StoreError> {
    let n = cx.store.vertices();
    let charge = cx.budget.reserve("WCC labels", super::state_bytes(n))?;
    let mut stream = open_stream(cx, false)?;
    let spans = stream.record_ref().spans as usize;
    let labels = U64Cells::from_fn(n as usize, |v| v as u64);
    let mut changed = SpanFlags::new(spans, true);
    let mut changing = SpanFlags::new(spans, false);
    let mut iterations = 0;
    while changed.any() {
        stream.iterate(&TileMin { labels: &labels, changed: &changed, changing: &changing })?;
        iterations += 1;
        std::mem::swap(&mut changed, &mut changing);
        changing.clear();
    }
    let stats = Some(EngineStats::Stream(stream.stats().clone()));
    Ok(Labels { labels: Box::new(Held { values: labels.into_vec(), charge }), iterations, stats })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An iteration reads the tiles whose row or column span changed in
    /// the one before (`needed`), and when the cache is full it keeps the
    /// tiles whose row or column span changed so far in this one (`keep`):
    /// those the next iteration will read.
    #[test]
    fn tiles_are_needed_and_kept_by_their_spans_changes() {
        let labels = U64Cells::from_fn(4, |v| v as u64);
        let (changed, changing) = (SpanFlags::new(4, false), SpanFlags::new(4, false));
        changed.set(0);
        changing.set(2);
        let program = TileMin { labels: &labels, changed: &changed, changing: &changing };
        for i in 0..4 {
            for j in 0..4 {
                assert_eq!(program.needed(i, j), i == 0 || j == 0, "needed({i}, {j})");
                assert_eq!(program.keep(i, j), i == 2 || j == 2, "keep({i}, {j})");
            }
        }
    }
}
