//! Several extractions from one parse give what each extraction gives on
//! its own, page for page, on real pages: the run makes `main` and
//! `full_text` together, and its results must not depend on it.

use std::path::Path;

use neardup::corpus::read_corpus;
use neardup::corpus::{Corpus, ReadOptions};
use neardup::extract::{extract_page, extract_page_as, Extraction};

const ORDERS: [&[Extraction]; 4] = [
    &[Extraction::Main, Extraction::FullText],
    &[Extraction::FullText, Extraction::Main],
    &[Extraction::FullText],
    &[Extraction::Main, Extraction::Main],
];

/// Every `step`th page of `corpus`; returns how many were compared.
fn check(name: &str, corpus: &Corpus, step: usize) -> usize {
    let mut compared = 0;
    for page in corpus.pages.iter().step_by(step) {
        let alone: Vec<_> = [Extraction::Main, Extraction::FullText]
            .map(|e| extract_page(page, e))
            .into();
        for order in ORDERS {
            let together = extract_page_as(page, order);
            assert_eq!(together.len(), order.len());
            for (e, got) in order.iter().zip(&together) {
                let want = &alone[(*e == Extraction::FullText) as usize];
                assert_eq!(got, want, "{name}: page {} as {}", page.id, e.name());
            }
        }
        compared += 1;
    }
    compared
}

fn read(path: &str) -> Option<Corpus> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    path.exists()
        .then(|| read_corpus(&path, ReadOptions::unlabelled()).expect("the corpus reads"))
}

#[test]
fn one_parse_gives_each_extraction_on_the_demo_corpus() {
    let corpus = neardup::corpus::demo::demo_corpus().unwrap();
    assert!(check("demo", &corpus, 1) > 100);
}

#[test]
fn one_parse_gives_each_extraction_on_the_shared_corpora() {
    // Raw bytes in several encodings (decoded once for both), and the
    // sogou samples' news pages.
    let mut compared = 0;
    for (path, step) in [
        ("../shared/corpora/debian_zh_html/html", 3),
        (
            "../shared/corpora/sogou_smarty_samples/sogou_smarty_samples.jsonl.gz",
            5,
        ),
        ("datasets/imported/fan2008.jsonl.gz", 37),
    ] {
        if let Some(corpus) = read(path) {
            compared += check(path, &corpus, step);
        }
    }
    assert!(compared > 0, "none of the corpora is present");
}

#[test]
fn text_pages_and_hostile_pages_too() {
    use neardup::corpus::{Content, Page};
    let pages = [
        Content::Text("Line one.\n\n  Line two.  \n".into()),
        Content::Html(String::new()),
        Content::Html("<p>unclosed <b>bold <i>text".into()),
        Content::HtmlBytes(vec![0xff, 0xfe, b'<', 0, b'p', 0]),
        Content::HtmlBytes(
            b"<meta charset=gbk><title>\xb1\xea\xcc\xe2</title><p>\xd5\xfd\xce\xc4</p>".to_vec(),
        ),
    ];
    for content in pages {
        let mut page = Page::new("p", "c", content);
        let corpus = Corpus {
            pages: vec![page.clone()],
            ..Corpus::default()
        };
        check("hostile", &corpus, 1);
        page.title = Some("Given title".into());
        assert!(
            extract_page_as(&page, &[Extraction::Main, Extraction::FullText])
                .iter()
                .all(|p| p.structure.title.as_deref() == Some("Given title"))
        );
    }
}

/// The demo experiment with `extract` set to `extractions` (and site
/// boilerplate removal when asked), run on the demo corpus.
fn demo_run(
    extractions: &[Extraction],
    boilerplate: bool,
) -> neardup::experiment::ExperimentResult {
    use neardup::experiment::{run_experiment, ExperimentConfig};
    let mut text = neardup::corpus::demo::DEMO_EXPERIMENT.to_string();
    if boilerplate {
        text.push_str("\nboilerplate: { by: site, group: both, share: 0.3, min_pages: 3 }\n");
    }
    let mut config = ExperimentConfig::parse(Path::new("experiments/demo.yaml"), &text).unwrap();
    config.extract = extractions.to_vec();
    let corpus = neardup::corpus::demo::demo_corpus().unwrap();
    run_experiment("demo", &config, &corpus, &Vec::new())
}

#[test]
fn a_run_of_two_extractions_equals_two_runs_of_one() {
    use neardup::util::stage::Stage;
    for boilerplate in [false, true] {
        let both = demo_run(&[Extraction::Main, Extraction::FullText], boilerplate);
        let alone: Vec<_> = [Extraction::Main, Extraction::FullText]
            .iter()
            .map(|&e| demo_run(&[e], boilerplate))
            .collect();
        let merged: Vec<_> = alone.iter().flat_map(|r| &r.algorithms).collect();
        assert_eq!(both.algorithms.len(), merged.len());
        assert!(both.algorithms.len() > 10);
        for (a, b) in both.algorithms.iter().zip(merged) {
            let what = format!("{} [{}]", a.run.label, a.extraction.name());
            assert_eq!(a.extraction, b.extraction, "{what}");
            assert_eq!(a.run.label, b.run.label, "{what}");
            assert_eq!(a.run.pairs, b.run.pairs, "{what}");
            assert_eq!(a.evaluations, b.evaluations, "{what}");
            assert_eq!(a.candidates, b.candidates, "{what}");
            assert_eq!(a.unsigned_by_slice, b.unsigned_by_slice, "{what}");
        }
        let concat = |f: &dyn Fn(&neardup::experiment::ExperimentResult) -> Vec<String>| {
            alone.iter().flat_map(f).collect::<Vec<_>>()
        };
        let empty = |r: &neardup::experiment::ExperimentResult| {
            r.empty_after_extraction
                .iter()
                .map(|(e, n)| format!("{} {n}", e.name()))
                .collect()
        };
        assert_eq!(empty(&both), concat(&empty));
        let removed = |r: &neardup::experiment::ExperimentResult| {
            r.boilerplate
                .iter()
                .map(|(e, groups)| format!("{} {groups:?}", e.name()))
                .collect()
        };
        assert_eq!(removed(&both), concat(&removed));
        assert_eq!(both.boilerplate.len(), if boilerplate { 2 } else { 0 });
        // One stage made both, and charged each its share of it.
        let extract: Vec<_> = both
            .throughput
            .iter()
            .filter(|r| r.stage == Stage::DecodeExtract && !r.algorithm.contains("boilerplate"))
            .collect();
        assert_eq!(extract.len(), 1);
        assert_eq!(extract[0].algorithm, "main, full_text");
        let shares: Vec<&str> = extract[0].shares.iter().map(|s| s.0.as_str()).collect();
        assert_eq!(shares, ["main", "full_text"]);
        for a in &both.algorithms {
            assert!(a.end_to_end.cpu_seconds >= 0.0 && a.end_to_end.wall_seconds > 0.0);
        }
    }
}
