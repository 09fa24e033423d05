//! In-memory neighbours gathered by the search itself: NETALX's hot lists
//! (Iwabuchi, thesis section 3.4.3) where the store has no `hot` layout,
//! without a scan of the whole adjacency before the search to build them.
//!
//! A bottom-up step that reads a vertex's whole list and finds no parent
//! in it keeps the list's hottest neighbours (highest degree first, as the
//! `hot` layout ranks them) for the next bottom-up steps: only the vertices
//! still unvisited after a step need them, and their lists were just read.
//! A vertex visited before is never checked again, so its list is never
//! ranked; on Kronecker scale 25 from its hub, the first bottom-up step
//! reads 16.4 M lists and leaves 1.8 M vertices for the next.
//!
//! The kept lists live in blocks of [`SWEEP_BLOCK`] vertices (the units of
//! the bottom-up sweep), each in vertex order. They take at most the room
//! the budget gave them; when a step finds more than fit, every kept list
//! is cut to half as many neighbours (its hottest stay) and the next steps
//! keep that many.

use super::hybrid::SWEEP_BLOCK;
use outcore_io::{Budget, Reservation};

/// Neighbours kept per vertex at first.
pub const MAX_TAKE: usize = 8;

/// The kept neighbours of one block of [`SWEEP_BLOCK`] vertices.
#[derive(Clone, Debug, Default)]
pub struct GatheredBlock {
    /// Offsets in the block of the vertices with kept neighbours, ascending.
    at: Vec<u16>,
    /// Where each one's neighbours start in `ids`; one more at the end.
    starts: Vec<u32>,
    ids: Vec<u32>,
}

/// Memory of one kept vertex with `len` neighbours: its offset, its start
/// and its neighbours.
pub const fn entry_bytes(len: usize) -> u64 {
    2 + 4 + 4 * len as u64
}

impl GatheredBlock {
    /// Bytes of the block's vectors (allocated at their exact sizes).
    pub fn bytes(&self) -> u64 {
        (self.at.capacity() * 2 + self.starts.capacity() * 4 + self.ids.capacity() * 4) as u64
    }

    /// The kept vertices in order, as (offset in the block, neighbours).
    pub fn rows(&self) -> impl Iterator<Item = (usize, &[u32])> + '_ {
        self.at.iter().enumerate().map(move |(i, &at)| (at as usize, &self.ids[self.starts[i] as usize..self.starts[i + 1] as usize]))
    }

    /// The most merging `adds` takes beyond what the block holds: their
    /// entries and the block's first start, and, where a merge in the
    /// middle builds the block anew, the old block beside the new.
    fn merge_bytes(&self, adds: &BlockAdds) -> u64 {
        let entries = adds.at.len() as u64 * 6 + adds.ids.len() as u64 * 4 + 4;
        match (self.at.last(), adds.at.first()) {
            (Some(&last), Some(&first)) if first <= last => entries + self.bytes(),
            _ => entries,
        }
    }

    /// [`GatheredBlock::merge`] charged to `charge` (of `budget`): the most
    /// the merge takes is reserved first, and what the block grew by is
    /// kept. False, and nothing merged, where the budget cannot hold it.
    pub fn merge_charged(&mut self, adds: &BlockAdds, budget: &Budget, charge: &mut Reservation) -> bool {
        if adds.at.is_empty() {
            return true;
        }
        let before = self.bytes();
        let Ok(mut merging) = budget.reserve("hybrid BFS: neighbours its bottom-up steps keep", self.merge_bytes(adds)) else {
            return false;
        };
        self.merge(adds);
        merging.shrink_to(self.bytes().saturating_sub(before));
        charge.absorb(merging);
        true
    }

    /// Whether the vertex at offset `at` keeps neighbours.
    pub fn holds(&self, at: u16) -> bool {
        self.at.binary_search(&at).is_ok()
    }

    /// Add the vertices of `adds` (none of them kept already), each vector
    /// grown once to its exact size.
    fn merge(&mut self, adds: &BlockAdds) {
        if adds.at.is_empty() {
            return;
        }
        let appends = self.at.last().is_none_or(|&last| last < adds.at[0]);
        if appends {
            if self.starts.is_empty() {
                self.starts.reserve_exact(1);
                self.starts.push(0);
            }
            self.at.reserve_exact(adds.at.len());
            self.starts.reserve_exact(adds.at.len());
            self.ids.reserve_exact(adds.ids.len());
            self.at.extend_from_slice(&adds.at);
            let mut end = *self.starts.last().unwrap();
            for &len in &adds.lens {
                end += len;
                self.starts.push(end);
            }
            self.ids.extend_from_slice(&adds.ids);
            return;
        }
        // a vertex before the last kept one: merge the two in order
        let mut merged = GatheredBlock {
            at: Vec::with_capacity(self.at.len() + adds.at.len()),
            starts: Vec::with_capacity(self.at.len() + adds.at.len() + 1),
            ids: Vec::with_capacity(self.ids.len() + adds.ids.len()),
        };
        merged.starts.push(0);
        let mut added = adds.rows().peekable();
        let push = |m: &mut GatheredBlock, at: u16, ids: &[u32]| {
            m.at.push(at);
            m.ids.extend_from_slice(ids);
            m.starts.push(m.ids.len() as u32);
        };
        for (at, ids) in self.rows() {
            while let Some((a, new)) = added.next_if(|&(a, _)| (a as usize) < at) {
                push(&mut merged, a, new);
            }
            push(&mut merged, at as u16, ids);
        }
        for (a, new) in added {
            push(&mut merged, a, new);
        }
        *self = merged;
    }

    /// Keep each vertex's first `take` neighbours only, in vectors of the
    /// exact new size.
    fn cut(&mut self, take: usize) {
        let mut cut = GatheredBlock {
            at: self.at.clone(),
            starts: Vec::with_capacity(self.starts.len()),
            ids: Vec::with_capacity(self.rows().map(|(_, ids)| ids.len().min(take)).sum()),
        };
        cut.starts.push(0);
        for (_, ids) in self.rows() {
            cut.ids.extend_from_slice(&ids[..ids.len().min(take)]);
            cut.starts.push(cut.ids.len() as u32);
        }
        if cut.at.is_empty() {
            cut.starts.clear();
            cut.starts.shrink_to_fit();
        }
        *self = cut;
    }
}

/// The vertices a part of a step gathers in one block, in order, before
/// they join the block ([`Gathered::merge`]).
#[derive(Debug, Default)]
pub struct BlockAdds {
    pub block: usize,
    at: Vec<u16>,
    lens: Vec<u32>,
    ids: Vec<u32>,
}

impl BlockAdds {
    /// Most memory a block's adds take: every vertex of the block with
    /// [`MAX_TAKE`] neighbours.
    pub const fn most_bytes() -> u64 {
        SWEEP_BLOCK * (2 + 4 + 4 * MAX_TAKE as u64)
    }

    /// Empty adds for `block`, with room for a whole block's vertices.
    pub fn with_room(block: usize) -> Self {
        let n = SWEEP_BLOCK as usize;
        BlockAdds { block, at: Vec::with_capacity(n), lens: Vec::with_capacity(n), ids: Vec::with_capacity(n * MAX_TAKE) }
    }

    /// Start over for `block`.
    pub fn reset(&mut self, block: usize) {
        self.block = block;
        self.at.clear();
        self.lens.clear();
        self.ids.clear();
    }

    /// Vertex `v` (in this block, after any added) keeps `ids`.
    pub fn push(&mut self, v: u64, ids: impl Iterator<Item = u32>) {
        let before = self.ids.len();
        self.ids.extend(ids);
        self.at.push((v % SWEEP_BLOCK) as u16);
        self.lens.push((self.ids.len() - before) as u32);
    }

    fn rows(&self) -> impl Iterator<Item = (u16, &[u32])> + '_ {
        let mut start = 0usize;
        self.at.iter().zip(&self.lens).map(move |(&at, &len)| {
            let ids = &self.ids[start..start + len as usize];
            start += len as usize;
            (at, ids)
        })
    }
}

/// The kept neighbours of every block, and the room they may take.
#[derive(Debug)]
pub struct Gathered {
    take: usize,
    blocks: Vec<GatheredBlock>,
    /// Bytes the kept lists take.
    held: u64,
    /// Bytes they may take.
    room: u64,
    kept: u64,
    /// Times the kept lists were cut to half as many neighbours.
    pub halvings: u32,
}

impl Gathered {
    /// Memory of the blocks' empty vectors over `n` vertices: what the
    /// lists take before any is kept.
    pub fn fixed_bytes(n: u64) -> u64 {
        // and the first start of each block that keeps any
        n.div_ceil(SWEEP_BLOCK) * (std::mem::size_of::<GatheredBlock>() as u64 + 4)
    }

    /// No lists kept yet over `n` vertices; they may take `room` bytes
    /// besides [`Gathered::fixed_bytes`].
    pub fn new(n: u64, room: u64) -> Self {
        Gathered {
            take: MAX_TAKE,
            blocks: vec![GatheredBlock::default(); n.div_ceil(SWEEP_BLOCK) as usize],
            held: 0,
            room,
            kept: 0,
            halvings: 0,
        }
    }

    /// Neighbours a vertex gathered now keeps (at most).
    pub fn take(&self) -> usize {
        self.take
    }

    /// Vertices the lists are over.
    pub fn blocks(&self) -> u64 {
        self.blocks.len() as u64 * SWEEP_BLOCK
    }

    /// Vertices with kept neighbours.
    pub fn kept(&self) -> u64 {
        self.kept
    }

    /// Bytes the kept lists take.
    pub fn held(&self) -> u64 {
        self.held
    }

    /// Bytes the kept lists may still grow by.
    pub fn room_left(&self) -> u64 {
        self.room.saturating_sub(self.held)
    }

    pub fn block(&self, b: usize) -> &GatheredBlock {
        &self.blocks[b]
    }

    /// Every block, for parts of a step that each own a run of them;
    /// [`Gathered::recount`] after.
    pub fn blocks_mut(&mut self) -> &mut [GatheredBlock] {
        &mut self.blocks
    }

    /// Count again what the blocks hold, after [`Gathered::blocks_mut`].
    pub fn recount(&mut self) {
        self.held = self.blocks.iter().map(GatheredBlock::bytes).sum();
        self.kept = self.blocks.iter().map(|b| b.at.len() as u64).sum();
    }

    /// Add a batch's vertices of one block, charged to `charge` (of
    /// `budget`); false, and nothing added, where the budget cannot hold
    /// them.
    pub fn merge(&mut self, adds: &BlockAdds, budget: &Budget, charge: &mut Reservation) -> bool {
        let block = &mut self.blocks[adds.block];
        let before = block.bytes();
        if !block.merge_charged(adds, budget, charge) {
            return false;
        }
        self.held = self.held - before + block.bytes();
        self.kept += adds.at.len() as u64;
        true
    }

    /// A step found more lists to keep than there was room for: cut every
    /// kept list to half as many neighbours, and keep that many from now
    /// on (at least one). Each block is built anew beside the old one: the
    /// largest block is charged to `budget` meanwhile.
    pub fn halve(&mut self, budget: &Budget) {
        if self.take <= 1 {
            return;
        }
        let largest = self.blocks.iter().map(GatheredBlock::bytes).max().unwrap_or(0);
        let Ok(_cutting) = budget.reserve("hybrid BFS: a block of kept neighbours cut", largest) else {
            return;
        };
        self.take /= 2;
        self.halvings += 1;
        let take = self.take;
        for block in &mut self.blocks {
            block.cut(take);
        }
        self.held = self.blocks.iter().map(GatheredBlock::bytes).sum();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn adds(block: usize, rows: &[(u64, &[u32])]) -> BlockAdds {
        let mut a = BlockAdds::with_room(block);
        for &(v, ids) in rows {
            a.push(v, ids.iter().copied());
        }
        a
    }

    /// Merge, charged to an unlimited budget.
    fn merge(g: &mut Gathered, adds: &BlockAdds) {
        let budget = Budget::unlimited();
        let mut charge = budget.reserve("test", 0).unwrap();
        assert!(g.merge(adds, &budget, &mut charge));
        std::mem::forget(charge);
    }

    fn rows(g: &Gathered, b: usize) -> Vec<(usize, Vec<u32>)> {
        g.block(b).rows().map(|(at, ids)| (at, ids.to_vec())).collect()
    }

    /// Adds after the last kept vertex append, adds before it merge in
    /// order; what the kept lists hold is what their vectors take.
    #[test]
    fn merged_rows_stay_in_vertex_order() {
        let mut g = Gathered::new(2 * SWEEP_BLOCK, 1 << 20);
        merge(&mut g, &adds(1, &[(SWEEP_BLOCK + 5, &[1, 2]), (SWEEP_BLOCK + 9, &[3])]));
        merge(&mut g, &adds(1, &[(SWEEP_BLOCK + 2, &[7, 8, 9]), (SWEEP_BLOCK + 7, &[]), (SWEEP_BLOCK + 11, &[4])]));
        assert_eq!(rows(&g, 1), vec![(2, vec![7, 8, 9]), (5, vec![1, 2]), (7, vec![]), (9, vec![3]), (11, vec![4])]);
        assert!(rows(&g, 0).is_empty());
        assert_eq!(g.kept(), 5);
        assert_eq!(g.held(), g.blocks.iter().map(GatheredBlock::bytes).sum::<u64>());
        assert!(g.held() >= 5 * entry_bytes(0) + 7 * 4);
    }

    /// A merge is charged what the block grew by; one the budget cannot
    /// hold adds nothing.
    #[test]
    fn merges_are_charged_what_they_take() {
        let budget = Budget::new(1 << 20);
        let mut charge = budget.reserve("kept", 0).unwrap();
        let mut g = Gathered::new(SWEEP_BLOCK, 1 << 20);
        assert!(g.merge(&adds(0, &[(4, &[1, 2, 3]), (8, &[4])]), &budget, &mut charge));
        assert!(g.merge(&adds(0, &[(2, &[5, 6])]), &budget, &mut charge));
        assert_eq!(charge.bytes(), g.held());
        assert_eq!(budget.used(), g.held());
        let tight = Budget::new(10);
        let mut small = tight.reserve("kept", 0).unwrap();
        assert!(!g.merge(&adds(0, &[(9, &[7, 8, 9, 10])]), &tight, &mut small));
        assert_eq!((small.bytes(), tight.used(), g.kept()), (0, 0, 3));
        drop(charge);
        assert_eq!(budget.used(), 0);
    }

    /// Halving keeps each list's first neighbours (its hottest), and frees
    /// what it cut.
    #[test]
    fn halving_keeps_the_hottest() {
        let mut g = Gathered::new(SWEEP_BLOCK, 1 << 20);
        let long: Vec<u32> = (10..10 + MAX_TAKE as u32).collect();
        merge(&mut g, &adds(0, &[(0, &long), (3, &[5])]));
        let before = g.held();
        g.halve(&Budget::unlimited());
        assert_eq!(g.take(), MAX_TAKE / 2);
        assert_eq!(rows(&g, 0), vec![(0, long[..MAX_TAKE / 2].to_vec()), (3, vec![5])]);
        assert!(g.held() < before);
        while g.take() > 1 {
            g.halve(&Budget::unlimited());
        }
        g.halve(&Budget::unlimited());
        assert_eq!(g.take(), 1);
        assert_eq!(rows(&g, 0), vec![(0, vec![10]), (3, vec![5])]);
    }
}
