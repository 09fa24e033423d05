//! The native module of the `outcore` Python package: the library API
//! (`outcore::Graph`, `outcore::import`) with numpy arrays in and out.
//! Every call releases the GIL while it works and turns Ctrl-C into the
//! library's interrupt, so the work unwinds and removes what it was
//! writing; errors become the package's exception classes by their kind.
//! The Python side (`python/outcore/`) adds the per-algorithm methods, the
//! input conversions (numpy, pandas, scipy) and the networkx backend.

use numpy::{IntoPyArray, PyArray1, PyArrayMethods, PyReadonlyArray1};
use outcore::{Args, Entry, ErrorKind, RunOptions};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyKeyboardInterrupt};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::io::Write;
use std::path::PathBuf;
use std::sync::{mpsc, Arc};
use std::time::Duration;

create_exception!(
    _outcore,
    OutcoreError,
    PyException,
    "Base class of every error outcore raises; the message says what failed and what fixes it."
);
create_exception!(_outcore, BudgetError, OutcoreError, "The memory budget is too small for a step; `suggested_memory` (bytes) would do.");
create_exception!(_outcore, ParameterError, OutcoreError, "A parameter, option or algorithm name is wrong.");
create_exception!(_outcore, InputError, OutcoreError, "An input file or array is malformed (the message names the file and line).");
create_exception!(_outcore, StoreError, OutcoreError, "A store is missing, damaged or not what the call needs.");
create_exception!(_outcore, LayoutError, StoreError, "The store lacks a layout the call needs (the message says which command adds it).");
create_exception!(_outcore, ExistsError, OutcoreError, "The output exists; pass force=True to replace it.");
create_exception!(_outcore, UnsupportedError, OutcoreError, "No engine can run this here (the message says why).");
create_exception!(_outcore, OutcoreIOError, OutcoreError, "Reading or writing a file failed (full disk, permissions).");

/// The Python exception for a library error.
fn to_py(e: outcore::Error) -> PyErr {
    let msg = e.to_string();
    match e.kind() {
        ErrorKind::Budget => {
            let err = BudgetError::new_err(msg);
            if let Some(bytes) = e.suggested_memory() {
                Python::attach(|py| {
                    let _ = err.value(py).setattr("suggested_memory", bytes);
                });
            }
            err
        }
        ErrorKind::Parameter => ParameterError::new_err(msg),
        ErrorKind::Input => InputError::new_err(msg),
        ErrorKind::Store => StoreError::new_err(msg),
        ErrorKind::Layout => LayoutError::new_err(msg),
        ErrorKind::Exists => ExistsError::new_err(msg),
        ErrorKind::Unsupported => UnsupportedError::new_err(msg),
        ErrorKind::Interrupted => PyKeyboardInterrupt::new_err(msg),
        ErrorKind::Io => OutcoreIOError::new_err(msg),
    }
}

/// Run `work` on its own thread with the GIL released; every 50 ms look
/// for a pending signal. On KeyboardInterrupt, ask the library to stop,
/// wait for the work to unwind (it removes its staging files), and raise.
fn interruptible<T: Send + 'static>(py: Python<'_>, work: impl FnOnce() -> Result<T, outcore::Error> + Send + 'static) -> PyResult<T> {
    let (tx, rx) = mpsc::channel();
    let worker = std::thread::Builder::new()
        .name("outcore".into())
        .spawn(move || {
            let _ = tx.send(work());
        })
        .map_err(|e| OutcoreIOError::new_err(format!("cannot start a worker thread: {e}")))?;
    // the receiver is not Sync; the wait borrows it from a detached closure
    let rx = std::sync::Mutex::new(rx);
    let mut interrupt: Option<PyErr> = None;
    let outcome = loop {
        match py.detach(|| rx.lock().map_err(|_| mpsc::RecvTimeoutError::Disconnected)?.recv_timeout(Duration::from_millis(50))) {
            Ok(r) => break Some(r),
            Err(mpsc::RecvTimeoutError::Disconnected) => break None,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if interrupt.is_none() {
                    if let Err(e) = py.check_signals() {
                        outcore::request_interrupt(libc_sigint());
                        interrupt = Some(e);
                    }
                }
            }
        }
    };
    let _ = py.detach(|| worker.join());
    if let Some(e) = interrupt {
        outcore::clear_interrupt();
        return Err(e);
    }
    match outcome {
        Some(r) => r.map_err(to_py),
        None => Err(OutcoreError::new_err("internal error: the work stopped without a result (a panic, printed above; please report it)")),
    }
}

fn libc_sigint() -> i32 {
    2
}

/// The library's default budget (`RunOptions`' and the command's).
const DEFAULT_MEMORY: u64 = 1 << 30;

/// A budget argument in bytes: None is the default, an int is bytes, text
/// is a size (`512M`) as the command parses it.
#[pyfunction]
#[pyo3(signature = (memory=None))]
fn memory_bytes(memory: Option<Bound<'_, PyAny>>) -> PyResult<u64> {
    match memory {
        Some(m) => parse_memory(&m),
        None => Ok(DEFAULT_MEMORY),
    }
}

fn parse_memory(memory: &Bound<'_, PyAny>) -> PyResult<u64> {
    if let Ok(n) = memory.extract::<u64>() {
        return Ok(n);
    }
    let text: String =
        memory.extract().map_err(|_| ParameterError::new_err("memory: give bytes as an int or a size such as '512M' or '4G'"))?;
    outcore::parse_size(&text).map_err(|e| ParameterError::new_err(format!("memory: {e}")))
}

/// Import an edge file into a new store (the same external-memory import
/// as `outcore import`); returns the import report as a JSON string.
#[pyfunction]
#[pyo3(signature = (source, store, *, format=None, directed=None, weighted=false, unweighted=false, dedup=true,
    self_loops=None, in_layout=false, encoding=None, num_vertices=None, force=false, memory=None, progress=true, order=None,
    bipartite=false))]
#[allow(clippy::too_many_arguments)]
fn import_file(
    py: Python<'_>,
    source: PathBuf,
    store: PathBuf,
    format: Option<String>,
    directed: Option<bool>,
    weighted: bool,
    unweighted: bool,
    dedup: bool,
    self_loops: Option<String>,
    in_layout: bool,
    encoding: Option<String>,
    num_vertices: Option<u64>,
    force: bool,
    memory: Option<Bound<'_, PyAny>>,
    progress: bool,
    order: Option<String>,
    bipartite: bool,
) -> PyResult<String> {
    let mut opts = outcore::import::ImportOptions { bipartite, ..Default::default() };
    let order = match order {
        None => outcore::import::VertexOrder::None,
        Some(o) => outcore::import::VertexOrder::from_name(&o)
            .ok_or_else(|| ParameterError::new_err(format!("order: unknown order '{o}' (none, dfs, degree, bfs, rcm)")))?,
    };
    let bad = |name: &str, e: &dyn std::fmt::Display| ParameterError::new_err(format!("{name}: {e}"));
    if let Some(f) = format {
        opts.format = Some(outcore::import::Format::from_name(&f).ok_or_else(|| {
            bad("format", &format!("unknown format '{f}' (text, el, wel, mtx, metis, graphalytics, bin32, bin64, webgraph)"))
        })?);
    }
    opts.directed = directed;
    opts.weighted = weighted;
    opts.unweighted = unweighted;
    opts.dedup = dedup;
    if let Some(s) = self_loops {
        opts.self_loops = match s.as_str() {
            "keep" => outcore::import::SelfLoops::Keep,
            "drop" => outcore::import::SelfLoops::Drop,
            other => return Err(bad("self_loops", &format!("'{other}' is neither 'keep' nor 'drop'"))),
        };
    }
    opts.in_layout = in_layout;
    if let Some(e) = encoding {
        opts.encoding = Some(
            outcore::Encoding::from_name(&e)
                .ok_or_else(|| bad("encoding", &format!("unknown encoding '{e}' ({})", outcore::Encoding::names())))?,
        );
    }
    opts.num_vertices = num_vertices;
    opts.force = force;
    if let Some(m) = memory {
        opts.memory = parse_memory(&m)?;
    }
    interruptible(py, move || {
        outcore::pin_allocator();
        let bars = outcore::progress::Bars::new(!progress);
        let report = outcore::import::import_ordered(&store, &[&source], &opts, order, &bars, |store, opts| {
            Ok(outcore::import::import_file(&source, store, opts, &bars)?)
        })?;
        Ok(serde_json::to_string(&report).unwrap_or_default())
    })
}

/// Write a store's edges back out in original ids (`outcore export`):
/// `el`, `wel`, `bin32`, `bin64`, `mtx` or `graphalytics`. Returns the
/// edges written.
#[pyfunction]
#[pyo3(signature = (store, path, *, format="el", layout="out", memory=None, force=false, progress=true))]
#[allow(clippy::too_many_arguments)]
fn export(
    py: Python<'_>,
    store: PathBuf,
    path: PathBuf,
    format: &str,
    layout: &str,
    memory: Option<Bound<'_, PyAny>>,
    force: bool,
    progress: bool,
) -> PyResult<u64> {
    let mut opts = outcore::import::ExportOptions {
        format: outcore::import::ExportFormat::from_name(format).ok_or_else(|| {
            ParameterError::new_err(format!("format: unknown export format '{format}' (el, wel, bin32, bin64, mtx, graphalytics)"))
        })?,
        layout: layout.to_string(),
        force,
        ..Default::default()
    };
    if let Some(m) = memory {
        opts.memory = parse_memory(&m)?;
    }
    interruptible(py, move || {
        let report = outcore::import::export(&store, &path, &opts, &outcore::progress::Bars::new(!progress))?;
        Ok(report.edges)
    })
}

/// Add a layout (`in`, `tiles`, `hot`) to a store, as `outcore layout add`.
#[pyfunction]
#[pyo3(signature = (store, layout, *, memory=None, progress=true))]
fn add_layout(py: Python<'_>, store: PathBuf, layout: String, memory: Option<Bound<'_, PyAny>>, progress: bool) -> PyResult<()> {
    let memory = memory_bytes(memory)?;
    interruptible(py, move || {
        outcore::pin_allocator();
        outcore::import::add_layout(&store, &layout, memory, &outcore::progress::Bars::new(!progress))
    })
}

/// Write `src dst [weight]` lines (a `.el` or `.wel` file) from numpy
/// arrays, for `import_graph` of arrays, DataFrames and sparse matrices.
#[pyfunction]
#[pyo3(signature = (path, src, dst, weight=None))]
fn write_edge_file(
    py: Python<'_>,
    path: PathBuf,
    src: PyReadonlyArray1<'_, u64>,
    dst: PyReadonlyArray1<'_, u64>,
    weight: Option<PyReadonlyArray1<'_, f64>>,
) -> PyResult<u64> {
    let src = src.as_slice().map_err(|e| InputError::new_err(format!("src: {e}")))?;
    let dst = dst.as_slice().map_err(|e| InputError::new_err(format!("dst: {e}")))?;
    let weight = match &weight {
        Some(w) => Some(w.as_slice().map_err(|e| InputError::new_err(format!("weight: {e}")))?),
        None => None,
    };
    if src.len() != dst.len() || weight.is_some_and(|w| w.len() != src.len()) {
        return Err(InputError::new_err("src, dst and weight must have the same length"));
    }
    py.detach(|| -> std::io::Result<u64> {
        let file = std::fs::OpenOptions::new().write(true).create_new(true).open(&path)?;
        let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
        for i in 0..src.len() {
            match weight {
                Some(w) => writeln!(out, "{} {} {:?}", src[i], dst[i], w[i])?,
                None => writeln!(out, "{} {}", src[i], dst[i])?,
            }
        }
        out.flush()?;
        Ok(src.len() as u64)
    })
    .map_err(|e| OutcoreIOError::new_err(format!("{}: {e}", path.display())))
}

/// The registry: one dict per algorithm (name, title, about, params,
/// engines, columns).
#[pyfunction]
fn algorithms(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let list = PyList::empty(py);
    for alg in outcore::registry::ALGORITHMS {
        let info = alg.info();
        let d = PyDict::new(py);
        d.set_item("name", info.name)?;
        d.set_item("title", info.title)?;
        d.set_item("about", info.about)?;
        let params = PyList::empty(py);
        for p in info.params {
            let pd = PyDict::new(py);
            pd.set_item("name", p.name)?;
            pd.set_item("kind", param_kind(p.kind))?;
            if let outcore::ParamKind::Choice(choices) = p.kind {
                pd.set_item("choices", choices.to_vec())?;
            }
            pd.set_item("default", p.default)?;
            pd.set_item("help", p.help)?;
            params.append(pd)?;
        }
        d.set_item("params", params)?;
        d.set_item("engines", info.engines.iter().map(|e| e.to_string()).collect::<Vec<_>>())?;
        d.set_item("columns", info.columns.iter().map(|c| c.name).collect::<Vec<_>>())?;
        list.append(d)?;
    }
    Ok(list)
}

fn param_kind(kind: outcore::ParamKind) -> &'static str {
    use outcore::ParamKind::*;
    match kind {
        Vertex => "vertex",
        Vertices => "vertices",
        Count => "count",
        Real => "real",
        Choice(_) => "choice",
        Text => "text",
        VertexFile => "vertex_file",
        Switch => "switch",
    }
}

/// A store opened for analytics (`outcore.open` wraps it).
#[pyclass(module = "outcore._outcore", frozen)]
struct Graph {
    inner: Arc<outcore::Graph>,
}

fn options(memory: Option<Bound<'_, PyAny>>, engine: &str, progress: bool) -> PyResult<RunOptions> {
    let mut opts = RunOptions::default();
    if let Some(m) = memory {
        opts.memory = parse_memory(&m)?;
    }
    opts.engine = engine.parse().map_err(|e| ParameterError::new_err(format!("engine: {e}")))?;
    opts.progress = Some(Arc::new(outcore::progress::Bars::new(!progress)));
    Ok(opts)
}

fn args_of(params: Option<&Bound<'_, PyDict>>) -> PyResult<Args> {
    let mut args = Args::new();
    if let Some(params) = params {
        for (k, v) in params.iter() {
            let name: String = k.extract()?;
            if let Ok(values) = v.extract::<Vec<String>>() {
                for x in values {
                    args.set(&name, x);
                }
            } else {
                args.set(&name, v.extract::<String>()?);
            }
        }
    }
    Ok(args)
}

/// A column in original ids: integers (levels, counts) and vertices as
/// int64 with -1 for "not reached", reals as float64.
enum Values {
    Int(Vec<i64>),
    Real(Vec<f64>),
    /// A vector result (ALS's factors): `width` f32 a vertex, row by row.
    Matrix(Vec<f32>, usize),
}

/// A vector result in memory, row by row.
fn vector_values(results: &outcore::Results, name: &str) -> Result<Values, outcore::Error> {
    let width = results.vectors(name).map_or(0, |v| v.width);
    let mut out = Vec::new();
    results.for_each_vector(name, |_, _, x| out.extend_from_slice(x))?;
    Ok(Values::Matrix(out, width))
}

/// A vector result as an `n x width` `.npy` file of f32, streaming.
fn write_npy_vectors(results: &outcore::Results, name: &str, n: u64, path: &std::path::Path) -> Result<(), outcore::Error> {
    let width = results.vectors(name).map_or(0, |v| v.width);
    let io = io_error(path);
    let mut out = npy_writer(path, "<f4", &format!("({n}, {width})"))?;
    let mut failed = None;
    results.for_each_vector(name, |_, _, x| {
        if failed.is_none() {
            failed = x.iter().try_for_each(|v| out.write_all(&v.to_le_bytes())).err();
        }
    })?;
    if let Some(e) = failed {
        return Err(io(e));
    }
    out.flush().map_err(&io)
}

fn column_values(results: &outcore::Results, name: &str, n: usize) -> Result<Values, outcore::Error> {
    let real = results.column(name)?.kind == outcore::ValueKind::Real;
    let mut ints = Vec::with_capacity(if real { 0 } else { n });
    let mut reals = Vec::with_capacity(if real { n } else { 0 });
    results.for_each(name, |_, e| match e {
        Entry::Real(x) => reals.push(x),
        Entry::Unreached => {
            if real {
                reals.push(f64::INFINITY)
            } else {
                ints.push(-1)
            }
        }
        Entry::Integer(x) | Entry::Vertex(x) => ints.push(i64::try_from(x).unwrap_or(-1)),
    })?;
    Ok(if real { Values::Real(reals) } else { Values::Int(ints) })
}

/// Write a column as a `.npy` file, streaming (for results larger than memory).
fn write_npy(results: &outcore::Results, name: &str, n: u64, path: &std::path::Path) -> Result<(), outcore::Error> {
    let real = results.column(name)?.kind == outcore::ValueKind::Real;
    let io = io_error(path);
    let mut out = npy_writer(path, if real { "<f8" } else { "<i8" }, &format!("({n},)"))?;
    let mut failed = None;
    results.for_each(name, |_, e| {
        if failed.is_some() {
            return;
        }
        let bytes = match e {
            Entry::Real(x) => x.to_le_bytes(),
            Entry::Unreached if real => f64::INFINITY.to_le_bytes(),
            Entry::Unreached => (-1i64).to_le_bytes(),
            Entry::Integer(x) | Entry::Vertex(x) => i64::try_from(x).unwrap_or(-1).to_le_bytes(),
        };
        failed = out.write_all(&bytes).err();
    })?;
    if let Some(e) = failed {
        return Err(io(e));
    }
    out.flush().map_err(&io)
}

/// A write error on `path` as the library's error.
fn io_error(path: &std::path::Path) -> impl Fn(std::io::Error) -> outcore::Error + '_ {
    move |e| outcore::Error::from(outcore::StoreError::Io(outcore::IoError::new(path, "write", e)))
}

/// A new `.npy` file of `n` values of `descr`, its header written.
fn npy_writer(path: &std::path::Path, descr: &str, shape: &str) -> Result<std::io::BufWriter<std::fs::File>, outcore::Error> {
    let io = io_error(path);
    let file = std::fs::OpenOptions::new().write(true).create_new(true).open(path).map_err(&io)?;
    let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
    out.write_all(&npy_header(descr, shape)).map_err(&io)?;
    Ok(out)
}

/// The header of a version 1.0 `.npy` file of `n` values of `descr`.
fn npy_header(descr: &str, shape: &str) -> Vec<u8> {
    let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    let unpadded = 10 + dict.len() + 1;
    let pad = (64 - unpadded % 64) % 64;
    let len = dict.len() + pad + 1;
    let mut h = b"\x93NUMPY\x01\x00".to_vec();
    h.extend_from_slice(&(len as u16).to_le_bytes());
    h.extend_from_slice(dict.as_bytes());
    h.extend(std::iter::repeat_n(b' ', pad));
    h.push(b'\n');
    h
}

#[pymethods]
impl Graph {
    /// Open the store at `path`.
    #[new]
    fn new(path: PathBuf) -> PyResult<Self> {
        let g = outcore::Graph::open(&path).map_err(to_py)?;
        Ok(Graph { inner: Arc::new(g) })
    }
    #[getter]
    fn num_vertices(&self) -> u64 {
        self.inner.vertices()
    }
    #[getter]
    fn num_edges(&self) -> u64 {
        self.inner.edges()
    }
    #[getter]
    fn directed(&self) -> bool {
        self.inner.directed()
    }
    #[getter]
    fn weighted(&self) -> bool {
        self.inner.weighted()
    }
    #[getter]
    fn layouts(&self) -> Vec<String> {
        self.inner.layouts()
    }
    #[getter]
    fn path(&self) -> PathBuf {
        self.inner.store().dir().to_path_buf()
    }
    /// The store's manifest as a JSON string.
    fn manifest_json(&self) -> String {
        serde_json::to_string(self.inner.store().manifest()).unwrap_or_default()
    }

    /// The original id of every vertex, in the store's order (the order of
    /// every result array). With `path`, written there as a `.npy` file
    /// instead (for id maps larger than memory).
    #[pyo3(signature = (path=None))]
    fn vertices<'py>(&self, py: Python<'py>, path: Option<PathBuf>) -> PyResult<Option<Bound<'py, PyArray1<i64>>>> {
        let g = self.inner.clone();
        let n = g.vertices();
        let ids = interruptible(py, move || -> Result<Option<Vec<i64>>, outcore::Error> {
            let ids = g.store().ids()?;
            let mut stream = ids.stream()?;
            match path {
                None => {
                    let mut out = Vec::with_capacity(n as usize);
                    while let Some(v) = stream.next_id()? {
                        out.push(i64::try_from(v).unwrap_or(-1));
                    }
                    Ok(Some(out))
                }
                Some(path) => {
                    let io = io_error(&path);
                    let mut out = npy_writer(&path, "<i8", &format!("({n},)"))?;
                    while let Some(v) = stream.next_id()? {
                        out.write_all(&i64::try_from(v).unwrap_or(-1).to_le_bytes()).map_err(&io)?;
                    }
                    out.flush().map_err(&io)?;
                    Ok(None)
                }
            }
        })?;
        Ok(ids.map(|v| v.into_pyarray(py)))
    }

    /// Degree statistics (min, max, mean, power-of-two histogram, the `top`
    /// highest in original ids; in-degrees too for a directed graph) as JSON.
    #[pyo3(signature = (top=5, memory=None))]
    fn degree_summary_json(&self, py: Python<'_>, top: usize, memory: Option<Bound<'_, PyAny>>) -> PyResult<String> {
        let memory = memory_bytes(memory)?;
        let g = self.inner.clone();
        interruptible(py, move || Ok(serde_json::to_string(&g.degree_summary(top, memory)?).unwrap_or_default()))
    }

    /// The plan `name` would follow, as a JSON string.
    #[pyo3(signature = (name, params=None, memory=None, engine="auto"))]
    fn plan(
        &self,
        py: Python<'_>,
        name: String,
        params: Option<&Bound<'_, PyDict>>,
        memory: Option<Bound<'_, PyAny>>,
        engine: &str,
    ) -> PyResult<String> {
        let args = args_of(params)?;
        let opts = options(memory, engine, false)?;
        let g = self.inner.clone();
        interruptible(py, move || Ok(serde_json::to_string(&g.plan(&name, &args, &opts)?).unwrap_or_default()))
    }

    /// Run the algorithm `name` with `params` (name -> text or list of
    /// text). Returns (report as JSON, {column: numpy array}); with
    /// `out_dir`, each column is written there as `<column>.npy` instead
    /// and the dict holds the paths.
    #[pyo3(signature = (name, params=None, memory=None, engine="auto", progress=true, verify=false, out_dir=None))]
    #[allow(clippy::too_many_arguments)]
    fn run<'py>(
        &self,
        py: Python<'py>,
        name: String,
        params: Option<&Bound<'py, PyDict>>,
        memory: Option<Bound<'py, PyAny>>,
        engine: &str,
        progress: bool,
        verify: bool,
        out_dir: Option<PathBuf>,
    ) -> PyResult<(String, Bound<'py, PyDict>)> {
        let args = args_of(params)?;
        let opts = options(memory, engine, progress)?;
        let g = self.inner.clone();
        let n = g.vertices();
        let (report, columns, files) = interruptible(py, move || {
            outcore::pin_allocator();
            let results = g.run_named(&name, &args, &opts)?;
            let mut report = results.report_json();
            if verify {
                let v = results.verify()?;
                report["validation"] = serde_json::json!({ "passed": v.passed, "method": v.method, "detail": v.detail });
            }
            let mut columns = Vec::new();
            let mut files = Vec::new();
            for c in results.columns() {
                match &out_dir {
                    Some(dir) => {
                        let path = dir.join(format!("{c}.npy"));
                        if results.vectors(c).is_some() {
                            write_npy_vectors(&results, c, n, &path)?;
                        } else {
                            write_npy(&results, c, n, &path)?;
                        }
                        files.push((c, path));
                    }
                    None if results.vectors(c).is_some() => columns.push((c, vector_values(&results, c)?)),
                    None => columns.push((c, column_values(&results, c, n as usize)?)),
                }
            }
            Ok((serde_json::to_string(&report).unwrap_or_default(), columns, files))
        })?;
        let out = PyDict::new(py);
        for (c, values) in columns {
            match values {
                Values::Int(v) => out.set_item(c, v.into_pyarray(py))?,
                Values::Real(v) => out.set_item(c, v.into_pyarray(py))?,
                Values::Matrix(v, width) => {
                    let rows = v.len() / width.max(1);
                    out.set_item(c, v.into_pyarray(py).reshape([rows, width])?)?
                }
            }
        }
        for (c, path) in files {
            out.set_item(c, path)?;
        }
        Ok((report, out))
    }
}

/// The native module.
#[pymodule]
fn _outcore(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_function(wrap_pyfunction!(import_file, m)?)?;
    m.add_function(wrap_pyfunction!(write_edge_file, m)?)?;
    m.add_function(wrap_pyfunction!(add_layout, m)?)?;
    m.add_function(wrap_pyfunction!(export, m)?)?;
    m.add_function(wrap_pyfunction!(memory_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms, m)?)?;
    m.add_class::<Graph>()?;
    m.add("OutcoreError", py.get_type::<OutcoreError>())?;
    m.add("BudgetError", py.get_type::<BudgetError>())?;
    m.add("ParameterError", py.get_type::<ParameterError>())?;
    m.add("InputError", py.get_type::<InputError>())?;
    m.add("StoreError", py.get_type::<StoreError>())?;
    m.add("LayoutError", py.get_type::<LayoutError>())?;
    m.add("ExistsError", py.get_type::<ExistsError>())?;
    m.add("UnsupportedError", py.get_type::<UnsupportedError>())?;
    m.add("OutcoreIOError", py.get_type::<OutcoreIOError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
