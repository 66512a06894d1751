//! `neardup check`: an experiment validated without running it. It reads
//! what `run` reads before the algorithms start (the YAML, its models, the
//! corpus, reference corpora and judged pairs) and fails with the same
//! errors, or prints one line of what would run.

use std::path::PathBuf;

use clap::Args;

use super::experiment_file::load_experiment;
use super::CliError;
use crate::experiment::{CacheSetting, Experiment, PrepareOptions, References};

#[derive(Args)]
pub struct CheckArgs {
    /// The experiment YAML; `demo` is the embedded demo experiment.
    pub experiment: PathBuf,
}

pub fn run(args: CheckArgs) -> Result<(), CliError> {
    let experiment = load_experiment(&args.experiment)?;
    let (config, path) = (experiment.config(), experiment.path());
    let name = experiment.name();
    let (corpus, references) = match config.corpus_path(path) {
        Some(corpus) if !corpus.exists() && config.build.is_some() => {
            // `run` builds it first; the builder file is what can be wrong.
            let builder = path
                .parent()
                .unwrap_or(std::path::Path::new("."))
                .join(config.build.as_deref().unwrap_or_default());
            crate::corpus::build::BuildConfig::load(&builder)?;
            let line = format!(
                "{} (missing: `run` builds it from {})",
                corpus.display(),
                builder.display()
            );
            (line, experiment.read_references()?)
        }
        _ => {
            let prepared = experiment.prepare(PrepareOptions {
                cache: CacheSetting::Off,
                ..PrepareOptions::default()
            })?;
            let corpus = prepared.corpus();
            let clusters: std::collections::HashSet<&str> =
                corpus.pages.iter().map(|p| p.cluster.as_str()).collect();
            let line = format!(
                "{} ({} pages, {} clusters)",
                corpus.source,
                corpus.len(),
                clusters.len()
            );
            return finish(prepared.experiment(), &name, &line, prepared.references());
        }
    };
    finish(&experiment, &name, &corpus, &references)
}

/// The line `check` prints of what would run.
fn finish(
    experiment: &Experiment,
    name: &str,
    corpus: &str,
    references: &References,
) -> Result<(), CliError> {
    println!(
        "ok: {name}: {} runs ({}) on {corpus}",
        experiment.config().runs(),
        experiment.labels(references).join(", ")
    );
    Ok(())
}
