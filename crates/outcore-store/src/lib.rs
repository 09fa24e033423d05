//! The outcore store (DESIGN.md, "The store"): a directory of files plus a
//! `manifest.json` written last by atomic rename. A directory without a
//! manifest is incomplete and never opened.
//!
//! Layouts are CSR: a 64-bit vertex index whose entries are positions in
//! the codec's unit, and an adjacency file in a pluggable [`codec`]
//! encoding; optional f32 weights in adjacency order; an [`idmap`] from
//! dense internal ids back to the original ids of the input.

pub mod bits;
pub mod ceesor;
pub mod codec;
pub mod ef;
mod error;
pub mod gapref;
pub mod heads;
pub mod hot;
pub mod idmap;
pub mod ids;
pub mod lock;
pub mod manifest;
mod reader;
pub mod target;
pub mod tiles;
mod writer;

pub use codec::{codec_at, codec_for, Codec, Encoding, IndexUnit, ListDecoder, ListSource};
pub use error::StoreError;
pub use idmap::IdMap;
pub use ids::{IdLookup, IdStream, Ids};
pub use lock::StoreLock;
pub use manifest::{
    BipartiteRecord, FileRecord, HotColumn, HotRecord, IndexFormat, LayoutRecord, Manifest, TilesRecord, FORMAT_NAME, FORMAT_VERSION,
    ITEM_ID_BASE, OLDEST_FORMAT_VERSION,
};
pub use reader::{AdjacencyScan, Block, BlockTable, DegreeScan, EdgeStarts, IndexEntries, Layout, PageChecks, Store};
pub use target::{check_output, is_store, Existing, OutputKind};
pub use writer::{page_sums_name, write_page_sums, CsrWriter, StoreWriter, LAYOUT_FILE_SUFFIXES};

/// Chunk size of the sequential readers and writers used by the store.
pub const STREAM_CHUNK_BYTES: usize = 1 << 20;
