//! What both update-stream fuzzers (`fuzz_updates`, the mutation fuzzer,
//! and fuzz/afl's `updates`, coverage-guided) do with an input, and their
//! seeds: a text stream (`+ u v w`, `- u v`, `+ u`, `- u`, `= u x`,
//! comments) and the same updates as a binary `.updb` stream. An input is
//! read through `UpdateReader` in batches and, when asked, applied to a
//! fresh dynamic store. A panic is the caller's to catch.
#![allow(dead_code)]

use outcore_dynamic::store::{DynamicStore, StoreOptions, Update};
use outcore_dynamic::updates::{decode, encode, text_update, StreamFormat, UpdateReader, BINARY_MAGIC, RECORD};
use std::path::Path;

/// (target, file name, seed) for each stream format.
pub fn seeds() -> Vec<(&'static str, &'static str, Vec<u8>)> {
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

/// Parse the stream `data` in memory, as `UpdateReader` parses what it
/// reads (a text line at a time, or binary records after the magic bytes),
/// up to its first error: the parsing without the file and its read-ahead
/// thread, which cost far more than the parsing of a small input.
pub fn parse_in_memory(data: &[u8], binary: bool) {
    if binary {
        let Some(records) = data.strip_prefix(BINARY_MAGIC) else { return };
        for r in records.chunks_exact(RECORD) {
            if decode(r.try_into().expect("a record")).is_err() {
                return;
            }
        }
    } else {
        for line in data.split(|&b| b == b'\n') {
            if let Some(Err(_)) = text_update(line) {
                return;
            }
        }
    }
}

/// Read the stream at `path` whole; with `apply`, apply it to a fresh
/// dynamic store at `store` too (replaced if there).
pub fn exercise(path: &Path, store: &Path, apply: bool) {
    if let Ok(mut reader) = UpdateReader::open(path, StreamFormat::from_path(path), 64, true) {
        let mut batch: Vec<Update> = Vec::new();
        while reader.next_batch(&mut batch, 64).is_ok() && !batch.is_empty() {}
    }
    if !apply {
        return;
    }
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
