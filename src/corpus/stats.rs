//! `neardup corpus stats`: what a corpus holds, before any algorithm runs.

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use rayon::prelude::*;

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
    /// How built pages were made: each `+`-joined part of `op` counted.
    pub ops: BTreeMap<String, usize>,
    /// Main-text length in characters: p10, p50, p90, max.
    pub text_chars: [usize; 4],
    /// Character 5-gram Jaccard of main texts for a sample of pairs, by
    /// what the pair is (`true full`, `layout`, ...): (pairs, p10, p50, p90).
    pub jaccard: BTreeMap<String, (usize, f64, f64, f64)>,
}

/// Pairs sampled per group for the Jaccard figures.
const JACCARD_SAMPLE: usize = 200;

fn char_5grams(text: &str) -> std::collections::HashSet<u64> {
    let chars: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
    chars
        .windows(5.min(chars.len().max(1)))
        .map(|w| xxhash_rust::xxh3::xxh3_64(w.iter().collect::<String>().as_bytes()))
        .collect()
}

pub fn char5_jaccard(a: &str, b: &str) -> f64 {
    let (x, y) = (char_5grams(a), char_5grams(b));
    let union = x.union(&y).count();
    if union == 0 {
        return 0.0;
    }
    x.intersection(&y).count() as f64 / union as f64
}

fn percentile<T: Copy>(sorted: &[T], q: f64) -> Option<T> {
    (!sorted.is_empty()).then(|| sorted[((sorted.len() - 1) as f64 * q).round() as usize])
}

/// Sample pairs: within clusters (first page with each other), layout pages
/// with the next one in the same template, hard negatives with the
/// original of the cluster they sat next to.
fn sample_pairs(corpus: &Corpus) -> BTreeMap<String, Vec<(usize, usize)>> {
    let mut groups: BTreeMap<String, Vec<(usize, usize)>> = BTreeMap::new();
    let mut first_of: HashMap<&str, usize> = HashMap::new();
    let mut last_layout: HashMap<&str, usize> = HashMap::new();
    for (i, page) in corpus.pages.iter().enumerate() {
        let kind = page.kind.as_deref().unwrap_or("-");
        match first_of.get(page.cluster.as_str()) {
            Some(&f) => groups
                .entry(format!("true {kind}"))
                .or_default()
                .push((f, i)),
            None => {
                first_of.insert(&page.cluster, i);
            }
        }
        let op = page.op.as_deref().unwrap_or("");
        if let Some(template) = op.strip_prefix("layout:") {
            if let Some(&prev) = last_layout.get(template) {
                groups
                    .entry("layout (same template)".into())
                    .or_default()
                    .push((prev, i));
            }
            last_layout.insert(template, i);
        }
    }
    for (i, page) in corpus.pages.iter().enumerate() {
        if let Some(cluster) = page
            .op
            .as_deref()
            .and_then(|o| o.strip_prefix("hard_negative:"))
        {
            if let Some(&f) = first_of.get(cluster) {
                groups
                    .entry("hard negative (source neighbour)".into())
                    .or_default()
                    .push((f, i));
            }
        }
    }
    for pairs in groups.values_mut() {
        pairs.truncate(JACCARD_SAMPLE);
    }
    groups
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
        let texts: Vec<String> = corpus
            .pages
            .par_iter()
            .map(|p| crate::extract::page_text(p, crate::extract::Extraction::Main).text)
            .collect();
        let mut lengths: Vec<usize> = texts.iter().map(|t| t.chars().count()).collect();
        lengths.sort_unstable();
        let text_chars = [0.1, 0.5, 0.9, 1.0].map(|q| percentile(&lengths, q).unwrap_or(0));
        let mut ops: BTreeMap<String, usize> = BTreeMap::new();
        for op in corpus.pages.iter().filter_map(|p| p.op.as_deref()) {
            for part in op.split('+') {
                let part = part.split(':').next().unwrap_or(part);
                *ops.entry(part.to_string()).or_default() += 1;
            }
        }
        let jaccard = sample_pairs(corpus)
            .into_iter()
            .map(|(group, pairs)| {
                let mut values: Vec<f64> = pairs
                    .par_iter()
                    .map(|&(a, b)| char5_jaccard(&texts[a], &texts[b]))
                    .collect();
                values.sort_by(f64::total_cmp);
                let q = |x| percentile(&values, x).unwrap_or(f64::NAN);
                (group, (values.len(), q(0.1), q(0.5), q(0.9)))
            })
            .collect();
        for (index, page) in corpus.pages.iter().enumerate() {
            *sizes.entry(page.cluster.as_str()).or_default() += 1;
            *slices.entry(page.slice()).or_default() += 1;
            if page.content.is_html() {
                html_pages += 1;
            }
            match page.lang {
                Some(lang) => languages.entry(lang.code().into()).or_default().0 += 1,
                None => {
                    let lang = detect_lang(&texts[index]);
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
            ops,
            text_chars,
            jaccard,
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
        let [p10, p50, p90, max] = self.text_chars;
        writeln!(
            f,
            "\nmain text chars  p10 {p10}  p50 {p50}  p90 {p90}  max {max}"
        )?;
        if !self.ops.is_empty() {
            writeln!(f, "\noperation (op)                 pages")?;
            for (op, n) in &self.ops {
                writeln!(f, "  {op:<28} {n:>6}")?;
            }
        }
        if !self.jaccard.is_empty() {
            writeln!(
                f,
                "\nchar 5-gram Jaccard of main texts (sample)   pairs     p10     p50     p90"
            )?;
            for (group, (n, p10, p50, p90)) in &self.jaccard {
                writeln!(f, "  {group:<40} {n:>6} {p10:>7.3} {p50:>7.3} {p90:>7.3}")?;
            }
        }
        Ok(())
    }
}
