//! Writing results: `vertex value` lines in original ids (the Graphalytics
//! output format), streamed in bounded memory whatever engine made them,
//! to a file (staged beside it and moved into place when complete, under
//! the output policy of [`outcore_store::target`]) or to any writer (the
//! CLI's `--output -`); and the K vertices with the largest values
//! (`--top K`). The one value writer of the CLI and the Python package.
//!
//! Reals are written as `%.15e` (`2.476533217845853e-08`) or `infinity`,
//! integers in decimal: `sort -g -k2` orders every column correctly.

use crate::results::{format_entry, Entry, Results};
use crate::Error;
use outcore_io::{SeqWriter, Staged};
use outcore_store::{check_output, OutputKind, StoreError};
use std::io::Write;
use std::path::Path;

/// Write the result `column` of `results` to the file `path` as
/// `vertex value` lines. An existing file is replaced only with `force`
/// (and never the store itself or a directory). Returns the lines written.
pub fn write_text(results: &Results, column: &str, path: &Path, force: bool) -> Result<u64, Error> {
    if results.vectors(column).is_none() {
        results.column(column)?;
    }
    check_output(path, OutputKind::File, force, &[results.store.dir()])?;
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let staged = Staged::file(parent, &format!("{}.partial", path.file_name().unwrap_or_default().to_string_lossy()))?;
    let mut file = SeqWriter::create(staged.path(), 1 << 20, outcore_io::CHECKSUM_BLOCK_BYTES)?;
    let mut failure = None;
    let lines = write_lines(results, column, |buf| {
        if failure.is_none() {
            if let Err(e) = file.write_bytes(buf) {
                failure = Some(e);
            }
        }
    })?;
    if let Some(e) = failure {
        return Err(e.into());
    }
    file.finish()?;
    staged.publish(path)?;
    Ok(lines)
}

/// Write the result `column` as `vertex value` lines to `out` (standard
/// output, a pipe). Returns the lines written.
pub fn write_to(results: &Results, column: &str, out: &mut dyn Write) -> Result<u64, Error> {
    let mut failure = None;
    let lines = write_lines(results, column, |buf| {
        if failure.is_none() {
            if let Err(e) = out.write_all(buf) {
                failure = Some(e);
            }
        }
    })?;
    if let Some(e) = failure.or_else(|| out.flush().err()) {
        return Err(outcore_io::IoError::new(Path::new("<output>"), "write", e).into());
    }
    Ok(lines)
}

/// Write a file as every result file is written: under the output policy
/// (an existing file replaced only with `force`; never a directory, a
/// link, or one of `inputs`), staged beside the target and moved into place
/// once `fill` succeeded; `-` writes to standard output instead.
pub fn write_with(
    path: &Path,
    force: bool,
    inputs: &[&Path],
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), Error> {
    if path.as_os_str() == "-" {
        let mut out = std::io::stdout().lock();
        return fill(&mut out).and_then(|_| out.flush()).map_err(|e| outcore_io::IoError::new(path, "write", e).into());
    }
    check_output(path, OutputKind::File, force, inputs)?;
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let staged = Staged::file(parent, &format!("{}.partial", path.file_name().unwrap_or_default().to_string_lossy()))?;
    let file = std::fs::File::create(staged.path()).map_err(|e| outcore_io::IoError::new(staged.path(), "create", e))?;
    let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
    fill(&mut w).and_then(|_| w.flush()).and_then(|_| w.get_ref().sync_all()).map_err(|e| outcore_io::IoError::new(path, "write", e))?;
    drop(w);
    staged.publish(path)?;
    Ok(())
}

/// `id value` lines, one per id in order, `value(i, line)` appending the
/// value of the i-th (results that are not a [`Results`]: the dynamic
/// store's, one rank's), written as [`write_with`] writes.
pub fn write_id_values(
    path: &Path,
    force: bool,
    inputs: &[&Path],
    ids: impl IntoIterator<Item = u64>,
    value: impl Fn(usize, &mut Vec<u8>),
) -> Result<(), Error> {
    write_with(path, force, inputs, |w| {
        let mut line = Vec::new();
        for (i, u) in ids.into_iter().enumerate() {
            line.clear();
            let _ = write!(line, "{u} ");
            value(i, &mut line);
            line.push(b'\n');
            w.write_all(&line)?;
        }
        Ok(())
    })
}

/// Format every line of `column`, handing out about 1 MiB at a time.
fn write_lines(results: &Results, column: &str, mut emit: impl FnMut(&[u8])) -> Result<u64, Error> {
    if results.vectors(column).is_some() {
        return write_vector_lines(results, column, emit);
    }
    let kind = results.column(column)?.kind;
    let mut out = Lines::new(&mut emit);
    results.for_each(column, |v, entry| {
        let _ = write!(out.buf, "{v} ");
        format_entry(kind, entry, &mut out.buf);
        out.end_line();
    })?;
    Ok(out.finish())
}

/// Lines gathered about 1 MiB at a time and handed to `emit`.
struct Lines<'a, F: FnMut(&[u8])> {
    buf: Vec<u8>,
    lines: u64,
    emit: &'a mut F,
}

impl<'a, F: FnMut(&[u8])> Lines<'a, F> {
    fn new(emit: &'a mut F) -> Self {
        Lines { buf: Vec::with_capacity(1 << 20), lines: 0, emit }
    }
    /// End the line written into `buf`; hand out what is gathered past 1 MiB.
    fn end_line(&mut self) {
        self.buf.push(b'\n');
        self.lines += 1;
        if self.buf.len() >= 1 << 20 {
            (self.emit)(&self.buf);
            self.buf.clear();
        }
    }
    /// Hand out the rest; the lines written.
    fn finish(self) -> u64 {
        (self.emit)(&self.buf);
        self.lines
    }
}

/// A vector result as `[u|i] id x_1 ... x_k` lines (`u`/`i`: user or item
/// of a bipartite store; reals in shortest round-trip form), about 1 MiB
/// handed out at a time.
fn write_vector_lines(results: &Results, column: &str, mut emit: impl FnMut(&[u8])) -> Result<u64, Error> {
    let mut out = Lines::new(&mut emit);
    results.for_each_vector(column, |side, id, x| {
        let _ = write!(out.buf, "{}{id}", side.tag());
        for v in x {
            let _ = write!(out.buf, " {v}");
        }
        out.end_line();
    })?;
    Ok(out.finish())
}

/// The order of `--top`: larger values first; unreached vertices, infinite
/// or undefined values after every number; ties by smaller original id.
fn rank_key(entry: Entry) -> Option<f64> {
    match entry {
        Entry::Unreached => None,
        Entry::Integer(x) | Entry::Vertex(x) => Some(x as f64),
        Entry::Real(x) => x.is_finite().then_some(x),
    }
}

/// One candidate of the top K, ordered so that the heap's maximum is the
/// weakest (the one to drop when a better one arrives).
struct Candidate {
    key: Option<f64>,
    vertex: u64,
    entry: Entry,
}

impl Candidate {
    /// `Less` when `self` ranks before `other`.
    fn rank(&self, other: &Self) -> std::cmp::Ordering {
        let by_value = match (self.key, other.key) {
            (Some(a), Some(b)) => b.total_cmp(&a),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        };
        by_value.then(self.vertex.cmp(&other.vertex))
    }
}

impl PartialEq for Candidate {
    fn eq(&self, other: &Self) -> bool {
        self.rank(other).is_eq()
    }
}
impl Eq for Candidate {}
impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Candidate {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.rank(other)
    }
}

/// The `k` vertices with the largest values of `column`, largest first,
/// ties by original id (unreached vertices last), as `(original id,
/// value)`. One pass over the result; memory is O(k).
pub fn top(results: &Results, column: &str, k: usize) -> Result<Vec<(u64, Entry)>, Error> {
    if results.vectors(column).is_some() {
        return Err(Error::Run(outcore_algorithms::Error::Store(StoreError::parameter(
            "top",
            format!("{column} are vectors, which have no order"),
        ))));
    }
    let mut heap = std::collections::BinaryHeap::with_capacity(k.min(1 << 20) + 1);
    if k > 0 {
        results.for_each(column, |vertex, entry| {
            let c = Candidate { key: rank_key(entry), vertex, entry };
            if heap.len() < k {
                heap.push(c);
            } else if c.rank(heap.peek().expect("k > 0")).is_lt() {
                heap.pop();
                heap.push(c);
            }
        })?;
    }
    Ok(heap.into_sorted_vec().into_iter().map(|c| (c.vertex, c.entry)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_rank_by_value_then_id_with_unreached_last() {
        let c = |vertex, entry| Candidate { key: rank_key(entry), vertex, entry };
        let mut v = [
            c(5, Entry::Real(0.5)),
            c(1, Entry::Unreached),
            c(3, Entry::Real(0.5)),
            c(2, Entry::Real(f64::INFINITY)),
            c(9, Entry::Real(0.9)),
        ];
        v.sort();
        let order: Vec<u64> = v.iter().map(|c| c.vertex).collect();
        assert_eq!(order, vec![9, 3, 5, 1, 2]);
    }
}
