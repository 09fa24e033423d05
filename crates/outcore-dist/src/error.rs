use outcore_dynamic::error::DynError;

/// What a distributed command can fail with. Every rank returns an error
/// when any rank fails: its own, or [`DistError::OtherRanks`] naming the
/// ranks whose messages say why.
#[derive(Debug, thiserror::Error)]
pub enum DistError {
    #[error(transparent)]
    Store(#[from] DynError),
    #[error(transparent)]
    Ingest(#[from] outcore_ingest::error::IngestError),
    #[error(transparent)]
    Output(#[from] outcore::Error),
    #[error("{0}")]
    Usage(String),
    #[error("{0}")]
    Corrupt(String),
    #[error("stopped because rank{} {} failed (see {} message)", if ranks.len() > 1 { "s" } else { "" }, list(ranks), if ranks.len() > 1 { "their" } else { "its" })]
    OtherRanks { ranks: Vec<usize> },
}

fn list(ranks: &[usize]) -> String {
    ranks.iter().map(|r| r.to_string()).collect::<Vec<_>>().join(", ")
}

pub type Result<T> = std::result::Result<T, DistError>;
