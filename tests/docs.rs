//! Docs that cannot rot: every ```yaml block of README.md and docs/ is an
//! experiment `neardup run` accepts (unless its fence says `yaml fragment`),
//! every `neardup ...` command line parses with the CLI's own parser, every
//! relative link and repository path named exists, and docs/experiments.md
//! names every key of every settings type.

use std::path::{Path, PathBuf};

use clap::Parser;
use neardup::cli::Cli;
use neardup::experiment::ExperimentConfig;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every docs/*.md, with their text.
fn documents() -> Vec<(PathBuf, String)> {
    let mut paths = vec![root().join("README.md"), root().join("CHANGELOG.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/ exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    paths.extend(docs);
    paths
        .into_iter()
        .map(|p| {
            let text =
                std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p, text)
        })
        .collect()
}

/// A fenced block: its info string, first line number and body.
struct Block {
    info: String,
    line: usize,
    body: String,
}

fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<Block> = None;
    for (n, line) in text.lines().enumerate() {
        let fence = line.trim_start().strip_prefix("```");
        match (&mut open, fence) {
            (None, Some(info)) => {
                open = Some(Block {
                    info: info.trim().to_string(),
                    line: n + 2,
                    body: String::new(),
                })
            }
            (Some(_), Some(_)) => out.push(open.take().unwrap()),
            (Some(block), None) => {
                block.body.push_str(line);
                block.body.push('\n');
            }
            (None, None) => {}
        }
    }
    out
}

#[test]
fn every_yaml_block_is_an_experiment_that_parses() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for (path, text) in documents() {
        for block in blocks(&text).iter().filter(|b| b.info == "yaml") {
            // Paths in the block are read from the repository's root.
            let name = root().join(format!("{}-line-{}.yaml", file_name(&path), block.line));
            match ExperimentConfig::parse(&name, &block.body) {
                Ok(_) => checked += 1,
                Err(e) => failures.push(format!("{}:{}: {e}", path.display(), block.line)),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "YAML blocks that do not parse:\n{}",
        failures.join("\n")
    );
    assert!(checked >= 3, "only {checked} YAML blocks found");
}

fn file_name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

/// The words of a shell line up to a pipe, redirection, `&&` or comment,
/// with simple quotes removed.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let (mut word, mut quote) = (String::new(), None::<char>);
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '"' | '\'') => quote = Some(c),
            (None, '|' | '>' | '<' | ';' | '&' | '#') if word.is_empty() => break,
            (None, c) if c.is_whitespace() => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            (None, c) => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// Every `neardup ...` line of the shell blocks, with its file and line.
fn command_lines() -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    for (path, text) in documents() {
        for block in blocks(&text) {
            if !matches!(
                block.info.as_str(),
                "sh" | "bash" | "console" | "shell" | ""
            ) {
                continue;
            }
            for (i, line) in block.body.lines().enumerate() {
                let line = line.trim().trim_start_matches("$ ");
                if line.starts_with("neardup ") || line == "neardup" {
                    let at = format!("{}:{}", path.display(), block.line + i);
                    out.push((at, shell_words(line)));
                }
            }
        }
    }
    out
}

#[test]
fn every_command_line_parses() {
    let lines = command_lines();
    assert!(
        lines.len() >= 10,
        "only {} command lines found",
        lines.len()
    );
    let failures: Vec<String> = lines
        .iter()
        .filter_map(|(at, words)| {
            Cli::try_parse_from(words)
                .err()
                .map(|e| format!("{at}: `{}`: {}", words.join(" "), e.kind()))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "command lines the CLI refuses:\n{}",
        failures.join("\n")
    );
}

#[test]
fn the_command_check_catches_an_unknown_flag() {
    let words = shell_words("neardup run experiments/demo.yaml --no-such-flag # a comment");
    assert_eq!(words.last().unwrap(), "--no-such-flag");
    assert!(Cli::try_parse_from(&words).is_err());
    assert!(Cli::try_parse_from(shell_words("neardup run demo --json | head")).is_ok());
}

/// Relative link targets `](target)` of a Markdown text, with their lines.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        for (at, _) in line.match_indices("](") {
            let rest = &line[at + 2..];
            let Some(end) = rest.find(')') else { continue };
            let target = rest[..end].split_whitespace().next().unwrap_or("");
            if target.is_empty()
                || target.starts_with('#')
                || target.contains("://")
                || target.starts_with("mailto:")
            {
                continue;
            }
            out.push((n + 1, target.split('#').next().unwrap().to_string()));
        }
    }
    out
}

/// Repository paths named in backticks (`experiments/demo.yaml`), under
/// the folders a checkout holds; generated folders are left out.
fn named_paths(text: &str) -> Vec<(usize, String)> {
    const TOPS: &[&str] = &[
        "experiments/",
        "datasets/",
        "docs/",
        "models/",
        "reports/examples/",
        "src/",
        "tests/",
        "benches/",
        "scripts/",
        "dist/",
        "assets/",
        ".ci/",
    ];
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        for (i, part) in line.split('`').enumerate() {
            let candidate = part.trim();
            if i % 2 == 1
                && TOPS.iter().any(|t| candidate.starts_with(t))
                && !candidate.starts_with("datasets/imported/")
                && !candidate.contains(char::is_whitespace)
                && !candidate.contains(['*', '<', '>', '{', '$'])
                && !candidate.contains("NAME")
            {
                out.push((
                    n + 1,
                    candidate.trim_end_matches([',', '.', ':']).to_string(),
                ));
            }
        }
    }
    out
}

#[test]
fn every_relative_link_and_named_path_exists() {
    let mut missing = Vec::new();
    let mut checked = 0;
    for (path, text) in documents() {
        let base = path.parent().unwrap();
        for (line, target) in links(&text) {
            checked += 1;
            if !base.join(&target).exists() {
                missing.push(format!("{}:{line}: link to {target}", path.display()));
            }
        }
        for (line, named) in named_paths(&text) {
            checked += 1;
            if !root().join(&named).exists() {
                missing.push(format!("{}:{line}: path {named}", path.display()));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "links and paths that do not exist:\n{}",
        missing.join("\n")
    );
    assert!(checked >= 20, "only {checked} links and paths found");
}

#[test]
fn a_dead_link_is_found() {
    assert_eq!(
        links("see [x](docs/nothing.md#top) and [y](https://a.b)"),
        vec![(1, "docs/nothing.md".to_string())]
    );
    assert_eq!(
        named_paths("run `experiments/none.yaml` or `PAGES.jsonl`"),
        vec![(1, "experiments/none.yaml".to_string())]
    );
}

/// The field names a serde struct deserialises, taken from the
/// `deserialize_struct` call its derive makes.
fn serde_fields<T: serde::de::DeserializeOwned>() -> Vec<&'static str> {
    struct Fields(std::cell::Cell<&'static [&'static str]>);
    #[derive(Debug)]
    struct Stop;
    impl std::fmt::Display for Stop {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("stop")
        }
    }
    impl std::error::Error for Stop {}
    impl serde::de::Error for Stop {
        fn custom<M: std::fmt::Display>(_: M) -> Self {
            Stop
        }
    }
    impl<'de> serde::Deserializer<'de> for &Fields {
        type Error = Stop;
        fn deserialize_any<V: serde::de::Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
            Err(Stop)
        }
        fn deserialize_struct<V: serde::de::Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Stop> {
            self.0.set(fields);
            Err(Stop)
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map
            enum identifier ignored_any
        }
    }
    let fields = Fields(std::cell::Cell::new(&[]));
    let _ = T::deserialize(&fields);
    fields.0.get().to_vec()
}

#[test]
fn experiments_md_names_every_key_of_every_settings_type() {
    use neardup::algo;
    let doc = std::fs::read_to_string(root().join("docs/experiments.md")).unwrap();
    let types: Vec<(&str, Vec<&str>)> = vec![
        ("experiment", serde_fields::<ExperimentConfig>()),
        ("exact", serde_fields::<algo::exact::ExactConfig>()),
        (
            "simhash",
            serde_fields::<algo::simhash::config::SimhashConfig>(),
        ),
        (
            "jaccard",
            serde_fields::<algo::shingling::config::JaccardConfig>(),
        ),
        (
            "minhash",
            serde_fields::<algo::shingling::config::MinhashConfig>(),
        ),
        ("imatch", serde_fields::<algo::imatch::ImatchConfig>()),
        (
            "semantic",
            serde_fields::<algo::semantic::config::SemanticConfig>(),
        ),
        ("combined", serde_fields::<algo::combined::CombinedConfig>()),
        ("learned", serde_fields::<algo::learned::LearnedConfig>()),
        (
            "tokenizer",
            serde_fields::<neardup::text::TokenizerConfig>(),
        ),
        (
            "normalize",
            serde_fields::<neardup::text::NormalizeOptions>(),
        ),
        (
            "seeds",
            serde_fields::<neardup::experiment::seeds::SeedsConfig>(),
        ),
        (
            "judged",
            serde_fields::<neardup::eval::judged::JudgedConfig>(),
        ),
    ];
    let mut missing = Vec::new();
    for (name, fields) in &types {
        assert!(
            !fields.is_empty() || *name == "exact",
            "{name}: no fields read"
        );
        for field in fields {
            if !doc.contains(&format!("| `{field}`")) {
                missing.push(format!("{name}.{field}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "keys missing from docs/experiments.md (a table row `| `key` | ...`):\n{}",
        missing.join("\n")
    );
}
