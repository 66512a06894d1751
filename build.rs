//! Points the build at jieba-rs's own dictionary and HMM model, so the
//! fast segmenter (src/text/segment.rs) segments with exactly the data
//! jieba-rs does; the versions are the ones Cargo.lock pins. The
//! dictionary's double-array trie is built here, once, because building it
//! takes seconds and loading the result takes milliseconds.

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

/// Writes `jieba_trie.bin` (the serialised trie), `jieba_freqs.bin`
/// (little-endian u64s: the total of all entries' frequencies, then each
/// class's frequency) and `jieba_words.bin` (little-endian u32s: where
/// each class's words start in the dictionary's word numbering, then the
/// number of words) to `out`.
/// Frequency classes go from the most frequent down, and a word's value
/// is its class in the top bits ([`RANK_BITS`] below) and its rank within
/// the class in the rest: the route reads the class, the interner a word
/// number (`class start + rank`) that is small for common words. A
/// repeated word keeps its last entry and every entry counts in the
/// total, as jieba-rs loads the same file.
fn build_dictionary(dict: &Path, out: &Path) {
    /// Must match `RANK_BITS` in src/text/segment.rs.
    const RANK_BITS: u32 = 18;
    let text =
        std::fs::read_to_string(dict).unwrap_or_else(|e| panic!("reading {}: {e}", dict.display()));
    let mut entries: Vec<(&str, usize, u64)> = Vec::new();
    let mut total: u64 = 0;
    for (i, line) in text.lines().enumerate() {
        let mut fields = line.split_ascii_whitespace();
        let Some(word) = fields.next() else { continue };
        let freq = fields.next().map_or(0, |f| {
            f.parse::<u64>()
                .unwrap_or_else(|e| panic!("{} line {}: frequency {f}: {e}", dict.display(), i + 1))
        });
        total += freq;
        entries.push((word, i, freq));
    }
    entries.sort_by(|a, b| a.0.cmp(b.0).then(b.1.cmp(&a.1)));
    entries.dedup_by(|later, kept| later.0 == kept.0);
    let mut classes: Vec<u64> = entries.iter().map(|e| e.2).collect();
    classes.sort_unstable_by(|a, b| b.cmp(a));
    classes.dedup();
    let mut ranks = vec![0u32; classes.len()];
    let records: Vec<(&str, u32)> = entries
        .iter()
        .map(|&(word, _, freq)| {
            let class = classes
                .binary_search_by(|c| freq.cmp(c))
                .expect("every frequency has a class");
            let rank = ranks[class];
            ranks[class] += 1;
            assert!(
                rank < 1 << RANK_BITS && (class as u64) < 1 << (31 - RANK_BITS),
                "{}: too many words or frequencies for a 31-bit value",
                dict.display()
            );
            (word, (class as u32) << RANK_BITS | rank)
        })
        .collect();
    let trie = crawdad::Trie::from_records(records)
        .unwrap_or_else(|e| panic!("building the trie of {}: {e}", dict.display()));
    std::fs::write(out.join("jieba_trie.bin"), trie.serialize_to_vec())
        .expect("OUT_DIR is writable");
    let freqs: Vec<u8> = std::iter::once(total)
        .chain(classes)
        .flat_map(u64::to_le_bytes)
        .collect();
    std::fs::write(out.join("jieba_freqs.bin"), freqs).expect("OUT_DIR is writable");
    let starts: Vec<u8> = std::iter::once(0)
        .chain(ranks.iter().scan(0u32, |start, &n| {
            *start += n;
            Some(*start)
        }))
        .flat_map(u32::to_le_bytes)
        .collect();
    std::fs::write(out.join("jieba_words.bin"), starts).expect("OUT_DIR is writable");
}

fn main() {
    println!("cargo:rerun-if-changed=Cargo.lock");
    println!("cargo:rerun-if-changed=build.rs");
    let dict = find("jieba-rs", "src/data/dict.txt", "NEARDUP_JIEBA_DICT");
    let hmm = find("jieba-macros", "src/hmm.model", "NEARDUP_JIEBA_HMM");
    println!("cargo:rustc-env=NEARDUP_JIEBA_HMM={}", hmm.display());
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("set by Cargo"));
    build_dictionary(&dict, &out);
}
