//! Original ids without the whole id map in memory. Results come out in
//! dense order, so their ids are a sequential join with the `idmap` file
//! ([`IdStream`], one chunk in memory); a root or source is found by a
//! search in the file ([`Ids::find`]: arithmetic for identity maps, binary
//! search for sorted ones, one sequential scan for permuted ones); values
//! that are vertex ids (parents, labels) are translated through
//! [`IdLookup`], the whole map when the budget has room for it and a small
//! cache of the file's blocks when it has not. Engines that promise
//! constant memory (sort-reduce) thereby report original ids in constant
//! memory too.

use crate::{IdMap, StoreError};
use outcore_io::{open_maybe_direct, read_full_at, AlignedBuf, Budget, IoContext, Reservation, SeqReader, DIRECT_ALIGN};
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

/// How a store's dense ids map to original ids.
#[derive(Clone, Debug)]
pub struct Ids {
    kind: Kind,
    vertices: u64,
}

#[derive(Clone, Debug)]
enum Kind {
    /// Original id = dense id + base.
    Identity { base: u64 },
    /// The `idmap` file: u64 LE per dense id, ascending when `sorted`.
    File { path: PathBuf, sorted: bool },
}

/// The chunk an [`IdStream`] over a file reads in.
const ID_CHUNK_BYTES: usize = 1 << 20;

/// Memory of an [`IdStream`] over a file: its reader
/// ([`SeqReader::buffer_bytes`]: two chunks, one read ahead) and the ids of
/// one chunk decoded.
pub const ID_STREAM_BYTES: u64 = SeqReader::buffer_bytes(ID_CHUNK_BYTES) + ID_CHUNK_BYTES as u64;

impl Ids {
    pub(crate) fn new(dir: &Path, kind: &str, base: u64, vertices: u64) -> Result<Self, StoreError> {
        let kind = match kind {
            "identity" => Kind::Identity { base },
            "sorted" | "permuted" => Kind::File { path: dir.join("idmap"), sorted: kind == "sorted" },
            other => return Err(StoreError::invalid(dir.join("manifest.json"), format!("unknown id_map kind '{other}'"))),
        };
        Ok(Ids { kind, vertices })
    }

    pub fn vertices(&self) -> u64 {
        self.vertices
    }

    /// Whether original ids are dense ids plus a constant.
    pub fn is_identity(&self) -> bool {
        matches!(self.kind, Kind::Identity { .. })
    }

    /// Whether original ids ascend with dense ids (identity, or a sorted
    /// map: what import writes; a recode's map is permuted).
    pub fn ascending(&self) -> bool {
        !matches!(self.kind, Kind::File { sorted: false, .. })
    }

    /// Original ids in dense order.
    pub fn stream(&self) -> Result<IdStream, StoreError> {
        Ok(match &self.kind {
            Kind::Identity { base } => IdStream { source: Source::Identity { next: *base }, path: None, remaining: self.vertices },
            Kind::File { path, .. } => {
                let reader = SeqReader::open(path, ID_CHUNK_BYTES)?;
                if reader.len() != self.vertices * 8 {
                    return Err(StoreError::invalid(
                        path,
                        format!("holds {} bytes, {} ids need {}", reader.len(), self.vertices, self.vertices * 8),
                    ));
                }
                IdStream {
                    source: Source::File { reader: Box::new(reader), carry: Vec::with_capacity(8), chunk: Vec::new(), at: 0 },
                    path: Some(path.clone()),
                    remaining: self.vertices,
                }
            }
        })
    }

    /// The dense id of original id `id`, if the store has that vertex.
    pub fn find(&self, id: u64) -> Result<Option<u64>, StoreError> {
        match &self.kind {
            Kind::Identity { base } => Ok((id >= *base && id - base < self.vertices).then(|| id - base)),
            Kind::File { path, sorted: true } => {
                let mut file = BlockFile::open(path)?;
                let (mut lo, mut hi) = (0u64, self.vertices);
                while lo < hi {
                    let mid = lo + (hi - lo) / 2;
                    let x = file.get(mid)?;
                    if x == id {
                        return Ok(Some(mid));
                    }
                    if x < id {
                        lo = mid + 1;
                    } else {
                        hi = mid;
                    }
                }
                Ok(None)
            }
            Kind::File { .. } => {
                let mut stream = self.stream()?;
                let mut v = 0;
                while let Some(x) = stream.next_id()? {
                    if x == id {
                        return Ok(Some(v));
                    }
                    v += 1;
                }
                Ok(None)
            }
        }
    }

    /// The original id of dense vertex `v` (one positioned read of the
    /// map file, or arithmetic).
    pub fn original(&self, v: u64) -> Result<u64, StoreError> {
        match &self.kind {
            Kind::Identity { base } => Ok(v + base),
            Kind::File { path, .. } => BlockFile::open(path)?.get(v),
        }
    }

    /// Dense ids of `originals`, in their order; the first id the store
    /// lacks is returned as the error value.
    /// One scan of a permuted map finds them all, and of a sorted map
    /// when that reads less than their binary searches would
    /// ([`Ids::scan_finds_sooner`]); each id scanned is looked up among
    /// them sorted (16 bytes an id asked for, beside them).
    pub fn find_all(&self, originals: &[u64]) -> Result<Result<Vec<u64>, u64>, StoreError> {
        let scan = match self.kind {
            Kind::Identity { .. } => false,
            Kind::File { sorted, .. } => originals.len() > 1 && (!sorted || self.scan_finds_sooner(originals.len() as u64)),
        };
        if scan {
            let mut asked: Vec<usize> = (0..originals.len()).collect();
            asked.sort_unstable_by_key(|&k| originals[k]);
            let mut found = vec![u64::MAX; originals.len()];
            let mut stream = self.stream()?;
            let mut v = 0;
            while let Some(x) = stream.next_id()? {
                let first = asked.partition_point(|&k| originals[k] < x);
                for &k in asked[first..].iter().take_while(|&&k| originals[k] == x) {
                    found[k] = v;
                }
                v += 1;
            }
            return Ok(match found.iter().position(|&d| d == u64::MAX) {
                Some(k) => Err(originals[k]),
                None => Ok(found),
            });
        }
        let mut out = Vec::with_capacity(originals.len());
        for &o in originals {
            match self.find(o)? {
                Some(d) => out.push(d),
                None => return Ok(Err(o)),
            }
        }
        Ok(Ok(out))
    }

    /// Whether one scan of a sorted map reads less than binary searches for
    /// `asked` ids: a search reads a block (4 KiB) at random per halving,
    /// a scan the whole map (8 bytes an id) in sequence, which on an SSD
    /// costs about what a 32nd as many random blocks do.
    fn scan_finds_sooner(&self, asked: u64) -> bool {
        let halvings = 64 - self.vertices.leading_zeros() as u64;
        let random_blocks = asked.saturating_mul(halvings);
        let scan_blocks = (self.vertices * 8).div_ceil(DIRECT_ALIGN as u64);
        random_blocks.saturating_mul(32) >= scan_blocks
    }

    /// Random access from dense to original ids: the whole map if the
    /// budget has room for it beside `keep` bytes, else a cache of the
    /// file's blocks (`cache_bytes`, charged).
    pub fn lookup(&self, budget: &Budget, keep: u64) -> Result<IdLookup, StoreError> {
        match &self.kind {
            Kind::Identity { base } => Ok(IdLookup(Lookup::Identity { base: *base })),
            Kind::File { path, sorted } => {
                if budget.available().saturating_sub(keep) >= self.vertices * 8 + (4 << 20) {
                    let kind = if *sorted { "sorted" } else { "permuted" };
                    let dir = path.parent().unwrap_or(Path::new("."));
                    return Ok(IdLookup(Lookup::Memory(IdMap::load(dir, kind, 0, self.vertices, budget)?)));
                }
                let frames = 256;
                let charge = budget.reserve("id map block cache", (frames * BLOCK) as u64)?;
                Ok(IdLookup(Lookup::Blocks(BlockCache {
                    file: BlockFile::open(path)?,
                    frames: Vec::with_capacity(frames),
                    slot: Default::default(),
                    limit: frames,
                    clock: 0,
                    _charge: charge,
                })))
            }
        }
    }
}

/// Original ids in dense order, read sequentially.
pub struct IdStream {
    source: Source,
    path: Option<PathBuf>,
    remaining: u64,
}

enum Source {
    Identity { next: u64 },
    File { reader: Box<SeqReader>, carry: Vec<u8>, chunk: Vec<u64>, at: usize },
}

impl IdStream {
    /// The next original id, or `None` after the last vertex.
    pub fn next_id(&mut self) -> Result<Option<u64>, StoreError> {
        if self.remaining == 0 {
            return Ok(None);
        }
        self.remaining -= 1;
        match &mut self.source {
            Source::Identity { next } => {
                *next += 1;
                Ok(Some(*next - 1))
            }
            Source::File { reader, carry, chunk, at } => {
                if *at == chunk.len() {
                    chunk.clear();
                    *at = 0;
                    while chunk.is_empty() {
                        let Some(bytes) = reader.next_chunk()? else {
                            let path = self.path.as_deref().unwrap_or(Path::new("idmap"));
                            return Err(StoreError::invalid(path, "ends before its last id"));
                        };
                        let mut bytes = bytes;
                        if !carry.is_empty() {
                            let take = (8 - carry.len()).min(bytes.len());
                            carry.extend_from_slice(&bytes[..take]);
                            bytes = &bytes[take..];
                            if carry.len() == 8 {
                                chunk.push(u64::from_le_bytes(carry[..].try_into().unwrap()));
                                carry.clear();
                            }
                        }
                        let whole = bytes.len() / 8 * 8;
                        chunk.extend(bytes[..whole].chunks_exact(8).map(|b| u64::from_le_bytes(b.try_into().unwrap())));
                        carry.extend_from_slice(&bytes[whole..]);
                    }
                }
                *at += 1;
                Ok(Some(chunk[*at - 1]))
            }
        }
    }
}

const BLOCK: usize = 4096;

/// Positioned reads of u64s from a file, a block at a time.
struct BlockFile {
    file: File,
    path: PathBuf,
    page: AlignedBuf,
    page_at: Option<u64>,
    direct: bool,
    checks: Option<std::sync::Arc<outcore_io::verify::FileChecks>>,
}

impl BlockFile {
    fn open(path: &Path) -> Result<Self, StoreError> {
        let mut opts = OpenOptions::new();
        opts.read(true);
        let (file, direct) = open_maybe_direct(path, &opts).ctx(path, "open")?;
        let checks = outcore_io::verify::checks_for(&file);
        Ok(BlockFile { file, path: path.to_path_buf(), page: AlignedBuf::new(BLOCK, DIRECT_ALIGN), page_at: None, direct, checks })
    }

    fn read_block(&mut self, block: u64) -> Result<(), StoreError> {
        let n = read_full_at(&self.file, &mut self.page, BLOCK, block * BLOCK as u64).ctx(&self.path, "read")?;
        if !self.direct {
            outcore_io::drop_cached(&self.file, block * BLOCK as u64, n as u64);
        }
        if let Some(c) = &self.checks {
            c.check_read(&self.file, block * BLOCK as u64, &self.page)?;
        }
        self.page_at = Some(block);
        Ok(())
    }

    fn get(&mut self, i: u64) -> Result<u64, StoreError> {
        let block = i * 8 / BLOCK as u64;
        if self.page_at != Some(block) {
            self.read_block(block)?;
        }
        let at = (i * 8 % BLOCK as u64) as usize;
        let bytes = self.page.get(at..at + 8).ok_or_else(|| StoreError::invalid(&self.path, format!("has no id for dense vertex {i}")))?;
        Ok(u64::from_le_bytes(bytes.try_into().unwrap()))
    }
}

/// Dense to original ids at random.
pub struct IdLookup(Lookup);

enum Lookup {
    Identity {
        base: u64,
    },
    Memory(IdMap),
    /// Recently used blocks of the file, the least recently used evicted.
    Blocks(BlockCache),
}

struct BlockCache {
    file: BlockFile,
    /// (block, its ids, last use)
    frames: Vec<(u64, Box<[u64]>, u64)>,
    slot: std::collections::HashMap<u64, usize>,
    limit: usize,
    clock: u64,
    _charge: Reservation,
}

impl IdLookup {
    /// The original id of dense vertex `v`.
    pub fn original(&mut self, v: u64) -> Result<u64, StoreError> {
        match &mut self.0 {
            Lookup::Identity { base } => Ok(v + *base),
            Lookup::Memory(map) => Ok(map.original(v)),
            Lookup::Blocks(c) => c.original(v),
        }
    }
}

impl BlockCache {
    fn original(&mut self, v: u64) -> Result<u64, StoreError> {
        const PER_BLOCK: u64 = (BLOCK / 8) as u64;
        let (block, at) = (v / PER_BLOCK, (v % PER_BLOCK) as usize);
        self.clock += 1;
        let k = match self.slot.get(&block) {
            Some(&k) => k,
            None => {
                self.file.read_block(block)?;
                let ids: Box<[u64]> = self.file.page.chunks_exact(8).map(|b| u64::from_le_bytes(b.try_into().unwrap())).collect();
                if self.frames.len() == self.limit {
                    let oldest = self.frames.iter().enumerate().min_by_key(|(_, f)| f.2).map(|(k, _)| k).unwrap();
                    self.slot.remove(&self.frames[oldest].0);
                    self.frames[oldest] = (block, ids, 0);
                    self.slot.insert(block, oldest);
                    oldest
                } else {
                    self.frames.push((block, ids, 0));
                    self.slot.insert(block, self.frames.len() - 1);
                    self.frames.len() - 1
                }
            }
        };
        let frame = &mut self.frames[k];
        frame.2 = self.clock;
        frame.1.get(at).copied().ok_or_else(|| StoreError::invalid(&self.file.path, format!("has no id for dense vertex {v}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An id map of `originals` (in dense order) in a directory of its own.
    fn map(originals: &[u64], sorted: bool) -> (tempfile::TempDir, Ids) {
        let dir = tempfile::tempdir().unwrap();
        let bytes: Vec<u8> = originals.iter().flat_map(|x| x.to_le_bytes()).collect();
        std::fs::write(dir.path().join("idmap"), bytes).unwrap();
        let ids = Ids::new(dir.path(), if sorted { "sorted" } else { "permuted" }, 0, originals.len() as u64).unwrap();
        (dir, ids)
    }

    /// Every way of finding many ids gives each one's dense id, in the
    /// order asked, repeats included, on sorted and permuted maps, through
    /// the binary searches and through one scan; the first id missing is
    /// named.
    #[test]
    fn find_all_finds_each_in_the_order_asked() {
        // large enough that a scan reads more than a few searches do
        let n = 1_000_000u64;
        let sorted: Vec<u64> = (0..n).map(|v| v * 7 + 3).collect();
        let mut permuted = sorted.clone();
        // a fixed shuffle (a multiplicative step through the ids)
        permuted.sort_by_key(|&x| (x.wrapping_mul(0x9E37_79B9_7F4A_7C15)) >> 11);
        for (originals, is_sorted) in [(&sorted, true), (&permuted, false)] {
            let (_dir, ids) = map(originals, is_sorted);
            // original 7k + 3 is at dense_of[k]
            let mut dense_of = vec![0u64; n as usize];
            for (v, &x) in originals.iter().enumerate() {
                dense_of[(x / 7) as usize] = v as u64;
            }
            // few (binary searches on the sorted map) and many (one scan)
            for count in [2usize, 3, 2_000, 9_000] {
                assert_eq!(ids.scan_finds_sooner(count as u64), count >= 2_000, "{count} ids of {n}");
                let asked: Vec<u64> = (0..count).map(|k| originals[(k * 7_919) % n as usize]).collect();
                let want: Vec<u64> = asked.iter().map(|x| dense_of[(x / 7) as usize]).collect();
                assert_eq!(ids.find_all(&asked).unwrap(), Ok(want), "{count} ids, sorted map {is_sorted}");
                let mut with_missing = asked.clone();
                with_missing.insert(count / 2, 5);
                with_missing.push(4);
                assert_eq!(ids.find_all(&with_missing).unwrap(), Err(5), "{count} ids and two missing, sorted map {is_sorted}");
            }
            for &x in originals.iter().step_by(99_991) {
                assert_eq!(ids.find(x).unwrap(), Some(dense_of[(x / 7) as usize]));
            }
            assert_eq!(ids.find(n * 7 + 3).unwrap(), None);
        }
    }
}
