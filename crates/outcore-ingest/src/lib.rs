//! The `ingest` layer of outcore: input parsers, graph generators, the
//! external sort, and `import`, which turns an edge stream of any size
//! into a store within a memory budget (DESIGN.md, "Layers").
//!
//! DESIGN.md draws ingest at the bottom of the stack; here it sits above
//! `store`, because import writes stores and the store layer must not
//! depend on parsers. Nothing below it imports it.

pub mod bucket;
pub mod error;
pub mod export;
pub mod formats;
pub mod generate;
pub mod hot;
pub mod ids;
pub mod import;
pub mod in_layout;
pub mod input;
pub mod recode;
pub mod sort;
pub mod tiles;
pub mod upgrade;

pub use error::IngestError;
pub use formats::Format;
pub use import::{import_file, import_from, ImportOptions, ImportReport, NoProgress, Progress, SelfLoops};
