//! SimHash fingerprints wider than 128 bits (192 to 512, in steps of 64),
//! for Henzinger's (2006) set-up: 384-bit random projections, a pair
//! C-similar when at least 372 bits agree (Hamming distance <= 12).
//!
//! The feature hashing is the 128-bit one extended block by block: bits
//! 0..128 of every feature come from [`super::SEED`]'s xxh3-128 of the
//! feature, exactly as for a 128-bit fingerprint (so a 384-bit
//! fingerprint's low 128 bits are the 128-bit fingerprint of the same
//! page); bits 128 j..128 (j + 1), for j >= 1, come from xxh3-128 of the
//! feature's first hash (its 16 little-endian bytes) with seed
//! `SEED + j` ([`block_hash`]). Each 128-bit block is a fresh member of a
//! seeded hash family, so every bit is an independent random hyperplane.
//!
//! Candidates come from the pigeonhole principle rather than all pairs:
//! cut the fingerprint into k + 1 blocks; two fingerprints within k bits
//! differ in at most k blocks, so they agree exactly on at least one.
//! Pages are sorted by each block's bits, pages sharing a block become
//! candidates, and a popcount over the words keeps those within k.

use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_128_with_seed;

use super::{fingerprint, SimHash, SEED};
use crate::algo::{Detector, Document, ScoreScale};
use crate::util::rng::fmix64;

/// The widest fingerprint: eight 64-bit words.
pub const MAX_BITS: u32 = 512;

/// The feature hash family with its version, for fingerprints wider than
/// 128 bits (see the module's documentation).
pub const WIDE_HASH_FAMILY: &str = "xxh3-128 v1, block j >= 1: xxh3-128(first hash, SEED + j)";

/// A fingerprint of `bits / 64` words, bit i in word i / 64 at i % 64.
pub type Wide = Box<[u64]>;

/// How [`WideSimHash`] finds candidate pairs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WideSearch {
    /// k + 1 blocks, candidates agreeing exactly on one (k = the floor).
    Blocks,
    /// Every pair compared by popcount: quadratic.
    AllPairs,
}

/// Bits 128 j..128 (j + 1) of a feature whose first 128 bits are `first`.
fn block_hash(first: u128, j: u32) -> u128 {
    if j == 0 {
        first
    } else {
        xxh3_128_with_seed(&first.to_le_bytes(), SEED.wrapping_add(u64::from(j)))
    }
}

/// The fingerprint of weighted features over `bits` bits (a multiple of
/// 64): each 128-bit block is [`fingerprint`] of the features' hashes in
/// that block.
fn wide_fingerprint(features: &[(u128, f64)], bits: u32) -> Wide {
    let words = (bits / 64) as usize;
    let mut out = vec![0u64; words];
    let mut hashed = Vec::new();
    for (j, pair) in out.chunks_mut(2).enumerate() {
        let block: &[(u128, f64)] = if j == 0 {
            features
        } else {
            hashed.clear();
            hashed.extend(features.iter().map(|&(h, w)| (block_hash(h, j as u32), w)));
            &hashed
        };
        let fp = fingerprint(block, 64 * pair.len() as u32);
        pair[0] = fp as u64;
        if let Some(high) = pair.get_mut(1) {
            *high = (fp >> 64) as u64;
        }
    }
    out.into_boxed_slice()
}

/// Hamming distance: the popcount of the words' XOR.
pub fn distance(a: &[u64], b: &[u64]) -> u32 {
    a.iter().zip(b).map(|(x, y)| (x ^ y).count_ones()).sum()
}

/// `len` bits from bit `start` on, as a key: the bits themselves up to 64,
/// a mix of them beyond (a collision only adds a candidate the popcount
/// then rejects).
fn block_key(fp: &[u64], start: usize, len: usize) -> u64 {
    let bits = |start: usize, len: usize| -> u64 {
        let (word, offset) = (start / 64, start % 64);
        let mut v = fp[word] >> offset;
        if offset + len > 64 {
            v |= fp[word + 1] << (64 - offset);
        }
        if len < 64 {
            v &= (1u64 << len) - 1;
        }
        v
    };
    if len <= 64 {
        return bits(start, len);
    }
    let mut key = len as u64;
    let mut at = start;
    while at < start + len {
        let take = (start + len - at).min(64);
        key = fmix64(key ^ bits(at, take)).wrapping_add(at as u64);
        at += take;
    }
    key
}

/// Block i of `blocks` over `bits` bits: its first bit and length (the
/// lengths differ by at most one).
fn block_span(bits: usize, blocks: usize, i: usize) -> (usize, usize) {
    let start = i * bits / blocks;
    (start, (i + 1) * bits / blocks - start)
}

/// Index pairs `(i, j)`, `i < j`, sorted, of the fingerprints within `k`
/// bits of each other, through k + 1 blocks: every such pair agrees on a
/// block, and is reported from the first block it agrees on only.
fn block_join(fps: &[Wide], bits: u32, k: u32) -> Vec<(u32, u32)> {
    let bits = bits as usize;
    let blocks = (k as usize + 1).min(bits);
    let mut pairs: Vec<(u32, u32)> = (0..blocks)
        .into_par_iter()
        .flat_map_iter(|b| {
            let (start, len) = block_span(bits, blocks, b);
            let mut keyed: Vec<(u64, u32)> = fps
                .iter()
                .enumerate()
                .map(|(i, fp)| (block_key(fp, start, len), i as u32))
                .collect();
            keyed.sort_unstable();
            let mut found = Vec::new();
            for group in keyed.chunk_by(|x, y| x.0 == y.0) {
                for (x, &(_, i)) in group.iter().enumerate() {
                    for &(_, j) in &group[x + 1..] {
                        let (a, c) = (&fps[i as usize], &fps[j as usize]);
                        if distance(a, c) > k {
                            continue;
                        }
                        // An earlier block the pair agrees on reports it.
                        let earlier = (0..b).any(|e| {
                            let (s, l) = block_span(bits, blocks, e);
                            block_key(a, s, l) == block_key(c, s, l)
                        });
                        if !earlier {
                            found.push((i.min(j), i.max(j)));
                        }
                    }
                }
            }
            found
        })
        .collect();
    pairs.par_sort_unstable();
    pairs
}

/// SimHash with fingerprints of 192 to 512 bits: the features and weights
/// of [`SimHash`] (its `bits` and `floor` too), signed over more hyperplanes.
#[derive(Debug, Clone)]
pub struct WideSimHash {
    pub inner: SimHash,
    pub search: WideSearch,
}

impl WideSimHash {
    pub fn new(inner: SimHash, search: WideSearch) -> Self {
        WideSimHash { inner, search }
    }

    fn blocks(&self) -> usize {
        (self.inner.floor as usize + 1).min(self.inner.bits as usize)
    }
}

impl Detector for WideSimHash {
    type Signature = Wide;

    fn name(&self) -> &'static str {
        "simhash"
    }

    fn label(&self) -> String {
        let label = self.inner.label();
        match self.search {
            WideSearch::Blocks => label,
            WideSearch::AllPairs => format!("{},all pairs)", label.trim_end_matches(')')),
        }
    }

    fn describe(&self) -> Vec<String> {
        let (bits, floor) = (self.inner.bits as usize, self.inner.floor);
        vec![match self.search {
            WideSearch::Blocks => {
                let blocks = self.blocks();
                format!(
                    "candidates: {blocks} blocks of {}-{} bits, pairs agreeing on one (every pair within {floor} bits shares one), floor {floor}",
                    bits / blocks,
                    bits.div_ceil(blocks)
                )
            }
            WideSearch::AllPairs => {
                format!("candidates: all pairs compared (quadratic), floor {floor}")
            }
        }]
    }

    fn scale(&self) -> ScoreScale {
        Detector::scale(&self.inner)
    }

    fn fit(&mut self, docs: &[Document]) -> bool {
        self.inner.fit(docs)
    }

    fn sign(&self, doc: &Document) -> Option<Wide> {
        let features = self.inner.weighted_features(doc);
        (!features.is_empty()).then(|| wide_fingerprint(&features, self.inner.bits))
    }

    fn candidates(&self, signatures: &[Option<Wide>]) -> Vec<(u32, u32)> {
        let (ids, fps): (Vec<u32>, Vec<Wide>) = signatures
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.as_ref().map(|fp| (i as u32, fp.clone())))
            .unzip();
        let floor = self.inner.floor;
        let pairs = match self.search {
            WideSearch::Blocks => block_join(&fps, self.inner.bits, floor),
            WideSearch::AllPairs => (0..fps.len())
                .into_par_iter()
                .flat_map_iter(|x| {
                    let fps = &fps;
                    (x + 1..fps.len())
                        .filter(move |&y| distance(&fps[x], &fps[y]) <= floor)
                        .map(move |y| (x as u32, y as u32))
                })
                .collect(),
        };
        pairs
            .into_iter()
            .map(|(a, b)| (ids[a as usize], ids[b as usize]))
            .collect()
    }

    fn signature_key(&self, signature: &Wide) -> Option<u128> {
        Some(crate::algo::hash_key(|h| {
            for w in signature.iter() {
                h.update(&w.to_le_bytes());
            }
        }))
    }

    fn score(&self, a: &Wide, b: &Wide) -> f32 {
        distance(a, b) as f32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::rng::SplitMix64;

    fn bit(fp: &[u64], i: usize) -> bool {
        fp[i / 64] >> (i % 64) & 1 == 1
    }

    #[test]
    fn wide_fingerprint_matches_the_per_bit_definition() {
        // The definition: bit i is the sign of the weights summed with +
        // where bit i % 128 of the feature's block-(i / 128) hash is set.
        let mut rng = SplitMix64::murmur(7);
        for page in 0..20 {
            let features: Vec<(u128, f64)> = (0..page * 5)
                .map(|i| {
                    let h = u128::from(rng.next_u64()) << 64 | u128::from(rng.next_u64());
                    let w = if i % 2 == 0 {
                        (rng.next_u64() % 5 + 1) as f64
                    } else {
                        0.75
                    };
                    (h, w)
                })
                .collect();
            for bits in [192u32, 256, 384, 512] {
                let fp = wide_fingerprint(&features, bits);
                assert_eq!(fp.len(), bits as usize / 64);
                for i in 0..bits as usize {
                    let sum: f64 = features
                        .iter()
                        .map(|&(h, w)| {
                            let block = block_hash(h, (i / 128) as u32);
                            if block >> (i % 128) & 1 == 1 {
                                w
                            } else {
                                -w
                            }
                        })
                        .sum();
                    assert_eq!(bit(&fp, i), sum > 0.0, "page {page}, {bits} bits, bit {i}");
                }
                // The low 128 bits are the 128-bit fingerprint.
                let narrow = fingerprint(&features, 128);
                assert_eq!(
                    (fp[0], fp[1]),
                    (narrow as u64, (narrow >> 64) as u64),
                    "page {page}"
                );
            }
        }
    }

    #[test]
    fn blocks_beyond_the_first_are_other_hyperplanes() {
        // A copy of block 0 would make the extra bits worthless: they must
        // agree with it about half the time, not always.
        let mut rng = SplitMix64::murmur(11);
        let (mut agree, mut total) = (0u32, 0u32);
        for _ in 0..200 {
            let h = u128::from(rng.next_u64()) << 64 | u128::from(rng.next_u64());
            for j in 1..4 {
                agree += 128 - (block_hash(h, j) ^ h).count_ones();
                total += 128;
            }
        }
        let share = f64::from(agree) / f64::from(total);
        assert!((0.45..0.55).contains(&share), "{share}");
    }

    #[test]
    fn distance_counts_differing_bits() {
        let mut rng = SplitMix64::murmur(3);
        for bits in [192usize, 384, 512] {
            let a: Wide = (0..bits / 64).map(|_| rng.next_u64()).collect();
            let b: Wide = (0..bits / 64).map(|_| rng.next_u64()).collect();
            let per_bit = (0..bits).filter(|&i| bit(&a, i) != bit(&b, i)).count();
            assert_eq!(distance(&a, &b) as usize, per_bit);
            assert_eq!(distance(&a, &a), 0);
        }
    }

    #[test]
    fn block_join_finds_every_pair_within_k() {
        // Random fingerprints and copies with a few bits flipped, so that
        // pairs exist at every distance around k; the blocks must return
        // exactly what comparing every pair returns.
        let mut rng = SplitMix64::murmur(5);
        for (bits, k) in [(384u32, 12u32), (192, 5), (256, 0), (512, 20), (384, 40)] {
            let words = bits as usize / 64;
            let mut fps: Vec<Wide> = Vec::new();
            for _ in 0..60 {
                let base: Wide = (0..words).map(|_| rng.next_u64()).collect();
                for flips in [0, k / 2, k, k + 1, 2 * k + 3] {
                    let mut copy = base.clone();
                    for _ in 0..flips {
                        let i = (rng.next_u64() % u64::from(bits)) as usize;
                        copy[i / 64] ^= 1 << (i % 64);
                    }
                    fps.push(copy);
                }
            }
            let mut expected = Vec::new();
            for i in 0..fps.len() {
                for j in i + 1..fps.len() {
                    if distance(&fps[i], &fps[j]) <= k {
                        expected.push((i as u32, j as u32));
                    }
                }
            }
            assert!(
                expected.len() > 60,
                "{bits} bits, k {k}: too few near pairs to test"
            );
            assert_eq!(block_join(&fps, bits, k), expected, "{bits} bits, k {k}");
        }
    }

    #[test]
    fn block_keys_read_across_word_boundaries() {
        let fp: Wide = vec![0xF000_0000_0000_0000, 0x0000_0000_0000_000F, 0].into_boxed_slice();
        // Bits 60..68: four set in word 0, four in word 1.
        assert_eq!(block_key(&fp, 60, 8), 0xFF);
        assert_eq!(block_key(&fp, 56, 8), 0xF0);
        assert_ne!(block_key(&fp, 0, 192), block_key(&[0, 0, 0], 0, 192));
    }
}
