//! `neardup dedup`: one entry of a (tuned) experiment applied to a corpus
//! without labels: the kept pages, the mapping of every page to its kept
//! page, and a summary.

use std::collections::HashSet;
use std::path::PathBuf;

use clap::Args;

use super::experiment_file::load_experiment;
use super::CliError;
use crate::experiment::dedup::{deduplicate, DedupError, KeepPolicy};
use crate::experiment::mapping::{self, MappingError, PendingDir};

#[derive(Args)]
pub struct DedupArgs {
    #[command(flatten)]
    pub workers: super::WorkerArgs,
    /// The (tuned) experiment, e.g. the file `neardup tune` wrote; `demo`
    /// is the embedded demo experiment.
    pub experiment: PathBuf,
    /// The corpus to deduplicate: JSONL, CSV or Parquet, gzipped or not;
    /// `cluster` is not needed (and ignored).
    pub corpus: PathBuf,
    /// The folder to write: the kept pages (named and formatted as the
    /// input), mapping.parquet, mapping.csv, summary.md, summary.json.
    #[arg(long, short)]
    pub out: PathBuf,
    /// The entry to run, by its label as `run` and `tune` print it, e.g.
    /// `minhash(w=3,n=128,lsh 26x4) [main]` (the extraction may be left
    /// out when only one runs it). Needed when the experiment has more
    /// than one.
    #[arg(long)]
    pub algorithm: Option<String>,
    /// Which page of a cluster is kept (ties go to the smallest id).
    #[arg(long, value_enum, default_value_t = KeepPolicy::First)]
    pub keep: KeepPolicy,
    /// Write the summary only.
    #[arg(long)]
    pub dry_run: bool,
    /// Replace OUT when it exists.
    #[arg(long)]
    pub force: bool,
}

pub fn run(args: DedupArgs) -> Result<(), CliError> {
    let experiment = load_experiment(&args.experiment)?;
    let pending = PendingDir::new(&args.out, args.force).map_err(mapping_error)?;
    let done = deduplicate(
        &experiment,
        &args.corpus,
        args.algorithm.as_deref(),
        args.keep,
        crate::util::progress::terminal_progress(),
    )
    .map_err(|e| match e {
        DedupError::Experiment(e) => CliError::Experiment(e),
        DedupError::Choice(message) => CliError::Usage(message),
    })?;
    let summary = mapping::summarize(&done, args.keep).with_sources(&args.experiment, &args.corpus);
    if !args.dry_run {
        let kept: HashSet<&str> = done
            .rows
            .iter()
            .filter(|r| r.kept == r.page)
            .map(|r| done.facts[r.page as usize].id.as_str())
            .collect();
        let name = args.corpus.file_name().unwrap_or_default();
        crate::corpus::filter::copy_rows(&args.corpus, &pending.path.join(name), &kept)?;
        crate::index::fail_point("dedup-kept-written");
        mapping::write_mapping(&done, &pending.path).map_err(mapping_error)?;
    }
    mapping::write_summary(&summary, &pending.path).map_err(mapping_error)?;
    crate::index::fail_point("dedup-written");
    pending.finish().map_err(mapping_error)?;
    print!("{}", mapping::render_summary(&summary));
    eprintln!("wrote {}", args.out.display());
    Ok(())
}

pub(super) fn mapping_error(e: MappingError) -> CliError {
    match e {
        MappingError::File(e) => CliError::Io {
            path: e.path.clone(),
            source: e.source,
        },
        other => CliError::Usage(other.to_string()),
    }
}
