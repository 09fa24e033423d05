//! Core numbers by the iterated h-index (Montresor, De Pellegrini and
//! Miorandi, "Distributed k-core decomposition", 2013; Lü et al. 2016):
//! every vertex starts at its degree and repeatedly lowers its value to
//! the h-index of its neighbours' values (the largest h such that h
//! neighbours have a value of at least h), capped by its own. The values
//! only fall, and they stop at the core numbers, in whatever order the
//! vertices update. Here they update in place during sequential scans of
//! the neighbourhoods (the traverse engine's cursor over `out`, with `in`
//! beside it for a directed store), a scan per round, until a round
//! changes nothing: 4 bytes a vertex in memory, and a bit a vertex saying
//! whether its value may still fall (a vertex whose neighbours did not
//! fall in the last round is skipped, its list decoded but not counted).

use crate::needs::EngineStats;
use crate::neighbourhood::{for_each_neighbourhood, ID};
use crate::run::Context;
use outcore_io::{Bitmap, Reservation};
use outcore_store::{Store, StoreError};

/// Memory: the values (4 bytes a vertex) and two bitmaps.
pub fn state_bytes(n: u64) -> u64 {
    n * 4 + 2 * n.div_ceil(64) * 8
}

/// The counts of one h-index (4 bytes for each value up to the vertex's
/// own, at most its neighbourhood's size): the longest neighbourhood's.
pub fn counts_bytes(store: &Store) -> Result<u64, StoreError> {
    Ok(4 * (crate::neighbourhood::longest(store)? + 1))
}

pub struct Cores {
    pub cores: Vec<u32>,
    pub rounds: u64,
    /// Values lowered, over all rounds.
    pub lowered: u64,
    pub stats: EngineStats,
    /// The values' share of the budget, handed on with the result.
    pub charge: Reservation,
}

pub fn kcore(cx: &Context) -> Result<Cores, StoreError> {
    let store = cx.store;
    let n = store.vertices();
    crate::neighbourhood::check_ids(store, "k-core")?;
    let charge = cx.budget.reserve("core values and the may-fall bitmaps", state_bytes(n))?;
    let _scans = cx.budget.reserve("the neighbourhood scan", crate::neighbourhood::scan_bytes(store)?)?;
    let counts_charge = counts_bytes(store)?;
    let _counts = cx.budget.reserve("the counts of an h-index", counts_charge)?;
    let mut cores = vec![0u32; n as usize];
    // round 0: the degrees
    let (bytes, passes) = for_each_neighbourhood(store, "k-core", |v, around| {
        cores[v as usize] = around.len() as u32;
        Ok(())
    })?;
    let (mut read, mut scans) = (bytes, passes);
    // `live`: vertices whose value may still fall (a neighbour fell, or it is round 1)
    let mut live = Bitmap::new(n);
    for v in 0..n {
        live.set(v);
    }
    let (mut rounds, mut lowered) = (0u64, 0u64);
    let mut counts: Vec<u32> = Vec::with_capacity((counts_charge / 4) as usize);
    cx.progress().begin("k-core rounds", 0, false);
    loop {
        let mut next = Bitmap::new(n);
        let mut changed = 0u64;
        let (bytes, passes) = for_each_neighbourhood(store, "k-core", |v, around| {
            let own = cores[v as usize];
            if !live.get(v) || own == 0 {
                return Ok(());
            }
            let h = h_index(own, around.iter().map(|&e| cores[(e & ID) as usize]), &mut counts);
            if h < own {
                cores[v as usize] = h;
                changed += 1;
                for &e in around {
                    next.set((e & ID) as u64);
                }
            }
            Ok(())
        })?;
        read += bytes;
        scans += passes;
        rounds += 1;
        lowered += changed;
        cx.progress().set(rounds);
        if changed == 0 {
            break;
        }
        live = next;
    }
    cx.progress().end();
    Ok(Cores { cores, rounds, lowered, stats: EngineStats::Scan { bytes_read: read, passes: scans }, charge })
}

/// The largest h <= `cap` such that at least h of `values` are >= h.
fn h_index(cap: u32, values: impl Iterator<Item = u32>, counts: &mut Vec<u32>) -> u32 {
    counts.clear();
    counts.resize(cap as usize + 1, 0);
    for x in values {
        counts[x.min(cap) as usize] += 1;
    }
    let mut at_least = 0u32;
    for h in (1..=cap).rev() {
        at_least += counts[h as usize];
        if at_least >= h {
            return h;
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn h_index_of_small_lists() {
        let mut c = Vec::new();
        assert_eq!(h_index(5, [3, 3, 3, 1].into_iter(), &mut c), 3);
        assert_eq!(h_index(2, [9, 9, 9].into_iter(), &mut c), 2);
        assert_eq!(h_index(4, [1, 1, 1, 1].into_iter(), &mut c), 1);
        assert_eq!(h_index(3, [0, 0].into_iter(), &mut c), 0);
        assert_eq!(h_index(0, [7].into_iter(), &mut c), 0);
    }
}
