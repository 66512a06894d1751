//! The persistent SimHash index a crawler keeps (seeds 003 and 004): the
//! fingerprints of stored pages in permuted sorted tables on disk, memory-
//! mapped so that a query needs no load step, and grown by ingesting new
//! pages.
//!
//! A directory holds `manifest.json` and one folder per segment. A segment
//! is written whole into a temporary folder, synced, and renamed into
//! place; the manifest naming the segments (and each file's checksum) is
//! replaced the same way. A crash at any point leaves the previous manifest
//! and its segments intact; folders and temporary files it does not name
//! are debris, removed when a writer next opens the index. One writer at a
//! time: writers hold an advisory lock on `DIR/lock`.
//!
//! Nothing a manifest names is ever removed or written over. Opening
//! validates the manifest first: segment names, `next_segment` above every
//! segment's number (a commit writes that number), and in format 2 a
//! checksum for every file. A commit refuses to run while a segment folder
//! it did not make sits at or above `next_segment` (a manifest restored
//! from an older copy, say). Readers take no lock: one that races a merge
//! starts again from the new manifest, so it sees one manifest's segments.
//! [`check`] verifies every file of an index without changing it.

pub mod ingest;
pub mod urls;

use std::collections::BTreeMap;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use memmap2::Mmap;
use serde::{Deserialize, Serialize};

use crate::algo::simhash::tables::{self, Layout, LayoutError, Permutation};
use crate::algo::simhash::{Features, SimHash, Weights};
use crate::algo::{Detector, Document};
use crate::corpus::Page;
use crate::extract::{page_text, Extraction};
use crate::text::TokenizerConfig;

const MANIFEST: &str = "manifest.json";
const LOCK: &str = "lock";
/// Format 2 adds per-file checksums; format 1 indexes (none) still open.
const FORMAT: u32 = 2;
/// More segments than this are merged into one at the next commit, so a
/// query probes a bounded number of table sets.
const MAX_SEGMENTS: usize = 8;
/// Times a reader starts again when writers keep merging under it; each
/// start needs another commit to have happened meanwhile.
const MAX_OPEN_ATTEMPTS: usize = 16;
const FILES: [&str; 5] = [
    "fingerprints.bin",
    "permuted.bin",
    "order.bin",
    "ids.bin",
    "ids.offsets",
];

#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: {message}", path.display())]
    Invalid { path: PathBuf, message: String },
    #[error(transparent)]
    Layout(#[from] LayoutError),
    #[error("{}: another neardup process is writing this index (it holds {}); run again when it is done, or pass --wait to wait for it", dir.display(), dir.join(LOCK).display())]
    Locked { dir: PathBuf },
}

impl IndexError {
    fn is_not_found(&self) -> bool {
        matches!(self, IndexError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
    }

    /// A failure of the machine or of another process (I/O, a held lock),
    /// not bad input (a missing or damaged index, bad settings).
    pub fn is_environment(&self) -> bool {
        match self {
            IndexError::Io { source, .. } => source.kind() != std::io::ErrorKind::NotFound,
            IndexError::Locked { .. } => true,
            IndexError::Invalid { .. } | IndexError::Layout(_) => false,
        }
    }
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> IndexError + '_ {
    move |source| IndexError::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn invalid(path: &Path, message: impl Into<String>) -> IndexError {
    IndexError::Invalid {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

/// A test hook for crash safety: with `NEARDUP_FAIL_AT=STEP@N` the process
/// kills itself (SIGKILL: no unwinding, no cleanup, as a crash or the OOM
/// killer would) the N-th time it reaches `STEP` (N = 1 by default). The
/// steps are named where this is called (`segment-file`, `segment-synced`,
/// `segment-renamed`, `manifest.json-written`, `manifest.json-renamed`,
/// `debris-removed`, `urls.json-written`, `urls.json-renamed`,
/// `urls-marked`; `neardup dedup`'s `dedup-kept-written` and
/// `dedup-written`).
pub fn fail_point(step: &str) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::OnceLock;
    static TARGET: OnceLock<Option<(String, usize)>> = OnceLock::new();
    static HITS: AtomicUsize = AtomicUsize::new(0);
    let target = TARGET.get_or_init(|| {
        let value = std::env::var("NEARDUP_FAIL_AT").ok()?;
        let (name, n) = value.split_once('@').unwrap_or((&value, "1"));
        Some((name.to_string(), n.parse().unwrap_or(1)))
    });
    if let Some((name, n)) = target {
        if name == step && HITS.fetch_add(1, Ordering::SeqCst) + 1 == *n {
            eprintln!("NEARDUP_FAIL_AT: killed at {step}@{n}");
            // SAFETY: sending a signal to our own process.
            unsafe {
                libc::kill(libc::getpid(), libc::SIGKILL);
            }
        }
    }
}

/// Writes `bytes` to a temporary file beside `path`, syncs it and renames
/// it over `path`, then syncs the directory: readers see the old file or
/// the new one, never a mix.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let written = File::create(&tmp).and_then(|mut f| {
        f.write_all(bytes)?;
        f.sync_all()
    });
    if let Err(e) = written {
        // A full disk is not left fuller by our half-written copy.
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    fail_point(&format!("{name}-written"));
    if let Err(e) = std::fs::rename(&tmp, path) {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    fail_point(&format!("{name}-renamed"));
    File::open(dir)?.sync_all()
}

fn checksum(bytes: &[u8]) -> String {
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(bytes))
}

fn check_checksum(path: &Path, bytes: &[u8], want: &str) -> Result<(), IndexError> {
    let got = checksum(bytes);
    if got != want {
        return Err(invalid(
            path,
            format!("damaged: checksum {got} where the manifest has {want}"),
        ));
    }
    Ok(())
}

/// How the index fingerprints pages and lays out its tables.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IndexSettings {
    pub layout: String,
    /// Largest distance a query finds; at most what the layout covers.
    pub k: u32,
    pub features: Features,
    pub ngram: usize,
    pub extraction: Extraction,
    pub tokenizer: TokenizerConfig,
}

impl Default for IndexSettings {
    fn default() -> Self {
        IndexSettings {
            layout: "4x16".into(),
            k: 3,
            features: Features::Words,
            ngram: 2,
            extraction: Extraction::Main,
            tokenizer: TokenizerConfig::default(),
        }
    }
}

impl IndexSettings {
    pub fn layout(&self) -> Result<Layout, LayoutError> {
        self.layout.parse()
    }

    fn check(&self, path: &Path) -> Result<Layout, IndexError> {
        let layout = self.layout()?;
        if self.k > layout.max_k() {
            return Err(IndexError::Invalid {
                path: path.to_path_buf(),
                message: format!(
                    "k = {} is past what layout {layout} finds (k <= {})",
                    self.k,
                    layout.max_k()
                ),
            });
        }
        Ok(layout)
    }

    fn simhash(&self) -> SimHash {
        SimHash::new(
            self.features,
            self.ngram,
            Weights::Tf,
            64,
            self.k,
            None,
            None,
        )
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct SegmentEntry {
    name: String,
    pages: usize,
    /// xxh3-64 of each file, hex; empty in format 1 indexes.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    checksums: BTreeMap<String, String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Manifest {
    format: u32,
    settings: IndexSettings,
    segments: Vec<SegmentEntry>,
    next_segment: u64,
}

/// The number in a segment folder's name, `seg-NNNNNN`.
fn segment_number(name: &str) -> Option<u64> {
    let digits = name.strip_prefix("seg-")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

fn segment_name(number: u64) -> String {
    format!("seg-{number:06}")
}

impl Manifest {
    /// Reads and validates `DIR/manifest.json`; returns it with its bytes
    /// (a reader compares them to see whether a writer replaced it).
    fn read(dir: &Path) -> Result<(Manifest, Vec<u8>), IndexError> {
        let path = dir.join(MANIFEST);
        let meta = std::fs::metadata(&path).map_err(io(&path))?;
        if !meta.is_file() {
            return Err(invalid(&path, "not a regular file (a folder in its place)"));
        }
        let bytes = std::fs::read(&path).map_err(io(&path))?;
        let manifest: Manifest = serde_json::from_slice(&bytes)
            .map_err(|e| invalid(&path, format!("not an index manifest: {e}")))?;
        manifest.validate(&path)?;
        Ok((manifest, bytes))
    }

    /// What opening relies on and the JSON cannot say: a known format,
    /// segment names that are segment folders (nothing outside `DIR`),
    /// each named once, `next_segment` above all of them (else a commit
    /// would write over a live segment), and in format 2 a checksum for
    /// every file (else damage would pass unseen).
    fn validate(&self, path: &Path) -> Result<(), IndexError> {
        if self.format != FORMAT && self.format != 1 {
            return Err(invalid(
                path,
                format!("format {} (this neardup reads 1 and {FORMAT})", self.format),
            ));
        }
        let mut numbers = std::collections::BTreeSet::new();
        for (i, s) in self.segments.iter().enumerate() {
            let at = format!("segments[{i}] `{}`", s.name);
            let number = segment_number(&s.name)
                .ok_or_else(|| invalid(path, format!("{at}: not a segment name (seg-NNNNNN)")))?;
            if !numbers.insert(number) {
                return Err(invalid(path, format!("{at}: named twice")));
            }
            if number >= self.next_segment {
                return Err(invalid(
                    path,
                    format!(
                        "next_segment {} is not above {at}: the manifest is damaged or older \
                         than its segments (restore the matching manifest, or set next_segment \
                         above every segment's number)",
                        self.next_segment
                    ),
                ));
            }
            // Format 1 has none; checksums for some files only are damage.
            if self.format >= 2 || !s.checksums.is_empty() {
                if let Some(file) = FILES.iter().find(|f| !s.checksums.contains_key(**f)) {
                    return Err(invalid(
                        path,
                        format!(
                            "{at}: no checksum for {file} (a segment with checksums has one \
                             for every file, and format {FORMAT} has them)"
                        ),
                    ));
                }
            }
        }
        Ok(())
    }
}

/// A stored page found near a query.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Match {
    pub id: String,
    pub distance: u32,
}

/// One segment's files, memory-mapped, checked when opened: sizes,
/// checksums, and every page number and id offset in range, so reads
/// later need no checks and cannot panic.
struct Segment {
    pages: usize,
    /// Original fingerprints, in page order.
    fingerprints: Mmap,
    /// Per table, the permuted fingerprints sorted, then ...
    permuted: Mmap,
    /// ... the page numbers in the same order.
    order: Mmap,
    /// Page ids, concatenated, with n+1 offsets.
    ids: Mmap,
    id_offsets: Mmap,
}

fn map(path: &Path) -> Result<Mmap, IndexError> {
    let file = File::open(path).map_err(io(path))?;
    let meta = file.metadata().map_err(io(path))?;
    if !meta.is_file() {
        // mmap would fail with "No such device", which reads as the
        // machine's fault; it is the index that is wrong.
        return Err(invalid(
            path,
            "not a regular file (a folder or device in its place)",
        ));
    }
    // SAFETY: the index's files are written once and never modified in
    // place (new data goes into new files renamed into place), so the
    // mapping does not change under us.
    unsafe { Mmap::map(&file) }.map_err(io(path))
}

impl Segment {
    fn open(index_dir: &Path, entry: &SegmentEntry, tables: usize) -> Result<Self, IndexError> {
        let dir = index_dir.join(&entry.name);
        let pages = entry.pages;
        let segment = Segment {
            pages,
            fingerprints: map(&dir.join(FILES[0]))?,
            permuted: map(&dir.join(FILES[1]))?,
            order: map(&dir.join(FILES[2]))?,
            ids: map(&dir.join(FILES[3]))?,
            id_offsets: map(&dir.join(FILES[4]))?,
        };
        let need = |per_page: usize, extra: usize| {
            pages
                .checked_mul(per_page)
                .and_then(|n| n.checked_add(extra))
        };
        let sizes = [
            (FILES[0], segment.fingerprints.len(), need(8, 0)),
            (FILES[1], segment.permuted.len(), need(8 * tables, 0)),
            (FILES[2], segment.order.len(), need(4 * tables, 0)),
            (FILES[4], segment.id_offsets.len(), need(8, 8)),
        ];
        for (name, got, want) in sizes {
            if Some(got) != want {
                let want =
                    want.map_or("more than this machine addresses".into(), |w| w.to_string());
                return Err(invalid(
                    &dir.join(name),
                    format!("{got} bytes where {pages} pages need {want}"),
                ));
            }
        }
        // Format 1 has no checksums; in format 2 the manifest was checked
        // to hold every file's.
        for (name, bytes) in FILES.iter().zip(segment.files()) {
            if let Some(want) = entry.checksums.get(*name) {
                check_checksum(&dir.join(name), bytes, want)?;
            }
        }
        segment.check_contents(&dir, tables)?;
        Ok(segment)
    }

    fn files(&self) -> [&[u8]; 5] {
        [
            &self.fingerprints,
            &self.permuted,
            &self.order,
            &self.ids,
            &self.id_offsets,
        ]
    }

    /// What the checksums cannot vouch for (a format 1 index, or a file
    /// rewritten with its checksum): page numbers below `pages`, sorted
    /// tables, id offsets rising within `ids.bin`.
    fn check_contents(&self, dir: &Path, tables: usize) -> Result<(), IndexError> {
        let order: &[u32] = bytemuck::cast_slice(&self.order);
        if let Some(at) = order.iter().position(|&p| p as usize >= self.pages) {
            return Err(invalid(
                &dir.join(FILES[2]),
                format!("entry {at} names page {} of {}", order[at], self.pages),
            ));
        }
        for (t, (permuted, _)) in self.tables(tables).enumerate() {
            if let Some(at) = permuted.windows(2).position(|w| w[0] > w[1]) {
                return Err(invalid(
                    &dir.join(FILES[1]),
                    format!("table {t} is not sorted at entry {}", at + 1),
                ));
            }
        }
        let offsets: &[u64] = bytemuck::cast_slice(&self.id_offsets);
        let bad = if offsets[0] != 0 {
            Some(0)
        } else {
            offsets.windows(2).position(|w| w[0] > w[1]).map(|i| i + 1)
        };
        if let Some(at) = bad {
            return Err(invalid(
                &dir.join(FILES[4]),
                format!("offset {at} ({}) is out of order", offsets[at]),
            ));
        }
        let last = offsets[self.pages];
        if last != self.ids.len() as u64 {
            return Err(invalid(
                &dir.join(FILES[4]),
                format!(
                    "the ids end at byte {last} but {} holds {} bytes",
                    FILES[3],
                    self.ids.len()
                ),
            ));
        }
        Ok(())
    }

    fn tables(&self, tables: usize) -> impl Iterator<Item = (&[u64], &[u32])> {
        let permuted: &[u64] = bytemuck::cast_slice(&self.permuted);
        let order: &[u32] = bytemuck::cast_slice(&self.order);
        let n = self.pages;
        (0..tables).map(move |t| (&permuted[t * n..(t + 1) * n], &order[t * n..(t + 1) * n]))
    }

    fn fingerprints(&self) -> &[u64] {
        bytemuck::cast_slice(&self.fingerprints)
    }

    /// Every page's id, in page order.
    fn ids(&self) -> impl Iterator<Item = &[u8]> {
        let offsets: &[u64] = bytemuck::cast_slice(&self.id_offsets);
        offsets
            .windows(2)
            .map(|w| &self.ids[w[0] as usize..w[1] as usize])
    }

    /// In range: `open` checked the offsets and the page numbers.
    fn id(&self, page: u32) -> String {
        let offsets: &[u64] = bytemuck::cast_slice(&self.id_offsets);
        let (a, b) = (
            offsets[page as usize] as usize,
            offsets[page as usize + 1] as usize,
        );
        String::from_utf8_lossy(&self.ids[a..b]).into_owned()
    }

    /// Writes a segment of `(id, fingerprint)` pages into `dir`, synced;
    /// returns each file's checksum.
    fn write(
        dir: &Path,
        permutations: &[Permutation],
        pages: &[(String, u64)],
    ) -> Result<BTreeMap<String, String>, IndexError> {
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let numbered: Vec<(u32, u64)> = pages
            .iter()
            .enumerate()
            .map(|(i, (_, fp))| (i as u32, *fp))
            .collect();
        let built = tables::build_tables(permutations, &numbered);
        let fps: Vec<u64> = pages.iter().map(|p| p.1).collect();
        let permuted: Vec<u64> = built
            .iter()
            .flat_map(|t| t.permuted.iter().copied())
            .collect();
        let order: Vec<u32> = built.iter().flat_map(|t| t.ids.iter().copied()).collect();
        let mut ids = Vec::new();
        let mut offsets = vec![0u64];
        for (id, _) in pages {
            ids.extend_from_slice(id.as_bytes());
            offsets.push(ids.len() as u64);
        }
        let files: [&[u8]; 5] = [
            bytemuck::cast_slice(&fps),
            bytemuck::cast_slice(&permuted),
            bytemuck::cast_slice(&order),
            &ids,
            bytemuck::cast_slice(&offsets),
        ];
        let mut checksums = BTreeMap::new();
        for (name, bytes) in FILES.iter().zip(files) {
            let path = dir.join(name);
            let mut f = File::create(&path).map_err(io(&path))?;
            f.write_all(bytes).map_err(io(&path))?;
            f.sync_all().map_err(io(&path))?;
            checksums.insert(name.to_string(), checksum(bytes));
            fail_point("segment-file");
        }
        File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(io(dir))?;
        fail_point("segment-synced");
        Ok(checksums)
    }
}

/// An open index. Opened with [`Index::open`] it only reads; opened with
/// [`Index::open_writer`] (or made by [`Index::create`]) it holds the
/// index's lock and can commit.
pub struct Index {
    dir: PathBuf,
    manifest: Manifest,
    permutations: Vec<Permutation>,
    segments: Vec<Segment>,
    simhash: SimHash,
    /// The locked `DIR/lock` of a writer; the lock goes with the file.
    lock: Option<File>,
}

#[cfg(not(target_endian = "little"))]
compile_error!("the index files are little-endian and mapped as they are");

/// Takes the index's advisory lock, waiting for it or not.
fn lock(dir: &Path, wait: bool) -> Result<File, IndexError> {
    let path = dir.join(LOCK);
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(io(&path))?;
    if wait {
        file.lock().map_err(io(&path))?;
    } else {
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(IndexError::Locked {
                    dir: dir.to_path_buf(),
                })
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(io(&path)(e)),
        }
    }
    Ok(file)
}

impl Index {
    /// Creates an index in `dir` (which must not hold one) from pages.
    pub fn create(dir: &Path, settings: IndexSettings, pages: &[Page]) -> Result<Self, IndexError> {
        settings.check(&dir.join(MANIFEST))?;
        if dir.join(MANIFEST).exists() {
            return Err(invalid(
                dir,
                "already holds an index; ingest into it or choose another directory",
            ));
        }
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let lock = lock(dir, false)?;
        if dir.join(MANIFEST).exists() {
            return Err(invalid(dir, "another process has just made an index here"));
        }
        let manifest = Manifest {
            format: FORMAT,
            settings,
            segments: Vec::new(),
            next_segment: 1,
        };
        write_atomically(
            &dir.join(MANIFEST),
            &serde_json::to_vec_pretty(&manifest).expect("plain data serialises"),
        )
        .map_err(io(&dir.join(MANIFEST)))?;
        let mut index = Index::open(dir)?;
        index.lock = Some(lock);
        let signed = index.fingerprint_pages(pages);
        index.commit(&signed)?;
        Ok(index)
    }

    /// Opens the index to read it: no lock, nothing changed on disk.
    ///
    /// A writer may merge while this runs: it replaces the manifest, then
    /// removes the merged segments' folders. Segments once mapped stay
    /// readable (the mappings outlive the files' names), but a folder may
    /// go between reading the manifest and mapping it; then the manifest
    /// has been replaced, and the open starts again from the new one, so
    /// a reader always sees one manifest's whole set of segments.
    pub fn open(dir: &Path) -> Result<Self, IndexError> {
        let mut attempts = 0;
        loop {
            let (manifest, bytes) = Manifest::read(dir)?;
            match Index::open_segments(dir, manifest) {
                Err(e) if e.is_not_found() && attempts < MAX_OPEN_ATTEMPTS => {
                    let path = dir.join(MANIFEST);
                    if std::fs::read(&path).ok().as_deref() == Some(&bytes[..]) {
                        // The manifest stands and names a missing file.
                        return Err(e);
                    }
                    attempts += 1;
                }
                opened => return opened,
            }
        }
    }

    fn open_segments(dir: &Path, manifest: Manifest) -> Result<Self, IndexError> {
        let layout = manifest.settings.check(&dir.join(MANIFEST))?;
        let permutations = layout.permutations();
        let segments = manifest
            .segments
            .iter()
            .map(|s| Segment::open(dir, s, permutations.len()))
            .collect::<Result<Vec<_>, _>>()?;
        let simhash = manifest.settings.simhash();
        Ok(Index {
            dir: dir.to_path_buf(),
            manifest,
            permutations,
            segments,
            simhash,
            lock: None,
        })
    }

    /// Opens the index to add pages: takes its lock (waiting for another
    /// writer with `wait`, else failing with [`IndexError::Locked`]), then
    /// clears what an interrupted commit left (segment folders and
    /// temporary files the manifest does not name).
    pub fn open_writer(dir: &Path, wait: bool) -> Result<Self, IndexError> {
        let path = dir.join(MANIFEST);
        if !path.exists() {
            // Read the manifest first for its clear error, before a lock
            // file is made in a directory that holds no index.
            Index::open(dir)?;
        }
        let lock = lock(dir, wait)?;
        let mut index = Index::open(dir)?;
        index.lock = Some(lock);
        index.remove_debris()?;
        Ok(index)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn settings(&self) -> &IndexSettings {
        &self.manifest.settings
    }

    /// Stored pages.
    pub fn len(&self) -> usize {
        self.segments.iter().map(|s| s.pages).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Permuted tables per segment.
    pub fn tables(&self) -> usize {
        self.permutations.len()
    }

    pub fn segments(&self) -> usize {
        self.segments.len()
    }

    /// The page's fingerprint as this index computes it; `None` for a
    /// page without text.
    pub fn fingerprint(&self, page: &Page) -> Option<u64> {
        let settings = &self.manifest.settings;
        let text = page_text(page, settings.extraction).text;
        let doc = Document::new(0, &text, page.lang, &settings.tokenizer);
        self.simhash.sign(&doc).map(|fp| fp as u64)
    }

    /// `(id, fingerprint)` of the pages that have text, in parallel.
    pub fn fingerprint_pages(&self, pages: &[Page]) -> Vec<(String, u64)> {
        use rayon::prelude::*;
        pages
            .par_iter()
            .filter_map(|p| self.fingerprint(p).map(|fp| (p.id.clone(), fp)))
            .collect()
    }

    /// The stored pages' ids, as bytes (ids are UTF-8 when stored).
    pub fn ids(&self) -> impl Iterator<Item = &[u8]> {
        self.segments.iter().flat_map(Segment::ids)
    }

    /// Stored pages within the index's k of `fingerprint`, nearest first.
    pub fn query(&self, fingerprint: u64) -> Vec<Match> {
        let k = self.manifest.settings.k;
        let tables = self.permutations.len();
        let mut found: Vec<Match> = self
            .segments
            .iter()
            .flat_map(|s| {
                tables::query(&self.permutations, s.tables(tables), fingerprint, k)
                    .into_iter()
                    .map(|(page, distance)| Match {
                        id: s.id(page),
                        distance,
                    })
            })
            .collect();
        found.sort_by(|a, b| a.distance.cmp(&b.distance).then(a.id.cmp(&b.id)));
        found
    }

    /// Adds pages as a new segment (merging all segments into one when
    /// there are too many), then replaces the manifest. Atomic: a crash
    /// leaves the index as it was before the call, or with the pages added.
    pub fn commit(&mut self, pages: &[(String, u64)]) -> Result<(), IndexError> {
        if pages.is_empty() {
            return Ok(());
        }
        if self.lock.is_none() {
            return Err(invalid(
                &self.dir,
                "opened to read; open it as a writer to add pages",
            ));
        }
        let merge = self.segments.len() + 1 > MAX_SEGMENTS;
        let mut all: Vec<(String, u64)> = Vec::new();
        if merge {
            for s in &self.segments {
                all.extend(
                    s.fingerprints()
                        .iter()
                        .enumerate()
                        .map(|(i, &fp)| (s.id(i as u32), fp)),
                );
            }
        }
        all.extend(pages.iter().cloned());
        // Never over a folder that exists: the one an interrupted commit
        // leaves was cleared when this writer opened, so any other is not
        // ours to replace.
        if let Some(found) = self.foreign_segments()?.first() {
            return Err(invalid(
                found,
                format!(
                    "a segment folder that {} does not name, at or above its next_segment {}: \
                     the manifest may be older than the index (restored from a copy?); put \
                     back the manifest that names it, or move the folder out of the index",
                    MANIFEST, self.manifest.next_segment
                ),
            ));
        }
        let number = self.manifest.next_segment;
        let name = segment_name(number);
        let tmp = self.dir.join(format!(".tmp-{name}-{}", std::process::id()));
        let target = self.dir.join(&name);
        let written = Segment::write(&tmp, &self.permutations, &all).and_then(|checksums| {
            std::fs::rename(&tmp, &target).map_err(io(&target))?;
            Ok(checksums)
        });
        let checksums = match written {
            Ok(checksums) => checksums,
            Err(e) => {
                // A full disk must not stay full of our half-written
                // segment; the error says what failed.
                let _ = std::fs::remove_dir_all(&tmp);
                return Err(e);
            }
        };
        fail_point("segment-renamed");

        let entry = SegmentEntry {
            name,
            pages: all.len(),
            checksums,
        };
        let mut manifest = self.manifest.clone();
        if manifest.format < FORMAT {
            // Format 2 vouches for every file: the format 1 segments kept
            // get their checksums, from the bytes opening checked.
            for (kept, open) in manifest.segments.iter_mut().zip(&self.segments) {
                if kept.checksums.is_empty() {
                    kept.checksums = FILES
                        .iter()
                        .zip(open.files())
                        .map(|(name, bytes)| (name.to_string(), checksum(bytes)))
                        .collect();
                }
            }
        }
        manifest.format = FORMAT;
        if merge {
            manifest.segments.clear();
        }
        manifest.segments.push(entry.clone());
        manifest.next_segment = number + 1;
        let path = self.dir.join(MANIFEST);
        write_atomically(
            &path,
            &serde_json::to_vec_pretty(&manifest).expect("plain data serialises"),
        )
        .map_err(io(&path))?;
        // Committed. The segments already open stay open (and checked);
        // merged ones are dropped and their folders cleared.
        let segment = Segment::open(&self.dir, &entry, self.permutations.len())?;
        if merge {
            self.segments.clear();
        }
        self.segments.push(segment);
        self.manifest = manifest;
        self.remove_debris()
    }

    /// Removes what interrupted commits and merges leave: temporary files
    /// and folders, segment folders below `next_segment` the manifest no
    /// longer names (merged away), and the one at `next_segment` if it is
    /// newer than the manifest (written by a commit whose manifest was
    /// never replaced). Other folders are left alone: no commit of this
    /// manifest made them. Only a writer (holding the lock) calls it, so
    /// nothing removed is another writer's work.
    fn remove_debris(&self) -> Result<(), IndexError> {
        for path in unnamed(&self.dir, &self.manifest)?.debris {
            let removed = if path.is_dir() {
                std::fs::remove_dir_all(&path)
            } else {
                std::fs::remove_file(&path)
            };
            removed.map_err(io(&path))?;
            fail_point("debris-removed");
        }
        Ok(())
    }

    /// Segment folders no commit of this manifest made (see
    /// [`Index::remove_debris`]).
    fn foreign_segments(&self) -> Result<Vec<PathBuf>, IndexError> {
        Ok(unnamed(&self.dir, &self.manifest)?.foreign)
    }
}

/// Sorts what `dir` holds beyond its manifest's segments into debris and
/// foreign segment folders (see [`Index::remove_debris`]).
fn unnamed(dir: &Path, manifest: &Manifest) -> Result<Unnamed, IndexError> {
    let manifest_path = dir.join(MANIFEST);
    let manifest_written = std::fs::metadata(&manifest_path)
        .and_then(|m| m.modified())
        .map_err(io(&manifest_path))?;
    let next = manifest.next_segment;
    let mut unnamed = Unnamed::default();
    for entry in std::fs::read_dir(dir).map_err(io(dir))? {
        let entry = entry.map_err(io(dir))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if manifest.segments.iter().any(|s| s.name == name) {
            continue;
        }
        let path = entry.path();
        if name.starts_with('.') && name.contains(".tmp-") {
            unnamed.debris.push(path);
            continue;
        }
        let Some(number) = segment_number(&name) else {
            continue;
        };
        let interrupted = number == next
            && path
                .symlink_metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|t| t >= manifest_written);
        if number < next || interrupted {
            unnamed.debris.push(path);
        } else {
            unnamed.foreign.push(path);
        }
    }
    unnamed.debris.sort();
    unnamed.foreign.sort();
    Ok(unnamed)
}

/// What is in an index's folder that its manifest does not name.
#[derive(Default)]
struct Unnamed {
    /// Leftovers of interrupted commits and merges, safe to remove.
    debris: Vec<PathBuf>,
    /// Segment folders no commit of this manifest made.
    foreign: Vec<PathBuf>,
}

/// What [`check`] found in an index.
#[derive(Debug, Default)]
pub struct CheckReport {
    pub segments: usize,
    /// Pages in the segments found sound.
    pub pages: usize,
    /// What is wrong, each naming its file; empty for a sound index.
    pub problems: Vec<IndexError>,
    /// Leftovers of interrupted commits, which the next writer removes:
    /// not problems.
    pub debris: Vec<PathBuf>,
    /// Segment folders the manifest does not name and no commit of it
    /// made (a manifest older than its segments?): a writer refuses to
    /// commit while they are there.
    pub foreign: Vec<PathBuf>,
}

impl CheckReport {
    pub fn is_sound(&self) -> bool {
        self.problems.is_empty() && self.foreign.is_empty()
    }

    /// 0 for a sound index, 2 for a damaged one, 1 when the machine kept
    /// a file from being read.
    pub fn exit_code(&self) -> u8 {
        if self.problems.iter().any(IndexError::is_environment) {
            1
        } else if self.is_sound() {
            0
        } else {
            2
        }
    }
}

/// Verifies every file of the index in `dir` without changing anything:
/// the manifest, then each segment's files (present, regular files, their
/// checksums, sizes and contents), going on past a damaged segment to
/// report all of them; and what lies in `dir` unnamed. For `neardup index
/// check DIR`.
pub fn check(dir: &Path) -> CheckReport {
    let mut report = CheckReport::default();
    let manifest = match Manifest::read(dir) {
        Ok((manifest, _)) => manifest,
        Err(e) => {
            report.problems.push(e);
            return report;
        }
    };
    let tables = match manifest.settings.check(&dir.join(MANIFEST)) {
        Ok(layout) => layout.permutations().len(),
        Err(e) => {
            report.problems.push(e);
            return report;
        }
    };
    report.segments = manifest.segments.len();
    for entry in &manifest.segments {
        let segment_dir = dir.join(&entry.name);
        let mut problems: Vec<IndexError> = Vec::new();
        // Every file on its own first, so that each damaged one is named.
        for name in FILES {
            let path = segment_dir.join(name);
            let checked = map(&path).and_then(|bytes| match entry.checksums.get(name) {
                Some(want) => check_checksum(&path, &bytes, want),
                None => Ok(()),
            });
            problems.extend(checked.err());
        }
        if problems.is_empty() {
            match Segment::open(dir, entry, tables) {
                Ok(segment) => report.pages += segment.pages,
                Err(e) => problems.push(e),
            }
        }
        report.problems.extend(problems);
    }
    match unnamed(dir, &manifest) {
        Ok(unnamed) => {
            report.debris = unnamed.debris;
            report.foreign = unnamed.foreign;
        }
        Err(e) => report.problems.push(e),
    }
    report
}

/// Damages a copy of a small index as `data` says (which file; truncate,
/// flip bytes, replace, or flip and write matching checksums into the
/// manifest), then opens and queries it. The body of the `open_index` fuzz
/// target, also run by the tests: it panics only on a bug, that is when
/// the index panics or opens with changed files and unchanged checksums.
#[doc(hidden)]
pub fn open_damaged(data: &[u8]) {
    use std::sync::OnceLock;
    static BASE: OnceLock<(tempfile_dir::Dir, Vec<u64>)> = OnceLock::new();
    let (base, fps) = BASE.get_or_init(tempfile_dir::base);
    let case = tempfile_dir::Dir::new("case");
    for entry in walk(&base.0) {
        let to = case.0.join(entry.strip_prefix(&base.0).unwrap());
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&entry, &to).unwrap();
    }
    let [file, segment, op, rest @ ..] = data else {
        return;
    };
    let manifest: Manifest =
        serde_json::from_slice(&std::fs::read(case.0.join(MANIFEST)).unwrap()).unwrap();
    let s = &manifest.segments[*segment as usize % manifest.segments.len()];
    let (path, reseal) = match *file as usize % 6 {
        5 => (case.0.join(MANIFEST), false),
        f => (case.0.join(&s.name).join(FILES[f]), *op % 4 == 3),
    };
    let mut bytes = std::fs::read(&path).unwrap();
    match *op % 4 {
        0 => {
            let at = rest.iter().fold(0usize, |a, &b| a * 256 + b as usize);
            bytes.truncate(at % (bytes.len() + 1));
        }
        2 => bytes = rest.to_vec(),
        _ => {
            for pair in rest.chunks(3) {
                if let [hi, lo, x] = pair {
                    if !bytes.is_empty() {
                        let at = (*hi as usize * 256 + *lo as usize) % bytes.len();
                        bytes[at] ^= x;
                    }
                }
            }
        }
    }
    std::fs::write(&path, &bytes).unwrap();
    if reseal {
        let mut m = manifest.clone();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let entry = m.segments.iter_mut().find(|e| e.name == s.name).unwrap();
        entry.checksums.insert(name, checksum(&bytes));
        std::fs::write(case.0.join(MANIFEST), serde_json::to_vec(&m).unwrap()).unwrap();
    }
    let Ok(index) = Index::open(&case.0) else {
        return;
    };
    let changed = walk(&base.0).into_iter().any(|f| {
        f.file_name().unwrap() != MANIFEST
            && std::fs::read(&f).unwrap()
                != std::fs::read(case.0.join(f.strip_prefix(&base.0).unwrap())).unwrap()
    });
    assert!(reseal || !changed, "damaged files passed their checksums");
    for &fp in fps {
        for m in index.query(fp) {
            assert!(m.distance <= index.settings().k);
        }
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// Scratch folders for [`open_damaged`], removed on drop (the fuzz crate
/// has no tempfile).
mod tempfile_dir {
    use super::*;

    pub struct Dir(pub PathBuf);

    impl Dir {
        pub fn new(what: &str) -> Dir {
            use std::sync::atomic::{AtomicUsize, Ordering};
            static N: AtomicUsize = AtomicUsize::new(0);
            let n = N.fetch_add(1, Ordering::SeqCst);
            let path = std::env::temp_dir()
                .join(format!("neardup-damaged-{}-{what}-{n}", std::process::id()));
            let _ = std::fs::remove_dir_all(&path);
            Dir(path)
        }
    }

    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// An index of 40 short texts in two segments, and their fingerprints.
    pub fn base() -> (Dir, Vec<u64>) {
        use crate::corpus::Content;
        let dir = Dir::new("base");
        let pages: Vec<Page> = (0..40)
            .map(|i| {
                let text = format!("page {i} says {} and {} about item {i}", i * 7, i % 5);
                Page::new(format!("p{i}"), format!("c{i}"), Content::Text(text))
            })
            .collect();
        let mut index = Index::create(&dir.0, IndexSettings::default(), &pages[..20]).unwrap();
        let more = index.fingerprint_pages(&pages[20..]);
        index.commit(&more).unwrap();
        let fps = index
            .fingerprint_pages(&pages)
            .into_iter()
            .map(|p| p.1)
            .collect();
        drop(index);
        std::fs::remove_file(dir.0.join(LOCK)).unwrap();
        (dir, fps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Content;

    fn page(id: &str, text: &str) -> Page {
        Page::new(id, id, Content::Text(text.into()))
    }

    const A: &str = "the committee met on monday to discuss the budget for the coming year and agreed to raise spending on schools roads and hospitals while cutting administrative costs across every department of the city";
    const B: &str = "a small cat slept in the warm sun all afternoon while children played football in the park nearby and their parents talked about holidays by the sea and the long summer ahead of them";

    #[test]
    fn built_index_finds_near_copies_and_survives_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("idx");
        let index = Index::create(
            &path,
            IndexSettings::default(),
            &[page("a", A), page("b", B)],
        )
        .unwrap();
        assert_eq!(index.len(), 2);
        let copy = index.fingerprint(&page("a2", A)).unwrap();
        assert_eq!(
            index.query(copy),
            [Match {
                id: "a".into(),
                distance: 0
            }]
        );
        drop(index);
        let mut index = Index::open_writer(&path, false).unwrap();
        let other = index
            .fingerprint(&page("c", &A.replace("monday", "friday")))
            .unwrap();
        assert!(index.query(other).iter().all(|m| m.id == "a"));
        // Growing past the segment limit merges segments into one.
        for i in 0..MAX_SEGMENTS + 1 {
            let p = page(&format!("n{i}"), &format!("{B} {i} extra words {i}"));
            let fp = index.fingerprint(&p).unwrap();
            index.commit(&[(p.id.clone(), fp)]).unwrap();
        }
        assert!(index.segments() <= MAX_SEGMENTS);
        assert_eq!(index.len(), 2 + MAX_SEGMENTS + 1);
        assert!(!index.query(copy).is_empty());
        assert!(Index::create(&path, IndexSettings::default(), &[]).is_err());
    }

    #[test]
    fn a_truncated_table_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("idx");
        Index::create(
            &path,
            IndexSettings::default(),
            &[page("a", A), page("b", B)],
        )
        .unwrap();
        let seg = std::fs::read_dir(&path)
            .unwrap()
            .flatten()
            .find(|e| e.file_name().to_string_lossy().starts_with("seg-"))
            .unwrap()
            .path();
        let permuted = seg.join("permuted.bin");
        let len = std::fs::metadata(&permuted).unwrap().len();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&permuted)
            .unwrap()
            .set_len(len - 8)
            .unwrap();
        let e = Index::open(&path).err().unwrap().to_string();
        assert!(e.contains("permuted.bin"), "{e}");
        let settings = IndexSettings {
            k: 4,
            ..IndexSettings::default()
        };
        let e = Index::create(&dir.path().join("other"), settings, &[])
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("k = 4"), "{e}");
    }

    #[test]
    fn damaged_files_are_errors_naming_them_even_with_matching_checksums() {
        // file, op 3 (flip and reseal), bytes to flip: past what checksums
        // catch, the bounds checks must.
        for file in 0..5u8 {
            for seed in 0..40u8 {
                let data = [file, seed, 3, 0, seed, 0xff, 0, seed / 2, 0x80];
                open_damaged(&data);
            }
            open_damaged(&[file, 0, 0, 0, 5]);
            open_damaged(&[file, 1, 1, 0, 3, 1]);
            open_damaged(&[file, 1, 2, 1, 2, 3]);
        }
        // A page number past the segment and ids offsets out of order,
        // written with matching checksums.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("idx");
        Index::create(
            &path,
            IndexSettings::default(),
            &[page("a", A), page("b", B)],
        )
        .unwrap();
        for (file, at, value) in [("order.bin", 0, 7u8), ("ids.offsets", 8, 200u8)] {
            let copy = dir.path().join(format!("copy-{file}"));
            std::fs::create_dir_all(copy.join("seg-000001")).unwrap();
            for f in walk(&path) {
                std::fs::copy(&f, copy.join(f.strip_prefix(&path).unwrap())).unwrap();
            }
            let target = copy.join("seg-000001").join(file);
            let mut bytes = std::fs::read(&target).unwrap();
            bytes[at] = value;
            std::fs::write(&target, &bytes).unwrap();
            let mut m: Manifest =
                serde_json::from_slice(&std::fs::read(copy.join(MANIFEST)).unwrap()).unwrap();
            m.segments[0]
                .checksums
                .insert(file.into(), checksum(&bytes));
            std::fs::write(copy.join(MANIFEST), serde_json::to_vec(&m).unwrap()).unwrap();
            let e = Index::open(&copy).err().unwrap().to_string();
            assert!(e.contains(file), "{e}");
        }
    }

    fn read_manifest(path: &Path) -> Manifest {
        serde_json::from_slice(&std::fs::read(path.join(MANIFEST)).unwrap()).unwrap()
    }

    fn write_manifest(path: &Path, m: &Manifest) {
        std::fs::write(path.join(MANIFEST), serde_json::to_vec(m).unwrap()).unwrap();
    }

    #[test]
    fn a_manifest_is_validated_before_any_segment_is_opened() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("idx");
        Index::create(&path, IndexSettings::default(), &[page("a", A)]).unwrap();
        let good = read_manifest(&path);
        type Damage = fn(&mut Manifest);
        let cases: [(&str, Damage); 4] = [
            ("not a segment name", |m| {
                m.segments[0].name = "../seg-000001".into()
            }),
            ("named twice", |m| m.segments.push(m.segments[0].clone())),
            ("next_segment 1 is not above", |m| m.next_segment = 1),
            ("no checksum for ids.bin", |m| {
                m.segments[0].checksums.remove("ids.bin");
            }),
        ];
        for (want, damage) in cases {
            let mut m = good.clone();
            damage(&mut m);
            write_manifest(&path, &m);
            let e = Index::open(&path).err().unwrap().to_string();
            assert!(e.contains(MANIFEST) && e.contains(want), "{want}: {e}");
            assert!(Index::open_writer(&path, false).is_err());
            assert!(path.join("seg-000001").is_dir(), "{want}: segment removed");
        }
        // Format 1 had no checksums: accepted, and given them when the
        // index next grows.
        let mut m = good.clone();
        m.format = 1;
        m.segments[0].checksums.clear();
        write_manifest(&path, &m);
        let mut index = Index::open_writer(&path, false).unwrap();
        let fp = index.fingerprint(&page("b", B)).unwrap();
        index.commit(&[("b".into(), fp)]).unwrap();
        let grown = read_manifest(&path);
        assert_eq!(grown.format, FORMAT);
        assert_eq!(grown.segments[0].checksums, good.segments[0].checksums);
        drop(index);
        assert_eq!(Index::open(&path).unwrap().len(), 2);
        assert!(check(&path).is_sound());
    }

    #[test]
    fn a_second_writer_is_refused_and_debris_is_cleared() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("idx");
        let index = Index::create(&path, IndexSettings::default(), &[page("a", A)]).unwrap();
        let e = Index::open_writer(&path, false).err().unwrap();
        assert!(matches!(e, IndexError::Locked { .. }), "{e}");
        assert!(e.to_string().contains("--wait"), "{e}");
        // Readers need no lock.
        assert_eq!(Index::open(&path).unwrap().len(), 1);
        drop(index);
        // An orphan segment under the next number, as a crash between the
        // segment's rename and the manifest's leaves it, and temporary
        // files: cleared by the next writer, which then commits.
        std::fs::create_dir_all(path.join("seg-000002")).unwrap();
        std::fs::write(path.join("seg-000002/ids.bin"), b"x").unwrap();
        std::fs::create_dir_all(path.join(".tmp-seg-000003-1")).unwrap();
        std::fs::write(path.join(".manifest.json.tmp-1"), b"{").unwrap();
        let mut index = Index::open_writer(&path, false).unwrap();
        assert!(!path.join(".manifest.json.tmp-1").exists());
        let fp = index.fingerprint(&page("b", B)).unwrap();
        index.commit(&[("b".into(), fp)]).unwrap();
        assert_eq!(Index::open(&path).unwrap().len(), 2);
        let mut reader = Index::open(&path).unwrap();
        assert!(reader.commit(&[("c".into(), fp)]).is_err());
    }
}
