//! outcore algorithms (DESIGN.md, "Layers"): one module per problem, each
//! with its semantics, what it needs from each engine, one file per engine
//! version, its in-memory reference and its validator, and one line in the
//! [`registry`]. Every algorithm runs through the same skeleton
//! ([`run::execute`]): the [`plan`] chooses the engine from the store's
//! layouts and the budget, the algorithm's version for that engine runs,
//! and a [`run::Report`] says what happened. Algorithms never open files:
//! they read a store through the store layer's scans and the engines.
//!
//! ```
//! use outcore_algorithms::registry;
//! let names: Vec<&str> = registry::ALGORITHMS.iter().map(|a| a.info().name).collect();
//! assert!(names.contains(&"bfs") && names.contains(&"pagerank"));
//! ```

pub mod als;
pub mod bc;
pub mod bfs;
pub mod cdlp;
pub mod cells;
pub mod compare;
pub mod degrees;
pub mod dynamic;
mod error;
pub mod graph;
pub mod graph500;
pub mod kcore;
pub mod needs;
pub mod neighbourhood;
pub mod order;
pub mod pagerank;
pub mod params;
pub mod plan;
pub mod registry;
pub mod run;
pub mod scc;
pub mod sources;
pub mod spmv;
pub mod sssp;
pub mod triangles;
pub mod values;
pub mod wcc;

pub use degrees::{degree_summary, DegreeStats, DegreeSummary};
pub use error::Error;
pub use graph::MemGraph;
pub use params::{Args, ParamKind, ParamSpec};
pub use plan::{Engine, EngineChoice, Plan};
pub use run::{execute, Algorithm, Report, Run, RunOptions, Validation};
pub use values::{Column, Outcome, Value, ValueKind, Vectors};
