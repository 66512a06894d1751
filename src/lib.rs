//! neardup: a workbench for evaluating near-duplicate web page detection.
//!
//! The rooms follow the pipeline (seed 000, section 2). Each may use the
//! rooms below it and none above (`tests/layers.rs` checks it; the picture
//! is in `docs/architecture.md`), lowest first:
//!
//! 1. [`util`]: the floor: file errors, YAML reading, the stage clock,
//!    progress, one union-find, one seeded generator, number text.
//! 2. [`text`]: languages, normalisation, tokens, shingles, the thesaurus.
//! 3. [`extract`]: a page decoded, parsed and its main text extracted.
//! 4. [`corpus`]: labelled pages read, written, built and imported.
//! 5. [`algo`]: signatures, candidate pairs and scores, one module per
//!    algorithm behind one trait.
//! 6. [`eval`]: judgments scored against the labels.
//! 7. [`experiment`]: a YAML file wired into runs, and the run files.
//! 8. [`report`]: charts and report.md drawn from stored runs.
//! 9. [`index`], [`dist`], [`bench`]: the persistent index, the cluster
//!    job's inputs and outputs, and the benchmarks.
//! 10. [`tui`]: the workbench, a view over results.
//! 11. [`cli`]: one file per subcommand.
//!
//! Every front end reaches runs through one door,
//! [`experiment::Experiment`]: open an experiment (a file or a value),
//! prepare it (the corpus, reference corpora and judged pairs read once;
//! the extraction cache a setting), run it, and ask the [`experiment::Run`]
//! what it found:
//!
//! ```
//! use neardup::eval::choose::Objective;
//! use neardup::experiment::{CacheSetting, Experiment, PrepareOptions, Watchers};
//!
//! let options = PrepareOptions {
//!     cache: CacheSetting::Off,
//!     ..PrepareOptions::default()
//! };
//! let run = Experiment::demo()?.prepare(options)?.run(Watchers::default());
//! let best = run.best(0, Objective::PairwiseF1).expect("the demo has pairs");
//! println!("{}: best F1 {:.3}", run.algorithms()[0].run.label, best.pairwise.overall.f1());
//! assert!(run.summary_table().contains("F1"));
//! # Ok::<(), neardup::experiment::ExperimentError>(())
//! ```

pub mod algo;
pub mod bench;
pub mod cli;
pub mod corpus;
pub mod dist;
pub mod eval;
pub mod experiment;
pub mod extract;
pub mod index;
pub mod report;
pub mod text;
pub mod tui;
pub mod util;
