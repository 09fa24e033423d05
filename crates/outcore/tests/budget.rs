//! One budget answer: every command states, from a budget far too small,
//! one smallest budget computed from all its components, and at that
//! budget it succeeds, every time. Checked for import (run sort, buckets,
//! in-edges, weights), the layout builds, export, recode and ordering, and
//! every algorithm on every engine (and `auto`).

use outcore::{Args, EngineChoice, Graph, RunOptions};
use outcore_ingest::ImportOptions;
use outcore_io::NoProgress;
use std::path::{Path, PathBuf};

const TINY: u64 = 1 << 20;
const RUNS: usize = 3;

fn shared() -> PathBuf {
    outcore_io::shared_dir(env!("CARGO_MANIFEST_DIR")).join("data")
}

/// The budget figure an error states ("the smallest budget that would
/// work is 29.0 MiB"), if it states one.
fn stated(e: &dyn std::fmt::Display) -> Option<u64> {
    let text = e.to_string();
    let (_, rest) = text.split_once("the smallest budget that would work is ")?;
    let mib: f64 = rest.split_once(" MiB")?.0.parse().ok()?;
    Some((mib * (1u64 << 20) as f64).round() as u64)
}

/// `attempt(TINY)` fails with a budget figure; `attempt(figure)` then
/// succeeds `RUNS` times, and the figure is the same each time it is asked.
fn one_answer<E: std::fmt::Display>(what: &str, mut attempt: impl FnMut(u64) -> Result<(), E>) -> u64 {
    let e = attempt(TINY).expect_err(&format!("{what} ran in 1 MiB"));
    let figure = stated(&e).unwrap_or_else(|| panic!("{what}: not a budget error: {e}"));
    for run in 0..RUNS {
        if let Err(e) = attempt(figure) {
            panic!("{what}: failed at the stated minimum {} MiB (run {run}): {e}", figure >> 20);
        }
    }
    // asking again between the tiny budget and the figure gives the same figure
    let again = attempt(figure - (1 << 20)).expect_err(&format!("{what} ran below its stated minimum"));
    assert_eq!(stated(&again), Some(figure), "{what}: a second answer below the first: {again}");
    figure
}

fn fresh(dir: &Path, name: &str) -> PathBuf {
    let p = dir.join(name);
    let _ = std::fs::remove_dir_all(&p);
    p
}

#[test]
fn imports_layouts_exports_and_recodes_succeed_at_their_stated_minimum() {
    let d = tempfile::tempdir().unwrap();
    let el = d.path().join("k.el");
    let g = outcore_ingest::generate::Kronecker::graph500(15, 16, 1);
    outcore_ingest::generate::write_edge_list(&g, &el, outcore_ingest::generate::EdgeListFormat::Text, false, &NoProgress).unwrap();
    let bin = d.path().join("k.bin32");
    outcore_ingest::generate::write_edge_list(&g, &bin, outcore_ingest::generate::EdgeListFormat::Bin32, false, &NoProgress).unwrap();
    let wel = shared().join("real/netscience.csv");
    let cases: Vec<(&str, &Path, ImportOptions)> = vec![
        ("text, run sort", &el, ImportOptions::default()),
        ("text, undirected with in-edges", &el, ImportOptions { directed: Some(false), ..Default::default() }),
        ("text, directed with in-edges", &el, ImportOptions { in_layout: true, ..Default::default() }),
        ("binary, declared range (buckets)", &bin, ImportOptions { num_vertices: Some(1 << 15), in_layout: true, ..Default::default() }),
        ("weighted", &wel, ImportOptions { directed: Some(false), weighted: true, ..Default::default() }),
    ];
    let mut figures = Vec::new();
    for (what, input, opts) in &cases {
        let target = d.path().join("s");
        figures.push(one_answer(what, |memory| {
            let _ = std::fs::remove_dir_all(&target);
            outcore_ingest::import_file(input, &target, &ImportOptions { memory, ..opts.clone() }, &NoProgress).map(|_| ())
        }));
    }
    assert!(figures.iter().all(|&f| f == figures[0]), "imports state different minimums: {figures:?}");

    let store = fresh(d.path(), "base");
    outcore_ingest::import_file(&el, &store, &ImportOptions { in_layout: true, ..Default::default() }, &NoProgress).unwrap();
    one_answer("layout add tiles", |memory| outcore_ingest::tiles::add_tiles(&store, 16, 10, memory, &NoProgress).map(|_| ()));
    let bare = fresh(d.path(), "bare");
    outcore_ingest::import_file(&el, &bare, &ImportOptions::default(), &NoProgress).unwrap();
    one_answer("layout add in", |memory| {
        let r = outcore_ingest::in_layout::add_in(&bare, memory, &NoProgress).map(|_| ());
        if r.is_ok() {
            // back to no in layout for the next run
            let _ = std::fs::remove_dir_all(&bare);
            outcore_ingest::import_file(&el, &bare, &ImportOptions::default(), &NoProgress).unwrap();
        }
        r
    });
    let out = d.path().join("x.el");
    one_answer("export", |memory| {
        let opts = outcore_ingest::export::ExportOptions { memory, force: true, ..Default::default() };
        outcore_ingest::export::export(&store, &out, &opts, &NoProgress).map(|_| ())
    });
    for order in [outcore::import::VertexOrder::None, outcore::import::VertexOrder::Dfs] {
        let target = d.path().join("r");
        one_answer(&format!("recode, order {}", order.name()), |memory| {
            let _ = std::fs::remove_dir_all(&target);
            let opts = outcore::import::RecodeOptions { encoding: None, order: String::new(), memory, force: false, layouts: None };
            outcore::import::order_store(&store, &target, order, &opts, &NoProgress).map(|_| ())
        });
    }
}

#[test]
fn every_algorithm_on_every_engine_succeeds_at_its_stated_minimum() {
    let d = tempfile::tempdir().unwrap();
    // an undirected weighted store and a directed one with in-edges, both with tiles
    let stores = [
        ("real/netscience.csv", ImportOptions { directed: Some(false), weighted: true, ..Default::default() }),
        ("real/wiki-Vote.txt", ImportOptions { in_layout: true, ..Default::default() }),
    ];
    for (k, (input, opts)) in stores.iter().enumerate() {
        let path = d.path().join(format!("g{k}"));
        outcore_ingest::import_file(&shared().join(input), &path, opts, &NoProgress).unwrap();
        outcore_ingest::tiles::add_tiles(&path, 4, 6, 64 << 20, &NoProgress).unwrap();
        every_engine(&Graph::open(&path).unwrap(), input);
    }
}

fn every_engine(graph: &Graph, input: &str) {
    for alg in outcore::registry::ALGORITHMS {
        let info = alg.info();
        let args = match info.name {
            "bc" => Args::new().with("sources", 4),
            "cdlp" => Args::new().with("iterations", 3),
            _ => Args::new(),
        };
        let choices = std::iter::once(EngineChoice::Auto).chain(info.engines.iter().map(|&e| EngineChoice::Fixed(e)));
        for choice in choices {
            let what = format!("{} on {choice:?} ({input})", info.name);
            if graph.plan(info.name, &args, &RunOptions { engine: choice, ..RunOptions::with_memory(1 << 30) }).is_err() {
                continue; // no version for these parameters, or the store lacks what it needs (weights)
            }
            let figure = one_answer(&what, |memory| {
                graph.run_named(info.name, &args, &RunOptions { engine: choice, ..RunOptions::with_memory(memory) }).map(|_| ())
            });
            // the plan states the same figure (the --json and --dry-run one)
            let plan = graph.plan(info.name, &args, &RunOptions { engine: choice, ..RunOptions::with_memory(figure) }).unwrap();
            assert_eq!(plan.minimum_bytes, figure, "{what}: the plan's minimum differs from the error's");
        }
    }
}
