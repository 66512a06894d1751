//! The persistent SimHash index a crawler keeps (seeds 003 and 004): the
//! fingerprints of stored pages in permuted sorted tables on disk, memory-
//! mapped so that a query needs no load step, and grown by ingesting new
//! pages.
//!
//! A directory holds `manifest.json` and one folder per segment. A segment
//! is written whole into a temporary folder, synced, and renamed into
//! place; the manifest naming the segments is replaced the same way. A
//! crash at any point leaves the previous manifest and its segments intact;
//! folders it does not name are debris and are removed at the next commit.

pub mod urls;

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
const FORMAT: u32 = 1;
/// More segments than this are merged into one at the next commit, so a
/// query probes a bounded number of table sets.
const MAX_SEGMENTS: usize = 8;

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
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> IndexError + '_ {
    move |source| IndexError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Writes `bytes` to a temporary file beside `path`, syncs it and renames
/// it over `path`, then syncs the directory: readers see the old file or
/// the new one, never a mix.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    {
        let mut f = File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, path)?;
    File::open(dir)?.sync_all()
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
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Manifest {
    format: u32,
    settings: IndexSettings,
    segments: Vec<SegmentEntry>,
    next_segment: u64,
}

/// A stored page found near a query.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Match {
    pub id: String,
    pub distance: u32,
}

/// One segment's files, memory-mapped.
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
    // SAFETY: the index's files are written once and never modified in
    // place (new data goes into new files renamed into place), so the
    // mapping does not change under us.
    unsafe { Mmap::map(&file) }.map_err(io(path))
}

impl Segment {
    fn open(dir: &Path, pages: usize, tables: usize) -> Result<Self, IndexError> {
        let segment = Segment {
            pages,
            fingerprints: map(&dir.join("fingerprints.bin"))?,
            permuted: map(&dir.join("permuted.bin"))?,
            order: map(&dir.join("order.bin"))?,
            ids: map(&dir.join("ids.bin"))?,
            id_offsets: map(&dir.join("ids.offsets"))?,
        };
        let sizes = [
            ("fingerprints.bin", segment.fingerprints.len(), pages * 8),
            ("permuted.bin", segment.permuted.len(), pages * 8 * tables),
            ("order.bin", segment.order.len(), pages * 4 * tables),
            ("ids.offsets", segment.id_offsets.len(), (pages + 1) * 8),
        ];
        for (name, got, want) in sizes {
            if got != want {
                return Err(IndexError::Invalid {
                    path: dir.join(name),
                    message: format!("{got} bytes where {pages} pages need {want}"),
                });
            }
        }
        Ok(segment)
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

    fn id(&self, page: u32) -> String {
        let offsets: &[u64] = bytemuck::cast_slice(&self.id_offsets);
        let (a, b) = (
            offsets[page as usize] as usize,
            offsets[page as usize + 1] as usize,
        );
        String::from_utf8_lossy(&self.ids[a..b]).into_owned()
    }

    /// Writes a segment of `(id, fingerprint)` pages into `dir`, synced.
    fn write(
        dir: &Path,
        permutations: &[Permutation],
        pages: &[(String, u64)],
    ) -> Result<(), IndexError> {
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
        let files: [(&str, &[u8]); 5] = [
            ("fingerprints.bin", bytemuck::cast_slice(&fps)),
            ("permuted.bin", bytemuck::cast_slice(&permuted)),
            ("order.bin", bytemuck::cast_slice(&order)),
            ("ids.bin", &ids),
            ("ids.offsets", bytemuck::cast_slice(&offsets)),
        ];
        for (name, bytes) in files {
            let path = dir.join(name);
            let mut f = File::create(&path).map_err(io(&path))?;
            f.write_all(bytes).map_err(io(&path))?;
            f.sync_all().map_err(io(&path))?;
        }
        File::open(dir).and_then(|d| d.sync_all()).map_err(io(dir))
    }
}

/// An open index.
pub struct Index {
    dir: PathBuf,
    manifest: Manifest,
    permutations: Vec<Permutation>,
    segments: Vec<Segment>,
    simhash: SimHash,
}

#[cfg(not(target_endian = "little"))]
compile_error!("the index files are little-endian and mapped as they are");

impl Index {
    /// Creates an index in `dir` (which must not hold one) from pages.
    pub fn create(dir: &Path, settings: IndexSettings, pages: &[Page]) -> Result<Self, IndexError> {
        settings.check(&dir.join(MANIFEST))?;
        if dir.join(MANIFEST).exists() {
            return Err(IndexError::Invalid {
                path: dir.to_path_buf(),
                message: "already holds an index; ingest into it or choose another directory"
                    .into(),
            });
        }
        std::fs::create_dir_all(dir).map_err(io(dir))?;
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
        let signed = index.fingerprint_pages(pages);
        index.commit(&signed)?;
        Ok(index)
    }

    pub fn open(dir: &Path) -> Result<Self, IndexError> {
        let path = dir.join(MANIFEST);
        let bytes = std::fs::read(&path).map_err(io(&path))?;
        let manifest: Manifest =
            serde_json::from_slice(&bytes).map_err(|e| IndexError::Invalid {
                path: path.clone(),
                message: format!("not an index manifest: {e}"),
            })?;
        if manifest.format != FORMAT {
            return Err(IndexError::Invalid {
                path,
                message: format!("format {} (this neardup reads {FORMAT})", manifest.format),
            });
        }
        let layout = manifest.settings.check(&path)?;
        let permutations = layout.permutations();
        let segments = manifest
            .segments
            .iter()
            .map(|s| Segment::open(&dir.join(&s.name), s.pages, permutations.len()))
            .collect::<Result<Vec<_>, _>>()?;
        let simhash = manifest.settings.simhash();
        Ok(Index {
            dir: dir.to_path_buf(),
            manifest,
            permutations,
            segments,
            simhash,
        })
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
    /// leaves the index as it was before the call.
    pub fn commit(&mut self, pages: &[(String, u64)]) -> Result<(), IndexError> {
        if pages.is_empty() {
            return Ok(());
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
        let number = self.manifest.next_segment;
        let name = format!("seg-{number:06}");
        let tmp = self.dir.join(format!(".tmp-{name}-{}", std::process::id()));
        Segment::write(&tmp, &self.permutations, &all)?;
        let target = self.dir.join(&name);
        std::fs::rename(&tmp, &target).map_err(io(&target))?;

        let mut manifest = self.manifest.clone();
        if merge {
            manifest.segments.clear();
        }
        manifest.segments.push(SegmentEntry {
            name,
            pages: all.len(),
        });
        manifest.next_segment = number + 1;
        let path = self.dir.join(MANIFEST);
        write_atomically(
            &path,
            &serde_json::to_vec_pretty(&manifest).expect("plain data serialises"),
        )
        .map_err(io(&path))?;
        // Committed: reopen the segments and clear what the manifest no
        // longer names (merged segments, debris of earlier crashes).
        let reopened = Index::open(&self.dir)?;
        *self = reopened;
        self.remove_debris();
        Ok(())
    }

    fn remove_debris(&self) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let named = self.manifest.segments.iter().any(|s| s.name == name);
            let ours = name.starts_with("seg-") || name.starts_with(".tmp-");
            if ours && !named && entry.path().is_dir() {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
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
        let mut index = Index::open(&path).unwrap();
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
}
