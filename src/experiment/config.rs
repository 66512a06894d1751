//! The experiment file: which corpus, which extraction and tokeniser, which
//! algorithms with which parameters and threshold grids.
//!
//! Unknown keys are errors (a misspelt `thershold` must not silently run
//! the default), and so are values out of range, named by their key path.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::algo::combined::Combined;
use crate::algo::exact::ExactHash;
use crate::algo::imatch::{IMatch, IdfBand};
use crate::algo::semantic::{Aggregate, Semantic, TopicCount};
use crate::algo::shingling::lsh::Banding;
use crate::algo::shingling::{CandidateSearch, ExactJaccard, MinHash, Sketching, Verify};
use crate::algo::simhash::tables::{Layout, LayoutError};
use crate::algo::simhash::{Features, SimHash, Weights};
use crate::algo::Document;
use crate::algo::{Algorithm, ScoreScale};
use crate::extract::Extraction;
use crate::text::cilin::Cilin;
use crate::text::{TokenKind, TokenizerConfig};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExperimentConfig {
    /// Names the report directory; defaults to the file's stem.
    #[serde(default)]
    pub name: Option<String>,
    /// A corpus path, relative to the experiment file, or `demo` for the
    /// corpus embedded in the binary.
    pub corpus: String,
    /// `main`, `full_text`, or a list of both to compare them in one run.
    #[serde(default, deserialize_with = "one_or_many")]
    pub extract: Vec<Extraction>,
    #[serde(default)]
    pub tokenizer: TokenizerConfig,
    pub algorithms: Vec<AlgorithmConfig>,
    /// The published figures this experiment reproduces, for the report.
    #[serde(default)]
    pub paper: Option<crate::report::paper::Paper>,
    /// A corpus builder file (relative to this file) that makes `corpus`
    /// when it does not exist yet, so that `neardup run` needs nothing else.
    #[serde(default)]
    pub build: Option<String>,
    /// `boilerplate: site`: blocks recurring across a host's pages are
    /// removed after extraction (see `extract::boilerplate`).
    #[serde(default)]
    pub boilerplate: Option<crate::extract::boilerplate::BoilerplateConfig>,
}

/// Accepts `extract: main` as well as `extract: [main, full_text]`.
fn one_or_many<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Extraction>, D::Error> {
    struct Visitor;
    impl<'de> serde::de::Visitor<'de> for Visitor {
        type Value = Vec<Extraction>;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("`main`, `full_text`, or a list of them")
        }

        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
            Extraction::deserialize(serde::de::value::StrDeserializer::<E>::new(v)).map(|e| vec![e])
        }

        fn visit_seq<A: serde::de::SeqAccess<'de>>(
            self,
            mut seq: A,
        ) -> Result<Self::Value, A::Error> {
            let mut out = Vec::new();
            while let Some(e) = seq.next_element()? {
                out.push(e);
            }
            Ok(out)
        }
    }
    d.deserialize_any(Visitor)
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AlgorithmConfig {
    Exact(ExactConfig),
    Simhash(SimhashConfig),
    Jaccard(JaccardConfig),
    Minhash(MinhashConfig),
    Imatch(ImatchConfig),
    Semantic(SemanticConfig),
    Combined(CombinedConfig),
}

/// Henzinger's (2006) combined algorithm: MinHash-LSH pairs whose
/// estimated Jaccard reaches `jaccard` (B-similar), judged by SimHash
/// Hamming distance (C-similar).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CombinedConfig {
    /// Shingle width and sketch size of the shingling half.
    pub width: usize,
    pub hashes: usize,
    /// Estimated Jaccard for B-similarity (a gate kept beside each pair).
    pub jaccard: f64,
    /// Broder's super-shingles instead of LSH chosen for `jaccard`:
    /// `bands` groups of `rows` min-hashes, `min_shared` of them agreeing
    /// (Henzinger's Alg. B: 6 x 14, 2).
    pub bands: Option<usize>,
    pub rows: Option<usize>,
    pub min_shared: Option<usize>,
    /// The SimHash half.
    pub features: Features,
    pub ngram: usize,
    pub weights: Weights,
    pub bits: u32,
    /// Hamming distance at or below which a B-similar pair is a duplicate.
    pub threshold: f64,
    pub grid: Vec<f64>,
    pub floor: u32,
}

impl Default for CombinedConfig {
    fn default() -> Self {
        CombinedConfig {
            width: 3,
            hashes: 128,
            jaccard: 0.5,
            bands: None,
            rows: None,
            min_shared: None,
            features: Features::Words,
            ngram: 2,
            weights: Weights::Tf,
            bits: 64,
            threshold: 3.0,
            grid: (0..=16).map(f64::from).collect(),
            floor: 16,
        }
    }
}

/// Seed 001's semantic topic-sentence method.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SemanticConfig {
    /// Cilin level words are mapped at: 1 (coarsest) to 5 (synonym groups).
    pub level: u8,
    /// `best_match` (default) or `paper_mean`.
    pub aggregate: Aggregate,
    /// Topic sentences per page: a count (default 5) ...
    pub topic_sentences: Option<usize>,
    /// ... or a share of the page's declarative sentences (not both).
    pub topic_share: Option<f64>,
    /// Cosine at or above which a sentence repeats one already chosen.
    pub redundancy: f64,
    /// A..F of W(S).
    pub coefficients: [f64; 6],
    pub title_threshold: f64,
    pub subtitle_threshold: f64,
    /// Topic similarity at or above which a pair is a duplicate (0.8).
    pub threshold: f64,
    pub grid: Vec<f64>,
    pub floor: f64,
    /// Jaccard of title and topic concepts the LSH candidate search aims at.
    pub candidate_jaccard: f64,
}

impl Default for SemanticConfig {
    fn default() -> Self {
        SemanticConfig {
            level: 5,
            aggregate: Aggregate::BestMatch,
            topic_sentences: None,
            topic_share: None,
            redundancy: 0.8,
            coefficients: [1.0; 6],
            title_threshold: 0.4,
            subtitle_threshold: 0.6,
            threshold: 0.8,
            grid: (6..=20).map(|i| f64::from(i) * 0.05).collect(),
            floor: 0.3,
            candidate_jaccard: 0.3,
        }
    }
}

impl SemanticConfig {
    pub fn topic_count(&self) -> TopicCount {
        match (self.topic_sentences, self.topic_share) {
            (_, Some(share)) => TopicCount::Share(share),
            (Some(n), None) => TopicCount::Count(n),
            (None, None) => TopicCount::Count(5),
        }
    }
}

/// I-Match with optional randomised extra lexicons.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ImatchConfig {
    pub tokens: Option<TokenKind>,
    /// Where IDF comes from: `corpus` (the evaluated pages) or a corpus
    /// path, relative to the experiment file (e.g. People's Daily).
    pub lexicon: String,
    /// Keep terms with IDF = ln(N/df) in [low, high] ...
    pub idf: Option<[f64; 2]>,
    /// ... or between these fractions of the terms ranked by IDF.
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
    pub grid: Option<Vec<f64>>,
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
        }
    }
}

impl ImatchConfig {
    /// Without bounds, the middle of the ranking: the most frequent tenth
    /// and nothing at the rare end (terms in one page are already out by
    /// `min_df`).
    pub const DEFAULT_PERCENTILES: [f64; 2] = [0.1, 1.0];

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

    /// The reference corpus's path, `None` for the evaluated corpus.
    pub fn reference_path(&self, experiment_path: &Path) -> Option<PathBuf> {
        (self.lexicon != "corpus").then(|| resolve(experiment_path, &self.lexicon))
    }

    pub fn grid(&self) -> Vec<f64> {
        self.grid
            .clone()
            .unwrap_or_else(|| (1..=self.extra_lexicons + 1).map(|k| k as f64).collect())
    }
}

/// A path named in an experiment file, resolved against its directory.
fn resolve(experiment_path: &Path, named: &str) -> PathBuf {
    let named = Path::new(named);
    if named.is_absolute() {
        named.to_path_buf()
    } else {
        experiment_path
            .parent()
            .unwrap_or(Path::new("."))
            .join(named)
    }
}

/// Grid of Jaccard thresholds from 0.1 to 1 in steps of 0.05.
fn jaccard_grid() -> Vec<f64> {
    (2..=20).map(|i| f64::from(i) * 0.05).collect()
}

/// Exact Jaccard of w-shingle sets through an inverted index.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct JaccardConfig {
    /// Tokens the shingles are made of: `jieba`, `words`, `chars` (single
    /// characters) or `auto`; the experiment's tokenizer when absent.
    pub tokens: Option<TokenKind>,
    /// Tokens per shingle (w).
    pub width: usize,
    /// Jaccard at or above which a pair is a duplicate.
    pub threshold: f64,
    pub grid: Vec<f64>,
    /// Least Jaccard stored as a scored pair.
    pub floor: f64,
}

impl Default for JaccardConfig {
    fn default() -> Self {
        JaccardConfig {
            tokens: None,
            width: 3,
            threshold: 0.5,
            grid: jaccard_grid(),
            floor: 0.1,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CandidateKind {
    /// LSH banding: pages sharing any band.
    Lsh,
    /// Broder's super-shingles: pages sharing at least `min_shared`.
    SuperShingles,
    /// Every pair: no candidate loss, quadratic cost.
    AllPairs,
}

/// MinHash sketches of w-shingle sets with a candidate stage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MinhashConfig {
    pub tokens: Option<TokenKind>,
    pub width: usize,
    /// Hash functions (bins for `one_permutation`): n.
    pub hashes: usize,
    pub sketch: Sketching,
    pub candidates: CandidateKind,
    /// Bands (super-shingles) b and rows (min-hashes per super-shingle) r.
    /// For `lsh`, chosen for `target` when both are absent.
    pub bands: Option<usize>,
    pub rows: Option<usize>,
    /// The Jaccard the banding is chosen for (default: `threshold`).
    pub target: Option<f64>,
    /// Weights of false positive and false negative areas in that choice.
    pub false_positive_weight: f64,
    pub false_negative_weight: f64,
    /// Bands a pair must share (default 1 for lsh, 2 for super-shingles).
    pub min_shared: Option<usize>,
    pub verify: Verify,
    pub threshold: f64,
    pub grid: Vec<f64>,
    pub floor: f64,
}

impl Default for MinhashConfig {
    fn default() -> Self {
        MinhashConfig {
            tokens: None,
            width: 3,
            hashes: 128,
            sketch: Sketching::Minhash,
            candidates: CandidateKind::Lsh,
            bands: None,
            rows: None,
            target: None,
            false_positive_weight: 0.5,
            false_negative_weight: 0.5,
            min_shared: None,
            verify: Verify::Estimate,
            threshold: 0.5,
            grid: jaccard_grid(),
            floor: 0.1,
        }
    }
}

impl MinhashConfig {
    /// Broder (1997) used 6 super-shingles of 14 of 84 min-hashes; with n
    /// hashes we keep 6 groups, as large as n allows.
    const SUPER_SHINGLES: usize = 6;

    pub fn search(&self) -> CandidateSearch {
        match self.candidates {
            CandidateKind::AllPairs => CandidateSearch::AllPairs,
            CandidateKind::Lsh => match (self.bands, self.rows) {
                (Some(bands), Some(rows)) => CandidateSearch::Bands {
                    banding: Banding {
                        bands,
                        rows,
                        min_shared: self.min_shared.unwrap_or(1),
                    },
                    target: None,
                    super_shingles: false,
                },
                _ => {
                    let target = self.target.unwrap_or(self.threshold);
                    let mut banding = Banding::for_threshold(
                        target,
                        self.hashes,
                        self.false_positive_weight,
                        self.false_negative_weight,
                    );
                    banding.min_shared = self.min_shared.unwrap_or(1);
                    CandidateSearch::Bands {
                        banding,
                        target: Some(target),
                        super_shingles: false,
                    }
                }
            },
            CandidateKind::SuperShingles => {
                let bands = self.bands.unwrap_or(Self::SUPER_SHINGLES);
                CandidateSearch::Bands {
                    banding: Banding {
                        bands,
                        rows: self.rows.unwrap_or(self.hashes / bands.max(1)),
                        min_shared: self.min_shared.unwrap_or(2),
                    },
                    target: None,
                    super_shingles: true,
                }
            }
        }
    }
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExactConfig {}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SimhashConfig {
    pub features: Features,
    /// Tokens (or characters) per feature for `ngrams` (`chars`).
    pub ngram: usize,
    pub weights: Weights,
    /// `corpus` or a reference corpus path: where IDF comes from for
    /// `tf_idf` and `levels`.
    pub idf: String,
    /// 64 or 128.
    pub bits: u32,
    /// Permuted-table layout for the candidate search (`4x16`, `6c3`,
    /// `4x4`, `BcC`); absent, every pair is compared. The floor must be
    /// within what the layout finds.
    pub index: Option<String>,
    /// Hamming distance k at or below which a pair is a duplicate; the
    /// table is printed at this threshold.
    pub threshold: f64,
    /// Thresholds evaluated and written to the results.
    pub grid: Vec<f64>,
    /// Largest distance stored as a scored pair (the sweep's reach).
    pub floor: u32,
}

impl SimhashConfig {
    pub fn layout(&self) -> Result<Option<Layout>, LayoutError> {
        self.index.as_deref().map(str::parse).transpose()
    }

    pub fn reference_path(&self, experiment_path: &Path) -> Option<PathBuf> {
        (self.idf != "corpus").then(|| resolve(experiment_path, &self.idf))
    }
}

impl Default for SimhashConfig {
    fn default() -> Self {
        SimhashConfig {
            features: Features::Words,
            ngram: 2,
            weights: Weights::Tf,
            idf: "corpus".into(),
            bits: 64,
            index: None,
            threshold: 3.0,
            grid: (0..=16).map(f64::from).collect(),
            floor: 16,
        }
    }
}

/// An algorithm ready to run, with the thresholds to evaluate.
pub struct PreparedAlgorithm {
    pub algorithm: Box<dyn Algorithm>,
    /// Tokens of its own, instead of the experiment's.
    pub tokenizer: Option<TokenizerConfig>,
    pub threshold: f64,
    pub grid: Vec<f64>,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}{}: {message}", path.display(), location.map(|(l, c)| format!(":{l}:{c}")).unwrap_or_default())]
    Parse {
        path: PathBuf,
        location: Option<(usize, usize)>,
        message: String,
    },
    #[error("{}: `{key}`: {message}", path.display())]
    Invalid {
        path: PathBuf,
        key: String,
        message: String,
    },
}

/// Reads a YAML file into `T`; errors name the file, line and column.
pub fn read_yaml<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_yaml(path, &text)
}

/// Parses YAML text into `T`; `path` names it in errors.
pub fn parse_yaml<T: serde::de::DeserializeOwned>(
    path: &Path,
    text: &str,
) -> Result<T, ConfigError> {
    serde_yaml::from_str(text).map_err(|e| ConfigError::Parse {
        path: path.to_path_buf(),
        location: e.location().map(|l| (l.line(), l.column())),
        message: e.to_string(),
    })
}

impl ConfigError {
    pub fn invalid(path: &Path, key: impl Into<String>, message: impl Into<String>) -> Self {
        ConfigError::Invalid {
            path: path.to_path_buf(),
            key: key.into(),
            message: message.into(),
        }
    }
}

impl ExperimentConfig {
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let config: ExperimentConfig = read_yaml(path)?;
        config.validate(path)?;
        Ok(config)
    }

    /// `path` names the file in errors.
    pub fn parse(path: &Path, text: &str) -> Result<Self, ConfigError> {
        let config: ExperimentConfig = parse_yaml(path, text)?;
        config.validate(path)?;
        Ok(config)
    }

    fn validate(&self, path: &Path) -> Result<(), ConfigError> {
        let invalid = |key: String, message: String| ConfigError::Invalid {
            path: path.to_path_buf(),
            key,
            message,
        };
        let mut seen = Vec::new();
        for (i, e) in self.extract.iter().enumerate() {
            if seen.contains(e) {
                return Err(invalid(
                    format!("extract[{i}]"),
                    format!("`{}` is listed twice", e.name()),
                ));
            }
            seen.push(*e);
        }
        if self.algorithms.is_empty() {
            return Err(invalid(
                "algorithms".into(),
                "name at least one algorithm".into(),
            ));
        }
        if !(1..=16).contains(&self.tokenizer.ngram) {
            return Err(invalid(
                "tokenizer.ngram".into(),
                format!("{} is out of range 1..=16", self.tokenizer.ngram),
            ));
        }
        for (i, algorithm) in self.algorithms.iter().enumerate() {
            let key = |k: &str| format!("algorithms[{i}].{k}");
            let range = |k: &str, v: usize, lo: usize, hi: usize| {
                if (lo..=hi).contains(&v) {
                    Ok(())
                } else {
                    Err(invalid(key(k), format!("{v} is out of range {lo}..={hi}")))
                }
            };
            let jaccards = |floor: f64, threshold: f64, grid: &[f64]| {
                if !(0.0..=1.0).contains(&floor) {
                    return Err(invalid(
                        key("floor"),
                        format!("{floor} is out of range 0..=1"),
                    ));
                }
                let check = |k: String, t: f64| {
                    if (floor..=1.0).contains(&t) {
                        Ok(())
                    } else {
                        Err(invalid(
                            k,
                            format!(
                                "{t} is out of range: a similarity in {floor}..=1 (from the floor)"
                            ),
                        ))
                    }
                };
                check(key("threshold"), threshold)?;
                for (j, &t) in grid.iter().enumerate() {
                    check(format!("algorithms[{i}].grid[{j}]"), t)?;
                }
                Ok(())
            };
            if let AlgorithmConfig::Jaccard(c) = algorithm {
                range("width", c.width, 1, 64)?;
                jaccards(c.floor, c.threshold, &c.grid)?;
            }
            if let AlgorithmConfig::Minhash(c) = algorithm {
                range("width", c.width, 1, 64)?;
                range("hashes", c.hashes, 1, 4096)?;
                jaccards(c.floor, c.threshold, &c.grid)?;
                if let Some(t) = c.target {
                    if !(t > 0.0 && t <= 1.0) {
                        return Err(invalid(
                            key("target"),
                            format!("{t} is out of range: a Jaccard similarity in (0, 1]"),
                        ));
                    }
                }
                for (k, w) in [
                    ("false_positive_weight", c.false_positive_weight),
                    ("false_negative_weight", c.false_negative_weight),
                ] {
                    if !(w >= 0.0 && w.is_finite()) {
                        return Err(invalid(key(k), format!("{w} must be a weight >= 0")));
                    }
                }
                if c.bands.is_some() != c.rows.is_some() && c.candidates == CandidateKind::Lsh {
                    return Err(invalid(
                        key(if c.bands.is_some() { "rows" } else { "bands" }),
                        "give `bands` and `rows` together, or neither to choose them for `target`"
                            .into(),
                    ));
                }
                if c.candidates == CandidateKind::AllPairs {
                    for (k, set) in [
                        ("bands", c.bands.is_some()),
                        ("rows", c.rows.is_some()),
                        ("min_shared", c.min_shared.is_some()),
                        ("target", c.target.is_some()),
                    ] {
                        if set {
                            return Err(invalid(
                                key(k),
                                "has no meaning with `candidates: all_pairs`".into(),
                            ));
                        }
                    }
                } else if let CandidateSearch::Bands { banding, .. } = c.search() {
                    range("bands", banding.bands, 1, c.hashes)?;
                    range("rows", banding.rows, 1, c.hashes / banding.bands).map_err(|_| {
                        invalid(
                            key("rows"),
                            format!(
                                "{} bands x {} rows need more than the {} hashes",
                                banding.bands, banding.rows, c.hashes
                            ),
                        )
                    })?;
                    range("min_shared", banding.min_shared, 1, banding.bands)?;
                }
            }
            if let AlgorithmConfig::Combined(c) = algorithm {
                range("width", c.width, 1, 64)?;
                range("hashes", c.hashes, 1, 4096)?;
                if !(c.jaccard > 0.0 && c.jaccard <= 1.0) {
                    return Err(invalid(
                        key("jaccard"),
                        format!(
                            "{} is out of range: a Jaccard similarity in (0, 1]",
                            c.jaccard
                        ),
                    ));
                }
                if c.bits != 64 && c.bits != 128 {
                    return Err(invalid(key("bits"), format!("{} is not 64 or 128", c.bits)));
                }
                range("floor", c.floor as usize, 0, c.bits as usize)?;
                match (c.bands, c.rows) {
                    (Some(b), Some(r)) => {
                        range("bands", b, 1, c.hashes)?;
                        range("rows", r, 1, c.hashes / b)?;
                        range("min_shared", c.min_shared.unwrap_or(1), 1, b)?;
                    }
                    (None, None) if c.min_shared.is_none() => {}
                    _ => {
                        return Err(invalid(
                            key("bands"),
                            "give `bands` and `rows` (and `min_shared`) together, or none".into(),
                        ))
                    }
                }
                for (k, t) in std::iter::once(("threshold".to_string(), c.threshold)).chain(
                    c.grid
                        .iter()
                        .enumerate()
                        .map(|(j, &t)| (format!("grid[{j}]"), t)),
                ) {
                    if !(0.0..=f64::from(c.floor)).contains(&t) {
                        return Err(invalid(
                            key(&k),
                            format!("{t} is out of range 0..={} (the floor)", c.floor),
                        ));
                    }
                }
            }
            if let AlgorithmConfig::Semantic(c) = algorithm {
                range("level", usize::from(c.level), 1, 5)?;
                if let Some(n) = c.topic_sentences {
                    range("topic_sentences", n, 1, 1000)?;
                }
                if let Some(share) = c.topic_share {
                    if c.topic_sentences.is_some() {
                        return Err(invalid(
                            key("topic_share"),
                            "give topic_sentences or topic_share, not both".into(),
                        ));
                    }
                    if !(share > 0.0 && share <= 1.0) {
                        return Err(invalid(
                            key("topic_share"),
                            format!("{share} is out of range (0, 1]"),
                        ));
                    }
                }
                for (k, v) in [
                    ("redundancy", c.redundancy),
                    ("title_threshold", c.title_threshold),
                    ("subtitle_threshold", c.subtitle_threshold),
                    ("candidate_jaccard", c.candidate_jaccard),
                ] {
                    if !(0.0..=1.0).contains(&v) {
                        return Err(invalid(key(k), format!("{v} is out of range 0..=1")));
                    }
                }
                if c.candidate_jaccard == 0.0 {
                    return Err(invalid(key("candidate_jaccard"), "must be above 0".into()));
                }
                for (j, &v) in c.coefficients.iter().enumerate() {
                    if !(v >= 0.0 && v.is_finite()) {
                        return Err(invalid(
                            format!("algorithms[{i}].coefficients[{j}]"),
                            format!("{v} must be a weight >= 0"),
                        ));
                    }
                }
                jaccards(c.floor, c.threshold, &c.grid)?;
            }
            if let AlgorithmConfig::Imatch(c) = algorithm {
                let fraction_pair = |k: &str, [low, high]: [f64; 2], max: f64| {
                    if !(low >= 0.0 && high <= max && low <= high) {
                        Err(invalid(
                            key(k),
                            format!("[{low}, {high}] must be a range low <= high within 0..={max}"),
                        ))
                    } else {
                        Ok(())
                    }
                };
                match (c.idf, c.percentiles) {
                    (Some(_), Some(_)) => {
                        return Err(invalid(
                            key("percentiles"),
                            "give `idf` bounds or `percentiles`, not both".into(),
                        ))
                    }
                    (Some(idf), None) => fraction_pair("idf", idf, f64::MAX)?,
                    (None, Some(p)) => fraction_pair("percentiles", p, 1.0)?,
                    (None, None) => {}
                }
                if c.lexicon.trim().is_empty() {
                    return Err(invalid(
                        key("lexicon"),
                        "`corpus` or a path to a reference corpus".into(),
                    ));
                }
                range("min_df", c.min_df as usize, 1, 1_000_000)?;
                range("min_terms", c.min_terms, 1, 100_000)?;
                range("extra_lexicons", c.extra_lexicons, 0, 256)?;
                if !(0.0..1.0).contains(&c.drop) {
                    return Err(invalid(
                        key("drop"),
                        format!("{} is out of range: a fraction in [0, 1)", c.drop),
                    ));
                }
                let most = (c.extra_lexicons + 1) as f64;
                let check = |k: String, t: f64| {
                    if !(1.0..=most).contains(&t) || t.fract() != 0.0 {
                        Err(invalid(
                            k,
                            format!("{t} is out of range: a whole number of shared signatures in 1..={most} (K+1)"),
                        ))
                    } else {
                        Ok(())
                    }
                };
                check(key("threshold"), c.threshold)?;
                for (j, &t) in c.grid().iter().enumerate() {
                    check(format!("algorithms[{i}].grid[{j}]"), t)?;
                }
            }
            if let AlgorithmConfig::Simhash(c) = algorithm {
                if !(1..=16).contains(&c.ngram) {
                    return Err(invalid(
                        key("ngram"),
                        format!("{} is out of range 1..=16", c.ngram),
                    ));
                }
                if c.bits != 64 && c.bits != 128 {
                    return Err(invalid(
                        key("bits"),
                        format!("{} must be 64 or 128", c.bits),
                    ));
                }
                if c.floor > c.bits {
                    return Err(invalid(
                        key("floor"),
                        format!("{} is out of range 0..={}", c.floor, c.bits),
                    ));
                }
                match c.layout() {
                    Err(e) => return Err(invalid(key("index"), e.to_string())),
                    Ok(Some(_)) if c.bits != 64 => {
                        return Err(invalid(
                            key("index"),
                            "permuted tables index 64-bit fingerprints; use bits: 64".into(),
                        ))
                    }
                    Ok(Some(layout)) if c.floor > layout.max_k() => {
                        return Err(invalid(
                            key("floor"),
                            format!(
                                "{} is past what layout {layout} finds (k <= {}); lower the floor or leave `index` out to compare every pair",
                                c.floor,
                                layout.max_k()
                            ),
                        ))
                    }
                    _ => {}
                }
                if c.idf.trim().is_empty() {
                    return Err(invalid(
                        key("idf"),
                        "`corpus` or a path to a reference corpus".into(),
                    ));
                }
                let floor = f64::from(c.floor);
                let check = |k: String, t: f64| {
                    if !(0.0..=floor).contains(&t) || t.fract() != 0.0 {
                        Err(invalid(
                            k,
                            format!("{t} is out of range: a whole Hamming distance in 0..={floor} (the floor)"),
                        ))
                    } else {
                        Ok(())
                    }
                };
                check(key("threshold"), c.threshold)?;
                for (j, &t) in c.grid.iter().enumerate() {
                    check(format!("algorithms[{i}].grid[{j}]"), t)?;
                }
            }
        }
        Ok(())
    }

    /// The corpus path, resolved against the experiment file's directory;
    /// `None` for the embedded demo corpus.
    pub fn corpus_path(&self, experiment_path: &Path) -> Option<PathBuf> {
        if self.corpus == "demo" {
            return None;
        }
        Some(resolve(experiment_path, &self.corpus))
    }

    /// The extractions to run, `main` when none is named.
    pub fn extractions(&self) -> Vec<Extraction> {
        if self.extract.is_empty() {
            vec![Extraction::Main]
        } else {
            self.extract.clone()
        }
    }

    /// An algorithm's own token kind on the experiment's normalisation;
    /// `chars` are single characters, the shingle width making windows.
    fn tokens_of(&self, kind: Option<TokenKind>) -> Option<TokenizerConfig> {
        let kind = kind?;
        let own = TokenizerConfig {
            kind,
            ngram: if kind == TokenKind::Chars {
                1
            } else {
                self.tokenizer.ngram
            },
            normalize: self.tokenizer.normalize,
        };
        (own != self.tokenizer).then_some(own)
    }

    /// The algorithms' own tokenizers, `None` for the experiment's.
    pub fn algorithm_tokenizer(&self, algorithm: &AlgorithmConfig) -> Option<TokenizerConfig> {
        match algorithm {
            AlgorithmConfig::Jaccard(c) => self.tokens_of(c.tokens),
            AlgorithmConfig::Minhash(c) => self.tokens_of(c.tokens),
            AlgorithmConfig::Imatch(c) => self.tokens_of(c.tokens),
            AlgorithmConfig::Exact(_)
            | AlgorithmConfig::Simhash(_)
            | AlgorithmConfig::Semantic(_)
            | AlgorithmConfig::Combined(_) => None,
        }
    }

    /// The reference corpus an algorithm counts IDF over, if it names one.
    pub fn reference_path(
        &self,
        algorithm: &AlgorithmConfig,
        experiment_path: &Path,
    ) -> Option<PathBuf> {
        match algorithm {
            AlgorithmConfig::Imatch(c) => c.reference_path(experiment_path),
            AlgorithmConfig::Simhash(c) => c.reference_path(experiment_path),
            _ => None,
        }
    }

    /// `references[i]`: the reference collection of algorithm i,
    /// when it names a reference corpus (see `experiment::load_references`).
    pub fn prepare(&self, references: &[Option<Arc<Vec<Document>>>]) -> Vec<PreparedAlgorithm> {
        self.algorithms
            .iter()
            .enumerate()
            .map(|(i, a)| match a {
                AlgorithmConfig::Exact(_) => PreparedAlgorithm {
                    algorithm: Box::new(ExactHash),
                    tokenizer: None,
                    threshold: 1.0,
                    grid: vec![1.0],
                },
                AlgorithmConfig::Simhash(c) => PreparedAlgorithm {
                    algorithm: Box::new(SimHash::new(
                        c.features,
                        c.ngram,
                        c.weights,
                        c.bits,
                        c.floor,
                        c.layout().ok().flatten(),
                        references.get(i).cloned().flatten(),
                    )),
                    tokenizer: None,
                    threshold: c.threshold,
                    grid: with_threshold(&c.grid, c.threshold),
                },
                AlgorithmConfig::Jaccard(c) => PreparedAlgorithm {
                    algorithm: Box::new(ExactJaccard {
                        width: c.width,
                        floor: c.floor,
                    }),
                    tokenizer: self.tokens_of(c.tokens),
                    threshold: c.threshold,
                    grid: with_threshold(&c.grid, c.threshold),
                },
                AlgorithmConfig::Minhash(c) => PreparedAlgorithm {
                    algorithm: Box::new(MinHash::new(
                        c.width,
                        c.hashes,
                        c.sketch,
                        c.search(),
                        c.verify,
                        c.floor,
                    )),
                    tokenizer: self.tokens_of(c.tokens),
                    threshold: c.threshold,
                    grid: with_threshold(&c.grid, c.threshold),
                },
                AlgorithmConfig::Combined(c) => PreparedAlgorithm {
                    algorithm: Box::new(Combined {
                        shingling: MinHash::new(
                            c.width,
                            c.hashes,
                            Sketching::Minhash,
                            match (c.bands, c.rows) {
                                (Some(bands), Some(rows)) => CandidateSearch::Bands {
                                    banding: Banding {
                                        bands,
                                        rows,
                                        min_shared: c.min_shared.unwrap_or(1),
                                    },
                                    target: None,
                                    super_shingles: c.min_shared.unwrap_or(1) > 1,
                                },
                                _ => CandidateSearch::Bands {
                                    banding: Banding::for_threshold(c.jaccard, c.hashes, 0.5, 0.5),
                                    target: Some(c.jaccard),
                                    super_shingles: false,
                                },
                            },
                            Verify::Estimate,
                            0.0,
                        ),
                        simhash: SimHash::new(
                            c.features, c.ngram, c.weights, c.bits, c.floor, None, None,
                        ),
                        jaccard: c.jaccard,
                    }),
                    tokenizer: None,
                    threshold: c.threshold,
                    grid: with_threshold(&c.grid, c.threshold),
                },
                AlgorithmConfig::Semantic(c) => {
                    let mut m = Semantic::new(Cilin::embedded());
                    m.level = c.level;
                    m.aggregate = c.aggregate;
                    m.topic_count = c.topic_count();
                    m.redundancy = c.redundancy;
                    m.coefficients = c.coefficients;
                    m.title_threshold = c.title_threshold;
                    m.subtitle_threshold = c.subtitle_threshold;
                    m.floor = c.floor;
                    m.candidate_jaccard = c.candidate_jaccard;
                    PreparedAlgorithm {
                        algorithm: Box::new(m),
                        tokenizer: None,
                        threshold: c.threshold,
                        grid: with_threshold(&c.grid, c.threshold),
                    }
                }
                AlgorithmConfig::Imatch(c) => PreparedAlgorithm {
                    algorithm: Box::new(IMatch::new(
                        references.get(i).cloned().flatten(),
                        c.band(),
                        c.min_df,
                        c.stop_words,
                        c.min_terms,
                        c.extra_lexicons,
                        c.drop,
                    )),
                    tokenizer: self.tokens_of(c.tokens),
                    threshold: c.threshold,
                    grid: with_threshold(&c.grid(), c.threshold),
                },
            })
            .collect()
    }
}

/// The grid with the printed threshold in it, sorted, without repeats.
fn with_threshold(grid: &[f64], threshold: f64) -> Vec<f64> {
    let mut grid = grid.to_vec();
    grid.push(threshold);
    grid.sort_by(f64::total_cmp);
    grid.dedup();
    grid
}

/// Formats a threshold for tables: whole numbers without decimals.
pub fn format_threshold(scale: &ScoreScale, t: f64) -> String {
    let op = match scale.direction {
        crate::algo::Direction::AtLeast => ">=",
        crate::algo::Direction::AtMost => "<=",
    };
    if t.fract() == 0.0 {
        format!("{op}{t:.0}")
    } else {
        format!("{op}{t}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<ExperimentConfig, ConfigError> {
        ExperimentConfig::parse(Path::new("x.yaml"), text)
    }

    #[test]
    fn minimal_config_gets_defaults() {
        let c = parse("corpus: demo\nalgorithms:\n  - type: exact\n  - type: simhash\n").unwrap();
        assert_eq!(c.algorithms.len(), 2);
        assert_eq!(
            c.algorithms[1],
            AlgorithmConfig::Simhash(SimhashConfig::default())
        );
    }

    #[test]
    fn unknown_keys_are_named() {
        let e = parse("corpus: demo\nalgorithms:\n  - type: simhash\n    thershold: 3\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("thershold") && e.starts_with("x.yaml:"), "{e}");
        let e = parse("corpus: demo\nalgoritms: []\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("algoritms"), "{e}");
        let e =
            parse("corpus: demo\ntokenizer: {kind: words, n: 3}\nalgorithms: [{type: exact}]\n")
                .unwrap_err()
                .to_string();
        assert!(e.contains("`n`"), "{e}");
        let e = parse("corpus: demo\nalgorithms: [{type: minhsh}]\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("minhsh"), "{e}");
    }

    #[test]
    fn out_of_range_values_name_key_and_range() {
        let e = parse("corpus: demo\nalgorithms:\n  - type: simhash\n    threshold: 70\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("algorithms[0].threshold") && e.contains("0..=16"),
            "{e}"
        );
        let e = parse(
            "corpus: demo\nalgorithms:\n  - type: exact\n  - type: simhash\n    grid: [1, 2.5]\n",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("algorithms[1].grid[1]"), "{e}");
        let e = parse("corpus: demo\nalgorithms:\n  - type: simhash\n    floor: 65\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("algorithms[0].floor") && e.contains("0..=64"),
            "{e}"
        );
        let e = parse("corpus: demo\nalgorithms: []\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("`algorithms`"), "{e}");
    }

    #[test]
    fn topic_sentences_is_a_count_or_a_share_not_both() {
        let semantic = |extra: &str| {
            parse(&format!(
                "corpus: demo\nalgorithms:\n  - type: semantic\n{extra}"
            ))
        };
        let c = semantic("    topic_share: 0.25\n").unwrap();
        let AlgorithmConfig::Semantic(s) = &c.algorithms[0] else {
            panic!("not semantic")
        };
        assert_eq!(s.topic_count(), TopicCount::Share(0.25));
        let e = semantic("    topic_share: 0.25\n    topic_sentences: 3\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("algorithms[0].topic_share") && e.contains("not both"),
            "{e}"
        );
        let e = semantic("    topic_share: 1.5\n").unwrap_err().to_string();
        assert!(
            e.contains("algorithms[0].topic_share") && e.contains("(0, 1]"),
            "{e}"
        );
    }

    #[test]
    fn extract_takes_one_or_a_list() {
        let c = parse("corpus: demo\nalgorithms: [{type: exact}]\n").unwrap();
        assert_eq!(c.extractions(), [Extraction::Main]);
        let c = parse("corpus: demo\nextract: full_text\nalgorithms: [{type: exact}]\n").unwrap();
        assert_eq!(c.extractions(), [Extraction::FullText]);
        let c = parse("corpus: demo\nextract: [main, full_text]\nalgorithms: [{type: exact}]\n")
            .unwrap();
        assert_eq!(c.extractions(), [Extraction::Main, Extraction::FullText]);
        let e = parse("corpus: demo\nextract: mian\nalgorithms: [{type: exact}]\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("mian") && e.contains("full_text"), "{e}");
        let e = parse("corpus: demo\nextract: [main, main]\nalgorithms: [{type: exact}]\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("extract[1]"), "{e}");
    }

    #[test]
    fn corpus_paths_resolve_against_the_experiment_file() {
        let c = parse("corpus: ../datasets/x.jsonl\nalgorithms: [{type: exact}]\n").unwrap();
        assert_eq!(
            c.corpus_path(Path::new("experiments/a.yaml")),
            Some(PathBuf::from("experiments/../datasets/x.jsonl"))
        );
        let c = parse("corpus: demo\nalgorithms: [{type: exact}]\n").unwrap();
        assert_eq!(c.corpus_path(Path::new("experiments/a.yaml")), None);
    }
}
