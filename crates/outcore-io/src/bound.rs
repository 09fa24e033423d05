//! A time bound for tests: a run that could hang (an algorithm's loop, a
//! reference implementation) is given [`run_bound`], and outliving it ends
//! the test binary with a failure that names the run. Without it a hung run
//! blocks the suite until CI's limit, and a mutation run counts the mutant
//! that hangs it as timed out rather than caught. Tests use it, as they use
//! [`crate::shared_dir`].

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, Once, OnceLock};
use std::time::{Duration, Instant};

/// The longest a [`bounded`] run may take: `OUTCORE_TEST_BOUND_SECONDS`,
/// else five minutes (the suite's longest run takes seconds; bench/mutants
/// sets less, so that a mutant that hangs a run is caught, not timed out).
pub fn run_bound() -> Duration {
    let seconds = std::env::var("OUTCORE_TEST_BOUND_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(300);
    Duration::from_secs(seconds)
}

/// The bounded runs under way: (what, when it began), by a number each.
type Watches = Mutex<BTreeMap<u64, (String, Instant)>>;

/// Runs `work` and returns what it returns; if it outlives [`run_bound`],
/// the process ends at once with exit code 124 and a line on stderr that
/// names `what` as a hang. One watcher thread serves every run of the
/// process, however many run at once.
pub fn bounded<T>(what: &str, work: impl FnOnce() -> T) -> T {
    let _watched = watch(what);
    work()
}

/// [`bounded`] for the rest of a scope: the run named `what` is on the
/// watch until the value returned is dropped (a test's body starts with
/// `let _bound = watch("its name");`).
#[must_use = "the run is on the watch only while the value returned lives"]
pub fn watch(what: &str) -> Watch {
    static WATCHES: OnceLock<Watches> = OnceLock::new();
    static WATCHER: Once = Once::new();
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let watches: &'static Watches = WATCHES.get_or_init(Default::default);
    WATCHER.call_once(|| {
        let bound = run_bound();
        std::thread::spawn(move || loop {
            std::thread::sleep(Duration::from_millis(200));
            let running = watches.lock().unwrap_or_else(|e| e.into_inner());
            if let Some((what, _)) = running.values().find(|(_, began)| began.elapsed() > bound) {
                // to stderr itself: the test harness captures eprintln! of a
                // test's threads, and exit drops what it captured
                use std::io::Write;
                let _ = writeln!(std::io::stderr(), "{what}: still running after {} s, a hang: the test binary ends here", bound.as_secs());
                std::process::exit(124);
            }
        });
    });
    let id = NEXT.fetch_add(1, Ordering::Relaxed);
    watches.lock().unwrap_or_else(|e| e.into_inner()).insert(id, (what.to_string(), Instant::now()));
    Watch(watches, id)
}

/// A run on the watch ([`watch`]); taken off it when dropped, whether the
/// run ends or panics.
pub struct Watch(&'static Watches, u64);

impl Drop for Watch {
    fn drop(&mut self) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).remove(&self.1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run within the bound returns its value, and nothing is left on
    /// the watch (a second run starts from its own time); a scope's watch
    /// is taken off when dropped.
    #[test]
    fn a_run_within_its_bound_returns_its_value() {
        assert_eq!(bounded("a sum", || (1..=10u64).sum::<u64>()), 55);
        assert_eq!(bounded("another", || "done"), "done");
        // a scope's watch holds its run until it is dropped
        let watched = watch("a scope");
        let (watches, id) = (watched.0, watched.1);
        assert!(watches.lock().unwrap().get(&id).is_some_and(|(what, _)| what == "a scope"), "on the watch while held");
        drop(watched);
        assert!(!watches.lock().unwrap().contains_key(&id), "off the watch once dropped");
    }
}
