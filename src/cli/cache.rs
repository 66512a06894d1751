//! `neardup cache`: where the extraction cache is, and emptying it.

use clap::{Args, Subcommand};

use super::CliError;
use crate::extract;

#[derive(Args)]
pub struct CacheArgs {
    #[command(subcommand)]
    pub command: CacheCommand,
}

#[derive(Subcommand)]
pub enum CacheCommand {
    /// Print the cache folder ($NEARDUP_CACHE_DIR, else
    /// $XDG_CACHE_HOME/neardup, else ~/.cache/neardup).
    Dir,
    /// Remove every cached extraction.
    Clear,
}

pub fn run(args: CacheArgs) -> Result<(), CliError> {
    let CacheArgs { command } = args;
    let dir = extract::cache::default_dir()
        .ok_or_else(|| CliError::Usage("no cache folder: set NEARDUP_CACHE_DIR".into()))?;
    match command {
        CacheCommand::Dir => println!("{}", dir.display()),
        CacheCommand::Clear => {
            let removed = extract::cache::clear(&dir)?;
            println!(
                "removed {removed} files from {}",
                dir.join("extract").display()
            );
        }
    }
    Ok(())
}
