//! Runs an experiment: the pipeline from pages to evaluations, one stage
//! after another, each timed.

use rayon::prelude::*;

use super::config::{ExperimentConfig, PreparedAlgorithm};
use crate::algo::{AlgorithmRun, Document};
use crate::corpus::{Corpus, Page};
use crate::eval::throughput::{
    peak_memory_bytes, process_cpu_seconds, Stage, StageClock, StageRecord,
};
use crate::eval::{candidate_recall, evaluate_at, Counts, Evaluation, Truth};
use crate::extract::page_text;
use crate::text::lang::detect_lang;
use crate::text::tokenize;

#[derive(Debug, Clone)]
pub struct AlgorithmResult {
    pub run: AlgorithmRun,
    /// The threshold the table is printed at.
    pub threshold: f64,
    /// One evaluation per threshold of the grid, in grid order.
    pub evaluations: Vec<Evaluation>,
    /// True pairs among all stored pairs: the candidate stage's own recall.
    pub candidates: Counts,
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
    /// Pages evaluated (after both kinds of empty documents were skipped).
    pub pages: usize,
    pub input_bytes: usize,
    /// Rows the reader skipped because `html`/`text` was empty.
    pub skipped_empty: usize,
    /// Pages whose extracted text was empty (HTML with no text in it).
    pub empty_after_extraction: usize,
    pub truth: Truth,
    pub algorithms: Vec<AlgorithmResult>,
    pub throughput: Vec<StageRecord>,
    pub wall_seconds: f64,
    pub cpu_seconds: f64,
    pub peak_memory_bytes: Option<u64>,
}

pub fn run_experiment(name: &str, config: &ExperimentConfig, corpus: Corpus) -> ExperimentResult {
    let wall = std::time::Instant::now();
    let cpu = process_cpu_seconds();
    let input_bytes = corpus.content_bytes();
    let mut clock = StageClock::new(corpus.len(), input_bytes);

    let started = clock.start();
    let extracted: Vec<_> = corpus
        .pages
        .par_iter()
        .map(|p| page_text(p, config.extract))
        .collect();
    clock.stop(started, Stage::DecodeExtract, "");

    let (pages, texts): (Vec<Page>, Vec<String>) = corpus
        .pages
        .into_iter()
        .zip(extracted)
        .filter(|(_, e)| !e.text.trim().is_empty())
        .map(|(p, e)| (p, e.text))
        .unzip();
    let empty_after_extraction = clock.pages - pages.len();

    // The jieba dictionary loads once per process (~0.1 s); keep that out
    // of the tokeniser's throughput.
    crate::text::tokenize::jieba();
    let started = clock.start();
    let docs: Vec<Document> = pages
        .par_iter()
        .zip(texts.par_iter())
        .enumerate()
        .map(|(i, (page, text))| {
            let lang = page.lang.unwrap_or_else(|| detect_lang(text));
            Document {
                page: i as u32,
                lang,
                tokens: tokenize(text, lang, &config.tokenizer),
            }
        })
        .collect();
    clock.stop(started, Stage::Tokenize, "");

    let text_len: Vec<usize> = texts.iter().map(|t| t.chars().count()).collect();
    let truth = Truth::new(&pages, &text_len);

    let algorithms = config
        .prepare()
        .into_iter()
        .map(|prepared| run_algorithm(prepared, &docs, &truth, &mut clock))
        .collect();

    ExperimentResult {
        name: name.to_string(),
        corpus_source: corpus.source,
        pages: pages.len(),
        input_bytes,
        skipped_empty: corpus.skipped_empty,
        empty_after_extraction,
        truth,
        algorithms,
        throughput: clock.records,
        wall_seconds: wall.elapsed().as_secs_f64(),
        cpu_seconds: process_cpu_seconds() - cpu,
        peak_memory_bytes: peak_memory_bytes(),
    }
}

fn run_algorithm(
    prepared: PreparedAlgorithm,
    docs: &[Document],
    truth: &Truth,
    clock: &mut StageClock,
) -> AlgorithmResult {
    let run = prepared.algorithm.run(docs, clock);
    let started = clock.start();
    let evaluations = prepared
        .grid
        .iter()
        .map(|&t| evaluate_at(truth, &run.pairs, &run.scale, t))
        .collect();
    clock.stop(started, Stage::Evaluate, run.name);
    AlgorithmResult {
        candidates: candidate_recall(truth, &run.pairs),
        threshold: prepared.threshold,
        evaluations,
        run,
    }
}
