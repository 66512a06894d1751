//! What `run`, `tune`, `train` and `evaluate` share: loading an experiment
//! (or the embedded demo), building its corpus when missing, running it
//! with progress, and writing and printing its results.

use std::path::{Path, PathBuf};

use super::CliError;
use crate::corpus;
use crate::corpus::build::{self, BuildConfig};
use crate::corpus::demo;
use crate::experiment::{self, ExperimentConfig, ExperimentError};

/// The experiment at `path`, or the embedded demo experiment for `demo`.
pub(super) fn load_experiment(path: &Path) -> Result<(ExperimentConfig, PathBuf), CliError> {
    if path == Path::new("demo") {
        let path = PathBuf::from(demo::DEMO_EXPERIMENT_NAME);
        let config =
            ExperimentConfig::parse(&path, demo::DEMO_EXPERIMENT).map_err(ExperimentError::from)?;
        return Ok((config, path));
    }
    let config = ExperimentConfig::load(path).map_err(ExperimentError::from)?;
    Ok((config, path.to_path_buf()))
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

/// Builds the corpus when the experiment names a builder and the corpus
/// is missing.
pub(super) fn build_if_missing(config: &ExperimentConfig, path: &Path) -> Result<(), CliError> {
    experiment::check_named_files(config, path)?;
    if let (Some(builder), Some(corpus_path)) = (&config.build, config.corpus_path(path)) {
        if !corpus_path.exists() {
            let builder = path.parent().unwrap_or(Path::new(".")).join(builder);
            eprintln!(
                "{} is missing: building it from {} (once)",
                corpus_path.display(),
                builder.display()
            );
            let build = BuildConfig::load(&builder)?;
            let pages = build::build_corpus(&build, builder.parent().unwrap_or(Path::new(".")))?;
            if let Some(dir) = corpus_path.parent() {
                std::fs::create_dir_all(dir).map_err(|source| CliError::Io {
                    path: dir.to_path_buf(),
                    source,
                })?;
            }
            corpus::write_corpus(&pages, &corpus_path)?;
        }
    }
    Ok(())
}

/// Runs the experiment with progress bars on a terminal's stderr; returns
/// its name, its result and the corpus's page ids.
pub(super) fn run_quietly(
    config: &ExperimentConfig,
    path: &Path,
) -> Result<(String, experiment::ExperimentResult, Vec<String>), CliError> {
    let name = experiment::experiment_name(config, path);
    build_if_missing(config, path)?;
    let corpus = experiment::load_corpus(config, path).map_err(ExperimentError::from)?;
    let references = experiment::load_references(config, path).map_err(ExperimentError::from)?;
    let watchers = experiment::Watchers {
        stages: None,
        progress: crate::util::progress::terminal_progress(),
        results: None,
    };
    let ids: Vec<String> = corpus.pages.iter().map(|p| p.id.clone()).collect();
    // A learned judge with `folds` fits on this corpus's labels.
    let mut labelled = config.clone();
    let judged = read_judged(config, path, &ids)?;
    let config = match experiment::attach_learning_labels(&mut labelled, &corpus, judged.as_ref()) {
        true => &labelled,
        false => config,
    };
    let result = experiment::run_experiment_consuming(&name, config, corpus, &references, watchers);
    for (extraction, cache) in &result.extract_cache {
        if let Some(warning) = &cache.warning {
            eprintln!(
                "warning: extraction cache [{}]: {warning}; {} pages extracted again",
                extraction.name(),
                cache.misses
            );
        }
    }
    Ok((name, result, ids))
}

/// The experiment's judged pairs, when it gives its truth so; errors name
/// the pairs file, line and field.
pub(super) fn read_judged(
    config: &ExperimentConfig,
    path: &Path,
    ids: &[String],
) -> Result<Option<crate::eval::judged::JudgedTruth>, CliError> {
    config
        .judged
        .as_ref()
        .map(|spec| {
            crate::eval::judged::JudgedTruth::read(&spec.path(path), ids, spec.positive_from)
                .map_err(|e| CliError::Usage(e.to_string()))
        })
        .transpose()
}

pub(super) fn run_experiment_file(
    config: &ExperimentConfig,
    path: &Path,
    options: RunOptions,
) -> Result<(PathBuf, experiment::ExperimentResult), CliError> {
    let (name, result, ids) = run_quietly(config, path)?;
    let dir = options
        .out
        .clone()
        .unwrap_or_else(|| Path::new("reports").join(&name));
    let judged = read_judged(config, path, &ids)?;
    let evaluations = judged
        .as_ref()
        .map(|truth| experiment::judged::judge(&result, truth));
    let both = judged.as_ref().zip(evaluations.as_deref());
    write_run(&result, config.paper.as_ref(), both, &dir, &options)?;
    if let Some((truth, evaluations)) = both {
        let table = experiment::judged::render_judged(&result, truth, evaluations);
        if options.json {
            eprint!("{table}");
        } else {
            print!("{table}");
        }
        experiment::judged::write_judged(&result, evaluations, &dir)
            .map_err(ExperimentError::from)?;
    }
    if let Some(pairs) = &options.pairs {
        let written = experiment::pairs::write_pairs(&result, &ids, judged.as_ref(), pairs, &dir)
            .map_err(ExperimentError::from)?;
        let names: Vec<String> = written.iter().map(|p| p.display().to_string()).collect();
        eprintln!("wrote the pairs to {}", names.join(" and "));
    }
    Ok((dir, result))
}

/// Prints the summary (table, verbose tables or JSON), writes the results
/// into `dir` and, with `--report`, draws the report beside them.
pub(super) fn write_run(
    result: &experiment::ExperimentResult,
    paper: Option<&crate::experiment::paper::Paper>,
    judged: Option<(
        &crate::eval::judged::JudgedTruth,
        &[Vec<crate::eval::judged::JudgedEvaluation>],
    )>,
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
    let mut written = experiment::results::write_reports_judged(result, paper, judged, dir)
        .map_err(ExperimentError::from)?;
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
