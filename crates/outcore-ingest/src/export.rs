//! Writing a store back out as an edge list in original ids (`outcore
//! export`), streaming in bounded memory: the layout is scanned in vertex
//! order and sources get their original ids by a sequential join with the
//! id map. Targets are looked up in the id map when it fits the budget;
//! when it does not, the edges are sorted externally by target and joined
//! with the id map a second time (the output is then in target order).
//! An undirected store writes each edge once. Every import format that can
//! hold the graph is offered; re-importing the file gives the same store.

use crate::error::{IngestError, Result};
use crate::sort::{ExternalSorter, WideEdge};
use outcore_io::{Budget, Counter, Minimum, Progress, SeqWriter, Staged, TempArea, PROCESS_BASELINE};
use outcore_store::{check_output, IdStream, OutputKind, Store};
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The file formats export writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    /// `src dst` lines (GAP `.el`).
    El,
    /// `src dst weight` lines (GAP `.wel`).
    Wel,
    /// Little-endian u32 pairs.
    Bin32,
    /// Little-endian u64 pairs.
    Bin64,
    /// Matrix Market coordinate (`general`, or `symmetric` for undirected
    /// stores); ids are written as they are, so they must be at least 1.
    Mtx,
    /// LDBC Graphalytics: `NAME.v`, `NAME.e` and `NAME.properties` beside
    /// the given path; the vertex list keeps vertices without edges.
    Graphalytics,
}

impl ExportFormat {
    pub const NAMES: &'static str = "el, wel, bin32, bin64, mtx, graphalytics";

    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "el" | "text" => ExportFormat::El,
            "wel" => ExportFormat::Wel,
            "bin32" => ExportFormat::Bin32,
            "bin64" => ExportFormat::Bin64,
            "mtx" => ExportFormat::Mtx,
            "graphalytics" | "properties" => ExportFormat::Graphalytics,
            _ => return None,
        })
    }

    /// The format a file name asks for (its extension), if any.
    pub fn from_path(path: &Path) -> Option<Self> {
        Self::from_name(path.extension()?.to_str()?)
    }

    pub fn name(self) -> &'static str {
        match self {
            ExportFormat::El => "el",
            ExportFormat::Wel => "wel",
            ExportFormat::Bin32 => "bin32",
            ExportFormat::Bin64 => "bin64",
            ExportFormat::Mtx => "mtx",
            ExportFormat::Graphalytics => "graphalytics",
        }
    }
}

#[derive(Clone, Debug)]
pub struct ExportOptions {
    pub format: ExportFormat,
    /// `out` (default) or `in` (each edge written as target -> source).
    pub layout: String,
    /// The memory budget in bytes.
    pub memory: u64,
    /// Replace an existing output file.
    pub force: bool,
}

impl Default for ExportOptions {
    fn default() -> Self {
        ExportOptions { format: ExportFormat::El, layout: "out".into(), memory: 1 << 30, force: false }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct ExportReport {
    pub files: Vec<PathBuf>,
    pub format: String,
    pub vertices: u64,
    /// Edges written (undirected edges once).
    pub edges: u64,
    pub weighted: bool,
    /// Whether targets were translated by an external sort (the id map did not fit).
    pub external_join: bool,
    pub bytes: u64,
    pub seconds: f64,
}

/// One output file written through the O_DIRECT writer into a hidden
/// staging file beside its target; [`Out::finish`] moves it into place,
/// and dropping it unfinished (an error, an interrupt) removes it.
/// The output's chunk.
const OUT_CHUNK: usize = 1 << 20;

struct Out {
    file: Option<SeqWriter>,
    partial: Staged,
    target: PathBuf,
    buf: Vec<u8>,
    bytes: u64,
}

impl Out {
    /// Memory of an output: its writer's three chunks and a line buffer
    /// of a chunk (flushed when full) that may double once.
    const BYTES: u64 = 3 * OUT_CHUNK as u64 + 2 * OUT_CHUNK as u64;

    /// Start writing `path` (already allowed by the output policy).
    fn create(path: &Path) -> Result<Self> {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let partial = Staged::file(&parent_of(path), &format!("{name}.partial"))?;
        let file = SeqWriter::create(partial.path(), OUT_CHUNK, outcore_io::CHECKSUM_BLOCK_BYTES)?;
        Ok(Out { file: Some(file), partial, target: path.to_path_buf(), buf: Vec::with_capacity(OUT_CHUNK), bytes: 0 })
    }
    fn writer(&mut self) -> &mut SeqWriter {
        self.file.as_mut().expect("an unfinished output")
    }
    fn flush_if_full(&mut self) -> Result<()> {
        if self.buf.len() >= OUT_CHUNK {
            let buf = std::mem::take(&mut self.buf);
            self.writer().write_bytes(&buf)?;
            self.bytes += buf.len() as u64;
            self.buf = buf;
            self.buf.clear();
        }
        Ok(())
    }
    /// Write what is left, then move the file into place.
    fn finish(mut self) -> Result<u64> {
        let buf = std::mem::take(&mut self.buf);
        let mut file = self.file.take().expect("an unfinished output");
        file.write_bytes(&buf)?;
        file.finish()?;
        self.partial.publish(&self.target)?;
        Ok(self.bytes + buf.len() as u64)
    }
}

fn parent_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// A weight as text that parses back to the same f32: the shortest
/// decimal when it does, else the exact value.
fn weight_text(w: f32, out: &mut Vec<u8>) {
    let short = format!("{w}");
    if short.parse::<f64>().map(|x| x as f32) == Ok(w) {
        out.extend_from_slice(short.as_bytes());
    } else {
        let _ = write!(out, "{}", w as f64);
    }
}

/// Writes edges (original ids) in the chosen format.
struct EdgeWriter {
    format: ExportFormat,
    weighted: bool,
    out: Out,
}

impl EdgeWriter {
    fn edge(&mut self, u: u64, v: u64, w: f32) -> Result<()> {
        let b = &mut self.out.buf;
        match self.format {
            ExportFormat::El => {
                let _ = writeln!(b, "{u} {v}");
            }
            ExportFormat::Wel | ExportFormat::Mtx | ExportFormat::Graphalytics => {
                let _ = write!(b, "{u} {v}");
                if self.weighted || self.format == ExportFormat::Wel {
                    b.push(b' ');
                    weight_text(w, b);
                }
                b.push(b'\n');
            }
            ExportFormat::Bin32 => {
                let (u32_, v32) = (u32::try_from(u), u32::try_from(v));
                let (Ok(a), Ok(c)) = (u32_, v32) else {
                    return Err(IngestError::Parameter {
                        name: "format".into(),
                        reason: format!("bin32 holds 32-bit ids and edge {u} -> {v} does not fit; use bin64"),
                    });
                };
                b.extend_from_slice(&a.to_le_bytes());
                b.extend_from_slice(&c.to_le_bytes());
            }
            ExportFormat::Bin64 => {
                b.extend_from_slice(&u.to_le_bytes());
                b.extend_from_slice(&v.to_le_bytes());
            }
        }
        self.out.flush_if_full()
    }
}

/// The next original id of a stream that must not end early.
fn next(ids: &mut IdStream, store: &Store) -> Result<u64> {
    ids.next_id()?.ok_or_else(|| IngestError::file(store.dir(), "the id map ends before the last vertex"))
}

/// The least an export of `layout` of `store` takes (the id join goes
/// external when the map does not fit, so its sort's floor bounds it).
pub fn minimum(store: &Store, layout: &str) -> Result<Minimum> {
    Ok(Minimum::new("export")
        .with("program, thread stacks and allocator slack", PROCESS_BASELINE)
        .with(IO_PART, io_bytes(store, layout)?)
        .with("sort and merge buffers at their smallest", crate::sort::SORT_FLOOR))
}

/// What the budget calls an export's scan, id streams and output.
const IO_PART: &str = "layout scan, id streams and output buffers";

/// The layout's scan, two id streams (sources, and targets in an external
/// join) and the output's writer and line buffer.
fn io_bytes(store: &Store, layout: &str) -> Result<u64> {
    Ok(store.layout(layout)?.scan_bytes()? + 2 * outcore_store::ids::ID_STREAM_BYTES + Out::BYTES)
}

/// Export the store at `dir` to `path`.
pub fn export(dir: &Path, path: &Path, opts: &ExportOptions, progress: &dyn Progress) -> Result<ExportReport> {
    let started = std::time::Instant::now();
    let store = Store::open(dir)?;
    let m = store.manifest().clone();
    let n = m.vertices;
    if opts.layout != "out" && opts.layout != "in" {
        return Err(IngestError::Parameter { name: "layout".into(), reason: format!("is out or in, not '{}'", opts.layout) });
    }
    let minimum = minimum(&store, &opts.layout)?;
    minimum.check(opts.memory)?;
    let layout = store.layout(&opts.layout)?;
    let reverse = opts.layout == "in" && m.directed;
    let weighted = m.weighted && matches!(opts.format, ExportFormat::Wel | ExportFormat::Mtx | ExportFormat::Graphalytics);
    let budget = Budget::new(opts.memory);
    let _base = budget.reserve("program, thread stacks and allocator slack", PROCESS_BASELINE)?;
    let _io = budget.reserve(IO_PART, minimum.part(IO_PART))?;
    let ids = store.ids()?;
    let edges = if m.directed { m.arcs } else { m.edges };

    // the file(s) and their headers
    let (edge_path, vertex_path, props_path) = match opts.format {
        ExportFormat::Graphalytics => {
            let stem = path.with_extension("");
            (stem.with_extension("e"), Some(stem.with_extension("v")), Some(stem.with_extension("properties")))
        }
        _ => (path.to_path_buf(), None, None),
    };
    // every file is allowed by the output policy before any is written
    for p in std::iter::once(&edge_path).chain(vertex_path.iter()).chain(props_path.iter()) {
        check_output(p, OutputKind::File, opts.force, &[dir])?;
    }
    let mut out = Out::create(&edge_path)?;
    if opts.format == ExportFormat::Mtx {
        // ids as they are: 1-based, rows = the largest id
        let (mut min, mut max) = (u64::MAX, 0u64);
        let mut s = ids.stream()?;
        while let Some(x) = s.next_id()? {
            (min, max) = (min.min(x), max.max(x));
        }
        if n > 0 && min == 0 {
            return Err(IngestError::Parameter {
                name: "format".into(),
                reason: "mtx ids are 1-based and this store has vertex 0; export as el, wel or graphalytics".into(),
            });
        }
        let field = if weighted { "real" } else { "pattern" };
        let symmetry = if m.directed { "general" } else { "symmetric" };
        let _ = writeln!(out.buf, "%%MatrixMarket matrix coordinate {field} {symmetry}");
        let _ = writeln!(out.buf, "% exported by outcore from {}", dir.display());
        let _ = writeln!(out.buf, "{max} {max} {edges}");
    }
    let mut writer = EdgeWriter { format: opts.format, weighted, out };

    // targets: the whole map if it fits, else an external join
    let fits = budget.available() >= n * 8 + (8 << 20);
    let map = if ids.is_identity() || !fits { None } else { Some(store.id_map(&budget)?) };
    let external = !ids.is_identity() && !fits;
    let mut written = 0u64;
    let mut sources = ids.stream()?;
    let mut scan = layout.scan()?;
    let keep = |u: u64, v: u64| m.directed || u <= v;
    if !external {
        let target = |v: u64| match &map {
            Some(map) => map.original(v),
            None => v + m.id_base,
        };
        let mut done = Counter::new(progress, "export", m.arcs);
        while let Some((u, targets, ws)) = scan.next_list()? {
            done.add(targets.len() as u64);
            let ou = next(&mut sources, &store)?;
            for (k, &v) in targets.iter().enumerate() {
                if !keep(u, v) {
                    continue;
                }
                let w = ws.get(k).copied().unwrap_or(1.0);
                let (a, b) = if reverse { (target(v), ou) } else { (ou, target(v)) };
                writer.edge(a, b, w)?;
                written += 1;
            }
        }
    } else {
        let tmp = tempdir_beside(&edge_path)?;
        let mut sorter = ExternalSorter::new(tmp.path(), "export", &budget, budget.available() / 2, false)?;
        let mut done = Counter::new(progress, "export: read", m.arcs);
        while let Some((u, targets, ws)) = scan.next_list()? {
            done.add(targets.len() as u64);
            let ou = next(&mut sources, &store)?;
            for (k, &v) in targets.iter().enumerate() {
                if keep(u, v) {
                    sorter.push(WideEdge { source: v, target: ou, weight: ws.get(k).map_or(1.0f32.to_bits(), |w| w.to_bits()) })?;
                }
            }
        }
        // the scan and the sources' ids are done with: the merge has their room
        drop((scan, sources));
        let mut sorted = sorter.finish()?;
        let mut targets = ids.stream()?;
        let (mut at, mut original) = (0u64, next(&mut targets, &store)?);
        let mut done = Counter::new(progress, "export: write", edges);
        while let Some(e) = sorted.next()? {
            done.add(1);
            while at < e.source {
                original = next(&mut targets, &store)?;
                at += 1;
            }
            let (a, b) = if reverse { (original, e.target) } else { (e.target, original) };
            writer.edge(a, b, f32::from_bits(e.weight))?;
            written += 1;
        }
    }
    drop(map);
    let mut bytes = writer.out.finish()?;
    let mut files = vec![edge_path.clone()];
    if let (Some(vp), Some(pp)) = (vertex_path, props_path) {
        let mut v = Out::create(&vp)?;
        let mut s = ids.stream()?;
        while let Some(x) = s.next_id()? {
            let _ = writeln!(v.buf, "{x}");
            v.flush_if_full()?;
        }
        bytes += v.finish()?;
        let name = pp.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let file_name = |p: &Path| p.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
        let mut text = format!(
            "# exported by outcore from {}\ngraph.{name}.vertex-file = {}\ngraph.{name}.edge-file = {}\ngraph.{name}.meta.vertices = {n}\ngraph.{name}.meta.edges = {written}\ngraph.{name}.directed = {}\n",
            dir.display(),
            file_name(&vp),
            file_name(&edge_path),
            m.directed
        );
        if weighted {
            text.push_str(&format!("graph.{name}.edge-properties.names = weight\ngraph.{name}.edge-properties.types = real\n"));
        }
        let mut p = Out::create(&pp)?;
        p.buf.extend_from_slice(text.as_bytes());
        bytes += p.finish()?;
        files.push(vp);
        files.push(pp);
    }
    Ok(ExportReport {
        files,
        format: opts.format.name().into(),
        vertices: n,
        edges: written,
        weighted,
        external_join: external,
        bytes,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// A staging directory beside `path` (removed when dropped).
fn tempdir_beside(path: &Path) -> Result<TempArea> {
    Ok(TempArea::create(&parent_of(path), "export")?)
}
