//! `neardup dedup` on the demo corpus with its labels removed: the kept
//! pages and the mapping account for every page, each removed page maps to
//! a kept page of its own cluster, and the clusters are those `neardup run`
//! forms at the same threshold on the labelled corpus. A killed run leaves
//! no output folder; duplicate ids are refused naming both lines.

mod common;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};

use common::neardup;
use neardup::experiment::dedup::cluster_run;
use neardup::experiment::{run_experiment, ExperimentConfig};
use polars::prelude::*;

const MINHASH: &str = "minhash(w=3,n=128,lsh 26x4) [main]";
const EXACT: &str = "exact [main]";

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The demo corpus's lines, each without its `cluster`.
fn unlabelled_demo() -> Vec<String> {
    let file = std::fs::File::open(repo().join("datasets/demo/demo.jsonl.gz")).unwrap();
    let mut text = String::new();
    flate2::read::GzDecoder::new(file)
        .read_to_string(&mut text)
        .unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut page: serde_json::Map<String, serde_json::Value> =
                serde_json::from_str(l).unwrap();
            page.remove("cluster");
            serde_json::to_string(&page).unwrap()
        })
        .collect()
}

/// A folder with the unlabelled corpus (`pages.jsonl`) and the tuned demo
/// experiment (`tuned.yaml`).
fn setup() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("pages.jsonl"),
        unlabelled_demo().join("\n") + "\n",
    )
    .unwrap();
    let demo = repo().join("experiments/demo.yaml");
    let out = neardup(
        &["tune", demo.to_str().unwrap(), "-o", "tuned.yaml"],
        dir.path(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir
}

fn dedup(dir: &Path, algorithm: &str, out: &str, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "dedup",
        "tuned.yaml",
        "pages.jsonl",
        "-o",
        out,
        "--algorithm",
        algorithm,
    ];
    args.extend(extra);
    neardup(&args, dir)
}

struct Row {
    cluster: u32,
    kept_id: String,
    score: Option<f32>,
    joined_via: Option<String>,
}

fn read_mapping(out: &Path) -> HashMap<String, Row> {
    let file = std::fs::File::open(out.join("mapping.parquet")).unwrap();
    let df = ParquetReader::new(file).finish().unwrap();
    let text = |name: &str| -> Vec<Option<String>> {
        let c = df.column(name).unwrap().str().unwrap().clone();
        c.iter().map(|v| v.map(str::to_string)).collect()
    };
    let ids = text("id");
    let kept = text("kept_id");
    let via = text("joined_via");
    let clusters: Vec<u32> = df
        .column("cluster")
        .unwrap()
        .u32()
        .unwrap()
        .iter()
        .map(Option::unwrap)
        .collect();
    let scores: Vec<Option<f32>> = df.column("score").unwrap().f32().unwrap().iter().collect();
    let mut rows = HashMap::new();
    for i in 0..df.height() {
        let row = Row {
            cluster: clusters[i],
            kept_id: kept[i].clone().unwrap(),
            score: scores[i],
            joined_via: via[i].clone(),
        };
        assert!(rows.insert(ids[i].clone().unwrap(), row).is_none());
    }
    rows
}

/// The partition as sets of ids, comparable whatever the cluster numbers.
fn partition(clusters: impl Iterator<Item = (String, u32)>) -> BTreeSet<BTreeSet<String>> {
    let mut by: HashMap<u32, BTreeSet<String>> = HashMap::new();
    for (id, c) in clusters {
        by.entry(c).or_default().insert(id);
    }
    by.into_values().collect()
}

/// The clusters `neardup run` forms for `label` on the labelled demo
/// corpus, and the evaluator's own figures for them: pairs inside
/// predicted clusters and the largest cluster's size.
fn run_clusters(tuned: &Path, label: &str) -> (BTreeSet<BTreeSet<String>>, u64, u64) {
    let config = ExperimentConfig::load(tuned).unwrap();
    let corpus = neardup::corpus::demo::demo_corpus().unwrap();
    let result = run_experiment("demo", &config, &corpus, &Vec::new());
    let ran = result
        .algorithms
        .iter()
        .find(|a| format!("{} [{}]", a.run.label, a.extraction.name()) == label)
        .unwrap();
    let labels = cluster_run(corpus.pages.len(), &ran.run, ran.threshold, ran.clustering);
    let ids = corpus.pages.iter().map(|p| p.id.clone());
    let at = ran.at_threshold();
    (
        partition(ids.zip(labels)),
        at.clustered.overall.detected,
        at.largest_cluster.pages,
    )
}

fn kept_ids(file: &Path) -> HashSet<String> {
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["id"].as_str().unwrap().to_string()
        })
        .collect()
}

#[test]
fn dedup_maps_every_page_and_forms_the_clusters_run_forms() {
    let dir = setup();
    let pages_in = unlabelled_demo().len();
    for algorithm in [MINHASH, EXACT] {
        let out = dedup(dir.path(), algorithm, "out", &["--force"]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let out_dir = dir.path().join("out");
        let rows = read_mapping(&out_dir);
        assert_eq!(rows.len(), pages_in);
        let kept = kept_ids(&out_dir.join("pages.jsonl"));
        let summary: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out_dir.join("summary.json")).unwrap()).unwrap();
        let removed = summary["removed"].as_u64().unwrap() as usize;
        assert_eq!(summary["pages_in"].as_u64().unwrap() as usize, pages_in);
        assert_eq!(kept.len() + removed, pages_in, "{algorithm}");
        assert!(removed > 0, "{algorithm} removes duplicates on the demo");
        for (id, row) in &rows {
            let keeper = &rows[&row.kept_id];
            assert_eq!(keeper.cluster, row.cluster, "{id} maps into its cluster");
            assert_eq!(
                keeper.kept_id, row.kept_id,
                "{id}: its kept page keeps itself"
            );
            assert!(
                kept.contains(&row.kept_id),
                "{id}: its kept page is written"
            );
            if &row.kept_id == id {
                assert!(row.joined_via.is_none() && row.score.is_none());
            } else {
                assert!(!kept.contains(id), "{id} is removed");
                let via = row
                    .joined_via
                    .as_ref()
                    .expect("a removed page names its match");
                assert_eq!(
                    rows[via].cluster, row.cluster,
                    "{id} joined inside its cluster"
                );
                assert!(row.score.is_some());
            }
        }
        let ours = partition(rows.iter().map(|(id, r)| (id.clone(), r.cluster)));
        let (theirs, clustered_pairs, largest) =
            run_clusters(&dir.path().join("tuned.yaml"), algorithm);
        assert_eq!(ours, theirs, "{algorithm}: the clusters of run");
        let pairs: u64 = ours
            .iter()
            .map(|c| (c.len() * (c.len() - 1) / 2) as u64)
            .sum();
        assert_eq!(pairs, clustered_pairs, "{algorithm}: run's clustered pairs");
        let biggest = ours.iter().map(BTreeSet::len).max().unwrap() as u64;
        assert_eq!(biggest, largest, "{algorithm}: run's largest cluster");
    }
}

#[test]
fn keep_policies_and_dry_run() {
    let dir = setup();
    let out = dedup(
        dir.path(),
        MINHASH,
        "dry",
        &["--dry-run", "--keep", "longest"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let names: BTreeSet<String> = std::fs::read_dir(dir.path().join("dry"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        BTreeSet::from(["summary.json".into(), "summary.md".into()])
    );
    // Each policy is spelled as the guide spells it.
    for keep in ["first", "earliest", "shortest_url"] {
        let out = dedup(dir.path(), MINHASH, keep, &["--dry-run", "--keep", keep]);
        assert!(out.status.success(), "--keep {keep}");
        let summary = std::fs::read_to_string(dir.path().join(keep).join("summary.json")).unwrap();
        assert!(
            summary.contains(&format!("\"keep\": \"{keep}\"")),
            "{summary}"
        );
    }
    // An existing OUT is refused without --force.
    let again = dedup(dir.path(), MINHASH, "dry", &[]);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--force"));
}

#[test]
fn several_algorithms_need_one_named() {
    let dir = setup();
    let out = neardup(
        &["dedup", "tuned.yaml", "pages.jsonl", "-o", "x"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--algorithm") && err.contains(MINHASH),
        "{err}"
    );
    assert!(!dir.path().join("x").exists());
}

#[test]
fn duplicate_ids_are_refused_naming_both_lines() {
    let dir = setup();
    let mut lines = unlabelled_demo();
    let repeated = lines[2].clone();
    lines.insert(6, repeated);
    std::fs::write(dir.path().join("pages.jsonl"), lines.join("\n") + "\n").unwrap();
    let out = dedup(dir.path(), MINHASH, "out", &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("pages.jsonl:7") && err.contains("line 3") && err.contains("`id`"),
        "{err}"
    );
    assert!(!dir.path().join("out").exists());
}

#[test]
fn a_killed_run_leaves_no_output_and_a_rerun_works() {
    let dir = setup();
    let leftovers = |dir: &Path| -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains("out"))
            .collect()
    };
    // SIGKILL at the last steps, from inside ...
    for step in ["dedup-kept-written", "dedup-written"] {
        let out = common::command(dir.path())
            .args(["dedup", "tuned.yaml", "pages.jsonl", "-o", "out"])
            .args(["--algorithm", MINHASH])
            .env("NEARDUP_FAIL_AT", step)
            .output()
            .unwrap();
        assert!(!out.status.success(), "killed at {step}");
        assert!(!dir.path().join("out").exists(), "killed at {step}");
    }
    // ... and from outside, wherever the run is.
    for after_ms in [20, 150, 400] {
        let mut child = common::command(dir.path())
            .args(["dedup", "tuned.yaml", "pages.jsonl", "-o", "out", "--force"])
            .args(["--algorithm", MINHASH])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(after_ms));
        child.kill().unwrap();
        let finished = child.wait().unwrap().success();
        if !finished {
            assert!(!dir.path().join("out").exists(), "killed at {after_ms} ms");
        }
        let _ = std::fs::remove_dir_all(dir.path().join("out"));
    }
    let out = dedup(dir.path(), MINHASH, "out", &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The rerun cleared what the killed runs left beside OUT.
    assert_eq!(leftovers(dir.path()), vec!["out".to_string()]);
    assert!(dir.path().join("out/mapping.csv").exists());
}
