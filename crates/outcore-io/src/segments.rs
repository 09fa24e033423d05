//! Double-buffered segment reads (G-Store section V-B, VI-B): a background
//! thread fills an aligned buffer with a batch of O_DIRECT reads through
//! [`BlockIo`] (io_uring, or the pread pool) while the caller processes the
//! other buffer. Each read is split into 1 MiB requests so that several are
//! in flight on the device at once.

use crate::{open_block_io, AlignedBuf, Backend, BlockIo, IoError, ReadRequest};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// One aligned read of `len` bytes at `offset` of file `file` into the
/// buffer at `buf_offset`; at least `need` bytes must arrive (the rest may
/// lie past the end of the file).
#[derive(Clone, Copy, Debug)]
pub struct SegmentRead {
    pub file: usize,
    pub offset: u64,
    pub len: usize,
    pub buf_offset: usize,
    pub need: usize,
}

/// A buffer handed back by the reader.
pub struct Filled {
    pub buf: AlignedBuf,
    /// Bytes the device delivered.
    pub result: Result<u64, IoError>,
}

const REQUEST_BYTES: usize = 1 << 20;

struct Job {
    buf: AlignedBuf,
    reads: Vec<SegmentRead>,
}

pub struct SegmentReader {
    jobs: Option<Sender<Job>>,
    done: Receiver<Filled>,
    thread: Option<JoinHandle<()>>,
    backend: Backend,
    pending: usize,
    /// Time spent waiting for fills (I/O not hidden behind processing).
    pub waited: Duration,
}

impl SegmentReader {
    pub fn open(paths: &[PathBuf], depth: usize, force_pread: bool) -> Result<Self, IoError> {
        let mut io = open_block_io(paths, depth, force_pread)?;
        let backend = io.backend();
        let (jobs, job_rx) = channel::<Job>();
        let (done_tx, done) = channel();
        let paths = paths.to_vec();
        let depth = depth.max(1);
        let thread = std::thread::Builder::new()
            .name("outcore-segments".into())
            .spawn(move || {
                // files whose block hashes are registered are checked as they arrive
                let checks: Vec<_> = paths
                    .iter()
                    .map(|p| {
                        let file = std::fs::File::open(p).ok()?;
                        let len = file.metadata().ok()?.len();
                        crate::verify::checks_for(&file).map(|c| (c, file, len))
                    })
                    .collect();
                for mut job in job_rx {
                    let result = fill(io.as_mut(), &paths, &mut job, depth).and_then(|n| check(&checks, &job).map(|_| n));
                    if done_tx.send(Filled { buf: job.buf, result }).is_err() {
                        break;
                    }
                }
            })
            .map_err(|e| IoError::new(Path::new("outcore-segments"), "spawn thread", e))?;
        Ok(SegmentReader { jobs: Some(jobs), done, thread: Some(thread), backend, pending: 0, waited: Duration::ZERO })
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Start filling `buf`; every read must lie inside its capacity and be
    /// aligned to 4 KiB in offset, length and buffer position.
    pub fn fill(&mut self, buf: AlignedBuf, reads: Vec<SegmentRead>) {
        for r in &reads {
            assert!(r.offset % 4096 == 0 && r.len % 4096 == 0 && r.buf_offset % 4096 == 0 && r.buf_offset + r.len <= buf.capacity());
        }
        self.pending += 1;
        self.jobs.as_ref().expect("reader open").send(Job { buf, reads }).expect("segment reader thread alive");
    }

    /// The next filled buffer, in the order of `fill` calls.
    pub fn wait(&mut self) -> Filled {
        assert!(self.pending > 0, "wait without fill");
        let t = Instant::now();
        let f = self.done.recv().expect("segment reader thread alive");
        self.waited += t.elapsed();
        self.pending -= 1;
        f
    }
}

fn fill(io: &mut dyn BlockIo, paths: &[PathBuf], job: &mut Job, depth: usize) -> Result<u64, IoError> {
    // (request id = index into `parts`): file, offset, length, bytes needed
    let mut parts = Vec::new();
    let base = job.buf.as_mut_ptr();
    for r in &job.reads {
        let mut k = 0;
        while k < r.len {
            let len = REQUEST_BYTES.min(r.len - k);
            let need = r.need.saturating_sub(k).min(len);
            parts.push((r.file, r.offset + k as u64, len, need, r.buf_offset + k));
            k += len;
        }
    }
    let (mut next, mut in_flight, mut bytes) = (0, 0, 0u64);
    let mut done = Vec::new();
    let mut first_error = None;
    while next < parts.len() || in_flight > 0 {
        let mut batch = Vec::new();
        while next < parts.len() && in_flight + batch.len() < depth {
            let (file, offset, len, _, at) = parts[next];
            // SAFETY: `at + len` lies inside the buffer (checked in `fill`), which this thread owns until it is sent back.
            batch.push(ReadRequest { id: next as u64, file, offset, len, buf: unsafe { base.add(at) } });
            next += 1;
        }
        if !batch.is_empty() {
            in_flight += batch.len();
            // SAFETY: the ranges lie in the buffer (see above), which this
            // thread owns and does not touch until every read completes.
            unsafe { io.submit(&batch)? };
        }
        done.clear();
        io.complete(1, &mut done)?;
        for (id, res) in done.drain(..) {
            in_flight -= 1;
            let (file, offset, _, need, _) = parts[id as usize];
            match res {
                Ok(n) if n >= need => bytes += n as u64,
                Ok(n) => {
                    first_error.get_or_insert_with(|| {
                        IoError::new(
                            &paths[file],
                            "read",
                            std::io::Error::new(
                                std::io::ErrorKind::UnexpectedEof,
                                format!("{n} of {need} bytes at offset {offset} (truncated?)"),
                            ),
                        )
                    });
                }
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
    }
    match first_error {
        Some(e) => Err(e),
        None => Ok(bytes),
    }
}

/// Check what `job` read from files with registered hashes ([`crate::verify`]).
#[allow(clippy::type_complexity)]
fn check(checks: &[Option<(std::sync::Arc<crate::verify::FileChecks>, std::fs::File, u64)>], job: &Job) -> Result<(), IoError> {
    for r in &job.reads {
        let Some((c, file, len)) = &checks[r.file] else { continue };
        let valid = (len.saturating_sub(r.offset) as usize).min(r.len);
        c.check_read(file, r.offset, &job.buf.whole()[r.buf_offset..r.buf_offset + valid])?;
    }
    Ok(())
}

impl Drop for SegmentReader {
    fn drop(&mut self) {
        while self.pending > 0 {
            let _ = self.wait();
        }
        self.jobs.take();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
