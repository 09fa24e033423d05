//! AFL++ target for the list decoders, the tile reader and the Elias-Fano
//! index (issue 14 item 3, coverage-guided): the same targets, seed stores
//! and checks as the mutation fuzzer `fuzz_decoders`
//! (`crates/outcore-ingest/examples/fuzz/decoders.rs`). An input is laid
//! out as follows, so that AFL mutates every part the readers trust:
//!
//! - `raw32`, `ceesor`, `gapref`: the block number (u16, little-endian,
//!   modulo the layout's blocks), the index entry to damage (a byte,
//!   modulo the block's entries), a mask XORed into it (u64), then the
//!   block's bytes;
//! - `tiles`: the index file's length (u32), the index file, the data file;
//! - `index-raw32`, `index-ceesor`: the index file (u64 entries);
//! - `ef-file`: the stride of the lookups (a byte), then the `.ef` file.
//!
//! A panic aborts, and so does a finding of the checks (a decoded id past
//! the vertex count, an entry read back wrong): AFL saves either as a
//! crash; bench/afl sets the time and memory limits that make a slow or
//! greedy input a hang or a crash.
//!
//!   decoders seeds DIR     write each target's seeds into DIR/TARGET/
//!   decoders TARGET        run under afl-fuzz (reads inputs from AFL)

use std::path::Path;

#[path = "../../../../crates/outcore-ingest/examples/fuzz/decoders.rs"]
mod decoders;
use decoders::Target;

/// The seeds of one set-up target, as inputs laid out as above.
fn seeds(target: &Target) -> Vec<Vec<u8>> {
    match target {
        Target::Lists(lists) => {
            // up to 16 blocks spread over the layout, undamaged
            let n = lists.blocks.len();
            let mut picks: Vec<usize> = (0..16).map(|i| i * n / 16).collect();
            picks.dedup();
            picks
                .into_iter()
                .map(|b| {
                    let mut input = (b as u16).to_le_bytes().to_vec();
                    input.push(0);
                    input.extend_from_slice(&0u64.to_le_bytes());
                    input.extend_from_slice(&lists.block(b).0);
                    input
                })
                .collect()
        }
        Target::Tiles { data, index, .. } => {
            let mut input = (index.len() as u32).to_le_bytes().to_vec();
            input.extend_from_slice(index);
            input.extend_from_slice(data);
            vec![input]
        }
        Target::Index { file, .. } => vec![file.clone()],
        Target::EfFile { file, .. } => [1u8, 7, 64].iter().map(|&s| [&[s][..], file].concat()).collect(),
    }
}

/// Run one input through the target's check; `Some(why)` is a finding.
fn check(target: &Target, data: &[u8], budget: &outcore_io::Budget) -> Option<String> {
    match target {
        Target::Lists(lists) => {
            let (head, bytes) = data.split_at_checked(11)?;
            let b = u16::from_le_bytes([head[0], head[1]]) as usize % lists.blocks.len();
            let (_, mut entries) = lists.block(b);
            let i = head[2] as usize % entries.len();
            entries[i] ^= u64::from_le_bytes(head[3..11].try_into().unwrap());
            lists.decode_block(b, bytes, &entries)
        }
        Target::Tiles { rec, vertices, copy, .. } => {
            let (len, rest) = data.split_at_checked(4)?;
            let (index, tiles) = rest.split_at_checked(u32::from_le_bytes(len.try_into().unwrap()) as usize)?;
            decoders::read_tiles(rec, *vertices, copy, tiles, index)
        }
        Target::Index { encoding, .. } => decoders::build_index(*encoding, data, budget),
        Target::EfFile { entries, flag, path, .. } => {
            let (&stride, file) = data.split_first()?;
            decoders::read_ef_file(path, *entries, *flag, file, stride as u64)
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let shared = outcore_io::shared_dir(env!("CARGO_MANIFEST_DIR")).join("data");
    let work = tempfile::tempdir().unwrap();
    match args.first().map(String::as_str) {
        Some("seeds") => {
            let dir = Path::new(args.get(1).expect("decoders seeds DIR"));
            for name in decoders::TARGETS {
                let d = dir.join(name);
                std::fs::create_dir_all(&d).unwrap();
                for (i, seed) in seeds(&decoders::setup(name, &shared, work.path())).iter().enumerate() {
                    std::fs::write(d.join(format!("seed-{i}")), seed).unwrap();
                }
            }
        }
        Some(name) if decoders::TARGETS.contains(&name) => {
            let target = decoders::setup(name, &shared, work.path());
            let budget = outcore_io::Budget::new(256 << 20);
            afl::fuzz!(|data: &[u8]| {
                if let Some(why) = check(&target, data, &budget) {
                    panic!("{name}: {why}");
                }
            });
        }
        _ => {
            eprintln!("usage: decoders seeds DIR | decoders TARGET (one of {})", decoders::TARGETS.join(", "));
            std::process::exit(2);
        }
    }
}
