//! WebGraph BV graphs (`BASENAME.graph` + `BASENAME.properties`, the format
//! the LAW web and social graphs ship in), read sequentially through the
//! `webgraph` crate. Nodes are `0..n`; arcs come in source order.

use super::{Declared, EdgeSink, SinkError};
use crate::error::{IngestError, Result};
use lender::Lender;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use webgraph::prelude::{BvGraphSeq, SequentialLabeling};

/// The basename of a BV graph named by any of its files.
pub fn basename(path: &Path) -> PathBuf {
    let name = path.to_string_lossy();
    for ext in [".graph", ".properties", ".offsets", ".ef", ".dcf"] {
        if let Some(base) = name.strip_suffix(ext) {
            return PathBuf::from(base);
        }
    }
    path.to_path_buf()
}

/// Is `path` one file of a BV graph (its .properties names a BVGraph)?
pub fn is_bv_graph(path: &Path) -> bool {
    let mut props = basename(path).into_os_string();
    props.push(".properties");
    std::fs::read_to_string(props)
        .is_ok_and(|t| t.lines().any(|l| l.starts_with("graphclass") && l.contains("BVGraph")) || t.contains("#BVGraph properties"))
}

/// The decoder reads past the end of a truncated bitstream as zeros and
/// may never return, so check the length first: the properties give the
/// bits per link (to 3 decimals) and the arcs.
fn check_length(base: &Path) -> Result<()> {
    let mut props = base.as_os_str().to_owned();
    props.push(".properties");
    let text = std::fs::read_to_string(&props).map_err(|e| IngestError::file(Path::new(&props), format!("cannot read: {e}")))?;
    let value = |key: &str| text.lines().find_map(|l| l.strip_prefix(key)?.trim_start().strip_prefix('=')?.trim().parse::<f64>().ok());
    let mut graph = base.as_os_str().to_owned();
    graph.push(".graph");
    let bytes = std::fs::metadata(&graph).map_err(|e| IngestError::file(Path::new(&graph), format!("cannot read: {e}")))?.len();
    if let (Some(bits_per_link), Some(arcs)) = (value("bitsperlink"), value("arcs")) {
        let need = (bits_per_link - 0.0005) * arcs / 8.0;
        if (bytes as f64) < need - 8.0 {
            return Err(IngestError::file(
                Path::new(&graph),
                format!("{bytes} bytes, but {arcs} arcs at {bits_per_link} bits each need about {need:.0} (truncated)"),
            ));
        }
    }
    Ok(())
}

pub fn parse(path: &Path, sink: &mut dyn EdgeSink, progress: &mut dyn FnMut(Arc<AtomicU64>, u64, bool)) -> Result<()> {
    let base = basename(path);
    check_length(&base)?;
    let graph = BvGraphSeq::with_basename(&base)
        .load()
        .map_err(|e| IngestError::file(path, format!("cannot open the BV graph {}: {e:#}", base.display())))?;
    let n = graph.num_nodes() as u64;
    let arcs = graph.num_arcs_hint();
    let at = |node: u64, e: SinkError| match e {
        SinkError::Reject(r) => IngestError::file(path, format!("node {node}: {r}")),
        SinkError::Abort(e) => e,
    };
    sink.declare(&Declared { directed: Some(true), vertex_range: Some((0, n)), edges_hint: arcs, ..Default::default() })
        .map_err(|e| at(0, e))?;
    sink.vertices_done().map_err(|e| at(0, e))?;
    let done = Arc::new(AtomicU64::new(0));
    progress(done.clone(), arcs.unwrap_or(0), false);
    // a corrupt bitstream can make the decoder panic: report it as bad input
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| -> Result<u64> {
        let (mut seen, mut iter) = (0u64, graph.iter());
        while let Some((source, successors)) = iter.next() {
            for target in successors {
                sink.edge(source as u64, target as u64, 1.0).map_err(|e| at(source as u64, e))?;
                seen += 1;
                if arcs.is_some_and(|a| seen > a) {
                    return Err(IngestError::file(
                        path,
                        format!("node {source}: more arcs than the {} the properties declare (corrupt)", arcs.unwrap()),
                    ));
                }
            }
            if source % 4096 == 0 {
                done.store(seen, Ordering::Relaxed);
            }
        }
        Ok(seen)
    }));
    let seen = match result {
        Ok(r) => r?,
        Err(_) => return Err(IngestError::file(path, "the BV bitstream is corrupt (the decoder failed)")),
    };
    if let Some(a) = arcs.filter(|&a| a != seen) {
        return Err(IngestError::file(path, format!("decoded {seen} arcs, the properties say {a} (truncated or corrupt)")));
    }
    Ok(())
}
