//! Broder's w-shingles: every run of w consecutive tokens, hashed to 64 bits
//! with a fixed seed, kept as a set (sorted, duplicates removed).
//!
//! Each distinct token of a run is hashed once (its vocabulary keeps the
//! hash); a shingle's hash mixes its w token hashes in order, so a page of
//! t tokens costs t*w multiplies instead of t hashes over w-token strings.

use std::sync::Arc;

use xxhash_rust::xxh3::xxh3_64_with_seed;

use super::Tokens;
use crate::util::rng::fmix64;

/// Fixed so that shingles are the same on every run and machine.
const TOKEN_SEED: u64 = 0x7368_696e_676c_6501;
const WINDOW_SEED: u64 = 0x9e37_79b9_7f4a_7c15;

#[inline]
fn window_hash(window: &[u64]) -> u64 {
    let mut h = WINDOW_SEED ^ window.len() as u64;
    for &t in window {
        // Multiply-rotate after each token keeps the order: "a b" != "b a".
        h = (h ^ t).wrapping_mul(0x0000_0100_0000_01b3).rotate_left(31);
    }
    fmix64(h)
}

/// A shingle set, shared by the algorithms reading it.
pub type ShingleSet = Arc<[u64]>;

/// The hash a token contributes to shingles.
#[inline]
pub fn token_hash(token: &str) -> u64 {
    xxh3_64_with_seed(token.as_bytes(), TOKEN_SEED)
}

/// The page's shingle set: hashes of every w-token window, sorted and
/// deduplicated. A page shorter than one window (but not empty) is one
/// shingle of all its tokens, so that short pages still compare. Made
/// afresh; [`Tokens::shingles`] shares it between algorithms.
pub fn shingles(tokens: &Tokens, width: usize) -> Vec<u64> {
    let hashes: Vec<u64> = tokens.hashes().collect();
    shingle_hashes(&hashes, width)
}

/// As [`shingles`], from token hashes already computed.
pub fn shingle_hashes(token_hashes: &[u64], width: usize) -> Vec<u64> {
    let width = width.max(1);
    if token_hashes.is_empty() {
        return Vec::new();
    }
    let mut set: Vec<u64> = if token_hashes.len() < width {
        vec![window_hash(token_hashes)]
    } else {
        token_hashes.windows(width).map(window_hash).collect()
    };
    set.sort_unstable();
    set.dedup();
    // Sets are held for a whole run, and repeated windows leave much of
    // the list unused.
    set.shrink_to_fit();
    set
}

/// Exact Jaccard similarity |A∩B| / |A∪B| of two sorted, deduplicated sets;
/// 0 when both are empty.
pub fn jaccard(a: &[u64], b: &[u64]) -> f64 {
    let shared = intersection_size(a, b);
    let union = a.len() + b.len() - shared;
    if union == 0 {
        0.0
    } else {
        shared as f64 / union as f64
    }
}

/// Broder's containment |A∩B| / min(|A|, |B|) of two sorted, deduplicated
/// sets: 1 when the smaller lies inside the larger, however much longer
/// that one is (a lead reprinted inside a long page); 0 when either is empty.
pub fn containment(a: &[u64], b: &[u64]) -> f64 {
    let smaller = a.len().min(b.len());
    if smaller == 0 {
        0.0
    } else {
        intersection_size(a, b) as f64 / smaller as f64
    }
}

/// |A∩B| of two sorted, deduplicated sets, by merging.
pub fn intersection_size(a: &[u64], b: &[u64]) -> usize {
    // Nothing is out of reach of a need of 0.
    intersection_at_least(a, b, 0).unwrap_or(0)
}

/// |A∩B| of two sorted, deduplicated sets when it is at least `need`,
/// else `None`. The merge stops as soon as the elements one side has left
/// could not make up the difference: most candidate pairs a banding
/// proposes are far from the floor, and boilerplate makes the sets long.
pub fn intersection_at_least(a: &[u64], b: &[u64], need: usize) -> Option<usize> {
    // Elements of each side that may miss before `need` is out of reach.
    let slack = (a.len().checked_sub(need)?, b.len().checked_sub(need)?);
    let mut merge = Merge::default();
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has the feature the function is compiled for.
        unsafe { merge.blocks_avx2(a, b, slack)? };
    }
    merge.elements(a, b, slack)?;
    (merge.shared >= need).then_some(merge.shared)
}

/// Where a merge of two sorted sets stands: `i` and `j` elements of each
/// passed over, `shared` matches counted.
#[derive(Default)]
struct Merge {
    i: usize,
    j: usize,
    shared: usize,
}

impl Merge {
    /// Whether one side has passed over more unmatched elements than its
    /// slack. A match counted in a block may pair an element not yet passed
    /// over, so `shared` can only overstate the matches of those passed:
    /// the test never gives up on a pair that reaches the need.
    #[inline(always)]
    fn out_of_reach(i: usize, j: usize, shared: usize, slack: (usize, usize)) -> bool {
        i > shared + slack.0 || j > shared + slack.1
    }

    /// The merge one element at a time, to the end of either set. Branch
    /// free, since which side advances is unpredictable.
    #[inline(always)]
    fn elements(&mut self, a: &[u64], b: &[u64], slack: (usize, usize)) -> Option<()> {
        let (mut i, mut j, mut shared) = (self.i, self.j, self.shared);
        while i < a.len() && j < b.len() {
            let (x, y) = (a[i], b[j]);
            shared += usize::from(x == y);
            i += usize::from(x <= y);
            j += usize::from(y <= x);
            if Self::out_of_reach(i, j, shared, slack) {
                return None;
            }
        }
        *self = Merge { i, j, shared };
        Some(())
    }

    /// The merge four elements of each side at a time while both have four
    /// left: all sixteen pairs compared at once, then the block whose last
    /// element is smaller (or both) passed over. The element merge waits on
    /// each step's load and compare before the next; this waits once per
    /// block. Every match lies in a pair of blocks that meet: a block is
    /// passed over only when the other side's current block reaches past it.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn blocks_avx2(&mut self, a: &[u64], b: &[u64], slack: (usize, usize)) -> Option<()> {
        use std::arch::x86_64::*;
        let (mut i, mut j, mut shared) = (self.i, self.j, self.shared);
        while i + 4 <= a.len() && j + 4 <= b.len() {
            // SAFETY: both blocks lie inside their sets (the loop's test).
            let (va, vb) = unsafe {
                (
                    _mm256_loadu_si256(a.as_ptr().add(i).cast::<__m256i>()),
                    _mm256_loadu_si256(b.as_ptr().add(j).cast::<__m256i>()),
                )
            };
            // b's block turned by one, two and three places.
            let b1 = _mm256_permute4x64_epi64::<0b00_11_10_01>(vb);
            let b2 = _mm256_permute4x64_epi64::<0b01_00_11_10>(vb);
            let b3 = _mm256_permute4x64_epi64::<0b10_01_00_11>(vb);
            let equal = _mm256_or_si256(
                _mm256_or_si256(_mm256_cmpeq_epi64(va, vb), _mm256_cmpeq_epi64(va, b1)),
                _mm256_or_si256(_mm256_cmpeq_epi64(va, b2), _mm256_cmpeq_epi64(va, b3)),
            );
            // Each element of a's block matches at most one of b's.
            shared += _mm256_movemask_pd(_mm256_castsi256_pd(equal)).count_ones() as usize;
            let (x, y) = (a[i + 3], b[j + 3]);
            i += 4 * usize::from(x <= y);
            j += 4 * usize::from(y <= x);
            if Self::out_of_reach(i, j, shared, slack) {
                return None;
            }
        }
        *self = Merge { i, j, shared };
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::Lang;
    use crate::text::{tokenize, TokenKind, TokenizerConfig};

    fn chars(text: &str) -> Tokens {
        let config = TokenizerConfig {
            kind: TokenKind::Chars,
            ngram: 1,
            ..TokenizerConfig::default()
        };
        tokenize(text, Lang::Zh, &config)
    }

    #[test]
    fn containment_is_one_for_a_subset_whatever_the_sizes() {
        let small = [1, 5, 9];
        let large = [1, 2, 3, 5, 7, 9, 11, 13];
        assert_eq!(containment(&small, &large), 1.0);
        assert_eq!(containment(&large, &small), 1.0);
        assert_eq!(jaccard(&small, &large), 3.0 / 8.0);
        assert_eq!(containment(&[1, 4], &large), 0.5);
        assert_eq!(containment(&[], &large), 0.0);
    }

    #[test]
    fn two_character_windows_as_in_seed_000() {
        // 北京大学北京: windows 北京 京大 大学 学北 北京; 北京 twice -> 4.
        let s = shingles(&chars("北京大学北京"), 2);
        assert_eq!(s.len(), 4);
        assert!(s.windows(2).all(|w| w[0] < w[1]), "sorted, no duplicates");
        assert_eq!(s, shingles(&chars("北京大学北京"), 2), "fixed seed");
    }

    #[test]
    fn order_inside_a_window_matters() {
        assert_ne!(shingles(&chars("北京"), 2), shingles(&chars("京北"), 2));
        // But the set ignores where a window occurs.
        assert_eq!(shingles(&chars("ab ab"), 2), shingles(&chars("abab"), 2));
    }

    #[test]
    fn short_pages_get_one_shingle_and_empty_pages_none() {
        assert_eq!(shingles(&chars("北京"), 5).len(), 1);
        assert_ne!(shingles(&chars("北京"), 5), shingles(&chars("上海"), 5));
        assert!(shingles(&chars("  "), 2).is_empty());
    }

    #[test]
    fn intersection_at_least_is_the_intersection_or_none() {
        let mut state = 5u64;
        let mut set = |len: u64| {
            let mut s: Vec<u64> = (0..len)
                .map(|_| {
                    state = fmix64(state.wrapping_add(1));
                    state % 120
                })
                .collect();
            s.sort_unstable();
            s.dedup();
            s
        };
        // Long enough for several blocks of four, with every tail length.
        for round in 0..600 {
            let (a, b) = (set(round % 80), set((round * 7) % 90));
            let shared = a.iter().filter(|x| b.binary_search(x).is_ok()).count();
            assert_eq!(intersection_size(&a, &b), shared, "{a:?} {b:?}");
            // The element merge alone, as on a CPU without AVX2.
            let mut merge = Merge::default();
            assert!(merge.elements(&a, &b, (a.len(), b.len())).is_some());
            assert_eq!(merge.shared, shared);
            for need in 0..=a.len().max(b.len()) + 1 {
                let expected = (shared >= need).then_some(shared);
                assert_eq!(
                    intersection_at_least(&a, &b, need),
                    expected,
                    "{a:?} {b:?} {need}"
                );
            }
        }
    }

    #[test]
    fn jaccard_counts_shared_over_union() {
        assert_eq!(jaccard(&[1, 2, 3, 4], &[3, 4, 5, 6]), 2.0 / 6.0);
        assert_eq!(jaccard(&[1, 2], &[1, 2]), 1.0);
        assert_eq!(jaccard(&[], &[]), 0.0);
        assert_eq!(jaccard(&[1], &[]), 0.0);
    }
}
