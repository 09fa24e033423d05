//! One file per command. The algorithm commands are all [`run`], made
//! from the registry.

pub mod bench_decode;
pub mod completions;
pub mod demo;
pub mod dynamic;
pub mod export;
pub mod generate;
pub mod graph500;
pub mod import;
pub mod info;
pub mod layout;
pub mod man;
pub mod partition;
pub mod probe;
pub mod recode;
pub mod run;
