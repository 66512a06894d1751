//! The report's charts, drawn with plotters on any backend (PNG and SVG),
//! with the vendored CJK font so that Chinese labels render anywhere and
//! PNG bytes repeat run to run.

use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::FontStyle;

use super::{Panel, Series, PANEL_SERIES};
use crate::algo::shingling::lsh::Banding;
use crate::experiment::stored::to_counts;
use crate::util::fmt::threshold_short;

/// WenQuanYi Micro Hei (Apache-2.0), from Debian's fonts-wqy-microhei.
const FONT: &[u8] = include_bytes!("../../assets/fonts/wqy-microhei.ttc");
const FONT_NAME: &str = "sans-serif";

pub type DrawResult = Result<(), Box<dyn std::error::Error>>;

/// Registers the vendored font once per process.
pub fn register_font() -> Result<(), String> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = *REGISTERED.get_or_init(|| {
        plotters::style::register_font(FONT_NAME, FontStyle::Normal, FONT).is_ok()
            && plotters::style::register_font(FONT_NAME, FontStyle::Bold, FONT).is_ok()
    });
    ok.then_some(())
        .ok_or_else(|| "the vendored font does not load".to_string())
}

/// Okabe-Ito (black and grey for its yellow, which fades on white), then
/// further distinct tones: the first eight colour a panel.
const PALETTE: [(u8, u8, u8); 20] = [
    (230, 159, 0),
    (86, 180, 233),
    (0, 158, 115),
    (213, 94, 0),
    (0, 114, 178),
    (204, 121, 167),
    (0, 0, 0),
    (120, 120, 120),
    (140, 86, 75),
    (23, 190, 207),
    (148, 103, 189),
    (44, 160, 44),
    (240, 200, 0),
    (188, 189, 34),
    (255, 127, 14),
    (31, 119, 180),
    (214, 39, 40),
    (127, 60, 141),
    (17, 165, 121),
    (57, 105, 172),
];

pub fn color(i: usize) -> RGBColor {
    let (r, g, b) = PALETTE[i % PALETTE.len()];
    RGBColor(r, g, b)
}

pub(super) fn font(size: u32) -> TextStyle<'static> {
    (FONT_NAME, size).into_font().color(&BLACK)
}

/// The font in a colour computed at run time (a borrowed colour would tie
/// the style to it).
pub(super) fn font_in(size: u32, c: RGBColor) -> TextStyle<'static> {
    let mut f = font(size);
    f.color = c.to_backend_color();
    f
}

/// A chart that draws on any plotters backend.
pub trait Chart {
    fn size(&self) -> (u32, u32);
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static;
}

type Plot<'a, DB> = ChartContext<
    'a,
    DB,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

/// Dash and gap in pixels per run: solid, dashed, dotted, long dashes.
fn dash(run: usize) -> Option<(u32, u32)> {
    [None, Some((9, 5)), Some((2, 4)), Some((16, 5))][run % 4]
}

/// A series' line: its algorithm's colour, its run's dash. Compared
/// with later runs, the first run's line is a wide pale band, so that a
/// later run's dashes drawn on the same curve leave it visible.
fn line<'a, DB: DrawingBackend + 'a>(
    chart: &mut Plot<'a, DB>,
    c: RGBColor,
    run: usize,
    compared: bool,
    points: Vec<(f64, f64)>,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let style = if compared && run == 0 {
        c.mix(0.35).stroke_width(6)
    } else {
        c.stroke_width(2)
    };
    match dash(run) {
        None => {
            chart.draw_series(LineSeries::new(points, style))?;
        }
        Some((size, gap)) => {
            chart.draw_series(DashedLineSeries::new(points, size, gap, style))?;
        }
    }
    Ok(())
}

/// One row of a key: the line as drawn (colour and dash), then the name.
pub struct KeyEntry {
    pub name: String,
    pub color: RGBColor,
    pub run: usize,
    /// A marker instead of a line (the papers' points).
    pub marker: bool,
}

impl KeyEntry {
    /// The series' entry; one that drew nothing (`empty`) says why.
    fn of(s: &Series, empty: bool) -> Self {
        KeyEntry {
            name: if empty {
                format!("{}: no point: {}", s.name, s.empty_reason())
            } else {
                s.name.clone()
            },
            color: color(s.color),
            run: s.run,
            marker: false,
        }
    }
}

const KEY_ROW: i32 = 17;

/// Height of a key under a plot with `rows` entries.
pub(super) fn key_height(rows: usize) -> u32 {
    (rows as i32 * KEY_ROW + 12) as u32
}

/// A key drawn in its own area, outside the plot, so it hides no data.
pub(super) fn draw_key<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[KeyEntry],
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let width = area.dim_in_pixel().0 as i32;
    let chars = ((width - 60) / 6).max(10) as usize;
    for (i, e) in entries.iter().enumerate() {
        let y = 6 + i as i32 * KEY_ROW + KEY_ROW / 2;
        if e.marker {
            area.draw(&Cross::new((30, y), 5, e.color.stroke_width(2)))?;
        } else {
            match dash(e.run) {
                None => area.draw(&PathElement::new(
                    vec![(14, y), (46, y)],
                    e.color.stroke_width(3),
                ))?,
                Some((size, gap)) => {
                    let mut x = 14;
                    while x < 46 {
                        let end = (x + size as i32).min(46);
                        area.draw(&PathElement::new(
                            vec![(x, y), (end, y)],
                            e.color.stroke_width(3),
                        ))?;
                        x = end + gap as i32;
                    }
                }
            }
        }
        area.draw(&Text::new(
            short(&e.name, chars),
            (54, y),
            font(12).pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
    }
    Ok(())
}

/// A panel whose every series drew nothing says so in its plot (each
/// key entry says why).
fn note_empty<DB: DrawingBackend>(plot: &DrawingArea<DB, Shift>, empty: bool) -> DrawResult
where
    DB::ErrorType: 'static,
{
    if empty {
        let (w, h) = plot.dim_in_pixel();
        plot.draw(&Text::new(
            "no points: nothing here detected a pair (the key says why)",
            (w as i32 / 2, h as i32 / 2),
            font(15).pos(Pos::new(HPos::Center, VPos::Center)),
        ))?;
    }
    Ok(())
}

/// Text labels beside points, each placed only where it covers no label
/// placed before it: the configured thresholds go first.
#[derive(Default)]
struct Labels {
    placed: Vec<(i32, i32, i32, i32)>,
}

impl Labels {
    /// Draws `text` to the upper right of `at` unless it would overlap.
    fn put<'a, DB: DrawingBackend + 'a>(
        &mut self,
        chart: &mut Plot<'a, DB>,
        at: (f64, f64),
        text: String,
        style: TextStyle<'static>,
    ) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        let (px, py) = chart.backend_coord(&at);
        let w = 7 * text.chars().count() as i32 + 2;
        let (x0, y0) = (px + 4, py - 16);
        let (x1, y1) = (x0 + w, y0 + 13);
        let (area_x, area_y) = chart.plotting_area().get_pixel_range();
        if x1 > area_x.end || y0 < area_y.start {
            return Ok(());
        }
        if self
            .placed
            .iter()
            .any(|&(a0, b0, a1, b1)| x0 < a1 && a0 < x1 && y0 < b1 && b0 < y1)
        {
            return Ok(());
        }
        self.placed.push((x0, y0, x1, y1));
        chart.draw_series(std::iter::once(
            EmptyElement::at(at) + Text::new(text, (4, -16), style),
        ))?;
        Ok(())
    }
}

/// Lays `n` panels out in up to `columns` columns.
fn grid<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    n: usize,
    columns: usize,
) -> Vec<DrawingArea<DB, Shift>> {
    let cols = n.clamp(1, columns);
    let rows = n.div_ceil(cols).max(1);
    area.split_evenly((rows, cols))
        .into_iter()
        .take(n)
        .collect()
}

const PANEL_WIDTH: u32 = 660;
const PANEL_PLOT: u32 = 430;

fn panel_height() -> u32 {
    PANEL_PLOT + key_height(PANEL_SERIES + 1)
}

/// A point a paper reports, drawn beside ours.
#[derive(Debug, Clone, PartialEq)]
pub struct PaperMark {
    pub label: String,
    pub precision: f64,
    /// Absent when the paper gives recall only relative to others: the
    /// precision is then drawn as a line across.
    pub recall: Option<f64>,
}

const PAPER_COLOR: RGBColor = RGBColor(40, 40, 40);

/// Precision against recall (pairwise, all slices): small multiples, one
/// panel per family with the threshold beside its points, after an
/// overview of each family's best variant with the papers' points.
pub struct PrCurves<'a> {
    pub series: &'a [Series],
    /// What the pairs are counted over, for the title.
    pub over: &'a str,
    pub panels: Vec<Panel>,
    pub overview: Panel,
    pub paper: Vec<PaperMark>,
}

impl PrCurves<'_> {
    fn count(&self) -> usize {
        self.panels.len() + 1
    }
}

impl Chart for PrCurves<'_> {
    fn size(&self) -> (u32, u32) {
        let cols = self.count().min(3) as u32;
        let rows = self.count().div_ceil(3) as u32;
        (PANEL_WIDTH * cols, 60 + panel_height() * rows)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let root = root.titled(
            &format!("Precision against recall ({}); labels are thresholds, the filled dot the configured one", self.over),
            font(22),
        )?;
        let areas = grid(&root, self.count(), 3);
        for (k, area) in areas.iter().enumerate() {
            let (panel, recolor) = if k == 0 {
                (&self.overview, true)
            } else {
                (&self.panels[k - 1], false)
            };
            let members: Vec<(RGBColor, &Series)> = panel
                .members
                .iter()
                .enumerate()
                .map(|(j, &i)| {
                    let s = &self.series[i];
                    (if recolor { color(j) } else { color(s.color) }, s)
                })
                .collect();
            if k == 0 {
                // The best variants crowd the top: the overview starts its
                // precision axis just below the lowest of their chosen
                // points (configured and best F) and the paper's.
                let lowest = members
                    .iter()
                    .flat_map(|(_, s)| {
                        let configured = s
                            .algorithm
                            .at_threshold()
                            .map(|e| to_counts(&e.pairwise.overall).precision());
                        [configured, s.best_f().map(|(_, c)| c.precision())]
                    })
                    .flatten()
                    .chain(self.paper.iter().map(|m| m.precision))
                    .filter(|p| p.is_finite())
                    .fold(1.0, f64::min);
                let lo = ((lowest - 0.1) * 10.0).floor().clamp(0.0, 8.0) / 10.0;
                let title = if lo > 0.0 {
                    format!("{} (precision from {lo:.1})", panel.title)
                } else {
                    panel.title.clone()
                };
                pr_panel(area, &title, &members, &self.paper, lo)?;
            } else {
                pr_panel(area, &panel.title, &members, &[], 0.0)?;
            }
        }
        root.present()?;
        Ok(())
    }
}

fn pr_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    members: &[(RGBColor, &Series)],
    paper: &[PaperMark],
    lo: f64,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let (plot, key) = area.split_vertically(PANEL_PLOT);
    let mut chart = ChartBuilder::on(&plot)
        .caption(short(title, 80), font(16))
        .margin(10)
        .x_label_area_size(34)
        .y_label_area_size(46)
        .build_cartesian_2d(0f64..1.02f64, lo..1.02f64)?;
    let shown = |p: &(f64, f64)| p.1 >= lo;
    chart
        .configure_mesh()
        .x_desc("recall")
        .y_desc("precision")
        .label_style(font(12))
        .axis_desc_style(font(13))
        .draw()?;
    note_empty(&plot, members.iter().all(|(_, s)| s.pr_points().is_empty()))?;
    let mut labels = Labels::default();
    let compared = members.iter().any(|(_, s)| s.run > 0);
    for (c, s) in members {
        let points: Vec<(f64, f64)> = s.pr_points().into_iter().filter(shown).collect();
        line(&mut chart, *c, s.run, compared, points.clone())?;
        chart.draw_series(points.iter().map(|&p| Circle::new(p, 2, c.filled())))?;
    }
    // The configured thresholds first, then the others where they fit.
    for (c, s) in members {
        if let Some(e) = s.algorithm.at_threshold() {
            let k = to_counts(&e.pairwise.overall);
            let at = (k.recall(), k.precision());
            if at.0.is_finite() && at.1.is_finite() && shown(&at) {
                chart.draw_series(std::iter::once(Circle::new(at, 6, c.filled())))?;
                labels.put(
                    &mut chart,
                    at,
                    threshold_short(e.threshold),
                    font(12).color(&BLACK),
                )?;
            }
        }
    }
    for (c, s) in members {
        for e in &s.algorithm.evaluations {
            let k = to_counts(&e.pairwise.overall);
            let at = (k.recall(), k.precision());
            if at.0.is_finite() && at.1.is_finite() && shown(&at) {
                labels.put(
                    &mut chart,
                    at,
                    threshold_short(e.threshold),
                    font_in(11, *c),
                )?;
            }
        }
    }
    let mut entries: Vec<KeyEntry> = members
        .iter()
        .map(|(c, s)| KeyEntry {
            color: *c,
            ..KeyEntry::of(s, s.pr_points().is_empty())
        })
        .collect();
    for m in paper {
        match m.recall {
            Some(r) => {
                chart.draw_series(std::iter::once(Cross::new(
                    (r, m.precision),
                    7,
                    PAPER_COLOR.stroke_width(3),
                )))?;
                labels.put(
                    &mut chart,
                    (r, m.precision),
                    m.label.clone(),
                    font_in(12, PAPER_COLOR),
                )?;
            }
            None => {
                chart.draw_series(DashedLineSeries::new(
                    vec![(0.0, m.precision), (1.02, m.precision)],
                    3,
                    6,
                    PAPER_COLOR.stroke_width(1),
                ))?;
                chart.draw_series(std::iter::once(
                    EmptyElement::at((0.01, m.precision))
                        + Text::new(m.label.clone(), (2, -15), font_in(12, PAPER_COLOR)),
                ))?;
            }
        }
    }
    if !paper.is_empty() {
        entries.push(KeyEntry {
            name: "the paper's figures (crosses; a line where it gives no recall)".into(),
            color: PAPER_COLOR,
            run: 0,
            marker: true,
        });
    }
    draw_key(&key, &entries)?;
    Ok(())
}

/// F1 against threshold: one panel per family and score scale (the same
/// panels and colours as the precision-recall chart), the configured
/// threshold filled, the best F ringed and labelled.
pub struct F1Curves<'a> {
    pub series: &'a [Series],
    /// What the pairs are counted over, for the title.
    pub over: &'a str,
    pub panels: Vec<Panel>,
}

impl Chart for F1Curves<'_> {
    fn size(&self) -> (u32, u32) {
        let n = self.panels.len().max(1);
        let cols = n.min(3) as u32;
        (
            PANEL_WIDTH * cols,
            60 + panel_height() * n.div_ceil(3) as u32,
        )
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let root = root.titled(
            &format!(
                "F1 against threshold ({}); the ring is the best F",
                self.over
            ),
            font(22),
        )?;
        for (panel, area) in self
            .panels
            .iter()
            .zip(grid(&root, self.panels.len(), 3).iter())
        {
            let members: Vec<&Series> = panel.members.iter().map(|&i| &self.series[i]).collect();
            let (lo, hi) = members
                .iter()
                .flat_map(|s| s.algorithm.evaluations.iter().map(|e| e.threshold))
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), t| {
                    (lo.min(t), hi.max(t))
                });
            let range = members
                .first()
                .map(|s| (s.algorithm.scale.min, s.algorithm.scale.max));
            let (lo, hi) = threshold_axis(lo, hi, range);
            let (plot, key) = area.split_vertically(PANEL_PLOT);
            let scale = members
                .first()
                .map(|s| s.algorithm.scale.name.clone())
                .unwrap_or_default();
            let mut chart = ChartBuilder::on(&plot)
                .caption(short(&panel.title, 70), font(16))
                .margin(10)
                .x_label_area_size(34)
                .y_label_area_size(46)
                .build_cartesian_2d(lo..hi, 0f64..1.02f64)?;
            chart
                .configure_mesh()
                .x_desc(format!("threshold ({scale})"))
                .y_desc("F1")
                .label_style(font(12))
                .axis_desc_style(font(13))
                .draw()?;
            note_empty(&plot, members.iter().all(|s| s.f1_points().is_empty()))?;
            let mut labels = Labels::default();
            let compared = members.iter().any(|s| s.run > 0);
            for s in &members {
                let c = color(s.color);
                let points = s.f1_points();
                line(&mut chart, c, s.run, compared, points.clone())?;
                chart.draw_series(points.iter().map(|&p| Circle::new(p, 2, c.filled())))?;
                if let Some(e) = s.algorithm.at_threshold() {
                    let f = to_counts(&e.pairwise.overall).f1();
                    if f.is_finite() {
                        chart.draw_series(std::iter::once(Circle::new(
                            (e.threshold, f),
                            6,
                            c.filled(),
                        )))?;
                    }
                }
            }
            for s in &members {
                if let Some((t, k)) = s.best_f() {
                    let c = color(s.color);
                    chart.draw_series(std::iter::once(Circle::new(
                        (t, k.f1()),
                        9,
                        c.stroke_width(2),
                    )))?;
                    labels.put(
                        &mut chart,
                        (t, k.f1()),
                        format!("{:.2} at {}", k.f1(), threshold_short(t)),
                        font_in(12, c),
                    )?;
                }
            }
            let entries: Vec<KeyEntry> = members
                .iter()
                .map(|s| KeyEntry::of(s, s.f1_points().is_empty()))
                .collect();
            draw_key(&key, &entries)?;
        }
        root.present()?;
        Ok(())
    }
}

/// The x range of an F panel: the thresholds evaluated, padded. A score
/// with one value (an exact hash scores 1 or nothing) gets its scale's own
/// range instead of an invented one around the value, so the axis never
/// shows thresholds the scale cannot take (0.5 to 1.5 for a similarity).
fn threshold_axis(lo: f64, hi: f64, scale: Option<(f64, f64)>) -> (f64, f64) {
    if lo < hi {
        let pad = (hi - lo) * 0.04;
        return (lo - pad, hi + pad);
    }
    match scale {
        Some((min, max)) if min < max && min.is_finite() && max.is_finite() => {
            let pad = (max - min) * 0.04;
            (min - pad, max + pad)
        }
        // One value and a one-valued scale: the axis runs from 0 (or the
        // value, if below) to the value (or 1, if above).
        _ if lo.is_finite() => {
            let (from, to) = (lo.min(0.0), lo.max(1.0));
            let pad = (to - from) * 0.04;
            (from - pad, to + pad)
        }
        _ => (0.0, 1.0),
    }
}

#[cfg(test)]
mod tests {
    use super::threshold_axis;

    #[test]
    fn a_one_valued_score_gets_an_axis_its_scale_can_take() {
        // The exact hash: every score 1, a scale of 1 to 1.
        let (lo, hi) = threshold_axis(1.0, 1.0, Some((1.0, 1.0)));
        assert!(lo < 0.0 && lo > -0.1 && hi > 1.0 && hi < 1.1, "{lo}..{hi}");
        // A similarity whose pairs all scored 0.7: its scale's 0 to 1.
        let (lo, hi) = threshold_axis(0.7, 0.7, Some((0.0, 1.0)));
        assert!(lo > -0.1 && hi < 1.1 && lo < 0.0 && hi > 1.0, "{lo}..{hi}");
        // Several thresholds: their own span, padded.
        let (lo, hi) = threshold_axis(0.2, 0.6, Some((0.0, 1.0)));
        assert!(lo < 0.2 && lo > 0.18 && hi > 0.6 && hi < 0.62, "{lo}..{hi}");
        assert_eq!(
            threshold_axis(f64::INFINITY, f64::NEG_INFINITY, None),
            (0.0, 1.0)
        );
    }
}

/// A paper's page-level row for a slice: (slice, the row's name in the
/// paper, precision, recall, F as fractions).
#[derive(Debug, Clone, PartialEq)]
pub struct PaperBar {
    pub slice: String,
    pub name: Option<String>,
    pub values: [f64; 3],
}

/// Seed 001's table as a heatmap: algorithm x slice, page-level F in each
/// cell with precision and recall under it, at the configured thresholds;
/// "-" where F is undefined, and the wrongly flagged pages where a slice
/// has no duplicates to find.
pub struct SliceHeatmap<'a> {
    pub series: &'a [Series],
    pub slices: Vec<String>,
    pub paper: Vec<PaperBar>,
}

const CELL_W: i32 = 150;
const CELL_H: i32 = 34;
const HEAD_H: i32 = 96;

impl SliceHeatmap<'_> {
    fn label_width(&self) -> i32 {
        let longest = self
            .series
            .iter()
            .map(|s| s.name.chars().count())
            .max()
            .unwrap_or(10)
            .max(24);
        (longest as i32 * 7 + 24).min(640)
    }

    fn rows(&self) -> usize {
        self.series.len() + usize::from(!self.paper.is_empty())
    }
}

/// White to blue by F; text turns white on the dark end.
fn heat(v: f64) -> (RGBColor, RGBColor) {
    let v = v.clamp(0.0, 1.0);
    let mix = |a: u8, b: u8| (a as f64 + (b as f64 - a as f64) * v).round() as u8;
    let bg = RGBColor(mix(247, 8), mix(251, 81), mix(255, 156));
    (bg, if v > 0.55 { WHITE } else { BLACK })
}

impl Chart for SliceHeatmap<'_> {
    fn size(&self) -> (u32, u32) {
        let w = self.label_width() + CELL_W * self.slices.len().max(1) as i32 + 30;
        let h = 50 + HEAD_H + CELL_H * self.rows() as i32 + 60;
        (w.max(900) as u32, h as u32)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let root = root.titled(
            "Page level per slice at the configured thresholds (seed 001's counts)",
            font(22),
        )?;
        let left = self.label_width();
        root.draw(&Text::new(
            "each cell: F, then precision and recall; \"-\" undefined; FP: pages wrongly flagged in a slice without duplicates",
            (10, 8),
            font(13),
        ))?;
        let centre = |x: i32, y: i32, text: String, size: u32, c: &RGBColor| {
            Text::new(
                text,
                (x, y),
                font_in(size, *c).pos(Pos::new(HPos::Center, VPos::Center)),
            )
        };
        for (j, slice) in self.slices.iter().enumerate() {
            let x = left + j as i32 * CELL_W + CELL_W / 2;
            root.draw(&centre(x, HEAD_H - 34, slice.clone(), 13, &BLACK))?;
            if let Some(name) = self
                .paper
                .iter()
                .find(|p| p.slice == *slice)
                .and_then(|p| p.name.clone())
            {
                root.draw(&centre(x, HEAD_H - 16, name, 13, &BLACK))?;
            }
        }
        let cell = |i: usize, j: usize| {
            let (x, y) = (left + j as i32 * CELL_W, HEAD_H + i as i32 * CELL_H);
            (x, y, x + CELL_W - 2, y + CELL_H - 2)
        };
        let fmt = |v: f64| {
            if v.is_finite() {
                format!("{v:.2}")
            } else {
                "-".into()
            }
        };
        // The paper's row first, where the eye starts.
        let offset = usize::from(!self.paper.is_empty());
        for (i, s) in self.series.iter().enumerate() {
            let i = i + offset;
            let y = HEAD_H + i as i32 * CELL_H + CELL_H / 2 - 1;
            root.draw(&Text::new(
                short(&s.name, ((left - 16) / 7) as usize),
                (left - 8, y),
                font(12).pos(Pos::new(HPos::Right, VPos::Center)),
            ))?;
            let Some(e) = s.algorithm.at_threshold() else {
                continue;
            };
            for (j, slice) in self.slices.iter().enumerate() {
                let (x0, y0, x1, y1) = cell(i, j);
                let Some(index) = s.slice_index(slice) else {
                    root.draw(&Rectangle::new(
                        [(x0, y0), (x1, y1)],
                        RGBColor(235, 235, 235).filled(),
                    ))?;
                    root.draw(&centre(
                        (x0 + x1) / 2,
                        (y0 + y1) / 2,
                        "-".into(),
                        13,
                        &BLACK,
                    ))?;
                    continue;
                };
                let c = to_counts(&e.page.slices[index]);
                let (cx, cy) = ((x0 + x1) / 2, (y0 + y1) / 2);
                if c.actual == 0 {
                    let bg = if c.detected == 0 {
                        RGBColor(236, 246, 236)
                    } else {
                        RGBColor(250, 196, 182)
                    };
                    root.draw(&Rectangle::new([(x0, y0), (x1, y1)], bg.filled()))?;
                    root.draw(&centre(cx, cy, format!("{} FP", c.detected), 14, &BLACK))?;
                    continue;
                }
                let f = c.f1();
                let (bg, fg) = if f.is_finite() {
                    heat(f)
                } else {
                    (RGBColor(225, 225, 225), BLACK)
                };
                root.draw(&Rectangle::new([(x0, y0), (x1, y1)], bg.filled()))?;
                root.draw(&centre(cx, cy - 7, fmt(f), 14, &fg))?;
                root.draw(&centre(
                    cx,
                    cy + 9,
                    format!("P {} R {}", fmt(c.precision()), fmt(c.recall())),
                    11,
                    &fg,
                ))?;
            }
        }
        if !self.paper.is_empty() {
            let i = 0;
            let y = HEAD_H + i as i32 * CELL_H + CELL_H / 2 - 1;
            root.draw(&Text::new(
                "论文 the paper",
                (left - 8, y),
                font(13).pos(Pos::new(HPos::Right, VPos::Center)),
            ))?;
            for (j, slice) in self.slices.iter().enumerate() {
                let Some(p) = self.paper.iter().find(|p| p.slice == *slice) else {
                    continue;
                };
                let (x0, y0, x1, y1) = cell(i, j);
                let (bg, fg) = heat(p.values[2]);
                root.draw(&Rectangle::new([(x0, y0), (x1, y1)], bg.filled()))?;
                root.draw(&Rectangle::new([(x0, y0), (x1, y1)], BLACK.stroke_width(2)))?;
                let (cx, cy) = ((x0 + x1) / 2, (y0 + y1) / 2);
                root.draw(&centre(cx, cy - 7, fmt(p.values[2]), 14, &fg))?;
                root.draw(&centre(
                    cx,
                    cy + 9,
                    format!("P {} R {}", fmt(p.values[0]), fmt(p.values[1])),
                    11,
                    &fg,
                ))?;
            }
        }
        root.present()?;
        Ok(())
    }
}

/// Axis numbers a reader takes in at a glance: 1k, 25k, 3M.
fn compact(v: f64) -> String {
    let (x, unit) = if v >= 1e9 {
        (v / 1e9, "G")
    } else if v >= 1e6 {
        (v / 1e6, "M")
    } else if v >= 1e3 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    if x >= 10.0 || x.fract() == 0.0 {
        format!("{x:.0}{unit}")
    } else {
        format!("{x:.1}{unit}")
    }
}

/// `s` cut to `max` characters in the middle, keeping the tail that names
/// the extraction (`... [main]`), which tells two series apart.
fn short(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max {
        return s.to_string();
    }
    let tail = match s.rfind(" [") {
        Some(i) if s[i..].chars().count() < max / 2 => &s[i..],
        _ => "",
    };
    let head = max.saturating_sub(tail.chars().count() + 1);
    let mut out: String = s.chars().take(head).collect();
    out.push('…');
    out.push_str(tail);
    out
}

/// The stages of an end-to-end time, in pipeline order. A run makes its
/// pages' text or reads it from the extraction cache, never both.
const THROUGHPUT_STAGES: [&str; 7] = [
    "decode+extract",
    "extract (cache)",
    "tokenize",
    "collection stats",
    "signature",
    "candidate search",
    "verification",
];

const STAGE_COLORS: [RGBColor; 7] = [
    RGBColor(150, 150, 150),
    RGBColor(240, 228, 66),
    RGBColor(200, 200, 200),
    RGBColor(204, 121, 167),
    RGBColor(0, 114, 178),
    RGBColor(230, 159, 0),
    RGBColor(0, 158, 115),
];

/// End-to-end pages per second of each algorithm (its shared decoding,
/// extraction and tokenising included), each bar split by the share of
/// the time its stages take.
pub struct ThroughputBars<'a>(pub &'a [Series]);

const BAR_H: i32 = 24;

impl ThroughputBars<'_> {
    fn label_width(&self) -> i32 {
        let longest = self
            .0
            .iter()
            .map(|s| s.name.chars().count())
            .max()
            .unwrap_or(10);
        (longest as i32 * 7 + 24).clamp(200, 640)
    }
}

/// Round tick steps: 1, 2 or 5 times a power of ten, about six ticks.
fn tick_step(max: f64) -> f64 {
    let raw = (max / 6.0).max(1e-9);
    let p = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * p)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * p)
}

impl Chart for ThroughputBars<'_> {
    fn size(&self) -> (u32, u32) {
        let h = 130 + BAR_H * self.0.len().max(1) as i32 + 50;
        ((self.label_width() + 900) as u32, h as u32)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let has = |stage: &str| {
            self.0
                .iter()
                .any(|s| s.shared.iter().chain(&s.stages).any(|st| st.stage == stage))
        };
        // Text read from the cache costs a fraction of making it: rates
        // that did not extract must not pass for ones that did.
        let root = root.titled(
            if has("extract (cache)") {
                "End-to-end throughput (pages/s of wall time; the pages' text read from the extraction cache, not extracted)"
            } else {
                "End-to-end throughput (pages/s of wall time, decoding and extraction included)"
            },
            font(22),
        )?;
        // The stages' key above the bars.
        let mut x = 10;
        root.draw(&Text::new(
            "each bar split by the time its stages take:",
            (x, 8),
            font(13),
        ))?;
        x += 300;
        let cached = has("extract (cache)");
        for (stage, c) in THROUGHPUT_STAGES.iter().zip(STAGE_COLORS) {
            // One of the two ways to the text is keyed: the one taken.
            let other = if cached {
                "decode+extract"
            } else {
                "extract (cache)"
            };
            if *stage == other {
                continue;
            }
            root.draw(&Rectangle::new([(x, 8), (x + 16, 22)], c.filled()))?;
            root.draw(&Text::new(*stage, (x + 20, 8), font(13)))?;
            x += 26 + 7 * stage.len() as i32 + 12;
        }
        let left = self.label_width();
        let width = root.dim_in_pixel().0 as i32 - left - 120;
        let top = 60;
        let rates: Vec<f64> = self
            .0
            .iter()
            .map(|s| {
                let t = s.end_to_end_seconds();
                if t > 0.0 {
                    s.pages as f64 / t
                } else {
                    0.0
                }
            })
            .collect();
        let max = rates.iter().cloned().fold(1.0, f64::max);
        let step = tick_step(max);
        let axis_max = (max / step).ceil() * step;
        let px = |v: f64| left + (v / axis_max * width as f64).round() as i32;
        let bottom = top + BAR_H * self.0.len() as i32;
        let mut t = 0.0;
        while t <= axis_max + 1e-9 {
            root.draw(&PathElement::new(
                vec![(px(t), top - 4), (px(t), bottom)],
                BLACK.mix(0.15).stroke_width(1),
            ))?;
            root.draw(&Text::new(
                compact(t),
                (px(t), bottom + 6),
                font(12).pos(Pos::new(HPos::Center, VPos::Top)),
            ))?;
            t += step;
        }
        root.draw(&Text::new(
            "pages/s",
            (left + width / 2, bottom + 24),
            font(13).pos(Pos::new(HPos::Center, VPos::Top)),
        ))?;
        for (i, (s, rate)) in self.0.iter().zip(&rates).enumerate() {
            let y0 = top + i as i32 * BAR_H + 3;
            let y1 = y0 + BAR_H - 6;
            root.draw(&Text::new(
                short(&s.name, ((left - 16) / 7) as usize),
                (left - 8, (y0 + y1) / 2),
                font(12).pos(Pos::new(HPos::Right, VPos::Center)),
            ))?;
            let total = s.end_to_end_seconds();
            if total <= 0.0 {
                continue;
            }
            let mut at = 0.0;
            for (stage, c) in THROUGHPUT_STAGES.iter().zip(STAGE_COLORS) {
                let secs: f64 = s
                    .shared
                    .iter()
                    .chain(&s.stages)
                    .filter(|st| st.stage == *stage)
                    .map(|st| st.wall_seconds)
                    .sum();
                if secs <= 0.0 {
                    continue;
                }
                let next = at + rate * secs / total;
                root.draw(&Rectangle::new(
                    [(px(at), y0), (px(next).max(px(at) + 1), y1)],
                    c.filled(),
                ))?;
                at = next;
            }
            root.draw(&Text::new(
                format!("{rate:.0}"),
                (px(*rate) + 6, (y0 + y1) / 2),
                font(12).pos(Pos::new(HPos::Left, VPos::Center)),
            ))?;
        }
        root.present()?;
        Ok(())
    }
}

/// Stored pairs by score, true pairs against false ones, a panel per
/// series (Hamming distances for SimHash, Jaccard for shingling...).
pub struct ScoreHistograms<'a>(pub &'a [Series]);

const TRUE_COLOR: RGBColor = RGBColor(0, 114, 178);
const FALSE_COLOR: RGBColor = RGBColor(213, 94, 0);

impl Chart for ScoreHistograms<'_> {
    fn size(&self) -> (u32, u32) {
        let rows = self.0.len().div_ceil(3).max(1) as u32;
        (1500, 80 + 320 * rows)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let root = root.titled(
            "Stored pairs by score: true pairs (blue) and false pairs (orange), log counts",
            font(24),
        )?;
        let rows = self.0.len().div_ceil(3).max(1);
        let panels = root.split_evenly((rows, 3));
        for (s, panel) in self.0.iter().zip(panels.iter()) {
            let a = &s.algorithm;
            let width = a.bin_width;
            let bins: Vec<_> = a
                .histogram
                .iter()
                .filter(|b| b.true_pairs + b.false_pairs > 0)
                .collect();
            let (lo, hi) = match (bins.first(), bins.last()) {
                (Some(f), Some(l)) => (f.score, l.score + width),
                _ => (a.scale.min, a.scale.max.max(a.scale.min + 1.0)),
            };
            let top = bins
                .iter()
                .map(|b| b.true_pairs.max(b.false_pairs))
                .max()
                .unwrap_or(1)
                .max(1) as f64;
            let caption = if bins.is_empty() {
                format!("{} (no stored pairs)", short(&s.name, 40))
            } else {
                short(&s.name, 52)
            };
            let mut chart = ChartBuilder::on(panel)
                .caption(caption, font_in(14, color(s.color)))
                .margin(8)
                .x_label_area_size(30)
                .y_label_area_size(45)
                .build_cartesian_2d(lo..hi, (0.8f64..top * 2.0).log_scale())?;
            chart
                .configure_mesh()
                .x_desc(a.scale.name.as_str())
                .y_labels(4)
                .y_label_formatter(&|v| compact(*v))
                .label_style(font(11))
                .axis_desc_style(font(12))
                .draw()?;
            for b in &bins {
                for (count, c, half) in [
                    (b.true_pairs, TRUE_COLOR, 0.0),
                    (b.false_pairs, FALSE_COLOR, 0.5),
                ] {
                    if count > 0 {
                        let x0 = b.score + width * half;
                        chart.draw_series(std::iter::once(Rectangle::new(
                            [(x0, 0.8), (x0 + width * 0.48, count as f64)],
                            c.filled(),
                        )))?;
                    }
                }
            }
            let t = a.threshold;
            if (lo..=hi).contains(&t) {
                chart.draw_series(LineSeries::new(
                    vec![(t, 0.8), (t, top * 2.0)],
                    BLACK.stroke_width(1),
                ))?;
            }
        }
        root.present()?;
        Ok(())
    }
}

/// P(candidate | J) of each LSH banding, the threshold marked.
pub struct LshCurves<'a>(pub &'a [Series]);

pub fn lsh_points(banding: [usize; 3]) -> Vec<(f64, f64)> {
    let b = Banding {
        bands: banding[0],
        rows: banding[1],
        min_shared: banding[2],
    };
    (0..=100)
        .map(|i| {
            let j = i as f64 / 100.0;
            (j, b.probability(j))
        })
        .collect()
}

impl Chart for LshCurves<'_> {
    fn size(&self) -> (u32, u32) {
        (1400, 800)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let (plot, key) = root.split_horizontally(800);
        let mut chart = ChartBuilder::on(&plot)
            .caption("LSH S-curves: P(candidate | Jaccard)", font(26))
            .margin(16)
            .x_label_area_size(50)
            .y_label_area_size(60)
            .build_cartesian_2d(0f64..1f64, 0f64..1.02f64)?;
        chart
            .configure_mesh()
            .x_desc("Jaccard similarity (of sketched sets)")
            .y_desc("P(candidate)")
            .label_style(font(15))
            .axis_desc_style(font(17))
            .draw()?;
        // One curve per banding: algorithms that share one share the curve.
        let mut bandings: Vec<([usize; 3], Vec<&Series>)> = Vec::new();
        for s in self.0 {
            let Some(banding) = s.algorithm.banding else {
                continue;
            };
            match bandings.iter_mut().find(|(b, _)| *b == banding) {
                Some((_, users)) => users.push(s),
                None => bandings.push((banding, vec![s])),
            }
        }
        let mut entries = Vec::new();
        for (k, (banding, users)) in bandings.iter().enumerate() {
            let mut distinct: Vec<&str> = Vec::new();
            for s in users {
                if !distinct.contains(&s.algorithm.label.as_str()) {
                    distinct.push(s.algorithm.label.as_str());
                }
            }
            let c = color(k);
            entries.push(KeyEntry {
                name: format!(
                    "{} bands x {} rows: {}",
                    banding[0],
                    banding[1],
                    distinct.join(", ")
                ),
                color: c,
                run: 0,
                marker: false,
            });
            line(&mut chart, c, 0, false, lsh_points(*banding))?;
            for s in users.iter().filter(|s| s.algorithm.scale.name == "jaccard") {
                let t = s.algorithm.threshold;
                chart.draw_series(DashedLineSeries::new(
                    vec![(t, 0.0), (t, 1.02)],
                    4,
                    4,
                    c.stroke_width(1),
                ))?;
            }
        }
        draw_key(&key.margin(60, 0, 0, 0), &entries)?;
        root.present()?;
        Ok(())
    }
}

/// The number K in a label's `K=n` (0 when absent: plain I-Match).
pub fn extra_lexicons(label: &str) -> Option<u32> {
    if !label.starts_with("imatch") {
        return None;
    }
    Some(
        label
            .split(['(', ',', ')'])
            .find_map(|part| part.strip_prefix("K="))
            .and_then(|k| k.parse().ok())
            .unwrap_or(0),
    )
}

/// Kołcz et al.'s figure: I-Match's pairwise recall and precision against
/// the number K of extra lexicons, per run and extraction.
pub struct LexiconSweep<'a>(pub &'a [Series]);

/// One run and extraction's I-Match set-ups: (K, precision, recall) by K.
pub struct SweepLine {
    pub name: String,
    pub points: Vec<(f64, f64, f64)>,
}

impl LexiconSweep<'_> {
    /// Per run and extraction with three set-ups or more.
    pub fn lines(&self) -> Vec<SweepLine> {
        let mut lines: Vec<SweepLine> = Vec::new();
        for s in self.0 {
            let (Some(k), Some(e)) = (
                extra_lexicons(&s.algorithm.label),
                s.algorithm.at_threshold(),
            ) else {
                continue;
            };
            let c = to_counts(&e.pairwise.overall);
            // Set-ups that differ only in K make one line.
            let base = s.algorithm.label.split(",K=").next().unwrap_or_default();
            let base = base.trim_end_matches(')');
            let key = format!("{base}) [{}], run {}", s.algorithm.extraction, s.run + 1);
            let point = (f64::from(k), c.precision(), c.recall());
            match lines.iter_mut().find(|l| l.name == key) {
                Some(line) => line.points.push(point),
                None => lines.push(SweepLine {
                    name: key,
                    points: vec![point],
                }),
            }
        }
        lines.retain(|l| l.points.len() >= 3);
        for l in &mut lines {
            l.points.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        lines
    }
}

impl Chart for LexiconSweep<'_> {
    fn size(&self) -> (u32, u32) {
        (1500, 750)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let lines = self.lines();
        let top = lines
            .iter()
            .flat_map(|l| l.points.iter().map(|p| p.0))
            .fold(1.0, f64::max);
        let (plot, key) = root.split_horizontally(880);
        let mut entries = Vec::new();
        let mut chart = ChartBuilder::on(&plot)
            .caption(
                "I-Match against the number K of extra lexicons (pairwise, all slices)",
                font(24),
            )
            .margin(16)
            .x_label_area_size(50)
            .y_label_area_size(60)
            .build_cartesian_2d(0f64..top, 0f64..1.02f64)?;
        chart
            .configure_mesh()
            .x_desc("K (extra lexicons)")
            .y_desc("recall (solid), precision (dotted)")
            .label_style(font(15))
            .axis_desc_style(font(17))
            .draw()?;
        for (i, SweepLine { name, points }) in lines.iter().enumerate() {
            let c = color(i);
            let recall: Vec<(f64, f64)> = points
                .iter()
                .map(|p| (p.0, p.2))
                .filter(|p| p.1.is_finite())
                .collect();
            let precision: Vec<(f64, f64)> = points
                .iter()
                .map(|p| (p.0, p.1))
                .filter(|p| p.1.is_finite())
                .collect();
            chart.draw_series(LineSeries::new(recall.clone(), c.stroke_width(3)))?;
            chart.draw_series(recall.iter().map(|&p| Circle::new(p, 4, c.filled())))?;
            line(&mut chart, c, 2, false, precision)?;
            for (what, run) in [("recall", 0), ("precision", 2)] {
                entries.push(KeyEntry {
                    name: format!("{what}, {name}"),
                    color: c,
                    run,
                    marker: false,
                });
            }
        }
        draw_key(&key.margin(60, 0, 0, 0), &entries)?;
        root.present()?;
        Ok(())
    }
}
