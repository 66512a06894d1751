//! `neardup evaluate`: pairs and clusters computed elsewhere, scored as
//! `neardup run` scores its own.

use std::path::{Path, PathBuf};

use clap::Args;

use super::experiment_file::{write_run, RunOptions};
use super::CliError;

#[derive(Args)]
pub struct EvaluateArgs {
    /// The labelled corpus the signatures were computed on.
    pub corpus: PathBuf,
    /// A pairs table (a, b, score): a Parquet file or a directory of
    /// them. Repeat for several algorithms.
    #[arg(long, required = true)]
    pub pairs: Vec<PathBuf>,
    /// The clusters (id, cluster) made of each --pairs, in the same
    /// order: scored at the threshold instead of the pairs' closure.
    #[arg(long)]
    pub clusters: Vec<PathBuf>,
    /// Where to write the results (default: reports/external).
    #[arg(long, short)]
    pub out: Option<PathBuf>,
    /// Also draw the report (charts, report.md) into the same directory.
    #[arg(long)]
    pub report: bool,
    /// Skip bad rows of --pairs (a pair given twice, a score outside its
    /// algorithm's range or not finite, an id not in the corpus, a page
    /// paired with itself) instead of refusing the table; the counts of
    /// each kind are printed and kept in the run's notes.
    #[arg(long)]
    pub skip_bad_pairs: bool,
}

pub fn run(args: EvaluateArgs) -> Result<(), CliError> {
    run_evaluate(
        &args.corpus,
        &args.pairs,
        &args.clusters,
        args.out,
        args.report,
        args.skip_bad_pairs,
    )
}

fn run_evaluate(
    corpus_path: &Path,
    pairs: &[PathBuf],
    clusters: &[PathBuf],
    out: Option<PathBuf>,
    report: bool,
    skip_bad_pairs: bool,
) -> Result<(), CliError> {
    use crate::dist::external::{evaluate_external, read_inputs};
    let (corpus, inputs) = read_inputs(corpus_path, pairs, clusters, skip_bad_pairs)?;
    for input in &inputs {
        if let Some(note) = input.pairs.skipped.note(&input.pairs.path) {
            eprintln!("note: {note}");
        }
    }
    let dir = out.unwrap_or_else(|| Path::new("reports").join("external"));
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "external".into());
    let result = evaluate_external(&name, &corpus, &inputs)?;
    // The notes (clusters against the pairs' closure) are in the verbose
    // tables.
    let options = RunOptions {
        out: None,
        report,
        verbose: true,
        json: false,
        pairs: None,
    };
    write_run(&result, None, None, &dir, &options)
}
