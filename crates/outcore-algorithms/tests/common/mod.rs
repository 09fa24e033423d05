//! Reading the LDBC Graphalytics validation graphs and their expected outputs.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub fn shared() -> PathBuf {
    outcore_io::shared_dir(env!("CARGO_MANIFEST_DIR")).join("data")
}

pub fn evlp() -> PathBuf {
    shared().join("graphalytics/evlp")
}

/// `graph.NAME.KEY` from the graph's .properties file.
pub fn property(name: &str, key: &str) -> Option<String> {
    let text = std::fs::read_to_string(evlp().join(format!("{name}.properties"))).unwrap();
    text.lines()
        .find_map(|l| l.split_once('=').filter(|(k, _)| k.trim() == format!("graph.{name}.{key}")).map(|(_, v)| v.trim().to_string()))
}

/// The expected output of algorithm `alg` (BFS, PR, WCC, ...), if the graph has one.
pub fn expected(name: &str, alg: &str) -> Option<HashMap<u64, String>> {
    let text = std::fs::read_to_string(evlp().join(format!("{name}-{alg}"))).ok()?;
    Some(text.lines().filter_map(|l| l.split_once(' ')).map(|(v, x)| (v.parse().unwrap(), x.to_string())).collect())
}
