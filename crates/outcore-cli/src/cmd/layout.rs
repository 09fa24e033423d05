//! `outcore layout add STORE tiles|in`: add a layout to an existing store.

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
    /// Build a layout from the store's out-edges: `tiles` (the G-Store grid) or `in` (the in-edge CSR).
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
        /// Memory budget.
        #[arg(long, default_value = "1G", value_parser = crate::parse_memory)]
        memory: u64,
        /// Print the smallest budget the build needs and stop.
        #[arg(long)]
        dry_run: bool,
    },
}

pub fn run(a: Args) -> Result<ExitCode> {
    match a.action {
        Action::Add { store, layout, group, span_bits, memory, dry_run } => {
            if dry_run {
                return crate::args::print_minimum(&outcore_ingest::sort::layout_minimum(&layout), memory, false);
            }
            if layout == "in" {
                let t = std::time::Instant::now();
                outcore_ingest::in_layout::add_in(&store, memory, &Bars::new(false))?;
                println!("added the in-edge layout to {} in {:.2} s", store.display(), t.elapsed().as_secs_f64());
                return Ok(ExitCode::SUCCESS);
            }
            if layout != "tiles" {
                bail!("unknown layout '{layout}' (layout add builds: tiles, in)");
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
