//! Boilerplate across the pages of one site or one template.
//!
//! A single-page extractor can only guess which blocks are chrome; a crawl
//! sees many pages of each site, and a block that recurs on many of them
//! (a copyright line, a "related stories" list, a newsletter plea, a
//! template's fixed headings) is the site's, not the story's. After
//! extraction, pages are grouped by the host of their `url`, by template
//! (pages whose DOM skeletons match, see `extract::skeleton`), or both;
//! each paragraph and subtitle is counted once per page in its group, and
//! those on at least `share` of the group's pages, and on at least
//! `min_pages` of them, are removed before tokenising. Different stories
//! on one template then stop sharing text, even where the extractor kept
//! some of the template.
//!
//! Template groups find what hosts cannot: pages without a `url`, one
//! template mirrored on many hosts, and one host serving several
//! templates (an article page and a gallery page share the site's footer,
//! which the host group removes, but each template has chrome of its own).
//! With `group: both` (the default) a block goes when it is boilerplate in
//! the page's host or in its template.
//!
//! The two numbers decide what a real reprint can lose: a story repeated
//! on more than `share` of a group's pages would be taken for boilerplate,
//! so `share` should stay above the share of a group's pages one story
//! fills (clusters of a few pages among dozens).

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::{Deserialize, Serialize};

use super::skeleton::template_groups;
use super::structure::DocumentStructure;

/// `boilerplate: site`, or
/// `boilerplate: { by: site, group: both, share: 0.3, min_pages: 3 }`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BoilerplateConfig {
    pub by: Scope,
    /// Which pages count together: one host, one template, or either.
    pub group: Group,
    /// A block is boilerplate when at least this share of its group's
    /// pages carry it ...
    pub share: f64,
    /// ... and at least this many; groups with fewer pages keep everything.
    pub min_pages: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    Site,
}

/// How pages are grouped for counting blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Group {
    /// The host of the page's `url`; pages without one are left alone.
    Host,
    /// Pages whose DOM skeletons match, on any host or none.
    Template,
    /// A block goes when it is boilerplate in the page's host or template.
    Both,
}

impl Group {
    const NAMES: [(&'static str, Group); 3] = [
        ("host", Group::Host),
        ("template", Group::Template),
        ("both", Group::Both),
    ];

    fn by_host(self) -> bool {
        self != Group::Template
    }

    fn by_template(self) -> bool {
        self != Group::Host
    }
}

impl Default for BoilerplateConfig {
    fn default() -> Self {
        BoilerplateConfig {
            by: Scope::Site,
            group: Group::Both,
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
    group: Option<String>,
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
                "boilerplate: expected `site` or { by: site, group: host | template | both, \
                 share: 0..1, min_pages: N }",
            )
        })? {
            Form::Short(by) => BoilerplateConfig { by, ..defaults },
            Form::Full(f) => BoilerplateConfig {
                by: f.by,
                group: match f.group.as_deref() {
                    None => defaults.group,
                    Some(name) => Group::NAMES
                        .iter()
                        .find(|(n, _)| *n == name)
                        .map(|(_, g)| *g)
                        .ok_or_else(|| {
                            serde::de::Error::custom(format!(
                                "boilerplate.group: `{name}` is not one of host, template, both"
                            ))
                        })?,
                },
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

/// What was removed in one group of pages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupReport {
    /// `host` or `template`.
    pub kind: String,
    /// The host; for a template, `template@` and its first page's id.
    pub name: String,
    pub pages: usize,
    /// Distinct hosts among the pages (a template mirrored on several
    /// hosts shows here); 0 when none has a `url`.
    pub hosts: usize,
    /// Pages a block must be on to be removed here.
    pub min_pages: usize,
    /// Distinct blocks found to be boilerplate.
    pub blocks: usize,
    /// Characters this group's boilerplate removed, and characters there
    /// were, over the group's pages.
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

fn blocks(s: &DocumentStructure) -> impl Iterator<Item = &str> {
    s.paragraphs().chain(s.subtitles.iter().map(String::as_str))
}

/// Removes, in place, the paragraphs and subtitles that recur across the
/// pages of a group. `ids[i]` and `urls[i]` are page i's id and URL; pages
/// without a URL have no host, pages without a skeleton no template. Host
/// groups come first, sorted by host (those that had no boilerplate too),
/// then template groups of two pages or more, by their first page.
pub fn remove_site_boilerplate(
    ids: &[&str],
    urls: &[Option<&str>],
    structures: &mut [DocumentStructure],
    config: &BoilerplateConfig,
) -> Vec<GroupReport> {
    let hosts: Vec<Option<String>> = urls.iter().map(|u| u.and_then(host_of)).collect();
    let mut groups: Vec<(&str, String, Vec<usize>)> = Vec::new();
    if config.group.by_host() {
        let mut by_host: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (i, host) in hosts.iter().enumerate() {
            if let Some(host) = host {
                by_host.entry(host).or_default().push(i);
            }
        }
        groups.extend(
            by_host
                .into_iter()
                .map(|(host, pages)| ("host", host.to_string(), pages)),
        );
    }
    if config.group.by_template() {
        let skeletons: Vec<_> = structures.iter().map(|s| s.skeleton.as_ref()).collect();
        let mut by_first: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (i, g) in template_groups(&skeletons).into_iter().enumerate() {
            if let Some(g) = g {
                by_first.entry(g).or_default().push(i);
            }
        }
        groups.extend(
            by_first
                .into_iter()
                .filter(|(_, pages)| pages.len() >= 2)
                .map(|(first, pages)| ("template", format!("template@{}", ids[first]), pages)),
        );
    }
    // Each group's boilerplate, and the groups each page is in.
    let mut found: Vec<HashSet<String>> = Vec::with_capacity(groups.len());
    let mut member_of: Vec<Vec<usize>> = vec![Vec::new(); structures.len()];
    let mut reports = Vec::with_capacity(groups.len());
    for (g, (kind, name, pages)) in groups.iter().enumerate() {
        let needed = ((config.share * pages.len() as f64).ceil() as usize).max(config.min_pages);
        let mut counts: HashMap<String, usize> = HashMap::new();
        for &p in pages {
            member_of[p].push(g);
            let distinct: HashSet<String> = blocks(&structures[p]).map(key).collect();
            for block in distinct {
                *counts.entry(block).or_default() += 1;
            }
        }
        let boilerplate: HashSet<String> = counts
            .into_iter()
            .filter(|&(_, c)| c >= needed && pages.len() >= config.min_pages)
            .map(|(b, _)| b)
            .collect();
        let chars: usize = pages
            .iter()
            .flat_map(|&p| blocks(&structures[p]))
            .map(|b| b.chars().count())
            .sum();
        reports.push(GroupReport {
            kind: kind.to_string(),
            name: name.clone(),
            pages: pages.len(),
            hosts: pages
                .iter()
                .filter_map(|&p| hosts[p].as_deref())
                .collect::<HashSet<_>>()
                .len(),
            min_pages: needed,
            blocks: boilerplate.len(),
            chars_removed: 0,
            chars,
        });
        found.push(boilerplate);
    }
    for (p, groups) in member_of.iter().enumerate() {
        if groups.iter().all(|&g| found[g].is_empty()) {
            continue;
        }
        let s = &structures[p];
        let mut keep = |v: &mut dyn Iterator<Item = &str>| -> Vec<String> {
            v.filter(|b| {
                let k = key(b);
                let mut gone = false;
                for &g in groups {
                    if found[g].contains(&k) {
                        reports[g].chars_removed += b.chars().count();
                        gone = true;
                    }
                }
                !gone
            })
            .map(str::to_string)
            .collect()
        };
        let paragraphs = keep(&mut s.paragraphs());
        let subtitles = keep(&mut s.subtitles.iter().map(String::as_str));
        let skeleton = s.skeleton;
        structures[p] = DocumentStructure::new(s.title.clone(), subtitles, paragraphs);
        structures[p].skeleton = skeleton;
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
        let story = pages[0].paragraph(0).to_string();
        pages[1] = page(&[&story, "Copyright  2024 The Herald. All rights reserved."]);
        pages.push(page(&["Copyright 2024 The Herald. All rights reserved."]));
        let urls: Vec<Option<&str>> = (0..6)
            .map(|_| Some("https://www.herald.example/a.html"))
            .chain([Some("https://other.example/x")])
            .collect();
        let ids = ["a", "b", "c", "d", "e", "f", "g"];
        let reports =
            remove_site_boilerplate(&ids, &urls, &mut pages, &BoilerplateConfig::default());
        // Text pages have no skeleton: host groups only.
        assert_eq!(reports.len(), 2);
        let herald = reports.iter().find(|r| r.name == "herald.example").unwrap();
        assert_eq!((herald.pages, herald.blocks, herald.min_pages), (6, 2, 3));
        for p in &pages[..6] {
            assert_eq!(p.paragraph_count(), 1, "{p:?}");
            assert!(p.paragraph(0).starts_with("Story"));
            assert!(p.subtitles.is_empty());
        }
        assert!(pages[1].paragraphs().eq(pages[0].paragraphs()));
        // The other host has one page: below min_pages, nothing goes.
        assert_eq!(pages[6].paragraph_count(), 1);
        assert_eq!(pages[6].subtitles.len(), 1);
        // Both recurring blocks, as written on each page (whitespace counts).
        let removed = 6 * "Related stories".len()
            + 6 * "Copyright  2024 The Herald. All rights reserved.".len();
        assert_eq!(herald.chars_removed, removed);
    }

    /// A page of template `t` (its classes, and one block of chrome text
    /// naming it) carrying `story`, as full-text extraction reads it.
    fn templated(t: &str, story: &str) -> DocumentStructure {
        let html = format!(
            "<html><body><header class='{t}-top'><nav class='{t}-menu'><ul><li>Home</li>\
             <li>World</li></ul></nav></header><div class='{t}-layout'><article class='{t}-story'>\
             <h1>{story}</h1><p>{story} It happened on a Monday, people said.</p></article>\
             <aside class='{t}-side'><div class='{t}-box'><p>Sign up to the {t} newsletter.</p>\
             </div></aside></div><footer class='{t}-foot'><p>Copyright {t} Media.</p></footer>\
             </body></html>"
        );
        crate::extract::extract_html(&html, crate::extract::Extraction::FullText).structure
    }

    fn template_only() -> BoilerplateConfig {
        BoilerplateConfig {
            group: Group::Template,
            ..BoilerplateConfig::default()
        }
    }

    #[test]
    fn pages_of_one_template_on_different_hosts_or_none_are_grouped() {
        let mut pages: Vec<DocumentStructure> = (0..4)
            .map(|i| templated("alpha", &format!("Story {i}.")))
            .collect();
        let before = pages.clone();
        // Two mirrors, one page with no url at all, one more mirror.
        let urls = [
            Some("https://one.example/a"),
            Some("https://two.example/b"),
            None,
            Some("https://three.example/c"),
        ];
        let ids = ["p0", "p1", "p2", "p3"];
        // By host, each host has one page: nothing can be learnt.
        let mut by_host = pages.clone();
        let config = BoilerplateConfig {
            group: Group::Host,
            ..BoilerplateConfig::default()
        };
        let reports = remove_site_boilerplate(&ids, &urls, &mut by_host, &config);
        assert!(reports.iter().all(|r| r.kind == "host" && r.blocks == 0));
        assert_eq!(by_host, before);
        // By template, the four pages are one group across three hosts.
        let reports = remove_site_boilerplate(&ids, &urls, &mut pages, &template_only());
        assert_eq!(reports.len(), 1, "{reports:?}");
        let r = &reports[0];
        assert_eq!(
            (r.kind.as_str(), r.name.as_str(), r.pages, r.hosts),
            ("template", "template@p0", 4, 3)
        );
        for (i, p) in pages.iter().enumerate() {
            let text = p.text();
            assert!(
                !text.contains("newsletter") && !text.contains("Copyright"),
                "{text}"
            );
            assert!(text.contains(&format!("Story {i}. It happened")), "{text}");
            assert!(p.skeleton.is_some());
        }
        assert!(r.blocks >= 4 && r.chars_removed > 0, "{r:?}");
    }

    #[test]
    fn templates_on_one_host_are_grouped_apart() {
        let mut pages: Vec<DocumentStructure> = (0..3)
            .map(|i| templated("alpha", &format!("Alpha story {i}.")))
            .chain((0..3).map(|i| templated("gallery", &format!("Gallery story {i}."))))
            .collect();
        let urls = [Some("https://site.example/x"); 6];
        let ids = ["a0", "a1", "a2", "g0", "g1", "g2"];
        let reports = remove_site_boilerplate(&ids, &urls, &mut pages, &template_only());
        let groups: Vec<(&str, usize, usize)> = reports
            .iter()
            .map(|r| (r.name.as_str(), r.pages, r.hosts))
            .collect();
        assert_eq!(groups, [("template@a0", 3, 1), ("template@g0", 3, 1)]);
        // Each template's chrome went from its own pages.
        assert!(pages.iter().all(|p| !p.text().contains("newsletter")));
        // With both, the host group is there too, before the templates.
        let mut again: Vec<DocumentStructure> = (0..6)
            .map(|i| templated(if i < 3 { "alpha" } else { "gallery" }, "S."))
            .collect();
        let reports =
            remove_site_boilerplate(&ids, &urls, &mut again, &BoilerplateConfig::default());
        let kinds: Vec<(&str, usize)> =
            reports.iter().map(|r| (r.kind.as_str(), r.pages)).collect();
        assert_eq!(kinds, [("host", 6), ("template", 3), ("template", 3)]);
    }

    #[test]
    fn unknown_group_values_name_the_file_and_the_field() {
        let text = "corpus: demo\nboilerplate: { by: site, group: page }\n\
                    algorithms:\n  - type: exact\n";
        let e = crate::experiment::config::ExperimentConfig::parse(
            std::path::Path::new("experiments/mine.yaml"),
            text,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("experiments/mine.yaml"), "{e}");
        assert!(
            e.contains("boilerplate.group") && e.contains("`page`"),
            "{e}"
        );
        for (value, group) in Group::NAMES {
            let c: BoilerplateConfig =
                serde_yaml::from_str(&format!("{{by: site, group: {value}}}")).unwrap();
            assert_eq!(c.group, group);
        }
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
