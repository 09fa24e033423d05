//! One line per error, with what fixes it. The libraries return typed
//! errors in their own words; here each variant gets the CLI's hint: the
//! flag (`--memory 48M`, `--force`, `--format`, `--temp DIR`) or the
//! command (`outcore layout add STORE tiles`) that fixes it, and a
//! parameter's library name becomes its flag.

use outcore::{Error as ApiError, StoreError};
use outcore_dynamic::error::DynError;
use outcore_ingest::IngestError;
use std::process::ExitCode;

/// The long flags of subcommand `name` (and of its own subcommands).
pub fn flags_of(command: &clap::Command, name: &str) -> Vec<String> {
    fn walk(c: &clap::Command, out: &mut Vec<String>) {
        out.extend(c.get_arguments().filter_map(|a| a.get_long().map(str::to_string)));
        for s in c.get_subcommands() {
            walk(s, out);
        }
    }
    let mut out = Vec::new();
    if let Some(c) = command.find_subcommand(name) {
        walk(c, &mut out);
    }
    out
}

/// A command-line mistake as one line (help and version as clap prints them).
pub fn clap_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand) {
        let _ = e.print();
        return ExitCode::SUCCESS;
    }
    let text = e.render().to_string();
    let first: Vec<&str> = text.lines().map(str::trim).take_while(|l| !l.is_empty()).collect();
    let line = first.join(" ");
    let line = line.strip_prefix("error: ").unwrap_or(&line);
    eprintln!("error: {line} (see --help)");
    ExitCode::from(2)
}

fn kebab(name: &str) -> String {
    name.replace('_', "-")
}

/// Rewrite a parameter's message with its flag, if the command has one.
fn flagify(msg: &mut String, name: &str, reason: &str, flags: &[String]) {
    let flag = kebab(name);
    if flags.contains(&flag) {
        *msg = msg.replace(&format!("{name} {reason}"), &format!("--{flag} {reason}"));
    }
}

/// Collects the hints of an error and of the typed errors it wraps
/// (transparent wrappers do not show up in `source()` chains).
struct Hints<'a> {
    msg: String,
    hints: Vec<String>,
    flags: &'a [String],
}

impl Hints<'_> {
    fn hint(&mut self, h: String) {
        if !self.hints.contains(&h) {
            self.hints.push(h);
        }
    }

    fn memory(&mut self, b: &outcore_io::BudgetError) {
        self.hint(format!("use --memory {}M or more", b.suggest.div_ceil(1 << 20)));
    }

    fn io(&mut self, io: &outcore_io::IoError) {
        if io.is_no_space() && self.flags.iter().any(|f| f == "temp") {
            self.hint("put the temporary files elsewhere with --temp DIR".into());
        }
    }

    fn store(&mut self, e: &StoreError) {
        match e {
            StoreError::MissingLayout { store, layout, .. } => {
                self.hint(format!("add it with: outcore layout add {} {layout}", store.display()))
            }
            StoreError::StaleLayout { store, layout, .. } => {
                self.hint(format!("rebuild it with: outcore layout add {} {layout}", store.display()))
            }
            StoreError::NoWeights { .. } => self.hint("re-import with --weighted".into()),
            StoreError::NotBipartite { .. } => self.hint("import `user item rating` lines with --bipartite".into()),
            StoreError::Exists { .. } => self.hint("choose another output or pass --force to replace it".into()),
            StoreError::Budget(b) => self.memory(b),
            StoreError::Parameter { name, reason } => flagify(&mut self.msg, name, reason, self.flags),
            StoreError::Io(io) => self.io(io),
            StoreError::Invalid { .. } | StoreError::Refused { .. } => {}
        }
    }

    fn algorithm(&mut self, e: &outcore_algorithms::Error) {
        match e {
            outcore_algorithms::Error::Store(s) => self.store(s),
            outcore_algorithms::Error::Unsupported { algorithm, engine, .. } => {
                if let Some(alg) = outcore::registry::find(algorithm) {
                    let others: Vec<String> = alg.info().engines.iter().filter(|e| *e != engine).map(|e| format!("--engine {e}")).collect();
                    self.hint(format!("choose another engine: --engine auto, {}", others.join(", ")));
                }
            }
            outcore_algorithms::Error::NoEngine { .. } => {}
        }
    }

    fn ingest(&mut self, e: &IngestError) {
        match e {
            IngestError::UnknownFormat { known, .. } => self.hint(format!("pass --format ({known})")),
            IngestError::Parameter { name, reason } => flagify(&mut self.msg, name, reason, self.flags),
            IngestError::Store(s) => self.store(s),
            IngestError::Budget(b) => self.memory(b),
            IngestError::Io(io) => self.io(io),
            _ => {}
        }
    }

    fn dynamic(&mut self, e: &DynError) {
        match e {
            DynError::UnknownFormat { known, .. } => self.hint(format!("pass --format ({known})")),
            DynError::Parameter { name, reason } => flagify(&mut self.msg, name, reason, self.flags),
            DynError::Ingest(i) => self.ingest(i),
            DynError::Budget(b) => self.memory(b),
            _ => {}
        }
    }

    fn any(&mut self, cause: &(dyn std::error::Error + 'static)) {
        if let Some(x) = cause.downcast_ref::<ApiError>() {
            match x {
                ApiError::Run(a) => self.algorithm(a),
                ApiError::Ingest(i) => self.ingest(i),
                ApiError::Dynamic(d) => self.dynamic(d),
                ApiError::UnknownColumn { .. } => self.hint("choose one with --values".into()),
                ApiError::UnknownAlgorithm { .. } | ApiError::Plot { .. } => {}
            }
        } else if let Some(x) = cause.downcast_ref::<outcore_algorithms::Error>() {
            self.algorithm(x);
        } else if let Some(x) = cause.downcast_ref::<StoreError>() {
            self.store(x);
        } else if let Some(x) = cause.downcast_ref::<IngestError>() {
            self.ingest(x);
        } else if let Some(x) = cause.downcast_ref::<DynError>() {
            self.dynamic(x);
        } else if let Some(b) = cause.downcast_ref::<outcore_io::BudgetError>() {
            self.memory(b);
        } else if let Some(io) = cause.downcast_ref::<outcore_io::IoError>() {
            self.io(io);
        }
    }
}

/// `e` as one line with its hints.
pub fn render(e: &anyhow::Error, flags: &[String]) -> String {
    // the chain, each cause once (an error that prints its source is not followed by it again)
    let mut text = String::new();
    for cause in e.chain() {
        let c = cause.to_string();
        if !text.ends_with(&c) {
            if !text.is_empty() {
                text.push_str(": ");
            }
            text.push_str(&c);
        }
    }
    let mut h = Hints { msg: text.replace('\n', " "), hints: Vec::new(), flags };
    for cause in e.chain() {
        h.any(cause);
    }
    let mut msg = h.msg;
    for hint in h.hints {
        if !msg.contains(&hint) {
            msg.push_str("; ");
            msg.push_str(&hint);
        }
    }
    msg
}
