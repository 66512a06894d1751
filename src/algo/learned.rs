//! A learned judge: the candidate pairs of several algorithms, each pair
//! described by what every method measures of it (Jaccard on words and
//! on characters, containment both ways, SimHash distance, shared I-Match
//! signatures, the semantic method's similarities, length ratio, same
//! host), judged by a logistic regression fitted on a labelled corpus.
//!
//! Logistic regression, not boosted trees: its probability is a smooth
//! function of the features, so a threshold tuned on one corpus moves
//! predictably on another, and each feature's share of a decision is its
//! weight times its standardised value, which the inspector shows. The
//! fit is linfa's (L-BFGS from zero weights: deterministic, no seed).
//!
//! A feature a pair cannot have (I-Match signs no page with too few
//! lexicon terms; the semantic method reads Chinese pages; a page without
//! a URL has no host) is NaN, read as the training mean (so it adds
//! nothing to the log-odds), with an indicator feature set to 1: a model
//! trained where a feature was always present still judges pairs that
//! lack it by the rest, instead of reading "missing" as "dissimilar".

pub mod folds;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::imatch::{IMatch, IMatchSignature, ImatchConfig};
use super::semantic::{Semantic, SemanticSignature};
use super::settings::{invalid, similarity_grid, similarity_thresholds, with_threshold};
use super::settings::{AlgorithmSettings, Checked};
use super::shingling::config::MinhashConfig;
use super::shingling::{ExactJaccard, MinHash, MinHashSketch};
use super::simhash::config::SimhashConfig;
use super::simhash::SimHash;
use super::{Algorithm, Detector, Direction, Document, ScoreScale};
use crate::text::cilin::Cilin;
use crate::text::shingle::{shingle_hashes, token_hash, ShingleSet};
use crate::text::tokenize::each_char_ngram;
use crate::text::Lang;
use crate::util::io::FileError;

/// Word shingles' width and characters per character n-gram.
const WORD_WIDTH: usize = 3;
const CHAR_NGRAM: usize = 3;
/// I-Match with extra lexicons, so that "shared signatures" is a grade.
const IMATCH_LEXICONS: usize = 10;

/// The features, in the order of a model's weights.
pub const FEATURES: [&str; 16] = [
    "jaccard_words",
    "jaccard_chars",
    "containment_of_smaller",
    "containment_of_larger",
    "simhash_distance",
    "imatch_shared",
    "imatch_missing",
    "semantic_topic",
    "semantic_missing",
    "semantic_title",
    "title_missing",
    "semantic_subtitle",
    "subtitle_missing",
    "length_ratio",
    "same_host",
    "host_missing",
];

pub type Features = [f64; FEATURES.len()];

/// An algorithm whose candidate stage the learned judge takes in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    Minhash,
    Simhash,
    Jaccard,
    Imatch,
    Semantic,
}

#[derive(Debug, thiserror::Error)]
pub enum LearnedError {
    #[error(transparent)]
    Io(#[from] FileError),
    #[error("{}: {message}", path.display())]
    Model { path: PathBuf, message: String },
    #[error("cannot train: {0}")]
    Train(String),
}

/// A fitted model as saved by `neardup train`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Model {
    /// Feature names, in the order of `mean`, `scale` and `weights`.
    pub features: Vec<String>,
    /// Standardisation: each feature minus its training mean, over its
    /// training standard deviation (1 where it did not vary).
    pub mean: Vec<f64>,
    pub scale: Vec<f64>,
    pub weights: Vec<f64>,
    pub intercept: f64,
    /// Where it was fitted, for the record.
    pub trained_on: String,
    pub candidates_from: Vec<Source>,
    pub pairs: u64,
    pub positives: u64,
}

impl Model {
    pub fn read(path: &Path) -> Result<Model, LearnedError> {
        let text = crate::util::io::read_to_string(path)?;
        let bad = |message: String| LearnedError::Model {
            path: path.to_path_buf(),
            message,
        };
        let model: Model = serde_json::from_str(&text)
            .map_err(|e| bad(format!("line {} column {}: {e}", e.line(), e.column())))?;
        if model.features != FEATURES {
            return Err(bad(format!(
                "`features` are {:?}; this version computes {:?} (train the model again)",
                model.features, FEATURES
            )));
        }
        for (key, values) in [
            ("mean", &model.mean),
            ("scale", &model.scale),
            ("weights", &model.weights),
        ] {
            if values.len() != FEATURES.len() {
                return Err(bad(format!(
                    "`{key}` has {} values, not {}",
                    values.len(),
                    FEATURES.len()
                )));
            }
            if let Some(j) = values.iter().position(|v| !v.is_finite()) {
                return Err(bad(format!("`{key}[{j}]` is not a finite number")));
            }
        }
        if let Some(j) = model.scale.iter().position(|&s| s <= 0.0) {
            return Err(bad(format!("`scale[{j}]` must be above 0")));
        }
        if !model.intercept.is_finite() {
            return Err(bad("`intercept` is not a finite number".into()));
        }
        Ok(model)
    }

    pub fn write(&self, path: &Path) -> Result<(), LearnedError> {
        let io = |source| LearnedError::Io(FileError::new(path, source));
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let text = serde_json::to_string_pretty(self).expect("a model serialises");
        Ok(crate::util::io::write_atomic(
            path,
            (text + "\n").as_bytes(),
        )?)
    }

    /// Each feature's share of the log-odds: weight times standardised
    /// value.
    fn contributions(&self, x: &Features) -> Features {
        let mut out = [0.0; FEATURES.len()];
        for j in 0..FEATURES.len() {
            if !x[j].is_nan() {
                out[j] = self.weights[j] * (x[j] - self.mean[j]) / self.scale[j];
            }
        }
        out
    }

    pub fn probability(&self, x: &Features) -> f64 {
        let z: f64 = self.intercept + self.contributions(x).iter().sum::<f64>();
        1.0 / (1.0 + (-z).exp())
    }
}

/// A page as the judge sees it.
#[derive(Debug, Clone)]
pub struct LearnedSignature {
    words: ShingleSet,
    chars: Vec<u64>,
    tokens: usize,
    simhash: Option<u128>,
    imatch: Option<IMatchSignature>,
    semantic: Option<SemanticSignature>,
    sketch: Option<MinHashSketch>,
    host: Option<Arc<str>>,
    /// The page, when the judge scores out of fold (the model depends on
    /// the pages' folds).
    page: Option<u32>,
}

#[derive(Debug, Clone)]
pub struct Learned {
    pub model: Option<Arc<Model>>,
    /// The model file's stem, in the label: two entries judging with
    /// different models must not share a label (their rows would merge
    /// in results.csv and judged.csv).
    pub model_name: Option<String>,
    pub sources: Vec<Source>,
    pub floor: f64,
    /// Out-of-fold scoring: the fold count and the labels to fit on when
    /// the run's documents arrive.
    pub cross_validate: Option<(usize, Option<Arc<Labels>>)>,
    /// Fitted by `fit` when cross-validating, or why not.
    fold_models: Option<Result<Arc<folds::FoldModels>, String>>,
    minhash: MinHash,
    jaccard: ExactJaccard,
    simhash: SimHash,
    imatch: IMatch,
    semantic: Option<Semantic>,
}

impl Learned {
    /// `semantic`: compute the semantic method's features on Chinese
    /// pages.
    pub fn new(
        model: Option<Arc<Model>>,
        sources: Vec<Source>,
        semantic: bool,
        floor: f64,
    ) -> Self {
        let imatch = ImatchConfig::default();
        Learned {
            model,
            model_name: None,
            floor,
            cross_validate: None,
            fold_models: None,
            minhash: MinhashConfig::default().detector(),
            jaccard: ExactJaccard::new(
                WORD_WIDTH,
                MinhashConfig::default().floor,
                crate::algo::shingling::DEFAULT_MAX_DF,
                crate::algo::shingling::SetScore::Jaccard,
            ),
            simhash: SimhashConfig::default().detector(None),
            imatch: IMatch::new(
                None,
                imatch.band(),
                imatch.min_df,
                imatch.stop_words,
                imatch.min_terms,
                IMATCH_LEXICONS,
                imatch.drop,
            ),
            semantic: (semantic || sources.contains(&Source::Semantic))
                .then(|| Semantic::new(Cilin::embedded())),
            sources,
        }
    }

    /// The feature vector of two signed pages.
    pub fn features(&self, a: &LearnedSignature, b: &LearnedSignature) -> Features {
        let shared = intersection(&a.words, &b.words) as f64;
        let (small, large) = {
            let (x, y) = (a.words.len() as f64, b.words.len() as f64);
            (x.min(y).max(1.0), x.max(y).max(1.0))
        };
        let union = (a.words.len() + b.words.len()) as f64 - shared;
        let chars_shared = intersection(&a.chars, &b.chars) as f64;
        let chars_union = (a.chars.len() + b.chars.len()) as f64 - chars_shared;
        let ratio = |x: f64, y: f64| if y > 0.0 { x / y } else { 0.0 };
        let distance = match (a.simhash, b.simhash) {
            (Some(x), Some(y)) => f64::from((x ^ y).count_ones()) / f64::from(self.simhash.bits),
            _ => f64::NAN,
        };
        let (imatch, imatch_missing) = match (&a.imatch, &b.imatch) {
            (Some(x), Some(y)) => (
                f64::from(self.imatch.score(x, y)) / (IMATCH_LEXICONS + 1) as f64,
                0.0,
            ),
            _ => (f64::NAN, 1.0),
        };
        let missing = |v: f64| (v, f64::from(u8::from(v.is_nan())));
        let [topic, title, subtitle] = match (&self.semantic, &a.semantic, &b.semantic) {
            (Some(m), Some(x), Some(y)) => {
                let [title, subtitle] = m.hierarchy_scores(x, y);
                [
                    missing(super::semantic::topic_similarity(
                        &x.topics,
                        &y.topics,
                        m.aggregate,
                    )),
                    missing(title),
                    missing(subtitle),
                ]
            }
            _ => [(f64::NAN, 1.0); 3],
        };
        let (same_host, host_missing) = match (&a.host, &b.host) {
            (Some(x), Some(y)) => (f64::from(u8::from(x == y)), 0.0),
            _ => (f64::NAN, 1.0),
        };
        let lengths = (a.tokens.min(b.tokens) as f64, a.tokens.max(b.tokens) as f64);
        [
            ratio(shared, union),
            ratio(chars_shared, chars_union),
            shared / small,
            shared / large,
            distance,
            imatch,
            imatch_missing,
            topic.0,
            topic.1,
            title.0,
            title.1,
            subtitle.0,
            subtitle.1,
            ratio(lengths.0, lengths.1),
            same_host,
            host_missing,
        ]
    }
}

impl Learned {
    /// The model that judges a pair: out of fold, the one that saw
    /// neither page.
    fn model_for(&self, a: &LearnedSignature, b: &LearnedSignature) -> Option<&Model> {
        match (&self.fold_models, a.page, b.page) {
            (Some(Ok(m)), Some(x), Some(y)) => Some(m.model_for(x, y)),
            (Some(_), _, _) => None,
            _ => self.model.as_deref(),
        }
    }

    fn fit_folds(
        &self,
        docs: &[Document],
        k: usize,
        labels: Option<&Labels>,
    ) -> Result<Arc<folds::FoldModels>, String> {
        let labels = labels.ok_or("the run has no labels to fit on")?;
        let pages = docs.iter().map(|d| d.page as usize + 1).max().unwrap_or(0);
        let pages = match labels {
            Labels::Clusters(c) => pages.max(c.len()),
            Labels::Judged(_) => pages,
        };
        let rows = self.labelled_rows(docs, labels);
        let config = LearnedConfig {
            candidates_from: self.sources.clone(),
            ..LearnedConfig::default()
        };
        folds::train_folds(&config, &rows, pages, k, "this corpus")
            .map(Arc::new)
            .map_err(|e| e.to_string())
    }
}

/// A URL's host (lower-cased by the parser), for the same-host feature.
pub fn host_of(url: &str) -> Option<Arc<str>> {
    url::Url::parse(url).ok()?.host_str().map(Arc::from)
}

/// Elements two sorted sets share.
fn intersection(a: &[u64], b: &[u64]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

/// One part of every signature, `None` where a page lacks it, for a
/// source's own candidate search.
fn part<T: Clone + Send>(
    signatures: &[Option<LearnedSignature>],
    get: impl Fn(&LearnedSignature) -> Option<&T> + Sync,
) -> Vec<Option<T>> {
    signatures
        .par_iter()
        .map(|s| s.as_ref().and_then(|s| get(s).cloned()))
        .collect()
}

impl Detector for Learned {
    type Signature = LearnedSignature;

    fn name(&self) -> &'static str {
        "learned"
    }

    fn label(&self) -> String {
        let sources: Vec<&str> = self
            .sources
            .iter()
            .map(|s| match s {
                Source::Minhash => "minhash",
                Source::Simhash => "simhash",
                Source::Jaccard => "jaccard",
                Source::Imatch => "imatch",
                Source::Semantic => "semantic",
            })
            .collect();
        match (&self.model_name, &self.cross_validate) {
            (_, Some((k, _))) => format!("learned({}; {k} folds)", sources.join("+")),
            (Some(model), None) => format!("learned({}; model {model})", sources.join("+")),
            (None, None) => format!("learned({})", sources.join("+")),
        }
    }

    fn scale(&self) -> ScoreScale {
        ScoreScale {
            name: "probability",
            direction: Direction::AtLeast,
            min: 0.0,
            max: 1.0,
            floor: self.floor,
        }
    }

    fn fit(&mut self, docs: &[Document]) -> bool {
        self.imatch.fit(docs);
        if let Some(semantic) = &mut self.semantic {
            // The semantic method reads Chinese: other pages stay out of
            // its analysis (their semantic features are missing).
            let zh: Vec<Document> = docs
                .iter()
                .filter(|d| d.lang == Lang::Zh)
                .cloned()
                .collect();
            semantic.fit(&zh);
        }
        if let Some((k, labels)) = &self.cross_validate {
            self.fold_models = Some(self.fit_folds(docs, *k, labels.as_deref()));
            if let Some(Err(why)) = &self.fold_models {
                eprintln!(
                    "warning: {}: {why}; every pair scores 0",
                    Detector::label(self)
                );
            }
        }
        true
    }

    fn shingle_widths(&self) -> Vec<usize> {
        let mut widths = vec![WORD_WIDTH];
        if self.sources.contains(&Source::Minhash) {
            widths.extend(Detector::shingle_widths(&self.minhash));
        }
        widths.sort_unstable();
        widths.dedup();
        widths
    }

    fn sign(&self, doc: &Document) -> Option<LearnedSignature> {
        let words = doc.tokens.shingles(WORD_WIDTH);
        if words.is_empty() {
            return None;
        }
        let mut grams = Vec::new();
        each_char_ngram(&doc.normalized_text(), CHAR_NGRAM, |g| {
            grams.push(token_hash(g))
        });
        let chars = shingle_hashes(&grams, 1);
        let sketch = self
            .sources
            .contains(&Source::Minhash)
            .then(|| self.minhash.sign(doc))
            .flatten();
        let semantic = self
            .semantic
            .as_ref()
            .filter(|_| doc.lang == Lang::Zh)
            .and_then(|m| m.sign(doc));
        Some(LearnedSignature {
            tokens: doc.tokens.len(),
            simhash: self.simhash.sign(doc),
            imatch: self.imatch.sign(doc),
            semantic,
            sketch,
            host: doc.host.clone(),
            page: self.cross_validate.is_some().then_some(doc.page),
            words,
            chars,
        })
    }

    fn candidates(&self, signatures: &[Option<LearnedSignature>]) -> Vec<(u32, u32)> {
        let mut all: Vec<(u32, u32)> = Vec::new();
        for source in &self.sources {
            all.extend(match source {
                Source::Minhash => self
                    .minhash
                    .candidates(&part(signatures, |s| s.sketch.as_ref())),
                Source::Simhash => self
                    .simhash
                    .candidates(&part(signatures, |s| s.simhash.as_ref())),
                Source::Jaccard => self
                    .jaccard
                    .candidates(&part(signatures, |s| Some(&s.words))),
                Source::Imatch => self
                    .imatch
                    .candidates(&part(signatures, |s| s.imatch.as_ref())),
                Source::Semantic => match &self.semantic {
                    Some(m) => m.candidates(&part(signatures, |s| s.semantic.as_ref())),
                    None => Vec::new(),
                },
            });
        }
        all.par_sort_unstable();
        all.dedup();
        all
    }

    /// Without a model (training) every pair scores 0.
    fn score(&self, a: &LearnedSignature, b: &LearnedSignature) -> f32 {
        self.model_for(a, b)
            .map_or(0.0, |m| m.probability(&self.features(a, b)) as f32)
    }

    /// Pages with the same sets, fingerprints, signatures and host score
    /// 1 against each other on every feature; the semantic signature has
    /// no key of its own, so Chinese pages carrying one are not grouped.
    fn signature_key(&self, s: &LearnedSignature) -> Option<u128> {
        if s.semantic.is_some() {
            return None;
        }
        Some(super::hash_key(|h| {
            for set in [&s.words[..], &s.chars[..]] {
                h.update(&(set.len() as u64).to_le_bytes());
                set.iter().for_each(|v| h.update(&v.to_le_bytes()));
            }
            h.update(&(s.tokens as u64).to_le_bytes());
            h.update(&s.simhash.unwrap_or(0).to_le_bytes());
            h.update(&[u8::from(s.simhash.is_some())]);
            for d in s.imatch.iter().flatten() {
                h.update(&[u8::from(d.is_some())]);
                h.update(&d.unwrap_or_default());
            }
            if let Some(sketch) = &s.sketch {
                h.update(&sketch.key().to_le_bytes());
            }
            h.update(s.host.as_deref().unwrap_or("\u{0}").as_bytes());
            // Out of fold, the model depends on the page's fold.
            if let (Some(page), Some(Ok(m))) = (s.page, &self.fold_models) {
                h.update(&[m.page_fold[page as usize]]);
            }
        }))
    }

    fn describe(&self) -> Vec<String> {
        if let Some((k, _)) = &self.cross_validate {
            return vec![match &self.fold_models {
                Some(Ok(m)) => format!(
                    "logistic regression over {} features, scored out of fold: {k} folds of pages, each pair by the model that saw neither page ({} models)",
                    FEATURES.len(),
                    m.folds * (m.folds + 1) / 2
                ),
                Some(Err(why)) => format!("no model ({why}): every pair scores 0"),
                None => "not fitted yet: every pair scores 0".into(),
            }];
        }
        match &self.model {
            Some(m) => vec![format!(
                "logistic regression trained on {} ({} candidate pairs, {} duplicates) over {} features",
                m.trained_on,
                m.pairs,
                m.positives,
                FEATURES.len()
            )],
            None => vec!["no model: every pair scores 0".into()],
        }
    }

    /// The probability, then each feature's value and its share of the
    /// log-odds (weight times standardised value), one per line, the
    /// largest shares first; the smallest summed on the last line.
    fn explain(&self, a: &LearnedSignature, b: &LearnedSignature) -> Option<String> {
        const SHOWN: usize = 6;
        let model = self.model_for(a, b)?;
        let x = self.features(a, b);
        let c = model.contributions(&x);
        let mut order: Vec<usize> = (0..FEATURES.len()).collect();
        order.sort_by(|&i, &j| c[j].abs().total_cmp(&c[i].abs()).then(i.cmp(&j)));
        let mut lines = vec![format!(
            "p {:.3}: intercept {:+.2}",
            model.probability(&x),
            model.intercept
        )];
        lines.extend(order[..SHOWN].iter().map(|&j| match x[j] {
            v if v.is_nan() => format!("{} missing: +0", FEATURES[j]),
            v => format!("{} {v:.3}: {:+.2}", FEATURES[j], c[j]),
        }));
        let rest: f64 = order[SHOWN..].iter().map(|&j| c[j]).sum();
        lines.push(format!("{} others: {rest:+.2}", FEATURES.len() - SHOWN));
        Some(lines.join("\n"))
    }
}

/// The learned judge's entry in an experiment file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LearnedConfig {
    /// The model file (JSON, from `neardup train`), relative to the
    /// experiment file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Whose candidate stages (at their defaults) are taken in, united.
    pub candidates_from: Vec<Source>,
    /// The semantic method's similarities as features on Chinese pages.
    pub semantic: bool,
    /// Probability at or above which a pair is a duplicate.
    pub threshold: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grid: Option<Vec<f64>>,
    /// Least probability stored.
    pub floor: f64,
    /// Instead of a model: fit on the run's own corpus by K-fold
    /// cross-validation over its pages, each pair scored by a model that
    /// saw neither of its pages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub folds: Option<usize>,
    /// The model read from `model` when the experiment loaded.
    #[serde(skip)]
    pub loaded: Option<Arc<Model>>,
    /// The corpus's labels, for `folds`, given before the run.
    #[serde(skip)]
    pub labels: Option<Arc<Labels>>,
}

impl Default for LearnedConfig {
    fn default() -> Self {
        LearnedConfig {
            model: None,
            candidates_from: vec![Source::Minhash, Source::Simhash],
            semantic: true,
            threshold: 0.5,
            grid: None,
            floor: 0.01,
            folds: None,
            loaded: None,
            labels: None,
        }
    }
}

impl LearnedConfig {
    fn listed_grid(&self) -> Vec<f64> {
        self.grid
            .clone()
            .unwrap_or_else(|| similarity_grid(self.floor))
    }

    /// The detector without a model, for training.
    pub fn untrained(&self) -> Learned {
        Learned::new(
            None,
            self.candidates_from.clone(),
            self.semantic,
            self.floor,
        )
    }

    /// Reads `model`, resolved against `dir`.
    pub fn load_model(&mut self, dir: &Path) -> Result<(), LearnedError> {
        if let Some(named) = &self.model {
            self.loaded = Some(Arc::new(Model::read(&dir.join(named))?));
        }
        Ok(())
    }
}

impl AlgorithmSettings for LearnedConfig {
    fn validate(&self) -> Checked {
        if self.candidates_from.is_empty() {
            return Err(invalid(
                "candidates_from",
                "name at least one of minhash, simhash, jaccard, imatch, semantic",
            ));
        }
        for (j, s) in self.candidates_from.iter().enumerate() {
            if self.candidates_from[..j].contains(s) {
                return Err(invalid(format!("candidates_from[{j}]"), "is listed twice"));
            }
        }
        match (self.folds, &self.model) {
            (Some(k), _) if k < 3 => {
                return Err(invalid(
                    "folds",
                    "must be at least 3 (a pair across two folds is judged by a model trained without both)",
                ))
            }
            (Some(_), Some(_)) => {
                return Err(invalid(
                    "folds",
                    "fits its own models: give `folds` or `model`, not both",
                ))
            }
            _ => {}
        }
        similarity_thresholds(self.floor, self.threshold, &self.listed_grid())
    }

    fn build(&self, _reference: Option<Arc<Vec<Document>>>) -> Box<dyn Algorithm> {
        let mut learned = self.untrained();
        learned.model = self.loaded.clone();
        learned.cross_validate = self.folds.map(|k| (k, self.labels.clone()));
        learned.model_name = self.model.as_ref().map(|named| {
            Path::new(named)
                .file_stem()
                .map_or_else(|| named.clone(), |s| s.to_string_lossy().into_owned())
        });
        Box::new(learned)
    }

    fn threshold(&self) -> f64 {
        self.threshold
    }

    fn grid(&self) -> Vec<f64> {
        with_threshold(&self.listed_grid(), self.threshold)
    }

    fn tune(&mut self, threshold: f64, _gates: &[f64]) {
        self.threshold = threshold;
    }
}

/// What a model learns from: each page's cluster (every candidate pair of
/// the sources is a row, a duplicate when its pages share a cluster), or
/// judged page pairs (each judged pair is a row, whether or not a source
/// finds it, a duplicate when judged so).
#[derive(Debug, Clone, PartialEq)]
pub enum Labels {
    /// Per page, a dense cluster id.
    Clusters(Vec<u32>),
    /// `(a, b, duplicate)` by page index.
    Judged(Vec<(u32, u32, bool)>),
}

impl Labels {
    /// Duplicate pairs of the truth whose pages both satisfy `keep`,
    /// found by the sources or not: the recall's denominator.
    pub fn positives_where(&self, keep: impl Fn(u32) -> bool) -> u64 {
        match self {
            Labels::Clusters(cluster) => {
                let mut sizes: std::collections::HashMap<u32, u64> = Default::default();
                for (page, c) in cluster.iter().enumerate() {
                    if keep(page as u32) {
                        *sizes.entry(*c).or_default() += 1;
                    }
                }
                sizes.values().map(|n| n * n.saturating_sub(1) / 2).sum()
            }
            Labels::Judged(pairs) => pairs
                .iter()
                .filter(|&&(a, b, dup)| dup && keep(a) && keep(b))
                .count() as u64,
        }
    }
}

impl Labels {
    /// Duplicate pairs of the truth with at least one page satisfying
    /// `touch`.
    pub fn positives_touching(&self, touch: impl Fn(u32) -> bool) -> u64 {
        match self {
            // All pairs of each cluster, less those with neither page.
            Labels::Clusters(_) => {
                self.positives_where(|_| true) - self.positives_where(|p| !touch(p))
            }
            Labels::Judged(pairs) => pairs
                .iter()
                .filter(|&&(a, b, dup)| dup && (touch(a) || touch(b)))
                .count() as u64,
        }
    }
}

/// The pairs a model is fitted on or judged by, with their features.
#[derive(Debug, Clone, Default)]
pub struct LabelledRows {
    /// Page indices, `a < b`.
    pub pages: Vec<(u32, u32)>,
    pub features: Vec<Features>,
    pub duplicate: Vec<bool>,
}

impl LabelledRows {
    pub fn len(&self) -> usize {
        self.pages.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pages.is_empty()
    }

    pub fn positives(&self) -> u64 {
        self.duplicate.iter().filter(|&&d| d).count() as u64
    }
}

impl Learned {
    /// Signs `docs` (after fitting on them) and describes every labelled
    /// pair: the sources' candidates with clusters, the judged pairs
    /// whose two pages have a signature with judged pairs.
    pub fn labelled_rows(&self, docs: &[Document], labels: &Labels) -> LabelledRows {
        let signatures: Vec<Option<LearnedSignature>> =
            docs.par_iter().map(|d| self.sign(d)).collect();
        let pairs: Vec<(usize, usize, bool)> = match labels {
            Labels::Clusters(cluster) => self
                .candidates(&signatures)
                .into_iter()
                .map(|(i, j)| {
                    let (i, j) = (i as usize, j as usize);
                    let same = cluster[docs[i].page as usize] == cluster[docs[j].page as usize];
                    (i, j, same)
                })
                .collect(),
            Labels::Judged(judged) => {
                let mut doc_of =
                    vec![usize::MAX; docs.iter().map(|d| d.page as usize + 1).max().unwrap_or(0)];
                for (i, d) in docs.iter().enumerate() {
                    doc_of[d.page as usize] = i;
                }
                let doc = |page: u32| {
                    doc_of
                        .get(page as usize)
                        .copied()
                        .filter(|&i| i != usize::MAX)
                };
                judged
                    .iter()
                    .filter_map(|&(a, b, dup)| Some((doc(a)?, doc(b)?, dup)))
                    .collect()
            }
        };
        let described: Vec<((u32, u32), Features, bool)> = pairs
            .par_iter()
            .filter_map(|&(i, j, dup)| {
                let (a, b) = (signatures[i].as_ref()?, signatures[j].as_ref()?);
                let (p, q) = (docs[i].page, docs[j].page);
                Some(((p.min(q), p.max(q)), self.features(a, b), dup))
            })
            .collect();
        let mut rows = LabelledRows::default();
        for (pages, features, dup) in described {
            rows.pages.push(pages);
            rows.features.push(features);
            rows.duplicate.push(dup);
        }
        rows
    }
}

/// What `neardup train` fitted, with the figures it prints.
pub struct Trained {
    pub model: Model,
    /// Rows that are duplicates by the labels, of all the truth's
    /// duplicate pairs.
    pub recall_of_candidates: (u64, u64),
}

/// Fits the judge's model on `docs` (one labelled corpus): every
/// labelled row (see [`Learned::labelled_rows`]).
pub fn train(
    config: &LearnedConfig,
    docs: &[Document],
    labels: &Labels,
    trained_on: &str,
) -> Result<Trained, LearnedError> {
    let mut learned = config.untrained();
    learned.fit(docs);
    let rows = learned.labelled_rows(docs, labels);
    let all: Vec<usize> = (0..rows.len()).collect();
    let model = fit_model(config, &rows, &all, trained_on)?;
    Ok(Trained {
        recall_of_candidates: (model.positives, labels.positives_where(|_| true)),
        model,
    })
}

/// A logistic regression fitted on `rows[chosen]`.
pub fn fit_model(
    config: &LearnedConfig,
    rows: &LabelledRows,
    chosen: &[usize],
    trained_on: &str,
) -> Result<Model, LearnedError> {
    use linfa::prelude::*;
    use linfa_logistic::LogisticRegression;

    let positives = chosen.iter().filter(|&&r| rows.duplicate[r]).count() as u64;
    if positives == 0 || positives == chosen.len() as u64 {
        return Err(LearnedError::Train(format!(
            "the {} pairs are all {}: a model needs both duplicates and non-duplicates",
            chosen.len(),
            if positives == 0 {
                "non-duplicates"
            } else {
                "duplicates"
            }
        )));
    }
    // Mean and standard deviation over the pairs that have each feature;
    // a missing value standardises to 0, the mean.
    let mut mean = vec![0.0; FEATURES.len()];
    let mut scale = vec![1.0; FEATURES.len()];
    for j in 0..FEATURES.len() {
        let present: Vec<f64> = chosen
            .iter()
            .map(|&r| rows.features[r][j])
            .filter(|v| !v.is_nan())
            .collect();
        if present.is_empty() {
            continue;
        }
        let n = present.len() as f64;
        mean[j] = present.iter().sum::<f64>() / n;
        let var = present.iter().map(|v| (v - mean[j]).powi(2)).sum::<f64>() / n;
        if var > 1e-12 {
            scale[j] = var.sqrt();
        }
    }
    let records =
        ndarray::Array2::from_shape_fn((chosen.len(), FEATURES.len()), |(r, j)| {
            match rows.features[chosen[r]][j] {
                v if v.is_nan() => 0.0,
                v => (v - mean[j]) / scale[j],
            }
        });
    let targets = ndarray::Array1::from_iter(chosen.iter().map(|&r| rows.duplicate[r]));
    let dataset = Dataset::new(records, targets);
    let fitted = LogisticRegression::default()
        .alpha(1.0)
        .max_iterations(500)
        .fit(&dataset)
        .map_err(|e| LearnedError::Train(e.to_string()))?;
    // linfa orders the two labels itself; the probability it models is
    // that of its positive class.
    let sign = if fitted.labels().pos.class { 1.0 } else { -1.0 };
    Ok(Model {
        features: FEATURES.iter().map(|s| s.to_string()).collect(),
        mean,
        scale,
        weights: fitted.params().iter().map(|w| sign * w).collect(),
        intercept: sign * fitted.intercept(),
        trained_on: trained_on.to_string(),
        candidates_from: config.candidates_from.clone(),
        pairs: chosen.len() as u64,
        positives,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::TokenizerConfig;

    fn docs(texts: &[&str]) -> Vec<Document> {
        texts
            .iter()
            .enumerate()
            .map(|(i, t)| Document::new(i as u32, t, Some(Lang::En), &TokenizerConfig::default()))
            .collect()
    }

    #[test]
    fn containment_sees_a_page_inside_a_longer_one() {
        let short = "the council approved the new budget for the city schools on monday evening after a long debate";
        let long = format!("{short} and in other news the weather will be cold and wet for the rest of the week across the region");
        let d = docs(&[short, &long]);
        let mut learned = LearnedConfig::default().untrained();
        learned.fit(&d);
        let (a, b) = (learned.sign(&d[0]).unwrap(), learned.sign(&d[1]).unwrap());
        let x = learned.features(&a, &b);
        assert_eq!(
            x.map(f64::to_bits),
            learned.features(&b, &a).map(f64::to_bits),
            "features are symmetric"
        );
        assert_eq!(x[2], 1.0, "the short page is inside the long one");
        assert!(x[0] < 0.6 && x[3] < 0.6, "{x:?}");
        assert!(x[14].is_nan() && x[15] == 1.0, "no URLs: host missing");
        assert!(
            x[7].is_nan() && x[8] == 1.0,
            "English: no semantic features"
        );
        // A missing feature adds nothing to the log-odds.
        let model = Model {
            features: FEATURES.iter().map(|s| s.to_string()).collect(),
            mean: vec![0.5; FEATURES.len()],
            scale: vec![0.5; FEATURES.len()],
            weights: vec![2.0; FEATURES.len()],
            intercept: 0.0,
            trained_on: "test".into(),
            candidates_from: vec![Source::Minhash],
            pairs: 1,
            positives: 1,
        };
        let c = model.contributions(&x);
        assert_eq!((c[7], c[14]), (0.0, 0.0));
        assert_eq!(c[2], 2.0 * (1.0 - 0.5) / 0.5);
    }

    #[test]
    fn training_learns_that_overlap_means_duplicate_and_is_deterministic() {
        let base = [
            "markets fell sharply today as investors worried about rising interest rates and slowing growth in europe",
            "the football club signed a young striker from brazil for a record fee ahead of the new season",
            "scientists found water ice near the moon's south pole which could help future missions stay longer",
            "heavy rain flooded roads in the north of the country and schools were closed for two days",
        ];
        let mut texts: Vec<String> = Vec::new();
        let mut cluster = Vec::new();
        for (c, t) in base.iter().enumerate() {
            texts.push(t.to_string());
            cluster.push(c as u32);
            texts.push(format!("{t} reporting by our staff"));
            cluster.push(c as u32);
        }
        // Same template, different story: a near miss for shingles.
        for (c, t) in base.iter().enumerate() {
            let swapped: Vec<&str> = t.split(' ').rev().collect();
            texts.push(swapped.join(" "));
            cluster.push(100 + c as u32);
        }
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let d = docs(&refs);
        // SimHash (word bags) finds the reversed stories, exact Jaccard the
        // reprints with a byline.
        let config = LearnedConfig {
            candidates_from: vec![Source::Simhash, Source::Jaccard],
            semantic: false,
            ..LearnedConfig::default()
        };
        let labels = Labels::Clusters(cluster);
        let once = train(&config, &d, &labels, "test").unwrap();
        let again = train(&config, &d, &labels, "test").unwrap();
        assert_eq!(once.model, again.model);
        let jaccard = FEATURES.iter().position(|f| *f == "jaccard_words").unwrap();
        assert!(once.model.weights[jaccard] > 0.0, "{:?}", once.model);
        let mut learned = config.untrained();
        learned.model = Some(Arc::new(once.model.clone()));
        learned.fit(&d);
        let s: Vec<LearnedSignature> = d.iter().map(|x| learned.sign(x).unwrap()).collect();
        assert!(learned.score(&s[0], &s[1]) > learned.score(&s[0], &s[8]));
        assert!(learned
            .explain(&s[0], &s[1])
            .unwrap()
            .contains("jaccard_words"));

        // The model survives its file.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.json");
        once.model.write(&path).unwrap();
        assert_eq!(Model::read(&path).unwrap(), once.model);
    }

    #[test]
    fn a_bad_model_file_names_the_file_and_what_is_wrong() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.json");
        std::fs::write(&path, "{\"features\": [").unwrap();
        let e = Model::read(&path).unwrap_err().to_string();
        assert!(e.contains("m.json") && e.contains("line 1"), "{e}");
        let model = Model {
            features: FEATURES.iter().map(|s| s.to_string()).collect(),
            mean: vec![0.0; FEATURES.len()],
            scale: vec![1.0; FEATURES.len()],
            weights: vec![0.0; FEATURES.len() - 1],
            intercept: 0.0,
            trained_on: "x".into(),
            candidates_from: vec![Source::Minhash],
            pairs: 1,
            positives: 1,
        };
        model.write(&path).unwrap();
        let e = Model::read(&path).unwrap_err().to_string();
        assert!(e.contains("`weights` has 15 values"), "{e}");
    }
}
