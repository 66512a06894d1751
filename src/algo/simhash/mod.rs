//! Charikar's SimHash (seeds 002-004): weighted features, one hash per
//! feature, a signed weighted sum per bit, the signs as fingerprint. Two
//! pages are near-duplicates when their fingerprints differ in at most k
//! bits. Candidates come from Manku et al.'s permuted tables ([`tables`])
//! or, for sweeps reaching past what a table layout covers, a popcount
//! scan of all pairs.

pub mod config;
pub mod tables;
pub mod wide;

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::xxh3_128_with_seed;

use super::collection::DocumentFrequencies;
use super::{Detector, Direction, Document, ScoreScale};
use crate::text::tokenize::{each_char_ngram, feed_tokens, TokenSink};
use crate::text::Lang;
use crate::text::TokenizerConfig;
use tables::Layout;

/// Fixed so that fingerprints are the same on every run and machine.
pub const SEED: u64 = 0x7369_6d68_6173_6801;
/// The feature hash with its version, carried by exported fingerprints
/// beside the seed (see `shingling::minhash::MINHASH_FAMILY`).
pub const HASH_FAMILY: &str = "xxh3-128 v1";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Features {
    /// Each token is a feature.
    Words,
    /// Each run of `ngram` consecutive tokens is a feature.
    Ngrams,
    /// Each run of `ngram` characters of the normalised text (whitespace
    /// removed) is a feature.
    Chars,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Weights {
    /// Occurrences in the page.
    Tf,
    /// Occurrences times ln(N/df) over the collection.
    TfIdf,
    /// Seed 003's five levels: the page's features ranked by tf-idf, the
    /// top fifth weighing 5, the next 4, ... the last fifth 1.
    Levels,
}

#[derive(Debug, Clone)]
pub struct SimHash {
    pub features: Features,
    pub ngram: usize,
    pub weights: Weights,
    /// 64, or 128 for two 64-bit halves (brute-force search only); wider
    /// through [`wide::WideSimHash`].
    pub bits: u32,
    /// Largest Hamming distance kept as a scored pair.
    pub floor: u32,
    /// Permuted tables for candidates; `None` compares every pair.
    pub layout: Option<Layout>,
    /// A reference collection for IDF; `None` for the evaluated pages.
    pub reference: Option<Arc<Vec<Document>>>,
    idf: Option<DocumentFrequencies>,
    /// Set by the runner when no algorithm on these tokens reads them:
    /// pages are then signed straight from their text with this
    /// tokenizer, without a vocabulary (see [`SimHash::sign_text`]).
    from_text: Option<TokenizerConfig>,
}

impl Default for SimHash {
    fn default() -> Self {
        SimHash {
            features: Features::Words,
            ngram: 2,
            weights: Weights::Tf,
            bits: 64,
            floor: 16,
            layout: None,
            reference: None,
            idf: None,
            from_text: None,
        }
    }
}

impl SimHash {
    pub fn new(
        features: Features,
        ngram: usize,
        weights: Weights,
        bits: u32,
        floor: u32,
        layout: Option<Layout>,
        reference: Option<Arc<Vec<Document>>>,
    ) -> Self {
        SimHash {
            features,
            ngram,
            weights,
            bits,
            floor,
            layout,
            reference,
            idf: None,
            from_text: None,
        }
    }

    /// Whether the fingerprint can be made from the page's text alone:
    /// words weighted by their counts need neither the collection nor ids.
    pub fn signs_from_text(&self) -> bool {
        self.features == Features::Words && self.weights == Weights::Tf
    }

    /// The fingerprint of `text` tokenised by `tokenizer`, each token
    /// hashed from its string as it is cut: the same fingerprint as
    /// tokenising into a vocabulary and signing the ids, without the
    /// vocabulary (interning, ids, the merge of runs), which costs about
    /// as much as the signature itself. `None` when there are no tokens,
    /// or the set-up does not sign from text ([`SimHash::signs_from_text`]).
    pub fn sign_text(&self, text: &str, lang: Lang, tokenizer: &TokenizerConfig) -> Option<u128> {
        thread_local! {
            static HASHED: std::cell::RefCell<HashedByLength> =
                std::cell::RefCell::new(HashedByLength::default());
        }
        if !self.signs_from_text() {
            return None;
        }
        HASHED.with(|hashed| {
            let hashed = &mut *hashed.borrow_mut();
            hashed.clear();
            feed_tokens(text, lang, tokenizer, hashed);
            let hashes = &hashed.hashes;
            let signed = (!hashes.is_empty())
                .then(|| occurrence_fingerprint(hashes.iter().copied(), hashes.len(), self.bits));
            // A huge page does not leave its buffers to the thread.
            if hashes.capacity() > 1 << 16 {
                *hashed = HashedByLength::default();
            }
            signed
        })
    }

    /// The page's features as 128-bit hashes with their counts, in
    /// first-seen order.
    fn counted_features(&self, doc: &Document) -> Vec<(u128, u32)> {
        let mut counts: HashMap<u128, u32, BuildHasherDefault<FeatureHasher>> =
            HashMap::with_capacity_and_hasher(doc.tokens.len(), Default::default());
        let mut order = Vec::new();
        let mut add = |h: u128| {
            let c = counts.entry(h).or_insert(0);
            if *c == 0 {
                order.push(h);
            }
            *c += 1;
        };
        let n = self.ngram.max(1);
        match self.features {
            Features::Words => {
                let hashes = word_hashes(doc);
                for &id in doc.tokens.ids() {
                    add(hashes[id as usize]);
                }
            }
            Features::Ngrams => {
                let tokens: Vec<&str> = doc.tokens.iter().collect();
                let n = n.min(tokens.len().max(1));
                let mut buf = String::new();
                for window in tokens.windows(n) {
                    buf.clear();
                    for t in window {
                        buf.push_str(t);
                        buf.push('\u{1}');
                    }
                    add(xxh3_128_with_seed(buf.as_bytes(), SEED));
                }
            }
            Features::Chars => each_char_ngram(&doc.normalized_text(), n, |g| {
                add(xxh3_128_with_seed(g.as_bytes(), SEED))
            }),
        }
        order.into_iter().map(|h| (h, counts[&h])).collect()
    }

    /// The features' weights under the configured scheme.
    fn weighted_features(&self, doc: &Document) -> Vec<(u128, f64)> {
        let counted = self.counted_features(doc);
        let tf_idf = |(h, c): (u128, u32)| {
            let idf = self.idf.as_ref().map_or(1.0, |f| f.idf_of(h as u64));
            (h, f64::from(c) * idf)
        };
        match self.weights {
            Weights::Tf => counted
                .into_iter()
                .map(|(h, c)| (h, f64::from(c)))
                .collect(),
            Weights::TfIdf => counted.into_iter().map(tf_idf).collect(),
            Weights::Levels => {
                let mut scored: Vec<(u128, f64)> = counted.into_iter().map(tf_idf).collect();
                let mut ranked: Vec<usize> = (0..scored.len()).collect();
                ranked.sort_by(|&a, &b| scored[b].1.total_cmp(&scored[a].1).then(a.cmp(&b)));
                let n = scored.len();
                for (rank, &i) in ranked.iter().enumerate() {
                    scored[i].1 = (5 - 5 * rank / n) as f64;
                }
                scored
            }
        }
    }
}

/// Each word's feature hash, by token id: each distinct token of the run
/// is hashed once.
fn word_hashes(doc: &Document) -> Arc<[u128]> {
    doc.tokens
        .vocab()
        .derived("simhash word", |t| xxh3_128_with_seed(t.as_bytes(), SEED))
}

/// The fingerprint of features weighted by their counts, from their
/// `n` occurrences one by one: with integer weights every per-bit sum
/// of [`fingerprint`] is an exact integer whatever the order it is added
/// in, namely (occurrences with the bit set) - (the others), so the bit
/// is set when more than half of the occurrences have it. Counting bits
/// needs no map of the distinct features (the test against the per-bit
/// definition checks it bit for bit).
fn occurrence_fingerprint(hashes: impl Iterator<Item = u128>, n: usize, bits: u32) -> u128 {
    let counts = bit_counts(hashes, bits > 64);
    let mut fp = 0u128;
    for (bit, &c) in counts.iter().enumerate().take(bits.min(128) as usize) {
        if 2 * u64::from(c) > n as u64 {
            fp |= 1 << bit;
        }
    }
    fp
}

/// A page's token hashes, made a length class at a time: xxh3 takes one
/// path for 1-3 bytes, one for 4-8 and one for 9-16, and Chinese tokens of
/// one, two and three characters (3, 6 and 9 bytes) follow each other in
/// no order the CPU can predict. Over People's Daily pages' tokens alone
/// that branch cost 1.1 us of the 1.7 us a page's hashes took in text
/// order; in the whole signature, where it partly overlapped with the
/// segmenter's work, about 1%. The order of the hashes does not change
/// the fingerprint, a count per bit.
#[derive(Default)]
struct HashedByLength {
    /// Token spans by class: up to 3 bytes, 8, 16, and longer.
    spans: [Vec<(u32, u32)>; 4],
    hashes: Vec<u128>,
}

impl HashedByLength {
    fn clear(&mut self) {
        self.spans.iter_mut().for_each(Vec::clear);
        self.hashes.clear();
    }
}

impl TokenSink for HashedByLength {
    #[inline(always)]
    fn token(&mut self, a: usize, b: usize) {
        let len = b - a;
        let class = usize::from(len > 3) + usize::from(len > 8) + usize::from(len > 16);
        self.spans[class].push((a as u32, b as u32));
    }

    fn finish(&mut self, normalized: &str) {
        let bytes = normalized.as_bytes();
        for spans in &mut self.spans {
            self.hashes.extend(
                spans
                    .drain(..)
                    .map(|(a, b)| xxh3_128_with_seed(&bytes[a as usize..b as usize], SEED)),
            );
        }
    }
}

/// For each bit of the hashes (the low 64 only unless `wide`), how many
/// have it set.
fn bit_counts(hashes: impl Iterator<Item = u128>, wide: bool) -> [u32; 128] {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512bw") {
            // SAFETY: the CPU has the features the function is compiled for.
            return unsafe { bit_counts_avx512bw(hashes, wide) };
        }
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has the features the function is compiled for.
            return unsafe { bit_counts_avx512(hashes, wide) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: as above.
            return unsafe { bit_counts_avx2(hashes, wide) };
        }
    }
    bit_counts_portable(hashes, wide)
}

/// 32 lanes per 32-bit word of the hash, each adding its own bit: the
/// compiler keeps the counts in vector registers.
#[inline(always)]
fn bit_counts_portable(hashes: impl Iterator<Item = u128>, wide: bool) -> [u32; 128] {
    let mut counts = [0u32; 128];
    let words = if wide { 4 } else { 2 };
    for h in hashes {
        for (w, chunk) in counts.chunks_exact_mut(32).take(words).enumerate() {
            let word = (h >> (32 * w)) as u32;
            for (bit, count) in chunk.iter_mut().enumerate() {
                *count += word >> bit & 1;
            }
        }
    }
    counts
}

/// Each hash's bits as a mask that makes 64 byte lanes -1 or 0 (AVX-512
/// BW's `vpmovm2b`), subtracted from 64 byte counters: three instructions
/// a 64-bit word where the lanes of [`bit_counts_portable`] take a dozen.
/// The byte counters go into the totals before they can overflow.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn bit_counts_avx512bw(hashes: impl Iterator<Item = u128>, wide: bool) -> [u32; 128] {
    use std::arch::x86_64::{
        __m512i, _cvtu64_mask64, _mm512_movm_epi8, _mm512_setzero_si512, _mm512_storeu_si512,
        _mm512_sub_epi8,
    };
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn add_to(counts: &mut [u32], bytes: __m512i) {
        let mut lanes = [0u8; 64];
        // SAFETY: `lanes` is 64 bytes, as many as the vector has.
        unsafe { _mm512_storeu_si512(lanes.as_mut_ptr().cast(), bytes) };
        for (count, &lane) in counts.iter_mut().zip(&lanes) {
            *count += u32::from(lane);
        }
    }
    let mut counts = [0u32; 128];
    let (mut low, mut high) = (_mm512_setzero_si512(), _mm512_setzero_si512());
    let mut pending = 0;
    for h in hashes {
        low = _mm512_sub_epi8(low, _mm512_movm_epi8(_cvtu64_mask64(h as u64)));
        if wide {
            high = _mm512_sub_epi8(high, _mm512_movm_epi8(_cvtu64_mask64((h >> 64) as u64)));
        }
        pending += 1;
        if pending == u8::MAX {
            add_to(&mut counts[..64], low);
            add_to(&mut counts[64..], high);
            (low, high, pending) = (_mm512_setzero_si512(), _mm512_setzero_si512(), 0);
        }
    }
    add_to(&mut counts[..64], low);
    add_to(&mut counts[64..], high);
    counts
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn bit_counts_avx512(hashes: impl Iterator<Item = u128>, wide: bool) -> [u32; 128] {
    bit_counts_portable(hashes, wide)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn bit_counts_avx2(hashes: impl Iterator<Item = u128>, wide: bool) -> [u32; 128] {
    bit_counts_portable(hashes, wide)
}

/// Features are already xxh3 hashes: their low 64 bits are the map's hash,
/// which spares SipHash over every token (a third of signing time).
#[derive(Default)]
struct FeatureHasher(u64);

impl Hasher for FeatureHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    fn write_u128(&mut self, h: u128) {
        self.0 ^= h as u64;
    }
}

/// The fingerprint of weighted 128-bit feature hashes: bit i is set when
/// the weights of features with bit i set outweigh the others. With
/// `bits` 64 only the low half is used.
pub fn fingerprint(features: &[(u128, f64)], bits: u32) -> u128 {
    let bits = bits.min(128) as usize;
    let mut fp = 0u128;
    for (half, shift) in [(0usize, 0u32), (1, 64)] {
        if bits <= half * 64 {
            break;
        }
        let sums = half_sums(features, shift);
        for (bit, &s) in sums.iter().enumerate().take(bits - half * 64) {
            if s > 0.0 {
                fp |= 1 << (bit + half * 64);
            }
        }
    }
    fp
}

/// ±1.0 for each bit of a byte, low bit first.
static BYTE_SIGNS: [[f64; 8]; 256] = byte_signs();

const fn byte_signs() -> [[f64; 8]; 256] {
    let mut table = [[0f64; 8]; 256];
    let mut byte = 0;
    while byte < 256 {
        let mut bit = 0;
        while bit < 8 {
            table[byte][bit] = if byte >> bit & 1 == 1 { 1.0 } else { -1.0 };
            bit += 1;
        }
        byte += 1;
    }
    table
}

/// For each of the 64 bits of `hash >> shift`, the weights of features with
/// the bit set minus the others.
fn half_sums(features: &[(u128, f64)], shift: u32) -> [f64; 64] {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has the features the function is compiled for.
            return unsafe { half_sums_avx512(features, shift) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: as above.
            return unsafe { half_sums_avx2(features, shift) };
        }
    }
    half_sums_portable(features, shift)
}

/// Each byte of the hash picks a row of eight ±1.0, times the weight: the
/// product is exactly ±weight, so the sums are those a per-bit branch adds
/// (bit for bit), without the branch, and the 64 sums stay in registers.
#[inline(always)]
fn half_sums_portable(features: &[(u128, f64)], shift: u32) -> [f64; 64] {
    let mut sums = [0f64; 64];
    for &(hash, weight) in features {
        let half = (hash >> shift) as u64;
        for (byte, chunk) in sums.chunks_exact_mut(8).enumerate() {
            let signs = &BYTE_SIGNS[(half >> (8 * byte)) as usize & 0xff];
            for (sum, sign) in chunk.iter_mut().zip(signs) {
                *sum += sign * weight;
            }
        }
    }
    sums
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn half_sums_avx512(features: &[(u128, f64)], shift: u32) -> [f64; 64] {
    half_sums_portable(features, shift)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn half_sums_avx2(features: &[(u128, f64)], shift: u32) -> [f64; 64] {
    half_sums_portable(features, shift)
}

impl Detector for SimHash {
    type Signature = u128;

    fn name(&self) -> &'static str {
        "simhash"
    }

    fn label(&self) -> String {
        let features = match self.features {
            Features::Words => "words".to_string(),
            Features::Ngrams => format!("{}-grams", self.ngram),
            Features::Chars => format!("char {}-grams", self.ngram),
        };
        let weights = match self.weights {
            Weights::Tf => "tf",
            Weights::TfIdf if self.reference.is_some() => "tf-idf ref",
            Weights::TfIdf => "tf-idf",
            Weights::Levels => "levels",
        };
        let mut label = format!("simhash({features},{weights}");
        if self.bits != 64 {
            label.push_str(&format!(",{} bits", self.bits));
        }
        match &self.layout {
            // The default search goes unnamed, so labels stay short.
            Some(layout) if config::DEFAULT_LAYOUT.parse().ok().as_ref() != Some(layout) => {
                label.push_str(&format!(",tables {layout}"))
            }
            None if self.bits == 64 => label.push_str(",all pairs"),
            _ => {}
        }
        label.push(')');
        label
    }

    fn describe(&self) -> Vec<String> {
        vec![match &self.layout {
            Some(layout) if self.bits == 64 => format!(
                "candidates through {} permuted tables ({layout}): every pair within {} bits, floor {}",
                layout.permutations().len(),
                layout.max_k(),
                self.floor
            ),
            _ => format!(
                "candidates: all pairs compared (quadratic), floor {}",
                self.floor
            ),
        }]
    }

    fn scale(&self) -> ScoreScale {
        ScoreScale {
            name: "hamming distance",
            direction: Direction::AtMost,
            min: 0.0,
            max: f64::from(self.bits),
            floor: f64::from(self.floor),
        }
    }

    fn fit(&mut self, docs: &[Document]) -> bool {
        if self.weights == Weights::Tf {
            return false;
        }
        let collection = self.reference.as_deref().map_or(docs, Vec::as_slice);
        let this = &*self;
        let idf = DocumentFrequencies::count(collection, |doc| {
            this.counted_features(doc)
                .into_iter()
                .map(|(h, _)| h as u64)
                .collect::<Vec<u64>>()
        });
        self.idf = Some(idf);
        true
    }

    fn signs_from_text(&self) -> bool {
        SimHash::signs_from_text(self)
    }

    fn sign_from_text(&mut self, tokenizer: &TokenizerConfig) {
        self.from_text = Some(tokenizer.clone());
    }

    fn sign(&self, doc: &Document) -> Option<u128> {
        if let (Some(tokenizer), Some(structure)) = (&self.from_text, &doc.structure) {
            return self.sign_text(structure.text(), doc.lang, tokenizer);
        }
        if self.features == Features::Words && self.weights == Weights::Tf {
            let ids = doc.tokens.ids();
            if ids.is_empty() {
                return None;
            }
            let hashes = word_hashes(doc);
            return Some(occurrence_fingerprint(
                ids.iter().map(|&id| hashes[id as usize]),
                ids.len(),
                self.bits,
            ));
        }
        let features = self.weighted_features(doc);
        (!features.is_empty()).then(|| fingerprint(&features, self.bits))
    }

    fn candidates(&self, signatures: &[Option<u128>]) -> Vec<(u32, u32)> {
        let signed: Vec<(u32, u128)> = signatures
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.map(|fp| (i as u32, fp)))
            .collect();
        let floor = self.floor;
        match &self.layout {
            Some(layout) if self.bits == 64 => {
                let fps: Vec<u64> = signed.iter().map(|&(_, fp)| fp as u64).collect();
                tables::self_join(layout, &fps, floor)
                    .into_iter()
                    .map(|(a, b, _)| (signed[a as usize].0, signed[b as usize].0))
                    .collect()
            }
            _ => (0..signed.len())
                .into_par_iter()
                .flat_map_iter(|x| {
                    let (i, fi) = signed[x];
                    signed[x + 1..]
                        .iter()
                        .filter(move |(_, fj)| (fi ^ fj).count_ones() <= floor)
                        .map(move |&(j, _)| (i, j))
                })
                .collect(),
        }
    }

    fn signature_key(&self, signature: &u128) -> Option<u128> {
        Some(*signature)
    }

    fn score(&self, a: &u128, b: &u128) -> f32 {
        (a ^ b).count_ones() as f32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::Lang;
    use crate::text::{tokenize, TokenizerConfig};

    fn doc(text: &str) -> Document {
        Document {
            page: 0,
            lang: Lang::En,
            tokens: std::sync::Arc::new(tokenize(text, Lang::En, &TokenizerConfig::default())),
            structure: None,
            host: None,
        }
    }

    #[test]
    fn fingerprint_bits_follow_weighted_sign() {
        // Bit 0 is set in the heavier feature only: its weight wins.
        assert_eq!(fingerprint(&[(0b01, 3.0), (0b10, 1.0)], 64) & 0b11, 0b01);
        assert_eq!(fingerprint(&[(0b01, 1.0), (0b10, 3.0)], 64) & 0b11, 0b10);
        // A tie is not positive: the bit stays clear.
        assert_eq!(fingerprint(&[(0b01, 2.0), (0b10, 2.0)], 64) & 0b11, 0);
        // 64 bits leave the high half clear; 128 use it.
        let high = 1u128 << 100;
        assert_eq!(fingerprint(&[(high, 1.0)], 64), 0);
        assert_eq!(fingerprint(&[(high, 1.0)], 128), high);
    }

    #[test]
    fn fingerprint_matches_the_per_bit_definition() {
        // The definition: a signed sum per bit, adding or subtracting each
        // weight by a branch. The table-driven sums must agree bit for bit.
        let reference = |features: &[(u128, f64)], bits: usize| {
            let mut fp = 0u128;
            for bit in 0..bits {
                let mut sum = 0f64;
                for &(h, w) in features {
                    if h >> bit & 1 == 1 {
                        sum += w;
                    } else {
                        sum -= w;
                    }
                }
                if sum > 0.0 {
                    fp |= 1 << bit;
                }
            }
            fp
        };
        let mut rng = crate::util::rng::SplitMix64::murmur(1u64);
        for page in 0..50 {
            let features: Vec<(u128, f64)> = (0..page * 7)
                .map(|i| {
                    let h = u128::from(rng.next_u64()) << 64 | u128::from(rng.next_u64());
                    // Integer counts, fractional tf-idf and exact ties.
                    let w = match i % 3 {
                        0 => (rng.next_u64() % 4 + 1) as f64,
                        1 => (rng.next_u64() % 1000) as f64 / 77.0,
                        _ => 0.5,
                    };
                    (h, w)
                })
                .collect();
            for bits in [64, 128] {
                assert_eq!(
                    fingerprint(&features, bits as u32),
                    reference(&features, bits),
                    "page {page}, {bits} bits"
                );
            }
        }
    }

    #[test]
    fn counting_occurrences_gives_the_weighted_fingerprint() {
        // Integer weights as the counts of repeated features, in any order:
        // the same fingerprint as the weighted sums, ties included.
        let mut rng = crate::util::rng::SplitMix64::murmur(7u64);
        for page in 0..60 {
            let distinct: Vec<u128> = (0..page % 17 + 1)
                .map(|_| u128::from(rng.next_u64()) << 64 | u128::from(rng.next_u64()))
                .collect();
            let mut occurrences: Vec<u128> = (0..page * 5 + 1)
                .map(|_| distinct[rng.next_u64() as usize % distinct.len()])
                .collect();
            if page % 3 == 0 {
                // Every feature twice more: even totals, more exact ties.
                occurrences.extend(distinct.iter().chain(&distinct));
            }
            let mut counted: Vec<(u128, f64)> = Vec::new();
            for &h in &occurrences {
                match counted.iter_mut().find(|(g, _)| *g == h) {
                    Some((_, w)) => *w += 1.0,
                    None => counted.push((h, 1.0)),
                }
            }
            for bits in [64, 128] {
                assert_eq!(
                    occurrence_fingerprint(occurrences.iter().copied(), occurrences.len(), bits),
                    fingerprint(&counted, bits),
                    "page {page}, {bits} bits"
                );
            }
        }
        // A tie stays clear; 64 bits leave the high half clear.
        let high = 1u128 << 100 | 1;
        assert_eq!(occurrence_fingerprint([1, 2].into_iter(), 2, 64), 0);
        assert_eq!(occurrence_fingerprint([high].into_iter(), 1, 64), 1);
        assert_eq!(occurrence_fingerprint([high].into_iter(), 1, 128), high);
    }

    #[test]
    fn every_bit_counter_the_cpu_has_counts_as_the_portable_one() {
        let mut rng = crate::util::rng::SplitMix64::murmur(11u64);
        // Past 255 the byte counters must have gone into the totals.
        for n in [0, 1, 254, 255, 256, 510, 511, 1000] {
            let hashes: Vec<u128> = (0..n)
                .map(|_| u128::from(rng.next_u64()) << 64 | u128::from(rng.next_u64()))
                .collect();
            for wide in [false, true] {
                let expected = bit_counts_portable(hashes.iter().copied(), wide);
                assert_eq!(bit_counts(hashes.iter().copied(), wide), expected, "{n}");
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("avx512bw") {
                    // SAFETY: the CPU has the features the function needs.
                    let counted = unsafe { bit_counts_avx512bw(hashes.iter().copied(), wide) };
                    assert_eq!(counted, expected, "{n} hashes, wide {wide}");
                }
            }
        }
        // All ones, 300 times: every byte counter passes 255.
        let ones = std::iter::repeat_n(u128::MAX, 300);
        let counts = bit_counts(ones, true);
        assert!(counts.iter().all(|&c| c == 300), "{counts:?}");
    }

    #[test]
    fn words_by_tf_sign_as_their_counted_features() {
        let text = "a b a c a b d e the the the f g a";
        for bits in [64, 128] {
            let s = SimHash {
                bits,
                ..SimHash::default()
            };
            let d = doc(text);
            let counted: Vec<(u128, f64)> = s
                .counted_features(&d)
                .into_iter()
                .map(|(h, c)| (h, f64::from(c)))
                .collect();
            assert_eq!(s.sign(&d), Some(fingerprint(&counted, bits)));
        }
    }

    #[test]
    fn near_texts_are_closer_than_different_texts() {
        let s = SimHash::default();
        let base = "the committee met on monday to discuss the budget for the coming year and agreed to raise spending on schools roads and hospitals while cutting administrative costs";
        let edited = base.replace("monday", "tuesday");
        let other = "a small cat slept in the warm sun all afternoon while children played football in the park nearby and their parents talked about holidays by the sea";
        let (a, b, c) = (
            s.sign(&doc(base)).unwrap(),
            s.sign(&doc(&edited)).unwrap(),
            s.sign(&doc(other)).unwrap(),
        );
        assert_eq!(s.score(&a, &a), 0.0);
        assert!(
            s.score(&a, &b) < s.score(&a, &c),
            "{} vs {}",
            s.score(&a, &b),
            s.score(&a, &c)
        );
    }

    #[test]
    fn brute_force_candidates_respect_the_floor() {
        let s = SimHash {
            floor: 2,
            ..SimHash::default()
        };
        let sigs = [
            Some(0u128),
            Some(0b11),
            Some(0b111),
            None,
            Some(u64::MAX as u128),
        ];
        assert_eq!(s.candidates(&sigs), vec![(0, 1), (1, 2)]);
        let tables = SimHash {
            floor: 2,
            layout: Some("6c3".parse().unwrap()),
            ..SimHash::default()
        };
        assert_eq!(tables.candidates(&sigs), vec![(0, 1), (1, 2)]);
    }

    #[test]
    fn feature_kinds_and_weights_sign_near_texts_closer() {
        let base = "the committee met on monday to discuss the budget for the coming year and agreed to raise spending on schools roads and hospitals while cutting administrative costs";
        let edited = base.replace("monday", "tuesday");
        let other = "a small cat slept in the warm sun all afternoon while children played football in the park nearby and their parents talked about holidays by the sea";
        let docs = [doc(base), doc(&edited), doc(other)];
        // IDF over a collection of more than three pages, so that words
        // shared by the near pair are not all weighed as rare as the edit.
        let mut collection = docs.to_vec();
        for t in [
            "the weather on monday was cold and the roads were closed for the coming week",
            "schools and hospitals in the region asked for more spending this year",
            "the park was full of children and their parents on a warm afternoon",
            "administrative costs rose while the budget for roads was cut again",
            "football fans talked about holidays by the sea and the coming season",
        ] {
            collection.push(doc(t));
        }
        for features in [Features::Words, Features::Ngrams, Features::Chars] {
            for weights in [Weights::Tf, Weights::TfIdf, Weights::Levels] {
                for bits in [64, 128] {
                    let mut s = SimHash {
                        features,
                        ngram: 3,
                        weights,
                        bits,
                        ..SimHash::default()
                    };
                    assert_eq!(s.fit(&collection), weights != Weights::Tf);
                    let f: Vec<u128> = docs.iter().map(|d| s.sign(d).unwrap()).collect();
                    assert!(
                        s.score(&f[0], &f[1]) < s.score(&f[0], &f[2]),
                        "{features:?} {weights:?} {bits}"
                    );
                    if bits == 64 {
                        assert!(f.iter().all(|fp| fp >> 64 == 0));
                    }
                }
            }
        }
    }

    #[test]
    fn levels_run_from_five_to_one() {
        let mut s = SimHash {
            weights: Weights::Levels,
            ..SimHash::default()
        };
        let d = doc("a a a a b b b c c d e f g h i j");
        s.fit(std::slice::from_ref(&d));
        let w = s.weighted_features(&d);
        let levels: Vec<f64> = w.iter().map(|x| x.1).collect();
        assert_eq!(levels.iter().cloned().fold(0.0, f64::max), 5.0);
        assert_eq!(levels.iter().cloned().fold(9.0, f64::min), 1.0);
        // The most frequent word has the top level.
        assert_eq!(w[0].1, 5.0);
    }

    #[test]
    fn empty_page_gets_no_signature() {
        assert_eq!(SimHash::default().sign(&doc("  ")), None);
    }

    /// Pages of People's Daily 1998 cut to 600 characters (the bench's
    /// Chinese input), and made-up pages mixing scripts.
    fn pages() -> Vec<(Lang, String)> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/corpora/peoples_daily_1998_01/articles.jsonl.gz");
        let mut pages = crate::bench::BenchInput::cut_into_pages(&path, 600)
            .expect("People's Daily 1998 in ../shared/corpora")
            .pages;
        pages.truncate(600);
        for text in [
            "",
            "  \u{3000} ",
            "ＧＤＰ增长１０％, the Quick fox 2024年“中国”",
            "北京大学 北京大学 北京大学",
            "a",
            // Tokens of every length class the hashes are grouped by,
            // past 16 bytes too.
            "版本v1.2.3-rc和supercalifragilisticexpialidocious、ABCDEFGHIJKLMNOPQRSTUVWXYZ0123 中华人民共和国 我 们",
        ] {
            pages.push((Lang::Zh, text.to_string()));
            pages.push((Lang::En, text.to_string()));
        }
        pages
    }

    #[test]
    fn signing_from_text_gives_the_fingerprint_of_the_tokens() {
        for bits in [64, 128] {
            let s = SimHash::new(Features::Words, 2, Weights::Tf, bits, 3, None, None);
            let tokenizer = TokenizerConfig::default();
            let pages = pages();
            let docs = Document::many(pages.len(), &tokenizer, |i| {
                (pages[i].1.clone(), Some(pages[i].0))
            });
            let mut signed = 0;
            for ((lang, text), doc) in pages.iter().zip(&docs) {
                let from_text = s.sign_text(text, *lang, &tokenizer);
                assert_eq!(from_text, s.sign(doc), "{bits} bits: {text:?}");
                signed += usize::from(from_text.is_some());
            }
            assert!(signed >= 600, "{signed} pages signed");
        }
        // Other features or weights need the collection or the ids.
        let idf = SimHash::new(Features::Words, 2, Weights::TfIdf, 64, 3, None, None);
        assert!(!idf.signs_from_text());
        assert_eq!(
            idf.sign_text("北京大学", Lang::Zh, &TokenizerConfig::default()),
            None
        );
        assert!(
            !SimHash::new(Features::Ngrams, 2, Weights::Tf, 64, 3, None, None).signs_from_text()
        );
    }

    #[test]
    fn a_signer_told_to_sign_from_text_reads_the_structure() {
        let tokenizer = TokenizerConfig::default();
        let text = "北京大学的学生 and the quick fox";
        let mut s = SimHash::default();
        let with_tokens = Document::new(0, text, Some(Lang::Zh), &tokenizer);
        let expected = s.sign(&with_tokens);
        assert!(expected.is_some());
        Detector::sign_from_text(&mut s, &tokenizer);
        let structure =
            crate::extract::structure::DocumentStructure::new(None, vec![], vec![text.into()]);
        assert_eq!(structure.text(), text);
        let without_tokens = Document {
            tokens: std::sync::Arc::default(),
            structure: Some(std::sync::Arc::new(structure)),
            ..with_tokens
        };
        assert_eq!(s.sign(&without_tokens), expected);
    }
}
