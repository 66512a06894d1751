//! `neardup bench scale`: how each stage grows with the corpus, from ten
//! thousand pages to a million.
//!
//! No builder source holds a million pages, so a built corpus is repeated
//! with every copy's ids and clusters renamed. An exact copy would make
//! each page a duplicate of its copies (a story repeated 54 times is a
//! cluster of 54, and the pairs grow with the square of the copies), so
//! every copy, the first included, writes its Chinese characters through
//! its own permutation of the CJK block: inside a copy, duplicates stay
//! exactly as near as the builder made them; across copies, pages share no
//! shingle. The first copy is permuted too: the permuted words are unknown
//! to the tokeniser's dictionary and cost it about twice as much a page, so
//! a corpus of the source itself below one copy and of permuted copies
//! above it would measure that difference as growth.
//! The pages are the source's extracted main text (title and paragraphs),
//! extracted once: extraction is per page by nature and `neardup bench`
//! measures it; here it would only cost the run hours at a million pages.
//!
//! Each size runs in turn through the experiment runner, smallest first;
//! the process's peak resident memory is reset before each (Linux
//! `/proc/self/clear_refs`), so it is that size's peak. With `--dedup`,
//! each size is then deduplicated as `neardup dedup` does it (the first
//! algorithm's run, its clusters, the kept page of each, the mapping
//! written as Parquet and CSV), with a peak of its own. The exponent of a
//! stage is the slope of log CPU seconds against log pages between two
//! sizes: 1 is linear, 2 quadratic.

use std::fmt::Write as _;
use std::path::Path;

use rayon::prelude::*;

use crate::corpus::{read_corpus, Content, Corpus, CorpusError, Page, ReadOptions};
use crate::experiment::{CacheSetting, Experiment, ExperimentConfig, References, Watchers};
use crate::extract::{extract_page, Extraction};
use crate::util::stage::{peak_memory_bytes, process_cpu_seconds, Stage};

/// The algorithms the benchmark runs, as an experiment's entries.
const ALGORITHMS: [(&str, &str); 4] = [
    (
        "minhash",
        "  - type: minhash           # 128 min-hashes, LSH bands for J >= 0.5\n    width: 3\n    threshold: 0.5\n",
    ),
    (
        "simhash",
        "  - type: simhash           # permuted tables, k <= 3\n    index: 6c3\n    threshold: 3\n    floor: 3\n    grid: [0, 1, 2, 3]\n",
    ),
    ("imatch", "  - type: imatch\n"),
    ("semantic", "  - type: semantic\n"),
];

#[derive(Debug, thiserror::Error)]
pub enum ScaleError {
    #[error(transparent)]
    Corpus(#[from] CorpusError),
    #[error("{0}")]
    Config(String),
}

/// A source page reduced to what a copy needs: its extracted title and
/// paragraphs (one a line) and its labels.
#[derive(Debug, Clone)]
pub struct SourcePage {
    page: Page,
    title: Option<String>,
    text: String,
}

/// The source corpus's pages with their main text, extracted once.
pub fn source_pages(path: &Path) -> Result<Vec<SourcePage>, CorpusError> {
    let corpus = read_corpus(path, ReadOptions::default())?;
    if corpus.pages.is_empty() {
        return Err(CorpusError::invalid(
            path,
            crate::corpus::Location::File,
            None,
            "the corpus has no pages to repeat",
        ));
    }
    Ok(corpus
        .pages
        .into_par_iter()
        .map(|mut page| {
            let structure = extract_page(&page, Extraction::Main).structure;
            page.content = Content::Text(String::new());
            SourcePage {
                title: structure.title.clone(),
                text: structure.text().to_string(),
                page,
            }
        })
        .collect())
}

/// The CJK unified ideographs a copy permutes.
const CJK_FIRST: u32 = 0x4E00;
const CJK_LEN: u32 = 0x9FA5 - 0x4E00 + 1;
/// Coprime with `CJK_LEN` (2 x 7 x 1493), so that `x -> x * MULTIPLIER + copy`
/// is a permutation, and a different one for every copy.
const MULTIPLIER: u32 = 7919;

/// `text` through permutation `copy` (0 is the source itself).
fn perturb(text: &str, copy: u32) -> String {
    if copy == 0 {
        return text.to_string();
    }
    text.chars()
        .map(|c| {
            let x = c as u32;
            if !(CJK_FIRST..CJK_FIRST + CJK_LEN).contains(&x) {
                return c;
            }
            let y = ((x - CJK_FIRST) as u64 * MULTIPLIER as u64 + copy as u64) % CJK_LEN as u64;
            char::from_u32(CJK_FIRST + y as u32).expect("inside the CJK block")
        })
        .collect()
}

/// `pages` pages: copy 0 of the sources in order, then copy 1 of them,
/// and so on, the last copy cut short. Copy `k` writes through permutation
/// `k + 1` and, from copy 1 on, prefixes ids and clusters with `kK:`.
fn scaled_corpus(sources: &[SourcePage], pages: usize) -> Corpus {
    let pages: Vec<Page> = (0..pages)
        .into_par_iter()
        .map(|i| {
            let copy = (i / sources.len()) as u32;
            let source = &sources[i % sources.len()];
            let rename = |s: &str| match copy {
                0 => s.to_string(),
                k => format!("k{k}:{s}"),
            };
            let mut page = source.page.clone();
            page.id = rename(&page.id);
            page.cluster = rename(&page.cluster);
            page.title = source.title.as_deref().map(|t| perturb(t, copy + 1));
            page.content = Content::Text(perturb(&source.text, copy + 1));
            page
        })
        .collect();
    Corpus {
        source: format!("{} pages", pages.len()),
        pages,
        ..Corpus::default()
    }
}

/// One stage's CPU seconds at each size.
#[derive(Debug, Clone)]
pub struct ScaleRow {
    pub stage: String,
    pub cpu_seconds: Vec<f64>,
}

/// What the benchmark measured, one column per size.
#[derive(Debug, Clone)]
pub struct ScaleTable {
    pub pages: Vec<usize>,
    pub rows: Vec<ScaleRow>,
    /// Peak resident bytes while each size ran.
    pub peak_bytes: Vec<Option<u64>>,
    pub wall_seconds: Vec<f64>,
    pub cpu_seconds: Vec<f64>,
    /// Stored pairs per algorithm and size.
    pub pairs: Vec<(String, Vec<u64>)>,
    /// Per size, the deduplication's figures (empty unless asked for).
    pub dedup: Vec<DedupFigures>,
}

/// One size deduplicated by the first algorithm, its output written.
#[derive(Debug, Clone)]
pub struct DedupFigures {
    pub label: String,
    pub cpu_seconds: f64,
    pub wall_seconds: f64,
    pub peak_bytes: Option<u64>,
    pub removed: usize,
}

/// The experiment the benchmark runs: the named algorithms of
/// [`ALGORITHMS`] on main text.
pub fn scale_config(algorithms: &[String], corpus: &Path) -> Result<ExperimentConfig, ScaleError> {
    // The corpus is named for the record; the pages are made, not read.
    let mut yaml = format!(
        "name: scale\ncorpus: {}\nextract: main\nalgorithms:\n",
        serde_json::to_string(&corpus.display().to_string()).expect("a string serialises")
    );
    for name in algorithms {
        let Some((_, entry)) = ALGORITHMS.iter().find(|(n, _)| n == name) else {
            let known: Vec<&str> = ALGORITHMS.iter().map(|(n, _)| *n).collect();
            return Err(ScaleError::Config(format!(
                "--algorithms: unknown `{name}` (known: {})",
                known.join(", ")
            )));
        };
        yaml.push_str(entry);
    }
    ExperimentConfig::parse(Path::new("bench-scale.yaml"), &yaml)
        .map_err(|e| ScaleError::Config(e.to_string()))
}

/// Resets the process's peak resident memory to its current size (Linux
/// 4.0 and later; elsewhere the peak stays the process's).
fn reset_peak_memory() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// Runs `config` at each size of `sizes` (ascending), telling `progress`
/// as each size finishes.
pub fn run_scale(
    sources: &[SourcePage],
    config: &ExperimentConfig,
    sizes: &[usize],
    dedup: bool,
    mut progress: impl FnMut(&str),
) -> Result<ScaleTable, ScaleError> {
    // The pages are made here, never read again: caching their extraction
    // would only write a file per size (gigabytes at a million pages).
    let experiment = Experiment::from_config(config.clone(), Path::new("."));
    let references = experiment
        .read_references()
        .map_err(|e| ScaleError::Config(e.to_string()))?;
    let mut table = ScaleTable {
        pages: sizes.to_vec(),
        rows: Vec::new(),
        peak_bytes: Vec::new(),
        wall_seconds: Vec::new(),
        cpu_seconds: Vec::new(),
        pairs: Vec::new(),
        dedup: Vec::new(),
    };
    for (column, &n) in sizes.iter().enumerate() {
        let corpus = scaled_corpus(sources, n);
        reset_peak_memory();
        let cpu = process_cpu_seconds();
        let wall = std::time::Instant::now();
        let run = experiment
            .clone()
            .prepare_pages(corpus, references.clone(), CacheSetting::Off)
            .run(Watchers::default());
        let result = run.into_result();
        table.wall_seconds.push(wall.elapsed().as_secs_f64());
        table.cpu_seconds.push(process_cpu_seconds() - cpu);
        table.peak_bytes.push(peak_memory_bytes());
        for record in &result.throughput {
            if record.stage == Stage::Evaluate {
                continue;
            }
            let stage = format!("{} {}", record.stage.name(), record.algorithm);
            let at = match table.rows.iter().position(|r| r.stage == stage) {
                Some(at) => at,
                None => {
                    table.rows.push(ScaleRow {
                        stage,
                        cpu_seconds: vec![f64::NAN; sizes.len()],
                    });
                    table.rows.len() - 1
                }
            };
            let cell = &mut table.rows[at].cpu_seconds[column];
            *cell = if cell.is_nan() {
                record.cpu_seconds
            } else {
                *cell + record.cpu_seconds
            };
        }
        // What each stage left resident and the peak so far: where the
        // memory per page goes.
        for record in &result.throughput {
            if let (Some(rss), Some(peak)) = (record.rss_bytes, record.peak_bytes) {
                progress(&format!(
                    "  {n} pages, after {} {}: {} resident, peak {}",
                    record.stage.name(),
                    record.algorithm,
                    megabytes(Some(rss)),
                    megabytes(Some(peak))
                ));
            }
        }
        for a in &result.algorithms {
            let label = a.run.label.clone();
            let at = match table.pairs.iter().position(|(l, _)| *l == label) {
                Some(at) => at,
                None => {
                    table.pairs.push((label, vec![0; sizes.len()]));
                    table.pairs.len() - 1
                }
            };
            table.pairs[at].1[column] = a.run.stored_pairs();
        }
        drop(result);
        progress(&format!(
            "{n} pages: {:.1} s wall, {:.1} s CPU, peak {}",
            table.wall_seconds[column],
            table.cpu_seconds[column],
            megabytes(table.peak_bytes[column])
        ));
        if dedup {
            let figures = dedup_size(sources, &experiment, &references, n)?;
            progress(&format!(
                "{n} pages deduplicated by {}: {:.1} s wall, {:.1} s CPU, peak {}, {} removed",
                figures.label,
                figures.wall_seconds,
                figures.cpu_seconds,
                megabytes(figures.peak_bytes),
                figures.removed
            ));
            table.dedup.push(figures);
        }
    }
    Ok(table)
}

/// `neardup dedup` on `n` pages with the experiment's first algorithm:
/// its run, clusters and kept pages, the mapping written (into a
/// temporary folder, then removed).
fn dedup_size(
    sources: &[SourcePage],
    experiment: &Experiment,
    references: &References,
    n: usize,
) -> Result<DedupFigures, ScaleError> {
    use crate::experiment::{dedup, mapping};
    let fail = |e: String| ScaleError::Config(format!("dedup at {n} pages: {e}"));
    let choice = experiment
        .choices(references)
        .into_iter()
        .next()
        .ok_or_else(|| fail("no algorithm".into()))?;
    let corpus_path = Path::new(&experiment.config().corpus);
    let one = dedup::DedupRun {
        experiment,
        references,
        corpus: corpus_path,
        choice: &choice,
        cache: CacheSetting::Off,
    };
    let corpus = scaled_corpus(sources, n);
    let out = std::env::temp_dir().join(format!("neardup-scale-dedup-{}", std::process::id()));
    crate::util::io::create_dir_all(&out).map_err(|e| fail(e.to_string()))?;
    reset_peak_memory();
    let cpu = process_cpu_seconds();
    let wall = std::time::Instant::now();
    let done = dedup::deduplicate_pages(&one, corpus, dedup::KeepPolicy::First, None);
    let summary = mapping::summarize(&done, dedup::KeepPolicy::First);
    let written =
        mapping::write_mapping(&done, &out).and_then(|()| mapping::write_summary(&summary, &out));
    let _ = std::fs::remove_dir_all(&out);
    written.map_err(|e| fail(e.to_string()))?;
    Ok(DedupFigures {
        label: done.label,
        cpu_seconds: process_cpu_seconds() - cpu,
        wall_seconds: wall.elapsed().as_secs_f64(),
        peak_bytes: peak_memory_bytes(),
        removed: summary.removed,
    })
}

fn megabytes(bytes: Option<u64>) -> String {
    bytes.map_or("-".into(), |b| format!("{:.0} MB", b as f64 / 1e6))
}

/// The slope of log `y` against log `x` between two points; `None` when a
/// value is too small to say (below 10 ms of CPU) or missing.
pub fn exponent(x0: usize, y0: f64, x1: usize, y1: f64) -> Option<f64> {
    let ok = |y: f64| y.is_finite() && y >= 0.01;
    (ok(y0) && ok(y1) && x1 != x0).then(|| (y1 / y0).ln() / (x1 as f64 / x0 as f64).ln())
}

/// The table as Markdown: per stage, CPU seconds at each size and the
/// exponent between consecutive sizes; then the whole run and its peak.
pub fn render_scale(table: &ScaleTable) -> String {
    let sizes = &table.pages;
    let mut out = String::from("| stage |");
    for n in sizes {
        let _ = write!(out, " {n} pages |");
    }
    for w in sizes.windows(2) {
        let _ = write!(out, " exponent {}-{} |", w[0], w[1]);
    }
    out.push_str("\n|---|");
    for _ in 0..sizes.len() + sizes.len().saturating_sub(1) {
        out.push_str("---|");
    }
    out.push('\n');
    let row = |out: &mut String, name: &str, values: &[f64], decimals: usize| {
        let _ = write!(out, "| {name} |");
        for v in values {
            if v.is_nan() {
                out.push_str(" - |");
            } else {
                let _ = write!(out, " {v:.decimals$} |");
            }
        }
        for i in 1..values.len() {
            match exponent(sizes[i - 1], values[i - 1], sizes[i], values[i]) {
                Some(e) => {
                    let _ = write!(out, " {e:.2} |");
                }
                None => out.push_str(" - |"),
            }
        }
        out.push('\n');
    };
    for r in &table.rows {
        row(&mut out, &format!("{} (CPU s)", r.stage), &r.cpu_seconds, 2);
    }
    row(&mut out, "whole run (CPU s)", &table.cpu_seconds, 1);
    row(&mut out, "whole run (wall s)", &table.wall_seconds, 1);
    let peak: Vec<f64> = table
        .peak_bytes
        .iter()
        .map(|b| b.map_or(f64::NAN, |b| b as f64 / 1e6))
        .collect();
    row(&mut out, "peak memory (MB)", &peak, 0);
    let per_page: Vec<f64> = peak
        .iter()
        .zip(sizes)
        .map(|(mb, &n)| mb * 1e6 / n as f64 / 1e3)
        .collect();
    row(&mut out, "peak memory per page (KB)", &per_page, 1);
    for (label, pairs) in &table.pairs {
        let values: Vec<f64> = pairs.iter().map(|&p| p as f64).collect();
        row(&mut out, &format!("stored pairs {label}"), &values, 0);
    }
    if let Some(first) = table.dedup.first() {
        let label = &first.label;
        let of = |f: fn(&DedupFigures) -> f64| table.dedup.iter().map(f).collect::<Vec<f64>>();
        row(
            &mut out,
            &format!("dedup {label} (CPU s)"),
            &of(|d| d.cpu_seconds),
            1,
        );
        row(&mut out, "dedup (wall s)", &of(|d| d.wall_seconds), 1);
        let per_page: Vec<f64> = table
            .dedup
            .iter()
            .zip(sizes)
            .map(|(d, &n)| d.peak_bytes.map_or(f64::NAN, |b| b as f64 / n as f64 / 1e3))
            .collect();
        row(&mut out, "dedup peak memory per page (KB)", &per_page, 1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_permute_chinese_and_keep_the_rest() {
        let text = "新华社北京1月1日电，abc。";
        assert_eq!(perturb(text, 0), text);
        let one = perturb(text, 1);
        let two = perturb(text, 2);
        assert_ne!(one, text);
        assert_ne!(one, two);
        assert_eq!(one.chars().count(), text.chars().count());
        // Punctuation, digits and Latin letters stay, so sentences split
        // where they did; the Chinese characters move.
        let cjk = |c: char| (CJK_FIRST..CJK_FIRST + CJK_LEN).contains(&(c as u32));
        let mut moved = 0;
        for (a, b) in text.chars().zip(one.chars()) {
            if cjk(a) {
                assert!(cjk(b));
                moved += usize::from(a != b);
            } else {
                assert_eq!(a, b);
            }
        }
        assert!(moved >= 6, "{one}");
        // Equal characters map to equal characters inside a copy.
        let twice = perturb("京京", 3);
        let mut c = twice.chars();
        assert_eq!(c.next(), c.next());
    }

    #[test]
    fn the_map_is_a_permutation_of_the_block() {
        let all: String = (CJK_FIRST..CJK_FIRST + CJK_LEN)
            .map(|x| char::from_u32(x).unwrap())
            .collect();
        let mut mapped: Vec<char> = perturb(&all, 5).chars().collect();
        mapped.sort_unstable();
        mapped.dedup();
        assert_eq!(mapped.len(), CJK_LEN as usize);
    }

    #[test]
    fn copies_rename_ids_and_clusters() {
        let source = |id: &str, cluster: &str, text: &str| SourcePage {
            page: Page::new(id, cluster, Content::Text(String::new())),
            title: Some("标题".into()),
            text: text.into(),
        };
        let sources = [source("a", "x", "第一页"), source("b", "x", "第二页")];
        let corpus = scaled_corpus(&sources, 5);
        let ids: Vec<&str> = corpus.pages.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, ["a", "b", "k1:a", "k1:b", "k2:a"]);
        let clusters: Vec<&str> = corpus.pages.iter().map(|p| p.cluster.as_str()).collect();
        assert_eq!(clusters, ["x", "x", "k1:x", "k1:x", "k2:x"]);
        assert_eq!(corpus.pages[0].content, Content::Text(perturb("第一页", 1)));
        assert_ne!(corpus.pages[0].content, Content::Text("第一页".into()));
        assert_ne!(corpus.pages[2].content, corpus.pages[0].content);
        assert_ne!(corpus.pages[2].title, corpus.pages[0].title);
    }

    #[test]
    fn the_experiment_names_the_algorithms_asked_for() {
        let all: Vec<String> = ALGORITHMS.iter().map(|(n, _)| n.to_string()).collect();
        let config = scale_config(&all, Path::new("some corpus.jsonl")).unwrap();
        assert_eq!(config.algorithms.len(), 4);
        let err = scale_config(&["lsh".to_string()], Path::new("c.jsonl")).unwrap_err();
        assert!(err.to_string().contains("unknown `lsh`"), "{err}");
    }

    #[test]
    fn exponents_are_log_log_slopes() {
        let e = exponent(10_000, 1.0, 100_000, 100.0).unwrap();
        assert!((e - 2.0).abs() < 1e-9);
        assert!(exponent(10, 0.001, 100, 1.0).is_none());
    }
}
