//! Store locks: a reader holds a shared `flock` on the store directory for
//! as long as its [`crate::Store`] is open, and a command that changes a
//! store in place (`layout add`) holds an exclusive one, so that a rebuild
//! never removes or replaces files under a reader and two rebuilds never
//! sweep each other's files. Either side waits for the other, saying so on
//! stderr once. Within one process the writer's own opens of the store need
//! no lock of their own (they would wait for themselves).

use crate::StoreError;
use std::collections::HashMap;
use std::fs::File;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Locks this process holds, by canonical store directory: (shared holders, exclusive).
static HELD: Mutex<Option<HashMap<PathBuf, (usize, bool)>>> = Mutex::new(None);

/// A lock on a store directory, released when dropped.
pub struct StoreLock {
    _dir: File,
    key: PathBuf,
    exclusive: bool,
}

fn with_held<T>(f: impl FnOnce(&mut HashMap<PathBuf, (usize, bool)>) -> T) -> T {
    let mut held = HELD.lock().unwrap_or_else(|p| p.into_inner());
    f(held.get_or_insert_with(HashMap::new))
}

/// flock `file` with `operation`, waiting (after saying why) if another process holds it.
fn flock(file: &File, dir: &Path, operation: libc::c_int, waiting: &str) -> Result<(), StoreError> {
    let fd = file.as_raw_fd();
    // SAFETY: flock on a descriptor this function borrows; it touches no memory.
    if unsafe { libc::flock(fd, operation | libc::LOCK_NB) } == 0 {
        return Ok(());
    }
    let err = std::io::Error::last_os_error();
    if err.raw_os_error() != Some(libc::EWOULDBLOCK) {
        return Err(outcore_io::IoError::new(dir, "lock the store", err).into());
    }
    eprintln!("{}: {waiting}", dir.display());
    loop {
        // SAFETY: as above.
        if unsafe { libc::flock(fd, operation) } == 0 {
            return Ok(());
        }
        let err = std::io::Error::last_os_error();
        if err.kind() != std::io::ErrorKind::Interrupted {
            return Err(outcore_io::IoError::new(dir, "lock the store", err).into());
        }
        outcore_io::check_interrupt(dir)?;
    }
}

impl StoreLock {
    /// A reader's lock on the store at `dir`; `None` when this process
    /// already holds the exclusive lock (it is the writer).
    pub fn shared(dir: &Path) -> Result<Option<StoreLock>, StoreError> {
        let key = dir.canonicalize().map_err(|_| StoreError::invalid(dir, "no such store directory"))?;
        if with_held(|h| h.get(&key).is_some_and(|e| e.1)) {
            return Ok(None);
        }
        loop {
            let file = File::open(&key).map_err(|e| outcore_io::IoError::new(dir, "open", e))?;
            flock(&file, dir, libc::LOCK_SH, "waiting for the command changing this store (layout add, import --force) to finish")?;
            // a store replaced while this waited: lock the one now at the path
            let same = |a: &std::fs::Metadata, b: &std::fs::Metadata| {
                use std::os::unix::fs::MetadataExt;
                a.dev() == b.dev() && a.ino() == b.ino()
            };
            match (file.metadata(), std::fs::metadata(&key)) {
                (Ok(a), Ok(b)) if same(&a, &b) => {
                    with_held(|h| h.entry(key.clone()).or_default().0 += 1);
                    return Ok(Some(StoreLock { _dir: file, key, exclusive: false }));
                }
                (_, Err(_)) => return Err(StoreError::invalid(dir, "no such store directory")),
                _ => continue,
            }
        }
    }

    /// A writer's lock on the store at `dir`: no reader or other writer
    /// has it open while this is held.
    pub fn exclusive(dir: &Path) -> Result<StoreLock, StoreError> {
        let key = dir.canonicalize().map_err(|_| StoreError::invalid(dir, "no such store directory"))?;
        if with_held(|h| h.get(&key).is_some_and(|e| e.0 > 0 || e.1)) {
            return Err(StoreError::invalid(dir, "is open in this process; close it before changing it"));
        }
        let file = File::open(&key).map_err(|e| outcore_io::IoError::new(dir, "open", e))?;
        flock(&file, dir, libc::LOCK_EX, "waiting for the other commands using this store to finish")?;
        with_held(|h| h.entry(key.clone()).or_default().1 = true);
        Ok(StoreLock { _dir: file, key, exclusive: true })
    }
}

impl Drop for StoreLock {
    fn drop(&mut self) {
        with_held(|h| {
            if let Some(e) = h.get_mut(&self.key) {
                if self.exclusive {
                    e.1 = false;
                } else {
                    e.0 -= 1;
                }
                if *e == (0, false) {
                    h.remove(&self.key);
                }
            }
        });
        // closing the descriptor releases the flock
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_writer_excludes_readers_of_other_processes_but_not_its_own_opens() {
        let d = tempfile::tempdir().unwrap();
        let w = StoreLock::exclusive(d.path()).unwrap();
        // this process's own opens while it writes take no lock
        assert!(StoreLock::shared(d.path()).unwrap().is_none());
        // another open file description (as another process would have) is refused
        let other = File::open(d.path()).unwrap();
        // SAFETY: flock on a descriptor this test owns.
        assert_ne!(unsafe { libc::flock(other.as_raw_fd(), libc::LOCK_SH | libc::LOCK_NB) }, 0);
        drop(w);
        // SAFETY: as above.
        assert_eq!(unsafe { libc::flock(other.as_raw_fd(), libc::LOCK_SH | libc::LOCK_NB) }, 0);
        // a reader in this process: the writer is told to close it first
        let r = StoreLock::shared(d.path()).unwrap().unwrap();
        assert!(StoreLock::exclusive(d.path()).is_err());
        drop(r);
        drop(other);
        assert!(StoreLock::exclusive(d.path()).is_ok());
    }
}
