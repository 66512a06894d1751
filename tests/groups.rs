//! Groups of identical pages stay groups: their pairs are counted, never
//! stored one by one, and every count equals what listing the pairs gives.

use neardup::algo::exact::ExactHash;
use neardup::algo::shingling::lsh::Banding;
use neardup::algo::shingling::{
    CandidateSearch, ExactJaccard, MinHash, SetScore, Sketching, Verify,
};
use neardup::algo::simhash::{Features, SimHash, Weights};
use neardup::algo::{
    Algorithm, AlgorithmRun, Detector, Document, GateScores, ScoreScale, ScoredPair,
};
use neardup::corpus::{Content, Page};
use neardup::eval::{evaluate_at, evaluate_grouped, grouped_pair_recall, pair_recall, Truth};
use neardup::text::TokenizerConfig;
use neardup::util::stage::StageClock;

const WORDS: &[&str] = &[
    "council",
    "roads",
    "transport",
    "schools",
    "hospitals",
    "markets",
    "prices",
    "growth",
    "river",
    "bridge",
    "weather",
    "storm",
    "election",
    "court",
    "budget",
    "science",
    "museum",
    "festival",
    "harbour",
    "railway",
    "library",
    "farmers",
    "engineers",
    "report",
    "figures",
    "policy",
    "plan",
    "city",
    "village",
    "region",
    "north",
    "south",
    "winter",
    "summer",
];

/// Deterministic words: a linear congruential generator.
fn words(seed: u64, n: usize) -> String {
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            WORDS[(x >> 33) as usize % WORDS.len()]
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn page(id: String, cluster: &str, kind: &str, text: String) -> Page {
    Page {
        id,
        cluster: cluster.into(),
        content: Content::Text(text),
        title: None,
        url: None,
        published: None,
        category: Some("news".into()),
        kind: Some(kind.into()),
        lang: None,
        op: None,
    }
}

/// `copies` identical pages labelled in two true clusters and two slices
/// (so the group holds false pairs too), unique pages, a near-duplicate
/// pair, and one page labelled a copy of the mirror that is not.
fn corpus(copies: usize, unique: usize) -> Vec<Page> {
    let mirrored = words(1, 80);
    let mut pages: Vec<Page> = (0..copies)
        .map(|i| {
            let cluster = if i % 3 == 0 { "n" } else { "m" };
            let kind = if i % 2 == 0 { "original" } else { "full" };
            page(format!("m{i}"), cluster, kind, mirrored.clone())
        })
        .collect();
    for i in 0..unique {
        pages.push(page(
            format!("u{i}"),
            &format!("u{i}"),
            "unique",
            words(100 + i as u64, 80),
        ));
    }
    let near = words(7, 80);
    pages.push(page("p0".into(), "p", "original", near.clone()));
    pages.push(page("p1".into(), "p", "partial", format!("{near} extra")));
    pages.push(page("x".into(), "m", "partial", words(9, 80)));
    pages
}

fn documents(pages: &[Page]) -> Vec<Document> {
    let tokenizer = TokenizerConfig::default();
    pages
        .iter()
        .enumerate()
        .map(|(i, p)| match &p.content {
            Content::Text(t) => Document::new(i as u32, t, None, &tokenizer),
            _ => unreachable!(),
        })
        .collect()
}

fn truth(pages: &[Page]) -> Truth {
    Truth::new(pages, &vec![100; pages.len()])
}

/// A detector with its grouping turned off: every pair listed, as before.
struct Ungrouped<D>(D);

impl<D: Detector> Detector for Ungrouped<D> {
    type Signature = D::Signature;
    fn name(&self) -> &'static str {
        self.0.name()
    }
    fn label(&self) -> String {
        self.0.label()
    }
    fn scale(&self) -> ScoreScale {
        self.0.scale()
    }
    fn fit(&mut self, docs: &[Document]) -> bool {
        self.0.fit(docs)
    }
    fn sign(&self, doc: &Document) -> Option<Self::Signature> {
        self.0.sign(doc)
    }
    fn candidates(&self, signatures: &[Option<Self::Signature>]) -> Vec<(u32, u32)> {
        self.0.candidates(signatures)
    }
    fn score(&self, a: &Self::Signature, b: &Self::Signature) -> f32 {
        self.0.score(a, b)
    }
    fn scored_candidates(
        &self,
        signatures: &[Option<Self::Signature>],
    ) -> Option<Vec<(u32, u32, f32)>> {
        self.0.scored_candidates(signatures)
    }
    fn gate_scores(&self, a: &Self::Signature, b: &Self::Signature) -> GateScores {
        self.0.gate_scores(a, b)
    }
}

/// Every stored pair listed: the pairs, and each stored group's pairs.
fn listed(run: &AlgorithmRun) -> Vec<ScoredPair> {
    let mut pairs = run.pairs.clone();
    for g in run.stored_groups() {
        for (k, &a) in g.pages.iter().enumerate() {
            for &b in &g.pages[k + 1..] {
                pairs.push(ScoredPair {
                    a,
                    b,
                    score: g.score,
                });
            }
        }
    }
    pairs.sort_by_key(|p| (p.a, p.b));
    pairs
}

fn run<D: Detector>(detector: D, docs: &[Document], budget: usize) -> AlgorithmRun {
    let mut detector = detector;
    detector.run_within(docs, "test", &mut StageClock::new(docs.len(), 1), budget)
}

const BUDGET: usize = 1 << 30;

/// The grouped run stores what the ungrouped one stores, and counts at
/// every threshold what listing the pairs gives.
fn check<D: Detector + Clone>(detector: D, pages: &[Page], thresholds: &[f64]) -> AlgorithmRun {
    let docs = documents(pages);
    let truth = truth(pages);
    let grouped = run(detector.clone(), &docs, BUDGET);
    let plain = run(Ungrouped(detector), &docs, BUDGET);
    assert!(plain.groups.is_empty());
    let label = &grouped.label;
    assert_eq!(listed(&grouped), plain.pairs, "{label}");
    assert_eq!(grouped.candidates, plain.candidates, "{label}");
    assert_eq!(
        grouped_pair_recall(
            &truth,
            grouped.candidate_pairs.iter().copied(),
            &grouped.groups
        ),
        pair_recall(&truth, plain.candidate_pairs.iter().copied()),
        "{label}"
    );
    for &t in thresholds {
        assert_eq!(
            evaluate_grouped(
                &truth,
                &grouped.pairs,
                &grouped.groups,
                &[],
                &grouped.scale,
                t
            ),
            evaluate_at(&truth, &plain.pairs, &plain.scale, t),
            "{label} at {t}"
        );
    }
    grouped
}

#[test]
fn identical_pages_are_one_group_not_millions_of_pairs() {
    let pages = corpus(3_000, 40);
    let run = check(ExactHash, &pages, &[1.0]);
    assert!(run.pairs.is_empty(), "{} pairs listed", run.pairs.len());
    assert_eq!(run.groups.len(), 1);
    assert_eq!(run.groups[0].pages.len(), 3_000);
    assert_eq!(run.stored_pairs(), 3_000 * 2_999 / 2);
    // Two true clusters in the group: 1,000 and 2,000 pages.
    let truth = truth(&pages);
    let e = evaluate_grouped(&truth, &[], &run.groups, &[], &run.scale, 1.0);
    let pairs = |n: u64| n * (n - 1) / 2;
    assert_eq!(e.pairwise.overall.detected, pairs(3_000));
    assert_eq!(e.pairwise.overall.correct, pairs(1_000) + pairs(2_000));
}

#[test]
fn scored_detectors_group_and_count_like_the_listed_pairs() {
    let pages = corpus(400, 30);
    check(
        // Every shingle counted: the document-frequency cap counts
        // distinct sets, which only the grouped run knows.
        ExactJaccard::new(3, 0.1, 1.0, SetScore::Jaccard),
        &pages,
        &[0.1, 0.5, 0.9, 1.0],
    );
    check(
        SimHash::new(Features::Words, 2, Weights::Tf, 64, 16, None, None),
        &pages,
        &[0.0, 3.0, 8.0, 16.0],
    );
    let lsh = CandidateSearch::Bands {
        banding: Banding {
            bands: 16,
            rows: 4,
            min_shared: 1,
        },
        target: None,
        super_shingles: false,
    };
    for (sketching, verify) in [
        (Sketching::Minhash, Verify::Estimate),
        (Sketching::OnePermutation, Verify::Exact),
    ] {
        check(
            MinHash::new(3, 64, sketching, lsh, verify, 0.1),
            &pages,
            &[0.1, 0.5, 1.0],
        );
    }
}

#[test]
fn past_the_pair_budget_the_best_pairs_stay_and_the_floor_rises() {
    let pages = corpus(30, 60);
    let docs = documents(&pages);
    let simhash = SimHash::new(Features::Words, 2, Weights::Tf, 64, 40, None, None);
    let all = run(simhash.clone(), &docs, BUDGET);
    let budget = all.pairs.len() / 2 * std::mem::size_of::<ScoredPair>();
    let capped = run(simhash, &docs, budget);
    assert!(capped.pairs.len() <= all.pairs.len() / 2);
    assert!(!capped.pairs.is_empty());
    let floor = capped.scale.floor;
    assert!(floor < 40.0, "{floor}");
    let within: Vec<ScoredPair> = all
        .pairs
        .iter()
        .filter(|p| f64::from(p.score) <= floor)
        .copied()
        .collect();
    assert_eq!(capped.pairs, within);
    assert!(
        capped.notes.iter().any(|n| n.contains("pair budget")),
        "{:?}",
        capped.notes
    );
    // The group's pairs cost nothing: it stays whole.
    let groups = |run: &AlgorithmRun| -> Vec<(Vec<u32>, f32)> {
        run.groups
            .iter()
            .map(|g| (g.pages.clone(), g.score))
            .collect()
    };
    assert_eq!(groups(&capped), groups(&all));
    assert_eq!(capped.groups[0].pages.len(), 30);
}
