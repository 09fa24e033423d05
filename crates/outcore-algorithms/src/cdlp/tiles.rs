//! CDLP on tiles. A vertex's new label needs all its neighbours' labels at
//! once, which tiles scatter over a whole row and column, so each
//! iteration runs in bands of consecutive spans whose incoming labels fit
//! the band buffer: the stream engine reads only the tiles whose row or
//! column lies in the band (its selective fetch), the labels are dropped
//! into per-vertex slots, and each vertex's slots are sorted in place to
//! find the mode.

use super::{mode, Communities};
use crate::cells::U64Cells;
use crate::needs::{open_stream, EngineStats};
use crate::plan::Engine;
use crate::run::Context;
use crate::values::Held;
use outcore_engines::stream::MIN_SEGMENT_BYTES;
use outcore_engines::{TileEdges, TileProgram, TileStream};
use outcore_store::{Store, StoreError};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// Counts tuples arriving at each target (in-degrees of a directed store).
struct CountTargets<'a> {
    counts: &'a [AtomicU32],
}

impl TileProgram for CountTargets<'_> {
    fn reverse(&self) -> bool {
        false
    }
    fn forward(&self, t: &TileEdges) {
        for &[_, lt] in t.edges {
            let v = t.target_base as usize + lt as usize;
            self.counts[v].store(self.counts[v].load(Relaxed) + 1, Relaxed);
        }
    }
}

/// Drops neighbour labels into the slots of the band's vertices.
struct Collect<'a> {
    labels: &'a [u64],
    /// Spans [lo, hi) and their first vertex.
    lo: u32,
    hi: u32,
    first: usize,
    cursor: &'a [AtomicU32],
    slots: &'a U64Cells,
    undirected: bool,
}

impl Collect<'_> {
    #[inline]
    fn put(&self, v: usize, label: u64) {
        let c = &self.cursor[v - self.first];
        let k = c.load(Relaxed);
        c.store(k + 1, Relaxed);
        self.slots.set(k as usize, label);
    }
    fn inside(&self, s: u32) -> bool {
        (self.lo..self.hi).contains(&s)
    }
}

impl TileProgram for Collect<'_> {
    fn reverse(&self) -> bool {
        true
    }
    fn needed(&self, i: u32, j: u32) -> bool {
        self.inside(i) || self.inside(j)
    }
    fn forward(&self, t: &TileEdges) {
        if self.inside(t.j) {
            let (s0, t0) = (t.source_base as usize, t.target_base as usize);
            for &[ls, lt] in t.edges {
                self.put(t0 + lt as usize, self.labels[s0 + ls as usize]);
            }
        }
    }
    fn backward(&self, t: &TileEdges) {
        if self.inside(t.i) {
            let (s0, t0) = (t.source_base as usize, t.target_base as usize);
            for &[ls, lt] in t.edges {
                let (u, v) = (s0 + ls as usize, t0 + lt as usize);
                if !(self.undirected && u == v) {
                    self.put(u, self.labels[v]);
                }
            }
        }
    }
}

/// The smallest band: the neighbour labels arriving at the span that gets
/// the most (its row and column of tiles), from the tile index alone.
pub fn band_floor(store: &Store) -> Result<u64, StoreError> {
    let Some(rec) = store.manifest().tiles.clone() else { return Ok(0) };
    let (index, end) = outcore_store::tiles::read_tile_index(store.dir(), &rec)?;
    let mut per_span = vec![0u64; rec.spans as usize];
    for (k, &(i, j, start)) in index.iter().enumerate() {
        let edges = index.get(k + 1).map_or(end, |next| next.2) - start;
        per_span[i as usize] += edges;
        per_span[j as usize] += edges;
    }
    Ok(per_span.into_iter().max().unwrap_or(0) * 8)
}

pub fn cdlp(cx: &Context, iterations: u32) -> Result<Communities, StoreError> {
    let store = cx.store;
    let n = store.vertices();
    let _charge = cx.budget.reserve("CDLP labels, next labels, counts and cursors", super::state_bytes(n))?;
    let rec = TileStream::record(store)?;
    let span = 1usize << rec.span_bits;
    let undirected = rec.upper_triangle;

    // tuples arriving at each vertex: its degree, or out- plus in-degree
    let mut tuples = vec![0u32; n as usize];
    store.layout("out")?.for_each_degree(|v, d| tuples[v as usize] = d as u32)?;
    let total: u64 = tuples.iter().map(|&x| x as u64).sum::<u64>() + if undirected { 0 } else { rec.edges };
    // a third of what is left, at least the largest span's labels, and
    // never the room the stream needs (every tile, for the memory engine)
    let stream_floor = TileStream::fixed_bytes(&rec, MIN_SEGMENT_BYTES)
        + if cx.engine() == Engine::Memory { TileStream::layout_bytes(&rec, false) + (1 << 20) } else { 0 };
    let available = cx.budget.available();
    let floor = band_floor(store)?;
    let band_bytes = (available / 3).min(available.saturating_sub(stream_floor)).max(floor).min(total * 8).max(8);
    let band_charge = cx.budget.reserve("CDLP band of neighbour labels", band_bytes)?;
    let mut stream = open_stream(cx, false)?;
    if !undirected {
        let counts: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
        stream.iterate(&CountTargets { counts: &counts })?;
        for (t, c) in tuples.iter_mut().zip(counts) {
            *t += c.into_inner();
        }
    }
    // bands of consecutive spans whose labels fit the buffer
    let per_span: Vec<u64> = tuples.chunks(span).map(|c| c.iter().map(|&x| x as u64).sum()).collect();
    let capacity = band_bytes / 8;
    let mut bands: Vec<(u32, u32, u64)> = Vec::new();
    for (s, &t) in per_span.iter().enumerate() {
        if t > capacity {
            // the band holds the floor, which the tile index counts: a span
            // with more labels means the tiles and `out` disagree
            return Err(StoreError::invalid(
                store.dir(),
                format!(
                    "vertices {}..{} have {t} neighbour labels by the out layout, more than the tile index counts for any span ({})",
                    s * span,
                    ((s + 1) * span).min(n as usize),
                    floor / 8
                ),
            ));
        }
        match bands.last_mut() {
            Some((_, hi, sum)) if *sum + t <= capacity => {
                *hi += 1;
                *sum += t;
            }
            _ => bands.push((s as u32, s as u32 + 1, t)),
        }
    }
    // the band's labels, in per-vertex slots: cells while the stream's
    // threads drop labels in, then sorted in place, slot by slot
    let mut slots: Vec<u64> = vec![0; capacity.min(total) as usize];
    let mut labels: Vec<u64> = (0..n).collect();
    let mut next = labels.clone();
    cx.progress().begin("cdlp", iterations as u64, false);
    for iteration in 0..iterations {
        for &(lo, hi, _) in &bands {
            let first = lo as usize * span;
            let end = (hi as usize * span).min(n as usize);
            let mut starts = Vec::with_capacity(end - first + 1);
            let mut at = 0u32;
            for &t in &tuples[first..end] {
                starts.push(at);
                at += t;
            }
            starts.push(at);
            let cursor: Vec<AtomicU32> = starts[..end - first].iter().map(|&s| AtomicU32::new(s)).collect();
            let cells = U64Cells::from_vec(std::mem::take(&mut slots));
            stream.iterate(&Collect { labels: &labels, lo, hi, first, cursor: &cursor, slots: &cells, undirected })?;
            slots = cells.into_vec();
            for (k, c) in cursor.iter().enumerate() {
                if c.load(Relaxed) != starts[k + 1] {
                    return Err(StoreError::invalid(
                        store.dir(),
                        format!("tiles and the out layout disagree on the degree of vertex {}", first + k),
                    ));
                }
            }
            // each span's slots apart, for its thread
            let mut span_slots = Vec::with_capacity((hi - lo) as usize);
            let mut rest = &mut slots[..];
            for c in (0..end - first).step_by(span) {
                let (head, tail) = rest.split_at_mut((starts[(c + span).min(end - first)] - starts[c]) as usize);
                span_slots.push(head);
                rest = tail;
            }
            next[first..end].par_chunks_mut(span).zip(span_slots).enumerate().for_each(|(c, (out, slots))| {
                let base = starts[c * span];
                for (k, label) in out.iter_mut().enumerate() {
                    let v = c * span + k;
                    let mine = &mut slots[(starts[v] - base) as usize..(starts[v + 1] - base) as usize];
                    *label = mode(mine).unwrap_or(labels[first + v]);
                }
            });
        }
        std::mem::swap(&mut labels, &mut next);
        cx.progress().set(iteration as u64 + 1);
    }
    cx.progress().end();
    drop(band_charge);
    let stats = EngineStats::Stream(stream.stats().clone());
    Ok(Communities {
        labels: Box::new(Held { values: labels, charge: _charge }),
        bands: bands.len() as u64,
        band_bytes: Some(band_bytes),
        stats,
    })
}
