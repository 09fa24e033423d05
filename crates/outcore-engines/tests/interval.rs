//! The interval engine run directly (the algorithms' tests run it through
//! PageRank, WCC, CDLP, SpMV and ALS): vertex programs whose every new
//! value depends on the vertex, its out-degree, and the old value and
//! weight of each neighbour, against the same programs over the edge
//! file's lists, on one interval and on many, with 8-byte values and with
//! 12-byte ones (which straddle the value table's 1 MiB chunks); the
//! budget it needs is the values of its largest interval and boundary
//! beside `fixed_bytes`, to the byte.

mod common;

use common::{bounded, graph, HUB_DEGREE, VERTICES};
use outcore_engines::interval::{fixed_bytes, longest_lists, IntervalIteration};
use outcore_engines::{IntervalEngine, IntervalOptions, IntervalProgram, NeighbourList, Values, VertexValue};
use outcore_io::Budget;
use outcore_store::{Encoding, Store, StoreError};

/// An exact program on u64 values: a hash of the vertex, its out-degree,
/// and each neighbour's old value and weight (wrapping arithmetic: any
/// value or weight misplaced changes it).
struct Mix;

fn mix(v: u64, degree: u64, old: u64, neighbours: impl Iterator<Item = (u64, f32)>) -> u64 {
    let mut h = old.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ v ^ degree << 32;
    for (value, w) in neighbours {
        h = h.rotate_left(5) ^ value.wrapping_add((w * 4.0) as u64);
    }
    h
}

impl IntervalProgram for Mix {
    type Value = u64;
    fn gather(&self, v: u64, out_degree: u64, lists: &[NeighbourList], values: &Values<u64>) -> u64 {
        let l = &lists[0];
        mix(v, out_degree, values.get(v), l.ids.iter().zip(l.weights).map(|(&u, &w)| (values.get(u), w)))
    }
}

/// A program on three f32s a vertex: each the least of its own and of
/// every neighbour's plus the weight and its position (order-free and
/// exact: quarters below 2^24).
struct Closest;

impl IntervalProgram for Closest {
    type Value = [f32; 3];
    fn gather(&self, v: u64, _: u64, lists: &[NeighbourList], values: &Values<[f32; 3]>) -> [f32; 3] {
        let mut x = values.get(v);
        for (&u, &w) in lists[0].ids.iter().zip(lists[0].weights) {
            let y = values.get(u);
            for j in 0..3 {
                x[j] = x[j].min(y[j] + w + j as f32);
            }
        }
        x
    }
}

/// Runs `iterations` passes of `program` over `store`'s out-lists on
/// intervals of at most `cap` values, checking each pass's visits and
/// figures, and returns the values at the end.
fn run<P: IntervalProgram>(
    store: &Store,
    program: &P,
    cap: Option<u64>,
    iterations: usize,
    init: impl FnMut(u64, u64) -> P::Value,
    what: &str,
) -> (Vec<P::Value>, u64) {
    let gr = graph();
    let temp = tempfile::tempdir().unwrap();
    let opts = IntervalOptions { max_interval_values: cap, temp_dir: Some(temp.path().to_path_buf()) };
    let budget = Budget::new(1 << 30);
    let mut e = IntervalEngine::<P::Value>::open(store, &["out"], true, &budget, &opts, init).unwrap();
    assert_eq!(e.vertices(), VERTICES, "{what}");
    let intervals = e.stats().intervals;
    let lay = store.layout("out").unwrap();
    let size = |p: std::path::PathBuf| std::fs::metadata(p).unwrap().len();
    let structure = size(lay.index_path()) + size(lay.adjacency_path()) + size(lay.weights_path().unwrap()) + size(lay.index_path());
    for i in 0..iterations {
        let mut next = 0;
        let it: IntervalIteration = e
            .iterate(program, |v, degree, _, _| {
                assert_eq!(v, next, "{what}: pass {i} visits every vertex in order");
                assert_eq!(degree, gr.degree(v), "{what}: out-degree of {v}");
                next += 1;
            })
            .unwrap();
        assert_eq!(next, VERTICES, "{what}: pass {i} visits every vertex");
        assert_eq!(it.edges, gr.arcs, "{what}: edges of pass {i}");
        assert_eq!(it.structure_bytes_read, structure, "{what}: structure bytes of pass {i}");
        assert_eq!(it.value_bytes_written, VERTICES * P::Value::BYTES as u64, "{what}: value bytes written");
    }
    let mut values = Vec::new();
    e.for_each_value(|v, x| {
        assert_eq!(v, values.len() as u64);
        values.push(x)
    })
    .unwrap();
    (values, intervals)
}

fn encodings() -> [Encoding; 2] {
    [Encoding::Raw32, Encoding::Gapref]
}

#[test]
fn an_exact_program_equals_its_reference_on_one_interval_and_on_many() {
    let gr = graph();
    let mut expected: Vec<u64> = (0..VERTICES).map(|v| v * 3 + gr.degree(v)).collect();
    for _ in 0..3 {
        expected = (0..VERTICES)
            .map(|v| mix(v, gr.degree(v), expected[v as usize], gr.lists[v as usize].iter().map(|&(u, w)| (expected[u as usize], w))))
            .collect();
    }
    for encoding in encodings() {
        let store = gr.open(encoding);
        for cap in [None, Some(5_000)] {
            let what = format!("{encoding:?}, intervals of at most {cap:?} values");
            let (values, intervals) = bounded(&what, || run(&store, &Mix, cap, 3, |v, d| v * 3 + d, &what));
            match cap {
                None => assert_eq!(intervals, 1, "{what}"),
                Some(_) => assert!(intervals > 10, "{what}: {intervals} intervals"),
            }
            for v in 0..VERTICES {
                assert_eq!(values[v as usize], expected[v as usize], "{what}: vertex {v}");
            }
        }
    }
}

#[test]
fn twelve_byte_values_equal_their_reference_across_chunks() {
    let gr = graph();
    let init = |v: u64| [v as f32, (VERTICES - v) as f32, (v % 1000) as f32 * 2.0];
    let mut expected: Vec<[f32; 3]> = (0..VERTICES).map(init).collect();
    for _ in 0..2 {
        expected = (0..VERTICES)
            .map(|v| {
                let mut x = expected[v as usize];
                for &(u, w) in &gr.lists[v as usize] {
                    for j in 0..3 {
                        x[j] = x[j].min(expected[u as usize][j] + w + j as f32);
                    }
                }
                x
            })
            .collect();
    }
    const { assert!(VERTICES * 12 > 1 << 20, "values straddle the table's 1 MiB chunks") };
    for encoding in encodings() {
        let store = gr.open(encoding);
        for cap in [None, Some(7_000)] {
            let what = format!("{encoding:?}, [f32; 3], intervals of at most {cap:?} values");
            let (values, _) = bounded(&what, || run(&store, &Closest, cap, 2, |v, _| init(v), &what));
            assert_eq!(values, expected, "{what}");
        }
    }
}

/// The values the engine needs at least are the hub's and its
/// neighbours' (vertex 1 and 66,000 others): it opens in `fixed_bytes` and
/// exactly their bytes, with the hub in an interval of its own; one byte
/// less is a budget error naming the hub; with one value more, vertex 0
/// joins the hub's interval.
#[test]
fn the_budget_it_needs_is_its_largest_interval_to_the_byte() {
    let gr = graph();
    let store = gr.open(Encoding::Raw32);
    let temp = tempfile::tempdir().unwrap();
    let opts = IntervalOptions { max_interval_values: None, temp_dir: Some(temp.path().to_path_buf()) };
    let fixed = fixed_bytes(VERTICES, 1, 8, longest_lists(&store, &["out"]).unwrap());
    let hub = 1 + HUB_DEGREE;
    let open = |bytes: u64| IntervalEngine::<u64>::open(&store, &["out"], false, &Budget::new(bytes), &opts, |v, _| v);
    for values in [hub, hub + 1] {
        let e = open(fixed + values * 8).unwrap_or_else(|e| panic!("opening in fixed_bytes and {values} values: {e}"));
        assert_eq!(e.stats().largest_interval_values, values, "a budget of {values} values");
    }
    match open(fixed + hub * 8 - 1) {
        Err(StoreError::Budget(b)) => assert!(b.what.contains("vertex 1 and its 66000 neighbours"), "{}", b.what),
        Err(e) => panic!("a budget error, not {e}"),
        Ok(_) => panic!("opened with one byte less than the hub's interval needs"),
    }
}

/// `fixed_bytes` counts two batches of lists, each of which may hold one
/// vertex's lists (ids and weights, 12 bytes an entry) beyond its share:
/// a longer longest list adds twice its entries' bytes, and every value
/// width adds a batch of vertices' values.
#[test]
fn fixed_bytes_counts_two_batches_of_the_longest_lists() {
    let base = fixed_bytes(VERTICES, 1, 8, 1_000);
    assert!(fixed_bytes(VERTICES, 1, 8, 101_000) - base >= 2 * 100_000 * 12);
    assert!(fixed_bytes(VERTICES, 1, 16, 1_000) > base);
    assert!(fixed_bytes(VERTICES, 2, 8, 1_000) > base, "a second layout's scans");
    assert!(fixed_bytes(2 * VERTICES, 1, 8, 1_000) > base, "a bit a vertex, and its rank");
}
