//! Writing results: `vertex value` lines in original ids (the Graphalytics
//! output format), streamed in bounded memory through the O_DIRECT writer,
//! whatever engine made them. The one value writer of the CLI and the
//! Python package.

use crate::results::{format_entry, Results};
use crate::Error;
use outcore_io::SeqWriter;
use std::io::Write;
use std::path::Path;

/// Write the result `column` of `results` to `path` as `vertex value` lines.
/// Returns the lines written.
pub fn write_text(results: &Results, column: &str, path: &Path) -> Result<u64, Error> {
    let kind = results.column(column)?.kind;
    let mut file = SeqWriter::create(path, 1 << 20, outcore_io::CHECKSUM_BLOCK_BYTES)?;
    let mut buf: Vec<u8> = Vec::with_capacity(1 << 20);
    let mut failure = None;
    let mut lines = 0u64;
    results.for_each(column, |v, entry| {
        if failure.is_some() {
            return;
        }
        let _ = write!(buf, "{v} ");
        format_entry(kind, entry, &mut buf);
        buf.push(b'\n');
        lines += 1;
        if buf.len() >= 1 << 20 {
            if let Err(e) = file.write_bytes(&buf) {
                failure = Some(e);
            }
            buf.clear();
        }
    })?;
    if let Some(e) = failure {
        return Err(e.into());
    }
    file.write_bytes(&buf)?;
    file.finish()?;
    Ok(lines)
}
