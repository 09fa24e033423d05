//! Every algorithm, one line each. The CLI makes a command of each entry,
//! the Python package a method, and the table test runs each on every
//! engine it declares, on every encoding, against its reference. Adding an
//! algorithm is one module and one line here (README.md, "Adding an
//! algorithm").

use crate::params::Args;
use crate::plan::Plan;
use crate::run::{execute, plan_for, validate, Algorithm, Info, Run, RunOptions, Validation};
use crate::values::Outcome;
use crate::{Error, MemGraph};
use outcore_store::Store;

/// The registry, in the order the CLI lists the commands.
pub static ALGORITHMS: &[&dyn Registered] = &[
    &crate::bfs::Bfs,
    &crate::sssp::Sssp,
    &crate::wcc::Wcc,
    &crate::pagerank::PageRank,
    &crate::cdlp::Cdlp,
    &crate::spmv::Spmv,
    &crate::bc::Bc,
    &crate::triangles::Triangles,
    &crate::triangles::Lcc,
    &crate::kcore::KCore,
    &crate::scc::Scc,
    &crate::als::Als,
];

/// The algorithm called `name`.
pub fn find(name: &str) -> Option<&'static dyn Registered> {
    ALGORITHMS.iter().copied().find(|a| a.info().name == name)
}

/// An algorithm driven by name/value parameters (what front ends hold).
pub trait Registered: Sync {
    fn info(&self) -> &'static Info;
    /// The plan with these parameters and options.
    fn plan(&self, store: &Store, args: &Args, opts: &RunOptions) -> Result<Plan, Error>;
    /// Run with these parameters and options.
    fn run(&self, store: &Store, args: &Args, opts: &RunOptions) -> Result<Run, Error>;
    /// The in-memory reference over `g`, in dense ids.
    fn reference(&self, store: &Store, g: &MemGraph, args: &Args) -> Result<Outcome, Error>;
    /// Check a finished run made with these parameters.
    fn validate(&self, store: &Store, args: &Args, run: &Run) -> Result<Validation, Error>;
}

impl<A: Algorithm> Registered for A {
    fn info(&self) -> &'static Info {
        Algorithm::info(self)
    }
    fn plan(&self, store: &Store, args: &Args, opts: &RunOptions) -> Result<Plan, Error> {
        args.check(Algorithm::info(self).name, Algorithm::info(self).params)?;
        plan_for(self, store, &self.parse(args)?, opts)
    }
    fn run(&self, store: &Store, args: &Args, opts: &RunOptions) -> Result<Run, Error> {
        args.check(Algorithm::info(self).name, Algorithm::info(self).params)?;
        execute(self, store, &self.parse(args)?, opts)
    }
    fn reference(&self, store: &Store, g: &MemGraph, args: &Args) -> Result<Outcome, Error> {
        Ok(Algorithm::reference(self, store, g, &self.parse(args)?)?)
    }
    fn validate(&self, store: &Store, args: &Args, run: &Run) -> Result<Validation, Error> {
        validate(self, store, &self.parse(args)?, run)
    }
}
