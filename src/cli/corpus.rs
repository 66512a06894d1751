//! `neardup corpus`: statistics, building and importing corpora.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand, ValueEnum};

use super::CliError;
use crate::corpus::build::{self, BuildConfig};
use crate::corpus::{self, demo, stats::CorpusStats, ReadOptions};

#[derive(Args)]
pub struct CorpusArgs {
    #[command(flatten)]
    pub workers: super::WorkerArgs,
    #[command(subcommand)]
    pub command: CorpusCommand,
}

#[derive(Subcommand)]
pub enum CorpusCommand {
    /// Pages, clusters, cluster sizes, languages and slices of a corpus
    /// (JSONL, JSONL.gz, CSV or Parquet; `demo` for the embedded corpus).
    Stats { path: PathBuf },
    /// Build a labelled corpus from real text and page templates (see
    /// datasets/README.md), seeded and deterministic.
    Build {
        /// The builder YAML, e.g. datasets/fan2008.yaml.
        config: PathBuf,
        /// Output file: .jsonl, .jsonl.gz, .csv or .parquet.
        #[arg(long, short)]
        out: PathBuf,
        /// Multiply every count (overrides the file's `scale`).
        #[arg(long)]
        scale: Option<f64>,
        /// Override the file's `seed`.
        #[arg(long)]
        seed: Option<u64>,
    },
    /// Convert a public corpus into neardup's format.
    Import {
        /// Which corpus the directory holds.
        #[arg(value_enum)]
        source: ImportSource,
        /// Its directory, e.g. ../shared/corpora/clough_stevenson_short_answers.
        dir: PathBuf,
        /// Output file: .jsonl, .jsonl.gz, .csv or .parquet.
        #[arg(long, short)]
        out: PathBuf,
    },
}

#[derive(Clone, Copy, ValueEnum)]
pub enum ImportSource {
    /// Clough & Stevenson short answers: cut and light answers duplicate
    /// their task's source; heavy and non answers are unique.
    CloughStevenson,
}

pub fn run(args: CorpusArgs) -> Result<(), CliError> {
    match args.command {
        CorpusCommand::Stats { path } => {
            let corpus = if path == Path::new("demo") {
                demo::demo_corpus()?
            } else {
                corpus::read_corpus(
                    &path,
                    ReadOptions {
                        require_cluster: false,
                        prefer_text: false,
                    },
                )?
            };
            // As `neardup run` refuses it: an empty corpus is an error,
            // not a table of zeros that a script would take for success.
            if corpus.pages.is_empty() {
                let skipped = match corpus.skipped_empty {
                    0 => String::new(),
                    n => format!(" ({n} rows skipped: their html/text is empty)"),
                };
                return Err(corpus::CorpusError::Invalid {
                    path,
                    location: corpus::Location::File,
                    field: None,
                    message: format!("the corpus has no pages{skipped}"),
                }
                .into());
            }
            print!("{}", CorpusStats::of(&corpus));
            Ok(())
        }
        CorpusCommand::Build {
            config,
            out,
            scale,
            seed,
        } => {
            let mut build = BuildConfig::load(&config)?;
            if let Some(scale) = scale {
                if !(scale > 0.0 && scale <= 10.0) {
                    return Err(CliError::Usage(format!(
                        "--scale: {scale} is out of range (0, 10]"
                    )));
                }
                build.scale = scale;
            }
            if let Some(seed) = seed {
                build.seed = seed;
            }
            let base = config.parent().unwrap_or(Path::new("."));
            let pages = build::build_corpus(&build, base)?;
            corpus::write_corpus(&pages, &out)?;
            eprintln!("wrote {} pages to {}", pages.len(), out.display());
            Ok(())
        }
        CorpusCommand::Import { source, dir, out } => {
            let pages = match source {
                ImportSource::CloughStevenson => corpus::import::clough_stevenson(&dir)?,
            };
            corpus::write_corpus(&pages, &out)?;
            eprintln!("wrote {} pages to {}", pages.len(), out.display());
            Ok(())
        }
    }
}
