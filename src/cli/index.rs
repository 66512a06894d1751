//! `neardup index`: plan a layout, build an index, query it.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};

use super::CliError;
use crate::corpus::{self, ReadOptions};

#[derive(Args)]
pub struct IndexArgs {
    #[command(flatten)]
    pub workers: super::WorkerArgs,
    #[command(subcommand)]
    pub command: IndexCommand,
}

#[derive(Subcommand)]
pub enum IndexCommand {
    /// For each layout: tables, prefix bits, expected candidates per query
    /// and memory, for a number of fingerprints (seed 004's designs).
    Plan {
        /// Stored fingerprints, e.g. 8e9.
        #[arg(long, default_value_t = 8e9)]
        fingerprints: f64,
        /// Hamming distance the tables must find.
        #[arg(long, default_value_t = 3)]
        k: u32,
        /// Layouts to compare (default: 4x16, 6c3, 4x4 and others that
        /// cover k).
        #[arg(long)]
        layout: Vec<String>,
    },
    /// Fingerprint a corpus and write an index directory.
    Build {
        /// A corpus (JSONL, CSV, Parquet or a folder of HTML; labels unused).
        corpus: PathBuf,
        #[arg(long, short)]
        out: PathBuf,
        /// Block layout of the permuted tables.
        #[arg(long, default_value = "4x16")]
        layout: String,
        /// Distance a query finds (at most what the layout covers).
        #[arg(long, default_value_t = 3)]
        k: u32,
        /// SimHash features: words, ngrams or chars.
        #[arg(long, default_value = "words")]
        features: String,
        /// n for ngrams and chars.
        #[arg(long, default_value_t = 2)]
        ngram: usize,
    },
    /// Stored pages near each page given: an HTML file, or `-` for pages
    /// as JSONL on stdin. Prints one JSON line per page.
    Query { dir: PathBuf, page: PathBuf },
    /// Verify every file of an index (manifest, segment numbers,
    /// checksums) and say what is wrong: exit 0 when sound, 2 when
    /// damaged, 1 when a file could not be read.
    Check { dir: PathBuf },
}

pub fn run(args: IndexArgs) -> Result<(), CliError> {
    run_index(args.command)
}

/// `neardup index check DIR`: each problem on its own line, then a summary.
fn check_index(dir: &Path) -> Result<(), CliError> {
    let report = crate::index::check(dir);
    for problem in &report.problems {
        eprintln!("error: {problem}");
    }
    for folder in &report.foreign {
        eprintln!(
            "error: {}: a segment folder the manifest does not name (a manifest older than its segments?); commits are refused while it is there",
            folder.display()
        );
    }
    for leftover in &report.debris {
        eprintln!(
            "note: {}: left by an interrupted commit; the next writer removes it",
            leftover.display()
        );
    }
    if report.is_sound() {
        println!(
            "ok: {}: {} segments, {} pages, every file matches its checksum",
            dir.display(),
            report.segments,
            report.pages
        );
        return Ok(());
    }
    Err(CliError::Found {
        message: format!(
            "{}: {} problems",
            dir.display(),
            report.problems.len() + report.foreign.len()
        ),
        code: report.exit_code(),
    })
}

fn run_index(command: IndexCommand) -> Result<(), CliError> {
    use crate::algo::simhash::tables::{Layout, LayoutPlan};
    use crate::index::{Index, IndexSettings};
    match command {
        IndexCommand::Check { dir } => check_index(&dir),
        IndexCommand::Plan {
            fingerprints,
            k,
            layout,
        } => {
            if !(1.0..=1e15).contains(&fingerprints) {
                return Err(CliError::Usage(format!(
                    "--fingerprints: {fingerprints} is out of range 1..=1e15"
                )));
            }
            let names: Vec<String> = if layout.is_empty() {
                ["4x16", "6c3", "4x4", "5c2", "8c5", "10c7"]
                    .iter()
                    .map(|s| s.to_string())
                    .collect()
            } else {
                layout
            };
            println!(
                "{fingerprints:.3e} fingerprints of 64 bits, k = {k} ({:.1} bits to tell them apart)",
                fingerprints.log2()
            );
            println!(
                "{:<8} {:>7} {:>12} {:>20} {:>14} {:>10}",
                "layout", "tables", "prefix bits", "candidates/query", "memory", "bytes/fp"
            );
            for name in names {
                let layout: Layout =
                    name.parse()
                        .map_err(|e: crate::algo::simhash::tables::LayoutError| {
                            CliError::Usage(e.to_string())
                        })?;
                if k > layout.max_k() {
                    println!(
                        "{:<8} finds k <= {} only",
                        layout.to_string(),
                        layout.max_k()
                    );
                    continue;
                }
                let plan = LayoutPlan::new(&layout, fingerprints);
                let bits: Vec<String> = plan.prefix_bits.iter().map(u32::to_string).collect();
                println!(
                    "{:<8} {:>7} {:>12} {:>20.1} {:>11.1} GB {:>10}",
                    layout.to_string(),
                    plan.tables,
                    bits.join(","),
                    plan.candidates_per_query,
                    plan.bytes / 1e9,
                    plan.tables * crate::algo::simhash::tables::BYTES_PER_ENTRY
                );
            }
            Ok(())
        }
        IndexCommand::Build {
            corpus,
            out,
            layout,
            k,
            features,
            ngram,
        } => {
            let features = match features.as_str() {
                "words" => crate::algo::simhash::Features::Words,
                "ngrams" => crate::algo::simhash::Features::Ngrams,
                "chars" => crate::algo::simhash::Features::Chars,
                other => {
                    return Err(CliError::Usage(format!(
                        "--features: `{other}` is not one of words, ngrams, chars"
                    )))
                }
            };
            if !(1..=16).contains(&ngram) {
                return Err(CliError::Usage(format!(
                    "--ngram: {ngram} is out of range 1..=16"
                )));
            }
            let corpus = corpus::read_corpus(&corpus, ReadOptions::unlabelled())?;
            let settings = IndexSettings {
                layout,
                k,
                features,
                ngram,
                ..IndexSettings::default()
            };
            let started = std::time::Instant::now();
            let index = Index::create(&out, settings, &corpus.pages)?;
            eprintln!(
                "indexed {} of {} pages into {} ({} tables, {:.2} s)",
                index.len(),
                corpus.pages.len(),
                out.display(),
                index.tables(),
                started.elapsed().as_secs_f64()
            );
            Ok(())
        }
        IndexCommand::Query { dir, page } => {
            let index = Index::open(&dir)?;
            let report = |id: &str, fp: Option<u64>| {
                let matches = fp.map(|fp| index.query(fp)).unwrap_or_default();
                println!(
                    "{}",
                    serde_json::json!({"id": id, "fingerprint": fp.map(|f| format!("{f:016x}")), "matches": matches})
                );
            };
            if page == Path::new("-") {
                let stdin = std::io::stdin().lock();
                let name = Path::new("<stdin>");
                for page in corpus::PageStream::new(stdin, name) {
                    let page = page?;
                    report(&page.id, index.fingerprint(&page));
                }
            } else {
                let bytes = corpus::read_maybe_gzipped(&page).map_err(|source| CliError::Io {
                    path: page.clone(),
                    source,
                })?;
                let id = page.display().to_string();
                let p = corpus::Page::new(id.clone(), id, corpus::Content::HtmlBytes(bytes));
                report(&p.id, index.fingerprint(&p));
            }
            Ok(())
        }
    }
}
