//! A mutation fuzzer for the update streams (issue 14 item 3): text
//! (`+ u v w`, `- u v`, `+ u`, `- u`, `= u x`, comments) and binary `.updb`
//! seeds, mutated by the parsers' fuzzer's mutator, are parsed in memory as
//! `UpdateReader` parses them; every Nth (`OUTCORE_FUZZ_READ_EVERY`, default
//! 20) is also written to a file and read through `UpdateReader` in batches
//! (its read-ahead thread costs far more than parsing a small input), and
//! every Mth of those (`OUTCORE_FUZZ_APPLY_EVERY`, default 100 inputs)
//! applied to a fresh dynamic store too. A finding is a panic or an input
//! that takes more than 10 s; each is saved under OUT.
//!
//!   cargo run --release -p outcore-dynamic --example fuzz_updates -- [INPUTS per target] [OUT] [text|binary ...]

use std::path::{Path, PathBuf};
use std::time::Instant;

#[path = "../../outcore-ingest/examples/fuzz/mutate.rs"]
mod mutate;
use mutate::{mutate, panic_text, Findings, Rng};
#[path = "fuzz/streams.rs"]
mod streams;

/// Parse `data` in memory; with `read`, write it to `path` and read it
/// through `UpdateReader` too, and with `apply` apply it to a store.
fn run_one(data: &[u8], binary: bool, (path, read): (&Path, bool), store: &Path, apply: bool) -> Result<(), String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        streams::parse_in_memory(data, binary);
        if read {
            std::fs::write(path, data).unwrap();
            streams::exercise(path, store, apply);
        }
    }))
    .map_err(|p| panic_text(&*p))
}

fn every(variable: &str, default: u64) -> u64 {
    std::env::var(variable).ok().and_then(|n| n.parse().ok()).filter(|&n| n > 0).unwrap_or(default)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let inputs: u64 = args.first().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let out = PathBuf::from(args.get(1).cloned().unwrap_or_else(|| "bench/out/fuzz".into()));
    let (read_every, apply_every) = (every("OUTCORE_FUZZ_READ_EVERY", 20), every("OUTCORE_FUZZ_APPLY_EVERY", 100));
    std::fs::create_dir_all(&out).unwrap();
    std::panic::set_hook(Box::new(|_| {}));
    let work = tempfile::tempdir().unwrap();
    Findings::header();
    let mut total = 0;
    // the targets named after INPUTS and OUT, or both
    let only = &args[2.min(args.len())..];
    for (name, file, seed) in streams::seeds().into_iter().filter(|(name, ..)| only.is_empty() || only.iter().any(|o| o == name)) {
        let mut rng = Rng(0xD1A_5EED ^ name.len() as u64);
        let mut findings = Findings::new(name, &out);
        let path = work.path().join(file);
        for i in 0..inputs {
            let state = rng.0;
            let data = mutate(&mut rng, &seed);
            findings.tick(i);
            let (read, apply) = (i % read_every == 0, i % apply_every == 0);
            let timed = || {
                let t = Instant::now();
                (run_one(&data, name == "binary", (&path, read || apply), &work.path().join("store"), apply), t.elapsed().as_secs_f64())
            };
            let (mut result, mut seconds) = timed();
            if result.is_ok() && seconds > 10.0 {
                // a pause of the whole machine is not the input's doing: slow twice to count
                (result, seconds) = timed();
            }
            let why = match result {
                Err(m) => Some(format!("panic: {m}")),
                Ok(()) if seconds > 10.0 => Some(format!("took {seconds:.1} s")),
                Ok(()) => None,
            };
            if let Some(why) = why {
                if !findings.record(i, state, &why, &[(format!("{name}-{i}-{file}"), &data)]) {
                    break;
                }
            }
        }
        total += findings.finish(inputs);
    }
    std::process::exit(if total == 0 { 0 } else { 1 });
}
