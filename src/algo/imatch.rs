//! I-Match (Chowdhury et al. 2002; seed 000, section 3.2) and its
//! randomised lexicons (Kołcz, Chowdhury and Alspector 2004).
//!
//! A lexicon is built from collection statistics: terms ranked by IDF, the
//! most and least frequent cut away. A page's signature is SHA-1 over its
//! sorted unique lexicon terms, so pages collide exactly when they hold the
//! same lexicon terms. One term more or less breaks that, so K extra
//! lexicons each drop a random fraction p of the main one: a page gets K+1
//! signatures, and a pair's score is how many it shares.

use std::collections::HashSet;
use std::sync::Arc;

use rayon::prelude::*;
use sha1::{Digest, Sha1};
use xxhash_rust::xxh3::xxh3_64_with_seed;

use serde::{Deserialize, Serialize};

use super::collection::DocumentFrequencies;
use super::settings::{in_range, invalid, with_threshold, AlgorithmSettings, Checked};
use super::{Algorithm, Detector, Direction, Document, ScoreScale};
use crate::text::stopwords::is_stop_word;
use crate::text::TokenKind;
use crate::util::rng::fmix64;

/// Fixed so that lexicons and their random subsets are the same on every
/// run and machine.
const TERM_SEED: u64 = 0x696d_6174_6368_0001;
const EXTRA_LEXICON_SEED: u64 = 0x6b6f_6c63_7a32_3030;

fn term_hash(term: &str) -> u64 {
    xxh3_64_with_seed(term.as_bytes(), TERM_SEED)
}

/// A page's terms as (id, hash), stop words left out when asked: each
/// distinct token of the run is hashed and looked up once.
fn page_terms(doc: &Document, stop_words: bool) -> impl Iterator<Item = (u32, u64)> + '_ {
    let terms = doc
        .tokens
        .vocab()
        .derived("imatch term", |t| (term_hash(t), is_stop_word(t)));
    doc.tokens.ids().iter().filter_map(move |&id| {
        let (hash, stop) = terms[id as usize];
        (!(stop_words && stop)).then_some((id, hash))
    })
}

/// Which terms of the ranking the lexicon keeps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum IdfBand {
    /// IDF = ln(N/df) within [low, high].
    Idf { low: f64, high: f64 },
    /// Between these fractions (0..1) of the terms ranked by IDF; terms
    /// tied at a cut are all kept.
    Percentiles { low: f64, high: f64 },
}

/// The lexicon: the main one, and the cut-offs of the extra ones.
#[derive(Debug, Clone, PartialEq)]
pub struct Lexicon {
    terms: HashSet<u64>,
    /// Tells this lexicon's terms apart from another's, for the bitset of
    /// ids a vocabulary keeps for it (see [`IMatch::lexicon_terms`]).
    key: u64,
    /// Extra lexicon k keeps a main term when its k-th random rank is at
    /// least `cuts[k]`: exactly the lowest-ranked fraction p is dropped.
    cuts: Vec<u64>,
    /// Seeds the extra lexicons' random ranks.
    seed: u64,
    /// The IDF range kept, for the report.
    pub idf_range: (f64, f64),
    /// Distinct terms in the collection after `min_df` and stop words.
    pub candidates: usize,
}

impl Lexicon {
    pub fn build(
        frequencies: &DocumentFrequencies,
        band: IdfBand,
        min_df: u32,
        extra: usize,
        drop: f64,
        seed: u64,
    ) -> Lexicon {
        let mut ranked: Vec<(f64, u64)> = frequencies
            .df
            .iter()
            .filter(|(_, &df)| df >= min_df)
            .map(|(&h, &df)| (frequencies.idf(df), h))
            .collect();
        ranked.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let (low, high) = match band {
            IdfBand::Idf { low, high } => (low, high),
            IdfBand::Percentiles { low, high } => {
                if ranked.is_empty() {
                    (0.0, 0.0)
                } else {
                    let at = |q: f64| ranked[((ranked.len() - 1) as f64 * q).round() as usize].0;
                    (at(low), at(high))
                }
            }
        };
        let terms: HashSet<u64> = ranked
            .iter()
            .filter(|(idf, _)| *idf >= low && *idf <= high)
            .map(|&(_, h)| h)
            .collect();
        let mut sorted: Vec<u64> = terms.iter().copied().collect();
        sorted.sort_unstable();
        let key = sorted.iter().fold(sorted.len() as u64, |key, &h| {
            fmix64(key.rotate_left(17) ^ h)
        });
        let dropped = (drop * sorted.len() as f64).round() as usize;
        let cuts = (0..extra)
            .map(|k| {
                let mut ranks: Vec<u64> = sorted.iter().map(|&h| extra_rank(seed, h, k)).collect();
                ranks.sort_unstable();
                // Keep ranks >= the first kept one; with nothing dropped
                // every term stays.
                match dropped {
                    0 => 0,
                    d if d >= ranks.len() => u64::MAX,
                    d => ranks[d],
                }
            })
            .collect();
        Lexicon {
            terms,
            key,
            cuts,
            seed,
            idf_range: (low, high),
            candidates: ranked.len(),
        }
    }

    pub fn len(&self) -> usize {
        self.terms.len()
    }

    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    pub fn contains(&self, term: &str) -> bool {
        self.terms.contains(&term_hash(term))
    }

    /// Whether extra lexicon `k` keeps a main-lexicon term.
    pub fn extra_keeps(&self, k: usize, term: &str) -> bool {
        self.extra_keeps_hash(k, term_hash(term))
    }

    fn extra_keeps_hash(&self, k: usize, term: u64) -> bool {
        extra_rank(self.seed, term, k) >= self.cuts[k]
    }
}

/// The k-th independent random rank of a term.
fn extra_rank(seed: u64, term: u64, k: usize) -> u64 {
    fmix64(term ^ seed.wrapping_mul(k as u64 + 1))
}

/// The extra lexicons' seed: the fixed default, or one drawn from an
/// experiment's seed (so that runs over several seeds draw new lexicons).
fn lexicon_seed(seed: Option<u64>) -> u64 {
    match seed {
        None => EXTRA_LEXICON_SEED,
        Some(s) => fmix64(EXTRA_LEXICON_SEED ^ s.wrapping_mul(0x9e37_79b9_7f4a_7c15)) | 1,
    }
}

/// SHA-1 over sorted unique terms, one per line.
fn terms_digest<'a>(terms: impl Iterator<Item = &'a str>) -> [u8; 20] {
    let mut sha = Sha1::new();
    for t in terms {
        sha.update(t.as_bytes());
        sha.update(b"\n");
    }
    sha.finalize().into()
}

#[derive(Debug, Clone)]
pub struct IMatch {
    /// A reference collection to count IDF over; `None` to count it over
    /// the evaluated corpus itself.
    pub reference: Option<Arc<Vec<Document>>>,
    pub band: IdfBand,
    /// Terms in fewer documents than this cannot be shared by two pages
    /// of the collection and stay out of the lexicon.
    pub min_df: u32,
    pub stop_words: bool,
    /// Pages with fewer lexicon terms get no signature.
    pub min_terms: usize,
    /// K: extra randomised lexicons.
    pub extra_lexicons: usize,
    /// p: fraction of the main lexicon each extra lexicon drops.
    pub drop: f64,
    /// Seeds the extra lexicons (see [`lexicon_seed`]).
    pub seed: u64,
    lexicon: Option<Lexicon>,
}

/// Digests under the main lexicon (first) and each extra one; `None` where
/// the page has fewer than the minimum of that lexicon's terms.
pub type IMatchSignature = Vec<Option<[u8; 20]>>;

impl IMatch {
    pub fn new(
        reference: Option<Arc<Vec<Document>>>,
        band: IdfBand,
        min_df: u32,
        stop_words: bool,
        min_terms: usize,
        extra_lexicons: usize,
        drop: f64,
    ) -> Self {
        IMatch {
            reference,
            band,
            min_df,
            stop_words,
            min_terms,
            extra_lexicons,
            drop,
            seed: EXTRA_LEXICON_SEED,
            lexicon: None,
        }
    }

    pub fn lexicon(&self) -> Option<&Lexicon> {
        self.lexicon.as_ref()
    }

    /// The page's unique main-lexicon terms with their hashes, sorted.
    fn lexicon_terms<'a>(&self, lexicon: &Lexicon, doc: &'a Document) -> Vec<(&'a str, u64)> {
        let vocab = doc.tokens.vocab();
        let hashes = vocab.derived("imatch term", |t| (term_hash(t), is_stop_word(t)));
        let stop_words = self.stop_words;
        // The lexicon as a bitset of the run's ids, made once per run: a
        // token is tested there (a bit an id, the page's own words near
        // each other) instead of being probed in the lexicon's hash set,
        // which grows with the corpus and missed the cache more often the
        // larger it was (signing grew as pages^1.25 from 300,000 to a
        // million pages).
        let kept = vocab.derived_whole(
            "imatch lexicon",
            fmix64(lexicon.key ^ u64::from(stop_words)),
            |_| {
                let mut bits = vec![0u64; hashes.len().div_ceil(64)];
                for (id, &(hash, stop)) in hashes.iter().enumerate() {
                    if !(stop_words && stop) && lexicon.terms.contains(&hash) {
                        bits[id / 64] |= 1 << (id % 64);
                    }
                }
                bits
            },
        );
        let mut terms: Vec<(&str, u64)> = doc
            .tokens
            .ids()
            .iter()
            .filter(|&&id| kept[id as usize / 64] >> (id % 64) & 1 == 1)
            .map(|&id| (vocab.str(id), hashes[id as usize].0))
            .collect();
        terms.sort_unstable();
        terms.dedup();
        terms
    }
}

impl Detector for IMatch {
    type Signature = IMatchSignature;

    fn name(&self) -> &'static str {
        "imatch"
    }

    fn label(&self) -> String {
        let source = if self.reference.is_some() {
            "reference"
        } else {
            "corpus"
        };
        if self.extra_lexicons == 0 {
            format!("imatch({source} lexicon)")
        } else {
            format!(
                "imatch({source} lexicon,K={},p={})",
                self.extra_lexicons, self.drop
            )
        }
    }

    fn scale(&self) -> ScoreScale {
        ScoreScale {
            name: "shared signatures",
            direction: Direction::AtLeast,
            min: 1.0,
            max: (self.extra_lexicons + 1) as f64,
            floor: 1.0,
        }
    }

    fn fit(&mut self, docs: &[Document]) -> bool {
        let collection = self.reference.as_deref().map_or(docs, Vec::as_slice);
        let stop_words = self.stop_words;
        let frequencies = DocumentFrequencies::count(collection, |doc| {
            page_terms(doc, stop_words)
                .map(|(_, h)| h)
                .collect::<Vec<u64>>()
        });
        self.lexicon = Some(Lexicon::build(
            &frequencies,
            self.band,
            self.min_df,
            self.extra_lexicons,
            self.drop,
            self.seed,
        ));
        true
    }

    fn describe(&self) -> Vec<String> {
        let Some(lexicon) = &self.lexicon else {
            return Vec::new();
        };
        vec![format!(
            "lexicon: {} of {} terms (df >= {}), IDF {:.2}..={:.2}; {} extra lexicons each dropping {:.0}%; pages need {} lexicon terms",
            lexicon.len(),
            lexicon.candidates,
            self.min_df,
            lexicon.idf_range.0,
            lexicon.idf_range.1,
            self.extra_lexicons,
            100.0 * self.drop,
            self.min_terms
        )]
    }

    fn sign(&self, doc: &Document) -> Option<IMatchSignature> {
        let lexicon = self.lexicon.as_ref().expect("fit before sign");
        let terms = self.lexicon_terms(lexicon, doc);
        if terms.len() < self.min_terms.max(1) {
            return None;
        }
        let mut digests = Vec::with_capacity(self.extra_lexicons + 1);
        digests.push(Some(terms_digest(terms.iter().map(|&(t, _)| t))));
        for k in 0..self.extra_lexicons {
            let kept: Vec<&str> = terms
                .iter()
                .filter(|&&(_, h)| lexicon.extra_keeps_hash(k, h))
                .map(|&(t, _)| t)
                .collect();
            digests.push(
                (kept.len() >= self.min_terms.max(1)).then(|| terms_digest(kept.into_iter())),
            );
        }
        Some(digests)
    }

    fn candidates(&self, signatures: &[Option<IMatchSignature>]) -> Vec<(u32, u32)> {
        // One bucket per (lexicon, digest): linear in the pages, plus the
        // pairs inside buckets, which are all duplicates by definition.
        let mut entries: Vec<(usize, [u8; 20], u32)> = signatures
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.as_ref().map(|s| (i, s)))
            .flat_map(|(i, s)| {
                s.iter()
                    .enumerate()
                    .filter_map(move |(k, d)| d.map(|d| (k, d, i as u32)))
            })
            .collect();
        entries.par_sort_unstable();
        let mut pairs = Vec::new();
        for bucket in entries.chunk_by(|x, y| x.0 == y.0 && x.1 == y.1) {
            for (k, &(_, _, i)) in bucket.iter().enumerate() {
                pairs.extend(bucket[k + 1..].iter().map(|&(_, _, j)| (i, j)));
            }
        }
        pairs.par_sort_unstable();
        pairs.dedup();
        pairs
    }

    fn signature_key(&self, signature: &IMatchSignature) -> Option<u128> {
        Some(super::hash_key(|h| {
            for digest in signature {
                match digest {
                    Some(d) => {
                        h.update(&[1]);
                        h.update(d);
                    }
                    None => h.update(&[0]),
                }
            }
        }))
    }

    fn score(&self, a: &IMatchSignature, b: &IMatchSignature) -> f32 {
        a.iter()
            .zip(b)
            .filter(|(x, y)| x.is_some() && x == y)
            .count() as f32
    }
}

/// I-Match's entry in an experiment file, with optional randomised
/// extra lexicons.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ImatchConfig {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens: Option<TokenKind>,
    /// Where IDF comes from: `corpus` (the evaluated pages) or a corpus
    /// path, relative to the experiment file (e.g. People's Daily).
    pub lexicon: String,
    /// Keep terms with IDF = ln(N/df) in [low, high] ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idf: Option<[f64; 2]>,
    /// ... or between these fractions of the terms ranked by IDF.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub percentiles: Option<[f64; 2]>,
    /// Least document frequency of a lexicon term.
    pub min_df: u32,
    /// Leave function words out of the lexicon.
    pub stop_words: bool,
    /// Pages with fewer lexicon terms get no signature.
    pub min_terms: usize,
    /// K randomised extra lexicons (Kołcz et al. 2004); 0 is plain I-Match.
    pub extra_lexicons: usize,
    /// p: the fraction of the main lexicon each extra lexicon drops.
    pub drop: f64,
    /// Least number of shared signatures for a duplicate.
    pub threshold: f64,
    /// Default: every count from 1 to K+1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grid: Option<Vec<f64>>,
    /// Draws the extra lexicons from this seed instead of the fixed one
    /// (a run over `seeds:` sets it to each seed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}

impl Default for ImatchConfig {
    fn default() -> Self {
        ImatchConfig {
            tokens: None,
            lexicon: "corpus".into(),
            idf: None,
            percentiles: None,
            min_df: 2,
            stop_words: true,
            min_terms: 5,
            extra_lexicons: 0,
            drop: 0.33,
            threshold: 1.0,
            grid: None,
            seed: None,
        }
    }
}

impl ImatchConfig {
    /// Without bounds, the middle of the ranking: the most frequent tenth
    /// and nothing at the rare end (terms in one page are already out by
    /// `min_df`).
    const DEFAULT_PERCENTILES: [f64; 2] = [0.1, 1.0];

    pub fn band(&self) -> IdfBand {
        match (self.idf, self.percentiles) {
            (Some([low, high]), _) => IdfBand::Idf { low, high },
            (None, Some([low, high])) => IdfBand::Percentiles { low, high },
            (None, None) => {
                let [low, high] = Self::DEFAULT_PERCENTILES;
                IdfBand::Percentiles { low, high }
            }
        }
    }

    fn listed_grid(&self) -> Vec<f64> {
        self.grid
            .clone()
            .unwrap_or_else(|| (1..=self.extra_lexicons + 1).map(|k| k as f64).collect())
    }
}

impl AlgorithmSettings for ImatchConfig {
    fn validate(&self) -> Checked {
        let range_pair = |key: &str, [low, high]: [f64; 2], max: f64| {
            if low >= 0.0 && high <= max && low <= high {
                Ok(())
            } else {
                Err(invalid(
                    key,
                    format!("[{low}, {high}] must be a range low <= high within 0..={max}"),
                ))
            }
        };
        match (self.idf, self.percentiles) {
            (Some(_), Some(_)) => {
                return Err(invalid(
                    "percentiles",
                    "give `idf` bounds or `percentiles`, not both",
                ))
            }
            (Some(idf), None) => range_pair("idf", idf, f64::MAX)?,
            (None, Some(p)) => range_pair("percentiles", p, 1.0)?,
            (None, None) => {}
        }
        if self.lexicon.trim().is_empty() {
            return Err(invalid(
                "lexicon",
                "`corpus` or a path to a reference corpus",
            ));
        }
        in_range("min_df", self.min_df as usize, 1, 1_000_000)?;
        in_range("min_terms", self.min_terms, 1, 100_000)?;
        in_range("extra_lexicons", self.extra_lexicons, 0, 256)?;
        if !(0.0..1.0).contains(&self.drop) {
            return Err(invalid(
                "drop",
                format!("{} is out of range: a fraction in [0, 1)", self.drop),
            ));
        }
        let most = (self.extra_lexicons + 1) as f64;
        let check = |key: String, t: f64| {
            if (1.0..=most).contains(&t) && t.fract() == 0.0 {
                Ok(())
            } else {
                Err(invalid(
                    key,
                    format!("{t} is out of range: a whole number of shared signatures in 1..={most} (K+1)"),
                ))
            }
        };
        check("threshold".into(), self.threshold)?;
        for (j, &t) in self.listed_grid().iter().enumerate() {
            check(format!("grid[{j}]"), t)?;
        }
        Ok(())
    }

    fn build(&self, reference: Option<Arc<Vec<Document>>>) -> Box<dyn Algorithm> {
        let mut imatch = IMatch::new(
            reference,
            self.band(),
            self.min_df,
            self.stop_words,
            self.min_terms,
            self.extra_lexicons,
            self.drop,
        );
        imatch.seed = lexicon_seed(self.seed);
        Box::new(imatch)
    }

    fn threshold(&self) -> f64 {
        self.threshold
    }

    fn grid(&self) -> Vec<f64> {
        with_threshold(&self.listed_grid(), self.threshold)
    }

    fn tokens(&self) -> Option<TokenKind> {
        self.tokens
    }

    fn reference(&self) -> Option<&str> {
        (self.lexicon != "corpus").then_some(self.lexicon.as_str())
    }

    fn tune(&mut self, threshold: f64, _gates: &[f64]) {
        self.threshold = threshold;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::Lang;
    use crate::text::{tokenize, TokenizerConfig};

    fn doc(page: u32, text: &str) -> Document {
        Document {
            page,
            lang: Lang::En,
            tokens: std::sync::Arc::new(tokenize(text, Lang::En, &TokenizerConfig::default())),
            structure: None,
            host: None,
        }
    }

    /// A lexicon of exactly the words `w0 .. w{n-1}` (df 2 each in a
    /// collection of 4 documents, all inside the band).
    fn fitted(n: usize, extra: usize, drop: f64, min_terms: usize, seed: u64) -> IMatch {
        let words: Vec<String> = (0..n).map(|i| format!("w{seed}x{i}")).collect();
        let text = words.join(" ");
        let docs = [doc(0, &text), doc(1, &text), doc(2, "zz"), doc(3, "yy")];
        let mut m = IMatch::new(
            None,
            IdfBand::Percentiles {
                low: 0.0,
                high: 1.0,
            },
            2,
            false,
            min_terms,
            extra,
            drop,
        );
        assert!(m.fit(&docs));
        assert_eq!(m.lexicon().unwrap().len(), n);
        m
    }

    /// Signatures by the definition: the page's distinct tokens whose
    /// hash is in the lexicon (stop words left out when asked), sorted.
    fn signed_by_definition(m: &IMatch, doc: &Document) -> Option<[u8; 20]> {
        let lexicon = m.lexicon().unwrap();
        let mut terms: Vec<&str> = doc
            .tokens
            .iter()
            .filter(|t| !(m.stop_words && is_stop_word(t)))
            .filter(|t| lexicon.terms.contains(&term_hash(t)))
            .collect();
        terms.sort_unstable();
        terms.dedup();
        (terms.len() >= m.min_terms.max(1)).then(|| terms_digest(terms.into_iter()))
    }

    #[test]
    fn lexicons_sharing_a_vocabulary_each_sign_by_their_own_terms() {
        // Pages of one run share a vocabulary, which keeps each lexicon's
        // bitset of ids: detectors with different lexicons (and stop-word
        // settings) signing in turn must each read their own.
        let texts: Vec<String> = (0..60)
            .map(|p| {
                (0..40)
                    .map(|i| format!("t{} the of", (p * 7 + i * 13) % 97))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        let docs = Document::many(texts.len(), &TokenizerConfig::default(), |i| {
            (texts[i].clone(), Some(Lang::En))
        });
        let detector = |low: f64, high: f64, stop_words: bool| {
            let mut m = IMatch::new(
                None,
                IdfBand::Percentiles { low, high },
                2,
                stop_words,
                3,
                0,
                0.0,
            );
            assert!(m.fit(&docs));
            m
        };
        let detectors = [
            detector(0.0, 0.5, false),
            detector(0.5, 1.0, false),
            detector(0.0, 1.0, true),
            detector(0.0, 1.0, false),
        ];
        let mut signed = 0;
        for round in 0..2 {
            for (d, m) in detectors.iter().enumerate() {
                for doc in &docs {
                    let got = m.sign(doc).map(|s| s[0].unwrap());
                    assert_eq!(
                        got,
                        signed_by_definition(m, doc),
                        "round {round}, detector {d}, page {}",
                        doc.page
                    );
                    signed += usize::from(got.is_some());
                }
            }
        }
        assert!(
            signed > 300,
            "only {signed} signatures: the test would not tell"
        );
        // The stop words' setting matters on these pages ("the", "of").
        let (with, without) = (&detectors[2], &detectors[3]);
        assert_ne!(with.sign(&docs[0]), without.sign(&docs[0]));
    }

    #[test]
    fn identical_term_sets_collide_whatever_the_order_and_repeats() {
        let m = fitted(20, 10, 0.3, 3, 1);
        let a = doc(0, "w1x3 w1x1 w1x2 w1x5 w1x7 nonlexicon");
        let b = doc(1, "w1x7 w1x5 w1x5 w1x1 w1x2 w1x3 other words");
        let (sa, sb) = (m.sign(&a).unwrap(), m.sign(&b).unwrap());
        assert_eq!(sa[0], sb[0]);
        // Every lexicon on which the page has enough terms agrees.
        let signed = sa.iter().filter(|d| d.is_some()).count();
        assert_eq!(m.score(&sa, &sb) as usize, signed);
    }

    #[test]
    fn minimum_terms_guard_short_pages() {
        let m = fitted(20, 0, 0.0, 4, 2);
        assert!(m.sign(&doc(0, "w2x1 w2x2 w2x3 other")).is_none());
        assert!(m.sign(&doc(0, "w2x1 w2x2 w2x3 w2x4")).is_some());
        // Repeats of one term are one term.
        assert!(m.sign(&doc(0, "w2x1 w2x1 w2x1 w2x1")).is_none());
    }

    #[test]
    fn a_seed_draws_other_extra_lexicons_and_none_keeps_the_fixed_ones() {
        assert_eq!(lexicon_seed(None), EXTRA_LEXICON_SEED);
        assert_ne!(lexicon_seed(Some(1)), lexicon_seed(Some(2)));
        let mut a = fitted(200, 3, 0.33, 5, 0);
        let kept = |m: &IMatch| -> Vec<bool> {
            (0..200)
                .map(|i| m.lexicon().unwrap().extra_keeps(0, &format!("w0x{i}")))
                .collect()
        };
        let fixed = kept(&a);
        a.seed = lexicon_seed(Some(7));
        let words = (0..200)
            .map(|i| format!("w0x{i}"))
            .collect::<Vec<_>>()
            .join(" ");
        let docs = [doc(0, &words), doc(1, &words), doc(2, "zz"), doc(3, "yy")];
        assert!(a.fit(&docs));
        let seeded = kept(&a);
        assert_ne!(fixed, seeded);
        // Either way each extra lexicon drops the same share, p.
        let dropped = |k: &[bool]| k.iter().filter(|&&x| !x).count();
        assert_eq!(dropped(&fixed), 66);
        assert_eq!(dropped(&seeded), 66);
    }

    #[test]
    fn extra_lexicons_drop_the_fraction_p() {
        let m = fitted(1000, 5, 0.25, 1, 3);
        let lexicon = m.lexicon().unwrap();
        for k in 0..5 {
            let kept = (0..1000)
                .filter(|i| lexicon.extra_keeps(k, &format!("w3x{i}")))
                .count();
            assert_eq!(kept, 750, "lexicon {k}");
        }
    }

    #[test]
    fn one_term_more_or_less_breaks_the_main_signature_but_rarely_all_ten() {
        // Over many seeds: a page and its copy with one lexicon term added
        // (or removed). The main signature always differs; with K=10 and
        // p=0.33 some extra lexicon drops the changed term with
        // probability 1-(1-p)^10 = 0.98.
        let (mut caught, mut trials) = (0, 0);
        for seed in 0..200u64 {
            let m = fitted(60, 10, 0.33, 5, seed);
            let base: Vec<String> = (0..30).map(|i| format!("w{seed}x{i}")).collect();
            let mut changed = base.clone();
            if seed % 2 == 0 {
                changed.push(format!("w{seed}x45"));
            } else {
                changed.remove(7);
            }
            let (a, b) = (
                m.sign(&doc(0, &base.join(" "))).unwrap(),
                m.sign(&doc(1, &changed.join(" "))).unwrap(),
            );
            assert_ne!(a[0], b[0], "seed {seed}");
            trials += 1;
            if m.score(&a, &b) >= 1.0 {
                caught += 1;
            }
        }
        let rate = f64::from(caught) / f64::from(trials);
        assert!(rate >= 0.93, "caught {caught} of {trials}");
    }

    #[test]
    fn buckets_pair_pages_sharing_any_signature() {
        let m = fitted(40, 3, 0.3, 2, 4);
        let texts = [
            "w4x1 w4x2 w4x3 w4x4 w4x5",
            "w4x1 w4x2 w4x3 w4x4 w4x5 w4x6",
            "w4x20 w4x21 w4x22",
            "w4x1 w4x2 w4x3 w4x4 w4x5",
        ];
        let sigs: Vec<_> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| m.sign(&doc(i as u32, t)))
            .collect();
        let pairs = m.candidates(&sigs);
        assert!(pairs.contains(&(0, 3)));
        assert!(!pairs.iter().any(|&(a, b)| a == 2 || b == 2));
        for &(a, b) in &pairs {
            let s = m.score(
                sigs[a as usize].as_ref().unwrap(),
                sigs[b as usize].as_ref().unwrap(),
            );
            assert!(s >= 1.0);
        }
    }
}
