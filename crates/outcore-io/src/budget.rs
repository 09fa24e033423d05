//! The memory budget (`--memory SIZE`): a promise that the process, page
//! cache included, stays under SIZE. Every large allocation (sort buffers,
//! I/O buffers, vertex arrays, caches) takes a [`Reservation`] first; a run
//! that cannot fit fails before it starts, naming what did not fit and the
//! smallest budget that would have worked.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

#[derive(Debug, thiserror::Error)]
#[error("memory budget {} too small: {what} needs {} but only {} of the budget is left; the smallest budget that would work is {}", format_bytes(*total), format_bytes(*needed), format_bytes(*available), format_bytes(*suggest))]
pub struct BudgetError {
    pub what: String,
    pub needed: u64,
    pub available: u64,
    pub total: u64,
    /// The smallest total budget (in whole MiB) that would have satisfied this request.
    pub suggest: u64,
}

#[derive(Debug)]
struct Inner {
    total: u64,
    used: AtomicU64,
    peak: AtomicU64,
}

/// A shared memory accountant. Cloning shares the same account.
#[derive(Clone, Debug)]
pub struct Budget(Arc<Inner>);

impl Budget {
    pub fn new(total: u64) -> Self {
        Budget(Arc::new(Inner { total, used: AtomicU64::new(0), peak: AtomicU64::new(0) }))
    }
    /// An effectively unlimited budget (for tests and in-memory tools).
    pub fn unlimited() -> Self {
        Budget::new(u64::MAX / 4)
    }
    pub fn total(&self) -> u64 {
        self.0.total
    }
    pub fn used(&self) -> u64 {
        self.0.used.load(Ordering::Relaxed)
    }
    pub fn available(&self) -> u64 {
        self.0.total.saturating_sub(self.used())
    }
    /// The largest amount ever reserved at once.
    pub fn peak(&self) -> u64 {
        self.0.peak.load(Ordering::Relaxed)
    }
    /// Start the peak again from what is reserved now: a later phase's
    /// own peak (validation after a run), read with [`Budget::peak`].
    pub fn reset_peak(&self) {
        self.0.peak.store(self.used(), Ordering::Relaxed);
    }

    /// Charge `bytes` for `what`; released when the reservation drops.
    pub fn reserve(&self, what: &str, bytes: u64) -> Result<Reservation, BudgetError> {
        let mut used = self.used();
        loop {
            if used + bytes > self.0.total {
                return Err(BudgetError {
                    what: what.to_string(),
                    needed: bytes,
                    available: self.0.total.saturating_sub(used),
                    total: self.0.total,
                    suggest: (used + bytes).div_ceil(1 << 20) << 20,
                });
            }
            match self.0.used.compare_exchange_weak(used, used + bytes, Ordering::AcqRel, Ordering::Relaxed) {
                Ok(_) => break,
                Err(now) => used = now,
            }
        }
        self.0.peak.fetch_max(used + bytes, Ordering::Relaxed);
        Ok(Reservation { budget: self.clone(), bytes })
    }

    /// Reserve `fraction` of what is left (at least `min` bytes), for
    /// buffers whose size is a choice rather than a requirement.
    pub fn reserve_share(&self, what: &str, fraction: f64, min: u64) -> Result<Reservation, BudgetError> {
        let want = ((self.available() as f64) * fraction) as u64;
        self.reserve(what, want.max(min))
    }
}

/// Resident memory that is not a buffer of ours (code, thread stacks,
/// allocator slack): every command charges it first.
pub const PROCESS_BASELINE: u64 = 14 << 20;

/// The least a whole command needs, computed once from every component it
/// will take (the fixed ones, and the floors of the buffers it sizes from
/// the budget), so that a budget error names one figure, not the next
/// component's: at or above [`Minimum::bytes`] the command fits.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Minimum {
    /// What the figure is for (`import`, `pagerank on the stream engine`).
    pub command: String,
    /// Each component and its bytes.
    pub parts: Vec<(String, u64)>,
}

impl Minimum {
    pub fn new(command: impl Into<String>) -> Self {
        Minimum { command: command.into(), parts: Vec::new() }
    }

    /// Add a component.
    pub fn with(mut self, what: impl Into<String>, bytes: u64) -> Self {
        self.parts.push((what.into(), bytes));
        self
    }

    /// Of two commands run one after the other, the one that needs more.
    pub fn larger(self, other: Minimum) -> Minimum {
        if self.bytes() >= other.bytes() {
            self
        } else {
            other
        }
    }

    /// The bytes of the component named `what` (0 if there is none).
    pub fn part(&self, what: &str) -> u64 {
        self.parts.iter().filter(|(w, _)| w == what).map(|(_, b)| b).sum()
    }

    /// The smallest budget, in whole MiB, that holds every component.
    pub fn bytes(&self) -> u64 {
        self.parts.iter().map(|(_, b)| b).sum::<u64>().div_ceil(1 << 20) << 20
    }

    /// `program, thread stacks and allocator slack 14.0 MiB + ...`
    pub fn describe(&self) -> String {
        self.parts.iter().map(|(what, b)| format!("{what} {}", format_bytes(*b))).collect::<Vec<_>>().join(" + ")
    }

    /// Fail unless a budget of `total` bytes holds every component.
    pub fn check(&self, total: u64) -> Result<(), BudgetError> {
        let need = self.bytes();
        if total >= need {
            return Ok(());
        }
        Err(BudgetError { what: format!("{} ({})", self.command, self.describe()), needed: need, available: total, total, suggest: need })
    }
}

/// Bytes held against a [`Budget`]; returned on drop.
#[derive(Debug)]
pub struct Reservation {
    budget: Budget,
    bytes: u64,
}

impl Reservation {
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Hold `other`'s bytes in this reservation too: one charge that
    /// grows as a structure does. Both must be of the same budget.
    pub fn absorb(&mut self, other: Reservation) {
        assert!(Arc::ptr_eq(&self.budget.0, &other.budget.0), "a reservation absorbs only one of its own budget");
        self.bytes += other.bytes;
        // its bytes are now this one's, returned when this one drops
        std::mem::forget(other);
    }

    /// Give back all but `keep` of the bytes (none if it holds no more).
    pub fn shrink_to(&mut self, keep: u64) {
        if keep < self.bytes {
            self.budget.0.used.fetch_sub(self.bytes - keep, Ordering::AcqRel);
            self.bytes = keep;
        }
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        self.budget.0.used.fetch_sub(self.bytes, Ordering::AcqRel);
    }
}

/// Parse `512M`, `1G`, `1.5G`, `4096`, `64K` (powers of 1024; an optional
/// trailing `B` or `iB` is accepted).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let upper = t.to_ascii_uppercase();
    let stripped = upper.strip_suffix("IB").or_else(|| upper.strip_suffix('B')).unwrap_or(&upper);
    let (num, mult) = match stripped.chars().last() {
        Some('K') => (&stripped[..stripped.len() - 1], 1u64 << 10),
        Some('M') => (&stripped[..stripped.len() - 1], 1 << 20),
        Some('G') => (&stripped[..stripped.len() - 1], 1 << 30),
        Some('T') => (&stripped[..stripped.len() - 1], 1 << 40),
        _ => (stripped, 1),
    };
    let value: f64 =
        num.trim().parse().map_err(|_| format!("invalid size '{text}': expected a number with an optional K/M/G/T suffix, e.g. 512M"))?;
    if !(value.is_finite() && value > 0.0) {
        return Err(format!("invalid size '{text}': must be positive"));
    }
    Ok((value * mult as f64) as u64)
}

/// `1536` -> `1.5 KiB`.
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_minimum_names_every_part_and_one_figure() {
        let m = Minimum::new("import").with("program", 12 << 20).with("buffers", (16 << 20) + 1);
        assert_eq!(m.bytes(), 29 << 20);
        assert!(m.check(29 << 20).is_ok());
        let e = m.check(8 << 20).unwrap_err();
        assert_eq!(e.suggest, 29 << 20);
        let text = e.to_string();
        assert!(text.contains("import (program 12.0 MiB + buffers 16.0 MiB) needs 29.0 MiB"), "{text}");
    }

    /// An absorbed reservation is held until the one that absorbed it
    /// drops; a shrunk one gives back the rest at once, and never grows.
    #[test]
    fn reservations_absorb_and_shrink() {
        let budget = Budget::new(1000);
        let mut held = budget.reserve("a", 100).unwrap();
        held.absorb(budget.reserve("b", 50).unwrap());
        assert_eq!((held.bytes(), budget.used()), (150, 150));
        held.shrink_to(120);
        assert_eq!((held.bytes(), budget.used()), (120, 120));
        held.shrink_to(500);
        assert_eq!((held.bytes(), budget.used()), (120, 120));
        drop(held);
        assert_eq!(budget.used(), 0);
    }

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("512M").unwrap(), 512 << 20);
        assert_eq!(parse_size("1G").unwrap(), 1 << 30);
        assert_eq!(parse_size("1.5GiB").unwrap(), 3 << 29);
        assert_eq!(parse_size("4096").unwrap(), 4096);
        assert!(parse_size("lots").is_err());
        assert!(parse_size("-1G").is_err());
    }

    #[test]
    fn reservations_are_bounded_and_released() {
        let b = Budget::new(1000);
        let r1 = b.reserve("a", 600).unwrap();
        let err = b.reserve("b", 500).unwrap_err();
        assert_eq!(err.available, 400);
        assert_eq!(err.suggest, 1 << 20);
        assert!(err.to_string().contains("the smallest budget that would work is 1.0 MiB"), "{err}");
        drop(r1);
        let _r2 = b.reserve("b", 500).unwrap();
        assert_eq!(b.used(), 500);
        assert_eq!(b.peak(), 600);
        // a new phase's peak starts from what is held
        b.reset_peak();
        assert_eq!(b.peak(), 500);
        drop(b.reserve("c", 300).unwrap());
        assert_eq!(b.peak(), 800);
    }
}
