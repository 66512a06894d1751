//! Keys become actions; what a key means depends on the screen and on
//! whether a value is being typed or the help is open.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::Rect;

use super::app::{App, Mode, Screen};

#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    Quit,
    Show(Screen),
    NextScreen,
    PrevScreen,
    ToggleHelp,
    /// Close a popup or leave a mode; on the inspector, back to the errors.
    Back,
    /// Select the previous or next row (algorithm, error, text line).
    Up,
    Down,
    PageUp,
    PageDown,
    /// The first or the last row.
    Home,
    End,
    /// Select this row of the screen's list (a mouse click).
    Select(usize),
    /// Move the focused threshold by steps (negative: down).
    Nudge(i32),
    /// Focus the next knob of the algorithm: threshold, then its gates.
    NextKnob,
    /// Start typing a value for the focused knob.
    StartTyping,
    Type(char),
    Erase,
    /// Apply the typed value, or open the selected error in the inspector.
    Confirm,
    /// The metric level the charts and the list show.
    NextLevel,
    /// Errors: false positives or negatives; sort order; slice filter.
    ToggleErrorKind,
    ToggleSort,
    NextSliceFilter,
    /// Errors and inspector: the algorithm they are about.
    PrevAlgorithm,
    NextAlgorithm,
    SaveThresholds,
    ExportCharts,
    Reload,
    /// Jump the focused threshold to where an objective is best (an index
    /// into the tuning's objectives: best F, best clustered F, most recall
    /// at the least precision).
    Jump(usize),
    /// The next clustering method for the focused algorithm's clusters.
    NextClustering,
    /// Type the least precision of the most-recall jump, then jump.
    StartTypingPrecision,
    /// Yes to a question.
    Yes,
}

/// The action a key press means now, if any.
pub fn action_for(app: &App, key: KeyEvent) -> Option<Action> {
    if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
        return Some(Action::Quit);
    }
    if app.help {
        return match key.code {
            KeyCode::Char('?') | KeyCode::Esc | KeyCode::Char('q') => Some(Action::ToggleHelp),
            code => moves(code),
        };
    }
    if let Mode::Confirm(_) = app.mode {
        return match key.code {
            KeyCode::Char('y') | KeyCode::Char('Y') | KeyCode::Enter => Some(Action::Yes),
            KeyCode::Char('q') => Some(Action::Quit),
            _ => Some(Action::Back),
        };
    }
    if let Mode::Typing(_) = app.mode {
        return match key.code {
            KeyCode::Enter => Some(Action::Confirm),
            KeyCode::Esc => Some(Action::Back),
            KeyCode::Backspace => Some(Action::Erase),
            // Every character goes to the app, which refuses one that no
            // number has with a message rather than dropping it unseen.
            KeyCode::Char(c) => Some(Action::Type(c)),
            _ => None,
        };
    }
    if app.mapping.is_some() {
        return mapping_action(key.code);
    }
    let shift = key.modifiers.contains(KeyModifiers::SHIFT);
    let common = match key.code {
        KeyCode::Char('q') => Some(Action::Quit),
        KeyCode::Char('?') => Some(Action::ToggleHelp),
        KeyCode::Esc => Some(Action::Back),
        KeyCode::Tab => Some(Action::NextScreen),
        KeyCode::BackTab => Some(Action::PrevScreen),
        KeyCode::Char(c @ '1'..='5') => Screen::ALL
            .get(c as usize - '1' as usize)
            .map(|&s| Action::Show(s)),
        KeyCode::Char('r') => Some(Action::Reload),
        KeyCode::Char('s') => Some(Action::SaveThresholds),
        KeyCode::Char('x') => Some(Action::ExportCharts),
        KeyCode::Char('v') => Some(Action::NextLevel),
        code => moves(code),
    };
    let screen = match app.screen {
        Screen::Tuning => match key.code {
            KeyCode::Left | KeyCode::Char('h') => Some(Action::Nudge(if shift { -10 } else { -1 })),
            KeyCode::Right | KeyCode::Char('l') => Some(Action::Nudge(if shift { 10 } else { 1 })),
            KeyCode::Char('-') => Some(Action::Nudge(-1)),
            KeyCode::Char('+') | KeyCode::Char('=') => Some(Action::Nudge(1)),
            KeyCode::Char('g') => Some(Action::NextKnob),
            KeyCode::Char('b') => Some(Action::Jump(0)),
            KeyCode::Char('c') => Some(Action::Jump(1)),
            KeyCode::Char('p') => Some(Action::StartTypingPrecision),
            KeyCode::Char('m') => Some(Action::NextClustering),
            KeyCode::Enter | KeyCode::Char('t') => Some(Action::StartTyping),
            _ => None,
        },
        Screen::Errors => match key.code {
            KeyCode::Enter => Some(Action::Confirm),
            KeyCode::Char('f') => Some(Action::ToggleErrorKind),
            KeyCode::Char('o') => Some(Action::ToggleSort),
            KeyCode::Char('c') => Some(Action::NextSliceFilter),
            KeyCode::Left | KeyCode::Char('h') => Some(Action::PrevAlgorithm),
            KeyCode::Right | KeyCode::Char('l') => Some(Action::NextAlgorithm),
            _ => None,
        },
        Screen::Inspector => match key.code {
            KeyCode::Backspace => Some(Action::Back),
            KeyCode::Left | KeyCode::Char('h') => Some(Action::PrevAlgorithm),
            KeyCode::Right | KeyCode::Char('l') => Some(Action::NextAlgorithm),
            _ => None,
        },
        Screen::Corpus | Screen::Throughput => None,
    };
    screen.or(common)
}

/// The keys of a mapping opened with `--mapping`: its clusters and the
/// removed-beside-kept inspector.
fn mapping_action(code: KeyCode) -> Option<Action> {
    match code {
        KeyCode::Char('q') => Some(Action::Quit),
        KeyCode::Char('?') => Some(Action::ToggleHelp),
        KeyCode::Esc | KeyCode::Backspace => Some(Action::Back),
        KeyCode::Enter => Some(Action::Confirm),
        KeyCode::Tab => Some(Action::NextScreen),
        KeyCode::Left | KeyCode::Char('h') => Some(Action::PrevAlgorithm),
        KeyCode::Right | KeyCode::Char('l') => Some(Action::NextAlgorithm),
        code => moves(code),
    }
}

/// The keys that move through a list, the same on every screen.
fn moves(code: KeyCode) -> Option<Action> {
    match code {
        KeyCode::Up | KeyCode::Char('k') => Some(Action::Up),
        KeyCode::Down | KeyCode::Char('j') => Some(Action::Down),
        KeyCode::PageUp => Some(Action::PageUp),
        KeyCode::PageDown => Some(Action::PageDown),
        KeyCode::Home => Some(Action::Home),
        KeyCode::End => Some(Action::End),
        _ => None,
    }
}

/// The action a mouse event means now, `area` being the whole terminal:
/// the wheel moves like the arrow keys, a click on a tab shows its
/// screen, a click on a row selects it.
pub fn action_for_mouse(app: &App, mouse: MouseEvent, area: Rect) -> Option<Action> {
    if app.mode != Mode::Normal {
        return None;
    }
    match mouse.kind {
        MouseEventKind::ScrollUp => Some(Action::Up),
        MouseEventKind::ScrollDown => Some(Action::Down),
        MouseEventKind::Down(MouseButton::Left) if !app.help && app.mapping.is_none() => {
            match super::ui::hit(app, area, mouse.column, mouse.row)? {
                super::ui::Hit::Tab(screen) => Some(Action::Show(screen)),
                super::ui::Hit::Row(row) => Some(Action::Select(row)),
            }
        }
        _ => None,
    }
}

/// Every key, for the help popup: (keys, what they do, where).
pub const KEYS: &[(&str, &str, &str)] = &[
    (
        "1-5, Tab",
        "screens: corpus tuning throughput errors inspector",
        "all",
    ),
    (
        "?  q  Ctrl-C",
        "this help; quit (asks when not saved)",
        "all",
    ),
    ("y / n", "answer a question on the status line", "all"),
    ("Esc", "close help, cancel typing, inspector: back", "all"),
    (
        "Up/Down j/k",
        "select an algorithm, stage or error; scroll texts",
        "all",
    ),
    ("PgUp/PgDn", "move ten rows", "all"),
    ("Home/End", "the first / the last row", "all"),
    (
        "mouse",
        "wheel scrolls; click a tab, a row or a pair",
        "all",
    ),
    ("v", "level: pairwise, clustered, page", "all"),
    ("s", "save a complete experiment as NAME.tuned.yaml", "all"),
    ("x", "export charts to a new reports/NAME-tui-N/", "all"),
    ("r", "reload the experiment and its corpus", "all"),
    ("Left/Right h/l", "move the focused knob one step", "tuning"),
    ("S-Left/S-Right", "move it ten steps", "tuning"),
    ("g", "next knob: threshold, title, subtitles", "tuning"),
    ("Enter, t", "type a value (Enter applies)", "tuning"),
    (
        "b  c",
        "jump to the best pairwise F / clustered F",
        "tuning",
    ),
    (
        "p",
        "jump to the most recall at precision >= P (typed)",
        "tuning",
    ),
    (
        "m",
        "clustering: connected center merge star pivot",
        "tuning",
    ),
    ("f  o  c", "FP/FN; sort by score; filter by slice", "errors"),
    ("Left/Right", "previous / next algorithm", "errors"),
    ("Enter", "open the selected pair", "errors"),
    ("Left/Right h/l", "select an algorithm's score", "inspector"),
    ("Backspace", "back to the errors", "inspector"),
    ("Up/Down j/k", "select a cluster; scroll texts", "mapping"),
    ("Enter", "a removed page beside its kept page", "mapping"),
    ("Left/Right h/l", "previous / next removed page", "mapping"),
    ("Tab", "Up/Down move the texts or the scores", "mapping"),
    ("Esc, Backspace", "back to the clusters", "mapping"),
];
