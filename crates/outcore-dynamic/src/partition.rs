//! One partition of the degree-aware store (DegAwareRHH, thesis section
//! 4.3): a low-degree table holding the edges of every vertex with fewer
//! than `threshold` distinct out-neighbours, keyed by source, and a vertex
//! table whose entries point to a per-vertex edge table (an "edge chunk")
//! for the rest. All three are Robin Hood tables in the partition's heap.
//!
//! Threshold rule (the thesis moves up at `== T` on insert but down at
//! `<= T` on delete; we keep one invariant instead): a vertex's edges are
//! in an edge chunk exactly when it has at least `threshold` distinct
//! out-neighbours. An insert that reaches it moves the vertex up, a
//! delete that falls below it moves it down.
//!
//! Slot bodies (after the management byte), little-endian, unaligned:
//! - low table: source u64, target u64, [count u32], [weight f32]
//! - vertex table: id u64, chunk offset u64 (bit 63: explicit vertex), property u64
//! - edge chunk: target u64, [count u32], [weight f32]
//!
//! `count` exists in multigraph stores (parallel edges are one slot with a
//! multiplicity); `weight` in weighted stores. A chunk starts with a
//! 24-byte header: live u32, tombstones u32, degree u64, epoch u32, log2
//! capacity u8, and 1 in the next byte if the chunk is larger than its
//! count asked because its ids collide (then deletes do not shrink it).

use crate::error::{DynError, Result};
use crate::heap::{Heap, MaybeUndo};
use crate::rhh::{capacity_for, over_load, NoUndo, Overfull, Table};

/// Chunk pointers with this bit belong to vertices that exist on their own
/// (inserted or given a property), not only through their edges.
const EXPLICIT: u64 = 1 << 63;
const CHUNK_HEADER: u64 = 24;
const MIN_CHUNK: u64 = 4;
const MIN_TABLE: u64 = 1024;
const VERTEX_SLOT: usize = 25;
/// Chunk arenas per partition (a power of two).
pub const ARENAS: usize = 32;
/// Chunk pointers: arena in bits 48..63, offset in the arena below.
const ARENA_SHIFT: u32 = 48;
const OFFSET_MASK: u64 = (1 << ARENA_SHIFT) - 1;

/// The arena of a source vertex's chunk.
#[inline]
fn arena_for(u: u64) -> usize {
    (crate::hash::mix(u) >> (64 - ARENAS.trailing_zeros())) as usize
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Config {
    pub weighted: bool,
    pub multigraph: bool,
    /// Vertices with at least this many distinct out-neighbours get an edge chunk.
    pub threshold: u32,
}

impl Config {
    fn edge_body(&self) -> usize {
        8 + 4 * self.multigraph as usize + 4 * self.weighted as usize
    }
    fn count_at(&self) -> usize {
        8
    }
    fn weight_at(&self) -> usize {
        8 + 4 * self.multigraph as usize
    }
}

/// A table's place in the heap; persisted with each commit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TableDesc {
    pub off: u64,
    pub cap: u64,
    pub live: u64,
    pub tombs: u64,
    pub epoch: u32,
}

/// Counters of a partition; persisted with each commit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Counts {
    /// Edges, parallel ones counted.
    pub arcs: u64,
    /// Vertices with an edge chunk.
    pub chunked: u64,
    pub moves_up: u64,
    pub moves_down: u64,
    pub grows: u64,
    pub rehashes: u64,
}

impl Counts {
    pub fn add(&mut self, o: &Counts) {
        self.arcs += o.arcs;
        self.chunked += o.chunked;
        self.moves_up += o.moves_up;
        self.moves_down += o.moves_down;
        self.grows += o.grows;
        self.rehashes += o.rehashes;
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inserted {
    New,
    /// A parallel edge (multigraph) or an ignored duplicate (unique store).
    Existing,
}

/// One edge as read back.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Edge {
    pub target: u64,
    pub count: u32,
    pub weight: f32,
}

pub struct Partition {
    pub cfg: Config,
    /// The shared tables (low-degree and vertex).
    pub heap: Heap,
    /// Edge chunks, in [`ARENAS`] heaps by the top bits of the source's
    /// hash: a batch, sorted by hash, visits them one after the other, so
    /// out of core its working set is one arena at a time.
    pub arenas: Vec<Heap>,
    pub low: TableDesc,
    pub vertices: TableDesc,
    pub counts: Counts,
}

/// A slot body built on the stack (at most 8 + 8 + 4 + 4 bytes).
#[derive(Default)]
struct Body {
    bytes: [u8; 24],
    len: usize,
}

impl Body {
    #[inline]
    fn push(&mut self, b: &[u8]) {
        self.bytes[self.len..self.len + b.len()].copy_from_slice(b);
        self.len += b.len();
    }
    #[inline]
    fn as_slice(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// A vertex table slot body: id, chunk pointer (with its flag), property.
fn vertex_body(u: u64, chunk: u64, property: u64) -> [u8; 24] {
    let mut b = [0u8; 24];
    b[..8].copy_from_slice(&u.to_le_bytes());
    b[8..16].copy_from_slice(&chunk.to_le_bytes());
    b[16..].copy_from_slice(&property.to_le_bytes());
    b
}

impl Partition {
    pub fn create(cfg: Config, mut heap: Heap, arenas: Vec<Heap>) -> Result<Partition> {
        let low = new_table(&mut heap, MIN_TABLE, 1 + 8 + cfg.edge_body())?;
        let vertices = new_table(&mut heap, MIN_TABLE, VERTEX_SLOT)?;
        Ok(Partition { cfg, heap, arenas, low, vertices, counts: Counts::default() })
    }

    /// Open a partition at its committed tables. The descriptors come from
    /// `STATE`, a file people may hand each other: a table that is not a
    /// table (a capacity that is not a power of two, more entries than
    /// slots) or that does not lie inside the committed heap is an error
    /// naming `state`, not a later panic.
    pub fn open(
        cfg: Config,
        heap: Heap,
        arenas: Vec<Heap>,
        low: TableDesc,
        vertices: TableDesc,
        counts: Counts,
        state: &std::path::Path,
    ) -> Result<Partition> {
        let p = Partition { cfg, heap, arenas, low, vertices, counts };
        for (name, t, slot) in [("low-degree", &p.low, p.low_slot()), ("vertex", &p.vertices, VERTEX_SLOT)] {
            let fits = t.cap.is_power_of_two()
                && t.cap >= 2
                && t.off >= crate::heap::HEAP_START
                && t.live.checked_add(t.tombs).is_some_and(|n| n <= t.cap)
                && t.cap.checked_mul(slot as u64).and_then(|b| b.checked_add(t.off)).is_some_and(|end| end <= p.heap.end);
            if !fits {
                return Err(DynError::Corrupt(format!(
                    "{}: the {name} table ({} slots at byte {}, {} live, {} removed) is not a table inside its heap of {} bytes",
                    state.display(),
                    t.cap,
                    t.off,
                    t.live,
                    t.tombs,
                    p.heap.end
                )));
            }
        }
        Ok(p)
    }

    fn low_slot(&self) -> usize {
        1 + 8 + self.cfg.edge_body()
    }
    fn edge_slot(&self) -> usize {
        1 + self.cfg.edge_body()
    }
    // The tables below are views used only inside this partition's
    // methods, on the thread that owns the partition and its heaps, and
    // never kept past the method: the SAFETY of each `Heap::table` call.
    fn low_table(&self) -> Table {
        // SAFETY: see above; the partition owns `heap` for its whole life.
        unsafe { self.heap.table(self.low.off, self.low.cap, self.low_slot()) }
    }
    fn vertex_table(&self) -> Table {
        // SAFETY: see above.
        unsafe { self.heap.table(self.vertices.off, self.vertices.cap, VERTEX_SLOT) }
    }
    /// The tables heap, then every arena.
    pub fn heaps(&self) -> impl Iterator<Item = &Heap> {
        std::iter::once(&self.heap).chain(self.arenas.iter())
    }
    pub fn heaps_mut(&mut self) -> impl Iterator<Item = &mut Heap> {
        std::iter::once(&mut self.heap).chain(self.arenas.iter_mut())
    }
    #[inline]
    fn arena(&self, chunk: u64) -> &Heap {
        &self.arenas[(chunk >> ARENA_SHIFT) as usize]
    }
    #[inline]
    fn arena_mut(&mut self, chunk: u64) -> &mut Heap {
        &mut self.arenas[(chunk >> ARENA_SHIFT) as usize]
    }
    /// The chunk header's u32 / u64 / u8 at byte `at`.
    #[inline]
    fn chunk_u32(&self, chunk: u64, at: u64) -> u32 {
        self.arena(chunk).read_u32((chunk & OFFSET_MASK) + at)
    }
    #[inline]
    fn chunk_u64(&self, chunk: u64, at: u64) -> u64 {
        self.arena(chunk).read_u64((chunk & OFFSET_MASK) + at)
    }
    fn chunk_undo(&mut self, chunk: u64, fresh: bool) -> MaybeUndo<'_> {
        MaybeUndo(self.arena_mut(chunk).undo_for(fresh))
    }

    fn chunk_table(&self, chunk: u64) -> Table {
        let arena = self.arena(chunk);
        let cap = 1u64 << arena.read_u8((chunk & OFFSET_MASK) + 20);
        // SAFETY: as for the shared tables; the arena belongs to this partition.
        unsafe { arena.table((chunk & OFFSET_MASK) + CHUNK_HEADER, cap, self.edge_slot()) }
    }
    /// Whether the chunk had to be made larger than its count asked
    /// because its ids collide (header byte 21).
    fn chunk_collides(&self, chunk: u64) -> bool {
        self.arena(chunk).read_u8((chunk & OFFSET_MASK) + 21) != 0
    }
    fn chunk_fresh(&self, chunk: u64) -> bool {
        self.arena(chunk).fresh(chunk & OFFSET_MASK, self.chunk_u32(chunk, 16))
    }
    fn table_fresh(&self, d: &TableDesc) -> bool {
        self.heap.fresh(d.off, d.epoch)
    }

    /// The vertex table slot of `u` and its chunk offset (0 = none).
    #[inline]
    fn find_vertex(&self, u: u64) -> Option<(u64, u64)> {
        let t = self.vertex_table();
        t.probe(u, |_| true).map(|p| (p, t.read_u64(p, 9) & !EXPLICIT))
    }

    /// Bring the slots an update of edge `u -> v` will touch towards the
    /// cache: the vertex entry is read (a batch sweeps the vertex table in
    /// order, so it is usually cached), then the home slot of `v` in
    /// `u`'s chunk, or of `u` in the low-degree table, is prefetched.
    #[inline]
    pub fn prefetch(&self, u: u64, v: u64) {
        match self.find_vertex(u) {
            Some((_, chunk)) if chunk != 0 => {
                let t = self.chunk_table(chunk);
                self.arena(chunk).prefetch(chunk & OFFSET_MASK);
                t.prefetch(t.home(crate::hash::mix(v)));
            }
            _ => {
                let t = self.low_table();
                t.prefetch(t.home(crate::hash::mix(u)));
            }
        }
    }

    /// Insert an edge.
    pub fn insert_edge(&mut self, u: u64, v: u64, w: f32) -> Result<Inserted> {
        let vertex = self.find_vertex(u);
        if let Some((_, chunk)) = vertex {
            if chunk != 0 {
                return self.chunk_insert(u, chunk, v, w);
            }
        }
        let lt = self.low_table();
        let mut distinct = 0u32;
        let hit = lt.probe(u, |p| {
            distinct += 1;
            lt.read_u64(p, 9) == v
        });
        if let Some(p) = hit {
            if self.cfg.multigraph {
                self.adjust_count(lt, p, None, 1, Some(w));
            }
            return Ok(Inserted::Existing);
        }
        self.counts.arcs += 1;
        if distinct + 1 >= self.cfg.threshold {
            self.move_up(u, vertex.map(|v| v.0), Some(Edge { target: v, count: 1, weight: w }), 0)?;
        } else {
            let body = self.low_body(u, Edge { target: v, count: 1, weight: w });
            self.low_insert(body.as_slice())?;
        }
        Ok(Inserted::New)
    }

    /// Multigraphs: add `delta` to the multiplicity of the slot at `pos`
    /// (in `chunk`, or in the low-degree table) and to the arc count, and
    /// take `weight` if given (an insert of a parallel edge).
    fn adjust_count(&mut self, t: Table, pos: u64, chunk: Option<u64>, delta: i32, weight: Option<f32>) {
        let cfg = self.cfg;
        let (key_bytes, fresh) = match chunk {
            Some(c) => (0, self.chunk_fresh(c)),
            None => (8, self.table_fresh(&self.low)),
        };
        {
            let mut undo = match chunk {
                Some(c) => self.chunk_undo(c, fresh),
                None => MaybeUndo(self.heap.undo_for(fresh)),
            };
            t.touch(pos, &mut undo);
        }
        let body = 1 + key_bytes;
        let count = t.read_u32(pos, body + cfg.count_at());
        t.write_u32(pos, body + cfg.count_at(), (count as i64 + delta as i64) as u32);
        if let (true, Some(w)) = (cfg.weighted, weight) {
            t.write_u32(pos, body + cfg.weight_at(), w.to_bits());
        }
        self.counts.arcs = (self.counts.arcs as i64 + delta as i64) as u64;
    }

    /// A chunk slot body: target, [count], [weight].
    fn edge_body(&self, v: u64, count: u32, w: f32) -> Body {
        let mut b = Body::default();
        b.push(&v.to_le_bytes());
        if self.cfg.multigraph {
            b.push(&count.to_le_bytes());
        }
        if self.cfg.weighted {
            b.push(&w.to_bits().to_le_bytes());
        }
        b
    }

    /// A low-degree slot body: source, then the chunk slot body.
    fn low_body(&self, u: u64, e: Edge) -> Body {
        let mut b = Body::default();
        b.push(&u.to_le_bytes());
        b.push(self.edge_body(e.target, e.count, e.weight).as_slice());
        b
    }

    /// The edge whose body starts at byte `at` of slot `pos` of `t`.
    fn read_edge(&self, t: &Table, pos: u64, at: usize) -> Edge {
        Edge {
            target: t.read_u64(pos, at),
            count: if self.cfg.multigraph { t.read_u32(pos, at + self.cfg.count_at()) } else { 1 },
            weight: if self.cfg.weighted { f32::from_bits(t.read_u32(pos, at + self.cfg.weight_at())) } else { 1.0 },
        }
    }

    fn low_insert(&mut self, body: &[u8]) -> Result<()> {
        let (mut d, slot) = (self.low, self.low_slot());
        table_insert(&mut self.heap, &mut d, slot, MIN_TABLE, body, &mut self.counts)?;
        self.low = d;
        Ok(())
    }

    fn vertex_insert(&mut self, body: &[u8]) -> Result<()> {
        let mut d = self.vertices;
        table_insert(&mut self.heap, &mut d, VERTEX_SLOT, MIN_TABLE, body, &mut self.counts)?;
        self.vertices = d;
        Ok(())
    }

    fn low_remove(&mut self, pos: u64) {
        let t = self.low_table();
        let mut undo = MaybeUndo(self.heap.undo_for(self.table_fresh(&self.low)));
        let gained = t.remove(pos, &mut undo);
        self.low.live -= 1;
        self.low.tombs = (self.low.tombs as i64 + gained).max(0) as u64;
    }

    /// The live low-table slots of `u`.
    fn low_slots(&self, u: u64) -> Vec<u64> {
        let lt = self.low_table();
        let mut out = Vec::new();
        lt.probe(u, |p| {
            out.push(p);
            false
        });
        out
    }

    /// `u` reached the threshold: its low-table edges (plus `extra`) go to
    /// a new chunk with room for `room` more.
    fn move_up(&mut self, u: u64, vertex_slot: Option<u64>, extra: Option<Edge>, room: u64) -> Result<()> {
        let lt = self.low_table();
        let slots = self.low_slots(u);
        let mut edges: Vec<Edge> = slots.iter().map(|&p| self.read_edge(&lt, p, 9)).collect();
        edges.extend(extra);
        for &p in &slots {
            self.low_remove(p);
        }
        let chunk = self.new_chunk_sized(u, &edges, capacity_for(edges.len() as u64 + room, MIN_CHUNK))?;
        match vertex_slot {
            Some(_) => self.set_chunk(u, chunk),
            None => self.vertex_insert(&vertex_body(u, chunk, 0))?,
        }
        self.counts.moves_up += 1;
        self.counts.chunked += 1;
        Ok(())
    }

    /// `u` fell below the threshold: its chunk's edges go to the low table.
    fn move_down(&mut self, u: u64, vp: u64, chunk: u64) -> Result<()> {
        let edges = self.chunk_edges(chunk);
        self.free_chunk(chunk);
        let vt = self.vertex_table();
        if vt.read_u64(vp, 9) & EXPLICIT != 0 {
            self.set_chunk(u, 0);
        } else {
            self.vertex_remove(vp);
        }
        for e in edges {
            let body = self.low_body(u, e);
            self.low_insert(body.as_slice())?;
        }
        self.counts.moves_down += 1;
        self.counts.chunked -= 1;
        Ok(())
    }

    fn vertex_remove(&mut self, vp: u64) {
        let t = self.vertex_table();
        let mut undo = MaybeUndo(self.heap.undo_for(self.table_fresh(&self.vertices)));
        let gained = t.remove(vp, &mut undo);
        self.vertices.live -= 1;
        self.vertices.tombs = (self.vertices.tombs as i64 + gained).max(0) as u64;
    }

    /// After a batch: shrink the shared tables if deletes emptied them.
    /// (Not during a batch: a batch sweeps the tables in hash order, so
    /// mid-batch the survivors crowd one end of the hash range.)
    pub fn maintain(&mut self) -> Result<()> {
        let (mut d, slot) = (self.low, self.low_slot());
        table_shrink(&mut self.heap, &mut d, slot, MIN_TABLE, &mut self.counts)?;
        self.low = d;
        let mut d = self.vertices;
        table_shrink(&mut self.heap, &mut d, VERTEX_SLOT, MIN_TABLE, &mut self.counts)?;
        self.vertices = d;
        Ok(())
    }

    /// Before `k` inserts from `u` in a row: give `u` room for them in one
    /// step (one chunk growth, or one move up instead of several moves
    /// through the low-degree table).
    pub fn prepare_inserts(&mut self, u: u64, k: u64) -> Result<()> {
        let vertex = self.find_vertex(u);
        if let Some((_, chunk)) = vertex {
            if chunk != 0 {
                let (live, tombs) = self.chunk_counts(chunk);
                if over_load(live + tombs + k, self.chunk_table(chunk).cap()) {
                    self.replace_chunk(u, chunk, capacity_for(live + k, MIN_CHUNK))?;
                    self.counts.grows += 1;
                }
                return Ok(());
            }
        }
        if k > 1 && self.low_slots(u).len() as u64 + k >= self.cfg.threshold as u64 {
            self.move_up(u, vertex.map(|v| v.0), None, k)?;
        }
        Ok(())
    }

    /// After a run of inserts prepared by [`Self::prepare_inserts`]: if
    /// duplicates left `u`'s chunk below the threshold, move it down.
    pub fn settle(&mut self, u: u64) -> Result<()> {
        if let Some((vp, chunk)) = self.find_vertex(u) {
            if chunk != 0 && self.chunk_counts(chunk).0 < self.cfg.threshold as u64 {
                self.move_down(u, vp, chunk)?;
            }
        }
        Ok(())
    }

    /// Point `u`'s vertex entry at `chunk` (0 = none), keeping its flag.
    fn set_chunk(&mut self, u: u64, chunk: u64) {
        let t = self.vertex_table();
        let vp = t.probe(u, |_| true).expect("vertex entry");
        let mut undo = MaybeUndo(self.heap.undo_for(self.table_fresh(&self.vertices)));
        t.touch(vp, &mut undo);
        t.write_u64(vp, 9, (t.read_u64(vp, 9) & EXPLICIT) | chunk);
    }

    fn free_chunk(&mut self, chunk: u64) {
        let cap = self.chunk_table(chunk).cap();
        let fresh = self.chunk_fresh(chunk);
        let size = CHUNK_HEADER + Table::bytes(cap, self.edge_slot());
        self.arena_mut(chunk).free(chunk & OFFSET_MASK, size, fresh);
    }

    fn chunk_edges(&self, chunk: u64) -> Vec<Edge> {
        let t = self.chunk_table(chunk);
        // the header's count, but never more than the table holds
        let mut out = Vec::with_capacity((self.chunk_u32(chunk, 0) as u64).min(t.cap()) as usize);
        t.for_each_live(|p| out.push(self.read_edge(&t, p, 1)));
        out
    }

    /// Replace `u`'s chunk by a new one with the same edges: twice the
    /// capacity (growth) or the smallest that fits (rehash).
    fn rebuild_chunk(&mut self, u: u64, chunk: u64, grow: bool) -> Result<u64> {
        // Room to grow: after a rebuild the load is at most 45%, so the next
        // rebuild is at least as many updates away as this one cost.
        let want = if grow { self.chunk_table(chunk).cap() * 2 } else { capacity_for(2 * self.chunk_counts(chunk).0 + 1, MIN_CHUNK) };
        if grow {
            self.counts.grows += 1;
        } else {
            self.counts.rehashes += 1;
        }
        self.replace_chunk(u, chunk, want)
    }

    /// Move `u`'s edges to a new chunk of at least `cap` slots.
    fn replace_chunk(&mut self, u: u64, chunk: u64, cap: u64) -> Result<u64> {
        let edges = self.chunk_edges(chunk);
        let fresh = self.new_chunk_sized(u, &edges, cap)?;
        self.free_chunk(chunk);
        self.set_chunk(u, fresh);
        Ok(fresh)
    }

    /// A new chunk for `u`'s edges in `u`'s arena, of at least `cap` slots.
    fn new_chunk_sized(&mut self, u: u64, edges: &[Edge], cap: u64) -> Result<u64> {
        let mut cap = cap.max(capacity_for(edges.len() as u64, MIN_CHUNK));
        let a = arena_for(u);
        let mut collided = false;
        loop {
            let size = CHUNK_HEADER + Table::bytes(cap, self.edge_slot());
            let base = self.arenas[a].alloc(size)?;
            let off = (a as u64) << ARENA_SHIFT | base;
            let heap = &mut self.arenas[a];
            heap.write_u32(base, edges.len() as u32);
            heap.write_u64(base + 8, edges.iter().map(|e| e.count as u64).sum());
            heap.write_u32(base + 16, heap.epoch);
            heap.write_u8(base + 20, cap.trailing_zeros() as u8);
            heap.write_u8(base + 21, collided as u8);
            let t = self.chunk_table(off);
            let mut ok = true;
            for e in edges {
                let body = self.edge_body(e.target, e.count, e.weight);
                if t.insert(body.as_slice(), &mut NoUndo).is_err() {
                    ok = false;
                    break;
                }
            }
            if ok {
                return Ok(off);
            }
            self.arenas[a].free(off & OFFSET_MASK, size, true);
            collided = true;
            cap *= 2;
        }
    }

    fn chunk_insert(&mut self, u: u64, mut chunk: u64, v: u64, w: f32) -> Result<Inserted> {
        let t = self.chunk_table(chunk);
        if let Some(p) = t.probe(v, |_| true) {
            if self.cfg.multigraph {
                self.adjust_count(t, p, Some(chunk), 1, Some(w));
                self.adjust_chunk(chunk, 0, 0, 1);
            }
            return Ok(Inserted::Existing);
        }
        let (live, tombs) = self.chunk_counts(chunk);
        if over_load(live + 1, t.cap()) {
            chunk = self.rebuild_chunk(u, chunk, true)?;
        } else if over_load(live + tombs + 1, t.cap()) {
            chunk = self.rebuild_chunk(u, chunk, false)?;
        }
        loop {
            let t = self.chunk_table(chunk);
            let body = self.edge_body(v, 1, w);
            let fresh = self.chunk_fresh(chunk);
            match t.insert(body.as_slice(), &mut self.chunk_undo(chunk, fresh)) {
                Ok(_) => break,
                Err(Overfull) => chunk = self.rebuild_chunk(u, chunk, true)?,
            }
        }
        self.adjust_chunk(chunk, 1, 0, 1);
        self.counts.arcs += 1;
        Ok(Inserted::New)
    }

    fn chunk_counts(&self, chunk: u64) -> (u64, u64) {
        (self.chunk_u32(chunk, 0) as u64, self.chunk_u32(chunk, 4) as u64)
    }

    /// Adjust a chunk header: live slots, tombstones and degree.
    fn adjust_chunk(&mut self, chunk: u64, live: i64, tombs: i64, degree: i64) {
        let fresh = self.chunk_fresh(chunk);
        let h = chunk & OFFSET_MASK;
        let heap = self.arena_mut(chunk);
        heap.save(h, 16, fresh);
        heap.write_u32(h, (heap.read_u32(h) as i64 + live) as u32);
        heap.write_u32(h + 4, (heap.read_u32(h + 4) as i64 + tombs).max(0) as u32);
        heap.write_u64(h + 8, (heap.read_u64(h + 8) as i64 + degree) as u64);
    }

    /// Delete one edge (one copy of a parallel edge). False if absent.
    pub fn delete_edge(&mut self, u: u64, v: u64) -> Result<bool> {
        if let Some((vp, chunk)) = self.find_vertex(u) {
            if chunk != 0 {
                let t = self.chunk_table(chunk);
                let Some(p) = t.probe(v, |_| true) else { return Ok(false) };
                if self.read_edge(&t, p, 1).count > 1 {
                    self.adjust_count(t, p, Some(chunk), -1, None);
                    self.adjust_chunk(chunk, 0, 0, -1);
                    return Ok(true);
                }
                self.counts.arcs -= 1;
                let fresh = self.chunk_fresh(chunk);
                let gained = t.remove(p, &mut self.chunk_undo(chunk, fresh));
                self.adjust_chunk(chunk, -1, gained, -1);
                let (live, _) = self.chunk_counts(chunk);
                // shrink an eighth-full chunk, unless it is as large as it
                // is because its ids collide (a smaller one would not take
                // them, and every delete would rebuild it)
                if live < self.cfg.threshold as u64 {
                    self.move_down(u, vp, chunk)?;
                } else if t.cap() > MIN_CHUNK && live * 8 < t.cap() && !self.chunk_collides(chunk) {
                    self.rebuild_chunk(u, chunk, false)?;
                }
                return Ok(true);
            }
        }
        let lt = self.low_table();
        let Some(p) = lt.probe(u, |p| lt.read_u64(p, 9) == v) else { return Ok(false) };
        if self.read_edge(&lt, p, 9).count > 1 {
            self.adjust_count(lt, p, None, -1, None);
            return Ok(true);
        }
        self.counts.arcs -= 1;
        self.low_remove(p);
        Ok(true)
    }

    /// Delete `u` and its out-edges. Returns its distinct out-neighbours,
    /// or None if it did not exist as a source or explicit vertex.
    pub fn delete_vertex(&mut self, u: u64) -> Result<Option<Vec<u64>>> {
        let mut targets = Vec::new();
        let vertex = self.find_vertex(u);
        if let Some((vp, chunk)) = vertex {
            if chunk != 0 {
                for e in self.chunk_edges(chunk) {
                    targets.push(e.target);
                    self.counts.arcs -= e.count as u64;
                }
                self.free_chunk(chunk);
                self.counts.chunked -= 1;
            }
            self.vertex_remove(vp);
        }
        let lt = self.low_table();
        let slots = self.low_slots(u);
        for &p in &slots {
            let e = self.read_edge(&lt, p, 9);
            targets.push(e.target);
            self.counts.arcs -= e.count as u64;
            self.low_remove(p);
        }
        Ok((vertex.is_some() || !slots.is_empty()).then_some(targets))
    }

    /// Make `u` an explicit vertex, and set its property if given.
    pub fn upsert_vertex(&mut self, u: u64, property: Option<u64>) -> Result<()> {
        let t = self.vertex_table();
        if let Some(vp) = t.probe(u, |_| true) {
            let mut undo = MaybeUndo(self.heap.undo_for(self.table_fresh(&self.vertices)));
            t.touch(vp, &mut undo);
            t.write_u64(vp, 9, t.read_u64(vp, 9) | EXPLICIT);
            if let Some(x) = property {
                t.write_u64(vp, 17, x);
            }
            return Ok(());
        }
        self.vertex_insert(&vertex_body(u, EXPLICIT, property.unwrap_or(0)))
    }

    /// The property of an explicit or chunked vertex.
    pub fn property(&self, u: u64) -> Option<u64> {
        let t = self.vertex_table();
        t.probe(u, |_| true).map(|vp| t.read_u64(vp, 17))
    }

    /// Out-degree, parallel edges counted.
    pub fn degree(&self, u: u64) -> u64 {
        if let Some((_, chunk)) = self.find_vertex(u) {
            if chunk != 0 {
                return self.chunk_u64(chunk, 8);
            }
        }
        let mut d = 0;
        self.for_each_low(u, |e| d += e.count as u64);
        d
    }

    fn for_each_low(&self, u: u64, mut f: impl FnMut(Edge)) {
        let lt = self.low_table();
        lt.probe(u, |p| {
            f(self.read_edge(&lt, p, 9));
            false
        });
    }

    /// Every out-edge of `u` (one call per distinct target).
    pub fn for_each_neighbour(&self, u: u64, mut f: impl FnMut(Edge)) {
        if let Some((_, chunk)) = self.find_vertex(u) {
            if chunk != 0 {
                let t = self.chunk_table(chunk);
                t.for_each_live(|p| f(self.read_edge(&t, p, 1)));
                return;
            }
        }
        self.for_each_low(u, f)
    }

    /// The edge `u -> v`, if present.
    pub fn edge(&self, u: u64, v: u64) -> Option<Edge> {
        if let Some((_, chunk)) = self.find_vertex(u) {
            if chunk != 0 {
                let t = self.chunk_table(chunk);
                return t.probe(v, |_| true).map(|p| self.read_edge(&t, p, 1));
            }
        }
        let lt = self.low_table();
        lt.probe(u, |p| lt.read_u64(p, 9) == v).map(|p| self.read_edge(&lt, p, 9))
    }

    /// Every vertex that has an entry or a low-degree edge, once.
    pub fn for_each_vertex(&self, mut f: impl FnMut(u64)) {
        let vt = self.vertex_table();
        vt.for_each_live(|p| f(vt.key(p)));
        let lt = self.low_table();
        lt.for_each_live(|p| {
            let u = lt.key(p);
            // Each low-degree source once: at its first slot in probe order,
            // and only if it has no vertex entry (which was listed above).
            let first = lt.probe(u, |_| true);
            if first == Some(p) && vt.probe(u, |_| true).is_none() {
                f(u)
            }
        });
    }

    /// Every edge: `f(source, edge)`, sources with chunks first.
    pub fn for_each_edge(&self, mut f: impl FnMut(u64, Edge)) {
        let vt = self.vertex_table();
        vt.for_each_live(|vp| {
            let chunk = vt.read_u64(vp, 9) & !EXPLICIT;
            if chunk != 0 {
                let u = vt.key(vp);
                let t = self.chunk_table(chunk);
                t.for_each_live(|p| f(u, self.read_edge(&t, p, 1)));
            }
        });
        let lt = self.low_table();
        lt.for_each_live(|p| f(lt.key(p), self.read_edge(&lt, p, 9)));
    }

    /// Table statistics for `stats`.
    pub fn table_stats(&self) -> TableStats {
        let (lt, vt) = (self.low_table(), self.vertex_table());
        let mut s = TableStats {
            low_slots: self.low.cap,
            low_live: self.low.live,
            low_tombstones: self.low.tombs,
            low_max_probe: lt.max_probe(),
            low_probe_sum: lt.probe_sum(),
            vertex_slots: self.vertices.cap,
            vertex_live: self.vertices.live,
            vertex_max_probe: vt.max_probe(),
            ..Default::default()
        };
        vt.for_each_live(|vp| {
            let chunk = vt.read_u64(vp, 9) & !EXPLICIT;
            if chunk != 0 {
                let t = self.chunk_table(chunk);
                let (live, tombs) = self.chunk_counts(chunk);
                s.chunks += 1;
                s.chunk_slots += t.cap();
                s.chunk_live += live;
                s.chunk_tombstones += tombs;
                s.chunk_max_probe = s.chunk_max_probe.max(t.max_probe());
                s.chunk_probe_sum += t.probe_sum();
            }
        });
        s
    }

    /// Whether a chunk reference read from a vertex slot names a table
    /// that lies inside its arena (checked before it is read, so that a
    /// damaged heap is reported, not a panic).
    fn chunk_fits(&self, chunk: u64) -> std::result::Result<(), String> {
        let (arena, off) = ((chunk >> ARENA_SHIFT) as usize, chunk & OFFSET_MASK);
        let Some(heap) = self.arenas.get(arena) else {
            return Err(format!("chunk {chunk:#x} names arena {arena} of {}", self.arenas.len()));
        };
        if off < crate::heap::HEAP_START || off.saturating_add(CHUNK_HEADER) > heap.end {
            return Err(format!("chunk at byte {off} lies outside its arena's {} bytes", heap.end));
        }
        let bits = heap.read_u8(off + 20);
        let fits = (1..=40).contains(&bits)
            && (1u64 << bits)
                .checked_mul(self.edge_slot() as u64)
                .and_then(|b| b.checked_add(off + CHUNK_HEADER))
                .is_some_and(|e| e <= heap.end);
        if !fits {
            return Err(format!("chunk at byte {off} claims 2^{bits} slots, more than its arena's {} bytes hold", heap.end));
        }
        Ok(())
    }

    /// Check the layout invariants (tests and `stats --check`): counts
    /// match the tables, the threshold rule holds for every source.
    pub fn check(&self) -> std::result::Result<(), String> {
        let vt = self.vertex_table();
        vt.check_slots().map_err(|e| format!("vertex table: {e}"))?;
        self.low_table().check_slots().map_err(|e| format!("low-degree table: {e}"))?;
        let mut arcs = 0u64;
        let mut chunked = 0u64;
        let mut live = 0u64;
        let mut bad = None;
        vt.for_each_live(|vp| {
            live += 1;
            let u = vt.key(vp);
            let chunk = vt.read_u64(vp, 9) & !EXPLICIT;
            if chunk != 0 {
                if let Err(e) = self.chunk_fits(chunk).and_then(|()| self.chunk_table(chunk).check_slots()) {
                    bad = Some(format!("vertex {u}: {e}"));
                    return;
                }
                chunked += 1;
                let edges = self.chunk_edges(chunk);
                let degree: u64 = edges.iter().map(|e| e.count as u64).sum();
                let (l, _) = self.chunk_counts(chunk);
                if l != edges.len() as u64 || degree != self.chunk_u64(chunk, 8) {
                    bad = Some(format!("vertex {u}: chunk header disagrees with its slots"));
                }
                if (edges.len() as u64) < self.cfg.threshold as u64 {
                    bad = Some(format!("vertex {u}: {} edges in a chunk, below the threshold", edges.len()));
                }
                if !self.low_slots(u).is_empty() {
                    bad = Some(format!("vertex {u}: edges in both tables"));
                }
                arcs += degree;
            }
        });
        if live != self.vertices.live {
            return Err(format!("vertex table: {live} live slots, {} counted", self.vertices.live));
        }
        let lt = self.low_table();
        let mut low_live = 0;
        lt.for_each_live(|p| {
            low_live += 1;
            let u = lt.key(p);
            arcs += self.read_edge(&lt, p, 9).count as u64;
            let n = self.low_slots(u).len() as u64;
            if n >= self.cfg.threshold as u64 {
                bad = Some(format!("vertex {u}: {n} edges in the low-degree table, at or above the threshold"));
            }
        });
        if low_live != self.low.live {
            return Err(format!("low table: {low_live} live slots, {} counted", self.low.live));
        }
        if let Some(b) = bad {
            return Err(b);
        }
        if chunked != self.counts.chunked || arcs != self.counts.arcs {
            return Err(format!("counts: {arcs} arcs and {chunked} chunks found, {:?} recorded", self.counts));
        }
        Ok(())
    }
}

#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct TableStats {
    pub low_slots: u64,
    pub low_live: u64,
    pub low_tombstones: u64,
    pub low_max_probe: u32,
    pub low_probe_sum: u64,
    pub vertex_slots: u64,
    pub vertex_live: u64,
    pub vertex_max_probe: u32,
    pub chunks: u64,
    pub chunk_slots: u64,
    pub chunk_live: u64,
    pub chunk_tombstones: u64,
    pub chunk_max_probe: u32,
    pub chunk_probe_sum: u64,
}

fn new_table(heap: &mut Heap, cap: u64, slot: usize) -> Result<TableDesc> {
    let off = heap.alloc(Table::bytes(cap, slot))?;
    Ok(TableDesc { off, cap, live: 0, tombs: 0, epoch: heap.epoch })
}

/// Rebuild a shared table at capacity `cap` (growth, or a rehash that
/// drops tombstones and shortens probe distances).
fn table_rebuild(heap: &mut Heap, d: &mut TableDesc, slot: usize, mut cap: u64) -> Result<()> {
    // SAFETY: (both tables) views of the heap the caller owns, used only
    // inside this function; the mapping does not move when the heap grows.
    let old = unsafe { heap.table(d.off, d.cap, slot) };
    loop {
        let fresh = new_table(heap, cap, slot)?;
        // SAFETY: as above.
        let t = unsafe { heap.table(fresh.off, cap, slot) };
        if old.rehash_into(&t).is_ok() {
            heap.free(d.off, Table::bytes(d.cap, slot), heap.fresh(d.off, d.epoch));
            *d = TableDesc { live: d.live, tombs: 0, ..fresh };
            return Ok(());
        }
        heap.free(fresh.off, Table::bytes(cap, slot), true);
        cap *= 2;
    }
}

fn table_insert(heap: &mut Heap, d: &mut TableDesc, slot: usize, min: u64, body: &[u8], counts: &mut Counts) -> Result<()> {
    if over_load(d.live + 1, d.cap) {
        table_rebuild(heap, d, slot, d.cap * 2)?;
        counts.grows += 1;
    } else if over_load(d.live + d.tombs + 1, d.cap) {
        table_rebuild(heap, d, slot, capacity_for(2 * (d.live + 1), min))?;
        counts.rehashes += 1;
    }
    loop {
        // SAFETY: a view of the heap the caller owns, used only in this iteration.
        let t = unsafe { heap.table(d.off, d.cap, slot) };
        let fresh = heap.fresh(d.off, d.epoch);
        match t.insert(body, &mut MaybeUndo(heap.undo_for(fresh))) {
            Ok(_) => {
                d.live += 1;
                return Ok(());
            }
            Err(Overfull) => {
                table_rebuild(heap, d, slot, d.cap * 2)?;
                counts.grows += 1;
            }
        }
    }
}

fn table_shrink(heap: &mut Heap, d: &mut TableDesc, slot: usize, min: u64, counts: &mut Counts) -> Result<()> {
    if d.cap > min && d.live * 8 < d.cap {
        table_rebuild(heap, d, slot, capacity_for(2 * d.live, min))?;
        counts.rehashes += 1;
    }
    Ok(())
}
