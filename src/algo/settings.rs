//! What an algorithm's entry in an experiment file must offer: checking
//! its own keys, building the detector, and writing back what the
//! workbench tuned. Each algorithm keeps its settings type beside its code;
//! the experiment file only lists them.

use std::sync::Arc;

use super::{Algorithm, Document};
use crate::text::TokenKind;

/// A key of one algorithm's entry (without the `algorithms[i].` prefix)
/// and what is wrong with its value.
#[derive(Debug, Clone, PartialEq)]
pub struct Invalid {
    pub key: String,
    pub message: String,
}

pub type Checked = Result<(), Invalid>;

pub fn invalid(key: impl Into<String>, message: impl Into<String>) -> Invalid {
    Invalid {
        key: key.into(),
        message: message.into(),
    }
}

/// `value` within `lo..=hi`.
pub fn in_range(key: &str, value: usize, lo: usize, hi: usize) -> Checked {
    if (lo..=hi).contains(&value) {
        Ok(())
    } else {
        Err(invalid(key, format!("{value} is out of range {lo}..={hi}")))
    }
}

/// A fraction in `0..=1`.
pub fn fraction(key: &str, value: f64) -> Checked {
    if (0.0..=1.0).contains(&value) {
        Ok(())
    } else {
        Err(invalid(key, format!("{value} is out of range 0..=1")))
    }
}

/// A weight: finite and not negative.
pub fn weight(key: &str, value: f64) -> Checked {
    if value >= 0.0 && value.is_finite() {
        Ok(())
    } else {
        Err(invalid(key, format!("{value} must be a weight >= 0")))
    }
}

/// A similarity floor and the thresholds above it: every threshold must be
/// reachable from the stored pairs, so none may lie below the floor.
pub fn similarity_thresholds(floor: f64, threshold: f64, grid: &[f64]) -> Checked {
    if !(0.0..=1.0).contains(&floor) {
        return Err(invalid("floor", format!("{floor} is out of range 0..=1")));
    }
    let check = |key: String, t: f64| {
        if (floor..=1.0).contains(&t) {
            Ok(())
        } else {
            Err(invalid(
                key,
                format!(
                    "{t} is out of range: a similarity in {floor}..=1 (from the floor; lower `floor` to reach it)"
                ),
            ))
        }
    };
    check("threshold".into(), threshold)?;
    for (j, &t) in grid.iter().enumerate() {
        check(format!("grid[{j}]"), t)?;
    }
    Ok(())
}

/// Whole Hamming distances up to the floor.
pub fn distance_thresholds(floor: u32, threshold: f64, grid: &[f64]) -> Checked {
    let floor = f64::from(floor);
    let check = |key: String, t: f64| {
        if (0.0..=floor).contains(&t) && t.fract() == 0.0 {
            Ok(())
        } else {
            Err(invalid(
                key,
                format!("{t} is out of range: a whole Hamming distance in 0..={floor} (the floor; raise `floor` to reach it)"),
            ))
        }
    };
    check("threshold".into(), threshold)?;
    for (j, &t) in grid.iter().enumerate() {
        check(format!("grid[{j}]"), t)?;
    }
    Ok(())
}

/// The default grid of similarity thresholds: 0.1 to 1 in steps of 0.05,
/// those the floor reaches.
pub fn similarity_grid(floor: f64) -> Vec<f64> {
    (2..=20)
        .map(|i| (f64::from(i) * 0.05 * 1e4).round() / 1e4)
        .filter(|&t| t >= floor)
        .collect()
}

/// The default grid of Hamming distances: every one up to the floor.
pub fn distance_grid(floor: u32) -> Vec<f64> {
    (0..=floor).map(f64::from).collect()
}

/// The grid with the printed threshold in it, sorted, without repeats.
pub fn with_threshold(grid: &[f64], threshold: f64) -> Vec<f64> {
    let mut grid = grid.to_vec();
    grid.push(threshold);
    grid.sort_by(f64::total_cmp);
    grid.dedup();
    grid
}

/// One algorithm's settings as an experiment file gives them.
pub trait AlgorithmSettings {
    /// Checks every key; errors name the key within the entry.
    fn validate(&self) -> Checked;
    /// The detector, given the reference collection the settings name
    /// (see [`AlgorithmSettings::reference`]), tokenised as it tokenises.
    fn build(&self, reference: Option<Arc<Vec<Document>>>) -> Box<dyn Algorithm>;
    /// The threshold the table is printed at.
    fn threshold(&self) -> f64;
    /// The thresholds written to the results, the printed one among them.
    fn grid(&self) -> Vec<f64>;
    /// Tokens of its own instead of the experiment's, if it names them.
    fn tokens(&self) -> Option<TokenKind> {
        None
    }
    /// A reference corpus (relative to the experiment file) it counts
    /// IDF over, if it names one instead of the evaluated corpus.
    fn reference(&self) -> Option<&str> {
        None
    }
    /// Takes the thresholds the workbench tuned: the score's and each of
    /// [`crate::algo::Detector::gates`]' in order.
    fn tune(&mut self, threshold: f64, gates: &[f64]);
    /// Writes out every knob the run would otherwise derive from the
    /// thresholds (an LSH banding chosen for the threshold, say), so that
    /// moving a threshold and saving cannot change anything else.
    fn pin(&mut self) {}
}

/// The threshold of a detector without any (exact matching).
pub const NO_THRESHOLD: f64 = 1.0;
