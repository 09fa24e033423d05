//! Writers killed outright (SIGKILL) at chosen moments (issue 14 item 4,
//! reduced: `bench/crash` tries many more kill points): afterwards the
//! target is either absent or complete and equal to an uninterrupted run's,
//! a store that was there before is exactly as it was, and no staging entry
//! outlives the next run of the command.

mod common;
use common::{edge_lines, outcore};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Run `outcore ARGS` and SIGKILL it after `delay` unless it ended first;
/// true if it was killed.
fn kill_after(args: &[&str], delay: Duration) -> bool {
    let mut child = Command::new(env!("CARGO_BIN_EXE_outcore"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while start.elapsed() < delay {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "{args:?} ended before its kill point, failing: {status}");
            return false;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let killed = child.try_wait().unwrap().is_none();
    let _ = child.kill();
    let _ = child.wait();
    killed
}

/// How long `outcore ARGS` takes to its end (which must be a success).
fn timed(args: &[&str]) -> Duration {
    let start = Instant::now();
    let (code, _, err) = outcore(args);
    assert_eq!(code, 0, "{args:?}: {err}");
    start.elapsed()
}

/// Hidden staging entries (`.outcore-*`) in `dir` and, for stores, inside it.
fn staging_entries(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return found };
    for e in entries.flatten() {
        let p = e.path();
        if e.file_name().to_string_lossy().starts_with(".outcore-") {
            found.push(p);
        } else if p.is_dir() {
            found.extend(staging_entries(&p));
        }
    }
    found
}

/// The fingerprint of a store as commands see it: `info --verify` passes,
/// and the BFS levels from one root.
fn fingerprint(store: &Path, out: &Path) -> Vec<u8> {
    let (code, _, err) = outcore(&["info", s(store), "--verify"]);
    assert_eq!(code, 0, "{}: {err}", store.display());
    let _ = std::fs::remove_file(out);
    let (code, _, err) = outcore(&["bfs", s(store), "-o", s(out), "--quiet"]);
    assert_eq!(code, 0, "{}: {err}", store.display());
    std::fs::read(out).unwrap()
}

/// Files of a store directory, names and bytes (hidden staging entries apart).
fn contents(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| !e.file_name().to_string_lossy().starts_with(".outcore-"))
        .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap_or_default()))
        .collect();
    files.sort();
    files
}

/// The files `manifest.json` lists, sorted.
fn manifest_files(store: &Path) -> Vec<String> {
    let m: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(store.join("manifest.json")).unwrap()).unwrap();
    let mut names: Vec<String> = m["files"].as_object().unwrap().keys().cloned().collect();
    names.sort();
    names
}

/// Kill points: fractions of an uninterrupted run; `OUTCORE_CRASH_POINTS=N`
/// (bench/crash) asks for N random ones instead.
fn kill_points() -> Vec<f64> {
    match std::env::var("OUTCORE_CRASH_POINTS").ok().and_then(|n| n.parse::<usize>().ok()) {
        Some(n) => {
            let mut x = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1;
            (0..n)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    (x >> 11) as f64 / (1u64 << 53) as f64
                })
                .collect()
        }
        None => vec![0.05, 0.2, 0.4, 0.6, 0.85],
    }
}

/// The Kronecker scale of the graph written and killed (`OUTCORE_CRASH_SCALE`, default 15).
fn scale() -> String {
    std::env::var("OUTCORE_CRASH_SCALE").unwrap_or_else(|_| "15".into())
}

#[test]
fn killed_writers_leave_the_previous_state_or_the_complete_result() {
    let d = tempfile::tempdir().unwrap();
    let work = d.path();
    let input = work.join("kron.el");
    let out = work.join("levels");
    let points = kill_points();
    let scale = scale();
    let (code, _, err) = outcore(&["generate", "kronecker", "--scale", &scale, "--edge-factor", "16", "--seed", "3", "-o", s(&input)]);
    assert_eq!(code, 0, "{err}");

    // import and generate --store: a new store, absent or complete
    let reference = work.join("reference.store");
    timed(&["import", s(&input), "-o", s(&reference), "--undirected", "--quiet"]);
    let want = fingerprint(&reference, &out);
    let new_stores: Vec<(&str, Vec<String>)> = vec![
        ("import", vec!["import".into(), s(&input).into(), "--undirected".into(), "--quiet".into(), "-o".into()]),
        (
            "generate",
            ["generate", "kronecker", "--scale", &scale, "--edge-factor", "16", "--seed", "3", "--undirected", "--quiet", "--store"]
                .map(String::from)
                .to_vec(),
        ),
    ];
    for (name, args) in &new_stores {
        // this command's own result, uninterrupted, and how long it takes
        let first = work.join(format!("{name}-first.store"));
        let mut first_args: Vec<&str> = args.iter().map(|a| a.as_str()).collect();
        first_args.push(s(&first));
        let full = timed(&first_args);
        let want = fingerprint(&first, &out);
        std::fs::remove_dir_all(&first).unwrap();
        let mut killed = 0;
        for (k, f) in points.iter().enumerate() {
            let target = work.join(format!("{name}-{k}.store"));
            let mut full_args: Vec<&str> = args.iter().map(|a| a.as_str()).collect();
            full_args.push(s(&target));
            killed += kill_after(&full_args, full.mul_f64(*f)) as usize;
            if target.join("manifest.json").exists() {
                assert!(fingerprint(&target, &out) == want, "{name} killed at {f} of its run left another store");
            } else {
                assert!(
                    !target.exists() || std::fs::read_dir(&target).unwrap().next().is_none(),
                    "{name} killed at {f}: a partial store at the target"
                );
            }
            // the next run sweeps what the killed one staged, and completes
            let _ = std::fs::remove_dir_all(&target);
            let (code, _, err) = outcore(&full_args);
            assert_eq!(code, 0, "{name} after a kill: {err}");
            assert!(fingerprint(&target, &out) == want, "{name} after a kill gave another store");
            assert!(staging_entries(work).is_empty(), "{name}: {:?} outlived the next run", staging_entries(work));
            std::fs::remove_dir_all(&target).unwrap();
        }
        assert!(killed * 5 >= points.len() * 3, "{name}: only {killed} of the kills found it running");
        eprintln!(
            "{name}: {} kill points, {killed} found it running; every store left was absent or complete, every rerun clean",
            points.len()
        );
    }

    // layout add and recode: the existing store is exactly as it was
    // each kill at a fraction of the last uninterrupted run (a rebuild over
    // tiles already there, as the kills find it): timed once up front, kills
    // found half the rebuilds finished on a loaded machine
    let mut full = timed(&["layout", "add", s(&reference), "tiles", "--quiet"]);
    let recoded = work.join("recoded.store");
    let mut recode_full = timed(&["recode", s(&reference), "-o", s(&recoded), "--order", "degree", "--encoding", "gapref", "--quiet"]);
    let recoded_want = fingerprint(&recoded, &out);
    std::fs::remove_dir_all(&recoded).unwrap();
    let (mut killed_layout, mut killed_recode) = (0, 0);
    for (k, f) in points.iter().enumerate() {
        // a tile rebuild over the tiles there
        killed_layout += kill_after(&["layout", "add", s(&reference), "tiles", "--quiet"], full.mul_f64(*f)) as usize;
        assert!(fingerprint(&reference, &out) == want, "layout add killed at {f} changed the store's results");
        // files a killed build wrote under their final names are unlisted
        // until it publishes; the next build removes them
        let rerun = Instant::now();
        let (code, _, err) = outcore(&["layout", "add", s(&reference), "tiles", "--quiet"]);
        assert_eq!(code, 0, "layout add after a kill: {err}");
        full = rerun.elapsed();
        let listed = manifest_files(&reference);
        let present: Vec<String> = contents(&reference).into_iter().map(|(n, _)| n).filter(|n| n != "manifest.json").collect();
        assert_eq!(
            present, listed,
            "layout add killed at {f}, then run again: the store holds files its manifest does not list, or lacks some"
        );
        assert!(fingerprint(&reference, &out) == want, "layout add after a kill changed the store's results");
        assert!(staging_entries(work).is_empty(), "layout add: {:?} outlived the next run", staging_entries(work));

        let target = work.join(format!("recode-{k}.store"));
        killed_recode += kill_after(
            &["recode", s(&reference), "-o", s(&target), "--order", "degree", "--encoding", "gapref", "--quiet"],
            recode_full.mul_f64(*f),
        ) as usize;
        if target.join("manifest.json").exists() {
            assert!(fingerprint(&target, &out) == recoded_want, "recode killed at {f} left another store");
        }
        let _ = std::fs::remove_dir_all(&target);
        let rerun = Instant::now();
        let (code, _, err) = outcore(&["recode", s(&reference), "-o", s(&target), "--order", "degree", "--encoding", "gapref", "--quiet"]);
        assert_eq!(code, 0, "recode after a kill: {err}");
        recode_full = rerun.elapsed();
        assert!(staging_entries(work).is_empty(), "recode: {:?} outlived the next run", staging_entries(work));
        std::fs::remove_dir_all(&target).unwrap();
    }
    eprintln!(
        "layout add: {} kill points, {killed_layout} found it running; the store kept its results every time, every rerun clean",
        points.len()
    );
    eprintln!(
        "recode: {} kill points, {killed_recode} found it running; every store left was absent or complete, every rerun clean",
        points.len()
    );
    assert!(
        killed_layout * 5 >= points.len() * 3 && killed_recode * 5 >= points.len() * 3,
        "only {killed_layout} and {killed_recode} of the kills found layout add and recode running"
    );
}

/// `dynamic apply` killed at chosen moments: the store reopens at a commit
/// (`stats --check` passes and its edges are exactly the distinct edges of
/// a prefix of the stream), a rerun of the whole stream completes it, and
/// `dynamic snapshot` killed leaves no store or a complete one.
#[test]
fn killed_dynamic_apply_reopens_at_a_commit() {
    let d = tempfile::tempdir().unwrap();
    let work = d.path();
    let input = work.join("kron.el");
    let (code, _, err) = outcore(&["generate", "kronecker", "--scale", "14", "--edge-factor", "16", "--seed", "5", "-o", s(&input)]);
    assert_eq!(code, 0, "{err}");
    let stream = edge_lines(&input);
    let dynamic = work.join("dyn");
    let exported = work.join("edges.el");
    // the edges a store holds, through a snapshot and an export
    let edges_of = |store: &Path| -> std::collections::BTreeSet<(u64, u64)> {
        let snap = work.join("snap.store");
        let _ = std::fs::remove_dir_all(&snap);
        let (code, _, err) = outcore(&["dynamic", "snapshot", s(store), s(&snap), "--quiet"]);
        assert_eq!(code, 0, "{err}");
        let _ = std::fs::remove_file(&exported);
        let (code, _, err) = outcore(&["export", s(&snap), "-o", s(&exported), "--quiet"]);
        assert_eq!(code, 0, "{err}");
        edge_lines(&exported).into_iter().collect()
    };
    assert_eq!(outcore(&["dynamic", "create", s(&dynamic), "--quiet"]).0, 0);
    let full = timed(&["dynamic", "apply", s(&dynamic), s(&input), "--commit-every", "20000", "--quiet"]);
    let all: std::collections::BTreeSet<(u64, u64)> = stream.iter().copied().collect();
    assert!(edges_of(&dynamic) == all);
    let mut killed = 0;
    for f in kill_points() {
        std::fs::remove_dir_all(&dynamic).unwrap();
        assert_eq!(outcore(&["dynamic", "create", s(&dynamic), "--quiet"]).0, 0);
        killed += kill_after(&["dynamic", "apply", s(&dynamic), s(&input), "--commit-every", "20000", "--quiet"], full.mul_f64(f)) as usize;
        let (code, _, err) = outcore(&["dynamic", "stats", s(&dynamic), "--check", "--quiet"]);
        assert_eq!(code, 0, "apply killed at {f}: stats --check: {err}");
        let held = edges_of(&dynamic);
        // the distinct edges of the shortest prefix with as many
        let mut prefix = std::collections::BTreeSet::new();
        for e in &stream {
            if prefix.len() == held.len() {
                break;
            }
            prefix.insert(*e);
        }
        assert!(held == prefix, "apply killed at {f}: {} edges that are not a prefix of the stream", held.len());
        let (code, _, err) = outcore(&["dynamic", "apply", s(&dynamic), s(&input), "--quiet"]);
        assert_eq!(code, 0, "apply after a kill at {f}: {err}");
        assert!(edges_of(&dynamic) == all, "apply after a kill at {f} left another edge set");
    }
    assert!(killed * 5 >= kill_points().len() * 3, "only {killed} kills found apply running");
    eprintln!("dynamic apply: {} kill points, {killed} found it running; every store reopened at a commit", kill_points().len());

    // snapshot: absent or complete
    // each kill at a fraction of the last uninterrupted snapshot
    let mut snap_full = timed(&["dynamic", "snapshot", s(&dynamic), s(&work.join("first.store")), "--quiet"]);
    let mut killed = 0;
    for (k, f) in kill_points().into_iter().enumerate() {
        let target = work.join(format!("snapshot-{k}.store"));
        killed += kill_after(&["dynamic", "snapshot", s(&dynamic), s(&target), "--quiet"], snap_full.mul_f64(f)) as usize;
        if target.join("manifest.json").exists() {
            assert_eq!(outcore(&["info", s(&target), "--verify"]).0, 0, "snapshot killed at {f} left a damaged store");
        } else {
            assert!(!target.exists() || std::fs::read_dir(&target).unwrap().next().is_none(), "snapshot killed at {f}: a partial store");
        }
        let _ = std::fs::remove_dir_all(&target);
        snap_full = timed(&["dynamic", "snapshot", s(&dynamic), s(&target), "--quiet"]);
        assert!(staging_entries(work).is_empty(), "snapshot: {:?} outlived the next run", staging_entries(work));
    }
    eprintln!("dynamic snapshot: {} kill points, {killed} found it running; every store left was absent or complete", kill_points().len());
}
