//! Opening a store and scanning its layouts sequentially in bounded memory.

use crate::codec::{ListDecoder, ListSource};
use crate::ef::EfCursor;
use crate::{codec_at, Codec, IdMap, IndexFormat, LayoutRecord, Manifest, StoreError, STREAM_CHUNK_BYTES};
use outcore_io::verify::FileChecks;
use outcore_io::{
    hash_file_blocks, hash_file_blocks_and_pages, open_maybe_direct, read_full_at, AlignedBuf, BlockHashes, Budget, ChecksumMismatch,
    IoContext, SeqReader, SeqWriter, WriteSummary, CHECKSUM_BLOCK_BYTES, DIRECT_ALIGN,
};
use std::path::{Path, PathBuf};

/// An opened, complete store.
pub struct Store {
    dir: PathBuf,
    manifest: Manifest,
    /// The shared lock that keeps writers from changing the store while it is open.
    _lock: Option<crate::StoreLock>,
    /// Each layout's longest list, found once by a pass over its degrees
    /// where the manifest does not record it (stores written before it did).
    longest_lists: std::sync::Mutex<std::collections::HashMap<String, LongestList>>,
}

/// A layout's longest list, shared by the [`Layout`]s of one [`Store`].
type LongestList = std::sync::Arc<std::sync::OnceLock<u64>>;

impl Store {
    /// Open the store at `dir`: the manifest must exist and every file it
    /// lists must be present with the recorded size.
    pub fn open(dir: &Path) -> Result<Self, StoreError> {
        if !dir.is_dir() {
            return Err(StoreError::invalid(dir, "no such store directory"));
        }
        // before the manifest is read: a writer holding the store finishes first
        let lock = crate::StoreLock::shared(dir)?;
        let manifest = Manifest::read(dir)?;
        for (name, rec) in &manifest.files {
            let path = dir.join(name);
            // the file itself, never what a link inside the store points to
            match std::fs::symlink_metadata(&path) {
                Ok(m) if !m.file_type().is_file() => {
                    return Err(StoreError::invalid(
                        &path,
                        "is not a regular file (a link or a directory); a store holds only its own files",
                    ))
                }
                Ok(m) if m.len() == rec.bytes => {
                    // every read of this file in this process checks each block on first use
                    let hashes = rec.to_hashes(&path)?;
                    outcore_io::verify::register(&path, &m, hashes.block_bytes, hashes.blocks);
                }
                Ok(m) => {
                    return Err(StoreError::invalid(&path, format!("is {} bytes, manifest says {} (store damaged)", m.len(), rec.bytes)))
                }
                Err(_) => return Err(StoreError::invalid(&path, "missing (store damaged)")),
            }
        }
        Ok(Store { dir: dir.to_path_buf(), manifest, _lock: lock, longest_lists: Default::default() })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }
    pub fn vertices(&self) -> u64 {
        self.manifest.vertices
    }

    /// The layout called `name` (`out` or `in`).
    pub fn layout(&self, name: &str) -> Result<Layout, StoreError> {
        // An undirected graph's in-edges are its out-edges.
        let name = if name == "in" && !self.manifest.directed { "out" } else { name };
        let record = self.manifest.layouts.get(name).ok_or_else(|| self.missing(name, "this reader"))?;
        let longest = match self.longest_lists.lock() {
            Ok(mut known) => known.entry(name.to_string()).or_default().clone(),
            // a thread panicked holding the map: find it again
            Err(_) => LongestList::default(),
        };
        Ok(Layout {
            dir: self.dir.clone(),
            record: record.clone(),
            // the manifest's check found every layout's codec
            codec: codec_at(record.encoding, record.codec_revision).ok_or_else(|| {
                StoreError::invalid(
                    &self.dir,
                    format!("layout {name}: {} revision {} is unknown", record.encoding.name(), record.codec_revision),
                )
            })?,
            vertices: self.manifest.vertices,
            longest,
        })
    }

    /// Whether the store has layout `name` (`in` of an undirected store is `out`).
    pub fn has_layout(&self, name: &str) -> bool {
        match name {
            "tiles" => self.manifest.tiles.is_some(),
            "in" if !self.manifest.directed => self.manifest.layouts.contains_key("out"),
            _ => self.manifest.layouts.contains_key(name),
        }
    }

    /// The layouts present, the tile layout included.
    pub fn layout_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.manifest.layouts.keys().cloned().collect();
        if self.manifest.tiles.is_some() {
            names.push("tiles".into());
        }
        names
    }

    /// The error for a layout `reader` needs and the store lacks.
    pub fn missing(&self, layout: &str, reader: &str) -> StoreError {
        StoreError::MissingLayout { store: self.dir.clone(), layout: layout.into(), reader: reader.into(), present: self.layout_names() }
    }

    /// Layouts `names`, or an error saying which is missing and that `reader` needs it.
    pub fn layouts_for(&self, names: &[&str], reader: &str) -> Result<Vec<Layout>, StoreError> {
        names.iter().map(|name| self.layout(name).map_err(|_| self.missing(name, reader))).collect()
    }

    /// The store's original ids without loading the map (see [`Ids`]).
    pub fn ids(&self) -> Result<crate::Ids, StoreError> {
        crate::Ids::new(&self.dir, &self.manifest.id_map, self.manifest.id_base, self.manifest.vertices)
    }

    pub fn id_map(&self, budget: &Budget) -> Result<IdMap, StoreError> {
        IdMap::load(&self.dir, &self.manifest.id_map, self.manifest.id_base, self.manifest.vertices, budget)
    }

    /// Bytes on disk of each layout (index + adjacency + weights).
    pub fn layout_bytes(&self, name: &str) -> u64 {
        let Some(l) = self.manifest.layouts.get(name) else {
            return 0;
        };
        l.files().filter_map(|f| self.manifest.files.get(f)).map(|r| r.bytes).sum()
    }

    /// Re-hash every file and compare with the manifest.
    ///
    /// A file with page checksums ([`LayoutRecord::adjacency_pages`]) is
    /// hashed in 4 KiB pages too, in the same read; when it and its page
    /// checksum file both match the manifest but not each other, the page
    /// checksum file is reported, naming the first page it gets wrong.
    pub fn verify(&self) -> Vec<(String, Result<(), ChecksumMismatch>)> {
        // page checksum file of each file that has one
        let sums_of: std::collections::HashMap<&String, &String> = self
            .manifest
            .layouts
            .values()
            .flat_map(|l| [(Some(&l.adjacency), l.adjacency_pages.as_ref()), (l.weights.as_ref(), l.weights_pages.as_ref())])
            .filter_map(|(file, sums)| Some((file?, sums?)))
            .collect();
        let mut pages_found: Vec<(&String, BlockHashes)> = Vec::new();
        let mut results: Vec<(String, Result<(), ChecksumMismatch>)> = self
            .manifest
            .files
            .iter()
            .map(|(name, rec)| {
                let path = self.dir.join(name);
                let result = rec
                    .to_hashes(&path)
                    .map_err(|e| ChecksumMismatch::Io(outcore_io::IoError::new(&path, "manifest", std::io::Error::other(e.to_string()))))
                    .and_then(|expected| {
                        let actual = match sums_of.get(name) {
                            Some(sums) => {
                                let (blocks, pages) = hash_file_blocks_and_pages(&path, rec.block_bytes, outcore_io::PAGE_BYTES as u64)?;
                                pages_found.push((sums, pages));
                                blocks
                            }
                            None => hash_file_blocks(&path, rec.block_bytes)?,
                        };
                        actual.check_against(&expected)
                    });
                (name.clone(), result)
            })
            .collect();
        for (sums, pages) in pages_found {
            let Some((_, result)) = results.iter_mut().find(|(n, r)| n == sums && r.is_ok()) else { continue };
            let path = self.dir.join(sums);
            let recorded = match std::fs::read(&path) {
                Ok(bytes) => bytes,
                Err(e) => {
                    *result = Err(ChecksumMismatch::Io(outcore_io::IoError::new(&path, "read", e)));
                    continue;
                }
            };
            let wrong = (0..pages.blocks.len().max(recorded.len() / 8)).find(|&k| {
                recorded.get(8 * k..8 * k + 8).map(|h| u64::from_le_bytes(h.try_into().unwrap())) != pages.blocks.get(k).copied()
            });
            if let Some(k) = wrong {
                let (lo, hi) = (k as u64 * pages.block_bytes, ((k as u64 + 1) * pages.block_bytes).min(pages.bytes));
                let why = format!(
                    "page checksum {k} does not match page {k} (bytes {lo}..{hi}) of the file it checks, though both files match the manifest: the store was written wrong or crafted"
                );
                *result = Err(ChecksumMismatch::Io(outcore_io::IoError::new(&path, "verify", std::io::Error::other(why))));
            }
        }
        results
    }
}

/// Page checksums registered by [`Layout::check_by_pages`] and the budget
/// they are charged to, held by the reader that uses them.
pub struct PageChecks {
    _charges: Vec<outcore_io::Reservation>,
    _registrations: Vec<outcore_io::verify::Registration>,
}

/// One CSR layout of a store.
pub struct Layout {
    dir: PathBuf,
    record: LayoutRecord,
    codec: &'static dyn Codec,
    vertices: u64,
    /// The longest list where the record has none, once found.
    longest: LongestList,
}

impl Layout {
    pub fn record(&self) -> &LayoutRecord {
        &self.record
    }
    pub fn codec(&self) -> &'static dyn Codec {
        self.codec
    }
    /// The flag bits the codec keeps in index entries (CEESOR's self loop).
    pub fn index_flag(&self) -> u64 {
        !self.codec.position(u64::MAX)
    }
    pub fn index_path(&self) -> PathBuf {
        self.dir.join(&self.record.index)
    }
    pub fn adjacency_path(&self) -> PathBuf {
        self.dir.join(&self.record.adjacency)
    }
    pub fn weights_path(&self) -> Option<PathBuf> {
        self.record.weights.as_ref().map(|w| self.dir.join(w))
    }

    pub fn degrees_path(&self) -> Option<PathBuf> {
        self.record.degrees.as_ref().map(|w| self.dir.join(w))
    }
    pub fn blocks_path(&self) -> Option<PathBuf> {
        self.record.blocks.as_ref().map(|w| self.dir.join(w))
    }

    /// Memory of one decoded list of `entries` entries: the neighbours (8
    /// bytes an entry), the bytes they were read from (at most 16 an entry,
    /// or a whole block for blocked codecs), the lists the decoder keeps (8
    /// bytes an entry each) and, for weighted layouts, the weights, their
    /// bytes and the order that sorts them.
    pub fn list_bytes(&self, entries: u64) -> u64 {
        self.list_bytes_releasing(entries, entries)
    }

    /// [`Layout::list_bytes`] for a reader whose decoder lets go, after
    /// each list, of the lists it kept with room for more than `kept`
    /// entries ([`ListDecoder::release_above`]): of `entries`, only the
    /// lists it holds while it decodes one, and of `kept` the others.
    ///
    /// [`ListDecoder::release_above`]: crate::codec::ListDecoder::release_above
    pub fn list_bytes_releasing(&self, entries: u64, kept: u64) -> u64 {
        let kept = kept.min(entries);
        let weights = if self.record.weights.is_some() { 4 + 4 + 8 + 8 } else { 0 };
        let (all, in_flight) = (self.codec.decoder_lists(), self.codec.decoder_lists_in_flight().min(self.codec.decoder_lists()));
        let per_entry = 8 + 16 + 8 * in_flight + weights;
        let block = if self.codec.blocked() { crate::codec::BLOCK_TARGET_BYTES as u64 } else { 0 };
        entries.saturating_mul(per_entry) + kept.saturating_mul(8 * (all - in_flight)) + block
    }

    /// Memory a sequential scan ([`Layout::scan`]) holds: for each file it
    /// reads in order (adjacency, weights, block table, a word index) two
    /// read-ahead chunks, the window's copy of up to two more (less for a
    /// shorter file) and [`READER_BYTES`]; an Elias-Fano index's cursor
    /// ([`crate::ef::cursor_bytes`]); and its longest list decoded.
    pub fn scan_bytes(&self) -> Result<u64, StoreError> {
        let chunk = STREAM_CHUNK_BYTES as u64;
        let length = |path: &Path| std::fs::metadata(path).map(|m| m.len()).ctx(path, "stat");
        let mut files = vec![self.adjacency_path()];
        files.extend(self.weights_path());
        files.extend(self.blocks_path());
        let mut bytes = self.list_bytes(self.longest_list()?) + self.index_cursor_bytes()?;
        for file in &files {
            bytes += 2 * chunk + length(file)?.min(2 * chunk) + READER_BYTES;
        }
        Ok(bytes)
    }

    /// Memory of the index read forward ([`Layout::index_entries`]): a
    /// sequential window over a word index, an Elias-Fano cursor.
    pub(crate) fn index_cursor_bytes(&self) -> Result<u64, StoreError> {
        let chunk = STREAM_CHUNK_BYTES as u64;
        let path = self.index_path();
        let length = std::fs::metadata(&path).map(|m| m.len()).ctx(&path, "stat")?;
        Ok(match self.record.index_format {
            IndexFormat::U64 => 2 * chunk + length.min(2 * chunk) + READER_BYTES,
            IndexFormat::EliasFano => crate::ef::cursor_bytes(length, self.index_flag()) + READER_BYTES,
        })
    }

    /// The layout's files that have page checksums beside them, each with
    /// its page checksum file ([`LayoutRecord::adjacency_pages`]).
    pub fn page_sum_files(&self) -> Vec<(PathBuf, PathBuf)> {
        [(Some(&self.record.adjacency), &self.record.adjacency_pages), (self.record.weights.as_ref(), &self.record.weights_pages)]
            .into_iter()
            .filter_map(|(file, pages)| Some((self.dir.join(file?), self.dir.join(pages.as_ref()?))))
            .collect()
    }

    /// What [`Layout::check_by_pages`] charges for the moment it reads the
    /// checksums, beside what it keeps: its reader.
    pub const PAGE_SUMS_READER_BYTES: u64 = SeqReader::buffer_bytes(PAGE_SUMS_CHUNK);

    /// Bytes [`Layout::check_by_pages`] charges: 8 bytes and a bit per 4 KiB page.
    pub fn page_sums_bytes(&self) -> u64 {
        self.page_sum_files().iter().map(|(_, sums)| std::fs::metadata(sums).map_or(0, |m| m.len() + m.len() / 64)).sum()
    }

    /// Have every later read of this process check the files that have page
    /// checksums a 4 KiB page at a time, against those checksums (read
    /// here, themselves checked against the manifest), instead of a whole
    /// checksum block at a time: a random read of a page then reads no
    /// more than that page. Charges [`Layout::page_sums_bytes`] to
    /// `budget`; does nothing when checking is off.
    /// Reading them takes a 64 KiB sequential reader for a moment, charged
    /// while it is held.
    /// The checks last while the returned [`PageChecks`] lives: dropping
    /// it releases the charge and puts back the checks by whole blocks.
    pub fn check_by_pages(&self, budget: &Budget) -> Result<PageChecks, StoreError> {
        let mut held = PageChecks { _charges: Vec::new(), _registrations: Vec::new() };
        if !outcore_io::verify::verification_enabled() {
            return Ok(held);
        }
        for (file, sums) in self.page_sum_files() {
            let meta = std::fs::symlink_metadata(&file).ctx(&file, "stat")?;
            let pages = meta.len().div_ceil(outcore_io::PAGE_BYTES as u64).max(1);
            let have = std::fs::metadata(&sums).ctx(&sums, "stat")?.len();
            if have != pages * 8 {
                return Err(StoreError::invalid(
                    &sums,
                    format!("holds {have} bytes; the {pages} pages of {} need {} (store damaged)", file.display(), pages * 8),
                ));
            }
            let name = file.file_name().unwrap_or_default().to_string_lossy().into_owned();
            held._charges.push(budget.reserve(&format!("the page checksums of {name}"), have + have / 64)?);
            let mut hashes = Vec::with_capacity(pages as usize);
            // the reader's chunks, let go when the checksums are read
            let _reading = budget.reserve(&format!("a reader of {name}'s page checksums"), Self::PAGE_SUMS_READER_BYTES)?;
            let mut reader = SeqReader::open(&sums, PAGE_SUMS_CHUNK)?;
            while let Some(chunk) = reader.next_chunk()? {
                hashes.extend(chunk.chunks_exact(8).map(|h| u64::from_le_bytes(h.try_into().unwrap())));
            }
            held._registrations.push(outcore_io::verify::register_until_dropped(&file, &meta, outcore_io::PAGE_BYTES as u64, hashes));
        }
        Ok(held)
    }
    pub fn vertices(&self) -> u64 {
        self.vertices
    }

    /// The block table of a blocked codec (24 bytes per block).
    pub fn block_table(&self) -> Result<Option<BlockTable>, StoreError> {
        let Some(path) = self.blocks_path() else {
            return Ok(None);
        };
        let mut words = Vec::new();
        SeqReader::for_each_u64(&path, |x| {
            words.push(x);
            Ok(())
        })?;
        let table = BlockTable { path, words };
        table.check(self.vertices)?;
        Ok(Some(table))
    }

    /// Stream every vertex's list in order; memory is a few I/O chunks plus
    /// the longest list (a whole block for blocked codecs). Blocks are
    /// checked against their checksums before any list in them is decoded.
    pub fn scan(&self) -> Result<AdjacencyScan, StoreError> {
        self.open_scan(Window::open)
    }

    /// Lists of chosen vertices in ascending order ([`AdjacencyScan::seek`]):
    /// positioned reads of the pages that hold them, so a sparse set of
    /// vertices costs a few page reads each rather than a pass over the
    /// file. Memory: a 64 KiB window per file, plus a block for blocked codecs.
    pub fn lookup(&self) -> Result<AdjacencyScan, StoreError> {
        let mut scan = self.open_scan(Window::open_paged)?;
        if scan.blocks.is_some() && scan.weights.is_some() {
            // edge positions of skipped vertices come from their degrees or edge starts
            let p = self.degrees_path().ok_or_else(|| StoreError::invalid(&self.dir, "a blocked layout without a degrees file"))?;
            scan.degrees = Some(match self.record.index_format {
                IndexFormat::U64 => EdgeStarts::Degrees(Box::new(Window::open_paged(&p)?)),
                IndexFormat::EliasFano => EdgeStarts::EliasFano(Box::new(EfCursor::open(&p, self.vertices + 1, 0)?)),
            });
        }
        scan.paged = true;
        Ok(scan)
    }

    /// [`Layout::scan`] of the lists of vertices `first..end` only, each
    /// file read in order from where the part starts: several parts of a
    /// layout scanned at once, one per core. A blocked codec's scan starts
    /// at the block holding `first` (its table read up to there), whose
    /// bytes it checks, and decodes no list before `first`. Memory: as
    /// [`Layout::scan_bytes`].
    pub fn scan_range(&self, first: u64, end: u64) -> Result<AdjacencyScan, StoreError> {
        if first > end || end > self.vertices {
            return Err(StoreError::invalid(&self.dir, format!("no vertices {first}..{end} in a layout of {} vertices", self.vertices)));
        }
        if first == 0 || first == end {
            let mut scan = self.scan()?;
            (scan.vertex, scan.end) = (first, end);
            return Ok(scan);
        }
        // the block holding `first` (the table read up to it), and the
        // vertex the index is read from
        let mut blocks = match self.blocks_path() {
            Some(p) => Some(Window::open(&p)?),
            None => None,
        };
        let block = match &mut blocks {
            Some(table) => Some(block_holding(table, 0, first, self.vertices)?),
            None => None,
        };
        let from = block.map_or(first, |b| b.first_vertex);
        let mut index = match self.record.index_format {
            IndexFormat::U64 => IndexEntries::Words(Box::new(Window::open_from(&self.index_path(), from * 8)?)),
            IndexFormat::EliasFano => self.index_entries()?,
        };
        let lo = index.entry(from)?;
        let weighted = self.weights_path().is_some();
        let edge_position = match (&block, self.degrees_path()) {
            // unblocked codecs index edges
            (None, _) => lo,
            (Some(_), Some(_)) if weighted => {
                let Some(mut starts) = self.edge_starts()? else {
                    return Err(StoreError::invalid(&self.dir, "a blocked, weighted layout whose edge starts are missing"));
                };
                // a part of the u32 degrees at a time, not all of them in one window
                let (mut at, mut position) = (0, 0);
                while at < first {
                    let to = (at + (1 << 16)).min(first);
                    position = starts.start(at, position, to)?;
                    at = to;
                }
                position
            }
            (Some(_), None) if weighted => {
                return Err(StoreError::invalid(&self.dir, "a blocked layout with weights but without a degrees file"));
            }
            // no weights: the edge position is not used
            (Some(_), _) => 0,
        };
        let byte = match &block {
            Some(b) => b.first_byte,
            None => self.codec.byte_range(lo, lo).0,
        };
        let weights = match self.weights_path() {
            Some(p) => Some(Window::open_from(&p, edge_position.saturating_mul(4))?),
            None => None,
        };
        let mut scan = self.assemble_scan(index, Window::open_from(&self.adjacency_path(), byte)?, weights, blocks);
        (scan.end, scan.edge_position) = (end, edge_position);
        if let Some(b) = block {
            scan.vertex = b.first_vertex;
            scan.enter_block(b)?;
            // the block's index entries up to `first`: its later lists may refer to earlier ones
            scan.block_entries.push(lo);
            for u in b.first_vertex + 1..=first {
                let entry = scan.index.entry(u)?;
                scan.block_entries.push(entry);
            }
        }
        scan.vertex = first;
        Ok(scan)
    }

    fn open_scan(&self, open: fn(&Path) -> Result<Window, StoreError>) -> Result<AdjacencyScan, StoreError> {
        let weights = match self.weights_path() {
            Some(p) => Some(open(&p)?),
            None => None,
        };
        let blocks = match self.blocks_path() {
            Some(p) => Some(open(&p)?),
            None => None,
        };
        Ok(self.assemble_scan(self.index_entries_with(open)?, open(&self.adjacency_path())?, weights, blocks))
    }

    /// A scan from vertex 0 over the files' windows given.
    fn assemble_scan(&self, index: IndexEntries, adjacency: Window, weights: Option<Window>, blocks: Option<Window>) -> AdjacencyScan {
        AdjacencyScan {
            end: self.vertices,
            codec: self.codec,
            decoder: self.codec.decoder(),
            vertices: self.vertices,
            index,
            adjacency,
            weights,
            blocks,
            degrees: None,
            paged: false,
            block: None,
            block_entries: Vec::new(),
            vertex: 0,
            edge_position: 0,
            neighbours: Vec::new(),
            list_weights: Vec::new(),
            stored_weights: Vec::new(),
            perm: Vec::new(),
        }
    }

    /// The most entries of one list: as recorded, or (stores written
    /// before it was recorded) by a pass over the degrees, once per store.
    pub fn longest_list(&self) -> Result<u64, StoreError> {
        if let Some(longest) = self.record.longest_list.or_else(|| self.longest.get().copied()) {
            return Ok(longest);
        }
        let mut longest = 0;
        self.for_each_degree(|_, d| longest = longest.max(d))?;
        Ok(*self.longest.get_or_init(|| longest))
    }

    /// Call `f(v, degree)` for every vertex, reading only the index (or the
    /// degrees file) when the layout has one.
    pub fn for_each_degree(&self, mut f: impl FnMut(u64, u64)) -> Result<(), StoreError> {
        let mut degrees = self.degrees()?;
        for v in 0..self.vertices {
            f(v, degrees.next_degree()?);
        }
        Ok(())
    }

    /// The index's entries, read forward ([`IndexEntries::entry`]).
    pub fn index_entries(&self) -> Result<IndexEntries, StoreError> {
        self.index_entries_with(Window::open)
    }

    fn index_entries_with(&self, open: fn(&Path) -> Result<Window, StoreError>) -> Result<IndexEntries, StoreError> {
        Ok(match self.record.index_format {
            IndexFormat::U64 => IndexEntries::Words(Box::new(open(&self.index_path())?)),
            IndexFormat::EliasFano => {
                IndexEntries::EliasFano(Box::new(EfCursor::open(&self.index_path(), self.vertices + 1, self.index_flag())?))
            }
        })
    }

    /// Write this format version 1 layout's index, and a compressed
    /// layout's u32 degrees as edge starts, as the Elias-Fano files
    /// `NAME.ef` and `NAME.starts` beside it (`arcs`: the store's; each
    /// file read in order, a pass per section); returns the layout's new
    /// record and the files written. The adjacency, weights and block
    /// table stay as they are.
    pub fn to_elias_fano(&self, name: &str, arcs: u64) -> Result<(LayoutRecord, Vec<(String, WriteSummary)>), StoreError> {
        use crate::ef::{write_ef, EfHeader};
        let n = self.vertices;
        let last = self.last_index_entry()?;
        let flag = self.index_flag();
        let mut record = self.record.clone();
        let mut files = Vec::new();
        let index_name = format!("{name}.ef");
        let mut out = SeqWriter::create(&self.dir.join(&index_name), STREAM_CHUNK_BYTES, CHECKSUM_BLOCK_BYTES)?;
        write_ef(&mut out, &EfHeader::plan(n + 1, self.codec.position(last), flag, last), &self.index_path(), |f| {
            let mut entries = self.index_entries()?;
            (0..=n).try_for_each(|i| f(entries.entry(i)?))
        })?;
        files.push((index_name.clone(), out.finish()?));
        if let Some(degrees) = self.degrees_path() {
            let starts_name = format!("{name}.starts");
            let mut out = SeqWriter::create(&self.dir.join(&starts_name), STREAM_CHUNK_BYTES, CHECKSUM_BLOCK_BYTES)?;
            write_ef(&mut out, &EfHeader::plan(n + 1, arcs, 0, arcs), &degrees, |f| {
                self.edge_starts()?.ok_or_else(|| StoreError::invalid(&degrees, "is not a layout's degrees"))?.for_each(n, f)
            })?;
            files.push((starts_name.clone(), out.finish()?));
            record.degrees = Some(starts_name);
        }
        record.index_format = IndexFormat::EliasFano;
        record.index = index_name;
        Ok((record, files))
    }

    /// The index's last entry (where the last list ends), read without
    /// reading the index; an index of the wrong length is an error.
    pub fn last_index_entry(&self) -> Result<u64, StoreError> {
        let path = self.index_path();
        match self.record.index_format {
            IndexFormat::U64 => {
                let mut window = Window::open_paged(&path)?;
                if window.len() != (self.vertices + 1) * 8 {
                    return Err(StoreError::invalid(&path, format!("holds {} entries, expected {}", window.len() / 8, self.vertices + 1)));
                }
                window.u64_at(self.vertices * 8)
            }
            IndexFormat::EliasFano => Ok(EfCursor::open(&path, self.vertices + 1, self.index_flag())?.header().last),
        }
    }

    /// Where each vertex's first edge is (the sum of the degrees before
    /// it), read forward: for layouts that keep degrees apart from the
    /// index ([`LayoutRecord::degrees`]), else `None`.
    pub fn edge_starts(&self) -> Result<Option<EdgeStarts>, StoreError> {
        let Some(p) = self.degrees_path() else { return Ok(None) };
        Ok(Some(match self.record.index_format {
            IndexFormat::U64 => EdgeStarts::Degrees(Box::new(Window::open(&p)?)),
            IndexFormat::EliasFano => EdgeStarts::EliasFano(Box::new(EfCursor::open(&p, self.vertices + 1, 0)?)),
        }))
    }

    /// Degrees in vertex order, one at a time.
    pub fn degrees(&self) -> Result<DegreeScan, StoreError> {
        Ok(if let Some(starts) = self.edge_starts()? {
            DegreeScan::Starts { starts, vertex: 0, vertices: self.vertices, position: 0 }
        } else if self.codec.degree(0, 0).is_some() {
            let adjacency_bytes = std::fs::metadata(self.adjacency_path()).ctx(&self.adjacency_path(), "stat")?.len();
            DegreeScan::Index { codec: self.codec, index: self.index_entries()?, vertex: 0, vertices: self.vertices, adjacency_bytes }
        } else {
            DegreeScan::Lists(Box::new(self.scan()?))
        })
    }
}

/// A layout's block table ([`crate::LayoutRecord::blocks`]) in memory.
pub struct BlockTable {
    path: PathBuf,
    words: Vec<u64>,
}

/// One block: vertices `first_vertex..end_vertex`, bytes `first_byte..end_byte`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block {
    pub number: usize,
    pub first_vertex: u64,
    pub end_vertex: u64,
    pub first_byte: u64,
    pub end_byte: u64,
    pub hash: u64,
}

impl Block {
    /// Block `number` from its table record and the next one's first two
    /// words (u64 LE each: first vertex, first byte, hash; next vertex, next byte).
    fn from_words(number: usize, w: &[u64]) -> Block {
        Block { number, first_vertex: w[0], first_byte: w[1], hash: w[2], end_vertex: w[3], end_byte: w[4] }
    }
    /// Where this block is, for error messages.
    pub fn describe(&self) -> String {
        format!("block {} (vertices {}..{}, bytes {}..{})", self.number, self.first_vertex, self.end_vertex, self.first_byte, self.end_byte)
    }
    /// Check `bytes` (the block's bytes) against its checksum.
    pub fn verify(&self, path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
        if xxhash_rust::xxh3::xxh3_64(bytes) != self.hash {
            return Err(StoreError::invalid(
                path,
                format!("{}: checksum mismatch (corrupt block; nothing decoded from it)", self.describe()),
            ));
        }
        Ok(())
    }
}

impl BlockTable {
    pub fn len(&self) -> usize {
        self.words.len() / 3 - 1
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    fn check(&self, vertices: u64) -> Result<(), StoreError> {
        let bad = |why: String| Err(StoreError::invalid(&self.path, why));
        if !self.words.len().is_multiple_of(3) || self.words.len() < 6 {
            return bad(format!("holds {} words, not a block table", self.words.len()));
        }
        let last = self.words.len() / 3 - 1;
        if self.words[last * 3] != vertices {
            return bad(format!("ends at vertex {}, the store has {vertices}", self.words[last * 3]));
        }
        for b in 0..last {
            let (v0, v1) = (self.words[b * 3], self.words[b * 3 + 3]);
            let (b0, b1) = (self.words[b * 3 + 1], self.words[b * 3 + 4]);
            if v1 < v0 || b1 < b0 {
                return bad(format!("block {b} goes backwards"));
            }
        }
        Ok(())
    }
    pub fn get(&self, b: usize) -> Block {
        Block::from_words(b, &self.words[b * 3..b * 3 + 6])
    }
    /// The block holding vertex `v`.
    pub fn block_of(&self, v: u64) -> usize {
        let n = self.len();
        let mut lo = 0;
        let mut hi = n;
        // last block whose first vertex is <= v
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if self.words[mid * 3] <= v {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        lo
    }
}

/// A layout's index entries read forward ([`Layout::index_entries`]).
pub enum IndexEntries {
    /// Format version 1: u64 LE words.
    Words(Box<Window>),
    EliasFano(Box<EfCursor>),
}

impl IndexEntries {
    pub fn path(&self) -> &Path {
        match self {
            IndexEntries::Words(w) => w.path(),
            IndexEntries::EliasFano(c) => c.path(),
        }
    }

    /// Bytes read from the index file so far.
    pub fn bytes_read(&self) -> u64 {
        match self {
            IndexEntries::Words(w) => w.bytes_read(),
            IndexEntries::EliasFano(c) => c.bytes_read(),
        }
    }

    /// Entry `i` (flags included); `i` never decreases between calls.
    #[inline]
    pub fn entry(&mut self, i: u64) -> Result<u64, StoreError> {
        match self {
            IndexEntries::Words(w) => w.u64_at(i * 8),
            IndexEntries::EliasFano(c) => c.entry(i),
        }
    }

    /// Call `f` with each of the `count` entries in order (a fresh reader:
    /// Elias-Fano decodes a word of upper bits at a time).
    pub fn for_each(&mut self, count: u64, mut f: impl FnMut(u64) -> Result<(), StoreError>) -> Result<(), StoreError> {
        match self {
            IndexEntries::Words(w) => {
                // a chunk of words at a time, not a window lookup per entry
                const WORDS: u64 = 1 << 17;
                for first in (0..count).step_by(WORDS as usize) {
                    let end = (first + WORDS).min(count);
                    for word in w.range(first * 8, end * 8)?.chunks_exact(8) {
                        f(u64::from_le_bytes(word.try_into().unwrap()))?;
                    }
                }
                Ok(())
            }
            IndexEntries::EliasFano(c) => c.for_each(f),
        }
    }
}

/// Each vertex's first edge, read forward ([`Layout::edge_starts`]).
pub enum EdgeStarts {
    /// Format version 1: u32 LE degrees, summed as they are read.
    Degrees(Box<Window>),
    EliasFano(Box<EfCursor>),
}

impl EdgeStarts {
    pub fn path(&self) -> &Path {
        match self {
            EdgeStarts::Degrees(w) => w.path(),
            EdgeStarts::EliasFano(c) => c.path(),
        }
    }

    /// Bytes read from the file so far.
    pub fn bytes_read(&self) -> u64 {
        match self {
            EdgeStarts::Degrees(w) => w.bytes_read(),
            EdgeStarts::EliasFano(c) => c.bytes_read(),
        }
    }

    /// The first edge of vertex `to`, given that of vertex `from` (`from`
    /// <= `to`, and neither decreases between calls). `to` may be the
    /// vertex count: the end of the last list.
    pub fn start(&mut self, from: u64, from_start: u64, to: u64) -> Result<u64, StoreError> {
        match self {
            EdgeStarts::Degrees(w) => {
                let bytes = w.range(from * 4, to * 4)?;
                // saturating: a crafted file's sum is refused by the caller's bounds, not overflowed
                Ok(from_start.saturating_add(bytes.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap()) as u64).sum::<u64>()))
            }
            EdgeStarts::EliasFano(c) => c.entry(to),
        }
    }

    /// Call `f` with the first edge of every vertex and then the end of
    /// the last list (`vertices + 1` values; a fresh reader).
    pub fn for_each(&mut self, vertices: u64, mut f: impl FnMut(u64) -> Result<(), StoreError>) -> Result<(), StoreError> {
        match self {
            EdgeStarts::Degrees(_) => {
                let mut at = 0;
                f(0)?;
                for v in 0..vertices {
                    at = self.start(v, at, v + 1)?;
                    f(at)?;
                }
                Ok(())
            }
            EdgeStarts::EliasFano(c) => c.for_each(f),
        }
    }
}

/// Degrees of a layout in vertex order ([`Layout::degrees`]).
pub enum DegreeScan {
    Index {
        codec: &'static dyn Codec,
        index: IndexEntries,
        vertex: u64,
        vertices: u64,
        adjacency_bytes: u64,
    },
    /// From the edge starts; `position` is the current vertex's.
    Starts {
        starts: EdgeStarts,
        vertex: u64,
        vertices: u64,
        position: u64,
    },
    Lists(Box<AdjacencyScan>),
}

impl DegreeScan {
    /// Bytes read from the layout's files so far.
    pub fn bytes_read(&self) -> u64 {
        match self {
            DegreeScan::Index { index, .. } => index.bytes_read(),
            DegreeScan::Starts { starts, .. } => starts.bytes_read(),
            DegreeScan::Lists(scan) => scan.bytes_read(),
        }
    }

    /// The degree of the next vertex (an error past the last one).
    pub fn next_degree(&mut self) -> Result<u64, StoreError> {
        match self {
            DegreeScan::Index { codec, index, vertex, vertices, adjacency_bytes } => {
                if *vertex >= *vertices {
                    return Err(StoreError::invalid(index.path(), "read past the last vertex"));
                }
                let lo = index.entry(*vertex)?;
                let hi = index.entry(*vertex + 1)?;
                *vertex += 1;
                if codec.position(hi) > adjacency_bytes.saturating_mul(8) || codec.byte_range(lo.min(hi), hi).1 > *adjacency_bytes {
                    return Err(StoreError::invalid(
                        index.path(),
                        format!("vertex {}'s list ends at entry {hi}, beyond the {adjacency_bytes} bytes of the adjacency", *vertex - 1),
                    ));
                }
                (hi >= lo)
                    .then(|| codec.degree(lo, hi))
                    .flatten()
                    .ok_or_else(|| StoreError::invalid(index.path(), format!("index decreases at vertex {} ({lo} > {hi})", *vertex - 1)))
            }
            DegreeScan::Starts { starts, vertex, vertices, position } => {
                if *vertex >= *vertices {
                    return Err(StoreError::invalid(starts.path(), "read past the last vertex"));
                }
                let next = starts.start(*vertex, *position, *vertex + 1)?;
                let degree = next.checked_sub(*position).ok_or_else(|| {
                    StoreError::invalid(starts.path(), format!("edge starts decrease at vertex {} ({} > {next})", *vertex, *position))
                })?;
                (*vertex, *position) = (*vertex + 1, next);
                Ok(degree)
            }
            DegreeScan::Lists(scan) => match scan.next_list()? {
                Some((_, n, _)) => Ok(n.len() as u64),
                None => Err(StoreError::invalid(scan.index.path(), "read past the last vertex")),
            },
        }
    }
}

/// A window over a file: forward-only through a [`SeqReader`], or paged
/// (positioned reads of the aligned pages around each request, for
/// lookups of scattered vertices in ascending order).
pub struct Window {
    source: WindowSource,
    path: PathBuf,
    buf: Vec<u8>,
    start: u64,
    /// Bytes read from the file so far (a page read again counts again).
    read: u64,
}

enum WindowSource {
    Seq(SeqReader),
    Paged { file: std::fs::File, direct: bool, len: u64, page: AlignedBuf, checks: Option<std::sync::Arc<FileChecks>> },
}

/// What a file's reader keeps beside its chunks: its read-ahead thread,
/// the channels between them, the window.
pub const READER_BYTES: u64 = 16 << 10;

/// Bytes a paged window reads at least per miss.
const PAGED_READ_BYTES: usize = 64 << 10;

/// Chunk of the reader of a page checksum file ([`Layout::check_by_pages`]).
const PAGE_SUMS_CHUNK: usize = 64 << 10;

impl Window {
    pub(crate) fn open(path: &Path) -> Result<Self, StoreError> {
        Ok(Window {
            source: WindowSource::Seq(SeqReader::open(path, STREAM_CHUNK_BYTES)?),
            path: path.to_path_buf(),
            buf: Vec::new(),
            start: 0,
            read: 0,
        })
    }

    /// A sequential window whose first read is of byte `from` or later
    /// (it reads from the page holding `from`).
    pub(crate) fn open_from(path: &Path, from: u64) -> Result<Self, StoreError> {
        let reader = SeqReader::open_from(path, STREAM_CHUNK_BYTES, from)?;
        Ok(Window { start: reader.first_byte(), source: WindowSource::Seq(reader), path: path.to_path_buf(), buf: Vec::new(), read: 0 })
    }

    pub(crate) fn open_paged(path: &Path) -> Result<Self, StoreError> {
        Self::open_paged_reading(path, PAGED_READ_BYTES)
    }

    /// A paged window whose reads are up to `read_bytes` long (at most the
    /// file's length, rounded up to the alignment).
    pub(crate) fn open_paged_reading(path: &Path, read_bytes: usize) -> Result<Self, StoreError> {
        let (file, direct) = open_maybe_direct(path, std::fs::OpenOptions::new().read(true)).ctx(path, "open")?;
        let len = file.metadata().ctx(path, "stat")?.len();
        let page_bytes = (len.div_ceil(DIRECT_ALIGN as u64) * DIRECT_ALIGN as u64).clamp(DIRECT_ALIGN as u64, read_bytes as u64) as usize;
        let page = AlignedBuf::new(page_bytes, DIRECT_ALIGN);
        let checks = outcore_io::verify::checks_for(&file);
        Ok(Window {
            source: WindowSource::Paged { file, direct, len, page, checks },
            path: path.to_path_buf(),
            buf: Vec::new(),
            start: 0,
            read: 0,
        })
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Bytes read from the file so far: whole chunks of a sequential
    /// window, whole pages of a paged one (read again, counted again).
    pub(crate) fn bytes_read(&self) -> u64 {
        self.read
    }

    /// The file's length.
    pub(crate) fn len(&self) -> u64 {
        match &self.source {
            WindowSource::Seq(r) => r.len(),
            WindowSource::Paged { len, .. } => *len,
        }
    }

    fn truncated(&self, end: u64, hi: u64) -> StoreError {
        StoreError::invalid(&self.path, format!("ends at byte {end}, expected at least {hi} bytes (truncated)"))
    }

    /// Bytes `lo..hi` of the file; in a sequential window `lo` never goes
    /// backwards between calls.
    pub(crate) fn range(&mut self, lo: u64, hi: u64) -> Result<&[u8], StoreError> {
        if let WindowSource::Paged { .. } = self.source {
            return self.paged_range(lo, hi);
        }
        if lo < self.start || hi < lo {
            // a crafted index or block table that goes backwards
            return Err(StoreError::invalid(&self.path, format!("read of bytes {lo}..{hi} behind byte {} (reads go forward)", self.start)));
        }
        let drop = (lo - self.start) as usize;
        if drop > 0 && drop >= self.buf.len() / 2 {
            // only what the window holds: bytes beyond it are still the reader's to hand out
            let held = drop.min(self.buf.len());
            self.buf.drain(..held);
            self.start += held as u64;
        }
        while self.start + (self.buf.len() as u64) < hi {
            let WindowSource::Seq(reader) = &mut self.source else { unreachable!() };
            match reader.next_chunk()? {
                Some(chunk) => {
                    self.read += chunk.len() as u64;
                    if self.buf.is_empty() && self.start + chunk.len() as u64 <= lo {
                        self.start += chunk.len() as u64; // wholly before the range: not kept
                    } else {
                        self.buf.extend_from_slice(chunk)
                    }
                }
                None => return Err(self.truncated(self.start + self.buf.len() as u64, hi)),
            }
        }
        let off = (lo - self.start) as usize;
        Ok(&self.buf[off..off + (hi - lo) as usize])
    }

    fn paged_range(&mut self, lo: u64, hi: u64) -> Result<&[u8], StoreError> {
        if lo < self.start || hi > self.start + self.buf.len() as u64 {
            let WindowSource::Paged { file, direct, len, page, checks } = &mut self.source else { unreachable!() };
            if hi > *len {
                let end = *len;
                return Err(self.truncated(end, hi));
            }
            let align = DIRECT_ALIGN as u64;
            let first = lo / align * align;
            let end = (hi.div_ceil(align) * align).max(first + PAGED_READ_BYTES as u64).min(len.div_ceil(align) * align);
            self.buf.clear();
            let mut at = first;
            while at < end {
                let want = ((end - at) as usize).min(page.capacity());
                let got = read_full_at(file, page, want, at).ctx(&self.path, &format!("read at byte {at}"))?;
                self.read += got as u64;
                self.buf.extend_from_slice(&page[..got]);
                if got < want {
                    break;
                }
                at += got as u64;
            }
            if !*direct {
                // positioned reads of scattered pages: keep them out of the page cache
                outcore_io::drop_cached(file, first, end - first);
            }
            if let Some(c) = checks {
                c.check_read(file, first, &self.buf)?;
            }
            self.start = first;
            if hi > self.start + self.buf.len() as u64 {
                return Err(self.truncated(self.start + self.buf.len() as u64, hi));
            }
        }
        let off = (lo - self.start) as usize;
        Ok(&self.buf[off..off + (hi - lo) as usize])
    }

    pub(crate) fn u64_at(&mut self, byte: u64) -> Result<u64, StoreError> {
        Ok(u64::from_le_bytes(self.range(byte, byte + 8)?.try_into().unwrap()))
    }
}

/// Sequential scan of a layout, one vertex at a time.
pub struct AdjacencyScan {
    codec: &'static dyn Codec,
    decoder: Box<dyn ListDecoder>,
    vertices: u64,
    /// The vertex after the last list this scan yields.
    end: u64,
    index: IndexEntries,
    adjacency: Window,
    weights: Option<Window>,
    blocks: Option<Window>,
    /// Edge starts of a blocked, weighted layout opened by [`Layout::lookup`].
    degrees: Option<EdgeStarts>,
    paged: bool,
    /// The current block of a blocked codec.
    block: Option<Block>,
    /// Index entries of the current block's vertices so far.
    block_entries: Vec<u64>,
    vertex: u64,
    edge_position: u64,
    neighbours: Vec<u64>,
    list_weights: Vec<f32>,
    stored_weights: Vec<f32>,
    perm: Vec<usize>,
}

/// Block `number`'s record (and the next one's start) from the block table.
fn read_block(table: &mut Window, number: usize) -> Result<Block, StoreError> {
    let at = number as u64 * 24;
    let words: Vec<u64> = table.range(at, at + 48)?.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect();
    Ok(Block::from_words(number, &words))
}

/// The block holding vertex `v`, walking the table forward from block
/// `number`; a record that is malformed (vertices or bytes that end before
/// they start, or vertices past the layout's `vertices`) is refused.
fn block_holding(table: &mut Window, mut number: usize, v: u64, vertices: u64) -> Result<Block, StoreError> {
    loop {
        let b = read_block(table, number)?;
        if b.end_vertex < b.first_vertex || b.end_byte < b.first_byte || b.end_vertex > vertices {
            return Err(StoreError::invalid(table.path(), format!("{} is malformed", b.describe())));
        }
        if v < b.end_vertex {
            return Ok(b);
        }
        number += 1;
    }
}

impl AdjacencyScan {
    /// Bytes read from the layout's files so far (index, adjacency,
    /// weights, block table, edge starts).
    pub fn bytes_read(&self) -> u64 {
        self.index.bytes_read()
            + self.adjacency.bytes_read()
            + self.weights.as_ref().map_or(0, Window::bytes_read)
            + self.blocks.as_ref().map_or(0, Window::bytes_read)
            + self.degrees.as_ref().map_or(0, EdgeStarts::bytes_read)
    }

    /// Enter the block that starts at `self.vertex` and verify it.
    fn next_block(&mut self) -> Result<(), StoreError> {
        let number = self.block.map_or(0, |b| b.number + 1);
        let block = read_block(self.blocks.as_mut().unwrap(), number)?;
        self.enter_block(block)
    }

    /// Make `block`, which must start at `self.vertex`, the current block
    /// once its bytes match their checksum.
    fn enter_block(&mut self, block: Block) -> Result<(), StoreError> {
        if block.first_vertex != self.vertex || block.end_vertex < block.first_vertex || block.end_byte < block.first_byte {
            let table = self.blocks.as_ref().unwrap().path();
            return Err(StoreError::invalid(table, format!("{} does not follow vertex {}", block.describe(), self.vertex)));
        }
        let path = self.adjacency.path().to_path_buf();
        block.verify(&path, self.adjacency.range(block.first_byte, block.end_byte)?)?;
        self.block = Some(block);
        self.block_entries.clear();
        Ok(())
    }

    /// Make `v` (not below the next vertex) the next vertex [`Self::next_list`]
    /// returns. Only lookups ([`Layout::lookup`]) skip without reading what
    /// lies between; a sequential scan reads through it.
    pub fn seek(&mut self, v: u64) -> Result<(), StoreError> {
        if v < self.vertex || v > self.end {
            return Err(StoreError::invalid(
                self.index.path(),
                format!("seek to vertex {v} from vertex {} (lookups go forward)", self.vertex),
            ));
        }
        if v == self.vertex {
            return Ok(());
        }
        if !self.paged {
            while self.vertex < v {
                self.next_list()?;
            }
            return Ok(());
        }
        if self.blocks.is_none() {
            // unblocked codecs index edges: the index entry is the edge position
            self.edge_position = self.index.entry(v)?;
            self.vertex = v;
            return Ok(());
        }
        if let Some(d) = &mut self.degrees {
            self.edge_position = d.start(self.vertex, self.edge_position, v)?;
        }
        if v == self.vertices {
            self.vertex = v;
            return Ok(());
        }
        if self.block.is_none_or(|b| v >= b.end_vertex) {
            // walk the table to the block holding v, reading only its bytes
            let number = self.block.map_or(0, |b| b.number + 1);
            let block = block_holding(self.blocks.as_mut().unwrap(), number, v, self.vertices)?;
            self.vertex = block.first_vertex;
            self.enter_block(block)?;
        }
        // index entries of the block's vertices up to v: later lists may refer to earlier ones
        let from = if self.block_entries.is_empty() { self.vertex } else { self.vertex + 1 };
        for u in from..=v {
            self.block_entries.push(self.index.entry(u)?);
        }
        self.vertex = v;
        Ok(())
    }

    /// The next vertex, its neighbours and (if the layout has them) weights.
    #[allow(clippy::type_complexity)]
    pub fn next_list(&mut self) -> Result<Option<(u64, &[u64], &[f32])>, StoreError> {
        self.next_list_up_to(usize::MAX, false)
    }

    /// [`AdjacencyScan::next_list`], only the list's first `limit`
    /// neighbours (all when it has fewer): a codec that can (gapref, raw)
    /// decodes no further. On a weighted layout the whole list is decoded
    /// all the same (its weights are read by the list's length) and its
    /// first `limit` neighbours and weights returned.
    #[allow(clippy::type_complexity)]
    pub fn next_list_prefix(&mut self, limit: usize) -> Result<Option<(u64, &[u64], &[f32])>, StoreError> {
        match self.next_list_up_to(if self.weights.is_some() { usize::MAX } else { limit }, false)? {
            Some((v, ids, weights)) => Ok(Some((v, &ids[..ids.len().min(limit)], &weights[..weights.len().min(limit)]))),
            None => Ok(None),
        }
    }

    /// [`AdjacencyScan::next_list`], at most `limit` of the list's
    /// neighbours, any of them, and all of them when it has `limit` or
    /// fewer ([`ListDecoder::decode_some`]): a codec that stores a list in
    /// another order than ascending (CEESOR: by offset) decodes only the
    /// ones it reads first. On a weighted layout, as
    /// [`AdjacencyScan::next_list_prefix`].
    #[allow(clippy::type_complexity)]
    pub fn next_list_some(&mut self, limit: usize) -> Result<Option<(u64, &[u64], &[f32])>, StoreError> {
        if self.weights.is_some() {
            return self.next_list_prefix(limit);
        }
        self.next_list_up_to(limit, true)
    }

    #[allow(clippy::type_complexity)]
    /// The next list, its first `limit` neighbours (or, with `some`, any
    /// `limit` of them).
    fn next_list_up_to(&mut self, limit: usize, some: bool) -> Result<Option<(u64, &[u64], &[f32])>, StoreError> {
        if self.vertex >= self.end {
            return Ok(None);
        }
        let v = self.vertex;
        let lo = self.index.entry(v)?;
        let hi = self.index.entry(v + 1)?;
        let (plo, phi) = (self.codec.position(lo), self.codec.position(hi));
        if phi < plo {
            return Err(StoreError::invalid(self.index.path(), format!("index decreases at vertex {v} ({plo} > {phi})")));
        }
        if self.blocks.is_some() {
            while self.block.is_none_or(|b| v >= b.end_vertex) {
                self.next_block()?;
            }
            if self.block_entries.is_empty() {
                self.block_entries.push(lo);
            }
            self.block_entries.push(hi);
        }
        if phi > self.adjacency.len().saturating_mul(8) {
            return Err(StoreError::invalid(
                self.index.path(),
                format!(
                    "vertex {v}'s list ends at position {phi}, beyond the {} bytes of {}",
                    self.adjacency.len(),
                    self.adjacency.path().display()
                ),
            ));
        }
        let (src_start, src_end, first_vertex) = match self.block {
            Some(b) => (b.first_byte, b.end_byte, b.first_vertex),
            None => {
                let (b0, b1) = self.codec.byte_range(lo, hi);
                (b0, b1, v)
            }
        };
        if src_end > self.adjacency.len() {
            return Err(StoreError::invalid(
                self.index.path(),
                format!(
                    "vertex {v}'s list ends at byte {src_end}, beyond the {} bytes of {}",
                    self.adjacency.len(),
                    self.adjacency.path().display()
                ),
            ));
        }
        if self.block.is_some_and(|b| phi.div_ceil(8) > b.end_byte || plo < b.first_byte * 8) {
            return Err(StoreError::invalid(
                self.index.path(),
                format!("vertex {v}'s list lies outside {}", self.block.unwrap().describe()),
            ));
        }
        let bytes = self.adjacency.range(src_start, src_end)?;
        let entries = &self.block_entries;
        let entry = |u: u64| {
            let i = (u - first_vertex) as usize;
            (entries[i], entries[i + 1])
        };
        let src = ListSource { vertices: self.vertices, bytes, first_byte: src_start, first_vertex, entry: &entry };
        let decoded = if some {
            self.decoder.decode_some(v, lo, hi, &src, limit, &mut self.neighbours)
        } else {
            self.decoder.decode_prefix(v, lo, hi, &src, limit, &mut self.neighbours)
        };
        if let Err(e) = decoded {
            let place = self.block.map(|b| format!("{}, ", b.describe())).unwrap_or_default();
            return Err(StoreError::invalid(self.adjacency.path(), format!("{place}vertex {v}: {e}")));
        }
        if let Some(vs) = self.neighbours.iter().find(|&&n| n >= self.vertices) {
            return Err(StoreError::invalid(self.adjacency.path(), format!("vertex {v} has neighbour {vs} >= {} vertices", self.vertices)));
        }
        self.list_weights.clear();
        let n = self.neighbours.len() as u64;
        if let Some(w) = &mut self.weights {
            let bytes = w.range(self.edge_position * 4, (self.edge_position + n) * 4)?;
            let stored = bytes.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap()));
            if self.codec.storage_order(v, &self.neighbours, &mut self.perm) {
                self.stored_weights.clear();
                self.stored_weights.extend(stored);
                self.list_weights.resize(n as usize, 0.0);
                for (s, &i) in self.perm.iter().enumerate() {
                    self.list_weights[i] = self.stored_weights[s];
                }
            } else {
                self.list_weights.extend(stored);
            }
        }
        // (a prefix is never of a weighted list: the edge position counts
        // only where there are weights)
        self.edge_position += n;
        self.vertex += 1;
        Ok(Some((v, &self.neighbours, &self.list_weights)))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    //! [`Layout::scan_range`] against the plain definition: the lists of
    //! a whole [`Layout::scan`] from `first` to `end`, weights included.
    use crate::{CsrWriter, Encoding, LayoutRecord, Manifest, Store, StoreWriter, FORMAT_NAME, FORMAT_VERSION};
    use outcore_io::SplitMix64;
    use std::collections::BTreeMap;
    use std::path::Path;

    type Lists = Vec<Vec<(u64, f32)>>;

    /// Lists that gapref codes with references, intervals and residuals
    /// (a list often a near copy of the one before), with empty lists at
    /// both ends and between, and a hub longer than a 4 KiB block.
    fn local_lists(n: u64, seed: u64) -> Lists {
        let mut rng = SplitMix64(seed);
        let mut lists: Lists = vec![Vec::new(); n as usize];
        for v in 3..n - 3 {
            let list = &mut lists[v as usize];
            match rng.below(5) {
                0 => {} // empty
                1 if v > 3 => {
                    // the list before, less some of it, plus an id or two
                    let before: Vec<u64> = lists[v as usize - 1].iter().map(|&(u, _)| u).collect();
                    let mut ids: Vec<u64> = before.into_iter().filter(|_| rng.below(4) != 0).collect();
                    ids.extend((0..rng.below(3)).map(|_| rng.below(n)));
                    ids.sort_unstable();
                    ids.dedup();
                    lists[v as usize] = ids.into_iter().map(|u| (u, (u % 7) as f32 + 0.5)).collect();
                }
                _ => {
                    // a run of consecutive ids near v, and ids anywhere
                    let mut ids: Vec<u64> = (v + 1..(v + 1 + rng.below(12)).min(n)).collect();
                    ids.extend((0..rng.below(10)).map(|_| rng.below(n)));
                    ids.sort_unstable();
                    ids.dedup();
                    *list = ids.into_iter().map(|u| (u, (u % 7) as f32 + 0.5)).collect();
                }
            }
        }
        lists[(n / 2) as usize] = (0..n).step_by(2).map(|u| (u, 1.0 + u as f32)).collect();
        lists
    }

    /// Lists of ids anywhere (long ones too, their residuals in zeta gaps
    /// or Elias-Fano), about one in forty a near copy of the one before:
    /// too few references for gapref's decoder to keep the lists, so
    /// lists are decoded straight for the caller, a prefix only up to its
    /// last residual needed.
    fn scattered_lists(n: u64, seed: u64) -> Lists {
        let mut rng = SplitMix64(seed);
        let mut lists: Lists = Vec::with_capacity(n as usize);
        for v in 0..n {
            let mut ids: Vec<u64> = if v > 0 && rng.below(40) == 0 {
                let extra = rng.below(n);
                lists[v as usize - 1].iter().map(|&(u, _)| u).filter(|_| rng.below(5) != 0).chain([extra]).collect()
            } else {
                let d = [0, 1, 3, 9, 30, 200][rng.below(6) as usize];
                let spread = [n, 64][rng.below(2) as usize];
                (0..d).map(|_| (v + rng.below(spread)) % n).collect()
            };
            ids.sort_unstable();
            ids.dedup();
            lists.push(ids.into_iter().map(|u| (u, u as f32 * 0.5)).collect());
        }
        lists
    }

    /// Many vertices and few lists: a weighted blocked layout's first edge
    /// of a part past vertex 2^16 is summed over more than one piece.
    fn sparse_lists(n: u64) -> Lists {
        (0..n).map(|v| if v % 97 == 5 { vec![(v / 2, 2.5), (v / 2 + 1, 0.25), (n - 1, 9.0)] } else { Vec::new() }).collect()
    }

    /// A store of one layout, `out`, of `lists` (with page checksums, as
    /// import writes it).
    pub(crate) fn write(dir: &Path, lists: &Lists, encoding: Encoding, weighted: bool) -> Store {
        let n = lists.len() as u64;
        let mut store = StoreWriter::create(dir, false).unwrap();
        let mut layout = CsrWriter::new(&store, "out", encoding, n, weighted).unwrap();
        for (v, list) in lists.iter().enumerate() {
            for &(u, w) in list {
                layout.push(v as u64, u, w).unwrap();
            }
        }
        let (record, arcs): (LayoutRecord, u64) = layout.finish(&mut store).unwrap();
        let manifest = Manifest {
            format: FORMAT_NAME.into(),
            version: FORMAT_VERSION,
            vertices: n,
            edges: arcs,
            arcs,
            self_loops: 0,
            directed: true,
            weighted,
            id_map: "identity".into(),
            id_base: 0,
            layouts: BTreeMap::from([("out".to_string(), record)]),
            files: BTreeMap::new(),
            provenance: BTreeMap::new(),
            tiles: None,
            hot: None,
            bipartite: None,
        };
        store.commit(manifest).unwrap();
        Store::open(dir).unwrap()
    }

    type Scanned = Vec<(u64, Vec<u64>, Vec<f32>)>;

    fn scanned(mut scan: super::AdjacencyScan) -> Scanned {
        let mut lists = Vec::new();
        while let Some((v, ids, weights)) = scan.next_list().unwrap() {
            lists.push((v, ids.to_vec(), weights.to_vec()));
        }
        lists
    }

    /// Every part of every cut scans as the whole scan's lists of its
    /// vertices, and ranges outside the vertices are refused.
    fn check(store: &Store, layout: &str, seed: u64, what: &str) {
        let l = store.layout(layout).unwrap();
        let whole = scanned(l.scan().unwrap());
        let n = l.vertices();
        assert_eq!(whole.len() as u64, n, "{what}: the whole scan");
        let mut rng = SplitMix64(seed);
        let mut cut_sets = vec![vec![0, n], vec![0, 1, n / 3, n / 3, n / 2 + 1, n - 1, n, n]];
        for parts in [2, 5, 17] {
            let mut cuts: Vec<u64> = (0..parts).map(|_| rng.below(n + 1)).collect();
            cuts.extend([0, n]);
            cuts.sort_unstable();
            cut_sets.push(cuts);
        }
        for cuts in &cut_sets {
            for w in cuts.windows(2) {
                let part = scanned(l.scan_range(w[0], w[1]).unwrap());
                let want = &whole[w[0] as usize..w[1] as usize];
                assert_eq!(part.len(), want.len(), "{what}: part {}..{} of cuts {cuts:?}", w[0], w[1]);
                for (got, want) in part.iter().zip(want) {
                    assert_eq!(got, want, "{what}: part {}..{} of cuts {cuts:?}", w[0], w[1]);
                }
            }
        }
        for (first, end) in [(1, 0), (n, n - 1), (0, n + 1), (n + 1, n + 1)] {
            assert!(l.scan_range(first, end).is_err(), "{what}: {first}..{end} is refused");
        }
        // prefixes of every list, of a whole scan and of a part
        for limit in [0, 1, 2, 5, 64] {
            for (first, end) in [(0, n), (n / 3, n)] {
                let mut scan = l.scan_range(first, end).unwrap();
                for want in &whole[first as usize..end as usize] {
                    let (v, ids, weights) = scan.next_list_prefix(limit).unwrap().unwrap();
                    let take = want.1.len().min(limit);
                    assert_eq!((v, ids, weights), (want.0, &want.1[..take], &want.2[..want.2.len().min(limit)]), "{what}: first {limit}");
                }
                assert!(scan.next_list_prefix(limit).unwrap().is_none(), "{what}: first {limit}: no list after the last");
            }
        }
        // lookups of vertices chosen in ascending order, and seeks inside a part
        let mut picks: Vec<u64> = (0..60).map(|_| rng.below(n)).chain([0, n / 2, n - 1]).collect();
        picks.sort_unstable();
        picks.dedup();
        let mut lookup = l.lookup().unwrap();
        for &v in &picks {
            lookup.seek(v).unwrap();
            let (u, ids, weights) = lookup.next_list().unwrap().unwrap();
            assert_eq!((u, ids.to_vec(), weights.to_vec()), whole[v as usize], "{what}: a lookup of vertex {v}");
        }
        assert!(lookup.seek(n - 2).is_err(), "{what}: a lookup that goes back is refused");
        let (first, end) = (n / 4, n / 2);
        for mut part in [l.scan_range(first, end).unwrap(), l.lookup().unwrap()].into_iter().filter(|_| end > first + 3) {
            part.seek(first + 3).unwrap();
            part.seek(first + 3).unwrap();
            let (u, ids, weights) = part.next_list().unwrap().unwrap();
            assert_eq!((u, ids.to_vec(), weights.to_vec()), whole[first as usize + 3], "{what}: a seek to vertex {}", first + 3);
            assert!(part.seek(first + 3).is_err(), "{what}: a seek back is refused");
        }
        let mut part = l.scan_range(first, end).unwrap();
        assert!(part.seek(end + 1).is_err(), "{what}: a seek past the part's end is refused");
        part.seek(end).unwrap();
        assert!(part.next_list().unwrap().is_none(), "{what}: nothing after the part's end");
    }

    #[test]
    fn parts_of_a_layout_scan_as_the_whole() {
        // a scan that never ends fails the test at the suite's time bound
        outcore_io::bound::bounded("parts_of_a_layout_scan_as_the_whole", || {
            let dir = tempfile::tempdir().unwrap();
            // and lists all empty (a blocked layout's one block holds no bytes)
            let graphs = [
                ("local", local_lists(6_000, 1)),
                ("scattered", scattered_lists(5_000, 2)),
                ("sparse", sparse_lists(140_000)),
                ("empty", vec![Vec::new(); 100]),
            ];
            for (name, lists) in &graphs {
                for encoding in [Encoding::Raw32, Encoding::Raw64, Encoding::Ceesor, Encoding::Gapref] {
                    for weighted in [false, true] {
                        let what = format!("{name}, {encoding:?}, weighted {weighted}");
                        let at = dir.path().join(what.replace([',', ' '], "-"));
                        let store = write(&at, lists, encoding, weighted);
                        if *name == "local" && encoding == Encoding::Gapref {
                            let blocks = store.layout("out").unwrap().block_table().unwrap().map_or(0, |t| t.len());
                            assert!(blocks >= 8, "{what}: {blocks} blocks");
                        }
                        check(&store, "out", 7, &what);
                    }
                }
            }
        })
    }

    /// Craft the store at `at`: change its manifest with `change` and
    /// write it back.
    fn rewrite_manifest(at: &Path, change: impl FnOnce(&mut Manifest)) {
        let mut manifest = Manifest::read(at).unwrap();
        change(&mut manifest);
        manifest.write_atomic(at).unwrap();
    }

    /// A block table whose record of a block before the part's first
    /// vertex is impossible (its vertices or bytes end before they start,
    /// or its vertices end past the layout's), in a crafted store whose
    /// manifest matches the damaged table: the part is refused with the
    /// block named, never scanned from a wrong place.
    #[test]
    fn a_part_after_a_malformed_block_record_is_refused() {
        // a scan that never ends fails the test at the suite's time bound
        outcore_io::bound::bounded("a_part_after_a_malformed_block_record_is_refused", || {
            let dir = tempfile::tempdir().unwrap();
            let lists = local_lists(6_000, 1);
            let n = lists.len() as u64;
            for encoding in [Encoding::Ceesor, Encoding::Gapref] {
                // block 3's end is block 4's first vertex (word 12) and byte (word 13)
                for (what, word, value) in [
                    ("vertices end before they start", 12, 1),
                    ("bytes end before they start", 13, 1),
                    ("vertices end past the layout's", 12, n + 1),
                ] {
                    let at = dir.path().join(format!("{encoding:?}-{word}-{value}"));
                    let store = write(&at, &lists, encoding, true);
                    let layout = store.layout("out").unwrap();
                    let table = layout.block_table().unwrap().unwrap();
                    let last = table.get(table.len() - 1).first_vertex;
                    let path = layout.blocks_path().unwrap();
                    let mut bytes = std::fs::read(&path).unwrap();
                    bytes[word * 8..word * 8 + 8].copy_from_slice(&value.to_le_bytes());
                    std::fs::write(&path, &bytes).unwrap();
                    let name = path.file_name().unwrap().to_str().unwrap().to_string();
                    rewrite_manifest(&at, |manifest| {
                        let block_bytes = manifest.files[&name].block_bytes;
                        let hashes = outcore_io::hash_file_blocks(&path, block_bytes).unwrap();
                        manifest.files.insert(name.clone(), crate::FileRecord::from_hashes(&hashes));
                    });
                    let store = Store::open(&at).unwrap();
                    let layout = store.layout("out").unwrap();
                    let err = layout.scan_range(last, n).err().map(|e| e.to_string()).unwrap_or_default();
                    assert!(err.contains("block 3 (") && err.contains("is malformed"), "{encoding:?}, {what}: {err:?}");
                    // a lookup past it finds the block table the same
                    let mut lookup = layout.lookup().unwrap();
                    let err =
                        lookup.seek(last).and_then(|_| lookup.next_list().map(|_| ())).err().map(|e| e.to_string()).unwrap_or_default();
                    assert!(err.contains("block 3 (") && err.contains("is malformed"), "{encoding:?}, {what}, a lookup: {err:?}");
                    // the blocks before it are sound
                    let part = scanned(layout.scan_range(1, 2).unwrap());
                    assert_eq!(part.len(), 1, "{encoding:?}, {what}");
                }
            }
        })
    }

    /// A crafted manifest whose blocked layout names no edge starts: a
    /// weighted part, whose first edge they give, is refused (never read
    /// with the weights of the layout's first edges); an unweighted part
    /// needs none and scans as the whole does.
    #[test]
    fn a_blocked_layout_without_edge_starts_scans_in_parts_only_unweighted() {
        // a scan that never ends fails the test at the suite's time bound
        outcore_io::bound::bounded("a_blocked_layout_without_edge_starts_scans_in_parts_only_unweighted", || {
            let dir = tempfile::tempdir().unwrap();
            let lists = local_lists(6_000, 1);
            let n = lists.len() as u64;
            for encoding in [Encoding::Ceesor, Encoding::Gapref] {
                for weighted in [false, true] {
                    let at = dir.path().join(format!("{encoding:?}-{weighted}"));
                    let whole = scanned(write(&at, &lists, encoding, weighted).layout("out").unwrap().scan().unwrap());
                    rewrite_manifest(&at, |manifest| manifest.layouts.get_mut("out").unwrap().degrees = None);
                    let store = Store::open(&at).unwrap();
                    let part = store.layout("out").unwrap().scan_range(n / 2, n);
                    match weighted {
                        true => {
                            let err = part.err().map(|e| e.to_string()).unwrap_or_default();
                            assert!(err.contains("without a degrees file"), "{encoding:?}: {err:?}");
                        }
                        false => assert_eq!(scanned(part.unwrap()), &whole[n as usize / 2..], "{encoding:?}"),
                    }
                }
            }
        })
    }

    /// A sequential window hands out the file's bytes for ranges that go
    /// forward in small steps, across chunk boundaries and in jumps of
    /// more than a chunk (whose chunks it passes without keeping them),
    /// from byte 0 and from a byte within the file; it holds about two
    /// chunks beside the range asked for, never what it has passed; and
    /// it refuses a range behind what it has let go, one that ends before
    /// it starts, and one past the file's end.
    #[test]
    fn a_window_reads_forward_and_holds_little() {
        // a scan that never ends fails the test at the suite's time bound
        outcore_io::bound::bounded("a_window_reads_forward_and_holds_little", || {
            use super::Window;
            use crate::STREAM_CHUNK_BYTES;
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("bytes");
            let chunk = STREAM_CHUNK_BYTES as u64;
            let len = 8 * chunk + 123;
            let byte = |i: u64| (i.wrapping_mul(7) % 251) as u8;
            std::fs::write(&path, (0..len).map(byte).collect::<Vec<u8>>()).unwrap();
            let mut steps = vec![(0, 10), (10, 20), (chunk - 5, chunk + 5), (chunk + 5, chunk + 6)];
            steps.extend((0..3000).map(|i| (chunk + 6 + i * 700, chunk + 6 + i * 700 + 100)));
            steps.extend([(4 * chunk + 17, 4 * chunk + 4_000), (6 * chunk + 1, 7 * chunk + 2), (len - 1, len)]);
            for from in [0, 3 * 4096 + 1] {
                let mut window = if from == 0 { Window::open(&path).unwrap() } else { Window::open_from(&path, from).unwrap() };
                for &(lo, hi) in steps.iter().filter(|&&(lo, _)| lo >= from) {
                    let got = window.range(lo, hi).unwrap().to_vec();
                    assert!(
                        got.iter().zip(lo..hi).all(|(&b, i)| b == byte(i)) && got.len() as u64 == hi - lo,
                        "from {from}: bytes {lo}..{hi}"
                    );
                    assert!(
                        window.buf.len() as u64 <= 2 * (hi - lo) + 3 * chunk,
                        "from {from}: bytes {lo}..{hi}: the window holds {} bytes",
                        window.buf.len()
                    );
                }
                // every chunk read once, from the page holding `from` to the end
                assert_eq!(window.read, len - from / 4096 * 4096, "from {from}: bytes read");
                assert!(window.range(from, from + 10).is_err(), "from {from}: a range behind what the window passed is refused");
                assert!(window.range(len, len - 1).is_err(), "from {from}: a range that ends before it starts is refused");
                assert!(window.range(len, len + 1).is_err(), "from {from}: a range past the end is refused");
            }
        })
    }

    /// Stores of format version 1 (u64 index, u32 degrees summed for a
    /// weighted part's first edge), as outcore-cli's tests keep them.
    #[test]
    fn parts_of_version_1_layouts_scan_as_the_whole() {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../outcore-cli/tests/data/store-v1");
        for name in ["directed-raw32", "directed-gapref", "directed-ceesor", "grqc-ceesor"] {
            let store = Store::open(&fixtures.join(name)).unwrap();
            assert_eq!(store.manifest().version, 1, "{name}");
            for layout in ["out", "in"].into_iter().filter(|l| store.has_layout(l)) {
                check(&store, layout, 3, &format!("{name} {layout}"));
            }
        }
    }
}
