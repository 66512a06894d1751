//! `s`: the experiment as tuned, written as a complete experiment file.
//!
//! The file is the experiment as it ran with every derived knob written
//! out (an LSH banding chosen for a threshold, say: see
//! [`crate::algo::settings::AlgorithmSettings::pin`]) and the thresholds and
//! gates from the workbench, an algorithm tuned differently on two
//! extractions becoming one entry per extraction. So `neardup run` on the
//! file reproduces every count the workbench showed.

use super::workbench::{Source, Workbench};
use crate::experiment::tune::{tuned_config, TunedRun};
use crate::experiment::ExperimentConfig;

/// The folder, in the working directory, where `s` saves what has no
/// experiment file of its own to sit beside (the demo, a bare corpus).
pub const TUNED_DIR: &str = "tuned";

/// The experiment with the workbench's thresholds and gates.
pub fn tuned(bench: &Workbench) -> ExperimentConfig {
    let runs: Vec<TunedRun> = bench
        .result
        .algorithms
        .iter()
        .zip(&bench.tunings)
        .map(|(r, t)| TunedRun {
            entry: r.entry,
            extraction: r.extraction,
            threshold: t.threshold,
            gates: t.gates.clone(),
            // Written only when the workbench moved it off the configured one.
            clustering: (t.clustering != r.clustering).then_some(t.clustering),
        })
        // Runs still going keep the experiment's threshold and gates (no
        // gates given keeps the configured ones), on their extraction
        // only: a finished run of the same entry may have moved.
        .chain(bench.pending.iter().map(|p| {
            TunedRun {
                entry: p.entry,
                extraction: p.extraction,
                threshold: bench.config.algorithms[p.entry]
                    .config
                    .settings()
                    .threshold(),
                gates: Vec::new(),
                clustering: None,
            }
        }))
        .collect();
    let mut config = tuned_config(
        &bench.config,
        &format!("{}-tuned", bench.result.name),
        &runs,
    )
    .0;
    // A bare corpus is named relative to the working directory, and the
    // file goes into a folder below it: named whole, it still reads.
    if let Source::Corpus(path) = &bench.source {
        if let Ok(whole) = std::path::absolute(path) {
            config.corpus = whole.to_string_lossy().into_owned();
        }
    }
    config
}

/// [`tuned`] as YAML, checked to load.
pub fn tuned_yaml(bench: &Workbench) -> Result<String, String> {
    let body = serde_yaml::to_string(&tuned(bench)).map_err(|e| e.to_string())?;
    let (_, path) = super::loader::experiment_text(&bench.source)?;
    ExperimentConfig::parse(&path, &body)
        .map_err(|e| format!("the tuned experiment does not load: {e}"))?;
    Ok(format!(
        "# {} with the thresholds tuned in the neardup workbench; every knob is\n\
         # written out, so `neardup run` on this file reproduces what it showed.\n{body}",
        bench.source.describe()
    ))
}
