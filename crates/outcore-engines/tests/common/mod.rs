//! A graph for the engines' own tests, imported once per test binary in
//! every encoding, and its lists as the edge file gives them (the oracle:
//! the file's edges, deduplicated by hand).

#![allow(dead_code)]

use outcore_ingest::{import_file, ImportOptions, NoProgress};
use outcore_store::{Encoding, Store};
use std::path::PathBuf;
use std::sync::OnceLock;

pub use outcore_io::bound::bounded;

/// Vertices of the graph: more than one stretch of
/// [`outcore_engines::Degrees::SUM_STRETCH`].
pub const VERTICES: u64 = 100_000;
/// Vertex 1's out-degree: a hub past the 16 bits the engine keeps a degree
/// in (65,535 and more go to a map).
pub const HUB_DEGREE: u64 = 66_000;

pub struct Graph {
    /// Out-lists from the edge file: sorted (neighbour, weight) pairs.
    pub lists: Vec<Vec<(u64, f32)>>,
    pub arcs: u64,
    /// The store in each encoding.
    pub stores: Vec<(Encoding, PathBuf)>,
    /// The edge file.
    pub edges: PathBuf,
    _dir: tempfile::TempDir,
}

impl Graph {
    pub fn degree(&self, v: u64) -> u64 {
        self.lists[v as usize].len() as u64
    }
    pub fn open(&self, encoding: Encoding) -> Store {
        let path = &self.stores.iter().find(|(e, _)| *e == encoding).expect("a store in every encoding").1;
        Store::open(path).unwrap()
    }
}

/// The weight of arc `a -> b`: a quarter, exact in f32.
fn weight(a: u64, b: u64) -> f32 {
    ((a * 31 + b * 17) % 64) as f32 / 4.0
}

/// A directed, weighted graph on [`VERTICES`] ids: vertex 0 and the last
/// have no out-edges (empty lists at both ends), vertex 1 points at
/// [`HUB_DEGREE`] others, and 150,000 more arcs are drawn skewed (each end
/// the AND of two uniform draws, so low ids are hubs), repeats included
/// (the import keeps one, with the smallest weight).
pub fn graph() -> &'static Graph {
    static GRAPH: OnceLock<Graph> = OnceLock::new();
    GRAPH.get_or_init(|| {
        let n = VERTICES;
        let dir = tempfile::tempdir().unwrap();
        let mut arcs: Vec<(u64, u64)> = (0..HUB_DEGREE).map(|i| (1, 2 + i)).collect();
        let mut rng = outcore_io::SplitMix64(5);
        let mut end = || 2 + ((rng.next_u64() % (n - 3)) & (rng.next_u64() % (n - 3)));
        for _ in 0..150_000 {
            arcs.push((end(), end()));
        }
        let mut text = String::new();
        for &(a, b) in &arcs {
            text.push_str(&format!("{a} {b} {}\n", weight(a, b)));
        }
        let edges = dir.path().join("g.wel");
        std::fs::write(&edges, text).unwrap();
        let mut lists = vec![Vec::new(); n as usize];
        arcs.sort_unstable();
        arcs.dedup();
        for &(a, b) in &arcs {
            lists[a as usize].push((b, weight(a, b)));
        }
        let mut stores = Vec::new();
        for encoding in [Encoding::Raw32, Encoding::Raw64, Encoding::Ceesor, Encoding::Gapref] {
            let out = dir.path().join(format!("{encoding:?}"));
            let opts = ImportOptions {
                directed: Some(true),
                weighted: true,
                num_vertices: Some(n),
                encoding: Some(encoding),
                memory: 256 << 20,
                ..Default::default()
            };
            import_file(&edges, &out, &opts, &NoProgress).unwrap();
            stores.push((encoding, out));
        }
        Graph { lists, arcs: arcs.len() as u64, stores, edges, _dir: dir }
    })
}

/// The graph as a raw32 store with tiles of 2^13 vertices a side (13
/// spans: up to 169 tiles), for the stream engine.
pub fn tiled() -> Store {
    static TILED: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, path) = TILED.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("tiled");
        let opts = ImportOptions { directed: Some(true), weighted: true, num_vertices: Some(VERTICES), ..Default::default() };
        import_file(&graph().edges, &out, &opts, &NoProgress).unwrap();
        outcore_ingest::tiles::add_tiles(&out, 1, 13, 256 << 20, &NoProgress).unwrap();
        (dir, out)
    });
    Store::open(path).unwrap()
}

/// A pool of `threads` threads, as the engine sizes its readers by the
/// pool it is opened in.
pub fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap()
}

/// `v`'s list as the engine gave it (neighbours and weights, or
/// neighbours alone with weight 0), sorted like [`Graph::lists`].
pub fn pairs(nbrs: &[u64], weights: Option<&[f32]>) -> Vec<(u64, f32)> {
    let mut p: Vec<(u64, f32)> = match weights {
        Some(w) => {
            assert_eq!(nbrs.len(), w.len(), "a weight for every neighbour");
            nbrs.iter().copied().zip(w.iter().copied()).collect()
        }
        None => nbrs.iter().map(|&u| (u, 0.0)).collect(),
    };
    p.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
    p
}

/// [`Graph::lists`] without the weights (0 in their place).
pub fn unweighted(list: &[(u64, f32)]) -> Vec<(u64, f32)> {
    list.iter().map(|&(u, _)| (u, 0.0)).collect()
}
