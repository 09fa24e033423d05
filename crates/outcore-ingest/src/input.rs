//! Opening input files: gzip and zstd are recognised by their magic bytes
//! and decompressed on the fly; bytes consumed are counted for progress.

use crate::error::{IngestError, Result};
use outcore_io::{IoContext, SeqReader};
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    None,
    Gzip,
    Zstd,
}

/// Counts the (compressed) bytes read from the file.
struct Counting<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// An opened input: a buffered, decompressed byte stream.
pub struct Input {
    pub path: PathBuf,
    pub compression: Compression,
    /// Size of the file on disk.
    pub file_bytes: u64,
    consumed: Arc<AtomicU64>,
    pub reader: Box<dyn BufRead + Send>,
}

pub fn sniff_compression(path: &Path) -> Result<Compression> {
    let mut magic = [0u8; 4];
    let mut f = std::fs::File::open(path).ctx(path, "open")?;
    let n = f.read(&mut magic).ctx(path, "read")?;
    Ok(match &magic[..n] {
        [0x1f, 0x8b, ..] => Compression::Gzip,
        [0x28, 0xb5, 0x2f, 0xfd] => Compression::Zstd,
        _ => Compression::None,
    })
}

impl Input {
    pub fn open(path: &Path) -> Result<Self> {
        if path.is_dir() {
            return Err(IngestError::file(path, "is a directory, expected an input file"));
        }
        let compression = sniff_compression(path)?;
        let raw = SeqReader::open(path, 1 << 20)?;
        let file_bytes = raw.len();
        let consumed = Arc::new(AtomicU64::new(0));
        let counted = Counting { inner: raw, count: consumed.clone() };
        let reader: Box<dyn BufRead + Send> = match compression {
            Compression::None => Box::new(BufReader::with_capacity(1 << 16, counted)),
            Compression::Gzip => Box::new(BufReader::with_capacity(1 << 20, flate2::read::MultiGzDecoder::new(counted))),
            Compression::Zstd => Box::new(BufReader::with_capacity(
                1 << 20,
                zstd::stream::read::Decoder::new(counted).map_err(|e| IngestError::file(path, format!("zstd: {e}")))?,
            )),
        };
        Ok(Input { path: path.to_path_buf(), compression, file_bytes, consumed, reader })
    }

    /// Bytes of the file consumed so far (compressed bytes for compressed input).
    pub fn progress(&self) -> Arc<AtomicU64> {
        self.consumed.clone()
    }

    /// Turn a decompression or read error into one naming the file.
    pub fn read_error(&self, e: std::io::Error) -> IngestError {
        IngestError::file(
            &self.path,
            format!(
                "read failed ({}): {e}",
                match self.compression {
                    Compression::None => "plain",
                    Compression::Gzip => "gzip",
                    Compression::Zstd => "zstd",
                }
            ),
        )
    }
}

/// Line-by-line reading with 1-based line numbers; `\r\n` is stripped.
pub struct Lines {
    pub input: Input,
    pub line: u64,
}

impl Lines {
    pub fn new(input: Input) -> Self {
        Lines { input, line: 0 }
    }

    pub fn path(&self) -> &Path {
        &self.input.path
    }

    /// Read the next line into `buf` (without its line ending); false at the end.
    pub fn next_line(&mut self, buf: &mut Vec<u8>) -> Result<bool> {
        buf.clear();
        let n = self.input.reader.read_until(b'\n', buf).map_err(|e| self.input.read_error(e))?;
        if n == 0 {
            return Ok(false);
        }
        self.line += 1;
        while matches!(buf.last(), Some(b'\n' | b'\r')) {
            buf.pop();
        }
        Ok(true)
    }

    pub fn err(&self, reason: impl Into<String>) -> IngestError {
        IngestError::line(&self.input.path, self.line, reason)
    }
}

/// Split on ASCII whitespace and commas.
pub fn fields(line: &[u8]) -> impl Iterator<Item = &[u8]> {
    line.split(|&b| b == b' ' || b == b'\t' || b == b',').filter(|f| !f.is_empty())
}

/// Parse a non-negative decimal integer.
pub fn parse_u64(field: &[u8]) -> std::result::Result<u64, String> {
    if field.is_empty() || field.len() > 20 {
        return Err(format!("'{}' is not a vertex id (expected a non-negative integer)", String::from_utf8_lossy(field)));
    }
    let mut v: u64 = 0;
    for &b in field {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return Err(format!("'{}' is not a vertex id (expected a non-negative integer)", String::from_utf8_lossy(field)));
        }
        v = v
            .checked_mul(10)
            .and_then(|v| v.checked_add(d as u64))
            .ok_or_else(|| format!("'{}' is larger than 2^64-1", String::from_utf8_lossy(field)))?;
    }
    Ok(v)
}

/// Parse a finite, non-negative-or-negative real weight.
pub fn parse_weight(field: &[u8]) -> std::result::Result<f32, String> {
    let text = std::str::from_utf8(field).map_err(|_| "weight is not text".to_string())?;
    let w: f64 = text.parse().map_err(|_| format!("'{text}' is not a number"))?;
    if !w.is_finite() {
        return Err(format!("weight '{text}' is not finite"));
    }
    Ok(w as f32)
}
