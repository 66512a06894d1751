//! While the worker runs: one gauge per algorithm run and one overall.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Style};
use ratatui::widgets::{Block, Gauge, Paragraph, Wrap};
use ratatui::Frame;

use super::{algorithm_color, fit};
use crate::tui::app::{App, Reading, Work, RUN_STAGES};
use crate::util::stage::Stage;

/// The corpus read: `9.3k pages, 41.2 of 80.1 MB, 2.1k pages/s, 5 s left`.
fn reading_line(reading: &Reading) -> String {
    let mb = |b: u64| b as f64 / 1e6;
    let mut line = format!("{} pages", human(reading.pages() as f64));
    match reading.total_bytes {
        0 => {}
        total => line.push_str(&format!(
            ", {:.1} of {:.1} MB",
            mb(reading.bytes()),
            mb(total)
        )),
    }
    if let Some((rate, eta)) = reading.rate_and_eta() {
        line.push_str(&format!(", {}/s", human(rate)));
        if let Some(eta) = eta {
            line.push_str(&format!(", {} left", duration(eta)));
        }
    }
    line
}

/// The stage under way: items done (of how many), the rate and the time
/// left, e.g. `verify simhash [main]: 1.2M of 16.6M pairs, 2.1M/s, 7 s left`.
pub fn work_line(work: &Work) -> String {
    let unit = if work.what.starts_with("verify") {
        "pairs"
    } else {
        "pages"
    };
    let mut line = match work.total {
        // Nothing counted: a stage that cannot say how far it is.
        0 if work.done() == 0 => {
            let seconds = work.started.elapsed().as_secs_f64();
            return format!(" {}: {}", work.what, duration(seconds));
        }
        0 => format!(" {}: {} {unit}", work.what, human(work.done() as f64)),
        total => format!(
            " {}: {} of {} {unit}",
            work.what,
            human(work.done() as f64),
            human(total as f64)
        ),
    };
    if let Some(rate) = work.rate() {
        line.push_str(&format!(", {}/s", human(rate)));
    }
    if let Some(eta) = work.eta() {
        line.push_str(&format!(", {} left", duration(eta)));
    }
    line
}

/// 950, 12.3k, 4.56M.
fn human(x: f64) -> String {
    if x >= 1e6 {
        format!("{:.2}M", x / 1e6)
    } else if x >= 1e4 {
        format!("{:.1}k", x / 1e3)
    } else {
        format!("{x:.0}")
    }
}

/// 7 s, 3 min 20 s.
fn duration(seconds: f64) -> String {
    let s = seconds.round() as u64;
    if s >= 60 {
        format!("{} min {} s", s / 60, s % 60)
    } else {
        format!("{s} s")
    }
}

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
    let [overall, work_area, shared_area, list] = Layout::vertical([
        Constraint::Length(3),
        Constraint::Length(1),
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
    let (ratio, label) = match (&p.reading, p.runs) {
        // Until the corpus is read, the gauge is the read.
        (Some(reading), None) => (reading.ratio(), reading_line(reading)),
        _ => {
            let overall = p.overall();
            (overall.ratio(), overall.label(p.runs.unwrap_or(0)))
        }
    };
    frame.render_widget(
        Gauge::default()
            .block(Block::bordered().title(title))
            .gauge_style(Style::new().fg(Color::Rgb(86, 180, 233)))
            .ratio(ratio)
            .label(label),
        overall,
    );
    if let Some(work) = &p.work {
        frame.render_widget(
            Paragraph::new(fit(&work_line(work), work_area.width as usize)),
            work_area,
        );
    }
    frame.render_widget(
        Paragraph::new(if shared.is_empty() {
            match p.runs {
                None => "reading the corpus ...".to_string(),
                Some(_) => "decoding and extracting ...".to_string(),
            }
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
