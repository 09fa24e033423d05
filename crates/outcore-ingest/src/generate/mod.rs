//! Synthetic graphs, generated edge by edge from a counter-based random
//! stream so that any range of edges can be produced independently: in
//! parallel, in any order, in bounded memory, identically for a seed.
//!
//! - [`Kronecker`]: the Graph500 generator (A=.57 B=.19 C=.19 D=.05,
//!   vertex labels permuted, edge list shuffled).
//! - [`Uniform`]: Erdos-Renyi G(n, m).
//! - [`WattsStrogatz`]: ring lattice with random rewiring.
//! - [`Ratings`]: planted low-rank user-item ratings (a bipartite graph).

mod kronecker;
mod permute;
mod ratings;
mod rng;
mod uniform;
mod watts_strogatz;

pub use kronecker::Kronecker;
pub use permute::Permutation;
pub use ratings::Ratings;
pub use rng::{hash64, uniform01, EdgeRng};
pub use uniform::Uniform;
pub use watts_strogatz::WattsStrogatz;

use crate::error::{IngestError, Result};
use crate::formats::{Declared, EdgeSink, SinkError};
use outcore_io::SeqWriter;
use rayon::prelude::*;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// A graph generator: a fixed number of vertices and edges, edge `i`
/// a pure function of (parameters, seed, i).
pub trait Generator: Sync {
    fn name(&self) -> &'static str;
    fn vertices(&self) -> u64;
    fn edges(&self) -> u64;
    /// Whether the generated graph is meant to be read as directed.
    fn directed(&self) -> bool;
    /// Edge number `i` (0 <= i < edges()).
    fn edge(&self, i: u64) -> (u64, u64);
    /// Weight of edge `i` (1.0 for unweighted generators).
    fn weight(&self, _i: u64) -> f32 {
        1.0
    }
    /// Whether the weights are part of the graph (written and imported).
    fn weighted(&self) -> bool {
        false
    }
    /// The vertex ids declared to the import (`None`: collected from the edges).
    fn vertex_range(&self) -> Option<(u64, u64)> {
        Some((0, self.vertices()))
    }
}

/// Edges generated per parallel block (16 bytes each).
const BLOCK: u64 = 1 << 16;

/// Produce all edges in order, a block at a time, generating each block in parallel.
pub fn for_each_block(g: &dyn Generator, mut f: impl FnMut(u64, &[(u64, u64)]) -> Result<()>) -> Result<()> {
    let m = g.edges();
    let mut block = Vec::with_capacity(BLOCK.min(m) as usize);
    let mut start = 0;
    while start < m {
        let end = (start + BLOCK).min(m);
        (start as usize..end as usize).into_par_iter().map(|i| g.edge(i as u64)).collect_into_vec(&mut block);
        f(start, &block)?;
        start = end;
    }
    Ok(())
}

/// Feed a generator into an import as an edge source.
pub fn emit(g: &dyn Generator, sink: &mut dyn EdgeSink, progress: &mut dyn FnMut(Arc<AtomicU64>, u64, bool)) -> Result<()> {
    let at = |e: SinkError| match e {
        SinkError::Reject(r) => IngestError::Usage(format!("generator {}: {r}", g.name())),
        SinkError::Abort(e) => e,
    };
    let done = Arc::new(AtomicU64::new(0));
    progress(done.clone(), g.edges(), false);
    sink.declare(&Declared {
        directed: None,
        weighted: g.weighted(),
        vertex_range: g.vertex_range(),
        vertex_list: false,
        edges_hint: Some(g.edges()),
    })
    .map_err(at)?;
    sink.vertices_done().map_err(at)?;
    for_each_block(g, |start, block| {
        for (i, &(s, t)) in block.iter().enumerate() {
            sink.edge(s, t, g.weight(start + i as u64)).map_err(at)?;
        }
        done.fetch_add(block.len() as u64, Ordering::Relaxed);
        Ok(())
    })
}

/// Edge-list file formats the generator writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeListFormat {
    /// `src dst` per line (GAP `.el`, SNAP-readable).
    Text,
    Bin32,
    Bin64,
}

impl EdgeListFormat {
    pub fn from_path(path: &Path) -> Option<Self> {
        match path.extension()?.to_str()? {
            "el" | "wel" | "txt" | "tsv" | "edges" => Some(EdgeListFormat::Text),
            "bin32" => Some(EdgeListFormat::Bin32),
            "bin64" => Some(EdgeListFormat::Bin64),
            _ => None,
        }
    }
}

/// Write the generated edge list to `path`; memory is one block of edges.
pub fn write_edge_list(g: &dyn Generator, path: &Path, format: EdgeListFormat, force: bool, progress: &dyn crate::Progress) -> Result<u64> {
    outcore_store::check_output(path, outcore_store::OutputKind::File, force, &[])?;
    if g.weighted() && format != EdgeListFormat::Text {
        return Err(IngestError::file(path, format!("{} writes weights: give a text edge list (.wel, .txt)", g.name())));
    }
    if format == EdgeListFormat::Bin32 && g.vertices() > 1 << 32 {
        return Err(IngestError::file(path, format!("{} vertices do not fit u32 ids; write .bin64", g.vertices())));
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let tmp = outcore_io::Staged::file(parent, &format!("{}.partial", path.file_name().unwrap_or_default().to_string_lossy()))?;
    let result = (|| {
        let mut w = SeqWriter::create(tmp.path(), 1 << 20, outcore_io::CHECKSUM_BLOCK_BYTES)?;
        let mut buf = Vec::with_capacity(24 << 20);
        let mut done = 0u64;
        progress.begin("generate", g.edges(), false);
        for_each_block(g, |start, block| {
            buf.clear();
            for (k, &(s, t)) in block.iter().enumerate() {
                match format {
                    EdgeListFormat::Text if g.weighted() => writeln!(buf, "{s} {t} {}", g.weight(start + k as u64)).unwrap(),
                    EdgeListFormat::Text => writeln!(buf, "{s} {t}").unwrap(),
                    EdgeListFormat::Bin32 => {
                        buf.extend_from_slice(&(s as u32).to_le_bytes());
                        buf.extend_from_slice(&(t as u32).to_le_bytes());
                    }
                    EdgeListFormat::Bin64 => {
                        buf.extend_from_slice(&s.to_le_bytes());
                        buf.extend_from_slice(&t.to_le_bytes());
                    }
                }
            }
            w.write_bytes(&buf)?;
            done += block.len() as u64;
            progress.set(done);
            Ok(())
        })?;
        progress.end();
        Ok::<_, IngestError>(w.finish()?.bytes)
    })();
    let bytes = result?;
    tmp.publish(path)?;
    Ok(bytes)
}
