//! Shared test helpers: an independent reference reader of the input
//! formats (deliberately not using the library's parsers) and a dump of a
//! store's adjacency in original ids.

#![allow(dead_code)]

use outcore_io::Budget;
use outcore_store::Store;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

pub fn shared() -> PathBuf {
    outcore_io::shared_dir(env!("CARGO_MANIFEST_DIR")).join("data")
}

/// A graph in original ids: the vertex set and each arc's (smallest) weight.
#[derive(Debug, PartialEq)]
pub struct Expected {
    pub vertices: BTreeSet<u64>,
    pub arcs: BTreeMap<(u64, u64), f32>,
}

impl Default for Expected {
    fn default() -> Self {
        Self::new()
    }
}

impl Expected {
    pub fn new() -> Self {
        Expected { vertices: BTreeSet::new(), arcs: BTreeMap::new() }
    }
    pub fn add(&mut self, u: u64, v: u64, w: f32, directed: bool) {
        self.vertices.insert(u);
        self.vertices.insert(v);
        let mut put = |a, b| {
            let e = self.arcs.entry((a, b)).or_insert(w);
            if w < *e {
                *e = w;
            }
        };
        put(u, v);
        if !directed {
            put(v, u);
        }
    }
}

fn text_lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| l.trim_end_matches('\r').to_string()).collect()
}

fn cols(line: &str) -> Vec<&str> {
    line.split([' ', '\t', ',']).filter(|s| !s.is_empty()).collect()
}

/// SNAP-like edge list: `#`/`%` comments, 2+ columns.
pub fn read_edge_list(path: &Path, directed: bool, weighted: bool) -> Expected {
    let mut g = Expected::new();
    for line in text_lines(path) {
        if line.is_empty() || line.starts_with('#') || line.starts_with('%') {
            continue;
        }
        let c = cols(&line);
        let w = if weighted { c[2].parse::<f64>().unwrap() as f32 } else { 1.0 };
        g.add(c[0].parse().unwrap(), c[1].parse().unwrap(), w, directed);
    }
    g
}

/// METIS: vertices 1..=n, row i lists i's neighbours.
pub fn read_metis(path: &Path) -> Expected {
    let lines = text_lines(path);
    let n: u64 = cols(&lines[0])[0].parse().unwrap();
    let mut g = Expected::new();
    g.vertices.extend(1..=n);
    for (i, line) in lines[1..].iter().take(n as usize).enumerate() {
        for c in cols(line) {
            g.add(i as u64 + 1, c.parse().unwrap(), 1.0, false);
        }
    }
    g
}

/// Graphalytics: `.v` vertex list, `.e` edges, `directed` from properties.
pub fn read_graphalytics(stem: &Path, weighted: bool) -> (Expected, bool) {
    let props = std::fs::read_to_string(stem.with_extension("properties")).unwrap();
    let directed = props.lines().any(|l| l.contains(".directed") && l.trim_end().ends_with("true"));
    let mut g = Expected::new();
    for line in text_lines(&stem.with_extension("v")) {
        if let Some(c) = cols(&line).first() {
            g.vertices.insert(c.parse().unwrap());
        }
    }
    for line in text_lines(&stem.with_extension("e")) {
        let c = cols(&line);
        if c.len() >= 2 {
            let w = if weighted { c[2].parse::<f64>().unwrap() as f32 } else { 1.0 };
            g.add(c[0].parse().unwrap(), c[1].parse().unwrap(), w, directed);
        }
    }
    (g, directed)
}

/// Everything a store holds, in original ids.
pub fn dump_store(dir: &Path) -> Expected {
    let store = Store::open(dir).unwrap();
    let ids = store.id_map(&Budget::unlimited()).unwrap();
    let mut g = Expected::new();
    for v in 0..store.vertices() {
        g.vertices.insert(ids.original(v));
    }
    let mut scan = store.layout("out").unwrap().scan().unwrap();
    while let Some((v, nbrs, ws)) = scan.next_list().unwrap() {
        assert!(nbrs.windows(2).all(|p| p[0] < p[1]), "vertex {v}: neighbours not sorted and distinct");
        for (i, &t) in nbrs.iter().enumerate() {
            let w = ws.get(i).copied().unwrap_or(1.0);
            assert!(g.arcs.insert((ids.original(v), ids.original(t)), w).is_none());
        }
    }
    g
}

/// Every file of a store, by name, for byte comparisons.
pub fn store_files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap()))
        .collect()
}
