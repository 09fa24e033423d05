//! A finished run in original ids: the report, and each per-vertex result
//! streamed in vertex order with its original id, by a sequential join
//! with the store's id map (never the whole map in memory unless it fits
//! the budget). Values that name vertices (parents, labels) are
//! translated too.

use crate::Error;
use outcore_algorithms::run::{Run, Validation};
use outcore_algorithms::{Column, Report, ValueKind, Vectors};
use outcore_store::{Store, StoreError, ITEM_ID_BASE};

/// One value of a result, in original ids.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Entry {
    /// Not reached (a level or a parent).
    Unreached,
    /// A level or a count.
    Integer(u64),
    /// A vertex (a parent, a label), as its original id.
    Vertex(u64),
    /// A real (a rank, a distance; infinity when unreachable).
    Real(f64),
}

/// Which side of a bipartite store a vertex is on (`Vertex` in other stores).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// A user of a bipartite store.
    User,
    /// An item of a bipartite store (its id as imported, without [`ITEM_ID_BASE`]).
    Item,
    /// A vertex of a store with no sides.
    Vertex,
}

impl Side {
    /// `u`, `i`, or nothing: the first field of a vector line.
    pub fn tag(self) -> &'static str {
        match self {
            Side::User => "u ",
            Side::Item => "i ",
            Side::Vertex => "",
        }
    }
}

/// The results of one run of an algorithm on a store.
pub struct Results {
    pub(crate) store: Store,
    pub(crate) algorithm: &'static str,
    pub(crate) validator: Validator,
    pub(crate) run: Run,
}

/// Checks a run with the typed parameters it was made with.
pub(crate) type Validator = Box<dyn Fn(&Store, &Run) -> Result<Validation, Error> + Send + Sync>;

impl Results {
    /// What ran, on which engine and why, how long, and the algorithm's figures.
    pub fn report(&self) -> &Report {
        &self.run.report
    }

    /// The report as JSON (the CLI's `--json`).
    pub fn report_json(&self) -> serde_json::Value {
        serde_json::to_value(&self.run.report).unwrap_or(serde_json::Value::Null)
    }

    /// The names of the per-vertex results (scalar columns, then the vector result).
    pub fn columns(&self) -> Vec<&'static str> {
        self.run.outcome.columns.iter().map(|c| c.name).chain(self.run.outcome.vectors.as_ref().map(|v| v.name)).collect()
    }

    /// The error for a result `name` the run does not have.
    fn unknown(&self, name: &str) -> Error {
        Error::UnknownColumn { algorithm: self.algorithm.into(), name: name.into(), known: self.columns().join(", ") }
    }

    /// The per-vertex result `name`, in dense ids.
    pub fn column(&self, name: &str) -> Result<&Column, Error> {
        self.run.outcome.column(name).ok_or_else(|| self.unknown(name))
    }

    /// Call `f(original id, value)` for every vertex, in the store's order.
    pub fn for_each(&self, name: &str, mut f: impl FnMut(u64, Entry)) -> Result<(), Error> {
        let column = self.column(name)?;
        let ids = self.store.ids()?;
        let mut stream = ids.stream()?;
        let mut lookup = if column.kind == ValueKind::Vertex { Some(ids.lookup(&self.run.budget, 0)?) } else { None };
        let mut failure: Option<StoreError> = None;
        column.for_each(|_, x| {
            if failure.is_some() {
                return;
            }
            let mut step = || -> Result<(u64, Entry), StoreError> {
                let v =
                    stream.next_id()?.ok_or_else(|| StoreError::invalid(self.store.dir(), "the id map has fewer ids than the result"))?;
                let entry = match (column.kind, x) {
                    (_, x) if x.is_unreached() && column.kind != ValueKind::Real => Entry::Unreached,
                    (ValueKind::Vertex, x) => Entry::Vertex(lookup.as_mut().unwrap().original(x.as_u64())?),
                    (ValueKind::Real, x) => Entry::Real(x.as_f64()),
                    (_, x) => Entry::Integer(x.as_u64()),
                };
                Ok((v, entry))
            };
            match step() {
                Ok((v, e)) => f(v, e),
                Err(e) => failure = Some(e),
            }
        })?;
        match failure {
            Some(e) => Err(e.into()),
            None => Ok(()),
        }
    }

    /// The vector result `name` (ALS's `factors`), if the run made one.
    pub fn vectors(&self, name: &str) -> Option<&Vectors> {
        self.run.outcome.vectors(name)
    }

    /// Call `f(original id, vector)` for every vertex of the vector result
    /// `name`, in the store's order, with its [`Side`]: in a bipartite store
    /// users, then items, whose ids are given as imported (without
    /// [`ITEM_ID_BASE`]).
    pub fn for_each_vector(&self, name: &str, mut f: impl FnMut(Side, u64, &[f32])) -> Result<(), Error> {
        let vectors = self.vectors(name).ok_or_else(|| self.unknown(name))?;
        let bipartite = self.store.manifest().bipartite.is_some();
        let ids = self.store.ids()?;
        let mut stream = ids.stream()?;
        let mut failure: Option<StoreError> = None;
        vectors.for_each(|_, x| {
            if failure.is_some() {
                return;
            }
            match stream.next_id() {
                Ok(Some(id)) if bipartite && id >= ITEM_ID_BASE => f(Side::Item, id - ITEM_ID_BASE, x),
                Ok(Some(id)) if bipartite => f(Side::User, id, x),
                Ok(Some(id)) => f(Side::Vertex, id, x),
                Ok(None) => failure = Some(StoreError::invalid(self.store.dir(), "the id map has fewer ids than the result")),
                Err(e) => failure = Some(e),
            }
        })?;
        match failure {
            Some(e) => Err(e.into()),
            None => Ok(()),
        }
    }

    /// `(original id, value)` of every vertex in memory (tests, small graphs).
    pub fn to_vec(&self, name: &str) -> Result<Vec<(u64, Entry)>, Error> {
        let mut out = Vec::new();
        self.for_each(name, |v, e| out.push((v, e)))?;
        Ok(out)
    }

    /// Check the result with the algorithm's validator (Graph500 rules for
    /// BFS and SSSP, component consistency for WCC, a residual check for
    /// PageRank, the reference on graphs small enough).
    pub fn verify(&self) -> Result<Validation, Error> {
        (self.validator)(&self.store, &self.run)
    }

    /// The run itself (dense-id columns, the budget that holds them).
    pub fn run(&self) -> &Run {
        &self.run
    }
}

/// Graphalytics' text for a real: `%.15e` with a two-digit exponent
/// (`2.476533217845853e-08`), `infinity` when infinite.
pub fn graphalytics_float(x: f64, out: &mut Vec<u8>) {
    use std::io::Write;
    if x.is_infinite() {
        out.extend_from_slice(b"infinity");
        return;
    }
    let s = format!("{x:.15e}");
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let _ = write!(out, "{mantissa}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs());
}

/// Write `entry` as Graphalytics text: levels with `9223372036854775807`
/// for unreached vertices, parents with `-1`, reals as [`graphalytics_float`].
pub fn format_entry(kind: ValueKind, entry: Entry, out: &mut Vec<u8>) {
    use std::io::Write;
    let _ = match entry {
        Entry::Unreached if kind == ValueKind::Vertex => write!(out, "-1"),
        Entry::Unreached => write!(out, "{}", i64::MAX),
        Entry::Integer(x) | Entry::Vertex(x) => write!(out, "{x}"),
        Entry::Real(x) => {
            graphalytics_float(x, out);
            Ok(())
        }
    };
}
