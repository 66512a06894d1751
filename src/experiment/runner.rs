//! Runs an experiment: the pipeline from pages to evaluations, one stage
//! after another, each timed.

use rayon::prelude::*;

use super::config::{ExperimentConfig, PreparedAlgorithm};
use super::outcome::{
    AlgorithmResult, EndToEnd, ExperimentResult, FittedAlgorithm, RunOutput, Watchers,
};
use super::References;
use crate::algo::{stand_in_structures, Document};
use crate::corpus::{Content, Corpus, Lang, Page};
use crate::eval::clustering::run_curve;
use crate::eval::{grouped_pair_recall, sampled_counts, stored_recall, Counts, Evaluation, Truth};
use crate::util::stage::{
    peak_memory_bytes, process_cpu_seconds, release_freed_memory, Stage, StageClock, Started,
    Ticker,
};
use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use crate::extract::boilerplate::{remove_site_boilerplate, GroupReport};
use crate::extract::cache::{CacheReport, CacheSetting, ExtractCache};
use crate::extract::structure::DocumentStructure;
use crate::extract::{self, Extraction};
use crate::text::lang::detect_lang;
use crate::text::tokenize::Tokens;
use crate::text::{tokenize_many, TokenizerConfig, Vocab};

/// `references` as [`super::load_references`] reads them (empty when no
/// algorithm names a reference corpus).
pub fn run_experiment(
    name: &str,
    config: &ExperimentConfig,
    corpus: &Corpus,
    references: &References,
) -> ExperimentResult {
    run_experiment_observed(name, config, corpus, references, Watchers::default())
}

/// [`run_experiment`], telling `watchers` how it goes.
pub fn run_experiment_observed(
    name: &str,
    config: &ExperimentConfig,
    corpus: &Corpus,
    references: &References,
    watchers: Watchers,
) -> ExperimentResult {
    let cache = CacheSetting::ProcessDefault.dir();
    run_pages(
        name,
        config,
        Cow::Borrowed(corpus),
        references,
        watchers,
        cache.as_deref(),
    )
}

/// [`run_experiment_observed`] on a corpus it owns: each page's content
/// (its HTML) is dropped as soon as every extraction has read it, so the
/// algorithms run beside the pages' metadata and extracted text only.
pub fn run_experiment_consuming(
    name: &str,
    config: &ExperimentConfig,
    corpus: Corpus,
    references: &References,
    watchers: Watchers,
) -> ExperimentResult {
    let cache = CacheSetting::ProcessDefault.dir();
    run_pages(
        name,
        config,
        Cow::Owned(corpus),
        references,
        watchers,
        cache.as_deref(),
    )
}

/// Runs the experiment on the corpus, borrowed or owned (then each page's
/// content goes once extracted), with the extraction cache in `cache`
/// (none: off).
pub(super) fn run_pages(
    name: &str,
    config: &ExperimentConfig,
    mut corpus: Cow<'_, Corpus>,
    references: &References,
    watchers: Watchers,
    cache: Option<&Path>,
) -> ExperimentResult {
    let wall = std::time::Instant::now();
    let cpu = process_cpu_seconds();
    let input_bytes = corpus.content_bytes();
    let mut clock = StageClock::new(corpus.len(), input_bytes);
    clock.observer = watchers.stages;
    clock.progress = watchers.progress;
    // The jieba dictionary loads once per process (~0.1 s); keep that out
    // of the tokeniser's throughput.
    crate::text::tokenize::jieba();

    let inputs = DistinctInputs::new(&corpus.pages);
    // Every extraction reads the pages first, so that their content can go
    // before any algorithm runs.
    let ExtractedAll {
        extracted,
        extract_cache,
        boilerplate,
    } = extract_all(config, &corpus, &inputs, cache, &mut clock);
    if let Cow::Owned(corpus) = &mut corpus {
        for page in &mut corpus.pages {
            page.content = Content::Text(String::new());
        }
        release_freed_memory();
    }
    let mut run = AlgorithmRuns {
        config,
        references,
        pages: &corpus.pages,
        inputs: &inputs,
        clock,
        results: watchers.results,
        abandoned: false,
        truth: None,
        algorithms: Vec::new(),
        empty_after_extraction: Vec::new(),
    };
    for (extraction, structures, extract_charge) in extracted {
        if run.abandoned {
            break;
        }
        run.on_extraction(extraction, structures, extract_charge);
    }

    let truth = run
        .truth
        .map(Arc::unwrap_or_clone)
        .unwrap_or_else(|| Truth::new(&[], &[]));
    // Every view reads the curves; each is computed once, begun in the
    // background as its run ended, and finished here.
    run.algorithms
        .par_iter()
        .for_each(|a| a.prepare_curves(&truth));

    ExperimentResult {
        name: name.to_string(),
        pages: corpus.pages.len(),
        truth,
        corpus_source: corpus.source.clone(),
        input_bytes,
        skipped_empty: corpus.skipped_empty,
        empty_after_extraction: run.empty_after_extraction,
        boilerplate,
        extract_cache,
        algorithms: run.algorithms,
        throughput: run.clock.records,
        wall_seconds: wall.elapsed().as_secs_f64(),
        cpu_seconds: process_cpu_seconds() - cpu,
        peak_memory_bytes: peak_memory_bytes(),
    }
}

/// Every extraction's structures, held until its algorithms run, with
/// what the cache gave and the boilerplate pass removed.
struct ExtractedAll {
    extracted: Vec<(Extraction, Vec<Arc<DocumentStructure>>, EndToEnd)>,
    extract_cache: Vec<(Extraction, CacheReport)>,
    boilerplate: Vec<(Extraction, Vec<GroupReport>)>,
}

fn extract_all(
    config: &ExperimentConfig,
    corpus: &Corpus,
    inputs: &DistinctInputs,
    cache: Option<&Path>,
    clock: &mut StageClock,
) -> ExtractedAll {
    let mut all = ExtractedAll {
        extracted: Vec::new(),
        extract_cache: Vec::new(),
        boilerplate: Vec::new(),
    };
    // One pass makes every extraction, so that a page is parsed once and
    // the pages' content can go before any algorithm runs.
    let cleaned = extract_cleaned(config, corpus, inputs, &config.extractions(), cache, clock);
    for c in cleaned {
        all.extract_cache.extend(c.cache.map(|r| (c.extraction, r)));
        if let Some(removed) = c.removed {
            all.boilerplate.push((c.extraction, removed));
        }
        all.extracted.push((c.extraction, c.structures, c.charge));
    }
    all
}

/// The algorithms' side of a run: what each extraction's algorithms read
/// and what the run gathers from them.
struct AlgorithmRuns<'a> {
    config: &'a ExperimentConfig,
    references: &'a References,
    pages: &'a [Page],
    inputs: &'a DistinctInputs,
    clock: StageClock,
    results: Option<std::sync::mpsc::Sender<RunOutput>>,
    /// A watcher that hung up (a workbench reloaded or closed) wants no
    /// more runs: the run stops after the algorithm it is on.
    abandoned: bool,
    truth: Option<Arc<Truth>>,
    algorithms: Vec<AlgorithmResult>,
    empty_after_extraction: Vec<(Extraction, usize)>,
}

/// What the algorithms of one extraction read, per algorithm in run
/// order: who reads which tokens and shingle widths decides when each
/// goes.
struct Readers {
    tokenizers: Vec<TokenizerConfig>,
    /// Shingle widths each algorithm reads: a set read by more than one
    /// is made once and kept until its last reader is done.
    widths: Vec<Vec<usize>>,
    reads_tokens: Vec<bool>,
    signs_from_text: Vec<bool>,
    names: Vec<&'static str>,
}

impl Readers {
    fn new(config: &ExperimentConfig, prepared: &[PreparedAlgorithm]) -> Self {
        Readers {
            tokenizers: prepared
                .iter()
                .map(|p| {
                    p.tokenizer
                        .clone()
                        .unwrap_or_else(|| config.tokenizer.clone())
                })
                .collect(),
            widths: prepared
                .iter()
                .map(|p| p.algorithm.shingle_widths())
                .collect(),
            reads_tokens: prepared
                .iter()
                .map(|p| p.algorithm.reads_tokens())
                .collect(),
            signs_from_text: prepared
                .iter()
                .map(|p| p.algorithm.signs_from_text())
                .collect(),
            names: prepared.iter().map(|p| p.algorithm.name()).collect(),
        }
    }

    /// Whether an algorithm after `n` on its tokens reads shingles of `width`.
    fn read_later(&self, n: usize, width: usize) -> bool {
        let tokenizers = &self.tokenizers;
        (n + 1..tokenizers.len())
            .any(|m| tokenizers[m] == tokenizers[n] && self.widths[m].contains(&width))
    }

    /// Whether algorithm n's tokens would serve one algorithm that can
    /// sign from the text as well (SimHash's words by their counts) and
    /// none that needs them: tokenising into a vocabulary costs it about
    /// as much again as its signatures. Two such algorithms share the
    /// tokens instead, which is cheaper than tokenising twice.
    fn text_only(&self, n: usize) -> bool {
        let tokenizers = &self.tokenizers;
        let readers: Vec<usize> = (n..tokenizers.len())
            .filter(|&m| tokenizers[m] == tokenizers[n] && self.reads_tokens[m])
            .collect();
        matches!(readers[..], [m] if self.signs_from_text[m])
    }
}

impl AlgorithmRuns<'_> {
    /// Runs every algorithm that reads `extraction`, then lets its
    /// structures go.
    fn on_extraction(
        &mut self,
        extraction: Extraction,
        mut structures: Vec<Arc<DocumentStructure>>,
        extract_charge: EndToEnd,
    ) {
        // Texts are made from the structures where they are read, never
        // held all at once: a run holds each page's text in its structure
        // and in its tokens already.
        let lengths = text_lengths(&structures);
        self.empty_after_extraction.push((
            extraction,
            self.inputs
                .slot
                .iter()
                .filter(|&&s| lengths[s as usize] == 0)
                .count(),
        ));
        // Retention ("keep the longer page") reads the first extraction's text.
        if self.truth.is_none() {
            let truth = page_truth(self.pages, self.inputs, &structures);
            if let Some(results) = &self.results {
                self.abandoned |= results.send(RunOutput::Truth(truth.clone())).is_err();
            }
            self.truth = Some(Arc::new(truth));
        }
        // Documents per tokenizer: algorithms with tokens of their own
        // tokenise once per kind, not once each.
        let mut tokenized: Vec<TokenizedGroup> = Vec::new();
        let config = self.config;
        let prepared: Vec<PreparedAlgorithm> = config
            .prepare(self.references)
            .into_iter()
            .filter(|p| config.runs_on(&config.algorithms[p.entry], extraction))
            .collect();
        let readers = Readers::new(config, &prepared);
        for (n, prepared) in prepared.into_iter().enumerate() {
            if self.abandoned {
                break;
            }
            let which = ExtractionAlgorithm {
                n,
                extraction,
                extract_charge,
                readers: &readers,
            };
            self.run_one(which, prepared, &mut tokenized, &mut structures);
        }
        // This extraction's structures go now; the semantic method's
        // analyses of them with them.
        crate::algo::semantic::forget_analyses();
        drop(tokenized);
        drop(structures);
        release_freed_memory();
    }

    /// The group of documents on algorithm n's tokens, made when no
    /// algorithm before it on this extraction read them.
    fn group_for(
        &mut self,
        which: &ExtractionAlgorithm,
        tokenized: &mut Vec<TokenizedGroup>,
        structures: &[Arc<DocumentStructure>],
    ) -> usize {
        let (n, extraction) = (which.n, which.extraction);
        let tokenizer = which.readers.tokenizers[n].clone();
        match tokenized.iter().position(|g| g.tokenizer == tokenizer) {
            Some(at) => at,
            None if which.readers.text_only(n) => {
                // No algorithm on these tokens reads them: each signs
                // from the text (tokenising it there) or the structure.
                let docs = untokenized_documents(self.pages, self.inputs, structures);
                tokenized.push(TokenizedGroup {
                    tokenizer,
                    docs,
                    record: None,
                    vocab: Arc::default(),
                });
                tokenized.len() - 1
            }
            None => {
                let label = if tokenizer == self.config.tokenizer {
                    extraction.name().to_string()
                } else {
                    format!("{} {}", extraction.name(), tokenizer.describe())
                };
                let (docs, vocab) = tokenize_documents(
                    self.pages,
                    self.inputs,
                    structures,
                    &tokenizer,
                    &label,
                    &mut self.clock,
                );
                tokenized.push(TokenizedGroup {
                    tokenizer,
                    docs,
                    record: Some(self.clock.records.len() - 1),
                    vocab,
                });
                tokenized.len() - 1
            }
        }
    }

    /// Runs algorithm n of the extraction on its group of documents,
    /// letting go before and after what no later algorithm reads.
    fn run_one(
        &mut self,
        which: ExtractionAlgorithm,
        mut prepared: PreparedAlgorithm,
        tokenized: &mut Vec<TokenizedGroup>,
        structures: &mut Vec<Arc<DocumentStructure>>,
    ) {
        let (n, extraction, readers) = (which.n, which.extraction, which.readers);
        let group = self.group_for(&which, tokenized, structures);
        let group = &mut tokenized[group];
        if group.record.is_none() && readers.signs_from_text[n] {
            prepared.algorithm.sign_from_text(&group.tokenizer);
        }
        group.vocab.share(
            readers.widths[n]
                .iter()
                .copied()
                .filter(|&w| readers.read_later(n, w)),
        );
        // Tokens that neither this algorithm nor a later one on them
        // reads go before it runs (the semantic method tags the
        // structures): at scale they are the largest thing per page.
        // Pages keep their own structure, so identical inputs are still
        // told apart by it.
        let tokens_read_later = (n..readers.tokenizers.len())
            .any(|m| readers.reads_tokens[m] && readers.tokenizers[m] == group.tokenizer);
        if !tokens_read_later {
            let empty = Arc::new(Tokens::default());
            for doc in &mut group.docs {
                doc.tokens = empty.clone();
            }
            release_freed_memory();
        }
        let own_tokens = prepared.tokenizer.as_ref().map(TokenizerConfig::describe);
        let variant = match &own_tokens {
            Some(tokens) => format!("{} {tokens}", extraction.name()),
            None => extraction.name().to_string(),
        };
        // The semantic method's analyses of these structures serve a later
        // semantic run (or the learned judge's semantic features); with
        // none to come, they go as soon as the pages are signed.
        if !readers.names[n + 1..]
            .iter()
            .any(|&m| m == "semantic" || m == "learned")
        {
            prepared.algorithm.last_reader();
        }
        let own_from = self.clock.records.len();
        // The last algorithm on this extraction that signs from what it
        // fitted (the semantic method's analyses) lets the structures
        // go in between: at scale they are the largest thing a page
        // still holds. Each page keeps an empty stand-in, one per
        // structure, so that identical inputs are still told apart.
        if n + 1 == readers.names.len() {
            let started = self.clock.start();
            if prepared.algorithm.fit_ahead(&group.docs) {
                self.clock.stop(
                    started,
                    Stage::Fit,
                    &format!("{} [{variant}]", prepared.algorithm.label()),
                );
                drop(std::mem::take(structures));
                stand_in_structures(&mut group.docs);
                release_freed_memory();
            }
        }
        let mut result = run_algorithm(
            prepared,
            self.config.pair_budget_bytes(),
            extraction,
            &variant,
            &group.docs,
            self.truth.as_ref().expect("made by the first extraction"),
            &mut self.clock,
        );
        // What this algorithm would cost alone: its extraction (its
        // share of the pass that made every extraction) and tokenising
        // (shared with others here) and its own stages.
        result.end_to_end = which.extract_charge;
        let tokenizing = group.record.map(|r| &self.clock.records[r]);
        for r in tokenizing
            .into_iter()
            .chain(&self.clock.records[own_from..])
        {
            result.end_to_end.wall_seconds += r.wall_seconds;
            result.end_to_end.cpu_seconds += r.cpu_seconds;
        }
        if let Some(tokens) = own_tokens {
            let run = Arc::make_mut(&mut result.run);
            run.label = format!("{} on {tokens}", run.label);
        }
        let truth = self.truth.as_ref().expect("made by the first extraction");
        result.prepare_curves_in_background(truth);
        match &self.results {
            Some(results) => {
                self.abandoned |= results
                    .send(RunOutput::Algorithm(Box::new(result)))
                    .is_err();
            }
            None => self.algorithms.push(result),
        }
        forget_unread(n, readers, group);
        release_freed_memory();
    }
}

/// Algorithm n among those of one extraction.
struct ExtractionAlgorithm<'r> {
    n: usize,
    extraction: Extraction,
    /// What the extraction stage charges each algorithm reading it.
    extract_charge: EndToEnd,
    readers: &'r Readers,
}

/// Once algorithm n ran: tokens no later algorithm reads go now (a page's
/// character tokens take several times its text), before the next one
/// allocates.
fn forget_unread(n: usize, readers: &Readers, group: &mut TokenizedGroup) {
    if !readers.tokenizers[n + 1..].contains(&group.tokenizer) {
        group.docs = Vec::new();
        group.vocab = Arc::default();
    } else {
        // Shingle sets no later algorithm reads go too, and the
        // per-token values this one derived.
        let TokenizedGroup { docs, vocab, .. } = &*group;
        vocab.forget_derived();
        for &width in readers.widths[n]
            .iter()
            .filter(|&&w| !readers.read_later(n, w))
        {
            if vocab.shares(width) {
                vocab.unshare(width);
                docs.par_iter()
                    .for_each(|d| d.tokens.forget_shingles(width));
            }
        }
    }
}

/// An extraction after [`extract_cleaned`]: its structures per slot, what
/// the boilerplate pass removed, what the cache gave, and what it is
/// charged.
struct Cleaned {
    extraction: Extraction,
    structures: Vec<Arc<DocumentStructure>>,
    removed: Option<Vec<GroupReport>>,
    cache: Option<CacheReport>,
    charge: EndToEnd,
}

/// Decodes and extracts every distinct input for all `extractions` in one
/// pass, then drops site boilerplate from each when the experiment asks,
/// extraction by extraction.
fn extract_cleaned(
    config: &ExperimentConfig,
    corpus: &Corpus,
    inputs: &DistinctInputs,
    extractions: &[Extraction],
    cache: Option<&Path>,
    clock: &mut StageClock,
) -> Vec<Cleaned> {
    let extracted = extract_structures(corpus, inputs, extractions, cache, clock);
    let mut out = Vec::with_capacity(extracted.len());
    for Extracted {
        extraction,
        structures,
        cache,
        mut charge,
    } in extracted
    {
        let Some(site) = &config.boilerplate else {
            out.push(Cleaned {
                extraction,
                structures,
                removed: None,
                cache,
                charge,
            });
            continue;
        };
        // Per distinct input, by its first page's host and skeleton: a page
        // mirrored a thousand times must not make its own text boilerplate.
        let started = clock.start();
        let first = |p: &u32| &corpus.pages[*p as usize];
        let urls: Vec<Option<&str>> = inputs
            .first
            .iter()
            .map(|p| first(p).url.as_deref())
            .collect();
        let ids: Vec<&str> = inputs.first.iter().map(|p| first(p).id.as_str()).collect();
        // Each structure has one holder yet, so it is taken, not copied.
        let mut owned: Vec<DocumentStructure> =
            structures.into_iter().map(Arc::unwrap_or_clone).collect();
        let removed = remove_site_boilerplate(&ids, &urls, &mut owned, site);
        let structures = owned.into_iter().map(Arc::new).collect();
        clock.stop(
            started,
            Stage::DecodeExtract,
            &format!("{} site boilerplate", extraction.name()),
        );
        let r = clock.records.last().expect("just recorded");
        charge.wall_seconds += r.wall_seconds;
        charge.cpu_seconds += r.cpu_seconds;
        out.push(Cleaned {
            extraction,
            structures,
            removed: Some(removed),
            cache,
            charge,
        });
    }
    out
}

/// Per slot, whether its text is empty once trimmed (0) or else its
/// length in characters.
fn text_lengths(structures: &[Arc<DocumentStructure>]) -> Vec<usize> {
    structures
        .par_iter()
        .map(|s| {
            let text = s.text();
            match text.trim().is_empty() {
                true => 0,
                false => text.chars().count(),
            }
        })
        .collect()
}

/// The truth, with the pages' text lengths for the retention rule.
fn page_truth(
    pages: &[Page],
    inputs: &DistinctInputs,
    structures: &[Arc<DocumentStructure>],
) -> Truth {
    let text_len: Vec<usize> = structures
        .par_iter()
        .map(|s| s.text().chars().count())
        .collect();
    let text_len: Vec<usize> = inputs.slot.iter().map(|&s| text_len[s as usize]).collect();
    Truth::new(pages, &text_len)
}

/// The documents of one extraction, tokenised as the experiment
/// tokenises, and the corpus's truth: what `neardup train` fits on. The
/// extraction cache is in `cache` (none: off).
pub fn documents(
    config: &ExperimentConfig,
    corpus: &Corpus,
    extraction: Extraction,
    cache: Option<&Path>,
) -> (Vec<Document>, Truth) {
    let mut clock = StageClock::new(corpus.len(), corpus.content_bytes());
    let inputs = DistinctInputs::new(&corpus.pages);
    let structures = extract_cleaned(config, corpus, &inputs, &[extraction], cache, &mut clock)
        .pop()
        .map(|c| c.structures)
        .unwrap_or_default();
    let truth = page_truth(&corpus.pages, &inputs, &structures);
    let (docs, _) = tokenize_documents(
        &corpus.pages,
        &inputs,
        &structures,
        &config.tokenizer,
        extraction.name(),
        &mut clock,
    );
    (docs, truth)
}

/// Pages with identical input (content, title and language) share one
/// slot: each slot is decoded, extracted and tokenised once, since crawls
/// hold mirrors and error pages by the thousand.
struct DistinctInputs {
    /// Each page's slot.
    slot: Vec<u32>,
    /// Each slot's first page.
    first: Vec<u32>,
}

impl DistinctInputs {
    fn new(pages: &[Page]) -> Self {
        let keys: Vec<u128> = pages
            .par_iter()
            .map(|p| {
                crate::algo::hash_key(|h| {
                    extract::cache::hash_input(h, p);
                    h.update(p.lang.as_ref().map_or("", |l| l.code()).as_bytes());
                })
            })
            .collect();
        let mut slots: HashMap<u128, u32> = HashMap::new();
        let mut first = Vec::new();
        let slot = keys
            .iter()
            .enumerate()
            .map(|(page, key)| {
                *slots.entry(*key).or_insert_with(|| {
                    first.push(page as u32);
                    first.len() as u32 - 1
                })
            })
            .collect();
        DistinctInputs { slot, first }
    }
}

/// One extraction's structures as the extraction stage made them.
struct Extracted {
    extraction: Extraction,
    /// Per slot.
    structures: Vec<Arc<DocumentStructure>>,
    cache: Option<CacheReport>,
    /// What the stage charges this extraction: the work it shares with the
    /// others made in the same pass and its own, what it would have cost
    /// alone.
    charge: EndToEnd,
}

/// Decode and extract each distinct input once for all `extractions`,
/// timed as one stage: a page is parsed once, and each extraction made
/// from that one parse. The structures (title, subtitles, sentences) the
/// semantic method reads, per extraction and slot. With the extraction
/// cache on, each extraction's structures come from its own file when it
/// has them (the stage is then timed as `extract (cache)` if every one
/// did), a page is parsed only for the extractions its files miss, and
/// what was extracted goes back into each file.
fn extract_structures(
    corpus: &Corpus,
    inputs: &DistinctInputs,
    extractions: &[Extraction],
    cache: Option<&Path>,
    clock: &mut StageClock,
) -> Vec<Extracted> {
    let pages = &corpus.pages;
    let n = extractions.len();
    let names = extractions
        .iter()
        .map(|e| e.name())
        .collect::<Vec<_>>()
        .join(", ");
    let ticker = clock.begin(
        &format!("{} [{names}]", crate::util::stage::EXTRACT_WORK),
        inputs.first.len() as u64,
    );
    let started = clock.start();
    let OpenedCaches {
        outside,
        keys,
        caches,
    } = open_caches(corpus, inputs, extractions, cache, clock);
    let pass = clock.start();
    let made: Vec<Slot> = inputs
        .first
        .par_iter()
        .enumerate()
        .map(|(slot, &p)| {
            let cached = |i: usize| match (&caches, &keys) {
                (Some(caches), Some(keys)) => caches[i].0.get(keys[slot]),
                _ => None,
            };
            extract_slot(&pages[p as usize], extractions, cached, &ticker)
        })
        .collect();
    let (pass_wall, pass_cpu) = pass.elapsed();
    let mut alone = vec![0.0; n];
    let mut measured = 0.0;
    let mut per_extraction: Vec<Vec<(Arc<DocumentStructure>, bool)>> =
        (0..n).map(|_| Vec::with_capacity(made.len())).collect();
    for (structures, page_alone, page_total) in made {
        for (i, s) in structures.into_iter().enumerate() {
            per_extraction[i].push(s);
            alone[i] += page_alone[i];
        }
        measured += page_total;
    }
    let mut out = Vec::with_capacity(n);
    let mut caches = caches.map(|c| c.into_iter());
    let mut all_hits = true;
    for (i, (structures, &extraction)) in per_extraction.into_iter().zip(extractions).enumerate() {
        let hits = structures.iter().filter(|s| s.1).count();
        all_hits &= hits > 0 && hits == structures.len();
        let structures: Vec<Arc<DocumentStructure>> = structures.into_iter().map(|s| s.0).collect();
        let lap = clock.start();
        let report = caches
            .as_mut()
            .and_then(Iterator::next)
            .zip(keys.as_ref())
            .map(|((cache, warning), keys)| write_cache(cache, warning, keys, &structures, hits));
        let (wall, cpu) = lap.elapsed();
        // The pages' pass is shared out by what each extraction took of it
        // on the workers.
        let part = if measured > 0.0 {
            alone[i] / measured
        } else {
            1.0 / n as f64
        };
        out.push(Extracted {
            extraction,
            structures,
            cache: report,
            charge: EndToEnd {
                wall_seconds: outside[i].0 + wall + pass_wall * part,
                cpu_seconds: outside[i].1 + cpu + pass_cpu * part,
            },
        });
    }
    let stage = if all_hits {
        Stage::ExtractCache
    } else {
        Stage::DecodeExtract
    };
    record_extraction(clock, started, stage, &names, &mut out);
    out
}

/// The extraction cache's files for one pass, when the cache is on.
struct OpenedCaches {
    /// Per extraction, the (wall, CPU) seconds spent outside the pages'
    /// pass: the keys are every extraction's, each file's reading and
    /// writing its extraction's own.
    outside: Vec<(f64, f64)>,
    /// Per slot, its key in the files.
    keys: Option<Vec<u128>>,
    /// Per extraction, its file and any warning from reading it.
    caches: Option<Vec<(ExtractCache, Option<String>)>>,
}

fn open_caches(
    corpus: &Corpus,
    inputs: &DistinctInputs,
    extractions: &[Extraction],
    cache: Option<&Path>,
    clock: &mut StageClock,
) -> OpenedCaches {
    let pages = &corpus.pages;
    // Work outside the pages' pass is timed whole.
    let mut outside = vec![(0.0, 0.0); extractions.len()];
    let mut keys = None;
    let caches = cache.map(|dir| {
        let lap = clock.start();
        keys = Some(
            inputs
                .first
                .par_iter()
                .map(|&p| extract::cache::page_key(&pages[p as usize]))
                .collect::<Vec<u128>>(),
        );
        let (wall, cpu) = lap.elapsed();
        outside.fill((wall, cpu));
        extractions
            .iter()
            .zip(&mut outside)
            .map(|(&extraction, o)| {
                let lap = clock.start();
                let path = extract::cache::file_for(dir, &corpus.source, extraction);
                let opened = ExtractCache::open(path, extraction);
                let (wall, cpu) = lap.elapsed();
                *o = (o.0 + wall, o.1 + cpu);
                opened
            })
            .collect()
    });
    OpenedCaches {
        outside,
        keys,
        caches,
    }
}

/// Per slot: each extraction's structure and whether the cache had it,
/// the thread CPU seconds each would have taken alone on this page (its
/// cache read, or the shared parse and its own part), and in all.
type Slot = (Vec<(Arc<DocumentStructure>, bool)>, Vec<f64>, f64);

/// Every extraction of one page: from the cache (`cached(i)` for
/// extraction i) where it has them, else from one parse for all the
/// missing ones.
#[inline]
fn extract_slot(
    page: &Page,
    extractions: &[Extraction],
    cached: impl Fn(usize) -> Option<DocumentStructure>,
    ticker: &Ticker,
) -> Slot {
    use crate::util::stage::thread_cpu_seconds;
    let n = extractions.len();
    let begun = thread_cpu_seconds();
    let mut last = begun;
    let mut alone = vec![0.0; n];
    let mut found: Vec<Option<DocumentStructure>> = (0..n)
        .map(|i| {
            let hit = cached(i);
            let now = thread_cpu_seconds();
            alone[i] += now - last;
            last = now;
            hit
        })
        .collect();
    let hit: Vec<bool> = found.iter().map(Option::is_some).collect();
    let missing: Vec<usize> = (0..n).filter(|&i| !hit[i]).collect();
    if !missing.is_empty() {
        let wanted: Vec<Extraction> = missing.iter().map(|&i| extractions[i]).collect();
        let mut shared = 0.0;
        let mut mark = |m: extract::Mark| {
            let now = thread_cpu_seconds();
            match m {
                extract::Mark::Shared => shared += now - last,
                extract::Mark::Own(j) => alone[missing[j]] += now - last,
            }
            last = now;
        };
        let extracted = extract::extract_page_marked(page, &wanted, &mut mark);
        for &i in &missing {
            alone[i] += shared;
        }
        for (&i, page) in missing.iter().zip(extracted) {
            found[i] = Some(page.structure);
        }
    }
    ticker.tick(1);
    let structures = found
        .into_iter()
        .zip(hit)
        .map(|(s, hit)| (Arc::new(s.unwrap_or_default()), hit))
        .collect();
    (structures, alone, last - begun)
}

/// Writes an extraction's structures back to its cache file when it
/// missed any, and reports what the file gave.
fn write_cache(
    cache: ExtractCache,
    mut warning: Option<String>,
    keys: &[u128],
    structures: &[Arc<DocumentStructure>],
    hits: usize,
) -> CacheReport {
    let misses = structures.len() - hits;
    // Rewritten when anything was extracted, or when pages left the
    // corpus (the file holds this corpus's pages only).
    let distinct = keys.iter().collect::<std::collections::HashSet<_>>().len();
    if misses > 0 || cache.len() != distinct {
        let entries = keys.iter().copied().zip(structures.iter().map(|s| &**s));
        if let Err(e) = cache.write(entries) {
            warning.get_or_insert(format!("not written: {e}"));
        }
    }
    CacheReport {
        path: cache.path().to_path_buf(),
        hits,
        misses,
        warning,
    }
}

/// Records the extraction stage: one extraction is charged the whole
/// stage, several share it by what each was charged.
fn record_extraction(
    clock: &mut StageClock,
    started: Started,
    stage: Stage,
    names: &str,
    out: &mut [Extracted],
) {
    if out.len() == 1 {
        clock.stop(started, stage, names);
        let r = clock.records.last().expect("just recorded");
        out[0].charge = EndToEnd {
            wall_seconds: r.wall_seconds,
            cpu_seconds: r.cpu_seconds,
        };
    } else {
        let shares = out
            .iter()
            .map(|e| {
                (
                    e.extraction.name().to_string(),
                    e.charge.wall_seconds,
                    e.charge.cpu_seconds,
                )
            })
            .collect();
        clock.stop_shared(started, stage, names, shares);
    }
}

/// Documents of one tokenizer, shared by the algorithms reading it.
struct TokenizedGroup {
    tokenizer: TokenizerConfig,
    docs: Vec<Document>,
    /// The tokenising stage's record, for end-to-end times: `None` when
    /// no algorithm on them reads tokens and none were made.
    record: Option<usize>,
    vocab: Arc<Vocab>,
}

/// Tokenise each distinct text once, timed under `label`: one document per
/// page, sharing its slot's tokens and structure, and the tokens'
/// vocabulary.
fn tokenize_documents(
    pages: &[Page],
    inputs: &DistinctInputs,
    structures: &[Arc<DocumentStructure>],
    tokenizer: &TokenizerConfig,
    label: &str,
    clock: &mut StageClock,
) -> (Vec<Document>, Arc<Vocab>) {
    let ticker = clock.begin(&format!("tokenize [{label}]"), inputs.first.len() as u64);
    let started = clock.start();
    // Texts are not kept with the tokens: an algorithm reading characters
    // makes them again from the structure.
    let (tokens, vocab) = tokenize_many(inputs.first.len(), tokenizer, false, |slot| {
        let p = inputs.first[slot] as usize;
        ticker.tick(1);
        (structures[slot].text().to_string(), pages[p].lang)
    });
    let distinct: Vec<(Arc<Tokens>, Lang)> = tokens
        .into_iter()
        .map(|(tokens, lang)| (Arc::new(tokens), lang))
        .collect();
    let docs = page_documents(pages, inputs, structures, &distinct);
    clock.stop(started, Stage::Tokenize, label);
    (docs, vocab)
}

/// Documents without tokens, for algorithms that tokenise each page's
/// text as they sign it ([`crate::algo::Detector::sign_from_text`]): each
/// page's structure and language (decided by script as tokenising would,
/// when the corpus does not say).
fn untokenized_documents(
    pages: &[Page],
    inputs: &DistinctInputs,
    structures: &[Arc<DocumentStructure>],
) -> Vec<Document> {
    let empty = Arc::new(Tokens::default());
    let distinct: Vec<(Arc<Tokens>, Lang)> = inputs
        .first
        .par_iter()
        .enumerate()
        .map(|(slot, &p)| {
            let lang = pages[p as usize]
                .lang
                .unwrap_or_else(|| detect_lang(structures[slot].text()));
            (empty.clone(), lang)
        })
        .collect();
    page_documents(pages, inputs, structures, &distinct)
}

/// One document per page from its slot's tokens, language and structure.
fn page_documents(
    pages: &[Page],
    inputs: &DistinctInputs,
    structures: &[Arc<DocumentStructure>],
    distinct: &[(Arc<Tokens>, Lang)],
) -> Vec<Document> {
    inputs
        .slot
        .iter()
        .enumerate()
        .map(|(page, &s)| {
            let (tokens, lang) = &distinct[s as usize];
            Document {
                page: page as u32,
                lang: *lang,
                tokens: tokens.clone(),
                structure: Some(structures[s as usize].clone()),
                host: pages[page]
                    .url
                    .as_deref()
                    .and_then(crate::algo::learned::host_of),
            }
        })
        .collect()
}

fn run_algorithm(
    prepared: PreparedAlgorithm,
    pair_budget: usize,
    extraction: Extraction,
    variant: &str,
    docs: &[Document],
    truth: &Truth,
    clock: &mut StageClock,
) -> AlgorithmResult {
    let mut algorithm = prepared.algorithm;
    let mut run = algorithm.run_within(docs, variant, clock, pair_budget);
    let mut unsigned_by_slice = vec![0u64; truth.slice_names.len()];
    for &page in &run.unsigned {
        unsigned_by_slice[truth.slice[page as usize] as usize] += 1;
    }
    let mut candidate_stage =
        grouped_pair_recall(truth, run.candidate_pairs.iter().copied(), &run.groups);
    add_counts(
        &mut candidate_stage,
        sampled_counts(truth, &run.sampled, None),
    );
    run.compact_candidates();
    let started = clock.start();
    let mut candidates = stored_recall(truth, &run.pairs, &run.groups, &run.scale);
    add_counts(
        &mut candidates,
        sampled_counts(truth, &run.sampled, Some(&run.scale)),
    );
    let mut result = AlgorithmResult {
        entry: prepared.entry,
        extraction,
        fitted: None,
        candidates,
        candidate_stage,
        unsigned_by_slice,
        end_to_end: EndToEnd::default(),
        threshold: prepared.threshold,
        clustering: prepared.clustering,
        evaluations: Vec::new(),
        run: Arc::new(run),
        curves: Arc::default(),
    };
    // The method in use is evaluated now, the others when first asked.
    result.evaluations = grid_evaluations(&result, truth, &prepared.grid);
    let run = &result.run;
    clock.stop(
        started,
        Stage::Evaluate,
        &format!("{} [{variant}]", run.label),
    );
    if run.name == "learned" {
        result.fitted = Some(FittedAlgorithm(Arc::from(algorithm)));
    }
    result
}

/// The evaluations at the grid's thresholds: read from the curve where
/// it has them, evaluated where the grid goes past the floor.
fn grid_evaluations(result: &AlgorithmResult, truth: &Truth, grid: &[f64]) -> Vec<Evaluation> {
    let curve = result.curve_of(truth, result.clustering);
    let on_curve = |t: f64| curve.iter().find(|e| e.threshold == t);
    let off_curve: Vec<f64> = grid
        .iter()
        .copied()
        .filter(|&t| on_curve(t).is_none())
        .collect();
    let run = &result.run;
    let off = match off_curve.is_empty() {
        true => Vec::new(),
        false => run_curve(
            truth,
            run,
            &run.gate_thresholds(),
            result.clustering,
            &off_curve,
        ),
    };
    grid.iter()
        .map(|&t| {
            on_curve(t)
                .or_else(|| off.iter().find(|e| e.threshold == t))
                .expect("every grid threshold is evaluated")
                .clone()
        })
        .collect()
}

/// Adds the detected and correct pairs of `more` (its `actual` aside: the
/// same true pairs) to `counts`.
fn add_counts(counts: &mut Counts, more: Counts) {
    counts.detected += more.detected;
    counts.correct += more.correct;
}
