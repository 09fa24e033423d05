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
    /// A figure could not be drawn.
    #[error("drawing {what}: {reason}")]
    Plot {
        /// The figure.
        what: String,
        /// What the plotting library said.
        reason: String,
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

/// What kind of failure an [`Error`] is: front ends that have their own
/// error types (the Python package's exceptions) map from this, never
/// from the message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The memory budget is too small for a step (see [`Error::suggested_memory`]).
    Budget,
    /// A parameter, an option or an algorithm name is wrong.
    Parameter,
    /// An input file is malformed (the message names the file and line or byte).
    Input,
    /// A store is missing, damaged or not what the call needs.
    Store,
    /// The store lacks a layout the call needs (the message says which command adds it).
    Layout,
    /// The output exists and was not made by outcore for this call (`force` replaces it).
    Exists,
    /// No engine or version can run this here.
    Unsupported,
    /// An interrupt stopped the work; what it was writing is removed.
    Interrupted,
    /// Reading or writing a file failed (full disk, permissions).
    Io,
}

fn io_kind(e: &outcore_io::IoError) -> ErrorKind {
    use std::error::Error as _;
    match e.source().and_then(|s| s.downcast_ref::<std::io::Error>()) {
        Some(s) if s.kind() == std::io::ErrorKind::Interrupted => ErrorKind::Interrupted,
        _ => ErrorKind::Io,
    }
}

fn store_kind(e: &StoreError) -> ErrorKind {
    match e {
        StoreError::Io(io) => io_kind(io),
        StoreError::Budget(_) => ErrorKind::Budget,
        StoreError::MissingLayout { .. }
        | StoreError::StaleLayout { .. }
        | StoreError::NoWeights { .. }
        | StoreError::NotBipartite { .. } => ErrorKind::Layout,
        StoreError::Exists { .. } => ErrorKind::Exists,
        StoreError::Parameter { .. } => ErrorKind::Parameter,
        _ => ErrorKind::Store,
    }
}

fn ingest_kind(e: &IngestError) -> ErrorKind {
    match e {
        IngestError::Io(io) => io_kind(io),
        IngestError::Store(s) => store_kind(s),
        IngestError::Budget(_) => ErrorKind::Budget,
        IngestError::Usage(_) | IngestError::Parameter { .. } => ErrorKind::Parameter,
        _ => ErrorKind::Input,
    }
}

impl Error {
    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Run(outcore_algorithms::Error::Store(s)) => store_kind(s),
            Error::Run(_) => ErrorKind::Unsupported,
            Error::Ingest(e) => ingest_kind(e),
            Error::Dynamic(DynError::Ingest(e)) => ingest_kind(e),
            Error::Dynamic(DynError::Budget(_)) => ErrorKind::Budget,
            Error::Dynamic(DynError::Io { source, .. }) if source.kind() == std::io::ErrorKind::Interrupted => ErrorKind::Interrupted,
            Error::Dynamic(DynError::Io { .. } | DynError::Full(_)) => ErrorKind::Io,
            Error::Dynamic(DynError::Line { .. } | DynError::UnknownFormat { .. }) => ErrorKind::Input,
            Error::Dynamic(DynError::Usage(_) | DynError::Parameter { .. }) => ErrorKind::Parameter,
            Error::Dynamic(_) => ErrorKind::Store,
            Error::UnknownAlgorithm { .. } | Error::UnknownColumn { .. } => ErrorKind::Parameter,
            Error::Plot { .. } => ErrorKind::Io,
        }
    }

    /// For a budget shortfall, the smallest budget in bytes that would have
    /// done (whole MiB).
    pub fn suggested_memory(&self) -> Option<u64> {
        let b = match self {
            Error::Run(outcore_algorithms::Error::Store(StoreError::Budget(b))) => b,
            Error::Ingest(IngestError::Budget(b) | IngestError::Store(StoreError::Budget(b))) => b,
            Error::Dynamic(DynError::Budget(b)) => b,
            _ => return None,
        };
        Some(b.suggest)
    }
}
