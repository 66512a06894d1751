//! The experiment file: which corpus, which extraction and tokeniser, which
//! algorithms with which parameters and threshold grids.
//!
//! Unknown keys are errors (a misspelt `thershold` must not silently run
//! the default), and so are values out of range, named by their key path.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::algo::exact::ExactHash;
use crate::algo::simhash::{Features, SimHash};
use crate::algo::{Algorithm, ScoreScale};
use crate::extract::Extraction;
use crate::text::TokenizerConfig;

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
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExactConfig {}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SimhashConfig {
    pub features: Features,
    /// Tokens per feature when `features: ngrams`.
    pub ngram: usize,
    /// Hamming distance k at or below which a pair is a duplicate; the
    /// table is printed at this threshold.
    pub threshold: f64,
    /// Thresholds evaluated and written to the results.
    pub grid: Vec<f64>,
    /// Largest distance stored as a scored pair (the sweep's reach).
    pub floor: u32,
}

impl Default for SimhashConfig {
    fn default() -> Self {
        SimhashConfig {
            features: Features::Words,
            ngram: 2,
            threshold: 3.0,
            grid: (0..=16).map(f64::from).collect(),
            floor: 16,
        }
    }
}

/// An algorithm ready to run, with the thresholds to evaluate.
pub struct PreparedAlgorithm {
    pub algorithm: Box<dyn Algorithm>,
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
            if let AlgorithmConfig::Simhash(c) = algorithm {
                if !(1..=16).contains(&c.ngram) {
                    return Err(invalid(
                        key("ngram"),
                        format!("{} is out of range 1..=16", c.ngram),
                    ));
                }
                if c.floor > 64 {
                    return Err(invalid(
                        key("floor"),
                        format!("{} is out of range 0..=64", c.floor),
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
        let corpus = Path::new(&self.corpus);
        Some(if corpus.is_absolute() {
            corpus.to_path_buf()
        } else {
            experiment_path
                .parent()
                .unwrap_or(Path::new("."))
                .join(corpus)
        })
    }

    /// The extractions to run, `main` when none is named.
    pub fn extractions(&self) -> Vec<Extraction> {
        if self.extract.is_empty() {
            vec![Extraction::Main]
        } else {
            self.extract.clone()
        }
    }

    pub fn prepare(&self) -> Vec<PreparedAlgorithm> {
        self.algorithms
            .iter()
            .map(|a| match a {
                AlgorithmConfig::Exact(_) => PreparedAlgorithm {
                    algorithm: Box::new(ExactHash),
                    threshold: 1.0,
                    grid: vec![1.0],
                },
                AlgorithmConfig::Simhash(c) => {
                    let mut grid = c.grid.clone();
                    if !grid.contains(&c.threshold) {
                        grid.push(c.threshold);
                    }
                    grid.sort_by(f64::total_cmp);
                    grid.dedup();
                    PreparedAlgorithm {
                        algorithm: Box::new(SimHash {
                            features: c.features,
                            ngram: c.ngram,
                            floor: c.floor,
                        }),
                        threshold: c.threshold,
                        grid,
                    }
                }
            })
            .collect()
    }
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
        let e = parse("corpus: demo\nalgorithms: [{type: minhash}]\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("minhash"), "{e}");
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
