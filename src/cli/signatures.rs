//! `neardup signatures`: sketches and fingerprints as Parquet for a cluster job.

use std::path::{Path, PathBuf};

use clap::Args;

use super::CliError;
use crate::corpus::{self, demo, ReadOptions};
use crate::experiment::Experiment;

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
    let (experiment, corpus_path) = if is_yaml {
        let experiment = Experiment::open(input)?;
        let corpus_path = experiment.config().corpus_path(input);
        (experiment, corpus_path)
    } else {
        let defaults = Experiment::parse(DEFAULT_EXPERIMENT, Path::new("<defaults>"))?;
        // Reference corpora are named relative to the input.
        let experiment = Experiment::from_config(defaults.config().clone(), input);
        let corpus_path = (input != Path::new("demo")).then(|| input.to_path_buf());
        (experiment, corpus_path)
    };
    let corpus = match corpus_path {
        None => demo::demo_corpus()?,
        Some(path) => corpus::read_corpus(&path, ReadOptions::unlabelled())?,
    };
    let references = experiment.read_references()?;
    let started = std::time::Instant::now();
    for e in write_signatures(experiment.config(), &corpus, &references, out, shard)? {
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
