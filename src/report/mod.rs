//! `neardup report`: charts (PNG and SVG), the data behind each (CSV and
//! Parquet) and `report.md`, from the `run.json` that `neardup run` stores;
//! nothing is run again. Several runs give comparison charts, one colour
//! per algorithm kept across every chart.
//!
//! `runs` reads the stored runs, `series` turns them into what the charts
//! draw, `figures` lists the figures (each its chart, data and section),
//! `frames` holds the data behind them, `markdown` writes `report.md` and
//! `measures` reads the paper's figures from a run; `seeds` is the report
//! over several seeds.

pub mod charts;
mod clustered;
mod figures;
mod frames;
mod markdown;
mod measures;
mod runs;
pub mod seeds;
mod series;

use std::path::{Path, PathBuf};

use crate::experiment::stored::{StoredRun, STORED_RUN_VERSION};
use crate::util::io::FileError;

pub use markdown::comparison;
pub use runs::load_run;
pub use series::{overview, panels, series_of, Panel, Series, PANEL_SERIES};
// Where the run files' schema lives, under the names the views know.
pub use crate::experiment::{paper, stored};

#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error(transparent)]
    Io(#[from] FileError),
    #[error("{}: line {line}, column {column}: {message}", path.display())]
    Parse {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{}: written by another version of neardup (run.json version {found}, this one reads {STORED_RUN_VERSION}); run the experiment again", path.display())]
    Version { path: PathBuf, found: u32 },
    #[error("{}: drawing {chart}: {message}", path.display())]
    Draw {
        path: PathBuf,
        chart: &'static str,
        message: String,
    },
    #[error(transparent)]
    Data(#[from] crate::experiment::TableWriteError),
    #[error("give at least one run directory")]
    NoRuns,
}

/// Renders every chart, its data and `report.md` into `out`.
pub fn render_report(
    runs: &[(String, StoredRun)],
    out: &Path,
) -> Result<Vec<PathBuf>, ReportError> {
    if runs.is_empty() {
        return Err(ReportError::NoRuns);
    }
    crate::util::io::create_dir_all(out)?;
    charts::register_font().map_err(|message| ReportError::Draw {
        path: out.to_path_buf(),
        chart: "fonts",
        message,
    })?;
    let report = series::ReportData::of(runs);
    let mut written = figures::write_figures(&report, out)?;
    let md = out.join("report.md");
    crate::util::io::write(&md, markdown::markdown(&report))?;
    written.push(md);
    Ok(written)
}
