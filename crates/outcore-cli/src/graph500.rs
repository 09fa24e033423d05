//! `outcore graph500 --scale N`: the Graph500 benchmark on the traverse
//! engine. Kernel 1 generates the Kronecker graph (with uniform [0,1)
//! weights for kernel 3) and builds the store and the hybrid BFS's
//! in-memory neighbours; kernel 2 runs hybrid BFS and kernel 3 Dijkstra
//! from the same random roots of degree >= 1; every result is validated
//! by the five rules; the statistics block follows the reference code.

use crate::traverse::{budget, open_hybrid, Common, HybridEngines};
use anyhow::{bail, Result};
use outcore_algorithms::graph500::{statistics, validate_bfs, validate_sssp};
use outcore_algorithms::hybrid_bfs::{hybrid_bfs, HybridOptions};
use outcore_algorithms::sssp::{sssp, ShortestPaths};
use outcore_ingest::generate::{self, hash64, Kronecker};
use outcore_ingest::{import_from, ImportOptions};
use outcore_store::Store;
use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

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

#[derive(clap::Args)]
pub struct Args {
    #[arg(long)]
    pub scale: u32,
    #[arg(long, default_value_t = 16)]
    pub edge_factor: u64,
    /// Search roots (distinct, of degree >= 1).
    #[arg(long, default_value_t = 64)]
    pub roots: usize,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Memory budget for every kernel, page cache included.
    #[arg(long, default_value = "1G", value_parser = crate::parse_memory)]
    pub memory: u64,
    /// Where the store goes (default: a temporary directory, removed after).
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// Skip kernel 3 (SSSP).
    #[arg(long)]
    pub no_sssp: bool,
    /// The run-ahead prefetcher.
    #[arg(long, default_value = "on", value_parser = ["on", "off"])]
    pub prefetch: String,
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

fn line(label: &str, value: String) {
    println!("{:<32}{value}", format!("{label}:"));
}

fn print_stats(kernel: &str, times: &[f64], nedges: &[f64], validate: &[f64]) {
    let teps: Vec<f64> = nedges.iter().zip(times).map(|(e, t)| e / t).collect();
    let quartiles = |st: &outcore_algorithms::graph500::Statistics| {
        [
            ("min", st.min),
            ("firstquartile", st.first_quartile),
            ("median", st.median),
            ("thirdquartile", st.third_quartile),
            ("max", st.max),
        ]
    };
    let t = statistics(times);
    for (name, x) in quartiles(&t).into_iter().chain([("mean", t.mean), ("stddev", t.stddev)]) {
        line(&format!("{kernel}  {name}_time"), fmt_g(x, 6));
    }
    let e = statistics(nedges);
    for (name, x) in quartiles(&e).into_iter().chain([("mean", e.mean), ("stddev", e.stddev)]) {
        line(&format!("{name}_nedge"), fmt_g(x, 11));
    }
    let p = statistics(&teps);
    for (name, x) in quartiles(&p).into_iter().chain([("harmonic_mean", p.harmonic_mean), ("harmonic_stddev", p.harmonic_stddev)]) {
        line(&format!("{kernel}  {name}_TEPS"), fmt_g(x, 6));
    }
    let v = statistics(validate);
    for (name, x) in quartiles(&v).into_iter().chain([("mean", v.mean), ("stddev", v.stddev)]) {
        line(&format!("{kernel}  {name}_validate"), fmt_g(x, 6));
    }
}

pub fn run(a: Args) -> Result<ExitCode> {
    if !(1..=32).contains(&a.scale) {
        bail!("--scale must be between 1 and 32");
    }
    if a.roots == 0 {
        bail!("--roots must be at least 1");
    }
    let tmp = tempfile::Builder::new().prefix("outcore-graph500-").tempdir()?;
    let path = a.dir.clone().unwrap_or_else(|| tmp.path().join("graph500.store"));

    // Kernel 1: generation and construction (the store and the hot lists).
    let t = Instant::now();
    let mut g = Kronecker::graph500(a.scale, a.edge_factor, a.seed);
    g.weighted = !a.no_sssp;
    let opts =
        ImportOptions { directed: Some(false), weighted: !a.no_sssp, memory: a.memory, force: a.dir.is_some(), ..Default::default() };
    let source = |sink: &mut dyn outcore_ingest::formats::EdgeSink,
                  p: &mut dyn FnMut(std::sync::Arc<std::sync::atomic::AtomicU64>, u64, bool)| generate::emit(&g, sink, p);
    let bars = crate::progress::Bars::new(false);
    import_from(&source, &path, &opts, BTreeMap::from([("generator".to_string(), "graph500 kronecker".to_string())]), &bars)?;
    let import_seconds = t.elapsed().as_secs_f64();
    let store = Store::open(&path)?;
    let n = store.vertices();
    let (budget, _base) = budget(a.memory)?;
    let c = Common {
        store: path.clone(),
        memory: a.memory,
        engine: "traverse".into(),
        temp: None,
        prefetch: a.prefetch.clone(),
        block: 4096,
        depth: None,
        pread: false,
        output: None,
        json: false,
    };
    let validation = n * 4 + n / 8 + 64;
    let state = outcore_algorithms::hybrid_bfs::state_bytes(n).max(if a.no_sssp { 0 } else { ShortestPaths::state_bytes(n) }) + validation;
    let HybridEngines { mut out, hot, .. } = open_hybrid(&store, &budget, &c, state)?;
    let construction = t.elapsed().as_secs_f64();

    // Roots: distinct random vertices of degree >= 1.
    let mut roots = Vec::new();
    let mut seen = HashSet::new();
    let with_edges = (0..n).filter(|&v| out.degree(v) > 0).count();
    let mut i = 0u64;
    while roots.len() < a.roots.min(with_edges) {
        let v = hash64(a.seed ^ 0xB00F ^ i) % n;
        i += 1;
        if out.degree(v) > 0 && seen.insert(v) {
            roots.push(v);
        }
    }
    let (mut bfs_t, mut bfs_e, mut bfs_v) = (Vec::new(), Vec::new(), Vec::new());
    let (mut sp_t, mut sp_e, mut sp_v) = (Vec::new(), Vec::new(), Vec::new());
    for &root in &roots {
        let t = Instant::now();
        let (tree, _) = hybrid_bfs(&mut out, None, &hot, root, &budget, &HybridOptions::default())?;
        bfs_t.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        match validate_bfs(&store, root, &tree.parent, &tree.level, &budget)? {
            Ok(v) => bfs_e.push(v.edges as f64),
            Err(v) => bail!("BFS from {root}: {v}"),
        }
        bfs_v.push(t.elapsed().as_secs_f64());
        drop(tree);
        if !a.no_sssp {
            let t = Instant::now();
            let sp = sssp(&mut out, root, &budget)?;
            sp_t.push(t.elapsed().as_secs_f64());
            let t = Instant::now();
            match validate_sssp(&store, root, &sp.parent, &sp.dist, &budget)? {
                Ok(v) => sp_e.push(v.edges as f64),
                Err(v) => bail!("SSSP from {root}: {v}"),
            }
            sp_v.push(t.elapsed().as_secs_f64());
        }
    }
    line("SCALE", a.scale.to_string());
    line("edgefactor", a.edge_factor.to_string());
    line("NBFS", roots.len().to_string());
    line("graph_generation", fmt_g(import_seconds, 6));
    line("num_mpi_processes", "1".into());
    line("construction_time", fmt_g(construction, 6));
    print_stats("bfs", &bfs_t, &bfs_e, &bfs_v);
    if !a.no_sssp {
        print_stats("sssp", &sp_t, &sp_e, &sp_v);
    }
    let s = out.stats();
    println!(
        "# outcore: traverse engine, {} I/O, prefetch {}, {} in-memory neighbours per vertex, cache {} (hit rate {:.1}%), budget {}, peak RSS {}",
        s.io_backend,
        a.prefetch,
        hot.k,
        outcore_io::format_bytes(s.cache_bytes),
        s.cache.hit_rate() * 100.0,
        outcore_io::format_bytes(a.memory),
        outcore_io::format_bytes(outcore_io::peak_rss_bytes().unwrap_or(0))
    );
    println!("# all {} BFS{} results passed the five validation rules", roots.len(), if a.no_sssp { "" } else { " and SSSP" });
    Ok(ExitCode::SUCCESS)
}
