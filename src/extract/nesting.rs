//! A guard against pathological nesting.
//!
//! html5ever's tree builder checks element scopes by walking the stack of
//! open elements, so a page nested n levels deep costs O(n²) to parse: a
//! hundred thousand nested `<div>`s take a minute. No real page nests more
//! than a few hundred levels, so past [`MAX_DEPTH`] start tags (and their end
//! tags) are dropped before parsing, keeping every piece of text.

use std::borrow::Cow;

pub const MAX_DEPTH: usize = 512;

const VOID: [&str; 14] = [
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr",
];
const RAW_TEXT: [&str; 6] = ["script", "style", "textarea", "title", "xmp", "noscript"];

enum Tag<'a> {
    Start { name: &'a str, self_closing: bool },
    End,
    Other,
}

/// The next markup item at `pos` (which holds `<`): its kind and end.
fn lex_tag(html: &str, pos: usize) -> (Tag<'_>, usize) {
    let bytes = html.as_bytes();
    let rest = &html[pos..];
    let find_from = |needle: &str, from: usize| {
        html[from..]
            .find(needle)
            .map(|i| from + i + needle.len())
            .unwrap_or(html.len())
    };
    if rest.starts_with("<!--") {
        return (Tag::Other, find_from("-->", pos + 4));
    }
    let (is_end, name_start) = if rest.starts_with("</") {
        (true, pos + 2)
    } else {
        (false, pos + 1)
    };
    if !bytes.get(name_start).is_some_and(u8::is_ascii_alphabetic) {
        let end = if rest.starts_with("<!") || rest.starts_with("<?") {
            find_from(">", pos + 1)
        } else {
            pos + 1
        };
        return (Tag::Other, end);
    }
    let name_end = html[name_start..]
        .find(|c: char| c.is_ascii_whitespace() || c == '/' || c == '>')
        .map(|i| name_start + i)
        .unwrap_or(html.len());
    // The tag ends at the first `>` outside quotes.
    let mut quote = None;
    let mut end = html.len();
    for (i, &b) in bytes.iter().enumerate().skip(name_end) {
        match (quote, b) {
            (None, b'"' | b'\'') => quote = Some(b),
            (Some(q), _) if b == q => quote = None,
            (None, b'>') => {
                end = i + 1;
                break;
            }
            _ => {}
        }
    }
    let name = &html[name_start..name_end];
    if is_end {
        (Tag::End, end)
    } else {
        let self_closing = end >= 2 && bytes[end - 2] == b'/';
        (Tag::Start { name, self_closing }, end)
    }
}

/// Skips a raw-text element's content: to its end tag, case-insensitively.
fn skip_raw_text(html: &str, from: usize, name: &str) -> usize {
    let closing = format!("</{}", name.to_ascii_lowercase());
    let lower_tail = html[from..].to_ascii_lowercase();
    lower_tail
        .find(&closing)
        .map(|i| from + i)
        .unwrap_or(html.len())
}

/// The page with nesting capped at `max_depth` (borrowed when within it).
pub fn cap_nesting(html: &str, max_depth: usize) -> Cow<'_, str> {
    if !nests_deeper_than(html, max_depth) {
        return Cow::Borrowed(html);
    }
    let mut out = String::with_capacity(html.len());
    let mut depth = 0usize;
    let mut dropped = 0usize;
    walk(html, |piece, tag| {
        match tag {
            Some(Tag::Start { .. }) => {
                depth += 1;
                if depth > max_depth {
                    dropped += 1;
                    return;
                }
            }
            Some(Tag::End) => {
                depth = depth.saturating_sub(1);
                if dropped > 0 && depth >= max_depth {
                    dropped -= 1;
                    return;
                }
            }
            _ => {}
        }
        out.push_str(piece);
    });
    Cow::Owned(out)
}

fn nests_deeper_than(html: &str, max_depth: usize) -> bool {
    let (mut depth, mut deepest) = (0usize, 0usize);
    walk(html, |_, tag| match tag {
        Some(Tag::Start { .. }) => {
            depth += 1;
            deepest = deepest.max(depth);
        }
        Some(Tag::End) => depth = depth.saturating_sub(1),
        _ => {}
    });
    deepest > max_depth
}

/// Calls `f` with each piece of the page: text and other markup with
/// `None` or `Some(Tag::Other)`, nesting start and end tags as such (void
/// and self-closing elements do not nest and come as `Other`).
fn walk<'a>(html: &'a str, mut f: impl FnMut(&'a str, Option<Tag<'a>>)) {
    let mut pos = 0;
    while pos < html.len() {
        let Some(lt) = html[pos..].find('<').map(|i| pos + i) else {
            f(&html[pos..], None);
            break;
        };
        if lt > pos {
            f(&html[pos..lt], None);
        }
        let (tag, end) = lex_tag(html, lt);
        let end = end.max(lt + 1);
        match tag {
            Tag::Start { name, self_closing } => {
                let lower = name.to_ascii_lowercase();
                if self_closing || VOID.contains(&lower.as_str()) {
                    f(&html[lt..end], Some(Tag::Other));
                    pos = end;
                } else if RAW_TEXT.contains(&lower.as_str()) {
                    // Raw text does not nest: pass the element through whole.
                    let close = skip_raw_text(html, end, name);
                    let stop = if close < html.len() {
                        lex_tag(html, close).1
                    } else {
                        html.len()
                    };
                    f(&html[lt..stop], Some(Tag::Other));
                    pos = stop;
                } else {
                    f(&html[lt..end], Some(Tag::Start { name, self_closing }));
                    pos = end;
                }
            }
            other => {
                f(&html[lt..end], Some(other));
                pos = end;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shallow_pages_are_untouched() {
        let html = "<html><body><div><p>a<br>b</p><img src=x /></div></body></html>";
        assert!(matches!(cap_nesting(html, 8), Cow::Borrowed(_)));
    }

    #[test]
    fn deep_pages_keep_their_text() {
        let html = format!("{}text{}", "<div>".repeat(50), "</div>".repeat(50));
        let capped = cap_nesting(&html, 10);
        assert_eq!(
            capped,
            format!("{}text{}", "<div>".repeat(10), "</div>".repeat(10))
        );
    }

    #[test]
    fn raw_text_is_not_lexed_as_tags() {
        let html = format!(
            "<script>if (a<b) {{ x = '<div>'; }}</script>{}",
            "<p>".repeat(3)
        );
        assert!(matches!(cap_nesting(&html, 3), Cow::Borrowed(_)));
    }

    #[test]
    fn truncated_markup_does_not_panic() {
        for html in [
            "<",
            "<div",
            "<div a='>",
            "<!--",
            "</",
            "<script>中",
            "<a href=\"x>y",
            "<<<>>>",
            "<p>中</",
        ] {
            let _ = cap_nesting(html, 0);
        }
    }
}
