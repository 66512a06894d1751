//! What a copy of an English story goes through on another site. The
//! Chinese edits of `build.rs` do not carry over: Cilin lists no English
//! words, and English text has no full-width digits to toggle. Here a
//! reprint gets a new headline, a byline or a dateline, straight or curly
//! quotes, credit lines; a partial copy keeps the lead and a block, or an
//! excerpt, or drops sentences, or has a few words edited.

use super::build::{Article, NoiseRates, PartialWeights};
use crate::extract::structure::split_sentences;
use crate::util::rng::SplitMix64;

/// Words whose full stop is no sentence end (`Mr. Smith`, `Jan. 5`).
const ABBREVIATIONS: [&str; 59] = [
    "mr", "mrs", "ms", "dr", "prof", "st", "jr", "sr", "gen", "sen", "rep", "gov", "lt", "col",
    "sgt", "capt", "cmdr", "adm", "maj", "rev", "hon", "pres", "supt", "inc", "co", "corp", "ltd",
    "llc", "bros", "vs", "etc", "no", "nos", "vol", "fig", "approx", "dept", "jan", "feb", "mar",
    "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "mt", "ft", "ave", "blvd",
    "e.g", "i.e", "u.s", "u.k", "a.m", "p.m",
];

/// Whether the piece `next` continues the sentence `before` rather than
/// starting one: `before` ends in a semicolon (a clause, not a sentence),
/// an abbreviation or an initial, or inside a quotation (`“I said, ‘I
/// want more.’ They said, ‘No.’”` is one sentence), or `next` starts in
/// lower case.
fn continues(before: &str, next: &str) -> bool {
    let open_quote = before.matches('“').count() > before.matches('”').count()
        || before.matches('"').count() % 2 == 1;
    if open_quote || before.ends_with(';') || next.starts_with(|c: char| c.is_lowercase()) {
        return true;
    }
    let Some(stem) = before.strip_suffix('.') else {
        return false;
    };
    let last = stem
        .rsplit(|c: char| c.is_whitespace() || matches!(c, '(' | '"' | '“' | '‘'))
        .next()
        .unwrap_or("")
        .to_lowercase();
    let initial = last.chars().count() == 1 && last.chars().all(char::is_alphabetic);
    initial || ABBREVIATIONS.contains(&last.as_str())
}

/// The sentences of an English paragraph: the extractor's split (which
/// stops at every `. ` and `;`) with the pieces an abbreviation, an
/// initial or a semicolon cut off joined again.
pub fn sentences(paragraph: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (a, b) in split_sentences(paragraph) {
        let piece = &paragraph[a..b];
        match out.last_mut() {
            Some(last) if continues(last, piece) => {
                last.push(' ');
                last.push_str(piece);
            }
            _ => out.push(piece.to_string()),
        }
    }
    out
}

/// Every sentence of `paragraphs`, with the index of its paragraph.
fn numbered_sentences(paragraphs: &[String]) -> Vec<(usize, String)> {
    paragraphs
        .iter()
        .enumerate()
        .flat_map(|(i, p)| sentences(p).into_iter().map(move |s| (i, s)))
        .collect()
}

/// Sentences back into paragraphs: those of one paragraph that are still
/// next to each other share one.
fn regroup(sentences: &[(usize, String)]) -> Vec<String> {
    let mut out: Vec<(usize, String)> = Vec::new();
    for (i, s) in sentences {
        match out.last_mut() {
            Some((j, p)) if j == i => {
                p.push(' ');
                p.push_str(s);
            }
            _ => out.push((*i, s.clone())),
        }
    }
    out.into_iter().map(|(_, p)| p).collect()
}

/// A contiguous run of `low`..`high` of `items` (at least one).
fn block<T: Clone>(rng: &mut SplitMix64, items: &[T], low: f64, high: f64) -> Vec<T> {
    if items.is_empty() {
        return Vec::new();
    }
    let share = low + (high - low) * rng.unit();
    let size = ((items.len() as f64 * share).ceil() as usize).clamp(1, items.len());
    let start = rng.below(items.len() - size + 1);
    items[start..start + size].to_vec()
}

/// Curly quotes and dashes to ASCII, or ASCII quotes to curly ones: one
/// site's typography against another's, as width is for Chinese.
pub fn toggle_quotes(text: &str) -> String {
    if text.contains(['‘', '’', '“', '”', '—', '–']) {
        return text
            .replace(['‘', '’'], "'")
            .replace(['“', '”'], "\"")
            .replace('—', "--")
            .replace('–', "-");
    }
    let mut open = true;
    text.replace("--", "—")
        .chars()
        .map(|c| match c {
            '\'' => '’',
            '"' => {
                open = !open;
                if open {
                    '”'
                } else {
                    '“'
                }
            }
            c => c,
        })
        .collect()
}

/// Words that stay lower case in a title-cased headline.
const SMALL_WORDS: [&str; 16] = [
    "a", "an", "the", "and", "but", "or", "nor", "for", "of", "on", "in", "to", "at", "by", "as",
    "with",
];

fn title_case(title: &str) -> String {
    title
        .split_whitespace()
        .enumerate()
        .map(|(i, w)| {
            let mut chars = w.chars();
            match chars.next() {
                Some(c) if i == 0 || !SMALL_WORDS.contains(&w) => {
                    c.to_uppercase().chain(chars).collect()
                }
                _ => w.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The headline another site runs: with a rubric, in title case, or
/// with its own name after it.
fn edit_headline(rng: &mut SplitMix64, title: &str, site: &str) -> String {
    const RUBRICS: [&str; 4] = ["UPDATE: ", "Analysis: ", "Report: ", "WATCH: "];
    match rng.below(3) {
        0 => format!("{}{title}", RUBRICS[rng.below(RUBRICS.len())]),
        1 if title_case(title) != title => title_case(title),
        _ => format!("{title} | {site}"),
    }
}

const NAMES: [&str; 6] = [
    "Sarah Collins",
    "James Miller",
    "Priya Natarajan",
    "Tom Becker",
    "Maria Lopez",
    "David Okafor",
];
const CITIES: [&str; 5] = [
    "NEW YORK",
    "LONDON",
    "WASHINGTON",
    "SAN FRANCISCO",
    "CHICAGO",
];

/// A reprint: the whole story, with the noise an English reprint carries.
/// `site` is the original's publisher, which credit lines name.
pub fn reprint(
    rng: &mut SplitMix64,
    noise: &NoiseRates,
    article: &Article,
    site: &str,
) -> (String, Vec<String>, String) {
    let mut title = article.title.clone();
    let mut paragraphs = article.paragraphs.clone();
    let mut ops = vec!["reprint"];
    if paragraphs.len() >= 3 && rng.chance(noise.drop_paragraph) {
        let i = rng.range(1, paragraphs.len() - 1);
        paragraphs.remove(i);
        ops.push("drop_paragraph");
    }
    if rng.chance(noise.width) {
        paragraphs = paragraphs.iter().map(|p| toggle_quotes(p)).collect();
        ops.push("quotes");
    }
    if rng.chance(noise.headline) {
        title = edit_headline(rng, &title, site);
        ops.push("headline");
    }
    if rng.chance(noise.byline) {
        let name = NAMES[rng.below(NAMES.len())];
        if rng.chance(0.5) {
            paragraphs.insert(0, format!("By {name}, {site}"));
            ops.push("byline");
        } else {
            let city = CITIES[rng.below(CITIES.len())];
            paragraphs[0] = format!("{city} ({site}) — {}", paragraphs[0]);
            ops.push("dateline");
        }
    }
    if rng.chance(noise.caption) {
        let at = rng.below(paragraphs.len() + 1);
        paragraphs.insert(at, format!("(Photo: {site})"));
        ops.push("caption");
    }
    if rng.chance(noise.source_line) {
        paragraphs.push(format!("This story originally appeared on {site}."));
        ops.push("source_line");
    }
    if rng.chance(noise.editor_line) {
        let name = NAMES[rng.below(NAMES.len())];
        paragraphs.push(format!("(Editing by {name})"));
        ops.push("editor_line");
    }
    (title, paragraphs, ops.join("+"))
}

/// About `share` of the words deleted, doubled by a word of the same
/// story, or replaced by one: a copy edited by hand.
pub fn edit_words(rng: &mut SplitMix64, paragraphs: &[String], share: f64) -> Vec<String> {
    let vocabulary: Vec<&str> = paragraphs
        .iter()
        .flat_map(|p| p.split_whitespace())
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| w.chars().count() >= 3 && w.chars().all(char::is_alphabetic))
        .collect();
    if vocabulary.is_empty() {
        return paragraphs.to_vec();
    }
    paragraphs
        .iter()
        .map(|p| {
            let mut out: Vec<String> = Vec::new();
            for word in p.split_whitespace() {
                if !rng.chance(share) {
                    out.push(word.to_string());
                    continue;
                }
                let other = vocabulary[rng.below(vocabulary.len())];
                match rng.below(3) {
                    0 => {}
                    1 => out.extend([word.to_string(), other.to_string()]),
                    _ => {
                        // The replacement keeps the word's punctuation.
                        let core = word.trim_matches(|c: char| !c.is_alphanumeric());
                        out.push(if core.is_empty() {
                            word.to_string()
                        } else {
                            word.replacen(core, other, 1)
                        });
                    }
                }
            }
            out.join(" ")
        })
        .filter(|p| !p.is_empty())
        .collect()
}

/// A partial copy by one of the weighted operations. `donor` is a story
/// of no cluster, for digests and inserted sentences.
pub fn partial(
    rng: &mut SplitMix64,
    weights: &PartialWeights,
    article: &Article,
    donor: Option<&Article>,
) -> (Vec<String>, String) {
    let mut choices = vec![
        ("lead_block", weights.lead_block),
        ("excerpt", weights.excerpt),
        ("edit_sentences", weights.edit_sentences),
        ("word_edits", weights.word_edits),
    ];
    if donor.is_some() {
        choices.push(("digest", weights.digest));
    }
    let total: f64 = choices.iter().map(|x| x.1).sum();
    let mut pick = rng.unit() * total;
    let mut op = choices[0].0;
    for (name, weight) in &choices {
        if pick < *weight {
            op = name;
            break;
        }
        pick -= weight;
    }
    let lead = article.paragraphs[0].clone();
    let rest = numbered_sentences(&article.paragraphs[1..]);
    let paragraphs = match op {
        "lead_block" => {
            let mut out = vec![lead];
            out.extend(regroup(&block(rng, &rest, 0.3, 0.7)));
            out
        }
        "excerpt" => regroup(&block(
            rng,
            &numbered_sentences(&article.paragraphs),
            0.4,
            0.8,
        )),
        "edit_sentences" => {
            let all = numbered_sentences(&article.paragraphs);
            let mut kept: Vec<(usize, String)> =
                all.iter().filter(|_| !rng.chance(0.2)).cloned().collect();
            if kept.is_empty() {
                kept = all;
            }
            if let Some(donor) = donor {
                let theirs = numbered_sentences(&donor.paragraphs);
                for _ in 0..rng.range(1, 2).min(theirs.len()) {
                    let at = rng.below(kept.len() + 1);
                    // In the paragraph of the sentence it follows.
                    let home = at.checked_sub(1).map_or(0, |i| kept[i].0);
                    kept.insert(at, (home, theirs[rng.below(theirs.len())].1.clone()));
                }
            }
            regroup(&kept)
        }
        "word_edits" => {
            let share = 0.03 + 0.05 * rng.unit();
            edit_words(rng, &article.paragraphs, share)
        }
        _ => {
            // The lead of this story, a block of another, this story's
            // second paragraph.
            let theirs = numbered_sentences(&donor.expect("weighted only with a donor").paragraphs);
            let mut out = vec![lead];
            out.push(
                block(rng, &theirs, 0.3, 0.5)
                    .into_iter()
                    .map(|(_, s)| s)
                    .collect::<Vec<_>>()
                    .join(" "),
            );
            out.extend(article.paragraphs.iter().skip(1).take(1).cloned());
            out.into_iter().filter(|p| !p.is_empty()).collect()
        }
    };
    (paragraphs, op.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_end_at_full_stops_not_at_abbreviations_or_decimals() {
        let p = "Mr. Smith paid $3.5 million on Jan. 5 to J. R. Jones Inc. in the U.S. capital; \
                 he said so. The deal (approx. 10% of sales) closed at 4 p.m. Friday! Was it fair?";
        assert_eq!(
            sentences(p),
            [
                "Mr. Smith paid $3.5 million on Jan. 5 to J. R. Jones Inc. in the U.S. capital; he said so.",
                "The deal (approx. 10% of sales) closed at 4 p.m. Friday!",
                "Was it fair?",
            ]
        );
    }

    #[test]
    fn a_quotation_is_one_sentence_with_its_attribution() {
        let p = "“My people had $20 billion done,” he recounted. “And I said, ‘I want more.’ \
                 They said, ‘No.’” The members laughed. \"It works. Really.\" She left.";
        assert_eq!(
            sentences(p),
            [
                "“My people had $20 billion done,” he recounted.",
                "“And I said, ‘I want more.’ They said, ‘No.’”",
                "The members laughed.",
                "\"It works. Really.\"",
                "She left.",
            ]
        );
    }

    #[test]
    fn quotes_toggle_both_ways() {
        assert_eq!(toggle_quotes("It’s “done” — now"), "It's \"done\" -- now");
        assert_eq!(toggle_quotes("It's \"done\" -- now"), "It’s “done” — now");
    }

    #[test]
    fn regrouping_keeps_paragraphs_of_neighbouring_sentences() {
        let ps = vec!["A one. A two.".to_string(), "B one. B two.".to_string()];
        let all = numbered_sentences(&ps);
        assert_eq!(regroup(&all), ps);
        assert_eq!(regroup(&all[1..3]), ["A two.", "B one."]);
    }

    #[test]
    fn word_edits_use_the_story_s_own_words_and_keep_punctuation() {
        let ps = vec!["The council voted on Tuesday, after a long debate.".to_string()];
        let mut rng = SplitMix64::new(9);
        let out = edit_words(&mut rng, &ps, 0.5);
        assert_ne!(out, ps, "at share 0.5 some word changes");
        let own: Vec<&str> = ps[0]
            .split_whitespace()
            .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
            .collect();
        for w in out[0].split_whitespace() {
            let core = w.trim_matches(|c: char| !c.is_alphanumeric());
            assert!(own.contains(&core), "`{core}` is not a word of the story");
        }
        assert!(out[0].ends_with('.'), "{}", out[0]);
    }
}
