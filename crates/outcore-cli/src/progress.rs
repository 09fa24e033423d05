//! The command's progress bars: the library's, off under `--quiet`.

use std::sync::atomic::{AtomicBool, Ordering};

/// `--quiet`: no bars anywhere in this process.
static QUIET: AtomicBool = AtomicBool::new(false);

/// Turn every bar off (`--quiet`).
pub fn set_quiet() {
    QUIET.store(true, Ordering::Relaxed);
}

/// Bars on stderr when it is a terminal, unless `quiet` (a command's
/// `--json`) or `--quiet`.
pub struct Bars;

impl Bars {
    #[allow(clippy::new_ret_no_self)]
    pub fn new(quiet: bool) -> outcore::progress::Bars {
        outcore::progress::Bars::new(quiet || QUIET.load(Ordering::Relaxed))
    }
}
