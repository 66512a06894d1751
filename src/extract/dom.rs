//! A flat view of a parsed page for scoring: elements in an arena, and the
//! page as a sequence of open/text/close events, so that every walk is a
//! loop over a slice (a page nested deeply costs no stack).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use ego_tree::iter::Edge;
use html5ever::{local_name, ns, LocalName, QualName};
use rustc_hash::FxBuildHasher;
use scraper::{Html, Node};

use crate::text::lang::is_han;

/// Elements whose content is never page text. Names are compared as the
/// parser's interned atoms: one integer comparison each, where a string
/// match reads the name's bytes for every element of every page.
fn is_dropped_tag(tag: &LocalName) -> bool {
    matches!(
        *tag,
        local_name!("script")
            | local_name!("style")
            | local_name!("noscript")
            | local_name!("template")
            | local_name!("iframe")
            | local_name!("svg")
            | local_name!("canvas")
            | local_name!("button")
            | local_name!("select")
            | local_name!("input")
            | local_name!("textarea")
            | local_name!("object")
            | local_name!("embed")
            | local_name!("head")
    )
}

/// Elements that start a new line of text.
fn is_block_tag(tag: &LocalName) -> bool {
    matches!(
        *tag,
        local_name!("p")
            | local_name!("div")
            | local_name!("br")
            | local_name!("li")
            | local_name!("ul")
            | local_name!("ol")
            | local_name!("tr")
            | local_name!("td")
            | local_name!("th")
            | local_name!("table")
            | local_name!("h1")
            | local_name!("h2")
            | local_name!("h3")
            | local_name!("h4")
            | local_name!("h5")
            | local_name!("h6")
            | local_name!("section")
            | local_name!("article")
            | local_name!("header")
            | local_name!("footer")
            | local_name!("nav")
            | local_name!("aside")
            | local_name!("blockquote")
            | local_name!("pre")
            | local_name!("dd")
            | local_name!("dt")
            | local_name!("dl")
            | local_name!("hr")
            | local_name!("main")
            | local_name!("form")
            | local_name!("figure")
            | local_name!("figcaption")
            | local_name!("address")
            | local_name!("center")
    )
}

/// An element's name, lower-cased: an interned atom (the parser's own),
/// so a page's thousands of elements share a few dozen names instead of
/// each holding a copy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tag(LocalName);

impl Tag {
    fn of(name: &QualName) -> Tag {
        // HTML names come lower-cased from the tokenizer; SVG's and
        // MathML's are adjusted to camel case (`foreignObject`).
        let name = &name.local;
        if name.bytes().any(|b| b.is_ascii_uppercase()) {
            Tag(LocalName::from(name.to_ascii_lowercase()))
        } else {
            Tag(name.clone())
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The interned name, to compare with `local_name!` constants.
    pub fn name(&self) -> &LocalName {
        &self.0
    }
}

impl std::ops::Deref for Tag {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl PartialEq<str> for Tag {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for Tag {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

impl std::fmt::Display for Tag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[derive(Debug, Clone, Default)]
pub struct Stats {
    /// Characters of text that are not whitespace.
    pub chars: u32,
    /// Of those, inside links.
    pub link_chars: u32,
    pub han: u32,
    /// Commas and sentence punctuation, Latin and CJK.
    pub punct: u32,
    /// Elements inside, this one included.
    pub tags: u32,
    /// `<p>` elements inside.
    pub paragraphs: u32,
    /// Block elements inside (not counting this one).
    pub blocks: u32,
}

#[derive(Debug, Clone)]
pub struct Element {
    /// The node in scraper's tree, for callers that edit the page (built
    /// by [`Dom::of`]; [`Dom::parse`] uses a leaner tree and gives none).
    pub node: Option<ego_tree::NodeId>,
    pub tag: Tag,
    /// `class` and `id`, lower-cased, space separated (each followed by a
    /// space), shared by the elements of the thread's pages that carry the
    /// same (counted without atomics: a page is extracted on one thread).
    pub class_id: Rc<str>,
    /// Bytes of `class_id` that come from `class` (the rest is the `id`,
    /// which documents often derive from a heading's words).
    pub class_len: usize,
    /// `itemprop`, lower-cased.
    pub itemprop: String,
    /// [`super::main_content::class_weight`] of `class_id`, which the
    /// scorer asks for many times per element.
    pub class_weight: f64,
    pub parent: Option<u32>,
    pub depth: u32,
    /// Event range `[open, close]` of this element.
    pub open: u32,
    pub close: u32,
    pub stats: Stats,
    /// Text whose nearest enclosing block is this element: the loose text
    /// between its child blocks (readability wraps such runs in `<p>`).
    pub inline: Stats,
    /// Inside a dropped element (script, style, ...) or itself one.
    pub dropped: bool,
    /// Inside an `<a>`, or itself one.
    pub in_link: bool,
    /// Inside a `<b>` or `<strong>`, or itself one.
    pub in_bold: bool,
    pub is_block: bool,
}

#[derive(Debug, Clone)]
pub enum Event {
    Open(u32),
    Close(u32),
    /// A byte range of [`Dom::text`].
    Text(u32, u32),
}

#[derive(Debug, Default)]
pub struct Dom {
    pub elements: Vec<Element>,
    pub events: Vec<Event>,
    pub text: String,
    pub title: Option<String>,
    /// Index of `<body>`, if the page has one.
    pub body: Option<u32>,
}

/// Ones in a byte, for the 16-bit masks [`ascii_run`] gives: without a
/// `popcnt` target feature `count_ones` is a dozen instructions, and it
/// ran twice for every 16 bytes of text.
static POP8: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = (i as u8).count_ones() as u8;
        i += 1;
    }
    t
};

#[inline(always)]
fn pop16(mask: u32) -> u32 {
    u32::from(POP8[(mask & 0xFF) as usize]) + u32::from(POP8[((mask >> 8) & 0xFF) as usize])
}

/// Per ASCII byte, what [`count_text`] counts: 1 for a character that is
/// not whitespace (tab to carriage return and the space are), 2 more for
/// sentence punctuation.
static ASCII_COUNT: [u8; 128] = {
    let mut t = [0u8; 128];
    let mut i = 0;
    while i < 128 {
        t[i] = match i as u8 {
            b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' ' => 0,
            b',' | b'.' | b'!' | b'?' | b';' => 3,
            _ => 1,
        };
        i += 1;
    }
    t
};

/// The ASCII bytes from `at` (which is ASCII) up to the next other byte,
/// at most 16 and within the text: the masks of those that are
/// whitespace (as `char::is_whitespace` says of ASCII: tab to carriage
/// return, and the space) and of the sentence punctuation [`count_text`]
/// counts, and how many there are. `None` when the text is shorter than
/// 16 bytes. Near the text's end the last 16 bytes are read, those
/// before `at` left out; before a byte that is not ASCII, the ASCII ones
/// are counted all the same. Most of a page's text (and all of its
/// markup's whitespace) is ASCII, and 16 bytes at once take a few
/// instructions where a byte at a time takes a few each.
#[inline]
fn ascii_run(bytes: &[u8], at: usize) -> Option<(u32, u32, usize)> {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        let len = bytes.len();
        if len < 16 {
            return None;
        }
        let start = at.min(len - 16);
        let shift = at - start;
        let chunk = &bytes[start..start + 16];
        // SAFETY: SSE2 is part of every x86_64 target; the load reads the
        // 16 bytes of `chunk`, unaligned.
        let (high, space, punct) = unsafe {
            let v = _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>());
            let eq = |c: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(c as i8));
            // Tab to carriage return (9 to 13): v - 9 <= 4, unsigned.
            let shifted = _mm_sub_epi8(v, _mm_set1_epi8(9));
            let low = _mm_cmpeq_epi8(_mm_min_epu8(shifted, _mm_set1_epi8(4)), shifted);
            let space = _mm_or_si128(low, eq(b' '));
            let punct = _mm_or_si128(
                _mm_or_si128(
                    _mm_or_si128(eq(b','), eq(b'.')),
                    _mm_or_si128(eq(b'!'), eq(b'?')),
                ),
                eq(b';'),
            );
            (
                _mm_movemask_epi8(v) as u32,
                _mm_movemask_epi8(space) as u32,
                _mm_movemask_epi8(punct) as u32,
            )
        };
        // The ASCII bytes from `at`: up to the first high bit, or the end
        // of the chunk (a bit set just past it).
        let n = ((high >> shift) | (1 << (16 - shift))).trailing_zeros() as usize;
        let keep = (1u32 << n) - 1;
        Some(((space >> shift) & keep, (punct >> shift) & keep, n))
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (bytes, at);
        None
    }
}

fn count_text(text: &str, stats: &mut Stats) {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b.is_ascii() {
            if let Some((space, punct, n)) = ascii_run(bytes, i) {
                stats.chars += n as u32 - pop16(space);
                stats.punct += pop16(punct);
                i += n;
                continue;
            }
            // Text of fewer than 16 bytes (the whitespace between tags,
            // mostly): no character to decode.
            let count = ASCII_COUNT[b as usize];
            stats.chars += u32::from(count & 1);
            stats.punct += u32::from(count >> 1);
            i += 1;
            continue;
        }
        // U+5000-U+9FFF: Han, none of them whitespace or punctuation
        // (most of a Chinese page's text), without decoding.
        if (0xE5..=0xE9).contains(&b) {
            i += 3;
            stats.chars += 1;
            stats.han += 1;
            continue;
        }
        // U+3400-U+4FFF (lead E3 with 90 and up, or E4): Han, but for
        // U+4DC0-U+4DFF (E4 B7), hexagram symbols, which are neither
        // whitespace nor punctuation. Common characters (一, 不, 中, 人,
        // 他, 们) are here.
        if b == 0xE4 || (b == 0xE3 && bytes[i + 1] >= 0x90) {
            let han = !(b == 0xE4 && bytes[i + 1] == 0xB7);
            i += 3;
            stats.chars += 1;
            stats.han += u32::from(han);
            continue;
        }
        let Some(c) = text[i..].chars().next() else {
            break;
        };
        i += c.len_utf8();
        if c.is_whitespace() {
            continue;
        }
        stats.chars += 1;
        if is_han(c) {
            stats.han += 1;
        } else if matches!(c, '，' | '。' | '！' | '？' | '；' | '、') {
            stats.punct += 1;
        }
    }
}

/// Class names and their weights by `class` and `id` as the page writes
/// them (each followed by a space), kept by each thread from page to
/// page: a site's template repeats its classes on every page, and
/// weighing one takes dozens of word and substring comparisons. The
/// names are shared by the elements that carry them, so most elements
/// allocate nothing; keyed as written, a name found is not lower-cased
/// first (most are lower-case already, and then the key is the name).
type ClassNames = HashMap<Rc<str>, (Rc<str>, f64), FxBuildHasher>;

/// Past this many names the cache starts again (a crawl of many sites
/// would otherwise grow it without end).
const MAX_CLASS_NAMES: usize = 1 << 14;

thread_local! {
    static CLASS_NAMES: RefCell<ClassNames> = RefCell::default();
}

/// Empties this thread's class names, as their cache does when full.
#[cfg(test)]
pub(super) fn clear_class_names() {
    CLASS_NAMES.with(|n| n.borrow_mut().clear());
}

/// A page's vectors, emptied, for the thread's next page: growing new
/// ones to a page's thousands of elements copied them several times over.
type Kept = (Vec<Element>, Vec<Event>, String);

thread_local! {
    static KEPT: RefCell<Kept> = RefCell::default();
}

/// Past this many elements (or bytes of text) a page's vectors are not
/// kept for the next one.
const MAX_KEPT: usize = 1 << 16;

impl Drop for Dom {
    fn drop(&mut self) {
        if self.elements.capacity() > MAX_KEPT || self.text.capacity() > 16 * MAX_KEPT {
            return;
        }
        self.elements.clear();
        self.events.clear();
        self.text.clear();
        let _ = KEPT.try_with(|kept| {
            if let Ok(mut kept) = kept.try_borrow_mut() {
                if kept.0.capacity() < self.elements.capacity() {
                    std::mem::swap(&mut kept.0, &mut self.elements);
                }
                if kept.1.capacity() < self.events.capacity() {
                    std::mem::swap(&mut kept.1, &mut self.events);
                }
                if kept.2.capacity() < self.text.capacity() {
                    std::mem::swap(&mut kept.2, &mut self.text);
                }
            }
        });
    }
}

/// Builds a [`Dom`] from a walk of a parsed page (elements opened and
/// closed, text in between), or straight from our tree builder's steps
/// (see [`super::builder`]).
pub(super) struct DomBuilder {
    dom: Dom,
    /// Open elements, innermost last; of those, the block ones.
    stack: Vec<u32>,
    block_stack: Vec<u32>,
    /// This thread's [`CLASS_NAMES`], taken for the page.
    names: ClassNames,
    /// Scratch space for an element's `class_id`.
    scratch: String,
    empty: Rc<str>,
    /// The element whose last child is the text node being built, if
    /// any: text appended to it joins that node (as a tree's text node
    /// takes the text appended next to it).
    text_owner: Option<u32>,
    /// The text of a `<title>`'s node so far, while the page has no
    /// title: the title is the first such node with words.
    title_text: String,
}

impl DomBuilder {
    /// A builder for a page of `page_bytes` bytes, its text reserved once
    /// rather than grown (and copied) step by step.
    pub(super) fn for_page(page_bytes: usize) -> DomBuilder {
        let mut builder = DomBuilder::new(page_bytes / 256);
        builder.dom.text.reserve(page_bytes / 4);
        builder
    }

    pub(super) fn new(elements: usize) -> DomBuilder {
        let mut names = CLASS_NAMES.with(|n| std::mem::take(&mut *n.borrow_mut()));
        if names.len() > MAX_CLASS_NAMES {
            names.clear();
        }
        let empty = match names.get("") {
            Some((name, _)) => name.clone(),
            None => Rc::from(""),
        };
        let (mut kept_elements, mut events, text) = KEPT
            .try_with(|k| k.try_borrow_mut().map(|mut k| std::mem::take(&mut *k)))
            .ok()
            .and_then(Result::ok)
            .unwrap_or_default();
        kept_elements.reserve(elements);
        events.reserve(elements * 2);
        let dom = Dom {
            elements: kept_elements,
            events,
            text,
            title: None,
            body: None,
        };
        DomBuilder {
            dom,
            stack: Vec::new(),
            block_stack: Vec::new(),
            names,
            scratch: String::new(),
            empty,
            text_owner: None,
            title_text: String::new(),
        }
    }

    /// The flat view built, the class names given back to the thread.
    pub(super) fn finish(mut self) -> Dom {
        self.end_text();
        while !self.stack.is_empty() {
            self.close();
        }
        let names = self.names;
        CLASS_NAMES.with(|n| *n.borrow_mut() = names);
        self.dom
    }

    /// The innermost open element.
    #[inline]
    pub(super) fn top(&self) -> Option<u32> {
        self.stack.last().copied()
    }

    /// Whether `element` has been closed.
    #[inline]
    pub(super) fn is_closed(&self, element: u32) -> bool {
        self.dom.elements[element as usize].close != 0
    }

    /// The text node being built ends (an element or a comment comes
    /// next to it).
    #[inline(always)]
    pub(super) fn end_text(&mut self) {
        // Called at every element and text run: only a `<title>`'s text
        // leaves work, kept out of line.
        if self.text_owner.take().is_some() && !self.title_text.is_empty() {
            self.end_title_text();
        }
    }

    #[cold]
    fn end_title_text(&mut self) {
        if self.dom.title.is_none() {
            let t = self
                .title_text
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            if !t.is_empty() {
                self.dom.title = Some(t);
            }
        }
        self.title_text.clear();
    }

    /// `class` and `id`, lower-cased, space separated, shared with the
    /// elements of this and earlier pages that carry the same, and its
    /// weight.
    fn class_id(&mut self, class: Option<&str>, id: Option<&str>) -> (Rc<str>, usize, f64) {
        let scratch = &mut self.scratch;
        scratch.clear();
        let mut class_len = 0;
        for (i, v) in [class, id].into_iter().enumerate() {
            if let Some(v) = v {
                scratch.push_str(v);
                scratch.push(' ');
            }
            if i == 0 {
                class_len = scratch.len();
            }
        }
        if scratch.is_empty() {
            return (self.empty.clone(), 0, 0.0);
        }
        if let Some((name, weight)) = self.names.get(scratch.as_str()) {
            return (name.clone(), class_len, *weight);
        }
        let written: Rc<str> = Rc::from(scratch.as_str());
        scratch.make_ascii_lowercase();
        let name = if *written == **scratch {
            written.clone()
        } else {
            Rc::from(scratch.as_str())
        };
        let weight = super::main_content::class_weight(&name);
        self.names.insert(written, (name.clone(), weight));
        (name, class_len, weight)
    }

    fn open(
        &mut self,
        node: Option<ego_tree::NodeId>,
        name: &QualName,
        class: Option<&str>,
        id: Option<&str>,
        itemprop: &str,
    ) {
        // An HTML name is lower-case already: reading an atom's bytes to
        // check looks a static one up first, for every element.
        let tag = if name.ns == ns!(html) {
            Tag(name.local.clone())
        } else {
            Tag::of(name)
        };
        self.open_tag(node, tag, class, id, itemprop);
    }

    /// Opens an HTML element inside the innermost open one; its index.
    pub(super) fn open_html(
        &mut self,
        name: LocalName,
        class: Option<&str>,
        id: Option<&str>,
        itemprop: &str,
    ) -> u32 {
        let index = self.dom.elements.len() as u32;
        self.open_tag(None, Tag(name), class, id, itemprop);
        index
    }

    /// Gives an element other `class`, `id` and `itemprop` values (a
    /// second `<html>` or `<body>` adds those the first lacked).
    pub(super) fn set_attributes(
        &mut self,
        element: u32,
        class: Option<&str>,
        id: Option<&str>,
        itemprop: &str,
    ) {
        let (class_id, class_len, class_weight) = self.class_id(class, id);
        let el = &mut self.dom.elements[element as usize];
        el.class_id = class_id;
        el.class_len = class_len;
        el.class_weight = class_weight;
        el.itemprop = itemprop.to_ascii_lowercase();
    }

    fn open_tag(
        &mut self,
        node: Option<ego_tree::NodeId>,
        tag: Tag,
        class: Option<&str>,
        id: Option<&str>,
        itemprop: &str,
    ) {
        self.end_text();
        let atom = tag.name();
        let (class_id, class_len, class_weight) = self.class_id(class, id);
        let dom = &mut self.dom;
        let parent = self.stack.last().copied();
        let (parent_dropped, parent_link, parent_bold, depth) = parent
            .map(|p| {
                let p = &dom.elements[p as usize];
                (p.dropped, p.in_link, p.in_bold, p.depth + 1)
            })
            .unwrap_or((false, false, false, 0));
        let index = dom.elements.len() as u32;
        if *atom == local_name!("body") && dom.body.is_none() {
            dom.body = Some(index);
        }
        let is_block = is_block_tag(atom);
        let dropped = parent_dropped || is_dropped_tag(atom);
        let in_link = parent_link || *atom == local_name!("a");
        let in_bold = parent_bold || matches!(*atom, local_name!("b") | local_name!("strong"));
        // Room made before the element is: pushed, it was made on the
        // stack and copied (the push may grow the vector in between).
        dom.elements.reserve(1);
        dom.elements.spare_capacity_mut()[0].write(Element {
            node,
            dropped,
            in_link,
            in_bold,
            is_block,
            // Most elements have none: no call to lower an empty name.
            itemprop: if itemprop.is_empty() {
                String::new()
            } else {
                itemprop.to_ascii_lowercase()
            },
            class_weight,
            tag,
            class_id,
            class_len,
            parent,
            depth,
            open: dom.events.len() as u32,
            close: 0,
            stats: Stats {
                tags: 1,
                ..Stats::default()
            },
            inline: Stats::default(),
        });
        // SAFETY: the element after the last has just been written.
        unsafe { dom.elements.set_len(index as usize + 1) };
        dom.events.push(Event::Open(index));
        self.stack.push(index);
        if is_block {
            self.block_stack.push(index);
        }
    }

    /// A text node of the innermost open element.
    fn text(&mut self, t: &str) {
        self.end_text();
        self.append_text(t);
        self.end_text();
    }

    /// Text appended to the innermost open element: it joins the text
    /// node before it, if that is the element's last child.
    pub(super) fn append_text(&mut self, t: &str) {
        let Some(&owner) = self.stack.last() else {
            return;
        };
        let joins = self.text_owner == Some(owner);
        if !joins {
            self.end_text();
            self.text_owner = Some(owner);
        }
        let dom = &mut self.dom;
        let owner_el = &dom.elements[owner as usize];
        if *owner_el.tag.name() == local_name!("title") {
            if dom.title.is_none() {
                self.title_text.push_str(t);
            }
            return;
        }
        if owner_el.dropped {
            return;
        }
        let start = dom.text.len() as u32;
        dom.text.push_str(t);
        let end = dom.text.len() as u32;
        let mut stats = Stats::default();
        count_text(t, &mut stats);
        if owner_el.in_link {
            stats.link_chars = stats.chars;
        }
        let own = &mut dom.elements[owner as usize].stats;
        own.chars += stats.chars;
        own.link_chars += stats.link_chars;
        own.han += stats.han;
        own.punct += stats.punct;
        if let Some(&block) = self.block_stack.last() {
            let inline = &mut dom.elements[block as usize].inline;
            inline.chars += stats.chars;
            inline.link_chars += stats.link_chars;
            inline.han += stats.han;
            inline.punct += stats.punct;
        }
        match dom.events.last_mut() {
            Some(Event::Text(_, last_end)) if joins && *last_end == start => *last_end = end,
            _ => dom.events.push(Event::Text(start, end)),
        }
    }

    pub(super) fn close(&mut self) {
        self.end_text();
        let dom = &mut self.dom;
        let Some(index) = self.stack.pop() else {
            return;
        };
        if self.block_stack.last() == Some(&index) {
            self.block_stack.pop();
        }
        dom.elements[index as usize].close = dom.events.len() as u32;
        dom.events.push(Event::Close(index));
        let el = &dom.elements[index as usize];
        let (stats, is_p, dropped) = (
            el.stats.clone(),
            *el.tag.name() == local_name!("p"),
            el.dropped,
        );
        // Lines broken by <br> still make one paragraph block.
        let counts =
            el.is_block && !matches!(*el.tag.name(), local_name!("br") | local_name!("hr"));
        if let Some(parent) = el.parent {
            let p = &mut dom.elements[parent as usize].stats;
            if !dropped {
                p.chars += stats.chars;
                p.link_chars += stats.link_chars;
                p.han += stats.han;
                p.punct += stats.punct;
                p.paragraphs += stats.paragraphs + u32::from(is_p);
                p.blocks += stats.blocks + u32::from(counts);
            }
            p.tags += stats.tags;
        }
    }
}

impl Dom {
    /// Parses a page into the extractor's lean tree (see [`super::sink`])
    /// and flattens it.
    pub fn parse(html: impl Into<html5ever::tendril::StrTendril>) -> Dom {
        let html = html.into();
        let page_bytes = html.len();
        Dom::flatten(super::sink::Tree::parse(html), page_bytes)
    }

    /// Parses a page as [`Dom::parse`] parses what
    /// [`super::nesting::for_parsing`] makes of it, without making it
    /// (see [`super::sink::Tree::parse_page`]).
    pub fn parse_page(html: &str, max_depth: usize) -> Dom {
        let page = html5ever::tendril::StrTendril::from_slice(html);
        // Most pages need none of html5ever's harder repairs: our builder
        // makes their flat view, and gives the rest back.
        let fast = super::builder::FlatTreeBuilder::new(html.len());
        // Lexing stops where our builder gives up (a table, say), as the
        // page is parsed again from the start.
        if super::lexer::feed_pruned_until(&page, &fast, max_depth, || fast.gave_up()).is_ok() {
            if let Some(dom) = fast.finish() {
                return dom;
            }
        } else {
            fast.finish();
        }
        Dom::flatten(super::sink::Tree::parse_page(page, max_depth), html.len())
    }

    pub(super) fn flatten(tree: super::sink::Tree, page_bytes: usize) -> Dom {
        use super::sink::Data;
        let mut builder = DomBuilder::new(tree.nodes.len());
        // The text is a part of the page: reserved once rather than grown
        // (and copied) step by step.
        builder.dom.text.reserve(page_bytes / 4);
        tree.walk(|id, enter| match (&tree.nodes[id as usize].data, enter) {
            (
                Data::Element {
                    name,
                    class,
                    id,
                    itemprop,
                },
                true,
            ) => builder.open(
                None,
                name,
                class.as_deref(),
                id.as_deref(),
                itemprop.as_deref().unwrap_or(""),
            ),
            (Data::Element { .. }, false) => builder.close(),
            (Data::Text(t), true) => builder.text(t),
            _ => {}
        });
        tree.recycle();
        builder.finish()
    }

    /// The flat view of a document parsed by scraper (for callers that
    /// edit the page: each element keeps its node).
    pub fn of(document: &Html) -> Dom {
        let mut builder = DomBuilder::new(0);
        for edge in document.tree.root().traverse() {
            match edge {
                Edge::Open(node) => match node.value() {
                    Node::Element(e) => {
                        // One pass over the attributes: looking each name up
                        // would intern it every time.
                        let (mut class, mut id, mut itemprop) = (None, None, "");
                        for (name, value) in e.attrs() {
                            match name {
                                "class" => class = class.or(Some(value)),
                                "id" => id = id.or(Some(value)),
                                "itemprop" if itemprop.is_empty() => itemprop = value,
                                _ => {}
                            }
                        }
                        builder.open(Some(node.id()), &e.name, class, id, itemprop);
                    }
                    Node::Text(t) => builder.text(t),
                    _ => {}
                },
                Edge::Close(node) => {
                    if let Node::Element(_) = node.value() {
                        builder.close();
                    }
                }
            }
        }
        builder.finish()
    }

    /// The text of an element's subtree, one line per block, skipping
    /// dropped elements and those `skip` says to leave out.
    pub fn render(&self, element: u32, skip: &dyn Fn(u32) -> bool) -> Vec<Line> {
        let el = &self.elements[element as usize];
        let mut lines = Vec::new();
        let mut line = LineBuilder::default();
        let mut blocks: Vec<u32> = vec![element];
        let mut i = el.open as usize;
        let end = el.close as usize;
        while i <= end && i < self.events.len() {
            match self.events[i] {
                Event::Open(e) => {
                    let child = &self.elements[e as usize];
                    if e != element && (child.dropped || skip(e)) {
                        i = child.close as usize + 1;
                        continue;
                    }
                    if child.is_block && e != element {
                        line.flush(self, &mut lines);
                        blocks.push(e);
                    }
                }
                Event::Close(e) => {
                    if self.elements[e as usize].is_block && e != element {
                        line.flush(self, &mut lines);
                        blocks.pop();
                    }
                }
                Event::Text(a, b) => {
                    let text = &self.text[a as usize..b as usize];
                    if fold_more(text, &mut line.folded, &mut line.space) {
                        line.owner.get_or_insert(*blocks.last().unwrap_or(&element));
                        // The text's own element is the innermost open one;
                        // find it from the event just before.
                        let bold = self.text_is_bold(i);
                        line.all_bold = line.all_bold.map(|b| b && bold).or(Some(bold));
                    }
                }
            }
            i += 1;
        }
        line.flush(self, &mut lines);
        lines
    }

    /// Whether the text event at `i` sits inside `<b>`/`<strong>`.
    pub fn text_is_bold(&self, i: usize) -> bool {
        // Walk back to the nearest open or close event: an Open(e) means the
        // text is in e; a Close(e) means it is in e's parent.
        let mut j = i;
        while j > 0 {
            j -= 1;
            match self.events[j] {
                Event::Open(e) => return self.elements[e as usize].in_bold,
                Event::Close(e) => {
                    return self.elements[e as usize]
                        .parent
                        .map(|p| self.elements[p as usize].in_bold)
                        .unwrap_or(false)
                }
                Event::Text(..) => {}
            }
        }
        false
    }

    pub fn link_density(&self, element: u32) -> f64 {
        let s = &self.elements[element as usize].stats;
        if s.chars == 0 {
            0.0
        } else {
            f64::from(s.link_chars) / f64::from(s.chars)
        }
    }

    /// Whether `inner` is `outer` or inside it.
    pub fn contains(&self, outer: u32, inner: u32) -> bool {
        let (o, i) = (
            &self.elements[outer as usize],
            &self.elements[inner as usize],
        );
        o.open <= i.open && i.close <= o.close
    }
}

/// Whether ASCII byte `b` is whitespace as `char::is_whitespace` has it:
/// `u8::is_ascii_whitespace` leaves out the vertical tab (0x0B).
#[inline]
pub(crate) const fn is_ascii_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' ')
}

/// The character starting at byte `i` of `text` (a character boundary):
/// whether it is whitespace (`char::is_whitespace`), and its width. ASCII
/// and the lead bytes no whitespace character starts with are settled
/// without decoding.
#[inline]
fn whitespace_at(text: &str, i: usize) -> (bool, usize) {
    let b = text.as_bytes()[i];
    match b {
        0..=0x7F => (is_ascii_space(b), 1),
        // Non-ASCII whitespace is U+0085, U+00A0, U+1680, U+2000-U+205F
        // and U+3000: lead bytes C2, E1, E2 and E3.
        0xC2 | 0xE1..=0xE3 => {
            let c = text[i..].chars().next().unwrap_or(' ');
            (c.is_whitespace(), c.len_utf8())
        }
        0x80..=0xDF => (false, 2),
        0xE0..=0xEF => (false, 3),
        _ => (false, 4),
    }
}

/// Bytes a whitespace character can start with: ASCII whitespace and the
/// lead bytes of the others (see [`whitespace_at`]). Continuation bytes
/// are never among them, so a scan may step a byte at a time.
static MAY_START_SPACE: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = matches!(
            b as u8,
            b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' ' | 0xC2 | 0xE1..=0xE3
        );
        b += 1;
    }
    t
};

/// The first byte from `i` on that a whitespace character may start with
/// (or `bytes.len()`): every byte [`MAY_START_SPACE`] marks, and maybe
/// other control bytes, which the caller reads again. 16 bytes a step with
/// SSE2 (part of every x86-64), then the table.
#[inline]
fn next_may_start_space(bytes: &[u8], mut i: usize) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8,
            _mm_or_si128, _mm_set1_epi8, _mm_sub_epi8,
        };
        while i + 16 <= bytes.len() {
            // SAFETY: `i + 16 <= bytes.len()`; the load is unaligned.
            let mask = unsafe {
                let v = _mm_loadu_si128(bytes.as_ptr().add(i) as *const __m128i);
                // Bytes up to 0x20 (ASCII whitespace among them): those
                // whose unsigned minimum with 0x20 is themselves.
                let low = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x20)), v);
                // E1, E2 and E3: at most 2 once E1 is taken off.
                let e = _mm_sub_epi8(v, _mm_set1_epi8(0xE1_u8 as i8));
                let lead = _mm_cmpeq_epi8(_mm_min_epu8(e, _mm_set1_epi8(2)), e);
                let c2 = _mm_cmpeq_epi8(v, _mm_set1_epi8(0xC2_u8 as i8));
                _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(low, lead), c2)) as u32
            };
            if mask != 0 {
                return i + mask.trailing_zeros() as usize;
            }
            i += 16;
        }
    }
    while i < bytes.len() && !MAY_START_SPACE[usize::from(bytes[i])] {
        i += 1;
    }
    i
}

/// Appends `text`'s words to `out`, one space between them, as
/// `split_whitespace` and a join would.
#[cfg(test)]
fn fold_whitespace(text: &str, out: &mut String) {
    fold_more(text, out, &mut false);
}

/// Appends `text`'s words to the line folded so far in `out`, as
/// [`fold_whitespace`] would fold the line's texts joined: `space` says
/// whether whitespace ended the texts before, so a word split over two
/// texts (`<b>wo</b>rd`) stays one. Returns whether `text` had a word.
fn fold_more(text: &str, out: &mut String, space: &mut bool) -> bool {
    let bytes = text.as_bytes();
    let n = bytes.len();
    let mut i = 0;
    let mut any = false;
    loop {
        while i < n {
            match whitespace_at(text, i) {
                (true, width) => {
                    i += width;
                    *space = true;
                }
                (false, _) => break,
            }
        }
        if i >= n {
            return any;
        }
        let start = i;
        // A word runs to the next whitespace character; only the bytes
        // one may start with are looked at closely.
        loop {
            i = next_may_start_space(bytes, i);
            if i >= n || whitespace_at(text, i).0 {
                break;
            }
            i += 1;
        }
        if *space && !out.is_empty() {
            out.push(' ');
        }
        *space = false;
        any = true;
        out.push_str(&text[start..i]);
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    Paragraph,
    /// An `h2`-`h6` line, or a short line all in bold.
    Heading,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub text: String,
    pub kind: LineKind,
}

#[derive(Default)]
struct LineBuilder {
    /// The line's words so far, folded as they come (see [`fold_more`]):
    /// most flushes find only the whitespace between two blocks, and
    /// allocate nothing.
    folded: String,
    /// Whitespace after the last word.
    space: bool,
    owner: Option<u32>,
    all_bold: Option<bool>,
}

impl LineBuilder {
    fn flush(&mut self, dom: &Dom, lines: &mut Vec<Line>) {
        let folded = &mut self.folded;
        if !folded.is_empty() {
            let heading = match self.owner.map(|o| dom.elements[o as usize].tag.name()) {
                Some(
                    &local_name!("h2")
                    | &local_name!("h3")
                    | &local_name!("h4")
                    | &local_name!("h5")
                    | &local_name!("h6"),
                ) => true,
                _ => {
                    self.all_bold == Some(true)
                        && !folded.ends_with(['.', '。', ':', '：'])
                        && folded.chars().count() <= 40
                }
            };
            lines.push(Line {
                text: folded.as_str().to_owned(),
                kind: if heading {
                    LineKind::Heading
                } else {
                    LineKind::Paragraph
                },
            });
        }
        folded.clear();
        self.space = false;
        self.owner = None;
        self.all_bold = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether rendering's fold finds a word in `text` on its own.
    fn has_word(text: &str) -> bool {
        fold_more(text, &mut String::new(), &mut false)
    }

    /// Line folding is `split_whitespace` joined by single spaces.
    fn assert_folds_like_split_whitespace(text: &str) {
        let mut folded = String::new();
        fold_whitespace(text, &mut folded);
        assert_eq!(
            folded,
            text.split_whitespace().collect::<Vec<_>>().join(" "),
            "{text:?}"
        );
    }

    #[test]
    fn text_is_counted_as_characters_whatever_their_width() {
        let mut s = Stats::default();
        // ASCII (vertical tab and form feed are whitespace too), a
        // no-break space, Han, CJK punctuation, an ideographic space.
        count_text("a,b.\u{0B}\u{0C}\u{A0}中文，。 x\u{3000}!é", &mut s);
        assert_eq!((s.chars, s.han, s.punct), (11, 2, 5));
        // Each character of the blocks read by lead byte alone (E3, E4
        // and E5-E9), by itself, against the rule.
        for c in (0x3000..0xA000_u32).filter_map(char::from_u32) {
            let mut s = Stats::default();
            count_text(&c.to_string(), &mut s);
            let word = !c.is_whitespace();
            let han = word && is_han(c);
            let punct = word && !han && matches!(c, '，' | '。' | '！' | '？' | '；' | '、');
            assert_eq!(
                (s.chars, s.han, s.punct),
                (u32::from(word), u32::from(han), u32::from(punct)),
                "{c:?}"
            );
        }
        // Every character around the Han blocks, against the rule read a
        // character at a time.
        let text: String = (0x2F00..0xA100_u32)
            .chain(0xFF00..0xFF20)
            .filter_map(char::from_u32)
            .collect();
        let mut s = Stats::default();
        count_text(&text, &mut s);
        let words: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
        let han = words.iter().filter(|&&c| is_han(c)).count() as u32;
        let punct = words
            .iter()
            .filter(|&&c| !is_han(c) && matches!(c, '，' | '。' | '！' | '？' | '；' | '、'))
            .count() as u32;
        assert_eq!((s.chars, s.han, s.punct), (words.len() as u32, han, punct));
    }

    #[test]
    fn sixteen_bytes_at_once_count_as_one_at_a_time() {
        // Runs long and short of ASCII words, whitespace, punctuation and
        // other characters, so that 16-byte chunks start everywhere and
        // end inside multi-byte characters (blank and folded text ride
        // along, against their plain definitions).
        let pieces = [
            "a",
            "word ",
            ",",
            ".",
            "!",
            "?",
            ";",
            ":",
            " ",
            "\t",
            "\n",
            "\u{0B}",
            "\u{0C}",
            "\r",
            "\u{A0}",
            "中",
            "，",
            "é",
            "\u{3000}",
            "\u{85}",
            "0123456789abcdef",
            "                ",
            "\u{1F600}",
            "\u{7F}",
            "\u{8}",
        ];
        let mut seed = 0x2545_F491_4F6C_DD1D_u64;
        for _ in 0..3000 {
            let mut text = String::new();
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            for k in 0..(seed % 40) {
                let pick = (seed.rotate_left(k as u32 * 5) % pieces.len() as u64) as usize;
                text.push_str(pieces[pick]);
            }
            let mut fast = Stats::default();
            count_text(&text, &mut fast);
            let words: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
            let punct = words
                .iter()
                .filter(|&&c| {
                    matches!(
                        c,
                        ',' | '.' | '!' | '?' | ';' | '，' | '。' | '！' | '？' | '；' | '、'
                    )
                })
                .count() as u32;
            let han = words.iter().filter(|&&c| is_han(c)).count() as u32;
            assert_eq!(
                (fast.chars, fast.han, fast.punct),
                (words.len() as u32, han, punct),
                "{text:?}"
            );
            assert_eq!(has_word(&text), !text.trim().is_empty(), "{text:?}");
            assert_folds_like_split_whitespace(&text);
        }
    }

    #[test]
    fn whitespace_is_folded_as_split_whitespace_does() {
        let spaces: Vec<char> = (0..=0x10FFFF_u32)
            .filter_map(char::from_u32)
            .filter(|c| c.is_whitespace())
            .collect();
        let mut cases: Vec<String> = ["", " ", "a", " a  b ", "中文 字", "\u{3000}x\u{A0}y\u{85}"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        // Every whitespace character between and around words, and
        // characters that share a lead byte with one but are not.
        for &c in &spaces {
            cases.push(format!("{c}w{c}\u{A9}{c}{c}\u{1681}\u{2010}é{c}"));
        }
        cases.push("\u{2060}\u{3001}\u{1F600}\u{80}\u{FF}".to_string());
        for text in &cases {
            assert_folds_like_split_whitespace(text);
            assert_eq!(has_word(text), !text.trim().is_empty(), "{text:?}");
        }
        // A line's texts folded in turn, as rendering folds them: cut at
        // every character boundary, and into single characters.
        let pieces = |parts: &[&str]| {
            let (mut out, mut space) = (String::new(), false);
            for part in parts {
                let had = fold_more(part, &mut out, &mut space);
                assert_eq!(had, !part.trim().is_empty(), "{part:?}");
            }
            out
        };
        for text in &cases {
            let mut whole = String::new();
            fold_whitespace(text, &mut whole);
            for (at, _) in text.char_indices() {
                assert_eq!(
                    pieces(&[&text[..at], &text[at..]]),
                    whole,
                    "{text:?} at {at}"
                );
            }
            let chars: Vec<String> = text.chars().map(String::from).collect();
            let chars: Vec<&str> = chars.iter().map(String::as_str).collect();
            assert_eq!(pieces(&chars), whole, "{text:?}");
        }
    }

    #[test]
    fn a_word_ends_where_split_whitespace_ends_it_at_every_offset() {
        // Each whitespace character, the characters that share its lead
        // byte but are not whitespace, and control bytes, at every place
        // of long words (so that the 16-byte steps find them in each lane
        // and in the table's tail), between ASCII and Chinese.
        let mut marks: Vec<char> = (0..=0x10FFFF_u32)
            .filter_map(char::from_u32)
            .filter(|c| c.is_whitespace())
            .collect();
        marks.extend([
            '\u{0}', '\u{8}', '\u{E}', '\u{1F}', '\u{A9}', '\u{1681}', '\u{2010}', '\u{3001}',
            '中', 'é',
        ]);
        for &mark in &marks {
            for filler in ["abcdefghijklmnopqrstuvwxyz0123456789", "中文字词句段篇章节"] {
                for at in 0..=filler.chars().count() {
                    let word: String = filler.chars().take(at).collect();
                    let rest: String = filler.chars().skip(at).collect();
                    for text in [
                        format!("{word}{mark}{rest}"),
                        format!("{word}{mark}{rest}{mark}{word}"),
                    ] {
                        assert_folds_like_split_whitespace(&text);
                    }
                }
            }
        }
    }

    #[test]
    fn class_names_are_lowered_and_weighed_whatever_their_spelling() {
        let spellings: [(Option<&str>, Option<&str>); 10] = [
            (Some("Nav Main"), None),
            (Some("nav main"), None),
            (Some("NAV MAIN"), None),
            (None, Some("Post-1")),
            (Some("nav main"), Some("Post-1")),
            (Some(""), None),
            (Some("Sidebar"), Some("X")),
            (Some("sidebar"), Some("x")),
            (Some("ARTICLE-Body"), None),
            (None, None),
        ];
        // Twice with the names kept from the first page, then anew.
        for clear in [true, false, true] {
            if clear {
                clear_class_names();
            }
            let mut builder = DomBuilder::new(16);
            for (class, id) in spellings {
                builder.open_html(local_name!("div"), class, id, "");
                builder.close();
            }
            let dom = builder.finish();
            for ((class, id), el) in spellings.iter().zip(&dom.elements) {
                let mut expected = String::new();
                if let Some(c) = class {
                    expected.push_str(c);
                    expected.push(' ');
                }
                let class_len = expected.len();
                if let Some(i) = id {
                    expected.push_str(i);
                    expected.push(' ');
                }
                expected.make_ascii_lowercase();
                assert_eq!(&*el.class_id, expected, "{class:?} {id:?}");
                assert_eq!(el.class_len, class_len, "{class:?} {id:?}");
                assert_eq!(
                    el.class_weight,
                    super::super::main_content::class_weight(&expected),
                    "{class:?} {id:?}"
                );
            }
            assert_eq!(dom.elements[8].class_weight, 25.0);
            assert_eq!(dom.elements[6].class_weight, -25.0);
        }
    }

    #[test]
    fn names_are_matched_as_the_parser_interns_them() {
        let dom = Dom::parse(
            "<html><head><title>T</title></head><body><DIV>a<B>b</B><a href=x>c</a>\
             <svg><foreignObject><p>d</p></foreignObject></svg><hr><p>e</p></DIV></body></html>",
        );
        let find = |tag: &str| dom.elements.iter().find(|e| e.tag == tag).unwrap();
        assert_eq!(dom.body, Some(3));
        assert!(find("div").is_block && !find("div").dropped);
        assert!(find("b").in_bold && find("a").in_link);
        assert!(find("svg").dropped && find("foreignobject").dropped);
        // <hr> breaks lines but is no paragraph block of its parent, and
        // the <p> in the dropped <svg> counts for nothing.
        let div = &find("div").stats;
        assert_eq!((div.blocks, div.paragraphs), (1, 1));
        assert_eq!(dom.title.as_deref(), Some("T"));
    }
}
