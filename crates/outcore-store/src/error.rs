use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(transparent)]
    Io(#[from] outcore_io::IoError),
    #[error("{}: {reason}", path.display())]
    Invalid { path: PathBuf, reason: String },
    #[error(transparent)]
    Budget(#[from] outcore_io::BudgetError),
}

impl StoreError {
    pub fn invalid(path: impl Into<PathBuf>, reason: impl Into<String>) -> Self {
        StoreError::Invalid { path: path.into(), reason: reason.into() }
    }
}
