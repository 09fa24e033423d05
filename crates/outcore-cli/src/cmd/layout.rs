//! `outcore layout add STORE tiles|in|hot`: add a layout to an existing
//! store; `outcore layout upgrade STORE`: a version 1 store's indexes as
//! Elias-Fano.

use crate::progress::Bars;
use anyhow::{bail, Result};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub action: Action,
}

#[derive(clap::Subcommand)]
pub enum Action {
    /// Build a layout from the store's edges: `tiles` (the G-Store grid), `in` (the in-edge CSR) or `hot` (NETALX's in-memory neighbours, column by column).
    Add {
        /// The store to add the layout to.
        store: PathBuf,
        /// The layout to add.
        layout: String,
        /// Tiles per group side (q); groups are stored contiguously.
        #[arg(long, default_value_t = outcore_ingest::tiles::DEFAULT_GROUP)]
        group: u32,
        /// log2 of the vertices per span (G-Store: 16; smaller spans give
        /// small graphs a grid of many tiles, for testing).
        #[arg(long, default_value_t = 16)]
        span_bits: u32,
        /// hot: neighbours kept per vertex (columns stored).
        #[arg(long, default_value_t = outcore_ingest::hot::DEFAULT_COLUMNS)]
        columns: u32,
        /// Memory budget.
        #[arg(long, default_value = "1G", value_parser = crate::parse_memory)]
        memory: u64,
        /// Print the smallest budget the build needs and stop.
        #[arg(long)]
        dry_run: bool,
    },
    /// Rewrite a format version 1 store's indexes as Elias-Fano (format
    /// version 2): a few bits a vertex on disk and in memory instead of 64;
    /// record each layout's longest list, and write the page checksums of
    /// adjacency and weights, where the store lacks them. Reads the
    /// indexes (and for page checksums those files); writes only new files.
    Upgrade {
        /// The store to upgrade.
        store: PathBuf,
    },
}

pub fn run(a: Args) -> Result<ExitCode> {
    match a.action {
        Action::Upgrade { store } => {
            let t = std::time::Instant::now();
            let done = outcore_ingest::upgrade::upgrade(&store)?;
            let mut did = Vec::new();
            if !done.layouts.is_empty() {
                did.push(format!(
                    "the indexes of layout {} from {} to {} (now format version {})",
                    done.layouts.join(", "),
                    outcore_io::format_bytes(done.bytes_before),
                    outcore_io::format_bytes(done.bytes_after),
                    outcore_store::FORMAT_VERSION
                ));
            }
            if !done.longest_recorded.is_empty() {
                did.push(format!("recorded the longest list of layout {}", done.longest_recorded.join(", ")));
            }
            if !done.page_sums_written.is_empty() {
                did.push(format!(
                    "wrote the page checksums {} ({}): random reads of them now check 4 KiB pages, not 1 MiB blocks or whole codec blocks",
                    done.page_sums_written.join(", "),
                    outcore_io::format_bytes(done.page_sums_bytes)
                ));
            }
            if did.is_empty() {
                println!("{}: Elias-Fano indexes, longest lists and page checksums already: nothing to do", store.display());
            } else {
                println!("upgraded {}: {} in {:.2} s", store.display(), did.join("; "), t.elapsed().as_secs_f64());
            }
            Ok(ExitCode::SUCCESS)
        }
        Action::Add { store, layout, group, span_bits, columns, memory, dry_run } => {
            if layout == "hot" {
                if dry_run {
                    let opened = outcore_store::Store::open(&store)?;
                    return crate::args::print_minimum(&outcore_ingest::hot::minimum(&opened, columns)?, memory, false);
                }
                let t = std::time::Instant::now();
                let r = outcore_ingest::hot::add_hot(&store, columns, memory, &Bars::new(false))?;
                println!("{}", hot_summary(&store, &r, t.elapsed().as_secs_f64()));
                return Ok(ExitCode::SUCCESS);
            }
            if dry_run {
                let opened = outcore_store::Store::open(&store)?;
                return crate::args::print_minimum(&outcore_ingest::sort::layout_minimum_for(&opened, &layout)?, memory, false);
            }
            if layout == "in" {
                let t = std::time::Instant::now();
                outcore_ingest::in_layout::add_in(&store, memory, &Bars::new(false))?;
                println!("added the in-edge layout to {} in {:.2} s", store.display(), t.elapsed().as_secs_f64());
                return Ok(ExitCode::SUCCESS);
            }
            if layout != "tiles" {
                bail!("unknown layout '{layout}' (layout add builds: tiles, in, hot)");
            }
            let t = std::time::Instant::now();
            let r = outcore_ingest::tiles::add_tiles(&store, group, span_bits, memory, &Bars::new(false))?;
            println!(
                "added tiles to {}: {} edges in {} non-empty tiles of a {} x {} grid (2^{} vertices per span, groups of {} x {}{}) in {:.2} s",
                store.display(),
                crate::grouped(r.edges),
                crate::grouped(r.tiles),
                r.spans,
                r.spans,
                r.span_bits,
                r.group,
                r.group,
                if r.upper_triangle { ", upper triangle" } else { "" },
                t.elapsed().as_secs_f64()
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// One line on a hot layout just built.
pub fn hot_summary(store: &std::path::Path, r: &outcore_store::HotRecord, seconds: f64) -> String {
    let entries: u64 = r.columns.iter().map(|c| c.entries).sum();
    format!(
        "added hot lists to {}: {} columns of layout {} ({} entries, {}) in {:.2} s",
        store.display(),
        r.columns.len(),
        r.source,
        crate::grouped(entries),
        outcore_io::format_bytes(entries * 4),
        seconds
    )
}
