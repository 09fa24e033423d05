//! The stream engine run directly (the algorithms' tests run it through
//! PageRank, WCC, BFS and the rest): a program that records every tuple
//! it is handed sees each arc of the edge file once a pass, with its
//! weight, forward and (when it asks) backward, whether the tiles come
//! from the device in one segment or in many small ones cut into pieces,
//! or from the cache pool on the passes after the first (slide, cache,
//! rewind); with a pool too small, what the program will not keep is
//! evicted and the rest still served right. Its figures are checked
//! against the layout's size: one pass reads each tile byte once (in
//! aligned reads, one a file for each segment's pieces), a pool the
//! layout's size serves the whole second pass, and the engine opens in
//! `fixed_bytes` with no pool.

mod common;

use common::{bounded, graph, tiled};
use outcore_engines::{IterationStats, StreamOptions, TileEdges, TileProgram, TileStream};
use outcore_io::Budget;
use std::sync::Mutex;

/// Records every tuple handed to it: (source, target, weight).
struct Record {
    reverse: bool,
    weights: bool,
    /// Tiles of odd columns are not kept when the pool is full.
    keep_even_columns: bool,
    forward: Mutex<Vec<(u64, u64, f32)>>,
    backward: Mutex<Vec<(u64, u64, f32)>>,
}

impl Record {
    fn new(reverse: bool, weights: bool, keep_even_columns: bool) -> Self {
        Record { reverse, weights, keep_even_columns, forward: Mutex::default(), backward: Mutex::default() }
    }
    fn tuples(tile: &TileEdges) -> Vec<(u64, u64, f32)> {
        tile.edges
            .iter()
            .enumerate()
            .map(|(k, &[s, t])| {
                let w = if tile.weights.is_empty() { 0.0 } else { tile.weights[k] };
                (tile.source_base + s as u64, tile.target_base + t as u64, w)
            })
            .collect()
    }
    /// What one pass recorded, sorted, and the recorder emptied.
    fn take(seen: &Mutex<Vec<(u64, u64, f32)>>) -> Vec<(u64, u64, f32)> {
        let mut all = std::mem::take(&mut *seen.lock().unwrap());
        all.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)).then(a.2.total_cmp(&b.2)));
        all
    }
}

impl TileProgram for Record {
    fn reverse(&self) -> bool {
        self.reverse
    }
    fn weights(&self) -> bool {
        self.weights
    }
    fn keep(&self, _: u32, j: u32) -> bool {
        !self.keep_even_columns || j.is_multiple_of(2)
    }
    fn forward(&self, tile: &TileEdges) {
        self.forward.lock().unwrap().extend(Record::tuples(tile));
    }
    fn backward(&self, tile: &TileEdges) {
        self.backward.lock().unwrap().extend(Record::tuples(tile));
    }
}

/// The edge file's arcs, sorted, with their weights (or 0).
fn arcs(weights: bool) -> Vec<(u64, u64, f32)> {
    let gr = graph();
    let mut all: Vec<(u64, u64, f32)> =
        (0..gr.lists.len()).flat_map(|v| gr.lists[v].iter().map(move |&(u, w)| (v as u64, u, if weights { w } else { 0.0 }))).collect();
    all.sort_by_key(|a| (a.0, a.1));
    all
}

/// Runs `passes` passes of `program` and checks what each handed it;
/// returns each pass's figures.
fn passes(stream: &mut TileStream, program: &Record, passes: usize, what: &str) -> Vec<IterationStats> {
    let expected = arcs(program.weights);
    (0..passes)
        .map(|pass| {
            let it = stream.iterate(program).unwrap();
            assert!(Record::take(&program.forward) == expected, "{what}: pass {pass} forward: every arc once");
            let backward = Record::take(&program.backward);
            if program.reverse {
                assert!(backward == expected, "{what}: pass {pass} backward: every arc once");
            } else {
                assert!(backward.is_empty(), "{what}: no backward pass asked for");
            }
            assert_eq!(it.edges_processed, expected.len() as u64, "{what}: edges of pass {pass}");
            it
        })
        .collect()
}

#[test]
fn every_arc_once_a_pass_from_the_device_and_from_the_pool() {
    let store = tiled();
    let rec = TileStream::record(&store).unwrap();
    let gr = graph();
    assert_eq!(rec.edges, gr.arcs);
    assert!(rec.tiles > 20, "{} tiles", rec.tiles);
    for weights in [false, true] {
        let layout = TileStream::layout_bytes(&rec, weights);
        let files = if weights { 2 } else { 1 };
        let what = format!("weights {weights}, a pool the layout's size");
        bounded(&what, || {
            let budget = Budget::new(1 << 30);
            let mut stream = TileStream::open(&store, &budget, weights, StreamOptions::default()).unwrap();
            let stats = stream.stats().clone();
            assert_eq!(stats.layout_bytes, layout, "{what}");
            assert_eq!(stats.pool_bytes, layout, "{what}: a pool of the layout's size");
            let slack = 4 * 4096 * files;
            assert!(
                stats.segment_bytes <= layout.div_ceil(4096 * files) * 4096 * files + slack,
                "{what}: a segment of {} bytes for a layout of {layout}",
                stats.segment_bytes
            );
            // a pool that holds the whole layout evicts nothing, even what
            // the program says it will not keep
            let program = Record::new(true, weights, true);
            let its = passes(&mut stream, &program, 3, &what);
            assert!(its.iter().all(|it| it.pieces_evicted == 0), "{what}: a pool that holds the layout evicted");
            // each tile byte read once, in aligned reads: one extent a
            // file when the segment holds the whole layout
            assert!(
                (layout..=layout + 4096 * files).contains(&its[0].bytes_read),
                "{what}: the first pass read {} bytes of a {layout}-byte layout",
                its[0].bytes_read
            );
            assert_eq!(its[0].segments, 1, "{what}: one segment holds the whole layout, its pages' slack included");
            assert_eq!(its[0].reads, files, "{what}: one read a file");
            assert_eq!(its[0].bytes_from_cache, 0, "{what}: the pool starts empty");
            for it in &its[1..] {
                assert_eq!((it.bytes_read, it.reads, it.segments), (0, 0, 0), "{what}: the pool serves every pass after the first");
                assert_eq!(it.bytes_from_cache, layout, "{what}: all of it from the pool");
            }
        });
    }
}

#[test]
fn small_segments_cut_tiles_into_pieces() {
    let store = tiled();
    let rec = TileStream::record(&store).unwrap();
    for weights in [false, true] {
        let what = format!("weights {weights}, 16 KiB segments, no pool");
        bounded(&what, || {
            let budget = Budget::new(1 << 30);
            let opts = StreamOptions { segment_bytes: Some(16 << 10), cache: false, ..Default::default() };
            let mut stream = TileStream::open(&store, &budget, weights, opts).unwrap();
            assert_eq!(stream.stats().pool_bytes, 0, "{what}");
            let program = Record::new(false, weights, false);
            let its = passes(&mut stream, &program, 2, &what);
            let layout = TileStream::layout_bytes(&rec, weights);
            let segment = stream.stats().segment_bytes;
            assert_eq!(segment, (16 << 10).max(4 * 4096 * if weights { 2 } else { 1 }), "{what}: at least 4 pages a file");
            let files = if weights { 2 } else { 1 };
            for it in &its {
                assert!(it.segments >= layout / segment, "{what}: {} segments of {segment} bytes", it.segments);
                // every tile is needed and they lie one after another: a
                // segment's pieces are one extent, one read a file
                assert_eq!(it.reads, it.segments * files, "{what}: {} reads in {} segments", it.reads, it.segments);
                assert!(it.bytes_read >= layout, "{what}: every pass from the device");
                // a segment's pieces lie together: one aligned read a file,
                // a page of slack at each of its ends
                assert!(
                    it.bytes_read <= layout + it.segments * files * 2 * 4096,
                    "{what}: {} bytes read in {} segments for a {layout}-byte layout",
                    it.bytes_read,
                    it.segments
                );
                assert_eq!(it.bytes_from_cache, 0, "{what}");
            }
        });
    }
}

/// One engine serves programs that want weights and programs that do not,
/// in turn: a pool filled without weights is emptied before a program that
/// wants them, and the other way, so each pass hands every arc once with
/// its weight or without; an engine opened without weights hands none to a
/// program that asks for them.
#[test]
fn programs_with_and_without_weights_take_turns_on_one_engine() {
    let store = tiled();
    bounded("weights in turn", || {
        let budget = Budget::new(1 << 30);
        let mut stream = TileStream::open(&store, &budget, true, StreamOptions::default()).unwrap();
        for (turn, weights) in [false, true, false, true].into_iter().enumerate() {
            let what = format!("turn {turn}: weights {weights}");
            let its = passes(&mut stream, &Record::new(false, weights, false), 2, &what);
            assert_eq!(its[1].bytes_read, 0, "{what}: the pool serves the second pass");
        }
        let mut stream = TileStream::open(&store, &budget, false, StreamOptions::default()).unwrap();
        let program = Record::new(false, true, false);
        for pass in 0..2 {
            stream.iterate(&program).unwrap();
            assert!(Record::take(&program.forward) == arcs(false), "pass {pass}: an engine opened without weights handed weights");
        }
    });
}

/// A pool of a third of the layout: when it fills, the tiles of odd columns
/// (which the program will not keep) go, and what stays is compacted and
/// still served right on the next passes.
#[test]
fn a_full_pool_evicts_what_the_program_will_not_keep() {
    let store = tiled();
    let rec = TileStream::record(&store).unwrap();
    for weights in [false, true] {
        let layout = TileStream::layout_bytes(&rec, weights);
        let what = format!("weights {weights}, a pool of a third of the layout");
        bounded(&what, || {
            let budget = Budget::new(1 << 30);
            let opts = StreamOptions { pool_bytes: Some(layout / 3), segment_bytes: Some(64 << 10), ..Default::default() };
            let mut stream = TileStream::open(&store, &budget, weights, opts).unwrap();
            let program = Record::new(true, weights, true);
            let its = passes(&mut stream, &program, 4, &what);
            assert!(its.iter().map(|it| it.pieces_evicted).sum::<u64>() > 0, "{what}: the pool evicted");
            assert!(its[1..].iter().all(|it| it.bytes_from_cache > 0), "{what}: the pool served the later passes");
            // and never more than it holds
            let pool = stream.stats().pool_bytes;
            assert!(pool <= layout / 3 && its.iter().all(|it| it.bytes_from_cache <= pool), "{what}: a pool of {pool} bytes served more");
        });
    }
}

/// The engine opens in `fixed_bytes` (index, two segments, a piece a
/// tile) with no pool, with segments of 512 KiB (smaller than the layout,
/// big enough that no tile is cut).
#[test]
fn it_opens_in_fixed_bytes_without_a_pool() {
    let store = tiled();
    let rec = TileStream::record(&store).unwrap();
    let segment = 512 << 10;
    assert!(TileStream::layout_bytes(&rec, false) > segment);
    let fixed = TileStream::fixed_bytes(&rec, segment);
    let opts = StreamOptions { segment_bytes: Some(segment), cache: false, ..Default::default() };
    let budget = Budget::new(fixed);
    let mut stream = TileStream::open(&store, &budget, false, opts).unwrap_or_else(|e| panic!("opening in fixed_bytes ({fixed}): {e}"));
    assert_eq!(stream.stats().segment_bytes, segment);
    let program = Record::new(false, false, false);
    bounded("fixed_bytes", || passes(&mut stream, &program, 1, "opened in fixed_bytes"));
}
