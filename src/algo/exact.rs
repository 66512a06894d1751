//! The baseline: pages whose normalised token sequences are identical.

use std::collections::HashMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::xxh3_128_with_seed;

use super::settings::{AlgorithmSettings, Checked, NO_THRESHOLD};
use super::{Algorithm, Detector, Direction, Document, ScoreScale};

/// `type: exact` has no keys: identical is identical.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExactConfig {}

impl AlgorithmSettings for ExactConfig {
    fn validate(&self) -> Checked {
        Ok(())
    }

    fn build(&self, _reference: Option<Arc<Vec<Document>>>) -> Box<dyn Algorithm> {
        Box::new(ExactHash)
    }

    fn threshold(&self) -> f64 {
        NO_THRESHOLD
    }

    fn grid(&self) -> Vec<f64> {
        vec![NO_THRESHOLD]
    }

    fn tune(&mut self, _threshold: f64, _gates: &[f64]) {}
}

/// Fixed so that signatures are the same on every run and machine.
const SEED: u64 = 0x6e65_6172_6475_7001;

#[derive(Debug, Clone, Default)]
pub struct ExactHash;

impl Detector for ExactHash {
    type Signature = u128;

    fn name(&self) -> &'static str {
        "exact"
    }

    fn label(&self) -> String {
        "exact".into()
    }

    fn scale(&self) -> ScoreScale {
        ScoreScale {
            name: "identical",
            direction: Direction::AtLeast,
            min: 1.0,
            max: 1.0,
            floor: 1.0,
        }
    }

    fn sign(&self, doc: &Document) -> Option<u128> {
        if doc.tokens.is_empty() {
            return None;
        }
        // Tokens joined by one separator: the signature ignores whatever
        // normalisation and tokenisation threw away, and nothing else.
        let mut joined = String::with_capacity(doc.tokens.iter().map(|t| t.len() + 1).sum());
        for token in doc.tokens.iter() {
            joined.push_str(token);
            joined.push('\u{1}');
        }
        Some(xxh3_128_with_seed(joined.as_bytes(), SEED))
    }

    fn candidates(&self, signatures: &[Option<u128>]) -> Vec<(u32, u32)> {
        let mut buckets: HashMap<u128, Vec<u32>> = HashMap::new();
        for (i, s) in signatures.iter().enumerate() {
            if let Some(s) = s {
                buckets.entry(*s).or_default().push(i as u32);
            }
        }
        let mut pairs = Vec::new();
        for members in buckets.values().filter(|m| m.len() > 1) {
            for (k, &i) in members.iter().enumerate() {
                pairs.extend(members[k + 1..].iter().map(|&j| (i, j)));
            }
        }
        pairs.sort_unstable();
        pairs
    }

    fn signature_key(&self, signature: &u128) -> Option<u128> {
        Some(*signature)
    }

    fn score(&self, a: &u128, b: &u128) -> f32 {
        if a == b {
            1.0
        } else {
            0.0
        }
    }
}
