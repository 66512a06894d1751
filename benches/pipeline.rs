//! Benchmarks of the pipeline's stages. Figures go in notes and reports,
//! never into assertions.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;

use neardup::algo::shingling::lsh::Banding;
use neardup::algo::shingling::minhash::{
    OnePermutation, PermutedHashes, MINHASH_SEED, ONE_PERMUTATION_SEED,
};
use neardup::algo::simhash::SimHash;
use neardup::algo::{Detector, Direction, Document, ScoreScale, ScoredPair};
use neardup::bench::BenchInput;
use neardup::corpus::{demo::demo_corpus, Content, Page};
use neardup::eval::{evaluate_at, Truth};
use neardup::extract::decode::decode_html;
use neardup::extract::{extract_html, page_text, Extraction};
use neardup::text::lang::detect_lang;
use neardup::text::shingle::{intersection_size, shingles};
use neardup::text::{tokenize, TokenizerConfig};
use neardup::util::rng::SplitMix64;

/// 200,000 pages in clusters of 1 to 5, and 1,000,000 scored pairs: half
/// inside true clusters, half between random pages.
fn synthetic(pages: usize, pairs: usize) -> (Truth, Vec<ScoredPair>) {
    let (truth, pairs, _) = synthetic_corpus(pages, pairs);
    (truth, pairs)
}

fn synthetic_corpus(pages: usize, pairs: usize) -> (Truth, Vec<ScoredPair>, Vec<Page>) {
    let mut rng = SplitMix64::new(0x9e37_79b9_7f4a_7c15);
    let mut corpus = Vec::with_capacity(pages);
    let mut cluster = 0;
    while corpus.len() < pages {
        let size = 1 + (rng.next_u64() % 5) as usize;
        for k in 0..size.min(pages - corpus.len()) {
            corpus.push(Page {
                id: format!("p{}", corpus.len()),
                cluster: format!("c{cluster}"),
                content: Content::Text(String::new()),
                title: None,
                url: None,
                published: None,
                category: Some(["news", "prose"][(rng.next_u64() % 2) as usize].into()),
                kind: Some(
                    if k == 0 {
                        "original"
                    } else {
                        ["full", "partial"][(rng.next_u64() % 2) as usize]
                    }
                    .into(),
                ),
                lang: None,
                op: None,
            });
        }
        cluster += 1;
    }
    let lens: Vec<usize> = (0..pages)
        .map(|_| 100 + (rng.next_u64() % 1000) as usize)
        .collect();
    let truth = Truth::new(&corpus, &lens);
    let mut scored = Vec::with_capacity(pairs);
    while scored.len() < pairs {
        let a = (rng.next_u64() % pages as u64) as u32;
        let b = if scored.len() % 2 == 0 {
            (a + 1).min(pages as u32 - 1)
        } else {
            (rng.next_u64() % pages as u64) as u32
        };
        if a != b {
            scored.push(ScoredPair {
                a: a.min(b),
                b: a.max(b),
                score: (rng.next_u64() % 17) as f32,
            });
        }
    }
    scored.sort_unstable_by_key(|p| (p.a, p.b));
    scored.dedup_by_key(|p| (p.a, p.b));
    (truth, scored, corpus)
}

/// The workbench's key loop over 1M scored pairs: a threshold move
/// (re-evaluation at three levels) and a full 200x50 redraw of the tuning
/// screen, as one key press costs.
fn bench_tui_threshold_move(c: &mut Criterion) {
    use neardup::algo::AlgorithmRun;
    use neardup::corpus::Corpus;
    use neardup::experiment::{AlgorithmResult, ExperimentConfig, ExperimentResult};
    use neardup::tui::action::Action;
    use neardup::tui::app::App;
    use neardup::tui::workbench::{Source, Workbench};
    use ratatui::{backend::TestBackend, Terminal};

    let (truth, pairs, pages) = synthetic_corpus(200_000, 1_000_000);
    let scale = hamming_scale();
    let evaluation = evaluate_at(&truth, &pairs, &scale, 3.0);
    let run = AlgorithmRun::of_pairs("simhash", "simhash(synthetic)".into(), scale, pairs);
    let result = ExperimentResult {
        name: "synthetic".into(),
        corpus_source: "synthetic".into(),
        pages: pages.len(),
        input_bytes: 0,
        skipped_empty: 0,
        empty_after_extraction: Vec::new(),
        boilerplate: Vec::new(),
        algorithms: vec![AlgorithmResult {
            entry: 0,
            end_to_end: Default::default(),
            extraction: Extraction::Main,
            run: std::sync::Arc::new(run),
            threshold: 3.0,
            clustering: Default::default(),
            evaluations: vec![evaluation],
            candidates: Default::default(),
            candidate_stage: Default::default(),
            unsigned_by_slice: Vec::new(),
            fitted: None,
            curves: Default::default(),
        }],
        truth,
        throughput: Vec::new(),
        wall_seconds: 0.0,
        cpu_seconds: 0.0,
        peak_memory_bytes: None,
        extract_cache: Vec::new(),
    };
    let config = ExperimentConfig::parse(
        std::path::Path::new("synthetic.yaml"),
        "corpus: demo\nalgorithms: [{type: simhash}]\n",
    )
    .expect("a valid experiment");
    let corpus = Corpus {
        source: "synthetic".into(),
        pages,
        skipped_empty: 0,
        unlabelled: 0,
    };
    let bench = Workbench::new(Source::Demo, config, std::sync::Arc::new(corpus), result);
    let mut app = App::with_workbench(bench);
    let mut terminal = Terminal::new(TestBackend::new(200, 50)).expect("a test terminal");
    let mut group = c.benchmark_group("tui");
    group.sample_size(20);
    let mut up = true;
    group.bench_function(
        "threshold move + redraw, 1M pairs, 200k pages, 200x50",
        |b| {
            b.iter(|| {
                app.update(Action::Nudge(if up { 1 } else { -1 }));
                up = !up;
                terminal
                    .draw(|f| neardup::tui::ui::render(&app, f))
                    .expect("draws");
            })
        },
    );
    group.finish();
}

/// SimHash's 64-bit scale with pairs kept up to distance 16.
fn hamming_scale() -> ScoreScale {
    ScoreScale {
        name: "hamming distance",
        direction: Direction::AtMost,
        min: 0.0,
        max: 64.0,
        floor: 16.0,
    }
}

/// A threshold move as the workbench makes it at scale: a lookup in the
/// curve of 20M stored pairs over 1M pages, each page paired with its ten
/// neighbours (often of its cluster) and ten random pages; scored as
/// SimHash distances 0..=16 (a state per distance) and as similarities
/// with millions of distinct values (the per-pair path). The one-off
/// build of each curve is timed and printed.
fn bench_threshold_lookup(c: &mut Criterion) {
    use neardup::eval::curve::ThresholdCurve;
    let pages = 1_000_000usize;
    let (truth, _, _) = synthetic_corpus(pages, 0);
    let mut rng = SplitMix64::new(0x2545_f491_4f6c_dd1d);
    let mut pairs = Vec::with_capacity(20 * pages);
    for a in 0..pages as u32 {
        let near = (1..=10).map(|j| a + j).filter(|&b| (b as usize) < pages);
        let far: Vec<u32> = (0..10)
            .map(|_| (rng.next_u64() % pages as u64) as u32)
            .collect();
        for b in near.chain(far).filter(|&b| b != a) {
            pairs.push(ScoredPair {
                a: a.min(b),
                b: a.max(b),
                score: 0.0,
            });
        }
    }
    pairs.sort_unstable_by_key(|p| (p.a, p.b));
    pairs.dedup_by_key(|p| (p.a, p.b));
    let similarity = ScoreScale {
        name: "jaccard",
        direction: Direction::AtLeast,
        min: 0.0,
        max: 1.0,
        floor: 0.0,
    };
    let mut group = c.benchmark_group("tui");
    group.sample_size(20);
    for (name, scale) in [("distances", hamming_scale()), ("similarities", similarity)] {
        for p in pairs.iter_mut() {
            let r = rng.next_u64();
            p.score = match scale.direction {
                Direction::AtMost => (r % 17) as f32,
                Direction::AtLeast => (r % 10_000_000) as f32 / 1e7,
            };
        }
        let started = std::time::Instant::now();
        let curve = ThresholdCurve::new(&truth, &pairs, &[], &[], &[], &scale);
        eprintln!(
            "threshold curve over {} pairs ({name}), {pages} pages: built in {:.2} s, {} MB",
            pairs.len(),
            started.elapsed().as_secs_f64(),
            curve.memory_bytes() >> 20
        );
        let (lo, hi) = (scale.min, scale.max.min(16.0));
        let mut step = 0u64;
        group.bench_function(
            format!("threshold move (lookup), 20M pairs ({name}), 1M pages"),
            |b| {
                b.iter(|| {
                    step = (step + 7) % 100;
                    black_box(curve.at(lo + (hi - lo) * step as f64 / 100.0))
                })
            },
        );
    }
    group.finish();
}

fn bench_evaluate_at(c: &mut Criterion) {
    let (truth, pairs) = synthetic(200_000, 1_000_000);
    let scale = hamming_scale();
    let mut group = c.benchmark_group("evaluate_at");
    group.throughput(Throughput::Elements(pairs.len() as u64));
    for threshold in [3.0, 16.0] {
        group.bench_with_input(
            BenchmarkId::new("1M pairs, 200k pages, k<=", threshold),
            &threshold,
            |b, &t| b.iter(|| black_box(evaluate_at(&truth, &pairs, &scale, t))),
        );
    }
    group.finish();
}

fn demo_documents() -> (Vec<Document>, usize) {
    let corpus = demo_corpus().expect("the demo corpus reads");
    let bytes = corpus.content_bytes();
    let docs = corpus
        .pages
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let text = page_text(p, Extraction::FullText).text;
            Document::new(i as u32, &text, p.lang, &TokenizerConfig::default())
        })
        .collect();
    (docs, bytes)
}

fn bench_stages(c: &mut Criterion) {
    let corpus = demo_corpus().expect("the demo corpus reads");
    let bytes = corpus.content_bytes() as u64;
    let mut group = c.benchmark_group("demo corpus (196 pages)");
    group.throughput(Throughput::Bytes(bytes));
    group.bench_function("extract full_text", |b| {
        b.iter(|| {
            corpus
                .pages
                .iter()
                .map(|p| page_text(p, Extraction::FullText).text.len())
                .sum::<usize>()
        })
    });
    let texts: Vec<(String, _)> = corpus
        .pages
        .iter()
        .map(|p| {
            let t = page_text(p, Extraction::FullText).text;
            let lang = detect_lang(&t);
            (t, lang)
        })
        .collect();
    group.bench_function("tokenize", |b| {
        b.iter(|| {
            texts
                .iter()
                .map(|(t, l)| tokenize(t, *l, &TokenizerConfig::default()).len())
                .sum::<usize>()
        })
    });
    let (docs, _) = demo_documents();
    let simhash = SimHash::default();
    group.bench_function("simhash signatures", |b| {
        b.iter(|| {
            docs.iter()
                .filter_map(|d| simhash.sign(d))
                .fold(0u128, |a, f| a ^ f)
        })
    });
    group.finish();
}

/// The 181 real pages of the article-extraction benchmark, when
/// `../shared/corpora` is beside the checkout.
fn article_benchmark_pages() -> Vec<Vec<u8>> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpora/article_extraction_benchmark/html");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!(
            "{} is not here: skipping the extraction benchmark",
            dir.display()
        );
        return Vec::new();
    };
    let mut paths: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    paths
        .iter()
        .map(|p| {
            let mut out = Vec::new();
            let bytes = std::fs::read(p).expect("readable page");
            std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&bytes[..]), &mut out)
                .expect("gzip page");
            out
        })
        .collect()
}

fn bench_decode_extract(c: &mut Criterion) {
    let pages = article_benchmark_pages();
    if pages.is_empty() {
        return;
    }
    let bytes: usize = pages.iter().map(Vec::len).sum();
    let mut group = c.benchmark_group(format!(
        "article benchmark ({} pages, {:.1} MB)",
        pages.len(),
        bytes as f64 / 1e6
    ));
    group.sample_size(10);
    group.throughput(Throughput::Bytes(bytes as u64));
    for extraction in [Extraction::Main, Extraction::FullText] {
        group.bench_function(format!("decode+extract {}", extraction.name()), |b| {
            b.iter(|| {
                pages
                    .iter()
                    .map(|p| extract_html(&decode_html(p).text, extraction).text().len())
                    .sum::<usize>()
            })
        });
    }
    group.finish();
}

/// People's Daily in 600-character pages when `../shared/corpora` is
/// beside the checkout, else the demo corpus.
fn chinese_pages() -> BenchInput {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpora/peoples_daily_1998_01/articles.jsonl.gz");
    BenchInput::cut_into_pages(&path, 600).unwrap_or_else(|e| {
        eprintln!("{e}: benchmarking shingling on the demo corpus instead");
        let (docs, _) = demo_documents();
        BenchInput {
            name: "demo".into(),
            pages: docs
                .iter()
                .map(|d| (d.lang, d.normalized_text().into_owned()))
                .collect(),
        }
    })
}

fn bench_shingling(c: &mut Criterion) {
    let input = chinese_pages();
    let docs = input.documents(&TokenizerConfig::default());
    let sets: Vec<Vec<u64>> = docs.iter().map(|d| shingles(&d.tokens, 3)).collect();
    let family = PermutedHashes::new(128, MINHASH_SEED);
    let oph = OnePermutation::new(128, ONE_PERMUTATION_SEED);
    let sketches: Vec<Vec<u32>> = sets.iter().map(|s| family.sketch(s)).collect();
    let refs: Vec<Option<&[u32]>> = sketches.iter().map(|s| Some(&s[..])).collect();
    let banding = Banding::for_threshold(0.5, 128, 0.5, 0.5);

    let mut group = c.benchmark_group(format!("shingling ({} pages)", docs.len()));
    group.sample_size(10);
    group.throughput(Throughput::Elements(docs.len() as u64));
    group.bench_function("shingles w=3", |b| {
        b.iter(|| {
            docs.iter()
                .map(|d| shingles(&d.tokens, 3).len())
                .sum::<usize>()
        })
    });
    group.bench_function("minhash n=128", |b| {
        b.iter(|| sets.iter().map(|s| family.sketch(s)[0]).fold(0, u32::max))
    });
    group.bench_function("one-permutation n=128", |b| {
        b.iter(|| sets.iter().map(|s| oph.sketch(s)[0]).fold(0, u32::max))
    });
    let simhash = SimHash::default();
    group.bench_function("simhash words tf (tokens given)", |b| {
        b.iter(|| docs.iter().filter_map(|d| simhash.sign(d)).count())
    });
    group.bench_function(
        format!("lsh {}x{} candidates", banding.bands, banding.rows),
        |b| b.iter(|| banding.candidates(&refs).len()),
    );
    // Exact verification's merge, once a page: with the next page (little
    // shared) and with a copy missing every fifth shingle (a near-duplicate,
    // J 0.8).
    let copies: Vec<Vec<u64>> = sets
        .iter()
        .map(|s| {
            s.iter()
                .copied()
                .step_by(5)
                .collect::<std::collections::HashSet<u64>>()
        })
        .zip(&sets)
        .map(|(dropped, s)| s.iter().copied().filter(|h| !dropped.contains(h)).collect())
        .collect();
    group.bench_function("exact intersection, next page", |b| {
        b.iter(|| {
            sets.windows(2)
                .map(|w| intersection_size(black_box(&w[0]), black_box(&w[1])))
                .sum::<usize>()
        })
    });
    group.bench_function("exact intersection, near copy", |b| {
        b.iter(|| {
            sets.iter()
                .zip(&copies)
                .map(|(a, b)| intersection_size(black_box(a), black_box(b)))
                .sum::<usize>()
        })
    });
    group.finish();
}

criterion_group!(
    benches,
    bench_evaluate_at,
    bench_tui_threshold_move,
    bench_threshold_lookup,
    bench_stages,
    bench_decode_extract,
    bench_shingling
);
criterion_main!(benches);
