//! Henzinger's (2006) combined algorithm: the pairs Broder et al.'s
//! shingling finds similar ("B-similar": MinHash-LSH candidates whose
//! estimated Jaccard reaches a gate), judged by Charikar's random
//! projections ("C-similar": SimHash fingerprints within a Hamming
//! distance). The Jaccard estimate is kept beside each pair as a gate, so
//! both thresholds move without rescoring.

use super::shingling::lsh::Banding;
use super::shingling::{MinHash, MinHashSketch};
use super::simhash::SimHash;
use super::{Detector, Document, Gate, GateScores, ScoreScale, MAX_GATES};

#[derive(Debug, Clone)]
pub struct Combined {
    pub shingling: MinHash,
    pub simhash: SimHash,
    /// Estimated Jaccard a pair needs to be B-similar.
    pub jaccard: f64,
}

impl Detector for Combined {
    type Signature = (MinHashSketch, u128);

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
            h.update(&fingerprint.to_le_bytes());
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::shingling::{CandidateSearch, Sketching, Verify};
    use crate::algo::simhash::{Features, Weights};
    use crate::algo::Algorithm;
    use crate::corpus::Lang;
    use crate::eval::throughput::StageClock;
    use crate::text::TokenizerConfig;

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
}
