//! Raw binary edge lists: little-endian (source, target) pairs of u32 or
//! u64, no header.

use super::{Declared, EdgeSink, SinkError};
use crate::error::{IngestError, Result};
use crate::input::Input;
use std::io::Read;
use std::path::Path;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

pub fn parse(path: &Path, width: usize, sink: &mut dyn EdgeSink, progress: &mut dyn FnMut(Arc<AtomicU64>, u64, bool)) -> Result<()> {
    let mut input = Input::open(path)?;
    progress(input.progress(), input.file_bytes, true);
    let at = |offset: u64, e: SinkError| match e {
        SinkError::Reject(r) => IngestError::byte(path, offset, r),
        SinkError::Abort(e) => e,
    };
    let hint = (input.compression == crate::input::Compression::None).then_some(input.file_bytes / (2 * width as u64));
    sink.declare(&Declared { edges_hint: hint, ..Default::default() }).map_err(|e| at(0, e))?;
    sink.vertices_done().map_err(|e| at(0, e))?;
    let record = 2 * width;
    let mut buf = vec![0u8; 1 << 20];
    let mut filled = 0usize;
    let mut offset = 0u64;
    loop {
        let n = input.reader.read(&mut buf[filled..]).map_err(|e| input.read_error(e))?;
        if n == 0 {
            break;
        }
        filled += n;
        let whole = filled / record * record;
        for r in buf[..whole].chunks_exact(record) {
            let (s, t) = if width == 4 {
                (u32::from_le_bytes(r[..4].try_into().unwrap()) as u64, u32::from_le_bytes(r[4..].try_into().unwrap()) as u64)
            } else {
                (u64::from_le_bytes(r[..8].try_into().unwrap()), u64::from_le_bytes(r[8..].try_into().unwrap()))
            };
            sink.edge(s, t, 1.0).map_err(|e| at(offset, e))?;
            offset += record as u64;
        }
        buf.copy_within(whole..filled, 0);
        filled -= whole;
    }
    if filled != 0 {
        return Err(IngestError::byte(
            path,
            offset,
            format!("truncated: {filled} trailing bytes do not make a {record}-byte edge (u{} pair)", width * 8),
        ));
    }
    Ok(())
}
