//! While the worker runs: one gauge per algorithm run and one overall.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Style};
use ratatui::widgets::{Block, Gauge, Paragraph, Wrap};
use ratatui::Frame;

use super::{algorithm_color, fit};
use crate::eval::throughput::Stage;
use crate::tui::app::{App, RUN_STAGES};

pub fn render(app: &App, frame: &mut Frame, area: Rect) {
    if let Some(message) = &app.failure {
        frame.render_widget(
            Paragraph::new(message.as_str())
                .wrap(Wrap { trim: false })
                .style(Style::new().fg(Color::LightRed))
                .block(Block::bordered().title(" loading failed (r retries, q quits) ")),
            area,
        );
        return;
    }
    let p = &app.progress;
    let runs = p.runs_seen();
    let shared: Vec<String> = p
        .records
        .iter()
        .filter(|r| {
            matches!(
                r.stage,
                Stage::DecodeExtract | Stage::ExtractCache | Stage::Tokenize
            )
        })
        .map(|r| format!("{} {} {:.2}s", r.stage.name(), r.algorithm, r.wall_seconds))
        .collect();
    let planned = p.runs.unwrap_or(0).max(runs.len());
    let rows = 3 + planned as u16;
    let [overall, shared_area, list] = Layout::vertical([
        Constraint::Length(3),
        Constraint::Length(3),
        Constraint::Max(rows),
    ])
    .areas(area);
    let title = match (p.pages, p.runs) {
        (Some(pages), Some(n)) => format!(
            " {}: {pages} pages, {n} algorithm runs ",
            app.source.describe()
        ),
        _ => format!(" reading {} ", app.source.describe()),
    };
    frame.render_widget(
        Gauge::default()
            .block(Block::bordered().title(title))
            .gauge_style(Style::new().fg(Color::Rgb(86, 180, 233)))
            .ratio(p.done())
            .label(format!("{:.0}%", p.done() * 100.0)),
        overall,
    );
    frame.render_widget(
        Paragraph::new(if shared.is_empty() {
            "decoding and extracting ...".to_string()
        } else {
            shared.join("; ")
        })
        .block(Block::bordered().title(" shared stages ")),
        shared_area,
    );
    let block =
        Block::bordered().title(" per algorithm: signature, candidates, verification, evaluation ");
    let inner = block.inner(list);
    frame.render_widget(block, list);
    let lines = Layout::vertical(vec![Constraint::Length(1); planned]).split(inner);
    for (i, slot) in lines.iter().enumerate() {
        let (name, done) = runs
            .get(i)
            .cloned()
            .unwrap_or_else(|| ("waiting".into(), 0));
        let [label, gauge] =
            Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
                .areas(*slot);
        frame.render_widget(Paragraph::new(fit(&name, label.width as usize)), label);
        frame.render_widget(
            Gauge::default()
                .gauge_style(Style::new().fg(algorithm_color(i)))
                .ratio(done as f64 / RUN_STAGES as f64)
                .label(format!("{done}/{RUN_STAGES}")),
            gauge,
        );
    }
}
