//! The Spark job (dist/spark/neardup_join.py) in local mode against the
//! in-process run: on a built corpus, signatures written in four shards and
//! joined by Spark give exactly the pairs, scores and clusters of
//! `neardup run`, for MinHash-LSH, one-permutation MinHash with
//! super-shingles, and SimHash through permuted tables.
//!
//! Needs Java and pyspark (`.ci/run` installs both); skipped with a message
//! without them, unless NEARDUP_REQUIRE_SPARK is set.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use neardup::corpus::{read_corpus, Corpus, ReadOptions};
use neardup::dist::external::{
    canonical, closure, evaluate_external, read_clusters, read_pairs, ExternalInput,
};
use neardup::experiment::{self, ExperimentConfig, ExperimentResult};
use polars::prelude::*;

/// `neardup ARGS` in `cwd`, which must succeed; what it printed.
fn neardup(args: &[&str], cwd: &Path) -> String {
    let out = common::neardup(args, cwd);
    assert!(
        out.status.success(),
        "neardup {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn python() -> String {
    std::env::var("PYTHON").unwrap_or_else(|_| "python3".into())
}

/// Whether Java and pyspark are here; without them the test is skipped,
/// or fails when NEARDUP_REQUIRE_SPARK is set.
fn spark_available() -> bool {
    let works = |cmd: &str, args: &[&str]| {
        Command::new(cmd)
            .args(args)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let java = works("java", &["-version"]);
    let pyspark = works(&python(), &["-c", "import pyspark"]);
    if java && pyspark {
        return true;
    }
    let missing = match (java, pyspark) {
        (false, false) => "java and pyspark are",
        (false, true) => "java is",
        _ => "pyspark is",
    };
    assert!(
        std::env::var_os("NEARDUP_REQUIRE_SPARK").is_none(),
        "{missing} not installed (.ci/run installs them)"
    );
    eprintln!("{missing} not installed: skipping the Spark test (set NEARDUP_REQUIRE_SPARK to fail instead)");
    false
}

/// A built corpus when the shared data is here (CI has it), else the demo.
fn corpus(dir: &Path) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    if root
        .join("../shared/corpora/peoples_daily_1998_01")
        .exists()
    {
        let path = dir.join("fan2008.jsonl.gz");
        let config = root.join("datasets/fan2008.yaml");
        let status = common::command(dir)
            .args([
                "corpus",
                "build",
                config.to_str().unwrap(),
                "--scale",
                "0.05",
            ])
            .args(["-o", path.to_str().unwrap()])
            .status()
            .unwrap();
        assert!(status.success());
        path
    } else {
        eprintln!("../shared/corpora is not here: the demo corpus stands in for a built one");
        let path = dir.join("demo.jsonl");
        let corpus = neardup::corpus::demo::demo_corpus().unwrap();
        neardup::corpus::write_corpus(&corpus.pages, &path).unwrap();
        path
    }
}

fn read_table(dir: &Path) -> DataFrame {
    let mut frames: Vec<DataFrame> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
        .map(|p| {
            ParquetReader::new(std::fs::File::open(p).unwrap())
                .finish()
                .unwrap()
        })
        .collect();
    let mut all = frames.remove(0);
    for f in frames {
        all.vstack_mut(&f).unwrap();
    }
    all.sort(["page"], SortMultipleOptions::default()).unwrap()
}

/// The job in local mode on `signatures`, for the algorithms named (all
/// when empty).
fn spark_job(signatures: &Path, out: &Path, algorithms: &str) -> std::process::Output {
    let job = Path::new(env!("CARGO_MANIFEST_DIR")).join("dist/spark/neardup_join.py");
    let mut command = Command::new(python());
    command
        .arg(&job)
        .args([signatures.to_str().unwrap(), "-o", out.to_str().unwrap()])
        .args(["--master", "local[2]", "--partitions", "2"])
        // Small data: no UI, no adaptive re-planning, a JIT that starts fast.
        .args(["--conf", "spark.ui.enabled=false"])
        .args(["--conf", "spark.ui.showConsoleProgress=false"])
        .args(["--conf", "spark.sql.adaptive.enabled=false"])
        .args([
            "--conf",
            "spark.driver.extraJavaOptions=-XX:TieredStopAtLevel=1 -XX:+UseSerialGC",
        ]);
    if !algorithms.is_empty() {
        command.args(["--algorithms", algorithms]);
    }
    command.output().unwrap()
}

#[test]
fn spark_join_equals_the_in_process_run() {
    if !spark_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let corpus_path = corpus(dir);
    let experiment = write_experiment(dir, &corpus_path);
    let (one, four, out) = (dir.join("one"), dir.join("four"), dir.join("out"));
    shards_hold_what_one_does(&experiment, &one, &four);
    mixed_shards_are_refused(dir, &experiment);

    let run = spark_job(&four, &out, "");
    assert!(
        run.status.success(),
        "the Spark job failed:\n{}",
        String::from_utf8_lossy(&run.stderr)
    );

    let config = ExperimentConfig::load(&experiment).unwrap();
    let corpus = read_corpus(&corpus_path, ReadOptions::default()).unwrap();
    let references = experiment::load_references(&config, &experiment).unwrap();
    let local = experiment::run_experiment("spark", &config, &corpus, &references);
    let inputs = spark_pairs_as_local(&out, &corpus, &local);

    // Scored back on the workbench, the Spark run reads as the local one.
    let external = evaluate_external("spark", &corpus, &inputs).unwrap();
    for (theirs, ours) in external.algorithms.iter().zip(&local.algorithms) {
        assert_eq!(theirs.run.label, ours.run.label);
        assert_eq!(theirs.threshold, ours.threshold);
        assert_eq!(theirs.evaluations, ours.evaluations, "{}", ours.run.label);
        assert_eq!(theirs.candidate_stage, ours.candidate_stage);
        assert_eq!(theirs.candidates, ours.candidates);
    }
    let report = dir.join("report");
    let printed = neardup(
        &[
            "evaluate",
            corpus_path.to_str().unwrap(),
            "--pairs",
            out.join("simhash-1/pairs").to_str().unwrap(),
            "--clusters",
            out.join("simhash-1/clusters").to_str().unwrap(),
            "-o",
            report.to_str().unwrap(),
        ],
        dir,
    );
    assert!(
        printed.contains("equal the closure of the pairs at <=3"),
        "{printed}"
    );
    assert!(
        printed.contains("pairs computed elsewhere (spark 3."),
        "{printed}"
    );
    assert!(report.join("run.json").exists() && report.join("results.csv").exists());
}

/// The experiment the Spark test runs: both MinHash searches and SimHash.
fn write_experiment(dir: &Path, corpus_path: &Path) -> PathBuf {
    let experiment = dir.join("spark.yaml");
    std::fs::write(
        &experiment,
        format!(
            "name: spark\ncorpus: {}\nalgorithms:\n  \
             - type: minhash\n  \
             - type: simhash\n    index: 6c3\n    threshold: 3\n    floor: 3\n    grid: [0, 1, 2, 3]\n  \
             - type: minhash\n    sketch: one_permutation\n    candidates: super_shingles\n",
            corpus_path.display()
        ),
    )
    .unwrap();
    experiment
}

/// Signatures in four shards hold exactly what one shard does.
fn shards_hold_what_one_does(experiment: &Path, one: &Path, four: &Path) {
    // Run in the experiment's folder, the test's own.
    let dir = experiment.parent().unwrap();
    neardup(
        &[
            "signatures",
            experiment.to_str().unwrap(),
            "-o",
            one.to_str().unwrap(),
        ],
        dir,
    );
    for i in 0..4 {
        neardup(
            &[
                "signatures",
                experiment.to_str().unwrap(),
                "-o",
                four.to_str().unwrap(),
                "--shard",
                &format!("{i}/4"),
            ],
            dir,
        );
    }
    // Four shards hold exactly what one does.
    for table in [
        "pages",
        "minhash-0/signatures",
        "minhash-0/bands",
        "simhash-1/fingerprints",
        "minhash-oph-2/bands",
    ] {
        let (a, b) = (read_table(&one.join(table)), read_table(&four.join(table)));
        assert!(a.height() > 0, "{table} is empty");
        assert!(a.equals(&b), "{table}: 1 shard and 4 shards differ");
    }
}

/// A shard made with other settings stops the job before any work.
fn mixed_shards_are_refused(dir: &Path, experiment: &Path) {
    let mixed = dir.join("mixed");
    let other = dir.join("other.yaml");
    let text = std::fs::read_to_string(experiment).unwrap();
    std::fs::write(
        &other,
        text.replacen("- type: minhash\n", "- type: minhash\n    width: 4\n", 1),
    )
    .unwrap();
    for (i, from) in [(0, experiment), (1, &other)] {
        neardup(
            &[
                "signatures",
                from.to_str().unwrap(),
                "-o",
                mixed.to_str().unwrap(),
                "--shard",
                &format!("{i}/2"),
            ],
            dir,
        );
    }
    let refused = spark_job(&mixed, &dir.join("refused"), "minhash-0");
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("part-00001-of-00002.parquet was made with other settings")
            && stderr.contains("differ in config, label, shingle_width"),
        "{stderr}"
    );
}

/// The Spark job's pairs and clusters of each algorithm, checked against
/// the in-process run, as inputs to score them back.
fn spark_pairs_as_local(
    out: &Path,
    corpus: &Corpus,
    local: &ExperimentResult,
) -> Vec<ExternalInput> {
    let mut inputs = Vec::new();
    for (key, own) in ["minhash-0", "simhash-1", "minhash-oph-2"]
        .iter()
        .zip(&local.algorithms)
    {
        let pairs = read_pairs(&out.join(key).join("pairs"), corpus).unwrap();
        assert_eq!(pairs.settings["label"], own.run.label.as_str());
        // In process, pages with identical signatures are kept as a group;
        // Spark lists every pair.
        let listed = own.run.listed_pairs();
        assert_eq!(pairs.pairs.len(), listed.len(), "{key}: pair count");
        assert_eq!(pairs.pairs, listed, "{key}: pairs or scores differ");
        assert_eq!(
            pairs.job["job"]["candidates"].as_u64(),
            Some(own.run.candidates),
            "{key}: candidate pairs"
        );
        let scale = &own.run.scale;
        let at_threshold = own
            .run
            .pairs
            .iter()
            .filter(|p| scale.passes(p.score, own.threshold))
            .count();
        assert!(
            at_threshold > 20,
            "{key}: only {at_threshold} pairs at the threshold"
        );

        let clusters_path = out.join(key).join("clusters");
        let given = canonical(&read_clusters(&clusters_path, corpus).unwrap());
        let expected = closure(corpus.len(), &listed, |s| scale.passes(s, own.threshold));
        assert_eq!(given, expected, "{key}: clusters differ");
        let clustered = (0..corpus.len() as u32)
            .filter(|&p| expected[p as usize] != p)
            .count();
        assert!(clustered > 20, "{key}: only {clustered} pages in clusters");
        inputs.push(ExternalInput {
            pairs,
            clusters: Some((clusters_path, given)),
        });
    }
    inputs
}
