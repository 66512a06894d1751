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
    /// The paper's precision (and recall, where it gives one) drawn on the
    /// precision-recall overview.
    #[serde(default)]
    pub points: Vec<PaperPoint>,
    /// The paper's claims, each given a verdict from our figures.
    #[serde(default)]
    pub claims: Vec<Claim>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaperPoint {
    pub label: String,
    /// Fractions, as the paper prints them.
    pub precision: f64,
    #[serde(default)]
    pub recall: Option<f64>,
}

/// A claim of the paper and the test that decides it on our run: the
/// figure `figure` must be above `above`'s, at least `at_least`, or
/// within `within` of `near`. Without `figure` it cannot be tested here,
/// and `untestable` says why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    pub claim: String,
    #[serde(default)]
    pub figure: Option<Measure>,
    #[serde(default)]
    pub above: Option<Measure>,
    #[serde(default)]
    pub at_least: Option<f64>,
    #[serde(default)]
    pub near: Option<f64>,
    #[serde(default)]
    pub within: Option<f64>,
    /// The reason, when it holds.
    #[serde(default)]
    pub holds: String,
    /// The reason, when it does not.
    #[serde(default)]
    pub fails: String,
    /// Why it cannot be tested here.
    #[serde(default)]
    pub untestable: String,
}

/// What a claim's test found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Holds,
    DoesNotHold,
    CannotBeTested,
}

impl Verdict {
    pub fn text(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::DoesNotHold => "does not hold",
            Verdict::CannotBeTested => "cannot be tested here",
        }
    }
}

impl Claim {
    /// The verdict from the figure's value and, for `above`, the other's.
    pub fn verdict(&self, figure: Option<f64>, other: Option<f64>) -> Verdict {
        let Some(v) = figure.filter(|v| v.is_finite()) else {
            return Verdict::CannotBeTested;
        };
        let holds = if self.above.is_some() {
            match other.filter(|o| o.is_finite()) {
                Some(o) => v > o,
                None => return Verdict::CannotBeTested,
            }
        } else if let Some(min) = self.at_least {
            v >= min
        } else if let (Some(near), Some(within)) = (self.near, self.within) {
            (v - near).abs() <= within
        } else {
            return Verdict::CannotBeTested;
        };
        if holds {
            Verdict::Holds
        } else {
            Verdict::DoesNotHold
        }
    }
}

impl Claim {
    /// The paragraph that explains `verdict`.
    pub fn reason(&self, verdict: Verdict) -> &str {
        match verdict {
            Verdict::Holds => &self.holds,
            Verdict::DoesNotHold => &self.fails,
            Verdict::CannotBeTested => &self.untestable,
        }
    }

    /// The test, as it follows the deciding figure: ` against OTHER`,
    /// ` (holds at 94.24% or more)`, ` (holds within 10.00% of 75.00%)`;
    /// a bare number where the figure is not a fraction.
    pub fn test_text(&self, other: Option<&str>) -> String {
        let fraction = self.figure.as_ref().is_none_or(Measure::is_fraction);
        let show = |x: f64| {
            if fraction {
                format!("{:.2}%", x * 100.0)
            } else {
                format!("{x}")
            }
        };
        match (other, self.at_least, self.near, self.within) {
            (Some(o), _, _, _) => format!(" against {o}"),
            (None, Some(min), _, _) => format!(" (holds at {} or more)", show(min)),
            (None, None, Some(near), Some(within)) => {
                format!(" (holds within {} of {})", show(within), show(near))
            }
            _ => String::new(),
        }
    }
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

impl Measure {
    /// Whether its value is a fraction (printed as a percentage) rather
    /// than seconds or a threshold.
    pub fn is_fraction(&self) -> bool {
        !matches!(
            self,
            Measure::WallSeconds | Measure::AlgorithmSeconds { .. } | Measure::BestThreshold { .. }
        )
    }
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
    /// With `slice`, over that slice's pairs only (e.g. `news/partial`).
    Precision {
        algorithm: String,
        threshold: Option<f64>,
        #[serde(default)]
        slice: Option<String>,
    },
    Recall {
        algorithm: String,
        threshold: Option<f64>,
        #[serde(default)]
        slice: Option<String>,
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
    /// The threshold where that F peaks, as a number (Manku's k = 3).
    BestThreshold { algorithm: String },
    /// Pairwise recall of `algorithm` as a share of `of`'s (Henzinger's
    /// "79% of the recall").
    RecallRatio { algorithm: String, of: String },
    /// Clustered F1 of `algorithm` with clusters made by `clustering`, at
    /// `threshold` (default: the best over every threshold).
    ClusteredF {
        algorithm: String,
        clustering: crate::eval::clustering::Clustering,
        threshold: Option<f64>,
    },
    /// The lowest clustered F1 of `algorithm` under `clustering` over the
    /// thresholds from `from` to `to`.
    ClusteredWorst {
        algorithm: String,
        clustering: crate::eval::clustering::Clustering,
        from: f64,
        to: f64,
    },
    /// The highest minus the lowest clustered F1 there: how far the
    /// method's figure moves with the threshold.
    ClusteredDrop {
        algorithm: String,
        clustering: crate::eval::clustering::Clustering,
        from: f64,
        to: f64,
    },
    /// Page-level F of `algorithm` (on `extraction`, default the first)
    /// in one slice at its configured threshold (seed 001's tables).
    PageF {
        algorithm: String,
        slice: String,
        extraction: Option<String>,
    },
    /// Page-level precision of `algorithm` at its configured threshold,
    /// in one slice or (without `slice`) over all pages: with negatives in
    /// the corpus, the share of flagged pages that are duplicates.
    PagePrecision {
        algorithm: String,
        #[serde(default)]
        slice: Option<String>,
        extraction: Option<String>,
    },
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
    fn a_claim_holds_fails_or_cannot_be_tested_by_its_figures() {
        let measure = Measure::BestF {
            algorithm: "simhash".into(),
        };
        let above = Claim {
            claim: "C beats B".into(),
            figure: Some(measure.clone()),
            above: Some(measure.clone()),
            at_least: None,
            near: None,
            within: None,
            holds: String::new(),
            fails: String::new(),
            untestable: String::new(),
        };
        assert_eq!(above.verdict(Some(0.5), Some(0.38)), Verdict::Holds);
        assert_eq!(above.verdict(Some(0.3), Some(0.38)), Verdict::DoesNotHold);
        assert_eq!(above.verdict(Some(0.3), None), Verdict::CannotBeTested);
        assert_eq!(
            above.verdict(Some(f64::NAN), Some(0.1)),
            Verdict::CannotBeTested
        );
        let near = Claim {
            above: None,
            near: Some(0.75),
            within: Some(0.05),
            ..above.clone()
        };
        assert_eq!(near.verdict(Some(0.78), None), Verdict::Holds);
        assert_eq!(near.verdict(Some(0.45), None), Verdict::DoesNotHold);
        let untested = Claim {
            figure: None,
            ..near
        };
        assert_eq!(untested.verdict(None, None), Verdict::CannotBeTested);
    }

    #[test]
    fn the_reproductions_claims_parse_each_with_a_test_or_a_reason() {
        for (name, count) in [("manku2007", 4), ("kolcz2004", 3), ("fan2008_negatives", 2)] {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(format!("experiments/{name}.yaml"));
            let config = crate::experiment::ExperimentConfig::load(&path).unwrap();
            let claims = config.paper.unwrap().claims;
            assert_eq!(claims.len(), count, "{name}");
            for c in &claims {
                if c.figure.is_some() {
                    let tested = c.above.is_some()
                        || c.at_least.is_some()
                        || (c.near.is_some() && c.within.is_some());
                    assert!(tested, "{name}: {} has a figure and no test", c.claim);
                    assert!(
                        !c.holds.is_empty() && !c.fails.is_empty(),
                        "{name}: {}",
                        c.claim
                    );
                } else {
                    assert!(!c.untestable.is_empty(), "{name}: {}", c.claim);
                }
            }
            if name == "manku2007" {
                assert!(matches!(
                    claims[0].figure,
                    Some(Measure::BestThreshold { .. })
                ));
                assert_eq!(claims[0].test_text(None), " (holds within 0.5 of 3)");
            }
        }
    }

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
