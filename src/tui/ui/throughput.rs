//! Throughput: pages/s and MB/s per stage per algorithm, peak memory.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::widgets::{Block, Paragraph, Row, Table, TableState};
use ratatui::Frame;

use super::label::fit_stage_name;
use crate::tui::app::App;
use crate::tui::workbench::Workbench;

/// Columns besides the name: the stage's, four numbers', the gaps'.
const OTHER_COLUMNS: usize = 16 + 7 + 7 + 8 + 8 + 5;

/// The stages table's part of the screen's `area`.
pub fn table_area(area: Rect) -> Rect {
    let [table, _] = Layout::vertical([Constraint::Min(3), Constraint::Length(3)]).areas(area);
    table
}

pub fn render(app: &App, bench: &Workbench, frame: &mut Frame, area: Rect) {
    let r = &bench.result;
    let [table, footer] = Layout::vertical([Constraint::Min(3), Constraint::Length(3)]).areas(area);
    let name_width = (area.width as usize)
        .saturating_sub(2 + OTHER_COLUMNS)
        .max(10);
    let peers: Vec<&str> = r
        .throughput
        .iter()
        .filter_map(|s| s.algorithm.rsplit_once(" [").map(|(label, _)| label))
        .collect();
    let rows = r.throughput.iter().map(|s| {
        Row::new(vec![
            s.stage.name().to_string(),
            fit_stage_name(&s.algorithm, name_width, &peers),
            format!("{:.3}", s.wall_seconds),
            format!("{:.3}", s.cpu_seconds),
            format!("{:.0}", s.pages_per_second()),
            format!("{:.2}", s.megabytes_per_second()),
        ])
    });
    let header = Row::new(vec![
        "stage",
        "algorithm [text]",
        "wall s",
        "cpu s",
        "pages/s",
        "MB/s",
    ])
    .style(
        Style::new()
            .fg(Color::Gray)
            .add_modifier(Modifier::UNDERLINED),
    );
    let selected = app.stage_row.min(r.throughput.len().saturating_sub(1));
    // The selected stage's whole name, however narrow its column.
    let focused = r.throughput.get(selected).map_or(String::new(), |s| {
        format!(" {}/{} {} ", selected + 1, r.throughput.len(), s.algorithm)
    });
    let mut state =
        TableState::default().with_selected((!r.throughput.is_empty()).then_some(selected));
    frame.render_stateful_widget(
        Table::new(
            rows,
            [
                Constraint::Length(16),
                Constraint::Min(10),
                Constraint::Length(7),
                Constraint::Length(7),
                Constraint::Length(8),
                Constraint::Length(8),
            ],
        )
        .header(header)
        .row_highlight_style(Style::new().add_modifier(Modifier::REVERSED))
        .block(
            Block::bordered()
                .title(format!(
                    " stages over {} pages, {:.1} MB of input ",
                    r.pages,
                    r.input_bytes as f64 / 1e6
                ))
                .title_bottom(focused),
        ),
        table,
        &mut state,
    );
    let memory = r
        .peak_memory_bytes
        .map(|b| format!("{:.0} MB", b as f64 / 1e6))
        .unwrap_or_else(|| "unknown".into());
    frame.render_widget(
        Paragraph::new(format!(
            "wall {:.2} s, cpu {:.2} s, peak memory {memory} (the whole process)",
            r.wall_seconds, r.cpu_seconds
        ))
        .block(Block::bordered()),
        footer,
    );
}
