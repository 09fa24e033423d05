//! Progress bars on a terminal (bytes/s and ETA), nothing when piped.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// `--quiet`: no bars anywhere in this process.
static QUIET: AtomicBool = AtomicBool::new(false);

/// Turn every bar off (`--quiet`).
pub fn set_quiet() {
    QUIET.store(true, Ordering::Relaxed);
}

pub struct Bars {
    bar: Mutex<Option<ProgressBar>>,
    enabled: bool,
}

impl Bars {
    /// Bars on stderr when it is a terminal, unless `quiet` (a command's
    /// `--json`) or `--quiet`.
    pub fn new(quiet: bool) -> Self {
        Bars { bar: Mutex::new(None), enabled: !quiet && !QUIET.load(Ordering::Relaxed) && std::io::stderr().is_terminal() }
    }
}

impl outcore_io::Progress for Bars {
    fn begin(&self, phase: &str, total: u64, bytes: bool) {
        if !self.enabled {
            return;
        }
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        let template = if bytes {
            "{msg:>16} [{bar:36}] {bytes}/{total_bytes} {bytes_per_sec} ETA {eta}"
        } else {
            "{msg:>16} [{bar:36}] {human_pos}/{human_len} {per_sec} ETA {eta}"
        };
        bar.set_style(ProgressStyle::with_template(template).unwrap().progress_chars("=> "));
        bar.set_message(phase.to_string());
        if let Some(old) = self.bar.lock().unwrap().replace(bar) {
            old.finish_and_clear();
        }
    }
    fn set(&self, position: u64) {
        if let Some(b) = &*self.bar.lock().unwrap() {
            b.set_position(position);
        }
    }
    fn end(&self) {
        if let Some(b) = self.bar.lock().unwrap().take() {
            b.finish_and_clear();
        }
    }
}
