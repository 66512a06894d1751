//! The page as the parser gets it: comments, scripts and styles left out
//! (see [`for_parsing`]), and a guard against pathological nesting.
//!
//! html5ever's tree builder checks element scopes by walking the stack of
//! open elements, so a page nested n levels deep costs O(n²) to parse: a
//! hundred thousand nested `<div>`s take a minute. No real page nests more
//! than a few hundred levels, so past [`MAX_DEPTH`] start tags (and their end
//! tags) are dropped before parsing, keeping every piece of text.

pub const MAX_DEPTH: usize = 512;

const VOID: [&str; 14] = [
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr",
];
const RAW_TEXT: [&str; 10] = [
    "script",
    "style",
    "textarea",
    "title",
    "xmp",
    "noscript",
    "iframe",
    "noembed",
    "noframes",
    "plaintext",
];

enum Tag<'a> {
    Start {
        name: &'a str,
        self_closing: bool,
    },
    End,
    Other,
    /// A comment, or a whole `<script>` or `<style>` element: never page
    /// text, so it can leave before parsing.
    Ignorable,
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
        // As the HTML tokenizer ends comments: `<!-->` and `<!--->` are
        // whole, else the first `-->` or `--!>`.
        for short in ["<!-->", "<!--->"] {
            if rest.starts_with(short) {
                return (Tag::Ignorable, pos + short.len());
            }
        }
        let end = find_from("-->", pos + 4).min(find_from("--!>", pos + 4));
        return (Tag::Ignorable, end);
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
    // The tag ends at the first `>` outside quotes; a quote opens a value
    // only right after `=` (elsewhere it is part of a name or value).
    let mut quote = None;
    let mut after_equals = false;
    let mut end = html.len();
    for (i, &b) in bytes.iter().enumerate().skip(name_end) {
        match (quote, b) {
            (None, b'"' | b'\'') if after_equals => quote = Some(b),
            (Some(q), _) if b == q => quote = None,
            (None, b'>') => {
                end = i + 1;
                break;
            }
            _ => {}
        }
        if quote.is_none() && !b.is_ascii_whitespace() {
            after_equals = b == b'=';
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

/// Skips a raw-text element's content: to its end tag (`</name` followed
/// by whitespace, `/` or `>`, in any case), or the end of the page.
fn skip_raw_text(html: &str, from: usize, name: &str) -> usize {
    let bytes = html.as_bytes();
    let mut at = from;
    while let Some(i) = memchr_lt(&bytes[at..]) {
        let lt = at + i;
        let name_at = lt + 2;
        let ends = bytes.get(lt + 1) == Some(&b'/')
            && bytes
                .get(name_at..name_at + name.len())
                .is_some_and(|n| n.eq_ignore_ascii_case(name.as_bytes()))
            && bytes
                .get(name_at + name.len())
                .is_none_or(|&b| b.is_ascii_whitespace() || b == b'/' || b == b'>');
        if ends {
            return lt;
        }
        at = lt + 1;
    }
    html.len()
}

fn memchr_lt(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == b'<')
}

/// The page as the extractor parses it: nesting capped at `max_depth`,
/// and comments, scripts and styles left out, which hold no page text and
/// are most of the bytes of many real pages (the parser goes through them
/// a character at a time). A script whose text opens a comment (`<!--`)
/// is kept, as the parser may read its end differently.
pub fn for_parsing(html: &str, max_depth: usize) -> String {
    let mut out = String::with_capacity(html.len());
    let mut depth = 0usize;
    let mut dropped = 0usize;
    walk(html, |piece, tag| {
        match tag {
            Some(Tag::Ignorable) if !piece[1..].contains("<!--") => return,
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
    out
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
                    let kind = if matches!(lower.as_str(), "script" | "style") {
                        Tag::Ignorable
                    } else {
                        Tag::Other
                    };
                    f(&html[lt..stop], Some(kind));
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
        assert_eq!(for_parsing(html, 8), html);
    }

    #[test]
    fn deep_pages_keep_their_text() {
        let html = format!("{}text{}", "<div>".repeat(50), "</div>".repeat(50));
        assert_eq!(
            for_parsing(&html, 10),
            format!("{}text{}", "<div>".repeat(10), "</div>".repeat(10))
        );
    }

    #[test]
    fn raw_text_is_not_lexed_as_tags() {
        let html = format!(
            "<script>if (a<b) {{ x = '<div>'; }}</script>{}",
            "<p>".repeat(3)
        );
        assert_eq!(for_parsing(&html, 3), "<p>".repeat(3));
    }

    #[test]
    fn comments_scripts_and_styles_leave_before_parsing() {
        let cases = [
            ("a<!-- x -->b", "ab"),
            ("a<!-->b<!--->c", "abc"),
            ("a<!-- x --!>b", "ab"),
            (
                "<p>a<SCRIPT type='x'>var s = '</p>';</Script >b</p>",
                "<p>ab</p>",
            ),
            ("<style>p > a {}</style><p>a</p>", "<p>a</p>"),
            // `</scripts>` does not end a script; the page's end does.
            ("<script>x</scripts>y", ""),
            // A script opening a comment may end elsewhere for the parser.
            ("<script><!-- x </script>y", "<script><!-- x </script>y"),
            ("<title>a<!-- b --></title>", "<title>a<!-- b --></title>"),
            ("<a title=it\"s>b<!-- c -->", "<a title=it\"s>b"),
        ];
        for (html, want) in cases {
            assert_eq!(for_parsing(html, 8), want, "{html}");
        }
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
            let _ = for_parsing(html, 0);
        }
    }
}
