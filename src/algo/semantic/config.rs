//! Seed 001's semantic topic-sentence method's entry in an experiment file.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{Aggregate, Semantic, TopicCount};
use crate::algo::settings::{
    fraction, in_range, invalid, similarity_grid, similarity_thresholds, weight,
};
use crate::algo::settings::{with_threshold, AlgorithmSettings, Checked};
use crate::algo::{Algorithm, Document};
use crate::text::cilin::Cilin;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SemanticConfig {
    /// Cilin level words are mapped at: 1 (coarsest) to 5 (synonym groups).
    pub level: u8,
    /// `best_match` (default) or `paper_mean`.
    pub aggregate: Aggregate,
    /// Topic sentences per page: a count (default 5) ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topic_sentences: Option<usize>,
    /// ... or a share of the page's declarative sentences (not both).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topic_share: Option<f64>,
    /// Cosine at or above which a sentence repeats one already chosen.
    pub redundancy: f64,
    /// A..F of W(S).
    pub coefficients: [f64; 6],
    pub title_threshold: f64,
    pub subtitle_threshold: f64,
    /// Topic similarity at or above which a pair is a duplicate (0.8).
    pub threshold: f64,
    /// Default: every step the floor reaches.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grid: Option<Vec<f64>>,
    pub floor: f64,
    /// Jaccard of title and topic concepts the LSH candidate search aims at.
    pub candidate_jaccard: f64,
    /// LSH candidates each page keeps, the best by sketch agreement; a pair
    /// is verified when either page keeps it, so at most this many pairs
    /// per page are scored. 0 verifies every LSH candidate.
    pub candidates_per_page: usize,
    /// LSH buckets of more than this many pages are left out of the
    /// candidate search, and the notes say how many (0, the default:
    /// none is). Only with `candidates_per_page` above 0.
    #[serde(skip_serializing_if = "no_limit")]
    pub max_bucket: usize,
    /// Pages a page reads either side of itself in each LSH bucket, the
    /// bucket ordered by the rest of the sketch (0: whole buckets). Only
    /// with `candidates_per_page` above 0.
    pub bucket_reach: usize,
}

/// Written reports keep their former shape while no limit is set.
fn no_limit(max_bucket: &usize) -> bool {
    *max_bucket == 0
}

impl Default for SemanticConfig {
    fn default() -> Self {
        SemanticConfig {
            level: 5,
            aggregate: Aggregate::BestMatch,
            topic_sentences: None,
            topic_share: None,
            redundancy: 0.8,
            coefficients: [1.0; 6],
            title_threshold: 0.4,
            subtitle_threshold: 0.6,
            threshold: 0.8,
            grid: None,
            floor: 0.3,
            candidate_jaccard: 0.3,
            candidates_per_page: super::DEFAULT_CANDIDATES_PER_PAGE,
            max_bucket: 0,
            bucket_reach: super::DEFAULT_BUCKET_REACH,
        }
    }
}

impl SemanticConfig {
    pub fn topic_count(&self) -> TopicCount {
        match (self.topic_sentences, self.topic_share) {
            (_, Some(share)) => TopicCount::Share(share),
            (Some(n), None) => TopicCount::Count(n),
            (None, None) => TopicCount::Count(5),
        }
    }
}

impl SemanticConfig {
    fn listed_grid(&self) -> Vec<f64> {
        self.grid
            .clone()
            .unwrap_or_else(|| similarity_grid(self.floor))
    }
}

impl AlgorithmSettings for SemanticConfig {
    fn validate(&self) -> Checked {
        in_range("level", usize::from(self.level), 1, 5)?;
        if let Some(n) = self.topic_sentences {
            in_range("topic_sentences", n, 1, 1000)?;
        }
        if let Some(share) = self.topic_share {
            if self.topic_sentences.is_some() {
                return Err(invalid(
                    "topic_share",
                    "give topic_sentences or topic_share, not both",
                ));
            }
            if !(share > 0.0 && share <= 1.0) {
                return Err(invalid(
                    "topic_share",
                    format!("{share} is out of range (0, 1]"),
                ));
            }
        }
        fraction("redundancy", self.redundancy)?;
        fraction("title_threshold", self.title_threshold)?;
        fraction("subtitle_threshold", self.subtitle_threshold)?;
        fraction("candidate_jaccard", self.candidate_jaccard)?;
        if self.candidate_jaccard == 0.0 {
            return Err(invalid("candidate_jaccard", "must be above 0"));
        }
        in_range("candidates_per_page", self.candidates_per_page, 0, 100_000)?;
        in_range("max_bucket", self.max_bucket, 0, 100_000_000)?;
        in_range("bucket_reach", self.bucket_reach, 0, 100_000_000)?;
        for (j, &v) in self.coefficients.iter().enumerate() {
            weight(&format!("coefficients[{j}]"), v)?;
        }
        similarity_thresholds(self.floor, self.threshold, &self.listed_grid())
    }

    fn build(&self, _reference: Option<Arc<Vec<Document>>>) -> Box<dyn Algorithm> {
        let mut m = Semantic::new(Cilin::embedded());
        m.level = self.level;
        m.aggregate = self.aggregate;
        m.topic_count = self.topic_count();
        m.redundancy = self.redundancy;
        m.coefficients = self.coefficients;
        m.title_threshold = self.title_threshold;
        m.subtitle_threshold = self.subtitle_threshold;
        m.floor = self.floor;
        m.candidate_jaccard = self.candidate_jaccard;
        m.candidates_per_page = self.candidates_per_page;
        m.max_bucket = self.max_bucket;
        m.bucket_reach = self.bucket_reach;
        Box::new(m)
    }

    fn threshold(&self) -> f64 {
        self.threshold
    }

    fn grid(&self) -> Vec<f64> {
        with_threshold(&self.listed_grid(), self.threshold)
    }

    /// Gates in the detector's order: title, then subtitles.
    fn tune(&mut self, threshold: f64, gates: &[f64]) {
        self.threshold = threshold;
        if let [title, subtitles, ..] = gates {
            self.title_threshold = *title;
            self.subtitle_threshold = *subtitles;
        }
    }
}
