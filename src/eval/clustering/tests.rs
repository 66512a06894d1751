use super::*;
use crate::algo::GateScores;
use crate::corpus::{Content, Page};

fn pair(a: u32, b: u32, score: f32) -> ScoredPair {
    ScoredPair { a, b, score }
}

const SIMILARITY: ScoreScale = ScoreScale {
    name: "jaccard",
    direction: Direction::AtLeast,
    min: 0.0,
    max: 1.0,
    floor: 0.0,
};

/// Clusters of pairs that all pass (threshold 0.5, scores above it).
fn input<'a>(
    pages: usize,
    pairs: &'a [ScoredPair],
    groups: &'a [&'a PageGroup],
    scale: &'a ScoreScale,
) -> ClusterInput<'a> {
    ClusterInput {
        pages,
        pairs,
        groups,
        sampled: &[],
        scale,
        threshold: match scale.direction {
            Direction::AtLeast => 0.5,
            Direction::AtMost => scale.max,
        },
    }
}

fn clusters(pages: usize, pairs: &[ScoredPair], method: Clustering) -> Vec<u32> {
    cluster_pages(&input(pages, pairs, &[], &SIMILARITY), method, PIVOT_SEED)
}

/// Two stories of five pages: a clique of four with a fifth page hanging
/// on its first, and one false pair between the stories' third pages.
fn two_stories() -> Vec<ScoredPair> {
    let mut pairs = Vec::new();
    for base in [0u32, 5] {
        for i in 0..4 {
            for j in i + 1..4 {
                pairs.push(pair(base + i, base + j, 0.9));
            }
        }
        pairs.push(pair(base, base + 4, 0.8));
    }
    pairs.push(pair(3, 7, 0.95));
    pairs
}

#[test]
fn connected_components_chain_two_stories_and_star_and_pivot_do_not() {
    let pairs = two_stories();
    let connected = clusters(10, &pairs, Clustering::Connected);
    assert_eq!(connected, vec![0; 10], "one false pair joins the stories");
    // Star: pages 0, 3, 5 and 7 have four neighbours; 0 comes first and
    // takes its story, 3 with it, so 7 stays with its own.
    let star = clusters(10, &pairs, Clustering::Star);
    assert_eq!(star, vec![0, 0, 0, 0, 0, 5, 5, 5, 5, 5]);
    // Pivot, in any order: a pivot takes only its own neighbours, and the
    // stories share one pair, so no cluster holds two pages of each.
    for seed in [PIVOT_SEED, 1, 2, 3, 4, 5, 6, 7] {
        let pivot = cluster_pages(
            &input(10, &pairs, &[], &SIMILARITY),
            Clustering::Pivot,
            seed,
        );
        for label in 0..10 {
            let story = |s: u32| {
                (s * 5..s * 5 + 5)
                    .filter(|&p| pivot[p as usize] == label)
                    .count()
            };
            assert!(story(0) < 2 || story(1) < 2, "seed {seed}: {pivot:?}");
        }
    }
}

#[test]
fn center_takes_pages_paired_with_a_centre_and_merge_center_joins_centres() {
    // 0-1 first: 0 is the centre and 1 joins; 2-3: 2 is a centre; 1-2:
    // 1 (in 0's cluster) is paired with the centre 2.
    let pairs = [pair(1, 2, 0.7), pair(0, 1, 0.9), pair(2, 3, 0.8)];
    assert_eq!(clusters(4, &pairs, Clustering::Center), vec![0, 0, 2, 2]);
    assert_eq!(clusters(4, &pairs, Clustering::MergeCenter), vec![0; 4]);
    assert_eq!(clusters(4, &pairs, Clustering::Connected), vec![0; 4]);
    // A chain: 0-1 makes 0 a centre; 1-2 pairs two non-centres (skipped);
    // 2-3 makes 2 a centre; 3-4 is skipped again and 4 stays alone.
    let chain = [
        pair(0, 1, 0.9),
        pair(1, 2, 0.8),
        pair(2, 3, 0.7),
        pair(3, 4, 0.6),
    ];
    assert_eq!(clusters(5, &chain, Clustering::Center), vec![0, 0, 2, 2, 4]);
    assert_eq!(
        clusters(5, &chain, Clustering::MergeCenter),
        vec![0, 0, 2, 2, 4]
    );
}

#[test]
fn centre_methods_take_the_closest_pairs_first_on_a_distance() {
    // Hamming distances: 1-2 at 0 comes before 0-1 at 1, so 1 is the
    // centre and takes both.
    let pairs = [pair(0, 1, 1.0), pair(1, 2, 0.0)];
    let hamming = ScoreScale {
        name: "hamming distance",
        direction: Direction::AtMost,
        min: 0.0,
        max: 64.0,
        floor: 6.0,
    };
    let at_most = cluster_pages(&input(3, &pairs, &[], &hamming), Clustering::Center, 0);
    assert_eq!(at_most, vec![0, 0, 0]);
    // Read as similarities, 0-1 comes first and 2 is left out.
    assert_eq!(clusters(3, &pairs, Clustering::Center), vec![0, 0, 2]);
}

#[test]
fn star_starts_from_the_page_with_most_neighbours() {
    // 0 has three neighbours and takes 1, 2 and 3; 4 hangs on 3 and is left.
    let pairs = [
        pair(0, 1, 0.5),
        pair(0, 2, 0.5),
        pair(0, 3, 0.5),
        pair(3, 4, 0.9),
    ];
    assert_eq!(clusters(5, &pairs, Clustering::Star), vec![0, 0, 0, 0, 4]);
    // Centre would start from the closest pair, 3-4.
    assert_eq!(clusters(5, &pairs, Clustering::Center), vec![0, 0, 0, 3, 3]);
}

#[test]
fn a_group_is_one_node_whatever_its_size() {
    let group = PageGroup {
        pages: vec![2, 3, 4],
        score: 1.0,
        gate_scores: GateScores::default(),
    };
    // Page 0 is paired with one page of the group, page 1 with another:
    // the group is one node with two neighbours and takes both.
    let pairs = [pair(0, 2, 0.6), pair(1, 3, 0.6), pair(2, 4, 1.0)];
    for method in Clustering::ALL {
        let labels = cluster_pages(&input(6, &pairs, &[&group], &SIMILARITY), method, 9);
        assert!(
            labels[2] == labels[3] && labels[3] == labels[4],
            "{method}: {labels:?}"
        );
        assert_eq!(labels[5], 5, "{method}: a page in no pair is alone");
        let expected = match method {
            // 0-2 first: 0 is the centre and the group joins it; 1 is then
            // paired with the group, which is no centre.
            Clustering::Center | Clustering::MergeCenter => vec![0, 1, 0, 0, 0, 5],
            // The pivot's order decides whether 0 or 1 comes first.
            Clustering::Pivot => continue,
            Clustering::Connected | Clustering::Star => vec![0, 0, 0, 0, 0, 5],
            // 2-4 inside the group; 0 and 1 each link one node of three
            // pages at 0.6 (linkage 0.6 each); 0 joins first (lower), then
            // 1's linkage to the four pages is 0.6 * 3 / 4 = 0.45.
            Clustering::Average => vec![0, 1, 0, 0, 0, 5],
        };
        assert_eq!(labels, expected, "{method}");
    }
}

#[test]
fn answers_do_not_depend_on_the_order_of_the_pairs() {
    let pairs = two_stories();
    let mut reversed = pairs.clone();
    reversed.reverse();
    // Repeated pairs count once.
    reversed.extend_from_slice(&pairs[..3]);
    for method in Clustering::ALL {
        assert_eq!(
            clusters(10, &pairs, method),
            clusters(10, &reversed, method),
            "{method}"
        );
    }
}

#[test]
fn names_parse_and_print() {
    for method in Clustering::ALL {
        assert_eq!(method.name().parse::<Clustering>(), Ok(method));
        let yaml = serde_yaml::to_string(&method).unwrap();
        assert_eq!(yaml.trim(), method.name());
    }
    assert_eq!(Clustering::default(), Clustering::Connected);
    assert!("components".parse::<Clustering>().is_err());
}

fn truth(clusters: &[&str]) -> Truth {
    let pages: Vec<Page> = clusters
        .iter()
        .enumerate()
        .map(|(i, c)| Page::new(format!("p{i}"), c.to_string(), Content::Text("x".into())))
        .collect();
    Truth::new(&pages, &vec![1; pages.len()])
}

#[test]
fn star_scores_two_stories_better_than_connected_components() {
    let truth = truth(&["a", "a", "a", "a", "a", "b", "b", "b", "b", "b"]);
    let scale = ScoreScale {
        name: "jaccard",
        direction: Direction::AtLeast,
        min: 0.0,
        max: 1.0,
        floor: 0.3,
    };
    let pairs = two_stories();
    let f = |method| {
        evaluate_clustering(&truth, &pairs, &[], &[], &[], &scale, 0.5, method)
            .clustered
            .overall
            .f1()
    };
    // Connected: 45 pairs predicted, the 20 true ones among them.
    assert!((f(Clustering::Connected) - 2.0 * 20.0 / 65.0).abs() < 1e-12);
    assert_eq!(f(Clustering::Star), 1.0);
    // The pairwise level does not depend on the clustering.
    let pairwise =
        |method| evaluate_clustering(&truth, &pairs, &[], &[], &[], &scale, 0.5, method).pairwise;
    assert_eq!(pairwise(Clustering::Star), pairwise(Clustering::Connected));
}

#[test]
fn average_linkage_keeps_apart_two_stories_that_a_weaker_false_pair_joins() {
    let mut pairs = two_stories();
    // The false pair scores below the stories' own pairs, as it usually does.
    pairs.last_mut().unwrap().score = 0.6;
    assert_eq!(clusters(10, &pairs, Clustering::Connected), vec![0; 10]);
    // Each story is one cluster: 4 hangs on 0 alone, (0.8 + 3 * 0) / 4 is
    // below 0.5, and the stories' linkage is 0.6 / 16.
    let average = clusters(10, &pairs, Clustering::Average);
    assert_eq!(average, vec![0, 0, 0, 0, 4, 5, 5, 5, 5, 9]);
}

/// Average linkage the slow way: every cluster pair's mean over all its
/// page pairs, unstored pairs at the unrelated score, best first.
fn naive_average(pages: usize, pairs: &[ScoredPair], scale: &ScoreScale, t: f64) -> Vec<u32> {
    let lift = |s: f64| match scale.direction {
        Direction::AtLeast => s - scale.unrelated(),
        Direction::AtMost => scale.unrelated() - s,
    };
    let mut score = vec![vec![0.0f64; pages]; pages];
    for p in pairs {
        score[p.a as usize][p.b as usize] = lift(f64::from(p.score));
        score[p.b as usize][p.a as usize] = lift(f64::from(p.score));
    }
    let mut clusters: Vec<Vec<usize>> = (0..pages).map(|p| vec![p]).collect();
    loop {
        let mut best: Option<(f64, usize, usize)> = None;
        for i in 0..clusters.len() {
            for j in i + 1..clusters.len() {
                let sum: f64 = clusters[i]
                    .iter()
                    .flat_map(|&a| clusters[j].iter().map(move |&b| (a, b)))
                    .map(|(a, b)| score[a][b])
                    .sum();
                let linked = clusters[i]
                    .iter()
                    .any(|&a| clusters[j].iter().any(|&b| score[a][b] != 0.0));
                let mean = sum / (clusters[i].len() * clusters[j].len()) as f64;
                if linked && mean >= lift(t) && best.is_none_or(|(m, _, _)| mean > m) {
                    best = Some((mean, i, j));
                }
            }
        }
        let Some((_, i, j)) = best else { break };
        let moved = clusters.remove(j);
        clusters[i].extend(moved);
    }
    let mut labels = vec![0u32; pages];
    for c in &clusters {
        let least = *c.iter().min().unwrap() as u32;
        for &p in c {
            labels[p] = least;
        }
    }
    labels
}

#[test]
fn average_linkage_matches_the_slow_definition_on_random_graphs() {
    let hamming = ScoreScale {
        name: "hamming distance",
        direction: Direction::AtMost,
        min: 0.0,
        max: 64.0,
        floor: 12.0,
    };
    let mut rng = SplitMix64::new(7);
    for round in 0..200 {
        let pages = 4 + rng.below(12);
        let similarity = round < 100;
        let mut pairs = Vec::new();
        for a in 0..pages as u32 {
            for b in a + 1..pages as u32 {
                if rng.chance(1.0 / 3.0) {
                    // Distinct scores, so no ties decide the answer.
                    let u = (rng.next_u64() % 1_000_000) as f32 / 1_000_000.0;
                    let score = if similarity { 0.2 + 0.8 * u } else { 12.0 * u };
                    pairs.push(pair(a, b, score));
                }
            }
        }
        let (scale, threshold) = if similarity {
            (&SIMILARITY, 0.5)
        } else {
            (&hamming, 6.0)
        };
        let given = ClusterInput {
            pages,
            pairs: &pairs,
            groups: &[],
            sampled: &[],
            scale,
            threshold,
        };
        assert_eq!(
            cluster_pages(&given, Clustering::Average, 0),
            naive_average(pages, &pairs, scale, threshold),
            "round {round}: {pairs:?}"
        );
    }
}

#[test]
fn average_linkage_curve_in_one_pass_equals_each_threshold_alone() {
    let mut rng = SplitMix64::new(11);
    for round in 0..40 {
        let pages = 8 + rng.below(20);
        let labels: Vec<String> = (0..pages).map(|_| format!("c{}", rng.below(5))).collect();
        let names: Vec<&str> = labels.iter().map(String::as_str).collect();
        let truth = truth(&names);
        let mut pairs = Vec::new();
        for a in 0..pages as u32 {
            for b in a + 1..pages as u32 {
                if rng.chance(0.3) {
                    pairs.push(pair(a, b, 0.2 + 0.8 * rng.unit() as f32));
                }
            }
        }
        let mut run = AlgorithmRun::of_pairs(
            "jaccard",
            "jaccard".into(),
            ScoreScale {
                floor: 0.2,
                ..SIMILARITY
            },
            pairs.clone(),
        );
        run.groups = vec![PageGroup {
            pages: vec![0, pages as u32 - 1],
            score: 1.0,
            gate_scores: GateScores::default(),
        }];
        let thresholds = [0.2, 0.35, 0.5, 0.65, 0.8, 0.95];
        let curve = run_curve(&truth, &run, &[], Clustering::Average, &thresholds);
        for (e, &t) in curve.iter().zip(&thresholds) {
            let alone = evaluate_clustering(
                &truth,
                &pairs,
                &run.groups,
                &[],
                &[],
                &run.scale,
                t,
                Clustering::Average,
            );
            assert_eq!(e.clustered, alone.clustered, "round {round} at {t}");
            assert_eq!(e.page, alone.page, "round {round} at {t}");
        }
    }
}

/// A run over `pages` pages with tied scores, groups whose scores pass at
/// different thresholds, and (sometimes) a sampled component: what the
/// sweep's stages must follow.
fn random_run(rng: &mut SplitMix64, pages: usize, scale: ScoreScale) -> AlgorithmRun {
    let score = |rng: &mut SplitMix64| match scale.direction {
        // Few values, so that scores tie.
        Direction::AtLeast => (4 + rng.below(17)) as f32 / 20.0,
        Direction::AtMost => rng.below(13) as f32,
    };
    let mut run_groups = Vec::new();
    let mut grouped = vec![false; pages];
    let mut next = 0u32;
    while (next as usize) + 3 < pages / 2 && rng.chance(0.5) {
        let size = 2 + rng.below(3) as u32;
        let members: Vec<u32> = (next..next + size).collect();
        members[1..]
            .iter()
            .for_each(|&p| grouped[p as usize] = true);
        run_groups.push(PageGroup {
            pages: members,
            score: score(rng),
            gate_scores: GateScores::default(),
        });
        next += size;
    }
    let mut pairs = Vec::new();
    for a in 0..pages as u32 {
        for b in a + 1..pages as u32 {
            if !grouped[a as usize] && !grouped[b as usize] && rng.chance(0.3) {
                pairs.push(pair(a, b, score(rng)));
            }
        }
    }
    let mut run = AlgorithmRun::of_pairs("jaccard", "jaccard".into(), scale.clone(), pairs);
    run.groups = run_groups;
    if rng.chance(0.5) {
        let members: Vec<u32> = (pages as u32 / 2..pages as u32).collect();
        let sample = (0..4)
            .map(|_| {
                let a = members[rng.below(members.len() - 1)];
                pair(a, a + 1, score(rng))
            })
            .collect();
        run.sampled = vec![SampledComponent {
            pages: members,
            pairs: 40,
            sample,
        }];
    }
    run
}

#[test]
fn every_method_sweeps_its_curve_as_each_threshold_alone() {
    let hamming = ScoreScale {
        name: "hamming distance",
        direction: Direction::AtMost,
        min: 0.0,
        max: 16.0,
        floor: 12.0,
    };
    let similarity = ScoreScale {
        floor: 0.2,
        ..SIMILARITY
    };
    let mut rng = SplitMix64::new(56);
    for round in 0..120 {
        let pages = 6 + rng.below(30);
        let labels: Vec<String> = (0..pages).map(|_| format!("c{}", rng.below(6))).collect();
        let names: Vec<&str> = labels.iter().map(String::as_str).collect();
        let truth = truth(&names);
        let scale = if round % 2 == 0 {
            &similarity
        } else {
            &hamming
        };
        let run = random_run(&mut rng, pages, scale.clone());
        let mut thresholds = crate::eval::choose::reachable_thresholds(scale);
        // Out of order and repeated, as a grid may give them.
        thresholds.reverse();
        thresholds.push(thresholds[thresholds.len() / 2]);
        for method in Clustering::ALL {
            let curve = run_curve(&truth, &run, &[], method, &thresholds);
            for (e, &t) in curve.iter().zip(&thresholds) {
                let alone = evaluate_clustering(
                    &truth,
                    &run.pairs,
                    &run.groups,
                    &run.sampled,
                    &[],
                    &run.scale,
                    t,
                    method,
                );
                assert_eq!(*e, alone, "round {round}, {method} at {t}");
            }
        }
    }
}
