//! Every change the dynamic store makes to its files, in one place: the
//! heaps' write-back and roll-back, the undo logs, the free lists and
//! `STATE`. Nothing else writes a store file, but for the shared part of a
//! heap's mapping beyond its committed end, which nothing committed uses
//! (opening truncates it away) and whose bytes are recorded as written at
//! each write-back ([`mapped_write`]).
//!
//! That makes the store's durability testable the way CrashMonkey and
//! ALICE test file systems' clients: [`record`] captures every write,
//! truncation, sync, create, rename and removal in order, and a test (see
//! `tests/powerfail.rs`) replays any prefix of them onto the store's
//! starting files, dropping or tearing what was not yet synced, and
//! reopens the result as a power failure at that moment would leave it.

use crate::error::{DynError, Result};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// One change to the file system, as the recorder saw it.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// `bytes` written at `offset` (not durable before a [`Event::Sync`] of the file).
    Write {
        path: PathBuf,
        offset: u64,
        bytes: Vec<u8>,
    },
    /// The file's length set (truncated or extended with zeros).
    SetLen {
        path: PathBuf,
        len: u64,
    },
    /// The file's data and length are durable.
    Sync {
        path: PathBuf,
    },
    /// An empty file created (or an existing one truncated to zero).
    Create {
        path: PathBuf,
    },
    Rename {
        from: PathBuf,
        to: PathBuf,
    },
    Remove {
        path: PathBuf,
    },
    /// The directory's entries (creates, renames, removals) are durable.
    SyncDir {
        path: PathBuf,
    },
    /// Not a change: a point in the caller's run (a test's "commit N done").
    Mark(String),
}

static RECORDING: AtomicBool = AtomicBool::new(false);
static EVENTS: Mutex<Vec<Event>> = Mutex::new(Vec::new());

/// Recording of this process's store changes (the fault-injection layer).
pub mod record {
    use super::*;

    /// Start recording (clears what an earlier recording left).
    pub fn start() {
        EVENTS.lock().unwrap_or_else(|e| e.into_inner()).clear();
        RECORDING.store(true, Ordering::SeqCst);
    }
    /// Stop recording and return what was recorded, in order.
    pub fn stop() -> Vec<Event> {
        RECORDING.store(false, Ordering::SeqCst);
        std::mem::take(&mut *EVENTS.lock().unwrap_or_else(|e| e.into_inner()))
    }
    /// Record a point in the caller's run.
    pub fn mark(what: &str) {
        push(|| Event::Mark(what.to_string()));
    }
}

fn push(event: impl FnOnce() -> Event) {
    if RECORDING.load(Ordering::Relaxed) {
        EVENTS.lock().unwrap_or_else(|e| e.into_inner()).push(event());
    }
}

/// Write all of `bytes` at `offset`.
pub fn write_at(file: &File, path: &Path, offset: u64, bytes: &[u8]) -> Result<()> {
    push(|| Event::Write { path: path.to_path_buf(), offset, bytes: bytes.to_vec() });
    file.write_all_at(bytes, offset).map_err(|e| DynError::io(path, e))
}

/// Record that `bytes` (made only when recording) reached the file at
/// `offset` through a shared mapping, possibly at any moment before the
/// file's next sync: the write is the kernel's, this only tells the recorder.
pub fn mapped_write(path: &Path, offset: u64, bytes: impl FnOnce() -> Vec<u8>) {
    push(|| Event::Write { path: path.to_path_buf(), offset, bytes: bytes() });
}

pub fn set_len(file: &File, path: &Path, len: u64) -> Result<()> {
    push(|| Event::SetLen { path: path.to_path_buf(), len });
    file.set_len(len).map_err(|e| DynError::io(path, e))
}

/// Make the file's data and length durable (fsync).
pub fn sync(file: &File, path: &Path) -> Result<()> {
    push(|| Event::Sync { path: path.to_path_buf() });
    file.sync_all().map_err(|e| DynError::io(path, e))
}

/// Create `path`, which must not exist, for reading and writing.
pub fn create_new(path: &Path) -> Result<File> {
    push(|| Event::Create { path: path.to_path_buf() });
    std::fs::OpenOptions::new().read(true).write(true).create_new(true).open(path).map_err(|e| DynError::io(path, e))
}

/// Create `path`, or truncate it to nothing, for reading and writing.
pub fn create(path: &Path) -> Result<File> {
    push(|| Event::Create { path: path.to_path_buf() });
    std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(true).open(path).map_err(|e| DynError::io(path, e))
}

/// Create (or truncate) `path`, write `bytes` and sync it.
pub fn write_synced(path: &Path, bytes: &[u8]) -> Result<()> {
    let f = create(path)?;
    write_at(&f, path, 0, bytes)?;
    sync(&f, path)
}

pub fn rename(from: &Path, to: &Path) -> Result<()> {
    push(|| Event::Rename { from: from.to_path_buf(), to: to.to_path_buf() });
    std::fs::rename(from, to).map_err(|e| DynError::io(from, e))
}

/// Remove a file; one already gone is not an error.
pub fn remove(path: &Path) -> Result<()> {
    push(|| Event::Remove { path: path.to_path_buf() });
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(DynError::io(path, e)),
        _ => Ok(()),
    }
}

/// Make the directory's entries durable.
pub fn sync_dir(dir: &Path) -> Result<()> {
    push(|| Event::SyncDir { path: dir.to_path_buf() });
    File::open(dir).and_then(|f| f.sync_all()).map_err(|e| DynError::io(dir, e))
}
