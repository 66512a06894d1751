//! From a page's content to the text the algorithms read.
//!
//! This stage strips tags (`full_text`). HTML is parsed with html5ever
//! (through scraper) and walked with an explicit iterator, never by
//! recursion, so a page nested a hundred thousand levels deep cannot
//! overflow the stack.

mod nesting;

use ego_tree::iter::Edge;
use scraper::{Html, Node};
use serde::{Deserialize, Serialize};

use crate::corpus::{Content, Page};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Extraction {
    /// Every text node of the body, tags stripped, block elements on lines
    /// of their own.
    #[default]
    FullText,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ExtractedText {
    pub title: Option<String>,
    pub text: String,
}

pub fn page_text(page: &Page, extraction: Extraction) -> ExtractedText {
    match (&page.content, extraction) {
        (Content::Text(text), _) => ExtractedText {
            title: page.title.clone(),
            text: text.clone(),
        },
        (Content::Html(html), Extraction::FullText) => {
            let mut out = html_full_text(html);
            if page.title.is_some() {
                out.title = page.title.clone();
            }
            out
        }
    }
}

/// Elements whose text is never page content.
const SKIPPED: [&str; 7] = [
    "script", "style", "noscript", "template", "iframe", "head", "svg",
];

const BLOCKS: [&str; 30] = [
    "p",
    "div",
    "br",
    "li",
    "ul",
    "ol",
    "tr",
    "td",
    "th",
    "table",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "section",
    "article",
    "header",
    "footer",
    "nav",
    "aside",
    "blockquote",
    "pre",
    "dd",
    "dt",
    "dl",
    "hr",
    "main",
    "form",
];

pub fn html_full_text(html: &str) -> ExtractedText {
    let document = Html::parse_document(&nesting::cap_nesting(html, nesting::MAX_DEPTH));
    let mut title = None;
    let mut text = String::new();
    let mut skip_depth = 0usize;
    let mut in_title = false;
    for edge in document.tree.root().traverse() {
        match edge {
            Edge::Open(node) => match node.value() {
                Node::Element(e) => {
                    let name = e.name();
                    if name == "title" {
                        in_title = true;
                    }
                    if SKIPPED.contains(&name) {
                        skip_depth += 1;
                    } else if BLOCKS.contains(&name) {
                        text.push('\n');
                    }
                }
                Node::Text(t) => {
                    if in_title && title.is_none() {
                        let t = collapse_whitespace(t);
                        if !t.is_empty() {
                            title = Some(t);
                        }
                    } else if skip_depth == 0 {
                        text.push_str(t);
                    }
                }
                _ => {}
            },
            Edge::Close(node) => {
                if let Node::Element(e) = node.value() {
                    let name = e.name();
                    if name == "title" {
                        in_title = false;
                    }
                    if SKIPPED.contains(&name) {
                        skip_depth = skip_depth.saturating_sub(1);
                    } else if BLOCKS.contains(&name) {
                        text.push('\n');
                    }
                }
            }
        }
    }
    ExtractedText {
        title,
        text: tidy_lines(&text),
    }
}

fn collapse_whitespace(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// One line per block, whitespace folded inside lines, no empty lines.
fn tidy_lines(text: &str) -> String {
    text.lines()
        .map(collapse_whitespace)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_scripts_and_styles_are_stripped() {
        let html = "<html><head><title> 标题 </title><style>p{}</style></head>\
                    <body><script>var x=1;</script><p>第一段。</p><div>Second <b>para</b>.</div></body></html>";
        let out = html_full_text(html);
        assert_eq!(out.title.as_deref(), Some("标题"));
        assert_eq!(out.text, "第一段。\nSecond para.");
    }

    #[test]
    fn deep_nesting_does_not_overflow_the_stack() {
        let depth = 100_000;
        let html = format!(
            "{}deep text{}",
            "<div>".repeat(depth),
            "</div>".repeat(depth)
        );
        let out = html_full_text(&html);
        assert_eq!(out.text, "deep text");
    }
}
