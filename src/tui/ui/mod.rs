//! Drawing: a pure function of the [`App`]'s state.

mod corpus;
mod errors;
mod help;
mod inspector;
pub mod loading;
mod throughput;
mod tuning;

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Tabs};
use ratatui::Frame;

use super::app::{App, Mode, Screen};

/// One colour per algorithm, kept across screens (Okabe-Ito, readable on
/// dark and light terminals).
pub const PALETTE: [Color; 8] = [
    Color::Rgb(230, 159, 0),
    Color::Rgb(86, 180, 233),
    Color::Rgb(0, 158, 115),
    Color::Rgb(240, 228, 66),
    Color::Rgb(0, 114, 178),
    Color::Rgb(213, 94, 0),
    Color::Rgb(204, 121, 167),
    Color::Rgb(170, 170, 170),
];

pub fn algorithm_color(i: usize) -> Color {
    PALETTE[i % PALETTE.len()]
}

pub const ACCENT: Color = Color::Rgb(86, 180, 233);
const SHARED: Style = Style::new().fg(Color::Black).bg(Color::Rgb(240, 228, 66));

/// A table's header row.
pub fn header<'a>(cells: Vec<&'a str>) -> ratatui::widgets::Row<'a> {
    ratatui::widgets::Row::new(cells).style(
        Style::new()
            .fg(Color::Gray)
            .add_modifier(Modifier::UNDERLINED),
    )
}

pub fn render(app: &App, frame: &mut Frame) {
    let [tabs, body, status] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(0),
        Constraint::Length(1),
    ])
    .areas(frame.area());
    render_tabs(app, frame, tabs);
    match &app.bench {
        None => loading::render(app, frame, body),
        Some(bench) => match app.screen {
            Screen::Corpus => corpus::render(app, bench, frame, body),
            Screen::Tuning => tuning::render(app, bench, frame, body),
            Screen::Throughput => throughput::render(bench, frame, body),
            _ if bench.tunings.is_empty() => frame.render_widget(
                Paragraph::new(
                    " No algorithm run has finished yet: each row of the tuning screen (2) fills in as its run finishes.",
                )
                .wrap(ratatui::widgets::Wrap { trim: false }),
                body,
            ),
            Screen::Errors => errors::render(app, bench, frame, body),
            Screen::Inspector => inspector::render(app, bench, frame, body),
        },
    }
    render_status(app, frame, status);
    if app.help {
        help::render(frame, body);
    }
}

fn render_tabs(app: &App, frame: &mut Frame, area: Rect) {
    let titles = Screen::ALL
        .iter()
        .enumerate()
        .map(|(i, s)| format!("{} {}", i + 1, s.title()));
    let tabs = Tabs::new(titles)
        .select(Screen::ALL.iter().position(|&s| s == app.screen))
        .style(Style::new().fg(Color::Gray))
        .highlight_style(
            Style::new()
                .fg(ACCENT)
                .add_modifier(Modifier::BOLD | Modifier::REVERSED),
        )
        .divider("|");
    let [left, right] =
        Layout::horizontal([Constraint::Min(0), Constraint::Length(10)]).areas(area);
    frame.render_widget(tabs, left);
    frame.render_widget(
        Paragraph::new("? help")
            .right_aligned()
            .style(Style::new().fg(Color::Gray)),
        right,
    );
}

fn render_status(app: &App, frame: &mut Frame, area: Rect) {
    let line = match &app.mode {
        Mode::Confirm(pending) => Line::from(Span::styled(
            format!(" {}", pending.question()),
            Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD),
        )),
        Mode::Typing(text) => Line::from(vec![
            Span::styled(
                format!(
                    " {}: ",
                    if app.typing_precision {
                        "least precision".to_string()
                    } else {
                        app.knob_name()
                    }
                ),
                Style::new().fg(ACCENT),
            ),
            Span::styled(
                format!("{text}_"),
                Style::new().add_modifier(Modifier::BOLD),
            ),
            Span::raw("  (Enter applies, Esc cancels)"),
        ]),
        Mode::Normal => Line::from(Span::raw(format!(" {}", app.status))),
    };
    frame.render_widget(
        Paragraph::new(line).style(Style::new().bg(Color::Rgb(40, 40, 40)).fg(Color::White)),
        area,
    );
}

/// A rectangle of at most `width` x `height` centred in `area`.
fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let width = width.min(area.width);
    let height = height.min(area.height);
    Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + (area.height - height) / 2,
        width,
        height,
    }
}

/// Cuts `s` to at most `max` columns, with an ellipsis when cut.
pub fn fit(s: &str, max: usize) -> String {
    use unicode_width::UnicodeWidthChar;
    let mut out = String::new();
    let mut width = 0;
    let total: usize = s.chars().map(|c| c.width().unwrap_or(0)).sum();
    if total <= max {
        return s.to_string();
    }
    for c in s.chars() {
        let w = c.width().unwrap_or(0);
        if width + w + 1 > max {
            break;
        }
        out.push(c);
        width += w;
    }
    out.push('…');
    out
}
