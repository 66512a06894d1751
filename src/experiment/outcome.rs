//! What a run gives: each algorithm's result with its curves cached, the
//! experiment's totals, and what a run's watchers receive. Kept apart from
//! the runner so that a module reading a run does not import the
//! orchestrator.

use std::borrow::Cow;
use std::sync::Arc;

use crate::algo::AlgorithmRun;
use crate::eval::choose::{choose, reachable_thresholds, Objective};
use crate::eval::clustering::{
    curve_beside_connected, curves_beside_connected, run_curve, Clustering,
};
use crate::eval::{Counts, Evaluation, Truth};
use crate::extract::boilerplate::GroupReport;
use crate::extract::cache::CacheReport;
use crate::extract::Extraction;
use crate::util::stage::{Progress, StageRecord};

#[derive(Debug, Clone)]
pub struct AlgorithmResult {
    /// Its entry in the experiment's `algorithms:`.
    pub entry: usize,
    /// The text the algorithm read.
    pub extraction: Extraction,
    /// Shared with the curves prepared in the background.
    pub run: Arc<AlgorithmRun>,
    /// The threshold the table is printed at.
    pub threshold: f64,
    /// How its passing pairs become clusters, for the clustered and page
    /// levels of `evaluations`, [`Self::full_curve`] and [`Self::best`].
    pub clustering: Clustering,
    /// One evaluation per threshold of the grid, in grid order.
    pub evaluations: Vec<Evaluation>,
    /// True pairs among all stored pairs (scored within the floor).
    pub candidates: Counts,
    /// True pairs among the candidate stage's pairs, before scoring: what
    /// the candidate search alone loses.
    pub candidate_stage: Counts,
    /// Pages without a signature, per slice of the truth.
    pub unsigned_by_slice: Vec<u64>,
    /// Seconds from pages to evaluation, the shared stages (extraction,
    /// tokenising) included.
    pub end_to_end: EndToEnd,
    /// The learned judge as the run fitted it, for the inspector: its
    /// I-Match and semantic features need the corpus statistics the run
    /// gathered (the lexicon, each page's analysis), which a judge built
    /// afresh for two pages does not have. Other algorithms sign a pair
    /// alone, so nothing is kept for them.
    pub fitted: Option<FittedAlgorithm>,
    /// Each clustering method's curve, computed once when first asked and
    /// read by every view after that (shared by clones).
    pub curves: Arc<CurveCache>,
}

/// Per clustering method, the evaluations over the reachable thresholds
/// through the configured gates, for the truth the run was scored on.
#[derive(Debug, Default)]
pub struct CurveCache {
    by_method: [std::sync::OnceLock<Vec<Evaluation>>; Clustering::ALL.len()],
    /// The truth the curves answer for (pages, true pairs), set by the
    /// first call: another truth is answered without the cache.
    truth: std::sync::OnceLock<(usize, u64)>,
}

impl CurveCache {
    fn slot(&self, method: Clustering) -> &std::sync::OnceLock<Vec<Evaluation>> {
        let at = Clustering::ALL.iter().position(|&c| c == method);
        &self.by_method[at.expect("every method has a slot")]
    }

    fn holds(&self, truth: &Truth) -> bool {
        let key = (truth.pages(), truth.true_pairs());
        *self.truth.get_or_init(|| key) == key
    }

    /// The curve of `method` for `run`, from the cache when it answers
    /// for `truth`. Other methods read their pairwise level from the
    /// connected curve, so it is computed first. A curve another thread is
    /// computing is waited for, never computed twice.
    pub fn curve<'a>(
        &'a self,
        run: &AlgorithmRun,
        truth: &Truth,
        method: Clustering,
    ) -> Cow<'a, [Evaluation]> {
        let (gates, thresholds) = (run.gate_thresholds(), reachable_thresholds(&run.scale));
        if !self.holds(truth) {
            return Cow::Owned(run_curve(truth, run, &gates, method, &thresholds));
        }
        let connected = self
            .slot(Clustering::Connected)
            .get_or_init(|| run_curve(truth, run, &gates, Clustering::Connected, &thresholds));
        Cow::Borrowed(self.slot(method).get_or_init(|| {
            curve_beside_connected(truth, run, &gates, method, &thresholds, connected)
        }))
    }

    /// Computes every clustering method's curve of `run`, in parallel, so
    /// that the views that follow only read them. The methods that walk
    /// the pairs in order share one sorting of them; average linkage, the
    /// longest, goes beside them.
    pub fn prepare(&self, run: &AlgorithmRun, truth: &Truth) {
        let Cow::Borrowed(connected) = self.curve(run, truth, Clustering::Connected) else {
            return;
        };
        let walked: Vec<Clustering> = Clustering::ALL
            .into_iter()
            .filter(|&m| m != Clustering::Average && self.slot(m).get().is_none())
            .collect();
        rayon::join(
            || self.curve(run, truth, Clustering::Average),
            || {
                let (gates, thresholds) = (run.gate_thresholds(), reachable_thresholds(&run.scale));
                let curves =
                    curves_beside_connected(truth, run, &gates, &walked, &thresholds, connected);
                for (method, curve) in walked.iter().zip(curves) {
                    // Another thread may have made it first: the same curve.
                    let _ = self.slot(*method).set(curve);
                }
            },
        );
    }
}

/// An algorithm after its run, fitted to the corpus.
#[derive(Clone)]
pub struct FittedAlgorithm(pub Arc<dyn crate::algo::Algorithm>);

impl std::fmt::Debug for FittedAlgorithm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "FittedAlgorithm({})", self.0.label())
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct EndToEnd {
    pub wall_seconds: f64,
    pub cpu_seconds: f64,
}

impl AlgorithmResult {
    pub fn at_threshold(&self) -> &Evaluation {
        self.evaluations
            .iter()
            .find(|e| e.threshold == self.threshold)
            .expect("the grid contains the threshold")
    }

    /// Evaluations at every threshold the stored pairs answer (hundredths
    /// for similarities, whole numbers for counts and distances), through
    /// the configured gates: what best figures are chosen over, so that
    /// `run`, `tune`, the reports and the workbench agree. The grid only
    /// places points on plots.
    pub fn full_curve(&self, truth: &Truth) -> Vec<Evaluation> {
        self.curve_clustered_by(truth, self.clustering)
    }

    /// [`Self::full_curve`] with clusters made by `method` instead.
    pub fn curve_clustered_by(&self, truth: &Truth, method: Clustering) -> Vec<Evaluation> {
        self.curve_of(truth, method).into_owned()
    }

    /// The curve of `method` (see [`CurveCache::curve`]).
    pub fn curve_of(&self, truth: &Truth, method: Clustering) -> Cow<'_, [Evaluation]> {
        self.curves.curve(&self.run, truth, method)
    }

    /// Every method's curve, computed now where not yet.
    pub fn prepare_curves(&self, truth: &Truth) {
        self.curves.prepare(&self.run, truth);
    }

    /// Starts computing every method's curve in the thread pool and
    /// returns at once: the runner goes on with the next algorithm, and a
    /// view that asks for a curve before it is done waits for it.
    pub fn prepare_curves_in_background(&self, truth: &Arc<Truth>) {
        let (run, curves, truth) = (self.run.clone(), self.curves.clone(), truth.clone());
        rayon::spawn(move || curves.prepare(&run, &truth));
    }

    /// Where `objective` is best over [`Self::full_curve`].
    pub fn best(&self, truth: &Truth, objective: Objective) -> Option<Evaluation> {
        choose(
            &self.curve_of(truth, self.clustering),
            &self.run.scale,
            objective,
        )
        .cloned()
    }
}

#[derive(Debug, Clone)]
pub struct ExperimentResult {
    pub name: String,
    pub corpus_source: String,
    /// Pages evaluated.
    pub pages: usize,
    pub input_bytes: usize,
    /// Rows the reader skipped because `html`/`text` was empty.
    pub skipped_empty: usize,
    /// Per extraction, pages whose extracted text was empty. They stay in
    /// the evaluation (a miss is a miss) without a signature.
    pub empty_after_extraction: Vec<(Extraction, usize)>,
    /// Per extraction, what `boilerplate: site` removed in each host and
    /// template group (empty when the experiment does not ask for it).
    pub boilerplate: Vec<(Extraction, Vec<GroupReport>)>,
    /// Per extraction, what the extraction cache gave (empty when it is off).
    pub extract_cache: Vec<(Extraction, CacheReport)>,
    pub truth: Truth,
    pub algorithms: Vec<AlgorithmResult>,
    pub throughput: Vec<StageRecord>,
    pub wall_seconds: f64,
    pub cpu_seconds: f64,
    pub peak_memory_bytes: Option<u64>,
}

/// Who hears of a run's progress.
#[derive(Debug, Default)]
pub struct Watchers {
    /// Told of each stage as it finishes.
    pub stages: Option<std::sync::mpsc::Sender<StageRecord>>,
    /// Told of the work inside each stage.
    pub progress: Option<Progress>,
    /// Given the truth once the first extraction is ready, then each
    /// algorithm run as it finishes, in the result's order; the returned
    /// result then holds no algorithm runs (the watcher has them), so
    /// that a view can show each run while the next ones go.
    pub results: Option<std::sync::mpsc::Sender<RunOutput>>,
}

/// What [`Watchers::results`] receives.
#[derive(Debug)]
pub enum RunOutput {
    Truth(Truth),
    Algorithm(Box<AlgorithmResult>),
}
