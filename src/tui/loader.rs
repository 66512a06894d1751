//! The background worker: reads the experiment and its corpus, runs every
//! algorithm and prepares the tuning state, telling the UI of each stage
//! over a channel so that the UI never waits on it.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread;

use super::workbench::{Source, Tuning, Workbench};
use crate::corpus::{demo, ReadCounter};
use crate::experiment::{
    AlgorithmResult, CacheSetting, Experiment, ExperimentConfig, ExperimentResult, PrepareOptions,
    RunOutput, Watchers,
};
use crate::util::stage::{Progress, ProgressSink, StageRecord};

/// What the worker tells the UI.
#[derive(Debug)]
pub enum LoadEvent {
    /// The experiment is read: this many algorithm runs (extractions x
    /// algorithms) will follow, on a corpus of this many pages, after
    /// decoding and tokenising it for this many extractions.
    Planned {
        runs: usize,
        pages: usize,
        extractions: usize,
    },
    /// A stage began: `total` items (pages or pairs; 0 when not known in
    /// advance), counted in `done` by the workers as they go.
    Work {
        what: String,
        total: u64,
        done: Arc<AtomicU64>,
    },
    /// The corpus file is being read: `counter` counts its bytes (of
    /// `total_bytes`, 0 when not known) and pages so far.
    Reading {
        total_bytes: u64,
        counter: Arc<ReadCounter>,
    },
    /// A stage finished.
    Stage(StageRecord),
    /// The corpus is read and its truth known: the workbench, its runs
    /// pending; they follow one by one as [`LoadEvent::Finished`].
    Ready(Box<Workbench>),
    /// One algorithm run finished, with its tuning state.
    Finished(Box<(AlgorithmResult, Tuning)>),
    /// Every run finished: the run's totals (times, cache reports), its
    /// algorithm runs already sent.
    Complete(Box<ExperimentResult>),
    /// Everything is ready at once (pairs computed elsewhere).
    Done(Box<Workbench>),
    /// Reading or running failed; the message names file, line and field.
    Failed(String),
}

/// The work inside stages, for the loading screen's gauge: the workers
/// add to one counter, which the UI reads as it draws.
struct Gauge {
    events: Mutex<Sender<LoadEvent>>,
    done: Arc<AtomicU64>,
}

impl ProgressSink for Gauge {
    fn begin(&self, what: &str, total: u64) {
        self.done.store(0, Ordering::Relaxed);
        if let Ok(events) = self.events.lock() {
            let _ = events.send(LoadEvent::Work {
                what: what.to_string(),
                total,
                done: self.done.clone(),
            });
        }
    }

    fn advance(&self, n: u64) {
        self.done.fetch_add(n, Ordering::Relaxed);
    }

    fn finish(&self) {}
}

/// Every algorithm at its defaults, for `neardup tui --corpus PATH`.
fn default_experiment(corpus: &Path) -> String {
    format!(
        "corpus: {}\nalgorithms:\n  - type: exact\n  - type: simhash\n  - type: minhash\n  \
         - type: imatch\n  - type: semantic\n",
        serde_json::to_string(&corpus.display().to_string()).expect("a string serialises")
    )
}

/// The experiment's YAML text and the path it is read relative to.
pub fn experiment_text(source: &Source) -> Result<(String, std::path::PathBuf), String> {
    match source {
        Source::Demo => Ok((
            demo::DEMO_EXPERIMENT.to_string(),
            demo::DEMO_EXPERIMENT_NAME.into(),
        )),
        Source::Experiment(path) => std::fs::read_to_string(path)
            .map(|text| (text, path.clone()))
            .map_err(|e| format!("{}: {e}", path.display())),
        Source::Corpus(path) => {
            // The corpus path is absolute or relative to the working
            // directory; the generated experiment lives there too.
            let base = std::env::current_dir()
                .unwrap_or_default()
                .join("experiment.yaml");
            Ok((default_experiment(path), base))
        }
        Source::External { .. } => Err(NO_EXPERIMENT.into()),
    }
}

/// Why `s` writes nothing for pairs computed elsewhere.
pub const NO_EXPERIMENT: &str =
    "pairs computed elsewhere have no experiment to write the thresholds to (e exports the charts)";

/// Pairs computed elsewhere, scored as `neardup evaluate` scores them. The
/// experiment made of their settings lets the inspector say why a pair
/// was a candidate or not.
fn load_external(
    source: &Source,
    corpus_path: &Path,
    pairs: &[std::path::PathBuf],
    clusters: &[std::path::PathBuf],
    skip_bad_pairs: bool,
    events: &Sender<LoadEvent>,
) -> Result<Workbench, String> {
    use crate::dist::external::{evaluate_external, read_inputs};
    let (corpus, inputs) =
        read_inputs(corpus_path, pairs, clusters, skip_bad_pairs).map_err(|e| e.to_string())?;
    let _ = events.send(LoadEvent::Planned {
        runs: inputs.len(),
        pages: corpus.len(),
        extractions: 0,
    });
    let result = evaluate_external("external", &corpus, &inputs).map_err(|e| e.to_string())?;
    for record in &result.throughput {
        let _ = events.send(LoadEvent::Stage(record.clone()));
    }
    let settings = |i: &crate::dist::external::ExternalInput| i.pairs.settings.clone();
    let config = ExperimentConfig {
        name: Some(result.name.clone()),
        corpus: corpus_path.display().to_string(),
        extract: result
            .empty_after_extraction
            .iter()
            .map(|(e, _)| *e)
            .collect(),
        tokenizer: inputs
            .first()
            .and_then(|i| serde_json::from_value(settings(i)["tokenizer"].clone()).ok())
            .unwrap_or_default(),
        algorithms: inputs
            .iter()
            .filter_map(|i| serde_json::from_value(settings(i)["config"].clone()).ok())
            .map(|c: crate::experiment::config::AlgorithmConfig| c.into())
            .collect(),
        paper: None,
        build: None,
        seeds: None,
        tuned: None,
        pair_budget_mb: None,
        boilerplate: None,
        judged: None,
        clustering: None,
    };
    Ok(Workbench::new(
        source.clone(),
        config,
        Arc::new(corpus),
        result,
    ))
}

fn load(source: &Source, events: &Sender<LoadEvent>) -> Result<(), String> {
    if let Source::External {
        corpus,
        pairs,
        clusters,
        skip_bad_pairs,
    } = source
    {
        let bench = load_external(source, corpus, pairs, clusters, *skip_bad_pairs, events)?;
        let _ = events.send(LoadEvent::Done(Box::new(bench)));
        return Ok(());
    }
    let (text, path) = experiment_text(source)?;
    let experiment = Experiment::parse(&text, &path).map_err(|e| e.to_string())?;
    let name = experiment.name();
    // The gauge counts the file's bytes: pages are known only once read.
    let counter = Arc::new(ReadCounter::default());
    let total_bytes = experiment
        .config()
        .corpus_path(&path)
        .and_then(|p| std::fs::metadata(p).ok())
        .filter(|m| m.is_file())
        .map_or(0, |m| m.len());
    let _ = events.send(LoadEvent::Reading {
        total_bytes,
        counter: counter.clone(),
    });
    let gauge = Arc::new(Gauge {
        events: Mutex::new(events.clone()),
        done: Arc::new(AtomicU64::new(0)),
    });
    // Judged pairs are read before the run, so that a bad pairs file fails
    // at once, naming its line and field; the gauge is told of reading a
    // reference collection (an I-Match lexicon's), which takes a while.
    let options = PrepareOptions {
        cache: CacheSetting::ProcessDefault,
        build_missing: false,
        read_counter: Some(counter),
        progress: Some(Progress(gauge.clone())),
    };
    let prepared = experiment.prepare(options).map_err(|e| e.to_string())?;
    let config = prepared.run_config().clone();
    let judged = prepared.judged().cloned();
    // Held here, the corpus keeps its pages' content for the inspector.
    let corpus = prepared.corpus().clone();
    let _ = events.send(LoadEvent::Planned {
        runs: config.runs(),
        pages: corpus.len(),
        extractions: config.extractions().len(),
    });
    let (stages, stage_events) = channel::<StageRecord>();
    let forward = {
        let events = events.clone();
        thread::spawn(move || {
            for record in stage_events {
                let _ = events.send(LoadEvent::Stage(record));
            }
        })
    };
    // Each finished run's threshold curve is built here while the runner
    // goes on with the next algorithm, and the run goes to the UI at once.
    let (outputs, run_outputs) = channel::<RunOutput>();
    let tuner = {
        let events = events.clone();
        let (source, config, corpus, judged) = (
            source.clone(),
            config.clone(),
            corpus.clone(),
            judged.clone(),
        );
        let name = name.clone();
        thread::spawn(move || {
            let mut truth = None;
            for output in run_outputs {
                match output {
                    RunOutput::Truth(t) => {
                        let bench = Workbench::started(
                            source.clone(),
                            config.clone(),
                            corpus.clone(),
                            &name,
                            t.clone(),
                            judged.clone(),
                        );
                        truth = Some(t);
                        if events.send(LoadEvent::Ready(Box::new(bench))).is_err() {
                            // The UI reloaded or quit: hanging up stops the runner.
                            break;
                        }
                    }
                    RunOutput::Algorithm(result) => {
                        let Some(truth) = &truth else { continue };
                        let mut tuning = Tuning::new(&result, truth);
                        if let Some(judged) = &judged {
                            tuning.judge(judged.clone(), &result);
                        }
                        if events
                            .send(LoadEvent::Finished(Box::new((*result, tuning))))
                            .is_err()
                        {
                            break;
                        }
                    }
                }
            }
            truth.is_some()
        })
    };
    let watchers = Watchers {
        stages: Some(stages),
        progress: Some(Progress(gauge.clone())),
        results: Some(outputs),
    };
    let result = prepared.run(watchers).into_result();
    let _ = forward.join();
    let started = tuner
        .join()
        .map_err(|_| "internal error while building the threshold curves".to_string())?;
    let _ = events.send(if started {
        LoadEvent::Complete(Box::new(result))
    } else {
        // No extraction ran (no algorithm reads any): nothing came before.
        let mut bench = Workbench::new(source.clone(), config, corpus, result);
        bench.judged = judged;
        LoadEvent::Done(Box::new(bench))
    });
    Ok(())
}

/// Starts the worker; its events arrive on the returned channel.
pub fn spawn(source: Source) -> Receiver<LoadEvent> {
    let (events, receiver) = channel();
    thread::spawn(move || {
        let outcome =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| load(&source, &events)));
        let failure = match outcome {
            Ok(Ok(())) => return,
            Ok(Err(message)) => message,
            Err(_) => "internal error while running the experiment".into(),
        };
        let _ = events.send(LoadEvent::Failed(failure));
    });
    receiver
}

/// Loads in this thread, for tests and benchmarks.
pub fn load_now(source: &Source) -> Result<Workbench, String> {
    let (events, receiver) = channel();
    load(source, &events)?;
    drop(events);
    let mut bench = None;
    for event in receiver {
        match event {
            LoadEvent::Ready(b) | LoadEvent::Done(b) => bench = Some(*b),
            LoadEvent::Finished(run) => {
                let (result, tuning) = *run;
                if let Some(b) = &mut bench {
                    b.push_run(result, tuning);
                }
            }
            LoadEvent::Complete(result) => {
                if let Some(b) = &mut bench {
                    b.complete(*result);
                }
            }
            _ => {}
        }
    }
    bench.ok_or_else(|| "the worker made no workbench".to_string())
}
