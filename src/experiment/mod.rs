//! Experiments: a YAML file names a corpus, the extraction and tokeniser
//! settings and the algorithms with their thresholds; running one prints a
//! seed-001-shaped table and writes `reports/NAME/`.

pub mod config;
pub mod results;
pub mod runner;

use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use config::{ConfigError, ExperimentConfig};
pub use results::{render_summary, write_reports, ReportError};
pub use runner::{run_experiment, AlgorithmResult, ExperimentResult};

use crate::algo::imatch::DocumentFrequencies;
use crate::algo::Document;
use crate::corpus::{demo, read_corpus, Corpus, CorpusError, ReadOptions};
use crate::extract::{page_text, Extraction};
use crate::text::TokenizerConfig;
use config::AlgorithmConfig;

/// Per algorithm (by index), the statistics of the reference collection
/// it names, if it names one.
pub type References = Vec<Option<Arc<DocumentFrequencies>>>;

/// Reads and tokenises every reference corpus the experiment's algorithms
/// name (I-Match's `lexicon: PATH`), each once per tokenizer.
pub fn load_references(
    config: &ExperimentConfig,
    experiment_path: &Path,
) -> Result<References, CorpusError> {
    let mut loaded: Vec<((PathBuf, TokenizerConfig, bool), Arc<DocumentFrequencies>)> = Vec::new();
    let mut references = Vec::new();
    for algorithm in &config.algorithms {
        let AlgorithmConfig::Imatch(c) = algorithm else {
            references.push(None);
            continue;
        };
        let Some(path) = c.reference_path(experiment_path) else {
            references.push(None);
            continue;
        };
        let tokenizer = config
            .algorithm_tokenizer(algorithm)
            .unwrap_or_else(|| config.tokenizer.clone());
        let key = (path, tokenizer, c.stop_words);
        if let Some((_, f)) = loaded.iter().find(|(k, _)| *k == key) {
            references.push(Some(f.clone()));
            continue;
        }
        let corpus = read_corpus(&key.0, ReadOptions::unlabelled())?;
        let docs: Vec<Document> = corpus
            .pages
            .iter()
            .enumerate()
            .map(|(i, page)| {
                let text = page_text(page, Extraction::Main).text;
                Document::new(i as u32, &text, page.lang, &key.1)
            })
            .collect();
        let frequencies = Arc::new(DocumentFrequencies::count(&docs, key.2));
        references.push(Some(frequencies.clone()));
        loaded.push((key, frequencies));
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
    Report(#[from] ReportError),
}

/// The corpus an experiment names, read with labels required.
pub fn load_corpus(
    config: &ExperimentConfig,
    experiment_path: &Path,
) -> Result<Corpus, CorpusError> {
    match config.corpus_path(experiment_path) {
        None => demo::demo_corpus(),
        Some(path) => read_corpus(&path, ReadOptions::default()),
    }
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
