//! Algorithm parameters as front ends see them: each algorithm declares
//! its parameters ([`ParamSpec`]: name, kind, default, help) in the
//! registry, the CLI turns them into flags and the Python package into
//! keyword arguments, and both hand back name/value text ([`Args`]) that the
//! algorithm parses into its typed parameters. Rust programs build the
//! typed parameters directly.

use outcore_store::StoreError;
use std::collections::BTreeMap;
use std::str::FromStr;

/// What a parameter holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// An original vertex id.
    Vertex,
    /// Original vertex ids (the flag repeats).
    Vertices,
    /// A non-negative integer.
    Count,
    /// A real number.
    Real,
    /// One of the listed words.
    Choice(&'static [&'static str]),
    /// Free text (`all` or a count, ...).
    Text,
    /// A file of `vertex value` lines (original ids).
    VertexFile,
    /// On when given.
    Switch,
}

/// One parameter of an algorithm.
#[derive(Clone, Copy, Debug)]
pub struct ParamSpec {
    /// The name, `snake_case` (`--kebab-case` on the command line).
    pub name: &'static str,
    pub kind: ParamKind,
    /// The default as text, if the parameter has one.
    pub default: Option<&'static str>,
    pub help: &'static str,
}

/// The root of the single-source traversals (BFS, SSSP).
pub const ROOT: ParamSpec = ParamSpec {
    name: "root",
    kind: ParamKind::Vertex,
    default: None,
    help: "Root vertex (original id); default: a vertex of highest out-degree",
};

/// Parameter values as text, by name (what a front end collected).
#[derive(Clone, Debug, Default)]
pub struct Args {
    values: BTreeMap<String, Vec<String>>,
}

impl Args {
    pub fn new() -> Self {
        Args::default()
    }

    /// Set `name` (a repeated parameter collects every value).
    pub fn set(&mut self, name: &str, value: impl Into<String>) -> &mut Self {
        self.values.entry(name.to_string()).or_default().push(value.into());
        self
    }

    pub fn with(mut self, name: &str, value: impl ToString) -> Self {
        self.set(name, value.to_string());
        self
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.values.keys().map(String::as_str)
    }

    /// Fail on a name `specs` does not declare.
    pub fn check(&self, algorithm: &str, specs: &[ParamSpec]) -> Result<(), StoreError> {
        for name in self.values.keys() {
            if !specs.iter().any(|s| s.name == name) {
                let known: Vec<&str> = specs.iter().map(|s| s.name).collect();
                return Err(StoreError::parameter(name, format!("is not a parameter of {algorithm} (it has: {})", known.join(", "))));
            }
        }
        Ok(())
    }

    /// The last value given for `name`, as text.
    pub fn text(&self, name: &str) -> Option<&str> {
        self.values.get(name).and_then(|v| v.last()).map(String::as_str)
    }

    /// Every value given for `name`.
    pub fn all(&self, name: &str) -> &[String] {
        self.values.get(name).map_or(&[], Vec::as_slice)
    }

    /// `name` parsed, or `default`; a value that does not parse is an error naming it.
    pub fn get<T: FromStr>(&self, name: &str, default: T) -> Result<T, StoreError> {
        match self.text(name) {
            None => Ok(default),
            Some(t) => t.trim().parse().map_err(|_| StoreError::parameter(name, format!("takes {}, not '{t}'", kind_of::<T>()))),
        }
    }

    /// `name` parsed, if given.
    pub fn opt<T: FromStr>(&self, name: &str) -> Result<Option<T>, StoreError> {
        match self.text(name) {
            None => Ok(None),
            Some(t) => t.trim().parse().map(Some).map_err(|_| StoreError::parameter(name, format!("takes {}, not '{t}'", kind_of::<T>()))),
        }
    }

    /// Every value of `name`, parsed.
    pub fn list<T: FromStr>(&self, name: &str) -> Result<Vec<T>, StoreError> {
        // exactly as many as given (a collected Result would grow by doubling)
        let mut out = Vec::with_capacity(self.all(name).len());
        for t in self.all(name) {
            out.push(t.trim().parse().map_err(|_| StoreError::parameter(name, format!("takes {}, not '{t}'", kind_of::<T>())))?);
        }
        Ok(out)
    }

    /// Whether the switch `name` is on.
    pub fn switch(&self, name: &str) -> Result<bool, StoreError> {
        match self.text(name) {
            None => Ok(false),
            Some("true" | "1" | "on" | "yes" | "") => Ok(true),
            Some("false" | "0" | "off" | "no") => Ok(false),
            Some(t) => Err(StoreError::parameter(name, format!("is a switch (true or false), not '{t}'"))),
        }
    }

    /// `name` as one of `choices`.
    pub fn choice(&self, name: &str, choices: &[&'static str], default: &'static str) -> Result<&'static str, StoreError> {
        match self.text(name) {
            None => Ok(default),
            Some(t) => choices
                .iter()
                .find(|c| **c == t)
                .copied()
                .ok_or_else(|| StoreError::parameter(name, format!("takes one of {}, not '{t}'", choices.join(", ")))),
        }
    }
}

fn kind_of<T>() -> &'static str {
    let t = std::any::type_name::<T>();
    if t.contains("f64") || t.contains("f32") {
        "a number"
    } else if t.contains("u64") || t.contains("u32") || t.contains("usize") {
        "a non-negative integer"
    } else {
        "a value of its kind"
    }
}
