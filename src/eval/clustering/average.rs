//! Average linkage (UPGMA) over the sparse graph of stored pairs.
//!
//! Two clusters' linkage is the mean, over every pair of their pages, of
//! how much closer the pair is than two unrelated pages. A pair that was
//! never stored (below the floor, or never a candidate) adds nothing, as
//! if unrelated: a lower bound, so the method never merges on scores it
//! did not see. Clusters merge best first while their linkage passes the
//! threshold. Each merge folds the smaller neighbour map into the larger,
//! so the work is near-linear in the stored pairs for the sparse graphs
//! a threshold leaves.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use rustc_hash::FxHashMap;

use super::{closest_first, ClusterInput};
use crate::algo::{Direction, SampledComponent, ScoreScale, ScoredPair};

/// A merge waiting in the heap, valid while neither cluster has changed
/// since it was pushed (`stamps`).
struct Candidate {
    linkage: f64,
    u: u32,
    v: u32,
    stamps: (u32, u32),
}

impl PartialEq for Candidate {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Candidate {}

impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Candidate {
    /// The highest linkage first; ties to the lower nodes, so the answer
    /// depends on the input alone.
    fn cmp(&self, other: &Self) -> Ordering {
        self.linkage
            .total_cmp(&other.linkage)
            .then_with(|| other.u.cmp(&self.u))
            .then_with(|| other.v.cmp(&self.v))
    }
}

/// How much closer than two unrelated pages a score is: what a pair adds
/// to its clusters' sum (a pair never stored adds nothing).
pub(super) fn lift(scale: &ScoreScale) -> impl Fn(f64) -> f64 {
    let unrelated = scale.unrelated();
    let direction = scale.direction;
    move |score| match direction {
        Direction::AtLeast => score - unrelated,
        Direction::AtMost => unrelated - score,
    }
}

/// One merge: cluster `gone` joined cluster `keep` at `linkage`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Merge {
    pub(super) linkage: f64,
    keep: u32,
    gone: u32,
}

/// Per node, the head of its cluster (a node of it), sampled components
/// collapsed first (see [`collapse_sampled`]).
pub(super) fn average_linkage(input: &ClusterInput, node_of: &mut [u32]) -> Vec<u32> {
    let needed = lift(input.scale)(input.threshold);
    collapse_sampled(input.sampled, input.scale, needed, node_of);
    let merges = merges(input.pages, input.pairs, node_of, input.scale, needed);
    heads(input.pages, &merges)
}

/// A sampled component whose sampled pairs pass on average (their mean
/// lift is at least `needed`) becomes one node, written to `node_of`: its
/// pairs are too many to weigh one by one, and the sample estimates their
/// mean. Returns how many components collapsed: more as `needed` falls.
pub(super) fn collapse_sampled(
    sampled: &[SampledComponent],
    scale: &ScoreScale,
    needed: f64,
    node_of: &mut [u32],
) -> usize {
    let mut collapsed = 0;
    for component in sampled
        .iter()
        .filter(|c| passes_on_average(c, scale, needed))
    {
        let head = node_of[component.pages[0] as usize];
        for &p in &component.pages {
            node_of[p as usize] = head;
        }
        collapsed += 1;
    }
    collapsed
}

/// Whether `component`'s sampled pairs lift at least `needed` on average.
pub(super) fn passes_on_average(
    component: &SampledComponent,
    scale: &ScoreScale,
    needed: f64,
) -> bool {
    let lift = lift(scale);
    let sample = &component.sample;
    let mean =
        sample.iter().map(|p| lift(f64::from(p.score))).sum::<f64>() / sample.len().max(1) as f64;
    !sample.is_empty() && mean >= needed
}

/// Per node, the head of its cluster after `merges`.
pub(super) fn heads(pages: usize, merges: &[Merge]) -> Vec<u32> {
    let mut head: Vec<u32> = (0..pages as u32).collect();
    for m in merges {
        head[m.gone as usize] = m.keep;
    }
    for node in 0..pages {
        let mut root = head[node];
        while head[root as usize] != root {
            root = head[root as usize];
        }
        let mut on_path = node as u32;
        while head[on_path as usize] != root {
            let next = head[on_path as usize];
            head[on_path as usize] = root;
            on_path = next;
        }
    }
    head
}

/// The merges of average linkage over the nodes of `node_of` while the
/// best linkage is at least `needed`, best first.
pub(super) fn merges(
    pages: usize,
    pairs: &[ScoredPair],
    node_of: &[u32],
    scale: &ScoreScale,
    needed: f64,
) -> Vec<Merge> {
    let lift = lift(scale);
    let mut size = vec![0u64; pages];
    for &node in node_of {
        size[node as usize] += 1;
    }
    let mut sums: Vec<FxHashMap<u32, f64>> = Vec::new();
    sums.resize_with(pages, FxHashMap::default);
    // The stored pairs come sorted, best first: they wait in that list,
    // and only the linkages merges make go through the heap.
    let mut initial: Vec<Candidate> = Vec::new();
    for (closeness, u, v) in closest_first(pairs, node_of, scale.direction) {
        let score = match scale.direction {
            Direction::AtLeast => f64::from(closeness),
            Direction::AtMost => -f64::from(closeness),
        };
        // Nodes are groups of identical signatures: every pair across two
        // of them scores the same.
        let weight = lift(score) * (size[u as usize] * size[v as usize]) as f64;
        sums[u as usize].insert(v, weight);
        sums[v as usize].insert(u, weight);
        if lift(score) >= needed {
            initial.push(Candidate {
                linkage: lift(score),
                u,
                v,
                stamps: (0, 0),
            });
        }
    }
    if !initial.is_sorted_by(|x, y| x >= y) {
        initial.sort_unstable_by(|x, y| y.cmp(x));
    }
    let mut initial = initial.into_iter().peekable();
    let mut heap = BinaryHeap::new();
    let next = |initial: &mut std::iter::Peekable<_>, heap: &mut BinaryHeap<Candidate>| match (
        initial.peek(),
        heap.peek(),
    ) {
        (Some(listed), Some(made)) if listed < made => heap.pop(),
        (Some(_), _) => initial.next(),
        (None, _) => heap.pop(),
    };
    let mut alive = vec![true; pages];
    let mut stamp = vec![0u32; pages];
    let mut done = Vec::new();
    while let Some(c) = next(&mut initial, &mut heap) {
        let (u, v) = (c.u as usize, c.v as usize);
        if !alive[u] || !alive[v] || (stamp[u], stamp[v]) != c.stamps {
            continue;
        }
        let (keep, gone) = if sums[u].len() >= sums[v].len() {
            (c.u, c.v)
        } else {
            (c.v, c.u)
        };
        let gone_links = std::mem::take(&mut sums[gone as usize]);
        for (other, weight) in gone_links {
            if other == keep {
                continue;
            }
            *sums[keep as usize].entry(other).or_insert(0.0) += weight;
            let theirs = &mut sums[other as usize];
            theirs.remove(&gone);
            *theirs.entry(keep).or_insert(0.0) += weight;
        }
        sums[keep as usize].remove(&gone);
        size[keep as usize] += size[gone as usize];
        alive[gone as usize] = false;
        stamp[keep as usize] += 1;
        done.push(Merge {
            linkage: c.linkage,
            keep,
            gone,
        });
        for (&other, &weight) in &sums[keep as usize] {
            let linkage = weight / (size[keep as usize] * size[other as usize]) as f64;
            if linkage >= needed {
                let (a, b) = (keep.min(other), keep.max(other));
                heap.push(Candidate {
                    linkage,
                    u: a,
                    v: b,
                    stamps: (stamp[a as usize], stamp[b as usize]),
                });
            }
        }
    }
    done
}
