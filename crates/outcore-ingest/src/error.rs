use std::path::{Path, PathBuf};

/// Everything import and generate can fail with. Each message is one line
/// that names the file, the line or byte offset where known, and the reason.
#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    #[error("{}:{line}: {reason}", path.display())]
    Line { path: PathBuf, line: u64, reason: String },
    #[error("{}: byte {offset}: {reason}", path.display())]
    Byte { path: PathBuf, offset: u64, reason: String },
    #[error("{}: {reason}", path.display())]
    File { path: PathBuf, reason: String },
    #[error(transparent)]
    Io(#[from] outcore_io::IoError),
    #[error(transparent)]
    Store(#[from] outcore_store::StoreError),
    #[error(transparent)]
    Budget(#[from] outcore_io::BudgetError),
    #[error("{0}")]
    Usage(String),
    /// A parameter outside its domain (`group`, `span_bits`, ...).
    #[error("{name} {reason}")]
    Parameter { name: String, reason: String },
    /// The file name does not tell the format, and none was given.
    #[error("{}: cannot tell the format from the file name (formats: {known})", path.display())]
    UnknownFormat { path: PathBuf, known: &'static str },
    /// Internal: an id did not fit the narrow sort record; import retries wide.
    #[error("internal: id exceeds 32 bits")]
    NeedWide,
}

impl IngestError {
    pub fn line(path: &Path, line: u64, reason: impl Into<String>) -> Self {
        IngestError::Line { path: path.to_path_buf(), line, reason: reason.into() }
    }
    pub fn byte(path: &Path, offset: u64, reason: impl Into<String>) -> Self {
        IngestError::Byte { path: path.to_path_buf(), offset, reason: reason.into() }
    }
    pub fn file(path: &Path, reason: impl Into<String>) -> Self {
        IngestError::File { path: path.to_path_buf(), reason: reason.into() }
    }
}

pub type Result<T> = std::result::Result<T, IngestError>;
