//! Sort-reduce (BigSparse section 3, Algorithm 3): combining updates to
//! the same vertex while sorting them.
//!
//! Keys are vertex ids below |V|, so both steps work on id windows of
//! 2^16 vertices instead of comparisons:
//! - in memory ([`sort_reduce`]): one counting pass sends each update to
//!   its window's bucket, then each bucket (in parallel) is reduced into a
//!   dense window array that stays in the L2 cache and read back in id
//!   order, which sorts it;
//! - on disk ([`merge_reduce`]): a k-way merge takes from every run the
//!   updates of the next window, reduces them into the same kind of array
//!   and emits them in order: O(1) per update, no heap of run heads.
//!
//! The reduction must be associative and commutative (the paper's vertex
//! program), since updates are combined in no particular order.

use super::run::{Record, RunReader};
use outcore_io::IoError;
use rayon::prelude::*;

pub const WINDOW_BITS: u32 = 16;
const WINDOW: usize = 1 << WINDOW_BITS;
/// Buckets below this size are sorted rather than spread over a window.
const SMALL_BUCKET: usize = 256;

/// A dense accumulator for one id window.
pub struct Window<U> {
    values: Vec<U>,
    present: Vec<u64>,
}

impl<U: Record> Window<U> {
    pub fn new() -> Self {
        Window { values: vec![U::zeroed(); WINDOW], present: vec![0; WINDOW / 64] }
    }

    #[inline]
    fn add(&mut self, slot: usize, x: U, reduce: &impl Fn(U, U) -> U) {
        let (w, b) = (slot >> 6, slot & 63);
        if self.present[w] >> b & 1 == 1 {
            self.values[slot] = reduce(self.values[slot], x);
        } else {
            self.present[w] |= 1 << b;
            self.values[slot] = x;
        }
    }

    /// Call `f(slot, value)` in slot order and clear.
    #[inline]
    fn drain(&mut self, mut f: impl FnMut(usize, U) -> Result<(), IoError>) -> Result<(), IoError> {
        for w in 0..self.present.len() {
            let mut bits = self.present[w];
            if bits == 0 {
                continue;
            }
            self.present[w] = 0;
            while bits != 0 {
                let slot = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                f(slot, self.values[slot])?;
            }
        }
        Ok(())
    }
}

impl<U: Record> Default for Window<U> {
    fn default() -> Self {
        Self::new()
    }
}

/// Reusable memory of the in-memory sort-reducer: room for `capacity` updates.
pub struct SortSpace<U> {
    sorted: Vec<(u64, U)>,
    counts: Vec<usize>,
}

impl<U: Record> SortSpace<U> {
    pub fn new(capacity: usize) -> Self {
        SortSpace { sorted: Vec::with_capacity(capacity), counts: Vec::new() }
    }
}

/// Sort the updates of `batches` by vertex and reduce equal vertices,
/// then hand the result to `emit` in increasing vertex order. Returns the
/// number of reduced updates. `vertices` bounds the ids.
pub fn sort_reduce<U: Record>(
    batches: &[Vec<(u64, U)>],
    vertices: u64,
    space: &mut SortSpace<U>,
    reduce: &(impl Fn(U, U) -> U + Sync),
    mut emit: impl FnMut(u64, &U) -> Result<(), IoError>,
) -> Result<u64, IoError> {
    let total: usize = batches.iter().map(Vec::len).sum();
    // bucket width: a window, or wider so that there are at most 2^16 buckets
    let id_bits = 64 - vertices.max(2).saturating_sub(1).leading_zeros();
    let shift = WINDOW_BITS.max(id_bits.saturating_sub(16));
    let buckets = (vertices.max(1) - 1 >> shift) as usize + 1;
    let counts = &mut space.counts;
    counts.clear();
    counts.resize(buckets + 1, 0);
    for b in batches {
        for &(v, _) in b {
            counts[(v >> shift) as usize + 1] += 1;
        }
    }
    for k in 1..=buckets {
        counts[k] += counts[k - 1];
    }
    let sorted = &mut space.sorted;
    sorted.clear();
    sorted.resize(total, (0, U::zeroed()));
    let mut next: Vec<usize> = counts[..buckets].to_vec();
    for b in batches {
        for &(v, x) in b {
            let k = (v >> shift) as usize;
            sorted[next[k]] = (v, x);
            next[k] += 1;
        }
    }
    // reduce each bucket in place, compacting it to its front
    let mut slices = Vec::with_capacity(buckets);
    let mut rest: &mut [(u64, U)] = sorted;
    for k in 0..buckets {
        let (head, tail) = rest.split_at_mut(counts[k + 1] - counts[k]);
        slices.push((k as u64, head));
        rest = tail;
    }
    let lens: Vec<usize> = slices
        .into_par_iter()
        .map_init(Window::<U>::new, |window, (k, bucket)| {
            if bucket.len() < SMALL_BUCKET || shift > WINDOW_BITS {
                bucket.sort_unstable_by_key(|e| e.0);
                let mut n = 0;
                for i in 0..bucket.len() {
                    if n > 0 && bucket[n - 1].0 == bucket[i].0 {
                        bucket[n - 1].1 = reduce(bucket[n - 1].1, bucket[i].1);
                    } else {
                        bucket[n] = bucket[i];
                        n += 1;
                    }
                }
                n
            } else {
                let base = k << shift;
                for &(v, x) in bucket.iter() {
                    window.add((v - base) as usize, x, reduce);
                }
                let mut n = 0;
                window
                    .drain(|slot, x| {
                        bucket[n] = (base + slot as u64, x);
                        n += 1;
                        Ok(())
                    })
                    .unwrap();
                n
            }
        })
        .collect();
    let mut reduced = 0u64;
    for (k, &len) in lens.iter().enumerate() {
        for (v, x) in &sorted[counts[k]..counts[k] + len] {
            emit(*v, x)?;
        }
        reduced += len as u64;
    }
    Ok(reduced)
}

/// Merge sorted runs into one sorted stream, reducing equal vertices,
/// and hand it to `emit` in increasing vertex order. Returns the number of
/// merged updates read.
pub fn merge_reduce<U: Record>(
    runs: &mut [RunReader<U>],
    reduce: &impl Fn(U, U) -> U,
    mut emit: impl FnMut(u64, &U) -> Result<(), IoError>,
) -> Result<u64, IoError> {
    let mut window = Window::<U>::new();
    let mut read = 0u64;
    loop {
        let Some(low) = runs.iter().filter_map(|r| r.head().map(|h| h.0)).min() else { break };
        let base = low >> WINDOW_BITS << WINDOW_BITS;
        let end = base + WINDOW as u64;
        for r in runs.iter_mut() {
            while let Some(&(v, x)) = r.head() {
                if v >= end {
                    break;
                }
                window.add((v - base) as usize, x, reduce);
                r.advance()?;
                read += 1;
            }
        }
        window.drain(|slot, x| emit(base + slot as u64, &x))?;
    }
    Ok(read)
}

#[cfg(test)]
mod tests {
    use super::super::run::RunWriter;
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    fn oracle(updates: &[(u64, u64)]) -> Vec<(u64, u64)> {
        let mut m = BTreeMap::new();
        for &(v, x) in updates {
            *m.entry(v).or_insert(0u64) += x;
        }
        m.into_iter().collect()
    }

    proptest! {
        #[test]
        fn sort_reduce_sums_like_a_map(
            updates in proptest::collection::vec((0u64..300_000, 0u64..1000), 0..5000),
            vertices_extra in 0u64..(1 << 33),
            split in 1usize..5,
        ) {
            let vertices = 300_000 + vertices_extra;
            let batches: Vec<Vec<(u64, u64)>> = updates.chunks(updates.len() / split + 1).map(|c| c.to_vec()).collect();
            let mut space = SortSpace::new(16);
            let mut out = Vec::new();
            let n = sort_reduce(&batches, vertices, &mut space, &|a, b| a + b, |v, x| { out.push((v, *x)); Ok(()) }).unwrap();
            let want = oracle(&updates);
            prop_assert_eq!(n as usize, want.len());
            prop_assert_eq!(out, want);
        }

        #[test]
        fn merge_reduce_sums_like_a_map(runs in proptest::collection::vec(proptest::collection::vec((0u64..1_000_000, 0u64..1000), 0..800), 1..6)) {
            let dir = tempfile::tempdir().unwrap();
            let mut readers = Vec::new();
            let mut all = Vec::new();
            for (k, updates) in runs.iter().enumerate() {
                let reduced = oracle(updates);
                all.extend_from_slice(&reduced);
                let mut w = RunWriter::<u64>::create(&dir.path().join(k.to_string()), 4096).unwrap();
                for (v, x) in &reduced {
                    w.push(*v, x).unwrap();
                }
                readers.push(w.finish().unwrap().reader(4096).unwrap());
            }
            let mut out = Vec::new();
            let read = merge_reduce(&mut readers, &|a, b| a + b, |v, x| { out.push((v, *x)); Ok(()) }).unwrap();
            prop_assert_eq!(read as usize, all.len());
            prop_assert_eq!(out, oracle(&all));
        }
    }
}
