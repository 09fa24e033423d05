//! The tile layout round-trips to the CSR's edge set (the upper triangle
//! for undirected graphs), in storage order, under a budget that forces
//! the external sort to spill.

mod common;

use common::*;
use outcore_ingest::{import_file, tiles::add_tiles, ImportOptions, NoProgress};
use outcore_store::tiles::TileScan;
use outcore_store::Store;
use std::collections::BTreeSet;

#[test]
fn tiles_hold_exactly_the_csr_edges_in_group_order() {
    let cases = [("CA-CondMat.txt", false), ("wiki-Vote.txt", true), ("p2p-Gnutella05.txt", true)];
    for (file, directed) in cases {
        let dir = tempfile::tempdir().unwrap();
        let st = dir.path().join("s");
        // spread ids over many spans so the grid has several tiles and groups
        let src = read_edge_list(&shared().join("real").join(file), directed, false);
        let text: String = src.arcs.keys().map(|(u, v)| format!("{} {}\n", u * 40, v * 40)).collect();
        let input = dir.path().join("g.el");
        std::fs::write(&input, text).unwrap();
        import_file(
            &input,
            &st,
            &ImportOptions { directed: Some(directed), num_vertices: Some(40 * 110_000), ..Default::default() },
            &NoProgress,
        )
        .unwrap();
        let csr = dump_store(&st);
        for (group, span_bits, memory) in [(256u32, 16u32, 1u64 << 30), (2, 16, 30 << 20), (3, 7, 30 << 20)] {
            let rec = add_tiles(&st, group, span_bits, memory, &outcore_io::NoProgress).unwrap();
            let store = Store::open(&st).unwrap();
            assert_eq!(store.manifest().tiles.as_ref(), Some(&rec));
            let mut scan = TileScan::open(&st, &rec, store.vertices()).unwrap();
            let mut got = BTreeSet::new();
            let mut last_key = None;
            while let Some(t) = scan.next_tile().unwrap() {
                let key = (t.i / group, t.j / group, t.i, t.j);
                assert!(last_key < Some(key), "{file}: tiles out of storage order");
                last_key = Some(key);
                let mut prev = None;
                for &[ls, ld] in t.edges {
                    assert!(prev < Some((ls, ld)), "{file}: edges of a tile not sorted");
                    prev = Some((ls, ld));
                    assert!((ls as u64) < 1 << span_bits && (ld as u64) < 1 << span_bits);
                    let (u, v) = (((t.i as u64) << span_bits) | ls as u64, ((t.j as u64) << span_bits) | ld as u64);
                    assert!(got.insert((u, v)));
                }
            }
            let want: BTreeSet<(u64, u64)> = csr.arcs.keys().filter(|(u, v)| directed || u <= v).copied().collect();
            assert_eq!(got, want, "{file} group {group} span bits {span_bits}");
            assert_eq!(rec.edges, want.len() as u64);
            assert!(rec.tiles > 4, "{file}: {} tiles", rec.tiles);
            // the previous generation's files are gone and the store verifies
            for (name, r) in store.verify() {
                assert!(r.is_ok(), "{file}: {name} {r:?}");
            }
            let tile_files =
                std::fs::read_dir(&st).unwrap().filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().starts_with("tiles")).count();
            assert_eq!(tile_files, 2);
        }
    }
}
