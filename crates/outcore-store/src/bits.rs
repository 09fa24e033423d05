//! Big-endian bit streams (most significant bit first, as CEESOR and
//! WebGraph write them) and the instantaneous codes of the compressed
//! encodings: Elias gamma, Boldi-Vigna zeta_k and minimal binary.

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
pub struct BitReader<'a> {
    bytes: &'a [u8],
    pos: u64,
    end: u64,
}

pub const PAST_END: &str = "impossible code: runs past the end of the list";

impl<'a> BitReader<'a> {
    /// Read `bytes` from bit `start` up to bit `end`.
    pub fn new(bytes: &'a [u8], start: u64, end: u64) -> Result<Self, &'static str> {
        if end > bytes.len() as u64 * 8 || start > end {
            return Err("list extends past its block");
        }
        Ok(BitReader { bytes, pos: start, end })
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

    /// The next 57 or more bits left-aligned (zeros past the buffer).
    #[inline]
    fn peek(&self) -> u64 {
        let byte = (self.pos >> 3) as usize;
        let word = if byte + 8 <= self.bytes.len() {
            u64::from_be_bytes(self.bytes[byte..byte + 8].try_into().unwrap())
        } else {
            let mut b = [0u8; 8];
            let avail = self.bytes.len().saturating_sub(byte);
            b[..avail].copy_from_slice(&self.bytes[byte..byte + avail]);
            u64::from_be_bytes(b)
        };
        word << (self.pos & 7)
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
            self.pos += n as u64;
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
    /// Zeros before the next one (which is consumed).
    #[inline]
    pub fn read_unary(&mut self) -> Result<u64, &'static str> {
        let mut zeros = 0u64;
        loop {
            let lz = self.peek().leading_zeros() as u64;
            let avail = 56.min(self.remaining());
            if lz < avail {
                self.pos += lz + 1;
                return Ok(zeros + lz);
            }
            if avail == 0 || zeros > 128 {
                return Err(if avail == 0 { PAST_END } else { "impossible code: unary run too long" });
            }
            zeros += avail;
            self.pos += avail;
        }
    }
    #[inline]
    pub fn read_gamma(&mut self) -> Result<u64, &'static str> {
        let n = self.read_unary()?;
        if n > 63 {
            return Err("impossible code: gamma longer than 64 bits");
        }
        Ok((1u64 << n) | self.read(n as u32)?)
    }
    #[inline]
    pub fn read_gamma0(&mut self) -> Result<u64, &'static str> {
        let n = self.read_unary()?;
        if n == 64 {
            return Ok(u64::MAX);
        }
        if n > 64 {
            return Err("impossible code: gamma longer than 64 bits");
        }
        Ok(((1u64 << n) | self.read(n as u32)?) - 1)
    }
    #[inline]
    pub fn read_zeta0(&mut self, k: u32) -> Result<u64, &'static str> {
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

    proptest! {
        #[test]
        fn codes_round_trip(codes in prop::collection::vec(code(), 0..60), lead in 0u32..8) {
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

        #[test]
        fn zigzag_round_trips(x in -(1i128 << 64) + 1..(1i128 << 64)) {
            prop_assume!(x.unsigned_abs() < 1u128 << 63);
            prop_assert_eq!(unzigzag(zigzag(x)), x);
        }
    }

    #[test]
    fn gamma_and_zeta_lengths() {
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
}
