//! Opening a store and scanning its layouts sequentially in bounded memory.

use crate::{codec_for, Codec, IdMap, LayoutRecord, Manifest, StoreError, STREAM_CHUNK_BYTES};
use outcore_io::{hash_file_blocks, Budget, ChecksumMismatch, SeqReader};
use std::path::{Path, PathBuf};

/// An opened, complete store.
pub struct Store {
    dir: PathBuf,
    manifest: Manifest,
}

impl Store {
    /// Open the store at `dir`: the manifest must exist and every file it
    /// lists must be present with the recorded size.
    pub fn open(dir: &Path) -> Result<Self, StoreError> {
        let manifest = Manifest::read(dir)?;
        for (name, rec) in &manifest.files {
            let path = dir.join(name);
            match std::fs::metadata(&path) {
                Ok(m) if m.len() == rec.bytes => {}
                Ok(m) => {
                    return Err(StoreError::invalid(&path, format!("is {} bytes, manifest says {} (store damaged)", m.len(), rec.bytes)))
                }
                Err(_) => return Err(StoreError::invalid(&path, "missing (store damaged)")),
            }
        }
        Ok(Store { dir: dir.to_path_buf(), manifest })
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
        let record = self.manifest.layouts.get(name).ok_or_else(|| {
            StoreError::invalid(
                &self.dir,
                format!(
                    "has no '{name}' layout (it has: {}); add it with: outcore layout add STORE {name}",
                    self.manifest.layouts.keys().cloned().collect::<Vec<_>>().join(", ")
                ),
            )
        })?;
        Ok(Layout { dir: self.dir.clone(), record: record.clone(), codec: codec_for(record.encoding), vertices: self.manifest.vertices })
    }

    pub fn id_map(&self, budget: &Budget) -> Result<IdMap, StoreError> {
        IdMap::load(&self.dir, &self.manifest.id_map, self.manifest.id_base, self.manifest.vertices, budget)
    }

    /// Bytes on disk of each layout (index + adjacency + weights).
    pub fn layout_bytes(&self, name: &str) -> u64 {
        let Some(l) = self.manifest.layouts.get(name) else {
            return 0;
        };
        [Some(&l.index), Some(&l.adjacency), l.weights.as_ref()]
            .into_iter()
            .flatten()
            .filter_map(|f| self.manifest.files.get(f))
            .map(|r| r.bytes)
            .sum()
    }

    /// Re-hash every file and compare with the manifest.
    pub fn verify(&self) -> Vec<(String, Result<(), ChecksumMismatch>)> {
        self.manifest
            .files
            .iter()
            .map(|(name, rec)| {
                let path = self.dir.join(name);
                let result = rec
                    .to_hashes(&path)
                    .map_err(|e| ChecksumMismatch::Io(outcore_io::IoError::new(&path, "manifest", std::io::Error::other(e.to_string()))))
                    .and_then(|expected| {
                        hash_file_blocks(&path, rec.block_bytes)
                            .map_err(ChecksumMismatch::from)
                            .and_then(|actual| actual.check_against(&expected))
                    });
                (name.clone(), result)
            })
            .collect()
    }
}

/// One CSR layout of a store.
pub struct Layout {
    dir: PathBuf,
    record: LayoutRecord,
    codec: &'static dyn Codec,
    vertices: u64,
}

impl Layout {
    pub fn record(&self) -> &LayoutRecord {
        &self.record
    }
    pub fn codec(&self) -> &'static dyn Codec {
        self.codec
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

    /// Stream every vertex's list in order; memory is a few I/O chunks plus
    /// the longest list.
    pub fn scan(&self) -> Result<AdjacencyScan, StoreError> {
        Ok(AdjacencyScan {
            codec: self.codec,
            vertices: self.vertices,
            index: Window::open(&self.index_path())?,
            adjacency: Window::open(&self.adjacency_path())?,
            weights: match self.weights_path() {
                Some(p) => Some(Window::open(&p)?),
                None => None,
            },
            vertex: 0,
            edge_position: 0,
            neighbours: Vec::new(),
            list_weights: Vec::new(),
        })
    }

    /// Call `f(v, degree)` for every vertex, reading only the index when the
    /// codec can tell degrees from it.
    pub fn for_each_degree(&self, mut f: impl FnMut(u64, u64)) -> Result<(), StoreError> {
        let mut degrees = self.degrees()?;
        for v in 0..self.vertices {
            f(v, degrees.next_degree()?);
        }
        Ok(())
    }

    /// Degrees in vertex order, one at a time.
    pub fn degrees(&self) -> Result<DegreeScan, StoreError> {
        Ok(if self.codec.degree(0, 0).is_some() {
            DegreeScan::Index { codec: self.codec, index: Window::open(&self.index_path())?, vertex: 0, vertices: self.vertices }
        } else {
            DegreeScan::Lists(self.scan()?)
        })
    }
}

/// Degrees of a layout in vertex order ([`Layout::degrees`]).
pub enum DegreeScan {
    Index { codec: &'static dyn Codec, index: Window, vertex: u64, vertices: u64 },
    Lists(AdjacencyScan),
}

impl DegreeScan {
    /// The degree of the next vertex (an error past the last one).
    pub fn next_degree(&mut self) -> Result<u64, StoreError> {
        match self {
            DegreeScan::Index { codec, index, vertex, vertices } => {
                if *vertex >= *vertices {
                    return Err(StoreError::invalid(index.reader.path(), "read past the last vertex"));
                }
                let lo = index.u64_at(*vertex * 8)?;
                let hi = index.u64_at(*vertex * 8 + 8)?;
                *vertex += 1;
                codec.degree(lo, hi).filter(|_| hi >= lo).ok_or_else(|| {
                    StoreError::invalid(index.reader.path(), format!("index decreases at vertex {} ({lo} > {hi})", *vertex - 1))
                })
            }
            DegreeScan::Lists(scan) => match scan.next_list()? {
                Some((_, n, _)) => Ok(n.len() as u64),
                None => Err(StoreError::invalid(scan.index.reader.path(), "read past the last vertex")),
            },
        }
    }
}

/// A forward-only window over a file read with [`SeqReader`].
pub struct Window {
    reader: SeqReader,
    buf: Vec<u8>,
    start: u64,
}

impl Window {
    fn open(path: &Path) -> Result<Self, StoreError> {
        Ok(Window { reader: SeqReader::open(path, STREAM_CHUNK_BYTES)?, buf: Vec::new(), start: 0 })
    }

    /// Bytes `lo..hi` of the file; `lo` never goes backwards between calls.
    fn range(&mut self, lo: u64, hi: u64) -> Result<&[u8], StoreError> {
        debug_assert!(lo >= self.start);
        let drop = (lo - self.start) as usize;
        if drop > 0 && drop >= self.buf.len() / 2 {
            self.buf.drain(..drop.min(self.buf.len()));
            self.start += drop as u64;
        }
        while self.start + (self.buf.len() as u64) < hi {
            match self.reader.next_chunk()? {
                Some(chunk) => self.buf.extend_from_slice(chunk),
                None => {
                    return Err(StoreError::invalid(
                        self.reader.path(),
                        format!("ends at byte {}, expected at least {hi} bytes (truncated)", self.start + self.buf.len() as u64),
                    ))
                }
            }
        }
        let off = (lo - self.start) as usize;
        Ok(&self.buf[off..off + (hi - lo) as usize])
    }

    fn u64_at(&mut self, byte: u64) -> Result<u64, StoreError> {
        Ok(u64::from_le_bytes(self.range(byte, byte + 8)?.try_into().unwrap()))
    }
}

/// Sequential scan of a layout, one vertex at a time.
pub struct AdjacencyScan {
    codec: &'static dyn Codec,
    vertices: u64,
    index: Window,
    adjacency: Window,
    weights: Option<Window>,
    vertex: u64,
    edge_position: u64,
    neighbours: Vec<u64>,
    list_weights: Vec<f32>,
}

impl AdjacencyScan {
    /// The next vertex, its neighbours and (if the layout has them) weights.
    #[allow(clippy::type_complexity)]
    pub fn next_list(&mut self) -> Result<Option<(u64, &[u64], &[f32])>, StoreError> {
        if self.vertex >= self.vertices {
            return Ok(None);
        }
        let v = self.vertex;
        let lo = self.index.u64_at(v * 8)?;
        let hi = self.index.u64_at(v * 8 + 8)?;
        if hi < lo {
            return Err(StoreError::invalid(self.index.reader.path(), format!("index decreases at vertex {v} ({lo} > {hi})")));
        }
        let (b0, b1) = self.codec.byte_range(lo, hi);
        self.neighbours.clear();
        let bytes = self.adjacency.range(b0, b1)?;
        self.codec
            .decode(v, lo, hi, bytes, &mut self.neighbours)
            .map_err(|e| StoreError::invalid(self.adjacency.reader.path(), format!("vertex {v}: {e}")))?;
        if let Some(vs) = self.neighbours.iter().find(|&&n| n >= self.vertices) {
            return Err(StoreError::invalid(
                self.adjacency.reader.path(),
                format!("vertex {v} has neighbour {vs} >= {} vertices", self.vertices),
            ));
        }
        self.list_weights.clear();
        let n = self.neighbours.len() as u64;
        if let Some(w) = &mut self.weights {
            let bytes = w.range(self.edge_position * 4, (self.edge_position + n) * 4)?;
            self.list_weights.extend(bytes.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())));
        }
        self.edge_position += n;
        self.vertex += 1;
        Ok(Some((v, &self.neighbours, &self.list_weights)))
    }
}
