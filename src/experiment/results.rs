//! Results as tables: the printed summary shaped like seed 001's tables, and
//! the data frames written to `reports/NAME/` by the exporters.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use polars::prelude::*;

use super::config::format_threshold;
use super::outcome::{AlgorithmResult, ExperimentResult};
use crate::eval::{Counts, Evaluation, LevelMetrics};
use crate::util::fmt::percent_sign as pct;
use crate::util::io::FileError;

fn counts_row(label: &str, c: &Counts) -> String {
    format!(
        "  {label:<26} {:>8} {:>9} {:>8} {:>10} {:>8} {:>8}\n",
        c.actual,
        c.detected,
        c.correct,
        pct(c.precision()),
        pct(c.recall()),
        pct(c.f1())
    )
}

/// The summary printed by `neardup run`.
pub fn render_summary(result: &ExperimentResult) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "experiment  {}", result.name);
    let _ = writeln!(
        out,
        "corpus      {}: {} pages evaluated, {} true duplicate pairs; skipped {} empty rows",
        result.corpus_source,
        result.pages,
        result.truth.true_pairs(),
        result.skipped_empty,
    );
    for (extraction, empty) in &result.empty_after_extraction {
        let _ = writeln!(
            out,
            "extract     {}: {empty} pages with no text",
            extraction.name()
        );
    }
    for (extraction, groups) in &result.boilerplate {
        for h in groups {
            // A template's hosts show whether it was mirrored across sites.
            let hosts = match h.kind.as_str() {
                "template" => format!(" on {} hosts", h.hosts),
                _ => String::new(),
            };
            let _ = writeln!(
                out,
                "boilerplate {} {} {}: {} pages{hosts}, {} blocks on >= {} pages removed, {} of {} chars",
                extraction.name(),
                h.kind,
                h.name,
                h.pages,
                h.blocks,
                h.min_pages,
                h.chars_removed,
                h.chars
            );
        }
    }
    for a in &result.algorithms {
        algorithm_summary(&mut out, result, a);
    }
    stage_table(&mut out, result);
    let _ = writeln!(
        out,
        "total: {:.3} s wall, {:.3} s CPU, {:.2} MB input, peak memory {}",
        result.wall_seconds,
        result.cpu_seconds,
        result.input_bytes as f64 / 1e6,
        result
            .peak_memory_bytes
            .map(|b| format!("{:.1} MB", b as f64 / 1e6))
            .unwrap_or_else(|| "unknown".into())
    );
    out
}

/// One algorithm's run: its candidates, notes and counts per slice at
/// its threshold.
fn algorithm_summary(out: &mut String, result: &ExperimentResult, a: &AlgorithmResult) {
    let e = a.at_threshold();
    let _ = writeln!(
        out,
        "\n{} [{}]   {} {}",
        a.run.label,
        a.extraction.name(),
        a.run.scale.name,
        format_threshold(&a.run.scale, a.threshold),
    );
    // What the candidate stage alone loses, then what scoring kept:
    // no threshold can recall more than the stored pairs hold.
    let _ = writeln!(
        out,
        "  candidates {} pairs holding {} of {} true pairs ({}); stored {} pairs within {} holding {} ({})",
        a.candidate_stage.detected,
        a.candidate_stage.correct,
        a.candidate_stage.actual,
        pct(a.candidate_stage.recall()),
        a.candidates.detected,
        format_threshold(&a.run.scale, a.run.scale.floor),
        a.candidates.correct,
        pct(a.candidates.recall()),
    );
    for note in &a.run.notes {
        let _ = writeln!(out, "  {note}");
    }
    let _ = writeln!(
        out,
        "  {:<26} {:>8} {:>9} {:>8} {:>10} {:>8} {:>8}",
        "page level (seed 001)", "actual", "detected", "correct", "precision", "recall", "F"
    );
    for (s, name) in result.truth.slice_names.iter().enumerate() {
        out.push_str(&counts_row(name, &e.page.slices[s]));
    }
    out.push_str(&counts_row("all pages", &e.page.overall));
    out.push_str(&counts_row("pairwise, all", &e.pairwise.overall));
    out.push_str(&counts_row("clustered, all", &e.clustered.overall));
    let unsigned: Vec<String> = result
        .truth
        .slice_names
        .iter()
        .zip(&a.unsigned_by_slice)
        .filter(|(_, &n)| n > 0)
        .map(|(name, n)| format!("{name} {n}"))
        .collect();
    let _ = writeln!(
        out,
        "  largest predicted cluster: {} pages from {} true clusters; {} pages without a signature{}",
        e.largest_cluster.pages,
        e.largest_cluster.true_clusters,
        a.run.unsigned.len(),
        if unsigned.is_empty() {
            String::new()
        } else {
            format!(" ({})", unsigned.join(", "))
        }
    );
}

/// Each stage's times and throughput, the stages made in one pass with
/// each one's charge, and what the extraction cache gave.
fn stage_table(out: &mut String, result: &ExperimentResult) {
    let width = result
        .throughput
        .iter()
        .map(|r| r.algorithm.chars().count())
        .max()
        .unwrap_or(0)
        .max(20);
    let _ = writeln!(
        out,
        "\n{:<18} {:<width$} {:>9} {:>9} {:>12} {:>9} {:>8} {:>8}",
        "stage", "algorithm", "wall s", "cpu s", "pages/s", "MB/s", "RSS MB", "peak MB"
    );
    let megabytes =
        |b: Option<u64>| b.map_or("-".to_string(), |b| format!("{:.0}", b as f64 / 1e6));
    for r in &result.throughput {
        let _ = writeln!(
            out,
            "{:<18} {:<width$} {:>9.4} {:>9.4} {:>12.0} {:>9.2} {:>8} {:>8}",
            r.stage.name(),
            if r.algorithm.is_empty() {
                "(all)"
            } else {
                &r.algorithm
            },
            r.wall_seconds,
            r.cpu_seconds,
            r.pages_per_second(),
            r.megabytes_per_second(),
            megabytes(r.rss_bytes),
            megabytes(r.peak_bytes)
        );
    }
    for r in result.throughput.iter().filter(|r| !r.shares.is_empty()) {
        let shares: Vec<String> = r
            .shares
            .iter()
            .map(|(name, wall, cpu)| format!("{name} {wall:.2} s wall, {cpu:.2} s CPU"))
            .collect();
        let _ = writeln!(
            out,
            "{} [{}]: made in one pass, each charged the work they share and its own: {}",
            r.stage.name(),
            r.algorithm,
            shares.join("; ")
        );
    }
    for (extraction, cache) in &result.extract_cache {
        let _ = writeln!(
            out,
            "extraction cache [{}]: {} of {} distinct pages read from {}",
            extraction.name(),
            cache.hits,
            cache.hits + cache.misses,
            cache.path.display()
        );
    }
}

/// One row per algorithm x threshold x slice (`all` for the overall line),
/// with the counts and P/R/F of the three metric levels side by side.
pub fn results_frame(result: &ExperimentResult) -> PolarsResult<DataFrame> {
    let mut algorithm = Vec::new();
    let mut extract = Vec::new();
    let mut label = Vec::new();
    let mut score = Vec::new();
    let mut clustering = Vec::new();
    let mut threshold = Vec::new();
    let mut default = Vec::new();
    let mut slice = Vec::new();
    let mut largest_pages = Vec::new();
    let mut largest_clusters = Vec::new();
    let mut candidate_pairs = Vec::new();
    let mut candidate_recall = Vec::new();
    let mut stored_recall = Vec::new();
    let mut unsigned = Vec::new();
    let mut levels: [LevelColumns; 3] = Default::default();
    for a in &result.algorithms {
        for e in &a.evaluations {
            let lines = std::iter::once(("all".to_string(), None)).chain(
                result
                    .truth
                    .slice_names
                    .iter()
                    .enumerate()
                    .map(|(i, n)| (n.clone(), Some(i))),
            );
            for (name, index) in lines {
                algorithm.push(a.run.name.to_string());
                extract.push(a.extraction.name());
                label.push(a.run.label.clone());
                score.push(a.run.scale.name.to_string());
                clustering.push(a.clustering.name());
                threshold.push(e.threshold);
                default.push(e.threshold == a.threshold);
                slice.push(name);
                largest_pages.push(e.largest_cluster.pages);
                largest_clusters.push(e.largest_cluster.true_clusters);
                candidate_pairs.push(a.candidate_stage.detected);
                candidate_recall.push(a.candidate_stage.recall());
                stored_recall.push(a.candidates.recall());
                unsigned.push(match index {
                    None => a.run.unsigned.len() as u64,
                    Some(i) => a.unsigned_by_slice[i],
                });
                for (cols, level) in levels.iter_mut().zip(level_metrics(e)) {
                    cols.push(match index {
                        None => &level.overall,
                        Some(i) => &level.slices[i],
                    });
                }
            }
        }
    }
    let mut columns = vec![
        Column::new("algorithm".into(), algorithm),
        Column::new("extract".into(), extract),
        Column::new("label".into(), label),
        Column::new("score".into(), score),
        // How the cluster_* and page_* columns' clusters were made.
        Column::new("clustering".into(), clustering),
        Column::new("threshold".into(), threshold),
        Column::new("is_default".into(), default),
        Column::new("slice".into(), slice),
    ];
    for (prefix, cols) in ["pair", "cluster", "page"].iter().zip(levels) {
        columns.extend(cols.into_columns(prefix));
    }
    columns.push(Column::new("largest_cluster_pages".into(), largest_pages));
    columns.push(Column::new(
        "largest_cluster_true_clusters".into(),
        largest_clusters,
    ));
    // Per algorithm, repeated on its rows: what the candidate stage found
    // before scoring, and what was stored within the floor.
    columns.push(Column::new("candidate_pairs".into(), candidate_pairs));
    columns.push(Column::new("candidate_recall".into(), candidate_recall));
    columns.push(Column::new("stored_recall".into(), stored_recall));
    // Pages of the slice that got no signature (I-Match's short pages).
    columns.push(Column::new("unsigned_pages".into(), unsigned));
    // Only when a run sampled a big component, so that exact results keep
    // their columns: how far pair_detected and pair_correct may be from
    // the exact counts (95%, Hoeffding), per algorithm, 0 where exact.
    if result.algorithms.iter().any(|a| !a.run.sampled.is_empty()) {
        let error: Vec<u64> = result
            .algorithms
            .iter()
            .flat_map(|a| {
                let rows = a.evaluations.len() * (1 + result.truth.slice_names.len());
                std::iter::repeat_n(sampling_error(a), rows)
            })
            .collect();
        columns.push(Column::new("pair_sampling_error".into(), error));
    }
    DataFrame::new_infer_height(columns)
}

/// The pairs either side of an algorithm's pairwise counts within which
/// the exact counts lie with 95% confidence: the sum of its sampled
/// components' bounds, 0 when it sampled none.
fn sampling_error(a: &AlgorithmResult) -> u64 {
    a.run
        .sampled
        .iter()
        .map(|c| (c.error_bound() * c.pairs as f64).ceil() as u64)
        .sum()
}

fn level_metrics(e: &Evaluation) -> [&LevelMetrics; 3] {
    [&e.pairwise, &e.clustered, &e.page]
}

/// Counts and P/R/F of one metric level, as columns (`{prefix}_actual`,
/// ..., `{prefix}_f1`); the report's per-slice data uses it too.
#[derive(Default)]
pub(crate) struct LevelColumns {
    actual: Vec<u64>,
    detected: Vec<u64>,
    correct: Vec<u64>,
    precision: Vec<Option<f64>>,
    recall: Vec<Option<f64>>,
    f1: Vec<Option<f64>>,
}

impl LevelColumns {
    pub(crate) fn push(&mut self, c: &Counts) {
        let defined = |x: f64| (!x.is_nan()).then_some(x);
        self.actual.push(c.actual);
        self.detected.push(c.detected);
        self.correct.push(c.correct);
        self.precision.push(defined(c.precision()));
        self.recall.push(defined(c.recall()));
        self.f1.push(defined(c.f1()));
    }

    pub(crate) fn into_columns(self, prefix: &str) -> Vec<Column> {
        vec![
            Column::new(format!("{prefix}_actual").into(), self.actual),
            Column::new(format!("{prefix}_detected").into(), self.detected),
            Column::new(format!("{prefix}_correct").into(), self.correct),
            Column::new(format!("{prefix}_precision").into(), self.precision),
            Column::new(format!("{prefix}_recall").into(), self.recall),
            Column::new(format!("{prefix}_f1").into(), self.f1),
        ]
    }
}

/// One row per timed stage.
pub fn throughput_frame(result: &ExperimentResult) -> PolarsResult<DataFrame> {
    let t = &result.throughput;
    DataFrame::new_infer_height(vec![
        Column::new(
            "stage".into(),
            t.iter().map(|r| r.stage.name()).collect::<Vec<_>>(),
        ),
        Column::new(
            "algorithm".into(),
            t.iter().map(|r| r.algorithm.clone()).collect::<Vec<_>>(),
        ),
        Column::new(
            "pages".into(),
            t.iter().map(|r| r.pages as u64).collect::<Vec<_>>(),
        ),
        Column::new(
            "input_bytes".into(),
            t.iter().map(|r| r.input_bytes as u64).collect::<Vec<_>>(),
        ),
        Column::new(
            "wall_seconds".into(),
            t.iter().map(|r| r.wall_seconds).collect::<Vec<_>>(),
        ),
        Column::new(
            "cpu_seconds".into(),
            t.iter().map(|r| r.cpu_seconds).collect::<Vec<_>>(),
        ),
        Column::new(
            "pages_per_second".into(),
            t.iter().map(|r| r.pages_per_second()).collect::<Vec<_>>(),
        ),
        Column::new(
            "mb_per_second".into(),
            t.iter()
                .map(|r| r.megabytes_per_second())
                .collect::<Vec<_>>(),
        ),
        Column::new(
            "peak_memory_bytes".into(),
            t.iter()
                .map(|_| result.peak_memory_bytes)
                .collect::<Vec<_>>(),
        ),
    ])
}

/// A file format results can be written in.
pub trait Exporter {
    fn extension(&self) -> &'static str;
    fn write(&self, frame: &mut DataFrame, out: &mut Vec<u8>) -> PolarsResult<()>;
}

pub struct CsvExporter;

impl Exporter for CsvExporter {
    fn extension(&self) -> &'static str {
        "csv"
    }

    fn write(&self, frame: &mut DataFrame, out: &mut Vec<u8>) -> PolarsResult<()> {
        CsvWriter::new(out).finish(frame)
    }
}

pub struct ParquetExporter;

impl Exporter for ParquetExporter {
    fn extension(&self) -> &'static str {
        "parquet"
    }

    fn write(&self, frame: &mut DataFrame, out: &mut Vec<u8>) -> PolarsResult<()> {
        ParquetWriter::new(out).finish(frame).map(|_| ())
    }
}

/// Writing a result table (CSV and Parquet) failed.
#[derive(Debug, thiserror::Error)]
pub enum TableWriteError {
    #[error(transparent)]
    Io(#[from] FileError),
    #[error("building {what}: {source}")]
    Frame {
        what: &'static str,
        source: PolarsError,
    },
}

/// Writes `DIR/WHAT.csv` and `DIR/WHAT.parquet`; returns their paths.
pub fn write_frame(
    what: &'static str,
    frame: PolarsResult<DataFrame>,
    dir: &Path,
) -> Result<Vec<PathBuf>, TableWriteError> {
    let mut frame = frame.map_err(|source| TableWriteError::Frame { what, source })?;
    let exporters: [&dyn Exporter; 2] = [&CsvExporter, &ParquetExporter];
    let mut written = Vec::new();
    for exporter in exporters {
        let path = dir.join(format!("{what}.{}", exporter.extension()));
        let mut bytes = Vec::new();
        exporter
            .write(&mut frame, &mut bytes)
            .map_err(|source| TableWriteError::Frame { what, source })?;
        crate::util::io::write(&path, bytes)?;
        written.push(path);
    }
    Ok(written)
}

/// Writes `results.*` and `throughput.*` in every format, and `run.json`
/// for `neardup report` (with the paper's figures, if the experiment
/// quotes them); returns the paths.
pub fn write_reports(
    result: &ExperimentResult,
    paper: Option<&crate::experiment::paper::Paper>,
    dir: &Path,
) -> Result<Vec<PathBuf>, TableWriteError> {
    write_reports_judged(result, paper, None, dir)
}

/// [`write_reports`], with the run's figures over its judged pairs kept in
/// `run.json` for the report.
pub fn write_reports_judged(
    result: &ExperimentResult,
    paper: Option<&crate::experiment::paper::Paper>,
    judged: Option<(
        &crate::eval::judged::JudgedTruth,
        &[Vec<crate::eval::judged::JudgedEvaluation>],
    )>,
    dir: &Path,
) -> Result<Vec<PathBuf>, TableWriteError> {
    crate::util::io::create_dir_all(dir)?;
    let mut written = write_frame("results", results_frame(result), dir)?;
    written.extend(write_frame("throughput", throughput_frame(result), dir)?);
    let mut run = crate::experiment::stored::StoredRun::new(result, paper);
    if let Some((truth, evaluations)) = judged {
        run = run.with_judged(truth, evaluations);
    }
    let path = dir.join(super::stored::RUN_FILE);
    let text = serde_json::to_string_pretty(&run).expect("plain data serialises");
    crate::util::io::write(&path, text)?;
    written.push(path);
    Ok(written)
}
