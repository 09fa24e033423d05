//! Getting graphs in and out: import (any input format, external memory),
//! orderings applied by an external relabel, added layouts, and export.
//! The ingest layer does the work; this module holds the steps that
//! combine it with the algorithms (computing an order needs a traversal).

use crate::Error;
use outcore_algorithms::order::{self, Order};
use outcore_ingest::recode::{write_permutation, RecodeReport};
use outcore_io::{Budget, PROCESS_BASELINE};
use outcore_store::{Encoding, Store, StoreError};
use std::path::{Path, PathBuf};

pub use outcore_algorithms::order::Order as VertexOrder;
pub use outcore_ingest::export::{export, ExportFormat, ExportOptions, ExportReport};
pub use outcore_ingest::in_layout::add_in;
pub use outcore_ingest::recode::{recode, RecodeOptions};
pub use outcore_ingest::tiles::{add_tiles, DEFAULT_GROUP, SPAN_BITS};
pub use outcore_ingest::{import_file, import_from, Format, ImportOptions, ImportReport, SelfLoops};

/// Rewrite `src` as `dst` in `order` and `encoding` within `memory`: the
/// order is computed through the traverse engine, written as a
/// permutation file, and applied by an external sort-join.
pub fn order_store(
    src: &Path,
    dst: &Path,
    order: Order,
    encoding: Option<Encoding>,
    memory: u64,
    force: bool,
    layouts: Option<Vec<String>>,
) -> Result<RecodeReport, Error> {
    let opts = RecodeOptions { encoding, order: order.name().into(), memory, force, layouts };
    if order == Order::None {
        return Ok(recode(src, dst, None, &opts)?);
    }
    let store = Store::open(src)?;
    let budget = Budget::new(memory);
    let _base = budget.reserve("program, thread stacks and allocator slack", PROCESS_BASELINE)?;
    let new_of_old = order::compute(&store, order, &budget)?;
    let parent = match dst.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let perm = parent.join(format!(".{}.order-{}", dst.file_name().unwrap_or_default().to_string_lossy(), std::process::id()));
    write_permutation(&perm, &new_of_old)?;
    drop(new_of_old);
    let result = recode(src, dst, Some(&perm), &opts);
    let _ = std::fs::remove_file(&perm);
    Ok(result?)
}

/// Import into `store` with `import`, then, unless `order` is `none`, put
/// the vertices in that order: the import goes to a hidden sibling first
/// (raw, with the `in` layout a directed ordering needs), which is then
/// ordered and encoded into `store` and removed.
pub fn import_ordered(
    store: &Path,
    opts: &ImportOptions,
    order: Order,
    import: impl FnOnce(&Path, &ImportOptions) -> Result<ImportReport, Error>,
) -> Result<ImportReport, Error> {
    if order == Order::None {
        return import(store, opts);
    }
    if store.exists() && !opts.force {
        return Err(StoreError::Exists { path: store.to_path_buf() }.into());
    }
    let name = store.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let unordered = store.with_file_name(format!(".{name}.unordered-{}", std::process::id()));
    let raw = ImportOptions { encoding: None, in_layout: true, force: true, ..opts.clone() };
    let result = import(&unordered, &raw).and_then(|mut report| {
        let layouts = Some(if opts.in_layout { vec!["out".to_string(), "in".to_string()] } else { vec!["out".to_string()] });
        let r = order_store(&unordered, store, order, opts.encoding, opts.memory, opts.force, layouts)?;
        report.store = r.store;
        report.seconds += r.seconds;
        Ok(report)
    });
    let _ = std::fs::remove_dir_all(&unordered);
    result
}
