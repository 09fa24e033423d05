//! PageRank over tiles equals the Graphalytics expected outputs and the
//! in-memory reference implementation.

use outcore_algorithms::pagerank::pagerank;
use outcore_algorithms::reference::pagerank::pagerank as reference;
use outcore_algorithms::MemGraph;
use outcore_ingest::{import_file, tiles::add_tiles, ImportOptions, NoProgress};
use outcore_io::Budget;
use outcore_store::Store;
use std::path::{Path, PathBuf};

fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data")
}

fn tiled(input: &Path, opts: ImportOptions, tile_memory: u64) -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let st = dir.path().join("s");
    import_file(input, &st, &opts, &NoProgress).unwrap();
    add_tiles(&st, 2, tile_memory).unwrap();
    let s = Store::open(&st).unwrap();
    (dir, s)
}

#[test]
fn matches_graphalytics_pr_outputs() {
    for name in ["example-directed", "example-undirected"] {
        let evlp = shared().join("graphalytics/evlp");
        let (_d, st) = tiled(&evlp.join(format!("{name}.properties")), ImportOptions::default(), 1 << 30);
        let r = pagerank(&st, 0.85, 2, None, &Budget::unlimited()).unwrap();
        let ids = st.id_map(&Budget::unlimited()).unwrap();
        let want = std::fs::read_to_string(evlp.join(format!("{name}-PR"))).unwrap();
        for line in want.lines() {
            let (v, x) = line.split_once(' ').unwrap();
            let expect: f64 = x.parse().unwrap();
            let got = r.rank[ids.dense(v.parse().unwrap()).unwrap() as usize];
            assert!((got - expect).abs() <= 1e-4 * expect, "{name} vertex {v}: {got} vs {expect}");
        }
    }
}

#[test]
fn matches_the_reference_on_real_graphs() {
    for (file, directed) in [("wiki-Vote.txt", true), ("CA-GrQc.txt", false), ("email-Eu-core.csv", true)] {
        let (_d, st) = tiled(&shared().join("real").join(file), ImportOptions { directed: Some(directed), ..Default::default() }, 30 << 20);
        let g = MemGraph::load(&st, "out", &Budget::unlimited()).unwrap();
        let want = reference(&g, 0.85, 10);
        let got = pagerank(&st, 0.85, 10, None, &Budget::unlimited()).unwrap();
        assert_eq!(got.iterations, 10);
        for (v, (a, b)) in got.rank.iter().zip(&want).enumerate() {
            assert!((a - b).abs() <= 1e-12 + 1e-9 * b, "{file} vertex {v}: {a} vs {b}");
        }
        // with a tolerance it stops early and stays close to the fixed point
        let early = pagerank(&st, 0.85, 100, Some(1e-6), &Budget::unlimited()).unwrap();
        assert!(early.iterations < 100 && early.delta < 1e-6, "{file}: {} iterations", early.iterations);
    }
}

#[test]
fn missing_tiles_and_small_budgets_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let st = dir.path().join("s");
    import_file(&shared().join("real/CA-GrQc.txt"), &st, &ImportOptions::default(), &NoProgress).unwrap();
    let store = Store::open(&st).unwrap();
    let err = pagerank(&store, 0.85, 2, None, &Budget::unlimited()).err().unwrap().to_string();
    assert!(err.contains("outcore layout add") && err.contains("tiles"), "{err}");
    add_tiles(&st, 256, 1 << 30).unwrap();
    let store = Store::open(&st).unwrap();
    let err = pagerank(&store, 0.85, 2, None, &Budget::new(1000)).err().unwrap().to_string();
    assert!(err.contains("use --memory"), "{err}");
}
