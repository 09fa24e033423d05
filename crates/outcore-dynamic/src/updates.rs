//! Update streams.
//!
//! Text (`.updates`, optionally `.gz`/`.zst`), one update per line:
//! ```text
//! + u v [w]    insert edge u -> v (weight w, default 1)
//! - u v        delete edge u -> v (one copy, in a multigraph)
//! + u          insert vertex u
//! - u          delete vertex u with all its edges
//! = u x        set the property of vertex u to the integer x
//! ```
//! Blank lines and lines starting with `#` or `%` are skipped.
//!
//! Binary (`.updb`): the 8 bytes `OCUPD\x01\0\0`, then 24-byte records
//! `[op: u8][0; 3][weight: f32][u: u64][v: u64]`, little-endian, with op
//! 1 insert edge, 2 delete edge, 3 insert vertex, 4 delete vertex, 5 set
//! property (v holds the value).
//!
//! Any edge-list format of `outcore import` (text, el, wel, mtx, bin32,
//! bin64, ...) is read as a stream of inserts.

use crate::error::{DynError, Result};
use crate::store::Update;
use outcore_ingest::formats::{self, Declared, EdgeSink, Format, ParseOptions, SinkError, SinkResult};
use outcore_ingest::input::{fields, parse_u64, parse_weight, Input, Lines};
use std::io::{BufWriter, Read, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

pub const BINARY_MAGIC: &[u8; 8] = b"OCUPD\x01\0\0";
pub const RECORD: usize = 24;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamFormat {
    Text,
    Binary,
    /// An edge list: every edge is an insert.
    Edges(Format),
}

impl StreamFormat {
    pub fn from_name(name: &str) -> Option<StreamFormat> {
        match name {
            "updates" => Some(StreamFormat::Text),
            "updb" => Some(StreamFormat::Binary),
            other => Format::from_name(other).map(StreamFormat::Edges),
        }
    }

    pub fn from_path(path: &Path) -> Option<StreamFormat> {
        let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
        let name = name.strip_suffix(".gz").or_else(|| name.strip_suffix(".zst")).unwrap_or(&name);
        if name.ends_with(".updates") || name.ends_with(".upd") {
            Some(StreamFormat::Text)
        } else if name.ends_with(".updb") {
            Some(StreamFormat::Binary)
        } else {
            Format::from_path(path).map(StreamFormat::Edges)
        }
    }
}

/// Parse one text update line (already known not to be blank or a comment).
pub fn parse_line(line: &[u8]) -> std::result::Result<Update, String> {
    let mut f = fields(line);
    let op = f.next().unwrap_or_default();
    let ids: Vec<&[u8]> = f.collect();
    let id = |i: usize| parse_u64(ids[i]);
    match (op, ids.len()) {
        (b"+", 2) => Ok(Update::InsertEdge { u: id(0)?, v: id(1)?, w: 1.0 }),
        (b"+", 3) => Ok(Update::InsertEdge { u: id(0)?, v: id(1)?, w: parse_weight(ids[2])? }),
        (b"+", 1) => Ok(Update::InsertVertex { u: id(0)? }),
        (b"-", 2) => Ok(Update::DeleteEdge { u: id(0)?, v: id(1)? }),
        (b"-", 1) => Ok(Update::DeleteVertex { u: id(0)? }),
        (b"=", 2) => Ok(Update::SetProperty {
            u: id(0)?,
            value: parse_u64(ids[1]).map_err(|_| format!("'{}' is not a property value (an integer)", String::from_utf8_lossy(ids[1])))?,
        }),
        (b"+" | b"-" | b"=", n) => Err(format!(
            "'{}' takes {} fields, found {n}",
            String::from_utf8_lossy(op),
            match op {
                b"+" => "1 (vertex) or 2-3 (edge and weight)",
                b"-" => "1 (vertex) or 2 (edge)",
                _ => "2 (vertex and value)",
            }
        )),
        _ => Err(format!("unknown operation '{}' (expected +, - or =)", String::from_utf8_lossy(op))),
    }
}

/// The update of one line of a text stream: None for a blank line or a
/// comment (`#` or `%`), else what [`parse_line`] makes of it.
pub fn text_update(line: &[u8]) -> Option<std::result::Result<Update, String>> {
    let t = line.trim_ascii();
    if t.is_empty() || t[0] == b'#' || t[0] == b'%' {
        return None;
    }
    Some(parse_line(t))
}

/// Reads a stream in batches of at most `batch` updates.
pub struct UpdateReader {
    inner: Inner,
    position: Arc<Mutex<Option<Arc<AtomicU64>>>>,
    pub total_bytes: u64,
}

enum Inner {
    Text { lines: Lines, buf: Vec<u8> },
    Binary { input: Input, offset: u64 },
    Edges { rx: std::sync::mpsc::Receiver<Result<Vec<Update>>>, _worker: std::thread::JoinHandle<()> },
}

impl UpdateReader {
    /// `weighted`: read a weight column from edge lists (weighted stores).
    pub fn open(path: &Path, format: Option<StreamFormat>, batch: usize, weighted: bool) -> Result<UpdateReader> {
        if !path.exists() {
            return Err(DynError::Usage(format!("{}: no such file", path.display())));
        }
        let format = format.or_else(|| StreamFormat::from_path(path)).ok_or_else(|| DynError::UnknownFormat {
            path: path.to_path_buf(),
            known: "updates, updb, or an edge-list format of import",
        })?;
        let total_bytes = std::fs::metadata(path).map_err(|e| DynError::io(path, e))?.len();
        Ok(match format {
            StreamFormat::Text => {
                let input = Input::open(path)?;
                let position = Arc::new(Mutex::new(Some(input.progress())));
                UpdateReader { inner: Inner::Text { lines: Lines::new(input), buf: Vec::new() }, position, total_bytes }
            }
            StreamFormat::Binary => {
                let mut input = Input::open(path)?;
                let position = Arc::new(Mutex::new(Some(input.progress())));
                let mut magic = [0u8; 8];
                input
                    .reader
                    .read_exact(&mut magic)
                    .map_err(|_| DynError::Corrupt(format!("{}: too short for a binary update stream", path.display())))?;
                if &magic != BINARY_MAGIC {
                    return Err(DynError::Corrupt(format!("{}: not a binary update stream (bad magic bytes)", path.display())));
                }
                UpdateReader { inner: Inner::Binary { input, offset: 8 }, position, total_bytes }
            }
            StreamFormat::Edges(f) => {
                // The parsers push; a thread turns that into batches we pull.
                let (tx, rx) = std::sync::mpsc::sync_channel(2);
                let position = Arc::new(Mutex::new(None));
                let (path, pos) = (path.to_path_buf(), position.clone());
                let worker = std::thread::spawn(move || {
                    let mut sink = BatchSink { tx: tx.clone(), batch: Vec::with_capacity(batch), size: batch };
                    let mut progress = |p: Arc<AtomicU64>, _: u64, _: bool| *pos.lock().unwrap() = Some(p);
                    let r = formats::parse(&path, f, &ParseOptions { weighted }, &mut sink, &mut progress);
                    let rest = std::mem::take(&mut sink.batch);
                    let _ = match r {
                        Ok(()) if rest.is_empty() => Ok(()),
                        Ok(()) => tx.send(Ok(rest)),
                        Err(e) => tx.send(Err(e.into())),
                    };
                });
                UpdateReader { inner: Inner::Edges { rx, _worker: worker }, position, total_bytes }
            }
        })
    }

    /// Bytes of the file consumed so far.
    pub fn position(&self) -> u64 {
        self.position.lock().unwrap().as_ref().map_or(0, |p| p.load(Ordering::Relaxed))
    }

    /// The next batch (empty at the end).
    pub fn next_batch(&mut self, out: &mut Vec<Update>, batch: usize) -> Result<()> {
        out.clear();
        match &mut self.inner {
            Inner::Text { lines, buf } => {
                while out.len() < batch && lines.next_line(buf)? {
                    let Some(update) = text_update(buf) else { continue };
                    out.push(update.map_err(|reason| DynError::Line { path: lines.path().to_path_buf(), line: lines.line, reason })?);
                }
            }
            Inner::Binary { input, offset } => {
                let mut rec = [0u8; RECORD];
                while out.len() < batch {
                    let mut got = 0;
                    while got < RECORD {
                        match input.reader.read(&mut rec[got..]) {
                            Ok(0) => break,
                            Ok(n) => got += n,
                            Err(e) => return Err(DynError::io(&input.path, e)),
                        }
                    }
                    if got == 0 {
                        break;
                    }
                    if got < RECORD {
                        return Err(DynError::Corrupt(format!(
                            "{}: byte {}: truncated record ({got} of {RECORD} bytes)",
                            input.path.display(),
                            offset
                        )));
                    }
                    out.push(
                        decode(&rec).map_err(|reason| DynError::Corrupt(format!("{}: byte {}: {reason}", input.path.display(), offset)))?,
                    );
                    *offset += RECORD as u64;
                }
            }
            Inner::Edges { rx, .. } => {
                if let Ok(r) = rx.recv() {
                    *out = r?;
                }
            }
        }
        Ok(())
    }
}

struct BatchSink {
    tx: std::sync::mpsc::SyncSender<Result<Vec<Update>>>,
    batch: Vec<Update>,
    size: usize,
}

impl EdgeSink for BatchSink {
    fn declare(&mut self, _: &Declared) -> SinkResult {
        Ok(())
    }
    fn vertex(&mut self, id: u64) -> SinkResult {
        self.push(Update::InsertVertex { u: id })
    }
    fn vertices_done(&mut self) -> SinkResult {
        Ok(())
    }
    fn edge(&mut self, u: u64, v: u64, w: f32) -> SinkResult {
        self.push(Update::InsertEdge { u, v, w })
    }
}

impl BatchSink {
    fn push(&mut self, x: Update) -> SinkResult {
        self.batch.push(x);
        if self.batch.len() >= self.size {
            let full = std::mem::replace(&mut self.batch, Vec::with_capacity(self.size));
            self.tx.send(Ok(full)).map_err(|_| SinkError::Reject("the store stopped reading".into()))?;
        }
        Ok(())
    }
}

pub fn decode(r: &[u8; RECORD]) -> std::result::Result<Update, String> {
    let w = f32::from_le_bytes(r[4..8].try_into().unwrap());
    let u = u64::from_le_bytes(r[8..16].try_into().unwrap());
    let v = u64::from_le_bytes(r[16..24].try_into().unwrap());
    if r[1..4] != [0, 0, 0] {
        return Err("record padding is not zero (not an update record?)".into());
    }
    Ok(match r[0] {
        1 if w.is_finite() => Update::InsertEdge { u, v, w },
        1 => return Err(format!("weight {w} is not finite")),
        2 => Update::DeleteEdge { u, v },
        3 => Update::InsertVertex { u },
        4 => Update::DeleteVertex { u },
        5 => Update::SetProperty { u, value: v },
        op => return Err(format!("unknown operation code {op}")),
    })
}

pub fn encode(x: &Update) -> [u8; RECORD] {
    let (op, w, u, v) = match *x {
        Update::InsertEdge { u, v, w } => (1u8, w, u, v),
        Update::DeleteEdge { u, v } => (2, 0.0, u, v),
        Update::InsertVertex { u } => (3, 0.0, u, 0),
        Update::DeleteVertex { u } => (4, 0.0, u, 0),
        Update::SetProperty { u, value } => (5, 0.0, u, value),
    };
    let mut r = [0u8; RECORD];
    r[0] = op;
    r[4..8].copy_from_slice(&w.to_le_bytes());
    r[8..16].copy_from_slice(&u.to_le_bytes());
    r[16..24].copy_from_slice(&v.to_le_bytes());
    r
}

/// Writes a binary update stream.
pub struct BinaryWriter {
    out: BufWriter<std::fs::File>,
    path: std::path::PathBuf,
}

impl BinaryWriter {
    pub fn create(path: &Path) -> Result<BinaryWriter> {
        let f = std::fs::File::create(path).map_err(|e| DynError::io(path, e))?;
        let mut out = BufWriter::with_capacity(1 << 20, f);
        out.write_all(BINARY_MAGIC).map_err(|e| DynError::io(path, e))?;
        Ok(BinaryWriter { out, path: path.to_path_buf() })
    }
    pub fn write(&mut self, x: &Update) -> Result<()> {
        self.out.write_all(&encode(x)).map_err(|e| DynError::io(&self.path, e))
    }
    pub fn finish(mut self) -> Result<()> {
        self.out.flush().map_err(|e| DynError::io(&self.path, e))
    }
}

/// Text form of an update (as `parse_line` reads it).
pub fn to_text(x: &Update) -> String {
    match *x {
        Update::InsertEdge { u, v, w: 1.0 } => format!("+ {u} {v}"),
        Update::InsertEdge { u, v, w } => format!("+ {u} {v} {w}"),
        Update::DeleteEdge { u, v } => format!("- {u} {v}"),
        Update::InsertVertex { u } => format!("+ {u}"),
        Update::DeleteVertex { u } => format!("- {u}"),
        Update::SetProperty { u, value } => format!("= {u} {value}"),
    }
}
