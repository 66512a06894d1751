//! `neardup signatures`: an experiment's MinHash sketches with their band
//! hashes and its SimHash fingerprints, computed by the same code as an
//! in-process run and written as Parquet for a cluster job.
//!
//! Layout under the output directory (one `part-I-of-N.parquet` per shard):
//!
//! ```text
//! pages/                     page (the row in the corpus), id, url, length, cluster
//! minhash-K/signatures/      page, signature (the n values, u32 stored as int32)
//! minhash-K/bands/           page, band, hash (u64 stored as int64)
//! simhash-K/fingerprints/    page, fingerprint (u64 stored as int64)
//! ```
//!
//! K is the algorithm's position in the experiment. Spark has no unsigned
//! types, so unsigned values are stored bit for bit in signed columns: only
//! equality and bit operations are applied to them, which the cast keeps.

use std::path::Path;

use polars::prelude::*;
use rayon::prelude::*;
use serde_json::{json, Value};

use super::{write_table, DistError, Shard, FORMAT};
use crate::algo::shingling::config::MinhashConfig;
use crate::algo::shingling::lsh::Banding;
use crate::algo::shingling::minhash::{
    MINHASH_FAMILY, MINHASH_SEED, ONE_PERMUTATION_FAMILY, ONE_PERMUTATION_SEED,
};
use crate::algo::shingling::{CandidateSearch, SetScore, Sketching, Verify};
use crate::algo::simhash::config::SimhashConfig;
use crate::algo::simhash::{self, SimHash, Weights};
use crate::algo::{Detector, Document};
use crate::corpus::Corpus;
use crate::experiment::config::{with_threshold, AlgorithmConfig};
use crate::experiment::{ExperimentConfig, References};
use crate::extract::{extract_page, Extraction};
use crate::text::lang::detect_lang;
use crate::text::TokenizerConfig;

/// What was written for one algorithm (or why it was not).
#[derive(Debug, Clone, PartialEq)]
pub enum Exported {
    Written {
        key: String,
        label: String,
        /// Pages of the shard, and those with a signature.
        pages: usize,
        signed: usize,
    },
    Skipped {
        position: usize,
        reason: String,
    },
}

/// The experiment's only algorithms a cluster job can run: MinHash with
/// LSH or super-shingles scored by the estimate, SimHash of 64 bits with a
/// table layout.
fn exportable(config: &AlgorithmConfig) -> Result<(), String> {
    match config {
        AlgorithmConfig::Minhash(c) => {
            if matches!(c.search(), CandidateSearch::AllPairs) {
                Err("candidates: all_pairs compares every pair; use lsh or super_shingles".into())
            } else if c.score == SetScore::Containment {
                Err("score: containment needs the shingle counts, which the job does not read; use jaccard".into())
            } else if c.verify == Verify::Exact {
                Err(
                    "verify: exact needs the shingle sets, which are not exported; use estimate"
                        .into(),
                )
            } else {
                Ok(())
            }
        }
        AlgorithmConfig::Simhash(c) => {
            if c.bits != 64 {
                Err("bits: 128 has no table layout; use 64".into())
            } else if !matches!(c.layout(), Ok(Some(_))) {
                Err("candidates: all_pairs compares every pair; use the permuted tables".into())
            } else {
                Ok(())
            }
        }
        other => Err(format!(
            "type {} has no cluster job",
            serde_json::to_value(other).expect("config serialises")["type"]
        )),
    }
}

/// Settings shared by every exported algorithm.
fn common_settings(
    key: &str,
    label: &str,
    algorithm: &AlgorithmConfig,
    tokenizer: &TokenizerConfig,
    extraction: Extraction,
    corpus: &Corpus,
) -> serde_json::Map<String, Value> {
    let mut m = serde_json::Map::new();
    m.insert("key".into(), key.into());
    m.insert("label".into(), label.into());
    m.insert(
        "config".into(),
        serde_json::to_value(algorithm).expect("config serialises"),
    );
    m.insert(
        "tokenizer".into(),
        serde_json::to_value(tokenizer).expect("config serialises"),
    );
    m.insert("extract".into(), extraction.name().into());
    m.insert("corpus".into(), corpus.source.clone().into());
    m.insert("corpus_pages".into(), corpus.len().into());
    m
}

fn metadata(table: &str, shard: Shard, settings: &Value) -> Value {
    json!({
        "format": FORMAT,
        "table": table,
        "shard": [shard.index, shard.count],
        "settings": settings,
    })
}

/// Computes and writes the shard's signatures for every exportable
/// algorithm of `config`; `corpus` is the whole corpus (the shard is taken
/// from it), `references` as `experiment::load_references` reads them.
pub fn write_signatures(
    config: &ExperimentConfig,
    corpus: &Corpus,
    references: &References,
    out: &Path,
    shard: Shard,
) -> Result<Vec<Exported>, DistError> {
    let extraction = config.extractions()[0];
    let selected: Vec<u32> = (0..corpus.len() as u32)
        .filter(|&i| shard.holds(&corpus.pages[i as usize].id))
        .collect();
    let texts: Vec<String> = selected
        .par_iter()
        .map(|&i| page_text(corpus, i, extraction))
        .collect();
    write_pages(corpus, extraction, &selected, &texts, out, shard)?;

    let mut export = ShardExport {
        corpus,
        references,
        out,
        shard,
        extraction,
        exported_on: exported_tokenizers(config, extraction),
        selected,
        texts,
        tokenized: Vec::new(),
    };
    let mut exported = Vec::new();
    for (position, entry) in config.algorithms.iter().enumerate() {
        let algorithm = &entry.config;
        if !config.runs_on(entry, extraction) {
            exported.push(Exported::Skipped {
                position,
                reason: format!(
                    "reads `{}`; signatures are written for `{}`, the experiment's first extraction",
                    entry.extract.map_or("?", |e| e.name()),
                    extraction.name()
                ),
            });
            continue;
        }
        if let Err(reason) = exportable(algorithm) {
            exported.push(Exported::Skipped { position, reason });
            continue;
        }
        let own = config.algorithm_tokenizer(algorithm);
        let tokenizer = own.clone().unwrap_or_else(|| config.tokenizer.clone());
        let suffix = own
            .map(|t| format!(" on {}", t.describe()))
            .unwrap_or_default();
        let written = match algorithm {
            AlgorithmConfig::Minhash(c) => {
                export.minhash(position, algorithm, c, &tokenizer, &suffix)?
            }
            AlgorithmConfig::Simhash(c) => {
                export.simhash(position, algorithm, c, &tokenizer, &suffix)?
            }
            _ => unreachable!("exportable() admits MinHash and SimHash only"),
        };
        let (key, label, signed) = written;
        exported.push(Exported::Written {
            key,
            label,
            pages: export.selected.len(),
            signed,
        });
    }
    if !exported
        .iter()
        .any(|e| matches!(e, Exported::Written { .. }))
    {
        let reasons: Vec<String> = exported
            .iter()
            .filter_map(|e| match e {
                Exported::Skipped { position, reason } => {
                    Some(format!("algorithms[{position}]: {reason}"))
                }
                Exported::Written { .. } => None,
            })
            .collect();
        return Err(DistError::Usage(format!(
            "no algorithm of the experiment can be exported: a cluster job runs `minhash` \
             (lsh or super_shingles, verify: estimate) and `simhash` (64 bits with `index:`); {}",
            reasons.join("; ")
        )));
    }
    Ok(exported)
}

/// The main text of corpus page `i` under `extraction`.
fn page_text(corpus: &Corpus, i: u32, extraction: Extraction) -> String {
    extract_page(&corpus.pages[i as usize], extraction)
        .structure
        .text()
        .to_string()
}

/// The `pages` table of the shard: row, id, url, text length, and the
/// cluster when the corpus is labelled.
fn write_pages(
    corpus: &Corpus,
    extraction: Extraction,
    selected: &[u32],
    texts: &[String],
    out: &Path,
    shard: Shard,
) -> Result<(), DistError> {
    let labelled = corpus.unlabelled < corpus.len();
    let mut pages = DataFrame::new_infer_height(vec![
        Column::new(
            "page".into(),
            selected.iter().map(|&i| i64::from(i)).collect::<Vec<_>>(),
        ),
        Column::new(
            "id".into(),
            selected
                .iter()
                .map(|&i| corpus.pages[i as usize].id.as_str())
                .collect::<Vec<_>>(),
        ),
        Column::new(
            "url".into(),
            selected
                .iter()
                .map(|&i| corpus.pages[i as usize].url.as_deref())
                .collect::<Vec<_>>(),
        ),
        Column::new(
            "length".into(),
            texts
                .iter()
                .map(|t| t.chars().count() as i64)
                .collect::<Vec<_>>(),
        ),
    ])
    .map_err(|e| DistError::invalid(out, e.to_string()))?;
    if labelled {
        let clusters: Vec<&str> = selected
            .iter()
            .map(|&i| corpus.pages[i as usize].cluster.as_str())
            .collect();
        pages
            .with_column(Column::new("cluster".into(), clusters))
            .map_err(|e| DistError::invalid(out, e.to_string()))?;
    }
    let pages_settings = json!({
        "corpus": corpus.source,
        "corpus_pages": corpus.len(),
        "extract": extraction.name(),
        "labelled": labelled,
    });
    write_table(
        &out.join("pages").join(shard.file_name()),
        &mut pages,
        &metadata("pages", shard, &pages_settings),
    )
}

/// Each algorithm's tokenizer when it is exported, `None` when it is not.
/// A SimHash that is the only one exported on its tokens signs each page
/// straight from its text (as a run does), without tokenising the shard.
fn exported_tokenizers(
    config: &ExperimentConfig,
    extraction: Extraction,
) -> Vec<Option<TokenizerConfig>> {
    config
        .algorithms
        .iter()
        .map(|entry| {
            (config.runs_on(entry, extraction) && exportable(&entry.config).is_ok()).then(|| {
                config
                    .algorithm_tokenizer(&entry.config)
                    .unwrap_or_else(|| config.tokenizer.clone())
            })
        })
        .collect()
}

/// What every algorithm's export of one shard reads, and the documents
/// tokenised so far, kept for the algorithms after.
struct ShardExport<'a> {
    corpus: &'a Corpus,
    references: &'a References,
    out: &'a Path,
    shard: Shard,
    extraction: Extraction,
    exported_on: Vec<Option<TokenizerConfig>>,
    /// The shard's pages (rows of the corpus) and their texts.
    selected: Vec<u32>,
    texts: Vec<String>,
    /// Documents per tokenizer, as the runner builds them, made when an
    /// algorithm first needs them.
    tokenized: Vec<(TokenizerConfig, Vec<Document>)>,
}

/// The key, label and number of signed pages of one written algorithm.
type Written = (String, String, usize);

impl ShardExport<'_> {
    /// Whether `tokenizer` is the tokens of exactly one exported algorithm.
    fn alone_on(&self, tokenizer: &TokenizerConfig) -> bool {
        self.exported_on
            .iter()
            .flatten()
            .filter(|t| *t == tokenizer)
            .count()
            == 1
    }

    /// Writes the sketches and band hashes of the MinHash at `position`.
    fn minhash(
        &mut self,
        position: usize,
        algorithm: &AlgorithmConfig,
        c: &MinhashConfig,
        tokenizer: &TokenizerConfig,
        suffix: &str,
    ) -> Result<Written, DistError> {
        let (out, shard) = (self.out, self.shard);
        let detector = c.detector();
        let key = format!("{}-{position}", Detector::name(&detector));
        let label = format!("{}{suffix}", Detector::label(&detector));
        let banding = detector.banding().expect("exportable searches band");
        let mut settings = common_settings(
            &key,
            &label,
            algorithm,
            tokenizer,
            self.extraction,
            self.corpus,
        );
        let (seed, family) = match c.sketch {
            Sketching::Minhash => (MINHASH_SEED, MINHASH_FAMILY),
            Sketching::OnePermutation => (ONE_PERMUTATION_SEED, ONE_PERMUTATION_FAMILY),
        };
        settings.extend([
            ("algorithm".into(), Detector::name(&detector).into()),
            ("shingle_width".into(), c.width.into()),
            (
                "sketch".into(),
                serde_json::to_value(c.sketch).expect("enum"),
            ),
            ("hashes".into(), detector.hashes().into()),
            ("seed".into(), seed.into()),
            ("hash_family".into(), family.into()),
            ("bands".into(), banding.bands.into()),
            ("rows".into(), banding.rows.into()),
            ("min_shared".into(), banding.min_shared.into()),
            ("estimator".into(), "equal positions / hashes".into()),
            ("threshold".into(), c.threshold.into()),
            ("floor".into(), c.floor.into()),
            (
                "grid".into(),
                with_threshold(&c.listed_grid(), c.threshold).into(),
            ),
        ]);
        let settings = Value::Object(settings);
        let docs = documents_for(
            &mut self.tokenized,
            tokenizer,
            &self.selected,
            &self.texts,
            self.corpus,
        );
        let sketches: Vec<Option<Vec<u32>>> = docs
            .par_iter()
            .map(|d| detector.sign(d).map(|s| s.values))
            .collect();
        let signed: Vec<(i64, &Vec<u32>)> = docs
            .iter()
            .zip(&sketches)
            .filter_map(|(d, s)| Some((i64::from(d.page), s.as_ref()?)))
            .collect();
        let mut signatures = sketch_table(&signed, out)?;
        let mut bands = band_table(&signed, &banding, out)?;
        let dir = out.join(&key);
        write_table(
            &dir.join("signatures").join(shard.file_name()),
            &mut signatures,
            &metadata("signatures", shard, &settings),
        )?;
        write_table(
            &dir.join("bands").join(shard.file_name()),
            &mut bands,
            &metadata("bands", shard, &settings),
        )?;
        Ok((key, label, signed.len()))
    }

    /// Writes the fingerprints of the SimHash at `position`.
    fn simhash(
        &mut self,
        position: usize,
        algorithm: &AlgorithmConfig,
        c: &SimhashConfig,
        tokenizer: &TokenizerConfig,
        suffix: &str,
    ) -> Result<Written, DistError> {
        let (out, shard, corpus) = (self.out, self.shard, self.corpus);
        let mut detector = c.detector(self.references.get(position).cloned().flatten());
        if c.weights != Weights::Tf {
            // IDF counts the whole collection: a shard alone would
            // weigh its features differently from one machine.
            if shard.count > 1 && detector.reference.is_none() {
                let extraction = self.extraction;
                let all = Document::many(corpus.len(), tokenizer, |i| {
                    (
                        page_text(corpus, i as u32, extraction),
                        corpus.pages[i].lang,
                    )
                });
                detector.fit(&all);
            } else {
                detector.fit(documents_for(
                    &mut self.tokenized,
                    tokenizer,
                    &self.selected,
                    &self.texts,
                    corpus,
                ));
            }
        }
        let layout = detector
            .layout
            .clone()
            .expect("exportable SimHash has tables");
        let key = format!("{}-{position}", Detector::name(&detector));
        let label = format!("{}{suffix}", Detector::label(&detector));
        let tables: Vec<Value> = layout
            .permutations()
            .iter()
            .map(|p| json!({"prefix_bits": p.prefix_bits, "moves": p.moves()}))
            .collect();
        let mut settings =
            common_settings(&key, &label, algorithm, tokenizer, self.extraction, corpus);
        settings.extend([
            ("algorithm".into(), Detector::name(&detector).into()),
            (
                "features".into(),
                serde_json::to_value(c.features).expect("enum"),
            ),
            ("ngram".into(), c.ngram.into()),
            (
                "weights".into(),
                serde_json::to_value(c.weights).expect("enum"),
            ),
            ("idf".into(), c.idf.clone().into()),
            ("bits".into(), c.bits.into()),
            ("seed".into(), simhash::SEED.into()),
            ("hash_family".into(), simhash::HASH_FAMILY.into()),
            ("layout".into(), layout.to_string().into()),
            ("max_k".into(), layout.max_k().into()),
            ("tables".into(), tables.into()),
            ("threshold".into(), c.threshold.into()),
            ("floor".into(), c.floor().into()),
            (
                "grid".into(),
                with_threshold(&c.listed_grid(), c.threshold).into(),
            ),
        ]);
        let settings = Value::Object(settings);
        let fingerprints = self.fingerprints(&detector, tokenizer);
        let mut table = DataFrame::new_infer_height(vec![
            Column::new(
                "page".into(),
                fingerprints.iter().map(|f| f.0).collect::<Vec<_>>(),
            ),
            Column::new(
                "fingerprint".into(),
                fingerprints.iter().map(|f| f.1).collect::<Vec<_>>(),
            ),
        ])
        .map_err(|e| DistError::invalid(out, e.to_string()))?;
        write_table(
            &out.join(&key).join("fingerprints").join(shard.file_name()),
            &mut table,
            &metadata("fingerprints", shard, &settings),
        )?;
        Ok((key, label, fingerprints.len()))
    }

    /// (page, fingerprint) of every signed page of the shard.
    fn fingerprints(&mut self, detector: &SimHash, tokenizer: &TokenizerConfig) -> Vec<(i64, i64)> {
        let corpus = self.corpus;
        if detector.signs_from_text() && self.alone_on(tokenizer) {
            self.selected
                .par_iter()
                .zip(&self.texts)
                .filter_map(|(&page, text)| {
                    // The language as tokenising would take it.
                    let lang = corpus.pages[page as usize]
                        .lang
                        .unwrap_or_else(|| detect_lang(text));
                    let fingerprint = detector.sign_text(text, lang, tokenizer)?;
                    Some((i64::from(page), fingerprint as u64 as i64))
                })
                .collect()
        } else {
            documents_for(
                &mut self.tokenized,
                tokenizer,
                &self.selected,
                &self.texts,
                corpus,
            )
            .par_iter()
            .filter_map(|d| Some((i64::from(d.page), detector.sign(d)? as u64 as i64)))
            .collect()
        }
    }
}

/// The `signatures` table: page, and its sketch as int32 values.
fn sketch_table(signed: &[(i64, &Vec<u32>)], out: &Path) -> Result<DataFrame, DistError> {
    let signature: ListChunked = signed
        .iter()
        .map(|(_, s)| {
            let values: Vec<i32> = s.iter().map(|&v| v as i32).collect();
            Some(Series::new("".into(), values))
        })
        .collect();
    DataFrame::new_infer_height(vec![
        Column::new(
            "page".into(),
            signed.iter().map(|s| s.0).collect::<Vec<_>>(),
        ),
        signature.into_series().with_name("signature".into()).into(),
    ])
    .map_err(|e| DistError::invalid(out, e.to_string()))
}

/// The `bands` table: a row (page, band, hash) per band of each sketch.
fn band_table(
    signed: &[(i64, &Vec<u32>)],
    banding: &Banding,
    out: &Path,
) -> Result<DataFrame, DistError> {
    let (mut page, mut band, mut hash) = (Vec::new(), Vec::new(), Vec::new());
    for (p, s) in signed {
        for (b, h) in banding.band_hashes(s).into_iter().enumerate() {
            page.push(*p);
            band.push(b as i32);
            hash.push(h as i64);
        }
    }
    DataFrame::new_infer_height(vec![
        Column::new("page".into(), page),
        Column::new("band".into(), band),
        Column::new("hash".into(), hash),
    ])
    .map_err(|e| DistError::invalid(out, e.to_string()))
}

/// The shard's documents tokenised by `tokenizer`, made the first time
/// an algorithm asks for them and kept for the others.
fn documents_for<'a>(
    tokenized: &'a mut Vec<(TokenizerConfig, Vec<Document>)>,
    tokenizer: &TokenizerConfig,
    selected: &[u32],
    texts: &[String],
    corpus: &Corpus,
) -> &'a Vec<Document> {
    let at = match tokenized.iter().position(|(t, _)| t == tokenizer) {
        Some(at) => at,
        None => {
            let mut docs = Document::many(selected.len(), tokenizer, |k| {
                let page = selected[k] as usize;
                (texts[k].clone(), corpus.pages[page].lang)
            });
            for (doc, &page) in docs.iter_mut().zip(selected) {
                doc.page = page;
            }
            tokenized.push((tokenizer.clone(), docs));
            tokenized.len() - 1
        }
    };
    &tokenized[at].1
}

/// The experiment `neardup signatures CORPUS` uses: MinHash at its defaults
/// and SimHash at k = 3 through seed 004's 6c3 tables.
pub const DEFAULT_EXPERIMENT: &str = "\
corpus: unused
algorithms:
  - type: minhash
  - type: simhash
    index: 6c3
    threshold: 3
    floor: 3
    grid: [0, 1, 2, 3]
";
