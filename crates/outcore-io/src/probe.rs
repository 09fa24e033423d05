//! Device probe (`outcore probe`): sequential read and write bandwidth and
//! random 4 KiB read IOPS at several queue depths, through the same
//! O_DIRECT + io_uring path the engines use. The smallest depth that
//! reaches 90% of the best IOPS is the engines' in-flight target.

use crate::block::{open_block_io, ReadRequest};
use crate::{AlignedBuf, IoError, SeqWriter, DIRECT_ALIGN};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ProbeResult {
    pub seq_read_mbps: f64,
    pub seq_write_mbps: f64,
    /// (queue depth, random 4 KiB reads per second)
    pub rand_4k_iops: Vec<(usize, f64)>,
    /// Smallest queue depth within 90% of the best IOPS.
    pub best_depth: usize,
    pub backend: String,
    pub file_bytes: u64,
}

/// Where the probe's result is kept for later runs.
pub fn probe_record_path() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    Some(base.join("outcore").join("probe.json"))
}

/// The recorded best in-flight depth, if a probe ran on this machine.
pub fn recorded_depth() -> Option<usize> {
    let text = std::fs::read_to_string(probe_record_path()?).ok()?;
    serde_json::from_str::<ProbeResult>(&text).ok().map(|p| p.best_depth)
}

fn random_reads(path: &Path, bytes: u64, depth: usize, block: usize, duration: Duration, seed: u64) -> Result<(f64, String), IoError> {
    let mut io = open_block_io(&[path.to_path_buf()], depth, false)?;
    let mut bufs = AlignedBuf::new(block * depth, DIRECT_ALIGN);
    bufs.set_len(block * depth);
    let blocks = bytes / block as u64;
    let mut x = seed | 1;
    let mut next_offset = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % blocks) * block as u64
    };
    let ptr = bufs.as_mut_ptr();
    let reqs: Vec<ReadRequest> = (0..depth)
        .map(|i| ReadRequest { id: i as u64, file: 0, offset: next_offset(), len: block, buf: ptr.wrapping_add(i * block) })
        .collect();
    // SAFETY: request i reads into block i of `bufs` (depth blocks), which
    // outlives every read: all are reaped before it is dropped.
    unsafe { io.submit(&reqs)? };
    let start = Instant::now();
    let mut done = 0u64;
    let mut out = Vec::new();
    while start.elapsed() < duration {
        out.clear();
        io.complete(1, &mut out)?;
        let mut again = Vec::with_capacity(out.len());
        for (id, r) in out.drain(..) {
            r?;
            done += 1;
            again.push(ReadRequest { id, file: 0, offset: next_offset(), len: block, buf: ptr.wrapping_add(id as usize * block) });
        }
        // SAFETY: as above; a block is reissued only after its read completed.
        unsafe { io.submit(&again)? };
    }
    let secs = start.elapsed().as_secs_f64();
    // let the reads in flight finish before their buffers go
    let mut pending = depth;
    while pending > 0 {
        out.clear();
        io.complete(1, &mut out)?;
        pending -= out.len();
    }
    Ok((done as f64 / secs, io.backend().name().to_string()))
}

/// Probe the device holding `dir` with a scratch file of `bytes`.
pub fn probe(dir: &Path, bytes: u64, seconds_per_test: f64) -> Result<ProbeResult, IoError> {
    let path = dir.join(format!(".outcore-probe-{}", std::process::id()));
    let result = (|| {
        let chunk = vec![0x5au8; 4 << 20];
        let t = Instant::now();
        let mut w = SeqWriter::create(&path, 4 << 20, u64::MAX)?;
        let mut written = 0;
        while written < bytes {
            w.write_bytes(&chunk)?;
            written += chunk.len() as u64;
        }
        w.finish()?;
        let seq_write = written as f64 / t.elapsed().as_secs_f64() / 1e6;
        // sequential: 1 MiB reads, 16 in flight
        let t = Instant::now();
        let mut io = open_block_io(std::slice::from_ref(&path), 16, false)?;
        let block = 1 << 20;
        let mut bufs = AlignedBuf::new(block * 16, DIRECT_ALIGN);
        bufs.set_len(block * 16);
        let ptr = bufs.as_mut_ptr();
        let total = written / block as u64;
        let (mut next, mut read, mut out) = (0u64, 0u64, Vec::new());
        let initial: Vec<ReadRequest> = (0..16.min(total))
            .map(|i| ReadRequest { id: i, file: 0, offset: i * block as u64, len: block, buf: ptr.wrapping_add(i as usize * block) })
            .collect();
        next += initial.len() as u64;
        let mut pending = initial.len();
        // SAFETY: request i reads into block i of `bufs` (16 blocks), which
        // outlives the reads: the loop below reaps them all.
        unsafe { io.submit(&initial)? };
        while pending > 0 {
            out.clear();
            io.complete(1, &mut out)?;
            let mut again = Vec::new();
            for (id, r) in out.drain(..) {
                read += r? as u64;
                pending -= 1;
                if next < total {
                    again.push(ReadRequest {
                        id,
                        file: 0,
                        offset: next * block as u64,
                        len: block,
                        buf: ptr.wrapping_add(id as usize * block),
                    });
                    next += 1;
                    pending += 1;
                }
            }
            // SAFETY: as above; a block is reused only after its read completed.
            unsafe { io.submit(&again)? };
        }
        let seq_read = read as f64 / t.elapsed().as_secs_f64() / 1e6;
        drop(io);
        let mut iops = Vec::new();
        let mut backend = String::new();
        for depth in [1usize, 4, 16, 64, 128] {
            let (r, b) = random_reads(&path, written, depth, 4096, Duration::from_secs_f64(seconds_per_test), depth as u64 * 7919)?;
            iops.push((depth, r));
            backend = b;
        }
        let best = iops.iter().map(|x| x.1).fold(0.0, f64::max);
        let best_depth = iops.iter().find(|x| x.1 >= 0.9 * best).map(|x| x.0).unwrap_or(64);
        Ok(ProbeResult { seq_read_mbps: seq_read, seq_write_mbps: seq_write, rand_4k_iops: iops, best_depth, backend, file_bytes: written })
    })();
    let _ = std::fs::remove_file(&path);
    result
}
