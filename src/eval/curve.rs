//! Every threshold's evaluation, prepared in one pass so that moving a
//! threshold is a lookup.
//!
//! A threshold judges a prefix of the stored pairs and groups taken best
//! score first, so the metrics at every threshold are the metrics of every
//! prefix. [`ThresholdCurve::new`] walks that order once: pairwise counts
//! are running sums, and the clustered and page levels follow the
//! predicted clusters as a union-find merges them (the Kruskal order).
//! When components A and B merge, the predicted pairs grow by |A||B| and
//! the true ones among them by the sum over true clusters c of
//! |A ∩ c||B ∩ c|; each component keeps its pages per true cluster and
//! slice, and the smaller is merged into the larger. What a merge changes
//! is kept as a few per-slice deltas, and the whole state every
//! [`STRIDE`] items, so [`ThresholdCurve::at`] replays at most a stride.

use std::collections::HashMap;

use super::{
    add_group_pairs, group_members, Counts, Evaluation, LargestCluster, LevelMetrics, Truth,
};
use crate::algo::{passes_gates, Direction, PageGroup, SampledComponent, ScoreScale, ScoredPair};
use crate::util::unionfind::UnionFind;

/// Items (stored pairs or groups) between two saved states: a lookup
/// replays at most this many.
const STRIDE: usize = 8192;

/// Most distinct scores for which the whole state is kept per score (and
/// nothing per item): SimHash's 17 distances, MinHash's 129 estimates.
const MAX_RUNS: usize = 4096;

/// An item whose pairwise counts are in the events (a group's, or a pair
/// whose slice does not fit in a code).
const IN_EVENTS: u16 = u16::MAX;

/// The three levels, in the order of a cell index's blocks.
const PAIRWISE: usize = 0;
const CLUSTERED: usize = 1;
const PAGE: usize = 2;

/// A change to one (level, slice) cell.
#[derive(Debug, Clone, Copy)]
struct Delta {
    cell: u32,
    detected: i64,
    correct: i64,
}

/// What happens when one item is judged beyond its pairwise code: a
/// group's pairs, or a merge of two predicted clusters.
#[derive(Debug, Clone, Copy)]
struct Event {
    /// Position of the item in score order.
    item: u32,
    /// End of the event's deltas in `deltas` (they start where the
    /// previous event's end).
    end: u32,
    /// The largest predicted cluster once the event happened.
    largest: LargestCluster,
}

/// The state before item `k * STRIDE`.
#[derive(Debug, Clone)]
struct Checkpoint {
    cells: Vec<(u64, u64)>,
    /// Events before the checkpoint.
    events: u32,
}

/// The state after every item of one score.
#[derive(Debug, Clone)]
struct Run {
    score: f32,
    cells: Vec<(u64, u64)>,
    largest: LargestCluster,
}

/// One algorithm's evaluations at every threshold, for fixed gates.
#[derive(Debug, Clone)]
pub struct ThresholdCurve {
    scale: ScoreScale,
    slices: usize,
    items: usize,
    /// With few distinct scores, the state per score, best first; the
    /// per-item fields below are then empty.
    runs: Option<Vec<Run>>,
    actual_pairs: Vec<u64>,
    actual_pages: Vec<u64>,
    /// Scores of the judged items, best first.
    scores: Vec<f32>,
    /// Per item, a pair's `slice << 1 | same true cluster`, or
    /// [`IN_EVENTS`].
    codes: Vec<u16>,
    events: Vec<Event>,
    deltas: Vec<Delta>,
    checkpoints: Vec<Checkpoint>,
}

/// A predicted cluster of two pages or more, as the merges need it.
#[derive(Debug, Clone)]
struct Component {
    /// Pages per slice, by slice.
    slices: Vec<(u16, u64)>,
    /// Per true cluster, its pages here per slice, by slice.
    clusters: HashMap<u32, Vec<(u16, u64)>>,
    /// The page the retention rule keeps.
    kept: u32,
    min_page: u32,
}

impl Component {
    fn single(truth: &Truth, page: u32) -> Self {
        let slice = truth.slice[page as usize];
        Component {
            slices: vec![(slice, 1)],
            clusters: HashMap::from([(truth.cluster[page as usize], vec![(slice, 1)])]),
            kept: page,
            min_page: page,
        }
    }

    fn in_cluster(&self, cluster: u32) -> &[(u16, u64)] {
        self.clusters.get(&cluster).map_or(&[], |v| v.as_slice())
    }
}

/// Adds two per-slice histograms.
fn merge_histograms(a: &[(u16, u64)], b: &[(u16, u64)]) -> Vec<(u16, u64)> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let next = match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x.0 == y.0 => {
                i += 1;
                j += 1;
                (x.0, x.1 + y.1)
            }
            (Some(x), Some(y)) if x.0 < y.0 => {
                i += 1;
                *x
            }
            (Some(x), None) => {
                i += 1;
                *x
            }
            (_, Some(y)) => {
                j += 1;
                *y
            }
            (None, None) => unreachable!("the loop runs while either has items"),
        };
        out.push(next);
    }
    out
}

/// Pairs between two page sets given as per-slice histograms, per slice of
/// the pair (the later slice of its two pages).
fn cross_by_slice(a: &[(u16, u64)], b: &[(u16, u64)], mut add: impl FnMut(u16, u64)) {
    let (mut i, mut j) = (0, 0);
    let (mut before_a, mut before_b) = (0u64, 0u64);
    while i < a.len() || j < b.len() {
        let slice = match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) => x.0.min(y.0),
            (Some(x), None) => x.0,
            (None, Some(y)) => y.0,
            (None, None) => unreachable!("the loop runs while either has items"),
        };
        let na = match a.get(i) {
            Some(x) if x.0 == slice => {
                i += 1;
                x.1
            }
            _ => 0,
        };
        let nb = match b.get(j) {
            Some(y) if y.0 == slice => {
                j += 1;
                y.1
            }
            _ => 0,
        };
        let pairs = na * before_b + nb * before_a + na * nb;
        if pairs > 0 {
            add(slice, pairs);
        }
        before_a += na;
        before_b += nb;
    }
}

/// Builds the curve: the union-find and the components of the walk.
struct CurveBuilder<'a> {
    truth: &'a Truth,
    slices: usize,
    sets: UnionFind,
    components: HashMap<u32, Component>,
    largest: (LargestCluster, u32),
    cells: Vec<(u64, u64)>,
    events: Vec<Event>,
    deltas: Vec<Delta>,
    /// Deltas of the event being built, by cell.
    pending: HashMap<u32, (i64, i64)>,
}

/// What counting a group's pairs reuses from one group to the next.
struct GroupCounts {
    members: Vec<(u32, u16)>,
    scratch: Vec<u16>,
    /// Per slice, the group's pairs and its true pairs.
    detected: Vec<u64>,
    correct: Vec<u64>,
}

impl CurveBuilder<'_> {
    /// Adds every pair of a group's pages, per slice, and joins its pages.
    #[inline]
    fn add_group(&mut self, group: &PageGroup, counts: &mut GroupCounts) {
        let GroupCounts {
            members,
            scratch,
            detected,
            correct,
        } = counts;
        group_members(self.truth, &group.pages, members);
        detected.iter_mut().for_each(|x| *x = 0);
        correct.iter_mut().for_each(|x| *x = 0);
        add_group_pairs(members, scratch, detected, correct);
        for s in 0..self.slices {
            self.add(PAIRWISE, s as u16, detected[s] as i64, correct[s] as i64);
        }
        for w in group.pages.windows(2) {
            self.union(w[0], w[1]);
        }
    }

    fn cell(&self, level: usize, slice: u16) -> u32 {
        (level * self.slices + slice as usize) as u32
    }

    fn add(&mut self, level: usize, slice: u16, detected: i64, correct: i64) {
        let cell = self.cell(level, slice);
        let d = self.pending.entry(cell).or_default();
        d.0 += detected;
        d.1 += correct;
    }

    /// Closes the event of item `item`: its deltas applied and recorded.
    fn close(&mut self, item: usize) {
        let mut deltas: Vec<(u32, (i64, i64))> =
            self.pending.drain().filter(|(_, d)| *d != (0, 0)).collect();
        deltas.sort_unstable_by_key(|d| d.0);
        for (cell, (detected, correct)) in deltas {
            let c = &mut self.cells[cell as usize];
            c.0 = c.0.wrapping_add_signed(detected);
            c.1 = c.1.wrapping_add_signed(correct);
            self.deltas.push(Delta {
                cell,
                detected,
                correct,
            });
        }
        self.events.push(Event {
            item: item as u32,
            end: self.deltas.len() as u32,
            largest: self.largest.0,
        });
    }

    /// Joins the predicted clusters of pages `a` and `b`; returns whether
    /// they were apart.
    fn union(&mut self, a: u32, b: u32) -> bool {
        let Some((big, small)) = self.sets.union(a, b) else {
            return false;
        };
        let truth = self.truth;
        let take = |components: &mut HashMap<u32, Component>, root: u32| {
            components
                .remove(&root)
                .unwrap_or_else(|| Component::single(truth, root))
        };
        let mut large = take(&mut self.components, big);
        let small_part = take(&mut self.components, small);

        let mut clustered: Vec<(u16, u64, u64)> = Vec::new();
        cross_by_slice(&large.slices, &small_part.slices, |s, n| {
            clustered.push((s, n, 0))
        });
        for (c, h) in &small_part.clusters {
            cross_by_slice(large.in_cluster(*c), h, |s, n| clustered.push((s, 0, n)));
        }
        for (s, detected, correct) in clustered {
            self.add(CLUSTERED, s, detected as i64, correct as i64);
        }

        // The retention rule keeps one of the two kept pages; the other
        // becomes a detected page, and the pages on its side are now
        // judged against the new kept page's cluster.
        let rank = |p: u32| truth.retention_rank[p as usize];
        let (winner, loser, loser_side) = if rank(large.kept) < rank(small_part.kept) {
            (large.kept, small_part.kept, &small_part)
        } else {
            (small_part.kept, large.kept, &large)
        };
        let (kept_cluster, loser_cluster) = (
            truth.cluster[winner as usize],
            truth.cluster[loser as usize],
        );
        let loser_slice = truth.slice[loser as usize];
        let mut page: Vec<(u16, i64)> = vec![(loser_slice, 1)];
        page.extend(
            loser_side
                .in_cluster(kept_cluster)
                .iter()
                .map(|&(s, n)| (s, n as i64)),
        );
        page.extend(
            loser_side
                .in_cluster(loser_cluster)
                .iter()
                .map(|&(s, n)| (s, -(n as i64))),
        );
        self.add(PAGE, loser_slice, 1, 0);
        for (s, n) in page {
            self.add(PAGE, s, 0, n);
        }

        large.slices = merge_histograms(&large.slices, &small_part.slices);
        for (c, h) in small_part.clusters {
            let merged = merge_histograms(large.in_cluster(c), &h);
            large.clusters.insert(c, merged);
        }
        large.kept = winner;
        large.min_page = large.min_page.min(small_part.min_page);
        let pages = u64::from(self.sets.size_of_root(big));
        let (best, best_min) = self.largest;
        if pages > best.pages || (pages == best.pages && large.min_page < best_min) {
            self.largest = (
                LargestCluster {
                    pages,
                    true_clusters: large.clusters.len() as u64,
                },
                large.min_page,
            );
        }
        self.components.insert(big, large);
        true
    }
}

/// A pair or a group of identical pages, as [`ThresholdCurve::build`]
/// ranks them: a group's index carries this bit.
const GROUP: u32 = 1 << 31;

/// A sampled pair of a sampled component carries this bit, and its index
/// among all the components' sampled pairs.
const SAMPLE: u32 = 1 << 30;

/// The stored pairs and groups that pass the gates, as (score, index),
/// best first; NaN, which passes no threshold, last.
fn ranked_items(
    pairs: &[ScoredPair],
    gate_scores: &[crate::algo::GateScores],
    groups: &[PageGroup],
    samples: &[ScoredPair],
    gate_thresholds: &[f64],
    scale: &ScoreScale,
) -> Vec<(f32, u32)> {
    let gated = |i: usize| {
        gate_scores
            .get(i)
            .is_none_or(|g| passes_gates(g, gate_thresholds))
    };
    let mut items: Vec<(f32, u32)> = pairs
        .iter()
        .enumerate()
        .filter(|&(i, _)| gated(i))
        .map(|(i, p)| (p.score, i as u32))
        .collect();
    items.extend(
        groups
            .iter()
            .enumerate()
            .filter(|(_, g)| passes_gates(&g.gate_scores, gate_thresholds))
            .map(|(k, g)| (g.score, GROUP | k as u32)),
    );
    items.extend(
        samples
            .iter()
            .enumerate()
            .map(|(k, p)| (p.score, SAMPLE | k as u32)),
    );
    // Best first; NaN, which passes no threshold, last.
    let key = |s: f32| match scale.direction {
        Direction::AtLeast => -s,
        Direction::AtMost => s,
    };
    items.sort_unstable_by(|x, y| {
        (x.0.is_nan(), key(x.0))
            .partial_cmp(&(y.0.is_nan(), key(y.0)))
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(x.1.cmp(&y.1))
    });
    items
}

impl ThresholdCurve {
    /// The curve of stored `pairs` (with `gate_scores` parallel to them, or
    /// empty) and `groups`, through gates at `gate_thresholds`.
    pub fn new(
        truth: &Truth,
        pairs: &[ScoredPair],
        gate_scores: &[crate::algo::GateScores],
        groups: &[PageGroup],
        gate_thresholds: &[f64],
        scale: &ScoreScale,
    ) -> Self {
        Self::build(
            truth,
            pairs,
            gate_scores,
            (groups, &[]),
            gate_thresholds,
            scale,
            MAX_RUNS,
        )
    }

    /// `counted` are the groups and the sampled components.
    fn build(
        truth: &Truth,
        pairs: &[ScoredPair],
        gate_scores: &[crate::algo::GateScores],
        counted: (&[PageGroup], &[SampledComponent]),
        gate_thresholds: &[f64],
        scale: &ScoreScale,
        max_runs: usize,
    ) -> Self {
        let (groups, sampled) = counted;
        assert!(
            pairs.len() < SAMPLE as usize,
            "fewer than 2^30 stored pairs"
        );
        // Each sampled pair with the pairs of its component it stands for.
        let (samples, weights): (Vec<ScoredPair>, Vec<u64>) = sampled
            .iter()
            .flat_map(|c| (0..c.sample.len()).map(move |k| (c.sample[k], c.weight(k))))
            .unzip();
        let items = ranked_items(pairs, gate_scores, groups, &samples, gate_thresholds, scale);

        let slices = truth.slice_names.len();
        let n = truth.pages();
        let mut builder = CurveBuilder {
            truth,
            slices,
            sets: UnionFind::new(n),
            components: HashMap::new(),
            largest: (LargestCluster::default(), u32::MAX),
            cells: vec![(0, 0); 3 * slices],
            events: Vec::new(),
            deltas: Vec::new(),
            pending: HashMap::new(),
        };
        let codable = slices <= (IN_EVENTS as usize) >> 1;
        let mut scores = Vec::with_capacity(items.len());
        let mut codes = Vec::with_capacity(items.len());
        let mut checkpoints = Vec::with_capacity(items.len() / STRIDE + 1);
        let mut group_counts = GroupCounts {
            members: Vec::new(),
            scratch: Vec::new(),
            detected: vec![0u64; slices],
            correct: vec![0u64; slices],
        };
        let mut runs: Option<Vec<Run>> = Some(Vec::new());
        let end_run = |runs: &mut Option<Vec<Run>>, score: f32, builder: &CurveBuilder| {
            if runs.as_ref().is_some_and(|r| r.len() >= max_runs) {
                *runs = None;
            }
            if let Some(r) = runs {
                r.push(Run {
                    score,
                    cells: builder.cells.clone(),
                    largest: builder.largest.0,
                });
            }
        };
        for (position, &(score, id)) in items.iter().enumerate() {
            if position > 0 && score != items[position - 1].0 {
                end_run(&mut runs, items[position - 1].0, &builder);
            }
            if position % STRIDE == 0 {
                checkpoints.push(Checkpoint {
                    cells: builder.cells.clone(),
                    events: builder.events.len() as u32,
                });
            }
            scores.push(score);
            if id & GROUP == 0 && id & SAMPLE != 0 {
                let k = (id & !SAMPLE) as usize;
                let (pair, weight) = (samples[k], weights[k] as i64);
                let same = truth.cluster[pair.a as usize] == truth.cluster[pair.b as usize];
                codes.push(IN_EVENTS);
                let slice = truth.pair_slice(pair.a, pair.b);
                builder.add(PAIRWISE, slice, weight, if same { weight } else { 0 });
            } else if id & GROUP == 0 {
                let pair = pairs[id as usize];
                let slice = truth.pair_slice(pair.a, pair.b);
                let same = truth.cluster[pair.a as usize] == truth.cluster[pair.b as usize];
                if codable {
                    codes.push(slice << 1 | u16::from(same));
                    let cell = builder.cell(PAIRWISE, slice) as usize;
                    let c = &mut builder.cells[cell];
                    c.0 += 1;
                    c.1 += u64::from(same);
                } else {
                    codes.push(IN_EVENTS);
                    builder.add(PAIRWISE, slice, 1, i64::from(same));
                }
                builder.union(pair.a, pair.b);
            } else {
                codes.push(IN_EVENTS);
                builder.add_group(&groups[(id & !GROUP) as usize], &mut group_counts);
            }
            if !builder.pending.is_empty() {
                builder.close(position);
            }
        }
        if let Some(&(score, _)) = items.last() {
            end_run(&mut runs, score, &builder);
        }
        if runs.is_some() {
            return ThresholdCurve {
                scale: scale.clone(),
                slices,
                items: items.len(),
                runs,
                actual_pairs: truth.actual_pairs.clone(),
                actual_pages: truth.actual_pages.clone(),
                scores: Vec::new(),
                codes: Vec::new(),
                events: Vec::new(),
                deltas: Vec::new(),
                checkpoints: Vec::new(),
            };
        }
        ThresholdCurve {
            scale: scale.clone(),
            slices,
            items: items.len(),
            runs: None,
            actual_pairs: truth.actual_pairs.clone(),
            actual_pages: truth.actual_pages.clone(),
            scores,
            codes,
            events: builder.events,
            deltas: builder.deltas,
            checkpoints,
        }
    }

    /// The curve of an algorithm run through gates at `gate_thresholds`.
    pub fn of_run(truth: &Truth, run: &crate::algo::AlgorithmRun, gate_thresholds: &[f64]) -> Self {
        let gate_scores = if run.gates.is_empty() || run.gate_scores.len() != run.pairs.len() {
            &[][..]
        } else {
            &run.gate_scores[..]
        };
        ThresholdCurve::build(
            truth,
            &run.pairs,
            gate_scores,
            (&run.groups, &run.sampled),
            gate_thresholds,
            &run.scale,
            MAX_RUNS,
        )
    }

    /// Judged items (stored pairs and groups through the gates).
    pub fn items(&self) -> usize {
        self.items
    }

    /// The distinct scores of the judged items, best first: the thresholds
    /// at which the metrics change.
    pub fn distinct_scores(&self) -> Vec<f32> {
        if let Some(runs) = &self.runs {
            return runs.iter().map(|r| r.score).collect();
        }
        let mut out: Vec<f32> = self.scores.clone();
        out.dedup_by(|a, b| a == b);
        out
    }

    /// The evaluation at `threshold`: what [`super::evaluate_grouped`]
    /// gives on the same pairs, groups and gates.
    pub fn at(&self, threshold: f64) -> Evaluation {
        if let Some(runs) = &self.runs {
            let judged = runs.partition_point(|r| self.scale.passes(r.score, threshold));
            return match judged {
                0 => self.evaluation(
                    threshold,
                    &vec![(0, 0); 3 * self.slices],
                    Default::default(),
                ),
                k => self.evaluation(threshold, &runs[k - 1].cells, runs[k - 1].largest),
            };
        }
        let judged = self
            .scores
            .partition_point(|&s| self.scale.passes(s, threshold));
        let mut cells = vec![(0u64, 0u64); 3 * self.slices];
        let mut first_event = 0usize;
        let mut from = 0usize;
        if judged > 0 {
            let k = (judged - 1) / STRIDE;
            let checkpoint = &self.checkpoints[k];
            cells.clone_from(&checkpoint.cells);
            first_event = checkpoint.events as usize;
            from = k * STRIDE;
        }
        for &code in &self.codes[from..judged] {
            if code != IN_EVENTS {
                let c = &mut cells[PAIRWISE * self.slices + (code >> 1) as usize];
                c.0 += 1;
                c.1 += u64::from(code & 1);
            }
        }
        let last_event = self.events.partition_point(|e| (e.item as usize) < judged);
        let mut start = match first_event {
            0 => 0,
            e => self.events[e - 1].end as usize,
        };
        for event in &self.events[first_event..last_event] {
            for d in &self.deltas[start..event.end as usize] {
                let c = &mut cells[d.cell as usize];
                c.0 = c.0.wrapping_add_signed(d.detected);
                c.1 = c.1.wrapping_add_signed(d.correct);
            }
            start = event.end as usize;
        }
        let largest = match last_event {
            0 => LargestCluster::default(),
            e => self.events[e - 1].largest,
        };
        self.evaluation(threshold, &cells, largest)
    }

    fn evaluation(
        &self,
        threshold: f64,
        cells: &[(u64, u64)],
        largest_cluster: LargestCluster,
    ) -> Evaluation {
        let level = |level: usize, actual: &[u64]| {
            LevelMetrics::from_slices(
                (0..self.slices)
                    .map(|s| {
                        let (detected, correct) = cells[level * self.slices + s];
                        Counts {
                            actual: actual[s],
                            detected,
                            correct,
                        }
                    })
                    .collect(),
            )
        };
        Evaluation {
            threshold,
            pairwise: level(PAIRWISE, &self.actual_pairs),
            clustered: level(CLUSTERED, &self.actual_pairs),
            page: level(PAGE, &self.actual_pages),
            largest_cluster,
        }
    }

    /// Evaluations at each of `thresholds`.
    pub fn at_each(&self, thresholds: &[f64]) -> Vec<Evaluation> {
        thresholds.iter().map(|&t| self.at(t)).collect()
    }

    /// Bytes the curve holds, for the notes and the benchmark.
    pub fn memory_bytes(&self) -> usize {
        self.scores.len() * 4
            + self.codes.len() * 2
            + self.events.len() * std::mem::size_of::<Event>()
            + self.deltas.len() * std::mem::size_of::<Delta>()
            + self.checkpoints.len() * (3 * self.slices * 16 + 32)
            + self
                .runs
                .as_ref()
                .map_or(0, |r| r.len() * (3 * self.slices * 16 + 48))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::{GateScores, MAX_GATES};
    use crate::corpus::{Content, Page, Published};
    use crate::eval::choose::reachable_thresholds;
    use crate::eval::evaluate_grouped;
    use crate::util::rng::SplitMix64;

    /// `copies` of one 300-word story, each with one to three words
    /// replaced, inserted or deleted, then `unique` pages of their own
    /// words; with the truth saying so.
    fn near_identical(copies: usize, unique: usize) -> (Vec<crate::algo::Document>, Truth) {
        let mut rng = SplitMix64::new(49);
        let word = |rng: &mut SplitMix64| format!("w{}", rng.below(5000));
        let story: Vec<String> = (0..300).map(|_| word(&mut rng)).collect();
        let mut texts: Vec<String> = (0..copies)
            .map(|_| {
                let mut words = story.clone();
                for _ in 0..1 + rng.below(3) {
                    let at = rng.below(words.len());
                    match rng.below(3) {
                        0 => words[at] = word(&mut rng),
                        1 => words.insert(at, word(&mut rng)),
                        _ => drop(words.remove(at)),
                    }
                }
                words.join(" ")
            })
            .collect();
        texts.extend((0..unique).map(|_| {
            (0..200)
                .map(|_| word(&mut rng))
                .collect::<Vec<_>>()
                .join(" ")
        }));
        let pages: Vec<Page> = (0..texts.len())
            .map(|i| {
                let cluster = if i < copies {
                    "story".into()
                } else {
                    format!("u{i}")
                };
                Page::new(format!("p{i}"), cluster, Content::Text(texts[i].clone()))
            })
            .collect();
        let truth = Truth::new(&pages, &vec![1; pages.len()]);
        let docs = crate::algo::Document::many(texts.len(), &Default::default(), |i| {
            (texts[i].clone(), Some(crate::text::Lang::En))
        });
        (docs, truth)
    }

    /// The demo's MinHash (LSH 26x4 for 0.5) over `docs`, components of
    /// more than `big_component` signatures sampled.
    fn minhash_run(
        docs: &[crate::algo::Document],
        big_component: usize,
    ) -> crate::algo::AlgorithmRun {
        let mut detector = crate::algo::shingling::config::MinhashConfig::default().detector();
        let mut clock = crate::util::stage::StageClock::new(docs.len(), 0);
        let budget = crate::algo::DEFAULT_PAIR_BUDGET_BYTES;
        crate::algo::run_detector(
            &mut detector,
            docs,
            "test",
            &mut clock,
            budget,
            big_component,
        )
    }

    #[test]
    fn a_sampled_component_is_within_its_bound_of_the_exact_counts() {
        let (docs, truth) = near_identical(400, 40);
        let exact = minhash_run(&docs, usize::MAX);
        let sampled = minhash_run(&docs, 50);
        assert!(exact.sampled.is_empty());
        let [component] = &sampled.sampled[..] else {
            panic!("one sampled component, not {}", sampled.sampled.len());
        };
        assert_eq!(component.pages, (0..400).collect::<Vec<u32>>());
        // The links and the unique pages' few pairs are listed, not the
        // component's 79,800 pairs.
        assert!(exact.pairs.len() > 70_000, "{}", exact.pairs.len());
        assert!(sampled.pairs.len() < 1_000, "{}", sampled.pairs.len());
        assert_eq!(
            component.pairs + sampled.pairs.len() as u64,
            exact.pairs.len() as u64
        );
        assert!(sampled.notes.iter().any(|n| n.contains("±1.06%")));
        let bound = (component.error_bound() * component.pairs as f64).ceil() as u64;
        let curve = ThresholdCurve::of_run(&truth, &sampled, &[]);
        let thresholds: Vec<f64> = exact.pairs.iter().map(|p| f64::from(p.score)).collect();
        let (lowest, highest) = (
            thresholds.iter().copied().fold(1.0, f64::min),
            thresholds.iter().copied().fold(0.0, f64::max),
        );
        assert!(
            highest - lowest > 0.05,
            "scores {lowest}..{highest} must spread"
        );
        let mut split = 0;
        for step in 0..=10 {
            let t = lowest + (highest - lowest) * f64::from(step) / 10.0;
            let want = evaluate_grouped(&truth, &exact.pairs, &exact.groups, &[], &exact.scale, t);
            let got = crate::eval::evaluate_sampled(
                &truth,
                &sampled.pairs,
                &sampled.groups,
                &sampled.sampled,
                &[],
                &sampled.scale,
                t,
            );
            assert_eq!(curve.at(t), got, "the curve at {t}");
            let (w, g) = (want.pairwise.overall, got.pairwise.overall);
            assert!(
                w.detected.abs_diff(g.detected) <= bound,
                "{t}: {w:?} vs {g:?} ± {bound}"
            );
            assert!(
                w.correct.abs_diff(g.correct) <= bound,
                "{t}: {w:?} vs {g:?} ± {bound}"
            );
            split += usize::from(w.detected > 0 && w.detected < 79_000);
        }
        assert!(
            split >= 3,
            "thresholds inside the component's scores: {split}"
        );
    }

    #[test]
    fn ordinary_inputs_are_scored_exactly() {
        // Buckets of at most 40 copies: under the limit, nothing changes.
        let (docs, _) = near_identical(40, 60);
        let exact = minhash_run(&docs, usize::MAX);
        let run = minhash_run(&docs, crate::algo::BIG_COMPONENT);
        assert!(run.sampled.is_empty());
        assert_eq!(run.pairs, exact.pairs);
        let groups = |r: &crate::algo::AlgorithmRun| {
            let g = r.groups.iter().map(|g| (g.pages.clone(), g.score));
            g.collect::<Vec<_>>()
        };
        assert_eq!(groups(&run), groups(&exact));
        assert_eq!(run.candidates, exact.candidates);
        assert_eq!(run.candidate_pairs, exact.candidate_pairs);
        assert_eq!(run.notes, exact.notes);
        assert!(
            exact.pairs.len() >= 40 * 39 / 2 - 10,
            "{}",
            exact.pairs.len()
        );
    }

    /// Pages in a few true clusters and slices, some published, with
    /// text lengths that tie, so that retention reaches every rule.
    fn random_truth(rng: &mut SplitMix64, n: usize) -> Truth {
        let clusters = 1 + rng.below(n / 2 + 1);
        let kinds = ["original", "full", "partial", "unique"];
        let pages: Vec<Page> = (0..n)
            .map(|i| {
                let mut p = Page::new(
                    format!("p{i}"),
                    format!("c{}", rng.below(clusters)),
                    Content::Text("x".into()),
                );
                p.kind = Some(kinds[rng.below(4)].into());
                p.category = Some(["news", "prose"][rng.below(2)].into());
                p.published = (rng.below(3) > 0).then(|| Published::Int(rng.below(5) as i64));
                p
            })
            .collect();
        let lengths: Vec<usize> = (0..n).map(|_| rng.below(4)).collect();
        Truth::new(&pages, &lengths)
    }

    fn random_scale(rng: &mut SplitMix64) -> ScoreScale {
        if rng.below(2) == 0 {
            ScoreScale {
                name: "hamming distance",
                direction: Direction::AtMost,
                min: 0.0,
                max: 16.0,
                floor: 12.0,
            }
        } else {
            ScoreScale {
                name: "jaccard",
                direction: Direction::AtLeast,
                min: 0.0,
                max: 1.0,
                floor: 0.3,
            }
        }
    }

    /// A score on the scale, from a few values so that scores tie.
    fn random_score(rng: &mut SplitMix64, scale: &ScoreScale) -> f32 {
        match scale.direction {
            Direction::AtMost => rng.below(17) as f32,
            Direction::AtLeast => (rng.below(21) as f32) / 20.0,
        }
    }

    fn random_gates(rng: &mut SplitMix64) -> GateScores {
        let mut g = [f32::NAN; MAX_GATES];
        for s in g.iter_mut() {
            if rng.below(4) > 0 {
                *s = rng.below(11) as f32 / 10.0;
            }
        }
        g
    }

    #[test]
    fn lookups_equal_evaluations_at_every_threshold() {
        let mut rng = SplitMix64::new(0x9e37_79b9_7f4a_7c15);
        for case in 0..300 {
            let n = 2 + rng.below(40);
            let truth = random_truth(&mut rng, n);
            let scale = random_scale(&mut rng);
            let with_gates = rng.below(3) == 0;

            // Disjoint groups of identical signatures, then pairs among the
            // rest and the groups' first pages, as runs store them.
            let mut order: Vec<u32> = (0..n as u32).collect();
            for i in (1..n).rev() {
                order.swap(i, rng.below(i + 1));
            }
            let mut groups = Vec::new();
            let mut in_group = vec![false; n];
            let mut rest = &order[..];
            while rest.len() > 2 && rng.below(3) == 0 {
                let take = 2 + rng.below(rest.len().min(6) - 1);
                let mut pages = rest[..take].to_vec();
                pages.sort_unstable();
                pages[1..].iter().for_each(|&p| in_group[p as usize] = true);
                groups.push(PageGroup {
                    pages,
                    score: random_score(&mut rng, &scale),
                    gate_scores: if with_gates {
                        random_gates(&mut rng)
                    } else {
                        [f32::NAN; MAX_GATES]
                    },
                });
                rest = &rest[take..];
            }
            let free: Vec<u32> = (0..n as u32).filter(|&p| !in_group[p as usize]).collect();
            let mut pairs = Vec::new();
            for (i, &a) in free.iter().enumerate() {
                for &b in &free[i + 1..] {
                    if rng.below(3) == 0 {
                        pairs.push(ScoredPair {
                            a,
                            b,
                            score: random_score(&mut rng, &scale),
                        });
                    }
                }
            }
            let gate_scores: Vec<GateScores> = if with_gates {
                pairs.iter().map(|_| random_gates(&mut rng)).collect()
            } else {
                Vec::new()
            };
            let gate_thresholds: Vec<f64> = if with_gates {
                vec![rng.below(11) as f64 / 10.0, rng.below(11) as f64 / 10.0]
            } else {
                Vec::new()
            };
            let gated: Vec<ScoredPair> = pairs
                .iter()
                .enumerate()
                .filter(|(i, _)| {
                    gate_scores
                        .get(*i)
                        .is_none_or(|g| passes_gates(g, &gate_thresholds))
                })
                .map(|(_, p)| *p)
                .collect();

            // Per score when it may, per item when it may not.
            let max_runs = [MAX_RUNS, 0][case % 2];
            let curve = ThresholdCurve::build(
                &truth,
                &pairs,
                &gate_scores,
                (&groups, &[]),
                &gate_thresholds,
                &scale,
                max_runs,
            );
            assert_eq!(curve.runs.is_some(), max_runs > 0 || curve.items() == 0);
            let mut thresholds = reachable_thresholds(&scale);
            thresholds.extend((0..10).map(|_| match scale.direction {
                Direction::AtMost => rng.below(180) as f64 / 10.0 - 0.5,
                Direction::AtLeast => rng.below(1200) as f64 / 1000.0 - 0.1,
            }));
            thresholds.extend(curve.distinct_scores().iter().map(|&s| f64::from(s)));
            for t in thresholds {
                let expected =
                    evaluate_grouped(&truth, &gated, &groups, &gate_thresholds, &scale, t);
                assert_eq!(
                    curve.at(t),
                    expected,
                    "case {case} at threshold {t}: {n} pages, {} pairs, {} groups",
                    pairs.len(),
                    groups.len()
                );
            }
        }
    }

    #[test]
    fn lookups_cross_saved_states() {
        // More items than a stride, so lookups start from saved states.
        let mut rng = SplitMix64::new(42);
        let n = 3000;
        let truth = random_truth(&mut rng, n);
        let scale = random_scale(&mut rng);
        let mut pairs: Vec<ScoredPair> = (0..3 * STRIDE)
            .map(|_| {
                let (a, b) = (rng.below(n) as u32, rng.below(n) as u32);
                ScoredPair {
                    a: a.min(b),
                    b: a.max(b),
                    score: random_score(&mut rng, &scale),
                }
            })
            .filter(|p| p.a != p.b)
            .collect();
        pairs.sort_unstable_by_key(|p| (p.a, p.b));
        pairs.dedup_by_key(|p| (p.a, p.b));
        let curve = ThresholdCurve::build(&truth, &pairs, &[], (&[], &[]), &[], &scale, 4);
        assert!(curve.runs.is_none() && curve.checkpoints.len() > 2);
        for t in curve.distinct_scores() {
            let t = f64::from(t);
            assert_eq!(
                curve.at(t),
                evaluate_grouped(&truth, &pairs, &[], &[], &scale, t)
            );
        }
    }
}
