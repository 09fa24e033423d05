//! Getting graphs in and out: import (any input format, external memory),
//! orderings applied by an external relabel, added layouts, and export.
//! The ingest layer does the work; this module holds the steps that
//! combine it with the algorithms (computing an order needs a traversal).

use crate::Error;
use outcore_algorithms::order::{self, Order};
use outcore_ingest::recode::{write_permutation, RecodeReport};
use outcore_io::{Budget, Minimum, Progress, Staged, PROCESS_BASELINE};
use outcore_store::{check_output, OutputKind, Store, StoreError};
use std::path::{Path, PathBuf};

pub use outcore_algorithms::order::Order as VertexOrder;
pub use outcore_ingest::export::{export, ExportFormat, ExportOptions, ExportReport};
pub use outcore_ingest::in_layout::add_in;
pub use outcore_ingest::recode::{recode, RecodeOptions};
pub use outcore_ingest::tiles::{add_tiles, DEFAULT_GROUP, SPAN_BITS};
pub use outcore_ingest::{import_file, import_from, Format, ImportOptions, ImportReport, SelfLoops};

/// The smallest budget an import with `opts` takes, with the tile build
/// after it when `tiles` (the larger of the two steps).
pub fn import_minimum(opts: &ImportOptions, tiles: bool) -> Minimum {
    let import = outcore_ingest::import::minimum(opts);
    let layout = outcore_ingest::sort::layout_minimum("tiles");
    if tiles && layout.bytes() > import.bytes() {
        layout
    } else {
        import
    }
}

/// Rewrite `src` as `dst` in `order` with `opts` (encoding, budget,
/// force, layouts kept; `opts.order` is set from `order`): the order is
/// computed through the traverse engine, written as a permutation file,
/// and applied by an external sort-join.
pub fn order_store(src: &Path, dst: &Path, order: Order, opts: &RecodeOptions, progress: &dyn Progress) -> Result<RecodeReport, Error> {
    let opts = RecodeOptions { order: order.name().into(), ..opts.clone() };
    let (memory, force) = (opts.memory, opts.force);
    if order == Order::None {
        return Ok(recode(src, dst, None, &opts, progress)?);
    }
    // refuse a bad output, or a budget too small for either step, before any work
    check_output(dst, OutputKind::Store, force, &[src])?;
    let store = Store::open(src)?;
    let ordering = Minimum::new(format!("computing the {} order", order.name()))
        .with("program, thread stacks and allocator slack", PROCESS_BASELINE)
        .with("ordering state and the traverse engine at its smallest", order::minimum_bytes(&store, order)?);
    let recoding = outcore_ingest::recode::minimum_for(&store, opts.encoding)?;
    ordering.larger(recoding).check(memory).map_err(StoreError::from)?;
    let budget = Budget::new(memory);
    let _base = budget.reserve("program, thread stacks and allocator slack", PROCESS_BASELINE)?;
    let new_of_old = order::compute(&store, order, &budget)?;
    let parent = match dst.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let perm = Staged::file(&parent, &format!("{}.order", dst.file_name().unwrap_or_default().to_string_lossy()))?;
    write_permutation(perm.path(), &new_of_old)?;
    drop(new_of_old);
    Ok(recode(src, dst, Some(perm.path()), &opts, progress)?)
}

/// Import into `store` with `import`, then, unless `order` is `none`, put
/// the vertices in that order: the import goes to a hidden sibling first
/// (raw, with the `in` layout a directed ordering needs), which is then
/// ordered and encoded into `store` and removed. `inputs` are the files
/// the import reads (the output policy keeps the store off them).
pub fn import_ordered(
    store: &Path,
    inputs: &[&Path],
    opts: &ImportOptions,
    order: Order,
    progress: &dyn Progress,
    import: impl FnOnce(&Path, &ImportOptions) -> Result<ImportReport, Error>,
) -> Result<ImportReport, Error> {
    check_output(store, OutputKind::Store, opts.force, inputs)?;
    if order == Order::None {
        return import(store, opts);
    }
    let name = store.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let parent = match store.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    // an empty staged directory the raw import replaces, removed however this ends
    let unordered = Staged::dir(&parent, &format!("{name}.unordered"))?;
    let raw = ImportOptions { encoding: None, in_layout: true, force: false, ..opts.clone() };
    let mut report = import(unordered.path(), &raw)?;
    let layouts = Some(if opts.in_layout { vec!["out".to_string(), "in".to_string()] } else { vec!["out".to_string()] });
    let recode = RecodeOptions { encoding: opts.encoding, order: String::new(), memory: opts.memory, force: opts.force, layouts };
    let r = order_store(unordered.path(), store, order, &recode, progress)?;
    report.store = r.store;
    report.seconds += r.seconds;
    Ok(report)
}

/// Add the layout `name` (`in`, `tiles` or `hot`) to the store at `dir`
/// with its default shape (what `outcore layout add DIR NAME` does).
pub fn add_layout(dir: &Path, name: &str, memory: u64, progress: &dyn Progress) -> Result<(), Error> {
    match name {
        "in" => drop(add_in(dir, memory, progress)?),
        "tiles" => drop(add_tiles(dir, DEFAULT_GROUP, SPAN_BITS, memory, progress)?),
        "hot" => drop(outcore_ingest::hot::add_hot(dir, outcore_ingest::hot::DEFAULT_COLUMNS, memory, progress)?),
        "out" => {}
        other => {
            return Err(outcore_ingest::IngestError::Parameter {
                name: "layout".into(),
                reason: format!("unknown layout '{other}' (outcore builds: out, in, tiles, hot)"),
            }
            .into())
        }
    }
    Ok(())
}
