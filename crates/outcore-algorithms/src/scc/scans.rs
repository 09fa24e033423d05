//! Strongly connected components over sequential scans of `out` (the
//! traverse engine's cursor), in three steps, after Slota, Rajamanickam
//! and Madduri's Multistep (IPDPS 2014) with each step made of scans:
//!
//! 1. **Forward-backward from a pivot** (Fleischer, Hendrickson and Pinar
//!    2000): the vertex of largest out-degree x in-degree, almost surely in
//!    the giant component. Its forward set F grows by scans that mark the
//!    out-neighbours of marked vertices; its backward set B, restricted to
//!    F (a path from a vertex of F to the pivot stays inside F), grows by
//!    scans that mark a vertex with a marked out-neighbour. F and B are
//!    bitmaps, updated in place, so a scan carries marks along every path
//!    that follows store order.
//! 2. **Colouring rounds** (Orzan 2004) while what is left does not fit in
//!    memory: every vertex left takes the smallest id that reaches it
//!    (scans that push colours along out-edges), then each colour's own
//!    vertex, the colour's root, collects the vertices of its colour that
//!    reach it (scans as in step 1). A root is the smallest id of its
//!    component, and every round settles at least the smallest vertex left.
//! 3. **Tarjan in memory** on the subgraph left, once it fits the budget:
//!    one scan loads its arcs.
//!
//! Memory: a label and a colour a vertex (8 bytes) and two bitmaps; then
//! the subgraph left, charged before it is loaded, in the room the colours
//! and bitmaps leave (they are dropped first).

use crate::needs::EngineStats;
use crate::run::Context;
use outcore_io::{Bitmap, Reservation};
use outcore_store::{Layout, StoreError};

/// A vertex not yet in a component.
const LEFT: u32 = u32::MAX;

/// Memory besides the subgraph left: labels, colours and two bitmaps.
pub fn state_bytes(n: u64) -> u64 {
    n * 8 + 2 * n.div_ceil(64) * 8
}

pub struct Components {
    /// The smallest dense id of each vertex's component.
    pub labels: Vec<u32>,
    pub charge: Reservation,
    pub pivot_component: u64,
    pub colouring_rounds: u64,
    /// Vertices and arcs left to the in-memory step.
    pub left_vertices: u64,
    pub left_arcs: u64,
    pub stats: EngineStats,
}

/// Sequential scans of the `out` layout, counted.
struct Scans<'a> {
    out: &'a Layout,
    bytes: u64,
    passes: u64,
    layout_bytes: u64,
}

impl Scans<'_> {
    /// Call `f(u, out-neighbours)` for every vertex, in store order.
    fn each(&mut self, mut f: impl FnMut(u64, &[u64])) -> Result<(), StoreError> {
        let mut scan = self.out.scan()?;
        while let Some((u, targets, _)) = scan.next_list()? {
            f(u, targets);
        }
        self.bytes += self.layout_bytes;
        self.passes += 1;
        Ok(())
    }

    /// Repeat `step` (one scan, which says whether it changed anything)
    /// until a scan changes nothing.
    fn until_stable(&mut self, mut step: impl FnMut(u64, &[u64]) -> bool) -> Result<(), StoreError> {
        loop {
            let mut changed = false;
            self.each(|u, targets| changed |= step(u, targets))?;
            if !changed {
                return Ok(());
            }
        }
    }
}

pub fn scc(cx: &Context, in_memory_arcs: Option<u64>) -> Result<Components, StoreError> {
    let store = cx.store;
    let n = store.vertices();
    if n >= LEFT as u64 {
        return Err(StoreError::parameter("store", format!("SCC handles up to {} vertices (32-bit labels); this store has {n}", LEFT - 1)));
    }
    // the labels stay charged with the result; the colours and bitmaps
    // until Tarjan's step, which takes their room
    let charge = cx.budget.reserve("SCC labels", n * 4)?;
    let working = cx.budget.reserve("SCC colours and bitmaps", state_bytes(n) - n * 4)?;
    let _scans = crate::needs::charge_scans(cx.budget, store, &["out"])?;
    let out = store.layout("out")?;
    let mut scans = Scans { out: &out, bytes: 0, passes: 0, layout_bytes: store.layout_bytes("out") };
    let mut labels = vec![LEFT; n as usize];
    // the colours hold in-degrees first, to pick the pivot
    let mut colours = vec![0u32; n as usize];
    cx.progress().begin("scc", 0, false);

    // 1. forward-backward from the pivot
    let mut best = (0u64, 0u64);
    scans.each(|_, targets| {
        for &w in targets {
            colours[w as usize] = colours[w as usize].saturating_add(1);
        }
    })?;
    scans.each(|u, targets| {
        let product = targets.len() as u64 * colours[u as usize] as u64;
        if product > best.0 {
            best = (product, u);
        }
    })?;
    let pivot = best.1;
    let mut forward = Bitmap::new(n);
    let mut backward = Bitmap::new(n);
    let mut pivot_component = 0;
    if n > 0 {
        forward.set(pivot);
        scans.until_stable(|u, targets| {
            let mut changed = false;
            if forward.get(u) {
                for &w in targets {
                    if !forward.get(w) {
                        forward.set(w);
                        changed = true;
                    }
                }
            }
            changed
        })?;
        backward.set(pivot);
        scans.until_stable(|u, targets| {
            if forward.get(u) && !backward.get(u) && targets.iter().any(|&w| backward.get(w)) {
                backward.set(u);
                return true;
            }
            false
        })?;
        let mut smallest = None;
        for v in 0..n {
            if forward.get(v) && backward.get(v) {
                let s = *smallest.get_or_insert(v as u32);
                labels[v as usize] = s;
                pivot_component += 1;
            }
        }
    }
    cx.progress().set(1);

    // 2. colouring rounds until what is left fits in memory
    let mut colouring_rounds = 0u64;
    let (left_vertices, left_arcs) = loop {
        let left = labels.iter().filter(|&&l| l == LEFT).count() as u64;
        let mut arcs = 0u64;
        if left > 0 {
            scans.each(|u, targets| {
                if labels[u as usize] == LEFT {
                    arcs += targets.iter().filter(|&&w| labels[w as usize] == LEFT).count() as u64;
                }
            })?;
        }
        // Tarjan's step runs once the colours and bitmaps are dropped
        let room = cx.budget.available() + working.bytes();
        if left == 0 || (tarjan_bytes(left, arcs) <= room && in_memory_arcs.is_none_or(|most| arcs <= most)) {
            break (left, arcs);
        }
        colouring_rounds += 1;
        for (v, c) in colours.iter_mut().enumerate() {
            *c = v as u32;
        }
        scans.until_stable(|u, targets| {
            let mut changed = false;
            let cu = colours[u as usize];
            if labels[u as usize] == LEFT {
                for &w in targets {
                    if labels[w as usize] == LEFT && colours[w as usize] > cu {
                        colours[w as usize] = cu;
                        changed = true;
                    }
                }
            }
            changed
        })?;
        // each colour's root collects the vertices of its colour that reach it
        backward.clear();
        for v in 0..n {
            if labels[v as usize] == LEFT && colours[v as usize] == v as u32 {
                backward.set(v);
            }
        }
        scans.until_stable(|u, targets| {
            let cu = colours[u as usize];
            if labels[u as usize] == LEFT
                && !backward.get(u)
                && targets.iter().any(|&w| labels[w as usize] == LEFT && colours[w as usize] == cu && backward.get(w))
            {
                backward.set(u);
                return true;
            }
            false
        })?;
        for v in 0..n as usize {
            if labels[v] == LEFT && backward.get(v as u64) {
                labels[v] = colours[v];
            }
        }
        cx.progress().set(1 + colouring_rounds);
    };
    drop((forward, backward, colours, working));

    // 3. Tarjan on the subgraph left
    if left_vertices > 0 {
        let _left = cx.budget.reserve("the subgraph left to Tarjan's algorithm", tarjan_bytes(left_vertices, left_arcs))?;
        let mut ids: Vec<u32> = Vec::with_capacity(left_vertices as usize);
        ids.extend((0..n as u32).filter(|&v| labels[v as usize] == LEFT));
        let local = |v: u64| ids.binary_search(&(v as u32)).ok();
        let mut offsets = Vec::with_capacity(ids.len() + 1);
        let mut targets_left = Vec::with_capacity(left_arcs as usize);
        offsets.push(0u64);
        scans.each(|u, targets| {
            if labels[u as usize] == LEFT {
                targets_left.extend(targets.iter().filter_map(|&w| local(w)).map(|i| i as u32));
                offsets.push(targets_left.len() as u64);
            }
        })?;
        if targets_left.len() as u64 != left_arcs || offsets.len() != ids.len() + 1 {
            return Err(StoreError::invalid(store.dir(), "the out layout changed while SCC read it"));
        }
        tarjan(&offsets, &targets_left, |members| {
            let smallest = members.iter().map(|&m| ids[m as usize]).min().expect("a component has a member");
            for &m in members {
                labels[ids[m as usize] as usize] = smallest;
            }
        });
    }
    cx.progress().end();
    Ok(Components {
        labels,
        charge,
        pivot_component,
        colouring_rounds,
        left_vertices,
        left_arcs,
        stats: EngineStats::Scan { bytes_read: scans.bytes, passes: scans.passes },
    })
}

/// Memory of Tarjan's step on `vertices` and `arcs`: the ids (4 bytes a
/// vertex), the CSR (8 and 4 an arc), and per vertex its index, low link
/// (4 each), stack flag (1), stack slot (4) and call frame (16), each
/// vector allocated once at its largest.
fn tarjan_bytes(vertices: u64, arcs: u64) -> u64 {
    vertices * (4 + 8 + 4 + 4 + 1 + 4 + std::mem::size_of::<(u32, u64)>() as u64) + arcs * 4
}

/// Tarjan's algorithm (iterative) over a CSR of local vertices 0..n:
/// `component` sees each strongly connected component's members (a slice
/// of the stack, so that no component is a vector of its own).
fn tarjan(offsets: &[u64], targets: &[u32], mut component: impl FnMut(&[u32])) {
    let n = offsets.len().saturating_sub(1);
    const NONE: u32 = u32::MAX;
    let mut index = vec![NONE; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    // a vertex enters each at most once
    let mut stack: Vec<u32> = Vec::with_capacity(n);
    let mut calls: Vec<(u32, u64)> = Vec::with_capacity(n);
    let mut next_index = 0u32;
    for s in 0..n as u32 {
        if index[s as usize] != NONE {
            continue;
        }
        calls.push((s, offsets[s as usize]));
        index[s as usize] = next_index;
        low[s as usize] = next_index;
        next_index += 1;
        stack.push(s);
        on_stack[s as usize] = true;
        while let Some(&mut (v, ref mut at)) = calls.last_mut() {
            let vi = v as usize;
            if *at < offsets[vi + 1] {
                let w = targets[*at as usize];
                *at += 1;
                let wi = w as usize;
                if index[wi] == NONE {
                    index[wi] = next_index;
                    low[wi] = next_index;
                    next_index += 1;
                    stack.push(w);
                    on_stack[wi] = true;
                    calls.push((w, offsets[wi]));
                } else if on_stack[wi] {
                    low[vi] = low[vi].min(index[wi]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(parent, _)) = calls.last() {
                low[parent as usize] = low[parent as usize].min(low[vi]);
            }
            if low[vi] == index[vi] {
                // the component: v and everything above it on the stack
                let mut start = stack.len();
                loop {
                    start -= 1;
                    let w = stack[start];
                    on_stack[w as usize] = false;
                    if w == v {
                        break;
                    }
                }
                component(&stack[start..]);
                stack.truncate(start);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tarjan_finds_cycles_and_singletons() {
        // local 0 -> 1 -> 2 -> 0, 2 -> 3, 3 alone; ids 10, 11, 12, 13
        let offsets = [0u64, 1, 2, 4, 4];
        let targets = [1u32, 2, 0, 3];
        let ids = [10u32, 11, 12, 13];
        let mut got: Vec<(Vec<u32>, u32)> = Vec::new();
        tarjan(&offsets, &targets, |members| {
            let mut m = members.to_vec();
            m.sort();
            got.push((m, members.iter().map(|&m| ids[m as usize]).min().unwrap()));
        });
        got.sort_by_key(|c| c.1);
        assert_eq!(got, vec![(vec![0, 1, 2], 10), (vec![3], 13)]);
    }
}
