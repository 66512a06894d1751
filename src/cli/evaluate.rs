//! `neardup evaluate`: pairs and clusters computed elsewhere, scored as
//! `neardup run` scores its own.

use std::path::{Path, PathBuf};

use clap::Args;

use super::dedup::mapping_error;
use super::experiment_file::{write_run, RunOptions};
use super::CliError;
use crate::experiment::dedup::{self, KeepPolicy};
use crate::experiment::mapping::{self, PendingDir};

#[derive(Args)]
pub struct EvaluateArgs {
    #[command(flatten)]
    pub workers: super::WorkerArgs,
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
    /// Also write the mapping `neardup dedup` writes (mapping.parquet,
    /// mapping.csv, summary.md, summary.json) into this folder, from the
    /// --clusters when given, else from the pairs at their threshold.
    /// Needs exactly one --pairs.
    #[arg(long, value_name = "OUT")]
    pub mapping: Option<PathBuf>,
    /// With --mapping: which page of a cluster is kept.
    #[arg(long, value_enum, default_value_t = KeepPolicy::First)]
    pub keep: KeepPolicy,
    /// With --mapping: replace OUT when it exists.
    #[arg(long)]
    pub force: bool,
    /// Skip bad rows of --pairs (a pair given twice, a score outside its
    /// algorithm's range or not finite, an id not in the corpus, a page
    /// paired with itself) instead of refusing the table; the counts of
    /// each kind are printed and kept in the run's notes.
    #[arg(long)]
    pub skip_bad_pairs: bool,
}

pub fn run(args: EvaluateArgs) -> Result<(), CliError> {
    if args.mapping.is_some() && args.pairs.len() != 1 {
        return Err(CliError::Usage(format!(
            "--mapping writes one algorithm's mapping; give one --pairs (not {})",
            args.pairs.len()
        )));
    }
    let mapping = args.mapping.map(|out| (out, args.keep, args.force));
    run_evaluate(
        &args.corpus,
        &args.pairs,
        &args.clusters,
        args.out,
        args.report,
        mapping,
        args.skip_bad_pairs,
    )
}

fn run_evaluate(
    corpus_path: &Path,
    pairs: &[PathBuf],
    clusters: &[PathBuf],
    out: Option<PathBuf>,
    report: bool,
    mapping: Option<(PathBuf, KeepPolicy, bool)>,
    skip_bad_pairs: bool,
) -> Result<(), CliError> {
    use crate::dist::external::{evaluate_external, read_inputs};
    let started = std::time::Instant::now();
    let pending = match &mapping {
        Some((out, _, force)) => Some(PendingDir::new(out, *force).map_err(mapping_error)?),
        None => None,
    };
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
    write_run(
        &result,
        |dir| crate::experiment::write_reports(&result, None, dir),
        &dir,
        &options,
    )?;
    if let (Some(pending), Some((out, keep, _))) = (pending, mapping) {
        let given = inputs[0].clusters.as_ref().map(|c| c.1.as_slice());
        let done = map_external(&corpus, &result, given, keep, started);
        let mut summary = mapping::summarize(&done, keep);
        // No experiment here: the workbench takes one on its command line.
        summary.corpus = std::fs::canonicalize(corpus_path).ok();
        mapping::write_mapping(&done, &pending.path).map_err(mapping_error)?;
        mapping::write_summary(&summary, &pending.path).map_err(mapping_error)?;
        pending.finish().map_err(mapping_error)?;
        eprintln!("wrote the mapping to {}", out.display());
    }
    Ok(())
}

/// The job's clusters (or the closure of its pairs at the threshold) as
/// `neardup dedup` maps its own: so the file is the same at any scale.
fn map_external(
    corpus: &crate::corpus::Corpus,
    result: &crate::experiment::ExperimentResult,
    clusters: Option<&[u32]>,
    keep: KeepPolicy,
    started: std::time::Instant,
) -> dedup::Deduplicated {
    let ran = &result.algorithms[0];
    let (pairs, groups) = dedup::passing(&ran.run, ran.threshold);
    let labels = match clusters {
        Some(given) => crate::dist::external::canonical(given),
        None => dedup::cluster_run(corpus.len(), &ran.run, ran.threshold, ran.clustering),
    };
    let facts: Vec<dedup::PageFacts> = corpus
        .pages
        .iter()
        .zip(&result.truth.text_len)
        .map(|(p, &text_len)| dedup::PageFacts {
            id: p.id.clone(),
            url: p.url.clone(),
            published: p.published.clone(),
            text_len,
        })
        .collect();
    let kept = dedup::representatives(&labels, &facts, keep);
    let rows = dedup::mapping(&labels, &kept, &pairs, &groups);
    dedup::Deduplicated {
        label: format!("{} [{}]", ran.run.label, ran.extraction.name()),
        threshold: ran.threshold,
        facts,
        rows,
        skipped_empty: corpus.skipped_empty,
        seconds: started.elapsed().as_secs_f64(),
        peak_memory_bytes: crate::util::stage::peak_memory_bytes(),
    }
}
