//! Staging: everything a command writes before it is complete (a store
//! being imported, an export's partial file, sort runs, a layout being
//! built) is a [`Staged`] path. It is removed when dropped unless the
//! command published it, removed by the interrupt path on SIGINT/SIGTERM,
//! and, if the process was killed outright, removed by the next command
//! that stages beside it.
//!
//! Hidden staging entries are named `.outcore-PID-LABEL` and hold an
//! advisory lock (`flock`) while their owner lives. An entry is stale
//! when its lock is free and its process is gone; only then is it removed
//! (with a one-line notice), so a sweep never touches a live run's files,
//! nor anything that outcore did not make.
//!
//! Interrupts: [`install_interrupt_handler`] starts a thread that, on
//! SIGINT or SIGTERM, sets a flag that the sequential readers and writers
//! check (so the work unwinds with an error and the guards clean up), and,
//! if the command has not ended within a grace period, removes the live
//! staging paths itself and exits with 128 + the signal number.

use crate::error::{IoContext, IoError};
use std::fs::File;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// The paths being staged by this process, for the interrupt path.
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// The signal that interrupted this process, or 0.
static INTERRUPT: AtomicI32 = AtomicI32::new(0);

const PREFIX: &str = ".outcore-";

/// How long a command has to unwind after an interrupt before the handler
/// removes its staging paths itself and exits.
const GRACE: Duration = Duration::from_secs(3);

/// A path this process is writing: removed on drop unless kept or published.
#[derive(Debug)]
pub struct Staged {
    path: PathBuf,
    is_dir: bool,
    /// Held open with an exclusive `flock` while we own the path.
    lock: Option<File>,
    done: bool,
}

impl Staged {
    /// Create the hidden directory `parent/.outcore-PID-LABEL`, first
    /// removing stale staging entries in `parent`.
    pub fn dir(parent: &Path, label: &str) -> Result<Self, IoError> {
        sweep(parent);
        let path = parent.join(staged_name(label));
        register(&path);
        let mut staged = Staged { path, is_dir: true, lock: None, done: false };
        if staged.path.exists() {
            std::fs::remove_dir_all(&staged.path).ctx(&staged.path, "remove an earlier staging directory of this process")?;
        }
        std::fs::create_dir(&staged.path).ctx(&staged.path, "create staging directory")?;
        staged.lock = lock(&staged.path);
        Ok(staged)
    }

    /// Create the hidden empty file `parent/.outcore-PID-LABEL` (its writer
    /// opens it again to fill it), first removing stale staging entries.
    pub fn file(parent: &Path, label: &str) -> Result<Self, IoError> {
        sweep(parent);
        let path = parent.join(staged_name(label));
        register(&path);
        let mut staged = Staged { path, is_dir: false, lock: None, done: false };
        File::create(&staged.path).ctx(&staged.path, "create staging file")?;
        staged.lock = lock(&staged.path);
        Ok(staged)
    }

    /// Stage a path with a name of its own (a layout's files inside a
    /// store): removed unless kept, but never swept (it is not hidden).
    pub fn named(path: PathBuf) -> Self {
        register(&path);
        Staged { path, is_dir: false, lock: None, done: false }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A file inside a staged directory.
    pub fn join(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// Keep the path (it became part of something published, such as a
    /// layout whose manifest now lists it).
    pub fn keep(mut self) -> PathBuf {
        self.release();
        std::mem::take(&mut self.path)
    }

    /// Move the staged path to `target` (replacing a file there), making it
    /// the command's output.
    pub fn publish(mut self, target: &Path) -> Result<(), IoError> {
        std::fs::rename(&self.path, target).ctx(target, "move the finished output into place")?;
        self.release();
        Ok(())
    }

    fn release(&mut self) {
        self.done = true;
        unregister(&self.path);
        self.lock = None;
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        remove(&self.path, self.is_dir);
        unregister(&self.path);
    }
}

fn staged_name(label: &str) -> String {
    format!("{PREFIX}{}-{label}", std::process::id())
}

fn register(path: &Path) {
    LIVE.lock().unwrap_or_else(|e| e.into_inner()).push(path.to_path_buf());
}

fn unregister(path: &Path) {
    LIVE.lock().unwrap_or_else(|e| e.into_inner()).retain(|p| p != path);
}

fn remove(path: &Path, is_dir: bool) {
    if is_dir {
        let _ = std::fs::remove_dir_all(path);
    } else {
        let _ = std::fs::remove_file(path);
    }
}

/// Open `path` and take an exclusive advisory lock on it, or `None` when the
/// file system does not support locks (then stale entries are judged by
/// their process alone).
fn lock(path: &Path) -> Option<File> {
    let f = File::open(path).ok()?;
    // SAFETY: flock on a descriptor we own.
    let r = unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    (r == 0).then_some(f)
}

/// Whether process `pid` exists.
/// Whether process `pid` runs: it exists and is not a zombie (dead, its
/// files and locks released, waiting for its parent to reap it: an MPI
/// rank its launcher killed, for a while).
fn process_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // the state follows the command's closing parenthesis
        Ok(stat) => !matches!(stat.rsplit_once(')').and_then(|(_, rest)| rest.trim_start().chars().next()), Some('Z' | 'X')),
        Err(_) => false,
    }
}

/// Remove the stale staging entries in `dir`: ours by name, with their
/// owner gone and their lock free. Says so in one line on stderr.
pub fn sweep(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut removed = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = name.strip_prefix(PREFIX).and_then(|r| r.split_once('-')).and_then(|(p, _)| p.parse::<u32>().ok()) else {
            continue;
        };
        if pid == std::process::id() || process_alive(pid) {
            continue;
        }
        let path = e.path();
        // a lock still held means a live owner (in another PID namespace)
        let Some(_held) = lock(&path) else { continue };
        let is_dir = e.file_type().map(|t| t.is_dir()).unwrap_or(false);
        remove(&path, is_dir);
        removed.push(pid);
    }
    if !removed.is_empty() {
        removed.sort_unstable();
        removed.dedup();
        let pids: Vec<String> = removed.iter().map(u32::to_string).collect();
        eprintln!("note: removed staging files in {} left by interrupted outcore runs (process {})", dir.display(), pids.join(", "));
    }
}

/// Remove every live staging path of this process (the interrupt path).
pub fn remove_live() {
    let paths = std::mem::take(&mut *LIVE.lock().unwrap_or_else(|e| e.into_inner()));
    for p in paths {
        // other threads may still be writing into it: once it is gone
        // they cannot, so retry until it is
        for _ in 0..200 {
            match std::fs::symlink_metadata(&p) {
                Ok(m) => remove(&p, m.is_dir()),
                Err(_) => break,
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

/// The signal (SIGINT, SIGTERM) that interrupted this process, if any.
pub fn interrupted() -> Option<i32> {
    match INTERRUPT.load(Ordering::Relaxed) {
        0 => None,
        s => Some(s),
    }
}

/// Ask the running work to stop as if `sig` had arrived (a front end that
/// handles signals itself, such as the Python package): the work loops
/// fail with "interrupted" and the staging guards clean up as they unwind.
pub fn request_interrupt(sig: i32) {
    INTERRUPT.store(sig, Ordering::SeqCst);
}

/// Forget an interrupt once the work it stopped has unwound, so that the
/// next call of a long-lived process (a Python session) runs.
pub fn clear_interrupt() {
    INTERRUPT.store(0, Ordering::SeqCst);
}

/// An error if this process was interrupted: called by the loops of long
/// work (the sequential readers and writers call it per chunk), so an
/// interrupt unwinds the work and the staging guards clean up.
pub fn check_interrupt(path: &Path) -> Result<(), IoError> {
    match interrupted() {
        None => Ok(()),
        Some(sig) => Err(interrupt_error(path, sig)),
    }
}

fn interrupt_error(path: &Path, sig: i32) -> IoError {
    let name = if sig == libc::SIGTERM { "SIGTERM" } else { "SIGINT" };
    IoError::new(path, "stopped", std::io::Error::new(std::io::ErrorKind::Interrupted, format!("interrupted by {name}")))
}

/// The exit status of an interrupted command: 128 + the signal.
pub fn interrupt_status(sig: i32) -> u8 {
    (128 + sig).clamp(0, 255) as u8
}

/// On SIGINT/SIGTERM: set the flag the work loops check; if the command
/// has not ended `GRACE` later, remove the live staging paths and exit
/// with 128 + the signal. A second signal exits at once (after cleaning).
pub fn install_interrupt_handler() {
    install_interrupt_handler_within(GRACE)
}

/// [`install_interrupt_handler`] with `grace` for the work to unwind: an
/// MPI rank has about a second between mpirun's SIGTERM and its SIGKILL
/// (Open MPI's `odls_base_sigkill_timeout`), so it cleans up sooner.
pub fn install_interrupt_handler_within(grace: Duration) {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) else { return };
    std::thread::spawn(move || {
        let Some(sig) = signals.forever().next() else { return };
        INTERRUPT.store(sig, Ordering::SeqCst);
        // the command unwinds and exits; a second signal or the deadline ends the wait
        let deadline = std::time::Instant::now() + grace;
        while std::time::Instant::now() < deadline && signals.pending().next().is_none() {
            std::thread::sleep(Duration::from_millis(20));
        }
        remove_live();
        eprintln!("interrupted: staging files removed");
        std::process::exit(interrupt_status(sig) as i32);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn staged_paths_are_removed_unless_kept_or_published() {
        let d = tempfile::tempdir().unwrap();
        let s = Staged::dir(d.path(), "x.store.partial").unwrap();
        std::fs::write(s.join("f"), b"1").unwrap();
        let p = s.path().to_path_buf();
        assert!(p.file_name().unwrap().to_string_lossy().starts_with(".outcore-"));
        drop(s);
        assert!(!p.exists());

        let f = Staged::file(d.path(), "out.el.partial").unwrap();
        std::fs::write(f.path(), b"0 1\n").unwrap();
        f.publish(&d.path().join("out.el")).unwrap();
        assert_eq!(std::fs::read(d.path().join("out.el")).unwrap(), b"0 1\n");

        let n = Staged::named(d.path().join("in.adj"));
        std::fs::write(n.path(), b"x").unwrap();
        let kept = n.keep();
        assert!(kept.exists());
        assert!(LIVE.lock().unwrap().iter().all(|p| !p.starts_with(d.path())));
    }

    #[test]
    fn sweeps_remove_only_dead_owners_entries() {
        let d = tempfile::tempdir().unwrap();
        // a dead process (pid beyond pid_max) left a directory and a file
        let dead_dir = d.path().join(".outcore-4000000000-a.store.partial");
        std::fs::create_dir(&dead_dir).unwrap();
        std::fs::write(dead_dir.join("x"), b"1").unwrap();
        let dead_file = d.path().join(".outcore-4000000001-b.el.partial");
        std::fs::write(&dead_file, b"1").unwrap();
        // a live process (ours is excluded by pid: use pid 1, always alive)
        let live = d.path().join(".outcore-1-c.partial");
        std::fs::create_dir(&live).unwrap();
        // the user's own hidden files
        let mine = d.path().join(".outcore-notes");
        std::fs::write(&mine, b"keep").unwrap();
        let other = d.path().join(".x.partial-4000000000");
        std::fs::write(&other, b"keep").unwrap();
        sweep(d.path());
        assert!(!dead_dir.exists() && !dead_file.exists());
        assert!(live.exists() && mine.exists() && other.exists());
    }

    /// A zombie (exited, not yet reaped: an MPI rank its launcher killed)
    /// is dead: its entries are swept; a running process's are not.
    #[test]
    fn a_zombies_entries_are_swept() {
        let d = tempfile::tempdir().unwrap();
        let mut child = std::process::Command::new("true").spawn().unwrap();
        // exited, and not waited for
        let stat = format!("/proc/{}/stat", child.id());
        let start = std::time::Instant::now();
        while !std::fs::read_to_string(&stat).unwrap().contains(") Z") {
            assert!(start.elapsed() < Duration::from_secs(10), "the child did not exit");
            std::thread::sleep(Duration::from_millis(5));
        }
        let zombie = d.path().join(format!(".outcore-{}-z.partial", child.id()));
        std::fs::create_dir(&zombie).unwrap();
        let mut sleeper = std::process::Command::new("sleep").arg("30").spawn().unwrap();
        let running = d.path().join(format!(".outcore-{}-r.partial", sleeper.id()));
        std::fs::create_dir(&running).unwrap();
        sweep(d.path());
        assert!(!zombie.exists() && running.exists());
        child.wait().unwrap();
        sleeper.kill().unwrap();
        sleeper.wait().unwrap();
    }

    #[test]
    fn a_held_lock_protects_an_entry_whatever_its_pid() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join(".outcore-4000000002-held");
        std::fs::create_dir(&p).unwrap();
        let _held = lock(&p).unwrap();
        sweep(d.path());
        assert!(p.exists());
    }
}
