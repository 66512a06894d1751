//! Imports point down the pipeline: a room of `src/` may use the rooms
//! below it, never one above. The order is written once, here and in
//! `src/lib.rs`'s doc and `docs/architecture.md`. Unit-test modules
//! (`#[cfg(test)] mod ...`) are left out: a test may build its fixtures
//! with a higher room, as the integration tests in `tests/` do.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Lowest first; rooms on one line may not use each other.
const LAYERS: &[&[&str]] = &[
    &["util"],
    &["text"],
    &["extract"],
    &["corpus"],
    &["algo"],
    &["eval"],
    &["experiment"],
    &["report"],
    &["index", "dist", "bench"],
    &["tui"],
    &["cli"],
];

fn layer_of(room: &str) -> Option<usize> {
    LAYERS.iter().position(|rooms| rooms.contains(&room))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The rooms a file's code (outside its unit tests) names as `crate::ROOM`,
/// with the line each is first named on.
fn rooms_used(text: &str) -> Vec<(String, usize)> {
    let mut used = Vec::new();
    let mut in_tests = false;
    let mut previous = "";
    for (n, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if previous.trim() == "#[cfg(test)]" && trimmed.starts_with("mod ") {
            in_tests = true;
        }
        previous = line;
        if in_tests || trimmed.starts_with("//") {
            continue;
        }
        let code = trimmed.split("//").next().unwrap_or("");
        for (at, _) in code.match_indices("crate::") {
            let rest = &code[at + "crate::".len()..];
            if let Some(group) = rest.strip_prefix('{') {
                // `use crate::{a::{x, y}, b}`: the first name of each
                // top-level part.
                for room in top_level_names(group) {
                    used.push((room, n + 1));
                }
            } else {
                let room: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                used.push((room, n + 1));
            }
        }
    }
    used
}

/// The first name of each comma-separated part of a `{...}` group at
/// depth one (the text after the opening brace).
fn top_level_names(group: &str) -> Vec<String> {
    let mut names = Vec::new();
    let (mut depth, mut start) = (0usize, true);
    let mut name = String::new();
    for c in group.chars() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => start = true,
            c if start && depth == 0 && (c.is_alphanumeric() || c == '_') => name.push(c),
            _ if start && !name.is_empty() => {
                names.push(std::mem::take(&mut name));
                start = false;
            }
            _ => {}
        }
    }
    if !name.is_empty() {
        names.push(name);
    }
    names
}

/// `src/algo/simhash/mod.rs` -> `algo`; `src/bench.rs` -> `bench`.
fn room_of(src: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(src).expect("a file under src/");
    let first = relative.components().next().expect("a path");
    let name = first.as_os_str().to_string_lossy();
    name.trim_end_matches(".rs").to_string()
}

fn upward_imports(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    let mut found = BTreeSet::new();
    for file in files {
        let room = room_of(src, &file);
        if room == "lib" || room == "main" {
            continue;
        }
        let from = layer_of(&room)
            .unwrap_or_else(|| panic!("{}: room `{room}` has no layer in LAYERS", file.display()));
        let text = std::fs::read_to_string(&file).expect("a readable source file");
        for (used, line) in rooms_used(&text) {
            if let Some(to) = layer_of(&used) {
                if to > from || (to == from && used != room) {
                    found.insert(format!(
                        "{}:{line}: `{room}` uses `crate::{used}`, which is not below it",
                        file.display()
                    ));
                }
            }
        }
    }
    found.into_iter().collect()
}

#[test]
fn imports_point_down_the_pipeline() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let upward = upward_imports(&src);
    assert!(
        upward.is_empty(),
        "imports that point up the layers:\n{}",
        upward.join("\n")
    );
}

#[test]
fn every_room_has_a_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        let room = room_of(&src, &path);
        if room != "lib" && room != "main" {
            assert!(layer_of(&room).is_some(), "src/{room} has no layer");
        }
    }
}

#[test]
fn an_upward_import_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::create_dir_all(src.join("text")).unwrap();
    std::fs::create_dir_all(src.join("algo")).unwrap();
    std::fs::write(src.join("algo/mod.rs"), "use crate::text::Lang;\n").unwrap();
    assert!(upward_imports(src).is_empty(), "algo may use text");
    std::fs::write(
        src.join("text/mod.rs"),
        "use crate::{util::{fmt, rng}, algo::Document};\n#[cfg(test)]\nmod tests {\n    use crate::tui::App;\n}\n",
    )
    .unwrap();
    let upward = upward_imports(src);
    assert_eq!(upward.len(), 1, "{upward:?}");
    assert!(upward[0].contains("text/mod.rs:1: `text` uses `crate::algo`"));
}
