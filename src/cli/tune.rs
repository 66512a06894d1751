//! `neardup tune`: each algorithm's threshold chosen on the experiment's
//! corpus, written out as a complete experiment.

use std::path::{Path, PathBuf};

use clap::Args;

use super::experiment_file::{load_experiment, relocate_paths, run_quietly};
use super::CliError;
use crate::experiment::{ExperimentConfig, ExperimentError};

#[derive(Args)]
pub struct TuneArgs {
    #[command(flatten)]
    pub workers: super::WorkerArgs,
    /// The experiment YAML; `demo` is the embedded demo experiment.
    pub experiment: PathBuf,
    /// f1 (pairwise), clustered_f1, or recall_at_precision=P (the most
    /// pairwise recall with precision at least P).
    #[arg(long, default_value = "f1")]
    pub objective: String,
    /// Where to write the tuned experiment.
    #[arg(long, short, required = true)]
    pub out: PathBuf,
}

pub fn run(args: TuneArgs) -> Result<(), CliError> {
    let TuneArgs {
        experiment,
        objective,
        out,
        workers: _,
    } = args;
    let objective: crate::eval::choose::Objective = objective
        .parse()
        .map_err(|e: String| CliError::Usage(format!("--objective: {e}")))?;
    let run = run_quietly(load_experiment(&experiment)?)?;
    let (config, path) = (run.experiment().config(), run.experiment().path());
    let judged = run.judged().map(|j| &**j);
    let tuned = crate::experiment::tune::tune_experiment(config, run.result(), objective, judged)
        .map_err(|e| CliError::Usage(format!("--objective: {e}")))?;
    // Paths in the file stay relative: to where it is written.
    let mut tuned = tuned;
    let out_dir = out.parent().unwrap_or(Path::new(""));
    relocate_paths(&mut tuned, path.parent().unwrap_or(Path::new("")), out_dir);
    let body = serde_yaml::to_string(&tuned)
        .map_err(|e| CliError::Usage(format!("the tuned experiment: {e}")))?;
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| CliError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
    }
    let seeds_note = crate::experiment::tune::seeds_note(config);
    let text = format!(
        "# {} tuned for {objective} by `neardup tune`; every knob is written out.\n{}{body}",
        experiment.display(),
        seeds_note
            .as_ref()
            .map_or(String::new(), |n| format!("# {n}.\n"))
    );
    ExperimentConfig::parse(&out, &text).map_err(ExperimentError::from)?;
    crate::util::io::write_atomic(&out, text.as_bytes()).map_err(|e| CliError::Io {
        path: e.path,
        source: e.source,
    })?;
    let on = tuned.tuned.as_ref().expect("tune records its corpus");
    let over = match judged {
        Some(truth) => format!(" over the judged pairs of {}", truth.source.display()),
        None => String::new(),
    };
    if let Some(note) = &seeds_note {
        println!("{note}.");
    }
    println!("thresholds for {objective}{over} on {}:", on.corpus);
    for f in &on.runs {
        println!(
            "  {} [{}]: {}{} ({} {}){}",
            f.algorithm,
            f.extract.name(),
            f.threshold,
            f.clustering
                .map_or(String::new(), |c| format!(", clustering {c}")),
            objective,
            f.value
                .map_or("not reached".into(), |v| format!("{:.2}%", 100.0 * v)),
            match (f.at_floor, f.algorithm.starts_with("simhash")) {
                (true, true) =>
                    "; at the floor: the best may lie past it (move `floor` to look, \
                     with a wider `index` layout or `candidates: all_pairs`)",
                (true, false) => "; at the floor: the best may lie past it (move `floor` to look)",
                (false, _) => "",
            }
        );
    }
    println!("wrote {}", out.display());
    Ok(())
}
