use std::path::{Path, PathBuf};

/// Everything the dynamic store can fail with; each message is one line
/// naming the file (and line, for update streams) and the reason.
#[derive(Debug, thiserror::Error)]
pub enum DynError {
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{}:{line}: {reason}", path.display())]
    Line { path: PathBuf, line: u64, reason: String },
    #[error("{0}")]
    Corrupt(String),
    #[error("{0}")]
    Full(String),
    #[error("{0}")]
    Usage(String),
    /// A parameter outside its domain (`partitions`, `threshold`).
    #[error("{name} {reason}")]
    Parameter { name: String, reason: String },
    /// The file name does not tell the stream format, and none was given.
    #[error("{}: cannot tell the stream format from the file name (formats: {known})", path.display())]
    UnknownFormat { path: PathBuf, known: &'static str },
    #[error(transparent)]
    Ingest(#[from] outcore_ingest::error::IngestError),
    #[error(transparent)]
    Budget(#[from] outcore_io::BudgetError),
}

impl DynError {
    pub fn io(path: &Path, source: std::io::Error) -> Self {
        DynError::Io { path: path.to_path_buf(), source }
    }
}

pub type Result<T> = std::result::Result<T, DynError>;
