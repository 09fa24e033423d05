//! What the store layer (and, through it, the engines and algorithms) can
//! fail with. Messages are one line, name the file or store, and say what
//! is wrong in the library's terms; front ends add the command that fixes
//! it (the CLI's "outcore layout add ...", a Python hint) from the typed
//! variant, never by parsing the text.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(transparent)]
    Io(#[from] outcore_io::IoError),
    /// A damaged, truncated or inconsistent file, or an impossible request on it.
    #[error("{}: {reason}", path.display())]
    Invalid { path: PathBuf, reason: String },
    #[error(transparent)]
    Budget(#[from] outcore_io::BudgetError),
    /// `reader` needs `layout`, which the store does not have.
    #[error("{}: has no '{layout}' layout, which {reader} reads (it has: {})", store.display(), present.join(", "))]
    MissingLayout { store: PathBuf, layout: String, reader: String, present: Vec<String> },
    /// A layout exists but was built without something the reader needs
    /// (tiles without weights); rebuilding the layout fixes it.
    #[error("{}: the '{layout}' layout {reason}", store.display())]
    StaleLayout { store: PathBuf, layout: String, reason: String },
    /// `reader` needs edge weights and the store has none.
    #[error("{}: {reader} needs edge weights and the store has none", store.display())]
    NoWeights { store: PathBuf, reader: String },
    /// `reader` needs users and items (a bipartite store) and the store is not one.
    #[error("{}: {reader} needs a bipartite store of users and items (import --bipartite, or generate ratings)", store.display())]
    NotBipartite { store: PathBuf, reader: String },
    /// The output exists and replacing it was not asked for.
    #[error("{}: already exists", path.display())]
    Exists { path: PathBuf },
    /// The output path holds something no command may replace, or is one
    /// of the inputs ([`crate::target`]); `reason` says what and what to do.
    #[error("{}: {reason}", path.display())]
    Refused { path: PathBuf, reason: String },
    /// A parameter outside its domain: `name` as the library calls it
    /// (`tolerance`, `root`, `sources`), `reason` what is wrong.
    #[error("{name} {reason}")]
    Parameter { name: String, reason: String },
}

impl StoreError {
    pub fn invalid(path: impl Into<PathBuf>, reason: impl Into<String>) -> Self {
        StoreError::Invalid { path: path.into(), reason: reason.into() }
    }
    pub fn parameter(name: impl Into<String>, reason: impl Into<String>) -> Self {
        StoreError::Parameter { name: name.into(), reason: reason.into() }
    }
}
