//! The Graph500 benchmark on the traverse engine (graph500.org,
//! specification 3.0): the Kronecker edge list (with uniform [0,1)
//! weights for kernel 3) is generated into a file first, timed apart as
//! the spec's generation; kernel 1 builds the store from it and the
//! hybrid BFS's in-memory neighbours; kernel 2 runs hybrid BFS and kernel 3
//! Dijkstra from the same random roots of degree >= 1; every result is
//! validated by the five rules; the statistics follow the reference code.

use crate::Error;
use outcore_algorithms::bfs::{hybrid_bfs, HybridEngines, HybridOptions};
use outcore_algorithms::graph500::{statistics, validate_bfs, validate_sssp, Statistics};
use outcore_algorithms::run::open_budget;
use outcore_algorithms::sssp::{sssp, ShortestPaths};
use outcore_engines::TraverseOptions;
use outcore_ingest::generate::{Generator, Kronecker};
use outcore_ingest::{import_from, ImportOptions};
use outcore_io::Progress;
use outcore_store::{Store, StoreError};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

/// How to run the benchmark.
#[derive(Clone, Debug)]
pub struct Options {
    /// 2^scale vertices.
    pub scale: u32,
    /// Edges per vertex generated.
    pub edge_factor: u64,
    /// Search roots (distinct, of degree >= 1).
    pub roots: usize,
    /// The generator's and the root sample's seed.
    pub seed: u64,
    /// The budget of every kernel, page cache included.
    pub memory: u64,
    /// Where the store goes (default: a temporary directory, removed after).
    pub dir: Option<PathBuf>,
    /// Replace an outcore store already at `dir` (never anything else).
    pub force: bool,
    /// Whether to run kernel 3.
    pub sssp: bool,
    /// The traverse engine's block size, depth and prefetch.
    pub traverse: TraverseOptions,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            scale: 16,
            edge_factor: 16,
            roots: 64,
            seed: 1,
            memory: 1 << 30,
            dir: None,
            force: false,
            sssp: true,
            traverse: TraverseOptions { depth: outcore_io::probe::recorded_depth().unwrap_or(64).max(1), ..Default::default() },
        }
    }
}

/// One kernel's samples: seconds, `nedge` (the spec's: input edges, with
/// duplicates and self loops, in the root's component)
/// and validation seconds per root.
#[derive(Clone, Debug, Default)]
pub struct Kernel {
    /// Seconds of each search.
    pub times: Vec<f64>,
    /// Edges of each root's component (Graph500's `nedge`).
    pub nedges: Vec<f64>,
    /// Seconds of each validation.
    pub validation: Vec<f64>,
}

impl Kernel {
    /// Statistics of the search times.
    pub fn time(&self) -> Statistics {
        statistics(&self.times)
    }
    /// Statistics of `nedge`.
    pub fn nedge(&self) -> Statistics {
        statistics(&self.nedges)
    }
    /// Statistics of the traversed edges per second (`nedge / time`).
    pub fn teps(&self) -> Statistics {
        statistics(&self.nedges.iter().zip(&self.times).map(|(e, t)| e / t).collect::<Vec<_>>())
    }
    /// Statistics of the validation times.
    pub fn validate(&self) -> Statistics {
        statistics(&self.validation)
    }
}

/// What a run measured.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Roots searched.
    pub roots: usize,
    /// Generating the edge list (weights included) into a file.
    pub generation_seconds: f64,
    /// Kernel 1: the store built from that edge list, and the hybrid BFS's
    /// in-memory lists.
    pub construction_seconds: f64,
    /// Kernel 2: hybrid BFS.
    pub bfs: Kernel,
    /// Kernel 3: Dijkstra, unless turned off.
    pub sssp: Option<Kernel>,
    /// io_uring or pread.
    pub io_backend: String,
    /// In-memory in-neighbours per vertex of the hybrid BFS.
    pub hot_neighbours: u32,
    /// The block cache's size.
    pub cache_bytes: u64,
    /// The block cache's hit rate.
    pub cache_hit_rate: f64,
}

/// Run the benchmark. A result that breaks a rule is an error naming the
/// root and the rule.
pub fn run(opts: &Options, progress: &dyn Progress) -> Result<Outcome, Error> {
    if !(1..=32).contains(&opts.scale) {
        return Err(StoreError::parameter("scale", "must be between 1 and 32").into());
    }
    if opts.roots == 0 {
        return Err(StoreError::parameter("roots", "must be at least 1").into());
    }
    // removed at the end, on an error and on Ctrl-C
    let tmp = outcore_io::TempArea::create(&std::env::temp_dir(), "graph500")?;
    let path = opts.dir.clone().unwrap_or_else(|| tmp.file("graph500.store"));

    let (budget, _base) = open_budget(opts.memory)?;
    let n = 1u64 << opts.scale;
    // each vertex's count of input edge ends, for nedge (kept to the end)
    let degrees_charge = budget.reserve("Graph500 input degrees (nedge)", n * 4)?;

    // Generation (the spec times it apart from kernel 1): the edge list,
    // weights included, written beside the store.
    let t = Instant::now();
    let mut g = Kronecker::graph500(opts.scale, opts.edge_factor, opts.seed);
    g.weighted = opts.sssp;
    let beside = opts.dir.as_ref().and_then(|d| d.parent()).filter(|p| !p.as_os_str().is_empty()).unwrap_or(tmp.path());
    let list = outcore_io::staging::Staged::file(beside, "graph500-edges")?;
    let degrees = edge_list::write(&g, list.path(), n)?;
    let generation_seconds = t.elapsed().as_secs_f64();

    // Kernel 1: construction (the store from the edge list, and the hot lists).
    let t = Instant::now();
    // the import's budget is what the degrees leave (it counts its own baseline)
    let memory = opts.memory.saturating_sub(n * 4);
    let import = ImportOptions { directed: Some(false), weighted: opts.sssp, memory, force: opts.force, ..Default::default() };
    let edges = g.edges();
    let source = |sink: &mut dyn outcore_ingest::formats::EdgeSink,
                  p: &mut dyn FnMut(std::sync::Arc<std::sync::atomic::AtomicU64>, u64, bool)| {
        edge_list::read(list.path(), n, edges, opts.sssp, sink, p)
    };
    import_from(&source, &path, &import, BTreeMap::from([("generator".to_string(), "graph500 kronecker".to_string())]), progress)?;
    let store = Store::open(&path)?;
    let validation = n * 4 + n / 8 + 64;
    let state = outcore_algorithms::bfs::hybrid::state_bytes(n, store.manifest().arcs).max(if opts.sssp {
        ShortestPaths::state_bytes(n)
    } else {
        0
    }) + validation;
    // the searches from every root share lists built once, in the construction
    let HybridEngines { mut out, mut hot, .. } = HybridEngines::open(&store, &budget, &opts.traverse, state, opts.roots.max(2))?;
    let construction_seconds = t.elapsed().as_secs_f64();
    drop(list);
    // the spec's nedge: input edges (duplicates and self loops included) in
    // the root's component, half the input edge ends of its vertices
    let nedge = |reached: &dyn Fn(usize) -> bool| -> f64 {
        degrees.iter().enumerate().filter(|&(v, _)| reached(v)).map(|(_, &d)| d as u64).sum::<u64>() as f64 / 2.0
    };

    let roots = outcore_algorithms::sources::traverse_roots(&out, opts.roots, opts.seed ^ 0xB00F, None);
    let (mut bfs, mut sp) = (Kernel::default(), Kernel::default());
    progress.begin("graph500 roots", roots.len() as u64, false);
    for (k, &root) in roots.iter().enumerate() {
        let t = Instant::now();
        let (tree, _) = hybrid_bfs(&out, None, &mut hot, root, &budget, &HybridOptions::default())?;
        bfs.times.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        match validate_bfs(&store, root, &tree.parent, &tree.level, &budget)? {
            Ok(_) => bfs.nedges.push(nedge(&|v| tree.level[v] != outcore_algorithms::bfs::NONE)),
            Err(v) => return Err(StoreError::invalid(&path, format!("BFS from {root}: {v}")).into()),
        }
        bfs.validation.push(t.elapsed().as_secs_f64());
        drop(tree);
        if opts.sssp {
            let t = Instant::now();
            let paths = sssp(&mut out, root, &budget)?;
            sp.times.push(t.elapsed().as_secs_f64());
            let t = Instant::now();
            match validate_sssp(&store, root, &paths.parent, &paths.dist, &budget)? {
                Ok(_) => sp.nedges.push(nedge(&|v| paths.dist[v].is_finite())),
                Err(v) => return Err(StoreError::invalid(&path, format!("SSSP from {root}: {v}")).into()),
            }
            sp.validation.push(t.elapsed().as_secs_f64());
        }
        progress.set(k as u64 + 1);
    }
    progress.end();
    drop(degrees_charge);
    let s = out.stats();
    Ok(Outcome {
        roots: roots.len(),
        generation_seconds,
        construction_seconds,
        bfs,
        sssp: opts.sssp.then_some(sp),
        io_backend: s.io_backend.clone(),
        hot_neighbours: hot.k,
        cache_bytes: s.cache_bytes,
        cache_hit_rate: s.cache.hit_rate(),
    })
}

/// The head of the reference code's output: what ran, and where.
pub struct Block {
    /// 2^scale vertices.
    pub scale: u32,
    /// Edges generated per vertex.
    pub edge_factor: u64,
    /// Roots searched.
    pub roots: usize,
    /// Generating the edge list.
    pub generation_seconds: f64,
    /// MPI processes (1 on one machine).
    pub processes: usize,
    /// Kernel 1.
    pub construction_seconds: f64,
}

impl Block {
    /// The statistics block as the reference implementation prints it
    /// (`label:` padded to 32 columns, C's `%g`), kernel 2 and, if run, kernel 3.
    pub fn text(&self, bfs: &Kernel, sssp: Option<&Kernel>) -> String {
        let mut out = String::new();
        let mut line = |label: &str, value: String| out.push_str(&format!("{:<32}{value}\n", format!("{label}:")));
        line("SCALE", self.scale.to_string());
        line("edgefactor", self.edge_factor.to_string());
        line("NBFS", self.roots.to_string());
        line("graph_generation", fmt_g(self.generation_seconds, 6));
        line("num_mpi_processes", self.processes.to_string());
        line("construction_time", fmt_g(self.construction_seconds, 6));
        kernel_lines("bfs", bfs, &mut line);
        if let Some(sp) = sssp {
            kernel_lines("sssp", sp, &mut line);
        }
        out
    }
}

fn kernel_lines(kernel: &str, k: &Kernel, line: &mut impl FnMut(&str, String)) {
    let quartiles = |st: &Statistics| {
        [
            ("min", st.min),
            ("firstquartile", st.first_quartile),
            ("median", st.median),
            ("thirdquartile", st.third_quartile),
            ("max", st.max),
        ]
    };
    let t = k.time();
    for (name, x) in quartiles(&t).into_iter().chain([("mean", t.mean), ("stddev", t.stddev)]) {
        line(&format!("{kernel}  {name}_time"), fmt_g(x, 6));
    }
    let e = k.nedge();
    for (name, x) in quartiles(&e).into_iter().chain([("mean", e.mean), ("stddev", e.stddev)]) {
        line(&format!("{name}_nedge"), fmt_g(x, 11));
    }
    let p = k.teps();
    for (name, x) in quartiles(&p).into_iter().chain([("harmonic_mean", p.harmonic_mean), ("harmonic_stddev", p.harmonic_stddev)]) {
        line(&format!("{kernel}  {name}_TEPS"), fmt_g(x, 6));
    }
    let v = k.validate();
    for (name, x) in quartiles(&v).into_iter().chain([("mean", v.mean), ("stddev", v.stddev)]) {
        line(&format!("{kernel}  {name}_validate"), fmt_g(x, 6));
    }
}

/// C's `%.{digits}g`.
fn fmt_g(x: f64, digits: usize) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let exp = x.abs().log10().floor() as i32;
    let text = if exp < -4 || exp >= digits as i32 {
        let s = format!("{:.*e}", digits - 1, x);
        let (m, e) = s.split_once('e').unwrap();
        let m = if m.contains('.') { m.trim_end_matches('0').trim_end_matches('.') } else { m };
        let e: i32 = e.parse().unwrap();
        format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
    } else {
        let s = format!("{:.*}", (digits as i32 - 1 - exp).max(0) as usize, x);
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    text
}

#[cfg(test)]
mod tests {
    #[test]
    fn percent_g_like_c() {
        assert_eq!(super::fmt_g(0.000123456789, 6), "0.000123457");
        assert_eq!(super::fmt_g(1.5e-5, 6), "1.5e-05");
        assert_eq!(super::fmt_g(142873000.0, 6), "1.42873e+08");
        assert_eq!(super::fmt_g(213578.0, 11), "213578");
        assert_eq!(super::fmt_g(2.5, 6), "2.5");
    }
}

/// The generated edge list: 12-byte records (source, target as u32 and the
/// weight as f32, little-endian) in chunks that hold whole records.
mod edge_list {
    use outcore_ingest::formats::{Declared, EdgeSink, SinkError};
    use outcore_ingest::generate::{for_each_block, Generator};
    use outcore_ingest::IngestError;
    use outcore_io::{SeqReader, SeqWriter};
    use std::path::Path;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;

    const RECORD: usize = 12;
    /// 64 x 4 KiB x 3: a multiple of the record and of the direct-I/O block.
    const CHUNK: usize = RECORD * 4096 * 16;

    /// Write `g`'s edges to `path`; each vertex's count of edge ends
    /// (a self loop counts twice).
    pub fn write(g: &dyn Generator, path: &Path, n: u64) -> Result<Vec<u32>, IngestError> {
        let mut degrees = vec![0u32; n as usize];
        let mut w = SeqWriter::scratch(path, CHUNK)?;
        let mut buf = Vec::with_capacity(CHUNK);
        for_each_block(g, |start, block| {
            buf.clear();
            for (i, &(s, t)) in block.iter().enumerate() {
                degrees[s as usize] += 1;
                degrees[t as usize] += 1;
                buf.extend_from_slice(&(s as u32).to_le_bytes());
                buf.extend_from_slice(&(t as u32).to_le_bytes());
                buf.extend_from_slice(&g.weight(start + i as u64).to_le_bytes());
            }
            Ok(w.write_bytes(&buf)?)
        })?;
        w.finish()?;
        Ok(degrees)
    }

    /// Stream the file written by [`write`] into `sink`.
    pub fn read(
        path: &Path,
        n: u64,
        edges: u64,
        weighted: bool,
        sink: &mut dyn EdgeSink,
        progress: &mut dyn FnMut(Arc<AtomicU64>, u64, bool),
    ) -> Result<(), IngestError> {
        let at = |e: SinkError| match e {
            SinkError::Reject(r) => IngestError::Usage(format!("{}: {r}", path.display())),
            SinkError::Abort(e) => e,
        };
        let done = Arc::new(AtomicU64::new(0));
        progress(done.clone(), edges, false);
        sink.declare(&Declared { directed: None, weighted, vertex_range: Some((0, n)), vertex_list: false, edges_hint: Some(edges) })
            .map_err(at)?;
        sink.vertices_done().map_err(at)?;
        let mut r = SeqReader::open(path, CHUNK)?;
        while let Some(chunk) = r.next_chunk()? {
            for rec in chunk.chunks_exact(RECORD) {
                let s = u32::from_le_bytes(rec[0..4].try_into().unwrap());
                let t = u32::from_le_bytes(rec[4..8].try_into().unwrap());
                let w = f32::from_le_bytes(rec[8..12].try_into().unwrap());
                sink.edge(s as u64, t as u64, w).map_err(at)?;
            }
            done.fetch_add((chunk.len() / RECORD) as u64, Ordering::Relaxed);
        }
        Ok(())
    }
}
