//! Corpus: pages, clusters and their sizes, languages, slices.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::style::{Color, Style};
use ratatui::text::Line;
use ratatui::widgets::{Bar, BarChart, BarGroup, Block, Paragraph, Row, Table, TableState};
use ratatui::Frame;

use crate::tui::app::App;
use crate::tui::workbench::Workbench;

/// The slices table's part of the screen's `area`.
pub fn slices_area(area: Rect) -> Rect {
    let [_, bottom] = Layout::vertical([Constraint::Length(9), Constraint::Min(4)]).areas(area);
    bottom
}

pub fn render(app: &App, bench: &Workbench, frame: &mut Frame, area: Rect) {
    let s = &bench.summary;
    let [top, _] = Layout::vertical([Constraint::Length(9), Constraint::Min(4)]).areas(area);
    let bottom = slices_area(area);
    let [facts, sizes] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(top);
    let languages = s
        .languages
        .iter()
        .map(|(code, n)| format!("{code} {n}"))
        .collect::<Vec<_>>()
        .join(", ");
    let lines = vec![
        Line::from(format!("source      {}", app.source.describe())),
        Line::from(format!("corpus      {}", bench.result.corpus_source)),
        Line::from(format!(
            "pages       {} ({:.1} MB)",
            s.pages,
            s.bytes as f64 / 1e6
        )),
        Line::from(format!(
            "clusters    {} ({} with duplicates)",
            s.clusters, s.duplicate_clusters
        )),
        Line::from(format!("true pairs  {}", s.true_pairs)),
        Line::from(format!("languages   {languages}")),
        Line::from(format!(
            "skipped     {} empty rows",
            bench.result.skipped_empty
        )),
    ];
    frame.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(" corpus ")),
        facts,
    );
    let bars: Vec<Bar> = s
        .cluster_sizes
        .iter()
        .map(|&(size, n)| {
            Bar::default()
                .label(Line::from(size.to_string()))
                .value(n as u64)
        })
        .collect();
    frame.render_widget(
        BarChart::default()
            .block(Block::bordered().title(" clusters by size (pages) "))
            .data(BarGroup::default().bars(&bars))
            .bar_width(3)
            .bar_gap(1)
            .bar_style(Style::new().fg(Color::Rgb(86, 180, 233))),
        sizes,
    );
    let rows = s.slices.iter().map(|(name, pages, pairs)| {
        Row::new(vec![name.clone(), pages.to_string(), pairs.to_string()])
    });
    let header = super::header(vec!["slice (category/kind)", "pages", "true pairs"]);
    let selected = (!s.slices.is_empty()).then_some(app.slice_row.min(s.slices.len() - 1));
    frame.render_stateful_widget(
        Table::new(
            rows,
            [
                Constraint::Length(24),
                Constraint::Length(8),
                Constraint::Length(12),
            ],
        )
        .header(header)
        .row_highlight_style(Style::new().add_modifier(Modifier::REVERSED))
        .block(Block::bordered().title(" slices: a pair counts in the later slice of its pages ")),
        bottom,
        &mut TableState::default().with_selected(selected),
    );
}
