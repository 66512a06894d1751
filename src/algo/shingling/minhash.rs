//! Sketches whose positions agree with probability equal to the Jaccard
//! similarity of the shingle sets they summarise.
//!
//! [`PermutedHashes`] is classic MinHash: n hash functions, the least value
//! of each over the set. Each "permutation" is a multiply-add-shift of the
//! shingle's 64-bit hash, `hi32(a*h + b)`, so the inner loop is one
//! multiply, one add and one min over n lanes, which the compiler vectorises
//! (and AVX-512 runs natively when the CPU has it).
//!
//! [`OnePermutation`] is one-permutation hashing with optimal densification
//! (Li, Owen and Zhang 2012; Shrivastava 2017): one hash per shingle picks a
//! bin and a value, each bin keeps its least value, and empty bins borrow
//! from a bin chosen by a fixed probe sequence, so cost no longer grows
//! with n.

use crate::text::shingle::fmix64;

/// Fixed so that sketches are the same on every run and machine.
pub const MINHASH_SEED: u64 = 0x6d69_6e68_6173_6801;
pub const ONE_PERMUTATION_SEED: u64 = 0x6f70_6800_6465_6e73;

/// SplitMix64: the parameter stream of the hash families.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    fmix64(*state)
}

/// n multiply-add-shift hash functions standing in for random permutations.
#[derive(Debug, Clone, PartialEq)]
pub struct PermutedHashes {
    mul: Vec<u64>,
    add: Vec<u64>,
}

impl PermutedHashes {
    pub fn new(n: usize, seed: u64) -> Self {
        let mut state = seed;
        let mul = (0..n).map(|_| splitmix64(&mut state) | 1).collect();
        let add = (0..n).map(|_| splitmix64(&mut state)).collect();
        PermutedHashes { mul, add }
    }

    pub fn len(&self) -> usize {
        self.mul.len()
    }

    pub fn is_empty(&self) -> bool {
        self.mul.is_empty()
    }

    /// The n least values over the set; empty for an empty set.
    pub fn sketch(&self, shingles: &[u64]) -> Vec<u32> {
        if shingles.is_empty() {
            return Vec::new();
        }
        let mut mins = vec![u32::MAX; self.len()];
        update_mins(&mut mins, &self.mul, &self.add, shingles);
        mins
    }
}

fn update_mins(mins: &mut [u32], mul: &[u64], add: &[u64], shingles: &[u64]) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512dq")
        {
            // SAFETY: the CPU has the features the function is compiled for.
            return unsafe { update_mins_avx512(mins, mul, add, shingles) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: as above.
            return unsafe { update_mins_avx2(mins, mul, add, shingles) };
        }
    }
    update_mins_portable(mins, mul, add, shingles)
}

#[inline(always)]
fn update_mins_portable(mins: &mut [u32], mul: &[u64], add: &[u64], shingles: &[u64]) {
    let n = mins.len();
    let (mul, add) = (&mul[..n], &add[..n]);
    for &h in shingles {
        for i in 0..n {
            let v = (mul[i].wrapping_mul(h).wrapping_add(add[i]) >> 32) as u32;
            mins[i] = mins[i].min(v);
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
unsafe fn update_mins_avx512(mins: &mut [u32], mul: &[u64], add: &[u64], shingles: &[u64]) {
    update_mins_portable(mins, mul, add, shingles)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn update_mins_avx2(mins: &mut [u32], mul: &[u64], add: &[u64], shingles: &[u64]) {
    update_mins_portable(mins, mul, add, shingles)
}

/// One-permutation hashing into n bins with optimal densification.
#[derive(Debug, Clone, PartialEq)]
pub struct OnePermutation {
    bins: usize,
    seed: u64,
}

impl OnePermutation {
    pub fn new(bins: usize, seed: u64) -> Self {
        OnePermutation {
            bins: bins.max(1),
            seed,
        }
    }

    pub fn len(&self) -> usize {
        self.bins
    }

    pub fn is_empty(&self) -> bool {
        false
    }

    /// Maps 32 random bits onto 0..n without a division.
    #[inline]
    fn bin_of(&self, bits: u64) -> usize {
        ((bits >> 32).wrapping_mul(self.bins as u64) >> 32) as usize
    }

    pub fn sketch(&self, shingles: &[u64]) -> Vec<u32> {
        if shingles.is_empty() {
            return Vec::new();
        }
        let n = self.bins;
        let mut mins = vec![u32::MAX; n];
        let mut filled = vec![false; n];
        for &h in shingles {
            let g = fmix64(h ^ self.seed);
            let bin = self.bin_of(g);
            let value = g as u32;
            if !filled[bin] || value < mins[bin] {
                mins[bin] = value;
                filled[bin] = true;
            }
        }
        // Each empty bin probes bins in an order fixed by its own index
        // (the same for every page) and copies the first filled one, so two
        // pages agree on it exactly when they agree on the bin it copies.
        for j in 0..n {
            if filled[j] {
                continue;
            }
            let mut attempt = 0u64;
            loop {
                let probe = fmix64(self.seed ^ ((j as u64) << 32 | attempt));
                let k = self.bin_of(probe);
                if filled[k] {
                    mins[j] = mins[k];
                    break;
                }
                attempt += 1;
            }
        }
        mins
    }
}

/// The fraction of positions at which two sketches agree: the estimate of
/// their sets' Jaccard similarity.
pub fn estimate(a: &[u32], b: &[u32]) -> f64 {
    if a.is_empty() || a.len() != b.len() {
        return 0.0;
    }
    let equal = a.iter().zip(b).filter(|(x, y)| x == y).count();
    equal as f64 / a.len() as f64
}

/// |A∩B| / min(|A|, |B|) from an estimate of the Jaccard and the two set
/// sizes: |A∩B| = J(|A|+|B|)/(1+J). Capped at 1, which an overestimated J
/// of sets of unequal sizes would pass.
pub fn containment_from_jaccard(jaccard: f64, a: usize, b: usize) -> f64 {
    let smaller = a.min(b);
    if smaller == 0 {
        return 0.0;
    }
    let shared = jaccard * (a + b) as f64 / (1.0 + jaccard);
    (shared / smaller as f64).min(1.0)
}

/// The Jaccard similarity a pair has when it reaches `containment` and its
/// smaller set is `size_ratio` of the larger: J = c r / (1 + r - c r). A
/// pair of more unequal sizes at that containment has a lower Jaccard.
pub fn jaccard_at_containment(containment: f64, size_ratio: f64) -> f64 {
    let shared = containment * size_ratio;
    shared / (1.0 + size_ratio - shared)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::shingle::jaccard;

    /// Random set pairs with Jaccard spread over 0..1: `shared` common
    /// elements, `only` elements in each set alone.
    fn set_pairs(count: usize, seed: u64) -> Vec<(Vec<u64>, Vec<u64>)> {
        let mut state = seed;
        (0..count)
            .map(|_| {
                let size = 50 + (splitmix64(&mut state) % 500) as usize;
                let shared = (splitmix64(&mut state) % (size as u64 + 1)) as usize;
                let common: Vec<u64> = (0..shared).map(|_| splitmix64(&mut state)).collect();
                let mut a = common.clone();
                let mut b = common;
                a.extend((0..size - shared).map(|_| splitmix64(&mut state)));
                b.extend((0..size - shared).map(|_| splitmix64(&mut state)));
                a.sort_unstable();
                b.sort_unstable();
                (a, b)
            })
            .collect()
    }

    fn mean_absolute_error(sketch: impl Fn(&[u64]) -> Vec<u32>, n: usize) -> f64 {
        let pairs = set_pairs(400, 7);
        let total: f64 = pairs
            .iter()
            .map(|(a, b)| (estimate(&sketch(a), &sketch(b)) - jaccard(a, b)).abs())
            .sum();
        let mae = total / pairs.len() as f64;
        // The estimate is a mean of n Bernoulli(J) draws: its absolute
        // error averages sqrt(2 J (1-J) / (pi n)) <= 0.4/sqrt(n).
        assert!(
            mae < 1.0 / (n as f64).sqrt(),
            "mean absolute error {mae:.4} at n={n}"
        );
        assert!(mae > 0.02 / (n as f64).sqrt(), "suspiciously exact: {mae}");
        mae
    }

    #[test]
    fn containment_from_the_estimate_and_sizes_tracks_the_exact_one() {
        use crate::text::shingle::containment;
        let family = PermutedHashes::new(256, MINHASH_SEED);
        let mut state = 3u64;
        let mut total = 0.0;
        let mut low_jaccard = 0;
        for _ in 0..200 {
            let mut large: Vec<u64> = (0..400).map(|_| splitmix64(&mut state)).collect();
            let inside = 20 + (splitmix64(&mut state) % 100) as usize;
            let outside = (splitmix64(&mut state) % 40) as usize;
            let mut small = large[..inside].to_vec();
            small.extend((0..outside).map(|_| splitmix64(&mut state)));
            large.sort_unstable();
            small.sort_unstable();
            let exact = containment(&small, &large);
            let j = estimate(&family.sketch(&small), &family.sketch(&large));
            let estimated = containment_from_jaccard(j, small.len(), large.len());
            total += (estimated - exact).abs();
            low_jaccard += usize::from(jaccard(&small, &large) < 0.3 && exact > 0.6);
        }
        let mae = total / 200.0;
        // The Jaccard estimate's error (about 0.02 at n = 256) is
        // multiplied by (|A|+|B|) / ((1+J)^2 min), 5 to 15 for these sizes:
        // about 0.07 on average.
        assert!(mae < 0.12, "mean absolute error {mae:.4}");
        assert!(mae > 0.0);
        assert!(low_jaccard > 100, "the pairs Jaccard misses: {low_jaccard}");
    }

    #[test]
    fn jaccard_at_containment_inverts_the_estimate() {
        for (c, r) in [(0.5, 0.25), (0.8, 0.5), (1.0, 0.1), (0.3, 1.0)] {
            let j = jaccard_at_containment(c, r);
            let back = containment_from_jaccard(j, (1000.0 * r) as usize, 1000);
            assert!((back - c).abs() < 1e-9, "c {c} r {r}: J {j} gives {back}");
        }
        assert_eq!(jaccard_at_containment(1.0, 1.0), 1.0);
    }

    #[test]
    fn minhash_estimates_jaccard_within_its_error() {
        for n in [64, 128, 256] {
            let family = PermutedHashes::new(n, MINHASH_SEED);
            mean_absolute_error(|s| family.sketch(s), n);
        }
    }

    #[test]
    fn one_permutation_estimates_jaccard_within_its_error() {
        for n in [64, 128, 256] {
            let oph = OnePermutation::new(n, ONE_PERMUTATION_SEED);
            mean_absolute_error(|s| oph.sketch(s), n);
        }
    }

    #[test]
    fn vectorised_and_portable_loops_agree() {
        let family = PermutedHashes::new(128, MINHASH_SEED);
        for (a, _) in set_pairs(20, 3) {
            let mut portable = vec![u32::MAX; 128];
            update_mins_portable(&mut portable, &family.mul, &family.add, &a);
            assert_eq!(family.sketch(&a), portable);
        }
    }

    #[test]
    fn identical_sets_agree_everywhere_and_empty_sets_have_no_sketch() {
        let family = PermutedHashes::new(32, MINHASH_SEED);
        let oph = OnePermutation::new(32, ONE_PERMUTATION_SEED);
        let set = [3u64, 99, 12345];
        assert_eq!(estimate(&family.sketch(&set), &family.sketch(&set)), 1.0);
        // Three shingles fill at most three of 32 bins: densification
        // must still make the sketch total and deterministic.
        assert_eq!(estimate(&oph.sketch(&set), &oph.sketch(&set)), 1.0);
        assert!(family.sketch(&[]).is_empty() && oph.sketch(&[]).is_empty());
    }
}
