//! Concurrent use of one store (issue 14 item 6): readers take a shared
//! lock on the store, writers (`layout add`) an exclusive one, so a rebuild
//! never changes files under a reader. Eight readers run while tile
//! the tile layout is rebuilt again and again; every reader's result equals the
//! sequential run's.

mod common;
use common::outcore;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

fn shared() -> PathBuf {
    outcore_io::shared_dir(env!("CARGO_MANIFEST_DIR")).join("data")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn readers_see_the_same_results_while_layouts_are_rebuilt() {
    let d = tempfile::tempdir().unwrap();
    let store = d.path().join("store");
    let (code, _, err) = outcore(&[
        "import",
        s(&shared().join("real/wiki-Vote.txt")),
        "-o",
        s(&store),
        "--directed",
        "--layouts",
        "out,in,tiles",
        "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
    // what each reader computes, run alone
    let readers: Vec<Vec<&str>> = vec![
        vec!["pagerank", "--engine", "stream", "--iterations", "4"],
        vec!["wcc", "--engine", "stream"],
        vec!["cdlp", "--iterations", "3"],
        vec!["bfs", "--root", "30", "--engine", "traverse"],
        vec!["pagerank", "--engine", "memory", "--iterations", "4"],
        vec!["wcc", "--engine", "traverse"],
        vec!["bfs", "--root", "30", "--engine", "stream"],
        vec!["export", "--layout", "in"],
    ];
    let run = |args: &[&str], out: &Path| -> (i32, Vec<u8>, String) {
        let _ = std::fs::remove_file(out);
        let mut full = vec![args[0], s(&store)];
        full.extend(&args[1..]);
        full.extend(["-o", s(out), "--quiet"]);
        let (code, _, err) = outcore(&full);
        (code, std::fs::read(out).unwrap_or_default(), err)
    };
    let want: Vec<Vec<u8>> = readers
        .iter()
        .enumerate()
        .map(|(k, r)| {
            let (code, bytes, err) = run(r, &d.path().join(format!("want-{k}")));
            assert_eq!(code, 0, "{r:?}: {err}");
            bytes
        })
        .collect();

    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (stop, store) = (stop.clone(), store.clone());
        std::thread::spawn(move || {
            let mut rebuilds = 0;
            while !stop.load(Ordering::Relaxed) || rebuilds < 3 {
                let (code, _, err) = outcore(&["layout", "add", s(&store), "tiles", "--quiet"]);
                assert_eq!(code, 0, "layout add tiles: {err}");
                rebuilds += 1;
            }
            rebuilds
        })
    };
    std::thread::scope(|scope| {
        for (k, (r, want)) in readers.iter().zip(&want).enumerate() {
            let run = &run;
            let out = d.path().join(format!("got-{k}"));
            scope.spawn(move || {
                for round in 0..25 {
                    let (code, bytes, err) = run(r, &out);
                    assert_eq!(code, 0, "{r:?} round {round} beside a layout rebuild: {err}");
                    assert!(&bytes == want, "{r:?} round {round} beside a layout rebuild gave another result");
                }
            });
        }
    });
    stop.store(true, Ordering::Relaxed);
    let rebuilds = writer.join().unwrap();
    assert!(rebuilds >= 3);
    assert_eq!(outcore(&["info", s(&store), "--verify"]).0, 0);
}
