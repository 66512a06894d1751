//! From the pairs that pass a threshold to predicted clusters, by one of
//! several methods (Hassanzadeh, Chiang, Lee and Miller, "Framework for
//! evaluating clustering algorithms in duplicate detection", VLDB 2009).
//!
//! Connected components, the default, join two stories as soon as one false
//! pair links them; the other methods keep a cluster around a centre page,
//! so a stray pair costs one page rather than a merge. Every method sees a
//! group of identical signatures ([`PageGroup`]) as one node, never as its
//! pairs, and runs in time near-linear in the passing pairs (one sort).
//!
//! [`cluster_pages`] is the one entry point: the evaluation, `neardup run`,
//! `tune`, the report and the workbench all score clusters through
//! [`evaluate_clustering`], which calls it.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::{evaluate_full, evaluate_sampled, Evaluation, Truth};
use crate::algo::{
    passes_gates, AlgorithmRun, Direction, PageGroup, SampledComponent, ScoreScale, ScoredPair,
};
use crate::util::rng::SplitMix64;
use crate::util::unionfind::UnionFind;

/// How the pairs passing a threshold become clusters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Clustering {
    /// Connected components (the transitive closure of the pairs).
    #[default]
    Connected,
    /// CENTER: pairs taken closest first; the first time a page appears it
    /// becomes a centre, and a page paired with a centre joins it.
    Center,
    /// CENTER, and two clusters merge when a page of one is paired with
    /// the centre of the other.
    MergeCenter,
    /// Star: the page with the most neighbours not yet placed is a centre
    /// and takes those neighbours, then the next.
    Star,
    /// Pivot (Ailon, Charikar and Newman's KwikCluster): pages in a seeded
    /// random order; each one not yet placed is a pivot and takes its
    /// neighbours not yet placed.
    Pivot,
    /// Average linkage (UPGMA): the two clusters whose pages are closest on
    /// average merge, then the next two, while that average passes the
    /// threshold. Pairs never stored count as two unrelated pages score
    /// ([`ScoreScale::unrelated`]), so one stray pair cannot join two
    /// stories, and the threshold keeps the meaning it has for one pair.
    Average,
}

/// The seed of pivot's page order, fixed so that runs repeat.
pub const PIVOT_SEED: u64 = 0x6b77_6963_6b00_0001;

impl Clustering {
    pub const ALL: [Clustering; 6] = [
        Clustering::Connected,
        Clustering::Center,
        Clustering::MergeCenter,
        Clustering::Star,
        Clustering::Pivot,
        Clustering::Average,
    ];

    /// The YAML name.
    pub fn name(self) -> &'static str {
        match self {
            Clustering::Connected => "connected",
            Clustering::Center => "center",
            Clustering::MergeCenter => "merge_center",
            Clustering::Star => "star",
            Clustering::Pivot => "pivot",
            Clustering::Average => "average",
        }
    }

    /// The next method, for the workbench's key.
    pub fn next(self) -> Clustering {
        let i = Self::ALL.iter().position(|&c| c == self).unwrap_or(0);
        Self::ALL[(i + 1) % Self::ALL.len()]
    }
}

impl fmt::Display for Clustering {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Clustering {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|c| c.name() == s)
            .ok_or_else(|| {
                format!("`{s}` is not a clustering: connected, center, merge_center, star, pivot or average")
            })
    }
}

/// What one algorithm's clusters at one threshold are made from.
#[derive(Debug, Clone, Copy)]
pub struct ClusterInput<'a> {
    pub pages: usize,
    /// Stored pairs through the gates. Those passing `threshold` link
    /// pages; average linkage also weighs those that do not.
    pub pairs: &'a [ScoredPair],
    /// Groups of identical signatures that pass the threshold and gates
    /// (disjoint, as an algorithm's groups are).
    pub groups: &'a [&'a PageGroup],
    pub sampled: &'a [SampledComponent],
    pub scale: &'a ScoreScale,
    pub threshold: f64,
}

/// The groups of identical signatures that pass `threshold` and the gates:
/// each one node of the clusters.
pub fn passing_groups<'a>(
    groups: &'a [PageGroup],
    scale: &ScoreScale,
    threshold: f64,
    gate_thresholds: &[f64],
) -> Vec<&'a PageGroup> {
    groups
        .iter()
        .filter(|g| {
            scale.passes(g.score, threshold) && passes_gates(&g.gate_scores, gate_thresholds)
        })
        .collect()
}

/// Clusters of `input.pages` pages by `method`. `seed` orders pivot's
/// pages (use [`PIVOT_SEED`] to match the evaluation).
///
/// Returns, per page, the smallest page index of its cluster: a page in no
/// passing pair or group is its own label. Ties in score go to the lower
/// page indices, so the answer depends on the input alone (not on its
/// order, nor on threads).
pub fn cluster_pages(input: &ClusterInput, method: Clustering, seed: u64) -> Vec<u32> {
    let pages = input.pages;
    let mut node_of = group_nodes(pages, input.groups);
    if method == Clustering::Average {
        let head = average::average_linkage(input, &mut node_of);
        return least_labels(&node_of, &head);
    }
    let passing: Vec<ScoredPair> = input
        .pairs
        .iter()
        .filter(|p| input.scale.passes(p.score, input.threshold))
        .copied()
        .collect();
    let edges: Vec<(u32, u32)> = closest_first(&passing, &node_of, input.scale.direction)
        .into_iter()
        .map(|(_, u, v)| (u, v))
        .collect();
    let head = match method {
        Clustering::Connected => connected(pages, &edges),
        Clustering::Center | Clustering::MergeCenter => {
            let mut centers = Centers::new(pages, method == Clustering::MergeCenter);
            edges.iter().for_each(|&(u, v)| centers.add(u, v));
            centers.heads()
        }
        Clustering::Star | Clustering::Pivot => {
            let graph = Adjacency::new(pages, &edges);
            let degree: Vec<u32> = (0..pages as u32).map(|u| graph.degree(u)).collect();
            graph.take_neighbours(&neighbour_order(method, &degree, seed), &degree)
        }
        Clustering::Average => unreachable!("handled above"),
    };
    least_labels(&node_of, &head)
}

/// Per page, its node: the first page of its group, or itself.
fn group_nodes(pages: usize, groups: &[&PageGroup]) -> Vec<u32> {
    let mut node_of: Vec<u32> = (0..pages as u32).collect();
    for group in groups {
        let head = group.pages[0];
        for &p in &group.pages {
            node_of[p as usize] = head;
        }
    }
    node_of
}

/// The order in which star or pivot visit the nodes with a neighbour
/// (`degree` counts each node's neighbours): star by most neighbours,
/// equal degrees in ascending node order; pivot in a seeded random order.
fn neighbour_order(method: Clustering, degree: &[u32], seed: u64) -> Vec<u32> {
    let mut order: Vec<u32> = (0..degree.len() as u32)
        .filter(|&u| degree[u as usize] > 0)
        .collect();
    match method {
        // Stable: equal degrees keep ascending node order.
        Clustering::Star => order.sort_by_key(|&u| std::cmp::Reverse(degree[u as usize])),
        _ => SplitMix64::new(seed).shuffle(&mut order),
    }
    order
}

/// Distinct node pairs `(closeness, u, v)`, `u < v`, closest first (ties
/// by `u`, then `v`), each at its closest score; pairs inside one node are
/// dropped. Closeness is the score, negated for a distance.
fn closest_first(
    pairs: &[ScoredPair],
    node_of: &[u32],
    direction: Direction,
) -> Vec<(f32, u32, u32)> {
    let closeness = |s: f32| match direction {
        Direction::AtLeast => s,
        Direction::AtMost => -s,
    };
    // Integer keys sort several times faster than a float comparison;
    // ascending keys are descending closeness in `f32::total_cmp` order.
    let mut keyed: Vec<(u32, u32, u32)> = pairs
        .iter()
        .filter_map(|p| {
            let (a, b) = (node_of[p.a as usize], node_of[p.b as usize]);
            (a != b).then(|| (!total_order_key(closeness(p.score)), a.min(b), a.max(b)))
        })
        .collect();
    keyed.sort_unstable();
    // A node pair appears twice only when a node holds several pages, or
    // when the pairs repeat one: otherwise every node pair is distinct.
    let is_node = |p: u32| node_of[p as usize] == p;
    let distinct = pairs.iter().all(|p| is_node(p.a) && is_node(p.b))
        && pairs
            .windows(2)
            .all(|w| (w[0].a, w[0].b) < (w[1].a, w[1].b))
        && pairs.iter().all(|p| p.a < p.b);
    if !distinct {
        let mut seen = rustc_hash::FxHashSet::default();
        seen.reserve(keyed.len());
        keyed.retain(|&(_, u, v)| seen.insert((u, v)));
    }
    keyed
        .into_iter()
        .map(|(key, u, v)| (from_total_order_key(!key), u, v))
        .collect()
}

/// An unsigned integer ordered as `f32::total_cmp` orders the floats.
fn total_order_key(x: f32) -> u32 {
    let bits = x.to_bits();
    if bits & 0x8000_0000 != 0 {
        !bits
    } else {
        bits | 0x8000_0000
    }
}

/// The float [`total_order_key`] was made from.
fn from_total_order_key(key: u32) -> f32 {
    f32::from_bits(if key & 0x8000_0000 != 0 {
        key & 0x7fff_ffff
    } else {
        !key
    })
}

fn connected(pages: usize, edges: &[(u32, u32)]) -> Vec<u32> {
    let mut sets = UnionFind::new(pages);
    for &(u, v) in edges {
        sets.union(u, v);
    }
    (0..pages as u32).map(|p| sets.find(p)).collect()
}

const UNPLACED: u32 = u32::MAX;

/// CENTER, and with `merge` MERGE-CENTER, fed edges closest first: the
/// state after a prefix of the edges is the clustering at the threshold
/// that passes that prefix, so one walk serves a whole curve.
struct Centers {
    /// The centre each node was placed with.
    center: Vec<u32>,
    merged: UnionFind,
    merge: bool,
}

impl Centers {
    fn new(pages: usize, merge: bool) -> Self {
        Centers {
            center: vec![UNPLACED; pages],
            merged: UnionFind::new(if merge { pages } else { 0 }),
            merge,
        }
    }

    fn is_center(&self, x: u32) -> bool {
        self.center[x as usize] == x
    }

    fn add(&mut self, u: u32, v: u32) {
        match (self.center[u as usize], self.center[v as usize]) {
            // Both new: the lower index is the centre.
            (UNPLACED, UNPLACED) => {
                self.center[u as usize] = u;
                self.center[v as usize] = u;
            }
            (_, UNPLACED) if self.is_center(u) => self.center[v as usize] = u,
            (UNPLACED, _) if self.is_center(v) => self.center[u as usize] = v,
            // A page paired with another cluster's centre: one cluster.
            (cu, cv)
                if self.merge
                    && cu != UNPLACED
                    && cv != UNPLACED
                    && (self.is_center(u) || self.is_center(v)) =>
            {
                self.merged.union(cu, cv);
            }
            _ => {}
        }
    }

    /// Per node, a node of its cluster.
    fn heads(&mut self) -> Vec<u32> {
        (0..self.center.len() as u32)
            .map(|p| match self.center[p as usize] {
                UNPLACED => p,
                c if self.merge => self.merged.find(c),
                c => c,
            })
            .collect()
    }
}

/// The passing pairs as adjacency lists over nodes (compressed rows).
struct Adjacency {
    start: Vec<u32>,
    neighbours: Vec<u32>,
}

impl Adjacency {
    fn new(pages: usize, edges: &[(u32, u32)]) -> Self {
        let mut start = vec![0u32; pages + 1];
        for &(u, v) in edges {
            start[u as usize + 1] += 1;
            start[v as usize + 1] += 1;
        }
        for i in 0..pages {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut neighbours = vec![0u32; start[pages] as usize];
        for &(u, v) in edges {
            neighbours[fill[u as usize] as usize] = v;
            fill[u as usize] += 1;
            neighbours[fill[v as usize] as usize] = u;
            fill[v as usize] += 1;
        }
        Adjacency { start, neighbours }
    }

    fn degree(&self, u: u32) -> u32 {
        self.start[u as usize + 1] - self.start[u as usize]
    }

    fn of(&self, u: u32) -> &[u32] {
        &self.neighbours[self.start[u as usize] as usize..self.start[u as usize + 1] as usize]
    }

    /// Star and pivot: in `order`, each node not yet placed becomes a
    /// centre and takes its neighbours not yet placed. A node's neighbours
    /// are listed in edge order, and only its first `passing[u]` count (the
    /// edges a threshold passes).
    fn take_neighbours(&self, order: &[u32], passing: &[u32]) -> Vec<u32> {
        let pages = self.start.len() - 1;
        let mut head: Vec<u32> = vec![UNPLACED; pages];
        for &u in order {
            if head[u as usize] != UNPLACED {
                continue;
            }
            head[u as usize] = u;
            for &v in &self.of(u)[..passing[u as usize] as usize] {
                if head[v as usize] == UNPLACED {
                    head[v as usize] = u;
                }
            }
        }
        head.iter()
            .enumerate()
            .map(|(p, &h)| if h == UNPLACED { p as u32 } else { h })
            .collect()
    }
}

/// Per page, the smallest page of its cluster; `head` names each node's
/// cluster by any node of it.
fn least_labels(node_of: &[u32], head: &[u32]) -> Vec<u32> {
    let mut least = vec![UNPLACED; head.len()];
    (0..node_of.len())
        .map(|p| {
            let h = head[node_of[p] as usize] as usize;
            if least[h] == UNPLACED {
                // Pages come in ascending order: the first one is least.
                least[h] = p as u32;
            }
            least[h]
        })
        .collect()
}

/// Scores one algorithm at one threshold with clusters made by `method`:
/// [`evaluate_sampled`] for connected components, otherwise the pairwise
/// level as there and the clustered and page levels read from
/// [`cluster_pages`]. `pairs` are the stored pairs through the gates.
#[allow(clippy::too_many_arguments)]
pub fn evaluate_clustering(
    truth: &Truth,
    pairs: &[ScoredPair],
    groups: &[PageGroup],
    sampled: &[SampledComponent],
    gate_thresholds: &[f64],
    scale: &ScoreScale,
    threshold: f64,
    method: Clustering,
) -> Evaluation {
    if method == Clustering::Connected {
        return evaluate_sampled(
            truth,
            pairs,
            groups,
            sampled,
            gate_thresholds,
            scale,
            threshold,
        );
    }
    let passing = passing_groups(groups, scale, threshold, gate_thresholds);
    let input = ClusterInput {
        pages: truth.pages(),
        pairs,
        groups: &passing,
        sampled,
        scale,
        threshold,
    };
    let labels = cluster_pages(&input, method, PIVOT_SEED);
    evaluate_full(
        truth,
        pairs,
        groups,
        sampled,
        gate_thresholds,
        scale,
        threshold,
        Some(&labels),
    )
}

/// One algorithm run's evaluations at `thresholds` with clusters made by
/// `method`, each threshold's clusters grown from the last's where the
/// method allows: see [`curve_beside_connected`].
pub fn run_curve(
    truth: &Truth,
    run: &AlgorithmRun,
    gate_thresholds: &[f64],
    method: Clustering,
    thresholds: &[f64],
) -> Vec<Evaluation> {
    let connected =
        super::curve::ThresholdCurve::of_run(truth, run, gate_thresholds).at_each(thresholds);
    if method == Clustering::Connected {
        return connected;
    }
    curve_beside_connected(truth, run, gate_thresholds, method, thresholds, &connected)
}

/// [`run_curve`] for a method other than connected components, given the
/// connected curve at the same `thresholds`: the pairwise level does not
/// depend on the clusters, so it is read from there, and only the
/// clusters are made and scored here.
pub fn curve_beside_connected(
    truth: &Truth,
    run: &AlgorithmRun,
    gate_thresholds: &[f64],
    method: Clustering,
    thresholds: &[f64],
    connected: &[Evaluation],
) -> Vec<Evaluation> {
    curves_beside_connected(
        truth,
        run,
        gate_thresholds,
        &[method],
        thresholds,
        connected,
    )
    .pop()
    .expect("one curve per method")
}

/// [`curve_beside_connected`] for several methods at once, which share
/// the sorting of the pairs (in the order of `methods`).
pub fn curves_beside_connected(
    truth: &Truth,
    run: &AlgorithmRun,
    gate_thresholds: &[f64],
    methods: &[Clustering],
    thresholds: &[f64],
    connected: &[Evaluation],
) -> Vec<Vec<Evaluation>> {
    assert_eq!(
        connected.len(),
        thresholds.len(),
        "one evaluation per threshold"
    );
    let others: Vec<Clustering> = methods
        .iter()
        .copied()
        .filter(|&m| m != Clustering::Connected)
        .collect();
    let mut made =
        sweep::method_curves(truth, run, gate_thresholds, &others, thresholds, connected)
            .into_iter();
    methods
        .iter()
        .map(|&m| match m {
            Clustering::Connected => connected.to_vec(),
            _ => made.next().expect("one curve per method"),
        })
        .collect()
}

mod average;
mod sweep;

#[cfg(test)]
mod tests;
