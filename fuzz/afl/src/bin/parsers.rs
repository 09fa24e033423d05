//! AFL++ target for the input parsers (issue 14 item 3, coverage-guided):
//! the same targets and seeds as the mutation fuzzer `fuzz_parsers`
//! (`crates/outcore-ingest/examples/fuzz/seeds.rs`). Each input is written
//! to a file and parsed into a sink that reads at most a million edges;
//! an input whose first byte is a multiple of 16 is also imported whole
//! under a 64 MiB budget, so that AFL can steer into the import (and the
//! header counts it sizes files by) as well as into the parsers. A panic
//! aborts: AFL saves the input as a crash; bench/afl sets the time and
//! memory limits that make a slow or greedy input a hang or a crash.
//!
//!   parsers seeds DIR     write each target's seed into DIR/TARGET/
//!   parsers TARGET        run under afl-fuzz (reads inputs from AFL)

use std::path::Path;

#[path = "../../../../crates/outcore-ingest/examples/fuzz/seeds.rs"]
mod seeds;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let shared = outcore_io::shared_dir(env!("CARGO_MANIFEST_DIR")).join("data");
    let targets = seeds::targets(&shared);
    let names = || targets.iter().map(|t| t.name).collect::<Vec<_>>().join(", ");
    match args.first().map(String::as_str) {
        Some("seeds") => {
            let dir = Path::new(args.get(1).expect("parsers seeds DIR"));
            for t in &targets {
                let d = dir.join(t.name);
                std::fs::create_dir_all(&d).unwrap();
                std::fs::write(d.join(&t.files[0].0), &t.files[0].1).unwrap();
            }
        }
        Some(name) => {
            let Some(target) = targets.iter().find(|t| t.name == name) else {
                eprintln!("parsers: no target {name}; the targets are {}", names());
                std::process::exit(2);
            };
            let work = tempfile::tempdir().unwrap();
            for (file, bytes) in &target.files[1..] {
                std::fs::write(work.path().join(file), bytes).unwrap();
            }
            let path = work.path().join(&target.files[0].0);
            let store = work.path().join("store");
            afl::fuzz!(|data: &[u8]| {
                std::fs::write(&path, data).unwrap();
                seeds::exercise(target, &path, &store, data.first().is_some_and(|b| b % 16 == 0));
            });
        }
        None => {
            eprintln!("usage: parsers seeds DIR | parsers TARGET (one of {})", names());
            std::process::exit(2);
        }
    }
}
