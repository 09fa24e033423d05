//! Import of every input format gives exactly the adjacency that an
//! independent reader builds from the same file.

mod common;

use common::*;
use outcore_ingest::{import_file, ImportOptions, NoProgress};
use std::io::Write;
use std::path::Path;

fn import(input: &Path, opts: &ImportOptions) -> (tempfile::TempDir, Expected) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("store");
    import_file(input, &out, opts, &NoProgress).unwrap_or_else(|e| panic!("{}: {e}", input.display()));
    let g = dump_store(&out);
    (dir, g)
}

fn opts(directed: Option<bool>, weighted: bool) -> ImportOptions {
    ImportOptions { directed, weighted, memory: 64 << 20, ..Default::default() }
}

#[test]
fn snap_and_csv_edge_lists() {
    let real = shared().join("real");
    // (file, directed, weighted)
    let cases = [
        ("email-Eu-core.csv", true, false),
        ("netscience.csv", false, true),
        ("as20graph.txt", false, false),
        ("facebook-ego-1912.edges", false, false),
        ("wiki-Vote.txt", true, false),
        ("MIT8.edgelist", false, false),
        ("p2p-Gnutella05.txt", true, false),
        ("p2p-Gnutella06.txt", true, false),
        ("CA-GrQc.txt", false, false),
        ("CA-HepTh.txt", false, false),
        ("CA-CondMat.txt", false, false),
    ];
    for (file, directed, weighted) in cases {
        let path = real.join(file);
        let (_d, got) = import(&path, &opts(Some(directed), weighted));
        let want = read_edge_list(&path, directed, weighted);
        assert_eq!(got.vertices, want.vertices, "{file}: vertex set");
        assert!(got.arcs == want.arcs, "{file}: adjacency differs ({} vs {} arcs)", got.arcs.len(), want.arcs.len());
    }
}

#[test]
fn metis_graphs_keep_isolated_vertices() {
    for file in ["power.graph", "PGPgiantcompo.graph", "hep-th.graph", "polblogs.graph", "astro-ph.graph"] {
        let path = shared().join("real").join(file);
        let (_d, got) = import(&path, &opts(None, false));
        let want = read_metis(&path);
        assert_eq!(got.vertices, want.vertices, "{file}");
        assert!(got.arcs == want.arcs, "{file}: adjacency differs");
    }
    let (d, _) = import(&shared().join("real/hep-th.graph"), &opts(None, false));
    let m = outcore_store::Store::open(&d.path().join("store")).unwrap().manifest().clone();
    assert_eq!((m.vertices, m.edges, m.id_map.as_str(), m.id_base), (8361, 15751, "identity", 1));
}

#[test]
fn graphalytics_graphs() {
    let evlp = shared().join("graphalytics/evlp");
    for name in [
        "example-directed",
        "example-undirected",
        "test-bfs-directed",
        "test-bfs-undirected",
        "test-wcc-directed",
        "test-wcc-undirected",
        "test-lcc-directed",
        "test-lcc-undirected",
    ] {
        let stem = evlp.join(name);
        let weighted = name.starts_with("example");
        for entry in ["properties", "e", "v"] {
            let (_d, got) = import(&stem.with_extension(entry), &opts(None, false));
            let (want, _) = read_graphalytics(&stem, weighted);
            assert_eq!(got.vertices, want.vertices, "{name}.{entry}");
            assert!(got.arcs == want.arcs, "{name}.{entry}: adjacency differs: {:?} vs {:?}", got.arcs, want.arcs);
        }
    }
}

/// wiki-Vote rewritten in each remaining format must import to the same graph.
#[test]
fn converted_formats_el_wel_mtx_binary_gzip_zstd() {
    let src = shared().join("real/wiki-Vote.txt");
    let base = read_edge_list(&src, true, false);
    let edges: Vec<(u64, u64)> = base.arcs.keys().copied().collect();
    let weight = |u: u64, v: u64| ((u * 7 + v) % 13) as f32 * 0.25;
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n);

    let mut el = String::new();
    let mut wel = String::new();
    let mut b32 = Vec::new();
    let mut b64 = Vec::new();
    for &(u, v) in &edges {
        el += &format!("{u} {v}\n");
        wel += &format!("{u} {v} {}\n", weight(u, v));
        b32.extend_from_slice(&(u as u32).to_le_bytes());
        b32.extend_from_slice(&(v as u32).to_le_bytes());
        b64.extend_from_slice(&u.to_le_bytes());
        b64.extend_from_slice(&v.to_le_bytes());
    }
    let n = *base.vertices.last().unwrap();
    let mtx = format!("%%MatrixMarket matrix coordinate pattern general\n% comment\n{n} {n} {}\n{el}", edges.len());
    let mtx_real = format!("%%MatrixMarket matrix coordinate real general\n{n} {n} {}\n{wel}", edges.len());
    std::fs::write(p("g.el"), &el).unwrap();
    std::fs::write(p("g.wel"), &wel).unwrap();
    std::fs::write(p("g.bin32"), &b32).unwrap();
    std::fs::write(p("g.bin64"), &b64).unwrap();
    std::fs::write(p("g.mtx"), &mtx).unwrap();
    std::fs::write(p("w.mtx"), &mtx_real).unwrap();
    let mut gz = flate2::write::GzEncoder::new(std::fs::File::create(p("g.el.gz")).unwrap(), flate2::Compression::fast());
    gz.write_all(el.as_bytes()).unwrap();
    gz.finish().unwrap();
    std::fs::write(p("g.bin64.zst"), zstd::encode_all(&b64[..], 3).unwrap()).unwrap();

    let mut weighted_want = Expected::new();
    for &(u, v) in &edges {
        weighted_want.add(u, v, weight(u, v), true);
    }
    let mut mtx_want = Expected::new();
    mtx_want.vertices.extend(1..=n);
    mtx_want.arcs = base.arcs.clone();

    for (file, weighted, want) in [
        ("g.el", false, &base),
        ("g.el.gz", false, &base),
        ("g.bin32", false, &base),
        ("g.bin64", false, &base),
        ("g.bin64.zst", false, &base),
        ("g.wel", true, &weighted_want),
        ("g.mtx", false, &mtx_want),
    ] {
        let (_d, got) = import(&p(file), &opts(None, weighted));
        assert_eq!(&got.vertices, &want.vertices, "{file}");
        assert!(got.arcs == want.arcs, "{file}: adjacency differs");
    }
    let (_d, got) = import(&p("w.mtx"), &opts(None, true));
    assert!(got.arcs == weighted_want.arcs, "w.mtx weights differ");
}

#[test]
fn symmetric_matrix_market_is_undirected() {
    let src = shared().join("real/CA-GrQc.txt");
    let want = read_edge_list(&src, false, false);
    let lower: Vec<(u64, u64)> = want.arcs.keys().copied().filter(|(u, v)| u >= v).collect();
    let n = *want.vertices.last().unwrap();
    let mut text = format!("%%MatrixMarket matrix coordinate pattern symmetric\n{n} {n} {}\n", lower.len());
    for (u, v) in &lower {
        text += &format!("{u} {v}\n");
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.mtx"), text).unwrap();
    let (_d, got) = import(&dir.path().join("s.mtx"), &opts(None, false));
    assert!(got.arcs == want.arcs);
    assert_eq!(got.vertices, (1..=n).collect());
}

#[test]
fn self_loop_and_duplicate_policies() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("g.wel");
    std::fs::write(&f, "1 2 5\n1 2 3\n2 2 1\n2 1 4\n").unwrap();
    let (_d, kept) = import(&f, &ImportOptions { weighted: true, ..opts(None, true) });
    assert_eq!(kept.arcs.len(), 3);
    assert_eq!(kept.arcs[&(1, 2)], 3.0, "duplicates keep the smallest weight");
    let (_d, dropped) = import(&f, &ImportOptions { self_loops: outcore_ingest::SelfLoops::Drop, ..opts(None, true) });
    assert!(!dropped.arcs.contains_key(&(2, 2)));
    let dir2 = tempfile::tempdir().unwrap();
    let out = dir2.path().join("s");
    let r = import_file(&f, &out, &ImportOptions { dedup: false, ..opts(None, true) }, &NoProgress).unwrap();
    assert_eq!(r.arcs, 4, "parallel edges kept");
    let (_d, und) = import(&f, &opts(Some(false), true));
    assert_eq!(und.arcs[&(2, 1)], 3.0, "symmetrized: min over both directions");
}
