//! The report of a run over several seeds (`seeds:` in the experiment):
//! each figure as the mean over the seeds with its spread (standard
//! deviation, least and most), charts with the spread drawn as whiskers
//! and bands, and the paper's verdicts decided on the mean, saying on how
//! many seeds each holds.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use polars::prelude::*;

use super::charts::{self, color, draw_key, font, font_in, Chart, DrawResult, KeyEntry};
use super::figures::draw_files;
use super::frames::{opt, slice_frame, write_frame};
use super::measures::measure_value;
use super::runs::{all_slices, paper_bars};
use super::series::{busy_slices, series_of, Series};
use super::ReportError;
use crate::experiment::paper::{Claim, Measure, Paper, Verdict};
use crate::experiment::stored::{to_counts, StoredRun};
use crate::util::fmt::percent_sign_finite as pct;

/// Mean, sample standard deviation, least and most of a figure over the
/// seeds where it is defined.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    pub mean: f64,
    pub sd: f64,
    pub min: f64,
    pub max: f64,
    /// Seeds where the figure is defined.
    pub n: usize,
}

impl Spread {
    /// `None` when no value is finite. The deviation divides by n - 1
    /// (0 for one value).
    pub fn of(values: &[f64]) -> Option<Spread> {
        let v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
        if v.is_empty() {
            return None;
        }
        let n = v.len();
        let mean = v.iter().sum::<f64>() / n as f64;
        let sd = if n > 1 {
            (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
        } else {
            0.0
        };
        Some(Spread {
            mean,
            sd,
            min: v.iter().copied().fold(f64::INFINITY, f64::min),
            max: v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            n,
        })
    }

    /// `55.65% ± 1.20 (53.10-57.00%)` for fractions, `3 ± 0.45 (3-4)` else.
    pub fn text(&self, fraction: bool) -> String {
        if fraction {
            format!(
                "{:.2}% ± {:.2} ({:.2}–{:.2}%)",
                100.0 * self.mean,
                100.0 * self.sd,
                100.0 * self.min,
                100.0 * self.max
            )
        } else {
            let t = crate::util::fmt::threshold_short;
            format!(
                "{} ± {} ({}–{})",
                t(self.mean),
                t(self.sd),
                t(self.min),
                t(self.max)
            )
        }
    }

    /// Whether `bar` lies strictly inside the range, so that some seeds
    /// fall on each side of it.
    pub fn crosses(&self, bar: f64) -> bool {
        self.min < bar && bar < self.max
    }
}

/// One algorithm's figures on every seed, at its configured threshold.
#[derive(Debug, Clone)]
pub struct SeedRow {
    pub name: String,
    pub precision: Vec<f64>,
    pub recall: Vec<f64>,
    pub f1: Vec<f64>,
    pub best_f1: Vec<f64>,
    pub best_threshold: Vec<f64>,
}

/// Per algorithm (by the first seed's order, matched by name), its figures
/// on each seed; an algorithm a seed lacks is NaN there.
pub fn seed_rows(per_seed: &[Vec<Series>]) -> Vec<SeedRow> {
    let Some(first) = per_seed.first() else {
        return Vec::new();
    };
    first
        .iter()
        .map(|s| {
            let mut row = SeedRow {
                name: s.name.clone(),
                precision: vec![],
                recall: vec![],
                f1: vec![],
                best_f1: vec![],
                best_threshold: vec![],
            };
            for series in per_seed {
                let found = series.iter().find(|x| x.name == s.name);
                let at = found
                    .and_then(|x| x.algorithm.at_threshold())
                    .map(|e| to_counts(&e.pairwise.overall));
                let best = found.and_then(Series::best_f);
                row.precision.push(at.map_or(f64::NAN, |c| c.precision()));
                row.recall.push(at.map_or(f64::NAN, |c| c.recall()));
                row.f1.push(at.map_or(f64::NAN, |c| c.f1()));
                row.best_f1.push(best.map_or(f64::NAN, |b| b.1.f1()));
                row.best_threshold.push(best.map_or(f64::NAN, |b| b.0));
            }
            row
        })
        .collect()
}

/// A line of a band chart: the mean at each x with the spread around it.
#[derive(Debug, Clone)]
pub struct BandLine {
    pub name: String,
    pub points: Vec<(f64, Spread)>,
    /// Drawn dashed (precision beside a solid recall).
    pub dashed: bool,
    pub color: usize,
}

/// Curves over the seeds: the mean as a line, the least-to-most range as
/// a band and the mean ± one standard deviation as whiskers.
pub struct BandChart {
    pub title: String,
    pub x_desc: String,
    pub y_desc: String,
    pub lines: Vec<BandLine>,
}

impl Chart for BandChart {
    fn size(&self) -> (u32, u32) {
        (1500, 760)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let xs = self.lines.iter().flat_map(|l| l.points.iter().map(|p| p.0));
        let (lo, hi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
            (a.min(x), b.max(x))
        });
        let (lo, hi) = if lo.is_finite() && hi > lo {
            (lo, hi)
        } else {
            (0.0, 1.0)
        };
        let (plot, key) = root.split_horizontally(900);
        let mut chart = ChartBuilder::on(&plot)
            .caption(&self.title, font(20))
            .margin(16)
            .x_label_area_size(50)
            .y_label_area_size(60)
            .build_cartesian_2d(lo..hi, 0f64..1.02f64)?;
        chart
            .configure_mesh()
            .x_desc(self.x_desc.as_str())
            .y_desc(self.y_desc.as_str())
            .label_style(font(15))
            .axis_desc_style(font(17))
            .draw()?;
        let mut entries = Vec::new();
        for l in &self.lines {
            let c = color(l.color);
            let mut band: Vec<(f64, f64)> = l.points.iter().map(|(x, s)| (*x, s.max)).collect();
            band.extend(l.points.iter().rev().map(|(x, s)| (*x, s.min)));
            chart.draw_series(std::iter::once(Polygon::new(band, c.mix(0.15).filled())))?;
            let mean: Vec<(f64, f64)> = l.points.iter().map(|(x, s)| (*x, s.mean)).collect();
            if l.dashed {
                chart.draw_series(DashedLineSeries::new(mean.clone(), 9, 5, c.stroke_width(2)))?;
            } else {
                chart.draw_series(LineSeries::new(mean.clone(), c.stroke_width(3)))?;
            }
            chart.draw_series(mean.iter().map(|&p| Circle::new(p, 3, c.filled())))?;
            chart.draw_series(l.points.iter().map(|(x, s)| {
                PathElement::new(
                    vec![
                        (*x, (s.mean - s.sd).max(0.0)),
                        (*x, (s.mean + s.sd).min(1.0)),
                    ],
                    c.stroke_width(2),
                )
            }))?;
            entries.push(KeyEntry {
                name: l.name.clone(),
                color: c,
                run: if l.dashed { 1 } else { 0 },
                marker: false,
            });
        }
        entries.push(KeyEntry {
            name: "line: mean over the seeds; whiskers: ± 1 sd; band: least to most".into(),
            color: RGBColor(120, 120, 120),
            run: 0,
            marker: false,
        });
        draw_key(&key.margin(60, 0, 0, 0), &entries)?;
        root.present()?;
        Ok(())
    }
}

/// Precision, recall and F at the configured threshold per algorithm: the
/// mean as a dot, ± one standard deviation as a bar, least to most as a
/// thin line, every seed as a small grey tick.
pub struct SpreadDots<'a> {
    pub rows: &'a [SeedRow],
}

const ROW: u32 = 22;

impl Chart for SpreadDots<'_> {
    fn size(&self) -> (u32, u32) {
        (1500, 120 + ROW * self.rows.len().max(1) as u32)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let root = root.titled(
            "Pairwise precision, recall and F at the configured thresholds over the seeds: dot the mean, bar ± 1 sd, line least to most, ticks each seed",
            font(17),
        )?;
        let (names, figures) = root.split_horizontally(420);
        let n = self.rows.len();
        let top = 36;
        let panels = figures.split_evenly((1, 3));
        for (k, (panel, what)) in panels.iter().zip(["precision", "recall", "F"]).enumerate() {
            let mut chart = ChartBuilder::on(panel)
                .margin_left(12)
                .margin_right(18)
                .margin_top(top as u32 - 30)
                .caption(what, font(14))
                .x_label_area_size(30)
                .build_cartesian_2d(0f64..1.0f64, (n as f64)..0f64)?;
            chart
                .configure_mesh()
                .disable_y_mesh()
                .disable_y_axis()
                .x_labels(6)
                .label_style(font(11))
                .draw()?;
            if k == 0 {
                // The names sit level with the rows of the first panel.
                let base = names.get_base_pixel().1;
                for (i, row) in self.rows.iter().enumerate() {
                    let (_, y) = chart.backend_coord(&(0.0, i as f64 + 0.5));
                    names.draw(&Text::new(
                        short(&row.name, 62),
                        (410, y - base),
                        font(12).pos(Pos::new(HPos::Right, VPos::Center)),
                    ))?;
                }
            }
            for (i, row) in self.rows.iter().enumerate() {
                let values = match k {
                    0 => &row.precision,
                    1 => &row.recall,
                    _ => &row.f1,
                };
                let y = i as f64 + 0.5;
                let Some(s) = Spread::of(values) else {
                    chart.draw_series(std::iter::once(Text::new(
                        "- (undefined on every seed)",
                        (0.01, y),
                        font_in(11, RGBColor(120, 120, 120))
                            .pos(Pos::new(HPos::Left, VPos::Center)),
                    )))?;
                    continue;
                };
                let c = color(i % 8);
                chart.draw_series(std::iter::once(PathElement::new(
                    vec![(s.min, y), (s.max, y)],
                    c.stroke_width(1),
                )))?;
                chart.draw_series(std::iter::once(PathElement::new(
                    vec![((s.mean - s.sd).max(0.0), y), ((s.mean + s.sd).min(1.0), y)],
                    c.stroke_width(5),
                )))?;
                chart.draw_series(values.iter().filter(|v| v.is_finite()).map(|&v| {
                    PathElement::new(
                        vec![(v, y - 0.3), (v, y + 0.3)],
                        RGBColor(90, 90, 90).stroke_width(1),
                    )
                }))?;
                chart.draw_series(std::iter::once(Circle::new((s.mean, y), 4, c.filled())))?;
            }
        }
        root.present()?;
        Ok(())
    }
}

fn short(name: &str, chars: usize) -> String {
    if name.chars().count() <= chars {
        name.to_string()
    } else {
        let mut s: String = name.chars().take(chars - 1).collect();
        s.push('…');
        s
    }
}

/// I-Match's recall and precision against K, over the seeds.
fn lexicon_bands(per_seed: &[Vec<Series>]) -> Vec<BandLine> {
    let sweeps: Vec<Vec<charts::SweepLine>> = per_seed
        .iter()
        .map(|s| charts::LexiconSweep(s).lines())
        .collect();
    let Some(first) = sweeps.first() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, line) in first.iter().enumerate() {
        let name = line.name.trim_end_matches(", run 1").to_string();
        for (what, dashed) in [("recall", false), ("precision", true)] {
            let points = line
                .points
                .iter()
                .filter_map(|&(k, _, _)| {
                    let values: Vec<f64> = sweeps
                        .iter()
                        .filter_map(|lines| lines.iter().find(|l| l.name == line.name))
                        .filter_map(|l| l.points.iter().find(|p| p.0 == k))
                        .map(|p| if dashed { p.1 } else { p.2 })
                        .collect();
                    Spread::of(&values).map(|s| (k, s))
                })
                .collect();
            out.push(BandLine {
                name: format!("{what}, {name}"),
                points,
                dashed,
                color: i,
            });
        }
    }
    out
}

/// Precision and recall against the threshold of each algorithm the paper
/// sweeps (`paper.sweeps`), over the seeds.
fn threshold_bands(per_seed: &[Vec<Series>], paper: &Paper) -> Vec<BandLine> {
    let Some(first) = per_seed.first() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let swept = first.iter().filter(|s| {
        paper
            .sweeps
            .iter()
            .any(|p| s.algorithm.label.starts_with(p.as_str()))
    });
    for (i, s) in swept.enumerate() {
        for (what, dashed) in [("recall", false), ("precision", true)] {
            let points = s
                .algorithm
                .evaluations
                .iter()
                .filter_map(|e0| {
                    let values: Vec<f64> = per_seed
                        .iter()
                        .filter_map(|series| series.iter().find(|x| x.name == s.name))
                        .filter_map(|x| x.algorithm.at(e0.threshold))
                        .map(|e| {
                            let c = to_counts(&e.pairwise.overall);
                            if dashed {
                                c.precision()
                            } else {
                                c.recall()
                            }
                        })
                        .collect();
                    Spread::of(&values).map(|sp| (e0.threshold, sp))
                })
                .collect();
            out.push(BandLine {
                name: format!("{what}, {}", s.name),
                points,
                dashed,
                color: i,
            });
        }
    }
    out
}

fn seeds_frame(seeds: &[u64], rows: &[SeedRow]) -> PolarsResult<DataFrame> {
    let (mut seed, mut name, mut p, mut r, mut f, mut bf, mut bt) =
        (vec![], vec![], vec![], vec![], vec![], vec![], vec![]);
    for row in rows {
        for (j, &s) in seeds.iter().enumerate() {
            seed.push(s);
            name.push(row.name.clone());
            p.push(opt(row.precision[j]));
            r.push(opt(row.recall[j]));
            f.push(opt(row.f1[j]));
            bf.push(opt(row.best_f1[j]));
            bt.push(opt(row.best_threshold[j]));
        }
    }
    DataFrame::new_infer_height(vec![
        Column::new("seed".into(), seed),
        Column::new("series".into(), name),
        Column::new("precision".into(), p),
        Column::new("recall".into(), r),
        Column::new("f1".into(), f),
        Column::new("best_f1".into(), bf),
        Column::new("best_threshold".into(), bt),
    ])
}

fn band_frame(lines: &[BandLine]) -> PolarsResult<DataFrame> {
    let (mut name, mut x, mut mean, mut sd, mut lo, mut hi) =
        (vec![], vec![], vec![], vec![], vec![], vec![]);
    for l in lines {
        for (at, s) in &l.points {
            name.push(l.name.clone());
            x.push(*at);
            mean.push(s.mean);
            sd.push(s.sd);
            lo.push(s.min);
            hi.push(s.max);
        }
    }
    DataFrame::new_infer_height(vec![
        Column::new("series".into(), name),
        Column::new("x".into(), x),
        Column::new("mean".into(), mean),
        Column::new("sd".into(), sd),
        Column::new("min".into(), lo),
        Column::new("max".into(), hi),
    ])
}

/// What a claim's test finds over the seeds: the verdict on the means,
/// and on how many seeds it holds.
#[derive(Debug, Clone, PartialEq)]
pub struct SeedVerdict {
    pub verdict: Verdict,
    pub holds_on: usize,
    pub decided_on: usize,
    pub figure: Option<Spread>,
    pub other: Option<Spread>,
}

/// Decides a claim on the mean of its figures over the seeds.
pub fn seed_verdict(
    claim: &crate::experiment::paper::Claim,
    figures: &[Option<f64>],
    others: &[Option<f64>],
) -> SeedVerdict {
    let values = |v: &[Option<f64>]| v.iter().map(|x| x.unwrap_or(f64::NAN)).collect::<Vec<_>>();
    let figure = Spread::of(&values(figures));
    let other = Spread::of(&values(others));
    let verdict = claim.verdict(figure.map(|s| s.mean), other.map(|s| s.mean));
    let mut holds_on = 0;
    let mut decided_on = 0;
    for (j, f) in figures.iter().enumerate() {
        match claim.verdict(*f, others.get(j).copied().flatten()) {
            Verdict::Holds => {
                holds_on += 1;
                decided_on += 1;
            }
            Verdict::DoesNotHold => decided_on += 1,
            Verdict::CannotBeTested => {}
        }
    }
    SeedVerdict {
        verdict,
        holds_on,
        decided_on,
        figure,
        other,
    }
}

/// Draws the report of one experiment run over `runs` (seed, run), each
/// run's results already in its own directory; writes into `out`.
pub fn render_seeds_report(
    name: &str,
    scale: f64,
    runs: &[(u64, StoredRun)],
    out: &Path,
) -> Result<Vec<PathBuf>, ReportError> {
    if runs.is_empty() {
        return Err(ReportError::NoRuns);
    }
    charts::register_font().map_err(|message| ReportError::Draw {
        path: out.to_path_buf(),
        chart: "fonts",
        message,
    })?;
    let seeds: Vec<u64> = runs.iter().map(|r| r.0).collect();
    let per_seed: Vec<Vec<Series>> = runs
        .iter()
        .map(|(_, run)| series_of(&[(name.to_string(), run.clone())]))
        .collect();
    let rows = seed_rows(&per_seed);
    let mut written = Vec::new();
    written.extend(draw_files(&SpreadDots { rows: &rows }, "seeds", out)?);
    // The first seed's slices, as a single run's report draws them: the
    // papers' verdicts point at this heatmap.
    let first = [(name.to_string(), runs[0].1.clone())];
    let slices = busy_slices(&per_seed[0], &all_slices(&first));
    written.extend(draw_files(
        &charts::SliceHeatmap {
            series: &per_seed[0],
            slices: slices.clone(),
            paper: paper_bars(&first),
        },
        "slices",
        out,
    )?);
    written.extend(write_frame(
        "slices",
        slice_frame(&per_seed[0], &slices),
        out,
    )?);
    written.extend(write_frame("seeds", seeds_frame(&seeds, &rows), out)?);
    let paper = runs[0].1.paper.clone();
    let sweep = lexicon_bands(&per_seed);
    let drawn_sweep = sweep.iter().any(|l| l.points.len() >= 3);
    if drawn_sweep {
        let chart = BandChart {
            title: format!(
                "I-Match against the number K of extra lexicons, over {} seeds (pairwise, all slices)",
                seeds.len()
            ),
            x_desc: "K (extra lexicons)".into(),
            y_desc: "recall (solid), precision (dashed)".into(),
            lines: sweep.clone(),
        };
        written.extend(draw_files(&chart, "imatch_k", out)?);
        written.extend(write_frame("imatch_k", band_frame(&sweep), out)?);
    }
    let swept = paper
        .as_ref()
        .map(|p| threshold_bands(&per_seed, p))
        .unwrap_or_default();
    if !swept.is_empty() {
        let chart = BandChart {
            title: format!(
                "Precision and recall against the threshold, over {} seeds (pairwise, all slices)",
                seeds.len()
            ),
            x_desc: per_seed[0]
                .iter()
                .find(|s| swept[0].name.ends_with(&s.name))
                .map(|s| s.algorithm.scale.name.clone())
                .unwrap_or_else(|| "threshold".into()),
            y_desc: "recall (solid), precision (dashed)".into(),
            lines: swept.clone(),
        };
        written.extend(draw_files(&chart, "sweeps", out)?);
        written.extend(write_frame("sweeps", band_frame(&swept), out)?);
    }
    let md = out.join("report.md");
    let text = markdown(
        name,
        scale,
        runs,
        &rows,
        paper.as_ref(),
        drawn_sweep,
        !swept.is_empty(),
    );
    crate::util::io::write(&md, text)?;
    written.push(md);
    Ok(written)
}

/// A row of the summary table: every figure over the seeds where all of
/// them are defined, and how many those are.
fn summary_row(row: &SeedRow) -> String {
    let figures = [
        &row.f1,
        &row.precision,
        &row.recall,
        &row.best_f1,
        &row.best_threshold,
    ];
    let common = common_seeds(&figures);
    let on = |values: &[f64]| -> Vec<f64> { common.iter().map(|&i| values[i]).collect() };
    format!(
        "| {} | {} of {} | {} | {} | {} | {} | {} |",
        row.name,
        common.len(),
        row.f1.len(),
        spread_cell(&on(&row.f1), true),
        spread_cell(&on(&row.precision), true),
        spread_cell(&on(&row.recall), true),
        spread_cell(&on(&row.best_f1), true),
        spread_cell(&on(&row.best_threshold), false)
    )
}

/// The seeds (indices) where every one of `figures` is defined.
fn common_seeds(figures: &[&Vec<f64>]) -> Vec<usize> {
    let seeds = figures.first().map_or(0, |f| f.len());
    (0..seeds)
        .filter(|&i| figures.iter().all(|f| f[i].is_finite()))
        .collect()
}

fn spread_cell(values: &[f64], fraction: bool) -> String {
    Spread::of(values).map_or("-".into(), |s| s.text(fraction))
}

fn markdown(
    name: &str,
    scale: f64,
    runs: &[(u64, StoredRun)],
    rows: &[SeedRow],
    paper: Option<&Paper>,
    sweep: bool,
    swept: bool,
) -> String {
    let mut md = String::new();
    let seeds: Vec<String> = runs.iter().map(|r| r.0.to_string()).collect();
    let pages: Vec<String> = runs.iter().map(|r| r.1.pages.to_string()).collect();
    let _ = writeln!(md, "# neardup report: {name} over {} seeds\n", runs.len());
    let _ = writeln!(
        md,
        "The experiment ran once per seed ({}), each on the corpus its builder draws with that seed \
         at scale {} ({} pages), I-Match's extra lexicons drawn from the seed too. \
         Each figure is the mean over the seeds ± the sample standard deviation, with the least \
         and the most in brackets. Each seed's own results are in `seed-N/` \
         (`neardup report DIR/seed-N -o OUT` draws its full report).\n",
        seeds.join(", "),
        crate::util::fmt::threshold_short(scale),
        pages.join(", ")
    );
    let _ = writeln!(md, "## Summary over the seeds\n");
    let _ = writeln!(
        md,
        "Pairwise over all slices; P, R and F at each algorithm's configured threshold, and its best F over every threshold the stored pairs answer. \
         Every figure of a row is taken over the same seeds, those where all of them are defined (n; a seed where nothing is flagged has no precision), \
         so that F, P and R describe the same runs.\n"
    );
    let _ = writeln!(
        md,
        "| algorithm | n | F | P | R | best F | best threshold |\n|---|---:|---:|---:|---:|---:|---:|"
    );
    for row in rows {
        let _ = writeln!(md, "{}", summary_row(row));
    }
    let _ = writeln!(
        md,
        "\n![Precision, recall and F over the seeds](seeds.png)\n\n[SVG](seeds.svg) · data (every seed): [seeds.csv](seeds.csv), [seeds.parquet](seeds.parquet)"
    );
    let _ = writeln!(
        md,
        "\n## Slices of seed {}\n\nPage-level F (P and R under it) per slice at the configured thresholds, on the first seed's corpus.\n\n![Slices of the first seed](slices.png)\n\n[SVG](slices.svg) · data: [slices.csv](slices.csv), [slices.parquet](slices.parquet)",
        seeds.first().map_or("", String::as_str)
    );
    if sweep {
        let _ = writeln!(
            md,
            "\n## I-Match against extra lexicons\n\n![I-Match against K over the seeds](imatch_k.png)\n\n[SVG](imatch_k.svg) · data: [imatch_k.csv](imatch_k.csv), [imatch_k.parquet](imatch_k.parquet)"
        );
    }
    if swept {
        let _ = writeln!(
            md,
            "\n## Precision and recall against the threshold\n\n![The paper's sweeps over the seeds](sweeps.png)\n\n[SVG](sweeps.svg) · data: [sweeps.csv](sweeps.csv), [sweeps.parquet](sweeps.parquet)"
        );
    }
    if let Some(paper) = paper {
        paper_sections(&mut md, paper, runs, &seeds);
    }
    md
}

/// The paper's set-up, its tables and figures beside ours over the seeds,
/// and the verdicts on its claims.
fn paper_sections(md: &mut String, paper: &Paper, runs: &[(u64, StoredRun)], seeds: &[String]) {
    let _ = writeln!(md, "\n## The paper beside ours\n");
    let _ = writeln!(
        md,
        "{}\n\nFigures read in: {}\n",
        paper.citation.trim(),
        paper.source.trim()
    );
    if !paper.differences.is_empty() {
        let _ = writeln!(md, "How our set-up differs:\n");
        for d in &paper.differences {
            let _ = writeln!(md, "- {}", d.trim());
        }
    }
    for table in &paper.tables {
        table_section(md, table, runs);
    }
    if !paper.figures.is_empty() {
        figures_table(md, paper, runs, seeds);
    }
    if paper.claims.is_empty() {
        return;
    }
    let _ = writeln!(
        md,
        "\n## Verdicts (on the mean over {} seeds)\n",
        runs.len()
    );
    for (i, claim) in paper.claims.iter().enumerate() {
        claim_verdict(md, i, claim, runs);
    }
}

/// Each seed's value of a figure of ours, and how it reads.
fn seed_values(runs: &[(u64, StoredRun)], m: &Measure) -> Vec<(Option<f64>, String)> {
    runs.iter().map(|(_, run)| measure_value(run, m)).collect()
}

/// A value as the tables print it: a percentage or a threshold.
fn number_text(v: f64, fraction: bool) -> String {
    if !v.is_finite() {
        "-".to_string()
    } else if fraction {
        pct(v)
    } else {
        crate::util::fmt::threshold_short(v)
    }
}

/// The paper's figures beside ours: the spread over the seeds and each
/// seed's value.
fn figures_table(md: &mut String, paper: &Paper, runs: &[(u64, StoredRun)], seeds: &[String]) {
    let _ = writeln!(
        md,
        "\n| figure | paper | ours: mean ± sd (least–most) | each seed ({}) |\n|---|---|---|---|",
        seeds.join(", ")
    );
    for f in &paper.figures {
        let found = seed_values(runs, &f.ours);
        let fraction = f.ours.is_fraction();
        let each: Vec<f64> = found.iter().map(|v| v.0.unwrap_or(f64::NAN)).collect();
        let cell = match Spread::of(&each) {
            Some(s) => s.text(fraction),
            None => found.first().map(|v| v.1.clone()).unwrap_or_default(),
        };
        let per: Vec<String> = each.iter().map(|&v| number_text(v, fraction)).collect();
        let _ = writeln!(
            md,
            "| {} | {} | {cell} | {} |",
            f.name,
            f.paper,
            per.join(", ")
        );
    }
}

/// The verdict on claim `i` over the seeds, and the figure deciding it.
fn claim_verdict(md: &mut String, i: usize, claim: &Claim, runs: &[(u64, StoredRun)]) {
    let figures = claim.figure.as_ref().map(|m| seed_values(runs, m));
    let others = claim.above.as_ref().map(|m| seed_values(runs, m));
    let pick = |v: &Option<Vec<(Option<f64>, String)>>| -> Vec<Option<f64>> {
        v.as_ref()
            .map(|v| v.iter().map(|x| x.0).collect())
            .unwrap_or_default()
    };
    let decided = seed_verdict(claim, &pick(&figures), &pick(&others));
    let _ = writeln!(
        md,
        "{}. **{}** — {}.\n",
        i + 1,
        claim.claim,
        decided.verdict.text()
    );
    let reason = claim.reason(decided.verdict);
    if !reason.is_empty() {
        let _ = writeln!(md, "   {}\n", reason.trim());
    }
    let Some(m) = &claim.figure else { return };
    let fraction = m.is_fraction();
    let Some(s) = decided.figure else {
        let why = figures
            .as_ref()
            .and_then(|f| f.first().map(|x| x.1.clone()))
            .unwrap_or_default();
        let _ = writeln!(md, "   Deciding figure: {why}.\n");
        return;
    };
    let against = decided.other.map(|o| format!("mean {}", o.text(fraction)));
    let test = claim.test_text(against.as_deref());
    let bar = claim.at_least.or(claim.near);
    let spread = match (claim.above.is_some(), bar) {
        (true, _) => String::new(),
        (false, Some(b)) if s.crosses(b) => format!(
            " The seeds' range crosses the paper's figure {}.",
            number_text(b, fraction)
        ),
        (false, Some(b)) if s.min == b && s.max == b => {
            format!(
                " Every seed gives the paper's figure {}.",
                number_text(b, fraction)
            )
        }
        (false, Some(b)) if s.min >= b => format!(
            " Every seed is at or above the paper's figure {}.",
            number_text(b, fraction)
        ),
        (false, Some(b)) => format!(
            " Every seed is at or below the paper's figure {}.",
            number_text(b, fraction)
        ),
        _ => String::new(),
    };
    let example = figures
        .as_ref()
        .and_then(|f| f.first().map(|x| x.1.clone()))
        .unwrap_or_default();
    let _ = writeln!(
        md,
        "   Deciding figure: mean {}{test}; it holds on {} of {} seeds.{spread} (Seed {}: {example}.)\n",
        s.text(fraction),
        decided.holds_on,
        decided.decided_on,
        runs[0].0,
    );
}

/// A paper's table of counts, each row followed by ours in its slice as
/// mean ± sd over the seeds (page level unless the table says pairwise).
fn table_section(
    md: &mut String,
    table: &crate::experiment::paper::PaperTable,
    runs: &[(u64, StoredRun)],
) {
    let _ = writeln!(md, "\n### {}\n", table.title);
    let _ = writeln!(
        md,
        "| who | slice | precision | recall | F |\n|---|---|---:|---:|---:|"
    );
    let first = &runs[0].1;
    for row in &table.rows {
        let _ = writeln!(
            md,
            "| **paper** | {}{} | {:.2}% | {:.2}% | {:.2}% |",
            row.slice,
            row.name
                .as_deref()
                .map(|n| format!(" ({n})"))
                .unwrap_or_default(),
            row.precision,
            row.recall,
            row.f
        );
        for a in first
            .algorithms
            .iter()
            .filter(|a| table.extraction.as_ref().is_none_or(|x| *x == a.extraction))
        {
            let mut figures: [Vec<f64>; 3] = Default::default();
            for (_, run) in runs {
                let found = run
                    .algorithms
                    .iter()
                    .find(|b| b.label == a.label && b.extraction == a.extraction);
                let (Some(b), Some(i)) = (found, run.slices.iter().position(|s| *s == row.slice))
                else {
                    continue;
                };
                let Some(e) = b.at_threshold() else { continue };
                let level = if table.level == "pairwise" {
                    &e.pairwise
                } else {
                    &e.page
                };
                let c = to_counts(&level.slices[i]);
                figures[0].push(c.precision());
                figures[1].push(c.recall());
                figures[2].push(c.f1());
            }
            let _ = writeln!(
                md,
                "| {} (at {}) | {} | {} | {} | {} |",
                a.key(),
                a.threshold,
                row.slice,
                spread_cell(&figures[0], true),
                spread_cell(&figures[1], true),
                spread_cell(&figures[2], true)
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::paper::Claim;

    #[test]
    fn spread_is_the_mean_sample_deviation_and_range_of_defined_values() {
        let s = Spread::of(&[0.5, 0.7, f64::NAN, 0.6]).unwrap();
        assert_eq!(s.n, 3);
        assert!((s.mean - 0.6).abs() < 1e-12);
        // Sample deviation: sqrt((0.01 + 0.01 + 0) / 2) = 0.1.
        assert!((s.sd - 0.1).abs() < 1e-12, "{}", s.sd);
        assert_eq!((s.min, s.max), (0.5, 0.7));
        assert!(s.crosses(0.65));
        assert!(!s.crosses(0.75));
        assert!(!s.crosses(0.5), "a bar at the least value is not inside");
        let one = Spread::of(&[0.3]).unwrap();
        assert_eq!(one.sd, 0.0);
        assert!(Spread::of(&[f64::NAN]).is_none());
        assert_eq!(s.text(true), "60.00% ± 10.00 (50.00–70.00%)");
        assert_eq!(
            Spread::of(&[3.0, 3.0, 4.0]).unwrap().text(false),
            "3.333 ± 0.577 (3–4)"
        );
    }

    #[test]
    fn a_summary_row_takes_every_figure_over_the_same_seeds() {
        // Seeds 3 and 4 flag nothing: no precision, so no F, but recall 0.
        let row = SeedRow {
            name: "simhash".into(),
            precision: vec![0.9, 0.8, f64::NAN, f64::NAN, 0.7],
            recall: vec![0.5, 0.4, 0.0, 0.0, 0.3],
            f1: vec![0.6, 0.5, f64::NAN, f64::NAN, 0.4],
            best_f1: vec![0.7, 0.6, 0.1, 0.1, 0.5],
            best_threshold: vec![3.0, 3.0, 5.0, 5.0, 3.0],
        };
        let text = summary_row(&row);
        let cells: Vec<&str> = text.split(" | ").collect();
        assert_eq!(cells[1], "3 of 5", "{text}");
        // R over seeds 1, 2 and 5 only: 40%, not 24% over all five.
        assert!(cells[4].starts_with("40.00%"), "{text}");
        assert!(cells[2].starts_with("50.00%"), "{text}");
        assert!(cells[5].starts_with("60.00%"), "{text}");
        assert!(cells[6].starts_with("3 ±"), "{text}");
    }

    fn claim_at_least(bar: f64) -> Claim {
        Claim {
            claim: "c".into(),
            figure: Some(Measure::BestF {
                algorithm: "x".into(),
            }),
            above: None,
            at_least: Some(bar),
            near: None,
            within: None,
            holds: String::new(),
            fails: String::new(),
            untestable: String::new(),
        }
    }

    #[test]
    fn a_verdict_over_seeds_is_decided_on_the_mean_and_counts_the_seeds() {
        let claim = claim_at_least(0.6);
        let v = seed_verdict(&claim, &[Some(0.55), Some(0.7), Some(0.62), None], &[]);
        assert_eq!(v.verdict, Verdict::Holds, "mean 0.623 >= 0.6");
        assert_eq!((v.holds_on, v.decided_on), (2, 3));
        assert!(v.figure.unwrap().crosses(0.6));
        let v = seed_verdict(&claim, &[Some(0.5), Some(0.7), Some(0.55)], &[]);
        assert_eq!(v.verdict, Verdict::DoesNotHold, "mean 0.583 < 0.6");
        assert_eq!(v.holds_on, 1);
        let above = Claim {
            above: claim.figure.clone(),
            at_least: None,
            ..claim.clone()
        };
        let v = seed_verdict(&above, &[Some(0.5), Some(0.4)], &[Some(0.45), Some(0.41)]);
        // Means 0.45 and 0.43: holds on the mean, though only one seed has it.
        assert_eq!(v.verdict, Verdict::Holds);
        assert_eq!((v.holds_on, v.decided_on), (1, 2));
        let v = seed_verdict(&claim, &[None, None], &[]);
        assert_eq!(v.verdict, Verdict::CannotBeTested);
        assert_eq!(v.decided_on, 0);
    }
}
