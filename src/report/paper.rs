//! A published experiment's figures, as an experiment file quotes them
//! (`paper:`), so that a report puts them beside ours.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Paper {
    /// Authors, year, title, venue.
    pub citation: String,
    /// Where the figures were read (a seed file and section, a public copy).
    pub source: String,
    /// How our corpus and set-up differ from the paper's.
    #[serde(default)]
    pub differences: Vec<String>,
    /// Tables of counts, like seed 001's.
    #[serde(default)]
    pub tables: Vec<PaperTable>,
    /// Single figures (precision at k = 3, a runtime), each beside ours.
    #[serde(default)]
    pub figures: Vec<PaperFigure>,
    /// Algorithms (label prefixes) whose precision, recall and F at every
    /// threshold of the grid are tabled (Manku's P and R against k).
    #[serde(default)]
    pub sweeps: Vec<String>,
    /// Index designs to print with `neardup index plan`'s arithmetic.
    #[serde(default)]
    pub index_plan: Option<IndexPlan>,
}

/// A table of actual/detected/correct counts with the printed percentages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaperTable {
    pub title: String,
    /// `page` (seed 001's counts of duplicate pages) or `pairwise`.
    #[serde(default = "page_level")]
    pub level: String,
    /// Only our algorithms on this extraction (`main`, `full_text`).
    #[serde(default)]
    pub extraction: Option<String>,
    pub rows: Vec<PaperRow>,
}

fn main_extraction() -> String {
    "main".into()
}

fn page_level() -> String {
    "page".into()
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaperRow {
    /// Our slice the row compares with, e.g. `prose/full`.
    pub slice: String,
    /// The row's name in the paper (e.g. 全部重复).
    #[serde(default)]
    pub name: Option<String>,
    pub actual: u64,
    pub detected: u64,
    pub correct: u64,
    /// Percentages as printed.
    pub precision: f64,
    pub recall: f64,
    pub f: f64,
}

/// What of ours a paper figure is compared with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "measure", deny_unknown_fields)]
pub enum Measure {
    /// The run's wall-clock seconds.
    WallSeconds,
    /// Wall seconds of one algorithm (label prefix) on one extraction:
    /// the shared decoding, extraction and tokenising of that text, and
    /// the algorithm's own stages.
    AlgorithmSeconds {
        algorithm: String,
        #[serde(default = "main_extraction")]
        extraction: String,
    },
    /// Precision or recall (pairwise) of the algorithm whose label starts
    /// with `algorithm`, at `threshold` (default: its configured one).
    Precision {
        algorithm: String,
        threshold: Option<f64>,
    },
    Recall {
        algorithm: String,
        threshold: Option<f64>,
    },
    /// Pairwise recall of the last algorithm whose label starts with
    /// `algorithm` relative to the first's, minus one (Kołcz's "relative
    /// improvement in recall").
    RecallGain { algorithm: String },
    /// Pairwise precision of `algorithm` (on `extraction`, default the
    /// first) at the threshold whose recall comes nearest `recall`: two
    /// algorithms compared at comparable recall.
    PrecisionAtRecall {
        algorithm: String,
        recall: f64,
        extraction: Option<String>,
    },
    /// The threshold of the grid where the pairwise F of `algorithm` peaks.
    BestF { algorithm: String },
    /// Pairwise recall of `algorithm` as a share of `of`'s (Henzinger's
    /// "79% of the recall").
    RecallRatio { algorithm: String, of: String },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaperFigure {
    pub name: String,
    /// The paper's value as it reads, e.g. `0.50` or `468 s on a P4 3.2 GHz`.
    pub paper: String,
    pub ours: Measure,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IndexPlan {
    pub fingerprints: f64,
    pub k: u32,
}

/// A printed percentage that does not follow from the row's counts:
/// (what, printed, recomputed), in percent.
pub fn inconsistencies(row: &PaperRow) -> Vec<(&'static str, f64, f64)> {
    let p = 100.0 * row.correct as f64 / row.detected as f64;
    let r = 100.0 * row.correct as f64 / row.actual as f64;
    let f = 2.0 * p * r / (p + r);
    // Printed to two places, rounded or cut: anything further off than one
    // unit in the last place is flagged.
    [
        ("precision", row.precision, p),
        ("recall", row.recall, r),
        ("F", row.f, f),
    ]
    .into_iter()
    .filter(|(_, printed, exact)| (printed - exact).abs() > 0.01)
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_001_prose_full_precision_does_not_follow_from_its_counts() {
        let row = PaperRow {
            slice: "prose/full".into(),
            name: None,
            actual: 1781,
            detected: 1758,
            correct: 1696,
            precision: 96.58,
            recall: 95.22,
            f: 95.91,
        };
        let flagged = inconsistencies(&row);
        assert_eq!(flagged.len(), 2, "{flagged:?}");
        assert_eq!(flagged[0].0, "precision");
        assert!((flagged[0].2 - 96.47).abs() < 0.005, "{}", flagged[0].2);
        // 95.22 is 1696/1781 cut to two places; F from 96.47 and 95.22 is 95.84, not 95.91.
        assert_eq!(flagged[1].0, "F");
        let fine = PaperRow {
            precision: 96.47,
            f: 95.84,
            ..row
        };
        assert!(inconsistencies(&fine).is_empty());
    }
}
