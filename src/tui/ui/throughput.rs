//! Throughput: pages/s and MB/s per stage per algorithm, peak memory.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::widgets::{Block, Paragraph, Row, Table};
use ratatui::Frame;

use super::fit;
use crate::tui::workbench::Workbench;

pub fn render(bench: &Workbench, frame: &mut Frame, area: Rect) {
    let r = &bench.result;
    let [table, footer] = Layout::vertical([Constraint::Min(3), Constraint::Length(3)]).areas(area);
    let name_width = (area.width as usize).saturating_sub(60).max(16);
    let rows = r.throughput.iter().map(|s| {
        Row::new(vec![
            s.stage.name().to_string(),
            fit(&s.algorithm, name_width),
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
    frame.render_widget(
        Table::new(
            rows,
            [
                Constraint::Length(16),
                Constraint::Min(16),
                Constraint::Length(8),
                Constraint::Length(8),
                Constraint::Length(10),
                Constraint::Length(8),
            ],
        )
        .header(header)
        .block(Block::bordered().title(format!(
            " stages over {} pages, {:.1} MB of input ",
            r.pages,
            r.input_bytes as f64 / 1e6
        ))),
        table,
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
