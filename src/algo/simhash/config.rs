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
    /// Where candidates come from: Manku et al.'s permuted `tables`
    /// (default) or `all_pairs` (a popcount scan of every pair: quadratic,
    /// for sweeps past what a layout finds and for 128-bit fingerprints).
    pub candidates: SimhashCandidates,
    /// Permuted-table layout for the candidate search (`4x16`, `6c3`,
    /// `4x4`, `BcC`); default [`DEFAULT_LAYOUT`]. The floor must be within
    /// what the layout finds.
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
    /// Default: what the layout finds (6 for 8c2), or 16 with `all_pairs`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub floor: Option<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SimhashCandidates {
    /// Permuted tables: near-linear, every pair within the layout's k.
    Tables,
    /// Every pair: any floor, quadratic cost.
    AllPairs,
}

/// 8 blocks of 8 bits, every choice of 2 leading a table: 28 tables with
/// 16-bit prefixes find every pair within 6 bits, twice the default
/// threshold, so a sweep reaches well past it. Expected candidates per
/// page are 28 n / 2^16 for uniform fingerprints (about 8 at 18,500 pages,
/// 430 at a million): popcounts, not scores, so the stage stays cheap
/// where all pairs would be 5e11.
pub const DEFAULT_LAYOUT: &str = "8c2";

/// The floor of an all-pairs scan unless given.
pub const ALL_PAIRS_FLOOR: u32 = 16;

impl SimhashConfig {
    /// The table layout candidates come from; `None` for all pairs.
    pub fn layout(&self) -> Result<Option<Layout>, LayoutError> {
        match self.candidates {
            SimhashCandidates::AllPairs => Ok(None),
            SimhashCandidates::Tables => self
                .index
                .as_deref()
                .unwrap_or(DEFAULT_LAYOUT)
                .parse()
                .map(Some),
        }
    }

    /// The largest distance stored: as given, or what the layout finds.
    pub fn floor(&self) -> u32 {
        self.floor.unwrap_or_else(|| match self.layout() {
            Ok(Some(layout)) => layout.max_k(),
            _ => ALL_PAIRS_FLOOR,
        })
    }

    /// The detector these settings describe, with IDF from `reference`
    /// (the evaluated corpus when `None`).
    pub fn detector(&self, reference: Option<Arc<Vec<Document>>>) -> SimHash {
        SimHash::new(
            self.features,
            self.ngram,
            self.weights,
            self.bits,
            self.floor(),
            self.layout().ok().flatten(),
            reference,
        )
    }

    /// The thresholds the results are written at (the grid, or every
    /// distance up to the floor).
    pub fn listed_grid(&self) -> Vec<f64> {
        self.grid
            .clone()
            .unwrap_or_else(|| distance_grid(self.floor()))
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
            candidates: SimhashCandidates::Tables,
            index: None,
            threshold: 3.0,
            grid: None,
            floor: None,
        }
    }
}

impl AlgorithmSettings for SimhashConfig {
    fn validate(&self) -> Checked {
        in_range("ngram", self.ngram, 1, 16)?;
        if self.bits != 64 && self.bits != 128 {
            return Err(invalid("bits", format!("{} must be 64 or 128", self.bits)));
        }
        let floor = self.floor();
        if floor > self.bits {
            return Err(invalid(
                "floor",
                format!("{floor} is out of range 0..={}", self.bits),
            ));
        }
        if self.candidates == SimhashCandidates::AllPairs && self.index.is_some() {
            return Err(invalid(
                "index",
                "has no meaning with `candidates: all_pairs`; leave one of them out",
            ));
        }
        match self.layout() {
            Err(e) => return Err(invalid("index", e.to_string())),
            Ok(Some(_)) if self.bits != 64 => {
                // Name the key the user wrote: the layout, or the default
                // candidate search they did not turn off.
                let key = if self.index.is_some() { "index" } else { "candidates" };
                return Err(invalid(
                    key,
                    "permuted tables index 64-bit fingerprints; use bits: 64, or `candidates: all_pairs` for 128 bits",
                ));
            }
            Ok(Some(layout)) if floor > layout.max_k() => {
                return Err(invalid(
                    "floor",
                    format!(
                        "{floor} is past what layout {layout} finds (k <= {}); lower the floor, name a wider layout in `index`, or set `candidates: all_pairs` to compare every pair",
                        layout.max_k()
                    ),
                ))
            }
            _ => {}
        }
        if self.idf.trim().is_empty() {
            return Err(invalid("idf", "`corpus` or a path to a reference corpus"));
        }
        distance_thresholds(floor, self.threshold, &self.listed_grid())
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

    /// The layout and floor the run derived, written out: a later default
    /// cannot change which pairs a tuned file stores.
    fn pin(&mut self) {
        if let Ok(layout) = self.layout() {
            self.floor = Some(self.floor());
            self.index = layout.map(|l| l.to_string());
        }
    }
}
