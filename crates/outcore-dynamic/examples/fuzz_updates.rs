//! A mutation fuzzer for the update streams (issue 14 item 3): text
//! (`+ u v w`, `- u v`, `+ u`, `- u`, `= u x`, comments) and binary `.updb`
//! seeds, mutated by the parsers' fuzzer's mutator, are read through
//! `UpdateReader` in batches; every 100th is applied to a fresh dynamic store
//! too. A finding is a panic or an input that takes more than 10 s; each is
//! saved under OUT.
//!
//!   cargo run --release -p outcore-dynamic --example fuzz_updates -- [INPUTS per target] [OUT]

use std::path::{Path, PathBuf};
use std::time::Instant;

#[path = "../../outcore-ingest/examples/fuzz/mutate.rs"]
mod mutate;
use mutate::{mutate, panic_text, Findings, Rng};
#[path = "fuzz/streams.rs"]
mod streams;

fn run_one(path: &Path, store: &Path, apply: bool) -> Result<(), String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| streams::exercise(path, store, apply))).map_err(|p| panic_text(&*p))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let inputs: u64 = args.first().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let out = PathBuf::from(args.get(1).cloned().unwrap_or_else(|| "bench/out/fuzz".into()));
    std::fs::create_dir_all(&out).unwrap();
    std::panic::set_hook(Box::new(|_| {}));
    let work = tempfile::tempdir().unwrap();
    Findings::header();
    let mut total = 0;
    for (name, file, seed) in streams::seeds() {
        let mut rng = Rng(0xD1A_5EED ^ name.len() as u64);
        let mut findings = Findings::new(name, &out);
        let path = work.path().join(file);
        for i in 0..inputs {
            let state = rng.0;
            let data = mutate(&mut rng, &seed);
            std::fs::write(&path, &data).unwrap();
            findings.tick(i);
            let timed = || {
                let t = Instant::now();
                (run_one(&path, &work.path().join("store"), i % 100 == 0), t.elapsed().as_secs_f64())
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
