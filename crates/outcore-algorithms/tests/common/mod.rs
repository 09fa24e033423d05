//! Reading the LDBC Graphalytics validation graphs and their expected outputs.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::PathBuf;

pub fn shared() -> PathBuf {
    outcore_io::shared_dir(env!("CARGO_MANIFEST_DIR")).join("data")
}

pub fn evlp() -> PathBuf {
    shared().join("graphalytics/evlp")
}

/// `graph.NAME.KEY` from the graph's .properties file.
pub fn property(name: &str, key: &str) -> Option<String> {
    let text = std::fs::read_to_string(evlp().join(format!("{name}.properties"))).unwrap();
    text.lines()
        .find_map(|l| l.split_once('=').filter(|(k, _)| k.trim() == format!("graph.{name}.{key}")).map(|(_, v)| v.trim().to_string()))
}

/// The expected output of algorithm `alg` (BFS, PR, WCC, ...), if the graph has one.
pub fn expected(name: &str, alg: &str) -> Option<HashMap<u64, String>> {
    let text = std::fs::read_to_string(evlp().join(format!("{name}-{alg}"))).ok()?;
    Some(text.lines().filter_map(|l| l.split_once(' ')).map(|(v, x)| (v.parse().unwrap(), x.to_string())).collect())
}

use outcore_algorithms::run::{execute, Algorithm, Run, RunOptions};
use outcore_algorithms::{Engine, EngineChoice};
use outcore_store::Store;

/// A budget no test graph comes near.
pub const UNLIMITED: u64 = 1 << 40;

/// Run options with an unlimited budget on `engine`.
pub fn on(engine: Engine) -> RunOptions {
    RunOptions { memory: UNLIMITED, engine: EngineChoice::Fixed(engine), ..Default::default() }
}

/// Run `alg` through the library's skeleton (plan, run, report), or panic.
pub fn run<A: Algorithm>(alg: &A, store: &Store, p: &A::Params, opts: &RunOptions) -> Run {
    let name = alg.info().name;
    bounded(name, || execute(alg, store, p, opts)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// A report figure as a number.
pub fn figure(run: &Run, key: &str) -> f64 {
    run.report.figure(key).and_then(|v| v.as_f64()).unwrap_or_else(|| panic!("no figure {key} in {:?}", run.report.figures))
}

/// The registry, or only the algorithms `OUTCORE_TABLE_ONLY` names (comma
/// separated): bench/mutants runs the table and the charges for the
/// algorithm it mutates.
pub fn registered() -> Vec<&'static dyn outcore_algorithms::registry::Registered> {
    use outcore_algorithms::registry::ALGORITHMS;
    let only = std::env::var("OUTCORE_TABLE_ONLY").unwrap_or_default();
    let wanted: Vec<&str> = only.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
    for name in &wanted {
        assert!(ALGORITHMS.iter().any(|a| a.info().name == *name), "OUTCORE_TABLE_ONLY names {name}, which is not registered");
    }
    ALGORITHMS.iter().copied().filter(|a| wanted.is_empty() || wanted.contains(&a.info().name)).collect()
}

/// Each phase begun with its total, and each position set in it.
#[derive(Default)]
pub struct Recorder {
    pub phase: std::sync::Mutex<String>,
    pub events: std::sync::Mutex<Vec<(String, Option<u64>, u64)>>,
}

impl outcore_io::Progress for Recorder {
    fn begin(&self, phase: &str, total: u64, _: bool) {
        *self.phase.lock().unwrap() = phase.to_string();
        self.events.lock().unwrap().push((phase.to_string(), None, total));
    }
    fn set(&self, position: u64) {
        let phase = self.phase.lock().unwrap().clone();
        self.events.lock().unwrap().push((phase, Some(position), 0));
    }
    fn end(&self) {}
}

pub use outcore_io::bound::bounded;

/// A Graph500 Kronecker graph's edge list (text, one direction per edge)
/// written to `dir/NAME`: 2^`scale` vertices, `edge_factor` edges a vertex.
pub fn kronecker_edges(dir: &std::path::Path, name: &str, scale: u32, edge_factor: u64, seed: u64) -> PathBuf {
    use outcore_ingest::generate::{write_edge_list, EdgeListFormat, Kronecker};
    let input = dir.join(name);
    write_edge_list(&Kronecker::graph500(scale, edge_factor, seed), &input, EdgeListFormat::Text, false, &outcore_ingest::NoProgress)
        .unwrap();
    input
}

/// A tmpfs of `size` (mount's `size=` option: "64k", "2m") mounted at
/// `dir`, which must exist; unmounted when the guard drops. Needs root (CI
/// runs as root): the tests of a full or small temporary directory use it.
pub fn tmpfs(dir: &std::path::Path, size: &str) -> Mounted {
    let ok = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
        .arg(dir)
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    assert!(ok, "this test mounts a {size} tmpfs at {}; it needs root (CI runs as root)", dir.display());
    Mounted(dir.to_path_buf())
}

/// Unmounts its tmpfs when dropped (see [`tmpfs`]).
pub struct Mounted(PathBuf);

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}
