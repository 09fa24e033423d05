//! The files a distributed dynamic store adds to each rank's part (a
//! directory that holds that rank's outcore dynamic store):
//! - `DIST`: JSON, written once at creation and the same on every rank
//!   but for `rank`: the store's identity (a random id every part
//!   shares), the number of ranks, this part's rank, the owner function
//!   and the store options.
//! - `GLOBAL`: JSON, this part's last global commit: its number, the
//!   part's local epoch at it, and the updates committed in all. Replaced
//!   atomically (write, fsync, rename, fsync the directory).

use crate::error::{DistError, Result};
use crate::owner::Owner;
use outcore_dynamic::durable;
use outcore_dynamic::store::StoreOptions;
use std::path::{Path, PathBuf};

pub const FORMAT: &str = "outcore-dist-dynamic";
pub const VERSION: u32 = 1;
/// Largest `DIST` or `GLOBAL` read.
const MAX_BYTES: u64 = 64 << 10;

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct DistManifest {
    pub format: String,
    pub version: u32,
    /// Shared by every part of one store (a part of another is refused).
    pub id: u64,
    pub ranks: usize,
    pub rank: usize,
    pub owner: Owner,
    pub options: StoreOptions,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GlobalRecord {
    pub id: u64,
    /// The global commit (0: the empty store just created).
    pub commit: u64,
    /// This part's dynamic-store epoch at that commit.
    pub epoch: u32,
    /// Updates applied across ranks up to that commit.
    pub updates: u64,
}

/// A rank's part directory: `pattern` with `{rank}` replaced.
pub fn part_dir(pattern: &str, rank: usize, ranks: usize) -> Result<PathBuf> {
    if !pattern.contains("{rank}") && ranks > 1 {
        return Err(DistError::Usage(format!(
            "{pattern}: a store of {ranks} ranks needs a path with {{rank}} in it (one directory per rank, e.g. /ssd/graph/part-{{rank}})"
        )));
    }
    Ok(PathBuf::from(pattern.replace("{rank}", &rank.to_string())))
}

/// Create the parent directory of a part about to be written (as
/// `DynamicStore::create` makes a store's directory): parts of one store
/// may sit in a directory of their own.
pub fn create_parent(part: &Path) -> Result<()> {
    if let Some(parent) = part.parent().filter(|p| !p.as_os_str().is_empty() && !p.exists()) {
        std::fs::create_dir_all(parent).map_err(|e| outcore_dynamic::error::DynError::io(parent, e))?;
    }
    Ok(())
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path, what: &str) -> Result<T> {
    let meta = std::fs::symlink_metadata(path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            DistError::Usage(format!(
                "{}: missing: {} is not a part of a distributed dynamic store",
                path.display(),
                path.parent().unwrap_or(path).display()
            ))
        } else {
            DistError::Store(outcore_dynamic::error::DynError::io(path, e))
        }
    })?;
    if !meta.is_file() || meta.len() > MAX_BYTES {
        return Err(DistError::Corrupt(format!("{}: not a {what} file (a link, or larger than one)", path.display())));
    }
    let text = std::fs::read_to_string(path).map_err(|e| outcore_dynamic::error::DynError::io(path, e))?;
    serde_json::from_str(&text).map_err(|e| DistError::Corrupt(format!("{}: not a {what} file ({e})", path.display())))
}

fn write_json<T: serde::Serialize>(dir: &Path, name: &str, value: &T) -> Result<()> {
    let tmp = dir.join(format!("{name}.tmp"));
    let text = serde_json::to_string_pretty(value).expect("serializes");
    durable::write_synced(&tmp, text.as_bytes())?;
    durable::rename(&tmp, &dir.join(name))?;
    durable::sync_dir(dir)?;
    Ok(())
}

impl DistManifest {
    pub fn read(dir: &Path) -> Result<DistManifest> {
        let path = dir.join("DIST");
        let m: DistManifest = read_json(&path, "distributed store manifest")?;
        if m.format != FORMAT || m.version != VERSION {
            return Err(DistError::Corrupt(format!(
                "{}: format {} version {}, this outcore reads {FORMAT} version {VERSION}",
                path.display(),
                m.format,
                m.version
            )));
        }
        if m.ranks == 0 || m.rank >= m.ranks {
            return Err(DistError::Corrupt(format!("{}: rank {} of {} ranks", path.display(), m.rank, m.ranks)));
        }
        Ok(m)
    }
    pub fn write(&self, dir: &Path) -> Result<()> {
        write_json(dir, "DIST", self)
    }
}

impl GlobalRecord {
    pub fn read(dir: &Path) -> Result<GlobalRecord> {
        read_json(&dir.join("GLOBAL"), "global commit record")
    }
    pub fn write(&self, dir: &Path) -> Result<()> {
        write_json(dir, "GLOBAL", self)
    }
}
