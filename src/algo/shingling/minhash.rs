//! Sketches whose positions agree with probability equal to the Jaccard
//! similarity of the shingle sets they summarise.
//!
//! [`PermutedHashes`] is classic MinHash: n hash functions, the least value
//! of each over the set. Each shingle's 64-bit hash is first folded once to
//! 32 bits (the high half of a multiply by an odd constant, so that keys
//! differing only in low bits still spread); each "permutation" is then
//! `(x ^ s_i) * m_i` in 32-bit arithmetic, a bijection of the 32-bit keys.
//! The inner loop is one xor, one multiply and one min per lane on 32-bit
//! lanes: 16 lanes per AVX-512 register, 8 per AVX2 register, against 8 or 4
//! for a 64-bit multiply-add, and the 32-bit multiply is the cheap one.
//! Lanes are processed in blocks of 32 whose minima stay in registers
//! while the block runs over the whole set.
//!
//! [`OnePermutation`] is one-permutation hashing with optimal densification
//! (Li, Owen and Zhang 2012; Shrivastava 2017): one hash per shingle picks a
//! bin and a value, each bin keeps its least value, and empty bins borrow
//! from a bin chosen by a fixed probe sequence, so cost no longer grows
//! with n.

use crate::util::rng::{fmix64, SplitMix64};

/// Fixed so that sketches are the same on every run and machine.
pub const MINHASH_SEED: u64 = 0x6d69_6e68_6173_6801;
/// Names the hash family with its version. Exported sketches carry it, so
/// files written by different families are never joined: the seed alone
/// does not say how its values were computed. Change it whenever a change
/// to the hashing changes a sketch's values.
pub const MINHASH_FAMILY: &str = "fold64-xor-mul32 v2";
pub const ONE_PERMUTATION_FAMILY: &str = "oph-optimal-densification v1";
pub const ONE_PERMUTATION_SEED: u64 = 0x6f70_6800_6465_6e73;

/// Folds a 64-bit key to the 32 bits the lanes hash: the high half of a
/// multiply by an odd constant depends on every key bit.
const FOLD: u64 = 0x9e37_79b9_7f4a_7c15;

/// Lanes per block: 32 u32 minima are two AVX-512 or four AVX2 registers,
/// so a block's minima, xors and multipliers all stay in registers.
const BLOCK: usize = 32;

/// n xor-multiply hash functions on 32-bit keys standing in for random
/// permutations.
#[derive(Debug, Clone, PartialEq)]
pub struct PermutedHashes {
    xor: Vec<u32>,
    mul: Vec<u32>,
}

impl PermutedHashes {
    pub fn new(n: usize, seed: u64) -> Self {
        let mut rng = SplitMix64::murmur(seed);
        let xor = (0..n).map(|_| rng.next_u64() as u32).collect();
        // Odd, so that multiplying is a bijection of the 32-bit keys.
        let mul = (0..n).map(|_| rng.next_u64() as u32 | 1).collect();
        PermutedHashes { xor, mul }
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
        let keys: Vec<u32> = shingles.iter().map(|&h| fold(h)).collect();
        let mut mins = vec![u32::MAX; self.len()];
        update_mins(&mut mins, &self.xor, &self.mul, &keys);
        mins
    }
}

#[inline]
fn fold(h: u64) -> u32 {
    (h.wrapping_mul(FOLD) >> 32) as u32
}

fn update_mins(mins: &mut [u32], xor: &[u32], mul: &[u32], keys: &[u32]) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has the features the function is compiled for.
            return unsafe { update_mins_avx512(mins, xor, mul, keys) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: as above.
            return unsafe { update_mins_avx2(mins, xor, mul, keys) };
        }
    }
    update_mins_portable(mins, xor, mul, keys)
}

#[inline(always)]
fn update_mins_portable(mins: &mut [u32], xor: &[u32], mul: &[u32], keys: &[u32]) {
    let n = mins.len();
    let (xor, mul) = (&xor[..n], &mul[..n]);
    let mut blocks = mins.chunks_exact_mut(BLOCK);
    let mut xors = xor.chunks_exact(BLOCK);
    let mut muls = mul.chunks_exact(BLOCK);
    for ((block, x), m) in (&mut blocks).zip(&mut xors).zip(&mut muls) {
        // Fixed-size copies tell the compiler the trip count, so the lane
        // loop unrolls into whole registers and the minima never leave them.
        let mut acc: [u32; BLOCK] = block.try_into().expect("a whole block");
        let x: &[u32; BLOCK] = x.try_into().expect("a whole block");
        let m: &[u32; BLOCK] = m.try_into().expect("a whole block");
        for &k in keys {
            for i in 0..BLOCK {
                acc[i] = acc[i].min((k ^ x[i]).wrapping_mul(m[i]));
            }
        }
        block.copy_from_slice(&acc);
    }
    let (rest, x, m) = (blocks.into_remainder(), xors.remainder(), muls.remainder());
    for &k in keys {
        for i in 0..rest.len() {
            rest[i] = rest[i].min((k ^ x[i]).wrapping_mul(m[i]));
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn update_mins_avx512(mins: &mut [u32], xor: &[u32], mul: &[u32], keys: &[u32]) {
    update_mins_portable(mins, xor, mul, keys)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn update_mins_avx2(mins: &mut [u32], xor: &[u32], mul: &[u32], keys: &[u32]) {
    update_mins_portable(mins, xor, mul, keys)
}

/// One-permutation hashing into n bins with optimal densification.
#[derive(Debug, Clone, PartialEq)]
pub struct OnePermutation {
    bins: usize,
    seed: u64,
    /// The first [`PROBES_KEPT`] bins each bin's densification probes, in
    /// order. They depend on the bin and the seed only, so computing them
    /// once takes the hashing out of every page's densification.
    probes: Vec<u32>,
}

/// Probes kept per bin: an empty bin's first probe lands on a filled bin
/// with the share of bins filled (about 85% at two shingles a bin), so
/// eight probes leave about one bin in a million to hash further.
const PROBES_KEPT: usize = 8;

/// Shingles mixed per pass: the mixing vectorises over a buffer that stays
/// on the stack, and the scatter into bins follows while it is in L1.
const MIX_CHUNK: usize = 64;

/// Bins whose "reached" flags fit on the stack.
const STACK_BINS: usize = 512;

impl OnePermutation {
    pub fn new(bins: usize, seed: u64) -> Self {
        let bins = bins.max(1);
        let probes = (0..bins)
            .flat_map(|j| (0..PROBES_KEPT as u64).map(move |attempt| (j, attempt)))
            .map(|(j, attempt)| bin_of(bins, probe_hash(seed, j, attempt)) as u32)
            .collect();
        OnePermutation { bins, seed, probes }
    }

    pub fn len(&self) -> usize {
        self.bins
    }

    pub fn is_empty(&self) -> bool {
        false
    }

    pub fn sketch(&self, shingles: &[u64]) -> Vec<u32> {
        if shingles.is_empty() {
            return Vec::new();
        }
        let n = self.bins;
        let mut mins = vec![u32::MAX; n];
        // A flag byte per bin rather than a bit: a bitset's read-modify-write
        // of one word chains every shingle's store through memory, separate
        // bytes let the stores run independently.
        let mut stack_flags = [false; STACK_BINS];
        let mut heap_flags = Vec::new();
        let reached: &mut [bool] = if n <= STACK_BINS {
            &mut stack_flags[..n]
        } else {
            heap_flags.resize(n, false);
            &mut heap_flags
        };
        let mut mixed = [0u64; MIX_CHUNK];
        for chunk in shingles.chunks(MIX_CHUNK) {
            let mixed = &mut mixed[..chunk.len()];
            mix_into(chunk, self.seed, mixed);
            for &g in mixed.iter() {
                let bin = bin_of(n, g);
                // SAFETY: `bin_of(n, _)` is `(x * n) >> 32` with `x < 2^32`,
                // so below `n`, the length of both slices; the bounds checks
                // were a fifth of this loop.
                unsafe {
                    // Branch-free: whether a shingle lowers its bin is a coin
                    // flip the branch predictor cannot learn.
                    let min = mins.get_unchecked_mut(bin);
                    *min = (*min).min(g as u32);
                    *reached.get_unchecked_mut(bin) = true;
                }
            }
        }
        // Each empty bin probes bins in an order fixed by its own index
        // (the same for every page) and copies the first filled one, so two
        // pages agree on it exactly when they agree on the bin it copies.
        // The first probe is taken without a branch (about one bin in seven
        // is empty, too often to predict); the few bins whose first probe is
        // empty too are listed and probed further. Only empty bins are
        // written, and only filled bins are read, so the copies can be made
        // in place.
        let mut unresolved = Vec::new();
        for j in 0..n {
            let first = self.probes[j * PROBES_KEPT] as usize;
            let source = if reached[j] { j } else { first };
            mins[j] = mins[source];
            if !reached[j] & !reached[first] {
                unresolved.push(j);
            }
        }
        for j in unresolved {
            let kept = &self.probes[j * PROBES_KEPT + 1..(j + 1) * PROBES_KEPT];
            let source = kept
                .iter()
                .map(|&k| k as usize)
                .find(|&k| reached[k])
                .unwrap_or_else(|| {
                    (PROBES_KEPT as u64..)
                        .map(|attempt| bin_of(n, probe_hash(self.seed, j, attempt)))
                        .find(|&k| reached[k])
                        .expect("a page with a shingle fills a bin")
                });
            mins[j] = mins[source];
        }
        mins
    }
}

/// Maps 32 random bits onto 0..n without a division.
#[inline]
fn bin_of(bins: usize, bits: u64) -> usize {
    ((bits >> 32).wrapping_mul(bins as u64) >> 32) as usize
}

/// The hash behind an empty bin's `attempt`-th densification probe.
fn probe_hash(seed: u64, bin: usize, attempt: u64) -> u64 {
    fmix64(seed ^ ((bin as u64) << 32 | attempt))
}

/// `fmix64(h ^ seed)` of every shingle of a chunk, in a loop of its own so
/// that it vectorises (eight 64-bit lanes per AVX-512 register); the bins
/// are then filled by a scalar pass.
#[inline]
fn mix_into(shingles: &[u64], seed: u64, out: &mut [u64]) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512dq")
        {
            // SAFETY: the CPU has the features the function is compiled for.
            return unsafe { mix_into_avx512(shingles, seed, out) };
        }
    }
    mix_into_portable(shingles, seed, out)
}

#[inline(always)]
fn mix_into_portable(shingles: &[u64], seed: u64, out: &mut [u64]) {
    for (o, &h) in out.iter_mut().zip(shingles) {
        *o = fmix64(h ^ seed);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
unsafe fn mix_into_avx512(shingles: &[u64], seed: u64, out: &mut [u64]) {
    mix_into_portable(shingles, seed, out)
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
        let mut rng = SplitMix64::murmur(seed);
        (0..count)
            .map(|_| {
                let size = 50 + (rng.next_u64() % 500) as usize;
                let shared = (rng.next_u64() % (size as u64 + 1)) as usize;
                let common: Vec<u64> = (0..shared).map(|_| rng.next_u64()).collect();
                let mut a = common.clone();
                let mut b = common;
                a.extend((0..size - shared).map(|_| rng.next_u64()));
                b.extend((0..size - shared).map(|_| rng.next_u64()));
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
        let mut rng = SplitMix64::murmur(3u64);
        let mut total = 0.0;
        let mut low_jaccard = 0;
        for _ in 0..200 {
            let mut large: Vec<u64> = (0..400).map(|_| rng.next_u64()).collect();
            let inside = 20 + (rng.next_u64() % 100) as usize;
            let outside = (rng.next_u64() % 40) as usize;
            let mut small = large[..inside].to_vec();
            small.extend((0..outside).map(|_| rng.next_u64()));
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
    fn vectorised_and_portable_loops_agree_with_the_definition() {
        // 100 lanes: three whole blocks and a remainder of four.
        let family = PermutedHashes::new(100, MINHASH_SEED);
        for (a, _) in set_pairs(20, 3) {
            let keys: Vec<u32> = a.iter().map(|&h| fold(h)).collect();
            let mut portable = vec![u32::MAX; 100];
            update_mins_portable(&mut portable, &family.xor, &family.mul, &keys);
            let definition: Vec<u32> = (0..100)
                .map(|i| {
                    keys.iter()
                        .map(|&k| (k ^ family.xor[i]).wrapping_mul(family.mul[i]))
                        .min()
                        .unwrap()
                })
                .collect();
            assert_eq!(portable, definition);
            assert_eq!(family.sketch(&a), definition);
        }
    }

    /// E|X/n - J| for X ~ Binomial(n, J): the error of n independent lanes.
    fn binomial_mean_absolute_error(n: usize, j: f64) -> f64 {
        if j <= 0.0 || j >= 1.0 {
            return 0.0;
        }
        let mut log_p = (1.0 - j).ln() * n as f64;
        let mut total = 0.0;
        for k in 0..=n {
            if k > 0 {
                log_p += ((n - k + 1) as f64 / k as f64).ln() + (j / (1.0 - j)).ln();
            }
            total += log_p.exp() * (k as f64 / n as f64 - j).abs();
        }
        total
    }

    /// Mean signed error and mean absolute error over the pairs, with the
    /// mean absolute error independent lanes would have.
    fn errors(
        sketch: impl Fn(&[u64]) -> Vec<u32>,
        n: usize,
        pairs: &[(Vec<u64>, Vec<u64>)],
    ) -> (f64, f64, f64) {
        let (mut bias, mut mae, mut ideal) = (0.0, 0.0, 0.0);
        for (a, b) in pairs {
            let j = jaccard(a, b);
            let e = estimate(&sketch(a), &sketch(b)) - j;
            bias += e;
            mae += e.abs();
            ideal += binomial_mean_absolute_error(n, j);
        }
        let count = pairs.len() as f64;
        (bias / count, mae / count, ideal / count)
    }

    /// Pairs of sets of consecutive integers: keys with no randomness of
    /// their own, which the fold must spread before the lanes hash them.
    fn sequential_pairs(count: usize) -> Vec<(Vec<u64>, Vec<u64>)> {
        (0..count as u64)
            .map(|t| {
                let size = 50 + (t * 37) % 400;
                let shared = (t * 101) % (size + 1);
                let base = t << 20;
                let a: Vec<u64> = (base..base + size).collect();
                let b: Vec<u64> = (base + size - shared..base + 2 * size - shared).collect();
                (a, b)
            })
            .collect()
    }

    #[test]
    fn minhash_is_unbiased_and_as_accurate_as_independent_lanes() {
        let n = 128;
        let family = PermutedHashes::new(n, MINHASH_SEED);
        for (keys, pairs) in [
            ("random", set_pairs(1000, 11)),
            ("sequential", sequential_pairs(1000)),
        ] {
            let (bias, mae, ideal) = errors(|s| family.sketch(s), n, &pairs);
            // The mean of 1000 errors of sd <= 0.045 has sd <= 0.0015.
            assert!(bias.abs() < 0.006, "{keys} keys: bias {bias:+.4}");
            // Correlated lanes would show as a larger error than n
            // independent draws give.
            assert!(
                mae < 1.15 * ideal,
                "{keys} keys: mean absolute error {mae:.4}, independent lanes {ideal:.4}"
            );
        }
    }

    #[test]
    fn one_permutation_is_unbiased() {
        let n = 128;
        let oph = OnePermutation::new(n, ONE_PERMUTATION_SEED);
        let (bias, mae, ideal) = errors(|s| oph.sketch(s), n, &set_pairs(1000, 13));
        assert!(bias.abs() < 0.006, "bias {bias:+.4}");
        // Densified bins copy each other, so OPH may be a little worse than
        // independent lanes on small sets, never far.
        assert!(
            mae < 1.5 * ideal,
            "mean absolute error {mae:.4}, ideal {ideal:.4}"
        );
    }

    #[test]
    fn lanes_pick_their_minima_independently() {
        // Over a set of 50 random keys, two independent lanes pick the
        // same element as their minimum with probability 1/50.
        let n = 128;
        let family = PermutedHashes::new(n, MINHASH_SEED);
        let mut rng = SplitMix64::murmur(5);
        let (mut same, mut pairs) = (0usize, 0usize);
        for _ in 0..100 {
            let set: Vec<u64> = (0..50).map(|_| rng.next_u64()).collect();
            let keys: Vec<u32> = set.iter().map(|&h| fold(h)).collect();
            let argmins: Vec<usize> = (0..n)
                .map(|i| {
                    (0..keys.len())
                        .min_by_key(|&k| (keys[k] ^ family.xor[i]).wrapping_mul(family.mul[i]))
                        .unwrap()
                })
                .collect();
            for i in 0..n {
                for k in i + 1..n {
                    pairs += 1;
                    same += usize::from(argmins[i] == argmins[k]);
                }
            }
        }
        let rate = same as f64 / pairs as f64;
        assert!((rate - 0.02).abs() < 0.002, "coincidence rate {rate:.4}");
    }

    #[test]
    fn one_permutation_matches_its_definition() {
        // The definition, one branch per shingle: a bin keeps the least
        // value it is given; empty bins copy the first filled bin their
        // probe sequence reaches.
        let reference = |oph: &OnePermutation, set: &[u64]| {
            let n = oph.bins;
            let (mut mins, mut filled) = (vec![u32::MAX; n], vec![false; n]);
            for &h in set {
                let g = fmix64(h ^ oph.seed);
                let bin = bin_of(oph.bins, g);
                if !filled[bin] || (g as u32) < mins[bin] {
                    mins[bin] = g as u32;
                    filled[bin] = true;
                }
            }
            // Only bins filled by shingles are copied from, so `filled`
            // stays as the shingles left it.
            for j in (0..n).filter(|&j| !filled[j]) {
                let mut attempt = 0u64;
                loop {
                    let k = bin_of(oph.bins, fmix64(oph.seed ^ ((j as u64) << 32 | attempt)));
                    if filled[k] {
                        mins[j] = mins[k];
                        break;
                    }
                    attempt += 1;
                }
            }
            mins
        };
        // 3 shingles in 300 or 600 bins send most empty bins past the kept
        // probes; 600 bins keep their flags on the heap.
        for n in [1, 64, 100, 128, 300, 600] {
            let oph = OnePermutation::new(n, ONE_PERMUTATION_SEED);
            for (a, _) in set_pairs(20, 5) {
                assert_eq!(oph.sketch(&a), reference(&oph, &a), "n = {n}");
                assert_eq!(oph.sketch(&a[..3]), reference(&oph, &a[..3]), "n = {n}");
            }
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
