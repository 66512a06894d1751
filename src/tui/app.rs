//! The workbench's state, changed only by [`App::update`]. Side effects
//! (reloading, writing files) are queued as [`Request`]s for the event loop.

use std::path::PathBuf;

use super::action::{Action, KEYS};
use super::inspect::{shared_text, Highlighted};
use super::loader::LoadEvent;
use super::workbench::{
    find_errors, sort_errors, ErrorKind, ErrorRow, ErrorSort, Level, Source, Workbench,
};
use crate::eval::choose::Objective;
use crate::extract::extract_page;
use crate::util::fmt::threshold_as_typed;
use crate::util::stage::StageRecord;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Screen {
    Corpus,
    Tuning,
    Throughput,
    Errors,
    Inspector,
}

impl Screen {
    pub const ALL: [Screen; 5] = [
        Screen::Corpus,
        Screen::Tuning,
        Screen::Throughput,
        Screen::Errors,
        Screen::Inspector,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Screen::Corpus => "Corpus",
            Screen::Tuning => "Tuning",
            Screen::Throughput => "Throughput",
            Screen::Errors => "Errors",
            Screen::Inspector => "Inspector",
        }
    }

    fn index(self) -> usize {
        Screen::ALL.iter().position(|&s| s == self).expect("listed")
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Mode {
    Normal,
    /// A value being typed for the focused knob (or, see
    /// [`App::typing_precision`], the least precision of the recall jump).
    Typing(String),
    /// A question waiting for y or n.
    Confirm(Pending),
}

/// What waits for a yes.
#[derive(Debug, Clone, PartialEq)]
pub enum Pending {
    /// Quit with thresholds not saved.
    Quit,
    /// Reload, dropping thresholds not saved.
    Reload,
    /// Save over a file that exists.
    Overwrite(PathBuf),
}

impl Pending {
    pub fn question(&self) -> String {
        match self {
            Pending::Quit => "thresholds changed since the last save: quit anyway? (y/n)".into(),
            Pending::Reload => {
                "thresholds changed since the last save: reload and drop them? (y/n)".into()
            }
            Pending::Overwrite(path) => format!("{} exists: overwrite it? (y/n)", path.display()),
        }
    }
}

/// The worker's progress while an experiment loads.
#[derive(Debug, Clone, Default)]
pub struct Progress {
    /// Algorithm runs to come (extractions x algorithms), once known.
    pub runs: Option<usize>,
    pub pages: Option<usize>,
    /// Extractions decoded and tokenised before the runs, once known.
    pub extractions: usize,
    pub records: Vec<StageRecord>,
    /// The stage under way, counted item by item.
    pub work: Option<Work>,
    /// The corpus file being read, until it is.
    pub reading: Option<Reading>,
}

/// The corpus read under way.
#[derive(Debug, Clone)]
pub struct Reading {
    /// The file's size (0 when not known: the embedded demo, a folder).
    pub total_bytes: u64,
    pub counter: std::sync::Arc<crate::corpus::ReadCounter>,
    pub started: std::time::Instant,
    /// When the next stage began: the rate stops there.
    pub ended: Option<std::time::Instant>,
}

impl Reading {
    pub fn bytes(&self) -> u64 {
        self.counter
            .bytes
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    pub fn pages(&self) -> u64 {
        self.counter
            .pages
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The share of the file read, 0..=1.
    pub fn ratio(&self) -> f64 {
        match self.total_bytes {
            0 => 0.0,
            total => (self.bytes() as f64 / total as f64).min(1.0),
        }
    }

    /// Pages per second so far and seconds left at the byte rate so far;
    /// `None` in the first half second.
    pub fn rate_and_eta(&self) -> Option<(f64, Option<f64>)> {
        let end = self.ended.unwrap_or_else(std::time::Instant::now);
        let seconds = end.duration_since(self.started).as_secs_f64();
        if seconds < 0.5 {
            return None;
        }
        let byte_rate = self.bytes() as f64 / seconds;
        let eta = (self.total_bytes > 0 && byte_rate > 0.0)
            .then(|| self.total_bytes.saturating_sub(self.bytes()) as f64 / byte_rate);
        Some((self.pages() as f64 / seconds, eta))
    }
}

/// A stage under way: its items done so far, of `total` (0 when unknown).
#[derive(Debug, Clone)]
pub struct Work {
    pub what: String,
    pub total: u64,
    pub done: std::sync::Arc<std::sync::atomic::AtomicU64>,
    pub started: std::time::Instant,
}

impl Work {
    pub fn done(&self) -> u64 {
        self.done.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Items per second so far; `None` in the first half second (too
    /// early to say).
    pub fn rate(&self) -> Option<f64> {
        let seconds = self.started.elapsed().as_secs_f64();
        (seconds >= 0.5).then(|| self.done() as f64 / seconds)
    }

    /// Seconds left at the rate so far, when the total is known.
    pub fn eta(&self) -> Option<f64> {
        let rate = self.rate().filter(|&r| r > 0.0)?;
        (self.total > 0).then(|| self.total.saturating_sub(self.done()) as f64 / rate)
    }

    /// The share done, 0..=1 (0 when the total is unknown).
    pub fn ratio(&self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            (self.done() as f64 / self.total as f64).min(1.0)
        }
    }
}

/// Stages that make up one algorithm run, in the order they finish.
pub const RUN_STAGES: usize = 4;

impl Progress {
    /// Per algorithm run seen so far: its name and how many of its
    /// [`RUN_STAGES`] stages finished (collection statistics not counted).
    pub fn runs_seen(&self) -> Vec<(String, usize)> {
        use crate::util::stage::Stage;
        let mut runs: Vec<(String, usize)> = Vec::new();
        for r in &self.records {
            match r.stage {
                Stage::DecodeExtract | Stage::ExtractCache | Stage::Tokenize | Stage::Fit => {
                    if r.stage == Stage::Fit && runs.last().is_none_or(|l| l.0 != r.algorithm) {
                        runs.push((r.algorithm.clone(), 0));
                    }
                }
                _ => {
                    if runs
                        .last()
                        .is_none_or(|l| l.0 != r.algorithm || l.1 >= RUN_STAGES)
                    {
                        runs.push((r.algorithm.clone(), 0));
                    }
                    if let Some(last) = runs.last_mut() {
                        last.1 += 1;
                    }
                }
            }
        }
        runs
    }

    /// The overall gauge, in two phases so that it moves with the work: a
    /// stage weighed like any other would hold the pages' extraction, often
    /// a sixth of the load, to under 1% of the gauge.
    pub fn overall(&self) -> Overall {
        use crate::util::stage::Stage;
        let runs = self.runs.unwrap_or(0);
        let extracted = self
            .records
            .iter()
            .any(|r| matches!(r.stage, Stage::DecodeExtract | Stage::ExtractCache));
        // A stage's record may come just after the next stage began (they
        // travel apart), so a full stage counts once.
        let current = |work: &Work| work.ratio().min(0.999);
        let extracting = |work: &&Work| work.what.starts_with(crate::util::stage::EXTRACT_WORK);
        if !extracted {
            let ratio = self.work.as_ref().filter(extracting).map_or(0.0, current);
            return Overall::Extracting { ratio };
        }
        let current = self
            .work
            .as_ref()
            .filter(|w| !extracting(w))
            .map_or(0.0, current);
        // Each extraction is tokenised once for the runs on it (algorithms
        // with tokens of their own add stages that are not counted ahead),
        // or not at all when its one reader signs from the text (SimHash
        // alone): then it counts once its runs have begun.
        let seen = self.runs_seen();
        let run_extractions: std::collections::HashSet<&str> = seen
            .iter()
            .filter_map(|(algorithm, _)| {
                let variant = algorithm.rsplit_once(" [")?.1;
                variant.split([' ', ']']).next()
            })
            .collect();
        let tokenised = self
            .records
            .iter()
            .filter(|r| r.stage == Stage::Tokenize)
            .count()
            .max(run_extractions.len())
            .min(self.extractions);
        let finished: usize = seen.iter().map(|r| r.1).sum();
        let planned = (runs * RUN_STAGES + self.extractions).max(1);
        Overall::Runs {
            ratio: ((tokenised + finished) as f64 + current).min(planned as f64) / planned as f64,
            done: seen.iter().filter(|r| r.1 >= RUN_STAGES).count(),
            runs,
        }
    }
}

/// What the overall gauge shows (the corpus read aside, which has its own).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Overall {
    /// The pages are being decoded and extracted (or read from the cache):
    /// that stage's share done.
    Extracting { ratio: f64 },
    /// The share of the runs' stages finished (tokenising each extraction
    /// and each run's four), the stage under way counted by its items.
    Runs {
        ratio: f64,
        done: usize,
        runs: usize,
    },
}

impl Overall {
    pub fn ratio(&self) -> f64 {
        match *self {
            Overall::Extracting { ratio } | Overall::Runs { ratio, .. } => ratio,
        }
    }

    /// `extracting the pages: 45%, then 36 algorithm runs`, `12 of 36
    /// algorithm runs done: 38%`.
    pub fn label(&self, runs_planned: usize) -> String {
        match *self {
            Overall::Extracting { ratio } => format!(
                "extracting the pages: {:.0}%, then {runs_planned} algorithm runs",
                ratio * 100.0
            ),
            Overall::Runs { ratio, done, runs } => {
                format!(
                    "{done} of {runs} algorithm runs done: {:.0}%",
                    ratio * 100.0
                )
            }
        }
    }
}

/// The errors screen's list and its settings.
#[derive(Debug, Clone)]
pub struct ErrorsView {
    pub kind: ErrorKind,
    pub sort: ErrorSort,
    /// Only pairs of this slice; `None` for all.
    pub slice: Option<u16>,
    /// The listed rows after the slice filter.
    pub rows: Vec<ErrorRow>,
    /// The errors of the kind at the current thresholds in the filtered
    /// slice (or all), before the listing cap.
    pub total: u64,
    /// The errors of the kind in each slice: the filter skips slices
    /// without any.
    pub by_slice: Vec<u64>,
    pub selected: usize,
    /// The rows no longer match the thresholds or settings.
    pub stale: bool,
}

impl Default for ErrorsView {
    fn default() -> Self {
        ErrorsView {
            kind: ErrorKind::FalsePositives,
            sort: ErrorSort::MostConfident,
            slice: None,
            rows: Vec::new(),
            total: 0,
            by_slice: Vec::new(),
            selected: 0,
            stale: true,
        }
    }
}

/// Two pages side by side.
#[derive(Debug, Clone)]
pub struct Inspection {
    /// The algorithm whose error list it was opened from.
    pub algorithm: usize,
    pub a: u32,
    pub b: u32,
    pub left: Highlighted,
    pub right: Highlighted,
    pub scroll: u16,
    /// Per algorithm run, what its candidate search says of the pair (LSH:
    /// the bands it shares), when it has something to say.
    pub explanations: Vec<Option<String>>,
}

/// Side effects the event loop carries out.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    Reload,
    Save(PathBuf),
    Export,
}

#[derive(Debug)]
pub struct App {
    pub source: Source,
    pub screen: Screen,
    pub help: bool,
    pub mode: Mode,
    /// The last message for the status line.
    pub status: String,
    pub progress: Progress,
    /// Why loading failed, shown until a reload succeeds.
    pub failure: Option<String>,
    pub bench: Option<Workbench>,
    /// The focused algorithm (index into the results).
    pub focus: usize,
    /// The focused knob: 0 the threshold, 1.. the gates.
    pub knob: usize,
    pub level: Level,
    pub errors: ErrorsView,
    pub inspection: Option<Inspection>,
    pub quit: bool,
    pub requests: Vec<Request>,
    /// Thresholds moved since the last save or load.
    pub unsaved: bool,
    /// The value being typed is the recall jump's least precision.
    pub typing_precision: bool,
    /// The selected row of the help, the throughput table and the corpus
    /// slices (the lists the other screens select through stay theirs).
    pub help_row: usize,
    pub stage_row: usize,
    pub slice_row: usize,
    /// A dedup mapping opened with `--mapping`: its screens replace the
    /// experiment's.
    pub mapping: Option<super::mapping::MappingView>,
}

impl App {
    pub fn new(source: Source) -> Self {
        App {
            source,
            screen: Screen::Tuning,
            help: false,
            mode: Mode::Normal,
            status: "loading ...".into(),
            progress: Progress::default(),
            failure: None,
            bench: None,
            focus: 0,
            knob: 0,
            level: Level::Pairwise,
            errors: ErrorsView::default(),
            inspection: None,
            quit: false,
            requests: Vec::new(),
            unsaved: false,
            typing_precision: false,
            help_row: 0,
            stage_row: 0,
            slice_row: 0,
            mapping: None,
        }
    }

    /// The workbench on a dedup mapping (`neardup tui --mapping OUT`).
    pub fn with_mapping(source: Source, view: super::mapping::MappingView) -> Self {
        let mut app = App::new(source);
        app.status = format!(
            "{}: {} pages in {} clusters by {}; Enter opens a removed page",
            view.mapping.path.display(),
            view.mapping.pages.len(),
            view.mapping.clusters.len(),
            view.mapping.algorithm
        );
        app.mapping = Some(view);
        app
    }

    /// [`App::update`] on a mapping's screens.
    fn update_mapping(&mut self, action: Action) {
        let Some(view) = &mut self.mapping else {
            return;
        };
        let removed = view.removed_here();
        match (&mut view.pair, action) {
            (Some(_), Action::Back) => view.pair = None,
            (Some(pair), Action::NextScreen) => pair.on_scores = !pair.on_scores,
            (Some(pair), action) if pair.on_scores && is_move(&action) => {
                // The renderer stops the rows where the last one shows.
                let rows = view.scorers.len();
                pair.scores_offset = moved(pair.scores_offset, &action, rows);
            }
            (Some(pair), Action::Up) => pair.scroll = pair.scroll.saturating_sub(1),
            (Some(pair), Action::Down) => pair.scroll = pair.scroll.saturating_add(1),
            (Some(pair), Action::PageUp) => pair.scroll = pair.scroll.saturating_sub(10),
            (Some(pair), Action::PageDown) => pair.scroll = pair.scroll.saturating_add(10),
            (Some(pair), Action::Home) => pair.scroll = 0,
            (Some(pair), Action::End) => pair.scroll = u16::MAX,
            (Some(_), Action::PrevAlgorithm) if view.member > 0 => {
                view.member -= 1;
                view.inspect();
            }
            (Some(_), Action::NextAlgorithm) if view.member + 1 < removed => {
                view.member += 1;
                view.inspect();
            }
            (None, Action::Confirm) => {
                view.member = 0;
                if !view.inspect() {
                    self.status = "a cluster of one page: nothing was removed".into();
                    return;
                }
            }
            (None, action) => {
                view.selected = moved(view.selected, &action, view.mapping.clusters.len());
            }
            _ => {}
        }
        if let Some(pair) = &view.pair {
            self.status = format!(
                "{} removed, {} kept ({}/{removed} of the cluster): marked runs are in both",
                pair.removed,
                pair.kept,
                view.member + 1
            );
        }
    }

    /// Whether a worker's counters move on screen (the corpus read, the
    /// stage under way while runs are pending): then every frame redraws.
    pub fn running(&self) -> bool {
        match &self.bench {
            None => {
                self.failure.is_none()
                    && (self.progress.work.is_some() || self.progress.reading.is_some())
            }
            Some(bench) => !bench.pending.is_empty(),
        }
    }

    /// A workbench already loaded (tests, benchmarks).
    pub fn with_workbench(bench: Workbench) -> Self {
        let mut app = App::new(bench.source.clone());
        app.loaded(bench);
        app
    }

    fn loaded(&mut self, mut bench: Workbench) {
        self.status = if bench.pending.is_empty() {
            format!(
                "{}: {} pages, {} algorithm runs; ? for help",
                bench.result.name,
                bench.result.pages,
                bench.result.algorithms.len()
            )
        } else {
            // The stages so far, for the throughput screen while it runs.
            bench.result.throughput = self.progress.records.clone();
            format!(
                "{}: {} pages read; each algorithm's row fills in as its run finishes",
                bench.result.name, bench.result.pages
            )
        };
        if let Some(note) = crate::experiment::tune::seeds_status(&bench.config) {
            self.status = format!("{}; {note}", self.status);
        }
        self.progress.reading = None;
        self.focus = self.focus.min(bench.tunings.len().saturating_sub(1));
        self.knob = 0;
        self.bench = Some(bench);
        self.unsaved = false;
        self.failure = None;
        self.inspection = None;
        self.errors = ErrorsView::default();
        self.refresh_errors();
    }

    /// Applies what the worker reports.
    pub fn on_load_event(&mut self, event: LoadEvent) {
        match event {
            LoadEvent::Planned {
                runs,
                pages,
                extractions,
            } => {
                if let Some(reading) = &mut self.progress.reading {
                    reading.ended.get_or_insert_with(std::time::Instant::now);
                }
                self.progress.runs = Some(runs);
                self.progress.pages = Some(pages);
                self.progress.extractions = extractions;
            }
            LoadEvent::Work { what, total, done } => {
                if let Some(reading) = &mut self.progress.reading {
                    reading.ended.get_or_insert_with(std::time::Instant::now);
                }
                self.progress.work = Some(Work {
                    what,
                    total,
                    done,
                    started: std::time::Instant::now(),
                });
            }
            LoadEvent::Reading {
                total_bytes,
                counter,
            } => {
                self.progress.reading = Some(Reading {
                    total_bytes,
                    counter,
                    started: std::time::Instant::now(),
                    ended: None,
                });
            }
            LoadEvent::Stage(record) => {
                if let Some(bench) = self.bench.as_mut().filter(|b| !b.pending.is_empty()) {
                    bench.result.throughput.push(record.clone());
                }
                self.progress.records.push(record);
            }
            LoadEvent::Ready(bench) | LoadEvent::Done(bench) => self.loaded(*bench),
            LoadEvent::Finished(run) => {
                let (result, tuning) = *run;
                if let Some(bench) = &mut self.bench {
                    // The user's own messages stay; the tuning screen
                    // counts the runs.
                    if bench.tunings.is_empty() {
                        self.status = format!(
                            "{} [{}] finished: move, inspect and save it while the others run",
                            result.run.label,
                            result.extraction.name()
                        );
                        self.focus = 0;
                        self.errors.stale = true;
                    }
                    bench.push_run(result, tuning);
                    if self.screen == Screen::Errors && self.errors.stale {
                        self.refresh_errors();
                    }
                }
            }
            LoadEvent::Complete(result) => {
                if let Some(bench) = &mut self.bench {
                    bench.complete(*result);
                    self.progress.work = None;
                    self.status = format!(
                        "{}: {} pages, {} algorithm runs, all finished; ? for help",
                        bench.result.name,
                        bench.result.pages,
                        bench.result.algorithms.len()
                    );
                }
            }
            LoadEvent::Failed(message) => {
                self.status = "loading failed: r retries, q quits".into();
                self.failure = Some(message);
            }
        }
    }

    pub fn update(&mut self, action: Action) {
        if let Mode::Confirm(pending) = &self.mode {
            let pending = pending.clone();
            self.mode = Mode::Normal;
            match action {
                Action::Confirm | Action::Yes => self.carry_out(pending),
                Action::Quit if pending == Pending::Quit => self.quit = true,
                _ => self.status = "cancelled".into(),
            }
            return;
        }
        match action {
            Action::Quit if self.unsaved => self.ask(Pending::Quit),
            Action::Quit => self.quit = true,
            Action::Yes => {}
            Action::ToggleHelp => {
                self.help = !self.help;
                self.help_row = 0;
            }
            _ if self.help => self.help_row = moved(self.help_row, &action, KEYS.len()),
            _ if self.mapping.is_some() => self.update_mapping(action),
            Action::Show(screen) => self.show(screen),
            Action::NextScreen => self.show(Screen::ALL[(self.screen.index() + 1) % 5]),
            Action::PrevScreen => self.show(Screen::ALL[(self.screen.index() + 4) % 5]),
            Action::Back => {
                if self.help {
                    self.help = false;
                } else if self.mode != Mode::Normal {
                    self.mode = Mode::Normal;
                    self.status = "typing cancelled".into();
                } else if self.screen == Screen::Inspector {
                    self.show(Screen::Errors);
                }
            }
            Action::Reload if self.unsaved => self.ask(Pending::Reload),
            Action::Reload => self.carry_out(Pending::Reload),
            Action::NextLevel => {
                self.level = self.level.next();
                self.status = format!("charts and lists at the {} level", self.level.name());
            }
            Action::SaveThresholds if matches!(self.source, Source::External { .. }) => {
                self.status = format!("not saved: {}", super::loader::NO_EXPERIMENT);
            }
            Action::SaveThresholds => match self.save_path() {
                Some(path) if path.exists() => self.ask(Pending::Overwrite(path)),
                Some(path) => self.requests.push(Request::Save(path)),
                None => self.status = "nothing to save yet".into(),
            },
            Action::ExportCharts => match self.bench.as_ref().map(|b| b.pending.len()) {
                Some(left) if left > 0 => {
                    self.status = format!("the charts wait for every run: {left} still to finish")
                }
                _ => self.requests.push(Request::Export),
            },
            ref moving @ (Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::Home
            | Action::End
            | Action::Select(_))
                if matches!(self.screen, Screen::Throughput | Screen::Corpus) =>
            {
                if let Some(bench) = &self.bench {
                    if self.screen == Screen::Throughput {
                        let n = bench.result.throughput.len();
                        self.stage_row = moved(self.stage_row, moving, n);
                    } else {
                        let n = bench.summary.slices.len();
                        self.slice_row = moved(self.slice_row, moving, n);
                    }
                }
            }
            other => {
                // Only finished runs can be focused and moved.
                if self.algorithms() > 0 {
                    self.update_loaded(other);
                }
            }
        }
        if self.screen == Screen::Errors && self.errors.stale {
            self.refresh_errors();
        }
    }

    /// A message about one screen says nothing on the next.
    fn show(&mut self, screen: Screen) {
        if screen != self.screen {
            self.screen = screen;
            self.status.clear();
        }
    }

    fn ask(&mut self, pending: Pending) {
        self.status = pending.question();
        self.mode = Mode::Confirm(pending);
    }

    fn carry_out(&mut self, pending: Pending) {
        match pending {
            Pending::Quit => self.quit = true,
            Pending::Reload => {
                self.bench = None;
                self.progress = Progress::default();
                self.failure = None;
                self.unsaved = false;
                self.status = "reloading ...".into();
                self.requests.push(Request::Reload);
            }
            Pending::Overwrite(path) => self.requests.push(Request::Save(path)),
        }
    }

    fn algorithms(&self) -> usize {
        self.bench.as_ref().map_or(0, |b| b.tunings.len())
    }

    /// Knobs of the focused algorithm: the threshold and its gates.
    pub fn knobs(&self) -> usize {
        self.bench
            .as_ref()
            .and_then(|b| b.tunings.get(self.focus))
            .map_or(1, |t| 1 + t.gates.len())
    }

    pub fn knob_name(&self) -> String {
        let Some(bench) = &self.bench else {
            return String::new();
        };
        let run = &bench.result.algorithms[self.focus].run;
        match self.knob {
            0 => format!("threshold ({})", run.scale.name),
            k => format!("{} gate", run.gates[k - 1].name),
        }
    }

    fn update_loaded(&mut self, action: Action) {
        let n = self.algorithms();
        match (self.screen, action) {
            (
                Screen::Tuning,
                ref moving @ (Action::Up
                | Action::Down
                | Action::PageUp
                | Action::PageDown
                | Action::Home
                | Action::End
                | Action::Select(_)),
            ) => self.focus_algorithm(moved(self.focus, moving, n)),
            (Screen::Errors, Action::PrevAlgorithm) => {
                self.focus_algorithm((self.focus + n - 1) % n)
            }
            (Screen::Errors, Action::NextAlgorithm) => self.focus_algorithm((self.focus + 1) % n),
            (Screen::Tuning, Action::Nudge(steps)) => {
                let step = self.bench.as_ref().expect("loaded").tunings[self.focus].step;
                let value =
                    self.knob_value() + f64::from(steps) * if self.knob == 0 { step } else { 0.01 };
                self.set_knob(value);
            }
            (Screen::Tuning, Action::NextKnob) => {
                self.knob = (self.knob + 1) % self.knobs();
                self.status = format!("focused: {}", self.knob_name());
            }
            (Screen::Tuning, Action::Jump(objective)) => self.jump(objective),
            (Screen::Tuning, Action::NextClustering) => self.next_clustering(),
            (Screen::Tuning, Action::StartTypingPrecision) => {
                let p = self.bench.as_ref().expect("loaded").tunings[self.focus].least_precision;
                self.typing_precision = true;
                self.mode = Mode::Typing(threshold_as_typed(p));
                self.status =
                    "the least precision for the most-recall jump: Enter jumps, Esc cancels".into();
            }
            (Screen::Tuning, Action::StartTyping) => {
                self.typing_precision = false;
                self.mode = Mode::Typing(String::new());
                self.status = format!(
                    "type a value for the {}; Enter applies, Esc cancels",
                    self.knob_name()
                );
            }
            (_, Action::Type(c)) => {
                if let Mode::Typing(text) = &mut self.mode {
                    // The characters of a decimal f64 literal, exponent
                    // included, so `1e9` reaches the range check as 1e9.
                    if !(c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E')) {
                        self.status = format!("`{c}` is not part of a number; Esc cancels");
                    } else if text.len() < 24 {
                        text.push(c);
                    }
                }
            }
            (_, Action::Erase) => {
                if let Mode::Typing(text) = &mut self.mode {
                    text.pop();
                }
            }
            (_, Action::Confirm) if matches!(self.mode, Mode::Typing(_)) => {
                let Mode::Typing(text) = std::mem::replace(&mut self.mode, Mode::Normal) else {
                    unreachable!("matched above")
                };
                if std::mem::take(&mut self.typing_precision) {
                    self.apply_precision(&text);
                } else {
                    self.apply_typed(&text);
                }
            }
            (
                Screen::Errors,
                ref moving @ (Action::Up
                | Action::Down
                | Action::PageUp
                | Action::PageDown
                | Action::Home
                | Action::End
                | Action::Select(_)),
            ) => self.errors.selected = moved(self.errors.selected, moving, self.errors.rows.len()),
            (Screen::Errors, Action::ToggleErrorKind) => {
                self.errors.kind = match self.errors.kind {
                    ErrorKind::FalsePositives => ErrorKind::FalseNegatives,
                    ErrorKind::FalseNegatives => ErrorKind::FalsePositives,
                };
                self.errors.selected = 0;
                self.errors.stale = true;
            }
            (Screen::Errors, Action::ToggleSort) => {
                self.errors.sort = match self.errors.sort {
                    ErrorSort::MostConfident => ErrorSort::LeastConfident,
                    ErrorSort::LeastConfident => ErrorSort::MostConfident,
                };
                self.errors.selected = 0;
                self.errors.stale = true;
            }
            (Screen::Errors, Action::NextSliceFilter) => {
                if self.errors.stale {
                    self.refresh_errors();
                }
                let from = self.errors.slice.map_or(0, |s| usize::from(s) + 1);
                let next =
                    (from..self.errors.by_slice.len()).find(|&s| self.errors.by_slice[s] > 0);
                self.errors.slice = next.map(|s| s as u16);
                self.errors.selected = 0;
                self.errors.stale = true;
            }
            (Screen::Errors, Action::Confirm) => self.inspect_selected(),
            (Screen::Inspector, Action::PrevAlgorithm) => {
                if let Some(i) = &mut self.inspection {
                    i.algorithm = i.algorithm.saturating_sub(1);
                }
            }
            (Screen::Inspector, Action::NextAlgorithm) => {
                if let Some(i) = &mut self.inspection {
                    i.algorithm = (i.algorithm + 1).min(n - 1);
                }
            }
            (Screen::Inspector, Action::Up) => self.scroll(-1),
            (Screen::Inspector, Action::Down) => self.scroll(1),
            (Screen::Inspector, Action::PageUp) => self.scroll(-10),
            (Screen::Inspector, Action::PageDown) => self.scroll(10),
            (Screen::Inspector, Action::Home) => self.scroll(-i32::from(u16::MAX)),
            (Screen::Inspector, Action::End) => {
                if let Some(i) = &mut self.inspection {
                    // The texts' lines before wrapping: the drawing stops
                    // the scroll where the longer one ends on screen.
                    let lines = |h: &Highlighted| {
                        h.pieces
                            .iter()
                            .map(|(p, _)| p.matches('\n').count())
                            .sum::<usize>()
                    };
                    let end = lines(&i.left).max(lines(&i.right));
                    i.scroll = u16::try_from(end).unwrap_or(u16::MAX);
                }
            }
            _ => {}
        }
    }

    fn focus_algorithm(&mut self, focus: usize) {
        if focus != self.focus {
            self.focus = focus;
            self.knob = 0;
            self.errors.selected = 0;
            self.errors.stale = true;
        }
    }

    /// The focused knob's value.
    fn knob_value(&self) -> f64 {
        let t = &self.bench.as_ref().expect("loaded").tunings[self.focus];
        match self.knob {
            0 => t.threshold,
            k => t.gates[k - 1],
        }
    }

    fn set_knob(&mut self, value: f64) {
        let bench = self.bench.as_mut().expect("loaded");
        let result = &bench.result.algorithms[self.focus];
        let tuning = &mut bench.tunings[self.focus];
        let before = (tuning.threshold, tuning.gates.clone());
        let outcome = match self.knob {
            0 => tuning.set_threshold(value, result, &bench.result.truth),
            k => {
                tuning.set_gate(k - 1, value, result, &bench.result.truth);
                Ok(())
            }
        };
        if (tuning.threshold, tuning.gates.clone()) != before {
            self.unsaved = true;
            self.errors.stale = true;
        }
        self.status = match outcome {
            Ok(()) => format!(
                "{} = {}",
                self.knob_name(),
                threshold_as_typed(self.knob_value())
            ),
            Err(refused) => refused,
        };
    }

    /// Makes the focused algorithm's clusters by the next method, as
    /// `run` and `tune` do with `clustering:`.
    fn next_clustering(&mut self) {
        let bench = self.bench.as_mut().expect("loaded");
        let result = &bench.result.algorithms[self.focus];
        let tuning = &mut bench.tunings[self.focus];
        let method = tuning.clustering.next();
        tuning.set_clustering(method, result, &bench.result.truth);
        self.unsaved = true;
        self.errors.stale = true;
        self.status = format!(
            "clusters by {method}: clustered F1 {} at the threshold, best {}",
            crate::util::fmt::percent(tuning.evaluation.clustered.overall.f1()),
            tuning
                .choices
                .iter()
                .find(|(o, _)| *o == Objective::ClusteredF1)
                .and_then(|(_, t)| *t)
                .and_then(|t| tuning.curve.iter().find(|e| e.threshold == t))
                .map_or("-".into(), |e| format!(
                    "{}@{}",
                    crate::util::fmt::percent(e.clustered.overall.f1()),
                    e.threshold
                ))
        );
    }

    /// Moves the focused threshold to where `objective` (an index into
    /// [`super::workbench::Tuning::objectives`]) is best.
    fn jump(&mut self, objective: usize) {
        let tuning = &self.bench.as_ref().expect("loaded").tunings[self.focus];
        let Some((objective, choice)) = tuning.choices.get(objective).cloned() else {
            return;
        };
        let over = if tuning.chooses_over_judged() {
            " over the judged pairs"
        } else {
            ""
        };
        self.knob = 0;
        match choice {
            Some(t) => {
                self.set_knob(t);
                self.status = format!(
                    "{}{over}: threshold {}",
                    objective.short(),
                    threshold_as_typed(t)
                );
            }
            None if !over.is_empty() && objective == Objective::ClusteredF1 => {
                self.status =
                    "clustered F needs clusters: with judged pairs, b and p choose over them"
                        .into();
            }
            None => {
                self.status = format!("no threshold reaches {}{over}", objective.short());
            }
        }
    }

    fn apply_precision(&mut self, text: &str) {
        match text.parse::<f64>() {
            Ok(p) if (0.0..=1.0).contains(&p) => {
                let bench = self.bench.as_mut().expect("loaded");
                let scale = &bench.result.algorithms[self.focus].run.scale;
                bench.tunings[self.focus].set_least_precision(p, scale);
                self.jump(2);
            }
            Ok(p) => self.status = format!("{p} is out of range 0..=1 for a precision"),
            Err(_) => self.status = format!("`{text}` is not a number"),
        }
    }

    fn apply_typed(&mut self, text: &str) {
        let bench = self.bench.as_ref().expect("loaded");
        let scale = &bench.result.algorithms[self.focus].run.scale;
        let (min, max) = if self.knob == 0 {
            (scale.min, scale.max)
        } else {
            (0.0, 1.0)
        };
        match text.parse::<f64>() {
            // Past the floor but on the scale: set_knob explains the floor.
            Ok(v) if v >= min && v <= max => self.set_knob(v),
            Ok(v) => {
                self.status = format!(
                    "{v} is out of range {}..={} for the {}",
                    threshold_as_typed(min),
                    threshold_as_typed(max),
                    self.knob_name()
                )
            }
            Err(_) => self.status = format!("`{text}` is not a number"),
        }
    }

    fn scroll(&mut self, by: i32) {
        if let Some(i) = &mut self.inspection {
            i.scroll = (i32::from(i.scroll) + by).clamp(0, u16::MAX as i32) as u16;
        }
    }

    /// Recomputes the errors list of the focused algorithm.
    fn refresh_errors(&mut self) {
        let Some(bench) = self.bench.as_ref().filter(|b| !b.tunings.is_empty()) else {
            return;
        };
        let result = &bench.result.algorithms[self.focus];
        let tuning = &bench.tunings[self.focus];
        let (mut rows, by_slice) = find_errors(
            result,
            tuning,
            &bench.result.truth,
            self.errors.kind,
            self.errors.slice,
        );
        sort_errors(&mut rows, &result.run.scale, self.errors.sort);
        self.errors.rows = rows;
        self.errors.total = match self.errors.slice {
            Some(s) => by_slice.get(usize::from(s)).copied().unwrap_or(0),
            None => by_slice.iter().sum(),
        };
        self.errors.by_slice = by_slice;
        self.errors.selected = self
            .errors
            .selected
            .min(self.errors.rows.len().saturating_sub(1));
        self.errors.stale = false;
    }

    fn inspect_selected(&mut self) {
        let Some(row) = self.errors.rows.get(self.errors.selected).copied() else {
            self.status = "no pair selected".into();
            return;
        };
        self.inspect(row.a, row.b);
    }

    /// Opens pages `a` and `b` side by side.
    pub fn inspect(&mut self, a: u32, b: u32) {
        let bench = self.bench.as_ref().expect("loaded");
        let extraction = bench.result.algorithms[self.focus].extraction;
        let text = |p: u32| extract_page(&bench.corpus.pages[p as usize], extraction).text();
        let (left, right) = shared_text(&text(a), &text(b));
        self.status = format!(
            "{} and {}: marked runs of four characters or words are in both",
            bench.corpus.pages[a as usize].id, bench.corpus.pages[b as usize].id
        );
        let explanations = explain_pair(bench, a, b);
        self.inspection = Some(Inspection {
            algorithm: self.focus,
            a,
            b,
            left,
            right,
            scroll: 0,
            explanations,
        });
        self.screen = Screen::Inspector;
    }

    /// Where `s` writes: beside the experiment, whose paths are relative
    /// to its folder (`*.tuned.yaml` is ignored there); the demo's and a
    /// bare corpus's into `tuned/` of the working directory, ignored too,
    /// so that using the workbench leaves a checkout clean.
    fn save_path(&self) -> Option<PathBuf> {
        let bench = self.bench.as_ref()?;
        let name = format!("{}.tuned.yaml", bench.result.name);
        Some(match &self.source {
            Source::Experiment(path) => path.with_file_name(name),
            Source::Demo | Source::Corpus(_) | Source::External { .. } => {
                PathBuf::from(super::save::TUNED_DIR).join(name)
            }
        })
    }
}

/// Where a move (up, down, ten rows, the ends, a clicked row) takes the
/// selected row of a list of `n`.
/// Whether `action` moves through a list.
fn is_move(action: &Action) -> bool {
    matches!(
        action,
        Action::Up | Action::Down | Action::PageUp | Action::PageDown | Action::Home | Action::End
    )
}

fn moved(row: usize, action: &Action, n: usize) -> usize {
    let last = n.saturating_sub(1);
    match *action {
        Action::Up => row.saturating_sub(1),
        Action::Down => row + 1,
        Action::PageUp => row.saturating_sub(10),
        Action::PageDown => row + 10,
        Action::Home => 0,
        Action::End => last,
        Action::Select(clicked) => clicked,
        _ => row,
    }
    .min(last)
}

/// What each run's candidate search says of pages `a` and `b`: the two
/// pages signed again by a detector built from the run's settings (the
/// sketches are not kept).
pub(super) fn explain_pair(
    bench: &super::workbench::Workbench,
    a: u32,
    b: u32,
) -> Vec<Option<String>> {
    use crate::algo::Document;
    let config = &bench.config;
    bench
        .result
        .algorithms
        .iter()
        .map(|r| {
            let entry = config.algorithms.get(r.entry)?;
            // The learned judge explains every pair: each feature's share.
            if r.run.banding.is_none() && r.run.name != "learned" {
                return None;
            }
            let settings = entry.config.settings();
            let tokenizer = config
                .algorithm_tokenizer(&entry.config)
                .unwrap_or_else(|| config.tokenizer.clone());
            let doc = |p: u32| {
                let page = &bench.corpus.pages[p as usize];
                let extracted = extract_page(page, r.extraction);
                let text = extracted.text();
                let mut d = Document::new(p, &text, page.lang, &tokenizer);
                d.host = page.url.as_deref().and_then(crate::algo::learned::host_of);
                // The semantic features weigh sentences by their place in
                // the page's structure, as the run did.
                d.structure = Some(std::sync::Arc::new(extracted.structure));
                d
            };
            // The judge the run fitted holds the corpus statistics its
            // I-Match and semantic features need; a fresh one would not.
            match &r.fitted {
                Some(fitted) => fitted.0.explain_pair(&doc(a), &doc(b)),
                None => settings.build(None).explain_pair(&doc(a), &doc(b)),
            }
        })
        .collect()
}
