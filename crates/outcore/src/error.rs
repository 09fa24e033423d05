//! Everything the library API can fail with, typed, in the library's own
//! words: front ends (the CLI, the Python package) add the flag or the
//! command that fixes it from the variant, never by parsing the message.

use outcore_dynamic::error::DynError;
use outcore_ingest::IngestError;
use outcore_store::StoreError;

/// What a call of the library API can fail with.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Planning or running an algorithm (missing layout, unsupported
    /// engine, budget shortfall, damaged store, bad parameter).
    #[error(transparent)]
    Run(#[from] outcore_algorithms::Error),
    /// Importing, exporting, adding layouts, recoding.
    #[error(transparent)]
    Ingest(#[from] IngestError),
    /// The dynamic store.
    #[error(transparent)]
    Dynamic(#[from] DynError),
    /// No algorithm of the registry has this name.
    #[error("no algorithm is called '{name}' (outcore has: {known})")]
    UnknownAlgorithm {
        /// The name asked for.
        name: String,
        /// The names the registry has.
        known: String,
    },
    /// The algorithm returns no result of this name.
    #[error("{algorithm} returns no '{name}' (it returns: {known})")]
    UnknownColumn {
        /// The algorithm that ran.
        algorithm: String,
        /// The result asked for.
        name: String,
        /// The results it returns.
        known: String,
    },
}

impl From<StoreError> for Error {
    fn from(e: StoreError) -> Self {
        Error::Run(e.into())
    }
}

impl From<outcore_io::IoError> for Error {
    fn from(e: outcore_io::IoError) -> Self {
        Error::Run(e.into())
    }
}

impl From<outcore_io::BudgetError> for Error {
    fn from(e: outcore_io::BudgetError) -> Self {
        Error::Run(e.into())
    }
}

impl Error {
    /// The store error inside, if that is what this is.
    pub fn store_error(&self) -> Option<&StoreError> {
        match self {
            Error::Run(outcore_algorithms::Error::Store(e)) => Some(e),
            Error::Ingest(IngestError::Store(e)) => Some(e),
            _ => None,
        }
    }
}
