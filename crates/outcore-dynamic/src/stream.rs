//! Applying an update stream batch by batch, with commits, and rolling
//! back to the last commit when the stream turns out to be bad.

use crate::error::{DynError, Result};
use crate::store::{ApplyReport, DynamicStore, Update};
use crate::updates::UpdateReader;

pub struct StreamOptions {
    /// Updates per batch (memory: about 100 bytes each).
    pub batch: usize,
    /// Commit after this many updates (None: once, at the end).
    pub commit_every: Option<u64>,
}

/// Batch size for a memory budget: half of it, ~128 bytes per update in
/// flight. Larger is better out of core: a batch reads and writes about
/// every page of the heap it touches.
pub fn batch_for(memory: u64) -> usize {
    (memory / 2 / 128).clamp(1 << 12, 1 << 26) as usize
}

/// Read `reader` to the end, applying each batch with `apply` (the store's
/// own, or one that also maintains a colouring), committing as asked and
/// at the end. On an error, the store is rolled back to its last commit
/// and the error says so.
pub fn apply_stream(
    store: &mut DynamicStore,
    reader: &mut UpdateReader,
    opts: &StreamOptions,
    apply: &mut dyn FnMut(&mut DynamicStore, &[Update]) -> Result<ApplyReport>,
    progress: &mut dyn FnMut(u64, &ApplyReport),
) -> Result<ApplyReport> {
    let mut total = ApplyReport::default();
    let mut since_commit = 0u64;
    let mut batch = Vec::with_capacity(opts.batch);
    let result = (|| -> Result<()> {
        loop {
            reader.next_batch(&mut batch, opts.batch)?;
            if batch.is_empty() {
                return Ok(());
            }
            let r = apply(store, &batch)?;
            total.add(&r);
            since_commit += batch.len() as u64;
            if opts.commit_every.is_some_and(|n| since_commit >= n) {
                store.commit()?;
                since_commit = 0;
            }
            progress(reader.position(), &total);
        }
    })();
    match result {
        Ok(()) => {
            store.commit()?;
            Ok(total)
        }
        Err(e) => {
            let epoch = store.epoch();
            store.roll_back()?;
            Err(DynError::Usage(format!(
                "{e}\n(nothing of this run after the last commit was kept: the store is as it was at commit {epoch}; {} updates were committed before the error)",
                total.updates.saturating_sub(since_commit)
            )))
        }
    }
}
