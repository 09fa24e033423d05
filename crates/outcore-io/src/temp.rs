//! Temporary work areas (update logs, value tables, sort runs) that never
//! outlive the run that made them: [`Staged`] directories, removed when
//! dropped (success, error or panic), on an interrupt, and, for runs that
//! were killed outright, by the next run in the same place.

use crate::error::IoError;
use crate::staging::Staged;
use std::path::{Path, PathBuf};

/// A hidden staging directory in `PARENT` removed with everything in it on drop.
#[derive(Debug)]
pub struct TempArea {
    dir: Staged,
}

impl TempArea {
    /// Create a staging directory for `name` in `parent`, first removing
    /// those that runs which no longer exist left there.
    pub fn create(parent: &Path, name: &str) -> Result<Self, IoError> {
        Ok(TempArea { dir: Staged::dir(parent, name)? })
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn file(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// Bytes free for an unprivileged writer on the area's file system.
    pub fn free_bytes(&self) -> Result<u64, IoError> {
        free_bytes(self.path())
    }

    /// Fail unless `needed` bytes are free, naming what they are for.
    pub fn require_free(&self, needed: u64, what: &str) -> Result<(), IoError> {
        let free = self.free_bytes()?;
        if free < needed {
            return Err(IoError::new(
                self.path(),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn area_is_removed_on_drop_and_stale_areas_by_the_next_run() {
        let parent = tempfile::tempdir().unwrap();
        let stale = parent.path().join(".outcore-4000000000-work");
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
