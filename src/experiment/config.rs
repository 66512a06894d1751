//! The experiment file: which corpus, which extraction and tokeniser, which
//! algorithms with which parameters and threshold grids.
//!
//! Unknown keys are errors (a misspelt `thershold` must not silently run
//! the default), and so are values out of range, named by their key path.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

pub use crate::algo::combined::CombinedConfig;
pub use crate::algo::exact::ExactConfig;
pub use crate::algo::imatch::ImatchConfig;
pub use crate::algo::learned::LearnedConfig;
pub use crate::algo::semantic::config::SemanticConfig;
pub use crate::algo::settings::with_threshold;
use crate::algo::settings::AlgorithmSettings;
pub use crate::algo::shingling::config::{CandidateKind, JaccardConfig, MinhashConfig};
pub use crate::algo::simhash::config::SimhashConfig;
use crate::algo::Document;
use crate::algo::{Algorithm, ScoreScale};
use crate::extract::Extraction;
use crate::text::{TokenKind, TokenizerConfig};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExperimentConfig {
    /// Names the report directory; defaults to the file's stem.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// A corpus path, relative to the experiment file, or `demo` for the
    /// corpus embedded in the binary.
    pub corpus: String,
    /// `main`, `full_text`, or a list of both to compare them in one run.
    #[serde(default, deserialize_with = "one_or_many")]
    pub extract: Vec<Extraction>,
    #[serde(default)]
    pub tokenizer: TokenizerConfig,
    pub algorithms: Vec<AlgorithmEntry>,
    /// The published figures this experiment reproduces, for the report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paper: Option<crate::experiment::paper::Paper>,
    /// A corpus builder file (relative to this file) that makes `corpus`
    /// when it does not exist yet, so that `neardup run` needs nothing else.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<String>,
    /// Written by `neardup tune`: what the thresholds gave on the corpus
    /// they were tuned on, for the transfer table of `run --corpus`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tuned: Option<super::tune::TunedOn>,
    /// Megabytes each algorithm's stored pairs may take; past it the
    /// best-scoring pairs are kept and the floor rises (the run says so).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pair_budget_mb: Option<u64>,
    /// `boilerplate: site`: blocks recurring across a host's pages are
    /// removed after extraction (see `extract::boilerplate`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boilerplate: Option<crate::extract::boilerplate::BoilerplateConfig>,
    /// Truth as judged pairs (`pairs: PATH`, `positive_from: 1`): the
    /// pages then need no `cluster`, and each algorithm is also scored
    /// over the judged pairs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judged: Option<crate::eval::judged::JudgedConfig>,
    /// One run per seed, each on the corpus `build` draws with it (see
    /// `experiment::seeds`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seeds: Option<super::seeds::SeedsConfig>,
    /// How passing pairs become clusters for every algorithm that names
    /// none of its own (`connected` when absent; see `eval::clustering`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clustering: Option<crate::eval::clustering::Clustering>,
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

/// One algorithm of the experiment, with its own settings type (kept
/// beside the algorithm's code).
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
    Learned(LearnedConfig),
}

impl AlgorithmConfig {
    pub fn settings(&self) -> &dyn AlgorithmSettings {
        match self {
            AlgorithmConfig::Exact(c) => c,
            AlgorithmConfig::Simhash(c) => c,
            AlgorithmConfig::Jaccard(c) => c,
            AlgorithmConfig::Minhash(c) => c,
            AlgorithmConfig::Imatch(c) => c,
            AlgorithmConfig::Semantic(c) => c,
            AlgorithmConfig::Combined(c) => c,
            AlgorithmConfig::Learned(c) => c,
        }
    }

    /// Rewrites the paths it names (reference corpora) with `moved`.
    pub fn relocate(&mut self, moved: &dyn Fn(&str) -> String) {
        match self {
            AlgorithmConfig::Simhash(c) => c.idf = moved(&c.idf),
            AlgorithmConfig::Imatch(c) => c.lexicon = moved(&c.lexicon),
            AlgorithmConfig::Learned(c) => c.model = c.model.as_deref().map(moved),
            _ => {}
        }
    }

    pub fn settings_mut(&mut self) -> &mut dyn AlgorithmSettings {
        match self {
            AlgorithmConfig::Exact(c) => c,
            AlgorithmConfig::Simhash(c) => c,
            AlgorithmConfig::Jaccard(c) => c,
            AlgorithmConfig::Minhash(c) => c,
            AlgorithmConfig::Imatch(c) => c,
            AlgorithmConfig::Semantic(c) => c,
            AlgorithmConfig::Combined(c) => c,
            AlgorithmConfig::Learned(c) => c,
        }
    }
}

/// An entry of `algorithms:`: the algorithm's settings and, optionally,
/// the one extraction it reads (instead of the experiment's `extract`),
/// so that one algorithm tuned differently on two extractions is two
/// entries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AlgorithmEntry {
    #[serde(flatten)]
    pub config: AlgorithmConfig,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extract: Option<Extraction>,
    /// How this algorithm's passing pairs become clusters (overrides the
    /// experiment's `clustering`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clustering: Option<crate::eval::clustering::Clustering>,
}

impl From<AlgorithmConfig> for AlgorithmEntry {
    fn from(config: AlgorithmConfig) -> Self {
        AlgorithmEntry {
            config,
            extract: None,
            clustering: None,
        }
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

/// An algorithm ready to run, with the thresholds to evaluate.
pub struct PreparedAlgorithm {
    /// Its entry in `algorithms:`.
    pub entry: usize,
    pub algorithm: Box<dyn Algorithm>,
    /// Tokens of its own, instead of the experiment's.
    pub tokenizer: Option<TokenizerConfig>,
    pub threshold: f64,
    pub grid: Vec<f64>,
    /// How its passing pairs become clusters.
    pub clustering: crate::eval::clustering::Clustering,
}

pub use crate::util::yaml::{parse_yaml, read_yaml, ConfigError};

impl ExperimentConfig {
    /// What `pair_budget_mb` allows, in bytes.
    pub fn pair_budget_bytes(&self) -> usize {
        self.pair_budget_mb
            .map_or(crate::algo::DEFAULT_PAIR_BUDGET_BYTES, |mb| {
                usize::try_from(mb.saturating_mul(1 << 20)).unwrap_or(usize::MAX)
            })
    }

    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let mut config: ExperimentConfig = read_yaml(path)?;
        let located =
            |e: ConfigError| e.located(&std::fs::read_to_string(path).unwrap_or_default());
        config.validate(path).map_err(located)?;
        config.load_models(path, true).map_err(located)?;
        let text = std::fs::read_to_string(path).unwrap_or_default();
        config.check_labels(path, &text, true)?;
        Ok(config)
    }

    /// `path` names the file in errors.
    pub fn parse(path: &Path, text: &str) -> Result<Self, ConfigError> {
        let mut config: ExperimentConfig = parse_yaml(path, text)?;
        config.validate(path).map_err(|e| e.located(text))?;
        config
            .load_models(path, true)
            .map_err(|e| e.located(text))?;
        config.check_labels(path, text, true)?;
        Ok(config)
    }

    /// Refuses two entries that would print one label on one extraction:
    /// results.csv, judged.csv and every table key their rows by label, so
    /// the two would merge into one. `text` is the file, to give the first
    /// entry's line; learned entries are compared only when their models
    /// were read (`models_read`), their label naming the model.
    fn check_labels(&self, path: &Path, text: &str, models_read: bool) -> Result<(), ConfigError> {
        let mut seen: Vec<(String, Extraction, usize)> = Vec::new();
        for (i, entry) in self.algorithms.iter().enumerate() {
            if !models_read && matches!(entry.config, AlgorithmConfig::Learned(_)) {
                continue;
            }
            let settings = entry.config.settings();
            // The label says whether a reference corpus is named, not
            // what it holds, so an empty stand-in serves.
            let reference = settings.reference().map(|_| Arc::new(Vec::new()));
            let label = settings.build(reference).label();
            let extractions = entry
                .extract
                .map_or_else(|| self.default_extractions(), |e| vec![e]);
            for extraction in extractions {
                if let Some((_, _, first)) = seen
                    .iter()
                    .find(|(l, e, _)| *l == label && *e == extraction)
                {
                    let line =
                        crate::util::yaml::key_position(text, &format!("algorithms[{first}]"))
                            .map(|(line, _)| format!(" (line {line})"))
                            .unwrap_or_default();
                    return Err(ConfigError::invalid(
                        path,
                        format!("algorithms[{i}]"),
                        format!(
                            "prints the label `{label}` [{}] as algorithms[{first}]{line} does, so their rows would merge in the results: drop one, or make them differ in a setting the label shows",
                            extraction.name()
                        ),
                    )
                    .located(text));
                }
                seen.push((label.clone(), extraction, i));
            }
        }
        Ok(())
    }

    /// [`ExperimentConfig::load`] for `neardup train`: learned entries'
    /// models are not read (they are what training makes), so one file
    /// serves to train and, naming the model written, to run.
    pub fn load_untrained(path: &Path) -> Result<Self, ConfigError> {
        let mut config: ExperimentConfig = read_yaml(path)?;
        let text = std::fs::read_to_string(path).unwrap_or_default();
        config.validate(path).map_err(|e| e.located(&text))?;
        config.load_models(path, false)?;
        config.check_labels(path, &text, false)?;
        Ok(config)
    }

    /// Reads the models learned entries name, relative to the file
    /// (when `required`; otherwise nothing).
    fn load_models(&mut self, path: &Path, required: bool) -> Result<(), ConfigError> {
        if !required {
            return Ok(());
        }
        let dir = path.parent().unwrap_or(Path::new("."));
        for (i, entry) in self.algorithms.iter_mut().enumerate() {
            let AlgorithmConfig::Learned(learned) = &mut entry.config else {
                continue;
            };
            let key = format!("algorithms[{i}].model");
            if learned.model.is_none() && learned.folds.is_none() {
                return Err(ConfigError::invalid(
                    path,
                    key,
                    "a learned judge needs a model: fit one with `neardup train EXP -o MODEL.json` and name it here, or give `folds: K` to fit one per fold on this corpus",
                ));
            }
            learned
                .load_model(dir)
                .map_err(|e| ConfigError::invalid(path, key, e.to_string()))?;
        }
        Ok(())
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
        if let Some(seeds) = &self.seeds {
            seeds
                .check()
                .map_err(|(key, message)| invalid(key, message))?;
            if self.build.is_none() {
                return Err(invalid(
                    "seeds".into(),
                    "needs `build:` (the corpus builder that draws each seed's corpus)".into(),
                ));
            }
        }
        if !(1..=16).contains(&self.tokenizer.ngram) {
            return Err(invalid(
                "tokenizer.ngram".into(),
                format!("{} is out of range 1..=16", self.tokenizer.ngram),
            ));
        }
        for (i, entry) in self.algorithms.iter().enumerate() {
            entry
                .config
                .settings()
                .validate()
                .map_err(|e| ConfigError::Invalid {
                    path: path.to_path_buf(),
                    key: format!("algorithms[{i}].{}", e.key),
                    message: e.message,
                })?;
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

    /// The extractions an entry without its own reads: `extract`, or
    /// `main` when none is named.
    pub fn default_extractions(&self) -> Vec<Extraction> {
        if self.extract.is_empty() {
            vec![Extraction::Main]
        } else {
            self.extract.clone()
        }
    }

    /// Every extraction some entry reads, the experiment's first.
    pub fn extractions(&self) -> Vec<Extraction> {
        let mut all = self.default_extractions();
        for entry in &self.algorithms {
            if let Some(e) = entry.extract {
                if !all.contains(&e) {
                    all.push(e);
                }
            }
        }
        all
    }

    /// Whether entry `entry` runs on `extraction`.
    pub fn runs_on(&self, entry: &AlgorithmEntry, extraction: Extraction) -> bool {
        match entry.extract {
            Some(own) => own == extraction,
            None => self.default_extractions().contains(&extraction),
        }
    }

    /// Algorithm runs the experiment makes (entries x their extractions).
    pub fn runs(&self) -> usize {
        self.extractions()
            .iter()
            .map(|&e| {
                self.algorithms
                    .iter()
                    .filter(|a| self.runs_on(a, e))
                    .count()
            })
            .sum()
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
        self.tokens_of(algorithm.settings().tokens())
    }

    /// The reference corpus an algorithm counts IDF over, if it names one.
    pub fn reference_path(
        &self,
        algorithm: &AlgorithmConfig,
        experiment_path: &Path,
    ) -> Option<PathBuf> {
        algorithm
            .settings()
            .reference()
            .map(|named| resolve(experiment_path, named))
    }

    /// `references[i]`: the reference collection of algorithm i,
    /// when it names a reference corpus (see `experiment::load_references`).
    pub fn prepare(&self, references: &[Option<Arc<Vec<Document>>>]) -> Vec<PreparedAlgorithm> {
        self.algorithms
            .iter()
            .enumerate()
            .map(|(i, entry)| {
                let settings = entry.config.settings();
                PreparedAlgorithm {
                    entry: i,
                    algorithm: settings.build(references.get(i).cloned().flatten()),
                    tokenizer: self.tokens_of(settings.tokens()),
                    threshold: settings.threshold(),
                    grid: settings.grid(),
                    clustering: self.clustering_of(entry),
                }
            })
            .collect()
    }

    /// The entry's `clustering`, else the experiment's, else connected
    /// components.
    pub fn clustering_of(&self, entry: &AlgorithmEntry) -> crate::eval::clustering::Clustering {
        entry.clustering.or(self.clustering).unwrap_or_default()
    }

    /// This experiment with every knob the runs derived written out (see
    /// [`AlgorithmSettings::pin`]).
    pub fn pinned(&self) -> ExperimentConfig {
        let mut pinned = self.clone();
        for entry in &mut pinned.algorithms {
            entry.config.settings_mut().pin();
        }
        pinned
    }
}

/// A threshold for tables with its direction: `>=0.3`, `<=3`.
pub fn format_threshold(scale: &ScoreScale, t: f64) -> String {
    let op = match scale.direction {
        crate::algo::Direction::AtLeast => ">=",
        crate::algo::Direction::AtMost => "<=",
    };
    format!("{op}{}", crate::util::fmt::threshold(t))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::semantic::TopicCount;

    fn parse(text: &str) -> Result<ExperimentConfig, ConfigError> {
        ExperimentConfig::parse(Path::new("x.yaml"), text)
    }

    #[test]
    fn minimal_config_gets_defaults() {
        let c = parse("corpus: demo\nalgorithms:\n  - type: exact\n  - type: simhash\n").unwrap();
        assert_eq!(c.algorithms.len(), 2);
        assert_eq!(
            c.algorithms[1].config,
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
    fn unknown_keys_name_their_own_line_and_the_closest_key() {
        let e = parse("corpus: demo\nalgorithms:\n  - type: simhash\n    thershold: 3\n")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("x.yaml:4:"), "{e}");
        assert!(e.contains("did you mean `threshold`?"), "{e}");
        let e = parse("corpus: demo\nalgoritms: []\n")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("x.yaml:2:"), "{e}");
        assert!(e.contains("did you mean `algorithms`?"), "{e}");
        let e = parse("corpus: demo\nalgorithms: [{type: minhsh}]\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("did you mean `minhash`?"), "{e}");
        // Nothing close: no guess.
        let e = parse("corpus: demo\nalgorithms: [{type: exact}]\nzzzzzzzz: 1\n")
            .unwrap_err()
            .to_string();
        assert!(!e.contains("did you mean"), "{e}");
    }

    #[test]
    fn out_of_range_values_name_key_and_range() {
        let e = parse("corpus: demo\nalgorithms:\n  - type: simhash\n    threshold: 70\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("algorithms[0].threshold") && e.contains("0..=6"),
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
        let AlgorithmConfig::Semantic(s) = &c.algorithms[0].config else {
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
    fn two_entries_with_one_label_are_refused_naming_both() {
        let e = parse(
            "corpus: demo\nalgorithms:\n  - type: exact\n  - type: jaccard\n  - {type: jaccard, grid: [0.5, 0.9]}\n",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains(":5:"), "the second entry's line: {e}");
        assert!(
            e.contains("algorithms[2]") && e.contains("algorithms[1] (line 4)"),
            "{e}"
        );
        assert!(e.contains("jaccard") && e.contains("[main]"), "{e}");
        // One label on two extractions is two rows.
        parse(
            "corpus: demo\nalgorithms:\n  - {type: jaccard, extract: main}\n  - {type: jaccard, extract: full_text}\n",
        )
        .unwrap();
        // A setting the label shows tells them apart.
        parse("corpus: demo\nalgorithms:\n  - type: jaccard\n  - {type: jaccard, width: 4}\n")
            .unwrap();
        let e = parse(
            "corpus: demo\nextract: [main, full_text]\nalgorithms:\n  - type: jaccard\n  - {type: jaccard, extract: full_text}\n",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("[full_text]"), "{e}");
    }

    #[test]
    fn every_algorithm_type_round_trips_through_yaml() {
        let c = parse(
            "corpus: demo\nextract: [main, full_text]\nalgorithms:\n  - type: exact\n  \
             - {type: simhash, features: chars, ngram: 3, weights: tf_idf, bits: 64, index: 6c3, floor: 3, threshold: 2}\n  \
             - {type: jaccard, tokens: chars, width: 2, floor: 0.2, threshold: 0.45, grid: [0.2, 0.6], extract: full_text}\n  \
             - {type: minhash, width: 4, hashes: 96, sketch: one_permutation, target: 0.6, min_shared: 2, verify: exact}\n  \
             - {type: minhash, candidates: super_shingles, hashes: 84}\n  \
             - {type: imatch, percentiles: [0.2, 0.9], min_df: 3, stop_words: false, min_terms: 7, extra_lexicons: 4, drop: 0.25, threshold: 2}\n  \
             - {type: semantic, level: 4, aggregate: paper_mean, topic_share: 0.3, coefficients: [1, 2, 1, 1, 0.5, 1], title_threshold: 0.5}\n  \
             - {type: combined, jaccard: 0.4, bands: 6, rows: 14, min_shared: 2, bits: 128, floor: 20, threshold: 5}\n",
        )
        .unwrap();
        for config in [c.clone(), c.pinned()] {
            let text = serde_yaml::to_string(&config).unwrap();
            let again = parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
            assert_eq!(again, config, "{text}");
        }
        // Pinning writes the banding chosen for the target, and nothing else
        // changes what runs.
        let AlgorithmConfig::Minhash(m) = &c.pinned().algorithms[3].config else {
            panic!("minhash")
        };
        let AlgorithmConfig::Minhash(original) = &c.algorithms[3].config else {
            panic!("minhash")
        };
        assert!(m.bands.is_some() && m.rows.is_some());
        assert_eq!(m.search(), original.search());
        assert_eq!(c.pinned().algorithms[2].extract, Some(Extraction::FullText));
    }

    #[test]
    fn a_learned_entry_needs_its_model_which_loads_beside_the_file() {
        use crate::algo::learned::{Model, Source, FEATURES};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("e.yaml");
        let text = "corpus: demo\nalgorithms:\n  - {type: learned, model: m.json, candidates_from: [jaccard, imatch], semantic: false, floor: 0.2, threshold: 0.7}\n";
        let e = ExperimentConfig::parse(&path, text)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("algorithms[0].model") && e.contains("m.json"),
            "{e}"
        );
        let e = ExperimentConfig::parse(&path, "corpus: demo\nalgorithms: [{type: learned}]\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("neardup train"), "{e}");
        let e = ExperimentConfig::parse(
            &path,
            "corpus: demo\nalgorithms: [{type: learned, model: m.json, candidates_from: [simhash, simhash]}]\n",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("candidates_from[1]"), "{e}");
        let model = Model {
            features: FEATURES.iter().map(|s| s.to_string()).collect(),
            mean: vec![0.5; FEATURES.len()],
            scale: vec![0.25; FEATURES.len()],
            weights: vec![1.0; FEATURES.len()],
            intercept: -1.0,
            trained_on: "test".into(),
            candidates_from: vec![Source::Jaccard],
            pairs: 2,
            positives: 1,
        };
        model.write(&dir.path().join("m.json")).unwrap();
        let c = ExperimentConfig::parse(&path, text).unwrap();
        let AlgorithmConfig::Learned(l) = &c.algorithms[0].config else {
            panic!("learned")
        };
        assert_eq!(l.loaded.as_deref(), Some(&model));
        assert_eq!(l.candidates_from, [Source::Jaccard, Source::Imatch]);
        let again = ExperimentConfig::parse(&path, &serde_yaml::to_string(&c).unwrap()).unwrap();
        assert_eq!(again, c);
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
