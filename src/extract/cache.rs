//! The extraction cache: each distinct page's document structure (title,
//! subtitles, paragraphs, sentence spans), kept on disk per corpus and
//! extraction, so that later runs and workbench reloads skip decoding and
//! extraction.
//!
//! One file per corpus and extraction, `DIR/extract/<corpus hash>.<main |
//! full_text>.bin`. Entries are keyed by a hash of the page's content and
//! title; the file's header carries a fingerprint of the extractor (its
//! source and the locked dependency versions), so a changed extractor or a
//! changed page is extracted again, never served stale. The body ends in a
//! checksum: a truncated or damaged file is reported and rebuilt, never
//! trusted. Files are written to a temporary name and renamed into place, so
//! concurrent runs each see a whole file.
//!
//! The cache is off until [`set_dir`] turns it on (the command line does,
//! unless `--no-cache`), so library callers and tests write nothing.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{OnceLock, RwLock};

use xxhash_rust::xxh3::{xxh3_64, Xxh3};

use super::skeleton::{Skeleton, HASHES};
use super::structure::{DocumentStructure, SentenceSpan};
use super::Extraction;
use super::{Content, PageSource};
use crate::util::io::{AtomicFile, FileError};

const MAGIC: &[u8; 8] = b"NDUPXC\r\n";
/// The file layout; bumped when it changes (2: each entry ends in the
/// page's DOM skeleton, for `boilerplate: { group: template }`).
const FORMAT: u32 = 2;
/// Magic, format, fingerprint, entry count.
const HEADER: usize = 8 + 4 + 16 + 8;

/// What the extractor's output depends on: its code and the versions of
/// the crates it calls (html5ever, encoding_rs, chardetng). Any change to
/// them gives another fingerprint, so every page is extracted again.
const EXTRACTOR: [&str; 12] = [
    include_str!("mod.rs"),
    include_str!("dom.rs"),
    include_str!("main_content.rs"),
    include_str!("nesting.rs"),
    include_str!("sink.rs"),
    include_str!("lexer.rs"),
    include_str!("builder.rs"),
    include_str!("decode.rs"),
    include_str!("structure.rs"),
    include_str!("skeleton.rs"),
    include_str!("../text/lang.rs"),
    include_str!("../../Cargo.lock"),
];

#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    #[error(transparent)]
    Io(#[from] FileError),
    #[error("{}: {reason}", path.display())]
    Damaged { path: PathBuf, reason: String },
}

static DIR: RwLock<Option<PathBuf>> = RwLock::new(None);

/// Turns the cache on in `dir` (created when first written), or off.
pub fn set_dir(dir: Option<PathBuf>) {
    *DIR.write().unwrap_or_else(|e| e.into_inner()) = dir;
}

/// Where the cache is, when it is on.
pub fn dir() -> Option<PathBuf> {
    DIR.read().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Where a run keeps its extraction cache. A front end passes it down;
/// `ProcessDefault` is what [`set_dir`] last made the process's (the
/// command line's `--no-cache` and default folder; off until set).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum CacheSetting {
    #[default]
    ProcessDefault,
    Off,
    Dir(PathBuf),
}

impl CacheSetting {
    /// The cache's folder, when the setting turns it on.
    pub fn dir(&self) -> Option<PathBuf> {
        match self {
            CacheSetting::ProcessDefault => dir(),
            CacheSetting::Off => None,
            CacheSetting::Dir(dir) => Some(dir.clone()),
        }
    }
}

/// `$NEARDUP_CACHE_DIR`, else `$XDG_CACHE_HOME/neardup`, else
/// `~/.cache/neardup`.
pub fn default_dir() -> Option<PathBuf> {
    let var = |name| std::env::var_os(name).filter(|v| !v.is_empty());
    var("NEARDUP_CACHE_DIR")
        .map(PathBuf::from)
        .or_else(|| var("XDG_CACHE_HOME").map(|d| PathBuf::from(d).join("neardup")))
        .or_else(|| var("HOME").map(|h| PathBuf::from(h).join(".cache").join("neardup")))
}

/// Removes every cached extraction under `dir`; returns the files removed.
pub fn clear(dir: &Path) -> Result<usize, CacheError> {
    let folder = dir.join("extract");
    let entries = match std::fs::read_dir(&folder) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(source) => return Err(CacheError::Io(FileError::new(folder, source))),
    };
    let mut removed = 0;
    for entry in entries {
        let path = entry.map_err(FileError::at(&folder))?.path();
        if path.extension().is_some_and(|e| e == "bin" || e == "tmp") {
            std::fs::remove_file(&path).map_err(FileError::at(&path))?;
            removed += 1;
        }
    }
    Ok(removed)
}

/// The extractor's fingerprint for one extraction.
fn fingerprint(extraction: Extraction) -> u128 {
    static CODE: OnceLock<u128> = OnceLock::new();
    let code = *CODE.get_or_init(|| {
        let mut h = Xxh3::new();
        for source in EXTRACTOR {
            h.update(&(source.len() as u64).to_le_bytes());
            h.update(source.as_bytes());
        }
        h.digest128()
    });
    let mut h = Xxh3::new();
    h.update(&code.to_le_bytes());
    h.update(extraction.name().as_bytes());
    h.digest128()
}

/// Feeds `h` what a page's extraction depends on: its content (and its
/// kind) and its title.
pub fn hash_input(h: &mut Xxh3, page: &(impl PageSource + ?Sized)) {
    let (tag, bytes): (u8, &[u8]) = match page.content() {
        Content::Html(s) => (0, s.as_bytes()),
        Content::HtmlBytes(b) => (1, b),
        Content::Text(s) => (2, s.as_bytes()),
    };
    h.update(&[tag]);
    h.update(&(bytes.len() as u64).to_le_bytes());
    h.update(bytes);
    match page.given_title() {
        Some(t) => {
            h.update(&[1]);
            h.update(&(t.len() as u64).to_le_bytes());
            h.update(t.as_bytes());
        }
        None => h.update(&[0]),
    }
}

/// A page's key in the cache.
pub fn page_key(page: &(impl PageSource + ?Sized)) -> u128 {
    let mut h = Xxh3::with_seed(0x6e64_7570_6361_6368);
    hash_input(&mut h, page);
    h.digest128()
}

/// The file of one corpus and extraction under `dir`. A corpus read from
/// a path is named by its absolute path, so runs from any folder share it.
pub fn file_for(dir: &Path, corpus_source: &str, extraction: Extraction) -> PathBuf {
    let source = std::fs::canonicalize(corpus_source)
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|_| corpus_source.to_string());
    dir.join("extract").join(format!(
        "{:016x}.{}.bin",
        xxh3_64(source.as_bytes()),
        extraction.name()
    ))
}

/// A cache file as checked: where each entry lies, each read from the
/// file and decoded when asked for, so that a run holds the structures it
/// decodes and never the whole file beside them.
#[derive(Debug)]
pub struct ExtractCache {
    path: PathBuf,
    extraction: Extraction,
    /// The file as opened and checked. Writers replace the file by
    /// renaming a new one into place, so this one stays the one checked.
    file: Option<File>,
    /// Each entry's offset in the file and length.
    entries: HashMap<u128, (u64, u32)>,
}

/// What reading the cache found, for the run to report.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CacheReport {
    pub path: PathBuf,
    /// Distinct pages read from the cache, and extracted.
    pub hits: usize,
    pub misses: usize,
    /// Why the file was not used or not written (damaged, other version,
    /// unwritable), when that happened.
    pub warning: Option<String>,
}

impl ExtractCache {
    /// Reads `path`. A missing file is an empty cache; a damaged one, or
    /// one written by another extractor or format, is an empty cache with
    /// the reason (the caller warns and rebuilds it).
    pub fn open(path: PathBuf, extraction: Extraction) -> (ExtractCache, Option<String>) {
        let mut cache = ExtractCache {
            path,
            extraction,
            file: None,
            entries: HashMap::new(),
        };
        let file = match File::open(&cache.path) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return (cache, None),
            Err(source) => {
                let e = CacheError::Io(FileError::new(cache.path.clone(), source));
                return (cache, Some(e.to_string()));
            }
        };
        match scan(&file, fingerprint(extraction)) {
            Ok(Some(entries)) => {
                cache.entries = entries;
                cache.file = Some(file);
                (cache, None)
            }
            // Another extractor's file: replaced without a word, as the
            // extractor changed on purpose.
            Ok(None) => (cache, None),
            Err(reason) => {
                let e = CacheError::Damaged {
                    path: cache.path.clone(),
                    reason,
                };
                (cache, Some(e.to_string()))
            }
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The structure stored for `key`; `None` when absent (or, for a file
    /// whose checksum matched yet whose entry does not decode, treated as
    /// absent: the page is extracted again).
    /// A read that fails is a miss too.
    pub fn get(&self, key: u128) -> Option<DocumentStructure> {
        let &(at, len) = self.entries.get(&key)?;
        let mut bytes = vec![0; len as usize];
        read_exact_at(self.file.as_ref()?, &mut bytes, at).ok()?;
        decode_entry(&bytes)
    }

    /// Replaces the file with `entries` (the run's distinct pages: pages no
    /// longer in the corpus leave the cache).
    pub fn write<'a>(
        &self,
        entries: impl IntoIterator<Item = (u128, &'a DocumentStructure)>,
    ) -> Result<(), CacheError> {
        let path = &self.path;
        if let Some(dir) = path.parent() {
            crate::util::io::create_dir_all(dir)?;
        }
        // Streamed to a temporary file and renamed over the old one:
        // readers see a whole file, and the run never holds the file's
        // bytes beside the structures they come from.
        let mut file = AtomicFile::create(path)?;
        serialize_into(&mut file, fingerprint(self.extraction), entries)
            .map_err(FileError::at(path))?;
        Ok(file.commit()?)
    }
}

#[cfg(unix)]
fn read_exact_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, at)
}

#[cfg(windows)]
fn read_exact_at(file: &File, mut buf: &mut [u8], mut at: u64) -> io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        match file.seek_read(buf, at) {
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => {
                buf = &mut buf[n..];
                at += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Bytes passed through, hashed on the way: the file's checksum is made
/// and checked as it streams.
struct Hashing<T> {
    inner: T,
    hash: Xxh3,
}

impl<T> Hashing<T> {
    fn new(inner: T) -> Self {
        Hashing {
            inner,
            hash: Xxh3::new(),
        }
    }
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hash.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hash.update(&buf[..n]);
        Ok(n)
    }
}

fn put_u32(out: &mut Vec<u8>, v: usize) {
    out.extend_from_slice(&(v as u32).to_le_bytes());
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_u32(out, s.len());
    out.extend_from_slice(s.as_bytes());
}

/// Whether `s` fits the format's u32 lengths.
fn fits(s: &DocumentStructure) -> bool {
    s.paragraphs()
        .chain(s.subtitles.iter().map(String::as_str))
        .chain(s.title.as_deref())
        .all(|p| p.len() <= u32::MAX as usize)
}

fn put_structure(out: &mut Vec<u8>, s: &DocumentStructure) {
    match &s.title {
        Some(t) => {
            out.push(1);
            put_str(out, t);
        }
        None => out.push(0),
    }
    put_u32(out, s.subtitles.len());
    for t in &s.subtitles {
        put_str(out, t);
    }
    put_u32(out, s.paragraph_count());
    for p in s.paragraphs() {
        put_str(out, p);
    }
    put_u32(out, s.sentence_count());
    for span in s.sentence_spans() {
        put_u32(out, span.paragraph);
        put_u32(out, span.start);
        put_u32(out, span.end);
    }
    match &s.skeleton {
        Some(skeleton) => {
            out.push(1);
            for v in skeleton.0 {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        None => out.push(0),
    }
}

/// The whole file: header, entries (key, length, structure), checksum.
fn serialize_into<'a>(
    out: impl Write,
    fingerprint: u128,
    entries: impl IntoIterator<Item = (u128, &'a DocumentStructure)>,
) -> io::Result<()> {
    // Strings past 4 GiB do not fit the u32 lengths: such a page is simply
    // not cached. The header counts the entries, so they are chosen first.
    let mut seen = std::collections::HashSet::new();
    let kept: Vec<(u128, &DocumentStructure)> = entries
        .into_iter()
        .filter(|(key, s)| fits(s) && seen.insert(*key))
        .collect();
    drop(seen);
    let mut out = Hashing::new(out);
    out.write_all(MAGIC)?;
    out.write_all(&FORMAT.to_le_bytes())?;
    out.write_all(&fingerprint.to_le_bytes())?;
    out.write_all(&(kept.len() as u64).to_le_bytes())?;
    let mut entry = Vec::new();
    for (key, s) in kept {
        entry.clear();
        put_structure(&mut entry, s);
        out.write_all(&key.to_le_bytes())?;
        out.write_all(&(entry.len() as u32).to_le_bytes())?;
        out.write_all(&entry)?;
    }
    let checksum = out.hash.digest();
    out.inner.write_all(&checksum.to_le_bytes())
}

/// The entries' positions, read in one streaming pass that checks the
/// checksum; `Ok(None)` for a whole file of another format or extractor,
/// `Err` for a damaged one.
#[allow(clippy::type_complexity)]
fn scan(file: &File, fingerprint: u128) -> Result<Option<HashMap<u128, (u64, u32)>>, String> {
    let size = file.metadata().map_err(|e| e.to_string())?.len();
    let read = |e: io::Error| format!("{e} (truncated or damaged)");
    let mut reader = io::BufReader::with_capacity(1 << 20, file);
    let mut header = [0u8; HEADER];
    if size < (HEADER + 8) as u64
        || reader.read_exact(&mut header).is_err()
        || &header[..8] != MAGIC
    {
        return Err(format!(
            "not an extraction cache file, or truncated ({size} bytes)"
        ));
    }
    let body_len = size - 8;
    let mut body = Hashing::new((&mut reader).take(body_len - HEADER as u64));
    body.hash.update(&header);
    let format = u32::from_le_bytes(header[8..12].try_into().expect("4 bytes"));
    let file_fingerprint = u128::from_le_bytes(header[12..28].try_into().expect("16 bytes"));
    let count = u64::from_le_bytes(header[28..36].try_into().expect("8 bytes"));
    let ours = format == FORMAT && file_fingerprint == fingerprint;
    let mut entries = HashMap::new();
    // Damage found in the entries is reported only once the checksum
    // matched: a checksum that does not is the first thing wrong.
    let mut damage = None;
    let mut at = HEADER as u64;
    while ours && at < body_len {
        let mut head = [0u8; 20];
        if body_len - at < 20 {
            damage = Some(format!("entry at byte {at} is cut short"));
            break;
        }
        body.read_exact(&mut head).map_err(read)?;
        let key = u128::from_le_bytes(head[..16].try_into().expect("16 bytes"));
        let len = u32::from_le_bytes(head[16..].try_into().expect("4 bytes"));
        let start = at + 20;
        if body_len - start < u64::from(len) {
            damage = Some(format!("entry at byte {at} runs past the end"));
            break;
        }
        let skipped = io::copy(&mut (&mut body).take(u64::from(len)), &mut io::sink());
        if skipped.map_err(read)? != u64::from(len) {
            return Err(read(io::ErrorKind::UnexpectedEof.into()));
        }
        entries.insert(key, (start, len));
        at = start + u64::from(len);
    }
    io::copy(&mut body, &mut io::sink()).map_err(read)?;
    let digest = body.hash.digest();
    let mut tail = [0u8; 8];
    reader.read_exact(&mut tail).map_err(read)?;
    if digest != u64::from_le_bytes(tail) {
        return Err("checksum mismatch (truncated or damaged)".into());
    }
    if !ours {
        return Ok(None);
    }
    if let Some(damage) = damage {
        return Err(damage);
    }
    if entries.len() as u64 != count {
        return Err(format!(
            "{} entries where the header says {count}",
            entries.len()
        ));
    }
    Ok(Some(entries))
}

/// Reads one entry; `None` when its bytes do not make a structure.
fn decode_entry(bytes: &[u8]) -> Option<DocumentStructure> {
    let mut r = Reader { bytes, at: 0 };
    let title = match r.byte()? {
        0 => None,
        1 => Some(r.string()?),
        _ => return None,
    };
    let subtitles = r.strings()?;
    let paragraphs = r.strs()?;
    let n = r.u32()? as usize;
    // Each span takes 12 bytes: a count past what is left is damage.
    if n > r.remaining() / 12 {
        return None;
    }
    let mut spans = Vec::with_capacity(n);
    for _ in 0..n {
        spans.push(SentenceSpan {
            paragraph: r.u32()? as usize,
            start: r.u32()? as usize,
            end: r.u32()? as usize,
        });
    }
    let skeleton = match r.byte()? {
        0 => None,
        1 => {
            let mut values = [0u32; HASHES];
            for v in &mut values {
                *v = r.u32()?;
            }
            Some(Skeleton(values))
        }
        _ => return None,
    };
    if r.remaining() != 0 {
        return None;
    }
    let mut structure = DocumentStructure::try_from_spans(title, subtitles, &paragraphs, &spans)?;
    structure.skeleton = skeleton;
    Some(structure)
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn remaining(&self) -> usize {
        self.bytes.len() - self.at
    }

    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let out = self.bytes.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(out)
    }

    fn byte(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }

    fn u32(&mut self) -> Option<u32> {
        self.take(4)
            .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
    }

    fn str(&mut self) -> Option<&'a str> {
        let n = self.u32()? as usize;
        std::str::from_utf8(self.take(n)?).ok()
    }

    fn string(&mut self) -> Option<String> {
        self.str().map(str::to_string)
    }

    /// Strings read where they lie: paragraphs are copied once, into the
    /// structure's text.
    fn strs(&mut self) -> Option<Vec<&'a str>> {
        let n = self.u32()? as usize;
        if n > self.remaining() / 4 {
            return None;
        }
        (0..n).map(|_| self.str()).collect()
    }

    fn strings(&mut self) -> Option<Vec<String>> {
        Some(self.strs()?.into_iter().map(str::to_string).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Page;
    use crate::extract::{extract_page, Extraction};

    fn page(id: &str, html: &str) -> Page {
        Page::new(id, id, Content::Html(html.to_string()))
    }

    fn pages() -> Vec<Page> {
        vec![
            page(
                "a",
                "<html><head><title>地铁开通_新浪网</title></head><body><div class='nav'>\
                 <a href='/'>首页</a></div><div id='zhengwen'><h2>小标题</h2>\
                 <p>本报讯，经过四年建设，江城地铁五号线今天上午九时正式开通试运营。他说：“好！”</p>\
                 <p>据地铁公司介绍，五号线采用六节编组列车。</p></div></body></html>",
            ),
            page(
                "b",
                "<html><body><header><nav><ul><li>Home</li><li>News</li></ul></nav></header>\
                 <article><p>The council met on Monday. It voted, at last, \
                 to rebuild the bridge.</p><p>Work starts in May.</p></article>\
                 <aside><p>Most read</p></aside><footer><p>Contact</p></footer></body></html>",
            ),
            page("c", ""),
        ]
    }

    fn cached(dir: &Path, extraction: Extraction) -> (ExtractCache, Option<String>) {
        ExtractCache::open(file_for(dir, "corpus.jsonl", extraction), extraction)
    }

    #[test]
    fn a_written_cache_gives_back_what_was_extracted() {
        let dir = tempfile::tempdir().unwrap();
        for extraction in [Extraction::Main, Extraction::FullText] {
            let pages = pages();
            let extracted: Vec<_> = pages
                .iter()
                .map(|p| (page_key(p), extract_page(p, extraction).structure))
                .collect();
            assert!(extracted.iter().any(|(_, s)| s.sentence_count() > 0));
            // What template grouping reads comes back too.
            assert!(extracted.iter().any(|(_, s)| s.skeleton.is_some()));
            let (cache, warning) = cached(dir.path(), extraction);
            assert!(cache.is_empty() && warning.is_none());
            cache.write(extracted.iter().map(|(k, s)| (*k, s))).unwrap();
            let (cache, warning) = cached(dir.path(), extraction);
            assert_eq!((cache.len(), warning), (3, None));
            for (key, structure) in &extracted {
                assert_eq!(cache.get(*key).as_ref(), Some(structure));
            }
        }
    }

    #[test]
    fn a_streamed_file_has_the_checksum_of_its_whole_body() {
        // Files written before writes were streamed hashed the body in one
        // call: both must agree, or every existing file reads as damaged.
        let dir = tempfile::tempdir().unwrap();
        let s = extract_page(&pages()[1], Extraction::Main).structure;
        let (cache, _) = cached(dir.path(), Extraction::Main);
        cache
            .write([(1u128, &s), (2u128, &s), (1u128, &s)])
            .unwrap();
        let bytes = std::fs::read(file_for(dir.path(), "corpus.jsonl", Extraction::Main)).unwrap();
        let (body, tail) = bytes.split_at(bytes.len() - 8);
        assert_eq!(xxh3_64(body).to_le_bytes(), tail);
        assert_eq!(body[HEADER - 8..HEADER], 2u64.to_le_bytes());
    }

    #[cfg(unix)]
    #[test]
    fn entries_come_from_the_file_as_it_was_checked() {
        // Another run may replace the file (renaming a new one over it)
        // while this one reads: this one keeps reading the file it checked.
        let dir = tempfile::tempdir().unwrap();
        let pages = pages();
        let s = extract_page(&pages[1], Extraction::Main).structure;
        let (cache, _) = cached(dir.path(), Extraction::Main);
        cache.write([(1u128, &s)]).unwrap();
        let (opened, warning) = cached(dir.path(), Extraction::Main);
        assert_eq!((opened.len(), warning), (1, None));
        let other = extract_page(&pages[0], Extraction::Main).structure;
        cache.write([(1u128, &other)]).unwrap();
        assert_eq!(opened.get(1).as_ref(), Some(&s));
        assert_eq!(cached(dir.path(), Extraction::Main).0.get(1), Some(other));
    }

    #[test]
    fn another_extraction_or_content_misses() {
        let dir = tempfile::tempdir().unwrap();
        let p = &pages()[0];
        let s = extract_page(p, Extraction::Main).structure;
        let (cache, _) = cached(dir.path(), Extraction::Main);
        cache.write([(page_key(p), &s)]).unwrap();
        // The same file read by another extractor's settings is empty, and
        // says nothing: that extractor changed on purpose.
        let path = file_for(dir.path(), "corpus.jsonl", Extraction::Main);
        let (other, warning) = ExtractCache::open(path, Extraction::FullText);
        assert!(other.is_empty() && warning.is_none());
        assert_ne!(
            fingerprint(Extraction::Main),
            fingerprint(Extraction::FullText)
        );
        // A changed page or title has another key.
        let mut edited = p.clone();
        edited.title = Some("another title".into());
        assert_ne!(page_key(p), page_key(&edited));
        let (cache, _) = cached(dir.path(), Extraction::Main);
        assert!(cache.get(page_key(&edited)).is_none());
        assert!(cache.get(page_key(p)).is_some());
    }

    #[test]
    fn damaged_files_are_reported_and_never_trusted() {
        let dir = tempfile::tempdir().unwrap();
        let pages = pages();
        let extracted: Vec<_> = pages
            .iter()
            .map(|p| (page_key(p), extract_page(p, Extraction::Main).structure))
            .collect();
        let (cache, _) = cached(dir.path(), Extraction::Main);
        cache.write(extracted.iter().map(|(k, s)| (*k, s))).unwrap();
        let path = file_for(dir.path(), "corpus.jsonl", Extraction::Main);
        let good = std::fs::read(&path).unwrap();
        // Every truncation, and a flipped bit in every byte.
        let mut damaged: Vec<Vec<u8>> = (0..good.len()).map(|n| good[..n].to_vec()).collect();
        for i in 0..good.len() {
            let mut d = good.clone();
            d[i] ^= 0x10;
            damaged.push(d);
        }
        for d in damaged {
            std::fs::write(&path, &d).unwrap();
            let (cache, warning) = ExtractCache::open(path.clone(), Extraction::Main);
            // A flip inside the fingerprint or format reads as another
            // extractor's file only if the checksum still matched, which a
            // single flipped bit never does.
            assert!(warning.is_some(), "{} bytes", d.len());
            assert!(cache.is_empty());
        }
    }

    #[test]
    fn entries_that_do_not_decode_are_misses() {
        // Past the checksum (written by a buggy writer, say), a bad entry
        // must still give no structure rather than a panic or a wrong one.
        let s = extract_page(&pages()[1], Extraction::Main).structure;
        let mut file = Vec::new();
        serialize_into(&mut file, fingerprint(Extraction::Main), [(7u128, &s)]).unwrap();
        let entry = &file[HEADER + 20..file.len() - 8];
        assert_eq!(decode_entry(entry).as_ref(), Some(&s));
        for n in 0..entry.len() {
            assert!(decode_entry(&entry[..n]).is_none());
        }
        for i in 0..entry.len() {
            for flip in [0x01, 0x80] {
                let mut e = entry.to_vec();
                e[i] ^= flip;
                if let Some(d) = decode_entry(&e) {
                    // A flip inside the text gives other text, well formed.
                    assert_eq!(d.paragraph_count(), s.paragraph_count());
                }
            }
        }
    }

    #[test]
    fn entries_keep_the_layout_of_format_2() {
        // Title, subtitles, paragraphs as strings, sentences as spans of
        // their paragraph, skeleton: what files of this format hold, read
        // into the compact structure and written back byte for byte.
        let mut entry = vec![1u8];
        put_str(&mut entry, "题");
        put_u32(&mut entry, 1);
        put_str(&mut entry, "小标题");
        put_u32(&mut entry, 2);
        put_str(&mut entry, "甲。乙！");
        put_str(&mut entry, "Done.");
        put_u32(&mut entry, 3);
        for v in [0, 0, 6, 0, 6, 12, 1, 0, 5] {
            put_u32(&mut entry, v);
        }
        entry.push(0);
        let s = decode_entry(&entry).expect("a well-formed entry");
        let made = DocumentStructure::new(
            Some("题".into()),
            vec!["小标题".into()],
            vec!["甲。乙！".into(), "Done.".into()],
        );
        assert_eq!(s, made);
        assert_eq!(s.text(), "甲。乙！\nDone.");
        assert_eq!(s.sentence(2).text, "Done.");
        let mut again = Vec::new();
        put_structure(&mut again, &s);
        assert_eq!(again, entry);
        // A span past its paragraph is damage, not a shorter sentence.
        let past = entry.len() - 1 - 4;
        entry[past..past + 4].copy_from_slice(&6u32.to_le_bytes());
        assert!(decode_entry(&entry).is_none());
    }

    #[test]
    fn clear_removes_the_files() {
        let dir = tempfile::tempdir().unwrap();
        let s = extract_page(&pages()[1], Extraction::Main).structure;
        let (cache, _) = cached(dir.path(), Extraction::Main);
        cache.write([(1u128, &s)]).unwrap();
        assert_eq!(clear(dir.path()).unwrap(), 1);
        assert!(cached(dir.path(), Extraction::Main).0.is_empty());
        assert_eq!(clear(&dir.path().join("none")).unwrap(), 0);
    }
}
