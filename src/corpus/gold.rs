//! `neardup extract-eval`: the extractor scored against main-content gold.
//!
//! Three layouts are recognised:
//! - the Zyte/Scrapinghub article-extraction-benchmark (`ground-truth.json`
//!   and `html/*.html.gz`), scored as its `evaluate.py` defines it: per page,
//!   4-shingles of `\w+` tokens, true/false positives and negatives
//!   normalised to sum 1; precision and recall are means over pages, F1 is
//!   their harmonic mean;
//! - trafilatura's evaluation set (`evaldata.json`, pages unpacked in
//!   `eval/` and `cache/` or still in `trafilatura_eval_html.tar.xz`): the
//!   share of "with" snippets found and of "without" snippets absent;
//! - a folder with `manifest.jsonl` and `html/` (the Debian Chinese pages),
//!   which has no gold: what was extracted is summarised for reading by eye;
//! - a corpus file (JSONL, CSV, Parquet): no gold either, its pages are
//!   decoded and extracted to time the extractor on them.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Read;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Deserialize;

use crate::corpus::Content;
use crate::extract::{decode::decode_html, extract_article_text, extract_html, Extraction};
use crate::text::lang::is_han;
use crate::util::io::FileError;

#[derive(Debug, thiserror::Error)]
pub enum GoldError {
    #[error(transparent)]
    Io(#[from] FileError),
    #[error("{}: {message}", path.display())]
    Invalid { path: PathBuf, message: String },
    #[error(transparent)]
    Corpus(#[from] crate::corpus::CorpusError),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> GoldError + '_ {
    move |source| GoldError::Io(FileError::new(path, source))
}

fn invalid(path: &Path, message: impl Into<String>) -> GoldError {
    GoldError::Invalid {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

fn read_maybe_gz(path: &Path) -> Result<Vec<u8>, GoldError> {
    crate::corpus::read_maybe_gzipped(path).map_err(io(path))
}

/// The article text of raw page bytes, headings in place.
fn extract_bytes(bytes: &[u8], extraction: Extraction) -> String {
    extract_article_text(&decode_html(bytes).text, extraction)
}

/// Recognises the layout of `dir` and prints its evaluation; the report's
/// last line is `F1 <value>` or the snippet shares. `worst` > 0 also lists
/// that many pages the main extractor does worst on, to read them.
pub fn evaluate_dir(dir: &Path, worst: usize) -> Result<String, GoldError> {
    if dir.is_file() {
        corpus_speed(dir)
    } else if dir.join("ground-truth.json").is_file() {
        article_benchmark(dir, worst)
    } else if dir.join("evaldata.json").is_file() {
        trafilatura_eval(dir, worst)
    } else if dir.join("manifest.jsonl").is_file() {
        unlabelled_manifest(dir)
    } else {
        Err(invalid(
            dir,
            "no gold found: expected ground-truth.json (article benchmark), evaldata.json \
             (trafilatura) or manifest.jsonl (a folder of pages)",
        ))
    }
}

// ---- article-extraction-benchmark -------------------------------------

#[derive(Deserialize)]
struct ArticleGold {
    #[serde(rename = "articleBody", default)]
    article_body: String,
}

/// (tp, fp, fn) of one page, normalised to sum to 1.
fn shingle_matching(truth: &str, predicted: &str) -> (f64, f64, f64) {
    let t = shingles(truth);
    let p = shingles(predicted);
    let (mut tp, mut fp, mut fn_) = (0.0, 0.0, 0.0);
    for (key, &tc) in &t {
        let pc = p.get(key).copied().unwrap_or(0);
        tp += tc.min(pc) as f64;
        fn_ += tc.saturating_sub(pc) as f64;
    }
    for (key, &pc) in &p {
        fp += pc.saturating_sub(t.get(key).copied().unwrap_or(0)) as f64;
    }
    let sum = tp + fp + fn_;
    if sum > 0.0 {
        (tp / sum, fp / sum, fn_ / sum)
    } else {
        (0.0, 0.0, 0.0)
    }
}

fn word_tokens(text: &str) -> Vec<&str> {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    text.split(|c: char| !is_word(c))
        .filter(|t| !t.is_empty())
        .collect()
}

/// 4-shingles of word tokens; a text of fewer tokens is one shingle.
fn shingles(text: &str) -> HashMap<Vec<&str>, u32> {
    let tokens = word_tokens(text);
    let mut out = HashMap::new();
    let n = 4;
    let count = tokens.len().saturating_sub(n) + 1;
    for i in 0..count.max(1) {
        let shingle: Vec<&str> = tokens[i.min(tokens.len())..(i + n).min(tokens.len())].to_vec();
        if !shingle.is_empty() {
            *out.entry(shingle).or_insert(0) += 1;
        }
    }
    out
}

/// Mean precision and recall over pages, and their harmonic mean.
fn benchmark_scores(per_page: &[(f64, f64, f64)]) -> (f64, f64, f64) {
    let precision_of = |&(tp, fp, fn_): &(f64, f64, f64)| {
        if fp == 0.0 && fn_ == 0.0 {
            1.0
        } else if tp == 0.0 && fp == 0.0 {
            0.0
        } else {
            tp / (tp + fp)
        }
    };
    let recall_of = |&(tp, fp, fn_): &(f64, f64, f64)| {
        if fp == 0.0 && fn_ == 0.0 {
            1.0
        } else if tp == 0.0 && fn_ == 0.0 {
            0.0
        } else {
            tp / (tp + fn_)
        }
    };
    let mean = |xs: Vec<f64>| xs.iter().sum::<f64>() / xs.len().max(1) as f64;
    let p = mean(
        per_page
            .iter()
            .filter(|(tp, fp, _)| tp + fp > 0.0)
            .map(precision_of)
            .collect(),
    );
    let r = mean(
        per_page
            .iter()
            .filter(|(tp, _, fn_)| tp + fn_ > 0.0)
            .map(recall_of)
            .collect(),
    );
    let f = if p + r > 0.0 {
        2.0 * p * r / (p + r)
    } else {
        0.0
    };
    (p, r, f)
}

/// CPU seconds of the calling thread: what one page cost one core, however
/// busy the machine's other cores are (wall time would count waiting).
fn thread_cpu_seconds() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime only writes into the struct we pass.
    if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } != 0 {
        return 0.0;
    }
    t.tv_sec as f64 + t.tv_nsec as f64 / 1e9
}

/// Runs `f` and times it on the calling thread, in CPU seconds.
fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let started = thread_cpu_seconds();
    let out = f();
    (out, (thread_cpu_seconds() - started).max(0.0))
}

/// Extracts `bytes` and times it on the calling thread.
fn timed_extract(bytes: &[u8], extraction: Extraction) -> (String, f64) {
    timed(|| extract_bytes(bytes, extraction))
}

/// Pages per second on one core: pages over the summed per-page times.
fn pages_per_second(seconds: impl Iterator<Item = f64>) -> f64 {
    let (n, total) = seconds.fold((0usize, 0.0), |(n, t), s| (n + 1, t + s));
    n as f64 / total.max(1e-9)
}

fn article_benchmark(dir: &Path, worst: usize) -> Result<String, GoldError> {
    let gold_path = dir.join("ground-truth.json");
    let gold: HashMap<String, ArticleGold> =
        serde_json::from_slice(&std::fs::read(&gold_path).map_err(io(&gold_path))?)
            .map_err(|e| invalid(&gold_path, format!("malformed JSON: {e}")))?;
    let mut keys: Vec<&String> = gold.keys().collect();
    keys.sort();
    let pages: Vec<(String, Vec<u8>)> = keys
        .iter()
        .map(|k| {
            let path = dir.join("html").join(format!("{k}.html.gz"));
            read_maybe_gz(&path).map(|b| (k.to_string(), b))
        })
        .collect::<Result<_, _>>()?;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "article-extraction-benchmark: {} pages ({})",
        pages.len(),
        dir.display()
    );
    let _ = writeln!(
        out,
        "{:<12} {:>9} {:>8} {:>8} {:>16}",
        "extractor", "precision", "recall", "F1", "pages/s (1 core)"
    );
    let mut main_f1 = 0.0;
    let mut main_pages = Vec::new();
    for extraction in [Extraction::Main, Extraction::FullText] {
        let timed: Vec<((f64, f64, f64), f64)> = pages
            .par_iter()
            .map(|(k, bytes)| {
                let (text, seconds) = timed_extract(bytes, extraction);
                (shingle_matching(&gold[k].article_body, &text), seconds)
            })
            .collect();
        let per_page: Vec<(f64, f64, f64)> = timed.iter().map(|t| t.0).collect();
        let (p, r, f) = benchmark_scores(&per_page);
        let speed = pages_per_second(timed.iter().map(|t| t.1));
        if extraction == Extraction::Main {
            main_f1 = f;
            main_pages = per_page;
        }
        let _ = writeln!(
            out,
            "{:<12} {p:>9.3} {r:>8.3} {f:>8.3} {speed:>16.0}",
            extraction.name()
        );
    }
    if worst > 0 {
        let mut ranked: Vec<(f64, f64, f64, &str)> = main_pages
            .iter()
            .zip(&pages)
            .map(|(&(tp, fp, fn_), (k, _))| {
                let (p, r, f) = benchmark_scores(&[(tp, fp, fn_)]);
                (f, p, r, k.as_str())
            })
            .collect();
        ranked.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.3.cmp(b.3)));
        let _ = writeln!(out, "worst pages (main): F1 precision recall page");
        for (f, p, r, k) in ranked.into_iter().take(worst) {
            let _ = writeln!(out, "  {f:.3} {p:.3} {r:.3} {k}");
        }
    }
    let _ = writeln!(
        out,
        "published F1 (same metric): best commercial 0.970, readability 0.922, newspaper 0.912, \
         dragnet 0.907, boilerpipe 0.860, full page text 0.665"
    );
    let _ = writeln!(out, "F1 {main_f1:.3}");
    Ok(out)
}

// ---- trafilatura evaluation --------------------------------------------

#[derive(Deserialize)]
struct SnippetGold {
    file: String,
    #[serde(default)]
    with: Vec<String>,
    #[serde(default)]
    without: Vec<String>,
}

/// Pages by file name: from `eval/` and `cache/`, or from the archive.
pub fn trafilatura_pages(dir: &Path) -> Result<HashMap<String, Vec<u8>>, GoldError> {
    let mut pages = HashMap::new();
    for sub in ["eval", "cache"] {
        let folder = dir.join(sub);
        if let Ok(entries) = std::fs::read_dir(&folder) {
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_file() {
                    let name = entry.file_name().to_string_lossy().into_owned();
                    pages.insert(name, read_maybe_gz(&path)?);
                }
            }
        }
    }
    if !pages.is_empty() {
        return Ok(pages);
    }
    let archive = dir.join("trafilatura_eval_html.tar.xz");
    let compressed = std::fs::read(&archive).map_err(io(&archive))?;
    let mut tar_bytes = Vec::new();
    lzma_rs::xz_decompress(&mut &compressed[..], &mut tar_bytes)
        .map_err(|e| invalid(&archive, format!("bad xz data: {e}")))?;
    let mut tar = tar::Archive::new(&tar_bytes[..]);
    for entry in tar.entries().map_err(io(&archive))? {
        let mut entry = entry.map_err(io(&archive))?;
        if !entry.header().entry_type().is_file() {
            continue;
        }
        let name = entry
            .path()
            .map_err(io(&archive))?
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut bytes = Vec::new();
        entry.read_to_end(&mut bytes).map_err(io(&archive))?;
        pages.insert(name, bytes);
    }
    Ok(pages)
}

/// Snippets compare on text with whitespace folded.
fn fold(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[derive(Default, Clone, Copy)]
struct SnippetCounts {
    with_total: usize,
    with_found: usize,
    without_total: usize,
    without_absent: usize,
}

impl SnippetCounts {
    fn add(&mut self, o: SnippetCounts) {
        self.with_total += o.with_total;
        self.with_found += o.with_found;
        self.without_total += o.without_total;
        self.without_absent += o.without_absent;
    }

    fn shares(&self) -> (f64, f64) {
        (
            self.with_found as f64 / self.with_total.max(1) as f64,
            self.without_absent as f64 / self.without_total.max(1) as f64,
        )
    }
}

fn trafilatura_eval(dir: &Path, worst: usize) -> Result<String, GoldError> {
    let gold_path = dir.join("evaldata.json");
    let gold: HashMap<String, SnippetGold> =
        serde_json::from_slice(&std::fs::read(&gold_path).map_err(io(&gold_path))?)
            .map_err(|e| invalid(&gold_path, format!("malformed JSON: {e}")))?;
    let pages = trafilatura_pages(dir)?;
    let mut entries: Vec<&SnippetGold> = gold.values().collect();
    entries.sort_by(|a, b| a.file.cmp(&b.file));
    let missing = entries
        .iter()
        .filter(|g| !pages.contains_key(&g.file))
        .count();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "trafilatura evaluation: {} pages ({} missing), {} `with` and {} `without` snippets",
        entries.len(),
        missing,
        entries.iter().map(|g| g.with.len()).sum::<usize>(),
        entries.iter().map(|g| g.without.len()).sum::<usize>(),
    );
    let _ = writeln!(
        out,
        "{:<12} {:>12} {:>15} {:>14} {:>17} {:>16}",
        "extractor",
        "with found",
        "without absent",
        "zh with found",
        "zh without absent",
        "pages/s (1 core)"
    );
    let mut last = (0.0, 0.0);
    let mut misses: Vec<(usize, &str)> = Vec::new();
    for extraction in [Extraction::Main, Extraction::FullText] {
        let per_page: Vec<(bool, SnippetCounts, f64, &str)> = entries
            .par_iter()
            .filter_map(|g| pages.get(&g.file).map(|b| (g, b)))
            .map(|(g, bytes)| {
                let (text, seconds) = timed_extract(bytes, extraction);
                let text = fold(&text);
                let chinese = g.with.iter().any(|s| s.chars().any(is_han));
                (
                    chinese,
                    SnippetCounts {
                        with_total: g.with.len(),
                        with_found: g.with.iter().filter(|s| text.contains(&fold(s))).count(),
                        without_total: g.without.len(),
                        without_absent: g
                            .without
                            .iter()
                            .filter(|s| !text.contains(&fold(s)))
                            .count(),
                    },
                    seconds,
                    g.file.as_str(),
                )
            })
            .collect();
        let speed = pages_per_second(per_page.iter().map(|p| p.2));
        if extraction == Extraction::Main {
            misses = per_page
                .iter()
                .map(|(_, c, _, file)| {
                    (
                        c.with_total - c.with_found + c.without_total - c.without_absent,
                        *file,
                    )
                })
                .filter(|m| m.0 > 0)
                .collect();
        }
        let (mut all, mut zh) = (SnippetCounts::default(), SnippetCounts::default());
        for (chinese, c, _, _) in per_page {
            all.add(c);
            if chinese {
                zh.add(c);
            }
        }
        let (w, wo) = all.shares();
        let (zw, zwo) = zh.shares();
        let _ = writeln!(
            out,
            "{:<12} {w:>12.3} {wo:>15.3} {zw:>14.3} {zwo:>17.3} {speed:>16.0}",
            extraction.name()
        );
        if extraction == Extraction::Main {
            last = (w, wo);
        }
    }
    if worst > 0 {
        misses.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
        let _ = writeln!(out, "worst pages (main): snippets wrong, file");
        for (wrong, file) in misses.into_iter().take(worst) {
            let _ = writeln!(out, "  {wrong} {file}");
        }
    }
    let _ = writeln!(out, "snippets with {:.3} without {:.3}", last.0, last.1);
    Ok(out)
}

// ---- a corpus ------------------------------------------------------------

/// Decoding and extraction timed on every page of a corpus, per
/// extraction, on one core (pages over the summed per-page times).
fn corpus_speed(path: &Path) -> Result<String, GoldError> {
    let corpus = crate::corpus::read_corpus(path, crate::corpus::ReadOptions::unlabelled())?;
    let bytes = corpus.content_bytes();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}: {} pages, {:.1} MB of content, no gold (decoding and extraction timed)",
        path.display(),
        corpus.len(),
        bytes as f64 / 1e6
    );
    let _ = writeln!(
        out,
        "{:<12} {:>16} {:>13} {:>11}",
        "extraction", "pages/s (1 core)", "MB/s (1 core)", "empty text"
    );
    for extraction in [Extraction::Main, Extraction::FullText] {
        let timed: Vec<(bool, f64)> = corpus
            .pages
            .par_iter()
            .map(|page| {
                let (s, seconds) =
                    timed(|| crate::extract::extract_page(page, extraction).structure);
                (s.paragraph_count() == 0, seconds)
            })
            .collect();
        let seconds: f64 = timed.iter().map(|t| t.1).sum();
        let _ = writeln!(
            out,
            "{:<12} {:>16.0} {:>13.1} {:>11}",
            extraction.name(),
            pages_per_second(timed.iter().map(|t| t.1)),
            bytes as f64 / 1e6 / seconds.max(1e-9),
            timed.iter().filter(|t| t.0).count()
        );
    }
    Ok(out)
}

// ---- every extraction, written out ---------------------------------------

/// One page's extractions as a JSON line: for comparing two builds of the
/// extractor page by page (`diff` the files they write).
fn dump_line(page: &str, html: &Content) -> String {
    let mut line = serde_json::Map::new();
    line.insert("page".into(), page.into());
    for extraction in [Extraction::Main, Extraction::FullText] {
        let p = crate::corpus::Page::new(page.to_string(), page.to_string(), html.clone());
        let out = crate::extract::extract_page(&p, extraction);
        let article = match html {
            Content::HtmlBytes(b) => extract_bytes(b, extraction),
            Content::Html(h) => extract_article_text(h, extraction),
            Content::Text(t) => t.clone(),
        };
        line.insert(
            extraction.name().into(),
            serde_json::json!({
                "structure": out.structure,
                "skeleton": out.structure.skeleton.map(|s| s.0.to_vec()),
                "encoding": out.encoding,
                "article": article,
            }),
        );
    }
    serde_json::Value::Object(line).to_string()
}

/// Writes every page's extractions (both kinds: structure, skeleton,
/// encoding and the article text with headings in place) to `out`, one
/// JSON line per page in a fixed order, for any layout `evaluate_dir` reads.
pub fn dump_dir(dir: &Path, out: &Path) -> Result<usize, GoldError> {
    let pages = pages_of(dir)?;
    let lines: Vec<String> = pages.par_iter().map(|(k, c)| dump_line(k, c)).collect();
    // Line by line: a corpus' dump is larger than its pages, and joining
    // it would hold it twice.
    let mut writer = crate::util::io::AtomicFile::create(out)?;
    for line in &lines {
        std::io::Write::write_all(&mut writer, line.as_bytes())
            .and_then(|()| std::io::Write::write_all(&mut writer, b"\n"))
            .map_err(io(out))?;
    }
    if lines.is_empty() {
        std::io::Write::write_all(&mut writer, b"\n").map_err(io(out))?;
    }
    writer.commit()?;
    Ok(lines.len())
}

/// The pages of any layout `evaluate_dir` reads (a corpus file, a gold
/// set, a folder of `.html` or `.html.gz` files), sorted by name or id.
pub fn pages_of(dir: &Path) -> Result<Vec<(String, Content)>, GoldError> {
    let mut pages: Vec<(String, Content)> = if dir.is_file() {
        let corpus = crate::corpus::read_corpus(dir, crate::corpus::ReadOptions::unlabelled())?;
        corpus
            .pages
            .into_iter()
            .map(|p| (p.id, p.content))
            .collect()
    } else if dir.join("evaldata.json").is_file() {
        trafilatura_pages(dir)?
            .into_iter()
            .map(|(k, b)| (k, Content::HtmlBytes(b)))
            .collect()
    } else {
        let sub = if dir.join("manifest.jsonl").is_file() || dir.join("ground-truth.json").is_file()
        {
            dir.join("html")
        } else {
            dir.to_path_buf()
        };
        let mut files = Vec::new();
        let mut todo = vec![sub];
        while let Some(d) = todo.pop() {
            for entry in std::fs::read_dir(&d).map_err(io(&d))?.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    todo.push(path);
                } else {
                    let bytes = read_maybe_gz(&path)?;
                    files.push((path.display().to_string(), Content::HtmlBytes(bytes)));
                }
            }
        }
        files
    };
    pages.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(pages)
}

// ---- a folder of unlabelled pages ---------------------------------------

#[derive(Deserialize)]
struct ManifestEntry {
    path: String,
    #[serde(default)]
    package: String,
}

fn unlabelled_manifest(dir: &Path) -> Result<String, GoldError> {
    let manifest = dir.join("manifest.jsonl");
    let text = std::fs::read_to_string(&manifest).map_err(io(&manifest))?;
    let entries: Vec<ManifestEntry> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| invalid(&manifest, format!("line {}: {e}", i + 1)))
        })
        .collect::<Result<_, _>>()?;
    let rows: Vec<(String, usize, usize, usize)> = entries
        .par_iter()
        .map(|e| {
            let bytes = read_maybe_gz(&dir.join(&e.path))?;
            let html = decode_html(&bytes).text;
            let main = extract_html(&html, Extraction::Main).text();
            let full = extract_html(&html, Extraction::FullText).text();
            let han = main.chars().filter(|&c| is_han(c)).count();
            Ok((
                e.package.clone(),
                main.chars().count(),
                full.chars().count(),
                han,
            ))
        })
        .collect::<Result<_, GoldError>>()?;
    let mut by_package: std::collections::BTreeMap<&str, (usize, usize, usize, usize, usize)> =
        Default::default();
    for (package, main, full, han) in &rows {
        let e = by_package.entry(package.as_str()).or_default();
        e.0 += 1;
        e.1 += usize::from(*main == 0);
        e.2 += main;
        e.3 += full;
        e.4 += han;
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}: {} pages, no gold (read a sample by eye)",
        dir.display(),
        rows.len()
    );
    let _ = writeln!(
        out,
        "{:<28} {:>6} {:>11} {:>13} {:>13} {:>9}",
        "package", "pages", "empty main", "main chars", "full chars", "main/full"
    );
    for (package, (pages, empty, main, full, _)) in &by_package {
        let _ = writeln!(
            out,
            "{package:<28} {pages:>6} {empty:>11} {main:>13} {full:>13} {:>9.3}",
            *main as f64 / (*full).max(1) as f64
        );
    }
    let main: usize = rows.iter().map(|r| r.1).sum();
    let full: usize = rows.iter().map(|r| r.2).sum();
    let _ = writeln!(
        out,
        "main text keeps {:.3} of the full text",
        main as f64 / full.max(1) as f64
    );
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shingle_matching_as_the_benchmark_defines_it() {
        // Identical texts: all true positives.
        assert_eq!(shingle_matching("a b c d e", "a b c d e"), (1.0, 0.0, 0.0));
        // "a b c d e" has shingles abcd, bcde; prediction "a b c d x": abcd, bcdx.
        let (tp, fp, fn_) = shingle_matching("a b c d e", "a b c d x");
        assert!(
            (tp - 1.0 / 3.0).abs() < 1e-12
                && (fp - 1.0 / 3.0).abs() < 1e-12
                && (fn_ - 1.0 / 3.0).abs() < 1e-12
        );
        // Nothing predicted: one false negative shingle set.
        assert_eq!(shingle_matching("a b c d", ""), (0.0, 0.0, 1.0));
        let (p, r, f) = benchmark_scores(&[(1.0, 0.0, 0.0), (0.5, 0.5, 0.0)]);
        assert_eq!((p, r), (0.75, 1.0));
        assert!((f - 2.0 * 0.75 / 1.75).abs() < 1e-12);
    }
}
