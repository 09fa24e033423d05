//! I/O errors that always name the file and what was being done to it.

use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
#[error("{}: {op}: {source}", path.display())]
pub struct IoError {
    pub path: PathBuf,
    pub op: String,
    #[source]
    pub source: std::io::Error,
}

impl IoError {
    pub fn new(path: &Path, op: impl Into<String>, source: std::io::Error) -> Self {
        IoError { path: path.to_path_buf(), op: op.into(), source }
    }
}

/// `result.ctx(path, "reading")` turns a bare `std::io::Error` into an [`IoError`].
pub trait IoContext<T> {
    fn ctx(self, path: &Path, op: &str) -> Result<T, IoError>;
}

impl<T> IoContext<T> for std::io::Result<T> {
    fn ctx(self, path: &Path, op: &str) -> Result<T, IoError> {
        self.map_err(|e| IoError::new(path, op, e))
    }
}

impl IoError {
    /// Whether the device (or the file system's quota) is full.
    pub fn is_no_space(&self) -> bool {
        matches!(self.source.raw_os_error(), Some(libc::ENOSPC) | Some(libc::EDQUOT))
    }
}
