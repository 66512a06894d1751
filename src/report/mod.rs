//! `neardup report`: charts (PNG and SVG), the data behind each (CSV and
//! Parquet) and `report.md`, from the `run.json` that `neardup run` stores;
//! nothing is run again. Several runs give comparison charts, one colour
//! per algorithm kept across every chart.

pub mod charts;
mod clustered;
pub mod seeds;

use crate::util::fmt::percent_sign_finite as pct;
use crate::util::io::FileError;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use plotters::prelude::*;
use polars::prelude::*;

use crate::experiment::paper::{inconsistencies, IndexPlan, Measure, Paper, PaperTable};
use crate::experiment::stored::{
    to_counts, StoredAlgorithm, StoredRun, StoredStage, RUN_FILE, STORED_RUN_VERSION,
};
use charts::{
    Chart, F1Curves, LexiconSweep, LshCurves, PrCurves, ScoreHistograms, SliceHeatmap,
    ThroughputBars,
};

// Where the run files' schema lives, under the names the views know.
pub use crate::experiment::{paper, stored};

#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error(transparent)]
    Io(#[from] FileError),
    #[error("{}: line {line}, column {column}: {message}", path.display())]
    Parse {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{}: written by another version of neardup (run.json version {found}, this one reads {STORED_RUN_VERSION}); run the experiment again", path.display())]
    Version { path: PathBuf, found: u32 },
    #[error("{}: drawing {chart}: {message}", path.display())]
    Draw {
        path: PathBuf,
        chart: &'static str,
        message: String,
    },
    #[error(transparent)]
    Data(#[from] crate::experiment::TableWriteError),
    #[error("give at least one run directory")]
    NoRuns,
}

/// Reads a run directory's `run.json`.
pub fn load_run(dir: &Path) -> Result<StoredRun, ReportError> {
    let path = dir.join(RUN_FILE);
    let text = crate::util::io::read_to_string(&path)?;
    let version: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| ReportError::Parse {
            path: path.clone(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })?;
    let found = version.get("version").and_then(|v| v.as_u64()).unwrap_or(0) as u32;
    if found != STORED_RUN_VERSION {
        return Err(ReportError::Version { path, found });
    }
    serde_json::from_str(&text).map_err(|e| ReportError::Parse {
        path,
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })
}

/// One algorithm of one run, as the charts draw it.
#[derive(Debug, Clone)]
pub struct Series {
    /// Index of its run.
    pub run: usize,
    /// Index into the palette: its place in its panel (see `panels`).
    pub color: usize,
    pub name: String,
    pub algorithm: StoredAlgorithm,
    pub stages: Vec<StoredStage>,
    /// The stages this algorithm's text shares with others (decoding,
    /// extraction, tokenising), counted in its end-to-end time.
    pub shared: Vec<StoredStage>,
    /// Pages of its run.
    pub pages: usize,
    pub slices: Vec<String>,
}

impl Series {
    pub fn slice_index(&self, slice: &str) -> Option<usize> {
        self.slices.iter().position(|s| s == slice)
    }

    /// (recall, precision) over the thresholds, by recall.
    pub fn pr_points(&self) -> Vec<(f64, f64)> {
        let mut points: Vec<(f64, f64)> = self
            .algorithm
            .evaluations
            .iter()
            .map(|e| {
                let c = to_counts(&e.pairwise.overall);
                (c.recall(), c.precision())
            })
            .filter(|(r, p)| r.is_finite() && p.is_finite())
            .collect();
        points.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.total_cmp(&a.1)));
        points
    }

    /// The family its panel groups it with: the shingling algorithms
    /// (exact Jaccard, MinHash, one-permutation MinHash) share one.
    pub fn family(&self) -> &str {
        match self.algorithm.name.as_str() {
            "jaccard" | "minhash" | "minhash-oph" => "shingling",
            other => other,
        }
    }

    /// The highest pairwise F over every threshold: (threshold, counts).
    pub fn best_f(&self) -> Option<(f64, crate::eval::Counts)> {
        best_f_of(&self.algorithm)
    }

    /// Wall seconds from the page to the judgment: the shared stages and
    /// the algorithm's own (scoring against the labels left out).
    pub fn end_to_end_seconds(&self) -> f64 {
        self.shared
            .iter()
            .chain(self.stages.iter().filter(|s| s.stage != "evaluation"))
            .map(|s| s.wall_seconds)
            .sum()
    }

    /// Why the series has no point to draw, for its key and report.md
    /// (a panel must never be silently empty): nothing detected at any
    /// threshold leaves precision, so every point, undefined.
    pub fn empty_reason(&self) -> String {
        let counts: Vec<crate::eval::Counts> = self
            .algorithm
            .evaluations
            .iter()
            .map(|e| to_counts(&e.pairwise.overall))
            .collect();
        let actual = counts.first().map_or(0, |c| c.actual);
        if counts.is_empty() {
            "not evaluated at any threshold".into()
        } else if counts.iter().all(|c| c.detected == 0) {
            format!("no pair detected at any threshold (0 of {actual} true pairs)")
        } else {
            "no threshold with defined precision and recall".into()
        }
    }

    /// (threshold, F1), by threshold.
    pub fn f1_points(&self) -> Vec<(f64, f64)> {
        self.algorithm
            .evaluations
            .iter()
            .map(|e| (e.threshold, to_counts(&e.pairwise.overall).f1()))
            .filter(|(_, f)| f.is_finite())
            .collect()
    }
}

/// The highest pairwise F of an algorithm: over every threshold the stored
/// pairs answer, as the run stored it, else (files written before it was
/// stored) over its grid: (threshold, counts).
fn best_f_of(a: &StoredAlgorithm) -> Option<(f64, crate::eval::Counts)> {
    if let Some(e) = &a.best_f {
        // A run that detects nothing at any threshold has no best F: its
        // chart key says so, rather than a ring labelled "NaN".
        let counts = to_counts(&e.pairwise.overall);
        return counts.f1().is_finite().then_some((e.threshold, counts));
    }
    a.evaluations
        .iter()
        .map(|e| (e.threshold, to_counts(&e.pairwise.overall)))
        .filter(|(_, c)| c.f1().is_finite())
        .max_by(|x, y| x.1.f1().total_cmp(&y.1.f1()))
}

/// Where a report's best F was chosen, for the sentence above its table.
fn best_f_basis(series: &[Series]) -> &'static str {
    if series.iter().all(|s| s.algorithm.best_f.is_some()) {
        "the highest over every threshold the stored pairs answer (hundredths for similarities, \
         whole numbers for counts and distances), as `neardup tune` and the workbench choose; \
         the grid only places the charts' points"
    } else {
        "the highest over every threshold the stored pairs answer where the run stored it, \
         and over the threshold grid for runs stored before that (`neardup run` again updates them)"
    }
}

/// The series of several runs, coloured by their place in their panel.
pub fn series_of(runs: &[(String, StoredRun)]) -> Vec<Series> {
    let mut out = Vec::new();
    for (r, (name, run)) in runs.iter().enumerate() {
        for a in &run.algorithms {
            let key = a.key();
            // Stage records name the algorithm before an own tokenizer was
            // appended to its label ("label [main chars]").
            let base = a.label.split(" on ").next().unwrap_or(&a.label);
            let prefix = format!("{base} [{}", a.extraction);
            out.push(Series {
                run: r,
                color: 0,
                name: if runs.len() > 1 {
                    format!("{name}: {key}")
                } else {
                    key
                },
                stages: run
                    .throughput
                    .iter()
                    .filter(|s| s.algorithm.starts_with(&prefix))
                    .cloned()
                    .collect(),
                shared: shared_stages(run, a),
                pages: run.pages,
                algorithm: a.clone(),
                slices: run.slices.clone(),
            });
        }
    }
    assign_colors(&mut out);
    out
}

/// Decoding and extraction of the algorithm's text (or its reading from
/// the extraction cache), and tokenising it (`main chars` for an
/// algorithm with its own tokenizer).
fn shared_stages(run: &StoredRun, a: &StoredAlgorithm) -> Vec<StoredStage> {
    let base = a.label.split(" on ").next().unwrap_or(&a.label);
    let prefix = format!("{base} [");
    let text = run
        .throughput
        .iter()
        .find_map(|s| {
            s.algorithm
                .strip_prefix(&prefix)
                .and_then(|rest| rest.strip_suffix(']'))
                .filter(|t| t.split(' ').next() == Some(a.extraction.as_str()))
        })
        .unwrap_or(a.extraction.as_str())
        .to_string();
    run.throughput
        .iter()
        .filter_map(|s| match s.stage.as_str() {
            "decode+extract" | "extract (cache)" => s.charged_to(&a.extraction),
            "tokenize" if s.algorithm == text => Some(s.clone()),
            _ => None,
        })
        .collect()
}

/// At most this many series share a panel, so that each keeps a colour
/// of its own (Okabe-Ito's eight).
pub const PANEL_SERIES: usize = 8;

/// A panel of the small multiples: a title and the series it draws.
#[derive(Debug, Clone, PartialEq)]
pub struct Panel {
    pub title: String,
    pub members: Vec<usize>,
}

/// One panel per family (and score scale); a family with more than
/// [`PANEL_SERIES`] series is split by extraction, then by run, then in
/// runs of eight.
pub fn panels(series: &[Series]) -> Vec<Panel> {
    let mut groups: Vec<Panel> = Vec::new();
    for (i, s) in series.iter().enumerate() {
        let title = format!("{} ({})", s.family(), s.algorithm.scale.name);
        match groups.iter_mut().find(|p| p.title == title) {
            Some(p) => p.members.push(i),
            None => groups.push(Panel {
                title,
                members: vec![i],
            }),
        }
    }
    let split = |groups: Vec<Panel>, key: &dyn Fn(&Series) -> String| -> Vec<Panel> {
        let mut out = Vec::new();
        for g in groups {
            if g.members.len() <= PANEL_SERIES {
                out.push(g);
                continue;
            }
            let mut parts: Vec<Panel> = Vec::new();
            for &i in &g.members {
                let title = format!("{}, {}", g.title, key(&series[i]));
                match parts.iter_mut().find(|p| p.title == title) {
                    Some(p) => p.members.push(i),
                    None => parts.push(Panel {
                        title,
                        members: vec![i],
                    }),
                }
            }
            out.extend(parts);
        }
        out
    };
    let groups = split(groups, &|s| s.algorithm.extraction.clone());
    let groups = split(groups, &|s| format!("run {}", s.run + 1));
    groups
        .into_iter()
        .flat_map(|g| {
            let n = g.members.len().div_ceil(PANEL_SERIES);
            let chunks: Vec<Vec<usize>> =
                g.members.chunks(PANEL_SERIES).map(|c| c.to_vec()).collect();
            chunks
                .into_iter()
                .enumerate()
                .map(move |(k, members)| Panel {
                    title: if n > 1 {
                        format!("{} ({}/{n})", g.title, k + 1)
                    } else {
                        g.title.clone()
                    },
                    members,
                })
        })
        .collect()
}

/// The best variant (highest pairwise F) of each family, best first.
pub fn overview(series: &[Series]) -> Panel {
    let mut best: Vec<(usize, f64)> = Vec::new();
    for (i, s) in series.iter().enumerate() {
        let Some((_, c)) = s.best_f() else { continue };
        match best
            .iter_mut()
            .find(|(j, _)| series[*j].family() == s.family())
        {
            Some(b) if c.f1() > b.1 => *b = (i, c.f1()),
            Some(_) => {}
            None => best.push((i, c.f1())),
        }
    }
    best.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    Panel {
        title: "the best variant of each family (by pairwise F)".into(),
        members: best
            .into_iter()
            .take(PANEL_SERIES)
            .map(|(i, _)| i)
            .collect(),
    }
}

/// Each algorithm's colour is its place among the algorithms of its
/// panel: no two algorithms of a panel share one, and one algorithm has
/// one colour in every run compared (the runs differ by dash).
fn assign_colors(series: &mut [Series]) {
    for p in panels(series) {
        let mut keys: Vec<String> = Vec::new();
        for &i in &p.members {
            let key = series[i].algorithm.key();
            let k = keys.iter().position(|x| *x == key).unwrap_or_else(|| {
                keys.push(key);
                keys.len() - 1
            });
            series[i].color = k;
        }
    }
}

fn draw_files<C: Chart>(
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

fn write_frame(
    what: &'static str,
    frame: PolarsResult<DataFrame>,
    out: &Path,
) -> Result<Vec<PathBuf>, ReportError> {
    Ok(crate::experiment::results::write_frame(what, frame, out)?)
}

fn opt(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

fn curve_frame(series: &[Series]) -> PolarsResult<DataFrame> {
    let (mut name, mut threshold, mut p, mut r, mut f, mut default) =
        (vec![], vec![], vec![], vec![], vec![], vec![]);
    for s in series {
        for e in &s.algorithm.evaluations {
            let c = to_counts(&e.pairwise.overall);
            name.push(s.name.clone());
            threshold.push(e.threshold);
            p.push(opt(c.precision()));
            r.push(opt(c.recall()));
            f.push(opt(c.f1()));
            default.push((e.threshold - s.algorithm.threshold).abs() < 1e-9);
        }
    }
    DataFrame::new_infer_height(vec![
        Column::new("series".into(), name),
        Column::new("threshold".into(), threshold),
        Column::new("precision".into(), p),
        Column::new("recall".into(), r),
        Column::new("f1".into(), f),
        Column::new("is_default".into(), default),
    ])
}

/// Page-level counts and P/R/F per series and slice (columns `page_*`, as
/// in results.csv).
pub(super) fn slice_frame(series: &[Series], slices: &[String]) -> PolarsResult<DataFrame> {
    let (mut names, mut slice_names) = (Vec::<String>::new(), Vec::<String>::new());
    let mut page = crate::experiment::results::LevelColumns::default();
    for s in series {
        let Some(e) = s.algorithm.at_threshold() else {
            continue;
        };
        for slice in slices {
            let Some(i) = s.slice_index(slice) else {
                continue;
            };
            names.push(s.name.clone());
            slice_names.push(slice.clone());
            page.push(&to_counts(&e.page.slices[i]));
        }
    }
    let mut columns = vec![
        Column::new("series".into(), names),
        Column::new("slice".into(), slice_names),
    ];
    columns.extend(page.into_columns("page"));
    DataFrame::new_infer_height(columns)
}

fn throughput_frame(series: &[Series]) -> PolarsResult<DataFrame> {
    let (mut name, mut stage, mut wall, mut pps, mut mbs) =
        (vec![], vec![], vec![], vec![], vec![]);
    for s in series {
        for st in &s.stages {
            name.push(s.name.clone());
            stage.push(st.stage.clone());
            wall.push(st.wall_seconds);
            pps.push(st.pages_per_second);
            mbs.push(st.mb_per_second);
        }
    }
    DataFrame::new_infer_height(vec![
        Column::new("series".into(), name),
        Column::new("stage".into(), stage),
        Column::new("wall_seconds".into(), wall),
        Column::new("pages_per_second".into(), pps),
        Column::new("mb_per_second".into(), mbs),
    ])
}

fn histogram_frame(series: &[Series]) -> PolarsResult<DataFrame> {
    let (mut name, mut score, mut t, mut f) = (vec![], vec![], vec![], vec![]);
    for s in series {
        for b in &s.algorithm.histogram {
            if b.true_pairs + b.false_pairs > 0 {
                name.push(s.name.clone());
                score.push(b.score);
                t.push(b.true_pairs);
                f.push(b.false_pairs);
            }
        }
    }
    DataFrame::new_infer_height(vec![
        Column::new("series".into(), name),
        Column::new("score".into(), score),
        Column::new("true_pairs".into(), t),
        Column::new("false_pairs".into(), f),
    ])
}

fn lsh_frame(series: &[Series]) -> PolarsResult<DataFrame> {
    let (mut name, mut bands, mut rows, mut j, mut p) = (vec![], vec![], vec![], vec![], vec![]);
    for s in series {
        if let Some(b) = s.algorithm.banding {
            for (x, y) in charts::lsh_points(b) {
                name.push(s.name.clone());
                bands.push(b[0] as u64);
                rows.push(b[1] as u64);
                j.push(x);
                p.push(y);
            }
        }
    }
    DataFrame::new_infer_height(vec![
        Column::new("series".into(), name),
        Column::new("bands".into(), bands),
        Column::new("rows".into(), rows),
        Column::new("jaccard".into(), j),
        Column::new("p_candidate".into(), p),
    ])
}

/// The first run's paper rows at the page level, as bars.
pub(super) fn paper_bars(runs: &[(String, StoredRun)]) -> Vec<charts::PaperBar> {
    runs.iter()
        .filter_map(|(_, run)| run.paper.as_ref())
        .take(1)
        .flat_map(|paper| paper.tables.iter().filter(|t| t.level == "page"))
        .flat_map(|t| t.rows.iter())
        .map(|row| charts::PaperBar {
            slice: row.slice.clone(),
            name: row.name.clone(),
            values: [row.precision / 100.0, row.recall / 100.0, row.f / 100.0],
        })
        .collect()
}

/// The first run's paper points, for the precision-recall overview.
fn paper_marks(runs: &[(String, StoredRun)]) -> Vec<charts::PaperMark> {
    runs.iter()
        .filter_map(|(_, run)| run.paper.as_ref())
        .take(1)
        .flat_map(|paper| paper.points.iter())
        .map(|p| charts::PaperMark {
            label: p.label.clone(),
            precision: p.precision,
            recall: p.recall,
        })
        .collect()
}

/// Slices in the order of the first run, then any new ones.
pub(super) fn all_slices(runs: &[(String, StoredRun)]) -> Vec<String> {
    let mut slices: Vec<String> = Vec::new();
    for (_, run) in runs {
        for s in &run.slices {
            if !slices.contains(s) {
                slices.push(s.clone());
            }
        }
    }
    slices
}

/// Slices some algorithm has something in at the page level.
pub(super) fn busy_slices(series: &[Series], slices: &[String]) -> Vec<String> {
    slices
        .iter()
        .filter(|slice| {
            series.iter().any(|s| {
                let (Some(e), Some(i)) = (s.algorithm.at_threshold(), s.slice_index(slice)) else {
                    return false;
                };
                let c = e.page.slices[i];
                c[0] > 0 || c[1] > 0
            })
        })
        .cloned()
        .collect()
}

/// Renders every chart, its data and `report.md` into `out`.
pub fn render_report(
    runs: &[(String, StoredRun)],
    out: &Path,
) -> Result<Vec<PathBuf>, ReportError> {
    if runs.is_empty() {
        return Err(ReportError::NoRuns);
    }
    crate::util::io::create_dir_all(out)?;
    charts::register_font().map_err(|message| ReportError::Draw {
        path: out.to_path_buf(),
        chart: "fonts",
        message,
    })?;
    let series = series_of(runs);
    let slices = busy_slices(&series, &all_slices(runs));
    let banded: Vec<Series> = series
        .iter()
        .filter(|s| s.algorithm.banding.is_some())
        .cloned()
        .collect();
    let mut written = Vec::new();
    // With judged pairs, the curves are theirs: the corpus's truth. The
    // clusters' curves follow as pr_clusters when the pages carry any.
    let judged = judged_series(&series);
    let clusters_too = !judged.is_empty() && runs.iter().any(|(_, r)| r.true_pairs > 0);
    let (curves, over) = if judged.is_empty() {
        (&series, "pairwise, all slices")
    } else {
        (&judged, "over the judged pairs")
    };
    let grouped = panels(curves);
    let mut best = overview(curves);
    if !judged.is_empty() {
        best.title = "the best of each family (F over judged pairs)".into();
    }
    written.extend(draw_files(
        &PrCurves {
            series: curves,
            over,
            panels: grouped.clone(),
            overview: best,
            paper: if judged.is_empty() {
                paper_marks(runs)
            } else {
                Vec::new()
            },
        },
        "pr",
        out,
    )?);
    written.extend(draw_files(
        &F1Curves {
            series: curves,
            over,
            panels: grouped,
        },
        "f1",
        out,
    )?);
    if clusters_too {
        written.extend(draw_files(
            &PrCurves {
                series: &series,
                over: "pairwise against the clusters, all slices",
                panels: panels(&series),
                overview: overview(&series),
                paper: paper_marks(runs),
            },
            "pr_clusters",
            out,
        )?);
        written.extend(write_frame("pr_clusters", curve_frame(&series), out)?);
    }
    written.extend(draw_files(
        &SliceHeatmap {
            series: &series,
            slices: slices.clone(),
            paper: paper_bars(runs),
        },
        "slices",
        out,
    )?);
    written.extend(draw_files(&ThroughputBars(&series), "throughput", out)?);
    written.extend(draw_files(&ScoreHistograms(&series), "scores", out)?);
    if !banded.is_empty() {
        written.extend(draw_files(&LshCurves(&banded), "lsh", out)?);
    }
    let sweep = LexiconSweep(&series);
    let sweep_lines = sweep.lines();
    if !sweep_lines.is_empty() {
        written.extend(draw_files(&sweep, "imatch_k", out)?);
        written.extend(write_frame("imatch_k", sweep_frame(&sweep_lines), out)?);
    }
    written.extend(write_frame("pr", curve_frame(curves), out)?);
    written.extend(write_frame("f1", curve_frame(curves), out)?);
    written.extend(write_frame("slices", slice_frame(&series, &slices), out)?);
    written.extend(write_frame(
        "throughput_stages",
        throughput_frame(&series),
        out,
    )?);
    written.extend(write_frame("scores", histogram_frame(&series), out)?);
    if !banded.is_empty() {
        written.extend(write_frame("lsh", lsh_frame(&banded), out)?);
    }
    // Optional charts not drawn this time must not linger from an earlier
    // report in the same directory.
    for (drawn, name) in [
        (clusters_too, "pr_clusters"),
        (!banded.is_empty(), "lsh"),
        (!sweep_lines.is_empty(), "imatch_k"),
    ] {
        if !drawn {
            for ext in ["png", "svg", "csv", "parquet"] {
                let _ = std::fs::remove_file(out.join(format!("{name}.{ext}")));
            }
        }
    }
    let md = out.join("report.md");
    let extras = Extras {
        lsh: !banded.is_empty(),
        sweep: !sweep_lines.is_empty(),
        judged: !judged.is_empty(),
        clusters_too,
    };
    crate::util::io::write(&md, markdown(runs, &series, &slices, &extras))?;
    written.push(md);
    Ok(written)
}

fn seconds(x: f64) -> String {
    format!("{x:.2}")
}

/// Charts drawn only when the runs have what they show.
struct Extras {
    lsh: bool,
    sweep: bool,
    /// The curves are over judged pairs; `clusters_too`: and the
    /// clusters' are drawn beside them.
    judged: bool,
    clusters_too: bool,
}

/// The series of runs with judged pairs, their figures over the judged
/// pairs in place of the pairwise ones, for the curve charts.
fn judged_series(series: &[Series]) -> Vec<Series> {
    let mut out: Vec<Series> = series
        .iter()
        .filter(|s| !s.algorithm.judged.is_empty())
        .cloned()
        .map(|mut s| {
            s.algorithm.evaluations = s
                .algorithm
                .judged
                .iter()
                .map(|e| {
                    let level = stored::StoredLevel {
                        overall: [e.counts.actual, e.counts.detected, e.counts.correct],
                        slices: Vec::new(),
                    };
                    stored::StoredEvaluation {
                        threshold: e.threshold,
                        pairwise: level.clone(),
                        clustered: level.clone(),
                        page: level,
                    }
                })
                .collect();
            s
        })
        .collect();
    assign_colors(&mut out);
    out
}

fn sweep_frame(lines: &[charts::SweepLine]) -> PolarsResult<DataFrame> {
    let (mut name, mut k, mut p, mut r) = (vec![], vec![], vec![], vec![]);
    for charts::SweepLine { name: n, points } in lines {
        for &(x, precision, recall) in points {
            name.push(n.clone());
            k.push(x as u64);
            p.push(opt(precision));
            r.push(opt(recall));
        }
    }
    DataFrame::new_infer_height(vec![
        Column::new("series".into(), name),
        Column::new("extra_lexicons".into(), k),
        Column::new("precision".into(), p),
        Column::new("recall".into(), r),
    ])
}

fn markdown(
    runs: &[(String, StoredRun)],
    series: &[Series],
    slices: &[String],
    extras: &Extras,
) -> String {
    let mut md = String::new();
    let names: Vec<&str> = runs.iter().map(|(n, _)| n.as_str()).collect();
    let _ = writeln!(md, "# neardup report: {}\n", names.join(", "));
    let _ = writeln!(
        md,
        "Drawn by `neardup report` from the results the runs stored (`run.json`); nothing was run again. \
         Each chart is here as PNG and SVG, and the data behind it as CSV and Parquet. \
         A series keeps its colour (its place in its family's panel) in every chart{}.\n",
        if runs.len() > 1 {
            "; an algorithm has one colour in every run: the first run's line is a wide pale band, \
             the second run's dashed, the third's dotted"
        } else {
            ""
        }
    );
    if let Some(changes) = comparison(runs) {
        let _ = writeln!(md, "## What changed\n\n{changes}");
    }
    summary_section(&mut md, series);
    for (name, run) in runs {
        if let Some(judged) = &run.judged {
            judged_section(&mut md, name, run, judged, runs.len() > 1);
        }
    }
    let _ = writeln!(md, "## Runs\n");
    let _ = writeln!(
        md,
        "| run | experiment | corpus | pages | true pairs | wall s | cpu s | peak memory |"
    );
    let _ = writeln!(md, "|---|---|---|---:|---:|---:|---:|---:|");
    for (name, run) in runs {
        let _ = writeln!(
            md,
            "| {name} | {} | {} | {} | {} | {} | {} | {} |",
            run.experiment,
            run.corpus,
            run.pages,
            run.true_pairs,
            seconds(run.wall_seconds),
            seconds(run.cpu_seconds),
            run.peak_memory_bytes
                .map(|b| format!("{:.0} MB", b as f64 / 1e6))
                .unwrap_or_else(|| "-".into())
        );
    }
    let chart = |md: &mut String, title: &str, file: &str, data: &str, what: &str| {
        let _ = writeln!(md, "\n## {title}\n\n{what}\n\n![{title}]({file}.png)\n\n[SVG]({file}.svg) · data: [{data}.csv]({data}.csv), [{data}.parquet]({data}.parquet)");
    };
    if extras.judged {
        chart(&mut md, "Precision and recall", "pr", "pr", "Over the judged pairs, one point per threshold of each algorithm's grid; the filled dot is the configured threshold.");
        if extras.clusters_too {
            chart(
                &mut md,
                "Precision and recall against the clusters",
                "pr_clusters",
                "pr_clusters",
                "Pairwise against the pages' clusters, over all slices.",
            );
        }
    } else {
        chart(&mut md, "Precision and recall", "pr", "pr", "Pairwise, over all slices, one point per threshold of each algorithm's grid; the filled dot is the configured threshold.");
    }
    chart(
        &mut md,
        "F1 against threshold",
        "f1",
        "f1",
        "One panel per score scale (similarities and distances do not share an axis).",
    );
    chart(
        &mut md,
        "Per slice",
        "slices",
        "slices",
        "Page level (seed 001's counts) at the configured thresholds.",
    );
    let _ = writeln!(
        md,
        "\n| algorithm | slice | actual | detected | correct | precision | recall | F |"
    );
    let _ = writeln!(md, "|---|---|---:|---:|---:|---:|---:|---:|");
    for s in series {
        let Some(e) = s.algorithm.at_threshold() else {
            continue;
        };
        let mut rows: Vec<(String, stored::StoredCounts)> = slices
            .iter()
            .filter_map(|slice| {
                s.slice_index(slice)
                    .map(|i| (slice.clone(), e.page.slices[i]))
            })
            .collect();
        rows.push(("all pages".into(), e.page.overall));
        rows.push(("pairwise, all".into(), e.pairwise.overall));
        for (slice, c) in rows {
            let c = to_counts(&c);
            let _ = writeln!(
                md,
                "| {} (at {}) | {slice} | {} | {} | {} | {} | {} | {} |",
                s.name,
                s.algorithm.threshold,
                c.actual,
                c.detected,
                c.correct,
                pct(c.precision()),
                pct(c.recall()),
                pct(c.f1())
            );
        }
    }
    boilerplate_section(&mut md, runs);
    chart(&mut md, "Throughput", "throughput", "throughput_stages", "Pages per second of each algorithm's own stages (decoding, extraction and tokenising are shared and listed in the runs' throughput.csv).");
    chart(&mut md, "Scores of true and false pairs", "scores", "scores", "Every stored pair (within the floor) by score; the black line is the configured threshold.");
    if extras.lsh {
        chart(&mut md, "LSH S-curves", "lsh", "lsh", "The probability that a pair of sets with Jaccard J becomes a candidate, for each banding chosen.");
    }
    if extras.sweep {
        chart(&mut md, "I-Match against extra lexicons", "imatch_k", "imatch_k", "Pairwise recall and precision of I-Match with K extra randomised lexicons (Kołcz et al. 2004), at each algorithm's threshold.");
    }
    for (name, run) in runs {
        if let Some(paper) = &run.paper {
            paper_section(&mut md, name, run, paper);
        }
    }
    for (name, run) in runs {
        if let Some(paper) = run.paper.as_ref().filter(|p| !p.claims.is_empty()) {
            verdict_section(&mut md, name, run, paper);
        }
    }
    md
}

/// What `boilerplate: site` removed in each host and template group.
fn boilerplate_section(md: &mut String, runs: &[(String, StoredRun)]) {
    if runs.iter().all(|(_, r)| r.boilerplate.is_empty()) {
        return;
    }
    let _ = writeln!(
        md,
        "\n## Boilerplate across pages\n\nBlocks on at least the given number of a group's pages \
         (`boilerplate: site`) were removed before tokenising; a template groups pages whose DOM \
         skeletons match, on any host.\n\n\
         | run | extract | group | name | pages | hosts | blocks on >= pages | blocks removed | chars removed |\n\
         |---|---|---|---|---:|---:|---:|---:|---:|"
    );
    for (name, run) in runs {
        for b in &run.boilerplate {
            let g = &b.group;
            let _ = writeln!(
                md,
                "| {name} | {} | {} | {} | {} | {} | {} | {} | {} of {} |",
                b.extraction,
                g.kind,
                g.name,
                g.pages,
                g.hosts,
                g.min_pages,
                g.blocks,
                g.chars_removed,
                g.chars
            );
        }
    }
}

/// Per algorithm in both, the last run against the first: best pairwise F,
/// its P and R, and the end-to-end speed, as a markdown table with a
/// sentence per algorithm; `None` with fewer than two runs.
pub fn comparison(runs: &[(String, StoredRun)]) -> Option<String> {
    let [(a_name, _), .., (b_name, _)] = runs else {
        return None;
    };
    let series = series_of(runs);
    let last = runs.len() - 1;
    let mut md = format!(
        "Run `{b_name}` against run `{a_name}`, per algorithm in both: best pairwise F (with its P and R) \
         and pages/s end to end; a ratio above 1 is faster.\n\n\
         | algorithm | best F | P | R | pages/s | note |\n|---|---:|---:|---:|---:|---|\n"
    );
    let mut missing = Vec::new();
    for a in series.iter().filter(|s| s.run == 0) {
        let key = a.algorithm.key();
        let Some(b) = series
            .iter()
            .find(|s| s.run == last && s.algorithm.key() == key)
        else {
            missing.push(key);
            continue;
        };
        let figure = |s: &Series| s.best_f().map(|(_, c)| (c.f1(), c.precision(), c.recall()));
        let rate = |s: &Series| {
            let seconds = s.end_to_end_seconds();
            (seconds > 0.0).then(|| s.pages as f64 / seconds)
        };
        let change = |x: Option<f64>, y: Option<f64>| match (x, y) {
            (Some(x), Some(y)) => format!("{} -> {} ({:+.1})", pct(x), pct(y), 100.0 * (y - x)),
            _ => format!(
                "{} -> {}",
                x.map_or("-".into(), pct),
                y.map_or("-".into(), pct)
            ),
        };
        let (fa, fb) = (figure(a), figure(b));
        let speed = match (rate(a), rate(b)) {
            (Some(x), Some(y)) => format!("{x:.0} -> {y:.0} ({})", speed_ratio(y / x)),
            _ => "-".into(),
        };
        let _ = writeln!(
            md,
            "| {key} | {} | {} | {} | {speed} | {} |",
            change(fa.map(|f| f.0), fb.map(|f| f.0)),
            change(fa.map(|f| f.1), fb.map(|f| f.1)),
            change(fa.map(|f| f.2), fb.map(|f| f.2)),
            if a.algorithm.best_f == b.algorithm.best_f
                && a.algorithm.evaluations == b.algorithm.evaluations
            {
                "same figures"
            } else {
                ""
            }
        );
    }
    for s in series.iter().filter(|s| s.run == last) {
        let key = s.algorithm.key();
        if !series
            .iter()
            .any(|a| a.run == 0 && a.algorithm.key() == key)
        {
            let _ = writeln!(md, "| {key} | only in `{b_name}` | | | | |");
        }
    }
    for key in missing {
        let _ = writeln!(md, "| {key} | only in `{a_name}` | | | | |");
    }
    Some(md)
}

/// `1.32x faster`, `2.00x slower`.
fn speed_ratio(ratio: f64) -> String {
    if ratio >= 1.0 {
        format!("{ratio:.2}x faster")
    } else {
        format!("{:.2}x slower", 1.0 / ratio)
    }
}

/// Best pairwise F per algorithm and where it peaks, beside the figures
/// at the configured threshold and the end-to-end speed.
fn summary_section(md: &mut String, series: &[Series]) {
    let _ = writeln!(md, "## Summary\n");
    let cached = series.iter().any(|s| {
        s.shared
            .iter()
            .chain(&s.stages)
            .any(|st| st.stage == "extract (cache)")
    });
    let _ = writeln!(
        md,
        "Pairwise over all slices. Best F is {}; \
         pages/s is end to end (decoding, extraction and tokenising included, wall time){}.\n",
        best_f_basis(series),
        if cached {
            ", except that this run read the pages' text from the extraction cache: \
             its pages/s leave out decoding and extracting (`neardup run --no-cache` times them)"
        } else {
            ""
        }
    );
    let _ = writeln!(
        md,
        "| algorithm | best F | at threshold | P | R | configured | F there | pages/s |"
    );
    let _ = writeln!(md, "|---|---:|---:|---:|---:|---:|---:|---:|");
    for s in series {
        let (best, at, p, r) = match s.best_f() {
            Some((t, c)) => (
                pct(c.f1()),
                crate::util::fmt::threshold_short(t),
                pct(c.precision()),
                pct(c.recall()),
            ),
            None => ("-".into(), "-".into(), "-".into(), "-".into()),
        };
        let configured = s
            .algorithm
            .at_threshold()
            .map(|e| pct(to_counts(&e.pairwise.overall).f1()))
            .unwrap_or_else(|| "-".into());
        let seconds = s.end_to_end_seconds();
        let rate = if seconds > 0.0 {
            format!("{:.0}", s.pages as f64 / seconds)
        } else {
            "-".into()
        };
        let _ = writeln!(
            md,
            "| {} | {best} | {at} | {p} | {r} | {} | {configured} | {rate} |",
            s.name,
            crate::util::fmt::threshold_short(s.algorithm.threshold)
        );
    }
    let _ = writeln!(md);
    for s in series.iter().filter(|s| s.pr_points().is_empty()) {
        let _ = writeln!(
            md,
            "- {}: {}, so it has no point on the charts.",
            s.name,
            s.empty_reason()
        );
    }
    let _ = writeln!(md);
}

/// Over a run's judged pairs: best F per algorithm and where it peaks,
/// the pairs never scored, and a line per grade at the configured
/// threshold.
fn judged_section(
    md: &mut String,
    name: &str,
    run: &StoredRun,
    judged: &stored::StoredJudged,
    named: bool,
) {
    let _ = writeln!(
        md,
        "## Judged pairs{}
",
        if named {
            format!(" ({name})")
        } else {
            String::new()
        }
    );
    let _ = writeln!(
        md,
        "{} judged pairs from `{}`: {} duplicates (grade >= {}), {} not. Figures count the judged pairs only; \
         a judged pair an algorithm never scored (not a candidate, or past the floor) is a miss when a duplicate \
         and a correct rejection otherwise. Best F here is the highest over each algorithm's threshold grid \
         (`neardup tune` over judged pairs chooses over every threshold).\n",
        judged.pairs,
        judged.source,
        judged.positives,
        judged.positive_from,
        judged.pairs - judged.positives
    );
    let _ = writeln!(
        md,
        "| algorithm | best F | at threshold | P | R | configured | P | R | F | never scored: duplicates (misses) | others (rejections) |"
    );
    let _ = writeln!(
        md,
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    fn at(a: &StoredAlgorithm) -> Option<&crate::eval::judged::JudgedEvaluation> {
        a.judged
            .iter()
            .find(|e| (e.threshold - a.threshold).abs() < 1e-9)
    }
    for a in &run.algorithms {
        let best = a
            .judged
            .iter()
            .filter(|e| e.counts.f1().is_finite())
            .max_by(|x, y| x.counts.f1().total_cmp(&y.counts.f1()));
        let prf = |e: Option<&crate::eval::judged::JudgedEvaluation>| match e {
            Some(e) => [
                pct(e.counts.precision()),
                pct(e.counts.recall()),
                pct(e.counts.f1()),
            ],
            None => ["-".into(), "-".into(), "-".into()],
        };
        let [bp, br, bf] = prf(best);
        let [p, r, f] = prf(at(a));
        let (never_pos, never_neg) = a
            .judged
            .first()
            .map_or((0, 0), |e| (e.unscored_positives, e.unscored_negatives));
        let _ =
            writeln!(
            md,
            "| {} | {bf} | {} | {bp} | {br} | {} | {p} | {r} | {f} | {never_pos} | {never_neg} |",
            a.key(),
            best.map_or("-".into(), |e| crate::util::fmt::threshold_short(e.threshold)),
            crate::util::fmt::threshold_short(a.threshold),
        );
    }
    let _ = writeln!(
        md,
        "\nPer grade at the configured thresholds, each row one grade (not that grade and above), \
         marked where it counts as duplicates:\n"
    );
    let _ = writeln!(
        md,
        "| algorithm (at threshold) | grade | pairs | judged duplicates | share | never scored |"
    );
    let _ = writeln!(md, "|---|---:|---:|---:|---:|---:|");
    for a in &run.algorithms {
        let Some(e) = at(a) else { continue };
        for g in &e.grades {
            let _ = writeln!(
                md,
                "| {} (at {}) | {}{} | {} | {} | {} | {} |",
                a.key(),
                crate::util::fmt::threshold_short(a.threshold),
                g.grade,
                if g.grade >= judged.positive_from {
                    " (duplicate)"
                } else {
                    ""
                },
                g.pairs,
                g.detected,
                pct(g.detected as f64 / g.pairs as f64),
                g.unscored
            );
        }
    }
    let _ = writeln!(md);
}

/// Each claim of the paper with its verdict, the reason and the figure
/// that decides it.
fn verdict_section(md: &mut String, name: &str, run: &StoredRun, paper: &Paper) {
    let _ = writeln!(md, "\n## Verdicts ({name})\n");
    for (i, claim) in paper.claims.iter().enumerate() {
        let figure = claim.figure.as_ref().map(|m| measure_value(run, m));
        let other = claim.above.as_ref().map(|m| measure_value(run, m));
        let verdict = claim.verdict(
            figure.as_ref().and_then(|f| f.0),
            other.as_ref().and_then(|o| o.0),
        );
        let _ = writeln!(md, "{}. **{}** — {}.\n", i + 1, claim.claim, verdict.text());
        let reason = claim.reason(verdict);
        if !reason.is_empty() {
            let _ = writeln!(md, "   {}\n", reason.trim());
        }
        if let Some((_, text)) = &figure {
            let test = claim.test_text(other.as_ref().map(|o| o.1.as_str()));
            let _ = writeln!(md, "   Deciding figure: {text}{test}.\n");
        }
    }
}

/// The algorithm of a run whose label starts with `prefix`.
fn find<'a>(run: &'a StoredRun, prefix: &str) -> Vec<&'a StoredAlgorithm> {
    run.algorithms
        .iter()
        .filter(|a| a.label.starts_with(prefix) || a.name == prefix)
        .collect()
}

/// The first algorithm `find` names that read `extraction` (any, when none
/// is named).
fn find_on<'a>(
    run: &'a StoredRun,
    prefix: &str,
    extraction: &Option<String>,
) -> Option<&'a StoredAlgorithm> {
    find(run, prefix)
        .into_iter()
        .find(|a| extraction.as_ref().is_none_or(|x| *x == a.extraction))
}

/// The index of a named slice (`None` for all pages), or why not.
fn slice_of(run: &StoredRun, slice: &Option<String>) -> Result<Option<usize>, String> {
    match slice {
        Some(name) => run
            .slices
            .iter()
            .position(|s| s == name)
            .map(Some)
            .ok_or_else(|| format!("no slice `{name}` in this run")),
        None => Ok(None),
    }
}

fn measure(run: &StoredRun, m: &Measure) -> String {
    measure_value(run, m).1
}

/// A figure of ours: its value (a fraction, or seconds) where it has one,
/// and how it reads.
type Figure = (Option<f64>, String);

pub(crate) fn measure_value(run: &StoredRun, m: &Measure) -> Figure {
    match m {
        Measure::WallSeconds => (
            Some(run.wall_seconds),
            format!(
                "{:.1} s wall, {:.1} s CPU for {} pages (every algorithm of the run)",
                run.wall_seconds, run.cpu_seconds, run.pages
            ),
        ),
        Measure::AlgorithmSeconds {
            algorithm,
            extraction,
        } => algorithm_seconds(run, algorithm, extraction),
        Measure::PrecisionAtRecall {
            algorithm,
            recall,
            extraction,
        } => precision_at_recall(run, algorithm, *recall, extraction),
        Measure::BestF { algorithm } => best_f(run, algorithm),
        Measure::Precision {
            algorithm,
            threshold,
            slice,
        } => pairwise(run, algorithm, *threshold, slice, true),
        Measure::Recall {
            algorithm,
            threshold,
            slice,
        } => pairwise(run, algorithm, *threshold, slice, false),
        Measure::BestThreshold { algorithm } => best_threshold(run, algorithm),
        Measure::RecallGain { algorithm } => recall_gain(run, algorithm),
        Measure::PageF {
            algorithm,
            slice,
            extraction,
        } => page_f(run, algorithm, slice, extraction),
        Measure::PagePrecision {
            algorithm,
            slice,
            extraction,
        } => page_precision(run, algorithm, slice, extraction),
        Measure::RecallRatio { algorithm, of } => recall_ratio(run, algorithm, of),
        Measure::ClusteredF {
            algorithm,
            clustering,
            threshold,
        } => clustered::clustered_f(
            find(run, algorithm).first().copied(),
            algorithm,
            *clustering,
            *threshold,
        ),
        Measure::ClusteredWorst {
            algorithm,
            clustering,
            from,
            to,
        } => clustered::over_range(
            find(run, algorithm).first().copied(),
            algorithm,
            *clustering,
            (*from, *to),
            false,
        ),
        Measure::ClusteredDrop {
            algorithm,
            clustering,
            from,
            to,
        } => clustered::over_range(
            find(run, algorithm).first().copied(),
            algorithm,
            *clustering,
            (*from, *to),
            true,
        ),
    }
}

/// Pairwise precision or recall of the first `prefix` algorithm (all
/// pages, or a slice), at `threshold` or its configured one.
fn pairwise(
    run: &StoredRun,
    prefix: &str,
    threshold: Option<f64>,
    slice: &Option<String>,
    precision: bool,
) -> Figure {
    let Some(a) = find(run, prefix).into_iter().next() else {
        return (None, format!("no algorithm `{prefix}` in this run"));
    };
    let t = threshold.unwrap_or(a.threshold);
    let index = match slice_of(run, slice) {
        Ok(i) => i,
        Err(e) => return (None, e),
    };
    match a.at(t) {
        Some(e) => {
            let c = to_counts(index.map_or(&e.pairwise.overall, |i| &e.pairwise.slices[i]));
            let v = if precision { c.precision() } else { c.recall() };
            let within = slice.as_ref().map(|s| format!(", {s}")).unwrap_or_default();
            (Some(v), format!("{} ({} at {t}{within})", pct(v), a.label))
        }
        None => (None, format!("{} was not evaluated at {t}", a.label)),
    }
}

/// Seconds from pages to `algorithm`'s results on `extraction`: its share
/// of decoding, extraction and tokenising, and its own stages.
fn algorithm_seconds(run: &StoredRun, algorithm: &str, extraction: &str) -> Figure {
    let shared: f64 = run
        .throughput
        .iter()
        .filter(|s| {
            matches!(
                s.stage.as_str(),
                "decode+extract" | "extract (cache)" | "tokenize"
            )
        })
        .filter_map(|s| s.charged_to(extraction))
        .map(|s| s.wall_seconds)
        .sum();
    let own: Vec<&StoredStage> = run
        .throughput
        .iter()
        .filter(|s| {
            s.algorithm.starts_with(algorithm)
                && s.algorithm.contains(&format!("[{extraction}"))
                && s.stage != "evaluation"
        })
        .collect();
    if own.is_empty() {
        return (
            None,
            format!("no stages of `{algorithm}` on {extraction} in this run"),
        );
    }
    let total = shared + own.iter().map(|s| s.wall_seconds).sum::<f64>();
    let text = format!(
        "{total:.1} s wall for {} pages: decoding, extraction and tokenising {shared:.1} s, {} {:.1} s ({} cores, every stage parallel)",
        run.pages,
        own[0].algorithm,
        total - shared,
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    (Some(total), text)
}

/// The precision at the evaluated threshold whose recall is nearest `recall`.
fn precision_at_recall(
    run: &StoredRun,
    algorithm: &str,
    recall: f64,
    extraction: &Option<String>,
) -> Figure {
    let Some(a) = find_on(run, algorithm, extraction) else {
        return (None, format!("no algorithm `{algorithm}` in this run"));
    };
    let nearest = a
        .evaluations
        .iter()
        .map(|e| (e, to_counts(&e.pairwise.overall)))
        .filter(|(_, c)| c.recall().is_finite() && c.precision().is_finite())
        .min_by(|x, y| {
            (x.1.recall() - recall)
                .abs()
                .total_cmp(&(y.1.recall() - recall).abs())
        });
    match nearest {
        Some((e, c)) => (
            Some(c.precision()),
            format!(
                "{} at recall {} ({} [{}] at {})",
                pct(c.precision()),
                pct(c.recall()),
                a.label,
                a.extraction,
                e.threshold
            ),
        ),
        None => (None, format!("{} detected nothing", a.key())),
    }
}

/// The threshold of best F and its figures.
fn best_f(run: &StoredRun, algorithm: &str) -> Figure {
    let Some(a) = find(run, algorithm).into_iter().next() else {
        return (None, format!("no algorithm `{algorithm}` in this run"));
    };
    match best_f_of(a) {
        Some((t, c)) => (
            Some(c.f1()),
            format!(
                "{t} (F {}, P {}, R {}; {})",
                pct(c.f1()),
                pct(c.precision()),
                pct(c.recall()),
                a.label
            ),
        ),
        None => (None, format!("{} detected nothing", a.key())),
    }
}

/// The threshold of best F, as the threshold's value.
fn best_threshold(run: &StoredRun, algorithm: &str) -> Figure {
    let Some(a) = find(run, algorithm).into_iter().next() else {
        return (None, format!("no algorithm `{algorithm}` in this run"));
    };
    match best_f_of(a) {
        Some((t, c)) => (
            Some(t),
            format!(
                "{} (F {}, P {}, R {}; {})",
                crate::util::fmt::threshold_short(t),
                pct(c.f1()),
                pct(c.precision()),
                pct(c.recall()),
                a.label
            ),
        ),
        None => (None, format!("{} detected nothing", a.key())),
    }
}

/// How much more the last `algorithm` of the run recalls than the first.
fn recall_gain(run: &StoredRun, algorithm: &str) -> Figure {
    let found = find(run, algorithm);
    let recall = |a: &StoredAlgorithm| {
        a.at_threshold()
            .map(|e| to_counts(&e.pairwise.overall).recall())
            .unwrap_or(f64::NAN)
    };
    match (found.first(), found.last()) {
        (Some(first), Some(last)) if found.len() > 1 => {
            let gain = recall(last) / recall(first) - 1.0;
            (
                Some(gain),
                format!(
                    "{:+.0}% ({} {} -> {} {})",
                    gain * 100.0,
                    first.label,
                    pct(recall(first)),
                    last.label,
                    pct(recall(last))
                ),
            )
        }
        _ => (
            None,
            format!("needs two or more `{algorithm}` algorithms in the run"),
        ),
    }
}

/// Per-page F within a slice, at the configured threshold.
fn page_f(run: &StoredRun, algorithm: &str, slice: &str, extraction: &Option<String>) -> Figure {
    let found = find_on(run, algorithm, extraction);
    let index = run.slices.iter().position(|s| s == slice);
    match (found, index) {
        (Some(a), Some(i)) => match a.at_threshold() {
            Some(e) => {
                let c = to_counts(&e.page.slices[i]);
                (
                    Some(c.f1()),
                    format!(
                        "{} (P {}, R {}; {} at {}, {slice})",
                        pct(c.f1()),
                        pct(c.precision()),
                        pct(c.recall()),
                        a.key(),
                        a.threshold
                    ),
                )
            }
            None => (None, format!("{} has no configured threshold", a.key())),
        },
        _ => (
            None,
            format!("needs `{algorithm}` and slice `{slice}` in the run"),
        ),
    }
}

/// Per-page precision (all pages, or a slice), at the configured threshold.
fn page_precision(
    run: &StoredRun,
    algorithm: &str,
    slice: &Option<String>,
    extraction: &Option<String>,
) -> Figure {
    let found = find_on(run, algorithm, extraction);
    let index = match slice_of(run, slice) {
        Ok(i) => i,
        Err(e) => return (None, e),
    };
    let Some(a) = found else {
        return (None, format!("no algorithm `{algorithm}` in this run"));
    };
    let Some(e) = a.at_threshold() else {
        return (None, format!("{} has no configured threshold", a.key()));
    };
    let c = to_counts(index.map_or(&e.page.overall, |i| &e.page.slices[i]));
    (
        opt(c.precision()),
        format!(
            "{} ({} of {} flagged pages; {} at {}, {})",
            if c.detected == 0 {
                "none flagged".to_string()
            } else {
                pct(c.precision())
            },
            c.correct,
            c.detected,
            a.key(),
            a.threshold,
            slice.as_deref().unwrap_or("all pages")
        ),
    )
}

/// `algorithm`'s recall as a share of `of`'s.
fn recall_ratio(run: &StoredRun, algorithm: &str, of: &str) -> Figure {
    let recall = |prefix: &str| {
        find(run, prefix).first().and_then(|a| {
            a.at_threshold()
                .map(|e| (a.label.clone(), to_counts(&e.pairwise.overall).recall()))
        })
    };
    match (recall(algorithm), recall(of)) {
        (Some((a, ra)), Some((b, rb))) if rb.is_nan() || rb <= 0.0 => (
            None,
            format!("undefined: {b} recalls {} ({a} {})", pct(rb), pct(ra)),
        ),
        (Some((a, ra)), Some((b, rb))) => (
            Some(ra / rb),
            format!(
                "{:.0}% ({a} {} of {b} {})",
                ra / rb * 100.0,
                pct(ra),
                pct(rb)
            ),
        ),
        _ => (None, format!("needs `{algorithm}` and `{of}` in the run")),
    }
}

fn paper_section(md: &mut String, name: &str, run: &StoredRun, paper: &Paper) {
    let _ = writeln!(md, "\n## The paper beside ours ({name})\n");
    let _ = writeln!(
        md,
        "{}\n\nFigures read in: {}\n",
        paper.citation, paper.source
    );
    if !paper.differences.is_empty() {
        let _ = writeln!(md, "How our set-up differs:\n");
        for d in &paper.differences {
            let _ = writeln!(md, "- {d}");
        }
    }
    for table in &paper.tables {
        paper_table(md, run, table);
    }
    if !paper.figures.is_empty() {
        let _ = writeln!(md, "\n| figure | paper | ours |\n|---|---|---|");
        for f in &paper.figures {
            let _ = writeln!(
                md,
                "| {} | {} | {} |",
                f.name,
                f.paper,
                measure(run, &f.ours)
            );
        }
    }
    for prefix in &paper.sweeps {
        sweep_tables(md, run, prefix);
    }
    if let Some(plan) = &paper.index_plan {
        index_plan_table(md, plan);
    }
}

/// A paper's table of counts, each row followed by ours in its slice
/// (page level unless the table says pairwise), and the printed
/// percentages its own counts do not give.
fn paper_table(md: &mut String, run: &StoredRun, table: &PaperTable) {
    let _ = writeln!(md, "\n### {}\n", table.title);
    let _ = writeln!(
        md,
        "| who | slice | actual | detected | correct | precision | recall | F |"
    );
    let _ = writeln!(md, "|---|---|---:|---:|---:|---:|---:|---:|");
    let mut flags = Vec::new();
    for row in &table.rows {
        let _ = writeln!(
            md,
            "| **paper** | {}{} | {} | {} | {} | {:.2}% | {:.2}% | {:.2}% |",
            row.slice,
            row.name
                .as_deref()
                .map(|n| format!(" ({n})"))
                .unwrap_or_default(),
            row.actual,
            row.detected,
            row.correct,
            row.precision,
            row.recall,
            row.f
        );
        for (what, printed, exact) in inconsistencies(row) {
            flags.push(format!(
                "{} {what}: printed {printed:.2}%, but the counts give {exact:.2}%",
                row.slice
            ));
        }
        for a in run
            .algorithms
            .iter()
            .filter(|a| table.extraction.as_ref().is_none_or(|x| *x == a.extraction))
        {
            let (Some(e), Some(i)) = (
                a.at_threshold(),
                run.slices.iter().position(|s| *s == row.slice),
            ) else {
                continue;
            };
            let level = if table.level == "pairwise" {
                &e.pairwise
            } else {
                &e.page
            };
            let c = to_counts(&level.slices[i]);
            let _ = writeln!(
                md,
                "| {} (at {}) | {} | {} | {} | {} | {} | {} | {} |",
                a.key(),
                a.threshold,
                row.slice,
                c.actual,
                c.detected,
                c.correct,
                pct(c.precision()),
                pct(c.recall()),
                pct(c.f1())
            );
        }
    }
    if flags.is_empty() {
        let _ = writeln!(
            md,
            "\nEvery printed percentage follows from the paper's counts."
        );
    } else {
        let _ = writeln!(
            md,
            "\nPercentages that do not follow from the paper's own counts:\n"
        );
        for f in flags {
            let _ = writeln!(md, "- {f}");
        }
    }
}

/// Pairwise counts over the grid of each algorithm named by `prefix`.
fn sweep_tables(md: &mut String, run: &StoredRun, prefix: &str) {
    for a in find(run, prefix) {
        let _ = writeln!(
            md,
            "\n### {} against {} (pairwise, all slices)\n",
            a.key(),
            a.scale.name
        );
        let _ = writeln!(md, "| threshold | detected | correct | precision | recall | F |\n|---:|---:|---:|---:|---:|---:|");
        for e in &a.evaluations {
            let c = to_counts(&e.pairwise.overall);
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} |",
                e.threshold,
                c.detected,
                c.correct,
                pct(c.precision()),
                pct(c.recall()),
                pct(c.f1())
            );
        }
    }
}

/// The SimHash table layouts that reach the paper's k, at its number of
/// fingerprints.
fn index_plan_table(md: &mut String, plan: &IndexPlan) {
    use crate::algo::simhash::tables::{Layout, LayoutPlan, BYTES_PER_ENTRY};
    let _ = writeln!(
        md,
        "\n### Table designs for {:.3e} fingerprints, k = {} (`neardup index plan`)\n",
        plan.fingerprints, plan.k
    );
    let _ = writeln!(md, "| layout | tables | prefix bits | candidates per query | memory |\n|---|---:|---|---:|---:|");
    for name in ["4x16", "6c3", "4x4", "5c2", "8c5", "10c7"] {
        let Ok(layout) = name.parse::<Layout>() else {
            continue;
        };
        if plan.k > layout.max_k() {
            continue;
        }
        let p = LayoutPlan::new(&layout, plan.fingerprints);
        let bits: Vec<String> = p.prefix_bits.iter().map(u32::to_string).collect();
        let _ = writeln!(
            md,
            "| {name} | {} | {} | {:.1} | {:.1} GB ({} bytes per fingerprint) |",
            p.tables,
            bits.join(", "),
            p.candidates_per_query,
            p.bytes / 1e9,
            p.tables * BYTES_PER_ENTRY
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The committed fan2008 example: 36 series of six families.
    fn fan2008() -> Vec<Series> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("reports/examples/fan2008");
        let run = load_run(&dir).unwrap();
        let runs = vec![
            ("a".to_string(), run.clone()),
            ("b".to_string(), run.clone()),
            ("c".to_string(), run),
        ];
        series_of(&runs)
    }

    #[test]
    fn panels_hold_every_series_once_at_most_eight_each_in_colours_of_their_own() {
        let series = fan2008();
        let grouped = panels(&series);
        let mut seen = vec![0; series.len()];
        for p in &grouped {
            assert!(
                p.members.len() <= PANEL_SERIES,
                "{}: {}",
                p.title,
                p.members.len()
            );
            // One colour per algorithm, the same in every run.
            let mut pairs: Vec<(String, usize)> = p
                .members
                .iter()
                .map(|&i| (series[i].algorithm.key(), series[i].color))
                .collect();
            pairs.sort_unstable();
            pairs.dedup();
            let mut keys: Vec<&String> = pairs.iter().map(|(k, _)| k).collect();
            keys.dedup();
            let mut colours: Vec<usize> = pairs.iter().map(|&(_, c)| c).collect();
            colours.sort_unstable();
            colours.dedup();
            assert_eq!(
                keys.len(),
                pairs.len(),
                "{}: one colour per algorithm",
                p.title
            );
            assert_eq!(
                colours.len(),
                pairs.len(),
                "{}: colours of their own",
                p.title
            );
            for &i in &p.members {
                seen[i] += 1;
                assert!(p.title.starts_with(series[i].family()), "{}", p.title);
            }
        }
        assert!(seen.iter().all(|&n| n == 1), "{seen:?}");
        let best = overview(&series);
        let families: Vec<&str> = best.members.iter().map(|&i| series[i].family()).collect();
        let mut distinct = families.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), families.len(), "{families:?}");
        let f = |i: usize| series[i].best_f().unwrap().1.f1();
        assert!(best.members.windows(2).all(|w| f(w[0]) >= f(w[1])));
    }

    #[test]
    fn a_summary_of_text_read_from_the_cache_says_its_rates_leave_extraction_out() {
        let mut series = fan2008();
        let summary = |series: &[Series]| {
            let mut md = String::new();
            summary_section(&mut md, series);
            md
        };
        let warning = "read the pages' text from the extraction cache";
        assert!(!summary(&series).contains(warning));
        for s in &mut series {
            for stage in &mut s.shared {
                if stage.stage == "decode+extract" {
                    stage.stage = "extract (cache)".into();
                }
            }
        }
        assert!(summary(&series).contains(warning));
    }

    #[test]
    fn end_to_end_time_counts_the_shared_stages_once_per_algorithm() {
        let series = fan2008();
        let chars = series
            .iter()
            .find(|s| {
                s.algorithm.label == "jaccard(w=2) on chars" && s.algorithm.extraction == "main"
            })
            .unwrap();
        let stages: Vec<(&str, &str)> = chars
            .shared
            .iter()
            .map(|s| (s.stage.as_str(), s.algorithm.as_str()))
            .collect();
        assert_eq!(
            stages,
            [("decode+extract", "main"), ("tokenize", "main chars")]
        );
        let own: f64 = chars
            .stages
            .iter()
            .filter(|s| s.stage != "evaluation")
            .map(|s| s.wall_seconds)
            .sum();
        let shared: f64 = chars.shared.iter().map(|s| s.wall_seconds).sum();
        assert!((chars.end_to_end_seconds() - own - shared).abs() < 1e-9);
    }
}
