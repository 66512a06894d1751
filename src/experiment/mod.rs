//! Experiments: a YAML file names a corpus, the extraction and tokeniser
//! settings and the algorithms with their thresholds; running one prints a
//! seed-001-shaped table and writes `reports/NAME/`.

pub mod config;
pub mod dedup;
pub mod front;
pub mod judged;
pub mod mapping;
pub mod outcome;
pub mod pairs;
pub mod paper;
pub mod results;
pub mod runner;
pub mod seeds;
pub mod stored;
pub mod summary;
pub mod tune;

use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use config::{ConfigError, ExperimentConfig};
pub use front::{CacheSetting, Experiment, PrepareOptions, Prepared, Run, Scorer};
pub use outcome::{
    AlgorithmResult, CurveCache, EndToEnd, ExperimentResult, FittedAlgorithm, RunOutput, Watchers,
};
pub use results::{render_summary, write_reports, TableWriteError};
pub use runner::{run_experiment, run_experiment_consuming, run_experiment_observed};

use crate::algo::Document;
use crate::corpus::{
    demo, read_corpus, read_corpus_counted, Corpus, CorpusError, ReadCounter, ReadOptions,
};
use crate::extract::{page_text, Extraction};
use crate::text::TokenizerConfig;

/// Per algorithm (by index), the reference collection it names (tokenised
/// as the algorithm tokenises), if it names one.
pub type References = Vec<Option<Arc<Vec<Document>>>>;

/// Reads and tokenises every reference corpus the experiment's algorithms
/// name (I-Match's `lexicon: PATH`, SimHash's `idf: PATH`), each once per
/// tokenizer.
pub fn load_references(
    config: &ExperimentConfig,
    experiment_path: &Path,
) -> Result<References, CorpusError> {
    // Collections already read, by path and tokenizer.
    type Loaded = ((PathBuf, TokenizerConfig), Arc<Vec<Document>>);
    let mut loaded: Vec<Loaded> = Vec::new();
    let mut references = Vec::new();
    for algorithm in &config.algorithms {
        let Some(path) = config.reference_path(&algorithm.config, experiment_path) else {
            references.push(None);
            continue;
        };
        let tokenizer = config
            .algorithm_tokenizer(&algorithm.config)
            .unwrap_or_else(|| config.tokenizer.clone());
        let key = (path, tokenizer);
        if let Some((_, f)) = loaded.iter().find(|(k, _)| *k == key) {
            references.push(Some(f.clone()));
            continue;
        }
        let corpus = read_corpus(&key.0, ReadOptions::unlabelled())?;
        let docs = Document::many(corpus.pages.len(), &key.1, |i| {
            let page = &corpus.pages[i];
            (page_text(page, Extraction::Main).text, page.lang)
        });
        let docs = Arc::new(docs);
        references.push(Some(docs.clone()));
        loaded.push((key, docs));
    }
    Ok(references)
}

#[derive(Debug, thiserror::Error)]
pub enum ExperimentError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Corpus(#[from] CorpusError),
    #[error(transparent)]
    Report(#[from] TableWriteError),
    #[error(transparent)]
    Judged(#[from] crate::eval::judged::JudgedError),
    #[error(transparent)]
    Build(#[from] crate::corpus::build::BuildError),
}

/// The corpus an experiment names, read with labels required; a corpus
/// without pages is an error (there is nothing to score: every figure
/// would be undefined).
pub fn load_corpus(
    config: &ExperimentConfig,
    experiment_path: &Path,
) -> Result<Corpus, CorpusError> {
    load_corpus_counted(config, experiment_path, &ReadCounter::default())
}

/// [`load_corpus`], counting the bytes and pages read in `counter`.
pub fn load_corpus_counted(
    config: &ExperimentConfig,
    experiment_path: &Path,
    counter: &ReadCounter,
) -> Result<Corpus, CorpusError> {
    check_named_files(config, experiment_path)?;
    let Some(path) = config.corpus_path(experiment_path) else {
        return demo::demo_corpus();
    };
    // Judged pairs are the truth then: clusters are optional.
    let options = ReadOptions {
        require_cluster: config.judged.is_none(),
        prefer_text: false,
    };
    let corpus = read_corpus_counted(&path, options, counter)?;
    if corpus.pages.is_empty() {
        let skipped = match corpus.skipped_empty {
            0 => String::new(),
            n => format!(" ({n} rows skipped: their html/text is empty)"),
        };
        return Err(CorpusError::Invalid {
            path,
            location: crate::corpus::Location::File,
            field: None,
            message: format!("the corpus has no pages{skipped}; an experiment needs some"),
        });
    }
    Ok(corpus)
}

/// The first file the experiment names (`corpus:`, or `build:` when
/// the corpus is missing and a builder makes it, `judged: pairs:`, a reference corpus as I-Match's
/// `lexicon:` or SimHash's `idf:`) that does not exist, as an error
/// naming the experiment file and the line of its key, then the path: a
/// bare "No such file" does not say which line to fix.
pub fn check_named_files(
    config: &ExperimentConfig,
    experiment_path: &Path,
) -> Result<(), CorpusError> {
    let dir = experiment_path.parent().unwrap_or(Path::new("."));
    let mut named: Vec<(String, PathBuf)> = Vec::new();
    // A builder is read only to make a corpus that is missing.
    match (&config.build, config.corpus_path(experiment_path)) {
        (_, None) => {}
        (Some(build), Some(corpus)) if !corpus.exists() => {
            named.push(("build".into(), dir.join(build)));
        }
        (Some(_), Some(_)) => {}
        (None, Some(corpus)) => named.push(("corpus".into(), corpus)),
    }
    if let Some(judged) = &config.judged {
        named.push(("judged.pairs".into(), judged.path(experiment_path)));
    }
    for (i, entry) in config.algorithms.iter().enumerate() {
        if let Some(path) = config.reference_path(&entry.config, experiment_path) {
            let key = match entry.config {
                config::AlgorithmConfig::Imatch(_) => "lexicon",
                _ => "idf",
            };
            named.push((format!("algorithms[{i}].{key}"), path));
        }
    }
    let Some((key, missing)) = named.into_iter().find(|(_, p)| !p.exists()) else {
        return Ok(());
    };
    let text = std::fs::read_to_string(experiment_path).unwrap_or_default();
    let location = match crate::util::yaml::key_line(&text, &key) {
        Some(line) => crate::corpus::Location::Line(line),
        None => crate::corpus::Location::File,
    };
    Err(CorpusError::Invalid {
        path: experiment_path.to_path_buf(),
        location,
        field: Some(key),
        message: format!("{}: no such file or folder", missing.display()),
    })
}

/// The experiment's name: its `name`, or the file's stem.
pub fn experiment_name(config: &ExperimentConfig, experiment_path: &Path) -> String {
    config.name.clone().unwrap_or_else(|| {
        experiment_path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "experiment".into())
    })
}

/// The labels a learned judge with `folds` fits on, from the corpus: its
/// judged pairs when the experiment gives its truth so, else its clusters.
pub fn learning_labels(
    corpus: &Corpus,
    judged: Option<&crate::eval::judged::JudgedTruth>,
) -> crate::algo::learned::Labels {
    use crate::algo::learned::Labels;
    match judged {
        Some(truth) => Labels::Judged(
            truth
                .pairs
                .iter()
                .map(|p| (p.a, p.b, p.grade >= truth.positive_from))
                .collect(),
        ),
        None => {
            let mut ids: std::collections::HashMap<&str, u32> = Default::default();
            Labels::Clusters(
                corpus
                    .pages
                    .iter()
                    .map(|p| {
                        let next = ids.len() as u32;
                        *ids.entry(p.cluster.as_str()).or_insert(next)
                    })
                    .collect(),
            )
        }
    }
}

/// Gives every learned entry with `folds` the labels it fits on; false
/// when there is none.
pub fn attach_learning_labels(
    config: &mut ExperimentConfig,
    corpus: &Corpus,
    judged: Option<&crate::eval::judged::JudgedTruth>,
) -> bool {
    let mut labels = None;
    let mut any = false;
    for entry in &mut config.algorithms {
        if let config::AlgorithmConfig::Learned(learned) = &mut entry.config {
            if learned.folds.is_some() {
                let labels =
                    labels.get_or_insert_with(|| Arc::new(learning_labels(corpus, judged)));
                learned.labels = Some(labels.clone());
                any = true;
            }
        }
    }
    any
}
