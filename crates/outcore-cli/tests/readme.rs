//! README.md is the user's manual, and its examples run as written: every
//! ```sh block, in order, in a fresh directory beside `shared/`, with this
//! build's `outcore` on the PATH. Blocks that are not run say why on their
//! first line (`# not run by the README test: ...`); the set-up block
//! (cargo, ./check) is the test run itself.

mod common;
use common::bounded;
use std::path::{Path, PathBuf};
use std::process::Command;

const SKIP_MARK: &str = "# not run by the README test:";

fn readme() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md")).unwrap()
}

/// The ```sh blocks of `text`, with the line each starts on.
fn sh_blocks(text: &str) -> Vec<(usize, String)> {
    let mut blocks = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (i, line) in text.lines().enumerate() {
        match &mut current {
            None if line.trim_start().starts_with("```sh") => current = Some((i + 2, String::new())),
            Some(_) if line.trim_start().starts_with("```") => blocks.push(current.take().unwrap()),
            Some((_, body)) => {
                body.push_str(line);
                body.push('\n');
            }
            None => {}
        }
    }
    assert!(current.is_none(), "README.md: a ```sh block is never closed");
    blocks
}

#[test]
fn fences_are_balanced_and_every_block_is_run_or_says_why_not() {
    let text = readme();
    let fences = text.lines().filter(|l| l.trim_start().starts_with("```")).count();
    assert_eq!(fences % 2, 0, "README.md has an unclosed code fence");
    for (line, body) in sh_blocks(&text) {
        let first = body.lines().next().unwrap_or("");
        let setup = body.contains("cargo ") || body.contains("./check");
        assert!(
            setup || !first.starts_with('#') || first.starts_with(SKIP_MARK),
            "README.md:{line}: a block that starts with a comment must say why it is not run"
        );
    }
}

#[test]
fn readme_examples_run_as_written() {
    let text = readme();
    let work = tempfile::tempdir().unwrap();
    // the examples run from a directory next to shared/
    let shared = outcore_io::shared_dir(env!("CARGO_MANIFEST_DIR"));
    std::os::unix::fs::symlink(&shared, work.path().join("shared")).unwrap();
    let run = work.path().join("run");
    let bin = work.path().join("bin");
    std::fs::create_dir_all(&run).unwrap();
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_outcore"), bin.join("outcore")).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let mut ran = 0;
    for (line, body) in sh_blocks(&text) {
        if body.starts_with(SKIP_MARK) || body.contains("cargo ") || body.contains("./check") {
            continue;
        }
        for (k, command) in body.lines().enumerate() {
            let command = command.trim();
            if command.is_empty() || command.starts_with('#') {
                continue;
            }
            let (code, stdout, stderr) =
                bounded(Command::new("bash").arg("-c").arg(format!("set -e; {command}")).current_dir(&run).env("PATH", &path));
            assert!(code == 0, "README.md:{}: `{command}` failed (exit {code}):\n{stdout}{stderr}", line + k);
            ran += 1;
        }
    }
    assert!(ran > 50, "only {ran} example commands found");
    // nothing outcore stages is left in the working directory
    let left: Vec<PathBuf> = std::fs::read_dir(&run)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with(".outcore-"))
        .collect();
    assert!(left.is_empty(), "staging left: {left:?}");
}
