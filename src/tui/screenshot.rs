//! A drawn screen as SVG, for the README's pictures of the workbench: they
//! come from the same `ui::render` as the terminal, so a test can tell when
//! they no longer show what the workbench draws.
//!
//! Every character is placed at its own cell (an `x` per character), not
//! left to the viewer's font: a README is viewed with whatever monospace
//! font the reader has, and an advance of 8.25 px instead of 9 would drift
//! a 120-column line by 90 px.

use std::fmt::Write;

use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};
use unicode_width::UnicodeWidthStr;

const CELL_WIDTH: usize = 9;
/// DejaVu Sans Mono's box-drawing glyphs reach 0.928 em above the baseline
/// and 0.236 em below, 17.5 px at 15 px: rows 17 px apart, the baseline 14
/// px down, join a border's `│` from row to row as a terminal does (18 px
/// rows left a gap in every one).
const CELL_HEIGHT: usize = 17;
const BASELINE: usize = 14;
/// DejaVu Sans Mono advances 0.602 em: 9 px at 15 px.
const FONT_SIZE: usize = 15;
const FONTS: &str = "DejaVu Sans Mono, Menlo, Consolas, WenQuanYi Micro Hei Mono, monospace";
/// Around the grid, as a terminal window leaves around its text.
const MARGIN: usize = 9;
const DEFAULT_BG: Rgb = PALETTE[0];
/// As most terminals: the default colour is white 7, so a row drawn in
/// `Gray` and reversed shows no seam where a cell kept the default.
const DEFAULT_FG: Rgb = PALETTE[7];

type Rgb = [u8; 3];

/// A dark terminal's 16 colours, in `Color::Indexed` order.
#[rustfmt::skip]
const PALETTE: [Rgb; 16] = [
    [0x1c, 0x1c, 0x1c], [0xcd, 0x31, 0x31], [0x0d, 0xbc, 0x79], [0xe5, 0xe5, 0x10],
    [0x24, 0x72, 0xc8], [0xbc, 0x3f, 0xbc], [0x11, 0xa8, 0xcd], [0xc8, 0xc8, 0xc8],
    [0x66, 0x66, 0x66], [0xf1, 0x4c, 0x4c], [0x23, 0xd1, 0x8b], [0xf5, 0xf5, 0x43],
    [0x3b, 0x8e, 0xea], [0xd6, 0x70, 0xd6], [0x29, 0xb8, 0xdb], [0xf2, 0xf2, 0xf2],
];

/// The named colours in `Color::Indexed` order.
#[rustfmt::skip]
const NAMED: [Color; 16] = [
    Color::Black, Color::Red, Color::Green, Color::Yellow, Color::Blue, Color::Magenta,
    Color::Cyan, Color::Gray, Color::DarkGray, Color::LightRed, Color::LightGreen,
    Color::LightYellow, Color::LightBlue, Color::LightMagenta, Color::LightCyan, Color::White,
];

/// `None` for `Reset`: the terminal's own colour, which depends on the side.
fn rgb(color: Color) -> Option<Rgb> {
    let index = match color {
        Color::Reset => return None,
        Color::Rgb(r, g, b) => return Some([r, g, b]),
        Color::Indexed(i) => i,
        named => NAMED.iter().position(|&c| c == named).unwrap_or(7) as u8,
    };
    Some(match index {
        0..=15 => PALETTE[index as usize],
        // xterm's 6x6x6 cube, then its 24 greys.
        16..=231 => {
            let level = |v: u8| if v == 0 { 0 } else { 55 + 40 * v };
            let i = index - 16;
            [level(i / 36), level(i / 6 % 6), level(i % 6)]
        }
        _ => [8 + 10 * (index - 232); 3],
    })
}

/// One character as it shows: colours resolved (reversal applied).
#[derive(Clone, Copy)]
struct Glyph<'a> {
    column: usize,
    width: usize,
    symbol: &'a str,
    fg: Rgb,
    bg: Rgb,
    bold: bool,
    underline: bool,
}

impl Glyph<'_> {
    /// A wide or composed character gets its own `<text>`: one `x` per
    /// code point would pull a combining mark away from its base.
    fn stands_alone(&self) -> bool {
        self.width != 1 || self.symbol.chars().nth(1).is_some()
    }

    fn same_text_style(&self, other: &Glyph) -> bool {
        (self.fg, self.bold, self.underline) == (other.fg, other.bold, other.underline)
    }
}

/// The cells of row `y` that show something; the cells a wide character
/// covers are left out.
fn glyphs(buffer: &Buffer, y: u16) -> Vec<Glyph<'_>> {
    let area = buffer.area;
    let mut row = Vec::new();
    let mut x = area.left();
    while x < area.right() {
        let cell = &buffer[(x, y)];
        let width = cell.symbol().width().max(1);
        let (mut fg, mut bg) = (rgb(cell.fg).unwrap_or(DEFAULT_FG), rgb(cell.bg));
        if cell.modifier.contains(Modifier::REVERSED) {
            (fg, bg) = (bg.unwrap_or(DEFAULT_BG), Some(fg));
        }
        row.push(Glyph {
            column: usize::from(x - area.left()),
            width,
            symbol: cell.symbol(),
            fg,
            bg: bg.unwrap_or(DEFAULT_BG),
            bold: cell.modifier.contains(Modifier::BOLD),
            underline: cell.modifier.contains(Modifier::UNDERLINED),
        });
        x = x.saturating_add(width as u16);
    }
    row
}

fn hex([r, g, b]: Rgb) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The whole buffer as a standalone SVG document; the same buffer gives
/// the same bytes.
pub fn to_svg(buffer: &Buffer) -> String {
    let (width, height) = (
        usize::from(buffer.area.width) * CELL_WIDTH + 2 * MARGIN,
        usize::from(buffer.area.height) * CELL_HEIGHT + 2 * MARGIN,
    );
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\" font-family=\"{FONTS}\" font-size=\"{FONT_SIZE}\">\n\
         <rect width=\"{width}\" height=\"{height}\" fill=\"{}\"/>\n\
         <g transform=\"translate({MARGIN} {MARGIN})\">\n",
        hex(DEFAULT_BG)
    );
    for (line, y) in (buffer.area.top()..buffer.area.bottom()).enumerate() {
        let row = glyphs(buffer, y);
        let top = line * CELL_HEIGHT;
        for run in row
            .chunk_by(|a, b| a.bg == b.bg)
            .filter(|r| r[0].bg != DEFAULT_BG)
        {
            let cells: usize = run.iter().map(|g| g.width).sum();
            let _ = writeln!(
                svg,
                "<rect x=\"{}\" y=\"{top}\" width=\"{}\" height=\"{CELL_HEIGHT}\" fill=\"{}\"/>",
                run[0].column * CELL_WIDTH,
                cells * CELL_WIDTH,
                hex(run[0].bg)
            );
        }
        let text_runs =
            row.chunk_by(|a, b| a.same_text_style(b) && !a.stands_alone() && !b.stands_alone());
        for run in text_runs {
            write_text(&mut svg, run, top + BASELINE);
        }
    }
    svg.push_str("</g>\n</svg>\n");
    svg
}

/// One `<text>` for a run of glyphs in one style, blanks at its ends left
/// out (the background is drawn already).
fn write_text(svg: &mut String, run: &[Glyph], baseline: usize) {
    let blank = |g: &Glyph| g.symbol.trim().is_empty() && !g.underline;
    let Some(first) = run.iter().position(|g| !blank(g)) else {
        return;
    };
    let last = run.iter().rposition(|g| !blank(g)).unwrap_or(first);
    let run = &run[first..=last];
    let xs: Vec<String> = run
        .iter()
        .map(|g| (g.column * CELL_WIDTH).to_string())
        .collect();
    let text: String = run.iter().map(|g| escape(g.symbol)).collect();
    let style = run[0];
    let weight = style.bold.then_some(" font-weight=\"bold\"");
    let decoration = style.underline.then_some(" text-decoration=\"underline\"");
    let _ = writeln!(
        svg,
        "<text x=\"{}\" y=\"{baseline}\" fill=\"{}\"{}{} xml:space=\"preserve\">{text}</text>",
        xs.join(" "),
        hex(style.fg),
        weight.unwrap_or_default(),
        decoration.unwrap_or_default(),
    );
}
