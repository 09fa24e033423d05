//! outcore algorithms. Each algorithm lives in its own file beside a plain
//! in-memory reference version ([`reference`]) that its tests use as an
//! oracle. Algorithms never open files: they read a store through the
//! store layer's scans (and, in later layers, through the engines).

pub mod analytics;
pub mod bc;
pub mod bfs;
pub mod cdlp;
pub mod degrees;
pub mod graph;
pub mod graph500;
pub mod hybrid_bfs;
pub mod label_wcc;
pub mod order;
pub mod pagerank;
pub mod reference;
pub mod spmv;
pub mod sssp;
pub mod tile_bfs;
pub mod wcc;

pub use degrees::{degree_summary, DegreeSummary};
pub use graph::MemGraph;
pub mod dynamic;
