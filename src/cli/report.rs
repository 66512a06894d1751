//! `neardup report`: charts, their data and report.md from stored runs.

use std::path::PathBuf;

use clap::Args;

use super::CliError;

#[derive(Args)]
pub struct ReportArgs {
    /// Run directories, each with the run.json that `neardup run` wrote.
    #[arg(required = true)]
    pub runs: Vec<PathBuf>,
    /// Where to write the report.
    #[arg(long, short)]
    pub out: PathBuf,
}

pub fn run(args: ReportArgs) -> Result<(), CliError> {
    let ReportArgs { runs, out } = args;
    let loaded = runs
        .iter()
        .map(|dir| {
            let run = crate::report::load_run(dir)?;
            let name = dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| run.experiment.clone());
            Ok((name, run))
        })
        .collect::<Result<Vec<_>, crate::report::ReportError>>()?;
    let written = crate::report::render_report(&loaded, &out)?;
    if let Some(changes) = crate::report::comparison(&loaded) {
        println!("{changes}");
    }
    println!("wrote {} files to {}", written.len(), out.display());
    Ok(())
}
