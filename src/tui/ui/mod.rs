//! Drawing: a pure function of the [`App`]'s state.

mod corpus;
mod errors;
mod help;
mod inspector;
pub mod label;
pub mod loading;
mod mapping;
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

/// The tabs line, the screen's body and the status lines (as many as the
/// message needs, up to three) of a terminal of `area`.
fn areas(app: &App, area: Rect) -> [Rect; 3] {
    let lines = wrapped_lines(&status_text(app), usize::from(area.width)).clamp(1, 3) as u16;
    Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(0),
        Constraint::Length(lines),
    ])
    .areas(area)
}

/// The lines `text` takes wrapped at word boundaries to `width` columns.
fn wrapped_lines(text: &str, width: usize) -> usize {
    use unicode_width::UnicodeWidthStr;
    let width = width.max(1);
    let (mut lines, mut column) = (1, 0);
    for word in text.split(' ') {
        let w = word.width();
        if column > 0 && column + 1 + w > width {
            lines += 1;
            column = 0;
        }
        column += if column > 0 { 1 + w } else { w };
        // A word longer than the line breaks where the line ends.
        while column > width {
            lines += 1;
            column -= width;
        }
    }
    lines
}

/// Where a click landed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Hit {
    Tab(Screen),
    /// A row of the screen's list, counted from its first.
    Row(usize),
}

/// What is drawn at (`column`, `row`) of a terminal of `area`, when it
/// can be clicked.
pub fn hit(app: &App, area: Rect, column: u16, row: u16) -> Option<Hit> {
    let [tabs, body, _] = areas(app, area);
    if row == tabs.y {
        return tab_at(column.checked_sub(tabs.x)?).map(Hit::Tab);
    }
    let bench = app.bench.as_ref()?;
    let (table, selected, rows) = match app.screen {
        Screen::Tuning if !bench.tunings.is_empty() => (
            tuning::list_area(bench, body),
            app.focus,
            bench.tunings.len(),
        ),
        Screen::Throughput => (
            throughput::table_area(body),
            app.stage_row,
            bench.result.throughput.len(),
        ),
        Screen::Errors if !bench.tunings.is_empty() => {
            (body, app.errors.selected, app.errors.rows.len())
        }
        Screen::Corpus => (
            corpus::slices_area(body),
            app.slice_row,
            bench.summary.slices.len(),
        ),
        _ => return None,
    };
    // Inside the border, below the header row.
    let first = table.y + 2;
    let visible = table.height.saturating_sub(3);
    if row < first || row >= first + visible || column <= table.x || column + 1 >= table.right() {
        return None;
    }
    let index = first_shown(selected, usize::from(visible)) + usize::from(row - first);
    (index < rows).then_some(Hit::Row(index))
}

/// The first row a table of `visible` rows shows with `selected` selected:
/// the selection scrolls into view at the bottom, as ratatui draws it.
pub fn first_shown(selected: usize, visible: usize) -> usize {
    selected.saturating_sub(visible.saturating_sub(1))
}

/// The tab under a column of the tabs line: each title padded by a space
/// either side, then a one-column divider.
fn tab_at(column: u16) -> Option<Screen> {
    let mut start = 0usize;
    for (i, screen) in Screen::ALL.iter().enumerate() {
        let end = start + tab_title(i, *screen).len() + 2;
        if usize::from(column) < end {
            return Some(*screen);
        }
        start = end + 1;
    }
    None
}

fn tab_title(i: usize, screen: Screen) -> String {
    format!("{} {}", i + 1, screen.title())
}

pub fn render(app: &App, frame: &mut Frame) {
    let [tabs, body, status] = areas(app, frame.area());
    if let Some(view) = &app.mapping {
        let title = format!(" Mapping · {}", view.mapping.path.display());
        frame.render_widget(
            Paragraph::new(fit(&title, usize::from(tabs.width)))
                .style(Style::new().fg(ACCENT).add_modifier(Modifier::BOLD)),
            tabs,
        );
        mapping::render(view, frame, body);
    } else {
        render_tabs(app, frame, tabs);
    }
    match &app.bench {
        _ if app.mapping.is_some() => {}
        None => loading::render(app, frame, body),
        Some(bench) => match app.screen {
            Screen::Corpus => corpus::render(app, bench, frame, body),
            Screen::Tuning => tuning::render(app, bench, frame, body),
            Screen::Throughput => throughput::render(app, bench, frame, body),
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
        help::render(app, frame, body);
    }
}

fn render_tabs(app: &App, frame: &mut Frame, area: Rect) {
    let titles = Screen::ALL
        .iter()
        .enumerate()
        .map(|(i, &s)| tab_title(i, s));
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

/// The status line's text, for its height.
fn status_text(app: &App) -> String {
    match &app.mode {
        Mode::Confirm(pending) => format!(" {}", pending.question()),
        Mode::Typing(text) => format!(
            " {}: {text}_  (Enter applies, Esc cancels)",
            if app.typing_precision {
                "least precision".to_string()
            } else {
                app.knob_name()
            }
        ),
        Mode::Normal => format!(" {}", app.status),
    }
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
        Paragraph::new(line)
            .wrap(ratatui::widgets::Wrap { trim: false })
            .style(Style::new().bg(Color::Rgb(40, 40, 40)).fg(Color::White)),
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
