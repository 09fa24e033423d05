//! Argument groups shared by several commands: the run options of every
//! algorithm command (budget, engine, the engines' knobs, output, report,
//! verification), typed by their parsers, and the graph flags of `import`
//! and `generate --store`.

use anyhow::{bail, Result};
use clap::builder::{PossibleValue, TypedValueParser};
use clap::{Arg, ArgAction, ArgMatches};
use outcore::{Engine, EngineChoice, RunOptions};
use std::path::PathBuf;

/// `--engine`: `auto` or one of the algorithm's engines (a typed value
/// whose error says which engines there are).
#[derive(Clone)]
pub struct EngineParser {
    pub engines: &'static [Engine],
}

impl TypedValueParser for EngineParser {
    type Value = EngineChoice;
    fn parse_ref(&self, cmd: &clap::Command, _arg: Option<&Arg>, value: &std::ffi::OsStr) -> Result<EngineChoice, clap::Error> {
        let text = value.to_string_lossy();
        let names: Vec<&str> = std::iter::once("auto").chain(self.engines.iter().map(|e| e.name())).collect();
        if text == "auto" {
            return Ok(EngineChoice::Auto);
        }
        match self.engines.iter().find(|e| e.name() == text) {
            Some(e) => Ok(EngineChoice::Fixed(*e)),
            None => {
                let known = Engine::ALL.iter().any(|e| e.name() == text);
                let what = if known { "this algorithm has no" } else { "unknown" };
                Err(clap::Error::raw(clap::error::ErrorKind::InvalidValue, format!("{what} engine '{text}' ({})\n", names.join(", ")))
                    .with_cmd(cmd))
            }
        }
    }
    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(std::iter::once(PossibleValue::new("auto")).chain(self.engines.iter().map(|e| PossibleValue::new(e.name())))))
    }
}

/// `on` / `off`.
fn switch(name: &'static str, default: &'static str, help: &'static str) -> Arg {
    Arg::new(name).long(name).value_parser(["on", "off"]).default_value(default).help(help)
}

/// The run options every algorithm command takes.
pub fn run_args(engines: &'static [Engine], columns: &[&'static str]) -> Vec<Arg> {
    let mut args = vec![
        Arg::new("store").required(true).value_parser(clap::value_parser!(PathBuf)).help("The store to read"),
        Arg::new("memory").long("memory").default_value("1G").value_parser(crate::parse_memory).help("Memory budget, page cache included"),
        Arg::new("engine")
            .long("engine")
            .default_value("auto")
            .value_parser(EngineParser { engines })
            .help("auto (chosen from the store's layouts and the budget; --json says why) or an engine"),
        Arg::new("temp")
            .long("temp")
            .value_parser(clap::value_parser!(PathBuf))
            .help("Directory for temporary files: the interval and sort-reduce engines', triangle counting's forward lists (default: inside the store)"),
        switch("prefetch", "on", "Traverse engine: the run-ahead prefetcher (results never depend on it)"),
        Arg::new("block").long("block").default_value("4K").value_parser(crate::parse_memory).help("Traverse engine: cache block size"),
        Arg::new("depth")
            .long("depth")
            .value_parser(clap::value_parser!(usize))
            .help("Reads kept in flight (default: what `outcore probe` recorded, else 64)"),
        Arg::new("pread").long("pread").action(ArgAction::SetTrue).help("Use the pread thread pool instead of io_uring"),
        Arg::new("segment")
            .long("segment")
            .value_parser(crate::parse_memory)
            .help("Stream engine: segment size (default: from the budget, 1M to 64M)"),
        switch("cache", "on", "Stream engine: keep tiles in a cache pool between iterations"),
        Arg::new("interval_values")
            .long("interval-values")
            .value_parser(clap::value_parser!(u64))
            .help("Interval engine: cap on the values of one interval and its boundary (default: what the budget allows)"),
        Arg::new("output")
            .long("output")
            .short('o')
            .value_parser(clap::value_parser!(PathBuf))
            .help("Write `vertex value` lines (Graphalytics format, original ids) to this file, or to standard output with -"),
        Arg::new("force").long("force").action(ArgAction::SetTrue).help("Replace an existing --output or --report file"),
        Arg::new("report")
            .long("report")
            .value_parser(clap::value_parser!(PathBuf))
            .help("Draw the run's figures per iteration or BFS level (time, bytes read, cache hits, edges, frontier sizes) to this .svg or .html file"),
        Arg::new("top")
            .long("top")
            .value_parser(clap::value_parser!(usize))
            .help("Print the K vertices with the largest values (original ids, ties by id)"),
        Arg::new("json")
            .long("json")
            .action(ArgAction::SetTrue)
            .help("Print the report as JSON (engine and why, times, bytes, peak memory)"),
        Arg::new("verify")
            .long("verify")
            .action(ArgAction::SetTrue)
            .help("Check the result with the algorithm's validator and say PASS or FAIL (exit 1 on FAIL)"),
        Arg::new("dry_run")
            .long("dry-run")
            .action(ArgAction::SetTrue)
            .help("Print the plan (engine and why, every engine's needs, the smallest budget) without running"),
    ];
    if columns.len() > 1 {
        args.push(
            Arg::new("values")
                .long("values")
                .value_parser(clap::builder::PossibleValuesParser::new(columns.to_vec()))
                .default_value(columns[0])
                .help("Which result --output and --top show"),
        );
    }
    args
}

/// The library's run options from the matched flags.
pub fn run_options(m: &ArgMatches) -> Result<RunOptions> {
    let mut o = RunOptions { memory: *m.get_one::<u64>("memory").unwrap(), ..Default::default() };
    o.engine = *m.get_one::<EngineChoice>("engine").unwrap();
    o.temp_dir = m.get_one::<PathBuf>("temp").cloned();
    let block = *m.get_one::<u64>("block").unwrap();
    o.traverse.block_bytes = block as usize;
    o.traverse.prefetch = m.get_one::<String>("prefetch").map(String::as_str) == Some("on");
    o.traverse.force_pread = m.get_flag("pread");
    o.stream.force_pread = m.get_flag("pread");
    if let Some(&d) = m.get_one::<usize>("depth") {
        if d == 0 {
            bail!("--depth must be at least 1");
        }
        o.traverse.depth = d;
        o.stream.depth = d;
    }
    o.stream.segment_bytes = m.get_one::<u64>("segment").copied();
    o.stream.cache = m.get_one::<String>("cache").map(String::as_str) == Some("on");
    o.interval.max_interval_values = m.get_one::<u64>("interval_values").copied();
    Ok(o)
}

/// Flags shared by `import` and `generate --store`.
#[derive(clap::Args, Clone)]
pub struct GraphFlags {
    /// Treat edges as directed.
    #[arg(long, conflicts_with = "undirected")]
    pub directed: bool,
    /// Treat edges as undirected: store both directions of every edge.
    #[arg(long)]
    pub undirected: bool,
    /// Keep parallel edges instead of collapsing them (the smallest weight wins when collapsing).
    #[arg(long)]
    pub keep_duplicates: bool,
    /// Self loops: keep or drop.
    #[arg(long, default_value = "keep", value_parser = ["keep", "drop"])]
    pub self_loops: String,
    /// Layouts to build: out, plus in (in-edge CSR, directed graphs) and
    /// tiles (the G-Store grid, added from out after the import).
    #[arg(long, default_value = "out", value_delimiter = ',')]
    pub layouts: Vec<String>,
    /// Adjacency encoding: raw32, raw64, ceesor or gapref (default: raw32 when ids fit).
    #[arg(long)]
    pub encoding: Option<String>,
    /// Vertex order: none, dfs (CEESOR's DFS enumeration), degree
    /// (descending), bfs, rcm (reverse Cuthill-McKee). Results stay in
    /// original ids.
    #[arg(long, default_value = "none")]
    pub order: String,
    /// Memory budget, page cache included (e.g. 512M, 4G).
    #[arg(long, default_value = "1G", value_parser = crate::parse_memory)]
    pub memory: u64,
    /// Sort buffer size (default: half the budget); small values force many sort runs.
    #[arg(long, value_parser = crate::parse_memory)]
    pub sort_buffer: Option<u64>,
    /// Replace an existing outcore store (never anything else).
    #[arg(long)]
    pub force: bool,
    /// Print the smallest budget the import needs (and whether --memory holds it), and stop.
    #[arg(long)]
    pub dry_run: bool,
}

/// `--dry-run` of the commands whose smallest budget does not depend on
/// the data (layout builds, export, recode): the figure, its parts, and
/// whether `--memory` holds it.
pub fn print_minimum(need: &outcore_io::Minimum, memory: u64, json: bool) -> Result<std::process::ExitCode> {
    let fits = need.check(memory).is_ok();
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(
                &serde_json::json!({"minimum_budget_bytes": need.bytes(), "minimum": need, "memory": memory, "fits": fits})
            )?
        );
    } else {
        println!("{}: smallest budget {} ({})", need.command, outcore_io::format_bytes(need.bytes()), need.describe());
        println!("  --memory {}: {}", outcore_io::format_bytes(memory), if fits { "enough" } else { "too small" });
    }
    Ok(if fits { std::process::ExitCode::SUCCESS } else { std::process::ExitCode::FAILURE })
}
