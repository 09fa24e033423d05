//! AFL++ target for the update streams (issue 14 item 3, coverage-guided):
//! the same seeds and reading as the mutation fuzzer `fuzz_updates`
//! (`crates/outcore-dynamic/examples/fuzz/streams.rs`). Each input is
//! written to a file of the target's format and read through
//! `UpdateReader` in batches; an input whose first byte is a multiple of
//! 16 is also applied to a fresh dynamic store. A panic aborts: AFL saves
//! the input as a crash.
//!
//!   updates seeds DIR     write each target's seed into DIR/TARGET/
//!   updates TARGET        text or binary, under afl-fuzz

use std::path::Path;

#[path = "../../../../crates/outcore-dynamic/examples/fuzz/streams.rs"]
mod streams;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let seeds = streams::seeds();
    let names = || seeds.iter().map(|s| s.0).collect::<Vec<_>>().join(", ");
    match args.first().map(String::as_str) {
        Some("seeds") => {
            let dir = Path::new(args.get(1).expect("updates seeds DIR"));
            for (name, file, seed) in &seeds {
                let d = dir.join(name);
                std::fs::create_dir_all(&d).unwrap();
                std::fs::write(d.join(file), seed).unwrap();
            }
        }
        Some(name) => {
            let Some(&(_, file, _)) = seeds.iter().find(|s| s.0 == name) else {
                eprintln!("updates: no target {name}; the targets are {}", names());
                std::process::exit(2);
            };
            let work = tempfile::tempdir().unwrap();
            let path = work.path().join(file);
            let store = work.path().join("store");
            afl::fuzz!(|data: &[u8]| {
                std::fs::write(&path, data).unwrap();
                streams::exercise(&path, &store, data.first().is_some_and(|b| b % 16 == 0));
            });
        }
        None => {
            eprintln!("usage: updates seeds DIR | updates TARGET (one of {})", names());
            std::process::exit(2);
        }
    }
}
