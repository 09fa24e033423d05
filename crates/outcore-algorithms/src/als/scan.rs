//! ALS on the traverse engine's sequential cursor: the factors of every
//! user and item in memory (`4 k` bytes a vertex), and per half-step one
//! sequential scan of the `out` lists, read a batch at a time and fitted
//! on every core (a user's fit reads only items' factors and writes only
//! its own, so the batch needs no locks).

use super::factors::{self, SharedSum};
use super::Fitted;
use crate::needs::EngineStats;
use crate::run::Context;
use crate::values::{HeldVectors, Vectors};
use outcore_store::{BipartiteRecord, StoreError};
use rayon::prelude::*;

/// Lists of one batch: at most this many entries (ids and ratings, 12 bytes each)...
pub const BATCH_ENTRIES: usize = 1 << 18;
/// ...and this many vertices.
pub const BATCH_VERTICES: usize = 1 << 14;
/// Memory of a batch's lists and list ends.
pub const BATCH_BYTES: u64 = BATCH_ENTRIES as u64 * 12 + BATCH_VERTICES as u64 * 16;

pub fn als(cx: &Context, p: &super::Params, sides: BipartiteRecord) -> Result<Fitted, StoreError> {
    let store = cx.store;
    let (n, k) = (store.vertices() as usize, p.rank);
    let charge = cx.budget.reserve("the factors of every user and item, and a batch of lists", super::state_bytes(n as u64, k))?;
    let mut x: Vec<f32> = (0..n * k).map(|e| factors::initial(p.seed, (e / k) as u64, e % k)).collect();
    let _scans = crate::needs::charge_scans(cx.budget, store, &["out"])?;
    let out = store.layout("out")?;
    let ratings = store.manifest().edges;
    let split = sides.users as usize * k;
    let mut rmse = Vec::with_capacity(p.iterations as usize);
    let (mut ids, mut weights, mut ends): (Vec<u64>, Vec<f32>, Vec<usize>) = (Vec::new(), Vec::new(), Vec::new());
    let mut fitted = vec![0f32; BATCH_VERTICES * k];
    let mut passes = 0u64;
    cx.progress().begin("als", p.iterations as u64, false);
    for _ in 0..p.iterations {
        for fit_users in [true, false] {
            let error = SharedSum::default();
            let mut scan = out.scan()?;
            passes += 1;
            // fit users from items (or items from users): the side written and the side read
            let (users, items) = x.split_at_mut(split);
            let (written, read, first) = if fit_users { (users, &*items, 0) } else { (items, &*users, sides.users) };
            let read_base = if fit_users { sides.users } else { 0 };
            let mut batch_first = None;
            let mut flush = |batch_first: &mut Option<u64>, ids: &mut Vec<u64>, weights: &mut Vec<f32>, ends: &mut Vec<usize>| {
                let Some(b) = batch_first.take() else { return };
                let count = ends.len();
                fitted[..count * k].par_chunks_mut(k).enumerate().for_each(|(j, target)| {
                    let (a, z) = (if j == 0 { 0 } else { ends[j - 1] }, ends[j]);
                    let at = (b - first) as usize + j;
                    target.copy_from_slice(&written[at * k..at * k + k]);
                    let pairs = || {
                        weights[a..z].iter().zip(&ids[a..z]).map(|(&r, &u)| {
                            let o = (u - read_base) as usize * k;
                            (r, &read[o..o + k])
                        })
                    };
                    factors::fit(k, p.lambda, pairs(), target);
                    if !fit_users {
                        error.add(factors::squared_error(k, target, pairs()));
                    }
                });
                let at = (b - first) as usize * k;
                written[at..at + count * k].copy_from_slice(&fitted[..count * k]);
                ids.clear();
                weights.clear();
                ends.clear();
            };
            while let Some((v, list, list_weights)) = scan.next_list()? {
                if (v < sides.users) != fit_users {
                    continue;
                }
                if list.iter().any(|&u| (u < sides.users) == fit_users) {
                    return Err(StoreError::invalid(out.adjacency_path(), format!("vertex {v} has a neighbour on its own side")));
                }
                if batch_first.is_some() && (ids.len() + list.len() > BATCH_ENTRIES || ends.len() == BATCH_VERTICES) {
                    flush(&mut batch_first, &mut ids, &mut weights, &mut ends);
                }
                // vertices are consecutive within a batch
                if batch_first.is_some_and(|b| b + ends.len() as u64 != v) {
                    flush(&mut batch_first, &mut ids, &mut weights, &mut ends);
                }
                batch_first.get_or_insert(v);
                ids.extend_from_slice(list);
                weights.extend_from_slice(list_weights);
                ends.push(ids.len());
            }
            flush(&mut batch_first, &mut ids, &mut weights, &mut ends);
            if !fit_users {
                rmse.push(factors::rmse(error.take(), ratings));
            }
        }
        cx.progress().set(rmse.len() as u64);
    }
    cx.progress().end();
    let stats = EngineStats::Scan { bytes_read: store.layout_bytes("out") * passes, passes };
    Ok(Fitted {
        factors: Vectors { name: "factors", width: k, data: Box::new(HeldVectors { values: x, width: k, charge: Some(charge) }) },
        rmse,
        stats,
        stored_width: k,
    })
}
