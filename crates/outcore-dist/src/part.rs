//! A rank's part of a partitioned static store, opened for the distributed
//! analytics of [`crate::statics`]: the 1D partitioning of Beamer, Buluc,
//! Asanovic and Patterson, "Distributed Memory Breadth-First Search
//! Revisited: Enabling Bottom-Up Search" (2013), section 4. Every rank owns
//! the vertices that hash to it, and reads their out-lists from its own
//! part, on its own disk, through the semi-external traverse engine (the
//! Elias-Fano index and the block cache under the rank's `--memory`,
//! RASP run-ahead).
//!
//! A part's store also lists the vertices its arcs reach on other ranks:
//! its *ghosts*. At open every rank asks each owner, in rounds, for the
//! places of the owner's vertices it holds as ghosts in the owner's own
//! numbering, and keeps them. After that an exchange carries short
//! positions, not ids: a push sends (place at the owner, value) pairs,
//! combined per ghost before sending (PageRank's sums, WCC's and SSSP's
//! minima, BFS's parents); a pull sends the places and the owners answer
//! with their values, in the same order; and a bitmap of owned vertices
//! is gathered from every rank (BFS's bottom-up frontier). Owners keep no
//! list of who holds their vertices: each exchange names them.

use crate::comm::Comm;
use crate::dynamic::agree;
use crate::error::{DistError, Result};
use crate::manifest::part_dir;
use crate::partition::{manifest_hash, PartitionManifest, FORMAT, MANIFEST, VERSION};
use outcore_engines::traverse::{Traverse, TraverseOptions, TraverseStats};
use outcore_engines::CompactIndex;
use outcore_io::{Budget, Reservation};
use outcore_store::{Store, StoreError};
use std::path::{Path, PathBuf};
use sux::bits::BitVec;
use sux::prelude::{Rank, Rank9, Select, SelectAdapt};

/// Bytes per ghost: its owner and its place at its owner.
const BYTES_PER_GHOST: u64 = 2 + 4;

/// Bytes a part keeps per local vertex besides its original id (an
/// Elias-Fano sequence, [`OriginalIds`]): the bit that says whether this
/// rank owns it, sux's `Rank9` counters over those bits (16 bytes per 512
/// bits, and one more), and its `SelectAdapt` inventory, which finds the
/// local vertex of an owned index (at most 14 % of the bits with a
/// subinventory of 2^3 words, charged at 25 %, and a few words besides).
fn owned_bits_bytes(n: u64) -> u64 {
    let bits = n.div_ceil(64) * 8;
    bits + (n.div_ceil(512) + 1) * 16 + bits / 4 + 256
}

/// The owned bits with their rank and select structures.
type OwnedBits = SelectAdapt<Rank9>;
/// `SelectAdapt`'s subinventory: 2^3 words an inventory entry.
const SELECT_SUBINVENTORY_LOG2: usize = 3;
/// Largest `partition.json` read.
const MAX_MANIFEST_BYTES: u64 = 16 << 20;

pub struct Part<'c> {
    comm: &'c dyn Comm,
    pub dir: PathBuf,
    pub manifest: PartitionManifest,
    pub store: Store,
    /// The part's out-lists (local ids), under the rank's budget.
    pub graph: Traverse,
    /// Original id of each local vertex (the part's dense ids).
    pub original: OriginalIds,
    /// Local vertex: whether this rank owns it. Owned vertex v's owned
    /// index is the rank of v (the owned vertices before it), a ghost's
    /// ghost index v minus that: both number in local order.
    /// (Its select finds owned index i's local vertex.)
    is_owned: OwnedBits,
    /// Vertices this rank owns.
    owned_count: u32,
    /// Each ghost's owner.
    ghost_owner: Vec<u16>,
    /// Each ghost's owned index at its owner.
    remote: Vec<u32>,
    /// Owned vertices of every rank (their global indices follow rank order).
    pub owned_counts: Vec<u64>,
    /// The largest original id of the whole graph.
    largest_id: u64,
    /// Entries a round of an exchange ([`Part::push_some`],
    /// [`Part::push_all`], [`Part::pull_all`], [`Part::ask`]) sends at most.
    push_round: usize,
    round_arcs: u64,
    _charge: Reservation,
}

/// What a rank keeps besides its budget's charges: MPI's message buffers
/// and shared-memory segments (Open MPI's vader), beyond the process's
/// resident size when the budget opens.
const MPI_SLACK: u64 = 16 << 20;

/// A rank's budget: `memory`, with the process as it stands (program, MPI
/// initialised) and [`MPI_SLACK`] charged first.
pub fn rank_budget(memory: u64) -> Result<(Budget, Reservation)> {
    let budget = Budget::new(memory);
    let baseline = outcore_io::peak_rss_bytes().unwrap_or(0).max(outcore_io::PROCESS_BASELINE) + MPI_SLACK;
    let charge =
        budget.reserve("the process, MPI's buffers and shared memory", baseline).map_err(|e| DistError::Usage(format!("--memory: {e}")))?;
    Ok((budget, charge))
}

/// Where the part's vertices live, for threads (a [`Part`] holds the
/// job's transport, which stays on one thread).
#[derive(Clone, Copy)]
pub struct Places<'a> {
    is_owned: &'a OwnedBits,
    ghost_owner: &'a [u16],
    remote: &'a [u32],
    pub original: &'a OriginalIds,
}

impl Places<'_> {
    #[inline]
    pub fn place(&self, v: u32) -> Place {
        let before = self.is_owned.rank(v as usize) as u32;
        if self.is_owned[v as usize] {
            Place::Owned(before)
        } else {
            Place::Ghost(v - before)
        }
    }
    /// The local vertex of owned index `i` ([`Part::owned_vertex`]).
    #[inline]
    pub fn owned_vertex(&self, i: u32) -> u32 {
        self.is_owned.select(i as usize).expect("an owned index below the owned count") as u32
    }
    /// Ghost `g`'s owner and its owned index there.
    #[inline]
    pub fn ghost_home(&self, g: u32) -> (usize, u32) {
        (self.ghost_owner[g as usize] as usize, self.remote[g as usize])
    }
}

/// What a rank's part holds, for what an algorithm's state will take
/// before the part opens ([`Part::open`]'s `keep`) and after ([`Part::shape`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PartShape {
    /// Vertices this rank owns.
    pub owned: u64,
    /// Vertices of other ranks this part's arcs reach.
    pub ghosts: u64,
    /// Vertices of the whole graph.
    pub vertices: u64,
    pub ranks: u64,
    /// Whether the graph is directed (an undirected graph's part holds
    /// every neighbour of its owned vertices).
    pub directed: bool,
    /// The largest original id of the whole graph (ids below 2^32 - 1 fit
    /// in 4 bytes: WCC's labels).
    pub largest_id: u64,
    /// Arcs a round of [`crate::statics::par_rounds`] reads at most
    /// ([`Part::round_arcs`]): what a round's visits emit is charged per
    /// arc of it.
    pub round_arcs: u64,
}

impl PartShape {
    /// Owned vertices and ghosts.
    pub fn local(&self) -> u64 {
        self.owned + self.ghosts
    }
    /// Whether every original id of the graph fits in 4 bytes, with
    /// `u32::MAX` left over for "none".
    pub fn ids_fit_u32(&self) -> bool {
        self.largest_id < u32::MAX as u64
    }
}

/// Arcs a round of [`crate::statics::par_rounds`] reads at most, when the
/// budget has room ([`round_arcs`]); the smallest budget reads
/// [`MIN_ROUND_ARCS`] a round.
pub const ROUND_ARCS: u64 = 1 << 18;
pub const MIN_ROUND_ARCS: u64 = 1 << 14;

/// The rounds a rank reads its lists in, given the bytes its budget has
/// beyond its tables, its state at the smallest rounds and the engine's
/// smallest opening: as many arcs as an eighth of that holds at
/// [`crate::statics::ROUND_BYTES`] an arc, a power of two from
/// [`MIN_ROUND_ARCS`] to [`ROUND_ARCS`] (the cache takes the rest).
pub fn round_arcs(spare: u64) -> u64 {
    let fits = spare / 8 / crate::statics::ROUND_BYTES;
    if fits < MIN_ROUND_ARCS {
        MIN_ROUND_ARCS
    } else {
        (1u64 << fits.ilog2()).min(ROUND_ARCS)
    }
}

/// The traverse engine's options for rounds of `round_arcs` arcs: a list
/// longer than a round is read alone ([`crate::statics::par_rounds`]), so
/// the parallel readers need room for a round's lists only.
fn engine_options(round_arcs: u64) -> TraverseOptions {
    TraverseOptions { parallel_longest: Some(round_arcs), ..Default::default() }
}

/// Entries a rank sends, and at most receives, in one round of an
/// exchange ([`Part::push_some`], [`Part::push_all`], [`Part::pull_all`],
/// [`Part::ask`]; past that many ranks, one from each).
pub const PUSH_ROUND_ENTRIES: usize = 1 << 15;

/// The bytes one round of [`Part::push_some`] (`words` words an entry,
/// besides its position; [`Part::push_all`] is 1) holds at its peak at
/// `ranks` ranks: what is sent, the
/// transport's flat copy, what it receives and the copy handed back. One
/// rank has no ghosts, so nothing to exchange.
pub fn push_round_bytes(words: u64, ranks: u64) -> u64 {
    if ranks < 2 {
        return 0;
    }
    4 * ((PUSH_ROUND_ENTRIES as u64).max(ranks) * (words + 1) + ranks) * 8
}

/// The bytes one round of [`Part::ask`] or [`Part::pull_all`] holds at
/// its peak at `ranks` ranks: the questions sent, the transport's flat
/// copy and what arrives,
/// then the answers the same way.
pub fn ask_round_bytes(ranks: u64) -> u64 {
    4 * ((PUSH_ROUND_ENTRIES as u64).max(ranks) + ranks) * 8
}

/// Where a vertex of the part lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    Owned(u32),
    Ghost(u32),
}

/// The original ids of a part's local vertices, which ascend with the
/// local ids: an Elias-Fano sequence (about 2 + log2(id range / vertices)
/// bits a vertex, not 64; a select a lookup).
pub struct OriginalIds(CompactIndex);

impl OriginalIds {
    /// The original id of local vertex `v`.
    #[inline]
    pub fn get(&self, v: u32) -> u64 {
        self.0.get(v as u64)
    }
    pub fn len(&self) -> usize {
        self.0.len() as usize
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// The first of positions `lo..hi` whose key is at least `id` (`hi` if none).
fn first_at_least(key: &impl Fn(usize) -> u64, id: u64, mut lo: usize, mut hi: usize) -> usize {
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if key(mid) < id {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The position of original id `id` among `count` vertices (owned, or
/// all local) whose ids, `key(position)`, ascend (as a part's local ids
/// ascend with the original ids): a binary search.
fn position_of(key: impl Fn(usize) -> u64, count: usize, id: u64) -> Option<u32> {
    let at = first_at_least(&key, id, 0, count);
    (at < count && key(at) == id).then_some(at as u32)
}

/// [`position_of`] among owned vertices, for ids that mostly ascend:
/// `cursor` holds the owned
/// position the last search ended at and the id it searched for; an id
/// above that gallops on from there (a few lookups when ids are dense, as
/// a sorted list of questions is), any other searches from the start.
fn find_owned_after(key: impl Fn(usize) -> u64, count: usize, id: u64, cursor: &mut (usize, u64)) -> Option<u32> {
    // every owned position before `lo` holds a smaller id
    let mut lo = if id > cursor.1 { cursor.0 } else { 0 };
    let (mut probe, mut step) = (lo, 1usize);
    while probe < count && key(probe) < id {
        lo = probe + 1;
        probe = lo + step;
        step *= 2;
    }
    let at = first_at_least(&key, id, lo, (probe + 1).min(count));
    *cursor = (at, id);
    (at < count && key(at) == id).then_some(at as u32)
}

/// Questions to other ranks, answered in rounds, a collective: question
/// `k` of `count` is one word, `word(k)` (called once for each, in the
/// order of `k`), asked of rank `owner(k)`; a rank answers the words
/// rank q asks with `answer(q, word)`, in the order they come; `receive(k, answer)` takes question k's answer.
/// A round carries at most `share` questions to each rank, and as many
/// answers back, whatever `count` is; every rank takes part until none
/// has questions left.
fn ask_in_rounds(
    comm: &dyn Comm,
    share: usize,
    count: usize,
    owner: impl Fn(usize) -> usize,
    mut word: impl FnMut(usize) -> u64,
    mut answer: impl FnMut(usize, u64) -> u64,
    mut receive: impl FnMut(usize, u64),
) {
    let p = comm.size();
    let mut next = 0;
    loop {
        let first = next;
        let room = share.min(count - next) + 1;
        let mut send: Vec<Vec<u64>> = (0..p).map(|_| Vec::with_capacity(room)).collect();
        while next < count {
            let r = owner(next);
            if send[r].len() == share {
                break;
            }
            send[r].push(word(next));
            next += 1;
        }
        // each asker's last word: whether it has more to ask
        for s in &mut send {
            s.push((next < count) as u64);
        }
        let mut again = false;
        let replies: Vec<Vec<u64>> = comm
            .all_to_all(&send)
            .into_iter()
            .enumerate()
            .map(|(q, asked)| {
                let (&more, asked) = asked.split_last().expect("every rank sends its last word");
                again |= more != 0;
                asked.iter().map(|&word| answer(q, word)).collect()
            })
            .collect();
        drop(send);
        let got = comm.all_to_all(&replies);
        drop(replies);
        let mut at = vec![0usize; p];
        for k in first..next {
            let r = owner(k);
            receive(k, got[r][at[r]]);
            at[r] += 1;
        }
        if !again {
            return;
        }
    }
}

fn corrupt(path: &Path, why: impl std::fmt::Display) -> DistError {
    DistError::Corrupt(format!("{}: {why}", path.display()))
}

/// This rank's `partition.json`, checked against its part and rank.
fn read_manifest(dir: &Path, rank: usize, ranks: usize) -> Result<PartitionManifest> {
    let path = dir.join(MANIFEST);
    let meta = std::fs::symlink_metadata(&path)
        .map_err(|e| DistError::Usage(format!("{}: {e}: not a part of a partitioned store (the part of rank {rank})", path.display())))?;
    if !meta.is_file() || meta.len() > MAX_MANIFEST_BYTES {
        return Err(corrupt(&path, "not a partition manifest (a link, or larger than one)"));
    }
    let text = std::fs::read_to_string(&path).map_err(|e| corrupt(&path, e))?;
    let m: PartitionManifest = serde_json::from_str(&text).map_err(|e| corrupt(&path, format!("not a partition manifest ({e})")))?;
    if m.format != FORMAT || m.version != VERSION {
        return Err(corrupt(&path, format!("format {} version {}, this outcore reads {FORMAT} version {VERSION}", m.format, m.version)));
    }
    if m.ranks != ranks {
        return Err(DistError::Usage(format!("{}: the store has {} parts, this job {ranks} ranks", path.display(), m.ranks)));
    }
    if m.rank != rank || m.parts.len() != ranks || m.parts[rank].rank != rank {
        return Err(corrupt(&path, format!("is the part of rank {}, opened as rank {rank}", m.rank)));
    }
    if manifest_hash(dir)? != m.parts[rank].manifest_xxh3 {
        return Err(corrupt(dir, "its store is not the one the partition recorded (checksum mismatch)"));
    }
    Ok(m)
}

impl<'c> Part<'c> {
    /// Open this rank's part at `pattern` (`{rank}` replaced), a
    /// collective. The part's own tables are charged to `budget`, then
    /// `keep(the part's shape)` bytes are left
    /// for the algorithm's state, and the traverse engine's index and
    /// cache take the rest.
    pub fn open(comm: &'c dyn Comm, pattern: &str, budget: &Budget, keep: impl Fn(&PartShape) -> u64) -> Result<Part<'c>> {
        Self::open_sharing(comm, pattern, budget, keep, 0.0)
    }

    /// [`Part::open`], with the fraction `spare` of what the budget leaves
    /// beyond the tables, the state and the engine's smallest opening kept
    /// out of the engine's cache too, for what the algorithm builds when
    /// there is room (BFS's hot lists).
    pub fn open_sharing(
        comm: &'c dyn Comm,
        pattern: &str,
        budget: &Budget,
        keep: impl Fn(&PartShape) -> u64,
        spare: f64,
    ) -> Result<Part<'c>> {
        let dir = part_dir(pattern, comm.rank(), comm.size());
        Self::open_at(comm, dir, budget, keep, spare)
    }

    /// [`Part::open_sharing`] with this rank's directory given (or why it is not).
    pub fn open_at(
        comm: &'c dyn Comm,
        dir: Result<PathBuf>,
        budget: &Budget,
        keep: impl Fn(&PartShape) -> u64,
        spare: f64,
    ) -> Result<Part<'c>> {
        let (rank, ranks) = (comm.rank(), comm.size());
        let opened = (|| {
            let dir = dir?;
            let manifest = read_manifest(&dir, rank, ranks)?;
            // what runs killed outright left here (PageRank's rank files)
            outcore_io::staging::sweep(&dir);
            let store = Store::open(&dir).map_err(|e| DistError::Ingest(e.into()))?;
            if store.manifest().arcs != manifest.parts[rank].arcs {
                return Err(corrupt(&dir, "holds another number of arcs than the partition recorded"));
            }
            Ok((dir, manifest, store))
        })();
        let (dir, manifest, store) = agree(comm, opened)?;
        // every part of one partitioned store, rank 0's
        let identity = serde_json::to_vec(&(&manifest.source, &manifest.parts)).expect("serializes");
        let theirs = comm.broadcast(0, &identity);
        agree(comm, if theirs == identity { Ok(()) } else { Err(corrupt(&dir, "is a part of another partitioned store than rank 0's")) })?;
        // the graph's largest id: each part's last (a part's ids ascend,
        // which its tables check)
        let last = match store.vertices() {
            0 => Ok(0),
            n => store.ids().and_then(|ids| ids.original(n - 1)).map_err(|e| DistError::Ingest(e.into())),
        };
        let largest_id = comm.max(&[agree(comm, last)?])[0];
        let local = agree(comm, Self::tables(&store, &manifest, (rank, ranks), budget, &keep, &dir, largest_id))?;
        let (original, owned_bits, ghost_owner, charge) = local;
        let is_owned = SelectAdapt::new(Rank9::new(owned_bits), SELECT_SUBINVENTORY_LOG2);
        let n = original.len();
        let owned = (n - ghost_owner.len()) as u32;
        let owned_id = |k: usize| original.get(is_owned.select(k).expect("an owned index below the count") as u32);
        // ask each owner, in rounds, for the place of each ghost in its
        // numbering; ghosts ascend in original id, so each asker's
        // questions do, and each is found by galloping on from the last
        let mut ghost_ids = (0..n as u32).filter(|&v| !is_owned[v as usize]).map(|v| original.get(v));
        let ghost_count = ghost_owner.len();
        let mut cursors = vec![(0usize, 0u64); ranks];
        let mut missing = None;
        let mut remote = vec![0u32; ghost_owner.len()];
        ask_in_rounds(
            comm,
            (PUSH_ROUND_ENTRIES / ranks).max(1),
            ghost_count,
            |g| ghost_owner[g] as usize,
            // asked in ghost order: the ghosts' ids come from one scan
            |_| ghost_ids.next().expect("a ghost for each question"),
            |q, id| match find_owned_after(owned_id, owned as usize, id, &mut cursors[q]) {
                Some(i) => i as u64,
                None => {
                    missing.get_or_insert((q, id));
                    0
                }
            },
            |g, i| remote[g] = i as u32,
        );
        agree(
            comm,
            match missing {
                None => Ok(()),
                Some((q, id)) => Err(corrupt(&dir, format!("lacks vertex {id}, which the part of rank {q} reaches and this rank owns"))),
            },
        )?;
        let owned_counts =
            comm.all_gather(&(owned as u64).to_le_bytes()).iter().map(|b| u64::from_le_bytes(b[..8].try_into().unwrap())).collect();
        let opened = (|| {
            let shape = |round_arcs| PartShape {
                owned: owned as u64,
                ghosts: ghost_count as u64,
                vertices: manifest.vertices,
                ranks: ranks as u64,
                directed: manifest.directed,
                largest_id,
                round_arcs,
            };
            let smallest = Traverse::min_bytes_with(&store, "out", &engine_options(MIN_ROUND_ARCS))?;
            let round_arcs = round_arcs(budget.available().saturating_sub(keep(&shape(MIN_ROUND_ARCS)) + smallest));
            let state = keep(&shape(round_arcs));
            let spared = (budget.available().saturating_sub(state + smallest) as f64 * spare.clamp(0.0, 1.0)) as u64;
            Ok((Traverse::open(&store, "out", budget, &engine_options(round_arcs), state + spared)?, round_arcs))
        })();
        let (graph, round_arcs) = agree(comm, opened.map_err(|e: StoreError| DistError::Ingest(e.into())))?;
        Ok(Part {
            comm,
            dir,
            manifest,
            store,
            graph,
            original,
            is_owned,
            owned_count: owned,
            ghost_owner,
            remote,
            owned_counts,
            largest_id,
            push_round: PUSH_ROUND_ENTRIES,
            round_arcs,
            _charge: charge,
        })
    }

    /// The part with its exchanges in rounds of at most `entries` entries
    /// (at least 1) instead of [`PUSH_ROUND_ENTRIES`]: less memory a
    /// round, more rounds (the tests use it to run several).
    pub fn with_push_round(mut self, entries: usize) -> Self {
        self.push_round = entries.clamp(1, PUSH_ROUND_ENTRIES);
        self
    }

    /// The part with its lists read in rounds of at most `arcs` arcs
    /// (at least 1) instead of what the budget allowed at open: more
    /// rounds (the tests use it to run several). Its charge was for the
    /// larger rounds, so it still covers them.
    pub fn with_round_arcs(mut self, arcs: u64) -> Self {
        self.round_arcs = arcs.clamp(1, self.round_arcs);
        self
    }

    /// Arcs a round of [`crate::statics::par_rounds`] reads at most.
    pub fn round_arcs(&self) -> u64 {
        self.round_arcs
    }

    /// The part's original ids, which of its vertices this rank owns and
    /// each ghost's owner, charged to `budget`.
    #[allow(clippy::type_complexity)]
    fn tables(
        store: &Store,
        m: &PartitionManifest,
        (rank, ranks): (usize, usize),
        budget: &Budget,
        keep: &dyn Fn(&PartShape) -> u64,
        dir: &Path,
        largest_id: u64,
    ) -> Result<(OriginalIds, BitVec, Vec<u16>, Reservation)> {
        let n = store.vertices();
        if n >= u32::MAX as u64 {
            return Err(corrupt(dir, format!("{n} vertices: a part holds fewer than 2^32")));
        }
        if ranks > u16::MAX as usize + 1 {
            return Err(DistError::Usage(format!("{ranks} ranks: at most 65536")));
        }
        // every charge of the run at once, so that a budget too small
        // names the whole of what would work, not one stage's share
        let ingest = |e: StoreError| DistError::Ingest(e.into());
        let mut owned_bits = BitVec::with_capacity(n as usize);
        let mut ghost_owner = Vec::new();
        let mut last: Option<u64> = None;
        let mut ids = store.ids().and_then(|i| i.stream()).map_err(ingest)?;
        while let Some(id) = ids.next_id().map_err(ingest)? {
            if let Some(before) = last.filter(|&before| before >= id) {
                // an import numbers vertices in ascending original id; a
                // part renumbered since is not the one the partition wrote
                return Err(corrupt(dir, format!("its id map does not ascend (vertex {id} after {before})")));
            }
            if owned_bits.len() as u64 == n {
                return Err(corrupt(dir, "its id map is longer than its vertex count"));
            }
            last = Some(id);
            let owner = m.owner.rank_of(id, ranks);
            owned_bits.push(owner == rank);
            if owner != rank {
                ghost_owner.push(owner as u16);
            }
        }
        if owned_bits.len() as u64 != n {
            return Err(corrupt(dir, "its id map is shorter than its vertex count"));
        }
        // (charged at 2 bytes a ghost: not what doubling left spare)
        ghost_owner.shrink_to_fit();
        let ghosts = ghost_owner.len() as u64;
        let owned = n - ghosts;
        let largest = last.unwrap_or(0);
        let tables = owned_bits_bytes(n) + CompactIndex::bytes(n, largest, false) + ghosts * BYTES_PER_GHOST;
        // the smallest budget has the smallest rounds
        let shape = PartShape {
            owned,
            ghosts,
            vertices: m.vertices,
            ranks: ranks as u64,
            directed: m.directed,
            largest_id,
            round_arcs: MIN_ROUND_ARCS,
        };
        let state = keep(&shape);
        let engine = Traverse::min_bytes_with(store, "out", &engine_options(MIN_ROUND_ARCS)).map_err(|e| DistError::Ingest(e.into()))?;
        let need = budget.used() + tables + state + engine;
        if need > budget.total() {
            let f = outcore_io::format_bytes;
            return Err(DistError::Usage(format!(
                "{}: memory budget {} too small: the process and MPI ({}), the part's tables ({}), the algorithm's state ({}) and the traverse engine's index and smallest cache ({}); the smallest budget that would work is {} MiB",
                dir.display(),
                f(budget.total()),
                f(budget.used()),
                f(tables),
                f(state),
                f(engine),
                // rounded up, with a MiB for the process's own growth
                // (its resident size when the budget opens varies by run)
                need.div_ceil(1 << 20) + 1
            )));
        }
        let charge = budget
            .reserve("the part's owners and ghosts", tables - CompactIndex::bytes(n, largest, false))
            .map_err(|e| ingest(StoreError::from(e)))?;
        // the original ids, read again into their sequence (which charges itself)
        let original = CompactIndex::build(dir, n, largest, 0, budget, |push| {
            let mut ids = store.ids()?.stream()?;
            while let Some(id) = ids.next_id()? {
                push(id)?;
            }
            Ok(())
        })
        .map_err(ingest)?;
        Ok((OriginalIds(original), owned_bits, ghost_owner, charge))
    }

    pub fn comm(&self) -> &'c dyn Comm {
        self.comm
    }
    pub fn rank(&self) -> usize {
        self.comm.rank()
    }
    /// Vertices of the whole graph.
    pub fn vertices(&self) -> u64 {
        self.owned_counts.iter().sum()
    }
    pub fn weighted(&self) -> bool {
        self.manifest.weighted
    }
    pub fn directed(&self) -> bool {
        self.manifest.directed
    }
    pub fn place(&self, v: u32) -> Place {
        self.places().place(v)
    }
    /// [`Part::place`] for other threads, and each ghost's home
    /// ([`Places::ghost_home`]).
    pub fn places(&self) -> Places<'_> {
        Places { is_owned: &self.is_owned, ghost_owner: &self.ghost_owner, remote: &self.remote, original: &self.original }
    }
    /// Vertices this rank owns.
    pub fn owned_count(&self) -> u32 {
        self.owned_count
    }
    /// The local vertex of owned index `i` (below [`Part::owned_count`]).
    #[inline]
    pub fn owned_vertex(&self, i: u32) -> u32 {
        self.places().owned_vertex(i)
    }
    /// Owned vertices among local vertices `0..v` (`v` at most the part's
    /// vertices): the owned index of `v`, if owned, or of the next owned.
    pub fn owned_before(&self, v: u32) -> u32 {
        self.is_owned.rank(v as usize) as u32
    }
    /// The original id of owned vertex `i`.
    pub fn owned_id(&self, i: u32) -> u64 {
        self.original.get(self.owned_vertex(i))
    }
    /// The owned index of the vertex with original id `id`, if this rank owns it.
    pub fn find_owned(&self, id: u64) -> Option<u32> {
        position_of(|k| self.owned_id(k as u32), self.owned_count as usize, id)
    }
    /// The local vertex with original id `id`, if the part holds it: a
    /// binary search of the original ids.
    pub fn find_local(&self, id: u64) -> Option<u32> {
        position_of(|v| self.original.get(v as u32), self.original.len(), id)
    }
    /// The rank that owns original id `id`.
    pub fn owner(&self, id: u64) -> usize {
        self.manifest.owner.rank_of(id, self.comm.size())
    }
    pub fn ghost_count(&self) -> usize {
        self.ghost_owner.len()
    }
    pub fn shape(&self) -> PartShape {
        PartShape {
            owned: self.owned_count as u64,
            ghosts: self.ghost_count() as u64,
            vertices: self.vertices(),
            ranks: self.comm.size() as u64,
            directed: self.directed(),
            largest_id: self.largest_id,
            round_arcs: self.round_arcs,
        }
    }
    pub fn stats(&self) -> TraverseStats {
        self.graph.stats()
    }

    /// Every ghost's value (`value(ghost index)`) to its owner, as
    /// [`Part::push_some`] with every ghost, in ghost order.
    pub fn push_all(&self, value: impl Fn(u32) -> u64, mut apply: impl FnMut(u32, u64)) {
        self.push_some((0..self.ghost_count() as u32).map(|g| (g, [value(g)])), |i, [x]| apply(i, x));
    }

    /// Entries a round of an exchange carries to each rank: a 1/P share
    /// of the round, so that what a rank receives is bounded too.
    fn round_share(&self) -> usize {
        (self.push_round / self.comm.size()).max(1)
    }

    /// Some ghosts' values to their owners: `entries`, each a ghost index
    /// (a ghost at most once) and `W` words, in exchange rounds that each
    /// hold at most [`PUSH_ROUND_ENTRIES`] entries a rank (or as
    /// [`Part::with_push_round`] sets), sent or received, however many
    /// there are; `apply(owned index, words)` for each that arrives, sender
    /// by sender in rank order within a round. Every rank calls it, with
    /// or without entries.
    pub fn push_some<const W: usize>(&self, entries: impl Iterator<Item = (u32, [u64; W])>, mut apply: impl FnMut(u32, [u64; W])) {
        let p = self.comm.size();
        let share = self.round_share();
        let mut entries = entries.peekable();
        loop {
            let mut send: Vec<Vec<u64>> = (0..p).map(|_| Vec::new()).collect();
            while let Some(&(g, _)) = entries.peek() {
                let r = self.ghost_owner[g as usize] as usize;
                if send[r].len() == share * (W + 1) {
                    break;
                }
                let (_, words) = entries.next().expect("peeked");
                if send[r].is_empty() {
                    send[r].reserve_exact(share * (W + 1) + 1);
                }
                // the ghost's owned index at its owner
                send[r].push(self.remote[g as usize] as u64);
                send[r].extend_from_slice(&words);
            }
            // each sender's last word: whether it has more to send
            let more = entries.peek().is_some();
            for s in &mut send {
                s.push(more as u64);
            }
            let mut again = false;
            for got in self.comm.all_to_all(&send) {
                let (&more, got) = got.split_last().expect("every rank sends its last word");
                again |= more != 0;
                for e in got.chunks_exact(W + 1) {
                    apply(e[0] as u32, e[1..].try_into().expect("W words"));
                }
            }
            if !again {
                return;
            }
        }
    }

    /// Every ghost's owner's value (`value(owned index)` on the owner): the
    /// values of this part's ghosts, in ghost order. Each ghost's place
    /// at its owner is sent, and the owner answers, in rounds as
    /// [`Part::ask`]'s. Every rank calls it.
    pub fn pull_all(&self, value: impl Fn(u32) -> u64) -> Vec<u64> {
        let mut values = vec![0u64; self.ghost_count()];
        self.pull_each(value, |g, x| values[g as usize] = x);
        values
    }

    /// [`Part::pull_all`], handing each ghost's value to `receive(ghost
    /// index, value)` (to keep in a narrower type).
    pub fn pull_each(&self, value: impl Fn(u32) -> u64, mut receive: impl FnMut(u32, u64)) {
        ask_in_rounds(
            self.comm,
            self.round_share(),
            self.ghost_count(),
            |g| self.ghost_owner[g] as usize,
            |g| self.remote[g] as u64,
            |_, i| value(i as u32),
            |g, x| receive(g as u32, x),
        );
    }

    /// Values of the owned vertices with original ids `ids`, asked of their
    /// owners: `value(owned index)` on the owner; in the order of `ids`.
    /// Every id must be a vertex. In rounds: a round holds at most
    /// [`PUSH_ROUND_ENTRIES`] questions and as many answers a rank (or as
    /// [`Part::with_push_round`] sets), whatever the length of `ids`.
    /// Every rank calls it.
    pub fn ask(&self, ids: &[u64], value: impl Fn(u32) -> u64) -> Result<Vec<u64>> {
        let mut answers = vec![0u64; ids.len()];
        let mut missing = None;
        // questions come ascending when the asker's ids do: each found by
        // galloping on from the last of its asker
        let mut cursors = vec![(0usize, 0u64); self.comm.size()];
        ask_in_rounds(
            self.comm,
            self.round_share(),
            ids.len(),
            |k| self.owner(ids[k]),
            |k| ids[k],
            |q, id| match find_owned_after(|k| self.owned_id(k as u32), self.owned_count as usize, id, &mut cursors[q]) {
                Some(i) => value(i),
                None => {
                    missing.get_or_insert(id);
                    0
                }
            },
            |k, x| answers[k] = x,
        );
        agree(
            self.comm,
            match missing {
                None => Ok(()),
                Some(id) => Err(corrupt(&self.dir, format!("lacks vertex {id}, which another rank asked of its owner"))),
            },
        )?;
        Ok(answers)
    }

    /// Every rank's bitmap of its owned vertices (bit i: owned index i), in rank order.
    pub fn gather_bitmaps(&self, mine: &[u8]) -> Vec<Vec<u8>> {
        self.comm.all_gather(mine)
    }
}

/// A bitmap of `n` bits.
pub fn bitmap(n: usize) -> Vec<u8> {
    vec![0u8; n.div_ceil(8)]
}
#[inline]
pub fn bit(map: &[u8], i: u32) -> bool {
    map[(i / 8) as usize] >> (i % 8) & 1 == 1
}
#[inline]
pub fn set_bit(map: &mut [u8], i: u32) {
    map[(i / 8) as usize] |= 1 << (i % 8);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Galloping from the last search finds what a plain search of the
    /// owned ids finds, for questions ascending, repeated, descending and
    /// scattered, present or not.
    /// Rounds grow with the room a budget has, in powers of two, from the
    /// smallest (no room) to [`ROUND_ARCS`] (room to spare), never past
    /// an eighth of the room.
    #[test]
    fn rounds_take_an_eighth_of_the_room() {
        let bytes = |arcs: u64| arcs * crate::statics::ROUND_BYTES;
        assert_eq!(round_arcs(0), MIN_ROUND_ARCS);
        assert_eq!(round_arcs(8 * bytes(MIN_ROUND_ARCS) - 1), MIN_ROUND_ARCS);
        assert_eq!(round_arcs(8 * bytes(4 * MIN_ROUND_ARCS)), 4 * MIN_ROUND_ARCS);
        assert_eq!(round_arcs(8 * bytes(4 * MIN_ROUND_ARCS) - 1), 2 * MIN_ROUND_ARCS);
        assert_eq!(round_arcs(u64::MAX), ROUND_ARCS);
        let mut last = 0;
        for room in (0..40).map(|k| 1u64 << k) {
            let r = round_arcs(room);
            assert!(r.is_power_of_two() && r >= last && r <= ROUND_ARCS, "{room} bytes: {r} arcs");
            assert!(r == MIN_ROUND_ARCS || 8 * bytes(r) <= room, "{room} bytes: {r} arcs");
            last = r;
        }
    }

    #[test]
    fn galloping_finds_what_a_search_finds() {
        let ids: Vec<u64> = (0..5000u64).map(|v| v * 7 + v % 7).collect();
        let budget = Budget::unlimited();
        let original = OriginalIds(
            CompactIndex::build(Path::new("ids"), ids.len() as u64, *ids.last().unwrap(), 0, &budget, |push| {
                ids.iter().try_for_each(|&id| push(id))
            })
            .unwrap(),
        );
        let owned: Vec<u32> = (0..ids.len() as u32).filter(|v| v % 3 != 1).collect();
        let plain = |id: u64| owned.binary_search_by_key(&id, |&v| ids[v as usize]).ok().map(|k| k as u32);
        let mut rng = outcore_io::SplitMix64(3);
        let scattered: Vec<u64> = (0..3000).map(|_| rng.next_u64() % 40_000).collect();
        let mut ascending = scattered.clone();
        ascending.sort_unstable();
        let descending: Vec<u64> = ascending.iter().rev().copied().collect();
        for questions in [ascending, descending, scattered, vec![8, 8, 8, 0, 0, 34_999, 34_993, u64::MAX, 2]] {
            let mut cursor = (0, 0);
            for &id in &questions {
                let key = |k: usize| original.get(owned[k]);
                assert_eq!(find_owned_after(key, owned.len(), id, &mut cursor), plain(id), "id {id}");
                assert_eq!(position_of(key, owned.len(), id), plain(id), "id {id}");
            }
        }
    }
}
