//! The command line: the parser's types and one file per subcommand, each
//! holding its arguments and the function that runs it. `src/main.rs` only
//! parses, dispatches and prints the one error at the edge.
//!
//! Exit codes mean one thing each: 0 success, 1 a failure of ours or of the
//! system (an internal error, a full disk, a server that went away), 2 input
//! the user can fix (a bad file, flag or value).

pub mod bench;
pub mod cache;
pub mod check;
pub mod completions;
pub mod corpus;
pub mod dedup;
mod error;
pub mod evaluate;
mod experiment_file;
pub mod extract;
pub mod extract_eval;
pub mod index;
pub mod ingest;
pub mod man;
pub mod report;
pub mod run;
pub mod signatures;
pub mod tag_eval;
pub mod train;
pub mod tui;
pub mod tune;

use clap::{Parser, Subcommand};

pub use error::CliError;

#[derive(Parser)]
#[command(
    name = "neardup",
    version,
    about = "A workbench for evaluating near-duplicate web page detection",
    long_about = "A workbench for evaluating near-duplicate web page detection.\n\n\
                  With no command, opens the workbench on the demo experiment and its embedded corpus."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The flags of the commands that extract pages or score them on a
/// worker pool; the others have no use for them.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct WorkerArgs {
    /// Worker threads (default: one per core; at most four per core).
    /// Results do not depend on it.
    #[arg(long, global = true, value_parser = parse_threads)]
    pub threads: Option<usize>,
    /// Decode and extract every page again instead of reading the
    /// extraction cache (see `neardup cache`), and write nothing to it.
    #[arg(long, global = true)]
    pub no_cache: bool,
}

/// More threads than a few per core only add switching and memory (each
/// worker holds its own buffers), and a typo such as 10000 would start
/// them all.
const THREADS_PER_CORE: usize = 4;

fn parse_threads(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("at least 1 thread is needed".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

impl WorkerArgs {
    /// Sets up the worker pool and the extraction cache; a thread count
    /// past [`THREADS_PER_CORE`] per core is capped, with a note.
    pub fn apply(&self) -> Result<(), CliError> {
        if let Some(asked) = self.threads {
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
            let threads = capped_threads(asked, cores);
            if threads < asked {
                eprintln!(
                    "note: --threads {asked} capped at {threads} ({THREADS_PER_CORE} per core, {cores} cores)"
                );
            }
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build_global()
                .map_err(|e| CliError::Usage(format!("--threads: {e}")))?;
        }
        crate::extract::cache::set_dir(if self.no_cache {
            None
        } else {
            crate::extract::cache::default_dir()
        });
        Ok(())
    }
}

/// The threads to start for `asked` on `cores` cores.
fn capped_threads(asked: usize, cores: usize) -> usize {
    asked.clamp(1, THREADS_PER_CORE * cores.max(1))
}

#[derive(Subcommand)]
pub enum Command {
    /// Open the workbench (the default with no command): tune thresholds,
    /// read the errors, inspect pairs.
    Tui(tui::TuiArgs),
    /// Run an experiment file: print its table and write reports/NAME/.
    Run(run::RunArgs),
    /// Choose each algorithm's threshold on the experiment's corpus and
    /// write the complete experiment with them (run it on another corpus
    /// with `neardup run TUNED.yaml --corpus PATH`).
    Tune(tune::TuneArgs),
    /// Fit the experiment's learned judge (its first `type: learned`
    /// entry) on the experiment's labelled corpus and save the model
    /// (JSON) for `model:` in other experiments.
    Train(train::TrainArgs),
    /// Deduplicate a corpus without labels with one entry of a (tuned)
    /// experiment at its threshold: write the kept pages, the mapping of
    /// every page to its kept page (with the score) and a summary.
    Dedup(dedup::DedupArgs),
    /// Draw charts (PNG, SVG), their data (CSV, Parquet) and report.md from
    /// stored runs (the directories `neardup run` writes); several runs give
    /// comparison charts.
    Report(report::ReportArgs),
    /// Write an experiment's MinHash sketches with their band hashes and
    /// its SimHash fingerprints as Parquet, with their settings, for a
    /// cluster job (dist/spark/neardup_join.py) to join.
    Signatures(signatures::SignaturesArgs),
    /// Score pairs (and clusters) computed elsewhere, e.g. by the Spark
    /// job, as `neardup run` scores its own, and write a run directory
    /// for `neardup report`.
    Evaluate(evaluate::EvaluateArgs),
    /// Extract one page: title, subtitles and main text.
    Extract(extract::ExtractArgs),
    /// Score the extractor against main-content gold in DIR: the article
    /// extraction benchmark, trafilatura's evaluation set, or a folder of
    /// unlabelled pages with a manifest.jsonl; or time it on a corpus file.
    ExtractEval(extract_eval::ExtractEvalArgs),
    /// Throughput of each algorithm's stages on real text, one core:
    /// pages/s, shingles (or tokens) per second, MB/s (shingling, MinHash,
    /// LSH, exact Jaccard, I-Match, SimHash, the semantic method); then the
    /// SimHash index's query latency and self-join per layout; peak memory.
    Bench(bench::BenchArgs),
    /// The persistent SimHash index: plan a layout, build, query.
    Index(index::IndexArgs),
    /// Read pages as JSONL on stdin; for each, say whether it duplicates a
    /// stored page (and which), or whether its URL was already fetched by
    /// the job, and add the new ones to the index. Prints one JSON line
    /// per input line (`status: error` for a bad one), a batch's lines once
    /// the batch is committed.
    Ingest(ingest::IngestArgs),
    /// jieba's POS tags (mapped to PKU's set, as the semantic method's
    /// chunker reads them) against gold-tagged text.
    TagEval(tag_eval::TagEvalArgs),
    /// Inspect and convert corpora.
    Corpus(corpus::CorpusArgs),
    /// The extraction cache: where it is, and emptying it.
    Cache(cache::CacheArgs),
    /// Validate an experiment without running it: the errors `run` would
    /// give (exit 2), or one line of what would run.
    Check(check::CheckArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish,
    /// powershell).
    Completions(completions::CompletionsArgs),
    /// Print the manual page (roff): `neardup man | man -l -`.
    Man(man::ManArgs),
}

impl Command {
    /// The worker flags of a command that takes them.
    pub fn workers(&self) -> Option<&WorkerArgs> {
        Some(match self {
            Command::Tui(a) => &a.workers,
            Command::Run(a) => &a.workers,
            Command::Tune(a) => &a.workers,
            Command::Train(a) => &a.workers,
            Command::Dedup(a) => &a.workers,
            Command::Signatures(a) => &a.workers,
            Command::Evaluate(a) => &a.workers,
            Command::ExtractEval(a) => &a.workers,
            Command::Bench(a) => &a.workers,
            Command::Index(a) => &a.workers,
            Command::Ingest(a) => &a.workers,
            Command::Corpus(a) => &a.workers,
            Command::Report(_)
            | Command::Extract(_)
            | Command::TagEval(_)
            | Command::Cache(_)
            | Command::Check(_)
            | Command::Completions(_)
            | Command::Man(_) => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_are_capped_at_four_per_core_and_zero_is_refused() {
        assert_eq!(capped_threads(10_000, 2), 8);
        assert_eq!(capped_threads(8, 2), 8);
        assert_eq!(capped_threads(3, 2), 3);
        assert!(parse_threads("0").unwrap_err().contains("at least 1"));
        assert_eq!(parse_threads("12"), Ok(12));
    }
}
