//! Runs an experiment: the pipeline from pages to evaluations, one stage
//! after another, each timed.

use rayon::prelude::*;

use super::config::{ExperimentConfig, PreparedAlgorithm};
use super::References;
use crate::algo::{AlgorithmRun, Document};
use crate::corpus::{Corpus, Page};
use crate::eval::throughput::{
    peak_memory_bytes, process_cpu_seconds, Stage, StageClock, StageRecord,
};
use crate::eval::{candidate_recall, evaluate_at, pair_recall, Counts, Evaluation, Truth};
use std::sync::Arc;

use crate::extract::boilerplate::{remove_site_boilerplate, HostReport};
use crate::extract::structure::DocumentStructure;
use crate::extract::{extract_page, Extraction};
use crate::text::TokenizerConfig;

#[derive(Debug, Clone)]
pub struct AlgorithmResult {
    /// The text the algorithm read.
    pub extraction: Extraction,
    pub run: AlgorithmRun,
    /// The threshold the table is printed at.
    pub threshold: f64,
    /// One evaluation per threshold of the grid, in grid order.
    pub evaluations: Vec<Evaluation>,
    /// True pairs among all stored pairs (scored within the floor).
    pub candidates: Counts,
    /// True pairs among the candidate stage's pairs, before scoring: what
    /// the candidate search alone loses.
    pub candidate_stage: Counts,
    /// Pages without a signature, per slice of the truth.
    pub unsigned_by_slice: Vec<u64>,
}

impl AlgorithmResult {
    pub fn at_threshold(&self) -> &Evaluation {
        self.evaluations
            .iter()
            .find(|e| e.threshold == self.threshold)
            .expect("the grid contains the threshold")
    }
}

#[derive(Debug, Clone)]
pub struct ExperimentResult {
    pub name: String,
    pub corpus_source: String,
    /// Pages evaluated.
    pub pages: usize,
    pub input_bytes: usize,
    /// Rows the reader skipped because `html`/`text` was empty.
    pub skipped_empty: usize,
    /// Per extraction, pages whose extracted text was empty. They stay in
    /// the evaluation (a miss is a miss) without a signature.
    pub empty_after_extraction: Vec<(Extraction, usize)>,
    /// Per extraction, what `boilerplate: site` removed on each host
    /// (empty when the experiment does not ask for it).
    pub boilerplate: Vec<(Extraction, Vec<HostReport>)>,
    pub truth: Truth,
    pub algorithms: Vec<AlgorithmResult>,
    pub throughput: Vec<StageRecord>,
    pub wall_seconds: f64,
    pub cpu_seconds: f64,
    pub peak_memory_bytes: Option<u64>,
}

/// `references` as [`super::load_references`] reads them (empty when no
/// algorithm names a reference corpus).
pub fn run_experiment(
    name: &str,
    config: &ExperimentConfig,
    corpus: &Corpus,
    references: &References,
) -> ExperimentResult {
    run_experiment_observed(name, config, corpus, references, None)
}

/// [`run_experiment`], telling `observer` of each stage as it finishes.
pub fn run_experiment_observed(
    name: &str,
    config: &ExperimentConfig,
    corpus: &Corpus,
    references: &References,
    observer: Option<std::sync::mpsc::Sender<StageRecord>>,
) -> ExperimentResult {
    let wall = std::time::Instant::now();
    let cpu = process_cpu_seconds();
    let input_bytes = corpus.content_bytes();
    let mut clock = StageClock::new(corpus.len(), input_bytes);
    clock.observer = observer;
    // The jieba dictionary loads once per process (~0.1 s); keep that out
    // of the tokeniser's throughput.
    crate::text::tokenize::jieba();

    let mut truth = None;
    let mut algorithms = Vec::new();
    let mut empty_after_extraction = Vec::new();
    let mut boilerplate = Vec::new();
    for extraction in config.extractions() {
        let (mut texts, mut structures) = extract_texts(&corpus.pages, extraction, &mut clock);
        if let Some(site) = &config.boilerplate {
            let started = clock.start();
            let urls: Vec<Option<&str>> = corpus.pages.iter().map(|p| p.url.as_deref()).collect();
            let mut owned: Vec<DocumentStructure> =
                structures.iter().map(|s| (**s).clone()).collect();
            boilerplate.push((extraction, remove_site_boilerplate(&urls, &mut owned, site)));
            texts = owned.par_iter().map(|s| s.text()).collect();
            structures = owned.into_iter().map(Arc::new).collect();
            clock.stop(
                started,
                Stage::DecodeExtract,
                &format!("{} site boilerplate", extraction.name()),
            );
        }
        empty_after_extraction.push((
            extraction,
            texts.iter().filter(|t| t.trim().is_empty()).count(),
        ));
        // Retention ("keep the longer page") reads the first extraction's text.
        let truth = truth.get_or_insert_with(|| {
            let text_len: Vec<usize> = texts.iter().map(|t| t.chars().count()).collect();
            Truth::new(&corpus.pages, &text_len)
        });
        // Documents per tokenizer: algorithms with tokens of their own
        // tokenise once per kind, not once each.
        let mut tokenized: Vec<(TokenizerConfig, Vec<Document>)> = Vec::new();
        for prepared in config.prepare(references) {
            let tokenizer = prepared
                .tokenizer
                .clone()
                .unwrap_or_else(|| config.tokenizer.clone());
            let at = match tokenized.iter().position(|(t, _)| *t == tokenizer) {
                Some(at) => at,
                None => {
                    let label = if tokenizer == config.tokenizer {
                        extraction.name().to_string()
                    } else {
                        format!("{} {}", extraction.name(), tokenizer.describe())
                    };
                    let mut docs =
                        tokenize_documents(&corpus.pages, &texts, &tokenizer, &label, &mut clock);
                    for (d, s) in docs.iter_mut().zip(&structures) {
                        d.structure = Some(s.clone());
                    }
                    tokenized.push((tokenizer, docs));
                    tokenized.len() - 1
                }
            };
            let own_tokens = prepared.tokenizer.as_ref().map(TokenizerConfig::describe);
            let variant = match &own_tokens {
                Some(tokens) => format!("{} {tokens}", extraction.name()),
                None => extraction.name().to_string(),
            };
            let mut result = run_algorithm(
                prepared,
                extraction,
                &variant,
                &tokenized[at].1,
                truth,
                &mut clock,
            );
            if let Some(tokens) = own_tokens {
                result.run.label = format!("{} on {tokens}", result.run.label);
            }
            algorithms.push(result);
        }
    }

    ExperimentResult {
        name: name.to_string(),
        pages: corpus.pages.len(),
        truth: truth.unwrap_or_else(|| Truth::new(&[], &[])),
        corpus_source: corpus.source.clone(),
        input_bytes,
        skipped_empty: corpus.skipped_empty,
        empty_after_extraction,
        boilerplate,
        algorithms,
        throughput: clock.records,
        wall_seconds: wall.elapsed().as_secs_f64(),
        cpu_seconds: process_cpu_seconds() - cpu,
        peak_memory_bytes: peak_memory_bytes(),
    }
}

/// Decode and extract every page, timed: the texts, and the structures
/// (title, subtitles, sentences) the semantic method reads.
fn extract_texts(
    pages: &[Page],
    extraction: Extraction,
    clock: &mut StageClock,
) -> (Vec<String>, Vec<Arc<DocumentStructure>>) {
    let started = clock.start();
    let structures: Vec<Arc<DocumentStructure>> = pages
        .par_iter()
        .map(|p| Arc::new(extract_page(p, extraction).structure))
        .collect();
    let texts = structures.par_iter().map(|s| s.text()).collect();
    clock.stop(started, Stage::DecodeExtract, extraction.name());
    (texts, structures)
}

/// Tokenise every page's text, timed under `label`.
fn tokenize_documents(
    pages: &[Page],
    texts: &[String],
    tokenizer: &TokenizerConfig,
    label: &str,
    clock: &mut StageClock,
) -> Vec<Document> {
    let started = clock.start();
    let docs: Vec<Document> = pages
        .par_iter()
        .zip(texts.par_iter())
        .enumerate()
        .map(|(i, (page, text))| Document::new(i as u32, text, page.lang, tokenizer))
        .collect();
    clock.stop(started, Stage::Tokenize, label);
    docs
}

fn run_algorithm(
    prepared: PreparedAlgorithm,
    extraction: Extraction,
    variant: &str,
    docs: &[Document],
    truth: &Truth,
    clock: &mut StageClock,
) -> AlgorithmResult {
    let mut algorithm = prepared.algorithm;
    let mut run = algorithm.run(docs, variant, clock);
    let mut unsigned_by_slice = vec![0u64; truth.slice_names.len()];
    for &page in &run.unsigned {
        unsigned_by_slice[truth.slice[page as usize] as usize] += 1;
    }
    let candidate_stage = pair_recall(truth, run.candidate_pairs.iter().copied());
    run.candidate_pairs = Vec::new();
    let started = clock.start();
    let gated = run.gated_pairs(&run.gate_thresholds());
    let evaluations = prepared
        .grid
        .iter()
        .map(|&t| evaluate_at(truth, &gated, &run.scale, t))
        .collect();
    drop(gated);
    clock.stop(
        started,
        Stage::Evaluate,
        &format!("{} [{variant}]", run.label),
    );
    AlgorithmResult {
        extraction,
        candidates: candidate_recall(truth, &run.pairs),
        candidate_stage,
        unsigned_by_slice,
        threshold: prepared.threshold,
        evaluations,
        run,
    }
}
