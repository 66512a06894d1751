//! `neardup run --pairs`: every stored pair of every algorithm in one
//! table, each algorithm's score in a column of its own (empty where it did
//! not store the pair) beside the truth, for study in polars, DuckDB or a
//! notebook.

use std::path::{Path, PathBuf};

use polars::prelude::*;
use rayon::prelude::*;

use super::outcome::ExperimentResult;
use super::results::TableWriteError;
use crate::eval::judged::JudgedTruth;

/// One row per pair `a < b` that any algorithm stored (a group's pairs
/// listed one by one) or that `judged` grades: the two page ids, whether
/// they share a cluster, the pair's slice, its grade (with judged pairs),
/// then one nullable score column per algorithm, named by its label and
/// extraction.
fn pairs_frame(
    result: &ExperimentResult,
    ids: &[String],
    judged: Option<&JudgedTruth>,
) -> PolarsResult<DataFrame> {
    let listed: Vec<_> = result
        .algorithms
        .par_iter()
        .map(|a| a.run.listed_pairs())
        .collect();
    let mut keys: Vec<(u32, u32)> = listed.iter().flatten().map(|p| (p.a, p.b)).collect();
    keys.extend(
        judged
            .iter()
            .flat_map(|t| t.pairs.iter().map(|p| (p.a, p.b))),
    );
    keys.par_sort_unstable();
    keys.dedup();
    let truth = &result.truth;
    let id = |p: u32| ids[p as usize].as_str();
    let mut columns = vec![
        Column::new("a".into(), keys.iter().map(|k| id(k.0)).collect::<Vec<_>>()),
        Column::new("b".into(), keys.iter().map(|k| id(k.1)).collect::<Vec<_>>()),
        Column::new(
            "duplicate".into(),
            keys.iter()
                .map(|&(a, b)| truth.cluster[a as usize] == truth.cluster[b as usize])
                .collect::<Vec<_>>(),
        ),
        Column::new(
            "slice".into(),
            keys.iter()
                .map(|&(a, b)| truth.slice_names[truth.pair_slice(a, b) as usize].as_str())
                .collect::<Vec<_>>(),
        ),
    ];
    if let Some(truth) = judged {
        let grades: Vec<Option<i64>> = keys.iter().map(|&(a, b)| truth.grade(a, b)).collect();
        columns.push(Column::new("label".into(), grades));
    }
    let mut names: Vec<String> = Vec::new();
    for (algorithm, pairs) in result.algorithms.iter().zip(&listed) {
        let mut name = format!("{} [{}]", algorithm.run.label, algorithm.extraction.name());
        if names.contains(&name) {
            // Two entries with the same settings: told apart by position.
            name = format!("{name} #{}", algorithm.entry);
        }
        let mut scores: Vec<Option<f32>> = vec![None; keys.len()];
        for p in pairs {
            let at = keys
                .binary_search(&(p.a, p.b))
                .expect("every listed pair is a key");
            scores[at] = Some(p.score);
        }
        columns.push(Column::new(name.as_str().into(), scores));
        names.push(name);
    }
    DataFrame::new_infer_height(columns)
}

/// Where `--pairs [PATH]` writes: `PATH.parquet` and `PATH.csv` (an
/// extension given is replaced), `DIR/pairs.*` when no path is given.
fn pairs_paths(path: &Path, results_dir: &Path) -> [PathBuf; 2] {
    let stem = if path.as_os_str().is_empty() {
        results_dir.join("pairs")
    } else {
        path.to_path_buf()
    };
    [stem.with_extension("parquet"), stem.with_extension("csv")]
}

/// Writes the pairs table as Parquet and CSV; returns the paths.
pub fn write_pairs(
    result: &ExperimentResult,
    ids: &[String],
    judged: Option<&JudgedTruth>,
    path: &Path,
    results_dir: &Path,
) -> Result<Vec<PathBuf>, TableWriteError> {
    let what = "pairs";
    let mut frame = pairs_frame(result, ids, judged)
        .map_err(|source| TableWriteError::Frame { what, source })?;
    let paths = pairs_paths(path, results_dir);
    for path in &paths {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            crate::util::io::create_dir_all(dir)?;
        }
        let mut file = crate::util::io::AtomicFile::create(path)?;
        let written = if path.extension().is_some_and(|e| e == "csv") {
            CsvWriter::new(&mut file).finish(&mut frame)
        } else {
            ParquetWriter::new(&mut file).finish(&mut frame).map(|_| ())
        };
        written.map_err(|source| TableWriteError::Frame { what, source })?;
        file.commit()?;
    }
    Ok(paths.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::{load_corpus, run_experiment, ExperimentConfig};

    #[test]
    fn every_stored_pair_has_each_algorithms_score_and_the_truth() {
        let config = ExperimentConfig::parse(
            Path::new("x.yaml"),
            "corpus: demo\nalgorithms:\n  - {type: jaccard, floor: 0.2}\n  \
             - {type: jaccard, score: containment, floor: 0.2}\n  - {type: simhash, candidates: all_pairs, floor: 10}\n",
        )
        .unwrap();
        let corpus = load_corpus(&config, Path::new("x.yaml")).unwrap();
        let result = run_experiment("pairs", &config, &corpus, &Vec::new());
        let ids: Vec<String> = corpus.pages.iter().map(|p| p.id.clone()).collect();
        let frame = pairs_frame(&result, &ids, None).unwrap();
        assert_eq!(frame.width(), 4 + 3);
        let rows = frame.height();
        // Every algorithm's stored pairs are there with their scores.
        for (k, algorithm) in result.algorithms.iter().enumerate() {
            let column = frame.select_at_idx(4 + k).unwrap().f32().unwrap().clone();
            let listed = algorithm.run.listed_pairs();
            assert_eq!(column.len() - column.null_count(), listed.len());
            assert!(listed.len() <= rows);
        }
        // Containment scores every pair at least as high as Jaccard.
        let jaccard = frame.select_at_idx(4).unwrap().f32().unwrap().clone();
        let containment = frame.select_at_idx(5).unwrap().f32().unwrap().clone();
        let mut higher = 0;
        for (j, c) in jaccard.iter().zip(containment.iter()) {
            if let (Some(j), Some(c)) = (j, c) {
                assert!(c >= j, "containment {c} < jaccard {j}");
                higher += usize::from(c > j);
            }
        }
        assert!(higher > 0);
        // The truth column says whether the ids share a cluster.
        let a = frame.column("a").unwrap().str().unwrap().clone();
        let b = frame.column("b").unwrap().str().unwrap().clone();
        let duplicate = frame.column("duplicate").unwrap().bool().unwrap().clone();
        let cluster = |id: &str| &corpus.pages.iter().find(|p| p.id == id).unwrap().cluster;
        let mut positives = 0;
        for ((a, b), d) in a.iter().zip(b.iter()).zip(duplicate.iter()) {
            let (a, b, d) = (a.unwrap(), b.unwrap(), d.unwrap());
            assert_eq!(d, cluster(a) == cluster(b), "{a} {b}");
            positives += usize::from(d);
        }
        assert!(positives > 0 && positives < rows);

        let dir = tempfile::tempdir().unwrap();
        let written = write_pairs(&result, &ids, None, Path::new(""), dir.path()).unwrap();
        let csv = std::fs::read_to_string(&written[1]).unwrap();
        assert_eq!(csv.lines().count(), rows + 1);
        assert!(
            csv.starts_with("a,b,duplicate,slice,jaccard(w=3) [main]"),
            "{csv}"
        );
        let back = ParquetReader::new(std::fs::File::open(&written[0]).unwrap())
            .finish()
            .unwrap();
        assert_eq!(back, frame);
    }
}
