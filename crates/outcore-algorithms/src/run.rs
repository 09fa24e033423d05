//! The one skeleton every algorithm runs through: parameters in, the plan
//! (which engine, why), the budget opened with the process baseline
//! charged, the algorithm's version for the chosen engine, and a report
//! (engine, reason, what else was weighed, time, bytes, peak memory, and
//! the figures the algorithm adds). An algorithm implements [`Algorithm`]:
//! its parameters, what each engine needs, one `run` that dispatches to
//! its engine files, its reference and its validator.

use crate::params::{Args, ParamSpec};
use crate::plan::{plan, Engine, EngineChoice, Plan, Support};
use crate::values::{Outcome, ValueKind};
use crate::{Error, MemGraph};
use outcore_engines::sortreduce::SortReduceOptions;
use outcore_engines::{IntervalOptions, StreamOptions, TraverseOptions};
use outcore_io::{Budget, NoProgress, Progress, Reservation, PROCESS_BASELINE};
use outcore_store::{Store, StoreError};
use serde::Serialize;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

/// How to run: the budget, the engine choice, and each engine's knobs.
#[derive(Clone)]
pub struct RunOptions {
    /// The memory budget in bytes, page cache included.
    pub memory: u64,
    pub engine: EngineChoice,
    /// Where the interval and sort-reduce engines put their temporary
    /// files (default: a hidden directory inside the store).
    pub temp_dir: Option<PathBuf>,
    /// Traverse engine: block size, reads in flight, run-ahead prefetch.
    pub traverse: TraverseOptions,
    /// Stream engine: segment size, cache pool.
    pub stream: StreamOptions,
    /// Interval engine: cap on the values of one interval.
    pub interval: IntervalOptions,
    pub sortreduce: SortReduceOptions,
    /// Where long steps report progress (iterations, supersteps, sources).
    pub progress: Option<Arc<dyn Progress + Send>>,
}

impl Default for RunOptions {
    fn default() -> Self {
        let depth = outcore_io::probe::recorded_depth().unwrap_or(64).max(1);
        RunOptions {
            memory: 1 << 30,
            engine: EngineChoice::Auto,
            temp_dir: None,
            traverse: TraverseOptions { depth, ..Default::default() },
            stream: StreamOptions { depth, ..Default::default() },
            interval: IntervalOptions::default(),
            sortreduce: SortReduceOptions::default(),
            progress: None,
        }
    }
}

impl RunOptions {
    /// The defaults with a budget of `memory` bytes.
    pub fn with_memory(memory: u64) -> Self {
        RunOptions { memory, ..Default::default() }
    }
    /// The same with the engine fixed (or `auto`).
    pub fn engine(mut self, engine: impl Into<EngineChoice>) -> Self {
        self.engine = engine.into();
        self
    }
    fn check(&self) -> Result<(), StoreError> {
        let block = self.traverse.block_bytes;
        if block == 0 || !block.is_multiple_of(4096) {
            return Err(StoreError::parameter("block", format!("must be a multiple of 4K (got {block})")));
        }
        Ok(())
    }
}

impl std::fmt::Debug for RunOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunOptions")
            .field("memory", &self.memory)
            .field("engine", &self.engine)
            .field("temp_dir", &self.temp_dir)
            .field("traverse", &self.traverse)
            .field("stream", &self.stream)
            .field("interval", &self.interval)
            .field("sortreduce", &self.sortreduce)
            .finish()
    }
}

/// What an algorithm is, for the registry and the front ends.
#[derive(Debug)]
pub struct Info {
    /// Command and function name (`bfs`, `pagerank`).
    pub name: &'static str,
    /// As prose names it (`BFS`, `PageRank`).
    pub title: &'static str,
    /// One line: what it computes and how.
    pub about: &'static str,
    pub params: &'static [ParamSpec],
    /// The engines it has, in the order `auto` tries them.
    pub engines: &'static [Engine],
    /// The per-vertex results it returns; the first is what `--output`
    /// writes unless a parameter picks another.
    pub columns: &'static [ColumnSpec],
}

/// A per-vertex result an algorithm returns, and how tests compare it
/// with the reference.
#[derive(Debug)]
pub struct ColumnSpec {
    pub name: &'static str,
    pub kind: ValueKind,
    pub compare: Compare,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Compare {
    Exact,
    /// |got - want| <= tolerance * max(|want|, 1e-300).
    Relative(f64),
    /// Labels: equal as partitions of the vertices.
    Partition,
    /// Not compared with the reference (any valid answer; the validator checks it).
    Validated,
}

/// What a validator concluded.
#[derive(Clone, Debug, Serialize)]
pub struct Validation {
    pub passed: bool,
    /// How it was checked ("Graph500 rules 1-5", "the reference").
    pub method: String,
    /// The first violation, or what was checked.
    pub detail: String,
}

impl Validation {
    pub fn pass(method: impl Into<String>, detail: impl Into<String>) -> Self {
        Validation { passed: true, method: method.into(), detail: detail.into() }
    }
    pub fn fail(method: impl Into<String>, detail: impl Into<String>) -> Self {
        Validation { passed: false, method: method.into(), detail: detail.into() }
    }
}

/// An algorithm: one module per problem, one file per engine version.
pub trait Algorithm: Send + Sync + 'static {
    /// Typed parameters (original ids where they name vertices).
    type Params: Clone + std::fmt::Debug + Default + Send + Sync + 'static;

    fn info(&self) -> &'static Info;

    /// The typed parameters from name/value text (front ends).
    fn parse(&self, args: &Args) -> Result<Self::Params, StoreError>;

    /// Whether the algorithm runs on `engine` with these parameters, and
    /// what it needs there.
    fn support(&self, store: &Store, engine: Engine, p: &Self::Params, opts: &RunOptions) -> Result<Support, StoreError>;

    /// Run on the engine the plan chose (`cx.engine()`).
    fn run(&self, cx: &mut Context, p: &Self::Params) -> Result<Outcome, StoreError>;

    /// The plain in-memory version over `g` (the store's `out` layout in
    /// dense ids): the oracle of the tests and of `--verify` on small graphs.
    fn reference(&self, store: &Store, g: &MemGraph, p: &Self::Params) -> Result<Outcome, StoreError>;

    /// Check a result without trusting the code that made it.
    fn validate(&self, check: &Check, p: &Self::Params) -> Result<Validation, StoreError>;

    /// The most the reference takes beside the graph it runs over: its
    /// working state and its result. What a validator comparing with it
    /// charges (with the graph, [`MemGraph::load_bytes`]); by default a
    /// few vectors a vertex, as the references of the traversals and
    /// the iterative codes keep.
    fn reference_bytes(&self, store: &Store, _p: &Self::Params) -> u64 {
        store.vertices() * 48
    }
}

/// What a validator gets: the store, the run's result and report, and the
/// budget it may use.
pub struct Check<'a> {
    pub store: &'a Store,
    pub outcome: &'a Outcome,
    pub report: &'a Report,
    pub budget: &'a Budget,
}

impl Check<'_> {
    /// Compare with the reference when the graph (with the scan loading
    /// it) and what the reference and the comparison hold beside it fit
    /// what the budget has left; `None` when they do not.
    pub fn against_reference<A: Algorithm>(&self, alg: &A, p: &A::Params) -> Result<Option<Validation>, StoreError> {
        let compare = self.compare_bytes(alg)?;
        if self.reference_needs(alg, p, compare)? > self.budget.available() {
            return Ok(None);
        }
        // charges the graph while it lives, and its scan while it loads
        let g = MemGraph::load(self.store, "out", self.budget)?;
        let state = self.budget.reserve("the reference's state and result", alg.reference_bytes(self.store, p))?;
        let want = alg.reference(self.store, &g, p)?;
        // its state is gone: its result stays, beside both sides of a
        // column as they are compared (no more than was checked for above)
        drop(state);
        let _compare = self.budget.reserve("the reference's result, and the comparison", want.memory_bytes() + compare)?;
        for spec in alg.info().columns {
            let (Some(a), Some(b)) = (self.outcome.column(spec.name), want.column(spec.name)) else { continue };
            if let Err(why) = crate::compare::columns(spec, a, b)? {
                return Ok(Some(Validation::fail("the in-memory reference", why)));
            }
        }
        Ok(Some(Validation::pass("the in-memory reference", "every value equals the reference's")))
    }

    /// The most a comparison with the reference holds: the graph, the
    /// reference's state and result, then its result and the comparison
    /// (`compare` bytes; counted as if both were held at once).
    fn reference_needs<A: Algorithm>(&self, alg: &A, p: &A::Params, compare: u64) -> Result<u64, StoreError> {
        Ok(MemGraph::load_bytes(self.store, "out")? + alg.reference_bytes(self.store, p) + compare)
    }

    /// What comparing a column holds: both sides in memory
    /// ([`crate::compare::bytes`]), and what reading the run's column takes
    /// where it is on disk.
    fn compare_bytes<A: Algorithm>(&self, alg: &A) -> Result<u64, StoreError> {
        let n = self.store.vertices();
        let mut compare = 0;
        for spec in alg.info().columns {
            let read = self.outcome.column(spec.name).map(|c| c.data.read_bytes()).transpose()?.unwrap_or(0);
            compare = compare.max(crate::compare::bytes(spec, n) + read);
        }
        Ok(compare)
    }
}

impl Check<'_> {
    /// The comparison with the reference, or, when the graph does not fit
    /// the budget beside the result, the budget error saying so.
    pub fn by_reference<A: Algorithm>(&self, alg: &A, p: &A::Params) -> Result<Validation, StoreError> {
        if let Some(v) = self.against_reference(alg, p)? {
            return Ok(v);
        }
        let needed = self.reference_needs(alg, p, self.compare_bytes(alg)?)?;
        Err(outcore_io::BudgetError {
            what: format!("the in-memory reference {} is verified against", alg.info().title),
            needed,
            available: self.budget.available(),
            total: self.budget.total(),
            suggest: self.budget.total() + needed,
        }
        .into())
    }
}

/// What a run gets: the store, the budget (the process baseline already
/// charged), the options, and the plan; and where it puts its figures.
pub struct Context<'a> {
    pub store: &'a Store,
    pub budget: &'a Budget,
    pub options: &'a RunOptions,
    pub plan: &'a Plan,
    figures: serde_json::Map<String, serde_json::Value>,
    seconds: Option<f64>,
}

impl<'a> Context<'a> {
    pub fn new(store: &'a Store, budget: &'a Budget, options: &'a RunOptions, plan: &'a Plan) -> Self {
        Context { store, budget, options, plan, figures: Default::default(), seconds: None }
    }
    pub fn engine(&self) -> Engine {
        self.plan.engine
    }
    pub fn reason(&self) -> String {
        self.plan.reason.clone()
    }
    /// Add a figure to the report (`vertices_reached`, `teps`, ...).
    pub fn figure(&mut self, key: &str, value: impl Serialize) {
        self.figures.insert(key.to_string(), serde_json::to_value(value).unwrap_or(serde_json::Value::Null));
    }
    /// A sentence for the reader of the report (`notes`, in order): what
    /// the run did short of what the store or a larger budget allows, and
    /// what would change it.
    pub fn note(&mut self, text: impl Into<String>) {
        let notes = self.figures.entry("notes").or_insert_with(|| serde_json::Value::Array(Vec::new()));
        if let serde_json::Value::Array(list) = notes {
            list.push(serde_json::Value::String(text.into()));
        }
    }
    /// Add every field of `value` (an engine's statistics) to the report.
    pub fn figures_of(&mut self, value: impl Serialize) {
        if let Ok(serde_json::Value::Object(map)) = serde_json::to_value(value) {
            self.figures.extend(map);
        }
    }
    /// The time the report gives as `seconds` (default: the whole run).
    pub fn set_seconds(&mut self, seconds: f64) {
        self.seconds = Some(seconds);
    }
    pub fn progress(&self) -> &dyn Progress {
        match &self.options.progress {
            Some(p) => &**p,
            None => &NoProgress,
        }
    }
    /// The dense id of original id `id`, given as parameter `param`.
    pub fn dense(&self, param: &str, id: u64) -> Result<u64, StoreError> {
        self.store
            .ids()?
            .find(id)?
            .ok_or_else(|| StoreError::parameter(param, format!("{id} is not a vertex of {}", self.store.dir().display())))
    }
    /// The stream engine's options for this run.
    pub fn stream_options(&self) -> StreamOptions {
        let mut s = self.options.stream.clone();
        // the memory regime holds every tile in the pool
        s.cache |= self.engine() == Engine::Memory;
        s
    }
    pub fn interval_options(&self) -> IntervalOptions {
        let mut o = self.options.interval.clone();
        o.temp_dir = o.temp_dir.or_else(|| self.options.temp_dir.clone());
        o
    }
    pub fn sortreduce_options(&self) -> SortReduceOptions {
        let mut o = self.options.sortreduce.clone();
        o.temp_dir = o.temp_dir.or_else(|| self.options.temp_dir.clone());
        o
    }
}

/// What a run reports (its `--json`).
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub algorithm: String,
    pub engine: Engine,
    pub engine_reason: String,
    pub plan: Plan,
    /// Seconds of the run proper (the algorithm may leave out its setup,
    /// which it then reports as `setup_seconds`).
    pub seconds: f64,
    pub budget_bytes: u64,
    pub budget_peak_bytes: u64,
    pub peak_rss_bytes: Option<u64>,
    #[serde(flatten)]
    pub figures: serde_json::Map<String, serde_json::Value>,
}

impl Report {
    pub fn figure(&self, key: &str) -> Option<&serde_json::Value> {
        self.figures.get(key)
    }
}

/// A finished run: the per-vertex results (dense ids), the report, and the
/// budget that still holds what the results keep in memory.
pub struct Run {
    pub outcome: Outcome,
    pub report: Report,
    pub budget: Budget,
    _baseline: Reservation,
}

impl Run {
    /// Put `outcome` in place of the run's results (tests use it to check
    /// that validators reject a damaged result); returns the old ones.
    pub fn replace_outcome(&mut self, outcome: Outcome) -> Outcome {
        std::mem::replace(&mut self.outcome, outcome)
    }
}

/// The budget of a run: `memory` with the process baseline charged.
pub fn open_budget(memory: u64) -> Result<(Budget, Reservation), StoreError> {
    let budget = Budget::new(memory);
    let base = budget.reserve("program, thread stacks and allocator slack", PROCESS_BASELINE)?;
    Ok((budget, base))
}

/// The plan `alg` would follow on `store` with these parameters and options.
pub fn plan_for<A: Algorithm>(alg: &A, store: &Store, p: &A::Params, opts: &RunOptions) -> Result<Plan, Error> {
    opts.check()?;
    let (budget, _base) = open_planned_budget(alg, store, p, opts)?;
    plan(alg.info(), store, opts.engine, &budget, |e| alg.support(store, e, p, opts))
}

/// The run's budget with the process baseline charged. A budget too small
/// even for the baseline is planned as if the baseline fitted, so the
/// error names the whole minimum (baseline and engine) in one figure.
fn open_planned_budget<A: Algorithm>(alg: &A, store: &Store, p: &A::Params, opts: &RunOptions) -> Result<(Budget, Reservation), Error> {
    match open_budget(opts.memory) {
        Ok(b) => Ok(b),
        Err(short) => {
            let (budget, _base) = open_budget(PROCESS_BASELINE)?;
            let whole = match plan(alg.info(), store, opts.engine, &budget, |e| alg.support(store, e, p, opts)) {
                Err(Error::Store(StoreError::Budget(mut b))) => {
                    // the same figure, stated against the budget the user gave
                    b.total = opts.memory;
                    b.available = opts.memory.saturating_sub(PROCESS_BASELINE);
                    Error::Store(StoreError::Budget(b))
                }
                Err(other) => other,
                Ok(_) => Error::Store(short),
            };
            Err(whole)
        }
    }
}

/// Run `alg` on `store`: plan, run, report.
pub fn execute<A: Algorithm>(alg: &A, store: &Store, p: &A::Params, opts: &RunOptions) -> Result<Run, Error> {
    // what earlier work in this process freed is not ours to keep resident
    outcore_io::release_free_memory();
    opts.check()?;
    let (budget, base) = open_planned_budget(alg, store, p, opts)?;
    let info = alg.info();
    let plan = plan(info, store, opts.engine, &budget, |e| alg.support(store, e, p, opts))?;
    let mut cx = Context::new(store, &budget, opts, &plan);
    let t = Instant::now();
    let outcome = alg.run(&mut cx, p)?;
    let elapsed = t.elapsed().as_secs_f64();
    let seconds = cx.seconds.unwrap_or(elapsed);
    let figures = std::mem::take(&mut cx.figures);
    let report = Report {
        algorithm: info.name.to_string(),
        engine: plan.engine,
        engine_reason: plan.reason.clone(),
        seconds,
        budget_bytes: budget.total(),
        budget_peak_bytes: budget.peak(),
        peak_rss_bytes: outcore_io::peak_rss_bytes(),
        plan,
        figures,
    };
    Ok(Run { outcome, report, budget, _baseline: base })
}

/// Validate a finished run of `alg` (the budget of the run pays for it).
pub fn validate<A: Algorithm>(alg: &A, store: &Store, p: &A::Params, run: &Run) -> Result<Validation, Error> {
    let check = Check { store, outcome: &run.outcome, report: &run.report, budget: &run.budget };
    Ok(alg.validate(&check, p)?)
}
