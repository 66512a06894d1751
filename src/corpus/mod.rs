//! Labelled corpora (SPEC section 1): one row per page, with the ground-truth
//! cluster that makes pages near-duplicates of each other.

pub mod build;
pub mod demo;
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

/// What a page carries: HTML (main text is extracted), HTML as raw bytes
/// in some charset (decoded first), or plain text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content {
    Html(String),
    HtmlBytes(Vec<u8>),
    Text(String),
}

impl Content {
    pub fn len(&self) -> usize {
        match self {
            Content::Html(s) | Content::Text(s) => s.len(),
            Content::HtmlBytes(b) => b.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Empty or only whitespace (raw bytes: only ASCII whitespace).
    pub fn is_blank(&self) -> bool {
        match self {
            Content::Html(s) | Content::Text(s) => s.trim().is_empty(),
            Content::HtmlBytes(b) => b.iter().all(u8::is_ascii_whitespace),
        }
    }

    pub fn is_html(&self) -> bool {
        !matches!(self, Content::Text(_))
    }
}

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

/// A page's language. Chinese gets jieba words; every other language
/// Unicode word segmentation. Languages other than Chinese and English keep
/// their primary subtag (`pt`, `ko`, ...) for reporting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Lang {
    Zh,
    En,
    Other(LangTag),
}

/// A primary language subtag of two or three ASCII letters, lower-cased.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LangTag([u8; 3], u8);

impl LangTag {
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.0[..self.1 as usize]).expect("ASCII letters")
    }
}

impl Lang {
    /// Accepts BCP 47-style tags (`zh-CN`, `en_US`, `pt-BR`, `ko`) and the
    /// English names of Chinese and English; `None` for anything else.
    pub fn parse(s: &str) -> Option<Lang> {
        let s = s.trim().to_ascii_lowercase();
        match s.as_str() {
            "chinese" => return Some(Lang::Zh),
            "english" => return Some(Lang::En),
            _ => {}
        }
        let mut subtags = s.split(['-', '_']);
        let primary = subtags.next()?;
        let valid_rest = subtags
            .all(|t| (1..=8).contains(&t.len()) && t.chars().all(|c| c.is_ascii_alphanumeric()));
        if !valid_rest
            || !(2..=3).contains(&primary.len())
            || !primary.chars().all(|c| c.is_ascii_alphabetic())
        {
            return None;
        }
        Some(match primary {
            "zh" => Lang::Zh,
            "en" => Lang::En,
            other => {
                let mut tag = [0u8; 3];
                tag[..other.len()].copy_from_slice(other.as_bytes());
                Lang::Other(LangTag(tag, other.len() as u8))
            }
        })
    }

    pub fn code(&self) -> &str {
        match self {
            Lang::Zh => "zh",
            Lang::En => "en",
            Lang::Other(tag) => tag.as_str(),
        }
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
}

impl ReadOptions {
    /// Pages without `cluster` are allowed (each its own cluster).
    pub fn unlabelled() -> Self {
        ReadOptions {
            require_cluster: false,
        }
    }
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            require_cluster: true,
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
