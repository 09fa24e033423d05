//! Input formats. Each parser reads one file (or a Graphalytics triple)
//! and hands declarations and edges, in original ids, to an [`EdgeSink`];
//! a rejected edge becomes an error naming the file and line or byte.

mod binary;
mod graphalytics;
mod matrix_market;
mod metis;
mod text;
mod webgraph;

use crate::error::{IngestError, Result};
use std::path::Path;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// SNAP-style edge list: `src dst [weight]`, `#`/`%` comments, spaces,
    /// tabs or commas; `.txt .tsv .csv .snap .edges .edgelist`.
    Text,
    /// GAP `.el`: `src dst`.
    El,
    /// GAP `.wel`: `src dst weight`.
    Wel,
    /// Matrix Market coordinate `.mtx`.
    MatrixMarket,
    /// METIS adjacency `.graph` / `.metis`.
    Metis,
    /// Graphalytics `.v` + `.e` (+ `.properties`).
    Graphalytics,
    /// Raw little-endian u32 pairs `.bin32`.
    Bin32,
    /// Raw little-endian u64 pairs `.bin64`.
    Bin64,
    /// WebGraph BV (`.graph` + `.properties` of a BVGraph).
    WebGraph,
}

impl Format {
    pub const NAMES: [(&'static str, Format); 9] = [
        ("text", Format::Text),
        ("el", Format::El),
        ("wel", Format::Wel),
        ("mtx", Format::MatrixMarket),
        ("metis", Format::Metis),
        ("graphalytics", Format::Graphalytics),
        ("bin32", Format::Bin32),
        ("bin64", Format::Bin64),
        ("webgraph", Format::WebGraph),
    ];

    pub fn from_name(name: &str) -> Option<Format> {
        Self::NAMES.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
    }
    pub fn name(self) -> &'static str {
        Self::NAMES.iter().find(|(_, f)| *f == self).unwrap().0
    }

    /// Guess from the file name; `.gz`/`.zst` suffixes are looked through.
    /// A `.graph`, `.properties` or `.offsets` file whose `.properties`
    /// names a BVGraph is WebGraph.
    pub fn from_path(path: &Path) -> Option<Format> {
        if webgraph::is_bv_graph(path) {
            return Some(Format::WebGraph);
        }
        let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
        let name = name.strip_suffix(".gz").or_else(|| name.strip_suffix(".zst")).unwrap_or(&name);
        let ext = name.rsplit_once('.').map(|(_, e)| e)?;
        Some(match ext {
            "txt" | "tsv" | "csv" | "snap" | "edges" | "edgelist" => Format::Text,
            "el" => Format::El,
            "wel" => Format::Wel,
            "mtx" => Format::MatrixMarket,
            "graph" | "metis" => Format::Metis,
            "e" | "v" | "properties" => Format::Graphalytics,
            "bin32" => Format::Bin32,
            "bin64" => Format::Bin64,
            _ => return None,
        })
    }
}

/// What a file says about its graph before its edges.
#[derive(Clone, Debug, Default)]
pub struct Declared {
    /// `Some(false)` for formats that are undirected by definition.
    pub directed: Option<bool>,
    /// Whether the file carries edge weights the importer should keep.
    pub weighted: bool,
    /// Vertices `first..first+count` exist, listed or not in edges.
    pub vertex_range: Option<(u64, u64)>,
    /// Vertices are listed explicitly (`declare_vertex`) before the edges.
    pub vertex_list: bool,
    /// About how many edges follow, if the format tells (sizes buffers).
    pub edges_hint: Option<u64>,
}

/// Why the sink refused something.
pub enum SinkError {
    /// Bad input at the parser's current position.
    Reject(String),
    /// Stop now with this error.
    Abort(IngestError),
}

impl From<IngestError> for SinkError {
    fn from(e: IngestError) -> Self {
        SinkError::Abort(e)
    }
}

pub type SinkResult = std::result::Result<(), SinkError>;

/// Receives what a parser reads.
pub trait EdgeSink {
    /// Called once, before any vertex or edge.
    fn declare(&mut self, declared: &Declared) -> SinkResult;
    /// A vertex from an explicit vertex list.
    fn vertex(&mut self, id: u64) -> SinkResult;
    /// Called once after the vertex list (if any) and before the edges.
    fn vertices_done(&mut self) -> SinkResult;
    fn edge(&mut self, source: u64, target: u64, weight: f32) -> SinkResult;
}

/// Options that change how a file is read.
#[derive(Clone, Debug, Default)]
pub struct ParseOptions {
    /// Read a weight column (text formats).
    pub weighted: bool,
}

/// Parse `path` as `format` into `sink`. `progress` counts input bytes read.
pub fn parse(
    path: &Path,
    format: Format,
    opts: &ParseOptions,
    sink: &mut dyn EdgeSink,
    progress: &mut dyn FnMut(Arc<AtomicU64>, u64, bool),
) -> Result<()> {
    match format {
        Format::Text => text::parse(path, 2, opts.weighted, sink, progress),
        Format::El => text::parse(path, 2, opts.weighted, sink, progress),
        Format::Wel => text::parse(path, 3, true, sink, progress),
        Format::MatrixMarket => matrix_market::parse(path, opts.weighted, sink, progress),
        Format::Metis => metis::parse(path, sink, progress),
        Format::Graphalytics => graphalytics::parse(path, sink, progress),
        Format::Bin32 => binary::parse(path, 4, sink, progress),
        Format::Bin64 => binary::parse(path, 8, sink, progress),
        Format::WebGraph => webgraph::parse(path, sink, progress),
    }
}

/// Map a sink refusal at `line` of `path` to an error.
pub(crate) fn at_line(path: &Path, line: u64, e: SinkError) -> IngestError {
    match e {
        SinkError::Reject(reason) => IngestError::line(path, line, reason),
        SinkError::Abort(e) => e,
    }
}
