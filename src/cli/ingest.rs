//! `neardup ingest`: pages on stdin checked against the index and added.

use std::path::{Path, PathBuf};

use clap::Args;

use super::CliError;

#[derive(Args)]
pub struct IngestArgs {
    #[command(flatten)]
    pub workers: super::WorkerArgs,
    /// An index made by `neardup index build`.
    pub dir: PathBuf,
    /// Pages added per commit (each commit is atomic).
    #[arg(long, default_value_t = 1000)]
    pub batch: usize,
    /// Crawler job whose seen-URL set filters pages first (seed 003);
    /// without it URLs are not checked.
    #[arg(long)]
    pub job: Option<String>,
    /// Seconds a job's seen-URL set lives.
    #[arg(long, default_value_t = 86_400)]
    pub ttl: u64,
    /// Keep the seen-URL sets in Redis (`redis://127.0.0.1:6379`)
    /// instead of beside the index.
    #[arg(long)]
    pub redis: Option<String>,
    /// Wait for another ingest into the same index to finish instead
    /// of refusing to start.
    #[arg(long)]
    pub wait: bool,
    /// Stop at the first bad input line (exit 2) instead of reporting
    /// it on its own line and going on.
    #[arg(long)]
    pub strict: bool,
}

pub fn run(args: IngestArgs) -> Result<(), CliError> {
    let IngestArgs {
        dir,
        batch,
        job,
        ttl,
        redis,
        wait,
        strict,
        workers: _,
    } = args;
    run_ingest(&dir, batch, job, ttl, redis, wait, strict)
}

fn run_ingest(
    dir: &Path,
    batch: usize,
    job: Option<String>,
    ttl: u64,
    redis: Option<String>,
    wait: bool,
    strict: bool,
) -> Result<(), CliError> {
    use crate::index::ingest::{ingest, IngestOptions};
    use crate::index::urls::{EmbeddedSeenUrls, RedisSeenUrls, SeenUrls};
    use crate::index::Index;
    use std::time::Duration;
    if batch == 0 {
        return Err(CliError::Usage("--batch: must be at least 1".into()));
    }
    let mut index = Index::open_writer(dir, wait)?;
    let ttl = Duration::from_secs(ttl.max(1));
    let mut seen: Option<Box<dyn SeenUrls>> = match (&job, redis) {
        (None, _) => None,
        (Some(_), Some(address)) => Some(Box::new(RedisSeenUrls::connect(
            &address,
            ttl,
            Duration::from_secs(5),
        )?)),
        (Some(_), None) => Some(Box::new(EmbeddedSeenUrls::open(
            &dir.join("urls.json"),
            ttl,
        )?)),
    };
    let options = IngestOptions {
        batch,
        job: job.as_deref(),
        strict,
    };
    let s = ingest(
        &mut index,
        seen.as_deref_mut(),
        std::io::stdin().lock(),
        std::io::stdout().lock(),
        &options,
    )?;
    eprintln!(
        "ingested {} lines: {} new, {} duplicates, {} already-fetched URLs, {} without text, {} bad lines; the index holds {}",
        s.lines(),
        s.new,
        s.duplicates,
        s.seen_urls,
        s.empty,
        s.errors,
        index.len()
    );
    Ok(())
}
