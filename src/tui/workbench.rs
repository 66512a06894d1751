//! What the workbench shows, computed from an experiment's results: the
//! thresholds being tuned and their evaluations, the corpus at a glance,
//! the errors at the current thresholds and the pair being inspected.
//! Nothing here draws; the screens read it.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use crate::algo::{Direction, GateScores, PageGroup, ScoreScale, ScoredPair};
use crate::corpus::Corpus;
use crate::eval::choose::{
    choose, reachable_range, reachable_thresholds, round4, threshold_step, within_floor, Objective,
};
use crate::eval::clustering::{evaluate_clustering, run_curve, Clustering};
use crate::eval::curve::ThresholdCurve;
use crate::eval::judged::{choose_judged, JudgedCurve, JudgedEvaluation, JudgedTruth};
use crate::eval::{reachable_recall, Evaluation, LevelMetrics, Truth};
use crate::experiment::{AlgorithmResult, ExperimentConfig, ExperimentResult};

/// Where the workbench's experiment comes from, for reloading and saving.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// The embedded demo experiment and corpus.
    Demo,
    /// An experiment YAML.
    Experiment(PathBuf),
    /// A corpus, run with every algorithm at its defaults.
    Corpus(PathBuf),
    /// Pairs (and clusters) computed elsewhere, e.g. by the Spark job,
    /// scored over the corpus as `neardup evaluate` scores them.
    External {
        corpus: PathBuf,
        pairs: Vec<PathBuf>,
        clusters: Vec<PathBuf>,
        /// Bad rows of the pairs skipped and counted, not refused.
        skip_bad_pairs: bool,
    },
}

impl Source {
    pub fn describe(&self) -> String {
        match self {
            Source::Demo => "demo (embedded)".into(),
            Source::Experiment(p) => p.display().to_string(),
            Source::Corpus(p) => format!("{} (default algorithms)", p.display()),
            Source::External { corpus, pairs, .. } => {
                let pairs: Vec<String> = pairs.iter().map(|p| p.display().to_string()).collect();
                format!(
                    "{} on {} (computed elsewhere)",
                    pairs.join(", "),
                    corpus.display()
                )
            }
        }
    }
}

/// The three metric levels of SPEC section 2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Pairwise,
    Clustered,
    Page,
}

impl Level {
    pub const ALL: [Level; 3] = [Level::Pairwise, Level::Clustered, Level::Page];

    pub fn name(self) -> &'static str {
        match self {
            Level::Pairwise => "pairwise",
            Level::Clustered => "clustered",
            Level::Page => "page",
        }
    }

    pub fn of(self, e: &Evaluation) -> &LevelMetrics {
        match self {
            Level::Pairwise => &e.pairwise,
            Level::Clustered => &e.clustered,
            Level::Page => &e.page,
        }
    }

    pub fn next(self) -> Level {
        match self {
            Level::Pairwise => Level::Clustered,
            Level::Clustered => Level::Page,
            Level::Page => Level::Pairwise,
        }
    }
}

/// One algorithm's knobs and what they give.
#[derive(Debug, Clone)]
pub struct Tuning {
    pub threshold: f64,
    /// Gate thresholds (the semantic method's title and subtitles).
    pub gates: Vec<f64>,
    /// How far one key press moves the threshold.
    pub step: f64,
    /// The stored pairs passing the gates; `None` when there are no gates
    /// (all stored pairs then).
    gated: Option<Vec<ScoredPair>>,
    /// Every threshold's evaluation at the current gates: a threshold
    /// move is a lookup, a gate move rebuilds it.
    lookup: ThresholdCurve,
    pub evaluation: Evaluation,
    /// Evaluations over the curve's thresholds, for the charts.
    pub curve: Vec<Evaluation>,
    /// The least pairwise precision the "most recall" jump asks for.
    pub least_precision: f64,
    /// Thresholds that serve each of [`Tuning::objectives`] best on the
    /// curve, `None` where none qualifies.
    pub choices: Vec<(Objective, Option<f64>)>,
    /// The experiment's judged pairs and their table at the current gates:
    /// a threshold move is a lookup there too.
    judged: Option<(Arc<JudgedTruth>, JudgedCurve)>,
    /// The judged pairs at the current threshold.
    pub judged_evaluation: Option<JudgedEvaluation>,
    /// [`ceilings`], computed once: the candidates never change.
    ceilings: [f64; 3],
    /// How passing pairs become clusters for `evaluation` and `curve`.
    pub clustering: Clustering,
}

/// Recall no threshold or gate can pass at each level (in
/// [`Level::ALL`] order), from every pair the candidate stage produced:
/// at the pairwise level the true pairs among them; at the clustered and
/// page levels what their transitive closure could reach. A page-level
/// recall can fall as a threshold loosens, so the pairwise figure is no
/// bound there.
pub fn ceilings(result: &AlgorithmResult, truth: &Truth) -> [f64; 3] {
    let run = &result.run;
    // After compaction the stored pairs and the rest of the candidates
    // are apart; together they are the candidate stage's pairs.
    let candidates = run
        .pairs
        .iter()
        .map(|p| (p.a, p.b))
        .chain(run.candidate_pairs.iter().copied());
    let (clustered, page) = reachable_recall(truth, candidates, &run.groups);
    [result.candidate_stage.recall(), clustered, page]
}

impl Tuning {
    pub fn new(result: &AlgorithmResult, truth: &Truth) -> Self {
        let run = &result.run;
        let gates = run.gate_thresholds();
        let mut tuning = Tuning {
            threshold: result.threshold,
            lookup: ThresholdCurve::of_run(truth, run, &gates),
            gates,
            step: threshold_step(&run.scale),
            gated: None,
            evaluation: result.at_threshold().clone(),
            curve: Vec::new(),
            least_precision: 0.99,
            choices: Vec::new(),
            judged: None,
            judged_evaluation: None,
            ceilings: ceilings(result, truth),
            clustering: result.clustering,
        };
        tuning.refilter_with(result, truth, false);
        tuning
    }

    /// The recall no threshold can pass at `level`.
    pub fn ceiling(&self, level: Level) -> f64 {
        let at = Level::ALL
            .iter()
            .position(|&l| l == level)
            .expect("every level is listed");
        self.ceilings[at]
    }

    /// The objectives the jump keys serve, in key order.
    pub fn objectives(&self) -> [Objective; 3] {
        [
            Objective::PairwiseF1,
            Objective::ClusteredF1,
            Objective::RecallAtPrecision(self.least_precision),
        ]
    }

    /// The pairs the evaluation reads: the stored ones through the gates.
    pub fn pairs<'a>(&'a self, result: &'a AlgorithmResult) -> &'a [ScoredPair] {
        self.gated.as_deref().unwrap_or(&result.run.pairs)
    }

    /// After a gate moved: filter the stored pairs again, rebuild the
    /// lookup (with `rebuild`), then evaluate the threshold and the whole
    /// curve.
    fn refilter_with(&mut self, result: &AlgorithmResult, truth: &Truth, rebuild: bool) {
        let run = &result.run;
        self.gated = (!run.gates.is_empty()).then(|| run.gated_pairs(&self.gates).into_owned());
        if rebuild {
            self.lookup = ThresholdCurve::of_run(truth, run, &self.gates);
            if let Some((judged, table)) = &mut self.judged {
                *table = JudgedCurve::of_run(judged, run, &self.gates);
            }
        }
        self.recluster(result, truth);
    }

    /// The curve, the choices and the evaluation with clusters made by
    /// `self.clustering`, through the function `run` and `tune` use.
    fn recluster(&mut self, result: &AlgorithmResult, truth: &Truth) {
        let run = &result.run;
        let thresholds = reachable_thresholds(&run.scale);
        // At the run's own gates the curve is the run's, computed once.
        self.curve = if self.gates == run.gate_thresholds() {
            result.curve_of(truth, self.clustering).into_owned()
        } else {
            match self.clustering {
                Clustering::Connected => self.lookup.at_each(&thresholds),
                method => run_curve(truth, run, &self.gates, method, &thresholds),
            }
        };
        self.choose(&run.scale);
        self.evaluate_with(result, truth);
    }

    /// Makes clusters by `method` from now on.
    pub fn set_clustering(&mut self, method: Clustering, result: &AlgorithmResult, truth: &Truth) {
        self.clustering = method;
        self.recluster(result, truth);
    }

    /// With judged pairs the jumps choose over them, as `neardup tune`
    /// does, so that a jump and a tuned file agree; clustered F1 is then
    /// not chosen (pairs have no clusters), as `tune` refuses it.
    fn choose(&mut self, scale: &ScoreScale) {
        let judged_grid = self
            .judged
            .as_ref()
            .map(|(_, table)| table.at_each(&reachable_thresholds(scale)));
        self.choices = self
            .objectives()
            .into_iter()
            .map(|o| {
                let threshold = match (&judged_grid, o) {
                    (Some(_), Objective::ClusteredF1) => None,
                    (Some(grid), o) => choose_judged(grid, scale, o).map(|e| e.threshold),
                    (None, o) => choose(&self.curve, scale, o).map(|e| e.threshold),
                };
                (o, threshold)
            })
            .collect();
    }

    /// Whether the jumps choose over judged pairs.
    pub fn chooses_over_judged(&self) -> bool {
        self.judged.is_some()
    }

    /// Sets the least precision of the "most recall" jump.
    pub fn set_least_precision(&mut self, p: f64, scale: &ScoreScale) {
        self.least_precision = p;
        self.choose(scale);
    }

    /// Re-reads the judged pairs, and the evaluation when clusters are
    /// connected components (a lookup); other methods' clusters need the
    /// truth: see [`Self::evaluate_with`].
    fn evaluate(&mut self) {
        if self.clustering == Clustering::Connected {
            self.evaluation = self.lookup.at(self.threshold);
        }
        self.judged_evaluation = self.judged.as_ref().map(|(_, t)| t.at(self.threshold));
    }

    fn evaluate_with(&mut self, result: &AlgorithmResult, truth: &Truth) {
        self.evaluate();
        if self.clustering == Clustering::Connected {
            return;
        }
        // The curve holds every reachable threshold; a typed one between
        // them is clustered alone.
        let on_curve = self.curve.iter().find(|e| e.threshold == self.threshold);
        if let Some(evaluation) = on_curve {
            self.evaluation = evaluation.clone();
        } else {
            self.evaluation = evaluate_clustering(
                truth,
                self.pairs(result),
                &result.run.groups,
                &result.run.sampled,
                &self.gates,
                &result.run.scale,
                self.threshold,
                self.clustering,
            );
        }
    }

    /// The judged pairs at each threshold, when there are judged pairs.
    pub fn judged_at_each(&self, thresholds: &[f64]) -> Option<Vec<JudgedEvaluation>> {
        self.judged.as_ref().map(|(_, t)| t.at_each(thresholds))
    }

    /// Scores the judged pairs too, from now on.
    pub fn judge(&mut self, truth: Arc<JudgedTruth>, result: &AlgorithmResult) {
        let table = JudgedCurve::of_run(&truth, &result.run, &self.gates);
        self.judged = Some((truth, table));
        self.choose(&result.run.scale);
        self.evaluate();
    }

    /// Sets the threshold and re-evaluates. A threshold past the floor is
    /// refused (the stored pairs cannot answer it): the threshold stops at
    /// the floor and the message says which key reaches further.
    pub fn set_threshold(
        &mut self,
        value: f64,
        result: &AlgorithmResult,
        truth: &Truth,
    ) -> Result<(), String> {
        let scale = &result.run.scale;
        let (lo, hi) = reachable_range(scale);
        let refused = (!within_floor(scale, value)).then(|| {
            if value < scale.min || value > scale.max {
                format!(
                    "{} is out of range {}..={} for {}",
                    round4(value),
                    scale.min,
                    scale.max,
                    scale.name
                )
            } else {
                // SimHash's permuted tables find pairs only as far as their
                // layout reaches, so a higher floor alone is refused by the config.
                let reach = if result.run.name == "simhash" {
                    "raise this algorithm's `floor` in the experiment, with a wider `index` layout or `candidates: all_pairs` (the tables find no pair past their layout)"
                } else {
                    "raise this algorithm's `floor` in the experiment to reach it"
                };
                format!(
                    "{} is past the floor {}: pairs beyond it were never stored; {reach}",
                    round4(value),
                    scale.floor
                )
            }
        });
        self.threshold = round4(value.clamp(lo, hi));
        self.evaluate_with(result, truth);
        match refused {
            Some(message) => Err(message),
            None => Ok(()),
        }
    }

    pub fn set_gate(&mut self, gate: usize, value: f64, result: &AlgorithmResult, truth: &Truth) {
        if let Some(g) = self.gates.get_mut(gate) {
            *g = round4(value.clamp(0.0, 1.0));
            self.refilter_with(result, truth, true);
        }
    }

    /// Whether a stored pair with this score and these gate scores is
    /// judged a duplicate now.
    pub fn judges(&self, scale: &ScoreScale, score: f32, gate_scores: Option<&[f32]>) -> bool {
        scale.passes(score, self.threshold)
            && gate_scores.is_none_or(|g| {
                g.iter()
                    .zip(&self.gates)
                    .all(|(&s, &t)| s.is_nan() || f64::from(s) >= t)
            })
    }
}

/// An algorithm run not finished yet.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingRun {
    /// Its entry in the experiment's `algorithms:`.
    pub entry: usize,
    pub extraction: crate::extract::Extraction,
    /// Its type and entry number, until the run gives its full label.
    pub label: String,
}

/// The experiment's algorithm runs in the order the runner makes them
/// (per extraction, each entry reading it).
pub fn planned_runs(config: &ExperimentConfig) -> Vec<PendingRun> {
    let mut runs = Vec::new();
    for extraction in config.extractions() {
        for (i, entry) in config.algorithms.iter().enumerate() {
            if config.runs_on(entry, extraction) {
                let kind = serde_json::to_value(&entry.config)
                    .ok()
                    .and_then(|v| v.get("type").and_then(|t| t.as_str()).map(String::from))
                    .unwrap_or_else(|| "algorithm".into());
                runs.push(PendingRun {
                    entry: i,
                    extraction,
                    label: format!("{kind} #{}", i + 1),
                });
            }
        }
    }
    runs
}

/// The corpus at a glance.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CorpusSummary {
    pub pages: usize,
    pub bytes: usize,
    pub clusters: usize,
    /// Clusters of two pages or more.
    pub duplicate_clusters: usize,
    /// (cluster size, clusters of that size), sizes ascending.
    pub cluster_sizes: Vec<(usize, usize)>,
    /// (language code, pages), by pages descending.
    pub languages: Vec<(String, usize)>,
    /// (slice, pages, true pairs counted in it).
    pub slices: Vec<(String, usize, u64)>,
    pub true_pairs: u64,
}

impl CorpusSummary {
    pub fn new(corpus: &Corpus, truth: &Truth) -> Self {
        let mut cluster_size: BTreeMap<u32, usize> = BTreeMap::new();
        for &c in &truth.cluster {
            *cluster_size.entry(c).or_default() += 1;
        }
        let mut sizes: BTreeMap<usize, usize> = BTreeMap::new();
        for &size in cluster_size.values() {
            *sizes.entry(size).or_default() += 1;
        }
        let mut languages: BTreeMap<String, usize> = BTreeMap::new();
        for page in &corpus.pages {
            let code = page
                .lang
                .as_ref()
                .map(|l| l.code().to_string())
                .unwrap_or_else(|| "by script".into());
            *languages.entry(code).or_default() += 1;
        }
        let mut languages: Vec<(String, usize)> = languages.into_iter().collect();
        languages.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut slice_pages = vec![0usize; truth.slice_names.len()];
        for &s in &truth.slice {
            slice_pages[s as usize] += 1;
        }
        CorpusSummary {
            pages: corpus.pages.len(),
            bytes: corpus.content_bytes(),
            clusters: cluster_size.len(),
            duplicate_clusters: cluster_size.values().filter(|&&n| n > 1).count(),
            cluster_sizes: sizes.into_iter().collect(),
            languages,
            slices: truth
                .slice_names
                .iter()
                .zip(slice_pages)
                .zip(&truth.actual_pairs)
                .map(|((name, pages), &pairs)| (name.clone(), pages, pairs))
                .collect(),
            true_pairs: truth.true_pairs(),
        }
    }
}

/// A judged pair the labels disagree with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ErrorRow {
    pub a: u32,
    pub b: u32,
    /// The stored score; `None` for a true pair never stored (not a
    /// candidate, or past the floor).
    pub score: Option<f32>,
    pub slice: u16,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    FalsePositives,
    FalseNegatives,
}

impl ErrorKind {
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::FalsePositives => "false positives",
            ErrorKind::FalseNegatives => "false negatives",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorSort {
    /// Most confident first: the highest similarity, the least distance.
    MostConfident,
    LeastConfident,
}

/// False negatives listed at most: a corpus with clusters of thousands of
/// pages has millions of true pairs.
pub const MAX_LISTED: usize = 50_000;

/// The errors of one algorithm at its current thresholds, of one slice or
/// of all: at most [`MAX_LISTED`] rows, and how many errors each slice
/// holds in all (a group's pairs are counted from its parts' sizes and
/// listed only up to the bound).
pub fn find_errors(
    result: &AlgorithmResult,
    tuning: &Tuning,
    truth: &Truth,
    kind: ErrorKind,
    slice: Option<u16>,
) -> (Vec<ErrorRow>, Vec<u64>) {
    let run = &result.run;
    fn gated(gates: bool, scores: &GateScores) -> Option<&[f32]> {
        gates.then_some(&scores[..])
    }
    let has_gates = !run.gates.is_empty();
    let with_gates = |g| gated(has_gates, g);
    let gate_scores = |i: usize| run.gate_scores.get(i).and_then(with_gates);
    let same_cluster = |a: u32, b: u32| truth.cluster[a as usize] == truth.cluster[b as usize];
    let shown = |a: u32, b: u32| slice.is_none_or(|s| truth.pair_slice(a, b) == s);
    let row = |a: u32, b: u32, score: Option<f32>| ErrorRow {
        a: a.min(b),
        b: a.max(b),
        score,
        slice: truth.pair_slice(a, b),
    };
    let judged_groups: Vec<&PageGroup> = run
        .stored_groups()
        .filter(|g| tuning.judges(&run.scale, g.score, with_gates(&g.gate_scores)))
        .collect();
    let mut rows = Vec::new();
    let mut by_slice = vec![0u64; truth.slice_names.len()];
    let pair_of =
        |by_slice: &mut [u64], a: u32, b: u32| by_slice[truth.pair_slice(a, b) as usize] += 1;
    match kind {
        ErrorKind::FalsePositives => {
            for (i, p) in run.pairs.iter().enumerate() {
                if !same_cluster(p.a, p.b) && tuning.judges(&run.scale, p.score, gate_scores(i)) {
                    pair_of(&mut by_slice, p.a, p.b);
                    if rows.len() < MAX_LISTED && shown(p.a, p.b) {
                        rows.push(row(p.a, p.b, Some(p.score)));
                    }
                }
            }
            for g in judged_groups {
                let mut pages = g.pages.clone();
                pages.sort_by_key(|&p| (truth.cluster[p as usize], p));
                let parts: Vec<&[u32]> = pages.chunk_by(|&x, &y| same_cluster(x, y)).collect();
                add_pairs_by_slice(&mut by_slice, truth, &pages, 1);
                for part in &parts {
                    add_pairs_by_slice(&mut by_slice, truth, part, -1);
                }
                'listing: for (k, part) in parts.iter().enumerate() {
                    for &a in *part {
                        for &b in parts[k + 1..].iter().flat_map(|p| p.iter()) {
                            if rows.len() >= MAX_LISTED {
                                break 'listing;
                            }
                            if shown(a, b) {
                                rows.push(row(a, b, Some(g.score)));
                            }
                        }
                    }
                }
            }
        }
        ErrorKind::FalseNegatives => {
            // Pages in one judged group are all found together.
            let mut group_of = vec![u32::MAX; truth.pages()];
            for (k, g) in judged_groups.iter().enumerate() {
                for &p in &g.pages {
                    group_of[p as usize] = k as u32;
                }
            }
            for (i, p) in run.pairs.iter().enumerate() {
                if same_cluster(p.a, p.b) && tuning.judges(&run.scale, p.score, gate_scores(i)) {
                    // Found: taken off the cluster's pairs counted below.
                    let s = truth.pair_slice(p.a, p.b) as usize;
                    by_slice[s] = by_slice[s].wrapping_sub(1);
                }
            }
            let mut members: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
            for (page, &c) in truth.cluster.iter().enumerate() {
                members.entry(c).or_default().push(page as u32);
            }
            for pages in members.values_mut().filter(|m| m.len() > 1) {
                pages.sort_by_key(|&p| (group_of[p as usize], p));
                let parts: Vec<&[u32]> = pages
                    .chunk_by(|&x, &y| group_of[x as usize] == group_of[y as usize])
                    .collect();
                add_pairs_by_slice(&mut by_slice, truth, pages, 1);
                for part in parts.iter().filter(|p| group_of[p[0] as usize] != u32::MAX) {
                    add_pairs_by_slice(&mut by_slice, truth, part, -1);
                }
                'listing: for (k, part) in parts.iter().enumerate() {
                    let alone = group_of[part[0] as usize] == u32::MAX;
                    for (n, &a) in part.iter().enumerate() {
                        let same_part = if alone { &part[n + 1..] } else { &[][..] };
                        let others = parts[k + 1..].iter().flat_map(|p| p.iter());
                        for &b in same_part.iter().chain(others) {
                            if rows.len() >= MAX_LISTED {
                                break 'listing;
                            }
                            let (a, b) = (a.min(b), a.max(b));
                            if !shown(a, b) {
                                continue;
                            }
                            let stored =
                                run.pairs.binary_search_by_key(&(a, b), |p| (p.a, p.b)).ok();
                            let detected = stored.is_some_and(|k| {
                                tuning.judges(&run.scale, run.pairs[k].score, gate_scores(k))
                            });
                            if !detected {
                                rows.push(row(a, b, stored.map(|k| run.pairs[k].score)));
                            }
                        }
                    }
                }
            }
        }
    }
    (rows, by_slice)
}

/// Adds (`sign` 1) or takes off (-1) the pairs among `pages` to the count
/// of their slice, a pair's slice being its pages' highest: of n pages at
/// slice s or below, C(n, 2) pairs sit at s or below, so the pairs at s
/// are that less the pairs below s, without visiting every pair of a
/// cluster of thousands.
fn add_pairs_by_slice(by_slice: &mut [u64], truth: &Truth, pages: &[u32], sign: i64) {
    let mut at = vec![0u64; by_slice.len()];
    for &p in pages {
        at[truth.slice[p as usize] as usize] += 1;
    }
    let pairs = |n: u64| n * n.saturating_sub(1) / 2;
    let mut below = 0u64;
    for (count, &here) in by_slice.iter_mut().zip(&at) {
        let added = pairs(below + here) - pairs(below);
        *count = if sign < 0 {
            count.wrapping_sub(added)
        } else {
            count.wrapping_add(added)
        };
        below += here;
    }
}

/// Sorts error rows by score, most or least confident first; pairs never
/// stored come last either way.
pub fn sort_errors(rows: &mut [ErrorRow], scale: &ScoreScale, sort: ErrorSort) {
    let confidence = |s: f32| match scale.direction {
        Direction::AtLeast => s,
        Direction::AtMost => -s,
    };
    rows.sort_by(|x, y| {
        let key = |r: &ErrorRow| r.score.map(confidence);
        let order = match (key(x), key(y)) {
            (Some(a), Some(b)) => match sort {
                ErrorSort::MostConfident => b.total_cmp(&a),
                ErrorSort::LeastConfident => a.total_cmp(&b),
            },
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        };
        order.then((x.a, x.b).cmp(&(y.a, y.b)))
    });
}

/// Everything loaded: the experiment, its corpus and results, and the
/// tuning state per algorithm.
#[derive(Debug, Clone)]
pub struct Workbench {
    pub source: Source,
    pub config: ExperimentConfig,
    pub corpus: Arc<Corpus>,
    pub result: ExperimentResult,
    pub summary: CorpusSummary,
    pub tunings: Vec<Tuning>,
    /// The experiment's judged pairs, when it gives its truth so.
    pub judged: Option<Arc<JudgedTruth>>,
    /// Algorithm runs still to come, in run order, after those in
    /// `result.algorithms` (which fill in as they finish).
    pub pending: Vec<PendingRun>,
}

impl Workbench {
    pub fn new(
        source: Source,
        config: ExperimentConfig,
        corpus: Arc<Corpus>,
        result: ExperimentResult,
    ) -> Self {
        Self::observed(source, config, corpus, result, &|| {})
    }

    /// [`Workbench::new`], calling `curve_done` as each algorithm's
    /// threshold curve is built (they are built in parallel: on a large
    /// corpus they take seconds).
    fn observed(
        source: Source,
        config: ExperimentConfig,
        corpus: Arc<Corpus>,
        result: ExperimentResult,
        curve_done: &(dyn Fn() + Sync),
    ) -> Self {
        use rayon::prelude::*;
        let summary = CorpusSummary::new(&corpus, &result.truth);
        let tunings = result
            .algorithms
            .par_iter()
            .map(|a| {
                let tuning = Tuning::new(a, &result.truth);
                curve_done();
                tuning
            })
            .collect();
        Workbench {
            source,
            config,
            corpus,
            result,
            summary,
            tunings,
            judged: None,
            pending: Vec::new(),
        }
    }

    /// The workbench as soon as the corpus is read and its truth known,
    /// before any algorithm run finished: `pending` names the runs to come.
    pub fn started(
        source: Source,
        config: ExperimentConfig,
        corpus: Arc<Corpus>,
        name: &str,
        truth: Truth,
        judged: Option<Arc<JudgedTruth>>,
    ) -> Self {
        let result = ExperimentResult {
            name: name.to_string(),
            corpus_source: corpus.source.clone(),
            pages: corpus.pages.len(),
            input_bytes: corpus.content_bytes(),
            skipped_empty: corpus.skipped_empty,
            empty_after_extraction: Vec::new(),
            boilerplate: Vec::new(),
            extract_cache: Vec::new(),
            truth,
            algorithms: Vec::new(),
            throughput: Vec::new(),
            wall_seconds: 0.0,
            cpu_seconds: 0.0,
            peak_memory_bytes: None,
        };
        let pending = planned_runs(&config);
        let mut bench = Workbench::new(source, config, corpus, result);
        bench.judged = judged;
        bench.pending = pending;
        bench
    }

    /// An algorithm run finished, its tuning state built.
    pub fn push_run(&mut self, result: AlgorithmResult, tuning: Tuning) {
        self.result.algorithms.push(result);
        self.tunings.push(tuning);
        if !self.pending.is_empty() {
            self.pending.remove(0);
        }
    }

    /// The whole run finished: its totals (times, throughput, cache
    /// reports) replace the placeholders; the runs already pushed stay.
    pub fn complete(&mut self, mut result: ExperimentResult) {
        result.algorithms = std::mem::take(&mut self.result.algorithms);
        self.result = result;
        self.pending.clear();
    }

    /// Slices worth a row: those with something to find or something found
    /// by any algorithm at its configured threshold.
    pub fn shown_slices(&self) -> Vec<usize> {
        (0..self.result.truth.slice_names.len())
            .filter(|&s| {
                self.result.truth.actual_pairs[s] > 0
                    || self.tunings.iter().any(|t| {
                        Level::ALL
                            .iter()
                            .any(|l| l.of(&t.evaluation).slices[s].detected > 0)
                    })
            })
            .collect()
    }
}
