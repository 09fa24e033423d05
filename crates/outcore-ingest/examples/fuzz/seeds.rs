//! The parser fuzzers' seeds and sink, shared by the mutation fuzzer
//! (`fuzz_parsers`) and the coverage-guided one (`fuzz/afl`, AFL++ through
//! `cargo afl`): small files of every format written from a shared real
//! graph (text, el, wel, Matrix Market, METIS, Graphalytics, bin32, bin64,
//! and gzip / zstd of text), and a sink that reads at most a million edges.
#![allow(dead_code)]

use outcore_ingest::formats::{self, Declared, EdgeSink, Format, ParseOptions, SinkError, SinkResult};
use outcore_ingest::{import_file, ImportOptions, NoProgress};
use std::io::Write;
use std::path::Path;

/// Edges a parse may deliver before the sink stops it.
pub const MAX_EDGES: u64 = 1_000_000;

/// Counts what a parser reads; stops it after [`MAX_EDGES`].
pub struct Bounded {
    pub edges: u64,
}

impl EdgeSink for Bounded {
    fn declare(&mut self, _: &Declared) -> SinkResult {
        Ok(())
    }
    fn vertex(&mut self, _: u64) -> SinkResult {
        Ok(())
    }
    fn vertices_done(&mut self) -> SinkResult {
        Ok(())
    }
    fn edge(&mut self, _: u64, _: u64, _: f32) -> SinkResult {
        self.edges += 1;
        if self.edges > MAX_EDGES {
            return Err(SinkError::Reject("enough edges".into()));
        }
        Ok(())
    }
}

/// One target: its name, the seed files (name -> bytes; the first is parsed), and its format.
pub struct Target {
    pub name: &'static str,
    pub files: Vec<(String, Vec<u8>)>,
    pub format: Format,
    pub opts: ParseOptions,
}

fn edges_of(path: &Path, limit: usize) -> Vec<(u64, u64)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .take(limit)
        .map(|l| {
            let mut f = l.split_whitespace().map(|x| x.parse::<u64>().unwrap());
            (f.next().unwrap(), f.next().unwrap())
        })
        .collect()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

/// Every parser target with its seeds, written from the shared data
/// (`shared` is its `data` directory).
pub fn targets(shared: &Path) -> Vec<Target> {
    let edges = edges_of(&shared.join("real/CA-GrQc.txt"), 300);
    let text: String = std::iter::once("# a comment\n".to_string()).chain(edges.iter().map(|(u, v)| format!("{u}\t{v}\n"))).collect();
    let wel: String = edges.iter().map(|(u, v)| format!("{u} {v} {}.5\n", (u + v) % 9)).collect();
    let n = edges.iter().map(|&(u, v)| u.max(v)).max().unwrap() + 1;
    let mtx: String = format!("%%MatrixMarket matrix coordinate integer general\n% comment\n{n} {n} {}\n", edges.len())
        + &edges.iter().map(|(u, v)| format!("{} {} {}\n", u + 1, v + 1, (u * v) % 7 + 1)).collect::<String>();
    let bin32: Vec<u8> = edges.iter().flat_map(|&(u, v)| [(u as u32).to_le_bytes(), (v as u32).to_le_bytes()]).flatten().collect();
    let bin64: Vec<u8> = edges.iter().flat_map(|&(u, v)| [u.to_le_bytes(), v.to_le_bytes()]).flatten().collect();
    let metis = std::fs::read(shared.join("real/power.graph")).unwrap();
    let ga_dir = shared.join("graphalytics/evlp");
    let ga_name = "example-directed".to_string();
    let ga_file = |ext: &str| std::fs::read(ga_dir.join(format!("{ga_name}.{ext}"))).unwrap();
    let zst = zstd::encode_all(text.as_bytes(), 3).unwrap();
    let plain = |name: &'static str, file: &str, bytes: Vec<u8>, format: Format, weighted: bool| Target {
        name,
        files: vec![(file.to_string(), bytes)],
        format,
        opts: ParseOptions { weighted },
    };
    vec![
        plain("text", "g.txt", text.clone().into_bytes(), Format::Text, false),
        plain("el", "g.el", text.clone().into_bytes(), Format::El, false),
        plain("wel", "g.wel", wel.into_bytes(), Format::Wel, true),
        plain("mtx", "g.mtx", mtx.into_bytes(), Format::MatrixMarket, true),
        plain("metis", "g.graph", metis, Format::Metis, false),
        Target {
            name: "graphalytics",
            // the edge file is mutated; the vertex file and properties come along
            files: vec![
                ("g.e".into(), ga_file("e")),
                ("g.v".into(), ga_file("v")),
                ("g.properties".into(), String::from_utf8(ga_file("properties")).unwrap().replace(&ga_name, "g").into_bytes()),
            ],
            format: Format::Graphalytics,
            opts: ParseOptions::default(),
        },
        plain("bin32", "g.bin32", bin32, Format::Bin32, false),
        plain("bin64", "g.bin64", bin64, Format::Bin64, false),
        plain("gzip", "g.txt.gz", gzip(text.as_bytes()), Format::Text, false),
        plain("zstd", "g.txt.zst", zst, Format::Text, false),
    ]
}

/// What both fuzzers do with an input at `path`: parse it into a
/// [`Bounded`] sink and, when `import`, import it whole under a 64 MiB
/// budget into `store` (removed after). Errors are the expected outcome
/// of most inputs; only a panic, a hang or a greedy allocation is a finding.
pub fn exercise(target: &Target, path: &Path, store: &Path, import: bool) {
    let mut sink = Bounded { edges: 0 };
    let _ = formats::parse(path, target.format, &target.opts, &mut sink, &mut |_, _, _| {});
    if import {
        let opts = ImportOptions {
            format: Some(target.format),
            weighted: target.opts.weighted,
            memory: 64 << 20,
            force: true,
            ..Default::default()
        };
        let _ = import_file(path, store, &opts, &NoProgress);
        let _ = std::fs::remove_dir_all(store);
    }
}
