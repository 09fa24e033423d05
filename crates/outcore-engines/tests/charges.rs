//! What the engines charge to the budget against what they allocate: a
//! counting allocator measures how far the heap grows while an engine
//! opens and reads, and its charges must cover it (the budget is a
//! promise: README "Memory budget"), but for bookkeeping beside them.

mod common;

use common::{bounded, graph, pool};
use outcore_engines::{
    IntervalEngine, IntervalOptions, IntervalProgram, NeighbourList, StreamOptions, TileEdges, TileProgram, TileStream, Traverse,
    TraverseOptions, Values,
};
use outcore_ingest::{import_file, ImportOptions, NoProgress};
use outcore_io::heap::{heap_growth, live_bytes, CountingAllocator};
use outcore_io::{Budget, SEQ_READER_BOOKKEEPING};
use outcore_store::{Encoding, Store};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

#[global_allocator]
static HEAP: CountingAllocator = CountingAllocator;

/// The tests of this file take turns: the counters are the process's.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Bookkeeping beside the charges: the pieces a parallel read is cut
/// into, a thread pool's queues, the engines' small vectors.
const BOOKKEEPING: u64 = 64 << 10;

/// How far the heap grows while `work` runs, within the suite's time bound.
fn measured<T>(what: &str, work: impl FnOnce() -> T) -> (T, u64) {
    bounded(what, || heap_growth(work))
}

/// The traverse engine, opened on two threads with an ample budget, reads
/// the hub's list (66,000 entries, weighted) on both readers at once and
/// on its own shared reader: its readers are charged for the longest list
/// each, and the heap grows no further than its charges.
#[test]
fn the_traverse_engine_charges_what_it_allocates() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let gr = graph();
    for encoding in [Encoding::Raw32, Encoding::Gapref] {
        let store = gr.open(encoding);
        let what = format!("{encoding:?}");
        let budget = Budget::new(1 << 30);
        let hubs = vec![1u32; 2048];
        let (g, grown) = measured(&what, || {
            pool(2).install(|| {
                let mut g = Traverse::open(&store, "out", &budget, &TraverseOptions::default(), 0).unwrap();
                let (_, entries) = g.par_weighted_lists(&hubs, |_, _, _, _: &mut Vec<()>| {}).unwrap();
                assert_eq!(entries, 2048 * gr.degree(1), "{what}");
                let (mut nbrs, mut weights) = (Vec::new(), Vec::new());
                g.neighbours(1, &mut nbrs).unwrap();
                g.weights(1, &mut weights).unwrap();
                assert_eq!(nbrs.len() as u64, gr.degree(1), "{what}");
                g
            })
        });
        let charged = budget.used();
        assert!(grown <= charged + BOOKKEEPING, "{what}: the heap grew {grown} bytes, {charged} charged");
        // the counter counts: at least one copy of the hub's list and weights
        assert!(grown >= gr.degree(1) * 12, "{what}: the heap grew only {grown} bytes");
        drop(g);
    }
}

/// A program that reads every neighbour's value (a sum of ids).
struct Sum;

impl IntervalProgram for Sum {
    type Value = u64;
    fn gather(&self, v: u64, _: u64, lists: &[NeighbourList], values: &Values<u64>) -> u64 {
        lists.iter().flat_map(|l| l.ids).fold(values.get(v), |s, &u| s.wrapping_add(values.get(u)))
    }
}

/// The interval engine over a dense store's two layouts (40,000 vertices,
/// 800,000 arcs out and in: 16,384 consecutive vertices hold more than a
/// batch's share of ids, so its batches fill): the heap grows no further
/// than its charges while it opens and runs two passes.
#[test]
fn the_interval_engine_charges_what_it_allocates() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let edges = dir.path().join("dense.el");
    let mut rng = outcore_io::SplitMix64(9);
    let text: String = (0..800_000).map(|_| format!("{} {}\n", rng.next_u64() % 40_000, rng.next_u64() % 40_000)).collect();
    std::fs::write(&edges, text).unwrap();
    let opts = ImportOptions { directed: Some(true), in_layout: true, num_vertices: Some(40_000), ..Default::default() };
    import_file(&edges, &dir.path().join("s"), &opts, &NoProgress).unwrap();
    let store = Store::open(&dir.path().join("s")).unwrap();
    for layouts in [&["out"][..], &["in", "out"][..]] {
        let what = format!("layouts {layouts:?}");
        let budget = Budget::new(1 << 30);
        let opts = IntervalOptions { max_interval_values: None, temp_dir: Some(dir.path().to_path_buf()) };
        let (e, grown) = measured(&what, || {
            pool(2).install(|| {
                let mut e = IntervalEngine::<u64>::open(&store, layouts, true, &budget, &opts, |v, _| v).unwrap();
                for _ in 0..2 {
                    let it = e.iterate(&Sum, |_, _, _, _| {}).unwrap();
                    assert_eq!(it.edges, layouts.len() as u64 * store.manifest().arcs, "{what}");
                }
                e
            })
        });
        let charged = budget.used();
        assert!(grown <= charged + BOOKKEEPING, "{what}: the heap grew {grown} bytes, {charged} charged");
        assert!(grown >= charged / 4, "{what}: the heap grew only {grown} bytes of {charged} charged");
        drop(e);
    }
}

/// Reading the values back ([`IntervalEngine::for_each_value`]) holds
/// what [`IntervalEngine::value_read_bytes`] charges for it: its reader's
/// two chunks and one value. The values are 16 KiB vectors, so that a
/// charge a value or two off shows beside the reader's bookkeeping, which
/// its charge allows 4 KiB for (`SEQ_READER_BOOKKEEPING`) and which takes
/// about 2 KiB.
#[test]
fn reading_the_values_back_holds_what_it_is_charged() {
    const K: usize = 4096;
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let edges = dir.path().join("ring.el");
    let n = 300u64;
    let text: String = (0..n).map(|v| format!("{v} {}\n", (v + 1) % n)).collect();
    std::fs::write(&edges, text).unwrap();
    let opts = ImportOptions { directed: Some(true), num_vertices: Some(n), ..Default::default() };
    import_file(&edges, &dir.path().join("s"), &opts, &NoProgress).unwrap();
    let store = Store::open(&dir.path().join("s")).unwrap();
    let budget = Budget::new(1 << 30);
    let opts = IntervalOptions { max_interval_values: None, temp_dir: Some(dir.path().to_path_buf()) };
    let e = IntervalEngine::<[f32; K]>::open(&store, &["out"], false, &budget, &opts, |v, _| [v as f32; K]).unwrap();
    let charged = e.value_read_bytes();
    let mut seen = 0u64;
    let ((), grown) = measured("values", || {
        e.for_each_value(|v, x| {
            assert_eq!((x[0], x[K - 1]), (v as f32, v as f32), "vertex {v}");
            seen += 1;
        })
        .unwrap()
    });
    assert_eq!(seen, n);
    assert!(grown <= charged, "the heap grew {grown} bytes, {charged} charged");
    assert!(grown + SEQ_READER_BOOKKEEPING >= charged, "the heap grew only {grown} bytes, {charged} charged");
}

/// A program that counts the arcs it is handed, with their weights or not.
struct Count(AtomicU64, bool);

impl TileProgram for Count {
    fn reverse(&self) -> bool {
        false
    }
    fn weights(&self) -> bool {
        self.1
    }
    fn forward(&self, tile: &TileEdges) {
        self.0.fetch_add(tile.edges.len() as u64, Relaxed);
    }
}

/// The stream engine over a store of many small tiles (2^16 vertices,
/// 400,000 arcs, tiles of 2^7 vertices a side: some 200,000 tiles, most
/// of a few arcs), so that its index and its pieces (each with its cached
/// flag, its pool entry, and its place, reads and view in a pass) are most
/// of its memory. While it opens, the heap grows no further than the most
/// it charged then (reading the index is charged until it is read, and an
/// open refused just after holds no more than that charge); while
/// it runs passes, no further than what it holds charged. Three passes of
/// one program (the first from the device, the later ones from a pool the
/// layout's size), with and without weights; and on an engine opened with
/// weights, a pass without them, then one with them (the pool, filled
/// without weights, is emptied: every piece is planned and read in one
/// segment while the pool's entries keep their room), then one from the
/// pool. The second reaches what a pass is charged for a piece, and there
/// the heap grows to within 2 % of the charges. (Before a pass's plan and
/// views were counted, the heap grew 36.1 MB where 33.0 MB were charged;
/// before the plan's vectors were sized at once, small segments of one
/// piece each took more than they were charged.)
#[test]
fn the_stream_engine_charges_what_it_allocates() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let edges = dir.path().join("sparse.wel");
    let mut rng = outcore_io::SplitMix64(13);
    let text: String = (0..400_000).map(|k| format!("{} {} {}\n", rng.next_u64() % 65_536, rng.next_u64() % 65_536, k % 7)).collect();
    std::fs::write(&edges, text).unwrap();
    let opts = ImportOptions { directed: Some(true), weighted: true, num_vertices: Some(65_536), ..Default::default() };
    let out = dir.path().join("s");
    import_file(&edges, &out, &opts, &NoProgress).unwrap();
    outcore_ingest::tiles::add_tiles(&out, 1, 7, 256 << 20, &NoProgress).unwrap();
    let store = Store::open(&out).unwrap();
    let rec = TileStream::record(&store).unwrap();
    assert!(rec.tiles > 150_000, "{} tiles", rec.tiles);
    // reading the index is charged while it is read: an open refused for
    // want of room for its segments, just after, held no more than that
    let budget = Budget::new(rec.tiles * 48);
    let (refused, reading) = measured("refused", || TileStream::open(&store, &budget, true, StreamOptions::default()).err());
    let refused = refused.expect("a budget error").to_string();
    assert!(refused.contains("two stream segments"), "refused for want of something else: {refused}");
    assert!(reading <= budget.peak() + BOOKKEEPING, "reading the index grew the heap {reading} bytes, {} charged", budget.peak());
    assert_eq!(budget.used(), 0, "a refused open keeps no charge");
    let threads = pool(2);
    for (opened_with, passes) in [(false, [false; 3]), (true, [true; 3]), (true, [false, true, true])] {
        let what = format!("opened with weights {opened_with}, passes with weights {passes:?}");
        let budget = Budget::new(1 << 30);
        let before = live_bytes();
        let (mut stream, opening) =
            measured(&what, || threads.install(|| TileStream::open(&store, &budget, opened_with, StreamOptions::default()).unwrap()));
        let charged = budget.peak();
        assert!(opening <= charged + BOOKKEEPING, "{what}: opening grew the heap {opening} bytes, {charged} charged");
        let held = (live_bytes() - before) as u64;
        let (its, running) = measured(&what, || {
            threads.install(|| {
                passes
                    .iter()
                    .map(|&weights| {
                        let program = Count(AtomicU64::new(0), weights);
                        let it = stream.iterate(&program).unwrap();
                        assert_eq!(program.0.load(Relaxed), rec.edges, "{what}");
                        it
                    })
                    .collect::<Vec<_>>()
            })
        });
        let (grown, charged) = (held + running, budget.used());
        assert!(grown <= charged + BOOKKEEPING, "{what}: the passes grew the heap to {grown} bytes, {charged} charged");
        assert!(grown >= charged / 2, "{what}: the passes grew the heap to only {grown} bytes of {charged} charged");
        if passes[0] != passes[1] {
            assert_eq!((its[1].segments, its[1].bytes_from_cache), (1, 0), "{what}: every piece read in one segment");
            assert!(grown as f64 >= 0.98 * charged as f64, "{what}: the passes grew the heap to only {grown} bytes of {charged} charged");
        }
        drop(stream);
    }
}

/// Hot lists ranked in parts (`HotParts::rank`, hybrid BFS's scan-built
/// lists) over a dense store (40,000 vertices, 2,400,000 arcs, in store
/// order: a batch of lists fills at its 2^15 entries, some 550 lists,
/// not at its 2^15 lists): two lanes' heap grows no further than two
/// parts' charges, each a scan and `HotParts::bytes`.
#[test]
fn hot_lists_ranked_in_parts_hold_what_each_part_is_charged() {
    use outcore_store::hot::HotParts;
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let edges = dir.path().join("dense.el");
    let n = 40_000u64;
    let mut rng = outcore_io::SplitMix64(11);
    let pairs: Vec<(u64, u64)> = (0..2_400_000).map(|_| (rng.next_u64() % n, rng.next_u64() % n)).collect();
    std::fs::write(&edges, pairs.iter().map(|(u, v)| format!("{u} {v}\n")).collect::<String>()).unwrap();
    for encoding in [Encoding::Raw32, Encoding::Gapref] {
        let what = format!("{encoding:?}");
        let at = dir.path().join(&what);
        let opts = ImportOptions { directed: Some(true), num_vertices: Some(n), encoding: Some(encoding), ..Default::default() };
        import_file(&edges, &at, &opts, &NoProgress).unwrap();
        let store = Store::open(&at).unwrap();
        let layout = store.layout("out").unwrap();
        let mut degrees = vec![0u32; n as usize];
        layout.for_each_degree(|v, d| degrees[v as usize] = d as u32).unwrap();
        let part = layout.scan_bytes().unwrap() + HotParts::bytes(layout.longest_list().unwrap());
        let cuts = [0, n / 4, n / 2, 3 * n / 4, n];
        let lists = std::sync::atomic::AtomicU64::new(0);
        let (_, grown) = measured(&what, || {
            pool(2).install(|| {
                let sinks = (0..4)
                    .map(|_| {
                        |_: u64, ids: &[u32]| -> Result<(), outcore_store::StoreError> {
                            assert!(ids.len() <= 8);
                            lists.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            Ok(())
                        }
                    })
                    .collect();
                HotParts::rank(&layout, &cuts, 2, 8, degrees.as_slice(), sinks).unwrap();
            })
        });
        assert_eq!(lists.into_inner(), n, "{what}: every list ranked once");
        assert!(grown <= 2 * part + BOOKKEEPING, "{what}: the heap grew {grown} bytes, two parts are charged {}", 2 * part);
        // the counter counts: at least a batch of 2^15 neighbours
        assert!(grown >= 8 << 15, "{what}: the heap grew only {grown} bytes");
    }
}
