//! `gapref`: the stronger code, after WebGraph's BV format (Boldi & Vigna,
//! "The WebGraph Framework I", sections 3-4), restricted to blocks so that
//! one block read answers any of its vertices.
//!
//! A non-empty list of vertex v is, in bits:
//! 1. the reference r in unary (0: none; else the list of v - r, one of
//!    the previous [`WINDOW`] lists of the same block, chains at most
//!    [`MAX_CHAIN`] deep, chosen by the encoder as the cheapest);
//! 2. if r > 0, copy blocks: their count, then the alternating copy/skip
//!    run lengths over the referenced list (gamma); the last run is implied;
//! 3. the intervals of the remaining ids: runs of at least [`MIN_INTERVAL`]
//!    consecutive ids, as (left, length) with gamma codes, the first left
//!    relative to v, later ones as gaps;
//! 4. the residuals, up to the end of the list's bits: the degree is not
//!    stored in the stream (the layout stores degrees beside it). The
//!    first is a zeta_3 code relative to v (zig-zag), the rest zeta_3
//!    gaps; or, in revision 2 (format version 3) when that, the mark
//!    included, takes at most [`ELIAS_FANO_SLACK`] more bits (an eighth),
//!    an Elias-Fano sequence (their count less one in
//!    gamma, the low-part width in 6 bits, then
//!    [`BitWriter::write_elias_fano`]) of each residual after the first
//!    less the first and its rank. The mark is the reference coded as
//!    r + [`WINDOW`] + 1, 8 bits more, so lists that keep zeta gaps (most
//!    of a web graph's) cost what they did in revision 1. A zeta gap waits
//!    for the one before it (about 10 cycles a code); the Elias-Fano
//!    values do not, and on graphs without locality (Kronecker) they are
//!    shorter too.

use crate::bits::{elias_fano_len, gamma0_len, unzigzag, zeta0_len, zigzag, BitReader, BitWriter};
use crate::codec::{Codec, Encoding, IndexUnit, ListDecoder, ListEncoder, ListSource};
use multiversion::multiversion;

/// The gapref codec of one revision (see the module comment).
pub struct Gapref {
    revision: u32,
}

/// Revision 2, which this outcore writes.
pub static GAPREF: Gapref = Gapref { revision: 2 };
/// Revision 1: residuals as zeta gaps only (stores of format versions 1
/// and 2).
pub static GAPREF_ZETA_ONLY: Gapref = Gapref { revision: 1 };

/// How far back a list may refer.
pub const WINDOW: u64 = 7;
/// The longest chain of references a decoder follows.
pub const MAX_CHAIN: u8 = 3;
/// Shorter runs of consecutive ids are coded as residuals.
pub const MIN_INTERVAL: u64 = 4;
const ZETA_K: u32 = 3;
const SLOTS: usize = 8;

impl Codec for Gapref {
    fn encoding(&self) -> Encoding {
        Encoding::Gapref
    }
    fn revision(&self) -> u32 {
        self.revision
    }
    fn index_unit(&self) -> IndexUnit {
        IndexUnit::Bits
    }
    fn max_vertices(&self) -> u64 {
        u64::MAX
    }
    fn blocked(&self) -> bool {
        true
    }
    fn byte_range(&self, lo: u64, hi: u64) -> (u64, u64) {
        (lo / 8, hi.div_ceil(8))
    }
    fn degree(&self, _lo: u64, _hi: u64) -> Option<u64> {
        None
    }
    fn encoder(&self) -> Box<dyn ListEncoder> {
        Box::new(GaprefEncoder {
            recent: vec![(u64::MAX, Vec::new(), 0); SLOTS],
            scratch: BitWriter::new(),
            extras: Vec::new(),
            runs: Vec::new(),
            spans: Vec::new(),
            residuals: Vec::new(),
            mark_residuals: self.revision >= 2,
        })
    }
    fn encoder_lists(&self) -> u64 {
        // the recent lists; the extras, their runs and spans (two words
        // each); the residuals less the first and their ranks; the
        // encoding being tried (at most a word an entry)
        SLOTS as u64 + 6
    }
    fn reference_reach(&self) -> u64 {
        // a reference reaches WINDOW lists back, and a chain MAX_CHAIN references
        WINDOW * MAX_CHAIN as u64
    }
    fn decoder_lists(&self) -> u64 {
        // the recent lists and three scratch lists
        SLOTS as u64 + 3
    }
    fn decoder_lists_in_flight(&self) -> u64 {
        // the list and the chain of lists it refers to, and the three
        // scratch lists
        MAX_CHAIN as u64 + 1 + 3
    }
    fn decoder(&self) -> Box<dyn ListDecoder> {
        Box::new(GaprefDecoder::new(self.revision >= 2))
    }
}

struct GaprefEncoder {
    /// Recent lists of the block by vertex % SLOTS: (vertex, list, chain depth).
    recent: Vec<(u64, Vec<u64>, u8)>,
    scratch: BitWriter,
    extras: Vec<u64>,
    runs: Vec<u64>,
    /// Maximal runs of consecutive ids in `extras`, as index ranges.
    spans: Vec<(usize, usize)>,
    /// The residuals after the first, each less the first and its rank.
    residuals: Vec<u64>,
    /// Revision 2: a list's residuals may be Elias-Fano, marked in its reference.
    mark_residuals: bool,
}

impl ListEncoder for GaprefEncoder {
    fn start_block(&mut self) {
        for slot in &mut self.recent {
            slot.0 = u64::MAX;
        }
    }

    fn encode(&mut self, vertex: u64, neighbours: &[u64], out: &mut BitWriter) -> u64 {
        if neighbours.is_empty() {
            return 0;
        }
        let mut best = (u64::MAX, 0u64, 0u8);
        for r in 0..=WINDOW.min(vertex) {
            let depth = if r == 0 {
                0
            } else {
                let (u, ref list, d) = self.recent[((vertex - r) % SLOTS as u64) as usize];
                if u != vertex - r || list.is_empty() || d >= MAX_CHAIN {
                    continue;
                }
                d + 1
            };
            self.scratch.clear();
            self.encode_with(vertex, neighbours, r, 0);
            if self.scratch.len() < best.0 {
                best = (self.scratch.len(), r, depth);
            }
        }
        // the reference is chosen by the shortest code; its residuals then
        // take Elias-Fano within the slack
        self.scratch.clear();
        self.encode_with(vertex, neighbours, best.1, ELIAS_FANO_SLACK);
        out.append(&self.scratch);
        let slot = &mut self.recent[(vertex % SLOTS as u64) as usize];
        slot.0 = vertex;
        slot.1.clear();
        slot.1.extend_from_slice(neighbours);
        slot.2 = best.2;
        0
    }
}

impl GaprefEncoder {
    /// The list of `vertex` with reference `r` into `scratch`, its
    /// residuals as Elias-Fano when that takes at most a `slack`th more
    /// bits than zeta gaps (0: no more).
    fn encode_with(&mut self, vertex: u64, neighbours: &[u64], r: u64, slack: u64) {
        self.extras.clear();
        if r == 0 {
            self.extras.extend_from_slice(neighbours);
        } else {
            let reference = &self.recent[((vertex - r) % SLOTS as u64) as usize].1;
            // copy/skip runs over the referenced list, starting with copy
            self.runs.clear();
            let (mut copying, mut run, mut j) = (true, 0u64, 0usize);
            for &x in reference {
                while j < neighbours.len() && neighbours[j] < x {
                    self.extras.push(neighbours[j]);
                    j += 1;
                }
                let present = j < neighbours.len() && neighbours[j] == x;
                if present {
                    j += 1;
                }
                if present != copying {
                    self.runs.push(run);
                    copying = present;
                    run = 0;
                }
                run += 1;
            }
            self.extras.extend_from_slice(&neighbours[j..]);
        }
        let extras = &self.extras;
        self.spans.clear();
        let mut i = 0;
        while i < extras.len() {
            let mut j = i + 1;
            while j < extras.len() && extras[j] == extras[j - 1] + 1 {
                j += 1;
            }
            self.spans.push((i, j));
            i = j;
        }
        let is_interval = |&(i, j): &(usize, usize)| (j - i) as u64 >= MIN_INTERVAL;
        let mut residuals = self.spans.iter().filter(|s| !is_interval(s)).flat_map(|&(i, j)| &extras[i..j]);
        let first = residuals.next().copied();
        self.residuals.clear();
        if let Some(first) = first {
            self.residuals.extend(residuals.enumerate().map(|(rank, &x)| x - first - 1 - rank as u64));
        }
        let ef = self.mark_residuals.then(|| elias_fano_plan(&self.residuals, WINDOW + 1, slack)).flatten();
        // the reference, past the window when the residuals are Elias-Fano
        let w = &mut self.scratch;
        w.write_unary(if ef.is_some() { WINDOW + 1 + r } else { r });
        if r > 0 {
            w.write_gamma0(self.runs.len() as u64);
            for (i, &len) in self.runs.iter().enumerate() {
                w.write_gamma0(if i == 0 { len } else { len - 1 });
            }
        }
        // intervals, then residuals
        w.write_gamma0(self.spans.iter().filter(|s| is_interval(s)).count() as u64);
        let mut prev_right = None::<u64>;
        for &(i, j) in self.spans.iter().filter(|s| is_interval(s)) {
            match prev_right {
                None => w.write_gamma0(zigzag(extras[i] as i128 - vertex as i128)),
                Some(p) => w.write_gamma0(extras[i] - p - 2),
            }
            w.write_gamma0((j - i) as u64 - MIN_INTERVAL);
            prev_right = Some(extras[j - 1]);
        }
        let Some(first) = first else { return };
        w.write_zeta0(zigzag(first as i128 - vertex as i128), ZETA_K);
        match ef {
            Some(low_bits) => {
                w.write_gamma0(self.residuals.len() as u64 - 1);
                w.write(low_bits as u64, 6);
                w.write_elias_fano(&self.residuals, low_bits);
            }
            None => {
                // a residual less the first and its rank is the sum of the gaps less one before it
                let mut before = 0;
                for &y in &self.residuals {
                    w.write_zeta0(y - before, ZETA_K);
                    before = y;
                }
            }
        }
    }
}

/// How much longer than zeta gaps the residuals of a list may be as
/// Elias-Fano and still take it: by a part in this many (the reference is
/// chosen first, by the shortest code). They decode several times faster
/// (no code waits for the one before it): on Graph500 Kronecker scale 22
/// in degree order, an eighth took 2.2 % more bits and decoded 1.12 times
/// as fast as taking the shorter (a quarter: 10.8 % more bits); on
/// cnr-2000, 0.17 % more bits, its total still under WebGraph BV's.
const ELIAS_FANO_SLACK: u64 = 8;

/// The width of the low parts that makes `values` (residuals less the
/// first and their ranks, non-decreasing) shortest as Elias-Fano, if that
/// and the `mark` bits that say so take at most their zeta_3 gaps' bits
/// and a `slack`th more (0: no more).
fn elias_fano_plan(values: &[u64], mark: u64, slack: u64) -> Option<u32> {
    let &last = values.last()?;
    let (low_bits, ef) =
        (0..=56).map(|l| (l, elias_fano_len(values.len() as u64, last, l))).min_by_key(|&(_, bits)| bits).expect("a width");
    // the count less one, the width in 6 bits, the mark
    let ef = ef + gamma0_len(values.len() as u64 - 1) + 6 + mark;
    let mut before = 0;
    let zeta: u64 = values
        .iter()
        .map(|&y| {
            let gap = y - before;
            before = y;
            zeta0_len(gap, ZETA_K)
        })
        .sum();
    (ef <= zeta + zeta.checked_div(slack).unwrap_or(0)).then_some(low_bits)
}

struct GaprefDecoder {
    /// Recently decoded lists by vertex % SLOTS: (vertex, list).
    recent: Vec<(u64, Vec<u64>)>,
    copied: Vec<u64>,
    extras: Vec<u64>,
    /// Copied ids and intervals merged, before they join the residuals.
    merged: Vec<u64>,
    /// Revision 2: a reference past the window marks Elias-Fano residuals.
    marked_residuals: bool,
    /// Which of the last 64 lists decoded for the caller referred to
    /// another (bit 0 the last). While [`KEEP_AT_REFERENCES`] or more did,
    /// each list is kept in its slot for the next to refer to; otherwise
    /// it goes straight to the caller, saving a copy, and a rare
    /// reference to it decodes it again.
    referred: u64,
    /// How many bits of `referred` are set (kept as it shifts: a count of
    /// ones is a dozen instructions on CPUs without `popcnt`, once a list).
    referring: u32,
}

/// See [`GaprefDecoder::referred`]: web graphs refer in most lists and keep
/// every one; Kronecker graphs refer in about one in sixty and keep none.
/// A list decoded again costs some ten copies of it.
const KEEP_AT_REFERENCES: u32 = 6;

impl GaprefDecoder {
    fn new(marked_residuals: bool) -> Self {
        GaprefDecoder {
            marked_residuals,
            recent: vec![(u64::MAX, Vec::new()); SLOTS],
            copied: Vec::new(),
            extras: Vec::new(),
            merged: Vec::new(),
            referred: u64::MAX,
            referring: 64,
        }
    }
}

impl ListDecoder for GaprefDecoder {
    fn decode(&mut self, vertex: u64, lo: u64, hi: u64, src: &ListSource, out: &mut Vec<u64>) -> Result<(), String> {
        self.decode_prefix(vertex, lo, hi, src, usize::MAX, out)
    }
    /// A list kept for the next to refer to is decoded whole; one that is
    /// not, only up to its `limit`-th residual.
    fn decode_prefix(&mut self, vertex: u64, lo: u64, hi: u64, src: &ListSource, limit: usize, out: &mut Vec<u64>) -> Result<(), String> {
        if lo == hi && src.holds_bit(lo) {
            // an empty list (two in five of a Kronecker graph's): no bits
            // to read, kept as any list would be
            let slot = (vertex % SLOTS as u64) as usize;
            if self.referring >= KEEP_AT_REFERENCES {
                self.recent[slot].0 = vertex;
                self.recent[slot].1.clear();
            }
            out.clear();
            self.remember(false);
            return Ok(());
        }
        let slot = (vertex % SLOTS as u64) as usize;
        if self.referring < KEEP_AT_REFERENCES && self.recent[slot].0 != vertex {
            let referred = self.decode_list(vertex, lo, hi, src, 0, limit, out)?;
            self.remember(referred);
            return Ok(());
        }
        let referred = self.decode_into_slot(vertex, lo, hi, src, 0)?;
        self.remember(referred);
        out.clear();
        let list = &self.recent[slot].1;
        out.extend_from_slice(&list[..list.len().min(limit)]);
        Ok(())
    }
    fn release_above(&mut self, entries: usize) {
        for (vertex, list) in &mut self.recent {
            if list.capacity() > entries {
                *vertex = u64::MAX;
                *list = Vec::new();
            }
        }
        for scratch in [&mut self.copied, &mut self.extras, &mut self.merged] {
            if scratch.capacity() > entries {
                *scratch = Vec::new();
            }
        }
    }
}

/// Merge two strictly ascending lists into `out` (appended); an id in both
/// is an impossible code.
#[inline]
fn merge(a: &[u64], b: &[u64], out: &mut Vec<u64>) -> Result<(), &'static str> {
    // exactly: the decoder's charge counts entries, not a doubling's spare room
    out.reserve_exact(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i] < b[j] {
            out.push(a[i]);
            i += 1;
        } else if a[i] > b[j] {
            out.push(b[j]);
            j += 1;
        } else {
            return Err("impossible code: neighbours repeat");
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    Ok(())
}

/// Insert the strictly ascending `ids` into the strictly ascending `list`,
/// from the back: an id above the list's rest takes its place with one
/// comparison (a web graph's copied ids, with few residuals among them),
/// an id below some of it moves that run at once (a random graph's few
/// copied ids among many residuals), and the list below the smallest id
/// stays where it is. An id already in the list is an impossible code.
fn insert_ascending(list: &mut Vec<u64>, ids: &[u64]) -> Result<(), &'static str> {
    if ids.is_empty() {
        // most lists of a graph without locality: nothing copied, no intervals
        return Ok(());
    }
    let mut below = list.len();
    list.reserve_exact(ids.len());
    list.resize(below + ids.len(), 0);
    for (left, &id) in ids.iter().enumerate().rev() {
        if below == 0 {
            list[..=left].copy_from_slice(&ids[..=left]);
            break;
        }
        if list[below - 1] < id {
            list[below + left] = id;
            continue;
        }
        let at = list[..below].partition_point(|&x| x < id);
        if at < below && list[at] == id {
            return Err("impossible code: neighbours repeat");
        }
        // list[at..below] is above `id` and every id after it: it moves up
        // by one place for each id from `id` on
        list.copy_within(at..below, at + left + 1);
        list[at + left] = id;
        below = at;
    }
    Ok(())
}

/// The residuals after the first, to the end of the list: zeta_3 gaps, each
/// id the last plus the gap plus one, below `vertices`. Most of a random
/// graph's bits are here, so the codes are read in runs of up to
/// [`GAP_RUN`] by [`BitReader::read_short_zeta0_gaps`] (no end check per
/// code), which turns them into ids as it goes, with one check for the
/// run: the gaps are under 2^56, so a run rises by under 2^62, and its ids
/// ascend, so if its last id is inside the graph and not below the one
/// before the run (it did not wrap), all are. A code longer than 56 bits,
/// and one within 8 bytes of the block's end, take the general path.
///
/// Compiled twice, chosen at run time: for x86 with LZCNT and BMI2 (a
/// count of leading zeros without a zero check, shifts by any register
/// in one instruction: the steps each code's length waits for) and for
/// any CPU.
#[multiversion(targets("x86_64+bmi1+bmi2+lzcnt+popcnt"))]
fn read_residual_gaps(bits: &mut BitReader, mut x: u64, vertices: u64, out: &mut Vec<u64>) -> Result<(), String> {
    let mut ids = [0u64; GAP_RUN];
    loop {
        let run = bits.read_short_zeta0_gaps(ZETA_K, x, &mut ids);
        if run > 0 {
            let ids = &ids[..run];
            let last = ids[run - 1];
            // a run rises by under 2^62: it wrapped if it ends below `x`
            if last < x || last >= vertices {
                // the general check names the residual that leaves the graph
                for &id in ids {
                    x = next_residual(x, id.wrapping_sub(x).wrapping_sub(1), vertices)?;
                }
            }
            out.extend_from_slice(ids);
            x = last;
            continue;
        }
        if bits.only_padding_left() {
            return Ok(());
        }
        x = next_residual(x, bits.read_zeta0(ZETA_K)?, vertices)?;
        out.push(x);
    }
}

/// [`read_residual_gaps`] up to the `limit`-th id of `out` (which holds
/// the first): code by code, each checked as it is read.
fn read_residual_gaps_up_to(bits: &mut BitReader, mut x: u64, vertices: u64, limit: usize, out: &mut Vec<u64>) -> Result<(), String> {
    while out.len() < limit && !bits.only_padding_left() {
        x = next_residual(x, bits.read_zeta0(ZETA_K)?, vertices)?;
        out.push(x);
    }
    Ok(())
}

/// How many zeta gaps [`read_residual_gaps`] reads before it turns them
/// into ids.
const GAP_RUN: usize = 64;

/// `first` and the residuals after it, an Elias-Fano sequence (see the
/// module comment), as the whole of `out`: each is `first` plus its rank
/// plus one plus its value, and the last is below `vertices` (the values
/// do not descend, so the others are too). Nothing but padding may follow.
/// With a `limit` below the residuals' count, only the first `limit` are
/// read (and checked).
fn read_residual_sequence(bits: &mut BitReader, first: u64, vertices: u64, limit: usize, out: &mut Vec<u64>) -> Result<(), String> {
    let count = bits.read_gamma0()?.checked_add(1).ok_or("impossible code: residual count")?;
    let low_bits = bits.read(6)? as u32;
    if count > bits.remaining() {
        return Err(format!("impossible code: {count} residuals in {} bits", bits.remaining()));
    }
    // a prefix of `limit` ids (at least `first`) needs `read` residuals;
    // what `out` held is overwritten, not cleared first (zeroing it cost
    // as much as a tenth of the sequence)
    let read = count.min(limit.max(1) as u64 - 1);
    let whole = read == count;
    out.resize(1 + read as usize, 0);
    out[0] = first;
    let last = if whole {
        bits.read_elias_fano(low_bits, first + 1, &mut out[1..])?
    } else {
        bits.read_elias_fano_prefix(low_bits, first + 1, count, &mut out[1..])?
    };
    // `first` is below `vertices`, so one more fits; every residual is
    // below the last read, so if it is inside the graph nothing wrapped
    let last = first as u128 + read as u128 + last as u128;
    if read > 0 && last >= vertices as u128 {
        return Err(format!("impossible code: residual {last} outside the graph"));
    }
    if whole && !bits.only_padding_left() {
        return Err(format!("impossible code: {} bits after the residuals", bits.remaining()));
    }
    Ok(())
}

/// The residual after `x` with `gap`: x + gap + 1, below `vertices`.
#[inline(always)]
fn next_residual(x: u64, gap: u64, vertices: u64) -> Result<u64, String> {
    x.checked_add(gap)
        .and_then(|y| y.checked_add(1))
        .filter(|&y| y < vertices)
        .ok_or_else(|| format!("impossible code: residual {x} + {gap} + 1 outside the graph"))
}

impl GaprefDecoder {
    /// Count the list just decoded for the caller in `referred`, and the
    /// one 64 lists before it out.
    #[inline]
    fn remember(&mut self, referred: bool) {
        self.referring = self.referring + referred as u32 - (self.referred >> 63) as u32;
        self.referred = self.referred << 1 | referred as u64;
    }

    /// Decode `vertex`'s list into its slot, unless the slot holds it
    /// already; whether the list refers to another.
    fn decode_into_slot(&mut self, vertex: u64, lo: u64, hi: u64, src: &ListSource, depth: u8) -> Result<bool, String> {
        let slot = (vertex % SLOTS as u64) as usize;
        if self.recent[slot].0 == vertex {
            return Ok(false);
        }
        let mut list = std::mem::take(&mut self.recent[slot].1);
        self.recent[slot].0 = u64::MAX;
        let referred = self.decode_list(vertex, lo, hi, src, depth, usize::MAX, &mut list)?;
        self.recent[slot] = (vertex, list);
        Ok(referred)
    }

    /// Decode `vertex`'s list, or its first `limit` ids, into `list`
    /// (whatever it held), the lists it refers to (whole) into their slots;
    /// whether it refers to one. A prefix reads the residuals only up to
    /// the `limit`-th (they ascend, so no later one is among the first
    /// `limit` ids of the list), and checks only what it reads.
    #[allow(clippy::too_many_arguments)]
    fn decode_list(
        &mut self,
        vertex: u64,
        lo: u64,
        hi: u64,
        src: &ListSource,
        depth: u8,
        limit: usize,
        list: &mut Vec<u64>,
    ) -> Result<bool, String> {
        let base = src.first_byte * 8;
        let mut bits = BitReader::new(src.bytes, lo.checked_sub(base).ok_or("list starts before its block")?, hi - base)?;
        if bits.only_padding_left() {
            list.clear();
            return Ok(false);
        }
        let mut r = bits.read_unary()?;
        // revision 2: a reference past the window marks Elias-Fano residuals
        let elias_fano = self.marked_residuals && r > WINDOW;
        if elias_fano {
            r -= WINDOW + 1;
        }
        if r > WINDOW || depth >= MAX_CHAIN && r > 0 {
            return Err(format!("impossible code: reference {r} at chain depth {depth}"));
        }
        if r > 0 {
            let u = vertex
                .checked_sub(r)
                .filter(|&u| u >= src.first_vertex)
                .ok_or_else(|| format!("impossible code: reference {r} leaves the block"))?;
            let (ulo, uhi) = (src.entry)(u);
            self.decode_into_slot(u, ulo, uhi, src, depth + 1)?;
        }
        self.copied.clear();
        if r > 0 {
            let u = vertex - r;
            let reference = &self.recent[(u % SLOTS as u64) as usize].1;
            // what is copied is at most the reference: room for it exactly
            self.copied.reserve_exact(reference.len());
            let runs = bits.read_gamma0()?;
            let (mut at, mut copying) = (0usize, true);
            for i in 0..runs {
                let len = bits.read_gamma0()?.checked_add((i > 0) as u64).ok_or("impossible code: copy run")? as usize;
                let end =
                    at.checked_add(len).filter(|&e| e <= reference.len()).ok_or("impossible code: copy runs past the referenced list")?;
                if copying {
                    self.copied.extend_from_slice(&reference[at..end]);
                }
                at = end;
                copying = !copying;
            }
            if copying {
                self.copied.extend_from_slice(&reference[at..]);
            }
        }
        self.extras.clear();
        let intervals = bits.read_gamma0()?;
        let mut prev_right = None::<u64>;
        for _ in 0..intervals {
            let left = match prev_right {
                None => vertex as i128 + unzigzag(bits.read_gamma0()?),
                Some(p) => p as i128 + 2 + bits.read_gamma0()? as i128,
            };
            let len = bits.read_gamma0()? as i128 + MIN_INTERVAL as i128;
            if left < 0 || left + len > src.vertices as i128 {
                return Err(format!("impossible code: interval {left}+{len} outside the graph"));
            }
            self.extras.extend(left as u64..(left + len) as u64);
            prev_right = Some((left + len - 1) as u64);
        }
        // Residuals ascend by construction, as do the intervals and the
        // copied ids: only the merge of the last two or their insertion
        // among the residuals can meet an id twice, and each says so.
        // The residuals (most of the ids on graphs without locality) are
        // decoded into the list itself and the others inserted after.
        if elias_fano && bits.only_padding_left() {
            return Err("impossible code: Elias-Fano residuals marked, none present".into());
        }
        if !bits.only_padding_left() {
            let first = vertex as i128 + unzigzag(bits.read_zeta0(ZETA_K)?);
            let x = u64::try_from(first)
                .ok()
                .filter(|&x| x < src.vertices)
                .ok_or_else(|| format!("impossible code: residual {first} outside the graph"))?;
            if elias_fano {
                read_residual_sequence(&mut bits, x, src.vertices, limit, list)?;
            } else {
                list.clear();
                list.push(x);
                if limit == usize::MAX {
                    read_residual_gaps(&mut bits, x, src.vertices, list)?;
                } else {
                    read_residual_gaps_up_to(&mut bits, x, src.vertices, limit, list)?;
                }
            }
        } else {
            list.clear();
        }
        let others = match (self.copied.is_empty(), self.extras.is_empty()) {
            (true, _) => &self.extras,
            (false, true) => &self.copied,
            (false, false) => {
                self.merged.clear();
                merge(&self.copied, &self.extras, &mut self.merged)?;
                &self.merged
            }
        };
        insert_ascending(list, others)?;
        list.truncate(limit);
        Ok(r > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::tests::{round_trip, round_trip_with};
    use proptest::prelude::*;

    /// `lists` encoded as one block from vertex 0: its index entries and
    /// its bits.
    fn one_block(lists: &[Vec<u64>]) -> (Vec<u64>, BitWriter) {
        let mut w = BitWriter::new();
        let mut encoder = GAPREF.encoder();
        let mut index = Vec::new();
        for (v, l) in lists.iter().enumerate() {
            let at = w.len();
            index.push(at | encoder.encode(v as u64, l, &mut w));
        }
        index.push(w.len());
        w.align();
        (index, w)
    }

    /// The room of every list the decoder holds, in entries: its slots',
    /// then its scratch lists.
    fn capacities(d: &GaprefDecoder) -> Vec<usize> {
        d.recent.iter().map(|(_, l)| l.capacity()).chain([&d.copied, &d.extras, &d.merged].iter().map(|l| l.capacity())).collect()
    }

    /// `decoder_lists` states what the decoder keeps (the traverse engine
    /// and the scans charge it to the budget): after decoding lists of up
    /// to `longest` entries, its vectors hold no more than
    /// `decoder_lists() * longest` entries, and more than `SLOTS` lists'
    /// worth (every slot holds a long list). Lists alike enough to copy
    /// from each other with residuals of their own; then the same with
    /// runs of their own too (intervals), merged with the copied ids.
    #[test]
    fn the_decoder_keeps_no_more_lists_than_it_states() {
        let _bound = outcore_io::bound::watch("the_decoder_keeps_no_more_lists_than_it_states");
        let longest = 5_000u64;
        let copied_and_residuals: Vec<Vec<u64>> =
            (0..3 * SLOTS as u64).map(|v| (0..longest).map(|k| k * 5 + if k % 7 == v % 7 { 1 } else { 0 }).collect()).collect();
        let copied_and_intervals: Vec<Vec<u64>> = (0..3 * SLOTS as u64)
            .map(|v| {
                (0..longest / 2)
                    .map(|k| k * 5 + if k % 7 == v % 7 { 1 } else { 0 })
                    .chain((0..longest / 2).map(|k| 1 << 30 | v << 20 | k))
                    .collect()
            })
            .collect();
        for lists in [copied_and_residuals, copied_and_intervals] {
            decoder_keeps_no_more_than_it_states(&lists, longest);
        }
    }

    fn decoder_keeps_no_more_than_it_states(lists: &[Vec<u64>], longest: u64) {
        let (index, w) = one_block(lists);
        let entry = |u: u64| (index[u as usize], index[u as usize + 1]);
        let src = ListSource { vertices: u64::MAX, bytes: w.bytes(), first_byte: 0, first_vertex: 0, entry: &entry };
        let mut decoder = GaprefDecoder::new(true);
        let mut out = Vec::new();
        for (v, l) in lists.iter().enumerate() {
            decoder.decode(v as u64, index[v], index[v + 1], &src, &mut out).unwrap();
            assert_eq!(&out, l, "vertex {v}");
        }
        let kept = |d: &GaprefDecoder| capacities(d).iter().sum::<usize>() as u64;
        let all = kept(&decoder);
        assert!(
            all <= GAPREF.decoder_lists() * longest,
            "the decoder keeps {all} entries; it states {} lists of {longest}",
            GAPREF.decoder_lists()
        );
        assert!(all > SLOTS as u64 * longest, "the decoder keeps only {all} entries");
        // and the statement is not loose: every slot and scratch list in use
        assert!(2 * all > GAPREF.decoder_lists() * longest, "the decoder keeps {all} entries, under half of what it states");
        // `release_above(n)` lets go of exactly the buffers that hold more
        // than n entries: from the largest down, one size at a time
        let held = capacities(&decoder);
        let mut sizes = held.clone();
        sizes.sort_unstable_by(|a, b| b.cmp(a));
        sizes.dedup();
        for &n in &sizes {
            decoder.release_above(n);
            let expect: Vec<usize> = held.iter().map(|&c| if c > n { 0 } else { c }).collect();
            assert_eq!(capacities(&decoder), expect, "after release_above({n})");
        }
        // let go of every list longer than 100: nothing is left; decoding
        // the last list again (the lists it refers to, and the scratch
        // lists) holds no more than `decoder_lists_in_flight` lists of it
        decoder.release_above(100);
        assert_eq!(kept(&decoder), 0);
        let v = lists.len() - 1;
        decoder.decode(v as u64, index[v], index[v + 1], &src, &mut out).unwrap();
        assert_eq!(out, lists[v]);
        let in_flight = kept(&decoder);
        assert!(
            in_flight <= GAPREF.decoder_lists_in_flight() * longest,
            "the decoder holds {in_flight} entries decoding one list; it states {} lists of {longest}",
            GAPREF.decoder_lists_in_flight()
        );
        // (residuals as Elias-Fano fill a list of exactly their length)
        assert!(in_flight >= 3 * longest, "one list and the lists it refers to took only {in_flight} entries");
    }

    /// `decoder_lists_in_flight` is reached: a list at the end of a chain
    /// of [`MAX_CHAIN`] references, the first of them all one interval
    /// (the extras), each after it a copy of the one before (the copied
    /// ids) and an interval of four of its own (merged with them), holds
    /// the four lists in their slots and three scratch lists about as long.
    #[test]
    fn the_decoder_reaches_what_it_states_in_flight() {
        let _bound = outcore_io::bound::watch("the_decoder_reaches_what_it_states_in_flight");
        let first = 5_000u64;
        let mut w = BitWriter::new();
        let mut index = vec![0];
        w.write_unary(0);
        w.write_gamma0(1);
        w.write_gamma0(zigzag(1_000));
        w.write_gamma0(first - MIN_INTERVAL);
        index.push(w.len());
        for v in 1..=MAX_CHAIN as u64 {
            w.write_unary(1);
            w.write_gamma0(0);
            w.write_gamma0(1);
            w.write_gamma0(zigzag(1_000_000 + 10 * v as i128 - v as i128));
            w.write_gamma0(0);
            index.push(w.len());
        }
        w.align();
        let entry = |u: u64| (index[u as usize], index[u as usize + 1]);
        let src = ListSource { vertices: 1 << 30, bytes: w.bytes(), first_byte: 0, first_vertex: 0, entry: &entry };
        let last = MAX_CHAIN as u64;
        let longest = first + 4 * last;
        let mut decoder = GaprefDecoder::new(true);
        let mut out = Vec::new();
        decoder.decode(last, index[last as usize], index[last as usize + 1], &src, &mut out).unwrap();
        let expect: Vec<u64> = (1_000..1_000 + first).chain((1..=last).flat_map(|v| 1_000_000 + 10 * v..1_000_004 + 10 * v)).collect();
        assert_eq!(out, expect);
        let in_flight = capacities(&decoder).iter().sum::<usize>() as u64;
        let stated = GAPREF.decoder_lists_in_flight();
        assert!(in_flight <= stated * longest, "{in_flight} entries in flight; {stated} lists of {longest} stated");
        assert!(in_flight > (stated - 1) * longest, "only {in_flight} entries in flight; {stated} lists of {longest} stated");
    }

    /// After lists that refer to none, the decoder hands lists straight to
    /// the caller without keeping them; a list that then refers to one
    /// decodes it again. Every list reads back in any order, and the
    /// decoder keeps lists again once references are common.
    #[test]
    fn lists_not_kept_are_decoded_again_when_referred_to() {
        let _bound = outcore_io::bound::watch("lists_not_kept_are_decoded_again_when_referred_to");
        // vertices 0..100 and 130..230 have lists of their own (nothing to
        // copy), two of them empty; 100..130 and 230..260 each share most
        // of the one before
        let shared = |v: u64| -> Vec<u64> {
            let group = if v < 130 { 100 } else { 230 };
            (0..40).map(|k| 1_000_000 * (group + 1) + k * 97).chain([2_000_000_000 + v * 13]).collect()
        };
        let lists: Vec<Vec<u64>> = (0..260u64)
            .map(|v| match v {
                70 | 160 => Vec::new(),
                100..130 | 230.. => shared(v),
                _ => (0..12).map(|k| v * 5_000 + k * k * 31 + k).collect(),
            })
            .collect();
        let (index, w) = one_block(&lists);
        let entry = |u: u64| (index[u as usize], index[u as usize + 1]);
        let src = ListSource { vertices: u64::MAX, bytes: w.bytes(), first_byte: 0, first_vertex: 0, entry: &entry };
        let mut decoder = GaprefDecoder::new(true);
        let mut out = vec![7; 100];
        let mut shared_referring = 0;
        // which lists referred to another, as each was decoded: a fresh
        // decoder counts the 64 lists before the first as referring
        let mut refers: Vec<bool> = Vec::new();
        for (v, l) in lists.iter().enumerate() {
            let window = &refers[v.saturating_sub(64)..];
            let keep = 64 - window.len() + window.iter().filter(|&&r| r).count() >= KEEP_AT_REFERENCES as usize;
            if v == 100 || v == 230 {
                assert!(decoder.referring < KEEP_AT_REFERENCES, "vertex {v}: lists are still kept");
                // none of the last 30 (the window of 64 lists forgets
                // the first 64, and the references of 101..130, in time)
                assert!(decoder.recent.iter().all(|&(u, _)| u == u64::MAX || u + 30 < v as u64), "vertex {v}: lists were kept");
            }
            decoder.decode(v as u64, index[v], index[v + 1], &src, &mut out).unwrap();
            assert_eq!(&out, l, "vertex {v}");
            assert_eq!(decoder.recent[v % SLOTS].0 == v as u64, keep, "vertex {v}: kept or not");
            refers.push(decoder.referred & 1 == 1);
            assert_eq!(decoder.referring, decoder.referred.count_ones(), "vertex {v}");
            if v == 101 || v == 231 {
                assert_eq!(decoder.referred & 1, 1, "vertex {v} refers to no list");
            }
            if (101..130).contains(&v) || v > 230 {
                shared_referring += decoder.referred & 1;
            }
        }
        // chains end at MAX_CHAIN, so not every shared list refers
        assert!(shared_referring >= 40, "only {shared_referring} of 58 shared lists refer to another");
        // the shared lists kept the decoder's slots in use by the end
        assert!(decoder.referring >= KEEP_AT_REFERENCES);
        assert!(decoder.recent.iter().any(|&(u, _)| u >= 230));
        // backwards, and hopping through the lists, with a fresh decoder
        // that has met no references
        for order in [(0..260).rev().collect::<Vec<usize>>(), (0..260).map(|i| i * 67 % 260).collect()] {
            let mut decoder = GaprefDecoder::new(true);
            (decoder.referred, decoder.referring) = (0, 0);
            for v in order {
                decoder.decode(v as u64, index[v], index[v + 1], &src, &mut out).unwrap();
                assert_eq!(&out, &lists[v], "vertex {v}");
            }
        }
    }

    /// Lists that share much with their predecessors and hold runs, as web
    /// graphs do, so references, copy blocks and intervals all occur.
    fn similar_lists(base: u64) -> impl Strategy<Value = Vec<Vec<u64>>> {
        prop::collection::vec((prop::collection::btree_set(0u64..200, 0..40), 0u64..20, 0u64..6, any::<bool>()), 0..60).prop_map(
            move |specs| {
                let mut lists: Vec<Vec<u64>> = Vec::new();
                for (i, (extra, run_start, run_len, share)) in specs.into_iter().enumerate() {
                    let mut s: std::collections::BTreeSet<u64> = extra.into_iter().map(|x| x + base).collect();
                    s.extend((0..run_len * 2).map(|k| base + 300 + run_start + k));
                    if share && i > 0 {
                        s.extend(lists[i - 1].iter().step_by(2));
                    }
                    lists.push(s.into_iter().collect());
                }
                lists
            },
        )
    }

    proptest! {
        #[test]
        fn round_trips_similar_lists(lists in similar_lists(0)) {
            let _bound = outcore_io::bound::watch("round_trips_similar_lists");
            round_trip(Encoding::Gapref, &lists);
        }
        #[test]
        fn round_trips_ids_near_2_32(lists in similar_lists((1 << 32) - 150)) {
            let _bound = outcore_io::bound::watch("round_trips_ids_near_2_32");
            round_trip(Encoding::Gapref, &lists);
        }
        #[test]
        fn round_trips_ids_near_2_40(lists in similar_lists(1 << 40)) {
            let _bound = outcore_io::bound::watch("round_trips_ids_near_2_40");
            round_trip(Encoding::Gapref, &lists);
        }
        /// Runs (intervals) among ids spread too far for references: past
        /// its first 58 lists the decoder keeps none, and a prefix merges
        /// the runs with the residuals it read.
        #[test]
        fn round_trips_runs_among_spread_ids(
            specs in prop::collection::vec((prop::collection::btree_set(0u64..1 << 20, 0..30), 0u64..1 << 20, 0u64..12), 70..140),
        ) {
            let _bound = outcore_io::bound::watch("round_trips_runs_among_spread_ids");
            let lists: Vec<Vec<u64>> = specs
                .into_iter()
                .map(|(ids, run_start, run_len)| {
                    let mut ids = ids;
                    ids.extend(run_start..run_start + run_len);
                    ids.into_iter().collect()
                })
                .collect();
            round_trip(Encoding::Gapref, &lists);
        }
        #[test]
        fn round_trips_random_lists(lists in prop::collection::vec(prop::collection::btree_set(0u64..u64::MAX >> 2, 0..50), 0..30)) {
            let _bound = outcore_io::bound::watch("round_trips_random_lists");
            let lists: Vec<Vec<u64>> = lists.into_iter().map(|s| s.into_iter().collect()).collect();
            round_trip(Encoding::Gapref, &lists);
        }
        /// Revision 1 (zeta gaps only) still writes and reads the format of
        /// version 1 and 2 stores.
        #[test]
        fn revision_1_round_trips(lists in similar_lists(0), sparse in prop::collection::vec(prop::collection::btree_set(0u64..1 << 40, 0..50), 0..10)) {
            let _bound = outcore_io::bound::watch("revision_1_round_trips");
            round_trip_with(&GAPREF_ZETA_ONLY, &lists);
            let sparse: Vec<Vec<u64>> = sparse.into_iter().map(|s| s.into_iter().collect()).collect();
            round_trip_with(&GAPREF_ZETA_ONLY, &sparse);
        }
        /// Lists of ids spread over 2^k vertices, dense to sparse, so that
        /// both residual codes are chosen: revision 2 is never longer than
        /// revision 1 by more than its slack, and shorter when the
        /// residuals are spread (Elias-Fano then).
        #[test]
        fn revision_2_chooses_the_shorter_residuals(spread in 6u32..40, ids in prop::collection::btree_set(any::<u64>(), 2..200)) {
            let _bound = outcore_io::bound::watch("revision_2_chooses_the_shorter_residuals");
            let list: Vec<u64> = ids.into_iter().map(|x| x >> (64 - spread)).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
            round_trip(Encoding::Gapref, std::slice::from_ref(&list));
            let bits = |codec: &Gapref| {
                let mut w = BitWriter::new();
                codec.encoder().encode(1 << spread, &list, &mut w);
                w.len()
            };
            let (zeta, chosen) = (bits(&GAPREF_ZETA_ONLY), bits(&GAPREF));
            prop_assert!(chosen <= zeta + zeta / ELIAS_FANO_SLACK, "revision 2: {chosen} bits, revision 1: {zeta}");
            // spread: gaps of 2^12 and more on average, where a zeta_3 gap
            // takes about 6 bits more than an Elias-Fano value and 19 of
            // them outweigh the count, width and mark (at gaps near 2^8 the
            // two can tie: 20 ids over 2^13 did, 210 bits each)
            if list.len() >= 20 && (list.len() as u64) << 12 < 1 << spread {
                prop_assert!(chosen < zeta, "{} ids over 2^{spread}: revision 2 {chosen} bits, revision 1 {zeta}", list.len());
            }
        }
    }

    proptest! {
        /// Copied ids and intervals join the residuals as a set union
        /// would, and an id in both is refused.
        #[test]
        fn insert_ascending_is_a_union_of_disjoint_lists(a in prop::collection::btree_set(0u64..500, 0..80), b in prop::collection::btree_set(0u64..500, 0..80)) {
            let _bound = outcore_io::bound::watch("insert_ascending_is_a_union_of_disjoint_lists");
            let mut list: Vec<u64> = a.iter().copied().collect();
            let ids: Vec<u64> = b.iter().copied().collect();
            let result = insert_ascending(&mut list, &ids);
            if a.is_disjoint(&b) {
                prop_assert!(result.is_ok());
                prop_assert_eq!(list, a.union(&b).copied().collect::<Vec<u64>>());
            } else {
                prop_assert_eq!(result, Err("impossible code: neighbours repeat"));
            }
        }
    }

    /// Elias-Fano residuals are chosen while they take at most an eighth
    /// more bits than zeta gaps (the mark and header included), and not
    /// beyond: residuals n apart by g, for counts and gaps that fall on
    /// both sides of the line and in between.
    #[test]
    fn elias_fano_is_chosen_up_to_its_slack() {
        let _bound = outcore_io::bound::watch("elias_fano_is_chosen_up_to_its_slack");
        let (mut shorter, mut within, mut beyond) = (0, 0, 0);
        for n in [2u64, 5, 20, 100] {
            for g in (0..2000).chain([1 << 12, 1 << 20]) {
                let values: Vec<u64> = (1..n).map(|i| i * g).collect();
                let zeta = zeta0_len(g, ZETA_K) * (n - 1);
                let last = *values.last().unwrap();
                let ef = (0..=56).map(|l| elias_fano_len(n - 1, last, l)).min().unwrap() + gamma0_len(n - 2) + 6 + 8;
                let plan = elias_fano_plan(&values, 8, ELIAS_FANO_SLACK);
                assert_eq!(elias_fano_plan(&values, 8, 0).is_some(), ef <= zeta, "{n} residuals {g} apart, no slack");
                if ef <= zeta {
                    shorter += 1;
                } else if ef * ELIAS_FANO_SLACK <= zeta * (ELIAS_FANO_SLACK + 1) {
                    within += 1;
                } else {
                    beyond += 1;
                }
                assert_eq!(
                    plan.is_some(),
                    ef <= zeta + zeta / ELIAS_FANO_SLACK,
                    "{n} residuals {g} apart: Elias-Fano {ef} bits, zeta {zeta}"
                );
            }
        }
        assert!(shorter > 0 && within > 0 && beyond > 0, "{shorter} {within} {beyond}");
    }

    /// Random lists of a Kronecker-like graph (no locality): their residuals
    /// go as Elias-Fano, which takes fewer bits than zeta gaps.
    #[test]
    fn spread_residuals_take_elias_fano() {
        let _bound = outcore_io::bound::watch("spread_residuals_take_elias_fano");
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let list: std::collections::BTreeSet<u64> = (0..40)
            .map(|_| {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                x >> 40
            })
            .collect();
        let list: Vec<u64> = list.into_iter().collect();
        let mut w = BitWriter::new();
        GAPREF.encoder().encode(5, &list, &mut w);
        // no reference, marked; no intervals
        let mut r = BitReader::new(w.bytes(), 0, w.len()).unwrap();
        assert_eq!((r.read_unary(), r.read_gamma0()), (Ok(WINDOW + 1), Ok(0)));
    }

    /// Every prefix of lists that end at the graph's last vertex, their
    /// residuals spread (Elias-Fano) or close (zeta gaps), decodes as the
    /// list's first ids when the graph is exactly that large: a prefix's
    /// last id is checked against the graph, not some margin beside it.
    #[test]
    fn prefixes_reach_the_graphs_last_vertex() {
        let _bound = outcore_io::bound::watch("prefixes_reach_the_graphs_last_vertex");
        let n = 1u64 << 24;
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut spread: std::collections::BTreeSet<u64> = (0..40)
            .map(|_| {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                x >> 40
            })
            .collect();
        spread.extend([n - 3, n - 2, n - 1]);
        let close: Vec<u64> = (0..30).map(|i| n - 200 + 6 * i).chain([n - 2, n - 1]).collect();
        for (what, list) in [("spread", spread.into_iter().collect::<Vec<u64>>()), ("close", close)] {
            let mut w = BitWriter::new();
            GAPREF.encoder().encode(5, &list, &mut w);
            let end = w.len();
            w.align();
            let entry = |_: u64| (0, end);
            let src = ListSource { vertices: n, bytes: w.bytes(), first_byte: 0, first_vertex: 5, entry: &entry };
            let mut decoder = GAPREF.decoder();
            // the decoder keeps its first 58 lists whole (then none): past them
            for limit in (0..=list.len() + 1).chain(0..=list.len() + 1).chain(0..=list.len() + 1) {
                let mut out = vec![7];
                decoder.decode_prefix(5, 0, end, &src, limit, &mut out).unwrap();
                assert_eq!(out, &list[..list.len().min(limit)], "{what}: first {limit}");
                decoder.release_above(0); // not decoded again from its slot
            }
            // the same bits in a graph two vertices smaller: a prefix that
            // reaches its last two ids is an impossible code, a shorter one
            // is the list's first ids
            let small = ListSource { vertices: n - 2, ..src };
            for limit in 1..=list.len() {
                let mut out = Vec::new();
                let decoded = decoder.decode_prefix(5, 0, end, &small, limit, &mut out);
                decoder.release_above(0);
                match limit < list.len() - 1 {
                    true => assert_eq!(decoded.map(|()| out), Ok(list[..limit].to_vec()), "{what}: first {limit} of a smaller graph"),
                    false => assert!(decoded.is_err_and(|e| e.contains("outside the graph")), "{what}: first {limit} of a smaller graph"),
                }
            }
        }
    }

    /// Decode one hand-written list of vertex 10 in a graph of 100.
    fn decode_written(write: impl Fn(&mut BitWriter)) -> Result<Vec<u64>, String> {
        decode_written_by(&GAPREF, write)
    }

    /// [`decode_written`] by `codec`'s decoder.
    fn decode_written_by(codec: &dyn Codec, write: impl Fn(&mut BitWriter)) -> Result<Vec<u64>, String> {
        let mut w = BitWriter::new();
        write(&mut w);
        let end = w.len();
        w.align();
        let entry = |_: u64| (0, end);
        let src = ListSource { vertices: 100, bytes: w.bytes(), first_byte: 0, first_vertex: 10, entry: &entry };
        let mut out = Vec::new();
        codec.decoder().decode(10, 0, end, &src, &mut out).map(|()| out)
    }

    /// The revision a layout records picks its decoder: revision 2
    /// (written since format version 3) reads residuals marked as
    /// Elias-Fano, revision 1 (zeta gaps only) refuses the mark as a
    /// reference past the window, and no other revision is known.
    #[test]
    fn the_recorded_revision_picks_the_decoder() {
        let _bound = outcore_io::bound::watch("the_recorded_revision_picks_the_decoder");
        let marked = |w: &mut BitWriter| {
            // residuals 20, then values 1, 2, 6 as in elias_fano_list
            w.write_unary(WINDOW + 1);
            w.write_gamma0(0);
            w.write_zeta0(zigzag(20 - 10), ZETA_K);
            w.write_gamma0(2);
            w.write(2, 6);
            for low in [1, 2, 2] {
                w.write(low, 2);
            }
            for gap in [0, 0, 1] {
                w.write_unary(gap);
            }
        };
        let revision = |r: u32| crate::codec::codec_at(Encoding::Gapref, r);
        assert_eq!(decode_written_by(revision(2).expect("revision 2"), marked), Ok(vec![20, 22, 24, 29]));
        let err = decode_written_by(revision(1).expect("revision 1"), marked).unwrap_err();
        assert!(err.contains("reference 8"), "{err}");
        assert!(revision(0).is_none() && revision(3).is_none());
    }

    #[test]
    fn an_id_met_twice_is_an_impossible_code() {
        let _bound = outcore_io::bound::watch("an_id_met_twice_is_an_impossible_code");
        // no reference; one interval 10..14; then residuals
        let list = |residual: u64| {
            decode_written(move |w| {
                w.write_unary(0);
                w.write_gamma0(1);
                w.write_gamma0(zigzag(0));
                w.write_gamma0(0);
                w.write_zeta0(zigzag(residual as i128 - 10), ZETA_K);
            })
        };
        assert_eq!(list(20).unwrap(), vec![10, 11, 12, 13, 20]);
        assert_eq!(list(5).unwrap(), vec![5, 10, 11, 12, 13]);
        let err = list(12).unwrap_err();
        assert!(err.contains("repeat"), "{err}");
        // residuals past the last vertex
        let err = list(100).unwrap_err();
        assert!(err.contains("outside the graph"), "{err}");
    }

    /// No reference, no intervals, residuals 20 then the Elias-Fano
    /// sequence `values` with `low_bits`, claiming `count` of them, then
    /// `trailing` ones.
    fn elias_fano_list(count: u64, low_bits: u32, lows: &[u64], highs: &[u64], trailing: u32) -> Result<Vec<u64>, String> {
        decode_written(move |w| {
            w.write_unary(WINDOW + 1);
            w.write_gamma0(0);
            w.write_zeta0(zigzag(20 - 10), ZETA_K);
            w.write_gamma0(count - 1);
            w.write(low_bits as u64, 6);
            for &low in lows {
                w.write(low, low_bits);
            }
            for &gap in highs {
                w.write_unary(gap);
            }
            if trailing > 0 {
                w.write(u64::MAX >> (64 - trailing), trailing);
            }
        })
    }

    #[test]
    fn damaged_elias_fano_residuals_are_impossible_codes() {
        let _bound = outcore_io::bound::watch("damaged_elias_fano_residuals_are_impossible_codes");
        // values 1, 2, 6 (low 2 bits 01 10 10, high parts 0 0 1): residuals 20, 22, 24, 29
        assert_eq!(elias_fano_list(3, 2, &[1, 2, 2], &[0, 0, 1], 0).unwrap(), vec![20, 22, 24, 29]);
        let err = |count, lows: &[u64], highs: &[u64], trailing| elias_fano_list(count, 2, lows, highs, trailing).unwrap_err();
        // low parts that descend within a high part
        assert!(err(3, &[2, 1, 2], &[0, 0, 1], 0).contains("descend"));
        // more values claimed than written
        assert!(err(4, &[1, 2, 2], &[0, 0, 1], 0).contains("past the end"));
        // a value past the graph's 100 vertices
        assert!(err(3, &[1, 2, 2], &[0, 0, 30], 0).contains("outside the graph"));
        // ones after the last value
        assert!(err(3, &[1, 2, 2], &[0, 0, 1], 3).contains("after the residuals"));
        // low parts wider than 56 bits
        let wide = decode_written(|w| {
            w.write_unary(WINDOW + 1);
            w.write_gamma0(0);
            w.write_zeta0(zigzag(20 - 10), ZETA_K);
            w.write_gamma0(0);
            w.write(60, 6);
            w.write(0, 60);
            w.write_unary(0);
        });
        assert!(wide.unwrap_err().contains("wider than 56"));
        // as many values as bits left: valid when each is a bare one
        assert_eq!(elias_fano_list(2, 0, &[], &[0, 0], 0).unwrap(), vec![20, 21, 22]);
        // more values claimed than bits left, refused before reading them
        let err = err(20, &[1, 2, 2], &[0, 0, 1], 0);
        assert!(err.contains("20 residuals in 10 bits"), "{err}");
    }

    /// In a graph of 2^64 - 1 vertices, residual gaps read in runs that
    /// wrap past 2^64 are refused, the error naming the first that does,
    /// and the same gaps that stay below 2^64 are read.
    #[test]
    fn residual_runs_that_wrap_past_2_64_are_impossible_codes() {
        let _bound = outcore_io::bound::watch("residual_runs_that_wrap_past_2_64_are_impossible_codes");
        let decode = |vertex: u64| {
            let mut w = BitWriter::new();
            w.write_unary(0);
            w.write_gamma0(0);
            w.write_zeta0(zigzag(0), ZETA_K);
            (0..80).for_each(|_| w.write_zeta0(1 << 20, ZETA_K));
            let end = w.len();
            w.align();
            let entry = |_: u64| (0, end);
            let src = ListSource { vertices: u64::MAX, bytes: w.bytes(), first_byte: 0, first_vertex: vertex, entry: &entry };
            let mut out = Vec::new();
            GAPREF.decoder().decode(vertex, 0, end, &src, &mut out).map(|()| out)
        };
        let step = (1 << 20) + 1;
        let vertex = u64::MAX - 40 * step;
        let err = decode(vertex).unwrap_err();
        let x = vertex + 39 * step;
        assert!(err.contains(&format!("residual {x} + {} + 1 outside the graph", 1 << 20)), "{err}");
        let vertex = u64::MAX - 81 * step;
        assert_eq!(decode(vertex).unwrap(), (0..81).map(|i| vertex + i * step).collect::<Vec<u64>>());
    }

    /// Residual gaps and intervals must stay inside the graph (vertex 10
    /// of 100 here); an interval may end at its last vertex.
    #[test]
    fn residuals_and_intervals_past_the_graph_are_impossible_codes() {
        let _bound = outcore_io::bound::watch("residuals_and_intervals_past_the_graph_are_impossible_codes");
        let gaps = |gap: u64| {
            decode_written(move |w| {
                w.write_unary(0);
                w.write_gamma0(0);
                w.write_zeta0(zigzag(20 - 10), ZETA_K);
                w.write_zeta0(gap, ZETA_K);
            })
        };
        assert_eq!(gaps(78).unwrap(), vec![20, 99]);
        let err = gaps(79).unwrap_err();
        assert!(err.contains("outside the graph"), "{err}");
        // far from the stream's end the gaps are read in runs: a run whose
        // last id is the graph's size (0, 1..=63, then 100) is refused, the
        // error naming that residual, not a later one
        let run = |last_gap: u64| {
            decode_written(move |w| {
                w.write_unary(0);
                w.write_gamma0(0);
                w.write_zeta0(zigzag(0 - 10), ZETA_K);
                (0..63).for_each(|_| w.write_zeta0(0, ZETA_K));
                w.write_zeta0(last_gap, ZETA_K);
                (0..40).for_each(|_| w.write_zeta0(0, ZETA_K));
            })
        };
        let err = run(36).unwrap_err();
        assert!(err.contains("residual 63 + 36 + 1 outside the graph"), "{err}");
        let err = run(35).unwrap_err();
        assert!(err.contains("residual 99 + 0 + 1 outside the graph"), "{err}");
        let fits = decode_written(|w| {
            w.write_unary(0);
            w.write_gamma0(0);
            w.write_zeta0(zigzag(0 - 10), ZETA_K);
            (0..99).for_each(|_| w.write_zeta0(0, ZETA_K));
        });
        assert_eq!(fits.unwrap(), (0..100).collect::<Vec<u64>>());
        let interval = |left: i128, len: u64| {
            decode_written(move |w| {
                w.write_unary(0);
                w.write_gamma0(1);
                w.write_gamma0(zigzag(left - 10));
                w.write_gamma0(len - MIN_INTERVAL);
            })
        };
        assert_eq!(interval(96, 4).unwrap(), vec![96, 97, 98, 99]);
        assert_eq!(interval(0, 100).unwrap(), (0..100).collect::<Vec<u64>>());
        for (left, len) in [(97, 4), (1, 100), (98, 4), (-1, 4), (-10, 40)] {
            let err = interval(left, len).unwrap_err();
            assert!(err.contains("outside the graph"), "interval {left}+{len}: {err}");
        }
    }

    /// A reference past the window, or a chain of more than [`MAX_CHAIN`]
    /// references, is an impossible code, never a list.
    #[test]
    fn references_past_the_window_or_the_chain_are_impossible_codes() {
        let _bound = outcore_io::bound::watch("references_past_the_window_or_the_chain_are_impossible_codes");
        // vertex 0 holds 50, 60, 70; each vertex after it copies the one
        // before (a reference of 1, no copy runs: the whole list)
        let mut w = BitWriter::new();
        let mut index = vec![0];
        w.write_unary(0);
        w.write_gamma0(0);
        w.write_zeta0(zigzag(50), ZETA_K);
        w.write_zeta0(9, ZETA_K);
        w.write_zeta0(9, ZETA_K);
        index.push(w.len());
        for _ in 1..=MAX_CHAIN + 1 {
            w.write_unary(1);
            w.write_gamma0(0);
            w.write_gamma0(0);
            index.push(w.len());
        }
        // vertices MAX_CHAIN + 2 and + 3 refer 8 back, past the window (and
        // before vertex 0, so the window check must refuse it first): coded
        // as 8 for revision 1, and as 16 (Elias-Fano marked) for revision 2
        for r in [WINDOW + 1, 2 * WINDOW + 2] {
            w.write_unary(r);
            w.write_gamma0(0);
            w.write_gamma0(0);
            index.push(w.len());
        }
        w.align();
        let entry = |u: u64| (index[u as usize], index[u as usize + 1]);
        let src = ListSource { vertices: 100, bytes: w.bytes(), first_byte: 0, first_vertex: 0, entry: &entry };
        let decode = |codec: &Gapref, v: u64| {
            let mut out = Vec::new();
            codec.decoder().decode(v, index[v as usize], index[v as usize + 1], &src, &mut out).map(|()| out)
        };
        for v in 0..=MAX_CHAIN as u64 {
            assert_eq!(decode(&GAPREF, v), Ok(vec![50, 60, 70]), "vertex {v}");
        }
        let chain = decode(&GAPREF, MAX_CHAIN as u64 + 1).unwrap_err();
        assert!(chain.contains("at chain depth 3"), "{chain}");
        let v = MAX_CHAIN as u64 + 2;
        let window = decode(&GAPREF_ZETA_ONLY, v).unwrap_err();
        assert!(window.contains("reference 8 at chain depth 0"), "{window}");
        let marked = decode(&GAPREF, v + 1).unwrap_err();
        assert!(marked.contains("reference 8 at chain depth 0"), "{marked}");
    }

    #[test]
    fn references_and_intervals_pay() {
        let _bound = outcore_io::bound::watch("references_and_intervals_pay");
        let a: Vec<u64> = (100..110).chain([500, 900, 1500]).collect();
        let b: Vec<u64> = (100..110).chain([500, 901, 1500]).collect();
        let mut enc = GAPREF.encoder();
        let mut w = BitWriter::new();
        enc.encode(10, &a, &mut w);
        let first = w.len();
        enc.encode(11, &b, &mut w);
        assert!(w.len() - first < first / 2, "second list {} bits, first {first}", w.len() - first);
        assert!(first < 13 * 8, "{first} bits for 13 ids");
    }

    /// Runs of at least [`MIN_INTERVAL`] consecutive ids go as intervals
    /// (left end and length), shorter ones as residuals.
    #[test]
    fn runs_of_consecutive_ids_are_intervals() {
        let _bound = outcore_io::bound::watch("runs_of_consecutive_ids_are_intervals");
        let header = |list: &[u64]| {
            let mut w = BitWriter::new();
            GAPREF.encoder().encode(5, list, &mut w);
            let mut r = BitReader::new(w.bytes(), 0, w.len()).unwrap();
            let reference = r.read_unary().unwrap();
            let intervals: Vec<(u64, u64)> =
                (0..r.read_gamma0().unwrap()).map(|_| (r.read_gamma0().unwrap(), r.read_gamma0().unwrap())).collect();
            (reference, intervals, w.len())
        };
        // 1000 ids in a run: one interval, from 995 past the vertex, of
        // 996 more than the shortest, in some fifty bits
        let (reference, intervals, bits) = header(&(1000..2000).collect::<Vec<u64>>());
        assert_eq!((reference, intervals), (0, vec![(zigzag(995), 996)]));
        assert!(bits < 64, "{bits} bits for one run of 1000");
        // two runs and a residual: the second interval's left end counts
        // from two past the first's right end
        let list: Vec<u64> = (1000..1010).chain(1020..1030).chain([3000]).collect();
        let (_, intervals, _) = header(&list);
        assert_eq!(intervals, vec![(zigzag(995), 6), (9, 6)]);
        // runs one shorter than an interval are residuals
        let list: Vec<u64> = (0..20).map(|k| 100 + k / 3 * 10 + k % 3).collect();
        let (_, intervals, _) = header(&list);
        assert_eq!(intervals, vec![]);
        round_trip(Encoding::Gapref, &[list, (1000..1010).chain(1020..1030).chain([3000]).collect()]);
    }

    /// The encoder codes residuals as Elias-Fano exactly when that (mark
    /// included) takes at most an [`ELIAS_FANO_SLACK`]th more bits than
    /// zeta_3 gaps. Both forms are written here independently of the
    /// encoder's plan: zeta gaps by revision 1, Elias-Fano by hand at
    /// every width, the shortest taken. Lists are drawn near the two
    /// forms' tie (gaps near 2^8) at every length up to 80, so the count's
    /// code changes length among them.
    #[test]
    fn the_encoder_takes_elias_fano_within_its_slack() {
        let _bound = outcore_io::bound::watch("the_encoder_takes_elias_fano_within_its_slack");
        let vertex = 10u64;
        let encoded = |codec: &Gapref, list: &[u64]| {
            let mut w = BitWriter::new();
            codec.encoder().encode(vertex, list, &mut w);
            w
        };
        let decode = |w: &BitWriter| {
            let end = w.len();
            let entry = |_: u64| (0, end);
            let src = ListSource { vertices: 1 << 40, bytes: w.bytes(), first_byte: 0, first_vertex: 0, entry: &entry };
            let mut out = Vec::new();
            GAPREF.decoder().decode(vertex, 0, end, &src, &mut out).map(|()| out)
        };
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let (mut near_ties, mut both_chosen) = (0, [0, 0]);
        for case in 0..6_000u64 {
            let len = 2 + case % 79;
            let spread = 5 + case / 79 % 6;
            let mut id = 1_000u64;
            let list: Vec<u64> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    id += 2 + x % (1 << spread);
                    id
                })
                .collect();
            let zeta = encoded(&GAPREF_ZETA_ONLY, &list).len();
            let (first, rest) = (list[0], &list[1..]);
            let values: Vec<u64> = rest.iter().enumerate().map(|(rank, &y)| y - first - 1 - rank as u64).collect();
            let elias_fano = (0..=56)
                .map(|low_bits| {
                    let mut w = BitWriter::new();
                    w.write_unary(WINDOW + 1);
                    w.write_gamma0(0);
                    w.write_zeta0(zigzag(first as i128 - vertex as i128), ZETA_K);
                    w.write_gamma0(values.len() as u64 - 1);
                    w.write(low_bits, 6);
                    w.write_elias_fano(&values, low_bits as u32);
                    w
                })
                .min_by_key(|w| w.len())
                .unwrap();
            assert_eq!(decode(&elias_fano).as_ref(), Ok(&list), "the hand-written Elias-Fano form");
            let chosen = encoded(&GAPREF, &list);
            let mut r = BitReader::new(chosen.bytes(), 0, chosen.len()).unwrap();
            let took_elias_fano = r.read_unary().unwrap() > WINDOW;
            // the list's head (no reference, no interval, the first
            // residual) is shared: the slack is on the rest
            let mut head = BitWriter::new();
            head.write_unary(0);
            head.write_gamma0(0);
            head.write_zeta0(zigzag(first as i128 - vertex as i128), ZETA_K);
            let (ef_rest, zeta_rest) = (elias_fano.len() - head.len(), zeta - head.len());
            let want_elias_fano = ef_rest <= zeta_rest + zeta_rest / ELIAS_FANO_SLACK;
            assert_eq!(
                (took_elias_fano, chosen.len()),
                (want_elias_fano, if want_elias_fano { elias_fano.len() } else { zeta }),
                "{len} ids, gaps up to 2^{spread}: Elias-Fano {} bits, zeta gaps {zeta}",
                elias_fano.len()
            );
            near_ties += (ef_rest.abs_diff(zeta_rest + zeta_rest / ELIAS_FANO_SLACK) <= 1) as u32;
            both_chosen[took_elias_fano as usize] += 1;
        }
        assert!(near_ties >= 50 && both_chosen.iter().all(|&n| n >= 500), "{near_ties} near ties; chosen {both_chosen:?}");
    }
}
