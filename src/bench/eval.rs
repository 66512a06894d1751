//! `neardup bench eval`: the evaluation alone, each clustering method's
//! whole threshold curve, from ten thousand stored pairs to ten million.
//!
//! The input is made, not read, from a fixed seed, so every run times the
//! same pairs. It is shaped like a real run's, where the cost lies:
//! - labelled duplicate clusters whose sizes follow a power law
//!   (P(size >= s) = (2/s)^1.5: mostly pairs and triples, a few of
//!   hundreds), and one clique of near-identical pages holding about a
//!   quarter of the stored pairs, as the real `[full_text]` runs hold
//!   millions of pairs inside one clique;
//! - within a cluster, each pair is stored with probability 0.9, at a score
//!   near the cluster's own tightness, unless that falls below the floor;
//! - a fifth of the stored pairs are false candidates between random pages
//!   of different clusters (singletons included), at low scores;
//! - pages beyond the clusters' are unique, so that there are at least a
//!   quarter as many pages as stored pairs (the per-threshold work is
//!   linear in pages);
//! - pages are in a random order (a cluster's pages are not adjacent),
//!   with four categories and the copy kinds of a built corpus as slices.
//!
//! Scores are Jaccard estimates in [0.3, 1] and come in two kinds: quantised
//! to 128ths, as MinHash's estimates are (many ties, under a hundred
//! distinct scores), or continuous (every score distinct).
//!
//! Connected components are timed as their `ThresholdCurve` read at every
//! reachable threshold; each other method as `curve_beside_connected`,
//! given the connected curve (which it reads the pairwise level from), as
//! the experiment runner calls them. Everything runs on one thread (the
//! evaluator has no parallel parts; a pool of one keeps it so), with the
//! process's peak memory reset before each method, so the peak is that
//! method's, the input included.

use std::fmt::Write as _;
use std::hint::black_box;

use crate::algo::{AlgorithmRun, Direction, ScoreScale, ScoredPair};
use crate::corpus::{Content, Page};
use crate::eval::choose::reachable_thresholds;
use crate::eval::clustering::{curve_beside_connected, curves_beside_connected, Clustering};
use crate::eval::curve::ThresholdCurve;
use crate::eval::{Evaluation, Truth};
use crate::util::rng::SplitMix64;
use crate::util::stage::{peak_memory_bytes, process_cpu_seconds};

/// The seed every input is drawn from.
pub const SEED: u64 = 0x6576_616c_6265_6e63;

/// Pairs scoring below this are never stored.
const FLOOR: f64 = 0.3;
/// The share of stored pairs that are false candidates.
const FALSE_SHARE: f64 = 0.2;
/// The chance that a pair inside a cluster is stored.
const RECALL: f64 = 0.9;
/// Pages per stored pair, at least.
const PAGES_PER_PAIR: f64 = 0.25;
/// The power of the cluster sizes' tail.
const TAIL: f64 = 1.5;
/// The share of the pairs the largest clique holds (before recall).
const CLIQUE_SHARE: f64 = 0.25;
/// False candidates score at most this.
const FALSE_MAX: f64 = 0.75;
/// Quantised scores are multiples of one over this (MinHash's 128).
const QUANTUM: f64 = 128.0;

/// How the scores are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScoreKind {
    /// Multiples of 1/128, as MinHash estimates are: many ties.
    Quantised,
    /// Every score its own.
    Continuous,
}

impl ScoreKind {
    pub const ALL: [ScoreKind; 2] = [ScoreKind::Quantised, ScoreKind::Continuous];

    pub fn name(self) -> &'static str {
        match self {
            ScoreKind::Quantised => "quantised",
            ScoreKind::Continuous => "continuous",
        }
    }

    fn apply(self, score: f64) -> f32 {
        match self {
            // Upwards, so that a score at or above the floor stays so.
            ScoreKind::Quantised => ((score * QUANTUM).ceil() / QUANTUM).min(1.0) as f32,
            ScoreKind::Continuous => score as f32,
        }
    }
}

impl std::str::FromStr for ScoreKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| format!("`{s}` is not a kind of scores: quantised or continuous"))
    }
}

/// A made input: the truth of its pages and a run of its stored pairs.
pub struct EvalInput {
    pub truth: Truth,
    pub run: AlgorithmRun,
    pub clusters: usize,
    pub largest_cluster: usize,
}

/// The pairs inside the clusters, as offsets into the clustered pages
/// (cluster k holds offsets `starts[k]..starts[k + 1]`).
struct Clusters {
    starts: Vec<u32>,
    pairs: Vec<(u32, u32, f32)>,
}

/// A cluster size of the power law, at most `cap`.
fn cluster_size(rng: &mut SplitMix64, cap: usize) -> usize {
    loop {
        let u = 1.0 - rng.unit();
        let size = (2.0 * u.powf(-1.0 / TAIL)) as usize;
        if size <= cap {
            return size.max(2);
        }
    }
}

/// Clusters, the largest clique first, until their stored pairs number
/// `budget` (the last cluster may store fewer than it would).
fn draw_clusters(rng: &mut SplitMix64, budget: usize, kind: ScoreKind) -> Clusters {
    // The least clique whose pairs reach the share.
    let wanted = (CLIQUE_SHARE * budget as f64 / (1.0 - FALSE_SHARE)).max(1.0);
    let clique = ((1.0 + (1.0 + 8.0 * wanted).sqrt()) / 2.0).ceil() as usize;
    let mut clusters = Clusters {
        starts: vec![0],
        pairs: Vec::with_capacity(budget),
    };
    let mut size = clique;
    while clusters.pairs.len() < budget {
        // Large clusters are of near-identical pages; small ones vary.
        let tightness = if size >= 100 {
            0.85 + 0.15 * rng.unit()
        } else {
            0.4 + 0.6 * rng.unit()
        };
        let start = *clusters.starts.last().expect("starts at 0");
        'members: for i in 0..size as u32 {
            for j in i + 1..size as u32 {
                if clusters.pairs.len() == budget {
                    break 'members;
                }
                let score = (tightness + 0.1 * (rng.unit() + rng.unit() - 1.0)).clamp(0.0, 1.0);
                if rng.chance(RECALL) && score >= FLOOR {
                    clusters
                        .pairs
                        .push((start + i, start + j, kind.apply(score)));
                }
            }
        }
        clusters.starts.push(start + size as u32);
        size = cluster_size(rng, clique);
    }
    clusters
}

const CATEGORIES: [&str; 4] = ["news", "sport", "finance", "culture"];
const COPIES: [&str; 3] = ["reprint", "lead_block", "synonyms"];

/// The input of `target` stored pairs with scores of `kind`, drawn from
/// `seed`: exactly `target` distinct pairs (at least one).
pub fn synthetic_input(target: usize, kind: ScoreKind, seed: u64) -> EvalInput {
    let target = target.max(1);
    let mut rng = SplitMix64::murmur(seed);
    let false_pairs = (FALSE_SHARE * target as f64).round() as usize;
    let clusters = draw_clusters(&mut rng, target - false_pairs, kind);
    let clustered = *clusters.starts.last().expect("starts at 0") as usize;
    let pages = ((PAGES_PER_PAIR * target as f64).ceil() as usize)
        .max(2 * clustered)
        .max(2);
    let mut order: Vec<u32> = (0..pages as u32).collect();
    rng.shuffle(&mut order);
    // Per page, its cluster; pages past the clustered ones are alone.
    let count = clusters.starts.len() - 1;
    let mut cluster_of = vec![0u32; pages];
    let mut member = vec![0u32; pages];
    let mut largest = 0;
    for k in 0..count {
        let (from, to) = (clusters.starts[k], clusters.starts[k + 1]);
        largest = largest.max((to - from) as usize);
        for offset in from..to {
            cluster_of[order[offset as usize] as usize] = k as u32;
            member[order[offset as usize] as usize] = offset - from;
        }
    }
    for (i, &page) in order.iter().enumerate().skip(clustered) {
        cluster_of[page as usize] = (count + i - clustered) as u32;
    }
    let mut pairs: Vec<ScoredPair> = clusters
        .pairs
        .iter()
        .map(|&(x, y, score)| {
            let (a, b) = (order[x as usize], order[y as usize]);
            ScoredPair {
                a: a.min(b),
                b: a.max(b),
                score,
            }
        })
        .collect();
    drop(clusters);
    // False candidates: distinct pairs across clusters, topped up after
    // the rare repeat is removed.
    while pairs.len() < target {
        for _ in pairs.len()..target {
            let (a, b) = loop {
                let (a, b) = (rng.below(pages) as u32, rng.below(pages) as u32);
                if cluster_of[a as usize] != cluster_of[b as usize] {
                    break (a.min(b), a.max(b));
                }
            };
            let u = rng.unit();
            let score = kind.apply(FLOOR + (FALSE_MAX - FLOOR) * u * u);
            pairs.push(ScoredPair { a, b, score });
        }
        pairs.sort_unstable_by_key(|p| (p.a, p.b));
        pairs.dedup_by_key(|p| (p.a, p.b));
    }
    let text_len: Vec<usize> = (0..pages).map(|_| 200 + rng.below(5000)).collect();
    let corpus: Vec<Page> = (0..pages)
        .map(|p| {
            let k = cluster_of[p] as usize;
            let mut page = Page::new(
                format!("p{p}"),
                format!("c{k}"),
                Content::Text(String::new()),
            );
            page.category = Some(CATEGORIES[k % CATEGORIES.len()].to_string());
            page.kind = (k < count).then(|| match member[p] {
                0 => "original".to_string(),
                m => COPIES[m as usize % COPIES.len()].to_string(),
            });
            page
        })
        .collect();
    let truth = Truth::new(&corpus, &text_len);
    let scale = ScoreScale {
        name: "jaccard",
        direction: Direction::AtLeast,
        min: 0.0,
        max: 1.0,
        floor: FLOOR,
    };
    let label = format!("synthetic({})", kind.name());
    EvalInput {
        truth,
        run: AlgorithmRun::of_pairs("minhash", label, scale, pairs),
        clusters: count,
        largest_cluster: largest,
    }
}

/// What one method's curve cost at one size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timing {
    pub cpu_seconds: f64,
    pub wall_seconds: f64,
    /// Peak resident bytes while it ran, the input included.
    pub peak_bytes: Option<u64>,
}

/// Resets the process's peak resident memory to its current size (Linux
/// 4.0 and later; elsewhere the peak stays the process's).
fn reset_peak_memory() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

fn timed<T>(work: impl FnOnce() -> T) -> (T, Timing) {
    reset_peak_memory();
    let cpu = process_cpu_seconds();
    let wall = std::time::Instant::now();
    let out = black_box(work());
    let timing = Timing {
        wall_seconds: wall.elapsed().as_secs_f64(),
        cpu_seconds: process_cpu_seconds() - cpu,
        peak_bytes: peak_memory_bytes(),
    };
    (out, timing)
}

/// The connected curve at the runner's thresholds.
fn connected_curve(input: &EvalInput, thresholds: &[f64]) -> Vec<Evaluation> {
    ThresholdCurve::of_run(&input.truth, &input.run, &[]).at_each(thresholds)
}

/// The methods that walk the pairs in order, which `neardup run` sorts
/// once for all of them.
const WALKED: [Clustering; 4] = [
    Clustering::Center,
    Clustering::MergeCenter,
    Clustering::Star,
    Clustering::Pivot,
];

/// Each of `methods`' curve over `input` timed alone, then (when two or
/// more of them walk the pairs) those walked together as `neardup run`
/// does: `(row name, timing)` in that order.
pub fn time_methods(
    input: &EvalInput,
    methods: &[Clustering],
    mut progress: impl FnMut(&str),
) -> Vec<(String, Timing)> {
    let thresholds = reachable_thresholds(&input.run.scale);
    let (connected, connected_timing) = timed(|| connected_curve(input, &thresholds));
    let mut out = Vec::new();
    for &method in methods {
        let timing = if method == Clustering::Connected {
            connected_timing
        } else {
            progress(&format!("  {method}..."));
            let (_, timing) = timed(|| {
                curve_beside_connected(
                    &input.truth,
                    &input.run,
                    &[],
                    method,
                    &thresholds,
                    &connected,
                )
            });
            timing
        };
        progress(&format!(
            "  {method}: {:.2} s CPU, {:.2} s wall, peak {}",
            timing.cpu_seconds,
            timing.wall_seconds,
            megabytes(timing.peak_bytes)
        ));
        out.push((method.name().to_string(), timing));
    }
    let walked: Vec<Clustering> = methods
        .iter()
        .copied()
        .filter(|m| WALKED.contains(m))
        .collect();
    if walked.len() >= 2 {
        let (_, timing) = timed(|| {
            curves_beside_connected(
                &input.truth,
                &input.run,
                &[],
                &walked,
                &thresholds,
                &connected,
            )
        });
        let names: Vec<&str> = walked.iter().map(|m| m.name()).collect();
        out.push((format!("{} together", names.join(" + ")), timing));
    }
    out
}

/// One input's figures, for the line above the table.
#[derive(Debug, Clone)]
pub struct SizeFigures {
    pub pairs: usize,
    pub pages: usize,
    pub clusters: usize,
    pub largest_cluster: usize,
    pub distinct_scores: usize,
    pub thresholds: usize,
    pub make_seconds: f64,
}

/// Every method's timing at each size, for one kind of scores.
#[derive(Debug, Clone)]
pub struct EvalTable {
    pub kind: ScoreKind,
    pub sizes: Vec<SizeFigures>,
    /// Per row, its name and its timing at each size.
    pub rows: Vec<(String, Vec<Timing>)>,
}

/// Times `methods` at each of `targets` (ascending) stored pairs of
/// `kind`, on one thread, telling `progress` as it goes.
pub fn run_eval(
    kind: ScoreKind,
    targets: &[usize],
    methods: &[Clustering],
    mut progress: impl FnMut(&str) + Send,
) -> EvalTable {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a pool of one thread starts");
    let mut table = EvalTable {
        kind,
        sizes: Vec::new(),
        rows: Vec::new(),
    };
    for &target in targets {
        progress(&format!(
            "{target} {} pairs: making the input...",
            kind.name()
        ));
        let started = std::time::Instant::now();
        let input = synthetic_input(target, kind, SEED);
        let mut scores: Vec<f32> = input.run.pairs.iter().map(|p| p.score).collect();
        scores.sort_unstable_by(f32::total_cmp);
        scores.dedup();
        let figures = SizeFigures {
            pairs: input.run.pairs.len(),
            pages: input.truth.pages(),
            clusters: input.clusters,
            largest_cluster: input.largest_cluster,
            distinct_scores: scores.len(),
            thresholds: reachable_thresholds(&input.run.scale).len(),
            make_seconds: started.elapsed().as_secs_f64(),
        };
        progress(&format!(
            "{target} {} pairs: {} pages, {} clusters, the largest {} pages, {} distinct scores ({:.1} s)",
            kind.name(),
            figures.pages,
            figures.clusters,
            figures.largest_cluster,
            figures.distinct_scores,
            figures.make_seconds
        ));
        let column = table.sizes.len();
        for (name, timing) in pool.install(|| time_methods(&input, methods, &mut progress)) {
            let at = match table.rows.iter().position(|(n, _)| *n == name) {
                Some(at) => at,
                None => {
                    let missing = Timing {
                        cpu_seconds: f64::NAN,
                        wall_seconds: f64::NAN,
                        peak_bytes: None,
                    };
                    table.rows.push((name, vec![missing; targets.len()]));
                    table.rows.len() - 1
                }
            };
            table.rows[at].1[column] = timing;
        }
        table.sizes.push(figures);
    }
    table
}

fn megabytes(bytes: Option<u64>) -> String {
    bytes.map_or("-".into(), |b| format!("{:.0} MB", b as f64 / 1e6))
}

/// The least-squares slope of log `y` against log `x` over the points
/// whose `y` is at least 10 ms; `None` with fewer than two of them.
pub fn fitted_exponent(points: &[(usize, f64)]) -> Option<f64> {
    let logs: Vec<(f64, f64)> = points
        .iter()
        .filter(|&&(_, y)| y.is_finite() && y >= 0.01)
        .map(|&(x, y)| ((x as f64).ln(), y.ln()))
        .collect();
    let n = logs.len() as f64;
    let mean_x = logs.iter().map(|p| p.0).sum::<f64>() / n;
    let mean_y = logs.iter().map(|p| p.1).sum::<f64>() / n;
    let spread: f64 = logs.iter().map(|p| (p.0 - mean_x).powi(2)).sum();
    (logs.len() >= 2 && spread > 0.0).then(|| {
        logs.iter()
            .map(|p| (p.0 - mean_x) * (p.1 - mean_y))
            .sum::<f64>()
            / spread
    })
}

/// The table as Markdown: a line per size, then per method the CPU
/// seconds at each size, the exponent fitted over all sizes and between
/// the two largest, pairs per CPU second and the peak at the largest;
/// then the wall seconds the same way.
pub fn render_eval(table: &EvalTable) -> String {
    let mut out = format!("### {} scores\n\n", table.kind.name());
    for s in &table.sizes {
        let _ = writeln!(
            out,
            "- {} stored pairs: {} pages, {} clusters (the largest {} pages), {} distinct scores, {} thresholds",
            s.pairs, s.pages, s.clusters, s.largest_cluster, s.distinct_scores, s.thresholds
        );
    }
    out.push('\n');
    let cpu = render_seconds(table, "CPU s", |t| t.cpu_seconds);
    let wall = render_seconds(table, "wall s", |t| t.wall_seconds);
    out.push_str(&cpu);
    out.push('\n');
    out.push_str(&wall);
    out
}

fn render_seconds(table: &EvalTable, unit: &str, of: fn(&Timing) -> f64) -> String {
    let pairs: Vec<usize> = table.sizes.iter().map(|s| s.pairs).collect();
    let largest = pairs.last().copied().unwrap_or(0);
    let mut out = format!("| method ({unit}) |");
    for p in &pairs {
        let _ = write!(out, " {p} pairs |");
    }
    let _ = writeln!(
        out,
        " exponent (fit) | exponent (last two) | pairs/s at {largest} | peak at {largest} |"
    );
    out.push_str("|---|");
    for _ in 0..pairs.len() + 4 {
        out.push_str("---:|");
    }
    out.push('\n');
    for (name, timings) in &table.rows {
        let values: Vec<f64> = timings.iter().map(of).collect();
        let _ = write!(out, "| {name} |");
        for v in &values {
            if v.is_nan() {
                out.push_str(" - |");
            } else {
                let _ = write!(out, " {v:.3} |");
            }
        }
        let points: Vec<(usize, f64)> = pairs.iter().copied().zip(values.iter().copied()).collect();
        let last_two = match points.len() {
            n if n >= 2 => {
                let ((x0, y0), (x1, y1)) = (points[n - 2], points[n - 1]);
                super::scale::exponent(x0, y0, x1, y1)
            }
            _ => None,
        };
        for e in [fitted_exponent(&points), last_two] {
            match e {
                Some(e) => {
                    let _ = write!(out, " {e:.2} |");
                }
                None => out.push_str(" - |"),
            }
        }
        let rate = values
            .last()
            .filter(|v| v.is_finite() && **v > 0.0)
            .map_or("-".into(), |v| format!("{:.2e}", largest as f64 / v));
        let peak = megabytes(timings.last().and_then(|t| t.peak_bytes));
        let _ = writeln!(out, " {rate} | {peak} |");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_input_repeats_and_hits_its_target() {
        for kind in ScoreKind::ALL {
            let a = synthetic_input(20_000, kind, SEED);
            let b = synthetic_input(20_000, kind, SEED);
            assert_eq!(a.run.pairs, b.run.pairs);
            assert_eq!(a.truth.cluster, b.truth.cluster);
            let pairs = &a.run.pairs;
            assert!(pairs.len().abs_diff(20_000) <= 200, "{} pairs", pairs.len());
            // Sorted, distinct, a < b, within the floor: what a run stores.
            assert!(pairs
                .windows(2)
                .all(|w| (w[0].a, w[0].b) < (w[1].a, w[1].b)));
            assert!(pairs.iter().all(|p| p.a < p.b));
            assert!(pairs
                .iter()
                .all(|p| (FLOOR as f32..=1.0).contains(&p.score)));
            // About a fifth are false, and one clique holds many pairs.
            let truth = &a.truth;
            let false_pairs = pairs
                .iter()
                .filter(|p| truth.cluster[p.a as usize] != truth.cluster[p.b as usize])
                .count();
            assert!((3_500..=4_500).contains(&false_pairs), "{false_pairs}");
            assert!(a.largest_cluster >= 70, "{}", a.largest_cluster);
            assert!(truth.pages() >= 5_000);
            assert!(truth.slice_names.len() > 4, "{:?}", truth.slice_names);
        }
        let other = synthetic_input(20_000, ScoreKind::Quantised, SEED + 1);
        assert_ne!(
            other.run.pairs,
            synthetic_input(20_000, ScoreKind::Quantised, SEED)
                .run
                .pairs
        );
    }

    #[test]
    fn quantised_scores_tie_and_continuous_ones_do_not() {
        let distinct = |kind| {
            let mut s: Vec<f32> = synthetic_input(5_000, kind, SEED)
                .run
                .pairs
                .iter()
                .map(|p| p.score)
                .collect();
            s.sort_unstable_by(f32::total_cmp);
            s.dedup();
            s.len()
        };
        assert!(distinct(ScoreKind::Quantised) <= 91);
        assert!(distinct(ScoreKind::Continuous) > 4_000);
    }

    #[test]
    fn every_method_gets_a_row_and_the_walked_ones_one_together() {
        let input = synthetic_input(2_000, ScoreKind::Quantised, SEED);
        let rows = time_methods(&input, &Clustering::ALL, |_| {});
        let names: Vec<&str> = rows.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "connected",
                "center",
                "merge_center",
                "star",
                "pivot",
                "average",
                "center + merge_center + star + pivot together"
            ]
        );
    }

    #[test]
    fn exponents_are_fitted_over_every_size() {
        let e = fitted_exponent(&[(10, 0.1), (100, 1.0), (1000, 10.0)]).unwrap();
        assert!((e - 1.0).abs() < 1e-9);
        let e = fitted_exponent(&[(10, 0.001), (100, 1.0), (1000, 100.0)]).unwrap();
        assert!((e - 2.0).abs() < 1e-9, "the point under 10 ms is left out");
        assert!(fitted_exponent(&[(10, 1.0)]).is_none());
    }
}
