//! A mutation fuzzer for the list decoders and the tile reader (issue 14
//! item 3): the targets and checks of `fuzz/decoders.rs` (raw32, ceesor and
//! gapref blocks, tiles, the traverse engine's Elias-Fano index built from
//! a damaged raw32 or ceesor index, a store's Elias-Fano index file), each
//! input the seed with a few bytes flipped, replaced or zeroed. A finding
//! is a panic, a decoded id beyond the vertex count or an index entry read
//! back wrong; each is saved under OUT.
//!
//!   cargo run --release -p outcore-ingest --example fuzz_decoders -- [INPUTS per target] [OUT] [TARGET...]

use std::path::PathBuf;

#[path = "fuzz/mutate.rs"]
mod mutate;
use mutate::{panic_text, Findings, Rng};
#[path = "fuzz/decoders.rs"]
mod decoders;
use decoders::Target;

/// Flip, replace, or zero a few bytes.
fn damage(rng: &mut Rng, data: &mut [u8]) {
    if data.is_empty() {
        return;
    }
    for _ in 0..1 + rng.below(4) {
        let i = rng.below(data.len());
        match rng.below(3) {
            0 => data[i] ^= 1 << rng.below(8),
            1 => data[i] = rng.next() as u8,
            _ => data[i] = if rng.below(2) == 0 { 0 } else { 0xff },
        }
    }
}

/// One damaged input of `target`: the files to save with a finding (by
/// extension), and the finding (a panic caught here too).
fn one_input(target: &Target, rng: &mut Rng, budget: &outcore_io::Budget) -> (Vec<(&'static str, Vec<u8>)>, Option<String>) {
    let check = |f: &dyn Fn() -> Option<String>| match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(finding) => finding,
        Err(p) => Some(format!("panic: {}", panic_text(&*p))),
    };
    match target {
        Target::Lists(lists) => {
            let b = rng.below(lists.blocks.len());
            let (mut bytes, mut entries) = lists.block(b);
            if rng.below(4) == 0 {
                // an index entry damaged too
                let i = rng.below(entries.len());
                entries[i] ^= 1 << rng.below(64);
            } else {
                damage(rng, &mut bytes);
            }
            let finding = check(&|| lists.decode_block(b, &bytes, &entries));
            (vec![("block", bytes)], finding)
        }
        Target::Tiles { rec, vertices, data, index, copy } => {
            let (mut d, mut x) = (data.clone(), index.clone());
            if rng.below(3) == 0 {
                damage(rng, &mut x);
            } else {
                damage(rng, &mut d);
            }
            let finding = check(&|| decoders::read_tiles(rec, *vertices, copy, &d, &x));
            (vec![("edges", d), ("index", x)], finding)
        }
        Target::Index { encoding, file } => {
            let mut bytes = file.clone();
            damage(rng, &mut bytes);
            let finding = check(&|| decoders::build_index(*encoding, &bytes, budget));
            (vec![("index", bytes)], finding)
        }
        Target::EfFile { file, entries, flag, path } => {
            let mut bytes = file.clone();
            damage(rng, &mut bytes);
            let stride = 1 + rng.below(64) as u64;
            let finding = check(&|| decoders::read_ef_file(path, *entries, *flag, &bytes, stride));
            (vec![("ef", bytes)], finding)
        }
    }
}

/// Each target's generator seed, as the fuzzer has always drawn them.
fn rng_seed(name: &str) -> u64 {
    match name {
        "tiles" => 0x7113_5EED,
        "ef-file" => 0xEF_F11E,
        "index-raw32" | "index-ceesor" => 0xEF_1DE8 ^ name.len() as u64,
        _ => 0x51_7CC1_B727_220A ^ name.len() as u64,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let inputs: u64 = args.first().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let out = PathBuf::from(args.get(1).cloned().unwrap_or_else(|| "bench/out/fuzz".into()));
    let wanted: Vec<&String> = args.iter().skip(2).collect();
    let want = |name: &str| wanted.is_empty() || wanted.iter().any(|w| *w == name);
    std::fs::create_dir_all(&out).unwrap();
    let shared = outcore_io::shared_dir(env!("CARGO_MANIFEST_DIR")).join("data");
    let work = tempfile::tempdir().unwrap();
    std::panic::set_hook(Box::new(|_| {}));
    let budget = outcore_io::Budget::new(256 << 20);
    Findings::header();
    let mut total = 0;
    for name in decoders::TARGETS.into_iter().filter(|n| want(n)) {
        let target = decoders::setup(name, &shared, work.path());
        let mut rng = Rng(rng_seed(name));
        let mut findings = Findings::new(name, &out);
        for i in 0..inputs {
            findings.tick(i);
            let state = rng.0;
            let (files, finding) = one_input(&target, &mut rng, &budget);
            if let Some(why) = finding {
                let named: Vec<(String, &[u8])> = files.iter().map(|(ext, b)| (format!("{name}-{i}.{ext}"), b.as_slice())).collect();
                if !findings.record(i, state, &why, &named) {
                    break;
                }
            }
        }
        total += findings.finish(inputs);
    }
    std::process::exit(if total == 0 { 0 } else { 1 });
}
