//! Tokens for html5ever's tree builder in one pass over the page.
//!
//! html5ever's tokenizer reads a page a character at a time through a
//! queue of buffers; this lexer finds the next `<` (and `&` or NUL in
//! text) with `memchr` and hands the text between as slices of the page,
//! sharing its buffer. It follows the tokenizer of the HTML standard as
//! html5ever implements it (character references with and without
//! semicolons, the windows-1252 table for `&#128;`-`&#159;`, NULs, raw
//! text ended only by the appropriate end tag, the tree builder's switches
//! to RCDATA, RAWTEXT, script data and PLAINTEXT), so the tree built is the
//! same. Comments reach the tree builder without their text, which no one
//! reads; a doctype goes through html5ever's own tokenizer, its quirks
//! rules being many.
//!
//! Two rare constructs are left to html5ever's tokenizer for the whole
//! page ([`Unsupported`]): CDATA sections in SVG or MathML, and scripts
//! whose text opens a comment (the standard's escaped script states).

use std::borrow::Cow;
use std::cell::RefCell;

use html5ever::data::{C1_REPLACEMENTS, NAMED_ENTITIES};
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, Doctype, Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};
use html5ever::{local_name, ns, Attribute, LocalName, QualName};

/// What the lexer feeds: html5ever's [`TokenSink`] (every one is a
/// `Sink`), or a sink that reads a page's text and its tags where they
/// lie: our tree builder takes most of a page's tokens without keeping
/// them, and handing each over (a tendril made of the page for every text
/// run, a new attribute vector dropped after every tag) was about a tenth
/// of its instructions.
pub trait Sink {
    type Handle;

    /// A token other than a tag or a run of the page's text.
    fn token(&self, token: Token) -> TokenSinkResult<Self::Handle>;

    /// The page's text `[from, to)` (not empty; character boundaries), as
    /// it stands.
    fn page_text(&self, page: &StrTendril, from: usize, to: usize);

    /// A tag, lent: what the sink leaves in it is dropped.
    fn tag(&self, tag: &mut Tag) -> TokenSinkResult<Self::Handle>;

    fn end(&self);

    /// See [`TokenSink::adjusted_current_node_present_but_not_in_html_namespace`].
    fn in_foreign_content(&self) -> bool;
}

impl<T: TokenSink> Sink for T {
    type Handle = T::Handle;

    #[inline]
    fn token(&self, token: Token) -> TokenSinkResult<T::Handle> {
        self.process_token(token, 1)
    }

    #[inline]
    fn page_text(&self, page: &StrTendril, from: usize, to: usize) {
        let text = if page.is_char_boundary(from) && page.is_char_boundary(to) {
            // SAFETY: `from..to` lies within the page (`to` is a boundary,
            // so at most its length) and both ends are character
            // boundaries.
            unsafe { page.unsafe_subtendril(from as u32, (to - from) as u32) }
        } else {
            page.subtendril(from as u32, (to - from) as u32)
        };
        let _ = self.process_token(Token::CharacterTokens(text), 1);
    }

    #[inline]
    fn tag(&self, tag: &mut Tag) -> TokenSinkResult<T::Handle> {
        let tag = Tag {
            kind: tag.kind,
            name: std::mem::take(&mut tag.name),
            self_closing: tag.self_closing,
            attrs: std::mem::take(&mut tag.attrs),
            had_duplicate_attributes: tag.had_duplicate_attributes,
        };
        self.process_token(Token::TagToken(tag), 1)
    }

    fn end(&self) {
        TokenSink::end(self)
    }

    fn in_foreign_content(&self) -> bool {
        self.adjusted_current_node_present_but_not_in_html_namespace()
    }
}

/// The page holds markup this lexer leaves to html5ever's tokenizer.
#[derive(Debug, PartialEq, Eq)]
pub struct Unsupported;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum State {
    Data,
    Rcdata,
    Rawtext,
    ScriptData,
    Plaintext,
}

/// Feeds `page` to `sink` as html5ever's tokenizer would, ending with the
/// end-of-file token and `sink.end()`; with `every_attribute` false, tags
/// carry only the attributes that can matter to the extraction (see
/// [`super::nesting::keeps_attribute`]), the rest being most of a page's
/// markup. On `Err` the sink has seen part of the page and should be
/// dropped.
pub fn feed<S: Sink>(
    page: &StrTendril,
    sink: &S,
    every_attribute: bool,
) -> Result<(), Unsupported> {
    // The tokenizer reads CR LF and a lone CR as LF, everywhere.
    if memchr::memchr(b'\r', page.as_bytes()).is_some() {
        let normalised = page.replace("\r\n", "\n").replace('\r', "\n");
        return feed(&StrTendril::from_slice(&normalised), sink, every_attribute);
    }
    Lexer::new(page, sink, every_attribute, None, &|| false).run()
}

/// Feeds the whole page as [`feed`] feeds what
/// [`super::nesting::for_parsing`] makes of it, without making it: the
/// pre-pass's pieces are read from the tokens as they come (comments,
/// scripts, styles and the head's metadata skipped, nesting counted), so
/// the page is read once instead of twice and never copied. Where the
/// pre-pass's reading and the tokenizer's could part (a quote where no
/// value opens, a dropped piece that would join what surrounds it into
/// other markup, a raw-text element the pre-pass does not see as one,
/// nesting past `max_depth`, a carriage return or byte order mark), it
/// gives up with `Err`, the sink having seen part of the page: the
/// caller then prepares the page and feeds that.
pub fn feed_pruned<S: Sink>(
    page: &StrTendril,
    sink: &S,
    max_depth: usize,
) -> Result<(), Unsupported> {
    feed_pruned_until(page, sink, max_depth, || false)
}

/// [`feed_pruned`], stopping with `Err` after the first markup at which
/// `stop` holds: a tree builder that has given up on the page (its tree
/// will not be used) need not be fed the rest.
pub fn feed_pruned_until<S: Sink>(
    page: &StrTendril,
    sink: &S,
    max_depth: usize,
    stop: impl Fn() -> bool,
) -> Result<(), Unsupported> {
    if memchr::memchr(b'\r', page.as_bytes()).is_some() || page.starts_with('\u{feff}') {
        return Err(Unsupported);
    }
    let gate = Gate {
        max_depth,
        in_head: true,
        ..Gate::default()
    };
    Lexer::new(page, sink, false, Some(gate), &stop).run()
}

/// The pre-pass's state (see `nesting::prepare`) while [`feed_pruned`]
/// reads the page itself.
#[derive(Default)]
struct Gate {
    depth: usize,
    max_depth: usize,
    in_head: bool,
    started: bool,
    /// The pre-pass passes a raw-text element through whole: nothing in
    /// `[.., opaque_until)` is dropped or counted.
    opaque_until: usize,
    /// The last start tag opened such an element (the tokenizer may then
    /// switch to raw text).
    raw_piece: bool,
    /// Where the last dropped piece ended.
    drop_end: usize,
}

struct Lexer<'a, S, F> {
    page: &'a StrTendril,
    s: &'a str,
    b: &'a [u8],
    sink: &'a S,
    state: State,
    /// The last start tag's name, which alone ends raw text.
    last_start: Option<LocalName>,
    every_attribute: bool,
    gate: Option<Gate>,
    stop: &'a F,
    /// The last tag's attribute vector, emptied, for the next tag.
    attrs: Vec<Attribute>,
}

fn is_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0c' | b' ')
}

/// How an attribute name's bytes after its first read (see [`NAME_BYTE`]).
const NAME_END: u8 = 1;
const NAME_QUOTE: u8 = 2;

/// Per byte: whether it ends an attribute name (whitespace, `/`, `>`,
/// `=`) or is a quote, which the name keeps but the pre-pass may read
/// as opening a value.
static NAME_BYTE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = match i as u8 {
            b'\t' | b'\n' | b'\x0c' | b' ' | b'/' | b'>' | b'=' => NAME_END,
            b'"' | b'\'' => NAME_QUOTE,
            _ => 0,
        };
        i += 1;
    }
    t
};

/// Per byte: whether it ends a tag's name (whitespace, `/`, `>`), one
/// load where four comparisons were.
static TAG_NAME_END: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = matches!(i as u8, b'\t' | b'\n' | b'\x0c' | b' ' | b'/' | b'>');
        i += 1;
    }
    t
};

/// How far [`find_any`] reads 16 bytes at a time before handing the rest
/// to memchr, whose wider loop is cheaper on long runs (a paragraph) but
/// whose call and set-up cost more than the few loads most searches in
/// markup need (the quote that closes `class="a"`, the `<` after a
/// newline).
const VECTOR_HEAD: usize = 64;

/// The first byte of `hay` equal to one of `needles` (one to three; a
/// search for fewer repeats one), as `memchr`, `memchr2` or `memchr3`
/// finds it: 16 bytes a step with SSE2 (part of every x86-64), the last
/// step overlapping the one before where fewer than 16 bytes are left.
#[inline(always)]
fn find_any<const N: usize>(needles: [u8; N], hay: &[u8]) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128,
            _mm_set1_epi8,
        };
        let len = hay.len();
        if len >= 16 {
            let at = |i: usize| -> u32 {
                // SAFETY: callers pass `i + 16 <= len`; the load is unaligned.
                unsafe {
                    let v = _mm_loadu_si128(hay.as_ptr().add(i) as *const __m128i);
                    let mut m = _mm_cmpeq_epi8(v, _mm_set1_epi8(needles[0] as i8));
                    for &n in &needles[1..] {
                        m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8(n as i8)));
                    }
                    _mm_movemask_epi8(m) as u32
                }
            };
            let mut i = 0;
            while i + 16 <= len {
                if i >= VECTOR_HEAD {
                    return memchr_any(needles, &hay[i..]).map(|k| i + k);
                }
                let mask = at(i);
                if mask != 0 {
                    return Some(i + mask.trailing_zeros() as usize);
                }
                i += 16;
            }
            if i == len {
                return None;
            }
            // The last 16 bytes, less those already read.
            let mask = at(len - 16) >> (i + 16 - len);
            return (mask != 0).then(|| i + mask.trailing_zeros() as usize);
        }
    }
    hay.iter().position(|x| needles.contains(x))
}

/// Of the 16 bytes of `chunk`, those equal to one of `needles`, as a bit
/// mask (bit `i` for byte `i`).
#[inline(always)]
fn mask16<const N: usize>(needles: [u8; N], chunk: &[u8]) -> u32 {
    debug_assert_eq!(chunk.len(), 16);
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128,
            _mm_set1_epi8,
        };
        if chunk.len() == 16 {
            // SAFETY: the load reads the 16 bytes of `chunk`, unaligned.
            return unsafe {
                let v = _mm_loadu_si128(chunk.as_ptr() as *const __m128i);
                let mut m = _mm_cmpeq_epi8(v, _mm_set1_epi8(needles[0] as i8));
                for &n in &needles[1..] {
                    m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8(n as i8)));
                }
                _mm_movemask_epi8(m) as u32
            };
        }
    }
    chunk
        .iter()
        .enumerate()
        .filter(|(_, x)| needles.contains(x))
        .fold(0, |m, (i, _)| m | 1 << i)
}

#[inline(always)]
fn memchr_any<const N: usize>(needles: [u8; N], hay: &[u8]) -> Option<usize> {
    match N {
        1 => memchr::memchr(needles[0], hay),
        2 => memchr::memchr2(needles[0], needles[1], hay),
        _ => memchr::memchr3(needles[0], needles[1], needles[N - 1], hay),
    }
}

/// A decoded character reference and the byte after it.
struct CharRef {
    chars: [char; 2],
    end: usize,
    /// Whether the tokenizer reports a parse error for it.
    error: bool,
}

impl CharRef {
    fn push_to(&self, out: &mut StrTendril) {
        out.push_char(self.chars[0]);
        if self.chars[1] != '\0' {
            out.push_char(self.chars[1]);
        }
    }
}

/// The character reference at `at` (which holds `&`), or `None` when the
/// `&` stands for itself.
fn char_ref(s: &str, at: usize, in_attribute: bool) -> Option<CharRef> {
    let b = s.as_bytes();
    match b.get(at + 1) {
        Some(b'#') => numeric_ref(b, at + 2),
        Some(c) if c.is_ascii_alphanumeric() => named_ref(s, at + 1, in_attribute),
        _ => None,
    }
}

fn numeric_ref(b: &[u8], from: usize) -> Option<CharRef> {
    let (base, start) = match b.get(from) {
        Some(b'x' | b'X') => (16, from + 1),
        _ => (10, from),
    };
    let mut i = start;
    let mut num = 0u32;
    let mut too_big = false;
    while let Some(d) = b.get(i).and_then(|&c| (c as char).to_digit(base)) {
        // As html5ever counts: past U+10FFFF the value may wrap, and is
        // replaced anyway.
        num = num.wrapping_mul(base);
        too_big |= num > 0x10FFFF;
        num = num.wrapping_add(d);
        i += 1;
    }
    if i == start {
        return None;
    }
    let mut error = true;
    if b.get(i) == Some(&b';') {
        i += 1;
        error = false;
    }
    let (c, bad) = match num {
        n if n > 0x10FFFF || too_big => ('\u{fffd}', true),
        0 | 0xD800..=0xDFFF => ('\u{fffd}', true),
        0x80..=0x9F => match C1_REPLACEMENTS[(num - 0x80) as usize] {
            Some(c) => (c, true),
            None => (char::from_u32(num).unwrap_or('\u{fffd}'), true),
        },
        0x01..=0x08 | 0x0B | 0x0D..=0x1F | 0x7F | 0xFDD0..=0xFDEF => {
            (char::from_u32(num).unwrap_or('\u{fffd}'), true)
        }
        n => (
            char::from_u32(n).unwrap_or('\u{fffd}'),
            (n & 0xFFFE) == 0xFFFE,
        ),
    };
    Some(CharRef {
        chars: [c, '\0'],
        end: i,
        error: error || bad,
    })
}

fn named_ref(s: &str, from: usize, in_attribute: bool) -> Option<CharRef> {
    let b = s.as_bytes();
    // The longest name in the table that the text starts with; the table
    // holds every prefix of every name, so the search stops at the first
    // miss.
    let mut best = None;
    let mut j = from;
    while j < b.len() && b[j].is_ascii() {
        j += 1;
        match NAMED_ENTITIES.get(&s[from..j]) {
            Some(&(0, _)) => {}
            Some(&m) => best = Some((m, j)),
            None => break,
        }
    }
    let ((c1, c2), end) = best?;
    let semicolon = b[end - 1] == b';';
    // For historical reasons, in an attribute `&amp=` and `&ampx` stay
    // as written.
    if !semicolon
        && in_attribute
        && b.get(end)
            .is_some_and(|&c| c == b'=' || c.is_ascii_alphanumeric())
    {
        return None;
    }
    Some(CharRef {
        chars: [
            char::from_u32(c1).unwrap_or('\u{fffd}'),
            char::from_u32(c2).unwrap_or('\0'),
        ],
        end,
        error: !semicolon,
    })
}

/// Tokens the doctype at the start of `piece` comes to, from html5ever's
/// tokenizer: a doctype decides the quirks mode by many rules.
fn doctype(piece: &str) -> Option<Doctype> {
    #[derive(Default)]
    struct Collect(RefCell<Option<Doctype>>);
    impl TokenSink for Collect {
        type Handle = ();
        fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
            if let Token::DoctypeToken(d) = token {
                self.0.borrow_mut().get_or_insert(d);
            }
            TokenSinkResult::Continue
        }
    }
    let tokenizer = Tokenizer::new(Collect::default(), TokenizerOpts::default());
    let queue = BufferQueue::default();
    queue.push_back(StrTendril::from_slice(piece));
    let _ = tokenizer.feed(&queue);
    tokenizer.end();
    tokenizer.sink.0.into_inner()
}

/// The bytes of a name of one to eight bytes as one integer (little
/// end first, zeros after), to be matched against the [`name_key`]s of
/// known names in one comparison each.
const fn name_key(name: &[u8]) -> u64 {
    let mut key = 0u64;
    let mut i = 0;
    while i < name.len() {
        key |= (name[i] as u64) << (8 * i);
        i += 1;
    }
    key
}

/// [`name_key`] of `name` if it is one to eight bytes long, read as two
/// overlapping loads (the bytes they share are the same, so or-ing them
/// joins the two halves).
#[inline(always)]
fn read_key(name: &[u8]) -> Option<u64> {
    let n = name.len();
    let p = name.as_ptr();
    // SAFETY: each load reads `width <= n` bytes, at 0 or at `n - width`.
    let load = |at: usize, width: usize| -> u64 {
        unsafe {
            match width {
                4 => u32::from_le(p.add(at).cast::<u32>().read_unaligned()) as u64,
                2 => u16::from_le(p.add(at).cast::<u16>().read_unaligned()) as u64,
                _ => *p.add(at) as u64,
            }
        }
    };
    match n {
        4..=8 => Some(load(0, 4) | (load(n - 4, 4) << (8 * (n - 4)))),
        2..=3 => Some(load(0, 2) | (load(n - 2, 2) << (8 * (n - 2)))),
        1 => Some(load(0, 1)),
        _ => None,
    }
}

/// [`super::nesting::keeps_attribute`] for a tag that is not formatting:
/// the kept names by their [`read_key`], ASCII letters lowered (all the
/// kept names' bytes are letters, so or-ing 0x20 into a byte makes it
/// one of them only if it is that letter in either case).
#[inline]
fn kept_attribute(name: &[u8]) -> bool {
    const ID: u64 = name_key(b"id");
    const TYPE: u64 = name_key(b"type");
    const FACE: u64 = name_key(b"face");
    const SIZE: u64 = name_key(b"size");
    const CLASS: u64 = name_key(b"class");
    const COLOR: u64 = name_key(b"color");
    const ITEMPROP: u64 = name_key(b"itemprop");
    const ENCODING: u64 = name_key(b"encoding");
    match name.len() {
        n @ (2 | 4 | 5 | 8) => {
            let Some(key) = read_key(name) else {
                return false;
            };
            let lowered = key | (0x2020_2020_2020_2020 >> (64 - 8 * n));
            matches!(
                lowered,
                ID | TYPE | FACE | SIZE | CLASS | COLOR | ITEMPROP | ENCODING
            )
        }
        14 => name.eq_ignore_ascii_case(b"shadowrootmode"),
        _ => false,
    }
}

/// [`local_name`] of a kept attribute's name, the commonest two (`class`
/// and `id`, written so) told by their [`read_key`] alone.
#[inline]
fn attribute_name(raw: &str) -> LocalName {
    const ID: u64 = name_key(b"id");
    const CLASS: u64 = name_key(b"class");
    match (raw.len(), read_key(raw.as_bytes())) {
        (5, Some(CLASS)) => local_name!("class"),
        (2, Some(ID)) => local_name!("id"),
        _ => local_name(raw),
    }
}

/// A name as the tokenizer reads it: ASCII capitals lowered, NUL as
/// U+FFFD.
fn local_name(raw: &str) -> LocalName {
    // The commonest names without hashing them to find their atom.
    let common = match raw {
        "a" => local_name!("a"),
        "p" => local_name!("p"),
        "b" => local_name!("b"),
        "i" => local_name!("i"),
        "br" => local_name!("br"),
        "li" => local_name!("li"),
        "td" => local_name!("td"),
        "tr" => local_name!("tr"),
        "ul" => local_name!("ul"),
        "id" => local_name!("id"),
        "div" => local_name!("div"),
        "img" => local_name!("img"),
        "span" => local_name!("span"),
        "font" => local_name!("font"),
        "class" => local_name!("class"),
        "table" => local_name!("table"),
        "tbody" => local_name!("tbody"),
        "strong" => local_name!("strong"),
        // Names of every page (its head, headings, forms, the parts of a
        // modern layout) that came next on fan2008, each looked up by its
        // hash in the static atoms where a comparison settles it.
        "h1" => local_name!("h1"),
        "h2" => local_name!("h2"),
        "h3" => local_name!("h3"),
        "h4" => local_name!("h4"),
        "em" => local_name!("em"),
        "nav" => local_name!("nav"),
        "meta" => local_name!("meta"),
        "code" => local_name!("code"),
        "html" => local_name!("html"),
        "head" => local_name!("head"),
        "body" => local_name!("body"),
        "form" => local_name!("form"),
        "input" => local_name!("input"),
        "title" => local_name!("title"),
        "label" => local_name!("label"),
        "aside" => local_name!("aside"),
        "button" => local_name!("button"),
        "header" => local_name!("header"),
        "option" => local_name!("option"),
        "section" => local_name!("section"),
        _ => LocalName::default(),
    };
    if !common.is_empty() {
        return common;
    }
    if raw.bytes().any(|b| b.is_ascii_uppercase() || b == 0) {
        let lowered: String = raw
            .chars()
            .map(|c| match c {
                '\0' => '\u{fffd}',
                c => c.to_ascii_lowercase(),
            })
            .collect();
        LocalName::from(lowered)
    } else {
        LocalName::from(raw)
    }
}

impl<'a, S: Sink, F: Fn() -> bool> Lexer<'a, S, F> {
    fn new(
        page: &'a StrTendril,
        sink: &'a S,
        every_attribute: bool,
        gate: Option<Gate>,
        stop: &'a F,
    ) -> Self {
        Lexer {
            page,
            s: page,
            b: page.as_bytes(),
            sink,
            state: State::Data,
            last_start: None,
            every_attribute,
            gate,
            stop,
            attrs: Vec::new(),
        }
    }
}

impl<S: Sink, F: Fn() -> bool> Lexer<'_, S, F> {
    fn emit(&self, token: Token) -> TokenSinkResult<S::Handle> {
        self.sink.token(token)
    }

    /// Emits the text `[from, to)`: character references decoded if
    /// `refs`, NUL as its own token if `nul_token`, else as U+FFFD.
    fn text(&self, from: usize, to: usize, refs: bool, nul_token: bool) {
        let special = from < to && self.has_special(from, to, refs);
        self.scanned_text(from, to, refs, nul_token, special);
    }

    /// [`Self::text`] where the caller has read the run: `special` says
    /// whether it holds a NUL (or an `&`, if `refs`). Inlined into the
    /// loop over the page's text, which calls it for every run.
    #[inline]
    fn scanned_text(&self, from: usize, to: usize, refs: bool, nul_token: bool, special: bool) {
        // Most runs have nothing to decode: one slice of the page, without
        // the decoder's plumbing.
        if !special {
            if from < to {
                self.sink.page_text(self.page, from, to);
            }
            return;
        }
        self.decode(from, to, refs, false, nul_token, &mut |token| {
            let _ = self.emit(token);
        });
    }

    /// Whether `[from, to)` holds a NUL, or an `&` if `refs`.
    fn has_special(&self, from: usize, to: usize, refs: bool) -> bool {
        // A short run (most attribute values) with 16 bytes of the page
        // from its start: one vector step, the bytes past its end masked
        // out, where a byte at a time was read.
        if to - from < 16 {
            if let Some(chunk) = self.b.get(from..from + 16) {
                let mask = if refs {
                    mask16([b'&', 0], chunk)
                } else {
                    mask16([0], chunk)
                };
                return mask & ((1 << (to - from)) - 1) != 0;
            }
        }
        let run = &self.b[from..to];
        if refs {
            find_any([b'&', 0], run).is_some()
        } else {
            find_any([0], run).is_some()
        }
    }

    /// `[from, to)` (not empty) as a slice of the page, sharing its buffer.
    fn slice(&self, from: usize, to: usize) -> StrTendril {
        if self.s.is_char_boundary(from) && self.s.is_char_boundary(to) {
            // SAFETY: `from..to` lies within the page (`to` is a boundary,
            // so at most its length) and both ends are character
            // boundaries.
            unsafe { self.page.unsafe_subtendril(from as u32, (to - from) as u32) }
        } else {
            self.page.subtendril(from as u32, (to - from) as u32)
        }
    }

    /// `[from, to)` as a slice of the page, as [`Self::decode`] gives it,
    /// if it holds nothing to decode (no NUL, and no `&` if `refs`).
    fn plain(&self, from: usize, to: usize, refs: bool) -> Option<StrTendril> {
        if from >= to {
            return Some(StrTendril::new());
        }
        if self.has_special(from, to, refs) {
            return None;
        }
        Some(self.slice(from, to))
    }

    /// The text `[from, to)` as tokens to `out`: one slice of the page
    /// where nothing is decoded, else new text; parse errors where the
    /// tokenizer reports them in text (the tree builder sees them as
    /// tokens: one ends the skipping of a newline after `<pre>`).
    fn decode(
        &self,
        from: usize,
        to: usize,
        refs: bool,
        in_attribute: bool,
        nul_token: bool,
        out: &mut impl FnMut(Token),
    ) {
        let b = &self.b[..to];
        let s = &self.s[..to];
        let mut owned: Option<StrTendril> = None;
        let mut run = from;
        let mut i = from;
        let mut flush =
            |owned: &mut Option<StrTendril>, run: usize, at: usize, then: Option<Token>| {
                let text = match owned.take() {
                    Some(mut text) => {
                        text.push_slice(&s[run..at]);
                        text
                    }
                    // What `subtendril` checks, read from the page's
                    // bytes directly (its own check classifies the
                    // bytes around both ends, for every run of text).
                    None if run <= at
                        && self.s.is_char_boundary(run)
                        && self.s.is_char_boundary(at) =>
                    {
                        // SAFETY: `run..at` lies within the page (at is a
                        // boundary, so at most its length) and both ends
                        // are character boundaries.
                        unsafe { self.page.unsafe_subtendril(run as u32, (at - run) as u32) }
                    }
                    None => self.page.subtendril(run as u32, (at - run) as u32),
                };
                if !text.is_empty() {
                    out(Token::CharacterTokens(text));
                }
                if let Some(token) = then {
                    out(token);
                }
            };
        loop {
            let found = if refs {
                find_any([b'&', 0], &b[i..])
            } else {
                find_any([0], &b[i..])
            };
            let Some(k) = found else { break };
            let at = i + k;
            i = at + 1;
            let decoded = if b[at] == 0 {
                if nul_token {
                    flush(&mut owned, run, at, Some(Token::NullCharacterToken));
                    run = i;
                    continue;
                }
                CharRef {
                    chars: ['\u{fffd}', '\0'],
                    end: at + 1,
                    error: false,
                }
            } else {
                match char_ref(s, at, in_attribute) {
                    None => continue,
                    Some(r) => r,
                }
            };
            if decoded.error && !in_attribute {
                let error = Token::ParseError(Cow::Borrowed("Invalid character reference"));
                flush(&mut owned, run, at, Some(error));
                owned = Some(StrTendril::new());
            } else {
                owned
                    .get_or_insert_with(StrTendril::new)
                    .push_slice(&s[run..at]);
            }
            decoded.push_to(owned.get_or_insert_with(StrTendril::new));
            run = decoded.end;
            i = decoded.end;
        }
        flush(&mut owned, run, to, None);
    }

    fn run(&mut self) -> Result<(), Unsupported> {
        let mut pos = if self.s.starts_with('\u{feff}') { 3 } else { 0 };
        while pos < self.b.len() {
            pos = match self.state {
                State::Data => self.data(pos)?,
                State::Plaintext => {
                    self.text(pos, self.b.len(), false, false);
                    self.b.len()
                }
                State::Rcdata | State::Rawtext | State::ScriptData => self.raw(pos)?,
            };
        }
        let _ = self.emit(Token::EOFToken);
        self.sink.end();
        Ok(())
    }

    /// Text and markup from `pos` until the state leaves data; returns
    /// where it did.
    fn data(&mut self, mut pos: usize) -> Result<usize, Unsupported> {
        let b = self.b;
        let mut i = pos;
        // Whether the text from `pos` holds an `&` or NUL, read in the same
        // pass that finds its end.
        let mut special = false;
        while let Some(k) = find_any([b'<', b'&', 0], &b[i..]) {
            let lt = i + k;
            if b[lt] != b'<' {
                special = true;
                i = lt + 1;
                continue;
            }
            let markup = match b.get(lt + 1) {
                Some(c) if c.is_ascii_alphabetic() => true,
                Some(b'!' | b'?') => true,
                // `</` at the page's end is text.
                Some(b'/') => lt + 2 < b.len(),
                _ => false,
            };
            if !markup {
                i = lt + 1;
                continue;
            }
            self.gate_text(pos, lt)?;
            self.scanned_text(pos, lt, true, true, special);
            special = false;
            pos = self.markup(lt)?;
            i = pos;
            if (self.stop)() {
                return Err(Unsupported);
            }
            if self.state != State::Data {
                return Ok(pos);
            }
        }
        self.gate_text(pos, b.len())?;
        self.scanned_text(pos, b.len(), true, true, special);
        Ok(b.len())
    }

    /// The pre-pass's view of the text `[from, to)`: while in the head,
    /// only whitespace keeps it there. Past the head's first words,
    /// text changes nothing: checked here, inlined into the loop.
    #[inline(always)]
    fn gate_text(&mut self, from: usize, to: usize) -> Result<(), Unsupported> {
        match self.gate.as_ref() {
            Some(g) if !g.started || g.in_head => self.gate_head_text(from, to),
            _ => Ok(()),
        }
    }

    fn gate_head_text(&mut self, from: usize, to: usize) -> Result<(), Unsupported> {
        let Some(g) = self.gate.as_mut() else {
            return Ok(());
        };
        let from = from.max(g.opaque_until);
        if from >= to || (g.started && !g.in_head) {
            return Ok(());
        }
        let text = &self.s[from..to];
        let blank = text.trim_start().is_empty();
        if g.in_head {
            // The pre-pass reads a `<` that opens no markup as a piece of
            // its own, which leaves the head as it was.
            if memchr::memchr(b'<', text.as_bytes()).is_some() {
                return Err(Unsupported);
            }
            g.in_head = blank;
        }
        g.started |= !blank;
        Ok(())
    }

    /// Whether the pre-pass leaving out `[at, ..)` joins the text before
    /// it to what follows as the tokenizer would read them apart: not
    /// after a `<` (`<` and `/p>` would make a tag) or in what may be a
    /// character reference (`&am` and `p;`).
    fn joins_safely(&self, at: usize) -> bool {
        let b = self.b;
        if at == 0 || self.gate.as_ref().is_some_and(|g| g.drop_end == at) {
            return true;
        }
        if b[at - 1] == b'<' || (at >= 2 && b[at - 2] == b'<') {
            return false;
        }
        let mut j = at;
        while j > 0 && (b[j - 1].is_ascii_alphanumeric() || b[j - 1] == b'#') {
            j -= 1;
        }
        !(j > 0 && b[j - 1] == b'&')
    }

    /// Leaves out `[at, end)` as the pre-pass does, or gives up.
    fn drop_piece(&mut self, at: usize, end: usize) -> Result<(), Unsupported> {
        if !self.joins_safely(at) {
            return Err(Unsupported);
        }
        if let Some(g) = self.gate.as_mut() {
            g.drop_end = end;
        }
        Ok(())
    }

    /// Markup `[lt, end)` that the pre-pass keeps as a piece and that
    /// leaves the head as it was: in a raw-text element it must end
    /// there too.
    fn gate_kept(&mut self, lt: usize, end: usize) -> Result<usize, Unsupported> {
        if let Some(g) = self.gate.as_mut() {
            if lt < g.opaque_until {
                if end > g.opaque_until {
                    return Err(Unsupported);
                }
            } else {
                g.started = true;
            }
        }
        Ok(end)
    }

    /// `</` not opening an end tag: the pre-pass reads its `<` as a piece
    /// and the rest as text, which ends the head.
    fn gate_stray_end(&mut self, lt: usize, end: usize) -> Result<usize, Unsupported> {
        let b = self.b;
        if let Some(g) = self.gate.as_mut() {
            if lt >= g.opaque_until {
                if memchr::memchr(b'<', &b[lt + 1..end]).is_some() {
                    return Err(Unsupported);
                }
                g.in_head = false;
            }
        }
        self.gate_kept(lt, end)
    }

    /// The markup at `lt` (a tag, comment or doctype); returns its end.
    fn markup(&mut self, lt: usize) -> Result<usize, Unsupported> {
        let b = self.b;
        let sink = self.sink;
        let bogus_comment = |from: usize| {
            let _ = sink.token(Token::CommentToken(StrTendril::new()));
            memchr::memchr(b'>', &b[from..]).map_or(b.len(), |i| from + i + 1)
        };
        match b[lt + 1] {
            b'/' => match b[lt + 2] {
                c if c.is_ascii_alphabetic() => self.tag(lt + 2, TagKind::EndTag),
                b'>' => self.gate_stray_end(lt, lt + 3),
                _ => {
                    let end = bogus_comment(lt + 2);
                    self.gate_stray_end(lt, end)
                }
            },
            b'!' => {
                let rest = &b[lt + 2..];
                if rest.starts_with(b"--") {
                    let end = comment_end(self.s, lt);
                    let gated = self.gate.as_ref().is_some_and(|g| lt >= g.opaque_until);
                    // As the pre-pass: a comment that opens another stays.
                    if gated && memchr::memmem::find(&b[lt + 1..end], b"<!--").is_none() {
                        self.drop_piece(lt, end)?;
                        return Ok(end);
                    }
                    let _ = self.emit(Token::CommentToken(StrTendril::new()));
                    self.gate_kept(lt, end)
                } else if rest.len() >= 7 && rest[..7].eq_ignore_ascii_case(b"doctype") {
                    let end = memchr::memchr(b'>', rest).map_or(b.len(), |i| lt + 2 + i + 1);
                    if let Some(d) = doctype(&self.s[lt..end]) {
                        let _ = self.emit(Token::DoctypeToken(d));
                    }
                    self.gate_kept(lt, end)
                } else if rest.starts_with(b"[CDATA[") && self.sink.in_foreign_content() {
                    Err(Unsupported)
                } else {
                    let end = bogus_comment(lt + 2);
                    self.gate_kept(lt, end)
                }
            }
            b'?' => {
                let end = bogus_comment(lt + 1);
                self.gate_kept(lt, end)
            }
            _ => self.tag(lt + 1, TagKind::StartTag),
        }
    }

    /// What the pre-pass does with the tag `[lt, end)`: `Some(to)` when it
    /// leaves out `[lt, to)`.
    fn gate_tag(
        &mut self,
        lt: usize,
        end: usize,
        kind: TagKind,
        atom: &LocalName,
    ) -> Result<Option<usize>, Unsupported> {
        use super::nesting::{is_head, is_raw_text, is_void, markup_end, skip_raw_text};
        let (s, b) = (self.s, self.b);
        let Some(g) = self.gate.as_mut() else {
            return Ok(None);
        };
        if kind == TagKind::EndTag {
            let piece = &b[lt..end];
            g.in_head = g.in_head
                && piece
                    .get(..6)
                    .is_some_and(|x| x.eq_ignore_ascii_case(b"</head"))
                && !piece.get(6).is_some_and(u8::is_ascii_alphanumeric);
            g.depth = g.depth.saturating_sub(1);
            g.started = true;
            return Ok(None);
        }
        let self_closing = end >= 2 && b[end - 2] == b'/';
        if self_closing || is_void(atom) {
            g.in_head = g.in_head && is_head(atom);
            // The pre-pass also asks `nesting::tag_ends_within` of the
            // piece, which reads it by the tokenizer's states as this
            // lexer has just done: the tag ended within it, at `end`.
            if g.started && g.in_head && matches!(*atom, local_name!("meta") | local_name!("link"))
            {
                self.drop_piece(lt, end)?;
                return Ok(Some(end));
            }
        } else if is_raw_text(atom) {
            let close = skip_raw_text(s, end, atom);
            let stop = if close < s.len() {
                markup_end(s, close)
            } else {
                s.len()
            };
            if matches!(*atom, local_name!("script") | local_name!("style")) {
                if memchr::memmem::find(&b[lt + 1..stop], b"<!--").is_none() {
                    self.drop_piece(lt, stop)?;
                    return Ok(Some(stop));
                }
            } else {
                g.in_head = g.in_head && is_head(atom);
            }
            g.opaque_until = stop;
            g.raw_piece = true;
        } else {
            g.in_head = g.in_head && is_head(atom);
            g.depth += 1;
            if g.depth > g.max_depth {
                return Err(Unsupported);
            }
        }
        g.started = true;
        Ok(None)
    }

    /// Raw text from `pos` to its end tag (or the page's end), then the
    /// end tag.
    fn raw(&mut self, pos: usize) -> Result<usize, Unsupported> {
        let b = self.b;
        let name = self.last_start.clone().unwrap_or_default();
        let name = name.as_bytes();
        let mut i = pos;
        let mut close = None;
        while let Some(k) = find_any([b'<'], &b[i..]) {
            let lt = i + k;
            let name_at = lt + 2;
            if b.get(lt + 1) == Some(&b'/')
                && b.get(name_at..name_at + name.len())
                    .is_some_and(|n| n.eq_ignore_ascii_case(name))
                && b.get(name_at + name.len())
                    .is_some_and(|&c| is_space(c) || c == b'/' || c == b'>')
            {
                close = Some(lt);
                break;
            }
            i = lt + 1;
        }
        let end = close.unwrap_or(b.len());
        if self.state == State::ScriptData && memchr::memmem::find(&b[pos..end], b"<!--").is_some()
        {
            return Err(Unsupported);
        }
        self.text(pos, end, self.state == State::Rcdata, false);
        self.state = State::Data;
        match close {
            Some(lt) => self.tag(lt + 2, TagKind::EndTag),
            None => Ok(b.len()),
        }
    }

    /// A value from `from` to `to` as an attribute keeps it.
    fn attribute_value(&self, from: usize, to: usize) -> StrTendril {
        if let Some(slice) = self.plain(from, to, true) {
            return slice;
        }
        let mut value = StrTendril::new();
        self.decode(from, to, true, true, false, &mut |token| {
            if let Token::CharacterTokens(text) = token {
                if value.is_empty() {
                    value = text;
                } else {
                    value.push_tendril(&text);
                }
            }
        });
        value
    }

    /// A start or end tag whose name starts at `name_start`: emitted, and
    /// the state set as the tree builder asks. Returns its end. A tag the
    /// page's end cuts is dropped, as the tokenizer does.
    fn tag(&mut self, name_start: usize, kind: TagKind) -> Result<usize, Unsupported> {
        let b = self.b;
        let Some(name_end) = b[name_start..]
            .iter()
            .position(|&c| TAG_NAME_END[c as usize])
            .map(|i| name_start + i)
        else {
            return self.cut_tag(name_start, kind, false);
        };
        let name = local_name(&self.s[name_start..name_end]);
        let formatting = super::nesting::is_formatting(&name);
        // The vector of the tag before, emptied (the sink lends it back).
        let mut attrs: Vec<Attribute> = std::mem::take(&mut self.attrs);
        let read = self.attributes(name_end, formatting, &mut attrs);
        let Some(end) = read.end else {
            return self.cut_tag(name_start, kind, read.irregular);
        };
        if let Some(to) = self.gate_tag_at(name_start, kind, end, read.irregular, &name)? {
            return Ok(to);
        }
        let tag = Tag {
            kind,
            name,
            self_closing: read.self_closing,
            attrs,
            had_duplicate_attributes: read.duplicate,
        };
        self.emit_tag(tag, end)
    }

    /// Whether the attribute named by `from..to` is kept.
    #[inline]
    fn keeps_attribute(&self, formatting: bool, from: usize, to: usize) -> bool {
        let kept = self.every_attribute || formatting || kept_attribute(&self.b[from..to]);
        debug_assert_eq!(
            kept,
            self.every_attribute || super::nesting::keeps_attribute(formatting, &self.s[from..to])
        );
        kept
    }

    /// Reads a tag's attributes from the end of its name into `attrs`,
    /// those kept, to the tag's end (`None` if the page's end cuts it).
    #[inline]
    fn attributes(
        &self,
        name_end: usize,
        formatting: bool,
        attrs: &mut Vec<Attribute>,
    ) -> ReadAttributes {
        let b = self.b;
        let mut duplicate = false;
        // The attribute being read, if it is kept: its name's span, and
        // its value (whether to keep it is decided once, from its name).
        let mut current: Option<(usize, usize, StrTendril)> = None;
        let mut state = InTag::BeforeName;
        let mut self_closing = false;
        // A quote that opens no value: the pre-pass, which guesses where
        // tags end, may end this one elsewhere.
        let mut irregular = false;
        let mut i = name_end;
        let end = loop {
            let Some(&c) = b.get(i) else { break None };
            match state {
                InTag::BeforeName | InTag::AfterName if is_space(c) => {}
                InTag::BeforeName | InTag::Name | InTag::AfterName if c == b'/' => {
                    state = InTag::SelfClosing
                }
                InTag::BeforeName
                | InTag::Name
                | InTag::AfterName
                | InTag::BeforeValue
                | InTag::AfterQuoted
                    if c == b'>' =>
                {
                    break Some(i + 1)
                }
                InTag::Name if is_space(c) => state = InTag::AfterName,
                InTag::Name | InTag::AfterName if c == b'=' => state = InTag::BeforeValue,
                InTag::Name => {
                    irregular |= c == b'"' || c == b'\'';
                    if let Some(a) = current.as_mut() {
                        a.1 = i + 1;
                    }
                }
                InTag::BeforeName | InTag::AfterName => {
                    if current.is_some() {
                        push_attribute(self.s, attrs, &mut duplicate, &mut current);
                    }
                    let (j, quote) = attribute_name_span(b, i);
                    irregular |= quote;
                    current = self
                        .keeps_attribute(formatting, i, j)
                        .then(|| (i, j, StrTendril::new()));
                    // The common `name="value"`: the value read at once,
                    // as the states from `=` to the closing quote read it.
                    if let (Some(b'='), Some(&q @ (b'"' | b'\''))) = (b.get(j), b.get(j + 1)) {
                        let Some(k) = find_any([q], &b[j + 2..]) else {
                            break None;
                        };
                        if let Some(a) = current.as_mut() {
                            a.2 = self.attribute_value(j + 2, j + 2 + k);
                        }
                        (i, state) = after_quoted_value(b, j + k + 3);
                        continue;
                    }
                    state = InTag::Name;
                    i = j;
                    continue;
                }
                InTag::BeforeValue if is_space(c) => {}
                InTag::BeforeValue if c == b'"' || c == b'\'' => {
                    let Some(k) = find_any([c], &b[i + 1..]) else {
                        break None;
                    };
                    if let Some(a) = current.as_mut() {
                        a.2 = self.attribute_value(i + 1, i + 1 + k);
                    }
                    i += k + 2;
                    state = InTag::AfterQuoted;
                    continue;
                }
                InTag::BeforeValue => {
                    let Some(k) = b[i..].iter().position(|&c| is_space(c) || c == b'>') else {
                        break None;
                    };
                    irregular |= b[i..i + k].iter().any(|&c| c == b'"' || c == b'\'');
                    if let Some(a) = current.as_mut() {
                        a.2 = self.attribute_value(i, i + k);
                    }
                    i += k;
                    state = InTag::BeforeName;
                    continue;
                }
                InTag::AfterQuoted if is_space(c) => state = InTag::BeforeName,
                InTag::AfterQuoted => {
                    state = InTag::BeforeName;
                    continue;
                }
                InTag::SelfClosing if c == b'>' => {
                    self_closing = true;
                    break Some(i + 1);
                }
                InTag::SelfClosing => {
                    state = InTag::BeforeName;
                    continue;
                }
            }
            i += 1;
        };
        if end.is_some() && current.is_some() {
            push_attribute(self.s, attrs, &mut duplicate, &mut current);
        }
        ReadAttributes {
            end,
            self_closing,
            irregular,
            duplicate,
        }
    }

    /// The pre-pass's say on a tag read from `name_start` to `end`: an
    /// error where it cannot follow the page, or where to go on from if
    /// it handles the tag itself.
    #[inline]
    fn gate_tag_at(
        &mut self,
        name_start: usize,
        kind: TagKind,
        end: usize,
        irregular: bool,
        name: &LocalName,
    ) -> Result<Option<usize>, Unsupported> {
        if let Some(opaque_until) = self.gate.as_ref().map(|g| g.opaque_until) {
            let lt = tag_start(name_start, kind);
            if lt < opaque_until {
                if end > opaque_until {
                    return Err(Unsupported);
                }
            } else {
                if irregular && super::nesting::markup_end(self.s, lt) != end {
                    return Err(Unsupported);
                }
                if let Some(to) = self.gate_tag(lt, end, kind, name)? {
                    return Ok(Some(to));
                }
            }
        }
        Ok(None)
    }

    /// Hands the tag to the sink and takes the state it asks for; returns
    /// where to go on from.
    #[inline]
    fn emit_tag(&mut self, mut tag: Tag, end: usize) -> Result<usize, Unsupported> {
        if tag.kind == TagKind::StartTag {
            self.last_start = Some(tag.name.clone());
        }
        let result = self.sink.tag(&mut tag);
        if !tag.attrs.is_empty() {
            tag.attrs.clear();
        }
        self.attrs = tag.attrs;
        let raw_piece = self.gate.as_mut().map(|g| std::mem::take(&mut g.raw_piece));
        self.state = match result {
            TokenSinkResult::RawData(RawKind::Rcdata) => State::Rcdata,
            TokenSinkResult::RawData(RawKind::Rawtext) => State::Rawtext,
            TokenSinkResult::RawData(RawKind::ScriptData) => State::ScriptData,
            // Escaped script data is entered from script data only.
            TokenSinkResult::RawData(RawKind::ScriptDataEscaped(_)) => State::ScriptData,
            TokenSinkResult::Plaintext => State::Plaintext,
            // html5ever's tokenizer pauses for these, and on resuming
            // drops a byte order mark.
            TokenSinkResult::Script(_) | TokenSinkResult::EncodingIndicator(_)
                if self.s[end..].starts_with('\u{feff}') =>
            {
                if self.gate.is_some() {
                    return Err(Unsupported);
                }
                return Ok(end + 3);
            }
            _ => State::Data,
        };
        // Raw text must be where the pre-pass passes an element through
        // whole, and plaintext never ends where the pre-pass says it does.
        match (raw_piece, self.state) {
            (None, _)
            | (_, State::Data)
            | (Some(true), State::Rcdata | State::Rawtext | State::ScriptData) => Ok(end),
            _ => Err(Unsupported),
        }
    }

    /// A tag the page's end cuts: the tokenizer drops it, and so does
    /// the pre-pass (a script's or style's) or it keeps it for the
    /// tokenizer to drop, if both read it to the page's end.
    fn cut_tag(
        &mut self,
        name_start: usize,
        kind: TagKind,
        irregular: bool,
    ) -> Result<usize, Unsupported> {
        let len = self.b.len();
        if let Some(g) = self.gate.as_ref() {
            let lt = tag_start(name_start, kind);
            if (lt < g.opaque_until && len > g.opaque_until)
                || (lt >= g.opaque_until
                    && irregular
                    && super::nesting::markup_end(self.s, lt) != len)
            {
                return Err(Unsupported);
            }
        }
        Ok(len)
    }
}

/// Where the reading of a tag's attributes is.
#[derive(Clone, Copy)]
enum InTag {
    BeforeName,
    Name,
    AfterName,
    BeforeValue,
    AfterQuoted,
    SelfClosing,
}

/// Adds the attribute just read, if it is kept (`current`), to `attrs`,
/// unless one of its name is there already (then `duplicate`).
#[inline]
fn push_attribute(
    s: &str,
    attrs: &mut Vec<Attribute>,
    duplicate: &mut bool,
    current: &mut Option<(usize, usize, StrTendril)>,
) {
    if let Some((from, to, value)) = current.take() {
        let name = attribute_name(&s[from..to]);
        if attrs.iter().any(|a| a.name.local == name) {
            *duplicate = true;
        } else {
            attrs.push(Attribute {
                name: QualName::new(None, ns!(), name),
                value,
            });
        }
    }
}

/// Where reading goes on after a quoted value that ends before `i`. The
/// whitespace before the next name (after a quoted value, then before a
/// name: both skip it) is read here, where each byte took a step.
#[inline]
fn after_quoted_value(b: &[u8], mut i: usize) -> (usize, InTag) {
    if b.get(i).is_some_and(|&c| is_space(c)) {
        i += 1;
        while b.get(i).is_some_and(|&c| is_space(c)) {
            i += 1;
        }
        return (i, InTag::BeforeName);
    }
    (i, InTag::AfterQuoted)
}

/// What reading a tag's attributes found.
struct ReadAttributes {
    /// The tag's end, `None` if the page's end cuts it.
    end: Option<usize>,
    self_closing: bool,
    /// A quote that opens no value: the pre-pass, which guesses where
    /// tags end, may end this one elsewhere.
    irregular: bool,
    /// An attribute named twice (the second is dropped).
    duplicate: bool,
}

/// The end of the attribute name starting at `i`, and whether a quote is
/// in it. Multi-byte characters are read whole, and the rest of the name
/// (what the name state would read byte by byte) in one loop. (`i` is a
/// character boundary: the bytes before it that ended a state were ASCII.)
#[inline]
fn attribute_name_span(b: &[u8], i: usize) -> (usize, bool) {
    let c = b[i];
    let width = match c {
        0..=0x7f => 1,
        0xf0.. => 4,
        0xe0.. => 3,
        _ => 2,
    };
    let mut j = i + width;
    // One pass for the name's end and any quote in it.
    let mut quote = c == b'"' || c == b'\'';
    loop {
        let Some(k) = b[j..].iter().position(|&d| NAME_BYTE[d as usize] != 0) else {
            j = b.len();
            break;
        };
        j += k;
        if NAME_BYTE[b[j] as usize] == NAME_END {
            break;
        }
        quote = true;
        j += 1;
    }
    (j, quote)
}

/// Where a tag whose name starts at `name_start` opens (its `<`).
fn tag_start(name_start: usize, kind: TagKind) -> usize {
    match kind {
        TagKind::StartTag => name_start - 1,
        TagKind::EndTag => name_start - 2,
    }
}

/// Where the comment opening at `lt` (`<!--`) ends, as the tokenizer ends
/// it: `<!-->` and `<!--->` are whole, else the first `-->` or `--!>`, else
/// the page's end.
fn comment_end(s: &str, lt: usize) -> usize {
    let rest = &s[lt..];
    for short in ["<!-->", "<!--->"] {
        if rest.starts_with(short) {
            return lt + short.len();
        }
    }
    let body = &s[lt + 4..];
    let close = body.find("-->").map(|i| i + 3);
    let bang = body[..close.unwrap_or(body.len())]
        .find("--!>")
        .map(|i| i + 4);
    match (close, bang) {
        (_, Some(e)) | (Some(e), None) => lt + 4 + e,
        (None, None) => s.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tokens as the tree builder takes them: adjacent text merged,
    /// parse errors and comment text left out. Start tags switch the
    /// state as the tree builder would in a page's body.
    #[derive(Default)]
    struct Record(RefCell<Vec<String>>);

    impl TokenSink for Record {
        type Handle = ();
        fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
            let mut out = self.0.borrow_mut();
            let mut switch = TokenSinkResult::Continue;
            let line = match token {
                Token::CharacterTokens(t) => {
                    if let Some(last) = out.last_mut().filter(|l| l.starts_with("text ")) {
                        last.push_str(&t);
                        return switch;
                    }
                    format!("text {t}")
                }
                Token::NullCharacterToken => "null".into(),
                Token::ParseError(_) => return switch,
                Token::CommentToken(_) => "comment".into(),
                Token::DoctypeToken(d) => format!("{d:?}"),
                Token::EOFToken => "eof".into(),
                Token::TagToken(tag) => {
                    if tag.kind == TagKind::StartTag {
                        switch = match &*tag.name {
                            "title" | "textarea" => TokenSinkResult::RawData(RawKind::Rcdata),
                            "style" | "xmp" | "iframe" | "noembed" | "noframes" | "noscript" => {
                                TokenSinkResult::RawData(RawKind::Rawtext)
                            }
                            "script" => TokenSinkResult::RawData(RawKind::ScriptData),
                            "plaintext" => TokenSinkResult::Plaintext,
                            _ => TokenSinkResult::Continue,
                        };
                    }
                    let attrs: Vec<String> = tag
                        .attrs
                        .iter()
                        .map(|a| format!("{}={:?}", &*a.name.local, &*a.value))
                        .collect();
                    format!(
                        "{:?} {} {:?} {} {}",
                        tag.kind, &*tag.name, attrs, tag.self_closing, tag.had_duplicate_attributes
                    )
                }
            };
            out.push(line);
            switch
        }
    }

    fn html5ever_tokens(html: &str) -> Vec<String> {
        let tokenizer = Tokenizer::new(Record::default(), TokenizerOpts::default());
        let queue = BufferQueue::default();
        queue.push_back(StrTendril::from_slice(html));
        let _ = tokenizer.feed(&queue);
        tokenizer.end();
        tokenizer.sink.0.into_inner()
    }

    fn lexer_tokens(html: &str) -> Result<Vec<String>, Unsupported> {
        let sink = Record::default();
        feed(&StrTendril::from_slice(html), &sink, true)?;
        Ok(sink.0.into_inner())
    }

    pub(crate) const TRICKY_TOKENS: &[&str] = &[
        // Character references: named with and without semicolons, the
        // longest match, numeric, windows-1252, out of range, bogus.
        "a &amp; b &amp c &ampx &notin; &notit; &noti &copy2 &#65;&#x41;&#X41 &#128; &#x9d; \
         &#0; &#xD800; &#x110000; &#99999999999; &#; &#x; &; &zzz; & &#12a &NewLine;x",
        "&lt&gt&AMP;&Aacute&aacute;&nbsp&nbsp;&nbspx",
        // In attributes `&amp=` and `&ampx` stay as written.
        "<a title='&amp=1&ampx&amp;y&amp &lt;' class=\"&#65;&copy\" id=&notit;>x</a>",
        // Raw text: only the appropriate end tag ends it.
        "<title>a &amp; <b> </titlex></title >b",
        "<textarea>&lt;</textarea/><style>a &amp; <p></STYLE>c",
        "<xmp><p>&amp;</xmp><iframe>x</ifram></iframe><noscript><p></noscript>",
        "<script>if (a < b && c) {}</script>d<script>x</scriptx></script/ >",
        "<plaintext>a</plaintext><p>&amp;",
        "<title>unterminated &amp",
        // Tags: unquoted values, odd names, duplicates, self-closing.
        "<DIV Class=A ID = 'b' class=c data-x=y/ itemprop=\"z\"/><br/ ><p a b=c d='e'f>x",
        "<p =x \"y\"=z <q>x</p foo=\"bar\"><a/b>c</a/>",
        "<a href=a/b>x</a><img src=x/>y<p\tclass=a\nid=b\x0citemprop=c>z",
        "<中 名=值>x</中>",
        // Quoted values straight after `=`, and the ways around them.
        "<a b=\"c\"d='e'f=\"\"g=''h=\"x'y\" i='x\"y'>x<a b= \"c\" d =\"e\">",
        "<a b=\"c\"/><a b='c'/ ><a b=\"c\"/x><a b=\"c\">< b=\"c\">",
        "<DIV CLASS=\"A\" Id='B' ItemProp=\"C\" TYPE=\"d\" dir=\"ltr\">x",
        "<a b=\"c\"\"d\"><a b=\"c\"=\"d\"><a b==\"c\"><a =\"b\">",
        "x<a b=\"c",
        "x<a b='",
        "x<a b=",
        // Text with `<` that opens no tag, bogus comments, stray `</>`.
        "a < b <1 <> </> <!x> <?php x ?> </ x> a<b",
        "<!-- c --> <!--> <!---> <!-- a --!> b <!-- x -- y -->z<!--",
        // Doctypes.
        "<!DOCTYPE html><p>x",
        "<!doctype html PUBLIC \"-//W3C//DTD HTML 4.01 Transitional//EN\"><p>x",
        "<!DOCTYPE html SYSTEM 'about:legacy-compat'",
        "<!doctype>x<!DOCTYPEhtml>",
        // NUL, CR LF, BOM.
        "\u{feff}a\0b<p\0a=\0>c\r\nd\re\r\r\n<title>\0\r</title><pre>\r\nx",
        // Truncated tags and references.
        "x<div class='a",
        "x<div class=a",
        "x<div",
        "x</",
        "x<",
        "x&",
        "x&#",
        "x&#x",
        "x&am",
        "x&amp",
        "",
    ];

    #[test]
    fn short_values_and_raw_text_are_read_alike_wherever_a_reference_falls() {
        // Values and a title's text shorter than 16 bytes, with a
        // reference, a lone `&` or a NUL at every place, the page going on
        // past them or ending right after.
        for len in 0..18 {
            for at in 0..=len {
                for special in ["&amp;", "&", "\0", "&#65;", "&notin"] {
                    let mut value = "v".repeat(len);
                    value.insert_str(at, special);
                    for tail in ["", "<p>and some more text after it</p>"] {
                        for html in [
                            format!("<p class=\"{value}\">x</p>{tail}"),
                            format!("<p class={value}>x</p>{tail}"),
                            format!("<title>{value}</title>{tail}"),
                        ] {
                            assert_eq!(
                                lexer_tokens(&html).as_ref(),
                                Ok(&html5ever_tokens(&html)),
                                "{html:?}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_lexer_gives_html5evers_tokens() {
        for html in TRICKY_TOKENS {
            assert_eq!(
                lexer_tokens(html).as_ref(),
                Ok(&html5ever_tokens(html)),
                "{html:?}"
            );
        }
    }

    #[test]
    fn name_keys_read_alike_at_every_length() {
        let bytes: Vec<u8> = (0..=255u8).rev().cycle().take(600).collect();
        for n in 0..=12 {
            for from in 0..bytes.len() - n {
                let name = &bytes[from..from + n];
                let expected = (1..=8).contains(&n).then(|| name_key(name));
                assert_eq!(read_key(name), expected, "{name:?}");
            }
        }
    }

    #[test]
    fn names_are_the_atoms_html5ever_makes() {
        // Common names and others, in lower and upper case (NULs and
        // all), and every one- and two-letter name.
        let common = "a p b i u s br li td tr th ul ol dl dd dt em hr h1 h2 h3 h4 h6 tt id div \
                      img nav pre sup col big span font html head body meta link form code nobr \
                      name type size face class table tbody title style input label aside small \
                      color strong script select option button center header iframe strike \
                      section article address itemprop noscript textarea encoding blockquote \
                      spans divx x-y 中";
        let odd = [
            "a\0",
            "\0",
            "p\0\0",
            "div\0",
            "span\0\0\0\0",
            "a\0b",
            "id\0",
            "i\0d",
            "class\0",
            "clas\0",
            "Class",
            "cLASS",
            "classs",
            "ids",
        ];
        let mut names: Vec<String> = common
            .split_whitespace()
            .chain(odd)
            .flat_map(|n| [n.to_string(), n.to_uppercase()])
            .collect();
        for a in 'a'..='z' {
            names.push(a.to_string());
            for b in ('a'..='z').chain('0'..='9') {
                names.push(format!("{a}{b}"));
            }
        }
        for name in names {
            let expected: String = name
                .chars()
                .map(|c| match c {
                    '\0' => '\u{fffd}',
                    c => c.to_ascii_lowercase(),
                })
                .collect();
            assert_eq!(
                local_name(&name),
                LocalName::from(expected.clone()),
                "{name}"
            );
            assert_eq!(attribute_name(&name), LocalName::from(expected), "{name}");
        }
    }

    #[test]
    fn kept_attributes_are_the_pre_passs() {
        let kept = super::super::nesting::KEPT_ATTRIBUTES;
        // Each kept name with each of its bytes changed to every byte
        // value (its other case among them), and cut or lengthened.
        for name in kept {
            for at in 0..name.len() {
                for c in 0..=255u8 {
                    let mut b = name.as_bytes().to_vec();
                    b[at] = c;
                    let expected = std::str::from_utf8(&b)
                        .is_ok_and(|s| super::super::nesting::keeps_attribute(false, s));
                    assert_eq!(kept_attribute(&b), expected, "{b:?}");
                }
            }
            let upper = name.to_uppercase();
            assert!(kept_attribute(upper.as_bytes()), "{upper}");
            for cut in [&name[1..], &name[..name.len() - 1], &format!("{name}x")] {
                assert_eq!(
                    kept_attribute(cut.as_bytes()),
                    super::super::nesting::keeps_attribute(false, cut),
                    "{cut}"
                );
            }
        }
        for name in [
            "href", "src", "style", "data-id", "classes", "i", "item", "",
        ] {
            assert!(!kept_attribute(name.as_bytes()), "{name}");
        }
    }

    #[test]
    fn attributes_that_cannot_matter_are_skipped() {
        // Each page, and the page with only the attributes that can matter.
        let cases = [
            (
                "<p>x<div class=\"a b\" data-x='{\"k\": \"<p>\"}' ID=c href=/z>y</div>",
                "<p>x<div class=\"a b\" ID=c>y</div>",
            ),
            ("<p>x<img src=a/>y", "<p>x<img>y"),
            ("<p>x<br class=a />y", "<p>x<br class=a />y"),
            // `="x>"` opens no value: the tag ends at the first `>`.
            ("<p>x<span =\"x>\">y", "<p>x<span>\">y"),
            ("<p>x<span a=\"1\"b='2'class=c>y", "<p>x<span class=c>y"),
            (
                "<p>x<span Class=\"a\"b='2'id='c'style=\"d\">y",
                "<p>x<span Class=\"a\"id='c'>y",
            ),
            (
                "<p>x<td title = \"a>b\" class = 'c'>y",
                "<p>x<td class = 'c'>y",
            ),
            ("<p>x<input type=hidden value=1>", "<p>x<input type=hidden>"),
            // Formatting elements keep theirs: the tree builder compares them.
            (
                "<p>x<font color=red href=1>y",
                "<p>x<font color=red href=1>y",
            ),
            ("<p>x<b onclick=go()>y", "<p>x<b onclick=go()>y"),
            ("<title lang=en>a<b</title>", "<title>a<b</title>"),
            (
                "<p CLASS=a Class=b>x</p class=c>",
                "<p class=a class=b>x</p class=c>",
            ),
        ];
        for (html, lean) in cases {
            let sink = Record::default();
            feed(&StrTendril::from_slice(html), &sink, false).unwrap();
            assert_eq!(sink.0.into_inner(), html5ever_tokens(lean), "{html}");
        }
    }

    #[test]
    fn the_pre_pass_is_read_from_the_tokens_unless_they_part() {
        let pruned =
            |html: &str| feed_pruned(&StrTendril::from_slice(html), &Record::default(), 512);
        // Comments, scripts, styles and the head's metadata: read through.
        let page = "<!doctype html><html><head><meta charset=utf-8><title>T</title>\
            <script>var a = '<p>';</script><link rel=x></head><body><!-- c --><p class=a>x &amp; y\
            <style>p{}</style></p></body></html>";
        assert_eq!(pruned(page), Ok(()));
        // Where the pre-pass would join text into markup, or nesting is
        // past the cap, the caller prepares the page instead.
        for html in [
            "a&am<!-- c -->p;",
            "<<!-- c -->p>",
            "<a =\"x>\">",
            "x\r\ny",
            "<p>a</ <!-- -->",
        ] {
            assert_eq!(pruned(html), Err(Unsupported), "{html}");
        }
        assert_eq!(
            feed_pruned(
                &StrTendril::from_slice("<div><div><div>"),
                &Record::default(),
                2
            ),
            Err(Unsupported)
        );
    }

    #[test]
    fn vector_searches_find_what_memchr_finds() {
        // Needles sparse enough that some searches run past the vector
        // head into memchr, at every start and length.
        let hay: Vec<u8> = (0..300u32)
            .map(|i| match i * 37 % 101 {
                0 => b'<',
                1 => b'&',
                2 => 0,
                _ => b"ab c\xe4\xb8\xad"[(i % 7) as usize],
            })
            .collect();
        for from in 0..hay.len() {
            for to in from..=hay.len() {
                let h = &hay[from..to];
                assert_eq!(find_any([b'<'], h), memchr::memchr(b'<', h));
                assert_eq!(find_any([b'&', 0], h), memchr::memchr2(b'&', 0, h));
                assert_eq!(
                    find_any([b'<', b'&', 0], h),
                    memchr::memchr3(b'<', b'&', 0, h)
                );
                assert_eq!(find_any([b'z'], h), None);
            }
        }
    }

    #[test]
    fn text_runs_read_alike_wherever_markup_falls() {
        // A run long enough for the vector head and memchr, with a piece
        // that ends it, decodes in it or must be normalised put at every
        // character boundary.
        let run = "Plain words, then 中文的段落 and more text to pass sixty-four bytes, \
                   and a second line\nwith a tab\tin it";
        let pieces = [
            "<b>",
            "</b>",
            "<!-- c -->",
            "&amp;",
            "&amp",
            "&am",
            "&#x41;",
            "&",
            "\0",
            "\r\n",
            "\r",
            "<",
            "</",
            "<p class='a&amp;b'>",
            "&lt;&gt;",
        ];
        for piece in pieces {
            for at in (0..=run.len()).filter(|&i| run.is_char_boundary(i)) {
                let html = format!("<p>{}{piece}{}</p>", &run[..at], &run[at..]);
                assert_eq!(
                    lexer_tokens(&html).as_ref(),
                    Ok(&html5ever_tokens(&html)),
                    "{html:?}"
                );
            }
        }
    }

    #[test]
    fn lexing_stops_where_asked() {
        let page =
            StrTendril::from_slice("<p>a</p><table><tr><td>b</td></tr></table><p>c &amp; d</p>");
        let sink = Record::default();
        let stop = || sink.0.borrow().iter().any(|t| t.contains("table"));
        assert_eq!(feed_pruned_until(&page, &sink, 512, stop), Err(Unsupported));
        let tokens = sink.0.into_inner();
        assert!(tokens.last().unwrap().contains("table"), "{tokens:?}");
        assert!(!tokens.iter().any(|t| t.contains("eof")), "{tokens:?}");
        // Never asked: the whole page.
        let sink = Record::default();
        assert_eq!(feed_pruned_until(&page, &sink, 512, || false), Ok(()));
        assert!(sink.0.into_inner().last().unwrap().contains("eof"));
    }

    #[test]
    fn escaped_scripts_are_left_to_html5ever() {
        assert_eq!(
            lexer_tokens("<script><!-- <script> x </script> --></script>"),
            Err(Unsupported)
        );
        assert!(lexer_tokens("<script>a</script><p><!-- x -->").is_ok());
    }

    #[test]
    fn bad_input_does_not_panic() {
        for html in [
            "<",
            "&",
            "<!",
            "<!-",
            "</",
            "<a",
            "<a ",
            "<a b",
            "<a b=",
            "<a b='",
            "<a/",
            "&#x",
            "<title>",
            "<title></title",
            "<script>",
            "\0",
            "<\0>",
            "<a \0=\0>",
            "<!doctype",
            "&#xFFFFFFFFF;",
            "<p>中</",
            "<p a=中>",
        ] {
            let _ = lexer_tokens(html);
        }
    }
}
