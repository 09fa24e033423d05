//! The engine plan (DESIGN.md, "What out-of-core means here"): which
//! engine runs an algorithm on a store under a budget, and why.
//!
//! Each algorithm declares, per engine it has, what that engine needs
//! ([`Need`]: layouts, weights, bytes) in the order `auto` should try them.
//! [`plan`] is the one place that turns those declarations, the store's
//! layouts and the budget into a choice: a fixed choice is checked and
//! refused with a typed error (missing layout, no weights, budget shortfall
//! with the smallest budget that would work, no such version); `auto` takes
//! the first engine whose layouts the store has and whose needs fit, and
//! records what every other engine lacked, so that the report can say what
//! a missing layout would have bought.

use crate::run::Info;
use crate::Error;
use outcore_io::{format_bytes, Budget, BudgetError};
use outcore_store::{Store, StoreError};
use serde::Serialize;
use std::fmt;

/// The engines of outcore, one vocabulary across the library, the CLI, the
/// JSON reports and the README.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    /// Tiles (G-Store) with every tile held in the cache pool: after the
    /// first pass nothing is read.
    Memory,
    /// Semi-external (CEESOR/RASP, NETALX): vertex state and index in
    /// memory, adjacency through the block cache with run-ahead prefetch,
    /// or one sequential scan of it.
    Traverse,
    /// Tiles streamed with slide-cache-rewind (G-Store).
    Stream,
    /// VENUS intervals: vertex values on disk, one interval in memory.
    Interval,
    /// BigSparse sort-reduce: vertex values and updates on disk; memory
    /// independent of |V| and |E|.
    #[serde(rename = "sortreduce")]
    SortReduce,
}

impl Engine {
    pub const ALL: [Engine; 5] = [Engine::Memory, Engine::Traverse, Engine::Stream, Engine::Interval, Engine::SortReduce];

    pub fn name(self) -> &'static str {
        match self {
            Engine::Memory => "memory",
            Engine::Traverse => "traverse",
            Engine::Stream => "stream",
            Engine::Interval => "interval",
            Engine::SortReduce => "sortreduce",
        }
    }

    /// One line on what the engine keeps where.
    pub fn summary(self) -> &'static str {
        match self {
            Engine::Memory => "every tile cached in memory",
            Engine::Traverse => "vertex state in memory, adjacency through the block cache",
            Engine::Stream => "vertex state in memory, tiles streamed",
            Engine::Interval => "vertex values on disk, one interval in memory",
            Engine::SortReduce => "vertex values and updates on disk, memory independent of |V|",
        }
    }
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Engine {
    type Err = StoreError;
    fn from_str(s: &str) -> Result<Self, StoreError> {
        Engine::ALL.into_iter().find(|e| e.name() == s).ok_or_else(|| {
            StoreError::parameter("engine", format!("'{s}' is not an engine (auto, memory, traverse, stream, interval, sortreduce)"))
        })
    }
}

/// `auto`, or one engine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EngineChoice {
    #[default]
    Auto,
    Fixed(Engine),
}

impl std::str::FromStr for EngineChoice {
    type Err = StoreError;
    fn from_str(s: &str) -> Result<Self, StoreError> {
        if s == "auto" {
            return Ok(EngineChoice::Auto);
        }
        s.parse().map(EngineChoice::Fixed).map_err(|_| {
            StoreError::parameter("engine", format!("unknown engine '{s}' (auto, memory, traverse, stream, interval, sortreduce)"))
        })
    }
}

impl From<Engine> for EngineChoice {
    fn from(e: Engine) -> Self {
        EngineChoice::Fixed(e)
    }
}

/// What one engine version of an algorithm needs to run.
#[derive(Clone, Debug)]
pub struct Need {
    /// Layouts it reads (`out`, `in`, `tiles`).
    pub layouts: Vec<&'static str>,
    /// Whether it reads edge weights.
    pub weights: bool,
    /// The smallest budget (beyond the process baseline) it runs with.
    pub min_bytes: u64,
    /// The budget `auto` wants before it picks this engine (the memory
    /// engine wants every tile and generous segments; most want `min_bytes`).
    pub auto_bytes: u64,
    /// What the bytes are, for messages ("vertex state and index").
    pub what: String,
    /// Whether `auto` may pick it (else only when asked for by name).
    pub auto: bool,
}

impl Need {
    pub fn new(layouts: &[&'static str], min_bytes: u64, what: impl Into<String>) -> Self {
        Need { layouts: layouts.to_vec(), weights: false, min_bytes, auto_bytes: min_bytes, what: what.into(), auto: true }
    }
    pub fn with_weights(mut self, weights: bool) -> Self {
        self.weights = weights;
        self
    }
    /// Only when asked for by name.
    pub fn on_request(mut self) -> Self {
        self.auto = false;
        self
    }
    pub fn auto_at(mut self, bytes: u64) -> Self {
        self.auto_bytes = bytes.max(self.min_bytes);
        self
    }
}

/// Whether an algorithm has a version for an engine, and what it needs.
#[derive(Clone, Debug)]
pub enum Support {
    Runs(Need),
    /// No version for this engine (or not with these parameters), and why.
    No(String),
}

/// What the plan found for one engine.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Verdict {
    Chosen {
        needs: u64,
    },
    /// It would fit, but an engine tried earlier was chosen.
    Fits {
        needs: u64,
    },
    MissingLayouts {
        layouts: Vec<String>,
        needs: u64,
    },
    NoWeights,
    TooSmall {
        needs: u64,
        available: u64,
    },
    /// `auto` does not pick it; it runs when asked for by name.
    OnRequest,
    Unsupported {
        why: String,
    },
}

#[derive(Clone, Debug, Serialize)]
pub struct Considered {
    pub engine: Engine,
    #[serde(flatten)]
    pub verdict: Verdict,
}

/// A layout the store lacks that would have let a preferred engine run.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct LayoutGain {
    pub layout: String,
    pub engine: Engine,
}

impl fmt::Display for LayoutGain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the {} layout would let the {} engine run this ({})", self.layout, self.engine, self.engine.summary())
    }
}

/// The engine chosen, why, and what was weighed.
#[derive(Clone, Debug, Serialize)]
pub struct Plan {
    pub algorithm: String,
    pub engine: Engine,
    /// Whether the engine was asked for (else `auto` chose it).
    pub requested: bool,
    pub reason: String,
    /// Budget left when planning (after the process baseline).
    pub available: u64,
    pub considered: Vec<Considered>,
    /// Missing layouts that would have let a better engine run.
    pub layout_gains: Vec<LayoutGain>,
    /// The smallest budget (whole MiB, the process baseline included) at
    /// which this run can go ahead: the requested engine's minimum, or for
    /// `auto` the smallest minimum of the engines the store can run.
    pub minimum_bytes: u64,
}

impl Plan {
    /// The need the chosen engine declared.
    pub fn chosen_bytes(&self) -> u64 {
        self.considered
            .iter()
            .find_map(|c| match c.verdict {
                Verdict::Chosen { needs } => Some(needs),
                _ => None,
            })
            .unwrap_or(0)
    }
}

/// What a layout written before page checksums costs the traverse
/// engine, and how to get them (empty when every layout has them): a raw
/// layout's random reads are checked a 1 MiB block at a time, and a
/// compressed layout's lists are read with their whole codec block.
fn page_checksums_advice(store: &Store) -> String {
    let lacking = |blocked: bool| store.manifest().layouts.values().any(|l| l.blocks.is_some() == blocked && l.adjacency_pages.is_none());
    let raw = lacking(false) && outcore_io::verify::verification_enabled();
    let costs = [
        (raw, "its random reads of raw adjacency are checked a whole 1 MiB block at a time"),
        (lacking(true), "its compressed lists are read with their whole codec block (about 2 pages a list where 1 holds it)"),
    ];
    let costs: Vec<&str> = costs.into_iter().filter_map(|(lacks, cost)| lacks.then_some(cost)).collect();
    if costs.is_empty() {
        return String::new();
    }
    format!(
        "; the store has no page checksums (written before them), so {}: `outcore layout upgrade STORE` writes them in place \
         (1/512 of the adjacency), and searches then read no more than their lists",
        costs.join(" and ")
    )
}

/// Choose the engine for the algorithm `info` describes on `store` with
/// what `budget` has left. `info.engines` lists the versions it has, in
/// the order `auto` tries them; `support` says what each needs.
pub fn plan(
    info: &Info,
    store: &Store,
    choice: EngineChoice,
    budget: &Budget,
    mut support: impl FnMut(Engine) -> Result<Support, StoreError>,
) -> Result<Plan, Error> {
    let (algorithm, title, engines) = (info.name, info.title, info.engines);
    let (available, total) = (budget.available(), budget.total());
    let baseline = total - available;
    let minimum = |need: u64| (baseline + need).div_ceil(1 << 20) << 20;
    let weighted = store.manifest().weighted;
    let missing_layouts =
        |need: &Need| -> Vec<String> { need.layouts.iter().filter(|l| !store.has_layout(l)).map(|l| l.to_string()).collect() };
    let shortfall = |need: &Need, what: &str| -> Error {
        Error::Store(StoreError::Budget(BudgetError {
            what: what.to_string(),
            needed: need.min_bytes,
            available,
            total,
            suggest: (total + need.min_bytes - available.min(need.min_bytes)).div_ceil(1 << 20) << 20,
        }))
    };
    if let EngineChoice::Fixed(engine) = choice {
        if !engines.contains(&engine) {
            return Err(Error::Unsupported {
                algorithm: algorithm.into(),
                engine,
                why: format!("its engines are {}", engines.iter().map(|e| e.name()).collect::<Vec<_>>().join(", ")),
            });
        }
        let need = match support(engine)? {
            Support::Runs(need) => need,
            Support::No(why) => return Err(Error::Unsupported { algorithm: algorithm.into(), engine, why }),
        };
        if let Some(layout) = missing_layouts(&need).first() {
            return Err(store.missing(layout, &format!("{algorithm} on the {engine} engine")).into());
        }
        if need.weights && !weighted {
            return Err(StoreError::NoWeights { store: store.dir().to_path_buf(), reader: title.to_string() }.into());
        }
        if need.min_bytes > available {
            return Err(shortfall(&need, &format!("{} ({algorithm} on the {engine} engine)", need.what)));
        }
        return Ok(Plan {
            algorithm: algorithm.into(),
            engine,
            requested: true,
            reason: "requested".into(),
            available,
            considered: vec![Considered { engine, verdict: Verdict::Chosen { needs: need.min_bytes } }],
            layout_gains: Vec::new(),
            minimum_bytes: minimum(need.min_bytes),
        });
    }

    let mut considered = Vec::new();
    let mut chosen: Option<(Engine, Need)> = None;
    let mut needs = Vec::new();
    for &engine in engines {
        let verdict = match support(engine)? {
            Support::No(why) => Verdict::Unsupported { why },
            Support::Runs(need) if !need.auto => Verdict::OnRequest,
            Support::Runs(need) => {
                let missing = missing_layouts(&need);
                let verdict = if !missing.is_empty() {
                    Verdict::MissingLayouts { layouts: missing, needs: need.auto_bytes }
                } else if need.weights && !weighted {
                    Verdict::NoWeights
                } else if need.auto_bytes > available {
                    Verdict::TooSmall { needs: need.auto_bytes, available }
                } else if chosen.is_some() {
                    Verdict::Fits { needs: need.auto_bytes }
                } else {
                    chosen = Some((engine, need.clone()));
                    Verdict::Chosen { needs: need.auto_bytes }
                };
                needs.push((engine, need));
                verdict
            }
        };
        considered.push(Considered { engine, verdict });
    }
    let runnable_min = needs
        .iter()
        .filter(|(_, n)| missing_layouts(n).is_empty() && (!n.weights || weighted))
        .map(|(_, n)| n.min_bytes)
        .min()
        .unwrap_or(0);
    let Some((engine, need)) = chosen else {
        // Nothing fits. An engine whose layouts exist but which is short of
        // memory gives the budget error with the smallest minimum; else the
        // first engine's missing layout.
        let runnable =
            needs.iter().filter(|(_, n)| missing_layouts(n).is_empty() && (!n.weights || weighted)).min_by_key(|(_, n)| n.min_bytes);
        if let Some((engine, need)) = runnable {
            if need.min_bytes <= available {
                // it fits at its minimum though auto wanted more: run it there
                let reason = format!(
                    "{} ({}) fits the {} left of the budget only at the engine's minimum",
                    need.what,
                    format_bytes(need.min_bytes),
                    format_bytes(available)
                );
                for c in considered.iter_mut().filter(|c| c.engine == *engine) {
                    c.verdict = Verdict::Chosen { needs: need.min_bytes };
                }
                return Ok(Plan {
                    algorithm: algorithm.into(),
                    engine: *engine,
                    requested: false,
                    reason,
                    available,
                    considered,
                    layout_gains: Vec::new(),
                    minimum_bytes: minimum(runnable_min),
                });
            }
            return Err(shortfall(need, &format!("{} ({algorithm} on the {engine} engine, the smallest of its engines)", need.what)));
        }
        if let Some((engine, need)) = needs.iter().find(|(_, n)| !missing_layouts(n).is_empty()) {
            let layout = missing_layouts(need).remove(0);
            return Err(store.missing(&layout, &format!("{algorithm} on the {engine} engine")).into());
        }
        if needs.iter().any(|(_, n)| n.weights) {
            return Err(StoreError::NoWeights { store: store.dir().to_path_buf(), reader: title.to_string() }.into());
        }
        return Err(Error::NoEngine {
            algorithm: algorithm.into(),
            store: store.dir().to_path_buf(),
            why: considered
                .iter()
                .map(|c| match &c.verdict {
                    Verdict::Unsupported { why } => format!("{}: {why}", c.engine),
                    _ => format!("{}: cannot run", c.engine),
                })
                .collect::<Vec<_>>()
                .join("; "),
        });
    };
    // Engines tried before the chosen one that lacked only a layout, and
    // would have fitted: what adding the layout would buy.
    let mut layout_gains = Vec::new();
    let mut skipped = Vec::new();
    for c in &considered {
        if c.engine == engine {
            break;
        }
        match &c.verdict {
            Verdict::MissingLayouts { layouts, needs } if *needs <= available => {
                // the best engine each missing layout would enable
                for l in layouts {
                    if !layout_gains.iter().any(|g: &LayoutGain| &g.layout == l) {
                        layout_gains.push(LayoutGain { layout: l.clone(), engine: c.engine });
                    }
                }
                skipped.push(format!("{}: no {} layout", c.engine, layouts.join(", ")));
            }
            Verdict::MissingLayouts { layouts, .. } => skipped.push(format!("{}: no {} layout", c.engine, layouts.join(", "))),
            Verdict::TooSmall { needs, .. } => skipped.push(format!("{}: needs {}", c.engine, format_bytes(*needs))),
            Verdict::NoWeights => skipped.push(format!("{}: needs edge weights", c.engine)),
            Verdict::Unsupported { why } => skipped.push(format!("{}: {why}", c.engine)),
            _ => {}
        }
    }
    let mut reason = format!(
        "{} ({}) fit the {} left of the budget: {}",
        need.what,
        format_bytes(need.auto_bytes),
        format_bytes(available),
        engine.summary()
    );
    if !skipped.is_empty() {
        reason.push_str(&format!(" (before it: {})", skipped.join("; ")));
    }
    if engine == Engine::Traverse {
        reason.push_str(&page_checksums_advice(store));
    }
    Ok(Plan {
        algorithm: algorithm.into(),
        engine,
        requested: false,
        reason,
        available,
        considered,
        layout_gains,
        minimum_bytes: minimum(runnable_min),
    })
}
