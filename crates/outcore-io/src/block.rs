//! Random block reads, submitted in batches: io_uring where the kernel
//! allows it, otherwise a pool of threads doing `pread` (DESIGN.md, "I/O").
//! Files are opened with O_DIRECT where the file system accepts it.

use crate::{open_maybe_direct, IoContext, IoError};
use io_uring::{opcode, types, IoUring};
use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;

/// One read: `len` bytes at `offset` of file `file` into `buf`.
#[derive(Clone, Copy, Debug)]
pub struct ReadRequest {
    pub id: u64,
    pub file: usize,
    pub offset: u64,
    pub len: usize,
    pub buf: *mut u8,
}

/// One read of consecutive bytes at `offset` scattered into `bufs` in order.
#[derive(Clone, Debug)]
pub struct VectoredRead {
    pub id: u64,
    pub file: usize,
    pub offset: u64,
    pub bufs: Vec<libc::iovec>,
}

// SAFETY: like ReadRequest: the iovecs name buffers the submitter keeps
// alive and untouched until completion (the contract of `submit_vectored`).
unsafe impl Send for VectoredRead {}

// SAFETY: the buffer pointer is only an address until a backend writes
// through it, which `BlockIo::submit`'s contract makes valid.
unsafe impl Send for ReadRequest {}

/// Which backend serves the reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    IoUring,
    Pread,
}

impl Backend {
    pub fn name(self) -> &'static str {
        match self {
            Backend::IoUring => "io_uring",
            Backend::Pread => "pread",
        }
    }
}

/// Asynchronous block reads.
pub trait BlockIo: Send {
    fn backend(&self) -> Backend;
    /// Queue requests (the caller keeps at most `depth` in flight).
    ///
    /// # Safety
    /// Each request's `buf` must be valid for writes of `len` bytes until
    /// its completion has been returned by [`BlockIo::complete`], and
    /// nothing else may access those bytes meanwhile.
    // SAFETY: an unsafe fn; its contract is the `# Safety` section above.
    unsafe fn submit(&mut self, requests: &[ReadRequest]) -> Result<(), IoError>;
    /// Queue scattered reads (each counts as one request in flight).
    ///
    /// # Safety
    /// As for [`BlockIo::submit`], for every iovec of every request.
    // SAFETY: an unsafe fn; its contract is the `# Safety` section above.
    unsafe fn submit_vectored(&mut self, requests: Vec<VectoredRead>) -> Result<(), IoError>;
    /// Wait for at least `min` completions (0: only what is ready); each
    /// is (request id, bytes read).
    fn complete(&mut self, min: usize, out: &mut Vec<(u64, Result<usize, IoError>)>) -> Result<(), IoError>;
}

struct Files {
    files: Vec<File>,
    paths: Vec<PathBuf>,
}

fn open_files(paths: &[PathBuf]) -> Result<Files, IoError> {
    let mut files = Vec::new();
    for p in paths {
        let mut opts = OpenOptions::new();
        opts.read(true);
        files.push(open_maybe_direct(p, &opts).ctx(p, "open")?.0);
    }
    Ok(Files { files, paths: paths.to_vec() })
}

struct Uring {
    ring: IoUring,
    files: Files,
    pending: Vec<(u64, usize, u64)>,
    /// iovec arrays of vectored reads in flight (the kernel reads them).
    iovecs: std::collections::HashMap<u64, VectoredRead>,
}

impl BlockIo for Uring {
    fn backend(&self) -> Backend {
        Backend::IoUring
    }
    // SAFETY: the caller keeps the contract of [`BlockIo::submit`].
    unsafe fn submit(&mut self, requests: &[ReadRequest]) -> Result<(), IoError> {
        for r in requests {
            let entry = opcode::Read::new(types::Fd(self.files.files[r.file].as_raw_fd()), r.buf, r.len as u32)
                .offset(r.offset)
                .build()
                .user_data(r.id);
            loop {
                // SAFETY: the buffer stays valid until its completion is reaped.
                let pushed = unsafe { self.ring.submission().push(&entry).is_ok() };
                if pushed {
                    break;
                }
                self.ring.submit().ctx(&self.files.paths[r.file], "io_uring submit")?;
            }
            self.pending.push((r.id, r.file, r.offset));
        }
        self.ring.submit().ctx(Path::new("io_uring"), "submit")?;
        Ok(())
    }
    // SAFETY: the caller keeps the contract of [`BlockIo::submit`].
    unsafe fn submit_vectored(&mut self, requests: Vec<VectoredRead>) -> Result<(), IoError> {
        for r in requests {
            let (id, file, offset) = (r.id, r.file, r.offset);
            let iov = &self.iovecs.entry(id).or_insert(r).bufs;
            let entry = opcode::Readv::new(types::Fd(self.files.files[file].as_raw_fd()), iov.as_ptr(), iov.len() as u32)
                .offset(offset)
                .build()
                .user_data(id);
            loop {
                // SAFETY: buffers and the iovec array live until the completion is reaped.
                let pushed = unsafe { self.ring.submission().push(&entry).is_ok() };
                if pushed {
                    break;
                }
                self.ring.submit().ctx(&self.files.paths[file], "io_uring submit")?;
            }
            self.pending.push((id, file, offset));
        }
        self.ring.submit().ctx(Path::new("io_uring"), "submit")?;
        Ok(())
    }
    fn complete(&mut self, min: usize, out: &mut Vec<(u64, Result<usize, IoError>)>) -> Result<(), IoError> {
        if min > 0 {
            self.ring.submit_and_wait(min).ctx(Path::new("io_uring"), "wait")?;
        }
        for cqe in self.ring.completion() {
            let id = cqe.user_data();
            self.iovecs.remove(&id);
            let pos = self.pending.iter().position(|p| p.0 == id).expect("known request");
            let (_, file, offset) = self.pending.swap_remove(pos);
            let res = cqe.result();
            out.push((
                id,
                if res < 0 {
                    Err(IoError::new(&self.files.paths[file], format!("read at byte {offset}"), std::io::Error::from_raw_os_error(-res)))
                } else {
                    Ok(res as usize)
                },
            ));
        }
        Ok(())
    }
}

enum Job {
    Plain(ReadRequest),
    Vectored(VectoredRead),
}

struct PreadPool {
    jobs: Option<Sender<Job>>,
    done: Receiver<(u64, Result<usize, IoError>)>,
    threads: Vec<JoinHandle<()>>,
}

impl PreadPool {
    fn new(files: Files, threads: usize) -> Self {
        let files = Arc::new(files);
        let (jobs_tx, jobs_rx) = channel::<Job>();
        let jobs_rx = Arc::new(std::sync::Mutex::new(jobs_rx));
        let (done_tx, done_rx) = channel();
        let threads = (0..threads)
            .map(|_| {
                let (files, jobs, done) = (files.clone(), jobs_rx.clone(), done_tx.clone());
                std::thread::spawn(move || loop {
                    let job = jobs.lock().unwrap().recv();
                    let r = match job {
                        Ok(Job::Plain(r)) => r,
                        Ok(Job::Vectored(v)) => {
                            // SAFETY: see VectoredRead.
                            let n = unsafe {
                                libc::preadv(files.files[v.file].as_raw_fd(), v.bufs.as_ptr(), v.bufs.len() as i32, v.offset as i64)
                            };
                            let result = if n < 0 {
                                Err(IoError::new(
                                    &files.paths[v.file],
                                    format!("read at byte {}", v.offset),
                                    std::io::Error::last_os_error(),
                                ))
                            } else {
                                Ok(n as usize)
                            };
                            if done.send((v.id, result)).is_err() {
                                return;
                            }
                            continue;
                        }
                        Err(_) => return,
                    };
                    // SAFETY: see ReadRequest.
                    let buf = unsafe { std::slice::from_raw_parts_mut(r.buf, r.len) };
                    let mut n = 0;
                    let result = loop {
                        match files.files[r.file].read_at(&mut buf[n..], r.offset + n as u64) {
                            Ok(0) => break Ok(n),
                            Ok(k) => {
                                n += k;
                                if n == r.len || n % 4096 != 0 {
                                    break Ok(n);
                                }
                            }
                            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                            Err(e) => break Err(IoError::new(&files.paths[r.file], format!("read at byte {}", r.offset), e)),
                        }
                    };
                    if done.send((r.id, result)).is_err() {
                        return;
                    }
                })
            })
            .collect();
        PreadPool { jobs: Some(jobs_tx), done: done_rx, threads }
    }
}

impl BlockIo for PreadPool {
    fn backend(&self) -> Backend {
        Backend::Pread
    }
    // SAFETY: the caller keeps the contract of [`BlockIo::submit`].
    unsafe fn submit(&mut self, requests: &[ReadRequest]) -> Result<(), IoError> {
        for r in requests {
            self.jobs
                .as_ref()
                .unwrap()
                .send(Job::Plain(*r))
                .map_err(|_| IoError::new(Path::new("pread pool"), "submit", std::io::Error::other("stopped")))?;
        }
        Ok(())
    }
    // SAFETY: the caller keeps the contract of [`BlockIo::submit`].
    unsafe fn submit_vectored(&mut self, requests: Vec<VectoredRead>) -> Result<(), IoError> {
        for r in requests {
            self.jobs
                .as_ref()
                .unwrap()
                .send(Job::Vectored(r))
                .map_err(|_| IoError::new(Path::new("pread pool"), "submit", std::io::Error::other("stopped")))?;
        }
        Ok(())
    }
    fn complete(&mut self, min: usize, out: &mut Vec<(u64, Result<usize, IoError>)>) -> Result<(), IoError> {
        for _ in 0..min {
            match self.done.recv() {
                Ok(c) => out.push(c),
                Err(_) => return Err(IoError::new(Path::new("pread pool"), "wait", std::io::Error::other("stopped"))),
            }
        }
        while let Ok(c) = self.done.try_recv() {
            out.push(c);
        }
        Ok(())
    }
}

impl Drop for PreadPool {
    fn drop(&mut self) {
        self.jobs = None;
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// Open `paths` for block reads with `depth` requests in flight: io_uring
/// unless `force_pread` or the kernel refuses it (then `depth` threads).
pub fn open_block_io(paths: &[PathBuf], depth: usize, force_pread: bool) -> Result<Box<dyn BlockIo>, IoError> {
    let files = open_files(paths)?;
    if !force_pread {
        if let Ok(ring) = IoUring::new(depth.next_power_of_two().max(8) as u32) {
            return Ok(Box::new(Uring { ring, files, pending: Vec::with_capacity(depth), iovecs: Default::default() }));
        }
    }
    Ok(Box::new(PreadPool::new(files, depth.clamp(1, 64))))
}
