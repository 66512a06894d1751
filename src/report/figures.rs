//! The report's figures, each named once in [`FIGURES`]: its files, the
//! runs it applies to, how it draws its chart and its data, and its
//! section of `report.md`. Writing the files, removing an optional
//! figure's files left by an earlier report and listing the figures in
//! `report.md` all go through that one list.

use std::path::{Path, PathBuf};

use plotters::prelude::*;
use polars::prelude::*;

use super::charts::{
    Chart, F1Curves, LexiconSweep, LshCurves, PrCurves, ScoreHistograms, SliceHeatmap,
    ThroughputBars,
};
use super::frames::{
    curve_frame, histogram_frame, lsh_frame, slice_frame, sweep_frame, throughput_frame,
    write_frame,
};
use super::markdown::{boilerplate_section, chart_section, slice_table};
use super::runs::{paper_bars, paper_marks};
use super::series::{overview, panels, ReportData};
use super::ReportError;

/// A chart of the report with the data behind it and its section.
pub(super) trait Figure {
    /// Its file stems and heading.
    fn names(&self) -> Names;
    /// What the chart shows, under its heading.
    fn caption(&self, report: &ReportData) -> &'static str;
    /// Whether the runs have what it shows; the figures that always do
    /// keep this default.
    fn applies(&self, _report: &ReportData) -> bool {
        true
    }
    /// Draws the chart as PNG and SVG into `out`.
    fn draw(&self, report: &ReportData, out: &Path) -> Result<Vec<PathBuf>, ReportError>;
    /// The data behind the chart.
    fn frame(&self, report: &ReportData) -> PolarsResult<DataFrame>;
    /// Its section of `report.md`.
    fn section(&self, report: &ReportData, md: &mut String) {
        chart_section(md, &self.names(), self.caption(report));
    }
}

/// What a figure is called: its files and its heading in `report.md`.
pub(super) struct Names {
    /// The chart's file stem: `{chart}.png` and `{chart}.svg`.
    pub chart: &'static str,
    /// The data's file stem, `{data}.csv` and `{data}.parquet`.
    pub data: &'static str,
    pub title: &'static str,
}

impl Names {
    /// A figure whose data has the chart's name.
    const fn of(chart: &'static str, title: &'static str) -> Self {
        Names {
            chart,
            data: chart,
            title,
        }
    }
}

/// Every figure, in the order of `report.md`.
pub(super) const FIGURES: &[&dyn Figure] = &[
    &PrFigure,
    &PrClustersFigure,
    &F1Figure,
    &SlicesFigure,
    &ThroughputFigure,
    &ScoresFigure,
    &LshFigure,
    &LexiconSweepFigure,
];

/// Writes each figure the runs have, chart and data, into `out`, and
/// removes the files of the others: an optional figure not drawn this
/// time must not linger from an earlier report in the same directory.
pub(super) fn write_figures(report: &ReportData, out: &Path) -> Result<Vec<PathBuf>, ReportError> {
    let mut written = Vec::new();
    for figure in FIGURES {
        if figure.applies(report) {
            written.extend(figure.draw(report, out)?);
            written.extend(write_frame(figure.names().data, figure.frame(report), out)?);
        } else {
            let Names { chart, data, .. } = figure.names();
            for file in [
                format!("{chart}.png"),
                format!("{chart}.svg"),
                format!("{data}.csv"),
                format!("{data}.parquet"),
            ] {
                let _ = std::fs::remove_file(out.join(file));
            }
        }
    }
    Ok(written)
}

/// Draws `chart` into `{name}.png` and `{name}.svg` in `out`.
pub(super) fn draw_files<C: Chart>(
    chart: &C,
    name: &'static str,
    out: &Path,
) -> Result<Vec<PathBuf>, ReportError> {
    let png = out.join(format!("{name}.png"));
    let svg = out.join(format!("{name}.svg"));
    let draw_error = |path: &Path, e: Box<dyn std::error::Error>| ReportError::Draw {
        path: path.to_path_buf(),
        chart: name,
        message: e.to_string(),
    };
    // Drawn under a temporary name and renamed, as every output.
    let tmp = crate::util::io::temp_beside(&png);
    let drawn = {
        let root = BitMapBackend::new(&tmp, chart.size()).into_drawing_area();
        chart.draw(&root)
    };
    crate::util::io::replace_with(&tmp, &png, drawn)?.map_err(|e| draw_error(&png, e))?;
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, chart.size()).into_drawing_area();
        chart.draw(&root).map_err(|e| draw_error(&svg, e))?;
    }
    crate::util::io::write(&svg, text)?;
    Ok(vec![png, svg])
}

/// Precision against recall: over the judged pairs when the runs have
/// them, else pairwise with the paper's points.
struct PrFigure;

impl Figure for PrFigure {
    fn names(&self) -> Names {
        Names::of("pr", "Precision and recall")
    }
    fn caption(&self, report: &ReportData) -> &'static str {
        if report.judged.is_empty() {
            "Pairwise, over all slices, one point per threshold of each algorithm's grid; the filled dot is the configured threshold."
        } else {
            "Over the judged pairs, one point per threshold of each algorithm's grid; the filled dot is the configured threshold."
        }
    }
    fn draw(&self, report: &ReportData, out: &Path) -> Result<Vec<PathBuf>, ReportError> {
        let judged = !report.judged.is_empty();
        let mut best = overview(report.curves());
        if judged {
            best.title = "the best of each family (F over judged pairs)".into();
        }
        let chart = PrCurves {
            series: report.curves(),
            over: report.curves_over(),
            panels: report.curve_panels.clone(),
            overview: best,
            paper: if judged {
                Vec::new()
            } else {
                paper_marks(report.runs)
            },
        };
        draw_files(&chart, self.names().chart, out)
    }
    fn frame(&self, report: &ReportData) -> PolarsResult<DataFrame> {
        curve_frame(report.curves())
    }
}

/// Beside the judged pairs' curves, the clusters' (pairwise, against
/// the pages' clusters) when the pages carry any.
struct PrClustersFigure;

impl Figure for PrClustersFigure {
    fn names(&self) -> Names {
        Names::of("pr_clusters", "Precision and recall against the clusters")
    }
    fn caption(&self, _report: &ReportData) -> &'static str {
        "Pairwise against the pages' clusters, over all slices."
    }
    fn applies(&self, report: &ReportData) -> bool {
        report.clusters_too
    }
    fn draw(&self, report: &ReportData, out: &Path) -> Result<Vec<PathBuf>, ReportError> {
        let chart = PrCurves {
            series: &report.series,
            over: "pairwise against the clusters, all slices",
            panels: panels(&report.series),
            overview: overview(&report.series),
            paper: paper_marks(report.runs),
        };
        draw_files(&chart, self.names().chart, out)
    }
    fn frame(&self, report: &ReportData) -> PolarsResult<DataFrame> {
        curve_frame(&report.series)
    }
}

struct F1Figure;

impl Figure for F1Figure {
    fn names(&self) -> Names {
        Names::of("f1", "F1 against threshold")
    }
    fn caption(&self, _report: &ReportData) -> &'static str {
        "One panel per score scale (similarities and distances do not share an axis)."
    }
    fn draw(&self, report: &ReportData, out: &Path) -> Result<Vec<PathBuf>, ReportError> {
        let chart = F1Curves {
            series: report.curves(),
            over: report.curves_over(),
            panels: report.curve_panels.clone(),
        };
        draw_files(&chart, self.names().chart, out)
    }
    fn frame(&self, report: &ReportData) -> PolarsResult<DataFrame> {
        curve_frame(report.curves())
    }
}

struct SlicesFigure;

impl Figure for SlicesFigure {
    fn names(&self) -> Names {
        Names::of("slices", "Per slice")
    }
    fn caption(&self, _report: &ReportData) -> &'static str {
        "Page level (seed 001's counts) at the configured thresholds."
    }
    fn draw(&self, report: &ReportData, out: &Path) -> Result<Vec<PathBuf>, ReportError> {
        let chart = SliceHeatmap {
            series: &report.series,
            slices: report.slices.clone(),
            paper: paper_bars(report.runs),
        };
        draw_files(&chart, self.names().chart, out)
    }
    fn frame(&self, report: &ReportData) -> PolarsResult<DataFrame> {
        slice_frame(&report.series, &report.slices)
    }
    /// The chart, its counts as a table, and what boilerplate removal
    /// took from the pages those counts are over.
    fn section(&self, report: &ReportData, md: &mut String) {
        chart_section(md, &self.names(), self.caption(report));
        slice_table(md, &report.series, &report.slices);
        boilerplate_section(md, report.runs);
    }
}

struct ThroughputFigure;

impl Figure for ThroughputFigure {
    fn names(&self) -> Names {
        Names {
            chart: "throughput",
            data: "throughput_stages",
            title: "Throughput",
        }
    }
    fn caption(&self, _report: &ReportData) -> &'static str {
        "Pages per second of each algorithm's own stages (decoding, extraction and tokenising are shared and listed in the runs' throughput.csv)."
    }
    fn draw(&self, report: &ReportData, out: &Path) -> Result<Vec<PathBuf>, ReportError> {
        draw_files(&ThroughputBars(&report.series), self.names().chart, out)
    }
    fn frame(&self, report: &ReportData) -> PolarsResult<DataFrame> {
        throughput_frame(&report.series)
    }
}

struct ScoresFigure;

impl Figure for ScoresFigure {
    fn names(&self) -> Names {
        Names::of("scores", "Scores of true and false pairs")
    }
    fn caption(&self, _report: &ReportData) -> &'static str {
        "Every stored pair (within the floor) by score; the black line is the configured threshold."
    }
    fn draw(&self, report: &ReportData, out: &Path) -> Result<Vec<PathBuf>, ReportError> {
        draw_files(&ScoreHistograms(&report.series), self.names().chart, out)
    }
    fn frame(&self, report: &ReportData) -> PolarsResult<DataFrame> {
        histogram_frame(&report.series)
    }
}

/// The S-curves of the LSH bandings, when some algorithm bands.
struct LshFigure;

impl Figure for LshFigure {
    fn names(&self) -> Names {
        Names::of("lsh", "LSH S-curves")
    }
    fn caption(&self, _report: &ReportData) -> &'static str {
        "The probability that a pair of sets with Jaccard J becomes a candidate, for each banding chosen."
    }
    fn applies(&self, report: &ReportData) -> bool {
        !report.banded.is_empty()
    }
    fn draw(&self, report: &ReportData, out: &Path) -> Result<Vec<PathBuf>, ReportError> {
        draw_files(&LshCurves(&report.banded), self.names().chart, out)
    }
    fn frame(&self, report: &ReportData) -> PolarsResult<DataFrame> {
        lsh_frame(&report.banded)
    }
}

/// I-Match against its number of extra lexicons, when a run has three
/// set-ups or more that differ only in it.
struct LexiconSweepFigure;

impl Figure for LexiconSweepFigure {
    fn names(&self) -> Names {
        Names::of("imatch_k", "I-Match against extra lexicons")
    }
    fn caption(&self, _report: &ReportData) -> &'static str {
        "Pairwise recall and precision of I-Match with K extra randomised lexicons (Kołcz et al. 2004), at each algorithm's threshold."
    }
    fn applies(&self, report: &ReportData) -> bool {
        !report.sweep.is_empty()
    }
    fn draw(&self, report: &ReportData, out: &Path) -> Result<Vec<PathBuf>, ReportError> {
        draw_files(&LexiconSweep(&report.series), self.names().chart, out)
    }
    fn frame(&self, report: &ReportData) -> PolarsResult<DataFrame> {
        sweep_frame(&report.sweep)
    }
}
