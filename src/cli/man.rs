//! `neardup man`: the manual page (roff) on stdout, to read with
//! `neardup man | man -l -` or to install as `neardup.1`.

use std::io::Write as _;
use std::path::PathBuf;

use clap::{Args, CommandFactory};

use super::{Cli, CliError};

#[derive(Args)]
pub struct ManArgs {}

pub fn run(_: ManArgs) -> Result<(), CliError> {
    let mut page = Vec::new();
    clap_mangen::Man::new(Cli::command())
        .render(&mut page)
        .map_err(|e| CliError::Usage(format!("the manual page: {e}")))?;
    std::io::stdout()
        .write_all(&page)
        .map_err(|source| CliError::Io {
            path: PathBuf::from("<stdout>"),
            source,
        })
}
