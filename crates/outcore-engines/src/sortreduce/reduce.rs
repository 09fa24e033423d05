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
use outcore_io::{Bitmap, IoError};
use rayon::prelude::*;

pub const WINDOW_BITS: u32 = 16;
const WINDOW: usize = 1 << WINDOW_BITS;
/// Buckets below this size are sorted rather than spread over a window.
const SMALL_BUCKET: usize = 256;

/// A dense accumulator for one id window.
pub struct Window<U> {
    values: Vec<U>,
    present: Bitmap,
}

impl<U: Record> Window<U> {
    pub fn new() -> Self {
        Window { values: vec![U::zeroed(); WINDOW], present: Bitmap::new(WINDOW as u64) }
    }

    #[inline]
    fn add(&mut self, slot: usize, x: U, reduce: &impl Fn(U, U) -> U) {
        // branch-free: whether the slot held a value is unpredictable
        let held = self.present.get(slot as u64);
        let combined = reduce(self.values[slot], x);
        self.values[slot] = if held { combined } else { x };
        self.present.set(slot as u64);
    }

    /// Call `f(slot, value)` in slot order and clear.
    #[inline]
    fn drain(&mut self, mut f: impl FnMut(usize, U) -> Result<(), IoError>) -> Result<(), IoError> {
        let words = self.present.words_mut();
        for w in 0..words.len() {
            let mut bits = words[w];
            if bits == 0 {
                continue;
            }
            words[w] = 0;
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

/// Reusable memory of the in-memory sort-reducer: the sorted batch and
/// one window per thread.
pub struct SortSpace<U> {
    sorted: Vec<(u64, U)>,
    windows: Vec<Window<U>>,
}

impl<U: Record> SortSpace<U> {
    pub fn new(capacity: usize) -> Self {
        SortSpace { sorted: Vec::with_capacity(capacity), windows: Vec::new() }
    }
    /// Bytes besides the batch: the threads' windows.
    pub fn window_bytes() -> u64 {
        (WINDOW * (std::mem::size_of::<U>() + 1)) as u64 * rayon::current_num_threads() as u64
    }
}

/// A pointer the scatter threads share; each writes only its own slots.
#[derive(Clone, Copy)]
struct Slots<T>(*mut T);
// SAFETY: the threads that share a `Slots` write disjoint slots of one
// buffer that outlives them (see the scatter in `sort_reduce`), and `T`
// values may move between threads.
unsafe impl<T: Send> Send for Slots<T> {}
// SAFETY: as for Send: shared access only writes disjoint slots.
unsafe impl<T: Send> Sync for Slots<T> {}

/// Reduce one bucket in place, compacting it to its front; returns its new length.
fn reduce_bucket<U: Record>(bucket: &mut [(u64, U)], base: u64, dense: bool, window: &mut Window<U>, reduce: &impl Fn(U, U) -> U) -> usize {
    if bucket.len() < SMALL_BUCKET || !dense {
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
        return n;
    }
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

/// Sort the updates of `batches` by vertex and reduce equal vertices,
/// then hand the result to `emit` in increasing vertex order. Returns the
/// number of reduced updates. `vertices` bounds the ids. The batches go
/// to `release` as soon as their updates are in the sort space.
pub fn sort_reduce<U: Record>(
    batches: &mut Vec<Vec<(u64, U)>>,
    vertices: u64,
    space: &mut SortSpace<U>,
    reduce: &(impl Fn(U, U) -> U + Sync),
    mut release: impl FnMut(Vec<(u64, U)>),
    mut emit: impl FnMut(u64, &U) -> Result<(), IoError>,
) -> Result<u64, IoError> {
    let total: usize = batches.iter().map(Vec::len).sum();
    // bucket width: a window, or wider so that there are at most 2^16 buckets
    let id_bits = 64 - vertices.max(2).saturating_sub(1).leading_zeros();
    let shift = WINDOW_BITS.max(id_bits.saturating_sub(16));
    let dense = shift == WINDOW_BITS;
    let buckets = ((vertices.max(1) - 1) >> shift) as usize + 1;
    let threads = rayon::current_num_threads().max(1);

    // count per group of batches, in parallel
    let per_group = batches.len().div_ceil(threads).max(1);
    let counts: Vec<Vec<usize>> = batches
        .par_chunks(per_group)
        .map(|group| {
            let mut c = vec![0usize; buckets];
            for b in group {
                for &(v, _) in b {
                    c[(v >> shift) as usize] += 1;
                }
            }
            c
        })
        .collect();
    let mut starts = vec![0usize; buckets + 1];
    for k in 0..buckets {
        starts[k + 1] = starts[k] + counts.iter().map(|c| c[k]).sum::<usize>();
    }
    // where each group writes in each bucket
    let mut offsets: Vec<Vec<usize>> = Vec::with_capacity(counts.len());
    let mut running = starts[..buckets].to_vec();
    for c in &counts {
        offsets.push(running.clone());
        for k in 0..buckets {
            running[k] += c[k];
        }
    }
    let sorted = &mut space.sorted;
    if sorted.len() < total {
        sorted.resize(total, (0, U::zeroed()));
    }
    let slots = Slots(sorted.as_mut_ptr());
    batches.par_chunks(per_group).zip(offsets.par_iter_mut()).for_each(|(group, next)| {
        // the closure must capture the whole `Slots` (Send), not its raw pointer field
        #[allow(clippy::redundant_locals)]
        let slots = slots;
        for b in group {
            for &(v, x) in b {
                let k = (v >> shift) as usize;
                // SAFETY: the groups' ranges within each bucket are disjoint and
                // lie below `total` <= sorted.len(); every slot is written once.
                unsafe { slots.0.add(next[k]).write((v, x)) };
                next[k] += 1;
            }
        }
    });
    // the batches' memory goes back to the readers while this one is reduced
    batches.drain(..).for_each(&mut release);

    // reduce: contiguous ranges of buckets of about equal size, one per thread
    while space.windows.len() < threads {
        space.windows.push(Window::new());
    }
    let mut ranges = Vec::with_capacity(threads);
    let mut first = 0;
    for t in 1..=threads {
        let goal = total * t / threads;
        let mut end = first;
        while end < buckets && (starts[end + 1] <= goal || t == threads) {
            end += 1;
        }
        ranges.push(first..end);
        first = end;
    }
    let mut lens = vec![0usize; buckets];
    {
        let mut rest_items: &mut [(u64, U)] = &mut sorted[..total];
        let mut rest_lens: &mut [usize] = &mut lens;
        let mut work = Vec::with_capacity(threads);
        for (r, window) in ranges.iter().zip(space.windows.iter_mut()) {
            let (items, tail) = rest_items.split_at_mut(starts[r.end] - starts[r.start]);
            let (ls, ltail) = rest_lens.split_at_mut(r.len());
            work.push((r.clone(), items, ls, window));
            rest_items = tail;
            rest_lens = ltail;
        }
        work.into_par_iter().for_each(|(r, items, ls, window)| {
            let mut items = items;
            for (i, k) in r.enumerate() {
                let (bucket, tail) = items.split_at_mut(starts[k + 1] - starts[k]);
                ls[i] = reduce_bucket(bucket, (k as u64) << shift, dense, window, reduce);
                items = tail;
            }
        });
    }
    let mut reduced = 0u64;
    for k in 0..buckets {
        for (v, x) in &sorted[starts[k]..starts[k] + lens[k]] {
            emit(*v, x)?;
        }
        reduced += lens[k] as u64;
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
    while let Some(low) = runs.iter().filter_map(|r| r.head().map(|h| h.0)).min() {
        let base = low >> WINDOW_BITS << WINDOW_BITS;
        let end = base + WINDOW as u64;
        for r in runs.iter_mut() {
            while let Some(&(v, x)) = r.head() {
                if v >= end {
                    break;
                }
                window.add((v - base) as usize, x, reduce);
                r.skip()?;
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
            let mut batches: Vec<Vec<(u64, u64)>> = updates.chunks(updates.len() / split + 1).map(|c| c.to_vec()).collect();
            let given = batches.len();
            let mut space = SortSpace::new(16);
            let mut out = Vec::new();
            let mut released = 0;
            let n = sort_reduce(&mut batches, vertices, &mut space, &|a, b| a + b, |_| released += 1, |v, x| { out.push((v, *x)); Ok(()) }).unwrap();
            prop_assert_eq!(released, given);
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
