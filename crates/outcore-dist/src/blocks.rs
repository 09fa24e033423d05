//! Reading an update stream on every rank at once: the file is cut into
//! blocks of `block_bytes`, dealt round-robin (block b to rank b mod P),
//! so round t of the visitor queue carries blocks tP .. tP + P - 1, all
//! before round t + 1's, in rank order. A receiver that applies a round's
//! messages sender by sender therefore applies every source's updates in
//! stream order, which is what makes the distributed store equal the
//! single-machine one edge for edge.
//!
//! Plain text (`.updates`) is split at line starts (a line belongs to the
//! block its first byte lies in), binary (`.updb`) at record boundaries.
//! A compressed stream, or an edge list of another format, cannot be
//! split: rank 0 reads it in blocks of about the same size, and the other
//! ranks only route and apply.

use outcore_dynamic::error::{DynError, Result};
use outcore_dynamic::store::Update;
use outcore_dynamic::updates::{decode, parse_line, StreamFormat, UpdateReader, BINARY_MAGIC, RECORD};
use outcore_ingest::input::{Compression, Input};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

pub struct BlockReader {
    path: PathBuf,
    kind: Kind,
    rank: u64,
    ranks: u64,
    block_bytes: u64,
    /// This rank's next round.
    round: u64,
}

enum Kind {
    Text {
        file: File,
        len: u64,
    },
    Binary {
        file: File,
        records: u64,
    },
    /// Read whole by rank 0 (None on the other ranks).
    Whole(Option<UpdateReader>),
}

impl BlockReader {
    pub fn open(
        path: &Path,
        format: Option<StreamFormat>,
        rank: usize,
        ranks: usize,
        block_bytes: u64,
        weighted: bool,
    ) -> Result<BlockReader> {
        require_shared_file(path, "update streams")?;
        let format = format.or_else(|| StreamFormat::from_path(path)).ok_or_else(|| DynError::UnknownFormat {
            path: path.to_path_buf(),
            known: "updates, updb, or an edge-list format of import",
        })?;
        let compressed = Input::open(path)?.compression != Compression::None;
        let open = || File::open(path).map_err(|e| DynError::io(path, e));
        let len = std::fs::metadata(path).map_err(|e| DynError::io(path, e))?.len();
        let kind = match format {
            StreamFormat::Text if !compressed => Kind::Text { file: open()?, len },
            StreamFormat::Binary if !compressed => {
                let file = open()?;
                let mut magic = [0u8; 8];
                if len < 8 || file.read_exact_at(&mut magic, 0).is_err() || &magic != BINARY_MAGIC {
                    return Err(DynError::Corrupt(format!("{}: not a binary update stream (bad magic bytes)", path.display())));
                }
                if (len - 8) % RECORD as u64 != 0 {
                    return Err(DynError::Corrupt(format!(
                        "{}: byte {}: truncated record ({} of {RECORD} bytes)",
                        path.display(),
                        len - (len - 8) % RECORD as u64,
                        (len - 8) % RECORD as u64
                    )));
                }
                Kind::Binary { file, records: (len - 8) / RECORD as u64 }
            }
            _ if rank == 0 => Kind::Whole(Some(UpdateReader::open(path, Some(format), (block_bytes as usize / 16).max(1), weighted)?)),
            _ => Kind::Whole(None),
        };
        Ok(BlockReader {
            path: path.to_path_buf(),
            kind,
            rank: rank as u64,
            ranks: ranks as u64,
            block_bytes: block_bytes.max(1),
            round: 0,
        })
    }

    /// This rank's block of the next round into `out`; false when this
    /// rank has no block left (others may still have).
    pub fn next(&mut self, out: &mut Vec<Update>) -> Result<bool> {
        out.clear();
        let block = self.round * self.ranks + self.rank;
        self.round += 1;
        match &mut self.kind {
            Kind::Text { file, len } => {
                read_text_block(file, &self.path, *len, block, self.block_bytes, &mut |t| parse_line(t).map(|x| out.push(x)))
            }
            Kind::Binary { file, records } => {
                let per = (self.block_bytes / RECORD as u64).max(1);
                let first = block.saturating_mul(per);
                if first >= *records {
                    return Ok(false);
                }
                let n = per.min(*records - first);
                let mut bytes = vec![0u8; (n as usize) * RECORD];
                let offset = 8 + first * RECORD as u64;
                file.read_exact_at(&mut bytes, offset).map_err(|e| DynError::io(&self.path, e))?;
                for (i, rec) in bytes.chunks_exact(RECORD).enumerate() {
                    let rec: &[u8; RECORD] = rec.try_into().expect("record size");
                    out.push(decode(rec).map_err(|reason| {
                        DynError::Corrupt(format!("{}: byte {}: {reason}", self.path.display(), offset + (i * RECORD) as u64))
                    })?);
                }
                Ok(true)
            }
            Kind::Whole(None) => Ok(false),
            Kind::Whole(Some(reader)) => {
                reader.next_batch(out, (self.block_bytes as usize / 16).max(1))?;
                Ok(!out.is_empty())
            }
        }
    }
}

/// An input every rank reads: it must be a file they all see.
pub fn require_shared_file(path: &Path, what: &str) -> Result<()> {
    if path.is_file() {
        return Ok(());
    }
    Err(DynError::Usage(format!(
        "{}: no such file (every rank reads the {what}: they must be on a file system all ranks see)",
        path.display()
    )))
}

/// Hand the lines of block `block` (of `block_bytes`) of a plain-text
/// file to `parse` (see [`read_lines_with`]); false if the block starts
/// past the end.
pub fn read_text_block(
    file: &File,
    path: &Path,
    len: u64,
    block: u64,
    block_bytes: u64,
    parse: &mut dyn FnMut(&[u8]) -> std::result::Result<(), String>,
) -> Result<bool> {
    let start = block.saturating_mul(block_bytes);
    if start >= len {
        return Ok(false);
    }
    read_lines_with(file, path, len, start, (start + block_bytes).min(len), parse)?;
    Ok(true)
}

/// Hand every line that starts in `[start, end)` (trimmed, not blank, not
/// a `#` or `%` comment) to `parse`; its error names the line's number.
pub fn read_lines_with(
    file: &File,
    path: &Path,
    len: u64,
    start: u64,
    end: u64,
    parse: &mut dyn FnMut(&[u8]) -> std::result::Result<(), String>,
) -> Result<()> {
    // from the byte before `start` (to tell whether a line starts at it)
    // to the end of the line that `end - 1` lies in
    let from = start.saturating_sub(1);
    let mut buf = vec![0u8; (end - from) as usize];
    file.read_exact_at(&mut buf, from).map_err(|e| DynError::io(path, e))?;
    let mut at = end;
    while at < len && buf.last() != Some(&b'\n') {
        let mut more = vec![0u8; ((len - at) as usize).min(1 << 16)];
        file.read_exact_at(&mut more, at).map_err(|e| DynError::io(path, e))?;
        match more.iter().position(|&b| b == b'\n') {
            Some(i) => {
                buf.extend_from_slice(&more[..=i]);
                at = len;
            }
            None => {
                at += more.len() as u64;
                buf.extend_from_slice(&more);
            }
        }
    }
    // the first line that starts at or after `start`
    let mut pos = if start == 0 {
        0
    } else {
        match buf.iter().position(|&b| b == b'\n') {
            Some(i) => i + 1,
            None => return Ok(()),
        }
    };
    while pos < buf.len() && from + (pos as u64) < end {
        let line_end = buf[pos..].iter().position(|&b| b == b'\n').map_or(buf.len(), |i| pos + i);
        let t = buf[pos..line_end].trim_ascii();
        if !(t.is_empty() || t[0] == b'#' || t[0] == b'%') {
            match parse(t) {
                Ok(()) => {}
                Err(reason) => {
                    return Err(DynError::Line { path: path.to_path_buf(), line: line_number(file, path, from + pos as u64)?, reason })
                }
            }
        }
        pos = line_end + 1;
    }
    Ok(())
}

/// The 1-based number of the line starting at byte `offset` (read only to
/// report an error).
pub fn line_number(file: &File, path: &Path, offset: u64) -> Result<u64> {
    let mut lines = 1;
    let mut buf = vec![0u8; 1 << 20];
    let mut at = 0;
    while at < offset {
        let n = ((offset - at) as usize).min(buf.len());
        file.read_exact_at(&mut buf[..n], at).map_err(|e| DynError::io(path, e))?;
        lines += buf[..n].iter().filter(|&&b| b == b'\n').count() as u64;
        at += n as u64;
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every rank's blocks, in round order, dealt back into one stream.
    fn read_all(path: &Path, ranks: usize, block: u64) -> Vec<Update> {
        let mut readers: Vec<BlockReader> = (0..ranks).map(|r| BlockReader::open(path, None, r, ranks, block, false).unwrap()).collect();
        let mut all = Vec::new();
        let mut buf = Vec::new();
        loop {
            let mut any = false;
            for r in &mut readers {
                any |= r.next(&mut buf).unwrap();
                all.extend_from_slice(&buf);
            }
            if !any {
                return all;
            }
        }
    }

    #[test]
    fn blocks_dealt_to_ranks_read_every_line_once_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.updates");
        let mut text = String::from("# a comment\n\n");
        let mut want = Vec::new();
        for i in 0..500u64 {
            // lines of varying length, so blocks cut lines at every offset
            let (u, v) = (i * 7919 % 1000, i * i % 100_003);
            text.push_str(&format!("+ {u} {v}\n"));
            want.push(Update::InsertEdge { u, v, w: 1.0 });
            if i % 7 == 0 {
                text.push_str(&format!("-   {u}\n"));
                want.push(Update::DeleteVertex { u });
            }
        }
        text.push_str("= 5 9"); // no final newline
        want.push(Update::SetProperty { u: 5, value: 9 });
        std::fs::write(&path, &text).unwrap();
        for ranks in [1, 2, 3, 4] {
            for block in [1, 2, 7, 13, 64, 1000, 1 << 20] {
                assert_eq!(read_all(&path, ranks, block), want, "ranks {ranks} block {block}");
            }
        }
    }

    #[test]
    fn a_bad_line_is_named_by_its_line_number_on_any_rank() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.updates");
        let mut text = String::new();
        for i in 0..300 {
            text.push_str(&format!("+ {i} {}\n", i + 1));
        }
        text.push_str("+ 1 x\n");
        std::fs::write(&path, &text).unwrap();
        let mut errors = Vec::new();
        for r in 0..3 {
            let mut reader = BlockReader::open(&path, None, r, 3, 100, false).unwrap();
            let mut buf = Vec::new();
            loop {
                match reader.next(&mut buf) {
                    Ok(true) => {}
                    Ok(false) => break,
                    Err(e) => {
                        errors.push(e.to_string());
                        break;
                    }
                }
            }
        }
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].contains("s.updates:301:"), "{}", errors[0]);
    }

    #[test]
    fn binary_streams_split_at_records() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.updb");
        let mut w = outcore_dynamic::updates::BinaryWriter::create(&path).unwrap();
        let want: Vec<Update> = (0..1000).map(|i| Update::InsertEdge { u: i, v: i * 3, w: 1.0 }).collect();
        for x in &want {
            w.write(x).unwrap();
        }
        w.finish().unwrap();
        for ranks in [1, 2, 4] {
            assert_eq!(read_all(&path, ranks, 24 * 10), want);
            assert_eq!(read_all(&path, ranks, 5), want);
        }
    }
}
