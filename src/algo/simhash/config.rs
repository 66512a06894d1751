//! SimHash's entry in an experiment file.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::tables::{Layout, LayoutError};
use super::wide::{WideSearch, WideSimHash, MAX_BITS};
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
    /// 64 or 128, or a multiple of 64 up to 512 (Henzinger's 384).
    pub bits: u32,
    /// Where candidates come from: Manku et al.'s permuted `tables`
    /// (default; for fingerprints wider than 128 bits, tables of k + 1
    /// blocks, k the floor) or `all_pairs` (a popcount scan of every pair:
    /// quadratic, for sweeps past what a layout finds and for 128-bit
    /// fingerprints).
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
const ALL_PAIRS_FLOOR: u32 = 16;

/// Whether `bits` is a width SimHash signs: 64, 128, or a multiple of 64
/// up to [`MAX_BITS`] through [`WideSimHash`].
fn supported_bits(bits: u32) -> bool {
    bits.is_multiple_of(64) && (64..=MAX_BITS).contains(&bits)
}

/// `bits` checked: a width SimHash signs, or an error naming them.
pub fn check_bits(bits: u32) -> Checked {
    if supported_bits(bits) {
        return Ok(());
    }
    Err(invalid(
        "bits",
        format!("{bits} is not a supported width: 64, 128, or a multiple of 64 up to {MAX_BITS} (e.g. 192, 256, 384)"),
    ))
}

impl SimhashConfig {
    /// Fingerprints past 128 bits, signed by [`WideSimHash`].
    pub fn wide(&self) -> bool {
        self.bits > 128
    }

    /// The table layout candidates come from; `None` for all pairs and
    /// for wide fingerprints (searched by blocks, not layouts).
    pub fn layout(&self) -> Result<Option<Layout>, LayoutError> {
        match self.candidates {
            SimhashCandidates::AllPairs => Ok(None),
            SimhashCandidates::Tables if self.wide() => Ok(None),
            SimhashCandidates::Tables => self
                .index
                .as_deref()
                .unwrap_or(DEFAULT_LAYOUT)
                .parse()
                .map(Some),
        }
    }

    /// The largest distance stored: as given, or what the layout finds;
    /// for wide fingerprints 1/16 of the bits (24 of 384: twice
    /// Henzinger's 12, so a sweep reaches past her threshold).
    pub fn floor(&self) -> u32 {
        if self.wide() {
            return self.floor.unwrap_or(self.bits / 16);
        }
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
        check_bits(self.bits)?;
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
        if self.wide() && self.candidates == SimhashCandidates::Tables {
            if self.index.is_some() {
                return Err(invalid(
                    "index",
                    format!("permuted-table layouts index 64-bit fingerprints; {} bits are searched by floor + 1 blocks: leave `index` out", self.bits),
                ));
            }
            if floor >= self.bits {
                return Err(invalid(
                    "floor",
                    format!("{floor} leaves no block to agree on: the block search needs a floor below {} (or `candidates: all_pairs`)", self.bits),
                ));
            }
        }
        match self.layout() {
            Err(e) => return Err(invalid("index", e.to_string())),
            Ok(Some(_)) if self.bits != 64 => {
                // Name the key the user wrote: the layout, or the default
                // candidate search they did not turn off.
                let key = if self.index.is_some() { "index" } else { "candidates" };
                return Err(invalid(
                    key,
                    "permuted tables index 64-bit fingerprints; use bits: 64, or `candidates: all_pairs` for 128 bits (192 and wider are searched by blocks)",
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
        if self.wide() {
            let search = match self.candidates {
                SimhashCandidates::Tables => WideSearch::Blocks,
                SimhashCandidates::AllPairs => WideSearch::AllPairs,
            };
            return Box::new(WideSimHash::new(self.detector(reference), search));
        }
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

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::algo::settings::AlgorithmSettings;
    use crate::experiment::config::{AlgorithmConfig, ExperimentConfig};

    fn parse(yaml: &str) -> Result<ExperimentConfig, String> {
        ExperimentConfig::parse(Path::new("h.yaml"), yaml).map_err(|e| e.to_string())
    }

    fn simhash(entry: &str) -> Result<ExperimentConfig, String> {
        parse(&format!(
            "corpus: demo\nalgorithms:\n  - type: exact\n  - type: simhash\n{entry}"
        ))
    }

    #[test]
    fn henzinger_384_bits_parse_with_a_block_search() {
        let c = simhash("    bits: 384\n    threshold: 12\n").unwrap();
        let AlgorithmConfig::Simhash(s) = &c.algorithms[1].config else {
            panic!("not simhash")
        };
        assert_eq!(s.floor(), 24);
        assert_eq!(s.layout().unwrap(), None);
        let built = s.build(None);
        assert_eq!(built.label(), "simhash(words,tf,384 bits)");
        for bits in [192, 256, 320, 448, 512] {
            simhash(&format!("    bits: {bits}\n")).unwrap();
        }
    }

    #[test]
    fn unsupported_widths_and_thresholds_name_file_line_and_field() {
        for bits in [32, 100, 200, 576, 1024] {
            let e = simhash(&format!("    bits: {bits}\n")).unwrap_err();
            assert!(
                e.contains("h.yaml")
                    && e.contains("h.yaml:5:5")
                    && e.contains("algorithms[1].bits")
                    && e.contains("multiple of 64 up to 512"),
                "{bits}: {e}"
            );
        }
        // The threshold is checked against the floor, which is checked
        // against the bits.
        let e = simhash("    bits: 384\n    threshold: 30\n").unwrap_err();
        assert!(
            e.contains("algorithms[1].threshold") && e.contains("0..=24"),
            "{e}"
        );
        let e = simhash("    bits: 192\n    floor: 200\n").unwrap_err();
        assert!(
            e.contains("algorithms[1].floor") && e.contains("0..=192"),
            "{e}"
        );
        let e = simhash("    bits: 192\n    floor: 192\n").unwrap_err();
        assert!(
            e.contains("algorithms[1].floor") && e.contains("no block"),
            "{e}"
        );
        let e = simhash("    bits: 384\n    index: 8c2\n").unwrap_err();
        assert!(
            e.contains("algorithms[1].index") && e.contains("blocks"),
            "{e}"
        );
        // All pairs reach any floor within the bits.
        simhash("    bits: 384\n    candidates: all_pairs\n    floor: 384\n    threshold: 12\n")
            .unwrap();
    }
}
