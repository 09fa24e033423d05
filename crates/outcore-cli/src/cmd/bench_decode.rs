//! `outcore bench-decode STORE`: decode speed of a layout's encoding, in
//! edges per second on one core. The adjacency file, index and block table
//! are read into memory first, so the figure is the decoder alone (no
//! I/O); every block's checksum is verified once, as the engines do.

use anyhow::{Context, Result};
use outcore_store::{ListSource, Store};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// The store whose layout is decoded.
    pub store: PathBuf,
    /// Layout to decode.
    #[arg(long, default_value = "out")]
    pub layout: String,
    /// Decode the whole layout this many times (the best run counts).
    #[arg(long, default_value_t = 3)]
    pub repeat: u32,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(a: Args) -> Result<ExitCode> {
    let store = Store::open(&a.store)?;
    let lay = store.layout(&a.layout)?;
    let n = store.vertices();
    let mut index = Vec::with_capacity(n as usize + 1);
    let mut entries = lay.index_entries()?;
    for i in 0..=n {
        index.push(entries.entry(i)?);
    }
    let bytes = std::fs::read(lay.adjacency_path()).with_context(|| lay.adjacency_path().display().to_string())?;
    let table = lay.block_table()?;
    let codec = lay.codec();
    let entry = |u: u64| (index[u as usize], index[u as usize + 1]);
    let (mut best, mut edges, mut checksum) = (f64::INFINITY, 0u64, 0u64);
    let mut verify_seconds = 0.0;
    for round in 0..a.repeat.max(1) {
        let mut decoder = codec.decoder();
        let mut out = Vec::new();
        let (mut count, mut sum) = (0u64, 0u64);
        let t = Instant::now();
        let mut block = None;
        let mut next_block = 0usize;
        // the first vertex of the next block, looked up once a block
        let first_of = |t: &outcore_store::BlockTable, i: usize| if i < t.len() { t.get(i).first_vertex } else { u64::MAX };
        let mut next_first = table.as_ref().map_or(u64::MAX, |t| first_of(t, 0));
        for v in 0..n {
            let (lo, hi) = entry(v);
            let src = match &table {
                Some(t) => {
                    while next_first <= v {
                        let b = t.get(next_block);
                        if round == 0 {
                            let tv = Instant::now();
                            b.verify(&lay.adjacency_path(), &bytes[b.first_byte as usize..b.end_byte as usize])?;
                            verify_seconds += tv.elapsed().as_secs_f64();
                        }
                        block = Some(b);
                        next_block += 1;
                        next_first = first_of(t, next_block);
                    }
                    let b = block.unwrap();
                    ListSource {
                        vertices: n,
                        bytes: &bytes[b.first_byte as usize..b.end_byte as usize],
                        first_byte: b.first_byte,
                        first_vertex: b.first_vertex,
                        entry: &entry,
                    }
                }
                None => ListSource { vertices: n, bytes: &bytes, first_byte: 0, first_vertex: v, entry: &entry },
            };
            decoder
                .decode(v, lo, hi, &src, &mut out)
                .map_err(|e| anyhow::anyhow!("{}: vertex {v}: {e}", lay.adjacency_path().display()))?;
            count += out.len() as u64;
            sum = sum.wrapping_add(out.iter().fold(0u64, |s, &x| s.wrapping_add(x)));
        }
        best = best.min(t.elapsed().as_secs_f64());
        (edges, checksum) = (count, sum);
    }
    let rate = edges as f64 / best.max(1e-9);
    if a.json {
        println!(
            "{}",
            serde_json::json!({
                "store": a.store, "layout": a.layout, "encoding": codec.encoding().name(), "edges": edges,
                "seconds": best, "edges_per_second": rate, "ns_per_edge": best * 1e9 / edges.max(1) as f64,
                "adjacency_bytes": bytes.len(), "bits_per_edge": bytes.len() as f64 * 8.0 / edges.max(1) as f64,
                "checksum_seconds": verify_seconds, "id_sum": checksum,
            })
        );
    } else {
        println!(
            "{} {}: {} edges decoded in {:.3} s on one core: {:.1} M edges/s ({:.2} ns/edge); {:.2} bits/edge; block checksums {:.3} s",
            a.store.display(),
            codec.encoding().name(),
            crate::grouped(edges),
            best,
            rate / 1e6,
            best * 1e9 / edges.max(1) as f64,
            bytes.len() as f64 * 8.0 / edges.max(1) as f64,
            verify_seconds
        );
    }
    Ok(ExitCode::SUCCESS)
}
