//! `outcore generate kronecker|uniform|watts-strogatz|ratings`.

use crate::args::GraphFlags;
use crate::cmd::import::print_report;
use crate::progress::Bars;
use anyhow::{bail, Result};
use outcore_ingest::generate::{self, EdgeListFormat, Generator, Kronecker, Ratings, Uniform, WattsStrogatz};
use outcore_ingest::import_from;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub kind: Kind,
}

#[derive(clap::Args, Clone)]
pub struct Output {
    /// Write an edge list: .el (text), .bin32 or .bin64 (little-endian pairs);
    /// ratings: .wel or .txt (`user item rating` lines).
    #[arg(short, long, conflicts_with = "store", required_unless_present = "store")]
    pub output: Option<PathBuf>,
    /// Import straight into this store instead.
    #[arg(long)]
    pub store: Option<PathBuf>,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[command(flatten)]
    pub graph: GraphFlags,
    /// Print a JSON summary.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Subcommand)]
pub enum Kind {
    /// Graph500 Kronecker graph: 2^scale vertices, edge-factor * 2^scale edges.
    Kronecker {
        /// 2^scale vertices.
        #[arg(long)]
        scale: u32,
        /// Edges generated per vertex.
        #[arg(long, default_value_t = 16)]
        edge_factor: u64,
        #[command(flatten)]
        out: Output,
    },
    /// Erdos-Renyi G(n, m) with uniform random endpoints (directed).
    Uniform {
        /// 2^scale vertices (or give --vertices).
        #[arg(long, required_unless_present = "vertices")]
        scale: Option<u32>,
        /// Vertices (instead of --scale).
        #[arg(long)]
        vertices: Option<u64>,
        /// Edges per vertex.
        #[arg(long, default_value_t = 16)]
        edge_factor: u64,
        #[command(flatten)]
        out: Output,
    },
    /// Watts-Strogatz small world (undirected).
    WattsStrogatz {
        /// Vertices, on a ring.
        #[arg(long)]
        vertices: u64,
        /// Mean degree k (even).
        #[arg(long, default_value_t = 10)]
        degree: u64,
        /// Rewiring probability.
        #[arg(long, default_value_t = 0.1)]
        rewire: f64,
        #[command(flatten)]
        out: Output,
    },
    /// Planted low-rank ratings for ALS: rating = x_u . y_i + Gaussian noise,
    /// hidden factors uniform in [0, 1); a bipartite store (users, then items).
    Ratings {
        /// Users.
        #[arg(long)]
        users: u64,
        /// Items.
        #[arg(long)]
        items: u64,
        /// Rank of the hidden factors.
        #[arg(long, default_value_t = 10)]
        rank: usize,
        /// Fraction of the user x item pairs rated.
        #[arg(long, default_value_t = 0.01)]
        density: f64,
        /// Standard deviation of the noise on each rating.
        #[arg(long, default_value_t = 0.1)]
        noise: f64,
        #[command(flatten)]
        out: Output,
    },
}

pub fn run(a: Args) -> Result<ExitCode> {
    let (g, out): (Box<dyn Generator>, Output) = match a.kind {
        Kind::Kronecker { scale, edge_factor, out } => {
            if !(1..=40).contains(&scale) {
                bail!("--scale must be between 1 and 40");
            }
            (Box::new(Kronecker::graph500(scale, edge_factor, out.seed)), out)
        }
        Kind::Uniform { scale, vertices, edge_factor, out } => {
            let n = vertices.unwrap_or_else(|| 1u64 << scale.unwrap_or(0));
            if n == 0 {
                bail!("--vertices must be positive");
            }
            (Box::new(Uniform { vertices: n, edges: n * edge_factor, seed: out.seed }), out)
        }
        Kind::WattsStrogatz { vertices, degree, rewire, out } => {
            if degree == 0 || degree % 2 == 1 || degree >= vertices {
                bail!("--degree must be even, positive and below --vertices");
            }
            if !(0.0..=1.0).contains(&rewire) {
                bail!("--rewire must be between 0 and 1");
            }
            (Box::new(WattsStrogatz { vertices, degree, rewire, seed: out.seed }), out)
        }
        Kind::Ratings { users, items, rank, density, noise, out } => {
            if users == 0 || items == 0 || users >= outcore_store::ITEM_ID_BASE || items >= outcore_store::ITEM_ID_BASE {
                bail!("--users and --items must be positive and below 2^62");
            }
            if !(1..=1024).contains(&rank) {
                bail!("--rank must be between 1 and 1024");
            }
            if !(density > 0.0 && density <= 1.0) {
                bail!("--density must be in (0, 1]");
            }
            if !(noise >= 0.0 && noise.is_finite()) {
                bail!("--noise must be a finite deviation, 0 or more");
            }
            if users as f64 * items as f64 * density > 1e12 {
                bail!("--users x --items x --density asks for more than 10^12 ratings");
            }
            (Box::new(Ratings { users, items, rank, density, noise, seed: out.seed }), out)
        }
    };
    let bipartite = g.name() == "ratings";
    let bars = Bars::new(out.json);
    if let Some(path) = &out.output {
        let format = EdgeListFormat::from_path(path)
            .ok_or_else(|| anyhow::anyhow!("{}: unknown edge-list extension (use .el, .wel, .bin32 or .bin64)", path.display()))?;
        let start = std::time::Instant::now();
        let bytes = generate::write_edge_list(g.as_ref(), path, format, out.graph.force, &bars)?;
        let secs = start.elapsed().as_secs_f64();
        if out.json {
            println!(
                "{}",
                serde_json::json!({"output": path, "vertices": g.vertices(), "edges": g.edges(), "bytes": bytes, "seconds": secs})
            );
        } else {
            println!(
                "wrote {} edges on {} vertices to {} ({}) in {secs:.2} s",
                crate::grouped(g.edges()),
                crate::grouped(g.vertices()),
                path.display(),
                outcore_io::format_bytes(bytes)
            );
        }
    } else {
        let store = out.store.as_ref().unwrap();
        if out.graph.dry_run {
            return out.graph.dry_run(store, &[], out.json);
        }
        let mut opts = out.graph.options(Some(g.directed()))?;
        opts.bipartite = bipartite;
        if bipartite && (out.graph.order != "none" || out.graph.directed) {
            bail!("ratings make a bipartite store: undirected, users before items (no --directed, no --order)");
        }
        let mut provenance = BTreeMap::new();
        provenance.insert("generator".to_string(), g.name().to_string());
        provenance.insert("seed".to_string(), out.seed.to_string());
        let source =
            |sink: &mut dyn outcore_ingest::formats::EdgeSink,
             p: &mut dyn FnMut(std::sync::Arc<std::sync::atomic::AtomicU64>, u64, bool)| generate::emit(g.as_ref(), sink, p);
        let report =
            out.graph.import_ordered(store, &[], &opts, &bars, |store, opts| Ok(import_from(&source, store, opts, provenance, &bars)?))?;
        print_report(&report, out.json);
        out.graph.add_layouts(store, out.json, &bars)?;
    }
    Ok(ExitCode::SUCCESS)
}
