//! The background worker: reads the experiment and its corpus, runs every
//! algorithm and prepares the tuning state, telling the UI of each stage
//! over a channel so that the UI never waits on it.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread;

use super::workbench::{Source, Workbench};
use crate::corpus::demo;
use crate::eval::judged::JudgedTruth;
use crate::eval::throughput::{Progress, ProgressSink, StageRecord};
use crate::experiment::{self, ExperimentConfig};

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
    /// A stage finished.
    Stage(StageRecord),
    /// Everything is ready.
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
pub fn default_experiment(corpus: &Path) -> String {
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
    events: &Sender<LoadEvent>,
) -> Result<Workbench, String> {
    use crate::dist::external::{evaluate_external, read_inputs};
    let (corpus, inputs) = read_inputs(corpus_path, pairs, clusters).map_err(|e| e.to_string())?;
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
    };
    Ok(Workbench::new(
        source.clone(),
        config,
        Arc::new(corpus),
        result,
    ))
}

fn load(source: &Source, events: &Sender<LoadEvent>) -> Result<Workbench, String> {
    if let Source::External {
        corpus,
        pairs,
        clusters,
    } = source
    {
        return load_external(source, corpus, pairs, clusters, events);
    }
    let (text, path) = experiment_text(source)?;
    let config = ExperimentConfig::parse(&path, &text).map_err(|e| e.to_string())?;
    let name = experiment::experiment_name(&config, &path);
    let corpus = experiment::load_corpus(&config, &path).map_err(|e| e.to_string())?;
    let references = experiment::load_references(&config, &path).map_err(|e| e.to_string())?;
    // Judged pairs are read before the run, so that a bad pairs file fails
    // at once, naming its line and field.
    let judged = match &config.judged {
        Some(spec) => {
            let ids: Vec<String> = corpus.pages.iter().map(|p| p.id.clone()).collect();
            Some(
                JudgedTruth::read(&spec.path(&path), &ids, spec.positive_from)
                    .map_err(|e| e.to_string())?,
            )
        }
        None => None,
    };
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
    let gauge = Arc::new(Gauge {
        events: Mutex::new(events.clone()),
        done: Arc::new(AtomicU64::new(0)),
    });
    let watchers = experiment::Watchers {
        stages: Some(stages),
        progress: Some(Progress(gauge.clone())),
    };
    let result =
        experiment::run_experiment_observed(&name, &config, &corpus, &references, watchers);
    let _ = forward.join();
    gauge.begin("threshold curves", result.algorithms.len() as u64);
    let bench = Workbench::observed(source.clone(), config, Arc::new(corpus), result, &|| {
        gauge.advance(1)
    });
    Ok(match judged {
        Some(truth) => bench.with_judged(truth),
        None => bench,
    })
}

/// Starts the worker; its events arrive on the returned channel.
pub fn spawn(source: Source) -> Receiver<LoadEvent> {
    let (events, receiver) = channel();
    thread::spawn(move || {
        let outcome =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| load(&source, &events)));
        let event = match outcome {
            Ok(Ok(workbench)) => LoadEvent::Done(Box::new(workbench)),
            Ok(Err(message)) => LoadEvent::Failed(message),
            Err(_) => LoadEvent::Failed("internal error while running the experiment".into()),
        };
        let _ = events.send(event);
    });
    receiver
}

/// Loads in this thread, for tests and benchmarks.
pub fn load_now(source: &Source) -> Result<Workbench, String> {
    let (events, _receiver) = channel();
    load(source, &events)
}
