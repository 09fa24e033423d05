//! Per-vertex state cells that the stream engine's threads write under its
//! ownership rule (one writer per span at a time): relaxed atomics read and
//! written with plain loads and stores, and the sums sort-reduce programs
//! accumulate from many threads.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

/// An f64 sum many threads add to (sort-reduce programs' global sums).
#[derive(Default)]
pub struct AtomicSum(AtomicU64);

impl AtomicSum {
    pub fn add(&self, x: f64) {
        let mut cur = self.0.load(Relaxed);
        loop {
            let next = (f64::from_bits(cur) + x).to_bits();
            match self.0.compare_exchange_weak(cur, next, Relaxed, Relaxed) {
                Ok(_) => return,
                Err(seen) => cur = seen,
            }
        }
    }
    pub fn get(&self) -> f64 {
        f64::from_bits(self.0.load(Relaxed))
    }
}

/// Per-vertex f64 state written under the stream engine's ownership rule
/// (one writer per span at a time): relaxed atomics, plain loads and stores.
pub struct F64Cells(Vec<AtomicU64>);

impl F64Cells {
    pub fn new(n: usize, x: f64) -> Self {
        F64Cells((0..n).map(|_| AtomicU64::new(x.to_bits())).collect())
    }
    #[inline]
    pub fn get(&self, v: usize) -> f64 {
        f64::from_bits(self.0[v].load(Relaxed))
    }
    #[inline]
    pub fn set(&self, v: usize, x: f64) {
        self.0[v].store(x.to_bits(), Relaxed)
    }
    /// Not an atomic add: only the owner of `v`'s span may call it.
    #[inline]
    pub fn add(&self, v: usize, x: f64) {
        self.set(v, self.get(v) + x)
    }
    pub fn fill(&mut self, x: f64) {
        self.0.iter_mut().for_each(|c| *c.get_mut() = x.to_bits());
    }
    /// The values, in place (no second copy).
    pub fn into_vec(self) -> Vec<f64> {
        // same size and alignment: collected in place
        self.0.into_iter().map(|c| f64::from_bits(c.into_inner())).collect()
    }
}

/// Per-vertex u64 state, same rule as [`F64Cells`].
pub struct U64Cells(Vec<AtomicU64>);

impl U64Cells {
    pub fn from_fn(n: usize, f: impl Fn(usize) -> u64) -> Self {
        U64Cells((0..n).map(|v| AtomicU64::new(f(v))).collect())
    }
    /// Cells of `values`, in place (no second copy).
    pub fn from_vec(values: Vec<u64>) -> Self {
        // same size and alignment: collected in place
        U64Cells(values.into_iter().map(AtomicU64::new).collect())
    }
    #[inline]
    pub fn get(&self, v: usize) -> u64 {
        self.0[v].load(Relaxed)
    }
    #[inline]
    pub fn set(&self, v: usize, x: u64) {
        self.0[v].store(x, Relaxed)
    }
    /// The values, in place (no second copy).
    pub fn into_vec(self) -> Vec<u64> {
        // same size and alignment: collected in place
        self.0.into_iter().map(AtomicU64::into_inner).collect()
    }
}

/// One flag per span (changed, active), set by the span's owner.
pub struct SpanFlags(Vec<AtomicBool>);

impl SpanFlags {
    pub fn new(spans: usize, x: bool) -> Self {
        SpanFlags((0..spans).map(|_| AtomicBool::new(x)).collect())
    }
    #[inline]
    pub fn get(&self, s: u32) -> bool {
        self.0[s as usize].load(Relaxed)
    }
    #[inline]
    pub fn set(&self, s: u32) {
        self.0[s as usize].store(true, Relaxed)
    }
    pub fn any(&self) -> bool {
        self.0.iter().any(|f| f.load(Relaxed))
    }
    pub fn clear(&mut self) {
        self.0.iter_mut().for_each(|f| *f.get_mut() = false);
    }
}
