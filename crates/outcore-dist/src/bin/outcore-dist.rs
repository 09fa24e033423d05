//! `outcore-dist`: outcore's commands across the ranks of an MPI job.
//! Run it under `mpirun -n P` (or `srun`); every rank runs the same
//! command, rank 0 prints. See README.md, "Across machines".

use anyhow::{bail, Result};
use clap::Parser;
use outcore_algorithms::pagerank::Params as PageRankParams;
use outcore_algorithms::values::UNREACHED_U64;
use outcore_dist::analytics;
use outcore_dist::coloring;
use outcore_dist::comm::{Comm, MpiComm};
use outcore_dist::dynamic::{agree, ApplyOptions, DistDynamic};
use outcore_dist::error::DistError;
use outcore_dist::part::{Part, PartShape};
use outcore_dist::statics::{bfs, pagerank, sssp, wcc, RankFigures};
use outcore_dynamic::store::{StoreOptions, DEFAULT_THRESHOLD};
use outcore_dynamic::updates::StreamFormat;
use outcore_io::{Budget, Reservation};
use serde_json::json;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(Parser)]
#[command(name = "outcore-dist", version, about = "outcore across the ranks of an MPI job (run under mpirun -n P or srun)")]
struct Cli {
    #[command(subcommand)]
    command: Top,
}

#[derive(clap::Subcommand)]
enum Top {
    /// The distributed dynamic store (DegAwareRHH across ranks, thesis section 4.4).
    #[command(subcommand)]
    Dynamic(Cmd),
    /// Import plain-text edge lists into a partitioned static store: every rank reads its blocks, each owner sorts its share.
    Import(ImportArgs),
    /// BFS on a partitioned static store: direction-optimizing (Beamer et al. 2013), each rank reading its part out of core.
    Bfs(StaticBfsArgs),
    /// PageRank on a partitioned static store (the single-machine semantics and stopping rule).
    Pagerank(StaticPageRankArgs),
    /// Weakly connected components on a partitioned static store: label propagation with shortcutting.
    Wcc(StaticArgs),
    /// Shortest paths on a weighted partitioned static store: Bellman-Ford supersteps.
    Sssp(StaticSsspArgs),
    /// The Graph500 benchmark across ranks: distributed generation and construction, BFS and SSSP kernels, the five validation rules.
    Graph500(Graph500Args),
}

#[derive(clap::Args)]
struct Graph500Args {
    /// 2^scale vertices.
    #[arg(long)]
    scale: u32,
    /// Edges generated per vertex.
    #[arg(long, default_value_t = 16)]
    edge_factor: u64,
    /// Search roots (distinct, of degree >= 1).
    #[arg(long, default_value_t = 64)]
    roots: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Memory budget per rank, page cache included.
    #[arg(long, default_value = "1G", value_parser = outcore_io::parse_size)]
    memory: u64,
    /// Skip kernel 3 (SSSP).
    #[arg(long)]
    no_sssp: bool,
    #[arg(long)]
    json: bool,
}

/// A partitioned static store and what every static command takes.
#[derive(clap::Args)]
struct StaticArgs {
    /// The parts (from `outcore partition` or `outcore-dist import`): a path with {rank} in it.
    parts: String,
    /// Memory budget per rank, page cache included: the part's tables, the algorithm's state, the traverse engine's index and cache.
    #[arg(long, default_value = "1G", value_parser = outcore_io::parse_size)]
    memory: u64,
    #[command(flatten)]
    out: OutputFlags,
}

#[derive(clap::Args)]
struct StaticBfsArgs {
    #[command(flatten)]
    common: StaticArgs,
    /// The root (an original id).
    #[arg(long)]
    root: u64,
    /// hybrid (direction-optimizing; a directed graph runs top-down) or top-down.
    #[arg(long, default_value = "hybrid")]
    direction: String,
    /// Switch to bottom-up when the frontier's arcs pass the unvisited arcs / alpha.
    #[arg(long, default_value_t = 15.0)]
    alpha: f64,
    /// Switch back to top-down when the frontier falls below |V| / beta.
    #[arg(long, default_value_t = 18.0)]
    beta: f64,
    /// What --output writes: level or parent.
    #[arg(long, default_value = "level")]
    values: String,
}

#[derive(clap::Args)]
struct StaticPageRankArgs {
    #[command(flatten)]
    common: StaticArgs,
    #[arg(long, default_value_t = 0.85)]
    damping: f64,
    /// Run exactly N iterations (Graphalytics); with --tolerance, at most N (default: until converged, at most 1000).
    #[arg(long)]
    iterations: Option<u32>,
    /// Stop once an iteration changes the ranks by less than this (L1; default |V| x 1e-6 when --iterations is not given).
    #[arg(long)]
    tolerance: Option<f64>,
    /// Where each rank keeps its rank files on an undirected graph (16 bytes an owned vertex, removed at the end); {rank} is replaced by the rank. Default: the rank's part directory.
    #[arg(long)]
    temp_dir: Option<String>,
}

#[derive(clap::Args)]
struct StaticSsspArgs {
    #[command(flatten)]
    common: StaticArgs,
    /// The root (an original id).
    #[arg(long)]
    root: u64,
    /// What --output writes: distance or parent.
    #[arg(long, default_value = "distance")]
    values: String,
}

#[derive(clap::Args)]
struct ImportArgs {
    /// Plain-text edge lists (u v [w] per line), on a file system every rank sees.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// The parts: a path with {rank} in it.
    #[arg(short, long)]
    output: String,
    /// The edges are undirected (each part gets both arcs of its vertices' edges).
    #[arg(long)]
    undirected: bool,
    /// Keep a weight per edge (third column).
    #[arg(long)]
    weighted: bool,
    /// Keep parallel edges.
    #[arg(long)]
    multigraph: bool,
    /// Memory budget per rank, page cache included.
    #[arg(long, default_value = "1G", value_parser = outcore_io::parse_size)]
    memory: u64,
    /// Bytes of input each rank reads per round.
    #[arg(long, default_value = "4M", value_parser = outcore_io::parse_size)]
    block: u64,
    /// Replace existing parts.
    #[arg(long)]
    force: bool,
    #[arg(long)]
    json: bool,
}

#[derive(clap::Subcommand)]
enum Cmd {
    /// Create an empty distributed dynamic store: one part per rank.
    Create(CreateArgs),
    /// Apply update streams, read by all ranks at once; commits across ranks at the end.
    Apply(ApplyArgs),
    /// Look up a vertex or an edge at its owner: degree U | neighbours U | edge U V | property U.
    Query(QueryArgs),
    /// Counts per rank and in all; --check verifies every part's invariants.
    Stats(StatsArgs),
    /// Write the current graph as a partitioned static store: each rank's arcs as an outcore store.
    Snapshot(SnapshotArgs),
    /// Maintain a proper colouring while applying update streams (section 4.8.2): priority by id, conflicts resolved by the lower-priority end's owner.
    Color(ColorArgs),
    /// BFS levels across ranks.
    Bfs(BfsArgs),
    /// PageRank (Graphalytics semantics) across ranks.
    Pagerank(PageRankArgs),
}

/// The store: a path with {rank} in it (one directory per rank).
#[derive(clap::Args)]
struct StoreArg {
    /// The parts' directories, e.g. /ssd/graph/part-{rank} (each rank's on its own node's disk).
    store: String,
}

#[derive(clap::Args)]
struct CreateArgs {
    #[command(flatten)]
    store: StoreArg,
    /// Store both directions of every edge (each on the owner of its source).
    #[arg(long)]
    undirected: bool,
    /// Keep an f32 weight per edge.
    #[arg(long)]
    weighted: bool,
    /// Keep parallel edges (as a multiplicity).
    #[arg(long)]
    multigraph: bool,
    /// Partitions per rank (one worker thread each while applying); default: the cores of the node divided among its ranks.
    #[arg(long)]
    partitions: Option<usize>,
    /// Vertices with at least this many distinct out-neighbours get their own edge table.
    #[arg(long, default_value_t = DEFAULT_THRESHOLD)]
    threshold: u32,
}

#[derive(clap::Args)]
struct ApplyArgs {
    #[command(flatten)]
    store: StoreArg,
    /// Update streams (every rank reads its blocks of each: they must be on a file system all ranks see).
    #[arg(required = true)]
    updates: Vec<PathBuf>,
    #[command(flatten)]
    stream: StreamFlags,
}

#[derive(clap::Args)]
struct ColorArgs {
    #[command(flatten)]
    store: StoreArg,
    /// Update streams to apply while colouring (none: colour the store as it is).
    updates: Vec<PathBuf>,
    /// Check after every round of updates that the colouring is proper (asks every edge's other end).
    #[arg(long)]
    check: bool,
    /// Write `vertex colour` lines: a path with {rank} writes one file per rank; without, one file in rank order (- for rank 0's standard output).
    #[arg(long)]
    output: Option<String>,
    /// Replace existing output files.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    stream: StreamFlags,
}

#[derive(clap::Args)]
struct StreamFlags {
    /// Stream format if the extension does not tell: updates, updb, or an import format.
    #[arg(long)]
    format: Option<String>,
    /// Commit across ranks every N updates (default: once, at the end).
    #[arg(long)]
    commit_every: Option<u64>,
    /// Memory budget per rank, mapped tables included (e.g. 512M, 4G).
    #[arg(long, default_value = "1G", value_parser = outcore_io::parse_size)]
    memory: u64,
    /// Bytes of stream each rank reads per round (smaller: more, smaller messages).
    #[arg(long, default_value = "1M", value_parser = outcore_io::parse_size)]
    block: u64,
    /// Print JSON, with per-rank figures (updates applied, messages and bytes, wait time).
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
struct QueryArgs {
    #[command(flatten)]
    store: StoreArg,
    /// degree, neighbours, edge or property.
    #[arg(value_parser = ["degree", "neighbours", "neighbors", "edge", "property"])]
    what: String,
    u: u64,
    v: Option<u64>,
}

#[derive(clap::Args)]
struct StatsArgs {
    #[command(flatten)]
    store: StoreArg,
    /// Verify every part's layout invariants.
    #[arg(long)]
    check: bool,
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
struct SnapshotArgs {
    #[command(flatten)]
    store: StoreArg,
    /// Static parts to create: a path with {rank} in it.
    output: String,
    /// Memory budget per rank for the import.
    #[arg(long, default_value = "1G", value_parser = outcore_io::parse_size)]
    memory: u64,
    /// Replace existing static stores.
    #[arg(long)]
    force: bool,
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
struct OutputFlags {
    /// Write `vertex value` lines: a path with {rank} writes one file per rank (its vertices); without, one file that rank 0 writes in rank order (- for its standard output).
    #[arg(long)]
    output: Option<String>,
    /// Replace existing output files.
    #[arg(long)]
    force: bool,
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
struct BfsArgs {
    #[command(flatten)]
    store: StoreArg,
    #[arg(long)]
    root: u64,
    #[command(flatten)]
    out: OutputFlags,
}

#[derive(clap::Args)]
struct PageRankArgs {
    #[command(flatten)]
    store: StoreArg,
    #[arg(long, default_value_t = 10)]
    iterations: u32,
    #[arg(long, default_value_t = 0.85)]
    damping: f64,
    #[command(flatten)]
    out: OutputFlags,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // SIGINT or SIGTERM: the work stops, and what it staged is removed,
    // within mpirun's second between its SIGTERM and its SIGKILL
    outcore_io::staging::install_interrupt_handler_within(std::time::Duration::from_millis(300));
    let Some(comm) = MpiComm::init() else {
        eprintln!("outcore-dist: MPI was already initialised");
        return ExitCode::FAILURE;
    };
    let result = match cli.command {
        Top::Dynamic(cmd) => run(&comm, cmd),
        Top::Import(a) => import(&comm, a),
        Top::Bfs(a) => static_bfs(&comm, a),
        Top::Pagerank(a) => static_pagerank(&comm, a),
        Top::Wcc(a) => static_wcc(&comm, a),
        Top::Sssp(a) => static_sssp(&comm, a),
        Top::Graph500(a) => graph500(&comm, a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // a rank that failed says why; rank 0 also says when others did
            let other = matches!(e.downcast_ref::<DistError>(), Some(DistError::OtherRanks { .. }));
            if !other || comm.rank() == 0 {
                // one write, so ranks' messages do not interleave
                let _ = std::io::stderr().write_all(format!("outcore-dist: rank {}: {e:#}\n", comm.rank()).as_bytes());
            }
            ExitCode::FAILURE
        }
    }
}

fn run(comm: &MpiComm, cmd: Cmd) -> Result<()> {
    match cmd {
        Cmd::Create(a) => create(comm, a),
        Cmd::Apply(a) => apply(comm, a),
        Cmd::Query(a) => query(comm, a),
        Cmd::Stats(a) => stats(comm, a),
        Cmd::Snapshot(a) => snapshot(comm, a),
        Cmd::Color(a) => color(comm, a),
        Cmd::Bfs(a) => bfs(comm, a),
        Cmd::Pagerank(a) => pagerank(comm, a),
    }
}

fn import(comm: &MpiComm, a: ImportArgs) -> Result<()> {
    let opts = outcore_dist::import::DistImportOptions {
        directed: !a.undirected,
        weighted: a.weighted,
        multigraph: a.multigraph,
        memory: a.memory,
        block_bytes: a.block,
        force: a.force,
    };
    let t = Instant::now();
    let m = outcore_dist::import::import(comm, &a.inputs, &a.output, &opts)?;
    if comm.rank() == 0 {
        if a.json {
            println!(
                "{}",
                serde_json::to_string_pretty(
                    &json!({"manifest": m, "seconds": t.elapsed().as_secs_f64(), "traffic_rank0": comm.traffic()})
                )?
            );
        } else {
            println!(
                "imported {} vertices, {} arcs ({}) into {} parts in {:.2} s",
                m.vertices,
                m.arcs,
                if m.directed { "directed" } else { "undirected: both arcs of every edge" },
                m.ranks,
                t.elapsed().as_secs_f64()
            );
            for p in &m.parts {
                println!("  rank {}: {} vertices, {} arcs", p.rank, p.vertices, p.arcs);
            }
        }
    }
    Ok(())
}

/// Ranks on this node (Open MPI and Slurm say; else 1).
fn local_ranks() -> usize {
    ["OMPI_COMM_WORLD_LOCAL_SIZE", "SLURM_NTASKS_PER_NODE", "MPI_LOCALNRANKS"]
        .iter()
        .find_map(|k| std::env::var(k).ok()?.parse::<usize>().ok())
        .unwrap_or(1)
        .max(1)
}

fn create(comm: &MpiComm, a: CreateArgs) -> Result<()> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let partitions = a.partitions.unwrap_or((cores / local_ranks()).max(1));
    let options =
        StoreOptions { partitions, undirected: a.undirected, weighted: a.weighted, multigraph: a.multigraph, threshold: a.threshold };
    let d = DistDynamic::create(comm, &a.store.store, options)?;
    if comm.rank() == 0 {
        println!(
            "created {} ({} ranks of {} partitions, {}, {}{}, threshold {})",
            a.store.store,
            comm.size(),
            partitions,
            if a.undirected { "undirected" } else { "directed" },
            if a.multigraph { "multigraph" } else { "unique edges" },
            if a.weighted { ", weighted" } else { "" },
            a.threshold
        );
    }
    drop(d);
    Ok(())
}

/// How `apply` and `color` read streams, from their flags.
fn apply_options(flags: &StreamFlags) -> Result<ApplyOptions> {
    let format = match &flags.format {
        Some(f) => Some(
            StreamFormat::from_name(f)
                .ok_or_else(|| anyhow::anyhow!("unknown stream format '{f}' (updates, updb, or an import format)"))?,
        ),
        None => None,
    };
    // a round's buffers (the block's updates, their routed and framed
    // copies, what arrives, the store's sorted batch) take about 40 bytes
    // per byte of a text block (an update is ~14 bytes of text and ~300 in
    // those buffers; measured: 1M blocks raised a rank's peak by 45 MiB);
    // the store gets the rest
    let rounds = flags.block.saturating_mul(48);
    if flags.memory < (64 << 20) + rounds {
        bail!(
            "--memory {} is too small: each rank's store needs at least 64M, and its rounds 48 x --block ({}) more (or pass a smaller --block)",
            outcore_io::format_bytes(flags.memory),
            outcore_io::format_bytes(rounds)
        );
    }
    Ok(ApplyOptions {
        format,
        block_bytes: flags.block,
        commit_every: flags.commit_every,
        resident_limit: Some(flags.memory - outcore_io::PROCESS_BASELINE - rounds),
    })
}

fn apply(comm: &MpiComm, a: ApplyArgs) -> Result<()> {
    let opts = apply_options(&a.stream)?;
    let mut d = DistDynamic::open(comm, &a.store.store)?;
    let t = Instant::now();
    let r = d.apply_files(&a.updates, &opts)?;
    let secs = t.elapsed().as_secs_f64();
    let figures = comm.all_gather(d.rank_figures(Some(&r)).to_string().as_bytes());
    let arcs = comm.sum(&[d.store.arcs()])[0];
    if comm.rank() == 0 {
        let ranks: Vec<serde_json::Value> = figures.iter().map(|b| serde_json::from_slice(b).expect("figures are JSON")).collect();
        if a.stream.json {
            let v = json!({
                "report": r.total, "seconds": secs, "updates_per_second": r.total.updates as f64 / secs.max(1e-9),
                "ranks": comm.size(), "rounds": r.rounds, "commits": r.commits, "global_commit": d.global.commit,
                "arcs": arcs, "per_rank": ranks,
            });
            println!("{}", serde_json::to_string_pretty(&v)?);
        } else {
            let t = &r.total;
            println!(
                "applied {} updates in {:.2} s ({:.2} M updates/s, {} ranks, {} rounds)",
                t.updates,
                secs,
                t.updates as f64 / secs.max(1e-9) / 1e6,
                comm.size(),
                r.rounds
            );
            println!(
                "  edges: {} inserted, {} already present or parallel, {} deleted, {} deletes of missing edges",
                t.inserted, t.existing, t.deleted, t.missing
            );
            if t.vertices_inserted + t.properties_set + t.vertices_deleted + t.vertices_missing > 0 {
                println!(
                    "  vertices: {} inserted, {} properties set, {} deleted (with {} edges), {} deletes of missing vertices",
                    t.vertices_inserted, t.properties_set, t.vertices_deleted, t.edges_of_deleted_vertices, t.vertices_missing
                );
            }
            println!("  store: {} edges, global commit {} ({} updates committed)", arcs, d.global.commit, d.global.updates);
        }
    }
    Ok(())
}

fn query(comm: &MpiComm, a: QueryArgs) -> Result<()> {
    let d = DistDynamic::open(comm, &a.store.store)?;
    if a.what == "edge" && a.v.is_none() {
        bail!("edge takes two vertices: query STORE edge U V");
    }
    let owner = d.rank_of(a.u);
    let (text, found) = if comm.rank() == owner {
        let s = &d.store;
        let mut out = String::new();
        let found = match a.what.as_str() {
            "degree" => {
                out = format!("{}\n", s.degree(a.u));
                true
            }
            "neighbours" | "neighbors" => {
                let mut n = s.neighbours(a.u);
                n.sort_by_key(|e| e.target);
                for e in n {
                    out += &match (s.options.weighted, s.options.multigraph) {
                        (false, false) => format!("{}\n", e.target),
                        (true, false) => format!("{} {}\n", e.target, e.weight),
                        (false, true) => format!("{} x{}\n", e.target, e.count),
                        (true, true) => format!("{} {} x{}\n", e.target, e.weight, e.count),
                    };
                }
                true
            }
            "edge" => match s.edge(a.u, a.v.unwrap_or(0)) {
                Some(e) => {
                    out = format!("{} {} weight {} count {}\n", a.u, a.v.unwrap_or(0), e.weight, e.count);
                    true
                }
                None => {
                    out = format!("no edge {} {}\n", a.u, a.v.unwrap_or(0));
                    false
                }
            },
            _ => match s.property(a.u) {
                Some(x) => {
                    out = format!("{x}\n");
                    true
                }
                None => {
                    out = format!("vertex {} has no entry (no property, fewer than {} neighbours)\n", a.u, s.options.threshold);
                    false
                }
            },
        };
        (out, found)
    } else {
        (String::new(), true)
    };
    let answer = comm.broadcast(owner, &[[found as u8].as_slice(), text.as_bytes()].concat());
    if comm.rank() == 0 {
        print!("{}", String::from_utf8_lossy(&answer[1..]));
    }
    if answer[0] == 0 {
        std::process::exit(1);
    }
    Ok(())
}

fn stats(comm: &MpiComm, a: StatsArgs) -> Result<()> {
    let d = DistDynamic::open(comm, &a.store.store)?;
    if a.check {
        let checked = d.store.check().map_err(|e| DistError::Corrupt(format!("{}: check failed: {e}", d.dir().display())));
        agree(comm, checked)?;
    }
    let figures = comm.all_gather(d.rank_figures(None).to_string().as_bytes());
    if comm.rank() == 0 {
        let ranks: Vec<serde_json::Value> = figures.iter().map(|b| serde_json::from_slice(b).expect("figures are JSON")).collect();
        let total = |k: &str| ranks.iter().map(|r| r[k].as_u64().unwrap_or(0)).sum::<u64>();
        let v = json!({
            "store": a.store.store, "ranks": comm.size(), "options": d.manifest.options, "owner": d.manifest.owner,
            "global_commit": d.global.commit, "updates_committed": d.global.updates,
            "sources": total("sources"), "arcs": total("arcs"), "heap_bytes": total("heap_bytes"),
            "check": a.check.then_some("ok"), "per_rank": ranks,
        });
        if a.json {
            println!("{}", serde_json::to_string_pretty(&v)?);
        } else {
            println!(
                "{}: {} ranks, global commit {} ({} updates), {:?}",
                a.store.store,
                comm.size(),
                d.global.commit,
                d.global.updates,
                d.manifest.options
            );
            println!("  {} sources, {} edges, {} MB of tables", v["sources"], v["arcs"], v["heap_bytes"].as_u64().unwrap_or(0) >> 20);
            for r in &ranks {
                println!(
                    "  rank {}: {} sources, {} edges, epoch {} ({})",
                    r["rank"],
                    r["sources"],
                    r["arcs"],
                    r["epoch"],
                    r["part"].as_str().unwrap_or("")
                );
            }
            if a.check {
                println!("  check: ok");
            }
        }
    }
    Ok(())
}

fn snapshot(comm: &MpiComm, a: SnapshotArgs) -> Result<()> {
    let d = DistDynamic::open(comm, &a.store.store)?;
    let written = outcore_dist::manifest::part_dir(&a.output, comm.rank(), comm.size()).and_then(|target| {
        outcore_dist::manifest::create_parent(&target)?;
        let opts = outcore_ingest::ImportOptions { memory: a.memory, force: a.force, ..Default::default() };
        let r = outcore_dynamic::snapshot::snapshot_arcs(&d.store, &target, opts, &outcore_io::NoProgress)?;
        Ok((target, r))
    });
    let (target, r) = agree(comm, written)?;
    // the parts form a partitioned static store (partition.json in each)
    let o = d.manifest.options;
    let source = format!("distributed dynamic store {} at global commit {}", a.store.store, d.global.commit);
    let m = outcore_dist::import::write_manifests(comm, &target, r.vertices, r.edges, !o.undirected, o.weighted, &source)?;
    let edges = m.arcs;
    if comm.rank() == 0 {
        if a.json {
            println!(
                "{}",
                serde_json::to_string_pretty(
                    &json!({"output": a.output, "ranks": comm.size(), "arcs": edges, "global_commit": d.global.commit})
                )?
            );
        } else {
            println!("wrote {} ({} ranks' parts, {} arcs, global commit {})", a.output, comm.size(), edges, d.global.commit);
        }
    }
    Ok(())
}

fn color(comm: &MpiComm, a: ColorArgs) -> Result<()> {
    let opts = apply_options(&a.stream)?;
    let mut d = DistDynamic::open(comm, &a.store.store)?;
    agree(comm, coloring::require_undirected(&d))?;
    let t = Instant::now();
    let first = coloring::color_all(&mut d)?;
    d.commit(d.global.updates)?;
    let (mut recoloured, mut rounds, mut batches) = (first.recoloured, first.rounds, 0u64);
    let report = if a.updates.is_empty() {
        None
    } else {
        let check = a.check;
        Some(d.apply_files_with(&a.updates, &opts, &mut |d, seeds| {
            let c = coloring::repair(d, seeds)?;
            recoloured += c.recoloured;
            rounds += c.rounds;
            batches += 1;
            if check {
                coloring::check_coloring(d).map_err(|e| DistError::Usage(format!("after batch {batches}: {e}")))?;
            }
            Ok(())
        })?)
    };
    let (colours, max_degree) = coloring::check_coloring(&d)?;
    let flags = OutputFlags { output: a.output.clone(), force: a.force, json: a.stream.json };
    write_output(comm, &flags, &a.store.store, coloring::colours(&d), |c, out| write!(out, "{c}").unwrap())?;
    let secs = t.elapsed().as_secs_f64();
    if comm.rank() == 0 {
        if a.stream.json {
            println!(
                "{}",
                serde_json::to_string_pretty(&json!({"report": report.map(|r| r.total), "colours": colours, "max_degree": max_degree,
                    "recoloured": recoloured, "colouring_rounds": rounds, "batches_checked": if a.check { batches } else { 0 },
                    "seconds": secs, "ranks": comm.size(), "global_commit": d.global.commit}))?
            );
        } else {
            if let Some(r) = report {
                println!("applied {} updates in {} batches", r.total.updates, batches);
            }
            println!(
                "colouring: {colours} colours (max degree {max_degree}), proper{}; {recoloured} vertices (re)coloured in {rounds} rounds, {secs:.2} s on {} ranks",
                if a.check { format!(" after each of {batches} batches") } else { String::new() },
                comm.size()
            );
        }
    }
    Ok(())
}

/// Write `id value` lines: per rank with {rank} in the path, else one file in rank order.
fn write_output(comm: &MpiComm, flags: &OutputFlags, store: &str, pairs: Vec<(u64, u64)>, value: impl Fn(u64, &mut Vec<u8>)) -> Result<()> {
    let Some(path) = &flags.output else { return Ok(()) };
    outcore_dist::output::write_pairs(comm, path, flags.force, store, pairs, value)?;
    Ok(())
}

/// A part's results, one per owned vertex, as `id value` lines if asked
/// for: owned vertices ascend in original id, so the lines are formatted
/// from the result as they go, with no list of them gathered first.
fn write_owned(comm: &MpiComm, flags: &OutputFlags, parts: &str, part: &Part, value: impl Fn(usize, &mut Vec<u8>)) -> Result<()> {
    let Some(path) = &flags.output else { return Ok(()) };
    outcore_dist::output::write_sorted(comm, path, flags.force, parts, part.owned_count() as usize, &|i| part.owned_id(i as u32), &value)?;
    Ok(())
}

fn bfs(comm: &MpiComm, a: BfsArgs) -> Result<()> {
    let d = DistDynamic::open(comm, &a.store.store)?;
    let t = Instant::now();
    let Some(r) = analytics::bfs(&d, a.root) else { bail!("{}: root {} is not a vertex of the store", a.store.store, a.root) };
    let secs = t.elapsed().as_secs_f64();
    let pairs: Vec<(u64, u64)> = r.owned.ids.iter().copied().zip(r.level.iter().copied()).collect();
    write_output(comm, &a.out, &a.store.store, pairs, |l, out| {
        if l == outcore_algorithms::values::UNREACHED_U64 {
            write!(out, "{}", i64::MAX).unwrap()
        } else {
            write!(out, "{l}").unwrap()
        }
    })?;
    let figures = comm.all_gather(json!(comm.traffic()).to_string().as_bytes());
    if comm.rank() == 0 {
        if a.out.json {
            let traffic: Vec<serde_json::Value> = figures.iter().map(|b| serde_json::from_slice(b).unwrap()).collect();
            println!(
                "{}",
                serde_json::to_string_pretty(&json!({"root": a.root, "reached": r.reached, "vertices": r.vertices, "depth": r.depth,
                    "arcs_scanned": r.arcs_scanned, "seconds": secs, "ranks": comm.size(), "per_rank_traffic": traffic}))?
            );
        } else {
            println!(
                "BFS from {}: reached {} of {} vertices, depth {}, {} arcs in {:.2} s on {} ranks",
                a.root,
                r.reached,
                r.vertices,
                r.depth,
                r.arcs_scanned,
                secs,
                comm.size()
            );
        }
    }
    Ok(())
}

fn pagerank(comm: &MpiComm, a: PageRankArgs) -> Result<()> {
    if !(0.0..=1.0).contains(&a.damping) {
        bail!("damping {} is not between 0 and 1", a.damping);
    }
    let d = DistDynamic::open(comm, &a.store.store)?;
    let t = Instant::now();
    let r = analytics::pagerank(&d, a.damping, a.iterations);
    let secs = t.elapsed().as_secs_f64();
    let pairs: Vec<(u64, u64)> = r.owned.ids.iter().copied().zip(r.rank.iter().map(|x| x.to_bits())).collect();
    write_output(comm, &a.out, &a.store.store, pairs, |x, out| outcore::graphalytics_float(f64::from_bits(x), out))?;
    if comm.rank() == 0 {
        if a.out.json {
            println!(
                "{}",
                serde_json::to_string_pretty(
                    &json!({"vertices": r.vertices, "iterations": a.iterations, "seconds": secs, "ranks": comm.size()})
                )?
            );
        } else {
            println!("PageRank: {} iterations on {} vertices in {:.2} s on {} ranks", a.iterations, r.vertices, secs, comm.size());
        }
    }
    Ok(())
}

/// Open this rank's part of a partitioned static store under `--memory`,
/// leaving `keep(local, ghosts, vertices)` bytes for the algorithm, and
/// the fraction `spare` of the rest for what it builds where there is room.
fn open_part<'c>(
    comm: &'c MpiComm,
    a: &StaticArgs,
    keep: impl Fn(&PartShape) -> u64,
    spare: f64,
) -> Result<(Part<'c>, (Budget, Reservation))> {
    let budget = agree(comm, outcore_dist::part::rank_budget(a.memory))?;
    let part = Part::open_sharing(comm, &a.parts, &budget.0, keep, spare)?;
    Ok((part, budget))
}

/// Rank 0 prints the summary, or with --json the summary and every rank's figures.
fn report(comm: &MpiComm, a: &StaticArgs, figures: &RankFigures, summary: serde_json::Value, line: String) -> Result<()> {
    let all = comm.all_gather(serde_json::to_string(figures)?.as_bytes());
    if comm.rank() == 0 {
        if a.out.json {
            let ranks: Vec<serde_json::Value> = all.iter().map(|b| serde_json::from_slice(b)).collect::<Result<_, _>>()?;
            let mut summary = summary;
            summary["ranks"] = json!(comm.size());
            summary["per_rank"] = json!(ranks);
            println!("{}", serde_json::to_string_pretty(&summary)?);
        } else {
            let sent: u64 = all.iter().filter_map(|b| serde_json::from_slice::<serde_json::Value>(b).ok()?["bytes_sent"].as_u64()).sum();
            println!("{line} on {} ranks ({} sent between ranks)", comm.size(), outcore_io::format_bytes(sent));
        }
    }
    Ok(())
}

fn pick(values: &str, names: &[&str]) -> Result<usize> {
    names.iter().position(|n| *n == values).ok_or_else(|| anyhow::anyhow!("--values {values}: one of {}", names.join(", ")))
}

fn static_bfs(comm: &MpiComm, a: StaticBfsArgs) -> Result<()> {
    let direction = match a.direction.as_str() {
        "hybrid" => bfs::Direction::Hybrid,
        "top-down" => bfs::Direction::TopDown,
        other => bail!("--direction {other}: hybrid or top-down"),
    };
    if !(a.alpha > 0.0 && a.beta > 0.0) {
        bail!("--alpha and --beta must be positive");
    }
    let column = pick(&a.values, &["level", "parent"])?;
    let (part, budget) = open_part(comm, &a.common, bfs::state_bytes, bfs::HOT_SHARE)?;
    let state = bfs::state_bytes(&part.shape());
    let t = Instant::now();
    let hot = agree(comm, bfs::hot_lists(&part, &budget.0, state))?;
    // each rank's k, and the slowest rank's build
    let hot_columns: Vec<u8> = comm.all_gather(&[hot.as_ref().map_or(0, |h| h.k as u8)]).into_iter().flatten().collect();
    let hot_seconds = comm.max(&[t.elapsed().as_micros() as u64])[0] as f64 / 1e6;
    let opts = bfs::BfsOptions { direction, alpha: a.alpha, beta: a.beta };
    let Some(r) = bfs::bfs(&part, a.root, &opts, hot.as_ref())? else {
        bail!("{}: root {} is not a vertex of the store", a.common.parts, a.root)
    };
    write_owned(comm, &a.common.out, &a.common.parts, &part, |i, out| {
        match (column, if column == 0 { r.level_of(i) } else { r.parent_of(&part.original, i) }) {
            (0, UNREACHED_U64) => write!(out, "{}", i64::MAX).unwrap(),
            (_, UNREACHED_U64) => out.extend_from_slice(b"-1"),
            (_, x) => write!(out, "{x}").unwrap(),
        }
    })?;
    let secs = r.figures.seconds;
    let teps = r.edges_traversed as f64 / secs.max(1e-9);
    let summary = json!({"root": a.root, "reached": r.reached, "vertices": part.vertices(), "depth": r.depth, "arcs_read": r.arcs_read,
        "hot_columns": hot_columns, "hot_seconds": hot_seconds,
        "edges_traversed": r.edges_traversed, "teps": teps, "seconds": secs, "steps": r.steps});
    let bottom_up = r.steps.iter().filter(|s| s.bottom_up).count();
    let line = format!(
        "BFS from {}: reached {} of {} vertices, depth {}, {} steps ({bottom_up} bottom-up), {} edges in {secs:.2} s ({:.3e} TEPS)",
        a.root,
        r.reached,
        part.vertices(),
        r.depth,
        r.steps.len(),
        r.edges_traversed,
        teps
    );
    report(comm, &a.common, &r.figures, summary, line)
}

fn static_pagerank(comm: &MpiComm, a: StaticPageRankArgs) -> Result<()> {
    if !(0.0..=1.0).contains(&a.damping) {
        bail!("--damping {}: between 0 and 1", a.damping);
    }
    if a.tolerance.is_some_and(|t| t.is_nan() || t <= 0.0) {
        bail!("--tolerance must be positive");
    }
    let (part, _budget) = open_part(comm, &a.common, pagerank::state_bytes, 0.0)?;
    let params = PageRankParams { damping: a.damping, iterations: a.iterations, tolerance: a.tolerance };
    let schedule = params.schedule(part.vertices());
    let temp_dir = a.temp_dir.map(|t| PathBuf::from(t.replace("{rank}", &comm.rank().to_string())));
    let r = pagerank::pagerank_with(&part, &schedule, temp_dir.as_deref())?;
    write_owned(comm, &a.common.out, &a.common.parts, &part, |i, out| outcore::graphalytics_float(r.rank[i], out))?;
    let secs = r.figures.seconds;
    let summary = json!({"vertices": part.vertices(), "damping": a.damping, "iterations": r.iterations, "delta": r.delta,
        "stopped_by": r.stopped_by, "seconds": secs});
    let line = format!(
        "PageRank: {} iterations on {} vertices ({}, last L1 change {:.3e}) in {secs:.2} s",
        r.iterations,
        part.vertices(),
        r.stopped_by,
        r.delta
    );
    report(comm, &a.common, &r.figures, summary, line)
}

fn static_wcc(comm: &MpiComm, a: StaticArgs) -> Result<()> {
    let (part, _budget) = open_part(comm, &a, wcc::state_bytes, 0.0)?;
    let r = wcc::wcc(&part)?;
    write_owned(comm, &a.out, &a.parts, &part, |i, out| write!(out, "{}", r.label_of(i)).unwrap())?;
    let secs = r.figures.seconds;
    let summary = json!({"vertices": part.vertices(), "components": r.components, "iterations": r.iterations, "seconds": secs});
    let line = format!("WCC: {} components of {} vertices, {} iterations in {secs:.2} s", r.components, part.vertices(), r.iterations);
    report(comm, &a, &r.figures, summary, line)
}

fn static_sssp(comm: &MpiComm, a: StaticSsspArgs) -> Result<()> {
    let column = pick(&a.values, &["distance", "parent"])?;
    let (part, _budget) = open_part(comm, &a.common, sssp::state_bytes, 0.0)?;
    let Some(r) = sssp::sssp(&part, a.root)? else { bail!("{}: root {} is not a vertex of the store", a.common.parts, a.root) };
    write_owned(comm, &a.common.out, &a.common.parts, &part, |i, out| match (column, r.parent[i]) {
        (0, _) => outcore::graphalytics_float(r.distance[i], out),
        (_, UNREACHED_U64) => out.extend_from_slice(b"-1"),
        (_, x) => write!(out, "{x}").unwrap(),
    })?;
    let secs = r.figures.seconds;
    let summary = json!({"root": a.root, "reached": r.reached, "vertices": part.vertices(), "supersteps": r.supersteps,
        "arcs_relaxed": r.arcs_relaxed, "seconds": secs});
    let line = format!(
        "SSSP from {}: reached {} of {} vertices, {} supersteps, {} arcs relaxed in {secs:.2} s",
        a.root,
        r.reached,
        part.vertices(),
        r.supersteps,
        r.arcs_relaxed
    );
    report(comm, &a.common, &r.figures, summary, line)
}

fn graph500(comm: &MpiComm, a: Graph500Args) -> Result<()> {
    let opts = outcore_dist::graph500::Graph500Options {
        scale: a.scale,
        edge_factor: a.edge_factor,
        roots: a.roots,
        seed: a.seed,
        memory: a.memory,
        sssp: !a.no_sssp,
    };
    let r = outcore_dist::graph500::run(comm, &opts)?;
    if comm.rank() == 0 {
        let block = outcore::graph500::Block {
            scale: a.scale,
            edge_factor: a.edge_factor,
            roots: r.roots,
            generation_seconds: r.generation_seconds,
            processes: comm.size(),
            construction_seconds: r.construction_seconds,
        };
        if a.json {
            let kernel = |k: &outcore::graph500::Kernel| json!({"times": k.times, "nedges": k.nedges, "validation": k.validation, "teps_harmonic_mean": k.teps().harmonic_mean});
            println!(
                "{}",
                serde_json::to_string_pretty(&json!({"scale": a.scale, "edge_factor": a.edge_factor, "ranks": comm.size(),
                    "roots": r.roots, "vertices": r.vertices, "arcs": r.arcs, "generation_seconds": r.generation_seconds,
                    "construction_seconds": r.construction_seconds, "construction_bytes_sent": r.construction_bytes_sent,
                    "bfs_bytes_sent": r.bfs_bytes_sent, "bfs": kernel(&r.bfs), "sssp": r.sssp.as_ref().map(kernel)}))?
            );
        } else {
            print!("{}", block.text(&r.bfs, r.sssp.as_ref()));
            println!(
                "# outcore-dist: {} ranks, {} per rank; {} sent between ranks building the parts, {} in the searches",
                comm.size(),
                outcore_io::format_bytes(a.memory),
                outcore_io::format_bytes(r.construction_bytes_sent),
                outcore_io::format_bytes(r.bfs_bytes_sent)
            );
            println!("# all {} BFS{} results passed the five validation rules", r.roots, if a.no_sssp { "" } else { " and SSSP" });
        }
    }
    Ok(())
}
