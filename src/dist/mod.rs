//! Beyond one machine: the signatures an experiment computes, written as
//! Parquet for a cluster job (`dist/spark/neardup_join.py`) to join, and the
//! pairs and clusters such a job computes, read back and scored like an
//! in-process run.
//!
//! Each table file carries the settings that made it in its key-value
//! metadata (key [`METADATA_KEY`]), so the job can check that every shard
//! was made the same way and the evaluator knows what it is scoring.

pub mod external;
pub mod signatures;

use std::path::{Path, PathBuf};
use std::str::FromStr;

use polars::prelude::*;

use crate::corpus::CorpusError;
use crate::experiment::ConfigError;
use crate::util::io::FileError;

/// The key-value metadata key holding a table's settings as JSON.
pub const METADATA_KEY: &str = "neardup";

/// Names the layout of the signature tables, so that a job reading an
/// older or newer layout stops instead of misreading it.
pub const FORMAT: &str = "neardup-signatures/1";

#[derive(Debug, thiserror::Error)]
pub enum DistError {
    #[error(transparent)]
    Corpus(#[from] CorpusError),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Io(#[from] FileError),
    /// A table that is not what it should be: the message names the row
    /// and field where there is one.
    #[error("{}: {message}", path.display())]
    Invalid { path: PathBuf, message: String },
    #[error("{0}")]
    Usage(String),
}

impl DistError {
    pub(crate) fn invalid(path: &Path, message: impl Into<String>) -> Self {
        DistError::Invalid {
            path: path.to_path_buf(),
            message: message.into(),
        }
    }
}

/// One machine's share of the pages: those whose id hashes to `index`
/// modulo `count`. The hash (XXH3-64 of the id's UTF-8 bytes) does not
/// depend on the page's position, so any split of the input agrees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl Shard {
    pub const ALL: Shard = Shard { index: 0, count: 1 };

    pub fn holds(&self, id: &str) -> bool {
        xxhash_rust::xxh3::xxh3_64(id.as_bytes()) % u64::from(self.count) == u64::from(self.index)
    }

    /// The file name of this shard's part of a table.
    pub fn file_name(&self) -> String {
        format!("part-{:05}-of-{:05}.parquet", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = String;

    /// `i/N`, 0 <= i < N.
    fn from_str(s: &str) -> Result<Shard, String> {
        let parsed = s.split_once('/').and_then(|(i, n)| {
            Some((i.trim().parse::<u32>().ok()?, n.trim().parse::<u32>().ok()?))
        });
        match parsed {
            Some((index, count)) if count >= 1 && index < count => Ok(Shard { index, count }),
            _ => Err(format!(
                "`{s}`: expected i/N with 0 <= i < N (e.g. 0/4 for the first of four)"
            )),
        }
    }
}

/// Writes `df` to `path` with `metadata` under [`METADATA_KEY`].
pub(crate) fn write_table(
    path: &Path,
    df: &mut DataFrame,
    metadata: &serde_json::Value,
) -> Result<(), DistError> {
    if let Some(dir) = path.parent() {
        crate::util::io::create_dir_all(dir)?;
    }
    let mut file = crate::util::io::AtomicFile::create(path)?;
    let kv = KeyValueMetadata::from_static(vec![(METADATA_KEY.to_string(), metadata.to_string())]);
    ParquetWriter::new(&mut file)
        .with_key_value_metadata(Some(kv))
        .finish(df)
        .map_err(|e| DistError::invalid(path, e.to_string()))?;
    Ok(file.commit()?)
}

/// The Parquet files of a table: the file itself, or every `*.parquet` in
/// a directory (a Spark output), in name order.
pub(crate) fn table_files(path: &Path) -> Result<Vec<PathBuf>, DistError> {
    let io = |source| DistError::Io(FileError::new(path, source));
    if !path.is_dir() {
        std::fs::metadata(path).map_err(io)?;
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(io)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default();
            name.ends_with(".parquet") && !name.starts_with(['.', '_'])
        })
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(DistError::invalid(path, "holds no .parquet files"));
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_split_every_id_exactly_once() {
        let ids: Vec<String> = (0..2000).map(|i| format!("page-{i}")).collect();
        let count = 4;
        let mut sizes = [0usize; 4];
        for id in &ids {
            let owners: Vec<u32> = (0..count)
                .filter(|&index| Shard { index, count }.holds(id))
                .collect();
            assert_eq!(owners.len(), 1, "{id}");
            sizes[owners[0] as usize] += 1;
        }
        // A hash, not a round robin: each shard gets about a quarter.
        assert!(sizes.iter().all(|&s| (400..600).contains(&s)), "{sizes:?}");
        assert!(ids.iter().all(|id| Shard::ALL.holds(id)));
    }

    #[test]
    fn shard_syntax() {
        assert_eq!("3/4".parse(), Ok(Shard { index: 3, count: 4 }));
        for bad in ["4/4", "1/0", "1", "a/b", "-1/3"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }
}
