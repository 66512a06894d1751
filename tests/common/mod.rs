//! What the binary's integration tests share.

use std::path::Path;
use std::process::{Command, Output};

/// Runs the binary in `cwd` as a user would, with the extraction cache
/// kept in the test's folder.
pub fn neardup(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_neardup"))
        .args(args)
        .current_dir(cwd)
        .env("NEARDUP_CACHE_DIR", cwd.join(".neardup-cache"))
        .output()
        .expect("the binary runs")
}
