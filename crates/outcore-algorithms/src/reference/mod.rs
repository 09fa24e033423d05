//! Plain in-memory reference implementations: short, obviously correct,
//! and the oracles of every engine's tests. Semantics follow the LDBC
//! Graphalytics specification (shared/data/graphalytics/README.md).

pub mod bc;
pub mod bfs;
pub mod cdlp;
pub mod pagerank;
pub mod spmv;
pub mod sssp;
pub mod wcc;

/// Depth of a vertex the source cannot reach (Graphalytics prints i64::MAX).
pub const UNREACHABLE: u64 = u64::MAX;
