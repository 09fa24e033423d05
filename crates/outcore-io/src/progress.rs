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

/// Counts the items of a phase and reports every 64 Ki of them (a report
/// takes a lock in the front end; a per-item report would cost more than
/// the item). The phase ends when the counter is ended or dropped.
pub struct Counter<'a> {
    progress: &'a dyn Progress,
    done: u64,
    reported: u64,
    ended: bool,
}

impl<'a> Counter<'a> {
    /// Begin `phase` of `total` items.
    pub fn new(progress: &'a dyn Progress, phase: &str, total: u64) -> Self {
        progress.begin(phase, total, false);
        Counter { progress, done: 0, reported: 0, ended: false }
    }

    #[inline]
    pub fn add(&mut self, items: u64) {
        self.done += items;
        if self.done - self.reported >= 1 << 16 {
            self.progress.set(self.done);
            self.reported = self.done;
        }
    }

    pub fn end(mut self) {
        self.finish();
    }

    fn finish(&mut self) {
        if !self.ended {
            self.ended = true;
            self.progress.set(self.done);
            self.progress.end();
        }
    }
}

impl Drop for Counter<'_> {
    fn drop(&mut self) {
        self.finish();
    }
}
