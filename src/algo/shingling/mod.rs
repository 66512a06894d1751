//! Broder's shingling family (seed 000, section 3.1): w-shingle sets
//! compared by Jaccard similarity, exactly through an inverted index, or
//! approximately through MinHash sketches with LSH banding or super-shingles
//! as the candidate stage.

pub mod config;
pub mod lsh;
pub mod minhash;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::{hash_key, Detector, Direction, Document, ScoreScale};
use crate::text::shingle::{
    containment, intersection_at_least, intersection_size, jaccard, ShingleSet,
};
use lsh::Banding;
use minhash::{OnePermutation, PermutedHashes, MINHASH_SEED, ONE_PERMUTATION_SEED};

/// The key of a list of values: their count, then their bytes.
fn hash_u64s(values: &[u64]) -> u128 {
    hash_key(|h| {
        h.update(&(values.len() as u64).to_le_bytes());
        values.iter().for_each(|v| h.update(&v.to_le_bytes()));
    })
}

impl MinHashSketch {
    /// Equal for equal sketches (with equal shingle sets when kept).
    pub fn key(&self) -> u128 {
        hash_key(|h| {
            h.update(&(self.values.len() as u64).to_le_bytes());
            self.values.iter().for_each(|v| h.update(&v.to_le_bytes()));
            if let Some(set) = &self.shingles {
                h.update(&hash_u64s(set).to_le_bytes());
                h.update(&hash_u64s(&self.common).to_le_bytes());
            }
        })
    }
}

/// Which similarity of two shingle sets scores a pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SetScore {
    /// |A∩B| / |A∪B|: resemblance, low when one page holds much more.
    #[default]
    Jaccard,
    /// |A∩B| / min(|A|, |B|): how much of the smaller page the larger holds.
    Containment,
}

impl SetScore {
    pub fn name(self) -> &'static str {
        match self {
            SetScore::Jaccard => "jaccard",
            SetScore::Containment => "containment",
        }
    }

    pub fn is_jaccard(&self) -> bool {
        *self == SetScore::Jaccard
    }

    /// The score of two sets of these sizes sharing `shared` elements.
    fn of_overlap(self, shared: usize, a: usize, b: usize) -> f64 {
        let whole = match self {
            SetScore::Jaccard => a + b - shared,
            SetScore::Containment => a.min(b),
        };
        if whole == 0 {
            0.0
        } else {
            shared as f64 / whole as f64
        }
    }

    /// The score of two sorted, deduplicated sets.
    fn of_sets(self, a: &[u64], b: &[u64]) -> f64 {
        match self {
            SetScore::Jaccard => jaccard(a, b),
            SetScore::Containment => containment(a, b),
        }
    }

    /// [`SetScore::of_sets`] when it passes `scale`'s floor (as an `f32`,
    /// as pairs are kept), else `None`, without finishing the merge of two
    /// sets that cannot get there.
    pub fn of_sets_within(self, a: &[u64], b: &[u64], scale: &ScoreScale) -> Option<f32> {
        self.of_parts_within((a.len(), b.len()), 0, (a, b), scale)
    }

    /// [`SetScore::of_sets_within`] for two sets of `sizes` that share
    /// `counted` elements already counted, plus those their `rest`s
    /// (sorted, deduplicated, apart from what was counted) share.
    fn of_parts_within(
        self,
        sizes: (usize, usize),
        counted: usize,
        rest: (&[u64], &[u64]),
        scale: &ScoreScale,
    ) -> Option<f32> {
        let score = |shared: usize| self.of_overlap(shared, sizes.0, sizes.1) as f32;
        let passes = |shared: usize| scale.passes(score(shared), scale.floor);
        // Both scores grow with the overlap: the least overlap that passes
        // is found by bisection.
        let most = counted + rest.0.len().min(rest.1.len());
        if !passes(most) {
            return None;
        }
        let (mut low, mut high) = (counted, most);
        while low < high {
            let mid = (low + high) / 2;
            if passes(mid) {
                high = mid;
            } else {
                low = mid + 1;
            }
        }
        intersection_at_least(rest.0, rest.1, low - counted).map(|s| score(counted + s))
    }

    /// The score from an estimate of the Jaccard and the two set sizes.
    pub fn from_jaccard(self, estimate: f64, a: usize, b: usize) -> f64 {
        match self {
            SetScore::Jaccard => estimate,
            SetScore::Containment => minhash::containment_from_jaccard(estimate, a, b),
        }
    }
}

fn set_scale(score: SetScore, floor: f64) -> ScoreScale {
    ScoreScale {
        name: score.name(),
        direction: Direction::AtLeast,
        min: 0.0,
        max: 1.0,
        floor,
    }
}

/// Exact Jaccard similarity (or containment) of shingle sets, for every
/// pair sharing a shingle: the ground truth that sketches approximate.
/// Shingles on more than `max_df` of the pages (boilerplate, the commonest
/// phrases) are left out of the sets first: they say nothing about
/// duplication, and each costs pairs quadratic in its pages.
#[derive(Debug, Clone, PartialEq)]
pub struct ExactJaccard {
    /// Tokens per shingle (w).
    pub width: usize,
    /// Least similarity kept as a scored pair.
    pub floor: f64,
    /// Share of the distinct pages a shingle may be on and still count
    /// (1 keeps every shingle).
    pub max_df: f64,
    pub score: SetScore,
    /// What the last candidate search left out, for the run's notes.
    left_out: std::sync::OnceLock<LeftOut>,
}

/// The default `max_df`: a shingle on more than one page in twenty is a
/// template's or the language's, not a story's.
pub const DEFAULT_MAX_DF: f64 = 0.05;

/// A shingle on this many pages or fewer always counts, so that a small
/// corpus (where one page in twenty is one page) loses nothing: a cluster
/// of near-duplicates is rarely larger.
const MIN_DF_CAP: usize = 20;

/// Shingles over the document-frequency cap and their postings.
#[derive(Debug, Clone, PartialEq)]
struct LeftOut {
    cap: usize,
    pages: usize,
    shingles: usize,
    of_shingles: usize,
    postings: u64,
    of_postings: u64,
}

impl ExactJaccard {
    pub fn new(width: usize, floor: f64, max_df: f64, score: SetScore) -> Self {
        ExactJaccard {
            width,
            floor,
            max_df,
            score,
            left_out: std::sync::OnceLock::new(),
        }
    }

    /// The most distinct pages a counted shingle may be on.
    fn df_cap(&self, pages: usize) -> usize {
        if self.max_df >= 1.0 {
            return usize::MAX;
        }
        ((self.max_df * pages as f64).floor() as usize).max(MIN_DF_CAP)
    }
}

impl Detector for ExactJaccard {
    type Signature = ShingleSet;

    fn name(&self) -> &'static str {
        self.score.name()
    }

    fn label(&self) -> String {
        format!("{}(w={})", self.score.name(), self.width)
    }

    fn scale(&self) -> ScoreScale {
        set_scale(self.score, self.floor)
    }

    fn fit(&mut self, _docs: &[Document]) -> bool {
        // A new run reports its own left-out shingles.
        self.left_out = std::sync::OnceLock::new();
        false
    }

    fn describe(&self) -> Vec<String> {
        let Some(l) = self.left_out.get() else {
            return Vec::new();
        };
        if l.cap == usize::MAX {
            return vec![format!(
                "every shingle counted (max_df 1): {} shingles, {} postings",
                l.of_shingles, l.of_postings
            )];
        }
        vec![format!(
            "shingles on more than {} of {} distinct pages left out (max_df {}): {} of {} shingles, {} of {} postings",
            l.cap, l.pages, self.max_df, l.shingles, l.of_shingles, l.postings, l.of_postings
        )]
    }

    fn shingle_widths(&self) -> Vec<usize> {
        vec![self.width]
    }

    fn sign(&self, doc: &Document) -> Option<ShingleSet> {
        let set = doc.tokens.shingles(self.width);
        (!set.is_empty()).then_some(set)
    }

    fn candidates(&self, signatures: &[Option<ShingleSet>]) -> Vec<(u32, u32)> {
        self.scored(signatures)
            .into_iter()
            .map(|(i, j, _)| (i, j))
            .collect()
    }

    fn scored_candidates(&self, signatures: &[Option<ShingleSet>]) -> Option<Vec<(u32, u32, f32)>> {
        Some(self.scored(signatures))
    }

    fn signature_key(&self, set: &ShingleSet) -> Option<u128> {
        Some(hash_u64s(set))
    }

    fn score(&self, a: &ShingleSet, b: &ShingleSet) -> f32 {
        self.score.of_sets(a, b) as f32
    }
}

impl ExactJaccard {
    fn scored(&self, signatures: &[Option<ShingleSet>]) -> Vec<(u32, u32, f32)> {
        let sets: Vec<&[u64]> = signatures
            .iter()
            .map(|s| s.as_deref().unwrap_or(&[]))
            .collect();
        let pages = signatures.iter().filter(|s| s.is_some()).count();
        let index = InvertedIndex::new(&sets, self.df_cap(pages));
        let _ = self.left_out.set(LeftOut {
            pages,
            ..index.left_out.clone()
        });
        index.pairs_at_least(self.floor, self.score)
    }
}

/// Shingle -> the pages holding it, for shingles on two pages or more and
/// at most the cap. Both directions are flat arrays: a vector per shingle
/// and per page was a few million allocations on character bigrams.
struct InvertedIndex {
    /// Each shingle's pages ascending, then [`END_OF_POSTING`].
    posting_pages: Vec<u32>,
    /// Per page, where it stands in each of its shingles' postings (an
    /// offset into `posting_pages`), ascending:
    /// `entries[page_ends[p]..page_ends[p + 1]]`. The pages after it in a
    /// posting are the ones it counts overlaps with, so they start right
    /// there, with no search.
    entries: PageEntries,
    page_ends: Vec<usize>,
    /// Per page, its shingles under the cap: the size Jaccard divides by.
    counted: Vec<usize>,
    left_out: LeftOut,
}

/// Ends each posting in [`InvertedIndex::posting_pages`] (page ids are
/// smaller).
const END_OF_POSTING: u32 = u32::MAX;

/// Offsets into the postings: 4 bytes while they allow.
enum PageEntries {
    Narrow(Vec<u32>),
    Wide(Vec<u64>),
}

/// The postings of one range of shingle values (their top byte).
#[derive(Default)]
struct PostingPart {
    pages: Vec<u32>,
    /// Each shingle's end in `pages`.
    ends: Vec<usize>,
    shingles: usize,
    capped: usize,
    capped_postings: u64,
}

impl InvertedIndex {
    fn new(sets: &[&[u64]], cap: usize) -> Self {
        use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
        let counted: Vec<AtomicUsize> = sets.iter().map(|s| AtomicUsize::new(s.len())).collect();
        // The (shingle, page) entries are sorted a range of shingle values
        // (their top byte) at a time: only a few 256ths of them are held at
        // once (all of them took 16 bytes a posting, the run's peak on
        // character bigrams), and ids come out in the ranges' order, the
        // order of one sort of all entries. Each page's set is sorted, so
        // one cursor a page deals its entries to the ranges of a batch in a
        // single forward pass; the batch's ranges are then sorted and
        // grouped side by side on the threads.
        const BATCH: usize = 8;
        let top = |h: u64| (h >> 56) as usize;
        let mut cursor = vec![0usize; sets.len()];
        let mut batch: Vec<Vec<(u64, u32)>> = vec![Vec::new(); BATCH];
        let mut parts: Vec<PostingPart> = Vec::with_capacity(256);
        for first in (0..256).step_by(BATCH) {
            for entries in &mut batch {
                entries.clear();
            }
            for (page, set) in sets.iter().enumerate() {
                let mut at = cursor[page];
                while let Some(&h) = set.get(at) {
                    if top(h) >= first + BATCH {
                        break;
                    }
                    batch[top(h) - first].push((h, page as u32));
                    at += 1;
                }
                cursor[page] = at;
            }
            let grouped: Vec<PostingPart> = batch
                .par_iter_mut()
                .map(|entries| {
                    entries.sort_unstable();
                    let mut out = PostingPart::default();
                    for run in entries.chunk_by(|x, y| x.0 == y.0) {
                        out.shingles += 1;
                        if run.len() > cap {
                            out.capped += 1;
                            out.capped_postings += run.len() as u64;
                            for &(_, page) in run {
                                counted[page as usize].fetch_sub(1, Relaxed);
                            }
                            continue;
                        }
                        if run.len() < 2 {
                            continue;
                        }
                        out.pages.extend(run.iter().map(|&(_, page)| page));
                        out.ends.push(out.pages.len());
                    }
                    out
                })
                .collect();
            parts.extend(grouped);
        }
        let mut left_out = LeftOut {
            cap,
            pages: sets.len(),
            shingles: 0,
            of_shingles: 0,
            postings: 0,
            of_postings: sets.iter().map(|s| s.len() as u64).sum(),
        };
        let total: usize = parts.iter().map(|p| p.pages.len() + p.ends.len()).sum();
        let mut posting_pages = Vec::with_capacity(total);
        for part in parts {
            let mut start = 0;
            for &end in &part.ends {
                posting_pages.extend_from_slice(&part.pages[start..end]);
                posting_pages.push(END_OF_POSTING);
                start = end;
            }
            left_out.of_shingles += part.shingles;
            left_out.shingles += part.capped;
            left_out.postings += part.capped_postings;
        }
        // Each page's entries in posting order: counted, then placed.
        let mut page_ends = vec![0usize; sets.len() + 1];
        for &page in &posting_pages {
            if page != END_OF_POSTING {
                page_ends[page as usize + 1] += 1;
            }
        }
        for p in 0..sets.len() {
            page_ends[p + 1] += page_ends[p];
        }
        let entries = if u32::try_from(posting_pages.len()).is_ok() {
            PageEntries::Narrow(place_entries(&posting_pages, &page_ends, |g| g as u32))
        } else {
            PageEntries::Wide(place_entries(&posting_pages, &page_ends, |g| g as u64))
        };
        InvertedIndex {
            posting_pages,
            entries,
            page_ends,
            counted: counted.into_iter().map(AtomicUsize::into_inner).collect(),
            left_out,
        }
    }

    /// Pairs `(i, j)`, `i < j`, whose score is at least `floor`, with it,
    /// sorted.
    /// Each page counts its overlaps with later pages in one pass over its
    /// postings, so the cost is the number of (page, page, shared shingle)
    /// triples, never all pairs.
    fn pairs_at_least(&self, floor: f64, score: SetScore) -> Vec<(u32, u32, f32)> {
        match &self.entries {
            PageEntries::Narrow(entries) => self.pairs_from(entries, floor, score),
            PageEntries::Wide(entries) => self.pairs_from(entries, floor, score),
        }
    }

    fn pairs_from<O>(&self, entries: &[O], floor: f64, score: SetScore) -> Vec<(u32, u32, f32)>
    where
        O: Copy + Into<u64> + Sync,
    {
        let n = self.counted.len();
        (0..n as u32)
            .into_par_iter()
            .map_init(
                || (vec![0u32; n], vec![0u32; n], vec![0u64; n.div_ceil(64)]),
                |(counts, touched, bits), i| {
                    let i_at = i as usize;
                    // Pages met for the first time are written at `met` and
                    // kept by moving it on: no branch on whether they were.
                    let mut met = 0;
                    for &entry in &entries[self.page_ends[i_at]..self.page_ends[i_at + 1]] {
                        let mut at = entry.into() as usize + 1;
                        loop {
                            let j = self.posting_pages[at];
                            if j == END_OF_POSTING {
                                break;
                            }
                            touched[met] = j;
                            met += usize::from(counts[j as usize] == 0);
                            counts[j as usize] += 1;
                            at += 1;
                        }
                    }
                    let touched = &mut touched[..met];
                    sort_pages(touched, &mut bits[(i_at + 1) / 64..], (i_at + 1) / 64 * 64);
                    let size_i = self.counted[i_at];
                    let mut pairs = Vec::new();
                    for &j in touched.iter() {
                        let shared = counts[j as usize] as usize;
                        counts[j as usize] = 0;
                        let similarity = score.of_overlap(shared, size_i, self.counted[j as usize]);
                        if similarity >= floor {
                            pairs.push((i, j, similarity as f32));
                        }
                    }
                    pairs
                },
            )
            .flatten_iter()
            .collect()
    }
}

/// Sorts distinct page ids, all at least `base`. When there are as many as
/// `bits` has words, by setting their bits and reading them back in
/// order: a scan of the words then costs no more than the ids already
/// did, and less than sorting them (a boilerplate-heavy page meets
/// thousands).
fn sort_pages(pages: &mut [u32], bits: &mut [u64], base: usize) {
    if pages.len() < bits.len() {
        pages.sort_unstable();
        return;
    }
    for &p in pages.iter() {
        let at = p as usize - base;
        bits[at / 64] |= 1 << (at % 64);
    }
    let mut sorted = 0;
    for (w, word) in bits.iter_mut().enumerate() {
        let mut left = std::mem::take(word);
        while left != 0 {
            pages[sorted] = (base + w * 64 + left.trailing_zeros() as usize) as u32;
            sorted += 1;
            left &= left - 1;
        }
    }
}

/// Each page's entries (offsets `g` into `posting_pages`, as `narrow`
/// makes them), laid out by `page_ends`, each page's in posting order.
fn place_entries<O: Copy + Default>(
    posting_pages: &[u32],
    page_ends: &[usize],
    narrow: impl Fn(usize) -> O,
) -> Vec<O> {
    let pages = page_ends.len() - 1;
    let mut next = page_ends[..pages].to_vec();
    let mut entries = vec![O::default(); page_ends[pages]];
    for (g, &page) in posting_pages.iter().enumerate() {
        if page != END_OF_POSTING {
            entries[next[page as usize]] = narrow(g);
            next[page as usize] += 1;
        }
    }
    entries
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Sketching {
    /// n hash functions, the least value of each.
    Minhash,
    /// One hash per shingle into n bins, densified.
    OnePermutation,
}

/// How a pair is scored once it is a candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verify {
    /// The sketches' agreement, the estimated Jaccard.
    Estimate,
    /// The exact Jaccard of the shingle sets (kept beside the sketches).
    Exact,
}

/// Where candidate pairs come from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CandidateSearch {
    /// Bands of the sketch: LSH (min_shared 1) or super-shingles.
    Bands {
        banding: Banding,
        /// The similarity the banding was chosen for, when it was.
        target: Option<f64>,
        super_shingles: bool,
    },
    /// Every pair (small corpora, or to measure what banding loses).
    AllPairs,
}

/// MinHash sketches of shingle sets, scored by estimated (or exact) Jaccard.
#[derive(Debug, Clone, PartialEq)]
pub struct MinHash {
    pub width: usize,
    pub sketching: Sketching,
    pub search: CandidateSearch,
    pub verify: Verify,
    pub floor: f64,
    pub score: SetScore,
    permutations: PermutedHashes,
    one_permutation: OnePermutation,
    common: CommonShingles,
}

/// A page's sketch, its shingle count (containment needs the sizes), and
/// its shingles when pairs are verified exactly: as a bitset over the
/// detector's common shingles and, in `shingles`, the rest.
#[derive(Debug, Clone, PartialEq)]
pub struct MinHashSketch {
    pub values: Vec<u32>,
    pub size: usize,
    pub shingles: Option<Vec<u64>>,
    /// Bit k: the page holds the detector's k-th common shingle.
    pub common: Vec<u64>,
}

/// The count of common shingles two pages' sketches flag, and each
/// page's shingles.
type SharedShingles<'a> = (usize, (&'a [u64], &'a [u64]));

impl MinHashSketch {
    /// The common shingles both pages hold, and the rest of each, when both
    /// kept their shingles.
    fn shared_exactly<'a>(&'a self, other: &'a MinHashSketch) -> Option<SharedShingles<'a>> {
        let (a, b) = (self.shingles.as_deref()?, other.shingles.as_deref()?);
        let common = self
            .common
            .iter()
            .zip(&other.common)
            .map(|(x, y)| (x & y).count_ones() as usize)
            .sum();
        Some((common, (a, b)))
    }
}

/// Shingles on many pages (a site's navigation, stock phrases), sorted,
/// for exact verification: two boilerplate-heavy pages share most of their
/// shingles there, counted by a popcount of two bitsets instead of a merge
/// of the long sets. Which shingles they are changes no score, only speed.
#[derive(Debug, Clone, PartialEq, Default)]
struct CommonShingles(Vec<u64>);

/// Pages sampled to choose the common shingles.
const COMMON_SAMPLE: usize = 2000;
/// Most common shingles (a page's bitset is 1/64 of this in words).
const MAX_COMMON: usize = 4096;
/// Least share of the sampled pages a common shingle is on.
const COMMON_SHARE: f64 = 0.02;

impl CommonShingles {
    /// The shingles on the most of `sets`, at least [`COMMON_SHARE`] of
    /// them (ties by value, so the choice repeats).
    fn of_sample(sets: &[ShingleSet]) -> Self {
        let mut df: std::collections::HashMap<u64, u32> = std::collections::HashMap::new();
        for &h in sets.iter().flat_map(|s| s.iter()) {
            *df.entry(h).or_default() += 1;
        }
        let least = ((sets.len() as f64 * COMMON_SHARE).ceil() as u32).max(2);
        let mut common: Vec<(u32, u64)> = df
            .into_iter()
            .filter(|&(_, n)| n >= least)
            .map(|(h, n)| (n, h))
            .collect();
        common.sort_unstable_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)));
        common.truncate(MAX_COMMON);
        let mut common: Vec<u64> = common.into_iter().map(|(_, h)| h).collect();
        common.sort_unstable();
        CommonShingles(common)
    }

    /// A sorted set as a bitset of the common shingles it holds and the
    /// rest.
    fn split(&self, set: &[u64]) -> (Vec<u64>, Vec<u64>) {
        if self.0.is_empty() {
            return (Vec::new(), set.to_vec());
        }
        let mut bits = vec![0u64; self.0.len().div_ceil(64)];
        let mut rest = Vec::with_capacity(set.len());
        let mut k = 0;
        for &h in set {
            k += self.0[k..].partition_point(|&c| c < h);
            if self.0.get(k) == Some(&h) {
                bits[k / 64] |= 1 << (k % 64);
            } else {
                rest.push(h);
            }
        }
        rest.shrink_to_fit();
        (bits, rest)
    }
}

impl MinHash {
    pub fn new(
        width: usize,
        hashes: usize,
        sketching: Sketching,
        search: CandidateSearch,
        verify: Verify,
        floor: f64,
    ) -> Self {
        let n = hashes.max(1);
        MinHash {
            width,
            sketching,
            search,
            verify,
            floor,
            score: SetScore::Jaccard,
            permutations: PermutedHashes::new(
                if sketching == Sketching::Minhash {
                    n
                } else {
                    0
                },
                MINHASH_SEED,
            ),
            one_permutation: OnePermutation::new(n, ONE_PERMUTATION_SEED),
            common: CommonShingles::default(),
        }
    }

    /// Scored by `score` instead of the Jaccard.
    fn with_score(mut self, score: SetScore) -> Self {
        self.score = score;
        self
    }

    pub fn hashes(&self) -> usize {
        self.one_permutation.len()
    }

    pub fn sketch(&self, shingles: &[u64]) -> Vec<u32> {
        match self.sketching {
            Sketching::Minhash => self.permutations.sketch(shingles),
            Sketching::OnePermutation => self.one_permutation.sketch(shingles),
        }
    }
}

impl Detector for MinHash {
    type Signature = MinHashSketch;

    fn name(&self) -> &'static str {
        match self.sketching {
            Sketching::Minhash => "minhash",
            Sketching::OnePermutation => "minhash-oph",
        }
    }

    fn label(&self) -> String {
        let search = match self.search {
            CandidateSearch::Bands {
                banding,
                super_shingles: false,
                ..
            } => format!("lsh {}x{}", banding.bands, banding.rows),
            CandidateSearch::Bands { banding, .. } => format!(
                "super-shingles {}x{} m>={}",
                banding.bands, banding.rows, banding.min_shared
            ),
            CandidateSearch::AllPairs => "all pairs".into(),
        };
        let verify = match self.verify {
            Verify::Estimate => "",
            Verify::Exact => ", exact",
        };
        let score = match self.score {
            SetScore::Jaccard => "",
            SetScore::Containment => ", containment",
        };
        format!(
            "{}(w={},n={},{search}{verify}{score})",
            self.name(),
            self.width,
            self.hashes()
        )
    }

    fn scale(&self) -> ScoreScale {
        set_scale(self.score, self.floor)
    }

    fn describe(&self) -> Vec<String> {
        let CandidateSearch::Bands {
            banding, target, ..
        } = self.search
        else {
            return Vec::new();
        };
        let points = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0];
        let curve: Vec<String> = banding
            .curve(&points)
            .iter()
            .map(|(j, p)| format!("{j:.1}:{p:.3}"))
            .collect();
        let mut lines = vec![format!(
            "P(candidate | J) for {} bands x {} rows, {} shared: {}",
            banding.bands,
            banding.rows,
            banding.min_shared,
            curve.join(" ")
        )];
        if let Some(t) = target {
            let (fp, fneg) = banding.error_areas(t);
            lines.push(format!(
                "chosen for J >= {t}: false positive area {fp:.4}, false negative area {fneg:.4}"
            ));
        }
        if self.score == SetScore::Containment {
            // The bands see the Jaccard, which falls with the size ratio at
            // a given containment.
            lines.push(
                "containment: the bands find pairs by their Jaccard, so a pair whose smaller \
                 page is a small part of the larger one is missed unless the banding's target \
                 is low enough (`size_ratio`, `target`) or `candidates: all_pairs`"
                    .into(),
            );
        }
        lines
    }

    fn fit(&mut self, docs: &[Document]) -> bool {
        if self.verify != Verify::Exact {
            return false;
        }
        let step = (docs.len() / COMMON_SAMPLE).max(1);
        let sample: Vec<usize> = (0..docs.len()).step_by(step).collect();
        let sets: Vec<ShingleSet> = sample
            .par_iter()
            .map(|&d| docs[d].tokens.shingles(self.width))
            .collect();
        self.common = CommonShingles::of_sample(&sets);
        true
    }

    fn shingle_widths(&self) -> Vec<usize> {
        vec![self.width]
    }

    fn sign(&self, doc: &Document) -> Option<MinHashSketch> {
        let set = doc.tokens.shingles(self.width);
        if set.is_empty() {
            return None;
        }
        let (values, size) = (self.sketch(&set), set.len());
        let (common, shingles) = match self.verify {
            Verify::Exact => {
                let (bits, rest) = self.common.split(&set);
                (bits, Some(rest))
            }
            Verify::Estimate => (Vec::new(), None),
        };
        Some(MinHashSketch {
            values,
            size,
            shingles,
            common,
        })
    }

    fn signature_key(&self, sketch: &MinHashSketch) -> Option<u128> {
        // Equal sketches of sets of other sizes have other containments.
        Some(match self.score {
            SetScore::Jaccard => sketch.key(),
            SetScore::Containment => hash_key(|h| {
                h.update(&sketch.key().to_le_bytes());
                h.update(&(sketch.size as u64).to_le_bytes());
            }),
        })
    }

    fn candidates(&self, signatures: &[Option<MinHashSketch>]) -> Vec<(u32, u32)> {
        match self.search {
            CandidateSearch::Bands { banding, .. } => {
                let sketches: Vec<Option<&[u32]>> = signatures
                    .iter()
                    .map(|s| s.as_ref().map(|s| &s.values[..]))
                    .collect();
                banding.candidates(&sketches)
            }
            CandidateSearch::AllPairs => {
                let signed: Vec<u32> = signatures
                    .iter()
                    .enumerate()
                    .filter_map(|(i, s)| s.as_ref().map(|_| i as u32))
                    .collect();
                (0..signed.len())
                    .into_par_iter()
                    .flat_map_iter(|x| {
                        let i = signed[x];
                        signed[x + 1..].iter().map(move |&j| (i, j))
                    })
                    .collect()
            }
        }
    }

    fn bucketed_candidates(
        &self,
        signatures: &[Option<MinHashSketch>],
        max_bucket: usize,
        join: &mut dyn FnMut(&[Vec<u32>]) -> Vec<u32>,
    ) -> Vec<(u32, u32)> {
        match self.search {
            // Super-shingles pair pages sharing several bands: one shared
            // bucket says too little to join them.
            CandidateSearch::Bands { banding, .. } if banding.min_shared <= 1 => {
                let sketches: Vec<Option<&[u32]>> = signatures
                    .iter()
                    .map(|s| s.as_ref().map(|s| &s.values[..]))
                    .collect();
                banding.candidates_joined(&sketches, max_bucket, join)
            }
            _ => self.candidates(signatures),
        }
    }

    fn banding(&self) -> Option<Banding> {
        match self.search {
            CandidateSearch::Bands { banding, .. } => Some(banding),
            CandidateSearch::AllPairs => None,
        }
    }

    fn explain(&self, a: &MinHashSketch, b: &MinHashSketch) -> Option<String> {
        let banding = self.banding()?;
        Some(format!(
            "bands {}/{} shared ({} needed)",
            banding.shared_bands(&a.values, &b.values),
            banding.bands,
            banding.min_shared
        ))
    }

    fn score_within(
        &self,
        a: &MinHashSketch,
        b: &MinHashSketch,
        scale: &ScoreScale,
    ) -> Option<f32> {
        match a.shared_exactly(b) {
            Some((counted, rest)) => {
                self.score
                    .of_parts_within((a.size, b.size), counted, rest, scale)
            }
            None => {
                let score = self.score(a, b);
                scale.passes(score, scale.floor).then_some(score)
            }
        }
    }

    fn score(&self, a: &MinHashSketch, b: &MinHashSketch) -> f32 {
        match a.shared_exactly(b) {
            Some((counted, (ra, rb))) => {
                let shared = counted + intersection_size(ra, rb);
                self.score.of_overlap(shared, a.size, b.size) as f32
            }
            None => {
                let estimate = minhash::estimate(&a.values, &b.values);
                self.score.from_jaccard(estimate, a.size, b.size) as f32
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::shingle::shingles;
    use crate::text::Lang;
    use crate::text::{tokenize, TokenizerConfig};

    fn docs(texts: &[&str]) -> Vec<Document> {
        texts
            .iter()
            .enumerate()
            .map(|(i, t)| Document {
                page: i as u32,
                lang: Lang::En,
                tokens: std::sync::Arc::new(tokenize(t, Lang::En, &TokenizerConfig::default())),
                structure: None,
                host: None,
            })
            .collect()
    }

    #[test]
    fn inverted_index_finds_exactly_the_pairs_above_the_floor() {
        // Brute force over random small sets agrees with the index.
        let mut rng = crate::util::rng::SplitMix64::murmur(11u64);
        let sets: Vec<Vec<u64>> = (0..120)
            .map(|_| {
                let len = (rng.next_u64() % 12) as usize;
                let mut s: Vec<u64> = (0..len).map(|_| rng.next_u64() % 40).collect();
                s.sort_unstable();
                s.dedup();
                s
            })
            .collect();
        let refs: Vec<&[u64]> = sets.iter().map(|s| &s[..]).collect();
        for floor in [0.0001, 0.2, 0.5, 1.0] {
            let mut brute = Vec::new();
            for i in 0..sets.len() {
                for j in i + 1..sets.len() {
                    let shared = crate::text::shingle::intersection_size(&sets[i], &sets[j]);
                    if shared > 0 && jaccard(&sets[i], &sets[j]) >= floor {
                        brute.push((i as u32, j as u32));
                    }
                }
            }
            let mut index = InvertedIndex::new(&refs, usize::MAX);
            let indexed = index.pairs_at_least(floor, SetScore::Jaccard);
            assert_eq!(
                indexed.iter().map(|&(i, j, _)| (i, j)).collect::<Vec<_>>(),
                brute,
                "floor {floor}"
            );
            // Offsets of 8 bytes, as postings past 4G take, find the same.
            let PageEntries::Narrow(narrow) = &index.entries else {
                panic!("a small index has 4-byte offsets")
            };
            index.entries = PageEntries::Wide(narrow.iter().map(|&g| u64::from(g)).collect());
            assert_eq!(index.pairs_at_least(floor, SetScore::Jaccard), indexed);
            for (i, j, score) in indexed {
                assert_eq!(score, jaccard(&sets[i as usize], &sets[j as usize]) as f32);
            }
            // Containment through the same index: the brute-force pairs
            // sharing a shingle whose containment reaches the floor.
            let brute: Vec<(u32, u32, f32)> = (0..sets.len())
                .flat_map(|i| (i + 1..sets.len()).map(move |j| (i, j)))
                .filter_map(|(i, j)| {
                    let c = containment(&sets[i], &sets[j]);
                    (c > 0.0 && c >= floor).then_some((i as u32, j as u32, c as f32))
                })
                .collect();
            let indexed =
                InvertedIndex::new(&refs, usize::MAX).pairs_at_least(floor, SetScore::Containment);
            assert_eq!(indexed, brute, "containment, floor {floor}");
            assert!(
                floor > 0.5
                    || indexed.iter().any(|&(i, j, c)| {
                        f64::from(c) > jaccard(&sets[i as usize], &sets[j as usize])
                    })
            );
        }
    }

    #[test]
    fn pages_sort_by_bits_or_by_comparison_alike() {
        let mut state = 7u64;
        for round in 0..200usize {
            let base = round % 130;
            let span = 1 + round * 3;
            let mut pages: Vec<u32> = (0..round % 90)
                .map(|_| {
                    state = crate::util::rng::fmix64(state.wrapping_add(1));
                    (base + (state % span as u64) as usize) as u32
                })
                .collect();
            pages.sort_unstable();
            pages.dedup();
            let sorted = pages.clone();
            // Shuffled, then sorted with a bitset too small and one large
            // enough to take the bits.
            for words in [0, 1, 4, (base + span).div_ceil(64) + 1] {
                let words = words.max((base + span).div_ceil(64) - base / 64);
                let mut shuffled = pages.clone();
                shuffled.reverse();
                shuffled.rotate_left(round % (pages.len().max(1)));
                let mut bits = vec![0u64; words];
                sort_pages(&mut shuffled, &mut bits, base / 64 * 64);
                assert_eq!(shuffled, sorted, "round {round}, {words} words");
                assert!(bits.iter().all(|&w| w == 0), "the bits are left clear");
            }
        }
    }

    #[test]
    fn scores_within_the_floor_are_the_full_scores() {
        let mut state = 3u64;
        let mut set = |len: u64| {
            let mut s: Vec<u64> = (0..len)
                .map(|_| {
                    state = crate::util::rng::fmix64(state.wrapping_add(1));
                    state % 50
                })
                .collect();
            s.sort_unstable();
            s.dedup();
            s
        };
        let mut passed = 0;
        for round in 0..400 {
            let (a, b) = (set(round % 30), set((round * 3) % 35));
            for score in [SetScore::Jaccard, SetScore::Containment] {
                for floor in [0.0, 0.1, 0.3, 0.5, 0.8, 1.0] {
                    let scale = set_scale(score, floor);
                    let full = score.of_sets(&a, &b) as f32;
                    let expected = scale.passes(full, floor).then_some(full);
                    assert_eq!(score.of_sets_within(&a, &b, &scale), expected);
                    passed += usize::from(expected.is_some() && floor > 0.0);
                }
            }
        }
        assert!(passed > 100, "{passed}");
    }

    #[test]
    fn exact_jaccard_scores_shared_shingles() {
        let d = docs(&["a b c d e", "a b c d f", "x y z"]);
        let j = ExactJaccard::new(2, 0.1, DEFAULT_MAX_DF, SetScore::Jaccard);
        let sigs: Vec<_> = d.iter().map(|d| j.sign(d)).collect();
        assert_eq!(j.candidates(&sigs), [(0, 1)]);
        // {ab bc cd de} vs {ab bc cd df}: 3 shared of 5.
        assert_eq!(
            j.score(sigs[0].as_ref().unwrap(), sigs[1].as_ref().unwrap()),
            0.6
        );
    }

    #[test]
    fn verify_exact_scores_by_the_sets_not_the_sketch() {
        let d = docs(&["a b c d e", "a b c d f"]);
        let search = CandidateSearch::AllPairs;
        let m = MinHash::new(2, 16, Sketching::Minhash, search, Verify::Exact, 0.1);
        let (a, b) = (m.sign(&d[0]).unwrap(), m.sign(&d[1]).unwrap());
        assert_eq!(m.score(&a, &b), 0.6);
        let m = MinHash::new(2, 16, Sketching::Minhash, search, Verify::Estimate, 0.1);
        let (a, b) = (m.sign(&d[0]).unwrap(), m.sign(&d[1]).unwrap());
        assert!(a.shingles.is_none());
        let s = m.score(&a, &b);
        assert!((s * 16.0).fract() == 0.0 && s < 1.0, "{s}");
    }

    #[test]
    fn exact_verification_counts_common_shingles_apart_and_scores_the_same() {
        // 120 pages share a header; pairs of pages share a story.
        let header = "welcome to the daily portal home news sport weather contact us";
        let texts: Vec<String> = (0..120)
            .map(|p| {
                let body: String = (0..9).map(|w| format!("s{}w{w} ", p / 2)).collect();
                format!("{header} {body}p{p}")
            })
            .collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let d = docs(&refs);
        let search = CandidateSearch::AllPairs;
        let mut m = MinHash::new(3, 16, Sketching::Minhash, search, Verify::Exact, 0.4);
        assert!(m.fit(&d));
        // The header's 9 shingles are on every page; a story's on two, less
        // than the least share (3 of 120).
        assert_eq!(m.common.0.len(), 9);
        let sigs: Vec<MinHashSketch> = d.iter().map(|x| m.sign(x).unwrap()).collect();
        assert!(sigs
            .iter()
            .all(|s| s.common.iter().map(|w| w.count_ones()).sum::<u32>() == 9));
        let sets: Vec<Vec<u64>> = d.iter().map(|x| shingles(&x.tokens, 3)).collect();
        let scale = m.scale();
        let mut passed = 0;
        for i in 0..d.len() {
            for j in 0..d.len() {
                // Across stories only the header: 9 of 29 shingles.
                let expected = jaccard(&sets[i], &sets[j]) as f32;
                assert_eq!(m.score(&sigs[i], &sigs[j]), expected, "{i} {j}");
                let within = m.score_within(&sigs[i], &sigs[j], &scale);
                assert_eq!(within, (expected >= 0.4).then_some(expected), "{i} {j}");
                passed += usize::from(within.is_some() && i != j);
            }
        }
        assert_eq!(passed, 120, "each page and its story's other page");
    }

    #[test]
    fn shingles_past_the_df_cap_are_left_out_and_reported() {
        // 60 pages share a long header; pages 2k and 2k+1 share a story.
        let header = "welcome to the daily portal home news sport weather contact us";
        let texts: Vec<String> = (0..60)
            .map(|p| {
                let story = p / 2;
                let body: String = (0..12).map(|w| format!("s{story}w{w} ")).collect();
                let edit = if p % 2 == 0 { "first" } else { "second" };
                format!("{header} {body}{edit}")
            })
            .collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let d = docs(&refs);
        let run = |max_df: f64| {
            let mut j = ExactJaccard::new(3, 0.2, max_df, SetScore::Jaccard);
            assert!(!j.fit(&d));
            let sigs: Vec<_> = d.iter().map(|d| j.sign(d)).collect();
            let scored = j.scored(&sigs);
            (scored, j.describe())
        };
        // Every shingle counted: the header (9 of 22 shingles) makes every
        // pair similar, 9 / 35 at least.
        let (all, notes) = run(1.0);
        assert_eq!(all.len(), 60 * 59 / 2);
        assert!(notes[0].contains("every shingle counted"), "{notes:?}");
        // On 60 pages, above the cap of 20: the header's shingles go, and
        // only the story pairs remain, scored over their own shingles.
        let (capped, notes) = run(DEFAULT_MAX_DF);
        let stories: Vec<(u32, u32)> = (0..30).map(|s| (2 * s, 2 * s + 1)).collect();
        assert_eq!(
            capped.iter().map(|&(i, j, _)| (i, j)).collect::<Vec<_>>(),
            stories
        );
        let header_shingles = header.split(' ').count() - 2;
        // The shingles bridging header and story are on one page pair each.
        assert!(
            notes[0].contains(&format!(
                "more than 20 of 60 distinct pages left out (max_df 0.05): {header_shingles} of "
            )) && notes[0].contains(&format!("{} of ", header_shingles * 60)),
            "{notes:?}"
        );
        // Each page keeps 13 shingles: 2 bridging header and story, 10 of
        // the story, 1 with its edit; 12 are shared: 12 / (13 + 13 - 12).
        let (_, _, score) = capped[0];
        assert_eq!(score, (12.0f64 / 14.0) as f32);
    }

    #[test]
    fn containment_scores_a_page_inside_a_longer_one() {
        let d = docs(&["a b c d", "x y a b c d e f g h i j"]);
        let exact = ExactJaccard::new(2, 0.1, 1.0, SetScore::Containment);
        let sigs: Vec<_> = d.iter().map(|d| exact.sign(d)).collect();
        assert_eq!(exact.scored(&sigs), [(0, 1, 1.0)]);
        assert_eq!(exact.label(), "containment(w=2)");
        // The same pair's Jaccard: 3 shared of 11.
        let jaccard = ExactJaccard {
            score: SetScore::Jaccard,
            ..exact.clone()
        };
        assert_eq!(jaccard.scored(&sigs), [(0, 1, (3.0f64 / 11.0) as f32)]);

        let search = CandidateSearch::AllPairs;
        for verify in [Verify::Exact, Verify::Estimate] {
            let m = MinHash::new(2, 256, Sketching::Minhash, search, verify, 0.1)
                .with_score(SetScore::Containment);
            let (a, b) = (m.sign(&d[0]).unwrap(), m.sign(&d[1]).unwrap());
            assert_eq!((a.size, b.size), (3, 11));
            let s = m.score(&a, &b);
            assert!(s > 0.7, "{verify:?}: {s}");
            assert!(m.label().ends_with(", containment)"), "{}", m.label());
        }
    }
}
