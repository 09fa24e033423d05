//! What the distributed store needs from the machines it runs on: ranks,
//! collectives, and one round of the asynchronous visitor queue. [`Solo`]
//! is one rank in one process (tests, and a distributed store opened
//! without MPI); `MpiComm` (feature `mpi`) runs over MPI, so outcore runs
//! wherever `mpirun` or `srun` does.

use std::cell::Cell;
use std::time::Instant;

/// Traffic of this rank since it started (for `--json`).
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct Traffic {
    pub messages_sent: u64,
    pub bytes_sent: u64,
    pub messages_received: u64,
    pub bytes_received: u64,
    /// Seconds spent waiting for other ranks' messages and collectives.
    pub wait_seconds: f64,
}

/// Counts traffic; kept by every transport.
#[derive(Default)]
pub struct Meter {
    traffic: Cell<Traffic>,
}

impl Meter {
    pub fn sent(&self, bytes: usize) {
        let mut t = self.traffic.get();
        t.messages_sent += 1;
        t.bytes_sent += bytes as u64;
        self.traffic.set(t);
    }
    pub fn received(&self, bytes: usize) {
        let mut t = self.traffic.get();
        t.messages_received += 1;
        t.bytes_received += bytes as u64;
        self.traffic.set(t);
    }
    pub fn waited(&self, since: Instant) {
        let mut t = self.traffic.get();
        t.wait_seconds += since.elapsed().as_secs_f64();
        self.traffic.set(t);
    }
    pub fn get(&self) -> Traffic {
        self.traffic.get()
    }
}

/// The ranks of one job and what they can do together. Every collective
/// must be called by every rank, in the same order.
pub trait Comm {
    fn rank(&self) -> usize;
    fn size(&self) -> usize;
    /// Element-wise sum over ranks.
    fn sum(&self, x: &[u64]) -> Vec<u64>;
    /// Element-wise maximum over ranks.
    fn max(&self, x: &[u64]) -> Vec<u64>;
    fn sum_f64(&self, x: f64) -> f64;
    /// Every rank's bytes, in rank order.
    fn all_gather(&self, bytes: &[u8]) -> Vec<Vec<u8>>;
    /// Rank `root`'s bytes, on every rank.
    fn broadcast(&self, root: usize, bytes: &[u8]) -> Vec<u8>;
    /// `send[d]` to rank `d`; returns what each rank sent this one, in
    /// rank order (MPI_Alltoallv).
    fn all_to_all(&self, send: &[Vec<u64>]) -> Vec<Vec<u64>>;
    /// One round of the visitor queue: `chunks[d]` are sent to rank `d`
    /// with non-blocking sends, then `tail` to every rank as this rank's
    /// end-of-round marker; while they are in flight, every message that
    /// arrives is handed to `receive(source, words)` in the order its
    /// sender sent it. Returns when every rank's marker has arrived: their
    /// tails, in rank order. A sender's messages arrive in the order sent
    /// (MPI's non-overtaking rule), so its marker follows all its data.
    fn round(&self, round: u64, chunks: &[Vec<Vec<u64>>], tail: &[u64], receive: &mut dyn FnMut(usize, &[u64])) -> Vec<Vec<u64>>;
    fn traffic(&self) -> Traffic;
    /// A short name of the transport, for reports.
    fn transport(&self) -> &'static str;
}

/// One rank, no other process.
#[derive(Default)]
pub struct Solo {
    meter: Meter,
}

impl Comm for Solo {
    fn rank(&self) -> usize {
        0
    }
    fn size(&self) -> usize {
        1
    }
    fn sum(&self, x: &[u64]) -> Vec<u64> {
        x.to_vec()
    }
    fn max(&self, x: &[u64]) -> Vec<u64> {
        x.to_vec()
    }
    fn sum_f64(&self, x: f64) -> f64 {
        x
    }
    fn all_gather(&self, bytes: &[u8]) -> Vec<Vec<u8>> {
        vec![bytes.to_vec()]
    }
    fn broadcast(&self, _: usize, bytes: &[u8]) -> Vec<u8> {
        bytes.to_vec()
    }
    fn all_to_all(&self, send: &[Vec<u64>]) -> Vec<Vec<u64>> {
        send.to_vec()
    }
    fn round(&self, _: u64, chunks: &[Vec<Vec<u64>>], tail: &[u64], receive: &mut dyn FnMut(usize, &[u64])) -> Vec<Vec<u64>> {
        for c in &chunks[0] {
            self.meter.sent(c.len() * 8);
            self.meter.received(c.len() * 8);
            receive(0, c);
        }
        vec![tail.to_vec()]
    }
    fn traffic(&self) -> Traffic {
        self.meter.get()
    }
    fn transport(&self) -> &'static str {
        "solo"
    }
}

/// Append `bytes` to `words` as a length word, then the bytes in
/// little-endian words (the last one padded with zeros): how bytes travel
/// through a collective that carries words.
pub(crate) fn push_bytes(words: &mut Vec<u64>, bytes: &[u8]) {
    words.push(bytes.len() as u64);
    words.extend(bytes.chunks(8).map(|c| {
        let mut b = [0u8; 8];
        b[..c.len()].copy_from_slice(c);
        u64::from_le_bytes(b)
    }));
}

/// The bytes [`push_bytes`] packed at the start of `words` (none if empty).
pub(crate) fn bytes_of(words: &[u64]) -> Vec<u8> {
    let Some((&len, rest)) = words.split_first() else { return Vec::new() };
    rest.iter().flat_map(|w| w.to_le_bytes()).take(len as usize).collect()
}

/// Ranks as threads of one process ([`run_threads`]): every collective
/// meets at a barrier, so the distributed code paths run at any number of
/// ranks without MPI (the tests use it beside `mpirun`).
pub struct Threads {
    rank: usize,
    shared: std::sync::Arc<Meeting>,
    meter: Meter,
}

struct Meeting {
    size: usize,
    gate: std::sync::Mutex<Gate>,
    turn: std::sync::Condvar,
    /// `slots[from][to]`: what rank `from` left for rank `to`.
    slots: std::sync::Mutex<Vec<Vec<Vec<u64>>>>,
}

/// A barrier that a panicking rank breaks, so that the others stop
/// waiting for it (and panic too) instead of hanging.
#[derive(Default)]
struct Gate {
    arrived: usize,
    generation: u64,
    broken: bool,
}

/// What a rank panics with when another rank panicked.
const ANOTHER_RANK_PANICKED: &str = "another rank panicked";

impl Meeting {
    fn wait(&self) {
        let mut gate = self.gate.lock().unwrap_or_else(|e| e.into_inner());
        if gate.broken {
            panic!("{ANOTHER_RANK_PANICKED}");
        }
        let generation = gate.generation;
        gate.arrived += 1;
        if gate.arrived == self.size {
            gate.arrived = 0;
            gate.generation += 1;
            self.turn.notify_all();
            return;
        }
        while gate.generation == generation && !gate.broken {
            gate = self.turn.wait(gate).unwrap_or_else(|e| e.into_inner());
        }
        if gate.generation == generation {
            panic!("{ANOTHER_RANK_PANICKED}");
        }
    }
    fn break_gate(&self) {
        self.gate.lock().unwrap_or_else(|e| e.into_inner()).broken = true;
        self.turn.notify_all();
    }
}

/// Breaks the meeting if its rank's thread unwinds.
struct BreakOnPanic<'a>(&'a Meeting);

impl Drop for BreakOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.break_gate();
        }
    }
}

/// Run `f` on `ranks` threads, each a rank of one job; results in rank
/// order. A rank that panics makes every rank panic at its next
/// collective; the first rank's own panic is then raised here.
pub fn run_threads<T: Send>(ranks: usize, f: impl Fn(&dyn Comm) -> T + Sync) -> Vec<T> {
    let shared = std::sync::Arc::new(Meeting {
        size: ranks,
        gate: std::sync::Mutex::new(Gate::default()),
        turn: std::sync::Condvar::new(),
        slots: std::sync::Mutex::new(vec![vec![Vec::new(); ranks]; ranks]),
    });
    let results: Vec<std::thread::Result<T>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..ranks)
            .map(|rank| {
                let comm = Threads { rank, shared: shared.clone(), meter: Meter::default() };
                let f = &f;
                scope.spawn(move || {
                    let _guard = BreakOnPanic(&comm.shared);
                    f(&comm)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join()).collect()
    });
    let secondary = |e: &Box<dyn std::any::Any + Send>| e.downcast_ref::<String>().is_some_and(|m| m == ANOTHER_RANK_PANICKED);
    if let Some(first) =
        results.iter().position(|r| r.as_ref().is_err_and(|e| !secondary(e))).or_else(|| results.iter().position(|r| r.is_err()))
    {
        let Some(Err(e)) = results.into_iter().nth(first) else { unreachable!("position found an error") };
        std::panic::resume_unwind(e);
    }
    results.into_iter().map(|r| r.unwrap_or_else(|_| unreachable!("no rank panicked"))).collect()
}

impl Threads {
    /// Leave `send[to]` for every rank, and take what every rank left for this one.
    fn exchange(&self, send: Vec<Vec<u64>>) -> Vec<Vec<u64>> {
        let t = Instant::now();
        self.shared.slots.lock().unwrap_or_else(|e| e.into_inner())[self.rank] = send;
        self.shared.wait();
        let got: Vec<Vec<u64>> = {
            let mut slots = self.shared.slots.lock().unwrap_or_else(|e| e.into_inner());
            (0..self.shared.size).map(|from| std::mem::take(&mut slots[from][self.rank])).collect()
        };
        self.shared.wait();
        self.meter.waited(t);
        got
    }
    fn gather_words(&self, x: &[u64]) -> Vec<Vec<u64>> {
        self.exchange(vec![x.to_vec(); self.shared.size])
    }
}

impl Comm for Threads {
    fn rank(&self) -> usize {
        self.rank
    }
    fn size(&self) -> usize {
        self.shared.size
    }
    fn sum(&self, x: &[u64]) -> Vec<u64> {
        let all = self.gather_words(x);
        (0..x.len()).map(|k| all.iter().map(|a| a[k]).sum()).collect()
    }
    fn max(&self, x: &[u64]) -> Vec<u64> {
        let all = self.gather_words(x);
        (0..x.len()).map(|k| all.iter().map(|a| a[k]).max().unwrap_or(0)).collect()
    }
    fn sum_f64(&self, x: f64) -> f64 {
        // added in rank order on every rank, so every rank gets the same bits
        self.gather_words(&[x.to_bits()]).iter().map(|a| f64::from_bits(a[0])).sum()
    }
    fn all_gather(&self, bytes: &[u8]) -> Vec<Vec<u8>> {
        let mut words = Vec::new();
        push_bytes(&mut words, bytes);
        self.gather_words(&words).iter().map(|w| bytes_of(w)).collect()
    }
    fn broadcast(&self, root: usize, bytes: &[u8]) -> Vec<u8> {
        self.all_gather(bytes).swap_remove(root)
    }
    fn all_to_all(&self, send: &[Vec<u64>]) -> Vec<Vec<u64>> {
        for (to, v) in send.iter().enumerate() {
            if to != self.rank && !v.is_empty() {
                self.meter.sent(v.len() * 8);
            }
        }
        let got = self.exchange(send.to_vec());
        for (from, v) in got.iter().enumerate() {
            if from != self.rank && !v.is_empty() {
                self.meter.received(v.len() * 8);
            }
        }
        got
    }
    fn round(&self, _: u64, chunks: &[Vec<Vec<u64>>], tail: &[u64], receive: &mut dyn FnMut(usize, &[u64])) -> Vec<Vec<u64>> {
        // each rank's messages framed by length, then its tail
        let framed: Vec<Vec<u64>> = chunks
            .iter()
            .map(|cs| {
                let mut out = vec![cs.len() as u64];
                for c in cs {
                    out.push(c.len() as u64);
                    out.extend_from_slice(c);
                }
                out.extend_from_slice(tail);
                out
            })
            .collect();
        let got = self.all_to_all(&framed);
        let mut tails = Vec::with_capacity(got.len());
        for (from, words) in got.iter().enumerate() {
            let mut at = 1;
            for _ in 0..words[0] {
                let len = words[at] as usize;
                receive(from, &words[at + 1..at + 1 + len]);
                at += 1 + len;
            }
            tails.push(words[at..].to_vec());
        }
        tails
    }
    fn traffic(&self) -> Traffic {
        self.meter.get()
    }
    fn transport(&self) -> &'static str {
        "threads"
    }
}

#[cfg(feature = "mpi")]
pub use self::mpi_comm::MpiComm;

#[cfg(feature = "mpi")]
mod mpi_comm {
    use super::{Comm, Meter, Traffic};
    use mpi::collective::SystemOperation;
    use mpi::datatype::{Partition, PartitionMut};
    use mpi::environment::Universe;
    use mpi::topology::SimpleCommunicator;
    use mpi::traits::*;
    use std::time::Instant;

    /// Message kinds of a round (the first word of every message).
    const DATA: u64 = 1;
    const END: u64 = 2;

    /// The ranks of an MPI job (`MPI_COMM_WORLD`).
    pub struct MpiComm {
        world: SimpleCommunicator,
        meter: Meter,
        // finalises MPI when dropped, after everything above
        _universe: Universe,
    }

    impl MpiComm {
        /// Initialise MPI (None if it was already initialised).
        pub fn init() -> Option<MpiComm> {
            let universe = mpi::initialize()?;
            let world = universe.world();
            Some(MpiComm { world, meter: Meter::default(), _universe: universe })
        }

        fn counts_and_displs(counts: &[i32]) -> Vec<i32> {
            counts.iter().scan(0, |acc, &c| Some(std::mem::replace(acc, *acc + c))).collect()
        }
    }

    impl Comm for MpiComm {
        fn rank(&self) -> usize {
            self.world.rank() as usize
        }
        fn size(&self) -> usize {
            self.world.size() as usize
        }
        fn sum(&self, x: &[u64]) -> Vec<u64> {
            let t = Instant::now();
            let mut out = vec![0u64; x.len()];
            self.world.all_reduce_into(x, &mut out[..], SystemOperation::sum());
            self.meter.waited(t);
            out
        }
        fn max(&self, x: &[u64]) -> Vec<u64> {
            let t = Instant::now();
            let mut out = vec![0u64; x.len()];
            self.world.all_reduce_into(x, &mut out[..], SystemOperation::max());
            self.meter.waited(t);
            out
        }
        fn sum_f64(&self, x: f64) -> f64 {
            let t = Instant::now();
            let mut out = 0.0f64;
            self.world.all_reduce_into(&x, &mut out, SystemOperation::sum());
            self.meter.waited(t);
            out
        }
        fn all_gather(&self, bytes: &[u8]) -> Vec<Vec<u8>> {
            let t = Instant::now();
            let p = self.size();
            let len = bytes.len() as i32;
            let mut lens = vec![0i32; p];
            self.world.all_gather_into(&len, &mut lens[..]);
            let displs = Self::counts_and_displs(&lens);
            let total: usize = lens.iter().map(|&l| l as usize).sum();
            if total == 0 {
                // Open MPI refuses an all-gather of nothing at all (MPI_ERR_ARG)
                self.meter.waited(t);
                return vec![Vec::new(); p];
            }
            let mut all = vec![0u8; total];
            {
                let mut part = PartitionMut::new(&mut all[..], &lens[..], &displs[..]);
                self.world.all_gather_varcount_into(bytes, &mut part);
            }
            self.meter.waited(t);
            (0..p).map(|r| all[displs[r] as usize..(displs[r] + lens[r]) as usize].to_vec()).collect()
        }
        fn broadcast(&self, root: usize, bytes: &[u8]) -> Vec<u8> {
            let t = Instant::now();
            let root_process = self.world.process_at_rank(root as i32);
            let mut len = bytes.len() as u64;
            root_process.broadcast_into(&mut len);
            let mut buf = if self.rank() == root { bytes.to_vec() } else { vec![0u8; len as usize] };
            root_process.broadcast_into(&mut buf[..]);
            self.meter.waited(t);
            buf
        }
        fn all_to_all(&self, send: &[Vec<u64>]) -> Vec<Vec<u64>> {
            let t = Instant::now();
            let p = self.size();
            let send_counts: Vec<i32> = send.iter().map(|v| v.len() as i32).collect();
            let mut recv_counts = vec![0i32; p];
            self.world.all_to_all_into(&send_counts[..], &mut recv_counts[..]);
            let flat: Vec<u64> = send.concat();
            let send_displs = Self::counts_and_displs(&send_counts);
            let recv_displs = Self::counts_and_displs(&recv_counts);
            let mut recv = vec![0u64; recv_counts.iter().map(|&c| c as usize).sum()];
            {
                let out = Partition::new(&flat[..], &send_counts[..], &send_displs[..]);
                let mut inp = PartitionMut::new(&mut recv[..], &recv_counts[..], &recv_displs[..]);
                self.world.all_to_all_varcount_into(&out, &mut inp);
            }
            for (d, v) in send.iter().enumerate() {
                if d != self.rank() && !v.is_empty() {
                    self.meter.sent(v.len() * 8);
                }
            }
            for r in 0..p {
                if r != self.rank() && recv_counts[r] > 0 {
                    self.meter.received(recv_counts[r] as usize * 8);
                }
            }
            self.meter.waited(t);
            (0..p).map(|r| recv[recv_displs[r] as usize..(recv_displs[r] + recv_counts[r]) as usize].to_vec()).collect()
        }

        fn round(&self, round: u64, chunks: &[Vec<Vec<u64>>], tail: &[u64], receive: &mut dyn FnMut(usize, &[u64])) -> Vec<Vec<u64>> {
            let p = self.size();
            // A rank can be at most one round ahead of another (it needs
            // everyone's marker of this round to leave it), so two tags
            // keep rounds apart.
            let tag = (round % 2) as i32;
            let framed: Vec<Vec<Vec<u64>>> = chunks
                .iter()
                .map(|cs| {
                    cs.iter()
                        .map(|c| {
                            let mut m = Vec::with_capacity(c.len() + 1);
                            m.push(DATA);
                            m.extend_from_slice(c);
                            m
                        })
                        .collect()
                })
                .collect();
            let mut marker = Vec::with_capacity(tail.len() + 1);
            marker.push(END);
            marker.extend_from_slice(tail);
            let mut tails: Vec<Option<Vec<u64>>> = vec![None; p];
            let mut ends = 0;
            mpi::request::scope(|scope| {
                let mut pending = Vec::new();
                for (d, cs) in framed.iter().enumerate() {
                    for m in cs {
                        pending.push(self.world.process_at_rank(d as i32).immediate_send_with_tag(scope, &m[..], tag));
                        self.meter.sent(m.len() * 8);
                    }
                }
                for d in 0..p {
                    pending.push(self.world.process_at_rank(d as i32).immediate_send_with_tag(scope, &marker[..], tag));
                    self.meter.sent(marker.len() * 8);
                }
                let mut idle = Instant::now();
                while ends < p || !pending.is_empty() {
                    let mut progressed = false;
                    if let Some(probed) = self.world.any_process().immediate_matched_probe_with_tag(tag) {
                        let (words, status): (Vec<u64>, _) = probed.matched_receive_vec();
                        let source = status.source_rank() as usize;
                        self.meter.received(words.len() * 8);
                        match words.first() {
                            Some(&DATA) => receive(source, &words[1..]),
                            Some(&END) => {
                                tails[source] = Some(words[1..].to_vec());
                                ends += 1;
                            }
                            _ => {
                                // nothing else is sent with these tags: a rank
                                // that cannot read the queue stops the job
                                eprintln!("outcore-dist: rank {} received a message from rank {source} that is not part of the visitor queue; stopping every rank", self.rank());
                                self.world.abort(70)
                            }
                        }
                        progressed = true;
                    }
                    let before = pending.len();
                    pending = pending.into_iter().filter_map(|r| r.test().err()).collect();
                    progressed |= pending.len() < before;
                    if progressed {
                        idle = Instant::now();
                    } else {
                        self.meter.waited(idle);
                        idle = Instant::now();
                        std::thread::yield_now();
                    }
                }
            });
            tails.into_iter().map(|t| t.expect("every rank's marker arrived")).collect()
        }

        fn traffic(&self) -> Traffic {
            self.meter.get()
        }
        fn transport(&self) -> &'static str {
            "mpi"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A rank that panics before a collective the others wait at: every
    /// rank stops, and the first rank's own panic is what the caller sees
    /// (a hang here would hang the test suite).
    #[test]
    fn a_panicking_rank_stops_every_rank() {
        let caught = std::panic::catch_unwind(|| {
            run_threads(3, |comm| {
                if comm.rank() == 1 {
                    panic!("rank 1 fails");
                }
                comm.sum(&[1]);
                comm.sum(&[1])
            })
        });
        let e = caught.expect_err("the panic reaches the caller");
        let message = e.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| e.downcast_ref::<String>().cloned());
        assert_eq!(message.as_deref(), Some("rank 1 fails"));
        // and without a panic, every rank's result in rank order
        assert_eq!(run_threads(3, |comm| comm.sum(&[comm.rank() as u64 + 1])[0] * 10 + comm.rank() as u64), vec![60, 61, 62]);
    }
}
