//! Weakly connected components by union-find over one sequential scan of
//! the adjacency (RASP's sequential cursor, at full device bandwidth):
//! memory is one u32 per vertex. Labels are the smallest dense id of each
//! component, which is also the smallest original id (relabelling keeps order).

use outcore_io::{Budget, Reservation};
use outcore_store::{Store, StoreError};

/// The root of `x`, halving the path on the way.
pub(super) fn find(parent: &mut [u32], mut x: u32) -> u32 {
    while parent[x as usize] != x {
        let p = parent[x as usize];
        parent[x as usize] = parent[p as usize];
        x = p;
    }
    x
}

/// Join the trees of `u` and `v`, the larger root under the smaller, so
/// that roots are the smallest ids of their components.
pub(super) fn link(parent: &mut [u32], u: u32, v: u32) {
    let (a, b) = (find(parent, u), find(parent, v));
    if a != b {
        parent[a.max(b) as usize] = a.min(b);
    }
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
    let _scans = crate::needs::charge_scans(budget, store, &["out"])?;
    let mut parent: Vec<u32> = (0..n as u32).collect();
    let mut scan = store.layout("out")?.scan()?;
    while let Some((u, nbrs, _)) = scan.next_list()? {
        for &v in nbrs {
            link(&mut parent, u as u32, v as u32);
        }
    }
    for v in 0..n as u32 {
        let r = find(&mut parent, v);
        parent[v as usize] = r;
    }
    Ok((parent, charge))
}
