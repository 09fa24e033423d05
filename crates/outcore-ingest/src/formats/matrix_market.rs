//! Matrix Market coordinate files (`%%MatrixMarket matrix coordinate
//! pattern|integer|real general|symmetric`): entry (i, j) is edge i -> j,
//! ids 1-based; a symmetric matrix is an undirected graph.

use super::{at_line, Declared, EdgeSink};
use crate::error::{IngestError, Result};
use crate::input::{fields, parse_u64, parse_weight, Input, Lines};
use std::path::Path;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

/// The most vertices a header may declare in a file of `bytes` bytes.
pub fn declared_vertex_limit(bytes: u64) -> u64 {
    bytes.saturating_mul(64).max(1 << 24)
}

pub fn parse(path: &Path, weighted: bool, sink: &mut dyn EdgeSink, progress: &mut dyn FnMut(Arc<AtomicU64>, u64, bool)) -> Result<()> {
    let input = Input::open(path)?;
    let file_bytes = input.file_bytes;
    progress(input.progress(), input.file_bytes, true);
    let mut lines = Lines::new(input);
    let mut buf = Vec::new();
    if !lines.next_line(&mut buf)? {
        return Err(lines.err("empty file, expected a %%MatrixMarket banner"));
    }
    let banner = String::from_utf8_lossy(&buf).to_ascii_lowercase();
    let words: Vec<&str> = banner.split_whitespace().collect();
    if words.len() != 5 || words[0] != "%%matrixmarket" || words[1] != "matrix" {
        return Err(lines.err("expected banner '%%MatrixMarket matrix coordinate <field> <symmetry>'"));
    }
    if words[2] != "coordinate" {
        return Err(lines.err(format!("'{}' matrices are not graphs; only 'coordinate' is supported", words[2])));
    }
    let has_values = match words[3] {
        "pattern" => false,
        "integer" | "real" => true,
        other => return Err(lines.err(format!("field '{other}' is not supported (pattern, integer or real)"))),
    };
    let symmetric = match words[4] {
        "general" => false,
        "symmetric" => true,
        other => return Err(lines.err(format!("symmetry '{other}' is not supported (general or symmetric)"))),
    };
    if weighted && !has_values {
        return Err(lines.err("weights were asked for but this is a pattern matrix with no values"));
    }
    let (rows, cols, nnz, size_line) = loop {
        if !lines.next_line(&mut buf)? {
            return Err(lines.err("missing size line 'rows cols entries'"));
        }
        let line = &buf[..];
        if line.is_empty() || line[0] == b'%' {
            continue;
        }
        let nums: Vec<u64> =
            fields(line).map(parse_u64).collect::<std::result::Result<_, _>>().map_err(|r| lines.err(format!("size line: {r}")))?;
        if nums.len() != 3 {
            return Err(lines.err(format!("size line must be 'rows cols entries', found {} numbers", nums.len())));
        }
        break (nums[0], nums[1], nums[2], lines.line);
    };
    // every vertex up to max(rows, cols) is stored (isolated ones too, 8
    // bytes of index each): a short file may not declare billions of them
    let most = declared_vertex_limit(file_bytes);
    if rows.max(cols) > most {
        return Err(IngestError::line(
            path,
            size_line,
            format!(
                "declares a {rows} x {cols} matrix, more vertices than a {file_bytes}-byte file may declare ({most}: 64 a byte, at least 2^24)"
            ),
        ));
    }
    let declared = Declared {
        directed: symmetric.then_some(false),
        weighted,
        vertex_range: Some((1, rows.max(cols))),
        vertex_list: false,
        edges_hint: Some(nnz),
    };
    sink.declare(&declared).map_err(|e| at_line(path, size_line, e))?;
    sink.vertices_done().map_err(|e| at_line(path, size_line, e))?;
    let mut seen = 0u64;
    while lines.next_line(&mut buf)? {
        let line = &buf[..];
        if line.is_empty() || line[0] == b'%' {
            continue;
        }
        let mut f = fields(line);
        let (Some(a), Some(b)) = (f.next(), f.next()) else {
            return Err(lines.err("expected an entry 'row col [value]'"));
        };
        let i = parse_u64(a).map_err(|r| lines.err(r))?;
        let j = parse_u64(b).map_err(|r| lines.err(r))?;
        if i == 0 || i > rows || j == 0 || j > cols {
            return Err(lines.err(format!("entry ({i}, {j}) is outside the {rows} x {cols} matrix (ids are 1-based)")));
        }
        let w = if weighted {
            let v = f.next().ok_or_else(|| lines.err("entry has no value"))?;
            parse_weight(v).map_err(|r| lines.err(r))?
        } else {
            1.0
        };
        seen += 1;
        if seen > nnz {
            return Err(lines.err(format!("more entries than the {nnz} declared on line {size_line}")));
        }
        let line_no = lines.line;
        sink.edge(i, j, w).map_err(|e| at_line(path, line_no, e))?;
    }
    if seen != nnz {
        return Err(crate::error::IngestError::line(path, size_line, format!("declares {nnz} entries but the file has {seen}")));
    }
    Ok(())
}
