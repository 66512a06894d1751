//! The page as the parser gets it: comments, scripts, styles, metadata and
//! the attributes the extractor never reads left out (see [`for_parsing`]),
//! and a guard against pathological nesting.
//!
//! html5ever's tree builder checks element scopes by walking the stack of
//! open elements, so a page nested n levels deep costs O(n²) to parse: a
//! hundred thousand nested `<div>`s take a minute. No real page nests more
//! than a few hundred levels, so past [`MAX_DEPTH`] start tags (and their end
//! tags) are dropped before parsing, keeping every piece of text.

use html5ever::tendril::StrTendril;

pub const MAX_DEPTH: usize = 512;

pub(super) const VOID: [&str; 14] = [
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr",
];
pub(super) const RAW_TEXT: [&str; 10] = [
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
        // `--!>` ends it only if it comes first: looking for it past the
        // first `-->` would read to the page's end on every comment.
        let end = find_from("-->", pos + 4);
        let bang = html[pos + 4..end]
            .find("--!>")
            .map_or(end, |i| pos + 4 + i + 4);
        return (Tag::Ignorable, end.min(bang));
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
    let name_end = bytes[name_start..]
        .iter()
        .position(|&b| b.is_ascii_whitespace() || b == b'/' || b == b'>')
        .map(|i| name_start + i)
        .unwrap_or(html.len());
    // The tag ends at the first `>` outside quotes; a quote opens a value
    // only right after `=` (elsewhere it is part of a name or value).
    // Jumps from quote to quote: whether one follows `=` is read back.
    let mut end = html.len();
    let mut from = name_end;
    while let Some(j) = find3(b'>', b'"', b'\'', &bytes[from..]) {
        let i = from + j;
        let b = bytes[i];
        if b == b'>' {
            end = i + 1;
            break;
        }
        let after_equals = bytes[from..i]
            .iter()
            .rev()
            .find(|b| !b.is_ascii_whitespace())
            == Some(&b'=');
        if !after_equals {
            from = i + 1;
            continue;
        }
        // The value runs to the matching quote (long URLs and data: one
        // search, not a loop over its bytes).
        match find(b, &bytes[i + 1..]) {
            Some(k) => from = i + k + 2,
            None => break,
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

/// Where the markup item at `pos` (which holds `<`) ends, as this pre-pass
/// reads it.
pub(super) fn markup_end(html: &str, pos: usize) -> usize {
    lex_tag(html, pos).1
}

/// Skips a raw-text element's content: to its end tag (`</name` followed
/// by whitespace, `/` or `>`, in any case), or the end of the page.
pub(super) fn skip_raw_text(html: &str, from: usize, name: &str) -> usize {
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
    find(b'<', bytes)
}

/// How many bytes a search reads one by one before handing the rest to
/// memchr: most searches in markup end within a few bytes (the quote that
/// closes `class="a"`, the `<` after a newline), where memchr's call and
/// set-up cost more than reading the bytes.
const SHORT: usize = 16;

/// The first `needle` in `hay`, as `memchr::memchr` finds it.
#[inline]
pub(super) fn find(needle: u8, hay: &[u8]) -> Option<usize> {
    let head = &hay[..hay.len().min(SHORT)];
    match head.iter().position(|&b| b == needle) {
        Some(i) => Some(i),
        None if hay.len() > SHORT => memchr::memchr(needle, &hay[SHORT..]).map(|i| i + SHORT),
        None => None,
    }
}

/// The first `a`, `b` or `c` in `hay`, as `memchr::memchr3` finds it.
#[inline]
pub(super) fn find3(a: u8, b: u8, c: u8, hay: &[u8]) -> Option<usize> {
    let head = &hay[..hay.len().min(SHORT)];
    match head.iter().position(|&x| x == a || x == b || x == c) {
        Some(i) => Some(i),
        None if hay.len() > SHORT => memchr::memchr3(a, b, c, &hay[SHORT..]).map(|i| i + SHORT),
        None => None,
    }
}

/// The page as the extractor parses it: nesting capped at `max_depth`,
/// and comments, scripts, styles and the head's `<meta>` and `<link>`
/// left out, which hold no page text and are most of the bytes of real
/// pages. The parser builds the same tree from what is left (the lexer
/// then skips the attributes the extractor never reads, see
/// [`keeps_attribute`]). A script whose text opens a comment (`<!--`) is
/// kept, as the parser may read its end differently. Most pages are not
/// prepared: the lexer reads the same pieces from its tokens (see
/// `lexer::feed_pruned`), and comes here only where the two could part.
pub fn for_parsing(html: &str, max_depth: usize) -> StrTendril {
    // Written into a buffer the thread keeps from page to page, then
    // copied once into the parser's input, which the parsed tree's text
    // shares.
    thread_local! {
        static BUFFER: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    }
    BUFFER.with(|buffer| {
        let mut out = buffer.borrow_mut();
        out.clear();
        prepare(html, max_depth, true, &mut out);
        let page = StrTendril::from_slice(&out);
        // A huge page's buffer is not kept for the small ones after it.
        if out.capacity() > 1 << 22 {
            *out = String::new();
        }
        page
    })
}

/// The page as the extractor parsed it before metadata was left out
/// (comments, scripts and styles still are), for checking that the
/// parser builds the same tree from both.
pub fn for_reference(html: &str, max_depth: usize) -> String {
    let mut out = String::with_capacity(html.len());
    prepare(html, max_depth, false, &mut out);
    out
}

fn prepare(html: &str, max_depth: usize, lean: bool, out: &mut String) {
    let mut depth = 0usize;
    let mut dropped = 0usize;
    // Whether anything but whitespace went out yet: before that, a tag
    // decides the document's quirks mode (a `<meta>` ahead of the doctype
    // makes it quirky), so it stays.
    let mut started = false;
    // Whether the page is still in its head, where `<meta>` and `<link>`
    // go: in the body one may sit inside a block of text, and the
    // extractor's walks see it.
    let mut in_head = true;
    walk(html, |piece, tag| {
        in_head = in_head
            && match &tag {
                None => piece.trim_start().is_empty(),
                Some(Tag::Start { name, .. }) => named(&HEAD, name),
                Some(Tag::End) => {
                    piece
                        .as_bytes()
                        .get(..6)
                        .is_some_and(|b| b.eq_ignore_ascii_case(b"</head"))
                        && !piece
                            .as_bytes()
                            .get(6)
                            .is_some_and(u8::is_ascii_alphanumeric)
                }
                _ => start_tag_name(piece).is_none_or(|name| named(&HEAD, name)),
            };
        match tag {
            Some(Tag::Ignorable)
                if memchr::memmem::find(&piece.as_bytes()[1..], b"<!--").is_none() =>
            {
                return
            }
            Some(Tag::Start { .. }) => {
                depth += 1;
                if depth > max_depth {
                    dropped += 1;
                    return;
                }
            }
            Some(Tag::Other)
                if lean
                    && started
                    && in_head
                    && start_tag_name(piece).is_some_and(|name| named(&["meta", "link"], name))
                    && tag_ends_within(piece) =>
            {
                return
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
        started = started || !piece.trim_start().is_empty();
        out.push_str(piece);
    });
}

/// Elements a page's head holds; any other starts its body.
pub(super) const HEAD: [&str; 10] = [
    "html", "head", "title", "base", "meta", "link", "style", "script", "noscript", "template",
];

/// [`VOID`], [`RAW_TEXT`] and [`HEAD`] as the parser interns a tag's name
/// (its bytes lower-cased: the lists' case-blind match), one integer
/// comparison each.
pub(super) fn is_void(name: &html5ever::LocalName) -> bool {
    use html5ever::local_name;
    matches!(
        *name,
        local_name!("area")
            | local_name!("base")
            | local_name!("br")
            | local_name!("col")
            | local_name!("embed")
            | local_name!("hr")
            | local_name!("img")
            | local_name!("input")
            | local_name!("link")
            | local_name!("meta")
            | local_name!("param")
            | local_name!("source")
            | local_name!("track")
            | local_name!("wbr")
    )
}

/// See [`is_void`].
pub(super) fn is_raw_text(name: &html5ever::LocalName) -> bool {
    use html5ever::local_name;
    matches!(
        *name,
        local_name!("script")
            | local_name!("style")
            | local_name!("textarea")
            | local_name!("title")
            | local_name!("xmp")
            | local_name!("noscript")
            | local_name!("iframe")
            | local_name!("noembed")
            | local_name!("noframes")
            | local_name!("plaintext")
    )
}

/// See [`is_void`].
pub(super) fn is_head(name: &html5ever::LocalName) -> bool {
    use html5ever::local_name;
    matches!(
        *name,
        local_name!("html")
            | local_name!("head")
            | local_name!("title")
            | local_name!("base")
            | local_name!("meta")
            | local_name!("link")
            | local_name!("style")
            | local_name!("script")
            | local_name!("noscript")
            | local_name!("template")
    )
}

pub(super) fn named(list: &[&str], name: &str) -> bool {
    list.iter().any(|x| x.eq_ignore_ascii_case(name))
}

/// The name of the start tag `piece` opens with, if it does.
pub(super) fn start_tag_name(piece: &str) -> Option<&str> {
    let bytes = piece.as_bytes();
    if bytes.len() < 2 || bytes[0] != b'<' || !bytes[1].is_ascii_alphabetic() {
        return None;
    }
    let end = bytes
        .iter()
        .position(|&b| b.is_ascii_whitespace() || b == b'/' || b == b'>')
        .unwrap_or(bytes.len());
    Some(&piece[1..end])
}

/// Attributes the extractor reads (`class`, `id`, `itemprop`) and those
/// that steer the parser's tree (`type` of a hidden input in a table, the
/// `encoding` of MathML's annotation-xml, `<font>`'s attributes leaving
/// SVG, declarative shadow roots).
pub(crate) const KEPT_ATTRIBUTES: [&str; 9] = [
    "class",
    "id",
    "itemprop",
    "type",
    "encoding",
    "color",
    "face",
    "size",
    "shadowrootmode",
];

/// Formatting elements: the parser compares their attributes (three alike
/// in a row are one too many, the spec's "Noah's Ark"), so theirs stay.
/// `<a>` never has two open at once, so it is not among them.
#[cfg(test)]
const FORMATTING: [&str; 13] = [
    "b", "big", "code", "em", "font", "i", "nobr", "s", "small", "strike", "strong", "tt", "u",
];

/// Whether the attribute `name` of a tag that is [`is_formatting`] or not
/// can matter to the extraction: those the extractor reads, those that
/// steer the tree builder, and every attribute of a formatting element.
pub(super) fn keeps_attribute(formatting: bool, name: &str) -> bool {
    // By length first: most attributes (`href`, `src`, `style`, `data-*`)
    // are told apart without reading a byte of their names.
    formatting
        || match name.len() {
            2 | 4 | 5 | 8 | 14 => named(&KEPT_ATTRIBUTES, name),
            _ => false,
        }
}

/// Whether `tag` (as the parser interns it) names one of the
/// [`FORMATTING`] elements.
pub(super) fn is_formatting(tag: &html5ever::LocalName) -> bool {
    use html5ever::local_name;
    matches!(
        *tag,
        local_name!("b")
            | local_name!("big")
            | local_name!("code")
            | local_name!("em")
            | local_name!("font")
            | local_name!("i")
            | local_name!("nobr")
            | local_name!("s")
            | local_name!("small")
            | local_name!("strike")
            | local_name!("strong")
            | local_name!("tt")
            | local_name!("u")
    )
}

/// Whether `piece` opens with a start tag that the HTML tokenizer ends
/// within it (its end may differ from `lex_tag`'s, which is only a guess).
pub(super) fn tag_ends_within(piece: &str) -> bool {
    #[derive(Clone, Copy)]
    enum State {
        BeforeName,
        Name,
        AfterName,
        BeforeValue,
        AfterQuoted,
        Unquoted,
        SelfClosing,
    }
    let bytes = piece.as_bytes();
    let is_space = |b: u8| matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ');
    let Some(name) = start_tag_name(piece) else {
        return false;
    };
    let name_end = name.len() + 1;
    if name_end == bytes.len() {
        return false;
    }
    // The tokenizer's states from "before attribute name" to the tag's end.
    let mut state = State::BeforeName;
    let mut i = name_end;
    while i < bytes.len() {
        let b = bytes[i];
        let space = is_space(b);
        match state {
            State::BeforeName | State::AfterName if space => {}
            State::BeforeName | State::Name | State::AfterName | State::AfterQuoted
                if b == b'/' =>
            {
                state = State::SelfClosing
            }
            State::BeforeName
            | State::Name
            | State::AfterName
            | State::BeforeValue
            | State::AfterQuoted
            | State::Unquoted
                if b == b'>' =>
            {
                return true
            }
            State::Name if space => state = State::AfterName,
            State::Name | State::AfterName if b == b'=' => state = State::BeforeValue,
            State::Name => {}
            State::BeforeName | State::AfterName => state = State::Name,
            State::BeforeValue if space => {}
            State::BeforeValue if b == b'"' || b == b'\'' => {
                let Some(j) = find(b, &bytes[i + 1..]) else {
                    return false;
                };
                i += j + 2;
                state = State::AfterQuoted;
                continue;
            }
            State::BeforeValue => state = State::Unquoted,
            State::AfterQuoted | State::Unquoted if space => state = State::BeforeName,
            State::Unquoted => {}
            State::SelfClosing if b == b'>' => return true,
            // A parse error: the byte starts the next attribute.
            State::AfterQuoted | State::SelfClosing => {
                state = State::BeforeName;
                continue;
            }
        }
        i += 1;
    }
    false
}

/// Calls `f` with each piece of the page: text and other markup with
/// `None` or `Some(Tag::Other)`, nesting start and end tags as such (void
/// and self-closing elements do not nest and come as `Other`).
fn walk<'a>(html: &'a str, mut f: impl FnMut(&'a str, Option<Tag<'a>>)) {
    let mut pos = 0;
    while pos < html.len() {
        let Some(lt) = memchr_lt(&html.as_bytes()[pos..]).map(|i| pos + i) else {
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
                if self_closing || named(&VOID, name) {
                    f(&html[lt..end], Some(Tag::Other));
                    pos = end;
                } else if named(&RAW_TEXT, name) {
                    // Raw text does not nest: pass the element through whole.
                    let close = skip_raw_text(html, end, name);
                    let stop = if close < html.len() {
                        lex_tag(html, close).1
                    } else {
                        html.len()
                    };
                    let kind = if named(&["script", "style"], name) {
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
    fn short_searches_find_what_memchr_finds() {
        let hay: Vec<u8> = (0..200u32)
            .map(|i| b"ab<\"'>x "[(i * 7 % 9) as usize % 8])
            .collect();
        for from in 0..hay.len() {
            for to in from..hay.len().min(from + 40) {
                let h = &hay[from..to];
                assert_eq!(find(b'<', h), memchr::memchr(b'<', h));
                assert_eq!(
                    find3(b'>', b'"', b'\'', h),
                    memchr::memchr3(b'>', b'"', b'\'', h)
                );
            }
            let h = &hay[from..];
            assert_eq!(find(b'>', h), memchr::memchr(b'>', h));
            assert_eq!(find(b'z', h), None);
            assert_eq!(
                find3(b'z', b'y', b' ', h),
                memchr::memchr3(b'z', b'y', b' ', h)
            );
        }
    }

    #[test]
    fn kept_attributes_are_those_listed_in_any_case() {
        for tag in FORMATTING {
            assert!(is_formatting(&html5ever::LocalName::from(tag)), "{tag}");
        }
        for tag in ["a", "p", "div", "span", "bdi", "ul"] {
            assert!(!is_formatting(&html5ever::LocalName::from(tag)), "{tag}");
        }
        assert!(KEPT_ATTRIBUTES.iter().all(|a| keeps_attribute(false, a)));
        assert!(keeps_attribute(false, "CLASS") && keeps_attribute(false, "ShadowRootMode"));
        for name in ["href", "src", "style", "data-id", "classes", "i", "item"] {
            assert!(!keeps_attribute(false, name), "{name}");
            assert!(keeps_attribute(true, name), "{name}");
        }
    }

    #[test]
    fn interned_lists_match_the_named_ones() {
        let names = VOID.iter().chain(&RAW_TEXT).chain(&HEAD).copied();
        for name in names.chain(["p", "div", "a", "scripts", "met", "svg", "Title", "META"]) {
            let atom = html5ever::LocalName::from(name.to_ascii_lowercase());
            assert_eq!(is_void(&atom), named(&VOID, name), "{name}");
            assert_eq!(is_raw_text(&atom), named(&RAW_TEXT, name), "{name}");
            assert_eq!(is_head(&atom), named(&HEAD, name), "{name}");
        }
    }

    #[test]
    fn shallow_pages_are_untouched() {
        let html = "<html><body><div class=a><p id='b'>a<br>b</p><img /></div></body></html>";
        assert_eq!(&*for_parsing(html, 8), html);
    }

    #[test]
    fn metadata_leaves_the_head_unless_it_may_decide_the_quirks_mode() {
        let cases = [
            (
                "<!doctype html><meta charset=utf-8><p>x",
                "<!doctype html><p>x",
            ),
            (
                "<meta charset=utf-8><!doctype html><p>x",
                "<meta charset=utf-8><!doctype html><p>x",
            ),
            // In the body they stay: the extractor's walks see them.
            (
                "<!doctype html><head><link rel=a></head><p>x<meta itemprop=y content=z>",
                "<!doctype html><head></head><p>x<meta itemprop=y content=z>",
            ),
            // A tag the page's end cuts is left to the parser.
            ("<!doctype html><meta a='b", "<!doctype html><meta a='b"),
            // Attributes stay for the lexer to skip.
            (
                "<p>x<div class=\"a b\" data-x='{\"k\": \"<p>\"}' ID=c href=/z>y</div>",
                "<p>x<div class=\"a b\" data-x='{\"k\": \"<p>\"}' ID=c href=/z>y</div>",
            ),
        ];
        for (html, want) in cases {
            assert_eq!(&*for_parsing(html, 8), want, "{html}");
        }
    }

    #[test]
    fn a_comment_ends_at_its_first_end() {
        assert_eq!(&*for_parsing("a<!-- x --!> b --> c", 8), "a b --> c");
        assert_eq!(&*for_parsing("a<!-- x --> b --!> c", 8), "a b --!> c");
        assert_eq!(&*for_parsing("a<!-- x -- b", 8), "a");
    }

    #[test]
    fn deep_pages_keep_their_text() {
        let html = format!("{}text{}", "<div>".repeat(50), "</div>".repeat(50));
        assert_eq!(
            &*for_parsing(&html, 10),
            format!("{}text{}", "<div>".repeat(10), "</div>".repeat(10))
        );
    }

    #[test]
    fn raw_text_is_not_lexed_as_tags() {
        let html = format!(
            "<script>if (a<b) {{ x = '<div>'; }}</script>{}",
            "<p>".repeat(3)
        );
        assert_eq!(&*for_parsing(&html, 3), "<p>".repeat(3));
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
            assert_eq!(&*for_parsing(html, 8), want, "{html}");
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
