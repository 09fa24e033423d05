//! The forest both WCC versions of the traverse engine link into: one
//! u32 parent a vertex, linked lock-free on every core (gapbs `cc.cc`'s
//! `Link` and `Compress`; Sutton, Ben-Nun and Barak 2018, section III),
//! and the link buffers a reading thread fills while a linking thread
//! makes the links of the buffer before on every core. Roots are the
//! smallest ids of their components, so the labels do not depend on the
//! number of threads or on the order of the links.

use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// Links gathered before every core makes them.
pub const LINK_BUFFER: usize = 1 << 17;

/// Join the trees of `u` and `v` (gapbs `Link`): the larger root goes
/// under the smaller by a compare-and-swap, so that threads can link at
/// once. Parents only ever point to smaller ids, so the roots are the
/// smallest ids of their components.
pub(super) fn link(parent: &[AtomicU32], u: u32, v: u32) {
    let mut p1 = parent[u as usize].load(Relaxed);
    let mut p2 = parent[v as usize].load(Relaxed);
    while p1 != p2 {
        let (high, low) = (p1.max(p2), p1.min(p2));
        let p_high = parent[high as usize].load(Relaxed);
        // already under `low`, or put there now
        if p_high == low || p_high == high && parent[high as usize].compare_exchange(high, low, Relaxed, Relaxed).is_ok() {
            break;
        }
        // `high` is not a root (now): on to its grandparent, which
        // becomes its parent (path halving: a parent only ever moves to
        // an ancestor, so every tree keeps its vertices)
        let now = parent[high as usize].load(Relaxed);
        let grand = parent[now as usize].load(Relaxed);
        if grand < now {
            parent[high as usize].store(grand, Relaxed);
        }
        p1 = grand;
        p2 = parent[low as usize].load(Relaxed);
    }
}

/// A forest of `n` roots.
pub(super) fn roots(n: u64) -> Vec<AtomicU32> {
    (0..n as u32).map(AtomicU32::new).collect()
}

/// The labels of a forest that no link changes any more: each vertex's
/// root, in place (an AtomicU32 is a u32 in memory, and collecting a
/// mapped vector of one into one of the other reuses its allocation).
pub(super) fn labels(parent: Vec<AtomicU32>) -> Vec<u32> {
    compress(&parent);
    parent.into_iter().map(AtomicU32::into_inner).collect()
}

/// Every vertex's parent made its root, on every core (no link runs meanwhile).
pub(super) fn compress(parent: &[AtomicU32]) {
    parent.par_iter().with_min_len(1 << 14).for_each(|p| loop {
        let (q, r) = (p.load(Relaxed), parent[p.load(Relaxed) as usize].load(Relaxed));
        if q == r {
            break;
        }
        p.store(r, Relaxed);
    });
}

/// Pairs to link, made on every core by a linking thread once a buffer
/// is full, while the next buffer fills: the reading thread does not wait
/// for the links (union-find's scan links as long as it reads). Two buffers of
/// [`LINK_BUFFER`] pairs: one filling, one being linked.
///
/// Called from a thread of a rayon pool, it links each full buffer in
/// place instead, on that pool, as the reader waits: the linking thread's
/// work goes to the global pool, which the waiting reader might be the
/// only thread of.
pub(super) struct Links<'a> {
    pairs: Vec<(u32, u32)>,
    linking: Linking<'a>,
}

enum Linking<'a> {
    InPlace(&'a [AtomicU32]),
    Thread {
        /// An empty buffer at hand, when the other is not being linked.
        spare: Option<Vec<(u32, u32)>>,
        to_linker: std::sync::mpsc::SyncSender<Vec<(u32, u32)>>,
        from_linker: std::sync::mpsc::Receiver<Vec<(u32, u32)>>,
    },
}

/// The buffers' memory: two of [`LINK_BUFFER`] pairs.
pub const LINK_BUFFER_BYTES: u64 = 2 * LINK_BUFFER as u64 * std::mem::size_of::<(u32, u32)>() as u64;

/// Every pair of `pairs` linked into `parent`, on every core of the
/// current pool.
fn link_pairs(parent: &[AtomicU32], pairs: &[(u32, u32)]) {
    pairs.par_iter().with_min_len(1 << 10).for_each(|&(u, v)| link(parent, u, v));
}

impl<'a> Links<'a> {
    /// The buffers, and (outside a rayon pool) a linking thread in `scope`
    /// that links what it is handed into `parent` until they are dropped.
    pub(super) fn start<'scope: 'a>(scope: &'scope std::thread::Scope<'scope, '_>, parent: &'scope [AtomicU32]) -> Self {
        let pairs = Vec::new();
        if rayon::current_thread_index().is_some() {
            return Links { pairs, linking: Linking::InPlace(parent) };
        }
        let (to_linker, full) = std::sync::mpsc::sync_channel::<Vec<(u32, u32)>>(1);
        let (emptied, from_linker) = std::sync::mpsc::sync_channel(1);
        scope.spawn(move || {
            for mut pairs in full {
                link_pairs(parent, &pairs);
                pairs.clear();
                // the reader waits for it before it hands on another, or
                // has gone (an error): nothing more to link either way
                if emptied.send(pairs).is_err() {
                    break;
                }
            }
        });
        Links { pairs, linking: Linking::Thread { spare: Some(Vec::new()), to_linker, from_linker } }
    }

    /// Link `u` and `v` with the buffer's other pairs. A buffer takes its
    /// memory at its first pair: links that no pair is added to hold none
    /// (Afforest's sampling lanes use that memory while they scan).
    pub(super) fn add(&mut self, u: u32, v: u32) {
        if self.pairs.capacity() == 0 {
            self.pairs.reserve_exact(LINK_BUFFER);
        }
        self.pairs.push((u, v));
        if self.pairs.len() == LINK_BUFFER {
            self.hand_over();
        }
    }

    /// The linking thread's buffer back, linked.
    fn take_back(&mut self) {
        if let Linking::Thread { spare: spare @ None, from_linker, .. } = &mut self.linking {
            // the thread sends every buffer back; it stops only when this is dropped
            *spare = Some(from_linker.recv().expect("the linking thread sends every buffer back"));
        }
    }

    /// Hand the full buffer to the linking thread and fill the other (or
    /// link it in place).
    fn hand_over(&mut self) {
        self.take_back();
        match &mut self.linking {
            Linking::InPlace(parent) => {
                link_pairs(parent, &self.pairs);
                self.pairs.clear();
            }
            Linking::Thread { spare, to_linker, .. } => {
                let next = spare.take().unwrap_or_default();
                let full = std::mem::replace(&mut self.pairs, next);
                to_linker.send(full).expect("the linking thread runs until the buffers are dropped");
            }
        }
    }

    /// Every pair added so far linked.
    pub(super) fn flush(&mut self) {
        if !self.pairs.is_empty() {
            self.hand_over();
        }
        self.take_back();
    }
}
