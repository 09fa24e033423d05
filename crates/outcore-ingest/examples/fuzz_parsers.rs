//! A mutation fuzzer for the input parsers (issue 14 item 3). Stable Rust
//! has no coverage-guided fuzzing without extra toolchains, so this mutates
//! seeds: small files of every format written from a shared real graph
//! (text, el, wel, Matrix Market, METIS, Graphalytics, bin32, bin64, and
//! gzip / zstd of text), changed by bit flips, byte changes, insertions,
//! deletions, truncations, repeated spans and header numbers replaced by
//! huge ones. Each input is parsed in-process into a sink that reads at most
//! a million edges; every 50th is imported whole under a 64 MiB budget.
//! A finding is a panic, an input that takes more than 10 s (twice in a
//! row: once may be the machine pausing), or a heap
//! peak above 256 MiB (a global allocator counts); each is saved under OUT
//! and printed. Prints per target: inputs run, findings.
//!
//!   cargo run --release -p outcore-ingest --example fuzz_parsers -- [INPUTS per target] [OUT] [TARGET...]

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

#[path = "fuzz/mutate.rs"]
mod mutate;
#[path = "fuzz/seeds.rs"]
mod seeds;
use mutate::{mutate, panic_text, Findings, Rng};
use seeds::{targets, Target};

/// Heap bytes live now and the most since the last reset.
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

struct Counting;

// SAFETY: every call is passed to the system allocator unchanged; the
// counters only add and subtract the sizes it was asked for.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(now, Ordering::Relaxed);
        // SAFETY: the caller's contract for `alloc` is passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller's contract for `dealloc` is passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const MAX_SECONDS: f64 = 10.0;
const MAX_HEAP: usize = 256 << 20;

enum Finding {
    Panic(String),
    Slow(f64),
    Heap(usize),
}

/// Parse (and every `import_every`th time import) the files in `dir`.
fn run_one(target: &Target, dir: &Path, import: bool) -> Option<Finding> {
    let path = dir.join(&target.files[0].0);
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let start = Instant::now();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        seeds::exercise(target, &path, &dir.join("store"), import);
    }));
    let seconds = start.elapsed().as_secs_f64();
    let peak = PEAK.load(Ordering::Relaxed).saturating_sub(base);
    match result {
        Err(p) => Some(Finding::Panic(panic_text(&*p))),
        Ok(()) if seconds > MAX_SECONDS => Some(Finding::Slow(seconds)),
        Ok(()) if peak > MAX_HEAP => Some(Finding::Heap(peak)),
        Ok(()) => None,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let inputs: u64 = args.first().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let out = PathBuf::from(args.get(1).cloned().unwrap_or_else(|| "bench/out/fuzz".into()));
    let wanted: Vec<&String> = args.iter().skip(2).collect();
    let shared = outcore_io::shared_dir(env!("CARGO_MANIFEST_DIR")).join("data");
    std::fs::create_dir_all(&out).unwrap();
    // panics are findings, reported below, not noise on stderr
    std::panic::set_hook(Box::new(|_| {}));
    // OUTCORE_FUZZ_IMPORT_EVERY: how often an input is also imported whole
    let import_every: u64 = std::env::var("OUTCORE_FUZZ_IMPORT_EVERY").ok().and_then(|v| v.parse().ok()).unwrap_or(50).max(1);
    Findings::header();
    let mut total_findings = 0;
    for target in targets(&shared) {
        if !wanted.is_empty() && !wanted.iter().any(|w| *w == target.name) {
            continue;
        }
        let work = tempfile::tempdir().unwrap();
        for (name, bytes) in &target.files[1..] {
            std::fs::write(work.path().join(name), bytes).unwrap();
        }
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (target.name.len() as u64 * 0x1000_0001));
        let mut findings = Findings::new(target.name, &out);
        for i in 0..inputs {
            let seed_rng = rng.0;
            let data = mutate(&mut rng, &target.files[0].1);
            std::fs::write(work.path().join(&target.files[0].0), &data).unwrap();
            findings.tick(i);
            let mut finding = run_one(&target, work.path(), i % import_every == 0);
            if let Some(Finding::Slow(_)) = finding {
                // a pause of the whole machine is not the input's doing: slow twice to count
                finding = run_one(&target, work.path(), i % import_every == 0);
            }
            if let Some(f) = finding {
                let what = match f {
                    Finding::Panic(m) => format!("panic: {m}"),
                    Finding::Slow(s) => format!("took {s:.1} s"),
                    Finding::Heap(b) => format!("heap peak {} MiB", b >> 20),
                };
                let saved = format!("{}-{i}-{}", target.name, target.files[0].0);
                if !findings.record(i, seed_rng, &what, &[(saved, &data)]) {
                    break;
                }
            }
        }
        total_findings += findings.finish(inputs);
    }
    std::process::exit(if total_findings == 0 { 0 } else { 1 });
}
