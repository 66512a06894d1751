//! Algorithm labels cut to a column by rule, so that rows stay told
//! apart: `semantic(cilin level 5,best_match,5 top) [main]` and its
//! `paper_mean` twin must not both end in `semantic(cilin level 5,…`.
//!
//! The order of cuts: the extraction tag shortens to its first letter
//! (`[m]`, `[f]`); then the parameters every same-named peer shares go,
//! from the middle of the list outward; the name and the parameters that
//! differ go last, and the tag never does.

use unicode_width::UnicodeWidthStr;

use super::fit;

/// `[main]` -> `[m]`, `[full_text]` -> `[f]`.
pub fn short_tag(extraction: &str) -> String {
    format!("[{}]", extraction.chars().next().unwrap_or('?'))
}

/// `minhash(w=3,n=128,lsh 26x4)` -> (`minhash`, [`w=3`, `n=128`, `lsh
/// 26x4`]); a label without a parameter list has none.
fn split(label: &str) -> Option<(&str, Vec<&str>)> {
    let open = label.find('(')?;
    let inner = label[open + 1..].strip_suffix(')')?;
    let mut params = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                params.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    params.push(&inner[start..]);
    Some((&label[..open], params))
}

/// `head(a,…,d)`: the cut parameters, each run of them one ellipsis.
fn join(head: &str, params: &[&str], cut: &[bool]) -> String {
    let mut kept: Vec<&str> = Vec::new();
    for (i, p) in params.iter().enumerate() {
        if !cut[i] {
            kept.push(p);
        } else if i == 0 || !cut[i - 1] {
            kept.push("…");
        }
    }
    format!("{head}({})", kept.join(","))
}

/// `label [extraction]` in at most `max` columns, `peers` being the
/// labels of the rows it must stay apart from.
pub fn fit_label(label: &str, extraction: &str, max: usize, peers: &[&str]) -> String {
    let full = format!("{label} [{extraction}]");
    if full.width() <= max {
        return full;
    }
    let tag = short_tag(extraction);
    let with_tag = |l: &str| format!("{l} {tag}");
    if with_tag(label).width() <= max {
        return with_tag(label);
    }
    let mut shortest = label.to_string();
    let mut shortest_head = None;
    if let Some((head, params)) = split(label) {
        let others: Vec<Vec<&str>> = peers
            .iter()
            .filter_map(|p| split(p))
            .filter(|(h, ps)| *h == head && *ps != params)
            .map(|(_, ps)| ps)
            .collect();
        let differs = |p: &str| others.iter().any(|ps| !ps.contains(&p));
        let middle = params.len() / 2;
        let mut order: Vec<usize> = (0..params.len()).collect();
        order.sort_by_key(|&i| i.abs_diff(middle));
        let mut cut = vec![false; params.len()];
        for i in order.into_iter().filter(|&i| !differs(params[i])) {
            cut[i] = true;
            shortest = join(head, &params, &cut);
            if with_tag(&shortest).width() <= max {
                return with_tag(&shortest);
            }
        }
        shortest_head = Some(head);
    }
    // Then the name, down to a few letters, before what tells rows apart.
    if let Some(head) = shortest_head {
        let rest = &shortest[head.len()..];
        let room = max.saturating_sub(rest.width() + tag.width() + 1);
        if room >= 4.min(head.width()) {
            return with_tag(&format!("{}{rest}", fit(head, room)));
        }
    }
    // Nothing left that peers share: the label itself is cut.
    let room = max.saturating_sub(tag.width() + 1);
    if room == 0 {
        return fit(&tag, max);
    }
    format!("{} {tag}", fit(&shortest, room))
}

/// A throughput row's `label [extraction]` (or a bare extraction list,
/// for the stages before the runs) in at most `max` columns.
pub fn fit_stage_name(name: &str, max: usize, peers: &[&str]) -> String {
    match name.rsplit_once(" [") {
        Some((label, rest)) if rest.ends_with(']') => {
            fit_label(label, &rest[..rest.len() - 1], max, peers)
        }
        _ => fit(name, max),
    }
}

/// Each algorithm run's label, one that two entries with the same label
/// (two learned judges on different models, say) tell apart: the model
/// file, or else the entry's number, joins the parameters.
pub fn run_labels(bench: &crate::tui::workbench::Workbench) -> Vec<String> {
    use crate::experiment::config::AlgorithmConfig;
    let runs = &bench.result.algorithms;
    runs.iter()
        .map(|r| {
            let label = &r.run.label;
            let twins = runs
                .iter()
                .filter(|o| o.run.label == *label && o.extraction == r.extraction)
                .count();
            if twins < 2 {
                return label.clone();
            }
            let extra = match bench.config.algorithms.get(r.entry).map(|e| &e.config) {
                Some(AlgorithmConfig::Learned(l)) if l.model.is_some() => {
                    let model = l.model.as_deref().unwrap_or_default();
                    let file = std::path::Path::new(model)
                        .file_name()
                        .map_or(model.into(), |f| f.to_string_lossy());
                    format!("model={file}")
                }
                _ => format!("entry={}", r.entry + 1),
            };
            match label.strip_suffix(')') {
                Some(open) => format!("{open},{extra})"),
                None => format!("{label}({extra})"),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_that_fits_is_left_whole() {
        assert_eq!(fit_label("exact", "main", 20, &[]), "exact [main]");
    }

    #[test]
    fn the_tag_shortens_first_and_never_goes() {
        assert_eq!(
            fit_label("simhash(words,tf)", "full_text", 22, &[]),
            "simhash(words,tf) [f]"
        );
        assert_eq!(
            fit_label("simhash(words,tf)", "main", 10, &[]),
            "simha… [m]"
        );
    }

    #[test]
    fn shared_parameters_go_from_the_middle_and_differing_ones_stay() {
        let best = "semantic(cilin level 5,best_match,5 top)";
        let mean = "semantic(cilin level 5,paper_mean,5 top)";
        let peers = [best, mean];
        assert_eq!(
            fit_label(best, "full_text", 30, &peers),
            "semantic(…,best_match,…) [f]"
        );
        let (a, b) = (
            fit_label(best, "full_text", 24, &peers),
            fit_label(mean, "full_text", 24, &peers),
        );
        assert_ne!(a, b);
        assert!(b.contains("paper_me") && b.ends_with("[f]"), "{b}");
        let k0 = "imatch(corpus lexicon)";
        let k10 = "imatch(corpus lexicon,K=10,p=0.33)";
        let peers = [k0, k10];
        assert_eq!(
            fit_label(k10, "main", 25, &peers),
            "imatch(…,K=10,p=0.33) [m]"
        );
        assert_eq!(fit_label(k0, "main", 18, &peers), "imatch(…) [m]");
    }

    #[test]
    fn stage_names_keep_their_tag() {
        assert_eq!(
            fit_stage_name("minhash(w=3,n=128,lsh 26x4) [full_text]", 24, &[]),
            "minhash(…,lsh 26x4) [f]"
        );
        assert_eq!(
            fit_stage_name("main, full_text", 40, &[]),
            "main, full_text"
        );
    }
}
