//! `neardup corpus stats`: what a corpus holds, before any algorithm runs.

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use super::Corpus;
use crate::text::lang::detect_lang;

#[derive(Debug, Clone, PartialEq)]
pub struct CorpusStats {
    pub source: String,
    pub pages: usize,
    pub html_pages: usize,
    pub content_bytes: usize,
    pub clusters: usize,
    /// (label, number of clusters) for size buckets 1, 2, 3, 4, 5, 6-10, ...
    pub cluster_sizes: Vec<(String, usize)>,
    pub largest_cluster: usize,
    /// Pages in clusters of two or more: the duplicate side of the truth.
    pub true_pairs: u64,
    /// Language → (declared, detected by script).
    pub languages: BTreeMap<String, (usize, usize)>,
    pub slices: BTreeMap<String, usize>,
    pub skipped_empty: usize,
    pub unlabelled: usize,
}

const BUCKETS: [(usize, usize, &str); 10] = [
    (1, 1, "1"),
    (2, 2, "2"),
    (3, 3, "3"),
    (4, 4, "4"),
    (5, 5, "5"),
    (6, 10, "6-10"),
    (11, 20, "11-20"),
    (21, 50, "21-50"),
    (51, 100, "51-100"),
    (101, usize::MAX, "101+"),
];

impl CorpusStats {
    pub fn of(corpus: &Corpus) -> CorpusStats {
        let mut sizes: HashMap<&str, usize> = HashMap::new();
        let mut languages: BTreeMap<String, (usize, usize)> = BTreeMap::new();
        let mut slices: BTreeMap<String, usize> = BTreeMap::new();
        let mut html_pages = 0;
        for page in &corpus.pages {
            *sizes.entry(page.cluster.as_str()).or_default() += 1;
            *slices.entry(page.slice()).or_default() += 1;
            if page.content.is_html() {
                html_pages += 1;
            }
            match page.lang {
                Some(lang) => languages.entry(lang.code().into()).or_default().0 += 1,
                None => {
                    let text =
                        crate::extract::page_text(page, crate::extract::Extraction::FullText);
                    let lang = detect_lang(&text.text);
                    languages.entry(lang.code().into()).or_default().1 += 1;
                }
            }
        }
        let mut histogram = vec![0usize; BUCKETS.len()];
        for &size in sizes.values() {
            let b = BUCKETS
                .iter()
                .position(|&(lo, hi, _)| size >= lo && size <= hi)
                .expect("buckets cover every size");
            histogram[b] += 1;
        }
        let cluster_sizes = BUCKETS
            .iter()
            .zip(histogram)
            .filter(|(_, n)| *n > 0)
            .map(|((_, _, label), n)| (label.to_string(), n))
            .collect();
        CorpusStats {
            source: corpus.source.clone(),
            pages: corpus.pages.len(),
            html_pages,
            content_bytes: corpus.content_bytes(),
            clusters: sizes.len(),
            cluster_sizes,
            largest_cluster: sizes.values().copied().max().unwrap_or(0),
            true_pairs: sizes
                .values()
                .map(|&n| (n as u64) * (n as u64 - 1) / 2)
                .sum(),
            languages,
            slices,
            skipped_empty: corpus.skipped_empty,
            unlabelled: corpus.unlabelled,
        }
    }
}

impl fmt::Display for CorpusStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "corpus      {}", self.source)?;
        writeln!(
            f,
            "pages       {} ({} HTML, {} text), {:.2} MB of content",
            self.pages,
            self.html_pages,
            self.pages - self.html_pages,
            self.content_bytes as f64 / 1e6
        )?;
        writeln!(f, "skipped     {} empty documents", self.skipped_empty)?;
        if self.unlabelled > 0 {
            writeln!(
                f,
                "unlabelled  {} pages have no cluster (each counted as its own cluster)",
                self.unlabelled
            )?;
        }
        writeln!(
            f,
            "clusters    {} (largest {} pages; {} true duplicate pairs)",
            self.clusters, self.largest_cluster, self.true_pairs
        )?;
        writeln!(f, "\ncluster size   clusters")?;
        for (label, n) in &self.cluster_sizes {
            writeln!(f, "  {label:>10}   {n}")?;
        }
        writeln!(f, "\nlanguage   declared   detected by script")?;
        for (lang, (declared, detected)) in &self.languages {
            writeln!(f, "  {lang:<8} {declared:>8}   {detected:>8}")?;
        }
        writeln!(f, "\nslice (category/kind)          pages")?;
        for (slice, n) in &self.slices {
            writeln!(f, "  {slice:<28} {n:>6}")?;
        }
        Ok(())
    }
}
