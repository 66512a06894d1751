//! `neardup signatures` and `neardup evaluate` without a cluster: the
//! tables hold the in-process signatures with their settings, and pairs
//! written by another program are scored exactly as the in-process run
//! scores its own.

mod common;

use std::path::Path;

use common::neardup;
use neardup::algo::shingling::lsh::Banding;
use neardup::algo::{Detector, Document, ScoredPair};
use neardup::corpus::demo::demo_corpus;
use neardup::dist::external::{evaluate_external, read_clusters, read_pairs, ExternalInput};
use neardup::experiment::{self, ExperimentConfig};
use neardup::extract::{extract_page, Extraction};
use neardup::text::TokenizerConfig;
use polars::prelude::*;

const EXPERIMENT: &str = "name: dist\ncorpus: demo\nalgorithms:\n  \
    - type: minhash\n    threshold: 0.6\n  \
    - type: simhash\n    index: 6c3\n    threshold: 3\n    floor: 3\n    grid: [0, 1, 2, 3]\n";

/// `neardup signatures EXPERIMENT -o OUT --shard SHARD`, which must
/// succeed, run in the experiment's folder (the test's own).
fn signatures(experiment: &Path, out: &Path, shard: &str) {
    let run = neardup(
        &[
            "signatures",
            experiment.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--shard",
            shard,
        ],
        experiment.parent().unwrap(),
    );
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
}

fn read(path: &Path) -> (DataFrame, serde_json::Value) {
    let mut reader = ParquetReader::new(std::fs::File::open(path).unwrap());
    let kv = reader.get_metadata().unwrap().key_value_metadata().clone();
    let value = kv
        .unwrap()
        .into_iter()
        .find(|kv| kv.key == "neardup")
        .and_then(|kv| kv.value)
        .unwrap();
    (
        reader.finish().unwrap(),
        serde_json::from_str(&value).unwrap(),
    )
}

/// Page `p` of the demo as a run tokenises it: main content, default
/// tokenizer.
fn demo_document(corpus: &neardup::corpus::Corpus, p: usize) -> Document {
    let text = extract_page(&corpus.pages[p], Extraction::Main)
        .structure
        .text()
        .to_string();
    Document::new(
        p as u32,
        &text,
        corpus.pages[p].lang,
        &TokenizerConfig::default(),
    )
}

#[test]
fn signatures_are_the_in_process_sketches_with_their_settings() {
    let tmp = tempfile::tempdir().unwrap();
    let experiment = tmp.path().join("dist.yaml");
    std::fs::write(&experiment, EXPERIMENT).unwrap();
    let out = tmp.path().join("sig");
    for i in 0..3 {
        signatures(&experiment, &out, &format!("{i}/3"));
    }
    let corpus = demo_corpus().unwrap();
    let config = ExperimentConfig::parse(&experiment, EXPERIMENT).unwrap();
    let neardup::experiment::config::AlgorithmConfig::Minhash(minhash) =
        &config.algorithms[0].config
    else {
        panic!("the first algorithm is MinHash")
    };
    let detector = minhash.detector();
    let banding: Banding = detector.banding().unwrap();
    let mut pages_seen = 0;
    for i in 0..3 {
        let part = format!("part-{i:05}-of-00003.parquet");
        let (pages, meta) = read(&out.join("pages").join(&part));
        assert_eq!(meta["shard"], serde_json::json!([i, 3]));
        pages_seen += pages.height();
        let (signatures, meta) = read(&out.join("minhash-0/signatures").join(&part));
        let settings = &meta["settings"];
        assert_eq!(settings["hashes"], 128);
        assert_eq!(settings["bands"], banding.bands);
        assert_eq!(settings["rows"], banding.rows);
        assert_eq!(settings["threshold"], 0.6);
        assert_eq!(settings["seed"], 0x6d69_6e68_6173_6801u64);
        // The family's name and version travel with the seed, so sketches
        // from another hashing never join these.
        assert_eq!(
            settings["hash_family"],
            neardup::algo::shingling::minhash::MINHASH_FAMILY
        );
        let (bands, _) = read(&out.join("minhash-0/bands").join(&part));
        assert_eq!(bands.height(), signatures.height() * banding.bands);
        // Each stored sketch is the one the detector computes in-process,
        // and its band hashes are the keys the LSH search groups by.
        let page = signatures.column("page").unwrap().i64().unwrap();
        let lists = signatures.column("signature").unwrap().list().unwrap();
        let hashes = bands.column("hash").unwrap().i64().unwrap();
        for row in (0..signatures.height()).step_by(7) {
            let p = page.get(row).unwrap() as usize;
            let doc = demo_document(&corpus, p);
            let sketch = detector.sign(&doc).unwrap().values;
            let list = lists.get_as_series(row).unwrap();
            let stored: Vec<u32> = list
                .i32()
                .unwrap()
                .into_no_null_iter()
                .map(|v| v as u32)
                .collect();
            assert_eq!(stored, sketch, "page {p}");
            let keys: Vec<u64> = (0..banding.bands)
                .map(|b| hashes.get(row * banding.bands + b).unwrap() as u64)
                .collect();
            assert_eq!(keys, banding.band_hashes(&sketch));
        }
        let (fps, meta) = read(&out.join("simhash-1/fingerprints").join(&part));
        assert_eq!(meta["settings"]["layout"], "6c3");
        assert_eq!(
            meta["settings"]["hash_family"],
            neardup::algo::simhash::HASH_FAMILY
        );
        assert_eq!(meta["settings"]["tables"].as_array().unwrap().len(), 20);
        assert!(fps.height() > 0);
    }
    assert_eq!(pages_seen, corpus.len());
}

/// Writes pairs as another program would, with the settings envelope the
/// signatures carry.
fn write_pairs(path: &Path, ids: &[(&str, &str, f32)], settings: &serde_json::Value) {
    let mut df = DataFrame::new_infer_height(vec![
        Column::new("a".into(), ids.iter().map(|p| p.0).collect::<Vec<_>>()),
        Column::new("b".into(), ids.iter().map(|p| p.1).collect::<Vec<_>>()),
        Column::new("score".into(), ids.iter().map(|p| p.2).collect::<Vec<_>>()),
    ])
    .unwrap();
    let meta = serde_json::json!({"format": "neardup-signatures/1", "table": "pairs", "settings": settings});
    ParquetWriter::new(std::fs::File::create(path).unwrap())
        .with_key_value_metadata(Some(KeyValueMetadata::from_static(vec![(
            "neardup".into(),
            meta.to_string(),
        )])))
        .finish(&mut df)
        .unwrap();
}

#[test]
fn external_pairs_score_as_the_in_process_run() {
    let tmp = tempfile::tempdir().unwrap();
    let experiment = tmp.path().join("dist.yaml");
    std::fs::write(&experiment, EXPERIMENT).unwrap();
    let sig = tmp.path().join("sig");
    assert!(neardup(
        &[
            "signatures",
            experiment.to_str().unwrap(),
            "-o",
            sig.to_str().unwrap()
        ],
        tmp.path()
    )
    .status
    .success());
    let corpus = demo_corpus().unwrap();
    let config = ExperimentConfig::parse(&experiment, EXPERIMENT).unwrap();
    let local = experiment::run_experiment("dist", &config, &corpus, &Vec::new());
    let own = &local.algorithms[0];
    assert!(own.run.pairs.len() > 10);
    let (_, meta) = read(&sig.join("minhash-0/bands/part-00000-of-00001.parquet"));

    // The in-process run keeps pages with identical sketches as one group
    // and stores no pair inside it; a cluster job lists those pairs too.
    let mut listed: Vec<ScoredPair> = own.run.pairs.clone();
    for g in &own.run.groups {
        for (i, &a) in g.pages.iter().enumerate() {
            for &b in &g.pages[i + 1..] {
                listed.push(ScoredPair {
                    a,
                    b,
                    score: g.score,
                });
            }
        }
    }
    listed.sort_by_key(|p| (p.a, p.b));
    // The pairs, as ids, in reverse order and with each pair turned
    // around: the reader normalises both.
    let pairs: Vec<(&str, &str, f32)> = listed
        .iter()
        .rev()
        .map(|p| {
            (
                corpus.pages[p.b as usize].id.as_str(),
                corpus.pages[p.a as usize].id.as_str(),
                p.score,
            )
        })
        .collect();
    let path = tmp.path().join("pairs.parquet");
    write_pairs(&path, &pairs, &meta["settings"]);
    let read_back = read_pairs(&path, &corpus).unwrap();
    assert_eq!(read_back.pairs, listed);
    let external = evaluate_external(
        "dist",
        &corpus,
        &[ExternalInput {
            pairs: read_back,
            clusters: None,
        }],
    )
    .unwrap();
    assert_eq!(external.algorithms[0].evaluations, own.evaluations);
    assert_eq!(external.algorithms[0].run.label, own.run.label);

    // Clusters that merge every page into one are scored as given.
    let clusters = tmp.path().join("clusters.parquet");
    let mut df = DataFrame::new_infer_height(vec![
        Column::new(
            "id".into(),
            corpus
                .pages
                .iter()
                .map(|p| p.id.as_str())
                .collect::<Vec<_>>(),
        ),
        Column::new("cluster".into(), vec!["all"; corpus.len()]),
    ])
    .unwrap();
    ParquetWriter::new(std::fs::File::create(&clusters).unwrap())
        .finish(&mut df)
        .unwrap();
    let printed = neardup(
        &[
            "evaluate",
            "demo",
            "--pairs",
            path.to_str().unwrap(),
            "--clusters",
            clusters.to_str().unwrap(),
            "-o",
            tmp.path().join("run").to_str().unwrap(),
            "--mapping",
            tmp.path().join("mapped").to_str().unwrap(),
        ],
        tmp.path(),
    );
    let stdout = String::from_utf8_lossy(&printed.stdout);
    assert!(
        printed.status.success(),
        "{}",
        String::from_utf8_lossy(&printed.stderr)
    );
    assert!(
        stdout.contains("differ from the closure of the pairs at >=0.6"),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "largest predicted cluster: {} pages",
            corpus.len()
        )),
        "{stdout}"
    );
    assert_eq!(
        read_clusters(&clusters, &corpus).unwrap(),
        vec![0; corpus.len()]
    );
    // The job's clusters feed the mapping `neardup dedup` writes: one
    // cluster, its first page kept, every other page removed.
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(tmp.path().join("mapped/summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["pages_in"], corpus.len());
    assert_eq!(summary["kept"], 1);
    let mapped = CsvReadOptions::default()
        .try_into_reader_with_file_path(Some(tmp.path().join("mapped/mapping.csv")))
        .unwrap()
        .finish()
        .unwrap();
    assert_eq!(mapped.height(), corpus.len());
    let kept = mapped.column("kept_id").unwrap().str().unwrap().clone();
    assert!(kept.iter().all(|k| k == Some(corpus.pages[0].id.as_str())));

    // Bad input names the file, the row and the field.
    write_pairs(
        &path,
        &[(pairs[0].0, "no-such-page", 0.9)],
        &meta["settings"],
    );
    let bad = neardup(
        &["evaluate", "demo", "--pairs", path.to_str().unwrap()],
        tmp.path(),
    );
    assert_eq!(bad.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert!(
        stderr.contains(
            "pairs.parquet: row 1: field `b`: `no-such-page` is not a page of the corpus"
        ),
        "{stderr}"
    );
    write_pairs(
        &path,
        &[(pairs[0].0, pairs[0].1, 0.9)],
        &serde_json::json!({}),
    );
    let bad = neardup(
        &["evaluate", "demo", "--pairs", path.to_str().unwrap()],
        tmp.path(),
    );
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("settings `config`"));
}

/// Rows of a table's parts, sorted by page.
fn table(dir: &Path) -> DataFrame {
    let mut parts: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| read(&e.unwrap().path()).0)
        .collect();
    let mut all = parts.remove(0);
    for p in parts {
        all.vstack_mut(&p).unwrap();
    }
    all.sort(["page"], SortMultipleOptions::default()).unwrap()
}

#[test]
fn idf_over_the_corpus_is_the_same_in_every_shard() {
    let tmp = tempfile::tempdir().unwrap();
    let text = "corpus: demo\nalgorithms:\n  \
        - type: simhash\n    weights: tf_idf\n    index: 6c3\n    floor: 3\n    grid: [3]\n";
    let experiment = tmp.path().join("idf.yaml");
    std::fs::write(&experiment, text).unwrap();
    let (one, two) = (tmp.path().join("one"), tmp.path().join("two"));
    let sign = |out: &Path, shard: &str| signatures(&experiment, out, shard);
    sign(&one, "0/1");
    sign(&two, "0/2");
    sign(&two, "1/2");
    let (a, b) = (
        table(&one.join("simhash-0/fingerprints")),
        table(&two.join("simhash-0/fingerprints")),
    );
    assert!(a.height() > 100);
    assert!(a.equals(&b), "a shard weighed its features by its own IDF");
}

#[test]
fn simhash_alone_signs_from_text_the_fingerprints_shared_tokens_give() {
    let tmp = tempfile::tempdir().unwrap();
    let simhash =
        "  - type: simhash\n    index: 6c3\n    threshold: 3\n    floor: 3\n    grid: [0, 1, 2, 3]\n";
    // Alone on its tokens SimHash signs each page from its text; beside
    // MinHash the shard is tokenised once for both.
    let alone = format!("corpus: demo\nalgorithms:\n{simhash}");
    let shared = format!("corpus: demo\nalgorithms:\n{simhash}  - type: minhash\n");
    let (alone_yaml, shared_yaml) = (
        tmp.path().join("alone.yaml"),
        tmp.path().join("shared.yaml"),
    );
    std::fs::write(&alone_yaml, &alone).unwrap();
    std::fs::write(&shared_yaml, &shared).unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    signatures(&alone_yaml, &a, "0/2");
    signatures(&alone_yaml, &a, "1/2");
    signatures(&shared_yaml, &b, "0/1");
    let (from_text, from_tokens) = (
        table(&a.join("simhash-0/fingerprints")),
        table(&b.join("simhash-0/fingerprints")),
    );
    assert!(from_text.height() > 100);
    assert!(from_text.equals(&from_tokens));
    // And both are the fingerprints the detector makes from tokens.
    let corpus = demo_corpus().unwrap();
    let config = ExperimentConfig::parse(&alone_yaml, &alone).unwrap();
    let neardup::experiment::config::AlgorithmConfig::Simhash(c) = &config.algorithms[0].config
    else {
        panic!("the algorithm is SimHash")
    };
    let detector = c.detector(None);
    let pages = from_text.column("page").unwrap().i64().unwrap();
    let fingerprints = from_text.column("fingerprint").unwrap().i64().unwrap();
    for row in (0..from_text.height()).step_by(5) {
        let p = pages.get(row).unwrap() as usize;
        let doc = demo_document(&corpus, p);
        let expected = detector.sign(&doc).unwrap() as u64 as i64;
        assert_eq!(fingerprints.get(row), Some(expected), "page {p}");
    }
}
