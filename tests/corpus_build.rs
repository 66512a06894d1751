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
