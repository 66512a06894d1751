//! `neardup bench accuracy`: are the sketches' estimates unbiased, and is
//! their spread what theory says?
//!
//! Pairs of shingle sets are made to order with an exact Jaccard J (a
//! union of `union` random 64-bit shingles, the first J·union shared), a
//! fresh pair per trial, and each estimator judges them with the hash
//! functions neardup ships (their fixed seeds): the randomness is in the
//! data, as it is for a user. Per estimator and J: the mean bias of the
//! estimate, its standard error, and the variance against theory.
//!
//! - MinHash (k hash functions): the fraction of agreeing minima, a mean
//!   of k Bernoulli(J) draws when the functions act as independent random
//!   permutations: variance J(1-J)/k.
//! - One-permutation hashing with optimal densification (k bins): the
//!   same estimator; the bins partition the union, so sampling is without
//!   replacement and the variance is at most J(1-J)/k (Li, Owen and Zhang
//!   2012), lower by about the factor (union-k)/(union-1) for full bins.
//! - SimHash (b bits, each feature weight 1): the Hamming distance h over
//!   b estimates the angle of the two feature vectors, E[h/b] = θ/π, θ
//!   the arccos of their exact cosine |A∩B|/sqrt(|A||B|). The bits are
//!   independent given the sets, so the variance of h/b is binomial,
//!   p(1-p)/b. θ/π holds for Gaussian projections; SimHash projects with
//!   ±1 signs (a feature hash's bits), and a sum of ±1 over an even number
//!   of features can be 0, a tie that sets the bit to 0 in both pages.
//!   Both are finite-set effects of order 1/sqrt(|A|); the table shows how
//!   large they are.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;
use rayon::prelude::*;

use crate::algo::shingling::minhash::{
    estimate, OnePermutation, PermutedHashes, MINHASH_SEED, ONE_PERMUTATION_SEED,
};
use crate::algo::simhash::fingerprint;
use crate::report::charts::{color, register_font, Chart, DrawResult};
use crate::util::rng::{fmix64, SplitMix64};

/// The true Jaccard similarities the pairs are made at.
pub const GRID: [f64; 10] = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95];

/// Fixed so that the figures repeat run to run.
const DATA_SEED: u64 = 0x6163_6375_7261_6379;

/// How large a run is.
#[derive(Debug, Clone, Copy)]
pub struct AccuracySettings {
    /// Pairs per J.
    pub trials: usize,
    /// Shingles in the union of each pair.
    pub union: usize,
    /// MinHash functions and one-permutation bins.
    pub k: usize,
    /// SimHash bits (64 or 128).
    pub bits: u32,
}

impl Default for AccuracySettings {
    fn default() -> Self {
        AccuracySettings {
            trials: 10_000,
            union: 400,
            k: 128,
            bits: 64,
        }
    }
}

/// The estimators measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Estimator {
    MinHash,
    OnePermutation,
    SimHash,
}

impl Estimator {
    pub const ALL: [Estimator; 3] = [
        Estimator::MinHash,
        Estimator::OnePermutation,
        Estimator::SimHash,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Estimator::MinHash => "minhash",
            Estimator::OnePermutation => "one_permutation",
            Estimator::SimHash => "simhash",
        }
    }
}

/// One estimator at one J.
#[derive(Debug, Clone, Copy)]
pub struct AccuracyRow {
    pub estimator: Estimator,
    pub jaccard: f64,
    /// What the estimate estimates: J, or θ/π for SimHash.
    pub exact: f64,
    /// What it should average on these sets: `exact`, but for SimHash
    /// the chance that two sums of ±1 over the pages' features differ in
    /// sign (a zero sum setting the bit to 0), computed exactly.
    pub expected: f64,
    pub mean: f64,
    pub variance: f64,
    /// The variance theory gives.
    pub theory: f64,
    pub trials: usize,
}

impl AccuracyRow {
    pub fn bias(&self) -> f64 {
        self.mean - self.exact
    }

    pub fn standard_error(&self) -> f64 {
        (self.variance / self.trials as f64).sqrt()
    }

    /// Bias in standard errors.
    pub fn z(&self) -> f64 {
        match self.standard_error() {
            se if se > 0.0 => self.bias() / se,
            _ if self.bias() == 0.0 => 0.0,
            _ => f64::INFINITY,
        }
    }

    pub fn variance_ratio(&self) -> f64 {
        self.variance / self.theory
    }

    /// How far a sample variance strays from the truth by chance, as a
    /// share of it: sqrt(2/(n-1)) for a normal mean of many draws.
    pub fn variance_tolerance(&self) -> f64 {
        3.0 * (2.0 / (self.trials as f64 - 1.0)).sqrt()
    }

    pub fn bias_ok(&self) -> bool {
        self.z().abs() <= 3.0
    }

    /// The mean in standard errors from [`AccuracyRow::expected`].
    pub fn z_expected(&self) -> f64 {
        (self.mean - self.expected) / self.standard_error().max(f64::MIN_POSITIVE)
    }

    /// Off θ/π but within three standard errors of what ±1 projections
    /// of these very sets give.
    pub fn bias_explained(&self) -> bool {
        !self.bias_ok() && self.z_expected().abs() <= 3.0
    }

    /// Within three standard errors of theory; for one-permutation
    /// hashing at most theory (it samples without replacement).
    pub fn variance_ok(&self) -> bool {
        let ratio = self.variance_ratio();
        match self.estimator {
            Estimator::OnePermutation => ratio <= 1.0 + self.variance_tolerance(),
            _ => (ratio - 1.0).abs() <= self.variance_tolerance(),
        }
    }
}

/// A pair with exact Jaccard `shared / union`: random shingles, the first
/// `shared` in both sets, the rest split between them.
fn made_pair(rng: &mut SplitMix64, union: usize, shared: usize) -> (Vec<u64>, Vec<u64>) {
    let all: Vec<u64> = (0..union).map(|_| rng.next_u64()).collect();
    let only = union - shared;
    let a_only = only.div_ceil(2);
    let mut a: Vec<u64> = all[..shared + a_only].to_vec();
    let mut b: Vec<u64> = all[..shared].to_vec();
    b.extend_from_slice(&all[shared + a_only..]);
    a.sort_unstable();
    b.sort_unstable();
    (a, b)
}

/// SimHash's features: each shingle as a 128-bit hash of weight 1.
fn features(set: &[u64]) -> Vec<(u128, f64)> {
    set.iter()
        .map(|&h| (u128::from(fmix64(h ^ DATA_SEED)) << 64 | u128::from(h), 1.0))
        .collect()
}

/// Every estimator's estimate of one pair: MinHash's and one-permutation
/// hashing's Jaccard, SimHash's h/b.
fn estimates(
    a: &[u64],
    b: &[u64],
    minhash: &PermutedHashes,
    oph: &OnePermutation,
    bits: u32,
) -> [f64; 3] {
    let distance = (fingerprint(&features(a), bits) ^ fingerprint(&features(b), bits)).count_ones();
    [
        estimate(&minhash.sketch(a), &minhash.sketch(b)),
        estimate(&oph.sketch(a), &oph.sketch(b)),
        f64::from(distance) / f64::from(bits),
    ]
}

fn mean_and_variance(values: impl Iterator<Item = f64> + Clone) -> (f64, f64) {
    let n = values.clone().count() as f64;
    let mean = values.clone().sum::<f64>() / n;
    let var = values.map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    (mean, var)
}

/// Bias and variance of every estimator at every J of [`GRID`].
pub fn measure(settings: AccuracySettings) -> Vec<AccuracyRow> {
    let minhash = PermutedHashes::new(settings.k, MINHASH_SEED);
    let oph = OnePermutation::new(settings.k, ONE_PERMUTATION_SEED);
    let k = settings.k as f64;
    let b = f64::from(settings.bits);
    let mut rows = Vec::new();
    for (g, &target) in GRID.iter().enumerate() {
        let shared = (target * settings.union as f64).round() as usize;
        let jaccard = shared as f64 / settings.union as f64;
        let (a_len, b_len) = {
            let only = settings.union - shared;
            (shared + only.div_ceil(2), shared + only / 2)
        };
        let cosine = shared as f64 / ((a_len * b_len) as f64).sqrt();
        let angle = cosine.clamp(-1.0, 1.0).acos() / std::f64::consts::PI;
        let sign_flip = sign_disagreement(shared, a_len - shared, b_len - shared);
        // Each trial its own stream: the same figures on any thread count.
        let per_trial: Vec<[f64; 3]> = (0..settings.trials)
            .into_par_iter()
            .map(|t| {
                let mut rng = SplitMix64::new(DATA_SEED ^ ((g as u64) << 40) ^ t as u64);
                let (x, y) = made_pair(&mut rng, settings.union, shared);
                estimates(&x, &y, &minhash, &oph, settings.bits)
            })
            .collect();
        for (e, estimator) in Estimator::ALL.into_iter().enumerate() {
            let (mean, variance) = mean_and_variance(per_trial.iter().map(|v| v[e]));
            // The bits are independent given the sets: binomial around
            // the chance each differs.
            let (exact, expected, theory) = match estimator {
                Estimator::SimHash => (angle, sign_flip, sign_flip * (1.0 - sign_flip) / b),
                _ => (jaccard, jaccard, jaccard * (1.0 - jaccard) / k),
            };
            rows.push(AccuracyRow {
                estimator,
                jaccard,
                exact,
                expected,
                mean,
                variance,
                theory,
                trials: settings.trials,
            });
        }
    }
    rows
}

/// P(K = k) for K binomial(n, 1/2), k = 0..=n: the sum of n independent
/// ±1 is 2K - n.
fn half_binomial(n: usize) -> Vec<f64> {
    let mut log_p = -(n as f64) * std::f64::consts::LN_2;
    (0..=n)
        .map(|k| {
            let p = log_p.exp();
            log_p += ((n - k) as f64 / (k + 1) as f64).ln();
            p
        })
        .collect()
}

/// `out[x + n]` = P(S > x) for x in -n..=n, S a sum of n independent ±1.
fn above(n: usize) -> Vec<f64> {
    let pmf = half_binomial(n);
    let mut out = vec![0.0; 2 * n + 1];
    let mut tail = 0.0;
    for i in (0..=2 * n).rev() {
        out[i] = tail;
        // i - n = 2k - n at i = 2k.
        if i % 2 == 0 {
            tail += pmf[i / 2];
        }
    }
    out
}

/// The chance one SimHash bit differs between two pages of weight-1
/// features sharing `shared` and owning `a_only` and `b_only`: each page's
/// bit is set where its sum of ±1 is above 0.
fn sign_disagreement(shared: usize, a_only: usize, b_only: usize) -> f64 {
    let (a, b) = (above(a_only), above(b_only));
    // P(S_only > -x).
    let set = |t: &[f64], m: usize, x: i64| -> f64 {
        match m as i64 - x {
            i if i < 0 => 1.0,
            i if i as usize >= t.len() => 0.0,
            i => t[i as usize],
        }
    };
    half_binomial(shared)
        .iter()
        .enumerate()
        .map(|(k, &p)| {
            let x = 2 * k as i64 - shared as i64;
            let (pa, pb) = (set(&a, a_only, x), set(&b, b_only, x));
            p * (pa * (1.0 - pb) + (1.0 - pa) * pb)
        })
        .sum()
}

/// The table `neardup bench accuracy` prints.
pub fn render_table(settings: AccuracySettings, rows: &[AccuracyRow]) -> String {
    let mut out = format!(
        "{} pairs per J, {} shingles in each union; MinHash k={}, one permutation {} bins, SimHash {} bits (h/b against θ/π)\n",
        settings.trials, settings.union, settings.k, settings.k, settings.bits
    );
    let _ = writeln!(
        out,
        "{:<16} {:>5} {:>7} {:>8} {:>8} {:>9} {:>6} {:>10} {:>10} {:>6}  verdict",
        "estimator", "J", "exact", "±1 exp", "mean", "bias", "z", "variance", "theory", "ratio"
    );
    for r in rows {
        let bias = match (r.bias_ok(), r.bias_explained()) {
            (true, _) => "",
            (false, true) => "off θ/π as ±1 sums predict",
            (false, false) => "BIASED",
        };
        let verdict = match (bias, r.variance_ok()) {
            ("", true) => "ok".to_string(),
            ("", false) => "variance off".to_string(),
            (b, true) => b.to_string(),
            (b, false) => format!("{b}, variance off"),
        };
        let _ = writeln!(
            out,
            "{:<16} {:>5.3} {:>7.4} {:>8.4} {:>8.4} {:>+9.5} {:>+6.2} {:>10.3e} {:>10.3e} {:>6.3}  {verdict}",
            r.estimator.name(),
            r.jaccard,
            r.exact,
            r.expected,
            r.mean,
            r.bias(),
            r.z(),
            r.variance,
            r.theory,
            r.variance_ratio()
        );
    }
    out += "exact: J, or θ/π for SimHash; ±1 exp: what the estimate averages on these sets \
            (SimHash: sums of ±1, zero sums setting the bit to 0); z: bias in standard errors \
            (|z| <= 3 is within chance); ratio: variance over theory (one permutation: at most 1, \
            it samples without replacement)\n";
    out
}

/// Bias in standard errors (left) and variance over theory (right)
/// against J, one line per estimator.
pub struct AccuracyChart<'a> {
    pub rows: &'a [AccuracyRow],
}

impl AccuracyChart<'_> {
    fn panel<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        title: &str,
        value: fn(&AccuracyRow) -> f64,
        band: (f64, f64),
    ) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        let values = self.rows.iter().map(value).filter(|v| v.is_finite());
        let (lo, hi) = values.fold(band, |(lo, hi), v| (lo.min(v), hi.max(v)));
        let pad = (hi - lo) * 0.08;
        let mut chart = ChartBuilder::on(area)
            .caption(title, ("sans-serif", 20))
            .margin(16)
            .x_label_area_size(44)
            .y_label_area_size(60)
            .build_cartesian_2d(0.05f64..1.0f64, (lo - pad)..(hi + pad))?;
        chart
            .configure_mesh()
            .x_desc("true Jaccard")
            .label_style(("sans-serif", 14))
            .axis_desc_style(("sans-serif", 16))
            .draw()?;
        for y in [band.0, band.1] {
            chart.draw_series(DashedLineSeries::new(
                vec![(0.05, y), (1.0, y)],
                6,
                4,
                RGBColor(120, 120, 120).stroke_width(1),
            ))?;
        }
        for (i, estimator) in Estimator::ALL.into_iter().enumerate() {
            let points: Vec<(f64, f64)> = self
                .rows
                .iter()
                .filter(|r| r.estimator == estimator)
                .map(|r| (r.jaccard, value(r)))
                .collect();
            let c = color(i);
            chart
                .draw_series(LineSeries::new(points.clone(), c.stroke_width(2)))?
                .label(estimator.name())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(3))
                });
            chart.draw_series(points.iter().map(|&p| Circle::new(p, 3, c.filled())))?;
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .label_font(("sans-serif", 14))
            .draw()?;
        Ok(())
    }
}

impl Chart for AccuracyChart<'_> {
    fn size(&self) -> (u32, u32) {
        (1400, 560)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let (left, right) = root.split_horizontally(700);
        self.panel(
            &left,
            "bias / standard error (dashed: ±3)",
            AccuracyRow::z,
            (-3.0, 3.0),
        )?;
        let tolerance = self.rows.first().map_or(0.2, |r| r.variance_tolerance());
        self.panel(
            &right,
            "variance / theory (dashed: 1 ± 3 standard errors)",
            AccuracyRow::variance_ratio,
            (1.0 - tolerance, 1.0 + tolerance),
        )?;
        root.present()?;
        Ok(())
    }
}

/// Draws the chart into `path` (PNG), through a temporary file renamed
/// over it.
pub fn write_chart(rows: &[AccuracyRow], path: &Path) -> Result<(), String> {
    register_font()?;
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let tmp: PathBuf = path.with_file_name(format!(".{name}.{}.tmp.png", std::process::id()));
    let chart = AccuracyChart { rows };
    let drawn = {
        let root = BitMapBackend::new(&tmp, chart.size()).into_drawing_area();
        chart.draw(&root).map_err(|e| e.to_string())
    };
    drawn
        .and_then(|()| std::fs::rename(&tmp, path).map_err(|e| e.to_string()))
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
        .map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_sums_disagree_as_counted_by_hand() {
        // One shared feature and one of each page's own: with the shared
        // +1 a page's bit is set iff its own is +1 (a tie gives 0), so the
        // bits differ when the own signs differ (1/2); with -1 neither is
        // set. 1/2 of 1/2.
        assert!((sign_disagreement(1, 1, 1) - 0.25).abs() < 1e-12);
        assert!((above(2)[2] - 0.25).abs() < 1e-12, "P(S>0) for n=2");
        // Large sets: theta/pi.
        let (s, a, b) = (2000, 500, 500);
        let angle = (s as f64 / (s + a) as f64).acos() / std::f64::consts::PI;
        assert!((sign_disagreement(s, a, b) - angle).abs() < 0.01);
    }

    #[test]
    fn a_pair_made_to_order_has_its_jaccard() {
        let mut rng = SplitMix64::new(1);
        let (a, b) = made_pair(&mut rng, 400, 380);
        let shared = a.iter().filter(|x| b.binary_search(x).is_ok()).count();
        assert_eq!((shared, a.len() + b.len() - shared), (380, 400));
    }

    /// A small run: every estimator's bias within three standard errors.
    /// A sketch that miscounted (say, an empty bin read as agreeing) or a
    /// SimHash whose ties leaned one way would fail here.
    #[test]
    fn the_estimators_are_unbiased_within_three_standard_errors() {
        let settings = AccuracySettings {
            trials: 300,
            ..AccuracySettings::default()
        };
        let rows = measure(settings);
        assert_eq!(rows.len(), GRID.len() * 3);
        for r in &rows {
            assert!(
                r.z_expected().abs() <= 3.0,
                "{}",
                render_table(settings, &[*r])
            );
            assert!(
                r.variance_ratio() < 1.6,
                "{}",
                render_table(settings, &[*r])
            );
        }
        // The same figures again: fixed seeds.
        let again = measure(settings);
        assert_eq!(rows[5].mean.to_bits(), again[5].mean.to_bits());
    }
}
