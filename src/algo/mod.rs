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
pub mod semantic;
pub mod settings;
pub mod shingling;
pub mod simhash;

use rayon::prelude::*;

use crate::corpus::Lang;
use crate::eval::throughput::{Stage, StageClock};
use crate::extract::structure::DocumentStructure;
use crate::text::lang::detect_lang;
use crate::text::{tokenize, TokenizerConfig, Tokens};

/// A page as the algorithms see it: extracted, normalised and tokenised.
#[derive(Debug, Clone)]
pub struct Document {
    /// Index of the page in the corpus (and in the evaluation's truth).
    pub page: u32,
    pub lang: Lang,
    pub tokens: Tokens,
    /// Title, subtitles, paragraphs and sentences, for the algorithms that
    /// read them (the semantic method); `None` when not extracted.
    pub structure: Option<std::sync::Arc<DocumentStructure>>,
}

impl Document {
    /// Page `page`'s text tokenised; its language is `lang`, or decided by
    /// script when the corpus does not say.
    pub fn new(page: u32, text: &str, lang: Option<Lang>, tokenizer: &TokenizerConfig) -> Self {
        let lang = lang.unwrap_or_else(|| detect_lang(text));
        Document {
            page,
            lang,
            tokens: tokenize(text, lang, tokenizer),
            structure: None,
        }
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
    /// Index pairs `(i, j)`, `i < j`, into `signatures`, each at most once,
    /// that may score within the floor.
    fn candidates(&self, signatures: &[Option<Self::Signature>]) -> Vec<(u32, u32)>;
    fn score(&self, a: &Self::Signature, b: &Self::Signature) -> f32;
    /// Candidate pairs already scored, for searches that compute the score
    /// on the way (an inverted index counts shared shingles); `None` to
    /// have [`Detector::candidates`] and [`Detector::score`] used instead.
    fn scored_candidates(
        &self,
        _signatures: &[Option<Self::Signature>],
    ) -> Option<Vec<(u32, u32, f32)>> {
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
    /// Sorted by (a, b), within the floor.
    pub pairs: Vec<ScoredPair>,
    /// Candidate pairs before the floor was applied.
    pub candidates: usize,
    /// Those pairs as page indices `(a, b)`, `a < b`, sorted, so that the
    /// evaluator can tell what the candidate stage alone loses and the
    /// inspector whether an unstored pair was a candidate.
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
}

impl AlgorithmRun {
    /// Whether the candidate stage proposed pages `a < b`.
    pub fn was_candidate(&self, a: u32, b: u32) -> bool {
        self.candidate_pairs.binary_search(&(a, b)).is_ok()
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
}

/// The object-safe face of a [`Detector`], so that an experiment can hold
/// algorithms of different signature types in one list.
pub trait Algorithm: Send + Sync {
    fn name(&self) -> &'static str;
    fn label(&self) -> String;
    fn scale(&self) -> ScoreScale;
    /// `variant` names the input in throughput records (e.g. the extraction).
    fn run(&mut self, docs: &[Document], variant: &str, clock: &mut StageClock) -> AlgorithmRun;
    /// [`Detector::explain`] for two pages, signed afresh (for detectors
    /// that sign without fitting to the collection).
    fn explain_pair(&self, a: &Document, b: &Document) -> Option<String>;
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

    fn explain_pair(&self, a: &Document, b: &Document) -> Option<String> {
        self.explain(&self.sign(a)?, &self.sign(b)?)
    }

    fn run(&mut self, docs: &[Document], variant: &str, clock: &mut StageClock) -> AlgorithmRun {
        // The label, not the name: two MinHash set-ups must not share a row.
        let who = format!("{} [{variant}]", Detector::label(self));
        let started = clock.start();
        if self.fit(docs) {
            clock.stop(started, Stage::Fit, &who);
        }
        let this = &*self;
        let ticker = clock.begin(&format!("sign {who}"), docs.len() as u64);
        let started = clock.start();
        let signatures: Vec<Option<D::Signature>> = docs
            .par_iter()
            .map(|d| {
                let s = this.sign(d);
                ticker.tick(1);
                s
            })
            .collect();
        clock.stop(started, Stage::Signature, &who);

        let _ = clock.begin(&format!("candidates {who}"), 0);
        let started = clock.start();
        let scored = this.scored_candidates(&signatures);
        let candidates: Vec<(u32, u32)> = match &scored {
            Some(scored) => scored.iter().map(|&(i, j, _)| (i, j)).collect(),
            None => this.candidates(&signatures),
        };
        clock.stop(started, Stage::Candidates, &who);
        let mut candidate_pairs: Vec<(u32, u32)> = candidates
            .iter()
            .map(|&(i, j)| {
                let (a, b) = (docs[i as usize].page, docs[j as usize].page);
                (a.min(b), a.max(b))
            })
            .collect();
        candidate_pairs.par_sort_unstable();
        candidate_pairs.dedup();

        let pairs_to_score = scored.as_ref().map_or(candidates.len(), Vec::len) as u64;
        let ticker = clock.begin(&format!("verify {who}"), pairs_to_score);
        let started = clock.start();
        let scale = this.scale();
        let gates = this.gates();
        assert!(
            gates.len() <= MAX_GATES,
            "a detector has at most {MAX_GATES} gates"
        );
        let keep = |i: u32, j: u32, score: f32| {
            ticker.tick(1);
            if !scale.passes(score, scale.floor) {
                return None;
            }
            let gate_scores = if gates.is_empty() {
                [f32::NAN; MAX_GATES]
            } else {
                this.gate_scores(
                    signatures[i as usize].as_ref()?,
                    signatures[j as usize].as_ref()?,
                )
            };
            let (a, b) = (docs[i as usize].page, docs[j as usize].page);
            Some((
                ScoredPair {
                    a: a.min(b),
                    b: a.max(b),
                    score,
                },
                gate_scores,
            ))
        };
        let mut kept: Vec<(ScoredPair, GateScores)> = match &scored {
            Some(scored) => scored
                .par_iter()
                .filter_map(|&(i, j, score)| keep(i, j, score))
                .collect(),
            None => candidates
                .par_iter()
                .filter_map(|&(i, j)| {
                    let (sa, sb) = (
                        signatures[i as usize].as_ref()?,
                        signatures[j as usize].as_ref()?,
                    );
                    keep(i, j, this.score(sa, sb))
                })
                .collect(),
        };
        kept.par_sort_unstable_by_key(|(p, _)| (p.a, p.b));
        kept.dedup_by_key(|(p, _)| (p.a, p.b));
        let (pairs, gate_scores): (Vec<ScoredPair>, Vec<GateScores>) = kept.into_iter().unzip();
        let gate_scores = if gates.is_empty() {
            Vec::new()
        } else {
            gate_scores
        };
        clock.stop(started, Stage::Verify, &who);

        AlgorithmRun {
            name: this.name(),
            label: this.label(),
            scale,
            pairs,
            candidates: candidates.len(),
            candidate_pairs,
            notes: this.describe(),
            unsigned: signatures
                .iter()
                .zip(docs)
                .filter(|(s, _)| s.is_none())
                .map(|(_, d)| d.page)
                .collect(),
            gates,
            gate_scores,
            banding: this.banding(),
        }
    }
}
