//! A new user's first hour: no command deletes what outcore did not make
//! (each reproduction checks the message, the exit status and that the
//! user's files are byte-identical afterwards), Ctrl-C and SIGTERM leave
//! nothing behind at any moment, results go where users want them.

mod common;
use common::outcore;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Every file under `dir` (recursively) with a hash of its bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, u64> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let p = e.path();
            if e.file_type().unwrap().is_dir() {
                out.insert(p.clone(), 0);
                stack.push(p);
            } else {
                out.insert(p.clone(), xxhash_rust::xxh3::xxh3_64(&std::fs::read(&p).unwrap()) | 1);
            }
        }
    }
    out
}

/// The command fails with one line holding every needle, and changes nothing in `dir`.
fn refused(dir: &Path, args: &[&str], needles: &[&str]) {
    let before = snapshot(dir);
    let (code, out, err) = outcore(args);
    assert_eq!(code, 1, "{args:?} should fail: {out}{err}");
    let line = err.trim_end();
    assert!(line.starts_with("error: ") && !line.contains('\n'), "not one line: {line:?}");
    for n in needles {
        assert!(line.contains(n), "{args:?}: message {line:?} lacks {n:?}");
    }
    let after = snapshot(dir);
    let changed: Vec<_> = before.keys().chain(after.keys()).filter(|k| before.get(*k) != after.get(*k)).collect();
    assert!(changed.is_empty(), "{args:?} changed {changed:?}");
}

fn staging_left(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".outcore-"))
        .collect()
}

#[test]
fn force_never_replaces_what_outcore_did_not_make() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let tiny = p.join("tiny.txt");
    std::fs::write(&tiny, "0 1\n1 2\n").unwrap();
    let notes = p.join("notes");
    std::fs::create_dir(&notes).unwrap();
    std::fs::write(notes.join("a.txt"), "x").unwrap();
    let store = p.join("s.store");
    assert_eq!(outcore(&["import", s(&tiny), "-o", s(&store)]).0, 0);
    let not_a_store = ["is a directory of 1 entry that is not an outcore store", "even with --force"];
    refused(p, &["import", s(&tiny), "-o", s(&notes), "--force"], &not_a_store);
    refused(p, &["generate", "kronecker", "--scale", "4", "--store", s(&notes), "--force"], &not_a_store);
    refused(p, &["recode", s(&store), "-o", s(&notes), "--force"], &not_a_store);
    refused(p, &["recode", s(&store), "-o", s(&notes), "--order", "degree", "--force"], &not_a_store);
    refused(p, &["import", s(&tiny), "-o", s(&notes), "--order", "dfs", "--force"], &not_a_store);
    // a file where a store goes, a directory where a file goes
    refused(p, &["import", s(&tiny), "-o", s(&notes.join("a.txt")), "--force"], &["is a file, not an outcore store"]);
    refused(p, &["export", s(&store), "-o", s(&notes), "--force"], &["is a directory; name a file"]);
    let dir_el = p.join("dir.el");
    std::fs::create_dir(&dir_el).unwrap();
    refused(p, &["generate", "kronecker", "--scale", "4", "-o", s(&dir_el), "--force"], &["is a directory; name a file"]);
    refused(p, &["pagerank", s(&store), "--output", s(&notes), "--force"], &["is a directory; name a file"]);
    // the dynamic store's snapshot
    let elsewhere = tempfile::tempdir().unwrap();
    let dynamic = elsewhere.path().join("dyn");
    assert_eq!(outcore(&["dynamic", "create", s(&dynamic)]).0, 0);
    refused(p, &["dynamic", "snapshot", s(&dynamic), s(&notes), "--force"], &not_a_store);
    refused(p, &["dynamic", "create", s(&notes)], &["not a dynamic store", "empty directory"]);
    // an existing file of the kind needs --force
    let el = p.join("g.el");
    std::fs::write(&el, "precious\n").unwrap();
    refused(p, &["generate", "kronecker", "--scale", "4", "-o", s(&el)], &["already exists", "--force"]);
    refused(p, &["export", s(&store), "-o", s(&el)], &["already exists", "--force"]);
    refused(p, &["pagerank", s(&store), "--output", s(&el)], &["already exists", "--force"]);
    assert_eq!(outcore(&["export", s(&store), "-o", s(&el), "--force"]).0, 0);
    assert_eq!(std::fs::read_to_string(&el).unwrap().lines().count(), 2);
}

#[test]
fn an_input_is_never_an_output() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let input = p.join("self.txt");
    std::fs::write(&input, "0 1\n1 2\n").unwrap();
    refused(p, &["import", s(&input), "-o", s(&input), "--force"], &["self.txt: is the input of this command"]);
    let dotted = format!("{}/./self.txt", s(p));
    refused(p, &["import", s(&input), "-o", &dotted, "--force"], &["is the input of this command"]);
    let store = p.join("s.store");
    assert_eq!(outcore(&["import", s(&input), "-o", s(&store)]).0, 0);
    refused(p, &["recode", s(&store), "-o", s(&store), "--force"], &["is the input of this command"]);
    refused(p, &["export", s(&store), "-o", s(&store.join("x.el"))], &["is inside the input"]);
    refused(p, &["pagerank", s(&store), "--output", s(&store.join("ranks.txt"))], &["is inside the input"]);
    refused(p, &["recode", s(&store), "-o", s(p), "--force"], &["contains the input"]);
}

#[test]
fn demo_keeps_its_store_only_where_nothing_is_lost() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let precious = p.join("precious");
    std::fs::create_dir(&precious).unwrap();
    std::fs::write(precious.join("thesis.txt"), "years of work").unwrap();
    refused(p, &["demo", "--scale", "8", "--keep", s(&precious)], &["precious: is a directory of 1 entry that is not an outcore store"]);
    refused(p, &["demo", "--scale", "8", "--keep", s(&precious), "--force"], &["not an outcore store"]);
    // an empty directory, then the store it became (with --force)
    let empty = p.join("empty");
    std::fs::create_dir(&empty).unwrap();
    let (code, _, err) = outcore(&["demo", "--scale", "8", "--memory", "64M", "--keep", s(&empty)]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(outcore(&["info", s(&empty), "--verify"]).0, 0);
    refused(p, &["demo", "--scale", "8", "--keep", s(&empty)], &["already exists", "--force"]);
    assert_eq!(outcore(&["demo", "--scale", "8", "--memory", "64M", "--keep", s(&empty), "--force"]).0, 0);
    assert!(staging_left(p).is_empty());
}

/// Start `args`, wait until `started` holds (or the command ends), sleep
/// `delay`, send `signal`; returns the exit code and stderr.
fn interrupt(args: &[&str], started: impl Fn() -> bool, delay: Duration, signal: &str) -> (Option<i32>, String) {
    let child = Command::new(env!("CARGO_BIN_EXE_outcore")).args(args).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    let t = Instant::now();
    while !started() && t.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(2));
    }
    std::thread::sleep(delay);
    let _ = Command::new("kill").args([signal, &child.id().to_string()]).status();
    let out = child.wait_with_output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn interrupted_imports_and_layout_builds_leave_nothing_behind() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let el = p.join("k.bin32");
    assert_eq!(outcore(&["generate", "kronecker", "--scale", "17", "-o", s(&el)]).0, 0);
    let store = p.join("k.store");
    let mut interrupted = 0;
    for (k, ms) in [0u64, 30, 150, 400, 900].into_iter().enumerate() {
        let signal = if k % 2 == 0 { "-INT" } else { "-TERM" };
        let started = || !staging_left(p).is_empty();
        let (code, err) = interrupt(
            &["import", s(&el), "-o", s(&store), "--memory", "64M", "--sort-buffer", "4M"],
            started,
            Duration::from_millis(ms),
            signal,
        );
        if code == Some(0) {
            // it finished first: a complete store
            assert_eq!(outcore(&["info", s(&store), "--verify"]).0, 0);
            std::fs::remove_dir_all(&store).unwrap();
        } else {
            interrupted += 1;
            assert_eq!(code, Some(if signal == "-INT" { 130 } else { 143 }), "{err}");
            assert!(err.contains("interrupted: staging files removed"), "{err}");
            assert!(!store.exists(), "a store after an interrupt");
        }
        assert!(staging_left(p).is_empty(), "staging left after {signal} at {ms} ms: {:?}", staging_left(p));
    }
    assert!(interrupted >= 3, "only {interrupted} of 5 imports were interrupted");

    // layout add: the store is exactly as before
    assert_eq!(outcore(&["import", s(&el), "-o", s(&store), "--directed"]).0, 0);
    let before = snapshot(&store);
    let mut interrupted = 0;
    for (k, ms) in [0u64, 50, 200, 500].into_iter().enumerate() {
        let layout = if k % 2 == 0 { "tiles" } else { "in" };
        let started = || !staging_left(&store).is_empty();
        let (code, err) = interrupt(&["layout", "add", s(&store), layout, "--memory", "48M"], started, Duration::from_millis(ms), "-INT");
        if code == Some(0) {
            assert_eq!(outcore(&["info", s(&store), "--verify"]).0, 0);
            // back to the state before, for the next round
            std::fs::remove_dir_all(&store).unwrap();
            assert_eq!(outcore(&["import", s(&el), "-o", s(&store), "--directed"]).0, 0);
        } else {
            interrupted += 1;
            assert_eq!(code, Some(130), "{err}");
            let after = snapshot(&store);
            let changed: Vec<_> = before.keys().chain(after.keys()).filter(|k| before.get(*k) != after.get(*k)).collect();
            assert!(changed.is_empty(), "the interrupted build changed {changed:?}");
        }
        assert_eq!(outcore(&["info", s(&store), "--verify"]).0, 0);
    }
    assert!(interrupted >= 2, "only {interrupted} of 4 layout builds were interrupted");
}

#[test]
fn staging_left_by_killed_runs_is_removed_by_the_next_one() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let tiny = p.join("tiny.txt");
    std::fs::write(&tiny, "0 1\n1 2\n").unwrap();
    // what `kill -9` leaves: staging of a process that no longer exists
    let stale = p.join(".outcore-4000000000-s.store.partial");
    std::fs::create_dir(&stale).unwrap();
    std::fs::write(stale.join("out.adj"), vec![0u8; 4096]).unwrap();
    // and hidden files of the user's that merely look alike
    std::fs::write(p.join(".outcore-settings"), "mine").unwrap();
    let (code, _, err) = outcore(&["import", s(&tiny), "-o", s(&p.join("s.store"))]);
    assert_eq!(code, 0, "{err}");
    assert!(!stale.exists());
    assert!(err.contains("removed staging files") && err.contains("process 4000000000"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(std::fs::read_to_string(p.join(".outcore-settings")).unwrap(), "mine");
    // a layout file a killed `layout add` left in the store
    let store = p.join("s.store");
    std::fs::write(store.join("tiles-g7.edges"), vec![1u8; 100]).unwrap();
    let (code, _, err) = outcore(&["layout", "add", s(&store), "tiles"]);
    assert_eq!(code, 0, "{err}");
    assert!(!store.join("tiles-g7.edges").exists() && err.contains("tiles-g7.edges"), "{err}");
    assert_eq!(outcore(&["info", s(&store), "--verify"]).0, 0);
}

fn shared() -> PathBuf {
    outcore_io::shared_dir(env!("CARGO_MANIFEST_DIR")).join("data")
}

/// `vertex value` lines as a map.
fn pairs(text: &str) -> BTreeMap<u64, f64> {
    text.lines()
        .map(|l| {
            let (v, x) = l.split_once(' ').unwrap_or_else(|| panic!("not `vertex value`: {l:?}"));
            (v.parse().unwrap(), x.parse().unwrap())
        })
        .collect()
}

#[test]
fn pagerank_converges_by_default_to_networkx() {
    let d = tempfile::tempdir().unwrap();
    for file in ["CA-CondMat.txt", "wiki-Vote.txt"] {
        let input = shared().join("real").join(file);
        let store = d.path().join(format!("{file}.store"));
        assert_eq!(outcore(&["import", s(&input), "-o", s(&store)]).0, 0);
        let (code, out, err) = outcore(&["pagerank", s(&store), "--output", "-"]);
        assert_eq!(code, 0, "{err}");
        let ours = pairs(&out);
        assert!(err.contains("stopped by: converged"), "{err}");
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/networkx_pagerank.py");
        let nx =
            Command::new("python3").arg(&script).arg(&input).arg("directed").output().expect("python3 with networkx (.ci/run installs it)");
        assert!(nx.status.success(), "networkx oracle failed: {}", String::from_utf8_lossy(&nx.stderr));
        let want = pairs(&String::from_utf8(nx.stdout).unwrap());
        assert_eq!(ours.len(), want.len(), "{file}: vertex count");
        let worst = want.iter().map(|(v, w)| (ours[v] - w).abs()).fold(0.0, f64::max);
        assert!(worst <= 1e-6, "{file}: differs from networkx by up to {worst:e}");
        // Graphalytics' fixed 10 iterations is still one flag away, and differs
        let (_, ten, err) = outcore(&["pagerank", s(&store), "--iterations", "10", "--output", "-"]);
        assert!(err.contains("10 iterations") && err.contains("stopped by: fixed iterations"), "{err}");
        assert_ne!(pairs(&ten), ours);
    }
}

#[test]
fn a_tolerance_alone_runs_until_it_is_met() {
    let d = tempfile::tempdir().unwrap();
    let store = d.path().join("g.store");
    assert_eq!(outcore(&["import", s(&shared().join("real/CA-GrQc.txt")), "-o", s(&store)]).0, 0);
    let (code, out, err) = outcore(&["pagerank", s(&store), "--tolerance", "1e-9", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let f = &v;
    assert!(f["last_l1_change"].as_f64().unwrap() < 1e-9, "{f}");
    assert!(f["iterations"].as_u64().unwrap() > 10, "{f}");
    assert_eq!(f["stopped_by"], "converged");
    // a limit that comes first is reported as such
    let (_, out, _) = outcore(&["pagerank", s(&store), "--tolerance", "1e-12", "--iterations", "5", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["stopped_by"], "iteration limit (not converged)");
    assert_eq!(v["iterations"], 5);
}

#[test]
fn values_go_to_stdout_and_top_k_lists_the_largest() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let store = p.join("g.store");
    assert_eq!(outcore(&["import", s(&shared().join("real/wiki-Vote.txt")), "-o", s(&store)]).0, 0);
    let (code, out, err) = outcore(&["pagerank", s(&store), "--output", "-"]);
    assert_eq!(code, 0, "{err}");
    assert!(!p.join("-").exists(), "a file named -");
    assert!(err.starts_with("PageRank on the"), "the report goes to stderr: {err}");
    let all = pairs(&out);
    let (_, info, _) = outcore(&["info", s(&store), "--json"]);
    let vertices = serde_json::from_str::<serde_json::Value>(&info).unwrap()["vertices"].as_u64().unwrap();
    assert_eq!(all.len() as u64, vertices, "one line per vertex");
    // --top 7: the 7 largest, ties by id, from the same values
    let (code, out, err) = outcore(&["pagerank", s(&store), "--top", "7"]);
    assert_eq!(code, 0, "{err}");
    let listed: Vec<(u64, f64)> = out
        .lines()
        .skip_while(|l| !l.starts_with("top 7 by rank"))
        .skip(1)
        .map(|l| {
            let (v, x) = l.split_once(' ').unwrap();
            (v.parse().unwrap(), x.parse().unwrap())
        })
        .collect();
    let mut want: Vec<(u64, f64)> = all.iter().map(|(&v, &x)| (v, x)).collect();
    want.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    want.truncate(7);
    assert_eq!(listed, want);
    // BFS levels: the deepest level leads (depth counts levels), unreached vertices never do; JSON carries the list
    let (code, out, err) = outcore(&["bfs", s(&store), "--root", "30", "--top", "3", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let top = v["top"]["vertices"].as_array().unwrap();
    assert_eq!(top.len(), 3);
    let depth = v["depth"].as_u64().unwrap();
    assert!(top.iter().all(|t| t["value"].as_str().unwrap().parse::<u64>().unwrap() + 1 == depth), "{top:?}");
    // `sort -g` orders the written values as numbers
    let sorted = Command::new("sh")
        .arg("-c")
        .arg(format!("'{}' pagerank '{}' --output - 2>/dev/null | sort -g -r -k2 | head -7", env!("CARGO_BIN_EXE_outcore"), s(&store)))
        .output()
        .unwrap();
    let head: Vec<f64> = String::from_utf8(sorted.stdout).unwrap().lines().map(|l| l.split_once(' ').unwrap().1.parse().unwrap()).collect();
    assert_eq!(head, want.iter().map(|w| w.1).collect::<Vec<_>>());
}

/// Run `outcore ARGS` with a terminal as stdout and stderr (`script`), and
/// return everything it wrote there.
fn on_a_terminal(args: &str) -> String {
    let out = Command::new("script")
        .args(["-qec", &format!("'{}' {args}", env!("CARGO_BIN_EXE_outcore")), "/dev/null"])
        .output()
        .expect("script (util-linux) runs a command on a pseudo-terminal");
    assert!(out.status.success(), "{args}: {}", String::from_utf8_lossy(&out.stdout));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn long_commands_show_progress_on_a_terminal_only() {
    let d = tempfile::tempdir().unwrap();
    let store = d.path().join("k.store");
    let (code, _, err) = outcore(&["generate", "kronecker", "--scale", "16", "--store", s(&store)]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("ETA"), "a bar when stderr is not a terminal: {err}");
    let shown = on_a_terminal(&format!("layout add '{}' tiles", s(&store)));
    assert!(shown.contains("tiles: read") && shown.contains("ETA"), "no bar on a terminal: {shown:?}");
    let shown = on_a_terminal(&format!("pagerank '{}' --iterations 30", s(&store)));
    assert!(shown.contains("pagerank") && shown.contains("/30"), "no iteration bar: {shown:?}");
    let quiet = on_a_terminal(&format!("--quiet layout add '{}' tiles", s(&store)));
    assert!(!quiet.contains("ETA") && quiet.contains("added tiles"), "--quiet still drew: {quiet:?}");
    let quiet = on_a_terminal(&format!("pagerank '{}' --iterations 30 -q", s(&store)));
    assert!(!quiet.contains("ETA"), "-q still drew: {quiet:?}");
}

/// "use --memory 29M or more" -> 29M
fn suggested(err: &str) -> String {
    let (_, rest) = err.split_once("use --memory ").unwrap_or_else(|| panic!("no budget figure: {err}"));
    rest.split_whitespace().next().unwrap().to_string()
}

#[test]
fn one_budget_answer_from_the_error_the_dry_run_and_the_json() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let el = p.join("k.el");
    assert_eq!(outcore(&["generate", "kronecker", "--scale", "14", "-o", s(&el)]).0, 0);
    let store = p.join("k.store");
    // import: the first answer is the last
    let (code, _, err) = outcore(&["import", s(&el), "-o", s(&store), "--memory", "8M"]);
    assert_eq!(code, 1);
    let figure = suggested(&err);
    let (_, dry, _) = outcore(&["import", s(&el), "-o", s(&store), "--dry-run", "--json"]);
    let dry: serde_json::Value = serde_json::from_str(&dry).unwrap();
    assert_eq!(format!("{}M", dry["minimum_budget_bytes"].as_u64().unwrap() >> 20), figure);
    for _ in 0..3 {
        let (code, out, err) =
            outcore(&["import", s(&el), "-o", s(&store), "--memory", &figure, "--force", "--layouts", "out,in", "--json"]);
        assert_eq!(code, 0, "import at the stated {figure}: {err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(format!("{}M", v["minimum_budget_bytes"].as_u64().unwrap() >> 20), figure);
    }
    // layout add and an algorithm: the same
    let (code, _, err) = outcore(&["layout", "add", s(&store), "tiles", "--memory", "2M"]);
    assert_eq!(code, 1);
    let tiles = suggested(&err);
    for _ in 0..3 {
        let (code, _, err) = outcore(&["layout", "add", s(&store), "tiles", "--memory", &tiles]);
        assert_eq!(code, 0, "layout add at the stated {tiles}: {err}");
    }
    // (betweenness from 4 sources: at its minimum the cache holds 64 blocks, and reads are many)
    for alg in [&["pagerank"][..], &["bfs"], &["wcc"], &["cdlp"], &["bc", "--sources", "4"]] {
        let run = |memory: &str, extra: &[&str]| {
            let mut args = vec![alg[0], s(&store), "--memory", memory];
            args.extend_from_slice(&alg[1..]);
            args.extend_from_slice(extra);
            outcore(&args)
        };
        let (code, _, err) = run("1M", &[]);
        assert_eq!(code, 1, "{alg:?}");
        let figure = suggested(&err);
        let (_, plan, _) = run(&figure, &["--dry-run", "--json"]);
        let plan: serde_json::Value = serde_json::from_str(&plan).unwrap();
        assert_eq!(format!("{}M", plan["minimum_bytes"].as_u64().unwrap() >> 20), figure, "{alg:?}");
        for _ in 0..3 {
            let (code, _, err) = run(&figure, &[]);
            assert_eq!(code, 0, "{alg:?} at the stated {figure}: {err}");
        }
    }
}
