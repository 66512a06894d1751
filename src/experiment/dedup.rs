//! Deduplicating a corpus without labels: one entry of a (tuned)
//! experiment, run at its saved threshold as `neardup run` runs it, forms
//! clusters; one page of each is kept by a policy, and a mapping says
//! where every page went and by which score.

use std::collections::VecDeque;
use std::path::Path;

use serde::Serialize;

use super::config::{AlgorithmEntry, ExperimentConfig};
use super::{CacheSetting, Experiment, ExperimentError, References, Watchers};
use crate::algo::{AlgorithmRun, PageGroup, ScoredPair};
use crate::corpus::{read_corpus_counted, Corpus, Published, ReadCounter, ReadOptions};
use crate::eval::clustering::{
    cluster_pages, passing_groups, ClusterInput, Clustering, PIVOT_SEED,
};
use crate::extract::Extraction;
use crate::util::stage::Progress;

/// Which page of a cluster is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
#[value(rename_all = "snake_case")]
pub enum KeepPolicy {
    /// The first in input order.
    First,
    /// The one with the longest main text (in characters).
    Longest,
    /// The earliest `published`; pages without one come last.
    Earliest,
    /// The one with the shortest `url`; pages without one come last.
    ShortestUrl,
}

/// One (entry, extraction) of an experiment, as tables name it.
#[derive(Debug, Clone)]
pub struct Choice {
    pub entry: usize,
    pub extraction: Extraction,
    /// `LABEL [EXTRACTION]`, e.g. `minhash(w=3,n=128,lsh 26x4) [main]`.
    pub label: String,
}

#[derive(Debug, thiserror::Error)]
pub enum DedupError {
    #[error(transparent)]
    Experiment(#[from] ExperimentError),
    #[error("{0}")]
    Choice(String),
}

/// Every (entry, extraction) the experiment runs, labelled as `run` and
/// `tune` print them.
pub fn choices(config: &ExperimentConfig, references: &super::References) -> Vec<Choice> {
    let prepared = config.prepare(references);
    let mut out = Vec::new();
    for extraction in config.extractions() {
        for p in &prepared {
            if !config.runs_on(&config.algorithms[p.entry], extraction) {
                continue;
            }
            let mut label = p.algorithm.label();
            if let Some(tokens) = &p.tokenizer {
                label = format!("{label} on {}", tokens.describe());
            }
            out.push(Choice {
                entry: p.entry,
                extraction,
                label: format!("{label} [{}]", extraction.name()),
            });
        }
    }
    out
}

/// The choice `wanted` names: its whole label, or its label without the
/// extraction when only one extraction runs it; the only one when none is
/// wanted. The error lists the labels.
pub fn choose(choices: &[Choice], wanted: Option<&str>) -> Result<Choice, DedupError> {
    let listed = || {
        choices
            .iter()
            .map(|c| format!("  {}", c.label))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let Some(wanted) = wanted.map(str::trim) else {
        return match choices {
            [one] => Ok(one.clone()),
            _ => Err(DedupError::Choice(format!(
                "the experiment runs {} algorithms; choose one with --algorithm LABEL:\n{}",
                choices.len(),
                listed()
            ))),
        };
    };
    fn bare(c: &Choice) -> &str {
        c.label.rsplit_once(" [").map_or(c.label.as_str(), |s| s.0)
    }
    let exact: Vec<&Choice> = choices.iter().filter(|c| c.label == wanted).collect();
    let found: Vec<&Choice> = if exact.is_empty() {
        choices.iter().filter(|c| bare(c) == wanted).collect()
    } else {
        exact
    };
    match found.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(DedupError::Choice(format!(
            "--algorithm: no algorithm is labelled `{wanted}`; the experiment's are:\n{}",
            listed()
        ))),
        _ => Err(DedupError::Choice(format!(
            "--algorithm: `{wanted}` names several entries; give the label with its extraction:\n{}",
            listed()
        ))),
    }
}

/// The experiment reduced to the chosen entry on its extraction.
pub fn narrowed(config: &ExperimentConfig, choice: &Choice, corpus: &Path) -> ExperimentConfig {
    let mut one = config.clone();
    let entry = &config.algorithms[choice.entry];
    one.algorithms = vec![AlgorithmEntry {
        config: entry.config.clone(),
        extract: Some(choice.extraction),
        clustering: entry.clustering,
    }];
    one.extract = vec![choice.extraction];
    one.corpus = corpus.display().to_string();
    one.build = None;
    one.judged = None;
    one.seeds = None;
    one
}

/// The clusters of a run at one threshold: per page, a label shared by the
/// pages of its cluster (its least page index), made from the passing pairs
/// and groups by the entry's clustering method, as the evaluator makes
/// them (the same function and seed).
pub fn cluster_labels(input: &ClusterInput, method: Clustering) -> Vec<u32> {
    cluster_pages(input, method, PIVOT_SEED)
}

/// [`cluster_labels`] of `run` at `threshold`: its stored pairs through
/// the gates (average linkage weighs those that do not pass too), its
/// groups that pass and its sampled components.
pub fn cluster_run(
    pages: usize,
    run: &AlgorithmRun,
    threshold: f64,
    method: Clustering,
) -> Vec<u32> {
    let gates = run.gate_thresholds();
    let (_, groups) = passing(run, threshold);
    let gated = run.gated_pairs(&gates);
    let input = ClusterInput {
        pages,
        pairs: &gated,
        groups: &groups,
        sampled: &run.sampled,
        scale: &run.scale,
        threshold,
    };
    cluster_labels(&input, method)
}

/// The stored pairs and groups of `run` that pass `threshold` and the
/// configured gates: what forms clusters.
pub fn passing(run: &AlgorithmRun, threshold: f64) -> (Vec<ScoredPair>, Vec<&PageGroup>) {
    let gates = run.gate_thresholds();
    let pairs = run
        .gated_pairs(&gates)
        .iter()
        .filter(|p| run.scale.passes(p.score, threshold))
        .copied()
        .collect();
    let groups = passing_groups(&run.groups, &run.scale, threshold, &gates);
    (pairs, groups)
}

/// What a keep policy reads of a page.
#[derive(Debug, Clone)]
pub struct PageFacts {
    pub id: String,
    pub url: Option<String>,
    pub published: Option<Published>,
    pub text_len: u32,
}

/// Per cluster label, the page kept by `policy`, ties broken by id.
pub fn representatives(labels: &[u32], facts: &[PageFacts], policy: KeepPolicy) -> Vec<u32> {
    let better = |a: u32, b: u32| -> bool {
        let (fa, fb) = (&facts[a as usize], &facts[b as usize]);
        let order = match policy {
            KeepPolicy::First => a.cmp(&b),
            KeepPolicy::Longest => fb.text_len.cmp(&fa.text_len),
            KeepPolicy::Earliest => last_when_missing(&fa.published, &fb.published),
            KeepPolicy::ShortestUrl => last_when_missing(
                &fa.url.as_ref().map(|u| u.chars().count()),
                &fb.url.as_ref().map(|u| u.chars().count()),
            ),
        };
        order.then_with(|| fa.id.cmp(&fb.id)).is_lt()
    };
    let mut kept: Vec<u32> = (0..labels.len() as u32).collect();
    for (p, &label) in labels.iter().enumerate() {
        let k = &mut kept[label as usize];
        if better(p as u32, *k) {
            *k = p as u32;
        }
    }
    kept
}

fn last_when_missing<T: Ord>(a: &Option<T>, b: &Option<T>) -> std::cmp::Ordering {
    match (a, b) {
        (Some(a), Some(b)) => a.cmp(b),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    }
}

/// Where one page went.
#[derive(Debug, Clone, PartialEq)]
pub struct MappingRow {
    pub page: u32,
    /// Clusters numbered 0, 1, ... by their first page in input order.
    pub cluster: u32,
    pub kept: u32,
    /// The page this one was scored against (the kept page when they were
    /// scored together, else the page through which it joined the
    /// cluster) and that score; `None` for a kept page.
    pub joined_via: Option<(u32, f32)>,
}

/// One row per page: a breadth-first walk from each kept page over the
/// passing pairs and groups, so that a page scored against the kept page
/// says so, and another names the page nearer the kept one that joined it.
pub fn mapping(
    labels: &[u32],
    kept: &[u32],
    pairs: &[ScoredPair],
    groups: &[&PageGroup],
) -> Vec<MappingRow> {
    let n = labels.len();
    let neighbours = adjacency(n, pairs);
    let mut group_of = vec![u32::MAX; n];
    for (i, g) in groups.iter().enumerate() {
        for &p in &g.pages {
            group_of[p as usize] = i as u32;
        }
    }
    let mut via: Vec<Option<(u32, f32)>> = vec![None; n];
    let mut seen = vec![false; n];
    let mut queue = VecDeque::new();
    let mut group_done = vec![false; groups.len()];
    for p in 0..n {
        let root = kept[labels[p] as usize];
        if seen[root as usize] {
            continue;
        }
        seen[root as usize] = true;
        queue.push_back(root);
        while let Some(at) = queue.pop_front() {
            // A walk stays inside its cluster: a method other than
            // connected components can split a component of the pairs.
            let mut reach = |next: u32, score: f32, queue: &mut VecDeque<u32>| {
                if !seen[next as usize] && labels[next as usize] == labels[at as usize] {
                    seen[next as usize] = true;
                    via[next as usize] = Some((at, score));
                    queue.push_back(next);
                }
            };
            let g = group_of[at as usize];
            if g != u32::MAX && !group_done[g as usize] {
                group_done[g as usize] = true;
                for &q in &groups[g as usize].pages {
                    reach(q, groups[g as usize].score, &mut queue);
                }
            }
            for &(q, score) in &neighbours[at as usize] {
                reach(q, score, &mut queue);
            }
        }
    }
    let mut numbers = vec![u32::MAX; n];
    let mut next = 0u32;
    (0..n)
        .map(|p| {
            let label = labels[p] as usize;
            if numbers[label] == u32::MAX {
                numbers[label] = next;
                next += 1;
            }
            MappingRow {
                page: p as u32,
                cluster: numbers[label],
                kept: kept[label],
                joined_via: via[p],
            }
        })
        .collect()
}

/// Each page's passing pairs, both ways, in pair order (deterministic).
fn adjacency(n: usize, pairs: &[ScoredPair]) -> Vec<Vec<(u32, f32)>> {
    let mut out: Vec<Vec<(u32, f32)>> = vec![Vec::new(); n];
    for p in pairs {
        out[p.a as usize].push((p.b, p.score));
        out[p.b as usize].push((p.a, p.score));
    }
    out
}

/// A finished deduplication, before anything is written.
#[derive(Debug)]
pub struct Deduplicated {
    pub label: String,
    pub threshold: f64,
    pub facts: Vec<PageFacts>,
    pub rows: Vec<MappingRow>,
    /// Rows the reader skipped because their `html`/`text` was empty.
    pub skipped_empty: usize,
    pub seconds: f64,
    pub peak_memory_bytes: Option<u64>,
}

/// Reads `corpus` without labels (a `cluster` field is ignored), runs the
/// chosen entry on it at its threshold and maps every page.
pub fn deduplicate(
    experiment: &Experiment,
    corpus: &Path,
    wanted: Option<&str>,
    policy: KeepPolicy,
    progress: Option<Progress>,
) -> Result<Deduplicated, DedupError> {
    let started = std::time::Instant::now();
    let references = experiment.read_references()?;
    let choice = choose(&experiment.choices(&references), wanted)?;
    let pages = read_corpus_counted(corpus, ReadOptions::unlabelled(), &ReadCounter::default())
        .map_err(ExperimentError::from)?;
    let one = DedupRun {
        experiment,
        references: &references,
        corpus,
        choice: &choice,
        cache: CacheSetting::ProcessDefault,
    };
    let mut done = deduplicate_pages(&one, pages, policy, progress);
    done.seconds = started.elapsed().as_secs_f64();
    Ok(done)
}

/// The entry a deduplication runs: chosen from the experiment, whose
/// reference corpora are read, on the corpus at `corpus`.
pub struct DedupRun<'a> {
    pub experiment: &'a Experiment,
    pub references: &'a References,
    pub corpus: &'a Path,
    pub choice: &'a Choice,
    pub cache: CacheSetting,
}

/// [`deduplicate`] on pages already read (`neardup bench scale` makes
/// them).
pub fn deduplicate_pages(
    one: &DedupRun,
    mut pages: Corpus,
    policy: KeepPolicy,
    progress: Option<Progress>,
) -> Deduplicated {
    let started = std::time::Instant::now();
    let narrowed = narrowed(one.experiment.config(), one.choice, one.corpus);
    // The narrowed experiment's one entry reads the chosen entry's reference.
    let references = vec![one.references.get(one.choice.entry).cloned().flatten()];
    ignore_clusters(&mut pages);
    let skipped_empty = pages.skipped_empty;
    let mut facts: Vec<PageFacts> = pages
        .pages
        .iter()
        .map(|p| PageFacts {
            id: p.id.clone(),
            url: p.url.clone(),
            published: p.published.clone(),
            text_len: 0,
        })
        .collect();
    let watchers = Watchers {
        progress,
        ..Watchers::default()
    };
    let run = Experiment::from_config(narrowed, one.experiment.path())
        .prepare_pages(pages, references, one.cache.clone())
        .run(watchers);
    let result = run.result();
    for (f, &len) in facts.iter_mut().zip(&result.truth.text_len) {
        f.text_len = len;
    }
    let ran = result
        .algorithms
        .first()
        .expect("the narrowed experiment runs its one entry");
    let (pairs, groups) = passing(&ran.run, ran.threshold);
    let labels = cluster_run(facts.len(), &ran.run, ran.threshold, ran.clustering);
    let kept = representatives(&labels, &facts, policy);
    let rows = mapping(&labels, &kept, &pairs, &groups);
    Deduplicated {
        label: one.choice.label.clone(),
        threshold: ran.threshold,
        facts,
        rows,
        skipped_empty,
        seconds: started.elapsed().as_secs_f64(),
        peak_memory_bytes: result.peak_memory_bytes,
    }
}

/// Every page its own true cluster: the run's evaluation then costs
/// nothing, and a `cluster` column in the input changes no result.
fn ignore_clusters(corpus: &mut Corpus) {
    for p in &mut corpus.pages {
        p.cluster = format!("\u{0}page:{}", p.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::Direction;

    fn pair(a: u32, b: u32, score: f32) -> ScoredPair {
        ScoredPair { a, b, score }
    }

    fn similarity() -> crate::algo::ScoreScale {
        crate::algo::ScoreScale {
            name: "jaccard",
            direction: Direction::AtLeast,
            min: 0.0,
            max: 1.0,
            floor: 0.0,
        }
    }

    fn facts(ids: &[&str]) -> Vec<PageFacts> {
        ids.iter()
            .map(|id| PageFacts {
                id: id.to_string(),
                url: None,
                published: None,
                text_len: 0,
            })
            .collect()
    }

    #[test]
    fn clusters_join_pairs_and_groups() {
        let group = PageGroup {
            pages: vec![3, 5],
            score: 1.0,
            gate_scores: Default::default(),
        };
        let input = ClusterInput {
            pages: 6,
            pairs: &[pair(0, 1, 0.9), pair(1, 3, 0.8)],
            groups: &[&group],
            sampled: &[],
            scale: &similarity(),
            threshold: 0.5,
        };
        let labels = cluster_labels(&input, Clustering::Connected);
        assert_eq!(labels, vec![0, 0, 2, 0, 4, 0]);
    }

    #[test]
    fn each_policy_keeps_its_page_and_breaks_ties_by_id() {
        let mut f = facts(&["c", "b", "a"]);
        f[0].text_len = 10;
        f[1].text_len = 30;
        f[2].text_len = 30;
        f[0].url = Some("https://x.org/long/path".into());
        f[1].url = Some("https://x.org/a".into());
        f[2].published = Some(Published::Int(5));
        f[1].published = Some(Published::Int(7));
        let labels = vec![0, 0, 0];
        let keep = |f: &[PageFacts], p| representatives(&labels, f, p)[0];
        assert_eq!(keep(&f, KeepPolicy::First), 0);
        // Pages 1 and 2 are equally long: id `a` wins.
        assert_eq!(keep(&f, KeepPolicy::Longest), 2);
        assert_eq!(keep(&f, KeepPolicy::Earliest), 2);
        assert_eq!(keep(&f, KeepPolicy::ShortestUrl), 1);
        f[2].published = None;
        // Pages without a date come last, after page 1's.
        assert_eq!(keep(&f, KeepPolicy::Earliest), 1);
    }

    #[test]
    fn mapping_names_the_page_each_one_was_scored_against() {
        // 0-1-2 a chain, kept page 2: page 0 joined through page 1.
        let pairs = [pair(0, 1, 0.7), pair(1, 2, 0.9)];
        let input = ClusterInput {
            pages: 4,
            pairs: &pairs,
            groups: &[],
            sampled: &[],
            scale: &similarity(),
            threshold: 0.5,
        };
        let labels = cluster_labels(&input, Clustering::Connected);
        let kept = vec![2, 0, 0, 3];
        let rows = mapping(&labels, &kept, &pairs, &[]);
        assert_eq!(rows[2].joined_via, None);
        assert_eq!(rows[1].joined_via, Some((2, 0.9)));
        assert_eq!(rows[0].joined_via, Some((1, 0.7)));
        assert_eq!(rows[3].cluster, 1);
        assert!(rows[..3].iter().all(|r| r.cluster == 0 && r.kept == 2));
    }

    #[test]
    fn an_ambiguous_or_unknown_algorithm_lists_the_labels() {
        let c = |label: &str| Choice {
            entry: 0,
            extraction: Extraction::Main,
            label: label.into(),
        };
        let all = [
            c("simhash [main]"),
            c("simhash [full_text]"),
            c("exact [main]"),
        ];
        assert_eq!(choose(&all, Some("exact")).unwrap().label, "exact [main]");
        assert_eq!(
            choose(&all, Some("simhash [full_text]")).unwrap().label,
            "simhash [full_text]"
        );
        for wanted in [None, Some("simhash"), Some("minhash")] {
            let e = choose(&all, wanted).unwrap_err().to_string();
            assert!(e.contains("exact [main]"), "{e}");
        }
    }
}
