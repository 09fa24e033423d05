//! ALS on intervals (VENUS section 5): the factors are the interval
//! engine's vertex values, `K` f32 a vertex with `K` the rank rounded up to
//! a multiple of 8 (the padding stays 0), so the value tables hold `4 K`
//! bytes a vertex on disk and an interval holds its vertices' and their
//! neighbours' factors. An iteration is two engine passes over the `out`
//! lists: the first fits the users (items keep their values), the second
//! the items, and adds up the squared errors of the items' ratings.

use super::factors::{self, SharedSum};
use super::Fitted;
use crate::needs::EngineStats;
use crate::run::Context;
use crate::values::{VectorData, Vectors};
use outcore_engines::{IntervalEngine, IntervalProgram, NeighbourList, Values};
use outcore_store::{BipartiteRecord, StoreError};

/// Floats stored a vertex for `rank` factors.
pub fn stored_width(rank: usize) -> usize {
    rank.div_ceil(8) * 8
}

/// One half of an iteration, on factors of width `K`: fit the users, or the items.
struct HalfStep<const K: usize> {
    users: u64,
    rank: usize,
    lambda: f64,
    fit_users: bool,
    squared_error: SharedSum,
}

impl<const K: usize> IntervalProgram for HalfStep<K> {
    type Value = [f32; K];
    fn gather(&self, v: u64, _: u64, lists: &[NeighbourList], values: &Values<[f32; K]>) -> [f32; K] {
        let h = self;
        let mut x = values.get(v);
        if (v < h.users) != h.fit_users {
            return x;
        }
        let list = &lists[0];
        let pairs = || list.weights.iter().zip(list.ids).map(|(&r, &u)| (r, values.get(u)));
        factors::fit(h.rank, h.lambda, pairs(), &mut x);
        if !h.fit_users {
            h.squared_error.add(factors::squared_error(h.rank, &x, pairs()));
        }
        x
    }
}

pub fn als(cx: &Context, p: &super::Params, sides: BipartiteRecord) -> Result<Fitted, StoreError> {
    match stored_width(p.rank) {
        8 => run::<8>(cx, p, sides),
        16 => run::<16>(cx, p, sides),
        24 => run::<24>(cx, p, sides),
        32 => run::<32>(cx, p, sides),
        40 => run::<40>(cx, p, sides),
        48 => run::<48>(cx, p, sides),
        56 => run::<56>(cx, p, sides),
        _ => run::<64>(cx, p, sides),
    }
}

fn run<const K: usize>(cx: &Context, p: &super::Params, sides: BipartiteRecord) -> Result<Fitted, StoreError> {
    let store = cx.store;
    let ratings = store.manifest().edges;
    let (rank, seed) = (p.rank, p.seed);
    let mut engine = IntervalEngine::<[f32; K]>::open(store, &["out"], false, cx.budget, &cx.interval_options(), |v, _| {
        let mut x = [0f32; K];
        for (j, f) in x[..rank].iter_mut().enumerate() {
            *f = factors::initial(seed, v, j);
        }
        x
    })?;
    let mut rmse = Vec::with_capacity(p.iterations as usize);
    cx.progress().begin("als", p.iterations as u64, false);
    for _ in 0..p.iterations {
        for fit_users in [true, false] {
            let step = HalfStep::<K> { users: sides.users, rank, lambda: p.lambda, fit_users, squared_error: SharedSum::default() };
            engine.iterate(&step, |_, _, _, _| {})?;
            if !fit_users {
                rmse.push(factors::rmse(step.squared_error.take(), ratings));
            }
        }
        cx.progress().set(rmse.len() as u64);
    }
    cx.progress().end();
    let stats = EngineStats::Interval(engine.stats().clone());
    Ok(Fitted {
        factors: Vectors { name: "factors", width: rank, data: Box::new(IntervalFactors { engine: Box::new(engine), rank }) },
        rmse,
        stats,
        stored_width: K,
    })
}

/// The factors in the engine's last value table (its first `rank` floats a vertex).
struct IntervalFactors<const K: usize> {
    engine: Box<IntervalEngine<[f32; K]>>,
    rank: usize,
}

impl<const K: usize> VectorData for IntervalFactors<K> {
    fn for_each(&self, f: &mut dyn FnMut(u64, &[f32])) -> Result<(), StoreError> {
        self.engine.for_each_value(|v, x| f(v, &x[..self.rank]))
    }
}
