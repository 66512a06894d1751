//! Thresholds chosen and carried: the experiment as tuned (by the
//! workbench or by `neardup tune`), written complete, and the transfer
//! of those thresholds to another corpus.

use serde::{Deserialize, Serialize};

use super::config::{AlgorithmEntry, ExperimentConfig};
use super::outcome::ExperimentResult;
use crate::eval::choose::{choose, reachable_thresholds, Objective};
use crate::eval::clustering::Clustering;
use crate::eval::judged::{choose_judged, JudgedCurve, JudgedTruth};
use crate::extract::Extraction;

/// What tuning (and the workbench) does with an experiment's `seeds:`:
/// nothing but say so. Thresholds are chosen on the experiment's own
/// corpus, the one `neardup run --no-seeds` reads; `None` without seeds.
pub fn seeds_note(config: &ExperimentConfig) -> Option<String> {
    let seeds = config.seeds.as_ref()?;
    Some(format!(
        "`seeds:` left aside: thresholds are chosen on the experiment's own corpus (as `neardup run --no-seeds` runs it), not on the {} seeds' corpora; the tuned file leaves `seeds:` out, so `neardup run` on it reproduces them",
        seeds.values.len()
    ))
}

/// The workbench's one-line form of [`seeds_note`].
pub fn seeds_status(config: &ExperimentConfig) -> Option<String> {
    let seeds = config.seeds.as_ref()?;
    Some(format!(
        "the experiment's own corpus, not its {} seeds' (`neardup run` draws those)",
        seeds.values.len()
    ))
}

/// One algorithm run's tuned knobs.
#[derive(Debug, Clone, PartialEq)]
pub struct TunedRun {
    /// The run's entry in the experiment's `algorithms:`.
    pub entry: usize,
    pub extraction: Extraction,
    pub threshold: f64,
    /// Gate thresholds in the detector's order.
    pub gates: Vec<f64>,
    /// The clustering method to write into the entry; `None` keeps what
    /// the experiment says.
    pub clustering: Option<Clustering>,
}

/// The experiment with every derived knob pinned and each run's tuned
/// thresholds; an entry tuned differently on two extractions becomes one
/// entry per extraction. Also gives, per tuned run, its entry in the new
/// file.
pub fn tuned_config(
    config: &ExperimentConfig,
    name: &str,
    runs: &[TunedRun],
) -> (ExperimentConfig, Vec<usize>) {
    let pinned = config.pinned();
    let mut tuned = pinned.clone();
    tuned.name = Some(name.to_string());
    // The thresholds were chosen on the experiment's own corpus: a tuned
    // file that drew a corpus per seed again would not reproduce them.
    tuned.seeds = None;
    tuned.algorithms = Vec::new();
    let mut placed = vec![0; runs.len()];
    for (i, entry) in pinned.algorithms.iter().enumerate() {
        let mine: Vec<usize> = (0..runs.len()).filter(|&k| runs[k].entry == i).collect();
        let agree = mine.windows(2).all(|w| {
            let (a, b) = (&runs[w[0]], &runs[w[1]]);
            a.threshold == b.threshold && a.gates == b.gates && a.clustering == b.clustering
        });
        let tune = |extract: Option<Extraction>, run: &TunedRun| {
            let mut e: AlgorithmEntry = entry.clone();
            if extract.is_some() {
                e.extract = extract;
            }
            e.config.settings_mut().tune(run.threshold, &run.gates);
            if run.clustering.is_some() {
                e.clustering = run.clustering;
            }
            e
        };
        match mine.first() {
            None => tuned.algorithms.push(entry.clone()),
            Some(&first) if agree => {
                tuned.algorithms.push(tune(None, &runs[first]));
                for &k in &mine {
                    placed[k] = tuned.algorithms.len() - 1;
                }
            }
            Some(_) => {
                for &k in &mine {
                    tuned
                        .algorithms
                        .push(tune(Some(runs[k].extraction), &runs[k]));
                    placed[k] = tuned.algorithms.len() - 1;
                }
            }
        }
    }
    (tuned, placed)
}

/// What the thresholds gave on the corpus they were tuned on, kept in the
/// tuned file so that applying it elsewhere can show the gap.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TunedOn {
    pub corpus: String,
    /// `f1`, `clustered_f1` or `recall_at_precision=P`.
    pub objective: String,
    /// The objective was measured over the experiment's judged pairs.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub judged: bool,
    pub runs: Vec<TunedFigure>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TunedFigure {
    /// The run's entry in this file's `algorithms:` and its extraction.
    pub entry: usize,
    pub extract: Extraction,
    pub algorithm: String,
    pub threshold: f64,
    /// The objective's value there (absent when no threshold qualified).
    pub value: Option<f64>,
    pub pairwise_f1: f64,
    pub clustered_f1: f64,
    /// The threshold sits at the floor: the best may lie past it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub at_floor: bool,
    /// F1 over the judged pairs there, when the corpus has them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judged_f1: Option<f64>,
    /// The clustering method the figures were made with, when tuning
    /// chose it (`clustered_f1`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clustering: Option<Clustering>,
}

/// `neardup tune`: per run, the threshold where `objective` is best on the
/// experiment's own corpus, and the complete experiment that applies them.
/// With judged pairs, best over the judged pairs (`clustered_f1` is then
/// refused, as pairs have no clusters).
pub fn tune_experiment(
    config: &ExperimentConfig,
    result: &ExperimentResult,
    objective: Objective,
    judged: Option<&JudgedTruth>,
) -> Result<ExperimentConfig, String> {
    if judged.is_some() && objective == Objective::ClusteredF1 {
        return Err(
            "clustered_f1 needs clusters; over judged pairs tune for f1 or recall_at_precision=P"
                .into(),
        );
    }
    let mut runs = Vec::new();
    let mut figures = Vec::new();
    for a in &result.algorithms {
        // Clustered F1 depends on how clusters are made: the method is
        // chosen with the threshold, the first of equals in
        // `Clustering::ALL` order (connected components first).
        let (clustering, curve) = if objective == Objective::ClusteredF1 && judged.is_none() {
            let best_of = |curve: &[crate::eval::Evaluation]| {
                choose(curve, &a.run.scale, objective).and_then(|e| objective.value(e))
            };
            let mut chosen: Option<(Clustering, Vec<crate::eval::Evaluation>, f64)> = None;
            for method in Clustering::ALL {
                let curve = a.curve_clustered_by(&result.truth, method);
                let value = best_of(&curve).unwrap_or(f64::NEG_INFINITY);
                if chosen.as_ref().is_none_or(|c| value > c.2) {
                    chosen = Some((method, curve, value));
                }
            }
            let (method, curve, _) = chosen.expect("at least one method");
            (Some(method), curve)
        } else {
            (None, a.full_curve(&result.truth))
        };
        let (threshold, value, judged_f1) = match judged {
            Some(truth) => {
                let run = &a.run;
                let table = JudgedCurve::of_run(truth, run, &run.gate_thresholds());
                let grid = table.at_each(&reachable_thresholds(&run.scale));
                let best = choose_judged(&grid, &run.scale, objective);
                let at = best.map_or_else(|| table.at(a.threshold), Clone::clone);
                (
                    at.threshold,
                    best.and_then(|e| objective.value_of_pairs(&e.counts)),
                    Some(at.counts.f1()).filter(|f| f.is_finite()),
                )
            }
            None => {
                let best = choose(&curve, &a.run.scale, objective);
                (
                    best.map_or(a.threshold, |e| e.threshold),
                    best.and_then(|e| objective.value(e)),
                    None,
                )
            }
        };
        let at = curve
            .iter()
            .find(|e| e.threshold == threshold)
            .unwrap_or_else(|| a.at_threshold());
        runs.push(TunedRun {
            entry: a.entry,
            extraction: a.extraction,
            threshold,
            gates: a.run.gate_thresholds(),
            clustering,
        });
        figures.push(TunedFigure {
            entry: 0,
            extract: a.extraction,
            algorithm: a.run.label.clone(),
            threshold,
            value,
            pairwise_f1: at.pairwise.overall.f1(),
            clustered_f1: at.clustered.overall.f1(),
            at_floor: {
                let scale = &a.run.scale;
                scale.floor > scale.min
                    && scale.floor < scale.max
                    && (threshold - scale.floor).abs() < 1e-9
            },
            judged_f1,
            clustering,
        });
    }
    let (mut tuned, placed) = tuned_config(config, &format!("{}-tuned", result.name), &runs);
    for (f, entry) in figures.iter_mut().zip(placed) {
        f.entry = entry;
    }
    tuned.tuned = Some(TunedOn {
        corpus: result.corpus_source.clone(),
        objective: objective.to_string(),
        judged: judged.is_some(),
        runs: figures,
    });
    Ok(tuned)
}

/// One row of the transfer table.
#[derive(Debug, Clone, Serialize)]
pub struct Transfer {
    pub algorithm: String,
    pub extract: String,
    pub threshold: f64,
    /// The objective on the tuning corpus at the tuned threshold.
    pub tuned_value: Option<f64>,
    /// The objective on this corpus at the tuned threshold.
    pub applied_value: Option<f64>,
    /// This corpus's own best threshold and value.
    pub own_threshold: Option<f64>,
    pub own_value: Option<f64>,
    /// The carried threshold, or this corpus's own best, sits at the floor:
    /// the best may lie past it, where no pair was stored.
    pub at_floor: bool,
}

impl Transfer {
    /// What the carried thresholds lose against this corpus's own best.
    pub fn gap(&self) -> Option<f64> {
        Some(self.own_value? - self.applied_value.unwrap_or(0.0))
    }
}

/// The tuned thresholds applied to `result`'s corpus beside that corpus's
/// own best, per run.
pub fn transfer_table(tuned: Option<&TunedOn>, result: &ExperimentResult) -> Vec<Transfer> {
    let objective: Objective = tuned
        .and_then(|t| t.objective.parse().ok())
        .unwrap_or(Objective::PairwiseF1);
    result
        .algorithms
        .iter()
        .map(|a| {
            let own = a.best(&result.truth, objective);
            let figure = tuned.and_then(|t| {
                t.runs
                    .iter()
                    .find(|f| f.entry == a.entry && f.extract == a.extraction)
            });
            let scale = &a.run.scale;
            let inside = scale.floor > scale.min && scale.floor < scale.max;
            let on_floor = |t: f64| inside && (t - scale.floor).abs() < 1e-9;
            Transfer {
                at_floor: on_floor(a.threshold)
                    || own.as_ref().is_some_and(|e| on_floor(e.threshold)),
                algorithm: a.run.label.clone(),
                extract: a.extraction.name().to_string(),
                threshold: a.threshold,
                tuned_value: figure.and_then(|f| f.value),
                applied_value: objective.value(a.at_threshold()),
                own_threshold: own.as_ref().map(|e| e.threshold),
                own_value: own.as_ref().and_then(|e| objective.value(e)),
            }
        })
        .collect()
}

/// The transfer table as Markdown (printed and written beside results).
pub fn render_transfer(tuned: Option<&TunedOn>, rows: &[Transfer], corpus: &str) -> String {
    let pct = |x: Option<f64>| x.map_or("-".to_string(), |v| format!("{:.2}", 100.0 * v));
    let objective = tuned.map_or("f1".to_string(), |t| t.objective.clone());
    let mut out = format!(
        "Thresholds tuned for {objective} on {} applied to {corpus}:\n\n\
         | algorithm [text] | threshold | on the tuning corpus | here at that threshold | here at its own best (threshold) | gap |\n\
         |---|---|---|---|---|---|\n",
        tuned.map_or("(not recorded)", |t| t.corpus.as_str())
    );
    for r in rows {
        out.push_str(&format!(
            "| {} [{}] | {}{} | {} | {} | {} ({}) | {} |\n",
            r.algorithm,
            r.extract,
            r.threshold,
            if r.at_floor { " *" } else { "" },
            pct(r.tuned_value),
            pct(r.applied_value),
            pct(r.own_value),
            r.own_threshold.map_or("-".into(), |t| t.to_string()),
            pct(r.gap()),
        ));
    }
    if rows.iter().any(|r| r.at_floor) {
        out.push_str(
            "\n\\* the carried threshold or this corpus's own best sits at the floor: the best may lie \
             past it, where no pair was stored (move `floor` to see; for SimHash through its tables, \
             with a wider `index` layout or `candidates: all_pairs`).\n",
        );
    }
    out
}

/// One level's F1 at the carried threshold beside this corpus's own best.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct LevelGap {
    /// F1 here at the carried threshold.
    pub here: f64,
    /// The best F1 here over every threshold, and where.
    pub own: Option<f64>,
    pub own_threshold: Option<f64>,
}

impl LevelGap {
    /// What the carried threshold loses against this corpus's own best.
    pub fn gap(&self) -> Option<f64> {
        Some(self.own? - if self.here.is_nan() { 0.0 } else { self.here })
    }
}

/// The transfer gap of one run with clusters made by one method, per
/// level (pairwise, clustered, page).
#[derive(Debug, Clone, Serialize)]
pub struct MethodTransfer {
    pub algorithm: String,
    pub extract: String,
    pub clustering: Clustering,
    /// The method the tuned file names for this run.
    pub in_use: bool,
    pub threshold: f64,
    pub pairwise: LevelGap,
    pub clustered: LevelGap,
    pub page: LevelGap,
}

/// Per run and clustering method, F1 at the carried threshold and at this
/// corpus's own best, per level; each level's best is chosen over every
/// threshold the stored pairs answer, like `neardup tune`.
pub fn transfer_by_method(result: &ExperimentResult) -> Vec<MethodTransfer> {
    let mut rows = Vec::new();
    for a in &result.algorithms {
        for method in Clustering::ALL {
            let curve = a.curve_clustered_by(&result.truth, method);
            let level = |f: fn(&crate::eval::Evaluation) -> f64| {
                let here = curve
                    .iter()
                    .find(|e| e.threshold == a.threshold)
                    .map_or(f64::NAN, f);
                let best = crate::eval::choose::best_by(
                    &curve,
                    &a.run.scale,
                    |e| e.threshold,
                    |e| Some(f(e)).filter(|v| v.is_finite()),
                );
                LevelGap {
                    here,
                    own: best.map(f),
                    own_threshold: best.map(|e| e.threshold),
                }
            };
            rows.push(MethodTransfer {
                algorithm: a.run.label.clone(),
                extract: a.extraction.name().to_string(),
                clustering: method,
                in_use: method == a.clustering,
                threshold: a.threshold,
                pairwise: level(|e| e.pairwise.overall.f1()),
                clustered: level(|e| e.clustered.overall.f1()),
                page: level(|e| e.page.overall.f1()),
            });
        }
    }
    rows
}

/// [`transfer_by_method`] as Markdown: per level, F1 here at the carried
/// threshold / at this corpus's own best (its threshold) and the gap;
/// `**` marks each run's best method by clustered F1 here.
pub fn render_transfer_by_method(rows: &[MethodTransfer]) -> String {
    let pct = |x: Option<f64>| match x {
        Some(v) if v.is_finite() => format!("{:.2}", 100.0 * v),
        _ => "-".to_string(),
    };
    let cell = |g: &LevelGap| {
        format!(
            "{} / {} ({}) / {}",
            pct(Some(g.here)),
            pct(g.own),
            g.own_threshold.map_or("-".into(), |t| t.to_string()),
            pct(g.gap())
        )
    };
    let mut out = String::from(
        "Transfer gap per level and clustering method: F1 here at the carried threshold / \
         at this corpus's own best (its threshold) / gap; * the method in use, ** the best \
         method here at the carried threshold:\n\n\
         | algorithm [text] | clustering | threshold | pairwise | clustered | page |\n\
         |---|---|---|---|---|---|\n",
    );
    for run in rows.chunk_by(|x, y| x.algorithm == y.algorithm && x.extract == y.extract) {
        let nan_low = |v: f64| if v.is_nan() { f64::NEG_INFINITY } else { v };
        let best = run
            .iter()
            .max_by(|x, y| nan_low(x.clustered.here).total_cmp(&nan_low(y.clustered.here)))
            .map(|r| r.clustering);
        for r in run {
            let mark = match (r.in_use, Some(r.clustering) == best) {
                (true, true) => " * **",
                (true, false) => " *",
                (false, true) => " **",
                (false, false) => "",
            };
            out.push_str(&format!(
                "| {} [{}] | {}{mark} | {} | {} | {} | {} |\n",
                r.algorithm,
                r.extract,
                r.clustering,
                r.threshold,
                cell(&r.pairwise),
                cell(&r.clustered),
                cell(&r.page),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tuned_file_runs_the_corpus_it_was_tuned_on_not_its_seeds() {
        let config = ExperimentConfig::parse(
            std::path::Path::new("experiments/x.yaml"),
            "corpus: demo\nbuild: ../datasets/fan2008.yaml\nseeds: {values: [1, 2, 3], scale: 0.1}\n\
             algorithms: [{type: jaccard}]\n",
        )
        .unwrap();
        assert!(config.seeds.is_some());
        let runs = [TunedRun {
            entry: 0,
            extraction: Extraction::Main,
            threshold: 0.4,
            gates: Vec::new(),
            clustering: None,
        }];
        let (tuned, placed) = tuned_config(&config, "x-tuned", &runs);
        assert!(tuned.seeds.is_none(), "{:?}", tuned.seeds);
        assert_eq!(placed, vec![0]);
        assert_eq!(tuned.corpus, config.corpus);
    }
}
