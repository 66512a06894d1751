//! The one way the integration tests start the binary. Each run gets an
//! environment of its own inside the test's folder: the extraction cache,
//! `HOME` and the XDG folders all point there, so no test reads or writes
//! the user's own cache or configuration, and no `NEARDUP_*` variable of
//! the shell that runs `cargo test` (a fail point, a cache folder) reaches
//! the binary. `tests/spawn.rs` fails on a test file that starts the
//! binary any other way.

// Each test crate compiles this module and uses only some of it.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

/// The binary under test. Only this module names it, so every run goes
/// through `command` and its isolation.
const BINARY: &str = env!("CARGO_BIN_EXE_neardup");

/// Where the runs in `cwd` keep their extraction cache (as
/// `NEARDUP_CACHE_DIR`): inside the test's folder, gone with it.
pub fn cache_dir(cwd: &Path) -> std::path::PathBuf {
    cwd.join(".neardup-cache")
}

/// The `HOME` of the runs in `cwd`: never created unless something the
/// binary should not do writes there, which a test can then check.
pub fn home_dir(cwd: &Path) -> std::path::PathBuf {
    cwd.join(".neardup-home")
}

/// Gives `cmd` the isolated environment and `cwd` as its folder. A test
/// that needs a variable of its own (a fail point, another cache folder)
/// sets it on the returned command, after this.
fn isolate(cmd: &mut Command, cwd: &Path) {
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("NEARDUP_") {
            cmd.env_remove(name);
        }
    }
    let home = home_dir(cwd);
    cmd.current_dir(cwd)
        .env("HOME", &home)
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("NEARDUP_CACHE_DIR", cache_dir(cwd));
}

/// The binary, to run in `cwd` with the isolated environment; the caller
/// adds arguments, stdin, pipes, and spawns or waits.
pub fn command(cwd: &Path) -> Command {
    let mut cmd = Command::new(BINARY);
    isolate(&mut cmd, cwd);
    cmd
}

/// Runs the binary in `cwd` as a user would and waits for it.
pub fn neardup(args: &[&str], cwd: &Path) -> Output {
    command(cwd).args(args).output().expect("the binary runs")
}

/// Runs the binary in `cwd` with the file `stdin` as its standard input,
/// as a crawler feeds `ingest`.
pub fn neardup_with_stdin(args: &[&str], cwd: &Path, stdin: &Path) -> Output {
    let input = std::fs::File::open(stdin).unwrap_or_else(|e| panic!("{}: {e}", stdin.display()));
    command(cwd)
        .args(args)
        .stdin(input)
        .output()
        .expect("the binary runs")
}

/// `sh -c SCRIPT` in `cwd`, for what only a shell sets up (a file size
/// limit, an ignored signal), with the isolated environment and the
/// binary's path in `$NEARDUP`. Arguments added to the command are the
/// script's `"$@"`. `sh`, not `bash`: POSIX counts `ulimit -f` in 512-byte
/// blocks in every shell that answers to `sh`.
pub fn shell(script: &str, cwd: &Path) -> Command {
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(script).arg("sh");
    isolate(&mut cmd, cwd);
    cmd.env("NEARDUP", BINARY);
    cmd
}
