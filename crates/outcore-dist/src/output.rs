//! A distributed result's `vertex value` lines: one file per rank (a path
//! with `{rank}`: each rank writes its own vertices), or one file written
//! by rank order: rank 0 writes its vertices, then rank 1's, and so on,
//! each rank's in ascending id. The other ranks send their lines to rank 0
//! a chunk at a time, so no rank holds more than its own vertices and a
//! chunk (never the whole result, as a gather would). The file appears
//! under its name only once complete; a job that dies leaves at most the
//! `.partial` file it was writing.

use crate::comm::{self, Comm};
use crate::dynamic::agree;
use crate::error::{DistError, Result};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Bytes of lines a rank sends to rank 0 in one step.
const CHUNK_BYTES: usize = 1 << 20;

/// Write `pairs` (this rank's `(original id, value)`, in any order) as
/// `id value` lines to `path`, `value` formatting a value. `store` is the
/// input (with `{rank}` if it is a pattern), which the output must not be.
/// `-` writes to rank 0's standard output, in rank order too. Every rank
/// returns an error when any rank fails.
pub fn write_pairs(
    comm: &dyn Comm,
    path: &str,
    force: bool,
    store: &str,
    mut pairs: Vec<(u64, u64)>,
    value: impl Fn(u64, &mut Vec<u8>),
) -> Result<()> {
    pairs.sort_unstable_by_key(|p| p.0);
    write_sorted(comm, path, force, store, pairs.len(), &|i| pairs[i].0, &|i, line| value(pairs[i].1, line))
}

/// [`write_pairs`] for `count` lines whose ids ascend: line `i` is vertex
/// `id(i)`, its value formatted by `value(i, line)`. Nothing is gathered
/// into a list first: the lines are formatted from the caller's arrays,
/// a chunk at a time.
pub fn write_sorted(
    comm: &dyn Comm,
    path: &str,
    force: bool,
    store: &str,
    count: usize,
    id: &dyn Fn(usize) -> u64,
    value: &dyn Fn(usize, &mut Vec<u8>),
) -> Result<()> {
    let rank = comm.rank().to_string();
    let store_dir = PathBuf::from(store.replace("{rank}", &rank));
    if path.contains("{rank}") {
        let target = PathBuf::from(path.replace("{rank}", &rank));
        let written = outcore::output::write_id_values(&target, force, &[&store_dir], (0..count).map(id), value);
        return agree(comm, written.map_err(DistError::from));
    }
    let target = Path::new(path);
    // rank 0 may refuse the path before any rank formats a line
    let allowed = if comm.rank() == 0 && path != "-" {
        outcore_store::target::check_output(target, outcore_store::target::OutputKind::File, force, &[&store_dir])
            .map(drop)
            .map_err(|e| DistError::Output(e.into()))
    } else {
        Ok(())
    };
    agree(comm, allowed)?;
    let mut lines = Lines { count, id, next: 0, value, buf: Vec::new() };
    let written = if comm.rank() == 0 {
        let mut streamed = false;
        let result = outcore::output::write_with(target, force, &[&store_dir], |w| {
            streamed = true;
            stream_to_rank_0(comm, &mut lines, Some(w))
        });
        if !streamed {
            // the file could not be opened: take part in the steps anyway
            stream_to_rank_0(comm, &mut lines, None).ok();
        }
        result.map_err(DistError::from)
    } else {
        stream_to_rank_0(comm, &mut lines, None).map_err(|e| DistError::Usage(format!("sending lines to rank 0: {e}")))
    };
    agree(comm, written)
}

/// This rank's lines, formatted a chunk at a time.
struct Lines<'a> {
    count: usize,
    id: &'a dyn Fn(usize) -> u64,
    next: usize,
    value: &'a dyn Fn(usize, &mut Vec<u8>),
    buf: Vec<u8>,
}

impl Lines<'_> {
    /// The next chunk of at least one line (at most about [`CHUNK_BYTES`]),
    /// empty when every line has gone.
    fn next_chunk(&mut self) -> &[u8] {
        self.buf.clear();
        while self.next < self.count && self.buf.len() < CHUNK_BYTES {
            let _ = write!(self.buf, "{} ", (self.id)(self.next));
            (self.value)(self.next, &mut self.buf);
            self.buf.push(b'\n');
            self.next += 1;
        }
        &self.buf
    }
    fn done(&self) -> bool {
        self.next == self.count
    }
}

/// Every rank's lines, rank by rank, to rank 0's `out` (`None` on the other
/// ranks). Each step is one all-to-all: the rank whose turn it is sends a
/// chunk to rank 0 and tells every rank whether more follow. Rank 0 keeps
/// taking part after a failed write, so that no rank waits for it, and
/// returns the first error at the end.
fn stream_to_rank_0(comm: &dyn Comm, lines: &mut Lines<'_>, mut out: Option<&mut dyn Write>) -> std::io::Result<()> {
    let (me, size) = (comm.rank(), comm.size());
    let mut failed: Option<std::io::Error> = None;
    for turn in 0..size {
        loop {
            let send: Vec<Vec<u64>> = if turn == me {
                let chunk = pack(0, lines.next_chunk());
                let more = !lines.done() as u64;
                let mut send = vec![vec![more]; size];
                send[0] = with_more(chunk, more);
                send
            } else {
                vec![Vec::new(); size]
            };
            let got = comm.all_to_all(&send);
            let message = &got[turn];
            if message.is_empty() {
                return Err(std::io::Error::other(format!("rank {turn} sent no step")));
            }
            if let (Some(w), true) = (out.as_deref_mut(), failed.is_none()) {
                if let Err(e) = w.write_all(&unpack(message)) {
                    failed = Some(e);
                }
            }
            if message[0] == 0 {
                break;
            }
        }
    }
    failed.map_or(Ok(()), Err)
}

/// `more`, then the chunk as [`comm::push_bytes`] packs it.
fn pack(more: u64, chunk: &[u8]) -> Vec<u64> {
    let mut words = Vec::with_capacity(2 + chunk.len().div_ceil(8));
    words.push(more);
    comm::push_bytes(&mut words, chunk);
    words
}

fn with_more(mut packed: Vec<u64>, more: u64) -> Vec<u64> {
    packed[0] = more;
    packed
}

/// The bytes a [`pack`] carries (none in a message with only the flag).
fn unpack(words: &[u64]) -> Vec<u8> {
    words.get(1..).map_or_else(Vec::new, comm::bytes_of)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::comm::run_threads;

    #[test]
    fn one_file_holds_every_rank_in_rank_order_and_each_rank_ascending() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        let store = dir.path().join("store").display().to_string();
        // rank r owns the ids = r mod 3, given in descending order; enough
        // lines that each rank sends several chunks
        let per_rank = 150_000u64;
        let results = run_threads(3, |comm| {
            let r = comm.rank() as u64;
            let pairs: Vec<(u64, u64)> = (0..per_rank).rev().map(|k| (3 * k + r, 7 * k + r)).collect();
            write_pairs(comm, path.to_str().unwrap(), false, &store, pairs, |x, out| {
                let _ = write!(out, "{x}");
            })
            .map_err(|e| e.to_string())
        });
        assert!(results.iter().all(|r| r.is_ok()), "{results:?}");
        let text = std::fs::read_to_string(&path).unwrap();
        let want: String = (0..3u64).flat_map(|r| (0..per_rank).map(move |k| format!("{} {}\n", 3 * k + r, 7 * k + r))).collect();
        assert!(text.len() > 2 * CHUNK_BYTES, "several chunks per rank");
        assert!(text == want, "the file is rank 0's lines ascending, then rank 1's, then rank 2's");
        // an existing file is refused on every rank, and kept
        let again = run_threads(3, |comm| {
            write_pairs(comm, path.to_str().unwrap(), false, &store, vec![(comm.rank() as u64, 0)], |_, _| {}).map_err(|e| e.to_string())
        });
        assert!(again.iter().all(|r| r.is_err()), "{again:?}");
        assert!(again[0].as_ref().unwrap_err().contains("out.txt"), "{again:?}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), want);
        // an empty rank is a turn of one empty step
        let empty = dir.path().join("empty.txt");
        let results = run_threads(2, |comm| {
            let pairs = if comm.rank() == 0 { Vec::new() } else { vec![(5, 1), (2, 3)] };
            write_pairs(comm, empty.to_str().unwrap(), false, &store, pairs, |x, out| {
                let _ = write!(out, "{x}");
            })
            .map_err(|e| e.to_string())
        });
        assert!(results.iter().all(|r| r.is_ok()), "{results:?}");
        assert_eq!(std::fs::read_to_string(&empty).unwrap(), "2 3\n5 1\n");
    }
}
