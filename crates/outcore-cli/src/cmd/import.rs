//! `outcore import INPUT -o STORE`.

use crate::args::GraphFlags;
use crate::progress::Bars;
use anyhow::{bail, Result};
use outcore_ingest::{import_file, Format, ImportOptions, ImportReport, SelfLoops};
use outcore_store::Encoding;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Input file (.txt/.el/.wel/.mtx/.graph/.e/.v/.properties/.bin32/.bin64, optionally .gz/.zst).
    pub input: PathBuf,
    /// Store directory to create.
    #[arg(short, long)]
    pub output: PathBuf,
    #[command(flatten)]
    pub graph: GraphFlags,
    /// Input format, if the extension does not tell: text, el, wel, mtx, metis, graphalytics, bin32, bin64.
    #[arg(long)]
    pub format: Option<String>,
    /// Read the third column as an edge weight (f32).
    #[arg(long, conflicts_with = "unweighted")]
    pub weighted: bool,
    /// Drop weights the input carries.
    #[arg(long)]
    pub unweighted: bool,
    /// A ratings graph: `user item rating` lines, users and items in two id
    /// spaces (item i is vertex 4611686018427387904 + i, i.e. 2^62 + i, to
    /// every other command), undirected and weighted; for `outcore als`.
    #[arg(long, conflicts_with_all = ["unweighted", "num_vertices"])]
    pub bipartite: bool,
    /// Declare vertices 0..N: ids must be below N; vertices without edges are kept.
    #[arg(long)]
    pub num_vertices: Option<u64>,
    /// Print a JSON summary instead of text.
    #[arg(long)]
    pub json: bool,
}

/// How `import` and `generate --store` use the shared graph flags.
impl GraphFlags {
    /// Run `import` into `store`; with `--order`, import into a hidden
    /// sibling first (raw, with the in layout a directed ordering needs),
    /// then order and encode it into `store`.
    pub fn import_ordered(
        &self,
        store: &std::path::Path,
        inputs: &[&std::path::Path],
        opts: &ImportOptions,
        progress: &dyn outcore::Progress,
        import: impl FnOnce(&std::path::Path, &ImportOptions) -> Result<ImportReport, outcore::Error>,
    ) -> Result<ImportReport> {
        let order = crate::cmd::recode::parse_order(&self.order)?;
        Ok(outcore::import::import_ordered(store, inputs, opts, order, progress, import)?)
    }

    /// `--dry-run`: the output policy's verdict and the smallest budget.
    pub fn dry_run(&self, store: &std::path::Path, inputs: &[&std::path::Path], json: bool) -> Result<ExitCode> {
        let opts = self.options(None)?;
        let existing = outcore_store::check_output(store, outcore_store::OutputKind::Store, opts.force, inputs)?;
        let tiles = self.layouts.iter().any(|l| l == "tiles");
        let need = outcore::import::import_minimum(&opts, tiles);
        let fits = need.check(opts.memory).is_ok();
        if json {
            println!(
                "{}",
                serde_json::to_string_pretty(&serde_json::json!({
                    "store": store, "replaces": existing != outcore_store::Existing::Nothing,
                    "minimum_budget_bytes": need.bytes(), "minimum": need, "memory": opts.memory, "fits": fits,
                }))?
            );
        } else {
            println!(
                "import into {}: {}",
                store.display(),
                match existing {
                    outcore_store::Existing::Nothing => "a new store",
                    outcore_store::Existing::EmptyDirectory => "an empty directory, which becomes the store",
                    outcore_store::Existing::Replaceable => "replaces the outcore store there (--force)",
                }
            );
            println!("  smallest budget: {} ({})", outcore::format_bytes(need.bytes()), need.describe());
            if self.order != "none" {
                println!("  --order {} also holds 4 bytes per vertex and the traverse engine's index while ordering", self.order);
            }
            println!("  --memory {}: {}", outcore::format_bytes(opts.memory), if fits { "enough" } else { "too small" });
        }
        Ok(if fits { ExitCode::SUCCESS } else { ExitCode::FAILURE })
    }

    /// After the import: add the layouts built from the store (tiles).
    pub fn add_layouts(&self, store: &std::path::Path, json: bool, progress: &dyn outcore::Progress) -> Result<()> {
        if self.layouts.iter().any(|l| l == "hot") {
            let t = std::time::Instant::now();
            let r = outcore_ingest::hot::add_hot(store, outcore_ingest::hot::DEFAULT_COLUMNS, self.memory, progress)?;
            if !json {
                println!("{}", super::layout::hot_summary(store, &r, t.elapsed().as_secs_f64()));
            }
        }
        if self.layouts.iter().any(|l| l == "tiles") {
            let t = std::time::Instant::now();
            let r = outcore_ingest::tiles::add_tiles(
                store,
                outcore_ingest::tiles::DEFAULT_GROUP,
                outcore_ingest::tiles::SPAN_BITS,
                self.memory,
                progress,
            )?;
            if !json {
                println!(
                    "tiles: {} edges in {} tiles in {:.2} s",
                    crate::grouped(r.edges),
                    crate::grouped(r.tiles),
                    t.elapsed().as_secs_f64()
                );
            }
        }
        Ok(())
    }

    pub fn options(&self, default_directed: Option<bool>) -> Result<ImportOptions> {
        let mut in_layout = false;
        for l in &self.layouts {
            match l.as_str() {
                "out" => {}
                "in" => in_layout = true,
                "tiles" | "hot" => {}
                other => bail!("unknown layout '{other}' (this version builds: out, in, tiles, hot)"),
            }
        }
        let encoding = match &self.encoding {
            Some(e) => Some(Encoding::from_name(e).ok_or_else(|| anyhow::anyhow!("unknown encoding '{e}' ({})", Encoding::names()))?),
            None => None,
        };
        Ok(ImportOptions {
            directed: if self.directed {
                Some(true)
            } else if self.undirected {
                Some(false)
            } else {
                default_directed
            },
            dedup: !self.keep_duplicates,
            self_loops: if self.self_loops == "drop" { SelfLoops::Drop } else { SelfLoops::Keep },
            in_layout,
            encoding,
            force: self.force,
            memory: self.memory,
            sort_buffer: self.sort_buffer,
            ..Default::default()
        })
    }
}

pub fn run(a: Args) -> Result<ExitCode> {
    if a.graph.dry_run {
        return a.graph.dry_run(&a.output, &[&a.input], a.json);
    }
    let mut opts = a.graph.options(None)?;
    opts.format = match &a.format {
        Some(f) => Some(
            Format::from_name(f)
                .ok_or_else(|| anyhow::anyhow!("unknown format '{f}' (text, el, wel, mtx, metis, graphalytics, bin32, bin64, webgraph)"))?,
        ),
        None => None,
    };
    opts.weighted = a.weighted;
    opts.unweighted = a.unweighted;
    opts.num_vertices = a.num_vertices;
    opts.bipartite = a.bipartite;
    if a.bipartite && a.graph.order != "none" {
        bail!("--bipartite keeps users before items: it takes no --order");
    }
    let bars = Bars::new(a.json);
    let report =
        a.graph.import_ordered(&a.output, &[&a.input], &opts, &bars, |store, opts| Ok(import_file(&a.input, store, opts, &bars)?))?;
    print_report(&report, a.json);
    a.graph.add_layouts(&a.output, a.json, &bars)?;
    Ok(ExitCode::SUCCESS)
}

pub fn print_report(r: &ImportReport, json: bool) {
    if json {
        let mut v = serde_json::to_value(r).unwrap();
        v["peak_rss_bytes"] = serde_json::json!(outcore_io::peak_rss_bytes());
        v["minimum_budget_bytes"] = serde_json::json!(outcore_ingest::import::minimum(&Default::default()).bytes());
        println!("{}", serde_json::to_string_pretty(&v).unwrap());
        return;
    }
    let rate = if r.input_bytes == 0 {
        format!("{:.1} M input edges/s", r.input_edges as f64 / r.seconds.max(1e-9) / 1e6)
    } else {
        format!("{:.1} MB/s of input", r.input_bytes as f64 / r.seconds.max(1e-9) / 1e6)
    };
    println!(
        "imported {} vertices, {} {} edges{} into {} in {:.2} s ({})",
        crate::grouped(r.vertices),
        crate::grouped(r.edges),
        if r.directed { "directed" } else { "undirected" },
        if r.weighted { " (weighted)" } else { "" },
        r.store.display(),
        r.seconds,
        rate
    );
    println!(
        "  {} input edges, {} duplicates collapsed, {} self loops kept, {} dropped; {} sort runs, {} spilled, {} merge passes",
        crate::grouped(r.input_edges),
        crate::grouped(r.duplicates_removed),
        crate::grouped(r.self_loops),
        crate::grouped(r.self_loops_dropped),
        r.sort_runs,
        outcore_io::format_bytes(r.spilled_bytes),
        r.merge_passes
    );
}
