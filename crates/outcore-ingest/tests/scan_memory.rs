//! What a sequential scan of a layout holds against what it states
//! ([`Layout::scan_bytes`], which the algorithms charge to the budget): a
//! counting allocator measures how far the heap grows while every list is
//! read, on each encoding, weighted and not, with lists long enough that
//! the decoders' own lists (gapref's recent lists) outweigh the rest.

use outcore_ingest::{import_file, ImportOptions, NoProgress};
use outcore_io::heap::{heap_growth, CountingAllocator};
use outcore_store::{Encoding, Store};

#[global_allocator]
static HEAP: CountingAllocator = CountingAllocator;

/// The tests of this file take turns: the counters are the process's.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn my_turn() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// 48 hubs of 20,000 to 30,000 neighbours each among 60,000 vertices, and
/// a sparse rest: the hubs' lists are the longest by far.
fn hubs(path: &std::path::Path, weighted: bool) {
    let mut rng = outcore_io::SplitMix64(5);
    let mut text = String::new();
    for hub in 0..48u64 {
        let degree = 20_000 + rng.next_u64() % 10_000;
        for _ in 0..degree {
            let v = 1_000 + rng.next_u64() % 59_000;
            text.push_str(&format!("{hub} {v}"));
            if weighted {
                text.push_str(&format!(" {}", rng.next_u64() % 100));
            }
            text.push('\n');
        }
    }
    for v in 1_000..60_000u64 {
        text.push_str(&format!("{v} {}{}\n", (v * 7) % 60_000, if weighted { " 1" } else { "" }));
    }
    std::fs::write(path, text).unwrap();
}

#[test]
fn a_scan_holds_no_more_than_it_states() {
    let _turn = my_turn();
    let dir = tempfile::tempdir().unwrap();
    for weighted in [false, true] {
        let input = dir.path().join(format!("hubs-{weighted}.el"));
        hubs(&input, weighted);
        for encoding in Encoding::ALL {
            let what = format!("{} {}", encoding.name(), if weighted { "weighted" } else { "unweighted" });
            let out = dir.path().join(format!("s-{}-{weighted}", encoding.name()));
            let opts = ImportOptions { directed: Some(true), weighted, encoding: Some(encoding), ..Default::default() };
            import_file(&input, &out, &opts, &NoProgress).unwrap();
            let store = Store::open(&out).unwrap();
            let layout = store.layout("out").unwrap();
            let stated = layout.scan_bytes().unwrap();
            let longest = layout.longest_list().unwrap();
            assert!(longest >= 20_000, "{what}: the longest list has {longest} entries");
            let (arcs, grown) = heap_growth(|| {
                let mut scan = layout.scan().unwrap();
                let mut arcs = 0u64;
                while let Some((_, targets, weights)) = scan.next_list().unwrap() {
                    assert_eq!(weights.len(), if weighted { targets.len() } else { 0 }, "{what}");
                    arcs += targets.len() as u64;
                }
                arcs
            });
            assert_eq!(arcs, store.manifest().arcs, "{what}: the scan read every arc");
            assert!(grown <= stated, "{what}: the scan grew the heap {grown} bytes; it states {stated}");
            // what the index's and the adjacency's chunks alone take: the counter counts
            let chunks = 2 * 2 * outcore_store::STREAM_CHUNK_BYTES as u64;
            assert!(grown >= chunks, "{what}: the heap grew only {grown} bytes, less than the read-ahead chunks ({chunks})");
        }
    }
}

/// The commands that build a layout from a scan of another (`layout add
/// hot|in|tiles`, `export`, `recode`) keep the budget they are given, at
/// the least they accept: the heap grows no further than the budget less
/// the process baseline (which is not heap), on a store whose longest
/// lists outweigh the flat figures of their scan.
#[test]
fn builders_keep_their_budget_at_their_minimum() {
    let _turn = my_turn();
    use outcore_ingest::{export, hot, in_layout, recode, sort, tiles};
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("hubs.el");
    hubs(&input, true);
    for encoding in [Encoding::Raw32, Encoding::Gapref] {
        let out = dir.path().join(format!("s-{}", encoding.name()));
        let opts = ImportOptions { directed: Some(true), weighted: true, encoding: Some(encoding), ..Default::default() };
        import_file(&input, &out, &opts, &NoProgress).unwrap();
        let check = |what: &str, memory: u64, run: &mut dyn FnMut(u64)| {
            let ((), grown) = heap_growth(|| run(memory));
            let room = memory - outcore_io::PROCESS_BASELINE;
            assert!(
                grown <= room,
                "{} {what} at --memory {memory}: the heap grew {grown} bytes, more than the {room} it may",
                encoding.name()
            );
        };
        // at the least each accepts, and the lists their writers charge as they grow
        let slack = 1 << 20;
        let lists_of_30k = outcore_store::CsrWriter::list_bytes(encoding, true, 30_000);
        let least = |what: &str| {
            let store = Store::open(&out).unwrap();
            let lists = outcore_store::CsrWriter::list_bytes(encoding, true, 30_000);
            match what {
                "hot" => hot::minimum(&store, 16).unwrap().bytes(),
                "export" => export::minimum(&store, "out").unwrap().bytes(),
                "recode" => recode::minimum_for(&store, Some(Encoding::Gapref)).unwrap().bytes() + lists,
                layout => sort::layout_minimum_for(&store, layout).unwrap().bytes() + lists,
            }
        };
        check("layout add in", least("in") + slack, &mut |m| {
            in_layout::add_in(&out, m, &NoProgress).unwrap();
        });
        check("layout add hot", least("hot") + slack, &mut |m| {
            hot::add_hot(&out, 16, m, &NoProgress).unwrap();
        });
        check("layout add tiles", least("tiles") + slack, &mut |m| {
            tiles::add_tiles(&out, 1, 14, m, &NoProgress).unwrap();
        });
        check("export", least("export") + slack, &mut |m| {
            let to = dir.path().join(format!("e-{}.el", encoding.name()));
            export::export(&out, &to, &export::ExportOptions { memory: m, ..Default::default() }, &NoProgress).unwrap();
        });
        check("import", outcore_ingest::import::minimum(&opts).bytes() + lists_of_30k + slack, &mut |m| {
            let to = dir.path().join(format!("i-{}", encoding.name()));
            import_file(&input, &to, &ImportOptions { memory: m, ..opts.clone() }, &NoProgress).unwrap();
        });
        check("recode", least("recode") + slack, &mut |m| {
            let to = dir.path().join(format!("r-{}", encoding.name()));
            let opts =
                recode::RecodeOptions { memory: m, encoding: Some(Encoding::Gapref), order: "none".into(), force: false, layouts: None };
            recode::recode(&out, &to, None, &opts, &NoProgress).unwrap();
        });
    }
}

/// A layout writer holds no more than its buffers and its lists
/// ([`CsrWriter::buffer_bytes`], [`CsrWriter::list_bytes`]), and charges
/// its lists to the budget it is given as they grow.
#[test]
fn a_layout_writer_holds_no_more_than_it_states() {
    let _turn = my_turn();
    use outcore_store::CsrWriter;
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("hubs.el");
    hubs(&input, true);
    let source = dir.path().join("source");
    import_file(&input, &source, &ImportOptions { directed: Some(true), weighted: true, ..Default::default() }, &NoProgress).unwrap();
    let store = Store::open(&source).unwrap();
    let out = store.layout("out").unwrap();
    let (n, longest) = (store.vertices(), out.longest_list().unwrap());
    // the lists, read beforehand: the writer's growth alone is measured
    let mut lists = Vec::new();
    let mut scan = out.scan().unwrap();
    while let Some((u, targets, weights)) = scan.next_list().unwrap() {
        lists.push((u, targets.to_vec(), weights.to_vec()));
    }
    drop(scan);
    for encoding in Encoding::ALL {
        for weighted in [false, true] {
            let what = format!("{} {}", encoding.name(), if weighted { "weighted" } else { "unweighted" });
            let at = dir.path().join(format!("w-{}-{weighted}", encoding.name()));
            std::fs::create_dir_all(&at).unwrap();
            let budget = outcore_io::Budget::new(1 << 30);
            let ((), grown) = heap_growth(|| {
                let mut w = CsrWriter::create_in(&at, "out", encoding, n, weighted).unwrap();
                w.charge_lists_to(&budget);
                for (u, targets, weights) in &lists {
                    for (k, &v) in targets.iter().enumerate() {
                        w.push(*u, v, weights[k]).unwrap();
                    }
                }
                w.finish_in().unwrap();
            });
            let lists_stated = CsrWriter::list_bytes(encoding, weighted, longest);
            let stated = CsrWriter::buffer_bytes(encoding, weighted) + lists_stated;
            assert!(grown <= stated, "{what}: the writer grew the heap {grown} bytes; it states {stated}");
            assert!(
                budget.peak() >= lists_stated / 2 && budget.peak() <= lists_stated,
                "{what}: charged {} for lists of {longest}",
                budget.peak()
            );
            assert_eq!(budget.used(), 0, "{what}: the lists' charge outlived the writer");
        }
    }
}
