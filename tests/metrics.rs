//! The metrics against values computed by hand (the example is worked out
//! in the comments).

use neardup::algo::{Direction, ScoreScale, ScoredPair};
use neardup::corpus::{Content, Page, Published};
use neardup::eval::{candidate_recall, evaluate_at, Counts, Truth};

fn page(id: &str, cluster: &str, kind: &str, published: i64) -> Page {
    Page {
        id: id.into(),
        cluster: cluster.into(),
        content: Content::Text("0123456789".into()),
        title: None,
        url: None,
        published: Some(Published::Int(published)),
        category: Some("news".into()),
        kind: Some(kind.into()),
        lang: None,
        op: None,
    }
}

/// Pages 0-2 form cluster A, 3-4 cluster B, 5 and 6 are unique.
/// Slices in pair order: news/original, news/full, news/partial, news/unique.
/// True pairs: (0,1) full, (0,2) partial, (1,2) partial, (3,4) full.
/// Retention order: a0, b0, c0, d0 (published 1), a1, b1 (2), a2 (3).
fn example() -> (Truth, Vec<ScoredPair>, ScoreScale) {
    let pages = vec![
        page("a0", "A", "original", 1),
        page("a1", "A", "full", 2),
        page("a2", "A", "partial", 3),
        page("b0", "B", "original", 1),
        page("b1", "B", "full", 2),
        page("c0", "C", "unique", 1),
        page("d0", "D", "unique", 1),
    ];
    let truth = Truth::new(&pages, &[10; 7]);
    let pair = |a, b, score| ScoredPair { a, b, score };
    let pairs = vec![
        pair(0, 1, 1.0),
        pair(0, 3, 10.0),
        pair(1, 2, 3.0),
        pair(3, 4, 5.0),
        pair(4, 5, 2.0),
        pair(5, 6, 0.0),
    ];
    let scale = ScoreScale {
        name: "distance",
        direction: Direction::AtMost,
        min: 0.0,
        max: 16.0,
        floor: 16.0,
    };
    (truth, pairs, scale)
}

fn c(actual: u64, detected: u64, correct: u64) -> Counts {
    Counts {
        actual,
        detected,
        correct,
    }
}

#[test]
fn truth_counts_pairs_and_pages_per_slice() {
    let (truth, _, _) = example();
    assert_eq!(
        truth.slice_names,
        ["news/original", "news/full", "news/partial", "news/unique"]
    );
    assert_eq!(truth.actual_pairs, [0, 2, 2, 0]);
    assert_eq!(truth.true_pairs(), 4);
    // A keeps a0 (a1 full, a2 partial are duplicates); B keeps b0.
    assert_eq!(truth.actual_pages, [0, 2, 1, 0]);
}

#[test]
fn pairwise_metrics() {
    let (truth, pairs, scale) = example();
    // At k <= 3: (0,1) TP full, (1,2) TP partial, (4,5) and (5,6) FP unique.
    let e = evaluate_at(&truth, &pairs, &scale, 3.0);
    assert_eq!(
        e.pairwise.slices,
        [c(0, 0, 0), c(2, 1, 1), c(2, 1, 1), c(0, 2, 0)]
    );
    assert_eq!(e.pairwise.overall, c(4, 4, 2));
    assert_eq!(e.pairwise.overall.precision(), 0.5);
    assert_eq!(e.pairwise.overall.recall(), 0.5);
    assert_eq!(e.pairwise.overall.f1(), 0.5);
}

#[test]
fn clustered_metrics_over_the_transitive_closure() {
    let (truth, pairs, scale) = example();
    // Components {0,1,2}: 3 closure pairs, all in A (full 1, partial 2);
    // {4,5,6}: 3 pairs, all false, all counted under unique.
    let e = evaluate_at(&truth, &pairs, &scale, 3.0);
    assert_eq!(
        e.clustered.slices,
        [c(0, 0, 0), c(2, 1, 1), c(2, 2, 2), c(0, 3, 0)]
    );
    assert_eq!(e.clustered.overall, c(4, 6, 3));
    assert!((e.clustered.overall.f1() - 0.6).abs() < 1e-12);
}

#[test]
fn page_level_metrics_with_the_retention_rule() {
    let (truth, pairs, scale) = example();
    // {0,1,2} keeps a0: a1 (full) and a2 (partial) detected, both correct.
    // {4,5,6} keeps c0 (rank 2, before d0 and b1): b1 (full) and d0
    // (unique) detected, neither shares c0's cluster.
    let e = evaluate_at(&truth, &pairs, &scale, 3.0);
    assert_eq!(
        e.page.slices,
        [c(0, 0, 0), c(2, 2, 1), c(1, 1, 1), c(0, 1, 0)]
    );
    assert_eq!(e.page.overall, c(3, 4, 2));
    assert!((e.page.overall.recall() - 2.0 / 3.0).abs() < 1e-12);
}

#[test]
fn largest_cluster_shows_chaining() {
    let (truth, pairs, scale) = example();
    // At k <= 5, (3,4) joins B to the false group {4,5,6}.
    let e = evaluate_at(&truth, &pairs, &scale, 5.0);
    assert_eq!(
        (e.largest_cluster.pages, e.largest_cluster.true_clusters),
        (4, 3)
    );
    // At k <= 10 everything but nothing else chains into one cluster.
    let e = evaluate_at(&truth, &pairs, &scale, 10.0);
    assert_eq!(
        (e.largest_cluster.pages, e.largest_cluster.true_clusters),
        (7, 4)
    );
    assert_eq!(e.pairwise.overall, c(4, 6, 3));
    assert_eq!(e.clustered.overall, c(4, 21, 4));
}

#[test]
fn nothing_judged_gives_undefined_precision_and_zero_recall() {
    let (truth, pairs, scale) = example();
    let e = evaluate_at(&truth, &pairs[..0], &scale, 3.0);
    assert_eq!(e.pairwise.overall, c(4, 0, 0));
    assert!(e.pairwise.overall.precision().is_nan());
    assert_eq!(e.pairwise.overall.recall(), 0.0);
    assert!(e.pairwise.overall.f1().is_nan());
    assert_eq!(e.largest_cluster.pages, 0);
}

#[test]
fn similarity_scores_pass_at_or_above_the_threshold() {
    let (truth, mut pairs, _) = example();
    for p in &mut pairs {
        p.score = 1.0 - p.score / 16.0;
    }
    let scale = ScoreScale {
        name: "similarity",
        direction: Direction::AtLeast,
        min: 0.0,
        max: 1.0,
        floor: 0.0,
    };
    // 1 - 3/16 is the k <= 3 cut in similarity terms.
    let e = evaluate_at(&truth, &pairs, &scale, 1.0 - 3.0 / 16.0);
    assert_eq!(e.pairwise.overall, c(4, 4, 2));
}

#[test]
fn candidate_recall_counts_true_pairs_stored_at_all() {
    let (truth, pairs, _) = example();
    assert_eq!(candidate_recall(&truth, &pairs), c(4, 6, 3));
}

#[test]
fn huge_clusters_are_counted_not_enumerated() {
    let pages: Vec<Page> = (0..10_000)
        .map(|i| {
            page(
                &format!("p{i}"),
                "big",
                if i == 0 { "original" } else { "full" },
                i,
            )
        })
        .collect();
    let truth = Truth::new(&pages, &vec![10; pages.len()]);
    assert_eq!(truth.true_pairs(), 10_000 * 9_999 / 2);
    assert_eq!(truth.actual_pages.iter().sum::<u64>(), 9_999);
}
