//! Candidate pairs from sketches without comparing every pair.
//!
//! The sketch is cut into b groups of r values and each group is hashed
//! again. LSH banding makes two pages candidates when they share any group;
//! Broder's super-shingles (1997) are the same groups, with pages sharing at
//! least m of them as candidates. A pair of Jaccard J shares a given group
//! with probability J^r, so it becomes a candidate with probability
//! P(J) = P(Binomial(b, J^r) >= m), the S-curve 1-(1-J^r)^b when m = 1.

use rayon::prelude::*;

use crate::util::rng::fmix64;

/// Grouping of a sketch into bands, and how many must be shared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Banding {
    pub bands: usize,
    pub rows: usize,
    /// Shared bands a pair needs to be a candidate (1 for LSH).
    pub min_shared: usize,
}

/// Steps of the midpoint rule for the false positive/negative areas.
const INTEGRATION_STEPS: usize = 1000;

/// A chosen banding must make a pair this far above the threshold a
/// candidate with at least [`RECALL_AT_MARGIN`]: the weighted areas alone
/// put the steep part of the curve on the threshold, where half the pairs
/// just above it are lost, and the threshold sweep needs them.
const RECALL_MARGIN: f64 = 0.1;
const RECALL_AT_MARGIN: f64 = 0.97;

impl Banding {
    /// The probability that a pair of Jaccard `j` becomes a candidate.
    pub fn probability(&self, j: f64) -> f64 {
        let p = j.clamp(0.0, 1.0).powi(self.rows as i32);
        let b = self.bands;
        let m = self.min_shared.max(1);
        if m == 1 {
            return 1.0 - (1.0 - p).powi(b as i32);
        }
        // 1 - P(fewer than m bands shared).
        let mut below = 0.0;
        let mut choose = 1.0;
        for k in 0..m.min(b + 1) {
            below += choose * p.powi(k as i32) * (1.0 - p).powi((b - k) as i32);
            choose = choose * (b - k) as f64 / (k + 1) as f64;
        }
        (1.0 - below).clamp(0.0, 1.0)
    }

    /// Areas under the curve below the threshold (pairs that should not be
    /// candidates but are) and above it (pairs missed), for J uniform.
    pub fn error_areas(&self, threshold: f64) -> (f64, f64) {
        let step = 1.0 / INTEGRATION_STEPS as f64;
        let (mut false_positive, mut false_negative) = (0.0, 0.0);
        for i in 0..INTEGRATION_STEPS {
            let j = (i as f64 + 0.5) * step;
            let p = self.probability(j);
            if j < threshold {
                false_positive += p * step;
            } else {
                false_negative += (1.0 - p) * step;
            }
        }
        (false_positive, false_negative)
    }

    /// The bands and rows, b*r <= `hashes`, minimising the weighted sum of
    /// the false positive and false negative areas around `threshold`,
    /// among those finding pairs [`RECALL_MARGIN`] above the threshold with
    /// probability [`RECALL_AT_MARGIN`] (all of them when none does).
    pub fn for_threshold(
        threshold: f64,
        hashes: usize,
        false_positive_weight: f64,
        false_negative_weight: f64,
    ) -> Banding {
        let mut best = Banding {
            bands: 1,
            rows: hashes.max(1),
            min_shared: 1,
        };
        let mut best_error = (true, f64::INFINITY);
        let margin = (threshold + RECALL_MARGIN).min(1.0);
        for bands in 1..=hashes {
            for rows in 1..=hashes / bands {
                let candidate = Banding {
                    bands,
                    rows,
                    min_shared: 1,
                };
                let (fp, fneg) = candidate.error_areas(threshold);
                let misses_margin = candidate.probability(margin) < RECALL_AT_MARGIN;
                let error = (
                    misses_margin,
                    false_positive_weight * fp + false_negative_weight * fneg,
                );
                if error < best_error {
                    best_error = error;
                    best = candidate;
                }
            }
        }
        best
    }

    /// Each band's hash, in band order; empty when the sketch is shorter
    /// than bands*rows (such a page takes no part in the search).
    pub fn band_hashes(&self, sketch: &[u32]) -> Vec<u64> {
        if sketch.len() < self.bands * self.rows {
            return Vec::new();
        }
        (0..self.bands)
            .map(|band| band_key(&sketch[band * self.rows..(band + 1) * self.rows], band))
            .collect()
    }

    /// The S-curve at a few similarities, for printing.
    pub fn curve(&self, points: &[f64]) -> Vec<(f64, f64)> {
        points.iter().map(|&j| (j, self.probability(j))).collect()
    }

    /// How many bands two sketches share (all `rows` values equal).
    pub fn shared_bands(&self, a: &[u32], b: &[u32]) -> usize {
        (0..self.bands)
            .filter(|band| {
                let (lo, hi) = (band * self.rows, (band + 1) * self.rows);
                a.len() >= hi && b.len() >= hi && a[lo..hi] == b[lo..hi]
            })
            .count()
    }

    /// Index pairs `(i, j)`, `i < j`, of sketches sharing at least
    /// `min_shared` bands, sorted. Sketches shorter than bands*rows (and
    /// pages without one) take no part.
    pub fn candidates(&self, sketches: &[Option<&[u32]>]) -> Vec<(u32, u32)> {
        self.candidates_joined(sketches, usize::MAX, |_| Vec::new())
    }

    /// [`Banding::candidates`] with every bucket of more than `max_bucket`
    /// pages left out of the pairs and handed to `join`, each bucket's
    /// pages ascending, buckets in band order: a bucket of n pages holds
    /// C(n, 2) pairs (450 million for 30,000 near-identical pages), which
    /// `join` joins into components instead. It returns each sketch's
    /// component (`u32::MAX` for none, or an empty list when it joined
    /// nothing), and no pair inside one component is listed: the smaller
    /// buckets of such a cluster (pages whose edits moved a band's minimum
    /// to the same next shingle) hold millions of those pairs too.
    pub fn candidates_joined(
        &self,
        sketches: &[Option<&[u32]>],
        max_bucket: usize,
        join: impl FnOnce(&[Vec<u32>]) -> Vec<u32>,
    ) -> Vec<(u32, u32)> {
        let rows = self.rows;
        let band_of = |s: &[u32], band: usize| {
            let (lo, hi) = (band * rows, (band + 1) * rows);
            (s.len() >= hi).then(|| band_key(&s[lo..hi], band))
        };
        // Per band, its keys sorted with their pages beside them. Each page
        // then gathers the later pages of its own buckets: the pairs come
        // out sorted, each once, and every band's pairs are never listed
        // together (two near-identical pages share most bands, so on
        // boilerplate-heavy text that list runs to ten times the pairs).
        // Each page's place in every band's table too: a page finds its
        // bucket there instead of by binary search, whose probes miss the
        // caches once the tables outgrow them (the search grew as n^1.5
        // between 30,000 and 100,000 pages).
        #[allow(clippy::type_complexity)]
        let (tables, big): (Vec<(Vec<u64>, Vec<u32>, Vec<u32>)>, Vec<Vec<Vec<u32>>>) = (0..self
            .bands)
            .into_par_iter()
            .map(|band| {
                let mut keys: Vec<(u64, u32)> = sketches
                    .iter()
                    .enumerate()
                    .filter_map(|(i, s)| Some((band_of((*s)?, band)?, i as u32)))
                    .collect();
                keys.sort_unstable();
                let mut big = Vec::new();
                if keys
                    .chunk_by(|x, y| x.0 == y.0)
                    .any(|b| b.len() > max_bucket)
                {
                    let mut within = Vec::with_capacity(keys.len());
                    for bucket in keys.chunk_by(|x, y| x.0 == y.0) {
                        if bucket.len() > max_bucket {
                            big.push(bucket.iter().map(|k| k.1).collect());
                        } else {
                            within.extend_from_slice(bucket);
                        }
                    }
                    keys = within;
                }
                let mut place = vec![u32::MAX; sketches.len()];
                for (at, &(_, page)) in keys.iter().enumerate() {
                    place[page as usize] = at as u32;
                }
                let (keys, pages) = keys.into_iter().unzip();
                ((keys, pages, place), big)
            })
            .unzip();
        let big: Vec<Vec<u32>> = big.into_iter().flatten().collect();
        let component = if big.is_empty() {
            Vec::new()
        } else {
            join(&big)
        };
        let apart = |p: u32, o: u32| match component.get(p as usize) {
            Some(&c) => c == u32::MAX || c != component[o as usize],
            None => true,
        };
        let min_shared = self.min_shared.max(1);
        (0..sketches.len())
            .into_par_iter()
            .flat_map_iter(|p| {
                let mut later: Vec<u32> = Vec::new();
                if sketches[p].is_some() {
                    for (keys, pages, place) in &tables {
                        let at = place[p];
                        if at == u32::MAX {
                            continue;
                        }
                        // Sorted by (key, page): the later pages of p's
                        // bucket follow it.
                        let at = at as usize;
                        let key = keys[at];
                        let to = at + 1 + keys[at + 1..].iter().take_while(|&&k| k == key).count();
                        later.extend_from_slice(&pages[at + 1..to]);
                    }
                    later.sort_unstable();
                }
                let p = p as u32;
                let pairs: Vec<(u32, u32)> = later
                    .chunk_by(|x, y| x == y)
                    .filter(|run| run.len() >= min_shared && apart(p, run[0]))
                    .map(|run| (p, run[0]))
                    .collect();
                pairs
            })
            .collect()
    }
}

impl Banding {
    /// Each page's `keep` best candidates by `rank` (higher first, then
    /// the lower other page; `rank` takes the pair as `(i, j)`, `i < j`),
    /// a pair kept when either page keeps it, sorted; and how many
    /// candidate pairs [`Banding::candidates`] would have listed. The same
    /// pairs as capping that list page by page, but the whole list is never
    /// held: at a million pages it runs to hundreds of millions of pairs
    /// (several times over before the bands are merged), while what is kept
    /// stays at most `keep` per page. Each page gathers its candidates from
    /// its own buckets.
    ///
    /// A bucket of more than `max_bucket` pages (0: no limit) is left out:
    /// its pages share that band and nothing more is known, and gathering
    /// from it costs the square of its size.
    ///
    /// With `reach` above 0 a page reads at most `reach` pages either side
    /// of itself in each bucket, the bucket ordered by the rest of the
    /// sketch (the values after the band's, then those before it, then the
    /// page): its neighbours in that order agree with it on the most values
    /// that follow, so a near duplicate sharing the band is found among the
    /// first while a bucket of a few thousand pages (a common concept) costs
    /// a page 2 x `reach` reads, not a few thousand. The window is the same
    /// seen from either page (|i - j| <= `reach` in one order), so a pair is
    /// gathered by both of its pages or by neither, and the result depends
    /// on the sketches alone.
    pub fn best_per_page(
        &self,
        sketches: &[Option<&[u32]>],
        keep: usize,
        max_bucket: usize,
        reach: usize,
        rank: impl Fn(u32, u32) -> u32 + Sync,
    ) -> PerPage {
        let rows = self.rows;
        let band_of = |s: &[u32], band: usize| {
            let (lo, hi) = (band * rows, (band + 1) * rows);
            (s.len() >= hi).then(|| band_key(&s[lo..hi], band))
        };
        // Inside a bucket: the sketch after the band, then before it, then
        // the page.
        let order = |band: usize, a: u32, b: u32| {
            let (lo, hi) = (band * rows, (band + 1) * rows);
            let (sa, sb) = (
                sketches[a as usize].unwrap_or_default(),
                sketches[b as usize].unwrap_or_default(),
            );
            let (ta, tb) = (
                sa.get(hi..).unwrap_or_default(),
                sb.get(hi..).unwrap_or_default(),
            );
            let (ha, hb) = (&sa[..lo.min(sa.len())], &sb[..lo.min(sb.len())]);
            ta.cmp(tb).then_with(|| ha.cmp(hb)).then(a.cmp(&b))
        };
        // Per band, its keys sorted with their pages beside them, and the
        // buckets (and their pages) left out.
        let tables: Vec<(Vec<u64>, Vec<u32>, u64, u64)> = (0..self.bands)
            .into_par_iter()
            .map(|band| {
                let mut keys: Vec<(u64, u32)> = sketches
                    .iter()
                    .enumerate()
                    .filter_map(|(i, s)| Some((band_of((*s)?, band)?, i as u32)))
                    .collect();
                if reach > 0 {
                    keys.sort_unstable_by(|x, y| x.0.cmp(&y.0).then_with(|| order(band, x.1, y.1)));
                } else {
                    keys.sort_unstable();
                }
                let (mut buckets, mut entries) = (0, 0);
                if max_bucket > 0 {
                    let mut within = Vec::with_capacity(keys.len());
                    for bucket in keys.chunk_by(|x, y| x.0 == y.0) {
                        if bucket.len() > max_bucket {
                            buckets += 1;
                            entries += bucket.len() as u64;
                        } else {
                            within.extend_from_slice(bucket);
                        }
                    }
                    keys = within;
                }
                let (keys, pages) = keys.into_iter().unzip();
                (keys, pages, buckets, entries)
            })
            .collect();
        let per_page: Vec<(u64, Vec<(u32, u32)>)> = (0..sketches.len())
            .into_par_iter()
            .map(|p| {
                let Some(s) = sketches[p] else {
                    return (0, Vec::new());
                };
                let p = p as u32;
                let mut others: Vec<u32> = Vec::new();
                for (band, (keys, pages, _, _)) in tables.iter().enumerate() {
                    let Some(key) = band_of(s, band) else {
                        continue;
                    };
                    let mut from = keys.partition_point(|&k| k < key);
                    let mut to = from + keys[from..].partition_point(|&k| k == key);
                    if reach > 0 && to - from > 2 * reach + 1 {
                        // The page's own place in its bucket (absent when
                        // the bucket was left out).
                        let Ok(at) = pages[from..to].binary_search_by(|&o| order(band, o, p))
                        else {
                            continue;
                        };
                        let at = from + at;
                        (from, to) = (at.saturating_sub(reach).max(from), (at + reach + 1).min(to));
                    }
                    others.extend(pages[from..to].iter().filter(|&&o| o != p));
                }
                others.sort_unstable();
                let mut mine: Vec<u32> = others
                    .chunk_by(|x, y| x == y)
                    .filter(|run| run.len() >= self.min_shared)
                    .map(|run| run[0])
                    .collect();
                let found = mine.iter().filter(|&&o| o > p).count() as u64;
                if mine.len() > keep {
                    mine.sort_by_cached_key(|&o| (std::cmp::Reverse(rank(p.min(o), p.max(o))), o));
                    mine.truncate(keep);
                }
                (
                    found,
                    mine.into_iter().map(|o| (p.min(o), p.max(o))).collect(),
                )
            })
            .collect();
        let found = per_page.iter().map(|(f, _)| f).sum();
        let mut kept: Vec<(u32, u32)> = per_page.into_iter().flat_map(|(_, k)| k).collect();
        kept.par_sort_unstable();
        kept.dedup();
        PerPage {
            found,
            kept,
            skipped_buckets: tables.iter().map(|t| t.2).sum(),
            skipped_entries: tables.iter().map(|t| t.3).sum(),
        }
    }
}

/// What [`Banding::best_per_page`] kept, and what it saw.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PerPage {
    /// Candidate pairs in the buckets searched.
    pub found: u64,
    /// The pairs kept, sorted.
    pub kept: Vec<(u32, u32)>,
    /// Buckets over the size limit, left out, and the pages they held
    /// (summed over bands).
    pub skipped_buckets: u64,
    pub skipped_entries: u64,
}

/// The hash of one band: its values in order, and the band's index.
/// Public so that sketches exported for a cluster job carry the very keys
/// [`Banding::candidates`] groups by.
#[inline]
fn band_key(values: &[u32], band: usize) -> u64 {
    let mut h = 0x6261_6e64_0000_0000 ^ band as u64;
    for &v in values {
        h = (h ^ u64::from(v))
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .rotate_left(27);
    }
    fmix64(h)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::shingling::minhash::{PermutedHashes, MINHASH_SEED};
    use crate::text::shingle::jaccard;

    #[test]
    fn s_curve_matches_the_closed_form() {
        let b = Banding {
            bands: 20,
            rows: 5,
            min_shared: 1,
        };
        for j in [0.0, 0.3, 0.55, 0.8, 1.0] {
            let expected = 1.0 - (1.0 - f64::powi(j, 5)).powi(20);
            assert!((b.probability(j) - expected).abs() < 1e-12);
        }
        // Requiring two shared bands lowers the curve everywhere inside.
        let two = Banding { min_shared: 2, ..b };
        assert!(two.probability(0.5) < b.probability(0.5));
        assert!((two.probability(1.0) - 1.0).abs() < 1e-12);
        assert_eq!(two.probability(0.0), 0.0);
    }

    #[test]
    fn chosen_banding_puts_the_steep_part_at_the_threshold() {
        for threshold in [0.3, 0.5, 0.8] {
            let b = Banding::for_threshold(threshold, 128, 0.5, 0.5);
            assert!(b.bands * b.rows <= 128);
            assert!(
                b.probability(threshold + 0.15) > 0.9,
                "{b:?} at {threshold}"
            );
            assert!(b.probability(threshold - 0.2) < 0.4, "{b:?} at {threshold}");
        }
    }

    /// Random set pairs at Jaccard near `j` over a shared universe.
    fn pairs_near(j: f64, count: usize, seed: u64) -> Vec<(Vec<u64>, Vec<u64>)> {
        let mut rng = crate::util::rng::SplitMix64::murmur(seed);
        (0..count)
            .map(|_| {
                let size = 200;
                // shared / (2*size - shared) = j
                let shared = (2.0 * j * size as f64 / (1.0 + j)).round() as usize;
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

    #[test]
    fn lsh_finds_pairs_a_tenth_above_the_threshold() {
        let family = PermutedHashes::new(128, MINHASH_SEED);
        for threshold in [0.3, 0.5, 0.7, 0.8] {
            let banding = Banding::for_threshold(threshold, 128, 0.5, 0.5);
            let mut sketches = Vec::new();
            let mut wanted = Vec::new();
            for (k, (a, b)) in pairs_near((threshold + 0.1).min(1.0), 1000, threshold.to_bits())
                .into_iter()
                .enumerate()
            {
                assert!(jaccard(&a, &b) >= threshold + 0.1 - 0.005);
                sketches.push(family.sketch(&a));
                sketches.push(family.sketch(&b));
                wanted.push((2 * k as u32, 2 * k as u32 + 1));
            }
            let refs: Vec<Option<&[u32]>> = sketches.iter().map(|s| Some(&s[..])).collect();
            let found = banding.candidates(&refs);
            let hit = wanted
                .iter()
                .filter(|p| found.binary_search(p).is_ok())
                .count();
            let recall = hit as f64 / wanted.len() as f64;
            assert!(
                recall >= 0.95,
                "{banding:?} at threshold {threshold}: {recall}"
            );
        }
    }

    #[test]
    fn candidates_are_the_pairs_sharing_enough_bands() {
        // Few values, so that buckets are large and overlap across bands.
        let mut rng = crate::util::rng::SplitMix64::murmur(3u64);
        let sketches: Vec<Vec<u32>> = (0..80)
            .map(|_| (0..8).map(|_| (rng.next_u64() % 2) as u32).collect())
            .collect();
        let mut refs: Vec<Option<&[u32]>> = sketches.iter().map(|s| Some(&s[..])).collect();
        refs[4] = None;
        refs[11] = Some(&sketches[11][..5]);
        for min_shared in [1, 2, 3] {
            let banding = Banding {
                bands: 4,
                rows: 2,
                min_shared,
            };
            let mut brute = Vec::new();
            for i in 0..refs.len() {
                for j in i + 1..refs.len() {
                    if let (Some(a), Some(b)) = (refs[i], refs[j]) {
                        if banding.shared_bands(a, b) >= min_shared {
                            brute.push((i as u32, j as u32));
                        }
                    }
                }
            }
            assert!(brute.len() > 100, "{}", brute.len());
            assert_eq!(banding.candidates(&refs), brute, "min_shared {min_shared}");
        }
    }

    #[test]
    fn best_per_page_caps_the_candidates_page_by_page() {
        // Sketches drawn from a few values, so that buckets overlap a lot:
        // some pages have dozens of candidates.
        let mut rng = crate::util::rng::SplitMix64::murmur(7u64);
        let sketches: Vec<Vec<u32>> = (0..60)
            .map(|_| (0..6).map(|_| (rng.next_u64() % 3) as u32).collect())
            .collect();
        let mut refs: Vec<Option<&[u32]>> = sketches.iter().map(|s| Some(&s[..])).collect();
        refs[5] = None;
        refs[9] = Some(&sketches[9][..3]);
        let rank = |i: u32, j: u32| (i * 7 + j * 13) % 11;
        for min_shared in [1, 2] {
            let banding = Banding {
                bands: 3,
                rows: 2,
                min_shared,
            };
            let pairs = banding.candidates(&refs);
            assert!(pairs.len() > 50, "{}", pairs.len());
            for keep in [1, 2, 5, 1000] {
                let PerPage { found, kept, .. } = banding.best_per_page(&refs, keep, 0, 0, rank);
                assert_eq!(found, pairs.len() as u64);
                assert!(kept.len() <= keep * refs.len(), "keep {keep}");
                assert!(kept.windows(2).all(|w| w[0] < w[1]), "sorted, no repeats");
                // A pair stays exactly when one of its pages ranks it among
                // its `keep` best (ties to the lower other page).
                let in_top = |p: u32, q: u32| {
                    let mut mine: Vec<u32> = pairs
                        .iter()
                        .filter(|&&(a, b)| a == p || b == p)
                        .map(|&(a, b)| if a == p { b } else { a })
                        .collect();
                    mine.sort_by_key(|&o| (std::cmp::Reverse(rank(p.min(o), p.max(o))), o));
                    mine.iter().take(keep).any(|&o| o == q)
                };
                let expected: Vec<(u32, u32)> = pairs
                    .iter()
                    .copied()
                    .filter(|&(i, j)| in_top(i, j) || in_top(j, i))
                    .collect();
                assert_eq!(kept, expected, "keep {keep}, min_shared {min_shared}");
            }
            assert_eq!(banding.best_per_page(&refs, 1000, 0, 0, rank).kept, pairs);
            // A limit no bucket passes changes nothing.
            assert_eq!(
                banding.best_per_page(&refs, 1000, refs.len(), 0, rank).kept,
                pairs
            );
        }
    }

    #[test]
    fn buckets_over_the_limit_are_left_out_and_counted() {
        // Ten pages alike in every band, a pair alike in one, a loner.
        let hub = [1u32, 1, 1, 1, 1, 1];
        let mut sketches: Vec<Vec<u32>> = vec![hub.to_vec(); 10];
        sketches.push(vec![2, 2, 3, 3, 4, 4]);
        sketches.push(vec![2, 2, 5, 5, 6, 6]);
        sketches.push(vec![7, 7, 8, 8, 9, 9]);
        let refs: Vec<Option<&[u32]>> = sketches.iter().map(|s| Some(&s[..])).collect();
        let banding = Banding {
            bands: 3,
            rows: 2,
            min_shared: 1,
        };
        let rank = |_: u32, _: u32| 0;
        let all = banding.best_per_page(&refs, 100, 0, 0, rank);
        assert_eq!(all.found, 45 + 1);
        assert_eq!((all.skipped_buckets, all.skipped_entries), (0, 0));
        let capped = banding.best_per_page(&refs, 100, 5, 0, rank);
        assert_eq!(capped.kept, [(10, 11)]);
        assert_eq!(capped.found, 1);
        assert_eq!((capped.skipped_buckets, capped.skipped_entries), (3, 30));
    }

    #[test]
    fn a_page_reads_its_nearest_bucket_neighbours_only() {
        // 200 pages share their first band (a common concept); pages 2k
        // and 2k+1 agree on every value but the last, any other two on the
        // first band alone.
        let sketches: Vec<Vec<u32>> = (0..200u32)
            .map(|i| vec![1, 1, 1000 + i / 2, 2000 + i / 2, 3000 + i])
            .collect();
        let refs: Vec<Option<&[u32]>> = sketches.iter().map(|s| Some(&s[..])).collect();
        let banding = Banding {
            bands: 2,
            rows: 2,
            min_shared: 1,
        };
        let rank = |i: u32, j: u32| u32::from(i / 2 == j / 2);
        let whole = banding.best_per_page(&refs, 1000, 0, 0, rank);
        assert_eq!(whole.found, 200 * 199 / 2);
        // Reaching 3 either side: at most 6 pages a band, and each twin is
        // a neighbour in the bucket's order, so every twin pair is kept.
        let near = banding.best_per_page(&refs, 1000, 0, 3, rank);
        assert!(near.found <= 200 * 6 * 2 / 2, "{}", near.found);
        assert!(near.found >= 200, "{}", near.found);
        for k in 0..100u32 {
            assert!(near.kept.binary_search(&(2 * k, 2 * k + 1)).is_ok(), "{k}");
        }
        assert!(near
            .kept
            .iter()
            .all(|p| whole.kept.binary_search(p).is_ok()));
        // Symmetric windows: keeping all, every pair read by one page was
        // read by the other, so the kept pairs are exactly those found.
        assert_eq!(near.kept.len() as u64, near.found);
        // A reach covering every bucket is the whole search.
        assert_eq!(banding.best_per_page(&refs, 1000, 0, 200, rank), whole);
        let twins = banding.best_per_page(&refs, 1, 0, 3, rank);
        assert_eq!(twins.kept.len(), 100, "each page's best is its twin");
    }

    #[test]
    fn super_shingles_need_m_shared_groups() {
        let s: [&[u32]; 3] = [
            &[1, 2, 3, 4, 5, 6],
            &[1, 2, 3, 4, 0, 0],
            &[1, 2, 9, 9, 9, 9],
        ];
        let refs: Vec<Option<&[u32]>> = s.iter().map(|x| Some(*x)).collect();
        let one = Banding {
            bands: 3,
            rows: 2,
            min_shared: 1,
        };
        assert_eq!(one.candidates(&refs), [(0, 1), (0, 2), (1, 2)]);
        let two = Banding {
            min_shared: 2,
            ..one
        };
        assert_eq!(two.candidates(&refs), [(0, 1)]);
        assert!(two
            .candidates(&[None, Some(&[1, 2, 3, 4, 5, 6])])
            .is_empty());
    }
}
