//! `neardup train`: fit the experiment's learned judge and save the model.

use std::path::{Path, PathBuf};

use clap::Args;

use super::experiment_file::build_if_missing;
use super::CliError;
use crate::experiment::{self, ExperimentConfig, ExperimentError};

#[derive(Args)]
pub struct TrainArgs {
    #[command(flatten)]
    pub workers: super::WorkerArgs,
    /// The experiment YAML with a `type: learned` entry.
    pub experiment: PathBuf,
    /// Where to write the model.
    #[arg(long, short, required = true)]
    pub out: PathBuf,
}

pub fn run(args: TrainArgs) -> Result<(), CliError> {
    run_train(&args.experiment, &args.out)
}

/// Fits the experiment's learned judge on its corpus and writes the model.
fn run_train(experiment: &Path, out: &Path) -> Result<(), CliError> {
    use crate::experiment::config::AlgorithmConfig;
    let config = ExperimentConfig::load_untrained(experiment).map_err(ExperimentError::from)?;
    let Some((entry, learned)) = config.algorithms.iter().find_map(|e| match &e.config {
        AlgorithmConfig::Learned(l) => Some((e, l)),
        _ => None,
    }) else {
        return Err(CliError::Usage(format!(
            "{}: no `type: learned` entry to train",
            experiment.display()
        )));
    };
    build_if_missing(&config, experiment)?;
    let corpus = experiment::load_corpus(&config, experiment).map_err(ExperimentError::from)?;
    let extraction = entry
        .extract
        .unwrap_or_else(|| config.default_extractions()[0]);
    let (docs, truth) = experiment::runner::documents(&config, &corpus, extraction);
    let trained_on = corpus.source.clone();
    let trained = crate::algo::learned::train(
        learned,
        &docs,
        &truth.cluster,
        truth.true_pairs(),
        &trained_on,
    )
    .map_err(|e| CliError::Usage(e.to_string()))?;
    trained
        .model
        .write(out)
        .map_err(|e| CliError::Usage(e.to_string()))?;
    let m = &trained.model;
    println!(
        "trained on {trained_on} [{}]: {} candidate pairs, {} duplicates ({} of the corpus's {} duplicate pairs)",
        extraction.name(),
        m.pairs,
        m.positives,
        trained.recall_of_candidates.0,
        trained.recall_of_candidates.1
    );
    println!("intercept {:+.3}", m.intercept);
    for (name, w) in m.features.iter().zip(&m.weights) {
        println!("  {name:<24} {w:+.3}");
    }
    println!("wrote {}", out.display());
    Ok(())
}
