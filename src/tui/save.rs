//! `s`: the current thresholds written into a copy of the experiment.

use serde_yaml::{Mapping, Value};

use super::loader::experiment_text;
use super::workbench::Workbench;
use crate::experiment::ExperimentConfig;

fn number(v: f64) -> Value {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        Value::Number((v as i64).into())
    } else {
        Value::Number(((v * 1e4).round() / 1e4).into())
    }
}

/// The experiment's YAML with each algorithm's threshold (and gates) as
/// tuned. With several extractions, an algorithm's first run (the first
/// extraction) gives the values. The text is checked to load.
pub fn tuned_yaml(bench: &Workbench) -> Result<String, String> {
    let (text, path) = experiment_text(&bench.source)?;
    let mut doc: Value = serde_yaml::from_str(&text).map_err(|e| e.to_string())?;
    let algorithms = doc
        .get_mut("algorithms")
        .and_then(Value::as_sequence_mut)
        .ok_or("the experiment has no `algorithms` list")?;
    for (j, algorithm) in algorithms.iter_mut().enumerate() {
        let (Some(result), Some(tuning)) = (bench.result.algorithms.get(j), bench.tunings.get(j))
        else {
            break;
        };
        if result.run.scale.min == result.run.scale.max {
            // Nothing to tune (exact matching has no threshold key).
            continue;
        }
        let map: &mut Mapping = algorithm
            .as_mapping_mut()
            .ok_or(format!("algorithms[{j}] is not a mapping"))?;
        map.insert("threshold".into(), number(tuning.threshold));
        for (gate, &value) in result.run.gates.iter().zip(&tuning.gates) {
            let key = match gate.name {
                "title" => "title_threshold",
                "subtitles" => "subtitle_threshold",
                "jaccard" => "jaccard",
                other => return Err(format!("no experiment key for the {other} gate")),
            };
            map.insert(key.into(), number(value));
        }
    }
    let body = serde_yaml::to_string(&doc).map_err(|e| e.to_string())?;
    ExperimentConfig::parse(&path, &body)
        .map_err(|e| format!("the tuned experiment does not load: {e}"))?;
    Ok(format!(
        "# {} with the thresholds tuned in the neardup workbench.\n{body}",
        bench.source.describe()
    ))
}
