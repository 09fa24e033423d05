//! `outcore graph500 --scale N`: the Graph500 benchmark (the library's
//! `outcore::graph500`) and the statistics block of the reference code.

use anyhow::Result;
use std::path::PathBuf;
use std::process::ExitCode;

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
    /// 2^scale vertices (Graph500 sizes: toy 26, mini 29, small 32).
    #[arg(long)]
    pub scale: u32,
    /// Edges generated per vertex (Graph500: 16).
    #[arg(long, default_value_t = 16)]
    pub edge_factor: u64,
    /// Search roots (distinct, of degree >= 1).
    #[arg(long, default_value_t = 64)]
    pub roots: usize,
    /// Seed of the generator and of the root sample.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Memory budget for every kernel, page cache included.
    #[arg(long, default_value = "1G", value_parser = crate::parse_memory)]
    pub memory: u64,
    /// Where the store goes (default: a temporary directory, removed after).
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// Replace an outcore store already at --dir (never anything else).
    #[arg(long, requires = "dir")]
    pub force: bool,
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

fn print_stats(kernel: &str, k: &outcore::graph500::Kernel) {
    let quartiles = |st: &outcore_algorithms::graph500::Statistics| {
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

pub fn run(a: Args) -> Result<ExitCode> {
    let opts = outcore::graph500::Options {
        scale: a.scale,
        edge_factor: a.edge_factor,
        roots: a.roots,
        seed: a.seed,
        memory: a.memory,
        dir: a.dir.clone(),
        force: a.force,
        sssp: !a.no_sssp,
        traverse: outcore_engines::TraverseOptions {
            prefetch: a.prefetch == "on",
            depth: outcore_io::probe::recorded_depth().unwrap_or(64).max(1),
            ..Default::default()
        },
    };
    let bars = crate::progress::Bars::new(false);
    let r = outcore::graph500::run(&opts, &bars)?;
    line("SCALE", a.scale.to_string());
    line("edgefactor", a.edge_factor.to_string());
    line("NBFS", r.roots.to_string());
    line("graph_generation", fmt_g(r.generation_seconds, 6));
    line("num_mpi_processes", "1".into());
    line("construction_time", fmt_g(r.construction_seconds, 6));
    print_stats("bfs", &r.bfs);
    if let Some(sp) = &r.sssp {
        print_stats("sssp", sp);
    }
    println!(
        "# outcore: traverse engine, {} I/O, prefetch {}, {} in-memory neighbours per vertex, cache {} (hit rate {:.1}%), budget {}, peak RSS {}",
        r.io_backend,
        a.prefetch,
        r.hot_neighbours,
        outcore_io::format_bytes(r.cache_bytes),
        r.cache_hit_rate * 100.0,
        outcore_io::format_bytes(a.memory),
        outcore_io::format_bytes(outcore_io::peak_rss_bytes().unwrap_or(0))
    );
    println!("# all {} BFS{} results passed the five validation rules", r.roots, if a.no_sssp { "" } else { " and SSSP" });
    Ok(ExitCode::SUCCESS)
}
