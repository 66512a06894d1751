//! `?`: every key, scrolled through like any list.

use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::widgets::{Block, Clear, Row, Table, TableState};
use ratatui::Frame;

use super::centered;
use crate::tui::action::KEYS;
use crate::tui::app::App;

pub fn render(app: &App, frame: &mut Frame, area: Rect) {
    let popup = centered(area, 96, KEYS.len() as u16 + 3);
    let rows = KEYS
        .iter()
        .map(|(keys, what, screen)| Row::new(vec![*keys, *screen, *what]));
    let shown = usize::from(popup.height.saturating_sub(3));
    let more = if shown < KEYS.len() {
        format!(
            " {}/{} · ↑↓ PgUp PgDn Home End scroll ",
            app.help_row + 1,
            KEYS.len()
        )
    } else {
        String::new()
    };
    frame.render_widget(Clear, popup);
    let mut state = TableState::default().with_selected(Some(app.help_row));
    frame.render_stateful_widget(
        Table::new(
            rows,
            [
                Constraint::Length(16),
                Constraint::Length(10),
                Constraint::Min(20),
            ],
        )
        .header(super::header(vec!["keys", "screen", "does"]))
        .row_highlight_style(Style::new().add_modifier(Modifier::REVERSED))
        .block(
            Block::bordered()
                .title(" keys (Esc or ? closes) ")
                .title_bottom(more)
                .border_style(Style::new().fg(Color::Rgb(86, 180, 233))),
        ),
        popup,
        &mut state,
    );
}
