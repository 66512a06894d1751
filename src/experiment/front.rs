//! The front door: one type a caller opens, prepares and runs. Every
//! front end (`run`, `tune`, `dedup`, `check`, `train`, the workbench,
//! `bench scale`) reaches runs through it, so that what a run reads is read
//! once and in one place.
//!
//! - [`Experiment`]: an experiment file or value, and the path its relative
//!   paths are read from.
//! - [`Prepared`]: the experiment with its corpus, reference corpora and
//!   judged pairs read (each once), a learned judge's labels attached, and
//!   where the extraction cache is ([`CacheSetting`]).
//! - [`Run`]: what the run gave: the summary, the stored run, each
//!   algorithm's curves (computed once by the run) and pairs, a scorer for
//!   one entry, and its files.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use super::config::ExperimentConfig;
use super::dedup::Choice;
use super::outcome::{AlgorithmResult, ExperimentResult, FittedAlgorithm, Watchers};
use super::stored::StoredRun;
use super::summary::Summary;
use super::{ExperimentError, References, TableWriteError};
use crate::algo::{Algorithm, Document, ScoredPair};
use crate::corpus::build::{self, BuildConfig};
use crate::corpus::{demo, Corpus, Page, ReadCounter};
use crate::eval::choose::Objective;
use crate::eval::clustering::Clustering;
use crate::eval::judged::{JudgedEvaluation, JudgedTruth};
use crate::eval::{Evaluation, Truth};
use crate::extract::{extract_page, Extraction};
use crate::text::TokenizerConfig;
use crate::util::stage::Progress;

pub use crate::extract::cache::CacheSetting;

/// An experiment to prepare: its settings and the path they are read
/// relative to (the file's, or a name for one made in memory).
#[derive(Debug, Clone)]
pub struct Experiment {
    config: ExperimentConfig,
    path: PathBuf,
}

/// What [`Experiment::prepare`] does besides reading.
#[derive(Debug, Default)]
pub struct PrepareOptions {
    /// Where the run keeps its extraction cache.
    pub cache: CacheSetting,
    /// Build the corpus from the experiment's `build:` when it is missing.
    pub build_missing: bool,
    /// Counts the corpus file's bytes and pages as they are read.
    pub read_counter: Option<Arc<ReadCounter>>,
    /// Told when the reference collections are read (a stage of unknown
    /// length: they are read and tokenised whole).
    pub progress: Option<Progress>,
}

impl Experiment {
    /// The experiment file at `path`, its learned models loaded.
    pub fn open(path: &Path) -> Result<Self, ExperimentError> {
        let config = ExperimentConfig::load(path)?;
        Ok(Experiment::from_config(config, path))
    }

    /// The experiment file at `path`, its learned entries left untrained
    /// (what `neardup train` fits).
    pub fn open_untrained(path: &Path) -> Result<Self, ExperimentError> {
        let config = ExperimentConfig::load_untrained(path)?;
        Ok(Experiment::from_config(config, path))
    }

    /// An experiment's YAML text, read as if from the file `origin`.
    pub fn parse(text: &str, origin: &Path) -> Result<Self, ExperimentError> {
        let config = ExperimentConfig::parse(origin, text)?;
        Ok(Experiment::from_config(config, origin))
    }

    /// The embedded demo experiment, on the embedded demo corpus.
    pub fn demo() -> Result<Self, ExperimentError> {
        Experiment::parse(demo::DEMO_EXPERIMENT, Path::new(demo::DEMO_EXPERIMENT_NAME))
    }

    /// Settings made in memory, their relative paths read from `origin`.
    pub fn from_config(config: ExperimentConfig, origin: &Path) -> Self {
        Experiment {
            config,
            path: origin.to_path_buf(),
        }
    }

    pub fn config(&self) -> &ExperimentConfig {
        &self.config
    }

    /// The settings, for a front end's overrides (another corpus, a name).
    pub fn config_mut(&mut self) -> &mut ExperimentConfig {
        &mut self.config
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Its `name`, or the file's stem.
    pub fn name(&self) -> String {
        super::experiment_name(&self.config, &self.path)
    }

    /// Reads and tokenises the reference corpora its algorithms name.
    pub fn read_references(&self) -> Result<References, ExperimentError> {
        Ok(super::load_references(&self.config, &self.path)?)
    }

    /// Every (entry, extraction) it runs, labelled as `run` prints them.
    pub fn choices(&self, references: &References) -> Vec<Choice> {
        super::dedup::choices(&self.config, references)
    }

    /// Each algorithm's label as the run would print it.
    pub fn labels(&self, references: &References) -> Vec<String> {
        self.config
            .prepare(references)
            .iter()
            .map(|p| p.algorithm.label())
            .collect()
    }

    /// One scorer per (entry, extraction) it runs, the detectors that
    /// learn from the collection fitted on `fit_on`.
    pub fn scorers(&self, references: &References, fit_on: &[&Page]) -> Vec<Scorer> {
        self.choices(references)
            .into_iter()
            .map(|choice| Scorer::fitted_on(&self.config, references, choice, None, fit_on))
            .collect()
    }

    /// Reads what the run reads, each once: the corpus (built first when
    /// asked and missing), the reference corpora and the judged pairs; a
    /// learned judge with `folds` is given the labels it fits on.
    pub fn prepare(self, options: PrepareOptions) -> Result<Prepared, ExperimentError> {
        if options.build_missing {
            build_if_missing(&self.config, &self.path)?;
        }
        let counter = options.read_counter.unwrap_or_default();
        let corpus = super::load_corpus_counted(&self.config, &self.path, &counter)?;
        let names_references = self
            .config
            .algorithms
            .iter()
            .any(|a| self.config.reference_path(&a.config, &self.path).is_some());
        if let (true, Some(progress)) = (names_references, &options.progress) {
            progress
                .0
                .begin("read and tokenise the reference collections", 0);
        }
        let references = self.read_references()?;
        let ids: Vec<String> = corpus.pages.iter().map(|p| p.id.clone()).collect();
        let judged = match &self.config.judged {
            Some(spec) => Some(Arc::new(JudgedTruth::read(
                &spec.path(&self.path),
                &ids,
                spec.positive_from,
            )?)),
            None => None,
        };
        let mut run_config = self.config.clone();
        super::attach_learning_labels(&mut run_config, &corpus, judged.as_deref());
        Ok(Prepared {
            experiment: self,
            run_config,
            corpus: Arc::new(corpus),
            references,
            judged,
            ids,
            cache: options.cache.dir(),
        })
    }

    /// Prepared on pages the caller has (made, or read without labels),
    /// with references already read: no judged pairs.
    pub fn prepare_pages(
        self,
        corpus: Corpus,
        references: References,
        cache: CacheSetting,
    ) -> Prepared {
        let ids = corpus.pages.iter().map(|p| p.id.clone()).collect();
        Prepared {
            run_config: self.config.clone(),
            experiment: self,
            corpus: Arc::new(corpus),
            references,
            judged: None,
            ids,
            cache: cache.dir(),
        }
    }
}

/// Builds the corpus when the experiment names a builder and the corpus
/// is missing.
fn build_if_missing(config: &ExperimentConfig, path: &Path) -> Result<(), ExperimentError> {
    super::check_named_files(config, path)?;
    let (Some(builder), Some(corpus_path)) = (&config.build, config.corpus_path(path)) else {
        return Ok(());
    };
    if corpus_path.exists() {
        return Ok(());
    }
    let builder = path.parent().unwrap_or(Path::new(".")).join(builder);
    eprintln!(
        "{} is missing: building it from {} (once)",
        corpus_path.display(),
        builder.display()
    );
    let build = BuildConfig::load(&builder)?;
    let pages = build::build_corpus(&build, builder.parent().unwrap_or(Path::new(".")))?;
    if let Some(dir) = corpus_path.parent() {
        crate::util::io::create_dir_all(dir).map_err(crate::corpus::CorpusError::from)?;
    }
    crate::corpus::write_corpus(&pages, &corpus_path)?;
    Ok(())
}

/// An experiment with everything its run reads in memory.
#[derive(Debug)]
pub struct Prepared {
    /// As opened: what a tuned experiment is written from.
    experiment: Experiment,
    /// What runs: the settings with a learned judge's labels attached.
    run_config: ExperimentConfig,
    corpus: Arc<Corpus>,
    references: References,
    judged: Option<Arc<JudgedTruth>>,
    /// The corpus's page ids, in order.
    ids: Vec<String>,
    cache: Option<PathBuf>,
}

impl Prepared {
    pub fn experiment(&self) -> &Experiment {
        &self.experiment
    }

    /// The settings the run runs (a learned judge's labels attached).
    pub fn run_config(&self) -> &ExperimentConfig {
        &self.run_config
    }

    /// The corpus; while a clone of it is held, the run borrows it (and
    /// keeps each page's content) instead of consuming it.
    pub fn corpus(&self) -> &Arc<Corpus> {
        &self.corpus
    }

    pub fn references(&self) -> &References {
        &self.references
    }

    pub fn judged(&self) -> Option<&Arc<JudgedTruth>> {
        self.judged.as_ref()
    }

    pub fn ids(&self) -> &[String] {
        &self.ids
    }

    /// The labels a learned judge fits on: the judged pairs when the
    /// experiment gives its truth so, else the corpus's clusters.
    pub fn learning_labels(&self) -> crate::algo::learned::Labels {
        super::learning_labels(&self.corpus, self.judged.as_deref())
    }

    /// The documents of one extraction, tokenised as the experiment
    /// tokenises, and the corpus's truth: what `neardup train` fits on.
    pub fn documents(&self, extraction: Extraction) -> (Vec<Document>, Truth) {
        let cache = self.cache.as_deref();
        super::runner::documents(&self.run_config, &self.corpus, extraction, cache)
    }

    /// Runs it, telling `watchers` how it goes. The corpus is consumed
    /// (each page's content dropped once extracted) unless a clone of
    /// [`Self::corpus`] is held.
    pub fn run(self, watchers: Watchers) -> Run {
        let name = self.experiment.name();
        let shared;
        let corpus = match Arc::try_unwrap(self.corpus) {
            Ok(owned) => Cow::Owned(owned),
            Err(arc) => {
                shared = arc;
                Cow::Borrowed(&*shared)
            }
        };
        let result = super::runner::run_pages(
            &name,
            &self.run_config,
            corpus,
            &self.references,
            watchers,
            self.cache.as_deref(),
        );
        Run {
            result,
            experiment: self.experiment,
            references: self.references,
            judged: self.judged,
            ids: self.ids,
            judged_evaluations: OnceLock::new(),
        }
    }
}

/// A finished run and what it answers.
#[derive(Debug)]
pub struct Run {
    result: ExperimentResult,
    experiment: Experiment,
    references: References,
    judged: Option<Arc<JudgedTruth>>,
    ids: Vec<String>,
    /// Per algorithm, its figures over the judged pairs, made when first
    /// asked.
    judged_evaluations: OnceLock<Vec<Vec<JudgedEvaluation>>>,
}

impl Run {
    /// Everything the run measured.
    pub fn result(&self) -> &ExperimentResult {
        &self.result
    }

    pub fn into_result(self) -> ExperimentResult {
        self.result
    }

    pub fn experiment(&self) -> &Experiment {
        &self.experiment
    }

    pub fn name(&self) -> &str {
        &self.result.name
    }

    /// The corpus's page ids, in order.
    pub fn ids(&self) -> &[String] {
        &self.ids
    }

    pub fn judged(&self) -> Option<&Arc<JudgedTruth>> {
        self.judged.as_ref()
    }

    /// Each algorithm run, in the result's order (entry by extraction).
    pub fn algorithms(&self) -> &[AlgorithmResult] {
        &self.result.algorithms
    }

    /// The summary `run --json` prints.
    pub fn summary(&self) -> Summary {
        super::summary::summarize(&self.result)
    }

    /// The summary table `run` prints.
    pub fn summary_table(&self) -> String {
        super::summary::render_summary_table(&self.result)
    }

    /// The per-slice tables and the throughput `run --verbose` adds.
    pub fn tables(&self) -> String {
        super::render_summary(&self.result)
    }

    /// The run as `run.json` stores it.
    pub fn stored(&self) -> StoredRun {
        let run = StoredRun::new(&self.result, self.experiment.config.paper.as_ref());
        match self.judged_figures() {
            Some((truth, evaluations)) => run.with_judged(truth, evaluations),
            None => run,
        }
    }

    /// Algorithm `at`'s curve with clusters made by `method`, over every
    /// threshold its stored pairs answer: read from the run's cache.
    pub fn curve(&self, at: usize, method: Clustering) -> Option<Cow<'_, [Evaluation]>> {
        let a = self.result.algorithms.get(at)?;
        Some(a.curve_of(&self.result.truth, method))
    }

    /// Where `objective` is best over algorithm `at`'s curve.
    pub fn best(&self, at: usize, objective: Objective) -> Option<Evaluation> {
        self.result
            .algorithms
            .get(at)?
            .best(&self.result.truth, objective)
    }

    /// Algorithm `at`'s stored pairs and their scores.
    pub fn pairs(&self, at: usize) -> Option<&[ScoredPair]> {
        Some(&self.result.algorithms.get(at)?.run.pairs)
    }

    /// A scorer of algorithm `at` for one pair of pages: the judge the run
    /// fitted when it kept one, else the algorithm built afresh and fitted
    /// on `fit_on`.
    pub fn scorer(&self, at: usize, fit_on: &[&Page]) -> Option<Scorer> {
        let a = self.result.algorithms.get(at)?;
        let config = &self.experiment.config;
        let choice = self
            .experiment
            .choices(&self.references)
            .into_iter()
            .find(|c| c.entry == a.entry && c.extraction == a.extraction)?;
        Some(Scorer::fitted_on(
            config,
            &self.references,
            choice,
            a.fitted.clone(),
            fit_on,
        ))
    }

    /// The truth given by judged pairs and each algorithm's figures over
    /// them, when the experiment gives its truth so.
    pub fn judged_figures(&self) -> Option<(&JudgedTruth, &[Vec<JudgedEvaluation>])> {
        let truth = self.judged.as_deref()?;
        let evaluations = self
            .judged_evaluations
            .get_or_init(|| super::judged::judge(&self.result, truth));
        Some((truth, evaluations))
    }

    /// The table of the figures over the judged pairs, when there are some.
    pub fn judged_table(&self) -> Option<String> {
        let (truth, evaluations) = self.judged_figures()?;
        Some(super::judged::render_judged(
            &self.result,
            truth,
            evaluations,
        ))
    }

    /// Writes `results.*`, `throughput.*` and `run.json` into `dir`;
    /// returns the paths.
    pub fn write_files(&self, dir: &Path) -> Result<Vec<PathBuf>, TableWriteError> {
        let paper = self.experiment.config.paper.as_ref();
        super::results::write_reports_judged(&self.result, paper, self.judged_figures(), dir)
    }

    /// Writes `judged.*` into `dir` when the run has judged pairs.
    pub fn write_judged(&self, dir: &Path) -> Result<Vec<PathBuf>, TableWriteError> {
        match self.judged_figures() {
            Some((_, evaluations)) => super::judged::write_judged(&self.result, evaluations, dir),
            None => Ok(Vec::new()),
        }
    }

    /// Writes every stored pair, each algorithm's score and the truth to
    /// `path`.parquet and `path`.csv (empty: `dir`/pairs.*).
    pub fn write_pairs(&self, path: &Path, dir: &Path) -> Result<Vec<PathBuf>, TableWriteError> {
        let judged = self.judged.as_deref();
        super::pairs::write_pairs(&self.result, &self.ids, judged, path, dir)
    }
}

/// One algorithm of an experiment, ready to score a pair of pages.
pub struct Scorer {
    /// `LABEL [EXTRACTION]`, as `run` prints it.
    pub label: String,
    pub entry: usize,
    pub extraction: Extraction,
    algorithm: Arc<dyn Algorithm>,
    tokenizer: TokenizerConfig,
}

impl Scorer {
    /// `fitted` when given, else the entry's algorithm built with its
    /// reference corpus and fitted on `fit_on` (I-Match's lexicon and the
    /// semantic method's topics come from the collection: unfitted, they
    /// cannot score).
    fn fitted_on(
        config: &ExperimentConfig,
        references: &References,
        choice: Choice,
        fitted: Option<FittedAlgorithm>,
        fit_on: &[&Page],
    ) -> Scorer {
        let entry = &config.algorithms[choice.entry];
        let tokenizer = config
            .algorithm_tokenizer(&entry.config)
            .unwrap_or_else(|| config.tokenizer.clone());
        let algorithm = match fitted {
            Some(FittedAlgorithm(algorithm)) => algorithm,
            None => {
                let reference = references.get(choice.entry).cloned().flatten();
                let mut algorithm = entry.config.settings().build(reference);
                let docs: Vec<Document> = fit_on
                    .iter()
                    .enumerate()
                    .map(|(n, p)| page_document(n as u32, p, choice.extraction, &tokenizer))
                    .collect();
                algorithm.fit_collection(&docs);
                Arc::from(algorithm)
            }
        };
        Scorer {
            label: choice.label,
            entry: choice.entry,
            extraction: choice.extraction,
            algorithm,
            tokenizer,
        }
    }

    /// Page `p` as this algorithm's run reads it, numbered `n`.
    pub fn document(&self, n: u32, p: &Page) -> Document {
        page_document(n, p, self.extraction, &self.tokenizer)
    }

    /// The algorithm's score of two pages; `None` when one has no
    /// signature.
    pub fn score(&self, a: &Page, b: &Page) -> Option<f32> {
        self.algorithm
            .score_pair(&self.document(0, a), &self.document(1, b))
    }
}

/// Page `p` as a run reads it: its `extraction`'s text tokenised by
/// `tokenizer`, its host and structure (the semantic features weigh
/// sentences by their place in it).
fn page_document(
    n: u32,
    p: &Page,
    extraction: Extraction,
    tokenizer: &TokenizerConfig,
) -> Document {
    let extracted = extract_page(p, extraction);
    let mut d = Document::new(n, &extracted.text(), p.lang, tokenizer);
    d.host = p.url.as_deref().and_then(crate::algo::learned::host_of);
    d.structure = Some(Arc::new(extracted.structure));
    d
}

impl std::fmt::Debug for Scorer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.label)
    }
}
