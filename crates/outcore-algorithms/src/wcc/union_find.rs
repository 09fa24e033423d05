//! Weakly connected components by union-find over one sequential scan of
//! the adjacency (RASP's sequential cursor, at full device bandwidth):
//! memory is one u32 per vertex and the link buffers. The reading thread
//! gathers the edges' links and a linking thread makes them on every core
//! into the lock-free forest of [`super::forest`] (a symmetric store links
//! each edge once, from its larger end); the labels are the smallest dense
//! id of each component, which is also the smallest original id
//! (relabelling keeps order), whatever the number of threads.

use super::forest::{labels, roots, Links, LINK_BUFFER_BYTES};
use outcore_io::{Budget, Reservation};
use outcore_store::{Store, StoreError};

/// Memory beside the scan: the parent array and the link buffers.
pub fn state_bytes(n: u64) -> u64 {
    n * 4 + LINK_BUFFER_BYTES
}

/// Component label of every vertex.
pub fn wcc(store: &Store, budget: &Budget) -> Result<Vec<u32>, StoreError> {
    Ok(wcc_charged(store, budget)?.0)
}

/// The labels and the budget charge that still holds them.
pub fn wcc_charged(store: &Store, budget: &Budget) -> Result<(Vec<u32>, Reservation), StoreError> {
    let n = store.vertices();
    crate::bfs::check_ids(n, 0).or_else(|e| if n == 0 { Ok(()) } else { Err(e) })?;
    let charge = budget.reserve("WCC parent array", n * 4)?;
    let buffers = budget.reserve("WCC link buffers", LINK_BUFFER_BYTES)?;
    let _scans = crate::needs::charge_scans(budget, store, &["out"])?;
    let parent = roots(n);
    // a symmetric store holds each edge in both ends' lists
    let both_ends = !store.manifest().directed;
    std::thread::scope(|scope| -> Result<(), StoreError> {
        let mut links = Links::start(scope, &parent);
        let mut scan = store.layout("out")?.scan()?;
        while let Some((u, nbrs, _)) = scan.next_list()? {
            for &v in nbrs {
                if !both_ends || v < u {
                    links.add(u as u32, v as u32);
                }
            }
        }
        links.flush();
        Ok(())
    })?;
    drop(buffers);
    Ok((labels(parent), charge))
}
