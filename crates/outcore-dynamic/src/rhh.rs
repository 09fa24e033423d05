//! Robin Hood hashing with linear probing over a byte region (thesis
//! section 4.2). Each slot is `[management byte][key: u64][payload]`; the
//! management byte holds the probe distance + 1 in its low 7 bits (0 =
//! empty) and a tombstone flag in bit 7. Deleted slots keep their distance
//! so lookups can stop early; a tombstone that ends a cluster is cleared.
//!
//! Home slots are the top bits of the key's hash, so a cluster is ordered
//! by home slot and an insertion is "find the place, shift the rest of the
//! cluster right by one" (the classic swap loop, done as one move so a
//! write touches one contiguous range the undo log can save).
//!
//! A [`Table`] is a view: the owner keeps the counts, decides when to grow
//! or rehash, and passes an [`Undo`] that saves bytes before they change.

use crate::hash::mix;

pub const EMPTY: u8 = 0;
const TOMB: u8 = 0x80;
/// Longest probe distance a management byte can hold.
pub const MAX_DIST: u32 = 126;
/// The largest slot of any table (the vertex table's 25 bytes, rounded up).
pub const MAX_SLOT: usize = 32;

/// Saves the old contents of a range before a table overwrites it.
pub trait Undo {
    /// Whether saves are kept (else the table skips copying them).
    fn wants(&self) -> bool {
        true
    }
    /// The bytes at `address` (in the heap's mapping) are about to change;
    /// `bytes` is a copy of them.
    fn save(&mut self, address: usize, bytes: &[u8]);
}

/// Writes into regions allocated since the last commit need no undo.
pub struct NoUndo;
impl Undo for NoUndo {
    #[inline]
    fn wants(&self) -> bool {
        false
    }
    #[inline]
    fn save(&mut self, _: usize, _: &[u8]) {}
}

/// An insertion needed a probe distance above [`MAX_DIST`]: grow or rehash.
#[derive(Debug)]
pub struct Overfull;

/// A Robin Hood table: a typed view of `cap` slots of `slot` bytes in a
/// heap. Its methods read and write whole values at slot positions, never
/// hand out references into the region, and keep every access inside it.
/// Copies of a table are views of the same slots.
#[derive(Clone, Copy, Debug)]
pub struct Table {
    base: *mut u8,
    cap: u64,
    slot: usize,
    shift: u32,
}

/// Capacity needed to hold `n` elements at no more than 90% load.
pub fn capacity_for(n: u64, min: u64) -> u64 {
    (n * 10 / 9 + 1).next_power_of_two().max(min)
}

/// Whether `live` elements overflow the 90% load of `cap` slots.
#[inline]
pub fn over_load(live: u64, cap: u64) -> bool {
    live * 10 > cap * 9
}

impl Table {
    /// A view of the `cap * slot` bytes at `base`; `cap` a power of two
    /// >= 2, `slot` at least 9 bytes (management byte and key).
    ///
    /// # Safety
    /// `base` must be valid for reads and writes of `cap * slot` bytes for
    /// as long as this table or a copy of it is used, and no other code may
    /// access those bytes while one of its methods runs (tables are not
    /// `Send`: one thread uses them).
    // SAFETY: an unsafe fn; its contract is the `# Safety` section above.
    pub unsafe fn new(base: *mut u8, cap: u64, slot: usize) -> Table {
        assert!(cap.is_power_of_two() && cap >= 2 && (9..=MAX_SLOT).contains(&slot), "table of {cap} slots of {slot} bytes");
        Table { base, cap, slot, shift: 64 - cap.trailing_zeros() }
    }

    pub fn bytes(cap: u64, slot: usize) -> u64 {
        cap * slot as u64
    }

    /// Slots in the table.
    pub fn cap(&self) -> u64 {
        self.cap
    }

    #[inline]
    pub fn home(&self, hash: u64) -> u64 {
        hash >> self.shift
    }
    #[inline]
    fn next(&self, pos: u64) -> u64 {
        (pos + 1) & (self.cap - 1)
    }
    /// The address of byte `at` of slot `pos` (wrapped into the table, and
    /// `at` checked against the slot), for reads and writes of `len` bytes.
    #[inline]
    fn addr(&self, pos: u64, at: usize, len: usize) -> *mut u8 {
        assert!(at + len <= self.slot, "bytes {at}..{} of a {}-byte slot", at + len, self.slot);
        let pos = (pos & (self.cap - 1)) as usize;
        // SAFETY: pos < cap and at + len <= slot, so the address is inside
        // the cap * slot bytes that `new`'s contract makes valid.
        unsafe { self.base.add(pos * self.slot + at) }
    }
    #[inline]
    fn read<const N: usize>(&self, pos: u64, at: usize) -> [u8; N] {
        let p = self.addr(pos, at, N);
        let mut out = [0u8; N];
        // SAFETY: `addr` checked that N bytes from p lie in the table, which
        // `new`'s contract makes readable and unaliased while this runs.
        unsafe { std::ptr::copy_nonoverlapping(p, out.as_mut_ptr(), N) };
        out
    }
    #[inline]
    fn write(&self, pos: u64, at: usize, bytes: &[u8]) {
        let p = self.addr(pos, at, bytes.len());
        // SAFETY: as in `read`, for writes; `bytes` is a distinct local value.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len()) };
    }
    /// The address of slot `pos` and a copy of `n` slots from it (not
    /// wrapping; `pos + n <= cap`) handed to `f`: on the stack for the
    /// usual few slots.
    #[inline]
    fn with_slots(&self, pos: u64, n: u64, f: impl FnOnce(usize, &[u8])) {
        assert!(pos + n <= self.cap);
        let len = n as usize * self.slot;
        let mut stack = [0u8; 8 * MAX_SLOT];
        let mut heap = Vec::new();
        let copy: &mut [u8] = if len <= stack.len() {
            &mut stack[..len]
        } else {
            heap.resize(len, 0);
            &mut heap
        };
        let address = self.addr(pos, 0, 1);
        // SAFETY: the slots lie in the table (checked above), which the
        // contract of `new` makes readable; `copy` is a local buffer of len bytes.
        unsafe { std::ptr::copy_nonoverlapping(address, copy.as_mut_ptr(), len) };
        f(address as usize, copy)
    }

    /// The management byte of slot `pos`.
    #[inline]
    pub fn mgmt(&self, pos: u64) -> u8 {
        self.read::<1>(pos, 0)[0]
    }
    #[inline]
    fn set_mgmt(&self, pos: u64, m: u8) {
        self.write(pos, 0, &[m]);
    }
    /// The key of slot `pos`.
    #[inline]
    pub fn key(&self, pos: u64) -> u64 {
        self.read_u64(pos, 1)
    }
    /// The u64 at byte `at` of slot `pos` (byte 0 is the management byte).
    #[inline]
    pub fn read_u64(&self, pos: u64, at: usize) -> u64 {
        u64::from_le_bytes(self.read(pos, at))
    }
    #[inline]
    pub fn read_u32(&self, pos: u64, at: usize) -> u32 {
        u32::from_le_bytes(self.read(pos, at))
    }
    /// Overwrite the u64 at byte `at` of slot `pos` (save the slot first
    /// with [`Table::touch`] if the last commit can see it).
    #[inline]
    pub fn write_u64(&self, pos: u64, at: usize, v: u64) {
        self.write(pos, at, &v.to_le_bytes());
    }
    #[inline]
    pub fn write_u32(&self, pos: u64, at: usize, v: u32) {
        self.write(pos, at, &v.to_le_bytes());
    }
    /// Ask the CPU to fetch slot `pos` (a hint).
    #[inline]
    pub fn prefetch(&self, pos: u64) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a prefetch is a hint and never faults; the address is in the table.
        unsafe {
            std::arch::x86_64::_mm_prefetch(self.addr(pos, 0, 1) as *const i8, std::arch::x86_64::_MM_HINT_T0)
        };
        #[cfg(not(target_arch = "x86_64"))]
        let _ = pos;
    }
    #[inline]
    pub fn live(&self, pos: u64) -> bool {
        let m = self.mgmt(pos);
        m != EMPTY && m & TOMB == 0
    }
    #[inline]
    fn dist(m: u8) -> u32 {
        (m & 0x7f) as u32 - 1
    }

    /// Probe the cluster of `key`: calls `visit(pos)` on every live slot
    /// holding `key` until it returns true. Returns that slot, if any.
    #[inline]
    pub fn probe(&self, key: u64, mut visit: impl FnMut(u64) -> bool) -> Option<u64> {
        let mut pos = self.home(mix(key));
        let mut d = 0;
        loop {
            let m = self.mgmt(pos);
            if m == EMPTY {
                return None;
            }
            let sd = Self::dist(m);
            if sd < d {
                return None;
            }
            if sd == d && m & TOMB == 0 && self.key(pos) == key && visit(pos) {
                return Some(pos);
            }
            d += 1;
            if d > MAX_DIST + 1 {
                return None;
            }
            pos = self.next(pos);
        }
    }

    /// Insert a slot body (`slot - 1` bytes starting with the key) without
    /// looking for an equal key. Returns its position.
    pub fn insert(&self, body: &[u8], undo: &mut impl Undo) -> Result<u64, Overfull> {
        debug_assert_eq!(body.len(), self.slot - 1);
        let key = u64::from_le_bytes(body[..8].try_into().unwrap());
        let mut pos = self.home(mix(key));
        let mut d = 0;
        loop {
            let m = self.mgmt(pos);
            if m == EMPTY {
                break;
            }
            let sd = Self::dist(m);
            if m & TOMB != 0 && sd <= d {
                break;
            }
            if sd < d {
                self.shift_right(pos, undo)?;
                break;
            }
            d += 1;
            if d > MAX_DIST {
                return Err(Overfull);
            }
            pos = self.next(pos);
        }
        self.save(pos, 1, undo);
        self.set_mgmt(pos, d as u8 + 1);
        self.write(pos, 1, body);
        Ok(pos)
    }

    /// Move the cluster tail starting at `pos` one slot right, up to the
    /// first empty slot or tombstone (which it absorbs).
    fn shift_right(&self, pos: u64, undo: &mut impl Undo) -> Result<(), Overfull> {
        let mut end = pos;
        let mut n = 0u64;
        loop {
            let m = self.mgmt(end);
            if m == EMPTY || m & TOMB != 0 {
                break;
            }
            if Self::dist(m) + 1 > MAX_DIST {
                return Err(Overfull);
            }
            end = self.next(end);
            n += 1;
            if n >= self.cap {
                return Err(Overfull);
            }
        }
        // Slots pos..=end (cyclically) change.
        self.save(pos, n + 1, undo);
        let mut to = end;
        let mut moved = [0u8; MAX_SLOT];
        while to != pos {
            let from = (to + self.cap - 1) & (self.cap - 1);
            let slot = &mut moved[..self.slot];
            // SAFETY: `from` is a slot of the table (masked by the cap), whose
            // bytes `new`'s contract makes valid; `slot` is a local buffer.
            unsafe { std::ptr::copy_nonoverlapping(self.addr(from, 0, self.slot), slot.as_mut_ptr(), self.slot) };
            slot[0] += 1;
            self.write(to, 0, slot);
            to = from;
        }
        Ok(())
    }

    /// Save `n` slots from `pos` (wrapping) before they change.
    #[inline]
    fn save(&self, pos: u64, n: u64, undo: &mut impl Undo) {
        if !undo.wants() {
            return;
        }
        let first = n.min(self.cap - pos);
        self.with_slots(pos, first, |a, b| undo.save(a, b));
        if first < n {
            self.with_slots(0, n - first, |a, b| undo.save(a, b));
        }
    }

    /// Save a live slot's bytes before the caller edits its payload.
    #[inline]
    pub fn touch(&self, pos: u64, undo: &mut impl Undo) {
        self.save(pos, 1, undo);
    }

    /// Delete the live slot at `pos`. Returns how many tombstones the table
    /// gained (1, or less when the tail of a cluster could be emptied).
    pub fn remove(&self, pos: u64, undo: &mut impl Undo) -> i64 {
        self.save(pos, 1, undo);
        self.set_mgmt(pos, self.mgmt(pos) | TOMB);
        // A tombstone followed by an empty slot or a slot at its home ends
        // the cluster: no lookup needs to pass it.
        let mut gained = 1i64;
        let mut p = pos;
        loop {
            let next = self.mgmt(self.next(p));
            if !(next == EMPTY || Self::dist(next) == 0) || self.mgmt(p) & TOMB == 0 {
                break;
            }
            self.save(p, 1, undo);
            self.set_mgmt(p, EMPTY);
            gained -= 1;
            p = (p + self.cap - 1) & (self.cap - 1);
            if p == pos {
                break;
            }
        }
        gained
    }

    /// Every live slot, in slot order.
    pub fn for_each_live(&self, mut f: impl FnMut(u64)) {
        for pos in 0..self.cap {
            if self.live(pos) {
                f(pos)
            }
        }
    }

    /// Insert every live slot of `self` into `into` (a fresh table).
    pub fn rehash_into(&self, into: &Table) -> Result<(), Overfull> {
        let mut result = Ok(());
        let mut body = [0u8; MAX_SLOT];
        self.for_each_live(|pos| {
            if result.is_ok() {
                let b = &mut body[..self.slot - 1];
                // SAFETY: bytes 1..slot of slot `pos` lie in the table; `b` is a local buffer.
                unsafe { std::ptr::copy_nonoverlapping(self.addr(pos, 1, self.slot - 1), b.as_mut_ptr(), b.len()) };
                result = into.insert(b, &mut NoUndo).map(|_| ());
            }
        });
        result
    }

    /// Largest probe distance of a live or deleted slot (for `stats`).
    /// Whether every slot's management byte is one a table writes (empty,
    /// or a probe distance of at most [`MAX_DIST`], live or removed): the
    /// distances are read unchecked everywhere else.
    pub fn check_slots(&self) -> Result<(), String> {
        match (0..self.cap).find(|&p| {
            let m = self.mgmt(p);
            m != EMPTY && !(1..=MAX_DIST + 1).contains(&((m & 0x7f) as u32))
        }) {
            Some(p) => Err(format!("slot {p} of a table of {} has management byte {:#04x}", self.cap, self.mgmt(p))),
            None => Ok(()),
        }
    }

    pub fn max_probe(&self) -> u32 {
        (0..self.cap).map(|p| self.mgmt(p)).filter(|&m| m != EMPTY).map(Self::dist).max().unwrap_or(0)
    }

    /// Sum of the live slots' probe distances (for `stats`).
    pub fn probe_sum(&self) -> u64 {
        (0..self.cap).filter(|&p| self.live(p)).map(|p| Self::dist(self.mgmt(p)) as u64).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn body(k: u64, v: u64) -> [u8; 16] {
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&k.to_le_bytes());
        b[8..].copy_from_slice(&v.to_le_bytes());
        b
    }
    fn val(t: &Table, pos: u64) -> u64 {
        t.read_u64(pos, 9)
    }

    #[test]
    fn insert_find_remove_against_a_set() {
        let _bound = outcore_io::bound::watch("insert_find_remove_against_a_set");
        let cap = 1024;
        let mut mem = vec![0u8; cap * 17];
        // SAFETY: `mem` holds cap * 17 bytes, outlives `t`, and only `t` touches it.
        let t = unsafe { Table::new(mem.as_mut_ptr(), cap as u64, 17) };
        let mut model = HashSet::new();
        let mut live = 0u64;
        let mut rng = 7u64;
        for step in 0..200_000u64 {
            rng = mix(rng);
            // Clustered keys with a few values each, as in the low-degree table.
            let (k, v) = (rng % 300, (rng >> 20) % 3);
            let found = t.probe(k, |p| val(&t, p) == v);
            assert_eq!(found.is_some(), model.contains(&(k, v)), "step {step}");
            if let Some(p) = found {
                t.remove(p, &mut NoUndo);
                model.remove(&(k, v));
                live -= 1;
            } else if !over_load(live + 1, cap as u64) {
                t.insert(&body(k, v), &mut NoUndo).unwrap();
                model.insert((k, v));
                live += 1;
            }
        }
        let mut seen = HashSet::new();
        t.for_each_live(|p| {
            seen.insert((t.key(p), val(&t, p)));
        });
        assert_eq!(seen, model);
    }

    /// The probe statistics against the slots: a live slot's distance is
    /// how far it sits past its key's home slot.
    #[test]
    fn probe_statistics_are_the_distances_from_home() {
        let _bound = outcore_io::bound::watch("probe_statistics_are_the_distances_from_home");
        let cap = 512;
        let mut mem = vec![0u8; cap * 17];
        // SAFETY: `mem` holds cap * 17 bytes, outlives `t`, and only `t` touches it.
        let t = unsafe { Table::new(mem.as_mut_ptr(), cap as u64, 17) };
        for k in 0..400 {
            t.insert(&body(k % 97, k), &mut NoUndo).unwrap();
        }
        let (mut sum, mut most) = (0u64, 0u64);
        t.for_each_live(|p| {
            let d = (p + cap as u64 - t.home(mix(t.key(p)))) % cap as u64;
            sum += d;
            most = most.max(d);
        });
        assert!(sum > 400, "keys of 97 values, four each, cluster: {sum}");
        assert_eq!((t.probe_sum(), t.max_probe() as u64), (sum, most));
    }

    /// A cluster of keys with one home slot fills distances 0 to
    /// `MAX_DIST` (126): the 128th such key is `Overfull`, the table's
    /// signal to grow, and no sooner.
    #[test]
    fn a_cluster_reaches_the_largest_distance_before_overfull() {
        let _bound = outcore_io::bound::watch("a_cluster_reaches_the_largest_distance_before_overfull");
        let cap = 1024;
        let mut mem = vec![0u8; cap * 17];
        // SAFETY: `mem` holds cap * 17 bytes, outlives `t`, and only `t` touches it.
        let t = unsafe { Table::new(mem.as_mut_ptr(), cap as u64, 17) };
        let home_zero: Vec<u64> = (0..).filter(|&k| t.home(mix(k)) == 0).take(MAX_DIST as usize + 2).collect();
        for (i, &k) in home_zero.iter().enumerate() {
            let inserted = t.insert(&body(k, 0), &mut NoUndo);
            if i <= MAX_DIST as usize {
                assert_eq!(inserted.ok(), Some(i as u64), "key {i} of one home");
            } else {
                assert!(inserted.is_err(), "key {i} of one home found a slot");
            }
        }
        assert_eq!(t.max_probe(), MAX_DIST);
    }

    /// A slot's management byte is empty, or a probe distance of 1 to
    /// `MAX_DIST + 1` (with or without the tombstone bit): a tombstone
    /// without a distance is damage, and the check names its slot.
    #[test]
    fn check_slots_finds_a_management_byte_no_table_writes() {
        let _bound = outcore_io::bound::watch("check_slots_finds_a_management_byte_no_table_writes");
        let cap = 256;
        let mut mem = vec![0u8; cap * 17];
        // SAFETY: `mem` holds cap * 17 bytes, outlives `t`, and only `t` touches it.
        let t = unsafe { Table::new(mem.as_mut_ptr(), cap as u64, 17) };
        for k in 0..150 {
            t.insert(&body(k, k), &mut NoUndo).unwrap();
        }
        let first = t.probe(3, |_| true).unwrap();
        t.remove(first, &mut NoUndo);
        t.check_slots().unwrap();
        let victim = (0..cap as u64).find(|&p| t.mgmt(p) != EMPTY).unwrap();
        t.set_mgmt(victim, TOMB);
        let err = t.check_slots().unwrap_err();
        assert!(err.contains(&format!("slot {victim} ")) && err.contains("0x80"), "{err}");
    }
}
