//! A clustering method's whole curve in one sweep of the stored pairs,
//! closest first, instead of clustering every threshold from scratch.
//!
//! Thresholds are visited strictest first. The nodes (groups of identical
//! signatures, and for average linkage the sampled components that pass
//! on average) change only where a group or component starts to pass, so
//! the thresholds fall into a few stages with the same nodes; within a
//! stage each threshold passes a prefix of one sorted list of edges.
//! - CENTER and MERGE-CENTER read the edges in that order: the state
//!   after a prefix is that threshold's clustering.
//! - Star and pivot depend on the whole graph at each threshold, but a
//!   node's neighbours are kept in edge order, so each threshold reads
//!   only its passing prefix of them, and visits only the centres' lists.
//! - Average linkage is reducible: one merge sequence per stage, and a
//!   threshold takes the merges at or above it.
//!
//! The answers equal [`super::cluster_pages`] at each threshold alone.

use super::average::{collapse_sampled, heads, lift, merges, passes_on_average};
use super::{
    closest_first, group_nodes, least_labels, neighbour_order, Adjacency, Centers, Clustering,
    PIVOT_SEED,
};
use crate::algo::{passes_gates, AlgorithmRun, Direction, PageGroup, ScoreScale, ScoredPair};
use crate::eval::{score_clusters, Evaluation, Truth};

/// Thresholds that share their nodes, strictest first.
struct Stage<'a> {
    /// Indices into the thresholds.
    thresholds: Vec<usize>,
    groups: Vec<&'a PageGroup>,
}

/// Each of `methods`' evaluations at `thresholds`, the pairwise level
/// read from `connected` (the connected curve at the same thresholds).
/// The methods that read the edges in order share one sorted list.
pub(super) fn method_curves(
    truth: &Truth,
    run: &AlgorithmRun,
    gate_thresholds: &[f64],
    methods: &[Clustering],
    thresholds: &[f64],
    connected: &[Evaluation],
) -> Vec<Vec<Evaluation>> {
    let mut curves: Vec<Vec<Option<Evaluation>>> =
        vec![vec![None; thresholds.len()]; methods.len()];
    let mut scored = |m: usize, i: usize, labels: &[u32]| {
        let (clustered, page, largest_cluster) = score_clusters(truth, labels);
        curves[m][i] = Some(Evaluation {
            threshold: thresholds[i],
            pairwise: connected[i].pairwise.clone(),
            clustered,
            page,
            largest_cluster,
        });
    };
    let gated = run.gated_pairs(gate_thresholds);
    let (average, walked): (Vec<usize>, Vec<usize>) =
        (0..methods.len()).partition(|&m| methods[m] == Clustering::Average);
    for &m in &average {
        for stage in stages(run, gate_thresholds, Clustering::Average, thresholds) {
            average_stage(truth, run, &gated, &stage, thresholds, |i, l| {
                scored(m, i, l)
            });
        }
    }
    if !walked.is_empty() {
        // NaN passes no threshold; it would sort among the closest.
        let pairs: Vec<ScoredPair> = gated
            .iter()
            .filter(|p| !p.score.is_nan())
            .copied()
            .collect();
        for stage in stages(run, gate_thresholds, Clustering::Center, thresholds) {
            let walk = EdgeWalk::new(truth.pages(), &pairs, &stage, &run.scale, thresholds);
            for &m in &walked {
                walk.cluster(methods[m], |i, l| scored(m, i, l));
            }
        }
    }
    curves
        .into_iter()
        .map(|c| {
            c.into_iter()
                .map(|e| e.expect("every threshold is in a stage"))
                .collect()
        })
        .collect()
}

/// Average linkage over one stage: one merge sequence down to its
/// loosest threshold, each threshold taking the merges at or above it.
fn average_stage(
    truth: &Truth,
    run: &AlgorithmRun,
    gated: &[ScoredPair],
    stage: &Stage,
    thresholds: &[f64],
    mut scored: impl FnMut(usize, &[u32]),
) {
    let (scale, pages) = (&run.scale, truth.pages());
    let lift = lift(scale);
    let loosest = thresholds[*stage.thresholds.last().expect("a stage has a threshold")];
    let mut node_of = group_nodes(pages, &stage.groups);
    collapse_sampled(&run.sampled, scale, lift(loosest), &mut node_of);
    let merges = merges(pages, gated, &node_of, scale, lift(loosest));
    for &i in &stage.thresholds {
        let taken = merges.partition_point(|m| m.linkage >= lift(thresholds[i]));
        scored(i, &least_labels(&node_of, &heads(pages, &merges[..taken])));
    }
}

/// One stage's edges closest first, with where each threshold's passing
/// prefix ends: what CENTER, MERGE-CENTER, star and pivot walk.
struct EdgeWalk<'a> {
    node_of: Vec<u32>,
    edges: Vec<(u32, u32)>,
    /// Per threshold of the stage (strictest first): its index and the
    /// end of its passing prefix.
    ends: Vec<(usize, usize)>,
    stage: &'a Stage<'a>,
}

impl<'a> EdgeWalk<'a> {
    fn new(
        pages: usize,
        pairs: &[ScoredPair],
        stage: &'a Stage<'a>,
        scale: &ScoreScale,
        thresholds: &[f64],
    ) -> Self {
        let node_of = group_nodes(pages, &stage.groups);
        let sorted = closest_first(pairs, &node_of, scale.direction);
        let ends = stage
            .thresholds
            .iter()
            .map(|&i| {
                let passes = |&(closeness, _, _): &(f32, u32, u32)| {
                    scale.passes(score_of(closeness, scale), thresholds[i])
                };
                (i, sorted.partition_point(passes))
            })
            .collect();
        let edges = sorted.into_iter().map(|(_, u, v)| (u, v)).collect();
        EdgeWalk {
            node_of,
            edges,
            ends,
            stage,
        }
    }

    /// Clusters by `method` at each threshold of the stage, in order.
    fn cluster(&self, method: Clustering, mut scored: impl FnMut(usize, &[u32])) {
        let pages = self.node_of.len();
        debug_assert_eq!(self.ends.len(), self.stage.thresholds.len());
        let mut read = 0;
        match method {
            Clustering::Center | Clustering::MergeCenter => {
                let mut centers = Centers::new(pages, method == Clustering::MergeCenter);
                for &(i, upto) in &self.ends {
                    self.edges[read..upto]
                        .iter()
                        .for_each(|&(u, v)| centers.add(u, v));
                    read = upto;
                    scored(i, &least_labels(&self.node_of, &centers.heads()));
                }
            }
            Clustering::Star | Clustering::Pivot => {
                let graph = Adjacency::new(pages, &self.edges);
                let mut passing = vec![0u32; pages];
                for &(i, upto) in &self.ends {
                    for &(u, v) in &self.edges[read..upto] {
                        passing[u as usize] += 1;
                        passing[v as usize] += 1;
                    }
                    read = upto;
                    let order = neighbour_order(method, &passing, PIVOT_SEED);
                    let head = graph.take_neighbours(&order, &passing);
                    scored(i, &least_labels(&self.node_of, &head));
                }
            }
            Clustering::Connected | Clustering::Average => unreachable!("not walked"),
        }
    }
}

/// The score an edge's closeness stands for.
fn score_of(closeness: f32, scale: &ScoreScale) -> f32 {
    match scale.direction {
        Direction::AtLeast => closeness,
        Direction::AtMost => -closeness,
    }
}

/// The thresholds in stages of equal nodes, strictest first. A group is a
/// node once it passes, a sampled component (for average linkage) once
/// it passes on average; both only grow as the threshold loosens.
fn stages<'a>(
    run: &'a AlgorithmRun,
    gate_thresholds: &[f64],
    method: Clustering,
    thresholds: &[f64],
) -> Vec<Stage<'a>> {
    let scale = &run.scale;
    let gated_groups: Vec<&PageGroup> = run
        .groups
        .iter()
        .filter(|g| passes_gates(&g.gate_scores, gate_thresholds))
        .collect();
    let closeness = |t: f64| match scale.direction {
        Direction::AtLeast => t,
        Direction::AtMost => -t,
    };
    let mut order: Vec<usize> = (0..thresholds.len()).collect();
    order.sort_by(|&x, &y| closeness(thresholds[y]).total_cmp(&closeness(thresholds[x])));
    let lift = lift(scale);
    let key = |t: f64| {
        let groups = gated_groups
            .iter()
            .filter(|g| scale.passes(g.score, t))
            .count();
        let components = match method {
            Clustering::Average => run
                .sampled
                .iter()
                .filter(|c| passes_on_average(c, scale, lift(t)))
                .count(),
            _ => 0,
        };
        (groups, components)
    };
    let mut stages: Vec<(Stage, (usize, usize))> = Vec::new();
    for i in order {
        let t = thresholds[i];
        let k = key(t);
        match stages.last_mut() {
            Some((stage, last)) if *last == k => stage.thresholds.push(i),
            _ => stages.push((
                Stage {
                    thresholds: vec![i],
                    groups: gated_groups
                        .iter()
                        .copied()
                        .filter(|g| scale.passes(g.score, t))
                        .collect(),
                },
                k,
            )),
        }
    }
    stages.into_iter().map(|(s, _)| s).collect()
}
