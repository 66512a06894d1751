//! Points the build at jieba-rs's own dictionary and HMM model, so the
//! fast segmenter (src/text/segment.rs) segments with exactly the data
//! jieba-rs does; the versions are the ones Cargo.lock pins.

use std::path::{Path, PathBuf};

fn locked_version(lock: &str, name: &str) -> Option<String> {
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == format!("name = \"{name}\"") {
            let version = lines.next()?.trim();
            return version
                .strip_prefix("version = \"")
                .and_then(|v| v.strip_suffix('"'))
                .map(str::to_string);
        }
    }
    None
}

/// The unpacked source of `name-version` in Cargo's registry cache.
fn registry_source(name: &str, version: &str) -> Option<PathBuf> {
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")))?;
    let src = cargo_home.join("registry").join("src");
    let mut registries: Vec<PathBuf> = std::fs::read_dir(&src)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    registries.sort();
    registries
        .into_iter()
        .map(|r| r.join(format!("{name}-{version}")))
        .find(|p| p.is_dir())
}

fn find(name: &str, file: &str, env: &str) -> PathBuf {
    println!("cargo:rerun-if-env-changed={env}");
    if let Some(path) = std::env::var_os(env) {
        return PathBuf::from(path);
    }
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by Cargo"));
    let lock = std::fs::read_to_string(manifest.join("Cargo.lock")).unwrap_or_default();
    let version = locked_version(&lock, name)
        .unwrap_or_else(|| panic!("Cargo.lock pins no version of {name}"));
    let path = registry_source(name, &version)
        .map(|dir| dir.join(file))
        .filter(|p| p.is_file())
        .unwrap_or_else(|| {
            panic!("{name}-{version}/{file} is not in Cargo's registry sources; set {env} to it")
        });
    println!("cargo:rerun-if-changed={}", path.display());
    path
}

fn main() {
    println!("cargo:rerun-if-changed=Cargo.lock");
    println!("cargo:rerun-if-changed=build.rs");
    let dict = find("jieba-rs", "src/data/dict.txt", "NEARDUP_JIEBA_DICT");
    let hmm = find("jieba-macros", "src/hmm.model", "NEARDUP_JIEBA_HMM");
    println!("cargo:rustc-env=NEARDUP_JIEBA_DICT={}", dict.display());
    println!("cargo:rustc-env=NEARDUP_JIEBA_HMM={}", hmm.display());
}
