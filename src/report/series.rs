//! The series the charts draw: one per algorithm of each run, coloured
//! by its place in its panel, and what every figure and `report.md` read
//! of the runs, computed once.

use super::charts::{LexiconSweep, SweepLine};
use super::runs::all_slices;
use crate::experiment::stored::{self, to_counts, StoredAlgorithm, StoredRun, StoredStage};

/// One algorithm of one run, as the charts draw it.
#[derive(Debug, Clone)]
pub struct Series {
    /// Index of its run.
    pub run: usize,
    /// Index into the palette: its place in its panel (see `panels`).
    pub color: usize,
    pub name: String,
    pub algorithm: StoredAlgorithm,
    pub stages: Vec<StoredStage>,
    /// The stages this algorithm's text shares with others (decoding,
    /// extraction, tokenising), counted in its end-to-end time.
    pub shared: Vec<StoredStage>,
    /// Pages of its run.
    pub pages: usize,
    pub slices: Vec<String>,
}

impl Series {
    pub fn slice_index(&self, slice: &str) -> Option<usize> {
        self.slices.iter().position(|s| s == slice)
    }

    /// (recall, precision) over the thresholds, by recall.
    pub fn pr_points(&self) -> Vec<(f64, f64)> {
        let mut points: Vec<(f64, f64)> = self
            .algorithm
            .evaluations
            .iter()
            .map(|e| {
                let c = to_counts(&e.pairwise.overall);
                (c.recall(), c.precision())
            })
            .filter(|(r, p)| r.is_finite() && p.is_finite())
            .collect();
        points.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.total_cmp(&a.1)));
        points
    }

    /// The family its panel groups it with: the shingling algorithms
    /// (exact Jaccard, MinHash, one-permutation MinHash) share one.
    pub fn family(&self) -> &str {
        match self.algorithm.name.as_str() {
            "jaccard" | "minhash" | "minhash-oph" => "shingling",
            other => other,
        }
    }

    /// The highest pairwise F over every threshold: (threshold, counts).
    pub fn best_f(&self) -> Option<(f64, crate::eval::Counts)> {
        best_f_of(&self.algorithm)
    }

    /// Wall seconds from the page to the judgment: the shared stages and
    /// the algorithm's own (scoring against the labels left out).
    pub fn end_to_end_seconds(&self) -> f64 {
        self.shared
            .iter()
            .chain(self.stages.iter().filter(|s| s.stage != "evaluation"))
            .map(|s| s.wall_seconds)
            .sum()
    }

    /// Why the series has no point to draw, for its key and report.md
    /// (a panel must never be silently empty): nothing detected at any
    /// threshold leaves precision, so every point, undefined.
    pub fn empty_reason(&self) -> String {
        let counts: Vec<crate::eval::Counts> = self
            .algorithm
            .evaluations
            .iter()
            .map(|e| to_counts(&e.pairwise.overall))
            .collect();
        let actual = counts.first().map_or(0, |c| c.actual);
        if counts.is_empty() {
            "not evaluated at any threshold".into()
        } else if counts.iter().all(|c| c.detected == 0) {
            format!("no pair detected at any threshold (0 of {actual} true pairs)")
        } else {
            "no threshold with defined precision and recall".into()
        }
    }

    /// (threshold, F1), by threshold.
    pub fn f1_points(&self) -> Vec<(f64, f64)> {
        self.algorithm
            .evaluations
            .iter()
            .map(|e| (e.threshold, to_counts(&e.pairwise.overall).f1()))
            .filter(|(_, f)| f.is_finite())
            .collect()
    }
}

/// The highest pairwise F of an algorithm: over every threshold the stored
/// pairs answer, as the run stored it, else (files written before it was
/// stored) over its grid: (threshold, counts).
pub(super) fn best_f_of(a: &StoredAlgorithm) -> Option<(f64, crate::eval::Counts)> {
    if let Some(e) = &a.best_f {
        // A run that detects nothing at any threshold has no best F: its
        // chart key says so, rather than a ring labelled "NaN".
        let counts = to_counts(&e.pairwise.overall);
        return counts.f1().is_finite().then_some((e.threshold, counts));
    }
    a.evaluations
        .iter()
        .map(|e| (e.threshold, to_counts(&e.pairwise.overall)))
        .filter(|(_, c)| c.f1().is_finite())
        .max_by(|x, y| x.1.f1().total_cmp(&y.1.f1()))
}

/// The series of several runs, coloured by their place in their panel.
pub fn series_of(runs: &[(String, StoredRun)]) -> Vec<Series> {
    let mut out = Vec::new();
    for (r, (name, run)) in runs.iter().enumerate() {
        for a in &run.algorithms {
            let key = a.key();
            // Stage records name the algorithm before an own tokenizer was
            // appended to its label ("label [main chars]").
            let base = a.label.split(" on ").next().unwrap_or(&a.label);
            let prefix = format!("{base} [{}", a.extraction);
            out.push(Series {
                run: r,
                color: 0,
                name: if runs.len() > 1 {
                    format!("{name}: {key}")
                } else {
                    key
                },
                stages: run
                    .throughput
                    .iter()
                    .filter(|s| s.algorithm.starts_with(&prefix))
                    .cloned()
                    .collect(),
                shared: shared_stages(run, a),
                pages: run.pages,
                algorithm: a.clone(),
                slices: run.slices.clone(),
            });
        }
    }
    assign_colors(&mut out);
    out
}

/// Decoding and extraction of the algorithm's text (or its reading from
/// the extraction cache), and tokenising it (`main chars` for an
/// algorithm with its own tokenizer).
fn shared_stages(run: &StoredRun, a: &StoredAlgorithm) -> Vec<StoredStage> {
    let base = a.label.split(" on ").next().unwrap_or(&a.label);
    let prefix = format!("{base} [");
    let text = run
        .throughput
        .iter()
        .find_map(|s| {
            s.algorithm
                .strip_prefix(&prefix)
                .and_then(|rest| rest.strip_suffix(']'))
                .filter(|t| t.split(' ').next() == Some(a.extraction.as_str()))
        })
        .unwrap_or(a.extraction.as_str())
        .to_string();
    run.throughput
        .iter()
        .filter_map(|s| match s.stage.as_str() {
            "decode+extract" | "extract (cache)" => s.charged_to(&a.extraction),
            "tokenize" if s.algorithm == text => Some(s.clone()),
            _ => None,
        })
        .collect()
}

/// At most this many series share a panel, so that each keeps a colour
/// of its own (Okabe-Ito's eight).
pub const PANEL_SERIES: usize = 8;

/// A panel of the small multiples: a title and the series it draws.
#[derive(Debug, Clone, PartialEq)]
pub struct Panel {
    pub title: String,
    pub members: Vec<usize>,
}

/// One panel per family (and score scale); a family with more than
/// [`PANEL_SERIES`] series is split by extraction, then by run, then in
/// runs of eight.
pub fn panels(series: &[Series]) -> Vec<Panel> {
    let mut groups: Vec<Panel> = Vec::new();
    for (i, s) in series.iter().enumerate() {
        let title = format!("{} ({})", s.family(), s.algorithm.scale.name);
        match groups.iter_mut().find(|p| p.title == title) {
            Some(p) => p.members.push(i),
            None => groups.push(Panel {
                title,
                members: vec![i],
            }),
        }
    }
    let split = |groups: Vec<Panel>, key: &dyn Fn(&Series) -> String| -> Vec<Panel> {
        let mut out = Vec::new();
        for g in groups {
            if g.members.len() <= PANEL_SERIES {
                out.push(g);
                continue;
            }
            let mut parts: Vec<Panel> = Vec::new();
            for &i in &g.members {
                let title = format!("{}, {}", g.title, key(&series[i]));
                match parts.iter_mut().find(|p| p.title == title) {
                    Some(p) => p.members.push(i),
                    None => parts.push(Panel {
                        title,
                        members: vec![i],
                    }),
                }
            }
            out.extend(parts);
        }
        out
    };
    let groups = split(groups, &|s| s.algorithm.extraction.clone());
    let groups = split(groups, &|s| format!("run {}", s.run + 1));
    groups
        .into_iter()
        .flat_map(|g| {
            let n = g.members.len().div_ceil(PANEL_SERIES);
            let chunks: Vec<Vec<usize>> =
                g.members.chunks(PANEL_SERIES).map(|c| c.to_vec()).collect();
            chunks
                .into_iter()
                .enumerate()
                .map(move |(k, members)| Panel {
                    title: if n > 1 {
                        format!("{} ({}/{n})", g.title, k + 1)
                    } else {
                        g.title.clone()
                    },
                    members,
                })
        })
        .collect()
}

/// The best variant (highest pairwise F) of each family, best first.
pub fn overview(series: &[Series]) -> Panel {
    let mut best: Vec<(usize, f64)> = Vec::new();
    for (i, s) in series.iter().enumerate() {
        let Some((_, c)) = s.best_f() else { continue };
        match best
            .iter_mut()
            .find(|(j, _)| series[*j].family() == s.family())
        {
            Some(b) if c.f1() > b.1 => *b = (i, c.f1()),
            Some(_) => {}
            None => best.push((i, c.f1())),
        }
    }
    best.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    Panel {
        title: "the best variant of each family (by pairwise F)".into(),
        members: best
            .into_iter()
            .take(PANEL_SERIES)
            .map(|(i, _)| i)
            .collect(),
    }
}

/// Each algorithm's colour is its place among the algorithms of its
/// panel: no two algorithms of a panel share one, and one algorithm has
/// one colour in every run compared (the runs differ by dash).
fn assign_colors(series: &mut [Series]) {
    for p in panels(series) {
        let mut keys: Vec<String> = Vec::new();
        for &i in &p.members {
            let key = series[i].algorithm.key();
            let k = keys.iter().position(|x| *x == key).unwrap_or_else(|| {
                keys.push(key);
                keys.len() - 1
            });
            series[i].color = k;
        }
    }
}

/// Slices some algorithm has something in at the page level.
pub(super) fn busy_slices(series: &[Series], slices: &[String]) -> Vec<String> {
    slices
        .iter()
        .filter(|slice| {
            series.iter().any(|s| {
                let (Some(e), Some(i)) = (s.algorithm.at_threshold(), s.slice_index(slice)) else {
                    return false;
                };
                let c = e.page.slices[i];
                c[0] > 0 || c[1] > 0
            })
        })
        .cloned()
        .collect()
}

/// The series of runs with judged pairs, their figures over the judged
/// pairs in place of the pairwise ones, for the curve charts.
pub(super) fn judged_series(series: &[Series]) -> Vec<Series> {
    let mut out: Vec<Series> = series
        .iter()
        .filter(|s| !s.algorithm.judged.is_empty())
        .cloned()
        .map(|mut s| {
            s.algorithm.evaluations = s
                .algorithm
                .judged
                .iter()
                .map(|e| {
                    let level = stored::StoredLevel {
                        overall: [e.counts.actual, e.counts.detected, e.counts.correct],
                        slices: Vec::new(),
                    };
                    stored::StoredEvaluation {
                        threshold: e.threshold,
                        pairwise: level.clone(),
                        clustered: level.clone(),
                        page: level,
                    }
                })
                .collect();
            s
        })
        .collect();
    assign_colors(&mut out);
    out
}

/// The runs and what every figure and `report.md` read of them, computed
/// once per report.
pub(super) struct ReportData<'a> {
    pub runs: &'a [(String, StoredRun)],
    /// Every algorithm of every run.
    pub series: Vec<Series>,
    /// The slices some algorithm has something in, in the runs' order.
    pub slices: Vec<String>,
    /// The series over their judged pairs; empty when no run has any.
    pub judged: Vec<Series>,
    /// The curves are over judged pairs and the pages carry clusters too:
    /// the clusters' curves are drawn beside them.
    pub clusters_too: bool,
    /// The panels of the curve charts.
    pub curve_panels: Vec<Panel>,
    /// The series with an LSH banding.
    pub banded: Vec<Series>,
    /// I-Match's lines against its number of extra lexicons.
    pub sweep: Vec<SweepLine>,
}

impl<'a> ReportData<'a> {
    pub fn of(runs: &'a [(String, StoredRun)]) -> Self {
        let series = series_of(runs);
        let slices = busy_slices(&series, &all_slices(runs));
        let judged = judged_series(&series);
        let clusters_too = !judged.is_empty() && runs.iter().any(|(_, r)| r.true_pairs > 0);
        let banded = series
            .iter()
            .filter(|s| s.algorithm.banding.is_some())
            .cloned()
            .collect();
        let sweep = LexiconSweep(&series).lines();
        let mut data = ReportData {
            runs,
            series,
            slices,
            judged,
            clusters_too,
            curve_panels: Vec::new(),
            banded,
            sweep,
        };
        data.curve_panels = panels(data.curves());
        data
    }

    /// With judged pairs, the curves are theirs: the corpus's truth.
    pub fn curves(&self) -> &[Series] {
        if self.judged.is_empty() {
            &self.series
        } else {
            &self.judged
        }
    }

    /// What the curves are over, for their charts' titles.
    pub fn curves_over(&self) -> &'static str {
        if self.judged.is_empty() {
            "pairwise, all slices"
        } else {
            "over the judged pairs"
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use std::path::Path;

    /// The committed fan2008 example: 36 series of six families.
    pub(in crate::report) fn fan2008() -> Vec<Series> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("reports/examples/fan2008");
        let run = super::super::load_run(&dir).unwrap();
        let runs = vec![
            ("a".to_string(), run.clone()),
            ("b".to_string(), run.clone()),
            ("c".to_string(), run),
        ];
        series_of(&runs)
    }

    #[test]
    fn panels_hold_every_series_once_at_most_eight_each_in_colours_of_their_own() {
        let series = fan2008();
        let grouped = panels(&series);
        let mut seen = vec![0; series.len()];
        for p in &grouped {
            assert!(
                p.members.len() <= PANEL_SERIES,
                "{}: {}",
                p.title,
                p.members.len()
            );
            // One colour per algorithm, the same in every run.
            let mut pairs: Vec<(String, usize)> = p
                .members
                .iter()
                .map(|&i| (series[i].algorithm.key(), series[i].color))
                .collect();
            pairs.sort_unstable();
            pairs.dedup();
            let mut keys: Vec<&String> = pairs.iter().map(|(k, _)| k).collect();
            keys.dedup();
            let mut colours: Vec<usize> = pairs.iter().map(|&(_, c)| c).collect();
            colours.sort_unstable();
            colours.dedup();
            assert_eq!(
                keys.len(),
                pairs.len(),
                "{}: one colour per algorithm",
                p.title
            );
            assert_eq!(
                colours.len(),
                pairs.len(),
                "{}: colours of their own",
                p.title
            );
            for &i in &p.members {
                seen[i] += 1;
                assert!(p.title.starts_with(series[i].family()), "{}", p.title);
            }
        }
        assert!(seen.iter().all(|&n| n == 1), "{seen:?}");
        let best = overview(&series);
        let families: Vec<&str> = best.members.iter().map(|&i| series[i].family()).collect();
        let mut distinct = families.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), families.len(), "{families:?}");
        let f = |i: usize| series[i].best_f().unwrap().1.f1();
        assert!(best.members.windows(2).all(|w| f(w[0]) >= f(w[1])));
    }

    #[test]
    fn end_to_end_time_counts_the_shared_stages_once_per_algorithm() {
        let series = fan2008();
        let chars = series
            .iter()
            .find(|s| {
                s.algorithm.label == "jaccard(w=2) on chars" && s.algorithm.extraction == "main"
            })
            .unwrap();
        let stages: Vec<(&str, &str)> = chars
            .shared
            .iter()
            .map(|s| (s.stage.as_str(), s.algorithm.as_str()))
            .collect();
        assert_eq!(
            stages,
            [("decode+extract", "main"), ("tokenize", "main chars")]
        );
        let own: f64 = chars
            .stages
            .iter()
            .filter(|s| s.stage != "evaluation")
            .map(|s| s.wall_seconds)
            .sum();
        let shared: f64 = chars.shared.iter().map(|s| s.wall_seconds).sum();
        assert!((chars.end_to_end_seconds() - own - shared).abs() < 1e-9);
    }
}
