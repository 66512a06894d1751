//! Boilerplate across the pages of one site.
//!
//! A single-page extractor can only guess which blocks are chrome; a crawl
//! sees many pages of each site, and a block that recurs on many of them
//! (a copyright line, a "related stories" list, a newsletter plea, a
//! template's fixed headings) is the site's, not the story's. After
//! extraction, each paragraph and subtitle is counted once per page in its
//! host (from the page's `url`); those on at least `share` of the host's
//! pages, and on at least `min_pages` of them, are removed before
//! tokenising. Different stories on one template then stop sharing text,
//! even where the extractor kept some of the template.
//!
//! The two numbers decide what a real reprint on the same site can lose:
//! a story repeated on more than `share` of a host's pages would be taken
//! for boilerplate, so `share` should stay above the share of a site's
//! pages one story fills (clusters of a few pages among dozens).

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::{Deserialize, Serialize};

use super::structure::DocumentStructure;

/// `boilerplate: site`, or `boilerplate: { by: site, share: 0.3, min_pages: 3 }`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BoilerplateConfig {
    /// Pages are grouped by the host of their `url`.
    pub by: Scope,
    /// A block is boilerplate when at least this share of its host's pages
    /// carry it ...
    pub share: f64,
    /// ... and at least this many; hosts with fewer pages keep everything.
    pub min_pages: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    Site,
}

impl Default for BoilerplateConfig {
    fn default() -> Self {
        BoilerplateConfig {
            by: Scope::Site,
            share: 0.3,
            min_pages: 3,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Full {
    by: Scope,
    #[serde(default)]
    share: Option<f64>,
    #[serde(default)]
    min_pages: Option<usize>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Form {
    Short(Scope),
    Full(Full),
}

impl<'de> Deserialize<'de> for BoilerplateConfig {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let defaults = BoilerplateConfig::default();
        let config = match Form::deserialize(d).map_err(|_| {
            serde::de::Error::custom(
                "boilerplate: expected `site` or { by: site, share: 0..1, min_pages: N }",
            )
        })? {
            Form::Short(by) => BoilerplateConfig { by, ..defaults },
            Form::Full(f) => BoilerplateConfig {
                by: f.by,
                share: f.share.unwrap_or(defaults.share),
                min_pages: f.min_pages.unwrap_or(defaults.min_pages),
            },
        };
        if !(config.share > 0.0 && config.share <= 1.0) {
            return Err(serde::de::Error::custom(format!(
                "boilerplate.share: {} is not in (0, 1]",
                config.share
            )));
        }
        if config.min_pages < 2 {
            return Err(serde::de::Error::custom(format!(
                "boilerplate.min_pages: {} must be at least 2 (a block on one page is never shared)",
                config.min_pages
            )));
        }
        Ok(config)
    }
}

/// What was removed on one host.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HostReport {
    pub host: String,
    pub pages: usize,
    /// Pages a block must be on to be removed here.
    pub min_pages: usize,
    /// Distinct blocks found to be boilerplate.
    pub blocks: usize,
    /// Characters removed, and characters there were, over the host's pages.
    pub chars_removed: usize,
    pub chars: usize,
}

/// The host of a URL, lower-cased, without `www.`; `None` when it does not parse.
pub fn host_of(url: &str) -> Option<String> {
    let parsed = url::Url::parse(url).ok()?;
    let host = parsed.host_str()?.to_ascii_lowercase();
    Some(host.strip_prefix("www.").unwrap_or(&host).to_string())
}

fn key(block: &str) -> String {
    block.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Removes, in place, the paragraphs and subtitles that recur across the
/// pages of a host. `urls[i]` is page i's URL; pages without one are left
/// alone. Hosts come back sorted by name, with those that had no
/// boilerplate too.
pub fn remove_site_boilerplate(
    urls: &[Option<&str>],
    structures: &mut [DocumentStructure],
    config: &BoilerplateConfig,
) -> Vec<HostReport> {
    let mut by_host: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, url) in urls.iter().enumerate() {
        if let Some(host) = url.and_then(host_of) {
            by_host.entry(host).or_default().push(i);
        }
    }
    let mut reports = Vec::new();
    for (host, pages) in by_host {
        let needed = ((config.share * pages.len() as f64).ceil() as usize).max(config.min_pages);
        let mut counts: HashMap<String, usize> = HashMap::new();
        for &p in &pages {
            let s = &structures[p];
            let distinct: HashSet<String> = s
                .paragraphs
                .iter()
                .chain(&s.subtitles)
                .map(|b| key(b))
                .collect();
            for block in distinct {
                *counts.entry(block).or_default() += 1;
            }
        }
        let boilerplate: HashSet<&str> = counts
            .iter()
            .filter(|(_, &c)| c >= needed && pages.len() >= config.min_pages)
            .map(|(b, _)| b.as_str())
            .collect();
        let mut report = HostReport {
            host,
            pages: pages.len(),
            min_pages: needed,
            blocks: boilerplate.len(),
            chars_removed: 0,
            chars: 0,
        };
        let chars = |v: &[String]| v.iter().map(|b| b.chars().count()).sum::<usize>();
        for &p in &pages {
            let s = &structures[p];
            let before = chars(&s.paragraphs) + chars(&s.subtitles);
            report.chars += before;
            if boilerplate.is_empty() {
                continue;
            }
            let keep = |v: &[String]| -> Vec<String> {
                v.iter()
                    .filter(|b| !boilerplate.contains(key(b).as_str()))
                    .cloned()
                    .collect()
            };
            let (paragraphs, subtitles) = (keep(&s.paragraphs), keep(&s.subtitles));
            report.chars_removed += before - chars(&paragraphs) - chars(&subtitles);
            structures[p] = DocumentStructure::new(s.title.clone(), subtitles, paragraphs);
        }
        reports.push(report);
    }
    reports
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(paragraphs: &[&str]) -> DocumentStructure {
        DocumentStructure::new(
            None,
            vec!["Related stories".into()],
            paragraphs.iter().map(|p| p.to_string()).collect(),
        )
    }

    #[test]
    fn blocks_on_many_pages_of_a_host_go_and_stories_stay() {
        let mut pages: Vec<DocumentStructure> = (0..6)
            .map(|i| {
                let story = format!("Story {i} happened today, and people talked about it.");
                page(&[&story, "Copyright  2024 The Herald. All rights reserved."])
            })
            .collect();
        // A story reprinted on two pages of the host is not boilerplate.
        pages[1].paragraphs[0] = pages[0].paragraphs[0].clone();
        pages.push(page(&["Copyright 2024 The Herald. All rights reserved."]));
        let urls: Vec<Option<&str>> = (0..6)
            .map(|_| Some("https://www.herald.example/a.html"))
            .chain([Some("https://other.example/x")])
            .collect();
        let reports = remove_site_boilerplate(&urls, &mut pages, &BoilerplateConfig::default());
        assert_eq!(reports.len(), 2);
        let herald = reports.iter().find(|r| r.host == "herald.example").unwrap();
        assert_eq!((herald.pages, herald.blocks, herald.min_pages), (6, 2, 3));
        for p in &pages[..6] {
            assert_eq!(p.paragraphs.len(), 1, "{:?}", p.paragraphs);
            assert!(p.paragraphs[0].starts_with("Story"));
            assert!(p.subtitles.is_empty());
        }
        assert_eq!(pages[1].paragraphs, pages[0].paragraphs);
        // The other host has one page: below min_pages, nothing goes.
        assert_eq!(pages[6].paragraphs.len(), 1);
        assert_eq!(pages[6].subtitles.len(), 1);
        // Both recurring blocks, as written on each page (whitespace counts).
        let removed = 6 * "Related stories".len()
            + 6 * "Copyright  2024 The Herald. All rights reserved.".len();
        assert_eq!(herald.chars_removed, removed);
    }

    #[test]
    fn config_takes_a_word_or_a_map_and_rejects_bad_values() {
        let c: BoilerplateConfig = serde_yaml::from_str("site").unwrap();
        assert_eq!(c, BoilerplateConfig::default());
        let c: BoilerplateConfig = serde_yaml::from_str("{by: site, share: 0.5}").unwrap();
        assert_eq!((c.share, c.min_pages), (0.5, 3));
        for bad in [
            "page",
            "{by: site, share: 1.5}",
            "{by: site, min_pages: 1}",
            "{by: site, shar: 0.5}",
        ] {
            assert!(
                serde_yaml::from_str::<BoilerplateConfig>(bad).is_err(),
                "{bad}"
            );
        }
    }
}
