//! `run.json`: what `neardup run` stores for reports, so that charts are
//! drawn from stored results without running anything again.

use serde::{Deserialize, Serialize};

use super::paper::Paper;
use crate::algo::{Direction, ScoreScale};
use crate::eval::choose::Objective;
use crate::eval::clustering::Clustering;
use crate::eval::judged::{JudgedEvaluation, JudgedTruth};
use crate::eval::{grouped_pair_recall, Counts, Evaluation, LevelMetrics, Truth};
use crate::experiment::{AlgorithmResult, ExperimentResult};

/// Bumped when the layout changes, so old files are refused clearly.
/// The file a run directory's results are stored in.
pub const RUN_FILE: &str = "run.json";

pub const STORED_RUN_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredRun {
    pub version: u32,
    pub experiment: String,
    pub corpus: String,
    pub pages: usize,
    pub input_bytes: usize,
    pub wall_seconds: f64,
    pub cpu_seconds: f64,
    pub peak_memory_bytes: Option<u64>,
    pub slices: Vec<String>,
    pub true_pairs: u64,
    pub algorithms: Vec<StoredAlgorithm>,
    pub throughput: Vec<StoredStage>,
    pub paper: Option<Paper>,
    /// The judged pairs, when the corpus gives its truth so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judged: Option<StoredJudged>,
    /// What `boilerplate: site` removed, per extraction and group (absent
    /// in runs without it, and in files written before it was stored).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub boilerplate: Vec<StoredBoilerplate>,
}

/// What the judged pairs are: the file, the least positive grade, how
/// many pairs and positives, the grades present.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredJudged {
    pub source: String,
    pub positive_from: i64,
    pub pairs: u64,
    pub positives: u64,
    pub grades: Vec<i64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredBoilerplate {
    pub extraction: String,
    #[serde(flatten)]
    pub group: crate::extract::boilerplate::GroupReport,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredScale {
    pub name: String,
    /// `at_least` (a similarity) or `at_most` (a distance).
    pub direction: String,
    pub min: f64,
    pub max: f64,
    pub floor: f64,
}

impl StoredScale {
    pub fn is_distance(&self) -> bool {
        self.direction == "at_most"
    }
}

/// (actual, detected, correct).
pub type StoredCounts = [u64; 3];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredLevel {
    pub overall: StoredCounts,
    pub slices: Vec<StoredCounts>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredEvaluation {
    pub threshold: f64,
    pub pairwise: StoredLevel,
    pub clustered: StoredLevel,
    pub page: StoredLevel,
}

/// Stored pairs with a score in `[score, score + width)`, by label.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoreBin {
    pub score: f64,
    pub true_pairs: u64,
    pub false_pairs: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredAlgorithm {
    pub name: String,
    pub label: String,
    pub extraction: String,
    pub scale: StoredScale,
    pub threshold: f64,
    /// (bands, rows, min_shared) of an LSH candidate search.
    pub banding: Option<[usize; 3]>,
    pub notes: Vec<String>,
    pub candidate_pairs: u64,
    pub stored_pairs: usize,
    pub evaluations: Vec<StoredEvaluation>,
    /// The best pairwise F over every threshold the stored pairs answer,
    /// which the grid may step over (absent in files written before it
    /// was stored: reports then fall back to the grid and say so).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best_f: Option<StoredEvaluation>,
    /// How passing pairs became clusters for the clustered and page
    /// levels (connected components in files written before it was
    /// stored).
    #[serde(default)]
    pub clustering: Clustering,
    /// Clustered F1 under every clustering method at every threshold the
    /// stored pairs answer (absent in files written before it was
    /// stored).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub by_clustering: Vec<StoredClusteredCurve>,
    /// Width of the histogram's bins.
    pub bin_width: f64,
    pub histogram: Vec<ScoreBin>,
    /// Over the judged pairs at each threshold of `evaluations`, when the
    /// run has judged pairs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub judged: Vec<JudgedEvaluation>,
}

/// One clustering method's clustered F1 against the threshold (`None`
/// where it is undefined: nothing predicted).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredClusteredCurve {
    pub clustering: Clustering,
    pub thresholds: Vec<f64>,
    pub clustered_f1: Vec<Option<f64>>,
}

fn clustered_curves(a: &AlgorithmResult, truth: &Truth) -> Vec<StoredClusteredCurve> {
    Clustering::ALL
        .iter()
        .map(|&method| {
            let curve = a.curve_clustered_by(truth, method);
            StoredClusteredCurve {
                clustering: method,
                thresholds: curve.iter().map(|e| e.threshold).collect(),
                clustered_f1: curve
                    .iter()
                    .map(|e| Some(e.clustered.overall.f1()).filter(|f| f.is_finite()))
                    .collect(),
            }
        })
        .collect()
}

impl StoredAlgorithm {
    /// `label [extraction]`: unique within a run.
    pub fn key(&self) -> String {
        format!("{} [{}]", self.label, self.extraction)
    }

    pub fn at(&self, threshold: f64) -> Option<&StoredEvaluation> {
        self.evaluations
            .iter()
            .find(|e| (e.threshold - threshold).abs() < 1e-9)
    }

    pub fn at_threshold(&self) -> Option<&StoredEvaluation> {
        self.at(self.threshold)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredStage {
    pub stage: String,
    pub algorithm: String,
    pub wall_seconds: f64,
    pub cpu_seconds: f64,
    pub pages_per_second: f64,
    pub mb_per_second: f64,
    /// For a stage that made several extractions in one pass: what each
    /// one is charged, as (extraction, wall seconds, CPU seconds).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shares: Vec<(String, f64, f64)>,
}

impl StoredStage {
    /// This stage as `extraction` is charged it: the whole stage when it
    /// made that extraction alone, its share when it made several, `None`
    /// when it did not make it.
    pub fn charged_to(&self, extraction: &str) -> Option<StoredStage> {
        if self.algorithm == extraction {
            return Some(self.clone());
        }
        let &(_, wall, cpu) = self.shares.iter().find(|s| s.0 == extraction)?;
        Some(StoredStage {
            algorithm: extraction.to_string(),
            wall_seconds: wall,
            cpu_seconds: cpu,
            pages_per_second: self.pages_per_second * self.wall_seconds / wall.max(1e-9),
            mb_per_second: self.mb_per_second * self.wall_seconds / wall.max(1e-9),
            shares: Vec::new(),
            ..self.clone()
        })
    }
}

fn counts(c: &Counts) -> StoredCounts {
    [c.actual, c.detected, c.correct]
}

pub fn to_counts(c: &StoredCounts) -> Counts {
    Counts {
        actual: c[0],
        detected: c[1],
        correct: c[2],
    }
}

fn level(l: &LevelMetrics) -> StoredLevel {
    StoredLevel {
        overall: counts(&l.overall),
        slices: l.slices.iter().map(counts).collect(),
    }
}

pub fn stored_evaluation(e: &Evaluation) -> StoredEvaluation {
    StoredEvaluation {
        threshold: e.threshold,
        pairwise: level(&e.pairwise),
        clustered: level(&e.clustered),
        page: level(&e.page),
    }
}

fn scale(s: &ScoreScale) -> StoredScale {
    StoredScale {
        name: s.name.to_string(),
        direction: match s.direction {
            Direction::AtLeast => "at_least",
            Direction::AtMost => "at_most",
        }
        .into(),
        min: s.min,
        max: s.max,
        floor: s.floor,
    }
}

/// Bins of one unit for counts and distances, of 0.02 for similarities.
fn histogram(a: &AlgorithmResult, truth: &Truth) -> (f64, Vec<ScoreBin>) {
    let s = &a.run.scale;
    // Counts and distances by unit; similarities in [0, 1] by 0.02.
    let width = if s.max - s.min >= 2.0 || s.max == s.min {
        1.0
    } else {
        0.02
    };
    let bins = ((s.max - s.min) / width).round() as usize + 1;
    let mut out: Vec<ScoreBin> = (0..bins)
        .map(|i| ScoreBin {
            score: ((s.min + i as f64 * width) * 1e4).round() / 1e4,
            true_pairs: 0,
            false_pairs: 0,
        })
        .collect();
    let bin_of = |score: f32| {
        let i = ((f64::from(score) - s.min) / width + 1e-6).floor() as usize;
        i.min(bins - 1)
    };
    for p in &a.run.pairs {
        let bin = &mut out[bin_of(p.score)];
        if truth.cluster[p.a as usize] == truth.cluster[p.b as usize] {
            bin.true_pairs += 1;
        } else {
            bin.false_pairs += 1;
        }
    }
    for g in a.run.stored_groups() {
        let true_pairs =
            grouped_pair_recall(truth, std::iter::empty(), std::slice::from_ref(g)).correct;
        let bin = &mut out[bin_of(g.score)];
        bin.true_pairs += true_pairs;
        bin.false_pairs += g.pairs() - true_pairs;
    }
    (width, out)
}

impl StoredRun {
    pub fn new(result: &ExperimentResult, paper: Option<&Paper>) -> Self {
        StoredRun {
            version: STORED_RUN_VERSION,
            experiment: result.name.clone(),
            corpus: result.corpus_source.clone(),
            pages: result.pages,
            input_bytes: result.input_bytes,
            wall_seconds: result.wall_seconds,
            cpu_seconds: result.cpu_seconds,
            peak_memory_bytes: result.peak_memory_bytes,
            slices: result.truth.slice_names.clone(),
            true_pairs: result.truth.true_pairs(),
            algorithms: result
                .algorithms
                .iter()
                .map(|a| {
                    let (bin_width, histogram) = histogram(a, &result.truth);
                    StoredAlgorithm {
                        name: a.run.name.to_string(),
                        label: a.run.label.clone(),
                        extraction: a.extraction.name().to_string(),
                        scale: scale(&a.run.scale),
                        threshold: a.threshold,
                        banding: a.run.banding.map(|b| [b.bands, b.rows, b.min_shared]),
                        notes: a.run.notes.clone(),
                        candidate_pairs: a.candidate_stage.detected,
                        stored_pairs: a.run.stored_pairs() as usize,
                        evaluations: a.evaluations.iter().map(stored_evaluation).collect(),
                        best_f: a
                            .best(&result.truth, Objective::PairwiseF1)
                            .as_ref()
                            .map(stored_evaluation),
                        clustering: a.clustering,
                        by_clustering: clustered_curves(a, &result.truth),
                        bin_width,
                        histogram,
                        judged: Vec::new(),
                    }
                })
                .collect(),
            throughput: result
                .throughput
                .iter()
                .map(|r| StoredStage {
                    stage: r.stage.name().to_string(),
                    algorithm: r.algorithm.clone(),
                    wall_seconds: r.wall_seconds,
                    cpu_seconds: r.cpu_seconds,
                    pages_per_second: r.pages_per_second(),
                    mb_per_second: r.megabytes_per_second(),
                    shares: r.shares.clone(),
                })
                .collect(),
            paper: paper.cloned(),
            judged: None,
            boilerplate: result
                .boilerplate
                .iter()
                .flat_map(|(extraction, groups)| {
                    groups.iter().map(|g| StoredBoilerplate {
                        extraction: extraction.name().to_string(),
                        group: g.clone(),
                    })
                })
                .collect(),
        }
    }

    /// The run with its algorithms' figures over the judged pairs (one
    /// list per algorithm, in the run's order).
    pub fn with_judged(mut self, truth: &JudgedTruth, judged: &[Vec<JudgedEvaluation>]) -> Self {
        self.judged = Some(StoredJudged {
            source: truth.source.display().to_string(),
            positive_from: truth.positive_from,
            pairs: truth.pairs.len() as u64,
            positives: truth.positives(),
            grades: truth.grades.clone(),
        });
        for (a, e) in self.algorithms.iter_mut().zip(judged) {
            a.judged = e.clone();
        }
        self
    }
}
