//! The run's summary: one line per algorithm run, as `neardup run` prints
//! it (and as JSON with `--json`). Per-slice detail is in the verbose
//! table and in report.md.

use std::fmt::Write as _;

use serde::Serialize;

use super::config::format_threshold;
use super::outcome::{AlgorithmResult, ExperimentResult};
use crate::eval::choose::{choose, Objective};
use crate::eval::clustering::Clustering;
use crate::eval::Truth;
use crate::util::fmt::{percent, threshold};

/// P, R and F1 with the counts behind them.
#[derive(Debug, Clone, Serialize)]
pub struct Scores {
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
    pub true_positives: u64,
    pub false_positives: u64,
    pub false_negatives: u64,
}

impl From<&crate::eval::Counts> for Scores {
    fn from(c: &crate::eval::Counts) -> Self {
        Scores {
            precision: c.precision(),
            recall: c.recall(),
            f1: c.f1(),
            true_positives: c.correct,
            false_positives: c.detected - c.correct,
            false_negatives: c.actual - c.correct,
        }
    }
}

/// Where an objective is best over every threshold the stored pairs
/// answer (as `neardup tune` and the workbench choose), not only the grid.
#[derive(Debug, Clone, Serialize)]
pub struct Best {
    pub objective: String,
    pub threshold: Option<f64>,
    pub value: Option<f64>,
}

/// Clustered F1 with clusters made by one method.
#[derive(Debug, Clone, Serialize)]
pub struct ClusteringFigure {
    pub clustering: Clustering,
    /// At the run's threshold.
    pub clustered_f1: f64,
    /// The best over every threshold the stored pairs answer, and where.
    pub best_threshold: Option<f64>,
    pub best_clustered_f1: Option<f64>,
}

/// Clustered F1 per clustering method for one algorithm run, at its
/// threshold and at each method's best threshold: what `run` prints and
/// `tune --objective clustered_f1` chooses among.
pub fn clustering_figures(a: &AlgorithmResult, truth: &Truth) -> Vec<ClusteringFigure> {
    Clustering::ALL
        .iter()
        .map(|&method| {
            let curve = a.curve_clustered_by(truth, method);
            let at = curve
                .iter()
                .find(|e| e.threshold == a.threshold)
                .map_or(f64::NAN, |e| e.clustered.overall.f1());
            let best = choose(&curve, &a.run.scale, Objective::ClusteredF1);
            ClusteringFigure {
                clustering: method,
                clustered_f1: at,
                best_threshold: best.map(|e| e.threshold),
                best_clustered_f1: best.and_then(|e| Objective::ClusteredF1.value(e)),
            }
        })
        .collect()
}

#[derive(Debug, Clone, Serialize)]
pub struct SummaryRow {
    pub algorithm: String,
    pub extract: String,
    pub score: String,
    pub threshold: f64,
    /// How clusters were made for `clustered_f1`, `page_f1` and `best`.
    pub clustering: Clustering,
    /// Clustered F1 under every clustering method.
    pub by_clustering: Vec<ClusteringFigure>,
    pub pairwise: Scores,
    pub clustered_f1: f64,
    pub page_f1: f64,
    /// Best pairwise F, best clustered F, most recall at precision 0.99,
    /// over every threshold the stored pairs answer.
    pub best: Vec<Best>,
    /// True pairs the candidate stage found: no threshold recalls more.
    pub candidate_recall: f64,
    /// True pairs stored within the floor.
    pub stored_recall: f64,
    /// Pages per second from pages to judged pairs, the shared stages
    /// (extraction, tokenising) included.
    pub pages_per_cpu_second: f64,
    pub pages_per_wall_second: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub experiment: String,
    pub corpus: String,
    pub pages: usize,
    pub true_pairs: u64,
    pub algorithms: Vec<SummaryRow>,
    pub wall_seconds: f64,
    pub cpu_seconds: f64,
    pub peak_memory_bytes: Option<u64>,
}

/// The objectives the summary and the workbench's jump keys report.
const OBJECTIVES: [Objective; 3] = [
    Objective::PairwiseF1,
    Objective::ClusteredF1,
    Objective::RecallAtPrecision(0.99),
];

fn row(a: &AlgorithmResult, truth: &Truth, pages: usize) -> SummaryRow {
    let e = a.at_threshold();
    let curve = a.full_curve(truth);
    let per_second = |s: f64| if s > 0.0 { pages as f64 / s } else { f64::NAN };
    SummaryRow {
        algorithm: a.run.label.clone(),
        extract: a.extraction.name().to_string(),
        score: a.run.scale.name.to_string(),
        threshold: a.threshold,
        clustering: a.clustering,
        by_clustering: clustering_figures(a, truth),
        pairwise: Scores::from(&e.pairwise.overall),
        clustered_f1: e.clustered.overall.f1(),
        page_f1: e.page.overall.f1(),
        best: OBJECTIVES
            .iter()
            .map(|&o| {
                let chosen = choose(&curve, &a.run.scale, o);
                Best {
                    objective: o.to_string(),
                    threshold: chosen.map(|e| e.threshold),
                    value: chosen.and_then(|e| o.value(e)),
                }
            })
            .collect(),
        candidate_recall: a.candidate_stage.recall(),
        stored_recall: a.candidates.recall(),
        pages_per_cpu_second: per_second(a.end_to_end.cpu_seconds),
        pages_per_wall_second: per_second(a.end_to_end.wall_seconds),
    }
}

pub fn summarize(result: &ExperimentResult) -> Summary {
    Summary {
        experiment: result.name.clone(),
        corpus: result.corpus_source.clone(),
        pages: result.pages,
        true_pairs: result.truth.true_pairs(),
        algorithms: result
            .algorithms
            .iter()
            .map(|a| row(a, &result.truth, result.pages))
            .collect(),
        wall_seconds: result.wall_seconds,
        cpu_seconds: result.cpu_seconds,
        peak_memory_bytes: result.peak_memory_bytes,
    }
}

/// Clustered F1 per clustering method: at the threshold, then the best
/// over every threshold @ where; `*` marks the method the run uses.
fn clustering_table(out: &mut String, summary: &Summary, names: &[String], width: usize) {
    let _ = write!(
        out,
        "\nclustered F1 by clustering method: at the threshold | best @ its threshold (* in use)\n{:<width$}",
        "algorithm"
    );
    for method in Clustering::ALL {
        let _ = write!(out, " {:>19}", method.name());
    }
    out.push('\n');
    for (r, name) in summary.algorithms.iter().zip(names) {
        let _ = write!(out, "{name:<width$}");
        for f in &r.by_clustering {
            let best = match (f.best_threshold, f.best_clustered_f1) {
                (Some(t), Some(v)) => format!("{}@{}", percent(v), threshold(t)),
                _ => "-".into(),
            };
            let mark = if f.clustering == r.clustering {
                "*"
            } else {
                " "
            };
            let _ = write!(out, " {mark}{:>6}|{:>11}", percent(f.clustered_f1), best);
        }
        out.push('\n');
    }
}

fn rate(x: f64) -> String {
    if !x.is_finite() {
        "-".into()
    } else if x >= 10_000.0 {
        format!("{:.0}k", x / 1e3)
    } else {
        format!("{x:.0}")
    }
}

/// The summary table: one line per algorithm run.
pub fn render_summary_table(result: &ExperimentResult) -> String {
    let summary = summarize(result);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}: {} pages of {}, {} true duplicate pairs",
        summary.experiment, summary.pages, summary.corpus, summary.true_pairs
    );
    let names: Vec<String> = result
        .algorithms
        .iter()
        .map(|a| {
            // `~`: the pairwise figures rest on a sample (see below).
            let sampled = if a.run.sampled.is_empty() { "" } else { " ~" };
            format!("{} [{}]{sampled}", a.run.label, a.extraction.name())
        })
        .collect();
    let width = names
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(9)
        .max(9);
    let _ = writeln!(
        out,
        "\n{:<width$} {:>9} {:>6} {:>6} {:>6} {:>7} {:>6} {:>11} {:>11} {:>11} {:>7} {:>14}",
        "algorithm",
        "threshold",
        "P%",
        "R%",
        "F1%",
        "clus F1",
        "page F",
        "best F1",
        "best clus",
        "R@P>=.99",
        "cand R",
        "pages/s cpu|wall"
    );
    for ((a, r), name) in result
        .algorithms
        .iter()
        .zip(&summary.algorithms)
        .zip(&names)
    {
        // Each objective's best value and where: `88.80@0.29`.
        let best = |k: usize| match (r.best[k].threshold, r.best[k].value) {
            (Some(t), Some(v)) => format!("{}@{}", percent(v), threshold(t)),
            _ => "-".into(),
        };
        let _ = writeln!(
            out,
            "{name:<width$} {:>9} {:>6} {:>6} {:>6} {:>7} {:>6} {:>11} {:>11} {:>11} {:>7} {:>14}",
            format_threshold(&a.run.scale, r.threshold),
            percent(r.pairwise.precision),
            percent(r.pairwise.recall),
            percent(r.pairwise.f1),
            percent(r.clustered_f1),
            percent(r.page_f1),
            best(0),
            best(1),
            best(2),
            format!(
                "{}{}",
                percent(r.candidate_recall),
                // Recall already at the ceiling: no looser threshold adds any.
                if r.pairwise.recall >= r.candidate_recall - 1e-9 && r.candidate_recall < 0.9999 {
                    "!"
                } else {
                    " "
                }
            ),
            format!(
                "{}|{}",
                rate(r.pages_per_cpu_second),
                rate(r.pages_per_wall_second)
            ),
        );
    }
    clustering_table(&mut out, &summary, &names, width);
    for (a, name) in result.algorithms.iter().zip(&names) {
        for component in &a.run.sampled {
            let _ = writeln!(out, "{name}: {}", component.note());
        }
    }
    let _ = writeln!(
        out,
        "\npairwise P/R/F1 at the threshold; clus F1: clustered; page F: seed 001's page level;\n\
         over every threshold (not only the grid; as `neardup tune` chooses): the best pairwise F1,\n\
         the best clustered F1 and the most pairwise recall at precision >= 0.99, each @ its threshold; cand R: true pairs among the candidates, the most recall any\n\
         threshold can reach (! where the threshold already reaches it);\n\
         pages/s end to end (extraction and tokenising included). --verbose: per-slice tables."
    );
    out
}
