//! `snapshot`: write the dynamic store's current graph as a static outcore
//! store, through the import pipeline (external sort, relabel, CSR), so
//! every engine can run on it. Undirected stores are emitted one direction
//! per edge and symmetrised by the import; multigraphs keep parallel edges.

use crate::error::{DynError, Result};
use crate::store::DynamicStore;
use outcore_ingest::error::IngestError;
use outcore_ingest::formats::{Declared, EdgeSink, SinkError};
use outcore_ingest::import::{import_from, ImportOptions, ImportReport, Progress, SelfLoops};
use std::collections::BTreeMap;
use std::path::Path;

pub fn snapshot(store: &DynamicStore, target: &Path, opts: ImportOptions, progress: &dyn Progress) -> Result<ImportReport> {
    write_snapshot(store, target, opts, false, progress)
}

/// The store as one part of a distributed store: every arc it holds (an
/// undirected edge's two arcs are on the owners of its two ends), as a
/// directed static store, so that the parts' union is the whole graph.
pub fn snapshot_arcs(store: &DynamicStore, target: &Path, opts: ImportOptions, progress: &dyn Progress) -> Result<ImportReport> {
    write_snapshot(store, target, opts, true, progress)
}

fn write_snapshot(
    store: &DynamicStore,
    target: &Path,
    mut opts: ImportOptions,
    arcs: bool,
    progress: &dyn Progress,
) -> Result<ImportReport> {
    let mut o = store.options;
    if arcs {
        o.undirected = false;
    }
    opts.directed = Some(!o.undirected);
    opts.weighted = o.weighted;
    opts.unweighted = !o.weighted;
    opts.dedup = !o.multigraph;
    opts.self_loops = SelfLoops::Keep;
    opts.format = None;
    let dir = store.dir().to_path_buf();
    outcore_store::check_output(target, outcore_store::OutputKind::Store, opts.force, &[&dir]).map_err(IngestError::from)?;
    let refused = |e: SinkError| match e {
        SinkError::Reject(reason) => IngestError::file(&dir, reason),
        SinkError::Abort(e) => e,
    };
    let source = |sink: &mut dyn EdgeSink, _: &mut dyn FnMut(std::sync::Arc<std::sync::atomic::AtomicU64>, u64, bool)| {
        let declared =
            Declared { directed: Some(!o.undirected), weighted: o.weighted, edges_hint: Some(store.arcs()), ..Default::default() };
        sink.declare(&declared).map_err(refused)?;
        let mut failure = None;
        // Vertices with an entry but perhaps no edges.
        store.for_each_source(|u| {
            if failure.is_none() {
                failure = sink.vertex(u).err();
            }
        });
        sink.vertices_done().map_err(refused)?;
        let total = store.arcs().max(1);
        let mut done = 0u64;
        progress.begin("snapshot", total, false);
        store.for_each_edge(|u, e| {
            done += e.count as u64;
            if failure.is_some() || (o.undirected && u > e.target) {
                return;
            }
            for _ in 0..e.count {
                if let Err(x) = sink.edge(u, e.target, e.weight) {
                    failure = Some(x);
                    return;
                }
            }
            if done & 0xffff == 0 {
                progress.set(done);
            }
        });
        progress.end();
        failure.map_or(Ok(()), |e| Err(refused(e)))
    };
    let mut provenance = BTreeMap::new();
    provenance.insert("input".into(), format!("dynamic store {} at commit {}", store.dir().display(), store.epoch()));
    provenance.insert("format".into(), "outcore-dynamic".into());
    import_from(&source, target, &opts, provenance, progress).map_err(DynError::from)
}
