//! Progress bars on stderr for long commands (`neardup run`, `tune`):
//! one bar per stage with its rate and time left, drawn only when stderr
//! is a terminal.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::util::stage::{Progress, ProgressSink};

/// Items between two updates of the bar: workers count with an atomic and
/// only now and then take the bar's lock.
const BATCH: u64 = 4096;

struct TerminalBars {
    bar: Mutex<Option<ProgressBar>>,
    done: AtomicU64,
    /// Items between updates for the current stage: a hundredth of it, at
    /// most [`BATCH`].
    step: AtomicU64,
}

impl ProgressSink for TerminalBars {
    fn begin(&self, what: &str, total: u64) {
        let bar = if total > 0 {
            ProgressBar::new(total).with_style(
                ProgressStyle::with_template(
                    "{msg:40!} [{bar:30}] {human_pos}/{human_len} {rate} ETA {eta}",
                )
                .expect("a valid template")
                .with_key(
                    "rate",
                    |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                        let _ = write!(w, "{:.0}/s", state.per_sec());
                    },
                )
                .progress_chars("=> "),
            )
        } else {
            ProgressBar::new_spinner().with_style(
                ProgressStyle::with_template("{msg:40!} {spinner} {elapsed}")
                    .expect("a valid template"),
            )
        };
        bar.set_draw_target(ProgressDrawTarget::stderr_with_hz(8));
        bar.set_message(what.to_string());
        bar.enable_steady_tick(std::time::Duration::from_millis(125));
        self.done.store(0, Ordering::Relaxed);
        self.step
            .store((total / 100).clamp(1, BATCH), Ordering::Relaxed);
        if let Some(old) = self.bar.lock().expect("not poisoned").replace(bar) {
            old.finish_and_clear();
        }
    }

    fn advance(&self, n: u64) {
        let before = self.done.fetch_add(n, Ordering::Relaxed);
        let step = self.step.load(Ordering::Relaxed).max(1);
        if (before + n) / step != before / step {
            if let Some(bar) = self.bar.lock().expect("not poisoned").as_ref() {
                bar.set_position(before + n);
            }
        }
    }

    fn finish(&self) {
        if let Some(bar) = self.bar.lock().expect("not poisoned").take() {
            bar.finish_and_clear();
        }
    }
}

/// Bars on stderr when it is a terminal, `None` otherwise (pipes, CI).
pub fn terminal_progress() -> Option<Progress> {
    std::io::stderr().is_terminal().then(|| {
        Progress(Arc::new(TerminalBars {
            bar: Mutex::new(None),
            done: AtomicU64::new(0),
            step: AtomicU64::new(BATCH),
        }))
    })
}
