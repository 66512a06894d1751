//! `neardup bench`: throughput of each algorithm's stages on real text, on
//! one core, reported as pages/s, items/s (shingles, terms) and MB/s of
//! the text the stage reads, with the process's peak memory.
//!
//! Each stage runs over the whole input repeatedly until a minimum time has
//! passed, so short inputs are measured as reliably as long ones. Figures
//! go into notes and reports; nothing here asserts a speed.

pub mod accuracy;
pub mod eval;
pub mod scale;

use std::fmt::Write as _;
use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

use crate::algo::imatch::{IMatch, IdfBand};
use crate::algo::shingling::lsh::Banding;
use crate::algo::shingling::minhash::{
    OnePermutation, PermutedHashes, MINHASH_SEED, ONE_PERMUTATION_SEED,
};
use crate::algo::shingling::{ExactJaccard, SetScore};
use crate::algo::simhash::tables::{build_tables, query, self_join as simhash_self_join, Layout};
use crate::algo::simhash::{Features, SimHash, Weights};
use crate::algo::{Detector, Document};
use crate::corpus::{read_corpus, Content, CorpusError, Lang, Page, ReadOptions};
use crate::extract::{extract_page, page_text, Extraction};
use crate::text::lang::detect_lang;
use crate::text::shingle::shingles;
use crate::text::TokenizerConfig;

/// Pages of plain text to run the stages on.
#[derive(Debug, Clone)]
pub struct BenchInput {
    pub name: String,
    pub pages: Vec<(Lang, String)>,
}

impl BenchInput {
    /// Every page of a corpus, as its text.
    pub fn from_corpus(path: &Path) -> Result<Self, CorpusError> {
        let corpus = read_corpus(path, ReadOptions::unlabelled())?;
        let pages = corpus
            .pages
            .iter()
            .map(|p| {
                let text = page_text(p, Extraction::Main).text;
                (p.lang.unwrap_or_else(|| detect_lang(&text)), text)
            })
            .filter(|(_, t)| !t.trim().is_empty())
            .collect();
        Ok(BenchInput {
            name: path.display().to_string(),
            pages,
        })
    }

    /// A corpus's texts cut into pages of `chars` characters (the rest of
    /// an article shorter than half a page is dropped): seed 001's pages
    /// are news and prose of about this length.
    pub fn cut_into_pages(path: &Path, chars: usize) -> Result<Self, CorpusError> {
        let whole = Self::from_corpus(path)?;
        let mut pages = Vec::new();
        for (lang, text) in &whole.pages {
            let chars_of: Vec<char> = text.chars().collect();
            for piece in chars_of.chunks(chars.max(1)) {
                if piece.len() * 2 >= chars {
                    pages.push((*lang, piece.iter().collect()));
                }
            }
        }
        Ok(BenchInput {
            name: format!("{} in {chars}-character pages", whole.name),
            pages,
        })
    }

    /// The pages tokenised, in order.
    pub fn documents(&self, tokenizer: &TokenizerConfig) -> Vec<Document> {
        Document::many(self.pages.len(), tokenizer, |i| {
            let (lang, text) = &self.pages[i];
            (text.clone(), Some(*lang))
        })
    }

    pub fn bytes(&self) -> usize {
        self.pages.iter().map(|(_, t)| t.len()).sum()
    }
}

/// The pages' shingle sets (w = 3 over the default tokens, as the MinHash
/// stages sketch them) as little-endian u64s: the number of pages, the
/// number of hashes, the pages' start offsets (pages + 1 of them), then the
/// hashes. Other MinHash implementations read this to sketch exactly the
/// same shingles (`scripts/compare_rensa.py`).
pub fn shingle_sets_bytes(input: &BenchInput) -> Vec<u8> {
    let sets: Vec<Vec<u64>> = input
        .documents(&TokenizerConfig::default())
        .iter()
        .map(|d| shingles(&d.tokens, SHINGLE_WIDTH))
        .collect();
    let total: usize = sets.iter().map(Vec::len).sum();
    let mut words = Vec::with_capacity(3 + sets.len() + total);
    words.extend([sets.len() as u64, total as u64, 0]);
    let mut offset = 0u64;
    for set in &sets {
        offset += set.len() as u64;
        words.push(offset);
    }
    for set in &sets {
        words.extend_from_slice(set);
    }
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// One stage's measurement.
#[derive(Debug, Clone)]
pub struct BenchRow {
    pub input: String,
    pub stage: String,
    pub pages: usize,
    /// What the stage consumes, counted (e.g. shingles), and its name.
    pub items: usize,
    pub item_name: &'static str,
    pub bytes: usize,
    /// Seconds per pass over the input.
    pub seconds: f64,
}

impl BenchRow {
    pub fn pages_per_second(&self) -> f64 {
        self.pages as f64 / self.seconds
    }
    fn items_per_second(&self) -> f64 {
        self.items as f64 / self.seconds
    }
    pub fn megabytes_per_second(&self) -> f64 {
        self.bytes as f64 / 1e6 / self.seconds
    }
}

/// CPU seconds per call of `f`: the median over passes repeated until
/// `min_seconds` of wall time have passed. CPU time of this thread and the
/// median keep other processes on a shared machine out of the figure.
fn seconds_per_pass<R>(min_seconds: f64, mut f: impl FnMut() -> R) -> f64 {
    black_box(f()); // warm caches and lazy statics
    let started = Instant::now();
    let mut passes = Vec::new();
    loop {
        let cpu = thread_cpu_seconds();
        black_box(f());
        passes.push(thread_cpu_seconds() - cpu);
        if started.elapsed().as_secs_f64() >= min_seconds && passes.len() >= 3 {
            passes.sort_by(f64::total_cmp);
            return passes[passes.len() / 2];
        }
    }
}

/// CPU seconds this thread has run.
fn thread_cpu_seconds() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec for the call to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 / 1e9
}

/// Decoding and extraction (`main`, then `full_text`) of up to `limit`
/// HTML pages of a corpus file or a folder of pages (as `neardup
/// extract-eval` reads them), on one thread, with no extraction cache:
/// pages/s and MB/s of the pages' HTML.
pub fn bench_extraction(
    path: &Path,
    limit: usize,
    min_seconds: f64,
) -> Result<Vec<BenchRow>, crate::corpus::gold::GoldError> {
    let mut pages: Vec<Page> = crate::corpus::gold::pages_of(path)?
        .into_iter()
        .filter(|(_, c)| !matches!(c, Content::Text(_)))
        .map(|(id, content)| Page::new(id.clone(), id, content))
        .collect();
    pages.truncate(limit);
    let bytes: usize = pages.iter().map(|p| p.content.len()).sum();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a one-thread pool");
    Ok([Extraction::Main, Extraction::FullText]
        .into_iter()
        .map(|extraction| {
            let seconds = pool.install(|| {
                seconds_per_pass(min_seconds, || {
                    pages
                        .iter()
                        .map(|p| extract_page(p, extraction).structure.paragraph_count())
                        .sum::<usize>()
                })
            });
            BenchRow {
                input: format!("{} (HTML)", path.display()),
                stage: format!("decode + extract [{}]", extraction.name()),
                pages: pages.len(),
                items: bytes,
                item_name: "bytes",
                bytes,
                seconds,
            }
        })
        .collect())
}

/// Tokenising, shingling, MinHash and one-permutation sketches, LSH
/// candidates and the exact-Jaccard index, on one thread.
pub fn bench_shingling(input: &BenchInput, min_seconds: f64) -> Vec<BenchRow> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a one-thread pool");
    pool.install(|| shingling_stages(input, min_seconds))
}

/// The shingle width of the shingling stages.
const SHINGLE_WIDTH: usize = 3;

fn shingling_stages(input: &BenchInput, min_seconds: f64) -> Vec<BenchRow> {
    const WIDTH: usize = SHINGLE_WIDTH;
    const HASHES: usize = 128;
    let tokenizer = TokenizerConfig::default();
    let bytes = input.bytes();
    let pages = input.pages.len();
    let row = |stage: &str, items: usize, item_name, seconds| BenchRow {
        input: input.name.clone(),
        stage: stage.into(),
        pages,
        items,
        item_name,
        bytes,
        seconds,
    };
    let mut rows = Vec::new();

    let tokenize_all = || input.documents(&tokenizer);
    let docs = tokenize_all();
    let tokens: usize = docs.iter().map(|d| d.tokens.len()).sum();
    rows.push(row(
        "tokenize (auto)",
        tokens,
        "tokens",
        seconds_per_pass(min_seconds, tokenize_all),
    ));

    let shingle_all =
        || -> Vec<Vec<u64>> { docs.iter().map(|d| shingles(&d.tokens, WIDTH)).collect() };
    let sets = shingle_all();
    let windows: usize = docs
        .iter()
        .map(|d| d.tokens.len().max(WIDTH) - WIDTH + 1)
        .sum();
    rows.push(row(
        &format!("shingles (w={WIDTH})"),
        windows,
        "shingles",
        seconds_per_pass(min_seconds, shingle_all),
    ));

    let distinct: usize = sets.iter().map(Vec::len).sum();
    let family = PermutedHashes::new(HASHES, MINHASH_SEED);
    rows.push(row(
        &format!("minhash sketch (n={HASHES})"),
        distinct,
        "shingles",
        seconds_per_pass(min_seconds, || {
            sets.iter().map(|s| family.sketch(s)).collect::<Vec<_>>()
        }),
    ));
    let oph = OnePermutation::new(HASHES, ONE_PERMUTATION_SEED);
    rows.push(row(
        &format!("one-permutation sketch (n={HASHES})"),
        distinct,
        "shingles",
        seconds_per_pass(min_seconds, || {
            sets.iter().map(|s| oph.sketch(s)).collect::<Vec<_>>()
        }),
    ));

    let sketches: Vec<Vec<u32>> = sets.iter().map(|s| family.sketch(s)).collect();
    let refs: Vec<Option<&[u32]>> = sketches.iter().map(|s| Some(&s[..])).collect();
    let banding = Banding::for_threshold(0.5, HASHES, 0.5, 0.5);
    rows.push(row(
        &format!("lsh index+query ({}x{})", banding.bands, banding.rows),
        pages,
        "pages",
        seconds_per_pass(min_seconds, || banding.candidates(&refs)),
    ));

    let exact = ExactJaccard::new(WIDTH, 0.1, 1.0, SetScore::Jaccard);
    let signatures: Vec<Option<crate::text::shingle::ShingleSet>> =
        sets.iter().map(|s| Some(s.as_slice().into())).collect();
    rows.push(row(
        "exact jaccard index (J>=0.1)",
        distinct,
        "shingles",
        seconds_per_pass(min_seconds, || exact.candidates(&signatures)),
    ));
    rows
}

/// I-Match: document frequencies and lexicon over the input, then
/// signatures with K = 0 and K = 10 extra lexicons, on one thread.
pub fn bench_imatch(input: &BenchInput, min_seconds: f64) -> Vec<BenchRow> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a one-thread pool");
    pool.install(|| imatch_stages(input, min_seconds))
}

/// A stage over the pages' tokens, counted in tokens.
fn token_row(input: &BenchInput, docs: &[Document], stage: String, seconds: f64) -> BenchRow {
    BenchRow {
        input: input.name.clone(),
        stage,
        pages: docs.len(),
        items: docs.iter().map(|d| d.tokens.len()).sum(),
        item_name: "tokens",
        bytes: input.bytes(),
        seconds,
    }
}

fn imatch_stages(input: &BenchInput, min_seconds: f64) -> Vec<BenchRow> {
    let docs = input.documents(&TokenizerConfig::default());
    let row = |stage: String, seconds| token_row(input, &docs, stage, seconds);
    let band = IdfBand::Percentiles {
        low: 0.1,
        high: 1.0,
    };
    let mut rows = vec![row(
        "imatch lexicon (df, IDF band)".into(),
        seconds_per_pass(min_seconds, || {
            let mut m = IMatch::new(None, band, 2, true, 5, 0, 0.33);
            m.fit(&docs);
            m
        }),
    )];
    for extra in [0, 10] {
        let mut m = IMatch::new(None, band, 2, true, 5, extra, 0.33);
        m.fit(&docs);
        rows.push(row(
            format!("imatch signatures (K={extra})"),
            seconds_per_pass(min_seconds, || {
                docs.iter().filter_map(|d| m.sign(d)).count()
            }),
        ));
    }
    rows
}

/// SimHash: fingerprints per second on real pages (one core).
pub fn bench_simhash_signatures(input: &BenchInput, min_seconds: f64) -> Vec<BenchRow> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a one-thread pool");
    pool.install(|| {
        let tokenizer = TokenizerConfig::default();
        let docs = input.documents(&tokenizer);
        let row = |stage: String, seconds| token_row(input, &docs, stage, seconds);
        // The whole way from text: tokenising (jieba for Chinese) dominates.
        // Alone on its tokens, SimHash signs each page as it is cut (what
        // a run does then); beside other algorithms reading the same
        // tokens, they are made once into a vocabulary for all of them.
        let s = SimHash::new(Features::Words, 3, Weights::Tf, 64, 3, None, None);
        let from_text = row(
            format!("{} from text", s.label()),
            seconds_per_pass(min_seconds, || {
                input
                    .pages
                    .iter()
                    .filter_map(|(lang, text)| s.sign_text(text, *lang, &tokenizer))
                    .count()
            }),
        );
        let shared_tokens = row(
            format!("{} from text, tokens shared", s.label()),
            seconds_per_pass(min_seconds, || {
                input
                    .documents(&tokenizer)
                    .iter()
                    .filter_map(|d| s.sign(d))
                    .count()
            }),
        );
        let mut rows: Vec<BenchRow> = [
            (Features::Words, Weights::Tf, 64),
            (Features::Ngrams, Weights::Tf, 64),
            (Features::Words, Weights::TfIdf, 64),
            (Features::Words, Weights::Tf, 128),
        ]
        .into_iter()
        .map(|(features, weights, bits)| {
            let mut s = SimHash::new(features, 3, weights, bits, 3, None, None);
            s.fit(&docs);
            row(
                format!("simhash {}", s.label()),
                seconds_per_pass(min_seconds, || {
                    docs.iter().filter_map(|d| s.sign(d)).count()
                }),
            )
        })
        .collect();
        rows.push(from_text);
        rows.push(shared_tokens);
        if input.pages.iter().any(|(lang, _)| *lang == Lang::Zh) {
            // The segmenter alone on normalised text, against jieba-rs's
            // `cut` whose tokens it reproduces.
            let texts: Vec<String> = input
                .pages
                .iter()
                .map(|(_, t)| crate::text::normalize::normalize(t, &tokenizer.normalize))
                .collect();
            rows.push(row(
                "segment: jieba-rs cut (reference)".into(),
                seconds_per_pass(min_seconds, || {
                    let jieba = crate::text::tokenize::jieba();
                    texts
                        .iter()
                        .map(|t| jieba.cut(t, true).len())
                        .sum::<usize>()
                }),
            ));
            rows.push(row(
                "segment: text::segment (same tokens)".into(),
                seconds_per_pass(min_seconds, || {
                    let mut n = 0usize;
                    for t in &texts {
                        crate::text::segment::cut(t, |_, _| n += 1);
                    }
                    n
                }),
            ));
        }
        rows
    })
}

/// The semantic method: structure, tags, chunks, weights and topic
/// vectors (fit + sign), then scoring pairs, on one thread.
pub fn bench_semantic(input: &BenchInput, min_seconds: f64) -> Vec<BenchRow> {
    use crate::algo::semantic::Semantic;
    use crate::extract::structure::DocumentStructure;
    use crate::text::cilin::Cilin;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a one-thread pool");
    pool.install(|| {
        let mut docs = input.documents(&TokenizerConfig::default());
        for (d, (_, text)) in docs.iter_mut().zip(&input.pages) {
            let paragraphs = text.lines().map(str::to_string).collect();
            d.structure = Some(std::sync::Arc::new(DocumentStructure::new(
                None,
                Vec::new(),
                paragraphs,
            )));
        }
        let tokens: usize = docs.iter().map(|d| d.tokens.len()).sum();
        let row = |stage: &str, pages, seconds| BenchRow {
            input: input.name.clone(),
            stage: stage.into(),
            pages,
            items: tokens,
            item_name: "tokens",
            bytes: input.bytes(),
            seconds,
        };
        let analyse = || {
            let mut m = Semantic::new(Cilin::embedded());
            m.fit(&docs);
            let sigs: Vec<_> = docs.iter().filter_map(|d| m.sign(d)).collect();
            (m, sigs)
        };
        let seconds = seconds_per_pass(min_seconds, analyse);
        let (m, sigs) = analyse();
        // Scoring: each page against the next 10 (pairs/s shown as pages/s).
        let pairs = sigs.len() * 10;
        let n = sigs.len().max(1);
        let scoring = seconds_per_pass(min_seconds, || {
            (0..sigs.len())
                .flat_map(|i| (1..=10).map(move |k| (i, (i + k) % n)))
                .map(|(i, j)| m.score(&sigs[i], &sigs[j]))
                .sum::<f32>()
        });
        vec![
            row(
                "semantic: tags, chunks, weights, topics",
                docs.len(),
                seconds,
            ),
            row("semantic: scoring (pairs/s)", pairs, scoring),
        ]
    })
}

/// One layout's figures over `n` random fingerprints.
#[derive(Debug, Clone)]
pub struct IndexBench {
    pub layout: String,
    pub fingerprints: usize,
    pub tables: usize,
    pub build_seconds: f64,
    pub query_p50_us: f64,
    pub query_p99_us: f64,
    pub bytes_per_fingerprint: usize,
    /// Self-join at k=3 on all cores, when measured.
    pub self_join_seconds: Option<f64>,
}

/// Query latency of each layout (and of a brute-force scan) over `n`
/// random fingerprints with planted neighbours, and the k=3 self-join.
pub fn bench_simhash_index(
    n: usize,
    layouts: &[&str],
    queries: usize,
    self_join: bool,
) -> Vec<IndexBench> {
    let mut rng = crate::util::rng::SplitMix64::murmur(0x5eed_u64);
    let mut fps: Vec<u64> = (0..n).map(|_| rng.next_u64()).collect();
    // A tenth of the fingerprints get a neighbour 1..3 bits away.
    for i in (0..n).step_by(10) {
        let j = (rng.next_u64() % n as u64) as usize;
        fps[j] = fps[i] ^ (1 << (rng.next_u64() % 64)) ^ (1 << (rng.next_u64() % 64));
    }
    let probes: Vec<u64> = (0..queries)
        .map(|i| {
            if i % 2 == 0 {
                fps[(rng.next_u64() % n as u64) as usize] ^ 1
            } else {
                rng.next_u64()
            }
        })
        .collect();
    let percentiles = |mut micros: Vec<f64>| {
        micros.sort_by(f64::total_cmp);
        let at = |q: f64| micros[((micros.len() - 1) as f64 * q) as usize];
        (at(0.5), at(0.99))
    };
    let mut rows = Vec::new();
    for &name in layouts {
        let layout: Layout = name.parse().expect("benchmark layouts parse");
        let started = Instant::now();
        let permutations = layout.permutations();
        let ids: Vec<(u32, u64)> = fps
            .iter()
            .enumerate()
            .map(|(i, &f)| (i as u32, f))
            .collect();
        let tables = build_tables(&permutations, &ids);
        let build_seconds = started.elapsed().as_secs_f64();
        let micros: Vec<f64> = probes
            .iter()
            .map(|&q| {
                let t = Instant::now();
                black_box(query(
                    &permutations,
                    tables.iter().map(|t| (&t.permuted[..], &t.ids[..])),
                    q,
                    3,
                ));
                t.elapsed().as_secs_f64() * 1e6
            })
            .collect();
        let (p50, p99) = percentiles(micros);
        let self_join_seconds = self_join.then(|| {
            let t = Instant::now();
            black_box(simhash_self_join(&layout, &fps, 3));
            t.elapsed().as_secs_f64()
        });
        rows.push(IndexBench {
            layout: layout.to_string(),
            fingerprints: n,
            tables: permutations.len(),
            build_seconds,
            query_p50_us: p50,
            query_p99_us: p99,
            bytes_per_fingerprint: permutations.len()
                * crate::algo::simhash::tables::BYTES_PER_ENTRY,
            self_join_seconds,
        });
        drop(tables);
    }
    // The scan every layout must beat, on a sample of the queries.
    let micros: Vec<f64> = probes
        .iter()
        .take(queries.min(50))
        .map(|&q| {
            let t = Instant::now();
            black_box(fps.iter().filter(|&&f| (f ^ q).count_ones() <= 3).count());
            t.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    let (p50, p99) = percentiles(micros);
    rows.push(IndexBench {
        layout: "brute force".into(),
        fingerprints: n,
        tables: 0,
        build_seconds: 0.0,
        query_p50_us: p50,
        query_p99_us: p99,
        bytes_per_fingerprint: 8,
        self_join_seconds: None,
    });
    rows
}

pub fn render_index(rows: &[IndexBench]) -> String {
    let mut out = String::new();
    let mut n = 0;
    for r in rows {
        if r.fingerprints != n {
            n = r.fingerprints;
            let _ = writeln!(
                out,
                "\nsimhash index: {n} random 64-bit fingerprints, k = 3 (queries on one core; self-join on all)"
            );
            let _ = writeln!(
                out,
                "  {:<12} {:>7} {:>10} {:>12} {:>12} {:>10} {:>14}",
                "layout", "tables", "build s", "query p50", "query p99", "bytes/fp", "self-join s"
            );
        }
        let _ = writeln!(
            out,
            "  {:<12} {:>7} {:>10.2} {:>9.1} us {:>9.1} us {:>10} {:>14}",
            r.layout,
            r.tables,
            r.build_seconds,
            r.query_p50_us,
            r.query_p99_us,
            r.bytes_per_fingerprint,
            r.self_join_seconds
                .map(|s| format!("{s:.3}"))
                .unwrap_or_else(|| "-".into())
        );
    }
    out
}

/// The table `neardup bench` prints.
pub fn render(rows: &[BenchRow]) -> String {
    let mut out = String::new();
    let mut input = "";
    for r in rows {
        if r.input != input {
            input = &r.input;
            let _ = writeln!(
                out,
                "\n{input}: {} pages, {:.2} MB of text, one core",
                r.pages,
                r.bytes as f64 / 1e6
            );
            let _ = writeln!(
                out,
                "  {:<36} {:>12} {:>14} {:>10} {:>9}",
                "stage", "pages/s", "items/s", "items", "MB/s"
            );
        }
        let _ = writeln!(
            out,
            "  {:<36} {:>12.0} {:>14.0} {:>10} {:>9.2}",
            r.stage,
            r.pages_per_second(),
            r.items_per_second(),
            r.item_name,
            r.megabytes_per_second()
        );
    }
    out
}

/// The machine a figure belongs to: CPU model, logical cores and the
/// widest SIMD level the kernels use here, as a line under each table.
pub fn machine_line() -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, m)| m.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!("machine: {model}, {cores} logical cores, {}", simd_level())
}

fn simd_level() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512bw") {
            return "AVX-512 (BW)";
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            return "AVX2";
        }
        "SSE2"
    }
    #[cfg(target_arch = "aarch64")]
    {
        "NEON"
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        "no SIMD kernels"
    }
}
