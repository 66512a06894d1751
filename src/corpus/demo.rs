//! The embedded demo corpus and experiment, so that `neardup` runs with no
//! files at hand. Both are ordinary files in the repository
//! (`datasets/demo/`, `experiments/demo.yaml`) compiled into the binary.

use std::path::Path;

use super::{read_corpus_bytes, Corpus, CorpusError, Format, ReadOptions};

pub const DEMO_CORPUS_NAME: &str = "datasets/demo/demo.jsonl.gz";
const DEMO_CORPUS: &[u8] = include_bytes!("../../datasets/demo/demo.jsonl.gz");
pub const DEMO_EXPERIMENT_NAME: &str = "experiments/demo.yaml";
pub const DEMO_EXPERIMENT: &str = include_str!("../../experiments/demo.yaml");

pub fn demo_corpus() -> Result<Corpus, CorpusError> {
    let mut corpus = read_corpus_bytes(
        Path::new(DEMO_CORPUS_NAME),
        DEMO_CORPUS,
        Format::Jsonl,
        ReadOptions::default(),
    )?;
    corpus.source = format!("{DEMO_CORPUS_NAME} (embedded)");
    Ok(corpus)
}
