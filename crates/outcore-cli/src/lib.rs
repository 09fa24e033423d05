//! `outcore`: the command-line interface, a thin layer over the library
//! API (the `outcore` crate). One file per command in [`cmd`]; the
//! algorithm commands are made from the registry ([`cmd::run`]), so a new
//! algorithm gets its command from its registry line. Errors are typed in
//! the libraries; [`errors`] turns them into one line with the flag or the
//! command that fixes them, and only [`cli_main`] decides exit codes.

pub mod args;
pub mod cmd;
pub mod errors;
pub mod progress;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use std::ffi::OsString;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "outcore", version, about = "Graph analytics and graph store for graphs larger than memory")]
struct Cli {
    /// No progress bars (they appear only when stderr is a terminal).
    #[arg(long, short, global = true)]
    quiet: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Import an edge list or graph file into a store (external memory).
    Import(cmd::import::Args),
    /// Write a store back out as an edge list in original ids.
    Export(cmd::export::Args),
    /// Generate a synthetic graph (Kronecker/Graph500, uniform, Watts-Strogatz).
    Generate(cmd::generate::Args),
    /// Describe a store: counts, degrees, bytes per layout; --verify checksums.
    Info(cmd::info::Args),
    /// Generate, import and analyse a Kronecker graph under a memory budget.
    Demo(cmd::demo::Args),
    /// The Graph500 benchmark: construction, BFS and SSSP kernels, validation, statistics.
    Graph500(cmd::graph500::Args),
    /// Measure the device (sequential bandwidth, random IOPS by queue depth).
    Probe(cmd::probe::Args),
    /// Add a layout (tiles, in) to an existing store.
    Layout(cmd::layout::Args),
    /// Cut a store into one store per rank of a distributed job (owner = hash(vertex) mod P).
    Partition(cmd::partition::Args),
    /// Rewrite a store in another vertex order and/or adjacency encoding.
    Recode(cmd::recode::Args),
    /// Decode speed of a layout's encoding (edges/s on one core, from memory).
    BenchDecode(cmd::bench_decode::Args),
    /// The dynamic store (degree-aware Robin Hood hashing): create, apply, query, stats, snapshot, color, bfs, pagerank.
    Dynamic(cmd::dynamic::Args),
    /// Print a shell completion script: outcore completions bash > /etc/bash_completion.d/outcore.
    Completions(cmd::completions::Args),
    /// Write a man page per command into a directory.
    Man(cmd::man::Args),
}

/// The whole command line: the fixed commands and one per registered algorithm.
pub fn command() -> clap::Command {
    let mut c = Cli::command();
    for alg in outcore::registry::ALGORITHMS {
        c = c.subcommand(cmd::run::command(*alg));
    }
    c
}

/// Run the command line `args` (the program name first).
/// When the command started: a report gives the seconds since
/// (`process_seconds`), every step of the run included.
pub(crate) static STARTED: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();

pub fn cli_main(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    STARTED.get_or_init(std::time::Instant::now);
    outcore_io::pin_allocator();
    // Exit quietly when the reader of our output goes away (`| head`).
    // SAFETY: restoring the default disposition of SIGPIPE, before any other
    // thread exists, affects only how this process reacts to the signal.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // SIGINT/SIGTERM stop the work, which removes its staging files as it unwinds.
    outcore_io::staging::install_interrupt_handler();
    let mut command = command();
    let matches = match command.try_get_matches_from_mut(args) {
        Ok(m) => m,
        Err(e) => return errors::clap_error(e),
    };
    if matches.get_flag("quiet") {
        progress::set_quiet();
    }
    let Some((name, sub)) = matches.subcommand() else {
        let _ = command.print_help();
        return ExitCode::from(2);
    };
    let flags = errors::flags_of(&command, name);
    let result = match outcore::registry::find(name) {
        Some(alg) => cmd::run::run(alg, sub),
        None => match Cli::from_arg_matches(&matches) {
            Ok(cli) => dispatch(cli.command),
            Err(e) => return errors::clap_error(e),
        },
    };
    finish(result, outcore_io::interrupted(), &flags)
}

/// The command's exit: its own, or the interrupt's where the interrupt
/// stopped it. The work checks for an interrupt as it goes and unwinds
/// with an error; a command that returned its result had finished and
/// committed it before the interrupt reached a check (a signal in its
/// last moments), so it exits as finished: its output is complete, and
/// the interrupt did not remove it.
fn finish(result: anyhow::Result<ExitCode>, interrupt: Option<i32>, flags: &[String]) -> ExitCode {
    match (result, interrupt) {
        (Err(e), Some(sig)) => {
            // the work unwound: every staging guard has removed its files
            drop(e);
            eprintln!("interrupted: staging files removed");
            ExitCode::from(outcore_io::staging::interrupt_status(sig))
        }
        (Ok(code), Some(_)) => {
            eprintln!("interrupted after the work was done: its output is complete and kept");
            code
        }
        (Ok(code), None) => code,
        (Err(e), None) => {
            eprintln!("error: {}", errors::render(&e, flags));
            ExitCode::FAILURE
        }
    }
}

fn dispatch(c: Command) -> anyhow::Result<ExitCode> {
    match c {
        Command::Import(a) => cmd::import::run(a),
        Command::Export(a) => cmd::export::run(a),
        Command::Generate(a) => cmd::generate::run(a),
        Command::Info(a) => cmd::info::run(a),
        Command::Demo(a) => cmd::demo::run(a),
        Command::Graph500(a) => cmd::graph500::run(a),
        Command::Probe(a) => cmd::probe::run(a),
        Command::Layout(a) => cmd::layout::run(a),
        Command::Partition(a) => cmd::partition::run(a),
        Command::Recode(a) => cmd::recode::run(a),
        Command::BenchDecode(a) => cmd::bench_decode::run(a),
        Command::Dynamic(a) => cmd::dynamic::run(a),
        Command::Completions(a) => cmd::completions::run(a),
        Command::Man(a) => cmd::man::run(a),
    }
}

/// `--memory` values: `512M`, `2G`, ...
pub fn parse_memory(s: &str) -> Result<u64, String> {
    outcore_io::parse_size(s)
}

/// `1234567` -> `1,234,567`.
pub fn grouped(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An interrupt that stopped the work exits with its status (130 for
    /// SIGINT, 143 for SIGTERM); one that came after the work returned
    /// leaves the command's own exit, success or failure.
    #[test]
    fn a_late_interrupt_keeps_the_finished_commands_exit() {
        let stopped = || Err(anyhow::anyhow!("interrupted"));
        assert_eq!(finish(stopped(), Some(libc::SIGINT), &[]), ExitCode::from(130));
        assert_eq!(finish(stopped(), Some(libc::SIGTERM), &[]), ExitCode::from(143));
        assert_eq!(finish(Ok(ExitCode::SUCCESS), Some(libc::SIGINT), &[]), ExitCode::SUCCESS);
        assert_eq!(finish(Ok(ExitCode::FAILURE), Some(libc::SIGTERM), &[]), ExitCode::FAILURE);
        assert_eq!(finish(Ok(ExitCode::SUCCESS), None, &[]), ExitCode::SUCCESS);
        assert_eq!(finish(stopped(), None, &[]), ExitCode::FAILURE);
    }
}
