//! Claims about clustering methods, decided from the clustered F1 curves
//! a run stores per method (`run.json`'s `by_clustering`).

use crate::eval::clustering::Clustering;
use crate::experiment::stored::{StoredAlgorithm, StoredClusteredCurve};
use crate::util::fmt::percent_sign_finite as pct;

use super::measures::Reading;

fn curve_of<'a>(
    a: Option<&'a StoredAlgorithm>,
    algorithm: &str,
    clustering: Clustering,
) -> Result<(&'a StoredAlgorithm, &'a StoredClusteredCurve), String> {
    let a = a.ok_or_else(|| format!("no algorithm `{algorithm}` in this run"))?;
    let curve = a
        .by_clustering
        .iter()
        .find(|c| c.clustering == clustering)
        .ok_or_else(|| {
            format!(
                "{} stores no clustered curves (run it again with this neardup)",
                a.label
            )
        })?;
    Ok((a, curve))
}

/// Clustered F1 under `clustering` at `threshold`, or the best over every
/// threshold when none is given.
pub fn clustered_f(
    a: Option<&StoredAlgorithm>,
    algorithm: &str,
    clustering: Clustering,
    threshold: Option<f64>,
) -> Reading {
    let (a, curve) = match curve_of(a, algorithm, clustering) {
        Ok(found) => found,
        Err(e) => return (None, e),
    };
    let points = curve.thresholds.iter().zip(&curve.clustered_f1);
    let found = match threshold {
        Some(t) => points
            .filter(|(&x, _)| (x - t).abs() < 1e-9)
            .map(|(&x, &f)| (x, f))
            .next(),
        None => points
            .filter_map(|(&x, &f)| f.map(|f| (x, Some(f))))
            .max_by(|x, y| x.1.unwrap_or(0.0).total_cmp(&y.1.unwrap_or(0.0))),
    };
    match found {
        Some((t, Some(f))) => (
            Some(f),
            format!("{} ({} by {clustering} at {t})", pct(f), a.label),
        ),
        Some((t, None)) => (None, format!("{} predicts nothing at {t}", a.label)),
        None => (
            None,
            format!("{} was not evaluated at {threshold:?}", a.label),
        ),
    }
}

/// The lowest clustered F1 under `clustering` over the thresholds in
/// `range`, or with `drop` the highest minus the lowest. A threshold where
/// nothing is predicted counts as F1 0.
pub fn over_range(
    a: Option<&StoredAlgorithm>,
    algorithm: &str,
    clustering: Clustering,
    (from, to): (f64, f64),
    drop: bool,
) -> Reading {
    let (a, curve) = match curve_of(a, algorithm, clustering) {
        Ok(found) => found,
        Err(e) => return (None, e),
    };
    let (lo, hi) = (from.min(to) - 1e-9, from.max(to) + 1e-9);
    let inside: Vec<(f64, f64)> = curve
        .thresholds
        .iter()
        .zip(&curve.clustered_f1)
        .filter(|(&t, _)| t >= lo && t <= hi)
        .map(|(&t, f)| (t, f.unwrap_or(0.0)))
        .collect();
    let worst = inside.iter().min_by(|x, y| x.1.total_cmp(&y.1));
    let best = inside.iter().max_by(|x, y| x.1.total_cmp(&y.1));
    match (worst, best) {
        (Some(&(tw, w)), Some(&(tb, b))) if drop => (
            Some(b - w),
            format!(
                "{} ({} by {clustering}: {} at {tb} down to {} at {tw}, thresholds {from} to {to})",
                pct(b - w),
                a.label,
                pct(b),
                pct(w)
            ),
        ),
        (Some(&(tw, w)), _) => (
            Some(w),
            format!(
                "{} ({} by {clustering} at {tw}, the lowest over thresholds {from} to {to})",
                pct(w),
                a.label
            ),
        ),
        _ => (
            None,
            format!(
                "{} has no threshold from {from} to {to} (below its floor?)",
                a.label
            ),
        ),
    }
}
