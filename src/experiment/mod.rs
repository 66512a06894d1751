//! Experiments: a YAML file names a corpus, the extraction and tokeniser
//! settings and the algorithms with their thresholds; running one prints a
//! seed-001-shaped table and writes `reports/NAME/`.

pub mod config;
pub mod results;
pub mod runner;

use std::path::Path;

pub use config::{ConfigError, ExperimentConfig};
pub use results::{render_summary, write_reports, ReportError};
pub use runner::{run_experiment, AlgorithmResult, ExperimentResult};

use crate::corpus::{demo, read_corpus, Corpus, CorpusError, ReadOptions};

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
