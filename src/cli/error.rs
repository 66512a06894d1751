//! The one error type the commands return, and the exit code of each kind.

use std::path::PathBuf;

use crate::corpus::build::BuildError;
use crate::corpus::CorpusError;
use crate::experiment::{self, ExperimentError};
use crate::extract;

#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error(transparent)]
    Experiment(#[from] ExperimentError),
    #[error(transparent)]
    Corpus(#[from] CorpusError),
    #[error(transparent)]
    Build(#[from] BuildError),
    #[error(transparent)]
    Gold(#[from] crate::corpus::gold::GoldError),
    #[error(transparent)]
    Index(#[from] crate::index::IndexError),
    #[error(transparent)]
    Url(#[from] crate::index::urls::UrlError),
    #[error(transparent)]
    Ingest(#[from] crate::index::ingest::IngestError),
    #[error(transparent)]
    Report(#[from] crate::report::ReportError),
    #[error(transparent)]
    Dist(#[from] crate::dist::DistError),
    #[error(transparent)]
    Seeds(#[from] experiment::seeds::SeedsError),
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Cache(#[from] extract::cache::CacheError),
    #[error("{0}")]
    Usage(String),
    /// A check that found problems, already listed on stderr: the summary
    /// and the exit code the check chose.
    #[error("{message}")]
    Found { message: String, code: u8 },
}

impl CliError {
    /// 2 for input the user can fix, 1 for failures of ours or the system's.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Experiment(ExperimentError::Report(_)) | CliError::Cache(_) => 1,
            CliError::Io { .. } | CliError::Gold(_) => 2,
            CliError::Ingest(e) => e.exit_code(),
            CliError::Found { code, .. } => *code,
            CliError::Index(e) if e.is_environment() => 1,
            CliError::Url(crate::index::urls::UrlError::Redis { .. }) => 1,
            _ => 2,
        }
    }
}
