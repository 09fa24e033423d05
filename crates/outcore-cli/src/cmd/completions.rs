//! `outcore completions SHELL`: the shell completion script, generated
//! from the same command tree the parser uses (`clap_complete`).

use anyhow::Result;
use clap_complete::Shell;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// The shell: bash, zsh, fish, powershell or elvish.
    pub shell: Shell,
}

pub fn run(a: Args) -> Result<ExitCode> {
    let mut command = crate::command();
    clap_complete::generate(a.shell, &mut command, "outcore", &mut std::io::stdout().lock());
    Ok(ExitCode::SUCCESS)
}
