//! `partition` cuts a static store into per-rank stores whose union is
//! the source: every arc (both arcs of an undirected edge) once, on the
//! owner of its source, with weights; every vertex listed by its owner.
//! The oracle is the source store's own export.

use outcore_dist::owner::Owner;
use outcore_dist::partition::{check_parts, partition};
use outcore_ingest::export::{export, ExportFormat, ExportOptions};
use outcore_ingest::import::{import_file, ImportOptions};
use std::collections::BTreeMap;
use std::path::Path;

fn arcs(store: &Path, scratch: &Path, weighted: bool, both: bool) -> BTreeMap<(u64, u64, String), u32> {
    static EXPORTS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let el = scratch.join(format!("export-{}.el", EXPORTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)));
    let format = if weighted { ExportFormat::Wel } else { ExportFormat::El };
    export(store, &el, &ExportOptions { format, ..Default::default() }, &outcore_io::NoProgress).unwrap();
    let mut out = BTreeMap::new();
    for line in std::fs::read_to_string(&el).unwrap().lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let (u, v): (u64, u64) = (f[0].parse().unwrap(), f[1].parse().unwrap());
        let w = f.get(2).map_or(String::new(), |w| w.to_string());
        *out.entry((u, v, w.clone())).or_insert(0) += 1;
        if both && u != v {
            *out.entry((v, u, w)).or_insert(0) += 1;
        }
    }
    out
}

fn vertices(store: &Path) -> Vec<u64> {
    let s = outcore_store::Store::open(store).unwrap();
    let mut ids = s.ids().unwrap().stream().unwrap();
    let mut out = Vec::new();
    while let Some(id) = ids.next_id().unwrap() {
        out.push(id);
    }
    out.sort_unstable();
    out
}

#[test]
fn the_parts_union_is_the_source_store() {
    let shared = outcore_io::shared_dir(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    // directed, undirected, and weighted with isolated vertices
    let weighted_input = dir.path().join("w.wel");
    std::fs::write(&weighted_input, "1 2 0.5\n2 3 1.5\n3 1 2.5\n7 7 1\n10 11 3\n11 10 4\n").unwrap();
    let cases = [
        (shared.join("data/real/CA-GrQc.txt"), Some(true), false),
        (shared.join("data/real/CA-GrQc.txt"), Some(false), false),
        (weighted_input, Some(true), true),
    ];
    for (case, (input, directed, weighted)) in cases.into_iter().enumerate() {
        let source = dir.path().join(format!("source-{case}"));
        let opts = ImportOptions { directed, weighted, num_vertices: weighted.then_some(20), ..Default::default() };
        import_file(&input, &source, &opts, &outcore_io::NoProgress).unwrap();
        let want = arcs(&source, dir.path(), weighted, directed == Some(false));
        let all = vertices(&source);
        for ranks in [1, 2, 3] {
            let pattern = format!("{}/c{case}-r{ranks}/part-{{rank}}", dir.path().display());
            let r =
                partition(&source, &pattern, ranks, outcore_ingest::hot::DEFAULT_COLUMNS, 1 << 30, false, &outcore_io::NoProgress).unwrap();
            assert_eq!(r.manifest.arcs, want.values().map(|&c| c as u64).sum::<u64>());
            let m = check_parts(&pattern, ranks).unwrap();
            assert_eq!(m, r.manifest);
            let mut got = BTreeMap::new();
            let mut listed = Vec::new();
            for (rank, part) in r.parts.iter().enumerate() {
                // the parts of an undirected graph store hot lists (and the
                // partition's checksum of the part covers them)
                let hot = outcore_store::Store::open(part).unwrap().manifest().hot.clone();
                assert_eq!(
                    hot.map(|h| (h.source, h.columns.len())),
                    (directed == Some(false)).then(|| ("out".to_string(), 16)),
                    "part {rank}"
                );
                for ((u, v, w), c) in arcs(part, dir.path(), weighted, false) {
                    assert_eq!(Owner::Splitmix2.rank_of(u, ranks), rank, "arc {u} {v} in part {rank}");
                    *got.entry((u, v, w)).or_insert(0) += c;
                }
                listed.extend(vertices(part).into_iter().filter(|&v| Owner::Splitmix2.rank_of(v, ranks) == rank));
            }
            assert!(got == want, "case {case}, {ranks} parts: the union differs from the source");
            listed.sort_unstable();
            assert_eq!(listed, all, "every vertex listed once, by its owner");
        }
    }
}

#[test]
fn parts_of_another_partition_or_count_are_refused() {
    let shared = outcore_io::shared_dir(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("s");
    import_file(&shared.join("data/real/CA-GrQc.txt"), &source, &ImportOptions::default(), &outcore_io::NoProgress).unwrap();
    let (a, b) = (format!("{}/a/part-{{rank}}", dir.path().display()), format!("{}/b/part-{{rank}}", dir.path().display()));
    partition(&source, &a, 2, 0, 1 << 30, false, &outcore_io::NoProgress).unwrap();
    partition(&source, &b, 3, 0, 1 << 30, false, &outcore_io::NoProgress).unwrap();
    let err = check_parts(&a, 3).unwrap_err().to_string();
    assert!(err.contains("the store has 2 parts, this job 3 ranks"), "{err}");
    let err = partition(&source, &a, 2, 0, 1 << 30, false, &outcore_io::NoProgress).unwrap_err().to_string();
    assert!(err.contains("part-0"), "an existing part is not overwritten: {err}");
    // part 1 of another partition of the same graph
    std::fs::remove_dir_all(dir.path().join("a/part-1")).unwrap();
    let err = check_parts(&a, 2).unwrap_err().to_string();
    assert!(err.contains("part-1") && err.contains("not a part"), "{err}");
    std::process::Command::new("cp").arg("-r").arg(dir.path().join("b/part-1")).arg(dir.path().join("a/part-1")).status().unwrap();
    let err = check_parts(&a, 2).unwrap_err().to_string();
    assert!(err.contains("the store has 3 parts"), "{err}");
    // a part whose store was replaced
    partition(&source, &format!("{}/c/part-{{rank}}", dir.path().display()), 2, 0, 1 << 30, false, &outcore_io::NoProgress).unwrap();
    std::fs::copy(dir.path().join("c/part-1/partition.json"), dir.path().join("a/part-1/partition.json")).unwrap();
    std::fs::copy(dir.path().join("b/part-1/manifest.json"), dir.path().join("a/part-1/manifest.json")).unwrap();
    let err = check_parts(&a, 2).unwrap_err().to_string();
    assert!(err.contains("checksum mismatch"), "{err}");
}
