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

/// Saves the old contents of a range before a table overwrites it.
pub trait Undo {
    fn save(&mut self, ptr: *const u8, len: usize);
}

/// Writes into regions allocated since the last commit need no undo.
pub struct NoUndo;
impl Undo for NoUndo {
    #[inline]
    fn save(&mut self, _: *const u8, _: usize) {}
}

/// An insertion needed a probe distance above [`MAX_DIST`]: grow or rehash.
#[derive(Debug)]
pub struct Overfull;

#[derive(Clone, Copy, Debug)]
pub struct Table {
    pub base: *mut u8,
    pub cap: u64,
    pub slot: usize,
    shift: u32,
}

unsafe impl Send for Table {}
unsafe impl Sync for Table {}

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
    /// `base` must point at `cap * slot` bytes; `cap` a power of two >= 2.
    pub fn new(base: *mut u8, cap: u64, slot: usize) -> Table {
        debug_assert!(cap.is_power_of_two() && cap >= 2);
        Table { base, cap, slot, shift: 64 - cap.trailing_zeros() }
    }

    pub fn bytes(cap: u64, slot: usize) -> u64 {
        cap * slot as u64
    }

    #[inline]
    pub fn home(&self, hash: u64) -> u64 {
        hash >> self.shift
    }
    #[inline]
    fn next(&self, pos: u64) -> u64 {
        (pos + 1) & (self.cap - 1)
    }
    #[inline]
    pub fn at(&self, pos: u64) -> *mut u8 {
        unsafe { self.base.add(pos as usize * self.slot) }
    }
    #[inline]
    pub fn mgmt(&self, pos: u64) -> u8 {
        unsafe { *self.at(pos) }
    }
    #[inline]
    pub fn key(&self, pos: u64) -> u64 {
        unsafe { (self.at(pos).add(1) as *const u64).read_unaligned() }
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
        unsafe {
            let p = self.at(pos);
            *p = d as u8 + 1;
            std::ptr::copy_nonoverlapping(body.as_ptr(), p.add(1), body.len());
        }
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
        while to != pos {
            let from = (to + self.cap - 1) & (self.cap - 1);
            unsafe {
                std::ptr::copy_nonoverlapping(self.at(from), self.at(to), self.slot);
                *self.at(to) += 1;
            }
            to = from;
        }
        Ok(())
    }

    /// Save `n` slots from `pos` (wrapping) before they change.
    #[inline]
    fn save(&self, pos: u64, n: u64, undo: &mut impl Undo) {
        let first = n.min(self.cap - pos);
        undo.save(self.at(pos), first as usize * self.slot);
        if first < n {
            undo.save(self.at(0), (n - first) as usize * self.slot);
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
        unsafe { *self.at(pos) |= TOMB };
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
            unsafe { *self.at(p) = EMPTY };
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
        self.for_each_live(|pos| {
            if result.is_ok() {
                let body = unsafe { std::slice::from_raw_parts(self.at(pos).add(1), self.slot - 1) };
                result = into.insert(body, &mut NoUndo).map(|_| ());
            }
        });
        result
    }

    /// Largest probe distance of a live or deleted slot (for `stats`).
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
        unsafe { (t.at(pos).add(9) as *const u64).read_unaligned() }
    }

    #[test]
    fn insert_find_remove_against_a_set() {
        let cap = 1024;
        let mut mem = vec![0u8; cap * 17];
        let t = Table::new(mem.as_mut_ptr(), cap as u64, 17);
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
}
