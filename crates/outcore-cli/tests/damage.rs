//! Damaged stores (issue 14): a flipped bit anywhere in any file of any
//! layout is an error naming the file and the block, from every command and
//! engine that reads the file; a command that does not read it gives the
//! undamaged result. Never a panic, never a different result. And a store
//! whose checksums match but whose contents are impossible (ids out of
//! range, an index going backwards) is an error too, never a panic.

mod common;
use common::outcore;
use std::path::{Path, PathBuf};

fn shared() -> PathBuf {
    outcore_io::shared_dir(env!("CARGO_MANIFEST_DIR")).join("data")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// wiki-Vote with a weight on every edge, as a .wel file.
fn weighted_wiki_vote(dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(shared().join("real/wiki-Vote.txt")).unwrap();
    let mut out = String::new();
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let mut f = line.split_whitespace();
        let (u, v): (u64, u64) = (f.next().unwrap().parse().unwrap(), f.next().unwrap().parse().unwrap());
        out.push_str(&format!("{u} {v} {}\n", (u * 7 + v * 3) % 13 + 1));
    }
    let path = dir.join("wiki-vote.wel");
    std::fs::write(&path, out).unwrap();
    path
}

/// Import `input` (weighted, directed) into `store` with out, in and tiles in `encoding`.
fn import_weighted(input: &Path, store: &Path, encoding: &str) {
    let (code, _, err) = outcore(&[
        "import",
        s(input),
        "-o",
        s(store),
        "--directed",
        "--weighted",
        "--layouts",
        "out,in,tiles",
        "--encoding",
        encoding,
        "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
}

/// Every command and engine that reads a store, as argument lists ending
/// before `-o FILE`.
fn runs(store: &str) -> Vec<Vec<String>> {
    let mut runs = Vec::new();
    let root = "30";
    for engine in ["traverse", "memory", "stream", "sortreduce"] {
        runs.push(vec!["bfs", store, "--root", root, "--engine", engine]);
    }
    for engine in ["traverse", "sortreduce"] {
        runs.push(vec!["sssp", store, "--root", root, "--engine", engine]);
    }
    for engine in ["traverse", "memory", "stream", "interval", "sortreduce"] {
        runs.push(vec!["wcc", store, "--engine", engine]);
        runs.push(vec!["pagerank", store, "--engine", engine, "--iterations", "3"]);
    }
    runs.push(vec!["cdlp", store, "--iterations", "2"]);
    runs.push(vec!["spmv", store]);
    runs.push(vec!["bc", store, "--sources", "2", "--seed", "5"]);
    runs.push(vec!["export", store]);
    runs.push(vec!["export", store, "--layout", "in"]);
    runs.into_iter().map(|r| r.into_iter().map(String::from).collect()).collect()
}

/// Run `args -o out`: the exit code, the output file's bytes, stderr.
fn run(args: &[String], out: &Path) -> (i32, Vec<u8>, String) {
    let _ = std::fs::remove_file(out);
    let mut full: Vec<&str> = args.iter().map(|a| a.as_str()).collect();
    full.extend(["-o", s(out), "--quiet"]);
    let (code, _, err) = outcore(&full);
    (code, std::fs::read(out).unwrap_or_default(), err)
}

fn flip(path: &Path, at: u64, mask: u8) {
    use std::os::unix::fs::FileExt;
    let f = std::fs::OpenOptions::new().read(true).write(true).open(path).unwrap();
    let mut b = [0u8];
    f.read_exact_at(&mut b, at).unwrap();
    b[0] ^= mask;
    f.write_all_at(&b, at).unwrap();
}

fn store_files(store: &Path) -> Vec<String> {
    let manifest: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(store.join("manifest.json")).unwrap()).unwrap();
    let mut names: Vec<String> = manifest["files"].as_object().unwrap().keys().cloned().collect();
    names.sort();
    names
}

/// The byte range of a block an error names ("bytes LO..HI").
fn byte_range(err: &str) -> Option<(u64, u64)> {
    let rest = &err[err.find("bytes ")? + "bytes ".len()..];
    let (lo, rest) = rest.split_once("..")?;
    let hi: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    Some((lo.parse().ok()?, hi.parse().ok()?))
}

#[test]
fn a_flipped_bit_in_any_file_of_a_raw32_store_is_an_error_or_the_undamaged_result() {
    flipped_bits("raw32");
}

#[test]
fn a_flipped_bit_in_any_file_of_a_gapref_store_is_an_error_or_the_undamaged_result() {
    flipped_bits("gapref");
}

/// CEESOR's lists are read by their heads too (WCC's sampling), a page at
/// a time where the heads lie.
#[test]
fn a_flipped_bit_in_any_file_of_a_ceesor_store_is_an_error_or_the_undamaged_result() {
    flipped_bits("ceesor");
}

/// Flip a bit at the start, middle and end of every file of a weighted
/// store in `encoding`: every command either refuses, naming the file and
/// the block that holds the byte, or gives the undamaged result.
fn flipped_bits(encoding: &str) {
    let d = tempfile::tempdir().unwrap();
    let input = weighted_wiki_vote(d.path());
    let store = d.path().join(format!("store-{encoding}"));
    import_weighted(&input, &store, encoding);
    let runs = runs(s(&store));
    let out = d.path().join("result");
    let want: Vec<Vec<u8>> = runs
        .iter()
        .map(|r| {
            let (code, bytes, err) = run(r, &out);
            assert_eq!(code, 0, "{r:?} on the undamaged store: {err}");
            assert!(!bytes.is_empty(), "{r:?} wrote nothing");
            bytes
        })
        .collect();
    let files = store_files(&store);
    assert!(files.len() >= 9, "{files:?}");
    for name in &files {
        let path = store.join(name);
        let len = std::fs::metadata(&path).unwrap().len();
        // the first byte, one in the middle, the last byte; a low and a high bit
        for (at, mask) in [(0, 0x01), (len / 2, 0x80), (len - 1, 0x10)] {
            flip(&path, at, mask);
            let mut refused = 0;
            for (r, want) in runs.iter().zip(&want) {
                let (code, bytes, err) = run(r, &out);
                assert!(code == 0 || code == 1, "{r:?} with {name} byte {at} flipped: exit {code}: {err}");
                if code == 0 {
                    assert!(&bytes == want, "{r:?} gave another result with {name} byte {at} flipped");
                } else {
                    refused += 1;
                    // the file's checksum block (its 1 MiB block, or
                    // in a traversal of a raw layout its 4 KiB page),
                    // or (a compressed layout's traversal) the block of
                    // its block table that holds the byte, which it
                    // checks itself
                    let holds = |err: &str| byte_range(err).is_some_and(|(lo, hi)| lo <= at && at < hi);
                    let page = err.contains(&format!("{name}: verify: checksum mismatch in block {} ", at / 4096)) && holds(&err);
                    let file_block = format!("{name}: verify: checksum mismatch in block {}", at / (1 << 20));
                    let codec_block = err.contains(&format!("{name}: block "))
                        && err.contains("checksum mismatch (corrupt block; nothing decoded from it)")
                        && holds(&err);
                    assert!(err.contains(&file_block) || page || codec_block, "{r:?} with {name} byte {at} flipped: {err}");
                    assert!(!out.exists(), "{r:?} left an output behind");
                }
            }
            assert!(refused > 0, "no command read {name}");
            let (code, _, err) = outcore(&["info", s(&store), "--verify"]);
            assert_ne!(code, 0);
            assert!(err.contains(name.as_str()), "{err}");
            flip(&path, at, mask);
        }
    }
    assert_eq!(outcore(&["info", s(&store), "--verify"]).0, 0);
}

/// Rewrite the manifest's record of `name` to match the file as it is now
/// (what a crafted store would carry: checksums that match).
fn rehash(store: &Path, name: &str) {
    let path = store.join("manifest.json");
    let mut manifest: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let bytes = std::fs::read(store.join(name)).unwrap();
    let record = &mut manifest["files"][name];
    let block = record["block_bytes"].as_u64().unwrap() as usize;
    record["bytes"] = bytes.len().into();
    record["xxh3"] = format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&bytes)).into();
    let mut blocks: Vec<serde_json::Value> =
        bytes.chunks(block).map(|c| format!("{:016x}", xxhash_rust::xxh3::xxh3_64(c)).into()).collect();
    if blocks.is_empty() {
        blocks.push(format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&[])).into());
    }
    record["blocks"] = blocks.into();
    std::fs::write(&path, serde_json::to_string_pretty(&manifest).unwrap()).unwrap();
}

fn put_u32(path: &Path, at: u64, value: u32) {
    use std::os::unix::fs::FileExt;
    std::fs::OpenOptions::new().write(true).open(path).unwrap().write_all_at(&value.to_le_bytes(), at).unwrap();
}

/// The entries of an Elias-Fano index file (store format version 2).
fn ef_entries(path: &Path) -> Vec<u64> {
    let bytes = std::fs::read(path).unwrap();
    let count = u64::from_le_bytes(bytes[8..16].try_into().unwrap());
    let flag = u64::from_le_bytes(bytes[32..40].try_into().unwrap());
    let mut cursor = outcore_store::ef::EfCursor::open(path, count, flag).unwrap();
    (0..count).map(|i| cursor.entry(i).unwrap()).collect()
}

/// Rewrite the Elias-Fano index file `path` (a raw32 layout's: no flag
/// bits) with its entries changed by `edit`: a well-formed file whose
/// contents no import writes.
fn rewrite_ef(path: &Path, edit: impl Fn(&mut Vec<u64>)) {
    use outcore_store::ef::{write_ef, EfHeader};
    let mut entries = ef_entries(path);
    edit(&mut entries);
    let last = *entries.last().unwrap();
    let header = EfHeader::plan(entries.len() as u64, *entries.iter().max().unwrap(), 0, last);
    let mut out = outcore_io::SeqWriter::scratch(path, 1 << 16).unwrap();
    write_ef(&mut out, &header, path, |f| entries.iter().try_for_each(|&x| f(x))).unwrap();
    out.finish().unwrap();
}

fn put_u64(path: &Path, at: u64, value: u64) {
    use std::os::unix::fs::FileExt;
    std::fs::OpenOptions::new().write(true).open(path).unwrap().write_all_at(&value.to_le_bytes(), at).unwrap();
}

/// Contents no import writes, behind checksums that match: every command
/// and engine that reads them stops with an error naming the file; none
/// panics, none gives a result.
#[test]
fn impossible_contents_with_matching_checksums_are_errors() {
    let d = tempfile::tempdir().unwrap();
    let input = weighted_wiki_vote(d.path());
    let store = d.path().join("store");
    import_weighted(&input, &store, "raw32");
    let runs = runs(s(&store));
    let out = d.path().join("result");
    let pristine: Vec<(String, Vec<u8>)> =
        store_files(&store).into_iter().map(|n| (n.clone(), std::fs::read(store.join(&n)).unwrap())).collect();
    let vertices = ef_entries(&store.join("out.ef")).len() as u64 - 1;
    let edges = std::fs::metadata(store.join("out.adj")).unwrap().len() / 4;
    // (file, what is written where, what the error must say)
    type Damage = (&'static str, Box<dyn Fn(&Path)>);
    let damages: Vec<Damage> = vec![
        ("out.adj", Box::new(|p: &Path| put_u32(p, 4 * 100, u32::MAX - 3))),
        ("out.adj", Box::new(move |p: &Path| put_u32(p, 4 * (edges - 1), vertices as u32))),
        ("in.adj", Box::new(|p: &Path| put_u32(p, 4 * 7, 1 << 31))),
        // well-formed Elias-Fano files whose entries pass the adjacency's end
        ("out.ef", Box::new(|p: &Path| rewrite_ef(p, |e| e[50..].iter_mut().for_each(|x| *x = 1 << 40)))),
        ("out.ef", Box::new(move |p: &Path| rewrite_ef(p, |e| e[vertices as usize] = edges + 1))),
        // a header at odds with its bits: the count, the last entry, upper bits cleared
        ("in.ef", Box::new(move |p: &Path| put_u64(p, 8, vertices + 2))),
        ("in.ef", Box::new(move |p: &Path| put_u64(p, 8 * 5, edges - 1))),
        (
            "in.ef",
            Box::new(|p: &Path| {
                let words: Vec<u64> =
                    std::fs::read(p).unwrap().chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect();
                let high = 8 + words[6];
                for k in high + words[7] / 2..high + words[7] {
                    put_u64(p, 8 * k, 0);
                }
            }),
        ),
        ("tiles-g0.edges", Box::new(|p: &Path| put_u32(p, 4 * 11, u32::MAX))),
        ("tiles-g0.index", Box::new(|p: &Path| put_u64(p, 8, 1 << 50))),
    ];
    for (name, damage) in &damages {
        let path = store.join(name);
        damage(&path);
        rehash(&store, name);
        let (_, _, err) = outcore(&["info", s(&store), "--verify"]);
        assert!(!err.contains("checksum mismatch"), "the crafted {name} has matching checksums: {err}");
        let mut refused = 0;
        for r in &runs {
            let (code, _, err) = run(r, &out);
            assert!(code == 0 || code == 1, "{r:?} with impossible {name}: exit {code}: {err}");
            if code == 1 {
                refused += 1;
                assert!(err.contains(name) && err.lines().count() == 1, "{r:?} with impossible {name}: {err}");
                assert!(!out.exists(), "{r:?} left an output behind");
            }
        }
        assert!(refused > 0, "no command noticed the impossible {name}");
        for (n, bytes) in &pristine {
            std::fs::write(store.join(n), bytes).unwrap();
            rehash(&store, n);
        }
    }
}

/// Every field of a manifest is bounded: a damaged or crafted one is a
/// one-line error naming manifest.json, from the first command that opens
/// the store, and nothing is read or allocated from what it claims.
#[test]
fn manifest_fields_out_of_bounds_are_refused() {
    let d = tempfile::tempdir().unwrap();
    let store = d.path().join("store");
    assert_eq!(outcore(&["import", s(&shared().join("real/wiki-Vote.txt")), "-o", s(&store), "--quiet"]).0, 0);
    let path = store.join("manifest.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let pristine: serde_json::Value = serde_json::from_str(&text).unwrap();
    type Edit = (&'static str, Box<dyn Fn(&mut serde_json::Value)>);
    let edits: Vec<Edit> = vec![
        ("has 2 block checksums", Box::new(|m| m["files"]["out.adj"]["blocks"].as_array_mut().unwrap().push("0000000000000000".into()))),
        ("checksum blocks of 0 bytes", Box::new(|m| m["files"]["out.adj"]["block_bytes"] = 0.into())),
        ("checksum blocks of 1000 bytes", Box::new(|m| m["files"]["out.adj"]["block_bytes"] = 1000.into())),
        ("not 16 hex digits", Box::new(|m| m["files"]["idmap"]["xxh3"] = "zz".into())),
        ("not 16 hex digits", Box::new(|m| m["files"]["idmap"]["blocks"][0] = "0123456789abcdef0".into())),
        (
            "a file name is 300 bytes long",
            Box::new(|m| {
                let name = "x".repeat(300);
                let record = m["files"]["idmap"].clone();
                m["files"][name.as_str()] = record;
            }),
        ),
        ("more than any store holds", Box::new(|m| m["vertices"] = (1u64 << 60).into())),
    ];
    for (want, edit) in &edits {
        let mut m = pristine.clone();
        edit(&mut m);
        std::fs::write(&path, serde_json::to_string_pretty(&m).unwrap()).unwrap();
        for args in [vec!["info", s(&store)], vec!["bfs", s(&store), "--root", "30"]] {
            let (code, _, err) = outcore(&args);
            assert_eq!(code, 1, "{args:?} with {want}: {err}");
            assert!(err.contains("manifest.json") && err.contains(want) && err.lines().count() == 1, "{args:?}: {err}");
        }
    }
    // a manifest larger than any store needs is not read at all
    std::fs::File::create(&path).unwrap().set_len(65 << 20).unwrap();
    let (code, _, err) = outcore(&["info", s(&store)]);
    assert_eq!(code, 1);
    assert!(err.contains("manifest.json: is 68157440 bytes, more than any manifest needs"), "{err}");
    std::fs::write(&path, &text).unwrap();
    assert_eq!(outcore(&["info", s(&store), "--verify"]).0, 0);
}

/// A dynamic store is a directory people may be handed too: a link inside
/// it (which opening would map for writing) and a STATE with impossible
/// counts are refused, and the file a link points to is left as it was.
#[test]
fn hostile_dynamic_stores_are_refused() {
    let d = tempfile::tempdir().unwrap();
    let store = d.path().join("dyn");
    assert_eq!(outcore(&["dynamic", "create", s(&store), "--partitions", "2", "--quiet"]).0, 0);
    let (code, _, err) = outcore(&["dynamic", "apply", s(&store), s(&shared().join("real/wiki-Vote.txt")), "--quiet"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(outcore(&["dynamic", "stats", s(&store), "--check"]).0, 0);

    let heap = store.join("part-0.heap");
    let moved = d.path().join("moved.heap");
    let victim = d.path().join("victim");
    std::fs::write(&victim, vec![7u8; 1 << 16]).unwrap();
    std::fs::rename(&heap, &moved).unwrap();
    std::os::unix::fs::symlink(&victim, &heap).unwrap();
    for args in [vec!["dynamic", "stats", s(&store)], vec!["dynamic", "apply", s(&store), s(&shared().join("real/CA-GrQc.txt"))]] {
        let (code, _, err) = outcore(&args);
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(err.contains("part-0.heap: is a link"), "{args:?}: {err}");
    }
    assert_eq!(std::fs::read(&victim).unwrap(), vec![7u8; 1 << 16]);
    std::fs::remove_file(&heap).unwrap();
    std::fs::rename(&moved, &heap).unwrap();
    assert_eq!(outcore(&["dynamic", "stats", s(&store), "--check"]).0, 0);

    let state = store.join("STATE");
    let text = std::fs::read_to_string(&state).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["options"]["partitions"] = 1_000_000_000u64.into();
    std::fs::write(&state, v.to_string()).unwrap();
    let (code, _, err) = outcore(&["dynamic", "stats", s(&store)]);
    assert_eq!(code, 1);
    assert!(err.contains("STATE: 1000000000 partitions"), "{err}");
    std::fs::File::create(&state).unwrap().set_len(17 << 20).unwrap();
    let (code, _, err) = outcore(&["dynamic", "stats", s(&store)]);
    assert_eq!(code, 1);
    assert!(err.contains("more than any state file needs"), "{err}");
    // table descriptors outside their heap, or not tables at all
    for (field, value, says) in [
        ("off", 1u64 << 50, "the low-degree table"),
        ("cap", 3, "the low-degree table (3 slots"),
        ("live", u64::MAX, "the low-degree table"),
    ] {
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        v["partitions"][1]["low"][field] = value.into();
        std::fs::write(&state, v.to_string()).unwrap();
        for args in
            [vec!["dynamic", "stats", s(&store), "--check"], vec!["dynamic", "apply", s(&store), s(&shared().join("real/CA-GrQc.txt"))]]
        {
            let (code, _, err) = outcore(&args);
            assert_eq!(code, 1, "{field}: {args:?}: {err}");
            assert!(
                err.contains("STATE: ") && err.contains(says) && err.contains("not a table inside its heap"),
                "{field}: {args:?}: {err}"
            );
        }
    }
    std::fs::write(&state, &text).unwrap();
    assert_eq!(outcore(&["dynamic", "stats", s(&store), "--check"]).0, 0);
}

/// A dynamic store's heaps carry no checksums, so a flipped bit may go
/// unnoticed; but `stats --check` reads a damaged heap without a panic or
/// a runaway allocation: every run exits 0 (nothing it can see) or 1 with
/// the damage named. 80 stores, 4 flipped bits each, in the used part of a
/// random heap (before the check read chunk references and header counts
/// unchecked, 4 in 300 such runs panicked or aborted).
#[test]
fn damaged_dynamic_heaps_are_reported_not_panicked_on() {
    use std::os::unix::fs::FileExt;
    let d = tempfile::tempdir().unwrap();
    let orig = d.path().join("orig");
    assert_eq!(outcore(&["dynamic", "create", s(&orig), "--partitions", "1", "--quiet"]).0, 0);
    assert_eq!(outcore(&["dynamic", "apply", s(&orig), s(&shared().join("real/wiki-Vote.txt")), "--quiet"]).0, 0);
    let state: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(orig.join("STATE")).unwrap()).unwrap();
    let ends: Vec<u64> = state["partitions"][0]["heap_ends"].as_array().unwrap().iter().map(|e| e.as_u64().unwrap()).collect();
    let used: Vec<(String, u64)> = ends
        .iter()
        .enumerate()
        .filter(|(_, &e)| e > 4096)
        .map(|(h, &e)| (if h == 0 { "part-0.heap".to_string() } else { format!("part-0.a{}.heap", h - 1) }, e))
        .collect();
    let mut rng = outcore_io::SplitMix64(0x2545_f491_4f6c_dd1d);
    let mut next = move || rng.next_u64();
    let (mut reported, mut runs) = (0, 0);
    for trial in 0..80 {
        let store = d.path().join(format!("t{trial}"));
        std::fs::create_dir(&store).unwrap();
        for e in std::fs::read_dir(&orig).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), store.join(e.file_name())).unwrap();
        }
        let (name, end) = &used[(next() % used.len() as u64) as usize];
        let f = std::fs::OpenOptions::new().read(true).write(true).open(store.join(name)).unwrap();
        for _ in 0..4 {
            let at = 4096 + next() % (end - 4096);
            let mut b = [0u8];
            f.read_exact_at(&mut b, at).unwrap();
            f.write_all_at(&[b[0] ^ (1 << (next() % 8))], at).unwrap();
        }
        let (code, _, err) = outcore(&["dynamic", "stats", s(&store), "--check"]);
        assert!(code == 0 || code == 1, "trial {trial} ({name}): exit {code}: {err}");
        if code == 1 {
            assert!(err.contains("check failed") && err.contains("damaged"), "trial {trial}: {err}");
            reported += 1;
        }
        runs += 1;
        std::fs::remove_dir_all(&store).unwrap();
    }
    assert!(reported > 0, "no damage reported in {runs} runs: the check sees nothing");
}

/// The stored hot lists are read like every other file: a flipped bit is a
/// checksum error naming the column, and crafted columns with matching
/// checksums (an id past the last vertex, a column whose length does not
/// match the in-degrees, columns that grow) are errors, never a wrong BFS.
#[test]
fn damaged_or_crafted_hot_layouts_are_errors() {
    let d = tempfile::tempdir().unwrap();
    let store = d.path().join("store");
    let wiki = shared().join("real/wiki-Vote.txt");
    let (code, _, err) = outcore(&["import", s(&wiki), "-o", s(&store), "--undirected", "--layouts", "out,hot", "--quiet"]);
    assert_eq!(code, 0, "{err}");
    let out = d.path().join("levels");
    let bfs = ["bfs", s(&store), "--root", "30", "--direction", "hybrid", "--json", "-o", s(&out), "--quiet"];
    let (code, report, err) = outcore(&bfs);
    assert_eq!(code, 0, "{err}");
    let report: serde_json::Value = serde_json::from_str(&report).unwrap();
    assert_eq!(report["hot_lists"]["from"], "stored", "{report}");
    let want = std::fs::read(&out).unwrap();
    let manifest_path = store.join("manifest.json");
    let pristine = std::fs::read_to_string(&manifest_path).unwrap();
    let m: serde_json::Value = serde_json::from_str(&pristine).unwrap();
    let n = m["vertices"].as_u64().unwrap();
    let column = |j: usize| m["hot"]["columns"][j]["file"].as_str().unwrap().to_string();
    let (first, second) = (column(0), column(1));
    let refused = |what: &str, needle: &str| {
        let _ = std::fs::remove_file(&out);
        let (code, _, err) = outcore(&bfs);
        assert_eq!(code, 1, "{what}: {err}");
        assert!(err.contains(needle), "{what}: {err}");
        assert!(!out.exists(), "{what}: an output was left");
    };
    // a flipped bit
    let path = store.join(&first);
    let len = std::fs::metadata(&path).unwrap().len();
    flip(&path, len / 2, 0x04);
    refused("a flipped bit", &format!("{first}: verify: checksum mismatch in block 0"));
    let (code, _, err) = outcore(&["info", s(&store), "--verify"]);
    assert!(code != 0 && err.contains(&first), "{err}");
    flip(&path, len / 2, 0x04);
    // an id past the last vertex, checksums rewritten to match
    let saved = std::fs::read(&path).unwrap();
    put_u32(&path, 0, n as u32 + 5);
    rehash(&store, &first);
    refused("an id past the last vertex", &format!("{first}: entry 0 is vertex {}, beyond the store's {n} vertices", n + 5));
    std::fs::write(&path, &saved).unwrap();
    std::fs::write(&manifest_path, &pristine).unwrap();
    // a column one entry short of the in-degrees
    let path = store.join(&second);
    let saved = std::fs::read(&path).unwrap();
    std::fs::write(&path, &saved[..saved.len() - 4]).unwrap();
    rehash(&store, &second);
    let mut edited: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&manifest_path).unwrap()).unwrap();
    let entries = edited["hot"]["columns"][1]["entries"].as_u64().unwrap();
    edited["hot"]["columns"][1]["entries"] = (entries - 1).into();
    std::fs::write(&manifest_path, serde_json::to_string_pretty(&edited).unwrap()).unwrap();
    refused("a short column", "the hot layout does not match layout out");
    // a column cut inside an entry, checksums rewritten to match: its
    // size is checked against its entries before it is read
    std::fs::write(&manifest_path, &pristine).unwrap();
    std::fs::write(&path, &saved[..saved.len() - 2]).unwrap();
    rehash(&store, &second);
    refused(
        "a column cut inside an entry",
        &format!("hot column 1 {second} holds {} bytes, {entries} entries of 4 bytes need", saved.len() - 2),
    );
    std::fs::write(&path, &saved).unwrap();
    // manifests that cannot be right are refused before anything is read
    type Edit = (&'static str, Box<dyn Fn(&mut serde_json::Value)>);
    let edits: Vec<Edit> = vec![
        (
            "more than column 0",
            Box::new(|m| m["hot"]["columns"][1]["entries"] = (m["hot"]["columns"][0]["entries"].as_u64().unwrap() + 1).into()),
        ),
        ("sampled from layout \"nope\"", Box::new(|m| m["hot"]["source"] = "nope".into())),
        ("not a plain file name", Box::new(|m| m["hot"]["columns"][0]["file"] = "../elsewhere".into())),
    ];
    for (needle, edit) in &edits {
        let mut edited: serde_json::Value = serde_json::from_str(&pristine).unwrap();
        edit(&mut edited);
        std::fs::write(&manifest_path, serde_json::to_string_pretty(&edited).unwrap()).unwrap();
        refused(needle, needle);
    }
    std::fs::write(&manifest_path, &pristine).unwrap();
    std::fs::remove_file(&out).unwrap_or_default();
    let (code, _, err) = outcore(&bfs);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read(&out).unwrap(), want);
    assert_eq!(outcore(&["info", s(&store), "--verify"]).0, 0);
}
