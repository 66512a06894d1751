//! `neardup tui`: the workbench (also what `neardup` alone opens).

use std::path::{Path, PathBuf};

use super::experiment_file::load_experiment;

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
    /// its defaults (with --mapping: the corpus the mapping maps).
    #[arg(long)]
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
    /// A folder `neardup dedup` wrote: its clusters by size, and each
    /// removed page beside its kept page. The experiment and corpus come
    /// from its summary.json, or from EXPERIMENT and --corpus.
    #[arg(long, conflicts_with = "pairs")]
    pub mapping: Option<PathBuf>,
}

pub fn run(args: TuiArgs) -> Result<(), CliError> {
    let TuiArgs {
        experiment,
        corpus,
        pairs,
        clusters,
        workers: _,
        skip_bad_pairs,
        mapping,
    } = args;
    if let Some(dir) = mapping {
        return open_mapping(&dir, experiment, corpus);
    }
    if experiment.is_some() && corpus.is_some() {
        return Err(CliError::Usage(
            "give an experiment or --corpus, not both (an experiment names its corpus)".into(),
        ));
    }
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

/// `--mapping DIR`: the experiment and corpus from the command line, else
/// from DIR/summary.json; every file read before the terminal changes, so
/// that errors print plainly.
fn open_mapping(
    dir: &Path,
    experiment: Option<PathBuf>,
    corpus: Option<PathBuf>,
) -> Result<(), CliError> {
    let csv = dir.join("mapping.csv");
    if !csv.is_file() {
        return Err(CliError::Usage(format!(
            "{}: not found; --mapping takes a folder `neardup dedup` wrote",
            csv.display()
        )));
    }
    let summary_path = dir.join("summary.json");
    let summary: serde_json::Value = match std::fs::read_to_string(&summary_path) {
        Ok(text) => serde_json::from_str(&text)
            .map_err(|e| CliError::Usage(format!("{}: {e}", summary_path.display())))?,
        Err(_) => serde_json::Value::Null,
    };
    let named = |key: &str, given: Option<PathBuf>| {
        given
            .or_else(|| summary.get(key)?.as_str().map(PathBuf::from))
            .ok_or_else(|| {
                CliError::Usage(format!(
                    "{} names no {key}: give it, as in `neardup tui EXPERIMENT --corpus CORPUS --mapping {}`",
                    summary_path.display(),
                    dir.display()
                ))
            })
    };
    let experiment = named("experiment", experiment)?;
    let corpus = named("corpus", corpus)?;
    let opened = load_experiment(&experiment)?;
    let view =
        crate::tui::mapping::MappingView::load(dir, &opened, &corpus).map_err(CliError::Usage)?;
    let source = match experiment.as_path() == Path::new("demo") {
        true => crate::tui::Source::Demo,
        false => crate::tui::Source::Experiment(experiment),
    };
    crate::tui::run_mapping(source, view).map_err(|e| CliError::Usage(e.to_string()))
}
