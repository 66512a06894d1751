//! The paper's measures read from a run: each figure a claim or a table
//! names (`paper:`'s `ours`, `figure`, `above`), its value and its text.

use super::clustered;
use super::frames::opt;
use super::series::best_f_of;
use crate::experiment::paper::Measure;
use crate::experiment::stored::{to_counts, StoredAlgorithm, StoredRun, StoredStage};
use crate::util::fmt::percent_sign_finite as pct;

/// The algorithm of a run whose label starts with `prefix`.
pub(super) fn find<'a>(run: &'a StoredRun, prefix: &str) -> Vec<&'a StoredAlgorithm> {
    run.algorithms
        .iter()
        .filter(|a| a.label.starts_with(prefix) || a.name == prefix)
        .collect()
}

/// The first algorithm `find` names that read `extraction` (any, when none
/// is named).
fn find_on<'a>(
    run: &'a StoredRun,
    prefix: &str,
    extraction: &Option<String>,
) -> Option<&'a StoredAlgorithm> {
    find(run, prefix)
        .into_iter()
        .find(|a| extraction.as_ref().is_none_or(|x| *x == a.extraction))
}

/// The index of a named slice (`None` for all pages), or why not.
fn slice_of(run: &StoredRun, slice: &Option<String>) -> Result<Option<usize>, String> {
    match slice {
        Some(name) => run
            .slices
            .iter()
            .position(|s| s == name)
            .map(Some)
            .ok_or_else(|| format!("no slice `{name}` in this run")),
        None => Ok(None),
    }
}

pub(super) fn measure(run: &StoredRun, m: &Measure) -> String {
    measure_value(run, m).1
}

/// A reading of one of our figures: its value (a fraction, or seconds)
/// where it has one, and how it reads.
pub(super) type Reading = (Option<f64>, String);

pub(crate) fn measure_value(run: &StoredRun, m: &Measure) -> Reading {
    match m {
        Measure::WallSeconds => (
            Some(run.wall_seconds),
            format!(
                "{:.1} s wall, {:.1} s CPU for {} pages (every algorithm of the run)",
                run.wall_seconds, run.cpu_seconds, run.pages
            ),
        ),
        Measure::AlgorithmSeconds {
            algorithm,
            extraction,
        } => algorithm_seconds(run, algorithm, extraction),
        Measure::PrecisionAtRecall {
            algorithm,
            recall,
            extraction,
        } => precision_at_recall(run, algorithm, *recall, extraction),
        Measure::BestF { algorithm } => best_f(run, algorithm),
        Measure::Precision {
            algorithm,
            threshold,
            slice,
        } => pairwise(run, algorithm, *threshold, slice, true),
        Measure::Recall {
            algorithm,
            threshold,
            slice,
        } => pairwise(run, algorithm, *threshold, slice, false),
        Measure::BestThreshold { algorithm } => best_threshold(run, algorithm),
        Measure::RecallGain { algorithm } => recall_gain(run, algorithm),
        Measure::PageF {
            algorithm,
            slice,
            extraction,
        } => page_f(run, algorithm, slice, extraction),
        Measure::PagePrecision {
            algorithm,
            slice,
            extraction,
        } => page_precision(run, algorithm, slice, extraction),
        Measure::RecallRatio { algorithm, of } => recall_ratio(run, algorithm, of),
        Measure::ClusteredF {
            algorithm,
            clustering,
            threshold,
        } => clustered::clustered_f(
            find(run, algorithm).first().copied(),
            algorithm,
            *clustering,
            *threshold,
        ),
        Measure::ClusteredWorst {
            algorithm,
            clustering,
            from,
            to,
        } => clustered::over_range(
            find(run, algorithm).first().copied(),
            algorithm,
            *clustering,
            (*from, *to),
            false,
        ),
        Measure::ClusteredDrop {
            algorithm,
            clustering,
            from,
            to,
        } => clustered::over_range(
            find(run, algorithm).first().copied(),
            algorithm,
            *clustering,
            (*from, *to),
            true,
        ),
    }
}

/// Pairwise precision or recall of the first `prefix` algorithm (all
/// pages, or a slice), at `threshold` or its configured one.
fn pairwise(
    run: &StoredRun,
    prefix: &str,
    threshold: Option<f64>,
    slice: &Option<String>,
    precision: bool,
) -> Reading {
    let Some(a) = find(run, prefix).into_iter().next() else {
        return (None, format!("no algorithm `{prefix}` in this run"));
    };
    let t = threshold.unwrap_or(a.threshold);
    let index = match slice_of(run, slice) {
        Ok(i) => i,
        Err(e) => return (None, e),
    };
    match a.at(t) {
        Some(e) => {
            let c = to_counts(index.map_or(&e.pairwise.overall, |i| &e.pairwise.slices[i]));
            let v = if precision { c.precision() } else { c.recall() };
            let within = slice.as_ref().map(|s| format!(", {s}")).unwrap_or_default();
            (Some(v), format!("{} ({} at {t}{within})", pct(v), a.label))
        }
        None => (None, format!("{} was not evaluated at {t}", a.label)),
    }
}

/// Seconds from pages to `algorithm`'s results on `extraction`: its share
/// of decoding, extraction and tokenising, and its own stages.
fn algorithm_seconds(run: &StoredRun, algorithm: &str, extraction: &str) -> Reading {
    let shared: f64 = run
        .throughput
        .iter()
        .filter(|s| {
            matches!(
                s.stage.as_str(),
                "decode+extract" | "extract (cache)" | "tokenize"
            )
        })
        .filter_map(|s| s.charged_to(extraction))
        .map(|s| s.wall_seconds)
        .sum();
    let own: Vec<&StoredStage> = run
        .throughput
        .iter()
        .filter(|s| {
            s.algorithm.starts_with(algorithm)
                && s.algorithm.contains(&format!("[{extraction}"))
                && s.stage != "evaluation"
        })
        .collect();
    if own.is_empty() {
        return (
            None,
            format!("no stages of `{algorithm}` on {extraction} in this run"),
        );
    }
    let total = shared + own.iter().map(|s| s.wall_seconds).sum::<f64>();
    let text = format!(
        "{total:.1} s wall for {} pages: decoding, extraction and tokenising {shared:.1} s, {} {:.1} s ({} cores, every stage parallel)",
        run.pages,
        own[0].algorithm,
        total - shared,
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    (Some(total), text)
}

/// The precision at the evaluated threshold whose recall is nearest `recall`.
fn precision_at_recall(
    run: &StoredRun,
    algorithm: &str,
    recall: f64,
    extraction: &Option<String>,
) -> Reading {
    let Some(a) = find_on(run, algorithm, extraction) else {
        return (None, format!("no algorithm `{algorithm}` in this run"));
    };
    let nearest = a
        .evaluations
        .iter()
        .map(|e| (e, to_counts(&e.pairwise.overall)))
        .filter(|(_, c)| c.recall().is_finite() && c.precision().is_finite())
        .min_by(|x, y| {
            (x.1.recall() - recall)
                .abs()
                .total_cmp(&(y.1.recall() - recall).abs())
        });
    match nearest {
        Some((e, c)) => (
            Some(c.precision()),
            format!(
                "{} at recall {} ({} [{}] at {})",
                pct(c.precision()),
                pct(c.recall()),
                a.label,
                a.extraction,
                e.threshold
            ),
        ),
        None => (None, format!("{} detected nothing", a.key())),
    }
}

/// The threshold of best F and its figures.
fn best_f(run: &StoredRun, algorithm: &str) -> Reading {
    let Some(a) = find(run, algorithm).into_iter().next() else {
        return (None, format!("no algorithm `{algorithm}` in this run"));
    };
    match best_f_of(a) {
        Some((t, c)) => (
            Some(c.f1()),
            format!(
                "{t} (F {}, P {}, R {}; {})",
                pct(c.f1()),
                pct(c.precision()),
                pct(c.recall()),
                a.label
            ),
        ),
        None => (None, format!("{} detected nothing", a.key())),
    }
}

/// The threshold of best F, as the threshold's value.
fn best_threshold(run: &StoredRun, algorithm: &str) -> Reading {
    let Some(a) = find(run, algorithm).into_iter().next() else {
        return (None, format!("no algorithm `{algorithm}` in this run"));
    };
    match best_f_of(a) {
        Some((t, c)) => (
            Some(t),
            format!(
                "{} (F {}, P {}, R {}; {})",
                crate::util::fmt::threshold_short(t),
                pct(c.f1()),
                pct(c.precision()),
                pct(c.recall()),
                a.label
            ),
        ),
        None => (None, format!("{} detected nothing", a.key())),
    }
}

/// How much more the last `algorithm` of the run recalls than the first.
fn recall_gain(run: &StoredRun, algorithm: &str) -> Reading {
    let found = find(run, algorithm);
    let recall = |a: &StoredAlgorithm| {
        a.at_threshold()
            .map(|e| to_counts(&e.pairwise.overall).recall())
            .unwrap_or(f64::NAN)
    };
    match (found.first(), found.last()) {
        (Some(first), Some(last)) if found.len() > 1 => {
            let gain = recall(last) / recall(first) - 1.0;
            (
                Some(gain),
                format!(
                    "{:+.0}% ({} {} -> {} {})",
                    gain * 100.0,
                    first.label,
                    pct(recall(first)),
                    last.label,
                    pct(recall(last))
                ),
            )
        }
        _ => (
            None,
            format!("needs two or more `{algorithm}` algorithms in the run"),
        ),
    }
}

/// Per-page F within a slice, at the configured threshold.
fn page_f(run: &StoredRun, algorithm: &str, slice: &str, extraction: &Option<String>) -> Reading {
    let found = find_on(run, algorithm, extraction);
    let index = run.slices.iter().position(|s| s == slice);
    match (found, index) {
        (Some(a), Some(i)) => match a.at_threshold() {
            Some(e) => {
                let c = to_counts(&e.page.slices[i]);
                (
                    Some(c.f1()),
                    format!(
                        "{} (P {}, R {}; {} at {}, {slice})",
                        pct(c.f1()),
                        pct(c.precision()),
                        pct(c.recall()),
                        a.key(),
                        a.threshold
                    ),
                )
            }
            None => (None, format!("{} has no configured threshold", a.key())),
        },
        _ => (
            None,
            format!("needs `{algorithm}` and slice `{slice}` in the run"),
        ),
    }
}

/// Per-page precision (all pages, or a slice), at the configured threshold.
fn page_precision(
    run: &StoredRun,
    algorithm: &str,
    slice: &Option<String>,
    extraction: &Option<String>,
) -> Reading {
    let found = find_on(run, algorithm, extraction);
    let index = match slice_of(run, slice) {
        Ok(i) => i,
        Err(e) => return (None, e),
    };
    let Some(a) = found else {
        return (None, format!("no algorithm `{algorithm}` in this run"));
    };
    let Some(e) = a.at_threshold() else {
        return (None, format!("{} has no configured threshold", a.key()));
    };
    let c = to_counts(index.map_or(&e.page.overall, |i| &e.page.slices[i]));
    (
        opt(c.precision()),
        format!(
            "{} ({} of {} flagged pages; {} at {}, {})",
            if c.detected == 0 {
                "none flagged".to_string()
            } else {
                pct(c.precision())
            },
            c.correct,
            c.detected,
            a.key(),
            a.threshold,
            slice.as_deref().unwrap_or("all pages")
        ),
    )
}

/// `algorithm`'s recall as a share of `of`'s.
fn recall_ratio(run: &StoredRun, algorithm: &str, of: &str) -> Reading {
    let recall = |prefix: &str| {
        find(run, prefix).first().and_then(|a| {
            a.at_threshold()
                .map(|e| (a.label.clone(), to_counts(&e.pairwise.overall).recall()))
        })
    };
    match (recall(algorithm), recall(of)) {
        (Some((a, ra)), Some((b, rb))) if rb.is_nan() || rb <= 0.0 => (
            None,
            format!("undefined: {b} recalls {} ({a} {})", pct(rb), pct(ra)),
        ),
        (Some((a, ra)), Some((b, rb))) => (
            Some(ra / rb),
            format!(
                "{:.0}% ({a} {} of {b} {})",
                ra / rb * 100.0,
                pct(ra),
                pct(rb)
            ),
        ),
        _ => (None, format!("needs `{algorithm}` and `{of}` in the run")),
    }
}
