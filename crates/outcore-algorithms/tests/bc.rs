//! Betweenness centrality: the reference Brandes equals a brute-force
//! count over all pairs on small random graphs; the traverse and
//! sort-reduce engines equal the reference (all sources on small graphs,
//! sampled sources with the |V|/k scale on real ones); and given sources
//! equal networkx's betweenness on real graphs.

mod common;

use common::*;
use outcore_algorithms::bc::reference;
use outcore_algorithms::bc::Bc;
use outcore_algorithms::bc::{bc_sortreduce, bc_traverse, pick_sources, Sources};
use outcore_algorithms::registry::Registered;
use outcore_algorithms::{Args, MemGraph, RunOptions};
use outcore_engines::sortreduce::{Access, SortReduce, SortReduceOptions};
use outcore_engines::{Traverse, TraverseOptions};
use outcore_ingest::{import_file, ImportOptions, NoProgress};
use outcore_io::Budget;
use outcore_store::Store;
use std::collections::{HashMap, VecDeque};
use std::path::Path;

/// BC by definition: for every pair s != t with a path, the share of
/// shortest s-t paths through v, counted as sigma(s,v) * sigma(v,t) / sigma(s,t).
fn brute_force(g: &MemGraph) -> Vec<f64> {
    let all: Vec<u64> = (0..g.vertices()).collect();
    brute_force_subset(g, &all, &all)
}

/// That count restricted to sources `from` and targets `to`
/// (networkx's betweenness_centrality_subset before its scaling).
fn brute_force_subset(g: &MemGraph, from: &[u64], to: &[u64]) -> Vec<f64> {
    let n = g.vertices() as usize;
    let bfs = |s: usize| {
        let mut dist = vec![u64::MAX; n];
        let mut sigma = vec![0.0f64; n];
        dist[s] = 0;
        sigma[s] = 1.0;
        let mut q = VecDeque::from([s]);
        while let Some(v) = q.pop_front() {
            for &w in g.neighbours(v as u64) {
                let w = w as usize;
                if dist[w] == u64::MAX {
                    dist[w] = dist[v] + 1;
                    q.push_back(w);
                }
                if dist[w] == dist[v] + 1 {
                    sigma[w] += sigma[v];
                }
            }
        }
        (dist, sigma)
    };
    let all: Vec<(Vec<u64>, Vec<f64>)> = (0..n).map(bfs).collect();
    let mut bc = vec![0.0; n];
    for &s in from {
        let s = s as usize;
        for &t in to {
            let t = t as usize;
            let (ds, ss) = &all[s];
            if s == t || ds[t] == u64::MAX {
                continue;
            }
            for v in 0..n {
                let (dv, sv) = &all[v];
                if v != s && v != t && ds[v] != u64::MAX && dv[t] != u64::MAX && ds[v] + dv[t] == ds[t] {
                    bc[v] += ss[v] * sv[t] / ss[t];
                }
            }
        }
    }
    bc
}

#[test]
fn targets_count_only_the_paths_that_end_at_them() {
    for seed in 1..=3u64 {
        for directed in [true, false] {
            let (g, edges) = random_graph(40, 110, seed * 31_337, directed);
            let from: Vec<u64> = (0..40).filter(|v| v % 3 == seed % 3).collect();
            let mut to: Vec<u64> = (0..40).filter(|v| v % 4 != seed % 4).collect();
            to.sort_unstable();
            let what = format!("seed {seed} directed {directed}");
            let want = brute_force_subset(&g, &from, &to);
            close(&reference::bc_subset(&g, &from, Some(&to)), &want, &what);
            // the engines, in dense ids of a store whose self loops keep ids as they are
            let dir = tempfile::tempdir().unwrap();
            let input = dir.path().join("g.txt");
            let text: String = edges.iter().map(|(u, v, _)| format!("{u} {v}\n")).collect();
            let loops: String = (0..40).map(|v| format!("{v} {v}\n")).collect();
            std::fs::write(&input, text + &loops).unwrap();
            let st = import(&input, dir.path(), directed);
            let ids = st.id_map(&Budget::unlimited()).unwrap();
            let dense = |v: &[u64]| -> Vec<u64> {
                let mut d: Vec<u64> = v.iter().map(|&x| ids.dense(x).unwrap()).collect();
                d.sort_unstable();
                d
            };
            let (picked, targets) = (dense(&from), dense(&to));
            let budget = Budget::unlimited();
            let t = Traverse::open(&st, "out", &budget, &TraverseOptions::default(), 0).unwrap();
            // sources on one worker and on three (each its reader and sums)
            let (one, _) = bounded("bc_traverse", || bc_traverse(&t, &picked, Some(&targets), 1.0, 1, &budget, &NoProgress)).unwrap();
            let (three, _) = bounded("bc_traverse", || bc_traverse(&t, &picked, Some(&targets), 1.0, 3, &budget, &NoProgress)).unwrap();
            let mut e = sortreduce(&st, Access::Scan, 30);
            let file = bounded("bc_sortreduce", || {
                bc_sortreduce(&mut e, if directed { "in" } else { "out" }, &picked, Some(&targets), 1.0, &NoProgress)
            })
            .unwrap();
            let mut external = Vec::new();
            outcore_algorithms::values::for_each_stored(&file, |_, x: f64| external.push(x)).unwrap();
            let original = |v: Vec<f64>| -> Vec<f64> {
                let mut out = vec![0.0; 40];
                for (d, x) in v.into_iter().enumerate() {
                    out[ids.original(d as u64) as usize] = x;
                }
                out
            };
            close(&original(one), &want, &format!("traverse, {what}"));
            close(&original(three), &want, &format!("traverse, 3 workers, {what}"));
            close(&original(external), &want, &format!("sortreduce, {what}"));
            // the same as parameters, through the registry: `source` and
            // `target` in original ids; and with none of them, every
            // vertex a source (the default below 4,097 vertices)
            let mut args = Args::new();
            for &v in &from {
                args.set("source", v.to_string());
            }
            for &v in &to {
                args.set("target", v.to_string());
            }
            let scores = |args: &Args| -> Vec<f64> {
                let r = bounded("bc", || Registered::run(&Bc, &st, args, &RunOptions::default())).unwrap();
                original(r.outcome.column("centrality").unwrap().to_f64().unwrap())
            };
            // an undirected graph's paths are counted from both ends: halved
            let half = |v: Vec<f64>| -> Vec<f64> { v.into_iter().map(|x| if directed { x } else { x / 2.0 }).collect() };
            close(&scores(&args), &half(want), &format!("registry, {what}"));
            let all: Vec<u64> = (0..40).collect();
            close(&scores(&Args::new()), &half(brute_force_subset(&g, &all, &all)), &format!("registry, defaults, {what}"));
        }
    }
}

fn random_graph(n: u64, m: usize, seed: u64, directed: bool) -> (MemGraph, Vec<(u64, u64, f32)>) {
    let mut x = seed;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut edges: Vec<(u64, u64, f32)> = (0..m).map(|_| (next() % n, next() % n, 1.0)).filter(|e| e.0 != e.1).collect();
    edges.sort_by_key(|e| (e.0, e.1));
    edges.dedup_by_key(|e| (e.0, e.1));
    (MemGraph::from_edges(n, &edges, directed, false), edges)
}

fn close(a: &[f64], b: &[f64], what: &str) {
    assert_eq!(a.len(), b.len());
    for (v, (x, y)) in a.iter().zip(b).enumerate() {
        assert!((x - y).abs() <= 1e-9 * (1.0 + y.abs()), "{what}: BC of {v}: {x} vs {y}");
    }
}

#[test]
fn reference_brandes_equals_the_brute_force_count() {
    for seed in 1..=12u64 {
        for directed in [true, false] {
            let (g, _) = random_graph(25 + seed % 7, 40 + 5 * seed as usize, seed * 7919, directed);
            let all: Vec<u64> = (0..g.vertices()).collect();
            close(&reference::bc(&g, &all), &brute_force(&g), &format!("seed {seed} directed {directed}"));
        }
    }
}

fn import(input: &Path, dir: &Path, directed: bool) -> Store {
    let out = dir.join("s");
    let opts = ImportOptions { directed: Some(directed), in_layout: true, ..Default::default() };
    import_file(input, &out, &opts, &NoProgress).unwrap();
    Store::open(&out).unwrap()
}

fn sortreduce(st: &Store, access: Access, batch: usize) -> SortReduce {
    let layouts: &[&str] = if st.manifest().directed { &["out", "in"] } else { &["out"] };
    let opts = SortReduceOptions { access, max_batch_updates: Some(batch), max_fan_in: Some(3), lookup_threads: 3, ..Default::default() };
    SortReduce::open(st, layouts, 8, &Budget::unlimited(), &opts).unwrap()
}

/// BC of `st` from `sources` on both engines, each in dense ids.
fn engines(st: &Store, sources: &Sources, access: Access, batch: usize) -> (Vec<f64>, Vec<f64>, Vec<u64>, f64) {
    let budget = Budget::unlimited();
    let directed = st.manifest().directed;
    let (picked, scale, _) = pick_sources(st, sources).unwrap();
    let g = Traverse::open(st, "out", &budget, &TraverseOptions::default(), 0).unwrap();
    let (semi, _) = bounded("bc_traverse", || bc_traverse(&g, &picked, None, scale, 2, &budget, &NoProgress)).unwrap();
    let mut e = sortreduce(st, access, batch);
    let file =
        bounded("bc_sortreduce", || bc_sortreduce(&mut e, if directed { "in" } else { "out" }, &picked, None, scale, &NoProgress)).unwrap();
    let mut external = Vec::new();
    outcore_algorithms::values::for_each_stored(&file, |_, x: f64| external.push(x)).unwrap();
    (semi, external, picked, scale)
}

#[test]
fn engines_equal_the_reference_on_small_graphs_from_every_source() {
    for seed in 1..=2u64 {
        for directed in [true, false] {
            let (g, edges) = random_graph(60, 150, seed * 104_729, directed);
            let dir = tempfile::tempdir().unwrap();
            let input = dir.path().join("g.txt");
            let text: String = edges.iter().map(|(u, v, _)| format!("{u} {v}\n")).collect();
            // self loops name every vertex (and change no shortest path)
            let loops: String = (0..60).map(|v| format!("{v} {v}\n")).collect();
            std::fs::write(&input, text + &loops).unwrap();
            let st = import(&input, dir.path(), directed);
            let ids = st.id_map(&Budget::unlimited()).unwrap();
            assert_eq!(st.vertices(), 60);
            let half = if directed { 1.0 } else { 0.5 };
            let want: Vec<f64> = reference::bc(&g, &(0..60).collect::<Vec<_>>()).iter().map(|x| x * half).collect();
            let access = if seed % 2 == 0 { Access::Scan } else { Access::Lookup };
            let (semi, external, _, _) = engines(&st, &Sources::All, access, 20);
            let original = |v: Vec<f64>| -> Vec<f64> {
                let mut out = vec![0.0; 60];
                for (d, x) in v.into_iter().enumerate() {
                    out[ids.original(d as u64) as usize] = x;
                }
                out
            };
            close(&original(semi), &want, &format!("traverse, seed {seed}, directed {directed}"));
            close(&original(external), &want, &format!("sortreduce, seed {seed}, directed {directed}"));
        }
    }
}

#[test]
fn sampled_sources_are_scaled_by_n_over_k() {
    let dir = tempfile::tempdir().unwrap();
    let st = import(&shared().join("real/wiki-Vote.txt"), dir.path(), true);
    let g = MemGraph::load(&st, "out", &Budget::unlimited()).unwrap();
    let (semi, external, picked, scale) = engines(&st, &Sources::Sample { count: 5, seed: 3 }, Access::Auto, 4000);
    assert_eq!(picked.len(), 5);
    assert!((scale - st.vertices() as f64 / 5.0).abs() < 1e-9);
    let want: Vec<f64> = reference::bc(&g, &picked).iter().map(|x| x * scale).collect();
    close(&semi, &want, "traverse, sampled");
    close(&external, &want, "sortreduce, sampled");
    // another seed picks other sources
    let (other, _, _) = pick_sources(&st, &Sources::Sample { count: 5, seed: 4 }).unwrap();
    assert_ne!(other, picked);
}

/// The default sources through the registry's parameters: every vertex up
/// to 4,096 vertices, whatever the seed; above that, 64 drawn with the
/// seed (1 unless given), the same 64 that `--sources 64` draws.
#[test]
fn default_sources_are_every_vertex_up_to_4096_else_64_drawn_with_the_seed() {
    use outcore_algorithms::run::Algorithm;
    let dir = tempfile::tempdir().unwrap();
    let sources = |st: &Store, a: Args| pick_sources(st, &Bc.parse(&a).unwrap().sources).unwrap();
    // 100 vertices on a ring: more than the 64 a sample draws
    let ring = dir.path().join("ring.el");
    std::fs::write(&ring, (0..100).map(|v| format!("{v} {}\n", (v + 1) % 100)).collect::<String>()).unwrap();
    let (small_dir, large_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let small = import(&ring, small_dir.path(), false);
    for a in [Args::new(), Args::new().with("seed", 1), Args::new().with("seed", 7)] {
        let (picked, scale, exact) = sources(&small, a.clone());
        assert_eq!((picked, scale, exact), ((0..100).collect(), 0.5, true), "{a:?} on 100 vertices");
    }
    let large = import(&shared().join("real/wiki-Vote.txt"), large_dir.path(), true);
    let (by_default, scale, exact) = sources(&large, Args::new());
    assert_eq!((by_default.len(), exact), (64, false));
    assert!((scale - large.vertices() as f64 / 64.0).abs() < 1e-9);
    assert_eq!(by_default, sources(&large, Args::new().with("sources", 64)).0, "the default draws as --sources 64 does");
    assert_eq!(by_default, sources(&large, Args::new().with("seed", 1)).0, "seed 1 is the default");
    let seeded = sources(&large, Args::new().with("seed", 7)).0;
    assert_eq!(seeded, sources(&large, Args::new().with("sources", 64).with("seed", 7)).0);
    assert_ne!(seeded, by_default, "another seed draws other sources");
    // a sample of no sources, or of no number, is refused as the parameters are read
    for bad in ["0", "-3", "some"] {
        let err = Bc.parse(&Args::new().with("sources", bad)).unwrap_err().to_string();
        assert!(err.contains("positive count") && err.contains(&format!("'{bad}'")), "--sources {bad}: {err}");
    }
}

/// What a run reports of its sources, and the workers its budget affords:
/// a sample is not exact and is scaled by |V|/k, given sources are exact
/// (their partial sum, unscaled on a directed graph); with room, a worker
/// a thread, up to the sources, each further worker's state at most half
/// of what the minimum leaves; at the stated minimum one, and the run
/// fits it. Each run equals the reference.
#[test]
fn bc_reports_its_sources_and_the_workers_its_budget_affords() {
    use outcore_algorithms::plan::Support;
    use outcore_algorithms::run::Algorithm;
    use outcore_algorithms::Engine;
    let (dir, dense_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    // and a store whose lists are larger than the budgets below leave for
    // the block cache, which the workers' state must be kept from
    let (_, edges) = random_graph(3000, 600_000, 77, true);
    let input = dense_dir.path().join("dense.el");
    std::fs::write(&input, edges.iter().map(|(u, v, _)| format!("{u} {v}\n")).collect::<String>()).unwrap();
    let stores = [import(&shared().join("real/wiki-Vote.txt"), dir.path(), true), import(&input, dense_dir.path(), true)];
    let threads = rayon::current_num_threads();
    for (st, (args, sources, exact, scale)) in stores.iter().flat_map(|st| {
        let n = st.vertices() as f64;
        [
            (Args::new().with("sources", 5).with("seed", 3), 5, false, n / 5.0),
            (Args::new().with("source", 30).with("source", 3).with("source", 4), 3, true, 1.0),
        ]
        .map(|case| (st, case))
    }) {
        let g = MemGraph::load(st, "out", &Budget::unlimited()).unwrap();
        let p = Algorithm::parse(&Bc, &args).unwrap();
        let (picked, _, _) = pick_sources(st, &p.sources).unwrap();
        let want: Vec<f64> = reference::bc(&g, &picked).iter().map(|x| x * scale).collect();
        let minimum = match Algorithm::support(&Bc, st, Engine::Traverse, &p, &RunOptions::with_memory(1 << 30)).unwrap() {
            Support::Runs(need) => outcore_io::PROCESS_BASELINE + need.min_bytes,
            Support::No(why) => panic!("{why}"),
        };
        // room for two more workers' state beside each one's half left to
        // the cache, for one more, and for none (one more state would
        // leave the cache nothing)
        let state = outcore_algorithms::bc::state_bytes(st.vertices());
        let cases = [
            (UNLIMITED, threads.min(sources)),
            (minimum + 4 * state, threads.min(3)),
            (minimum + 2 * state, threads.min(2)),
            (minimum + state, 1),
            (minimum, 1),
        ];
        // each source reads the list of every vertex it reaches twice
        // (forward and back), counted on the in-memory graph
        let arcs: u64 = picked
            .iter()
            .map(|&s| {
                let mut seen = vec![false; g.vertices() as usize];
                let (mut queue, mut arcs) = (VecDeque::from([s]), 0);
                seen[s as usize] = true;
                while let Some(v) = queue.pop_front() {
                    arcs += 2 * g.degree(v);
                    for &w in g.neighbours(v) {
                        if !std::mem::replace(&mut seen[w as usize], true) {
                            queue.push_back(w);
                        }
                    }
                }
                arcs
            })
            .sum();
        for (memory, workers) in cases {
            let what = format!("{args:?} at {memory} bytes on {} vertices", st.vertices());
            let recorder = std::sync::Arc::new(Recorder::default());
            let r = run(&Bc, st, &p, &RunOptions { memory, progress: Some(recorder.clone()), ..on(Engine::Traverse) });
            assert_eq!(figure(&r, "arcs_read") as u64, arcs, "{what}");
            // the sources done, as the first worker finishes each of its own
            let events: Vec<(Option<u64>, u64)> =
                recorder.events.lock().unwrap().iter().filter(|e| e.0 == "bc").map(|e| (e.1, e.2)).collect();
            assert_eq!(events[0], (None, sources as u64), "{what}");
            let done: Vec<u64> = events[1..].iter().map(|e| e.0.unwrap()).collect();
            if workers == 1 {
                assert_eq!(done, (1..=sources as u64).collect::<Vec<_>>(), "{what}");
            }
            assert!(done.windows(2).all(|w| w[0] < w[1]) && done.iter().all(|&k| (1..=sources as u64).contains(&k)), "{what}: {done:?}");
            assert_eq!(figure(&r, "workers") as usize, workers, "{what}");
            assert_eq!(figure(&r, "sources") as usize, sources, "{what}");
            assert_eq!(r.report.figure("exact").and_then(|x| x.as_bool()), Some(exact), "{what}");
            assert!((figure(&r, "scale") - scale).abs() < 1e-9 * scale, "{what}");
            close(&r.outcome.column("centrality").unwrap().to_f64().unwrap(), &want, &what);
        }
    }
}

/// networkx's `betweenness_centrality_subset` with every vertex a target.
fn networkx(input: &Path, directed: bool, sources: &[u64]) -> HashMap<u64, f64> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/networkx_bc.py");
    let list: Vec<String> = sources.iter().map(|s| s.to_string()).collect();
    let out = std::process::Command::new("python3")
        .arg(&script)
        .arg(input)
        .arg(if directed { "directed" } else { "undirected" })
        .arg(list.join(","))
        .output()
        .expect("python3 runs the networkx oracle (.ci/run installs it)");
    assert!(out.status.success(), "networkx oracle failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let (v, x) = l.split_once(' ').unwrap();
            (v.parse().unwrap(), x.parse().unwrap())
        })
        .collect()
}

#[test]
fn given_sources_equal_networkx_on_real_graphs() {
    for (file, directed) in [("CA-GrQc.txt", false), ("wiki-Vote.txt", true), ("p2p-Gnutella05.txt", true)] {
        let input = shared().join("real").join(file);
        let dir = tempfile::tempdir().unwrap();
        let st = import(&input, dir.path(), directed);
        let ids = st.id_map(&Budget::unlimited()).unwrap();
        // a few sources of high degree and a few ordinary ones
        let g = MemGraph::load(&st, "out", &Budget::unlimited()).unwrap();
        let mut by_degree: Vec<u64> = (0..st.vertices()).collect();
        by_degree.sort_by_key(|&v| std::cmp::Reverse(g.degree(v)));
        let dense: Vec<u64> = by_degree.iter().take(3).chain(by_degree.iter().skip(100).step_by(97).take(3)).copied().collect();
        let original: Vec<u64> = dense.iter().map(|&v| ids.original(v)).collect();
        let want = networkx(&input, directed, &original);
        let (semi, external, picked, _) = engines(&st, &Sources::Given(original.clone()), Access::Auto, 5000);
        assert_eq!(picked, dense);
        for (v, (x, y)) in semi.iter().zip(&external).enumerate() {
            let o = ids.original(v as u64);
            let w = want.get(&o).copied().unwrap_or(0.0);
            assert!((x - w).abs() <= 1e-9 * (1.0 + w), "{file}: traverse BC of {o}: {x} vs networkx {w}");
            assert!((y - w).abs() <= 1e-9 * (1.0 + w), "{file}: sortreduce BC of {o}: {y} vs networkx {w}");
        }
        assert!(want.values().any(|&w| w > 1.0), "{file}: some vertex lies on paths");
    }
}
