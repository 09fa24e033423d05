//! Reading the `hot` layout (NETALX's in-memory neighbours, Iwabuchi,
//! thesis section 3.4.3; built by `outcore_ingest::hot`): the order of a
//! vertex's hot neighbours, and the first columns loaded into memory.

use crate::{AdjacencyScan, HotRecord, Layout, Store, StoreError, STREAM_CHUNK_BYTES};
use outcore_io::SeqReader;

/// The layout whose lists the hot columns sample: the in-edges, which
/// are the out-edges of a symmetric store.
pub fn source_layout(directed: bool) -> &'static str {
    if directed {
        "in"
    } else {
        "out"
    }
}

/// The first `take` of `nbrs` by descending degree, ties by smaller id,
/// into `out` (cleared) as (degree, id), hottest first.
///
/// One pass that keeps the `take` best so far in order: an entry that does
/// not beat the last of them costs its degree lookup and one comparison,
/// so a long list is neither copied nor sorted (the degree lookups, one a
/// neighbour and mostly cache misses, are independent of each other and
/// overlap).
pub fn hottest(nbrs: &[u64], mut degree: impl FnMut(u64) -> u64, take: usize, out: &mut Vec<(u64, u32)>) {
    out.clear();
    if take == 0 {
        return;
    }
    let hotter = |a: (u64, u32), b: (u64, u32)| a.0 > b.0 || (a.0 == b.0 && a.1 < b.1);
    for &u in nbrs {
        let entry = (degree(u), u as u32);
        if out.len() == take {
            if !hotter(entry, out[take - 1]) {
                continue;
            }
            out.pop();
        }
        let at = out.partition_point(|&kept| hotter(kept, entry));
        out.insert(at, entry);
    }
}

/// The degrees hot lists are ranked by, one lookup per neighbour, nearly
/// all of them at random.
pub trait RankDegrees: Sync {
    /// Vertices with a degree (`0..vertices()`).
    fn vertices(&self) -> u64;
    fn degree(&self, u: u64) -> u64;
    /// A hint that `degree(u)` is asked soon (none by default).
    fn prefetch(&self, _u: u64) {}
    /// `f(u, degree)` for every vertex in order.
    fn for_each_degree(&self, f: &mut dyn FnMut(u64, u64)) {
        for u in 0..self.vertices() {
            f(u, self.degree(u));
        }
    }
}

/// Whether no vertex has a higher degree than the one before it (a store
/// in descending-degree order, `--order degree`): then the hottest of an
/// ascending list are its first entries, and ranking needs no lookups.
fn degrees_descend(degrees: &(impl RankDegrees + ?Sized)) -> bool {
    let (mut previous, mut descend) = (u64::MAX, true);
    degrees.for_each_degree(&mut |_, d| {
        descend &= d <= previous;
        previous = d;
    });
    descend
}

/// A table of a degree per vertex (the hot layout's builder reads them
/// into one; a distributed part's are whole-graph degrees).
impl RankDegrees for [u32] {
    fn vertices(&self) -> u64 {
        self.len() as u64
    }
    #[inline]
    fn degree(&self, u: u64) -> u64 {
        self[u as usize] as u64
    }
    #[inline]
    fn prefetch(&self, u: u64) {
        outcore_io::prefetch(self, u as usize);
    }
}

/// Entries ahead of the one being ranked whose degrees are prefetched:
/// enough misses in flight to cover the memory's latency.
const PREFETCH_AHEAD: usize = 24;

/// Ranking a scan's lists on every core: a thread reads the lists into
/// batches while the batch before is ranked ([`hottest`] on each list, in
/// parallel) and handed on in list order. The hot lists' builders (the
/// `hot` layout and the hybrid BFS's own scan) spend most of their time
/// ranking, one random degree lookup per entry, except on a store in
/// descending-degree order, where a list's first entries are its hottest.
pub struct HotBatches;

/// Neighbour entries after which a batch is ranked (a batch holds whole
/// lists, so its last list may take it past this mark).
const BATCH_ENTRIES: usize = 1 << 18;

/// Lists ranked by one task.
const LISTS_PER_TASK: usize = 1024;

struct Batch {
    neighbours: Vec<u64>,
    /// Where each list ends in `neighbours`, after a 0.
    bounds: Vec<usize>,
}

impl HotBatches {
    /// Memory of the two batches and the ranked ids, per entry of a batch:
    /// the neighbours (8 bytes, twice), the list bounds (8, twice), the
    /// ranked ids per task (up to 10, as their vectors grow), the counts (1).
    /// [`HotBatches::bytes`] adds the list that ends a batch; the scan is
    /// its opener's to charge.
    pub const BYTES: u64 = (BATCH_ENTRIES * (2 * 16 + 11)) as u64;

    /// Memory of [`HotBatches::rank`] over a layout whose longest list is
    /// `longest`: [`HotBatches::BYTES`], and in each batch the list that
    /// takes it past its mark (held whole: up to `longest` neighbours of 8
    /// bytes beyond the batch's room, which grows by exactly that).
    pub fn bytes(longest: u64) -> u64 {
        Self::BYTES + 2 * 8 * longest
    }

    /// Rank the first `take` (at most 255) of every list `scan` yields by
    /// descending `degree` (ties by smaller id) and call `emit` with each
    /// list's ranked ids, in order; `inspect` sees each list first, on the
    /// reading thread.
    pub fn rank<E: From<StoreError> + Send>(
        mut scan: AdjacencyScan,
        take: usize,
        degree: &(impl RankDegrees + ?Sized),
        mut inspect: impl FnMut(&[u64]) -> Result<(), E> + Send,
        emit: &mut impl FnMut(&[u32]) -> Result<(), E>,
    ) -> Result<(), E> {
        use std::sync::mpsc::sync_channel;
        let take = take.min(u8::MAX as usize);
        let by_id = degrees_descend(degree);
        let (full_tx, full_rx) = sync_channel::<Batch>(1);
        let (empty_tx, empty_rx) = sync_channel::<Batch>(2);
        for _ in 0..2 {
            let batch = Batch { neighbours: Vec::with_capacity(BATCH_ENTRIES), bounds: Vec::with_capacity(BATCH_ENTRIES) };
            empty_tx.send(batch).expect("the receiver is here");
        }
        std::thread::scope(|threads| {
            let reader = threads.spawn(move || -> Result<(), E> {
                while let Ok(mut batch) = empty_rx.recv() {
                    batch.neighbours.clear();
                    batch.bounds.clear();
                    batch.bounds.push(0);
                    let mut more = true;
                    // at most BATCH_ENTRIES bounds (lists of no entries
                    // fill a batch too), and the neighbours grown exactly by
                    // the list that takes them past the mark, never doubled
                    while batch.neighbours.len() < BATCH_ENTRIES && batch.bounds.len() < BATCH_ENTRIES {
                        let Some((_, list, _)) = scan.next_list()? else {
                            more = false;
                            break;
                        };
                        inspect(list)?;
                        batch.neighbours.reserve_exact(list.len());
                        batch.neighbours.extend_from_slice(list);
                        batch.bounds.push(batch.neighbours.len());
                    }
                    if batch.bounds.len() > 1 && full_tx.send(batch).is_err() {
                        return Ok(()); // the ranking side stopped on an error
                    }
                    if !more {
                        return Ok(());
                    }
                }
                Ok(())
            });
            let mut result = Ok(());
            for batch in full_rx.iter() {
                result = rank_batch(&batch, take, degree, by_id, emit);
                if result.is_err() {
                    break;
                }
                // back to the reader, unless it has read its last list
                let _ = empty_tx.send(batch);
            }
            // unblock the reader wherever it waits, then hear how it ended
            drop(full_rx);
            drop(empty_tx);
            let read = reader.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
            result.and(read)
        })
    }
}

/// Rank every list of `batch` in parallel, then `emit` them in order.
fn rank_batch<E>(
    batch: &Batch,
    take: usize,
    degree: &(impl RankDegrees + ?Sized),
    by_id: bool,
    emit: &mut impl FnMut(&[u32]) -> Result<(), E>,
) -> Result<(), E> {
    use rayon::prelude::*;
    if by_id {
        // no lookups to spread over the cores
        let mut scratch = Vec::new();
        return rank_run(&batch.neighbours, &batch.bounds, take, degree, by_id, &mut scratch, &mut |_, ids| emit(ids));
    }
    let parts: Vec<(Vec<u32>, Vec<u8>)> = batch
        .bounds
        .par_windows(2)
        .chunks(LISTS_PER_TASK)
        .map_init(Vec::new, |scratch, lists| {
            let (mut ranked, mut counts) = (Vec::new(), Vec::with_capacity(lists.len()));
            let bounds: Vec<usize> = std::iter::once(lists[0][0]).chain(lists.iter().map(|w| w[1])).collect();
            let kept = rank_run(&batch.neighbours, &bounds, take, degree, by_id, scratch, &mut |_, ids| {
                ranked.extend_from_slice(ids);
                counts.push(ids.len() as u8);
                Ok::<(), std::convert::Infallible>(())
            });
            let Ok(()) = kept;
            (ranked, counts)
        })
        .collect();
    for (ranked, counts) in &parts {
        let mut at = 0;
        for &c in counts {
            emit(&ranked[at..at + c as usize])?;
            at += c as usize;
        }
    }
    Ok(())
}

/// Rank the lists `neighbours[bounds[i]..bounds[i + 1]]` in order, each
/// degree prefetched [`PREFETCH_AHEAD`] lookups before its own (across the
/// ends of lists), and call `emit(i, ranked ids)` for each. With `by_id`
/// (degrees that descend with the id) an ascending list's hottest are its
/// first entries, looked up nowhere; a list out of order is ranked.
fn rank_run<E>(
    neighbours: &[u64],
    bounds: &[usize],
    take: usize,
    degree: &(impl RankDegrees + ?Sized),
    by_id: bool,
    scratch: &mut Vec<(u64, u32)>,
    emit: &mut impl FnMut(usize, &[u32]) -> Result<(), E>,
) -> Result<(), E> {
    let mut ids = Vec::with_capacity(take);
    let (Some(&first), Some(&last)) = (bounds.first(), bounds.last()) else { return Ok(()) };
    let entries = &neighbours[first..last];
    if !by_id {
        for &u in entries.iter().take(PREFETCH_AHEAD) {
            degree.prefetch(u);
        }
    }
    let mut ahead = PREFETCH_AHEAD;
    let mut looked_up = |u: u64| {
        if let Some(&next) = entries.get(ahead) {
            degree.prefetch(next);
        }
        ahead += 1;
        degree.degree(u)
    };
    for (i, w) in bounds.windows(2).enumerate() {
        let list = &neighbours[w[0]..w[1]];
        if by_id {
            rank_by_id(list, take, degree, scratch, &mut ids);
        } else {
            hottest(list, &mut looked_up, list.len().min(take), scratch);
            ids.clear();
            ids.extend(scratch.iter().map(|&(_, u)| u));
        }
        emit(i, &ids)?;
    }
    Ok(())
}

/// The hottest `take` of `list` into `ids` (cleared) where degrees
/// descend with the id: an ascending list's first entries, or (a list out
/// of order, which no decoder gives) ranked.
fn rank_by_id(list: &[u64], take: usize, degree: &(impl RankDegrees + ?Sized), scratch: &mut Vec<(u64, u32)>, ids: &mut Vec<u32>) {
    let take = list.len().min(take);
    ids.clear();
    if list.is_sorted() {
        ids.extend(list[..take].iter().map(|&u| u as u32));
    } else {
        hottest(list, |u| degree.degree(u), take, scratch);
        ids.extend(scratch.iter().map(|&(_, u)| u));
    }
}

/// Neighbour entries a part of [`HotParts::rank`] reads before it ranks
/// them: enough lists for the degree prefetches to run ahead across the
/// ends of short lists.
const PART_BATCH_ENTRIES: usize = 1 << 15;

/// Ranking a layout's lists in parts of its vertex range, each part read
/// ([`Layout::scan_range`]), decoded and ranked by one task, a task per
/// core: what [`HotBatches`] does with one reading thread, with the
/// reading and the decoding on every core too (a compressed layout
/// decodes at a few hundred million entries a second per core, below an
/// SSD's rate, and a scan spends about as much again per vertex).
pub struct HotParts;

impl HotParts {
    /// Memory of one part beside its scan (which its opener charges, as
    /// [`Layout::scan_bytes`]): the lists it ranks at a time (8 bytes of
    /// neighbour per entry, with the list that takes them past
    /// [`PART_BATCH_ENTRIES`], up to `longest` entries; 8 bytes of bound
    /// per list) and its ranked ids (4 bytes each) and scratch (16).
    pub fn bytes(longest: u64) -> u64 {
        (PART_BATCH_ENTRIES as u64 + longest) * 8 + (PART_BATCH_ENTRIES as u64 + 1) * 8 + 20 * u8::MAX as u64
    }

    /// Rank the first `take` (at most 255) of every list of `layout` by
    /// descending `degree` (ties by smaller id), the vertex range cut at
    /// `cuts` (ascending, from 0 to at most the vertex count: the vertices
    /// past the last cut are not read, for a caller that knows they have
    /// no lists) into parts, one per
    /// sink: `sinks[p]` gets `(vertex, ranked ids)` for every vertex of
    /// part `p` in order. `lanes` tasks of the current thread pool take
    /// the parts in turn, so that at most `lanes` parts (and their scans)
    /// are open at once and a lane that ends early takes the next part.
    /// They take them from both ends in turn ([`part_taken`]): in degree
    /// order the first parts are a few long lists, bound by the device,
    /// the last many short ones, bound by the core, and a lane on each
    /// keeps both busy.
    /// The first error stops the lane it happens in and is returned once
    /// every lane has ended.
    pub fn rank<E, S>(
        layout: &Layout,
        cuts: &[u64],
        lanes: usize,
        take: usize,
        degree: &(impl RankDegrees + ?Sized),
        sinks: Vec<S>,
    ) -> Result<(), E>
    where
        E: From<StoreError> + Send,
        S: FnMut(u64, &[u32]) -> Result<(), E> + Send,
    {
        use rayon::prelude::*;
        use std::sync::atomic::{AtomicUsize, Ordering};
        use std::sync::Mutex;
        if cuts.len() != sinks.len() + 1 || cuts.first() != Some(&0) || cuts.last() > Some(&layout.vertices()) || !cuts.is_sorted() {
            let cuts = cuts.iter().map(u64::to_string).collect::<Vec<_>>().join(", ");
            return Err(StoreError::invalid(layout.adjacency_path(), format!("cuts {cuts} do not part 0..{}", layout.vertices())).into());
        }
        let take = take.min(u8::MAX as usize);
        let by_id = degrees_descend(degree);
        let next = AtomicUsize::new(0);
        let sinks: Vec<Mutex<Option<S>>> = sinks.into_iter().map(|s| Mutex::new(Some(s))).collect();
        (0..lanes.max(1)).into_par_iter().try_for_each(|_| -> Result<(), E> {
            loop {
                let p = part_taken(next.fetch_add(1, Ordering::Relaxed), sinks.len());
                let Some(slot) = sinks.get(p) else { return Ok(()) };
                let Some(sink) = slot.lock().unwrap_or_else(|e| e.into_inner()).take() else { return Ok(()) };
                if let Err(e) = rank_part(layout, cuts[p], cuts[p + 1], take, degree, by_id, sink) {
                    next.store(sinks.len(), Ordering::Relaxed); // the other lanes take no more parts
                    return Err(e);
                }
            }
        })
    }
}

/// The part the `taken`-th lane's turn takes among `parts`: from both ends
/// in turn (0, the last, 1, the one before it, ...), each once; `parts`
/// or more past the last.
fn part_taken(taken: usize, parts: usize) -> usize {
    match taken {
        t if t >= parts => parts,
        t if t % 2 == 0 => t / 2,
        t => parts - 1 - t / 2,
    }
}

/// [`HotParts::rank`]'s work on the part `first..end`.
fn rank_part<E: From<StoreError>>(
    layout: &Layout,
    first: u64,
    end: u64,
    take: usize,
    degree: &(impl RankDegrees + ?Sized),
    by_id: bool,
    mut sink: impl FnMut(u64, &[u32]) -> Result<(), E>,
) -> Result<(), E> {
    if first == end {
        return Ok(()); // no lists: no scan opened (its read-ahead would be wasted)
    }
    let mut scan = layout.scan_range(first, end)?;
    let mut scratch = Vec::new();
    if by_id {
        // no lookups to prefetch: each list ranked where the scan decoded
        // it, and only its first `take` decoded (the hottest of an
        // ascending list)
        let mut ids = Vec::with_capacity(take);
        while let Some((v, list, _)) = scan.next_list_prefix(take)? {
            rank_by_id(list, take, degree, &mut scratch, &mut ids);
            sink(v, &ids)?;
        }
        return Ok(());
    }
    let (mut neighbours, mut bounds) = (Vec::with_capacity(PART_BATCH_ENTRIES), Vec::new());
    let mut at = first;
    while at < end {
        neighbours.clear();
        bounds.clear();
        bounds.push(0);
        while neighbours.len() < PART_BATCH_ENTRIES && bounds.len() <= PART_BATCH_ENTRIES {
            let Some((_, list, _)) = scan.next_list()? else { break };
            neighbours.reserve_exact(list.len());
            neighbours.extend_from_slice(list);
            bounds.push(neighbours.len());
        }
        if bounds.len() == 1 {
            break; // no list left (a scan yields every list up to its end)
        }
        rank_run(&neighbours, &bounds, take, degree, by_id, &mut scratch, &mut |i, ids| sink(at + i as u64, ids))?;
        at += bounds.len() as u64 - 1;
    }
    Ok(())
}

/// Why the store's hot lists cannot serve a run that samples `source`, if
/// they cannot: absent, sampled from another layout, or from an older
/// generation of it.
pub fn unusable(store: &Store, source: &str) -> Option<String> {
    let m = store.manifest();
    let Some(h) = &m.hot else {
        return Some("the store has no hot layout (`outcore layout add STORE hot` stores them)".into());
    };
    if h.source != source {
        return Some(format!("the stored hot lists sample layout {}, this run needs {source}", h.source));
    }
    let current = m.layouts.get(source).and_then(|r| m.files.get(&r.adjacency)).map(|f| f.xxh3.as_str());
    if current != Some(h.source_xxh3.as_str()) {
        return Some(format!(
            "the stored hot lists are from an older generation of layout {source} (rebuild them: `outcore layout add STORE hot`)"
        ));
    }
    None
}

/// Bytes of the first `k` columns.
pub fn column_bytes(record: &HotRecord, k: usize) -> u64 {
    record.columns.iter().take(k).map(|c| c.entries * 4).sum()
}

/// What [`load_columns`] holds beside the columns while it reads `k` of
/// them: a reader for each column read at once (one a thread of the
/// current rayon pool).
pub fn load_bytes(k: usize) -> u64 {
    k.min(rayon::current_num_threads()) as u64 * ColumnStream::bytes()
}

/// The first `k` columns, each read sequentially and checked against its
/// checksums; every id is checked against the vertex count. Columns are
/// read on every core, one reader per thread at a time
/// ([`load_bytes`]).
pub fn load_columns(store: &Store, k: usize) -> Result<Vec<Vec<u32>>, StoreError> {
    use rayon::prelude::*;
    let Some(h) = &store.manifest().hot else { return Ok(Vec::new()) };
    let n = store.vertices();
    h.columns
        .par_iter()
        .take(k)
        .map(|c| {
            let path = store.dir().join(&c.file);
            let mut column = Vec::with_capacity(c.entries as usize);
            let mut reader = SeqReader::open(&path, STREAM_CHUNK_BYTES)?;
            // a chunk at a time: chunks are whole multiples of the
            // alignment (so of an entry) up to the file's last
            let mut cut = false;
            while let Some(chunk) = reader.next_chunk()? {
                let words = chunk.chunks_exact(4);
                cut |= !words.remainder().is_empty();
                column.extend(words.map(|w| u32::from_le_bytes(w.try_into().unwrap())));
            }
            if cut || column.len() as u64 != c.entries {
                let end = if cut { " and part of one" } else { "" };
                return Err(StoreError::invalid(&path, format!("holds {} entries{end}, the manifest says {}", column.len(), c.entries)));
            }
            if let Some(i) = column.iter().position(|&u| u as u64 >= n) {
                return Err(StoreError::invalid(&path, format!("entry {i} is vertex {}, beyond the store's {n} vertices", column[i])));
            }
            Ok(column)
        })
        .collect()
}

/// One column read front to back, an entry at a time (checked against its
/// checksums as it streams in; ids checked against the vertex count).
pub struct ColumnStream {
    reader: SeqReader,
    path: std::path::PathBuf,
    vertices: u64,
}

impl ColumnStream {
    /// What a stream holds while it is open: its reader.
    pub fn bytes() -> u64 {
        SeqReader::buffer_bytes(STREAM_CHUNK_BYTES)
    }
    /// Column `j` of the store's hot layout.
    pub fn open(store: &Store, j: usize) -> Result<Self, StoreError> {
        let record = store.manifest().hot.as_ref().and_then(|h| h.columns.get(j));
        let file = record.ok_or_else(|| StoreError::invalid(store.dir(), format!("the store has no hot column {j}")))?;
        let path = store.dir().join(&file.file);
        Ok(ColumnStream { reader: SeqReader::open(&path, STREAM_CHUNK_BYTES)?, path, vertices: store.vertices() })
    }

    /// Bytes of the column read so far (a scan reads it to its end).
    pub fn bytes_read(&self) -> u64 {
        self.reader.position()
    }

    /// The next entry; an error past the column's end.
    pub fn next_entry(&mut self) -> Result<u32, StoreError> {
        let Some(entry) = self.reader.next_word::<4>()? else {
            return Err(StoreError::invalid(&self.path, "ends before the vertices its layout's degrees give"));
        };
        let u = u32::from_le_bytes(entry);
        if u as u64 >= self.vertices {
            return Err(StoreError::invalid(&self.path, format!("holds vertex {u}, beyond the store's {} vertices", self.vertices)));
        }
        Ok(u)
    }
}

#[cfg(test)]
mod tests {
    use super::{degrees_descend, hottest, part_taken};
    use proptest::prelude::*;

    /// Lanes take every part once, from both ends in turn, then none.
    #[test]
    fn parts_are_taken_from_both_ends_in_turn() {
        for parts in 0..10usize {
            let taken: Vec<usize> = (0..parts + 3).map(|t| part_taken(t, parts)).collect();
            let mut each = taken[..parts].to_vec();
            each.sort();
            assert_eq!(each, (0..parts).collect::<Vec<_>>(), "{parts} parts: {taken:?}");
            assert!(taken[parts..].iter().all(|&p| p == parts), "{parts} parts: {taken:?}");
            for (t, &p) in taken[..parts].iter().enumerate() {
                assert_eq!(p, if t % 2 == 0 { t / 2 } else { parts - 1 - t / 2 }, "{parts} parts: {taken:?}");
            }
        }
        assert_eq!((0..8).map(|t| part_taken(t, 8)).collect::<Vec<_>>(), [0, 7, 1, 6, 2, 5, 3, 4]);
    }

    /// The check that lets a degree-ordered store's ranking skip every
    /// lookup: ties and zeros descend, one rise anywhere does not.
    #[test]
    fn degrees_descend_only_when_none_rises() {
        assert!(degrees_descend(&[5u32, 3, 3, 1, 0, 0][..]));
        assert!(degrees_descend(&[] as &[u32]));
        assert!(degrees_descend(&[u32::MAX, 7][..]));
        assert!(!degrees_descend(&[1u32, 2][..]));
        assert!(!degrees_descend(&[9u32, 4, 4, 5, 0][..]));
    }

    /// The plain definition: every neighbour sorted by descending degree,
    /// then by id, the first `take` kept.
    fn by_sorting(nbrs: &[u64], degrees: &[u64], take: usize) -> Vec<(u64, u32)> {
        let mut all: Vec<(u64, u32)> = nbrs.iter().map(|&u| (degrees[u as usize], u as u32)).collect();
        all.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        all.truncate(take);
        all
    }

    proptest! {
        /// Any order of the list (ascending, as decoders give it, or not),
        /// ties in degree, repeated ids, a take beyond the list's length.
        #[test]
        fn hottest_is_the_sorted_lists_head(
            degrees in prop::collection::vec(0u64..6, 1..40),
            picks in prop::collection::vec(0usize..40, 0..120),
            take in 0usize..12,
            ascending in any::<bool>(),
        ) {
            let mut nbrs: Vec<u64> = picks.iter().map(|&p| (p % degrees.len()) as u64).collect();
            if ascending {
                nbrs.sort_unstable();
            }
            let mut out = vec![(7, 7)];
            hottest(&nbrs, |u| degrees[u as usize], take, &mut out);
            prop_assert_eq!(out, by_sorting(&nbrs, &degrees, take));
        }
    }

    #[test]
    fn hottest_of_nothing_is_nothing() {
        let mut out = vec![(1, 1)];
        hottest(&[], |_| 1, 3, &mut out);
        assert!(out.is_empty());
        hottest(&[4, 5], |_| 1, 0, &mut out);
        assert!(out.is_empty());
        hottest(&[4, 5, 6], |u| u % 2, 2, &mut out);
        assert_eq!(out, vec![(1, 5), (0, 4)]);
    }
}
