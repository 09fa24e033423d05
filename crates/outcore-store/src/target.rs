//! The one output policy of every command that writes (import, generate,
//! recode, export, snapshots, algorithm results, the demo's kept store):
//! what may stand at the output path, and what `--force` may replace.
//!
//! * Nothing there: write.
//! * An outcore store (its `manifest.json` says `"format": "outcore-store"`)
//!   when writing a store, or a regular file when writing a file: replace
//!   it only with `force`, and only once the new output is complete.
//! * An empty directory when writing a store: replace it (nothing is lost).
//! * Anything else (a directory that is not a store, a file where a store
//!   goes, a directory where a file goes, a link, a device): refuse, even
//!   with `force`; outcore deletes only what it made.
//! * A path that is, contains, or lies inside one of the command's inputs
//!   (compared canonically): refuse, even with `force`.
//!
//! Every refusal names what is there and what to do, and changes nothing.

use crate::{StoreError, FORMAT_NAME};
use std::path::{Path, PathBuf};

/// What a command writes at its output path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputKind {
    /// A store directory.
    Store,
    /// A regular file (an edge list, a result file).
    File,
}

/// What stands at an output path now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Existing {
    Nothing,
    /// An outcore store, or a regular file for a file output: `force` replaces it.
    Replaceable,
    /// An empty directory where a store goes: replaced without `force`.
    EmptyDirectory,
}

/// Whether `dir` holds an outcore store (of any format version).
pub fn is_store(dir: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(dir.join("manifest.json")) else { return false };
    serde_json::from_str::<serde_json::Value>(&text).ok().and_then(|v| v.get("format")?.as_str().map(|f| f == FORMAT_NAME)).unwrap_or(false)
}

/// May a command write `kind` at `path`? `force` allows replacing an
/// outcore store (or a regular file); `inputs` are the paths the command
/// reads, which the output must not be, contain, or lie inside.
pub fn check_output(path: &Path, kind: OutputKind, force: bool, inputs: &[&Path]) -> Result<Existing, StoreError> {
    let refuse = |reason: String| Err(StoreError::Refused { path: path.to_path_buf(), reason });
    if path.file_name().is_none() {
        return refuse("is not a path a command can write to; name a file or directory".into());
    }
    let target = canonical_target(path)?;
    for input in inputs {
        let Ok(input) = std::fs::canonicalize(input) else { continue };
        if target == input {
            return refuse("is the input of this command; write the output somewhere else".into());
        }
        if input.starts_with(&target) {
            return refuse(format!("contains the input {}; write the output somewhere else", input.display()));
        }
        if target.starts_with(&input) {
            return refuse(format!("is inside the input {}; write the output somewhere else", input.display()));
        }
    }
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Existing::Nothing),
        Err(e) => return Err(outcore_io::IoError::new(path, "inspect the output path", e).into()),
    };
    let file_type = meta.file_type();
    if file_type.is_symlink() {
        return refuse("is a symbolic link; outcore does not replace links: name the real path or another output".into());
    }
    match kind {
        OutputKind::Store if file_type.is_dir() => {
            if is_store(path) {
                return if force { Ok(Existing::Replaceable) } else { Err(StoreError::Exists { path: path.to_path_buf() }) };
            }
            let entries = std::fs::read_dir(path).map_err(|e| outcore_io::IoError::new(path, "list the directory", e))?.count();
            if entries == 0 {
                return Ok(Existing::EmptyDirectory);
            }
            refuse(format!(
                "is a directory of {entries} entr{} that is not an outcore store; outcore replaces only stores it made, even with --force: choose another output",
                if entries == 1 { "y" } else { "ies" }
            ))
        }
        OutputKind::Store if file_type.is_file() => {
            refuse("is a file, not an outcore store; outcore replaces only stores it made, even with --force: choose another output".into())
        }
        OutputKind::File if file_type.is_file() => {
            if force {
                Ok(Existing::Replaceable)
            } else {
                Err(StoreError::Exists { path: path.to_path_buf() })
            }
        }
        OutputKind::File if file_type.is_dir() => {
            refuse(format!("is a directory{}; name a file to write", if is_store(path) { " (an outcore store)" } else { "" }))
        }
        _ => refuse(
            "is not a regular file or directory (a device, socket or pipe); name a file to write, or use - for standard output".into(),
        ),
    }
}

/// `path` made absolute without following its last component: the
/// canonical parent joined with the name. The parent must exist.
fn canonical_target(path: &Path) -> Result<PathBuf, StoreError> {
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let parent = std::fs::canonicalize(parent).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            StoreError::Refused {
                path: path.to_path_buf(),
                reason: format!("cannot be written: the directory {} does not exist", parent.display()),
            }
        } else {
            outcore_io::IoError::new(parent, "resolve the output's directory", e).into()
        }
    })?;
    Ok(parent.join(path.file_name().expect("checked by the caller")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store_at(dir: &Path) {
        std::fs::create_dir(dir).unwrap();
        std::fs::write(dir.join("manifest.json"), format!("{{\"format\": \"{FORMAT_NAME}\", \"version\": 9}}")).unwrap();
    }

    fn refusal(r: Result<Existing, StoreError>) -> String {
        match r {
            Err(e @ StoreError::Refused { .. }) => e.to_string(),
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn stores_are_replaced_only_with_force() {
        let d = tempfile::tempdir().unwrap();
        let s = d.path().join("s");
        assert_eq!(check_output(&s, OutputKind::Store, false, &[]).unwrap(), Existing::Nothing);
        store_at(&s);
        assert!(matches!(check_output(&s, OutputKind::Store, false, &[]), Err(StoreError::Exists { .. })));
        assert_eq!(check_output(&s, OutputKind::Store, true, &[]).unwrap(), Existing::Replaceable);
        assert!(refusal(check_output(&s, OutputKind::File, true, &[])).contains("is a directory (an outcore store)"));
    }

    #[test]
    fn directories_that_are_not_stores_are_never_replaced() {
        let d = tempfile::tempdir().unwrap();
        let notes = d.path().join("notes");
        std::fs::create_dir(&notes).unwrap();
        assert_eq!(check_output(&notes, OutputKind::Store, false, &[]).unwrap(), Existing::EmptyDirectory);
        std::fs::write(notes.join("a.txt"), "x").unwrap();
        let m = refusal(check_output(&notes, OutputKind::Store, true, &[]));
        assert!(m.contains("a directory of 1 entry that is not an outcore store") && m.contains("even with --force"), "{m}");
        // a manifest of another program does not make a store
        std::fs::write(notes.join("manifest.json"), "{\"format\": \"other\"}").unwrap();
        refusal(check_output(&notes, OutputKind::Store, true, &[]));
    }

    #[test]
    fn files_are_replaced_only_with_force_and_never_by_a_store() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("f.el");
        std::fs::write(&f, "0 1\n").unwrap();
        assert!(matches!(check_output(&f, OutputKind::File, false, &[]), Err(StoreError::Exists { .. })));
        assert_eq!(check_output(&f, OutputKind::File, true, &[]).unwrap(), Existing::Replaceable);
        assert!(refusal(check_output(&f, OutputKind::Store, true, &[])).contains("is a file, not an outcore store"));
        let link = d.path().join("link");
        std::os::unix::fs::symlink(&f, &link).unwrap();
        assert!(refusal(check_output(&link, OutputKind::File, true, &[])).contains("symbolic link"));
    }

    #[test]
    fn inputs_are_never_outputs() {
        let d = tempfile::tempdir().unwrap();
        let input = d.path().join("self.txt");
        std::fs::write(&input, "0 1\n").unwrap();
        // the same file by another spelling
        let other = d.path().join(".").join("self.txt");
        assert!(refusal(check_output(&other, OutputKind::Store, true, &[&input])).contains("is the input"));
        let s = d.path().join("s");
        store_at(&s);
        let inside = s.join("x.el");
        assert!(refusal(check_output(&inside, OutputKind::File, true, &[&s])).contains("is inside the input"));
        assert!(refusal(check_output(d.path(), OutputKind::Store, true, &[&s])).contains("contains the input"));
        let missing = d.path().join("no/such/dir/out");
        assert!(refusal(check_output(&missing, OutputKind::Store, false, &[])).contains("does not exist"));
    }
}
