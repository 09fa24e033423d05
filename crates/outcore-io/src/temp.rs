//! Temporary work areas (update logs, value tables) that never outlive the
//! run that made them: removed when dropped (success, error or panic), by
//! the Ctrl-C handler that [`remove_on_interrupt`] installs, and, for runs
//! that were killed outright, by the next run in the same place.

use crate::error::{IoContext, IoError};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Areas alive in this process, for the interrupt handler.
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// A directory `PARENT/.NAME-PID` removed with everything in it on drop.
#[derive(Debug)]
pub struct TempArea {
    dir: PathBuf,
}

impl TempArea {
    /// Create `parent/.{name}-{pid}`, first removing areas of that name left
    /// by processes that no longer exist.
    pub fn create(parent: &Path, name: &str) -> Result<Self, IoError> {
        remove_stale(parent, name);
        let dir = parent.join(format!(".{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).ctx(&dir, "create temporary directory")?;
        LIVE.lock().unwrap().push(dir.clone());
        Ok(TempArea { dir })
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }

    pub fn file(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// Bytes free for an unprivileged writer on the area's file system.
    pub fn free_bytes(&self) -> Result<u64, IoError> {
        free_bytes(&self.dir)
    }

    /// Fail unless `needed` bytes are free, naming what they are for.
    pub fn require_free(&self, needed: u64, what: &str) -> Result<(), IoError> {
        let free = self.free_bytes()?;
        if free < needed {
            return Err(IoError::new(
                &self.dir,
                format!(
                    "{what} need about {} of free disk, the file system has {}; put them in another temporary directory",
                    crate::format_bytes(needed),
                    crate::format_bytes(free)
                ),
                std::io::Error::from_raw_os_error(libc::ENOSPC),
            ));
        }
        Ok(())
    }
}

impl Drop for TempArea {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
        LIVE.lock().unwrap().retain(|d| d != &self.dir);
    }
}

/// Bytes available to unprivileged users on the file system holding `path`.
pub fn free_bytes(path: &Path) -> Result<u64, IoError> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).map_err(|e| IoError::new(path, "statvfs", std::io::Error::other(e)))?;
    // SAFETY: statvfs is plain data for which all-zero bytes are a valid value.
    let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is a valid NUL-terminated path and `s` a writable statvfs.
    if unsafe { libc::statvfs(c.as_ptr(), &mut s) } != 0 {
        return Err(IoError::new(path, "statvfs", std::io::Error::last_os_error()));
    }
    Ok(s.f_bavail as u64 * s.f_frsize as u64)
}

fn remove_stale(parent: &Path, name: &str) {
    let Ok(entries) = std::fs::read_dir(parent) else { return };
    let prefix = format!(".{name}-");
    for e in entries.flatten() {
        let file = e.file_name().to_string_lossy().into_owned();
        if let Some(pid) = file.strip_prefix(&prefix).and_then(|p| p.parse::<u32>().ok()) {
            if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
}

/// Remove every live [`TempArea`] of this process (the interrupt path).
pub fn remove_live_areas() {
    let dirs = std::mem::take(&mut *LIVE.lock().unwrap_or_else(|e| e.into_inner()));
    for d in dirs {
        // other threads may still be creating files in it: once the
        // directory itself is gone they cannot, so retry until it is
        for _ in 0..200 {
            let _ = std::fs::remove_dir_all(&d);
            if !d.exists() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }
}

/// On SIGINT/SIGTERM, remove the live temporary areas and exit with 130.
pub fn remove_on_interrupt() {
    let _ = ctrlc::set_handler(|| {
        remove_live_areas();
        eprintln!("interrupted: temporary files removed");
        std::process::exit(130);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn area_is_removed_on_drop_and_stale_areas_by_the_next_run() {
        let parent = tempfile::tempdir().unwrap();
        let stale = parent.path().join(".work-4000000000");
        std::fs::create_dir_all(&stale).unwrap();
        std::fs::write(stale.join("x"), b"left by a killed run").unwrap();
        let area = TempArea::create(parent.path(), "work").unwrap();
        assert!(!stale.exists(), "a dead process's area is removed");
        std::fs::write(area.file("log"), b"data").unwrap();
        let dir = area.path().to_path_buf();
        assert!(dir.exists());
        drop(area);
        assert!(!dir.exists());
    }

    #[test]
    fn require_free_names_the_shortfall() {
        let parent = tempfile::tempdir().unwrap();
        let area = TempArea::create(parent.path(), "work").unwrap();
        assert!(area.require_free(1, "logs").is_ok());
        let e = area.require_free(u64::MAX / 2, "update logs").unwrap_err();
        assert!(e.is_no_space(), "{e}");
        let e = e.to_string();
        assert!(e.contains("update logs need about") && e.contains("another temporary directory"), "{e}");
    }
}
