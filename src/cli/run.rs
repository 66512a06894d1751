//! `neardup run`: an experiment file, over its seeds or on another corpus.

use std::path::{Path, PathBuf};

use clap::Args;

use super::experiment_file::{load_experiment, run_and_write, RunOptions};
use super::CliError;
use crate::experiment::{self, Experiment};

#[derive(Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub workers: super::WorkerArgs,
    /// The experiment YAML, e.g. experiments/demo.yaml; `demo` is the
    /// embedded demo experiment.
    pub experiment: PathBuf,
    /// Where to write the results (default: reports/NAME).
    #[arg(long, short)]
    pub out: Option<PathBuf>,
    /// Also draw the report (charts, report.md) into the same directory.
    #[arg(long)]
    pub report: bool,
    /// Run the experiment's algorithms, at its thresholds, on this corpus
    /// instead (`demo` for the embedded one), and print the transfer
    /// table: the tuning corpus, this corpus, and this corpus's own best.
    #[arg(long)]
    pub corpus: Option<PathBuf>,
    /// Also print the per-slice tables (seed 001's page level and the
    /// pairwise and clustered lines) and the throughput per stage.
    #[arg(long, short)]
    pub verbose: bool,
    /// Print the summary as JSON instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Also write every stored pair, each algorithm's score and the
    /// truth to PATH.parquet and PATH.csv (default: DIR/pairs.*).
    #[arg(long, value_name = "PATH")]
    pub pairs: Option<Option<PathBuf>>,
    /// Run the experiment's own corpus once, leaving its `seeds:` aside.
    #[arg(long)]
    pub no_seeds: bool,
    /// The scale each seed's corpus is built at (overrides `seeds.scale`).
    #[arg(long)]
    pub scale: Option<f64>,
}

pub fn run(args: RunArgs) -> Result<(), CliError> {
    let RunArgs {
        experiment,
        out,
        report,
        corpus,
        verbose,
        json,
        pairs,
        no_seeds,
        scale,
        workers: _,
    } = args;
    let experiment = load_experiment(&experiment)?;
    let options = RunOptions {
        out,
        report,
        verbose,
        json,
        pairs: pairs.map(Option::unwrap_or_default),
    };
    let seeds = experiment
        .config()
        .seeds
        .clone()
        .filter(|_| !no_seeds && corpus.is_none());
    if scale.is_some() && seeds.is_none() {
        return Err(CliError::Usage(
            "--scale sets the scale of a run over `seeds:`; this run has none".into(),
        ));
    }
    let json = options.json;
    match (corpus, seeds) {
        (Some(other), _) => run_transfer(experiment, &other, options),
        (None, Some(seeds)) => run_seeds(&experiment, &seeds, scale, options),
        (None, None) => run_and_write(experiment, options).map(|_| ()),
    }?;
    // Last, so that it covers every file written.
    let totals = crate::util::stage::CommandTotals::now();
    match json {
        true => eprintln!("{totals}"),
        false => println!("{totals}"),
    }
    Ok(())
}

/// `seeds:`: the experiment once per seed, each on the corpus built with
/// it (cached), results in DIR/seed-N/, and with `--report` the report of
/// the mean and spread in DIR.
fn run_seeds(
    experiment: &Experiment,
    seeds: &experiment::seeds::SeedsConfig,
    scale: Option<f64>,
    options: RunOptions,
) -> Result<(), CliError> {
    use experiment::seeds;
    let scale = scale.unwrap_or(seeds.scale);
    if !(scale > 0.0 && scale <= 10.0) {
        return Err(CliError::Usage(format!(
            "--scale: {scale} is out of range (0, 10]"
        )));
    }
    if options
        .pairs
        .as_ref()
        .is_some_and(|p| !p.as_os_str().is_empty())
    {
        return Err(CliError::Usage(
            "--pairs: a run over seeds writes each seed's pairs into its own directory; give no PATH".into(),
        ));
    }
    let (config, path) = (experiment.config(), experiment.path());
    let name = experiment.name();
    let dir = options
        .out
        .clone()
        .unwrap_or_else(|| Path::new("reports").join(&name));
    let mut runs = Vec::new();
    for &seed in &seeds.values {
        let (corpus, built) = seeds::seed_corpus(config, path, seed, scale)?;
        eprintln!(
            "seed {seed}: {} ({})",
            corpus.display(),
            if built { "built now" } else { "cached" }
        );
        if !options.json {
            println!("== seed {seed}");
        }
        let one = seeds::for_seed(config, &corpus, seed);
        let seed_dir = seeds::seed_dir(&dir, seed);
        run_and_write(
            Experiment::from_config(one, path),
            RunOptions {
                out: Some(seed_dir.clone()),
                report: false,
                verbose: options.verbose,
                json: options.json,
                pairs: options.pairs.clone(),
            },
        )?;
        runs.push((seed, crate::report::load_run(&seed_dir)?));
    }
    if options.report {
        let written = crate::report::seeds::render_seeds_report(&name, scale, &runs, &dir)?;
        eprintln!(
            "wrote the report over {} seeds ({} files) to {}",
            runs.len(),
            written.len(),
            dir.display()
        );
    }
    Ok(())
}

/// `run TUNED.yaml --corpus OTHER`: the experiment's algorithms at its
/// thresholds on another corpus, with the transfer table.
fn run_transfer(
    mut experiment: Experiment,
    other: &Path,
    mut options: RunOptions,
) -> Result<(), CliError> {
    let name_before = experiment.name();
    let config = experiment.config_mut();
    config.corpus = if other == Path::new("demo") {
        "demo".into()
    } else {
        std::path::absolute(other)
            .map_err(|source| CliError::Io {
                path: other.to_path_buf(),
                source,
            })?
            .display()
            .to_string()
    };
    config.build = None;
    // Judged pairs name the pages of the corpus they were judged on; the
    // other corpus is scored by its own clusters.
    if let Some(judged) = config.judged.take() {
        eprintln!(
            "note: the judged pairs ({}) name the pages of the experiment's own corpus; \
             on {} the truth is that corpus's clusters",
            judged.pairs,
            other.display()
        );
    }
    let stem = if other == Path::new("demo") {
        "demo".to_string()
    } else {
        other
            .file_name()
            .map(|n| {
                n.to_string_lossy()
                    .split('.')
                    .next()
                    .unwrap_or("corpus")
                    .to_string()
            })
            .unwrap_or_else(|| "corpus".into())
    };
    let name = format!("{name_before}-on-{stem}");
    config.name = Some(name.clone());
    let tuned = config.tuned.clone();
    options.out = options
        .out
        .or_else(|| Some(Path::new("reports").join(&name)));
    let json = options.json;
    let report = options.report;
    let (dir, run) = run_and_write(experiment, options)?;
    let result = run.result();
    let rows = experiment::tune::transfer_table(tuned.as_ref(), result);
    let by_method = experiment::tune::transfer_by_method(result);
    let table = format!(
        "{}\n{}",
        experiment::tune::render_transfer(tuned.as_ref(), &rows, &result.corpus_source),
        experiment::tune::render_transfer_by_method(&by_method)
    );
    let write = |file: &str, text: &str| {
        let p = dir.join(file);
        crate::util::io::write_atomic(&p, text.as_bytes()).map_err(|e| CliError::Io {
            path: e.path,
            source: e.source,
        })
    };
    write("transfer.md", &table)?;
    write(
        "transfer.json",
        &serde_json::to_string_pretty(&rows).expect("rows serialise"),
    )?;
    write(
        "transfer_by_method.json",
        &serde_json::to_string_pretty(&by_method).expect("rows serialise"),
    )?;
    if report {
        // The report opens with what the carried thresholds lost.
        let report_md = dir.join("report.md");
        if let Ok(body) = std::fs::read_to_string(&report_md) {
            write("report.md", &format!("## Transfer\n\n{table}\n{body}"))?;
        }
    }
    if json {
        eprintln!("{table}");
    } else {
        println!("\n{table}");
    }
    Ok(())
}
