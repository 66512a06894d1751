//! `neardup check`: an experiment validated without running it. It reads
//! what `run` reads before the algorithms start (the YAML, its models, the
//! corpus, reference corpora and judged pairs) and fails with the same
//! errors, or prints one line of what would run.

use std::path::PathBuf;

use clap::Args;

use super::experiment_file::{load_experiment, read_judged};
use super::CliError;
use crate::experiment::{self, ExperimentError};

#[derive(Args)]
pub struct CheckArgs {
    /// The experiment YAML; `demo` is the embedded demo experiment.
    pub experiment: PathBuf,
}

pub fn run(args: CheckArgs) -> Result<(), CliError> {
    let (config, path) = load_experiment(&args.experiment)?;
    let corpus = match config.corpus_path(&path) {
        Some(corpus) if !corpus.exists() && config.build.is_some() => {
            // `run` builds it first; the builder file is what can be wrong.
            let builder = path
                .parent()
                .unwrap_or(std::path::Path::new("."))
                .join(config.build.as_deref().unwrap_or_default());
            crate::corpus::build::BuildConfig::load(&builder)?;
            format!(
                "{} (missing: `run` builds it from {})",
                corpus.display(),
                builder.display()
            )
        }
        _ => {
            let corpus = experiment::load_corpus(&config, &path).map_err(ExperimentError::from)?;
            let ids: Vec<String> = corpus.pages.iter().map(|p| p.id.clone()).collect();
            read_judged(&config, &path, &ids)?;
            let clusters: std::collections::HashSet<&str> =
                corpus.pages.iter().map(|p| p.cluster.as_str()).collect();
            format!(
                "{} ({} pages, {} clusters)",
                corpus.source,
                corpus.len(),
                clusters.len()
            )
        }
    };
    let references = experiment::load_references(&config, &path).map_err(ExperimentError::from)?;
    let labels: Vec<String> = config
        .prepare(&references)
        .iter()
        .map(|p| p.algorithm.label())
        .collect();
    println!(
        "ok: {}: {} runs ({}) on {corpus}",
        experiment::experiment_name(&config, &path),
        config.runs(),
        labels.join(", ")
    );
    Ok(())
}
