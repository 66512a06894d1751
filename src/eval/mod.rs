//! Scoring judgments against labels (SPEC section 2).
//!
//! [`Truth`] holds what the labels say, counted once: true pairs and actual
//! duplicate pages per slice, computed combinatorially (a cluster of 10,000
//! pages is a count, not 50 million pairs). [`evaluate_at`] then scores the
//! pairs an algorithm stored at one threshold, in time linear in their
//! number plus the number of pages, without touching signatures.

pub mod choose;
pub mod clustering;
pub mod curve;
pub mod judged;

use std::collections::HashMap;

use crate::algo::{passes_gates, PageGroup, SampledComponent, ScoreScale, ScoredPair};
use crate::corpus::{Page, Published};
use crate::util::unionfind::UnionFind;

/// The counts behind a precision/recall/F line, as in seed 001's tables.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Counts {
    pub actual: u64,
    pub detected: u64,
    pub correct: u64,
}

impl Counts {
    /// NaN when nothing was detected (undefined, shown as `-`).
    pub fn precision(&self) -> f64 {
        ratio(self.correct, self.detected)
    }

    /// NaN when there was nothing to find.
    pub fn recall(&self) -> f64 {
        ratio(self.correct, self.actual)
    }

    /// Harmonic mean of precision and recall; 0 when either is 0, NaN when
    /// either is undefined.
    pub fn f1(&self) -> f64 {
        let (p, r) = (self.precision(), self.recall());
        if p.is_nan() || r.is_nan() {
            f64::NAN
        } else if p + r == 0.0 {
            0.0
        } else {
            2.0 * p * r / (p + r)
        }
    }

    fn add(&mut self, other: &Counts) {
        self.actual += other.actual;
        self.detected += other.detected;
        self.correct += other.correct;
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        f64::NAN
    } else {
        a as f64 / b as f64
    }
}

/// One metric level, overall and per slice (indexed like
/// [`Truth::slice_names`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LevelMetrics {
    pub overall: Counts,
    pub slices: Vec<Counts>,
}

impl LevelMetrics {
    fn from_slices(slices: Vec<Counts>) -> Self {
        let mut overall = Counts::default();
        slices.iter().for_each(|c| overall.add(c));
        LevelMetrics { overall, slices }
    }
}

/// The predicted cluster with the most pages (of equal ones, the one
/// holding the lowest page index), and how many true clusters transitive
/// chaining merged into it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LargestCluster {
    pub pages: u64,
    pub true_clusters: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    pub threshold: f64,
    /// Over the judged pairs themselves.
    pub pairwise: LevelMetrics,
    /// Over the transitive closure of the judged pairs.
    pub clustered: LevelMetrics,
    /// Seed 001's page-level counts, with the retention rule.
    pub page: LevelMetrics,
    pub largest_cluster: LargestCluster,
}

/// What the labels say, prepared once per corpus.
#[derive(Debug, Clone)]
pub struct Truth {
    /// True cluster of each page, as a dense id.
    pub cluster: Vec<u32>,
    /// Slice of each page, indexing `slice_names`.
    pub slice: Vec<u16>,
    /// Slices sorted so that a pair belongs to the later slice of its two
    /// pages: first the slices of pages that are nobody's copy (kind
    /// `original` or none), then the others, each group by name. A pair of
    /// an original and its partial copy is thus counted under the partial
    /// copy's slice, as seed 001's table counts it.
    pub slice_names: Vec<String>,
    /// Position of each page in the retention order: in a group of
    /// duplicates the page with the lowest rank is kept (earliest
    /// `published`, then the longest text, then the smallest id).
    pub retention_rank: Vec<u32>,
    /// Each page's text length in characters, as the retention rule read
    /// it (what `neardup dedup --keep longest` compares).
    pub text_len: Vec<u32>,
    /// True duplicate pairs per slice.
    pub actual_pairs: Vec<u64>,
    /// Actual duplicate pages per slice: every page of a true cluster but
    /// the one the retention rule keeps.
    pub actual_pages: Vec<u64>,
}

impl Truth {
    /// `text_len[i]` is the length of page i's text, for the retention rule.
    pub fn new(pages: &[Page], text_len: &[usize]) -> Truth {
        assert_eq!(pages.len(), text_len.len());
        let n = pages.len();

        let mut cluster_ids: HashMap<&str, u32> = HashMap::new();
        let cluster: Vec<u32> = pages
            .iter()
            .map(|p| {
                let next = cluster_ids.len() as u32;
                *cluster_ids.entry(p.cluster.as_str()).or_insert(next)
            })
            .collect();

        let mut names: Vec<(bool, String)> =
            pages.iter().map(|p| (is_copy(p), p.slice())).collect();
        names.sort();
        names.dedup();
        let slice_index: HashMap<&str, u16> = names
            .iter()
            .enumerate()
            .map(|(i, (_, name))| (name.as_str(), i as u16))
            .collect();
        let slice: Vec<u16> = pages
            .iter()
            .map(|p| slice_index[p.slice().as_str()])
            .collect();
        let slice_names: Vec<String> = names.into_iter().map(|(_, name)| name).collect();

        let mut order: Vec<u32> = (0..n as u32).collect();
        order.sort_by(|&a, &b| {
            let (pa, pb) = (&pages[a as usize], &pages[b as usize]);
            published_key(&pa.published)
                .cmp(&published_key(&pb.published))
                .then(text_len[b as usize].cmp(&text_len[a as usize]))
                .then(pa.id.cmp(&pb.id))
        });
        let mut retention_rank = vec![0u32; n];
        for (rank, &page) in order.iter().enumerate() {
            retention_rank[page as usize] = rank as u32;
        }

        let mut truth = Truth {
            cluster,
            slice,
            slice_names,
            retention_rank,
            text_len: text_len
                .iter()
                .map(|&l| u32::try_from(l).unwrap_or(u32::MAX))
                .collect(),
            actual_pairs: Vec::new(),
            actual_pages: Vec::new(),
        };
        let groups = truth.group_by(|p| truth.cluster[p as usize], 0..n as u32);
        let slices = truth.slice_names.len();
        truth.actual_pairs = pairs_per_slice(&truth, &groups, slices);
        truth.actual_pages = truth
            .retained_counts(&groups)
            .into_iter()
            .map(|c| c.detected)
            .collect();
        truth
    }

    pub fn pages(&self) -> usize {
        self.cluster.len()
    }

    pub fn true_pairs(&self) -> u64 {
        self.actual_pairs.iter().sum()
    }

    /// The slice a pair is counted in: the later slice of its two pages.
    pub fn pair_slice(&self, a: u32, b: u32) -> u16 {
        self.slice[a as usize].max(self.slice[b as usize])
    }

    /// Pages grouped by a key, each group sorted by slice.
    fn group_by(
        &self,
        key: impl Fn(u32) -> u32,
        pages: impl Iterator<Item = u32>,
    ) -> Vec<Vec<u32>> {
        let mut keyed: Vec<(u32, u16, u32)> =
            pages.map(|p| (key(p), self.slice[p as usize], p)).collect();
        keyed.sort_unstable();
        let mut groups: Vec<Vec<u32>> = Vec::new();
        let mut last = None;
        for (k, _, p) in keyed {
            if last != Some(k) {
                groups.push(Vec::new());
                last = Some(k);
            }
            groups.last_mut().expect("pushed above").push(p);
        }
        groups
    }

    /// For groups of pages, the pages the retention rule does not keep
    /// (`detected`) and those of them sharing a true cluster with the kept
    /// page (`correct`), per slice.
    fn retained_counts(&self, groups: &[Vec<u32>]) -> Vec<Counts> {
        let mut counts = vec![Counts::default(); self.slice_names.len()];
        for group in groups.iter().filter(|g| g.len() > 1) {
            let kept = *group
                .iter()
                .min_by_key(|&&p| self.retention_rank[p as usize])
                .expect("group is not empty");
            for &p in group.iter().filter(|&&p| p != kept) {
                let c = &mut counts[self.slice[p as usize] as usize];
                c.detected += 1;
                if self.cluster[p as usize] == self.cluster[kept as usize] {
                    c.correct += 1;
                }
            }
        }
        counts
    }
}

fn is_copy(page: &Page) -> bool {
    !matches!(page.kind.as_deref(), None | Some("original"))
}

/// Pages with no publication time sort after every dated page.
fn published_key(p: &Option<Published>) -> (bool, Option<&Published>) {
    (p.is_none(), p.as_ref())
}

/// Pairs within each group, per slice of the pair, counted without
/// enumerating them: in a group with c_s pages of slice s, the pairs whose
/// later slice is s number c_s * (pages of earlier slices) + C(c_s, 2).
fn pairs_per_slice(truth: &Truth, groups: &[Vec<u32>], slices: usize) -> Vec<u64> {
    let mut out = vec![0u64; slices];
    for group in groups {
        add_pairs_by_slice(group.iter().map(|&p| truth.slice[p as usize]), &mut out);
    }
    out
}

/// Adds one group's pairs per slice to `out`; `slices` are the slices of
/// the group's pages, in ascending order.
fn add_pairs_by_slice(slices: impl Iterator<Item = u16>, out: &mut [u64]) {
    let mut earlier = 0u64;
    let mut run: Option<(u16, u64)> = None;
    let mut close = |s: u16, c: u64, earlier: &mut u64| {
        out[s as usize] += c * *earlier + c * (c - 1) / 2;
        *earlier += c;
    };
    for s in slices {
        run = match run {
            Some((r, c)) if r == s => Some((r, c + 1)),
            Some((r, c)) => {
                close(r, c, &mut earlier);
                Some((s, 1))
            }
            None => Some((s, 1)),
        };
    }
    if let Some((r, c)) = run {
        close(r, c, &mut earlier);
    }
}

/// Scores the stored pairs of one algorithm at one threshold.
pub fn evaluate_at(
    truth: &Truth,
    pairs: &[ScoredPair],
    scale: &ScoreScale,
    threshold: f64,
) -> Evaluation {
    evaluate_grouped(truth, pairs, &[], &[], scale, threshold)
}

/// `pages` as (true cluster, slice), sorted, for [`add_group_pairs`].
fn group_members(truth: &Truth, pages: &[u32], members: &mut Vec<(u32, u16)>) {
    members.clear();
    members.extend(
        pages
            .iter()
            .map(|&p| (truth.cluster[p as usize], truth.slice[p as usize])),
    );
    members.sort_unstable();
}

/// Adds the pairs among pages given as (true cluster, slice), sorted, to
/// `detected` (all of them) and `correct` (those inside one true cluster),
/// per slice, without enumerating them; `slices` is scratch space.
fn add_group_pairs(
    members: &[(u32, u16)],
    slices: &mut Vec<u16>,
    detected: &mut [u64],
    correct: &mut [u64],
) -> u64 {
    let mut true_clusters = 0;
    for part in members.chunk_by(|x, y| x.0 == y.0) {
        true_clusters += 1;
        add_pairs_by_slice(part.iter().map(|m| m.1), correct);
    }
    slices.clear();
    slices.extend(members.iter().map(|m| m.1));
    slices.sort_unstable();
    add_pairs_by_slice(slices.iter().copied(), detected);
    true_clusters
}

/// Scores one algorithm at one threshold: its stored pairs, and its groups
/// of identical signatures, whose pairs are counted per true cluster
/// (C(n_c, 2) and the like), never listed. Groups pass when their score
/// does and their gate scores pass `gate_thresholds`.
pub fn evaluate_grouped(
    truth: &Truth,
    pairs: &[ScoredPair],
    groups: &[PageGroup],
    gate_thresholds: &[f64],
    scale: &ScoreScale,
    threshold: f64,
) -> Evaluation {
    evaluate_full(
        truth,
        pairs,
        groups,
        &[],
        gate_thresholds,
        scale,
        threshold,
        None,
    )
}

/// [`evaluate_grouped`] with the run's sampled components too: each
/// sampled pair passing the threshold adds the pairs it stands for.
pub fn evaluate_sampled(
    truth: &Truth,
    pairs: &[ScoredPair],
    groups: &[PageGroup],
    sampled: &[SampledComponent],
    gate_thresholds: &[f64],
    scale: &ScoreScale,
    threshold: f64,
) -> Evaluation {
    evaluate_full(
        truth,
        pairs,
        groups,
        sampled,
        gate_thresholds,
        scale,
        threshold,
        None,
    )
}

/// Adds the pairs a sampled pair stands for to `pairwise`, per slice.
fn add_sampled_pairs(
    truth: &Truth,
    sampled: &[SampledComponent],
    passes: impl Fn(f32) -> bool,
    pairwise: &mut [Counts],
) {
    for component in sampled {
        for (k, pair) in component.sample.iter().enumerate() {
            if !passes(pair.score) {
                continue;
            }
            let weight = component.weight(k);
            let c = &mut pairwise[truth.pair_slice(pair.a, pair.b) as usize];
            c.detected += weight;
            if truth.cluster[pair.a as usize] == truth.cluster[pair.b as usize] {
                c.correct += weight;
            }
        }
    }
}

/// [`evaluate_at`], with the clustered and page levels read from
/// `clusters` (per page, the index of a page of its predicted cluster, the
/// same for all of them) instead of the transitive closure of the pairs:
/// clusters computed elsewhere are scored as they are.
pub fn evaluate_with_clusters(
    truth: &Truth,
    pairs: &[ScoredPair],
    scale: &ScoreScale,
    threshold: f64,
    clusters: Option<&[u32]>,
) -> Evaluation {
    evaluate_full(truth, pairs, &[], &[], &[], scale, threshold, clusters)
}

#[allow(clippy::too_many_arguments)]
fn evaluate_full(
    truth: &Truth,
    pairs: &[ScoredPair],
    groups: &[PageGroup],
    sampled: &[SampledComponent],
    gate_thresholds: &[f64],
    scale: &ScoreScale,
    threshold: f64,
    clusters: Option<&[u32]>,
) -> Evaluation {
    let n = truth.pages();
    let slices = truth.slice_names.len();
    let mut pairwise = vec![Counts::default(); slices];
    let mut sets = UnionFind::new(n);
    for pair in pairs.iter().filter(|p| scale.passes(p.score, threshold)) {
        let c = &mut pairwise[truth.pair_slice(pair.a, pair.b) as usize];
        c.detected += 1;
        if truth.cluster[pair.a as usize] == truth.cluster[pair.b as usize] {
            c.correct += 1;
        }
        if clusters.is_none() {
            sets.union(pair.a, pair.b);
        }
    }
    let mut group_detected = vec![0u64; slices];
    let mut group_correct = vec![0u64; slices];
    let mut members: Vec<(u32, u16)> = Vec::new();
    let mut scratch: Vec<u16> = Vec::new();
    for group in groups.iter().filter(|g| {
        scale.passes(g.score, threshold) && passes_gates(&g.gate_scores, gate_thresholds)
    }) {
        group_members(truth, &group.pages, &mut members);
        add_group_pairs(
            &members,
            &mut scratch,
            &mut group_detected,
            &mut group_correct,
        );
        for w in group.pages.windows(2) {
            sets.union(w[0], w[1]);
        }
    }
    // A sampled component's pages are joined by its links, stored pairs.
    add_sampled_pairs(
        truth,
        sampled,
        |score| scale.passes(score, threshold),
        &mut pairwise,
    );
    for (s, c) in pairwise.iter_mut().enumerate() {
        c.actual = truth.actual_pairs[s];
        c.detected += group_detected[s];
        c.correct += group_correct[s];
    }
    let found: Vec<u32>;
    let roots = match clusters {
        Some(labels) => {
            assert_eq!(labels.len(), n, "one cluster label per page");
            labels
        }
        None => {
            found = (0..n as u32).map(|p| sets.find(p)).collect();
            &found
        }
    };
    let (clustered, page, largest_cluster) = score_clusters(truth, roots);
    Evaluation {
        threshold,
        pairwise: LevelMetrics::from_slices(pairwise),
        clustered,
        page,
        largest_cluster,
    }
}

/// The clustered and page levels, and the largest predicted cluster, of
/// the predicted clusters `roots` (per page, a page of its cluster, the
/// same for all of them).
pub(crate) fn score_clusters(
    truth: &Truth,
    roots: &[u32],
) -> (LevelMetrics, LevelMetrics, LargestCluster) {
    let n = truth.pages();
    let slices = truth.slice_names.len();
    let mut scratch: Vec<u16> = Vec::new();
    let mut size = vec![0u32; n];
    for &r in roots {
        size[r as usize] += 1;
    }

    // Only pages in predicted clusters of two or more matter from here on.
    // Sorted by (predicted cluster, true cluster, slice): runs of the first
    // key are predicted clusters, runs of the first two their intersections
    // with true clusters, and each intersection is in slice order.
    let mut members: Vec<(u32, u32, u16, u32)> = Vec::new();
    let mut kept = vec![u32::MAX; n];
    for p in 0..n as u32 {
        let root = roots[p as usize];
        if size[root as usize] < 2 {
            continue;
        }
        members.push((root, truth.cluster[p as usize], truth.slice[p as usize], p));
        let k = &mut kept[root as usize];
        if *k == u32::MAX || truth.retention_rank[p as usize] < truth.retention_rank[*k as usize] {
            *k = p;
        }
    }
    // Pages come in ascending order; stable counting sorts by slice, true
    // cluster, then predicted cluster leave them sorted by all four keys,
    // in linear time (a curve scores a hundred thresholds).
    let clusters = truth.cluster.iter().max().map_or(0, |&c| c as usize + 1);
    counting_sort(&mut members, slices, |m| m.2 as usize);
    counting_sort(&mut members, clusters, |m| m.1 as usize);
    counting_sort(&mut members, n, |m| m.0 as usize);

    let mut detected_pairs = vec![0u64; slices];
    let mut correct_pairs = vec![0u64; slices];
    let mut page = vec![Counts::default(); slices];
    let mut largest_cluster = LargestCluster::default();
    let mut largest_first = u32::MAX;
    let mut component_members: Vec<(u32, u16)> = Vec::new();
    for component in members.chunk_by(|x, y| x.0 == y.0) {
        component_members.clear();
        component_members.extend(component.iter().map(|m| (m.1, m.2)));
        let true_clusters = add_group_pairs(
            &component_members,
            &mut scratch,
            &mut detected_pairs,
            &mut correct_pairs,
        );

        let keep = kept[component[0].0 as usize];
        for &(_, cluster, slice, _) in component.iter().filter(|m| m.3 != keep) {
            let c = &mut page[slice as usize];
            c.detected += 1;
            if cluster == truth.cluster[keep as usize] {
                c.correct += 1;
            }
        }
        let pages = component.len() as u64;
        let first = component.iter().map(|m| m.3).min().expect("not empty");
        if pages > largest_cluster.pages
            || (pages == largest_cluster.pages && first < largest_first)
        {
            largest_cluster = LargestCluster {
                pages,
                true_clusters,
            };
            largest_first = first;
        }
    }
    let clustered = (0..slices)
        .map(|s| Counts {
            actual: truth.actual_pairs[s],
            detected: detected_pairs[s],
            correct: correct_pairs[s],
        })
        .collect();
    for (c, &actual) in page.iter_mut().zip(&truth.actual_pages) {
        c.actual = actual;
    }

    (
        LevelMetrics::from_slices(clustered),
        LevelMetrics::from_slices(page),
        largest_cluster,
    )
}

/// Sorts `items` stably by `key`, whose values are below `keys`.
fn counting_sort<T: Copy>(items: &mut Vec<T>, keys: usize, key: impl Fn(&T) -> usize) {
    let mut start = vec![0usize; keys + 1];
    for item in items.iter() {
        start[key(item) + 1] += 1;
    }
    for k in 0..keys {
        start[k + 1] += start[k];
    }
    let mut sorted = items.clone();
    for item in items.iter() {
        let at = &mut start[key(item)];
        sorted[*at] = *item;
        *at += 1;
    }
    *items = sorted;
}

/// Pages of one group per true cluster, (cluster, pages) by cluster.
fn cluster_histogram(truth: &Truth, pages: &[u32]) -> Vec<(u32, u64)> {
    let mut clusters: Vec<u32> = pages.iter().map(|&p| truth.cluster[p as usize]).collect();
    clusters.sort_unstable();
    clusters
        .chunk_by(|x, y| x == y)
        .map(|run| (run[0], run.len() as u64))
        .collect()
}

/// Pairs between two groups given as cluster histograms, and the true ones
/// among them (pages sharing a cluster).
fn cross_pairs(a: &[(u32, u64)], b: &[(u32, u64)]) -> (u64, u64) {
    let size = |h: &[(u32, u64)]| h.iter().map(|x| x.1).sum::<u64>();
    let (mut i, mut j, mut correct) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].0.cmp(&b[j].0) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                correct += a[i].1 * b[j].1;
                i += 1;
                j += 1;
            }
        }
    }
    (size(a) * size(b), correct)
}

/// A group's cluster histogram, its pairs and the true ones among them.
fn inside_group(truth: &Truth, group: &PageGroup) -> (Vec<(u32, u64)>, u64, u64) {
    let h = cluster_histogram(truth, &group.pages);
    let correct = h.iter().map(|&(_, n)| n * n.saturating_sub(1) / 2).sum();
    (h, group.pairs(), correct)
}

/// True pairs among the candidate stage's pairs: `pairs` between groups'
/// first pages and pages outside groups, each standing for all pairs
/// between the two, and every pair inside a group.
pub fn grouped_pair_recall(
    truth: &Truth,
    pairs: impl Iterator<Item = (u32, u32)>,
    groups: &[PageGroup],
) -> Counts {
    let mut histograms: HashMap<u32, Vec<(u32, u64)>> = HashMap::new();
    let (mut detected, mut correct) = (0u64, 0u64);
    for g in groups {
        let (h, d, c) = inside_group(truth, g);
        detected += d;
        correct += c;
        histograms.insert(g.pages[0], h);
    }
    for (a, b) in pairs {
        let (one_a, one_b) = (
            [(truth.cluster[a as usize], 1)],
            [(truth.cluster[b as usize], 1)],
        );
        let ha = histograms.get(&a).map_or(&one_a[..], |h| &h[..]);
        let hb = histograms.get(&b).map_or(&one_b[..], |h| &h[..]);
        let (d, c) = cross_pairs(ha, hb);
        detected += d;
        correct += c;
    }
    Counts {
        actual: truth.true_pairs(),
        detected,
        correct,
    }
}

/// The pairs sampled components stand for, and the true ones among them,
/// as their samples estimate them: all of them (`scale` `None`: the
/// candidate stage joined every pair of a component), or those within
/// `scale`'s floor. `actual` is left 0, for adding to other counts.
pub fn sampled_counts(
    truth: &Truth,
    sampled: &[SampledComponent],
    scale: Option<&ScoreScale>,
) -> Counts {
    let mut pairwise = vec![Counts::default(); truth.slice_names.len()];
    add_sampled_pairs(
        truth,
        sampled,
        |score| scale.is_none_or(|s| s.passes(score, s.floor)),
        &mut pairwise,
    );
    let mut total = Counts::default();
    pairwise.iter().for_each(|c| total.add(c));
    total
}

/// True pairs stored at all (within the floor), groups' pairs included.
pub fn stored_recall(
    truth: &Truth,
    pairs: &[ScoredPair],
    groups: &[PageGroup],
    scale: &ScoreScale,
) -> Counts {
    let mut counts = candidate_recall(truth, pairs);
    for g in groups.iter().filter(|g| scale.passes(g.score, scale.floor)) {
        let (_, d, c) = inside_group(truth, g);
        counts.detected += d;
        counts.correct += c;
    }
    counts
}

/// True pairs that the candidate stage produced at all (at the floor): the
/// recall no threshold can exceed.
pub fn candidate_recall(truth: &Truth, pairs: &[ScoredPair]) -> Counts {
    pair_recall(truth, pairs.iter().map(|p| (p.a, p.b)))
}

/// The clustered and page-level recall no threshold or gate can exceed,
/// given every pair the candidate stage produced (`pairs` and `groups`):
/// a threshold keeps a subset of those pairs, so its predicted clusters
/// split the components of all of them. A true cluster's m pages inside
/// one component then hold at most C(m, 2) correct pairs and m - 1
/// correct pages (all but the one kept), whatever the split.
pub fn reachable_recall(
    truth: &Truth,
    pairs: impl Iterator<Item = (u32, u32)>,
    groups: &[PageGroup],
) -> (f64, f64) {
    let n = truth.pages();
    let mut sets = UnionFind::new(n);
    for (a, b) in pairs {
        sets.union(a, b);
    }
    for g in groups {
        for w in g.pages.windows(2) {
            sets.union(w[0], w[1]);
        }
    }
    let mut parts: Vec<(u32, u32)> = (0..n as u32)
        .map(|p| (sets.find(p), truth.cluster[p as usize]))
        .collect();
    parts.sort_unstable();
    let (mut pairs_reached, mut pages_reached) = (0u64, 0u64);
    for part in parts.chunk_by(|x, y| x == y) {
        let m = part.len() as u64;
        pairs_reached += m * (m - 1) / 2;
        pages_reached += m - 1;
    }
    let recall = |correct: u64, actual: u64| {
        Counts {
            actual,
            detected: correct,
            correct,
        }
        .recall()
    };
    (
        recall(pairs_reached, truth.true_pairs()),
        recall(pages_reached, truth.actual_pages.iter().sum()),
    )
}

/// True pairs among distinct page pairs `(a, b)`, against all true pairs.
pub fn pair_recall(truth: &Truth, pairs: impl Iterator<Item = (u32, u32)>) -> Counts {
    let (mut detected, mut correct) = (0, 0);
    for (a, b) in pairs {
        detected += 1;
        correct += u64::from(truth.cluster[a as usize] == truth.cluster[b as usize]);
    }
    Counts {
        actual: truth.true_pairs(),
        detected,
        correct,
    }
}
