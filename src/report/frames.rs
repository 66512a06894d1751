//! The data behind each chart, as tables written to CSV and Parquet.

use std::path::{Path, PathBuf};

use polars::prelude::*;

use super::charts;
use super::{ReportError, Series};
use crate::experiment::stored::to_counts;

pub(super) fn write_frame(
    what: &'static str,
    frame: PolarsResult<DataFrame>,
    out: &Path,
) -> Result<Vec<PathBuf>, ReportError> {
    Ok(crate::experiment::results::write_frame(what, frame, out)?)
}

pub(super) fn opt(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

pub(super) fn curve_frame(series: &[Series]) -> PolarsResult<DataFrame> {
    let (mut name, mut threshold, mut p, mut r, mut f, mut default) =
        (vec![], vec![], vec![], vec![], vec![], vec![]);
    for s in series {
        for e in &s.algorithm.evaluations {
            let c = to_counts(&e.pairwise.overall);
            name.push(s.name.clone());
            threshold.push(e.threshold);
            p.push(opt(c.precision()));
            r.push(opt(c.recall()));
            f.push(opt(c.f1()));
            default.push((e.threshold - s.algorithm.threshold).abs() < 1e-9);
        }
    }
    DataFrame::new_infer_height(vec![
        Column::new("series".into(), name),
        Column::new("threshold".into(), threshold),
        Column::new("precision".into(), p),
        Column::new("recall".into(), r),
        Column::new("f1".into(), f),
        Column::new("is_default".into(), default),
    ])
}

/// Page-level counts and P/R/F per series and slice (columns `page_*`, as
/// in results.csv).
pub(super) fn slice_frame(series: &[Series], slices: &[String]) -> PolarsResult<DataFrame> {
    let (mut names, mut slice_names) = (Vec::<String>::new(), Vec::<String>::new());
    let mut page = crate::experiment::results::LevelColumns::default();
    for s in series {
        let Some(e) = s.algorithm.at_threshold() else {
            continue;
        };
        for slice in slices {
            let Some(i) = s.slice_index(slice) else {
                continue;
            };
            names.push(s.name.clone());
            slice_names.push(slice.clone());
            page.push(&to_counts(&e.page.slices[i]));
        }
    }
    let mut columns = vec![
        Column::new("series".into(), names),
        Column::new("slice".into(), slice_names),
    ];
    columns.extend(page.into_columns("page"));
    DataFrame::new_infer_height(columns)
}

pub(super) fn throughput_frame(series: &[Series]) -> PolarsResult<DataFrame> {
    let (mut name, mut stage, mut wall, mut pps, mut mbs) =
        (vec![], vec![], vec![], vec![], vec![]);
    for s in series {
        for st in &s.stages {
            name.push(s.name.clone());
            stage.push(st.stage.clone());
            wall.push(st.wall_seconds);
            pps.push(st.pages_per_second);
            mbs.push(st.mb_per_second);
        }
    }
    DataFrame::new_infer_height(vec![
        Column::new("series".into(), name),
        Column::new("stage".into(), stage),
        Column::new("wall_seconds".into(), wall),
        Column::new("pages_per_second".into(), pps),
        Column::new("mb_per_second".into(), mbs),
    ])
}

pub(super) fn histogram_frame(series: &[Series]) -> PolarsResult<DataFrame> {
    let (mut name, mut score, mut t, mut f) = (vec![], vec![], vec![], vec![]);
    for s in series {
        for b in &s.algorithm.histogram {
            if b.true_pairs + b.false_pairs > 0 {
                name.push(s.name.clone());
                score.push(b.score);
                t.push(b.true_pairs);
                f.push(b.false_pairs);
            }
        }
    }
    DataFrame::new_infer_height(vec![
        Column::new("series".into(), name),
        Column::new("score".into(), score),
        Column::new("true_pairs".into(), t),
        Column::new("false_pairs".into(), f),
    ])
}

pub(super) fn lsh_frame(series: &[Series]) -> PolarsResult<DataFrame> {
    let (mut name, mut bands, mut rows, mut j, mut p) = (vec![], vec![], vec![], vec![], vec![]);
    for s in series {
        if let Some(b) = s.algorithm.banding {
            for (x, y) in charts::lsh_points(b) {
                name.push(s.name.clone());
                bands.push(b[0] as u64);
                rows.push(b[1] as u64);
                j.push(x);
                p.push(y);
            }
        }
    }
    DataFrame::new_infer_height(vec![
        Column::new("series".into(), name),
        Column::new("bands".into(), bands),
        Column::new("rows".into(), rows),
        Column::new("jaccard".into(), j),
        Column::new("p_candidate".into(), p),
    ])
}

pub(super) fn sweep_frame(lines: &[charts::SweepLine]) -> PolarsResult<DataFrame> {
    let (mut name, mut k, mut p, mut r) = (vec![], vec![], vec![], vec![]);
    for charts::SweepLine { name: n, points } in lines {
        for &(x, precision, recall) in points {
            name.push(n.clone());
            k.push(x as u64);
            p.push(opt(precision));
            r.push(opt(recall));
        }
    }
    DataFrame::new_infer_height(vec![
        Column::new("series".into(), name),
        Column::new("extra_lexicons".into(), k),
        Column::new("precision".into(), p),
        Column::new("recall".into(), r),
    ])
}
