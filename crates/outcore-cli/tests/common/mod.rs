//! Running the `outcore` binary from the CLI tests, with a time bound: a
//! command that hangs fails its test instead of blocking the suite.
#![allow(dead_code)]

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The longest any one command of the CLI tests may take.
pub const COMMAND_LIMIT: Duration = Duration::from_secs(600);

/// Run `outcore ARGS`: (exit code, or -1 if killed by a signal; stdout; stderr).
pub fn outcore(args: &[&str]) -> (i32, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_outcore"));
    command.args(args);
    bounded(&mut command)
}

/// Run a command to its end within [`COMMAND_LIMIT`], else kill it and
/// fail: (exit code, or -1 if killed by a signal; stdout; stderr).
pub fn bounded(command: &mut Command) -> (i32, String, String) {
    let what = format!("{command:?}");
    let mut child =
        command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap_or_else(|e| panic!("{what}: {e}"));
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = Vec::new();
            let _ = pipe.read_to_end(&mut text);
            String::from_utf8_lossy(&text).into_owned()
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > COMMAND_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} still ran after {COMMAND_LIMIT:?}; killed");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    (status.code().unwrap_or(-1), out.join().unwrap(), err.join().unwrap())
}

/// The edges of an edge list or SNAP text file (`u v` first on each line;
/// `#` comments and blank lines skipped).
pub fn edge_lines(path: &std::path::Path) -> Vec<(u64, u64)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let mut f = l.split_whitespace().map(|x| x.parse::<u64>().unwrap());
            (f.next().unwrap(), f.next().unwrap())
        })
        .collect()
}

/// A tmpfs of `size` (mount's `size=` option: "512k") mounted at `dir`,
/// which must exist; unmounted when the guard drops. Needs root (CI runs
/// as root): the full-disk tests use it.
pub fn tmpfs(dir: &std::path::Path, size: &str) -> Mounted {
    let ok = Command::new("mount")
        .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
        .arg(dir)
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    assert!(ok, "this test mounts a {size} tmpfs at {}; it needs root (CI runs as root)", dir.display());
    Mounted(dir.to_path_buf())
}

/// Unmounts its tmpfs when dropped (see [`tmpfs`]).
pub struct Mounted(std::path::PathBuf);

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}
