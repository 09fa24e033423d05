//! Power failure at any moment of `apply` and `commit` (issue 14 item 5),
//! by fault injection in the CrashMonkey/ALICE manner: every change the
//! store makes to its files is recorded (`outcore_dynamic::durable`), and
//! the file system a power failure would leave after any prefix of them is
//! rebuilt from the store's starting files:
//! - a file's writes and length changes before its last fsync are on disk;
//!   each one after it is independently lost, kept, or torn (a random
//!   subset of its 512-byte sectors kept);
//! - directory entries (creates, renames, removals) before the directory's
//!   last fsync are on disk, and of those after it a prefix (journaling
//!   file systems such as ext4 and XFS commit them in order).
//!
//! Every rebuilt store must open, pass `check` (what `dynamic stats
//! --check` runs), and hold exactly what it held at its last commit, or at
//! the commit being made when the power failed; and it must take updates
//! and commit again.
//!
//! `OUTCORE_POWERFAIL_POINTS` (crash points, default 60; 0 = every event),
//! `OUTCORE_POWERFAIL_VARIANTS` (file systems per point, default 3) and
//! `OUTCORE_POWERFAIL_UPDATES` (updates per round, default 80000) scale
//! it up for `bench/powerfail`.

use outcore_dynamic::durable::{record, Event};
use outcore_dynamic::store::{DynamicStore, StoreOptions, Update};
use outcore_io::SplitMix64 as Rng;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// A fair coin from the project's generator.
fn coin(rng: &mut Rng) -> bool {
    rng.next_u64() & 1 == 1
}

/// What a store holds: every arc (source, target, count, weight bits) and
/// every listed vertex's property, sorted.
type Content = (Vec<(u64, u64, u32, u32)>, Vec<(u64, Option<u64>)>);

fn content(store: &DynamicStore) -> Content {
    let mut arcs = Vec::new();
    store.for_each_edge(|s, e| arcs.push((s, e.target, e.count, e.weight.to_bits())));
    arcs.sort_unstable();
    let mut vertices = Vec::new();
    store.for_each_source(|u| vertices.push(u));
    vertices.sort_unstable();
    let props = vertices.into_iter().map(|u| (u, store.property(u))).collect();
    (arcs, props)
}

/// A round of updates: inserts skewed toward low ids (hubs), deletes of
/// earlier inserts, properties, a few vertex deletes.
fn round(rng: &mut Rng, n: u64, ids: u64, inserted: &mut Vec<(u64, u64)>) -> Vec<Update> {
    let mut out = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let r = rng.below(100);
        let skewed = |rng: &mut Rng| {
            let a = rng.below(ids);
            rng.below(a + 1)
        };
        if r < 70 || inserted.is_empty() {
            let (u, v) = (skewed(rng), rng.below(ids));
            inserted.push((u, v));
            out.push(Update::InsertEdge { u, v, w: (u ^ v) as f32 });
        } else if r < 93 {
            let (u, v) = inserted.swap_remove(rng.below(inserted.len() as u64) as usize);
            out.push(Update::DeleteEdge { u, v });
        } else if r < 99 {
            out.push(Update::SetProperty { u: skewed(rng), value: rng.next_u64() });
        } else {
            out.push(Update::DeleteVertex { u: rng.below(ids) });
        }
    }
    out
}

/// The files of a directory as a power failure would leave them.
#[derive(Clone, Default)]
struct Disk {
    /// Durable directory entries: name -> inode.
    entries: BTreeMap<String, usize>,
    /// Durable contents by inode.
    data: Vec<Vec<u8>>,
}

#[derive(Clone)]
enum DataOp {
    Write(u64, Vec<u8>),
    SetLen(u64),
}
#[derive(Clone)]
enum DirOp {
    Link(String, usize),
    Rename(String, String),
    Remove(String),
}

/// The file system as the process sees it, with what is not yet durable.
#[derive(Clone)]
struct Model {
    disk: Disk,
    live: BTreeMap<String, usize>,
    pending_data: Vec<Vec<DataOp>>,
    pending_dir: Vec<DirOp>,
}

fn apply_data(bytes: &mut Vec<u8>, op: &DataOp) {
    match op {
        DataOp::Write(off, b) => {
            let end = *off as usize + b.len();
            if bytes.len() < end {
                bytes.resize(end, 0);
            }
            bytes[*off as usize..end].copy_from_slice(b);
        }
        DataOp::SetLen(len) => bytes.resize(*len as usize, 0),
    }
}

fn apply_dir(entries: &mut BTreeMap<String, usize>, op: &DirOp) {
    match op {
        DirOp::Link(name, inode) => {
            entries.insert(name.clone(), *inode);
        }
        DirOp::Rename(from, to) => {
            if let Some(i) = entries.remove(from) {
                entries.insert(to.clone(), i);
            }
        }
        DirOp::Remove(name) => {
            entries.remove(name);
        }
    }
}

impl Model {
    /// The store's files as they are now, all durable.
    fn load(dir: &Path) -> Model {
        let mut disk = Disk::default();
        for e in std::fs::read_dir(dir).unwrap() {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().to_string();
            if name == "lock" {
                continue;
            }
            disk.entries.insert(name, disk.data.len());
            disk.data.push(std::fs::read(e.path()).unwrap());
        }
        let n = disk.data.len();
        Model { live: disk.entries.clone(), disk, pending_data: vec![Vec::new(); n], pending_dir: Vec::new() }
    }

    fn inode(&self, path: &Path) -> Option<usize> {
        self.live.get(&name(path)).copied()
    }

    fn step(&mut self, e: &Event) {
        match e {
            Event::Write { path, offset, bytes } => {
                let i = self.inode(path).expect("a write to a file that exists");
                self.pending_data[i].push(DataOp::Write(*offset, bytes.clone()));
            }
            Event::SetLen { path, len } => {
                let i = self.inode(path).expect("a truncation of a file that exists");
                self.pending_data[i].push(DataOp::SetLen(*len));
            }
            Event::Sync { path } => {
                let i = self.inode(path).expect("a sync of a file that exists");
                for op in std::mem::take(&mut self.pending_data[i]) {
                    apply_data(&mut self.disk.data[i], &op);
                }
            }
            Event::Create { path } => match self.inode(path) {
                Some(i) => self.pending_data[i].push(DataOp::SetLen(0)),
                None => {
                    let i = self.disk.data.len();
                    self.disk.data.push(Vec::new());
                    self.pending_data.push(Vec::new());
                    self.live.insert(name(path), i);
                    self.pending_dir.push(DirOp::Link(name(path), i));
                }
            },
            Event::Rename { from, to } => {
                let op = DirOp::Rename(name(from), name(to));
                apply_dir(&mut self.live, &op);
                self.pending_dir.push(op);
            }
            Event::Remove { path } => {
                let op = DirOp::Remove(name(path));
                apply_dir(&mut self.live, &op);
                self.pending_dir.push(op);
            }
            Event::SyncDir { .. } => {
                for op in std::mem::take(&mut self.pending_dir) {
                    apply_dir(&mut self.disk.entries, &op);
                }
            }
            Event::Mark(_) => {}
        }
    }

    /// Write into `dir` what a power failure now leaves: `variant` 0 loses
    /// everything not durable, 1 keeps all of it, others a random mix
    /// with torn writes.
    fn crash_into(&self, dir: &Path, variant: u64, rng: &mut Rng) {
        let keep_dir = match variant {
            0 => 0,
            1 => self.pending_dir.len(),
            _ => rng.below(self.pending_dir.len() as u64 + 1) as usize,
        };
        let mut entries = self.disk.entries.clone();
        for op in &self.pending_dir[..keep_dir] {
            apply_dir(&mut entries, op);
        }
        std::fs::create_dir_all(dir).unwrap();
        for (name, &i) in &entries {
            let pending = &self.pending_data[i];
            let mut bytes;
            let data = if pending.is_empty() || variant == 0 {
                &self.disk.data[i]
            } else {
                bytes = self.disk.data[i].clone();
                for op in pending {
                    match (variant, op) {
                        (1, op) => apply_data(&mut bytes, op),
                        (_, DataOp::Write(off, b)) => {
                            let torn = rng.below(4) == 0;
                            if !torn && coin(rng) {
                                apply_data(&mut bytes, op);
                            } else if torn {
                                for (s, sector) in b.chunks(512).enumerate() {
                                    if coin(rng) {
                                        apply_data(&mut bytes, &DataOp::Write(off + s as u64 * 512, sector.to_vec()));
                                    }
                                }
                            }
                        }
                        (_, op) => {
                            if coin(rng) {
                                apply_data(&mut bytes, op)
                            }
                        }
                    }
                }
                &bytes
            };
            write_sparse(&dir.join(name), data);
        }
    }
}

fn name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().to_string()
}

/// Write `data` leaving its zero pages as holes (heaps are mostly zeros).
fn write_sparse(path: &Path, data: &[u8]) {
    use std::os::unix::fs::FileExt;
    let f = std::fs::File::create(path).unwrap();
    f.set_len(data.len() as u64).unwrap();
    for (i, page) in data.chunks(4096).enumerate() {
        if page.iter().any(|&b| b != 0) {
            f.write_all_at(page, i as u64 * 4096).unwrap();
        }
    }
}

/// Threads replaying crash points (each takes every other point).
const REPLAY_THREADS: usize = 2;

#[test]
fn every_power_failure_reopens_at_the_last_commit_or_the_one_being_made() {
    let points = env("OUTCORE_POWERFAIL_POINTS", 60);
    let variants = env("OUTCORE_POWERFAIL_VARIANTS", 3).max(1);
    let per_round = env("OUTCORE_POWERFAIL_UPDATES", 80_000);
    let ids = per_round / 8;
    // on tmpfs where there is one: what is tested is the order of the
    // changes, not the disk, and a replay makes about a hundred fsyncs
    let shm = Path::new("/dev/shm");
    let tmp = if shm.is_dir() { tempfile::tempdir_in(shm) } else { tempfile::tempdir() }.unwrap();
    let dir = tmp.path().join("dyn");
    let opts = StoreOptions { partitions: 1, undirected: false, weighted: true, multigraph: false, threshold: 4 };
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut inserted = Vec::new();

    // Epoch 1 (created) and 2: the starting files, all durable.
    let mut store = DynamicStore::create(&dir, opts).unwrap();
    store.apply(&round(&mut rng, per_round, ids, &mut inserted)).unwrap();
    store.commit().unwrap();
    let mut expected: HashMap<u32, Content> = HashMap::new();
    expected.insert(store.epoch(), content(&store));
    drop(store);
    let start = Model::load(&dir);
    let mut store = DynamicStore::open(&dir).unwrap();
    record::start();
    for r in 0..3 {
        // Every partition writes its pages back within each epoch (at
        // every 65536th update), so crashes fall between write-backs as
        // well as inside commits: the write-backs that free memory (round
        // 1) and those that drop every page to keep a resident limit.
        if r == 1 {
            store.set_written_limit(1);
        } else {
            store.set_resident_limit(Some(1));
        }
        let batch = round(&mut rng, per_round, ids, &mut inserted);
        store.apply(&batch).unwrap();
        if r < 2 {
            record::mark("commit-start");
            store.commit().unwrap();
            record::mark(&format!("commit {}", store.epoch()));
            expected.insert(store.epoch(), content(&store));
        }
    }
    // the last round is never committed: the power fails before
    let events = record::stop();
    drop(store);
    let first = *expected.keys().min().unwrap();
    let writes = events.iter().filter(|e| matches!(e, Event::Write { .. })).count();
    let syncs = events.iter().filter(|e| matches!(e, Event::Sync { .. })).count();
    assert!(syncs > 20 && writes > 50, "the run made {writes} writes and {syncs} syncs: too few to test anything");

    // Crash points: every event (0 = all), or the boundaries of syncs,
    // renames and marks plus random others up to `points`.
    let n = events.len();
    let mut at: Vec<usize> = if points == 0 {
        (0..=n).collect()
    } else {
        let mut v: Vec<usize> = (0..n)
            .filter(|&i| matches!(events[i], Event::Sync { .. } | Event::SyncDir { .. } | Event::Rename { .. } | Event::Mark(_)))
            .flat_map(|i| [i, i + 1])
            .collect();
        v.sort_unstable();
        v.dedup();
        let mut pick = Rng(points.wrapping_mul(0x1234_5678_9abc_def1) | 1);
        while v.len() > points as usize / 2 {
            v.swap_remove(pick.below(v.len() as u64) as usize);
        }
        while v.len() < points as usize {
            v.push(pick.below(n as u64 + 1) as usize);
        }
        v.push(n);
        v.sort_unstable();
        v.dedup();
        v
    };
    at.retain(|&k| k <= n);

    // The crash points are replayed on two threads, each stepping its own
    // copy of the model through the events to every other point.
    let replay = |worker: usize| -> (u64, u64, u64) {
        let mut model = start.clone();
        let (mut done, mut in_commit) = (first, false);
        let mut next = 0;
        let (mut replays, mut at_previous, mut at_made) = (0u64, 0u64, 0u64);
        let mut crash_rng = Rng(0xdead_beef_cafe_f00d ^ worker as u64);
        for &k in at.iter().skip(worker).step_by(REPLAY_THREADS) {
            while next < k {
                model.step(&events[next]);
                if let Event::Mark(m) = &events[next] {
                    if m == "commit-start" {
                        in_commit = true;
                    } else {
                        done = m.strip_prefix("commit ").unwrap().parse().unwrap();
                        in_commit = false;
                    }
                }
                next += 1;
            }
            for variant in 0..variants {
                let crashed = tmp.path().join(format!("crash-{k}-{variant}"));
                model.crash_into(&crashed, variant, &mut crash_rng);
                let what = format!("power failure before event {k} of {n} ({:?}), file system variant {variant}", events.get(k).map(short));
                let mut store = DynamicStore::open(&crashed).unwrap_or_else(|e| panic!("{what}: the store does not open: {e}"));
                store.check().unwrap_or_else(|e| panic!("{what}: check fails: {e}"));
                let epoch = store.epoch();
                assert!(
                    epoch == done || (in_commit && epoch == done + 1),
                    "{what}: reopened at commit {epoch}; the last commit made was {done}{}",
                    if in_commit { " and the next was being made" } else { "" }
                );
                assert!(
                    content(&store) == expected[&epoch],
                    "{what}: reopened at commit {epoch} but its contents differ from that commit's"
                );
                if epoch == done {
                    at_previous += 1;
                } else {
                    at_made += 1;
                }
                // The reopened store takes updates and commits again.
                if variant == 0 {
                    let mut more = inserted.clone();
                    store.apply(&round(&mut crash_rng, 2000, ids, &mut more)).unwrap();
                    store.commit().unwrap();
                    store.check().unwrap_or_else(|e| panic!("{what}: check fails after a commit on the reopened store: {e}"));
                }
                drop(store);
                std::fs::remove_dir_all(&crashed).unwrap();
                replays += 1;
            }
        }
        (replays, at_previous, at_made)
    };
    let (mut replays, mut at_previous, mut at_made) = (0u64, 0u64, 0u64);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..REPLAY_THREADS)
            .map(|w| {
                let replay = &replay;
                scope.spawn(move || replay(w))
            })
            .collect();
        for worker in workers {
            // a failed replay's panic message is the test's
            let (r, p, m) = worker.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            replays += r;
            at_previous += p;
            at_made += m;
        }
    });
    assert_eq!(replays, at.len() as u64 * variants, "every crash point replayed once per variant");
    eprintln!(
        "powerfail: {n} events ({writes} writes, {syncs} syncs), {} crash points x {variants} variants = {replays} replays: \
         {at_previous} at the last commit, {at_made} at the commit being made; all consistent",
        at.len()
    );
}

fn short(e: &Event) -> String {
    let n = |p: &PathBuf| name(p);
    match e {
        Event::Write { path, offset, bytes } => format!("write {} bytes at {offset} of {}", bytes.len(), n(path)),
        Event::SetLen { path, len } => format!("set length of {} to {len}", n(path)),
        Event::Sync { path } => format!("fsync {}", n(path)),
        Event::Create { path } => format!("create {}", n(path)),
        Event::Rename { from, to } => format!("rename {} to {}", n(from), n(to)),
        Event::Remove { path } => format!("remove {}", n(path)),
        Event::SyncDir { .. } => "fsync the directory".into(),
        Event::Mark(m) => m.clone(),
    }
}
