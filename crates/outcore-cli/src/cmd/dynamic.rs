//! `outcore dynamic ...`: the degree-aware Robin Hood store (DegAwareRHH)
//! from the command line: create, apply update streams, query, stats,
//! snapshot into a static store, colour incrementally, BFS and PageRank.

use crate::progress::Bars;
use anyhow::{bail, Context, Result};
use outcore_algorithms::dynamic::{bfs, coloring, pagerank};
use outcore_dynamic::store::{ApplyReport, DynamicStore, StoreOptions, DEFAULT_THRESHOLD};
use outcore_dynamic::stream::{apply_stream, batch_for, StreamOptions};
use outcore_dynamic::updates::{StreamFormat, UpdateReader};
use outcore_io::Progress;
use serde_json::json;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: Cmd,
}

#[derive(clap::Subcommand)]
pub enum Cmd {
    /// Create an empty dynamic store.
    Create(CreateArgs),
    /// Apply update streams (text .updates, binary .updb, or edge lists as inserts); commits at the end.
    Apply(ApplyArgs),
    /// Look up a vertex or an edge: degree U | neighbours U | edge U V | property U.
    Query(QueryArgs),
    /// Counts, table loads, probe distances, bytes per edge; --check verifies the invariants.
    Stats(StatsArgs),
    /// Write the current graph as a static outcore store (every engine runs on it).
    Snapshot(SnapshotArgs),
    /// Maintain a proper colouring incrementally while applying update streams (section 4.8).
    Color(ColorArgs),
    /// BFS levels on the dynamic store.
    Bfs(BfsArgs),
    /// PageRank (Graphalytics semantics) on the dynamic store.
    Pagerank(PageRankArgs),
}

#[derive(clap::Args)]
pub struct CreateArgs {
    /// The dynamic store directory.
    pub store: PathBuf,
    /// Store both directions of every edge.
    #[arg(long)]
    pub undirected: bool,
    /// Keep an f32 weight per edge.
    #[arg(long)]
    pub weighted: bool,
    /// Keep parallel edges (as a multiplicity); otherwise re-inserting an edge is ignored.
    #[arg(long)]
    pub multigraph: bool,
    /// Partitions (one worker thread each while applying); default: the number of cores.
    #[arg(long)]
    pub partitions: Option<usize>,
    /// Vertices with at least this many distinct out-neighbours get their own edge table.
    #[arg(long, default_value_t = DEFAULT_THRESHOLD)]
    pub threshold: u32,
}

#[derive(clap::Args)]
pub struct StreamFlags {
    /// Stream format if the extension does not tell: updates, updb, or an import format (text, el, wel, mtx, bin32, bin64, ...).
    #[arg(long)]
    pub format: Option<String>,
    /// Commit every N updates (default: once, at the end).
    #[arg(long)]
    pub commit_every: Option<u64>,
    /// Memory budget, page cache of the mapped tables included (e.g. 512M, 4G).
    #[arg(long, default_value = "1G", value_parser = crate::parse_memory)]
    pub memory: u64,
    /// Print a JSON summary instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args)]
pub struct ApplyArgs {
    /// The dynamic store directory.
    pub store: PathBuf,
    /// Update streams, applied in order.
    #[arg(required = true)]
    pub updates: Vec<PathBuf>,
    #[command(flatten)]
    pub stream: StreamFlags,
}

#[derive(clap::Args)]
pub struct QueryArgs {
    /// The dynamic store directory.
    pub store: PathBuf,
    /// degree, neighbours, edge or property.
    #[arg(value_parser = ["degree", "neighbours", "neighbors", "edge", "property"])]
    pub what: String,
    /// The vertex.
    pub u: u64,
    /// The target, for `edge`.
    pub v: Option<u64>,
}

#[derive(clap::Args)]
pub struct StatsArgs {
    /// The dynamic store directory.
    pub store: PathBuf,
    /// Verify the layout invariants (threshold rule, counts, chunk headers).
    #[arg(long)]
    pub check: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args)]
pub struct SnapshotArgs {
    /// The dynamic store directory.
    pub store: PathBuf,
    /// Static store directory to create.
    pub output: PathBuf,
    /// Adjacency encoding of the static store: raw32, raw64, ceesor or gapref.
    #[arg(long)]
    pub encoding: Option<String>,
    /// Memory budget of the import, page cache included.
    #[arg(long, default_value = "1G", value_parser = crate::parse_memory)]
    pub memory: u64,
    /// Layouts to build: out, plus in (in-edge CSR) and tiles (for the stream engines), as for import.
    #[arg(long, default_value = "out", value_delimiter = ',')]
    pub layouts: Vec<String>,
    /// Replace an existing static store.
    #[arg(long)]
    pub force: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args)]
pub struct ColorArgs {
    /// The dynamic store directory.
    pub store: PathBuf,
    /// Update streams to apply while colouring (none: colour the store as it is).
    pub updates: Vec<PathBuf>,
    /// Check after every batch that the colouring is proper (reads every edge).
    #[arg(long)]
    pub check: bool,
    /// Write `vertex colour` lines here (- for standard output).
    #[arg(long)]
    pub output: Option<PathBuf>,
    /// Replace an existing --output file.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub stream: StreamFlags,
}

#[derive(clap::Args)]
pub struct BfsArgs {
    /// The dynamic store directory.
    pub store: PathBuf,
    /// The root vertex (its id in the update streams).
    #[arg(long)]
    pub root: u64,
    /// Write `vertex level` lines (unreached: 9223372036854775807; - for standard output).
    #[arg(long)]
    pub output: Option<PathBuf>,
    /// Replace an existing --output file.
    #[arg(long)]
    pub force: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args)]
pub struct PageRankArgs {
    /// The dynamic store directory.
    pub store: PathBuf,
    /// Iterations (a fixed number, as Graphalytics).
    #[arg(long, default_value_t = 10)]
    pub iterations: u32,
    /// Damping factor d.
    #[arg(long, default_value_t = 0.85)]
    pub damping: f64,
    /// Write `vertex rank` lines (- for standard output).
    #[arg(long)]
    pub output: Option<PathBuf>,
    /// Replace an existing --output file.
    #[arg(long)]
    pub force: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(a: Args) -> Result<ExitCode> {
    match a.command {
        Cmd::Create(a) => create(a),
        Cmd::Apply(a) => apply(a),
        Cmd::Query(a) => query(a),
        Cmd::Stats(a) => stats(a),
        Cmd::Snapshot(a) => snapshot(a),
        Cmd::Color(a) => color(a),
        Cmd::Bfs(a) => run_bfs(a),
        Cmd::Pagerank(a) => run_pagerank(a),
    }
}

fn open(path: &Path) -> Result<DynamicStore> {
    DynamicStore::open(path).with_context(|| format!("{}: cannot open the dynamic store", path.display()))
}

fn create(a: CreateArgs) -> Result<ExitCode> {
    let partitions = a.partitions.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let opts =
        StoreOptions { partitions, undirected: a.undirected, weighted: a.weighted, multigraph: a.multigraph, threshold: a.threshold };
    DynamicStore::create(&a.store, opts)?;
    println!(
        "created {} ({} partitions, {}, {}{}, threshold {})",
        a.store.display(),
        partitions,
        if a.undirected { "undirected" } else { "directed" },
        if a.multigraph { "multigraph" } else { "unique edges" },
        if a.weighted { ", weighted" } else { "" },
        a.threshold
    );
    Ok(ExitCode::SUCCESS)
}

/// Apply every stream with `each`, drawing a bar per file; returns the total and seconds.
fn apply_files(
    store: &mut DynamicStore,
    files: &[PathBuf],
    flags: &StreamFlags,
    each: &mut dyn FnMut(&mut DynamicStore, &[outcore_dynamic::store::Update]) -> outcore_dynamic::error::Result<ApplyReport>,
) -> Result<(ApplyReport, f64)> {
    let format = match &flags.format {
        Some(f) => Some(
            StreamFormat::from_name(f)
                .ok_or_else(|| anyhow::anyhow!("unknown stream format '{f}' (updates, updb, or an import format)"))?,
        ),
        None => None,
    };
    let batch = batch_for(flags.memory);
    // Batches take up to half the budget; mapped pages may fill the rest.
    // The limit is on the whole resident set (batches and pages together).
    if flags.memory < 64 << 20 {
        bail!("--memory {} is too small: the dynamic store needs at least 64M", flags.memory);
    }
    store.set_resident_limit(Some(flags.memory - outcore_io::PROCESS_BASELINE));
    let opts = StreamOptions { batch, commit_every: flags.commit_every };
    let bars = Bars::new(flags.json);
    let mut total = ApplyReport::default();
    let start = Instant::now();
    for file in files {
        let mut reader = UpdateReader::open(file, format, batch, store.options.weighted)?;
        bars.begin(&file.file_name().unwrap_or_default().to_string_lossy(), reader.total_bytes, true);
        let r = apply_stream(store, &mut reader, &opts, each, &mut |pos, _| bars.set(pos));
        bars.end();
        total.add(&r?);
    }
    Ok((total, start.elapsed().as_secs_f64()))
}

fn report_json(r: &ApplyReport, seconds: f64, store: &DynamicStore) -> serde_json::Value {
    json!({
        "report": r,
        "seconds": seconds,
        "updates_per_second": r.updates as f64 / seconds.max(1e-9),
        "partitions": store.options.partitions,
        "arcs": store.arcs(),
        "heap_bytes": store.heap_bytes(),
        "epoch": store.epoch(),
        "peak_rss_bytes": outcore_io::peak_rss_bytes(),
    })
}

fn print_apply(r: &ApplyReport, seconds: f64, store: &DynamicStore) {
    println!(
        "applied {} updates in {:.2} s ({:.2} M updates/s, {} partitions)",
        crate::grouped(r.updates),
        seconds,
        r.updates as f64 / seconds.max(1e-9) / 1e6,
        store.options.partitions
    );
    let existing = if store.options.multigraph { "parallel" } else { "already present (ignored)" };
    println!(
        "  edges: {} inserted, {} {existing}, {} deleted, {} deletes of missing edges (skipped)",
        crate::grouped(r.inserted),
        crate::grouped(r.existing),
        crate::grouped(r.deleted),
        crate::grouped(r.missing)
    );
    if r.vertices_inserted + r.properties_set + r.vertices_deleted + r.vertices_missing > 0 {
        println!(
            "  vertices: {} inserted, {} properties set, {} deleted (with {} edges), {} deletes of missing vertices",
            crate::grouped(r.vertices_inserted),
            crate::grouped(r.properties_set),
            crate::grouped(r.vertices_deleted),
            crate::grouped(r.edges_of_deleted_vertices),
            crate::grouped(r.vertices_missing)
        );
    }
    println!("  store: {} edges, {} MB, commit {}", crate::grouped(store.arcs()), store.heap_bytes() >> 20, store.epoch());
}

fn apply(a: ApplyArgs) -> Result<ExitCode> {
    let mut store = open(&a.store)?;
    let (r, secs) = apply_files(&mut store, &a.updates, &a.stream, &mut |s, b| s.apply(b))?;
    if a.stream.json {
        println!("{}", serde_json::to_string_pretty(&report_json(&r, secs, &store))?);
    } else {
        print_apply(&r, secs, &store);
    }
    Ok(ExitCode::SUCCESS)
}

fn query(a: QueryArgs) -> Result<ExitCode> {
    let store = open(&a.store)?;
    let mut out = std::io::stdout().lock();
    match a.what.as_str() {
        "degree" => writeln!(out, "{}", store.degree(a.u))?,
        "neighbours" | "neighbors" => {
            let mut n = store.neighbours(a.u);
            n.sort_by_key(|e| e.target);
            for e in n {
                match (store.options.weighted, store.options.multigraph) {
                    (false, false) => writeln!(out, "{}", e.target)?,
                    (true, false) => writeln!(out, "{} {}", e.target, e.weight)?,
                    (false, true) => writeln!(out, "{} x{}", e.target, e.count)?,
                    (true, true) => writeln!(out, "{} {} x{}", e.target, e.weight, e.count)?,
                }
            }
        }
        "edge" => {
            let Some(v) = a.v else { bail!("edge takes two vertices: query STORE edge U V") };
            match store.edge(a.u, v) {
                Some(e) => writeln!(out, "{} {} weight {} count {}", a.u, v, e.weight, e.count)?,
                None => {
                    writeln!(out, "no edge {} {}", a.u, v)?;
                    return Ok(ExitCode::from(1));
                }
            }
        }
        "property" => match store.property(a.u) {
            Some(x) => writeln!(out, "{x}")?,
            None => {
                writeln!(out, "vertex {} has no entry (no property, fewer than {} neighbours)", a.u, store.options.threshold)?;
                return Ok(ExitCode::from(1));
            }
        },
        _ => unreachable!(),
    }
    Ok(ExitCode::SUCCESS)
}

fn stats(a: StatsArgs) -> Result<ExitCode> {
    let store = open(&a.store)?;
    // checked first: the statistics below read every table the check
    // verifies, and a damaged store is reported, not read
    if a.check {
        if let Err(e) = store.check() {
            bail!("{}: check failed: {e} (the store is damaged; its statistics were not read)", a.store.display());
        }
    }
    let tables = store.table_stats();
    let sum = |f: &dyn Fn(&outcore_dynamic::partition::TableStats) -> u64| tables.iter().map(f).sum::<u64>();
    let max = |f: &dyn Fn(&outcore_dynamic::partition::TableStats) -> u32| tables.iter().map(f).max().unwrap_or(0);
    let c = store.counts();
    let arcs = store.arcs();
    let mut sources = 0u64;
    store.for_each_source(|_| sources += 1);
    let low_live = sum(&|t| t.low_live);
    let chunk_live = sum(&|t| t.chunk_live);
    let v = json!({
        "store": a.store,
        "options": store.options,
        "commit": store.epoch(),
        "sources": sources,
        "arcs": arcs,
        "vertices_with_edge_tables": c.chunked,
        "low_degree_table": {"slots": sum(&|t| t.low_slots), "live": low_live, "tombstones": sum(&|t| t.low_tombstones),
            "mean_probe": sum(&|t| t.low_probe_sum) as f64 / low_live.max(1) as f64, "max_probe": max(&|t| t.low_max_probe)},
        "vertex_table": {"slots": sum(&|t| t.vertex_slots), "live": sum(&|t| t.vertex_live), "max_probe": max(&|t| t.vertex_max_probe)},
        "edge_tables": {"tables": sum(&|t| t.chunks), "slots": sum(&|t| t.chunk_slots), "live": chunk_live, "tombstones": sum(&|t| t.chunk_tombstones),
            "mean_probe": sum(&|t| t.chunk_probe_sum) as f64 / chunk_live.max(1) as f64, "max_probe": max(&|t| t.chunk_max_probe)},
        "moves_up": c.moves_up, "moves_down": c.moves_down, "grows": c.grows, "rehashes": c.rehashes,
        "heap_bytes": store.heap_bytes(), "free_bytes": store.free_bytes(),
        "bytes_per_edge": store.heap_bytes() as f64 / arcs.max(1) as f64,
        "check": a.check.then_some("ok"),
    });
    if a.json {
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        println!("{}: commit {}, {:?}", a.store.display(), store.epoch(), store.options);
        println!(
            "  {} sources, {} edges ({} in edge tables of {} vertices, {} in the low-degree table)",
            crate::grouped(sources),
            crate::grouped(arcs),
            crate::grouped(chunk_live),
            crate::grouped(c.chunked),
            crate::grouped(low_live)
        );
        for key in ["low_degree_table", "vertex_table", "edge_tables"] {
            println!("  {key}: {}", v[key]);
        }
        println!("  moves up {}, down {}; grows {}, rehashes {}", c.moves_up, c.moves_down, c.grows, c.rehashes);
        println!(
            "  heap {} MB ({} MB free blocks), {:.1} bytes per edge",
            store.heap_bytes() >> 20,
            store.free_bytes() >> 20,
            v["bytes_per_edge"].as_f64().unwrap()
        );
        if a.check {
            println!("  check: ok");
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn snapshot(a: SnapshotArgs) -> Result<ExitCode> {
    let store = open(&a.store)?;
    let encoding = a.encoding.as_deref().map(crate::cmd::recode::parse_encoding).transpose()?;
    for l in &a.layouts {
        if !["out", "in", "tiles"].contains(&l.as_str()) {
            bail!("unknown layout '{l}' (out, in, tiles)");
        }
    }
    let in_layout = a.layouts.iter().any(|l| l == "in");
    let opts = outcore_ingest::ImportOptions { encoding, memory: a.memory, force: a.force, in_layout, ..Default::default() };
    let bars = Bars::new(a.json);
    let r = outcore_dynamic::snapshot::snapshot(&store, &a.output, opts, &bars)?;
    crate::cmd::import::print_report(&r, a.json);
    if a.layouts.iter().any(|l| l == "tiles") {
        outcore_ingest::tiles::add_tiles(
            &a.output,
            outcore_ingest::tiles::DEFAULT_GROUP,
            outcore_ingest::tiles::SPAN_BITS,
            a.memory,
            &bars,
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

fn color(a: ColorArgs) -> Result<ExitCode> {
    let mut store = open(&a.store)?;
    let t = Instant::now();
    let first = coloring::color_all(&mut store)?;
    store.commit()?;
    let mut recoloured = first.recoloured;
    let mut batches = 0u64;
    let check = a.check;
    let (r, secs) = apply_files(&mut store, &a.updates, &a.stream, &mut |s, b| {
        let (r, c) = coloring::apply_colored(s, b)?;
        recoloured += c.recoloured;
        batches += 1;
        if check {
            coloring::check_coloring(s)
                .map_err(|e| outcore_dynamic::error::DynError::Usage(format!("the colouring is not proper after batch {batches}: {e}")))?;
        }
        Ok(r)
    })?;
    let colours = coloring::check_coloring(&store).map_err(|e| anyhow::anyhow!("the colouring is not proper: {e}"))?;
    if let Some(path) = &a.output {
        outcore::output::write_with(path, a.force, &[&a.store], |w| {
            for (u, c) in coloring::colours(&store) {
                writeln!(w, "{u} {c}")?;
            }
            Ok(())
        })?;
    }
    let total = t.elapsed().as_secs_f64();
    if a.stream.json {
        let mut v = report_json(&r, secs, &store);
        v["colours"] = json!(colours);
        v["recoloured"] = json!(recoloured);
        v["batches_checked"] = json!(if check { batches } else { 0 });
        v["total_seconds"] = json!(total);
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        if r.updates > 0 {
            print_apply(&r, secs, &store);
        }
        println!(
            "colouring: {} colours, proper{}; {} vertices (re)coloured in {:.2} s",
            colours,
            if check { format!(" after each of {batches} batches") } else { String::new() },
            crate::grouped(recoloured),
            total
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn run_bfs(a: BfsArgs) -> Result<ExitCode> {
    let store = open(&a.store)?;
    let t = Instant::now();
    let Some(r) = bfs::bfs(&store, a.root) else { bail!("{}: root {} is not a vertex of the store", a.store.display(), a.root) };
    let secs = t.elapsed().as_secs_f64();
    if let Some(path) = &a.output {
        let unreached = outcore_algorithms::values::UNREACHED_U64;
        outcore::output::write_id_values(path, a.force, &[&a.store], r.index.ids.iter().copied(), |i, out| match r.level[i] {
            l if l == unreached => write!(out, "{}", i64::MAX).unwrap(),
            l => write!(out, "{l}").unwrap(),
        })?;
    }
    let depth = r.level.iter().filter(|&&l| l != outcore_algorithms::values::UNREACHED_U64).max().copied().unwrap_or(0);
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(
                &json!({"root": a.root, "reached": r.reached, "vertices": r.index.len(), "depth": depth, "arcs_scanned": r.arcs_scanned, "seconds": secs})
            )?
        );
    } else {
        println!(
            "BFS from {}: reached {} of {} vertices, depth {}, {} arcs in {:.2} s",
            a.root,
            crate::grouped(r.reached),
            crate::grouped(r.index.len() as u64),
            depth,
            crate::grouped(r.arcs_scanned),
            secs
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn run_pagerank(a: PageRankArgs) -> Result<ExitCode> {
    let store = open(&a.store)?;
    if !(0.0..=1.0).contains(&a.damping) {
        bail!("damping {} is not between 0 and 1", a.damping);
    }
    let t = Instant::now();
    let r = pagerank::pagerank(&store, a.damping, a.iterations);
    let secs = t.elapsed().as_secs_f64();
    if let Some(path) = &a.output {
        outcore::output::write_id_values(path, a.force, &[&a.store], r.index.ids.iter().copied(), |i, out| {
            outcore::graphalytics_float(r.rank[i], out)
        })?;
    }
    if a.json {
        println!("{}", serde_json::to_string_pretty(&json!({"vertices": r.index.len(), "iterations": a.iterations, "seconds": secs}))?);
    } else {
        println!("PageRank: {} iterations on {} vertices in {:.2} s", a.iterations, crate::grouped(r.index.len() as u64), secs);
    }
    Ok(ExitCode::SUCCESS)
}
