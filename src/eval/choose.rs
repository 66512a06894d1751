//! Choosing a threshold: the thresholds worth trying for a score scale,
//! and the one that best serves an objective (best pairwise F, best
//! clustered F, or the most recall at a least precision). The workbench's
//! jump keys, the run summary and `neardup tune` all choose here.

use std::fmt;
use std::str::FromStr;

use super::{Counts, Evaluation};
use crate::algo::{Direction, ScoreScale};

/// Thresholds worth trying: every whole number for counts and distances,
/// hundredths for similarities, from the floor (the last threshold the
/// stored pairs can answer) to the far end of the scale.
pub fn reachable_thresholds(scale: &ScoreScale) -> Vec<f64> {
    let (lo, hi) = reachable_range(scale);
    let step = threshold_step(scale);
    let n = ((hi - lo) / step).round().max(0.0) as usize;
    (0..=n).map(|i| round4(lo + i as f64 * step)).collect()
}

/// The thresholds the stored pairs answer exactly: from the floor to the
/// strict end of the scale. Past the floor, pairs were never stored, so a
/// looser threshold would show the floor's numbers.
pub fn reachable_range(scale: &ScoreScale) -> (f64, f64) {
    match scale.direction {
        Direction::AtLeast => (scale.floor.max(scale.min), scale.max),
        Direction::AtMost => (scale.min, scale.floor.min(scale.max)),
    }
}

/// Whether the stored pairs answer `threshold` (it is not past the floor).
pub fn within_floor(scale: &ScoreScale, threshold: f64) -> bool {
    let (lo, hi) = reachable_range(scale);
    threshold >= lo - 1e-9 && threshold <= hi + 1e-9
}

/// A key press's step: 1 for integral scales (Hamming distances, shared
/// signatures), 0.01 for similarities.
pub fn threshold_step(scale: &ScoreScale) -> f64 {
    if scale.min.fract() == 0.0 && scale.max.fract() == 0.0 && scale.max - scale.min >= 2.0 {
        1.0
    } else {
        0.01
    }
}

pub fn round4(x: f64) -> f64 {
    (x * 1e4).round() / 1e4
}

/// What a chosen threshold should serve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Objective {
    /// The best F1 over judged pairs.
    PairwiseF1,
    /// The best F1 over the transitive closure of the judged pairs.
    ClusteredF1,
    /// The most pairwise recall with pairwise precision at least this.
    RecallAtPrecision(f64),
}

impl Objective {
    /// The value the objective ranks an evaluation by; `None` when the
    /// evaluation does not qualify (precision below the least asked).
    pub fn value(&self, e: &Evaluation) -> Option<f64> {
        let nan_is_zero = |x: f64| if x.is_nan() { 0.0 } else { x };
        match *self {
            Objective::PairwiseF1 => Some(nan_is_zero(e.pairwise.overall.f1())),
            Objective::ClusteredF1 => Some(nan_is_zero(e.clustered.overall.f1())),
            Objective::RecallAtPrecision(_) => self.value_of_pairs(&e.pairwise.overall),
        }
    }

    /// The value over a set of pairs with these counts (judged pairs, say):
    /// both F objectives are its F1 there, as pairs have no clusters.
    pub fn value_of_pairs(&self, c: &Counts) -> Option<f64> {
        let nan_is_zero = |x: f64| if x.is_nan() { 0.0 } else { x };
        match *self {
            Objective::PairwiseF1 | Objective::ClusteredF1 => Some(nan_is_zero(c.f1())),
            Objective::RecallAtPrecision(p) => {
                (c.detected > 0 && c.precision() >= p).then(|| nan_is_zero(c.recall()))
            }
        }
    }

    /// Short name for tables and keys.
    pub fn short(&self) -> String {
        match self {
            Objective::PairwiseF1 => "best F".into(),
            Objective::ClusteredF1 => "best clustered F".into(),
            Objective::RecallAtPrecision(p) => format!("most R at P>={p}"),
        }
    }
}

impl fmt::Display for Objective {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Objective::PairwiseF1 => f.write_str("f1"),
            Objective::ClusteredF1 => f.write_str("clustered_f1"),
            Objective::RecallAtPrecision(p) => write!(f, "recall_at_precision={p}"),
        }
    }
}

impl FromStr for Objective {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "f1" => Ok(Objective::PairwiseF1),
            "clustered_f1" => Ok(Objective::ClusteredF1),
            _ => {
                let p = s
                    .strip_prefix("recall_at_precision")
                    .map(|rest| rest.strip_prefix('=').unwrap_or(rest));
                match p {
                    Some("") => Ok(Objective::RecallAtPrecision(0.99)),
                    Some(p) => match p.parse::<f64>() {
                        Ok(p) if (0.0..=1.0).contains(&p) => Ok(Objective::RecallAtPrecision(p)),
                        _ => Err(format!("`{p}` is not a precision in 0..=1")),
                    },
                    None => Err(format!(
                        "`{s}` is not an objective: f1, clustered_f1 or recall_at_precision=P"
                    )),
                }
            }
        }
    }
}

/// The evaluation that serves `objective` best among `evaluations`; ties
/// go to the strictest threshold (fewest pairs judged duplicates). `None`
/// when none qualifies.
pub fn choose<'a>(
    evaluations: &'a [Evaluation],
    scale: &ScoreScale,
    objective: Objective,
) -> Option<&'a Evaluation> {
    best_by(evaluations, scale, |e| e.threshold, |e| objective.value(e))
}

/// The item with the highest `value`, ties to the strictest threshold;
/// `None` when no item has a value.
pub fn best_by<'a, T>(
    items: &'a [T],
    scale: &ScoreScale,
    threshold: impl Fn(&T) -> f64,
    value: impl Fn(&T) -> Option<f64>,
) -> Option<&'a T> {
    let strictness = |e: &T| match scale.direction {
        Direction::AtLeast => threshold(e),
        Direction::AtMost => -threshold(e),
    };
    items
        .iter()
        .filter_map(|e| value(e).map(|v| (v, e)))
        .max_by(|(va, a), (vb, b)| {
            va.total_cmp(vb)
                .then(strictness(a).total_cmp(&strictness(b)))
        })
        .map(|(_, e)| e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::LevelMetrics;

    fn scale() -> ScoreScale {
        ScoreScale {
            name: "jaccard",
            direction: Direction::AtLeast,
            min: 0.0,
            max: 1.0,
            floor: 0.3,
        }
    }

    fn eval(threshold: f64, detected: u64, correct: u64) -> Evaluation {
        let counts = Counts {
            actual: 10,
            detected,
            correct,
        };
        let level = LevelMetrics {
            overall: counts,
            slices: Vec::new(),
        };
        Evaluation {
            threshold,
            pairwise: level.clone(),
            clustered: level.clone(),
            page: level,
            largest_cluster: Default::default(),
        }
    }

    #[test]
    fn reachable_thresholds_stop_at_the_floor() {
        let t = reachable_thresholds(&scale());
        assert_eq!(t.first(), Some(&0.3));
        assert_eq!(t.last(), Some(&1.0));
        assert!(within_floor(&scale(), 0.3) && !within_floor(&scale(), 0.29));
        let hamming = ScoreScale {
            name: "hamming distance",
            direction: Direction::AtMost,
            min: 0.0,
            max: 64.0,
            floor: 16.0,
        };
        assert_eq!(reachable_thresholds(&hamming).len(), 17);
        assert!(!within_floor(&hamming, 17.0));
    }

    #[test]
    fn objectives_pick_their_own_threshold() {
        // P falls and R rises as the threshold loosens.
        let evals = vec![
            eval(0.9, 2, 2),
            eval(0.7, 6, 6),
            eval(0.5, 10, 8),
            eval(0.3, 20, 9),
        ];
        let s = scale();
        let f = choose(&evals, &s, Objective::PairwiseF1).unwrap();
        assert_eq!(f.threshold, 0.5, "F 0.8 beats 0.75 at 0.7");
        let r = choose(&evals, &s, Objective::RecallAtPrecision(0.99)).unwrap();
        assert_eq!(r.threshold, 0.7, "the most recall at precision 1");
        assert!(choose(&evals[3..], &s, Objective::RecallAtPrecision(0.99)).is_none());
    }

    #[test]
    fn objectives_parse_and_print() {
        for text in ["f1", "clustered_f1", "recall_at_precision=0.95"] {
            let o: Objective = text.parse().unwrap();
            assert_eq!(o.to_string(), text);
        }
        assert_eq!(
            "recall_at_precision".parse::<Objective>().unwrap(),
            Objective::RecallAtPrecision(0.99)
        );
        assert!("recall_at_precision=2".parse::<Objective>().is_err());
        assert!("f2".parse::<Objective>().is_err());
    }
}
