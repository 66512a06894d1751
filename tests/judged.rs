//! Judged-pair corpora through the binary: `tune` chooses over the judged
//! pairs and `run` reproduces what it chose, `--report` tabulates them per
//! grade, and a malformed pairs file is named by file, line and field.

use std::path::Path;
use std::process::Output;

mod common;
use common::neardup;

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Forty words of letters only, `stem` making them distinct per page.
fn words(stem: &str, range: std::ops::Range<usize>) -> Vec<String> {
    range
        .map(|i| {
            let a = (b'a' + (i / 26) as u8) as char;
            let b = (b'a' + (i % 26) as u8) as char;
            format!("{stem}{a}{b}")
        })
        .collect()
}

/// Five pages: `a2` is `a` with its last two words changed (word 3-gram
/// Jaccard 36/40 = 0.9), `b2` keeps the first half of `b` (18/58 = 0.31),
/// `c` shares nothing. The clusters call both pairs duplicates; the judges
/// call `b`, `b2` a different page (grade 0), so the best threshold over
/// the clusters (at most 0.31) and over the judged pairs (above 0.31)
/// differ.
fn tiny_corpus(dir: &Path, pairs: &str) {
    let page = |id: &str, cluster: &str, w: Vec<String>| {
        serde_json::json!({"id": id, "cluster": cluster, "text": w.join(" ")}).to_string()
    };
    let mut a2 = words("apple", 0..38);
    a2.extend(words("xylo", 0..2));
    let mut b2 = words("berry", 0..20);
    b2.extend(words("yarrow", 0..20));
    let rows = [
        page("a", "ca", words("apple", 0..40)),
        page("a2", "ca", a2),
        page("b", "cb", words("berry", 0..40)),
        page("b2", "cb", b2),
        page("c", "cc", words("cherry", 0..40)),
    ];
    std::fs::write(dir.join("pages.jsonl"), rows.join("\n")).unwrap();
    std::fs::write(dir.join("pairs.csv"), pairs).unwrap();
    let experiment = |judged: &str| {
        format!(
            "corpus: pages.jsonl\nextract: main\n{judged}algorithms:\n  \
             - {{type: jaccard, floor: 0.1, max_df: 1.0, threshold: 0.5}}\n"
        )
    };
    std::fs::write(
        dir.join("t.yaml"),
        experiment("judged:\n  pairs: pairs.csv\n  positive_from: 1\n"),
    )
    .unwrap();
    std::fs::write(dir.join("clusters.yaml"), experiment("")).unwrap();
}

const PAIRS: &str = "a,b,label\na,a2,1\nb,b2,0\na,b,0\na,c,0\nb,c,0\n";

/// The first tuned threshold in a file `neardup tune` wrote.
fn tuned_threshold(path: &Path) -> f64 {
    let yaml: serde_yaml::Value =
        serde_yaml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    yaml["algorithms"][0]["threshold"].as_f64().unwrap()
}

#[test]
fn tune_picks_the_judged_best_threshold_and_run_reproduces_it() {
    let dir = tempfile::tempdir().unwrap();
    tiny_corpus(dir.path(), PAIRS);
    let o = neardup(&["tune", "clusters.yaml", "-o", "c.tuned.yaml"], dir.path());
    assert!(o.status.success(), "{}", text(&o));
    let by_clusters = tuned_threshold(&dir.path().join("c.tuned.yaml"));
    let o = neardup(&["tune", "t.yaml", "-o", "out/t.tuned.yaml"], dir.path());
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("over the judged pairs"), "{}", text(&o));
    let tuned = dir.path().join("out/t.tuned.yaml");
    let by_judges = tuned_threshold(&tuned);
    assert!(by_clusters <= 0.32, "{by_clusters}");
    assert!(by_judges > 0.32 && by_judges <= 0.9, "{by_judges}");
    let yaml: serde_yaml::Value =
        serde_yaml::from_str(&std::fs::read_to_string(&tuned).unwrap()).unwrap();
    assert_eq!(yaml["tuned"]["judged"].as_bool(), Some(true));
    assert_eq!(yaml["tuned"]["runs"][0]["judged_f1"].as_f64(), Some(1.0));
    // The tuned file runs (its pairs path moved with it) to what tune saw.
    let o = neardup(&["run", "out/t.tuned.yaml", "-o", "run"], dir.path());
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("P 100.00% R 100.00% F 100.00%  TP 1 FP 0 FN 0 TN 4"),
        "{}",
        text(&o)
    );
    // The clusters' choice calls the judged non-duplicate a duplicate.
    let mut judged = std::fs::read_to_string(dir.path().join("c.tuned.yaml")).unwrap();
    judged.push_str("judged:\n  pairs: pairs.csv\n");
    std::fs::write(dir.path().join("c.judged.yaml"), judged).unwrap();
    let o = neardup(&["run", "c.judged.yaml", "-o", "run-c"], dir.path());
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("F 66.67%  TP 1 FP 1 FN 0 TN 3"),
        "{}",
        text(&o)
    );
    // Clustered F has no meaning over judged pairs.
    let o = neardup(
        &[
            "tune",
            "t.yaml",
            "--objective",
            "clustered_f1",
            "-o",
            "x.yaml",
        ],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("clustered_f1 needs clusters"),
        "{}",
        text(&o)
    );
}

#[test]
fn the_report_tabulates_the_judged_pairs_per_grade() {
    let dir = tempfile::tempdir().unwrap();
    tiny_corpus(dir.path(), PAIRS);
    let o = neardup(&["run", "t.yaml", "--report", "-o", "out"], dir.path());
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("grade   1 (duplicate):") && text(&o).contains("grade   0 (not)      :"),
        "{}",
        text(&o)
    );
    let md = std::fs::read_to_string(dir.path().join("out/report.md")).unwrap();
    // At 0.5: a, a2 (0.9) called, b, b2 (0.31) scored and rejected; the
    // three pairs with nothing in common never scored.
    for row in [
        "| jaccard(w=3) [main] (at 0.5) | 0 | 4 | 0 | 0.00% | 3 |",
        // One grade per row: "1 (duplicate)", not "1+" (which read as 1 and above).
        "| jaccard(w=3) [main] (at 0.5) | 1 (duplicate) | 1 | 1 | 100.00% | 0 |",
        "5 judged pairs from",
        "1 duplicates (grade >= 1), 4 not",
    ] {
        assert!(md.contains(row), "{row}\n{md}");
    }
    let judged_section = md
        .split("## Judged pairs")
        .nth(1)
        .unwrap_or_else(|| panic!("{md}"));
    let summary = judged_section
        .lines()
        .find(|l| l.starts_with("| jaccard(w=3) [main] | 100.00% |"))
        .unwrap_or_else(|| panic!("{md}"));
    // Never scored: no duplicate, three others.
    assert!(summary.ends_with("| 0 | 3 |"), "{summary}");
    for chart in ["pr.png", "pr.svg", "pr_clusters.png", "f1.png"] {
        assert!(dir.path().join("out").join(chart).exists(), "{chart}");
    }
    let svg = std::fs::read_to_string(dir.path().join("out/pr.svg")).unwrap();
    assert!(svg.contains("over the judged pairs"));
}

#[test]
fn a_malformed_pairs_file_is_named_in_tune_and_run() {
    let dir = tempfile::tempdir().unwrap();
    for (pairs, says) in [
        (
            "a,b,label\na,a2,1\nq,b,0\n",
            "pairs.csv:3: field `a`: page id `q`",
        ),
        (
            "a,b,label\na,a2,1\na2,a,0\n",
            "pairs.csv:3: field `b`: the pair `a2`, `a` was already judged on line 2",
        ),
        (
            "a,b,label\nc,c,1\n",
            "pairs.csv:2: field `b`: the pair judges page `c` against itself",
        ),
        ("a,b,label\na,c,yes\n", "pairs.csv:2: field `label`"),
    ] {
        tiny_corpus(dir.path(), pairs);
        for args in [
            &["tune", "t.yaml", "-o", "x.yaml"][..],
            &["run", "t.yaml", "-o", "out"],
        ] {
            let o = neardup(args, dir.path());
            assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
            let e = String::from_utf8_lossy(&o.stderr);
            assert!(e.contains(says), "{args:?}: {e}");
            assert!(!e.contains("panicked"));
        }
    }
}

#[test]
fn a_judged_tuned_file_carries_to_another_corpus_by_its_clusters() {
    let dir = tempfile::tempdir().unwrap();
    tiny_corpus(dir.path(), PAIRS);
    let o = neardup(&["tune", "t.yaml", "-o", "t.tuned.yaml"], dir.path());
    assert!(o.status.success(), "{}", text(&o));
    // The same pages under other ids: the judged pairs name none of them.
    let renamed: Vec<String> = std::fs::read_to_string(dir.path().join("pages.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["id"] = format!("other-{}", v["id"].as_str().unwrap()).into();
            v.to_string()
        })
        .collect();
    std::fs::write(dir.path().join("other.jsonl"), renamed.join("\n")).unwrap();
    let o = neardup(
        &[
            "run",
            "t.tuned.yaml",
            "--corpus",
            "other.jsonl",
            "-o",
            "moved",
        ],
        dir.path(),
    );
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("the truth is that corpus's clusters"),
        "{}",
        text(&o)
    );
    // Scored by the clusters: the tuned threshold (above 0.31) misses b,
    // b2, which the judges called different and the clusters a duplicate.
    assert!(text(&o).contains("| 100.00 | 66.67 |"), "{}", text(&o));
    assert!(dir.path().join("moved/transfer.md").exists());
}
