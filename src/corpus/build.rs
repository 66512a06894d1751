//! `neardup corpus build`: labelled corpora in the shape of seed 001's
//! (prose and news; full and partial duplicates), from real text and real
//! page layouts, seeded and deterministic.
//!
//! Seed 001 counts pages by kind: prose 2,900 pages of which 1,781 fully
//! and 1,119 partially duplicated. Every page of such a cluster is "a
//! duplicated page", the one it was copied from included, so a cluster's
//! kind is the kind of all its pages; `op` tells the original (published
//! first) from the copies and names each copy's transformations.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::english;
use super::templates::{cut_template, html_lang, portal_templates, Template};
use super::{read_corpus, Content, CorpusError, Lang, Page, Published, ReadOptions};
use crate::extract::structure::split_sentences;
use crate::extract::{extract_page, Extraction};
use crate::text::cilin::{Cilin, CilinError};
use crate::text::lang::detect_lang;
use crate::text::tokenize::jieba;
use crate::util::io::FileError;
use crate::util::rng::SplitMix64;
use crate::util::yaml::{read_yaml, ConfigError};

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BuildConfig {
    pub seed: u64,
    /// Multiplies every count (0.1 for a quick run).
    #[serde(default = "one")]
    pub scale: f64,
    pub sources: Sources,
    #[serde(default)]
    pub templates: TemplateConfig,
    /// Cilin file, for synonym swaps.
    #[serde(default)]
    pub thesaurus: Option<PathBuf>,
    /// Pages per category and kind, before scaling.
    pub composition: BTreeMap<String, KindCounts>,
    #[serde(default)]
    pub negatives: Negatives,
    #[serde(default)]
    pub cluster_size: SizeRange,
    #[serde(default)]
    pub rates: Rates,
    #[serde(default)]
    pub controls: Controls,
}

/// Real data added as it is, beside the built pages.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Controls {
    /// Corpora of pages that duplicate nothing (every flagged pair among
    /// them is a false positive): category `control`, kind `no_duplicate`.
    pub no_duplicates: Vec<PathBuf>,
    /// Pairs of real pages that are near-duplicates of each other (e.g.
    /// two releases of one manual): category `control`, kind `real_pair`.
    pub pairs: Vec<[PathBuf; 2]>,
}

fn one() -> f64 {
    1.0
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sources {
    /// Corpora (any format neardup reads) whose pages are base texts.
    pub news: Vec<PathBuf>,
    pub prose: Vec<PathBuf>,
    #[serde(default = "news_min")]
    pub news_min_chars: usize,
    #[serde(default = "prose_min")]
    pub prose_min_chars: usize,
    /// Only pages in these languages (tags such as `en`, `zh`) are base
    /// texts: the language a record declares (`lang`), else its HTML's
    /// `<html lang>`, else Chinese if its script is Han; any other page
    /// that declares none is left out. Empty: all.
    #[serde(default)]
    pub languages: Vec<String>,
    /// A record's `text` is its story (a benchmark's gold main text)
    /// rather than what the extractor reads in its `html`; the headline
    /// still comes from the HTML.
    #[serde(default)]
    pub gold_text: bool,
}

fn news_min() -> usize {
    200
}

fn prose_min() -> usize {
    800
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TemplateConfig {
    /// Our Chinese portal layouts.
    pub portals: bool,
    /// Folders or corpora of real pages whose main content is cut out.
    pub real: Vec<PathBuf>,
    /// At most this many real pages of each source are used as templates.
    pub max_real: usize,
    /// Real templates larger than this (after scripts are removed) are
    /// passed over, to keep built corpora a sensible size.
    pub max_real_bytes: usize,
    /// Share of pages rendered in a real template rather than a portal.
    pub real_share: f64,
    /// Only real pages that declare one of these languages (`lang` of a
    /// record, else `<html lang>`) are templates. Empty: all.
    pub languages: Vec<String>,
}

impl Default for TemplateConfig {
    fn default() -> Self {
        TemplateConfig {
            portals: true,
            real: Vec::new(),
            max_real: 40,
            max_real_bytes: 60_000,
            real_share: 0.3,
            languages: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KindCounts {
    #[serde(default)]
    pub full: usize,
    #[serde(default)]
    pub partial: usize,
}

/// Pages that must not be flagged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Negatives {
    /// Different articles in one template.
    pub layout: usize,
    /// Articles next to a cluster's source article in the source corpus
    /// (People's Daily: same page, same days, often the same topic).
    pub hard_negative: usize,
    /// Like `hard_negative`, and served by the same site as that cluster's
    /// original (its template, its boilerplate) on the same day: a
    /// different story a crawler meets on the same portal.
    pub same_site: usize,
    pub unique: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SizeRange {
    pub min: usize,
    pub max: usize,
}

impl Default for SizeRange {
    fn default() -> Self {
        SizeRange { min: 2, max: 6 }
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Rates {
    /// Share of portal pages served as GBK (half of them undeclared).
    pub gbk: f64,
    pub noise: NoiseRates,
    /// Relative weights of the partial-duplicate operations.
    pub partial: PartialWeights,
}

impl Default for Rates {
    fn default() -> Self {
        Rates {
            gbk: 0.2,
            noise: NoiseRates::default(),
            partial: PartialWeights::default(),
        }
    }
}

/// Per reprint, the chance of each kind of noise a real reprint has.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NoiseRates {
    pub width: f64,
    pub source_line: f64,
    pub editor_line: f64,
    pub caption: f64,
    pub drop_paragraph: f64,
    /// English sources only: another headline (a rubric, title case, the
    /// site's name after it).
    pub headline: f64,
    /// English sources only: a byline or a dateline before the story.
    pub byline: f64,
}

impl Default for NoiseRates {
    fn default() -> Self {
        NoiseRates {
            width: 0.3,
            source_line: 0.7,
            editor_line: 0.5,
            caption: 0.2,
            drop_paragraph: 0.2,
            headline: 0.3,
            byline: 0.4,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PartialWeights {
    pub lead_block: f64,
    pub digest: f64,
    pub edit_sentences: f64,
    pub synonyms: f64,
    /// English sources only: a contiguous block of the story, lead or not.
    pub excerpt: f64,
    /// English sources only: a few words deleted, repeated or replaced by
    /// words of the same story (English has no thesaurus here).
    pub word_edits: f64,
}

impl Default for PartialWeights {
    fn default() -> Self {
        PartialWeights {
            lead_block: 0.4,
            digest: 0.2,
            edit_sentences: 0.2,
            synonyms: 0.2,
            excerpt: 0.2,
            word_edits: 0.2,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Io(#[from] FileError),
    #[error(transparent)]
    Corpus(#[from] CorpusError),
    #[error(transparent)]
    Thesaurus(#[from] CilinError),
}

impl BuildConfig {
    pub fn load(path: &Path) -> Result<BuildConfig, BuildError> {
        let config: BuildConfig = read_yaml(path)?;
        config.validate(path)?;
        Ok(config)
    }

    fn validate(&self, path: &Path) -> Result<(), ConfigError> {
        let invalid = |key: &str, message: String| ConfigError::invalid(path, key, message);
        if !(self.scale > 0.0 && self.scale <= 10.0) {
            return Err(invalid(
                "scale",
                format!("{} is out of range (0, 10]", self.scale),
            ));
        }
        for category in self.composition.keys() {
            if !matches!(category.as_str(), "news" | "prose") {
                return Err(invalid(
                    &format!("composition.{category}"),
                    "unknown category (news or prose)".into(),
                ));
            }
        }
        let SizeRange { min, max } = self.cluster_size;
        if !(2..=50).contains(&min) || max < min || max > 50 {
            return Err(invalid(
                "cluster_size",
                format!("min {min}, max {max}: need 2 <= min <= max <= 50"),
            ));
        }
        let shares = [
            ("rates.gbk", self.rates.gbk),
            ("rates.noise.width", self.rates.noise.width),
            ("rates.noise.source_line", self.rates.noise.source_line),
            ("rates.noise.editor_line", self.rates.noise.editor_line),
            ("rates.noise.caption", self.rates.noise.caption),
            (
                "rates.noise.drop_paragraph",
                self.rates.noise.drop_paragraph,
            ),
            ("rates.noise.headline", self.rates.noise.headline),
            ("rates.noise.byline", self.rates.noise.byline),
            ("templates.real_share", self.templates.real_share),
        ];
        for (key, v) in shares {
            if !(0.0..=1.0).contains(&v) {
                return Err(invalid(key, format!("{v} is out of range 0..=1")));
            }
        }
        let w = &self.rates.partial;
        let weights = [
            w.lead_block,
            w.digest,
            w.edit_sentences,
            w.synonyms,
            w.excerpt,
            w.word_edits,
        ];
        if weights.iter().any(|&x| !(0.0..=1000.0).contains(&x))
            || weights.iter().sum::<f64>() <= 0.0
        {
            return Err(invalid(
                "rates.partial",
                "weights must be >= 0 and not all 0".into(),
            ));
        }
        if w.synonyms > 0.0 && self.thesaurus.is_none() {
            return Err(invalid(
                "thesaurus",
                "synonym swaps need the Cilin file (or rates.partial.synonyms: 0)".into(),
            ));
        }
        for (key, tags) in [
            ("sources.languages", &self.sources.languages),
            ("templates.languages", &self.templates.languages),
        ] {
            if let Some(bad) = tags.iter().find(|t| Lang::parse(t).is_none()) {
                return Err(invalid(
                    key,
                    format!("`{bad}` is no language tag (such as en, zh or pt-BR)"),
                ));
            }
        }
        if !self.templates.portals && self.templates.real.is_empty() {
            return Err(invalid(
                "templates",
                "no templates: enable portals or name real pages".into(),
            ));
        }
        Ok(())
    }
}

/// The generator of a build from its configured seed, salted with
/// "neardup!" so that a build's stream is not bare SplitMix64 of the seed.
fn build_rng(seed: u64) -> SplitMix64 {
    SplitMix64::new(seed ^ 0x6e65_6172_6475_7021)
}

/// A base text: title and paragraphs, and where it came from.
#[derive(Debug, Clone)]
pub struct Article {
    pub title: String,
    pub paragraphs: Vec<String>,
    /// (source file index, position in it), for neighbours.
    pub origin: (usize, usize),
    /// Declared, or by script: which edits a copy of it goes through.
    pub lang: Lang,
    /// The host of its URL, when the source gives one: articles of one
    /// site are each other's neighbours.
    pub site: Option<String>,
}

impl Article {
    fn chars(&self) -> usize {
        self.paragraphs.iter().map(|p| p.chars().count()).sum()
    }

    fn sentences(&self) -> Vec<String> {
        self.paragraphs
            .iter()
            .flat_map(|p| {
                split_sentences(p)
                    .into_iter()
                    .map(|(a, b)| p[a..b].to_string())
                    .collect::<Vec<_>>()
            })
            .collect()
    }
}

/// The language a page declares: its record's `lang`, else its HTML's.
fn declared_lang(page: &Page) -> Option<Lang> {
    page.lang.or_else(|| match &page.content {
        Content::Html(html) => html_lang(html),
        Content::HtmlBytes(bytes) => html_lang(&crate::extract::decode::decode_html(bytes).text),
        Content::Text(_) => None,
    })
}

/// `news.example.com` of `https://www.news.example.com/a/b`.
fn url_host(url: &str) -> Option<String> {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let host = rest.split(['/', '?', '#']).next()?.to_ascii_lowercase();
    let host = host.strip_prefix("www.").unwrap_or(&host);
    (!host.is_empty()).then(|| host.to_string())
}

/// Each page's `text` by id, for `sources.gold_text`; an error names the
/// first page without one.
fn gold_texts(path: &Path) -> Result<HashMap<String, String>, BuildError> {
    let options = ReadOptions {
        prefer_text: true,
        ..ReadOptions::unlabelled()
    };
    let mut texts = HashMap::new();
    for page in read_corpus(path, options)?.pages {
        let Content::Text(text) = page.content else {
            return Err(ConfigError::invalid(
                path,
                "sources.gold_text",
                format!("page `{}` has no `text` field", page.id),
            )
            .into());
        };
        texts.insert(page.id, text);
    }
    Ok(texts)
}

fn load_articles(
    paths: &[PathBuf],
    base: &Path,
    offset: usize,
    sources: &Sources,
) -> Result<Vec<Article>, BuildError> {
    let languages: Vec<Lang> = sources
        .languages
        .iter()
        .filter_map(|t| Lang::parse(t))
        .collect();
    let mut out = Vec::new();
    for (i, path) in paths.iter().enumerate() {
        let path = base.join(path);
        let corpus = read_corpus(&path, ReadOptions::unlabelled())?;
        let gold = if sources.gold_text {
            gold_texts(&path)?
        } else {
            HashMap::new()
        };
        for (k, page) in corpus.pages.iter().enumerate() {
            let declared = declared_lang(page);
            if !languages.is_empty() && declared.is_some_and(|l| !languages.contains(&l)) {
                continue;
            }
            let extracted = extract_page(page, Extraction::Main);
            let mut paragraphs: Vec<String> = match gold.get(&page.id) {
                Some(text) => text
                    .lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty())
                    .map(str::to_string)
                    .collect(),
                None => extracted
                    .structure
                    .paragraphs()
                    .map(str::to_string)
                    .collect(),
            };
            let title = match extracted.structure.title.or_else(|| page.title.clone()) {
                Some(t) if !t.trim().is_empty() => t,
                _ if paragraphs.len() > 1 => paragraphs.remove(0),
                _ => continue,
            };
            if paragraphs.is_empty() {
                continue;
            }
            // The headline too: a table of figures has no script of its own.
            let detected = detect_lang(&format!("{title}\n{}", paragraphs.concat()));
            // Script tells Chinese from the rest, not English from German:
            // a page that declares no language passes a filter as Chinese only.
            let known = declared.or((detected == Lang::Zh).then_some(Lang::Zh));
            if !languages.is_empty() && !known.is_some_and(|l| languages.contains(&l)) {
                continue;
            }
            let lang = declared.unwrap_or(detected);
            out.push(Article {
                title,
                paragraphs,
                origin: (offset + i, k),
                lang,
                site: page.url.as_deref().and_then(url_host),
            });
        }
    }
    Ok(out)
}

/// The sources repeat stories (the same article under two ids or two
/// titles): drawn twice, one text would be labelled as two clusters, or as
/// a cluster and a negative. Only its first copy stays in the pool.
fn drop_repeated_texts(pool: &mut Vec<Article>, seen: &mut HashSet<String>) {
    pool.retain(|a| {
        let text: String = a
            .paragraphs
            .iter()
            .flat_map(|p| p.split_whitespace())
            .collect();
        seen.insert(text)
    });
}

/// The builder's code, hashed into the names of cached seed corpora
/// (beside the build file), so that a change to how corpora are built
/// builds them anew rather than reading a stale cache.
pub const BUILDER_SOURCES: [&str; 3] = [
    include_str!("build.rs"),
    include_str!("templates.rs"),
    include_str!("english.rs"),
];

/// Whether the extractor reads `paragraphs` as the main text of `html`:
/// at least half of their characters are in it. A real template whose own
/// text outweighs a short story (an app banner, a blurb) gives that story
/// the template's main text, so two stories of different clusters would
/// be identical to a main-text method: label noise, not near-duplication.
pub fn reads_its_story(html: &str, paragraphs: &[String]) -> bool {
    let text: String = crate::extract::extract_html(html, Extraction::Main)
        .text()
        .split_whitespace()
        .collect();
    let squeezed: Vec<String> = paragraphs
        .iter()
        .map(|p| p.split_whitespace().collect())
        .collect();
    let total: usize = squeezed.iter().map(|p| p.chars().count()).sum();
    let found: usize = squeezed
        .iter()
        .filter(|p| text.contains(p.as_str()))
        .map(|p| p.chars().count())
        .sum();
    2 * found >= total
}

fn load_templates(
    config: &TemplateConfig,
    base: &Path,
) -> Result<(Vec<Template>, Vec<Template>), BuildError> {
    let portals = if config.portals {
        portal_templates()
    } else {
        Vec::new()
    };
    let languages: Vec<Lang> = config
        .languages
        .iter()
        .filter_map(|t| Lang::parse(t))
        .collect();
    let mut real = Vec::new();
    for path in &config.real {
        let path = base.join(path);
        // trafilatura's evaluation set is read from its archive; anything
        // else is a corpus or a folder of pages. A record's `lang` is kept,
        // for `templates.languages`.
        let mut pages: Vec<(String, Vec<u8>, Option<Lang>)> =
            if path.join("evaldata.json").is_file() {
                let pages = crate::corpus::gold::trafilatura_pages(&path)
                    .map_err(|e| ConfigError::invalid(&path, "templates.real", e.to_string()))?;
                pages.into_iter().map(|(id, b)| (id, b, None)).collect()
            } else {
                read_corpus(&path, ReadOptions::unlabelled())?
                    .pages
                    .into_iter()
                    .filter_map(|p| match p.content {
                        Content::Html(h) => Some((p.id, h.into_bytes(), p.lang)),
                        Content::HtmlBytes(b) => Some((p.id, b, p.lang)),
                        Content::Text(_) => None,
                    })
                    .collect()
            };
        pages.sort_by(|a, b| a.0.cmp(&b.0));
        let mut taken = 0;
        for (id, bytes, lang) in pages {
            if taken >= config.max_real {
                break;
            }
            let html = crate::extract::decode::decode_html(&bytes).text;
            if !languages.is_empty()
                && !lang
                    .or_else(|| html_lang(&html))
                    .is_some_and(|l| languages.contains(&l))
            {
                continue;
            }
            if let Some(t) = cut_template(&id, &html) {
                if t.render("", &[]).len() <= config.max_real_bytes {
                    real.push(t);
                    taken += 1;
                }
            }
        }
    }
    Ok((portals, real))
}

/// Everything a build draws from, and what it has used.
struct CorpusBuilder<'a> {
    config: &'a BuildConfig,
    rng: SplitMix64,
    portals: Vec<Template>,
    real: Vec<Template>,
    cilin: Option<Cilin>,
    pages: Vec<Page>,
    clock: u64,
}

/// Which template a page of a cluster gets: consecutive pages of one
/// cluster never share one.
impl CorpusBuilder<'_> {
    fn template(&mut self, avoid: &[String]) -> Template {
        for _ in 0..16 {
            let real = !self.real.is_empty()
                && (self.portals.is_empty() || self.rng.chance(self.config.templates.real_share));
            let pool = if real { &self.real } else { &self.portals };
            let t = &pool[self.rng.below(pool.len())];
            if !avoid.contains(&t.name) {
                return t.clone();
            }
        }
        let pool = if self.portals.is_empty() {
            &self.real
        } else {
            &self.portals
        };
        pool[self.rng.below(pool.len())].clone()
    }

    /// A template as [`Self::template`] draws it, that the extractor reads
    /// this story from. With portals, `add_page` rescues a real template
    /// that hides its story; without them, up to eight others are drawn.
    fn template_for(&mut self, avoid: &[String], title: &str, paragraphs: &[String]) -> Template {
        let mut template = self.template(avoid);
        if !self.portals.is_empty() {
            return template;
        }
        let mut avoid = avoid.to_vec();
        for _ in 0..8 {
            if template.ours || reads_its_story(&template.render(title, paragraphs), paragraphs) {
                break;
            }
            avoid.push(template.name.clone());
            template = self.template(&avoid);
        }
        template
    }

    fn published(&mut self, hours_after: u64) -> Published {
        // Clusters start a day apart from 1998-01-01, as People's Daily ran.
        let t = self.clock + hours_after;
        let (day, hour) = (t / 24, t % 24);
        let (month, day) = (1 + (day / 28) % 12, 1 + day % 28);
        Published::Text(format!("1998-{month:02}-{day:02}T{hour:02}:00:00"))
    }

    #[allow(clippy::too_many_arguments)]
    fn add_page(
        &mut self,
        id: String,
        cluster: &str,
        template: &Template,
        title: &str,
        paragraphs: &[String],
        category: &str,
        kind: &str,
        op: String,
        hours_after: u64,
        lang: Lang,
    ) {
        let mut html = template.render(title, paragraphs);
        // A real template the extractor does not read this story from
        // gives way to a portal, whose article it always reads.
        let swapped;
        let mut template = template;
        if !template.ours && !self.portals.is_empty() && !reads_its_story(&html, paragraphs) {
            swapped = self.portals[self.rng.below(self.portals.len())].clone();
            template = &swapped;
            html = template.render(title, paragraphs);
        }
        let content = if template.ours && self.rng.chance(self.config.rates.gbk) {
            let declared = self.rng.chance(0.5);
            let html = html.replace(
                "<meta charset=\"utf-8\">",
                if declared {
                    "<meta charset=\"gbk\">"
                } else {
                    ""
                },
            );
            let (bytes, _, _) = encoding_rs::GBK.encode(&html);
            Content::HtmlBytes(bytes.into_owned())
        } else {
            Content::Html(html)
        };
        let published = self.published(hours_after);
        self.pages.push(Page {
            url: Some(format!(
                "https://{}/{id}.html",
                template.name.replace([':', ' '], "-")
            )),
            id,
            cluster: cluster.to_string(),
            content,
            title: None,
            published: Some(published),
            category: Some(category.to_string()),
            kind: Some(kind.to_string()),
            lang: Some(lang),
            op: Some(op),
        });
    }

    /// A reprint: title and whole text, with the noise real reprints
    /// carry; a story not in Chinese gets the English edits.
    fn reprint(&mut self, article: &Article, source_site: &str) -> (String, Vec<String>, String) {
        if article.lang != Lang::Zh {
            // Credit lines name the original's publisher when it is known.
            let site = article.site.as_deref().unwrap_or(source_site);
            return english::reprint(&mut self.rng, &self.config.rates.noise, article, site);
        }
        let n = &self.config.rates.noise;
        let (width, source, editor, caption, drop) = (
            n.width,
            n.source_line,
            n.editor_line,
            n.caption,
            n.drop_paragraph,
        );
        let mut paragraphs = article.paragraphs.clone();
        let mut ops = vec!["reprint"];
        if paragraphs.len() >= 3 && self.rng.chance(drop) {
            let i = self.rng.range(1, paragraphs.len() - 1);
            paragraphs.remove(i);
            ops.push("drop_paragraph");
        }
        if self.rng.chance(width) {
            paragraphs = paragraphs.iter().map(|p| toggle_width(p)).collect();
            ops.push("width");
        }
        if self.rng.chance(caption) {
            let at = self.rng.below(paragraphs.len() + 1);
            paragraphs.insert(at, format!("（图片来源：{source_site}）"));
            ops.push("caption");
        }
        if self.rng.chance(source) {
            paragraphs.push(format!("来源：{source_site}"));
            ops.push("source_line");
        }
        if self.rng.chance(editor) {
            const EDITORS: [&str; 6] = ["王明", "李华", "张婷", "刘洋", "陈静", "赵磊"];
            paragraphs.push(format!(
                "（责任编辑：{}）",
                EDITORS[self.rng.below(EDITORS.len())]
            ));
            ops.push("editor_line");
        }
        (article.title.clone(), paragraphs, ops.join("+"))
    }

    /// A partial copy, by one of the weighted operations. `donor` is an
    /// article of no cluster, for digests and inserted sentences.
    fn partial(&mut self, article: &Article, donor: Option<&Article>) -> (Vec<String>, String) {
        if article.lang != Lang::Zh {
            return english::partial(&mut self.rng, &self.config.rates.partial, article, donor);
        }
        let w = &self.config.rates.partial;
        let mut weights = vec![("lead_block", w.lead_block)];
        if donor.is_some() {
            weights.extend([("digest", w.digest), ("edit_sentences", w.edit_sentences)]);
        }
        if self.cilin.is_some() {
            weights.push(("synonyms", w.synonyms));
        }
        let total: f64 = weights.iter().map(|x| x.1).sum();
        let mut pick = self.rng.unit() * total;
        let mut op = weights[0].0;
        for (name, weight) in &weights {
            if pick < *weight {
                op = name;
                break;
            }
            pick -= weight;
        }
        let paragraphs = match op {
            "lead_block" => lead_block(&mut self.rng, article),
            "digest" => {
                // The lead of this article, then a block of another.
                let mut out = vec![article.paragraphs[0].clone()];
                let theirs = donor.expect("weighted only with a donor").sentences();
                let size = (theirs.len() as f64 * (0.3 + 0.2 * self.rng.unit())).ceil() as usize;
                let start = self.rng.below(theirs.len().saturating_sub(size) + 1);
                out.push(theirs[start..(start + size).min(theirs.len())].concat());
                out.extend(article.paragraphs.iter().skip(1).take(1).cloned());
                out
            }
            "edit_sentences" => {
                let mut kept: Vec<String> = article
                    .sentences()
                    .into_iter()
                    .filter(|_| !self.rng.chance(0.2))
                    .collect();
                let donor_sentences = donor.expect("weighted only with a donor").sentences();
                for _ in 0..self.rng.range(1, 3) {
                    if donor_sentences.is_empty() {
                        break;
                    }
                    let s = donor_sentences[self.rng.below(donor_sentences.len())].clone();
                    let at = self.rng.below(kept.len() + 1);
                    kept.insert(at, s);
                }
                let half = kept.len().div_ceil(2);
                vec![kept[..half].concat(), kept[half..].concat()]
                    .into_iter()
                    .filter(|p| !p.is_empty())
                    .collect()
            }
            _ => {
                let share = 0.05 + 0.10 * self.rng.unit();
                let cilin = self.cilin.take().expect("chosen only with a thesaurus");
                let out = article
                    .paragraphs
                    .iter()
                    .map(|p| swap_synonyms(&mut self.rng, &cilin, p, share))
                    .collect();
                self.cilin = Some(cilin);
                out
            }
        };
        (paragraphs, op.to_string())
    }
}

/// The lead paragraph plus a contiguous block of 30-70% of the rest.
fn lead_block(rng: &mut SplitMix64, article: &Article) -> Vec<String> {
    let rest: Vec<String> = Article {
        paragraphs: article.paragraphs[1..].to_vec(),
        ..article.clone()
    }
    .sentences();
    let mut out = vec![article.paragraphs[0].clone()];
    if !rest.is_empty() {
        let size = ((rest.len() as f64) * (0.3 + 0.4 * rng.unit())).ceil() as usize;
        let start = rng.below(rest.len() - size.min(rest.len()) + 1);
        out.push(rest[start..(start + size).min(rest.len())].concat());
    }
    out
}

/// Full-width digits and Latin letters to half-width, or the other way
/// (People's Daily prints full-width; reprints often do not).
pub fn toggle_width(text: &str) -> String {
    let has_full = text.chars().any(|c| ('\u{FF10}'..='\u{FF19}').contains(&c));
    text.chars()
        .map(|c| {
            if has_full && ('\u{FF01}'..='\u{FF5E}').contains(&c) {
                char::from_u32(c as u32 - 0xFEE0).unwrap_or(c)
            } else if !has_full && c.is_ascii_alphanumeric() {
                char::from_u32(c as u32 + 0xFEE0).unwrap_or(c)
            } else {
                c
            }
        })
        .collect()
}

/// Replaces about `share` of the words that have synonyms.
pub fn swap_synonyms(rng: &mut SplitMix64, cilin: &Cilin, text: &str, share: f64) -> String {
    let words: Vec<&str> = jieba()
        .cut(text, true)
        .into_iter()
        .map(|t| t.word)
        .collect();
    let mut out = String::with_capacity(text.len());
    for w in words {
        let synonyms = cilin.synonyms(w);
        if !synonyms.is_empty() && rng.chance(share * 2.0) {
            out.push_str(synonyms[rng.below(synonyms.len())]);
        } else {
            out.push_str(w);
        }
    }
    out
}

/// Cluster sizes that add up to exactly `total` pages, each within the
/// range where possible.
fn cluster_sizes(rng: &mut SplitMix64, total: usize, range: SizeRange) -> Vec<usize> {
    let mut sizes = Vec::new();
    let mut left = total;
    while left > 0 {
        let mut size = rng.range(range.min, range.max).min(left);
        if left - size > 0 && left - size < range.min {
            size = if left <= range.max {
                left
            } else {
                left - range.min
            };
        }
        sizes.push(size);
        left -= size;
    }
    sizes
}

/// Builds the corpus a config describes; `base` resolves its paths.
pub fn build_corpus(config: &BuildConfig, base: &Path) -> Result<Vec<Page>, BuildError> {
    let mut rng = build_rng(config.seed);
    let Pools {
        mut prose_pool,
        mut news_pool,
        neighbours,
    } = load_pools(config, base, &mut rng)?;

    let (portals, real) = load_templates(&config.templates, base)?;
    let cilin = match &config.thesaurus {
        Some(path) if config.rates.partial.synonyms > 0.0 => Some(Cilin::load(&base.join(path))?),
        _ => None,
    };
    let mut b = CorpusBuilder {
        config,
        rng,
        portals,
        real,
        cilin,
        pages: Vec::new(),
        clock: 0,
    };

    // Plan every cluster first, so that base texts, negatives and donors
    // are drawn from disjoint parts of the pools.
    let plans = plan_clusters(&mut b);
    let mut bases = take_bases(config, base, &plans, &mut prose_pool, &mut news_pool)?;
    let n = &config.negatives;
    let scaled = |x: usize| (x as f64 * config.scale).round() as usize;
    let negatives_needed = scaled(n.layout) + scaled(n.unique);
    if negatives_needed > news_pool.len() {
        return Err(ConfigError::invalid(base, "negatives", format!("{negatives_needed} layout and unique pages need as many unused news texts; {} are left", news_pool.len())).into());
    }
    let mut negatives = news_pool.split_off(news_pool.len() - negatives_needed);
    let uniques = negatives.split_off(scaled(n.layout));
    let layouts = negatives;
    // What is left supplies digests and inserted sentences: never a
    // cluster's base, so no page copies two clusters.
    let mut donors: Vec<Article> = news_pool.drain(..).chain(prose_pool.drain(..)).collect();
    b.rng.shuffle(&mut donors);

    let mut used_origins: HashMap<(usize, usize), String> = HashMap::new();
    // Each cluster's original: its template and the clock it was published at.
    let mut homes: HashMap<String, (Template, u64)> = HashMap::new();
    for (category, kind, sizes) in plans {
        for (c, size) in sizes.into_iter().enumerate() {
            let article = bases
                .get_mut(category)
                .and_then(Vec::pop)
                .expect("one base per planned cluster");
            let cluster = format!("{category}-{kind}-{c:05}");
            used_origins.insert(article.origin, cluster.clone());
            let home = add_cluster(&mut b, &cluster, &article, (category, kind), size, &donors);
            homes.insert(cluster, home);
        }
    }
    // Negatives: unique clusters that share layout or topic with others.
    add_layouts(&mut b, &layouts);
    for (kind, wanted) in [
        ("hard_negative", scaled(n.hard_negative)),
        ("same_site", scaled(n.same_site)),
    ] {
        add_neighbours(
            &mut b,
            kind,
            wanted,
            &neighbours,
            &mut used_origins,
            &homes,
            &[&layouts, &uniques],
        );
    }
    add_controls(&mut b, &config.controls, base)?;
    for (i, article) in uniques.iter().enumerate() {
        let template = b.template_for(&[], &article.title, &article.paragraphs);
        let id = format!("unique-{i:05}");
        b.add_page(
            id.clone(),
            &id,
            &template,
            &article.title,
            &article.paragraphs,
            "news",
            "unique",
            "unique".into(),
            0,
            article.lang,
        );
    }
    Ok(b.pages)
}

/// The source texts: prose and news, each text once and in one pool
/// (shuffled), and the news as listed, whose neighbours make negatives.
struct Pools {
    prose_pool: Vec<Article>,
    news_pool: Vec<Article>,
    neighbours: Vec<Article>,
}

fn load_pools(
    config: &BuildConfig,
    base: &Path,
    rng: &mut SplitMix64,
) -> Result<Pools, BuildError> {
    let news_sources = &config.sources.news;
    let mut prose_pool = load_articles(&config.sources.prose, base, 0, &config.sources)?;
    prose_pool.retain(|a| a.chars() >= config.sources.prose_min_chars);
    let mut news_pool = load_articles(
        news_sources,
        base,
        config.sources.prose.len(),
        &config.sources,
    )?;
    let mut texts = HashSet::new();
    drop_repeated_texts(&mut prose_pool, &mut texts);
    drop_repeated_texts(&mut news_pool, &mut texts);
    // A text may be listed for both categories: prose keeps the long ones.
    let key = |a: &Article| format!("{}\n{}", a.title, a.paragraphs[0]);
    let in_prose: HashSet<String> = prose_pool.iter().map(key).collect();
    news_pool.retain(|a| a.chars() >= config.sources.news_min_chars && !in_prose.contains(&key(a)));
    let neighbours = news_pool.clone();
    rng.shuffle(&mut prose_pool);
    rng.shuffle(&mut news_pool);
    Ok(Pools {
        prose_pool,
        news_pool,
        neighbours,
    })
}

/// A planned group of clusters: category, kind (`full` or `partial`) and
/// each cluster's size.
type ClusterPlan<'c> = (&'c str, &'static str, Vec<usize>);

/// Every group of clusters the composition asks for, at the config's scale.
fn plan_clusters<'c>(b: &mut CorpusBuilder<'c>) -> Vec<ClusterPlan<'c>> {
    let config = b.config;
    let mut plans: Vec<ClusterPlan<'c>> = Vec::new();
    for (category, counts) in &config.composition {
        for (kind, count) in [("full", counts.full), ("partial", counts.partial)] {
            let total = (count as f64 * config.scale).round() as usize;
            plans.push((
                category.as_str(),
                kind,
                cluster_sizes(&mut b.rng, total, config.cluster_size),
            ));
        }
    }
    plans
}

/// One base text per planned cluster, per category, taken off the end of
/// its pool; an error naming the source when the pool is too small.
fn take_bases<'c>(
    config: &BuildConfig,
    base: &Path,
    plans: &[ClusterPlan<'c>],
    prose_pool: &mut Vec<Article>,
    news_pool: &mut Vec<Article>,
) -> Result<HashMap<&'c str, Vec<Article>>, BuildError> {
    let mut bases: HashMap<&str, Vec<Article>> = HashMap::new();
    for category in ["news", "prose"] {
        let clusters: usize = plans
            .iter()
            .filter(|p| p.0 == category)
            .map(|p| p.2.len())
            .sum();
        let pool = if category == "prose" {
            &mut *prose_pool
        } else {
            &mut *news_pool
        };
        if clusters > pool.len() {
            let pages: usize = plans
                .iter()
                .filter(|p| p.0 == category)
                .flat_map(|p| &p.2)
                .sum();
            return Err(ConfigError::invalid(base, format!("sources.{category}"), format!(
                    "{pages} {category} pages in clusters of {}-{} need {clusters} base texts; the sources give {} \
                     (lower the counts or scale, raise cluster_size, or add sources)",
                    config.cluster_size.min,
                    config.cluster_size.max,
                    pool.len()
                )).into());
        }
        bases.insert(category, pool.split_off(pool.len() - clusters));
    }
    Ok(bases)
}

/// Adds one cluster of `size` pages on `article`: its original in a home
/// template, then reprints (`full`) or partial copies each in a template
/// of its own. Returns the home and the clock the original was published at.
fn add_cluster(
    b: &mut CorpusBuilder,
    cluster: &str,
    article: &Article,
    (category, kind): (&str, &str),
    size: usize,
    donors: &[Article],
) -> (Template, u64) {
    let mut used_templates: Vec<String> = Vec::new();
    let home = b.template_for(&used_templates, &article.title, &article.paragraphs);
    used_templates.push(home.name.clone());
    let published = (home.clone(), b.clock);
    b.add_page(
        format!("{cluster}-0"),
        cluster,
        &home,
        &article.title,
        &article.paragraphs,
        category,
        kind,
        "original".into(),
        0,
        article.lang,
    );
    for k in 1..size {
        let template = b.template_for(&used_templates, &article.title, &article.paragraphs);
        used_templates.push(template.name.clone());
        let (title, paragraphs, op) = if kind == "full" {
            b.reprint(article, &home.site)
        } else {
            let donor = (!donors.is_empty()).then(|| donors[b.rng.below(donors.len())].clone());
            let (paragraphs, op) = b.partial(article, donor.as_ref());
            (article.title.clone(), paragraphs, op)
        };
        b.add_page(
            format!("{cluster}-{k}"),
            cluster,
            &template,
            &title,
            &paragraphs,
            category,
            kind,
            op,
            1 + k as u64,
            article.lang,
        );
    }
    b.clock += 24;
    published
}

/// Layout negatives: each its own cluster, ten at a time in one template.
fn add_layouts(b: &mut CorpusBuilder, layouts: &[Article]) {
    let mut layout_template = None;
    for (i, article) in layouts.iter().enumerate() {
        if i % 10 == 0 || layout_template.is_none() {
            layout_template = Some(b.template_for(&[], &article.title, &article.paragraphs));
        }
        let template = layout_template.clone().expect("set above");
        let id = format!("layout-{i:05}");
        let op = format!("layout:{}", template.name);
        b.add_page(
            id.clone(),
            &id,
            &template,
            &article.title,
            &article.paragraphs,
            "news",
            "layout",
            op,
            0,
            article.lang,
        );
    }
}

/// Negatives drawn from the articles next to a cluster's source text in
/// its source corpus (People's Daily: the same page, the same days):
/// `hard_negative` in any template, `same_site` in the template of that
/// cluster's original and published the same day. Each is a cluster of
/// its own, and its text is no cluster's base nor another negative's.
fn add_neighbours(
    b: &mut CorpusBuilder,
    kind: &str,
    wanted: usize,
    neighbours: &[Article],
    used_origins: &mut HashMap<(usize, usize), String>,
    homes: &HashMap<String, (Template, u64)>,
    taken_by: &[&[Article]],
) {
    let mut same_site: HashMap<&str, Vec<(usize, usize)>> = HashMap::new();
    for a in neighbours {
        if let Some(site) = &a.site {
            same_site.entry(site).or_default().push(a.origin);
        }
    }
    let mut made = 0;
    for candidate in neighbours {
        if made >= wanted {
            break;
        }
        let (src, pos) = candidate.origin;
        let cluster_of =
            |origin: &(usize, usize)| used_origins.get(origin).filter(|c| !c.is_empty()).cloned();
        // A source that names its pages' URLs has neighbours by site;
        // one without (People's Daily) by position: the same page, the
        // same days.
        let neighbour = match &candidate.site {
            Some(site) => same_site[site.as_str()]
                .iter()
                .filter(|&&o| o != candidate.origin)
                .find_map(cluster_of),
            None => (1..=3)
                .flat_map(|d| [pos.checked_sub(d), Some(pos + d)])
                .flatten()
                .find_map(|p| cluster_of(&(src, p))),
        };
        let taken = used_origins.contains_key(&candidate.origin)
            || taken_by
                .iter()
                .flat_map(|a| a.iter())
                .any(|a| a.origin == candidate.origin);
        let Some(neighbour) = neighbour.filter(|_| !taken) else {
            continue;
        };
        used_origins.insert(candidate.origin, String::new());
        let (id, template, clock) = match kind {
            "same_site" => {
                let (home, clock) = homes[&neighbour].clone();
                (format!("site-{made:05}"), home, clock)
            }
            _ => (
                format!("hard-{made:05}"),
                b.template_for(&[], &candidate.title, &candidate.paragraphs),
                b.clock,
            ),
        };
        // The op names the cluster whose source text this one sat next to.
        let op = format!("{kind}:{neighbour}");
        let now = std::mem::replace(&mut b.clock, clock);
        b.add_page(
            id.clone(),
            &id,
            &template,
            &candidate.title,
            &candidate.paragraphs,
            "news",
            kind,
            op,
            // A few hours after the cluster's original, on its day.
            if kind == "same_site" { 1 } else { 0 },
            candidate.lang,
        );
        b.clock = now;
        made += 1;
    }
}

fn read_page_bytes(path: &Path) -> Result<Vec<u8>, BuildError> {
    super::read_maybe_gzipped(path).map_err(|source| BuildError::Io(FileError::new(path, source)))
}

fn add_controls(b: &mut CorpusBuilder, controls: &Controls, base: &Path) -> Result<(), BuildError> {
    for path in &controls.no_duplicates {
        let corpus = read_corpus(&base.join(path), ReadOptions::unlabelled())?;
        for page in corpus.pages {
            let id = format!("control-{}", page.id);
            b.pages.push(Page {
                cluster: id.clone(),
                id,
                category: Some("control".into()),
                kind: Some("no_duplicate".into()),
                op: Some("control".into()),
                ..page
            });
        }
    }
    for (i, pair) in controls.pairs.iter().enumerate() {
        let cluster = format!("control-pair-{i:03}");
        for (k, path) in pair.iter().enumerate() {
            b.pages.push(Page {
                id: format!("{cluster}-{k}"),
                cluster: cluster.clone(),
                content: Content::HtmlBytes(read_page_bytes(&base.join(path))?),
                title: None,
                url: None,
                published: Some(Published::Int(k as i64)),
                category: Some("control".into()),
                kind: Some("real_pair".into()),
                lang: None,
                op: Some(
                    path.file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default(),
                ),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_real_template_that_hides_the_story_gives_way_to_a_portal() {
        // The template's own feature outweighs a short story put in its
        // footer: every story in it would extract as the feature, and
        // pages of different clusters would have one main text.
        let feature: String = (0..6)
            .map(|i| format!("<p>本站专题第{i}部分：城市建设的历史、现状与未来，专家学者从不同角度回顾了几十年来的变化，并对今后的发展方向提出了许多建议和看法。</p>"))
            .collect();
        let bad = Template::marked(
            "bad",
            &format!("<html><head><title>{{title}}</title></head><body><article><h2>专题</h2>{feature}</article><footer><div class=\"related\">{{article}}</div></footer></body></html>"),
        );
        let story = vec!["本报讯 市区一处老旧小区今天完成改造，居民反映良好。".to_string()];
        assert!(
            !reads_its_story(&bad.render("小区改造完成", &story), &story),
            "the test needs a template the extractor does not read the story from"
        );
        let config: BuildConfig = serde_yaml::from_str(
            "seed: 1\nsources: {news: [], prose: []}\ncomposition: {}\ntemplates: {real_share: 1.0}\n",
        )
        .unwrap();
        let mut b = CorpusBuilder {
            config: &config,
            rng: build_rng(1),
            portals: portal_templates(),
            real: vec![bad.clone()],
            cilin: None,
            pages: Vec::new(),
            clock: 0,
        };
        for i in 0..5 {
            let template = b.template(&[]);
            assert_eq!(
                template.name, bad.name,
                "real_share 1 draws the real template"
            );
            b.add_page(
                format!("p{i}"),
                &format!("c{i}"),
                &template,
                "小区改造完成",
                &story,
                "news",
                "full",
                "original".into(),
                0,
                Lang::Zh,
            );
        }
        for page in &b.pages {
            let html = match &page.content {
                Content::Html(h) => h.clone(),
                Content::HtmlBytes(bytes) => encoding_rs::GBK.decode(bytes).0.into_owned(),
                Content::Text(_) => unreachable!("built pages are HTML"),
            };
            assert!(reads_its_story(&html, &story), "{}: {html}", page.id);
            assert!(
                !page.url.as_deref().unwrap_or("").contains("real-bad"),
                "{:?}",
                page.url
            );
        }
    }

    #[test]
    fn cluster_sizes_add_up_and_stay_in_range() {
        let mut rng = build_rng(1);
        for total in [0, 1, 2, 3, 7, 100, 1781] {
            let sizes = cluster_sizes(&mut rng, total, SizeRange { min: 2, max: 6 });
            assert_eq!(sizes.iter().sum::<usize>(), total);
            if total >= 2 {
                assert!(
                    sizes.iter().all(|&s| (2..=6).contains(&s)),
                    "{total}: {sizes:?}"
                );
            }
        }
    }

    #[test]
    fn width_toggles_both_ways() {
        assert_eq!(toggle_width("１９９８年ＧＤＰ"), "1998年GDP");
        assert_eq!(toggle_width("1998年GDP"), "１９９８年ＧＤＰ");
    }

    #[test]
    fn lead_block_keeps_the_lead_and_a_contiguous_block() {
        let article = Article {
            title: "t".into(),
            paragraphs: vec![
                "导语。".into(),
                "一。二。三。四。".into(),
                "五。六。七。八。九。十。".into(),
            ],
            origin: (0, 0),
            lang: Lang::Zh,
            site: None,
        };
        let mut rng = build_rng(7);
        for _ in 0..50 {
            let out = lead_block(&mut rng, &article);
            assert_eq!(out[0], "导语。");
            let block = &out[1];
            let all = "一。二。三。四。五。六。七。八。九。十。";
            assert!(all.contains(block.as_str()), "{block}");
            let n = block.matches('。').count();
            assert!((3..=7).contains(&n), "{n} of 10 sentences");
        }
    }

    #[test]
    fn synonym_swaps_use_cilin_groups() {
        let cilin = Cilin::parse(
            Path::new("c"),
            "Aa01A01= 人民 民众 公民\nBa01A01= 工作 任务\n",
        )
        .unwrap();
        let mut rng = build_rng(3);
        let out = swap_synonyms(&mut rng, &cilin, "人民的工作", 0.5);
        assert_ne!(
            out, "人民的工作",
            "at share 0.5 (chance 1.0) every listed word is swapped"
        );
        assert!(out.contains('的'));
    }
}
