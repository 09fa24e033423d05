//! METIS graph files: header `n m [fmt [ncon]]`, then line i (1-based)
//! lists vertex i's neighbours, 1-based; every edge is listed from both
//! ends. `fmt` 1 adds a weight after each neighbour; 10/11 put `ncon`
//! vertex weights first (skipped).

use super::{at_line, Declared, EdgeSink};
use crate::error::{IngestError, Result};
use crate::input::{fields, parse_u64, parse_weight, Input, Lines};
use std::path::Path;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

pub fn parse(path: &Path, sink: &mut dyn EdgeSink, progress: &mut dyn FnMut(Arc<AtomicU64>, u64, bool)) -> Result<()> {
    let input = Input::open(path)?;
    progress(input.progress(), input.file_bytes, true);
    let mut lines = Lines::new(input);
    let mut buf = Vec::new();
    let header: Vec<u64> = loop {
        if !lines.next_line(&mut buf)? {
            return Err(lines.err("empty file, expected header 'vertices edges [fmt]'"));
        }
        let line = &buf[..];
        if line.first() == Some(&b'%') {
            continue;
        }
        break fields(line).map(parse_u64).collect::<std::result::Result<_, _>>().map_err(|r| lines.err(format!("header: {r}")))?;
    };
    let header_line = lines.line;
    if header.len() < 2 || header.len() > 4 {
        return Err(lines.err("header must be 'vertices edges [fmt [ncon]]'"));
    }
    let (n, m) = (header[0], header[1]);
    let fmt = header.get(2).copied().unwrap_or(0);
    let (vertex_weights, edge_weights) = match fmt {
        0 => (false, false),
        1 => (false, true),
        10 => (true, false),
        11 => (true, true),
        100 | 101 | 110 | 111 => return Err(lines.err("METIS vertex sizes (fmt 1xx) are not supported")),
        other => return Err(lines.err(format!("unknown METIS fmt {other}"))),
    };
    let ncon = if vertex_weights { header.get(3).copied().unwrap_or(1) } else { 0 };
    let declared = Declared {
        directed: Some(false),
        weighted: edge_weights,
        vertex_range: Some((1, n)),
        vertex_list: false,
        edges_hint: Some(m.saturating_mul(2)),
    };
    sink.declare(&declared).map_err(|e| at_line(path, header_line, e))?;
    sink.vertices_done().map_err(|e| at_line(path, header_line, e))?;
    let mut vertex = 0u64;
    let mut degree_sum = 0u64;
    while lines.next_line(&mut buf)? {
        let line = &buf[..];
        if line.first() == Some(&b'%') {
            continue;
        }
        if vertex == n {
            if line.iter().all(|c| c.is_ascii_whitespace()) {
                continue;
            }
            return Err(lines.err(format!("more rows than the {n} vertices declared on line {header_line}")));
        }
        vertex += 1;
        let mut f = fields(line).skip(ncon as usize);
        while let Some(a) = f.next() {
            let u = parse_u64(a).map_err(|r| lines.err(r))?;
            if u == 0 || u > n {
                return Err(lines.err(format!("neighbour {u} out of range 1..={n}")));
            }
            let w = if edge_weights {
                parse_weight(f.next().ok_or_else(|| lines.err("neighbour without its weight (fmt 1)"))?).map_err(|r| lines.err(r))?
            } else {
                1.0
            };
            degree_sum += if u == vertex { 2 } else { 1 };
            let line_no = lines.line;
            sink.edge(vertex, u, w).map_err(|e| at_line(path, line_no, e))?;
        }
    }
    if vertex != n {
        return Err(IngestError::line(path, header_line, format!("declares {n} vertices but the file has {vertex} rows")));
    }
    // in u128: a header may declare any m
    if degree_sum as u128 != 2 * m as u128 {
        return Err(IngestError::line(
            path,
            header_line,
            format!("declares {m} edges but the rows list {degree_sum} endpoints (expected {})", 2 * m as u128),
        ));
    }
    Ok(())
}
