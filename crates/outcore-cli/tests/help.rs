//! The command line documents itself: every argument and option of every
//! command has a help line; completions and man pages are generated from
//! the same tree.

mod common;
use common::outcore;
use std::process::Command;

/// `command path: --flag` of every argument without help text.
fn undocumented(c: &clap::Command, path: &str, out: &mut Vec<String>) {
    let path = if path.is_empty() { c.get_name().to_string() } else { format!("{path} {}", c.get_name()) };
    if c.get_about().is_none() && c.get_name() != "outcore" {
        out.push(format!("{path}: (no about)"));
    }
    for a in c.get_arguments() {
        if a.is_hide_set() || ["help", "version"].contains(&a.get_id().as_str()) {
            continue;
        }
        if a.get_help().is_none() && a.get_long_help().is_none() {
            let name = a.get_long().map(|l| format!("--{l}")).unwrap_or_else(|| format!("<{}>", a.get_id()));
            out.push(format!("{path}: {name}"));
        }
    }
    for s in c.get_subcommands() {
        if s.get_name() != "help" {
            undocumented(s, &path, out);
        }
    }
}

#[test]
fn every_argument_has_help() {
    let mut missing = Vec::new();
    undocumented(&outcore_cli::command(), "", &mut missing);
    assert!(missing.is_empty(), "arguments without help:\n{}", missing.join("\n"));
}

#[test]
fn completions_cover_every_command_in_every_shell() {
    for shell in ["bash", "zsh", "fish", "powershell"] {
        let (code, script, err) = outcore(&["completions", shell]);
        assert_eq!(code, 0, "{shell}: {err}");
        for word in ["import", "pagerank", "layout", "memory", "engine", "force", "tolerance"] {
            assert!(script.contains(word), "{shell} completions lack {word}");
        }
    }
    // bash accepts the script and completes `outcore pa` to the commands that start so
    let (_, script, _) = outcore(&["completions", "bash"]);
    let d = tempfile::tempdir().unwrap();
    let file = d.path().join("outcore.bash");
    std::fs::write(&file, script).unwrap();
    let probe = format!(
        "source '{}'; COMP_WORDS=(outcore pa); COMP_CWORD=1; COMP_LINE='outcore pa'; COMP_POINT=10; _outcore outcore pa outcore; echo \"${{COMPREPLY[@]}}\"",
        file.display()
    );
    let out = Command::new("bash").arg("-c").arg(probe).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "partition pagerank");
    let (code, _, err) = outcore(&["completions", "tcsh"]);
    assert_eq!(code, 2);
    assert!(err.contains("tcsh"), "{err}");
}

#[test]
fn man_pages_for_every_command() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("man1");
    let (code, out, err) = outcore(&["man", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("man pages"), "{out}");
    let mut commands = Vec::new();
    fn walk(c: &clap::Command, name: &str, out: &mut Vec<String>) {
        out.push(name.to_string());
        for s in c.get_subcommands().filter(|s| s.get_name() != "help") {
            walk(s, &format!("{name}-{}", s.get_name()), out);
        }
    }
    walk(&outcore_cli::command(), "outcore", &mut commands);
    for name in &commands {
        let page = std::fs::read_to_string(dir.join(format!("{name}.1"))).unwrap_or_else(|_| panic!("no page for {name}"));
        assert!(page.starts_with(".ie") || page.contains(".TH"), "{name}: not roff");
        assert!(page.contains(&format!(".TH {name}")), "{name}: wrong title");
    }
    let import = std::fs::read_to_string(dir.join("outcore-import.1")).unwrap();
    assert!(import.contains("\\-\\-force") && import.contains("\\-\\-memory"), "outcore-import.1 lacks its options");
    // the pages exist now: a second run needs --force and changes nothing without it
    let before = std::fs::read(dir.join("outcore.1")).unwrap();
    let (code, _, err) = outcore(&["man", dir.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("already exists") && err.contains("--force"), "{err}");
    assert_eq!(std::fs::read(dir.join("outcore.1")).unwrap(), before);
    assert_eq!(outcore(&["man", dir.to_str().unwrap(), "--force"]).0, 0);
}
