//! The pair inspector: both pages' main text, what they share marked, and
//! every algorithm's score for the pair with its decision.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Row, Table, TableState, Wrap};
use ratatui::Frame;

use super::label::{fit_label, run_labels};
use super::{algorithm_color, fit, SHARED};
use crate::tui::app::App;
use crate::tui::inspect::Highlighted;
use crate::tui::workbench::Workbench;
use crate::util::fmt::threshold_as_typed;

pub(super) fn text_lines(h: &Highlighted) -> Vec<Line<'static>> {
    let mut lines = vec![Line::default()];
    for (piece, shared) in &h.pieces {
        for (k, part) in piece.split('\n').enumerate() {
            if k > 0 {
                lines.push(Line::default());
            }
            if !part.is_empty() {
                let style = if *shared { SHARED } else { Style::new() };
                lines
                    .last_mut()
                    .expect("one line")
                    .push_span(Span::styled(part.to_string(), style));
            }
        }
    }
    lines
}

/// A page's id, with its cluster when that says more.
pub fn page_name(p: &crate::corpus::Page, max: usize) -> String {
    if p.cluster == p.id {
        fit(&p.id, max)
    } else {
        fit(&format!("{} ({})", p.id, p.cluster), max)
    }
}

pub fn render(app: &App, bench: &Workbench, frame: &mut Frame, area: Rect) {
    let Some(i) = &app.inspection else {
        frame.render_widget(
            Paragraph::new(
                "No pair open: on the errors screen (4), select a pair and press Enter.",
            )
            .block(Block::bordered().title(" inspector ")),
            area,
        );
        return;
    };
    let scores_height = (bench.result.algorithms.len() as u16 + 3).min(area.height / 2);
    let [texts, scores] =
        Layout::vertical([Constraint::Min(4), Constraint::Length(scores_height)]).areas(area);
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(texts);
    let truth = &bench.result.truth;
    let same = truth.cluster[i.a as usize] == truth.cluster[i.b as usize];
    // The scroll stops where the longer text's last line shows (its lines
    // counted as wrapped at the column, a word wrap adding a few).
    let inner = usize::from(left.width.saturating_sub(2)).max(1);
    let wrapped = |h: &Highlighted| -> usize {
        text_lines(h)
            .iter()
            .map(|l| l.width().div_ceil(inner).max(1))
            .sum()
    };
    let longest = wrapped(&i.left).max(wrapped(&i.right));
    let last = longest.saturating_sub(usize::from(texts.height.saturating_sub(2)));
    let scroll = i.scroll.min(u16::try_from(last).unwrap_or(u16::MAX));
    for (area, page, h) in [(left, i.a, &i.left), (right, i.b, &i.right)] {
        let p = &bench.corpus.pages[page as usize];
        let title = format!(
            " {} · {} · {}/{} shared ",
            page_name(p, 28),
            truth.slice_names[truth.slice[page as usize] as usize],
            h.shared_units,
            h.units
        );
        frame.render_widget(
            Paragraph::new(text_lines(h))
                .wrap(Wrap { trim: false })
                .scroll((scroll, 0))
                .block(Block::bordered().title(title)),
            area,
        );
    }
    let label_width = (area.width as usize).saturating_sub(60).clamp(20, 48);
    let labels = run_labels(bench);
    let peers: Vec<&str> = labels.iter().map(String::as_str).collect();
    let rows = bench.result.algorithms.iter().enumerate().map(|(k, a)| {
        let run = &a.run;
        let tuning = &bench.tunings[k];
        let (score, decision) = match run.lookup(i.a, i.b) {
            Some((stored, gate_scores)) => {
                let gates = gate_scores.as_ref().map(|g| &g[..]);
                let dup = tuning.judges(&run.scale, stored, gates);
                let mut score = threshold_as_typed(f64::from(stored));
                if let Some(g) = gates {
                    for (gate, s) in run.gates.iter().zip(g) {
                        if !s.is_nan() {
                            score.push_str(&format!(
                                " {} {}",
                                gate.name,
                                threshold_as_typed((f64::from(*s) * 1e3).round() / 1e3)
                            ));
                        }
                    }
                }
                (score, if dup { "duplicate" } else { "not duplicate" })
            }
            None if run.was_candidate(i.a, i.b) => ("-".into(), "past the floor"),
            None => ("-".into(), "not a candidate"),
        };
        let score = match i.explanations.get(k).cloned().flatten() {
            Some(why) => format!("{score}, {why}"),
            None => score,
        };
        let right = (decision == "duplicate") == same;
        // The learned judge explains itself over several lines.
        let score: Vec<Line> = score.lines().map(|l| Line::from(l.to_string())).collect();
        let height = score.len().max(1) as u16;
        Row::new(vec![
            ratatui::text::Text::from(Line::from(Span::styled(
                "■",
                Style::new().fg(algorithm_color(k)),
            ))),
            ratatui::text::Text::from(Line::from(fit_label(
                &labels[k],
                a.extraction.name(),
                label_width,
                &peers,
            ))),
            ratatui::text::Text::from(score),
            ratatui::text::Text::from(Span::styled(
                decision,
                Style::new().fg(if right { Color::Green } else { Color::LightRed }),
            )),
        ])
        .height(height)
    });
    let title = format!(
        " every algorithm on this pair; labels: {} ",
        if same {
            "same cluster"
        } else {
            "different clusters"
        }
    );
    let mut state = TableState::default().with_selected(Some(i.algorithm));
    frame.render_stateful_widget(
        Table::new(
            rows,
            [
                Constraint::Length(1),
                Constraint::Length(label_width as u16),
                Constraint::Length(40),
                Constraint::Min(15),
            ],
        )
        .header(super::header(vec!["", "algorithm", "score", "decision"]))
        .block(Block::bordered().title(title).title_bottom(format!(
            " {}/{} {} [{}] · ←→ select · ↑↓ scroll the texts · Esc back ",
            i.algorithm + 1,
            labels.len(),
            labels[i.algorithm],
            bench.result.algorithms[i.algorithm].extraction.name()
        )))
        .row_highlight_style(Style::new().add_modifier(Modifier::REVERSED)),
        scores,
        &mut state,
    );
}
