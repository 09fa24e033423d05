//! SNAP / GAP edge lists: one edge per line, `src dst [weight]`.

use super::{at_line, Declared, EdgeSink};
use crate::error::Result;
use crate::input::{fields, parse_u64, parse_weight, Input, Lines};
use std::path::Path;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

pub fn parse(
    path: &Path,
    min_cols: usize,
    weighted: bool,
    sink: &mut dyn EdgeSink,
    progress: &mut dyn FnMut(Arc<AtomicU64>, u64, bool),
) -> Result<()> {
    let input = Input::open(path)?;
    progress(input.progress(), input.file_bytes, true);
    let mut lines = Lines::new(input);
    let mut buf = Vec::new();
    sink.declare(&Declared { weighted, ..Default::default() }).map_err(|e| at_line(path, 0, e))?;
    sink.vertices_done().map_err(|e| at_line(path, 0, e))?;
    let need = if weighted { 3 } else { min_cols };
    while lines.next_line(&mut buf)? {
        let line = &buf[..];
        if line.is_empty() || line[0] == b'#' || line[0] == b'%' {
            continue;
        }
        let mut f = fields(line);
        let (Some(a), Some(b)) = (f.next(), f.next()) else {
            if line.iter().all(|c| c.is_ascii_whitespace()) {
                continue;
            }
            return Err(lines.err(format!("expected {need} columns (source target{}), found 1", if need == 3 { " weight" } else { "" })));
        };
        let c = f.next();
        let source = parse_u64(a).map_err(|r| lines.err(r))?;
        let target = parse_u64(b).map_err(|r| lines.err(r))?;
        let weight = if weighted {
            match c {
                Some(c) => parse_weight(c).map_err(|r| lines.err(r))?,
                None => return Err(lines.err("expected 3 columns (source target weight), found 2")),
            }
        } else {
            1.0
        };
        let line_no = lines.line;
        sink.edge(source, target, weight).map_err(|e| at_line(path, line_no, e))?;
    }
    Ok(())
}
