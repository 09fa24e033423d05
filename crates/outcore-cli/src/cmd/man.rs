//! `outcore man DIR`: one man page per command (`outcore.1`,
//! `outcore-import.1`, `outcore-layout-add.1`, ...), generated from the
//! command tree with `clap_mangen`, written under the output policy.

use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Directory for the pages (created if absent), e.g. /usr/local/share/man/man1.
    pub dir: PathBuf,
    /// Replace pages already there.
    #[arg(long)]
    pub force: bool,
}

pub fn run(a: Args) -> Result<ExitCode> {
    std::fs::create_dir_all(&a.dir).with_context(|| format!("{}: create directory", a.dir.display()))?;
    let mut pages = Vec::new();
    collect(crate::command(), "outcore", &mut pages);
    // refuse before writing any page
    for (name, _) in &pages {
        outcore_store::check_output(&page_path(&a.dir, name), outcore_store::OutputKind::File, a.force, &[])?;
    }
    for (name, command) in &pages {
        let man = clap_mangen::Man::new(command.clone());
        outcore::output::write_with(&page_path(&a.dir, name), a.force, &[], |w| man.render(w))?;
    }
    println!("wrote {} man pages to {} (read one with: man -l {})", pages.len(), a.dir.display(), page_path(&a.dir, "outcore").display());
    Ok(ExitCode::SUCCESS)
}

fn page_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("{name}.1"))
}

/// `command` and its subcommands, each named by its path (`outcore-layout-add`).
fn collect(command: clap::Command, name: &str, out: &mut Vec<(String, clap::Command)>) {
    let command = command.name(name.to_string()).bin_name(name.replace('-', " "));
    for sub in command.get_subcommands() {
        if sub.get_name() != "help" {
            collect(sub.clone(), &format!("{name}-{}", sub.get_name()), out);
        }
    }
    out.push((name.to_string(), command));
}
