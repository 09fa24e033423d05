//! outcore engines (DESIGN.md, "Engines"). An engine knows how to get a
//! vertex's neighbours from a store within the memory budget; it never
//! knows which algorithm it serves.
//!
//! - [`traverse`]: semi-external. The vertex index (Elias-Fano,
//!   [`compact_index`]) and the algorithm's vertex state stay in memory;
//!   adjacency blocks are read through a block cache, and a run-ahead prefetcher (RASP, TR-823 section 6) keeps
//!   the device busy with the blocks of the vertices the algorithm will
//!   visit next, as its own iterator state (queue, heap, cursor) says.
//! - [`stream`]: G-Store tiles with slide-cache-rewind; [`interval`]: VENUS.
//! - [`sortreduce`]: fully external (BigSparse): vertex values on disk too,
//!   updates logged, sort-reduced and merged; memory set by the budget alone.

pub mod compact_index;
pub mod interval;
pub mod sortreduce;
pub mod stream;
pub mod traverse;

pub use compact_index::CompactIndex;
pub use interval::{IntervalEngine, IntervalOptions, IntervalProgram, IntervalStats, NeighbourList, Values, VertexValue};
pub use stream::{IterationStats, StreamOptions, StreamStats, TileEdges, TileProgram, TileStream};
pub use traverse::{Degrees, Lookahead, Reader, Traverse, TraverseOptions, TraverseStats};
