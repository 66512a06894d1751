//! The stored runs (`run.json`) read into what the report draws: the run
//! itself, its slices, and the paper's figures placed beside ours.

use std::path::Path;

use super::charts;
use super::ReportError;
use crate::experiment::stored::{StoredRun, RUN_FILE, STORED_RUN_VERSION};

/// Reads a run directory's `run.json`.
pub fn load_run(dir: &Path) -> Result<StoredRun, ReportError> {
    let path = dir.join(RUN_FILE);
    let text = crate::util::io::read_to_string(&path)?;
    let version: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| ReportError::Parse {
            path: path.clone(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })?;
    let found = version.get("version").and_then(|v| v.as_u64()).unwrap_or(0) as u32;
    if found != STORED_RUN_VERSION {
        return Err(ReportError::Version { path, found });
    }
    serde_json::from_str(&text).map_err(|e| ReportError::Parse {
        path,
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })
}

/// The first run's paper rows at the page level, as bars.
pub(super) fn paper_bars(runs: &[(String, StoredRun)]) -> Vec<charts::PaperBar> {
    runs.iter()
        .filter_map(|(_, run)| run.paper.as_ref())
        .take(1)
        .flat_map(|paper| paper.tables.iter().filter(|t| t.level == "page"))
        .flat_map(|t| t.rows.iter())
        .map(|row| charts::PaperBar {
            slice: row.slice.clone(),
            name: row.name.clone(),
            values: [row.precision / 100.0, row.recall / 100.0, row.f / 100.0],
        })
        .collect()
}

/// The first run's paper points, for the precision-recall overview.
pub(super) fn paper_marks(runs: &[(String, StoredRun)]) -> Vec<charts::PaperMark> {
    runs.iter()
        .filter_map(|(_, run)| run.paper.as_ref())
        .take(1)
        .flat_map(|paper| paper.points.iter())
        .map(|p| charts::PaperMark {
            label: p.label.clone(),
            precision: p.precision,
            recall: p.recall,
        })
        .collect()
}

/// Slices in the order of the first run, then any new ones.
pub(super) fn all_slices(runs: &[(String, StoredRun)]) -> Vec<String> {
    let mut slices: Vec<String> = Vec::new();
    for (_, run) in runs {
        for s in &run.slices {
            if !slices.contains(s) {
                slices.push(s.clone());
            }
        }
    }
    slices
}
