//! What `neardup dedup` writes: the mapping of every page to the page
//! kept for its cluster (`mapping.parquet`, `mapping.csv`), the summary
//! (`summary.md`, `summary.json`), all into a folder that appears whole or
//! not at all.

use std::path::{Path, PathBuf};

use polars::prelude::*;
use serde::Serialize;

use super::dedup::{Deduplicated, KeepPolicy};
use crate::util::io::{write_atomic, FileError};

/// Members of the largest cluster the summary lists.
const SAMPLE: usize = 10;

#[derive(Debug, thiserror::Error)]
pub enum MappingError {
    #[error(transparent)]
    File(#[from] FileError),
    #[error("{}: {message}", path.display())]
    Table { path: PathBuf, message: String },
    #[error("{}: already exists; give --force to replace it", .0.display())]
    Exists(PathBuf),
}

/// One row per page: id, cluster, kept_id, score, joined_via, algorithm.
pub fn mapping_frame(done: &Deduplicated) -> PolarsResult<DataFrame> {
    let id = |p: u32| done.facts[p as usize].id.as_str();
    let rows = &done.rows;
    DataFrame::new_infer_height(vec![
        Column::new(
            "id".into(),
            rows.iter().map(|r| id(r.page)).collect::<Vec<_>>(),
        ),
        Column::new(
            "cluster".into(),
            rows.iter().map(|r| r.cluster).collect::<Vec<_>>(),
        ),
        Column::new(
            "kept_id".into(),
            rows.iter().map(|r| id(r.kept)).collect::<Vec<_>>(),
        ),
        Column::new(
            "score".into(),
            rows.iter()
                .map(|r| r.joined_via.map(|v| v.1))
                .collect::<Vec<_>>(),
        ),
        Column::new(
            "joined_via".into(),
            rows.iter()
                .map(|r| r.joined_via.map(|v| id(v.0)))
                .collect::<Vec<_>>(),
        ),
        Column::new("algorithm".into(), vec![done.label.as_str(); rows.len()]),
    ])
}

/// Writes `mapping.parquet` and `mapping.csv` into `dir`.
pub fn write_mapping(done: &Deduplicated, dir: &Path) -> Result<(), MappingError> {
    let table_error = |path: &Path, e: PolarsError| MappingError::Table {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    let parquet = dir.join("mapping.parquet");
    let mut df = mapping_frame(done).map_err(|e| table_error(&parquet, e))?;
    let mut bytes = Vec::new();
    ParquetWriter::new(&mut bytes)
        .finish(&mut df)
        .map_err(|e| table_error(&parquet, e))?;
    write_atomic(&parquet, &bytes)?;
    let csv = dir.join("mapping.csv");
    bytes.clear();
    CsvWriter::new(&mut bytes)
        .finish(&mut df)
        .map_err(|e| table_error(&csv, e))?;
    write_atomic(&csv, &bytes)?;
    Ok(())
}

/// The summary of a deduplication.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// The experiment and corpus the run read, absolute when they exist,
    /// so that `neardup tui --mapping OUT` can reopen them from anywhere.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub experiment: Option<PathBuf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub corpus: Option<PathBuf>,
    pub algorithm: String,
    pub threshold: f64,
    pub keep: KeepPolicy,
    pub pages_in: usize,
    pub kept: usize,
    pub removed: usize,
    /// Rows not read as pages: their `html`/`text` was empty.
    pub skipped_empty: usize,
    /// (cluster size, clusters of that size), by size.
    pub clusters_by_size: Vec<(usize, usize)>,
    pub largest_cluster: Option<LargestCluster>,
    pub seconds: f64,
    pub pages_per_second: f64,
    pub peak_memory_bytes: Option<u64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct LargestCluster {
    pub cluster: u32,
    pub pages: usize,
    pub kept_id: String,
    /// Its first members in input order.
    pub sample: Vec<String>,
}

pub fn summarize(done: &Deduplicated, keep: KeepPolicy) -> Summary {
    let clusters = done
        .rows
        .iter()
        .map(|r| r.cluster)
        .max()
        .map_or(0, |c| c + 1);
    let mut size = vec![0usize; clusters as usize];
    for r in &done.rows {
        size[r.cluster as usize] += 1;
    }
    let mut by_size = std::collections::BTreeMap::new();
    for &s in &size {
        *by_size.entry(s).or_insert(0usize) += 1;
    }
    // The first cluster in input order among the largest.
    let largest = (0..clusters)
        .filter(|&c| size[c as usize] > 1)
        .max_by_key(|&c| (size[c as usize], std::cmp::Reverse(c)));
    let largest_cluster = largest.map(|c| {
        let members: Vec<_> = done.rows.iter().filter(|r| r.cluster == c).collect();
        LargestCluster {
            cluster: c,
            pages: members.len(),
            kept_id: done.facts[members[0].kept as usize].id.clone(),
            sample: members
                .iter()
                .take(SAMPLE)
                .map(|r| done.facts[r.page as usize].id.clone())
                .collect(),
        }
    });
    let pages_in = done.rows.len();
    Summary {
        experiment: None,
        corpus: None,
        algorithm: done.label.clone(),
        threshold: done.threshold,
        keep,
        pages_in,
        kept: clusters as usize,
        removed: pages_in - clusters as usize,
        skipped_empty: done.skipped_empty,
        clusters_by_size: by_size.into_iter().collect(),
        largest_cluster,
        seconds: done.seconds,
        pages_per_second: pages_in as f64 / done.seconds.max(1e-9),
        peak_memory_bytes: done.peak_memory_bytes,
    }
}

impl Summary {
    /// The summary naming the experiment and corpus it came from.
    pub fn with_sources(mut self, experiment: &Path, corpus: &Path) -> Summary {
        let absolute = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        self.experiment = Some(absolute(experiment));
        self.corpus = Some(absolute(corpus));
        self
    }
}

/// The summary as Markdown.
pub fn render_summary(s: &Summary) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(out, "# Deduplication\n");
    let _ = writeln!(
        out,
        "{} at threshold {}, keeping the `{}` page of each cluster.\n",
        s.algorithm,
        crate::util::fmt::threshold(s.threshold),
        serde_json::to_value(s.keep)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default()
    );
    let _ = writeln!(out, "| pages in | kept | removed | pages/s |");
    let _ = writeln!(out, "|---:|---:|---:|---:|");
    let _ = writeln!(
        out,
        "| {} | {} | {} | {:.0} |",
        s.pages_in, s.kept, s.removed, s.pages_per_second
    );
    if s.skipped_empty > 0 {
        let _ = writeln!(
            out,
            "\n{} rows were skipped: their `html`/`text` is empty.",
            s.skipped_empty
        );
    }
    let _ = writeln!(
        out,
        "\n## Clusters by size\n\n| size | clusters |\n|---:|---:|"
    );
    for (size, count) in &s.clusters_by_size {
        let _ = writeln!(out, "| {size} | {count} |");
    }
    if let Some(l) = &s.largest_cluster {
        let _ = writeln!(
            out,
            "\n## The largest cluster\n\nCluster {}: {} pages, `{}` kept. Its first members: {}.",
            l.cluster,
            l.pages,
            l.kept_id,
            l.sample
                .iter()
                .map(|id| format!("`{id}`"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    out
}

/// Writes `summary.md` and `summary.json` into `dir`.
pub fn write_summary(summary: &Summary, dir: &Path) -> Result<(), MappingError> {
    write_atomic(&dir.join("summary.md"), render_summary(summary).as_bytes())?;
    let json = serde_json::to_string_pretty(summary).expect("the summary serialises");
    write_atomic(&dir.join("summary.json"), json.as_bytes())?;
    Ok(())
}

/// A folder filled under a temporary name beside `out` and renamed to it
/// once whole: a run killed before the end leaves no `out`.
pub struct PendingDir {
    pub path: PathBuf,
    out: PathBuf,
}

impl PendingDir {
    /// Refuses an existing `out` unless `force`; clears what killed runs
    /// of the same `out` left beside it.
    pub fn new(out: &Path, force: bool) -> Result<PendingDir, MappingError> {
        if out.exists() && !force {
            return Err(MappingError::Exists(out.to_path_buf()));
        }
        let parent = match out.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        crate::util::io::create_dir_all(&parent)?;
        let name = out.file_name().unwrap_or_default().to_string_lossy();
        let prefix = format!(".{name}.partial-");
        remove_abandoned(&parent, &prefix);
        let path = parent.join(format!("{prefix}{}", std::process::id()));
        if path.exists() {
            std::fs::remove_dir_all(&path).map_err(FileError::at(&path))?;
        }
        crate::util::io::create_dir_all(&path)?;
        Ok(PendingDir {
            path,
            out: out.to_path_buf(),
        })
    }

    /// Moves the finished folder to `out`, replacing one there (`--force`).
    pub fn finish(self) -> Result<(), MappingError> {
        if self.out.exists() {
            let old = self.path.with_extension("old");
            std::fs::rename(&self.out, &old).map_err(FileError::at(&self.out))?;
            std::fs::rename(&self.path, &self.out).map_err(FileError::at(&self.out))?;
            std::fs::remove_dir_all(&old).map_err(FileError::at(&old))?;
        } else {
            std::fs::rename(&self.path, &self.out).map_err(FileError::at(&self.out))?;
        }
        Ok(())
    }
}

impl Drop for PendingDir {
    fn drop(&mut self) {
        // After `finish` the folder is gone; after an error it goes now.
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Temporary folders of runs no longer alive (killed): their process id,
/// the name's tail, names no running process.
fn remove_abandoned(parent: &Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_prefix(prefix)
            .and_then(|tail| tail.split('.').next())
            .and_then(|pid| pid.parse::<i32>().ok())
        else {
            continue;
        };
        // SAFETY: signal 0 sends nothing; it only asks whether the
        // process exists.
        let alive = unsafe { libc::kill(pid, 0) } == 0;
        if !alive || pid == std::process::id() as i32 {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}
