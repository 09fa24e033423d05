//! Big-endian bit streams (most significant bit first, as CEESOR and
//! WebGraph write them) and the instantaneous codes of the compressed
//! encodings: Elias gamma, Boldi-Vigna zeta_k and minimal binary.

use multiversion::multiversion;

/// Appends bits to a byte vector; the last byte is filled from its top.
#[derive(Default, Clone)]
pub struct BitWriter {
    bytes: Vec<u8>,
    bits: u64,
}

impl BitWriter {
    pub fn new() -> Self {
        Self::default()
    }
    /// Bits written.
    pub fn len(&self) -> u64 {
        self.bits
    }
    pub fn is_empty(&self) -> bool {
        self.bits == 0
    }
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }
    pub fn clear(&mut self) {
        self.bytes.clear();
        self.bits = 0;
    }
    /// Pad with zero bits to a byte boundary.
    pub fn align(&mut self) {
        self.bits = self.bytes.len() as u64 * 8;
    }
    /// Whole bytes (only at a byte boundary).
    pub fn write_bytes(&mut self, b: &[u8]) {
        debug_assert_eq!(self.bits % 8, 0);
        self.bytes.extend_from_slice(b);
        self.bits += 8 * b.len() as u64;
    }

    /// Append all bits of `other`.
    pub fn append(&mut self, other: &BitWriter) {
        let full = (other.bits / 8) as usize;
        if self.bits.is_multiple_of(8) {
            self.bytes.extend_from_slice(&other.bytes[..full]);
            self.bits += full as u64 * 8;
        } else {
            for &b in &other.bytes[..full] {
                self.write(b as u64, 8);
            }
        }
        let rest = (other.bits % 8) as u32;
        if rest > 0 {
            self.write((other.bytes[full] >> (8 - rest)) as u64, rest);
        }
    }

    /// The low `n` bits of `value` (n <= 64), top bit first.
    #[inline]
    pub fn write(&mut self, value: u64, n: u32) {
        debug_assert!(n <= 64 && (n == 64 || value >> n == 0));
        let mut left = n;
        while left > 0 {
            let used = (self.bits % 8) as u32;
            if used == 0 {
                self.bytes.push(0);
            }
            let room = 8 - used;
            let take = room.min(left);
            let chunk = ((value >> (left - take)) & ((1u64 << take) - 1)) as u8;
            *self.bytes.last_mut().unwrap() |= chunk << (room - take);
            left -= take;
            self.bits += take as u64;
        }
    }
    #[inline]
    pub fn write_bit(&mut self, bit: bool) {
        self.write(bit as u64, 1);
    }
    /// `n` zeros then a one.
    #[inline]
    pub fn write_unary(&mut self, mut n: u64) {
        while n >= 32 {
            self.write(0, 32);
            n -= 32;
        }
        self.write(1, n as u32 + 1);
    }
    /// Elias gamma of `x >= 1`.
    pub fn write_gamma(&mut self, x: u64) {
        debug_assert!(x >= 1);
        let n = 63 - x.leading_zeros();
        self.write_unary(n as u64);
        self.write(x & !(1u64 << n), n);
    }
    /// Gamma of `x + 1`: codes 0 too.
    pub fn write_gamma0(&mut self, x: u64) {
        if x == u64::MAX {
            self.write_unary(64);
        } else {
            self.write_gamma(x + 1);
        }
    }
    /// Boldi-Vigna zeta_k of `x + 1` (codes x >= 0).
    pub fn write_zeta0(&mut self, x: u64, k: u32) {
        let x = x as u128 + 1;
        let msb = 127 - x.leading_zeros();
        let h = msb / k;
        self.write_unary(h as u64);
        let left = 1u128 << (h * k);
        let size = (1u128 << ((h + 1) * k)) - left;
        write_minimal(self, (x - left) as u64, size);
    }
}

/// Bits of the gamma code of `x + 1` ([`BitWriter::write_gamma0`]): a
/// unary length and as many bits after the leading one.
pub fn gamma0_len(x: u64) -> u64 {
    2 * (127 - (x as u128 + 1).leading_zeros() as u64) + 1
}

/// Bits of the zeta_k code of `x + 1` ([`BitWriter::write_zeta0`]), for
/// k >= 2: h + 1 unary bits and a minimal binary code of s - 1 or s bits,
/// s = (h + 1) k, whose short form serves the first 2^hk values.
pub fn zeta0_len(x: u64, k: u32) -> u64 {
    debug_assert!(k >= 2);
    let x = x as u128 + 1;
    let h = (127 - x.leading_zeros()) / k;
    let s = ((h + 1) * k) as u64;
    let long = x - (1u128 << (h * k)) >= 1u128 << (h * k);
    h as u64 + 1 + s - 1 + long as u64
}

/// Bits of [`BitWriter::write_elias_fano`] for `count` values whose last
/// is `last`, with `low_bits` low bits each.
pub fn elias_fano_len(count: u64, last: u64, low_bits: u32) -> u64 {
    count * low_bits as u64 + (last >> low_bits) + count
}

impl BitWriter {
    /// A non-decreasing sequence as Elias-Fano (Elias 1974, Fano 1971):
    /// the low `low_bits <= 56` bits of every value, in order, then the
    /// high parts as unary gaps (the zeros before each value's one are its
    /// high part less the last one's). [`BitReader::read_elias_fano`] reads
    /// the low parts independently of each other and the ones with a
    /// count of trailing zeros, so no value waits for the one before it.
    pub fn write_elias_fano(&mut self, values: &[u64], low_bits: u32) {
        debug_assert!(low_bits <= 56 && values.is_sorted());
        let mask = (1u64 << low_bits) - 1;
        for &y in values {
            self.write(y & mask, low_bits);
        }
        let mut high = 0;
        for &y in values {
            self.write_unary((y >> low_bits) - high);
            high = y >> low_bits;
        }
    }
}

/// The 64 bits of `bytes` from bit `bit` on, left-aligned (zeros past the
/// end): at least 57 of them from one unaligned load.
#[inline(always)]
pub(crate) fn word_at(bytes: &[u8], bit: u64) -> u64 {
    let at = (bit >> 3) as usize;
    let word = match bytes.get(at..at + 8) {
        Some(word) => u64::from_be_bytes(word.try_into().unwrap()),
        None => {
            let tail = bytes.get(at..).unwrap_or(&[]);
            let mut b = [0u8; 8];
            b[..tail.len().min(8)].copy_from_slice(&tail[..tail.len().min(8)]);
            u64::from_be_bytes(b)
        }
    };
    word << (bit & 7)
}

/// The slots of [`BitReader::read_elias_fano`]: the values of `out.len()`
/// low parts of `low_bits` bits from bit `lows` and their high parts from
/// bit `highs`, in `bytes` up to bit `end`, each plus `add` and its rank.
/// Returns the position of the last one, from `highs`; `None` when the
/// high parts run past `end`.
///
/// Compiled twice, chosen at run time: for x86 with BMI2 (shifts by any
/// register, not only the count register) and the like, and for any CPU.
#[multiversion(targets("x86_64+bmi1+bmi2+lzcnt+popcnt"))]
fn elias_fano_slots(bytes: &[u8], lows: u64, highs: u64, end: u64, low_bits: u32, add: u64, out: &mut [u64]) -> Option<u64> {
    let fall = (1u64 << low_bits) - 1;
    // the last chunk read and the ones taken from it
    let (mut done, mut chunk_start, mut last_chunk, mut last_taken) = (0usize, highs, 0u64, 0u64);
    while done < out.len() {
        if chunk_start >= end {
            return None;
        }
        let valid = (end - chunk_start).min(56) as u32;
        // stream bit j of the chunk at bit j of `ones`
        let mut ones = (word_at(bytes, chunk_start) & !(u64::MAX >> valid)).reverse_bits();
        let chunk_offset = chunk_start - highs;
        let ones_here = (ones.count_ones() as usize).min(out.len() - done);
        // a chunk without ones sets no slot; the loop ends after a chunk
        // that set the last, so `last_taken` holds its one
        let before = ones;
        let mut term = (chunk_offset << low_bits).wrapping_add(add).wrapping_sub((done as u64).wrapping_mul(fall));
        let slots = &mut out[done..done + ones_here];
        if low_bits == 0 {
            for slot in slots {
                *slot = (ones.trailing_zeros() as u64).wrapping_add(term);
                ones &= ones - 1;
            }
        } else {
            let mut low_at = lows + done as u64 * low_bits as u64;
            let mut slots = slots;
            if low_bits <= 28 {
                // two low parts from one load (it holds at least 57 bits)
                let mut pairs = slots.chunks_exact_mut(2);
                for pair in &mut pairs {
                    let word = word_at(bytes, low_at);
                    pair[0] = ((ones.trailing_zeros() as u64) << low_bits).wrapping_add(word >> (64 - low_bits)).wrapping_add(term);
                    ones &= ones - 1;
                    term = term.wrapping_sub(fall);
                    pair[1] =
                        ((ones.trailing_zeros() as u64) << low_bits).wrapping_add((word << low_bits) >> (64 - low_bits)).wrapping_add(term);
                    ones &= ones - 1;
                    term = term.wrapping_sub(fall);
                    low_at += 2 * low_bits as u64;
                }
                slots = pairs.into_remainder();
            }
            for slot in slots {
                let low = word_at(bytes, low_at) >> (64 - low_bits);
                *slot = ((ones.trailing_zeros() as u64) << low_bits).wrapping_add(low).wrapping_add(term);
                ones &= ones - 1;
                term = term.wrapping_sub(fall);
                low_at += low_bits as u64;
            }
        }
        (last_chunk, last_taken) = (chunk_offset, before ^ ones);
        done += ones_here;
        chunk_start += valid as u64;
    }
    Some(last_chunk + 63 - last_taken.leading_zeros() as u64)
}

/// The OR of each step of `values` less one, b - a - 1 modulo 2^64 for
/// each value a and the next b: its sign bit is clear when every value
/// rises by at least one and by less than 2^63. Compiled three times,
/// chosen at run time: for x86 with AVX-512 (eight steps at once), with
/// AVX2 (four) and for any CPU.
#[multiversion(targets("x86_64+avx512f+avx512vl", "x86_64+avx2"))]
pub(crate) fn rising_step_signs(values: &[u64]) -> u64 {
    values.iter().zip(values.get(1..).unwrap_or_default()).fold(0u64, |signs, (&a, &b)| signs | b.wrapping_sub(a).wrapping_sub(1))
}

/// [`rising_step_signs`] of `values` read backwards: a - b - 1 for each
/// value a and the next b, clear in its sign bit when they fall.
#[multiversion(targets("x86_64+avx512f+avx512vl", "x86_64+avx2"))]
pub(crate) fn falling_step_signs(values: &[u64]) -> u64 {
    values.iter().zip(values.get(1..).unwrap_or_default()).fold(0u64, |signs, (&a, &b)| signs | a.wrapping_sub(b).wrapping_sub(1))
}

/// Minimal binary code of `z` in `0..n`.
fn write_minimal(w: &mut BitWriter, z: u64, n: u128) {
    if n <= 1 {
        return;
    }
    let s = 128 - (n - 1).leading_zeros(); // ceil(log2 n)
    let m = (1u128 << s) - n;
    let (v, len) = if (z as u128) < m { (z as u128, s - 1) } else { (z as u128 + m, s) };
    if len > 64 {
        w.write((v >> 64) as u64, len - 64);
        w.write(v as u64, 64);
    } else {
        w.write(v as u64, len);
    }
}

/// Reads a bit stream that ends at bit `end`; reading past it is an error
/// (a corrupt or truncated code), never a wrong value.
///
/// The next bits wait left-aligned in a 64-bit buffer that is topped up
/// after every code without a branch (F. Giesen, "Reading bits in far too
/// many ways", variant 4): the load of the next word does not wait for the
/// code being decoded, so a code costs a few shifts on the critical path.
#[derive(Clone)]
pub struct BitReader<'a> {
    bytes: &'a [u8],
    /// Bits consumed, from the start of `bytes`.
    pos: u64,
    end: u64,
    /// The stream from `pos` on, left-aligned. Its first `loaded` bits are
    /// loaded (zeros past the end of `bytes`); the bits after them are zero
    /// or the very bits the next refill ORs in again.
    buf: u64,
    /// 56..=63 between calls.
    loaded: u32,
    /// The byte the next refill loads from.
    next: usize,
}

pub const PAST_END: &str = "impossible code: runs past the end of the list";

/// The parts of a zeta_k code (k in 2..=28) of at most 56 bits that
/// `word`, left-aligned, starts with, `h` its leading zeros (see
/// [`BitReader::try_zeta0`]): its length when its minimal binary part is
/// the short one, 1 when it is one bit longer (0 otherwise), and its value.
/// The code is long when its k - 1 bits after the unary part are not all
/// zero, that is when the word shifted to its leading one is at least
/// 2^63 + 2^(64 - k).
#[inline(always)]
fn short_zeta0(word: u64, h: u32, k: u32) -> (u32, u32, u64) {
    let long = (word << h >= (1u64 << 63) | (1u64 << (64 - k))) as u32;
    let short_len = (k + 1) * h + k;
    // The code's top bits as a number are 2^b + y, its b binary bits y
    // after the unary part's one. A short code (b = hk + k - 1) has value
    // 2^hk + y - 1, a long one (b = hk + k) 2^hk + y - 2^hk - 1: both are
    // the top bits less (2^(k-1) - 1 or 2^k) 2^hk, less one. Branch-free:
    // which length a code has is a coin toss.
    let top = word >> (64 - short_len - long);
    let less = [(1u64 << (k - 1)) - 1, 1u64 << k][long as usize] << (h * k);
    (short_len, long, top - less - 1)
}

/// Take a short zeta code of `short_len + long` bits (see [`short_zeta0`])
/// from the bit buffer of [`BitReader::read_short_zeta0_gaps`], the buffer
/// topped up from `word` (the bytes at `next`).
#[inline(always)]
fn take_zeta0(buf: &mut u64, loaded: &mut u32, next: &mut usize, word: &[u8], short_len: u32, long: u32) {
    // The buffer is shifted and topped up as if the code were short, then
    // shifted by one more bit if it is long: `long`, the last part of the
    // length to be known, waits for one shift, not for the top-up. The
    // bit that shift drops from the word lies past the `loaded` bits (at
    // most 63), and a top-up ORs it in again.
    let rest = *loaded - short_len;
    *buf = ((*buf << short_len) | (u64::from_be_bytes(word.try_into().unwrap()) >> rest)) << long;
    *loaded = rest - long;
    *next += ((63 - *loaded) >> 3) as usize;
    *loaded |= 56;
}

impl<'a> BitReader<'a> {
    /// Read `bytes` from bit `start` up to bit `end`.
    pub fn new(bytes: &'a [u8], start: u64, end: u64) -> Result<Self, &'static str> {
        if end > bytes.len() as u64 * 8 || start > end {
            return Err("list extends past its block");
        }
        let mut r = BitReader { bytes, pos: 0, end, buf: 0, loaded: 0, next: 0 };
        r.seek_forward(start);
        Ok(r)
    }
    #[inline]
    pub fn position(&self) -> u64 {
        self.pos
    }
    #[inline]
    pub fn at_end(&self) -> bool {
        self.pos >= self.end
    }
    /// Whether only a block's zero padding is left: every code holds a 1,
    /// so fewer than 8 zero bits cannot be one.
    #[inline]
    pub fn only_padding_left(&self) -> bool {
        let left = self.remaining();
        left < 8 && (left == 0 || self.peek() >> (64 - left) == 0)
    }
    #[inline]
    pub fn remaining(&self) -> u64 {
        self.end - self.pos
    }

    /// The next 56 or more bits left-aligned (zeros past the buffer). Bits
    /// past `end` are the next list's: a caller that uses a peeked code
    /// checks its length against [`remaining`](Self::remaining) first.
    #[inline(always)]
    fn peek(&self) -> u64 {
        self.buf
    }
    #[inline(always)]
    fn refill(&mut self) {
        let word = match self.bytes.get(self.next..self.next + 8) {
            Some(word) => u64::from_be_bytes(word.try_into().unwrap()),
            None => self.word_near_the_end(),
        };
        self.buf |= word >> self.loaded;
        self.next += ((63 - self.loaded) >> 3) as usize;
        self.loaded |= 56;
    }
    #[cold]
    fn word_near_the_end(&self) -> u64 {
        word_at(self.bytes, self.next as u64 * 8)
    }
    /// Drop `n <= 56` peeked bits.
    #[inline(always)]
    fn consume(&mut self, n: u32) {
        debug_assert!(n <= 56);
        self.buf <<= n;
        self.loaded -= n;
        self.pos += n as u64;
        self.refill();
    }
    /// Consume `n` bits of a code decoded from a [`peek`](Self::peek)
    /// when they lie inside the stream; otherwise consume nothing.
    #[inline(always)]
    fn take_peeked(&mut self, n: u32) -> bool {
        let inside = n as u64 <= self.remaining();
        if inside {
            self.consume(n);
        }
        inside
    }

    /// `n <= 64` bits as an unsigned number.
    #[inline]
    pub fn read(&mut self, n: u32) -> Result<u64, &'static str> {
        if n as u64 > self.remaining() {
            return Err(PAST_END);
        }
        if n == 0 {
            return Ok(0);
        }
        if n <= 56 {
            let v = self.peek() >> (64 - n);
            self.consume(n);
            Ok(v)
        } else {
            let hi = self.read(n - 32)?;
            let lo = self.read(32)?;
            Ok((hi << 32) | lo)
        }
    }
    fn read_wide(&mut self, n: u32) -> Result<u128, &'static str> {
        if n <= 64 {
            return Ok(self.read(n)? as u128);
        }
        let hi = self.read(n - 64)? as u128;
        Ok((hi << 64) | self.read(64)? as u128)
    }
    #[inline]
    pub fn read_bit(&mut self) -> Result<bool, &'static str> {
        Ok(self.read(1)? == 1)
    }
    /// Move to bit `pos` (at least the current position, at most the end).
    #[inline]
    fn seek_forward(&mut self, pos: u64) {
        debug_assert!(pos >= self.pos && pos <= self.end);
        (self.pos, self.buf, self.loaded, self.next) = (pos & !7, 0, 0, (pos >> 3) as usize);
        self.refill();
        self.consume((pos & 7) as u32);
    }

    /// A CEESOR entry (TR-823 Algorithm 2): zeros that widen the entries,
    /// then `size` bits whose top bit is the one ending that run, then the
    /// sign bit. Returns the new size, the offset and the sign. Bit by bit:
    /// the decoder takes an entry that fits the word at hand from that
    /// word itself ([`crate::ceesor`]) and comes here only for the others
    /// (a long entry, or one cut by the end of the list).
    #[cold]
    #[inline(never)]
    pub fn read_widening_entry(&mut self, size: u64) -> Result<(u64, u64, bool), &'static str> {
        let size = size + self.read_unary()?;
        if size > 64 {
            return Err("impossible code: CEESOR entry wider than 64 bits");
        }
        let offset = (1u64 << (size - 1)) | self.read(size as u32 - 1)?;
        Ok((size, offset, self.read_bit()?))
    }

    /// Zeros before the next one (which is consumed).
    #[inline]
    pub fn read_unary(&mut self) -> Result<u64, &'static str> {
        let mut zeros = 0u64;
        loop {
            let lz = self.peek().leading_zeros() as u64;
            let avail = 56.min(self.remaining());
            if lz < avail {
                self.consume(lz as u32 + 1);
                return Ok(zeros + lz);
            }
            if avail == 0 || zeros > 128 {
                return Err(if avail == 0 { PAST_END } else { "impossible code: unary run too long" });
            }
            zeros += avail;
            self.consume(avail as u32);
        }
    }
    /// Gamma of `x + 1`, decoded from one peek when the code is at most
    /// 56 bits long (values below 2^27), else bit by bit.
    #[inline]
    pub fn read_gamma0(&mut self) -> Result<u64, &'static str> {
        let word = self.peek();
        let zeros = word.leading_zeros();
        if zeros <= 27 && self.take_peeked(2 * zeros + 1) {
            return Ok((word >> (63 - 2 * zeros)) - 1);
        }
        self.read_gamma0_by_parts()
    }
    #[cold]
    #[inline(never)]
    fn read_gamma0_by_parts(&mut self) -> Result<u64, &'static str> {
        let n = self.read_unary()?;
        if n == 64 {
            return Ok(u64::MAX);
        }
        if n > 64 {
            return Err("impossible code: gamma longer than 64 bits");
        }
        Ok(((1u64 << n) | self.read(n as u32)?) - 1)
    }
    /// `out.len()` values written by [`BitWriter::write_elias_fano`] with
    /// `low_bits` low bits each, into `out` in order, each plus `add` plus
    /// its rank (wrapping: the caller checks the last); the reader is left
    /// after the last one. The values are checked to be non-decreasing
    /// and to fit 64 bits, so a damaged sequence is an error, and the
    /// sequence's bits to lie before the stream's end. Returns the last
    /// value (0 when `out` is empty).
    ///
    /// The high parts are read 56 bits at a time, bit-reversed so that each
    /// one is found by a count of trailing zeros and cleared with one
    /// instruction; each low part is loaded from its own bit position (no
    /// load waits for another). With a_i the position of the i-th one,
    /// value i is ((a_i - i) << low_bits | low_i) + add + i = (a_i <<
    /// low_bits) + low_i + add - i (2^low_bits - 1): the loop
    /// ([`elias_fano_slots`]) adds a shifted count of zeros, the low part
    /// and a term that falls by a constant. Whether the values ascend is
    /// checked after, over `out`.
    pub fn read_elias_fano(&mut self, low_bits: u32, add: u64, out: &mut [u64]) -> Result<u64, &'static str> {
        let (last, after) = self.elias_fano_prefix(low_bits, add, out.len() as u64, out)?;
        *self = BitReader::new(self.bytes, after, self.end)?;
        Ok(last)
    }
    /// The first `out.len()` values of a sequence of `count` written by
    /// [`BitWriter::write_elias_fano`], as [`BitReader::read_elias_fano`]
    /// gives them and checks them; the reader stays where it is (the
    /// values after them are not read). Returns the last value read.
    pub fn read_elias_fano_prefix(&self, low_bits: u32, add: u64, count: u64, out: &mut [u64]) -> Result<u64, &'static str> {
        if out.len() as u64 > count {
            return Err("a prefix longer than its Elias-Fano sequence");
        }
        Ok(self.elias_fano_prefix(low_bits, add, count, out)?.0)
    }
    /// [`BitReader::read_elias_fano_prefix`]'s values and checks; also
    /// the position after the last value's high part.
    fn elias_fano_prefix(&self, low_bits: u32, add: u64, count: u64, out: &mut [u64]) -> Result<(u64, u64), &'static str> {
        if low_bits > 56 {
            return Err("impossible code: Elias-Fano low parts wider than 56 bits");
        }
        if out.is_empty() {
            return Ok((0, self.pos));
        }
        // every value takes its low bits and at least its one
        if count.checked_mul(low_bits as u64 + 1).is_none_or(|bits| bits > self.remaining()) {
            return Err(PAST_END);
        }
        let read = out.len() as u64;
        let (lows, highs) = (self.pos, self.pos + count * low_bits as u64);
        let last_at = elias_fano_slots(self.bytes, lows, highs, self.end, low_bits, add, out).ok_or(PAST_END)?;
        let high_of_last = last_at - (read - 1);
        if low_bits > 0 && high_of_last >> (64 - low_bits) != 0 {
            return Err("impossible code: Elias-Fano value wider than 64 bits");
        }
        // Slots i and i + 1 differ by value(i + 1) - value(i) + 1, modulo
        // 2^64 whatever `add` wraps. The high parts never descend (a_i - i
        // never does), so a value below the one before shares its high
        // part, and that difference less one lies in (-2^56, 0): its sign
        // bit is set. A rise keeps it clear unless it is 2^63 or more,
        // which needs a last value of 2^63 or more (or a descent, found
        // anyway): then the values are compared one by one.
        let last = out[out.len() - 1].wrapping_sub(add).wrapping_sub(read - 1);
        let ascend = if last >> 63 == 0 {
            rising_step_signs(out) >> 63 == 0
        } else {
            let value = |(rank, &slot): (usize, &u64)| slot.wrapping_sub(add).wrapping_sub(rank as u64);
            out.iter().enumerate().map(value).is_sorted()
        };
        if !ascend {
            return Err("impossible code: Elias-Fano values descend");
        }
        Ok((last, highs + last_at + 1))
    }
    /// Boldi-Vigna zeta_k of `x + 1`.
    #[inline(always)]
    pub fn read_zeta0(&mut self, k: u32) -> Result<u64, &'static str> {
        match self.try_zeta0(k) {
            Some(x) => Ok(x),
            None => self.read_zeta0_by_parts(k),
        }
    }
    /// The fast path of [`read_zeta0`](Self::read_zeta0): for k >= 2 the
    /// interval of a code with h leading zeros, [2^hk, 2^(h+1)k), holds
    /// n = 2^hk (2^k - 1) values, so its minimal binary code has
    /// s = (h+1) k bits and its first m = 2^s - n = 2^hk values take
    /// s - 1: a code of at most 56 bits is decoded from one peek with
    /// shifts alone. `None` (and nothing consumed) for a longer code or one
    /// cut by the end of the stream.
    ///
    /// The first s - 1 bits y of the minimal binary code reach m = 2^hk
    /// exactly when their top k - 1 bits are not all zero, so the code's
    /// length, which the next code waits for, is found from the k - 1 bits
    /// after the unary part with one fixed shift; its value is not waited
    /// for.
    #[inline(always)]
    pub fn try_zeta0(&mut self, k: u32) -> Option<u64> {
        let word = self.peek();
        let h = word.leading_zeros();
        if (2..=28).contains(&k) && h < 28 && (h + 1) * (k + 1) <= 56 {
            let (short_len, long, x) = short_zeta0(word, h, k);
            if self.take_peeked(short_len + long) {
                return Some(x);
            }
        }
        None
    }
    /// Ascending ids coded as zeta_k gaps of at most 56 bits (see
    /// [`try_zeta0`](Self::try_zeta0)) into `out` from its start, each the
    /// one before (`from` for the first) plus its gap plus one, wrapping
    /// past 2^64 (a caller that cares checks that the last is not below
    /// `from`: a run of 64 rises by under 2^62): how many were read. It
    /// stops at a longer code, at the end of `out`, at a code that would
    /// end past the stream, and where the refill word would pass the end
    /// of `bytes` (its last 8 bytes), each left for
    /// [`read_zeta0`](Self::read_zeta0).
    ///
    /// While the buffer's loaded bits (up to byte `next`) lie inside the
    /// stream, no code checks its length against the end; the last 56 to
    /// 63 bits are read by a second loop that does. `pos` is worked out
    /// once, after (it is `next * 8 - loaded`). The refill word is fetched
    /// before the code is decoded, and fetching it is the one check that
    /// `next` is inside the window. The code's length, which the next code
    /// waits for, is a count of zeros, a shift and a compare (see
    /// [`short_zeta0`] and [`take_zeta0`]). Turning gaps into ids here
    /// rather than after saves a pass over the run.
    #[inline(always)]
    pub fn read_short_zeta0_gaps(&mut self, k: u32, from: u64, out: &mut [u64]) -> usize {
        if !(2..=28).contains(&k) || self.bytes.len() < 8 {
            return 0;
        }
        debug_assert_eq!(self.pos + self.loaded as u64, self.next as u64 * 8);
        let (mut buf, mut loaded, mut next) = (self.buf, self.loaded, self.next);
        let (mut read, mut id) = (0, from);
        // First while the loaded bits end inside the stream (the last
        // `next` for that is `stop`, and its refill word lies inside
        // `bytes`): no code's end is checked.
        let stop = (self.end / 8).min(self.bytes.len() as u64 - 8) as usize;
        let window = &self.bytes[..stop + 8];
        while read < out.len() {
            let Some(word) = window.get(next..next + 8) else { break };
            let h = buf.leading_zeros();
            if (h + 1) * (k + 1) > 56 {
                break;
            }
            let (short_len, long, gap) = short_zeta0(buf, h, k);
            take_zeta0(&mut buf, &mut loaded, &mut next, word, short_len, long);
            id = id.wrapping_add(gap).wrapping_add(1);
            out[read] = id;
            read += 1;
        }
        // Then to the end of the stream (the last 56 to 63 bits), each
        // code checked to end inside it: the bits after are another list's.
        let mut pos = next as u64 * 8 - loaded as u64;
        while read < out.len() {
            let Some(word) = self.bytes.get(next..next + 8) else { break };
            let h = buf.leading_zeros();
            if (h + 1) * (k + 1) > 56 {
                break;
            }
            let (short_len, long, gap) = short_zeta0(buf, h, k);
            pos += (short_len + long) as u64;
            if pos > self.end {
                break;
            }
            take_zeta0(&mut buf, &mut loaded, &mut next, word, short_len, long);
            id = id.wrapping_add(gap).wrapping_add(1);
            out[read] = id;
            read += 1;
        }
        (self.buf, self.loaded, self.next) = (buf, loaded, next);
        self.pos = next as u64 * 8 - loaded as u64;
        read
    }
    #[cold]
    #[inline(never)]
    fn read_zeta0_by_parts(&mut self, k: u32) -> Result<u64, &'static str> {
        let h = self.read_unary()?;
        if h * k as u64 > 64 {
            return Err("impossible code: zeta longer than 64 bits");
        }
        let h = h as u32;
        let left = 1u128 << (h * k);
        let n = (1u128 << ((h + 1) * k)) - left;
        let z = if n <= 1 {
            0
        } else {
            let s = 128 - (n - 1).leading_zeros();
            let m = (1u128 << s) - n;
            let y = self.read_wide(s - 1)?;
            if y < m {
                y
            } else {
                ((y << 1) | self.read(1)? as u128) - m
            }
        };
        let x = left + z - 1;
        u64::try_from(x).map_err(|_| "impossible code: zeta value overflows")
    }
}

/// Zig-zag map of a signed difference to 0, 1, 2, ...
#[inline]
pub fn zigzag(x: i128) -> u64 {
    if x >= 0 {
        (x as u64) << 1
    } else {
        (((-x) as u64) << 1) - 1
    }
}
#[inline]
pub fn unzigzag(z: u64) -> i128 {
    if z & 1 == 0 {
        (z >> 1) as i128
    } else {
        -(((z >> 1) + 1) as i128)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A writer is empty until its first bit, and counts every bit after.
    #[test]
    fn a_writer_counts_its_bits() {
        let _bound = outcore_io::bound::watch("a_writer_counts_its_bits");
        let mut w = BitWriter::new();
        assert!(w.is_empty());
        assert_eq!(w.len(), 0);
        w.write_bit(false);
        assert!(!w.is_empty());
        assert_eq!(w.len(), 1);
        w.write(5, 3);
        assert_eq!(w.len(), 4);
    }

    #[derive(Debug, Clone)]
    enum Code {
        Bits(u64, u32),
        Unary(u64),
        Gamma0(u64),
        Zeta0(u64, u32),
    }

    fn code() -> impl Strategy<Value = Code> {
        let wide = prop_oneof![0u64..16, 0u64..1 << 20, any::<u64>()];
        prop_oneof![
            (any::<u64>(), 0u32..=64).prop_map(|(v, n)| Code::Bits(if n == 64 { v } else { v & ((1u64 << n) - 1) }, n)),
            (0u64..200).prop_map(Code::Unary),
            wide.clone().prop_map(Code::Gamma0),
            (wide, 1u32..=6).prop_map(|(v, k)| Code::Zeta0(v, k)),
        ]
    }

    /// Every prefix of an Elias-Fano sequence, from none to all of it,
    /// reads as the whole sequence's first values; one longer than the
    /// sequence is refused.
    #[test]
    fn elias_fano_prefixes_are_the_sequences_first_values() {
        let _bound = outcore_io::bound::watch("elias_fano_prefixes_are_the_sequences_first_values");
        let values: Vec<u64> = (0..50u64).map(|i| i * i * 37 + (i % 3)).collect();
        for low_bits in [0, 3, 9] {
            let mut w = BitWriter::new();
            w.write_elias_fano(&values, low_bits);
            let end = w.len();
            w.align();
            let mut whole = vec![0; values.len()];
            BitReader::new(w.bytes(), 0, end).unwrap().read_elias_fano(low_bits, 0, &mut whole).unwrap();
            let count = values.len() as u64;
            for read in 0..=values.len() {
                let mut prefix = vec![0; read];
                let r = BitReader::new(w.bytes(), 0, end).unwrap();
                r.read_elias_fano_prefix(low_bits, 0, count, &mut prefix).unwrap();
                assert_eq!(prefix, &whole[..read], "{low_bits} low bits, first {read}");
            }
            let mut longer = vec![0; values.len() + 1];
            assert!(BitReader::new(w.bytes(), 0, end).unwrap().read_elias_fano_prefix(low_bits, 0, count, &mut longer).is_err());
        }
    }

    proptest! {
        #[test]
        fn codes_round_trip(codes in prop::collection::vec(code(), 0..60), lead in 0u32..8) {
            let _bound = outcore_io::bound::watch("codes_round_trip");
            let mut w = BitWriter::new();
            w.write(0, lead);
            for c in &codes {
                match *c {
                    Code::Bits(v, n) => w.write(v, n),
                    Code::Unary(n) => w.write_unary(n),
                    Code::Gamma0(x) => w.write_gamma0(x),
                    Code::Zeta0(x, k) => w.write_zeta0(x, k),
                }
            }
            let mut r = BitReader::new(w.bytes(), lead as u64, w.len()).unwrap();
            for c in &codes {
                match *c {
                    Code::Bits(v, n) => prop_assert_eq!(r.read(n).unwrap(), v),
                    Code::Unary(n) => prop_assert_eq!(r.read_unary().unwrap(), n),
                    Code::Gamma0(x) => prop_assert_eq!(r.read_gamma0().unwrap(), x),
                    Code::Zeta0(x, k) => prop_assert_eq!(r.read_zeta0(k).unwrap(), x),
                }
            }
            prop_assert!(r.at_end());
            prop_assert!(r.read(1).is_err());
        }

        /// Zeta gaps read in runs by `read_short_zeta0_gaps` (into a buffer
        /// of any size, from any id, wrapping past 2^64), the ones it
        /// leaves by `read_zeta0`, are the ones written; a run leaves the
        /// reader where the codes it read end, so that a plain read after
        /// it continues right. With the stream cut inside its last code, no
        /// run reads that code (the bits after the end are another
        /// list's): the others are read and the cut one is an error.
        #[test]
        fn zeta_runs_read_what_was_written(
            values in prop::collection::vec(prop_oneof![0u64..8, 0u64..1 << 12, 0u64..1 << 30, 1u64 << 30..1 << 48, any::<u64>()], 1..200),
            k in 2u32..=6,
            lead in 0u32..8,
            run in 1usize..70,
            trailer in prop_oneof![Just(0u64), Just(u64::MAX), any::<u64>()],
            cut in any::<bool>(),
            from in prop_oneof![Just(0u64), any::<u64>()],
        ) {
            let _bound = outcore_io::bound::watch("zeta_runs_read_what_was_written");
            let mut w = BitWriter::new();
            w.write(0, lead);
            let mut last_starts = 0;
            for &x in &values {
                last_starts = w.len();
                w.write_zeta0(x, k);
            }
            let end = if cut { w.len() - 1 } else { w.len() };
            w.write(trailer, 64);
            w.write(trailer, 64);
            let whole = if cut { values.len() - 1 } else { values.len() };
            let mut r = BitReader::new(w.bytes(), lead as u64, end).unwrap();
            let (mut got, mut buffer, mut id) = (Vec::new(), vec![0u64; run], from);
            while got.len() < whole {
                let n = r.read_short_zeta0_gaps(k, id, &mut buffer);
                for &next in &buffer[..n] {
                    got.push(next.wrapping_sub(id).wrapping_sub(1));
                    id = next;
                }
                prop_assert!(got.len() <= whole && r.position() <= end, "read {} of {whole} whole codes, at {} of {end}", got.len(), r.position());
                if n == 0 {
                    let gap = r.read_zeta0(k).unwrap();
                    got.push(gap);
                    id = id.wrapping_add(gap).wrapping_add(1);
                }
            }
            prop_assert_eq!(&got[..], &values[..whole]);
            prop_assert_eq!(r.position(), if cut { last_starts } else { end });
            prop_assert_eq!(r.read_short_zeta0_gaps(k, id, &mut buffer), 0);
            prop_assert_eq!(r.position(), if cut { last_starts } else { end });
            prop_assert!(r.read_zeta0(k).is_err() || !cut);
            prop_assert!(r.read(1).is_err() || cut);
        }

        /// A code cut short by even one bit is an error, never a value: the
        /// one-peek fast paths check the code's length like the slow ones.
        #[test]
        fn cut_codes_are_errors(c in code(), lead in 0u32..8, trail in 0u32..80) {
            let _bound = outcore_io::bound::watch("cut_codes_are_errors");
            let mut w = BitWriter::new();
            w.write(0, lead);
            match c {
                Code::Bits(v, n) => w.write(v, n),
                Code::Unary(n) => w.write_unary(n),
                Code::Gamma0(x) => w.write_gamma0(x),
                Code::Zeta0(x, k) => w.write_zeta0(x, k),
            }
            let end = w.len();
            prop_assume!(end > lead as u64);
            // what follows the cut is another list's bits: ones, which a
            // reader that ignored `end` would decode as part of the code
            w.write(u64::MAX >> (64 - trail.clamp(1, 64)), trail.clamp(1, 64));
            let mut r = BitReader::new(w.bytes(), lead as u64, end - 1).unwrap();
            let cut = match c {
                Code::Bits(_, n) => r.read(n).is_err(),
                Code::Unary(_) => r.read_unary().is_err(),
                Code::Gamma0(_) => r.read_gamma0().is_err(),
                Code::Zeta0(_, k) => r.read_zeta0(k).is_err(),
            };
            prop_assert!(cut);
        }

        /// Elias-Fano sequences of any width round-trip from any bit
        /// offset, leave the reader after their last one, and read short
        /// of their end are errors.
        #[test]
        fn elias_fano_round_trips(values in prop::collection::vec(any::<u64>(), 0..300), shift in 0u32..64, low_bits in 0u32..=56, lead in 0u32..8, trail in 0u32..=64) {
            let _bound = outcore_io::bound::watch("elias_fano_round_trips");
            let mut values: Vec<u64> = values.into_iter().map(|x| x >> shift).collect();
            values.sort_unstable();
            // high parts below 2^16, so the unary codes stay short
            let low_bits = low_bits.clamp((64 - shift).saturating_sub(16), 56.min(64 - shift));
            let mut w = BitWriter::new();
            w.write(0, lead);
            w.write_elias_fano(&values, low_bits);
            let end = w.len();
            prop_assert_eq!(end - lead as u64, elias_fano_len(values.len() as u64, values.last().copied().unwrap_or(0), low_bits));
            w.write_unary(3);
            if trail > 0 {
                w.write(u64::MAX >> (64 - trail), trail);
            }
            let mut r = BitReader::new(w.bytes(), lead as u64, w.len()).unwrap();
            let mut got = vec![0; values.len()];
            let last = r.read_elias_fano(low_bits, 7, &mut got).unwrap();
            let ranked: Vec<u64> = values.iter().enumerate().map(|(rank, y)| y.wrapping_add(7 + rank as u64)).collect();
            prop_assert_eq!(&got, &ranked);
            prop_assert_eq!(last, values.last().copied().unwrap_or(0));
            prop_assert_eq!(r.position(), end);
            prop_assert_eq!(r.read_unary(), Ok(3));
            if !values.is_empty() {
                // the last one lies past the end: the high parts run out
                let mut r = BitReader::new(w.bytes(), lead as u64, end - 1).unwrap();
                prop_assert_eq!(r.read_elias_fano(low_bits, 0, &mut got), Err(PAST_END));
            }
        }

        #[test]
        fn gamma_lengths_are_the_written_ones(x in prop_oneof![0u64..1 << 12, any::<u64>()]) {
            let _bound = outcore_io::bound::watch("gamma_lengths_are_the_written_ones");
            let mut w = BitWriter::new();
            w.write_gamma0(x);
            prop_assert_eq!(gamma0_len(x), w.len());
        }

        #[test]
        fn zeta_lengths_are_the_written_ones(x in prop_oneof![0u64..1 << 12, any::<u64>()], k in 2u32..=6) {
            let _bound = outcore_io::bound::watch("zeta_lengths_are_the_written_ones");
            let mut w = BitWriter::new();
            w.write_zeta0(x, k);
            prop_assert_eq!(zeta0_len(x, k), w.len());
        }

        #[test]
        fn zigzag_round_trips(x in -(1i128 << 64) + 1..(1i128 << 64)) {
            let _bound = outcore_io::bound::watch("zigzag_round_trips");
            prop_assume!(x.unsigned_abs() < 1u128 << 63);
            prop_assert_eq!(unzigzag(zigzag(x)), x);
        }
    }

    /// An Elias-Fano sequence written part by part, whatever its values
    /// (`write_elias_fano` takes only ascending ones): the low parts of
    /// `low_bits` bits, then each high part's gap from the one before in
    /// unary.
    fn raw_sequence(low_bits: u32, lows: &[u64], high_gaps: &[u64]) -> BitWriter {
        let mut w = BitWriter::new();
        for &low in lows {
            w.write(low, low_bits);
        }
        for &gap in high_gaps {
            w.write_unary(gap);
        }
        w
    }

    /// `got.len()` Elias-Fano values from bit 0 of `w` up to bit `end`.
    fn read_sequence(w: &BitWriter, end: u64, low_bits: u32, add: u64, got: &mut [u64]) -> Result<u64, &'static str> {
        BitReader::new(w.bytes(), 0, end).unwrap().read_elias_fano(low_bits, add, got)
    }

    /// Elias-Fano values that descend (possible only between values with
    /// the same high part) are an error, whether `add` wraps the slots
    /// round 2^64 or not; equal values are not.
    #[test]
    fn descending_elias_fano_values_are_refused() {
        let _bound = outcore_io::bound::watch("descending_elias_fano_values_are_refused");
        // low parts 2 bits: 6 = (1, 10), then 5 = (1, 01) or 6 again
        let sequence = |second_low: u64| raw_sequence(2, &[0b10, second_low], &[1, 0]);
        for add in [0, 1 << 40, u64::MAX - 3, (1 << 63) - 9] {
            let w = sequence(0b01);
            let mut got = [0; 2];
            let read = read_sequence(&w, w.len(), 2, add, &mut got);
            assert_eq!(read, Err("impossible code: Elias-Fano values descend"), "add {add}");
            let w = sequence(0b10);
            assert_eq!(read_sequence(&w, w.len(), 2, add, &mut got), Ok(6), "add {add}");
            assert_eq!(got, [6u64.wrapping_add(add), 7u64.wrapping_add(add)]);
        }
        // two descents, 6 5 7 6 under one high part: the check over the
        // slots does not let the second cancel the first
        let w = raw_sequence(2, &[0b10, 0b01, 0b11, 0b10], &[1, 0, 0, 0]);
        let mut got = [0; 4];
        let read = read_sequence(&w, w.len(), 2, 0, &mut got);
        assert_eq!(read, Err("impossible code: Elias-Fano values descend"));
    }

    /// A value whose high part, shifted past its low bits, does not fit 64
    /// bits is an error; the largest that fits is read back.
    #[test]
    fn elias_fano_values_wider_than_64_bits_are_refused() {
        let _bound = outcore_io::bound::watch("elias_fano_values_wider_than_64_bits_are_refused");
        // wide low parts: the high parts' unary codes stay short
        for low_bits in [50u32, 53, 56] {
            let fits = u64::MAX >> low_bits;
            for (high, wide) in [(fits, false), (fits + 1, true)] {
                let w = raw_sequence(low_bits, &[3], &[high]);
                let mut got = [0; 1];
                let read = read_sequence(&w, w.len(), low_bits, 0, &mut got);
                if wide {
                    assert_eq!(read, Err("impossible code: Elias-Fano value wider than 64 bits"), "{low_bits} low bits, high {high}");
                } else {
                    assert_eq!(read, Ok(high << low_bits | 3), "{low_bits} low bits, high {high}");
                }
            }
        }
    }

    /// The shortest sequence of its length (every value's high part the
    /// one before's) that ends exactly at the stream's end reads back; one
    /// bit less is too short.
    #[test]
    fn the_shortest_elias_fano_sequence_fits_its_bits_exactly() {
        let _bound = outcore_io::bound::watch("the_shortest_elias_fano_sequence_fits_its_bits_exactly");
        for low_bits in [0u32, 1, 2, 7, 56] {
            for count in [1usize, 2, 5, 64] {
                let lows: Vec<u64> = (0..count as u64).map(|i| i.min((1 << low_bits) - 1)).collect();
                let w = raw_sequence(low_bits, &lows, &vec![0; count]);
                assert_eq!(w.len(), count as u64 * (low_bits as u64 + 1));
                let mut got = vec![0; count];
                let last = read_sequence(&w, w.len(), low_bits, 0, &mut got);
                assert_eq!(last, Ok(lows[count - 1]), "{count} values of {low_bits} low bits");
                let want: Vec<u64> = lows.iter().enumerate().map(|(rank, &low)| low + rank as u64).collect();
                assert_eq!(got, want, "{count} values of {low_bits} low bits");
                let cut = read_sequence(&w, w.len() - 1, low_bits, 0, &mut got);
                assert_eq!(cut, Err(PAST_END), "{count} values of {low_bits} low bits, one bit short");
            }
        }
    }

    /// Gamma and zeta codes longer than any 64-bit value's are errors that
    /// say so, whatever follows them.
    #[test]
    fn codes_too_long_for_64_bits_are_errors() {
        let _bound = outcore_io::bound::watch("codes_too_long_for_64_bits_are_errors");
        for zeros in [65u64, 66, 100, 127] {
            let mut w = BitWriter::new();
            w.write_unary(zeros);
            w.write(0, 64);
            w.write(0, 64);
            let mut r = BitReader::new(w.bytes(), 0, w.len()).unwrap();
            assert_eq!(r.read_gamma0(), Err("impossible code: gamma longer than 64 bits"), "{zeros} zeros");
        }
        // h k > 64 while h + k and h / k are not
        for (h, k) in [(33u64, 2u32), (40, 2), (22, 3), (17, 4)] {
            let mut w = BitWriter::new();
            w.write_unary(h);
            w.write(u64::MAX, 64);
            w.write(u64::MAX, 64);
            let mut r = BitReader::new(w.bytes(), 0, w.len()).unwrap();
            assert_eq!(r.read_zeta0(k), Err("impossible code: zeta longer than 64 bits"), "h {h}, k {k}");
        }
    }

    /// A sequence with no low parts at the stream's first bit: its high
    /// parts start there, and its last one ends it (one bit short, the
    /// high parts run out).
    #[test]
    fn elias_fano_without_low_bits_from_bit_0() {
        let _bound = outcore_io::bound::watch("elias_fano_without_low_bits_from_bit_0");
        let values = [0, 0, 3, 70];
        let mut w = BitWriter::new();
        w.write_elias_fano(&values, 0);
        let mut got = [0; 4];
        let read = read_sequence(&w, w.len(), 0, 1, &mut got);
        assert_eq!(read, Ok(70));
        assert_eq!(got, [1, 2, 6, 74]);
        let read = read_sequence(&w, w.len() - 1, 0, 1, &mut got);
        assert_eq!(read, Err(PAST_END));
    }

    /// Values that rise by 2^63 or more from one to the next are no
    /// descent, and values past 2^63 that descend are one: there the
    /// values are compared one by one.
    #[test]
    fn elias_fano_values_may_rise_by_half_the_range() {
        let _bound = outcore_io::bound::watch("elias_fano_values_may_rise_by_half_the_range");
        let values = [0, 5, (1u64 << 63) + 5, u64::MAX - 3];
        let mut w = BitWriter::new();
        w.write_elias_fano(&values, 56);
        let mut got = [0; 4];
        let read = read_sequence(&w, w.len(), 56, 0, &mut got);
        assert_eq!(read, Ok(u64::MAX - 3));
        assert_eq!(got, [0, 6, (1 << 63) + 7, u64::MAX]);
        // and past 2^63 a descent is still one: 2^63 + 6, then 2^63 + 5
        let w = raw_sequence(56, &[6, 5], &[1 << 7, 0]);
        let mut got = [0; 2];
        let read = read_sequence(&w, w.len(), 56, 0, &mut got);
        assert_eq!(read, Err("impossible code: Elias-Fano values descend"));
    }

    #[test]
    fn gamma_and_zeta_lengths() {
        let _bound = outcore_io::bound::watch("gamma_and_zeta_lengths");
        let len = |f: &dyn Fn(&mut BitWriter)| {
            let mut w = BitWriter::new();
            f(&mut w);
            w.len()
        };
        assert_eq!(len(&|w| w.write_gamma0(0)), 1);
        assert_eq!(len(&|w| w.write_gamma0(6)), 5);
        // zeta_3: 1..7 take 1 + 3 bits (the interval has 7 values: 2 or 3 bits)
        assert_eq!(len(&|w| w.write_zeta0(0, 3)), 3);
        assert_eq!(len(&|w| w.write_zeta0(6, 3)), 4);
    }

    /// The largest values' zeta codes, whose minimal binary part is longer
    /// than 64 bits for most k (u64::MAX + 1 = 2^64 takes its long form):
    /// each reads back, at its stated length, after a lead of 0..8 bits.
    #[test]
    fn the_largest_values_zeta_codes_round_trip() {
        let _bound = outcore_io::bound::watch("the_largest_values_zeta_codes_round_trip");
        let values = [u64::MAX, u64::MAX - 1, 1 << 63, (1 << 63) - 1, (1 << 62) + 12345];
        for k in 2..=8 {
            for lead in 0..8u32 {
                let mut w = BitWriter::new();
                w.write(0, lead);
                for &x in &values {
                    w.write_zeta0(x, k);
                }
                let want: u64 = lead as u64 + values.iter().map(|&x| zeta0_len(x, k)).sum::<u64>();
                assert_eq!(w.len(), want, "k {k}");
                let bytes = w.bytes().to_vec();
                let mut r = BitReader::new(&bytes, lead as u64, w.len()).unwrap();
                for &x in &values {
                    assert!(!r.at_end(), "k {k}, lead {lead}: at the end at bit {}", r.position());
                    assert_eq!(r.read_zeta0(k), Ok(x), "k {k}, lead {lead}");
                }
                assert!(r.at_end(), "k {k}: {} of {} bits read", r.position(), w.len());
            }
        }
    }

    /// Fewer than 8 zero bits left are a block's padding; 8 zero bits are
    /// not (no code is all zeros, and padding fills less than a byte).
    #[test]
    fn only_fewer_than_8_zero_bits_are_padding() {
        let _bound = outcore_io::bound::watch("only_fewer_than_8_zero_bits_are_padding");
        for lead in 0..8u32 {
            for left in 0..=9u32 {
                for one_at in [None, Some(0), Some(left.saturating_sub(1))] {
                    let mut w = BitWriter::new();
                    w.write((1 << lead) - 1, lead);
                    let mut tail = 0u64;
                    if let (Some(at), true) = (one_at, left > 0) {
                        tail = 1 << (left - 1 - at);
                    }
                    w.write(tail, left);
                    // the next list's bits: ones
                    w.write(u64::MAX, 64);
                    let r = BitReader::new(w.bytes(), lead as u64, (lead + left) as u64).unwrap();
                    let padding = left < 8 && tail == 0;
                    assert_eq!(r.only_padding_left(), padding, "lead {lead}, {left} bits left holding {tail:b}");
                }
            }
        }
    }

    /// A unary run is at most a few codes long: one of 300 zeros is an
    /// impossible code, not a count the caller would loop on.
    #[test]
    fn a_unary_run_past_its_limit_is_an_error() {
        let _bound = outcore_io::bound::watch("a_unary_run_past_its_limit_is_an_error");
        for zeros in [200u64, 223, 224, 300, 1000] {
            let mut w = BitWriter::new();
            w.write_unary(zeros);
            w.write(u64::MAX, 64);
            let mut r = BitReader::new(w.bytes(), 0, zeros + 1).unwrap();
            let want = if zeros < 224 { Ok(zeros) } else { Err("impossible code: unary run too long") };
            assert_eq!(r.read_unary(), want, "{zeros} zeros");
        }
    }

    /// A zeta code whose minimal binary part is longer than 64 bits and
    /// whose value does not fit 64 bits is an error: for each k the
    /// interval of u64::MAX, read as one of its largest codes (two ones,
    /// then zeros, past the unary length): high bits set, low 64 clear.
    #[test]
    fn zeta_codes_past_u64_are_errors() {
        let _bound = outcore_io::bound::watch("zeta_codes_past_u64_are_errors");
        for k in 2..=8u32 {
            let h = 64 / k;
            let s = (h + 1) * k;
            let mut w = BitWriter::new();
            w.write_unary(h as u64);
            w.write(0b11, 2);
            w.write(0, (s - 2).min(64));
            w.write(0, (s - 2).saturating_sub(64));
            assert_eq!(w.len(), (h + 1 + s) as u64);
            let mut r = BitReader::new(w.bytes(), 0, w.len()).unwrap();
            assert_eq!(r.read_zeta0(k), Err("impossible code: zeta value overflows"), "k {k}");
        }
    }

    /// A run reads short codes up to the last bit of the stream, the bits
    /// after it another list's (zeros, ones, or codes that would fit): the
    /// list's last codes need not take the one-code path.
    #[test]
    fn zeta_runs_read_to_the_end_of_the_stream() {
        let _bound = outcore_io::bound::watch("zeta_runs_read_to_the_end_of_the_stream");
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for k in 2..=6u32 {
            for count in 1..=40usize {
                for trailer in [0, u64::MAX, 0x8888_8888_8888_8888] {
                    let values: Vec<u64> = (0..count)
                        .map(|_| {
                            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                            (state >> 33) % (1 << (state % 17))
                        })
                        .collect();
                    let mut w = BitWriter::new();
                    w.write(0, (count % 8) as u32);
                    for &x in &values {
                        w.write_zeta0(x, k);
                    }
                    let end = w.len();
                    w.write(trailer, 64);
                    w.write(trailer, 64);
                    let mut r = BitReader::new(w.bytes(), (count % 8) as u64, end).unwrap();
                    let mut buffer = [0u64; 64];
                    let n = r.read_short_zeta0_gaps(k, u64::MAX, &mut buffer);
                    assert_eq!((n, r.position()), (count, end), "k {k}, values {values:?}");
                    let mut id = u64::MAX;
                    for (&got, &x) in buffer.iter().zip(&values) {
                        id = id.wrapping_add(x).wrapping_add(1);
                        assert_eq!(got, id, "k {k}, values {values:?}");
                    }
                }
            }
        }
    }

    /// Every zeta code of the first 5,000 values and a few longer ones (up
    /// to 56 bits), followed by zeros or by ones, is read by a run (a code
    /// 1 0...01 followed by zeros meets the long codes' bound exactly).
    #[test]
    fn zeta_runs_read_codes_followed_by_zeros_or_ones() {
        let _bound = outcore_io::bound::watch("zeta_runs_read_codes_followed_by_zeros_or_ones");
        for k in 2..=6u32 {
            for x in (0..5000u64).chain([1 << 20, (1 << 24) + 7, if k == 2 { (1 << 26) + 1 } else { (1 << 36) + 1 }]) {
                for fill in [0, u64::MAX] {
                    let mut w = BitWriter::new();
                    w.write_zeta0(x, k);
                    let len = w.len();
                    w.write(fill, 64);
                    w.write(fill, 64);
                    let mut r = BitReader::new(w.bytes(), 0, w.len()).unwrap();
                    let mut buffer = [0u64; 1];
                    assert_eq!(r.read_short_zeta0_gaps(k, 7, &mut buffer), 1, "k {k}, x {x}");
                    assert_eq!((buffer[0], r.position()), (x + 8, len), "k {k}, x {x}, fill {fill:x}");
                }
            }
        }
    }

    /// The one-peek path decodes every short zeta code (nothing falls to
    /// the slow path that it states it serves), and a cut one is left
    /// untouched for the slow path's error.
    #[test]
    fn short_zeta_codes_take_the_one_peek_path() {
        let _bound = outcore_io::bound::watch("short_zeta_codes_take_the_one_peek_path");
        for k in 2..=6u32 {
            for x in (0..2000u64).chain([1 << 20, (1 << 24) + 7]) {
                let mut w = BitWriter::new();
                w.write_zeta0(x, k);
                let len = w.len();
                w.write(u64::MAX, 64);
                let mut r = BitReader::new(w.bytes(), 0, len).unwrap();
                assert_eq!(r.try_zeta0(k), Some(x), "k {k}, x {x}");
                assert!(r.at_end(), "k {k}, x {x}");
                let mut cut = BitReader::new(w.bytes(), 0, len - 1).unwrap();
                assert_eq!(cut.try_zeta0(k), None, "k {k}, x {x} cut");
                assert_eq!(cut.position(), 0);
            }
        }
    }
}
