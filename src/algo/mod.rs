//! The algorithms, all behind one trait.
//!
//! A [`Detector`] turns a page into a signature, generates candidate pairs
//! from all signatures, and gives each candidate pair a score. Scores are
//! computed once and kept down to a floor (a Hamming distance of 16, say),
//! so that moving a threshold afterwards only re-filters the stored pairs.

pub mod collection;
pub mod combined;
pub mod exact;
pub mod imatch;
pub mod learned;
pub mod semantic;
pub mod settings;
pub mod shingling;
pub mod simhash;

use std::collections::hash_map::{Entry, HashMap};

use rayon::prelude::*;

use crate::extract::structure::DocumentStructure;
use crate::text::lang::detect_lang;
use crate::text::Lang;
use crate::text::{tokenize, TokenizerConfig, Tokens};
use crate::util::stage::{Stage, StageClock, Ticker};

/// A page as the algorithms see it: extracted, normalised and tokenised.
#[derive(Debug, Clone)]
pub struct Document {
    /// Index of the page in the corpus (and in the evaluation's truth).
    pub page: u32,
    pub lang: Lang,
    /// Shared between pages with identical text.
    pub tokens: std::sync::Arc<Tokens>,
    /// Title, subtitles, paragraphs and sentences, for the algorithms that
    /// read them (the semantic method); `None` when not extracted.
    pub structure: Option<std::sync::Arc<DocumentStructure>>,
    /// The host of the page's URL, for the learned judge's same-host
    /// feature; `None` without a URL.
    pub host: Option<std::sync::Arc<str>>,
}

/// Swaps each page's structure for an empty stand-in, one per structure so
/// that pages of identical input (which share one) are still told apart,
/// and lets the structures go: for an algorithm that fitted ahead and signs
/// from what it kept ([`Detector::fit_ahead`]).
pub fn stand_in_structures(docs: &mut [Document]) {
    let mut stand_ins: HashMap<*const DocumentStructure, std::sync::Arc<DocumentStructure>> =
        HashMap::new();
    for doc in docs {
        if let Some(s) = doc.structure.take() {
            let stand_in = stand_ins
                .entry(std::sync::Arc::as_ptr(&s))
                .or_insert_with(|| std::sync::Arc::new(DocumentStructure::default()));
            doc.structure = Some(stand_in.clone());
        }
    }
}

impl Document {
    /// Page `page`'s text tokenised; its language is `lang`, or decided by
    /// script when the corpus does not say.
    pub fn new(page: u32, text: &str, lang: Option<Lang>, tokenizer: &TokenizerConfig) -> Self {
        let lang = lang.unwrap_or_else(|| detect_lang(text));
        Document {
            page,
            lang,
            tokens: std::sync::Arc::new(tokenize(text, lang, tokenizer)),
            structure: None,
            host: None,
        }
    }

    /// Pages 0..`count` tokenised into one vocabulary (see
    /// [`crate::text::tokenize_many`]): `input(i)` gives page i's text and
    /// language (decided by script when `None`). Each keeps its normalised
    /// text for the algorithms reading characters.
    pub fn many<F>(count: usize, tokenizer: &TokenizerConfig, input: F) -> Vec<Document>
    where
        F: Fn(usize) -> (String, Option<Lang>) + Sync,
    {
        let (tokens, _) = crate::text::tokenize_many(count, tokenizer, true, input);
        tokens
            .into_iter()
            .enumerate()
            .map(|(page, (tokens, lang))| Document {
                page: page as u32,
                lang,
                tokens: std::sync::Arc::new(tokens),
                structure: None,
                host: None,
            })
            .collect()
    }

    /// The normalised text the tokens were split from, whitespace aside
    /// (character tokens drop it, word tokens keep it): kept with the
    /// tokens, or made again from the page's structure.
    pub fn normalized_text(&self) -> std::borrow::Cow<'_, str> {
        if let Some(text) = self.tokens.text() {
            return std::borrow::Cow::Borrowed(text);
        }
        let vocab = self.tokens.vocab();
        std::borrow::Cow::Owned(match &self.structure {
            Some(structure) => vocab.normalized(structure.text()),
            // Documents are made with their text or their structure; the
            // tokens alone are the next best thing.
            None => self.tokens.iter().collect::<Vec<_>>().join(" "),
        })
    }
}

/// Which way a score points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// A similarity: a pair is a duplicate when its score >= threshold.
    AtLeast,
    /// A distance: a pair is a duplicate when its score <= threshold.
    AtMost,
}

/// What an algorithm's scores mean and which thresholds make sense.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreScale {
    /// e.g. "hamming distance", "identical".
    pub name: &'static str,
    pub direction: Direction,
    /// The least and most a threshold may be.
    pub min: f64,
    pub max: f64,
    /// Pairs scoring past the floor are not kept at all.
    pub floor: f64,
}

impl ScoreScale {
    pub fn passes(&self, score: f32, threshold: f64) -> bool {
        match self.direction {
            Direction::AtLeast => f64::from(score) >= threshold,
            Direction::AtMost => f64::from(score) <= threshold,
        }
    }

    pub fn contains(&self, threshold: f64) -> bool {
        threshold >= self.min && threshold <= self.max
    }

    /// What two unrelated pages score: the least similarity, or on a
    /// distance the middle of its range (two unrelated SimHash
    /// fingerprints differ in half their bits).
    pub fn unrelated(&self) -> f64 {
        match self.direction {
            Direction::AtLeast => self.min,
            Direction::AtMost => (self.min + self.max) / 2.0,
        }
    }
}

/// A secondary test a pair must pass besides its score (the semantic
/// method's title and subtitle similarities). The pair keeps the gate's own
/// score, so moving a gate's threshold only re-filters stored pairs.
#[derive(Debug, Clone, PartialEq)]
pub struct Gate {
    pub name: &'static str,
    /// A pair passes when its gate score is at least this, or NaN (the gate
    /// does not apply to it: a page without a title, say).
    pub threshold: f64,
}

/// Candidate pairs verified between two counts of the progress shown.
const TICK_PAIRS: usize = 1024;

/// Most gates a detector may have; fixed so that a pair's gate scores sit
/// beside it without an allocation.
pub const MAX_GATES: usize = 2;

/// One pair's gate scores, in the order of [`Detector::gates`]; unused
/// slots are NaN.
pub type GateScores = [f32; MAX_GATES];

/// Whether gate scores pass thresholds (one per gate, NaN passes).
pub fn passes_gates(scores: &GateScores, thresholds: &[f64]) -> bool {
    scores
        .iter()
        .zip(thresholds)
        .all(|(&s, &t)| s.is_nan() || f64::from(s) >= t)
}

/// Pages whose signatures are identical, so that every pair among them has
/// the same score and gate scores: the pairs are counted, never listed (a
/// crawl's mirrors and error pages make groups of tens of thousands).
#[derive(Debug, Clone, PartialEq)]
pub struct PageGroup {
    /// Page indices, ascending; two or more.
    pub pages: Vec<u32>,
    /// The score of any two of them.
    pub score: f32,
    pub gate_scores: GateScores,
}

impl PageGroup {
    /// Pairs inside the group: C(n, 2).
    pub fn pairs(&self) -> u64 {
        let n = self.pages.len() as u64;
        n * n.saturating_sub(1) / 2
    }

    pub fn contains(&self, page: u32) -> bool {
        self.pages.binary_search(&page).is_ok()
    }
}

/// Most distinct signatures one predicted component may hold and still
/// have every pair of them scored. An LSH bucket of more pages than this is
/// not paired one by one: its pages are joined into components, each page
/// scored against a component's representative, and a component past this
/// many signatures has its pairs counted from its size and their scores
/// estimated from a sample ([`SampledComponent`]). Ordinary corpora never
/// reach it, so their results are exact.
pub const BIG_COMPONENT: usize = 2_000;

/// Pairs scored in each sampled component: the share of its pairs passing
/// a threshold is then within 1.06% of the sample's (95%, Hoeffding).
pub const COMPONENT_SAMPLE: usize = 16_384;

/// Representatives of components a page of a big bucket is tried against
/// before it is left alone: a bucket of unrelated pages (shared
/// boilerplate) costs this many scores per page at most.
const BUCKET_LEADERS: usize = 16;

/// The confidence of [`SampledComponent::error_bound`].
pub const SAMPLE_CONFIDENCE: f64 = 0.95;

/// A predicted component too big to score pair by pair (more than
/// [`BIG_COMPONENT`] distinct signatures): 30,000 copies of one story with
/// small edits hold 450 million pairs. The links that joined it are stored
/// pairs of the run, as are the pairs inside its groups of identical pages;
/// every other pair among its pages is counted from its size, and what
/// share of them passes a threshold is estimated from `sample`.
#[derive(Debug, Clone, PartialEq)]
pub struct SampledComponent {
    /// Page indices, ascending.
    pub pages: Vec<u32>,
    /// The pairs the sample stands for: those among `pages` neither
    /// inside a group nor stored.
    pub pairs: u64,
    /// Pairs drawn uniformly (with replacement, fixed seed) among those
    /// `pairs`, with their scores; the k-th stands for
    /// [`SampledComponent::weight`]`(k)` of them.
    pub sample: Vec<ScoredPair>,
}

impl SampledComponent {
    /// How many of the component's pairs sampled pair `k` stands for:
    /// `pairs / m` rounded so that the weights sum to `pairs` exactly.
    pub fn weight(&self, k: usize) -> u64 {
        let (n, m) = (u128::from(self.pairs), self.sample.len() as u128);
        let upto = |k: usize| (k as u128 * n / m) as u64;
        upto(k + 1) - upto(k)
    }

    /// Half-width, as a share of `pairs`, within which the share of them
    /// passing any one threshold lies with probability
    /// [`SAMPLE_CONFIDENCE`] (Hoeffding: sqrt(ln(2/delta) / 2m)).
    pub fn error_bound(&self) -> f64 {
        let m = self.sample.len().max(1) as f64;
        ((2.0 / (1.0 - SAMPLE_CONFIDENCE)).ln() / (2.0 * m)).sqrt()
    }

    /// The note printed under an algorithm holding this component.
    pub fn note(&self) -> String {
        format!(
            "pairwise counts estimated: a component of {} pages holds {} pairs counted from its size, \
             scored through a sample of {} (seed fixed); the share passing any threshold is within \
             ±{:.2}% of the sample's, ±{} pairs ({:.0}% confidence, Hoeffding)",
            self.pages.len(),
            self.pairs,
            self.sample.len(),
            100.0 * self.error_bound(),
            (self.error_bound() * self.pairs as f64).ceil() as u64,
            100.0 * SAMPLE_CONFIDENCE
        )
    }
}

/// Memory the stored pairs of one algorithm may take unless configured
/// otherwise (`pair_budget_mb`): past it the best-scoring pairs are kept
/// and the floor rises.
pub const DEFAULT_PAIR_BUDGET_BYTES: usize = 1 << 30;

/// A 128-bit key over what `write` feeds it, for
/// [`Detector::signature_key`]; fixed seed, so keys repeat run to run.
pub fn hash_key(write: impl FnOnce(&mut xxhash_rust::xxh3::Xxh3)) -> u128 {
    let mut hasher = xxhash_rust::xxh3::Xxh3::with_seed(0x6b65_795f_6772_6f75);
    write(&mut hasher);
    hasher.digest128()
}

/// One candidate pair with its score; `a < b` are page indices.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScoredPair {
    pub a: u32,
    pub b: u32,
    pub score: f32,
}

pub trait Detector: Send + Sync {
    type Signature: Send + Sync;

    /// Short name, e.g. `simhash`.
    fn name(&self) -> &'static str;
    /// Name with the parameters that shape its signatures.
    fn label(&self) -> String;
    fn scale(&self) -> ScoreScale;
    /// Learns what signing needs from the whole collection (I-Match's
    /// lexicon) before any page is signed, and says whether it did (for
    /// the throughput record). Most detectors need nothing.
    fn fit(&mut self, _docs: &[Document]) -> bool {
        false
    }
    /// `None` when the page gets no signature (too little text for it).
    fn sign(&self, doc: &Document) -> Option<Self::Signature>;
    /// Whether signing reads the documents' tokens: the runner lets them
    /// go before detectors that read only the structure (the semantic
    /// method), since a page's tokens take more than its text.
    fn reads_tokens(&self) -> bool {
        true
    }
    /// Whether signing can tokenise each page's text itself, with no
    /// vocabulary of the collection (SimHash's words weighted by counts):
    /// when no other algorithm on the same tokens reads them, the runner
    /// then makes none ([`Detector::sign_from_text`]).
    fn signs_from_text(&self) -> bool {
        false
    }
    /// From now on sign each page from its structure's text with
    /// `tokenizer`, the documents carrying no tokens. Called only when
    /// [`Detector::signs_from_text`].
    fn sign_from_text(&mut self, _tokenizer: &TokenizerConfig) {}
    /// Fits now, ahead of [`Algorithm::run_within`] (whose `fit` then does
    /// nothing), and says whether it did: a detector that signs from what
    /// `fit` kept, never reading the documents' structures after it, fits
    /// ahead so that the runner can let the structures go before signing
    /// when no later algorithm reads them. By default it does not.
    fn fit_ahead(&mut self, _docs: &[Document]) -> bool {
        false
    }
    /// Every page is signed: what `fit` kept for signing alone can go
    /// before the candidate search (at a million pages, the semantic
    /// method's per-page analyses).
    fn signed(&mut self) {}
    /// No later run on these documents reuses what this one fits: let it
    /// go once signed instead of keeping it for them.
    fn last_reader(&mut self) {}
    /// Index pairs `(i, j)`, `i < j`, into `signatures`, each at most once,
    /// that may score within the floor.
    fn candidates(&self, signatures: &[Option<Self::Signature>]) -> Vec<(u32, u32)>;
    /// [`Detector::candidates`] from a search that puts pages into buckets
    /// (LSH bands), with every bucket of more than `max_bucket` pages left
    /// out of the pairs and handed to `join` as its pages, which joins them
    /// into components (see [`SampledComponent`]) and returns each
    /// signature's component (`u32::MAX` for none): no pair inside one
    /// component is listed. By default no bucket is big.
    fn bucketed_candidates(
        &self,
        signatures: &[Option<Self::Signature>],
        _max_bucket: usize,
        _join: &mut dyn FnMut(&[Vec<u32>]) -> Vec<u32>,
    ) -> Vec<(u32, u32)> {
        self.candidates(signatures)
    }
    fn score(&self, a: &Self::Signature, b: &Self::Signature) -> f32;
    /// [`Detector::score`] when it passes `scale`'s floor, `None` when it
    /// does not: a detector whose score is costly (an exact Jaccard of
    /// long sets) stops as soon as the floor is out of reach.
    fn score_within(
        &self,
        a: &Self::Signature,
        b: &Self::Signature,
        scale: &ScoreScale,
    ) -> Option<f32> {
        let score = self.score(a, b);
        scale.passes(score, scale.floor).then_some(score)
    }
    /// Candidate pairs already scored, for searches that compute the score
    /// on the way (an inverted index counts shared shingles); `None` to
    /// have [`Detector::candidates`] and [`Detector::score`] used instead.
    fn scored_candidates(
        &self,
        _signatures: &[Option<Self::Signature>],
    ) -> Option<Vec<(u32, u32, f32)>> {
        None
    }
    /// A key two signatures share exactly when they are the same signature
    /// (a 128-bit hash of everything [`Detector::score`] and
    /// [`Detector::gate_scores`] read). Pages sharing one are scored as a
    /// group through one representative, so a group's pairs are neither
    /// generated nor stored one by one. `None`: no grouping.
    fn signature_key(&self, _signature: &Self::Signature) -> Option<u128> {
        None
    }
    /// Lines printed under the algorithm's results (e.g. the LSH S-curve).
    fn describe(&self) -> Vec<String> {
        Vec::new()
    }
    /// The LSH banding the candidate search uses, if it bands sketches.
    fn banding(&self) -> Option<shingling::lsh::Banding> {
        None
    }
    /// The widths of the shingle sets [`Detector::sign`] reads through
    /// `Tokens::shingles`, so that a run makes a set once for all the
    /// algorithms reading it; none by default.
    fn shingle_widths(&self) -> Vec<usize> {
        Vec::new()
    }
    /// Tests besides the score, at most [`MAX_GATES`]; none by default.
    fn gates(&self) -> Vec<Gate> {
        Vec::new()
    }
    /// Why the candidate search did or did not pair two signatures (an LSH
    /// banding says how many bands they share); `None` when there is
    /// nothing to say beyond the score.
    fn explain(&self, _a: &Self::Signature, _b: &Self::Signature) -> Option<String> {
        None
    }
    /// A pair's score under each gate (NaN where a gate does not apply).
    fn gate_scores(&self, _a: &Self::Signature, _b: &Self::Signature) -> GateScores {
        [f32::NAN; MAX_GATES]
    }
}

/// What one algorithm produced on one corpus.
#[derive(Debug, Clone)]
pub struct AlgorithmRun {
    pub name: &'static str,
    pub label: String,
    pub scale: ScoreScale,
    /// Sorted by (a, b), within the floor; no pair inside a group.
    pub pairs: Vec<ScoredPair>,
    /// Pages with identical signatures, by their first page. Every group
    /// is kept, also one whose own score is past the floor, so that the
    /// candidate stage can be counted through it.
    pub groups: Vec<PageGroup>,
    /// Candidate pairs before the floor was applied, groups' pairs
    /// included.
    pub candidates: u64,
    /// The candidate pairs between groups' first pages and pages outside
    /// groups, as page indices `(a, b)`, `a < b`, sorted: with `groups`
    /// they tell the evaluator what the candidate stage alone loses, and
    /// the inspector whether an unstored pair was a candidate.
    pub candidate_pairs: Vec<(u32, u32)>,
    /// What the algorithm says about its own set-up.
    pub notes: Vec<String>,
    /// Pages that got no signature, as page indices.
    pub unsigned: Vec<u32>,
    /// The detector's gates with the thresholds it was configured with.
    pub gates: Vec<Gate>,
    /// Each stored pair's gate scores, parallel to `pairs`; empty when the
    /// detector has no gates.
    pub gate_scores: Vec<GateScores>,
    /// The candidate search's banding, for the S-curve in reports.
    pub banding: Option<shingling::lsh::Banding>,
    /// Components too big to score pair by pair, whose pairs (all but
    /// those in `pairs` and `groups`) are counted from their size and
    /// scored through a sample; empty on ordinary corpora.
    pub sampled: Vec<SampledComponent>,
}

impl AlgorithmRun {
    /// A run of `pairs` alone, each its own candidate: no groups, gates,
    /// notes or sampled components (how tests and benches make runs).
    pub fn of_pairs(
        name: &'static str,
        label: String,
        scale: ScoreScale,
        pairs: Vec<ScoredPair>,
    ) -> AlgorithmRun {
        AlgorithmRun {
            name,
            label,
            scale,
            candidates: pairs.len() as u64,
            pairs,
            groups: Vec::new(),
            candidate_pairs: Vec::new(),
            notes: Vec::new(),
            unsigned: Vec::new(),
            gates: Vec::new(),
            gate_scores: Vec::new(),
            banding: None,
            sampled: Vec::new(),
        }
    }

    /// Whether the candidate stage proposed pages `a` and `b` (a group
    /// stands for its pages by its first page; two pages of one group
    /// always were).
    pub fn was_candidate(&self, a: u32, b: u32) -> bool {
        let first = |p: u32| {
            self.groups
                .iter()
                .find(|g| g.contains(p))
                .map_or(p, |g| g.pages[0])
        };
        let (x, y) = (first(a), first(b));
        let key = (x.min(y), x.max(y));
        x == y
            || self.candidate_pairs.binary_search(&key).is_ok()
            || self
                .pairs
                .binary_search_by_key(&key, |p| (p.a, p.b))
                .is_ok()
    }

    /// Leaves in `candidate_pairs` only the candidates that were not
    /// stored: a stored pair between two groups' first pages is its own
    /// candidate (see [`AlgorithmRun::was_candidate`]), so once the
    /// candidate stage has been counted the list need not hold it twice.
    pub fn compact_candidates(&mut self) {
        let mut stored = self.pairs.iter().map(|p| (p.a, p.b)).peekable();
        self.candidate_pairs.retain(|&c| {
            while stored.next_if(|&s| s < c).is_some() {}
            stored.peek() != Some(&c)
        });
        self.candidate_pairs.shrink_to_fit();
    }

    /// The configured gate thresholds, one per gate.
    pub fn gate_thresholds(&self) -> Vec<f64> {
        self.gates.iter().map(|g| g.threshold).collect()
    }

    /// The stored pairs that pass the gates at `thresholds` (all of them
    /// when the algorithm has no gates).
    pub fn gated_pairs(&self, thresholds: &[f64]) -> std::borrow::Cow<'_, [ScoredPair]> {
        if self.gates.is_empty() || self.gate_scores.len() != self.pairs.len() {
            return std::borrow::Cow::Borrowed(&self.pairs);
        }
        std::borrow::Cow::Owned(
            self.pairs
                .iter()
                .zip(&self.gate_scores)
                .filter(|(_, g)| passes_gates(g, thresholds))
                .map(|(p, _)| *p)
                .collect(),
        )
    }

    /// The groups whose pairs were stored (their score within the floor).
    pub fn stored_groups(&self) -> impl Iterator<Item = &PageGroup> {
        self.groups
            .iter()
            .filter(|g| self.scale.passes(g.score, self.scale.floor))
    }

    /// Every stored pair, the pairs inside stored groups listed too,
    /// sorted by (a, b): to compare with tools that list every pair (on
    /// small corpora; a large group has millions).
    pub fn listed_pairs(&self) -> Vec<ScoredPair> {
        let mut all = self.pairs.clone();
        for g in self.stored_groups() {
            for (i, &a) in g.pages.iter().enumerate() {
                all.extend(g.pages[i + 1..].iter().map(|&b| ScoredPair {
                    a,
                    b,
                    score: g.score,
                }));
            }
        }
        all.sort_unstable_by_key(|p| (p.a, p.b));
        all
    }

    /// Pairs stored, groups' pairs included.
    pub fn stored_pairs(&self) -> u64 {
        self.pairs.len() as u64 + self.stored_groups().map(PageGroup::pairs).sum::<u64>()
    }

    /// The stored score and gate scores (when the detector has gates) of
    /// pages `a < b`, from the pairs or a group holding both.
    pub fn lookup(&self, a: u32, b: u32) -> Option<(f32, Option<GateScores>)> {
        let gates = |scores: GateScores| (!self.gates.is_empty()).then_some(scores);
        if let Ok(k) = self.pairs.binary_search_by_key(&(a, b), |p| (p.a, p.b)) {
            let scores = self.gate_scores.get(k).copied();
            return Some((self.pairs[k].score, scores.and_then(gates)));
        }
        self.stored_groups()
            .find(|g| g.contains(a) && g.contains(b))
            .map(|g| (g.score, gates(g.gate_scores)))
    }
}

/// The object-safe face of a [`Detector`], so that an experiment can hold
/// algorithms of different signature types in one list.
pub trait Algorithm: Send + Sync {
    fn name(&self) -> &'static str;
    fn label(&self) -> String;
    fn scale(&self) -> ScoreScale;
    /// `variant` names the input in throughput records (e.g. the extraction).
    /// [`Detector::explain`] for two pages, signed afresh (for detectors
    /// that sign without fitting to the collection).
    fn explain_pair(&self, a: &Document, b: &Document) -> Option<String>;
    /// [`Detector::score`] of two pages, signed afresh; `None` when one
    /// of them has no signature (too short).
    fn score_pair(&self, a: &Document, b: &Document) -> Option<f32>;
    /// [`Detector::fit`], for [`Algorithm::score_pair`] outside a run.
    fn fit_collection(&mut self, docs: &[Document]) -> bool;
    /// [`Detector::shingle_widths`].
    fn shingle_widths(&self) -> Vec<usize>;
    /// [`Detector::reads_tokens`].
    fn reads_tokens(&self) -> bool;
    /// [`Detector::signs_from_text`].
    fn signs_from_text(&self) -> bool;
    /// [`Detector::sign_from_text`].
    fn sign_from_text(&mut self, tokenizer: &TokenizerConfig);
    /// [`Detector::last_reader`].
    fn last_reader(&mut self) {}
    /// [`Detector::fit_ahead`].
    fn fit_ahead(&mut self, _docs: &[Document]) -> bool {
        false
    }
    fn run(&mut self, docs: &[Document], variant: &str, clock: &mut StageClock) -> AlgorithmRun {
        self.run_within(docs, variant, clock, DEFAULT_PAIR_BUDGET_BYTES)
    }
    /// [`Algorithm::run`] with the stored pairs held to `pair_budget`
    /// bytes.
    fn run_within(
        &mut self,
        docs: &[Document],
        variant: &str,
        clock: &mut StageClock,
        pair_budget: usize,
    ) -> AlgorithmRun;
}

/// Signs every page, each distinct input once: documents sharing their
/// tokens and structure (identical pages, see the runner) have the same
/// signature, so only the first of them is signed and the others take its
/// key. Returns the signatures (`None` for pages that were not signed
/// themselves), each page's signature key, and the pages without a
/// signature.
#[allow(clippy::type_complexity)]
fn sign_distinct<D: Detector>(
    detector: &D,
    docs: &[Document],
    ticker: &crate::util::stage::Ticker,
) -> (Vec<Option<D::Signature>>, Vec<Option<u128>>, Vec<u32>) {
    let mut seen: HashMap<(usize, usize), u32> = HashMap::new();
    let first: Vec<u32> = docs
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let input = (
                std::sync::Arc::as_ptr(&d.tokens) as usize,
                d.structure
                    .as_ref()
                    .map_or(0, |s| std::sync::Arc::as_ptr(s) as usize),
            );
            *seen.entry(input).or_insert(i as u32)
        })
        .collect();
    let mut signatures: Vec<Option<D::Signature>> = docs
        .par_iter()
        .enumerate()
        .map(|(i, d)| {
            ticker.tick(1);
            (first[i] == i as u32).then(|| detector.sign(d)).flatten()
        })
        .collect();
    let mut keys: Vec<Option<u128>> = signatures
        .par_iter()
        .map(|s| s.as_ref().and_then(|s| detector.signature_key(s)))
        .collect();
    for i in 0..docs.len() {
        let f = first[i] as usize;
        if f != i {
            keys[i] = keys[f];
        }
    }
    // A detector without keys cannot share a signature by key: its pages
    // are signed one by one.
    let unkeyed: Vec<usize> = (0..docs.len())
        .filter(|&i| {
            let f = first[i] as usize;
            f != i && keys[f].is_none() && signatures[f].is_some()
        })
        .collect();
    let signed: Vec<Option<D::Signature>> = unkeyed
        .par_iter()
        .map(|&i| detector.sign(&docs[i]))
        .collect();
    for (i, s) in unkeyed.into_iter().zip(signed) {
        signatures[i] = s;
    }
    let unsigned = (0..docs.len())
        .filter(|&i| signatures[first[i] as usize].is_none())
        .map(|i| docs[i].page)
        .collect();
    (signatures, keys, unsigned)
}

/// Doc indices of identical signatures: `groups` of two or more, the first
/// of each the representative, and each doc's group (`NO_GROUP` if none).
struct Collapsed {
    groups: Vec<Vec<u32>>,
    group_of: Vec<u32>,
}

const NO_GROUP: u32 = u32::MAX;

impl Collapsed {
    /// Groups pages by signature key and leaves only each group's first
    /// signature in place, so that the candidate search sees one page per
    /// group.
    fn new<S>(keys: &[Option<u128>], signatures: &mut [Option<S>]) -> Self {
        let mut first: HashMap<u128, u32> = HashMap::new();
        let mut groups: Vec<Vec<u32>> = Vec::new();
        let mut group_of = vec![NO_GROUP; signatures.len()];
        for (i, key) in keys.iter().enumerate() {
            let Some(key) = key else { continue };
            let i = i as u32;
            match first.entry(*key) {
                Entry::Vacant(e) => {
                    e.insert(i);
                }
                Entry::Occupied(e) => {
                    let rep = *e.get();
                    if group_of[rep as usize] == NO_GROUP {
                        group_of[rep as usize] = groups.len() as u32;
                        groups.push(vec![rep]);
                    }
                    let g = group_of[rep as usize];
                    group_of[i as usize] = g;
                    groups[g as usize].push(i);
                    signatures[i as usize] = None;
                }
            }
        }
        Collapsed { groups, group_of }
    }

    /// The docs a representative stands for (itself alone outside groups).
    fn members(&self, i: u32) -> impl Iterator<Item = u32> + '_ {
        let group = match self.group_of[i as usize] {
            NO_GROUP => None,
            g => Some(&self.groups[g as usize]),
        };
        let alone = group.is_none().then_some(i);
        group.into_iter().flatten().copied().chain(alone)
    }

    fn weight(&self, i: u32) -> u64 {
        match self.group_of[i as usize] {
            NO_GROUP => 1,
            g => self.groups[g as usize].len() as u64,
        }
    }
}

/// A representative pair kept within the floor: doc indices, score, gates.
type Kept = (u32, u32, f32, GateScores);

/// Keeps the best-scoring representative pairs whose pairs of pages fit in
/// `max_pairs`, cutting between two scores so that every pair at least as
/// good as the new floor is kept; returns the new floor when it moved.
fn fit_budget(
    kept: &mut Vec<Kept>,
    weight: impl Fn(u32) -> u64,
    scale: &ScoreScale,
    max_pairs: u64,
) -> Option<f64> {
    let total: u64 = kept.iter().map(|k| weight(k.0) * weight(k.1)).sum();
    if total <= max_pairs {
        return None;
    }
    let better = |x: f32, y: f32| match scale.direction {
        Direction::AtLeast => y.total_cmp(&x),
        Direction::AtMost => x.total_cmp(&y),
    };
    kept.par_sort_unstable_by(|x, y| better(x.2, y.2).then((x.0, x.1).cmp(&(y.0, y.1))));
    let mut used = 0u64;
    let mut cut = kept.len();
    for (n, k) in kept.iter().enumerate() {
        used += weight(k.0) * weight(k.1);
        if used > max_pairs {
            cut = n;
            break;
        }
    }
    let dropped = kept[cut].2;
    while cut > 0 && kept[cut - 1].2 == dropped {
        cut -= 1;
    }
    kept.truncate(cut);
    // With nothing kept, the floor sits just inside the first dropped score.
    let nudge = match scale.direction {
        Direction::AtLeast => 1e-6,
        Direction::AtMost => -1e-6,
    };
    Some(
        kept.last()
            .map_or(f64::from(dropped) + nudge, |k| f64::from(k.2)),
    )
}

impl<D: Detector> Algorithm for D {
    fn name(&self) -> &'static str {
        Detector::name(self)
    }

    fn label(&self) -> String {
        Detector::label(self)
    }

    fn scale(&self) -> ScoreScale {
        Detector::scale(self)
    }

    fn reads_tokens(&self) -> bool {
        Detector::reads_tokens(self)
    }

    fn signs_from_text(&self) -> bool {
        Detector::signs_from_text(self)
    }

    fn sign_from_text(&mut self, tokenizer: &TokenizerConfig) {
        Detector::sign_from_text(self, tokenizer)
    }

    fn last_reader(&mut self) {
        Detector::last_reader(self)
    }

    fn fit_ahead(&mut self, docs: &[Document]) -> bool {
        Detector::fit_ahead(self, docs)
    }

    fn explain_pair(&self, a: &Document, b: &Document) -> Option<String> {
        self.explain(&self.sign(a)?, &self.sign(b)?)
    }

    fn score_pair(&self, a: &Document, b: &Document) -> Option<f32> {
        Some(self.score(&self.sign(a)?, &self.sign(b)?))
    }

    fn fit_collection(&mut self, docs: &[Document]) -> bool {
        Detector::fit(self, docs)
    }

    fn shingle_widths(&self) -> Vec<usize> {
        Detector::shingle_widths(self)
    }

    fn run_within(
        &mut self,
        docs: &[Document],
        variant: &str,
        clock: &mut StageClock,
        pair_budget: usize,
    ) -> AlgorithmRun {
        run_detector(self, docs, variant, clock, pair_budget, BIG_COMPONENT)
    }
}

/// [`Algorithm::run_within`], components of more than `big_component`
/// distinct signatures sampled (tests lower it).
pub(crate) fn run_detector<D: Detector>(
    detector: &mut D,
    docs: &[Document],
    variant: &str,
    clock: &mut StageClock,
    pair_budget: usize,
    big_component: usize,
) -> AlgorithmRun {
    // The label, not the name: two MinHash set-ups must not share a row.
    let who = format!("{} [{variant}]", Detector::label(detector));
    let started = clock.start();
    if detector.fit(docs) {
        clock.stop(started, Stage::Fit, &who);
    }
    let this = &*detector;
    let ticker = clock.begin(&format!("sign {who}"), docs.len() as u64);
    let started = clock.start();
    let (mut signatures, keys, unsigned) = sign_distinct(this, docs, &ticker);
    detector.signed();
    let this = &*detector;
    clock.stop(started, Stage::Signature, &who);

    let _ = clock.begin(&format!("candidates {who}"), 0);
    let started = clock.start();
    let mut scale = this.scale();
    let gates = this.gates();
    assert!(
        gates.len() <= MAX_GATES,
        "a detector has at most {MAX_GATES} gates"
    );
    let gated = !gates.is_empty();
    let collapsed = Collapsed::new(&keys, &mut signatures);
    drop(keys);
    // A sample carries no gate scores: gated detectors stay exact.
    let max_bucket = if gated { usize::MAX } else { big_component };
    let mut joined = Joined::default();
    let mut candidates = Candidates::search(this, &signatures, max_bucket, &mut |buckets| {
        joined = Joined::new(this, &signatures, buckets, &scale, big_component);
        joined.big_of.clone()
    });
    joined.add_candidates(&mut candidates);
    clock.stop(started, Stage::Candidates, &who);
    let candidate_pairs = candidate_page_pairs(&collapsed, docs, &candidates);
    let mut candidate_count = candidate_count(&collapsed, &candidates);

    let ticker = clock.begin(&format!("verify {who}"), candidates.to_score() as u64);
    let started = clock.start();
    let mut kept = verify(this, &signatures, &candidates, &scale, gated, &ticker);
    drop(candidates);
    let mut notes = this.describe();
    if let Some(note) = fit_pair_budget(&mut kept, &collapsed, &mut scale, pair_budget, gated) {
        notes.push(note);
    }
    let sampled = joined.sample(this, &signatures, &collapsed, docs, &scale);
    candidate_count += sampled.iter().map(|c| c.pairs).sum::<u64>();
    notes.extend(sampled.iter().map(SampledComponent::note));
    let (pairs, gate_scores) = expand_pairs(kept, &collapsed, docs, gated);
    let groups = page_groups(this, &collapsed, &signatures, docs, gated);
    clock.stop(started, Stage::Verify, &who);

    AlgorithmRun {
        name: this.name(),
        label: this.label(),
        scale,
        pairs,
        groups,
        candidates: candidate_count,
        candidate_pairs,
        notes,
        unsigned,
        gates,
        gate_scores,
        banding: this.banding(),
        sampled,
    }
}

/// Components joined from the candidate search's big buckets, before any
/// of their pairs is scored: each page of a bucket is scored against the
/// representatives of the bucket's components until one is within the
/// floor (the link that joins it), and pages already together are not
/// scored again, so a bucket of n near-identical pages costs about n
/// scores instead of C(n, 2).
#[derive(Default)]
struct Joined {
    /// Per component past the limit, its representatives (doc indices).
    big: Vec<Vec<u32>>,
    /// Per doc, its index in `big`, or [`NO_GROUP`].
    big_of: Vec<u32>,
    /// The links inside big components, `(i, j)`, `i < j`: candidates
    /// scored and stored like any other.
    links: std::collections::HashSet<(u32, u32)>,
    /// Every pair inside the components of at most the limit.
    small_pairs: Vec<(u32, u32)>,
}

impl Joined {
    /// Joins the candidate search's big buckets. A component of at most
    /// `big_component` signatures will have all its pairs added to the
    /// candidates (exact); within a bigger one only the links.
    fn new<D: Detector>(
        this: &D,
        signatures: &[Option<D::Signature>],
        buckets: &[Vec<u32>],
        scale: &ScoreScale,
        big_component: usize,
    ) -> Self {
        let n = signatures.len();
        let mut sets = crate::util::unionfind::UnionFind::new(n);
        let mut links: Vec<(u32, u32)> = Vec::new();
        for bucket in buckets {
            let mut leaders: Vec<u32> = Vec::new();
            for &p in bucket {
                let root = sets.find(p);
                if leaders.iter().any(|&l| sets.find(l) == root) {
                    continue;
                }
                let Some(sp) = signatures[p as usize].as_ref() else {
                    continue;
                };
                let leader = leaders.iter().copied().find(|&l| {
                    signatures[l as usize]
                        .as_ref()
                        .is_some_and(|sl| this.score_within(sp, sl, scale).is_some())
                });
                match leader {
                    Some(l) => {
                        sets.union(p, l);
                        links.push((p.min(l), p.max(l)));
                    }
                    None if leaders.len() < BUCKET_LEADERS => leaders.push(p),
                    None => {}
                }
            }
        }
        let mut members: Vec<(u32, u32)> = (0..n as u32)
            .filter(|&p| signatures[p as usize].is_some())
            .map(|p| (sets.find(p), p))
            .collect();
        members.sort_unstable();
        let mut joined = Joined {
            big: Vec::new(),
            big_of: vec![NO_GROUP; n],
            links: Default::default(),
            small_pairs: Vec::new(),
        };
        let unscored = &mut joined.small_pairs;
        for component in members.chunk_by(|x, y| x.0 == y.0) {
            if component.len() > big_component {
                for m in component {
                    joined.big_of[m.1 as usize] = joined.big.len() as u32;
                }
                joined.big.push(component.iter().map(|m| m.1).collect());
            } else {
                for (k, x) in component.iter().enumerate() {
                    unscored.extend(component[k + 1..].iter().map(|y| (x.1, y.1)));
                }
            }
        }
        let big_of = &joined.big_of;
        joined.links = links
            .into_iter()
            .filter(|&(i, j)| {
                big_of[i as usize] != NO_GROUP && big_of[i as usize] == big_of[j as usize]
            })
            .collect();
        joined
    }

    /// Adds the pairs of the small components and the big ones' links to
    /// the candidates (which list no pair inside a big component).
    fn add_candidates(&mut self, candidates: &mut Candidates) {
        if self.big_of.is_empty() {
            return;
        }
        let unscored = &mut candidates.unscored;
        unscored.append(&mut self.small_pairs);
        unscored.extend(self.links.iter().copied());
        unscored.par_sort_unstable();
        unscored.dedup();
    }

    /// Each big component with its pairs counted and a sample of them
    /// scored within `scale`'s floor (NaN past it).
    fn sample<D: Detector>(
        &self,
        this: &D,
        signatures: &[Option<D::Signature>],
        collapsed: &Collapsed,
        docs: &[Document],
        scale: &ScoreScale,
    ) -> Vec<SampledComponent> {
        self.big
            .iter()
            .map(|reps| self.sample_one(this, signatures, collapsed, docs, scale, reps))
            .collect()
    }

    fn sample_one<D: Detector>(
        &self,
        this: &D,
        signatures: &[Option<D::Signature>],
        collapsed: &Collapsed,
        docs: &[Document],
        scale: &ScoreScale,
        reps: &[u32],
    ) -> SampledComponent {
        // (doc, its representative) for every page of the component.
        let members: Vec<(u32, u32)> = reps
            .iter()
            .flat_map(|&r| collapsed.members(r).map(move |m| (m, r)))
            .collect();
        let n = members.len() as u64;
        let weight = |r: u32| collapsed.weight(r);
        let inside_groups: u64 = reps.iter().map(|&r| weight(r) * (weight(r) - 1) / 2).sum();
        let linked: u64 = self
            .links
            .iter()
            .filter(|&&(i, _)| self.big_of[i as usize] == self.big_of[reps[0] as usize])
            .map(|&(i, j)| weight(i) * weight(j))
            .sum();
        let pairs = n * (n - 1) / 2 - inside_groups - linked;
        let mut pages: Vec<u32> = members
            .iter()
            .map(|&(m, _)| docs[m as usize].page)
            .collect();
        pages.sort_unstable();
        // Pairs inside a group or stored are drawn again; past this many
        // draws the sample is what it is (a component nearly all one group).
        let mut rng = crate::util::rng::SplitMix64::murmur(0x5a4d_504c_4500 ^ u64::from(pages[0]));
        let mut drawn: Vec<(u32, u32)> = Vec::with_capacity(COMPONENT_SAMPLE);
        let mut draws = 0usize;
        while pairs > 0 && drawn.len() < COMPONENT_SAMPLE && draws < 4096 * COMPONENT_SAMPLE {
            draws += 1;
            let (x, y) = (
                members[rng.below(members.len())],
                members[rng.below(members.len())],
            );
            let key = (x.1.min(y.1), x.1.max(y.1));
            if x.1 != y.1 && !self.links.contains(&key) {
                drawn.push((x.0, y.0));
            }
        }
        let sample = drawn
            .par_iter()
            .map(|&(x, y)| {
                let rep = |d: u32| {
                    let g = collapsed.group_of[d as usize];
                    if g == NO_GROUP {
                        d
                    } else {
                        collapsed.groups[g as usize][0]
                    }
                };
                let score = match (
                    signatures[rep(x) as usize].as_ref(),
                    signatures[rep(y) as usize].as_ref(),
                ) {
                    (Some(sx), Some(sy)) => this.score_within(sx, sy, scale).unwrap_or(f32::NAN),
                    _ => f32::NAN,
                };
                let (a, b) = (docs[x as usize].page, docs[y as usize].page);
                ScoredPair {
                    a: a.min(b),
                    b: a.max(b),
                    score,
                }
            })
            .collect();
        SampledComponent {
            pages,
            pairs,
            sample,
        }
    }
}

/// The candidate stage's pairs of representatives (doc indices), scored
/// when the search scores them on the way.
struct Candidates {
    scored: Option<Vec<(u32, u32, f32)>>,
    /// Pairs still to score; empty when the search scored them (those are
    /// read in place, not copied into a list).
    unscored: Vec<(u32, u32)>,
}

impl Candidates {
    /// `join` joins the buckets of more than `max_bucket` pages (see
    /// [`Detector::bucketed_candidates`]).
    fn search<D: Detector>(
        detector: &D,
        signatures: &[Option<D::Signature>],
        max_bucket: usize,
        join: &mut dyn FnMut(&[Vec<u32>]) -> Vec<u32>,
    ) -> Self {
        let scored = detector.scored_candidates(signatures);
        let unscored = match &scored {
            Some(_) => Vec::new(),
            None => detector.bucketed_candidates(signatures, max_bucket, join),
        };
        Candidates { scored, unscored }
    }

    fn each(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.scored
            .iter()
            .flatten()
            .map(|&(i, j, _)| (i, j))
            .chain(self.unscored.iter().copied())
    }

    /// How many pairs the verify stage reads.
    fn to_score(&self) -> usize {
        self.scored.as_ref().map_or(self.unscored.len(), Vec::len)
    }
}

/// The candidates as pairs of pages, sorted and distinct: a group stands
/// for itself by its first page.
fn candidate_page_pairs(
    collapsed: &Collapsed,
    docs: &[Document],
    candidates: &Candidates,
) -> Vec<(u32, u32)> {
    let first_page = |i: u32| {
        collapsed
            .members(i)
            .map(|m| docs[m as usize].page)
            .min()
            .expect("a representative stands for itself")
    };
    let mut candidate_pairs: Vec<(u32, u32)> = candidates
        .each()
        .map(|(i, j)| {
            let (a, b) = (first_page(i), first_page(j));
            (a.min(b), a.max(b))
        })
        .collect();
    candidate_pairs.par_sort_unstable();
    candidate_pairs.dedup();
    candidate_pairs
}

/// The pairs of pages the candidates stand for, with the pairs inside
/// each group of identical signatures.
fn candidate_count(collapsed: &Collapsed, candidates: &Candidates) -> u64 {
    let weight = |i: u32| collapsed.weight(i);
    candidates
        .each()
        .map(|(i, j)| weight(i) * weight(j))
        .sum::<u64>()
        + collapsed
            .groups
            .iter()
            .map(|g| (g.len() as u64) * (g.len() as u64 - 1) / 2)
            .sum::<u64>()
}

/// The gate scores of a pair, or none (NaN) for a detector without gates.
#[inline]
fn gate_scores_of<D: Detector>(
    detector: &D,
    gated: bool,
    a: &D::Signature,
    b: &D::Signature,
) -> GateScores {
    if gated {
        detector.gate_scores(a, b)
    } else {
        [f32::NAN; MAX_GATES]
    }
}

/// The candidate pairs that score within `scale`'s floor, with their
/// gate scores.
fn verify<D: Detector>(
    this: &D,
    signatures: &[Option<D::Signature>],
    candidates: &Candidates,
    scale: &ScoreScale,
    gated: bool,
    ticker: &Ticker,
) -> Vec<Kept> {
    let keep = |i: u32, j: u32, score: f32| -> Option<Kept> {
        if !scale.passes(score, scale.floor) {
            return None;
        }
        let gate_scores = gate_scores_of(
            this,
            gated,
            signatures[i as usize].as_ref()?,
            signatures[j as usize].as_ref()?,
        );
        Some((i, j, score, gate_scores))
    };
    // Pairs are counted a chunk at a time: a count per pair, on every
    // thread, was a contended cache line whenever a bar or the
    // workbench's gauge listened.
    match &candidates.scored {
        Some(scored) => scored
            .par_chunks(TICK_PAIRS)
            .flat_map_iter(|chunk| {
                ticker.tick(chunk.len() as u64);
                chunk.iter().filter_map(|&(i, j, score)| keep(i, j, score))
            })
            .collect(),
        None => candidates
            .unscored
            .par_chunks(TICK_PAIRS)
            .flat_map_iter(|chunk| {
                ticker.tick(chunk.len() as u64);
                chunk.iter().filter_map(|&(i, j)| {
                    let (sa, sb) = (
                        signatures[i as usize].as_ref()?,
                        signatures[j as usize].as_ref()?,
                    );
                    keep(i, j, this.score_within(sa, sb, scale)?)
                })
            })
            .collect(),
    }
}

/// Holds `kept` to the pairs of pages `pair_budget` bytes hold, raising
/// `scale`'s floor when it must; returns the note saying so.
fn fit_pair_budget(
    kept: &mut Vec<Kept>,
    collapsed: &Collapsed,
    scale: &mut ScoreScale,
    pair_budget: usize,
    gated: bool,
) -> Option<String> {
    let weight = |i: u32| collapsed.weight(i);
    let pair_bytes = std::mem::size_of::<ScoredPair>()
        + if gated {
            std::mem::size_of::<GateScores>()
        } else {
            0
        };
    let max_pairs = (pair_budget / pair_bytes).max(1) as u64;
    let within_floor: u64 = kept.iter().map(|k| weight(k.0) * weight(k.1)).sum();
    let floor = fit_budget(kept, weight, scale, max_pairs)?;
    // Pages with identical signatures are kept as groups, outside the
    // budget: their pairs are kept too, and the note counts them.
    let inside_groups: u64 = collapsed
        .groups
        .iter()
        .map(|g| g.len() as u64 * (g.len() as u64).saturating_sub(1) / 2)
        .sum();
    let best = kept.iter().map(|k| weight(k.0) * weight(k.1)).sum::<u64>();
    let note = format!(
        "pair budget of {} MB reached: {} pairs scored within the floor {}, {} kept \
         ({inside_groups} inside groups of identical pages, then the best {best}); the floor is now {}",
        pair_budget >> 20,
        within_floor + inside_groups,
        scale.floor,
        best + inside_groups,
        (floor * 1e4).round() / 1e4
    );
    scale.floor = floor;
    Some(note)
}

/// The scored pairs of pages, sorted and distinct, and their gate scores
/// (none without gates): each kept pair of representatives stands for
/// every pair of the pages they stand for.
fn expand_pairs(
    kept: Vec<Kept>,
    collapsed: &Collapsed,
    docs: &[Document],
    gated: bool,
) -> (Vec<ScoredPair>, Vec<GateScores>) {
    let expand = |&(i, j, score, gate_scores): &Kept| {
        collapsed.members(i).flat_map(move |x| {
            collapsed.members(j).map(move |y| {
                let (a, b) = (docs[x as usize].page, docs[y as usize].page);
                let pair = ScoredPair {
                    a: a.min(b),
                    b: a.max(b),
                    score,
                };
                (pair, gate_scores)
            })
        })
    };
    if !gated {
        // Without gates only the pairs are held: the budget counted
        // them alone.
        let mut pairs: Vec<ScoredPair> = kept
            .par_iter()
            .flat_map_iter(|k| expand(k).map(|(p, _)| p))
            .collect();
        drop(kept);
        pairs.par_sort_unstable_by_key(|p| (p.a, p.b));
        pairs.dedup_by_key(|p| (p.a, p.b));
        (pairs, Vec::new())
    } else {
        let mut expanded: Vec<(ScoredPair, GateScores)> =
            kept.par_iter().flat_map_iter(expand).collect();
        drop(kept);
        expanded.par_sort_unstable_by_key(|(p, _)| (p.a, p.b));
        expanded.dedup_by_key(|(p, _)| (p.a, p.b));
        expanded.into_iter().unzip()
    }
}

/// The groups of pages with identical signatures, by their first page,
/// each scored as its representative against itself.
fn page_groups<D: Detector>(
    this: &D,
    collapsed: &Collapsed,
    signatures: &[Option<D::Signature>],
    docs: &[Document],
    gated: bool,
) -> Vec<PageGroup> {
    let mut groups: Vec<PageGroup> = collapsed
        .groups
        .iter()
        .map(|members| {
            let sig = signatures[members[0] as usize]
                .as_ref()
                .expect("a representative keeps its signature");
            let mut pages: Vec<u32> = members.iter().map(|&m| docs[m as usize].page).collect();
            pages.sort_unstable();
            PageGroup {
                pages,
                score: this.score(sig, sig),
                gate_scores: gate_scores_of(this, gated, sig, sig),
            }
        })
        .collect();
    groups.sort_unstable_by_key(|g| g.pages[0]);
    groups
}
