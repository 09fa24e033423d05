//! The distributed dynamic store under `mpirun` at 1, 2 and 4 ranks on
//! this machine (four ranks on two cores: oversubscribed; a correctness
//! test, never a speed figure). The oracle is the single-machine dynamic
//! store, applied in this process to the same streams: the parts' union
//! must equal it edge by edge (weights, multiplicities, properties), and
//! BFS and PageRank across ranks must equal its results.
#![cfg(feature = "mpi")]

use outcore_algorithms::dynamic::{bfs, pagerank};
use outcore_dynamic::store::{DynamicStore, StoreOptions, Update};
use outcore_dynamic::updates::to_text;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_outcore-dist");

fn mpirun(ranks: usize, args: &[&str]) -> Command {
    let mut c = Command::new("mpirun");
    c.args(["-n", &ranks.to_string(), "--oversubscribe", "--mca", "btl", "self,vader", "--mca", "pml", "ob1"]);
    c.args(["--mca", "oob_tcp_if_include", "lo", BIN]);
    c.args(args);
    c.env("OMPI_ALLOW_RUN_AS_ROOT", "1").env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
    c
}

fn run(ranks: usize, args: &[&str]) -> Output {
    let out = mpirun(ranks, args).output().expect("mpirun runs (Open MPI installed?)");
    assert!(
        out.status.success(),
        "mpirun -n {ranks} outcore-dist {}: {}\n{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn fails(ranks: usize, args: &[&str]) -> String {
    let out = mpirun(ranks, args).output().unwrap();
    assert!(!out.status.success(), "expected a failure: outcore-dist {}", args.join(" "));
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A random stream over `ids` vertices: inserts (weighted), deletes,
/// vertex inserts and deletes, properties.
fn stream(seed: u64, n: usize, ids: u64) -> Vec<Update> {
    let mut rng = seed;
    (0..n)
        .map(|_| {
            rng = outcore_dynamic::hash::mix(rng);
            let (u, v) = (rng % ids, (rng >> 20) % ids);
            match (rng >> 44) % 100 {
                0..=64 => Update::InsertEdge { u, v, w: ((rng >> 56) % 8 + 1) as f32 },
                65..=84 => Update::DeleteEdge { u, v },
                85..=89 => Update::SetProperty { u, value: v },
                90..=94 => Update::InsertVertex { u },
                _ => Update::DeleteVertex { u },
            }
        })
        .collect()
}

fn write_stream(path: &Path, updates: &[Update]) {
    let text: String = updates.iter().map(|x| to_text(x) + "\n").collect();
    std::fs::write(path, text).unwrap();
}

type Graph = (BTreeMap<(u64, u64), (u32, u32)>, BTreeMap<u64, u64>);

/// Every edge (weight bits, count) and property of a store.
fn contents(stores: &[&DynamicStore]) -> Graph {
    let (mut edges, mut props) = (BTreeMap::new(), BTreeMap::new());
    for s in stores {
        s.for_each_edge(|u, e| {
            assert!(edges.insert((u, e.target), (e.weight.to_bits(), e.count)).is_none(), "arc {u} {} in two parts", e.target);
        });
        s.for_each_source(|u| {
            if let Some(p) = s.property(u) {
                props.insert(u, p);
            }
        });
    }
    (edges, props)
}

fn parts(pattern: &str, ranks: usize) -> Vec<PathBuf> {
    (0..ranks).map(|r| PathBuf::from(pattern.replace("{rank}", &r.to_string()))).collect()
}

fn read_pairs(path: &Path) -> BTreeMap<u64, String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let (a, b) = l.split_once(' ').unwrap();
            (a.parse().unwrap(), b.to_string())
        })
        .collect()
}

#[test]
fn every_rank_count_gives_the_single_machine_graph_and_results() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().to_str().unwrap();
    for (case, (undirected, multigraph, weighted)) in
        [(false, false, false), (true, true, true), (true, false, false), (false, true, true)].into_iter().enumerate()
    {
        let opts = StoreOptions { partitions: 2, undirected, multigraph, weighted, threshold: 3 };
        let first = stream(case as u64 + 1, 6000, 400);
        let second = stream(case as u64 + 100, 3000, 400);
        let (f1, f2) = (dir.path().join(format!("c{case}-1.updates")), dir.path().join(format!("c{case}-2.updates")));
        write_stream(&f1, &first);
        write_stream(&f2, &second);
        // the oracle
        let mut single = DynamicStore::create(&dir.path().join(format!("single-{case}")), opts).unwrap();
        single.apply(&first).unwrap();
        single.apply(&second).unwrap();
        let want = contents(&[&single]);
        // the second oracle: a plain Python model of the same semantics
        let mut model = Command::new("python3");
        model.arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/dynamic_model.py")).arg(&f1).arg(&f2);
        for (on, flag) in [(undirected, "--undirected"), (multigraph, "--multigraph"), (weighted, "--weighted")] {
            if on {
                model.arg(flag);
            }
        }
        let modelled = model.output().expect("python3 runs");
        assert!(modelled.status.success(), "{}", String::from_utf8_lossy(&modelled.stderr));
        let mut model_edges = BTreeMap::new();
        for line in String::from_utf8(modelled.stdout).unwrap().lines() {
            let f: Vec<u64> = line[2..].split(' ').map(|x| x.parse().unwrap()).collect();
            if line.starts_with("e ") {
                model_edges.insert((f[0], f[1]), (f[2] as u32, f[3] as u32));
            } else {
                assert_eq!(single.property(f[0]), Some(f[1]), "case {case}: the property of {}", f[0]);
            }
        }
        assert!(want.0 == model_edges, "case {case}: the single-machine store differs from the Python model");
        let root = first
            .iter()
            .find_map(|x| match *x {
                Update::InsertEdge { u, .. } if single.degree(u) > 0 => Some(u),
                _ => None,
            })
            .unwrap();
        let want_bfs = bfs::bfs(&single, root).unwrap();
        let want_pr = pagerank::pagerank(&single, 0.85, 10);
        for ranks in [1, 2, 4] {
            let pattern = format!("{base}/c{case}-r{ranks}/part-{{rank}}");
            let mut create = vec!["dynamic", "create", &pattern, "--partitions", "2", "--threshold", "3"];
            for (on, flag) in [(undirected, "--undirected"), (multigraph, "--multigraph"), (weighted, "--weighted")] {
                if on {
                    create.push(flag);
                }
            }
            run(ranks, &create);
            // small blocks: many rounds, every rank reads
            let applied =
                run(ranks, &["dynamic", "apply", &pattern, f1.to_str().unwrap(), f2.to_str().unwrap(), "--block", "2K", "--json"]);
            let report: serde_json::Value = serde_json::from_slice(&applied.stdout).unwrap();
            assert_eq!(report["report"]["updates"], 9000);
            assert_eq!(report["per_rank"].as_array().unwrap().len(), ranks);
            let stores: Vec<DynamicStore> = parts(&pattern, ranks).iter().map(|p| DynamicStore::open(p).unwrap()).collect();
            for (r, s) in stores.iter().enumerate() {
                s.check().unwrap();
                s.for_each_source(|u| assert_eq!(outcore_dist::owner::Owner::Splitmix2.rank_of(u, ranks), r, "vertex {u} on rank {r}"));
            }
            let got = contents(&stores.iter().collect::<Vec<_>>());
            assert!(got == want, "case {case} at {ranks} ranks: the parts differ from the single-machine store");
            drop(stores);
            // BFS and PageRank across ranks
            let (b, p) = (dir.path().join(format!("c{case}-r{ranks}.bfs")), dir.path().join(format!("c{case}-r{ranks}.pr")));
            run(ranks, &["dynamic", "bfs", &pattern, "--root", &root.to_string(), "--output", b.to_str().unwrap()]);
            let levels = read_pairs(&b);
            assert_eq!(levels.len(), want_bfs.index.len());
            for (i, &id) in want_bfs.index.ids.iter().enumerate() {
                let l = want_bfs.level[i];
                let want_text = if l == outcore_algorithms::values::UNREACHED_U64 { i64::MAX.to_string() } else { l.to_string() };
                assert_eq!(levels[&id], want_text, "BFS level of {id}, case {case}, {ranks} ranks");
            }
            let per_rank = format!("{base}/c{case}-r{ranks}.pr.{{rank}}");
            run(ranks, &["dynamic", "pagerank", &pattern, "--output", p.to_str().unwrap()]);
            run(ranks, &["dynamic", "pagerank", &pattern, "--output", &per_rank]);
            let ranked = read_pairs(&p);
            let mut union = BTreeMap::new();
            for f in parts(&per_rank, ranks) {
                union.extend(read_pairs(&f));
            }
            assert_eq!(union, ranked, "per-rank files hold the gathered output");
            for (i, &id) in want_pr.index.ids.iter().enumerate() {
                let x: f64 = ranked[&id].parse().unwrap();
                assert!((x - want_pr.rank[i]).abs() < 1e-9, "PageRank of {id}: {x} vs {}", want_pr.rank[i]);
            }
            // a snapshot's parts hold every arc once
            if ranks == 2 {
                let out = format!("{base}/c{case}-snap/part-{{rank}}");
                run(ranks, &["dynamic", "snapshot", &pattern, &out]);
                let m = outcore_dist::partition::check_parts(&out, ranks).unwrap();
                assert_eq!((m.directed, m.weighted), (!undirected, weighted));
                let mut arcs = BTreeMap::new();
                for (r, part) in parts(&out, ranks).iter().enumerate() {
                    let el = dir.path().join(format!("c{case}-snap-{r}.el"));
                    outcore_ingest::export::export(part, &el, &Default::default(), &outcore_io::NoProgress).unwrap();
                    for line in std::fs::read_to_string(&el).unwrap().lines() {
                        let mut f = line.split_whitespace().map(|x| x.parse::<u64>().unwrap());
                        *arcs.entry((f.next().unwrap(), f.next().unwrap())).or_insert(0u32) += 1;
                    }
                }
                let want_arcs: BTreeMap<(u64, u64), u32> = want.0.iter().map(|(&k, &(_, c))| (k, if multigraph { c } else { 1 })).collect();
                assert!(arcs == want_arcs, "case {case}: the snapshot's parts differ from the store");
            }
        }
    }
}

#[test]
fn a_bad_line_stops_every_rank_and_keeps_the_last_global_commit() {
    let dir = tempfile::tempdir().unwrap();
    let pattern = format!("{}/d/part-{{rank}}", dir.path().display());
    let good = dir.path().join("good.updates");
    write_stream(&good, &stream(7, 3000, 300));
    let bad = dir.path().join("bad.updates");
    let mut text: String = stream(8, 4000, 300).iter().map(|x| to_text(x) + "\n").collect();
    text.push_str("+ 12 x\n+ 1 2\n");
    std::fs::write(&bad, text).unwrap();
    run(2, &["dynamic", "create", &pattern, "--partitions", "1"]);
    run(2, &["dynamic", "apply", &pattern, good.to_str().unwrap()]);
    let before: Vec<Graph> = parts(&pattern, 2).iter().map(|p| contents(&[&DynamicStore::open(p).unwrap()])).collect();
    let err = fails(2, &["dynamic", "apply", &pattern, bad.to_str().unwrap(), "--block", "1K", "--commit-every", "1000000"]);
    assert!(err.contains("bad.updates:4001:") && err.contains("rolled back to global commit 1"), "{err}");
    let after: Vec<Graph> = parts(&pattern, 2).iter().map(|p| contents(&[&DynamicStore::open(p).unwrap()])).collect();
    assert!(after == before, "a failed apply changed the store");
}

#[test]
fn wrong_rank_counts_missing_parts_and_foreign_parts_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let a = format!("{}/a/part-{{rank}}", dir.path().display());
    let b = format!("{}/b/part-{{rank}}", dir.path().display());
    run(2, &["dynamic", "create", &a]);
    run(2, &["dynamic", "create", &b]);
    let err = fails(3, &["dynamic", "stats", &a]);
    assert!(err.contains("the store has 2 ranks, this job 3: run it with mpirun -n 2"), "{err}");
    let err = fails(2, &["dynamic", "create", &a]);
    assert!(err.contains("already exists"), "{err}");
    let err = fails(2, &["dynamic", "stats", &dir.path().join("a/part").to_string_lossy()]);
    assert!(err.contains("needs a path with {rank}"), "{err}");
    // a part of another store
    let (a1, b1) = (dir.path().join("a/part-1"), dir.path().join("b/part-1"));
    std::fs::rename(&a1, dir.path().join("a1")).unwrap();
    let err = fails(2, &["dynamic", "stats", &a]);
    assert!(err.contains("part-1: no such directory (the part of rank 1)"), "{err}");
    std::fs::rename(&b1, &a1).unwrap();
    let err = fails(2, &["dynamic", "stats", &a]);
    assert!(err.contains("another store"), "{err}");
}

#[test]
fn a_rank_killed_during_apply_stops_the_job_and_every_rank_reopens_at_the_last_global_commit() {
    let dir = tempfile::tempdir().unwrap();
    let pattern = format!("{}/k/part-{{rank}}", dir.path().display());
    let updates = stream(21, 400_000, 50_000);
    let file = dir.path().join("big.updates");
    write_stream(&file, &updates);
    run(2, &["dynamic", "create", &pattern, "--partitions", "1"]);
    let mut job = mpirun(2, &["dynamic", "apply", &pattern, file.to_str().unwrap(), "--block", "64K", "--commit-every", "40000"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let global = |r: usize| -> u64 {
        let text = std::fs::read_to_string(parts(&pattern, 2)[r].join("GLOBAL")).unwrap_or_default();
        serde_json::from_str::<serde_json::Value>(&text).map_or(0, |v| v["commit"].as_u64().unwrap_or(0))
    };
    let start = Instant::now();
    while global(1) < 2 {
        assert!(start.elapsed() < Duration::from_secs(120), "no second commit in two minutes");
        std::thread::sleep(Duration::from_millis(20));
    }
    let victim = rank_process(&pattern, 1).expect("rank 1 is running");
    kill_rank_and_expect_the_job_to_stop(&mut job, victim);
    // reopening decides any half-done commit; every rank is at rank 0's
    let stats = run(2, &["dynamic", "stats", &pattern, "--json", "--check"]);
    let v: serde_json::Value = serde_json::from_slice(&stats.stdout).unwrap();
    let committed = v["updates_committed"].as_u64().unwrap() as usize;
    assert!(v["global_commit"].as_u64().unwrap() >= 2 && committed < updates.len(), "{v}");
    for r in 0..2 {
        assert_eq!(global(r), v["global_commit"].as_u64().unwrap(), "rank {r}'s record");
    }
    // and the store holds exactly the updates committed
    let mut single = DynamicStore::create(&dir.path().join("single"), StoreOptions { partitions: 1, ..Default::default() }).unwrap();
    single.apply(&updates[..committed]).unwrap();
    let stores: Vec<DynamicStore> = parts(&pattern, 2).iter().map(|p| DynamicStore::open(p).unwrap()).collect();
    assert!(contents(&stores.iter().collect::<Vec<_>>()) == contents(&[&single]), "the reopened store is not the committed prefix");
}

/// The outcore-dist process of MPI rank `rank` whose command line names `pattern`.
fn rank_process(pattern: &str, rank: usize) -> Option<u32> {
    let wanted = format!("OMPI_COMM_WORLD_RANK={rank}");
    std::fs::read_dir("/proc").unwrap().flatten().filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok()).find(|pid| {
        let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let env = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
        String::from_utf8_lossy(&cmd).contains(pattern) && env.split(|&b| b == 0).any(|v| v == wanted.as_bytes())
    })
}

/// CA-GrQc imported as it is (directed) into `dir` and cut in two parts;
/// the parts' path pattern.
fn grqc_in_two_parts(dir: &Path) -> String {
    grqc_in_two_parts_as(dir, None)
}

/// [`grqc_in_two_parts`], imported as `directed` says (None: as it is).
fn grqc_in_two_parts_as(dir: &Path, directed: Option<bool>) -> String {
    let shared = outcore_io::shared_dir(env!("CARGO_MANIFEST_DIR")).join("data/real/CA-GrQc.txt");
    let source = dir.join("grqc");
    let opts = outcore_ingest::import::ImportOptions { directed, ..Default::default() };
    outcore_ingest::import::import_file(&shared, &source, &opts, &outcore_io::NoProgress).unwrap();
    let pattern = dir.join("p/part-{rank}").display().to_string();
    outcore_dist::partition::partition(&source, &pattern, 2, 0, 64 << 20, false, &outcore_io::NoProgress).unwrap();
    pattern
}

#[test]
fn a_rank_killed_during_a_static_run_stops_every_rank_and_leaves_no_output() {
    let dir = tempfile::tempdir().unwrap();
    // undirected: PageRank pulls, its ranks in files beside each part
    let pattern = grqc_in_two_parts_as(dir.path(), Some(false));
    let out = dir.path().join("ranks.txt");
    // a million iterations: still running when rank 1 is killed
    let args = ["pagerank", &pattern, "--iterations", "1000000", "--output", out.to_str().unwrap(), "--memory", "96M"];
    let mut job = mpirun(2, &args).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    let start = Instant::now();
    let victim = loop {
        if let Some(pid) = rank_process(&pattern, 1) {
            break pid;
        }
        assert!(start.elapsed() < Duration::from_secs(60), "rank 1 did not start in a minute");
        std::thread::sleep(Duration::from_millis(20));
    };
    // past opening the part: the ranks are iterating
    std::thread::sleep(Duration::from_millis(1500));
    assert!(job.try_wait().unwrap().is_none(), "the job ended before the kill");
    kill_rank_and_expect_the_job_to_stop(&mut job, victim);
    assert!(rank_process(&pattern, 0).is_none(), "rank 0 outlived the job");
    // nothing under the output's name; the parts are as they were
    assert!(!out.exists(), "an output file after a failed run");
    run(2, &["wcc", &pattern, "--memory", "96M"]);
    // the killed rank's rank files (PageRank keeps its ranks beside the
    // part) were removed by the next run to open the part
    for rank in 0..2 {
        let part = std::path::PathBuf::from(pattern.replace("{rank}", &rank.to_string()));
        let left: Vec<_> =
            std::fs::read_dir(&part).unwrap().flatten().filter(|e| e.file_name().to_string_lossy().starts_with(".outcore-")).collect();
        assert!(left.is_empty(), "part {rank} keeps {:?}", left.iter().map(|e| e.file_name()).collect::<Vec<_>>());
    }
}

/// Ctrl-C on mpirun (its SIGTERM to the ranks, then SIGKILL a second
/// later): each rank removes what it staged in that second, so neither
/// the parts' directories nor the output's holds anything of the run.
#[test]
fn an_interrupted_static_run_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let pattern = grqc_in_two_parts_as(dir.path(), Some(false));
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let out = out_dir.join("ranks.txt");
    let args = ["pagerank", &pattern, "--iterations", "1000000", "--output", out.to_str().unwrap(), "--memory", "96M"];
    let mut job = mpirun(2, &args).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    let start = Instant::now();
    let part0 = std::path::PathBuf::from(pattern.replace("{rank}", "0"));
    let staged =
        |d: &Path| std::fs::read_dir(d).unwrap().flatten().filter(|e| e.file_name().to_string_lossy().starts_with(".outcore-")).count();
    // iterating: rank 0's rank files are there
    while staged(&part0) == 0 {
        assert!(start.elapsed() < Duration::from_secs(60), "rank 0 did not start iterating in a minute");
        assert!(job.try_wait().unwrap().is_none(), "the job ended before the interrupt");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(Command::new("kill").args(["-INT", &job.id().to_string()]).status().unwrap().success());
    let status = job.wait().unwrap();
    assert!(!status.success(), "an interrupted job succeeded");
    assert!(!out.exists(), "an output file after an interrupted run");
    for d in [part0, std::path::PathBuf::from(pattern.replace("{rank}", "1")), out_dir.clone()] {
        assert_eq!(staged(&d), 0, "{} keeps what the run staged", d.display());
    }
    // --temp-dir puts the rank files elsewhere (here per rank) and changes
    // no rank; a missing one is named
    let ranks_in = |name: &str, extra: &[&str]| {
        let path = out_dir.join(name);
        let mut args = vec!["pagerank", &pattern, "--iterations", "7", "--memory", "96M", "--output", path.to_str().unwrap()];
        args.extend_from_slice(extra);
        run(2, &args);
        std::fs::read_to_string(path).unwrap()
    };
    for rank in 0..2 {
        std::fs::create_dir(dir.path().join(format!("t{rank}"))).unwrap();
    }
    let temp = dir.path().join("t{rank}").display().to_string();
    assert_eq!(ranks_in("a.txt", &[]), ranks_in("b.txt", &["--temp-dir", &temp]));
    let missing = dir.path().join("nowhere").display().to_string();
    let err = fails(2, &["pagerank", &pattern, "--iterations", "7", "--memory", "96M", "--temp-dir", &missing]);
    assert!(err.contains("nowhere"), "{err}");
}

/// SIGKILL rank 1 (process `victim`) of `job`: the job must fail within
/// 30 seconds, and mpirun must name the lost rank.
fn kill_rank_and_expect_the_job_to_stop(job: &mut std::process::Child, victim: u32) {
    let killed = Instant::now();
    unsafe_free_kill(victim);
    let status = job.wait().unwrap();
    let waited = killed.elapsed();
    let mut err = String::new();
    std::io::Read::read_to_string(job.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert!(!status.success(), "the job went on without rank 1");
    assert!(waited < Duration::from_secs(30), "the job took {waited:?} to stop");
    assert!(err.contains("rank 1") && err.contains("signal 9"), "mpirun names the lost rank: {err}");
}

/// SIGKILL through kill(1): the test needs no unsafe code of its own.
fn unsafe_free_kill(pid: u32) {
    assert!(Command::new("kill").args(["-9", &pid.to_string()]).status().unwrap().success());
}

#[test]
fn the_distributed_colouring_is_proper_after_every_batch_within_max_degree_plus_one() {
    let dir = tempfile::tempdir().unwrap();
    // no property updates: colours live in the vertex properties
    let updates: Vec<Update> = stream(31, 8000, 300).into_iter().filter(|x| !matches!(x, Update::SetProperty { .. })).collect();
    let file = dir.path().join("c.updates");
    write_stream(&file, &updates);
    let opts = StoreOptions { partitions: 2, undirected: true, ..Default::default() };
    let mut single = DynamicStore::create(&dir.path().join("single"), opts).unwrap();
    single.apply(&updates).unwrap();
    let mut max_degree = 0;
    single.for_each_source(|u| max_degree = max_degree.max(single.neighbours(u).iter().filter(|e| e.target != u).count() as u64));
    for ranks in [1, 2, 4] {
        let pattern = format!("{}/r{ranks}/part-{{rank}}", dir.path().display());
        run(ranks, &["dynamic", "create", &pattern, "--undirected", "--partitions", "2"]);
        // a first stream colours as it goes, then the whole store is checked
        let out = dir.path().join(format!("r{ranks}.colours"));
        let done = run(
            ranks,
            &[
                "dynamic",
                "color",
                &pattern,
                file.to_str().unwrap(),
                "--block",
                "4K",
                "--check",
                "--output",
                out.to_str().unwrap(),
                "--json",
            ],
        );
        let v: serde_json::Value = serde_json::from_slice(&done.stdout).unwrap();
        assert!(v["batches_checked"].as_u64().unwrap() > 3, "{v}");
        assert_eq!(v["max_degree"].as_u64().unwrap(), max_degree);
        let colours: BTreeMap<u64, u64> = read_pairs(&out).into_iter().map(|(u, c)| (u, c.parse().unwrap())).collect();
        let mut used = std::collections::BTreeSet::new();
        single.for_each_edge(|u, e| {
            if u != e.target {
                let (a, b) = (colours[&u], colours[&e.target]);
                assert_ne!(a, b, "edge {u} - {} at {ranks} ranks", e.target);
                used.insert(a);
            }
        });
        assert!(used.len() as u64 <= max_degree + 1, "{} colours, max degree {max_degree}", used.len());
        assert_eq!(v["colours"].as_u64().unwrap(), used.len() as u64);
        // colours live in the parts' vertex properties; the graph is unchanged by them
        let stores: Vec<DynamicStore> = parts(&pattern, ranks).iter().map(|p| DynamicStore::open(p).unwrap()).collect();
        assert!(contents(&stores.iter().collect::<Vec<_>>()).0 == contents(&[&single]).0);
        for s in &stores {
            // (a vertex inserted without edges is not coloured: nothing can conflict with it)
            s.for_each_source(|u| assert_eq!(s.property(u).filter(|&p| p > 0), colours.get(&u).map(|c| c + 1), "vertex {u}"));
        }
    }
}

/// Every arc of a static store, by (u, v, weight text), with its count.
fn store_arcs(store: &Path, scratch: &Path, weighted: bool) -> BTreeMap<(u64, u64, String), u32> {
    static EXPORTS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let el = scratch.join(format!("arcs-{}.el", EXPORTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)));
    let format = if weighted { outcore_ingest::export::ExportFormat::Wel } else { outcore_ingest::export::ExportFormat::El };
    outcore_ingest::export::export(
        store,
        &el,
        &outcore_ingest::export::ExportOptions { format, ..Default::default() },
        &outcore_io::NoProgress,
    )
    .unwrap();
    let mut out = BTreeMap::new();
    for line in std::fs::read_to_string(&el).unwrap().lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        *out.entry((f[0].parse().unwrap(), f[1].parse().unwrap(), f.get(2).map_or(String::new(), |w| w.to_string()))).or_insert(0) += 1;
    }
    out
}

#[test]
fn the_distributed_import_gives_the_parts_partition_cuts_from_a_single_machine_import() {
    let shared = outcore_io::shared_dir(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let weighted_input = dir.path().join("w.wel");
    let mut text = String::from("# a weighted list\n");
    for i in 0..3000u64 {
        text.push_str(&format!("{} {} {}\n", i * 7 % 500, i * 13 % 700, i % 5 + 1));
    }
    std::fs::write(&weighted_input, text).unwrap();
    let cases = [
        (shared.join("data/real/CA-GrQc.txt"), true, false),
        (shared.join("data/real/CA-GrQc.txt"), false, false),
        (weighted_input, true, true),
    ];
    for (case, (input, directed, weighted)) in cases.into_iter().enumerate() {
        let single = dir.path().join(format!("single-{case}"));
        let opts = outcore_ingest::ImportOptions { directed: Some(directed), weighted, ..Default::default() };
        outcore_ingest::import_file(&input, &single, &opts, &outcore_io::NoProgress).unwrap();
        for ranks in [1, 2, 4] {
            let cut = format!("{}/cut-{case}-{ranks}/part-{{rank}}", dir.path().display());
            let cut_parts = outcore_dist::partition::partition(
                &single,
                &cut,
                ranks,
                outcore_ingest::hot::DEFAULT_COLUMNS,
                1 << 30,
                false,
                &outcore_io::NoProgress,
            )
            .unwrap()
            .parts;
            let pattern = format!("{}/imp-{case}-{ranks}/part-{{rank}}", dir.path().display());
            let mut args = vec!["import", input.to_str().unwrap(), "-o", &pattern, "--block", "16K"];
            if !directed {
                args.push("--undirected");
            }
            if weighted {
                args.push("--weighted");
            }
            run(ranks, &args);
            let m = outcore_dist::partition::check_parts(&pattern, ranks).unwrap();
            assert_eq!(m.vertices, outcore_store::Store::open(&single).unwrap().manifest().vertices, "case {case}");
            for (r, cut_part) in cut_parts.iter().enumerate() {
                let part = PathBuf::from(pattern.replace("{rank}", &r.to_string()));
                assert!(
                    store_arcs(&part, dir.path(), weighted) == store_arcs(cut_part, dir.path(), weighted),
                    "case {case}, rank {r} of {ranks}: the imported part differs from the cut one"
                );
            }
        }
    }
    // a bad line stops every rank, named by its line
    let bad = dir.path().join("bad.el");
    std::fs::write(&bad, (0..2000).map(|i| format!("{i} {}\n", i + 1)).collect::<String>() + "5 x\n").unwrap();
    let err = fails(2, &["import", bad.to_str().unwrap(), "-o", &format!("{}/bad/part-{{rank}}", dir.path().display()), "--block", "4K"]);
    assert!(err.contains("bad.el:2001:"), "{err}");
}

/// `key = value` lines of a Graphalytics properties file.
fn properties(path: &Path) -> BTreeMap<String, String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect()
}

/// Each line of `path` as (vertex, value), with the line count checked first.
fn values(path: &Path, n: usize) -> BTreeMap<u64, String> {
    let text = std::fs::read_to_string(path).unwrap();
    assert_eq!(text.lines().count(), n, "{}: a line per vertex", path.display());
    let map = read_pairs(path);
    assert_eq!(map.len(), n, "{}: every vertex once", path.display());
    map
}

fn real(x: &str) -> f64 {
    if x == "infinity" {
        f64::INFINITY
    } else {
        x.parse().unwrap()
    }
}

/// Graphalytics' validation rules: BFS levels exactly, PageRank within
/// 1e-4 relative, WCC up to relabelling, SSSP within 1e-6 relative and
/// infinity where unreachable.
fn graphalytics_equal(algorithm: &str, got: &BTreeMap<u64, String>, want: &BTreeMap<u64, String>, what: &str) {
    assert_eq!(got.keys().collect::<Vec<_>>(), want.keys().collect::<Vec<_>>(), "{what}: the same vertices");
    let mut relabel: BTreeMap<&str, &str> = BTreeMap::new();
    let mut seen: BTreeMap<&str, &str> = BTreeMap::new();
    for (v, w) in want {
        let g = &got[v];
        match algorithm {
            "BFS" => assert_eq!(g, w, "{what}: vertex {v}"),
            "PR" => assert!((real(g) - real(w)).abs() <= 1e-4 * real(w).abs(), "{what}: vertex {v}: {g} against {w}"),
            "SSSP" => {
                let (g, w) = (real(g), real(w));
                assert!(g == w || (g - w).abs() <= 1e-6 * w.abs().max(1.0), "{what}: vertex {v}: {g} against {w}")
            }
            "WCC" => {
                assert_eq!(*relabel.entry(w).or_insert(g), g.as_str(), "{what}: vertex {v} split from its component");
                assert_eq!(*seen.entry(g).or_insert(w), w.as_str(), "{what}: vertex {v} merged with another component");
            }
            _ => unreachable!(),
        }
    }
}

#[test]
fn static_analytics_across_ranks_pass_the_graphalytics_oracles_and_equal_one_rank() {
    let shared = outcore_io::shared_dir(env!("CARGO_MANIFEST_DIR")).join("data/graphalytics/evlp");
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("example-directed", &["BFS", "PR", "SSSP", "WCC"][..]),
        ("example-undirected", &["BFS", "PR", "SSSP", "WCC"][..]),
        ("test-bfs-directed", &["BFS"][..]),
        ("test-bfs-undirected", &["BFS"][..]),
        ("test-wcc-directed", &["WCC"][..]),
        ("test-wcc-undirected", &["WCC"][..]),
    ];
    for (name, algorithms) in cases {
        let input = shared.join(format!("{name}.properties"));
        let props = properties(&input);
        let prop = |key: &str| props.get(&format!("graph.{name}.{key}")).cloned();
        let weighted = prop("edge-properties.names").is_some();
        let source = dir.path().join(name);
        let opts = outcore_ingest::import::ImportOptions { weighted, ..Default::default() };
        outcore_ingest::import::import_file(&input, &source, &opts, &outcore_io::NoProgress).unwrap();
        let n = outcore_store::Store::open(&source).unwrap().vertices() as usize;
        for ranks in [1, 2, 4] {
            let pattern = dir.path().join(format!("{name}-{ranks}/part-{{rank}}")).display().to_string();
            outcore_dist::partition::partition(
                &source,
                &pattern,
                ranks,
                outcore_ingest::hot::DEFAULT_COLUMNS,
                64 << 20,
                false,
                &outcore_io::NoProgress,
            )
            .unwrap();
            for &algorithm in algorithms {
                let out = dir.path().join(format!("{name}-{ranks}-{algorithm}.txt")).display().to_string();
                let mut args: Vec<String> = vec![pattern.clone(), "--output".into(), out.clone(), "--memory".into(), "96M".into()];
                let command = match algorithm {
                    "BFS" => {
                        args.extend(["--root".into(), prop("bfs.source-vertex").unwrap()]);
                        "bfs"
                    }
                    "PR" => {
                        args.extend(["--damping".into(), prop("pr.damping-factor").unwrap()]);
                        args.extend(["--iterations".into(), prop("pr.num-iterations").unwrap()]);
                        "pagerank"
                    }
                    "SSSP" => {
                        args.extend(["--root".into(), prop("sssp.source-vertex").unwrap()]);
                        "sssp"
                    }
                    _ => "wcc",
                };
                let mut all = vec![command];
                all.extend(args.iter().map(String::as_str));
                run(ranks, &all);
                let got = values(Path::new(&out), n);
                let want = values(&shared.join(format!("{name}-{algorithm}")), n);
                graphalytics_equal(algorithm, &got, &want, &format!("{name} {algorithm} at {ranks} ranks"));
            }
        }
    }
}

#[test]
fn static_analytics_on_a_real_graph_equal_at_one_two_and_four_ranks() {
    // CA-GrQc undirected: the hybrid BFS takes bottom-up steps; PageRank to
    // convergence; per-rank output files; --json's figures per rank
    let shared = outcore_io::shared_dir(env!("CARGO_MANIFEST_DIR")).join("data/real/CA-GrQc.txt");
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("grqc");
    let opts = outcore_ingest::import::ImportOptions { directed: Some(false), ..Default::default() };
    outcore_ingest::import::import_file(&shared, &source, &opts, &outcore_io::NoProgress).unwrap();
    let n = outcore_store::Store::open(&source).unwrap().vertices() as usize;
    let mut first: BTreeMap<&str, BTreeMap<u64, String>> = BTreeMap::new();
    for ranks in [1, 2, 4] {
        let pattern = dir.path().join(format!("p{ranks}/part-{{rank}}")).display().to_string();
        // no stored hot lists: the BFS builds them
        outcore_dist::partition::partition(&source, &pattern, ranks, 0, 64 << 20, false, &outcore_io::NoProgress).unwrap();
        for (command, extra) in [("bfs", &["--root", "3466"][..]), ("pagerank", &[][..]), ("wcc", &[][..])] {
            let out = dir.path().join(format!("{command}-{ranks}-{{rank}}.txt")).display().to_string();
            let mut args = vec![command, pattern.as_str(), "--output", out.as_str(), "--json", "--memory", "96M"];
            args.extend(extra);
            let printed = run(ranks, &args);
            let report: serde_json::Value = serde_json::from_slice(&printed.stdout).unwrap();
            let per_rank = report["per_rank"].as_array().unwrap();
            assert_eq!(per_rank.len(), ranks, "{command}: a figure set per rank");
            if ranks > 1 {
                assert!(per_rank.iter().all(|r| r["bytes_sent"].as_u64().unwrap() > 0), "{command}: every rank sent");
            }
            if command == "bfs" {
                let steps = report["steps"].as_array().unwrap();
                assert!(steps.iter().any(|s| s["bottom_up"] == true), "the hybrid BFS took a bottom-up step");
            }
            // the ranks' files together: every vertex once
            let mut union = BTreeMap::new();
            for r in 0..ranks {
                for (v, x) in read_pairs(Path::new(&out.replace("{rank}", &r.to_string()))) {
                    assert!(union.insert(v, x).is_none(), "{command}: vertex {v} in two ranks' files");
                }
            }
            assert_eq!(union.len(), n, "{command}: every vertex in some rank's file");
            if command == "wcc" {
                // one file: the ranks' files (each ascending) one after the other
                let one = dir.path().join(format!("wcc-{ranks}.txt")).display().to_string();
                run(ranks, &["wcc", &pattern, "--output", &one, "--memory", "96M"]);
                let mut concatenated = String::new();
                for r in 0..ranks {
                    let text = std::fs::read_to_string(out.replace("{rank}", &r.to_string())).unwrap();
                    let ids: Vec<u64> = text.lines().map(|l| l.split(' ').next().unwrap().parse().unwrap()).collect();
                    assert!(ids.windows(2).all(|w| w[0] < w[1]), "rank {r}'s file ascends");
                    concatenated.push_str(&text);
                }
                assert!(std::fs::read_to_string(&one).unwrap() == concatenated, "the single file is the ranks' lines in rank order");
            }
            match first.get(command) {
                None => {
                    first.insert(command, union);
                }
                Some(one) => {
                    let algorithm = match command {
                        "bfs" => "BFS",
                        "pagerank" => "PR",
                        _ => "WCC",
                    };
                    graphalytics_equal(algorithm, &union, one, &format!("{command} at {ranks} ranks against 1"));
                    if command == "pagerank" {
                        for (v, x) in &union {
                            assert!((real(x) - real(&one[v])).abs() < 1e-9, "PageRank of {v} at {ranks} ranks");
                        }
                    }
                }
            }
        }
    }
    // one rank equals the single-machine references (tests/statics.rs checks 1-4 ranks in one process too)
    let store = outcore_store::Store::open(&source).unwrap();
    let g = outcore_algorithms::MemGraph::load(&store, "out", &outcore_io::Budget::unlimited()).unwrap();
    let ids = store.id_map(&outcore_io::Budget::unlimited()).unwrap();
    let levels = outcore_algorithms::bfs::reference::bfs_levels(&g, ids.dense(3466).unwrap());
    for (d, &l) in levels.iter().enumerate() {
        let want = if l == u64::MAX { i64::MAX.to_string() } else { l.to_string() };
        assert_eq!(first["bfs"][&ids.original(d as u64)], want, "level of {}", ids.original(d as u64));
    }
}

#[test]
fn static_commands_refuse_wrong_rank_counts_and_unknown_roots() {
    let dir = tempfile::tempdir().unwrap();
    let pattern = grqc_in_two_parts(dir.path());
    let err = fails(4, &["wcc", &pattern]);
    assert!(err.contains("the store has 2 parts, this job 4 ranks"), "{err}");
    let err = fails(2, &["bfs", &pattern, "--root", "999999999"]);
    assert!(err.contains("root 999999999 is not a vertex"), "{err}");
    let err = fails(2, &["sssp", &pattern, "--root", "3466"]);
    assert!(err.contains("SSSP needs weights"), "{err}");
    let err = fails(2, &["wcc", &pattern, "--memory", "64K"]);
    assert!(err.contains("budget") || err.contains("memory"), "{err}");
}

#[test]
fn graph500_at_scale_12_validates_on_four_ranks() {
    let out = run(4, &["graph500", "--scale", "12", "--roots", "16", "--memory", "128M"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let field = |name: &str| -> f64 {
        let line = text.lines().find(|l| l.starts_with(&format!("{name}:"))).unwrap_or_else(|| panic!("no {name} in\n{text}"));
        line.split_whitespace().last().unwrap().parse().unwrap()
    };
    assert_eq!(field("SCALE"), 12.0);
    assert_eq!(field("NBFS"), 16.0);
    assert_eq!(field("num_mpi_processes"), 4.0);
    // the spec's nedge: input edges in the root's component, at most all 16 x 2^12 of them
    assert!(field("max_nedge") <= (16u64 << 12) as f64 && field("min_nedge") > 0.0, "{text}");
    assert!(field("bfs  harmonic_mean_TEPS") > 0.0 && field("sssp  harmonic_mean_TEPS") > 0.0, "{text}");
    assert!(text.contains("all 16 BFS and SSSP results passed the five validation rules"), "{text}");
}
