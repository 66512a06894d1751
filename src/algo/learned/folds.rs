//! The learned judge fitted and judged by K-fold cross-validation on one
//! labelled corpus, so that every pair is scored by a model that never
//! saw either of its pages.
//!
//! Folds are of pages, not of pairs: a page shares words, a host and a
//! template with every pair it is in, so a model trained on (a, b) has
//! learned something of (a, c). Each page goes to one of K folds (a fixed
//! seeded order, so the folds are the same on every run and every thread
//! count). A pair whose two pages lie in folds i and j is scored by the
//! model fitted on the pairs whose pages both lie outside i and j: for
//! i = j that is the usual held-out fold, for i != j a model trained
//! without two folds. So every pair of the corpus gets an out-of-fold
//! score (none is dropped because its pages fell in different folds),
//! at the cost of K(K+1)/2 small fits instead of K. Pages of one story
//! may still sit in different folds: the model may have seen the story
//! through another pair of copies, never these pages.

use std::sync::Arc;

use rayon::prelude::*;

use super::{fit_model, LabelledRows, Labels, LearnedConfig, LearnedError, Model};

/// The seed of the page order that deals pages into folds.
const FOLD_SEED: u64 = 0x666f_6c64_735f_3530;

/// Each page's fold, `0..k`: pages in a seeded pseudo-random order dealt
/// round, so fold sizes differ by at most one.
pub fn page_folds(pages: usize, k: usize) -> Vec<u8> {
    let mut order: Vec<(u64, u32)> = (0..pages as u32)
        .map(|p| {
            let mut bytes = [0u8; 12];
            bytes[..8].copy_from_slice(&FOLD_SEED.to_le_bytes());
            bytes[8..].copy_from_slice(&p.to_le_bytes());
            (xxhash_rust::xxh3::xxh3_64(&bytes), p)
        })
        .collect();
    order.sort_unstable();
    let mut fold = vec![0u8; pages];
    for (rank, &(_, page)) in order.iter().enumerate() {
        fold[page as usize] = (rank % k) as u8;
    }
    fold
}

/// The models of a cross-validation: one per unordered pair of folds.
#[derive(Debug, Clone)]
pub struct FoldModels {
    pub folds: usize,
    /// Per page.
    pub page_fold: Vec<u8>,
    /// By [`FoldModels::slot`].
    models: Vec<Model>,
}

impl FoldModels {
    fn slot(k: usize, i: u8, j: u8) -> usize {
        let (i, j) = (i.min(j) as usize, i.max(j) as usize);
        // Row i of the upper triangle starts after i rows of k, k-1, ...
        i * k - i * (i + 1) / 2 + i + (j - i)
    }

    /// The model that saw neither page.
    pub fn model_for(&self, a: u32, b: u32) -> &Model {
        let fold = |p: u32| self.page_fold[p as usize];
        &self.models[Self::slot(self.folds, fold(a), fold(b))]
    }

    /// Each row's probability by the model that saw neither of its pages.
    pub fn out_of_fold(&self, rows: &LabelledRows) -> Vec<f64> {
        rows.pages
            .par_iter()
            .zip(&rows.features)
            .map(|(&(a, b), x)| self.model_for(a, b).probability(x))
            .collect()
    }
}

/// Fits the K(K+1)/2 models of a K-fold cross-validation of `rows`
/// (pages numbered as in `pages`).
pub fn train_folds(
    config: &LearnedConfig,
    rows: &LabelledRows,
    pages: usize,
    k: usize,
    trained_on: &str,
) -> Result<FoldModels, LearnedError> {
    if k < 3 {
        return Err(LearnedError::Train(format!(
            "{k} folds: a pair across two folds is judged by a model trained without both, so at least 3 are needed"
        )));
    }
    let page_fold = page_folds(pages, k);
    let held_out: Vec<(u8, u8)> = (0..k as u8)
        .flat_map(|i| (i..k as u8).map(move |j| (i, j)))
        .collect();
    let models: Vec<Model> = held_out
        .par_iter()
        .map(|&(i, j)| {
            let outside = |p: u32| {
                let f = page_fold[p as usize];
                f != i && f != j
            };
            let chosen: Vec<usize> = (0..rows.len())
                .filter(|&r| outside(rows.pages[r].0) && outside(rows.pages[r].1))
                .collect();
            let name = format!("{trained_on} without fold {i}");
            let name = if i == j {
                name
            } else {
                format!("{name} and {j}")
            };
            fit_model(config, rows, &chosen, &name).map_err(|e| {
                LearnedError::Train(format!(
                    "{k}-fold cross-validation, the model {}: {e}; try fewer folds",
                    name.trim_start_matches(trained_on).trim()
                ))
            })
        })
        .collect::<Result<_, _>>()?;
    debug_assert_eq!(models.len(), k * (k + 1) / 2);
    Ok(FoldModels {
        folds: k,
        page_fold,
        models,
    })
}

/// Precision, recall and F1 of the rows at or above a threshold.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FoldFigures {
    pub threshold: f64,
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
}

/// Figures of `probability` over `rows[chosen]` at `threshold`; recall is
/// over `positives`, the truth's duplicates among those pages, found or
/// not.
pub fn figures_at(
    rows: &LabelledRows,
    probability: &[f64],
    chosen: &[usize],
    positives: u64,
    threshold: f64,
) -> FoldFigures {
    let (mut tp, mut fp) = (0u64, 0u64);
    for &r in chosen {
        if probability[r] >= threshold {
            if rows.duplicate[r] {
                tp += 1;
            } else {
                fp += 1;
            }
        }
    }
    figures(threshold, tp, fp, positives)
}

fn figures(threshold: f64, tp: u64, fp: u64, positives: u64) -> FoldFigures {
    let ratio = |x: u64, y: u64| if y == 0 { 0.0 } else { x as f64 / y as f64 };
    let (precision, recall) = (ratio(tp, tp + fp), ratio(tp, positives));
    let f1 = if precision + recall > 0.0 {
        2.0 * precision * recall / (precision + recall)
    } else {
        0.0
    };
    FoldFigures {
        threshold,
        precision,
        recall,
        f1,
    }
}

/// The threshold (one of the probabilities) with the highest F1; ties go
/// to the higher threshold.
pub fn best_figures(
    rows: &LabelledRows,
    probability: &[f64],
    chosen: &[usize],
    positives: u64,
) -> FoldFigures {
    let mut order: Vec<usize> = chosen.to_vec();
    order.sort_by(|&x, &y| probability[y].total_cmp(&probability[x]).then(x.cmp(&y)));
    let mut best = figures(1.0, 0, 0, positives);
    let (mut tp, mut fp) = (0u64, 0u64);
    for (n, &r) in order.iter().enumerate() {
        if rows.duplicate[r] {
            tp += 1;
        } else {
            fp += 1;
        }
        // Only where the next row scores lower is this a threshold.
        let last_of_value = order
            .get(n + 1)
            .is_none_or(|&next| probability[next] < probability[r]);
        if last_of_value {
            let here = figures(probability[r], tp, fp, positives);
            if here.f1 > best.f1 {
                best = here;
            }
        }
    }
    best
}

/// What `neardup train --folds K` reports.
#[derive(Debug, Clone)]
pub struct CrossValidation {
    pub models: Arc<FoldModels>,
    pub rows: LabelledRows,
    pub probability: Vec<f64>,
    /// Over every row, against all the truth's duplicates.
    pub best: FoldFigures,
    pub at_half: FoldFigures,
    /// Per fold, over the pairs with a page in it (each scored by a model
    /// trained without that fold): at the pooled best threshold and at
    /// 0.5, with the pair count.
    pub per_fold: Vec<(FoldFigures, FoldFigures, usize)>,
}

/// Cross-validates the judge on `rows` (see [`train_folds`]).
pub fn cross_validate(
    config: &LearnedConfig,
    rows: LabelledRows,
    labels: &Labels,
    pages: usize,
    k: usize,
    trained_on: &str,
) -> Result<CrossValidation, LearnedError> {
    let models = train_folds(config, &rows, pages, k, trained_on)?;
    let probability = models.out_of_fold(&rows);
    let all: Vec<usize> = (0..rows.len()).collect();
    let positives = labels.positives_where(|_| true);
    let best = best_figures(&rows, &probability, &all, positives);
    let at_half = figures_at(&rows, &probability, &all, positives, 0.5);
    let per_fold = (0..k as u8)
        .map(|f| {
            let inside = |p: u32| models.page_fold[p as usize] == f;
            let chosen: Vec<usize> = all
                .iter()
                .copied()
                .filter(|&r| inside(rows.pages[r].0) || inside(rows.pages[r].1))
                .collect();
            let positives = labels.positives_touching(inside);
            (
                figures_at(&rows, &probability, &chosen, positives, best.threshold),
                figures_at(&rows, &probability, &chosen, positives, 0.5),
                chosen.len(),
            )
        })
        .collect();
    Ok(CrossValidation {
        models: Arc::new(models),
        rows,
        probability,
        best,
        at_half,
        per_fold,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_dealt_evenly_and_the_same_way_every_time() {
        let folds = page_folds(103, 5);
        assert_eq!(folds, page_folds(103, 5));
        let mut sizes = [0usize; 5];
        folds.iter().for_each(|&f| sizes[f as usize] += 1);
        assert!(sizes.iter().all(|&n| n == 20 || n == 21), "{sizes:?}");
        // Not simply page modulo k.
        assert_ne!(folds[..5], [0, 1, 2, 3, 4]);
    }

    #[test]
    fn no_model_judges_a_page_it_was_fitted_on() {
        // 60 pages in 20 clusters of 3; every pair is a row, its first
        // feature its label blurred by the pair's pages.
        let pages = 60u32;
        let cluster: Vec<u32> = (0..pages).map(|p| p / 3).collect();
        let mut rows = LabelledRows::default();
        for a in 0..pages {
            for b in a + 1..pages {
                let dup = cluster[a as usize] == cluster[b as usize];
                let mut x = [0.0; super::super::FEATURES.len()];
                x[0] = f64::from(u8::from(dup)) + f64::from((a * 7 + b) % 5) / 10.0;
                rows.pages.push((a, b));
                rows.features.push(x);
                rows.duplicate.push(dup);
            }
        }
        let config = LearnedConfig::default();
        let models = train_folds(&config, &rows, pages as usize, 4, "t").unwrap();
        let fold = |p: u32| models.page_fold[p as usize];
        for &(a, b) in &rows.pages {
            let m = models.model_for(a, b);
            let fitted_on = rows
                .pages
                .iter()
                .filter(|&&(x, y)| {
                    [x, y]
                        .iter()
                        .all(|&p| fold(p) != fold(a) && fold(p) != fold(b))
                })
                .count();
            assert_eq!(m.pairs as usize, fitted_on, "pair {a},{b}");
            assert!(m
                .trained_on
                .contains(&format!("fold {}", fold(a).min(fold(b)))));
        }
        let labels = Labels::Clusters(cluster);
        let cv = cross_validate(&config, rows, &labels, pages as usize, 4, "t").unwrap();
        assert!(cv.best.f1 > 0.9, "{:?}", cv.best);
        assert_eq!(cv.per_fold.len(), 4);
        assert!(train_folds(&config, &cv.rows, pages as usize, 2, "t").is_err());
    }

    #[test]
    fn every_pair_of_folds_has_its_own_slot() {
        for k in 3..8usize {
            let mut slots: Vec<usize> = (0..k as u8)
                .flat_map(|i| (0..k as u8).map(move |j| FoldModels::slot(k, i, j)))
                .collect();
            slots.sort_unstable();
            slots.dedup();
            assert_eq!(slots, (0..k * (k + 1) / 2).collect::<Vec<_>>(), "k {k}");
            assert_eq!(FoldModels::slot(k, 1, 2), FoldModels::slot(k, 2, 1));
        }
    }
}
