//! Runs over several seeds: a reproduction whose corpus is sampled by a
//! builder (`build:`) runs once per seed, each on the corpus built with
//! that seed, so its report can give the mean and the spread of every
//! figure instead of one draw.
//!
//! ```yaml
//! seeds:
//!   values: [1, 2, 3, 4, 5]   # the builder's seed for each run
//!   scale: 0.1                # each seed's corpus at this scale (default 1)
//! ```
//!
//! Built corpora are cached beside the experiment's corpus, named by seed,
//! scale and a hash of the builder file, so a changed builder builds anew.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::config::{AlgorithmConfig, ExperimentConfig};
use crate::corpus::build::{build_corpus, BuildConfig, BuildError};
use crate::corpus::{write_corpus, CorpusError};
use crate::util::io::FileError;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeedsConfig {
    /// One run per seed, in this order.
    pub values: Vec<u64>,
    /// The builder's scale for every seed's corpus.
    #[serde(default = "one")]
    pub scale: f64,
}

fn one() -> f64 {
    1.0
}

#[derive(Debug, thiserror::Error)]
pub enum SeedsError {
    #[error("{}: `seeds` needs `build:` (a corpus builder to draw each seed's corpus)", path.display())]
    NoBuilder { path: PathBuf },
    #[error(transparent)]
    Build(#[from] BuildError),
    #[error(transparent)]
    Corpus(#[from] CorpusError),
    #[error(transparent)]
    Io(#[from] FileError),
}

impl SeedsConfig {
    /// (key, message) of the first problem.
    pub fn check(&self) -> Result<(), (String, String)> {
        if self.values.is_empty() {
            return Err(("seeds.values".into(), "name at least one seed".into()));
        }
        for (i, v) in self.values.iter().enumerate() {
            if self.values[..i].contains(v) {
                return Err((
                    format!("seeds.values[{i}]"),
                    format!("seed {v} is listed twice"),
                ));
            }
        }
        if !(self.scale > 0.0 && self.scale <= 10.0) {
            return Err((
                "seeds.scale".into(),
                format!("{} is out of range (0, 10]", self.scale),
            ));
        }
        Ok(())
    }
}

/// Where the corpus built with `seed` at `scale` is cached: beside
/// `corpus`, e.g. `fan2008.seed-3.scale-0.1.b5e1c2d4.jsonl.gz`, the hash
/// over the build file and the builder's code.
fn seed_corpus_path(corpus: &Path, builder: &[u8], seed: u64, scale: f64) -> PathBuf {
    cached_name(
        corpus,
        builder,
        &crate::corpus::build::BUILDER_SOURCES,
        seed,
        scale,
    )
}

/// [`seed_corpus_path`] with the builder's code given.
fn cached_name(corpus: &Path, builder: &[u8], code: &[&str], seed: u64, scale: f64) -> PathBuf {
    let name = corpus
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "corpus.jsonl.gz".into());
    let (stem, ext) = match name.find('.') {
        Some(i) => (&name[..i], &name[i..]),
        None => (name.as_str(), ".jsonl.gz"),
    };
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    hasher.update(builder);
    for source in code {
        hasher.update(source.as_bytes());
    }
    let hash = hasher.digest() as u32;
    corpus.with_file_name(format!(
        "{stem}.seed-{seed}.scale-{}.{hash:08x}{ext}",
        crate::util::fmt::threshold_short(scale)
    ))
}

/// The corpus of one seed: built (and cached) when missing. Returns its
/// path and whether it was built now.
pub fn seed_corpus(
    config: &ExperimentConfig,
    experiment_path: &Path,
    seed: u64,
    scale: f64,
) -> Result<(PathBuf, bool), SeedsError> {
    let no_builder = || SeedsError::NoBuilder {
        path: experiment_path.to_path_buf(),
    };
    let builder = config.build.as_ref().ok_or_else(no_builder)?;
    let corpus = config.corpus_path(experiment_path).ok_or_else(no_builder)?;
    let builder = experiment_path
        .parent()
        .unwrap_or(Path::new("."))
        .join(builder);
    let text = crate::util::io::read(&builder)?;
    let path = seed_corpus_path(&corpus, &text, seed, scale);
    if path.exists() {
        return Ok((path, false));
    }
    let mut build = BuildConfig::load(&builder)?;
    build.seed = seed;
    build.scale = scale;
    let pages = build_corpus(&build, builder.parent().unwrap_or(Path::new(".")))?;
    if let Some(dir) = path.parent() {
        crate::util::io::create_dir_all(dir)?;
    }
    // Written under another name first, so an interrupted build never
    // leaves a cached corpus that is cut short.
    let partial = path.with_file_name(format!(
        "partial-{}",
        path.file_name().unwrap_or_default().to_string_lossy()
    ));
    write_corpus(&pages, &partial)?;
    std::fs::rename(&partial, &path).map_err(FileError::at(&path))?;
    Ok((path, true))
}

/// The experiment as one seed runs it: on that seed's corpus, with
/// I-Match's extra lexicons drawn from the seed too, and no seeds of its
/// own.
pub fn for_seed(config: &ExperimentConfig, corpus: &Path, seed: u64) -> ExperimentConfig {
    let mut one = config.clone();
    // Beside the experiment's corpus, named as the experiment names it.
    one.corpus = match corpus.file_name() {
        Some(name) => Path::new(&config.corpus)
            .with_file_name(name)
            .display()
            .to_string(),
        None => corpus.display().to_string(),
    };
    one.build = None;
    one.seeds = None;
    for entry in &mut one.algorithms {
        if let AlgorithmConfig::Imatch(imatch) = &mut entry.config {
            imatch.seed = Some(seed);
        }
    }
    one
}

/// The directory of one seed's results inside the run's directory.
pub fn seed_dir(dir: &Path, seed: u64) -> PathBuf {
    dir.join(format!("seed-{seed}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_seed_and_scale_and_builder_gets_its_own_cached_corpus() {
        let corpus = Path::new("datasets/imported/fan2008.jsonl.gz");
        let a = seed_corpus_path(corpus, b"seed: 1", 3, 0.1);
        assert_eq!(a.parent(), corpus.parent());
        let name = a.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with("fan2008.seed-3.scale-0.1."), "{name}");
        assert!(name.ends_with(".jsonl.gz"), "{name}");
        assert_ne!(a, seed_corpus_path(corpus, b"seed: 1", 4, 0.1));
        assert_ne!(a, seed_corpus_path(corpus, b"seed: 1", 3, 1.0));
        assert_ne!(a, seed_corpus_path(corpus, b"seed: 2", 3, 0.1));
        // A changed builder builds anew: its code is in the name's hash.
        let code = crate::corpus::build::BUILDER_SOURCES;
        assert_eq!(a, cached_name(corpus, b"seed: 1", &code, 3, 0.1));
        let edited = [code[0], "// one more line"];
        assert_ne!(a, cached_name(corpus, b"seed: 1", &edited, 3, 0.1));
    }

    #[test]
    fn seeds_must_be_listed_once_at_a_scale_in_range() {
        let ok = SeedsConfig {
            values: vec![1, 2, 3],
            scale: 0.1,
        };
        assert!(ok.check().is_ok());
        let twice = SeedsConfig {
            values: vec![1, 2, 1],
            ..ok.clone()
        };
        assert_eq!(twice.check().unwrap_err().0, "seeds.values[2]");
        let none = SeedsConfig {
            values: vec![],
            ..ok.clone()
        };
        assert_eq!(none.check().unwrap_err().0, "seeds.values");
        let big = SeedsConfig { scale: 11.0, ..ok };
        assert_eq!(big.check().unwrap_err().0, "seeds.scale");
    }
}
