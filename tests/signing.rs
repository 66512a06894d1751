//! SimHash alone on its tokens signs each page straight from its text (no
//! vocabulary is made); beside an algorithm reading the same tokens it
//! signs the shared tokens. Both ways give the same run.

use std::path::Path;

use neardup::experiment::{run_experiment, ExperimentConfig, ExperimentResult};
use neardup::util::stage::Stage;

fn demo_run(algorithms: &str) -> ExperimentResult {
    let text = format!("name: signing\ncorpus: demo\nalgorithms:\n{algorithms}");
    let config = ExperimentConfig::parse(Path::new("signing.yaml"), &text).unwrap();
    let corpus = neardup::corpus::demo::demo_corpus().unwrap();
    run_experiment("signing", &config, &corpus, &Vec::new())
}

fn tokenized(result: &ExperimentResult) -> bool {
    result.throughput.iter().any(|r| r.stage == Stage::Tokenize)
}

#[test]
fn simhash_alone_signs_from_text_as_it_would_from_shared_tokens() {
    let simhash = "  - type: simhash\n    threshold: 3\n";
    let beside = "  - type: jaccard\n    width: 3\n    threshold: 0.5\n";
    let alone = demo_run(simhash);
    let shared = demo_run(&format!("{simhash}{beside}"));
    assert!(!tokenized(&alone), "SimHash alone made tokens");
    assert!(tokenized(&shared), "tokens not made for the Jaccard run");
    let (a, b) = (&alone.algorithms[0], &shared.algorithms[0]);
    assert_eq!(a.run.label, b.run.label);
    assert!(!a.run.pairs.is_empty());
    assert_eq!(a.run.pairs, b.run.pairs);
    assert_eq!(a.evaluations, b.evaluations);
    assert_eq!(a.unsigned_by_slice, b.unsigned_by_slice);

    // Two SimHash set-ups on the same tokens share them rather than each
    // tokenising the text again (two entries must print two labels).
    let twice = demo_run(&format!(
        "{simhash}  - type: simhash\n    bits: 128\n    candidates: all_pairs\n    threshold: 5\n"
    ));
    assert!(tokenized(&twice));
    assert_eq!(twice.algorithms[0].run.pairs, a.run.pairs);
    // IDF weights read the collection's tokens.
    let idf = demo_run("  - type: simhash\n    weights: tf_idf\n    threshold: 3\n");
    assert!(tokenized(&idf));
}
