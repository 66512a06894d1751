//! Whole screens snapshot-tested on ratatui's `TestBackend`, and key ->
//! action -> state tests of the tuning, errors and inspector logic, on the
//! demo experiment.

use std::sync::OnceLock;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::backend::TestBackend;
use ratatui::Terminal;

use super::action::{action_for, Action};
use super::app::{App, Mode, Overall, Request, Screen};
use super::loader::{load_now, LoadEvent};
use super::workbench::{ErrorKind, Source, Workbench, MAX_LISTED};
use super::{perform, ui};
use crate::eval::evaluate_grouped;
use crate::experiment::ExperimentConfig;
use crate::extract::Extraction;
use crate::util::stage::{Stage, StageRecord};

/// The demo, loaded once; timings fixed so that screens are repeatable.
fn demo() -> Workbench {
    static DEMO: OnceLock<Workbench> = OnceLock::new();
    let mut bench = DEMO
        .get_or_init(|| load_now(&Source::Demo).expect("the demo loads"))
        .clone();
    for (i, r) in bench.result.throughput.iter_mut().enumerate() {
        r.wall_seconds = 0.001 * (i + 1) as f64;
        r.cpu_seconds = 0.002 * (i + 1) as f64;
    }
    bench.result.wall_seconds = 1.5;
    bench.result.cpu_seconds = 2.5;
    bench.result.peak_memory_bytes = Some(100_000_000);
    bench
}

fn algorithm(bench: &Workbench, label: &str, extraction: Extraction) -> usize {
    bench
        .result
        .algorithms
        .iter()
        .position(|a| a.run.label.starts_with(label) && a.extraction == extraction)
        .unwrap_or_else(|| panic!("no {label} on {}", extraction.name()))
}

fn screen(app: &App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|f| ui::render(app, f)).unwrap();
    terminal.backend().to_string()
}

fn key(app: &mut App, code: KeyCode) {
    key_with(app, code, KeyModifiers::NONE);
}

fn key_with(app: &mut App, code: KeyCode, modifiers: KeyModifiers) {
    if let Some(action) = action_for(app, KeyEvent::new(code, modifiers)) {
        app.update(action);
    }
}

fn focus(app: &mut App, index: usize) {
    key(app, KeyCode::Char('2'));
    for _ in 0..20 {
        key(app, KeyCode::Up);
    }
    for _ in 0..index {
        key(app, KeyCode::Down);
    }
    assert_eq!(app.focus, index);
}

#[test]
fn snapshot_every_screen() {
    let bench = demo();
    let full_minhash = algorithm(&bench, "minhash(w=3", Extraction::FullText);
    let mut app = App::with_workbench(bench);
    focus(&mut app, 2);
    insta::assert_snapshot!("tuning_100x30", screen(&app, 100, 30));
    insta::assert_snapshot!("tuning_80x24", screen(&app, 80, 24));
    key(&mut app, KeyCode::Char('1'));
    insta::assert_snapshot!("corpus", screen(&app, 100, 30));
    key(&mut app, KeyCode::Char('3'));
    insta::assert_snapshot!("throughput", screen(&app, 100, 30));
    focus(&mut app, full_minhash);
    key(&mut app, KeyCode::Char('4'));
    insta::assert_snapshot!("errors", screen(&app, 100, 30));
    key(&mut app, KeyCode::Enter);
    insta::assert_snapshot!("inspector", screen(&app, 100, 30));
    key(&mut app, KeyCode::Char('?'));
    insta::assert_snapshot!("help", screen(&app, 100, 30));
}

/// Every screen at the smallest size the workbench is meant for and at a
/// common one, the lists scrolled to their ends.
#[test]
fn snapshot_every_screen_at_80x24_and_120x40() {
    let bench = demo();
    let full_minhash = algorithm(&bench, "minhash(w=3", Extraction::FullText);
    let semantic_full = bench
        .result
        .throughput
        .iter()
        .position(|r| r.algorithm.starts_with("semantic(") && r.algorithm.ends_with("[full_text]"))
        .expect("a semantic stage on full_text");
    let mut app = App::with_workbench(bench);
    for (width, height) in [(80, 24), (120, 40)] {
        let size = format!("{width}x{height}");
        key(&mut app, KeyCode::Char('1'));
        insta::assert_snapshot!(format!("corpus_{size}"), screen(&app, width, height));
        focus(&mut app, full_minhash);
        insta::assert_snapshot!(
            format!("tuning_{size}_full_text"),
            screen(&app, width, height)
        );
        key(&mut app, KeyCode::Char('3'));
        key(&mut app, KeyCode::Home);
        insta::assert_snapshot!(format!("throughput_{size}"), screen(&app, width, height));
        for _ in 0..semantic_full {
            key(&mut app, KeyCode::Char('j'));
        }
        assert_eq!(app.stage_row, semantic_full);
        let shown = screen(&app, width, height);
        assert!(
            shown.contains("semantic(") && (shown.contains("[f]") || shown.contains("[full_text]")),
            "{shown}"
        );
        insta::assert_snapshot!(format!("throughput_{size}_semantic_full_text"), shown);
        key(&mut app, KeyCode::Char('4'));
        insta::assert_snapshot!(format!("errors_{size}"), screen(&app, width, height));
        key(&mut app, KeyCode::Enter);
        insta::assert_snapshot!(format!("inspector_{size}"), screen(&app, width, height));
        key(&mut app, KeyCode::Char('?'));
        key(&mut app, KeyCode::End);
        let help = screen(&app, width, height);
        let last = super::action::KEYS.last().expect("keys").1;
        assert!(help.contains(last), "{help}");
        insta::assert_snapshot!(format!("help_{size}_end"), help);
        key(&mut app, KeyCode::Esc);
    }
}

#[test]
fn the_inspector_tells_every_algorithm_apart_at_80_columns() {
    use super::ui::label::{fit_label, run_labels};
    let bench = demo();
    let labels = run_labels(&bench);
    let peers: Vec<&str> = labels.iter().map(String::as_str).collect();
    // The inspector's label column at 80 columns.
    let shown: std::collections::HashSet<String> = labels
        .iter()
        .zip(&bench.result.algorithms)
        .map(|(l, a)| fit_label(l, a.extraction.name(), 20, &peers))
        .collect();
    assert_eq!(shown.len(), labels.len(), "{shown:?}");
    assert!(shown.iter().all(|l| l.chars().count() <= 20), "{shown:?}");
}

#[test]
fn two_learned_judges_on_different_models_keep_apart() {
    let dir = tempfile::tempdir().unwrap();
    write_demo_model(&dir.path().join("a.json"));
    write_demo_model(&dir.path().join("b.json"));
    let path = dir.path().join("two.yaml");
    std::fs::write(
        &path,
        "corpus: demo\nalgorithms:\n  - {type: learned, model: a.json}\n  - {type: learned, model: b.json}\n",
    )
    .unwrap();
    let bench = load_now(&Source::Experiment(path)).expect("loads");
    // The run names each judge by its model; the workbench keeps that.
    let labels = super::ui::label::run_labels(&bench);
    assert_ne!(labels[0], labels[1], "{labels:?}");
    assert!(labels[0].contains("model a"), "{labels:?}");
    assert!(labels[1].contains("model b"), "{labels:?}");
}

#[test]
fn the_mouse_selects_tabs_and_rows_and_the_wheel_scrolls() {
    use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
    use ratatui::layout::Rect;
    let mut app = App::with_workbench(demo());
    let area = Rect::new(0, 0, 80, 24);
    let mouse = |app: &mut App, kind, column, row| {
        let event = MouseEvent {
            kind,
            column,
            row,
            modifiers: KeyModifiers::NONE,
        };
        if let Some(action) = super::action::action_for_mouse(app, event, area) {
            app.update(action);
        }
    };
    let click = MouseEventKind::Down(MouseButton::Left);
    // " 1 Corpus | 2 Tuning | 3 Throughput ...": column 26 is in "Throughput".
    mouse(&mut app, click, 26, 0);
    assert_eq!(app.screen, Screen::Throughput);
    // Border and header above the first row, at line 1 and 2.
    mouse(&mut app, click, 10, 5);
    assert_eq!(app.stage_row, 2);
    mouse(&mut app, MouseEventKind::ScrollDown, 10, 10);
    assert_eq!(app.stage_row, 3);
    mouse(&mut app, MouseEventKind::ScrollUp, 10, 10);
    mouse(&mut app, MouseEventKind::ScrollUp, 10, 10);
    assert_eq!(app.stage_row, 1);
    mouse(&mut app, click, 3, 0);
    assert_eq!(app.screen, Screen::Corpus);
    mouse(&mut app, click, 14, 0);
    assert_eq!(app.screen, Screen::Tuning);
    mouse(&mut app, click, 10, 4);
    assert_eq!(app.focus, 1);
    // A click below the last row selects nothing.
    mouse(&mut app, click, 10, 23);
    assert_eq!(app.focus, 1);
}

#[test]
fn status_messages_wrap_and_clear_on_a_screen_change() {
    let mut app = App::with_workbench(demo());
    app.status = "a message long enough to need a second line at eighty columns, \
                  which it gets rather than being cut at the edge"
        .into();
    let shown = screen(&app, 80, 24);
    assert!(shown.contains("being cut at the edge"), "{shown}");
    key(&mut app, KeyCode::Char('3'));
    assert_eq!(app.status, "");
    app.status = "stays".into();
    key(&mut app, KeyCode::Char('3'));
    assert_eq!(app.status, "stays", "the same screen is no change");
}

#[test]
fn the_gauge_line_gives_the_rate_and_the_time_left() {
    use crate::tui::app::Work;
    use crate::tui::ui::loading::work_line;
    let work = Work {
        what: "verify simhash [main]".into(),
        total: 15_000,
        done: std::sync::Arc::new(std::sync::atomic::AtomicU64::new(5_000)),
        started: std::time::Instant::now() - std::time::Duration::from_secs(10),
    };
    assert_eq!(
        work_line(&work),
        " verify simhash [main]: 5000 of 15.0k pairs, 500/s, 20 s left"
    );
    let unknown = Work {
        what: "candidates simhash [main]".into(),
        total: 0,
        ..work
    };
    assert_eq!(unknown.eta(), None);
    assert!(work_line(&unknown).ends_with("5000 pages, 500/s"));
    let silent = Work {
        done: std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0)),
        ..unknown
    };
    assert_eq!(work_line(&silent), " candidates simhash [main]: 10 s");
}

#[test]
fn snapshot_loading_and_failure() {
    let mut app = App::new(Source::Demo);
    app.on_load_event(LoadEvent::Planned {
        runs: 3,
        pages: 196,
        extractions: 1,
    });
    let record = |stage, algorithm: &str| {
        LoadEvent::Stage(StageRecord {
            stage,
            algorithm: algorithm.into(),
            pages: 196,
            input_bytes: 1000,
            wall_seconds: 0.5,
            cpu_seconds: 0.5,
            rss_bytes: None,
            peak_bytes: None,
            shares: Vec::new(),
        })
    };
    // Until the pages are extracted, the gauge is that stage's work.
    let extracting = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(49));
    app.on_load_event(LoadEvent::Work {
        what: "decode + extract [main]".into(),
        total: 196,
        done: extracting,
    });
    assert_eq!(app.progress.overall(), Overall::Extracting { ratio: 0.25 });
    assert_eq!(
        app.progress.overall().label(3),
        "extracting the pages: 25%, then 3 algorithm runs"
    );
    app.on_load_event(record(Stage::DecodeExtract, "main"));
    app.on_load_event(record(Stage::Tokenize, "main"));
    let run_stages = [
        Stage::Signature,
        Stage::Candidates,
        Stage::Verify,
        Stage::Evaluate,
    ];
    for stage in run_stages {
        app.on_load_event(record(stage, "exact [main]"));
    }
    app.on_load_event(record(Stage::Signature, "simhash(words,tf) [main]"));
    assert_eq!(app.progress.runs_seen().len(), 2);
    // Then the runs: tokenising, exact's four stages and simhash's
    // signatures of 12 + 1 stages (the extraction's work, finished, no
    // longer counts).
    let runs = |ratio: f64, done| Overall::Runs {
        ratio,
        done,
        runs: 3,
    };
    assert_eq!(app.progress.overall(), runs(6.0 / 13.0, 1));
    let done = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(250));
    app.on_load_event(LoadEvent::Work {
        what: "verify simhash(words,tf) [main]".into(),
        total: 1000,
        done: done.clone(),
    });
    assert!((app.progress.overall().ratio() - 6.25 / 13.0).abs() < 1e-9);
    assert_eq!(
        app.progress.overall().label(3),
        "1 of 3 algorithm runs done: 48%"
    );
    insta::assert_snapshot!("loading", screen(&app, 80, 24));
    done.store(1000, std::sync::atomic::Ordering::Relaxed);
    assert!(
        app.progress.overall().ratio() < 7.0 / 13.0,
        "a finished stage counts once, with its record"
    );
    // A run of SimHash alone makes no tokens: its extraction counts as
    // tokenised once its run begins, so the gauge reaches its end.
    let mut alone = App::new(Source::Demo);
    alone.on_load_event(LoadEvent::Planned {
        runs: 1,
        pages: 196,
        extractions: 1,
    });
    alone.on_load_event(record(Stage::DecodeExtract, "main"));
    let simhash = |ratio: f64, done| Overall::Runs {
        ratio,
        done,
        runs: 1,
    };
    assert_eq!(alone.progress.overall(), simhash(0.0, 0));
    for stage in run_stages {
        alone.on_load_event(record(stage, "simhash(words,tf) [main]"));
    }
    assert_eq!(alone.progress.overall(), simhash(1.0, 1));
    app.on_load_event(LoadEvent::Failed(
        "experiments/x.yaml: line 3: algorithms[0].threshold: 70 is out of range 0..=64".into(),
    ));
    insta::assert_snapshot!("failed", screen(&app, 80, 24));
}

#[test]
fn arrow_keys_move_the_threshold_and_the_metrics_follow() {
    let bench = demo();
    let jaccard = algorithm(&bench, "jaccard(w=3)", Extraction::Main);
    let mut app = App::with_workbench(bench);
    focus(&mut app, jaccard);
    let before = app.bench.as_ref().unwrap().tunings[jaccard].clone();
    for _ in 0..20 {
        key(&mut app, KeyCode::Right);
    }
    let bench = app.bench.as_ref().unwrap();
    let after = &bench.tunings[jaccard];
    assert!(
        (after.threshold - (before.threshold + 0.2)).abs() < 1e-9,
        "{}",
        after.threshold
    );
    let result = &bench.result.algorithms[jaccard];
    assert_eq!(
        after.evaluation,
        evaluate_grouped(
            &bench.result.truth,
            &result.run.pairs,
            &result.run.groups,
            &[],
            &result.run.scale,
            after.threshold
        )
    );
    assert!(
        after.evaluation.pairwise.overall.detected < before.evaluation.pairwise.overall.detected,
        "a higher Jaccard threshold judges fewer pairs"
    );
    // Shift moves ten steps; the threshold stops at the scale's end.
    for _ in 0..20 {
        key_with(&mut app, KeyCode::Right, KeyModifiers::SHIFT);
    }
    assert_eq!(app.bench.as_ref().unwrap().tunings[jaccard].threshold, 1.0);
    // The chart marker is drawn at the current point: the F chart's title
    // names the threshold (followed by the legend's note when F is
    // defined there, by the title's end when it is not).
    let shown = screen(&app, 120, 40);
    assert!(
        shown.contains(" at 1;") || shown.contains(" at 1 "),
        "{shown}"
    );
}

#[test]
fn a_typed_threshold_applies_or_names_the_range() {
    let bench = demo();
    let simhash = algorithm(&bench, "simhash", Extraction::Main);
    let mut app = App::with_workbench(bench);
    focus(&mut app, simhash);
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.mode, Mode::Typing(String::new()));
    for c in "70".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Enter);
    assert!(app.status.contains("out of range 0..=64"), "{}", app.status);
    assert_eq!(app.bench.as_ref().unwrap().tunings[simhash].threshold, 3.0);
    key(&mut app, KeyCode::Char('t'));
    for c in "6".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    // 'q' while typing is not part of a number: refused, not a quit.
    key(&mut app, KeyCode::Char('q'));
    assert!(!app.quit);
    assert!(
        app.status.contains("`q` is not part of a number"),
        "{}",
        app.status
    );
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.bench.as_ref().unwrap().tunings[simhash].threshold, 6.0);
    assert_eq!(app.mode, Mode::Normal);
}

#[test]
fn a_typed_exponent_is_kept_and_range_checked() {
    let bench = demo();
    let simhash = algorithm(&bench, "simhash", Extraction::Main);
    let mut app = App::with_workbench(bench);
    focus(&mut app, simhash);
    key(&mut app, KeyCode::Char('t'));
    for c in "1e9".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    assert_eq!(app.mode, Mode::Typing("1e9".into()));
    key(&mut app, KeyCode::Enter);
    assert!(
        app.status.contains("1000000000 is out of range 0..=64"),
        "{}",
        app.status
    );
    assert_eq!(app.bench.as_ref().unwrap().tunings[simhash].threshold, 3.0);
    key(&mut app, KeyCode::Char('t'));
    for c in "+5E0".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.bench.as_ref().unwrap().tunings[simhash].threshold, 5.0);
}

#[test]
fn semantic_gates_are_knobs_and_move_without_rescoring() {
    let bench = demo();
    let semantic = algorithm(
        &bench,
        "semantic(cilin level 5,best_match",
        Extraction::Main,
    );
    let mut app = App::with_workbench(bench);
    focus(&mut app, semantic);
    assert_eq!(app.knobs(), 3);
    key(&mut app, KeyCode::Char('g'));
    assert_eq!(app.knob_name(), "title gate");
    let gated = |app: &App| {
        let bench = app.bench.as_ref().unwrap();
        bench.tunings[semantic]
            .pairs(&bench.result.algorithms[semantic])
            .len()
    };
    let before = gated(&app);
    let stored = app.bench.as_ref().unwrap().result.algorithms[semantic]
        .run
        .pairs
        .len();
    assert!(
        before < stored,
        "the title gate at 0.4 rejects some stored pairs"
    );
    // No title gate: every stored pair passes (no page has subtitles).
    for _ in 0..4 {
        key_with(&mut app, KeyCode::Left, KeyModifiers::SHIFT);
    }
    let bench = app.bench.as_ref().unwrap();
    let (tuning, result) = (&bench.tunings[semantic], &bench.result.algorithms[semantic]);
    assert_eq!(tuning.gates, [0.0, 0.6]);
    assert_eq!(gated(&app), stored);
    // The evaluation reads the stored pairs through the moved gate.
    assert_eq!(
        tuning.evaluation,
        evaluate_grouped(
            &bench.result.truth,
            &result.run.gated_pairs(&[0.0, 0.6]),
            &result.run.groups,
            &[0.0, 0.6],
            &result.run.scale,
            tuning.threshold
        )
    );
    // Typed back to 0.4: as configured.
    key(&mut app, KeyCode::Enter);
    for c in "0.4".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Enter);
    assert_eq!(gated(&app), before);
}

#[test]
fn the_inspector_opens_on_a_false_positive_and_esc_goes_back() {
    let bench = demo();
    let full_minhash = algorithm(&bench, "minhash(w=3", Extraction::FullText);
    let mut app = App::with_workbench(bench);
    focus(&mut app, full_minhash);
    key(&mut app, KeyCode::Char('4'));
    assert_eq!(app.errors.kind, ErrorKind::FalsePositives);
    assert!(!app.errors.rows.is_empty());
    key(&mut app, KeyCode::Down);
    let row = app.errors.rows[1];
    let truth = &app.bench.as_ref().unwrap().result.truth;
    assert_ne!(truth.cluster[row.a as usize], truth.cluster[row.b as usize]);
    // Sorted surest first.
    assert!(app.errors.rows[0].score >= row.score);
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.screen, Screen::Inspector);
    let inspection = app.inspection.as_ref().unwrap();
    assert_eq!((inspection.a, inspection.b), (row.a, row.b));
    assert!(
        inspection.left.shared_units > 0,
        "a false positive shares text"
    );
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.screen, Screen::Errors);
    // False negatives: true pairs, none judged a duplicate.
    key(&mut app, KeyCode::Char('f'));
    assert_eq!(app.errors.kind, ErrorKind::FalseNegatives);
    let truth = &app.bench.as_ref().unwrap().result.truth;
    assert!(app
        .errors
        .rows
        .iter()
        .all(|r| truth.cluster[r.a as usize] == truth.cluster[r.b as usize]));
    let all = app.errors.rows.len();
    key(&mut app, KeyCode::Char('c'));
    let slice = app.errors.slice.expect("some slice has false negatives");
    assert!(app.errors.rows.iter().all(|r| r.slice == slice));
    assert!(app.errors.rows.len() <= all);
}

#[test]
fn the_slice_filter_visits_only_slices_with_errors_and_counts_them() {
    let bench = demo();
    let n = bench.result.algorithms.len();
    let slices = bench.result.truth.slice_names.len();
    let mut app = App::with_workbench(bench);
    key(&mut app, KeyCode::Char('4'));
    let mut skipped = 0;
    for kind in [ErrorKind::FalsePositives, ErrorKind::FalseNegatives] {
        if app.errors.kind != kind {
            key(&mut app, KeyCode::Char('f'));
        }
        for _ in 0..n {
            assert_eq!(app.errors.slice, None);
            let all = app.errors.rows.clone();
            assert!(all.len() < MAX_LISTED, "the demo's lists are whole");
            assert_eq!(all.len() as u64, app.errors.total);
            let mut per_slice = vec![0u64; slices];
            for r in &all {
                per_slice[r.slice as usize] += 1;
            }
            let mut visited = Vec::new();
            loop {
                key(&mut app, KeyCode::Char('c'));
                let Some(s) = app.errors.slice else { break };
                visited.push(s as usize);
                assert!(app.errors.rows.iter().all(|r| r.slice == s));
                assert_eq!(app.errors.total, app.errors.rows.len() as u64);
                assert_eq!(app.errors.total, per_slice[s as usize]);
            }
            let with_errors: Vec<usize> = (0..slices).filter(|&s| per_slice[s] > 0).collect();
            assert_eq!(visited, with_errors);
            skipped += slices - with_errors.len();
            key(&mut app, KeyCode::Right);
        }
    }
    assert!(skipped > 0, "some slice of some list has no errors to skip");
}

#[test]
fn no_threshold_passes_the_ceiling_at_any_level() {
    use super::workbench::Level;
    let bench = demo();
    let mut page_above_pairwise = false;
    for (result, tuning) in bench.result.algorithms.iter().zip(&bench.tunings) {
        for level in Level::ALL {
            let ceiling = tuning.ceiling(level);
            for e in tuning.curve.iter().chain([&tuning.evaluation]) {
                let recall = level.of(e).overall.recall();
                assert!(
                    recall <= ceiling + 1e-9,
                    "{} at {}: {} recall {recall} above the ceiling {ceiling}",
                    result.run.label,
                    e.threshold,
                    level.name()
                );
            }
        }
        page_above_pairwise |= tuning.ceiling(Level::Page) > tuning.ceiling(Level::Pairwise);
    }
    assert!(
        page_above_pairwise,
        "the page level needs a ceiling of its own"
    );
}

#[test]
fn help_and_quit_keys() {
    let mut app = App::with_workbench(demo());
    key(&mut app, KeyCode::Char('?'));
    assert!(app.help);
    // In the help, q closes it rather than quitting.
    key(&mut app, KeyCode::Char('q'));
    assert!(!app.help && !app.quit);
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.screen, Screen::Throughput);
    key(&mut app, KeyCode::BackTab);
    key(&mut app, KeyCode::BackTab);
    assert_eq!(app.screen, Screen::Corpus);
    key_with(&mut app, KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert!(app.quit);
    assert_eq!(
        action_for(
            &App::new(Source::Demo),
            KeyEvent::new(KeyCode::Char('q'), KeyModifiers::NONE)
        ),
        Some(Action::Quit)
    );
}

#[test]
fn saved_thresholds_load_as_an_experiment() {
    let bench = demo();
    let jaccard = algorithm(&bench, "jaccard(w=3)", Extraction::Main);
    let mut app = App::with_workbench(bench);
    focus(&mut app, jaccard);
    for _ in 0..5 {
        key(&mut app, KeyCode::Right);
    }
    assert!(app.unsaved);
    key(&mut app, KeyCode::Char('s'));
    let Some(Request::Save(path)) = app.requests.pop() else {
        panic!("no save request")
    };
    // Into the ignored tuned/, which the save makes.
    assert_eq!(path, std::path::Path::new("tuned").join("demo.tuned.yaml"));
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("tuned").join("demo.tuned.yaml");
    perform(&mut app, Request::Save(target.clone()));
    assert!(app.status.starts_with("saved"), "{}", app.status);
    assert!(!app.unsaved, "saved");
    let text = std::fs::read_to_string(&target).unwrap();
    let config = ExperimentConfig::parse(std::path::Path::new("experiments/demo.yaml"), &text)
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
    // Jaccard moved on `main` only: one entry per extraction, each with
    // its own threshold; every other algorithm stays one entry.
    let yaml: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
    let jaccards: Vec<(String, f64)> = yaml["algorithms"]
        .as_sequence()
        .unwrap()
        .iter()
        .filter(|a| a["type"].as_str() == Some("jaccard"))
        .map(|a| {
            (
                a["extract"].as_str().unwrap_or("").to_string(),
                a["threshold"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        jaccards,
        [("main".to_string(), 0.55), ("full_text".to_string(), 0.5)]
    );
    assert_eq!(
        config.algorithms.len(),
        app.bench.as_ref().unwrap().config.algorithms.len() + 1
    );
    // The LSH banding chosen for 0.5 is written out, not left to be chosen
    // again for another threshold.
    let minhash = yaml["algorithms"]
        .as_sequence()
        .unwrap()
        .iter()
        .find(|a| a["type"].as_str() == Some("minhash"))
        .unwrap();
    assert!(minhash["bands"].as_u64().is_some() && minhash["rows"].as_u64().is_some());
}

/// A tiny deterministic generator for the round-trip property.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.next() as usize % items.len()]
    }
}

/// Every algorithm type on both extractions, on the demo corpus.
const EVERY_TYPE: &str = "name: every
corpus: demo
extract: [main, full_text]
algorithms:
  - type: exact
  - type: simhash
    candidates: all_pairs
    floor: 12
  - type: jaccard
    floor: 0.2
  - type: jaccard
    score: containment
    floor: 0.2
  - type: minhash
    threshold: 0.5
  - type: minhash
    score: containment
    size_ratio: 0.5
    threshold: 0.6
  - type: minhash
    candidates: super_shingles
    hashes: 84
  - type: imatch
    extra_lexicons: 3
  - type: semantic
  - type: combined
    jaccard: 0.4
  - type: learned
    model: demo-model.json
";

/// Trains the learned judge on the demo corpus into `path`, as `neardup
/// train` does.
fn write_demo_model(path: &std::path::Path) {
    use crate::algo::learned::{train, LearnedConfig};
    let config = ExperimentConfig::parse(
        std::path::Path::new("demo.yaml"),
        "corpus: demo\nalgorithms: [{type: exact}]\n",
    )
    .unwrap();
    let corpus = crate::corpus::demo::demo_corpus().unwrap();
    let (docs, truth) =
        crate::experiment::runner::documents(&config, &corpus, Extraction::Main, None);
    let trained = train(
        &LearnedConfig::default(),
        &docs,
        &crate::algo::learned::Labels::Clusters(truth.cluster.clone()),
        "demo",
    )
    .unwrap();
    trained.model.write(path).unwrap();
}

/// The experiment of every algorithm type in a fresh folder, the learned
/// judge's model beside it.
fn every_type() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("every.yaml");
    std::fs::write(&path, EVERY_TYPE).unwrap();
    write_demo_model(&dir.path().join("demo-model.json"));
    (dir, path)
}

/// Moves every threshold and gate to a random reachable value.
fn move_every_knob(bench: &mut Workbench, rng: &mut Lcg) {
    for i in 0..bench.tunings.len() {
        let result = &bench.result.algorithms[i];
        let thresholds: Vec<f64> = bench.tunings[i].curve.iter().map(|e| e.threshold).collect();
        let t = rng.pick(&thresholds);
        bench.tunings[i]
            .set_threshold(t, result, &bench.result.truth)
            .expect("a reachable threshold");
        for g in 0..bench.tunings[i].gates.len() {
            let v = rng.pick(&[0.0, 0.2, 0.35, 0.4, 0.6, 0.75, 0.9]);
            bench.tunings[i].set_gate(g, v, result, &bench.result.truth);
        }
    }
}

/// What `neardup run` gives on a saved file.
fn run_saved(saved: &std::path::Path) -> crate::experiment::ExperimentResult {
    use crate::experiment::{load_corpus, load_references, run_experiment};
    let config = ExperimentConfig::load(saved).unwrap();
    let corpus = load_corpus(&config, saved).unwrap();
    let references = load_references(&config, saved).unwrap();
    run_experiment("rerun", &config, &corpus, &references)
}

#[test]
fn saving_round_trips_every_count_for_every_algorithm_type() {
    let (dir, path) = every_type();
    let original = load_now(&Source::Experiment(path.clone())).expect("loads");
    let mut rng = Lcg(0x5eed);
    for round in 0..3 {
        let mut app = App::with_workbench(original.clone());
        let bench = app.bench.as_mut().unwrap();
        // Each extraction on its own, so entries split.
        move_every_knob(bench, &mut rng);
        let saved = dir.path().join(format!("every-{round}.tuned.yaml"));
        perform(&mut app, Request::Save(saved.clone()));
        assert!(app.status.starts_with("saved"), "{}", app.status);
        let bench = app.bench.as_ref().unwrap();

        let rerun = run_saved(&saved);
        assert_eq!(rerun.algorithms.len(), bench.result.algorithms.len());
        for (shown, tuning) in bench.result.algorithms.iter().zip(&bench.tunings) {
            let again: Vec<_> = rerun
                .algorithms
                .iter()
                .filter(|a| a.run.label == shown.run.label && a.extraction == shown.extraction)
                .collect();
            assert_eq!(
                again.len(),
                1,
                "{} [{}]",
                shown.run.label,
                shown.extraction.name()
            );
            let again = again[0];
            assert_eq!(again.threshold, tuning.threshold);
            assert_eq!(
                again.at_threshold(),
                &tuning.evaluation,
                "round {round}: {} [{}] at {} with gates {:?}",
                shown.run.label,
                shown.extraction.name(),
                tuning.threshold,
                tuning.gates
            );
        }
    }
}

#[test]
fn thresholds_past_the_floor_are_refused_with_the_floor_named() {
    let bench = demo();
    let simhash = algorithm(&bench, "simhash(words,tf)", Extraction::Main);
    let mut app = App::with_workbench(bench);
    focus(&mut app, simhash);
    key(&mut app, KeyCode::Char('t'));
    // The default tables find every pair within 6 bits: the floor.
    for c in "7".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Enter);
    assert!(
        app.status.contains("past the floor 6")
            && app.status.contains("`floor`")
            && app.status.contains("candidates: all_pairs"),
        "{}",
        app.status
    );
    assert_eq!(app.bench.as_ref().unwrap().tunings[simhash].threshold, 6.0);
    // Moving past it by keys says the same and stays at the floor.
    key_with(&mut app, KeyCode::Right, KeyModifiers::SHIFT);
    assert!(app.status.contains("past the floor"), "{}", app.status);
    assert_eq!(app.bench.as_ref().unwrap().tunings[simhash].threshold, 6.0);
}

#[test]
fn jump_keys_reach_the_best_threshold_of_each_objective() {
    let bench = demo();
    let minhash = algorithm(&bench, "minhash(w=3", Extraction::Main);
    let mut app = App::with_workbench(bench);
    focus(&mut app, minhash);
    key(&mut app, KeyCode::Char('b'));
    let bench = app.bench.as_ref().unwrap();
    let t = &bench.tunings[minhash];
    let best = t
        .curve
        .iter()
        .map(|e| e.pairwise.overall.f1())
        .filter(|f| f.is_finite())
        .fold(0.0, f64::max);
    assert_eq!(t.evaluation.pairwise.overall.f1(), best, "{}", app.status);
    key(&mut app, KeyCode::Char('c'));
    let t = &app.bench.as_ref().unwrap().tunings[minhash];
    let best = t
        .curve
        .iter()
        .map(|e| e.clustered.overall.f1())
        .filter(|f| f.is_finite())
        .fold(0.0, f64::max);
    assert_eq!(t.evaluation.clustered.overall.f1(), best);
    // p, then a typed precision: the most recall at that precision.
    key(&mut app, KeyCode::Char('p'));
    for _ in 0..4 {
        key(&mut app, KeyCode::Backspace);
    }
    for c in "1".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Enter);
    let t = &app.bench.as_ref().unwrap().tunings[minhash];
    let c = t.evaluation.pairwise.overall;
    assert_eq!(c.precision(), 1.0, "{}", app.status);
    let most = t
        .curve
        .iter()
        .filter(|e| e.pairwise.overall.precision() >= 1.0)
        .map(|e| e.pairwise.overall.recall())
        .fold(0.0, f64::max);
    assert_eq!(c.recall(), most);
}

#[test]
fn quit_reload_and_overwrite_ask_first() {
    let bench = demo();
    let jaccard = algorithm(&bench, "jaccard(w=3)", Extraction::Main);
    let mut app = App::with_workbench(bench);
    focus(&mut app, jaccard);
    key(&mut app, KeyCode::Right);
    assert!(app.unsaved);
    key(&mut app, KeyCode::Char('q'));
    assert!(
        !app.quit && matches!(app.mode, Mode::Confirm(_)),
        "{}",
        app.status
    );
    key(&mut app, KeyCode::Char('n'));
    assert!(!app.quit && app.mode == Mode::Normal);
    key(&mut app, KeyCode::Char('r'));
    assert!(app.requests.is_empty() && matches!(app.mode, Mode::Confirm(_)));
    key(&mut app, KeyCode::Esc);
    assert!(app.bench.is_some(), "reload cancelled");
    // Saving beside an experiment whose tuned file exists asks first.
    let dir = tempfile::tempdir().unwrap();
    app.source = Source::Experiment(dir.path().join("demo.yaml"));
    app.update(Action::SaveThresholds);
    assert_eq!(
        app.requests.pop(),
        Some(Request::Save(dir.path().join("demo.tuned.yaml")))
    );
    std::fs::write(dir.path().join("demo.tuned.yaml"), "x").unwrap();
    app.update(Action::SaveThresholds);
    assert!(app.requests.is_empty() && matches!(app.mode, Mode::Confirm(_)));
    key(&mut app, KeyCode::Char('y'));
    assert_eq!(
        app.requests.pop(),
        Some(Request::Save(dir.path().join("demo.tuned.yaml")))
    );
    key(&mut app, KeyCode::Char('q'));
    key(&mut app, KeyCode::Char('y'));
    assert!(app.quit);
}

#[test]
fn charts_export_at_the_tuned_thresholds() {
    let bench = demo();
    let jaccard = algorithm(&bench, "jaccard(w=3)", Extraction::Main);
    let mut app = App::with_workbench(bench);
    focus(&mut app, jaccard);
    for _ in 0..3 {
        key(&mut app, KeyCode::Right);
    }
    let dir = tempfile::tempdir().unwrap();
    // A run's folder is never the export's, nor is an earlier export.
    std::fs::create_dir(dir.path().join("demo-tuned")).unwrap();
    let out = super::export_charts(app.bench.as_ref().unwrap(), dir.path()).unwrap();
    assert_eq!(out, dir.path().join("demo-tui-1"));
    assert!(out.join("pr.png").exists() && out.join("report.md").exists());
    assert_eq!(
        std::fs::read_dir(dir.path().join("demo-tuned"))
            .unwrap()
            .count(),
        0
    );
    let again = super::export_charts(app.bench.as_ref().unwrap(), dir.path()).unwrap();
    assert_eq!(again, dir.path().join("demo-tui-2"));
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("jaccard(w=3) [main] (at 0.53)"), "{md}");
}

#[test]
fn quitting_after_a_failed_load_is_an_error() {
    let mut app = App::new(Source::Demo);
    app.on_load_event(LoadEvent::Failed(
        "c.jsonl:3: field `id`: is missing".into(),
    ));
    app.update(Action::Quit);
    assert!(app.quit);
    let e = super::quit_outcome(&app).unwrap_err().to_string();
    assert!(e.contains("c.jsonl:3"), "{e}");

    let mut app = App::new(Source::Demo);
    app.on_load_event(LoadEvent::Done(Box::new(demo())));
    app.update(Action::Quit);
    assert!(super::quit_outcome(&app).is_ok());
}

#[test]
fn errors_of_groups_are_counted_like_the_listed_pairs() {
    use super::workbench::{find_errors, ErrorRow};
    let dir = tempfile::tempdir().unwrap();
    let mirrored = "the council met today to discuss roads and transport and schools in the north region again";
    let mut rows: Vec<String> = (0..60)
        .map(|i| {
            let cluster = if i % 4 == 0 { "n" } else { "m" };
            format!(r#"{{"id": "m{i}", "cluster": "{cluster}", "text": "{mirrored}"}}"#)
        })
        .collect();
    rows.push(r#"{"id": "x", "cluster": "m", "text": "a different page about the harbour and the railway museum"}"#.into());
    rows.push(r#"{"id": "u", "cluster": "u", "text": "the farmers report figures on prices and growth this winter"}"#.into());
    let path = dir.path().join("c.jsonl");
    std::fs::write(&path, rows.join("\n")).unwrap();
    let bench = load_now(&Source::Corpus(path)).expect("the corpus loads");
    let truth = &bench.result.truth;
    for (result, tuning) in bench.result.algorithms.iter().zip(&bench.tunings) {
        let run = &result.run;
        assert!(!run.groups.is_empty(), "{}", run.label);
        // Every stored pair listed, groups' pairs included.
        let mut listed: Vec<(u32, u32, f32, Option<[f32; 2]>)> = run
            .pairs
            .iter()
            .enumerate()
            .map(|(i, p)| (p.a, p.b, p.score, run.gate_scores.get(i).copied()))
            .collect();
        for g in run.stored_groups() {
            for (k, &a) in g.pages.iter().enumerate() {
                for &b in &g.pages[k + 1..] {
                    let gates = (!run.gates.is_empty()).then_some(g.gate_scores);
                    listed.push((a, b, g.score, gates));
                }
            }
        }
        let judged = |&(_, _, s, g): &(u32, u32, f32, Option<[f32; 2]>)| {
            tuning.judges(&run.scale, s, g.as_ref().map(|g| &g[..]))
        };
        let same = |a: u32, b: u32| truth.cluster[a as usize] == truth.cluster[b as usize];
        let false_positives = listed
            .iter()
            .filter(|p| judged(p) && !same(p.0, p.1))
            .count() as u64;
        let found = listed
            .iter()
            .filter(|p| judged(p) && same(p.0, p.1))
            .count() as u64;
        let (fp_rows, fp) = find_errors(result, tuning, truth, ErrorKind::FalsePositives, None);
        let (fn_rows, fneg) = find_errors(result, tuning, truth, ErrorKind::FalseNegatives, None);
        let (fp, fneg) = (fp.iter().sum::<u64>(), fneg.iter().sum::<u64>());
        assert_eq!(fp, false_positives, "{}", run.label);
        assert_eq!(fneg, truth.true_pairs() - found, "{}", run.label);
        assert_eq!(fp_rows.len() as u64, fp);
        assert_eq!(fn_rows.len() as u64, fneg);
        let distinct = |rows: &[ErrorRow]| {
            let mut keys: Vec<(u32, u32)> = rows.iter().map(|r| (r.a, r.b)).collect();
            keys.sort_unstable();
            keys.dedup();
            keys.len()
        };
        assert_eq!(distinct(&fp_rows), fp_rows.len());
        assert_eq!(distinct(&fn_rows), fn_rows.len());
        assert!(fp_rows.iter().all(|r| r.a < r.b && !same(r.a, r.b)));
        assert!(fn_rows.iter().all(|r| r.a < r.b && same(r.a, r.b)));
    }
}

/// Writes `pairs` (as page ids) as a job elsewhere would: a Parquet file
/// with the settings envelope of the signatures they came from.
fn write_external_pairs(
    path: &std::path::Path,
    ids: &[(&str, &str, f32)],
    settings: &serde_json::Value,
) {
    use polars::prelude::*;
    let mut df = DataFrame::new_infer_height(vec![
        Column::new("a".into(), ids.iter().map(|p| p.0).collect::<Vec<_>>()),
        Column::new("b".into(), ids.iter().map(|p| p.1).collect::<Vec<_>>()),
        Column::new("score".into(), ids.iter().map(|p| p.2).collect::<Vec<_>>()),
    ])
    .unwrap();
    let meta =
        serde_json::json!({"format": crate::dist::FORMAT, "table": "pairs", "settings": settings});
    ParquetWriter::new(std::fs::File::create(path).unwrap())
        .with_key_value_metadata(Some(KeyValueMetadata::from_static(vec![(
            crate::dist::METADATA_KEY.into(),
            meta.to_string(),
        )])))
        .finish(&mut df)
        .unwrap();
}

#[test]
fn pairs_computed_elsewhere_tune_like_neardup_evaluate_and_cannot_be_saved() {
    use crate::dist::external::{evaluate_external, read_inputs};
    let demo = demo();
    let own = &demo.result.algorithms[algorithm(&demo, "minhash", Extraction::Main)];
    let entry = &demo.config.algorithms[own.entry].config;
    let settings = serde_json::json!({
        "config": entry,
        "tokenizer": demo.config.algorithm_tokenizer(entry).unwrap_or_else(|| demo.config.tokenizer.clone()),
        "extract": "main",
        "label": own.run.label,
        "threshold": own.threshold,
        "grid": own.evaluations.iter().map(|e| e.threshold).collect::<Vec<_>>(),
        "corpus_pages": demo.corpus.len(),
    });
    let pairs: Vec<(&str, &str, f32)> = own
        .run
        .pairs
        .iter()
        .map(|p| {
            let id = |i: u32| demo.corpus.pages[i as usize].id.as_str();
            (id(p.a), id(p.b), p.score)
        })
        .collect();
    assert!(pairs.len() > 10);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pairs.parquet");
    write_external_pairs(&path, &pairs, &settings);
    let source = Source::External {
        corpus: "demo".into(),
        pairs: vec![path.clone()],
        clusters: Vec::new(),
        skip_bad_pairs: false,
    };
    let bench = load_now(&source).expect("the external pairs load");

    // The figures of `neardup evaluate`, at the threshold and, once the
    // workbench moves there, at every threshold of the grid.
    let (corpus, inputs) =
        read_inputs("demo".as_ref(), std::slice::from_ref(&path), &[], false).unwrap();
    let expected = evaluate_external("external", &corpus, &inputs).unwrap();
    let expected = &expected.algorithms[0];
    assert_eq!(bench.result.algorithms.len(), 1);
    let result = &bench.result.algorithms[0];
    assert_eq!(result.run.pairs, own.run.pairs);
    assert_eq!(result.threshold, own.threshold);
    let mut tuning = bench.tunings[0].clone();
    assert_eq!(&tuning.evaluation, expected.at_threshold());
    assert!(tuning.evaluation.pairwise.overall.correct > 0);
    for e in &expected.evaluations {
        tuning
            .set_threshold(e.threshold, result, &bench.result.truth)
            .unwrap();
        assert_eq!(&tuning.evaluation, e, "at {}", e.threshold);
    }

    // Tuning, errors and the inspector work on them; `s` says why it
    // writes nothing; `r` loads the same pairs again.
    let mut app = App::with_workbench(bench);
    let before = app.bench.as_ref().unwrap().tunings[0].evaluation.clone();
    key(&mut app, KeyCode::Char('b'));
    assert!(app.status.contains("threshold"), "{}", app.status);
    key(&mut app, KeyCode::Char('4'));
    assert_eq!(app.screen, Screen::Errors);
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.screen, Screen::Inspector, "{}", app.status);
    key(&mut app, KeyCode::Char('s'));
    assert!(app.requests.is_empty());
    assert!(
        app.status
            .starts_with("not saved: pairs computed elsewhere have no experiment"),
        "{}",
        app.status
    );
    app.unsaved = false;
    key(&mut app, KeyCode::Char('r'));
    let Some(Request::Reload) = app.requests.pop() else {
        panic!("r asks for no reload: {}", app.status);
    };
    let events = perform(&mut app, Request::Reload).expect("a reload starts a worker");
    for event in events {
        app.on_load_event(event);
    }
    let again = app.bench.as_ref().expect("reloaded");
    assert_eq!(again.source, source);
    assert_eq!(again.tunings[0].evaluation, before);

    // An id the corpus lacks fails the load, naming file, row and field.
    write_external_pairs(&path, &[(pairs[0].0, "no-such-page", 0.9)], &settings);
    let e = load_now(&source).unwrap_err();
    assert!(
        e.contains("pairs.parquet: row 1: field `b`: `no-such-page` is not a page"),
        "{e}"
    );
}

/// `experiments/judged_demo.yaml` written into `dir` with the pairs file
/// named absolutely, so that a file saved beside it finds them too.
fn judged_experiment(dir: &std::path::Path, pairs: Option<&str>) -> std::path::PathBuf {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let demo_pairs = root.join("datasets/judged/demo_pairs.csv");
    let pairs_path = match pairs {
        Some(text) => {
            let p = dir.join("bad_pairs.csv");
            std::fs::write(&p, text).unwrap();
            p
        }
        None => demo_pairs,
    };
    let text = std::fs::read_to_string(root.join("experiments/judged_demo.yaml"))
        .unwrap()
        .replace(
            "../datasets/judged/demo_pairs.csv",
            pairs_path.to_str().unwrap(),
        );
    let path = dir.join("judged_demo.yaml");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn judged_pairs_follow_the_threshold_and_saving_reproduces_them() {
    use crate::eval::judged::evaluate_judged;
    use crate::experiment::{judged::judge, load_corpus, run_experiment};
    let dir = tempfile::tempdir().unwrap();
    let path = judged_experiment(dir.path(), None);
    let bench = load_now(&Source::Experiment(path.clone())).expect("loads");
    let jaccard = algorithm(&bench, "jaccard(w=3)", Extraction::Main);
    let mut app = App::with_workbench(bench);
    focus(&mut app, jaccard);
    insta::assert_snapshot!("tuning_judged", screen(&app, 100, 34));
    let before = app.bench.as_ref().unwrap().tunings[jaccard]
        .judged_evaluation
        .clone()
        .expect("judged figures");
    for _ in 0..5 {
        key(&mut app, KeyCode::Right);
    }
    let bench = app.bench.as_ref().unwrap();
    let tuning = &bench.tunings[jaccard];
    let now = tuning.judged_evaluation.clone().unwrap();
    assert_eq!(now.threshold, tuning.threshold);
    assert!(now.counts.detected < before.counts.detected, "{now:?}");
    // The lookup gives what `neardup run` counts at that threshold.
    let run = &bench.result.algorithms[jaccard].run;
    let truth = bench.judged.as_ref().unwrap();
    assert_eq!(now, evaluate_judged(truth, run, &[tuning.threshold])[0]);
    assert!(screen(&app, 100, 34)
        .contains(&format!("F {}", crate::util::fmt::percent(now.counts.f1()))));

    key(&mut app, KeyCode::Char('s'));
    let Some(Request::Save(saved)) = app.requests.pop() else {
        panic!("no save request")
    };
    assert_eq!(saved, dir.path().join("judged_demo.tuned.yaml"));
    perform(&mut app, Request::Save(saved.clone()));
    assert!(app.status.starts_with("saved"), "{}", app.status);
    let bench = app.bench.as_ref().unwrap();
    let mut config = ExperimentConfig::load(&saved).unwrap();
    let corpus = load_corpus(&config, &saved).unwrap();
    // As `neardup run` does: the learned judge with `folds` fits on the
    // judged pairs.
    crate::experiment::attach_learning_labels(&mut config, &corpus, bench.judged.as_deref());
    let rerun = run_experiment("rerun", &config, &corpus, &Vec::new());
    let judged = judge(&rerun, bench.judged.as_ref().unwrap());
    for (shown, tuning) in bench.result.algorithms.iter().zip(&bench.tunings) {
        let k = rerun
            .algorithms
            .iter()
            .position(|a| a.run.label == shown.run.label && a.extraction == shown.extraction)
            .unwrap();
        let again = judged[k]
            .iter()
            .find(|e| e.threshold == rerun.algorithms[k].threshold)
            .expect("the threshold is on the grid");
        assert_eq!(Some(again), tuning.judged_evaluation.as_ref());
    }
}

#[test]
fn on_judged_pairs_the_jumps_choose_what_tune_chooses() {
    use crate::eval::choose::{choose, Objective};
    use crate::experiment::tune::tune_experiment;
    let dir = tempfile::tempdir().unwrap();
    let path = judged_experiment(dir.path(), None);
    let bench = load_now(&Source::Experiment(path)).expect("loads");
    let judged = bench.judged.clone().expect("judged pairs");
    let tuned = tune_experiment(
        &bench.config,
        &bench.result,
        Objective::PairwiseF1,
        Some(&judged),
    )
    .expect("tunes");
    let figures = tuned.tuned.expect("tuned figures").runs;
    assert_eq!(figures.len(), bench.tunings.len());
    let mut app = App::with_workbench(bench);
    let mut unlike_clusters = 0;
    for (i, figure) in figures.iter().enumerate() {
        focus(&mut app, i);
        key(&mut app, KeyCode::Char('b'));
        assert!(
            app.status.contains("over the judged pairs"),
            "{}",
            app.status
        );
        let bench = app.bench.as_ref().unwrap();
        let tuning = &bench.tunings[i];
        assert!(
            (tuning.threshold - figure.threshold).abs() < 1e-9,
            "{}: b chose {}, tune {}",
            figure.algorithm,
            tuning.threshold,
            figure.threshold
        );
        let scale = &bench.result.algorithms[i].run.scale;
        let over_clusters =
            choose(&tuning.curve, scale, Objective::PairwiseF1).map(|e| e.threshold);
        unlike_clusters += usize::from(over_clusters != Some(figure.threshold));
        key(&mut app, KeyCode::Char('c'));
        assert!(app.status.contains("needs clusters"), "{}", app.status);
    }
    // The judged pairs are not the clusters' pairs, so somewhere the two
    // choices part: the jumps follow the judged ones.
    assert!(
        unlike_clusters > 0,
        "every choice agrees with the clusters'"
    );
}

#[test]
fn a_malformed_pairs_file_fails_the_load_naming_file_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    for (pairs, says) in [
        (
            "a,b,label\nzh-news-00-orig,zh-news-00-full1,3\nzh-news-00-orig,nowhere,1\n",
            "bad_pairs.csv:3: field `b`: page id `nowhere` is not in the corpus",
        ),
        (
            "a,b,label\nzh-news-00-orig,zh-news-00-full1,3\nzh-news-00-full1,zh-news-00-orig,2\n",
            "bad_pairs.csv:3: field `b`: the pair",
        ),
        (
            "a,b,label\nzh-news-00-orig,zh-news-00-orig,3\n",
            "bad_pairs.csv:2: field `b`: the pair judges page `zh-news-00-orig` against itself",
        ),
    ] {
        let path = judged_experiment(dir.path(), Some(pairs));
        let e = load_now(&Source::Experiment(path)).expect_err("a bad pairs file");
        assert!(e.contains(says), "{e}");
    }
}

#[test]
fn the_inspector_explains_a_learned_pair_with_the_judge_the_run_fitted() {
    // The semantic and I-Match features need the corpus statistics the run
    // gathered; a judge built afresh for two pages would call them missing
    // and give another probability than the one stored.
    let dir = tempfile::tempdir().unwrap();
    write_demo_model(&dir.path().join("demo-model.json"));
    let path = dir.path().join("learned.yaml");
    std::fs::write(
        &path,
        "corpus: demo\nalgorithms:\n  - type: learned\n    model: demo-model.json\n    semantic: true\n    floor: 0.05\n",
    )
    .unwrap();
    let bench = load_now(&Source::Experiment(path)).expect("loads");
    let learned = &bench.result.algorithms[0];
    assert!(learned.fitted.is_some(), "the run keeps its fitted judge");
    let zh = |p: u32| bench.corpus.pages[p as usize].lang == Some(crate::corpus::Lang::Zh);
    let pairs: Vec<_> = learned
        .run
        .pairs
        .iter()
        .filter(|p| zh(p.a) && zh(p.b))
        .take(20)
        .collect();
    assert!(
        !pairs.is_empty(),
        "the demo has Chinese pairs the judge stored"
    );
    for pair in pairs {
        let shown = super::app::explain_pair(&bench, pair.a, pair.b)[0]
            .clone()
            .expect("the judge explains every pair");
        let p: f64 = shown
            .strip_prefix("p ")
            .and_then(|s| s.split(':').next())
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("{shown}"));
        assert!(
            (p - f64::from(pair.score)).abs() < 0.0015,
            "({}, {}) stored {} shown {shown}",
            pair.a,
            pair.b,
            pair.score
        );
        assert!(
            !shown.contains("semantic_topic missing"),
            "a Chinese pair has its semantic features: {shown}"
        );
    }
}

#[test]
fn a_workbench_on_an_experiment_with_seeds_says_it_shows_the_own_corpus() {
    let app = App::with_workbench(demo());
    assert!(!app.status.contains("seeds"), "{}", app.status);
    let mut bench = demo();
    bench.config.seeds = Some(crate::experiment::seeds::SeedsConfig {
        values: vec![1, 2, 3],
        scale: 0.1,
    });
    let app = App::with_workbench(bench);
    assert!(
        app.status
            .contains("the experiment's own corpus, not its 3 seeds'"),
        "{}",
        app.status
    );
}

/// The workbench as the worker streams it: ready once the truth is known,
/// then the first `finished` runs of `full`, in the runner's order.
fn streamed(full: &Workbench, finished: usize) -> App {
    use crate::tui::workbench::Workbench as W;
    let mut app = App::new(full.source.clone());
    let started = W::started(
        full.source.clone(),
        full.config.clone(),
        full.corpus.clone(),
        &full.result.name,
        full.result.truth.clone(),
        full.judged.clone(),
    );
    app.on_load_event(LoadEvent::Ready(Box::new(started)));
    for (result, tuning) in full
        .result
        .algorithms
        .iter()
        .zip(&full.tunings)
        .take(finished)
    {
        app.on_load_event(LoadEvent::Finished(Box::new((
            result.clone(),
            tuning.clone(),
        ))));
    }
    app
}

#[test]
fn the_planned_runs_are_the_runner_order() {
    use crate::tui::workbench::planned_runs;
    let bench = demo();
    let planned = planned_runs(&bench.config);
    assert_eq!(planned.len(), bench.result.algorithms.len());
    for (p, r) in planned.iter().zip(&bench.result.algorithms) {
        assert_eq!(
            (p.entry, p.extraction),
            (r.entry, r.extraction),
            "{}",
            p.label
        );
    }
}

#[test]
fn snapshot_a_partly_finished_run() {
    let bench = demo();
    let runs = bench.result.algorithms.len();
    let mut app = streamed(&bench, 0);
    assert_eq!(app.bench.as_ref().unwrap().pending.len(), runs);
    app.on_load_event(LoadEvent::Work {
        what: "verify simhash(words,tf) [main]".into(),
        total: 1000,
        done: std::sync::Arc::new(std::sync::atomic::AtomicU64::new(250)),
    });
    // Nothing to focus or move yet; every screen still draws.
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Right);
    assert_eq!(app.focus, 0);
    assert!(!app.unsaved);
    insta::assert_snapshot!("tuning_none_finished_80x24", screen(&app, 80, 24));
    key(&mut app, KeyCode::Char('4'));
    insta::assert_snapshot!("errors_none_finished_80x24", screen(&app, 80, 24));
    for s in ['1', '3', '5'] {
        key(&mut app, KeyCode::Char(s));
        screen(&app, 80, 24);
    }

    let mut app = streamed(&bench, 2);
    app.on_load_event(LoadEvent::Work {
        what: "verify simhash(words,tf) [main]".into(),
        total: 1000,
        done: std::sync::Arc::new(std::sync::atomic::AtomicU64::new(250)),
    });
    key(&mut app, KeyCode::Char('2'));
    // Queued rows cannot be focused; finished ones move while the rest run.
    for _ in 0..5 {
        key(&mut app, KeyCode::Down);
    }
    assert_eq!(app.focus, 1);
    let before = app.bench.as_ref().unwrap().tunings[1].evaluation.clone();
    key(&mut app, KeyCode::Right);
    assert!(app.unsaved);
    assert_ne!(app.bench.as_ref().unwrap().tunings[1].evaluation, before);
    insta::assert_snapshot!("tuning_two_finished_80x24", screen(&app, 80, 24));
    key(&mut app, KeyCode::Char('x'));
    assert!(app.status.contains("wait for every run"), "{}", app.status);
    assert!(app.requests.is_empty());

    // The rest arrive, then the totals: the same workbench as a load at once.
    for (result, tuning) in bench.result.algorithms.iter().zip(&bench.tunings).skip(2) {
        app.on_load_event(LoadEvent::Finished(Box::new((
            result.clone(),
            tuning.clone(),
        ))));
    }
    let mut totals = bench.result.clone();
    totals.algorithms.clear();
    app.on_load_event(LoadEvent::Complete(Box::new(totals)));
    let done = app.bench.as_ref().unwrap();
    assert!(done.pending.is_empty());
    assert_eq!(done.result.algorithms.len(), runs);
    assert_eq!(done.result.throughput, bench.result.throughput);
    assert!(app.status.contains("all finished"), "{}", app.status);
}

#[test]
fn snapshot_the_corpus_read() {
    let mut app = App::new(Source::Experiment("experiments/fan2008.yaml".into()));
    let counter = std::sync::Arc::new(crate::corpus::ReadCounter::default());
    counter
        .bytes
        .store(24_100_000, std::sync::atomic::Ordering::Relaxed);
    counter
        .pages
        .store(5376, std::sync::atomic::Ordering::Relaxed);
    app.on_load_event(LoadEvent::Reading {
        total_bytes: 81_000_000,
        counter,
    });
    assert!(app.running());
    insta::assert_snapshot!("reading", screen(&app, 80, 24));
}

#[test]
fn a_save_while_runs_are_pending_is_what_neardup_run_reproduces() {
    let (dir, path) = every_type();
    let full = load_now(&Source::Experiment(path.clone())).expect("loads");
    let runs = full.result.algorithms.len();
    let mut rng = Lcg(0x9a71);
    // Cut inside the first extraction's runs, and inside the second's: an
    // entry finished on one extraction and pending on the other.
    for finished in [3, runs / 2 + 2] {
        let mut app = streamed(&full, finished);
        move_every_knob(app.bench.as_mut().unwrap(), &mut rng);
        let saved = dir.path().join(format!("every-{finished}.tuned.yaml"));
        perform(&mut app, Request::Save(saved.clone()));
        assert!(
            app.status
                .contains("unfinished rows at configured thresholds"),
            "{}",
            app.status
        );
        let bench = app.bench.as_ref().unwrap();

        let rerun = run_saved(&saved);
        assert_eq!(rerun.algorithms.len(), runs);
        // Finished runs at the moved thresholds, pending ones at the
        // experiment's own.
        let shown =
            full.result
                .algorithms
                .iter()
                .enumerate()
                .map(|(i, r)| match bench.tunings.get(i) {
                    Some(t) => (r, t.threshold, t.evaluation.clone()),
                    None => (r, r.threshold, r.at_threshold().clone()),
                });
        for (r, threshold, evaluation) in shown {
            let again: Vec<_> = rerun
                .algorithms
                .iter()
                .filter(|a| a.run.label == r.run.label && a.extraction == r.extraction)
                .collect();
            assert_eq!(again.len(), 1, "{} [{}]", r.run.label, r.extraction.name());
            assert_eq!(again[0].threshold, threshold);
            assert_eq!(
                again[0].at_threshold(),
                &evaluation,
                "{} finished: {} [{}]",
                finished,
                r.run.label,
                r.extraction.name()
            );
        }
    }
}

#[test]
fn a_run_stops_once_its_watcher_hangs_up() {
    use crate::experiment::{
        load_corpus, load_references, run_experiment_observed, RunOutput, Watchers,
    };
    // A reload drops the old worker's channel: its runner must not go on
    // through the rest of the experiment beside the new one.
    let (text, path) = super::loader::experiment_text(&Source::Demo).unwrap();
    let config = ExperimentConfig::parse(&path, &text).unwrap();
    let corpus = load_corpus(&config, &path).unwrap();
    let references = load_references(&config, &path).unwrap();
    let run = |hang_up: bool| {
        let (results, outputs) = std::sync::mpsc::channel::<RunOutput>();
        let outputs = (!hang_up).then_some(outputs);
        let watchers = Watchers {
            results: Some(results),
            ..Watchers::default()
        };
        let result = run_experiment_observed("demo", &config, &corpus, &references, watchers);
        let runs = outputs.map_or(0, |o| {
            o.try_iter()
                .filter(|x| matches!(x, RunOutput::Algorithm(_)))
                .count()
        });
        let signed = result
            .throughput
            .iter()
            .filter(|r| r.stage == Stage::Signature)
            .count();
        (runs, signed)
    };
    let (runs, signed) = run(false);
    assert_eq!(runs, config.runs());
    assert!(signed > 0, "no algorithm signed anything");
    assert_eq!(run(true), (0, 0), "a run nobody watches went on");
}

/// The README's pictures of the workbench are drawn by the workbench: the
/// tuning screen with minhash focused, moved to its best F. When a screen
/// changes on purpose, the pictures are refreshed by running this test with
/// `NEARDUP_UPDATE_PICTURES=1`.
#[test]
fn the_readme_picture_is_current() {
    let bench = demo();
    let minhash = algorithm(&bench, "minhash(w=3", Extraction::Main);
    let mut app = App::with_workbench(bench);
    focus(&mut app, minhash);
    key(&mut app, KeyCode::Char('b'));
    let update = std::env::var("NEARDUP_UPDATE_PICTURES").is_ok_and(|v| v == "1");
    let mut stale = Vec::new();
    for (width, height) in [(120, 40), (80, 24)] {
        let name = format!("workbench-{width}x{height}.svg");
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("docs/img")
            .join(&name);
        let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
        terminal.draw(|f| ui::render(&app, f)).unwrap();
        let svg = super::screenshot::to_svg(terminal.backend().buffer());
        if std::fs::read_to_string(&path).is_ok_and(|committed| committed == svg) {
            continue;
        }
        if update {
            // A whole file or none: a reader of docs/img never sees half a picture.
            let partial = path.with_extension("svg.partial");
            std::fs::write(&partial, &svg).unwrap();
            std::fs::rename(&partial, &path).unwrap();
        } else {
            stale.push(path.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "the README's pictures of the workbench are out of date: {}; \
         refresh them with `NEARDUP_UPDATE_PICTURES=1 cargo test --release --lib \
         tui::tests::the_readme_picture_is_current` and look at them before committing",
        stale.join(", ")
    );
}

/// The picture keeps the terminal's grid: a wide character takes two cells
/// and what follows starts where the terminal draws it; text is escaped;
/// a reversed cell swaps its colours onto a background rectangle.
#[test]
fn pictures_keep_the_grid_and_escape_the_text() {
    use ratatui::buffer::Buffer;
    use ratatui::layout::Rect;
    use ratatui::style::{Color, Modifier, Style};
    let mut buffer = Buffer::empty(Rect::new(0, 0, 8, 2));
    buffer.set_string(0, 0, "中文a<&", Style::new());
    buffer.set_string(
        1,
        1,
        "ok",
        Style::new().fg(Color::Red).add_modifier(Modifier::REVERSED),
    );
    let svg = super::screenshot::to_svg(&buffer);
    assert!(svg.contains(">中</text>"), "{svg}");
    assert!(svg.contains("<text x=\"0\" y=\"14\""), "{svg}");
    assert!(svg.contains("<text x=\"18\" y=\"14\""), "{svg}");
    assert!(svg.contains("<text x=\"36 45 54\" y=\"14\""), "{svg}");
    assert!(svg.contains(">a&lt;&amp;</text>"), "{svg}");
    assert!(
        svg.contains("<rect x=\"9\" y=\"17\" width=\"18\" height=\"17\" fill=\"#cd3131\"/>"),
        "{svg}"
    );
    assert!(
        svg.contains("y=\"31\" fill=\"#1c1c1c\" xml:space=\"preserve\">ok<"),
        "{svg}"
    );
    assert_eq!(svg, super::screenshot::to_svg(&buffer));
}

#[test]
fn m_makes_clusters_by_the_next_method_as_run_does() {
    use crate::eval::clustering::Clustering;
    let bench = demo();
    let jaccard = algorithm(&bench, "jaccard", Extraction::Main);
    let mut app = App::with_workbench(bench);
    focus(&mut app, jaccard);
    for expected in [
        Clustering::Center,
        Clustering::MergeCenter,
        Clustering::Star,
    ] {
        key(&mut app, KeyCode::Char('m'));
        let bench = app.bench.as_ref().unwrap();
        let (t, result) = (&bench.tunings[jaccard], &bench.result.algorithms[jaccard]);
        assert_eq!(t.clustering, expected, "{}", app.status);
        assert!(app.status.contains(expected.name()), "{}", app.status);
        // The workbench's curve is what `run` and `tune` compute.
        assert_eq!(
            t.curve,
            result.curve_clustered_by(&bench.result.truth, expected),
            "{expected}"
        );
        let at = t.curve.iter().find(|e| e.threshold == t.threshold).unwrap();
        assert_eq!(&t.evaluation, at, "{expected}");
    }
    // A threshold move keeps the method.
    key(&mut app, KeyCode::Right);
    let bench = app.bench.as_ref().unwrap();
    let t = &bench.tunings[jaccard];
    let at = t.curve.iter().find(|e| e.threshold == t.threshold).unwrap();
    assert_eq!(&t.evaluation, at);
    assert!(screen(&app, 120, 40).contains("clusters by star"));
    // Saved, the entry names the method.
    let saved = crate::tui::save::tuned(bench);
    assert!(saved
        .algorithms
        .iter()
        .any(|e| e.clustering == Some(Clustering::Star)));
}

/// A mapping of four demo pages: two removed beside `zh-news-01-orig`, one
/// beside `en-news-00-orig`, one page alone; read with the demo experiment.
fn demo_mapping(lines: &str) -> Result<super::mapping::MappingView, String> {
    use crate::corpus::demo::{DEMO_EXPERIMENT, DEMO_EXPERIMENT_NAME};
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("mapping.csv"), lines).unwrap();
    let path = std::path::PathBuf::from(DEMO_EXPERIMENT_NAME);
    let experiment = crate::experiment::Experiment::parse(DEMO_EXPERIMENT, &path).unwrap();
    let corpus = std::path::Path::new("datasets/demo/demo.jsonl.gz");
    let mut view = super::mapping::MappingView::load(dir.path(), &experiment, corpus)?;
    // The temporary folder's name changes from run to run.
    view.mapping.path = "OUT/mapping.csv".into();
    Ok(view)
}

const MAPPING_CSV: &str = "id,cluster,kept_id,score,joined_via,algorithm
zh-news-02-orig,0,zh-news-02-orig,,,jaccard(w=3) [main]
zh-news-01-orig,1,zh-news-01-orig,,,jaccard(w=3) [main]
zh-news-01-full1,1,zh-news-01-orig,1.0,zh-news-01-orig,jaccard(w=3) [main]
en-news-00-orig,2,en-news-00-orig,,,jaccard(w=3) [main]
zh-news-01-part1,1,zh-news-01-orig,0.41,zh-news-01-full1,jaccard(w=3) [main]
en-news-00-full1,2,en-news-00-orig,0.97,en-news-00-orig,jaccard(w=3) [main]
";

#[test]
fn mapping_screen_lists_clusters_largest_first() {
    let app = App::with_mapping(Source::Demo, demo_mapping(MAPPING_CSV).unwrap());
    let clusters: Vec<(u32, usize)> = app
        .mapping
        .as_ref()
        .unwrap()
        .mapping
        .clusters
        .iter()
        .map(|c| (c.cluster, c.size()))
        .collect();
    assert_eq!(clusters, vec![(1, 3), (2, 2), (0, 1)]);
    insta::assert_snapshot!("mapping_80x24", screen(&app, 80, 24));
    insta::assert_snapshot!("mapping_120x40", screen(&app, 120, 40));
}

#[test]
fn mapping_inspector_shows_the_kept_page_of_a_removed_one() {
    let mut app = App::with_mapping(Source::Demo, demo_mapping(MAPPING_CSV).unwrap());
    key(&mut app, KeyCode::Char('j'));
    key(&mut app, KeyCode::Enter);
    let view = app.mapping.as_ref().unwrap();
    let pair = view.pair.as_ref().expect("Enter opens the pair");
    assert_eq!(
        (pair.removed.as_str(), pair.kept.as_str()),
        ("en-news-00-full1", "en-news-00-orig")
    );
    assert_eq!(pair.scores.len(), view.scorers.len());
    let jaccard = view
        .scorers
        .iter()
        .position(|s| s.label == "jaccard(w=3) [main]")
        .unwrap();
    assert!(
        pair.scores[jaccard].is_some_and(|s| s > 0.5),
        "{:?}",
        pair.scores
    );
    let drawn = screen(&app, 120, 40);
    assert!(drawn.contains("kept en-news-00-orig"), "{drawn}");
    assert!(drawn.contains("removed en-news-00-full1"), "{drawn}");
    // The next removed page of the largest cluster joined through another.
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Char('k'));
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Right);
    let pair = app.mapping.as_ref().unwrap().pair.clone().unwrap();
    assert_eq!(pair.removed, "zh-news-01-part1");
    assert_eq!(pair.kept, "zh-news-01-orig");
    assert_eq!(pair.joined_via.as_deref(), Some("zh-news-01-full1"));
}

#[test]
fn mapping_inspector_scores_scroll_to_the_last_algorithm_at_80x24() {
    let mut app = App::with_mapping(Source::Demo, demo_mapping(MAPPING_CSV).unwrap());
    key(&mut app, KeyCode::Char('j'));
    key(&mut app, KeyCode::Enter);
    let n = app.mapping.as_ref().unwrap().scorers.len();
    let before = screen(&app, 80, 24);
    assert!(
        before.contains("1-") && before.contains(&format!("of {n}")),
        "{before}"
    );
    assert!(!before.contains(&format!("-{n} of {n}")), "{before}");
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::End);
    let after = screen(&app, 80, 24);
    assert!(after.contains(&format!("-{n} of {n}")), "{after}");
    assert!(after.contains("↑↓ scores"), "{after}");
    // Tab again: the arrows move the texts, and the scores stay put.
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::Home);
    assert!(screen(&app, 80, 24).contains(&format!("-{n} of {n}")));
}

#[test]
fn a_bad_mapping_line_is_named() {
    let bad = MAPPING_CSV.replace("zh-news-01-full1,1,", "zh-news-01-full1,one,");
    let e = demo_mapping(&bad).unwrap_err();
    assert!(e.contains("mapping.csv: line 4: cluster: `one`"), "{e}");
    let e = demo_mapping("id,cluster\n").unwrap_err();
    assert!(e.contains("mapping.csv: line 1: the header"), "{e}");
    let orphan = MAPPING_CSV.replace(
        "zh-news-02-orig,0,zh-news-02-orig",
        "zh-news-02-orig,0,nowhere",
    );
    let e = demo_mapping(&orphan).unwrap_err();
    assert!(e.contains("line 2: kept_id: `nowhere`"), "{e}");
    let unknown = MAPPING_CSV.replace("en-news-00-full1,", "not-a-page,");
    let e = demo_mapping(&unknown).unwrap_err();
    assert!(e.contains("line 7: id: `not-a-page` is not in"), "{e}");
}
