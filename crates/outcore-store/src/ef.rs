//! A layout's vertex index on disk as an Elias-Fano sequence (store format
//! version 2; Elias 1974, Fano 1971, laid out as in Vigna's quasi-succinct
//! indices, WSDM 2013). Entry v is where vertex v's list starts in the
//! codec's index unit; entries never decrease, so the file costs about
//! 2 + log2(average list length in index units) bits an entry instead of
//! the 64 of format version 1 (CEESOR/RASP item 1 of issue 15). Compressed
//! layouts keep their edge starts (the first edge of each list, which
//! gives degrees and weight offsets) in a second such file.
//!
//! File (little-endian u64 words):
//! - header, [`HEADER_WORDS`] words: magic `OUTCEF01`, entries, max (the
//!   largest position), low width l, the codec's flag mask, the last entry
//!   as written (flags included), low words, high words;
//! - low bits: entry i's lowest l position bits at bit i * l;
//! - high bits: bit (position >> l) + i set for entry i;
//! - flags (codecs with flag bits only): bit i set when entry i carries
//!   the flag (CEESOR marks a self loop in an entry's top bit).
//!
//! [`EfCursor`] reads entries forward (a scan, or skipping to the next
//! wanted vertex for a lookup) through two paged windows, so memory stays
//! at a few buffers whatever the graph's size.

use crate::reader::Window;
use crate::StoreError;
use outcore_io::SeqWriter;
use std::path::{Path, PathBuf};

/// `OUTCEF01` as a little-endian word.
pub const EF_MAGIC: u64 = u64::from_le_bytes(*b"OUTCEF01");
/// Words of the header.
pub const HEADER_WORDS: u64 = 8;
/// Bytes a cursor reads at a time from each section: aligned stretches
/// of the file the size of its checksum blocks, so that each read checks
/// whole blocks on the bytes it read rather than reading them again.
const READ_BYTES: u64 = outcore_io::CHECKSUM_BLOCK_BYTES;

/// An Elias-Fano file's header: its shape, checked against the file's length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EfHeader {
    pub entries: u64,
    pub max: u64,
    pub low_width: u32,
    pub flag: u64,
    pub last: u64,
    pub low_words: u64,
    pub high_words: u64,
}

impl EfHeader {
    /// The header of `entries` positions, the largest `max`, with the
    /// codec's `flag` mask and `last` the final entry as written.
    pub fn plan(entries: u64, max: u64, flag: u64, last: u64) -> Self {
        // sux's choice (EliasFanoBuilder::new), so both agree on the split
        let low_width = if entries > 0 && max >= entries { (max / entries).ilog2() } else { 0 };
        let low_words = (entries as u128 * low_width as u128).div_ceil(64) as u64;
        let mut header = EfHeader { entries, max, low_width, flag, last, low_words, high_words: 0 };
        header.high_words = header.high_bits().div_ceil(64) as u64;
        header
    }

    /// Bits of the high part: one per entry and one per high part up to
    /// the largest's.
    pub fn high_bits(&self) -> u128 {
        self.entries as u128 + (self.max >> self.low_width) as u128 + 1
    }

    /// Words of the flag bitmap (none without flag bits).
    pub fn flag_words(&self) -> u64 {
        if self.flag == 0 {
            0
        } else {
            self.entries.div_ceil(64)
        }
    }

    /// Bytes of the whole file.
    pub fn file_bytes(&self) -> u64 {
        let words = HEADER_WORDS as u128 + self.low_words as u128 + self.high_words as u128 + self.flag_words() as u128;
        (words * 8).min(u64::MAX as u128) as u64
    }

    fn words(&self) -> [u64; HEADER_WORDS as usize] {
        [EF_MAGIC, self.entries, self.max, self.low_width as u64, self.flag, self.last, self.low_words, self.high_words]
    }

    /// Parse and check a header read from `path` (a file of `file_bytes`
    /// bytes that must hold `entries` entries).
    /// The flag mask must be `flag`, the reader's codec's: a damaged one
    /// would set some other bit in every flagged entry.
    fn parse(path: &Path, w: &[u64], file_bytes: u64, entries: u64, flag: u64) -> Result<Self, StoreError> {
        let bad = |why: String| Err(StoreError::invalid(path, why));
        if w[0] != EF_MAGIC {
            return bad("is not an Elias-Fano index (bad magic number)".into());
        }
        if w[1] != entries {
            return bad(format!("holds {} entries, expected {entries}", w[1]));
        }
        if w[4] != flag {
            return bad(format!("has flag mask {:#x}, expected {flag:#x} (corrupt header)", w[4]));
        }
        if w[3] >= 64 || w[5] & !w[4] != w[2] {
            return bad(format!("has a malformed header (low width {}, last entry {} against the largest {})", w[3], w[5], w[2]));
        }
        let header = EfHeader::plan(w[1], w[2], w[4], w[5]);
        if header.low_width as u64 != w[3] || header.low_words != w[6] || header.high_words != w[7] {
            return bad(format!(
                "has a malformed header (low width {} and {} + {} words, where {} entries up to {} need {} and {} + {})",
                w[3], w[6], w[7], w[1], w[2], header.low_width, header.low_words, header.high_words
            ));
        }
        if header.file_bytes() != file_bytes {
            return bad(format!("is {file_bytes} bytes, its header says {} (truncated or padded)", header.file_bytes()));
        }
        Ok(header)
    }
}

/// Packs words into a [`SeqWriter`], lowest bit first.
struct BitPacker<'a> {
    out: &'a mut SeqWriter,
    word: u64,
    used: u32,
    written: u64,
}

impl<'a> BitPacker<'a> {
    fn new(out: &'a mut SeqWriter) -> Self {
        BitPacker { out, word: 0, used: 0, written: 0 }
    }
    /// Append the lowest `width` bits of `value` (`width` < 64).
    fn push(&mut self, value: u64, width: u32) -> Result<(), StoreError> {
        if width == 0 {
            return Ok(());
        }
        self.word |= value << self.used;
        if self.used + width >= 64 {
            self.out.write_bytes(&self.word.to_le_bytes())?;
            self.written += 1;
            let spilled = 64 - self.used;
            self.word = if spilled < 64 { value >> spilled } else { 0 };
            self.used = self.used + width - 64;
        } else {
            self.used += width;
        }
        Ok(())
    }
    /// Set bit `bit` (bits arrive in increasing order).
    fn set(&mut self, bit: u64) -> Result<(), StoreError> {
        while self.written < bit / 64 {
            self.out.write_bytes(&self.word.to_le_bytes())?;
            (self.word, self.written) = (0, self.written + 1);
        }
        self.word |= 1 << (bit % 64);
        self.used = 1;
        Ok(())
    }
    /// Write the open word, then zero words up to `words` in all; more
    /// than `words` (entries that changed between passes over `source`)
    /// is an error.
    fn finish(mut self, words: u64, source: &Path) -> Result<(), StoreError> {
        if self.used > 0 {
            self.out.write_bytes(&self.word.to_le_bytes())?;
            self.written += 1;
        }
        if self.written > words {
            return Err(StoreError::invalid(source, "changed while it was read"));
        }
        while self.written < words {
            self.out.write_bytes(&0u64.to_le_bytes())?;
            self.written += 1;
        }
        Ok(())
    }
}

/// Write an Elias-Fano file to `out` from entries that `pass` produces (in
/// order, as written, flags included; it is called once per section, so
/// it reads a scratch file three times rather than hold the entries).
/// Entries that decrease, pass the header's largest position, end
/// elsewhere than its last entry or number other than its count are an
/// error naming `source`, where they come from.
pub fn write_ef(
    out: &mut SeqWriter,
    header: &EfHeader,
    source: &Path,
    mut pass: impl FnMut(&mut dyn FnMut(u64) -> Result<(), StoreError>) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    for w in header.words() {
        out.write_bytes(&w.to_le_bytes())?;
    }
    let (l, flag) = (header.low_width, header.flag);
    let mask = (1u64 << l) - 1;
    let mut low = BitPacker::new(out);
    let (mut count, mut previous, mut last) = (0u64, 0u64, None);
    pass(&mut |entry| {
        let position = entry & !flag;
        if position < previous || position > header.max || count == header.entries {
            return Err(StoreError::invalid(
                source,
                format!("entry {count} is {position}, outside {previous}..={} or past {} entries", header.max, header.entries),
            ));
        }
        (count, previous, last) = (count + 1, position, Some(entry));
        low.push(position & mask, l)
    })?;
    if count != header.entries || last.unwrap_or(0) != header.last {
        return Err(StoreError::invalid(
            source,
            format!("holds {count} entries ending at {}, expected {} ending at {}", last.unwrap_or(0), header.entries, header.last),
        ));
    }
    low.finish(header.low_words, source)?;
    let mut high = BitPacker::new(out);
    let mut i = 0u64;
    pass(&mut |entry| {
        high.set(((entry & !flag) >> l) + i)?;
        i += 1;
        Ok(())
    })?;
    high.finish(header.high_words, source)?;
    if flag != 0 {
        let mut flags = BitPacker::new(out);
        pass(&mut |entry| flags.push((entry & flag != 0) as u64, 1))?;
        flags.finish(header.flag_words(), source)?;
    }
    Ok(())
}

/// Memory of an [`EfCursor`] over a file of `file_bytes` with flag mask
/// `flag`: for each of its sections (low and high words, and the flags
/// where the mask has bits), a page read, the window's copy of it and the
/// words decoded from it, each at most [`READ_BYTES`] (less for a short
/// file).
pub fn cursor_bytes(file_bytes: u64, flag: u64) -> u64 {
    let sections = if flag == 0 { 2 } else { 3 };
    sections * 3 * file_bytes.clamp(4096, READ_BYTES)
}

/// One section of an Elias-Fano file, read a buffer of words at a time.
struct Section {
    window: Window,
    /// Byte where the section starts.
    start: u64,
    words: u64,
    buf: Vec<u64>,
    buf_first: u64,
}

/// The bytes from `at` (below `end`) to the end of the aligned stretch
/// around it, clipped to `end`: whole checksum blocks, checked on the
/// bytes read.
fn stretch(window: &mut Window, at: u64, end: u64) -> Result<&[u8], StoreError> {
    window.range(at, ((at / READ_BYTES + 1) * READ_BYTES).min(end))
}

impl Section {
    fn new(path: &Path, start: u64, words: u64) -> Result<Self, StoreError> {
        Ok(Section { window: Window::open_paged_reading(path, READ_BYTES as usize)?, start, words, buf: Vec::new(), buf_first: 0 })
    }

    /// Word `k` of the section; `None` past its end.
    #[inline]
    fn word(&mut self, k: u64) -> Result<Option<u64>, StoreError> {
        if k >= self.buf_first && k < self.buf_first + self.buf.len() as u64 {
            return Ok(Some(self.buf[(k - self.buf_first) as usize]));
        }
        if k >= self.words {
            return Ok(None);
        }
        let bytes = stretch(&mut self.window, self.start + k * 8, self.start + self.words * 8)?;
        self.buf.clear();
        self.buf.extend(bytes.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())));
        self.buf_first = k;
        Ok(Some(self.buf[0]))
    }
}

impl Section {
    /// Every word of the section, in order, read in the aligned stretches
    /// [`Self::word`] reads (so each checks whole checksum blocks).
    fn read_all(&mut self) -> Result<Vec<u64>, StoreError> {
        let mut words = Vec::with_capacity(self.words as usize);
        let end = self.start + self.words * 8;
        let mut at = self.start;
        while at < end {
            let bytes = stretch(&mut self.window, at, end)?;
            at += bytes.len() as u64;
            words.extend(bytes.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())));
        }
        Ok(words)
    }
}

/// Reads an Elias-Fano file's entries in increasing order, checking each
/// as it goes (a malformed file is an error naming it, never a panic).
pub struct EfCursor {
    path: PathBuf,
    header: EfHeader,
    low: Section,
    high: Section,
    flags: Option<Section>,
    /// Index of the next entry [`Self::next_entry`] decodes.
    next: u64,
    /// The next high word to load; the current one's first bit and its
    /// ones not yet consumed.
    high_next: u64,
    high_base: u64,
    ones: u64,
    /// The entry decoded last (index, entry as written).
    last: Option<(u64, u64)>,
    /// Bytes the header's read took.
    header_read: u64,
    previous_position: u64,
}

impl EfCursor {
    /// Open `path`, which must hold `entries` entries with flag mask
    /// `flag` (the codec's flag bits for an index, 0 for edge starts).
    pub fn open(path: &Path, entries: u64, flag: u64) -> Result<Self, StoreError> {
        let mut header_window = Window::open_paged(path)?;
        let file_bytes = header_window.len();
        if file_bytes < HEADER_WORDS * 8 {
            return Err(StoreError::invalid(path, format!("is {file_bytes} bytes, shorter than an Elias-Fano header")));
        }
        let words: Vec<u64> =
            header_window.range(0, HEADER_WORDS * 8)?.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect();
        let header = EfHeader::parse(path, &words, file_bytes, entries, flag)?;
        let header_read = header_window.bytes_read();
        let low_start = HEADER_WORDS * 8;
        let high_start = low_start + header.low_words * 8;
        let flags_start = high_start + header.high_words * 8;
        Ok(EfCursor {
            path: path.to_path_buf(),
            low: Section::new(path, low_start, header.low_words)?,
            high: Section::new(path, high_start, header.high_words)?,
            flags: if header.flag != 0 { Some(Section::new(path, flags_start, header.flag_words())?) } else { None },
            header,
            next: 0,
            high_next: 0,
            high_base: 0,
            ones: 0,
            last: None,
            previous_position: 0,
            header_read,
        })
    }

    /// Bytes read from the file so far, the header's read included.
    pub fn bytes_read(&self) -> u64 {
        self.header_read
            + self.low.window.bytes_read()
            + self.high.window.bytes_read()
            + self.flags.as_ref().map_or(0, |f| f.window.bytes_read())
    }

    pub fn header(&self) -> &EfHeader {
        &self.header
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Entry `i` as written (flags included); `i` never decreases between
    /// calls.
    #[inline]
    pub fn entry(&mut self, i: u64) -> Result<u64, StoreError> {
        if let Some((at, entry)) = self.last {
            if at == i {
                return Ok(entry);
            }
        }
        if i < self.next {
            return Err(StoreError::invalid(&self.path, format!("read entry {i} after entry {} (reads go forward)", self.next - 1)));
        }
        if i >= self.header.entries {
            return Err(StoreError::invalid(&self.path, format!("has no entry {i} ({} entries)", self.header.entries)));
        }
        if i > self.next {
            self.skip(i - self.next)?;
        }
        self.next_entry()
    }

    /// Call `f` with every entry from the first (as written, flags
    /// included), decoding a word of upper bits at a time: what loading a
    /// whole index costs, a few nanoseconds an entry. Checked as
    /// [`Self::entry`] checks. Only on a cursor nothing was read from.
    pub fn for_each(&mut self, mut f: impl FnMut(u64) -> Result<(), StoreError>) -> Result<(), StoreError> {
        if self.next != 0 || self.high_next != 0 {
            return Err(StoreError::invalid(&self.path, "read whole after a partial read"));
        }
        let EfHeader { entries, max, low_width, flag, last, high_words, .. } = self.header;
        let l = low_width;
        let mask = if l == 0 { 0 } else { u64::MAX >> (64 - l) };
        // the low bits, taken l at a time from a 64-bit buffer
        let (mut low_word, mut acc, mut avail) = (0u64, 0u64, 0u32);
        let (mut i, mut previous, mut entry) = (0u64, 0u64, 0u64);
        let mut flag_word = 0u64;
        let corrupt = |i: u64, position: u64, previous: u64| {
            StoreError::invalid(&self.path, format!("entry {i} is {position}, outside {previous}..={max} (corrupt index)"))
        };
        'words: for k in 0..high_words {
            let Some(mut ones) = self.high.word(k)? else { break };
            while ones != 0 {
                if i == entries {
                    break 'words;
                }
                let high = (k * 64 + ones.trailing_zeros() as u64).checked_sub(i).ok_or_else(|| corrupt(i, 0, previous))?;
                ones &= ones - 1;
                let low = if l == 0 {
                    0
                } else if avail >= l {
                    let x = acc & mask;
                    (acc, avail) = (if l < 64 { acc >> l } else { 0 }, avail - l);
                    x
                } else {
                    let next = self.low.word(low_word)?.ok_or_else(|| StoreError::invalid(&self.path, "its lower bits end early"))?;
                    low_word += 1;
                    let x = (acc | next << avail) & mask;
                    (acc, avail) = (if avail == 0 { next >> l } else { next >> (l - avail) }, 64 - (l - avail));
                    x
                };
                let position = (high << l) | low;
                if position > max || position < previous {
                    return Err(corrupt(i, position, previous));
                }
                let flagged = match &mut self.flags {
                    Some(flags) => {
                        if i % 64 == 0 {
                            flag_word = flags.word(i / 64)?.ok_or_else(|| StoreError::invalid(&self.path, "its flag bits end early"))?;
                        }
                        flag_word >> (i % 64) & 1 == 1
                    }
                    None => false,
                };
                entry = position | if flagged { flag } else { 0 };
                f(entry)?;
                (previous, i) = (position, i + 1);
            }
        }
        if i != entries {
            self.next = i;
            return Err(self.ends_early());
        }
        if entry != last {
            return Err(StoreError::invalid(&self.path, format!("its last entry is {entry}, the header says {last} (corrupt index)")));
        }
        self.next = entries;
        self.last = Some((entries - 1, entry));
        self.high_next = high_words;
        Ok(())
    }

    /// The low bits whole, as the file's words (entry i's at bit i * l,
    /// lowest first), and the last entry's low part: for a loader that
    /// keeps the file's split as it is. [`Self::read_high_words`] and
    /// [`Self::check_last_entry`] complete the checks that make the words a
    /// sequence of the header's shape; only on a cursor nothing was read
    /// from.
    pub fn read_low_words(&mut self) -> Result<(Vec<u64>, u64), StoreError> {
        self.whole_read_only()?;
        let words = self.low.read_all()?;
        let (n, l) = (self.header.entries, self.header.low_width as u64);
        let last_low = if n == 0 || l == 0 {
            0
        } else {
            let bit = (n - 1) * l;
            let (k, offset) = ((bit / 64) as usize, bit % 64);
            let mut low = words[k] >> offset;
            if offset + l > 64 {
                low |= words[k + 1] << (64 - offset);
            }
            low & (u64::MAX >> (64 - l))
        };
        Ok((words, last_low))
    }

    /// The high bits whole, as the file's words (bit (position >> l) + i
    /// set for entry i), checked to hold one set bit per entry and none
    /// past the sequence's bits: high parts that never decrease, at most
    /// max's (the loader checks the order of the low parts within one).
    /// Returns them and the last entry's high part.
    pub fn read_high_words(&mut self) -> Result<(Vec<u64>, u64), StoreError> {
        self.whole_read_only()?;
        let words = self.high.read_all()?;
        let entries = self.header.entries;
        let ones: u64 = words.iter().map(|w| w.count_ones() as u64).sum();
        if ones != entries {
            return Err(StoreError::invalid(
                &self.path,
                format!("its upper bits mark {ones} entries, the header says {entries} (corrupt index)"),
            ));
        }
        let tail = (self.header.high_bits() % 64) as u32;
        if tail != 0 && words.last().is_some_and(|&w| w >> tail != 0) {
            return Err(StoreError::invalid(&self.path, "has upper bits set past its last possible entry (corrupt index)"));
        }
        // the last one marks the last entry: its bit less the entries before it
        let last_high = match words.iter().rposition(|&w| w != 0) {
            Some(k) => (k as u64 * 64 + 63 - words[k].leading_zeros() as u64) - (entries - 1),
            None => 0,
        };
        Ok((words, last_high))
    }

    /// The flag bits whole (none for a file without flags).
    pub fn read_flag_words(&mut self) -> Result<Vec<u64>, StoreError> {
        self.whole_read_only()?;
        match &mut self.flags {
            Some(flags) => flags.read_all(),
            None => Ok(Vec::new()),
        }
    }

    /// The last entry, from its parts read whole, is the header's: then
    /// every entry (they never decrease) is at most the header's largest.
    pub fn check_last_entry(&self, last_low: u64, last_high: u64, flag_words: &[u64]) -> Result<(), StoreError> {
        let EfHeader { entries, low_width, flag, last, .. } = self.header;
        if entries == 0 {
            return Ok(());
        }
        let flagged = flag != 0 && flag_words.get(((entries - 1) / 64) as usize).is_some_and(|w| w >> ((entries - 1) % 64) & 1 == 1);
        let position = last_high.checked_shl(low_width).filter(|p| p >> low_width == last_high).map(|p| p | last_low);
        let entry = position.map(|p| p | if flagged { flag } else { 0 });
        if entry != Some(last) {
            return Err(StoreError::invalid(
                &self.path,
                format!(
                    "its last entry is {}, the header says {last} (corrupt index)",
                    entry.map_or("past 2^64".to_string(), |e| e.to_string())
                ),
            ));
        }
        Ok(())
    }

    fn whole_read_only(&self) -> Result<(), StoreError> {
        if self.next != 0 || self.high_next != 0 {
            return Err(StoreError::invalid(&self.path, "read whole after a partial read"));
        }
        Ok(())
    }

    fn ends_early(&self) -> StoreError {
        StoreError::invalid(&self.path, format!("its upper bits end before entry {} of {}", self.next, self.header.entries))
    }

    /// Load the next high word while the current one's ones are used up.
    #[inline]
    fn fill(&mut self) -> Result<(), StoreError> {
        while self.ones == 0 {
            match self.high.word(self.high_next)? {
                Some(w) => (self.ones, self.high_base) = (w, self.high_next * 64),
                None => return Err(self.ends_early()),
            }
            self.high_next += 1;
        }
        Ok(())
    }

    /// Pass over `count` entries without decoding them (a lookup's skip:
    /// a popcount a word of upper bits).
    fn skip(&mut self, mut count: u64) -> Result<(), StoreError> {
        while count > 0 {
            self.fill()?;
            let here = self.ones.count_ones() as u64;
            if here <= count {
                count -= here;
                self.next += here;
                self.ones = 0;
            } else {
                for _ in 0..count {
                    self.ones &= self.ones - 1;
                }
                self.next += count;
                count = 0;
            }
        }
        // the positions skipped were not decoded, but entries never
        // decrease: the next one is still checked against the last read
        Ok(())
    }

    /// Decode entry `self.next`.
    #[inline]
    fn next_entry(&mut self) -> Result<u64, StoreError> {
        self.fill()?;
        let i = self.next;
        let bit = self.high_base + self.ones.trailing_zeros() as u64;
        self.ones &= self.ones - 1;
        let l = self.header.low_width as u64;
        let high = bit.checked_sub(i).ok_or_else(|| self.ends_early())?;
        let low = if l == 0 {
            0
        } else {
            let (k, offset) = ((i * l) / 64, (i * l) % 64);
            let w0 = self.low.word(k)?.ok_or_else(|| self.ends_early())?;
            let mut low = w0 >> offset;
            if offset + l > 64 {
                let w1 = self.low.word(k + 1)?.ok_or_else(|| self.ends_early())?;
                low |= w1 << (64 - offset);
            }
            low & ((1 << l) - 1)
        };
        let position = (high << l) | low;
        if position > self.header.max || position < self.previous_position {
            return Err(StoreError::invalid(
                &self.path,
                format!("entry {i} is {position}, outside {}..={} (corrupt index)", self.previous_position, self.header.max),
            ));
        }
        let flagged = match &mut self.flags {
            Some(f) => f.word(i / 64)?.ok_or_else(|| StoreError::invalid(&self.path, "its flag bits end early"))? >> (i % 64) & 1 == 1,
            None => false,
        };
        let entry = position | if flagged { self.header.flag } else { 0 };
        if i + 1 == self.header.entries && entry != self.header.last {
            return Err(StoreError::invalid(
                &self.path,
                format!("its last entry is {entry}, the header says {} (corrupt index)", self.header.last),
            ));
        }
        self.previous_position = position;
        self.next = i + 1;
        self.last = Some((i, entry));
        Ok(entry)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Write `entries` as an Elias-Fano file under `dir` and return its path.
    fn write(dir: &Path, entries: &[u64], flag: u64) -> PathBuf {
        let path = dir.join("x.ef");
        let max = entries.iter().map(|e| e & !flag).max().unwrap_or(0);
        let header = EfHeader::plan(entries.len() as u64, max, flag, entries.last().copied().unwrap_or(0));
        let mut out = SeqWriter::scratch(&path, 1 << 16).unwrap();
        write_ef(&mut out, &header, &path, |f| entries.iter().try_for_each(|&e| f(e))).unwrap();
        out.finish().unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), header.file_bytes());
        path
    }

    fn index_of(lengths: &[(u64, bool)], flag: u64) -> Vec<u64> {
        let mut at = 0;
        let mut entries: Vec<u64> = lengths
            .iter()
            .map(|&(len, flagged)| {
                let entry = at | if flagged { flag } else { 0 };
                at += len;
                entry
            })
            .collect();
        entries.push(at);
        entries
    }

    proptest! {
        /// Reading every entry, or skipping to chosen ones, gives the
        /// plain vector's values, with empty lists anywhere (both ends
        /// included), lists long enough for a low width near 20, and flags.
        #[test]
        fn entries_equal_a_plain_vector(
            lengths in proptest::collection::vec((prop_oneof![Just(0u64), 0u64..5, 0u64..1_000_000], any::<bool>()), 0..3000),
            flags in any::<bool>(),
            stride in 1usize..200,
        ) {
            let _bound = outcore_io::bound::watch("entries_equal_a_plain_vector");
            let flag = if flags { 1 << 63 } else { 0 };
            let lengths: Vec<(u64, bool)> = lengths.into_iter().map(|(l, f)| (l, f && flags)).collect();
            let entries = index_of(&lengths, flag);
            let dir = tempfile::tempdir().unwrap();
            let path = write(dir.path(), &entries, flag);
            let mut all = EfCursor::open(&path, entries.len() as u64, flag).unwrap();
            for (i, &x) in entries.iter().enumerate() {
                prop_assert_eq!(all.entry(i as u64).unwrap(), x);
                prop_assert_eq!(all.entry(i as u64).unwrap(), x, "asked twice");
            }
            let mut whole = Vec::new();
            EfCursor::open(&path, entries.len() as u64, flag).unwrap().for_each(|x| { whole.push(x); Ok(()) }).unwrap();
            prop_assert_eq!(&whole, &entries);
            let mut some = EfCursor::open(&path, entries.len() as u64, flag).unwrap();
            for i in (stride / 2..entries.len()).step_by(stride) {
                prop_assert_eq!(some.entry(i as u64).unwrap(), entries[i]);
            }
        }
    }

    #[test]
    fn a_wrong_count_a_backward_read_and_corrupt_bits_are_errors() {
        let _bound = outcore_io::bound::watch("a_wrong_count_a_backward_read_and_corrupt_bits_are_errors");
        let dir = tempfile::tempdir().unwrap();
        let entries: Vec<u64> = (0..1000u64).map(|i| i * 37).collect();
        let path = write(dir.path(), &entries, 0);
        let err = EfCursor::open(&path, 999, 0).err().unwrap().to_string();
        assert!(err.contains("x.ef") && err.contains("holds 1000 entries, expected 999"), "{err}");
        let mut c = EfCursor::open(&path, 1000, 0).unwrap();
        assert_eq!(c.entry(10).unwrap(), 370);
        let err = c.entry(5).err().unwrap().to_string();
        assert!(err.contains("reads go forward"), "{err}");
        // a truncated file
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 8]).unwrap();
        let err = EfCursor::open(&path, 1000, 0).err().unwrap().to_string();
        assert!(err.contains("truncated"), "{err}");
        // upper bits cleared: the entries run out
        let mut cleared = bytes.clone();
        let high_start = (HEADER_WORDS as usize + EfHeader::plan(1000, 999 * 37, 0, 999 * 37).low_words as usize) * 8;
        for b in &mut cleared[high_start..] {
            *b = 0;
        }
        std::fs::write(&path, &cleared).unwrap();
        let mut c = EfCursor::open(&path, 1000, 0).unwrap();
        let err = c.entry(0).err().unwrap().to_string();
        assert!(err.contains("upper bits end before entry 0"), "{err}");
        // the last entry's low bits flipped: it disagrees with the header (a
        // flip elsewhere can decode to other monotone entries: the store's
        // block checksums catch those before a cursor reads them)
        let mut flipped = bytes.clone();
        let bit = 999 * 5 + 3;
        flipped[HEADER_WORDS as usize * 8 + bit / 8] ^= 1 << (bit % 8);
        std::fs::write(&path, &flipped).unwrap();
        let mut c = EfCursor::open(&path, 1000, 0).unwrap();
        assert_eq!(c.entry(998).unwrap(), entries[998]);
        let err = c.entry(999).err().unwrap().to_string();
        assert!(err.contains("corrupt index"), "{err}");
        // a flag mask other than the reader's
        let err = EfCursor::open(&path, 1000, 1 << 63).err().unwrap().to_string();
        assert!(err.contains("flag mask 0x0, expected 0x8000000000000000"), "{err}");
        // the magic number
        let mut magic = bytes;
        magic[0] ^= 1;
        std::fs::write(&path, &magic).unwrap();
        let err = EfCursor::open(&path, 1000, 0).err().unwrap().to_string();
        assert!(err.contains("bad magic"), "{err}");
    }

    /// Found by the ef-file fuzzer: a lookup that skips entries checked
    /// the next one against 0, so an entry whose low bits were damaged
    /// could read below one read before the skip.
    #[test]
    fn an_entry_below_one_read_before_a_skip_is_an_error() {
        let _bound = outcore_io::bound::watch("an_entry_below_one_read_before_a_skip_is_an_error");
        let dir = tempfile::tempdir().unwrap();
        // groups of four consecutive positions: entries 8..12 share their upper bits
        let entries: Vec<u64> = (0..1000u64).map(|i| (i / 4) * 148 + i % 4).collect();
        let path = write(dir.path(), &entries, 0);
        let header = EfHeader::plan(1000, *entries.last().unwrap(), 0, *entries.last().unwrap());
        let l = header.low_width as usize;
        assert_eq!(l, 5);
        let mut c = EfCursor::open(&path, 1000, 0).unwrap();
        assert_eq!((c.entry(9).unwrap(), c.entry(11).unwrap()), (297, 299));
        // entry 11's low bits cleared: 288, below entry 9's 297
        let mut bytes = std::fs::read(&path).unwrap();
        for bit in 11 * l..12 * l {
            bytes[HEADER_WORDS as usize * 8 + bit / 8] &= !(1 << (bit % 8));
        }
        std::fs::write(&path, &bytes).unwrap();
        let mut c = EfCursor::open(&path, 1000, 0).unwrap();
        assert_eq!(c.entry(9).unwrap(), 297);
        let err = c.entry(11).err().unwrap().to_string();
        assert!(err.contains("entry 11 is 288") && err.contains("corrupt index"), "{err}");
    }
}
