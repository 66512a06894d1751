//! Henzinger's (2006) combined algorithm: the pairs Broder et al.'s
//! shingling finds similar ("B-similar": MinHash-LSH candidates whose
//! estimated Jaccard reaches a gate), judged by Charikar's random
//! projections ("C-similar": SimHash fingerprints within a Hamming
//! distance). The Jaccard estimate is kept beside each pair as a gate, so
//! both thresholds move without rescoring.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::settings::{distance_grid, distance_thresholds, in_range, invalid, with_threshold};
use super::settings::{AlgorithmSettings, Checked};
use super::shingling::lsh::Banding;
use super::shingling::{CandidateSearch, MinHash, MinHashSketch, Sketching, Verify};
use super::simhash::config::check_bits;
use super::simhash::wide::{WideSearch, WideSimHash};
use super::simhash::{Features, SimHash, Weights};
use super::{Detector, Document, Gate, GateScores, ScoreScale, MAX_GATES};

/// `S`: the SimHash half, [`SimHash`] up to 128 bits or [`WideSimHash`]
/// (Henzinger's 384).
#[derive(Debug, Clone)]
pub struct Combined<S = SimHash> {
    pub shingling: MinHash,
    pub simhash: S,
    /// Estimated Jaccard a pair needs to be B-similar.
    pub jaccard: f64,
}

impl<S: Detector> Detector for Combined<S> {
    type Signature = (MinHashSketch, S::Signature);

    fn name(&self) -> &'static str {
        "combined"
    }

    fn label(&self) -> String {
        format!(
            "combined({} then {})",
            self.shingling.label(),
            self.simhash.label()
        )
    }

    fn scale(&self) -> ScoreScale {
        Detector::scale(&self.simhash)
    }

    fn fit(&mut self, docs: &[Document]) -> bool {
        let simhash = self.simhash.fit(docs);
        self.shingling.fit(docs) || simhash
    }

    fn shingle_widths(&self) -> Vec<usize> {
        Detector::shingle_widths(&self.shingling)
    }

    fn sign(&self, doc: &Document) -> Option<Self::Signature> {
        Some((self.shingling.sign(doc)?, self.simhash.sign(doc)?))
    }

    fn candidates(&self, signatures: &[Option<Self::Signature>]) -> Vec<(u32, u32)> {
        let sketches: Vec<Option<MinHashSketch>> = signatures
            .iter()
            .map(|s| s.as_ref().map(|s| s.0.clone()))
            .collect();
        self.shingling.candidates(&sketches)
    }

    fn signature_key(&self, (sketch, fingerprint): &Self::Signature) -> Option<u128> {
        Some(super::hash_key(|h| {
            h.update(&sketch.key().to_le_bytes());
            let fingerprint = self.simhash.signature_key(fingerprint);
            h.update(&fingerprint.unwrap_or_default().to_le_bytes());
        }))
    }

    fn score(&self, a: &Self::Signature, b: &Self::Signature) -> f32 {
        self.simhash.score(&a.1, &b.1)
    }

    fn banding(&self) -> Option<Banding> {
        self.shingling.banding()
    }

    fn gates(&self) -> Vec<Gate> {
        vec![Gate {
            name: "jaccard",
            threshold: self.jaccard,
        }]
    }

    fn gate_scores(&self, a: &Self::Signature, b: &Self::Signature) -> GateScores {
        let mut out = [f32::NAN; MAX_GATES];
        out[0] = self.shingling.score(&a.0, &b.0);
        out
    }

    fn describe(&self) -> Vec<String> {
        vec![format!(
            "B-similar: candidates of {} with estimated Jaccard >= {}; then C-similar: Hamming distance within the threshold",
            self.shingling.label(),
            self.jaccard
        )]
    }
}

/// Henzinger's combined algorithm's entry in an experiment file:
/// MinHash-LSH pairs whose estimated Jaccard reaches `jaccard`
/// (B-similar), judged by SimHash Hamming distance (C-similar).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CombinedConfig {
    /// Shingle width and sketch size of the shingling half.
    pub width: usize,
    pub hashes: usize,
    /// Estimated Jaccard for B-similarity (a gate kept beside each pair).
    pub jaccard: f64,
    /// Broder's super-shingles instead of LSH chosen for `jaccard`:
    /// `bands` groups of `rows` min-hashes, `min_shared` of them agreeing
    /// (Henzinger's Alg. B: 6 x 14, 2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bands: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rows: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_shared: Option<usize>,
    /// The SimHash half.
    pub features: Features,
    pub ngram: usize,
    pub weights: Weights,
    pub bits: u32,
    /// Hamming distance at or below which a B-similar pair is a duplicate.
    pub threshold: f64,
    /// Default: every step the floor reaches.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grid: Option<Vec<f64>>,
    pub floor: u32,
}

impl Default for CombinedConfig {
    fn default() -> Self {
        CombinedConfig {
            width: 3,
            hashes: 128,
            jaccard: 0.5,
            bands: None,
            rows: None,
            min_shared: None,
            features: Features::Words,
            ngram: 2,
            weights: Weights::Tf,
            bits: 64,
            threshold: 3.0,
            grid: None,
            floor: 16,
        }
    }
}

impl CombinedConfig {
    fn search(&self) -> CandidateSearch {
        match (self.bands, self.rows) {
            (Some(bands), Some(rows)) => CandidateSearch::Bands {
                banding: Banding {
                    bands,
                    rows,
                    min_shared: self.min_shared.unwrap_or(1),
                },
                target: None,
                super_shingles: self.min_shared.unwrap_or(1) > 1,
            },
            _ => CandidateSearch::Bands {
                banding: Banding::for_threshold(self.jaccard, self.hashes, 0.5, 0.5),
                target: Some(self.jaccard),
                super_shingles: false,
            },
        }
    }
}

impl CombinedConfig {
    fn listed_grid(&self) -> Vec<f64> {
        self.grid
            .clone()
            .unwrap_or_else(|| distance_grid(self.floor))
    }
}

impl AlgorithmSettings for CombinedConfig {
    fn validate(&self) -> Checked {
        in_range("width", self.width, 1, 64)?;
        in_range("hashes", self.hashes, 1, 4096)?;
        // A gate of 0 lets every candidate through; it is only meaningful
        // once the banding is pinned (a banding cannot be chosen for 0).
        let pinned = self.bands.is_some() && self.rows.is_some();
        let lowest_ok = if pinned {
            self.jaccard >= 0.0
        } else {
            self.jaccard > 0.0
        };
        if !(lowest_ok && self.jaccard <= 1.0) {
            let range = if pinned {
                "[0, 1]"
            } else {
                "(0, 1] (0 only with `bands` and `rows`)"
            };
            return Err(invalid(
                "jaccard",
                format!(
                    "{} is out of range: a Jaccard similarity in {range}",
                    self.jaccard
                ),
            ));
        }
        check_bits(self.bits)?;
        in_range("floor", self.floor as usize, 0, self.bits as usize)?;
        match (self.bands, self.rows) {
            (Some(b), Some(r)) => {
                in_range("bands", b, 1, self.hashes)?;
                in_range("rows", r, 1, self.hashes / b)?;
                in_range("min_shared", self.min_shared.unwrap_or(1), 1, b)?;
            }
            (None, None) if self.min_shared.is_none() => {}
            _ => {
                return Err(invalid(
                    "bands",
                    "give `bands` and `rows` (and `min_shared`) together, or none",
                ))
            }
        }
        distance_thresholds(self.floor, self.threshold, &self.listed_grid())
    }

    fn build(&self, _reference: Option<Arc<Vec<Document>>>) -> Box<dyn super::Algorithm> {
        let shingling = MinHash::new(
            self.width,
            self.hashes,
            Sketching::Minhash,
            self.search(),
            Verify::Estimate,
            0.0,
        );
        let simhash = SimHash::new(
            self.features,
            self.ngram,
            self.weights,
            self.bits,
            self.floor,
            None,
            None,
        );
        let jaccard = self.jaccard;
        if self.bits > 128 {
            // Candidates come from the shingling half: the search is unused
            // (and Blocks keeps the label free of a search it does not run).
            let simhash = WideSimHash::new(simhash, WideSearch::Blocks);
            return Box::new(Combined {
                shingling,
                simhash,
                jaccard,
            });
        }
        Box::new(Combined {
            shingling,
            simhash,
            jaccard,
        })
    }

    fn threshold(&self) -> f64 {
        self.threshold
    }

    fn grid(&self) -> Vec<f64> {
        with_threshold(&self.listed_grid(), self.threshold)
    }

    fn tune(&mut self, threshold: f64, gates: &[f64]) {
        self.threshold = threshold;
        if let Some(&jaccard) = gates.first() {
            self.jaccard = jaccard;
        }
    }

    /// The banding chosen for `jaccard` becomes explicit, so that moving
    /// the Jaccard gate keeps the same candidates.
    fn pin(&mut self) {
        if let CandidateSearch::Bands { banding, .. } = self.search() {
            self.bands = Some(banding.bands);
            self.rows = Some(banding.rows);
            self.min_shared = Some(banding.min_shared);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::Algorithm;
    use crate::text::Lang;
    use crate::text::TokenizerConfig;
    use crate::util::stage::StageClock;

    #[test]
    fn pairs_need_both_shingle_overlap_and_a_near_fingerprint() {
        let text = "the quick brown fox jumps over the lazy dog and runs far away into the green hills beyond the river";
        let near = "the quick brown fox jumps over the lazy dog and runs far away into the green hills beyond the lake";
        let other = "completely different words make up this sentence about markets prices and the economy of small towns";
        let docs: Vec<Document> = [text, near, other]
            .iter()
            .enumerate()
            .map(|(i, t)| Document::new(i as u32, t, Some(Lang::En), &TokenizerConfig::default()))
            .collect();
        let mut m = Combined {
            shingling: MinHash::new(
                3,
                128,
                Sketching::Minhash,
                CandidateSearch::AllPairs,
                Verify::Estimate,
                0.0,
            ),
            simhash: SimHash::new(Features::Words, 2, Weights::Tf, 64, 64, None, None),
            jaccard: 0.5,
        };
        let run = Algorithm::run(&mut m, &docs, "test", &mut StageClock::new(3, 300));
        assert_eq!(run.gates[0].name, "jaccard");
        let gated = run.gated_pairs(&[0.5]);
        assert_eq!(
            gated.len(),
            1,
            "only the near copy is B-similar: {:?}",
            run.gate_scores
        );
        assert_eq!((gated[0].a, gated[0].b), (0, 1));
        assert!(gated[0].score <= 10.0, "and C-similar: {}", gated[0].score);
        assert_eq!(run.gated_pairs(&[0.0]).len(), 3);
    }

    #[test]
    fn henzingers_384_bits_judge_the_shingling_pairs() {
        let texts = [
            "the quick brown fox jumps over the lazy dog and runs far away into the green hills beyond the river",
            "the quick brown fox jumps over the lazy dog and runs far away into the green hills beyond the lake",
            "completely different words make up this sentence about markets prices and the economy of small towns",
        ];
        let docs: Vec<Document> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| Document::new(i as u32, t, Some(Lang::En), &TokenizerConfig::default()))
            .collect();
        let config = CombinedConfig {
            bits: 384,
            floor: 384,
            threshold: 12.0,
            ..CombinedConfig::default()
        };
        config.validate().unwrap();
        assert!(config.build(None).label().contains("384 bits"));
        // Every pair a candidate, to see the distances of the wide half.
        let mut algo = Combined {
            shingling: MinHash::new(
                3,
                128,
                Sketching::Minhash,
                CandidateSearch::AllPairs,
                Verify::Estimate,
                0.0,
            ),
            simhash: WideSimHash::new(
                SimHash::new(Features::Words, 2, Weights::Tf, 384, 384, None, None),
                WideSearch::Blocks,
            ),
            jaccard: 0.5,
        };
        let run = Algorithm::run(&mut algo, &docs, "test", &mut StageClock::new(3, 300));
        let gated = run.gated_pairs(&[0.0]);
        assert_eq!(gated.len(), 3);
        // A 384-bit distance: the unrelated pairs differ in far more than
        // 128 bits could.
        let near = gated.iter().find(|p| (p.a, p.b) == (0, 1)).unwrap();
        let far = gated.iter().map(|p| p.score).fold(0f32, f32::max);
        assert!(near.score < far && far > 128.0, "{near:?} {far}");
    }
}
