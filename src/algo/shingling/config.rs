//! The shingling family's entries in an experiment file: exact Jaccard
//! (`type: jaccard`) and MinHash sketches (`type: minhash`).

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::lsh::Banding;
use super::minhash::jaccard_at_containment;
use super::{CandidateSearch, ExactJaccard, MinHash, SetScore, Sketching, Verify};
use crate::algo::settings::{in_range, invalid, similarity_grid, similarity_thresholds, weight};
use crate::algo::settings::{with_threshold, AlgorithmSettings, Checked};
use crate::algo::{Algorithm, Document};
use crate::text::TokenKind;

/// Exact Jaccard of w-shingle sets through an inverted index.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct JaccardConfig {
    /// Tokens the shingles are made of: `jieba`, `words`, `chars` (single
    /// characters) or `auto`; the experiment's tokenizer when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens: Option<TokenKind>,
    /// Tokens per shingle (w).
    pub width: usize,
    /// `jaccard` or `containment` (of the smaller set in the larger).
    #[serde(skip_serializing_if = "SetScore::is_jaccard")]
    pub score: SetScore,
    /// Score at or above which a pair is a duplicate.
    pub threshold: f64,
    /// Default: every step the floor reaches.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grid: Option<Vec<f64>>,
    /// Least Jaccard stored as a scored pair.
    pub floor: f64,
    /// Shingles on more than this share of the distinct pages (and more
    /// than 20 pages) are left out of every set: boilerplate and the
    /// commonest phrases. 1 counts every shingle.
    pub max_df: f64,
}

impl Default for JaccardConfig {
    fn default() -> Self {
        JaccardConfig {
            tokens: None,
            width: 3,
            score: SetScore::Jaccard,
            threshold: 0.5,
            grid: None,
            floor: 0.1,
            max_df: super::DEFAULT_MAX_DF,
        }
    }
}

impl JaccardConfig {
    fn listed_grid(&self) -> Vec<f64> {
        self.grid
            .clone()
            .unwrap_or_else(|| similarity_grid(self.floor))
    }
}

impl AlgorithmSettings for JaccardConfig {
    fn validate(&self) -> Checked {
        in_range("width", self.width, 1, 64)?;
        if !(self.max_df > 0.0 && self.max_df <= 1.0) {
            return Err(invalid(
                "max_df",
                format!(
                    "{} is out of range (0, 1]: a share of the pages",
                    self.max_df
                ),
            ));
        }
        similarity_thresholds(self.floor, self.threshold, &self.listed_grid())
    }

    fn build(&self, _reference: Option<Arc<Vec<Document>>>) -> Box<dyn Algorithm> {
        Box::new(ExactJaccard::new(
            self.width,
            self.floor,
            self.max_df,
            self.score,
        ))
    }

    fn threshold(&self) -> f64 {
        self.threshold
    }

    fn grid(&self) -> Vec<f64> {
        with_threshold(&self.listed_grid(), self.threshold)
    }

    fn tokens(&self) -> Option<TokenKind> {
        self.tokens
    }

    fn tune(&mut self, threshold: f64, _gates: &[f64]) {
        self.threshold = threshold;
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CandidateKind {
    /// LSH banding: pages sharing any band.
    Lsh,
    /// Broder's super-shingles: pages sharing at least `min_shared`.
    SuperShingles,
    /// Every pair: no candidate loss, quadratic cost.
    AllPairs,
}

/// MinHash sketches of w-shingle sets with a candidate stage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MinhashConfig {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens: Option<TokenKind>,
    pub width: usize,
    /// Hash functions (bins for `one_permutation`): n.
    pub hashes: usize,
    pub sketch: Sketching,
    /// `jaccard` or `containment`, estimated from the sketches and the
    /// shingle counts kept beside them (exact with `verify: exact`).
    #[serde(skip_serializing_if = "SetScore::is_jaccard")]
    pub score: SetScore,
    pub candidates: CandidateKind,
    /// Bands (super-shingles) b and rows (min-hashes per super-shingle) r.
    /// For `lsh`, chosen for `target` when both are absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bands: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rows: Option<usize>,
    /// The Jaccard the banding is chosen for (default: `threshold`; for
    /// containment, the Jaccard at the threshold of a pair whose smaller
    /// set is `size_ratio` of the larger).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<f64>,
    /// With `score: containment` and LSH: the least size ratio (smaller
    /// shingle set over larger) the banding keeps pairs at the threshold
    /// for (default 0.25). Lower finds more unequal pairs, at more
    /// candidates.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size_ratio: Option<f64>,
    /// Weights of false positive and false negative areas in that choice.
    pub false_positive_weight: f64,
    pub false_negative_weight: f64,
    /// Bands a pair must share (default 1 for lsh, 2 for super-shingles).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_shared: Option<usize>,
    pub verify: Verify,
    pub threshold: f64,
    /// Default: every step the floor reaches.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grid: Option<Vec<f64>>,
    pub floor: f64,
}

impl Default for MinhashConfig {
    fn default() -> Self {
        MinhashConfig {
            tokens: None,
            width: 3,
            hashes: 128,
            sketch: Sketching::Minhash,
            score: SetScore::Jaccard,
            candidates: CandidateKind::Lsh,
            bands: None,
            rows: None,
            target: None,
            size_ratio: None,
            false_positive_weight: 0.5,
            false_negative_weight: 0.5,
            min_shared: None,
            verify: Verify::Estimate,
            threshold: 0.5,
            grid: None,
            floor: 0.1,
        }
    }
}

impl MinhashConfig {
    /// Broder (1997) used 6 super-shingles of 14 of 84 min-hashes; with n
    /// hashes we keep 6 groups, as large as n allows.
    const SUPER_SHINGLES: usize = 6;

    /// Containment's banding keeps pairs down to this size ratio: the
    /// partial reprints of fan2008 (a lead and a block, a digest) mostly
    /// keep a quarter or more of the full page's shingles.
    const SIZE_RATIO: f64 = 0.25;

    /// The detector these settings describe.
    pub fn detector(&self) -> MinHash {
        MinHash::new(
            self.width,
            self.hashes,
            self.sketch,
            self.search(),
            self.verify,
            self.floor,
        )
        .with_score(self.score)
    }

    /// The Jaccard LSH bands for when no `target` is given: banding sees
    /// only the Jaccard, which for a containment c at size ratio r is
    /// c r / (1 + r - c r), so the pairs of more unequal sizes are left out.
    fn default_target(&self) -> f64 {
        match self.score {
            SetScore::Jaccard => self.threshold,
            SetScore::Containment => {
                let ratio = self.size_ratio.unwrap_or(Self::SIZE_RATIO);
                (jaccard_at_containment(self.threshold, ratio) * 1e4).round() / 1e4
            }
        }
    }

    pub fn search(&self) -> CandidateSearch {
        match self.candidates {
            CandidateKind::AllPairs => CandidateSearch::AllPairs,
            CandidateKind::Lsh => match (self.bands, self.rows) {
                (Some(bands), Some(rows)) => CandidateSearch::Bands {
                    banding: Banding {
                        bands,
                        rows,
                        min_shared: self.min_shared.unwrap_or(1),
                    },
                    // Pinned by the workbench: still the banding chosen
                    // for this target, worth saying so.
                    target: self.target,
                    super_shingles: false,
                },
                _ => {
                    let target = self.target.unwrap_or_else(|| self.default_target());
                    let mut banding = Banding::for_threshold(
                        target,
                        self.hashes,
                        self.false_positive_weight,
                        self.false_negative_weight,
                    );
                    banding.min_shared = self.min_shared.unwrap_or(1);
                    CandidateSearch::Bands {
                        banding,
                        target: Some(target),
                        super_shingles: false,
                    }
                }
            },
            CandidateKind::SuperShingles => {
                let bands = self.bands.unwrap_or(Self::SUPER_SHINGLES);
                CandidateSearch::Bands {
                    banding: Banding {
                        bands,
                        rows: self.rows.unwrap_or(self.hashes / bands.max(1)),
                        min_shared: self.min_shared.unwrap_or(2),
                    },
                    target: None,
                    super_shingles: true,
                }
            }
        }
    }
}

impl MinhashConfig {
    /// The thresholds the results are written at (the grid, or every step
    /// the floor reaches).
    pub fn listed_grid(&self) -> Vec<f64> {
        self.grid
            .clone()
            .unwrap_or_else(|| similarity_grid(self.floor))
    }
}

impl AlgorithmSettings for MinhashConfig {
    fn validate(&self) -> Checked {
        in_range("width", self.width, 1, 64)?;
        in_range("hashes", self.hashes, 1, 4096)?;
        similarity_thresholds(self.floor, self.threshold, &self.listed_grid())?;
        if let Some(t) = self.target {
            if !(t > 0.0 && t <= 1.0) {
                return Err(invalid(
                    "target",
                    format!("{t} is out of range: a Jaccard similarity in (0, 1]"),
                ));
            }
        }
        if let Some(r) = self.size_ratio {
            if !(r > 0.0 && r <= 1.0) {
                return Err(invalid(
                    "size_ratio",
                    format!("{r} is out of range: a ratio of set sizes in (0, 1]"),
                ));
            }
            if self.score != SetScore::Containment {
                return Err(invalid(
                    "size_ratio",
                    "has meaning only with `score: containment`",
                ));
            }
            if self.target.is_some() {
                return Err(invalid(
                    "size_ratio",
                    "give `target` or `size_ratio`, not both (`target` is the Jaccard the bands are chosen for)",
                ));
            }
        }
        weight("false_positive_weight", self.false_positive_weight)?;
        weight("false_negative_weight", self.false_negative_weight)?;
        if self.bands.is_some() != self.rows.is_some() && self.candidates == CandidateKind::Lsh {
            return Err(invalid(
                if self.bands.is_some() {
                    "rows"
                } else {
                    "bands"
                },
                "give `bands` and `rows` together, or neither to choose them for `target`",
            ));
        }
        if self.candidates == CandidateKind::AllPairs {
            for (key, set) in [
                ("bands", self.bands.is_some()),
                ("rows", self.rows.is_some()),
                ("min_shared", self.min_shared.is_some()),
                ("target", self.target.is_some()),
                ("size_ratio", self.size_ratio.is_some()),
            ] {
                if set {
                    return Err(invalid(key, "has no meaning with `candidates: all_pairs`"));
                }
            }
        } else if let CandidateSearch::Bands { banding, .. } = self.search() {
            in_range("bands", banding.bands, 1, self.hashes)?;
            in_range("rows", banding.rows, 1, self.hashes / banding.bands).map_err(|_| {
                invalid(
                    "rows",
                    format!(
                        "{} bands x {} rows need more than the {} hashes",
                        banding.bands, banding.rows, self.hashes
                    ),
                )
            })?;
            in_range("min_shared", banding.min_shared, 1, banding.bands)?;
        }
        Ok(())
    }

    fn build(&self, _reference: Option<Arc<Vec<Document>>>) -> Box<dyn Algorithm> {
        Box::new(self.detector())
    }

    fn threshold(&self) -> f64 {
        self.threshold
    }

    fn grid(&self) -> Vec<f64> {
        with_threshold(&self.listed_grid(), self.threshold)
    }

    fn tokens(&self) -> Option<TokenKind> {
        self.tokens
    }

    fn tune(&mut self, threshold: f64, _gates: &[f64]) {
        self.threshold = threshold;
    }

    /// The banding chosen for the threshold becomes explicit: a threshold
    /// moved later must not choose another one.
    fn pin(&mut self) {
        if let CandidateSearch::Bands {
            banding, target, ..
        } = self.search()
        {
            self.bands = Some(banding.bands);
            self.rows = Some(banding.rows);
            self.min_shared = Some(banding.min_shared);
            if self.candidates == CandidateKind::Lsh {
                self.target = target;
                // Now said by the target.
                self.size_ratio = None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::experiment::config::{AlgorithmConfig, ExperimentConfig};

    fn parse(entries: &str) -> Result<ExperimentConfig, String> {
        let text = format!("corpus: demo\nalgorithms:\n{entries}");
        ExperimentConfig::parse(Path::new("x.yaml"), &text).map_err(|e| e.to_string())
    }

    #[test]
    fn containment_round_trips_pinned_or_not() {
        let c = parse(
            "  - {type: jaccard, score: containment, floor: 0.3, threshold: 0.7}\n  \
             - {type: minhash, score: containment, size_ratio: 0.5, threshold: 0.6}\n  \
             - {type: minhash, score: containment, verify: exact, candidates: all_pairs}\n",
        )
        .unwrap();
        for config in [c.clone(), c.pinned()] {
            let text = serde_yaml::to_string(&config).unwrap();
            assert_eq!(text.matches("score: containment").count(), 3, "{text}");
            assert_eq!(parse_back(&text), config, "{text}");
        }
        let AlgorithmConfig::Minhash(m) = &c.algorithms[1].config else {
            panic!("minhash")
        };
        // The bands are chosen for the Jaccard of a pair at containment 0.6
        // whose smaller set is half the larger: 0.3 / 1.2.
        let CandidateSearch::Bands { target, .. } = m.search() else {
            panic!("lsh")
        };
        assert_eq!(target, Some(0.25));
        let AlgorithmConfig::Minhash(pinned) = &c.pinned().algorithms[1].config else {
            panic!("minhash")
        };
        assert_eq!((pinned.target, pinned.size_ratio), (Some(0.25), None));
        assert_eq!(pinned.search(), m.search());
        assert_eq!(pinned.detector().label(), m.detector().label());
        assert!(m.detector().label().ends_with(", containment)"));
    }

    fn parse_back(text: &str) -> ExperimentConfig {
        ExperimentConfig::parse(Path::new("x.yaml"), text).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn size_ratio_is_checked() {
        for (entry, key, says) in [
            (
                "{type: minhash, size_ratio: 0.5}",
                "size_ratio",
                "score: containment",
            ),
            (
                "{type: minhash, score: containment, size_ratio: 0.5, target: 0.2}",
                "size_ratio",
                "not both",
            ),
            (
                "{type: minhash, score: containment, size_ratio: 0}",
                "size_ratio",
                "(0, 1]",
            ),
            (
                "{type: minhash, score: containment, candidates: all_pairs, size_ratio: 0.5}",
                "size_ratio",
                "all_pairs",
            ),
            (
                "{type: jaccard, score: containmnt}",
                "containmnt",
                "containment",
            ),
        ] {
            let e = parse(&format!("  - {entry}\n")).unwrap_err();
            assert!(e.contains(key) && e.contains(says), "{entry}: {e}");
        }
    }
}
