//! Truth given as judged pairs instead of clusters, as real benchmarks
//! give it: a CSV pairs file of `a,b,label` rows after that header (page
//! ids and an integer grade; `#` starts a comment line), graded duplicates
//! from `positive_from` up. Metrics count the
//! judged pairs only; a judged pair an algorithm never scored (not a
//! candidate, or past the floor) is a miss when positive and a correct
//! rejection when negative, and is counted as such.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::choose::{best_by, Objective};
use super::Counts;
use crate::algo::{passes_gates, AlgorithmRun, Direction, ScoreScale};
use crate::util::fmt::clip;
use crate::util::io::FileError;

/// An experiment's `judged:` entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JudgedConfig {
    /// The pairs file, relative to the experiment file.
    pub pairs: String,
    /// The least grade that means duplicate.
    #[serde(default = "first_positive_grade")]
    pub positive_from: i64,
}

fn first_positive_grade() -> i64 {
    1
}

impl JudgedConfig {
    pub fn path(&self, experiment_path: &Path) -> PathBuf {
        experiment_path
            .parent()
            .unwrap_or(Path::new(""))
            .join(&self.pairs)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum JudgedError {
    #[error(transparent)]
    Io(#[from] FileError),
    #[error("{}:{line}: field `{field}`: {message}", path.display())]
    Invalid {
        path: PathBuf,
        line: usize,
        field: &'static str,
        message: String,
    },
}

/// One judged pair, `a < b` as page indices of the corpus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JudgedPair {
    pub a: u32,
    pub b: u32,
    pub grade: i64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct JudgedTruth {
    pub source: PathBuf,
    pub positive_from: i64,
    /// Sorted by (a, b).
    pub pairs: Vec<JudgedPair>,
    /// The grades present, ascending.
    pub grades: Vec<i64>,
}

const HEADER: [&str; 3] = ["a", "b", "label"];

impl JudgedTruth {
    pub fn read(path: &Path, ids: &[String], positive_from: i64) -> Result<Self, JudgedError> {
        let text = crate::util::io::read_to_string(path)?;
        Self::parse(path, &text, ids, positive_from)
    }

    /// `text` is CSV with the header `a,b,label`; ids are the corpus's page
    /// ids in page order.
    pub fn parse(
        path: &Path,
        text: &str,
        ids: &[String],
        positive_from: i64,
    ) -> Result<Self, JudgedError> {
        let invalid = |line: usize, field: &'static str, message: String| JudgedError::Invalid {
            path: path.to_path_buf(),
            line,
            field,
            message,
        };
        let index: HashMap<&str, u32> = ids
            .iter()
            .enumerate()
            .map(|(i, id)| (id.as_str(), i as u32))
            .collect();
        let mut lines = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l.trim()))
            .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
        let (header_line, header): (usize, Vec<&str>) = match lines.next() {
            Some((n, l)) => (n, l.split(',').map(str::trim).collect()),
            None => (1, Vec::new()),
        };
        if header != HEADER {
            return Err(invalid(
                header_line,
                "header",
                format!(
                    "the first line must be `a,b,label`, found `{}`",
                    clip(&header.join(","), 80)
                ),
            ));
        }
        // Where each pair was first given, to name both lines of a repeat.
        let mut seen: HashMap<(u32, u32), usize> = HashMap::new();
        let mut pairs = Vec::new();
        for (line, row) in lines {
            let fields: Vec<&str> = row.split(',').map(str::trim).collect();
            if fields.len() != 3 {
                return Err(invalid(
                    line,
                    HEADER[fields.len().min(2)],
                    format!("{} fields, expected 3 (a,b,label)", fields.len()),
                ));
            }
            let page = |k: usize| {
                index.get(fields[k]).copied().ok_or_else(|| {
                    invalid(
                        line,
                        HEADER[k],
                        format!("page id `{}` is not in the corpus", clip(fields[k], 80)),
                    )
                })
            };
            let (a, b) = (page(0)?, page(1)?);
            if a == b {
                return Err(invalid(
                    line,
                    "b",
                    format!(
                        "the pair judges page `{}` against itself",
                        clip(fields[0], 80)
                    ),
                ));
            }
            let grade: i64 = fields[2].parse().map_err(|_| {
                invalid(
                    line,
                    "label",
                    format!("`{}` is not an integer grade", clip(fields[2], 80)),
                )
            })?;
            let key = (a.min(b), a.max(b));
            if let Some(first) = seen.insert(key, line) {
                return Err(invalid(
                    line,
                    "b",
                    format!(
                        "the pair `{}`, `{}` was already judged on line {first}",
                        fields[0], fields[1]
                    ),
                ));
            }
            pairs.push(JudgedPair {
                a: key.0,
                b: key.1,
                grade,
            });
        }
        pairs.sort_unstable_by_key(|p| (p.a, p.b));
        let mut grades: Vec<i64> = pairs.iter().map(|p| p.grade).collect();
        grades.sort_unstable();
        grades.dedup();
        Ok(JudgedTruth {
            source: path.to_path_buf(),
            positive_from,
            pairs,
            grades,
        })
    }

    pub fn is_positive(&self, grade: i64) -> bool {
        grade >= self.positive_from
    }

    pub fn positives(&self) -> u64 {
        self.pairs
            .iter()
            .filter(|p| self.is_positive(p.grade))
            .count() as u64
    }

    /// The grade of pages `a`, `b` (either order), if judged.
    pub fn grade(&self, a: u32, b: u32) -> Option<i64> {
        let key = (a.min(b), a.max(b));
        self.pairs
            .binary_search_by_key(&key, |p| (p.a, p.b))
            .ok()
            .map(|k| self.pairs[k].grade)
    }
}

/// The judged pairs of one grade at one threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct GradeCounts {
    pub grade: i64,
    pub pairs: u64,
    /// Judged duplicates by the algorithm.
    pub detected: u64,
    /// Never scored by the algorithm.
    pub unscored: u64,
}

/// An algorithm at one threshold against the judged pairs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgedEvaluation {
    pub threshold: f64,
    /// `actual`: positive pairs; `detected`: judged pairs the algorithm
    /// calls duplicates; `correct`: positives among them.
    pub counts: Counts,
    /// Negative pairs the algorithm rejects, unscored ones included.
    pub true_negatives: u64,
    /// Positive pairs never scored: misses at every threshold.
    pub unscored_positives: u64,
    /// Negative pairs never scored: correct rejections at every threshold.
    pub unscored_negatives: u64,
    /// Per grade, ascending.
    pub grades: Vec<GradeCounts>,
}

/// The run's judgments on the judged pairs at each threshold (gates at
/// their configured values).
pub fn evaluate_judged(
    truth: &JudgedTruth,
    run: &AlgorithmRun,
    thresholds: &[f64],
) -> Vec<JudgedEvaluation> {
    JudgedCurve::of_run(truth, run, &run.gate_thresholds()).at_each(thresholds)
}

/// The judged pairs' metrics at any threshold, as a lookup: the judged
/// pairs the run scored (through the gates) sorted best first with running
/// counts, so that a threshold is a binary search. Judged pairs are few
/// (thousands), so the table is small; the workbench rebuilds it when a
/// gate moves, as it rebuilds its threshold curve.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgedCurve {
    scale: ScoreScale,
    grades: Vec<i64>,
    /// Scores of the judged pairs passing the gates, best first.
    scores: Vec<f32>,
    /// After the first k of `scores`: positives among them (index k).
    correct: Vec<u64>,
    /// After the first k of `scores`: per grade, how many (index k * grades + g).
    by_grade: Vec<u64>,
    actual: u64,
    negatives: u64,
    /// Per grade: judged pairs, and those never scored.
    pairs: Vec<u64>,
    unscored: Vec<u64>,
    unscored_positives: u64,
    unscored_negatives: u64,
}

impl JudgedCurve {
    /// The table for `run` with its gates at `gate_thresholds`.
    pub fn of_run(truth: &JudgedTruth, run: &AlgorithmRun, gate_thresholds: &[f64]) -> Self {
        let n = truth.grades.len();
        let grade_index = |g: i64| truth.grades.binary_search(&g).expect("a listed grade");
        let mut pairs = vec![0; n];
        let mut unscored = vec![0; n];
        let (mut unscored_positives, mut unscored_negatives) = (0, 0);
        // (score, grade index, positive) of the pairs the gates let through.
        let mut scored: Vec<(f32, usize, bool)> = Vec::new();
        for p in &truth.pairs {
            let g = grade_index(p.grade);
            let positive = truth.is_positive(p.grade);
            pairs[g] += 1;
            match run.lookup(p.a, p.b) {
                None => {
                    unscored[g] += 1;
                    if positive {
                        unscored_positives += 1;
                    } else {
                        unscored_negatives += 1;
                    }
                }
                // A score that is not a number passes no threshold.
                Some((score, gates)) => {
                    if !score.is_nan() && gates.is_none_or(|s| passes_gates(&s, gate_thresholds)) {
                        scored.push((score, g, positive));
                    }
                }
            }
        }
        match run.scale.direction {
            Direction::AtLeast => scored.sort_by(|x, y| y.0.total_cmp(&x.0)),
            Direction::AtMost => scored.sort_by(|x, y| x.0.total_cmp(&y.0)),
        }
        let mut correct = vec![0u64];
        let mut by_grade = vec![0u64; n];
        for (k, &(_, g, positive)) in scored.iter().enumerate() {
            correct.push(correct[k] + u64::from(positive));
            let row = by_grade[k * n..(k + 1) * n].to_vec();
            by_grade.extend(row);
            by_grade[(k + 1) * n + g] += 1;
        }
        let actual = truth.positives();
        JudgedCurve {
            scale: run.scale.clone(),
            grades: truth.grades.clone(),
            scores: scored.iter().map(|s| s.0).collect(),
            correct,
            by_grade,
            actual,
            negatives: truth.pairs.len() as u64 - actual,
            pairs,
            unscored,
            unscored_positives,
            unscored_negatives,
        }
    }

    /// The judged pairs' metrics at `threshold`.
    pub fn at(&self, threshold: f64) -> JudgedEvaluation {
        let k = self
            .scores
            .partition_point(|&s| self.scale.passes(s, threshold));
        let n = self.grades.len();
        let counts = Counts {
            actual: self.actual,
            detected: k as u64,
            correct: self.correct[k],
        };
        JudgedEvaluation {
            threshold,
            true_negatives: self.negatives - (counts.detected - counts.correct),
            unscored_positives: self.unscored_positives,
            unscored_negatives: self.unscored_negatives,
            grades: (0..n)
                .map(|g| GradeCounts {
                    grade: self.grades[g],
                    pairs: self.pairs[g],
                    detected: self.by_grade[k * n + g],
                    unscored: self.unscored[g],
                })
                .collect(),
            counts,
        }
    }

    pub fn at_each(&self, thresholds: &[f64]) -> Vec<JudgedEvaluation> {
        thresholds.iter().map(|&t| self.at(t)).collect()
    }
}

/// Where `objective` is best over the judged pairs among `evaluations`,
/// ties to the strictest threshold as everywhere; both F objectives are
/// the judged pairs' F1. `None` when none qualifies.
pub fn choose_judged<'a>(
    evaluations: &'a [JudgedEvaluation],
    scale: &ScoreScale,
    objective: Objective,
) -> Option<&'a JudgedEvaluation> {
    best_by(
        evaluations,
        scale,
        |e| e.threshold,
        |e| objective.value_of_pairs(&e.counts),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids() -> Vec<String> {
        ["p0", "p1", "p2", "p3"].map(String::from).to_vec()
    }

    fn parse(text: &str) -> Result<JudgedTruth, String> {
        JudgedTruth::parse(Path::new("pairs.csv"), text, &ids(), 1).map_err(|e| e.to_string())
    }

    #[test]
    fn pairs_are_read_in_either_order_with_their_grades() {
        let t =
            parse("# judged by hand\na,b,label\np1,p0,3\np2,p3,0\n\n# more\np0,p2,1\n").unwrap();
        assert_eq!(t.grades, [0, 1, 3]);
        assert_eq!(t.positives(), 2);
        assert_eq!(t.grade(0, 1), Some(3));
        assert_eq!(t.grade(3, 2), Some(0));
        assert_eq!(t.grade(1, 2), None);
    }

    #[test]
    fn malformed_pairs_name_file_line_and_field() {
        for (text, says) in [
            ("a,b\np0,p1\n", "pairs.csv:1: field `header`"),
            ("# ids\nid,b,label\n", "pairs.csv:2: field `header`"),
            (
                "a,b,label\np0,p9,1\n",
                "pairs.csv:2: field `b`: page id `p9` is not",
            ),
            (
                "a,b,label\np7,p1,1\n",
                "pairs.csv:2: field `a`: page id `p7`",
            ),
            (
                "a,b,label\np0,p1,1\np1,p0,2\n",
                "pairs.csv:3: field `b`: the pair `p1`, `p0` was already judged on line 2",
            ),
            (
                "a,b,label\np2,p2,1\n",
                "pairs.csv:2: field `b`: the pair judges page `p2` against itself",
            ),
            (
                "a,b,label\np0,p1,high\n",
                "pairs.csv:2: field `label`: `high` is not an integer",
            ),
            ("a,b,label\np0,p1,1.5\n", "pairs.csv:2: field `label`"),
            ("a,b,label\np0,p1\n", "pairs.csv:2: field `label`: 2 fields"),
            (
                "a,b,label\np0,p1,1,x\n",
                "pairs.csv:2: field `label`: 4 fields",
            ),
        ] {
            let e = parse(text).unwrap_err();
            assert!(e.contains(says), "{text:?}: {e}");
        }
    }
}
