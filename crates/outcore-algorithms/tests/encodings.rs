//! Every encoding and vertex order stores the same graph and gives the
//! same BFS, SSSP, WCC and PageRank, in original ids, as raw32 in input
//! order: on cnr-2000, real graphs and a weighted Graphalytics graph, and
//! through every engine (traverse, stream, in-memory); the raw32 results
//! are checked against the reference implementations. A corrupt block is
//! reported with its range, never decoded.

mod common;

use common::*;
use outcore_algorithms::order::{self, Order};
use outcore_algorithms::pagerank::PageRank;
use outcore_algorithms::wcc::Wcc;
use outcore_algorithms::{bfs, pagerank, sssp, wcc, Engine, MemGraph, RunOptions};
use outcore_engines::{StreamOptions, Traverse, TraverseOptions};
use outcore_ingest::recode::{recode, write_permutation, RecodeOptions};
use outcore_ingest::{import_file, tiles::add_tiles, ImportOptions, NoProgress};
use outcore_io::Budget;
use outcore_store::{Encoding, FileRecord, Manifest, Store};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

const ENCODINGS: [Encoding; 3] = [Encoding::Raw32, Encoding::Ceesor, Encoding::Gapref];

fn import_raw(input: &Path, directed: Option<bool>, weighted: bool, dir: &Path) -> PathBuf {
    let raw = dir.join("raw");
    let opts = ImportOptions { directed, weighted, in_layout: true, ..Default::default() };
    import_file(input, &raw, &opts, &NoProgress).unwrap();
    raw
}

/// `raw` rewritten in `order` and `encoding`, with small tiles.
fn variant(raw: &Path, dir: &Path, order: Order, encoding: Encoding) -> Store {
    let out = dir.join(format!("{}-{}", order.name(), encoding.name()));
    let opts = RecodeOptions { encoding: Some(encoding), order: order.name().into(), memory: 256 << 20, force: true, layouts: None };
    if order == Order::None {
        recode(raw, &out, None, &opts, &outcore_io::NoProgress).unwrap();
    } else {
        let p = order::compute(&Store::open(raw).unwrap(), order, &Budget::unlimited()).unwrap();
        assert!(order::is_permutation(&p));
        let perm = dir.join("perm");
        write_permutation(&perm, &p).unwrap();
        recode(raw, &out, Some(&perm), &opts, &outcore_io::NoProgress).unwrap();
    }
    add_tiles(&out, 3, 9, 64 << 20, &outcore_io::NoProgress).unwrap();
    Store::open(&out).unwrap()
}

/// What must not change, keyed by original ids.
#[derive(Debug, PartialEq)]
struct Results {
    arcs: BTreeSet<(u64, u64, u32)>,
    in_arcs: BTreeSet<(u64, u64, u32)>,
    bfs_levels: BTreeMap<u64, u32>,
    sssp: BTreeMap<u64, u64>,
    /// Components as sets of original ids.
    components: BTreeSet<Vec<u64>>,
    /// Afforest's (sampling by a scan of any neighbours: CEESOR's
    /// nearest), empty where it cannot run (a directed store without `in`).
    afforest_components: BTreeSet<Vec<u64>>,
    label_components: BTreeSet<Vec<u64>>,
    pagerank: BTreeMap<u64, f64>,
    pagerank_memory: BTreeMap<u64, f64>,
}

fn components(ids: &impl Fn(u64) -> u64, labels: impl Iterator<Item = u64>) -> BTreeSet<Vec<u64>> {
    let mut groups: HashMap<u64, Vec<u64>> = HashMap::new();
    for (v, l) in labels.enumerate() {
        groups.entry(l).or_default().push(ids(v as u64));
    }
    groups
        .into_values()
        .map(|mut g| {
            g.sort();
            g
        })
        .collect()
}

fn results(st: &Store, root_original: u64) -> Results {
    let budget = Budget::unlimited();
    let map = st.id_map(&budget).unwrap();
    let ids = |v: u64| map.original(v);
    let n = st.vertices();
    let edges = |layout: &str| {
        let mut set = BTreeSet::new();
        if !st.manifest().layouts.contains_key(layout) {
            return set;
        }
        let mut scan = st.layout(layout).unwrap().scan().unwrap();
        while let Some((u, targets, w)) = scan.next_list().unwrap() {
            for (k, &t) in targets.iter().enumerate() {
                set.insert((ids(u), ids(t), w.get(k).map_or(0, |x| x.to_bits())));
            }
        }
        set
    };
    for layout in ["out", "in"] {
        if st.manifest().layouts.contains_key(layout) {
            check_lookup(st, layout);
            check_parts(st, layout);
        }
    }
    let root = map.dense(root_original).unwrap();
    let mut g = Traverse::open(st, "out", &budget, &TraverseOptions { cache_bytes: Some(1 << 20), ..Default::default() }, 0).unwrap();
    let tree = bfs::bfs(&mut g, root, &budget).unwrap();
    let bfs_levels = (0..n).map(|v| (ids(v), tree.level[v as usize])).collect();
    let sssp = if st.manifest().weighted {
        let d = sssp::sssp(&mut g, root, &budget).unwrap();
        (0..n).map(|v| (ids(v), d.dist[v as usize].to_bits())).collect()
    } else {
        BTreeMap::new()
    };
    let uf = wcc::wcc(st, &budget).unwrap();
    let afforest = match wcc::afforest::unsupported(st) {
        None => components(&ids, wcc::afforest::wcc_charged(st, &budget).unwrap().0.into_iter().map(|x| x as u64)),
        Some(_) => BTreeSet::new(),
    };
    let stream = RunOptions {
        stream: StreamOptions { segment_bytes: Some(16 << 10), pool_bytes: Some(32 << 10), ..Default::default() },
        ..on(Engine::Stream)
    };
    let memory = on(Engine::Memory);
    let lw = run(&Wcc, st, &Default::default(), &stream).outcome.columns[0].to_u64().unwrap();
    let pr = |opts: &RunOptions| -> BTreeMap<u64, f64> {
        let r = run(&PageRank, st, &pagerank::Params::fixed(0.85, 10), opts);
        r.outcome.columns[0].to_f64().unwrap().into_iter().enumerate().map(|(v, x)| (ids(v as u64), x)).collect()
    };
    Results {
        arcs: edges("out"),
        in_arcs: edges("in"),
        bfs_levels,
        sssp,
        components: components(&ids, uf.into_iter().map(|x| x as u64)),
        afforest_components: afforest,
        label_components: components(&ids, lw.into_iter()),
        pagerank: pr(&stream),
        pagerank_memory: pr(&memory),
    }
}

/// Lookups of scattered ascending vertices (runs, gaps inside and across
/// blocks, the last vertex) return what a sequential scan returns.
fn check_lookup(st: &Store, layout: &str) {
    let l = st.layout(layout).unwrap();
    let mut scan = l.scan().unwrap();
    let mut all = Vec::new();
    while let Some((_, t, w)) = scan.next_list().unwrap() {
        all.push((t.to_vec(), w.to_vec()));
    }
    let n = all.len() as u64;
    for stride in [1u64, 3, 97, 4099] {
        let mut lookup = l.lookup().unwrap();
        let chosen = (0..n).filter(|v| v % stride == 0 || v % 7 == 1 || *v == n - 1);
        for v in chosen {
            lookup.seek(v).unwrap();
            let (u, t, w) = lookup.next_list().unwrap().unwrap();
            assert_eq!(u, v);
            assert_eq!((t, w), (&all[v as usize].0[..], &all[v as usize].1[..]), "{layout} lookup of vertex {v} (stride {stride})");
        }
    }
}

/// Scans of parts of the vertex range ([`Layout::scan_range`]), cut
/// anywhere (inside blocks, at both ends, empty parts), yield between them
/// what one scan of the whole layout yields.
fn check_parts(st: &Store, layout: &str) {
    let l = st.layout(layout).unwrap();
    let mut scan = l.scan().unwrap();
    let mut all = Vec::new();
    while let Some((v, t, w)) = scan.next_list().unwrap() {
        all.push((v, t.to_vec(), w.to_vec()));
    }
    let n = all.len() as u64;
    for parts in [1u64, 2, 3, 7, 64] {
        let mut cuts: Vec<u64> = (0..=parts).map(|p| n * p / parts).collect();
        cuts.insert(1, cuts[1].min(1)); // a part of one list
        cuts.push(n); // an empty part
        let mut got = Vec::new();
        for w in cuts.windows(2) {
            let mut part = l.scan_range(w[0], w[1]).unwrap();
            while let Some((v, t, ws)) = part.next_list().unwrap() {
                got.push((v, t.to_vec(), ws.to_vec()));
            }
        }
        assert_eq!(got.len(), all.len(), "{layout} in {parts} parts: lists");
        for (a, b) in all.iter().zip(&got) {
            assert_eq!(a, b, "{layout} in {parts} parts: vertex {}", a.0);
        }
    }
    assert!(l.scan_range(1, 0).is_err() && l.scan_range(0, n + 1).is_err(), "{layout}: a range outside the vertices is refused");
}

/// Ranks are sums in another order after a reordering: equal to 1e-12.
fn same(a: &Results, b: &Results, what: &str) {
    assert_eq!(a.arcs, b.arcs, "{what}: out edges");
    assert_eq!(a.in_arcs, b.in_arcs, "{what}: in edges");
    assert_eq!(a.bfs_levels, b.bfs_levels, "{what}: BFS");
    assert_eq!(a.sssp, b.sssp, "{what}: SSSP");
    assert_eq!(a.components, b.components, "{what}: WCC (union-find)");
    assert_eq!(a.label_components, b.label_components, "{what}: WCC (label propagation)");
    assert_eq!(a.components, a.label_components, "{what}: WCC engines disagree");
    for r in [a, b] {
        if !r.afforest_components.is_empty() || r.components.is_empty() {
            assert_eq!(r.afforest_components, r.components, "{what}: Afforest against union-find");
        }
    }
    for (pr, other) in [(&a.pagerank, &b.pagerank), (&a.pagerank_memory, &b.pagerank_memory)] {
        assert_eq!(pr.len(), other.len(), "{what}: PageRank values");
        for (v, x) in pr {
            let y = other[v];
            assert!((x - y).abs() <= 1e-12 + 1e-9 * x.abs(), "{what}: PageRank of {v}: {x} vs {y}");
        }
    }
}

/// The raw32 results every variant is compared with are themselves
/// checked against the plain reference implementations, on a graph built
/// from their edge set (so no engine's code judges its own results).
fn anchor(r: &Results, root: u64, what: &str) {
    let ids: Vec<u64> = r.bfs_levels.keys().copied().collect();
    let dense: HashMap<u64, u64> = ids.iter().enumerate().map(|(i, &o)| (o, i as u64)).collect();
    let n = ids.len() as u64;
    let edges: Vec<(u64, u64, f32)> = r.arcs.iter().map(|&(u, v, w)| (dense[&u], dense[&v], f32::from_bits(w))).collect();
    let weighted = !r.sssp.is_empty();
    // the out layout holds both arcs of an undirected edge already
    let g = MemGraph::from_edges(n, &edges, true, weighted);
    let root = dense[&root];
    let levels = bfs::reference::bfs_levels(&g, root);
    for (i, o) in ids.iter().enumerate() {
        let want = if levels[i] == u64::MAX { u32::MAX } else { levels[i] as u32 };
        assert_eq!(r.bfs_levels[o], want, "{what}: BFS level of {o} against the reference");
    }
    if weighted {
        let dist = sssp::reference::sssp(&g, root);
        for (i, o) in ids.iter().enumerate() {
            let got = f64::from_bits(r.sssp[o]);
            assert!(got == dist[i] || (got - dist[i]).abs() <= 1e-9 * dist[i].abs(), "{what}: distance of {o}: {got} vs {}", dist[i]);
        }
    }
    let undirected = MemGraph::from_edges(n, &edges, false, false);
    let want = components(&|v| ids[v as usize], wcc::reference::wcc(&undirected).into_iter());
    assert_eq!(r.components, want, "{what}: WCC against the reference");
    let rank = pagerank::reference::pagerank(&g, 0.85, 10);
    assert_eq!(r.pagerank.len(), ids.len(), "{what}: PageRank values");
    for (i, o) in ids.iter().enumerate() {
        let got = r.pagerank[o];
        assert!((got - rank[i]).abs() <= 1e-12 + 1e-9 * rank[i], "{what}: PageRank of {o}: {got} vs {}", rank[i]);
    }
}

fn check_graph(input: &Path, directed: Option<bool>, weighted: bool, orders: &[Order]) -> usize {
    let dir = tempfile::tempdir().unwrap();
    let raw = import_raw(input, directed, weighted, dir.path());
    let root = {
        let st = Store::open(&raw).unwrap();
        let g = Traverse::open(&st, "out", &Budget::unlimited(), &TraverseOptions::default(), 0).unwrap();
        let v = (0..st.vertices()).max_by_key(|&v| g.degree(v)).unwrap();
        st.id_map(&Budget::unlimited()).unwrap().original(v)
    };
    let reference = results(&variant(&raw, dir.path(), Order::None, Encoding::Raw32), root);
    assert!(!reference.arcs.is_empty());
    anchor(&reference, root, &input.display().to_string());
    let mut checked = 0;
    for &order in orders {
        for encoding in ENCODINGS {
            let st = variant(&raw, dir.path(), order, encoding);
            same(&reference, &results(&st, root), &format!("{} {} {}", input.display(), order.name(), encoding.name()));
            checked += 1;
        }
    }
    checked
}

#[test]
fn real_graphs_are_the_same_in_every_encoding_and_order() {
    let real = shared().join("real");
    let all = [Order::None, Order::Dfs, Order::Degree, Order::Bfs, Order::Rcm];
    let mut checked = 0;
    checked += check_graph(&real.join("wiki-Vote.txt"), Some(true), false, &all);
    checked += check_graph(&real.join("CA-GrQc.txt"), Some(false), false, &all);
    checked += check_graph(&evlp().join("example-directed.properties"), None, true, &all);
    checked += check_graph(&evlp().join("example-undirected.properties"), None, true, &all);
    assert_eq!(checked, 4 * 5 * 3);
}

#[test]
fn cnr_2000_is_the_same_in_every_encoding() {
    let checked = check_graph(&shared().join("cnr-2000/cnr-2000.graph"), Some(true), false, &[Order::None, Order::Dfs]);
    assert_eq!(checked, 6);
}

/// Flip one byte of a compressed adjacency file: scans and traversals
/// report the block and its vertex range instead of decoding it.
#[test]
fn corrupt_blocks_are_reported_not_decoded() {
    let dir = tempfile::tempdir().unwrap();
    let raw = import_raw(&shared().join("real/CA-GrQc.txt"), Some(false), false, dir.path());
    for encoding in [Encoding::Ceesor, Encoding::Gapref] {
        let st = variant(&raw, dir.path(), Order::None, encoding);
        let adj = st.layout("out").unwrap().adjacency_path();
        let mut bytes = std::fs::read(&adj).unwrap();
        let at = bytes.len() / 2;
        bytes[at] ^= 0x10;
        std::fs::write(&adj, &bytes).unwrap();
        // the manifest's checksum of the file catches it first ...
        let st = Store::open(st.dir()).unwrap();
        let mut scan = st.layout("out").unwrap().scan().unwrap();
        let err = scan.next_list().expect_err("the damaged file was read").to_string();
        assert!(err.contains("out.adj: verify: checksum mismatch in block 0"), "{}: {err}", encoding.name());
        // ... and with a manifest that matches the damaged file (a crafted
        // store), the block table's checksums still do
        let mut manifest = Manifest::read(st.dir()).unwrap();
        let name = adj.file_name().unwrap().to_str().unwrap().to_string();
        let block_bytes = manifest.files[&name].block_bytes;
        manifest.files.insert(name, FileRecord::from_hashes(&outcore_io::hash_file_blocks(&adj, block_bytes).unwrap()));
        manifest.write_atomic(st.dir()).unwrap();
        let st = Store::open(st.dir()).unwrap();
        let table = st.layout("out").unwrap().block_table().unwrap().unwrap();
        let block = (0..table.len()).map(|b| table.get(b)).find(|b| b.first_byte <= at as u64 && (at as u64) < b.end_byte).unwrap();
        let want = format!("block {} (vertices {}..{}", block.number, block.first_vertex, block.end_vertex);

        let mut scan = st.layout("out").unwrap().scan().unwrap();
        let err = loop {
            match scan.next_list() {
                Ok(Some((v, _, _))) => assert!(v < block.first_vertex, "{}: decoded vertex {v} of the corrupt block", encoding.name()),
                Ok(None) => panic!("{}: the corrupt block was decoded", encoding.name()),
                Err(e) => break e.to_string(),
            }
        };
        assert!(err.contains(&want) && err.contains("checksum mismatch"), "{}: {err}", encoding.name());

        let budget = Budget::unlimited();
        let mut g = Traverse::open(&st, "out", &budget, &TraverseOptions::default(), 0).unwrap();
        let mut out = Vec::new();
        let err = g.neighbours(block.first_vertex, &mut out).unwrap_err().to_string();
        assert!(err.contains(&want) || err.contains("checksum mismatch"), "{}: {err}", encoding.name());
        assert!(out.is_empty());
        // the other blocks still decode
        let other = if block.number == 0 { table.get(1).first_vertex } else { 0 };
        g.neighbours(other, &mut out).unwrap();
    }
}

/// A raw layout keeps the checksum of every 4 KiB page of its adjacency
/// (and weights) beside it: a traversal checks each page it reads against
/// it, so a damaged page fails the reads of that page alone (the file's
/// 1 MiB checksum blocks would fail every read of the block), and reading
/// one list checks no page it did not read.
#[test]
fn raw_layouts_check_random_reads_page_by_page() {
    use std::os::unix::fs::FileExt;
    let dir = tempfile::tempdir().unwrap();
    let weighted = import_raw(&evlp().join("example-directed.properties"), None, true, dir.path());
    let m = Manifest::read(&weighted).unwrap();
    for (name, layout) in &m.layouts {
        assert_eq!(layout.adjacency_pages.as_deref(), Some(&*format!("{name}.adj.pages")));
        assert_eq!(layout.weights_pages.as_deref(), Some(&*format!("{name}.weights.pages")));
    }
    std::fs::create_dir(dir.path().join("w")).unwrap();
    let raw = import_raw(&shared().join("real/wiki-Vote.txt"), Some(true), false, &dir.path().join("w"));
    let st = Store::open(&raw).unwrap();
    let lay = st.layout("out").unwrap();
    assert_eq!(lay.record().weights_pages, None);
    let adj = lay.adjacency_path();
    let data = std::fs::read(&adj).unwrap();
    let pages: Vec<u8> = data.chunks(4096).flat_map(|p| outcore_io::verify::block_hash(p).to_le_bytes()).collect();
    assert_eq!(std::fs::read(raw.join("out.adj.pages")).unwrap(), pages);
    assert!(data.len() > 60 * 4096 && data.len() < 1 << 20, "one checksum block, many pages");

    // each list's bytes, from a scan
    let mut ranges = Vec::new();
    let mut scan = lay.scan().unwrap();
    let mut at = 0u64;
    while let Some((v, targets, _)) = scan.next_list().unwrap() {
        ranges.push((v, at, at + 4 * targets.len() as u64));
        at += 4 * targets.len() as u64;
    }
    drop(scan);
    let inside = |page: u64| ranges.iter().copied().find(|&(_, lo, hi)| lo >= page * 4096 && hi <= (page + 1) * 4096 && hi > lo).unwrap();
    let (damaged, lo, _) = inside(40);
    let (sound, slo, shi) = inside(20);
    // damage page 40 in place
    let f = std::fs::OpenOptions::new().write(true).open(&adj).unwrap();
    f.write_all_at(&[data[lo as usize] ^ 0x20], lo).unwrap();
    drop(f);

    let st = Store::open(&raw).unwrap();
    let budget = Budget::new(64 << 20);
    let opts = TraverseOptions { prefetch: false, ..Default::default() };
    let mut g = Traverse::open(&st, "out", &budget, &opts, 0).unwrap();
    let mut out = Vec::new();
    g.neighbours(sound, &mut out).unwrap();
    assert_eq!(out.len() as u64, (shi - slo) / 4);
    let checks = outcore_io::verify::checks_for_path(&adj).unwrap();
    assert_eq!(checks.block_bytes(), 4096);
    let checked: Vec<u64> = (0..checks.blocks()).filter(|&b| checks.is_verified(b)).collect();
    assert_eq!(checked, [20], "reading one list checks its page only");
    let err = g.neighbours(damaged, &mut out).unwrap_err().to_string();
    assert!(err.contains(&format!("out.adj: verify: checksum mismatch in block 40 (bytes {}..{})", 40 * 4096, 41 * 4096)), "{err}");
    // the page checksums' memory is charged
    assert!(budget.used() >= pages.len() as u64);
    drop(g);
    // the page checksums go with the engine that charged them
    assert_eq!(outcore_io::verify::checks_for_path(&adj).unwrap().block_bytes(), 1 << 20);
    assert_eq!(budget.used(), 0);
    drop(st);

    // a crafted store whose manifest matches the damaged file: `info
    // --verify` names the page checksum that disagrees, and a traversal
    // still refuses the page
    let mut manifest = Manifest::read(&raw).unwrap();
    manifest.files.insert("out.adj".into(), FileRecord::from_hashes(&outcore_io::hash_file_blocks(&adj, 1 << 20).unwrap()));
    manifest.write_atomic(&raw).unwrap();
    let st = Store::open(&raw).unwrap();
    let report: Vec<(String, String)> = st.verify().into_iter().filter_map(|(name, r)| r.err().map(|e| (name, e.to_string()))).collect();
    assert_eq!(report.len(), 1, "{report:?}");
    assert_eq!(report[0].0, "out.adj.pages");
    assert!(report[0].1.contains("page checksum 40 does not match page 40 (bytes 163840..167936)"), "{report:?}");
    let mut g = Traverse::open(&st, "out", &Budget::new(64 << 20), &opts, 0).unwrap();
    assert!(g.neighbours(damaged, &mut out).unwrap_err().to_string().contains("checksum mismatch in block 40"));
    g.neighbours(sound, &mut out).unwrap();
}

/// A compressed layout keeps page checksums beside its adjacency too: a
/// traversal reads a list from the pages that hold it (and, for gapref,
/// the lists it may refer to, all before it), each checked against them,
/// not with its whole codec block. A damaged page fails the lists on it
/// while a list before it in the same codec block still decodes, and
/// reading a list checks no page after it.
#[test]
fn compressed_layouts_check_random_reads_page_by_page() {
    use std::os::unix::fs::FileExt;
    let dir = tempfile::tempdir().unwrap();
    let raw = import_raw(&shared().join("real/CA-GrQc.txt"), Some(false), false, dir.path());
    let reference = Store::open(&raw).unwrap();
    let mut plain = Traverse::open(&reference, "out", &Budget::unlimited(), &TraverseOptions::default(), 0).unwrap();
    for encoding in [Encoding::Ceesor, Encoding::Gapref] {
        let st = variant(&raw, dir.path(), Order::None, encoding);
        let lay = st.layout("out").unwrap();
        assert_eq!(lay.record().adjacency_pages.as_deref(), Some("out.adj.pages"), "{}", encoding.name());
        let adj = lay.adjacency_path();
        let data = std::fs::read(&adj).unwrap();
        let pages: Vec<u8> = data.chunks(4096).flat_map(|p| outcore_io::verify::block_hash(p).to_le_bytes()).collect();
        assert_eq!(std::fs::read(st.dir().join("out.adj.pages")).unwrap(), pages, "{}", encoding.name());
        // each list's bytes, and a codec block with a list that ends (8
        // bytes of look-ahead included) a page before another list of it
        let codec = lay.codec();
        let mut entries = lay.index_entries().unwrap();
        let n = st.vertices();
        let bytes_of: Vec<(u64, u64)> =
            (0..n).map(|v| codec.byte_range(entries.entry(v).unwrap(), entries.entry(v + 1).unwrap())).collect();
        let table = lay.block_table().unwrap().unwrap();
        let (sound, damaged) = (0..table.len())
            .map(|b| table.get(b))
            .find_map(|b| {
                let lists = || (b.first_vertex..b.end_vertex).filter(|&v| bytes_of[v as usize].1 > bytes_of[v as usize].0);
                let sound = lists().find(|&v| bytes_of[v as usize].0 >= b.first_byte)?;
                let page_after = (bytes_of[sound as usize].1 + 8).div_ceil(4096);
                let damaged = lists().find(|&v| bytes_of[v as usize].0 >= page_after * 4096)?;
                Some((sound, damaged))
            })
            .expect("a codec block over more than one page");
        let at = bytes_of[damaged as usize].0;
        let page = at / 4096;
        // damage the page, and write a manifest that matches the damaged
        // file (a crafted store): the page checksums still catch it
        let f = std::fs::OpenOptions::new().write(true).open(&adj).unwrap();
        f.write_all_at(&[data[at as usize] ^ 0x08], at).unwrap();
        drop(f);
        let mut manifest = Manifest::read(st.dir()).unwrap();
        let block_bytes = manifest.files["out.adj"].block_bytes;
        manifest.files.insert("out.adj".into(), FileRecord::from_hashes(&outcore_io::hash_file_blocks(&adj, block_bytes).unwrap()));
        manifest.write_atomic(st.dir()).unwrap();

        let st = Store::open(st.dir()).unwrap();
        let opts = TraverseOptions { prefetch: false, ..Default::default() };
        let mut g = Traverse::open(&st, "out", &Budget::new(64 << 20), &opts, 0).unwrap();
        let (mut got, mut want) = (Vec::new(), Vec::new());
        g.neighbours(sound, &mut got).unwrap();
        plain.neighbours(sound, &mut want).unwrap();
        assert_eq!(got, want, "{}: vertex {sound}", encoding.name());
        let checks = outcore_io::verify::checks_for_path(&adj).unwrap();
        assert_eq!(checks.block_bytes(), 4096);
        let last_read = (bytes_of[sound as usize].1 + 8 - 1) / 4096;
        let checked: Vec<u64> = (0..checks.blocks()).filter(|&b| checks.is_verified(b)).collect();
        assert!(!checked.is_empty() && checked.iter().all(|&b| b <= last_read), "{}: pages {checked:?} checked", encoding.name());
        let err = g.neighbours(damaged, &mut got).unwrap_err().to_string();
        let want = format!("out.adj: verify: checksum mismatch in block {page} (bytes {}..", page * 4096);
        assert!(err.contains(&want), "{}: {err}", encoding.name());
    }
}

/// A store written before manifests recorded each layout's longest list:
/// the longest list is found from the degrees (the same figure), and the
/// store finds it once, not once per plan.
#[test]
fn an_unrecorded_longest_list_is_found_once_from_the_degrees() {
    let dir = tempfile::tempdir().unwrap();
    let raw = import_raw(&shared().join("real/CA-GrQc.txt"), Some(false), false, dir.path());
    for encoding in [Encoding::Raw32, Encoding::Gapref] {
        let st = variant(&raw, dir.path(), Order::None, encoding);
        let recorded = st.layout("out").unwrap().record().longest_list.expect("the writer records it");
        let mut degrees = Vec::new();
        st.layout("out").unwrap().for_each_degree(|_, d| degrees.push(d)).unwrap();
        assert_eq!(recorded, *degrees.iter().max().unwrap(), "{}", encoding.name());
        let mut manifest = Manifest::read(st.dir()).unwrap();
        manifest.layouts.get_mut("out").unwrap().longest_list = None;
        manifest.write_atomic(st.dir()).unwrap();
        let old = Store::open(st.dir()).unwrap();
        assert_eq!(old.layout("out").unwrap().record().longest_list, None);
        assert_eq!(old.layout("out").unwrap().longest_list().unwrap(), recorded, "{}", encoding.name());
        // found once: with the index gone, later layouts of this store still know it
        let index = old.layout("out").unwrap().index_path();
        let kept = std::fs::read(&index).unwrap();
        std::fs::write(&index, b"").unwrap();
        let answer = old.layout("out").unwrap().longest_list();
        std::fs::write(&index, &kept).unwrap();
        assert_eq!(answer.unwrap(), recorded, "{}: the longest list was looked for again", encoding.name());
        assert!(Store::open(st.dir()).unwrap().layout("out").unwrap().longest_list().is_ok());
    }
}
