//! `neardup signatures`: sketches and fingerprints as Parquet for a cluster job.

use std::path::{Path, PathBuf};

use clap::Args;

use super::CliError;
use crate::corpus::{self, demo, ReadOptions};
use crate::experiment::{self, ExperimentConfig, ExperimentError};

#[derive(Args)]
pub struct SignaturesArgs {
    #[command(flatten)]
    pub workers: super::WorkerArgs,
    /// An experiment YAML, or a corpus (MinHash at its defaults, SimHash
    /// at k = 3 through 6c3 tables); `demo` for the embedded corpus.
    pub input: PathBuf,
    #[arg(long, short)]
    pub out: PathBuf,
    /// This machine's share, i/N: the pages whose id hashes to i
    /// modulo N (default: all pages).
    #[arg(long)]
    pub shard: Option<String>,
}

pub fn run(args: SignaturesArgs) -> Result<(), CliError> {
    run_signatures(&args.input, &args.out, args.shard)
}

fn run_signatures(input: &Path, out: &Path, shard: Option<String>) -> Result<(), CliError> {
    use crate::dist::signatures::{write_signatures, Exported, DEFAULT_EXPERIMENT};
    let shard = match shard {
        Some(s) => s
            .parse::<crate::dist::Shard>()
            .map_err(|e| CliError::Usage(format!("--shard: {e}")))?,
        None => crate::dist::Shard::ALL,
    };
    let is_yaml = matches!(
        input.extension().and_then(|e| e.to_str()),
        Some("yaml" | "yml")
    );
    let (config, corpus_path) = if is_yaml {
        let config = ExperimentConfig::load(input).map_err(ExperimentError::from)?;
        let corpus_path = config.corpus_path(input);
        (config, corpus_path)
    } else {
        let config = ExperimentConfig::parse(Path::new("<defaults>"), DEFAULT_EXPERIMENT)
            .map_err(ExperimentError::from)?;
        let corpus_path = (input != Path::new("demo")).then(|| input.to_path_buf());
        (config, corpus_path)
    };
    let corpus = match corpus_path {
        None => demo::demo_corpus()?,
        Some(path) => corpus::read_corpus(&path, ReadOptions::unlabelled())?,
    };
    let references = experiment::load_references(&config, input).map_err(ExperimentError::from)?;
    let started = std::time::Instant::now();
    for e in write_signatures(&config, &corpus, &references, out, shard)? {
        match e {
            Exported::Written {
                key,
                label,
                pages,
                signed,
            } => eprintln!("{key}: {label}: {signed} of {pages} pages signed"),
            Exported::Skipped { position, reason } => {
                eprintln!("algorithms[{position}] not exported: {reason}")
            }
        }
    }
    eprintln!(
        "wrote shard {}/{} of {} into {} ({:.2} s)",
        shard.index,
        shard.count,
        corpus.source,
        out.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
