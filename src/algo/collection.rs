//! Collection statistics some algorithms learn before signing: document
//! frequencies of features, over the evaluated pages or a reference
//! collection.

use rustc_hash::{FxHashMap, FxHashSet};

use rayon::prelude::*;

use super::Document;

/// Document frequencies of hashed features over a collection.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DocumentFrequencies {
    pub documents: usize,
    /// Feature hash -> number of documents holding it (features are
    /// hashes already, and every page's are counted: a fast hasher).
    pub df: FxHashMap<u64, u32>,
}

impl DocumentFrequencies {
    /// Counts each of a document's features once.
    pub fn count<F, I>(docs: &[Document], features: F) -> Self
    where
        F: Fn(&Document) -> I + Sync,
        I: IntoIterator<Item = u64>,
    {
        let df = docs
            .par_iter()
            .fold(FxHashMap::default, |mut df: FxHashMap<u64, u32>, doc| {
                let mut seen = FxHashSet::default();
                for h in features(doc) {
                    if seen.insert(h) {
                        *df.entry(h).or_insert(0) += 1;
                    }
                }
                df
            })
            .reduce(FxHashMap::default, |mut a, b| {
                for (h, n) in b {
                    *a.entry(h).or_insert(0) += n;
                }
                a
            });
        DocumentFrequencies {
            documents: docs.len(),
            df,
        }
    }

    /// ln(N / df), df at least 1.
    pub fn idf(&self, df: u32) -> f64 {
        (self.documents.max(1) as f64 / f64::from(df.max(1))).ln()
    }

    /// The IDF of a feature; one missing from the collection counts as
    /// seen once (the rarest).
    pub fn idf_of(&self, feature: u64) -> f64 {
        self.idf(self.df.get(&feature).copied().unwrap_or(1))
    }
}
