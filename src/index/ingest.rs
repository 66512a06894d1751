//! `neardup ingest`: pages as JSONL in, one JSON line out per input line,
//! new pages added to the index a batch at a time.
//!
//! The output tells the truth after a crash: a batch's lines are written
//! only once its pages are committed and its URLs marked seen, and URLs are
//! marked only after their pages are committed. A kill at any moment thus
//! loses no printed page, and a page whose URL is marked is in the index;
//! the worst case (killed between the commit and the marks) is a page
//! ingested again and reported a duplicate of itself.
//!
//! An id names one page's content for good. A page under an id already
//! stored is a `duplicate` when its content is a near copy of a stored
//! page (of itself, typically); otherwise it is refused: its line is an
//! `error` naming the id, it is not stored and its URL is not marked, so
//! the crawler can send it again under a new id (under `--strict` ingest
//! stops there, exit 2). Replacing would mean deleting from segments that
//! are written once, and a crawler that reuses an id for other content
//! more likely has a bug than an update to record.

use std::collections::HashSet;
use std::io::{BufRead, Write};
use std::path::Path;

use serde_json::{json, Value};

use super::urls::{normalize_url, SeenUrls, UrlError};
use super::{fail_point, Index, IndexError, Match};
use crate::corpus::{CorpusError, Page, PageStream};

#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    #[error(transparent)]
    Index(#[from] IndexError),
    #[error(transparent)]
    Url(#[from] UrlError),
    /// A bad line under `--strict`, or input that cannot be read.
    #[error(transparent)]
    Input(#[from] CorpusError),
    #[error("standard output: {0}")]
    Output(std::io::Error),
    /// A page under a stored id with other content, under `--strict`.
    #[error("<stdin>:{line}: {reason}")]
    Refused { line: usize, reason: String },
}

impl IngestError {
    /// 2 for input the user can fix, 1 for the machine's or a server's
    /// failures.
    pub fn exit_code(&self) -> u8 {
        match self {
            IngestError::Input(CorpusError::Invalid { .. }) => 2,
            IngestError::Index(e) if !e.is_environment() => 2,
            IngestError::Url(UrlError::Corrupt { .. }) => 2,
            IngestError::Refused { .. } => 2,
            _ => 1,
        }
    }
}

pub struct IngestOptions<'a> {
    /// New pages per commit.
    pub batch: usize,
    /// The crawler job whose seen set filters URLs.
    pub job: Option<&'a str>,
    /// Stop at the first bad line instead of reporting it and going on.
    pub strict: bool,
}

#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct IngestSummary {
    pub new: usize,
    pub duplicates: usize,
    pub seen_urls: usize,
    pub empty: usize,
    pub errors: usize,
}

impl IngestSummary {
    pub fn lines(&self) -> usize {
        self.new + self.duplicates + self.seen_urls + self.empty + self.errors
    }
}

/// Lines read in one go: their fingerprints are computed in parallel and
/// their URLs looked up in one round trip.
const CHUNK: usize = 256;

/// What waits for the next commit.
#[derive(Default)]
struct Pending {
    pages: Vec<(String, u64)>,
    urls: Vec<String>,
    url_set: HashSet<String>,
    lines: Vec<Value>,
}

struct Ingest<'a, 's, W> {
    index: &'a mut Index,
    seen: Option<(&'a mut (dyn SeenUrls + 's), &'a str)>,
    out: W,
    batch: usize,
    strict: bool,
    pending: Pending,
    /// URLs marked since the current chunk was looked up (the look-up
    /// answered before they were).
    marked: HashSet<String>,
    /// Hashes of the ids stored when ingest began, made at the first page
    /// that is new (the input itself never repeats an id).
    stored_ids: Option<HashSet<u64>>,
    summary: IngestSummary,
}

/// Reads pages from `input` and writes one JSON line per input line to
/// `out` (see the module's comment for when).
pub fn ingest<'a, 's, R: BufRead, W: Write>(
    index: &'a mut Index,
    seen: Option<&'a mut (dyn SeenUrls + 's)>,
    input: R,
    out: W,
    options: &IngestOptions<'a>,
) -> Result<IngestSummary, IngestError> {
    let seen = match (seen, options.job) {
        (Some(seen), Some(job)) => Some((seen, job)),
        _ => None,
    };
    let mut run = Ingest {
        index,
        seen,
        out,
        batch: options.batch.max(1),
        strict: options.strict,
        pending: Pending::default(),
        marked: HashSet::new(),
        stored_ids: None,
        summary: IngestSummary::default(),
    };
    let name = Path::new("<stdin>");
    let mut stream = PageStream::new(input, name);
    loop {
        let mut chunk: Vec<(usize, Page)> = Vec::new();
        let mut stop = None;
        while chunk.len() < CHUNK {
            match stream.next() {
                None => break,
                Some(Ok(page)) => chunk.push((stream.line(), page)),
                Some(Err(e @ CorpusError::Io { .. })) => {
                    stop = Some(e);
                    break;
                }
                Some(Err(e)) if options.strict => {
                    stop = Some(e);
                    break;
                }
                Some(Err(e)) => {
                    // Judge the pages read so far first, so lines keep
                    // their input order.
                    run.judge(std::mem::take(&mut chunk))?;
                    run.summary.errors += 1;
                    let reason = e.to_string();
                    run.pending
                        .lines
                        .push(json!({"line": stream.line(), "status": "error", "error": reason}));
                }
            }
        }
        let done = chunk.is_empty() && stop.is_none();
        run.judge(chunk)?;
        if let Some(e) = stop {
            // What came before the bad line is committed and reported.
            run.commit()?;
            return Err(e.into());
        }
        if done {
            break;
        }
    }
    run.commit()?;
    Ok(run.summary)
}

impl<W: Write> Ingest<'_, '_, W> {
    fn judge(&mut self, chunk: Vec<(usize, Page)>) -> Result<(), IngestError> {
        if chunk.is_empty() {
            return Ok(());
        }
        let fingerprints: Vec<Option<u64>> = {
            use rayon::prelude::*;
            let index = &*self.index;
            chunk
                .par_iter()
                .map(|(_, p)| index.fingerprint(p))
                .collect()
        };
        // Normalised URLs (or why not), then one look-up for the chunk.
        let urls: Vec<Option<Result<String, String>>> = chunk
            .iter()
            .map(|(_, p)| match (&self.seen, &p.url) {
                (Some(_), Some(url)) => Some(normalize_url(url).map_err(|e| e.to_string())),
                _ => None,
            })
            .collect();
        let asked: Vec<String> = urls
            .iter()
            .filter_map(|u| u.as_ref()?.as_ref().ok().cloned())
            .collect();
        let answers = match &mut self.seen {
            Some((seen, job)) => seen.seen(job, &asked)?,
            None => Vec::new(),
        };
        let mut answers = answers.into_iter();
        self.marked.clear();
        for (((line, page), fp), url) in chunk.into_iter().zip(fingerprints).zip(urls) {
            let mut status = self.status(&page, fp, url, &mut answers);
            status["line"] = line.into();
            // A judged page's only error: its id is stored with other content.
            if self.strict && status["status"] == "error" {
                // What came before the refused page is committed and
                // reported, as for a bad line.
                self.commit()?;
                let reason = status["error"].as_str().unwrap_or_default().to_string();
                return Err(IngestError::Refused { line, reason });
            }
            self.pending.lines.push(status);
            if self.pending.pages.len() >= self.batch || self.pending.lines.len() >= 16 * self.batch
            {
                self.commit()?;
            }
        }
        Ok(())
    }

    /// The page's line; a new page joins the pending batch. `answers` holds
    /// the look-up's answers for the URLs that normalised, in order.
    fn status(
        &mut self,
        page: &Page,
        fp: Option<u64>,
        url: Option<Result<String, String>>,
        answers: &mut impl Iterator<Item = bool>,
    ) -> Value {
        let mut url_error = None;
        let mut url_pending = None;
        if let Some(url) = url {
            match url {
                Ok(url) => {
                    let fetched = answers.next().unwrap_or(false)
                        || self.pending.url_set.contains(&url)
                        || self.marked.contains(&url);
                    if fetched {
                        self.summary.seen_urls += 1;
                        return json!({"id": page.id, "status": "seen_url", "url": url});
                    }
                    self.pending.url_set.insert(url.clone());
                    self.pending.urls.push(url.clone());
                    url_pending = Some(url);
                }
                // A malformed URL is the page's problem, not the feed's: it
                // is named on the page's line and the page is judged by
                // content.
                Err(e) => url_error = Some(e),
            }
        }
        let mut status = match fp {
            None => {
                self.summary.empty += 1;
                json!({"id": page.id, "status": "no_text"})
            }
            Some(fp) => {
                // Stored pages first, then the pages not yet committed.
                let k = self.index.settings().k;
                let nearest = self
                    .index
                    .query(fp)
                    .into_iter()
                    .next()
                    .or_else(|| nearest_pending(&self.pending.pages, fp, k));
                match nearest {
                    Some(m) => {
                        self.summary.duplicates += 1;
                        json!({"id": page.id, "status": "duplicate", "of": m.id, "distance": m.distance})
                    }
                    None if self.is_stored(&page.id) => {
                        self.summary.errors += 1;
                        // Not fetched for good: a feed that sends the page
                        // again under a new id must not find its URL seen.
                        if let Some(url) = url_pending {
                            self.pending.urls.pop();
                            self.pending.url_set.remove(&url);
                        }
                        let error = format!(
                            "id `{}` is already stored with other content; an id names one \
                             page's content for good, so give the changed page a new id",
                            page.id
                        );
                        json!({"id": page.id, "status": "error", "error": error})
                    }
                    None => {
                        self.summary.new += 1;
                        self.pending.pages.push((page.id.clone(), fp));
                        json!({"id": page.id, "status": "new"})
                    }
                }
            }
        };
        if let Some(e) = url_error {
            status["url_error"] = e.into();
        }
        status
    }

    /// Whether the index stores a page under `id`: a hash set answers
    /// "no" at once; a "yes" is made sure of by reading the ids.
    fn is_stored(&mut self, id: &str) -> bool {
        let index = &*self.index;
        let hashes = self
            .stored_ids
            .get_or_insert_with(|| index.ids().map(id_hash).collect());
        hashes.contains(&id_hash(id.as_bytes())) && index.ids().any(|s| s == id.as_bytes())
    }

    /// Commits the pending pages, marks their URLs, then writes their
    /// lines: in this order, so nothing printed or marked is lost.
    fn commit(&mut self) -> Result<(), IngestError> {
        let pending = std::mem::take(&mut self.pending);
        self.index.commit(&pending.pages)?;
        if let Some((seen, job)) = &mut self.seen {
            seen.mark(job, &pending.urls)?;
            fail_point("urls-marked");
        }
        self.marked.extend(pending.url_set);
        for line in &pending.lines {
            writeln!(self.out, "{line}").map_err(IngestError::Output)?;
        }
        self.out.flush().map_err(IngestError::Output)
    }
}

fn id_hash(id: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(id)
}

/// The nearest of `pending` within `k` of `fp`.
fn nearest_pending(pending: &[(String, u64)], fp: u64, k: u32) -> Option<Match> {
    pending
        .iter()
        .map(|(id, p)| (id, (p ^ fp).count_ones()))
        .filter(|(_, d)| *d <= k)
        .min_by(|a, b| a.1.cmp(&b.1).then(a.0.cmp(b.0)))
        .map(|(id, distance)| Match {
            id: id.clone(),
            distance,
        })
}
