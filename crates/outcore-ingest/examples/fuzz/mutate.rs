//! What the fuzzers share (`fuzz_parsers`, `fuzz_decoders`, and
//! `fuzz_updates` of outcore-dynamic): the mutator, reproducible random
//! changes that keep an input near its seed, with the numbers and words
//! that break parsers (huge counts, negative and floating values, NUL,
//! 0xff); and the report of findings, each input saved and printed with
//! the generator state that reproduces it.
#![allow(dead_code)]

use std::path::Path;
use std::time::Instant;

/// The project's SplitMix64 ([`outcore_io::SplitMix64`]) with the draws
/// the fuzzers want; its state (`.0`), printed with each finding,
/// reproduces the input.
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        let mut s = outcore_io::SplitMix64(self.0);
        let x = s.next_u64();
        self.0 = s.0;
        x
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Change `data` in one to four ways.
pub fn mutate(rng: &mut Rng, seed: &[u8]) -> Vec<u8> {
    let mut data = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(data.len() + 1);
        match rng.below(9) {
            0 if !data.is_empty() => {
                let i = at.min(data.len() - 1);
                data[i] ^= 1 << rng.below(8);
            }
            1 if !data.is_empty() => {
                let i = at.min(data.len() - 1);
                data[i] = rng.next() as u8;
            }
            2 => {
                let byte = *b"0123456789 \t\n-.%#eE,:=x\0\xff".get(rng.below(26)).unwrap_or(&b'9');
                data.insert(at, byte);
            }
            3 if !data.is_empty() => {
                let n = rng.below(16).min(data.len() - at.min(data.len()));
                data.drain(at.min(data.len())..at.min(data.len()) + n);
            }
            4 => data.truncate(at),
            5 if !data.is_empty() => {
                // repeat a span
                let len = rng.below(64).min(data.len() - at.min(data.len() - 1));
                let start = at.min(data.len() - 1);
                let span = data[start..start + len].to_vec();
                for _ in 0..1 + rng.below(8) {
                    data.splice(start..start, span.iter().copied());
                }
            }
            6 => {
                // a huge number where a number was
                let huge = [
                    "18446744073709551615",
                    "4294967296",
                    "99999999999999999999999",
                    "1e300",
                    "-1",
                    "0",
                    "340282366920938463463374607431768211456",
                ];
                let word = huge[rng.below(huge.len())].as_bytes();
                let start = at.min(data.len());
                let end = (start..data.len()).find(|&i| !data[i].is_ascii_digit()).unwrap_or(data.len());
                data.splice(start..end, word.iter().copied());
            }
            7 if data.len() >= 8 => {
                // a huge little-endian word (binary formats, compressed headers)
                let start = at.min(data.len() - 8);
                data[start..start + 8].copy_from_slice(&(u64::MAX >> rng.below(40)).to_le_bytes());
            }
            _ => {
                let n = rng.below(8);
                let start = at.min(data.len());
                data.splice(start..start, (0..n).map(|_| rng.next() as u8));
            }
        }
    }
    data
}

/// The text of a caught panic.
pub fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default()
}

/// A target stops after this many findings.
pub const MAX_FINDINGS: u64 = 20;

/// The findings of one target.
pub struct Findings<'a> {
    target: String,
    out: &'a Path,
    started: Instant,
    count: u64,
    /// When [`Findings::tick`] last printed.
    reported: Instant,
}

/// How often [`Findings::tick`] prints a progress line.
const PROGRESS_SECONDS: u64 = 600;

impl<'a> Findings<'a> {
    /// Print the header of the table the targets' rows follow.
    pub fn header() {
        println!("{:<14} {:>10} {:>9} {:>8}", "target", "inputs", "findings", "seconds");
    }

    /// Start timing `target`; its findings are saved under `out`.
    pub fn new(target: &str, out: &'a Path) -> Self {
        Findings { target: target.to_string(), out, started: Instant::now(), count: 0, reported: Instant::now() }
    }

    /// After `done` inputs: a progress line on stderr every ten minutes, so
    /// that a run of hours stopped part way still says how far it got.
    pub fn tick(&mut self, done: u64) {
        if self.reported.elapsed().as_secs() >= PROGRESS_SECONDS {
            self.reported = Instant::now();
            let seconds = self.started.elapsed().as_secs();
            eprintln!("  {}: {done} inputs, {} findings, {seconds} s so far", self.target, self.count);
        }
    }

    /// Save the input's `files` (name under `out`, bytes) and print why it
    /// is a finding with the generator `state` it came from. False once
    /// the target has [`MAX_FINDINGS`].
    pub fn record(&mut self, input: u64, state: u64, why: &str, files: &[(String, &[u8])]) -> bool {
        self.count += 1;
        let mut saved = Vec::new();
        for (name, bytes) in files {
            let path = self.out.join(name);
            std::fs::write(&path, bytes).unwrap();
            saved.push(path.display().to_string());
        }
        println!("FINDING {} input {input} (rng state {state:#x}): {why}; saved as {}", self.target, saved.join(", "));
        self.count < MAX_FINDINGS
    }

    /// Print the target's row; returns its findings.
    pub fn finish(self, inputs: u64) -> u64 {
        println!("{:<14} {:>10} {:>9} {:>8.0}", self.target, inputs, self.count, self.started.elapsed().as_secs_f64());
        self.count
    }
}
