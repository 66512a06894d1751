//! `neardup evaluate`: pairs (and clusters) computed elsewhere, scored
//! with the metrics of an in-process run and written as a run directory,
//! so that `neardup report` draws both side by side.
//!
//! A pairs table has `a` and `b` (page ids) and `score` (the estimated
//! Jaccard, or the Hamming distance); a clusters table has `id` and
//! `cluster` (pages sharing a value form a predicted cluster; pages not
//! listed are alone). Either is a Parquet file or a directory of them (a
//! Spark output). The settings that made the pairs come from the files'
//! metadata: the key `neardup`, or the `score` column's metadata in the
//! schema Spark stores.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use polars::prelude::*;
use rayon::prelude::*;
use serde_json::Value;

use super::{table_files, DistError, METADATA_KEY};
use crate::algo::shingling::lsh::Banding;
use crate::algo::{AlgorithmRun, Detector, Direction, ScoreScale, ScoredPair};
use crate::corpus::Corpus;
use crate::eval::{candidate_recall, evaluate_at, evaluate_with_clusters, Counts, Truth};
use crate::experiment::config::{format_threshold, AlgorithmConfig};
use crate::experiment::{AlgorithmResult, ExperimentResult};
use crate::extract::{extract_page, Extraction};
use crate::util::stage::{peak_memory_bytes, process_cpu_seconds, Stage, StageClock};
use crate::util::unionfind::UnionFind;

/// The key under which Spark keeps a DataFrame's schema, column metadata
/// included, in the Parquet files it writes.
const SPARK_SCHEMA_KEY: &str = "org.apache.spark.sql.parquet.row.metadata";

/// Pairs read back, as page indices of the corpus.
#[derive(Debug, Clone)]
pub struct ExternalPairs {
    pub path: PathBuf,
    /// The signatures' settings (see `dist::signatures`).
    pub settings: Value,
    /// What the job adds about itself (candidate pairs, rounds...).
    pub job: Value,
    /// Sorted by (a, b), `a < b`.
    pub pairs: Vec<ScoredPair>,
    /// The bad rows skipped (none unless asked to skip them).
    pub skipped: SkippedPairs,
}

fn ids_of(corpus: &Corpus) -> HashMap<&str, u32> {
    corpus
        .pages
        .iter()
        .enumerate()
        .map(|(i, p)| (p.id.as_str(), i as u32))
        .collect()
}

/// The settings envelope a file carries, if any.
fn envelope(file: &Path) -> Result<Option<Value>, DistError> {
    let handle = crate::util::io::open(file)?;
    let mut reader = ParquetReader::new(handle);
    let metadata = reader
        .get_metadata()
        .map_err(|e| DistError::invalid(file, e.to_string()))?;
    let Some(kv) = metadata.key_value_metadata() else {
        return Ok(None);
    };
    let parse = |text: &str, what: &str| {
        serde_json::from_str::<Value>(text)
            .map_err(|e| DistError::invalid(file, format!("{what} is not JSON: {e}")))
    };
    if let Some(v) = kv.iter().find(|kv| kv.key == METADATA_KEY) {
        return parse(v.value.as_deref().unwrap_or(""), "metadata `neardup`").map(Some);
    }
    let Some(schema) = kv.iter().find(|kv| kv.key == SPARK_SCHEMA_KEY) else {
        return Ok(None);
    };
    let schema = parse(schema.value.as_deref().unwrap_or(""), "Spark's schema")?;
    let field = schema["fields"]
        .as_array()
        .into_iter()
        .flatten()
        .find_map(|f| f["metadata"][METADATA_KEY].as_str());
    field
        .map(|text| parse(text, "column metadata `neardup`"))
        .transpose()
}

/// The envelope shared by every file of a table; files disagreeing on the
/// settings are an error (they were not made by one job).
fn table_envelope(path: &Path, files: &[PathBuf]) -> Result<Value, DistError> {
    let mut found: Option<(PathBuf, Value)> = None;
    for file in files {
        let Some(env) = envelope(file)? else {
            continue;
        };
        match &found {
            Some((first, seen)) if seen["settings"] != env["settings"] => {
                return Err(DistError::invalid(
                    file,
                    format!(
                        "its settings differ from those of {}: the files come from different jobs",
                        first.display()
                    ),
                ))
            }
            Some(_) => {}
            None => found = Some((file.clone(), env)),
        }
    }
    found.map(|(_, env)| env).ok_or_else(|| {
        DistError::invalid(
            path,
            "carries no neardup settings (key `neardup`, or the `score` column's metadata): \
             pairs must come from the signatures `neardup signatures` wrote",
        )
    })
}

fn read_frame(file: &Path) -> Result<DataFrame, DistError> {
    let handle = crate::util::io::open(file)?;
    ParquetReader::new(handle)
        .finish()
        .map_err(|e| DistError::invalid(file, e.to_string()))
}

/// A string column, with a clear error when it is missing or not text.
fn strings<'a>(file: &Path, df: &'a DataFrame, name: &str) -> Result<&'a StringChunked, DistError> {
    df.column(name)
        .map_err(|_| DistError::invalid(file, format!("no column `{name}`")))?
        .str()
        .map_err(|_| DistError::invalid(file, format!("column `{name}` is not text")))
}

/// The kinds of bad row a pairs table may hold, each counted when
/// `--skip-bad-pairs` skips it instead of refusing the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BadPair {
    Missing,
    UnknownId,
    SelfPair,
    NotFinite,
    OutOfRange,
    Twice,
}

impl BadPair {
    pub const ALL: [BadPair; 6] = [
        BadPair::Missing,
        BadPair::UnknownId,
        BadPair::SelfPair,
        BadPair::NotFinite,
        BadPair::OutOfRange,
        BadPair::Twice,
    ];

    pub fn describe(self) -> &'static str {
        match self {
            BadPair::Missing => "with a field missing",
            BadPair::UnknownId => "naming a page not in the corpus",
            BadPair::SelfPair => "pairing a page with itself",
            BadPair::NotFinite => "with a score not finite",
            BadPair::OutOfRange => "with a score outside its algorithm's range",
            BadPair::Twice => "given twice",
        }
    }
}

/// How many rows of each [`BadPair`] kind were skipped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SkippedPairs {
    counts: [u64; BadPair::ALL.len()],
}

impl SkippedPairs {
    pub fn count(&self, kind: BadPair) -> u64 {
        self.counts[kind as usize]
    }

    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// "skipped 3 bad rows of FILE: 2 given twice, 1 ...", or `None` when
    /// every row was good.
    pub fn note(&self, path: &Path) -> Option<String> {
        let kinds: Vec<String> = BadPair::ALL
            .iter()
            .filter(|&&k| self.count(k) > 0)
            .map(|&k| format!("{} {}", self.count(k), k.describe()))
            .collect();
        (!kinds.is_empty()).then(|| {
            format!(
                "skipped {} bad rows of {} (--skip-bad-pairs): {}",
                self.total(),
                path.display(),
                kinds.join(", ")
            )
        })
    }
}

/// The score scale of the algorithm named in a pairs table's settings, when
/// they name one (else [`PairsAlgorithm::read`] refuses the table).
fn settings_scale(settings: &Value) -> Option<ScoreScale> {
    match serde_json::from_value(settings["config"].clone()).ok()? {
        AlgorithmConfig::Minhash(c) => Some(Detector::scale(&c.detector())),
        AlgorithmConfig::Simhash(c) => Some(Detector::scale(&c.detector(None))),
        _ => None,
    }
}

/// Why `score` cannot be a score on `scale`, if it cannot.
fn score_fault(score: f32, scale: Option<&ScoreScale>) -> Option<(BadPair, String)> {
    if !score.is_finite() {
        return Some((
            BadPair::NotFinite,
            format!("{score} is not a finite number"),
        ));
    }
    let scale = scale?;
    let value = f64::from(score);
    // A Hamming distance counts differing bits.
    let whole = scale.direction == Direction::AtMost;
    if value < scale.min || value > scale.max || (whole && value.fract() != 0.0) {
        let range = if whole {
            format!("a whole number from {} to {}", scale.min, scale.max)
        } else {
            format!("from {} to {}", scale.min, scale.max)
        };
        return Some((
            BadPair::OutOfRange,
            format!("{score} is not a {}: {range}", scale.name),
        ));
    }
    None
}

/// A pair as read, with where it was read: the file's position among the
/// table's files and its row.
struct ReadPair {
    pair: ScoredPair,
    file: u32,
    row: u32,
}

/// Reads a pairs table; every row must be a pair of two pages of `corpus`
/// with a score on its algorithm's scale, given once.
pub fn read_pairs(path: &Path, corpus: &Corpus) -> Result<ExternalPairs, DistError> {
    read_pairs_checked(path, corpus, false)
}

/// [`read_pairs`], or with `skip_bad` bad rows skipped and counted in
/// [`ExternalPairs::skipped`].
pub fn read_pairs_checked(
    path: &Path,
    corpus: &Corpus,
    skip_bad: bool,
) -> Result<ExternalPairs, DistError> {
    let files = table_files(path)?;
    let env = table_envelope(path, &files)?;
    let settings = env["settings"].clone();
    if let Some(n) = settings["corpus_pages"].as_u64() {
        if n != corpus.len() as u64 {
            return Err(DistError::invalid(
                path,
                format!(
                    "was computed on a corpus of {n} pages ({}); this one has {}",
                    settings["corpus"].as_str().unwrap_or("?"),
                    corpus.len()
                ),
            ));
        }
    }
    let scale = settings_scale(&settings);
    let ids = ids_of(corpus);
    let mut skipped = SkippedPairs::default();
    let mut read = Vec::new();
    for (f, file) in files.iter().enumerate() {
        let df = read_frame(file)?;
        let (a, b) = (strings(file, &df, "a")?, strings(file, &df, "b")?);
        let score = df
            .column("score")
            .map_err(|_| DistError::invalid(file, "no column `score`"))?
            .cast(&DataType::Float32)
            .map_err(|_| DistError::invalid(file, "column `score` is not a number"))?;
        let score = score.f32().expect("cast to f32");
        for (row, ((a, b), s)) in a.iter().zip(b.iter()).zip(score.iter()).enumerate() {
            let at = |field: &str, kind: BadPair, message: String| {
                let error = DistError::invalid(
                    file,
                    format!("row {}: field `{field}`: {message}", row + 1),
                );
                (kind, error)
            };
            let checked = (|| {
                let page = |field: &str, id: Option<&str>| {
                    let id = id.ok_or_else(|| at(field, BadPair::Missing, "missing".into()))?;
                    ids.get(id).copied().ok_or_else(|| {
                        at(
                            field,
                            BadPair::UnknownId,
                            format!("`{}` is not a page of the corpus", clip(id)),
                        )
                    })
                };
                let (pa, pb) = (page("a", a)?, page("b", b)?);
                if pa == pb {
                    return Err(at(
                        "b",
                        BadPair::SelfPair,
                        "a page paired with itself".into(),
                    ));
                }
                let score = s.ok_or_else(|| at("score", BadPair::Missing, "missing".into()))?;
                if let Some((kind, message)) = score_fault(score, scale.as_ref()) {
                    return Err(at("score", kind, message));
                }
                Ok(ScoredPair {
                    a: pa.min(pb),
                    b: pa.max(pb),
                    score,
                })
            })();
            match checked {
                Ok(pair) => read.push(ReadPair {
                    pair,
                    file: f as u32,
                    row: row as u32,
                }),
                Err((kind, _)) if skip_bad => skipped.counts[kind as usize] += 1,
                Err((_, error)) => return Err(error),
            }
        }
    }
    let pairs = once_each(read, &files, skip_bad, &mut skipped)?;
    let mut job = env.clone();
    if let Some(m) = job.as_object_mut() {
        m.remove("settings");
    }
    Ok(ExternalPairs {
        path: path.to_path_buf(),
        settings,
        job,
        pairs,
        skipped,
    })
}

/// The pairs sorted by (a, b), each given once: a pair read again (in
/// either order) is an error naming both rows, or with `skip_bad` the
/// first reading is kept and the others counted.
fn once_each(
    mut read: Vec<ReadPair>,
    files: &[PathBuf],
    skip_bad: bool,
    skipped: &mut SkippedPairs,
) -> Result<Vec<ScoredPair>, DistError> {
    read.par_sort_unstable_by_key(|r| (r.pair.a, r.pair.b, r.file, r.row));
    let mut pairs: Vec<ScoredPair> = Vec::with_capacity(read.len());
    let mut first: Option<&ReadPair> = None;
    for r in &read {
        match first {
            Some(f) if (f.pair.a, f.pair.b) == (r.pair.a, r.pair.b) => {
                if !skip_bad {
                    let file = &files[r.file as usize];
                    let seen = if f.file == r.file {
                        format!("row {}", f.row + 1)
                    } else {
                        format!("{} row {}", files[f.file as usize].display(), f.row + 1)
                    };
                    return Err(DistError::invalid(
                        file,
                        format!(
                            "row {}: field `b`: the pair was already given on {seen}",
                            r.row + 1
                        ),
                    ));
                }
                skipped.counts[BadPair::Twice as usize] += 1;
            }
            _ => {
                first = Some(r);
                pairs.push(r.pair);
            }
        }
    }
    Ok(pairs)
}

/// At most 80 characters of `text`, to echo input in an error without
/// printing a whole field.
fn clip(text: &str) -> String {
    crate::util::fmt::clip(text, 80)
}

/// Reads a clusters table into one label per page of `corpus`: the index
/// of the first page of its cluster (a page of its own when not listed).
pub fn read_clusters(path: &Path, corpus: &Corpus) -> Result<Vec<u32>, DistError> {
    let ids = ids_of(corpus);
    let mut labels: Vec<u32> = (0..corpus.len() as u32).collect();
    let mut listed = vec![false; corpus.len()];
    let mut members: HashMap<String, Vec<u32>> = HashMap::new();
    for file in table_files(path)? {
        let df = read_frame(&file)?;
        let (id, cluster) = (strings(&file, &df, "id")?, strings(&file, &df, "cluster")?);
        for (row, (id, cluster)) in id.iter().zip(cluster.iter()).enumerate() {
            let at = |field: &str, message: String| {
                DistError::invalid(
                    &file,
                    format!("row {}: field `{field}`: {message}", row + 1),
                )
            };
            let id = id.ok_or_else(|| at("id", "missing".into()))?;
            let page = *ids
                .get(id)
                .ok_or_else(|| at("id", format!("`{}` is not a page of the corpus", clip(id))))?;
            if std::mem::replace(&mut listed[page as usize], true) {
                return Err(at("id", format!("`{}` is listed twice", clip(id))));
            }
            let cluster = cluster.ok_or_else(|| at("cluster", "missing".into()))?;
            members.entry(cluster.to_string()).or_default().push(page);
        }
    }
    for pages in members.values() {
        let first = *pages.iter().min().expect("a cluster has a page");
        for &p in pages {
            labels[p as usize] = first;
        }
    }
    Ok(labels)
}

/// Each page's cluster named by its least page index, so that two
/// clusterings compare with `==`.
pub fn canonical(labels: &[u32]) -> Vec<u32> {
    let mut least: HashMap<u32, u32> = HashMap::new();
    for (p, &l) in labels.iter().enumerate() {
        least.entry(l).or_insert(p as u32);
    }
    labels.iter().map(|l| least[l]).collect()
}

/// The transitive closure of the pairs passing `threshold`, as labels.
pub fn closure(pages: usize, pairs: &[ScoredPair], passes: impl Fn(f32) -> bool) -> Vec<u32> {
    let mut sets = UnionFind::new(pages);
    for p in pairs.iter().filter(|p| passes(p.score)) {
        sets.union(p.a, p.b);
    }
    sets.least_labels()
}

/// One input: pairs, and the clusters the job made of them, if given.
pub struct ExternalInput {
    pub pairs: ExternalPairs,
    pub clusters: Option<(PathBuf, Vec<u32>)>,
}

/// Reads the corpus (`demo` for the embedded one) and each pairs table,
/// with the clusters made of it when given (one per pairs table, in order):
/// what `neardup evaluate` and the workbench score.
pub fn read_inputs(
    corpus_path: &Path,
    pairs: &[PathBuf],
    clusters: &[PathBuf],
    skip_bad: bool,
) -> Result<(Corpus, Vec<ExternalInput>), DistError> {
    if !clusters.is_empty() && clusters.len() != pairs.len() {
        return Err(DistError::Usage(format!(
            "--clusters: give one per --pairs ({} pairs, {} clusters)",
            pairs.len(),
            clusters.len()
        )));
    }
    let corpus = if corpus_path == Path::new("demo") {
        crate::corpus::demo::demo_corpus()?
    } else {
        crate::corpus::read_corpus(corpus_path, Default::default())?
    };
    let inputs = pairs
        .iter()
        .enumerate()
        .map(|(i, p)| {
            Ok(ExternalInput {
                pairs: read_pairs_checked(p, &corpus, skip_bad)?,
                clusters: match clusters.get(i) {
                    Some(c) => Some((c.clone(), read_clusters(c, &corpus)?)),
                    None => None,
                },
            })
        })
        .collect::<Result<Vec<_>, DistError>>()?;
    Ok((corpus, inputs))
}

/// Scores external pairs over `corpus` as `neardup run` scores its own.
pub fn evaluate_external(
    name: &str,
    corpus: &Corpus,
    inputs: &[ExternalInput],
) -> Result<ExperimentResult, DistError> {
    let wall = std::time::Instant::now();
    let cpu = process_cpu_seconds();
    let input_bytes = corpus.content_bytes();
    let mut clock = StageClock::new(corpus.len(), input_bytes);
    let first = inputs
        .first()
        .ok_or_else(|| DistError::Usage("give at least one --pairs".into()))?;
    let extraction: Extraction =
        serde_json::from_value(first.pairs.settings["extract"].clone()).unwrap_or_default();
    let started = clock.start();
    let (lengths, blank): (Vec<usize>, Vec<bool>) = corpus
        .pages
        .par_iter()
        .map(|p| {
            let structure = extract_page(p, extraction).structure;
            let text = structure.text();
            (text.chars().count(), text.trim().is_empty())
        })
        .unzip();
    clock.stop(started, Stage::DecodeExtract, extraction.name());
    let truth = Truth::new(&corpus.pages, &lengths);

    let mut algorithms = Vec::new();
    for input in inputs {
        let scoring = Scoring {
            corpus,
            truth: &truth,
            extraction,
        };
        let result = scoring.evaluate(algorithms.len(), input, &mut clock)?;
        algorithms.push(result);
    }
    Ok(ExperimentResult {
        name: name.to_string(),
        corpus_source: corpus.source.clone(),
        pages: corpus.len(),
        input_bytes,
        skipped_empty: corpus.skipped_empty,
        empty_after_extraction: vec![(extraction, blank.iter().filter(|&&b| b).count())],
        boilerplate: Vec::new(),
        extract_cache: Vec::new(),
        truth,
        algorithms,
        throughput: clock.records,
        wall_seconds: wall.elapsed().as_secs_f64(),
        cpu_seconds: process_cpu_seconds() - cpu,
        peak_memory_bytes: peak_memory_bytes(),
    })
}

/// What the settings of a pairs file say of the algorithm that made them.
struct PairsAlgorithm {
    name: &'static str,
    label: String,
    scale: ScoreScale,
    notes: Vec<String>,
    banding: Option<Banding>,
    threshold: f64,
    grid: Vec<f64>,
}

impl PairsAlgorithm {
    fn read(input: &ExternalPairs) -> Result<Self, DistError> {
        let ExternalPairs {
            path,
            settings,
            job,
            ..
        } = input;
        let bad = |message: String| DistError::invalid(path, message);
        let config: AlgorithmConfig = serde_json::from_value(settings["config"].clone())
            .map_err(|e| bad(format!("settings `config`: {e}")))?;
        let (name, scale, mut notes, banding) = match &config {
            AlgorithmConfig::Minhash(c) => {
                let d = c.detector();
                (
                    Detector::name(&d),
                    Detector::scale(&d),
                    d.describe(),
                    d.banding(),
                )
            }
            AlgorithmConfig::Simhash(c) => {
                let d = c.detector(None);
                (Detector::name(&d), Detector::scale(&d), Vec::new(), None)
            }
            _ => return Err(bad("settings `config`: not a MinHash or SimHash".into())),
        };
        let threshold = settings["threshold"]
            .as_f64()
            .ok_or_else(|| bad("settings: no `threshold`".into()))?;
        let grid: Vec<f64> = serde_json::from_value(settings["grid"].clone())
            .map_err(|e| bad(format!("settings `grid`: {e}")))?;
        let label = settings["label"].as_str().unwrap_or(name).to_string();
        notes.push(format!(
            "pairs computed elsewhere ({}): {}{}",
            job["job"]["engine"].as_str().unwrap_or("external"),
            path.display(),
            match job["job"]["candidates"].as_u64() {
                Some(c) => format!(", from {c} candidate pairs"),
                None => String::new(),
            }
        ));
        Ok(PairsAlgorithm {
            name,
            label,
            scale,
            notes,
            banding,
            threshold,
            grid,
        })
    }
}

/// What every pairs file is scored against.
struct Scoring<'a> {
    corpus: &'a Corpus,
    truth: &'a Truth,
    extraction: Extraction,
}

impl Scoring<'_> {
    /// One pairs file (and its clusters, if given) scored as entry `entry`
    /// of the run.
    fn evaluate(
        &self,
        entry: usize,
        input: &ExternalInput,
        clock: &mut StageClock,
    ) -> Result<AlgorithmResult, DistError> {
        let (truth, extraction) = (self.truth, self.extraction);
        let ExternalPairs { job, pairs, .. } = &input.pairs;
        let PairsAlgorithm {
            name,
            label,
            scale,
            mut notes,
            banding,
            threshold,
            grid,
        } = PairsAlgorithm::read(&input.pairs)?;
        notes.extend(input.pairs.skipped.note(&input.pairs.path));
        let started = clock.start();
        let labels = input.clusters.as_ref().map(|(p, l)| (p, canonical(l)));
        if let Some((cpath, given)) = &labels {
            let own = closure(self.corpus.len(), pairs, |s| scale.passes(s, threshold));
            let differ = given.iter().zip(&own).filter(|(x, y)| x != y).count();
            let at = format_threshold(&scale, threshold);
            notes.push(if differ == 0 {
                format!(
                    "clusters {} equal the closure of the pairs at {at}",
                    cpath.display(),
                )
            } else {
                format!(
                    "clusters {} differ from the closure of the pairs at {at} on {differ} pages; \
                     the clustered and page levels at that threshold score the given clusters",
                    cpath.display(),
                )
            });
        }
        let evaluations = grid
            .iter()
            .map(|&t| match &labels {
                Some((_, l)) if t == threshold => {
                    evaluate_with_clusters(truth, pairs, &scale, t, Some(l))
                }
                _ => evaluate_at(truth, pairs, &scale, t),
            })
            .collect();
        clock.stop(
            started,
            Stage::Evaluate,
            &format!("{label} [{}]", extraction.name()),
        );
        let candidates = candidate_recall(truth, pairs);
        Ok(AlgorithmResult {
            entry,
            // Clusters computed elsewhere are scored as they are.
            clustering: Default::default(),
            end_to_end: Default::default(),
            extraction,
            fitted: None,
            curves: Default::default(),
            run: std::sync::Arc::new(AlgorithmRun {
                name,
                label,
                scale,
                pairs: pairs.clone(),
                candidates: job["job"]["candidates"]
                    .as_u64()
                    .unwrap_or(pairs.len() as u64),
                groups: Vec::new(),
                candidate_pairs: Vec::new(),
                notes,
                unsigned: Vec::new(),
                gates: Vec::new(),
                gate_scores: Vec::new(),
                banding,
                sampled: Vec::new(),
            }),
            threshold,
            evaluations,
            candidates,
            // The job counts its candidates, and the true ones among them
            // when the pages carry labels; otherwise only the stored
            // pairs tell.
            candidate_stage: match (
                job["job"]["candidates"].as_u64(),
                job["job"]["true_candidates"].as_u64(),
            ) {
                (Some(detected), Some(correct)) => Counts {
                    actual: truth.true_pairs(),
                    detected,
                    correct,
                },
                _ => candidates,
            },
            unsigned_by_slice: vec![0; truth.slice_names.len()],
        })
    }
}
