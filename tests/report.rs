//! `neardup report` as a user runs it: charts from stored runs, compared
//! across runs, byte-identical PNGs, the paper beside ours, clear errors.

use std::process::Output;

mod common;
use common::neardup;

fn ok(o: &Output) {
    assert!(
        o.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}

const SMALL: &str = "corpus: demo\nalgorithms:\n  - {type: simhash}\n  - {type: minhash}\n  \
                     - {type: semantic}\n  - {type: combined}\n";

#[test]
fn two_runs_give_png_svg_data_and_markdown_and_pngs_repeat_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("small.yaml"), SMALL).unwrap();
    ok(&neardup(&["run", "small.yaml", "-o", "one"], d));
    std::fs::write(
        d.join("other.yaml"),
        "corpus: demo\nextract: full_text\nalgorithms:\n  - {type: simhash}\n  - {type: jaccard}\n",
    )
    .unwrap();
    ok(&neardup(&["run", "other.yaml", "-o", "two"], d));
    ok(&neardup(&["report", "one", "two", "-o", "report"], d));
    for chart in ["pr", "f1", "slices", "throughput", "scores", "lsh"] {
        for ext in ["png", "svg"] {
            let path = d.join("report").join(format!("{chart}.{ext}"));
            let len = path.metadata().map(|m| m.len()).unwrap_or(0);
            assert!(len > 1000, "{} is {len} bytes", path.display());
        }
    }
    for data in ["pr", "f1", "slices", "throughput_stages", "scores", "lsh"] {
        for ext in ["csv", "parquet"] {
            assert!(
                d.join("report").join(format!("{data}.{ext}")).exists(),
                "{data}.{ext}"
            );
        }
    }
    let md = std::fs::read_to_string(d.join("report/report.md")).unwrap();
    assert!(md.contains("| one |") && md.contains("| two |"), "{md}");
    assert!(
        md.contains("one: simhash(words,tf) [main]")
            && md.contains("two: simhash(words,tf) [full_text]")
    );
    assert!(
        md.contains("combined(minhash"),
        "the combined algorithm is reported"
    );
    let csv = std::fs::read_to_string(d.join("report/pr.csv")).unwrap();
    assert!(
        csv.starts_with("series,threshold,precision,recall,f1,is_default"),
        "{csv}"
    );
    // Drawn again: every PNG byte for byte the same.
    ok(&neardup(&["report", "one", "two", "-o", "again"], d));
    for chart in ["pr", "f1", "slices", "throughput", "scores", "lsh"] {
        let a = std::fs::read(d.join("report").join(format!("{chart}.png"))).unwrap();
        let b = std::fs::read(d.join("again").join(format!("{chart}.png"))).unwrap();
        assert!(a == b, "{chart}.png differs between two renders");
    }
}

#[test]
fn the_paper_sits_beside_ours_and_inconsistent_percentages_are_flagged() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("paper.yaml"),
        "corpus: demo\nalgorithms:\n  - {type: simhash}\n  - {type: jaccard}\npaper:\n  \
         citation: Fan, Zheng and Zhang (2008)\n  source: seed 001, section 5\n  \
         differences: [a smaller corpus]\n  tables:\n    - title: prose\n      rows:\n        \
         - {slice: prose/full, name: 全部重复, actual: 1781, detected: 1758, correct: 1696, precision: 96.58, recall: 95.22, f: 95.91}\n  \
         figures:\n    - {name: runtime, paper: 468 s, ours: {measure: wall_seconds}}\n    \
         - {name: precision, paper: '0.75', ours: {measure: precision, algorithm: simhash, threshold: 3}}\n    \
         - {name: balance, paper: k = 3, ours: {measure: best_f, algorithm: simhash}}\n    \
         - {name: comparable, paper: '-', ours: {measure: precision_at_recall, algorithm: jaccard, recall: 0.5}}\n  \
         sweeps: [simhash]\n  \
         index_plan: {fingerprints: 8.0e9, k: 3}\n  \
         points: [{label: 'paper: C', precision: 0.5}]\n  \
         claims:\n    \
         - {claim: C beats Jaccard, figure: {measure: best_f, algorithm: simhash}, above: {measure: best_f, algorithm: jaccard}, holds: C wins, fails: C loses}\n    \
         - {claim: runs on the web, untestable: no web here}\n",
    )
    .unwrap();
    ok(&neardup(&["run", "paper.yaml", "-o", "run", "--report"], d));
    let md = std::fs::read_to_string(d.join("run/report.md")).unwrap();
    assert!(
        md.contains("| **paper** | prose/full (全部重复) | 1781 | 1758 | 1696 | 96.58%"),
        "{md}"
    );
    assert!(
        md.contains("prose/full precision: printed 96.58%, but the counts give 96.47%"),
        "{md}"
    );
    assert!(
        md.contains("| jaccard(w=3) [main] (at 0.5) | prose/full |"),
        "{md}"
    );
    assert!(md.contains("| runtime | 468 s | "), "{md}");
    // The summary comes first; the verdicts come last, one per claim.
    let summary = md.find("## Summary").expect("a summary");
    assert!(summary < md.find("## Runs").unwrap(), "{md}");
    assert!(
        md.contains("| simhash(words,tf) [main] | ") && md.contains("| jaccard(w=3) [main] | "),
        "{md}"
    );
    let verdicts = &md[md.find("## Verdicts").expect("verdicts")..];
    // The reason printed is the one for the verdict given.
    let holds = verdicts.contains("1. **C beats Jaccard** — holds.\n\n   C wins");
    let fails = verdicts.contains("1. **C beats Jaccard** — does not hold.\n\n   C loses");
    assert!(holds != fails, "{verdicts}");
    assert!(verdicts.contains("Deciding figure: "), "{verdicts}");
    assert!(
        verdicts.contains("2. **runs on the web** — cannot be tested here.\n\n   no web here"),
        "{verdicts}"
    );
    assert!(
        md.contains("| 6c3 | 20 |"),
        "the 20-table design for 8e9 fingerprints: {md}"
    );
    // The slices chart carries the paper's Chinese row names: drawn with
    // the vendored font, the same bytes every time.
    ok(&neardup(&["report", "run", "-o", "again"], d));
    let a = std::fs::read(d.join("run/slices.png")).unwrap();
    let b = std::fs::read(d.join("again/slices.png")).unwrap();
    assert!(a.len() > 1000 && a == b);
}

#[test]
fn a_damaged_run_json_names_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("bad")).unwrap();
    std::fs::write(
        d.join("bad/run.json"),
        "{\n  \"version\": 1,\n  \"pages\": }\n",
    )
    .unwrap();
    let o = neardup(&["report", "bad", "-o", "out"], d);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("bad/run.json: line 3"), "{err}");
    std::fs::write(d.join("bad/run.json"), "{\"version\": 99}").unwrap();
    let o = neardup(&["report", "bad", "-o", "out"], d);
    assert!(String::from_utf8_lossy(&o.stderr).contains("version 99"));
    let o = neardup(&["report", "missing", "-o", "out"], d);
    assert!(String::from_utf8_lossy(&o.stderr).contains("missing/run.json"));
}

#[test]
fn bad_paper_blocks_and_combined_settings_name_file_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cases = [
        (
            "corpus: demo\nalgorithms: [{type: simhash}]\npaper:\n  citation: x\n  source: y\n  figures:\n    - {name: a, paper: b, ours: {measure: nope}}\n",
            "paper.figures[0].ours",
        ),
        (
            "corpus: demo\nalgorithms: [{type: simhash}]\npaper:\n  citation: x\n  sorce: y\n",
            "sorce",
        ),
        (
            "corpus: demo\nalgorithms:\n  - {type: combined, bands: 6}\n",
            "algorithms[0].bands",
        ),
        (
            "corpus: demo\nalgorithms:\n  - {type: combined, jaccard: 1.5}\n",
            "algorithms[0].jaccard",
        ),
        (
            "corpus: demo\nalgorithms:\n  - {type: combined, threshold: 20}\n",
            "algorithms[0].threshold",
        ),
    ];
    for (i, (yaml, key)) in cases.iter().enumerate() {
        let name = format!("bad{i}.yaml");
        std::fs::write(d.join(&name), yaml).unwrap();
        let o = neardup(&["run", &name], d);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{yaml}: {err}");
        assert!(
            err.starts_with(&format!("error: {name}")) && err.contains(key),
            "{yaml}: {err}"
        );
    }
}

/// Two runs compared: a table of what changed per algorithm, run B against
/// run A, in report.md and on stdout (issue 48).
#[test]
fn a_comparison_says_what_changed_per_algorithm() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("a.yaml"),
        "corpus: demo\nextract: main\nalgorithms:\n  - {type: exact}\n  - {type: jaccard}\n",
    )
    .unwrap();
    std::fs::write(
        d.join("b.yaml"),
        "corpus: demo\nextract: main\nalgorithms:\n  - {type: jaccard}\n  - {type: simhash}\n",
    )
    .unwrap();
    ok(&neardup(&["run", "a.yaml", "-o", "a"], d));
    ok(&neardup(&["run", "b.yaml", "-o", "b"], d));
    let o = neardup(&["report", "a", "b", "-o", "ab"], d);
    ok(&o);
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    let md = std::fs::read_to_string(d.join("ab/report.md")).unwrap();
    assert!(md.contains("## What changed"), "{md}");
    for text in [&stdout, &md] {
        assert!(text.contains("Run `b` against run `a`"), "{text}");
        let jaccard = text
            .lines()
            .find(|l| l.starts_with("| jaccard(w=3) [main] |"))
            .unwrap_or_else(|| panic!("a jaccard row in {text}"));
        // One corpus, one algorithm: the figures are the same, the speed a ratio.
        assert!(jaccard.contains("96.46% -> 96.46% (+0.0)"), "{jaccard}");
        assert!(
            jaccard.contains("x faster") || jaccard.contains("x slower"),
            "{jaccard}"
        );
        assert!(jaccard.contains("same figures"), "{jaccard}");
        assert!(text.contains("| exact [main] | only in `a` |"), "{text}");
        assert!(
            text.contains("| simhash(words,tf) [main] | only in `b` |"),
            "{text}"
        );
    }
}
