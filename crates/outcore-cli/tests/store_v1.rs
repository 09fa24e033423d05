//! Stores of format version 1 (u64 indexes, u32 degrees) still open and
//! give the results a version 2 store (Elias-Fano indexes) of the same
//! input gives, on every engine that reads an index: the scan, the sort-
//! reduce engine, the traverse engine (whole index loaded), lookups
//! (Afforest's reads of chosen lists) and degree scans. The version 1
//! stores under tests/data/store-v1 were written by outcore at commit
//! 4db0eda, the last to write version 1.

mod common;
use common::outcore;
use std::path::{Path, PathBuf};

fn shared() -> PathBuf {
    outcore_io::shared_dir(env!("CARGO_MANIFEST_DIR")).join("data")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/store-v1").join(name)
}

/// The engine reason `auto` gives for a BFS from vertex 1 of `store`.
fn bfs_engine_reason(store: &Path) -> String {
    let (code, out, err) = outcore(&["bfs", s(store), "--root", "1", "--json"]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str::<serde_json::Value>(&out).unwrap()["engine_reason"].as_str().unwrap().to_string()
}

fn manifest(store: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(store.join("manifest.json")).unwrap()).unwrap()
}

/// Run `args` (a command and its options, the store put after the
/// command) on `store`; returns its output file's lines, sorted.
fn result(store: &Path, args: &[&str], out: &Path) -> Vec<String> {
    let _ = std::fs::remove_file(out);
    let mut full = vec![args[0], s(store)];
    full.extend_from_slice(&args[1..]);
    full.extend_from_slice(&["--output", s(out)]);
    let (code, _, err) = outcore(&full);
    assert_eq!(code, 0, "{full:?}: {err}");
    let mut lines: Vec<String> = std::fs::read_to_string(out).unwrap().lines().map(String::from).collect();
    lines.sort();
    assert!(!lines.is_empty(), "{full:?} wrote nothing");
    lines
}

fn same_results(v1: &Path, v2: &Path, runs: &[&[&str]]) {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out.txt");
    for args in runs {
        assert_eq!(result(v1, args, &out), result(v2, args, &out), "{args:?}: version 1 and version 2 stores differ");
    }
}

#[test]
fn version_1_stores_give_what_version_2_stores_give() {
    let d = tempfile::tempdir().unwrap();
    let example = shared().join("graphalytics/validation-graphs/example/example-directed.e");
    for encoding in ["raw32", "gapref", "ceesor"] {
        let v1 = fixture(&format!("directed-{encoding}"));
        assert_eq!(manifest(&v1)["version"], 1);
        assert!(v1.join("out.index").is_file());
        let (code, out, err) = outcore(&["info", s(&v1), "--verify", "--json"]);
        assert_eq!(code, 0, "{err}");
        let info: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(info["layouts"]["out"]["index_format"], "u64");
        let v2 = d.path().join(format!("directed-{encoding}"));
        let (code, _, err) = outcore(&[
            "import",
            s(&example),
            "--format",
            "graphalytics",
            "--directed",
            "--weighted",
            "--layouts",
            "out,in",
            "--encoding",
            encoding,
            "-o",
            s(&v2),
            "--quiet",
        ]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(manifest(&v2)["version"], 3);
        assert_eq!(manifest(&v2)["layouts"]["in"]["index_format"], "elias-fano");
        assert!(v2.join("out.ef").is_file() && !v2.join("out.index").exists() && !v2.join("out.degrees").exists());
        same_results(
            &v1,
            &v2,
            &[
                &["bfs", "--root", "1", "--engine", "traverse"],
                &["bfs", "--root", "1", "--engine", "sortreduce"],
                &["sssp", "--root", "1", "--engine", "traverse"],
                &["pagerank", "--iterations", "5"],
                &["wcc", "--engine", "traverse", "--method", "afforest"],
                &["wcc", "--engine", "sortreduce"],
                &["kcore"],
                &["scc"],
            ],
        );
    }
    // blocks, flag bits (12 self loops), a hot layout added to a version 1 store
    let v1 = d.path().join("grqc-ceesor-v1");
    copy_dir(&fixture("grqc-ceesor"), &v1);
    assert_eq!(outcore(&["layout", "add", s(&v1), "hot", "--quiet"]).0, 0);
    let v2 = d.path().join("grqc-ceesor");
    let grqc = shared().join("real/CA-GrQc.txt");
    assert_eq!(outcore(&["import", s(&grqc), "--undirected", "--encoding", "ceesor", "-o", s(&v2), "--quiet"]).0, 0);
    assert_eq!(manifest(&v2)["layouts"]["out"]["degrees"], "out.starts");
    same_results(
        &v1,
        &v2,
        &[
            &["bfs", "--root", "3466", "--engine", "traverse"],
            &["wcc", "--engine", "traverse", "--method", "afforest"],
            &["wcc", "--engine", "traverse", "--method", "union-find"],
            &["pagerank", "--iterations", "5", "--engine", "sortreduce"],
            &["pagerank", "--iterations", "5", "--engine", "interval"],
            &["lcc"],
        ],
    );
}

/// An `in` layout added to a version 1 store is Elias-Fano, and the store
/// becomes the current version (3); its `out` layout stays as it was.
#[test]
fn an_in_layout_added_to_a_version_1_store_makes_it_current() {
    let d = tempfile::tempdir().unwrap();
    let v1 = fixture("directed-gapref");
    let copy = d.path().join("copy");
    copy_dir(&v1, &copy);
    let mut m = manifest(&copy);
    // the fixture's `in` layout taken out, as an import without it would have left it
    for f in ["in.index", "in.adj", "in.weights", "in.degrees", "in.blocks"] {
        m["files"].as_object_mut().unwrap().remove(f);
        let _ = std::fs::remove_file(copy.join(f));
    }
    m["layouts"].as_object_mut().unwrap().remove("in");
    std::fs::write(copy.join("manifest.json"), serde_json::to_string_pretty(&m).unwrap()).unwrap();
    assert_eq!(outcore(&["layout", "add", s(&copy), "in", "--quiet"]).0, 0);
    let m = manifest(&copy);
    assert_eq!(m["version"], 3);
    assert_eq!(m["layouts"]["out"]["index"], "out.index");
    assert_eq!(m["layouts"]["in"]["index"], "in.ef");
    assert_eq!(m["layouts"]["in"]["index_format"], "elias-fano");
    let (code, _, err) = outcore(&["info", s(&copy), "--verify"]);
    assert_eq!(code, 0, "{err}");
    same_results(&v1, &copy, &[&["scc"], &["bfs", "--root", "1", "--engine", "traverse"]]);
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

/// `layout upgrade` rewrites a version 1 store's indexes as the very
/// files a version 2 import writes (and degrees as edge starts), keeps
/// every other file, and has nothing to do the second time.
#[test]
fn upgrading_a_version_1_store_gives_the_files_an_import_writes() {
    let d = tempfile::tempdir().unwrap();
    let grqc = shared().join("real/CA-GrQc.txt");
    let fresh = d.path().join("fresh");
    assert_eq!(outcore(&["import", s(&grqc), "--undirected", "--encoding", "ceesor", "-o", s(&fresh), "--quiet"]).0, 0);
    let old = d.path().join("old");
    copy_dir(&fixture("grqc-ceesor"), &old);
    let (code, out, err) = outcore(&["layout", "upgrade", s(&old)]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("upgraded") && out.contains("format version 3") && out.contains("layout out"), "{out}");
    for f in ["out.ef", "out.starts", "out.adj", "out.blocks", "idmap"] {
        assert!(std::fs::read(old.join(f)).unwrap() == std::fs::read(fresh.join(f)).unwrap(), "{f} differs from the import's");
    }
    assert!(!old.join("out.index").exists() && !old.join("out.degrees").exists(), "the version 1 files are left behind");
    let m = manifest(&old);
    assert_eq!(m["version"], 3);
    assert_eq!(m["layouts"]["out"], manifest(&fresh)["layouts"]["out"]);
    assert_eq!(outcore(&["info", s(&old), "--verify"]).0, 0);
    let (code, out, _) = outcore(&["layout", "upgrade", s(&old)]);
    assert!(code == 0 && out.contains("nothing to do"), "{out}");
    // a directed, weighted store: both layouts
    let old = d.path().join("directed");
    copy_dir(&fixture("directed-gapref"), &old);
    assert_eq!(outcore(&["layout", "upgrade", s(&old)]).0, 0);
    let m = manifest(&old);
    assert_eq!((&m["layouts"]["out"]["index"], &m["layouts"]["in"]["degrees"]), (&"out.ef".into(), &"in.starts".into()));
    same_results(&fixture("directed-gapref"), &old, &[&["sssp", "--root", "1", "--engine", "traverse"], &["scc"]]);
}

/// `layout upgrade` writes the page checksums a store written before them
/// lacks (raw adjacency, weights of every encoding): the very files an
/// import writes today, listed in the manifest as an import lists them. A
/// damaged file is refused, naming it, and the store stays as it was.
#[test]
fn upgrading_writes_the_page_checksums_an_import_writes() {
    let d = tempfile::tempdir().unwrap();
    let example = shared().join("graphalytics/validation-graphs/example/example-directed.e");
    let fresh = d.path().join("fresh");
    let import =
        ["import", s(&example), "--format", "graphalytics", "--directed", "--weighted", "--layouts", "out,in", "-o", s(&fresh), "--quiet"];
    assert_eq!(outcore(&import).0, 0);
    let pages = ["out.adj.pages", "out.weights.pages", "in.adj.pages", "in.weights.pages"];
    for f in pages {
        assert!(fresh.join(f).is_file(), "the import wrote no {f}");
    }
    // damaged: refused, nothing written
    let damaged = d.path().join("damaged");
    copy_dir(&fixture("directed-raw32"), &damaged);
    let before = std::fs::read(damaged.join("manifest.json")).unwrap();
    let mut adj = std::fs::read(damaged.join("in.adj")).unwrap();
    adj[5] ^= 0x04;
    std::fs::write(damaged.join("in.adj"), &adj).unwrap();
    let (code, _, err) = outcore(&["layout", "upgrade", s(&damaged)]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("in.adj") && err.contains("checksum mismatch"), "{err}");
    assert!(std::fs::read(damaged.join("manifest.json")).unwrap() == before, "the manifest changed");
    for f in pages.iter().chain(&["out.ef", "in.ef"]) {
        assert!(!damaged.join(f).exists(), "{f} left behind");
    }
    // whole: the import's files
    let old = d.path().join("old");
    copy_dir(&fixture("directed-raw32"), &old);
    let advice = "`outcore layout upgrade STORE` writes them in place";
    assert!(bfs_engine_reason(&old).contains(advice), "{}", bfs_engine_reason(&old));
    assert!(!bfs_engine_reason(&fresh).contains(advice), "{}", bfs_engine_reason(&fresh));
    let (code, out, err) = outcore(&["layout", "upgrade", s(&old)]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("wrote the page checksums") && pages.iter().all(|f| out.contains(f)), "{out}");
    for f in pages.iter().chain(&["out.ef", "in.ef", "out.adj", "in.weights"]) {
        assert!(std::fs::read(old.join(f)).unwrap() == std::fs::read(fresh.join(f)).unwrap(), "{f} differs from the import's");
    }
    let (m, want) = (manifest(&old), manifest(&fresh));
    for f in pages {
        assert_eq!(m["files"][f], want["files"][f], "{f}");
    }
    assert_eq!(m["layouts"], want["layouts"]);
    let (code, out, err) = outcore(&["info", s(&old), "--verify"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("match"), "{out}");
    let (code, out, _) = outcore(&["layout", "upgrade", s(&old)]);
    assert!(code == 0 && out.contains("nothing to do"), "{out}");
    assert!(!bfs_engine_reason(&old).contains(advice), "{}", bfs_engine_reason(&old));
    same_results(&fresh, &old, &[&["bfs", "--root", "1", "--engine", "traverse"], &["sssp", "--root", "1", "--engine", "traverse"]]);
}

/// A compressed store written before its page checksums: the traverse
/// engine's plan says that its lists are read with their whole codec
/// block and how to change that; `layout upgrade` writes them, the plan
/// no longer says it, and the results stay the same.
#[test]
fn compressed_stores_without_page_checksums_are_told_how_to_get_them() {
    let d = tempfile::tempdir().unwrap();
    let old = d.path().join("old");
    copy_dir(&fixture("directed-gapref"), &old);
    let advice = "its compressed lists are read with their whole codec block";
    assert!(bfs_engine_reason(&old).contains(advice), "{}", bfs_engine_reason(&old));
    let (code, out, err) = outcore(&["layout", "upgrade", s(&old)]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("out.adj.pages") && out.contains("in.adj.pages"), "{out}");
    assert!(manifest(&old)["layouts"]["out"]["adjacency_pages"] == "out.adj.pages", "{}", manifest(&old)["layouts"]);
    assert!(!bfs_engine_reason(&old).contains(advice), "{}", bfs_engine_reason(&old));
    same_results(&fixture("directed-gapref"), &old, &[&["bfs", "--root", "1", "--engine", "traverse"], &["wcc", "--engine", "traverse"]]);
}

/// A gapref layout of revision 1 (the version 1 fixture's) and its recode
/// in revision 2 (Elias-Fano residuals where shorter, marked in the
/// reference) give the same results; a manifest that claims revision 2 in
/// a store older than version 3, or a revision this outcore does not know,
/// is refused, naming the layout.
#[test]
fn gapref_revisions_1_and_2_agree_and_unknown_ones_are_refused() {
    let d = tempfile::tempdir().unwrap();
    let v1 = fixture("directed-gapref");
    let recoded = d.path().join("recoded");
    let (code, _, err) = outcore(&["recode", s(&v1), "-o", s(&recoded), "--encoding", "gapref"]);
    assert_eq!(code, 0, "{err}");
    let m = manifest(&recoded);
    assert_eq!((m["version"].as_u64(), m["layouts"]["out"]["codec_revision"].as_u64()), (Some(3), Some(2)));
    assert!(manifest(&v1)["layouts"]["out"].get("codec_revision").is_none());
    same_results(&v1, &recoded, &[&["bfs", "--root", "1", "--engine", "traverse"], &["wcc"], &["pagerank", "--iterations", "3"]]);
    for (version, revision) in [(2, 2), (3, 9)] {
        let copy = d.path().join(format!("claims-{version}-{revision}"));
        copy_dir(&recoded, &copy);
        let mut m = manifest(&copy);
        m["version"] = version.into();
        m["layouts"]["out"]["codec_revision"] = revision.into();
        std::fs::write(copy.join("manifest.json"), serde_json::to_string_pretty(&m).unwrap()).unwrap();
        let (code, _, err) = outcore(&["info", s(&copy)]);
        // `in` comes first; it is revision 2 too, so a version 2 claim names it
        let layout = if revision == 2 { "layout in" } else { "layout out" };
        assert!(code != 0 && err.contains(layout) && err.contains(&format!("revision {revision}")), "{err}");
    }
}
