//! The corpus builder: exact composition, determinism by seed, and the
//! paper-shaped configuration on the shared data.

use std::collections::BTreeMap;
use std::path::Path;

use neardup::corpus::build::{build_corpus, BuildConfig};
use neardup::corpus::{read_corpus, write_corpus, Content, ReadOptions};

const SENTENCES: [&str; 12] = [
    "市政府今天召开新闻发布会，介绍今年城市建设的主要任务。",
    "记者从会上获悉，全市将新建和改造道路一百二十公里。",
    "有关负责人表示，工程将优先安排在交通拥堵最严重的区域。",
    "为减少施工对市民出行的影响，部分工程将安排在夜间进行。",
    "今年还将新增公共停车位三千个，缓解老城区停车难问题。",
    "市民可以通过热线电话和网站对工程建设提出意见和建议。",
    "据介绍，去年全市完成城市建设投资三百亿元，比上年增长百分之八。",
    "专家认为，城市建设要注重质量，不能只追求速度和规模。",
    "多位人大代表在审议时建议加强对工程质量的监督检查。",
    "会议要求各部门密切配合，确保各项任务按期完成。",
    "不少市民对新建的公园和绿道表示满意，认为生活环境明显改善。",
    "下一步，全市将继续推进老旧小区改造和背街小巷整治。",
];

/// 60 small articles of 3-4 paragraphs, each from its own mix of sentences.
fn write_sources(dir: &Path) {
    let mut lines = Vec::new();
    for i in 0..60 {
        let paragraphs: Vec<String> = (0..3 + i % 2)
            .map(|p| {
                (0..3)
                    .map(|s| SENTENCES[(i * 7 + p * 3 + s * 5) % SENTENCES.len()])
                    .collect::<String>()
                    + &format!("第{i}号文第{p}段。")
            })
            .collect();
        lines.push(serde_json::json!({"id": format!("a{i}"), "title": format!("城市建设第{i}号报道"), "text": paragraphs.join("\n")}).to_string());
    }
    std::fs::write(dir.join("src.jsonl"), lines.join("\n")).unwrap();
    std::fs::write(
        dir.join("cilin.txt"),
        "Aa01A01= 市民 居民 民众\nCa01A01= 今天 今日\nGa01A01= 表示 称\n",
    )
    .unwrap();
}

fn config(dir: &Path, seed: u64) -> BuildConfig {
    let yaml = format!(
        "seed: {seed}\nsources: {{news: [src.jsonl], prose: [src.jsonl], news_min_chars: 50, prose_min_chars: 330}}\n\
         thesaurus: cilin.txt\ncomposition: {{news: {{full: 20, partial: 15}}, prose: {{full: 6, partial: 5}}}}\n\
         negatives: {{layout: 4, hard_negative: 3, same_site: 3, unique: 2}}\ncluster_size: {{min: 2, max: 4}}\n"
    );
    let path = dir.join("b.yaml");
    std::fs::write(&path, yaml).unwrap();
    BuildConfig::load(&path).unwrap()
}

fn build_bytes(dir: &Path, seed: u64, name: &str) -> Vec<u8> {
    let pages = build_corpus(&config(dir, seed), dir).unwrap();
    let out = dir.join(name);
    write_corpus(&pages, &out).unwrap();
    std::fs::read(out).unwrap()
}

#[test]
fn composition_is_exact_and_builds_are_deterministic() {
    let dir = tempfile::tempdir().unwrap();
    write_sources(dir.path());
    let a = build_bytes(dir.path(), 7, "a.jsonl.gz");
    let b = build_bytes(dir.path(), 7, "b.jsonl.gz");
    let c = build_bytes(dir.path(), 8, "c.jsonl.gz");
    assert_eq!(a, b, "same seed, same bytes");
    assert_ne!(a, c, "another seed, another corpus");

    let corpus = read_corpus(&dir.path().join("a.jsonl.gz"), ReadOptions::default()).unwrap();
    let mut slices: BTreeMap<String, usize> = BTreeMap::new();
    for p in &corpus.pages {
        *slices.entry(p.slice()).or_default() += 1;
    }
    let expected: BTreeMap<String, usize> = [
        ("news/full", 20),
        ("news/partial", 15),
        ("prose/full", 6),
        ("prose/partial", 5),
        ("news/layout", 4),
        ("news/hard_negative", 3),
        ("news/same_site", 3),
        ("news/unique", 2),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    assert_eq!(slices, expected);
    // Every cluster's original is published first and is the only one.
    let mut originals: BTreeMap<&str, usize> = BTreeMap::new();
    for p in &corpus.pages {
        if p.op.as_deref() == Some("original") {
            *originals.entry(&p.cluster).or_default() += 1;
            let earliest = corpus
                .pages
                .iter()
                .filter(|q| q.cluster == p.cluster)
                .map(|q| q.published.clone())
                .min();
            assert_eq!(earliest, Some(p.published.clone()));
        }
    }
    assert!(originals.values().all(|&n| n == 1));
    // Some portal pages are served as GBK bytes.
    assert!(corpus
        .pages
        .iter()
        .any(|p| matches!(p.content, Content::HtmlBytes(_))));
}

#[test]
fn a_negative_is_a_cluster_of_its_own_and_same_site_ones_share_only_the_site() {
    let dir = tempfile::tempdir().unwrap();
    write_sources(dir.path());
    let pages = build_corpus(&config(dir.path(), 11), dir.path()).unwrap();
    let negative = |kind: &str| matches!(kind, "layout" | "hard_negative" | "same_site" | "unique");
    let text = |p: &neardup::corpus::Page| {
        neardup::extract::extract_page(p, neardup::extract::Extraction::Main)
            .structure
            .text()
            .to_string()
    };
    let host = |p: &neardup::corpus::Page| {
        let url = p.url.clone().unwrap();
        url.split('/').nth(2).unwrap().to_string()
    };
    // 1998-01-05T01:00:00: the date part.
    let day =
        |p: &neardup::corpus::Page| p.published.as_ref().unwrap().to_string()[..10].to_string();
    let mut same_site = 0;
    for p in pages
        .iter()
        .filter(|p| negative(p.kind.as_deref().unwrap_or("")))
    {
        let sharing: Vec<&str> = pages
            .iter()
            .filter(|q| q.cluster == p.cluster && q.id != p.id)
            .map(|q| q.id.as_str())
            .collect();
        assert!(
            sharing.is_empty(),
            "negative {} shares its cluster with {sharing:?}",
            p.id
        );
        let op = p.op.as_deref().unwrap_or("");
        if let Some(cluster) = op.strip_prefix("same_site:") {
            same_site += 1;
            let original = pages
                .iter()
                .find(|q| q.cluster == cluster && q.op.as_deref() == Some("original"))
                .unwrap_or_else(|| panic!("{}: no original of {cluster}", p.id));
            assert_eq!(
                host(p),
                host(original),
                "{}: served by the original's site",
                p.id
            );
            assert_eq!(
                day(p),
                day(original),
                "{}: published on the original's day",
                p.id
            );
            let mine = text(p);
            for q in pages.iter().filter(|q| q.cluster == cluster) {
                assert_ne!(mine, text(q), "{} repeats {} of another story", p.id, q.id);
            }
        }
    }
    assert_eq!(same_site, 3);
}

#[test]
fn bad_builder_files_name_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("b.yaml");
    std::fs::write(
        &path,
        "seed: 1\nsources: {news: [], prose: []}\ncomposition: {poetry: {full: 1}}\n",
    )
    .unwrap();
    let e = BuildConfig::load(&path).unwrap_err().to_string();
    assert!(e.contains("composition.poetry"), "{e}");
    std::fs::write(
        &path,
        "seed: 1\nsources: {news: [], prose: []}\ncomposition: {}\nscael: 2\n",
    )
    .unwrap();
    assert!(BuildConfig::load(&path)
        .unwrap_err()
        .to_string()
        .contains("scael"));
    std::fs::write(
        &path,
        "seed: 1\nsources: {news: [], prose: []}\ncomposition: {}\nrates: {gbk: 1.5}\n",
    )
    .unwrap();
    assert!(BuildConfig::load(&path)
        .unwrap_err()
        .to_string()
        .contains("rates.gbk"));
    std::fs::write(&path, "seed: 1\nsources: {news: [], prose: []}\ncomposition: {news: {full: 10}}\ncluster_size: {min: 2, max: 2}\nrates: {partial: {synonyms: 0}}\n").unwrap();
    let config = BuildConfig::load(&path).unwrap();
    let e = build_corpus(&config, dir.path()).unwrap_err().to_string();
    assert!(e.contains("need 5 base texts; the sources give 0"), "{e}");
    std::fs::write(
        &path,
        "seed: 1\nsources: {news: [], prose: [], languages: [en, english!]}\ncomposition: {}\nrates: {partial: {synonyms: 0}}\n",
    )
    .unwrap();
    let e = BuildConfig::load(&path).unwrap_err().to_string();
    assert!(
        e.contains("sources.languages") && e.contains("english!"),
        "{e}"
    );
}

#[test]
fn a_text_the_sources_repeat_is_never_labelled_as_two_clusters() {
    let dir = tempfile::tempdir().unwrap();
    write_sources(dir.path());
    // Every article again under another id and title, as Sogou's samples
    // repeat stories: without care the same text becomes two clusters.
    let src = std::fs::read_to_string(dir.path().join("src.jsonl")).unwrap();
    let mut lines: Vec<String> = src.lines().map(String::from).collect();
    for line in src.lines() {
        let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
        let id = format!("{}-again", v["id"].as_str().unwrap());
        let title = format!("{} (转载)", v["title"].as_str().unwrap());
        v["id"] = id.into();
        v["title"] = title.into();
        lines.push(v.to_string());
    }
    std::fs::write(dir.path().join("src.jsonl"), lines.join("\n")).unwrap();
    let config = config(dir.path(), 7);
    let pages = build_corpus(&config, dir.path()).unwrap();
    let mut cluster_of: BTreeMap<String, String> = BTreeMap::new();
    for page in &pages {
        let text = neardup::extract::extract_page(page, neardup::extract::Extraction::Main)
            .structure
            .text()
            .to_string();
        if let Some(other) = cluster_of.insert(text, page.cluster.clone()) {
            assert_eq!(
                other, page.cluster,
                "{} has the main text of a page in cluster {other}",
                page.id
            );
        }
    }
}

#[test]
fn fan2008_at_a_tenth_has_the_papers_shape() {
    let config_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/fan2008.yaml");
    let shared =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora/peoples_daily_1998_01");
    if !shared.exists() {
        eprintln!("skipping: {} is not here", shared.display());
        return;
    }
    let mut config = BuildConfig::load(&config_path).unwrap();
    config.scale = 0.1;
    let pages = build_corpus(&config, config_path.parent().unwrap()).unwrap();
    assert_eq!(pages.len(), 1850);
    let count = |slice: &str| pages.iter().filter(|p| p.slice() == slice).count();
    assert_eq!(
        [
            count("prose/full"),
            count("prose/partial"),
            count("news/full"),
            count("news/partial")
        ],
        [178, 112, 929, 631]
    );
}

const TOWNS: [&str; 8] = [
    "Ashford", "Bexley", "Carlow", "Dunmore", "Elgin", "Fenwick", "Garston", "Hollis",
];
const THINGS: [&str; 6] = ["bridge", "library", "harbour", "tram", "school", "market"];

/// A site's page: navigation, the story in an article, a footer.
fn site_page(site: &str, lang: &str, title: &str, paragraphs: &[String]) -> String {
    let body: String = paragraphs.iter().map(|p| format!("<p>{p}</p>")).collect();
    format!(
        "<html lang=\"{lang}\"><head><title>{title} - {site}</title></head><body>\
         <div class=\"nav\"><a href=\"/\">Front page of {site}</a> <a href=\"/world\">World</a> <a href=\"/sport\">Sport</a></div>\
         <article><h1>{title}</h1>{body}</article>\
         <div class=\"footer\">Copyright {site} Media Group. All rights reserved. Contact the newsroom.</div></body></html>"
    )
}

/// 40 English stories, two per site, each with gold `text` that its
/// `html` does not hold (the HTML shows a marked draft of it); 5 German
/// pages and 5 English ones that declare no language, which `[en]` leaves
/// out.
fn write_english_sources(dir: &Path) {
    let mut lines = Vec::new();
    let story = |i: usize| -> Vec<String> {
        (0..4)
            .map(|p| {
                (0..3)
                    .map(|s| {
                        format!(
                            "Mr. Reyes of {town} said the {thing} plan, number {i}.{p}{s}, moves on.",
                            town = TOWNS[(i + p + s) % TOWNS.len()],
                            thing = THINGS[(i * 3 + p * 2 + s) % THINGS.len()],
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    };
    for i in 0..50 {
        let site = format!("news{}.example.com", i / 2);
        let (lang, title) = match i {
            0..40 => ("en", format!("Story {i}: the council votes")),
            40..45 => ("de", format!("Nachrichten {i}: der Rat stimmt ab")),
            _ => ("", format!("Undeclared story {i}")),
        };
        let gold = story(i);
        let draft: Vec<String> = gold.iter().map(|p| format!("HTML DRAFT {p}")).collect();
        let mut record = serde_json::json!({
            "id": format!("e{i:02}"),
            "url": format!("https://www.{site}/story-{i}"),
            "text": gold.join("\n\n"),
            "html": site_page(&site, lang, &title, &draft),
        });
        if !lang.is_empty() {
            record["lang"] = lang.into();
        }
        lines.push(record.to_string());
    }
    std::fs::write(dir.join("english.jsonl"), lines.join("\n")).unwrap();
}

fn english_config(dir: &Path, seed: u64) -> BuildConfig {
    let yaml = format!(
        "seed: {seed}\nsources: {{news: [english.jsonl], prose: [], languages: [en], gold_text: true, news_min_chars: 100}}\n\
         templates: {{portals: false, real: [english.jsonl], languages: [en], max_real: 100, real_share: 1.0}}\n\
         composition: {{news: {{full: 30, partial: 30}}}}\nnegatives: {{layout: 3, hard_negative: 4, unique: 2}}\n\
         cluster_size: {{min: 2, max: 4}}\nrates: {{partial: {{synonyms: 0, digest: 0}}}}\n"
    );
    let path = dir.join("english.yaml");
    std::fs::write(&path, yaml).unwrap();
    BuildConfig::load(&path).unwrap()
}

fn html_of(page: &neardup::corpus::Page) -> &str {
    match &page.content {
        Content::Html(h) => h,
        _ => panic!("{}: English pages are UTF-8 HTML", page.id),
    }
}

#[test]
fn english_reprints_are_gold_text_in_another_english_site_s_template() {
    let dir = tempfile::tempdir().unwrap();
    write_english_sources(dir.path());
    let pages = build_corpus(&english_config(dir.path(), 5), dir.path()).unwrap();
    let again = build_corpus(&english_config(dir.path(), 5), dir.path()).unwrap();
    assert_eq!(pages, again, "same seed, same corpus");
    let gold_sentences: Vec<String> = (0..40)
        .flat_map(|i| {
            (0..4).flat_map(move |p| (0..3).map(move |s| format!("number {i}.{p}{s}, moves on.")))
        })
        .collect();
    let template_of = |p: &neardup::corpus::Page| {
        p.url
            .clone()
            .unwrap()
            .split('/')
            .nth(2)
            .unwrap()
            .to_string()
    };
    let mut sizes: BTreeMap<&str, usize> = BTreeMap::new();
    let mut ops = std::collections::BTreeSet::new();
    for page in &pages {
        let html = html_of(page);
        assert_eq!(page.lang, Some(neardup::corpus::Lang::En), "{}", page.id);
        for foreign in ["Nachrichten", "Undeclared", "HTML DRAFT", "lang=\"de\""] {
            assert!(
                !html.contains(foreign),
                "{}: `{foreign}` in {html}",
                page.id
            );
        }
        // No Chinese edit: no full-width forms, no Chinese credit lines.
        assert!(
            !html
                .chars()
                .any(|c| ('\u{FF01}'..='\u{FF5E}').contains(&c) || c == '来'),
            "{}: {html}",
            page.id
        );
        assert!(
            html.contains("All rights reserved"),
            "{}: in a real template",
            page.id
        );
        let main = neardup::extract::extract_page(page, neardup::extract::Extraction::Main)
            .structure
            .text()
            .to_string();
        assert!(
            gold_sentences.iter().any(|s| main.contains(s.as_str())),
            "{}: the extractor reads its story: {main}",
            page.id
        );
        assert!(!main.contains("All rights reserved"), "{}: {main}", page.id);
        if matches!(page.kind.as_deref(), Some("full" | "partial")) {
            *sizes.entry(&page.cluster).or_default() += 1;
            let op = page.op.clone().unwrap();
            ops.extend(op.split('+').map(String::from));
        }
    }
    assert!(sizes.values().all(|n| (2..=4).contains(n)), "{sizes:?}");
    for cluster in sizes.keys() {
        let templates: std::collections::BTreeSet<String> = pages
            .iter()
            .filter(|p| p.cluster == *cluster)
            .map(template_of)
            .collect();
        assert_eq!(
            templates.len(),
            sizes[cluster],
            "{cluster}: one template per page"
        );
    }
    let english_ops = [
        "original",
        "reprint",
        "drop_paragraph",
        "quotes",
        "headline",
        "byline",
        "dateline",
        "caption",
        "source_line",
        "editor_line",
        "lead_block",
        "excerpt",
        "edit_sentences",
        "word_edits",
    ];
    assert!(
        ops.iter().all(|op| english_ops.contains(&op.as_str())),
        "{ops:?}"
    );
    for op in [
        "reprint",
        "lead_block",
        "excerpt",
        "edit_sentences",
        "word_edits",
    ] {
        assert!(ops.contains(op), "no `{op}` among {ops:?}");
    }
    // A hard negative is the other story of its cluster's site: stories
    // 2k and 2k+1 share news{k}.example.com.
    let story = |p: &neardup::corpus::Page| -> usize {
        let title = neardup::extract::extract_page(p, neardup::extract::Extraction::Main)
            .structure
            .title
            .unwrap_or_default();
        let digits: String = title
            .split_whitespace()
            .find_map(|w| w.strip_suffix(':').filter(|n| n.parse::<usize>().is_ok()))
            .unwrap_or_else(|| panic!("{}: title `{title}`", p.id))
            .to_string();
        digits.parse().unwrap()
    };
    let mut hard = 0;
    for page in pages
        .iter()
        .filter(|p| p.kind.as_deref() == Some("hard_negative"))
    {
        hard += 1;
        let cluster = page
            .op
            .as_deref()
            .unwrap()
            .strip_prefix("hard_negative:")
            .unwrap();
        let original = pages
            .iter()
            .find(|p| p.cluster == cluster && p.op.as_deref() == Some("original"))
            .unwrap();
        assert_eq!(
            story(page) / 2,
            story(original) / 2,
            "{}: same site as {cluster}",
            page.id
        );
        assert_ne!(story(page), story(original));
    }
    assert!(hard >= 1, "the sources give same-site stories");
}

#[test]
fn english_sentences_are_split_at_sentence_ends_only() {
    let dir = tempfile::tempdir().unwrap();
    write_english_sources(dir.path());
    let pages = build_corpus(&english_config(dir.path(), 9), dir.path()).unwrap();
    // Partial copies cut whole sentences: never after `Mr.` or inside a
    // plan number such as `12.30`.
    for page in pages.iter().filter(|p| {
        matches!(
            p.op.as_deref(),
            Some("lead_block" | "excerpt" | "edit_sentences")
        )
    }) {
        let main = neardup::extract::extract_page(page, neardup::extract::Extraction::Main)
            .structure
            .text()
            .to_string();
        for line in main.lines() {
            assert!(line.starts_with("Mr. Reyes of "), "{}: `{line}`", page.id);
            assert!(line.ends_with(", moves on."), "{}: `{line}`", page.id);
        }
    }
}

#[test]
fn a_language_filter_leaves_a_chinese_build_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    write_sources(dir.path());
    let plain = build_corpus(&config(dir.path(), 7), dir.path()).unwrap();
    let yaml = std::fs::read_to_string(dir.path().join("b.yaml"))
        .unwrap()
        .replace("news_min_chars: 50", "news_min_chars: 50, languages: [zh]");
    std::fs::write(dir.path().join("b.yaml"), yaml).unwrap();
    let config = BuildConfig::load(&dir.path().join("b.yaml")).unwrap();
    assert_eq!(config.sources.languages, ["zh"]);
    let filtered = build_corpus(&config, dir.path()).unwrap();
    assert_eq!(plain, filtered, "undeclared Han text counts as Chinese");
    assert!(plain
        .iter()
        .all(|p| p.lang == Some(neardup::corpus::Lang::Zh)));
}
