//! Main-content extraction by text density (seed 001 section 4.1,
//! generalised).
//!
//! Seed 001 picks the DOM node holding the most Chinese characters. Counting
//! characters alone favours whole-page wrappers and works only for Chinese,
//! so blocks are scored as readability does, from their paragraphs: each
//! paragraph-like block gives its ancestors a score from its length and
//! punctuation (sentences, not link lists), discounted by link density and
//! moved by class/id names that say "article" or "sidebar". The best block
//! and its sibling paragraphs are the article; inside it, link lists,
//! share bars and other chrome are left out.

use html5ever::{local_name, LocalName};

use super::dom::{is_ascii_space, Dom, Event, Line};

// Tag names are matched as the parser's interned atoms (see `dom::Tag`):
// the scorer asks about every element several times.

/// Tags whose text is a paragraph for scoring.
fn is_paragraph_tag(tag: &LocalName) -> bool {
    matches!(
        *tag,
        local_name!("p")
            | local_name!("pre")
            | local_name!("td")
            | local_name!("blockquote")
            | local_name!("li")
    )
}

/// Always chrome, wherever they are.
fn is_chrome_tag(tag: &LocalName) -> bool {
    matches!(
        *tag,
        local_name!("nav")
            | local_name!("aside")
            | local_name!("footer")
            | local_name!("form")
            | local_name!("menu")
    )
}

/// A chrome tag other than `<form>` (which ASP.NET pages wrap around
/// everything).
fn is_chrome_tag_not_form(tag: &LocalName) -> bool {
    is_chrome_tag(tag) && *tag != local_name!("form")
}

fn is_subheading(tag: &LocalName) -> bool {
    matches!(
        *tag,
        local_name!("h2")
            | local_name!("h3")
            | local_name!("h4")
            | local_name!("h5")
            | local_name!("h6")
    )
}

/// class/id words that mark chrome.
const NEGATIVE_WORDS: [&str; 58] = [
    "ad",
    "ads",
    "advert",
    "advertisement",
    "banner",
    "breadcrumb",
    "breadcrumbs",
    "byline",
    "caption",
    "comment",
    "comments",
    "consent",
    "contact",
    "cookie",
    "copyright",
    "credit",
    "credits",
    "disqus",
    "foot",
    "footer",
    "footnotes",
    "gdpr",
    "header",
    "hidden",
    "login",
    "masthead",
    "menu",
    "modal",
    "nav",
    "navbar",
    "navigation",
    "newsletter",
    "outbrain",
    "pager",
    "pagination",
    "popup",
    "print",
    "privacy",
    "promo",
    "rating",
    "references",
    "register",
    "related",
    "share",
    "sharing",
    "shoutbox",
    "sidebar",
    "signup",
    "skyscraper",
    "social",
    "sponsor",
    "subscribe",
    "taboola",
    "tags",
    "teaser",
    "toolbar",
    "tools",
    "widget",
];

/// class/id substrings that mark chrome even inside compound names.
const NEGATIVE_PARTS: [&str; 15] = [
    "comment",
    "sidebar",
    "related",
    "recommend",
    "advert",
    "social",
    "newsletter",
    "subscribe",
    "breadcrumb",
    "sharing",
    "teaser",
    "consent",
    "caption",
    "copyright",
    "dsgvo",
];

/// class/id substrings that mark chrome inside the chosen article even
/// when a positive word stands beside them (`related_post`, `post-comments`,
/// `main-box vce-related-box`, `sharedaddy`): readability lets the two
/// cancel when scoring blocks, but a small block so named inside the story
/// is never the story (trafilatura discards these names outright).
const CHROME_PARTS: [&str; 28] = [
    "comment",
    "kommentar",
    "sidebar",
    "related",
    "recommend",
    "advert",
    "affiliate",
    "social",
    "newsletter",
    "subscribe",
    "breadcrumb",
    "sharing",
    "sharedaddy",
    "consent",
    "cookie",
    "copyright",
    "dsgvo",
    "byline",
    "author",
    "metadata",
    "postmeta",
    "timestamp",
    "dateline",
    "disclaimer",
    "disclosure",
    "paywall",
    "legend",
    "factbox",
];

/// Whether a class or id names chrome outright (see `CHROME_PARTS`); a
/// `meta` word too (`entry-meta`, `article__meta`: dates, bylines, tags),
/// and a call to action (`cta`).
fn chrome_name(class_id: &str) -> bool {
    CHROME_PARTS.iter().any(|p| class_id.contains(p))
        || words(class_id).any(|w| w == "meta" || w == "cta")
}

/// A class naming a picture (`imagedescription`, `img-metadata`,
/// `photo-credit`): what such a block says beside a story is the picture's
/// caption or credit.
fn names_a_picture(class_id: &str) -> bool {
    words(class_id).any(|w| {
        ["img", "image", "photo", "foto"]
            .iter()
            .any(|p| w.starts_with(p))
    })
}

/// class/id words that mark the article.
const POSITIVE_WORDS: [&str; 12] = [
    "article",
    "articlebody",
    "body",
    "content",
    "entry",
    "main",
    "post",
    "story",
    "text",
    "blog",
    "zhengwen",
    "detail",
];

/// Names sites give the element holding exactly the article body.
const ARTICLE_BODY_NAMES: [&str; 12] = [
    "articlebody",
    "article-body",
    "article_body",
    "article__body",
    "story-body",
    "storybody",
    "entry-content",
    "post-content",
    "post-body",
    "article-content",
    "article-text",
    "story-content",
];

/// Whether a byte starts one of [`NEGATIVE_PARTS`].
static STARTS_NEGATIVE_PART: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < NEGATIVE_PARTS.len() {
        t[NEGATIVE_PARTS[i].as_bytes()[0] as usize] = true;
        i += 1;
    }
    t
};

/// Whether `name` contains one of [`NEGATIVE_PARTS`]: the parts are tried
/// only where a byte starts one, where fifteen substring searches (each
/// set up anew) cost most of a new class name's weighing.
fn contains_negative_part(name: &[u8]) -> bool {
    name.iter().enumerate().any(|(i, &b)| {
        STARTS_NEGATIVE_PART[b as usize]
            && NEGATIVE_PARTS
                .iter()
                .any(|p| name[i..].starts_with(p.as_bytes()))
    })
}

fn words(class_id: &str) -> impl Iterator<Item = &str> {
    class_id
        .split(|c: char| c.is_whitespace() || c == '-' || c == '_')
        .filter(|w| !w.is_empty())
}

/// -25, 0 or +25 from the class and id names, as readability weighs them.
pub fn class_weight(class_id: &str) -> f64 {
    let negative = words(class_id).any(|w| NEGATIVE_WORDS.contains(&w))
        || contains_negative_part(class_id.as_bytes());
    let positive = words(class_id).any(|w| POSITIVE_WORDS.contains(&w));
    match (negative, positive) {
        (true, false) => -25.0,
        (false, true) => 25.0,
        _ => 0.0,
    }
}

/// Text weight: a Han character carries about as much as a short word.
fn weighted_chars(dom: &Dom, e: u32) -> f64 {
    let s = &dom.elements[e as usize].stats;
    f64::from(s.chars) + 2.0 * f64::from(s.han)
}

/// Inline text (`span`, `font`, bare text) is scored as the loose text of
/// its nearest block, so only blocks are paragraphs here.
fn is_paragraph_like(dom: &Dom, e: u32) -> bool {
    let el = &dom.elements[e as usize];
    let tag = el.tag.name();
    is_paragraph_tag(tag)
        || (matches!(
            *tag,
            local_name!("div") | local_name!("section") | local_name!("center")
        ) && el.stats.blocks == 0)
}

/// Whether the element's text ends in an ellipsis: a teaser cut short
/// that links to another page's story, as in lists of related articles.
fn ends_in_ellipsis(dom: &Dom, e: u32) -> bool {
    let el = &dom.elements[e as usize];
    for i in (el.open..el.close).rev() {
        if let Event::Text(a, b) = dom.events[i as usize] {
            let text = dom.text[a as usize..b as usize].trim_end();
            if !text.is_empty() {
                return text.ends_with("...") || text.ends_with('…');
            }
        }
    }
    false
}

/// The text of an element, hashed (stamped widgets repeat it byte for
/// byte): its texts trimmed, each followed by a space, gathered in `buf`
/// and hashed at once (a streaming hasher's state costs more to set up
/// than these short paragraphs cost to hash).
fn text_hash(dom: &Dom, e: u32, buf: &mut Vec<u8>) -> u64 {
    let el = &dom.elements[e as usize];
    buf.clear();
    for event in &dom.events[el.open as usize..el.close as usize] {
        if let Event::Text(a, b) = *event {
            buf.extend_from_slice(dom.text[a as usize..b as usize].trim().as_bytes());
            buf.push(b' ');
        }
    }
    xxhash_rust::xxh3::xxh3_64(buf)
}

/// Paragraphs whose text recurs three or more times on the page: the
/// same widget stamped beside each item ("sign in to rate this picture"),
/// which must not score as prose however well punctuated.
fn repeated_paragraphs(dom: &Dom, unlikely: &[bool]) -> Vec<bool> {
    let n = dom.elements.len();
    let mut out = vec![false; n];
    let mut hashed: Vec<(u64, u32)> = Vec::new();
    let mut buf = Vec::new();
    for e in 0..n as u32 {
        // Widgets are short; long paragraphs are not hashed at all.
        let length = weighted_chars(dom, e);
        if unlikely[e as usize] || !(25.0..400.0).contains(&length) || !is_paragraph_like(dom, e) {
            continue;
        }
        hashed.push((text_hash(dom, e, &mut buf), e));
    }
    // Equal texts side by side: a sort of the few hashed paragraphs, where
    // a map was filled and then asked once per element.
    hashed.sort_unstable();
    for run in hashed.chunk_by(|a, b| a.0 == b.0) {
        if run.len() >= 3 {
            for &(_, e) in run {
                out[e as usize] = true;
            }
        }
    }
    out
}

fn contribution(length: f64, punct: u32) -> f64 {
    1.0 + f64::from(punct) + (length / 100.0).floor().min(3.0)
}

fn initial_score(dom: &Dom, e: u32) -> f64 {
    let el = &dom.elements[e as usize];
    let by_tag = match *el.tag.name() {
        local_name!("div")
        | local_name!("article")
        | local_name!("main")
        | local_name!("section") => 5.0,
        local_name!("pre") | local_name!("td") | local_name!("blockquote") => 3.0,
        local_name!("address")
        | local_name!("ol")
        | local_name!("ul")
        | local_name!("dl")
        | local_name!("dd")
        | local_name!("dt")
        | local_name!("li")
        | local_name!("form") => -3.0,
        local_name!("h1")
        | local_name!("h2")
        | local_name!("h3")
        | local_name!("h4")
        | local_name!("h5")
        | local_name!("h6")
        | local_name!("th") => -5.0,
        _ => 0.0,
    };
    by_tag + el.class_weight
}

/// Chrome inside the chosen article: left out when rendering it.
fn is_chrome(dom: &Dom, e: u32, article_text: u32) -> bool {
    let el = &dom.elements[e as usize];
    let tag = el.tag.name();
    if is_chrome_tag(tag) {
        // An ASP.NET-style <form> around the whole page is not chrome.
        return !(*tag == local_name!("form") && el.stats.chars * 2 > article_text);
    }
    if *tag == local_name!("h1") {
        // The headline is the title, not body text.
        return true;
    }
    if matches!(*tag, local_name!("figure") | local_name!("figcaption"))
        && el.stats.chars * 2 < article_text
    {
        // Captions and credits beside the story; a gallery whose captions
        // are the page keeps them.
        return true;
    }
    let weight = el.class_weight;
    // Classes only: ids are often made from a heading's words (a manual's
    // section `_timestamps`), and a class is the site's own label. Blocks
    // only: an inline `span.author` is a name inside a sentence (a
    // manual's list of authors), not a box beside the story.
    let class = &el.class_id[..el.class_len];
    let named_chrome = weight < 0.0
        || (el.is_block
            && (chrome_name(class) || (el.stats.chars <= 300 && names_a_picture(class))));
    if named_chrome && el.stats.chars * 2 < article_text {
        return true;
    }
    // Link lists and the like: mostly link text, little prose. Prose with
    // inline links (documentation, wikis) keeps its sentence punctuation,
    // and a block holding much of the article is judged by its parts. A
    // heading that is a link is another story's headline.
    let headline = is_subheading(tag);
    if headline
        || matches!(
            *tag,
            local_name!("ul")
                | local_name!("ol")
                | local_name!("div")
                | local_name!("table")
                | local_name!("section")
                | local_name!("dl")
                | local_name!("p")
                | local_name!("li")
        )
    {
        let density = dom.link_density(e);
        let chars = el.stats.chars;
        let prose = el.stats.punct >= 2 && el.stats.punct * 40 >= chars;
        let small = chars * 3 < article_text;
        if density > 0.5 && weight <= 0.0 && small && !prose {
            return true;
        }
        if density > 0.25 && el.stats.punct < 2 && chars < 200 && weight <= 0.0 {
            return true;
        }
    }
    false
}

/// The site's own article-body marker (itemprop or a class/id name).
fn body_marker(el: &super::dom::Element) -> Option<&str> {
    if !el.itemprop.is_empty() && el.itemprop.split_whitespace().any(|p| p == "articlebody") {
        return Some("articlebody");
    }
    class_marker(&el.class_id)
}

/// The shortest and longest of [`ARTICLE_BODY_NAMES`]: other words of a
/// class are not compared at all.
const BODY_NAME_LENGTHS: std::ops::RangeInclusive<usize> = {
    let (mut least, mut most, mut i) = (usize::MAX, 0, 0);
    while i < ARTICLE_BODY_NAMES.len() {
        let n = ARTICLE_BODY_NAMES[i].len();
        least = if n < least { n } else { least };
        most = if n > most { n } else { most };
        i += 1;
    }
    least..=most
};

/// The first word of `class_id` that [`ARTICLE_BODY_NAMES`] lists.
fn class_marker(class_id: &str) -> Option<&str> {
    if !class_id.is_ascii() {
        return class_id
            .split_whitespace()
            .find(|w| ARTICLE_BODY_NAMES.contains(w));
    }
    // ASCII names split where `split_whitespace` splits them (0x0B
    // included), a byte at a time, and only words of a listed name's
    // length compared: the scorer asks this of every sizeable block.
    class_id
        .as_bytes()
        .split(|&b| is_ascii_space(b))
        .filter(|w| BODY_NAME_LENGTHS.contains(&w.len()))
        .find_map(|w| {
            ARTICLE_BODY_NAMES
                .iter()
                .copied()
                .find(|n| n.as_bytes() == w)
        })
}

/// The elements a site marks as the article body, when they hold real
/// text: the largest, and the others carrying its marker that sit outside
/// it (a body split into chunks around ads and pictures), in page order.
fn marked_article_body(dom: &Dom) -> Vec<u32> {
    let candidate = |el: &super::dom::Element| {
        !el.dropped
            && el.stats.chars >= 100
            && !matches!(*el.tag.name(), local_name!("html") | local_name!("body"))
    };
    let mut best: Option<(u32, u32)> = None;
    for (i, el) in dom.elements.iter().enumerate() {
        if candidate(el)
            && body_marker(el).is_some()
            && best.is_none_or(|(_, chars)| el.stats.chars > chars)
        {
            best = Some((i as u32, el.stats.chars));
        }
    }
    let Some((best, _)) = best else {
        return Vec::new();
    };
    let marker = body_marker(&dom.elements[best as usize]);
    let mut chosen: Vec<u32> = Vec::new();
    for (i, el) in dom.elements.iter().enumerate() {
        let i = i as u32;
        let inside_chosen = chosen.iter().any(|&c| dom.contains(c, i));
        let holds_best = i != best && dom.contains(i, best);
        if !inside_chosen && !holds_best && candidate(el) && body_marker(el) == marker {
            chosen.push(i);
        }
    }
    chosen
}

/// Elements that cannot hold the article: chrome tags, and (when
/// `strict`) blocks whose class or id says comment, sidebar, related, ...
/// as readability's "unlikely candidates". Inherited by descendants.
/// A block holding half the page's prose or more is a layout wrapper,
/// whatever its name says (`c-fixed-sidebar-layout` around the story).
fn unlikely(dom: &Dom, strict: bool) -> Vec<bool> {
    let prose = |el: &super::dom::Element| el.stats.chars - el.stats.link_chars.min(el.stats.chars);
    let page = dom
        .body
        .map(|b| prose(&dom.elements[b as usize]))
        .unwrap_or(0);
    let mut out = vec![false; dom.elements.len()];
    for (i, el) in dom.elements.iter().enumerate() {
        let inherited = el.parent.is_some_and(|p| out[p as usize]);
        let tag = el.tag.name();
        let own = !matches!(
            *tag,
            local_name!("html")
                | local_name!("body")
                | local_name!("article")
                | local_name!("main")
        ) && (is_chrome_tag_not_form(tag)
            || strict && el.class_weight < 0.0 && prose(el) * 2 < page);
        out[i] = el.dropped || inherited || own;
    }
    out
}

/// The elements that make up the article, in document order.
pub fn select_article(dom: &Dom) -> Vec<u32> {
    select_article_with(dom, true)
}

fn select_article_with(dom: &Dom, strict: bool) -> Vec<u32> {
    let mut chosen = select_body(dom, strict);
    add_lead(dom, &mut chosen);
    chosen
}

/// class/id words that name a story's lead (standfirst, intro, chapo):
/// the paragraph that opens the story, set apart above its body, often in
/// the story's header. Compounds count (`articleintro`, `introtext`).
const LEAD_WORDS: [&str; 16] = [
    "lead",
    "intro",
    "summary",
    "abstract",
    "excerpt",
    "chapo",
    "teaser",
    "standfirst",
    "perex",
    "preface",
    "vorspann",
    "bajada",
    "epigraph",
    "einleitung",
    "subtitle",
    "subheadline",
];

fn is_lead_name(class_id: &str) -> bool {
    words(class_id).any(|w| {
        LEAD_WORDS.iter().any(|l| {
            w == *l
                || (w.len() > l.len() + 2 && (w.ends_with(l) || (l.len() >= 5 && w.starts_with(l))))
        })
    })
}

/// Text (non-space characters) between the lead and the body: a headline,
/// a date, a byline, a picture's caption fit; a column of other stories
/// does not.
const LEAD_GAP: usize = 300;

/// The story's lead, when the body chosen by density starts after it: a
/// block the site names as lead, intro or summary, prose and not links,
/// just before the body (readability's siblings of the best block, reached
/// beyond the parent, as trafilatura keeps a story's teaser). Leads found
/// are added to `chosen` in document order.
fn add_lead(dom: &Dom, chosen: &mut Vec<u32>) {
    let Some(&first) = chosen
        .iter()
        .min_by_key(|&&c| dom.elements[c as usize].open)
    else {
        return;
    };
    let mut boundary = dom.elements[first as usize].open as usize;
    let mut pointer = boundary;
    let mut gap = 0usize;
    let mut leads: Vec<u32> = Vec::new();
    for j in (0..first as usize).rev() {
        let el = &dom.elements[j];
        let close = el.close as usize;
        if close >= boundary {
            // An ancestor of the body or of a lead taken.
            continue;
        }
        while pointer > close {
            pointer -= 1;
            if let Event::Text(a, b) = dom.events[pointer] {
                gap += non_space_chars(&dom.text[a as usize..b as usize]);
            }
        }
        if gap > LEAD_GAP {
            break;
        }
        if is_lead(dom, j as u32) {
            leads.push(j as u32);
            boundary = el.open as usize;
            pointer = boundary;
            gap = 0;
        }
    }
    if !leads.is_empty() {
        chosen.extend(leads);
        chosen.sort_by_key(|&e| dom.elements[e as usize].open);
    }
}

/// Characters of `text` that are not whitespace; ASCII text (most of the
/// markup's text between blocks) by its bytes.
fn non_space_chars(text: &str) -> usize {
    if text.is_ascii() {
        text.bytes().filter(|&b| !is_ascii_space(b)).count()
    } else {
        text.chars().filter(|c| !c.is_whitespace()).count()
    }
}

fn is_lead(dom: &Dom, e: u32) -> bool {
    let el = &dom.elements[e as usize];
    if el.dropped || *el.tag.name() == local_name!("h1") {
        return false;
    }
    // The counts first: most elements above a body are short or links,
    // and their names need not be read.
    let s = &el.stats;
    let prose = s.punct >= 1 || s.han > 0;
    if weighted_chars(dom, e) < 30.0 || s.link_chars * 10 > s.chars * 3 || !prose {
        return false;
    }
    if !is_lead_name(&el.class_id[..el.class_len]) {
        return false;
    }
    if ends_in_ellipsis(dom, e) {
        return false;
    }
    // Not inside navigation, asides or footers.
    let mut a = el.parent;
    while let Some(p) = a {
        if is_chrome_tag_not_form(dom.elements[p as usize].tag.name()) {
            return false;
        }
        a = dom.elements[p as usize].parent;
    }
    true
}

fn select_body(dom: &Dom, strict: bool) -> Vec<u32> {
    if dom.elements.is_empty() {
        return Vec::new();
    }
    let unlikely = unlikely(dom, strict);
    let repeated = repeated_paragraphs(dom, &unlikely);
    let mut score = block_scores(dom, &unlikely, &repeated);
    let top = best_block(dom, &mut score, &unlikely);

    let marked = marked_article_body(dom);
    if !marked.is_empty() && keeps_marked(dom, &marked, &score, top) {
        return marked;
    }

    let Some((top, top_score)) = top else {
        return dom.body.into_iter().collect();
    };
    // Sibling blocks of the best one that belong to the article too.
    let Some(parent) = dom.elements[top as usize].parent else {
        return vec![top];
    };
    let body = BestBlock {
        top,
        top_score,
        threshold: (top_score * 0.2).max(10.0),
        top_class: dom.elements[top as usize].class_id.clone(),
    };
    let mut chosen = article_siblings(dom, &body, parent, &score, &unlikely);
    // The same body container repeated elsewhere (a story split into
    // chunks around pictures and ads, each in its own wrapper): blocks of
    // the best one's tag and class that score as prose too.
    if body.named() && weighted_chars(dom, top) >= 200.0 {
        add_repeated_containers(dom, &body, &score, &unlikely, &mut chosen);
        chosen.sort_by_key(|&e| dom.elements[e as usize].open);
    }
    chosen
}

/// Each element's score from the paragraphs below it (NaN where none
/// reached it).
fn block_scores(dom: &Dom, unlikely: &[bool], repeated: &[bool]) -> Vec<f64> {
    let n = dom.elements.len();
    let mut score = vec![f64::NAN; n];
    for e in 0..n as u32 {
        let el = &dom.elements[e as usize];
        if unlikely[e as usize] || repeated[e as usize] {
            continue;
        }
        // A paragraph scores its ancestors; the loose text of any other
        // block (text and <br>s beside a heading, inline runs in a <dd>)
        // is a paragraph inside that block.
        let (first, points) = if is_paragraph_like(dom, e) {
            let length = weighted_chars(dom, e);
            if length < 25.0 || ends_in_ellipsis(dom, e) {
                continue;
            }
            (el.parent, contribution(length, el.stats.punct))
        } else if el.is_block && *el.tag.name() != local_name!("h1") {
            let inline = &el.inline;
            let length = f64::from(inline.chars) + 2.0 * f64::from(inline.han);
            if length < 25.0 || inline.link_chars * 2 > inline.chars {
                continue;
            }
            (Some(e), contribution(length, inline.punct))
        } else {
            continue;
        };
        score_ancestors(dom, &mut score, e, first, points);
    }
    score
}

/// Adds a paragraph's `points` to `first` and the levels above it, less
/// at each level.
#[inline]
fn score_ancestors(dom: &Dom, score: &mut [f64], e: u32, first: Option<u32>, points: f64) {
    let el = &dom.elements[e as usize];
    // Wrappers that add no text of their own (a paragraph inside
    // three bare <div>s) do not count as levels: the block that
    // gathers the paragraphs is what matters, however deep.
    let mut ancestor = first;
    let mut level = 0;
    let mut steps = 0;
    let mut below = if first == Some(e) { 0 } else { el.stats.chars };
    while let (Some(a), true) = (ancestor, level < 5 && steps < 16) {
        if score[a as usize].is_nan() {
            score[a as usize] = initial_score(dom, a);
        }
        let divider = match level {
            0 => 1.0,
            1 => 2.0,
            _ => f64::from(level) * 3.0,
        };
        score[a as usize] += points / divider;
        let chars = dom.elements[a as usize].stats.chars;
        if chars > below || steps == 0 {
            level += 1;
        }
        below = chars;
        ancestor = dom.elements[a as usize].parent;
        steps += 1;
    }
}

/// The best-scoring block, its score weighed down by its links (as every
/// score is, in `score`).
fn best_block(dom: &Dom, score: &mut [f64], unlikely: &[bool]) -> Option<(u32, f64)> {
    let mut top: Option<(u32, f64)> = None;
    for e in 0..dom.elements.len() {
        if score[e].is_nan() || unlikely[e] {
            continue;
        }
        if matches!(
            *dom.elements[e].tag.name(),
            local_name!("html") | local_name!("head") | local_name!("body")
        ) {
            continue;
        }
        score[e] *= 1.0 - dom.link_density(e as u32);
        if top.is_none_or(|(_, s)| score[e] > s) {
            top = Some((e as u32, score[e]));
        }
    }
    top
}

/// Whether a site's own article-body marker wins: it does unless the
/// scored block around it holds clearly more prose outside it.
fn keeps_marked(dom: &Dom, marked: &[u32], score: &[f64], top: Option<(u32, f64)>) -> bool {
    let marked_chars: u32 = marked
        .iter()
        .map(|&m| dom.elements[m as usize].stats.chars)
        .sum();
    // (or the marked body alone scores half as much as that block: the
    // prose outside it is then other stories, not more of this one).
    let marked_score: f64 = marked
        .iter()
        .map(|&m| score[m as usize])
        .filter(|s| !s.is_nan())
        .sum();
    match top {
        Some((t, top_score)) if marked.iter().all(|&m| t != m && dom.contains(t, m)) => {
            let top = &dom.elements[t as usize].stats;
            marked_chars * 3 >= top.chars - top.link_chars || marked_score * 2.0 >= top_score
        }
        _ => true,
    }
}

/// The best-scoring block, and what other blocks are measured against.
struct BestBlock {
    top: u32,
    top_score: f64,
    /// The score a sibling needs to be taken.
    threshold: f64,
    top_class: std::rc::Rc<str>,
}

impl BestBlock {
    fn named(&self) -> bool {
        !self.top_class.trim().is_empty()
    }
}

/// The best block and its siblings under `parent` that score as prose
/// (a bonus for its class), or are long paragraphs with few links.
fn article_siblings(
    dom: &Dom,
    body: &BestBlock,
    parent: u32,
    score: &[f64],
    unlikely: &[bool],
) -> Vec<u32> {
    let (top, top_score, threshold) = (body.top, body.top_score, body.threshold);
    let top_named = body.named();
    let mut chosen = Vec::new();
    for e in 0..dom.elements.len() as u32 {
        let el = &dom.elements[e as usize];
        if el.parent != Some(parent) || unlikely[e as usize] {
            continue;
        }
        if e == top {
            chosen.push(e);
            continue;
        }
        let mut s = score[e as usize];
        if top_named && el.class_id == body.top_class {
            s += top_score * 0.2;
        }
        let ok = if !s.is_nan() && s >= threshold {
            true
        } else if *el.tag.name() == local_name!("p") {
            let length = weighted_chars(dom, e);
            let density = dom.link_density(e);
            (length > 80.0 && density < 0.25)
                || (length > 0.0 && density == 0.0 && el.stats.punct > 0)
        } else {
            false
        };
        if ok {
            chosen.push(e);
        }
    }
    chosen
}

/// Adds the blocks of the best one's tag and class elsewhere that score
/// past the threshold and overlap nothing chosen.
fn add_repeated_containers(
    dom: &Dom,
    body: &BestBlock,
    score: &[f64],
    unlikely: &[bool],
    chosen: &mut Vec<u32>,
) {
    let tag = &dom.elements[body.top as usize].tag;
    for e in 0..dom.elements.len() as u32 {
        let el = &dom.elements[e as usize];
        if el.class_id != body.top_class
            || el.tag != *tag
            || unlikely[e as usize]
            || score[e as usize].is_nan()
            || score[e as usize] < body.threshold
            || chosen
                .iter()
                .any(|&c| dom.contains(c, e) || dom.contains(e, c))
        {
            continue;
        }
        chosen.push(e);
    }
}

/// The article's lines: paragraphs and headings, chrome left out. When
/// the strict pass finds next to nothing (a page whose article sits in a
/// block named like chrome), a second pass without class-based exclusion
/// is taken if it finds more.
pub fn article_lines(dom: &Dom) -> Vec<Line> {
    let strict = lines_of(dom, &select_article_with(dom, true));
    let chars = |lines: &[Line]| lines.iter().map(|l| l.text.chars().count()).sum::<usize>();
    if chars(&strict) >= 250 {
        return strict;
    }
    let relaxed = lines_of(dom, &select_article_with(dom, false));
    if chars(&relaxed) > chars(&strict) {
        relaxed
    } else {
        strict
    }
}

fn lines_of(dom: &Dom, chosen: &[u32]) -> Vec<Line> {
    let chosen = chosen.to_vec();
    let article_text: u32 = chosen
        .iter()
        .map(|&e| dom.elements[e as usize].stats.chars)
        .sum();
    let skip = |e: u32| is_chrome(dom, e, article_text) || introduces_chrome(dom, e, article_text);
    chosen.iter().flat_map(|&e| dom.render(e, &skip)).collect()
}

/// Whether every text of the element sits inside a `<b>` or `<strong>`.
fn all_bold(dom: &Dom, e: u32) -> bool {
    let el = &dom.elements[e as usize];
    dom.events[el.open as usize + 1..el.close as usize]
        .iter()
        .enumerate()
        .all(|(i, event)| match *event {
            Event::Text(a, b) => {
                dom.text[a as usize..b as usize].trim().is_empty()
                    || dom.text_is_bold(el.open as usize + 1 + i)
            }
            _ => true,
        })
}

/// A heading whose next block is chrome ("Read more:" above a link list,
/// "Related" above a row of teasers) announces that chrome and goes with it.
fn introduces_chrome(dom: &Dom, e: u32, article_text: u32) -> bool {
    let el = &dom.elements[e as usize];
    // A heading tag, or a short line without sentence punctuation ("Read
    // more:"); list items and cells are items, not headings.
    let heading = is_subheading(el.tag.name())
        || (matches!(*el.tag.name(), local_name!("p") | local_name!("div"))
            && el.stats.blocks == 0
            && el.stats.chars <= 50
            && el.stats.punct == 0
            && all_bold(dom, e));
    if !heading || el.stats.chars == 0 {
        return false;
    }
    // Elements are numbered in document order: the next sibling is the
    // first element after this one's subtree with the same parent.
    let mut k = e as usize + 1;
    while k < dom.elements.len() && dom.elements[k].open < el.close {
        k += 1;
    }
    while k < dom.elements.len() {
        let next = &dom.elements[k];
        if next.parent != el.parent {
            // Past the parent's end: nothing follows in this block.
            return false;
        }
        // Pictures are passed over: a section goes on below its picture.
        let picture = matches!(
            *next.tag.name(),
            local_name!("figure") | local_name!("figcaption") | local_name!("picture")
        );
        if !next.dropped && next.stats.chars > 0 && !picture {
            return is_chrome(dom, k as u32, article_text);
        }
        // Skip the empty sibling and its subtree.
        let end = next.close;
        k += 1;
        while k < dom.elements.len() && dom.elements[k].open < end {
            k += 1;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negative_parts_are_found_as_substring_search_finds_them() {
        let slow = |c: &str| NEGATIVE_PARTS.iter().any(|p| c.contains(p));
        let mut cases = vec![String::new(), "c".to_string(), "comm".to_string()];
        for part in NEGATIVE_PARTS {
            // Each part whole, cut short, with each of its bytes changed,
            // and among other names, the bytes before it starting parts.
            for around in ["", "c", "s", "x-", "\u{e9}", "ccomment"] {
                cases.push(format!("{around}{part}"));
                cases.push(format!("{part}{around}"));
                cases.push(format!("{around}{}", &part[..part.len() - 1]));
            }
            for i in 0..part.len() {
                for b in [b'a', b'c', b'z', b'-'] {
                    let mut changed = part.as_bytes().to_vec();
                    changed[i] = b;
                    cases.push(String::from_utf8(changed).unwrap());
                }
            }
        }
        for c in &cases {
            assert_eq!(contains_negative_part(c.as_bytes()), slow(c), "{c:?}");
        }
        assert!(cases.iter().any(|c| slow(c)) && cases.iter().any(|c| !slow(c)));
    }

    #[test]
    fn body_names_are_found_as_whitespace_splits_them() {
        fn slow(c: &str) -> Option<&str> {
            c.split_whitespace()
                .find(|w| ARTICLE_BODY_NAMES.contains(w))
        }
        let mut cases = vec![
            String::new(),
            "x articlebody ".to_string(),
            "storybody\u{b}post-body".to_string(),
            "post-bodyx post-body".to_string(),
            "a\u{3000}entry-content b".to_string(),
            "entry-content\u{3000}b".to_string(),
        ];
        for name in ARTICLE_BODY_NAMES {
            for sep in [" ", "\t", "\n", "\u{b}", "\u{c}", "\r", "\u{a0}", "-", "_"] {
                cases.push(format!("main{sep}{name}{sep}x"));
                cases.push(format!("{name}{sep}"));
                cases.push(format!("x{name}"));
            }
        }
        for c in &cases {
            assert_eq!(class_marker(c), slow(c), "{c:?}");
        }
    }

    #[test]
    fn class_names_weigh_as_words() {
        assert_eq!(class_weight("article-body"), 25.0);
        assert_eq!(class_weight("sidebar-left"), -25.0);
        assert_eq!(class_weight("headline"), 0.0, "`head` is not `header`");
        assert_eq!(
            class_weight("downloads"),
            0.0,
            "`ads` inside a word is not an ad"
        );
        assert_eq!(class_weight("post-comments"), 0.0, "both signs cancel");
    }

    fn text_of(html: &str) -> String {
        let dom = Dom::parse(html);
        article_lines(&dom)
            .into_iter()
            .map(|l| l.text)
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn picks_the_article_over_navigation_and_links() {
        let links: String = (0..30)
            .map(|i| format!("<li><a href='/{i}'>Related headline number {i} here</a></li>"))
            .collect();
        let html = format!(
            "<html><body><div class='nav'><ul>{links}</ul></div>\
             <div class='content'><h1>Title</h1>\
             <p>The first paragraph of the story, with a comma, and a full stop.</p>\
             <p>The second paragraph goes on, and on, for a while longer than that.</p>\
             <ul class='share'><li><a href='#'>Share</a></li></ul></div>\
             <div class='footer'>Copyright, all rights reserved.</div></body></html>"
        );
        assert_eq!(
            text_of(&html),
            "The first paragraph of the story, with a comma, and a full stop.\n\
             The second paragraph goes on, and on, for a while longer than that."
        );
    }

    #[test]
    fn chinese_pages_are_scored_by_their_characters() {
        let nav: String = (0..20)
            .map(|i| format!("<a href='/{i}'>栏目{i}</a> "))
            .collect();
        let html = format!(
            "<html><body><div id='top'>{nav}</div><div id='zhengwen'>\
             <p>本报讯，经过四年建设，江城地铁五号线今天上午九时正式开通试运营。</p>\
             <p>据地铁公司介绍，五号线采用六节编组列车，高峰时段行车间隔为四分钟。</p></div>\
             <div id='foot'>版权所有，未经授权禁止转载</div></body></html>"
        );
        let text = text_of(&html);
        assert!(text.starts_with("本报讯"), "{text}");
        assert!(!text.contains("栏目") && !text.contains("版权"), "{text}");
    }

    #[test]
    fn navigation_only_pages_give_little_or_nothing() {
        let links: String = (0..40)
            .map(|i| format!("<a href='/{i}'>Section {i}</a> "))
            .collect();
        let html = format!("<html><body><nav>{links}</nav></body></html>");
        assert_eq!(text_of(&html), "");
    }

    const PROSE: &str =
        "The council met on Monday, and after a long debate, it voted to rebuild the bridge.";

    /// Distinct paragraphs: the same one three times would be a widget.
    fn paragraphs(n: usize) -> String {
        (0..n).map(|i| format!("<p>{PROSE} Day {i}.</p>")).collect()
    }

    #[test]
    fn loose_text_beside_blocks_is_the_article() {
        let links: String = (0..12)
            .map(|i| format!("<li><a href='/{i}'>Archive month {i}</a></li>"))
            .collect();
        let html = format!(
            "<html><body><div class='col-3'><ul>{links}</ul></div><div class='col-9'>\
             <p class='title'>Bridge vote</p><small>By a reporter</small><br>\
             {PROSE} {PROSE}<br><br>{PROSE}</div></body></html>"
        );
        let text = text_of(&html);
        assert!(text.contains(PROSE), "{text}");
        assert!(!text.contains("Archive month"), "{text}");
    }

    #[test]
    fn teasers_cut_with_an_ellipsis_do_not_outscore_the_story() {
        let teasers: String = (0..10)
            .map(|i| {
                format!(
                    "<li><a href='/{i}'>Other story {i}</a><span>Officials said on Monday, \
                     in a statement, that the plan, which was announced last week, would...</span></li>"
                )
            })
            .collect();
        let html = format!(
            "<html><body><ul class='latest'>{teasers}</ul>\
             <div>{}</div></body></html>",
            paragraphs(3)
        );
        let text = text_of(&html);
        assert!(text.starts_with("The council"), "{text}");
        assert!(!text.contains("Other story"), "{text}");
    }

    #[test]
    fn a_body_split_into_chunks_is_taken_whole() {
        let chunk = |word: &str| {
            format!(
                "<div class='grid'><div class='story-chunk'><p>{word}: {PROSE}</p>{}</div>\
                 <div class='adrail'>Advertisement</div></div>",
                paragraphs(2)
            )
        };
        let html = format!(
            "<html><body><article>{}{}<div class='promo'>Subscribe now</div></article></body></html>",
            chunk("First"),
            chunk("Second")
        );
        let text = text_of(&html);
        assert!(
            text.starts_with("First:") && text.contains("Second:"),
            "{text}"
        );
        assert!(!text.contains("Advertisement"), "{text}");
    }

    #[test]
    fn a_widget_repeated_on_the_page_does_not_score() {
        let widgets: String = (0..6)
            .map(|i| {
                format!(
                    "<div class='item'><img src='{i}.jpg'><div>Sign in, please, to rate this picture, \
                     and to save it, too.</div></div>"
                )
            })
            .collect();
        let html = format!(
            "<html><body><div class='gallery'>{widgets}</div><div><p>{PROSE}</p></div></body></html>"
        );
        let text = text_of(&html);
        assert!(text.starts_with("The council"), "{text}");
        assert!(!text.contains("Sign in"), "{text}");
    }

    #[test]
    fn a_layout_wrapper_named_like_a_sidebar_still_holds_the_article() {
        let html = format!(
            "<html><body><div class='fixed-sidebar-layout'><div class='main'>\
             {}</div></div><div class='nav'><a href='/'>Home</a></div></body></html>",
            paragraphs(3)
        );
        let text = text_of(&html);
        assert!(text.starts_with("The council"), "{text}");
    }

    #[test]
    fn the_lead_above_the_body_is_kept() {
        let html = format!(
            "<html><body><div class='nav'><a href='/'>Home</a> <a href='/n'>News</a></div>\
             <article><header><h1>Bridge vote</h1><p class='article__intro'>After years of \
             delay, the council has decided, at last.</p><span>12 May 2021</span></header>\
             <div class='story'>{}</div></article></body></html>",
            paragraphs(3)
        );
        let text = text_of(&html);
        assert!(text.starts_with("After years of delay"), "{text}");
        assert!(text.contains("Day 2."), "{text}");
    }

    #[test]
    fn a_lead_far_above_the_body_or_cut_short_is_not() {
        let filler: String = (0..12)
            .map(|i| format!("<span>Market report number {i} of the week in brief</span> "))
            .collect();
        let far = format!(
            "<html><body><div class='summary'>Another story entirely, told in a sentence.</div>\
             <div class='ticker'>{filler}</div><div class='story'>{}</div></body></html>",
            paragraphs(3)
        );
        let text = text_of(&far);
        assert!(!text.contains("Another story"), "{text}");
        let cut = format!(
            "<html><body><p class='teaser'>Officials said on Monday, in a statement, that...</p>\
             <div class='story'>{}</div></body></html>",
            paragraphs(3)
        );
        let text = text_of(&cut);
        assert!(!text.contains("Officials"), "{text}");
        assert!(text.starts_with("The council"), "{text}");
    }

    #[test]
    fn chrome_names_are_not_cancelled_inside_the_article() {
        let items: String = (0..3)
            .map(|i| format!("<li>Other story {i}, told briefly, with a comma.</li>"))
            .collect();
        let html = format!(
            "<html><body><div class='entry'>{}<ul class='related_post'>{items}</ul>\
             <div class='post-comments'><p>Great piece, thanks, really.</p></div>\
             <p class='imagedescription'>AFP / A Photographer</p></div></body></html>",
            paragraphs(4)
        );
        let text = text_of(&html);
        assert!(text.contains("Day 3."), "{text}");
        for chrome in ["Other story", "Great piece", "AFP"] {
            assert!(!text.contains(chrome), "{chrome}: {text}");
        }
    }

    #[test]
    fn a_heading_above_chrome_goes_with_it() {
        let links: String = (0..5)
            .map(|i| format!("<li><a href='/{i}'>A story worth reading number {i}</a></li>"))
            .collect();
        let html = format!(
            "<html><body><div class='story'>{}<h3>Read more</h3><ul>{links}</ul>\
             <p><strong>See also</strong></p><ul>{links}</ul>\
             <h3>The vote</h3><figure><img src='a.jpg'></figure>{}\
             <h3><a href='/other'>A headline of another story</a></h3></div></body></html>",
            paragraphs(2),
            paragraphs(3)
        );
        let text = text_of(&html);
        assert!(text.contains("The vote"), "a section heading stays: {text}");
        for chrome in ["Read more", "See also", "worth reading", "another story"] {
            assert!(!text.contains(chrome), "{chrome}: {text}");
        }
    }
}
