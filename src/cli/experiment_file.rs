//! What `run`, `tune`, `train` and `evaluate` share: opening an experiment
//! (or the embedded demo), running it through the front door with
//! progress, and writing and printing its results.

use std::path::{Path, PathBuf};

use super::CliError;
use crate::experiment::{self, Experiment, ExperimentConfig, ExperimentError, PrepareOptions, Run};

/// The experiment at `path`, or the embedded demo experiment for `demo`.
pub(super) fn load_experiment(path: &Path) -> Result<Experiment, CliError> {
    if path == Path::new("demo") {
        return Ok(Experiment::demo()?);
    }
    Ok(Experiment::open(path)?)
}

/// Rewrites the experiment's relative paths (corpus, builder, reference
/// corpora) so that they still name the same files from `to`.
pub(super) fn relocate_paths(config: &mut ExperimentConfig, from: &Path, to: &Path) {
    let here = |p: &Path| {
        if p.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            p.to_path_buf()
        }
    };
    let (from, to) = (here(from), here(to));
    let moved = |named: &str| -> String {
        let p = Path::new(named);
        if p.is_absolute() || named == "demo" || named == "corpus" {
            return named.to_string();
        }
        let absolute = std::path::absolute(from.join(p)).unwrap_or_else(|_| from.join(p));
        match std::path::absolute(&to) {
            Ok(to) => relative_path(&absolute, &to).display().to_string(),
            Err(_) => absolute.display().to_string(),
        }
    };
    config.corpus = moved(&config.corpus);
    config.build = config.build.as_deref().map(moved);
    if let Some(judged) = &mut config.judged {
        judged.pairs = moved(&judged.pairs);
    }
    for entry in &mut config.algorithms {
        entry.config.relocate(&moved);
    }
}

/// `path` relative to the directory `base` (both absolute).
pub(super) fn relative_path(path: &Path, base: &Path) -> PathBuf {
    let path: Vec<_> = path.components().collect();
    let base: Vec<_> = base.components().collect();
    let common = path.iter().zip(&base).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..base.len() {
        out.push("..");
    }
    for c in &path[common..] {
        out.push(c.as_os_str());
    }
    out
}

pub(super) struct RunOptions {
    pub(super) out: Option<PathBuf>,
    pub(super) report: bool,
    pub(super) verbose: bool,
    pub(super) json: bool,
    /// `--pairs`: where the pairs table goes (empty: the results directory).
    pub(super) pairs: Option<PathBuf>,
}

/// Prepares and runs the experiment with progress bars on a terminal's
/// stderr, the corpus built first when missing, and warns of an
/// extraction cache that could not be read or written.
pub(super) fn run_quietly(experiment: Experiment) -> Result<Run, CliError> {
    let options = PrepareOptions {
        build_missing: true,
        ..PrepareOptions::default()
    };
    let prepared = experiment.prepare(options)?;
    let watchers = experiment::Watchers {
        stages: None,
        progress: crate::util::progress::terminal_progress(),
        results: None,
    };
    let run = prepared.run(watchers);
    for (extraction, cache) in &run.result().extract_cache {
        if let Some(warning) = &cache.warning {
            eprintln!(
                "warning: extraction cache [{}]: {warning}; {} pages extracted again",
                extraction.name(),
                cache.misses
            );
        }
    }
    Ok(run)
}

/// Runs the experiment, prints its tables and writes its files (the
/// judged figures and, with `--pairs`, the pairs beside them); returns
/// where they went and the run.
pub(super) fn run_and_write(
    experiment: Experiment,
    options: RunOptions,
) -> Result<(PathBuf, Run), CliError> {
    let run = run_quietly(experiment)?;
    let dir = options
        .out
        .clone()
        .unwrap_or_else(|| Path::new("reports").join(run.name()));
    write_run(run.result(), |dir| run.write_files(dir), &dir, &options)?;
    if let Some(table) = run.judged_table() {
        if options.json {
            eprint!("{table}");
        } else {
            print!("{table}");
        }
        run.write_judged(&dir).map_err(ExperimentError::from)?;
    }
    if let Some(pairs) = &options.pairs {
        let written = run
            .write_pairs(pairs, &dir)
            .map_err(ExperimentError::from)?;
        let names: Vec<String> = written.iter().map(|p| p.display().to_string()).collect();
        eprintln!("wrote the pairs to {}", names.join(" and "));
    }
    Ok((dir, run))
}

/// Prints the summary (table, verbose tables or JSON), writes the results
/// into `dir` and, with `--report`, draws the report beside them.
pub(super) fn write_run(
    result: &experiment::ExperimentResult,
    write_files: impl FnOnce(&Path) -> Result<Vec<PathBuf>, experiment::TableWriteError>,
    dir: &Path,
    options: &RunOptions,
) -> Result<(), CliError> {
    if options.json {
        let summary = experiment::summary::summarize(result);
        println!(
            "{}",
            serde_json::to_string_pretty(&summary).expect("the summary serialises")
        );
    } else {
        if options.verbose {
            println!("{}", experiment::render_summary(result));
        }
        print!("{}", experiment::summary::render_summary_table(result));
    }
    let mut written = write_files(dir).map_err(ExperimentError::from)?;
    if options.report {
        let run = crate::report::load_run(dir)?;
        written.extend(crate::report::render_report(
            &[(result.name.clone(), run)],
            dir,
        )?);
    }
    let files = written.len();
    if !options.json {
        println!("wrote {files} files to {}", dir.display());
    } else {
        eprintln!("wrote {files} files to {}", dir.display());
    }
    Ok(())
}
