//! Tuning: every algorithm with its knobs; the focused one's P/R/F per
//! slice at three levels; its PR curve and F against threshold, the
//! current point marked.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{
    Axis, Block, Cell, Chart, Dataset, GraphType, Paragraph, Row, Table, TableState, Wrap,
};
use ratatui::Frame;

use super::label::{fit_label, run_labels};
use super::loading::work_line;
use super::{algorithm_color, fit, ACCENT};
use crate::algo::Direction;
use crate::eval::choose::within_floor;
use crate::eval::Counts;
use crate::tui::app::App;
use crate::tui::workbench::{Level, Workbench};
use crate::util::fmt::percent;
use crate::util::fmt::threshold_as_typed;

/// The algorithms list's height in the area below the line of runs.
fn list_height(bench: &Workbench, area: Rect) -> u16 {
    let rows = bench.tunings.len() + bench.pending.len();
    // Borders and the header row besides the algorithms.
    (rows as u16 + 3).min(area.height / 3).max(4)
}

/// The algorithms list's part of the screen's `area`.
pub fn list_area(bench: &Workbench, area: Rect) -> Rect {
    let area = if bench.pending.is_empty() {
        area
    } else {
        let [_, rest] = Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(area);
        rest
    };
    let [list, _] = Layout::vertical([
        Constraint::Length(list_height(bench, area)),
        Constraint::Min(0),
    ])
    .areas(area);
    list
}

pub fn render(app: &App, bench: &Workbench, frame: &mut Frame, area: Rect) {
    // While runs are pending: a line counting them and the stage under way.
    let area = if bench.pending.is_empty() {
        area
    } else {
        let [line, rest] =
            Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(area);
        frame.render_widget(
            Paragraph::new(fit(&running_line(app, bench), line.width as usize))
                .style(Style::new().fg(ACCENT)),
            line,
        );
        rest
    };
    let list_height = list_height(bench, area);
    if bench.tunings.is_empty() {
        let [list, rest] =
            Layout::vertical([Constraint::Length(list_height), Constraint::Min(0)]).areas(area);
        render_algorithms(app, bench, frame, list);
        frame.render_widget(
            Paragraph::new(
                " The first row's metrics and charts show here when its run finishes; ? lists the keys.",
            )
            .wrap(Wrap { trim: false })
            .style(Style::new().fg(Color::Gray)),
            rest,
        );
        return;
    }
    let shown = bench.shown_slices();
    let table_height = (shown.len() as u16 + 4).min(area.height / 3).max(4);
    // With judged pairs, their box: a line of totals and one per grade.
    let judged_height = bench
        .judged
        .as_ref()
        .map_or(0, |j| (j.grades.len() as u16 + 3).min(area.height / 4));
    let [list, table, judged, charts] = Layout::vertical([
        Constraint::Length(list_height),
        Constraint::Length(table_height),
        Constraint::Length(judged_height),
        Constraint::Min(5),
    ])
    .areas(area);
    render_algorithms(app, bench, frame, list);
    render_metrics(app, bench, &shown, frame, table);
    if judged_height > 0 {
        render_judged(app, bench, frame, judged);
    }
    let [pr, f] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(charts);
    render_pr_curve(app, bench, frame, pr);
    render_f_curve(app, bench, frame, f);
}

/// `runs 3 of 36 finished; verify simhash [main]: 1.2M of 16.6M pairs, ...`
fn running_line(app: &App, bench: &Workbench) -> String {
    let done = bench.tunings.len();
    let mut line = format!(" runs {done} of {} finished", done + bench.pending.len());
    if let Some(work) = &app.progress.work {
        line.push(';');
        line.push_str(&work_line(work));
    }
    line
}

fn knobs_text(app: &App, bench: &Workbench, i: usize) -> Vec<Span<'static>> {
    let t = &bench.tunings[i];
    let run = &bench.result.algorithms[i].run;
    let op = match run.scale.direction {
        Direction::AtLeast => "≥",
        Direction::AtMost => "≤",
    };
    let focused = |k: usize| i == app.focus && app.knob == k;
    let style = |k: usize| {
        if focused(k) {
            Style::new()
                .fg(Color::Black)
                .bg(ACCENT)
                .add_modifier(Modifier::BOLD)
        } else {
            Style::new()
        }
    };
    let mut spans = vec![Span::styled(
        format!("{op}{}", threshold_as_typed(t.threshold)),
        style(0),
    )];
    for (k, (gate, value)) in run.gates.iter().zip(&t.gates).enumerate() {
        spans.push(Span::raw(" "));
        spans.push(Span::styled(
            format!(
                "{}≥{}",
                &gate.name[..1.min(gate.name.len())],
                threshold_as_typed(*value)
            ),
            style(k + 1),
        ));
    }
    spans
}

fn render_algorithms(app: &App, bench: &Workbench, frame: &mut Frame, area: Rect) {
    let knobs_width = (0..bench.tunings.len())
        .map(|i| Line::from(knobs_text(app, bench, i)).width())
        .max()
        .unwrap_or(4)
        .max(if bench.pending.is_empty() { 5 } else { 7 });
    let labels = run_labels(bench);
    let peers: Vec<&str> = labels
        .iter()
        .map(String::as_str)
        .chain(bench.pending.iter().map(|p| p.label.as_str()))
        .collect();
    let longest_label = labels
        .iter()
        .zip(&bench.result.algorithms)
        .map(|(l, a)| l.chars().count() + a.extraction.name().len() + 3)
        .chain(
            bench
                .pending
                .iter()
                .map(|p| p.label.chars().count() + p.extraction.name().len() + 3),
        )
        .max()
        .unwrap_or(16);
    let label_width = longest_label
        .min((area.width as usize).saturating_sub(knobs_width + 1 + 3 * 7 + 4 * 6 + 4))
        .max(12);
    let rows = bench.result.algorithms.iter().enumerate().map(|(i, a)| {
        let e = &bench.tunings[i].evaluation;
        let level = app.level.of(e).overall;
        let ceiling = bench.tunings[i].ceiling(app.level);
        // Recall at the ceiling: loosening the threshold cannot add more.
        let capped = level.recall() >= ceiling - 1e-9 && ceiling < 1.0;
        // Clusters given with outside pairs are not the pairs' closure,
        // so the pairs bound nothing there.
        let ceiling_text = if level.recall() > ceiling + 1e-9 {
            "-".to_string()
        } else {
            format!("{:.1}", 100.0 * ceiling)
        };
        Row::new(vec![
            Cell::from(Span::styled("■", Style::new().fg(algorithm_color(i)))),
            Cell::from(fit_label(
                &labels[i],
                a.extraction.name(),
                label_width,
                &peers,
            )),
            Cell::from(Line::from(knobs_text(app, bench, i))),
            Cell::from(percent(level.precision())).style(Style::new()),
            Cell::from(percent(level.recall())),
            Cell::from(percent(level.f1())).style(Style::new().add_modifier(Modifier::BOLD)),
            Cell::from(count(level.correct)),
            Cell::from(count(level.detected - level.correct)),
            Cell::from(count(level.actual - level.correct)),
            Cell::from(ceiling_text).style(if capped {
                Style::new().fg(Color::Yellow)
            } else {
                Style::new().fg(Color::Gray)
            }),
        ])
    });
    // Runs to come: the first one is under way, the others wait.
    let pending = bench.pending.iter().enumerate().map(|(k, p)| {
        Row::new(vec![
            Cell::from(Span::styled(
                "□",
                Style::new().fg(algorithm_color(bench.tunings.len() + k)),
            )),
            Cell::from(fit_label(
                &p.label,
                p.extraction.name(),
                label_width,
                &peers,
            )),
            Cell::from(if k == 0 { "running" } else { "queued" }),
        ])
        .style(Style::new().fg(Color::Gray))
    });
    let rows = rows.chain(pending);
    let header = Row::new(vec![
        "",
        "algorithm [text]",
        "knobs",
        "P%",
        "R%",
        "F%",
        "TP",
        "FP",
        "FN",
        "ceil",
    ])
    .style(
        Style::new()
            .fg(Color::Gray)
            .add_modifier(Modifier::UNDERLINED),
    );
    let table = Table::new(
        rows,
        [
            Constraint::Length(1),
            Constraint::Length(label_width as u16),
            Constraint::Length(knobs_width as u16),
            Constraint::Length(6),
            Constraint::Length(6),
            Constraint::Length(6),
            Constraint::Length(5),
            Constraint::Length(5),
            Constraint::Length(5),
            Constraint::Length(5),
        ],
    )
    .header(header)
    .row_highlight_style(Style::new().add_modifier(Modifier::REVERSED));
    let block = Block::bordered().title(format!(
        " {} level (ceil: candidate recall): ←→ move, b best F, c best clustered F, p most R at P ",
        app.level.name()
    ));
    let selected = (!bench.tunings.is_empty()).then_some(app.focus);
    let table = match labels.get(app.focus) {
        // The focused row's whole label, however narrow its column.
        // The clustering method shows once moved off connected components.
        Some(label) => table.block(block.title_bottom(format!(
            " {}/{} {label} [{}]{} ",
            app.focus + 1,
            labels.len(),
            bench.result.algorithms[app.focus].extraction.name(),
            match bench.tunings[app.focus].clustering {
                crate::eval::clustering::Clustering::Connected => String::new(),
                method => format!(", clusters by {method}"),
            }
        ))),
        None => table.block(block),
    };
    let mut state = TableState::default().with_selected(selected);
    frame.render_stateful_widget(table, area, &mut state);
}

/// A count in at most six characters.
fn count(n: u64) -> String {
    match n {
        0..=99_999 => n.to_string(),
        100_000..=9_999_999 => format!("{:.0}k", n as f64 / 1e3),
        _ => format!("{:.1}M", n as f64 / 1e6),
    }
}

fn prf(c: &Counts) -> [String; 3] {
    [percent(c.precision()), percent(c.recall()), percent(c.f1())]
}

fn render_metrics(app: &App, bench: &Workbench, shown: &[usize], frame: &mut Frame, area: Rect) {
    let e = &bench.tunings[app.focus].evaluation;
    let truth = &bench.result.truth;
    let row = |name: String, pick: &dyn Fn(&Level) -> Counts, bold: bool| {
        let mut cells = vec![Cell::from(name)];
        for level in Level::ALL {
            let c = pick(&level);
            for (k, v) in prf(&c).into_iter().enumerate() {
                let mut style = Style::new();
                if level == app.level {
                    style = style.fg(ACCENT);
                }
                if k == 2 {
                    style = style.add_modifier(Modifier::BOLD);
                }
                cells.push(Cell::from(v).style(style));
            }
        }
        let r = Row::new(cells);
        if bold {
            r.style(Style::new().add_modifier(Modifier::BOLD))
        } else {
            r
        }
    };
    let mut rows: Vec<Row> = shown
        .iter()
        .map(|&s| {
            row(
                truth.slice_names[s].clone(),
                &|l: &Level| l.of(e).slices[s],
                false,
            )
        })
        .collect();
    rows.insert(0, row("all".into(), &|l: &Level| l.of(e).overall, true));
    let header = super::header(vec![
        "slice", "pair P", "R", "F", "clus P", "R", "F", "page P", "R", "F",
    ]);
    let slice_width = shown
        .iter()
        .map(|&s| truth.slice_names[s].chars().count())
        .max()
        .unwrap_or(5)
        .max(5);
    let mut widths = vec![Constraint::Length(slice_width as u16)];
    widths.extend([Constraint::Length(6); 9]);
    let focused = &bench.result.algorithms[app.focus];
    let tuning = &bench.tunings[app.focus];
    // Where the jump keys go (the dots on the F chart).
    let jumps: Vec<String> = ["b", "c", "p"]
        .iter()
        .zip(&tuning.choices)
        .map(|(key, (_, choice))| {
            format!("{key}→{}", choice.map_or("-".into(), threshold_as_typed))
        })
        .collect();
    let labels = run_labels(bench);
    let peers: Vec<&str> = labels.iter().map(String::as_str).collect();
    let title = format!(
        " {}: {} {}; {} (p: P≥{}) ",
        fit_label(&labels[app.focus], focused.extraction.name(), 32, &peers),
        focused.run.scale.name,
        threshold_as_typed(tuning.threshold),
        jumps.join(" "),
        threshold_as_typed(tuning.least_precision)
    );
    let table = Table::new(rows, widths)
        .header(header)
        .column_spacing(1)
        .block(Block::bordered().title(title));
    frame.render_widget(table, area);
}

/// The focused algorithm over the judged pairs at its current threshold.
fn render_judged(app: &App, bench: &Workbench, frame: &mut Frame, area: Rect) {
    let (Some(truth), Some(e)) = (&bench.judged, &bench.tunings[app.focus].judged_evaluation)
    else {
        return;
    };
    let c = &e.counts;
    let mut lines = vec![Line::from(vec![
        Span::raw(format!(
            "P {} R {} ",
            percent(c.precision()),
            percent(c.recall())
        )),
        Span::styled(
            format!("F {}", percent(c.f1())),
            Style::new().add_modifier(Modifier::BOLD),
        ),
        Span::raw(format!(
            "  TP {} FP {} FN {} TN {}; never scored: {} dup (misses), {} other",
            count(c.correct),
            count(c.detected - c.correct),
            count(c.actual - c.correct),
            count(e.true_negatives),
            count(e.unscored_positives),
            count(e.unscored_negatives),
        )),
    ])];
    for g in &e.grades {
        let positive = truth.is_positive(g.grade);
        lines.push(Line::styled(
            format!(
                "grade {:>2}{} {:>6} pairs {:>6} called dup ({}) {:>6} never scored",
                g.grade,
                if positive { "+" } else { " " },
                g.pairs,
                g.detected,
                percent(g.detected as f64 / g.pairs as f64),
                g.unscored
            ),
            if positive {
                Style::new()
            } else {
                Style::new().fg(Color::Gray)
            },
        ));
    }
    let title = format!(
        " judged pairs: {} of them, grade ≥ {} duplicates ",
        truth.pairs.len(),
        truth.positive_from
    );
    frame.render_widget(
        ratatui::widgets::Paragraph::new(lines).block(Block::bordered().title(title)),
        area,
    );
}

type Point = (f64, f64);

fn line(color: Color, points: &[Point]) -> Dataset<'_> {
    Dataset::default()
        .marker(Marker::Braille)
        .graph_type(GraphType::Line)
        .style(Style::new().fg(color))
        .data(points)
}

/// The current thresholds' point, drawn as a block over the curve.
fn current_point(points: &[Point]) -> Dataset<'_> {
    Dataset::default()
        .marker(Marker::Block)
        .graph_type(GraphType::Scatter)
        .style(Style::new().fg(Color::White))
        .data(points)
}

/// The focused algorithm's curve at the current level, and the current
/// point (when both coordinates are defined).
fn chart_points(
    app: &App,
    bench: &Workbench,
    x: impl Fn(&Counts, f64) -> f64,
    y: impl Fn(&Counts) -> f64,
) -> (Vec<Point>, Option<Point>) {
    let t = &bench.tunings[app.focus];
    let points: Vec<(f64, f64)> = t
        .curve
        .iter()
        .map(|e| {
            let c = app.level.of(e).overall;
            (x(&c, e.threshold), y(&c))
        })
        .filter(|(a, b)| a.is_finite() && b.is_finite())
        .collect();
    let c = app.level.of(&t.evaluation).overall;
    let here = (x(&c, t.threshold), y(&c));
    (
        points,
        (here.0.is_finite() && here.1.is_finite()).then_some(here),
    )
}

fn labels(lo: f64, hi: f64) -> Vec<Line<'static>> {
    vec![
        Line::from(threshold_as_typed(lo)),
        Line::from(threshold_as_typed((lo + hi) / 2.0)),
        Line::from(threshold_as_typed(hi)),
    ]
}

fn render_pr_curve(app: &App, bench: &Workbench, frame: &mut Frame, area: Rect) {
    let (points, here) = chart_points(app, bench, |c, _| c.recall(), |c| c.precision());
    let here_points: Vec<(f64, f64)> = here.into_iter().collect();
    let color = algorithm_color(app.focus);
    let datasets = vec![line(color, &points), current_point(&here_points)];
    let title = match here {
        Some((r, p)) => format!(
            " PR ({}): P {} R {} ",
            app.level.name(),
            percent(p),
            percent(r)
        ),
        None => format!(" PR ({}) ", app.level.name()),
    };
    let chart = Chart::new(datasets)
        .block(Block::bordered().title(title))
        .x_axis(
            Axis::default()
                .title("recall")
                .bounds([0.0, 1.0])
                .labels(labels(0.0, 1.0))
                .style(Style::new().fg(Color::Gray)),
        )
        .y_axis(
            Axis::default()
                .title("P")
                .bounds([0.0, 1.0])
                .labels(labels(0.0, 1.0))
                .style(Style::new().fg(Color::Gray)),
        );
    frame.render_widget(chart, area);
}

/// Thresholds the F chart shades: past the floor (never stored, from the
/// scale's end to the floor) and past the candidate ceiling (where the
/// curve's recall already equals what the candidate stage found).
fn shaded(bench: &Workbench, focus: usize, lo: f64, hi: f64) -> Vec<Point> {
    let result = &bench.result.algorithms[focus];
    let t = &bench.tunings[focus];
    let scale = &result.run.scale;
    let ceiling = t.ceiling(Level::Pairwise);
    let step = (hi - lo) / 200.0;
    let mut points = Vec::new();
    if step > 0.0 {
        let mut x = lo;
        while x <= hi {
            if !within_floor(scale, x) {
                points.push((x, 1.0));
            }
            x += step;
        }
    }
    for e in &t.curve {
        if ceiling < 1.0 && e.pairwise.overall.recall() >= ceiling - 1e-9 {
            points.push((e.threshold, 1.0));
        }
    }
    points
}

fn render_f_curve(app: &App, bench: &Workbench, frame: &mut Frame, area: Rect) {
    let (points, here) = chart_points(app, bench, |_, t| t, |c| c.f1());
    let t = &bench.tunings[app.focus];
    let run = &bench.result.algorithms[app.focus].run;
    // The whole scale when the floor cuts it short, so that what lies past
    // the floor shows as shaded rather than missing.
    let (lo, hi) = t
        .curve
        .iter()
        .map(|e| e.threshold)
        .chain([t.threshold])
        .chain(
            [run.scale.floor]
                .into_iter()
                .filter(|f| *f > run.scale.min && *f < run.scale.max)
                .flat_map(|f| match run.scale.direction {
                    Direction::AtLeast => [run.scale.min.max(f - 0.2), f],
                    Direction::AtMost => [f, run.scale.max.min(f + 4.0)],
                }),
        )
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
            (lo.min(x), hi.max(x))
        });
    // One threshold (an exact hash scores 1 or nothing): the scale's own
    // range, or 0 to 1, as the report draws it; never thresholds the
    // scale cannot take (0.5 to 1.5).
    let (lo, hi) = if lo < hi {
        (lo, hi)
    } else if run.scale.min < run.scale.max {
        (run.scale.min, run.scale.max)
    } else {
        (lo.min(0.0), lo.max(1.0))
    };
    let marker_line = [(t.threshold, 0.0), (t.threshold, 1.0)];
    let here_points: Vec<(f64, f64)> = here.into_iter().collect();
    let color = algorithm_color(app.focus);
    let shade = shaded(bench, app.focus, lo, hi);
    let chosen: Vec<Vec<Point>> = t
        .choices
        .iter()
        .map(|(_, choice)| {
            choice
                .and_then(|c| t.curve.iter().find(|e| e.threshold == c))
                .map(|e| (e.threshold, app.level.of(e).overall.f1()))
                .filter(|p| p.1.is_finite())
                .into_iter()
                .collect()
        })
        .collect();
    let mut datasets = vec![
        Dataset::default()
            .marker(Marker::Braille)
            .graph_type(GraphType::Bar)
            .style(Style::new().fg(Color::Rgb(60, 60, 60)))
            .data(&shade),
        line(Color::DarkGray, &marker_line),
        line(color, &points),
    ];
    for ((objective, _), p) in t.choices.iter().zip(&chosen) {
        datasets.push(
            Dataset::default()
                .name(match objective {
                    crate::eval::choose::Objective::PairwiseF1 => "b F".to_string(),
                    crate::eval::choose::Objective::ClusteredF1 => "c clus F".to_string(),
                    crate::eval::choose::Objective::RecallAtPrecision(p) => format!("p R@P{p}"),
                })
                .marker(Marker::Dot)
                .graph_type(GraphType::Scatter)
                .style(Style::new().fg(match objective {
                    crate::eval::choose::Objective::PairwiseF1 => Color::Green,
                    crate::eval::choose::Objective::ClusteredF1 => Color::Cyan,
                    crate::eval::choose::Objective::RecallAtPrecision(_) => Color::Magenta,
                }))
                .data(p),
        );
    }
    datasets.push(current_point(&here_points));
    let title = match here {
        Some((_, f)) => format!(
            " F vs {}: {} at {}; shaded: past floor/ceiling ",
            run.scale.name,
            percent(f),
            threshold_as_typed(t.threshold)
        ),
        None => format!(
            " F vs {} at {} ",
            run.scale.name,
            threshold_as_typed(t.threshold)
        ),
    };
    let chart = Chart::new(datasets)
        .block(Block::bordered().title(title))
        .legend_position(Some(ratatui::widgets::LegendPosition::BottomRight))
        .hidden_legend_constraints((Constraint::Ratio(1, 2), Constraint::Ratio(1, 2)))
        .x_axis(
            Axis::default()
                .bounds([lo, hi])
                .labels(labels(lo, hi))
                .style(Style::new().fg(Color::Gray)),
        )
        .y_axis(
            Axis::default()
                .title("F")
                .bounds([0.0, 1.0])
                .labels(labels(0.0, 1.0))
                .style(Style::new().fg(Color::Gray)),
        );
    frame.render_widget(chart, area);
}
