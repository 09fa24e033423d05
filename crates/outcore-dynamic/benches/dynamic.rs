//! Update throughput of the dynamic store against two baselines, on one
//! workload: a Graph500 Kronecker graph (both directions of every edge,
//! uniformly shuffled) inserted, then 5% of the inserts deleted. Run by
//! `bench/dynamic`; one JSON line per run.
//!
//!   cargo bench -p outcore-dynamic --bench dynamic -- KIND SCALE [DIR] [PARTITIONS] [THRESHOLD] [multigraph]
//!
//! KIND: `store` (outcore, in DIR), `vec` (`HashMap<u64, Vec<u64>>`, swap-remove),
//! `set` (`HashMap<u64, HashSet<u64>>`). Updates are generated batch by
//! batch outside the timed region; the baselines apply them in stream
//! order, the store in its batches (sorted by owner and hash inside).
//! Rates count the store's commits (an update counts once durable; the
//! baselines have no commit); bytes per edge is, for every contender, the
//! rise of the process's peak RSS over its RSS before the first insert.

use outcore_dynamic::store::{DynamicStore, StoreOptions, Update};
use outcore_ingest::generate::{Generator, Kronecker, Permutation};
use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;

/// Counts the bytes the baselines hold.
struct Counting;
static HELD: AtomicU64 = AtomicU64::new(0);
// SAFETY: every call is passed on unchanged to the system allocator,
// which upholds GlobalAlloc's contract; the counter has no effect on it.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        HELD.fetch_add(l.size() as u64, Relaxed);
        // SAFETY: our caller's contract for `alloc` is the system allocator's.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        HELD.fetch_sub(l.size() as u64, Relaxed);
        // SAFETY: `p` came from `alloc`/`realloc` above, i.e. from the system allocator, with layout `l`.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        HELD.fetch_add(n as u64, Relaxed);
        HELD.fetch_sub(l.size() as u64, Relaxed);
        // SAFETY: as for dealloc; `n` is non-zero by our caller's contract.
        unsafe { System.realloc(p, l, n) }
    }
}
#[global_allocator]
static A: Counting = Counting;

/// Updates per batch: `OUTCORE_BATCH`, default 8 Mi. Out of core, every
/// batch reads and writes about the whole heap, so larger batches cost
/// less I/O per update.
fn batch_size() -> u64 {
    std::env::var("OUTCORE_BATCH").ok().and_then(|b| b.parse().ok()).unwrap_or(1 << 23)
}

struct Workload {
    g: Kronecker,
    shuffle: Permutation,
    pick: Permutation,
    inserts: u64,
    deletes: u64,
}

impl Workload {
    fn new(scale: u32) -> Workload {
        let g = Kronecker::graph500(scale, 16, 1);
        let inserts = 2 * g.edges();
        Workload { g, shuffle: Permutation::new(inserts, 7), pick: Permutation::new(inserts, 11), inserts, deletes: inserts / 20 }
    }
    /// Insert `i` of the shuffled stream: one direction of one edge.
    fn insert(&self, i: u64) -> (u64, u64) {
        let j = self.shuffle.apply(i);
        let (s, t) = self.g.edge(j / 2);
        if j.is_multiple_of(2) {
            (s, t)
        } else {
            (t, s)
        }
    }
    /// Delete `i`: the edge of a uniformly chosen insert.
    fn delete(&self, i: u64) -> (u64, u64) {
        self.insert(self.pick.apply(i))
    }
    fn batches(&self, deletes: bool, mut f: impl FnMut(&[Update])) {
        let total = if deletes { self.deletes } else { self.inserts };
        let size = batch_size();
        let mut batch = Vec::with_capacity(size as usize);
        let mut start = 0;
        while start < total {
            let end = (start + size).min(total);
            batch.clear();
            batch.extend((start..end).map(|i| {
                if deletes {
                    let (u, v) = self.delete(i);
                    Update::DeleteEdge { u, v }
                } else {
                    let (u, v) = self.insert(i);
                    Update::InsertEdge { u, v, w: 1.0 }
                }
            }));
            f(&batch);
            start = end;
        }
    }
}

/// A baseline adjacency: a list or a set per source.
trait Adjacency: Default {
    fn insert(&mut self, v: u64);
    fn delete(&mut self, v: u64);
    fn len(&self) -> usize;
}

impl Adjacency for Vec<u64> {
    fn insert(&mut self, v: u64) {
        self.push(v)
    }
    /// The first copy, by swap-remove.
    fn delete(&mut self, v: u64) {
        if let Some(p) = self.iter().position(|&t| t == v) {
            self.swap_remove(p);
        }
    }
    fn len(&self) -> usize {
        Vec::len(self)
    }
}

impl Adjacency for HashSet<u64> {
    fn insert(&mut self, v: u64) {
        HashSet::insert(self, v);
    }
    fn delete(&mut self, v: u64) {
        self.remove(&v);
    }
    fn len(&self) -> usize {
        HashSet::len(self)
    }
}

/// Apply the workload in stream order; returns (bytes held after the inserts, edges).
/// A `/proc/self/status` figure in bytes (`VmRSS`, `VmHWM`).
fn status_bytes(key: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|x| x.trim_start_matches(':').trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb << 10)
}

fn run_baseline<A: Adjacency>(w: &Workload, g: &mut HashMap<u64, A>, ins: &mut f64, del: &mut f64) -> (u64, u64) {
    w.batches(false, |b| {
        let t = Instant::now();
        for x in b {
            if let Update::InsertEdge { u, v, .. } = *x {
                g.entry(u).or_default().insert(v);
            }
        }
        *ins += t.elapsed().as_secs_f64();
    });
    let held = (HELD.load(Relaxed), g.values().map(|a| a.len() as u64).sum());
    w.batches(true, |b| {
        let t = Instant::now();
        for x in b {
            if let Update::DeleteEdge { u, v } = *x {
                if let Some(a) = g.get_mut(&u) {
                    a.delete(v);
                }
            }
        }
        *del += t.elapsed().as_secs_f64();
    });
    held
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let kind = args.first().map(String::as_str).unwrap_or("store");
    let scale: u32 = args.get(1).map_or(20, |s| s.parse().unwrap());
    let w = Workload::new(scale);
    // bytes per edge, the same way for every contender: how far the
    // process's peak RSS rose above its RSS before the first insert
    let rss_before = status_bytes("VmRSS");
    let (mut ins, mut del) = (0.0f64, 0.0f64);
    // commits: the store's durability points; the baselines have none (0)
    let (mut commit_ins, mut commit_del) = (0.0f64, 0.0f64);
    let (held, edges, extra);
    match kind {
        "store" => {
            let dir = std::path::PathBuf::from(args.get(2).expect("store directory"));
            let partitions = args.get(3).map_or(2, |s| s.parse().unwrap());
            let threshold = args.get(4).map_or(outcore_dynamic::store::DEFAULT_THRESHOLD, |s| s.parse().unwrap());
            let multigraph = args.get(5).is_some_and(|s| s == "multigraph");
            let _ = std::fs::remove_dir_all(&dir);
            let opts = StoreOptions { partitions, threshold, multigraph, ..Default::default() };
            let mut store = DynamicStore::create(&dir, opts).unwrap();
            let t = Instant::now();
            w.batches(false, |b| {
                let t = Instant::now();
                store.apply(b).unwrap();
                ins += t.elapsed().as_secs_f64();
            });
            let t_commit = Instant::now();
            store.commit().unwrap();
            commit_ins = t_commit.elapsed().as_secs_f64();
            let wall_insert = t.elapsed().as_secs_f64();
            held = store.heap_bytes() - store.free_bytes();
            edges = store.arcs();
            let c = store.counts();
            let mut missing = 0;
            w.batches(true, |b| {
                let t = Instant::now();
                missing += store.apply(b).unwrap().missing;
                del += t.elapsed().as_secs_f64();
            });
            let t_commit = Instant::now();
            store.commit().unwrap();
            commit_del = t_commit.elapsed().as_secs_f64();
            extra = serde_json::json!({"partitions": partitions, "threshold": threshold, "multigraph": multigraph,
                "wall_insert_seconds": wall_insert,
                "heap_bytes": store.heap_bytes(), "chunked": c.chunked, "moves_up": c.moves_up, "moves_down": store.counts().moves_down, "grows": c.grows, "rehashes": c.rehashes,
                "missing_deletes": missing, "undo_bytes_of_deletes": store.undo_bytes(), "arcs_after_deletes": store.arcs()});
        }
        "vec" => {
            (held, edges) = run_baseline(&w, &mut HashMap::<u64, Vec<u64>>::new(), &mut ins, &mut del);
            extra = serde_json::json!({"multigraph": true});
        }
        "set" => {
            (held, edges) = run_baseline(&w, &mut HashMap::<u64, HashSet<u64>>::new(), &mut ins, &mut del);
            extra = serde_json::json!({"multigraph": false});
        }
        "stream" => {
            // The same workload as a binary update stream, for `outcore dynamic apply`.
            let path = std::path::PathBuf::from(args.get(2).expect("output file"));
            let mut out = outcore_dynamic::updates::BinaryWriter::create(&path).unwrap();
            for deletes in [false, true] {
                w.batches(deletes, |b| b.iter().for_each(|x| out.write(x).unwrap()));
            }
            out.finish().unwrap();
            println!("{{\"kind\": \"stream\", \"updates\": {}}}", w.inserts + w.deletes);
            return;
        }
        other => panic!("unknown kind {other} (store, vec, set, stream)"),
    }
    let updates = w.inserts + w.deletes;
    let peak = status_bytes("VmHWM");
    let bytes = peak.saturating_sub(rss_before);
    // rates include the commits: an update counts once it is durable
    let (ins_total, del_total) = (ins + commit_ins, del + commit_del);
    let out = serde_json::json!({
        "kind": kind, "scale": scale, "inserts": w.inserts, "deletes": w.deletes,
        "insert_apply_seconds": ins, "insert_commit_seconds": commit_ins,
        "delete_apply_seconds": del, "delete_commit_seconds": commit_del, "batch": batch_size(),
        "inserts_per_second": w.inserts as f64 / ins_total, "deletes_per_second": w.deletes as f64 / del_total,
        "updates_per_second": updates as f64 / (ins_total + del_total),
        "edges_stored": edges, "bytes": bytes, "bytes_per_edge": bytes as f64 / edges.max(1) as f64,
        "rss_before_bytes": rss_before, "peak_rss_bytes": peak,
        // the contender's own count (allocator bytes, or heap minus free), for reference
        "held_bytes_per_edge": held as f64 / edges.max(1) as f64, "extra": extra,
    });
    println!("{out}");
}
