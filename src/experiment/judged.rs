//! An experiment's judged pairs (`judged:`): each algorithm scored over
//! them at every threshold of its grid, printed at its threshold with a
//! line per grade, and written as `judged.csv` / `judged.parquet` (the PR
//! curve is the `threshold`, `precision`, `recall` columns of the `all`
//! rows).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use polars::prelude::*;

use super::config::format_threshold;
use super::outcome::ExperimentResult;
use super::results::{write_frame, TableWriteError};
use crate::eval::judged::{evaluate_judged, JudgedEvaluation, JudgedTruth};
use crate::util::fmt::percent_sign;

/// Per algorithm (in the result's order), one evaluation per threshold of
/// its grid.
pub fn judge(result: &ExperimentResult, truth: &JudgedTruth) -> Vec<Vec<JudgedEvaluation>> {
    result
        .algorithms
        .iter()
        .map(|a| {
            let grid: Vec<f64> = a.evaluations.iter().map(|e| e.threshold).collect();
            evaluate_judged(truth, &a.run, &grid)
        })
        .collect()
}

/// The printed table: per algorithm at its threshold, P/R/F over the
/// judged pairs, the unscored pairs, and a line per grade.
pub fn render_judged(
    result: &ExperimentResult,
    truth: &JudgedTruth,
    judged: &[Vec<JudgedEvaluation>],
) -> String {
    let mut out = String::new();
    let positives = truth.positives();
    let _ = writeln!(
        out,
        "\njudged pairs {}: {} pairs, {positives} duplicates (grade >= {}), {} not",
        truth.source.display(),
        truth.pairs.len(),
        truth.positive_from,
        truth.pairs.len() as u64 - positives,
    );
    for (a, evaluations) in result.algorithms.iter().zip(judged) {
        let Some(e) = evaluations.iter().find(|e| e.threshold == a.threshold) else {
            continue;
        };
        let c = &e.counts;
        let _ = writeln!(
            out,
            "{} [{}] {} {}: P {} R {} F {}  TP {} FP {} FN {} TN {}; never scored: {} duplicates (misses), {} others (rejections)",
            a.run.label,
            a.extraction.name(),
            a.run.scale.name,
            format_threshold(&a.run.scale, a.threshold),
            percent_sign(c.precision()),
            percent_sign(c.recall()),
            percent_sign(c.f1()),
            c.correct,
            c.detected - c.correct,
            c.actual - c.correct,
            e.true_negatives,
            e.unscored_positives,
            e.unscored_negatives,
        );
        for g in &e.grades {
            let _ =
                writeln!(
                out,
                "  grade {:>3} {}: {:>6} pairs, {:>6} judged duplicates ({}), {:>6} never scored",
                g.grade,
                // Each row is its grade alone, not that grade and above.
                if truth.is_positive(g.grade) { "(duplicate)" } else { "(not)      " },
                g.pairs,
                g.detected,
                percent_sign(g.detected as f64 / g.pairs as f64),
                g.unscored,
            );
        }
    }
    out
}

/// One row per algorithm x threshold x grade (`all` first).
fn judged_frame(
    result: &ExperimentResult,
    judged: &[Vec<JudgedEvaluation>],
) -> PolarsResult<DataFrame> {
    let mut label = Vec::new();
    let mut extract = Vec::new();
    let mut score = Vec::new();
    let mut threshold = Vec::new();
    let mut default = Vec::new();
    let mut grade: Vec<Option<i64>> = Vec::new();
    let mut pairs = Vec::new();
    let mut detected = Vec::new();
    let mut correct: Vec<Option<u64>> = Vec::new();
    let mut precision: Vec<Option<f64>> = Vec::new();
    let mut recall: Vec<Option<f64>> = Vec::new();
    let mut f1: Vec<Option<f64>> = Vec::new();
    let mut unscored = Vec::new();
    let defined = |x: f64| (!x.is_nan()).then_some(x);
    for (a, evaluations) in result.algorithms.iter().zip(judged) {
        for e in evaluations {
            let mut row = |g: Option<i64>, n: u64, d: u64, u: u64| {
                label.push(a.run.label.clone());
                extract.push(a.extraction.name());
                score.push(a.run.scale.name);
                threshold.push(e.threshold);
                default.push(e.threshold == a.threshold);
                grade.push(g);
                pairs.push(n);
                detected.push(d);
                unscored.push(u);
            };
            let c = &e.counts;
            let total = e.grades.iter().map(|g| g.pairs).sum();
            row(
                None,
                total,
                c.detected,
                e.unscored_positives + e.unscored_negatives,
            );
            correct.push(Some(c.correct));
            precision.push(defined(c.precision()));
            recall.push(defined(c.recall()));
            f1.push(defined(c.f1()));
            for g in &e.grades {
                row(Some(g.grade), g.pairs, g.detected, g.unscored);
                correct.push(None);
                precision.push(None);
                recall.push(None);
                f1.push(None);
            }
        }
    }
    DataFrame::new_infer_height(vec![
        Column::new("label".into(), label),
        Column::new("extract".into(), extract),
        Column::new("score".into(), score),
        Column::new("threshold".into(), threshold),
        Column::new("is_default".into(), default),
        Column::new("grade".into(), grade),
        Column::new("pairs".into(), pairs),
        Column::new("detected".into(), detected),
        Column::new("correct".into(), correct),
        Column::new("precision".into(), precision),
        Column::new("recall".into(), recall),
        Column::new("f1".into(), f1),
        Column::new("unscored".into(), unscored),
    ])
}

/// Writes `judged.csv` and `judged.parquet` into `dir`.
pub fn write_judged(
    result: &ExperimentResult,
    judged: &[Vec<JudgedEvaluation>],
    dir: &Path,
) -> Result<Vec<PathBuf>, TableWriteError> {
    write_frame("judged", judged_frame(result, judged), dir)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::{load_corpus, run_experiment, ExperimentConfig};

    const EXPERIMENT: &str =
        "corpus: demo\njudged:\n  pairs: ../datasets/judged/demo_pairs.csv\n  \
        positive_from: 2\nalgorithms:\n  - {type: jaccard, floor: 0.2}\n  - {type: minhash}\n  \
        - {type: simhash, candidates: all_pairs, floor: 10}\n";

    #[test]
    fn the_demo_judged_pairs_run_end_to_end() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments/x.yaml");
        let config = ExperimentConfig::parse(&path, EXPERIMENT).unwrap();
        let corpus = load_corpus(&config, &path).unwrap();
        let result = run_experiment("judged", &config, &corpus, &Vec::new());
        let ids: Vec<String> = corpus.pages.iter().map(|p| p.id.clone()).collect();
        let spec = config.judged.as_ref().unwrap();
        let truth = JudgedTruth::read(&spec.path(&path), &ids, spec.positive_from).unwrap();
        assert_eq!(truth.pairs.len(), 351);
        assert_eq!(truth.grades, [0, 1, 2, 3]);
        let judged = judge(&result, &truth);
        for (a, evaluations) in result.algorithms.iter().zip(&judged) {
            // Against the pairs the algorithm listed, counted another way.
            let listed = a.run.listed_pairs();
            for e in evaluations {
                let called = |x: u32, y: u32| {
                    listed.iter().any(|p| {
                        (p.a, p.b) == (x.min(y), x.max(y))
                            && a.run.scale.passes(p.score, e.threshold)
                    })
                };
                let mut expected = crate::eval::Counts::default();
                let mut never = 0;
                for p in &truth.pairs {
                    let positive = p.grade >= 2;
                    let c = called(p.a, p.b);
                    expected.actual += u64::from(positive);
                    expected.detected += u64::from(c);
                    expected.correct += u64::from(c && positive);
                    never += u64::from(!listed.iter().any(|q| (q.a, q.b) == (p.a, p.b)));
                }
                assert_eq!(e.counts, expected, "{} at {}", a.run.label, e.threshold);
                assert_eq!(e.unscored_positives + e.unscored_negatives, never);
                assert_eq!(
                    e.grades.iter().map(|g| g.detected).sum::<u64>(),
                    e.counts.detected
                );
                assert_eq!(
                    e.counts.actual - e.counts.correct + e.counts.detected - e.counts.correct
                        + e.counts.correct
                        + e.true_negatives,
                    truth.pairs.len() as u64
                );
            }
            let at = evaluations
                .iter()
                .find(|e| e.threshold == a.threshold)
                .unwrap();
            assert!(at.counts.correct > 0, "{}", a.run.label);
        }
        // Grade 0 pairs (other stories) are never all called duplicates.
        let text = render_judged(&result, &truth, &judged);
        assert!(
            text.contains("351 pairs, 148 duplicates (grade >= 2)"),
            "{text}"
        );
        assert!(text.contains("grade   0 "), "{text}");
        let frame = judged_frame(&result, &judged).unwrap();
        let rows: usize = judged.iter().map(|e| e.len() * 5).sum();
        assert_eq!(frame.height(), rows);
    }
}
