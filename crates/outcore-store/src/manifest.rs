//! `manifest.json`: what a store holds and the checksums of every file.

use crate::{Encoding, IndexUnit, StoreError};
use outcore_io::BlockHashes;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

pub const FORMAT_NAME: &str = "outcore-store";
/// Version 2 keeps each layout's index (and a compressed layout's edge
/// starts) as Elias-Fano ([`IndexFormat::EliasFano`]); version 1 stores,
/// whose indexes are u64 arrays, still open as they are. Version 3 may
/// hold gapref layouts of revision 2 ([`LayoutRecord::codec_revision`]),
/// which outcore before it would misread; versions 1 and 2 open as they are.
pub const FORMAT_VERSION: u32 = 3;
/// The oldest store format version this outcore reads.
pub const OLDEST_FORMAT_VERSION: u32 = 1;
/// The most vertices a store may claim (index files of 2 PiB).
pub const MAX_VERTICES: u64 = 1 << 48;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Manifest {
    pub format: String,
    pub version: u32,
    pub vertices: u64,
    /// Edges of the graph: arcs if directed, undirected edges (a self loop
    /// once) if not.
    pub edges: u64,
    /// Entries of the `out` adjacency (each undirected non-loop edge twice).
    pub arcs: u64,
    pub self_loops: u64,
    pub directed: bool,
    pub weighted: bool,
    /// `identity` (original id = dense id) or `sorted` (file `idmap`: the
    /// original ids, ascending, one u64 LE per dense id).
    pub id_map: String,
    /// With `identity`: original id = dense id + `id_base` (1 for METIS and
    /// Matrix Market, whose ids start at 1).
    #[serde(default)]
    pub id_base: u64,
    /// Layout name (`out`, `in`) to its files and encoding.
    pub layouts: BTreeMap<String, LayoutRecord>,
    /// Every file of the store with its size and checksums.
    pub files: BTreeMap<String, FileRecord>,
    /// How the store was made (input, format, flags): informational.
    #[serde(default)]
    pub provenance: BTreeMap<String, String>,
    /// The G-Store tile layout, if built (`outcore layout add STORE tiles`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tiles: Option<TilesRecord>,
    /// NETALX's in-memory neighbours, stored (`outcore layout add STORE hot`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hot: Option<HotRecord>,
    /// Users and items of a ratings graph (`import --bipartite`,
    /// `generate ratings`): dense ids `0..users` are the users, the rest
    /// the items. Item `i` has original id [`ITEM_ID_BASE`]` + i`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bipartite: Option<BipartiteRecord>,
}

/// The original id of item 0 in a bipartite store (2^62): users keep their
/// ids, items are named `ITEM_ID_BASE + id`, so the two sides never meet
/// and every user sorts before every item.
pub const ITEM_ID_BASE: u64 = 1 << 62;

/// The two sides of a bipartite store.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct BipartiteRecord {
    pub users: u64,
    pub items: u64,
}

/// NETALX's hot lists (Iwabuchi, thesis section 3.4.3): per vertex its
/// first K neighbours in the `source` layout, highest degree first (ties:
/// the smaller id), stored column by column. Column j holds, as u32 LE and
/// in vertex order, the j-th of them for every vertex whose list has more
/// than j entries; a run loads the first columns its budget allows.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct HotRecord {
    /// The layout sampled: `in` of a directed store, `out` of a symmetric one.
    pub source: String,
    /// xxh3 of the source's adjacency file when the lists were built: a
    /// rebuilt source makes them stale, and readers then ignore them.
    pub source_xxh3: String,
    pub columns: Vec<HotColumn>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct HotColumn {
    pub file: String,
    /// Vertices whose list is longer than the column's number.
    pub entries: u64,
}

/// Most hot columns a store may hold.
pub const MAX_HOT_COLUMNS: usize = 64;

/// G-Store tiles (Kumar & Huang, SC'16): vertices in spans of
/// 2^`span_bits`; tile (i, j) holds the edges from span i to span j as
/// pairs of 16-bit local ids (4 bytes an edge), only i <= j's upper
/// triangle for undirected graphs; tiles stored in q x q groups, group-
/// major then row-major inside a group; a sparse index of the non-empty
/// tiles gives each tile's first edge.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct TilesRecord {
    pub span_bits: u32,
    /// Tiles per group side (q).
    pub group: u32,
    /// Spans per side (p = ceil(V / 2^span_bits)).
    pub spans: u64,
    /// Edges stored (each undirected edge once).
    pub edges: u64,
    /// Non-empty tiles.
    pub tiles: u64,
    pub upper_triangle: bool,
    /// u16 LE (source, target) local-id pairs, tile after tile.
    pub data: String,
    /// Per non-empty tile, in storage order: u32 LE i, u32 LE j, u64 LE
    /// first edge; then a final u64 LE edge count.
    pub index: String,
    /// f32 LE weights in the order of `data` (weighted stores).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weights: Option<String>,
}

fn first_revision() -> u32 {
    1
}
fn is_first_revision(revision: &u32) -> bool {
    *revision == 1
}

impl LayoutRecord {
    /// Every file of the layout.
    pub fn files(&self) -> impl Iterator<Item = &String> {
        [
            Some(&self.index),
            Some(&self.adjacency),
            self.weights.as_ref(),
            self.degrees.as_ref(),
            self.blocks.as_ref(),
            self.adjacency_pages.as_ref(),
            self.weights_pages.as_ref(),
        ]
        .into_iter()
        .flatten()
    }
}

/// How a layout's index is stored.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum IndexFormat {
    /// Format version 1: `NAME.index`, a u64 LE entry per vertex plus the
    /// end; compressed layouts keep `NAME.degrees`, a u32 LE per vertex.
    #[default]
    U64,
    /// Format version 2: `NAME.ef`, Elias-Fano ([`crate::ef`]); compressed
    /// layouts keep `NAME.starts`, each list's first edge, Elias-Fano too.
    EliasFano,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct LayoutRecord {
    pub encoding: Encoding,
    /// The revision of the encoding's format ([`crate::codec_at`]); absent
    /// when 1. Gapref layouts written since format version 3 are revision
    /// 2 (each list's residuals as zeta gaps or Elias-Fano).
    #[serde(default = "first_revision", skip_serializing_if = "is_first_revision")]
    pub codec_revision: u32,
    pub index_unit: IndexUnit,
    /// Absent in version 1 manifests, which only know u64 indexes.
    #[serde(default)]
    pub index_format: IndexFormat,
    pub index: String,
    pub adjacency: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weights: Option<String>,
    /// For codecs whose index does not give degrees: u32 LE degree per
    /// vertex ([`IndexFormat::U64`]), or each list's first edge as
    /// Elias-Fano ([`IndexFormat::EliasFano`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub degrees: Option<String>,
    /// Block table of blocked (compressed) codecs: per block u64 LE first
    /// vertex, first byte and xxh3-64 of its bytes; then (vertices, bytes, 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocks: Option<String>,
    /// The most entries of one list (absent in stores written before it
    /// was recorded: readers then find it by a pass over the degrees).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub longest_list: Option<u64>,
    /// Page checksums of a raw layout's adjacency: the xxh3-64 of every
    /// 4 KiB page, u64 LE each, so that a random read is checked against
    /// the page it read rather than a whole checksum block (absent in
    /// stores written before them, and in compressed layouts, whose block
    /// table checks each block it decodes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adjacency_pages: Option<String>,
    /// Page checksums of the weights, as for the adjacency.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weights_pages: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct FileRecord {
    pub bytes: u64,
    /// xxh3-64 of the whole file, 16 hex digits.
    pub xxh3: String,
    pub block_bytes: u64,
    /// xxh3-64 of each `block_bytes` block.
    pub blocks: Vec<String>,
}

impl FileRecord {
    pub fn from_hashes(h: &BlockHashes) -> Self {
        FileRecord {
            bytes: h.bytes,
            xxh3: format!("{:016x}", h.file),
            block_bytes: h.block_bytes,
            blocks: h.blocks.iter().map(|b| format!("{b:016x}")).collect(),
        }
    }
    pub fn to_hashes(&self, path: &Path) -> Result<BlockHashes, StoreError> {
        let parse = |s: &str| u64::from_str_radix(s, 16).map_err(|_| StoreError::invalid(path, format!("bad checksum '{s}' in manifest")));
        Ok(BlockHashes {
            bytes: self.bytes,
            block_bytes: self.block_bytes,
            file: parse(&self.xxh3)?,
            blocks: self.blocks.iter().map(|b| parse(b)).collect::<Result<_, _>>()?,
        })
    }
}

impl Manifest {
    /// Replace `dir/manifest.json` atomically (write, fsync, rename, fsync dir).
    pub fn write_atomic(&self, dir: &Path) -> Result<(), StoreError> {
        use outcore_io::IoContext;
        use std::io::Write;
        let json = serde_json::to_string_pretty(self).expect("manifest serializes");
        let tmp = dir.join("manifest.json.tmp");
        let fin = dir.join("manifest.json");
        let mut f = std::fs::File::create(&tmp).ctx(&tmp, "create")?;
        f.write_all(json.as_bytes()).ctx(&tmp, "write")?;
        f.sync_all().ctx(&tmp, "fsync")?;
        std::fs::rename(&tmp, &fin).ctx(&fin, "rename")?;
        std::fs::File::open(dir).and_then(|d| d.sync_all()).ctx(dir, "fsync directory")?;
        Ok(())
    }

    pub fn read(dir: &Path) -> Result<Self, StoreError> {
        let path = dir.join("manifest.json");
        if !dir.is_dir() {
            return Err(StoreError::invalid(dir, "no such store directory"));
        }
        if std::fs::symlink_metadata(&path).is_ok_and(|m| !m.file_type().is_file()) {
            return Err(StoreError::invalid(&path, "is not a regular file (a link or a directory); a store holds only its own files"));
        }
        if let Ok(m) = std::fs::symlink_metadata(&path) {
            if m.len() > MAX_MANIFEST_BYTES {
                return Err(StoreError::invalid(
                    &path,
                    format!("is {} bytes, more than any manifest needs ({MAX_MANIFEST_BYTES}); the store is damaged or crafted", m.len()),
                ));
            }
        }
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(StoreError::invalid(dir, "not a complete outcore store (no manifest.json); re-run the import"))
            }
            Err(e) => return Err(outcore_io::IoError::new(&path, "read", e).into()),
        };
        let m: Manifest = serde_json::from_str(&text).map_err(|e| StoreError::invalid(&path, format!("line {}: {e}", e.line())))?;
        if m.format != FORMAT_NAME {
            return Err(StoreError::invalid(&path, format!("format is '{}', expected '{FORMAT_NAME}'", m.format)));
        }
        if !(OLDEST_FORMAT_VERSION..=FORMAT_VERSION).contains(&m.version) {
            return Err(StoreError::invalid(
                &path,
                format!(
                    "store format version {} is not supported (this outcore reads versions {OLDEST_FORMAT_VERSION} to {FORMAT_VERSION})",
                    m.version
                ),
            ));
        }
        if let Some((name, _)) = m.layouts.iter().find(|(_, r)| m.version < 2 && r.index_format != IndexFormat::U64) {
            return Err(StoreError::invalid(&path, format!("layout {name} has an Elias-Fano index in a version {} store", m.version)));
        }
        for (name, r) in &m.layouts {
            if crate::codec_at(r.encoding, r.codec_revision).is_none() || m.version < 3 && r.codec_revision > 1 {
                return Err(StoreError::invalid(
                    &path,
                    format!(
                        "layout {name} is {} revision {}, which this outcore does not read in a version {} store",
                        r.encoding.name(),
                        r.codec_revision,
                        m.version
                    ),
                ));
            }
        }
        for (what, name) in m.named_files() {
            if !is_plain_file_name(name) {
                return Err(StoreError::invalid(
                    &path,
                    format!(
                        "{what} is named {name:?}, which is not a plain file name inside the store; the manifest is damaged or crafted"
                    ),
                ));
            }
        }
        m.check_sizes(&path)?;
        Ok(m)
    }

    /// The counts agree with the file sizes the manifest records, in
    /// checked arithmetic, before anything is allocated or read from them
    /// (a manifest claiming 2^60 vertices is an error, not an allocation).
    fn check_sizes(&self, path: &Path) -> Result<(), StoreError> {
        let bad = |why: String| StoreError::invalid(path, format!("{why}; the manifest is damaged or crafted"));
        if self.files.len() > MAX_FILES || self.layouts.len() > MAX_FILES {
            return Err(bad(format!("it lists {} files and {} layouts", self.files.len(), self.layouts.len())));
        }
        for (name, f) in &self.files {
            if name.len() > 255 {
                return Err(bad(format!("a file name is {} bytes long", name.len())));
            }
            if f.block_bytes < 4096 || f.block_bytes > 1 << 30 || !f.block_bytes.is_power_of_two() {
                return Err(bad(format!("{name} has checksum blocks of {} bytes", f.block_bytes)));
            }
            let blocks = f.bytes.div_ceil(f.block_bytes).max(1);
            if f.blocks.len() as u64 != blocks {
                return Err(bad(format!("{name} ({} bytes) has {} block checksums, not {blocks}", f.bytes, f.blocks.len())));
            }
            if let Some(h) = std::iter::once(&f.xxh3).chain(&f.blocks).find(|h| h.len() != 16 || !h.bytes().all(|b| b.is_ascii_hexdigit()))
            {
                return Err(bad(format!("{name} has a checksum {h:?}, not 16 hex digits")));
            }
        }
        if self.vertices > MAX_VERTICES {
            return Err(bad(format!("it claims {} vertices, more than any store holds (2^48)", self.vertices)));
        }
        let size = |name: &String, what: &str| {
            self.files.get(name).map(|f| f.bytes).ok_or_else(|| bad(format!("{what} {name} is not in its list of files")))
        };
        let expect = |name: &String, what: &str, count: u64, width: u64| -> Result<(), StoreError> {
            let want = count.checked_mul(width).ok_or_else(|| bad(format!("{what} {name} would need {count} x {width} bytes")))?;
            let have = size(name, what)?;
            if have != want {
                return Err(bad(format!("{what} {name} holds {have} bytes, {count} entries of {width} bytes need {want}")));
            }
            Ok(())
        };
        for (layout, r) in &self.layouts {
            match r.index_format {
                IndexFormat::U64 => {
                    expect(&r.index, &format!("the index of layout {layout}"), self.vertices + 1, 8)?;
                    if let Some(d) = &r.degrees {
                        expect(d, &format!("the degrees of layout {layout}"), self.vertices, 4)?;
                    }
                }
                IndexFormat::EliasFano => {
                    // a header, then at most 63 low, 3 high and 1 flag bits an entry
                    let most = (self.vertices + 1) * 9 + 128;
                    for (name, what) in std::iter::once((&r.index, "index")).chain(r.degrees.as_ref().map(|d| (d, "edge starts"))) {
                        let have = size(name, &format!("the {what} of layout {layout}"))?;
                        if !(64..=most).contains(&have) {
                            return Err(bad(format!(
                                "the {what} {name} of layout {layout} holds {have} bytes, not an Elias-Fano file of {} entries",
                                self.vertices + 1
                            )));
                        }
                    }
                }
            }
            match r.encoding {
                Encoding::Raw32 => expect(&r.adjacency, &format!("the adjacency of layout {layout}"), self.arcs, 4)?,
                Encoding::Raw64 => expect(&r.adjacency, &format!("the adjacency of layout {layout}"), self.arcs, 8)?,
                Encoding::Ceesor | Encoding::Gapref => {
                    size(&r.adjacency, &format!("the adjacency of layout {layout}"))?;
                }
            }
            if let Some(w) = &r.weights {
                expect(w, &format!("the weights of layout {layout}"), self.arcs, 4)?;
            }
            for (file, pages, what) in
                [(Some(&r.adjacency), &r.adjacency_pages, "adjacency"), (r.weights.as_ref(), &r.weights_pages, "weights")]
            {
                if let Some(p) = pages {
                    let file = file.ok_or_else(|| bad(format!("layout {layout} has page checksums {p} of weights it does not have")))?;
                    let count = size(file, &format!("the {what} of layout {layout}"))?.div_ceil(outcore_io::PAGE_BYTES as u64).max(1);
                    expect(p, &format!("the page checksums of the {what} of layout {layout}"), count, 8)?;
                }
            }
        }
        if self.id_map != "identity" {
            expect(&"idmap".to_string(), "the id map", self.vertices, 8)?;
        }
        if let Some(t) = &self.tiles {
            if t.span_bits == 0 || t.span_bits > 16 || t.group == 0 {
                return Err(bad(format!("its tiles have span bits {} and groups of {}", t.span_bits, t.group)));
            }
            if t.spans != self.vertices.div_ceil(1 << t.span_bits) {
                return Err(bad(format!("its tiles claim {} spans for {} vertices of 2^{}", t.spans, self.vertices, t.span_bits)));
            }
            expect(&t.data, "the tile data", t.edges, 4)?;
            expect(&t.index, "the tile index", t.tiles.checked_add(1).and_then(|x| x.checked_mul(2)).unwrap_or(u64::MAX) - 1, 8)?;
            if let Some(w) = &t.weights {
                expect(w, "the tile weights", t.edges, 4)?;
            }
        }
        if let Some(b) = &self.bipartite {
            if b.users.checked_add(b.items) != Some(self.vertices) || self.directed {
                return Err(bad(format!("its {} users and {} items are not its {} vertices, undirected", b.users, b.items, self.vertices)));
            }
        }
        if let Some(h) = &self.hot {
            if h.columns.len() > MAX_HOT_COLUMNS || !self.layouts.contains_key(&h.source) {
                return Err(bad(format!("its hot lists have {} columns sampled from layout {:?}", h.columns.len(), h.source)));
            }
            let mut above = self.vertices;
            for (j, c) in h.columns.iter().enumerate() {
                if c.entries > above {
                    return Err(bad(format!("hot column {j} holds {} entries, more than column {} ({above})", c.entries, j.max(1) - 1)));
                }
                above = c.entries;
                expect(&c.file, &format!("hot column {j}"), c.entries, 4)?;
            }
        }
        Ok(())
    }

    /// Every file name the manifest gives, with what names it.
    fn named_files(&self) -> Vec<(String, &String)> {
        let mut names: Vec<(String, &String)> = self.files.keys().map(|f| ("a file of the checksum list".to_string(), f)).collect();
        for (layout, record) in &self.layouts {
            names.extend(record.files().map(|f| (format!("a file of layout {layout}"), f)));
        }
        if let Some(t) = &self.tiles {
            names.extend(
                [Some(&t.data), Some(&t.index), t.weights.as_ref()].into_iter().flatten().map(|f| ("a file of the tiles".to_string(), f)),
            );
        }
        if let Some(h) = &self.hot {
            names.extend(h.columns.iter().map(|c| ("a hot column".to_string(), &c.file)));
        }
        names
    }
}

/// Largest `manifest.json` read: with 1 MiB checksum blocks, about 3 TB of files.
pub const MAX_MANIFEST_BYTES: u64 = 64 << 20;

/// Most files (and layouts) a manifest may list.
const MAX_FILES: usize = 1024;

/// A name a store may give its files: one path component, inside the store
/// directory (no separator, no `.` or `..`, not hidden, no NUL).
pub fn is_plain_file_name(name: &str) -> bool {
    !name.is_empty() && !name.starts_with('.') && !name.contains(['/', '\\', '\0'])
}

#[cfg(test)]
mod tests {
    use super::is_plain_file_name;

    #[test]
    fn only_plain_names_inside_the_store_are_accepted() {
        for good in ["out.adj", "idmap", "tiles-g0.edges", "in.index"] {
            assert!(is_plain_file_name(good), "{good}");
        }
        for bad in ["", ".", "..", "../x", "/etc/passwd", "a/b", ".outcore-1-x", "a\\b", "a\0b"] {
            assert!(!is_plain_file_name(bad), "{bad:?}");
        }
    }
}
