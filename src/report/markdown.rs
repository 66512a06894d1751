//! `report.md`: the summary, the runs, a section per figure (from the
//! figure list), the paper beside ours and its verdicts.

use std::fmt::Write as _;

use super::figures::{Names, FIGURES};
use super::measures::{find, measure, measure_value};
use super::series::{series_of, ReportData, Series};
use crate::experiment::paper::{inconsistencies, IndexPlan, Paper, PaperTable};
use crate::experiment::stored::{self, to_counts, StoredAlgorithm, StoredRun};
use crate::util::fmt::percent_sign_finite as pct;

/// Where a report's best F was chosen, for the sentence above its table.
fn best_f_basis(series: &[Series]) -> &'static str {
    if series.iter().all(|s| s.algorithm.best_f.is_some()) {
        "the highest over every threshold the stored pairs answer (hundredths for similarities, \
         whole numbers for counts and distances), as `neardup tune` and the workbench choose; \
         the grid only places the charts' points"
    } else {
        "the highest over every threshold the stored pairs answer where the run stored it, \
         and over the threshold grid for runs stored before that (`neardup run` again updates them)"
    }
}

fn seconds(x: f64) -> String {
    format!("{x:.2}")
}

/// The whole of `report.md`.
pub(super) fn markdown(data: &ReportData) -> String {
    let (runs, series) = (data.runs, data.series.as_slice());
    let mut md = String::new();
    let names: Vec<&str> = runs.iter().map(|(n, _)| n.as_str()).collect();
    let _ = writeln!(md, "# neardup report: {}\n", names.join(", "));
    let _ = writeln!(
        md,
        "Drawn by `neardup report` from the results the runs stored (`run.json`); nothing was run again. \
         Each chart is here as PNG and SVG, and the data behind it as CSV and Parquet. \
         A series keeps its colour (its place in its family's panel) in every chart{}.\n",
        if runs.len() > 1 {
            "; an algorithm has one colour in every run: the first run's line is a wide pale band, \
             the second run's dashed, the third's dotted"
        } else {
            ""
        }
    );
    if let Some(changes) = comparison(runs) {
        let _ = writeln!(md, "## What changed\n\n{changes}");
    }
    summary_section(&mut md, series);
    for (name, run) in runs {
        if let Some(judged) = &run.judged {
            judged_section(&mut md, name, run, judged, runs.len() > 1);
        }
    }
    let _ = writeln!(md, "## Runs\n");
    let _ = writeln!(
        md,
        "| run | experiment | corpus | pages | true pairs | wall s | cpu s | peak memory |"
    );
    let _ = writeln!(md, "|---|---|---|---:|---:|---:|---:|---:|");
    for (name, run) in runs {
        let _ = writeln!(
            md,
            "| {name} | {} | {} | {} | {} | {} | {} | {} |",
            run.experiment,
            run.corpus,
            run.pages,
            run.true_pairs,
            seconds(run.wall_seconds),
            seconds(run.cpu_seconds),
            run.peak_memory_bytes
                .map(|b| format!("{:.0} MB", b as f64 / 1e6))
                .unwrap_or_else(|| "-".into())
        );
    }
    for figure in FIGURES.iter().filter(|f| f.applies(data)) {
        figure.section(data, &mut md);
    }
    for (name, run) in runs {
        if let Some(paper) = &run.paper {
            paper_section(&mut md, name, run, paper);
        }
    }
    for (name, run) in runs {
        if let Some(paper) = run.paper.as_ref().filter(|p| !p.claims.is_empty()) {
            verdict_section(&mut md, name, run, paper);
        }
    }
    md
}

/// A figure's section: its title, what it shows, the PNG inline and
/// links to the SVG and the data.
pub(super) fn chart_section(md: &mut String, names: &Names, what: &str) {
    let Names { chart, data, title } = names;
    let _ = writeln!(md, "\n## {title}\n\n{what}\n\n![{title}]({chart}.png)\n\n[SVG]({chart}.svg) · data: [{data}.csv]({data}.csv), [{data}.parquet]({data}.parquet)");
}

/// Page-level counts per algorithm and slice at the configured
/// thresholds, then all pages and pairwise, under the slices chart.
pub(super) fn slice_table(md: &mut String, series: &[Series], slices: &[String]) {
    let _ = writeln!(
        md,
        "\n| algorithm | slice | actual | detected | correct | precision | recall | F |"
    );
    let _ = writeln!(md, "|---|---|---:|---:|---:|---:|---:|---:|");
    for s in series {
        let Some(e) = s.algorithm.at_threshold() else {
            continue;
        };
        let mut rows: Vec<(String, stored::StoredCounts)> = slices
            .iter()
            .filter_map(|slice| {
                s.slice_index(slice)
                    .map(|i| (slice.clone(), e.page.slices[i]))
            })
            .collect();
        rows.push(("all pages".into(), e.page.overall));
        rows.push(("pairwise, all".into(), e.pairwise.overall));
        for (slice, c) in rows {
            let c = to_counts(&c);
            let _ = writeln!(
                md,
                "| {} (at {}) | {slice} | {} | {} | {} | {} | {} | {} |",
                s.name,
                s.algorithm.threshold,
                c.actual,
                c.detected,
                c.correct,
                pct(c.precision()),
                pct(c.recall()),
                pct(c.f1())
            );
        }
    }
}

/// What `boilerplate: site` removed in each host and template group.
pub(super) fn boilerplate_section(md: &mut String, runs: &[(String, StoredRun)]) {
    if runs.iter().all(|(_, r)| r.boilerplate.is_empty()) {
        return;
    }
    let _ = writeln!(
        md,
        "\n## Boilerplate across pages\n\nBlocks on at least the given number of a group's pages \
         (`boilerplate: site`) were removed before tokenising; a template groups pages whose DOM \
         skeletons match, on any host.\n\n\
         | run | extract | group | name | pages | hosts | blocks on >= pages | blocks removed | chars removed |\n\
         |---|---|---|---|---:|---:|---:|---:|---:|"
    );
    for (name, run) in runs {
        for b in &run.boilerplate {
            let g = &b.group;
            let _ = writeln!(
                md,
                "| {name} | {} | {} | {} | {} | {} | {} | {} | {} of {} |",
                b.extraction,
                g.kind,
                g.name,
                g.pages,
                g.hosts,
                g.min_pages,
                g.blocks,
                g.chars_removed,
                g.chars
            );
        }
    }
}

/// Per algorithm in both, the last run against the first: best pairwise F,
/// its P and R, and the end-to-end speed, as a markdown table with a
/// sentence per algorithm; `None` with fewer than two runs.
pub fn comparison(runs: &[(String, StoredRun)]) -> Option<String> {
    let [(a_name, _), .., (b_name, _)] = runs else {
        return None;
    };
    let series = series_of(runs);
    let last = runs.len() - 1;
    let mut md = format!(
        "Run `{b_name}` against run `{a_name}`, per algorithm in both: best pairwise F (with its P and R) \
         and pages/s end to end; a ratio above 1 is faster.\n\n\
         | algorithm | best F | P | R | pages/s | note |\n|---|---:|---:|---:|---:|---|\n"
    );
    let mut missing = Vec::new();
    for a in series.iter().filter(|s| s.run == 0) {
        let key = a.algorithm.key();
        let Some(b) = series
            .iter()
            .find(|s| s.run == last && s.algorithm.key() == key)
        else {
            missing.push(key);
            continue;
        };
        let figure = |s: &Series| s.best_f().map(|(_, c)| (c.f1(), c.precision(), c.recall()));
        let rate = |s: &Series| {
            let seconds = s.end_to_end_seconds();
            (seconds > 0.0).then(|| s.pages as f64 / seconds)
        };
        let change = |x: Option<f64>, y: Option<f64>| match (x, y) {
            (Some(x), Some(y)) => format!("{} -> {} ({:+.1})", pct(x), pct(y), 100.0 * (y - x)),
            _ => format!(
                "{} -> {}",
                x.map_or("-".into(), pct),
                y.map_or("-".into(), pct)
            ),
        };
        let (fa, fb) = (figure(a), figure(b));
        let speed = match (rate(a), rate(b)) {
            (Some(x), Some(y)) => format!("{x:.0} -> {y:.0} ({})", speed_ratio(y / x)),
            _ => "-".into(),
        };
        let _ = writeln!(
            md,
            "| {key} | {} | {} | {} | {speed} | {} |",
            change(fa.map(|f| f.0), fb.map(|f| f.0)),
            change(fa.map(|f| f.1), fb.map(|f| f.1)),
            change(fa.map(|f| f.2), fb.map(|f| f.2)),
            if a.algorithm.best_f == b.algorithm.best_f
                && a.algorithm.evaluations == b.algorithm.evaluations
            {
                "same figures"
            } else {
                ""
            }
        );
    }
    for s in series.iter().filter(|s| s.run == last) {
        let key = s.algorithm.key();
        if !series
            .iter()
            .any(|a| a.run == 0 && a.algorithm.key() == key)
        {
            let _ = writeln!(md, "| {key} | only in `{b_name}` | | | | |");
        }
    }
    for key in missing {
        let _ = writeln!(md, "| {key} | only in `{a_name}` | | | | |");
    }
    Some(md)
}

/// `1.32x faster`, `2.00x slower`.
fn speed_ratio(ratio: f64) -> String {
    if ratio >= 1.0 {
        format!("{ratio:.2}x faster")
    } else {
        format!("{:.2}x slower", 1.0 / ratio)
    }
}

/// Best pairwise F per algorithm and where it peaks, beside the figures
/// at the configured threshold and the end-to-end speed.
fn summary_section(md: &mut String, series: &[Series]) {
    let _ = writeln!(md, "## Summary\n");
    let cached = series.iter().any(|s| {
        s.shared
            .iter()
            .chain(&s.stages)
            .any(|st| st.stage == "extract (cache)")
    });
    let _ = writeln!(
        md,
        "Pairwise over all slices. Best F is {}; \
         pages/s is end to end (decoding, extraction and tokenising included, wall time){}.\n",
        best_f_basis(series),
        if cached {
            ", except that this run read the pages' text from the extraction cache: \
             its pages/s leave out decoding and extracting (`neardup run --no-cache` times them)"
        } else {
            ""
        }
    );
    let _ = writeln!(
        md,
        "| algorithm | best F | at threshold | P | R | configured | F there | pages/s |"
    );
    let _ = writeln!(md, "|---|---:|---:|---:|---:|---:|---:|---:|");
    for s in series {
        let (best, at, p, r) = match s.best_f() {
            Some((t, c)) => (
                pct(c.f1()),
                crate::util::fmt::threshold_short(t),
                pct(c.precision()),
                pct(c.recall()),
            ),
            None => ("-".into(), "-".into(), "-".into(), "-".into()),
        };
        let configured = s
            .algorithm
            .at_threshold()
            .map(|e| pct(to_counts(&e.pairwise.overall).f1()))
            .unwrap_or_else(|| "-".into());
        let seconds = s.end_to_end_seconds();
        let rate = if seconds > 0.0 {
            format!("{:.0}", s.pages as f64 / seconds)
        } else {
            "-".into()
        };
        let _ = writeln!(
            md,
            "| {} | {best} | {at} | {p} | {r} | {} | {configured} | {rate} |",
            s.name,
            crate::util::fmt::threshold_short(s.algorithm.threshold)
        );
    }
    let _ = writeln!(md);
    for s in series.iter().filter(|s| s.pr_points().is_empty()) {
        let _ = writeln!(
            md,
            "- {}: {}, so it has no point on the charts.",
            s.name,
            s.empty_reason()
        );
    }
    let _ = writeln!(md);
}

/// Over a run's judged pairs: best F per algorithm and where it peaks,
/// the pairs never scored, and a line per grade at the configured
/// threshold.
fn judged_section(
    md: &mut String,
    name: &str,
    run: &StoredRun,
    judged: &stored::StoredJudged,
    named: bool,
) {
    let _ = writeln!(
        md,
        "## Judged pairs{}
",
        if named {
            format!(" ({name})")
        } else {
            String::new()
        }
    );
    let _ = writeln!(
        md,
        "{} judged pairs from `{}`: {} duplicates (grade >= {}), {} not. Figures count the judged pairs only; \
         a judged pair an algorithm never scored (not a candidate, or past the floor) is a miss when a duplicate \
         and a correct rejection otherwise. Best F here is the highest over each algorithm's threshold grid \
         (`neardup tune` over judged pairs chooses over every threshold).\n",
        judged.pairs,
        judged.source,
        judged.positives,
        judged.positive_from,
        judged.pairs - judged.positives
    );
    let _ = writeln!(
        md,
        "| algorithm | best F | at threshold | P | R | configured | P | R | F | never scored: duplicates (misses) | others (rejections) |"
    );
    let _ = writeln!(
        md,
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    fn at(a: &StoredAlgorithm) -> Option<&crate::eval::judged::JudgedEvaluation> {
        a.judged
            .iter()
            .find(|e| (e.threshold - a.threshold).abs() < 1e-9)
    }
    for a in &run.algorithms {
        let best = a
            .judged
            .iter()
            .filter(|e| e.counts.f1().is_finite())
            .max_by(|x, y| x.counts.f1().total_cmp(&y.counts.f1()));
        let prf = |e: Option<&crate::eval::judged::JudgedEvaluation>| match e {
            Some(e) => [
                pct(e.counts.precision()),
                pct(e.counts.recall()),
                pct(e.counts.f1()),
            ],
            None => ["-".into(), "-".into(), "-".into()],
        };
        let [bp, br, bf] = prf(best);
        let [p, r, f] = prf(at(a));
        let (never_pos, never_neg) = a
            .judged
            .first()
            .map_or((0, 0), |e| (e.unscored_positives, e.unscored_negatives));
        let _ =
            writeln!(
            md,
            "| {} | {bf} | {} | {bp} | {br} | {} | {p} | {r} | {f} | {never_pos} | {never_neg} |",
            a.key(),
            best.map_or("-".into(), |e| crate::util::fmt::threshold_short(e.threshold)),
            crate::util::fmt::threshold_short(a.threshold),
        );
    }
    let _ = writeln!(
        md,
        "\nPer grade at the configured thresholds, each row one grade (not that grade and above), \
         marked where it counts as duplicates:\n"
    );
    let _ = writeln!(
        md,
        "| algorithm (at threshold) | grade | pairs | judged duplicates | share | never scored |"
    );
    let _ = writeln!(md, "|---|---:|---:|---:|---:|---:|");
    for a in &run.algorithms {
        let Some(e) = at(a) else { continue };
        for g in &e.grades {
            let _ = writeln!(
                md,
                "| {} (at {}) | {}{} | {} | {} | {} | {} |",
                a.key(),
                crate::util::fmt::threshold_short(a.threshold),
                g.grade,
                if g.grade >= judged.positive_from {
                    " (duplicate)"
                } else {
                    ""
                },
                g.pairs,
                g.detected,
                pct(g.detected as f64 / g.pairs as f64),
                g.unscored
            );
        }
    }
    let _ = writeln!(md);
}

/// Each claim of the paper with its verdict, the reason and the figure
/// that decides it.
fn verdict_section(md: &mut String, name: &str, run: &StoredRun, paper: &Paper) {
    let _ = writeln!(md, "\n## Verdicts ({name})\n");
    for (i, claim) in paper.claims.iter().enumerate() {
        let figure = claim.figure.as_ref().map(|m| measure_value(run, m));
        let other = claim.above.as_ref().map(|m| measure_value(run, m));
        let verdict = claim.verdict(
            figure.as_ref().and_then(|f| f.0),
            other.as_ref().and_then(|o| o.0),
        );
        let _ = writeln!(md, "{}. **{}** — {}.\n", i + 1, claim.claim, verdict.text());
        let reason = claim.reason(verdict);
        if !reason.is_empty() {
            let _ = writeln!(md, "   {}\n", reason.trim());
        }
        if let Some((_, text)) = &figure {
            let test = claim.test_text(other.as_ref().map(|o| o.1.as_str()));
            let _ = writeln!(md, "   Deciding figure: {text}{test}.\n");
        }
    }
}

fn paper_section(md: &mut String, name: &str, run: &StoredRun, paper: &Paper) {
    let _ = writeln!(md, "\n## The paper beside ours ({name})\n");
    let _ = writeln!(
        md,
        "{}\n\nFigures read in: {}\n",
        paper.citation, paper.source
    );
    if !paper.differences.is_empty() {
        let _ = writeln!(md, "How our set-up differs:\n");
        for d in &paper.differences {
            let _ = writeln!(md, "- {d}");
        }
    }
    for table in &paper.tables {
        paper_table(md, run, table);
    }
    if !paper.figures.is_empty() {
        let _ = writeln!(md, "\n| figure | paper | ours |\n|---|---|---|");
        for f in &paper.figures {
            let _ = writeln!(
                md,
                "| {} | {} | {} |",
                f.name,
                f.paper,
                measure(run, &f.ours)
            );
        }
    }
    for prefix in &paper.sweeps {
        sweep_tables(md, run, prefix);
    }
    if let Some(plan) = &paper.index_plan {
        index_plan_table(md, plan);
    }
}

/// A paper's table of counts, each row followed by ours in its slice
/// (page level unless the table says pairwise), and the printed
/// percentages its own counts do not give.
fn paper_table(md: &mut String, run: &StoredRun, table: &PaperTable) {
    let _ = writeln!(md, "\n### {}\n", table.title);
    let _ = writeln!(
        md,
        "| who | slice | actual | detected | correct | precision | recall | F |"
    );
    let _ = writeln!(md, "|---|---|---:|---:|---:|---:|---:|---:|");
    let mut flags = Vec::new();
    for row in &table.rows {
        let _ = writeln!(
            md,
            "| **paper** | {}{} | {} | {} | {} | {:.2}% | {:.2}% | {:.2}% |",
            row.slice,
            row.name
                .as_deref()
                .map(|n| format!(" ({n})"))
                .unwrap_or_default(),
            row.actual,
            row.detected,
            row.correct,
            row.precision,
            row.recall,
            row.f
        );
        for (what, printed, exact) in inconsistencies(row) {
            flags.push(format!(
                "{} {what}: printed {printed:.2}%, but the counts give {exact:.2}%",
                row.slice
            ));
        }
        for a in run
            .algorithms
            .iter()
            .filter(|a| table.extraction.as_ref().is_none_or(|x| *x == a.extraction))
        {
            let (Some(e), Some(i)) = (
                a.at_threshold(),
                run.slices.iter().position(|s| *s == row.slice),
            ) else {
                continue;
            };
            let level = if table.level == "pairwise" {
                &e.pairwise
            } else {
                &e.page
            };
            let c = to_counts(&level.slices[i]);
            let _ = writeln!(
                md,
                "| {} (at {}) | {} | {} | {} | {} | {} | {} | {} |",
                a.key(),
                a.threshold,
                row.slice,
                c.actual,
                c.detected,
                c.correct,
                pct(c.precision()),
                pct(c.recall()),
                pct(c.f1())
            );
        }
    }
    if flags.is_empty() {
        let _ = writeln!(
            md,
            "\nEvery printed percentage follows from the paper's counts."
        );
    } else {
        let _ = writeln!(
            md,
            "\nPercentages that do not follow from the paper's own counts:\n"
        );
        for f in flags {
            let _ = writeln!(md, "- {f}");
        }
    }
}

/// Pairwise counts over the grid of each algorithm named by `prefix`.
fn sweep_tables(md: &mut String, run: &StoredRun, prefix: &str) {
    for a in find(run, prefix) {
        let _ = writeln!(
            md,
            "\n### {} against {} (pairwise, all slices)\n",
            a.key(),
            a.scale.name
        );
        let _ = writeln!(md, "| threshold | detected | correct | precision | recall | F |\n|---:|---:|---:|---:|---:|---:|");
        for e in &a.evaluations {
            let c = to_counts(&e.pairwise.overall);
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} |",
                e.threshold,
                c.detected,
                c.correct,
                pct(c.precision()),
                pct(c.recall()),
                pct(c.f1())
            );
        }
    }
}

/// The SimHash table layouts that reach the paper's k, at its number of
/// fingerprints.
fn index_plan_table(md: &mut String, plan: &IndexPlan) {
    use crate::algo::simhash::tables::{Layout, LayoutPlan, BYTES_PER_ENTRY};
    let _ = writeln!(
        md,
        "\n### Table designs for {:.3e} fingerprints, k = {} (`neardup index plan`)\n",
        plan.fingerprints, plan.k
    );
    let _ = writeln!(md, "| layout | tables | prefix bits | candidates per query | memory |\n|---|---:|---|---:|---:|");
    for name in ["4x16", "6c3", "4x4", "5c2", "8c5", "10c7"] {
        let Ok(layout) = name.parse::<Layout>() else {
            continue;
        };
        if plan.k > layout.max_k() {
            continue;
        }
        let p = LayoutPlan::new(&layout, plan.fingerprints);
        let bits: Vec<String> = p.prefix_bits.iter().map(u32::to_string).collect();
        let _ = writeln!(
            md,
            "| {name} | {} | {} | {:.1} | {:.1} GB ({} bytes per fingerprint) |",
            p.tables,
            bits.join(", "),
            p.candidates_per_query,
            p.bytes / 1e9,
            p.tables * BYTES_PER_ENTRY
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::series::tests::fan2008;

    #[test]
    fn a_summary_of_text_read_from_the_cache_says_its_rates_leave_extraction_out() {
        let mut series = fan2008();
        let summary = |series: &[Series]| {
            let mut md = String::new();
            summary_section(&mut md, series);
            md
        };
        let warning = "read the pages' text from the extraction cache";
        assert!(!summary(&series).contains(warning));
        for s in &mut series {
            for stage in &mut s.shared {
                if stage.stage == "decode+extract" {
                    stage.stage = "extract (cache)".into();
                }
            }
        }
        assert!(summary(&series).contains(warning));
    }
}
