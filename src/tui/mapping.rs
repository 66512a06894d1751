//! A deduplication's mapping opened in the workbench (`neardup tui
//! --mapping OUT`): its clusters by size, and a removed page beside its
//! kept page with every algorithm of the experiment scored on the pair.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::inspect::{shared_text, Highlighted};
use crate::corpus::{read_corpus_counted, Page, ReadCounter, ReadOptions};
use crate::experiment::Experiment;
use crate::extract::{extract_page, Extraction};

/// The columns `neardup dedup` writes, in its order.
const COLUMNS: [&str; 6] = [
    "id",
    "cluster",
    "kept_id",
    "score",
    "joined_via",
    "algorithm",
];

/// Pages the detectors that learn from the collection (I-Match's lexicon,
/// the semantic method's topics) are fitted on: the corpus's first ones,
/// so that opening a million-page mapping stays quick.
pub const FIT_PAGES: usize = 50_000;

/// One line of `mapping.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct MappedPage {
    pub id: String,
    pub cluster: u32,
    pub kept_id: String,
    /// The score to the kept page or to the page it joined through.
    pub score: Option<f64>,
    pub joined_via: Option<String>,
}

/// A cluster of the mapping: its pages in file order, the kept one first.
#[derive(Debug, Clone, PartialEq)]
pub struct MappedCluster {
    pub cluster: u32,
    pub kept_id: String,
    /// Indexes into [`Mapping::pages`] of its removed pages.
    pub removed: Vec<usize>,
}

impl MappedCluster {
    pub fn size(&self) -> usize {
        self.removed.len() + 1
    }
}

/// `mapping.csv` read and grouped.
#[derive(Debug, Clone, PartialEq)]
pub struct Mapping {
    pub path: PathBuf,
    /// The `algorithm` column (one label for the whole file).
    pub algorithm: String,
    pub pages: Vec<MappedPage>,
    /// Largest first, ties by cluster number.
    pub clusters: Vec<MappedCluster>,
}

/// The fields of one CSV line, quotes honoured (`neardup dedup` quotes a
/// field holding a comma or a quote; its ids hold no line breaks).
fn fields(line: &str) -> Result<Vec<String>, &'static str> {
    let mut out = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        let field = out.last_mut().expect("one field");
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            ('"', true) => quoted = false,
            ('"', false) if field.is_empty() => quoted = true,
            (',', false) => out.push(String::new()),
            (c, _) => field.push(c),
        }
    }
    if quoted {
        return Err("a quoted field is not closed");
    }
    Ok(out)
}

/// Reads `DIR/mapping.csv`; errors name the file, the line and the field.
pub fn read_mapping(dir: &Path) -> Result<Mapping, String> {
    let path = dir.join("mapping.csv");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let at = |line: usize, message: String| format!("{}: line {line}: {message}", path.display());
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    let header = lines.next().map(|(_, l)| l).unwrap_or_default();
    let header = fields(header).map_err(|e| at(1, e.into()))?;
    if header != COLUMNS {
        return Err(at(
            1,
            format!(
                "the header is `{}`, not `{}` as `neardup dedup` writes it",
                header.join(","),
                COLUMNS.join(",")
            ),
        ));
    }
    let mut pages = Vec::new();
    let mut algorithm = None;
    for (n, line) in lines.filter(|(_, l)| !l.is_empty()) {
        let f = fields(line).map_err(|e| at(n, e.into()))?;
        if f.len() != COLUMNS.len() {
            return Err(at(n, format!("{} fields, not {}", f.len(), COLUMNS.len())));
        }
        let cluster = f[1]
            .parse()
            .map_err(|_| at(n, format!("cluster: `{}` is not a cluster number", f[1])))?;
        let score = match f[3].as_str() {
            "" => None,
            s => Some(
                s.parse()
                    .map_err(|_| at(n, format!("score: `{s}` is not a number")))?,
            ),
        };
        if f[0].is_empty() || f[2].is_empty() {
            return Err(at(n, "id and kept_id must not be empty".into()));
        }
        algorithm.get_or_insert_with(|| f[5].clone());
        pages.push(MappedPage {
            id: f[0].clone(),
            cluster,
            kept_id: f[2].clone(),
            score,
            joined_via: (!f[4].is_empty()).then(|| f[4].clone()),
        });
    }
    let clusters = group(&pages).map_err(|(line, message)| at(line, message))?;
    Ok(Mapping {
        path,
        algorithm: algorithm.unwrap_or_default(),
        pages,
        clusters,
    })
}

/// The clusters of `pages`, largest first; a cluster whose pages name two
/// kept pages, or whose kept page is not among them, is refused (with
/// the line, the header being line 1).
fn group(pages: &[MappedPage]) -> Result<Vec<MappedCluster>, (usize, String)> {
    let mut by_number: HashMap<u32, MappedCluster> = HashMap::new();
    let mut has_kept: HashMap<u32, bool> = HashMap::new();
    for (k, p) in pages.iter().enumerate() {
        let c = by_number.entry(p.cluster).or_insert_with(|| MappedCluster {
            cluster: p.cluster,
            kept_id: p.kept_id.clone(),
            removed: Vec::new(),
        });
        if c.kept_id != p.kept_id {
            return Err((
                k + 2,
                format!(
                    "kept_id: `{}`, but cluster {} keeps `{}`",
                    p.kept_id, p.cluster, c.kept_id
                ),
            ));
        }
        if p.id == p.kept_id {
            has_kept.insert(p.cluster, true);
        } else {
            c.removed.push(k);
        }
    }
    let mut clusters: Vec<MappedCluster> = by_number.into_values().collect();
    if let Some(c) = clusters.iter().find(|c| !has_kept.contains_key(&c.cluster)) {
        let line = c.removed.first().map_or(2, |&k| k + 2);
        return Err((
            line,
            format!(
                "kept_id: `{}` of cluster {} has no line of its own",
                c.kept_id, c.cluster
            ),
        ));
    }
    clusters.sort_by_key(|c| (std::cmp::Reverse(c.size()), c.cluster));
    Ok(clusters)
}

pub use crate::experiment::Scorer;

/// A removed page beside its kept page.
#[derive(Debug, Clone)]
pub struct MappedPair {
    pub removed: String,
    pub kept: String,
    pub left: Highlighted,
    pub right: Highlighted,
    /// Per [`Scorer`]: its score of the pair, `None` when a page has no
    /// signature.
    pub scores: Vec<Option<f32>>,
    /// The mapping's score for the removed page, and the page it joined
    /// through when not the kept one.
    pub mapped_score: Option<f64>,
    pub joined_via: Option<String>,
    pub scroll: u16,
    /// The first score row shown, and whether ↑↓ move the scores (Tab)
    /// rather than the texts.
    pub scores_offset: usize,
    pub on_scores: bool,
}

/// What the mapping screens show and where they are.
#[derive(Debug)]
pub struct MappingView {
    pub mapping: Mapping,
    pub corpus: PathBuf,
    pages: HashMap<String, Page>,
    pub scorers: Vec<Scorer>,
    /// The extraction whose text the inspector shows: the mapping's own.
    pub extraction: Extraction,
    /// The selected cluster (index into the clusters by size).
    pub selected: usize,
    /// The removed page of the selected cluster being inspected.
    pub member: usize,
    pub pair: Option<MappedPair>,
}

impl MappingView {
    /// Reads the mapping in `dir`, the corpus it maps and the experiment's
    /// algorithms.
    pub fn load(dir: &Path, experiment: &Experiment, corpus: &Path) -> Result<MappingView, String> {
        let mapping = read_mapping(dir)?;
        let read = read_corpus_counted(corpus, ReadOptions::unlabelled(), &ReadCounter::default())
            .map_err(|e| e.to_string())?;
        let pages: HashMap<String, Page> =
            read.pages.into_iter().map(|p| (p.id.clone(), p)).collect();
        if let Some((n, p)) = mapping
            .pages
            .iter()
            .enumerate()
            .find(|(_, p)| !pages.contains_key(&p.id))
        {
            return Err(format!(
                "{}: line {}: id: `{}` is not in {}",
                mapping.path.display(),
                n + 2,
                p.id,
                corpus.display()
            ));
        }
        let references = experiment.read_references().map_err(|e| e.to_string())?;
        let mut fit_pages: Vec<&Page> = pages.values().collect();
        // File order is lost in the map; the ids give a fixed order.
        fit_pages.sort_by(|a, b| a.id.cmp(&b.id));
        fit_pages.truncate(FIT_PAGES);
        let scorers = experiment.scorers(&references, &fit_pages);
        let extraction = scorers
            .iter()
            .find(|s| s.label == mapping.algorithm)
            .map_or(Extraction::Main, |s| s.extraction);
        Ok(MappingView {
            mapping,
            corpus: corpus.to_path_buf(),
            pages,
            scorers,
            extraction,
            selected: 0,
            member: 0,
            pair: None,
        })
    }

    /// Opens the selected cluster's `member`-th removed page beside its
    /// kept page; `false` when the cluster has no removed page.
    pub fn inspect(&mut self) -> bool {
        let Some(cluster) = self.mapping.clusters.get(self.selected) else {
            return false;
        };
        let Some(&k) = cluster.removed.get(self.member) else {
            return false;
        };
        let row = &self.mapping.pages[k];
        let removed = &self.pages[&row.id];
        let kept = &self.pages[&row.kept_id];
        let text = |p: &Page, e: Extraction| extract_page(p, e).text();
        let (left, right) = shared_text(
            &text(removed, self.extraction),
            &text(kept, self.extraction),
        );
        let scores = self
            .scorers
            .iter()
            .map(|s| s.score(removed, kept))
            .collect();
        self.pair = Some(MappedPair {
            removed: row.id.clone(),
            kept: row.kept_id.clone(),
            left,
            right,
            scores,
            mapped_score: row.score,
            joined_via: row.joined_via.clone().filter(|v| *v != row.kept_id),
            scroll: 0,
            scores_offset: 0,
            on_scores: false,
        });
        true
    }

    /// Removed pages of the selected cluster.
    pub fn removed_here(&self) -> usize {
        self.mapping
            .clusters
            .get(self.selected)
            .map_or(0, |c| c.removed.len())
    }
}
