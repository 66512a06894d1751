//! SimHash's entry in an experiment file.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::tables::{Layout, LayoutError};
use super::{Features, SimHash, Weights};
use crate::algo::settings::{
    distance_grid, distance_thresholds, in_range, invalid, with_threshold,
};
use crate::algo::settings::{AlgorithmSettings, Checked};
use crate::algo::{Algorithm, Document};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SimhashConfig {
    pub features: Features,
    /// Tokens (or characters) per feature for `ngrams` (`chars`).
    pub ngram: usize,
    pub weights: Weights,
    /// `corpus` or a reference corpus path: where IDF comes from for
    /// `tf_idf` and `levels`.
    pub idf: String,
    /// 64 or 128.
    pub bits: u32,
    /// Permuted-table layout for the candidate search (`4x16`, `6c3`,
    /// `4x4`, `BcC`); absent, every pair is compared. The floor must be
    /// within what the layout finds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<String>,
    /// Hamming distance k at or below which a pair is a duplicate; the
    /// table is printed at this threshold.
    pub threshold: f64,
    /// Thresholds evaluated and written to the results.
    /// Default: every step the floor reaches.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grid: Option<Vec<f64>>,
    /// Largest distance stored as a scored pair (the sweep's reach).
    pub floor: u32,
}

impl SimhashConfig {
    pub fn layout(&self) -> Result<Option<Layout>, LayoutError> {
        self.index.as_deref().map(str::parse).transpose()
    }

    /// The detector these settings describe, with IDF from `reference`
    /// (the evaluated corpus when `None`).
    pub fn detector(&self, reference: Option<Arc<Vec<Document>>>) -> SimHash {
        SimHash::new(
            self.features,
            self.ngram,
            self.weights,
            self.bits,
            self.floor,
            self.layout().ok().flatten(),
            reference,
        )
    }

    /// The thresholds the results are written at (the grid, or every
    /// distance up to the floor).
    pub fn listed_grid(&self) -> Vec<f64> {
        self.grid
            .clone()
            .unwrap_or_else(|| distance_grid(self.floor))
    }
}

impl Default for SimhashConfig {
    fn default() -> Self {
        SimhashConfig {
            features: Features::Words,
            ngram: 2,
            weights: Weights::Tf,
            idf: "corpus".into(),
            bits: 64,
            index: None,
            threshold: 3.0,
            grid: None,
            floor: 16,
        }
    }
}

impl AlgorithmSettings for SimhashConfig {
    fn validate(&self) -> Checked {
        in_range("ngram", self.ngram, 1, 16)?;
        if self.bits != 64 && self.bits != 128 {
            return Err(invalid("bits", format!("{} must be 64 or 128", self.bits)));
        }
        if self.floor > self.bits {
            return Err(invalid(
                "floor",
                format!("{} is out of range 0..={}", self.floor, self.bits),
            ));
        }
        match self.layout() {
            Err(e) => return Err(invalid("index", e.to_string())),
            Ok(Some(_)) if self.bits != 64 => {
                return Err(invalid(
                    "index",
                    "permuted tables index 64-bit fingerprints; use bits: 64",
                ))
            }
            Ok(Some(layout)) if self.floor > layout.max_k() => {
                return Err(invalid(
                    "floor",
                    format!(
                        "{} is past what layout {layout} finds (k <= {}); lower the floor or leave `index` out to compare every pair",
                        self.floor,
                        layout.max_k()
                    ),
                ))
            }
            _ => {}
        }
        if self.idf.trim().is_empty() {
            return Err(invalid("idf", "`corpus` or a path to a reference corpus"));
        }
        distance_thresholds(self.floor, self.threshold, &self.listed_grid())
    }

    fn build(&self, reference: Option<Arc<Vec<Document>>>) -> Box<dyn Algorithm> {
        Box::new(self.detector(reference))
    }

    fn threshold(&self) -> f64 {
        self.threshold
    }

    fn grid(&self) -> Vec<f64> {
        with_threshold(&self.listed_grid(), self.threshold)
    }

    fn reference(&self) -> Option<&str> {
        (self.idf != "corpus").then_some(self.idf.as_str())
    }

    fn tune(&mut self, threshold: f64, _gates: &[f64]) {
        self.threshold = threshold;
    }
}
