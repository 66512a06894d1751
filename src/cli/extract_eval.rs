//! `neardup extract-eval`: the extractor against main-content gold.

use std::path::PathBuf;

use clap::Args;

use super::CliError;
use crate::{corpus, extract};

#[derive(Args)]
pub struct ExtractEvalArgs {
    #[command(flatten)]
    pub workers: super::WorkerArgs,
    pub dir: PathBuf,
    /// Also list this many pages the main extractor does worst on.
    #[arg(long, default_value_t = 0)]
    pub worst: usize,
    /// Instead, write every page's extractions to this file (JSON
    /// lines), to compare two builds of the extractor with `diff`.
    #[arg(long)]
    pub dump: Option<PathBuf>,
    /// With --dump: parse pages as before the lean parser (every
    /// attribute kept, scraper's tree), to check both agree.
    #[arg(long, requires = "dump")]
    pub reference_parser: bool,
}

pub fn run(args: ExtractEvalArgs) -> Result<(), CliError> {
    let ExtractEvalArgs {
        dir,
        worst,
        dump,
        reference_parser,
        workers: _,
    } = args;
    if let Some(out) = dump {
        extract::use_reference_parser(reference_parser);
        let n = corpus::gold::dump_dir(&dir, &out)?;
        eprintln!("{n} pages written to {}", out.display());
        return Ok(());
    }
    print!("{}", corpus::gold::evaluate_dir(&dir, worst)?);
    Ok(())
}
