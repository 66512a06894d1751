//! Manku, Jain and Das Sarma's permuted tables (seed 004): find every
//! stored 64-bit fingerprint within Hamming distance k of a query without
//! scanning them all.
//!
//! The 64 bits are cut into blocks. If two fingerprints differ in at most k
//! bits and the layout has b blocks, at least b - k blocks are identical
//! (pigeonhole); a table whose leading bits are c chosen blocks, c <= b - k,
//! therefore holds every near neighbour of a query in the prefix range
//! equal to the query's own. One table per choice of blocks covers all
//! cases. Fingerprints are stored permuted (chosen blocks first) and
//! sorted; permutations keep the popcount of a XOR, so candidates are
//! checked on the permuted values directly.

use std::fmt;

use rayon::prelude::*;

/// A contiguous run of fingerprint bits: lowest bit and width.
type BitRange = (u32, u32);

/// How the 64 bits are cut into blocks and which blocks lead the tables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Layout {
    /// `blocks` blocks of near-equal width, every choice of `choose` of
    /// them leading one table: C(blocks, choose) tables; k <= blocks - choose.
    Choose { blocks: u32, choose: u32 },
    /// Seed 004's two-level design: `outer` blocks, one leading; the
    /// remaining bits in `inner` blocks, one following: outer x inner
    /// tables; k < min(outer, inner).
    Nested { outer: u32, inner: u32 },
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("layout `{text}`: {message}")]
pub struct LayoutError {
    pub text: String,
    pub message: String,
}

impl std::str::FromStr for Layout {
    type Err = LayoutError;

    /// `6c3` (6 blocks choose 3), `4x16` (4 blocks of 16 bits, one
    /// leading: `4c1`), `4x4` (nested: 4 outer blocks, then 4 inner).
    fn from_str(text: &str) -> Result<Self, LayoutError> {
        let fail = |message: &str| LayoutError {
            text: text.to_string(),
            message: message.to_string(),
        };
        let number = |s: &str| {
            s.trim().parse::<u32>().map_err(|_| {
                fail("expected BcC (blocks choose C), BxW (B blocks of W bits) or AxB (nested)")
            })
        };
        let layout = if let Some((b, c)) = text.split_once('c') {
            Layout::Choose {
                blocks: number(b)?,
                choose: number(c)?,
            }
        } else if let Some((a, b)) = text.split_once('x') {
            let (a, b) = (number(a)?, number(b)?);
            if a * b == 64 {
                Layout::Choose {
                    blocks: a,
                    choose: 1,
                }
            } else {
                Layout::Nested { outer: a, inner: b }
            }
        } else {
            return Err(fail(
                "expected BcC (blocks choose C), BxW (B blocks of W bits) or AxB (nested)",
            ));
        };
        match layout {
            Layout::Choose { blocks, choose }
                if blocks == 0 || blocks > 64 || choose == 0 || choose >= blocks =>
            {
                Err(fail("needs 1 <= choose < blocks <= 64"))
            }
            Layout::Nested { outer, inner }
                if !(2..=32).contains(&outer) || !(2..=32).contains(&inner) =>
            {
                Err(fail("nested blocks must be 2..=32 at each level"))
            }
            _ => Ok(layout),
        }
    }
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Layout::Choose { blocks, choose: 1 } if 64 % blocks == 0 => {
                write!(f, "{blocks}x{}", 64 / blocks)
            }
            Layout::Choose { blocks, choose } => write!(f, "{blocks}c{choose}"),
            Layout::Nested { outer, inner } => write!(f, "{outer}x{inner}"),
        }
    }
}

/// Splits the bits of `ranges` (in order, top first) into `parts` runs of
/// near-equal width, wider ones first, as seed 004's 11,11,11,11,10,10.
fn split(ranges: &[BitRange], parts: u32) -> Vec<Vec<BitRange>> {
    let total: u32 = ranges.iter().map(|r| r.1).sum();
    let (base, wider) = (total / parts, total % parts);
    let mut queue: Vec<BitRange> = ranges.to_vec();
    queue.reverse(); // pop from the top
    (0..parts)
        .map(|i| {
            let mut need = base + u32::from(i < wider);
            let mut block = Vec::new();
            while need > 0 {
                let (lo, width) = queue.pop().expect("widths add up");
                if width <= need {
                    block.push((lo, width));
                    need -= width;
                } else {
                    // Take the top `need` bits, leave the rest.
                    block.push((lo + width - need, need));
                    queue.push((lo, width - need));
                    need = 0;
                }
            }
            block
        })
        .collect()
}

fn choices(n: u32, k: u32) -> Vec<Vec<u32>> {
    fn go(start: u32, n: u32, k: u32, current: &mut Vec<u32>, out: &mut Vec<Vec<u32>>) {
        if current.len() == k as usize {
            out.push(current.clone());
            return;
        }
        for i in start..n {
            current.push(i);
            go(i + 1, n, k, current, out);
            current.pop();
        }
    }
    let mut out = Vec::new();
    go(0, n, k, &mut Vec::new(), &mut out);
    out
}

/// One table's permutation: the bit ranges in their new order, top first,
/// and how many leading bits form the prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Permutation {
    /// (source low bit, width, destination low bit).
    moves: Vec<(u32, u32, u32)>,
    pub prefix_bits: u32,
}

impl Permutation {
    fn new(order: &[BitRange], prefix_bits: u32) -> Self {
        let mut top = 64;
        let moves = order
            .iter()
            .map(|&(lo, width)| {
                top -= width;
                (lo, width, top)
            })
            .collect();
        debug_assert_eq!(top, 0);
        Permutation { moves, prefix_bits }
    }

    /// (source low bit, width, destination low bit) of each moved range,
    /// so that other implementations can permute the same way.
    pub fn moves(&self) -> &[(u32, u32, u32)] {
        &self.moves
    }

    #[inline]
    pub fn apply(&self, fp: u64) -> u64 {
        self.moves.iter().fold(0, |out, &(src, width, dst)| {
            let mask = if width == 64 {
                u64::MAX
            } else {
                (1u64 << width) - 1
            };
            out | ((fp >> src) & mask) << dst
        })
    }

    #[inline]
    pub fn prefix(&self, permuted: u64) -> u64 {
        if self.prefix_bits == 0 {
            0
        } else {
            permuted >> (64 - self.prefix_bits)
        }
    }
}

impl Layout {
    /// The largest distance every table set of this layout finds.
    pub fn max_k(&self) -> u32 {
        match *self {
            Layout::Choose { blocks, choose } => blocks - choose,
            Layout::Nested { outer, inner } => outer.min(inner) - 1,
        }
    }

    /// One permutation per table.
    pub fn permutations(&self) -> Vec<Permutation> {
        let all: [BitRange; 1] = [(0, 64)];
        match *self {
            Layout::Choose { blocks, choose } => {
                let parts = split(&all, blocks);
                choices(blocks, choose)
                    .into_iter()
                    .map(|chosen| {
                        let mut order: Vec<BitRange> = Vec::new();
                        for &c in &chosen {
                            order.extend(&parts[c as usize]);
                        }
                        let prefix_bits = order.iter().map(|r| r.1).sum();
                        for (i, part) in parts.iter().enumerate() {
                            if !chosen.contains(&(i as u32)) {
                                order.extend(part);
                            }
                        }
                        Permutation::new(&order, prefix_bits)
                    })
                    .collect()
            }
            Layout::Nested { outer, inner } => {
                let outer_parts = split(&all, outer);
                let mut tables = Vec::new();
                for o in 0..outer as usize {
                    let rest: Vec<BitRange> = outer_parts
                        .iter()
                        .enumerate()
                        .filter(|&(i, _)| i != o)
                        .flat_map(|(_, p)| p.iter().copied())
                        .collect();
                    let inner_parts = split(&rest, inner);
                    for i in 0..inner as usize {
                        let mut order: Vec<BitRange> = outer_parts[o].clone();
                        order.extend(&inner_parts[i]);
                        let prefix_bits = order.iter().map(|r| r.1).sum();
                        for (j, part) in inner_parts.iter().enumerate() {
                            if j != i {
                                order.extend(part);
                            }
                        }
                        tables.push(Permutation::new(&order, prefix_bits));
                    }
                }
                tables
            }
        }
    }
}

/// What a layout costs for `fingerprints` stored fingerprints (seed 004's
/// design arithmetic).
#[derive(Debug, Clone, PartialEq)]
pub struct LayoutPlan {
    pub layout: Layout,
    pub tables: usize,
    /// Distinct prefix widths of the tables, widest first.
    pub prefix_bits: Vec<u32>,
    /// Expected fingerprints in the probed ranges per query, for uniformly
    /// random fingerprints: sum over tables of n / 2^prefix.
    pub candidates_per_query: f64,
    /// Permuted fingerprints plus a 4-byte page id per table entry.
    pub bytes: f64,
}

impl LayoutPlan {
    pub fn new(layout: &Layout, fingerprints: f64) -> Self {
        let perms = layout.permutations();
        let mut prefix_bits: Vec<u32> = perms.iter().map(|p| p.prefix_bits).collect();
        let candidates_per_query = perms
            .iter()
            .map(|p| fingerprints / 2f64.powi(p.prefix_bits as i32))
            .sum();
        prefix_bits.sort_unstable_by(|a, b| b.cmp(a));
        prefix_bits.dedup();
        LayoutPlan {
            layout: layout.clone(),
            tables: perms.len(),
            prefix_bits,
            candidates_per_query,
            bytes: perms.len() as f64 * fingerprints * BYTES_PER_ENTRY as f64,
        }
    }
}

/// A permuted fingerprint and the page it belongs to.
pub const BYTES_PER_ENTRY: usize = 12;

/// Sorted permuted fingerprints of one table, with their page ids.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Table {
    pub permuted: Vec<u64>,
    pub ids: Vec<u32>,
}

/// Builds each table: fingerprints permuted and sorted (by value, then id).
pub fn build_tables(permutations: &[Permutation], fingerprints: &[(u32, u64)]) -> Vec<Table> {
    permutations
        .par_iter()
        .map(|p| {
            let mut entries: Vec<(u64, u32)> = fingerprints
                .iter()
                .map(|&(id, fp)| (p.apply(fp), id))
                .collect();
            entries.sort_unstable();
            Table {
                permuted: entries.iter().map(|e| e.0).collect(),
                ids: entries.iter().map(|e| e.1).collect(),
            }
        })
        .collect()
}

/// Ids of stored fingerprints within distance `k` of `query` (inclusive),
/// with their distances, sorted by id. `tables[i]` belongs to
/// `permutations[i]`; any slices of permuted values and ids will do (a
/// memory-mapped index passes its files).
pub fn query<'a>(
    permutations: &[Permutation],
    tables: impl Iterator<Item = (&'a [u64], &'a [u32])>,
    query: u64,
    k: u32,
) -> Vec<(u32, u32)> {
    let mut found = Vec::new();
    for (p, (permuted, ids)) in permutations.iter().zip(tables) {
        let q = p.apply(query);
        let prefix = p.prefix(q);
        let lowest = if p.prefix_bits == 0 {
            0
        } else {
            prefix << (64 - p.prefix_bits)
        };
        let start = lower_bound(permuted, lowest);
        for (i, &e) in permuted[start..].iter().enumerate() {
            if p.prefix(e) != prefix {
                break;
            }
            let d = (e ^ q).count_ones();
            if d <= k {
                found.push((ids[start + i], d));
            }
        }
    }
    found.sort_unstable();
    found.dedup();
    found
}

/// The first position whose value is >= `key` in a sorted slice.
/// Fingerprints are close to uniform, so the position is first guessed
/// from the key's value, then bracketed by doubling steps and bisected:
/// a handful of memory reads instead of log2(n) scattered ones.
fn lower_bound(sorted: &[u64], key: u64) -> usize {
    let n = sorted.len();
    if n == 0 {
        return 0;
    }
    let guess = ((u128::from(key) * n as u128) >> 64) as usize;
    let guess = guess.min(n - 1);
    let (mut lo, mut hi);
    if sorted[guess] < key {
        // The answer is after `guess`: double the step until past it.
        lo = guess + 1;
        let mut step = 1;
        hi = lo;
        while hi < n && sorted[hi] < key {
            lo = hi + 1;
            hi = (hi + step).min(n);
            step *= 2;
        }
    } else {
        hi = guess;
        let mut step = 1;
        lo = hi;
        while lo > 0 && sorted[lo - 1] >= key {
            hi = lo - 1;
            lo = lo.saturating_sub(step);
            step *= 2;
        }
    }
    lo + sorted[lo..hi].partition_point(|&e| e < key)
}

/// Every pair of fingerprints within distance `k` (inclusive) as
/// `(i, j, distance)` with `i < j` indices into `fingerprints`, sorted.
/// Each pair is emitted by the first table whose prefixes it shares, so no
/// global deduplication is needed.
pub fn self_join(layout: &Layout, fingerprints: &[u64], k: u32) -> Vec<(u32, u32, u32)> {
    assert!(
        k <= layout.max_k(),
        "layout {layout} finds distances up to {}",
        layout.max_k()
    );
    let permutations = layout.permutations();
    let per_table: Vec<Vec<(u32, u32, u32)>> = permutations
        .par_iter()
        .enumerate()
        .map(|(t, p)| {
            let mut entries: Vec<(u64, u32)> = fingerprints
                .iter()
                .enumerate()
                .map(|(i, &fp)| (p.apply(fp), i as u32))
                .collect();
            entries.sort_unstable();
            let earlier = &permutations[..t];
            let mut pairs = Vec::new();
            for group in entries.chunk_by(|a, b| p.prefix(a.0) == p.prefix(b.0)) {
                for (x, &(ea, ia)) in group.iter().enumerate() {
                    for &(eb, ib) in &group[x + 1..] {
                        let d = (ea ^ eb).count_ones();
                        if d > k {
                            continue;
                        }
                        let (fa, fb) = (fingerprints[ia as usize], fingerprints[ib as usize]);
                        let seen = earlier
                            .iter()
                            .any(|q| q.prefix(q.apply(fa)) == q.prefix(q.apply(fb)));
                        if !seen {
                            pairs.push((ia.min(ib), ia.max(ib), d));
                        }
                    }
                }
            }
            pairs
        })
        .collect();
    let mut pairs = per_table.concat();
    pairs.par_sort_unstable();
    pairs
}

/// The reference: every pair within `k`, by comparing all of them.
pub fn brute_force_join(fingerprints: &[u64], k: u32) -> Vec<(u32, u32, u32)> {
    (0..fingerprints.len())
        .into_par_iter()
        .flat_map_iter(|i| {
            let fi = fingerprints[i];
            fingerprints[i + 1..]
                .iter()
                .enumerate()
                .filter_map(move |(x, &fj)| {
                    let d = (fi ^ fj).count_ones();
                    (d <= k).then_some((i as u32, (i + 1 + x) as u32, d))
                })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::rng::fmix64;

    fn layout(s: &str) -> Layout {
        s.parse().unwrap()
    }

    #[test]
    fn seed_004_designs() {
        let six = layout("6c3");
        let perms = six.permutations();
        assert_eq!(perms.len(), 20);
        let mut widths: Vec<u32> = perms.iter().map(|p| p.prefix_bits).collect();
        widths.sort_unstable();
        widths.dedup();
        assert_eq!(widths, [31, 32, 33]); // 10+10+11 .. 11+11+11
        assert_eq!(six.max_k(), 3);
        let nested = layout("4x4");
        assert_eq!(nested, Layout::Nested { outer: 4, inner: 4 });
        assert!(nested.permutations().iter().all(|p| p.prefix_bits == 28));
        assert_eq!(nested.permutations().len(), 16);
        assert_eq!(
            layout("4x16"),
            Layout::Choose {
                blocks: 4,
                choose: 1
            }
        );
        assert_eq!(layout("4x16").to_string(), "4x16");
        assert!("6c6".parse::<Layout>().is_err());
        assert!("banana".parse::<Layout>().is_err());
    }

    #[test]
    fn permutations_are_bijections_keeping_distance() {
        for text in ["4x16", "6c3", "4x4", "5c2", "7c3"] {
            for p in layout(text).permutations() {
                for i in 0..64 {
                    let bit = 1u64 << i;
                    assert_eq!(p.apply(bit).count_ones(), 1, "{text}");
                }
                let (a, b) = (fmix64(1), fmix64(2));
                assert_eq!((p.apply(a) ^ p.apply(b)).count_ones(), (a ^ b).count_ones());
            }
        }
    }

    /// Random fingerprints with planted neighbours at distances 0..=k+1.
    fn planted(n: usize, seed: u64) -> Vec<u64> {
        let mut rng = crate::util::rng::SplitMix64::murmur(seed);
        let mut fps = Vec::new();
        while fps.len() < n {
            let base = rng.next_u64();
            fps.push(base);
            for d in 0..=5 {
                let mut fp = base;
                let mut flipped = 0;
                while flipped < d {
                    let bit = 1u64 << (rng.next_u64() % 64);
                    if fp & bit == base & bit {
                        fp ^= bit;
                        flipped += 1;
                    }
                }
                fps.push(fp);
            }
        }
        fps
    }

    #[test]
    fn tables_equal_brute_force_for_every_layout_and_k() {
        let fps = planted(600, 5);
        for text in ["4x16", "6c3", "4x4", "6c2", "5x5", "8c4", "3c1"] {
            let l = layout(text);
            for k in 0..=l.max_k().min(4) {
                let expected = brute_force_join(&fps, k);
                assert_eq!(self_join(&l, &fps, k), expected, "{text} k={k}");
                let perms = l.permutations();
                let ids: Vec<(u32, u64)> = fps
                    .iter()
                    .enumerate()
                    .map(|(i, &f)| (i as u32, f))
                    .collect();
                let tables = build_tables(&perms, &ids);
                for (qi, &q) in fps.iter().enumerate().step_by(7) {
                    let got = query(
                        &perms,
                        tables.iter().map(|t| (&t.permuted[..], &t.ids[..])),
                        q,
                        k,
                    );
                    let want: Vec<(u32, u32)> = fps
                        .iter()
                        .enumerate()
                        .filter_map(|(j, &f)| {
                            let d = (f ^ q).count_ones();
                            (d <= k).then_some((j as u32, d))
                        })
                        .collect();
                    assert_eq!(got, want, "{text} k={k} query {qi}");
                }
            }
        }
        // Planted pairs exist at every distance, so the test is not vacuous.
        for k in 0..=4 {
            assert!(brute_force_join(&fps, k).iter().any(|p| p.2 == k));
        }
    }

    #[test]
    fn interpolated_lower_bound_agrees_with_bisection() {
        let mut values: Vec<u64> = (0..500).map(fmix64).collect();
        values.extend([0, 0, 5, u64::MAX, u64::MAX, 1 << 63, 1 << 63]);
        values.sort_unstable();
        for key in values
            .iter()
            .flat_map(|&v| [v, v.wrapping_add(1), v.wrapping_sub(1)])
            .chain([0, 1, u64::MAX, 1 << 62])
        {
            assert_eq!(
                lower_bound(&values, key),
                values.partition_point(|&e| e < key),
                "{key}"
            );
        }
        assert_eq!(lower_bound(&[], 7), 0);
        assert_eq!(lower_bound(&[7], 7), 0);
        assert_eq!(lower_bound(&[7], 8), 1);
    }

    #[test]
    fn distance_k_is_inclusive() {
        let fps = [0u64, 0b111, 0b1111];
        assert_eq!(self_join(&layout("6c3"), &fps, 3), [(0, 1, 3), (1, 2, 1)]);
    }

    #[test]
    fn plan_matches_seed_004_arithmetic() {
        let n = 2f64.powi(34);
        let plan = LayoutPlan::new(&layout("4x4"), n);
        assert_eq!(plan.tables, 16);
        assert_eq!(plan.prefix_bits, [28]);
        // 16 tables x 2^34 / 2^28 = 1024 candidates per query.
        assert!((plan.candidates_per_query - 1024.0).abs() < 1e-6);
        let plan = LayoutPlan::new(&layout("6c3"), n);
        assert_eq!(plan.tables, 20);
    }
}
