//! From a page's content to the text the algorithms read: charset decoding,
//! main-content extraction, document structure.
//!
//! HTML is lexed by our own lexer (`lexer`), and most pages are built by
//! our tree builder (`builder`) straight into a flat event list (`dom`);
//! pages that need html5ever's harder repairs (tables, misnested
//! formatting, foreign content) go through html5ever into a lean tree
//! (`sink`) that is flattened the same way. Both are read as the flat
//! list, never by recursion, so a page nested a hundred thousand levels
//! deep cannot overflow the stack.

pub mod boilerplate;
mod builder;
pub mod cache;
pub mod decode;
pub mod dom;
pub mod gold;
mod lexer;
pub mod main_content;
mod nesting;
pub mod sink;
pub mod skeleton;
pub mod structure;

use std::sync::atomic::{AtomicBool, Ordering};

use serde::{Deserialize, Serialize};

use crate::corpus::{Content, Page};
use dom::{Dom, LineKind};
pub use structure::DocumentStructure;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Extraction {
    /// The article: the main block by text density, chrome left out.
    #[default]
    Main,
    /// Every text node of the body, tags stripped, one block per line.
    FullText,
}

impl Extraction {
    pub fn name(self) -> &'static str {
        match self {
            Extraction::Main => "main",
            Extraction::FullText => "full_text",
        }
    }
}

/// A page after extraction.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ExtractedPage {
    pub structure: DocumentStructure,
    /// The encoding the bytes were decoded from, for raw-byte pages.
    pub encoding: Option<&'static str>,
}

impl ExtractedPage {
    pub fn text(&self) -> String {
        self.structure.text().to_string()
    }
}

/// Extracts a corpus page. Plain-text pages are split into paragraphs by
/// line; their title is the corpus' `title`, if any.
pub fn extract_page(page: &Page, extraction: Extraction) -> ExtractedPage {
    extract_page_as(page, &[extraction])
        .pop()
        .unwrap_or_default()
}

/// Extracts a corpus page once per extraction, in their order, from one
/// decoding and one parse: each result equals [`extract_page`]'s.
pub fn extract_page_as(page: &Page, extractions: &[Extraction]) -> Vec<ExtractedPage> {
    extract_page_marked(page, extractions, &mut |_| {})
}

/// Where [`extract_page_marked`] has got to in a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// Decoded and parsed, title and skeleton made: the part every
    /// extraction shares.
    Shared,
    /// The extraction at this index of the list is made.
    Own(usize),
}

/// [`extract_page_as`], calling `mark` as each part of the work ends, so
/// that a caller can time what the extractions share and what each one
/// costs on its own.
pub fn extract_page_marked(
    page: &Page,
    extractions: &[Extraction],
    mark: &mut dyn FnMut(Mark),
) -> Vec<ExtractedPage> {
    let mut out = match &page.content {
        Content::Text(text) => {
            let out = ExtractedPage {
                structure: DocumentStructure::new(
                    None,
                    Vec::new(),
                    text.lines()
                        .map(str::trim)
                        .filter(|l| !l.is_empty())
                        .map(str::to_string)
                        .collect(),
                ),
                encoding: None,
            };
            mark(Mark::Shared);
            (0..extractions.len())
                .map(|i| {
                    let copy = out.clone();
                    mark(Mark::Own(i));
                    copy
                })
                .collect()
        }
        Content::Html(html) => extract_html_marked(html, extractions, mark),
        Content::HtmlBytes(bytes) => {
            let decoded = decode::decode_html(bytes);
            let mut out = extract_html_marked(&decoded.text, extractions, mark);
            for o in &mut out {
                o.encoding = Some(decoded.encoding.name());
            }
            out
        }
    };
    if page.title.is_some() {
        for o in &mut out {
            o.structure.title = page.title.clone();
        }
    }
    out
}

/// Compatibility view for callers that only need title and text.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ExtractedText {
    pub title: Option<String>,
    pub text: String,
}

pub fn page_text(page: &Page, extraction: Extraction) -> ExtractedText {
    let out = extract_page(page, extraction);
    ExtractedText {
        text: out.text(),
        title: out.structure.title,
    }
}

/// Whether pages are parsed the reference way (see [`use_reference_parser`]).
static REFERENCE_PARSER: AtomicBool = AtomicBool::new(false);

/// Parses pages as the extractor did before its lean parsing: every
/// attribute and `<meta>` kept, into scraper's tree. Slower, and meant to
/// give the same extractions: `neardup extract-eval --dump --reference-parser`
/// writes them to compare.
pub fn use_reference_parser(on: bool) {
    REFERENCE_PARSER.store(on, Ordering::Relaxed);
}

fn parse_page(html: &str) -> Dom {
    if REFERENCE_PARSER.load(Ordering::Relaxed) {
        let page = nesting::for_reference(html, nesting::MAX_DEPTH);
        Dom::of(&scraper::Html::parse_document(&page))
    } else {
        Dom::parse_page(html, nesting::MAX_DEPTH)
    }
}

pub fn extract_html(html: &str, extraction: Extraction) -> ExtractedPage {
    extract_html_marked(html, &[extraction], &mut |_| {})
        .pop()
        .unwrap_or_default()
}

fn extract_html_marked(
    html: &str,
    extractions: &[Extraction],
    mark: &mut dyn FnMut(Mark),
) -> Vec<ExtractedPage> {
    let dom = parse_page(html);
    let h1 = first_h1(&dom);
    let title = structure::clean_title(dom.title.as_deref(), h1.as_deref());
    let skeleton = skeleton::of(&dom);
    mark(Mark::Shared);
    let mut out = Vec::with_capacity(extractions.len());
    for (i, &extraction) in extractions.iter().enumerate() {
        let (subtitles, paragraphs) = match extraction {
            Extraction::Main => {
                let lines = main_content::article_lines(&dom);
                let subtitles = lines
                    .iter()
                    .filter(|l| l.kind == LineKind::Heading)
                    .map(|l| l.text.clone())
                    .collect();
                let paragraphs = lines
                    .into_iter()
                    .filter(|l| l.kind == LineKind::Paragraph)
                    .map(|l| l.text)
                    .collect();
                (subtitles, paragraphs)
            }
            Extraction::FullText => {
                let lines = match dom.body.or((!dom.elements.is_empty()).then_some(0)) {
                    Some(root) => dom.render(root, &|_| false),
                    None => Vec::new(),
                };
                (Vec::new(), lines.into_iter().map(|l| l.text).collect())
            }
        };
        let mut structure = DocumentStructure::new(title.clone(), subtitles, paragraphs);
        structure.skeleton = skeleton;
        out.push(ExtractedPage {
            structure,
            encoding: None,
        });
        mark(Mark::Own(i));
    }
    out
}

/// The article as main-content gold writes it: headings and paragraphs
/// in page order (the structure keeps subtitles apart from the text the
/// algorithms read, and so loses their place).
fn extract_article_text(html: &str, extraction: Extraction) -> String {
    match extraction {
        Extraction::Main => {
            let dom = parse_page(html);
            main_content::article_lines(&dom)
                .into_iter()
                .map(|l| l.text)
                .collect::<Vec<_>>()
                .join("\n")
        }
        Extraction::FullText => extract_html(html, extraction).text(),
    }
}

fn first_h1(dom: &Dom) -> Option<String> {
    let h1 = dom.elements.iter().position(|e| {
        *e.tag.name() == html5ever::local_name!("h1") && !e.dropped && e.stats.chars > 0
    })?;
    let text = dom
        .render(h1 as u32, &|_| false)
        .into_iter()
        .map(|l| l.text)
        .collect::<Vec<_>>()
        .join(" ");
    (!text.is_empty()).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_text_strips_tags_scripts_and_styles() {
        let html = "<html><head><title> 标题 </title><style>p{}</style></head>\
                    <body><script>var x=1;</script><p>第一段。</p><div>Second <b>para</b>.</div></body></html>";
        let out = extract_html(html, Extraction::FullText);
        assert_eq!(out.structure.title.as_deref(), Some("标题"));
        assert_eq!(out.text(), "第一段。\nSecond para.");
    }

    #[test]
    fn deep_nesting_does_not_overflow_the_stack() {
        let depth = 100_000;
        let html = format!(
            "{}deep text.{}",
            "<div>".repeat(depth),
            "</div>".repeat(depth)
        );
        for extraction in [Extraction::Main, Extraction::FullText] {
            assert_eq!(extract_html(&html, extraction).text(), "deep text.");
        }
    }

    #[test]
    fn main_extraction_keeps_subtitles_apart() {
        let html = "<html><head><title>Storm hits coast - The Post</title></head><body>\
            <div class='nav'><a href='/'>Home</a> <a href='/n'>News</a></div><article>\
            <h1>Storm hits coast</h1><p>Thousands of homes lost power on Sunday, officials said.</p>\
            <h2>Clean-up begins</h2><p>Engineers worked through the night, and by Monday most were back.</p>\
            <p><strong>What next</strong></p><p>Another warning, for Wednesday, has been issued.</p>\
            </article></body></html>";
        let out = extract_html(html, Extraction::Main);
        assert_eq!(out.structure.title.as_deref(), Some("Storm hits coast"));
        assert_eq!(out.structure.subtitles, ["Clean-up begins", "What next"]);
        assert_eq!(out.structure.paragraph_count(), 3);
        assert!(!out.text().contains("Home"));
    }

    /// What a parsed page gives the algorithms: title, article lines,
    /// full text, skeleton.
    fn extracted(dom: &Dom) -> String {
        let full = dom
            .body
            .map(|b| dom.render(b, &|_| false))
            .unwrap_or_default();
        format!(
            "{:?} {:?} {:?} {:?}",
            dom.title,
            main_content::article_lines(dom),
            full,
            skeleton::of(dom)
        )
    }

    #[test]
    fn lean_parsing_extracts_what_the_reference_parsing_does() {
        let article = "<!DOCTYPE html><html><head><meta charset=utf-8><title>Storm - Post</title>\
            <link rel=stylesheet href=/a.css></head><body class=page><nav class=menu>\
            <a href=/ title='Home > News'>Home</a> <a href=/n data-x=\"{'a':1}\">News</a></nav>\
            <article itemprop=articleBody class='story body'><h1 data-id=7>Storm</h1>\
            <p style=\"color:red\">Thousands of homes lost power on Sunday, officials said.</p>\
            <img src=x.jpg alt='A tree'/><p class=lead>Engineers worked through the night, \
            and by Monday most were back.</p><meta itemprop=date content=2020><div class=related>\
            <a href=/x>Other story</a></div></article><footer>(c) Post</footer></body></html>";
        for html in sink::tests::TRICKY.iter().copied().chain([article]) {
            let lean = Dom::parse(nesting::for_parsing(html, nesting::MAX_DEPTH));
            let reference = Dom::of(&scraper::Html::parse_document(&nesting::for_reference(
                html,
                nesting::MAX_DEPTH,
            )));
            assert_eq!(extracted(&lean), extracted(&reference), "{html}");
        }
    }

    #[test]
    fn reading_the_page_itself_parses_as_the_prepared_page_does() {
        // Pieces the pre-pass drops, keeps or reads apart from the
        // tokenizer, joined in every pair and in longer random runs.
        let pieces = [
            "<!-- c -->",
            "<!-- a <!-- b -->",
            "<script>var a = '<p>'; // <!-- </script>",
            "<script src=x></script>",
            "<SCRIPT>x</SCRIPT >",
            "<script/>",
            "<style>p > a {}</style>",
            "<meta charset=utf-8>",
            "<link rel=x href='a>b'>",
            "<meta a='b",
            "<title>T &amp; <b><!-- t --></title>",
            "<textarea><!-- t --></textarea>",
            "<noscript><p><!-- n --></noscript>",
            "<svg><title><!-- s --><p></title></svg>",
            "<plaintext>",
            "</plaintext>",
            "<p>",
            "</p>",
            "<div class=a>",
            "</div>",
            "<br/>",
            "<pre>",
            "\nx",
            "text ",
            "中文",
            "\n  ",
            "&am",
            "p;",
            "&#x4",
            "1;",
            "<",
            "/p>",
            "< ",
            "</ x>",
            "</>",
            "<?x>",
            "<!x>",
            "<!doctype html>",
            "<html>",
            "<head>",
            "</head>",
            "<header>",
            "<body>",
            "<table>",
            "<td>",
            "<b>",
            "</b>",
            "<a title=\"x>y\">",
            "<span =\"x>\">",
            "<a b=c\"d>",
            "<a b=\"c\"=\"d>e\">",
            "<math><![CDATA[x]]></math>",
            "<div",
            "\u{0}",
        ];
        let check = |html: &str| {
            for depth in [nesting::MAX_DEPTH, 2] {
                let own = sink::tests::summary(&Dom::parse_page(html, depth));
                let prepared = sink::tests::summary(&Dom::parse(nesting::for_parsing(html, depth)));
                assert_eq!(own, prepared, "{html:?} at depth {depth}");
            }
        };
        for a in pieces {
            for b in pieces {
                check(&format!("{a}{b}"));
            }
        }
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..3000 {
            let mut html = String::new();
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            for k in 0..(seed % 9) {
                html.push_str(pieces[((seed >> (5 * k + 8)) % pieces.len() as u64) as usize]);
            }
            check(&html);
        }
    }

    #[test]
    fn broken_and_empty_pages_give_a_result() {
        for html in [
            "",
            "<",
            "<html><body></body></html>",
            "<p>unclosed <b>bold <i>text",
            "\u{0}\u{1}<<>>&&;;",
        ] {
            for extraction in [Extraction::Main, Extraction::FullText] {
                let _ = extract_html(html, extraction);
            }
        }
        assert_eq!(
            extract_html("<p>unclosed <b>bold", Extraction::FullText).text(),
            "unclosed bold"
        );
    }
}
