//! LDBC Graphalytics EVLP graphs: `G.v` (one vertex id per line), `G.e`
//! (`src dst [properties...]`) and optionally `G.properties` (directed,
//! counts, edge property names). Any of the three paths names the graph.

use super::{at_line, Declared, EdgeSink};
use crate::error::{IngestError, Result};
use crate::input::{fields, parse_u64, parse_weight, Input, Lines};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

fn read_properties(path: &Path) -> Result<HashMap<String, String>> {
    let text = std::fs::read_to_string(path).map_err(|e| IngestError::file(path, format!("cannot read: {e}")))?;
    let mut map = HashMap::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with('!') {
            continue;
        }
        if let Some((k, v)) = line.split_once(['=', ':']) {
            map.insert(k.trim().to_string(), v.trim().to_string());
        }
    }
    Ok(map)
}

pub fn parse(path: &Path, sink: &mut dyn EdgeSink, progress: &mut dyn FnMut(Arc<AtomicU64>, u64, bool)) -> Result<()> {
    let stem: PathBuf = path.with_extension("");
    let name = stem.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let props_path = stem.with_extension("properties");
    let props = if props_path.exists() { read_properties(&props_path)? } else { HashMap::new() };
    let key = |k: &str| props.get(&format!("graph.{name}.{k}")).cloned();
    let dir = stem.parent().unwrap_or(Path::new("."));
    let v_path = key("vertex-file").map(|f| dir.join(f)).unwrap_or_else(|| stem.with_extension("v"));
    let e_path = key("edge-file").map(|f| dir.join(f)).unwrap_or_else(|| stem.with_extension("e"));
    let directed = match key("directed").as_deref() {
        Some("true") => Some(true),
        Some("false") => Some(false),
        None => None,
        Some(other) => return Err(IngestError::file(&props_path, format!("directed = '{other}', expected true or false"))),
    };
    let names: Vec<String> = key("edge-properties.names").map(|s| s.split(',').map(|p| p.trim().to_string()).collect()).unwrap_or_default();
    let weight_column = names.iter().position(|n| n == "weight").map(|i| i + 2);
    let meta = |k: &str| -> Result<Option<u64>> {
        key(k).map(|v| v.parse::<u64>().map_err(|_| IngestError::file(&props_path, format!("{k} = '{v}' is not a count")))).transpose()
    };
    let (meta_vertices, meta_edges) = (meta("meta.vertices")?, meta("meta.edges")?);

    let declared = Declared { directed, weighted: weight_column.is_some(), vertex_range: None, vertex_list: true, edges_hint: meta_edges };
    sink.declare(&declared).map_err(|e| at_line(&v_path, 0, e))?;

    let input = Input::open(&v_path)?;
    let mut lines = Lines::new(input);
    let mut buf = Vec::new();
    let mut vertices = 0u64;
    while lines.next_line(&mut buf)? {
        let line = &buf[..];
        let mut f = fields(line);
        let Some(id) = f.next() else { continue };
        let id = parse_u64(id).map_err(|r| lines.err(r))?;
        let line_no = lines.line;
        sink.vertex(id).map_err(|e| at_line(&v_path, line_no, e))?;
        vertices += 1;
    }
    sink.vertices_done().map_err(|e| at_line(&v_path, lines.line, e))?;
    if let Some(mv) = meta_vertices.filter(|&mv| mv != vertices) {
        return Err(IngestError::file(&props_path, format!("meta.vertices = {mv} but {} lists {vertices} vertices", v_path.display())));
    }

    let input = Input::open(&e_path)?;
    progress(input.progress(), input.file_bytes, true);
    let mut lines = Lines::new(input);
    let mut buf = Vec::new();
    let mut edges = 0u64;
    while lines.next_line(&mut buf)? {
        let line = &buf[..];
        let cols: Vec<&[u8]> = fields(line).collect();
        if cols.is_empty() {
            continue;
        }
        if cols.len() < 2 {
            return Err(lines.err("expected 'source target [properties]'"));
        }
        let s = parse_u64(cols[0]).map_err(|r| lines.err(r))?;
        let t = parse_u64(cols[1]).map_err(|r| lines.err(r))?;
        let w = match weight_column {
            Some(c) => parse_weight(cols.get(c).ok_or_else(|| lines.err("missing weight column"))?).map_err(|r| lines.err(r))?,
            None => 1.0,
        };
        let line_no = lines.line;
        sink.edge(s, t, w).map_err(|e| at_line(&e_path, line_no, e))?;
        edges += 1;
    }
    if let Some(me) = meta_edges.filter(|&me| me != edges) {
        return Err(IngestError::file(&props_path, format!("meta.edges = {me} but {} lists {edges} edges", e_path.display())));
    }
    Ok(())
}
