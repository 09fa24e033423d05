//! What running an algorithm can fail with, beyond the store's errors:
//! an engine the algorithm has no version for, or no engine at all for
//! this store. Messages speak the library's terms; front ends add the
//! flag or command that fixes them.

use crate::plan::Engine;
use outcore_store::StoreError;
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Store(#[from] StoreError),
    /// `algorithm` has no version for `engine` (or not with these parameters).
    #[error("{algorithm} does not run on the {engine} engine: {why}")]
    Unsupported { algorithm: String, engine: Engine, why: String },
    /// None of the algorithm's engines can run on this store.
    #[error("{}: no engine can run {algorithm} here: {why}", store.display())]
    NoEngine { algorithm: String, store: PathBuf, why: String },
}

impl From<outcore_io::BudgetError> for Error {
    fn from(e: outcore_io::BudgetError) -> Self {
        Error::Store(e.into())
    }
}

impl From<outcore_io::IoError> for Error {
    fn from(e: outcore_io::IoError) -> Self {
        Error::Store(e.into())
    }
}
