//! Errors: false positives or negatives at the current thresholds, sorted
//! by score, filtered by slice; Enter opens one in the inspector.

use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::widgets::{Block, Row, Table, TableState};
use ratatui::Frame;

use super::algorithm_color;
use super::inspector::page_name;
use super::label::{fit_label, run_labels};
use crate::tui::app::App;
use crate::tui::workbench::{ErrorSort, Workbench, MAX_LISTED};
use crate::util::fmt::threshold_as_typed;

pub fn render(app: &App, bench: &Workbench, frame: &mut Frame, area: Rect) {
    let result = &bench.result.algorithms[app.focus];
    let truth = &bench.result.truth;
    let pages = &bench.corpus.pages;
    let v = &app.errors;
    let id_width = (area.width as usize).saturating_sub(40) / 2;
    let rows = v.rows.iter().map(|r| {
        Row::new(vec![
            r.score
                .map(|s| threshold_as_typed(f64::from(s)))
                .unwrap_or_else(|| "not stored".into()),
            truth.slice_names[r.slice as usize].clone(),
            page_name(&pages[r.a as usize], id_width.max(10)),
            page_name(&pages[r.b as usize], id_width.max(10)),
        ])
    });
    let filter = match v.slice {
        Some(s) => truth.slice_names[s as usize].as_str(),
        None => "all slices",
    };
    let sort = match v.sort {
        ErrorSort::MostConfident => "surest first",
        ErrorSort::LeastConfident => "least sure first",
    };
    let capped = if v.total as usize > MAX_LISTED {
        format!(" (first {MAX_LISTED} listed)")
    } else {
        String::new()
    };
    let labels = run_labels(bench);
    let peers: Vec<&str> = labels.iter().map(String::as_str).collect();
    let title = format!(
        " {}: {} at {}: {}{capped}, {filter}, {sort} ",
        v.kind.name(),
        fit_label(
            &labels[app.focus],
            result.extraction.name(),
            (area.width as usize).saturating_sub(58).clamp(14, 64),
            &peers
        ),
        threshold_as_typed(bench.tunings[app.focus].threshold),
        v.total,
    );
    let header = super::header(vec![
        result.run.scale.name,
        "slice",
        "page a (cluster)",
        "page b (cluster)",
    ]);
    let table = Table::new(
        rows,
        [
            Constraint::Length(18),
            Constraint::Length(16),
            Constraint::Min(10),
            Constraint::Min(10),
        ],
    )
    .header(header)
    .row_highlight_style(Style::new().add_modifier(Modifier::REVERSED))
    .highlight_symbol("> ")
    .block(
        Block::bordered()
            .title(title)
            .title_bottom(" f FP/FN · o sort · c slice · ←→ algorithm · Enter inspect ")
            .border_style(Style::new().fg(algorithm_color(app.focus))),
    );
    let mut state = TableState::default().with_selected((!v.rows.is_empty()).then_some(v.selected));
    frame.render_stateful_widget(table, area, &mut state);
}
