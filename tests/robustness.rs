//! Hostile pages: huge, truncated, binary, empty, navigation only. Each
//! gives a result (possibly empty text), never a panic.

use neardup::corpus::{Content, Page};
use neardup::extract::{extract_html, extract_page, Extraction};

fn both(html: &str) -> [String; 2] {
    [Extraction::Main, Extraction::FullText].map(|e| extract_html(html, e).text())
}

#[test]
fn a_20_mb_page_is_extracted() {
    let paragraph = "<p>Engineers worked through the night to restore power, and by Monday most homes were back.</p>";
    let nav: String = (0..50)
        .map(|i| format!("<a href='/{i}'>Section {i}</a>"))
        .collect();
    let mut html = format!("<html><body><nav>{nav}</nav><article>");
    while html.len() < 20_000_000 {
        html.push_str(paragraph);
    }
    html.push_str("</article></body></html>");
    let [main, full] = both(&html);
    assert!(main.len() > 15_000_000, "{}", main.len());
    assert!(!main.contains("Section 7"));
    assert!(full.contains("Section 7"));
}

#[test]
fn truncated_and_malformed_markup() {
    let cases = [
        "<html><body><p>cut off in the middle of a <b>tag",
        "<html><body><p>attribute never closed <a href=\"x>y</p>",
        "<div><p>unbalanced</div></span></p></td>",
        "<!-- a comment that never ends <p>hidden</p>",
        "<table><tr><td>cell<td>cell two<tr><td>row two",
        "</p></p></div>stray end tags only",
        "<p>entities &amp; &lt;ok&gt; &#x4e2d;&#25991; &bogus; &#xFFFFFFFF;</p>",
    ];
    for html in cases {
        let _ = both(html);
    }
    assert_eq!(both(cases[6])[1], "entities & <ok> 中文 &bogus; \u{FFFD}");
}

#[test]
fn binary_junk_and_empty_pages() {
    let junk: Vec<u8> = (0..200_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8)
        .collect();
    let page = |content| Page::new("p", "c", content);
    for e in [Extraction::Main, Extraction::FullText] {
        let _ = extract_page(&page(Content::HtmlBytes(junk.clone())), e);
        assert_eq!(
            extract_page(&page(Content::HtmlBytes(Vec::new())), e).text(),
            ""
        );
        assert_eq!(
            extract_page(&page(Content::Html("<html><body></body></html>".into())), e).text(),
            ""
        );
    }
}

#[test]
fn navigation_only_pages_have_empty_main_text() {
    let links: String = (0..60)
        .map(|i| format!("<li><a href='/{i}'>Channel {i}</a></li>"))
        .collect();
    let html = format!("<html><body><div id='menu'><ul>{links}</ul></div><div class='footer'><a href='/c'>Contact</a></div></body></html>");
    let [main, full] = both(&html);
    assert_eq!(main, "");
    assert!(full.contains("Channel 59"));
}
