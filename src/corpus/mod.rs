//! Labelled corpora (SPEC section 1): one row per page, with the ground-truth
//! cluster that makes pages near-duplicates of each other.

pub mod build;
pub mod demo;
pub mod english;
pub mod filter;
pub mod gold;
pub mod import;
mod reader;
pub mod stats;
pub mod templates;
mod writer;

use crate::util::io::FileError;
use std::fmt;
use std::path::{Path, PathBuf};

pub use reader::{
    read_corpus, read_corpus_bytes, read_corpus_counted, Format, PageStream, ReadCounter,
};
pub use writer::write_corpus;

/// A file's bytes, gunzipped when they are gzip (by their magic bytes, not
/// the name).
pub fn read_maybe_gzipped(path: &Path) -> std::io::Result<Vec<u8>> {
    let bytes = std::fs::read(path)?;
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return Ok(bytes);
    }
    let mut out = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::MultiGzDecoder::new(&bytes[..]), &mut out)?;
    Ok(out)
}

pub use crate::extract::Content;

/// Publication time, for the retention rule (keep the earlier page).
/// Integers (e.g. Unix seconds) and strings (ISO dates) are both accepted;
/// within one corpus they are expected to be of one kind.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Published {
    Int(i64),
    Text(String),
}

impl fmt::Display for Published {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Published::Int(v) => write!(f, "{v}"),
            Published::Text(s) => f.write_str(s),
        }
    }
}

pub use crate::text::lang::{Lang, LangTag};

impl crate::extract::PageSource for Page {
    fn content(&self) -> &Content {
        &self.content
    }

    fn given_title(&self) -> Option<&str> {
        self.title.as_deref()
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    pub id: String,
    pub cluster: String,
    pub content: Content,
    pub title: Option<String>,
    pub url: Option<String>,
    pub published: Option<Published>,
    pub category: Option<String>,
    pub kind: Option<String>,
    /// Declared language; `None` means "decide by script".
    pub lang: Option<Lang>,
    /// How a built corpus made this page (`original`, `reprint`,
    /// `lead_block`, `synonyms`, ...); free text for other corpora.
    pub op: Option<String>,
}

impl Page {
    /// A page with nothing but an id, a cluster and its content.
    pub fn new(id: impl Into<String>, cluster: impl Into<String>, content: Content) -> Self {
        Page {
            id: id.into(),
            cluster: cluster.into(),
            content,
            title: None,
            url: None,
            published: None,
            category: None,
            kind: None,
            lang: None,
            op: None,
        }
    }

    /// The reporting slice, category x kind; absent parts show as `-`.
    pub fn slice(&self) -> String {
        format!(
            "{}/{}",
            self.category.as_deref().unwrap_or("-"),
            self.kind.as_deref().unwrap_or("-")
        )
    }
}

/// A corpus as read: the pages kept, and what was skipped on the way.
#[derive(Debug, Clone, Default)]
pub struct Corpus {
    /// Where it came from (a path, or `demo` for the embedded corpus).
    pub source: String,
    pub pages: Vec<Page>,
    /// Rows whose `html`/`text` was empty or whitespace: counted and skipped.
    pub skipped_empty: usize,
    /// Rows with no `cluster`, when the reader was told to allow them; each
    /// such page is put in a cluster of its own (it is unlabelled).
    pub unlabelled: usize,
}

impl Corpus {
    pub fn len(&self) -> usize {
        self.pages.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pages.is_empty()
    }

    /// Total bytes of page content, the denominator of MB/s figures.
    pub fn content_bytes(&self) -> usize {
        self.pages.iter().map(|p| p.content.len()).sum()
    }
}

/// How strict the reader is. Experiments need labels; `corpus stats` does
/// not (People's Daily, for instance, carries no clusters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOptions {
    pub require_cluster: bool,
    /// A record's `text` is its content even when it has `html` too (a
    /// benchmark's gold main text beside the page it was cut from).
    pub prefer_text: bool,
}

impl ReadOptions {
    /// Pages without `cluster` are allowed (each its own cluster).
    pub fn unlabelled() -> Self {
        ReadOptions {
            require_cluster: false,
            prefer_text: false,
        }
    }
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            require_cluster: true,
            prefer_text: false,
        }
    }
}

/// Where in a file a problem is: JSONL counts lines, tables count rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    Line(usize),
    Row(usize),
    File,
}

#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    #[error(transparent)]
    Io(#[from] FileError),
    #[error("{}{}: {message}", path.display(), fmt_location(location, field))]
    Invalid {
        path: PathBuf,
        location: Location,
        field: Option<String>,
        message: String,
    },
}

fn fmt_location(location: &Location, field: &Option<String>) -> String {
    let loc = match location {
        Location::Line(n) => format!(":{n}"),
        Location::Row(n) => format!(": row {n}"),
        Location::File => String::new(),
    };
    match field {
        Some(f) => format!("{loc}: field `{f}`"),
        None => loc,
    }
}

impl CorpusError {
    pub(crate) fn invalid(
        path: &Path,
        location: Location,
        field: Option<&str>,
        message: impl Into<String>,
    ) -> Self {
        CorpusError::Invalid {
            path: path.to_path_buf(),
            location,
            field: field.map(str::to_string),
            message: message.into(),
        }
    }
}
