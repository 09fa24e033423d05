//! Progress bars on a terminal (bytes/s and ETA), nothing when stderr is
//! not one: what the `outcore` command and the Python package show while
//! an import, a layout build or an algorithm runs.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Mutex;

/// A [`Progress`](crate::Progress) that draws one bar per phase on stderr.
pub struct Bars {
    bar: Mutex<Option<ProgressBar>>,
    enabled: bool,
}

impl Bars {
    /// Bars on stderr when it is a terminal, unless `quiet`.
    pub fn new(quiet: bool) -> Self {
        Bars { bar: Mutex::new(None), enabled: !quiet && std::io::stderr().is_terminal() }
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
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_message(phase.to_string());
        if let Some(old) = self.bar.lock().unwrap_or_else(|e| e.into_inner()).replace(bar) {
            old.finish_and_clear();
        }
    }
    fn set(&self, position: u64) {
        if let Some(b) = &*self.bar.lock().unwrap_or_else(|e| e.into_inner()) {
            b.set_position(position);
        }
    }
    fn end(&self) {
        if let Some(b) = self.bar.lock().unwrap_or_else(|e| e.into_inner()).take() {
            b.finish_and_clear();
        }
    }
}
