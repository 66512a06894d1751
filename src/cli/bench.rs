//! `neardup bench`, `bench scale` and `bench eval`: throughput per stage
//! on real text, the SimHash index, how the stages grow with the corpus,
//! and how the evaluation grows with the stored pairs.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};

use super::CliError;

#[derive(Args)]
pub struct BenchArgs {
    #[command(flatten)]
    pub workers: super::WorkerArgs,
    /// Chinese text cut into ~600-character pages (seed 001's size).
    #[arg(
        long,
        default_value = "../shared/corpora/peoples_daily_1998_01/articles.jsonl.gz"
    )]
    pub zh: PathBuf,
    /// Short English texts, one page each.
    #[arg(
        long,
        default_value = "../shared/corpora/clough_stevenson_short_answers/clough_stevenson_short_answers.jsonl.gz"
    )]
    pub en: PathBuf,
    /// Least seconds per stage (each repeats whole passes until then).
    #[arg(long, default_value_t = 1.0)]
    pub seconds: f64,
    /// Numbers of random fingerprints for the SimHash index benchmark.
    #[arg(long, value_delimiter = ',', default_values_t = [1e6, 1e7])]
    pub fingerprints: Vec<f64>,
    /// Layouts for the SimHash index benchmark.
    #[arg(long, value_delimiter = ',', default_values_t = ["4x16".to_string(), "6c3".to_string(), "4x4".to_string()])]
    pub layouts: Vec<String>,
    #[command(subcommand)]
    pub command: Option<BenchCommand>,
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
    pub html: Vec<String>,
    /// At most this many pages of each `--html` source.
    #[arg(long, default_value_t = 2000)]
    pub html_pages: usize,
    /// Also write the Chinese pages' shingle sets (u64s) to this file,
    /// for scripts/compare_rensa.py to sketch the same shingles.
    #[arg(long)]
    pub shingles_out: Option<PathBuf>,
}

#[derive(Subcommand)]
pub enum BenchCommand {
    /// Bias and variance of the MinHash, one-permutation and SimHash
    /// estimates against the exact value, over pairs of shingle sets made
    /// at true Jaccard 0.1 to 0.95, compared with theory; prints a table
    /// and draws a chart.
    Accuracy {
        /// Pairs per Jaccard value.
        #[arg(long, default_value_t = 10_000)]
        trials: usize,
        /// Shingles in the union of each pair.
        #[arg(long, default_value_t = 400)]
        union: usize,
        /// MinHash functions and one-permutation bins.
        #[arg(long, default_value_t = 128)]
        k: usize,
        /// SimHash bits (64 or 128).
        #[arg(long, default_value_t = 64)]
        bits: u32,
        /// Where to draw the chart (PNG).
        #[arg(long, default_value = "reports/bench/accuracy.png")]
        chart: PathBuf,
    },
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
        /// Also deduplicate each size as `neardup dedup` does, with the
        /// first algorithm (its run, clusters and mapping files), and
        /// report its time and peak memory per page.
        #[arg(long)]
        dedup: bool,
    },
    /// The evaluation alone: each clustering method's whole threshold
    /// curve over made-up stored pairs (labelled clusters of power-law
    /// sizes, one large clique, false candidates; fixed seed), on one
    /// thread; CPU and wall seconds per method at each size, peak memory,
    /// and the log-log exponent against the stored pairs.
    Eval {
        /// Sizes in stored pairs.
        #[arg(long, value_delimiter = ',', default_values_t = [1e4, 1e5, 1e6, 1e7])]
        pairs: Vec<f64>,
        /// Clustering methods to time (connected, center, merge_center,
        /// star, pivot, average).
        #[arg(long, value_delimiter = ',', default_values_t = crate::eval::clustering::Clustering::ALL.map(|c| c.name().to_string()))]
        methods: Vec<String>,
        /// Kinds of scores: quantised (multiples of 1/128, many ties) and
        /// continuous (all distinct); a table each.
        #[arg(long, value_delimiter = ',', default_values_t = ["quantised".to_string(), "continuous".to_string()])]
        scores: Vec<String>,
    },
}

pub fn run(args: BenchArgs) -> Result<(), CliError> {
    match args.command {
        Some(BenchCommand::Scale {
            corpus,
            pages,
            algorithms,
            dedup,
        }) => run_scale(corpus, pages, algorithms, dedup),
        Some(BenchCommand::Eval {
            pairs,
            methods,
            scores,
        }) => run_eval(&pairs, &methods, &scores),
        Some(BenchCommand::Accuracy {
            trials,
            union,
            k,
            bits,
            chart,
        }) => run_accuracy(
            crate::bench::accuracy::AccuracySettings {
                trials,
                union,
                k,
                bits,
            },
            &chart,
        ),
        None => run_stages(args),
    }
}

fn run_scale(
    corpus: PathBuf,
    mut pages: Vec<usize>,
    algorithms: Vec<String>,
    dedup: bool,
) -> Result<(), CliError> {
    use crate::bench::scale::{self as bench_scale, ScaleError};
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
        bench_scale::run_scale(&sources, &config, &pages, dedup, |line| eprintln!("{line}"))
            .map_err(scale_error)?;
    print!("{}", bench_scale::render_scale(&table));
    println!("\n{}", crate::bench::machine_line());
    Ok(())
}

/// The largest size `bench eval` makes: its input takes a few GB.
const MOST_PAIRS: f64 = 1e8;

fn run_eval(pairs: &[f64], methods: &[String], scores: &[String]) -> Result<(), CliError> {
    use crate::bench::eval::{self as bench_eval, ScoreKind};
    use crate::eval::clustering::Clustering;
    let mut targets = Vec::with_capacity(pairs.len());
    for &n in pairs {
        if !(100.0..=MOST_PAIRS).contains(&n) {
            return Err(CliError::Usage(format!(
                "--pairs: {n} is out of range 1e2..=1e8"
            )));
        }
        if n.fract() != 0.0 {
            return Err(CliError::Usage(format!(
                "--pairs: {n} is not a whole number of pairs"
            )));
        }
        targets.push(n as usize);
    }
    targets.sort_unstable();
    targets.dedup();
    let mut chosen: Vec<Clustering> = Vec::new();
    for name in methods {
        let method: Clustering = name
            .replace('-', "_")
            .parse()
            .map_err(|e: String| CliError::Usage(format!("--methods: {e}")))?;
        if !chosen.contains(&method) {
            chosen.push(method);
        }
    }
    let mut kinds: Vec<ScoreKind> = Vec::new();
    for name in scores {
        let kind: ScoreKind = name
            .parse()
            .map_err(|e: String| CliError::Usage(format!("--scores: {e}")))?;
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    if chosen.is_empty() || kinds.is_empty() || targets.is_empty() {
        return Err(CliError::Usage(
            "--pairs, --methods and --scores each need a value".into(),
        ));
    }
    println!("{}, 1 thread", crate::bench::machine_line());
    for kind in kinds {
        let table = bench_eval::run_eval(kind, &targets, &chosen, |line| eprintln!("{line}"));
        println!("\n{}", bench_eval::render_eval(&table));
    }
    Ok(())
}

fn run_stages(args: BenchArgs) -> Result<(), CliError> {
    let BenchArgs {
        zh,
        en,
        seconds,
        fingerprints,
        layouts,
        shingles_out,
        html,
        html_pages,
        ..
    } = args;
    for l in &layouts {
        let layout: crate::algo::simhash::tables::Layout =
            l.parse()
                .map_err(|e: crate::algo::simhash::tables::LayoutError| {
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
        crate::bench::BenchInput::cut_into_pages(&zh, 600)?,
        crate::bench::BenchInput::from_corpus(&en)?,
    ];
    if let Some(out) = &shingles_out {
        let bytes = crate::bench::shingle_sets_bytes(&inputs[0]);
        crate::util::io::write_atomic(out, &bytes).map_err(|e| CliError::Io {
            path: e.path,
            source: e.source,
        })?;
    }
    let mut rows = Vec::new();
    for input in &inputs {
        rows.extend(crate::bench::bench_shingling(input, seconds));
        rows.extend(crate::bench::bench_imatch(input, seconds));
        rows.extend(crate::bench::bench_simhash_signatures(input, seconds));
        rows.extend(crate::bench::bench_semantic(input, seconds));
    }
    for path in &html {
        rows.extend(crate::bench::bench_extraction(
            Path::new(path),
            html_pages,
            seconds,
        )?);
    }
    println!("{}", crate::bench::machine_line());
    print!("{}", crate::bench::render(&rows));
    let names: Vec<&str> = layouts.iter().map(String::as_str).collect();
    for &n in &fingerprints {
        let n = n as usize;
        let index = crate::bench::bench_simhash_index(n, &names, 2000, n <= 2_000_000);
        print!("{}", crate::bench::render_index(&index));
    }
    if let Some(peak) = crate::util::stage::peak_memory_bytes() {
        println!("\npeak memory {:.1} MB", peak as f64 / 1e6);
    }
    Ok(())
}

fn run_accuracy(
    settings: crate::bench::accuracy::AccuracySettings,
    chart: &Path,
) -> Result<(), CliError> {
    use crate::bench::accuracy;
    if settings.trials < 10 {
        return Err(CliError::Usage(format!(
            "--trials: {} is too few for a variance (at least 10)",
            settings.trials
        )));
    }
    if !(20..=1_000_000).contains(&settings.union) {
        return Err(CliError::Usage(format!(
            "--union: {} is out of range 20..=1000000",
            settings.union
        )));
    }
    if !(1..=4096).contains(&settings.k) {
        return Err(CliError::Usage(format!(
            "--k: {} is out of range 1..=4096",
            settings.k
        )));
    }
    if ![64, 128].contains(&settings.bits) {
        return Err(CliError::Usage(format!(
            "--bits: {} must be 64 or 128",
            settings.bits
        )));
    }
    println!("{}", crate::bench::machine_line());
    let started = std::time::Instant::now();
    let rows = accuracy::measure(settings);
    print!("{}", accuracy::render_table(settings, &rows));
    if let Some(dir) = chart.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| CliError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
    }
    accuracy::write_chart(&rows, chart).map_err(CliError::Usage)?;
    println!(
        "{:.1} s; wrote {}",
        started.elapsed().as_secs_f64(),
        chart.display()
    );
    Ok(())
}
