//! The binary as a user runs it: exit codes, one clear error line, and the
//! demo experiment's outputs.

use std::path::Path;
use std::process::Output;

mod common;
use common::neardup;

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn broken_line_7_is_exit_2_with_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut rows: Vec<String> = (0..6)
        .map(|i| format!(r#"{{"id": "p{i}", "cluster": "c{i}", "text": "page {i}"}}"#))
        .collect();
    rows.push(r#"{"id": "p6", "cluster": "c6", "text": }"#.into());
    std::fs::write(dir.path().join("broken.jsonl"), rows.join("\n")).unwrap();
    std::fs::write(
        dir.path().join("x.yaml"),
        "corpus: broken.jsonl\nalgorithms: [{type: exact}]\n",
    )
    .unwrap();
    let o = neardup(&["run", "x.yaml"], dir.path());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.starts_with("error: broken.jsonl:7: malformed JSON at column 39: expected value\n"),
        "{e}"
    );
    assert_eq!(e.lines().count(), 1, "one clear line, no backtrace: {e}");
    assert!(!e.contains("panicked"));
}

#[test]
fn bad_experiment_files_are_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("x.yaml"),
        "corpus: demo\nalgorithms: [{type: simhash, k: 3}]\n",
    )
    .unwrap();
    let o = neardup(&["run", "x.yaml"], dir.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("unknown field `k`"), "{}", stderr(&o));
    let o = neardup(&["run", "missing.yaml"], dir.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).starts_with("error: missing.yaml: "),
        "{}",
        stderr(&o)
    );
}

#[test]
fn with_no_arguments_and_no_terminal_it_says_how_to_print_the_table() {
    let dir = tempfile::tempdir().unwrap();
    let o = neardup(&[], dir.path());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("needs a terminal") && stderr(&o).contains("neardup run demo"),
        "{}",
        stderr(&o)
    );
    // A broken experiment is reported plainly, before any terminal change.
    std::fs::write(
        dir.path().join("bad.yaml"),
        "corpus: demo\nalgorithms: [{type: nope}]\n",
    )
    .unwrap();
    let o = neardup(&["tui", "bad.yaml"], dir.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("bad.yaml"), "{}", stderr(&o));
}

#[test]
fn the_demo_runs_by_name_and_writes_reports() {
    let dir = tempfile::tempdir().unwrap();
    let o = neardup(&["run", "demo", "--verbose"], dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    for needle in [
        "exact",
        "simhash(words,tf)",
        "news/full",
        "news/partial",
        "news/layout",
        "prose/full",
        "all pages",
    ] {
        assert!(out.contains(needle), "missing {needle} in:\n{out}");
    }
    for file in [
        "results.csv",
        "results.parquet",
        "throughput.csv",
        "throughput.parquet",
    ] {
        let path = dir.path().join("reports/demo").join(file);
        assert!(
            path.metadata().map(|m| m.len() > 0).unwrap_or(false),
            "{}",
            path.display()
        );
    }
    let csv = std::fs::read_to_string(dir.path().join("reports/demo/results.csv")).unwrap();
    // One row per extraction x algorithm x threshold x slice: two
    // extractions; exact has 1 threshold, simhash 7 (its tables' floor 6), the three shingling
    // set-ups 19 each, I-Match 1 and 11 (K+1), the semantic method 15
    // twice; each has the `all` row plus one per slice. The summary prints
    // each slice once per extraction x algorithm block (2 x 9 blocks).
    let slices = out
        .lines()
        .filter(|l| l.starts_with("  news/") || l.starts_with("  prose/"))
        .count()
        / 18;
    assert_eq!(
        csv.lines().count() - 1,
        2 * (1 + 7 + 3 * 19 + 1 + 11 + 2 * 15) * (slices + 1),
        "{csv}"
    );
    assert!(
        out.contains("simhash(words,tf) [main]") && out.contains("simhash(words,tf) [full_text]")
    );
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("demo.yaml"),
        "corpus: demo\nalgorithms:\n  - {type: exact}\n  - {type: simhash}\n  - {type: jaccard}\n  \
         - {type: minhash}\n  - {type: minhash, sketch: one_permutation, verify: exact}\n  \
         - {type: minhash, candidates: super_shingles, min_shared: 1}\n  \
         - {type: imatch, extra_lexicons: 10}\n  - {type: semantic}\n",
    )
    .unwrap();
    let one = neardup(
        &["run", "--threads", "1", "-o", "one", "demo.yaml"],
        dir.path(),
    );
    let two = neardup(
        &["run", "--threads", "2", "-o", "two", "demo.yaml"],
        dir.path(),
    );
    assert!(
        one.status.success() && two.status.success(),
        "{}",
        stderr(&one)
    );
    let a = std::fs::read_to_string(dir.path().join("one/results.csv")).unwrap();
    let b = std::fs::read_to_string(dir.path().join("two/results.csv")).unwrap();
    assert_eq!(a, b);
}

#[test]
fn worker_flags_belong_to_the_commands_that_extract_and_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let help = |command: &str| stdout(&neardup(&[command, "--help"], dir.path()));
    for command in [
        "run",
        "tune",
        "tui",
        "signatures",
        "evaluate",
        "bench",
        "ingest",
    ] {
        let text = help(command);
        assert!(
            text.contains("--threads") && text.contains("--no-cache"),
            "{command}: {text}"
        );
    }
    for command in ["report", "check", "extract", "cache", "completions", "man"] {
        let text = help(command);
        assert!(
            !text.contains("--threads") && !text.contains("--no-cache"),
            "{command}: {text}"
        );
    }
    // Below a command with subcommands too.
    assert!(stdout(&neardup(&["index", "build", "--help"], dir.path())).contains("--threads"));
    let zero = neardup(&["corpus", "stats", "--threads", "0", "demo"], dir.path());
    assert_eq!(zero.status.code(), Some(2), "{}", stderr(&zero));
    assert!(
        stderr(&zero).contains("at least 1 thread"),
        "{}",
        stderr(&zero)
    );
    let many = neardup(
        &["corpus", "stats", "--threads", "100000", "demo"],
        dir.path(),
    );
    assert!(many.status.success(), "{}", stderr(&many));
    let cores = std::thread::available_parallelism().unwrap().get();
    let note = format!("note: --threads 100000 capped at {}", 4 * cores);
    assert!(stderr(&many).contains(&note), "{}", stderr(&many));
    assert_eq!(stderr(&many).lines().count(), 1, "{}", stderr(&many));
}

#[test]
fn the_extraction_cache_gives_the_cold_run_s_results_and_survives_damage() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("demo.yaml"),
        "corpus: demo\nextract: [main, full_text]\nalgorithms:\n  - {type: simhash}\n  \
         - {type: minhash}\n  - {type: semantic}\n",
    )
    .unwrap();
    let run = |out: &str, extra: &[&str]| {
        let mut args = vec!["run"];
        args.extend(extra);
        args.extend(["--verbose", "-o", out, "demo.yaml"]);
        let o = neardup(&args, dir.path());
        assert!(o.status.success(), "{}", stderr(&o));
        let csv = std::fs::read_to_string(dir.path().join(out).join("results.csv")).unwrap();
        (stdout(&o), stderr(&o), csv)
    };
    let cache = dir.path().join(".neardup-cache/extract");
    let (cold, _, cold_csv) = run("cold", &[]);
    assert!(
        cold.contains("extraction cache [main]: 0 of ") && cold.contains("decode+extract"),
        "{cold}"
    );
    let files: Vec<_> = std::fs::read_dir(&cache)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 2, "one file per extraction: {files:?}");

    let (hot, hot_err, hot_csv) = run("hot", &[]);
    assert_eq!(cold_csv, hot_csv);
    assert!(
        hot.contains("extract (cache)") && !hot.contains("decode+extract"),
        "{hot}"
    );
    assert!(!hot_err.contains("warning"), "{hot_err}");

    // A truncated file and a damaged one: a warning, the pages extracted
    // again, the same results, and the file rebuilt.
    let main = files
        .iter()
        .find(|f| f.to_string_lossy().contains(".main."))
        .unwrap();
    let good = std::fs::read(main).unwrap();
    std::fs::write(main, &good[..good.len() / 2]).unwrap();
    let full = files
        .iter()
        .find(|f| f.to_string_lossy().contains(".full_text."))
        .unwrap();
    let mut damaged = std::fs::read(full).unwrap();
    let middle = damaged.len() / 2;
    damaged[middle] ^= 0x20;
    std::fs::write(full, &damaged).unwrap();
    let (_, err, csv) = run("damaged", &[]);
    assert_eq!(cold_csv, csv);
    assert!(
        err.contains("warning: extraction cache [main]") && err.contains("truncated"),
        "{err}"
    );
    assert!(
        err.contains("warning: extraction cache [full_text]"),
        "{err}"
    );
    assert_eq!(std::fs::read(main).unwrap(), good, "rebuilt byte for byte");

    // --no-cache reads and writes nothing; `cache clear` empties it.
    let o = neardup(&["cache", "clear"], dir.path());
    assert!(stdout(&o).contains("removed 2 files"), "{}", stdout(&o));
    let (off, _, csv) = run("off", &["--no-cache"]);
    assert_eq!(cold_csv, csv);
    assert!(!off.contains("extraction cache"), "{off}");
    assert_eq!(std::fs::read_dir(&cache).unwrap().count(), 0);
}

#[test]
fn corpus_stats_and_import() {
    let dir = tempfile::tempdir().unwrap();
    let o = neardup(&["corpus", "stats", "demo"], dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("pages       196"), "{out}");
    assert!(out.contains("news/layout"), "{out}");

    let shared = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpora/clough_stevenson_short_answers");
    if !shared.exists() {
        eprintln!("skipping the import half: {} is not here", shared.display());
        return;
    }
    let out_path = dir.path().join("cs.jsonl.gz");
    let o = neardup(
        &[
            "corpus",
            "import",
            "clough-stevenson",
            shared.to_str().unwrap(),
            "-o",
            out_path.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let o = neardup(&["corpus", "stats", out_path.to_str().unwrap()], dir.path());
    let out = stdout(&o);
    // 5 task clusters of orig + cut + light (5 sizes between 6 and 10 in
    // this corpus), and 19 heavy + 38 non singletons.
    assert!(out.contains("pages       100"), "{out}");
    assert!(out.contains("answer/heavy"), "{out}");
    assert!(out.contains("clusters    62"), "{out}");
}

#[test]
fn extract_prints_title_and_main_text_of_any_charset() {
    let dir = tempfile::tempdir().unwrap();
    let page = "<html><head><title>地铁开通_华夏资讯网</title></head><body>\
        <div class='nav'><a href='/'>首页</a> <a href='/n'>国内</a></div><div class='article'>\
        <p>本报讯 经过四年建设，江城地铁五号线今天上午九时正式开通试运营。</p>\
        <p>据地铁公司介绍，五号线采用六节编组列车，高峰时段行车间隔为四分钟。</p></div></body></html>";
    let (gbk, _, _) = encoding_rs::GBK.encode(page);
    std::fs::write(dir.path().join("p.html"), &gbk).unwrap();
    let o = neardup(&["extract", "p.html"], dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("title: 地铁开通\n"), "{out}");
    assert!(
        out.contains("GBK") && out.contains("本报讯") && !out.contains("首页"),
        "{out}"
    );
    let o = neardup(&["extract", "--json", "p.html"], dir.path());
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["structure"]["sentences"].as_array().unwrap().len(), 2);
    assert_eq!(v["structure"]["sentences"][1]["last_in_article"], true);
    let o = neardup(&["extract", "missing.html"], dir.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).starts_with("error: missing.html: "),
        "{}",
        stderr(&o)
    );
}

#[test]
fn extract_eval_scores_a_gold_folder() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("html")).unwrap();
    let body = "The first paragraph of the story, with a comma, and then a full stop here. \
                The second sentence continues the story for a good while longer.";
    let gold = serde_json::json!({"p1": {"articleBody": body, "url": "http://x"}});
    std::fs::write(dir.path().join("ground-truth.json"), gold.to_string()).unwrap();
    let html = format!("<html><body><div class='menu'><a href='/'>Home</a></div><article><p>{body}</p></article></body></html>");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(html.as_bytes()).unwrap();
    std::fs::write(dir.path().join("html/p1.html.gz"), gz.finish().unwrap()).unwrap();
    let o = neardup(&["extract-eval", "."], dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(out.lines().last(), Some("F1 1.000"), "{out}");
    let o = neardup(&["extract-eval", "html"], dir.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no gold found"));
}

#[test]
fn shingling_runs_beside_the_others_with_its_own_tokens() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("s.yaml"),
        "corpus: demo\nalgorithms:\n  - {type: simhash}\n  - {type: jaccard, width: 3}\n  \
         - {type: jaccard, tokens: chars, width: 2}\n  - {type: minhash, threshold: 0.6}\n",
    )
    .unwrap();
    let o = neardup(&["run", "--verbose", "-o", "out", "s.yaml"], dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("jaccard(w=3) [main]   jaccard >=0.5"), "{out}");
    assert!(out.contains("jaccard(w=2) on chars [main]"), "{out}");
    // The banding is chosen for the threshold and its curve is printed.
    assert!(out.contains("chosen for J >= 0.6"), "{out}");
    assert!(out.contains("P(candidate | J) for"), "{out}");
    assert!(out.contains("tokenize           main chars"), "{out}");
    // Every threshold of the sweep is a row of the results.
    let csv = std::fs::read_to_string(dir.path().join("out/results.csv")).unwrap();
    let sweep = csv
        .lines()
        .filter(|l| l.starts_with("jaccard,main,jaccard(w=3),") && l.contains(",all,"))
        .count();
    assert_eq!(sweep, 19, "{csv}");
}

/// Each experiment with one algorithm, `yaml`, is refused with exit 2 and
/// an error naming `key`.
fn assert_rejected(cases: &[(&str, &str)]) {
    let dir = tempfile::tempdir().unwrap();
    for (yaml, key) in cases {
        std::fs::write(
            dir.path().join("x.yaml"),
            format!("corpus: demo\nalgorithms: [{yaml}]\n"),
        )
        .unwrap();
        let o = neardup(&["run", "x.yaml"], dir.path());
        assert_eq!(o.status.code(), Some(2), "{yaml}");
        assert!(stderr(&o).contains(key), "{yaml}: {}", stderr(&o));
    }
}

#[test]
fn impossible_banding_is_named() {
    assert_rejected(&[
        ("{type: minhash, bands: 20, rows: 8}", "algorithms[0].rows"),
        ("{type: minhash, bands: 20}", "algorithms[0].rows"),
        (
            "{type: minhash, candidates: all_pairs, bands: 2}",
            "algorithms[0].bands",
        ),
        ("{type: minhash, threshold: 1.5}", "algorithms[0].threshold"),
        (
            "{type: jaccard, floor: 0.6, threshold: 0.7, grid: [0.5]}",
            "algorithms[0].grid[0]",
        ),
        (
            "{type: minhash, candidates: super_shingles, min_shared: 9}",
            "algorithms[0].min_shared",
        ),
        ("{type: jaccard, tokens: letters}", "letters"),
    ]);
}

#[test]
fn imatch_with_extra_lexicons_beside_plain_imatch() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("i.yaml"),
        "corpus: demo\nextract: main\nalgorithms:\n  - {type: imatch, min_terms: 40}\n  \
         - {type: imatch, extra_lexicons: 10, drop: 0.33}\n",
    )
    .unwrap();
    let o = neardup(&["run", "--verbose", "-o", "out", "i.yaml"], dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("imatch(corpus lexicon) [main]   shared signatures >=1"),
        "{out}"
    );
    assert!(
        out.contains("imatch(corpus lexicon,K=10,p=0.33) [main]"),
        "{out}"
    );
    assert!(out.contains("lexicon: "), "{out}");
    // A high minimum leaves short pages unsigned, counted per slice.
    let unsigned = out
        .lines()
        .find(|l| l.contains("pages without a signature ("))
        .unwrap_or_else(|| panic!("no per-slice count: {out}"));
    assert!(unsigned.contains("news/"), "{unsigned}");
    let csv = std::fs::read_to_string(dir.path().join("out/results.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let column = header.iter().position(|h| *h == "unsigned_pages").unwrap();
    let all_row = csv
        .lines()
        .find(|l| l.starts_with("imatch,main,imatch(corpus lexicon),") && l.contains(",all,"))
        .unwrap();
    let count: u64 = all_row.split(',').nth(column).unwrap().parse().unwrap();
    assert!(count > 0, "{all_row}");
}

#[test]
fn missing_reference_lexicon_is_named() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("x.yaml"),
        "corpus: demo\nalgorithms: [{type: imatch, lexicon: nowhere.jsonl.gz}]\n",
    )
    .unwrap();
    let o = neardup(&["run", "x.yaml"], dir.path());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("nowhere.jsonl.gz"), "{}", stderr(&o));
    assert_rejected(&[
        (
            "{type: imatch, extra_lexicons: 3, threshold: 5}",
            "algorithms[0].threshold",
        ),
        ("{type: imatch, drop: 1.0}", "algorithms[0].drop"),
        (
            "{type: imatch, percentiles: [0.9, 0.1]}",
            "algorithms[0].percentiles",
        ),
        (
            "{type: imatch, idf: [1, 5], percentiles: [0.1, 0.9]}",
            "algorithms[0].percentiles",
        ),
        ("{type: imatch, min_terms: 0}", "algorithms[0].min_terms"),
    ]);
}

#[test]
fn simhash_options_are_checked() {
    assert_rejected(&[
        (
            "{type: simhash, index: 4x16, floor: 4}",
            "algorithms[0].floor",
        ),
        // The default tables find k <= 6; a wider sweep must ask for all pairs.
        ("{type: simhash, floor: 16}", "candidates: all_pairs"),
        ("{type: simhash, grid: [7]}", "algorithms[0].grid[0]"),
        ("{type: simhash, bits: 128}", "algorithms[0].candidates"),
        (
            "{type: simhash, candidates: all_pairs, index: 6c3}",
            "algorithms[0].index",
        ),
        ("{type: simhash, candidates: every}", "every"),
        ("{type: jaccard, max_df: 0}", "algorithms[0].max_df"),
        ("{type: jaccard, max_df: 1.5}", "algorithms[0].max_df"),
        (
            "{type: semantic, candidates_per_page: 200000}",
            "algorithms[0].candidates_per_page",
        ),
        (
            "{type: simhash, index: 9z9, floor: 3}",
            "algorithms[0].index",
        ),
        ("{type: simhash, bits: 32}", "algorithms[0].bits"),
        (
            "{type: simhash, bits: 128, index: 4x16, floor: 3, grid: [3]}",
            "algorithms[0].index",
        ),
        ("{type: simhash, weights: bm25}", "bm25"),
        (
            "{type: simhash, idf: nowhere.jsonl, weights: tf_idf}",
            "nowhere.jsonl",
        ),
    ]);
}

#[test]
fn permuted_tables_judge_like_the_full_scan() {
    let dir = tempfile::tempdir().unwrap();
    // Rows of results.csv for `label`, without the label column.
    let rows = |experiment: &str, label: &str| -> Vec<String> {
        std::fs::write(dir.path().join("t.yaml"), experiment).unwrap();
        let o = neardup(&["run", "-o", "out", "t.yaml"], dir.path());
        assert!(o.status.success(), "{}", stderr(&o));
        let csv = std::fs::read_to_string(dir.path().join("out/results.csv")).unwrap();
        // (Labels hold commas, so the CSV quotes them.)
        let label = format!("\"{label}\",");
        let rows: Vec<String> = csv
            .lines()
            .filter(|l| l.contains(&label))
            .map(|l| l.replacen(&label, "", 1))
            .collect();
        assert!(!rows.is_empty(), "{label} in {csv}");
        rows
    };
    // The default (8c2 tables, floor 6) against every pair within 6 bits.
    let scan = rows(
        "corpus: demo\nalgorithms:\n  - {type: simhash, candidates: all_pairs, floor: 6}\n",
        "simhash(words,tf,all pairs)",
    );
    assert_eq!(scan.len() % 7, 0, "thresholds 0..=6");
    assert_eq!(
        rows(
            "corpus: demo\nalgorithms:\n  - {type: simhash}\n",
            "simhash(words,tf)"
        ),
        scan
    );
    // Other layouts at their own floor.
    let scan = rows(
        "corpus: demo\nalgorithms:\n  - {type: simhash, candidates: all_pairs, floor: 3}\n",
        "simhash(words,tf,all pairs)",
    );
    let tables = "corpus: demo\nalgorithms:\n  \
                  - {type: simhash, index: 6c3}\n  \
                  - {type: simhash, index: 4x4, floor: 3, grid: [0, 1, 2, 3]}\n";
    assert_eq!(rows(tables, "simhash(words,tf,tables 6c3)"), scan);
    assert_eq!(rows(tables, "simhash(words,tf,tables 4x4)"), scan);
}

#[test]
fn semantic_method_reports_both_aggregates() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("s.yaml"),
        "corpus: demo\nextract: main\nalgorithms:\n  - {type: semantic}\n  \
         - {type: semantic, aggregate: paper_mean, threshold: 0.3}\n",
    )
    .unwrap();
    let o = neardup(&["run", "--verbose", "-o", "out", "s.yaml"], dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("semantic(cilin level 5,best_match,5 topics) [main]   topic similarity >=0.8"),
        "{out}"
    );
    assert!(
        out.contains("semantic(cilin level 5,paper_mean,5 topics) [main]   topic similarity >=0.3"),
        "{out}"
    );
    // The best-match mean finds reprints at the paper's 0.8; the paper's
    // own mean cannot reach it (identical pages score 1/m).
    let correct = |block: &str| -> u64 {
        let at = out.find(block).unwrap();
        let line = out[at..]
            .lines()
            .find(|l| l.starts_with("  all pages"))
            .unwrap();
        line.split_whitespace().nth(4).unwrap().parse().unwrap()
    };
    assert!(correct("semantic(cilin level 5,best_match") > 20, "{out}");
    let paper_at_08 = std::fs::read_to_string(dir.path().join("out/results.csv"))
        .unwrap()
        .lines()
        .filter(|l| l.contains("paper_mean") && l.contains(",0.8,false,all,"))
        .count();
    assert_eq!(paper_at_08, 1);
    assert_rejected(&[
        ("{type: semantic, level: 6}", "algorithms[0].level"),
        ("{type: semantic, aggregate: median}", "median"),
        (
            "{type: semantic, coefficients: [1, 1, 1, 1, 1, -1]}",
            "coefficients[5]",
        ),
        (
            "{type: semantic, title_threshold: 1.5}",
            "algorithms[0].title_threshold",
        ),
    ]);
}

#[test]
fn tag_eval_names_the_broken_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("t.jsonl"),
        "{\"tagged_paragraphs\": [[[\"我们\", \"r\"], [\"热爱\", \"v\"]]]}\n{\"tagged_paragraphs\": [[[\"x\", \n",
    )
    .unwrap();
    let o = neardup(&["tag-eval", "t.jsonl"], dir.path());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("t.jsonl:2"), "{}", stderr(&o));
    assert!(!stderr(&o).contains("panicked"));
    std::fs::write(dir.path().join("t.jsonl"), "{\"paragraphs\": []}\n").unwrap();
    let o = neardup(&["tag-eval", "t.jsonl"], dir.path());
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("t.jsonl:1") && e.contains("tagged_paragraphs"),
        "{e}"
    );
    std::fs::write(
        dir.path().join("t.jsonl"),
        "{\"tagged_paragraphs\": [[[\"我们\", \"r\"], [\"热爱\", \"v\"]]]}\n",
    )
    .unwrap();
    let o = neardup(&["tag-eval", "t.jsonl"], dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("gold words 2"), "{}", stdout(&o));
}

#[test]
fn run_prints_one_summary_line_per_algorithm_and_json_on_request() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("s.yaml"),
        "corpus: demo\nextract: [main, full_text]\nalgorithms:\n  - {type: simhash}\n  \
         - {type: minhash, threshold: 0.6}\n",
    )
    .unwrap();
    let o = neardup(&["run", "-o", "out", "s.yaml"], dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let (summary, by_method) = out
        .split_once("clustered F1 by clustering method")
        .expect("the table per clustering method");
    let rows = |text: &str| {
        text.lines()
            .filter(|l| l.starts_with("simhash(") || l.starts_with("minhash("))
            .count()
    };
    assert_eq!(
        rows(summary),
        4,
        "one line per algorithm x extraction:\n{out}"
    );
    assert_eq!(rows(by_method), 4, "and one per method below:\n{out}");
    assert!(
        !out.contains("news/partial"),
        "per-slice tables need --verbose:\n{out}"
    );
    assert!(
        out.contains("best clus") && out.contains("R@P>=.99") && out.contains("cand R"),
        "{out}"
    );
    // Not a terminal: no progress bars on stderr.
    assert!(!stderr(&o).contains("ETA"), "{}", stderr(&o));

    let o = neardup(&["run", "--json", "-o", "out", "s.yaml"], dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let summary: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let algorithms = summary["algorithms"].as_array().unwrap();
    assert_eq!(algorithms.len(), 4);
    for a in algorithms {
        let f1 = a["pairwise"]["f1"].as_f64();
        let best = a["best"][0]["value"].as_f64().unwrap();
        assert!(f1.is_none_or(|f| f <= best + 1e-12), "{a}");
        assert!(a["candidate_recall"].as_f64().unwrap() <= 1.0);
        assert!(a["pages_per_cpu_second"].as_f64().unwrap() > 0.0);
    }
}

#[test]
fn tune_on_an_experiment_with_seeds_says_it_tunes_the_own_corpus_and_reproduces() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("t.yaml"),
        "corpus: demo\nbuild: b.yaml\nseeds: {values: [1, 2], scale: 0.1}\nextract: main\nalgorithms:\n  - {type: jaccard}\n",
    )
    .unwrap();
    let o = neardup(&["tune", "t.yaml", "-o", "tuned.yaml"], dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("`seeds:` left aside") && out.contains("not on the 2 seeds' corpora"),
        "{out}"
    );
    let text = std::fs::read_to_string(dir.path().join("tuned.yaml")).unwrap();
    let tuned: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
    assert!(tuned.get("seeds").is_none(), "{text}");
    assert!(text.contains("# `seeds:` left aside"), "{text}");
    let chosen = &tuned["tuned"]["runs"][0];
    // Run without seeds (no builder needed): the same threshold and F.
    let o = neardup(&["run", "tuned.yaml", "--json", "-o", "r"], dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let run: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let a = &run["algorithms"][0];
    assert_eq!(
        a["threshold"].as_f64(),
        chosen["threshold"].as_f64(),
        "{text}"
    );
    assert_eq!(
        a["pairwise"]["f1"].as_f64(),
        chosen["value"].as_f64(),
        "{text}"
    );
    assert!(!dir.path().join("r/seed-1").exists());
}

#[test]
fn tune_then_run_on_another_corpus_prints_the_transfer_table() {
    let dir = tempfile::tempdir().unwrap();
    // Tune on the demo, apply to a corpus that is the demo's first 120 pages.
    let corpus = neardup::corpus::demo::demo_corpus().unwrap();
    let part: Vec<_> = corpus.pages.iter().take(120).cloned().collect();
    neardup::corpus::write_corpus(&part, &dir.path().join("part.jsonl")).unwrap();
    std::fs::write(
        dir.path().join("t.yaml"),
        "corpus: demo\nextract: main\nalgorithms:\n  - {type: jaccard}\n  - {type: simhash}\n",
    )
    .unwrap();
    let o = neardup(&["tune", "t.yaml", "-o", "tuned/t.tuned.yaml"], dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(dir.path().join("tuned/t.tuned.yaml")).unwrap();
    assert!(
        text.contains("tuned:") && text.contains("objective: f1"),
        "{text}"
    );
    let o = neardup(
        &[
            "run",
            "tuned/t.tuned.yaml",
            "--corpus",
            "part.jsonl",
            "-o",
            "on-part",
        ],
        dir.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("on the tuning corpus") && out.contains("own best"),
        "{out}"
    );
    let rows: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("on-part/transfer.json")).unwrap(),
    )
    .unwrap();
    for row in rows.as_array().unwrap() {
        // The own best is at least what the carried threshold gives.
        let own = row["own_value"].as_f64().unwrap();
        let applied = row["applied_value"].as_f64().unwrap_or(0.0);
        assert!(own + 1e-12 >= applied, "{row}");
        assert!(row["tuned_value"].as_f64().is_some(), "{row}");
    }
    assert!(
        out.contains("Transfer gap per level and clustering method"),
        "{out}"
    );
    let by_method: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("on-part/transfer_by_method.json")).unwrap(),
    )
    .unwrap();
    let by_method = by_method.as_array().unwrap();
    // Two runs, every clustering method each, three levels with a gap each.
    let methods = neardup::eval::clustering::Clustering::ALL.len();
    assert_eq!(by_method.len(), 2 * methods, "{by_method:?}");
    for row in by_method {
        for level in ["pairwise", "clustered", "page"] {
            let own = row[level]["own"].as_f64().unwrap();
            let here = row[level]["here"].as_f64().unwrap_or(0.0);
            assert!(own + 1e-12 >= here, "{level}: {row}");
        }
    }
    // Tuned for clustered F1, the file names the method chosen per entry.
    let o = neardup(
        &[
            "tune",
            "t.yaml",
            "--objective",
            "clustered_f1",
            "-o",
            "tuned/c.yaml",
        ],
        dir.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let tuned =
        neardup::experiment::ExperimentConfig::load(&dir.path().join("tuned/c.yaml")).unwrap();
    assert!(
        tuned.algorithms.iter().all(|e| e.clustering.is_some()),
        "{:?}",
        tuned.algorithms
    );
    assert!(stdout(&o).contains("clustering "), "{}", stdout(&o));
    // A bad objective is a usage error naming the flag.
    let o = neardup(
        &["tune", "t.yaml", "--objective", "f2", "-o", "x.yaml"],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--objective"), "{}", stderr(&o));
}

#[test]
fn train_writes_a_model_that_an_experiment_runs_and_a_bad_one_is_named() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("l.yaml"),
        "corpus: demo\nextract: main\nalgorithms:\n  - {type: jaccard}\n  - {type: learned, model: m/demo.json, semantic: false}\n",
    )
    .unwrap();
    // Running before training names the missing model.
    let o = neardup(&["run", "l.yaml", "-o", "out"], dir.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("algorithms[1].model") && stderr(&o).contains("m/demo.json"),
        "{}",
        stderr(&o)
    );
    let o = neardup(&["train", "l.yaml", "-o", "m/demo.json"], dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("jaccard_words"), "{}", stdout(&o));
    let first = std::fs::read(dir.path().join("m/demo.json")).unwrap();
    let o = neardup(&["train", "l.yaml", "-o", "m/demo.json"], dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        std::fs::read(dir.path().join("m/demo.json")).unwrap(),
        first,
        "training is deterministic"
    );
    let o = neardup(&["run", "l.yaml", "-o", "out"], dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("learned(minhash+simhash; model demo)"),
        "{}",
        stdout(&o)
    );
    // A model file that is not one: exit 2 naming the file and the key.
    std::fs::write(dir.path().join("m/demo.json"), "{\"features\": 3}").unwrap();
    let o = neardup(&["run", "l.yaml", "-o", "out"], dir.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("demo.json") && stderr(&o).contains("algorithms[1].model"),
        "{}",
        stderr(&o)
    );
    // No learned entry to train.
    std::fs::write(
        dir.path().join("j.yaml"),
        "corpus: demo\nalgorithms: [{type: jaccard}]\n",
    )
    .unwrap();
    let o = neardup(&["train", "j.yaml", "-o", "x.json"], dir.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("no `type: learned` entry"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn train_folds_prints_out_of_fold_figures_the_same_on_one_thread_and_many() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let experiment = repo.join("experiments/judged_demo.yaml");
    let experiment = experiment.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let o = neardup(&["train", experiment, "--folds", "5"], dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    for says in [
        "labels from its judged pairs",
        "5-fold cross-validation over pages: 351 pairs (148 duplicates)",
        "(15 models)",
        "out of fold, at 0.5",
        "fold 4:",
        "spread of fold F1",
    ] {
        assert!(text.contains(says), "{says}: {text}");
    }
    let one = neardup(
        &["train", experiment, "--folds", "5", "--threads", "1"],
        dir.path(),
    );
    assert_eq!(stdout(&one), text, "one thread or many, the same figures");
    // The same judge in `run` scores each pair by the model that saw
    // neither page: its figure at 0.5 is the one `train` printed.
    let o = neardup(&["run", experiment, "-o", "out"], dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let half = text
        .lines()
        .find(|l| l.starts_with("out of fold, at 0.5"))
        .unwrap();
    let f1: f64 = half.rsplit(' ').next().unwrap().parse().unwrap();
    let run = stdout(&o);
    let judged = run
        .lines()
        .find(|l| {
            l.starts_with("learned(minhash+simhash+jaccard; 5 folds) [main] probability >=0.5")
        })
        .unwrap_or_else(|| panic!("{run}"));
    let run_f: f64 = judged
        .split(" F ")
        .nth(1)
        .unwrap()
        .split('%')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((run_f / 100.0 - f1).abs() < 0.0015, "{judged} vs {half}");

    // Too few folds, and folds beside a model, are named errors.
    std::fs::write(
        dir.path().join("f.yaml"),
        "corpus: demo\nalgorithms:\n  - {type: learned, folds: 2}\n",
    )
    .unwrap();
    let o = neardup(&["train", "f.yaml", "--folds", "2"], dir.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("folds"), "{}", stderr(&o));
    std::fs::write(
        dir.path().join("g.yaml"),
        "corpus: demo\nalgorithms:\n  - {type: learned, folds: 5, model: m.json}\n",
    )
    .unwrap();
    let o = neardup(&["run", "g.yaml", "-o", "out"], dir.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("folds") && stderr(&o).contains("not both"),
        "{}",
        stderr(&o)
    );
}

/// Every model an experiment names is shipped, loads, was fitted on the
/// candidates that experiment takes in, and the demo model is what
/// `neardup train` makes of its experiment today.
#[test]
fn the_shipped_models_load_match_their_experiments_and_the_demo_one_retrains_the_same() {
    use neardup::experiment::config::AlgorithmConfig;
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut named = Vec::new();
    for entry in std::fs::read_dir(repo.join("experiments")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "yaml") {
            continue;
        }
        let config = neardup::experiment::ExperimentConfig::load(&path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for a in &config.algorithms {
            let AlgorithmConfig::Learned(learned) = &a.config else {
                continue;
            };
            let Some(model) = &learned.loaded else {
                assert!(learned.folds.is_some(), "{}", path.display());
                continue;
            };
            assert_eq!(
                model.candidates_from,
                learned.candidates_from,
                "{}: {:?}",
                path.display(),
                learned.model
            );
            named.push(learned.model.clone().unwrap());
        }
    }
    named.sort();
    assert_eq!(named, ["../models/demo.json", "../models/site.json"]);
    let dir = tempfile::tempdir().unwrap();
    let experiment = repo.join("experiments/learned_demo.yaml");
    let o = neardup(
        &["train", experiment.to_str().unwrap(), "-o", "demo.json"],
        dir.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("demo.json")).unwrap(),
        std::fs::read_to_string(repo.join("models/demo.json")).unwrap(),
        "models/demo.json is what training on experiments/learned_demo.yaml gives"
    );
}

#[test]
fn an_empty_corpus_is_exit_2_not_nan() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("empty.jsonl"), "").unwrap();
    std::fs::write(
        dir.path().join("blank.jsonl"),
        "{\"id\": \"a\", \"cluster\": \"x\", \"text\": \"\"}\n",
    )
    .unwrap();
    for (corpus, says) in [
        ("empty.jsonl", "the corpus has no pages"),
        ("blank.jsonl", "1 rows skipped"),
    ] {
        std::fs::write(
            dir.path().join("x.yaml"),
            format!("corpus: {corpus}\nalgorithms: [{{type: exact}}]\n"),
        )
        .unwrap();
        let o = neardup(&["run", "x.yaml", "-o", "out"], dir.path());
        assert_eq!(o.status.code(), Some(2), "{corpus}: {}", stdout(&o));
        let e = stderr(&o);
        assert!(e.contains(corpus) && e.contains(says), "{e}");
        assert!(!stdout(&o).contains("NaN"));
    }
}

#[test]
fn bad_tuning_inputs_name_file_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("e.yaml"),
        "corpus: demo\nalgorithms:\n  - {type: jaccard, extract: mian}\n",
    )
    .unwrap();
    let o = neardup(&["run", "e.yaml"], dir.path());
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("e.yaml:3:") && e.contains("algorithms[0].extract"),
        "{e}"
    );

    std::fs::write(
        dir.path().join("t.yaml"),
        "corpus: demo\nalgorithms:\n  - {type: jaccard}\ntuned: {corpus: x, objective: f1, runs: [{entry: 0}]}\n",
    )
    .unwrap();
    let o = neardup(&["run", "t.yaml"], dir.path());
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("t.yaml:4:") && e.contains("tuned.runs[0]"),
        "{e}"
    );

    let o = neardup(&["run", "e.yaml", "--corpus", "missing.jsonl"], dir.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    std::fs::write(
        dir.path().join("ok.yaml"),
        "corpus: demo\nalgorithms:\n  - {type: jaccard}\n",
    )
    .unwrap();
    let o = neardup(&["run", "ok.yaml", "--corpus", "missing.jsonl"], dir.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("missing.jsonl"), "{}", stderr(&o));
}

#[test]
fn a_bad_semantic_bucket_reach_names_file_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    for (value, says) in [
        (
            "-3",
            "b.yaml:3:5: algorithms[0]: invalid value: integer `-3`, expected usize",
        ),
        (
            "abc",
            "b.yaml:3:5: algorithms[0]: invalid type: string \"abc\"",
        ),
        (
            "200000000",
            "b.yaml:4:5: `algorithms[0].bucket_reach`: 200000000 is out of range",
        ),
    ] {
        std::fs::write(
            dir.path().join("b.yaml"),
            format!("corpus: demo\nalgorithms:\n  - type: semantic\n    bucket_reach: {value}\n"),
        )
        .unwrap();
        let o = neardup(&["run", "b.yaml", "-o", "out"], dir.path());
        assert_eq!(o.status.code(), Some(2), "{value}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{value}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"));
    }
}

#[test]
fn check_validates_without_running_and_names_the_error() {
    let dir = tempfile::tempdir().unwrap();
    let o = neardup(&["check", "demo"], dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("ok: demo: "), "{out}");
    assert!(out.contains("196 pages"), "{out}");
    assert!(!dir.path().join("reports").exists(), "check writes nothing");
    std::fs::write(
        dir.path().join("x.yaml"),
        "corpus: demo\nalgorithms:\n  - type: minhash\n    thershold: 0.5\n",
    )
    .unwrap();
    let o = neardup(&["check", "x.yaml"], dir.path());
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.starts_with("error: x.yaml:4:"), "{e}");
    assert!(e.contains("did you mean `threshold`?"), "{e}");
    std::fs::write(
        dir.path().join("y.yaml"),
        "corpus: missing.jsonl\nalgorithms: [{type: exact}]\n",
    )
    .unwrap();
    let o = neardup(&["check", "y.yaml"], dir.path());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("missing.jsonl"), "{}", stderr(&o));
}

#[test]
fn completions_and_man_page_come_from_the_parser() {
    let dir = tempfile::tempdir().unwrap();
    for shell in ["bash", "zsh", "fish"] {
        let o = neardup(&["completions", shell], dir.path());
        assert!(o.status.success(), "{shell}: {}", stderr(&o));
        let script = stdout(&o);
        for word in ["run", "tune", "check", "report"] {
            assert!(script.contains(word), "{shell} completions lack {word}");
        }
    }
    let o = neardup(&["completions", "tcsh"], dir.path());
    assert_eq!(o.status.code(), Some(2));
    let o = neardup(&["man"], dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let page = stdout(&o);
    assert!(page.contains(".TH neardup 1"), "{page}");
    assert!(
        page.contains("neardup\\-run") || page.contains("run"),
        "{page}"
    );
}

/// `run` and `tune` choose the best F over the same thresholds: every one
/// the stored pairs answer, not only the grid (issue 48).
#[test]
fn run_and_tune_report_one_best_f() {
    let dir = tempfile::tempdir().unwrap();
    let o = neardup(&["run", "demo", "--json", "-o", "r"], dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let summary: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let o = neardup(&["tune", "demo", "-o", "tuned.yaml"], dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let tuned = stdout(&o);
    let rows = summary["algorithms"].as_array().unwrap();
    assert!(!rows.is_empty());
    for row in rows {
        let best = &row["best"][0];
        assert_eq!(best["objective"], "f1");
        let name = format!(
            "  {} [{}]: ",
            row["algorithm"].as_str().unwrap(),
            row["extract"].as_str().unwrap()
        );
        let line = tuned
            .lines()
            .find(|l| l.starts_with(&name))
            .unwrap_or_else(|| panic!("{name} in {tuned}"));
        let expected = format!(
            "{name}{} (f1 {:.2}%)",
            best["threshold"].as_f64().unwrap(),
            100.0 * best["value"].as_f64().unwrap()
        );
        assert!(line.starts_with(&expected), "{line} vs run's {expected}");
    }
}

/// Two learned entries with different models are two rows, not one label
/// whose rows merge (issue 48).
#[test]
fn two_learned_models_have_two_labels_and_two_rows() {
    let dir = tempfile::tempdir().unwrap();
    let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    for m in ["demo.json", "site.json"] {
        std::fs::copy(models.join(m), dir.path().join(m)).unwrap();
    }
    std::fs::write(
        dir.path().join("l.yaml"),
        "corpus: demo\nextract: main\nalgorithms:\n  - {type: learned, model: demo.json}\n  - {type: learned, model: site.json}\n",
    )
    .unwrap();
    let o = neardup(&["run", "l.yaml", "--json", "-o", "out"], dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let summary: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let labels: Vec<&str> = summary["algorithms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["algorithm"].as_str().unwrap())
        .collect();
    assert_eq!(labels.len(), 2);
    assert!(labels[0].ends_with("; model demo)"), "{labels:?}");
    assert!(labels[1].ends_with("; model site)"), "{labels:?}");
    let csv = std::fs::read_to_string(dir.path().join("out/results.csv")).unwrap();
    for label in &labels {
        assert!(csv.contains(label), "{label} in results.csv");
    }
}

/// A JSONL corpus saved with a UTF-8 byte order mark reads, as a CSV one
/// does (issue 48).
#[test]
fn a_jsonl_corpus_with_a_byte_order_mark_reads() {
    let dir = tempfile::tempdir().unwrap();
    let rows = "\u{feff}{\"id\": \"a\", \"cluster\": \"c\", \"text\": \"one page\"}\n\
                {\"id\": \"b\", \"cluster\": \"c\", \"text\": \"one page\"}\n";
    std::fs::write(dir.path().join("bom.jsonl"), rows).unwrap();
    let o = neardup(&["corpus", "stats", "bom.jsonl"], dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("pages       2"), "{}", stdout(&o));
}

/// `corpus stats` on an empty corpus exits 2 naming the file, as `run`
/// does (issue 48).
#[test]
fn corpus_stats_of_an_empty_corpus_is_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("empty.jsonl"), "").unwrap();
    let o = neardup(&["corpus", "stats", "empty.jsonl"], dir.path());
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(
        stderr(&o).starts_with("error: empty.jsonl: the corpus has no pages"),
        "{}",
        stderr(&o)
    );
}

/// `bench eval` prints a row per clustering method with the exponent
/// columns, for each kind of scores; bad flags exit 2 naming the flag.
#[test]
fn bench_eval_times_every_clustering_method() {
    let dir = tempfile::tempdir().unwrap();
    let o = neardup(&["bench", "eval", "--pairs", "1e3,1e4"], dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    for kind in ["quantised", "continuous"] {
        assert!(out.contains(&format!("### {kind} scores")), "{out}");
    }
    let header =
        "| method (CPU s) | 1000 pairs | 10000 pairs | exponent (fit) | exponent (last two) |";
    assert_eq!(out.matches(header).count(), 2, "{out}");
    for method in [
        "connected",
        "center",
        "merge_center",
        "star",
        "pivot",
        "average",
    ] {
        // A CPU and a wall row per kind of scores, each with its cells.
        let rows: Vec<&str> = out
            .lines()
            .filter(|l| l.starts_with(&format!("| {method} |")))
            .collect();
        assert_eq!(rows.len(), 4, "{method}: {out}");
        assert!(rows.iter().all(|r| r.matches('|').count() == 8), "{rows:?}");
    }
    for (args, named) in [
        (&["--pairs", "0"][..], "--pairs: 0 is out of range"),
        (
            &["--pairs", "1500.5"][..],
            "--pairs: 1500.5 is not a whole number",
        ),
        (&["--pairs", "many"][..], "--pairs"),
        (
            &["--methods", "single"][..],
            "--methods: `single` is not a clustering",
        ),
        (
            &["--scores", "exact"][..],
            "--scores: `exact` is not a kind of scores",
        ),
    ] {
        let o = neardup(&[&["bench", "eval"][..], args].concat(), dir.path());
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(named), "{args:?}: {}", stderr(&o));
    }
}
