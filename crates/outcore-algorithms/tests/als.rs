//! ALS (issue 18 item 4) against independent oracles: numpy's ALS-WR from
//! the same initial factors (tests/oracle/numpy_als.py), the plain
//! reference beside the module, and the planted factors of `generate
//! ratings`; on both engines, with the interval engine forced to many
//! intervals and to values that straddle its 1 MiB chunks.

mod common;

use outcore_algorithms::als::{Als, Params};
use outcore_algorithms::registry::Registered;
use outcore_algorithms::run::{execute, Run, RunOptions};
use outcore_algorithms::{Args, Engine, EngineChoice, Error, MemGraph};
use outcore_ingest::generate::{self, EdgeListFormat, Ratings};
use outcore_ingest::recode::{recode, RecodeOptions};
use outcore_ingest::{import_file, import_from, ImportOptions, NoProgress};
use outcore_io::bound::bounded;
use outcore_io::Budget;
use outcore_store::{Encoding, Store, StoreError, ITEM_ID_BASE};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn ratings_store(dir: &Path, r: &Ratings) -> Store {
    let source = |sink: &mut dyn outcore_ingest::formats::EdgeSink,
                  p: &mut dyn FnMut(std::sync::Arc<std::sync::atomic::AtomicU64>, u64, bool)| generate::emit(r, sink, p);
    let path = dir.join("ratings.store");
    let opts = ImportOptions { bipartite: true, ..Default::default() };
    import_from(&source, &path, &opts, BTreeMap::new(), &NoProgress).unwrap();
    Store::open(&path).unwrap()
}

fn options(engine: Engine, interval_values: Option<u64>) -> RunOptions {
    let mut o = RunOptions { memory: common::UNLIMITED, engine: EngineChoice::Fixed(engine), ..Default::default() };
    o.interval.max_interval_values = interval_values;
    o
}

fn run(st: &Store, p: &Params, engine: Engine, interval_values: Option<u64>) -> Run {
    let run = bounded("als", || execute(&Als, st, p, &options(engine, interval_values))).unwrap();
    assert_eq!(run.report.engine, engine);
    run
}

fn factors(run: &Run) -> Vec<f32> {
    run.outcome.vectors("factors").expect("ALS returns its factors").to_vec().unwrap()
}

fn rmse(run: &Run) -> Vec<f64> {
    serde_json::from_value(run.report.figure("rmse_per_iteration").unwrap().clone()).unwrap()
}

/// `got` within `tolerance` of `want`, relative to the largest |want|.
fn assert_close(got: &[f32], want: &[f64], tolerance: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    let scale = want.iter().fold(1e-3f64, |m, x| m.max(x.abs()));
    for (k, (&g, &w)) in got.iter().zip(want).enumerate() {
        assert!((g as f64 - w).abs() <= tolerance * scale, "{what}: entry {k} is {g}, expected {w}");
    }
}

/// One line of numpy's factors: `u` or `i`, the id as imported, the factors.
type FactorRow = (String, u64, Vec<f64>);

/// numpy's RMSE per iteration and factors (dense order) for these ratings.
fn numpy_als(ratings: &Path, p: &Params) -> (Vec<f64>, Vec<FactorRow>) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/numpy_als.py");
    let out = std::process::Command::new("python3")
        .arg(&script)
        .arg(ratings)
        .args([p.rank.to_string(), p.lambda.to_string(), p.iterations.to_string(), p.seed.to_string()])
        .output()
        .expect("python3 runs the numpy oracle (.ci/run installs numpy with scipy)");
    assert!(out.status.success(), "numpy oracle failed: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    let rmse = lines.next().unwrap().split(' ').map(|x| x.parse().unwrap()).collect();
    let rows = lines
        .map(|l| {
            let mut f = l.split(' ');
            let side = f.next().unwrap().to_string();
            let id = f.next().unwrap().parse().unwrap();
            (side, id, f.map(|x| x.parse().unwrap()).collect())
        })
        .collect();
    (rmse, rows)
}

#[test]
fn als_equals_numpy_and_the_reference_on_both_engines() {
    let dir = tempfile::tempdir().unwrap();
    let r = Ratings { users: 120, items: 80, rank: 4, density: 0.1, noise: 0.05, seed: 7 };
    let text = dir.path().join("ratings.wel");
    generate::write_edge_list(&r, &text, EdgeListFormat::Text, false, &NoProgress).unwrap();
    let st = ratings_store(dir.path(), &r);
    let sides = st.manifest().bipartite.expect("a bipartite store");
    assert_eq!((sides.users, sides.items), (120, 80), "every user and item has ratings at this density");
    let ids = st.ids().unwrap();
    let g = MemGraph::load(&st, "out", &Budget::unlimited()).unwrap();
    for p in [Params { rank: 5, lambda: 0.05, iterations: 6, seed: 3 }, Params { rank: 2, lambda: 0.5, iterations: 3, seed: 11 }] {
        let (want_rmse, rows) = numpy_als(&text, &p);
        assert_eq!(want_rmse.len(), p.iterations as usize);
        assert_eq!(rows.len() as u64, st.vertices(), "numpy sees the store's vertices");
        let mut want = Vec::new();
        for (v, (side, id, x)) in rows.iter().enumerate() {
            let original = ids.original(v as u64).unwrap();
            let expect = if side == "u" { *id } else { ITEM_ID_BASE + id };
            assert_eq!(original, expect, "dense order: vertex {v}");
            assert_eq!(side == "u", (v as u64) < sides.users);
            want.extend_from_slice(x);
        }
        let (reference, reference_rmse) = outcore_algorithms::als::reference::als(&g, sides.users, &p);
        assert_close(&reference.iter().map(|&x| x as f32).collect::<Vec<_>>(), &want, 1e-6, "the reference against numpy");
        for (engine, intervals) in [(Engine::Traverse, None), (Engine::Interval, None), (Engine::Interval, Some(40))] {
            let what = format!("{engine} ({intervals:?} values an interval), {p:?}");
            let run = run(&st, &p, engine, intervals);
            assert_close(&factors(&run), &want, 1e-6, &what);
            let got = rmse(&run);
            assert_eq!(got.len(), want_rmse.len(), "{what}: one RMSE an iteration");
            for (k, ((g, w), rf)) in got.iter().zip(&want_rmse).zip(&reference_rmse).enumerate() {
                assert!((g - w).abs() <= 1e-6 * w, "{what}: RMSE after iteration {k}: {g}, numpy {w}");
                assert!((g - rf).abs() <= 1e-6 * rf, "{what}: RMSE after iteration {k}: {g}, the reference {rf}");
            }
            if intervals.is_some() {
                let n: u64 = serde_json::from_value(run.report.figure("interval").unwrap()["intervals"].clone()).unwrap();
                assert!(n >= 4, "{what}: {n} intervals");
            }
            let verdict = Als.validate(&st, &Args::new().with("rank", p.rank).with("lambda", p.lambda), &run).unwrap();
            assert!(verdict.passed, "{what}: {}", verdict.detail);
        }
    }
}

#[test]
fn the_validator_refuses_damaged_factors_and_a_wrong_rmse() {
    let dir = tempfile::tempdir().unwrap();
    let r = Ratings { users: 60, items: 40, rank: 3, density: 0.2, noise: 0.1, seed: 2 };
    let st = ratings_store(dir.path(), &r);
    let args = Args::new().with("rank", 3).with("iterations", 4);
    let mut run = bounded("als", || Als.run(&st, &args, &options(Engine::Traverse, None))).unwrap();
    assert!(Als.validate(&st, &args, &run).unwrap().passed);
    // one item's factor moved
    let mut x = factors(&run);
    let item = (st.manifest().bipartite.unwrap().users as usize + 5) * 3 + 1;
    x[item] += 0.05;
    let damaged = outcore_algorithms::Vectors {
        name: "factors",
        width: 3,
        data: Box::new(outcore_algorithms::values::HeldVectors { values: x, width: 3, charge: None }),
    };
    let good = run.replace_outcome(outcore_algorithms::Outcome::of_vectors(damaged));
    let verdict = Als.validate(&st, &args, &run).unwrap();
    assert!(!verdict.passed && verdict.detail.contains("factor 1"), "{}", verdict.detail);
    // the right factors with a wrong RMSE
    run.replace_outcome(good);
    run.report.figures.insert("rmse".into(), serde_json::json!(0.5));
    let verdict = Als.validate(&st, &args, &run).unwrap();
    assert!(!verdict.passed && verdict.detail.contains("reported RMSE 0.5"), "{}", verdict.detail);
}

#[test]
fn planted_factors_are_recovered() {
    let dir = tempfile::tempdir().unwrap();
    // 36,000 draws for 2,100 free factors: the fit can only overfit by a few per cent
    let r = Ratings { users: 400, items: 300, rank: 3, density: 0.3, noise: 0.02, seed: 5 };
    let st = ratings_store(dir.path(), &r);
    let p = Params { rank: 3, lambda: 0.002, iterations: 40, seed: 1 };
    let run = run(&st, &p, Engine::Interval, Some(200));
    let got = rmse(&run);
    let last = *got.last().unwrap();
    assert!((last - r.noise).abs() <= 0.1 * r.noise, "training RMSE {last} is not within 10% of the noise {}", r.noise);
    assert!(got.windows(2).all(|w| w[1] <= w[0] * 1.001), "the RMSE falls every iteration: {got:?}");
    // predictions of pairs never rated against the planted x_u . y_i
    let x = factors(&run);
    let ids = st.ids().unwrap();
    let dense: BTreeMap<u64, usize> = (0..st.vertices()).map(|v| (ids.original(v).unwrap(), v as usize)).collect();
    let (mut squared, mut count) = (0.0, 0);
    for k in 0..2000u64 {
        let (u, i) = (outcore_io::hash::splitmix64(k) % r.users, outcore_io::hash::splitmix64(!k) % r.items);
        let (Some(&a), Some(&b)) = (dense.get(&u), dense.get(&(ITEM_ID_BASE + i))) else { continue };
        let predicted: f64 = (0..3).map(|j| x[a * 3 + j] as f64 * x[b * 3 + j] as f64).sum();
        squared += (predicted - r.planted(u, i)).powi(2);
        count += 1;
    }
    let held_out = (squared / count as f64).sqrt();
    assert!(count > 1900 && held_out < 0.1, "RMSE on {count} unseen pairs against the planted ratings: {held_out}");
}

#[test]
fn wide_factors_straddle_the_interval_engines_chunks() {
    // rank 24: 96 bytes a vertex, which does not divide a 1 MiB chunk, over 12,500 vertices
    let dir = tempfile::tempdir().unwrap();
    let r = Ratings { users: 12_000, items: 500, rank: 4, density: 0.004, noise: 0.1, seed: 3 };
    let st = ratings_store(dir.path(), &r);
    assert!(st.vertices() * 96 > 1 << 20);
    let p = Params { rank: 24, lambda: 0.1, iterations: 2, seed: 9 };
    let scan = run(&st, &p, Engine::Traverse, None);
    let intervals = run(&st, &p, Engine::Interval, Some(3000));
    assert_eq!(intervals.report.figure("stored_floats_per_vertex").unwrap(), 24);
    let want: Vec<f64> = factors(&scan).iter().map(|&x| x as f64).collect();
    assert_close(&factors(&intervals), &want, 1e-4, "intervals against the scan");
    let verdict = Als.validate(&st, &Args::new().with("rank", 24).with("lambda", 0.1), &intervals).unwrap();
    assert!(verdict.passed, "{}", verdict.detail);
}

#[test]
fn every_encoding_gives_the_same_factors() {
    let dir = tempfile::tempdir().unwrap();
    let r = Ratings { users: 200, items: 90, rank: 3, density: 0.08, noise: 0.1, seed: 4 };
    let st = ratings_store(dir.path(), &r);
    let p = Params { rank: 4, lambda: 0.1, iterations: 3, seed: 2 };
    let want: Vec<f64> = factors(&run(&st, &p, Engine::Traverse, None)).iter().map(|&x| x as f64).collect();
    for encoding in [Encoding::Raw64, Encoding::Ceesor, Encoding::Gapref] {
        let path = dir.path().join(encoding.name());
        let o = RecodeOptions { encoding: Some(encoding), order: "none".into(), memory: 256 << 20, force: false, layouts: None };
        recode(st.dir(), &path, None, &o, &NoProgress).unwrap();
        let other = Store::open(&path).unwrap();
        assert_eq!(other.manifest().bipartite, st.manifest().bipartite, "{}: the sides survive a recode", encoding.name());
        for engine in [Engine::Traverse, Engine::Interval] {
            assert_close(&factors(&run(&other, &p, engine, Some(60))), &want, 1e-5, &format!("{} on {engine}", encoding.name()));
        }
    }
    // a vertex order would mix the sides: refused
    let order = dir.path().join("order");
    let o = RecodeOptions { encoding: None, order: "degree".into(), memory: 256 << 20, force: false, layouts: None };
    let perm = dir.path().join("perm");
    std::fs::write(&perm, (0..st.vertices() as u32).rev().flat_map(u32::to_le_bytes).collect::<Vec<u8>>()).unwrap();
    let e = recode(st.dir(), &order, Some(&perm), &o, &NoProgress).unwrap_err();
    assert!(e.to_string().contains("bipartite"), "{e}");
}

#[test]
fn bad_requests_and_inputs_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain");
    import_file(&common::shared().join("real/CA-GrQc.txt"), &plain, &ImportOptions::default(), &NoProgress).unwrap();
    let plain = Store::open(&plain).unwrap();
    match Als.run(&plain, &Args::new(), &RunOptions::default()) {
        Err(Error::Store(StoreError::NotBipartite { .. })) => {}
        other => panic!("ALS on a store of no users and items: {:?}", other.map(|r| r.report.engine)),
    }
    let r = Ratings { users: 10, items: 10, rank: 2, density: 0.5, noise: 0.1, seed: 1 };
    let st = ratings_store(dir.path(), &r);
    for (name, value, says) in [
        ("rank", "0", "between 1 and 64"),
        ("rank", "65", "between 1 and 64"),
        ("lambda", "0", "positive"),
        ("iterations", "0", "at least 1"),
    ] {
        match Als.run(&st, &Args::new().with(name, value), &RunOptions::default()) {
            Err(e) => assert!(e.to_string().contains(says), "{name} {value}: {e}"),
            Ok(_) => panic!("ALS ran with {name} {value}"),
        }
    }
    // imports: ratings are needed, and ids must stay below 2^62
    let write = |name: &str, text: &str| -> PathBuf {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let bipartite = ImportOptions { bipartite: true, ..Default::default() };
    let e = import_file(&write("plain.el", "1 2\n2 3\n"), &dir.path().join("a"), &bipartite, &NoProgress).unwrap_err();
    assert!(e.to_string().contains("plain.el:1:") && e.to_string().contains("expected 3 columns"), "{e}");
    let e =
        import_file(&write("big.wel", "1 2 3.0\n1 4611686018427387904 2.0\n"), &dir.path().join("b"), &bipartite, &NoProgress).unwrap_err();
    assert!(e.to_string().contains("big.wel:2:") && e.to_string().contains("2^62"), "{e}");
    assert!(!dir.path().join("a").exists() && !dir.path().join("b").exists(), "a failed import left a store");
    // pairs with no ratings at all (a binary edge list) are refused, not rated 1
    let pairs: Vec<u8> = [1u32, 2, 3, 4].iter().flat_map(|x| x.to_le_bytes()).collect();
    let bin = dir.path().join("pairs.bin32");
    std::fs::write(&bin, pairs).unwrap();
    let e = import_file(&bin, &dir.path().join("d"), &bipartite, &NoProgress).unwrap_err();
    assert!(e.to_string().contains("pairs.bin32") && e.to_string().contains("needs the ratings"), "{e}");
    assert!(!dir.path().join("d").exists());
    let e = import_file(&write("nan.wel", "1 2 nan\n"), &dir.path().join("c"), &bipartite, &NoProgress).unwrap_err();
    assert!(e.to_string().contains("nan.wel:1:"), "{e}");
}
