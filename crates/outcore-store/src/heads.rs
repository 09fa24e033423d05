//! The first few entries of every list of a vertex range, read by the
//! pages that hold them and nothing else: a scan for callers that need a
//! few neighbours a vertex (Afforest's sampling) and not the rest of each
//! list. In a Kronecker graph at scale 25, 0.41 of the raw32 adjacency lies
//! in lists of 2,048 entries or more; their pages past the first are not
//! read: the heads' pages are 0.64 of the file, and with the short gaps
//! between them read too ([`MERGE_GAP`]) the scan reads 0.78.
//!
//! The index is read forward, as a scan reads it; from it the scan plans
//! batches of page runs (a run: the pages of consecutive heads, merged
//! where they touch or lie within [`MERGE_GAP`]), and a
//! [`SegmentReader`] reads each batch with [`READ_DEPTH`] requests in flight
//! (io_uring, or its thread pool) while the caller decodes the one before:
//! RASP's run-ahead, over a plan read from the index rather than a queue.
//! Each page read is checked against the layout's page checksums, which
//! its caller registers ([`Layout::check_by_pages`]) for all its scans.
//!
//! Layouts that keep page checksums are read this way where a head's
//! bytes are known from the index alone ([`Layout::reads_heads`]): the
//! raw encodings (an index of entries: the head's `limit` entries) and
//! CEESOR (an index of bits, each list on its own: its first `limit`
//! entries lie within [`CEESOR_ENTRY_BITS`] bits each, and its decoder
//! gives the nearest, [`crate::ListDecoder::decode_some`]). gapref's lists
//! may refer to the lists before them in their block: it is scanned.

use crate::codec::IndexUnit;
use crate::{Codec, Encoding, IndexEntries, Layout, ListDecoder, ListSource, PageChecks, StoreError};
use outcore_io::{AlignedBuf, IoContext, SegmentRead, SegmentReader, DIRECT_ALIGN, PAGE_BYTES};
use std::collections::VecDeque;
use std::path::PathBuf;

/// Bytes of pages a batch reads at most.
pub const BATCH_BYTES: usize = 4 << 20;
/// Batches a scan holds: one decoded while the next two are read.
const BATCHES: usize = 3;
/// Vertices a batch covers at most (its index entries are kept).
const BATCH_VERTICES: usize = 1 << 16;
/// Reads in flight per scan.
pub const READ_DEPTH: usize = 32;
/// Unneeded bytes between two heads' pages that are read rather than
/// skipped (one request for both instead of two).
const MERGE_GAP: u64 = 16 << 10;
/// The most bits a CEESOR entry takes (`BitReader::read_widening_entry`):
/// the zeros that widen it (fewer than 64: no entry is wider than 64
/// bits), the 1 that ends them, the entry's other bits (at most 63) and
/// its sign.
pub const CEESOR_ENTRY_BITS: u64 = 64 + 1 + 63 + 1;

/// One batch: the lists of `first..first + starts.len() - 1`, their index
/// entries, and the page runs read for them, each (file byte, length,
/// byte of the buffer).
struct Batch {
    first: u64,
    starts: Vec<u64>,
    runs: Vec<(u64, u64, usize)>,
}

/// The heads of the lists of a vertex range ([`Layout::scan_heads`]).
pub struct HeadScan {
    adjacency: PathBuf,
    index: IndexEntries,
    geometry: Geometry,
    /// CEESOR's decoder (raw heads are read as they lie).
    decoder: Option<Box<dyn ListDecoder>>,
    file_len: u64,
    vertices: u64,
    limit: u64,
    end: u64,
    reader: SegmentReader,
    spare: Vec<AlignedBuf>,
    /// The next vertex to plan, and its index entry.
    plan_next: u64,
    plan_lo: u64,
    reading: VecDeque<Batch>,
    current: Option<(Batch, AlignedBuf)>,
    /// The next list of the current batch, and its run.
    at: usize,
    run: usize,
    heads: Vec<u64>,
    read: u64,
    /// An error ended the scan: a batch may be lost, so nothing more is
    /// given.
    failed: bool,
}

/// Where a layout's heads lie: a list starts at its index entry's
/// position times `unit_bits`, and each of its entries takes at most
/// `entry_bits`.
#[derive(Clone, Copy)]
struct Geometry {
    codec: &'static dyn Codec,
    unit_bits: u64,
    entry_bits: u64,
}

impl Geometry {
    /// The raw encodings' (an index of entries of a fixed width) and
    /// CEESOR's (an index of bits; [`CEESOR_ENTRY_BITS`] at most an entry);
    /// none for an encoding whose heads the index does not place.
    fn of(codec: &'static dyn Codec) -> Option<Self> {
        match (codec.index_unit(), codec.encoding()) {
            (IndexUnit::Edges, _) => {
                let unit_bits = codec.byte_range(0, 1).1 * 8;
                Some(Geometry { codec, unit_bits, entry_bits: unit_bits })
            }
            (IndexUnit::Bits, Encoding::Ceesor) => Some(Geometry { codec, unit_bits: 1, entry_bits: CEESOR_ENTRY_BITS }),
            _ => None,
        }
    }

    /// The decoder of a head's bits: CEESOR's; none for the raw encodings,
    /// whose entries are read as they lie.
    fn decoder(&self) -> Option<Box<dyn ListDecoder>> {
        (self.codec.index_unit() == IndexUnit::Bits).then(|| self.codec.decoder())
    }

    /// The bit of the adjacency file where the list of index entry `entry`
    /// starts.
    fn bit(&self, entry: u64) -> u64 {
        self.codec.position(entry).saturating_mul(self.unit_bits)
    }

    /// The bit where the first `limit` entries of the list between index
    /// entries `lo..hi` end at the latest (where the list ends, when sooner).
    fn head_end(&self, lo: u64, hi: u64, limit: u64) -> u64 {
        self.bit(hi).min(self.bit(lo).saturating_add(limit.saturating_mul(self.entry_bits)))
    }
}

impl Layout {
    /// Whether [`Layout::scan_heads`] reads this layout by its heads' pages:
    /// a raw or CEESOR encoding, and page checksums for the adjacency.
    pub fn reads_heads(&self) -> bool {
        Geometry::of(self.codec()).is_some() && self.page_sum_files().iter().any(|(file, _)| *file == self.adjacency_path())
    }

    /// Memory a [`Layout::scan_heads`] holds, beside the page checksums
    /// ([`Layout::page_sums_bytes`], one charge for every scan): its
    /// batches' pages and index entries, the index cursor, the reader.
    pub fn head_scan_bytes(&self) -> Result<u64, StoreError> {
        let batches = BATCHES as u64 * (AlignedBuf::held_bytes(BATCH_BYTES, DIRECT_ALIGN) + 8 * (BATCH_VERTICES as u64 + 1));
        // a run a page at most: the plan's (24 bytes), the reads handed
        // to the reader and its requests (40 each, and one more a MiB)
        let runs = BATCHES as u64 * ((BATCH_BYTES / PAGE_BYTES) as u64 * 128 + 4096);
        Ok(batches + runs + self.index_cursor_bytes()? + crate::reader::READER_BYTES)
    }

    /// The first `limit` entries of the lists of `first..end`, in order,
    /// read by their pages ([`HeadScan`]), each page checked against its
    /// checksum: the caller holds the page checksums registered
    /// ([`Layout::check_by_pages`], once for every scan of the layout).
    /// Only for a layout that [`Layout::reads_heads`].
    pub fn scan_heads(&self, first: u64, end: u64, limit: usize, _checked_by_pages: &PageChecks) -> Result<HeadScan, StoreError> {
        let (Some(geometry), true) = (Geometry::of(self.codec()), self.reads_heads()) else {
            return Err(StoreError::invalid(
                self.adjacency_path(),
                "is not read by its heads' pages (neither a raw nor a CEESOR encoding, or no page checksums)",
            ));
        };
        if (limit as u64).saturating_mul(geometry.entry_bits) > 8 * (BATCH_BYTES - 2 * PAGE_BYTES) as u64 {
            return Err(StoreError::invalid(
                self.adjacency_path(),
                format!("heads of {limit} entries do not fit a batch of {BATCH_BYTES} bytes"),
            ));
        }
        if first > end || end > self.vertices() {
            return Err(StoreError::invalid(self.index_path(), format!("no vertices {first}..{end} in a layout of {}", self.vertices())));
        }
        let adjacency = self.adjacency_path();
        let file_len = std::fs::metadata(&adjacency).ctx(&adjacency, "stat")?.len();
        let mut index = self.index_entries()?;
        let plan_lo = index.entry(first)?;
        let reader = SegmentReader::open(std::slice::from_ref(&adjacency), READ_DEPTH, false)?;
        Ok(HeadScan {
            geometry,
            decoder: geometry.decoder(),
            adjacency,
            index,
            file_len,
            vertices: self.vertices(),
            limit: limit as u64,
            end,
            reader,
            spare: (0..BATCHES).map(|_| AlignedBuf::new(BATCH_BYTES, DIRECT_ALIGN)).collect(),
            plan_next: first,
            plan_lo,
            reading: VecDeque::new(),
            current: None,
            at: 0,
            run: 0,
            heads: Vec::with_capacity(limit),
            read: 0,
            failed: false,
        })
    }
}

impl HeadScan {
    /// Bytes read from the adjacency (whole pages) and the index so far.
    pub fn bytes_read(&self) -> u64 {
        self.read + self.index.bytes_read()
    }

    /// The next vertex and its list's first `limit` entries (the whole
    /// list when it has no more), or `None` past the range. After an error
    /// every call is an error.
    pub fn next_head(&mut self) -> Result<Option<(u64, &[u64])>, StoreError> {
        if self.failed {
            return Err(StoreError::invalid(&self.adjacency, "read on after an error of its head scan"));
        }
        match self.advance() {
            Ok(Some(v)) => Ok(Some((v, &self.heads))),
            Ok(None) => Ok(None),
            Err(e) => {
                self.failed = true;
                Err(e)
            }
        }
    }

    /// The next vertex, its head in `heads`.
    fn advance(&mut self) -> Result<Option<u64>, StoreError> {
        loop {
            if let Some((batch, _)) = &self.current {
                if self.at + 1 < batch.starts.len() {
                    break;
                }
            }
            if let Some((_, buf)) = self.current.take() {
                self.spare.push(buf);
            }
            self.plan_batches()?;
            let Some(batch) = self.reading.pop_front() else { return Ok(None) };
            let filled = self.reader.wait();
            let bytes = filled.result?;
            self.read += bytes;
            self.current = Some((batch, filled.buf));
            (self.at, self.run) = (0, 0);
            // the freed buffer is read into while this one is decoded
            self.plan_batches()?;
        }
        let (batch, buf) = self.current.as_ref().unwrap();
        let v = batch.first + self.at as u64;
        let (lo, hi) = (batch.starts[self.at], batch.starts[self.at + 1]);
        self.at += 1;
        self.heads.clear();
        let (first_bit, end_bit) = (self.geometry.bit(lo), self.geometry.head_end(lo, hi, self.limit));
        // the head's bytes: from the run holding its first
        let bytes = if end_bit > first_bit {
            let byte = first_bit / 8;
            while byte >= batch.runs[self.run].0 + batch.runs[self.run].1 {
                self.run += 1;
            }
            let (run_byte, _, buf_at) = batch.runs[self.run];
            let from = buf_at + (byte - run_byte) as usize;
            &buf.whole()[from..from + (end_bit.div_ceil(8) - byte) as usize]
        } else {
            // no bits (a list that holds at most the vertex itself): a byte
            // that places a position within it, which nothing reads
            &[0u8][..]
        };
        match &mut self.decoder {
            None => match self.geometry.unit_bits / 8 {
                4 => self.heads.extend(bytes.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap()) as u64)),
                _ => self.heads.extend(bytes.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap()))),
            },
            Some(decoder) => {
                // a CEESOR list refers to no other: the head's own bits,
                // to where its `limit` entries end at the latest
                let entry = |_: u64| (lo, end_bit);
                let src = ListSource { vertices: self.vertices, bytes, first_byte: first_bit / 8, first_vertex: v, entry: &entry };
                decoder
                    .decode_some(v, lo, end_bit, &src, self.limit as usize, &mut self.heads)
                    .map_err(|e| StoreError::invalid(&self.adjacency, format!("vertex {v}: {e}")))?;
            }
        }
        if let Some(u) = self.heads.iter().find(|&&u| u >= self.vertices) {
            return Err(StoreError::invalid(&self.adjacency, format!("vertex {v} has neighbour {u} >= {} vertices", self.vertices)));
        }
        Ok(Some(v))
    }

    /// Plan batches and hand them to the reader while a buffer is free and
    /// vertices are left.
    fn plan_batches(&mut self) -> Result<(), StoreError> {
        while self.plan_next < self.end {
            let Some(buf) = self.spare.pop() else { return Ok(()) };
            outcore_io::check_interrupt(&self.adjacency)?;
            let batch = match self.plan() {
                Ok(b) => b,
                Err(e) => {
                    self.spare.push(buf);
                    return Err(e);
                }
            };
            let reads = batch
                .runs
                .iter()
                .map(|&(offset, len, buf_offset)| SegmentRead {
                    file: 0,
                    offset,
                    len: len as usize,
                    buf_offset,
                    need: self.file_len.saturating_sub(offset).min(len) as usize,
                })
                .collect();
            self.reader.fill(buf, reads);
            self.reading.push_back(batch);
        }
        Ok(())
    }

    /// The next batch from the index: vertices from `plan_next` while their
    /// heads' pages fit in a batch's bytes.
    fn plan(&mut self) -> Result<Batch, StoreError> {
        let page = PAGE_BYTES as u64;
        // room for a full batch at once (no doubling past what is charged)
        let mut batch = Batch {
            first: self.plan_next,
            starts: Vec::with_capacity(BATCH_VERTICES + 1),
            runs: Vec::with_capacity(BATCH_BYTES / PAGE_BYTES),
        };
        batch.starts.push(self.plan_lo);
        let mut used = 0u64;
        while self.plan_next < self.end && batch.starts.len() <= BATCH_VERTICES {
            let (v, lo) = (self.plan_next, self.plan_lo);
            let hi = self.index.entry(v + 1)?;
            let (first_bit, list_end) = (self.geometry.bit(lo), self.geometry.bit(hi));
            if list_end < first_bit {
                let (plo, phi) = (self.geometry.codec.position(lo), self.geometry.codec.position(hi));
                return Err(StoreError::invalid(self.index.path(), format!("index decreases at vertex {v} ({plo} > {phi})")));
            }
            if list_end.div_ceil(8) > self.file_len {
                return Err(StoreError::invalid(
                    self.index.path(),
                    format!(
                        "vertex {v}'s list ends at byte {}, beyond the {} bytes of {}",
                        list_end.div_ceil(8),
                        self.file_len,
                        self.adjacency.display()
                    ),
                ));
            }
            let end_bit = self.geometry.head_end(lo, hi, self.limit);
            if end_bit > first_bit {
                let first_page = first_bit / 8 / page * page;
                let end_page = end_bit.div_ceil(8).div_ceil(page) * page;
                match batch.runs.last_mut() {
                    Some(last) if first_page <= last.0 + last.1 + MERGE_GAP => {
                        let grow = end_page.saturating_sub(last.0 + last.1);
                        if used + grow > BATCH_BYTES as u64 {
                            break;
                        }
                        last.1 += grow;
                        used += grow;
                    }
                    _ => {
                        if used + (end_page - first_page) > BATCH_BYTES as u64 {
                            break;
                        }
                        batch.runs.push((first_page, end_page - first_page, used as usize));
                        used += end_page - first_page;
                    }
                }
            }
            batch.starts.push(hi);
            (self.plan_next, self.plan_lo) = (v + 1, hi);
        }
        Ok(batch)
    }
}

#[cfg(test)]
mod tests {
    //! [`HeadScan`] against the plain definition: each list's first
    //! entries, as a whole scan reads them.
    use crate::{Encoding, Store};
    use outcore_io::{Budget, SplitMix64};

    /// A raw32 layout of `lists`, written as import writes it (with page
    /// checksums).
    fn raw_store(dir: &std::path::Path, lists: &[Vec<u64>]) -> Store {
        store_of(dir, lists, Encoding::Raw32)
    }

    fn store_of(dir: &std::path::Path, lists: &[Vec<u64>], encoding: Encoding) -> Store {
        let weighted: Vec<Vec<(u64, f32)>> = lists.iter().map(|l| l.iter().map(|&u| (u, 1.0)).collect()).collect();
        crate::reader::tests::write(dir, &weighted, encoding, false)
    }

    /// What a scan gives as `limit` of each list's neighbours
    /// ([`crate::AdjacencyScan::next_list_some`]: the first, or CEESOR's
    /// nearest).
    fn scanned_some(store: &Store, first: u64, end: u64, limit: usize) -> Vec<(u64, Vec<u64>)> {
        let mut scan = store.layout("out").unwrap().scan_range(first, end).unwrap();
        let mut got = Vec::new();
        while let Some((v, ids, _)) = scan.next_list_some(limit).unwrap() {
            got.push((v, ids.to_vec()));
        }
        got
    }

    fn heads_of(store: &Store, first: u64, end: u64, limit: usize) -> Vec<(u64, Vec<u64>)> {
        let lay = store.layout("out").unwrap();
        assert!(lay.reads_heads());
        let pages = lay.check_by_pages(&Budget::unlimited()).unwrap();
        let mut scan = lay.scan_heads(first, end, limit, &pages).unwrap();
        let mut got = Vec::new();
        while let Some((v, heads)) = scan.next_head().unwrap() {
            got.push((v, heads.to_vec()));
        }
        got
    }

    /// The error a head scan of the first `n` vertices ends with (three
    /// entries a head), after which it gives only errors; a scan that ends
    /// without one fails the test.
    fn first_error(store: &Store, n: u64) -> String {
        let lay = store.layout("out").unwrap();
        let pages = lay.check_by_pages(&Budget::unlimited()).unwrap();
        let mut scan = lay.scan_heads(0, n, 3, &pages).unwrap();
        loop {
            match scan.next_head() {
                Err(e) => {
                    let again = scan.next_head().expect_err("a scan that failed goes on failing").to_string();
                    assert!(again.contains("after an error"), "{again}");
                    return e.to_string();
                }
                Ok(None) => panic!("the scan of {n} vertices found nothing wrong"),
                Ok(Some(_)) => {}
            }
        }
    }

    /// Lists of every length: empty (at both ends too), short, a few
    /// pages long, and eleven hubs of hundreds of pages each (vertex 10
    /// and the one `n - 5` among them); more vertices than a batch covers.
    fn mixed_lists(n: u64, seed: u64) -> Vec<Vec<u64>> {
        let mut rng = SplitMix64(seed);
        (0..n)
            .map(|v| {
                if v % (n / 10) == 10 || v == n - 5 {
                    let len = n / 2 + rng.below(n / 2);
                    return (0..len).map(|i| i * n / len).collect();
                }
                if v < 2 || v + 2 >= n {
                    return Vec::new();
                }
                let len = match rng.below(400) {
                    0 => 1_000 + rng.below(4_000),
                    1..=140 => 0,
                    _ => rng.below(20),
                };
                let mut ids: Vec<u64> = (0..len).map(|_| rng.below(n)).collect();
                ids.sort_unstable();
                ids.dedup();
                ids
            })
            .collect()
    }

    /// CEESOR's heads are what its scan gives for them (the nearest
    /// entries, and the vertex itself first where its list holds it), on
    /// the same lists with self loops added, hubs whose entries widen to
    /// 22 bits among them; gapref is not read by heads.
    #[test]
    fn ceesor_heads_are_what_its_scan_gives() {
        let mut lists = mixed_lists(150_000, 13);
        for v in (3..lists.len()).step_by(7) {
            if let Err(at) = lists[v].binary_search(&(v as u64)) {
                lists[v].insert(at, v as u64);
            }
        }
        lists[20] = vec![20]; // a self loop alone: no bits, the flag only
        let n = lists.len() as u64;
        let dir = tempfile::tempdir().unwrap();
        let store = store_of(dir.path(), &lists, Encoding::Ceesor);
        for limit in [1, 3, 40] {
            for (first, end) in [(0, n), (5, 6), (10, 11), (20, 21), (17, n - 1), (n / 2 - 1, n / 2 + 70_000)] {
                assert_eq!(
                    heads_of(&store, first, end, limit),
                    scanned_some(&store, first, end, limit),
                    "limit {limit}, vertices {first}..{end}"
                );
            }
        }
        // the hubs' pages past their heads are not read
        hubs_are_not_read(&store, &lists, 4);
        let gapref = tempfile::tempdir().unwrap();
        assert!(!store_of(gapref.path(), &lists[..1000], Encoding::Gapref).layout("out").unwrap().reads_heads());
    }

    #[test]
    fn heads_are_the_lists_first_entries() {
        let dir = tempfile::tempdir().unwrap();
        let lists = mixed_lists(150_000, 7);
        let store = raw_store(dir.path(), &lists);
        let n = lists.len() as u64;
        for limit in [1, 3, 1_000] {
            for (first, end) in [(0, n), (0, 0), (5, 6), (10, 11), (17, n - 1), (n / 2 - 1, n / 2 + 70_000), (n, n)] {
                let want: Vec<(u64, Vec<u64>)> =
                    (first..end).map(|v| (v, lists[v as usize].iter().take(limit).copied().collect())).collect();
                assert_eq!(heads_of(&store, first, end, limit), want, "limit {limit}, vertices {first}..{end}");
            }
        }
    }

    /// The scan reads the pages of the heads, not the hubs' whole lists.
    #[test]
    fn a_hubs_pages_past_its_head_are_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let lists = mixed_lists(150_000, 11);
        hubs_are_not_read(&raw_store(dir.path(), &lists), &lists, 3);
    }

    /// A head scan of every list (three entries a head) reads less than
    /// the adjacency file less 0.9 of the hubs' bytes (lists of 50,000
    /// entries or more, placed by the index), which hold more than
    /// `1 / share` of the file.
    fn hubs_are_not_read(store: &Store, lists: &[Vec<u64>], share: u64) {
        let lay = store.layout("out").unwrap();
        let file = std::fs::metadata(lay.adjacency_path()).unwrap().len();
        let pages = lay.check_by_pages(&Budget::unlimited()).unwrap();
        let mut scan = lay.scan_heads(0, lists.len() as u64, 3, &pages).unwrap();
        while scan.next_head().unwrap().is_some() {}
        let mut index = lay.index_entries().unwrap();
        let mut hub_bytes = 0;
        for v in (0..lists.len() as u64).filter(|&v| lists[v as usize].len() >= 50_000) {
            let (b0, b1) = lay.codec().byte_range(index.entry(v).unwrap(), index.entry(v + 1).unwrap());
            hub_bytes += b1 - b0;
        }
        assert!(hub_bytes > file / share, "the case has hubs: {hub_bytes} of {file} bytes");
        assert!(scan.read < file - hub_bytes * 9 / 10, "read {} of a {file}-byte file whose hubs take {hub_bytes}", scan.read);
    }

    #[test]
    fn a_damaged_page_among_the_heads_is_found_and_one_past_them_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        // vertex 1's hub spans pages 0 to 97; its head is on page 0, and
        // vertex 3's list on page 97
        let mut lists = vec![Vec::new(); 200_000];
        lists[1] = (0..100_000u64).collect();
        lists[3] = vec![0, 2, 4];
        let store = raw_store(dir.path(), &lists);
        let lay = store.layout("out").unwrap();
        let path = lay.adjacency_path();
        let flip = |at: u64| {
            let mut bytes = std::fs::read(&path).unwrap();
            bytes[at as usize] ^= 1;
            std::fs::write(&path, bytes).unwrap();
        };
        // a page inside the hub, past its head: not read, not reported
        flip(40 * 4096 + 8);
        let store = Store::open(dir.path()).unwrap();
        assert_eq!(heads_of(&store, 0, 5, 3)[..4], [(0, vec![]), (1, vec![0, 1, 2]), (2, vec![]), (3, vec![0, 2, 4])]);
        // the head's own page: reported, naming the file
        flip(0);
        let err = first_error(&Store::open(dir.path()).unwrap(), 5);
        assert!(err.contains("out.adj") && err.contains("checksum mismatch in block 0 (bytes 0..4096)"), "{err}");
    }

    /// An index that places a list past the end of the adjacency file (the
    /// file cut by 8 bytes, the manifest told) is refused by name, before
    /// any page is read for it.
    #[test]
    fn a_list_past_the_adjacency_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let lists: Vec<Vec<u64>> = (0..500u64).map(|v| (0..v % 7).map(|d| (v + d + 1) % 500).collect::<Vec<_>>()).collect();
        let lists: Vec<Vec<u64>> = lists
            .into_iter()
            .map(|mut l| {
                l.sort_unstable();
                l.dedup();
                l
            })
            .collect();
        raw_store(dir.path(), &lists);
        let adjacency = dir.path().join("out.adj");
        let len = std::fs::metadata(&adjacency).unwrap().len();
        std::fs::OpenOptions::new().write(true).open(&adjacency).unwrap().set_len(len - 8).unwrap();
        let manifest = dir.path().join("manifest.json");
        let mut record: serde_json::Value = serde_json::from_slice(&std::fs::read(&manifest).unwrap()).unwrap();
        record["files"]["out.adj"]["bytes"] = (len - 8).into();
        // the arcs the 8 bytes held
        let arcs = record["arcs"].as_u64().unwrap();
        record["arcs"] = (arcs - 2).into();
        std::fs::write(&manifest, serde_json::to_vec(&record).unwrap()).unwrap();
        let err = first_error(&Store::open(dir.path()).unwrap(), 500);
        assert!(err.contains("beyond the") && err.contains("out.adj") && err.contains("vertex 499's list"), "{err}");
    }
}
