//! outcore: graph analytics and a graph store for graphs larger than
//! memory. This crate is the library API that every front end calls: the
//! `outcore` command, the Python package, the MPI driver, and your Rust
//! program.
//!
//! Open a store (made by [`import::import_file`] or `outcore import`), run
//! any algorithm of the [`registry`] with typed parameters and
//! [`RunOptions`] (the memory budget, the engine or `auto`, the engines'
//! knobs, a progress callback), and read the results in original ids,
//! streamed from memory or from disk, whichever the engine left them in.
//!
//! ```
//! # fn main() -> Result<(), outcore::Error> {
//! use outcore::{Engine, Graph, RunOptions};
//! # let dir = tempfile::tempdir().unwrap();
//! # let edges = dir.path().join("g.el");
//! # std::fs::write(&edges, "1 2\n2 3\n3 1\n3 4\n").unwrap();
//! # let path = dir.path().join("g.store");
//! outcore::import::import_file(&edges, &path, &Default::default(), &outcore::NoProgress)?;
//! let graph = Graph::open(&path)?;
//! let options = RunOptions::with_memory(64 << 20);
//! let bfs = graph.run(&outcore::bfs::Bfs, &outcore::bfs::Params { root: Some(1), ..Default::default() }, &options)?;
//! assert_eq!(bfs.report().engine, Engine::Traverse);
//! let levels = bfs.to_vec("level")?;
//! assert_eq!(levels[3], (4, outcore::Entry::Integer(3)));
//! // the same by name, as the CLI and Python do
//! let pr = graph.run_named("pagerank", &outcore::Args::new().with("iterations", 20), &options)?;
//! assert!(pr.verify()?.passed);
//! # Ok(()) }
//! ```

#![warn(missing_docs)]

mod error;
pub mod graph500;
pub mod import;
pub mod output;
pub mod plot;
pub mod progress;
mod results;

pub use error::{Error, ErrorKind};
pub use outcore_algorithms::params::{Args, ParamKind, ParamSpec};
pub use outcore_algorithms::plan::{Engine, EngineChoice, LayoutGain, Plan};
pub use outcore_algorithms::registry::{self, Registered};
pub use outcore_algorithms::run::{Algorithm, Info, Report, RunOptions, Validation};
pub use outcore_algorithms::values::{Column, Value, ValueKind};
pub use outcore_algorithms::{bc, bfs, cdlp, kcore, pagerank, scc, spmv, sssp, triangles, wcc};
pub use outcore_algorithms::{DegreeStats, DegreeSummary};
/// Make freed memory go back to the kernel (call once, early).
pub use outcore_io::pin_allocator;
/// Interrupts from the host: a front end that catches SIGINT itself (the
/// Python package) asks the running work to stop, then clears the request.
pub use outcore_io::staging::{clear_interrupt, request_interrupt};
pub use outcore_io::{format_bytes, parse_size, IoError, NoProgress, Progress};
pub use outcore_store::{Encoding, Store, StoreError};
use results::Validator;
pub use results::{format_entry, graphalytics_float, Entry, Results, Side};

/// A store opened for analytics.
pub struct Graph {
    store: Store,
}

impl Graph {
    /// Open the store at `path` (its manifest is read and checked).
    pub fn open(path: impl AsRef<std::path::Path>) -> Result<Graph, Error> {
        Ok(Graph { store: Store::open(path.as_ref())? })
    }

    /// The store underneath (manifest, layouts, ids).
    pub fn store(&self) -> &Store {
        &self.store
    }
    /// Vertices of the graph.
    pub fn vertices(&self) -> u64 {
        self.store.vertices()
    }
    /// Edges as imported (undirected edges once).
    pub fn edges(&self) -> u64 {
        self.store.manifest().edges
    }
    /// Whether edges are directed (else each is stored both ways).
    pub fn directed(&self) -> bool {
        self.store.manifest().directed
    }
    /// Whether edges carry f32 weights.
    pub fn weighted(&self) -> bool {
        self.store.manifest().weighted
    }
    /// The layouts present (`out`, `in`, `tiles`).
    pub fn layouts(&self) -> Vec<String> {
        self.store.layout_names()
    }

    /// Run `algorithm` with typed parameters.
    pub fn run<A: Algorithm + Default>(&self, algorithm: &A, params: &A::Params, options: &RunOptions) -> Result<Results, Error> {
        let run = outcore_algorithms::run::execute(algorithm, &self.store, params, options)?;
        let p = params.clone();
        let validator: Validator = Box::new(move |store, run| Ok(outcore_algorithms::run::validate(&A::default(), store, &p, run)?));
        Ok(Results { store: self.reopen()?, algorithm: algorithm.info().name, validator, run })
    }

    /// Run the algorithm called `name` with parameters as text (what the
    /// CLI and Python hold).
    pub fn run_named(&self, name: &str, args: &Args, options: &RunOptions) -> Result<Results, Error> {
        let alg = find(name)?;
        let run = alg.run(&self.store, args, options)?;
        let args = args.clone();
        let validator: Validator = Box::new(move |store, run| Ok(alg.validate(store, &args, run)?));
        Ok(Results { store: self.reopen()?, algorithm: alg.info().name, validator, run })
    }

    /// Degree statistics: min, max, mean, a power-of-two histogram and the
    /// `top` highest-degree vertices (original ids), for out-degrees (the
    /// index alone) and, for a directed graph, in-degrees (one scan with a
    /// counter per vertex, charged to `memory`).
    pub fn degree_summary(&self, top: usize, memory: u64) -> Result<DegreeSummary, Error> {
        let budget = outcore_io::Budget::new(memory);
        let mut summary = outcore_algorithms::degree_summary(&self.store, top, true, &budget)?;
        let ids = self.store.ids()?;
        for stats in std::iter::once(&mut summary.out).chain(summary.r#in.as_mut()) {
            for entry in &mut stats.top {
                entry.0 = ids.original(entry.0)?;
            }
        }
        Ok(summary)
    }

    /// The plan `name` would follow: the engine, why, and what a missing
    /// layout would buy.
    pub fn plan(&self, name: &str, args: &Args, options: &RunOptions) -> Result<Plan, Error> {
        Ok(find(name)?.plan(&self.store, args, options)?)
    }

    fn reopen(&self) -> Result<Store, Error> {
        Ok(Store::open(self.store.dir())?)
    }
}

/// The registered algorithm called `name`.
pub fn find(name: &str) -> Result<&'static dyn Registered, Error> {
    registry::find(name).ok_or_else(|| Error::UnknownAlgorithm {
        name: name.into(),
        known: registry::ALGORITHMS.iter().map(|a| a.info().name).collect::<Vec<_>>().join(", "),
    })
}

/// The README's Rust examples, compiled and run as doctests so that the
/// manual stays true.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeExamples;
