//! ALS collaborative filtering (VENUS, Cheng et al., ICDE'15, section 5):
//! rank-k latent factors for the users and items of a bipartite ratings
//! store by alternating least squares with weighted-lambda regularisation
//! (ALS-WR, Zhou et al., "Large-scale parallel collaborative filtering for
//! the Netflix prize", 2008). Each iteration fits every user to the items'
//! factors, then every item to the users' new factors ([`factors::fit`]);
//! the training RMSE over all ratings is measured after each iteration,
//! with the factors it ends with. Factors start uniform in [0, 1), seeded.
//!
//! Versions: [`interval`] (VENUS: the factors are the interval engine's
//! vertex values, `4 k` bytes a vertex rounded up to 8 floats, on disk;
//! one interval's in memory), and [`scan`] (the traverse engine's
//! sequential cursor, the factors of both sides in memory, where they
//! fit). `auto` prefers the scan when the factors fit the budget.

pub mod factors;
pub mod interval;
pub mod reference;
pub mod scan;

use crate::needs::{self, engine_figures, EngineStats};
use crate::params::{Args, ParamKind, ParamSpec};
use crate::plan::{Engine, Support};
use crate::run::{Algorithm, Check, ColumnSpec, Compare, Context, Info, RunOptions, Validation};
use crate::values::{Outcome, ValueKind, Vectors};
use crate::MemGraph;
use outcore_store::{BipartiteRecord, Store, StoreError};

pub use factors::MAX_RANK;

/// ALS, the registry's `als`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Als;

#[derive(Clone, Copy, Debug)]
pub struct Params {
    /// Factors per user and item (1..=64).
    pub rank: usize,
    /// Regularisation: lambda x (the vertex's number of ratings) on the diagonal.
    pub lambda: f64,
    /// Iterations (each fits the users, then the items).
    pub iterations: u32,
    /// Seed of the initial factors.
    pub seed: u64,
}

impl Default for Params {
    fn default() -> Self {
        Params { rank: 10, lambda: 0.05, iterations: 10, seed: 1 }
    }
}

impl Params {
    fn check(self) -> Result<Self, StoreError> {
        if !(1..=MAX_RANK).contains(&self.rank) {
            return Err(StoreError::parameter("rank", format!("must be between 1 and {MAX_RANK} (got {})", self.rank)));
        }
        if !(self.lambda > 0.0 && self.lambda.is_finite()) {
            return Err(StoreError::parameter("lambda", format!("must be positive (got {})", self.lambda)));
        }
        if self.iterations == 0 {
            return Err(StoreError::parameter("iterations", "must be at least 1"));
        }
        Ok(self)
    }
}

/// What an engine version returns.
pub struct Fitted {
    pub factors: Vectors,
    /// Training RMSE after each iteration.
    pub rmse: Vec<f64>,
    pub stats: EngineStats,
    /// Floats stored a vertex (the rank, or the interval engine's padded width).
    pub stored_width: usize,
}

/// The store's two sides, or the error that it has none.
pub fn sides(store: &Store) -> Result<BipartiteRecord, StoreError> {
    let m = store.manifest();
    match m.bipartite {
        Some(b) if m.weighted => Ok(b),
        Some(_) => Err(StoreError::NoWeights { store: store.dir().to_path_buf(), reader: "ALS".into() }),
        None => Err(StoreError::NotBipartite { store: store.dir().to_path_buf(), reader: "ALS".into() }),
    }
}

/// The factors of both sides in memory (the scan), and a batch of lists.
pub fn state_bytes(n: u64, rank: usize) -> u64 {
    n * rank as u64 * 4 + scan::BATCH_BYTES + scan::BATCH_VERTICES as u64 * rank as u64 * 4
}

static INFO: Info = Info {
    name: "als",
    title: "ALS",
    about: "Collaborative filtering: rank-k factors of users and items by alternating least squares (bipartite ratings stores)",
    params: &[
        ParamSpec { name: "rank", kind: ParamKind::Count, default: Some("10"), help: "Factors per user and item (1 to 64)" },
        ParamSpec {
            name: "lambda",
            kind: ParamKind::Real,
            default: Some("0.05"),
            help: "Regularisation (times each vertex's number of ratings)",
        },
        ParamSpec { name: "iterations", kind: ParamKind::Count, default: Some("10"), help: "Iterations (users, then items, each)" },
        ParamSpec { name: "seed", kind: ParamKind::Count, default: Some("1"), help: "Seed of the initial factors" },
    ],
    engines: &[Engine::Traverse, Engine::Interval],
    columns: &[ColumnSpec { name: "factors", kind: ValueKind::Real, compare: Compare::Validated }],
};

impl Algorithm for Als {
    type Params = Params;

    fn info(&self) -> &'static Info {
        &INFO
    }
    fn parse(&self, a: &Args) -> Result<Params, StoreError> {
        let d = Params::default();
        Params {
            rank: a.get("rank", d.rank as u64)? as usize,
            lambda: a.get("lambda", d.lambda)?,
            iterations: a.get("iterations", d.iterations as u64)?.min(u32::MAX as u64) as u32,
            seed: a.get("seed", d.seed)?,
        }
        .check()
    }
    fn support(&self, store: &Store, engine: Engine, p: &Params, _: &RunOptions) -> Result<Support, StoreError> {
        sides(store)?;
        let n = store.vertices();
        Ok(match engine {
            Engine::Traverse => needs::scan(store, &["out"], state_bytes(n, p.rank), "the factors of every user and item")?,
            Engine::Interval => needs::interval(store, &["out"], interval::stored_width(p.rank) as u64 * 4, 0)?
                .map_or_not_above_u32(n, "the interval engine"),
            _ => Support::No("ALS fits each vertex to its whole list of ratings: a sequential scan or intervals".into()),
        })
    }
    fn run(&self, cx: &mut Context, p: &Params) -> Result<Outcome, StoreError> {
        let started = std::time::Instant::now();
        let b = sides(cx.store)?;
        let fitted = match cx.engine() {
            Engine::Interval => interval::als(cx, p, b)?,
            _ => scan::als(cx, p, b)?,
        };
        cx.set_seconds(started.elapsed().as_secs_f64());
        cx.figure("users", b.users);
        cx.figure("items", b.items);
        cx.figure("ratings", cx.store.manifest().edges);
        cx.figure("rank", p.rank);
        cx.figure("lambda", p.lambda);
        cx.figure("iterations", fitted.rmse.len());
        cx.figure("rmse", fitted.rmse.last().copied());
        cx.figure("rmse_per_iteration", &fitted.rmse);
        cx.figure("stored_floats_per_vertex", fitted.stored_width);
        engine_figures(cx, &fitted.stats);
        cx.figure("engine_summary", fitted.stats.describe());
        Ok(Outcome::of_vectors(fitted.factors))
    }
    fn reference(&self, store: &Store, g: &MemGraph, p: &Params) -> Result<Outcome, StoreError> {
        let b = sides(store)?;
        let (factors, _) = reference::als(g, b.users, p);
        Ok(Outcome::of_vectors(Vectors {
            name: "factors",
            width: p.rank,
            data: Box::new(crate::values::HeldVectors { values: factors.iter().map(|&x| x as f32).collect(), width: p.rank, charge: None }),
        }))
    }
    fn validate(&self, check: &Check, p: &Params) -> Result<Validation, StoreError> {
        validate(check, p)
    }
}

/// Interval engine needs, refused above 2^32 vertices (its limit).
trait NotAboveU32 {
    fn map_or_not_above_u32(self, n: u64, what: &str) -> Support;
}

impl NotAboveU32 for Support {
    fn map_or_not_above_u32(self, n: u64, what: &str) -> Support {
        if n > u32::MAX as u64 {
            Support::No(format!("{what} holds at most 2^32 vertices"))
        } else {
            self
        }
    }
}

/// The check of a finished run, without the code that made it: with the
/// users' factors as returned, every item's factors must be the solution
/// of its regularised least squares (the last half-step of an iteration),
/// to 1e-3 relative; and the RMSE the run reported for its last
/// iteration must be the RMSE of the returned factors over every rating.
/// Needs the factors in memory (4 x rank bytes a vertex).
fn validate(check: &Check, p: &Params) -> Result<Validation, StoreError> {
    const METHOD: &str = "the items' least-squares fit and the RMSE recomputed";
    let store = check.store;
    let b = sides(store)?;
    let n = store.vertices() as usize;
    let Some(vectors) = check.outcome.vectors("factors") else {
        return Ok(Validation::fail(METHOD, "the run returned no factors"));
    };
    let k = p.rank;
    if vectors.width != k {
        return Ok(Validation::fail(METHOD, format!("{} factors a vertex, not {k}", vectors.width)));
    }
    let _charge = check.budget.reserve("the factors, to check them", (n * k * 4) as u64 + (1 << 20))?;
    let x = vectors.to_vec()?;
    if x.len() != n * k {
        return Ok(Validation::fail(METHOD, format!("{} factors for {n} vertices of rank {k}", x.len())));
    }
    let reported = check.report.figure("rmse").and_then(|v| v.as_f64());
    let mut scan = store.layout("out")?.scan()?;
    let (mut squared, mut ratings) = (0.0f64, 0u64);
    let mut refit = vec![0f32; k];
    while let Some((v, ids, weights)) = scan.next_list()? {
        let of = |u: u64| &x[u as usize * k..u as usize * k + k];
        let pairs = || ids.iter().zip(weights).map(|(&u, &r)| (r, of(u)));
        if v >= b.users {
            squared += factors::squared_error(k, of(v), pairs());
            ratings += ids.len() as u64;
            if factors::fit(k, p.lambda, pairs(), &mut refit) {
                let (got, want) = (of(v), &refit);
                let scale = want.iter().map(|w| w.abs()).fold(1e-3f32, f32::max);
                if let Some(j) = (0..k).find(|&j| (got[j] - want[j]).abs() > 1e-3 * scale) {
                    return Ok(Validation::fail(
                        METHOD,
                        format!("item (dense id {v}) factor {j} is {}, its least-squares fit to the users gives {}", got[j], want[j]),
                    ));
                }
            }
        }
    }
    let rmse = factors::rmse(squared, ratings);
    match reported {
        Some(r) if (r - rmse).abs() <= 1e-4 * rmse.max(1e-6) + 1e-9 => {
            Ok(Validation::pass(METHOD, format!("{} items refit within 1e-3; RMSE {rmse:.6} as reported", b.items)))
        }
        Some(r) => Ok(Validation::fail(METHOD, format!("the run reported RMSE {r}, the factors give {rmse}"))),
        None => Ok(Validation::fail(METHOD, "the report has no RMSE")),
    }
}
