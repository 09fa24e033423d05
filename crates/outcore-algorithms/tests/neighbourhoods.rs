//! The algorithms of the undirected neighbourhood (triangles, LCC, k-core)
//! out of core against independent oracles: the LDBC Graphalytics LCC
//! outputs (both validation copies), networkx's `triangles`, `clustering`
//! and `core_number` on the shared real graphs, and a budget so small that
//! the forward lists are held in many parts.

mod common;

use common::*;
use outcore_algorithms::params::Args;
use outcore_algorithms::registry::{find, Registered};
use outcore_algorithms::{Engine, Error, RunOptions};
use outcore_ingest::{import_file, ImportOptions, NoProgress};
use outcore_io::Budget;
use outcore_store::{Store, StoreError};
use std::collections::HashMap;
use std::path::Path;

fn import(input: &Path, dir: &Path, directed: Option<bool>, in_layout: bool) -> Store {
    let out = dir.join("s");
    import_file(input, &out, &ImportOptions { directed, in_layout, ..Default::default() }, &NoProgress).unwrap();
    Store::open(&out).unwrap()
}

/// A column of a registry run, by original id.
fn by_original(
    st: &Store,
    alg: &dyn Registered,
    args: &Args,
    opts: &RunOptions,
    column: &str,
) -> (HashMap<u64, f64>, outcore_algorithms::Run) {
    let run = bounded(alg.info().name, || alg.run(st, args, opts)).unwrap_or_else(|e| panic!("{}: {e}", alg.info().name));
    let ids = st.id_map(&Budget::unlimited()).unwrap();
    let values = run.outcome.column(column).unwrap().to_f64().unwrap();
    assert_eq!(values.len() as u64, st.vertices());
    let map = values.iter().enumerate().map(|(v, &x)| (ids.original(v as u64), x)).collect();
    (map, run)
}

fn close(got: f64, want: f64) -> bool {
    (got - want).abs() <= 1e-6 * want.abs().max(1e-300) || got == want
}

#[test]
fn lcc_equals_every_graphalytics_oracle() {
    let lcc = find("lcc").unwrap();
    let mut checked = 0;
    let evlp_cases = ["test-lcc-directed", "test-lcc-undirected", "example-directed", "example-undirected"]
        .map(|g| (evlp().join(format!("{g}.properties")), evlp().join(format!("{g}-LCC")), None));
    let validation = shared().join("graphalytics/validation-graphs/lcc");
    // the validation-graphs copy: its adjacency inputs have the test-lcc-* edge sets (shared README)
    let other_cases = [("dir", "directed"), ("undir", "undirected")]
        .map(|(k, d)| (evlp().join(format!("test-lcc-{d}.properties")), validation.join(format!("{k}-output")), None));
    for (input, output, directed) in evlp_cases.into_iter().chain(other_cases) {
        let want: HashMap<u64, f64> = std::fs::read_to_string(&output)
            .unwrap()
            .lines()
            .filter_map(|l| l.split_once(' '))
            .map(|(v, x)| (v.parse().unwrap(), x.trim().parse().unwrap()))
            .collect();
        assert!(want.values().any(|&x| x > 0.0 && x < 1.0), "{}: an oracle with fractions", output.display());
        let dir = tempfile::tempdir().unwrap();
        let st = import(&input, dir.path(), directed, true);
        for args in [Args::new(), Args::new().with("part_entries", 1)] {
            let (got, _) = by_original(&st, lcc, &args, &on(Engine::Traverse), "lcc");
            assert_eq!(got.len(), want.len(), "{}", output.display());
            for (v, &w) in &want {
                assert!(close(got[v], w), "{}: vertex {v}: {} against {w} ({args:?})", output.display(), got[v]);
            }
        }
        checked += 1;
    }
    assert_eq!(checked, 6);
}

/// The lines of a networkx oracle script (tests/oracle/NAME) run on
/// `input`, split into fields.
fn oracle(name: &str, input: &Path) -> Vec<Vec<String>> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle").join(name);
    let out = std::process::Command::new("python3")
        .arg(&script)
        .arg(input)
        .output()
        .expect("python3 runs the networkx oracle (.ci/run installs it)");
    assert!(out.status.success(), "networkx oracle {name} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().lines().map(|l| l.split(' ').map(str::to_string).collect()).collect()
}

/// networkx's triangles, clustering and core number of `input` read as an
/// undirected simple graph.
fn networkx(input: &Path) -> HashMap<u64, (f64, f64, f64)> {
    oracle("networkx_undirected.py", input)
        .iter()
        .map(|f| (f[0].parse().unwrap(), (f[1].parse().unwrap(), f[2].parse().unwrap(), f[3].parse().unwrap())))
        .collect()
}

#[test]
fn triangles_and_clustering_equal_networkx_on_real_graphs_with_the_lists_mostly_on_disk() {
    let (triangles, lcc) = (find("triangles").unwrap(), find("lcc").unwrap());
    for (file, directed) in [("CA-GrQc.txt", false), ("facebook-ego-1912.edges", false), ("wiki-Vote.txt", true)] {
        let input = shared().join("real").join(file);
        let want = networkx(&input);
        let dir = tempfile::tempdir().unwrap();
        let st = import(&input, dir.path(), Some(directed), true);
        // a few thousand forward entries a part: most of the lists are on disk at any time
        let parts = Args::new().with("part_entries", 4000);
        for args in [Args::new(), parts] {
            let (got, run) = by_original(&st, triangles, &args, &on(Engine::Traverse), "triangles");
            assert_eq!(got.len(), want.len(), "{file}");
            for (v, &(t, _, _)) in &want {
                assert_eq!(got[v], t, "{file}: triangles of {v} ({args:?})");
            }
            let total: f64 = want.values().map(|w| w.0).sum::<f64>() / 3.0;
            assert_eq!(figure(&run, "triangles_total"), total, "{file}");
            if args.text("part_entries").is_some() {
                assert!(figure(&run, "parts") >= 3.0, "{file}: {} parts", figure(&run, "parts"));
            }
            // networkx's clustering is Graphalytics LCC on undirected graphs only
            if !directed {
                let (got, _) = by_original(&st, lcc, &args, &on(Engine::Traverse), "lcc");
                for (v, &(_, c, _)) in &want {
                    assert!(close(got[v], c), "{file}: clustering of {v}: {} against {c}", got[v]);
                }
            }
        }
    }
}

/// The triangle count's forward lists are cut into parts of at most
/// `part_entries` entries, each part filled while the next list fits (a
/// list longer than that alone): the `parts` figure equals a plain
/// packing of each vertex's forward count (its neighbours, itself left
/// out, that rank above it by (degree, id)), read from the store's lists,
/// on CA-GrQc for three part sizes. The run reads `out` once (its files'
/// sizes), then its own forward lists (4 bytes an entry, 4 a vertex's
/// count) once, and once more for each part where there are several, in
/// a pass of its own (bytes read and passes).
#[test]
fn triangle_parts_are_filled_up_to_part_entries() {
    let triangles = find("triangles").unwrap();
    let input = shared().join("real").join("CA-GrQc.txt");
    let dir = tempfile::tempdir().unwrap();
    let st = import(&input, dir.path(), Some(false), true);
    let mut lists = Vec::new();
    let mut scan = st.layout("out").unwrap().scan().unwrap();
    while let Some((_, list, _)) = scan.next_list().unwrap() {
        lists.push(list.to_vec());
    }
    let rank = |v: usize| (lists[v].len(), v);
    let forward: Vec<u64> =
        (0..lists.len()).map(|v| lists[v].iter().filter(|&&u| u as usize != v && rank(u as usize) > rank(v)).count() as u64).collect();
    let n = lists.len() as u64;
    let forward_arcs = forward.iter().sum::<u64>();
    // (parts, bytes read, passes) of each run
    let mut figures = Vec::new();
    for part_entries in [20u64, 300, 4000] {
        let (mut parts, mut entries) = (0u64, 0u64);
        for &f in &forward {
            if parts == 0 || entries + f > part_entries {
                parts += 1;
                entries = 0;
            }
            entries += f;
        }
        let args = Args::new().with("part_entries", part_entries);
        let run = bounded("triangles", || triangles.run(&st, &args, &on(Engine::Traverse))).unwrap();
        assert_eq!(figure(&run, "parts"), parts as f64, "{part_entries} entries a part");
        assert_eq!(figure(&run, "forward_arcs"), forward_arcs as f64, "{part_entries} entries a part");
        figures.push((parts, figure(&run, "bytes_read") as u64, figure(&run, "passes") as u64));
    }
    // one part (no part size asked for): the neighbourhood scan of `out`
    // (its files' sizes), then the forward lists read back once
    let run = bounded("triangles", || triangles.run(&st, &Args::new(), &on(Engine::Traverse))).unwrap();
    let files: u64 = st.manifest().layouts["out"].files().map(|f| std::fs::metadata(st.dir().join(f)).unwrap().len()).sum();
    assert_eq!(figure(&run, "parts"), 1.0);
    assert_eq!(figure(&run, "bytes_read") as u64, files + forward_arcs * 4 + n * 4, "one part: bytes read");
    assert_eq!(figure(&run, "passes"), 2.0, "one part: passes");
    // more parts: each also reads every forward list in a pass of its own
    for &(parts, read, passes) in &figures {
        assert_eq!(read, files + (parts + 1) * (forward_arcs * 4 + n * 4), "{parts} parts: bytes read");
        assert_eq!(passes, parts + 2, "{parts} parts: passes");
    }
    // every part past the first reads every forward list (4 bytes an
    // entry, 4 a vertex's count) in a pass of its own: the runs differ by
    // that much for each part more (the scans before them are the same)
    for pair in figures.windows(2) {
        let ((parts_a, read_a, passes_a), (parts_b, read_b, passes_b)) = (pair[0], pair[1]);
        assert!(parts_a > parts_b && parts_b > 1, "{figures:?}");
        assert_eq!(read_a - read_b, (parts_a - parts_b) * (forward_arcs * 4 + n * 4), "bytes read: {figures:?}");
        assert_eq!(passes_a - passes_b, parts_a - parts_b, "passes: {figures:?}");
    }
}

#[test]
fn under_a_small_budget_the_counts_are_the_same_and_the_budget_holds() {
    // Kronecker scale 17, edge factor 16: over a million forward entries, more than the smallest part holds
    let dir = tempfile::tempdir().unwrap();
    let input = kronecker_edges(dir.path(), "k17.el", 17, 16, 7);
    let st = import(&input, dir.path(), Some(false), false);
    let triangles = find("triangles").unwrap();
    let big = bounded("triangles", || triangles.run(&st, &Args::new(), &on(Engine::Traverse))).unwrap();
    assert_eq!(figure(&big, "parts"), 1.0);
    // the smallest budget the plan accepts, then a little more
    let plan = triangles.plan(&st, &Args::new(), &on(Engine::Traverse)).unwrap();
    let small = RunOptions { memory: plan.minimum_bytes, ..on(Engine::Traverse) };
    let run = bounded("triangles at the smallest budget", || triangles.run(&st, &Args::new(), &small))
        .unwrap_or_else(|e| panic!("at the plan's minimum {}: {e}", plan.minimum_bytes));
    assert_eq!(run.outcome.columns[0].to_u64().unwrap(), big.outcome.columns[0].to_u64().unwrap());
    assert!(run.report.budget_peak_bytes <= small.memory, "charged {} of {}", run.report.budget_peak_bytes, small.memory);
    // the forward lists did not fit at once
    assert!(figure(&run, "parts") >= 2.0, "{} parts", figure(&run, "parts"));
}

#[test]
fn a_directed_store_without_in_names_the_command_that_adds_it() {
    let input = shared().join("real/wiki-Vote.txt");
    let dir = tempfile::tempdir().unwrap();
    let st = import(&input, dir.path(), Some(true), false);
    for name in ["triangles", "lcc", "kcore"] {
        let err = find(name).unwrap().run(&st, &Args::new(), &on(Engine::Traverse)).err().expect("needs in");
        // the typed error front ends turn into "add it with: outcore layout add STORE in"
        match err {
            Error::Store(StoreError::MissingLayout { layout, .. }) => assert_eq!(layout, "in", "{name}"),
            e => panic!("{name}: {e}"),
        }
    }
    let err = find("lcc").unwrap().run(&st, &Args::new().with("part_entries", 0), &on(Engine::Traverse)).err().unwrap();
    assert!(err.to_string().contains("part_entries") || err.to_string().contains("part-entries"), "{err}");
}

#[test]
fn core_numbers_equal_networkx_on_real_graphs() {
    let kcore = find("kcore").unwrap();
    let mut deepest = 0.0f64;
    for (file, directed) in
        [("CA-GrQc.txt", false), ("facebook-ego-1912.edges", false), ("wiki-Vote.txt", true), ("p2p-Gnutella05.txt", true)]
    {
        let input = shared().join("real").join(file);
        let want = networkx(&input);
        let dir = tempfile::tempdir().unwrap();
        let st = import(&input, dir.path(), Some(directed), true);
        let (got, run) = by_original(&st, kcore, &Args::new(), &on(Engine::Traverse), "core");
        assert_eq!(got.len(), want.len(), "{file}");
        for (v, &(_, _, c)) in &want {
            assert_eq!(got[v], c, "{file}: core number of {v}");
        }
        let max = want.values().map(|w| w.2).fold(0.0, f64::max);
        assert_eq!(figure(&run, "degeneracy"), max, "{file}");
        assert!(figure(&run, "rounds") >= 2.0, "{file}: a round that lowers, then one that does not");
        // one scan of each layout read (out, and in where directed) for the
        // degrees and one a round; the bytes each reads are its files' sizes
        let layouts: &[&str] = if directed { &["out", "in"] } else { &["out"] };
        let scans = figure(&run, "rounds") + 1.0;
        assert_eq!(figure(&run, "passes"), scans * layouts.len() as f64, "{file}: passes");
        let files: u64 = layouts
            .iter()
            .flat_map(|l| st.manifest().layouts[*l].files().map(|f| std::fs::metadata(st.dir().join(f)).unwrap().len()).collect::<Vec<_>>())
            .sum();
        assert_eq!(figure(&run, "bytes_read"), scans * files as f64, "{file}: bytes read");
        deepest = deepest.max(max);
    }
    // the graphs have deep cores, so the rounds have work to do
    assert!(deepest >= 20.0, "{deepest}");
}

/// networkx's strongly connected components of `input`: the smallest
/// vertex of each vertex's component.
fn networkx_scc(input: &Path) -> HashMap<u64, u64> {
    oracle("networkx_scc.py", input).iter().map(|f| (f[0].parse().unwrap(), f[1].parse().unwrap())).collect()
}

#[test]
fn strongly_connected_components_equal_networkx_by_every_route() {
    let scc = find("scc").unwrap();
    for file in ["wiki-Vote.txt", "p2p-Gnutella05.txt", "p2p-Gnutella06.txt"] {
        let input = shared().join("real").join(file);
        let want = networkx_scc(&input);
        let dir = tempfile::tempdir().unwrap();
        let st = import(&input, dir.path(), Some(true), false);
        let mut components = 0.0;
        // Tarjan on what the pivot leaves; colouring rounds to the end; rounds, then Tarjan on 500 arcs
        for (args, rounds) in
            [(Args::new(), false), (Args::new().with("in_memory_arcs", 0), true), (Args::new().with("in_memory_arcs", 500), true)]
        {
            let (got, run) = by_original(&st, scc, &args, &on(Engine::Traverse), "component");
            assert_eq!(got.len(), want.len(), "{file}");
            // the label (a dense id) names the smallest original id of the component
            let ids = st.id_map(&Budget::unlimited()).unwrap();
            for (v, &c) in &want {
                assert_eq!(ids.original(got[v] as u64), c, "{file}: component of {v} ({args:?})");
            }
            assert!(figure(&run, "pivot_component") > 100.0, "{file}: the pivot is in the giant component");
            assert_eq!(figure(&run, "colouring_rounds") > 0.0, rounds, "{file} ({args:?})");
            components = figure(&run, "components");
        }
        let distinct: std::collections::HashSet<u64> = want.values().copied().collect();
        assert_eq!(components, distinct.len() as f64, "{file}");
    }
}

/// The validators `--verify` uses where the in-memory reference does not
/// fit the budget: triangles and LCC recount a sample, k-core checks the
/// core property at every vertex, SCC recomputes sampled components by
/// reachability. Each passes the right result and refuses a damaged one;
/// with room for them, triangles and LCC recount 64 distinct vertices.
#[test]
fn validators_that_do_not_need_the_reference() {
    use outcore_algorithms::run::Check;
    use outcore_algorithms::values::{Column, Outcome, ValueKind};
    use outcore_algorithms::{kcore, scc, triangles, Validation};
    let dir = tempfile::tempdir().unwrap();
    let gen = |name: &str, g: &dyn outcore_ingest::generate::Generator| {
        let input = dir.path().join(name);
        outcore_ingest::generate::write_edge_list(g, &input, outcore_ingest::generate::EdgeListFormat::Text, false, &NoProgress).unwrap();
        let sub = dir.path().join(format!("{name}.d"));
        std::fs::create_dir_all(&sub).unwrap();
        (input, sub)
    };
    let budget = Budget::unlimited();
    let bump = |name: &'static str, kind: ValueKind, run: &outcore_algorithms::Run| -> Outcome {
        let c = run.outcome.column(name).unwrap();
        match kind {
            ValueKind::Real => {
                Outcome::new(vec![Column::new(name, kind, c.to_f64().unwrap().iter().map(|x| x * 1.01 + 0.01).collect::<Vec<_>>())])
            }
            _ => Outcome::new(vec![Column::new(name, kind, c.to_u64().unwrap().iter().map(|x| x + 1).collect::<Vec<_>>())]),
        }
    };
    type Validator = fn(&Check) -> Result<Validation, StoreError>;
    let cases: [(&str, &'static str, ValueKind, &str, Validator); 3] = [
        ("triangles", "triangles", ValueKind::Count, "a sample of vertices recounted", triangles::validate::triangles),
        ("lcc", "lcc", ValueKind::Real, "a sample of vertices recomputed", triangles::validate::lcc),
        ("kcore", "core", ValueKind::Count, "every vertex's neighbours of core", kcore::validate::validate),
    ];
    let (kron, sub) = gen("k13.el", &outcore_ingest::generate::Kronecker::graph500(13, 16, 3));
    let undirected = import(&kron, &sub, Some(false), false);
    let wiki = dir.path().join("wiki");
    std::fs::create_dir_all(&wiki).unwrap();
    let directed = import(&shared().join("real/wiki-Vote.txt"), &wiki, Some(true), true);
    for st in [&undirected, &directed] {
        for (name, column, kind, method, validate) in &cases {
            let run = bounded(name, || find(name).unwrap().run(st, &Args::new(), &on(Engine::Traverse))).unwrap();
            let check = |outcome: &Outcome| {
                bounded(name, || validate(&Check { store: st, outcome, report: &run.report, budget: &budget })).unwrap()
            };
            let verdict = check(&run.outcome);
            assert!(verdict.passed && verdict.method.starts_with(method), "{name}: {verdict:?}");
            if *name != "kcore" {
                // with room for them, 64 distinct vertices sampled
                assert!(verdict.detail.starts_with("64 vertices "), "{name}: {verdict:?}");
                sample_charged_what_it_holds(name, st, &run, *validate);
            }
            let verdict = check(&bump(column, *kind, &run));
            assert!(!verdict.passed, "{name}: a damaged result passed: {verdict:?}");
            if *name == "kcore" {
                // one vertex of the innermost core lowered
                let mut core = run.outcome.column("core").unwrap().to_u64().unwrap();
                let top = (0..core.len()).max_by_key(|&v| core[v]).unwrap();
                core[top] -= 1;
                assert!(!check(&Outcome::new(vec![Column::new("core", ValueKind::Count, core)])).passed, "a lowered core number passed");
            }
        }
    }
    // SCC on a directed uniform graph of 2^14 vertices
    let (uniform, sub) = gen("u14.el", &outcore_ingest::generate::Uniform { vertices: 1 << 14, edges: 1 << 17, seed: 5 });
    let st = import(&uniform, &sub, Some(true), false);
    let run = bounded("scc", || find("scc").unwrap().run(&st, &Args::new(), &on(Engine::Traverse))).unwrap();
    let validate = |outcome: &Outcome| {
        bounded("scc validation", || scc::validate::validate(&Check { store: &st, outcome, report: &run.report, budget: &budget })).unwrap()
    };
    let verdict = validate(&run.outcome);
    assert!(verdict.passed && verdict.method.contains("reachability"), "{verdict:?}");
    // the giant component split in two, each half labelled by its smallest member
    let mut label = run.outcome.column("component").unwrap().to_u64().unwrap();
    let sampled = (outcore_io::hash::splitmix64(0x5CC) % (1 << 14)) as usize;
    let giant = label[sampled];
    let members: Vec<usize> = (0..label.len()).filter(|&v| label[v] == giant).collect();
    assert!(members.len() > 1000, "{} in the sampled vertex's component", members.len());
    let first = members[members.len() / 2];
    for &v in &members[members.len() / 2..] {
        label[v] = first as u64;
    }
    let verdict = validate(&Outcome::new(vec![Column::new("component", ValueKind::Vertex, label)]));
    assert!(!verdict.passed && verdict.detail.contains("reach"), "a split component passed: {verdict:?}");
}

/// A sampling validator (triangles, LCC) is charged what it holds: its
/// scans (`neighbourhood::scan_bytes`), then 96 bytes an entry of each
/// neighbourhood it keeps, so its peak is the scans and a whole number of
/// entries, at most 64 of the longest neighbourhood; with that peak and
/// room for the result (8 bytes a vertex) it keeps all 64 vertices, with a
/// byte less one fewer, and without room for its scans it is refused.
fn sample_charged_what_it_holds(
    name: &str,
    st: &Store,
    run: &outcore_algorithms::Run,
    validate: fn(&outcore_algorithms::run::Check) -> Result<outcore_algorithms::Validation, StoreError>,
) {
    let at = |budget: &Budget| {
        bounded(name, || validate(&outcore_algorithms::run::Check { store: st, outcome: &run.outcome, report: &run.report, budget }))
    };
    let unlimited = Budget::unlimited();
    at(&unlimited).unwrap();
    let (peak, scan) = (unlimited.peak(), outcore_algorithms::neighbourhood::scan_bytes(st).unwrap());
    let longest = outcore_algorithms::neighbourhood::longest(st).unwrap();
    assert!(
        peak > scan && (peak - scan) % 96 == 0 && peak - scan <= 64 * longest * 96,
        "{name}: peak {peak}, scans {scan}, longest {longest}"
    );
    let result = st.vertices() * 8;
    let verdict = at(&Budget::new(peak + result)).unwrap();
    assert!(verdict.passed && verdict.detail.starts_with("64 vertices "), "{name} at its peak: {verdict:?}");
    let verdict = at(&Budget::new(peak + result - 1)).unwrap();
    assert!(verdict.passed && verdict.detail.starts_with("63 vertices "), "{name} a byte under its peak: {verdict:?}");
    assert!(at(&Budget::new(scan - 1)).is_err(), "{name}: ran without room for its scans");
}

/// The forward lists go to the temporary directory: where its file system
/// has less room than they take (4 bytes a forward arc and a vertex), the
/// count is refused before anything is written, with the room named, and
/// nothing is left there; with the room, the counts are those of a run in
/// the store's directory. (A 128 KiB tmpfs; the Kronecker graph's forward
/// lists take about 220 KB.)
#[test]
fn forward_lists_that_do_not_fit_the_temporary_directory_are_refused_up_front() {
    let dir = tempfile::tempdir().unwrap();
    let input = kronecker_edges(dir.path(), "k12.el", 12, 16, 7);
    let st = import(&input, dir.path(), Some(false), false);
    let needed = st.manifest().arcs.div_ceil(2) * 4 + st.vertices() * 4;
    assert!(needed > 200 << 10, "the forward lists take {needed} bytes");
    let triangles = find("triangles").unwrap();
    let want = bounded("triangles", || triangles.run(&st, &Args::new(), &on(Engine::Traverse))).unwrap();
    for (size, room) in [("128k", false), ("2m", true)] {
        let mount = dir.path().join(format!("tmp-{size}"));
        std::fs::create_dir(&mount).unwrap();
        let _unmount = tmpfs(&mount, size);
        let opts = RunOptions { temp_dir: Some(mount.clone()), ..on(Engine::Traverse) };
        let run = bounded("triangles", || triangles.run(&st, &Args::new(), &opts));
        if room {
            let run = run.unwrap_or_else(|e| panic!("with {size} of room: {e}"));
            assert_eq!(run.outcome.columns[0].to_u64().unwrap(), want.outcome.columns[0].to_u64().unwrap());
        } else {
            let e = run.err().expect("the forward lists fit 128 KiB").to_string();
            assert!(e.contains("the forward lists need about") && e.contains("another temporary directory"), "{e}");
        }
        assert_eq!(std::fs::read_dir(&mount).unwrap().count(), 0, "{size}: temporary files left behind");
    }
}
