//! `neardup tui`: the workbench (also what `neardup` alone opens).

use std::path::PathBuf;

use clap::Args;

use super::CliError;
use crate::experiment::{ExperimentConfig, ExperimentError};

#[derive(Args)]
pub struct TuiArgs {
    #[command(flatten)]
    pub workers: super::WorkerArgs,
    /// The experiment YAML (default: the embedded demo experiment).
    pub experiment: Option<PathBuf>,
    /// Instead of an experiment: a corpus, run with every algorithm at
    /// its defaults.
    #[arg(long, conflicts_with = "experiment")]
    pub corpus: Option<PathBuf>,
    /// With --corpus: pairs computed elsewhere (as for `neardup
    /// evaluate`), opened instead of running the algorithms. Repeat for
    /// several algorithms.
    #[arg(long, requires = "corpus")]
    pub pairs: Vec<PathBuf>,
    /// The clusters made of each --pairs, in the same order.
    #[arg(long, requires = "pairs")]
    pub clusters: Vec<PathBuf>,
    /// Skip bad rows of --pairs, counted in the notes (as for `neardup
    /// evaluate`).
    #[arg(long, requires = "pairs")]
    pub skip_bad_pairs: bool,
}

pub fn run(args: TuiArgs) -> Result<(), CliError> {
    let TuiArgs {
        experiment,
        corpus,
        pairs,
        clusters,
        workers: _,
        skip_bad_pairs,
    } = args;
    open(match (experiment, corpus) {
        (Some(path), _) => crate::tui::Source::Experiment(path),
        (None, Some(corpus)) if !pairs.is_empty() => crate::tui::Source::External {
            corpus,
            pairs,
            clusters,
            skip_bad_pairs,
        },
        (None, Some(path)) => crate::tui::Source::Corpus(path),
        (None, None) => crate::tui::Source::Demo,
    })
}

/// Opens the workbench on `source`.
pub fn open(source: crate::tui::Source) -> Result<(), CliError> {
    if let crate::tui::Source::Experiment(path) = &source {
        // Read errors print plainly, before the terminal changes.
        ExperimentConfig::load(path).map_err(ExperimentError::from)?;
    }
    crate::tui::run(source).map_err(|e| CliError::Usage(e.to_string()))
}
