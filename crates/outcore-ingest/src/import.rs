//! `outcore import`: parse -> external sort by (source, target) in
//! original ids -> deduplicate -> relabel by rank -> CSR layouts.
//!
//! Relabelling by rank keeps the order of ids, so edges sorted by original
//! ids are already sorted by dense ids and one sort serves the out-layout.
//! Only when the id range is too sparse for the bitmap does the importer
//! fall back to two extra sorts (relabel targets, then sources, by joins).

use crate::bucket::BucketSorter;
use crate::error::{IngestError, Result};
use crate::formats::{self, Declared, EdgeSink, Format, ParseOptions, SinkError, SinkResult};
use crate::ids::{check_range, DenseIds, IdCollector, IdJoin};
use crate::sort::{weight_from_key, weight_key, ExternalSorter, Key64, Merged, SortRecord, WideEdge};
use outcore_io::{Budget, Minimum};
use outcore_store::{CsrWriter, Encoding, Manifest, StoreWriter, FORMAT_NAME, FORMAT_VERSION, ITEM_ID_BASE};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SelfLoops {
    Keep,
    Drop,
}

#[derive(Clone, Debug)]
pub struct ImportOptions {
    pub format: Option<Format>,
    /// `Some(false)` = `--undirected` (symmetrize); `None` = the format's default (directed for edge lists).
    pub directed: Option<bool>,
    /// Read and keep edge weights.
    pub weighted: bool,
    /// Drop weights the format carries.
    pub unweighted: bool,
    /// Collapse parallel edges, keeping the smallest weight.
    pub dedup: bool,
    pub self_loops: SelfLoops,
    /// Also build the in-edge CSR (directed graphs).
    pub in_layout: bool,
    pub encoding: Option<Encoding>,
    /// Declare vertices 0..N (ids must be below N; isolated ones kept).
    pub num_vertices: Option<u64>,
    pub force: bool,
    /// The memory budget in bytes.
    pub memory: u64,
    /// Bytes for the sort buffers (default: half the budget).
    pub sort_buffer: Option<u64>,
    /// A ratings graph: each edge is `user item rating`; users and items are
    /// two id spaces (item `i` becomes vertex `ITEM_ID_BASE + i`), the graph
    /// is undirected and weighted, and the manifest records both sides.
    pub bipartite: bool,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            format: None,
            directed: None,
            weighted: false,
            unweighted: false,
            dedup: true,
            self_loops: SelfLoops::Keep,
            in_layout: false,
            encoding: None,
            num_vertices: None,
            force: false,
            memory: 1 << 30,
            sort_buffer: None,
            bipartite: false,
        }
    }
}

pub use outcore_io::{NoProgress, Progress};

/// What an import did.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct ImportReport {
    pub store: PathBuf,
    pub vertices: u64,
    pub edges: u64,
    pub arcs: u64,
    pub self_loops: u64,
    pub directed: bool,
    pub weighted: bool,
    pub input_bytes: u64,
    pub input_edges: u64,
    pub self_loops_dropped: u64,
    pub duplicates_removed: u64,
    pub sort_runs: u64,
    /// Source-range buckets of the bucketed path (0 when runs were sorted).
    pub buckets: u64,
    pub spilled_bytes: u64,
    pub merge_passes: u64,
    pub seconds: f64,
    /// Parsing, sorting and spilling runs.
    pub parse_seconds: f64,
    /// Merging runs, relabelling and writing the layouts.
    pub write_seconds: f64,
    pub peak_budget_bytes: u64,
}

/// A producer of edges: a parser or a generator. Called again if the
/// import restarts with wide records.
pub type EdgeSource<'a> = dyn Fn(&mut dyn EdgeSink, &mut dyn FnMut(Arc<AtomicU64>, u64, bool)) -> Result<()> + 'a;

/// Import a file.
pub fn import_file(input: &Path, target: &Path, opts: &ImportOptions, progress: &dyn Progress) -> Result<ImportReport> {
    if !input.exists() {
        return Err(IngestError::file(input, "no such file"));
    }
    let format = match opts.format.or_else(|| Format::from_path(input)) {
        Some(f) => f,
        None => {
            return Err(IngestError::UnknownFormat {
                path: input.to_path_buf(),
                known: "text, el, wel, mtx, metis, graphalytics, bin32, bin64",
            })
        }
    };
    // the output must not be (or hold, or lie inside) any file the import reads
    let siblings = if format == Format::Graphalytics { vec![input.with_extension("e"), input.with_extension("v")] } else { vec![] };
    let inputs: Vec<&Path> = std::iter::once(input).chain(siblings.iter().map(PathBuf::as_path)).collect();
    outcore_store::check_output(target, outcore_store::OutputKind::Store, opts.force, &inputs)?;
    let parse_opts = ParseOptions { weighted: opts.weighted || opts.bipartite };
    let source =
        |sink: &mut dyn EdgeSink, p: &mut dyn FnMut(Arc<AtomicU64>, u64, bool)| formats::parse(input, format, &parse_opts, sink, p);
    let mut provenance = BTreeMap::new();
    provenance.insert("input".into(), input.display().to_string());
    provenance.insert("format".into(), format.name().into());
    import_from(&source, target, opts, provenance, progress)
}

/// Import from any edge source (parsers and generators).
pub fn import_from(
    source: &EdgeSource,
    target: &Path,
    opts: &ImportOptions,
    provenance: BTreeMap<String, String>,
    progress: &dyn Progress,
) -> Result<ImportReport> {
    let start = Instant::now();
    outcore_io::release_free_memory();
    minimum(opts).check(opts.memory)?;
    let mut store = StoreWriter::create(target, opts.force)?;
    let budget = Budget::new(opts.memory);
    let _io = budget.reserve("I/O buffers of import", io_bytes(opts))?;
    let _baseline = budget.reserve("program, thread stacks and allocator slack", outcore_io::PROCESS_BASELINE)?;
    let narrow = !opts.weighted && !opts.bipartite;
    let result = if narrow {
        match run::<Key64>(source, &mut store, opts, &budget, progress) {
            Err(IngestError::NeedWide) => run::<WideEdge>(source, &mut store, opts, &budget, progress),
            r => r,
        }
    } else {
        run::<WideEdge>(source, &mut store, opts, &budget, progress)
    };
    let (mut manifest, mut report) = result?;
    if opts.bipartite {
        let users = count_users(store.staging_dir(), &manifest)?;
        manifest.bipartite = Some(outcore_store::BipartiteRecord { users, items: manifest.vertices - users });
    }
    for (k, v) in provenance {
        manifest.provenance.insert(k, v);
    }
    manifest.provenance.insert("dedup".into(), opts.dedup.to_string());
    manifest.provenance.insert("self_loops".into(), format!("{:?}", opts.self_loops).to_lowercase());
    report.store = store.commit(manifest)?;
    report.seconds = start.elapsed().as_secs_f64();
    report.peak_budget_bytes = budget.peak();
    Ok(report)
}

/// The users of a bipartite import: the ids below `ITEM_ID_BASE`, found by
/// binary search in the sorted id map.
fn count_users(dir: &Path, m: &Manifest) -> Result<u64> {
    use std::os::unix::fs::FileExt;
    if m.id_map == "identity" {
        return Ok(m.vertices.min(ITEM_ID_BASE.saturating_sub(m.id_base)));
    }
    let path = dir.join("idmap");
    let file = std::fs::File::open(&path).map_err(|e| IngestError::file(&path, format!("open: {e}")))?;
    let id = |k: u64| -> Result<u64> {
        let mut b = [0u8; 8];
        file.read_exact_at(&mut b, k * 8).map_err(|e| IngestError::file(&path, format!("read: {e}")))?;
        Ok(u64::from_le_bytes(b))
    };
    let (mut lo, mut hi) = (0, m.vertices);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if id(mid)? < ITEM_ID_BASE {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    Ok(lo)
}

/// Allowance for the input's reader and decompressor and the id
/// collector's writers (the parse), then for the layout writer (the write).
const IO_OVERHEAD: u64 = 16 << 20;

/// The parse's I/O buffers, or the layout writer's if more (a compressed
/// weighted layout writes seven files); a layout's lists are charged as
/// they grow.
fn io_bytes(opts: &ImportOptions) -> u64 {
    let weighted = opts.weighted || opts.bipartite;
    IO_OVERHEAD.max(CsrWriter::buffer_bytes(opts.encoding.unwrap_or(Encoding::Raw32), weighted))
}

/// What the buffers sized from the budget take at their smallest, all
/// phases together: the edge sorter (2 x 1024 records), the id collector
/// (64 KiB when it goes external), merges of two runs at a time (4 x 16
/// KiB a reader, half the budget left for the consumer), the in-edge
/// sorter, with room for the rounding of each; and the fixed parts (a
/// spill's writer, a merge's pipe) of two sorts, the edges' and the
/// in-edges'. One figure whatever the input and options.
const BUFFER_FLOOR: u64 = (1 << 20) + 2 * (crate::sort::SORT_FLOOR - (1 << 20));

/// The least an import needs, whatever the input: the bucketed import is
/// taken only when its buffers fit, so the run sort's floor bounds it.
pub fn minimum(opts: &ImportOptions) -> Minimum {
    Minimum::new("import")
        .with("program, thread stacks and allocator slack", outcore_io::PROCESS_BASELINE)
        .with("I/O buffers", io_bytes(opts))
        .with("sort, id and merge buffers at their smallest", BUFFER_FLOOR)
}

/// An edge record the sorter can carry.
trait EdgeRecord: SortRecord {
    fn pack(source: u64, target: u64, weight: u32) -> Option<Self>;
    fn unpack(&self) -> (u64, u64, u32);
}

impl EdgeRecord for Key64 {
    #[inline]
    fn pack(s: u64, t: u64, _w: u32) -> Option<Self> {
        (s >> 32 == 0 && t >> 32 == 0).then_some(Key64(s << 32 | t))
    }
    #[inline]
    fn unpack(&self) -> (u64, u64, u32) {
        (self.0 >> 32, self.0 & 0xffff_ffff, weight_key(1.0))
    }
}

impl EdgeRecord for WideEdge {
    #[inline]
    fn pack(source: u64, target: u64, weight: u32) -> Option<Self> {
        Some(WideEdge { source, target, weight })
    }
    #[inline]
    fn unpack(&self) -> (u64, u64, u32) {
        (self.source, self.target, self.weight)
    }
}

struct ImportSink<'a, E: EdgeRecord> {
    opts: &'a ImportOptions,
    budget: &'a Budget,
    dir: PathBuf,
    progress: &'a dyn Progress,
    input_position: Arc<Mutex<Option<Arc<AtomicU64>>>>,
    sorter: Option<ExternalSorter<E>>,
    /// Used instead of `sorter` when the vertex range is declared.
    buckets: Option<BucketSorter>,
    ids: Option<IdCollector>,
    directed: bool,
    weighted: bool,
    vertex_list: bool,
    input_edges: u64,
    loops_dropped: u64,
}

impl<E: EdgeRecord> EdgeSink for ImportSink<'_, E> {
    fn declare(&mut self, d: &Declared) -> SinkResult {
        if self.opts.bipartite {
            if d.vertex_range.is_some() || d.vertex_list || self.opts.num_vertices.is_some() || self.opts.directed == Some(true) {
                return Err(SinkError::Reject(
                    "a bipartite import reads an undirected edge list of `user item rating` lines, with no vertex list or count".into(),
                ));
            }
            // a text input was asked for its third column; a binary one has none
            if !d.weighted || self.opts.unweighted {
                return Err(SinkError::Reject("a bipartite import needs the ratings: a weighted input (`user item rating`)".into()));
            }
        }
        self.directed = match (self.opts.directed, d.directed) {
            _ if self.opts.bipartite => false,
            (Some(true), Some(false)) => {
                return Err(SinkError::Reject("this input is undirected by definition; it cannot be read as directed".into()))
            }
            (Some(false), Some(true)) => {
                return Err(SinkError::Reject("this input declares a directed graph; it cannot be read as undirected".into()))
            }
            (Some(x), _) | (None, Some(x)) => x,
            (None, None) => true,
        };
        self.weighted = (self.opts.weighted || self.opts.bipartite || d.weighted) && !self.opts.unweighted;
        if self.weighted && std::mem::size_of::<E>() == 8 {
            return Err(SinkError::Abort(IngestError::NeedWide));
        }
        self.vertex_list = d.vertex_list;
        let ids = match (d.vertex_range, self.opts.num_vertices) {
            (Some((first, count)), _) => IdCollector::Range { first, count },
            (None, Some(n)) if !d.vertex_list => IdCollector::Range { first: 0, count: n },
            _ => IdCollector::bitmap(self.budget.available() / 4),
        };
        // a header's count is a hint from the file, checked only later
        // against what the file holds: any value is taken without overflow
        let guess = |count: u64| d.edges_hint.unwrap_or(count.saturating_mul(8)).saturating_mul(if self.directed { 1 } else { 2 });
        let bucketed = match &ids {
            IdCollector::Range { count, .. } => {
                // its buffers must fit, else the run sort; the in-edge sorter is
                // made when pass 1's are released and is shaped the same way
                let buffers = BucketSorter::buffer_bytes(*count, guess(*count), self.budget.available());
                !self.weighted
                    && *count <= 1 << 32
                    && self.opts.dedup
                    && self.opts.sort_buffer.is_none()
                    && buffers + BUFFER_FLOOR <= self.budget.available()
            }
            _ => false,
        };
        if bucketed {
            let IdCollector::Range { count, .. } = ids else { unreachable!() };
            let guess = guess(count);
            self.buckets = Some(BucketSorter::new(&self.dir, "edges", count, guess, self.budget)?);
        } else {
            let memory = self.opts.sort_buffer.unwrap_or(self.budget.available() / 2);
            self.sorter = Some(ExternalSorter::new(&self.dir, "edges", self.budget, memory, self.opts.dedup)?);
        }
        self.ids = Some(ids);
        Ok(())
    }

    fn vertex(&mut self, id: u64) -> SinkResult {
        self.ids.as_mut().unwrap().observe(id, self.budget, &self.dir)
    }

    fn vertices_done(&mut self) -> SinkResult {
        if self.vertex_list {
            self.ids.as_mut().unwrap().close();
        }
        Ok(())
    }

    #[inline]
    fn edge(&mut self, s: u64, t: u64, w: f32) -> SinkResult {
        self.input_edges += 1;
        let t = if self.opts.bipartite {
            if s >= ITEM_ID_BASE || t >= ITEM_ID_BASE {
                return Err(SinkError::Reject(format!(
                    "user {s} or item {t} is 2^62 or more (the largest id a side can have is 2^62 - 1)"
                )));
            }
            if !w.is_finite() {
                return Err(SinkError::Reject(format!("rating {w} of user {s} and item {t} is not a number")));
            }
            t + ITEM_ID_BASE
        } else {
            t
        };
        if self.input_edges & 0xffff == 0 {
            if let Some(p) = &*self.input_position.lock().unwrap() {
                self.progress.set(p.load(Ordering::Relaxed));
            }
        }
        let ids = self.ids.as_mut().unwrap();
        if let IdCollector::Range { first, count } = *ids {
            // the common declared case, without the collector's dispatch
            check_range(s, first, count)?;
            check_range(t, first, count)?;
        } else {
            ids.observe(s, self.budget, &self.dir)?;
            ids.observe(t, self.budget, &self.dir)?;
        }
        if s == t && self.opts.self_loops == SelfLoops::Drop {
            self.loops_dropped += 1;
            return Ok(());
        }
        if let Some(b) = &mut self.buckets {
            let IdCollector::Range { first, .. } = *ids else { unreachable!() };
            let (s, t) = (s - first, t - first);
            b.push(s, t)?;
            if !self.directed && s != t {
                b.push(t, s)?;
            }
            return Ok(());
        }
        let wk = weight_key(w);
        let sorter = self.sorter.as_mut().unwrap();
        sorter.push(E::pack(s, t, wk).ok_or(SinkError::Abort(IngestError::NeedWide))?)?;
        if !self.directed && s != t {
            sorter.push(E::pack(t, s, wk).ok_or(SinkError::Abort(IngestError::NeedWide))?)?;
        }
        Ok(())
    }
}

fn run<E: EdgeRecord>(
    source: &EdgeSource,
    store: &mut StoreWriter,
    opts: &ImportOptions,
    budget: &Budget,
    progress: &dyn Progress,
) -> Result<(Manifest, ImportReport)> {
    let dir = store.staging_dir().to_path_buf();
    let position = Arc::new(Mutex::new(None));
    let mut sink = ImportSink::<E> {
        opts,
        budget,
        dir: dir.clone(),
        progress,
        input_position: position.clone(),
        sorter: None,
        buckets: None,
        ids: None,
        directed: true,
        weighted: false,
        vertex_list: false,
        input_edges: 0,
        loops_dropped: 0,
    };
    let phase = Instant::now();
    let mut input_bytes = 0u64;
    source(&mut sink, &mut |pos, total, bytes| {
        progress.begin("parse + sort", total, bytes);
        if bytes {
            input_bytes += total;
        }
        *position.lock().unwrap() = Some(pos);
    })?;
    progress.end();
    if let Some(buckets) = sink.buckets.take() {
        let IdCollector::Range { first, count } = sink.ids.take().unwrap() else { unreachable!() };
        let pass1 = Pass1 {
            input_bytes,
            input_edges: sink.input_edges,
            loops_dropped: sink.loops_dropped,
            records: buckets.records(),
            parse_seconds: phase.elapsed().as_secs_f64(),
        };
        return write_bucketed(buckets, store, opts, budget, progress, (first, count), sink.directed, pass1);
    }
    let (Some(sorter), Some(ids)) = (sink.sorter.take(), sink.ids.take()) else {
        return Err(IngestError::Usage("input declared no graph".into()));
    };
    let (directed, weighted) = (sink.directed, sink.weighted);
    let records_in = sorter.stats.records_in;

    let dense = ids.finish(&dir.join("idmap"))?;
    let mut merged = sorter.finish()?;
    let parse_seconds = phase.elapsed().as_secs_f64();
    let phase = Instant::now();
    let vertices = dense.count();
    let encoding = opts.encoding.unwrap_or(Encoding::raw_for(vertices));
    let mut sort_stats = merged.stats.clone();
    let mut extra = Vec::new();

    progress.begin("relabel + write", records_in, false);
    let mut in_sorter: Option<ExternalSorter<E>> = None;
    if directed && opts.in_layout {
        let memory = budget.available() / 2;
        in_sorter = Some(ExternalSorter::new(&dir, "in-edges", budget, memory, false)?);
    }
    let mut out = CsrWriter::new(store, "out", encoding, vertices, weighted)?;
    out.charge_lists_to(budget);
    let mut self_loops = 0u64;
    let mut arcs_seen = 0u64;
    let mut emit = |s: u64, t: u64, wk: u32| -> Result<()> {
        self_loops += (s == t) as u64;
        out.push(s, t, weight_from_key(wk))?;
        if let Some(ins) = &mut in_sorter {
            ins.push(E::pack(t, s, wk).ok_or(IngestError::NeedWide)?)?;
        }
        arcs_seen += 1;
        if arcs_seen & 0xfffff == 0 {
            progress.set(arcs_seen);
        }
        Ok(())
    };
    if dense.in_memory() {
        while let Some(r) = merged.next()? {
            let (s, t, w) = r.unpack();
            emit(dense.rank(s), dense.rank(t), w)?;
        }
        drop(merged);
    } else {
        let DenseIds::External { path, .. } = &dense else { unreachable!() };
        let by_target = relabel_sources(merged, path, &dir, budget, "relabel-1")?;
        extra.push(by_target.stats.clone());
        let mut by_source = relabel_sources(by_target, path, &dir, budget, "relabel-2")?;
        extra.push(by_source.stats.clone());
        while let Some(r) = by_source.next()? {
            emit(r.source, r.target, r.weight)?;
        }
    }
    let (out_record, arcs) = out.finish(store)?;
    progress.end();
    let mut layouts = BTreeMap::new();
    layouts.insert("out".to_string(), out_record);
    if let Some(ins) = in_sorter {
        let mut m = ins.finish()?;
        extra.push(m.stats.clone());
        let mut w = CsrWriter::new(store, "in", encoding, vertices, weighted)?;
        w.charge_lists_to(budget);
        while let Some(r) = m.next()? {
            let (s, t, wk) = r.unpack();
            w.push(s, t, weight_from_key(wk))?;
        }
        drop(m);
        let (rec, _) = w.finish(store)?;
        layouts.insert("in".to_string(), rec);
    }
    let (id_map, id_base) = match &dense {
        DenseIds::Identity { base, .. } => ("identity", *base),
        DenseIds::Rank { summary, .. } | DenseIds::External { summary, .. } => {
            store.record(summary);
            ("sorted", 0)
        }
    };
    for s in &extra {
        sort_stats.runs += s.runs;
        sort_stats.spilled_bytes += s.spilled_bytes;
        sort_stats.merge_passes += s.merge_passes;
    }
    let manifest = build_manifest(vertices, arcs, self_loops, directed, weighted, (id_map, id_base), layouts);
    let pass1 = Pass1 { input_bytes, input_edges: sink.input_edges, loops_dropped: sink.loops_dropped, records: records_in, parse_seconds };
    let report =
        pass1.report(&manifest, (sort_stats.runs, 0), sort_stats.spilled_bytes, sort_stats.merge_passes, phase.elapsed().as_secs_f64());
    Ok((manifest, report))
}

fn build_manifest(
    vertices: u64,
    arcs: u64,
    self_loops: u64,
    directed: bool,
    weighted: bool,
    (id_map, id_base): (&str, u64),
    layouts: BTreeMap<String, outcore_store::LayoutRecord>,
) -> Manifest {
    let edges = if directed { arcs } else { (arcs - self_loops) / 2 + self_loops };
    Manifest {
        format: FORMAT_NAME.into(),
        version: FORMAT_VERSION,
        vertices,
        edges,
        arcs,
        self_loops,
        directed,
        weighted,
        id_map: id_map.into(),
        id_base,
        layouts,
        files: BTreeMap::new(),
        provenance: BTreeMap::new(),
        tiles: None,
        hot: None,
        bipartite: None,
    }
}

/// The bucketed path: ids are `first..first+count`, records unweighted.
#[allow(clippy::too_many_arguments)]
fn write_bucketed(
    buckets: BucketSorter,
    store: &mut StoreWriter,
    opts: &ImportOptions,
    budget: &Budget,
    progress: &dyn Progress,
    (first, vertices): (u64, u64),
    directed: bool,
    pass1: Pass1,
) -> Result<(Manifest, ImportReport)> {
    let phase = Instant::now();
    let encoding = opts.encoding.unwrap_or(Encoding::raw_for(vertices));
    let records = buckets.records();
    let bucket_count = buckets.bucket_count();
    let dir = store.staging_dir().to_path_buf();
    let mut in_buckets = None;
    let mut out = CsrWriter::new(store, "out", encoding, vertices, false)?;
    out.charge_lists_to(budget);
    let (mut arcs, mut self_loops) = (0u64, 0u64);
    progress.begin("sort + write", records, false);
    let in_slot = std::cell::RefCell::new(None);
    let made_in = || {
        if directed && opts.in_layout {
            // made once pass 1 released its buffers, with the room they had
            *in_slot.borrow_mut() = Some(BucketSorter::new(&dir, "in-edges", vertices, records, budget)?);
        }
        Ok(())
    };
    buckets.finish_then(opts.dedup, made_in, |s, list| {
        if in_buckets.is_none() {
            in_buckets = in_slot.borrow_mut().take();
        }
        out.push_list(s, list)?;
        arcs += list.len() as u64;
        self_loops += list.binary_search(&s).is_ok() as u64;
        if let Some(ib) = &mut in_buckets {
            for &t in list {
                ib.push(t, s)?;
            }
        }
        if arcs & 0xfffff < list.len() as u64 {
            progress.set(arcs);
        }
        Ok(())
    })?;
    let (out_record, _) = out.finish(store)?;
    progress.end();
    let mut layouts = BTreeMap::new();
    layouts.insert("out".to_string(), out_record);
    if directed && opts.in_layout {
        let mut w = CsrWriter::new(store, "in", encoding, vertices, false)?;
        w.charge_lists_to(budget);
        if let Some(ib) = in_buckets {
            ib.finish(false, |t, list| Ok(w.push_list(t, list)?))?;
        }
        layouts.insert("in".to_string(), w.finish(store)?.0);
    }
    let manifest = build_manifest(vertices, arcs, self_loops, directed, false, ("identity", first), layouts);
    let report = pass1.report(&manifest, (0, bucket_count), records * 8, 0, phase.elapsed().as_secs_f64());
    Ok((manifest, report))
}

/// What pass 1 (parse and scatter or sort) counted.
struct Pass1 {
    input_bytes: u64,
    input_edges: u64,
    loops_dropped: u64,
    /// Records handed to the sorter (both directions of undirected edges).
    records: u64,
    parse_seconds: f64,
}

impl Pass1 {
    fn report(
        &self,
        m: &Manifest,
        (sort_runs, buckets): (u64, u64),
        spilled_bytes: u64,
        merge_passes: u64,
        write_seconds: f64,
    ) -> ImportReport {
        ImportReport {
            store: PathBuf::new(),
            vertices: m.vertices,
            edges: m.edges,
            arcs: m.arcs,
            self_loops: m.self_loops,
            directed: m.directed,
            weighted: m.weighted,
            input_bytes: self.input_bytes,
            input_edges: self.input_edges,
            self_loops_dropped: self.loops_dropped,
            duplicates_removed: self.records - m.arcs,
            sort_runs,
            buckets,
            spilled_bytes,
            merge_passes,
            seconds: 0.0,
            parse_seconds: self.parse_seconds,
            write_seconds,
            peak_budget_bytes: 0,
        }
    }
}

/// Relabel the sources of a stream sorted by source (original ids) by a
/// join with the id file, and sort the result by (target, source): the
/// next call relabels what were the targets.
fn relabel_sources<E: EdgeRecord>(
    mut merged: Merged<E>,
    idmap: &Path,
    dir: &Path,
    budget: &Budget,
    name: &str,
) -> Result<Merged<WideEdge>> {
    let memory = budget.available() / 2;
    let mut sorter = ExternalSorter::<WideEdge>::new(dir, name, budget, memory, false)?;
    let mut join = IdJoin::open(idmap)?;
    while let Some(r) = merged.next()? {
        let (s, t, w) = r.unpack();
        sorter.push(WideEdge { source: t, target: join.rank_of(s)?, weight: w })?;
    }
    drop(merged);
    sorter.finish()
}
