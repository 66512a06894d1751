//! Every test starts the binary through `tests/common`, which gives each
//! run an environment inside the test's folder: a test file that starts it
//! another way would read and write the user's own extraction cache.

mod common;

use std::path::{Path, PathBuf};

/// Every file under `dir`, sorted, so the failures read in a fixed order.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .path();
        if path.is_dir() {
            files.extend(files_under(&path));
        } else {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// What starts the binary without the helper: its path from Cargo, from a
/// build folder, or from `PATH`. Put together here so this file does not
/// itself hold them.
fn direct_starts() -> Vec<String> {
    vec![
        ["CARGO_BIN", "_EXE_"].concat(),
        ["target/release", "/neardup"].concat(),
        ["target/debug", "/neardup"].concat(),
        ["Command::new(\"neardup", "\")"].concat(),
    ]
}

#[test]
fn only_tests_common_starts_the_binary() {
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let common = tests.join("common");
    let patterns = direct_starts();
    let mut found = Vec::new();
    let files: Vec<PathBuf> = files_under(&tests)
        .into_iter()
        .filter(|f| !f.starts_with(&common))
        .collect();
    assert!(files.len() > 10, "only {} test files found", files.len());
    for file in files {
        // Snapshots and fixtures may not be UTF-8; they start nothing.
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        for (i, line) in text.lines().enumerate() {
            if let Some(p) = patterns.iter().find(|p| line.contains(p.as_str())) {
                let at = file.strip_prefix(&tests).unwrap_or(&file).display();
                found.push(format!("tests/{at}:{}: `{p}`: {}", i + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "the binary started without tests/common (use common::command, \
         common::neardup or common::shell):\n{}",
        found.join("\n")
    );
}

/// The binary's own answer to where its cache is, run through the helper.
fn cache_dir_seen(cmd: &mut std::process::Command) -> PathBuf {
    let o = cmd
        .args(["cache", "dir"])
        .output()
        .expect("the binary runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    PathBuf::from(String::from_utf8_lossy(&o.stdout).trim_end())
}

#[test]
fn the_helper_keeps_the_cache_and_home_inside_the_tests_folder() {
    let dir = tempfile::tempdir().unwrap();
    let seen = cache_dir_seen(&mut common::command(dir.path()));
    assert_eq!(seen, common::cache_dir(dir.path()));
    // Without NEARDUP_CACHE_DIR the binary falls back to XDG_CACHE_HOME,
    // then HOME: both are the test's too.
    let seen = cache_dir_seen(common::command(dir.path()).env_remove("NEARDUP_CACHE_DIR"));
    assert!(seen.starts_with(common::home_dir(dir.path())), "{seen:?}");
    let seen = cache_dir_seen(
        common::command(dir.path())
            .env_remove("NEARDUP_CACHE_DIR")
            .env_remove("XDG_CACHE_HOME"),
    );
    assert_eq!(seen, common::home_dir(dir.path()).join(".cache/neardup"));
    // The binary a shell starts sees the same.
    let o = common::shell("exec \"$NEARDUP\" cache dir", dir.path())
        .output()
        .expect("sh runs");
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).trim_end(),
        common::cache_dir(dir.path()).to_str().unwrap()
    );
    // A run that extracts pages fills the test's cache and nothing else.
    let o = common::neardup(&["run", "demo", "-o", "out"], dir.path());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(common::cache_dir(dir.path()).join("extract").is_dir());
    assert!(!common::home_dir(dir.path()).exists());
}
