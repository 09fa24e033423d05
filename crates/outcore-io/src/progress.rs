//! Progress of a long step (an import phase, PageRank's iterations, a
//! sort-reduce superstep): the library reports, a front end draws (the
//! CLI's bars, Python's callback), tests ignore it.

/// What a long step reports. `bytes` says whether `total` counts bytes
/// (else items: edges, iterations, sources).
pub trait Progress: Sync {
    fn begin(&self, phase: &str, total: u64, bytes: bool);
    fn set(&self, position: u64);
    fn end(&self);
}

/// Reports nothing.
pub struct NoProgress;

impl Progress for NoProgress {
    fn begin(&self, _: &str, _: u64, _: bool) {}
    fn set(&self, _: u64) {}
    fn end(&self) {}
}
