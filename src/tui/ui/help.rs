//! `?`: every key.

use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Color, Style};
use ratatui::widgets::{Block, Clear, Row, Table};
use ratatui::Frame;

use super::centered;
use crate::tui::action::KEYS;

pub fn render(frame: &mut Frame, area: Rect) {
    let popup = centered(area, 96, KEYS.len() as u16 + 3);
    let rows = KEYS
        .iter()
        .map(|(keys, what, screen)| Row::new(vec![*keys, *screen, *what]));
    frame.render_widget(Clear, popup);
    frame.render_widget(
        Table::new(
            rows,
            [
                Constraint::Length(16),
                Constraint::Length(10),
                Constraint::Min(20),
            ],
        )
        .header(super::header(vec!["keys", "screen", "does"]))
        .block(
            Block::bordered()
                .title(" keys (Esc or ? closes) ")
                .border_style(Style::new().fg(Color::Rgb(86, 180, 233))),
        ),
        popup,
    );
}
