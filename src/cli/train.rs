//! `neardup train`: fit the experiment's learned judge and save the model,
//! or cross-validate it on the experiment's corpus (`--folds K`).

use std::path::{Path, PathBuf};

use clap::Args;

use super::CliError;
use crate::algo::learned::folds::{cross_validate, CrossValidation, FoldFigures};
use crate::algo::learned::{Labels, LearnedConfig};
use crate::experiment::config::{AlgorithmConfig, AlgorithmEntry};
use crate::experiment::{Experiment, ExperimentConfig, PrepareOptions};

#[derive(Args)]
pub struct TrainArgs {
    #[command(flatten)]
    pub workers: super::WorkerArgs,
    /// The experiment YAML with a `type: learned` entry.
    pub experiment: PathBuf,
    /// Where to write the model (fitted on every labelled pair). Required
    /// without `--folds`.
    #[arg(long, short, required_unless_present = "folds")]
    pub out: Option<PathBuf>,
    /// Cross-validate with K folds of pages (at least 3) and print the
    /// out-of-fold precision, recall and F1.
    #[arg(long, value_name = "K")]
    pub folds: Option<usize>,
}

pub fn run(args: TrainArgs) -> Result<(), CliError> {
    run_train(&args.experiment, args.out.as_deref(), args.folds)
}

/// Fits the experiment's learned judge on its corpus: cross-validated
/// with `folds`, and written to `out` when given.
fn run_train(path: &Path, out: Option<&Path>, folds: Option<usize>) -> Result<(), CliError> {
    let experiment = Experiment::open_untrained(path)?;
    if learned_entry(experiment.config()).is_none() {
        return Err(CliError::Usage(format!(
            "{}: no `type: learned` entry to train",
            path.display()
        )));
    }
    let prepared = experiment.prepare(PrepareOptions {
        build_missing: true,
        ..PrepareOptions::default()
    })?;
    let config = prepared.experiment().config();
    let (entry, learned) = learned_entry(config).expect("found before preparing");
    let labels = prepared.learning_labels();
    let extraction = entry
        .extract
        .unwrap_or_else(|| config.default_extractions()[0]);
    let (docs, _) = prepared.documents(extraction);
    let corpus = prepared.corpus();
    let trained_on = corpus.source.clone();
    let truth = match (&labels, &config.judged) {
        (Labels::Judged(_), Some(spec)) => format!("judged pairs {}", spec.pairs),
        _ => "clusters".to_string(),
    };
    println!(
        "{trained_on} [{}], labels from its {truth}",
        extraction.name()
    );
    if let Some(k) = folds {
        let report = cross_validated(learned, &docs, &labels, corpus.len(), k, &trained_on)?;
        print!("{}", render_cross_validation(k, &report));
    }
    if let Some(out) = out {
        write_model(learned, &docs, &labels, &trained_on, out)?;
    }
    Ok(())
}

/// The experiment's first `type: learned` entry.
fn learned_entry(config: &ExperimentConfig) -> Option<(&AlgorithmEntry, &LearnedConfig)> {
    config.algorithms.iter().find_map(|e| match &e.config {
        AlgorithmConfig::Learned(l) => Some((e, l)),
        _ => None,
    })
}

fn cross_validated(
    learned: &LearnedConfig,
    docs: &[crate::algo::Document],
    labels: &Labels,
    pages: usize,
    k: usize,
    trained_on: &str,
) -> Result<CrossValidation, CliError> {
    use crate::algo::Detector;
    let mut untrained = learned.untrained();
    untrained.fit(docs);
    let rows = untrained.labelled_rows(docs, labels);
    cross_validate(learned, rows, labels, pages, k, trained_on)
        .map_err(|e| CliError::Usage(e.to_string()))
}

/// The out-of-fold figures, pooled and per fold.
fn render_cross_validation(k: usize, cv: &CrossValidation) -> String {
    let line = |what: &str, f: &FoldFigures| {
        format!(
            "{what:<28} P {:.3}  R {:.3}  F1 {:.3}\n",
            f.precision, f.recall, f.f1
        )
    };
    let mut text = format!(
        "{k}-fold cross-validation over pages: {} pairs ({} duplicates), each scored by the model that saw neither page ({} models)\n",
        cv.rows.len(),
        cv.rows.positives(),
        k * (k + 1) / 2
    );
    text += &line(
        &format!("out of fold, best at {:.3}", cv.best.threshold),
        &cv.best,
    );
    text += &line("out of fold, at 0.5", &cv.at_half);
    text += "per fold (the pairs with a page in it, each scored by a model trained without it):\n";
    for (f, (best, half, pairs)) in cv.per_fold.iter().enumerate() {
        text += &format!(
            "  fold {f}: {pairs:>6} pairs  F1 {:.3} at {:.3}, {:.3} at 0.5\n",
            best.f1, cv.best.threshold, half.f1
        );
    }
    let spread = |pick: fn(&(FoldFigures, FoldFigures, usize)) -> f64| {
        let values: Vec<f64> = cv.per_fold.iter().map(pick).collect();
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        let sd = (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>()
            / (values.len() as f64 - 1.0).max(1.0))
        .sqrt();
        let (lo, hi) = values
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
                (lo.min(v), hi.max(v))
            });
        format!("mean {mean:.3}, sd {sd:.3}, range {lo:.3} to {hi:.3}")
    };
    text += &format!(
        "spread of fold F1: at {:.3} {}; at 0.5 {}\n",
        cv.best.threshold,
        spread(|f| f.0.f1),
        spread(|f| f.1.f1)
    );
    text
}

fn write_model(
    learned: &LearnedConfig,
    docs: &[crate::algo::Document],
    labels: &Labels,
    trained_on: &str,
    out: &Path,
) -> Result<(), CliError> {
    let trained = crate::algo::learned::train(learned, docs, labels, trained_on)
        .map_err(|e| CliError::Usage(e.to_string()))?;
    trained
        .model
        .write(out)
        .map_err(|e| CliError::Usage(e.to_string()))?;
    let m = &trained.model;
    println!(
        "trained on every labelled pair: {} pairs, {} duplicates ({} of the truth's {} duplicate pairs)",
        m.pairs, m.positives, trained.recall_of_candidates.0, trained.recall_of_candidates.1
    );
    println!("intercept {:+.3}", m.intercept);
    for (name, w) in m.features.iter().zip(&m.weights) {
        println!("  {name:<24} {w:+.3}");
    }
    println!("wrote {}", out.display());
    Ok(())
}
