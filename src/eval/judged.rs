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

use super::Counts;
use crate::algo::{passes_gates, AlgorithmRun};

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
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
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
        let text = std::fs::read_to_string(path).map_err(|source| JudgedError::Io {
            path: path.to_path_buf(),
            source,
        })?;
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
                    header.join(",")
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
                        format!("page id `{}` is not in the corpus", fields[k]),
                    )
                })
            };
            let (a, b) = (page(0)?, page(1)?);
            if a == b {
                return Err(invalid(
                    line,
                    "b",
                    format!("the pair judges page `{}` against itself", fields[0]),
                ));
            }
            let grade: i64 = fields[2].parse().map_err(|_| {
                invalid(
                    line,
                    "label",
                    format!("`{}` is not an integer grade", fields[2]),
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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GradeCounts {
    pub grade: i64,
    pub pairs: u64,
    /// Judged duplicates by the algorithm.
    pub detected: u64,
    /// Never scored by the algorithm.
    pub unscored: u64,
}

/// An algorithm at one threshold against the judged pairs.
#[derive(Debug, Clone, PartialEq)]
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
    let gate_thresholds = run.gate_thresholds();
    // Each judged pair's stored score, when it passes the gates; NaN when
    // never scored, None when scored but gated out.
    let scores: Vec<Option<f32>> = truth
        .pairs
        .iter()
        .map(|p| match run.lookup(p.a, p.b) {
            None => Some(f32::NAN),
            Some((score, gates)) => gates
                .is_none_or(|g| passes_gates(&g, &gate_thresholds))
                .then_some(score),
        })
        .collect();
    let unscored = |positive: bool| {
        truth
            .pairs
            .iter()
            .zip(&scores)
            .filter(|(p, s)| truth.is_positive(p.grade) == positive && s.is_some_and(f32::is_nan))
            .count() as u64
    };
    let (unscored_positives, unscored_negatives) = (unscored(true), unscored(false));
    thresholds
        .iter()
        .map(|&threshold| {
            let mut counts = Counts::default();
            let mut true_negatives = 0;
            let mut grades: Vec<GradeCounts> = truth
                .grades
                .iter()
                .map(|&grade| GradeCounts {
                    grade,
                    pairs: 0,
                    detected: 0,
                    unscored: 0,
                })
                .collect();
            for (p, score) in truth.pairs.iter().zip(&scores) {
                let called = score.is_some_and(|s| !s.is_nan() && run.scale.passes(s, threshold));
                let positive = truth.is_positive(p.grade);
                counts.actual += u64::from(positive);
                counts.detected += u64::from(called);
                counts.correct += u64::from(called && positive);
                true_negatives += u64::from(!called && !positive);
                let g = truth
                    .grades
                    .binary_search(&p.grade)
                    .expect("a listed grade");
                grades[g].pairs += 1;
                grades[g].detected += u64::from(called);
                grades[g].unscored += u64::from(score.is_some_and(f32::is_nan));
            }
            JudgedEvaluation {
                threshold,
                counts,
                true_negatives,
                unscored_positives,
                unscored_negatives,
                grades,
            }
        })
        .collect()
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
