//! Charikar's SimHash (seeds 002-004): weighted features, one 64-bit hash
//! per feature, a signed weighted sum per bit, the signs as fingerprint.
//! Two pages are near-duplicates when their fingerprints differ in at most
//! k bits. Candidates come from a brute-force popcount scan here; the
//! permuted-table index of Manku et al. replaces it at crawler scale.

use std::collections::HashMap;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::xxh3_64_with_seed;

use super::{Detector, Direction, Document, ScoreScale};

/// Fixed so that fingerprints are the same on every run and machine.
const SEED: u64 = 0x7369_6d68_6173_6801;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Features {
    /// Each token is a feature.
    Words,
    /// Each run of `ngram` consecutive tokens is a feature.
    Ngrams,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SimHash {
    pub features: Features,
    pub ngram: usize,
    /// Largest Hamming distance kept as a scored pair.
    pub floor: u32,
}

impl Default for SimHash {
    fn default() -> Self {
        SimHash {
            features: Features::Words,
            ngram: 2,
            floor: 16,
        }
    }
}

impl SimHash {
    /// Term-frequency weighted features of a page, in first-seen order.
    fn weighted_features(&self, doc: &Document) -> Vec<(u64, i64)> {
        let mut weights: HashMap<u64, i64> = HashMap::new();
        let mut order = Vec::new();
        let mut add = |h: u64| {
            let w = weights.entry(h).or_insert(0);
            if *w == 0 {
                order.push(h);
            }
            *w += 1;
        };
        match self.features {
            Features::Words => doc
                .tokens
                .iter()
                .for_each(|t| add(xxh3_64_with_seed(t.as_bytes(), SEED))),
            Features::Ngrams => {
                let tokens: Vec<&str> = doc.tokens.iter().collect();
                let n = self.ngram.max(1).min(tokens.len().max(1));
                let mut buf = String::new();
                for window in tokens.windows(n) {
                    buf.clear();
                    for t in window {
                        buf.push_str(t);
                        buf.push('\u{1}');
                    }
                    add(xxh3_64_with_seed(buf.as_bytes(), SEED));
                }
            }
        }
        order.into_iter().map(|h| (h, weights[&h])).collect()
    }
}

/// The fingerprint of weighted feature hashes.
pub fn fingerprint(features: &[(u64, i64)]) -> u64 {
    let mut sums = [0i64; 64];
    for &(hash, weight) in features {
        for (bit, sum) in sums.iter_mut().enumerate() {
            if hash >> bit & 1 == 1 {
                *sum += weight;
            } else {
                *sum -= weight;
            }
        }
    }
    sums.iter()
        .enumerate()
        .fold(0u64, |fp, (bit, &s)| if s > 0 { fp | 1 << bit } else { fp })
}

impl Detector for SimHash {
    type Signature = u64;

    fn name(&self) -> &'static str {
        "simhash"
    }

    fn label(&self) -> String {
        match self.features {
            Features::Words => "simhash(words,tf)".into(),
            Features::Ngrams => format!("simhash({}-grams,tf)", self.ngram),
        }
    }

    fn scale(&self) -> ScoreScale {
        ScoreScale {
            name: "hamming distance",
            direction: Direction::AtMost,
            min: 0.0,
            max: 64.0,
            floor: f64::from(self.floor),
        }
    }

    fn sign(&self, doc: &Document) -> Option<u64> {
        let features = self.weighted_features(doc);
        (!features.is_empty()).then(|| fingerprint(&features))
    }

    fn candidates(&self, signatures: &[Option<u64>]) -> Vec<(u32, u32)> {
        let fps: Vec<(u32, u64)> = signatures
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.map(|fp| (i as u32, fp)))
            .collect();
        let floor = self.floor;
        (0..fps.len())
            .into_par_iter()
            .flat_map_iter(|x| {
                let (i, fi) = fps[x];
                fps[x + 1..]
                    .iter()
                    .filter(move |(_, fj)| (fi ^ fj).count_ones() <= floor)
                    .map(move |&(j, _)| (i, j))
            })
            .collect()
    }

    fn score(&self, a: &u64, b: &u64) -> f32 {
        (a ^ b).count_ones() as f32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Lang;
    use crate::text::{tokenize, TokenizerConfig};

    fn doc(text: &str) -> Document {
        Document {
            page: 0,
            lang: Lang::En,
            tokens: tokenize(text, Lang::En, &TokenizerConfig::default()),
        }
    }

    #[test]
    fn fingerprint_bits_follow_weighted_sign() {
        // Bit 0 is set in the heavier feature only: its weight wins.
        assert_eq!(fingerprint(&[(0b01, 3), (0b10, 1)]) & 0b11, 0b01);
        assert_eq!(fingerprint(&[(0b01, 1), (0b10, 3)]) & 0b11, 0b10);
        // A tie is not positive: the bit stays clear.
        assert_eq!(fingerprint(&[(0b01, 2), (0b10, 2)]) & 0b11, 0);
    }

    #[test]
    fn near_texts_are_closer_than_different_texts() {
        let s = SimHash::default();
        let base = "the committee met on monday to discuss the budget for the coming year and agreed to raise spending on schools roads and hospitals while cutting administrative costs";
        let edited = base.replace("monday", "tuesday");
        let other = "a small cat slept in the warm sun all afternoon while children played football in the park nearby and their parents talked about holidays by the sea";
        let (a, b, c) = (
            s.sign(&doc(base)).unwrap(),
            s.sign(&doc(&edited)).unwrap(),
            s.sign(&doc(other)).unwrap(),
        );
        assert_eq!(s.score(&a, &a), 0.0);
        assert!(
            s.score(&a, &b) < s.score(&a, &c),
            "{} vs {}",
            s.score(&a, &b),
            s.score(&a, &c)
        );
    }

    #[test]
    fn brute_force_candidates_respect_the_floor() {
        let s = SimHash {
            floor: 2,
            ..SimHash::default()
        };
        let sigs = [Some(0u64), Some(0b11), Some(0b111), None, Some(u64::MAX)];
        assert_eq!(s.candidates(&sigs), vec![(0, 1), (1, 2)]);
    }

    #[test]
    fn empty_page_gets_no_signature() {
        assert_eq!(SimHash::default().sign(&doc("  ")), None);
    }
}
