//! The report's charts, drawn with plotters on any backend (PNG and SVG),
//! with the vendored CJK font so that Chinese labels render anywhere and
//! PNG bytes repeat run to run.

use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::FontStyle;

use super::stored::to_counts;
use super::Series;
use crate::algo::shingling::lsh::Banding;

/// WenQuanYi Micro Hei (Apache-2.0), from Debian's fonts-wqy-microhei.
pub const FONT: &[u8] = include_bytes!("../../assets/fonts/wqy-microhei.ttc");
pub const FONT_NAME: &str = "sans-serif";

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

/// Okabe-Ito, then further distinct tones: one colour per algorithm in
/// every chart (20 before they repeat).
const PALETTE: [(u8, u8, u8); 20] = [
    (230, 159, 0),
    (86, 180, 233),
    (0, 158, 115),
    (213, 94, 0),
    (0, 114, 178),
    (204, 121, 167),
    (120, 120, 120),
    (240, 200, 0),
    (140, 86, 75),
    (23, 190, 207),
    (148, 103, 189),
    (44, 160, 44),
    (0, 0, 0),
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

fn font(size: u32) -> TextStyle<'static> {
    (FONT_NAME, size).into_font().color(&BLACK)
}

/// A chart that draws on any plotters backend.
pub trait Chart {
    fn size(&self) -> (u32, u32);
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static;
}

/// The line style of a series: solid for the first run, dashed after.
fn line<'a, DB: DrawingBackend + 'a>(
    chart: &mut ChartContext<
        'a,
        DB,
        Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
    >,
    s: &Series,
    points: Vec<(f64, f64)>,
    legend: bool,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let c = color(s.color);
    let style = c.stroke_width(2);
    let drawn = if !s.dashed {
        chart.draw_series(LineSeries::new(points, style))?
    } else {
        chart.draw_series(DashedLineSeries::new(points, 8, 5, style))?
    };
    if legend {
        drawn
            .label(s.name.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(3)));
    }
    Ok(())
}

fn legend<'a, DB: DrawingBackend + 'a>(
    chart: &mut ChartContext<
        'a,
        DB,
        Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
    >,
    position: SeriesLabelPosition,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    chart
        .configure_series_labels()
        .position(position)
        .label_font(font(13))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.4))
        .draw()?;
    Ok(())
}

/// Precision against recall (pairwise, all slices), one curve per series,
/// the configured threshold marked.
pub struct PrCurves<'a>(pub &'a [Series]);

impl Chart for PrCurves<'_> {
    fn size(&self) -> (u32, u32) {
        (1450, 850)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let root = root.titled("Precision and recall (pairwise, all slices)", font(26))?;
        let (plot, key) = root.split_horizontally(1000);
        draw_key(&key, self.0)?;
        let mut chart = ChartBuilder::on(&plot)
            .margin(16)
            .x_label_area_size(50)
            .y_label_area_size(60)
            .build_cartesian_2d(0f64..1.02f64, 0f64..1.02f64)?;
        chart
            .configure_mesh()
            .x_desc("recall")
            .y_desc("precision")
            .label_style(font(15))
            .axis_desc_style(font(17))
            .draw()?;
        for s in self.0 {
            let points = s.pr_points();
            line(&mut chart, s, points, false)?;
            if let Some(e) = s.algorithm.at_threshold() {
                let c = to_counts(&e.pairwise.overall);
                let (r, p) = (c.recall(), c.precision());
                if r.is_finite() && p.is_finite() {
                    chart.draw_series(std::iter::once(Circle::new(
                        (r, p),
                        6,
                        color(s.color).filled(),
                    )))?;
                }
            }
        }
        root.present()?;
        Ok(())
    }
}

/// F1 against threshold, one panel per score scale (distances and
/// similarities do not share an axis).
pub struct F1Curves<'a>(pub &'a [Series]);

impl F1Curves<'_> {
    fn scales(&self) -> Vec<String> {
        let mut scales: Vec<String> = Vec::new();
        for s in self.0.iter().filter(|s| !s.f1_points().is_empty()) {
            if !scales.contains(&s.algorithm.scale.name) {
                scales.push(s.algorithm.scale.name.clone());
            }
        }
        scales
    }
}

impl Chart for F1Curves<'_> {
    fn size(&self) -> (u32, u32) {
        let n = self.scales().len() as u32;
        (1200, 80 + 420 * n.div_ceil(2))
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let root = root.titled("F1 against threshold (pairwise, all slices)", font(26))?;
        let scales = self.scales();
        let rows = scales.len().div_ceil(2).max(1);
        let panels = root.split_evenly((rows, 2));
        for (scale, panel) in scales.iter().zip(panels.iter()) {
            let series: Vec<&Series> = self
                .0
                .iter()
                .filter(|s| &s.algorithm.scale.name == scale && !s.f1_points().is_empty())
                .collect();
            let (lo, hi) = series
                .iter()
                .flat_map(|s| s.algorithm.evaluations.iter().map(|e| e.threshold))
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), t| {
                    (lo.min(t), hi.max(t))
                });
            let (lo, hi) = if lo < hi {
                (lo, hi)
            } else {
                (lo - 0.5, hi + 0.5)
            };
            let mut chart = ChartBuilder::on(panel)
                .caption(scale, font(19))
                .margin(12)
                .x_label_area_size(40)
                .y_label_area_size(50)
                .build_cartesian_2d(lo..hi, 0f64..1.02f64)?;
            chart
                .configure_mesh()
                .x_desc("threshold")
                .y_desc("F1")
                .label_style(font(13))
                .axis_desc_style(font(15))
                .draw()?;
            for s in &series {
                line(&mut chart, s, s.f1_points(), true)?;
                if let Some(e) = s.algorithm.at_threshold() {
                    let f = to_counts(&e.pairwise.overall).f1();
                    if f.is_finite() {
                        chart.draw_series(std::iter::once(Circle::new(
                            (e.threshold, f),
                            5,
                            color(s.color).filled(),
                        )))?;
                    }
                }
            }
            legend(&mut chart, SeriesLabelPosition::UpperRight)?;
        }
        root.present()?;
        Ok(())
    }
}

/// Seed 001's table as bars: page-level precision, recall and F per
/// slice, one bar per series, at the configured thresholds.
pub struct SliceBars<'a> {
    pub series: &'a [Series],
    pub slices: Vec<String>,
    /// A paper's page-level rows to draw beside ours: (slice, the row's
    /// name in the paper, precision, recall, F as fractions).
    pub paper: Vec<PaperBar>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PaperBar {
    pub slice: String,
    pub name: Option<String>,
    pub values: [f64; 3],
}

const PAPER_COLOR: RGBColor = RGBColor(40, 40, 40);

impl Chart for SliceBars<'_> {
    fn size(&self) -> (u32, u32) {
        (1500, 1300)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let root = root.titled(
            "Page level per slice at the configured thresholds (seed 001's table)",
            font(26),
        )?;
        let (bars, key) = root.split_horizontally(1100);
        let panels = bars.split_evenly((3, 1));
        let paper_slot = usize::from(!self.paper.is_empty());
        let n = (self.series.len() + paper_slot).max(1) as f64;
        let k = self.slices.len().max(1);
        for (m, (metric, panel)) in ["precision", "recall", "F"]
            .iter()
            .zip(panels.iter())
            .enumerate()
        {
            let mut chart = ChartBuilder::on(panel)
                .caption(*metric, font(19))
                .margin(10)
                .x_label_area_size(40)
                .y_label_area_size(50)
                .build_cartesian_2d(0f64..k as f64, 0f64..1.05f64)?;
            // A slice the paper names is labelled with the paper's name too
            // (seed 001: 全部重复 full, 部分重复 partial).
            let slices: Vec<String> = self
                .slices
                .iter()
                .map(|slice| {
                    match self
                        .paper
                        .iter()
                        .find(|p| p.slice == *slice)
                        .and_then(|p| p.name.clone())
                    {
                        Some(name) => format!("{slice} {name}"),
                        None => slice.clone(),
                    }
                })
                .collect();
            chart
                .configure_mesh()
                .disable_x_mesh()
                .x_labels(k * 2 + 1)
                .x_label_formatter(&move |x| {
                    let i = x.floor() as usize;
                    if (x - x.floor() - 0.5).abs() < 1e-6 && i < slices.len() {
                        slices[i].clone()
                    } else {
                        String::new()
                    }
                })
                .label_style(font(14))
                .draw()?;
            for (si, slice) in self.slices.iter().enumerate() {
                for (j, s) in self.series.iter().enumerate() {
                    let Some(e) = s.algorithm.at_threshold() else {
                        continue;
                    };
                    let Some(index) = s.slice_index(slice) else {
                        continue;
                    };
                    let c = to_counts(&e.page.slices[index]);
                    let v = [c.precision(), c.recall(), c.f1()][m];
                    if !v.is_finite() {
                        continue;
                    }
                    let x0 = si as f64 + 0.1 + 0.8 * j as f64 / n;
                    let x1 = x0 + 0.8 / n * 0.9;
                    let v = if v == 0.0 { 0.006 } else { v };
                    let style = if !s.dashed {
                        color(s.color).filled()
                    } else {
                        color(s.color).mix(0.55).filled()
                    };
                    chart.draw_series(std::iter::once(Rectangle::new(
                        [(x0, 0.0), (x1, v)],
                        style,
                    )))?;
                }
                if let Some(p) = self.paper.iter().find(|p| p.slice == *slice) {
                    let x0 = si as f64 + 0.1 + 0.8 * self.series.len() as f64 / n;
                    let x1 = x0 + 0.8 / n * 0.9;
                    chart.draw_series(std::iter::once(Rectangle::new(
                        [(x0, 0.0), (x1, p.values[m])],
                        PAPER_COLOR.filled(),
                    )))?;
                }
            }
        }
        draw_key(&key, self.series)?;
        if !self.paper.is_empty() {
            let y = key_row_after(key.dim_in_pixel().1, self.series.len());
            key.draw(&Rectangle::new(
                [(10, y), (26, y + 14)],
                PAPER_COLOR.filled(),
            ))?;
            key.draw(&Text::new("论文 the paper's figures", (32, y), font(12)))?;
        }
        root.present()?;
        Ok(())
    }
}

/// A colour key for charts whose panels share it (paler or dashed: a
/// later extraction or run of the same algorithm).
fn draw_key<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, series: &[Series]) -> DrawResult
where
    DB::ErrorType: 'static,
{
    // Rows shrink to fit a long list into the chart's height.
    let height = area.dim_in_pixel().1 as i32;
    let step = ((height - 80) / series.len().max(1) as i32).clamp(10, 22);
    let size = (step - 6).clamp(8, 14);
    for (i, s) in series.iter().enumerate() {
        let y = 60 + i as i32 * step;
        let c = color(s.color);
        if s.dashed {
            area.draw(&Rectangle::new(
                [(10, y), (26, y + size)],
                c.mix(0.55).filled(),
            ))?;
            area.draw(&PathElement::new(
                vec![(10, y + size / 2), (14, y + size / 2)],
                WHITE.stroke_width(2),
            ))?;
            area.draw(&PathElement::new(
                vec![(19, y + size / 2), (22, y + size / 2)],
                WHITE.stroke_width(2),
            ))?;
        } else {
            area.draw(&Rectangle::new([(10, y), (26, y + size)], c.filled()))?;
        }
        area.draw(&Text::new(
            short(&s.name, 62),
            (32, y),
            font((size as u32 - 2).clamp(8, 12)),
        ))?;
    }
    Ok(())
}

/// Where the paper's key row goes, below the series' rows.
fn key_row_after(area_height: u32, series: usize) -> i32 {
    let step = ((area_height as i32 - 80) / series.max(1) as i32).clamp(10, 22);
    60 + series as i32 * step + 4
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

fn short(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(max - 1).collect();
        out.push('…');
        out
    }
}

/// Pages per second of each algorithm's stages (log scale).
pub struct ThroughputBars<'a>(pub &'a [Series]);

pub const THROUGHPUT_STAGES: [&str; 4] = [
    "collection stats",
    "signature",
    "candidate search",
    "verification",
];

impl Chart for ThroughputBars<'_> {
    fn size(&self) -> (u32, u32) {
        (1500, 800)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let root = root.titled("Throughput per stage (pages/s, log scale)", font(26))?;
        let (bars, key) = root.split_horizontally(1100);
        let values: Vec<f64> = self
            .0
            .iter()
            .flat_map(|s| s.stages.iter().map(|st| st.pages_per_second))
            .filter(|v| *v > 0.0)
            .collect();
        let hi = values.iter().cloned().fold(10.0, f64::max) * 3.0;
        let lo = values.iter().cloned().fold(hi, f64::min).max(0.1) / 3.0;
        let k = THROUGHPUT_STAGES.len();
        let mut chart = ChartBuilder::on(&bars)
            .margin(16)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(0f64..k as f64, (lo..hi).log_scale())?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(k * 2 + 1)
            .x_label_formatter(&|x| {
                let i = x.floor() as usize;
                if (x - x.floor() - 0.5).abs() < 1e-6 && i < THROUGHPUT_STAGES.len() {
                    THROUGHPUT_STAGES[i].to_string()
                } else {
                    String::new()
                }
            })
            .y_desc("pages/s")
            .y_label_formatter(&|v| compact(*v))
            .label_style(font(14))
            .axis_desc_style(font(16))
            .draw()?;
        let n = self.0.len().max(1) as f64;
        for (si, stage) in THROUGHPUT_STAGES.iter().enumerate() {
            for (j, s) in self.0.iter().enumerate() {
                let Some(st) = s.stages.iter().find(|st| st.stage == *stage) else {
                    continue;
                };
                if st.pages_per_second <= 0.0 {
                    continue;
                }
                let x0 = si as f64 + 0.1 + 0.8 * j as f64 / n;
                let x1 = x0 + 0.8 / n * 0.9;
                let fill = if s.dashed {
                    color(s.color).mix(0.55).filled()
                } else {
                    color(s.color).filled()
                };
                chart.draw_series(std::iter::once(Rectangle::new(
                    [(x0, lo), (x1, st.pages_per_second)],
                    fill,
                )))?;
            }
        }
        draw_key(&key, self.0)?;
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
                .caption(caption, font(14).color(&color(s.color)))
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
        (1200, 800)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(root)
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
        for (banding, users) in &bandings {
            let mut named = users[0].clone();
            named.dashed = false;
            let mut distinct: Vec<&str> = Vec::new();
            for s in users {
                if !distinct.contains(&s.algorithm.label.as_str()) {
                    distinct.push(s.algorithm.label.as_str());
                }
            }
            named.name = format!(
                "{} bands x {} rows: {}",
                banding[0],
                banding[1],
                short(&distinct.join(", "), 70)
            );
            line(&mut chart, &named, lsh_points(*banding), true)?;
            for s in users.iter().filter(|s| s.algorithm.scale.name == "jaccard") {
                let t = s.algorithm.threshold;
                chart.draw_series(DashedLineSeries::new(
                    vec![(t, 0.0), (t, 1.02)],
                    4,
                    4,
                    color(named.color).stroke_width(1),
                ))?;
            }
        }
        legend(&mut chart, SeriesLabelPosition::LowerRight)?;
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
        (1200, 750)
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
        let mut chart = ChartBuilder::on(root)
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
            chart
                .draw_series(LineSeries::new(recall.clone(), c.stroke_width(3)))?
                .label(format!("recall, {name}"))
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(3))
                });
            chart.draw_series(recall.iter().map(|&p| Circle::new(p, 4, c.filled())))?;
            chart
                .draw_series(DashedLineSeries::new(precision, 3, 5, c.stroke_width(2)))?
                .label(format!("precision, {name}"))
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 6, y)], c.stroke_width(2))
                });
        }
        legend(&mut chart, SeriesLabelPosition::LowerRight)?;
        root.present()?;
        Ok(())
    }
}
