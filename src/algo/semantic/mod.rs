//! Fan Yong, Zheng Jiaheng and Zhang Hu's semantic method (seed 001):
//! sentences weighed by position, title and subtitle keywords, copular and
//! indicative structure and chunk importance; the best of them, redundancy
//! removed, form the page's topic-sentence vector; words become Tongyici
//! Cilin concepts; pages are compared by cosine, title first, subtitles
//! next, topic sentences last.
//!
//! Where the paper is silent we choose, and say so here:
//! - A..F default to 1 (the paper gives no values).
//! - A sentence in several positions (first of the article is also first
//!   of its paragraph) takes the highest position weight.
//! - Wn = sum over the sentence's content chunks of tf(C) x W(C), divided
//!   by M (its chunks) and M' (its clauses, split at ，；：), with W(C) the
//!   chunk's IDF over the collection and tf(C) its count in the page (the
//!   paper's F_y).
//! - Function words (a short stop list) are left out of concept vectors.
//! - Copular: the sentence has 是; indicative: it has a marker
//!   such as 总之, 因此, 表明, 指出; declarative: it does not end in ？ or ！.
//! - A page without a title, or a pair where only one has subtitles, skips
//!   that step of the hierarchy.
//! - The paper's topic similarity, the mean of all m x n sentence cosines,
//!   is `paper_mean`; it scores two identical pages of several different
//!   sentences far below 1. The default `best_match` averages each
//!   sentence's best counterpart, both ways.

pub mod chunks;
pub mod config;

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::xxh3_64_with_seed;

use super::collection::DocumentFrequencies;
use super::shingling::lsh::Banding;
use super::shingling::minhash::{PermutedHashes, MINHASH_SEED};
use super::{Detector, Direction, Document, Gate, GateScores, ScoreScale, MAX_GATES};
use crate::extract::structure::{DocumentStructure, Sentence};
use crate::text::cilin::Thesaurus;
use crate::text::stopwords::is_stop_word;
use chunks::{chunk, tag, with_tagged_sentence, Chunk, ChunkKind, TaggedWord};

const CONCEPT_SEED: u64 = 0x636f_6e63_6570_7401;

/// Table 1 of seed 001.
pub mod table1 {
    pub const FIRST_OF_PARAGRAPH: f64 = 1.0;
    pub const FIRST_OF_ARTICLE: f64 = 1.5;
    pub const LAST_OF_PARAGRAPH: f64 = 0.6;
    pub const LAST_OF_ARTICLE: f64 = 0.8;
    pub const TITLE_KEYWORD: f64 = 1.0;
    pub const SUBTITLE_KEYWORD: f64 = 1.0;
    pub const COPULAR: f64 = 1.0;
    pub const INDICATIVE: f64 = 1.0;
}

const INDICATIVE_MARKERS: &[&str] = &[
    "总之",
    "综上",
    "总而言之",
    "由此可见",
    "因此",
    "所以",
    "表明",
    "指出",
    "认为",
    "说明",
    "显示",
    "强调",
    "结论",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Aggregate {
    /// Each sentence's best counterpart, averaged both ways.
    BestMatch,
    /// The paper's mean over all m x n sentence pairs.
    PaperMean,
}

/// How many sentences make the topic-sentence vector.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TopicCount {
    /// At most this many.
    Count(usize),
    /// This share (0..=1] of the page's declarative sentences, rounded up,
    /// at least one: a long page keeps more topic sentences than a short one.
    Share(f64),
}

impl TopicCount {
    pub fn of(&self, declarative: usize) -> usize {
        match *self {
            TopicCount::Count(n) => n,
            TopicCount::Share(share) => ((declarative as f64 * share).ceil() as usize).max(1),
        }
    }
}

impl std::fmt::Display for TopicCount {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            TopicCount::Count(n) => write!(f, "{n} topics"),
            TopicCount::Share(s) => write!(f, "{:.0}% topics", s * 100.0),
        }
    }
}

/// A sparse concept vector, sorted by concept.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ConceptVector {
    entries: Vec<(u64, f64)>,
    norm: f64,
}

impl ConceptVector {
    /// From each concept's weight, given once per concept in any order.
    fn from_weights(weights: impl IntoIterator<Item = (u64, f64)>) -> Self {
        let mut entries: Vec<(u64, f64)> = weights.into_iter().collect();
        entries.sort_unstable_by_key(|e| e.0);
        let norm = entries.iter().map(|e| e.1 * e.1).sum::<f64>().sqrt();
        ConceptVector { entries, norm }
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn cosine(&self, other: &ConceptVector) -> f64 {
        if self.norm == 0.0 || other.norm == 0.0 {
            return 0.0;
        }
        let (mut i, mut j, mut dot) = (0, 0, 0.0);
        let (a, b) = (&self.entries, &other.entries);
        while i < a.len() && j < b.len() {
            match a[i].0.cmp(&b[j].0) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    dot += a[i].1 * b[j].1;
                    i += 1;
                    j += 1;
                }
            }
        }
        (dot / (self.norm * other.norm)).clamp(0.0, 1.0)
    }
}

/// Topic similarity of two sentence lists under an aggregate.
pub fn topic_similarity(a: &[ConceptVector], b: &[ConceptVector], aggregate: Aggregate) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    match aggregate {
        Aggregate::PaperMean => {
            let total: f64 = a
                .iter()
                .flat_map(|x| b.iter().map(move |y| x.cosine(y)))
                .sum();
            total / (a.len() * b.len()) as f64
        }
        Aggregate::BestMatch => {
            let best = |from: &[ConceptVector], to: &[ConceptVector]| {
                from.iter()
                    .map(|x| to.iter().map(|y| x.cosine(y)).fold(0.0, f64::max))
                    .sum::<f64>()
                    / from.len() as f64
            };
            (best(a, b) + best(b, a)) / 2.0
        }
    }
}

/// A sentence as StruSen holds it, with its weight.
#[derive(Debug, Clone)]
struct WeighedSentence {
    pub index: usize,
    pub weight: f64,
    pub vector: ConceptVector,
    pub declarative: bool,
}

/// Position weight Ww (table 1): the highest of the positions it holds.
pub fn position_weight(s: &Sentence) -> f64 {
    SentenceTraits::of(s).position_weight()
}

/// What a sentence's weight reads of its text and place, kept with the
/// analysis so that signing does not read the structure (which the runner
/// may then let go before signing, see [`Detector::fit_ahead`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct SentenceTraits {
    /// FIRST_IN_PARAGRAPH and the other bits below.
    flags: u8,
    /// Clauses: one more than its ，；：,; marks.
    clauses: u32,
}

impl SentenceTraits {
    const FIRST_IN_PARAGRAPH: u8 = 1;
    const FIRST_IN_ARTICLE: u8 = 2;
    const LAST_IN_PARAGRAPH: u8 = 4;
    const LAST_IN_ARTICLE: u8 = 8;
    const DECLARATIVE: u8 = 16;
    const COPULAR: u8 = 32;
    const INDICATIVE: u8 = 64;

    fn of(s: &Sentence) -> Self {
        let mut flags = 0;
        for (on, bit) in [
            (s.first_in_paragraph, Self::FIRST_IN_PARAGRAPH),
            (s.first_in_article, Self::FIRST_IN_ARTICLE),
            (s.last_in_paragraph, Self::LAST_IN_PARAGRAPH),
            (s.last_in_article, Self::LAST_IN_ARTICLE),
            (is_declarative(s.text), Self::DECLARATIVE),
            (s.text.contains('是'), Self::COPULAR),
            (
                INDICATIVE_MARKERS.iter().any(|m| s.text.contains(m)),
                Self::INDICATIVE,
            ),
        ] {
            if on {
                flags |= bit;
            }
        }
        let clauses = 1 + s.text.matches(['，', '；', '：', ',', ';']).count();
        SentenceTraits {
            flags,
            clauses: u32::try_from(clauses).unwrap_or(u32::MAX),
        }
    }

    fn has(self, bit: u8) -> bool {
        self.flags & bit != 0
    }

    fn position_weight(self) -> f64 {
        let mut w: f64 = 0.0;
        if self.has(Self::FIRST_IN_PARAGRAPH) {
            w = w.max(table1::FIRST_OF_PARAGRAPH);
        }
        if self.has(Self::FIRST_IN_ARTICLE) {
            w = w.max(table1::FIRST_OF_ARTICLE);
        }
        if self.has(Self::LAST_IN_PARAGRAPH) {
            w = w.max(table1::LAST_OF_PARAGRAPH);
        }
        if self.has(Self::LAST_IN_ARTICLE) {
            w = w.max(table1::LAST_OF_ARTICLE);
        }
        w
    }
}

pub fn is_declarative(sentence: &str) -> bool {
    let end = sentence
        .trim_end_matches(|c: char| c.is_whitespace() || "”’\"'）)」』".contains(c))
        .chars()
        .last();
    !matches!(end, Some('？' | '?' | '！' | '!'))
}

/// The analysed page: what signing needs, computed once in `fit` and
/// held until the page is signed, packed into one allocation of LEB128
/// varints (a million pages wait for signing at once; as seven vectors
/// of u32 ids and u64 hashes a page took about twice the room):
///
/// - the distinct content chunks' hashes, 8 bytes each (first, so the
///   document frequencies read them without decoding the rest);
/// - the page's distinct words in id order, each its length and bytes;
/// - the title's and the subtitles' content word ids;
/// - each sentence: its traits (place, mood, clauses), its chunk count
///   and word count, its content chunks as indices into the distinct
///   hashes, its words as ids (function words and punctuation left out).
///
/// Every list starts with its length.
#[derive(Debug, Clone)]
struct Analysis(Arc<[u8]>);

impl Default for Analysis {
    fn default() -> Self {
        Analysis(Arc::from(Vec::new()))
    }
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads what [`put_varint`] wrote; past the end everything reads 0, so
/// the empty analysis reads as a page of nothing.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn varint(&mut self) -> u64 {
        let mut v = 0u64;
        let mut shift = 0;
        while let Some(&b) = self.bytes.get(self.at) {
            self.at += 1;
            if shift < 64 {
                v |= u64::from(b & 0x7f) << shift;
            }
            shift += 7;
            if b & 0x80 == 0 {
                break;
            }
        }
        v
    }

    /// A list's length: every item takes a byte at least, so no more
    /// than are left (a corrupt length must not loop for long).
    fn count(&mut self) -> usize {
        let left = self.bytes.len().saturating_sub(self.at);
        usize::try_from(self.varint()).map_or(left, |n| n.min(left))
    }

    fn take(&mut self, n: usize) -> &'a [u8] {
        let end = self.at.saturating_add(n).min(self.bytes.len());
        let out = &self.bytes[self.at..end];
        self.at = end;
        out
    }

    fn ids(&mut self, n: usize, out: &mut Vec<u32>) {
        out.extend((0..n).map(|_| self.varint() as u32));
    }
}

impl Analysis {
    fn pack(
        chunk_hashes: &[u64],
        vocabulary: &[&str],
        title_words: &[u32],
        subtitle_words: &[u32],
        sentences: &[(SentenceTraits, Vec<u32>, Vec<u32>)],
    ) -> Self {
        let mut out = Vec::new();
        put_varint(&mut out, chunk_hashes.len() as u64);
        for h in chunk_hashes {
            out.extend_from_slice(&h.to_le_bytes());
        }
        put_varint(&mut out, vocabulary.len() as u64);
        for w in vocabulary {
            put_varint(&mut out, w.len() as u64);
            out.extend_from_slice(w.as_bytes());
        }
        for ids in [title_words, subtitle_words] {
            put_varint(&mut out, ids.len() as u64);
            ids.iter()
                .for_each(|&id| put_varint(&mut out, u64::from(id)));
        }
        put_varint(&mut out, sentences.len() as u64);
        for (traits, chunks, words) in sentences {
            put_varint(&mut out, u64::from(traits.flags));
            put_varint(&mut out, u64::from(traits.clauses));
            put_varint(&mut out, chunks.len() as u64);
            put_varint(&mut out, words.len() as u64);
            for &id in chunks.iter().chain(words) {
                put_varint(&mut out, u64::from(id));
            }
        }
        Analysis(Arc::from(out))
    }

    /// The distinct content chunks' hashes.
    fn chunk_hashes(&self) -> impl Iterator<Item = u64> + '_ {
        let mut r = Reader {
            bytes: &self.0,
            at: 0,
        };
        let n = r.count();
        r.take(n.saturating_mul(8))
            .chunks_exact(8)
            .map(|b| u64::from_le_bytes(b.try_into().expect("eight bytes")))
    }

    fn unpack(&self) -> Unpacked<'_> {
        let mut r = Reader {
            bytes: &self.0,
            at: 0,
        };
        let mut u = Unpacked::default();
        let n = r.count();
        u.chunk_hashes = r
            .take(n.saturating_mul(8))
            .chunks_exact(8)
            .map(|b| u64::from_le_bytes(b.try_into().expect("eight bytes")))
            .collect();
        let n = r.count();
        u.vocabulary = (0..n)
            .map(|_| {
                let len = r.count();
                std::str::from_utf8(r.take(len)).unwrap_or("")
            })
            .collect();
        let n = r.count();
        r.ids(n, &mut u.title_words);
        let n = r.count();
        r.ids(n, &mut u.subtitle_words);
        let n = r.count();
        for _ in 0..n {
            let flags = r.varint() as u8;
            let clauses = u32::try_from(r.varint()).unwrap_or(u32::MAX);
            u.traits.push(SentenceTraits { flags, clauses });
            let chunks = r.count();
            let words = r.count();
            r.ids(chunks, &mut u.chunks);
            r.ids(words, &mut u.words);
            u.sentence_ends
                .push((u.chunks.len() as u32, u.words.len() as u32));
        }
        // Ids come from `pack`; one past its lists (a corrupt buffer) must
        // not index out of them.
        let (chunks, words) = (u.chunk_hashes.len() as u32, u.vocabulary.len() as u32);
        if u.chunks.iter().any(|&c| c >= chunks)
            || [&u.words, &u.title_words, &u.subtitle_words]
                .iter()
                .any(|ids| ids.iter().any(|&w| w >= words))
        {
            return Unpacked::default();
        }
        u
    }
}

/// An analysis read back for signing one page.
#[derive(Debug, Default)]
struct Unpacked<'a> {
    chunk_hashes: Vec<u64>,
    vocabulary: Vec<&'a str>,
    title_words: Vec<u32>,
    subtitle_words: Vec<u32>,
    /// Every sentence's content chunks (indices into `chunk_hashes`), one
    /// sentence after another; `sentence_ends[i]` ends sentence `i` in
    /// `chunks` and in `words`.
    chunks: Vec<u32>,
    words: Vec<u32>,
    sentence_ends: Vec<(u32, u32)>,
    traits: Vec<SentenceTraits>,
}

impl Unpacked<'_> {
    fn word(&self, id: u32) -> &str {
        self.vocabulary[id as usize]
    }

    /// Sentence by sentence: its traits, content chunks and words.
    fn sentences(&self) -> impl Iterator<Item = (SentenceTraits, &[u32], &[u32])> + '_ {
        let mut from = (0, 0);
        self.sentence_ends
            .iter()
            .zip(&self.traits)
            .map(move |(&(c, w), &t)| {
                let out = (
                    t,
                    &self.chunks[from.0 as usize..c as usize],
                    &self.words[from.1 as usize..w as usize],
                );
                from = (c, w);
                out
            })
    }
}

/// A page's analysis until signing takes it.
#[derive(Debug)]
struct AnalysisSlot(std::sync::Mutex<Option<Analysis>>);

impl Clone for AnalysisSlot {
    fn clone(&self) -> Self {
        let held = self.0.lock().ok().and_then(|a| a.clone());
        AnalysisSlot(std::sync::Mutex::new(held))
    }
}

/// Gives each distinct word of a page an id, and each distinct chunk an
/// index, in order of first use.
#[derive(Default)]
struct PageVocabulary<'a> {
    ids: rustc_hash::FxHashMap<&'a str, u32>,
    words: Vec<&'a str>,
    chunk_ids: rustc_hash::FxHashMap<u64, u32>,
    chunk_hashes: Vec<u64>,
}

impl<'a> PageVocabulary<'a> {
    fn id(&mut self, word: &'a str) -> u32 {
        let next = self.words.len() as u32;
        let id = *self.ids.entry(word).or_insert(next);
        if id == next {
            self.words.push(word);
        }
        id
    }

    fn chunk(&mut self, hash: u64) -> u32 {
        let next = self.chunk_hashes.len() as u32;
        let id = *self.chunk_ids.entry(hash).or_insert(next);
        if id == next {
            self.chunk_hashes.push(hash);
        }
        id
    }

    fn content_words(&mut self, words: &[TaggedWord<'a>], chunks: &[Chunk]) -> Vec<u32> {
        chunks
            .iter()
            .filter(|c| c.kind.is_content() && c.kind != ChunkKind::Numeral)
            .flat_map(|c| c.words(words))
            .map(|w| self.id(w))
            .collect()
    }
}

fn analyse(structure: &DocumentStructure) -> Analysis {
    let subtitles = structure.subtitles.join("。");
    let mut v = PageVocabulary::default();
    let mut title_words = Vec::new();
    if let Some(t) = structure.title.as_deref() {
        let words = tag(t);
        title_words = v.content_words(&words, &chunk(&words));
    }
    let words = tag(&subtitles);
    let subtitle_words = v.content_words(&words, &chunk(&words));
    let mut sentences = Vec::with_capacity(structure.sentence_count());
    for s in structure.sentences() {
        let (chunks, ids) = with_tagged_sentence(s.text, |words, content| {
            // Function words carry no topic: they stay out of the vectors
            // (and out of the candidate search's concept sets).
            let ids: Vec<u32> = words
                .iter()
                .filter(|w| w.tag != "w" && !is_stop_word(w.word))
                .map(|w| v.id(w.word))
                .collect();
            let chunks: Vec<u32> = content
                .iter()
                .map(|c| v.chunk(chunk_hash(words, c)))
                .collect();
            (chunks, ids)
        });
        sentences.push((SentenceTraits::of(&s), chunks, ids));
    }
    Analysis::pack(
        &v.chunk_hashes,
        &v.words,
        &title_words,
        &subtitle_words,
        &sentences,
    )
}

/// The analyses of the structures the method last read. An experiment
/// often runs the method more than once on one extraction (two
/// aggregates, say), and tagging is most of its time; the analyses depend
/// on the structure alone. Held weakly by structure, so that a structure
/// dropped and another allocated in its place cannot be mistaken for it.
type SharedAnalyses = (Vec<std::sync::Weak<DocumentStructure>>, Vec<Analysis>);

static LAST_ANALYSED: std::sync::Mutex<Option<SharedAnalyses>> = std::sync::Mutex::new(None);

/// Each structure's analysis, tagged again only when the structures are
/// not those analysed last; kept for the next run when `keep`.
fn shared_analyses(distinct: &[&Arc<DocumentStructure>], keep: bool) -> Vec<Analysis> {
    analyses_kept_in(&LAST_ANALYSED, distinct, keep)
}

fn analyses_kept_in(
    last_analysed: &std::sync::Mutex<Option<SharedAnalyses>>,
    distinct: &[&Arc<DocumentStructure>],
    keep: bool,
) -> Vec<Analysis> {
    use rayon::prelude::*;
    let same = |(weak, _): &SharedAnalyses| {
        weak.len() == distinct.len()
            && weak
                .iter()
                .zip(distinct)
                .all(|(w, s)| std::ptr::eq(w.as_ptr(), Arc::as_ptr(s)))
    };
    if let Some(last) = last_analysed.lock().ok().and_then(|mut l| {
        let hit = l
            .as_ref()
            .filter(|l| same(l))
            .map(|(_, analysed)| analysed.clone());
        // What no later run reads is held by the caller alone, so that
        // each analysis goes as its page is signed.
        if !keep {
            *l = None;
        }
        hit
    }) {
        return last;
    }
    let analysed: Vec<Analysis> = distinct.par_iter().map(|s| analyse(s)).collect();
    if !keep {
        return analysed;
    }
    if let Ok(mut last) = last_analysed.lock() {
        *last = Some((
            distinct.iter().map(|s| Arc::downgrade(s)).collect(),
            analysed.clone(),
        ));
    }
    analysed
}

/// Lets go of the analyses kept for the next run on the same structures
/// (when those structures are done with).
pub fn forget_analyses() {
    if let Ok(mut last) = LAST_ANALYSED.lock() {
        *last = None;
    }
}

/// The default of [`Semantic::candidates_per_page`]: a page keeps its 20
/// best LSH candidates (a pair stays when either page keeps it), so the
/// pairs verified are at most 20 per page however large the corpus, well
/// above the near-duplicates one story has (fan2008's largest cluster is
/// 12 pages).
const DEFAULT_CANDIDATES_PER_PAGE: usize = 20;

/// The default of [`Semantic::bucket_reach`]: 20 pages either side, up to
/// 40 a band, about twice what a page keeps.
const DEFAULT_BUCKET_REACH: usize = 20;

/// The hash of the chunk's text, its words fed in turn (the same hash as
/// of their concatenation, without making it).
fn chunk_hash(words: &[TaggedWord], c: &Chunk) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::with_seed(CONCEPT_SEED ^ 1);
    for w in c.words(words) {
        h.update(w.as_bytes());
    }
    h.digest()
}

#[derive(Debug, Clone)]
pub struct Semantic {
    pub thesaurus: &'static dyn Thesaurus,
    /// Thesaurus depth words are mapped at (1..=5).
    pub level: u8,
    pub aggregate: Aggregate,
    /// Topic sentences kept.
    pub topic_count: TopicCount,
    /// A sentence this similar to one already chosen is redundant.
    pub redundancy: f64,
    /// A..F.
    pub coefficients: [f64; 6],
    pub title_threshold: f64,
    pub subtitle_threshold: f64,
    /// Least topic similarity stored.
    pub floor: f64,
    /// Candidate pairs: pages whose title and topic concepts have a
    /// Jaccard near or above this, by MinHash-LSH.
    pub candidate_jaccard: f64,
    /// LSH candidates kept per page, the best by sketch agreement (0: all).
    pub candidates_per_page: usize,
    /// LSH buckets of more than this many pages are left out of the
    /// search (0: none is); a page's candidates are gathered from its
    /// buckets, so one bucket of b pages costs b^2.
    pub max_bucket: usize,
    /// A page reads at most this many pages either side of itself in each
    /// LSH bucket, ordered by the rest of the sketch (0: whole buckets):
    /// what a page gathers is then bounded by the bands, not the corpus.
    pub bucket_reach: usize,
    /// LSH candidates found and kept by the last search, and the buckets
    /// left out with their pages, for the notes.
    capped: std::sync::OnceLock<(usize, usize, u64, u64)>,
    /// By page; each taken as its page is signed when not shared.
    analyses: rustc_hash::FxHashMap<u32, AnalysisSlot>,
    /// Whether the analyses stay shared for a later run on the same
    /// structures once this one has signed (see [`Detector::last_reader`]).
    share_analyses: bool,
    /// `fit_ahead` fitted: the next `fit` has nothing to do.
    fitted_ahead: bool,
    chunk_df: DocumentFrequencies,
    permutations: PermutedHashes,
}

impl std::fmt::Debug for dyn Thesaurus {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A page's signature: title, subtitles and topic sentences as concept
/// vectors, and a sketch of their concepts for the candidate search.
#[derive(Debug, Clone)]
pub struct SemanticSignature {
    pub title: Option<ConceptVector>,
    pub subtitles: Option<ConceptVector>,
    pub topics: Vec<ConceptVector>,
    pub sketch: Vec<u32>,
}

impl Semantic {
    pub fn new(thesaurus: &'static dyn Thesaurus) -> Self {
        Semantic {
            thesaurus,
            level: 5,
            aggregate: Aggregate::BestMatch,
            topic_count: TopicCount::Count(5),
            redundancy: 0.8,
            coefficients: [1.0; 6],
            title_threshold: 0.4,
            subtitle_threshold: 0.6,
            floor: 0.3,
            candidate_jaccard: 0.3,
            candidates_per_page: DEFAULT_CANDIDATES_PER_PAGE,
            max_bucket: 0,
            bucket_reach: DEFAULT_BUCKET_REACH,
            capped: std::sync::OnceLock::new(),
            analyses: Default::default(),
            share_analyses: true,
            fitted_ahead: false,
            chunk_df: DocumentFrequencies::default(),
            permutations: PermutedHashes::new(128, MINHASH_SEED),
        }
    }

    /// Each word's concepts, hashed, by word id: a word recurs across a
    /// page's sentences, its thesaurus lookup need not.
    fn page_concepts(&self, analysis: &Unpacked) -> Vec<Vec<(u64, f64)>> {
        (0..analysis.vocabulary.len() as u32)
            .map(|id| {
                self.thesaurus
                    .concepts(analysis.word(id), self.level)
                    .into_iter()
                    .map(|(concept, share)| {
                        (xxh3_64_with_seed(concept.as_bytes(), CONCEPT_SEED), share)
                    })
                    .collect()
            })
            .collect()
    }

    fn concept_vector(&self, words: &[u32], concepts: &[Vec<(u64, f64)>]) -> ConceptVector {
        // The sums follow the words' order; the map's order is sorted away.
        let mut weights: rustc_hash::FxHashMap<u64, f64> = Default::default();
        for &w in words {
            for &(concept, share) in &concepts[w as usize] {
                *weights.entry(concept).or_insert(0.0) += share;
            }
        }
        ConceptVector::from_weights(weights)
    }

    /// W(S) for every sentence (0 for non-declarative ones).
    fn weigh(&self, analysis: &Unpacked, concepts: &[Vec<(u64, f64)>]) -> Vec<WeighedSentence> {
        let [a, b, c, d, e, f] = self.coefficients;
        // tf(C) x W(C) by the page's chunk index.
        let mut tf_idf = vec![0.0f64; analysis.chunk_hashes.len()];
        for &c in &analysis.chunks {
            tf_idf[c as usize] += 1.0;
        }
        for (w, &h) in tf_idf.iter_mut().zip(&analysis.chunk_hashes) {
            *w *= self.chunk_df.idf_of(h);
        }
        analysis
            .sentences()
            .enumerate()
            .map(|(index, (s, content, words))| {
                let declarative = s.has(SentenceTraits::DECLARATIVE);
                let has = |keywords: &[u32]| keywords.iter().any(|k| words.contains(k));
                let ww = s.position_weight();
                let wt = if has(&analysis.title_words) {
                    table1::TITLE_KEYWORD
                } else {
                    0.0
                };
                let wx = if has(&analysis.subtitle_words) {
                    table1::SUBTITLE_KEYWORD
                } else {
                    0.0
                };
                let wy = if s.has(SentenceTraits::COPULAR) {
                    table1::COPULAR
                } else {
                    0.0
                };
                let wz = if s.has(SentenceTraits::INDICATIVE) {
                    table1::INDICATIVE
                } else {
                    0.0
                };
                let clauses = s.clauses as usize;
                let wn = if content.is_empty() {
                    0.0
                } else {
                    content.iter().map(|&c| tf_idf[c as usize]).sum::<f64>()
                        / (content.len() * clauses) as f64
                };
                let weight = if declarative {
                    a * ww + b * wt + c * wx + d * wy + e * wz + f * wn
                } else {
                    0.0
                };
                WeighedSentence {
                    index,
                    weight,
                    vector: self.concept_vector(words, concepts),
                    declarative,
                }
            })
            .collect()
    }

    /// The topic-sentence vector: heaviest sentences first, each skipped
    /// when too similar to one already chosen.
    fn topic_vector(&self, mut sentences: Vec<WeighedSentence>) -> Vec<ConceptVector> {
        let wanted = self
            .topic_count
            .of(sentences.iter().filter(|s| s.declarative).count());
        sentences.sort_by(|x, y| y.weight.total_cmp(&x.weight).then(x.index.cmp(&y.index)));
        let mut chosen: Vec<ConceptVector> = Vec::new();
        for s in sentences {
            if chosen.len() >= wanted {
                break;
            }
            if !s.declarative || s.vector.is_empty() {
                continue;
            }
            if chosen
                .iter()
                .any(|c| c.cosine(&s.vector) >= self.redundancy)
            {
                continue;
            }
            chosen.push(s.vector);
        }
        chosen
    }

    /// The LSH banding over title and topic concepts.
    fn candidate_banding(&self) -> Banding {
        Banding::for_threshold(self.candidate_jaccard, self.permutations.len(), 0.5, 0.5)
    }

    /// Title and subtitle similarities, NaN where one page lacks a title
    /// (or subtitles): that step of the hierarchy is skipped.
    pub fn hierarchy_scores(&self, a: &SemanticSignature, b: &SemanticSignature) -> [f64; 2] {
        let cosine = |x: &Option<ConceptVector>, y: &Option<ConceptVector>| match (x, y) {
            (Some(x), Some(y)) => x.cosine(y),
            _ => f64::NAN,
        };
        [
            cosine(&a.title, &b.title),
            cosine(&a.subtitles, &b.subtitles),
        ]
    }

    /// The whole decision's score: the topic similarity, or 0 when the
    /// title or subtitle gate says "not a duplicate".
    pub fn similarity(&self, a: &SemanticSignature, b: &SemanticSignature) -> f64 {
        let [title, subtitles] = self.hierarchy_scores(a, b);
        if title < self.title_threshold || subtitles < self.subtitle_threshold {
            return 0.0;
        }
        topic_similarity(&a.topics, &b.topics, self.aggregate)
    }
}

impl Detector for Semantic {
    type Signature = SemanticSignature;

    fn name(&self) -> &'static str {
        "semantic"
    }

    fn label(&self) -> String {
        let aggregate = match self.aggregate {
            Aggregate::BestMatch => "best_match",
            Aggregate::PaperMean => "paper_mean",
        };
        format!(
            "semantic({} level {},{aggregate},{})",
            self.thesaurus.name(),
            self.level,
            self.topic_count
        )
    }

    fn scale(&self) -> ScoreScale {
        ScoreScale {
            name: "topic similarity",
            direction: Direction::AtLeast,
            min: 0.0,
            max: 1.0,
            floor: self.floor,
        }
    }

    /// Tags and chunks every page once, and counts chunk document
    /// frequencies for W(C).
    fn fit(&mut self, docs: &[Document]) -> bool {
        if std::mem::take(&mut self.fitted_ahead) {
            return false;
        }
        self.capped = std::sync::OnceLock::new();
        // Pages sharing one extracted structure (identical inputs) are
        // tagged once: tagging is the expensive part.
        let mut slot_of: rustc_hash::FxHashMap<usize, usize> = Default::default();
        let mut distinct: Vec<&Arc<DocumentStructure>> = Vec::new();
        let slots: Vec<Option<usize>> = docs
            .iter()
            .map(|d| {
                let s = d.structure.as_ref()?;
                Some(*slot_of.entry(Arc::as_ptr(s) as usize).or_insert_with(|| {
                    distinct.push(s);
                    distinct.len() - 1
                }))
            })
            .collect();
        let analysed = shared_analyses(&distinct, self.share_analyses);
        let none = Analysis::default();
        let by_page: rustc_hash::FxHashMap<u32, Analysis> = docs
            .iter()
            .zip(&slots)
            .map(|(d, s)| {
                (
                    d.page,
                    s.map_or_else(|| none.clone(), |s| analysed[s].clone()),
                )
            })
            .collect();
        drop(analysed);
        let mut chunk_df = DocumentFrequencies::count(docs, |d| {
            by_page
                .get(&d.page)
                .into_iter()
                .flat_map(Analysis::chunk_hashes)
        });
        // A chunk missing from the counts weighs as one seen once, and
        // signing reads only chunks that were counted: those seen once
        // need no entry (most of them, at a million pages).
        chunk_df.df.retain(|_, n| *n > 1);
        chunk_df.df.shrink_to_fit();
        self.chunk_df = chunk_df;
        self.analyses = by_page
            .into_iter()
            .map(|(page, a)| (page, AnalysisSlot(std::sync::Mutex::new(Some(a)))))
            .collect();
        true
    }

    /// Words come from tagging the structure's sentences.
    fn reads_tokens(&self) -> bool {
        false
    }

    /// Signing reads the analyses alone: the structures (about 2 KB a
    /// page) can go before the signatures are made.
    fn fit_ahead(&mut self, docs: &[Document]) -> bool {
        self.fitted_ahead = false;
        self.fit(docs);
        self.fitted_ahead = true;
        true
    }

    /// The analyses serve signing alone (the candidate search reads the
    /// sketches, verification the concept vectors): at a million pages
    /// they are about 2 KB a page, held through the search's peak.
    fn signed(&mut self) {
        self.analyses = Default::default();
        // W(C) is read while signing alone.
        self.chunk_df = DocumentFrequencies::default();
        if !self.share_analyses {
            forget_analyses();
        }
        crate::util::stage::release_freed_memory();
    }

    fn last_reader(&mut self) {
        self.share_analyses = false;
    }

    fn sign(&self, doc: &Document) -> Option<SemanticSignature> {
        // Pages without a structure are not signed; signing reads the
        // analysis alone.
        doc.structure.as_deref()?;
        let analysis = {
            let mut slot = self.analyses.get(&doc.page)?.0.lock().ok()?;
            if self.share_analyses {
                slot.clone()?
            } else {
                slot.take()?
            }
        };
        let analysis = analysis.unpack();
        let analysis = &analysis;
        let concepts = self.page_concepts(analysis);
        let topics = self.topic_vector(self.weigh(analysis, &concepts));
        if topics.is_empty() {
            return None;
        }
        let title = (!analysis.title_words.is_empty())
            .then(|| self.concept_vector(&analysis.title_words, &concepts));
        let subtitles = (!analysis.subtitle_words.is_empty())
            .then(|| self.concept_vector(&analysis.subtitle_words, &concepts));
        let mut concepts: Vec<u64> = title
            .iter()
            .chain(topics.iter())
            .flat_map(|v| v.entries.iter().map(|e| e.0))
            .collect();
        concepts.sort_unstable();
        concepts.dedup();
        Some(SemanticSignature {
            sketch: self.permutations.sketch(&concepts),
            title,
            subtitles,
            topics,
        })
    }

    fn candidates(&self, signatures: &[Option<SemanticSignature>]) -> Vec<(u32, u32)> {
        let banding = self.candidate_banding();
        let sketches: Vec<Option<&[u32]>> = signatures
            .iter()
            .map(|s| s.as_ref().map(|s| &s.sketch[..]))
            .collect();
        if self.candidates_per_page == 0 {
            let found = banding.candidates(&sketches);
            let _ = self.capped.set((found.len(), found.len(), 0, 0));
            return found;
        }
        // Equal min-hash positions: the estimated Jaccard of the two
        // pages' title and topic concepts, what the banding aims at.
        let agreement = |i: u32, j: u32| match (&sketches[i as usize], &sketches[j as usize]) {
            (Some(a), Some(b)) => a.iter().zip(b.iter()).filter(|(x, y)| x == y).count() as u32,
            _ => 0,
        };
        let search = banding.best_per_page(
            &sketches,
            self.candidates_per_page,
            self.max_bucket,
            self.bucket_reach,
            agreement,
        );
        let _ = self.capped.set((
            search.found as usize,
            search.kept.len(),
            search.skipped_buckets,
            search.skipped_entries,
        ));
        search.kept
    }

    fn signature_key(&self, s: &SemanticSignature) -> Option<u128> {
        Some(crate::algo::hash_key(|h| {
            let mut vector = |v: Option<&ConceptVector>| match v {
                None => h.update(&[0]),
                Some(v) => {
                    h.update(&[1]);
                    h.update(&(v.entries.len() as u64).to_le_bytes());
                    for (concept, weight) in &v.entries {
                        h.update(&concept.to_le_bytes());
                        h.update(&weight.to_bits().to_le_bytes());
                    }
                    h.update(&v.norm.to_bits().to_le_bytes());
                }
            };
            vector(s.title.as_ref());
            vector(s.subtitles.as_ref());
            for topic in &s.topics {
                vector(Some(topic));
            }
            h.update(&(s.topics.len() as u64).to_le_bytes());
            s.sketch.iter().for_each(|v| h.update(&v.to_le_bytes()));
        }))
    }

    /// The topic similarity alone: the title and subtitle steps are gates
    /// kept beside it, so each threshold moves without recomputation.
    fn score(&self, a: &SemanticSignature, b: &SemanticSignature) -> f32 {
        topic_similarity(&a.topics, &b.topics, self.aggregate) as f32
    }

    fn banding(&self) -> Option<Banding> {
        Some(self.candidate_banding())
    }

    fn gates(&self) -> Vec<Gate> {
        vec![
            Gate {
                name: "title",
                threshold: self.title_threshold,
            },
            Gate {
                name: "subtitles",
                threshold: self.subtitle_threshold,
            },
        ]
    }

    fn gate_scores(&self, a: &SemanticSignature, b: &SemanticSignature) -> GateScores {
        let scores = self.hierarchy_scores(a, b);
        let mut out = [f32::NAN; MAX_GATES];
        out[0] = scores[0] as f32;
        out[1] = scores[1] as f32;
        out
    }

    fn describe(&self) -> Vec<String> {
        let [a, b, c, d, e, f] = self.coefficients;
        let mut notes = vec![format!(
            "W(S) = {a}Ww + {b}Wt + {c}Wx + {d}Wy + {e}Wz + {f}Wn; title >= {}, subtitles >= {}; candidates by MinHash-LSH over title and topic concepts (J ~ {})",
            self.title_threshold, self.subtitle_threshold, self.candidate_jaccard
        )];
        if let Some(&(found, kept, buckets, entries)) = self.capped.get() {
            if buckets > 0 {
                notes.push(format!(
                    "{buckets} LSH buckets of more than {} pages left out of the candidate search (max_bucket {}), {entries} page entries in all",
                    self.max_bucket, self.max_bucket
                ));
            }
            notes.push(match self.candidates_per_page {
                0 => format!("every LSH candidate verified: {found} pairs (candidates_per_page 0)"),
                k if self.bucket_reach > 0 => format!(
                    "each page's {k} best LSH candidates by sketch agreement kept (candidates_per_page {k}), read from at most {} bucket neighbours either side a band (bucket_reach {}): {kept} of {found} pairs read verified",
                    self.bucket_reach, self.bucket_reach
                ),
                k => format!(
                    "each page's {k} best LSH candidates by sketch agreement kept (candidates_per_page {k}): {kept} of {found} pairs verified"
                ),
            });
        }
        notes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::cilin::Cilin;
    use crate::text::Lang;
    use crate::text::TokenizerConfig;

    fn vector(weights: &[(u64, f64)]) -> ConceptVector {
        ConceptVector::from_weights(weights.iter().copied())
    }

    #[test]
    fn table_1_weights() {
        let s = |fp, fa, lp, la| Sentence {
            text: "句子。",
            start: 0,
            end: 0,
            paragraph: 0,
            first_in_paragraph: fp,
            last_in_paragraph: lp,
            first_in_article: fa,
            last_in_article: la,
        };
        assert_eq!(position_weight(&s(true, false, false, false)), 1.0);
        assert_eq!(position_weight(&s(true, true, false, false)), 1.5);
        assert_eq!(position_weight(&s(false, false, true, false)), 0.6);
        assert_eq!(position_weight(&s(false, false, true, true)), 0.8);
        assert_eq!(position_weight(&s(false, false, false, false)), 0.0);
        assert!(is_declarative("今天开会。"));
        assert!(!is_declarative("今天开会吗？"));
        assert!(!is_declarative("太好了！”"));
    }

    #[test]
    fn both_aggregates_including_identical_pages() {
        let page = [
            vector(&[(1, 1.0)]),
            vector(&[(2, 1.0)]),
            vector(&[(3, 1.0)]),
        ];
        // Identical pages of three different sentences: the paper's mean
        // is 1/3, the best-match mean 1.
        let paper = topic_similarity(&page, &page, Aggregate::PaperMean);
        assert!((paper - 1.0 / 3.0).abs() < 1e-12, "{paper}");
        assert_eq!(topic_similarity(&page, &page, Aggregate::BestMatch), 1.0);
        let other = [vector(&[(9, 1.0)])];
        assert_eq!(topic_similarity(&page, &other, Aggregate::BestMatch), 0.0);
        // One shared sentence of three: best match (1/3 + 1) / 2.
        let one = [vector(&[(1, 1.0)])];
        let best = topic_similarity(&page, &one, Aggregate::BestMatch);
        assert!((best - (1.0 / 3.0 + 1.0) / 2.0).abs() < 1e-12, "{best}");
    }

    #[test]
    fn redundant_sentences_are_dropped() {
        let m = Semantic::new(Cilin::embedded());
        let s = |index, weight, v: ConceptVector| WeighedSentence {
            index,
            weight,
            vector: v,
            declarative: true,
        };
        let topics = m.topic_vector(vec![
            s(0, 3.0, vector(&[(1, 1.0), (2, 1.0)])),
            s(1, 2.0, vector(&[(1, 1.0), (2, 1.0)])), // a repeat: dropped
            s(2, 1.0, vector(&[(5, 1.0)])),
            WeighedSentence {
                declarative: false,
                ..s(3, 9.0, vector(&[(7, 1.0)]))
            },
        ]);
        assert_eq!(topics.len(), 2);
        assert_eq!(topics[1], vector(&[(5, 1.0)]));
    }

    fn doc(page: u32, title: &str, paragraphs: &[&str]) -> Document {
        let structure = DocumentStructure::new(
            Some(title.into()),
            Vec::new(),
            paragraphs.iter().map(|p| p.to_string()).collect(),
        );
        let mut d = Document::new(
            page,
            structure.text(),
            Some(Lang::Zh),
            &TokenizerConfig::default(),
        );
        d.structure = Some(Arc::new(structure));
        d
    }

    #[test]
    fn analyses_are_shared_while_their_structures_live() {
        let slot = std::sync::Mutex::new(None);
        let docs = [
            doc(0, "江城地铁五号线开通", &["江城地铁五号线今天开通试运营。"]),
            doc(1, "山区学校迎来新教师", &["山区学校今年迎来十名新教师。"]),
        ];
        let structures: Vec<&Arc<DocumentStructure>> =
            docs.iter().map(|d| d.structure.as_ref().unwrap()).collect();
        let first = analyses_kept_in(&slot, &structures, true);
        let again = analyses_kept_in(&slot, &structures, true);
        assert!(first
            .iter()
            .zip(&again)
            .all(|(a, b)| Arc::ptr_eq(&a.0, &b.0)));
        // Other structures, even with the same text, are analysed anew.
        let copies = [
            doc(0, "江城地铁五号线开通", &["江城地铁五号线今天开通试运营。"]),
            doc(1, "山区学校迎来新教师", &["山区学校今年迎来十名新教师。"]),
        ];
        drop(docs);
        let structures: Vec<&Arc<DocumentStructure>> = copies
            .iter()
            .map(|d| d.structure.as_ref().unwrap())
            .collect();
        let fresh = analyses_kept_in(&slot, &structures, true);
        // The last reader takes them out of the slot.
        let last = analyses_kept_in(&slot, &structures, false);
        assert!(fresh
            .iter()
            .zip(&last)
            .all(|(a, b)| Arc::ptr_eq(&a.0, &b.0)));
        assert!(slot.lock().unwrap().is_none());
        let again = analyses_kept_in(&slot, &structures, false);
        assert!(fresh
            .iter()
            .zip(&again)
            .all(|(a, b)| !Arc::ptr_eq(&a.0, &b.0)));
        assert!(slot.lock().unwrap().is_none());
        assert!(first
            .iter()
            .zip(&fresh)
            .all(|(a, b)| !Arc::ptr_eq(&a.0, &b.0)));
        // The compact analysis reads back the words it was made of.
        let a = fresh[0].unpack();
        let title: Vec<&str> = a.title_words.iter().map(|&w| a.word(w)).collect();
        assert_eq!(title.concat(), "江城地铁五号线开通");
        let words: Vec<&str> = a
            .sentences()
            .flat_map(|(_, _, w)| w)
            .map(|&w| a.word(w))
            .collect();
        assert!(
            words.contains(&"试运营") || words.contains(&"运营"),
            "{words:?}"
        );
        assert_eq!(a.sentences().count(), 1);
        assert!(a.sentences().all(|(_, chunks, _)| !chunks.is_empty()));
    }

    #[test]
    fn packed_analyses_read_back_what_was_packed() {
        let traits = |flags, clauses| SentenceTraits { flags, clauses };
        let sentences = vec![
            (traits(0x7f, 1), vec![0, 1, 0], vec![0, 2, 300]),
            (traits(0, u32::MAX), vec![], vec![]),
            (traits(16, 300), vec![1], vec![300, 1]),
        ];
        let mut vocabulary: Vec<String> = vec!["江城".into(), "".into(), "地铁".into()];
        vocabulary.extend((3..301).map(|i| format!("词{i}")));
        let words: Vec<&str> = vocabulary.iter().map(String::as_str).collect();
        let hashes = [u64::MAX, 0x0123_4567_89ab_cdef];
        let a = Analysis::pack(&hashes, &words, &[2, 0], &[300], &sentences);
        assert_eq!(a.chunk_hashes().collect::<Vec<_>>(), hashes);
        let u = a.unpack();
        assert_eq!(u.chunk_hashes, hashes);
        assert_eq!(u.vocabulary, words);
        assert_eq!(
            (u.title_words.as_slice(), u.subtitle_words.as_slice()),
            (&[2, 0][..], &[300][..])
        );
        let read: Vec<(SentenceTraits, Vec<u32>, Vec<u32>)> = u
            .sentences()
            .map(|(t, c, w)| (t, c.to_vec(), w.to_vec()))
            .collect();
        assert_eq!(read, sentences);
        assert_eq!(u.word(300), "词300");
        // Cut short or with ids past its lists, a buffer reads as a page
        // of nothing rather than indexing out of its lists.
        for cut in 0..a.0.len() {
            let short = Analysis(Arc::from(&a.0[..cut]));
            let u = short.unpack();
            assert!(u.sentences().count() <= sentences.len());
        }
        let bad = Analysis::pack(&hashes, &words[..2], &[5], &[], &[]);
        assert!(bad.unpack().vocabulary.is_empty());
        assert_eq!(Analysis::default().unpack().sentences().count(), 0);
    }

    #[test]
    fn synonyms_make_reprints_similar_and_titles_gate() {
        let mut m = Semantic::new(Cilin::embedded());
        let a = doc(
            0,
            "江城地铁五号线开通",
            &[
                "江城地铁五号线今天开通试运营。市民可以乘坐地铁前往机场。",
                "这是城市交通的重要进展。",
            ],
        );
        let b = doc(
            1,
            "江城地铁五号线开通",
            &[
                "江城地铁五号线今天开通试运营。市民能够乘坐地铁前往机场。",
                "这是城市交通的重要进展。",
            ],
        );
        let c = doc(
            2,
            "山区学校迎来新教师",
            &["山区学校今年迎来十名新教师。孩子们非常高兴。"],
        );
        let docs = [a, b, c];
        assert!(m.fit(&docs));
        let s: Vec<SemanticSignature> = docs.iter().map(|d| m.sign(d).unwrap()).collect();
        assert!(
            m.similarity(&s[0], &s[1]) > 0.9,
            "{}",
            m.similarity(&s[0], &s[1])
        );
        assert_eq!(m.similarity(&s[0], &s[2]), 0.0, "titles differ");
    }

    #[test]
    fn stored_pairs_keep_title_and_subtitle_scores_so_gates_move_without_rescoring() {
        use crate::algo::Algorithm;
        use crate::util::stage::StageClock;
        let mut m = Semantic::new(Cilin::embedded());
        m.candidate_jaccard = 0.05;
        m.floor = 0.0;
        let body = [
            "江城地铁五号线今天开通试运营。市民可以乘坐地铁前往机场。",
            "这是城市交通的重要进展。",
        ];
        let docs = [
            doc(0, "江城地铁五号线开通", &body),
            doc(1, "山区学校迎来新教师", &body),
        ];
        let run = Algorithm::run(&mut m, &docs, "test", &mut StageClock::new(2, 100));
        assert_eq!(run.pairs.len(), 1, "{:?}", run.pairs);
        assert_eq!(run.gate_scores.len(), 1);
        let [title, subtitles] = run.gate_scores[0];
        assert!(title < 0.4, "different titles: {title}");
        assert!(subtitles.is_nan(), "no subtitles on either page");
        assert!(
            run.pairs[0].score > 0.99,
            "same body: {}",
            run.pairs[0].score
        );
        // The configured title gate rejects the pair; lowered below its
        // title similarity it lets it through, from the stored scores alone.
        assert!(run.gated_pairs(&run.gate_thresholds()).is_empty());
        assert_eq!(run.gated_pairs(&[f64::from(title), 0.6]).len(), 1);
    }

    /// A story, its reprint (one word changed), an unrelated page, and page
    /// 3 of input identical to page 0's (sharing its tokens and structure).
    fn reprint_docs(second_paragraph: &str) -> Vec<Document> {
        let first = "江城地铁五号线今天开通试运营。市民可以乘坐地铁前往机场。";
        let reprinted = "江城地铁五号线今天开通试运营。市民能够乘坐地铁前往机场。";
        let mut docs = vec![
            doc(0, "江城地铁五号线开通", &[first, second_paragraph]),
            doc(1, "江城地铁五号线开通", &[reprinted, second_paragraph]),
            doc(2, "山区学校迎来新教师", &["山区学校今年迎来十名新教师。"]),
        ];
        let mut shared = docs[0].clone();
        shared.page = 3;
        docs.push(shared);
        docs
    }

    #[test]
    fn pages_without_their_tokens_score_the_same() {
        // The runner drops the tokens before the method runs (it says it
        // does not read them); pages must pair and score as with them.
        use crate::algo::Algorithm;
        use crate::util::stage::StageClock;
        let mut docs = reprint_docs("这是城市交通的重要进展。");
        let run = |docs: &[Document]| {
            let mut m = Semantic::new(Cilin::embedded());
            m.candidate_jaccard = 0.05;
            m.floor = 0.0;
            assert!(!Algorithm::reads_tokens(&m));
            Algorithm::run(&mut m, docs, "test", &mut StageClock::new(4, 100))
        };
        let with = run(&docs);
        let empty = Arc::new(crate::text::Tokens::default());
        for d in &mut docs {
            d.tokens = empty.clone();
        }
        let without = run(&docs);
        // The reprint's pairs and the identical page's group.
        assert!(!with.pairs.is_empty());
        assert!(with.stored_pairs() > with.pairs.len() as u64);
        assert_eq!(with.listed_pairs(), without.listed_pairs());
        assert_eq!(with.unsigned, without.unsigned);
    }

    #[test]
    fn fitted_ahead_pages_sign_the_same_without_their_structures() {
        // The runner fits the last semantic run ahead, then swaps each
        // structure for an empty stand-in (one per structure) before
        // signing: pairs and scores must be those of the plain run.
        use crate::algo::Algorithm;
        use crate::util::stage::StageClock;
        let mut docs = reprint_docs("这是城市交通的重要进展，因此备受关注！");
        let method = || {
            let mut m = Semantic::new(Cilin::embedded());
            m.candidate_jaccard = 0.05;
            m.floor = 0.0;
            Detector::last_reader(&mut m);
            m
        };
        let plain = Algorithm::run(&mut method(), &docs, "test", &mut StageClock::new(4, 100));
        let mut m = method();
        assert!(Algorithm::fit_ahead(&mut m, &docs));
        crate::algo::stand_in_structures(&mut docs);
        assert!(docs
            .iter()
            .all(|d| d.structure.as_ref().unwrap().text().is_empty()));
        assert!(Arc::ptr_eq(
            docs[0].structure.as_ref().unwrap(),
            docs[3].structure.as_ref().unwrap()
        ));
        let ahead = Algorithm::run(&mut m, &docs, "test", &mut StageClock::new(4, 100));
        assert!(!plain.pairs.is_empty());
        assert_eq!(plain.listed_pairs(), ahead.listed_pairs());
        // Gate scores are NaN where a step is skipped: compared as bits.
        let gates = |r: &crate::algo::AlgorithmRun| -> Vec<[u32; MAX_GATES]> {
            r.gate_scores.iter().map(|g| g.map(f32::to_bits)).collect()
        };
        assert_eq!(gates(&plain), gates(&ahead));
        assert_eq!(plain.stored_pairs(), ahead.stored_pairs());
        assert_eq!(plain.unsigned, ahead.unsigned);
    }

    #[test]
    fn chunk_hashes_are_hashes_of_the_chunk_text() {
        let words: Vec<TaggedWord> = ["在", "江城", "地铁", "五号线"]
            .into_iter()
            .map(|word| TaggedWord { word, tag: "n" })
            .collect();
        let c = Chunk {
            words: 1..4,
            kind: ChunkKind::Bnp,
        };
        assert_eq!(
            chunk_hash(&words, &c),
            xxh3_64_with_seed("江城地铁五号线".as_bytes(), CONCEPT_SEED ^ 1)
        );
    }

    #[test]
    fn topic_share_scales_with_the_page() {
        assert_eq!(TopicCount::Share(0.2).of(30), 6);
        assert_eq!(TopicCount::Share(0.2).of(3), 1);
        assert_eq!(TopicCount::Share(1.0).of(0), 1);
        assert_eq!(TopicCount::Count(5).of(30), 5);
        let mut m = Semantic::new(Cilin::embedded());
        m.topic_count = TopicCount::Share(0.5);
        m.redundancy = 1.01;
        let s = |index| WeighedSentence {
            index,
            weight: index as f64,
            vector: vector(&[(index as u64, 1.0)]),
            declarative: true,
        };
        assert_eq!(m.topic_vector((0..10).map(s).collect()).len(), 5);
    }
}
