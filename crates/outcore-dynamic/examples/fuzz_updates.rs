//! A mutation fuzzer for the update streams (issue 14 item 3): text
//! (`+ u v w`, `- u v`, `+ u`, `- u`, `= u x`, comments) and binary `.updb`
//! seeds, mutated by the parsers' fuzzer's mutator, are read through
//! `UpdateReader` in batches; every 100th is applied to a fresh dynamic store
//! too. A finding is a panic or an input that takes more than 10 s; each is
//! saved under OUT.
//!
//!   cargo run --release -p outcore-dynamic --example fuzz_updates -- [INPUTS per target] [OUT]

use outcore_dynamic::store::{DynamicStore, StoreOptions, Update};
use outcore_dynamic::updates::{encode, StreamFormat, UpdateReader, BINARY_MAGIC};
use std::path::{Path, PathBuf};
use std::time::Instant;

#[path = "../../outcore-ingest/examples/fuzz/mutate.rs"]
mod mutate;
use mutate::{mutate, panic_text, Findings, Rng};

fn seeds() -> Vec<(&'static str, &'static str, Vec<u8>)> {
    let mut text = String::from("# a stream\n");
    let mut updates = Vec::new();
    for i in 0..200u64 {
        let (u, v) = (i * 7 % 61, i * 13 % 59);
        let line = match i % 9 {
            0 => format!("- {u} {v}"),
            1 => format!("+ {u}"),
            2 => format!("= {u} {}", i * 1000),
            3 if i > 50 => format!("- {u}"),
            _ => format!("+ {u} {v} {}.25", i % 5),
        };
        text.push_str(&line);
        text.push('\n');
        updates.push(outcore_dynamic::updates::parse_line(line.as_bytes()).unwrap());
    }
    let mut binary = BINARY_MAGIC.to_vec();
    for x in &updates {
        binary.extend_from_slice(&encode(x));
    }
    vec![("text", "s.updates", text.into_bytes()), ("binary", "s.updb", binary)]
}

fn run_one(path: &Path, store: &Path, apply: bool) -> Result<(), String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        if let Ok(mut reader) = UpdateReader::open(path, StreamFormat::from_path(path), 64, true) {
            let mut batch: Vec<Update> = Vec::new();
            while reader.next_batch(&mut batch, 64).is_ok() && !batch.is_empty() {}
        }
        if apply {
            let _ = std::fs::remove_dir_all(store);
            let opts = StoreOptions { weighted: true, ..Default::default() };
            if let Ok(mut dynamic) = DynamicStore::create(store, opts) {
                if let Ok(mut reader) = UpdateReader::open(path, StreamFormat::from_path(path), 64, true) {
                    let mut batch: Vec<Update> = Vec::new();
                    while reader.next_batch(&mut batch, 64).is_ok() && !batch.is_empty() {
                        if dynamic.apply(&batch).is_err() {
                            break;
                        }
                    }
                }
                let _ = dynamic.commit();
            }
        }
    }))
    .map_err(|p| panic_text(&*p))
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
    for (name, file, seed) in seeds() {
        let mut rng = Rng(0xD1A_5EED ^ name.len() as u64);
        let mut findings = Findings::new(name, &out);
        let path = work.path().join(file);
        for i in 0..inputs {
            let state = rng.0;
            let data = mutate(&mut rng, &seed);
            std::fs::write(&path, &data).unwrap();
            let t = Instant::now();
            let result = run_one(&path, &work.path().join("store"), i % 100 == 0);
            let why = match result {
                Err(m) => Some(format!("panic: {m}")),
                Ok(()) if t.elapsed().as_secs_f64() > 10.0 => Some(format!("took {:.1} s", t.elapsed().as_secs_f64())),
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
