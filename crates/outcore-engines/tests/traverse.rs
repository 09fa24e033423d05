//! The traverse engine read directly (the algorithms' tests read it
//! through BFS, SSSP and the rest): every way it hands out a list equals
//! the edge file's, on every encoding; its degrees equal the lists' by
//! every path it has (a 16-bit copy with a map for hubs, or the index);
//! its options (a cache size, a shorter list per reader, no prefetch)
//! change how it reads, never what; opening takes what `min_bytes` says.

mod common;

use common::{bounded, graph, pairs, pool, unweighted, HUB_DEGREE, VERTICES};
use outcore_engines::{Traverse, TraverseOptions};
use outcore_io::{Bitmap, Budget};
use outcore_store::{Encoding, Store};

const ENCODINGS: [Encoding; 4] = [Encoding::Raw32, Encoding::Raw64, Encoding::Ceesor, Encoding::Gapref];

/// Runs `check(store, what)` on the graph's store in every encoding, in a
/// pool of two threads (the engine sizes its readers by the pool it opens
/// in), within the suite's time bound; `what` names the encoding and
/// `detail`.
fn on_every_encoding(detail: &str, check: impl Fn(&Store, &str) + Sync) {
    for encoding in ENCODINGS {
        let store = graph().open(encoding);
        let what = if detail.is_empty() { format!("{encoding:?}") } else { format!("{encoding:?}, {detail}") };
        bounded(&what, || pool(2).install(|| check(&store, &what)));
    }
}

/// Every vertex, in an order that jumps about (a multiplicative walk), with
/// the hub and the empty ends in it twice.
fn shuffled() -> Vec<u32> {
    let n = VERTICES;
    let mut order: Vec<u32> = (0..n).map(|i| ((i * 7919) % n) as u32).collect();
    order.extend([0, 1, (n - 1) as u32]);
    order
}

/// The lists `par_lists` and `par_weighted_lists` hand out over
/// [`shuffled`], checked against the edge file's in visiting order, and
/// the entries each says it read.
fn check_parallel_reads(g: &Traverse, what: &str) {
    let gr = graph();
    let order = shuffled();
    let expected_entries: u64 = order.iter().map(|&v| gr.degree(v as u64)).sum();
    let (found, entries) = g.par_lists(&order, |v, nbrs, out| out.push((v, pairs(nbrs, None)))).unwrap();
    let found: Vec<_> = found.into_iter().flatten().collect();
    assert_eq!(found.len(), order.len(), "{what}: par_lists visits each vertex given once");
    for (&v, (seen, list)) in order.iter().zip(&found) {
        assert_eq!(v, *seen, "{what}: par_lists' outputs in the order given");
        assert_eq!(*list, unweighted(&gr.lists[v as usize]), "{what}: par_lists, vertex {v}");
    }
    assert_eq!(entries, expected_entries, "{what}: entries par_lists read");
    let (found, entries) = g.par_weighted_lists(&order, |v, nbrs, w, out| out.push((v, pairs(nbrs, Some(w))))).unwrap();
    let found: Vec<_> = found.into_iter().flatten().collect();
    assert_eq!(found.len(), order.len(), "{what}: par_weighted_lists visits each vertex given once");
    for (&v, (seen, list)) in order.iter().zip(&found) {
        assert_eq!(v, *seen, "{what}: par_weighted_lists' outputs in the order given");
        assert_eq!(*list, gr.lists[v as usize], "{what}: par_weighted_lists, vertex {v}");
    }
    assert_eq!(entries, expected_entries, "{what}: entries par_weighted_lists read");
}

/// Every list and its weights by the engine's own methods and by a
/// reader on another thread.
fn check_lists_one_by_one(g: &mut Traverse, what: &str) {
    let gr = graph();
    let (mut nbrs, mut weights) = (Vec::new(), Vec::new());
    for v in 0..VERTICES {
        g.neighbours(v, &mut nbrs).unwrap();
        g.weights(v, &mut weights).unwrap();
        assert_eq!(pairs(&nbrs, Some(&weights)), gr.lists[v as usize], "{what}: vertex {v}");
    }
    let g = &*g;
    std::thread::scope(|s| {
        s.spawn(|| {
            let mut reader = g.reader();
            let (mut nbrs, mut weights) = (Vec::new(), Vec::new());
            for v in (0..VERTICES).rev() {
                reader.neighbours(v, &mut nbrs).unwrap();
                reader.weights(v, &mut weights).unwrap();
                assert_eq!(pairs(&nbrs, Some(&weights)), gr.lists[v as usize], "{what}: a reader, vertex {v}");
            }
        });
    });
}

/// Degrees one by one, by `fill` (across the end too) and `for_each_in`,
/// and summed over a dense and a sparse set of vertices.
fn check_degrees(g: &Traverse, what: &str) {
    let gr = graph();
    let n = VERTICES;
    for v in 0..n {
        assert_eq!(g.degree(v), gr.degree(v), "{what}: degree of {v}");
    }
    let degrees = g.degrees();
    for first in [0, 1, 4_095, 65_530, n - 700] {
        let mut out = vec![u64::MAX; 1_000];
        degrees.fill(first, &mut out);
        for (i, &d) in out.iter().enumerate() {
            let v = first + i as u64;
            let want = if v < n { gr.degree(v) } else { 0 };
            assert_eq!(d, want, "{what}: fill from {first}, vertex {v}");
        }
        let mut seen = Vec::new();
        degrees.for_each_in(first, first + 1_000, |v, d| seen.push((v, d)));
        let want: Vec<(u64, u64)> = (first..(first + 1_000).min(n)).map(|v| (v, gr.degree(v))).collect();
        assert_eq!(seen, want, "{what}: for_each_in from {first}");
    }
    // every vertex but each third (a pass over the entries where the
    // degrees come from the index), then every 97th (a lookup each)
    type Set = fn(u64) -> bool;
    let sets: [(Set, &str); 2] = [(|v| v % 3 != 0, "dense"), (|v| v % 97 == 5, "sparse")];
    for (set, name) in sets {
        let mut bits = Bitmap::new(n);
        (0..n).filter(|&v| set(v)).for_each(|v| bits.set(v));
        let want: u64 = (0..n).filter(|&v| set(v)).map(|v| gr.degree(v)).sum();
        assert_eq!(degrees.sum_over(&bits), want, "{what}: sum of the degrees of a {name} set");
    }
}

#[test]
fn every_way_of_reading_gives_the_imported_lists() {
    let gr = graph();
    on_every_encoding("", |store, what| {
        let budget = Budget::new(1 << 30);
        let mut g = Traverse::open(store, "out", &budget, &TraverseOptions::default(), 0).unwrap();
        assert_eq!(g.vertices(), VERTICES, "{what}");
        assert_eq!(g.arcs(), gr.arcs, "{what}");
        assert!(g.weighted(), "{what}");
        let stats = g.stats();
        assert_eq!(stats.parallel_longest, HUB_DEGREE, "{what}: an ample budget lets every reader decode the longest list");
        check_lists_one_by_one(&mut g, what);
        check_parallel_reads(&g, what);
        check_degrees(&g, what);
        assert_eq!(g.stats().lists_read_shared, 0, "{what}: no list is left to the shared reader");
    });
}

/// Whether the engine decodes a vertex's list by its shared reader when
/// readers decode at most `longest` entries: the list is longer, or (a
/// blocked encoding) its block holds a longer one.
fn read_alone(store: &Store, longest: u64) -> impl Fn(u64) -> bool {
    let gr = graph();
    let table = store.layout("out").unwrap().block_table().unwrap();
    let mut long_blocks = std::collections::HashSet::new();
    if let Some(table) = &table {
        long_blocks.extend((0..VERTICES).filter(|&v| gr.degree(v) > longest).map(|v| table.block_of(v)));
    }
    move |v| match &table {
        Some(table) => long_blocks.contains(&table.block_of(v)),
        None => gr.degree(v) > longest,
    }
}

#[test]
fn a_shorter_list_per_reader_leaves_the_longer_ones_to_the_shared_reader() {
    let gr = graph();
    on_every_encoding("readers of at most 64 entries", |store, what| {
        let budget = Budget::new(1 << 30);
        let opts = TraverseOptions { parallel_longest: Some(64), ..Default::default() };
        let g = Traverse::open(store, "out", &budget, &opts, 0).unwrap();
        assert_eq!(g.stats().parallel_longest, 64, "{what}");
        let order = shuffled();
        let (found, _) = g.par_lists(&order, |v, nbrs, out| out.push((v, pairs(nbrs, None)))).unwrap();
        for (v, list) in found.into_iter().flatten() {
            assert_eq!(list, unweighted(&gr.lists[v as usize]), "{what}: vertex {v}");
        }
        let alone = read_alone(store, 64);
        let shared = order.iter().filter(|&&v| alone(v as u64)).count() as u64;
        assert!(shared > 0, "{what}: the hub's list is longer");
        assert_eq!(g.stats().lists_read_shared, shared, "{what}: lists read by the shared reader");
        check_parallel_reads(&g, what);
    });
}

/// Readers that decode the longest list by themselves are charged for it:
/// opening with them takes more of the budget than opening with readers
/// of 64 entries, by at least the hub's list and weights (12 bytes an
/// entry) handed out by each of the two.
#[test]
fn readers_of_longer_lists_are_charged_for_them() {
    on_every_encoding("", |store, what| {
        let charged = |parallel_longest| {
            let budget = Budget::new(1 << 30);
            let opts = TraverseOptions { parallel_longest, ..Default::default() };
            let g = Traverse::open(store, "out", &budget, &opts, 0).unwrap();
            (budget.used(), g.stats().parallel_longest)
        };
        let (longest, longest_readers) = charged(None);
        let (short, short_readers) = charged(Some(64));
        assert_eq!((longest_readers, short_readers), (HUB_DEGREE, 64), "{what}");
        assert!(
            longest >= short + 2 * (HUB_DEGREE - 64) * 12,
            "{what}: readers of {HUB_DEGREE} entries charged {longest} bytes, of 64 entries {short}"
        );
    });
}

/// Degrees asked of the index itself when the budget has no room for the
/// 16-bit copy beside it; with room, the copy costs 16 bits a vertex and
/// a map entry for the one hub, and is kept whatever the algorithm keeps
/// back for itself (while the budget has room).
#[test]
fn degrees_come_from_the_index_without_room_for_a_copy() {
    on_every_encoding("", |store, what| {
        let min = Traverse::min_bytes(store, "out", 4096).unwrap();
        let budget = Budget::new(min + 64 * 1024);
        let g = Traverse::open(store, "out", &budget, &TraverseOptions::default(), 0).unwrap();
        assert_eq!(g.stats().fast_degree_bytes, 0, "{what}: no room for degrees beside the index");
        check_degrees(&g, &format!("{what}, degrees from the index"));
        drop(g);
        let budget = Budget::new(1 << 30);
        let g = Traverse::open(store, "out", &budget, &TraverseOptions::default(), 1 << 20).unwrap();
        let copy = g.stats().fast_degree_bytes;
        assert!(
            (2 * VERTICES..2 * VERTICES + 1024).contains(&copy),
            "{what}: degrees beside the index take {copy} bytes for {VERTICES} vertices and one hub"
        );
        check_degrees(&g, &format!("{what}, degrees beside the index"));
    });
}

/// Small stores of 64 sizes (200 to 263 vertices, two arcs each), in
/// every encoding: the engine opens in exactly `min_bytes` whatever the
/// index's length (its Elias-Fano words grow by one every few dozen
/// entries, so an index counted one entry short is refused at some of
/// these), and a store whose lists end exactly at the end of its adjacency
/// file (a bit codec's last list ending on a byte boundary) opens: at
/// least one of these does.
#[test]
fn every_index_length_opens_in_min_bytes() {
    use outcore_ingest::{import_file, ImportOptions, NoProgress};
    let dir = tempfile::tempdir().unwrap();
    let mut ends_with_the_file = 0;
    for n in 200..264u64 {
        let text: String = (0..n).flat_map(|v| [(v, (v + 1) % n), (v, (v * 7 + 3) % n)]).map(|(a, b)| format!("{a} {b}\n")).collect();
        let edges = dir.path().join(format!("g{n}.el"));
        std::fs::write(&edges, text).unwrap();
        for encoding in ENCODINGS {
            let what = format!("{n} vertices, {encoding:?}");
            let out = dir.path().join(format!("g{n}-{encoding:?}"));
            let opts = ImportOptions {
                directed: Some(true),
                num_vertices: Some(n),
                encoding: Some(encoding),
                memory: 64 << 20,
                ..Default::default()
            };
            import_file(&edges, &out, &opts, &NoProgress).unwrap();
            let store = Store::open(&out).unwrap();
            let lay = store.layout("out").unwrap();
            let adjacency = std::fs::metadata(lay.adjacency_path()).unwrap().len();
            if lay.codec().position(lay.last_index_entry().unwrap()) == adjacency * 8 {
                ends_with_the_file += 1;
            }
            let min = Traverse::min_bytes(&store, "out", 4096).unwrap();
            bounded(&what, || Traverse::open(&store, "out", &Budget::new(min), &TraverseOptions::default(), 0).map(drop))
                .unwrap_or_else(|e| panic!("{what}: opening in min_bytes ({min}): {e}"));
        }
    }
    assert!(ends_with_the_file > 0, "no store's lists ended exactly at its adjacency file's end");
}

/// What `min_bytes` and `index_bytes` say is what opening takes: the
/// engine opens in a budget of `min_bytes` (with nothing kept back), and
/// its index holds at least `index_bytes`; with less than that and the
/// smallest cache it is a budget error. A cache size asked for is kept to.
#[test]
fn opening_takes_what_min_bytes_says() {
    on_every_encoding("", |store, what| {
        let min = Traverse::min_bytes(store, "out", 4096).unwrap();
        let index = Traverse::index_bytes(store, "out").unwrap();
        assert!(min >= index + Traverse::min_cache_bytes(4096), "{what}: min_bytes {min}, index {index}");
        let budget = Budget::new(min);
        let g = Traverse::open(store, "out", &budget, &TraverseOptions::default(), 0)
            .unwrap_or_else(|e| panic!("{what}: opening in min_bytes ({min}): {e}"));
        let held = g.stats().index_bytes;
        assert!(held <= index, "{what}: the index holds {held} bytes, index_bytes says {index}");
        drop(g);
        let short = Budget::new(index + Traverse::min_cache_bytes(4096) / 2);
        let err = Traverse::open(store, "out", &short, &TraverseOptions::default(), 0).err().expect("a budget error");
        let outcore_store::StoreError::Budget(err) = err else { panic!("{what}: {err}") };
        // the budget it suggests is enough, also with a state kept back
        Traverse::open(store, "out", &Budget::new(err.suggest), &TraverseOptions::default(), 0)
            .unwrap_or_else(|e| panic!("{what}: opening in the {} bytes suggested: {e}", err.suggest));
        let keep = 3 << 20;
        let err =
            Traverse::open(store, "out", &Budget::new(index + keep), &TraverseOptions::default(), keep).err().expect("a budget error");
        let outcore_store::StoreError::Budget(err) = err else { panic!("{what}: {err}") };
        Traverse::open(store, "out", &Budget::new(err.suggest), &TraverseOptions::default(), keep)
            .unwrap_or_else(|e| panic!("{what}: opening in the {} bytes suggested with {keep} kept back: {e}", err.suggest));
        let budget = Budget::new(1 << 30);
        let opts = TraverseOptions { cache_bytes: Some(1 << 20), ..Default::default() };
        let mut g = Traverse::open(store, "out", &budget, &opts, 0).unwrap();
        let cache = g.stats().cache_bytes;
        assert!((64 * 4096..=1 << 20).contains(&cache), "{what}: a cache of {cache} bytes, 1 MiB asked for");
        check_lists_one_by_one(&mut g, &format!("{what}, a 1 MiB cache"));
        drop(g);
        // what the cache and the algorithm's state leave is the readers' (a
        // state of 64 MiB and a cache of 1 MiB leave them most of a GiB;
        // with no cache size asked, a quarter of what the state and the
        // smallest cache leave)
        for opts in [opts, TraverseOptions::default()] {
            let g = Traverse::open(store, "out", &budget, &opts, 64 << 20).unwrap();
            assert_eq!(g.stats().parallel_longest, HUB_DEGREE, "{what}: 64 MiB kept back, cache {:?}", opts.cache_bytes);
        }
    });
}

/// With no cache size asked, the readers of longer lists take at most a
/// quarter of what the algorithm's state and the smallest cache leave them,
/// and no more than they need: at budgets from `min_bytes` up, in steps of
/// 128 KiB, the readers' length is the longest that fits that quarter (the
/// next longer one asked for in an ample budget takes more than it).
/// (On a copy of the store of its own: what an open charges for checking
/// pages depends on what other opens of the same files hold at the time,
/// and the other tests of this file open the shared stores meanwhile.)
#[test]
fn readers_take_a_quarter_of_what_the_smallest_cache_leaves() {
    use outcore_engines::traverse::SHARED_READER_FROM;
    on_every_encoding("", |shared, what| {
        let (_dir, store) = with_longest_recorded(shared, shared.layout("out").unwrap().record().longest_list);
        let store = &store;
        let min_cache = Traverse::min_cache_bytes(4096);
        let open = |total: u64, opts: &TraverseOptions| {
            let budget = Budget::new(total);
            let g = Traverse::open(store, "out", &budget, opts, 0).unwrap_or_else(|e| panic!("{what}: {e}"));
            (budget.used(), g.stats().parallel_longest)
        };
        let readers_of = |longest: u64| TraverseOptions { parallel_longest: Some(longest), ..Default::default() };
        // what the engine holds besides the smallest cache (which a cache
        // of that size asked for is) with readers of `longest` entries
        let besides_the_cache =
            |total: u64, longest: u64| open(total, &TraverseOptions { cache_bytes: Some(min_cache), ..readers_of(longest) }).0 - min_cache;
        // what readers of `longest` entries take beyond those of the
        // fewest, in an ample budget
        let beyond_the_fewest = |longest: u64| besides_the_cache(1 << 30, longest) - besides_the_cache(1 << 30, SHARED_READER_FROM);
        let widest = beyond_the_fewest(HUB_DEGREE);
        assert!(widest >= 2 * (HUB_DEGREE - SHARED_READER_FROM) * 12, "{what}: readers of the hub's list take {widest} bytes more");
        let min = Traverse::min_bytes(store, "out", 4096).unwrap();
        let (mut narrowest_seen, mut widest_seen) = (false, false);
        for step in 0.. {
            let total = min + step * (128 << 10);
            if total > min + 4 * widest + 2 * min_cache + (1 << 20) {
                break;
            }
            // what the engine holds before it sizes its readers of longer
            // lists: as with readers of the fewest entries in this budget
            let before = besides_the_cache(total, SHARED_READER_FROM);
            let quarter_of = total - before - min_cache;
            let (_, longest) = open(total, &TraverseOptions::default());
            let what = format!("{what}, a budget of {total} bytes: readers of {longest} entries");
            if longest > SHARED_READER_FROM {
                let taken = beyond_the_fewest(longest);
                assert!(4 * taken <= quarter_of, "{what} take {taken} bytes more, of the {quarter_of} left");
            } else {
                assert_eq!(longest, SHARED_READER_FROM, "{what}");
                narrowest_seen = true;
            }
            if longest < HUB_DEGREE {
                // the next longer length tried: twice this, or above the
                // powers of two below it, the hub's
                let next = if 2 * longest < 1 << HUB_DEGREE.ilog2() { 2 * longest } else { HUB_DEGREE };
                let more = beyond_the_fewest(next);
                assert!(4 * more > quarter_of, "{what}, and readers of {next} ({more} bytes more) would have fit the {quarter_of} left");
            } else {
                widest_seen = true;
            }
        }
        assert!(narrowest_seen && widest_seen, "{what}: the budgets tried reach neither the fewest entries nor the hub's");
    });
}

/// Run-ahead issues the reads of the vertices given, and says how many it
/// handled: all of a few far apart (each a run of its own) when the cache
/// has room; none when prefetching is off. Either way the lists read are
/// the file's.
#[test]
fn run_ahead_handles_what_the_cache_has_room_for() {
    let gr = graph();
    on_every_encoding("", |store, what| {
        let budget = Budget::new(1 << 30);
        let g = Traverse::open(store, "out", &budget, &TraverseOptions::default(), 0).unwrap();
        assert!(g.prefetching());
        // the first vertex with a list from each tenth of the ids on
        // (not the hub: its blocks alone fill the device's queue)
        let far_apart: Vec<u64> = (0..10).map(|i| ((i * VERTICES / 10).max(2)..).find(|&v| gr.degree(v) > 0).unwrap()).collect();
        assert_eq!(g.run_ahead(far_apart.iter().copied()).unwrap(), far_apart.len(), "{what}: run-ahead over ten lists");
        // each list a run of its own: its block or two of the ids and of
        // the weights, not the blocks between
        let prefetches = g.stats().cache.prefetches;
        assert!((10..=40).contains(&prefetches), "{what}: {prefetches} blocks read ahead for ten lists far apart");
        let next: Vec<u64> = (0..100).map(|i| 5_001 + i).collect();
        assert_eq!(g.run_ahead(next.iter().copied()).unwrap(), next.len(), "{what}: run-ahead over 100 neighbours");
        check_parallel_reads(&g, what);
        drop(g);
        let opts = TraverseOptions { prefetch: false, ..Default::default() };
        let g = Traverse::open(store, "out", &budget, &opts, 0).unwrap();
        assert!(!g.prefetching());
        assert_eq!(g.run_ahead(far_apart.iter().copied()).unwrap(), 0, "{what}: no prefetching, no run-ahead");
        check_parallel_reads(&g, &format!("{what}, without prefetching"));
    });
}

/// Stores of format version 1 (u64 indexes, u32 degrees: the engine
/// builds its Elias-Fano index and edge starts from them as it opens;
/// the fixtures outcore-cli's tests keep, written by outcore at 4db0eda)
/// open in `min_bytes` and give every list and degree their sequential
/// scan gives. Two of them (`five-arcs-*`: 200 and 224 vertices, each
/// with arcs to v+1, 7v+3, 11v+5, 13v+1 and 3v+2 modulo their count,
/// imported by `outcore import --directed --num-vertices N --encoding E`
/// at 4db0eda) are sized so that their edge starts counted one entry
/// short take fewer Elias-Fano words than they hold.
#[test]
fn version_1_stores_read_as_their_scans_do() {
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../outcore-cli/tests/data/store-v1");
    let names = ["directed-raw32", "directed-gapref", "directed-ceesor", "grqc-ceesor", "five-arcs-200-gapref", "five-arcs-224-ceesor"];
    for name in names {
        let store = Store::open(&fixtures.join(name)).unwrap();
        assert_eq!(store.manifest().version, 1, "{name}");
        for layout in ["out", "in"].into_iter().filter(|l| store.has_layout(l)) {
            let what = format!("{name} {layout}");
            bounded(&what, || {
                pool(2).install(|| {
                    let lay = store.layout(layout).unwrap();
                    let weighted = lay.weights_path().is_some();
                    // it opens in what `min_bytes` says, its edge starts counted
                    let min = Traverse::min_bytes(&store, layout, 4096).unwrap();
                    Traverse::open(&store, layout, &Budget::new(min), &TraverseOptions::default(), 0)
                        .unwrap_or_else(|e| panic!("{what}: opening in min_bytes ({min}): {e}"));
                    let mut g = Traverse::open(&store, layout, &Budget::new(1 << 30), &TraverseOptions::default(), 0).unwrap();
                    let mut scan = lay.scan().unwrap();
                    let (mut nbrs, mut weights, mut lists) = (Vec::new(), Vec::new(), 0);
                    while let Some((v, ids, w)) = scan.next_list().unwrap() {
                        g.neighbours(v, &mut nbrs).unwrap();
                        let got = if weighted {
                            g.weights(v, &mut weights).unwrap();
                            pairs(&nbrs, Some(&weights))
                        } else {
                            pairs(&nbrs, None)
                        };
                        assert_eq!(got, pairs(ids, weighted.then_some(w)), "{what}: vertex {v}");
                        assert_eq!(g.degree(v), ids.len() as u64, "{what}: degree of {v}");
                        lists += 1;
                    }
                    assert_eq!(lists, store.vertices(), "{what}");
                })
            });
        }
    }
}

/// A copy of `store`'s files in a new directory, with its manifest's
/// record of layout `out`'s longest list set to `longest` (removed if
/// None), as an older or crafted store might have it.
fn with_longest_recorded(store: &Store, longest: Option<u64>) -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(store.dir()).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), dir.path().join(entry.file_name())).unwrap();
    }
    let manifest = dir.path().join("manifest.json");
    let mut record: serde_json::Value = serde_json::from_slice(&std::fs::read(&manifest).unwrap()).unwrap();
    let out = record["layouts"]["out"].as_object_mut().expect("layout out in the manifest");
    match longest {
        Some(l) => out.insert("longest_list".into(), l.into()),
        None => out.remove("longest_list"),
    };
    std::fs::write(&manifest, serde_json::to_vec(&record).unwrap()).unwrap();
    let copy = Store::open(dir.path()).unwrap();
    (dir, copy)
}

/// The layout's record of its longest list is checked against the index
/// by the pass that takes the degrees (or, without room for them, by a
/// pass of its own): a record one short is refused with or without room,
/// naming the manifest; a record one long, or none (the engine finds the
/// longest itself), opens, and the degrees and every list read are the
/// edge file's.
#[test]
fn the_longest_list_recorded_is_checked_against_the_index() {
    let longest = (0..VERTICES).map(|v| graph().degree(v)).max().unwrap();
    assert!(longest >= HUB_DEGREE);
    on_every_encoding("longest list recorded", |store, what| {
        let min = Traverse::min_bytes(store, "out", 4096).unwrap();
        let budgets = [("without room for the degrees", min + 64 * 1024), ("with room for the degrees", 1 << 30)];
        let (_short_dir, short) = with_longest_recorded(store, Some(longest - 1));
        for (room, bytes) in budgets {
            let err = Traverse::open(&short, "out", &Budget::new(bytes), &TraverseOptions::default(), 0).err().expect("an error");
            let err = err.to_string();
            assert!(
                err.contains("manifest.json") && err.contains(&format!("records {} entries as its longest list", longest - 1)),
                "{what}, {room}: {err}"
            );
        }
        for recorded in [Some(longest + 1), None] {
            let (_dir, copy) = with_longest_recorded(store, recorded);
            for (room, bytes) in budgets {
                let what = format!("{what}, {recorded:?} recorded, {room}");
                let g = Traverse::open(&copy, "out", &Budget::new(bytes), &TraverseOptions::default(), 0).unwrap();
                assert_eq!(g.stats().fast_degree_bytes > 0, bytes == 1 << 30, "{what}");
                check_degrees(&g, &what);
                check_parallel_reads(&g, &what);
            }
        }
    });
}

/// An adjacency file shorter than its index says (cut by its last 8
/// bytes, and the manifest's record of its size and, for the raw
/// encodings, of the arcs edited to match, as a crafted store might be) is
/// refused when the engine opens, naming the index and the file, on every
/// encoding: no list is read from past its end.
#[test]
fn an_index_past_the_adjacency_file_is_refused() {
    on_every_encoding("adjacency cut", |store, what| {
        let dir = tempfile::tempdir().unwrap();
        for entry in std::fs::read_dir(store.dir()).unwrap() {
            let entry = entry.unwrap();
            std::fs::copy(entry.path(), dir.path().join(entry.file_name())).unwrap();
        }
        let adjacency = dir.path().join("out.adj");
        let len = std::fs::metadata(&adjacency).unwrap().len();
        std::fs::OpenOptions::new().write(true).open(&adjacency).unwrap().set_len(len - 8).unwrap();
        let manifest = dir.path().join("manifest.json");
        let mut record: serde_json::Value = serde_json::from_slice(&std::fs::read(&manifest).unwrap()).unwrap();
        assert_eq!(record["files"]["out.adj"]["bytes"], len, "{what}: the manifest records the adjacency file's size");
        record["files"]["out.adj"]["bytes"] = (len - 8).into();
        // the arcs the 8 bytes held, in a raw encoding
        let arcs_cut = match store.layout("out").unwrap().codec().encoding() {
            Encoding::Raw32 => Some(2),
            Encoding::Raw64 => Some(1),
            _ => None,
        };
        if let Some(cut) = arcs_cut {
            let arcs = record["arcs"].as_u64().unwrap();
            record["arcs"] = (arcs - cut).into();
            // the weights, 4 bytes an arc, lose as many
            let weights = dir.path().join("out.weights");
            let weight_bytes = std::fs::metadata(&weights).unwrap().len() - 4 * cut;
            std::fs::OpenOptions::new().write(true).open(&weights).unwrap().set_len(weight_bytes).unwrap();
            record["files"]["out.weights"]["bytes"] = weight_bytes.into();
        }
        std::fs::write(&manifest, serde_json::to_vec(&record).unwrap()).unwrap();
        let cut = match Store::open(dir.path()) {
            Ok(cut) => cut,
            Err(e) => panic!("{what}: the store should open (its files are checked as they are read): {e}"),
        };
        let err = Traverse::open(&cut, "out", &Budget::new(1 << 30), &TraverseOptions::default(), 0).err().expect("an error");
        let err = err.to_string();
        assert!(err.contains("beyond the") && err.contains("out.adj"), "{what}: {err}");
    });
}
