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
//! its *ghosts*. At open every rank tells each owner which of the owner's
//! vertices it holds as ghosts, and the owner answers with their places in
//! its own numbering. After that an exchange carries values without ids,
//! or with short positions: a push combines per ghost before sending
//! (PageRank's sums, WCC's and SSSP's minima, BFS's parents), a pull
//! brings the owners' values to every rank that holds a ghost of them, and
//! a bitmap of owned vertices is gathered from every rank (BFS's
//! bottom-up frontier).

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
use sux::prelude::{Rank, Rank9};

/// Bytes per owned vertex (its local id; a search by original id is a
/// search of these, as a part's local ids ascend with the original ids)
/// and per ghost (its owner, its place at its owner, its place in its
/// owner's group, and the owner's list of it).
const BYTES_PER_OWNED: u64 = 4;
const BYTES_PER_GHOST: u64 = 2 + 4 + 4 + 4;

/// Bytes a part keeps per local vertex besides its original id (an
/// Elias-Fano sequence, [`OriginalIds`]): the bit that says whether this
/// rank owns it, and sux's `Rank9` counters over those bits (16 bytes per
/// 512 bits, and one more).
fn owned_bits_bytes(n: u64) -> u64 {
    n.div_ceil(64) * 8 + (n.div_ceil(512) + 1) * 16
}
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
    is_owned: Rank9,
    /// Owned local vertices, ascending.
    pub owned: Vec<u32>,
    /// Each ghost's owner.
    ghost_owner: Vec<u16>,
    /// Each ghost's owned index at its owner.
    remote: Vec<u32>,
    /// Ghost indices grouped by owner, ascending within a group: the order
    /// the owner's `requested` list of them follows.
    group: Vec<u32>,
    /// Each rank's group: `group[ghost_start[r]..ghost_start[r + 1]]`.
    ghost_start: Vec<usize>,
    /// Per rank q: owned indices of the vertices q holds as ghosts, in q's ghost order.
    requested: Vec<Vec<u32>>,
    /// Owned vertices of every rank (their global indices follow rank order).
    pub owned_counts: Vec<u64>,
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
    is_owned: &'a Rank9,
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

/// Entries a rank sends, and at most receives, in one round of an
/// exchange ([`Part::push_some`], [`Part::push_all`], [`Part::pull_all`],
/// [`Part::ask`]; past that many ranks, one from each).
pub const PUSH_ROUND_ENTRIES: usize = 1 << 15;

/// The bytes one round of [`Part::push_some`] (`words` words an entry),
/// or of [`Part::push_all`] or [`Part::pull_all`] (`words` 0: a value and
/// no position), holds at its peak at `ranks` ranks: what is sent, the
/// transport's flat copy, what it receives and the copy handed back. One
/// rank has no ghosts, so nothing to exchange.
pub fn push_round_bytes(words: u64, ranks: u64) -> u64 {
    if ranks < 2 {
        return 0;
    }
    4 * ((PUSH_ROUND_ENTRIES as u64).max(ranks) * (words + 1) + ranks) * 8
}

/// The bytes one round of [`Part::ask`] holds at its peak at `ranks`
/// ranks: the questions sent, the transport's flat copy and what arrives,
/// then the answers the same way.
pub fn ask_round_bytes(ranks: u64) -> u64 {
    4 * ((PUSH_ROUND_ENTRIES as u64).max(ranks) + ranks) * 8
}

/// Positions `lo..hi` of a list of `len` that round `round` of `share`
/// a round carries (empty past its end).
fn round_of(len: usize, share: usize, round: u64) -> (usize, usize) {
    let lo = (round as usize).saturating_mul(share).min(len);
    (lo, (lo + share).min(len))
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

/// The owned index of original id `id`: a search of `owned`, whose
/// original ids ascend with the local ids.
fn find_owned(original: &OriginalIds, owned: &[u32], id: u64) -> Option<u32> {
    owned.binary_search_by_key(&id, |&v| original.get(v)).ok().map(|k| k as u32)
}

/// [`find_owned`] for ids that mostly ascend: `cursor` holds the owned
/// position the last search ended at and the id it searched for; an id
/// above that gallops on from there (a few lookups when ids are dense, as
/// a sorted list of questions is), any other searches from the start.
fn find_owned_after(original: &OriginalIds, owned: &[u32], id: u64, cursor: &mut (usize, u64)) -> Option<u32> {
    let key = |k: usize| original.get(owned[k]);
    // every owned position before `lo` holds a smaller id
    let mut lo = if id > cursor.1 { cursor.0 } else { 0 };
    let (mut probe, mut step) = (lo, 1usize);
    while probe < owned.len() && key(probe) < id {
        lo = probe + 1;
        probe = lo + step;
        step *= 2;
    }
    let end = (probe + 1).min(owned.len());
    let found = owned[lo..end].binary_search_by_key(&id, |&v| original.get(v));
    let at = lo + found.unwrap_or_else(|k| k);
    *cursor = (at, id);
    found.ok().map(|_| at as u32)
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
        let local = agree(comm, Self::tables(&store, &manifest, (rank, ranks), budget, &keep, &dir))?;
        let (original, owned_bits, ghost_owner, charge) = local;
        let is_owned = Rank9::new(owned_bits);
        let n = original.len();
        let mut owned = Vec::with_capacity(n - ghost_owner.len());
        owned.extend((0..n as u32).filter(|&v| is_owned[v as usize]));
        // the ghosts grouped by owner (a counting sort: ascending within a group)
        let mut ghost_start = vec![0usize; ranks + 1];
        for &r in &ghost_owner {
            ghost_start[r as usize + 1] += 1;
        }
        for r in 0..ranks {
            ghost_start[r + 1] += ghost_start[r];
        }
        let mut group = vec![0u32; ghost_owner.len()];
        let mut fill = ghost_start.clone();
        for (g, &r) in ghost_owner.iter().enumerate() {
            group[fill[r as usize]] = g as u32;
            fill[r as usize] += 1;
        }
        let find = |id: u64| find_owned(&original, &owned, id);
        // tell each owner which of its vertices this part reaches
        let mut asks: Vec<Vec<u64>> = (0..ranks).map(|r| Vec::with_capacity(ghost_start[r + 1] - ghost_start[r])).collect();
        for (g, v) in (0..n as u32).filter(|&v| !is_owned[v as usize]).enumerate() {
            asks[ghost_owner[g] as usize].push(original.get(v));
        }
        let asked = comm.all_to_all(&asks);
        drop(asks);
        let mut requested = Vec::with_capacity(ranks);
        let mut missing = None;
        for (q, ids) in asked.iter().enumerate() {
            let mut list = Vec::with_capacity(ids.len());
            for &id in ids {
                match find(id) {
                    Some(i) => list.push(i),
                    None => {
                        missing.get_or_insert((q, id));
                        list.push(0);
                    }
                }
            }
            requested.push(list);
        }
        agree(
            comm,
            match missing {
                None => Ok(()),
                Some((q, id)) => Err(corrupt(&dir, format!("lacks vertex {id}, which the part of rank {q} reaches and this rank owns"))),
            },
        )?;
        let answers: Vec<Vec<u64>> = requested.iter().map(|l| l.iter().map(|&i| i as u64).collect()).collect();
        let mut remote = vec![0u32; ghost_owner.len()];
        for (&g, i) in group.iter().zip(comm.all_to_all(&answers).into_iter().flatten()) {
            remote[g as usize] = i as u32;
        }
        let owned_counts =
            comm.all_gather(&(owned.len() as u64).to_le_bytes()).iter().map(|b| u64::from_le_bytes(b[..8].try_into().unwrap())).collect();
        let opened = (|| {
            let shape = |round_arcs| PartShape {
                owned: owned.len() as u64,
                ghosts: ghost_owner.len() as u64,
                vertices: manifest.vertices,
                ranks: ranks as u64,
                round_arcs,
            };
            let smallest = Traverse::min_bytes(&store, "out", TraverseOptions::default().block_bytes)?;
            let round_arcs = round_arcs(budget.available().saturating_sub(keep(&shape(MIN_ROUND_ARCS)) + smallest));
            let state = keep(&shape(round_arcs));
            let spared = (budget.available().saturating_sub(state + smallest) as f64 * spare.clamp(0.0, 1.0)) as u64;
            Ok((Traverse::open(&store, "out", budget, &TraverseOptions::default(), state + spared)?, round_arcs))
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
            owned,
            ghost_owner,
            remote,
            group,
            ghost_start,
            requested,
            owned_counts,
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
        let tables = owned_bits_bytes(n) + CompactIndex::bytes(n, largest, false) + owned * BYTES_PER_OWNED + ghosts * BYTES_PER_GHOST;
        // the smallest budget has the smallest rounds
        let state = keep(&PartShape { owned, ghosts, vertices: m.vertices, ranks: ranks as u64, round_arcs: MIN_ROUND_ARCS });
        let engine = Traverse::min_bytes(store, "out", TraverseOptions::default().block_bytes).map_err(|e| DistError::Ingest(e.into()))?;
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
    /// The original id of owned vertex `i`.
    pub fn owned_id(&self, i: u32) -> u64 {
        self.original.get(self.owned[i as usize])
    }
    /// The owned index of the vertex with original id `id`, if this rank owns it.
    pub fn find_owned(&self, id: u64) -> Option<u32> {
        find_owned(&self.original, &self.owned, id)
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
            owned: self.owned.len() as u64,
            ghosts: self.ghost_count() as u64,
            vertices: self.vertices(),
            ranks: self.comm.size() as u64,
            round_arcs: self.round_arcs,
        }
    }
    pub fn stats(&self) -> TraverseStats {
        self.graph.stats()
    }

    /// Every ghost's value (`value(ghost index)`) to its owner, in rounds
    /// as [`Part::push_some`]'s; `apply(owned index, value)` for each
    /// value that arrives, sender by sender in rank order within a round.
    /// Every rank calls it.
    pub fn push_all(&self, value: impl Fn(u32) -> u64, mut apply: impl FnMut(u32, u64)) {
        let p = self.comm.size();
        let share = self.round_share();
        for round in 0..self.exchange_rounds(share) {
            let send: Vec<Vec<u64>> = (0..p)
                .map(|q| {
                    let group = self.ghost_start[q]..self.ghost_start[q + 1];
                    let (lo, hi) = round_of(group.len(), share, round);
                    self.group[group.start + lo..group.start + hi].iter().map(|&g| value(g)).collect()
                })
                .collect();
            for (q, got) in self.comm.all_to_all(&send).into_iter().enumerate() {
                let (lo, _) = round_of(self.requested[q].len(), share, round);
                for (&i, x) in self.requested[q][lo..].iter().zip(got) {
                    apply(i, x);
                }
            }
        }
    }

    /// Entries a round of an exchange carries to each rank: a 1/P share
    /// of the round, so that what a rank receives is bounded too.
    fn round_share(&self) -> usize {
        (self.push_round / self.comm.size()).max(1)
    }

    /// Rounds of `share` values to each rank that exchanging a value for
    /// every ghost takes, over all ranks (each sends its ghosts' group to
    /// their owner, who holds the same list of them: both ends know it).
    fn exchange_rounds(&self, share: usize) -> u64 {
        let mine = (0..self.comm.size())
            .map(|q| (self.ghost_start[q + 1] - self.ghost_start[q]).max(self.requested[q].len()).div_ceil(share) as u64)
            .max()
            .unwrap_or(0);
        self.comm.max(&[mine])[0]
    }

    /// Some ghosts' values to their owners: `count` entries, `entry(k)`
    /// the k-th (a ghost at most once, and `W` words), in exchange rounds
    /// that each hold at most [`PUSH_ROUND_ENTRIES`] entries a rank (or as
    /// [`Part::with_push_round`] sets), sent
    /// or received, whatever `count` is; `apply(owned index, words)` for
    /// each that arrives. Every rank calls it, with or without entries.
    pub fn push_some<const W: usize>(&self, count: usize, entry: impl Fn(usize) -> (u32, [u64; W]), mut apply: impl FnMut(u32, [u64; W])) {
        let p = self.comm.size();
        let share = self.round_share();
        let mut next = 0;
        loop {
            let room = share.min(count - next) * (W + 1) + 1;
            let mut send: Vec<Vec<u64>> = (0..p).map(|_| Vec::with_capacity(room)).collect();
            while next < count {
                let (g, words) = entry(next);
                let r = self.ghost_owner[g as usize] as usize;
                if send[r].len() == share * (W + 1) {
                    break;
                }
                // the ghost's owned index at its owner
                send[r].push(self.remote[g as usize] as u64);
                send[r].extend_from_slice(&words);
                next += 1;
            }
            // each sender's last word: whether it has more to send
            for s in &mut send {
                s.push((next < count) as u64);
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

    /// Every owned vertex's value (`value(owned index)`) to each rank that
    /// holds it as a ghost, in rounds as [`Part::push_some`]'s: the values
    /// of this part's ghosts, in ghost order. Every rank calls it.
    pub fn pull_all(&self, value: impl Fn(u32) -> u64) -> Vec<u64> {
        let share = self.round_share();
        let mut values = vec![0u64; self.ghost_count()];
        for round in 0..self.exchange_rounds(share) {
            let send: Vec<Vec<u64>> = self
                .requested
                .iter()
                .map(|l| {
                    let (lo, hi) = round_of(l.len(), share, round);
                    l[lo..hi].iter().map(|&i| value(i)).collect()
                })
                .collect();
            for (q, got) in self.comm.all_to_all(&send).into_iter().enumerate() {
                let (lo, hi) = round_of(self.ghost_start[q + 1] - self.ghost_start[q], share, round);
                for (&g, x) in self.group[self.ghost_start[q] + lo..self.ghost_start[q] + hi].iter().zip(got) {
                    values[g as usize] = x;
                }
            }
        }
        values
    }

    /// Values of the owned vertices with original ids `ids`, asked of their
    /// owners: `value(owned index)` on the owner; in the order of `ids`.
    /// Every id must be a vertex. In rounds, as [`Part::push_some`]: a
    /// round holds at most [`PUSH_ROUND_ENTRIES`] questions and as many
    /// answers a rank, whatever the length of `ids`. Every rank calls it.
    pub fn ask(&self, ids: &[u64], value: impl Fn(u32) -> u64) -> Result<Vec<u64>> {
        let p = self.comm.size();
        let share = self.round_share();
        let mut answers = Vec::with_capacity(ids.len());
        let mut missing = None;
        let mut next = 0;
        loop {
            let first = next;
            let room = share.min(ids.len() - next) + 1;
            let mut send: Vec<Vec<u64>> = (0..p).map(|_| Vec::with_capacity(room)).collect();
            while next < ids.len() {
                let r = self.owner(ids[next]);
                if send[r].len() == share {
                    break;
                }
                send[r].push(ids[next]);
                next += 1;
            }
            // each asker's last word: whether it has more to ask
            for s in &mut send {
                s.push((next < ids.len()) as u64);
            }
            let mut again = false;
            let replies: Vec<Vec<u64>> = self
                .comm
                .all_to_all(&send)
                .into_iter()
                .map(|asked| {
                    let (&more, asked) = asked.split_last().expect("every rank sends its last word");
                    again |= more != 0;
                    // questions come ascending when the asker's ids do: each
                    // found by galloping on from the last
                    let mut cursor = (0usize, 0u64);
                    asked
                        .iter()
                        .map(|&id| match find_owned_after(&self.original, &self.owned, id, &mut cursor) {
                            Some(i) => value(i),
                            None => {
                                missing.get_or_insert(id);
                                0
                            }
                        })
                        .collect()
                })
                .collect();
            drop(send);
            let got = self.comm.all_to_all(&replies);
            drop(replies);
            let mut at = vec![0usize; p];
            for &id in &ids[first..next] {
                let r = self.owner(id);
                answers.push(got[r][at[r]]);
                at[r] += 1;
            }
            if !again {
                break;
            }
        }
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
                assert_eq!(find_owned_after(&original, &owned, id, &mut cursor), plain(id), "id {id}");
                assert_eq!(find_owned(&original, &owned, id), plain(id), "id {id}");
            }
        }
    }
}
