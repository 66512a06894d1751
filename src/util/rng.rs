//! One seeded generator (SplitMix64), the same on every platform, and the
//! 64-bit mixer it and the hash families share.

/// The Weyl step of SplitMix64: the golden ratio in 64 bits, odd, so the
/// counter visits every u64 before it repeats.
const GOLDEN_GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// The 64-bit finaliser of MurmurHash3: every input bit flips about half of
/// the output bits, which the min-hash permutations rely on.
#[inline]
pub fn fmix64(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// The finaliser of published SplitMix64 (Stafford's variant 13).
#[inline]
fn mix_variant13(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Which finaliser turns the counter into output. Two exist because built
/// corpora were drawn with one and the hash families with the other; each
/// stream must stay bit-identical for them to reproduce.
#[derive(Clone, Copy, Debug)]
enum Finaliser {
    Variant13,
    Murmur3,
}

/// SplitMix64: a counter stepped by the golden ratio through a finaliser.
/// Small, fast, and reproducible from its seed on every platform.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
    finaliser: Finaliser,
}

impl SplitMix64 {
    /// The published SplitMix64 from `seed`: the stream corpora are built from.
    pub fn new(seed: u64) -> Self {
        SplitMix64 {
            state: seed,
            finaliser: Finaliser::Variant13,
        }
    }

    /// The counter through [`fmix64`] instead: the stream of the min-hash
    /// families' parameters and of reproducible test and benchmark inputs.
    pub fn murmur(seed: u64) -> Self {
        SplitMix64 {
            state: seed,
            finaliser: Finaliser::Murmur3,
        }
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GOLDEN_GAMMA);
        match self.finaliser {
            Finaliser::Variant13 => mix_variant13(self.state),
            Finaliser::Murmur3 => fmix64(self.state),
        }
    }

    /// Uniform-ish in `0..n` (`0` when `n` is 0); the modulo bias is
    /// negligible for the small `n` drawn here.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    /// Uniform in `[0, 1)`, from the top 53 bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// Fisher-Yates.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_published_stream_is_splitmix64() {
        // The first outputs of SplitMix64 seeded with 0, as in the
        // reference implementation (Vigna, splitmix64.c).
        let mut rng = SplitMix64::new(0);
        assert_eq!(rng.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(rng.next_u64(), 0x6e78_9e6a_a1b9_65f4);
    }

    #[test]
    fn the_murmur_stream_is_the_counter_through_fmix64() {
        let mut rng = SplitMix64::murmur(7);
        assert_eq!(rng.next_u64(), fmix64(7u64.wrapping_add(GOLDEN_GAMMA)));
        assert_eq!(
            rng.next_u64(),
            fmix64(7u64.wrapping_add(GOLDEN_GAMMA.wrapping_mul(2)))
        );
    }

    #[test]
    fn draws_stay_in_their_ranges() {
        let mut rng = SplitMix64::new(3);
        for _ in 0..1000 {
            assert!(rng.below(7) < 7);
            assert!((0.0..1.0).contains(&rng.unit()));
            assert!((2..=5).contains(&rng.range(2, 5)));
        }
        assert_eq!(rng.below(0), 0);
    }
}
