//! The mutator the text and binary fuzzers share (`fuzz_parsers`, and
//! `fuzz_updates` of outcore-dynamic): reproducible random changes that
//! keep an input near its seed, with the numbers and words that break
//! parsers (huge counts, negative and floating values, NUL, 0xff).
#![allow(dead_code)]

/// xorshift64*: reproducible from the seed printed with each finding.
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Change `data` in one to four ways.
pub fn mutate(rng: &mut Rng, seed: &[u8]) -> Vec<u8> {
    let mut data = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(data.len() + 1);
        match rng.below(9) {
            0 if !data.is_empty() => {
                let i = at.min(data.len() - 1);
                data[i] ^= 1 << rng.below(8);
            }
            1 if !data.is_empty() => {
                let i = at.min(data.len() - 1);
                data[i] = rng.next() as u8;
            }
            2 => {
                let byte = *b"0123456789 \t\n-.%#eE,:=x\0\xff".get(rng.below(26)).unwrap_or(&b'9');
                data.insert(at, byte);
            }
            3 if !data.is_empty() => {
                let n = rng.below(16).min(data.len() - at.min(data.len()));
                data.drain(at.min(data.len())..at.min(data.len()) + n);
            }
            4 => data.truncate(at),
            5 if !data.is_empty() => {
                // repeat a span
                let len = rng.below(64).min(data.len() - at.min(data.len() - 1));
                let start = at.min(data.len() - 1);
                let span = data[start..start + len].to_vec();
                for _ in 0..1 + rng.below(8) {
                    data.splice(start..start, span.iter().copied());
                }
            }
            6 => {
                // a huge number where a number was
                let huge = [
                    "18446744073709551615",
                    "4294967296",
                    "99999999999999999999999",
                    "1e300",
                    "-1",
                    "0",
                    "340282366920938463463374607431768211456",
                ];
                let word = huge[rng.below(huge.len())].as_bytes();
                let start = at.min(data.len());
                let end = (start..data.len()).find(|&i| !data[i].is_ascii_digit()).unwrap_or(data.len());
                data.splice(start..end, word.iter().copied());
            }
            7 if data.len() >= 8 => {
                // a huge little-endian word (binary formats, compressed headers)
                let start = at.min(data.len() - 8);
                data[start..start + 8].copy_from_slice(&(u64::MAX >> rng.below(40)).to_le_bytes());
            }
            _ => {
                let n = rng.below(8);
                let start = at.min(data.len());
                data.splice(start..start, (0..n).map(|_| rng.next() as u8));
            }
        }
    }
    data
}
