//! The front ends (`src/cli/`, `src/tui/`, `src/bench/scale.rs`) reach
//! runs only through the front door (`experiment::Experiment`, `Prepared`,
//! `Run`): none names the runner or the steps it takes before a run
//! (reading the corpus, the reference corpora, the judged pairs, attaching
//! a learned judge's labels, the extraction cache's folder). A front end
//! that assembles a run itself reads things twice or differently from the
//! others. Unit tests (`#[cfg(test)] mod ...` and `tests.rs` files) may
//! build their fixtures as they like.

use std::path::{Path, PathBuf};

/// What only the front door may name, each with why.
const INSIDES: &[(&str, &str)] = &[
    ("runner::", "the runner"),
    ("run_experiment", "the runner's entry points"),
    ("load_corpus", "reading the corpus"),
    ("load_references", "reading the reference corpora"),
    (
        "check_named_files",
        "checking the files an experiment names",
    ),
    ("attach_learning_labels", "a learned judge's labels"),
    ("experiment::learning_labels", "a learned judge's labels"),
    ("JudgedTruth::read", "reading the judged pairs"),
    ("cache::dir()", "the extraction cache's folder"),
    (".prepare(&", "an experiment's algorithms built"),
];

/// The front ends' source files, sorted.
fn front_ends(src: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in ["cli", "tui"] {
        rust_files(&src.join(dir), &mut files);
    }
    files.push(src.join("bench/scale.rs"));
    files.retain(|f| f.file_name().is_some_and(|n| n != "tests.rs"));
    files.sort();
    files
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a readable folder") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `FILE:LINE: names X (Y)` for each line of code (not a comment, not in
/// a unit-test module) that names one of [`INSIDES`].
fn reaches_past(file: &Path, text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut previous = "";
    for (n, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if previous.trim() == "#[cfg(test)]" && trimmed.starts_with("mod ") {
            break;
        }
        previous = line;
        let code = trimmed.split("//").next().unwrap_or("");
        for (inside, what) in INSIDES {
            if code.contains(inside) {
                found.push(format!(
                    "{}:{}: names `{inside}` ({what}); go through experiment::Experiment",
                    file.display(),
                    n + 1
                ));
            }
        }
    }
    found
}

fn all_reaches(src: &Path) -> Vec<String> {
    front_ends(src)
        .iter()
        .flat_map(|file| {
            let text = std::fs::read_to_string(file).expect("a readable source file");
            reaches_past(file, &text)
        })
        .collect()
}

#[test]
fn front_ends_reach_runs_only_through_the_front_door() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let found = all_reaches(&src);
    assert!(
        found.is_empty(),
        "front ends that reach past the front door:\n{}",
        found.join("\n")
    );
}

#[test]
fn a_reach_past_the_front_door_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    for d in ["cli", "tui/ui", "bench"] {
        std::fs::create_dir_all(src.join(d)).unwrap();
    }
    let write = |f: &str, text: &str| std::fs::write(src.join(f), text).unwrap();
    write(
        "cli/run.rs",
        "// run_experiment is named in a comment only\nlet run = prepared.run(watchers);\n",
    );
    write("tui/ui/view.rs", "let x = 1;\n");
    write(
        "tui/tests.rs",
        "crate::experiment::run_experiment(\"t\", &c, &p, &r);\n",
    );
    write(
        "bench/scale.rs",
        "fn f() {}\n#[cfg(test)]\nmod tests {\n    use crate::experiment::load_corpus;\n}\n",
    );
    assert!(all_reaches(src).is_empty(), "{:?}", all_reaches(src));
    write(
        "tui/ui/view.rs",
        "let x = 1;\nlet refs = crate::experiment::load_references(&c, &p)?;\n",
    );
    let found = all_reaches(src);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("tui/ui/view.rs:2: names `load_references`"));
}
