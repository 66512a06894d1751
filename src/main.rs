//! The `neardup` command line: one `run()`, one error print at the edge.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use neardup::corpus::build::{self, BuildConfig, BuildError};
use neardup::corpus::{self, demo, stats::CorpusStats, CorpusError, ReadOptions};
use neardup::experiment::{self, ExperimentConfig, ExperimentError};
use neardup::extract::{self, decode, Extraction};

// glibc's malloc grew costlier per call with the heap (its free lists):
// about 30% of the semantic method's CPU in a profile at 30k pages, its
// stages growing as n^1.3-1.5; with mimalloc they grow linearly and ran
// 2.7 times faster at 100k pages. Freed memory goes back to the system
// through `release_freed_memory`.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "neardup",
    version,
    about = "A workbench for evaluating near-duplicate web page detection",
    long_about = "A workbench for evaluating near-duplicate web page detection.\n\n\
                  With no command, opens the workbench on the demo experiment and its embedded corpus."
)]
struct Cli {
    /// Worker threads (default: one per core). Results do not depend on it.
    #[arg(long, global = true)]
    threads: Option<usize>,
    /// Decode and extract every page again instead of reading the
    /// extraction cache (see `neardup cache`), and write nothing to it.
    #[arg(long, global = true)]
    no_cache: bool,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Open the workbench (the default with no command): tune thresholds,
    /// read the errors, inspect pairs.
    Tui {
        /// The experiment YAML (default: the embedded demo experiment).
        experiment: Option<PathBuf>,
        /// Instead of an experiment: a corpus, run with every algorithm at
        /// its defaults.
        #[arg(long, conflicts_with = "experiment")]
        corpus: Option<PathBuf>,
        /// With --corpus: pairs computed elsewhere (as for `neardup
        /// evaluate`), opened instead of running the algorithms. Repeat for
        /// several algorithms.
        #[arg(long, requires = "corpus")]
        pairs: Vec<PathBuf>,
        /// The clusters made of each --pairs, in the same order.
        #[arg(long, requires = "pairs")]
        clusters: Vec<PathBuf>,
    },
    /// Run an experiment file: print its table and write reports/NAME/.
    Run {
        /// The experiment YAML, e.g. experiments/demo.yaml; `demo` is the
        /// embedded demo experiment.
        experiment: PathBuf,
        /// Where to write the results (default: reports/NAME).
        #[arg(long, short)]
        out: Option<PathBuf>,
        /// Also draw the report (charts, report.md) into the same directory.
        #[arg(long)]
        report: bool,
        /// Run the experiment's algorithms, at its thresholds, on this corpus
        /// instead (`demo` for the embedded one), and print the transfer
        /// table: the tuning corpus, this corpus, and this corpus's own best.
        #[arg(long)]
        corpus: Option<PathBuf>,
        /// Also print the per-slice tables (seed 001's page level and the
        /// pairwise and clustered lines) and the throughput per stage.
        #[arg(long, short)]
        verbose: bool,
        /// Print the summary as JSON instead of the table.
        #[arg(long)]
        json: bool,
        /// Also write every stored pair, each algorithm's score and the
        /// truth to PATH.parquet and PATH.csv (default: DIR/pairs.*).
        #[arg(long, value_name = "PATH")]
        pairs: Option<Option<PathBuf>>,
        /// Run the experiment's own corpus once, leaving its `seeds:` aside.
        #[arg(long)]
        no_seeds: bool,
        /// The scale each seed's corpus is built at (overrides `seeds.scale`).
        #[arg(long)]
        scale: Option<f64>,
    },
    /// Choose each algorithm's threshold on the experiment's corpus and
    /// write the complete experiment with them (run it on another corpus
    /// with `neardup run TUNED.yaml --corpus PATH`).
    Tune {
        /// The experiment YAML; `demo` is the embedded demo experiment.
        experiment: PathBuf,
        /// f1 (pairwise), clustered_f1, or recall_at_precision=P (the most
        /// pairwise recall with precision at least P).
        #[arg(long, default_value = "f1")]
        objective: String,
        /// Where to write the tuned experiment.
        #[arg(long, short, required = true)]
        out: PathBuf,
    },
    /// Fit the experiment's learned judge (its first `type: learned`
    /// entry) on the experiment's labelled corpus and save the model
    /// (JSON) for `model:` in other experiments.
    Train {
        /// The experiment YAML with a `type: learned` entry.
        experiment: PathBuf,
        /// Where to write the model.
        #[arg(long, short, required = true)]
        out: PathBuf,
    },
    /// Draw charts (PNG, SVG), their data (CSV, Parquet) and report.md from
    /// stored runs (the directories `neardup run` writes); several runs give
    /// comparison charts.
    Report {
        /// Run directories, each with the run.json that `neardup run` wrote.
        #[arg(required = true)]
        runs: Vec<PathBuf>,
        /// Where to write the report.
        #[arg(long, short)]
        out: PathBuf,
    },
    /// Write an experiment's MinHash sketches with their band hashes and
    /// its SimHash fingerprints as Parquet, with their settings, for a
    /// cluster job (dist/spark/neardup_join.py) to join.
    Signatures {
        /// An experiment YAML, or a corpus (MinHash at its defaults, SimHash
        /// at k = 3 through 6c3 tables); `demo` for the embedded corpus.
        input: PathBuf,
        #[arg(long, short)]
        out: PathBuf,
        /// This machine's share, i/N: the pages whose id hashes to i
        /// modulo N (default: all pages).
        #[arg(long)]
        shard: Option<String>,
    },
    /// Score pairs (and clusters) computed elsewhere, e.g. by the Spark
    /// job, as `neardup run` scores its own, and write a run directory
    /// for `neardup report`.
    Evaluate {
        /// The labelled corpus the signatures were computed on.
        corpus: PathBuf,
        /// A pairs table (a, b, score): a Parquet file or a directory of
        /// them. Repeat for several algorithms.
        #[arg(long, required = true)]
        pairs: Vec<PathBuf>,
        /// The clusters (id, cluster) made of each --pairs, in the same
        /// order: scored at the threshold instead of the pairs' closure.
        #[arg(long)]
        clusters: Vec<PathBuf>,
        /// Where to write the results (default: reports/external).
        #[arg(long, short)]
        out: Option<PathBuf>,
        /// Also draw the report (charts, report.md) into the same directory.
        #[arg(long)]
        report: bool,
    },
    /// Extract one page: title, subtitles and main text.
    Extract {
        /// An HTML file (any charset; .gz is fine).
        page: PathBuf,
        /// Print the document structure (paragraphs, sentences with their
        /// positions and flags) as JSON.
        #[arg(long)]
        json: bool,
        /// Strip tags only, instead of extracting the main content.
        #[arg(long)]
        full_text: bool,
    },
    /// Score the extractor against main-content gold in DIR: the article
    /// extraction benchmark, trafilatura's evaluation set, or a folder of
    /// unlabelled pages with a manifest.jsonl; or time it on a corpus file.
    ExtractEval {
        dir: PathBuf,
        /// Also list this many pages the main extractor does worst on.
        #[arg(long, default_value_t = 0)]
        worst: usize,
        /// Instead, write every page's extractions to this file (JSON
        /// lines), to compare two builds of the extractor with `diff`.
        #[arg(long)]
        dump: Option<PathBuf>,
        /// With --dump: parse pages as before the lean parser (every
        /// attribute kept, scraper's tree), to check both agree.
        #[arg(long, requires = "dump")]
        reference_parser: bool,
    },
    /// Throughput of each algorithm's stages on real text, one core:
    /// pages/s, shingles (or tokens) per second, MB/s (shingling, MinHash,
    /// LSH, exact Jaccard, I-Match, SimHash, the semantic method); then the
    /// SimHash index's query latency and self-join per layout; peak memory.
    Bench {
        /// Chinese text cut into ~600-character pages (seed 001's size).
        #[arg(
            long,
            default_value = "../shared/corpora/peoples_daily_1998_01/articles.jsonl.gz"
        )]
        zh: PathBuf,
        /// Short English texts, one page each.
        #[arg(
            long,
            default_value = "../shared/corpora/clough_stevenson_short_answers/clough_stevenson_short_answers.jsonl.gz"
        )]
        en: PathBuf,
        /// Least seconds per stage (each repeats whole passes until then).
        #[arg(long, default_value_t = 1.0)]
        seconds: f64,
        /// Numbers of random fingerprints for the SimHash index benchmark.
        #[arg(long, value_delimiter = ',', default_values_t = [1e6, 1e7])]
        fingerprints: Vec<f64>,
        /// Layouts for the SimHash index benchmark.
        #[arg(long, value_delimiter = ',', default_values_t = ["4x16".to_string(), "6c3".to_string(), "4x4".to_string()])]
        layouts: Vec<String>,
        #[command(subcommand)]
        command: Option<BenchCommand>,
        /// HTML pages to time decoding and extraction on (a corpus file
        /// or a folder of pages, as `extract-eval` reads them).
        #[arg(
            long,
            value_delimiter = ',',
            default_values_t = [
                "datasets/imported/fan2008.jsonl.gz".to_string(),
                "../shared/corpora/article_extraction_benchmark".to_string(),
            ]
        )]
        html: Vec<String>,
        /// At most this many pages of each `--html` source.
        #[arg(long, default_value_t = 2000)]
        html_pages: usize,
        /// Also write the Chinese pages' shingle sets (u64s) to this file,
        /// for scripts/compare_rensa.py to sketch the same shingles.
        #[arg(long)]
        shingles_out: Option<PathBuf>,
    },
    /// The persistent SimHash index: plan a layout, build, query.
    Index {
        #[command(subcommand)]
        command: IndexCommand,
    },
    /// Read pages as JSONL on stdin; for each, say whether it duplicates a
    /// stored page (and which), or whether its URL was already fetched by
    /// the job, and add the new ones to the index. Prints one JSON line
    /// per input line (`status: error` for a bad one), a batch's lines once
    /// the batch is committed.
    Ingest {
        /// An index made by `neardup index build`.
        dir: PathBuf,
        /// Pages added per commit (each commit is atomic).
        #[arg(long, default_value_t = 1000)]
        batch: usize,
        /// Crawler job whose seen-URL set filters pages first (seed 003);
        /// without it URLs are not checked.
        #[arg(long)]
        job: Option<String>,
        /// Seconds a job's seen-URL set lives.
        #[arg(long, default_value_t = 86_400)]
        ttl: u64,
        /// Keep the seen-URL sets in Redis (`redis://127.0.0.1:6379`)
        /// instead of beside the index.
        #[arg(long)]
        redis: Option<String>,
        /// Wait for another ingest into the same index to finish instead
        /// of refusing to start.
        #[arg(long)]
        wait: bool,
        /// Stop at the first bad input line (exit 2) instead of reporting
        /// it on its own line and going on.
        #[arg(long)]
        strict: bool,
    },
    /// jieba's POS tags (mapped to PKU's set, as the semantic method's
    /// chunker reads them) against gold-tagged text.
    TagEval {
        /// JSONL(.gz) with `tagged_paragraphs`, e.g. People's Daily 1998.
        #[arg(default_value = "../shared/corpora/peoples_daily_1998_01/articles.jsonl.gz")]
        path: PathBuf,
    },
    /// Inspect and convert corpora.
    Corpus {
        #[command(subcommand)]
        command: CorpusCommand,
    },
    /// The extraction cache: where it is, and emptying it.
    Cache {
        #[command(subcommand)]
        command: CacheCommand,
    },
}

#[derive(Subcommand)]
enum CacheCommand {
    /// Print the cache folder ($NEARDUP_CACHE_DIR, else
    /// $XDG_CACHE_HOME/neardup, else ~/.cache/neardup).
    Dir,
    /// Remove every cached extraction.
    Clear,
}

#[derive(Subcommand)]
enum BenchCommand {
    /// How each stage grows with the corpus: a built corpus repeated (ids
    /// and clusters renamed, each copy's Chinese characters permuted) to
    /// each size, run through MinHash-LSH, SimHash tables, I-Match and the
    /// semantic method; CPU seconds per stage, peak memory, and the
    /// log-log exponent between sizes.
    Scale {
        /// The corpus to repeat.
        #[arg(long, default_value = "datasets/imported/fan2008.jsonl.gz")]
        corpus: PathBuf,
        /// Sizes in pages.
        #[arg(long, value_delimiter = ',', default_values_t = [10_000usize, 100_000, 1_000_000])]
        pages: Vec<usize>,
        /// Algorithms to run (minhash, simhash, imatch, semantic).
        #[arg(long, value_delimiter = ',', default_values_t = ["minhash".to_string(), "simhash".to_string(), "imatch".to_string(), "semantic".to_string()])]
        algorithms: Vec<String>,
    },
}

#[derive(Subcommand)]
enum CorpusCommand {
    /// Pages, clusters, cluster sizes, languages and slices of a corpus
    /// (JSONL, JSONL.gz, CSV or Parquet; `demo` for the embedded corpus).
    Stats { path: PathBuf },
    /// Build a labelled corpus from real text and page templates (see
    /// datasets/README.md), seeded and deterministic.
    Build {
        /// The builder YAML, e.g. datasets/fan2008.yaml.
        config: PathBuf,
        /// Output file: .jsonl, .jsonl.gz, .csv or .parquet.
        #[arg(long, short)]
        out: PathBuf,
        /// Multiply every count (overrides the file's `scale`).
        #[arg(long)]
        scale: Option<f64>,
        /// Override the file's `seed`.
        #[arg(long)]
        seed: Option<u64>,
    },
    /// Convert a public corpus into neardup's format.
    Import {
        /// Which corpus the directory holds.
        #[arg(value_enum)]
        source: ImportSource,
        /// Its directory, e.g. ../shared/corpora/clough_stevenson_short_answers.
        dir: PathBuf,
        /// Output file: .jsonl, .jsonl.gz, .csv or .parquet.
        #[arg(long, short)]
        out: PathBuf,
    },
}

#[derive(Subcommand)]
enum IndexCommand {
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
}

#[derive(Clone, Copy, ValueEnum)]
enum ImportSource {
    /// Clough & Stevenson short answers: cut and light answers duplicate
    /// their task's source; heavy and non answers are unique.
    CloughStevenson,
}

#[derive(Debug, thiserror::Error)]
enum CliError {
    #[error(transparent)]
    Experiment(#[from] ExperimentError),
    #[error(transparent)]
    Corpus(#[from] CorpusError),
    #[error(transparent)]
    Build(#[from] BuildError),
    #[error(transparent)]
    Gold(#[from] neardup::extract::gold::GoldError),
    #[error(transparent)]
    Index(#[from] neardup::index::IndexError),
    #[error(transparent)]
    Url(#[from] neardup::index::urls::UrlError),
    #[error(transparent)]
    Ingest(#[from] neardup::index::ingest::IngestError),
    #[error(transparent)]
    Report(#[from] neardup::report::ReportError),
    #[error(transparent)]
    Dist(#[from] neardup::dist::DistError),
    #[error(transparent)]
    Seeds(#[from] experiment::seeds::SeedsError),
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Cache(#[from] extract::cache::CacheError),
    #[error("{0}")]
    Usage(String),
}

impl CliError {
    /// 2 for input the user can fix, 1 for failures of ours or the system's.
    fn exit_code(&self) -> u8 {
        match self {
            CliError::Experiment(ExperimentError::Report(_)) | CliError::Cache(_) => 1,
            CliError::Io { .. } | CliError::Gold(_) => 2,
            CliError::Ingest(e) => e.exit_code(),
            CliError::Index(e) if e.is_environment() => 1,
            CliError::Url(neardup::index::urls::UrlError::Redis { .. }) => 1,
            _ => 2,
        }
    }
}

fn main() -> ExitCode {
    // Like other Unix tools, stop quietly when the reader of our output
    // goes away (`neardup run ... | head`), instead of panicking on EPIPE.
    // SAFETY: setting a signal's disposition to the default is sound.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    std::panic::set_hook(Box::new(|info| {
        eprintln!("internal error: {info}");
    }));
    let cli = Cli::parse();
    match std::panic::catch_unwind(|| run(cli)) {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(e)) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code())
        }
        Err(_) => ExitCode::from(1),
    }
}

fn run(cli: Cli) -> Result<(), CliError> {
    if let Some(threads) = cli.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .build_global()
            .map_err(|e| CliError::Usage(format!("--threads: {e}")))?;
    }
    extract::cache::set_dir(if cli.no_cache {
        None
    } else {
        extract::cache::default_dir()
    });
    match cli.command {
        None => tui_on(neardup::tui::Source::Demo),
        Some(Command::Cache { command }) => {
            let dir = extract::cache::default_dir()
                .ok_or_else(|| CliError::Usage("no cache folder: set NEARDUP_CACHE_DIR".into()))?;
            match command {
                CacheCommand::Dir => println!("{}", dir.display()),
                CacheCommand::Clear => {
                    let removed = extract::cache::clear(&dir)?;
                    println!(
                        "removed {removed} files from {}",
                        dir.join("extract").display()
                    );
                }
            }
            Ok(())
        }
        Some(Command::Tui {
            experiment,
            corpus,
            pairs,
            clusters,
        }) => tui_on(match (experiment, corpus) {
            (Some(path), _) => neardup::tui::Source::Experiment(path),
            (None, Some(corpus)) if !pairs.is_empty() => neardup::tui::Source::External {
                corpus,
                pairs,
                clusters,
            },
            (None, Some(path)) => neardup::tui::Source::Corpus(path),
            (None, None) => neardup::tui::Source::Demo,
        }),
        Some(Command::Run {
            experiment,
            out,
            report,
            corpus,
            verbose,
            json,
            pairs,
            no_seeds,
            scale,
        }) => {
            let (config, path) = load_experiment(&experiment)?;
            let options = RunOptions {
                out,
                report,
                verbose,
                json,
                pairs: pairs.map(Option::unwrap_or_default),
            };
            let seeds = config
                .seeds
                .clone()
                .filter(|_| !no_seeds && corpus.is_none());
            if scale.is_some() && seeds.is_none() {
                return Err(CliError::Usage(
                    "--scale sets the scale of a run over `seeds:`; this run has none".into(),
                ));
            }
            match (corpus, seeds) {
                (Some(other), _) => run_transfer(config, &path, &other, options),
                (None, Some(seeds)) => run_seeds(&config, &path, &seeds, scale, options),
                (None, None) => run_experiment_file(&config, &path, options).map(|_| ()),
            }
        }
        Some(Command::Tune {
            experiment,
            objective,
            out,
        }) => {
            let objective: neardup::eval::choose::Objective = objective
                .parse()
                .map_err(|e: String| CliError::Usage(format!("--objective: {e}")))?;
            let (config, path) = load_experiment(&experiment)?;
            let (_, result, ids) = run_quietly(&config, &path)?;
            let judged = read_judged(&config, &path, &ids)?;
            let tuned = neardup::experiment::tune::tune_experiment(
                &config,
                &result,
                objective,
                judged.as_ref(),
            )
            .map_err(|e| CliError::Usage(format!("--objective: {e}")))?;
            // Paths in the file stay relative: to where it is written.
            let mut tuned = tuned;
            let out_dir = out.parent().unwrap_or(Path::new(""));
            relocate_paths(&mut tuned, path.parent().unwrap_or(Path::new("")), out_dir);
            let body = serde_yaml::to_string(&tuned)
                .map_err(|e| CliError::Usage(format!("the tuned experiment: {e}")))?;
            if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir).map_err(|source| CliError::Io {
                    path: dir.to_path_buf(),
                    source,
                })?;
            }
            let seeds_note = neardup::experiment::tune::seeds_note(&config);
            let text = format!(
                "# {} tuned for {objective} by `neardup tune`; every knob is written out.\n{}{body}",
                experiment.display(),
                seeds_note
                    .as_ref()
                    .map_or(String::new(), |n| format!("# {n}.\n"))
            );
            ExperimentConfig::parse(&out, &text).map_err(ExperimentError::from)?;
            std::fs::write(&out, text).map_err(|source| CliError::Io {
                path: out.clone(),
                source,
            })?;
            let on = tuned.tuned.as_ref().expect("tune records its corpus");
            let over = match &judged {
                Some(truth) => format!(" over the judged pairs of {}", truth.source.display()),
                None => String::new(),
            };
            if let Some(note) = &seeds_note {
                println!("{note}.");
            }
            println!("thresholds for {objective}{over} on {}:", on.corpus);
            for f in &on.runs {
                println!(
                    "  {} [{}]: {} ({} {}){}",
                    f.algorithm,
                    f.extract.name(),
                    f.threshold,
                    objective,
                    f.value
                        .map_or("not reached".into(), |v| format!("{:.2}%", 100.0 * v)),
                    match (f.at_floor, f.algorithm.starts_with("simhash")) {
                        (true, true) =>
                            "; at the floor: the best may lie past it (move `floor` to look, \
                             with a wider `index` layout or `candidates: all_pairs`)",
                        (true, false) =>
                            "; at the floor: the best may lie past it (move `floor` to look)",
                        (false, _) => "",
                    }
                );
            }
            println!("wrote {}", out.display());
            Ok(())
        }
        Some(Command::Train { experiment, out }) => run_train(&experiment, &out),
        Some(Command::Report { runs, out }) => {
            let loaded = runs
                .iter()
                .map(|dir| {
                    let run = neardup::report::load_run(dir)?;
                    let name = dir
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_else(|| run.experiment.clone());
                    Ok((name, run))
                })
                .collect::<Result<Vec<_>, neardup::report::ReportError>>()?;
            let written = neardup::report::render_report(&loaded, &out)?;
            println!("wrote {} files to {}", written.len(), out.display());
            Ok(())
        }
        Some(Command::Signatures { input, out, shard }) => run_signatures(&input, &out, shard),
        Some(Command::Evaluate {
            corpus,
            pairs,
            clusters,
            out,
            report,
        }) => run_evaluate(&corpus, &pairs, &clusters, out, report),
        Some(Command::Extract {
            page,
            json,
            full_text,
        }) => {
            let bytes = corpus::read_maybe_gzipped(&page).map_err(|source| CliError::Io {
                path: page.clone(),
                source,
            })?;
            let decoded = decode::decode_html(&bytes);
            let extraction = if full_text {
                Extraction::FullText
            } else {
                Extraction::Main
            };
            let out = extract::extract_html(&decoded.text, extraction);
            if json {
                let value = serde_json::json!({
                    "encoding": decoded.encoding.name(),
                    "encoding_source": format!("{:?}", decoded.source).to_lowercase(),
                    "structure": out.structure,
                });
                println!(
                    "{}",
                    serde_json::to_string_pretty(&value).expect("plain data serialises")
                );
            } else {
                println!("title: {}", out.structure.title.as_deref().unwrap_or(""));
                for subtitle in &out.structure.subtitles {
                    println!("subtitle: {subtitle}");
                }
                println!(
                    "encoding: {} ({:?})\n",
                    decoded.encoding.name(),
                    decoded.source
                );
                println!("{}", out.text());
            }
            Ok(())
        }
        Some(Command::Bench {
            command:
                Some(BenchCommand::Scale {
                    corpus,
                    mut pages,
                    algorithms,
                }),
            ..
        }) => {
            use neardup::bench_scale::{self, ScaleError};
            let scale_error = |e: ScaleError| match e {
                ScaleError::Corpus(e) => CliError::Corpus(e),
                ScaleError::Config(m) => CliError::Usage(m),
            };
            if let Some(n) = pages.iter().find(|&&n| !(2..=10_000_000).contains(&n)) {
                return Err(CliError::Usage(format!(
                    "--pages: {n} is out of range 2..=10000000"
                )));
            }
            pages.sort_unstable();
            pages.dedup();
            let config = bench_scale::scale_config(&algorithms, &corpus).map_err(scale_error)?;
            let sources = bench_scale::source_pages(&corpus)?;
            eprintln!(
                "{} source pages from {}; sizes {:?}",
                sources.len(),
                corpus.display(),
                pages
            );
            let table =
                bench_scale::run_scale(&sources, &config, &pages, |line| eprintln!("{line}"))
                    .map_err(scale_error)?;
            print!("{}", bench_scale::render_scale(&table));
            Ok(())
        }
        Some(Command::Bench {
            zh,
            en,
            seconds,
            fingerprints,
            layouts,
            command: None,
            shingles_out,
            html,
            html_pages,
        }) => {
            for l in &layouts {
                let layout: neardup::algo::simhash::tables::Layout =
                    l.parse()
                        .map_err(|e: neardup::algo::simhash::tables::LayoutError| {
                            CliError::Usage(e.to_string())
                        })?;
                if layout.max_k() < 3 {
                    return Err(CliError::Usage(format!(
                        "--layouts: {layout} finds k <= {} only; the benchmark queries k = 3",
                        layout.max_k()
                    )));
                }
            }
            if let Some(n) = fingerprints.iter().find(|&&n| !(1e3..=1e8).contains(&n)) {
                return Err(CliError::Usage(format!(
                    "--fingerprints: {n} is out of range 1e3..=1e8"
                )));
            }
            if !(seconds > 0.0 && seconds <= 600.0) {
                return Err(CliError::Usage(format!(
                    "--seconds: {seconds} is out of range (0, 600]"
                )));
            }
            let inputs = [
                neardup::bench::BenchInput::cut_into_pages(&zh, 600)?,
                neardup::bench::BenchInput::from_corpus(&en)?,
            ];
            if let Some(out) = &shingles_out {
                let bytes = neardup::bench::shingle_sets_bytes(&inputs[0]);
                std::fs::write(out, bytes).map_err(|source| CliError::Io {
                    path: out.clone(),
                    source,
                })?;
            }
            let mut rows = Vec::new();
            for input in &inputs {
                rows.extend(neardup::bench::bench_shingling(input, seconds));
                rows.extend(neardup::bench::bench_imatch(input, seconds));
                rows.extend(neardup::bench::bench_simhash_signatures(input, seconds));
                rows.extend(neardup::bench::bench_semantic(input, seconds));
            }
            for path in &html {
                rows.extend(neardup::bench::bench_extraction(
                    Path::new(path),
                    html_pages,
                    seconds,
                )?);
            }
            print!("{}", neardup::bench::render(&rows));
            let names: Vec<&str> = layouts.iter().map(String::as_str).collect();
            for &n in &fingerprints {
                let n = n as usize;
                let index = neardup::bench::bench_simhash_index(n, &names, 2000, n <= 2_000_000);
                print!("{}", neardup::bench::render_index(&index));
            }
            if let Some(peak) = neardup::eval::throughput::peak_memory_bytes() {
                println!("\npeak memory {:.1} MB", peak as f64 / 1e6);
            }
            Ok(())
        }
        Some(Command::Index { command }) => run_index(command),
        Some(Command::TagEval { path }) => {
            let agreement = neardup::algo::semantic::chunks::TagAgreement::of_file(&path)?;
            print!("{}", agreement.render());
            Ok(())
        }
        Some(Command::Ingest {
            dir,
            batch,
            job,
            ttl,
            redis,
            wait,
            strict,
        }) => run_ingest(&dir, batch, job, ttl, redis, wait, strict),
        Some(Command::ExtractEval {
            dir,
            dump: Some(out),
            reference_parser,
            ..
        }) => {
            extract::use_reference_parser(reference_parser);
            let n = extract::gold::dump_dir(&dir, &out)?;
            eprintln!("{n} pages written to {}", out.display());
            Ok(())
        }
        Some(Command::ExtractEval { dir, worst, .. }) => {
            print!("{}", extract::gold::evaluate_dir(&dir, worst)?);
            Ok(())
        }
        Some(Command::Corpus { command }) => match command {
            CorpusCommand::Stats { path } => {
                let corpus = if path == Path::new("demo") {
                    demo::demo_corpus()?
                } else {
                    corpus::read_corpus(
                        &path,
                        ReadOptions {
                            require_cluster: false,
                        },
                    )?
                };
                print!("{}", CorpusStats::of(&corpus));
                Ok(())
            }
            CorpusCommand::Build {
                config,
                out,
                scale,
                seed,
            } => {
                let mut build = BuildConfig::load(&config)?;
                if let Some(scale) = scale {
                    if !(scale > 0.0 && scale <= 10.0) {
                        return Err(CliError::Usage(format!(
                            "--scale: {scale} is out of range (0, 10]"
                        )));
                    }
                    build.scale = scale;
                }
                if let Some(seed) = seed {
                    build.seed = seed;
                }
                let base = config.parent().unwrap_or(Path::new("."));
                let pages = build::build_corpus(&build, base)?;
                corpus::write_corpus(&pages, &out)?;
                eprintln!("wrote {} pages to {}", pages.len(), out.display());
                Ok(())
            }
            CorpusCommand::Import { source, dir, out } => {
                let pages = match source {
                    ImportSource::CloughStevenson => corpus::import::clough_stevenson(&dir)?,
                };
                corpus::write_corpus(&pages, &out)?;
                eprintln!("wrote {} pages to {}", pages.len(), out.display());
                Ok(())
            }
        },
    }
}

fn run_index(command: IndexCommand) -> Result<(), CliError> {
    use neardup::algo::simhash::tables::{Layout, LayoutPlan};
    use neardup::index::{Index, IndexSettings};
    match command {
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
                        .map_err(|e: neardup::algo::simhash::tables::LayoutError| {
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
                    plan.tables * neardup::algo::simhash::tables::BYTES_PER_ENTRY
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
                "words" => neardup::algo::simhash::Features::Words,
                "ngrams" => neardup::algo::simhash::Features::Ngrams,
                "chars" => neardup::algo::simhash::Features::Chars,
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

fn run_ingest(
    dir: &Path,
    batch: usize,
    job: Option<String>,
    ttl: u64,
    redis: Option<String>,
    wait: bool,
    strict: bool,
) -> Result<(), CliError> {
    use neardup::index::ingest::{ingest, IngestOptions};
    use neardup::index::urls::{EmbeddedSeenUrls, RedisSeenUrls, SeenUrls};
    use neardup::index::Index;
    use std::time::Duration;
    if batch == 0 {
        return Err(CliError::Usage("--batch: must be at least 1".into()));
    }
    let mut index = Index::open_writer(dir, wait)?;
    let ttl = Duration::from_secs(ttl.max(1));
    let mut seen: Option<Box<dyn SeenUrls>> = match (&job, redis) {
        (None, _) => None,
        (Some(_), Some(address)) => Some(Box::new(RedisSeenUrls::connect(
            &address,
            ttl,
            Duration::from_secs(5),
        )?)),
        (Some(_), None) => Some(Box::new(EmbeddedSeenUrls::open(
            &dir.join("urls.json"),
            ttl,
        )?)),
    };
    let options = IngestOptions {
        batch,
        job: job.as_deref(),
        strict,
    };
    let s = ingest(
        &mut index,
        seen.as_deref_mut(),
        std::io::stdin().lock(),
        std::io::stdout().lock(),
        &options,
    )?;
    eprintln!(
        "ingested {} lines: {} new, {} duplicates, {} already-fetched URLs, {} without text, {} bad lines; the index holds {}",
        s.lines(),
        s.new,
        s.duplicates,
        s.seen_urls,
        s.empty,
        s.errors,
        index.len()
    );
    Ok(())
}

fn run_signatures(input: &Path, out: &Path, shard: Option<String>) -> Result<(), CliError> {
    use neardup::dist::signatures::{write_signatures, Exported, DEFAULT_EXPERIMENT};
    let shard = match shard {
        Some(s) => s
            .parse::<neardup::dist::Shard>()
            .map_err(|e| CliError::Usage(format!("--shard: {e}")))?,
        None => neardup::dist::Shard::ALL,
    };
    let is_yaml = matches!(
        input.extension().and_then(|e| e.to_str()),
        Some("yaml" | "yml")
    );
    let (config, corpus_path) = if is_yaml {
        let config = ExperimentConfig::load(input).map_err(ExperimentError::from)?;
        let corpus_path = config.corpus_path(input);
        (config, corpus_path)
    } else {
        let config = ExperimentConfig::parse(Path::new("<defaults>"), DEFAULT_EXPERIMENT)
            .map_err(ExperimentError::from)?;
        let corpus_path = (input != Path::new("demo")).then(|| input.to_path_buf());
        (config, corpus_path)
    };
    let corpus = match corpus_path {
        None => demo::demo_corpus()?,
        Some(path) => corpus::read_corpus(&path, ReadOptions::unlabelled())?,
    };
    let references = experiment::load_references(&config, input).map_err(ExperimentError::from)?;
    let started = std::time::Instant::now();
    for e in write_signatures(&config, &corpus, &references, out, shard)? {
        match e {
            Exported::Written {
                key,
                label,
                pages,
                signed,
            } => eprintln!("{key}: {label}: {signed} of {pages} pages signed"),
            Exported::Skipped { position, reason } => {
                eprintln!("algorithms[{position}] not exported: {reason}")
            }
        }
    }
    eprintln!(
        "wrote shard {}/{} of {} into {} ({:.2} s)",
        shard.index,
        shard.count,
        corpus.source,
        out.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

fn run_evaluate(
    corpus_path: &Path,
    pairs: &[PathBuf],
    clusters: &[PathBuf],
    out: Option<PathBuf>,
    report: bool,
) -> Result<(), CliError> {
    use neardup::dist::external::{evaluate_external, read_inputs};
    let (corpus, inputs) = read_inputs(corpus_path, pairs, clusters)?;
    let dir = out.unwrap_or_else(|| Path::new("reports").join("external"));
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "external".into());
    let result = evaluate_external(&name, &corpus, &inputs)?;
    // The notes (clusters against the pairs' closure) are in the verbose
    // tables.
    let options = RunOptions {
        out: None,
        report,
        verbose: true,
        json: false,
        pairs: None,
    };
    write_run(&result, None, None, &dir, &options)
}

fn tui_on(source: neardup::tui::Source) -> Result<(), CliError> {
    if let neardup::tui::Source::Experiment(path) = &source {
        // Read errors print plainly, before the terminal changes.
        ExperimentConfig::load(path).map_err(ExperimentError::from)?;
    }
    neardup::tui::run(source).map_err(|e| CliError::Usage(e.to_string()))
}

/// The experiment at `path`, or the embedded demo experiment for `demo`.
fn load_experiment(path: &Path) -> Result<(ExperimentConfig, PathBuf), CliError> {
    if path == Path::new("demo") {
        let path = PathBuf::from(demo::DEMO_EXPERIMENT_NAME);
        let config =
            ExperimentConfig::parse(&path, demo::DEMO_EXPERIMENT).map_err(ExperimentError::from)?;
        return Ok((config, path));
    }
    let config = ExperimentConfig::load(path).map_err(ExperimentError::from)?;
    Ok((config, path.to_path_buf()))
}

/// Rewrites the experiment's relative paths (corpus, builder, reference
/// corpora) so that they still name the same files from `to`.
fn relocate_paths(config: &mut ExperimentConfig, from: &Path, to: &Path) {
    let here = |p: &Path| {
        if p.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            p.to_path_buf()
        }
    };
    let (from, to) = (here(from), here(to));
    let moved = |named: &str| -> String {
        let p = Path::new(named);
        if p.is_absolute() || named == "demo" || named == "corpus" {
            return named.to_string();
        }
        let absolute = std::path::absolute(from.join(p)).unwrap_or_else(|_| from.join(p));
        match std::path::absolute(&to) {
            Ok(to) => relative_path(&absolute, &to).display().to_string(),
            Err(_) => absolute.display().to_string(),
        }
    };
    config.corpus = moved(&config.corpus);
    config.build = config.build.as_deref().map(moved);
    if let Some(judged) = &mut config.judged {
        judged.pairs = moved(&judged.pairs);
    }
    for entry in &mut config.algorithms {
        entry.config.relocate(&moved);
    }
}

/// `path` relative to the directory `base` (both absolute).
fn relative_path(path: &Path, base: &Path) -> PathBuf {
    let path: Vec<_> = path.components().collect();
    let base: Vec<_> = base.components().collect();
    let common = path.iter().zip(&base).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..base.len() {
        out.push("..");
    }
    for c in &path[common..] {
        out.push(c.as_os_str());
    }
    out
}

struct RunOptions {
    out: Option<PathBuf>,
    report: bool,
    verbose: bool,
    json: bool,
    /// `--pairs`: where the pairs table goes (empty: the results directory).
    pairs: Option<PathBuf>,
}

/// Builds the corpus when the experiment names a builder and the corpus
/// is missing.
fn build_if_missing(config: &ExperimentConfig, path: &Path) -> Result<(), CliError> {
    if let (Some(builder), Some(corpus_path)) = (&config.build, config.corpus_path(path)) {
        if !corpus_path.exists() {
            let builder = path.parent().unwrap_or(Path::new(".")).join(builder);
            eprintln!(
                "{} is missing: building it from {} (once)",
                corpus_path.display(),
                builder.display()
            );
            let build = BuildConfig::load(&builder)?;
            let pages = build::build_corpus(&build, builder.parent().unwrap_or(Path::new(".")))?;
            if let Some(dir) = corpus_path.parent() {
                std::fs::create_dir_all(dir).map_err(|source| CliError::Io {
                    path: dir.to_path_buf(),
                    source,
                })?;
            }
            corpus::write_corpus(&pages, &corpus_path)?;
        }
    }
    Ok(())
}

/// Fits the experiment's learned judge on its corpus and writes the model.
fn run_train(experiment: &Path, out: &Path) -> Result<(), CliError> {
    use neardup::experiment::config::AlgorithmConfig;
    let config = ExperimentConfig::load_untrained(experiment).map_err(ExperimentError::from)?;
    let Some((entry, learned)) = config.algorithms.iter().find_map(|e| match &e.config {
        AlgorithmConfig::Learned(l) => Some((e, l)),
        _ => None,
    }) else {
        return Err(CliError::Usage(format!(
            "{}: no `type: learned` entry to train",
            experiment.display()
        )));
    };
    build_if_missing(&config, experiment)?;
    let corpus = experiment::load_corpus(&config, experiment).map_err(ExperimentError::from)?;
    let extraction = entry
        .extract
        .unwrap_or_else(|| config.default_extractions()[0]);
    let (docs, truth) = experiment::runner::documents(&config, &corpus, extraction);
    let trained_on = corpus.source.clone();
    let trained = neardup::algo::learned::train(
        learned,
        &docs,
        &truth.cluster,
        truth.true_pairs(),
        &trained_on,
    )
    .map_err(|e| CliError::Usage(e.to_string()))?;
    trained
        .model
        .write(out)
        .map_err(|e| CliError::Usage(e.to_string()))?;
    let m = &trained.model;
    println!(
        "trained on {trained_on} [{}]: {} candidate pairs, {} duplicates ({} of the corpus's {} duplicate pairs)",
        extraction.name(),
        m.pairs,
        m.positives,
        trained.recall_of_candidates.0,
        trained.recall_of_candidates.1
    );
    println!("intercept {:+.3}", m.intercept);
    for (name, w) in m.features.iter().zip(&m.weights) {
        println!("  {name:<24} {w:+.3}");
    }
    println!("wrote {}", out.display());
    Ok(())
}

/// Runs the experiment with progress bars on a terminal's stderr; returns
/// its name, its result and the corpus's page ids.
fn run_quietly(
    config: &ExperimentConfig,
    path: &Path,
) -> Result<(String, experiment::ExperimentResult, Vec<String>), CliError> {
    let name = experiment::experiment_name(config, path);
    build_if_missing(config, path)?;
    let corpus = experiment::load_corpus(config, path).map_err(ExperimentError::from)?;
    let references = experiment::load_references(config, path).map_err(ExperimentError::from)?;
    let watchers = experiment::Watchers {
        stages: None,
        progress: neardup::progress::terminal_progress(),
        results: None,
    };
    let ids = corpus.pages.iter().map(|p| p.id.clone()).collect();
    let result = experiment::run_experiment_consuming(&name, config, corpus, &references, watchers);
    for (extraction, cache) in &result.extract_cache {
        if let Some(warning) = &cache.warning {
            eprintln!(
                "warning: extraction cache [{}]: {warning}; {} pages extracted again",
                extraction.name(),
                cache.misses
            );
        }
    }
    Ok((name, result, ids))
}

/// The experiment's judged pairs, when it gives its truth so; errors name
/// the pairs file, line and field.
fn read_judged(
    config: &ExperimentConfig,
    path: &Path,
    ids: &[String],
) -> Result<Option<neardup::eval::judged::JudgedTruth>, CliError> {
    config
        .judged
        .as_ref()
        .map(|spec| {
            neardup::eval::judged::JudgedTruth::read(&spec.path(path), ids, spec.positive_from)
                .map_err(|e| CliError::Usage(e.to_string()))
        })
        .transpose()
}

fn run_experiment_file(
    config: &ExperimentConfig,
    path: &Path,
    options: RunOptions,
) -> Result<(PathBuf, experiment::ExperimentResult), CliError> {
    let (name, result, ids) = run_quietly(config, path)?;
    let dir = options
        .out
        .clone()
        .unwrap_or_else(|| Path::new("reports").join(&name));
    let judged = read_judged(config, path, &ids)?;
    let evaluations = judged
        .as_ref()
        .map(|truth| experiment::judged::judge(&result, truth));
    let both = judged.as_ref().zip(evaluations.as_deref());
    write_run(&result, config.paper.as_ref(), both, &dir, &options)?;
    if let Some((truth, evaluations)) = both {
        let table = experiment::judged::render_judged(&result, truth, evaluations);
        if options.json {
            eprint!("{table}");
        } else {
            print!("{table}");
        }
        experiment::judged::write_judged(&result, evaluations, &dir)
            .map_err(ExperimentError::from)?;
    }
    if let Some(pairs) = &options.pairs {
        let written = experiment::pairs::write_pairs(&result, &ids, judged.as_ref(), pairs, &dir)
            .map_err(ExperimentError::from)?;
        let names: Vec<String> = written.iter().map(|p| p.display().to_string()).collect();
        eprintln!("wrote the pairs to {}", names.join(" and "));
    }
    Ok((dir, result))
}

/// `seeds:`: the experiment once per seed, each on the corpus built with
/// it (cached), results in DIR/seed-N/, and with `--report` the report of
/// the mean and spread in DIR.
fn run_seeds(
    config: &ExperimentConfig,
    path: &Path,
    seeds: &experiment::seeds::SeedsConfig,
    scale: Option<f64>,
    options: RunOptions,
) -> Result<(), CliError> {
    use experiment::seeds;
    let scale = scale.unwrap_or(seeds.scale);
    if !(scale > 0.0 && scale <= 10.0) {
        return Err(CliError::Usage(format!(
            "--scale: {scale} is out of range (0, 10]"
        )));
    }
    if options
        .pairs
        .as_ref()
        .is_some_and(|p| !p.as_os_str().is_empty())
    {
        return Err(CliError::Usage(
            "--pairs: a run over seeds writes each seed's pairs into its own directory; give no PATH".into(),
        ));
    }
    let name = experiment::experiment_name(config, path);
    let dir = options
        .out
        .clone()
        .unwrap_or_else(|| Path::new("reports").join(&name));
    let mut runs = Vec::new();
    for &seed in &seeds.values {
        let (corpus, built) = seeds::seed_corpus(config, path, seed, scale)?;
        eprintln!(
            "seed {seed}: {} ({})",
            corpus.display(),
            if built { "built now" } else { "cached" }
        );
        if !options.json {
            println!("== seed {seed}");
        }
        let one = seeds::for_seed(config, &corpus, seed);
        let seed_dir = seeds::seed_dir(&dir, seed);
        run_experiment_file(
            &one,
            path,
            RunOptions {
                out: Some(seed_dir.clone()),
                report: false,
                verbose: options.verbose,
                json: options.json,
                pairs: options.pairs.clone(),
            },
        )?;
        runs.push((seed, neardup::report::load_run(&seed_dir)?));
    }
    if options.report {
        let written = neardup::report::seeds::render_seeds_report(&name, scale, &runs, &dir)?;
        eprintln!(
            "wrote the report over {} seeds ({} files) to {}",
            runs.len(),
            written.len(),
            dir.display()
        );
    }
    Ok(())
}

/// Prints the summary (table, verbose tables or JSON), writes the results
/// into `dir` and, with `--report`, draws the report beside them.
fn write_run(
    result: &experiment::ExperimentResult,
    paper: Option<&neardup::report::paper::Paper>,
    judged: Option<(
        &neardup::eval::judged::JudgedTruth,
        &[Vec<neardup::eval::judged::JudgedEvaluation>],
    )>,
    dir: &Path,
    options: &RunOptions,
) -> Result<(), CliError> {
    if options.json {
        let summary = experiment::summary::summarize(result);
        println!(
            "{}",
            serde_json::to_string_pretty(&summary).expect("the summary serialises")
        );
    } else {
        if options.verbose {
            println!("{}", experiment::render_summary(result));
        }
        print!("{}", experiment::summary::render_summary_table(result));
    }
    let mut written = experiment::results::write_reports_judged(result, paper, judged, dir)
        .map_err(ExperimentError::from)?;
    if options.report {
        let run = neardup::report::load_run(dir)?;
        written.extend(neardup::report::render_report(
            &[(result.name.clone(), run)],
            dir,
        )?);
    }
    let files = written.len();
    if !options.json {
        println!("wrote {files} files to {}", dir.display());
    } else {
        eprintln!("wrote {files} files to {}", dir.display());
    }
    Ok(())
}

/// `run TUNED.yaml --corpus OTHER`: the experiment's algorithms at its
/// thresholds on another corpus, with the transfer table.
fn run_transfer(
    mut config: ExperimentConfig,
    path: &Path,
    other: &Path,
    mut options: RunOptions,
) -> Result<(), CliError> {
    config.corpus = if other == Path::new("demo") {
        "demo".into()
    } else {
        std::path::absolute(other)
            .map_err(|source| CliError::Io {
                path: other.to_path_buf(),
                source,
            })?
            .display()
            .to_string()
    };
    config.build = None;
    // Judged pairs name the pages of the corpus they were judged on; the
    // other corpus is scored by its own clusters.
    if let Some(judged) = config.judged.take() {
        eprintln!(
            "note: the judged pairs ({}) name the pages of the experiment's own corpus; \
             on {} the truth is that corpus's clusters",
            judged.pairs,
            other.display()
        );
    }
    let stem = if other == Path::new("demo") {
        "demo".to_string()
    } else {
        other
            .file_name()
            .map(|n| {
                n.to_string_lossy()
                    .split('.')
                    .next()
                    .unwrap_or("corpus")
                    .to_string()
            })
            .unwrap_or_else(|| "corpus".into())
    };
    let name = format!("{}-on-{stem}", experiment::experiment_name(&config, path));
    config.name = Some(name.clone());
    options.out = options
        .out
        .or_else(|| Some(Path::new("reports").join(&name)));
    let json = options.json;
    let report = options.report;
    let (dir, result) = run_experiment_file(&config, path, options)?;
    let rows = experiment::tune::transfer_table(config.tuned.as_ref(), &result);
    let table =
        experiment::tune::render_transfer(config.tuned.as_ref(), &rows, &result.corpus_source);
    let write = |file: &str, text: &str| {
        let p = dir.join(file);
        std::fs::write(&p, text).map_err(|source| CliError::Io { path: p, source })
    };
    write("transfer.md", &table)?;
    write(
        "transfer.json",
        &serde_json::to_string_pretty(&rows).expect("rows serialise"),
    )?;
    if report {
        // The report opens with what the carried thresholds lost.
        let report_md = dir.join("report.md");
        if let Ok(body) = std::fs::read_to_string(&report_md) {
            write("report.md", &format!("## Transfer\n\n{table}\n{body}"))?;
        }
    }
    if json {
        eprintln!("{table}");
    } else {
        println!("\n{table}");
    }
    Ok(())
}
