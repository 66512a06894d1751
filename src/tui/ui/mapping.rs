//! A dedup mapping's screens: its clusters by size, and a removed page
//! beside its kept page with every algorithm's score of the pair.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::widgets::{Block, Paragraph, Row, Table, TableState, Wrap};
use ratatui::Frame;

use super::inspector::text_lines;
use super::{fit, header};
use crate::tui::mapping::{MappedPair, MappingView};
use crate::util::fmt::threshold_as_typed;

pub fn render(view: &MappingView, frame: &mut Frame, area: Rect) {
    match &view.pair {
        Some(pair) => render_pair(view, pair, frame, area),
        None => render_clusters(view, frame, area),
    }
}

fn render_clusters(view: &MappingView, frame: &mut Frame, area: Rect) {
    let id_width = (area.width as usize).saturating_sub(30).clamp(12, 60) / 2;
    let rows = view.mapping.clusters.iter().map(|c| {
        let first = c
            .removed
            .first()
            .map_or("-".to_string(), |&k| view.mapping.pages[k].id.clone());
        Row::new(vec![
            c.cluster.to_string(),
            c.size().to_string(),
            fit(&c.kept_id, id_width),
            fit(&first, id_width),
        ])
    });
    let removed: usize = view.mapping.clusters.iter().map(|c| c.removed.len()).sum();
    let title = format!(
        " {} clusters by size · {} pages, {removed} removed · {} ",
        view.mapping.clusters.len(),
        view.mapping.pages.len(),
        view.mapping.algorithm
    );
    let mut state = TableState::default().with_selected(Some(view.selected));
    frame.render_stateful_widget(
        Table::new(
            rows,
            [
                Constraint::Length(8),
                Constraint::Length(6),
                Constraint::Length(id_width as u16),
                Constraint::Min(10),
            ],
        )
        .header(header(vec!["cluster", "pages", "kept", "first removed"]))
        .block(
            Block::bordered()
                .title(fit(&title, usize::from(area.width.saturating_sub(2))))
                .title_bottom(" j/k select · Enter: a removed page beside its kept page "),
        )
        .row_highlight_style(Style::new().add_modifier(Modifier::REVERSED)),
        area,
        &mut state,
    );
}

fn render_pair(view: &MappingView, pair: &MappedPair, frame: &mut Frame, area: Rect) {
    let scores_height = (view.scorers.len() as u16 + 3).min(area.height / 2);
    let [texts, scores] =
        Layout::vertical([Constraint::Min(4), Constraint::Length(scores_height)]).areas(area);
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(texts);
    // The scroll stops where the longer text's last line shows.
    let inner = usize::from(left.width.saturating_sub(2)).max(1);
    let wrapped = |h| -> usize {
        text_lines(h)
            .iter()
            .map(|l| l.width().div_ceil(inner).max(1))
            .sum()
    };
    let longest = wrapped(&pair.left).max(wrapped(&pair.right));
    let last = longest.saturating_sub(usize::from(texts.height.saturating_sub(2)));
    let scroll = pair.scroll.min(u16::try_from(last).unwrap_or(u16::MAX));
    let title_width = usize::from(left.width.saturating_sub(20)).max(8);
    for (area, what, id, h) in [
        (left, "removed", &pair.removed, &pair.left),
        (right, "kept", &pair.kept, &pair.right),
    ] {
        let title = format!(
            " {what} {} · {}/{} shared ",
            fit(id, title_width),
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
    let label_width = (area.width as usize).saturating_sub(20).clamp(16, 60);
    let n = view.scorers.len();
    let visible = usize::from(scores.height.saturating_sub(3)).max(1);
    let first = pair.scores_offset.min(n.saturating_sub(visible));
    let rows = view
        .scorers
        .iter()
        .zip(&pair.scores)
        .skip(first)
        .take(visible)
        .map(|(s, score)| {
            let score = score.map_or("- (no signature)".to_string(), |v| {
                threshold_as_typed((f64::from(v) * 1e4).round() / 1e4)
            });
            Row::new(vec![fit(&s.label, label_width), score])
        });
    let mapped = match (&pair.mapped_score, &pair.joined_via) {
        (Some(s), Some(via)) => format!("mapping: {} via {via}", threshold_as_typed(*s)),
        (Some(s), None) => format!("mapping: {}", threshold_as_typed(*s)),
        (None, _) => "mapping: no score".into(),
    };
    let shown = if n > visible {
        format!(" {}-{} of {n}", first + 1, (first + visible).min(n))
    } else {
        String::new()
    };
    let moving = if pair.on_scores { "scores" } else { "texts" };
    frame.render_widget(
        Table::new(
            rows,
            [Constraint::Length(label_width as u16), Constraint::Min(8)],
        )
        .header(header(vec!["algorithm", "score"]))
        .block(
            Block::bordered()
                .title(format!(" every algorithm on this pair{shown} · {mapped} "))
                .title_bottom(format!(
                    " ←→ removed pages · ↑↓ {moving} · Tab texts/scores · Esc "
                )),
        ),
        scores,
    );
}
