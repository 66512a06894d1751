//! The `neardup` command line: one `run()`, one error print at the edge.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use neardup::corpus::build::{self, BuildConfig, BuildError};
use neardup::corpus::{self, demo, stats::CorpusStats, CorpusError, ReadOptions};
use neardup::experiment::{self, ExperimentConfig, ExperimentError};
use neardup::extract::{self, decode, Extraction};

#[derive(Parser)]
#[command(
    name = "neardup",
    version,
    about = "A workbench for evaluating near-duplicate web page detection",
    long_about = "A workbench for evaluating near-duplicate web page detection.\n\n\
                  With no command, runs the demo experiment on the embedded demo corpus."
)]
struct Cli {
    /// Worker threads (default: one per core). Results do not depend on it.
    #[arg(long, global = true)]
    threads: Option<usize>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Run an experiment file: print its table and write reports/NAME/.
    Run {
        /// The experiment YAML, e.g. experiments/demo.yaml.
        experiment: PathBuf,
        /// Where to write the results (default: reports/NAME).
        #[arg(long, short)]
        out: Option<PathBuf>,
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
    /// unlabelled pages with a manifest.jsonl.
    ExtractEval { dir: PathBuf },
    /// Throughput of each algorithm's stages on real text, one core:
    /// pages/s, shingles (or tokens) per second, MB/s, peak memory
    /// (shingling, MinHash, LSH, exact Jaccard, I-Match).
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
    },
    /// Inspect and convert corpora.
    Corpus {
        #[command(subcommand)]
        command: CorpusCommand,
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
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0}")]
    Usage(String),
}

impl CliError {
    /// 2 for input the user can fix, 1 for failures of ours or the system's.
    fn exit_code(&self) -> u8 {
        match self {
            CliError::Experiment(ExperimentError::Report(_)) => 1,
            CliError::Io { .. } | CliError::Gold(_) => 2,
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
    match cli.command {
        None => run_demo(),
        Some(Command::Run { experiment, out }) => {
            let config = ExperimentConfig::load(&experiment).map_err(ExperimentError::from)?;
            run_experiment_file(&config, &experiment, out)
        }
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
        Some(Command::Bench { zh, en, seconds }) => {
            if !(seconds > 0.0 && seconds <= 600.0) {
                return Err(CliError::Usage(format!(
                    "--seconds: {seconds} is out of range (0, 600]"
                )));
            }
            let inputs = [
                neardup::bench::BenchInput::cut_into_pages(&zh, 600)?,
                neardup::bench::BenchInput::from_corpus(&en)?,
            ];
            let mut rows = Vec::new();
            for input in &inputs {
                rows.extend(neardup::bench::bench_shingling(input, seconds));
                rows.extend(neardup::bench::bench_imatch(input, seconds));
            }
            print!("{}", neardup::bench::render(&rows));
            Ok(())
        }
        Some(Command::ExtractEval { dir }) => {
            print!("{}", extract::gold::evaluate_dir(&dir)?);
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

fn run_demo() -> Result<(), CliError> {
    let path = Path::new(demo::DEMO_EXPERIMENT_NAME);
    let config =
        ExperimentConfig::parse(path, demo::DEMO_EXPERIMENT).map_err(ExperimentError::from)?;
    run_experiment_file(&config, path, None)
}

fn run_experiment_file(
    config: &ExperimentConfig,
    path: &Path,
    out: Option<PathBuf>,
) -> Result<(), CliError> {
    let name = experiment::experiment_name(config, path);
    let corpus = experiment::load_corpus(config, path).map_err(ExperimentError::from)?;
    let references = experiment::load_references(config, path).map_err(ExperimentError::from)?;
    let result = experiment::run_experiment(&name, config, corpus, &references);
    print!("{}", experiment::render_summary(&result));
    let dir = out.unwrap_or_else(|| Path::new("reports").join(&name));
    let written = experiment::write_reports(&result, &dir).map_err(ExperimentError::from)?;
    println!(
        "\nwrote {}",
        written
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(())
}
