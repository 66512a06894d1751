//! The workbench (ratatui + crossterm): tune thresholds live, see why pairs
//! match. Keys become [`action::Action`]s, state changes only in
//! [`app::App::update`], drawing is a pure function of the state
//! ([`ui::render`]). A worker thread runs the experiment and sends its
//! progress over a channel; the UI drains it at a fixed frame rate.

pub mod action;
pub mod app;
pub mod inspect;
pub mod loader;
pub mod mapping;
pub mod save;
pub mod screenshot;
pub mod ui;
pub mod workbench;

use std::io::{self, IsTerminal};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use crossterm::event::{self, DisableMouseCapture, EnableMouseCapture, Event, KeyEventKind};
use crossterm::execute;
use crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};
use ratatui::backend::CrosstermBackend;
use ratatui::Terminal;

use app::{App, Request};
use loader::LoadEvent;
pub use workbench::Source;

/// Frames per second at most; input is read between frames.
const FRAME: Duration = Duration::from_millis(33);

/// How often the gauges redraw on their own while the worker counts: the
/// tuning screen's charts are not worth redrawing 30 times a second for
/// a moving count.
const TICK: Duration = Duration::from_millis(250);

#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    #[error("the workbench needs a terminal; to print an experiment's table use `neardup run demo` or `neardup run EXPERIMENT.yaml`")]
    NotATerminal,
    #[error("terminal: {0}")]
    Terminal(#[from] io::Error),
    /// The user quit after the last load failed: scripts and shells must
    /// see it.
    #[error("{0}")]
    LoadFailed(String),
}

/// How the workbench ends once the user quits: an error when the last
/// load failed.
fn quit_outcome(app: &App) -> Result<(), TuiError> {
    match &app.failure {
        Some(message) => Err(TuiError::LoadFailed(message.clone())),
        None => Ok(()),
    }
}

/// Puts the terminal back however the workbench ends: dropped on return
/// and on unwinding, and called from the panic hook before the message
/// prints.
struct TerminalGuard;

impl TerminalGuard {
    fn enter() -> io::Result<Self> {
        enable_raw_mode()?;
        if let Err(e) = execute!(io::stdout(), EnterAlternateScreen, EnableMouseCapture) {
            let _ = disable_raw_mode();
            return Err(e);
        }
        Ok(TerminalGuard)
    }

    fn restore() {
        let _ = disable_raw_mode();
        let _ = execute!(
            io::stdout(),
            DisableMouseCapture,
            LeaveAlternateScreen,
            crossterm::cursor::Show
        );
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        TerminalGuard::restore();
    }
}

/// Opens the workbench on `source` until the user quits.
pub fn run(source: Source) -> Result<(), TuiError> {
    let app = App::new(source.clone());
    run_app(app, || loader::spawn(source))
}

/// Opens the workbench on a dedup mapping, already read, until the user
/// quits; nothing loads in the background.
pub fn run_mapping(source: Source, view: mapping::MappingView) -> Result<(), TuiError> {
    let app = App::with_mapping(source, view);
    run_app(app, || std::sync::mpsc::channel().1)
}

fn run_app(app: App, events: impl FnOnce() -> Receiver<LoadEvent>) -> Result<(), TuiError> {
    if !io::stdout().is_terminal() || !io::stdin().is_terminal() {
        return Err(TuiError::NotATerminal);
    }
    let main_thread = std::thread::current().id();
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        // A worker's panic is reported on the screen as a failed load; only
        // the UI thread's own takes the terminal down.
        if std::thread::current().id() == main_thread {
            TerminalGuard::restore();
            previous(info);
        }
    }));
    let guard = TerminalGuard::enter()?;
    let mut terminal = Terminal::new(CrosstermBackend::new(io::stdout()))?;
    terminal.clear()?;
    let outcome = event_loop(&mut terminal, app, events());
    drop(guard);
    outcome
}

fn event_loop(
    terminal: &mut Terminal<CrosstermBackend<io::Stdout>>,
    mut app: App,
    mut events: Receiver<LoadEvent>,
) -> Result<(), TuiError> {
    let mut dirty = true;
    let mut drawn = Instant::now();
    loop {
        while let Ok(event) = events.try_recv() {
            app.on_load_event(event);
            dirty = true;
        }
        // The gauges count items as the workers go: redraw them.
        if dirty || app.running() && drawn.elapsed() >= TICK {
            terminal.draw(|frame| ui::render(&app, frame))?;
            dirty = false;
            drawn = Instant::now();
        }
        let deadline = Instant::now() + FRAME;
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            if !event::poll(left)? {
                break;
            }
            match event::read()? {
                Event::Key(key) if key.kind != KeyEventKind::Release => {
                    if let Some(action) = action::action_for(&app, key) {
                        app.update(action);
                        dirty = true;
                    }
                }
                Event::Mouse(mouse) => {
                    let size = terminal.size()?;
                    let area = ratatui::layout::Rect::new(0, 0, size.width, size.height);
                    if let Some(action) = action::action_for_mouse(&app, mouse, area) {
                        app.update(action);
                        dirty = true;
                    }
                }
                Event::Resize(..) => dirty = true,
                _ => {}
            }
            if app.quit {
                return quit_outcome(&app);
            }
        }
        for request in std::mem::take(&mut app.requests) {
            if let Some(receiver) = perform(&mut app, request) {
                events = receiver;
            }
            dirty = true;
        }
        if app.quit {
            return quit_outcome(&app);
        }
    }
}

/// Where `x` draws: `REPORTS/NAME-tui-N/`, N the first number no folder
/// has, so that neither a run's folder (`neardup run NAME.tuned.yaml`
/// writes `NAME-tuned/`) nor an earlier export is written over.
pub(crate) fn export_dir(reports: &std::path::Path, name: &str) -> std::path::PathBuf {
    (1..)
        .map(|n| reports.join(format!("{name}-tui-{n}")))
        .find(|dir| !dir.exists())
        .expect("a free number")
}

/// The report of the current state: each algorithm at its tuned
/// threshold, its curve over the gated pairs, into [`export_dir`].
fn export_charts(
    bench: &workbench::Workbench,
    reports: &std::path::Path,
) -> Result<std::path::PathBuf, String> {
    use crate::experiment::stored::{stored_evaluation, StoredRun};
    let mut run = StoredRun::new(&bench.result, bench.config.paper.as_ref());
    for (stored, tuning) in run.algorithms.iter_mut().zip(&bench.tunings) {
        stored.threshold = tuning.threshold;
        let mut evaluations: Vec<_> = tuning.curve.iter().map(stored_evaluation).collect();
        if !evaluations
            .iter()
            .any(|e| (e.threshold - tuning.threshold).abs() < 1e-9)
        {
            evaluations.push(stored_evaluation(&tuning.evaluation));
            evaluations.sort_by(|a, b| a.threshold.total_cmp(&b.threshold));
        }
        stored.evaluations = evaluations;
    }
    if let Some(truth) = &bench.judged {
        let judged: Vec<_> = run
            .algorithms
            .iter()
            .zip(&bench.tunings)
            .map(|(stored, tuning)| {
                let thresholds: Vec<f64> = stored.evaluations.iter().map(|e| e.threshold).collect();
                tuning.judged_at_each(&thresholds).unwrap_or_default()
            })
            .collect();
        run = run.with_judged(truth, &judged);
    }
    let dir = export_dir(reports, &bench.result.name);
    let name = dir
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    crate::report::render_report(&[(name, run)], &dir).map_err(|e| e.to_string())?;
    Ok(dir)
}

/// Carries out a side effect; a reload returns the new worker's channel.
fn perform(app: &mut App, request: Request) -> Option<Receiver<LoadEvent>> {
    match request {
        Request::Reload => return Some(loader::spawn(app.source.clone())),
        Request::Save(path) => {
            let outcome = app
                .bench
                .as_ref()
                .ok_or_else(|| "nothing loaded".to_string())
                .and_then(save::tuned_yaml)
                .and_then(|text| {
                    let written = match path.parent().filter(|d| !d.as_os_str().is_empty()) {
                        Some(dir) => std::fs::create_dir_all(dir),
                        None => Ok(()),
                    };
                    written
                        .map_err(|e| format!("{}: {e}", path.display()))
                        .and_then(|()| {
                            crate::util::io::write_atomic(&path, text.as_bytes())
                                .map_err(|e| e.to_string())
                        })
                });
            let pending = app.bench.as_ref().map_or(0, |b| b.pending.len());
            app.status = match outcome {
                Ok(()) => {
                    app.unsaved = false;
                    match pending {
                        // Short enough for an 80-column status line.
                        0 => format!(
                            "saved {}: neardup run on it reproduces these",
                            path.display()
                        ),
                        n => format!(
                            "saved {}; {n} unfinished rows at configured thresholds",
                            path.display()
                        ),
                    }
                }
                Err(e) => format!("not saved: {e}"),
            };
        }
        Request::Export => {
            let reports = std::path::Path::new("reports");
            app.status = match app.bench.as_ref().map(|b| export_charts(b, reports)) {
                Some(Ok(dir)) => format!(
                    "charts at the current thresholds written to {}/ (report.md, PNG, SVG)",
                    dir.display()
                ),
                Some(Err(e)) => format!("not exported: {e}"),
                None => "nothing to export yet".into(),
            };
        }
    }
    None
}

#[cfg(test)]
mod tests;
