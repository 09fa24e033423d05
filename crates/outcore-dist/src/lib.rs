//! outcore across machines. A job of P ranks (MPI processes, one per node
//! or per socket) shares one distributed dynamic store: each rank owns the
//! vertices that hash to it (thesis section 4.4, owner = hash(source) mod
//! P) and keeps their out-edges in its own outcore dynamic store, on its
//! own SSD. Updates reach owners through an asynchronous visitor queue;
//! commits are atomic across ranks (two-phase); BFS and PageRank run
//! across ranks on the live tables. Partitioned static stores (one
//! ordinary store per rank) run BFS, PageRank, WCC and SSSP across ranks
//! ([`statics`]), each rank out of core on its own part.
//!
//! The transport is a trait ([`comm::Comm`]): MPI with the `mpi` feature
//! (Open MPI or any MPI that rsmpi builds against), or [`comm::Solo`], one
//! rank in one process, which needs no MPI at all.

pub mod analytics;
pub mod blocks;
pub mod coloring;
pub mod comm;
pub mod dynamic;
pub mod error;
pub mod graph500;
pub mod import;
pub mod manifest;
pub mod output;
pub mod owner;
pub mod part;
pub mod partition;
pub mod statics;

pub use comm::{Comm, Solo};
pub use dynamic::{agree, ApplyOptions, DistApplyReport, DistDynamic};
pub use error::{DistError, Result};
