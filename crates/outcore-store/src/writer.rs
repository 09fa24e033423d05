//! Writing a store: every file goes into a hidden staging directory beside
//! the target ([`outcore_io::Staged`]); `commit` writes `manifest.json` by
//! atomic rename and only then moves the directory into place. A store
//! that fails half-way (bad input, full disk, Ctrl-C, a crash) leaves no
//! directory under the target name, and its staging is removed (by the
//! next run beside it, after a crash).

use crate::bits::BitWriter;
use crate::codec::{ListEncoder, BLOCK_TARGET_BYTES};
use crate::ef::EfHeader;
use crate::target::{check_output, Existing, OutputKind};
use crate::{codec_for, Codec, Encoding, FileRecord, IndexFormat, IndexUnit, LayoutRecord, Manifest, StoreError, STREAM_CHUNK_BYTES};
use outcore_io::{IoContext, PageSumWriter, SeqReader, SeqWriter, Staged, WriteSummary, CHECKSUM_BLOCK_BYTES};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub struct StoreWriter {
    target: PathBuf,
    staging: Staged,
    force: bool,
    files: BTreeMap<String, FileRecord>,
}

impl StoreWriter {
    /// Start a store at `target` under the output policy of
    /// [`crate::target`]: an existing store is replaced only with `force`
    /// (and only when the new one is complete), anything else never.
    pub fn create(target: &Path, force: bool) -> Result<Self, StoreError> {
        Self::create_for(target, force, &[])
    }

    /// [`StoreWriter::create`] for a command that reads `inputs`, which the
    /// target must not be, contain or lie inside.
    pub fn create_for(target: &Path, force: bool, inputs: &[&Path]) -> Result<Self, StoreError> {
        check_output(target, OutputKind::Store, force, inputs)?;
        let name = target.file_name().ok_or_else(|| StoreError::invalid(target, "not a valid store path"))?;
        let parent = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let staging = Staged::dir(&parent, &format!("{}.partial", name.to_string_lossy()))?;
        Ok(StoreWriter { target: target.to_path_buf(), staging, force, files: BTreeMap::new() })
    }

    pub fn target(&self) -> &Path {
        &self.target
    }
    /// Where files are written until commit (also usable for scratch files).
    pub fn staging_dir(&self) -> &Path {
        self.staging.path()
    }

    /// A new file of the store.
    pub fn file(&self, name: &str) -> Result<SeqWriter, StoreError> {
        Ok(SeqWriter::create(&self.staging.join(name), STREAM_CHUNK_BYTES, CHECKSUM_BLOCK_BYTES)?)
    }

    /// A new file of the store with its page checksums beside it, in
    /// [`page_sums_name`]`(name)`.
    pub fn file_with_page_sums(&self, name: &str) -> Result<SeqWriter, StoreError> {
        let (path, sums) = (self.staging.join(name), self.staging.join(&page_sums_name(name)));
        Ok(SeqWriter::create_with_page_sums(&path, STREAM_CHUNK_BYTES, CHECKSUM_BLOCK_BYTES, &sums)?)
    }

    /// Finish a file made by [`StoreWriter::file`] and record its checksums
    /// (and its page checksum file's).
    pub fn finish_file(&mut self, writer: SeqWriter) -> Result<WriteSummary, StoreError> {
        let summary = writer.finish()?;
        self.record(&summary);
        Ok(summary)
    }

    /// Record a file written into the staging directory by other means
    /// (and its page checksum file, if it has one).
    pub fn record(&mut self, summary: &WriteSummary) {
        for s in summary.with_page_sums() {
            self.files.insert(s.file_name(), FileRecord::from_hashes(&s.hashes));
        }
    }

    /// Write the manifest (atomically), then move the store into place,
    /// replacing what the output policy allows (checked again: the target
    /// may have changed while the store was written).
    pub fn commit(mut self, mut manifest: Manifest) -> Result<PathBuf, StoreError> {
        outcore_io::check_interrupt(&self.target)?;
        manifest.files = std::mem::take(&mut self.files);
        manifest.version = crate::FORMAT_VERSION;
        manifest.write_atomic(self.staging.path())?;
        let existing = check_output(&self.target, OutputKind::Store, self.force, &[])?;
        // a store being replaced is not removed under its readers
        let _replaced = match existing {
            Existing::Replaceable if self.target.join("manifest.json").is_file() => Some(crate::StoreLock::exclusive(&self.target)?),
            _ => None,
        };
        let mut old = None;
        if existing != Existing::Nothing {
            let aside = self.staging.path().with_extension("old");
            std::fs::rename(&self.target, &aside).ctx(&self.target, "move the replaced store aside")?;
            old = Some(aside);
        }
        if let Err(e) = self.staging.publish(&self.target) {
            if let Some(aside) = &old {
                let _ = std::fs::rename(aside, &self.target);
            }
            return Err(e.into());
        }
        if let Some(parent) = self.target.parent() {
            if !parent.as_os_str().is_empty() {
                sync_dir(parent)?;
            }
        }
        match (old, existing) {
            (Some(aside), Existing::EmptyDirectory) => std::fs::remove_dir(&aside).ctx(&aside, "remove the replaced empty directory")?,
            (Some(aside), _) => std::fs::remove_dir_all(&aside).ctx(&aside, "remove the replaced store")?,
            (None, _) => {}
        }
        Ok(self.target.clone())
    }
}

/// Turn the scratch file of u64 LE `entries` into the Elias-Fano file `ef`
/// described by `header` (three passes over the scratch file), then
/// remove the scratch file.
fn to_elias_fano(entries: SeqWriter, ef: &mut SeqWriter, header: EfHeader) -> Result<(), StoreError> {
    let path = entries.path().to_path_buf();
    entries.finish()?;
    let written = std::fs::metadata(&path).ctx(&path, "stat")?.len();
    if written != header.entries * 8 {
        return Err(StoreError::invalid(&path, format!("holds {} entries, expected {}", written / 8, header.entries)));
    }
    crate::ef::write_ef(ef, &header, &path, |f| {
        let mut reader = SeqReader::open_unchecked(&path, STREAM_CHUNK_BYTES)?;
        while let Some(word) = reader.next_word::<8>()? {
            f(u64::from_le_bytes(word))?;
        }
        Ok(())
    })?;
    std::fs::remove_file(&path).ctx(&path, "remove the scratch file")?;
    Ok(())
}

fn sync_dir(dir: &Path) -> Result<(), StoreError> {
    std::fs::File::open(dir).and_then(|d| d.sync_all()).ctx(dir, "fsync directory")?;
    Ok(())
}

/// The suffixes of the files a CSR layout `NAME` may have, its scratch
/// files included (`NAME.SUFFIX`): what a killed layout build can leave.
pub const LAYOUT_FILE_SUFFIXES: &[&str] =
    &["index", "ef", "entries", "adj", "weights", "degrees", "starts", "starts.entries", "blocks", "adj.pages", "weights.pages"];

/// The page checksum file of the store file `name` ([`SeqWriter::create_with_page_sums`]).
pub fn page_sums_name(name: &str) -> String {
    format!("{name}.pages")
}

/// Write `sums`, the page checksum file of the existing file `file`: the
/// bytes [`SeqWriter::create_with_page_sums`] writes beside a file as it
/// writes it, here from one sequential read of `file`, checked against its
/// registered checksums (`outcore layout upgrade` of a store written before
/// page checksums).
pub fn write_page_sums(file: &Path, sums: &Path) -> Result<WriteSummary, StoreError> {
    let mut reader = SeqReader::open(file, STREAM_CHUNK_BYTES)?;
    let mut writer = PageSumWriter::create(sums, CHECKSUM_BLOCK_BYTES)?;
    while let Some(chunk) = reader.next_chunk()? {
        writer.update(chunk)?;
    }
    Ok(writer.finish()?)
}

/// Writes one CSR layout from edges arriving sorted by (source, target).
///
/// Besides `NAME.ef` (the index, Elias-Fano: [`crate::ef`]), `NAME.adj` and
/// `NAME.weights`, codecs whose index does not give degrees get
/// `NAME.starts` (each list's first edge, Elias-Fano too), and blocked
/// codecs get `NAME.blocks`: per block u64 LE first vertex, first byte and
/// xxh3-64 of its bytes, then a final (vertices, bytes, 0). The entries go
/// to scratch files first (`NAME.entries`, `NAME.starts.entries`, u64 LE),
/// which closing turns into the Elias-Fano files and removes.
pub struct CsrWriter {
    name: String,
    codec: &'static dyn Codec,
    encoder: Box<dyn ListEncoder>,
    vertices: u64,
    /// Index entries (scratch, until closing) and their Elias-Fano file.
    index: Option<SeqWriter>,
    index_ef: SeqWriter,
    adjacency: SeqWriter,
    weights: Option<SeqWriter>,
    /// Edge starts (scratch, until closing) and their Elias-Fano file.
    starts_entries: Option<SeqWriter>,
    starts: Option<SeqWriter>,
    blocks: Option<SeqWriter>,
    next_vertex: u64,
    current: Option<u64>,
    neighbours: Vec<u64>,
    list_weights: Vec<f32>,
    perm: Vec<usize>,
    arcs: u64,
    /// The most entries of one list so far.
    longest: u64,
    /// Encoded bits not yet written (the open block for blocked codecs).
    pending: BitWriter,
    written_bytes: u64,
    block_first_vertex: u64,
    /// Where the lists' memory is charged as it grows, and what is charged.
    lists_budget: Option<outcore_io::Budget>,
    lists_charge: Vec<outcore_io::Reservation>,
    lists_charged: u64,
}

/// Raw layouts flush their pending bytes at this size.
const RAW_FLUSH_BYTES: usize = 1 << 20;

impl CsrWriter {
    pub fn new(store: &StoreWriter, name: &str, encoding: Encoding, vertices: u64, weighted: bool) -> Result<Self, StoreError> {
        let file = |f: &str, page_sums: bool| if page_sums { store.file_with_page_sums(f) } else { store.file(f) };
        Self::create(store.target(), store.staging_dir(), file, name, encoding, vertices, weighted)
    }

    /// A layout written straight into `dir` (adding a layout to an existing
    /// store; the caller publishes it with the manifest).
    pub fn create_in(dir: &Path, name: &str, encoding: Encoding, vertices: u64, weighted: bool) -> Result<Self, StoreError> {
        let file = |f: &str, page_sums: bool| -> Result<SeqWriter, StoreError> {
            let path = dir.join(f);
            Ok(match page_sums {
                true => SeqWriter::create_with_page_sums(&path, STREAM_CHUNK_BYTES, CHECKSUM_BLOCK_BYTES, &dir.join(page_sums_name(f)))?,
                false => SeqWriter::create(&path, STREAM_CHUNK_BYTES, CHECKSUM_BLOCK_BYTES)?,
            })
        };
        Self::create(dir, dir, file, name, encoding, vertices, weighted)
    }

    /// `file(name, page_sums)` creates a file of the layout, with page
    /// checksums beside it when asked: the files a traversal reads at
    /// random (a raw adjacency, the weights) have them.
    #[allow(clippy::too_many_arguments)]
    fn create(
        target: &Path,
        dir: &Path,
        file: impl Fn(&str, bool) -> Result<SeqWriter, StoreError>,
        name: &str,
        encoding: Encoding,
        vertices: u64,
        weighted: bool,
    ) -> Result<Self, StoreError> {
        let codec = codec_for(encoding);
        if vertices > codec.max_vertices() {
            return Err(StoreError::invalid(
                target,
                format!(
                    "encoding {} holds at most {} vertices, the graph has {vertices} (raw64 holds any number)",
                    encoding.name(),
                    codec.max_vertices()
                ),
            ));
        }
        let scratch = |f: &str| -> Result<SeqWriter, StoreError> { Ok(SeqWriter::scratch(&dir.join(f), STREAM_CHUNK_BYTES)?) };
        let degrees_apart = codec.degree(0, 0).is_none();
        Ok(CsrWriter {
            name: name.to_string(),
            codec,
            encoder: codec.encoder(),
            vertices,
            index: Some(scratch(&format!("{name}.entries"))?),
            index_ef: file(&format!("{name}.ef"), false)?,
            // page checksums for every codec: a random read of a blocked
            // codec's list then reads and checks the pages that hold it
            // (and the lists it may refer to), not its whole block (the
            // block table checks the scans, which decode whole blocks)
            adjacency: file(&format!("{name}.adj"), true)?,
            weights: if weighted { Some(file(&format!("{name}.weights"), true)?) } else { None },
            starts_entries: if degrees_apart {
                let mut starts = scratch(&format!("{name}.starts.entries"))?;
                starts.write_bytes(&0u64.to_le_bytes())?;
                Some(starts)
            } else {
                None
            },
            starts: if degrees_apart { Some(file(&format!("{name}.starts"), false)?) } else { None },
            blocks: if codec.blocked() { Some(file(&format!("{name}.blocks"), false)?) } else { None },
            next_vertex: 0,
            current: None,
            neighbours: Vec::new(),
            list_weights: Vec::new(),
            perm: Vec::new(),
            arcs: 0,
            longest: 0,
            pending: BitWriter::new(),
            written_bytes: 0,
            block_first_vertex: 0,
            lists_budget: None,
            lists_charge: Vec::new(),
            lists_charged: 0,
        })
    }

    /// Memory a writer of a layout in `encoding` holds besides its lists
    /// ([`CsrWriter::list_bytes`]): three chunks for each file it writes
    /// (index entries, Elias-Fano index, adjacency, and as the layout has
    /// them weights, edge starts and their Elias-Fano file, block table),
    /// page checksum writers beside the adjacency and weights, and the
    /// open block or run of bytes (a list's own bits are its list's).
    pub fn buffer_bytes(encoding: Encoding, weighted: bool) -> u64 {
        let codec = codec_for(encoding);
        let degrees_apart = codec.degree(0, 0).is_none();
        let files = 3 + weighted as u64 + 2 * degrees_apart as u64 + codec.blocked() as u64;
        let page_sums = (1 + weighted as u64) * 3 * (64 << 10);
        let open = 2 * if codec.blocked() { BLOCK_TARGET_BYTES } else { RAW_FLUSH_BYTES } as u64;
        files * 3 * STREAM_CHUNK_BYTES as u64 + page_sums + open
    }

    /// Memory of a writer's lists when its longest has `entries`: the list,
    /// its weights and their stored order, what the encoder keeps and the
    /// list's bits (at most 9 bytes an entry), each up to twice as large
    /// as it holds (a vector doubles as it grows).
    pub fn list_bytes(encoding: Encoding, weighted: bool, entries: u64) -> u64 {
        let codec = codec_for(encoding);
        let per_entry = 8 + if weighted { 4 + 8 } else { 0 } + 8 * codec.encoder_lists() + 9;
        2 * entries.saturating_mul(per_entry)
    }

    /// Charge the lists' memory ([`CsrWriter::list_bytes`]) to `budget` as
    /// the longest list written grows: a list that does not fit in what
    /// the budget has left is an error, before it is encoded.
    pub fn charge_lists_to(&mut self, budget: &outcore_io::Budget) {
        self.lists_budget = Some(budget.clone());
    }

    /// Charge what the open list needs, if more than is charged.
    fn charge_list(&mut self) -> Result<(), StoreError> {
        let Some(budget) = &self.lists_budget else {
            return Ok(());
        };
        let need = Self::list_bytes(self.codec.encoding(), self.weights.is_some(), self.neighbours.len() as u64);
        if need > self.lists_charged {
            let what = format!("{} layout: its longest list so far ({} entries)", self.name, self.neighbours.len());
            self.lists_charge.push(budget.reserve(&what, need - self.lists_charged)?);
            self.lists_charged = need;
        }
        Ok(())
    }

    /// Add edge `source -> target`; calls must come sorted by (source, target).
    #[inline]
    pub fn push(&mut self, source: u64, target: u64, weight: f32) -> Result<(), StoreError> {
        if self.current != Some(source) {
            self.flush_list()?;
            debug_assert!(source >= self.next_vertex, "edges out of order");
            self.write_empty_until(source)?;
            self.current = Some(source);
        }
        if self.neighbours.len() == self.neighbours.capacity() && self.lists_budget.is_some() {
            // the list is about to double: charge twice what it holds first
            self.charge_list()?;
            self.neighbours.reserve_exact(self.neighbours.len().max(4));
        }
        self.neighbours.push(target);
        if self.weights.is_some() {
            self.list_weights.push(weight);
        }
        Ok(())
    }

    /// Add all of `source`'s targets at once (ascending; unweighted layouts).
    pub fn push_list(&mut self, source: u64, targets: &[u64]) -> Result<(), StoreError> {
        self.flush_list()?;
        self.write_empty_until(source)?;
        self.current = Some(source);
        self.neighbours.extend_from_slice(targets);
        self.charge_list()?;
        if self.weights.is_some() {
            self.list_weights.resize(targets.len(), 1.0);
        }
        self.flush_list()
    }

    /// The index position of the next list.
    fn position(&self) -> u64 {
        match self.codec.index_unit() {
            IndexUnit::Edges => self.arcs,
            IndexUnit::Bits => self.written_bytes * 8 + self.pending.len(),
        }
    }

    fn write_empty_until(&mut self, vertex: u64) -> Result<(), StoreError> {
        let entry = self.position().to_le_bytes();
        while self.next_vertex < vertex {
            if let Some(index) = &mut self.index {
                index.write_bytes(&entry)?;
            }
            if let Some(starts) = &mut self.starts_entries {
                starts.write_bytes(&self.arcs.to_le_bytes())?;
            }
            self.next_vertex += 1;
        }
        Ok(())
    }

    /// Write the open block (padded to a byte) and its table entry.
    fn close_block(&mut self) -> Result<(), StoreError> {
        self.pending.align();
        if let Some(blocks) = &mut self.blocks {
            let hash = xxhash_rust::xxh3::xxh3_64(self.pending.bytes());
            for x in [self.block_first_vertex, self.written_bytes, hash] {
                blocks.write_bytes(&x.to_le_bytes())?;
            }
        }
        self.adjacency.write_bytes(self.pending.bytes())?;
        self.written_bytes += self.pending.bytes().len() as u64;
        self.pending.clear();
        Ok(())
    }

    fn flush_list(&mut self) -> Result<(), StoreError> {
        let Some(v) = self.current.take() else {
            return Ok(());
        };
        self.longest = self.longest.max(self.neighbours.len() as u64);
        if self.codec.blocked() {
            if self.pending.len() as usize >= BLOCK_TARGET_BYTES * 8 && !self.neighbours.is_empty() {
                self.close_block()?;
                self.block_first_vertex = v;
                self.encoder.start_block();
            }
        } else if self.pending.bytes().len() >= RAW_FLUSH_BYTES {
            self.close_block()?;
        }
        let at = self.position();
        let flags = self.encoder.encode(v, &self.neighbours, &mut self.pending);
        if let Some(index) = &mut self.index {
            index.write_bytes(&(at | flags).to_le_bytes())?;
        }
        self.next_vertex = v + 1;
        if let Some(starts) = &mut self.starts_entries {
            starts.write_bytes(&(self.arcs + self.neighbours.len() as u64).to_le_bytes())?;
        }
        if let Some(w) = &mut self.weights {
            if self.codec.storage_order(v, &self.neighbours, &mut self.perm) {
                for &i in &self.perm {
                    w.write_bytes(&self.list_weights[i].to_le_bytes())?;
                }
            } else {
                for x in &self.list_weights {
                    w.write_bytes(&x.to_le_bytes())?;
                }
            }
        }
        self.arcs += self.neighbours.len() as u64;
        self.neighbours.clear();
        self.list_weights.clear();
        Ok(())
    }

    /// Entries written so far.
    pub fn arcs(&self) -> u64 {
        self.arcs + self.neighbours.len() as u64
    }

    /// Close the files of a [`CsrWriter::create_in`] layout; returns the
    /// layout record, the arcs and each file's name and summary.
    #[allow(clippy::type_complexity)]
    pub fn finish_in(mut self) -> Result<(LayoutRecord, u64, Vec<(String, WriteSummary)>), StoreError> {
        let record = self.close()?;
        let mut files = Vec::new();
        let mut writers = self.writers();
        writers.push(self.index_ef);
        writers.push(self.adjacency);
        for w in writers {
            let summary = w.finish()?;
            files.extend(summary.with_page_sums().map(|s| (s.file_name(), s.clone())));
        }
        Ok((record, self.arcs, files))
    }

    /// The optional files' writers (weights, edge starts, block table).
    fn writers(&mut self) -> Vec<SeqWriter> {
        [self.weights.take(), self.starts.take(), self.blocks.take()].into_iter().flatten().collect()
    }

    fn close(&mut self) -> Result<LayoutRecord, StoreError> {
        self.flush_list()?;
        self.write_empty_until(self.vertices)?;
        let last = self.position();
        self.close_block()?;
        if let Some(mut index) = self.index.take() {
            index.write_bytes(&last.to_le_bytes())?;
            let flag = !self.codec.position(u64::MAX);
            to_elias_fano(index, &mut self.index_ef, EfHeader::plan(self.vertices + 1, self.codec.position(last), flag, last))?;
        }
        if let (Some(entries), Some(ef)) = (self.starts_entries.take(), &mut self.starts) {
            to_elias_fano(entries, ef, EfHeader::plan(self.vertices + 1, self.arcs, 0, self.arcs))?;
        }
        if let Some(blocks) = &mut self.blocks {
            for x in [self.vertices, self.written_bytes, 0] {
                blocks.write_bytes(&x.to_le_bytes())?;
            }
        }
        let name = |f: &Option<SeqWriter>, ext: &str| f.as_ref().map(|_| format!("{}.{ext}", self.name));
        Ok(LayoutRecord {
            encoding: self.codec.encoding(),
            codec_revision: self.codec.revision(),
            index_unit: self.codec.index_unit(),
            index_format: IndexFormat::EliasFano,
            index: format!("{}.ef", self.name),
            adjacency: format!("{}.adj", self.name),
            weights: name(&self.weights, "weights"),
            degrees: self.starts.as_ref().map(|_| format!("{}.starts", self.name)),
            blocks: name(&self.blocks, "blocks"),
            longest_list: Some(self.longest),
            adjacency_pages: Some(page_sums_name(&format!("{}.adj", self.name))),
            weights_pages: self.weights.as_ref().map(|_| page_sums_name(&format!("{}.weights", self.name))),
        })
    }

    /// Close the files; returns the layout record and the number of arcs.
    pub fn finish(mut self, store: &mut StoreWriter) -> Result<(LayoutRecord, u64), StoreError> {
        let record = self.close()?;
        for w in self.writers() {
            store.finish_file(w)?;
        }
        store.finish_file(self.index_ef)?;
        store.finish_file(self.adjacency)?;
        Ok((record, self.arcs))
    }
}
