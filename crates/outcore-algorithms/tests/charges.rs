//! What the traverse engine's algorithms charge to the budget against what
//! they allocate: a counting allocator measures how far the heap grows
//! during a run, and the charge for the run's state must cover it (the
//! budget is a promise: README "Memory budget").

mod common;

use outcore_algorithms::registry::find;
use outcore_algorithms::sssp::delta::{sssp_delta, state_bytes};
use outcore_algorithms::sssp::{sssp, ShortestPaths};
use outcore_engines::{Traverse, TraverseOptions};
use outcore_ingest::{import_file, ImportOptions, NoProgress};
use outcore_io::heap::{heap_growth, live_bytes, CountingAllocator};
use outcore_io::Budget;
use outcore_store::{Layout, Store};

#[global_allocator]
static HEAP: CountingAllocator = CountingAllocator;

/// The tests of this file take turns: the counters are the process's.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// How far the heap grows while `work` runs ([`heap_growth`]), within the
/// suite's time bound ([`common::bounded`]: a run that hangs fails the
/// test binary; its watch is set before the heap is measured).
fn measured<T>(work: impl FnOnce() -> T) -> (T, u64) {
    common::bounded("a measured run", || heap_growth(work))
}

/// A skewed graph: `arcs` draws over `n` vertices, the AND of two uniform
/// draws (low ids are hubs), weighted; imported as `opts` says.
fn skewed_as(dir: &std::path::Path, n: u64, arcs: u64, opts: &ImportOptions) -> Store {
    random_as(dir, n, arcs, true, opts)
}

/// `arcs` weighted draws over `n` vertices, each end the AND of two uniform
/// draws when `skewed` (low ids are hubs), else one.
fn random_as(dir: &std::path::Path, n: u64, arcs: u64, skewed: bool, opts: &ImportOptions) -> Store {
    let edges = dir.join("skewed.wel");
    let mut rng = outcore_io::SplitMix64(11);
    let mut text = String::new();
    let mut end = || if skewed { (rng.next_u64() % n) & (rng.next_u64() % n) } else { rng.next_u64() % n };
    for _ in 0..arcs {
        let (a, b) = (end(), end());
        let w = ((a * 31 + b * 17) % 1000) as f64 / 100.0;
        text.push_str(&format!("{a} {b} {w}\n"));
    }
    std::fs::write(&edges, text).unwrap();
    let out = dir.join("s");
    import_file(&edges, &out, opts, &NoProgress).unwrap();
    Store::open(&out).unwrap()
}

/// `arcs` uniform draws over `n` ids, weighted and directed, with `in`
/// and tiles of 2^`span_bits` vertices.
fn uniform_with_tiles(dir: &std::path::Path, n: u64, arcs: u64, span_bits: u32) -> Store {
    let opts = ImportOptions { directed: Some(true), weighted: true, in_layout: true, ..Default::default() };
    let path = random_as(dir, n, arcs, false, &opts).dir().to_path_buf();
    outcore_ingest::tiles::add_tiles(&path, 1, span_bits, 1 << 30, &NoProgress).unwrap();
    Store::open(&path).unwrap()
}

/// The skewed graph weighted and directed, with `in`.
fn skewed(dir: &std::path::Path, n: u64, arcs: u64) -> Store {
    skewed_as(dir, n, arcs, &ImportOptions { directed: Some(true), weighted: true, in_layout: true, ..Default::default() })
}

/// The skewed graph weighted and directed, with `in` and tiles of
/// 2^`span_bits` vertices.
fn skewed_with_tiles(dir: &std::path::Path, n: u64, arcs: u64, span_bits: u32) -> Store {
    let path = skewed(dir, n, arcs).dir().to_path_buf();
    outcore_ingest::tiles::add_tiles(&path, 1, span_bits, 1 << 30, &NoProgress).unwrap();
    Store::open(&path).unwrap()
}

/// The lists the engine's readers decode into their callers' buffers
/// (neighbours as u64, weights as f32) are the engine's charge
/// (`Traverse::open`), not the algorithm's: the run may add one such list
/// per reader, the longest at most, beyond what it charges.
fn list_buffers(store: &Store, readers: u64) -> u64 {
    readers * 12 * store.layout("out").unwrap().longest_list().unwrap()
}

/// The traverse algorithms' charges (what `--memory` is split by) cover
/// how far the heap grows while they run, from a hub and from an ordinary
/// vertex, on two threads.
#[test]
fn traversals_charge_what_they_allocate() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let dir = tempfile::tempdir().unwrap();
    traversals_charge_what_they_allocate_on(&skewed(dir.path(), 50_000, 400_000));
}

/// The same on a wide, sparse store (a million arcs between ends drawn
/// from 20 million ids: some 1.9 million vertices, most of one arc), where
/// the per-vertex state is more than the per-round charges beside it
/// (delta-stepping's offer rounds, 12 MiB, hid a charge of a 24th of its
/// state on the skewed store).
#[test]
fn traversals_charge_what_they_allocate_on_a_wide_sparse_store() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let opts = ImportOptions { directed: Some(true), weighted: true, in_layout: true, ..Default::default() };
    let store = random_as(dir.path(), 20_000_000, 1_000_000, false, &opts);
    assert!(store.vertices() > 1_800_000, "{} vertices", store.vertices());
    traversals_charge_what_they_allocate_on(&store);
}

/// The same on a star (300,000 leaves, weighted, directed both ways):
/// the centre's list alone is more than a round of arcs (a round holds it
/// whole), and every arc of it offers a shorter path.
#[test]
fn traversals_charge_what_they_allocate_on_a_star() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let edges = dir.path().join("star.wel");
    let text: String = (1..=300_000u64).map(|v| format!("0 {v} {}\n{v} 0 1\n", (v % 7) as f64 + 0.5)).collect();
    std::fs::write(&edges, text).unwrap();
    let opts = ImportOptions { directed: Some(true), weighted: true, in_layout: true, ..Default::default() };
    import_file(&edges, &dir.path().join("s"), &opts, &NoProgress).unwrap();
    traversals_charge_what_they_allocate_on(&Store::open(&dir.path().join("s")).unwrap());
}

/// The same on a two-level tree (a root, 600 hubs, 600 leaves each,
/// weighted, directed both ways): the hubs' lists together are more than a
/// round of arcs, each list short, so a round's offers fill while the
/// readers' list buffers (the slack) stay small.
#[test]
fn traversals_charge_what_they_allocate_on_a_two_level_tree() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let edges = dir.path().join("tree.wel");
    let mut text = String::new();
    for hub in 1..=600u64 {
        text.push_str(&format!("0 {hub} 1\n{hub} 0 1\n"));
        for leaf in 0..600u64 {
            let v = 601 + (hub - 1) * 600 + leaf;
            text.push_str(&format!("{hub} {v} {}\n{v} {hub} 1\n", (v % 7) as f64 + 0.5));
        }
    }
    std::fs::write(&edges, text).unwrap();
    let opts = ImportOptions { directed: Some(true), weighted: true, in_layout: true, ..Default::default() };
    import_file(&edges, &dir.path().join("s"), &opts, &NoProgress).unwrap();
    traversals_charge_what_they_allocate_on(&Store::open(&dir.path().join("s")).unwrap());
}

/// The same where a round's offers take the most room: the per-piece
/// offer vectors of a round grow by doubling, so their room reaches twice
/// their offers when each piece holds just over a power of two. A root
/// reaches 2,048 hubs (weights 1), one round, cut on two threads into
/// eight pieces of 256 hubs. Six pieces offer 32,769
/// paths and two 16,385 (each hub 128 or 64 leaves, one in each piece one
/// more): 229,384 offers in vectors with room for 458,752, 11.0 MB, which
/// is more than a charge of one round of offers.
#[test]
fn traversals_charge_what_they_allocate_on_uneven_hubs() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let edges = dir.path().join("hubs.wel");
    let mut text = String::new();
    let mut next_leaf = 2049u64;
    for hub in 1..=2048u64 {
        text.push_str(&format!("0 {hub} 1\n"));
        let piece = (hub - 1) / 256;
        let leaves = if piece < 6 { 128 } else { 64 } + u64::from((hub - 1) % 256 == 0);
        for _ in 0..leaves {
            text.push_str(&format!("{hub} {next_leaf} 1\n"));
            next_leaf += 1;
        }
    }
    std::fs::write(&edges, text).unwrap();
    let opts = ImportOptions { directed: Some(true), weighted: true, in_layout: true, ..Default::default() };
    import_file(&edges, &dir.path().join("s"), &opts, &NoProgress).unwrap();
    let store = Store::open(&dir.path().join("s")).unwrap();
    assert!(store.ids().unwrap().is_identity(), "the hubs keep their ids, so a round holds them in this order");
    traversals_charge_what_they_allocate_on(&store);
}

fn traversals_charge_what_they_allocate_on(store: &Store) {
    use outcore_algorithms::bfs::{bfs, hybrid, hybrid_bfs, BfsTree, HotLists};
    let (n, m) = (store.vertices(), store.manifest().arcs);
    let budget = Budget::new(1 << 30);
    // the engines take their readers from the pool they open in: two, on
    // a machine (or a taskset) of one core too
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let mut eng = pool.install(|| Traverse::open(store, "out", &budget, &TraverseOptions::default(), 0)).unwrap();
    let inn = pool.install(|| Traverse::open(store, "in", &budget, &TraverseOptions::default(), 0)).unwrap();
    let mut hot = HotLists::build(store, "in", &inn, 0, &budget, "no hot lists: the test asks for none".into()).unwrap();
    let slack = list_buffers(store, 3);
    let check = |what: &str, charged: u64, run: &mut dyn FnMut()| {
        let ((), grown) = measured(run);
        assert!(grown <= charged + slack, "{what}: the heap grew {grown} bytes; {charged} charged, and {slack} of list buffers");
        // kept for the check below that the counter counts at all
        grown
    };
    let mut most = [0u64; 4];
    for root in [0, n / 2] {
        most[0] = most[0].max(check(&format!("delta-stepping from {root}"), state_bytes(n, m), &mut || {
            pool.install(|| sssp_delta(&eng, root, None, &budget)).unwrap();
        }));
        most[1] = most[1].max(check(&format!("Dijkstra from {root}"), ShortestPaths::state_bytes(n), &mut || {
            sssp(&mut eng, root, &budget).unwrap();
        }));
        most[2] = most[2].max(check(&format!("top-down BFS from {root}"), BfsTree::state_bytes(n, m), &mut || {
            pool.install(|| bfs(&mut eng, root, &budget)).unwrap();
        }));
        most[3] = most[3].max(check(&format!("hybrid BFS from {root}"), hybrid::state_bytes(n, m), &mut || {
            pool.install(|| hybrid_bfs(&eng, Some(&inn), &mut hot, root, &budget, &Default::default())).unwrap();
        }));
        // in-memory neighbours gathered by the search, two lanes of scans
        // for its dense steps and room for the lists: its charge covers
        // what they and the scans take (the lists stay after the search)
        let (least, lane) = HotLists::gather_bytes(store, "in").unwrap();
        let share = least + 2 * lane + (256 << 10);
        let mut gathered = None;
        check(&format!("hybrid BFS from {root}, gathering"), hybrid::state_bytes(n, m) + share, &mut || {
            let mut hot = pool.install(|| HotLists::gather_within(store, "in", &inn, share, &budget, "the test gathers".into())).unwrap();
            pool.install(|| hybrid_bfs(&eng, Some(&inn), &mut hot, root, &budget, &Default::default())).unwrap();
            gathered = Some(hot);
        });
        let summary = gathered.unwrap().gathered().unwrap();
        assert_eq!(summary.lanes, 2, "{summary:?}");
    }
    // each run allocated a good part of its state: the counter counts
    for (what, (grown, charged)) in ["delta", "Dijkstra", "BFS", "hybrid"].iter().zip(most.iter().zip([
        state_bytes(n, m),
        ShortestPaths::state_bytes(n),
        BfsTree::state_bytes(n, m),
        hybrid::state_bytes(n, m),
    ])) {
        assert!(*grown >= charged / 8, "{what}: the heap grew only {grown} bytes of {charged} charged");
    }
}

/// Whether `OUTCORE_TABLE_ONLY` leaves some algorithms out
/// ([`common::registered`]): then the counts of pairs run are not checked.
fn filtered() -> bool {
    common::registered().len() < outcore_algorithms::registry::ALGORITHMS.len()
}

/// Bookkeeping a run keeps beside its charges: the report, the plan and
/// their strings, a thread pool's queues.
const BOOKKEEPING: u64 = 64 << 10;

/// Every registered algorithm on every engine it declares, through the
/// library's skeleton (plan, run, report): the heap grows no further than
/// the run's budget peak less the process baseline (which is not heap of
/// the run), but for list buffers and bookkeeping. ALS, which needs
/// ratings, is checked by tests/als.rs.
fn every_algorithm_charges_what_it_allocates_on(store: &Store) -> usize {
    use outcore_algorithms::params::Args;
    use outcore_algorithms::{EngineChoice, Error, RunOptions};
    let algorithms: Vec<_> = common::registered().into_iter().filter(|a| a.info().name != "als").collect();
    if algorithms.is_empty() {
        // OUTCORE_TABLE_ONLY names none of them
        return 0;
    }
    let slack = list_buffers(store, 3) + BOOKKEEPING;
    // a run first, unmeasured: what the process allocates once, on its
    // first parallel pass over tiles (the thread pool's queues, some 47 KiB
    // here), is no run's
    if store.manifest().tiles.is_some() {
        let wcc = find("wcc").unwrap();
        let opts = RunOptions { memory: 1 << 30, engine: EngineChoice::Fixed(outcore_algorithms::Engine::Memory), ..Default::default() };
        common::bounded("wcc", || wcc.run(store, &Args::new(), &opts)).unwrap();
    }
    let (mut ran, mut validators_allocated) = (0, 0);
    let mut validated = std::collections::HashSet::new();
    for alg in algorithms {
        let info = alg.info();
        let args = match info.name {
            "bc" => Args::new().with("sources", 4),
            "pagerank" => Args::new().with("iterations", 5),
            "cdlp" => Args::new().with("iterations", 3),
            _ => Args::new(),
        };
        for &engine in info.engines {
            let what = format!("{} on {engine}", info.name);
            let opts = RunOptions { memory: 1 << 30, engine: EngineChoice::Fixed(engine), ..Default::default() };
            let before = live_bytes();
            let (run, grown) = measured(|| alg.run(store, &args, &opts));
            let run = match run {
                Ok(run) => run,
                // what the algorithm declines on this engine or store (CDLP
                // and SpMV on sort-reduce, SCC on an undirected store)
                Err(Error::Unsupported { .. }) => continue,
                Err(e) => panic!("{what}: {e}"),
            };
            let charged = run.report.budget_peak_bytes - outcore_io::PROCESS_BASELINE;
            assert!(
                grown <= charged + slack,
                "{what}: the heap grew {grown} bytes; {charged} charged, and {slack} of list buffers and bookkeeping"
            );
            // what the finished run keeps (its results) stays charged
            // while it is kept: the output and the validation run beside it.
            // Its report is not charged (a sort-reduce run's figures of
            // each superstep take up to 1 MB here: its heap is that of a
            // copy), nor the statistics a sort-reduce engine kept with its
            // results keeps, which the report's figures are made from (no
            // larger than the report)
            let report = run.report.clone();
            let with_report = live_bytes();
            drop(report);
            let report_bytes = (with_report - live_bytes()).max(0);
            let kept = (live_bytes() - before - report_bytes).max(0) as u64;
            let held = run.budget.used() - outcore_io::PROCESS_BASELINE;
            let statistics = if engine == outcore_algorithms::Engine::SortReduce { report_bytes as u64 } else { 0 };
            assert!(
                kept <= held + statistics + BOOKKEEPING,
                "{what}: the finished run keeps {kept} bytes of heap beside its report ({report_bytes} bytes); {held} still charged"
            );
            assert!(grown >= charged / 8, "{what}: the heap grew only {grown} bytes of {charged} charged: is the counter counting?");
            // its validator, likewise: the heap grows no further than the
            // budget's peak above what the run still holds (its results);
            // once for results in memory and once for results on disk (a
            // validator reads them alike from every engine that keeps them so)
            let in_memory = run.outcome.columns.iter().all(|c| c.data.slice().is_some());
            if validated.insert((info.name, in_memory)) {
                run.budget.reset_peak();
                let held = run.budget.used();
                let (verdict, grown) = measured(|| alg.validate(store, &args, &run));
                let verdict = verdict.unwrap_or_else(|e| panic!("{what}: validation: {e}"));
                assert!(verdict.passed, "{what}: validation failed: {}", verdict.detail);
                let charged = run.budget.peak() - held;
                assert!(
                    grown <= charged + slack,
                    "{what}: validating, the heap grew {grown} bytes; {charged} charged, and {slack} of list buffers and bookkeeping"
                );
                // nor does it charge many times what it takes, which a budget
                // that would do asks the user for
                assert!(grown >= charged / 8, "{what}: validating, the heap grew only {grown} bytes of {charged} charged");
                validators_allocated += grown;
            }
            ran += 1;
        }
    }
    assert!(validators_allocated > 0, "the validators allocated nothing: is the counter counting?");
    ran
}

/// A weighted directed store (raw32) with `in`, tiles and no hot lists.
#[test]
fn every_algorithm_charges_what_it_allocates() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let ran = every_algorithm_charges_what_it_allocates_on(&skewed_with_tiles(dir.path(), 50_000, 400_000, 14));
    assert!(ran >= 25 || filtered(), "only {ran} algorithm and engine pairs ran");
}

/// An undirected weighted store in gapref (blocked, a decoder per
/// reader) with tiles and stored hot lists: what the other store does not
/// reach (a compressed scan, the stored hot column, symmetric lists).
#[test]
fn every_algorithm_charges_what_it_allocates_on_a_compressed_undirected_store() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let opts =
        ImportOptions { directed: Some(false), weighted: true, encoding: Some(outcore_store::Encoding::Gapref), ..Default::default() };
    let path = skewed_as(dir.path(), 50_000, 200_000, &opts).dir().to_path_buf();
    outcore_ingest::tiles::add_tiles(&path, 1, 14, 1 << 30, &NoProgress).unwrap();
    outcore_ingest::hot::add_hot(&path, 4, 1 << 30, &NoProgress).unwrap();
    let store = Store::open(&path).unwrap();
    assert_eq!(store.layout("out").unwrap().record().encoding, outcore_store::Encoding::Gapref);
    let ran = every_algorithm_charges_what_it_allocates_on(&store);
    assert!(ran >= 20 || filtered(), "only {ran} algorithm and engine pairs ran");
}

/// An undirected unweighted store of `arcs` uniform draws over `n` ids,
/// at `dir`/s.
fn unweighted_uniform(dir: &std::path::Path, n: u64, arcs: u64, seed: u64) -> std::path::PathBuf {
    let edges = dir.join("uniform.el");
    let mut rng = outcore_io::SplitMix64(seed);
    let text: String = (0..arcs).map(|_| format!("{} {}\n", rng.next_u64() % n, rng.next_u64() % n)).collect();
    std::fs::write(&edges, text).unwrap();
    let path = dir.join("s");
    import_file(&edges, &path, &ImportOptions { directed: Some(false), ..Default::default() }, &NoProgress).unwrap();
    path
}

/// Hot lists loaded from a stored hot layout (four columns, read on two
/// threads) on an unweighted store without hubs: while they load, the heap
/// grows no further than what loading them charges (the columns, their
/// cursors and a reader a thread). (Before the readers were charged, the
/// heap grew 4.2 MB past the charge here: two readers of 2 MiB each.)
#[test]
fn stored_hot_lists_charge_the_readers_they_load_with() {
    use outcore_algorithms::bfs::HotLists;
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let path = unweighted_uniform(dir.path(), 50_000, 200_000, 5);
    outcore_ingest::hot::add_hot(&path, 4, 1 << 30, &NoProgress).unwrap();
    let store = Store::open(&path).unwrap();
    let budget = Budget::new(1 << 30);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let g = pool.install(|| Traverse::open(&store, "out", &budget, &TraverseOptions::default(), 0)).unwrap();
    let (before, k) = (budget.used(), HotLists::stored_k(&store, "in", 1 << 28).unwrap());
    assert_eq!(k, 4, "every stored column fits");
    budget.reset_peak();
    let (hot, grown) = measured(|| pool.install(|| HotLists::open(&store, "in", &g, 1 << 28, &budget)).unwrap());
    let charged = budget.peak() - before;
    assert!(grown <= charged + BOOKKEEPING, "loading {k} columns, the heap grew {grown} bytes; {charged} charged");
    drop(hot);
}

/// A store's id map streamed in dense order (`Ids::stream`, which export
/// and the partitioner read it by): the heap grows no further than
/// `ID_STREAM_BYTES`, and to within a reader's bookkeeping of it. The map
/// holds 200,000 ids, more than a chunk's.
#[test]
fn an_id_stream_holds_what_it_is_charged() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let edges = dir.path().join("path.el");
    let n = 200_000u64;
    let text: String = (0..n - 1).map(|i| format!("{} {}\n", 3 * i + 7, 3 * i + 10)).collect();
    std::fs::write(&edges, text).unwrap();
    let path = dir.path().join("s");
    import_file(&edges, &path, &ImportOptions { directed: Some(true), ..Default::default() }, &NoProgress).unwrap();
    let store = Store::open(&path).unwrap();
    let ids = store.ids().unwrap();
    assert!(!ids.is_identity(), "a map of sparse ids");
    let (sum, grown) = measured(|| {
        let mut stream = ids.stream().unwrap();
        let mut sum = 0u64;
        while let Some(id) = stream.next_id().unwrap() {
            sum += id;
        }
        sum
    });
    assert_eq!(sum, (0..n).map(|i| 3 * i + 7).sum::<u64>(), "every id once");
    let charged = outcore_store::ids::ID_STREAM_BYTES;
    assert!(grown <= charged, "the heap grew {grown} bytes, {charged} charged");
    assert!(grown + outcore_io::SEQ_READER_BOOKKEEPING >= charged, "the heap grew only {grown} bytes, {charged} charged");
}

/// A store without hubs (uniform ends, lists of a few dozen at most): the
/// readers' list buffers are a few KiB, so every per-vertex charge is
/// checked to within them (on the skewed stores a hub's list is more than
/// some states).
#[test]
fn every_algorithm_charges_what_it_allocates_on_a_store_without_hubs() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let store = uniform_with_tiles(dir.path(), 200_000, 600_000, 14);
    assert!(list_buffers(&store, 3) + BOOKKEEPING < 200_000 * 2, "lists of {}", store.layout("out").unwrap().longest_list().unwrap());
    let ran = every_algorithm_charges_what_it_allocates_on(&store);
    assert!(ran >= 25 || filtered(), "only {ran} algorithm and engine pairs ran");
}

/// A wide, sparse store (a million vertices, a million uniform arcs):
/// every per-vertex state is many times the fixed charges beside it (the
/// scans' read-ahead windows, up to 2 MiB a file; delta-stepping's offer
/// rounds, 12 MiB), so a per-vertex charge that fell short would show even
/// where those fixed charges go unused (on the smaller stores they hid a
/// CDLP scan charging no labels and delta-stepping charging a 24th of its
/// state).
#[test]
fn every_algorithm_charges_what_it_allocates_on_a_wide_sparse_store() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let store = uniform_with_tiles(dir.path(), 1_000_000, 1_000_000, 16);
    assert!(store.vertices() > 800_000, "{} vertices", store.vertices());
    let ran = every_algorithm_charges_what_it_allocates_on(&store);
    assert!(ran >= 25 || filtered(), "only {ran} algorithm and engine pairs ran");
}

/// BC's targets are charged as they are held, 8 bytes a target: a run
/// with every vertex a target peaks at least that much above the same run
/// without targets, on the traverse engine, and so does its validation.
/// (The run-wide check above cannot see this charge: on a small store the
/// block cache's reservation covers far more than the heap grows.
/// Sort-reduce is left out: its sort buffers take whatever the budget
/// has, so its peak is the budget. The store is wide and sparse, so the
/// reference's state is larger than the read-ahead of the scan that loads
/// the graph, whose charge ends before the reference's begins.)
#[test]
fn bc_charges_its_targets() {
    use outcore_algorithms::params::Args;
    use outcore_algorithms::{Engine, EngineChoice, RunOptions};
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let store = uniform_with_tiles(dir.path(), 200_000, 200_000, 14);
    let n = store.vertices();
    assert!(n > 100_000, "{n} vertices");
    let mut ids = store.ids().unwrap().stream().unwrap();
    let mut with_targets = Args::new().with("sources", 2);
    while let Some(id) = ids.next_id().unwrap() {
        with_targets.set("target", id.to_string());
    }
    let bc = find("bc").unwrap();
    let opts = RunOptions { memory: 1 << 30, engine: EngineChoice::Fixed(Engine::Traverse), ..Default::default() };
    let without_targets = Args::new().with("sources", 2);
    let runs = [&without_targets, &with_targets].map(|args| common::bounded("bc", || bc.run(&store, args, &opts)).unwrap());
    let [without, with] = runs.each_ref().map(|r| r.report.budget_peak_bytes);
    assert!(with >= without + 8 * n, "BC: {n} targets raised the budget's peak from {without} to {with} bytes, not by {}", 8 * n);
    // and the reference that validates the run holds the targets too,
    // as it charges them: its state is known to the byte, so its charge
    // is what the heap grows, no more and no less
    let [without, with] = [(&without_targets, &runs[0]), (&with_targets, &runs[1])].map(|(args, run)| {
        run.budget.reset_peak();
        let held = run.budget.used();
        let (verdict, grown) = measured(|| bc.validate(&store, args, run));
        assert!(verdict.unwrap().passed);
        let charged = run.budget.peak() - held;
        assert!(charged.abs_diff(grown) <= BOOKKEEPING, "BC's validation: the heap grew {grown} bytes, {charged} charged");
        charged
    });
    assert!(with >= without + 8 * n, "BC's validation: {n} targets raised its charge from {without} to {with} bytes, not by {}", 8 * n);
}

/// WCC's traverse versions charge their state apart from their reads: the
/// labels union-find returns are covered by the charge returned with them,
/// and Afforest's heap grows no further than its charges less its reads'
/// (what a plain scan of `out` allocates stands in for those) by more
/// than bookkeeping. On a million vertices the state is megabytes (the
/// forest 4 MB, the linked-lists bitmap 125 KB) and the fixed charges
/// beside it (the reads' windows) cannot hide a part of it.
#[test]
fn wcc_charges_its_state_apart_from_its_reads() {
    use outcore_algorithms::wcc::{afforest, union_find};
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let store = uniform_with_tiles(dir.path(), 1_000_000, 1_000_000, 16);
    let n = store.vertices();

    let (labels, charge) = union_find::wcc_charged(&store, &Budget::unlimited()).unwrap();
    assert_eq!(labels.len() as u64, n);
    assert!(charge.bytes() >= 4 * labels.capacity() as u64, "union-find: {} bytes charged for {n} labels", charge.bytes());

    let (_, scanned) = measured(|| {
        let mut scan = store.layout("out").unwrap().scan().unwrap();
        while scan.next_list().unwrap().is_some() {}
    });
    let budget = Budget::unlimited();
    let (run, grown) = measured(|| afforest::wcc_charged(&store, &budget));
    let (labels, _charge, _) = run.unwrap();
    assert_eq!(labels, union_find::wcc(&store, &Budget::unlimited()).unwrap(), "Afforest and union-find");
    let state = budget.peak() - afforest::read_bytes(&store).unwrap();
    assert!(
        grown <= state + scanned + BOOKKEEPING,
        "Afforest: the heap grew {grown} bytes; {state} charged for its state, a scan allocates {scanned}"
    );
}

/// Afforest on an unweighted store, sampling from a hot layout of two and
/// of four columns (it reads two side by side, beside the degrees) and
/// from a scan: the heap grows no further than the run's peak charge.
/// (Before the columns' streams were charged, the heap grew 5.39 MB where
/// 3.81 MB were charged on this store.)
#[test]
fn afforest_sampling_from_hot_columns_charges_their_streams() {
    use outcore_algorithms::wcc::{afforest, union_find};
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let dir = tempfile::tempdir().unwrap();
    // unweighted: a scan of `out` reads no weights, whose reader's charge
    // would cover the columns' streams
    let path = unweighted_uniform(dir.path(), 20_000, 60_000, 3);
    let expected = union_find::wcc(&Store::open(&path).unwrap(), &Budget::unlimited()).unwrap();
    for columns in [0, 2, 4] {
        if columns > 0 {
            outcore_ingest::hot::add_hot(&path, columns, 1 << 30, &NoProgress).unwrap();
        }
        let store = Store::open(&path).unwrap();
        let budget = Budget::new(1 << 30);
        let (run, grown) = measured(|| afforest::wcc_charged(&store, &budget));
        let (labels, _charge, stats) = run.unwrap();
        assert_eq!(labels, expected, "{columns} columns: Afforest and union-find");
        assert_eq!(stats.sampled_from, if columns > 0 { "hot" } else { "heads" }, "{columns} columns");
        let peak = budget.peak();
        assert!(grown <= peak + BOOKKEEPING, "{columns} columns: the heap grew {grown} bytes, {peak} charged at the peak");
    }
}

/// A weighted star of 300,000 leaves around vertex 0, with a ring of
/// 1,000 among the leaves, directed or not, with `in` (and tiles of 2^14
/// vertices when asked): one list holds most of the arcs, so a vector the
/// size of the longest list that goes uncharged, or grows by doubling, is
/// megabytes.
fn star(dir: &std::path::Path, directed: bool, tiles: bool) -> Store {
    let edges = dir.join("star.wel");
    if !edges.exists() {
        let text: String = (1..=300_000u64).map(|leaf| format!("0 {leaf} 1.5\n{leaf} {} 2\n", leaf % 1000 + 1)).collect();
        std::fs::write(&edges, text).unwrap();
    }
    let path = dir.join(format!("star-{directed}-{tiles}"));
    let opts = ImportOptions { directed: Some(directed), weighted: true, in_layout: true, ..Default::default() };
    import_file(&edges, &path, &opts, &NoProgress).unwrap();
    if tiles {
        outcore_ingest::tiles::add_tiles(&path, 1, 14, 1 << 30, &NoProgress).unwrap();
    }
    Store::open(&path).unwrap()
}

/// What Afforest's first reader of the lists' heads allocates, measured
/// alone: the page checksums registered and a head scan of every vertex.
fn heads_allocate(store: &Store) -> u64 {
    measured(|| {
        let lay = store.layout("out").unwrap();
        let pages = lay.check_by_pages(&Budget::unlimited()).unwrap();
        let mut heads = lay.scan_heads(0, store.vertices(), afforest_limit(), &pages).unwrap();
        while heads.next_head().unwrap().is_some() {}
    })
    .1
}

/// Registering a layout's page checksums charges, at its peak, what it
/// allocates at its peak (the checksums it keeps and the reader it reads
/// them with, let go before it returns), and keeps charged what it keeps.
#[test]
fn page_checksums_charge_their_reader_while_it_reads() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let store = star(dir.path(), false, false);
    let lay = store.layout("out").unwrap();
    let budget = Budget::new(1 << 30);
    let (pages, grown) = measured(|| lay.check_by_pages(&budget).unwrap());
    assert!(lay.page_sums_bytes() > 0, "the star store has page checksums");
    assert!(grown > lay.page_sums_bytes(), "the reader allocates beside the checksums: {grown} bytes");
    assert!(budget.peak() >= grown, "charged at most {} bytes, allocated {grown}", budget.peak());
    assert!(budget.peak() <= lay.page_sums_bytes() + Layout::PAGE_SUMS_READER_BYTES, "charged {} at its peak", budget.peak());
    assert_eq!(budget.used(), lay.page_sums_bytes(), "what is kept stays charged");
    drop(pages);
    assert_eq!(budget.used(), 0);
}

/// The entries a list's head holds for Afforest's sampling.
fn afforest_limit() -> usize {
    outcore_algorithms::wcc::afforest::NEIGHBOUR_ROUNDS + 1
}

/// How far the heap grows while `layouts` of `store` are scanned in
/// lockstep (a list of each in turn).
fn scans_allocate(store: &Store, layouts: &[&str]) -> u64 {
    measured(|| {
        let mut scans: Vec<_> = layouts.iter().map(|l| store.layout(l).unwrap().scan().unwrap()).collect();
        let mut going = true;
        while going {
            going = false;
            for scan in &mut scans {
                going |= scan.next_list().unwrap().is_some();
            }
        }
    })
    .1
}

/// CDLP's scan gathers one vertex's neighbour labels at a time (its out-
/// and, in lockstep, in-list), and charges them: on the stars (and one
/// whose hub's out- and in-list are both the longest) the heap
/// grows no further than what the run charges beside its scans, what the
/// scans themselves allocate (measured alone: their charge may exceed it)
/// and bookkeeping.
#[test]
fn cdlp_scan_charges_the_labels_of_its_longest_list() {
    use outcore_algorithms::params::Args;
    use outcore_algorithms::{Engine, EngineChoice, RunOptions};
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let cdlp = find("cdlp").unwrap();
    let dir = tempfile::tempdir().unwrap();
    // and a directed star whose hub links both ways: its out- and in-list
    // are both the longest
    let both = dir.path().join("both.el");
    std::fs::write(&both, (1..=300_000u64).map(|leaf| format!("0 {leaf}\n{leaf} 0\n")).collect::<String>()).unwrap();
    let path = dir.path().join("both");
    import_file(&both, &path, &ImportOptions { directed: Some(true), in_layout: true, ..Default::default() }, &NoProgress).unwrap();
    for store in [star(dir.path(), false, false), star(dir.path(), true, false), Store::open(&path).unwrap()] {
        let directed = store.manifest().directed;
        let layouts: &[&str] = if directed { &["out", "in"] } else { &["out"] };
        let scanned = scans_allocate(&store, layouts);
        let opts = RunOptions { memory: 1 << 30, engine: EngineChoice::Fixed(Engine::Traverse), ..Default::default() };
        let (run, grown) = measured(|| cdlp.run(&store, &Args::new().with("iterations", 2), &opts));
        let run = run.unwrap();
        let scans = outcore_algorithms::needs::scan_bytes(&store, layouts).unwrap();
        let state = run.report.budget_peak_bytes - outcore_io::PROCESS_BASELINE - scans;
        assert!(
            grown <= state + scanned + BOOKKEEPING,
            "directed {directed}: the heap grew {grown} bytes; {state} charged beside the scans, which allocate {scanned}"
        );
    }
}

/// Parameters that keep the star runs short.
fn short(alg: &dyn outcore_algorithms::registry::Registered) -> outcore_algorithms::params::Args {
    use outcore_algorithms::params::Args;
    match alg.info().name {
        "pagerank" | "cdlp" => Args::new().with("iterations", 2),
        "bc" => Args::new().with("sources", 2),
        _ => Args::new(),
    }
}

/// Every version that runs as sequential scans (the report's `passes`)
/// charges what it allocates beside its scans: on the stars, undirected
/// and directed, the heap grows no further than the run charges less the
/// charge for a scan of `out`, plus what that scan allocates when measured
/// alone, plus bookkeeping (CDLP's labels and k-core's h-index counts and
/// neighbourhoods did). Afforest, which reads the lists' heads in place of
/// the scan (the scan's charge holds its first reader), is measured
/// against what a head scan allocates alone; its other lanes are charged
/// beside (a batch's index entries, grown by doubling, once went past
/// their charge).
#[test]
fn scan_versions_charge_what_they_allocate_beside_their_scans() {
    use outcore_algorithms::{Engine, EngineChoice, Error, RunOptions};
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let mut scanned_runs = 0;
    for directed in [false, true] {
        let store = star(dir.path(), directed, false);
        let scanned = scans_allocate(&store, &["out"]);
        let heads_read = heads_allocate(&store);
        let scan_charge = outcore_algorithms::needs::scan_bytes(&store, &["out"]).unwrap();
        for alg in common::registered().into_iter().filter(|a| a.info().engines.contains(&Engine::Traverse)) {
            let opts = RunOptions { memory: 1 << 30, engine: EngineChoice::Fixed(Engine::Traverse), ..Default::default() };
            let what = format!("{} (directed {directed})", alg.info().name);
            let (run, grown) = measured(|| alg.run(&store, &short(alg), &opts));
            let run = match run {
                Ok(run) => run,
                // ALS needs ratings (tests/als.rs)
                Err(Error::Store(outcore_store::StoreError::NotBipartite { .. })) => continue,
                Err(e) => panic!("{what}: {e}"),
            };
            if run.report.figure("passes").is_none() {
                // the traverse engine's readers, checked above
                continue;
            }
            let beside = run.report.budget_peak_bytes - outcore_io::PROCESS_BASELINE - scan_charge;
            let (reader, first) = match run.report.figure("sampled_from").and_then(|f| f.as_str()) {
                Some("heads") => ("a head scan", heads_read),
                _ => ("a scan of out", scanned),
            };
            assert!(
                grown <= beside + first + BOOKKEEPING,
                "{what}: the heap grew {grown} bytes; {beside} charged beside a scan of out, in whose place {reader} allocates {first}"
            );
            scanned_runs += 1;
        }
    }
    assert!(scanned_runs >= 12 || filtered(), "only {scanned_runs} runs by scans");
}

/// The tile, interval and sort-reduce versions charge what they allocate
/// where one vertex has most of the arcs: on the stars (with tiles), the
/// heap grows no further than the run charges and its bookkeeping. (The
/// interval engine's batches grew past their charge by the hub's list,
/// and CDLP's labels there went uncharged.)
#[test]
fn other_engines_charge_what_they_allocate_on_stars() {
    use outcore_algorithms::{Engine, EngineChoice, Error, RunOptions};
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let mut ran = 0;
    for directed in [false, true] {
        let store = star(dir.path(), directed, true);
        for alg in common::registered() {
            for &engine in alg.info().engines.iter().filter(|&&e| e != Engine::Traverse) {
                let what = format!("{} on {engine} (directed {directed})", alg.info().name);
                let opts = RunOptions { memory: 256 << 20, engine: EngineChoice::Fixed(engine), ..Default::default() };
                let (run, grown) = measured(|| alg.run(&store, &short(alg), &opts));
                let run = match run {
                    Ok(run) => run,
                    // what the algorithm declines (CDLP and SpMV on sort-reduce), or ALS without ratings
                    Err(Error::Unsupported { .. } | Error::Store(outcore_store::StoreError::NotBipartite { .. })) => continue,
                    Err(e) => panic!("{what}: {e}"),
                };
                let charged = run.report.budget_peak_bytes - outcore_io::PROCESS_BASELINE;
                assert!(grown <= charged + BOOKKEEPING, "{what}: the heap grew {grown} bytes; {charged} charged");
                ran += 1;
            }
        }
    }
    assert!(ran >= 30 || filtered(), "only {ran} algorithm and engine pairs ran");
}

/// CDLP's own charges beside what its engine and its reference share with
/// others. On intervals, the threads' labels: CDLP's run less WCC's over
/// the same layouts (the engine's I/O charge can exceed what it allocates,
/// and hides a few megabytes otherwise). In its validation by the
/// reference, the labels of two iterations (16 bytes a vertex) and one
/// vertex's label counts (the longest lists): on the undirected star (one
/// long list) and on a wide, sparse undirected store (some 1.9 million
/// vertices, most of one arc), the heap grows no further than validation
/// charges and bookkeeping.
#[test]
fn cdlp_charges_its_labels_on_intervals_and_in_its_reference() {
    use outcore_algorithms::params::Args;
    use outcore_algorithms::{Engine, EngineChoice, RunOptions};
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let by_name = |name: &str| find(name).unwrap();
    let (cdlp, wcc) = (by_name("cdlp"), by_name("wcc"));
    let args = Args::new().with("iterations", 2);
    let dir = tempfile::tempdir().unwrap();
    let on = |engine| RunOptions { memory: 1 << 30, engine: EngineChoice::Fixed(engine), ..Default::default() };
    let stars = [star(dir.path(), false, false), star(dir.path(), true, false)];
    for store in &stars {
        let directed = store.manifest().directed;
        let (w, wcc_grown) = measured(|| wcc.run(store, &Args::new(), &on(Engine::Interval)));
        let wcc_charged = w.unwrap().report.budget_peak_bytes;
        let (c, cdlp_grown) = measured(|| cdlp.run(store, &args, &on(Engine::Interval)));
        let cdlp_charged = c.unwrap().report.budget_peak_bytes;
        assert!(
            cdlp_grown as i64 - wcc_grown as i64 <= cdlp_charged as i64 - wcc_charged as i64 + BOOKKEEPING as i64,
            "CDLP on intervals (directed {directed}): the heap grew {cdlp_grown} bytes against WCC's {wcc_grown}; {cdlp_charged} charged against {wcc_charged}"
        );
    }
    let wide_dir = tempfile::tempdir().unwrap();
    let wide = random_as(wide_dir.path(), 20_000_000, 1_000_000, false, &ImportOptions { directed: Some(false), ..Default::default() });
    for (what, store) in [("the star", &stars[0]), ("the wide store", &wide)] {
        let run = common::bounded("cdlp", || cdlp.run(store, &args, &on(Engine::Traverse))).unwrap();
        run.budget.reset_peak();
        let held = run.budget.used();
        let (verdict, grown) = measured(|| cdlp.validate(store, &args, &run));
        assert!(verdict.unwrap().passed, "{what}: validation failed");
        let charged = run.budget.peak() - held;
        assert!(grown <= charged + BOOKKEEPING, "validating CDLP on {what}: the heap grew {grown} bytes; {charged} charged");
    }
}

/// What a larger graph adds to a measured run's heap growth against what
/// it adds to the run's charge, from (growth, charge) on a smaller and a
/// larger graph: the added growth is no more than the added charge (and
/// bookkeeping) and at least `floor` of it. The run's fixed charges (its
/// scans' buffers), which can cover an under-charge of a few bytes a
/// vertex on one graph, cancel out.
fn added_growth_follows_added_charge(what: &str, smaller: (u64, u64), larger: (u64, u64), floor: (u64, u64)) {
    let (grown, charged) = (larger.0 - smaller.0, larger.1 - smaller.1);
    assert!(grown <= charged + BOOKKEEPING, "{what}: the heap grew {grown} bytes more; {charged} more charged");
    assert!(grown >= charged / floor.1 * floor.0, "{what}: the heap grew only {grown} bytes more of {charged} more charged");
}

/// BFS's validation by the Graph500 rules, on undirected uniform stores of
/// 300,000 and 1,200,000 vertices (four arcs a vertex): the heap grows no
/// further than it charges and bookkeeping, and what the 900,000 more
/// vertices add to its growth is no more than they add to the charge and
/// at least nine tenths of it (levels, parents, depths and a bitmap, some
/// 12 bytes a vertex; the scan's fixed charges cancel out; unmutated,
/// 0.93: a charge of 8 bytes a vertex for the depths' 4, 0.88).
#[test]
fn bfs_validation_charges_what_it_allocates() {
    use outcore_algorithms::params::Args;
    use outcore_algorithms::RunOptions;
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let bfs = find("bfs").unwrap();
    let validated = |n: u64| -> (u64, u64) {
        let dir = tempfile::tempdir().unwrap();
        let store = random_as(dir.path(), n, 2 * n, false, &ImportOptions { directed: Some(false), ..Default::default() });
        let run = common::bounded("bfs", || bfs.run(&store, &Args::new(), &RunOptions { memory: 1 << 30, ..Default::default() })).unwrap();
        run.budget.reset_peak();
        let held = run.budget.used();
        let (verdict, grown) = measured(|| bfs.validate(&store, &Args::new(), &run));
        let verdict = verdict.unwrap();
        assert!(verdict.passed, "{n} vertices: validation failed: {}", verdict.detail);
        let charged = run.budget.peak() - held;
        assert!(grown <= charged + BOOKKEEPING, "validating BFS on {n} vertices: the heap grew {grown} bytes; {charged} charged");
        (grown, charged)
    };
    added_growth_follows_added_charge("validating, 900,000 more vertices", validated(300_000), validated(1_200_000), (9, 10));
}

/// SCC where Tarjan's step takes nearly every vertex: a chain of cycles
/// of three (each cycle a component, each pointing at the next), so that
/// the pivot's component is one cycle and the rest fits in memory at once.
/// Tarjan's state (ids, the subgraph's CSR, index, low link, stack flag
/// and slot, call frames: 41 bytes a vertex and 4 an arc) is the run's
/// largest. The heap grows no further than the run charges and
/// bookkeeping, on 50,000 cycles and on 150,000; and what the 100,000
/// more cycles add to the heap's growth is no more than they add to the
/// charge and at least four fifths of it (the scans' fixed charges, far
/// larger than a few bytes a vertex, cancel out; unmutated, 0.89). The
/// labels are each cycle's smallest id.
#[test]
fn scc_charges_tarjans_step_what_it_allocates() {
    use outcore_algorithms::params::Args;
    use outcore_algorithms::RunOptions;
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let scc = find("scc").unwrap();
    let run_on = |cycles: u64| -> (u64, u64) {
        let dir = tempfile::tempdir().unwrap();
        let mut text = String::new();
        for c in 0..cycles {
            let v = 3 * c;
            text.push_str(&format!("{v} {}\n{} {}\n{} {v}\n", v + 1, v + 1, v + 2, v + 2));
            if c + 1 < cycles {
                text.push_str(&format!("{} {}\n", v + 2, v + 3));
            }
        }
        let edges = dir.path().join("cycles.el");
        std::fs::write(&edges, text).unwrap();
        let opts = ImportOptions { directed: Some(true), in_layout: true, ..Default::default() };
        import_file(&edges, &dir.path().join("s"), &opts, &NoProgress).unwrap();
        let store = Store::open(&dir.path().join("s")).unwrap();
        let opts = RunOptions { memory: 1 << 30, ..Default::default() };
        let (run, grown) = measured(|| scc.run(&store, &Args::new(), &opts));
        let run = run.unwrap();
        let left = run.report.figure("left_to_tarjan_vertices").and_then(|v| v.as_u64()).unwrap();
        assert!(left >= 3 * cycles - 10, "{cycles} cycles: Tarjan's step took {left} of {} vertices", 3 * cycles);
        let charged = run.report.budget_peak_bytes - outcore_io::PROCESS_BASELINE;
        assert!(grown <= charged + BOOKKEEPING, "SCC on {cycles} cycles: the heap grew {grown} bytes; {charged} charged");
        let mut labelled = 0;
        run.outcome.columns[0]
            .data
            .for_each(&mut |v, label| {
                assert_eq!(label, outcore_algorithms::values::Value::U32((v / 3 * 3) as u32), "label of {v}");
                labelled += 1;
            })
            .unwrap();
        assert_eq!(labelled, 3 * cycles);
        (grown, charged)
    };
    added_growth_follows_added_charge("SCC, 100,000 more cycles", run_on(50_000), run_on(150_000), (4, 5));
}

/// SCC's validation, on a directed store of 200,000 vertices: with room
/// for the reference (the graph in memory and Tarjan's state), and with
/// 40 MiB, where it checks the labels with a scan of `out` instead (8
/// bytes a vertex, two bitmaps and the scan). Each time the heap grows no
/// further than it charges and bookkeeping, and by at least four fifths of
/// it (unmutated, 0.88 and 0.97).
#[test]
fn scc_validation_charges_what_it_allocates() {
    use outcore_algorithms::params::Args;
    use outcore_algorithms::RunOptions;
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let scc = find("scc").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let opts = ImportOptions { directed: Some(true), in_layout: true, ..Default::default() };
    let store = random_as(dir.path(), 200_000, 1_000_000, true, &opts);
    for (memory, method) in [(1u64 << 30, "reference"), (40 << 20, "scan")] {
        let run = common::bounded("scc", || scc.run(&store, &Args::new(), &RunOptions { memory, ..Default::default() })).unwrap();
        run.budget.reset_peak();
        let held = run.budget.used();
        let (verdict, grown) = measured(|| scc.validate(&store, &Args::new(), &run));
        let verdict = verdict.unwrap();
        assert!(verdict.passed, "{memory} bytes: validation failed: {}", verdict.detail);
        assert_eq!(verdict.method.contains("reference"), method == "reference", "{memory} bytes: {}", verdict.method);
        let charged = run.budget.peak() - held;
        assert!(grown <= charged + BOOKKEEPING, "validating SCC in {memory} bytes: the heap grew {grown} bytes; {charged} charged");
        assert!(grown >= charged / 5 * 4, "validating SCC in {memory} bytes: the heap grew only {grown} bytes of {charged} charged");
    }
}

/// The smallest budget a run goes ahead with is the one its plan states,
/// to the byte: below it the plan's check refuses, naming what the plan
/// needs, and at it the run goes ahead, with no later charge of its own
/// refused (a user told "the smallest budget that would work is ..." is
/// told the truth). Every registered algorithm but ALS (which needs
/// ratings) on every engine it declares, on a small weighted directed
/// store with `in` and tiles.
#[test]
fn every_algorithm_goes_ahead_at_the_budget_its_plan_states() {
    use outcore_algorithms::{EngineChoice, Error, RunOptions};
    use outcore_store::StoreError;
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let store = skewed_with_tiles(dir.path(), 5_000, 40_000, 10);
    let mut ran = 0;
    for alg in common::registered().into_iter().filter(|a| a.info().name != "als") {
        let (name, args) = (alg.info().name, short(alg));
        for &engine in alg.info().engines {
            let at = |memory: u64| {
                let opts = RunOptions { memory, engine: EngineChoice::Fixed(engine), ..Default::default() };
                common::bounded(name, || alg.run(&store, &args, &opts))
            };
            let plan = match alg.plan(&store, &args, &RunOptions { engine: EngineChoice::Fixed(engine), ..Default::default() }) {
                Ok(plan) => plan,
                // what the algorithm declines on this engine (CDLP and SpMV on sort-reduce)
                Err(Error::Unsupported { .. }) => continue,
                Err(e) => panic!("{name} on {engine}: {e}"),
            };
            // the plan's minimum is rounded up to a whole MiB
            let plans_refusal = |memory: u64| match at(memory) {
                Err(Error::Store(StoreError::Budget(e))) => {
                    let own = format!("({name} on the {engine} engine)");
                    assert!(e.what.ends_with(&own), "{name} on {engine} at {memory} bytes: refused by a charge of its own: {e}");
                    e
                }
                Ok(_) => panic!("{name} on {engine}: ran at {memory} bytes, below the plan's minimum"),
                Err(e) => panic!("{name} on {engine} at {memory} bytes: {e}"),
            };
            let below = plan.minimum_bytes - (1 << 20);
            let refused = plans_refusal(below);
            let smallest = below + refused.needed - refused.available;
            assert!(smallest <= plan.minimum_bytes, "{name} on {engine}: needs {smallest}, the plan states {}", plan.minimum_bytes);
            plans_refusal(smallest - 1);
            if let Err(e) = at(smallest) {
                panic!("{name} on {engine}: at {smallest} bytes, which its plan's check accepts: {e}");
            }
            ran += 1;
        }
    }
    assert!(ran >= 25 || filtered(), "only {ran} algorithm and engine pairs ran");
}

/// Triangle counting and LCC, and their sampled validators (what
/// `--verify` uses when the in-memory reference does not fit), charge what
/// they allocate, on a uniform graph of 16,384 vertices and about 128
/// neighbours each (8 MB of lists, so that the scans and the forward
/// files' streams fill their 1 MiB chunks): each run's heap grows no
/// further than its charge and bookkeeping (unmutated, 0.70 of it); each
/// validator's, whose 64 sampled neighbourhoods hold some 8,000 entries
/// (mostly distinct neighbours, each a slot of its own in the map of where
/// they appear), no further than the budget's peak and bookkeeping, and by
/// at least four fifths of it (unmutated, 0.97: the scans' buffers are
/// most of it; the sample's 96 bytes an entry about 0.8 MB).
#[test]
fn triangle_counts_and_their_sampled_validators_charge_what_they_allocate() {
    use outcore_algorithms::params::Args;
    use outcore_algorithms::run::Check;
    use outcore_algorithms::triangles::validate;
    use outcore_algorithms::RunOptions;
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let store = random_as(dir.path(), 1 << 14, 1 << 20, false, &ImportOptions { directed: Some(false), ..Default::default() });
    type Validator = fn(&Check) -> Result<outcore_algorithms::Validation, outcore_store::StoreError>;
    for (name, validator) in [("triangles", validate::triangles as Validator), ("lcc", validate::lcc)] {
        let (run, grown) =
            measured(|| find(name).unwrap().run(&store, &Args::new(), &RunOptions { memory: 1 << 30, ..Default::default() }));
        let run = run.unwrap();
        let charged = run.report.budget_peak_bytes - outcore_io::PROCESS_BASELINE;
        assert!(grown <= charged + BOOKKEEPING, "{name}: the heap grew {grown} bytes; {charged} charged");
        let budget = Budget::unlimited();
        let check = Check { store: &store, outcome: &run.outcome, report: &run.report, budget: &budget };
        let (verdict, grown) = measured(|| validator(&check));
        let verdict = verdict.unwrap();
        assert!(verdict.passed && verdict.detail.starts_with("64 vertices "), "{name}: {verdict:?}");
        let charged = budget.peak();
        assert!(grown <= charged + BOOKKEEPING, "validating {name}: the heap grew {grown} bytes; {charged} charged");
        assert!(grown >= charged / 5 * 4, "validating {name}: the heap grew only {grown} bytes of {charged} charged");
    }
}
