//! A tree builder for the common page, fed by [`super::lexer`]: it builds
//! the flat view ([`super::dom::Dom`]) of the tree html5ever's tree builder would,
//! following the same rules of the HTML standard, for pages that need none
//! of its harder repairs, and gives up at the first token that would
//! (text or an element that a table would foster parent, `<template>`,
//! `<frameset>`, SVG or MathML, ruby pieces, misnested formatting that the
//! adoption agency would move, a NUL in the text). The caller then parses
//! the page with html5ever's builder. Tables are built (their modes, the
//! implied `tbody`, `tr` and `colgroup`, cells closed by the next one):
//! old pages lay out with them, and giving up parsed them twice.
//!
//! Why: html5ever's builder was about a third of extraction's instructions,
//! most of it generic plumbing around simple steps (a queue per token, a
//! sink call and a borrow per name read, every scope check comparing
//! names through the sink). Here the stack of open elements carries each
//! element's name and its classes (special, scope boundary, implied end
//! tag) as bits read once when the element is made.
//!
//! It writes the flat view itself, element by element, instead of a tree
//! to be walked again: its steps only append to open elements, so nodes
//! come in document order, and an element is closed in the flat view when
//! something is next appended to one of its ancestors (as a tree's walk
//! would leave it). Where a node would go before one already written (text
//! or an element put into a `<head>` with text after it), it gives up too.

use std::cell::RefCell;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{Tag, TagKind, Token, TokenSinkResult};
use html5ever::{local_name, ns, Attribute, LocalName};

use super::dom::{self, Dom};

/// An element: its index in the flat view.
type NodeId = u32;

/// The document, parent of the root element.
const DOCUMENT: NodeId = u32::MAX;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    Initial,
    BeforeHtml,
    BeforeHead,
    InHead,
    AfterHead,
    InBody,
    Text,
    InTable,
    InCaption,
    InColumnGroup,
    InTableBody,
    InRow,
    InCell,
    AfterBody,
    AfterAfterBody,
}

/// The standard's element classes that the steps below test, as bits.
const SPECIAL: u8 = 1;
/// Ends the default scope (html5ever's `html_default_scope`).
const SCOPE: u8 = 2;
/// Popped by "generate implied end tags".
const IMPLIED: u8 = 4;
const HEADING: u8 = 8;
/// Ends the list item scope besides the default scope's elements.
const LIST: u8 = 16;
/// Ends the button scope besides the default scope's elements.
const BUTTON: u8 = 32;

fn classes(name: &LocalName) -> u8 {
    match *name {
        local_name!("dd") | local_name!("dt") | local_name!("li") => SPECIAL | IMPLIED,
        local_name!("p") => SPECIAL | IMPLIED,
        local_name!("option")
        | local_name!("optgroup")
        | local_name!("rb")
        | local_name!("rp")
        | local_name!("rt")
        | local_name!("rtc") => IMPLIED,
        local_name!("h1")
        | local_name!("h2")
        | local_name!("h3")
        | local_name!("h4")
        | local_name!("h5")
        | local_name!("h6") => SPECIAL | HEADING,
        local_name!("ol") | local_name!("ul") => SPECIAL | LIST,
        local_name!("button") => SPECIAL | BUTTON,
        local_name!("applet")
        | local_name!("caption")
        | local_name!("html")
        | local_name!("table")
        | local_name!("td")
        | local_name!("th")
        | local_name!("marquee")
        | local_name!("object")
        | local_name!("select")
        | local_name!("template") => SPECIAL | SCOPE,
        local_name!("address")
        | local_name!("area")
        | local_name!("article")
        | local_name!("aside")
        | local_name!("base")
        | local_name!("basefont")
        | local_name!("bgsound")
        | local_name!("blockquote")
        | local_name!("body")
        | local_name!("br")
        | local_name!("center")
        | local_name!("col")
        | local_name!("colgroup")
        | local_name!("details")
        | local_name!("dir")
        | local_name!("div")
        | local_name!("dl")
        | local_name!("embed")
        | local_name!("fieldset")
        | local_name!("figcaption")
        | local_name!("figure")
        | local_name!("footer")
        | local_name!("form")
        | local_name!("frame")
        | local_name!("frameset")
        | local_name!("head")
        | local_name!("header")
        | local_name!("hgroup")
        | local_name!("hr")
        | local_name!("iframe")
        | local_name!("img")
        | local_name!("input")
        | local_name!("isindex")
        | local_name!("link")
        | local_name!("listing")
        | local_name!("main")
        | local_name!("menu")
        | local_name!("meta")
        | local_name!("nav")
        | local_name!("noembed")
        | local_name!("noframes")
        | local_name!("noscript")
        | local_name!("param")
        | local_name!("plaintext")
        | local_name!("pre")
        | local_name!("script")
        | local_name!("section")
        | local_name!("source")
        | local_name!("style")
        | local_name!("summary")
        | local_name!("tbody")
        | local_name!("textarea")
        | local_name!("tfoot")
        | local_name!("thead")
        | local_name!("title")
        | local_name!("tr")
        | local_name!("track")
        | local_name!("wbr")
        | local_name!("xmp") => SPECIAL,
        _ => 0,
    }
}

struct Open {
    id: NodeId,
    name: LocalName,
    classes: u8,
}

enum Entry {
    Marker,
    /// An element and the token it was made for (compared by the Noah's
    /// Ark clause, copied when the element is reconstructed).
    Element(NodeId, Tag),
}

/// The page needs a step this builder leaves to html5ever's.
struct GiveUp;

type Step = Result<TokenSinkResult<NodeId>, GiveUp>;

const DONE: Step = Ok(TokenSinkResult::Continue);

/// A token as the steps read it, lent by the lexer.
#[derive(Clone, Copy)]
enum Tok<'t> {
    Chars(&'t str),
    Tag(&'t Tag),
    Comment,
    Eof,
}

struct State {
    /// The page's flat view, built as the elements are made: the
    /// standard's steps here only ever append to the open elements, so
    /// the tree comes in document order save where `<head>` is reopened,
    /// and a tree of nodes to walk again is not needed.
    flat: dom::DomBuilder,
    /// `class`, `id` and `itemprop` of `<html>` and `<body>`, which a
    /// second `<html>` or `<body>` tag completes.
    root_attrs: Vec<(NodeId, [Option<StrTendril>; 3])>,
    open: Vec<Open>,
    formatting: Vec<Entry>,
    mode: Mode,
    /// The mode to return to after raw text.
    original: Mode,
    head: Option<NodeId>,
    form: Option<NodeId>,
    /// Whether the document is in quirks mode (which keeps a `<p>` open
    /// around a `<table>`); `None` for a doctype this builder does not
    /// classify.
    quirks: Option<bool>,
    ignore_lf: bool,
    /// A node went before one already in the flat view.
    out_of_order: bool,
    failed: bool,
}

/// See the module's documentation. Feed it tokens, then [`FlatTreeBuilder::finish`].
pub struct FlatTreeBuilder {
    state: RefCell<State>,
}

impl FlatTreeBuilder {
    /// A builder for a page of `page_bytes` bytes.
    pub fn new(page_bytes: usize) -> FlatTreeBuilder {
        FlatTreeBuilder {
            state: RefCell::new(State {
                flat: dom::DomBuilder::for_page(page_bytes),
                root_attrs: Vec::new(),
                open: Vec::with_capacity(64),
                formatting: Vec::new(),
                mode: Mode::Initial,
                original: Mode::Initial,
                head: None,
                form: None,
                // A page without a doctype is in quirks mode.
                quirks: Some(true),
                ignore_lf: false,
                out_of_order: false,
                failed: false,
            }),
        }
    }

    /// Whether the page needs html5ever's builder: the rest of its tokens
    /// would be dropped.
    pub fn gave_up(&self) -> bool {
        self.state.borrow().failed
    }

    /// The page's flat view, or `None` if the page needed html5ever's
    /// builder.
    pub fn finish(self) -> Option<Dom> {
        let state = self.state.into_inner();
        let dom = state.flat.finish();
        (!state.failed).then_some(dom)
    }
}

impl FlatTreeBuilder {
    /// The step for `tok`; a builder that cannot take it gives up.
    #[inline]
    fn feed(&self, s: &mut State, tok: Tok) -> TokenSinkResult<NodeId> {
        let mode = s.mode;
        // Most tokens come in the body: straight to its steps, without the
        // dispatch over every mode (whose frame costs more than the test).
        let step = if mode == Mode::InBody {
            s.in_body(tok)
        } else {
            s.step(mode, tok)
        };
        match step {
            Ok(result) if !s.out_of_order => result,
            _ => {
                s.failed = true;
                TokenSinkResult::Continue
            }
        }
    }

    fn chars(&self, text: &str) {
        let mut s = self.state.borrow_mut();
        if s.failed {
            return;
        }
        let ignore_lf = std::mem::take(&mut s.ignore_lf);
        let text = match text.strip_prefix('\n') {
            Some(rest) if ignore_lf => rest,
            _ => text,
        };
        if text.is_empty() {
            return;
        }
        if s.mode == Mode::InBody {
            // Text in the body, the most common token, takes in_body's
            // first step here.
            if s.reconstruct().is_err() {
                s.failed = true;
                return;
            }
            s.text(text);
            if s.out_of_order {
                s.failed = true;
            }
            return;
        }
        let _ = self.feed(&mut s, Tok::Chars(text));
    }
}

impl super::lexer::Sink for FlatTreeBuilder {
    type Handle = NodeId;

    fn token(&self, token: Token) -> TokenSinkResult<NodeId> {
        let token = match token {
            Token::CharacterTokens(text) => {
                self.chars(&text);
                return TokenSinkResult::Continue;
            }
            Token::TagToken(mut tag) => return super::lexer::Sink::tag(self, &mut tag),
            token => token,
        };
        let mut s = self.state.borrow_mut();
        if s.failed {
            return TokenSinkResult::Continue;
        }
        // Any token ends the skipping of a newline after `<pre>`.
        s.ignore_lf = false;
        let tok = match token {
            Token::DoctypeToken(doctype) => {
                // Quirks mode changes only whether `<table>` closes a `<p>`.
                if s.mode == Mode::Initial {
                    s.quirks = quirks(&doctype);
                    s.mode = Mode::BeforeHtml;
                }
                return TokenSinkResult::Continue;
            }
            Token::CommentToken(_) => Tok::Comment,
            Token::NullCharacterToken => {
                s.failed = true;
                return TokenSinkResult::Continue;
            }
            Token::EOFToken => Tok::Eof,
            Token::ParseError(_) | Token::CharacterTokens(_) | Token::TagToken(_) => {
                return TokenSinkResult::Continue
            }
        };
        self.feed(&mut s, tok)
    }

    #[inline]
    fn page_text(&self, page: &StrTendril, from: usize, to: usize) {
        match page.get(from..to) {
            Some(text) => self.chars(text),
            None => {
                let _ = self.token(Token::CharacterTokens(
                    page.subtendril(from as u32, (to - from) as u32),
                ));
            }
        }
    }

    #[inline]
    fn tag(&self, tag: &mut Tag) -> TokenSinkResult<NodeId> {
        let mut s = self.state.borrow_mut();
        if s.failed {
            return TokenSinkResult::Continue;
        }
        s.ignore_lf = false;
        self.feed(&mut s, Tok::Tag(tag))
    }

    fn end(&self) {}

    fn in_foreign_content(&self) -> bool {
        // SVG and MathML are left to html5ever.
        false
    }
}

/// An end tag the "before html" and "before head" modes drop: all but
/// `</head>`, `</body>`, `</html>` and `</br>`, which act there.
fn ignored_before_head(tag: &Tag) -> bool {
    tag.kind == TagKind::EndTag
        && !matches!(
            tag.name,
            local_name!("head") | local_name!("body") | local_name!("html") | local_name!("br")
        )
}

/// The leading run of ASCII whitespace, as html5ever splits text in the
/// modes outside the body.
fn split_space(text: &str) -> usize {
    text.as_bytes()
        .iter()
        .position(|b| !matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' '))
        .unwrap_or(text.len())
}

impl State {
    /// The tree construction stage's dispatch on the insertion mode.
    fn step(&mut self, mode: Mode, tok: Tok<'_>) -> Step {
        match mode {
            Mode::Initial => self.initial(tok),
            Mode::BeforeHtml => self.before_html(tok),
            Mode::BeforeHead => self.before_head(tok),
            Mode::InHead => self.in_head(tok),
            Mode::AfterHead => self.after_head(tok),
            Mode::InBody => self.in_body(tok),
            Mode::InTable => self.in_table(tok),
            Mode::InCaption => self.in_caption(tok),
            Mode::InColumnGroup => self.in_column_group(tok),
            Mode::InTableBody => self.in_table_body(tok),
            Mode::InRow => self.in_row(tok),
            Mode::InCell => self.in_cell(tok),
            Mode::Text => self.in_text(tok),
            Mode::AfterBody | Mode::AfterAfterBody => self.after_body(mode, tok),
        }
    }

    /// The "initial" insertion mode.
    fn initial(&mut self, tok: Tok<'_>) -> Step {
        match tok {
            Tok::Chars(text) => {
                let n = split_space(text);
                if n == text.len() {
                    return DONE;
                }
                self.reprocess(Mode::BeforeHtml, Tok::Chars(&text[n..]))
            }
            Tok::Comment => self.comment_to(0),
            tok => self.reprocess(Mode::BeforeHtml, tok),
        }
    }

    /// The "before html" insertion mode.
    fn before_html(&mut self, tok: Tok<'_>) -> Step {
        match tok {
            Tok::Comment => self.comment_to(0),
            Tok::Chars(text) => {
                let n = split_space(text);
                if n == text.len() {
                    return DONE;
                }
                self.create_root(&[]);
                self.reprocess(Mode::BeforeHead, Tok::Chars(&text[n..]))
            }
            Tok::Tag(tag) if tag.kind == TagKind::StartTag && tag.name == local_name!("html") => {
                self.create_root(&tag.attrs);
                self.mode = Mode::BeforeHead;
                DONE
            }
            Tok::Tag(tag) if ignored_before_head(tag) => DONE,
            tok => {
                self.create_root(&[]);
                self.reprocess(Mode::BeforeHead, tok)
            }
        }
    }

    /// The "before head" insertion mode.
    fn before_head(&mut self, tok: Tok<'_>) -> Step {
        match tok {
            Tok::Chars(text) => {
                let n = split_space(text);
                if n == text.len() {
                    return DONE;
                }
                let head = self.insert(local_name!("head"), &[]);
                self.head = Some(head);
                self.reprocess(Mode::InHead, Tok::Chars(&text[n..]))
            }
            Tok::Comment => self.comment(),
            Tok::Tag(tag) if tag.kind == TagKind::StartTag && tag.name == local_name!("html") => {
                self.html_attributes(&tag.attrs)
            }
            Tok::Tag(tag) if tag.kind == TagKind::StartTag && tag.name == local_name!("head") => {
                let head = self.insert(tag.name.clone(), &tag.attrs);
                self.head = Some(head);
                self.mode = Mode::InHead;
                DONE
            }
            Tok::Tag(tag) if ignored_before_head(tag) => DONE,
            tok => {
                let head = self.insert(local_name!("head"), &[]);
                self.head = Some(head);
                self.reprocess(Mode::InHead, tok)
            }
        }
    }

    /// The "after head" insertion mode.
    fn after_head(&mut self, tok: Tok<'_>) -> Step {
        match tok {
            Tok::Chars(text) => {
                let n = split_space(text);
                if n > 0 {
                    self.text(&text[..n]);
                }
                if n == text.len() {
                    return DONE;
                }
                self.insert(local_name!("body"), &[]);
                self.reprocess(Mode::InBody, Tok::Chars(&text[n..]))
            }
            Tok::Comment => self.comment(),
            Tok::Tag(tag) => match (tag.kind, &tag.name) {
                (TagKind::StartTag, &local_name!("html")) => self.html_attributes(&tag.attrs),
                (TagKind::StartTag, &local_name!("body")) => {
                    self.insert(tag.name.clone(), &tag.attrs);
                    self.mode = Mode::InBody;
                    DONE
                }
                (TagKind::StartTag, &local_name!("frameset") | &local_name!("template")) => {
                    Err(GiveUp)
                }
                (
                    TagKind::StartTag,
                    &local_name!("base")
                    | &local_name!("basefont")
                    | &local_name!("bgsound")
                    | &local_name!("link")
                    | &local_name!("meta")
                    | &local_name!("noframes")
                    | &local_name!("script")
                    | &local_name!("style")
                    | &local_name!("title"),
                ) => {
                    let head = self.head.ok_or(GiveUp)?;
                    self.push(head, local_name!("head"));
                    let result = self.in_head(Tok::Tag(tag));
                    if let Some(at) = self.open.iter().rposition(|o| o.id == head) {
                        self.open.remove(at);
                    }
                    result
                }
                (
                    TagKind::EndTag,
                    &local_name!("body") | &local_name!("html") | &local_name!("br"),
                ) => {
                    self.insert(local_name!("body"), &[]);
                    self.reprocess(Mode::InBody, Tok::Tag(tag))
                }
                (TagKind::EndTag, _) | (TagKind::StartTag, &local_name!("head")) => DONE,
                _ => {
                    self.insert(local_name!("body"), &[]);
                    self.reprocess(Mode::InBody, Tok::Tag(tag))
                }
            },
            Tok::Eof => {
                self.insert(local_name!("body"), &[]);
                self.reprocess(Mode::InBody, Tok::Eof)
            }
        }
    }

    /// The "text" insertion mode.
    fn in_text(&mut self, tok: Tok<'_>) -> Step {
        match tok {
            Tok::Chars(text) => {
                self.text(text);
                DONE
            }
            Tok::Eof => {
                self.pop();
                let original = self.original;
                self.reprocess(original, Tok::Eof)
            }
            Tok::Tag(tag) if tag.kind == TagKind::EndTag => {
                let node = self.pop().ok_or(GiveUp)?;
                self.mode = self.original;
                if tag.name == local_name!("script") {
                    return Ok(TokenSinkResult::Script(node));
                }
                DONE
            }
            _ => Err(GiveUp),
        }
    }

    /// The "after body" and "after after body" insertion modes.
    fn after_body(&mut self, mode: Mode, tok: Tok<'_>) -> Step {
        match tok {
            Tok::Chars(text) => {
                let n = split_space(text);
                if n > 0 {
                    self.reconstruct()?;
                    self.text(&text[..n]);
                }
                if n == text.len() {
                    return DONE;
                }
                self.reprocess(Mode::InBody, Tok::Chars(&text[n..]))
            }
            Tok::Comment => {
                if mode == Mode::AfterBody {
                    let html = self.open.first().ok_or(GiveUp)?.id;
                    self.comment_to(html)
                } else {
                    self.comment_to(0)
                }
            }
            Tok::Tag(tag) if tag.kind == TagKind::StartTag && tag.name == local_name!("html") => {
                self.html_attributes(&tag.attrs)
            }
            Tok::Tag(tag)
                if mode == Mode::AfterBody
                    && tag.kind == TagKind::EndTag
                    && tag.name == local_name!("html") =>
            {
                self.mode = Mode::AfterAfterBody;
                DONE
            }
            Tok::Eof => DONE,
            tok => self.reprocess(Mode::InBody, tok),
        }
    }

    fn reprocess(&mut self, mode: Mode, tok: Tok<'_>) -> Step {
        self.mode = mode;
        self.step(mode, tok)
    }

    fn in_head(&mut self, tok: Tok<'_>) -> Step {
        let tag = match tok {
            Tok::Chars(text) => {
                let n = split_space(text);
                if n > 0 {
                    self.text(&text[..n]);
                }
                if n == text.len() {
                    return DONE;
                }
                self.pop();
                return self.reprocess(Mode::AfterHead, Tok::Chars(&text[n..]));
            }
            Tok::Comment => return self.comment(),
            Tok::Eof => {
                self.pop();
                return self.reprocess(Mode::AfterHead, Tok::Eof);
            }
            Tok::Tag(tag) => tag,
        };
        match (tag.kind, &tag.name) {
            (TagKind::StartTag, &local_name!("html")) => self.html_attributes(&tag.attrs),
            (
                TagKind::StartTag,
                &local_name!("base")
                | &local_name!("basefont")
                | &local_name!("bgsound")
                | &local_name!("link")
                | &local_name!("meta"),
            ) => self.head_void(tag),
            (TagKind::StartTag, &local_name!("title")) => self.raw_text(tag, RawKind::Rcdata),
            (
                TagKind::StartTag,
                &local_name!("noframes") | &local_name!("style") | &local_name!("noscript"),
            ) => self.raw_text(tag, RawKind::Rawtext),
            (TagKind::StartTag, &local_name!("script")) => self.raw_text(tag, RawKind::ScriptData),
            (TagKind::EndTag, &local_name!("head")) => {
                self.pop();
                self.mode = Mode::AfterHead;
                DONE
            }
            (TagKind::StartTag, &local_name!("template")) => Err(GiveUp),
            (TagKind::EndTag, &local_name!("body") | &local_name!("html") | &local_name!("br")) => {
                self.pop();
                self.reprocess(Mode::AfterHead, Tok::Tag(tag))
            }
            // `</template>` with no template open, `<head>`, other end tags.
            (TagKind::EndTag, _) | (TagKind::StartTag, &local_name!("head")) => DONE,
            _ => {
                self.pop();
                self.reprocess(Mode::AfterHead, Tok::Tag(tag))
            }
        }
    }

    /// `<base>`, `<link>`, `<meta>`...: made and closed, a `<meta>`'s
    /// charset reported as html5ever's builder reports it.
    fn head_void(&mut self, tag: &Tag) -> Step {
        let mut charset = None;
        let mut http_equiv = false;
        for a in &tag.attrs {
            if a.name.ns != ns!() {
                continue;
            }
            if a.name.local == local_name!("charset") && charset.is_none() {
                charset = Some(a.value.clone());
            }
            if a.name.local == local_name!("http-equiv") {
                http_equiv = true;
            }
        }
        if charset.is_none() && http_equiv {
            // Reading the charset out of `content` is left to html5ever.
            return Err(GiveUp);
        }
        self.insert_void(tag.name.clone(), &tag.attrs);
        Ok(match charset {
            Some(c) => TokenSinkResult::EncodingIndicator(c),
            None => TokenSinkResult::Continue,
        })
    }

    fn raw_text(&mut self, tag: &Tag, kind: RawKind) -> Step {
        self.insert(tag.name.clone(), &tag.attrs);
        self.original = self.mode;
        self.mode = Mode::Text;
        Ok(TokenSinkResult::RawData(kind))
    }

    /// The "in body" insertion mode. It stays one long match, past the
    /// length the code keeps to elsewhere: the standard lists this mode as
    /// one table of start and end tags, and keeping its shape lets each
    /// arm be read against the standard's entry for the same tag.
    fn in_body(&mut self, tok: Tok<'_>) -> Step {
        let tag = match tok {
            Tok::Chars(text) => {
                self.reconstruct()?;
                self.text(text);
                return DONE;
            }
            Tok::Comment => return self.comment(),
            Tok::Eof => return DONE,
            Tok::Tag(tag) => tag,
        };
        if tag.kind == TagKind::EndTag {
            return self.end_tag_in_body(tag);
        }
        match tag.name {
            local_name!("html") => self.html_attributes(&tag.attrs),
            local_name!("base")
            | local_name!("basefont")
            | local_name!("bgsound")
            | local_name!("link")
            | local_name!("meta")
            | local_name!("noframes")
            | local_name!("script")
            | local_name!("style")
            | local_name!("title") => self.in_head(Tok::Tag(tag)),
            local_name!("body") => {
                if self.open.len() > 1 && self.open[1].name == local_name!("body") {
                    let body = self.open[1].id;
                    self.add_attributes(body, &tag.attrs);
                }
                DONE
            }
            local_name!("address")
            | local_name!("article")
            | local_name!("aside")
            | local_name!("blockquote")
            | local_name!("center")
            | local_name!("details")
            | local_name!("dialog")
            | local_name!("dir")
            | local_name!("div")
            | local_name!("dl")
            | local_name!("fieldset")
            | local_name!("figcaption")
            | local_name!("figure")
            | local_name!("footer")
            | local_name!("header")
            | local_name!("hgroup")
            | local_name!("main")
            | local_name!("nav")
            | local_name!("ol")
            | local_name!("p")
            | local_name!("search")
            | local_name!("section")
            | local_name!("summary")
            | local_name!("ul")
            | local_name!("menu") => {
                self.close_p_in_button_scope();
                self.insert(tag.name.clone(), &tag.attrs);
                DONE
            }
            local_name!("h1")
            | local_name!("h2")
            | local_name!("h3")
            | local_name!("h4")
            | local_name!("h5")
            | local_name!("h6") => {
                self.close_p_in_button_scope();
                if self.current_classes() & HEADING != 0 {
                    self.pop();
                }
                self.insert(tag.name.clone(), &tag.attrs);
                DONE
            }
            local_name!("pre") | local_name!("listing") => {
                self.close_p_in_button_scope();
                self.insert(tag.name.clone(), &tag.attrs);
                self.ignore_lf = true;
                DONE
            }
            local_name!("form") => {
                if self.form.is_none() {
                    self.close_p_in_button_scope();
                    let form = self.insert(tag.name.clone(), &tag.attrs);
                    self.form = Some(form);
                }
                DONE
            }
            local_name!("li") | local_name!("dd") | local_name!("dt") => {
                let list = tag.name == local_name!("li");
                let mut to_close = None;
                for o in self.open.iter().rev() {
                    let closes = if list {
                        o.name == local_name!("li")
                    } else {
                        matches!(o.name, local_name!("dd") | local_name!("dt"))
                    };
                    if closes {
                        to_close = Some(o.name.clone());
                        break;
                    }
                    if o.classes & SPECIAL != 0
                        && !matches!(
                            o.name,
                            local_name!("address") | local_name!("div") | local_name!("p")
                        )
                    {
                        break;
                    }
                }
                if let Some(name) = to_close {
                    self.implied_end_tags(Some(&name));
                    self.pop_until(&name);
                }
                self.close_p_in_button_scope();
                self.insert(tag.name.clone(), &tag.attrs);
                DONE
            }
            local_name!("plaintext") => {
                self.close_p_in_button_scope();
                self.insert(tag.name.clone(), &tag.attrs);
                Ok(TokenSinkResult::Plaintext)
            }
            local_name!("button") => {
                if self.in_scope(&local_name!("button"), 0) {
                    self.implied_end_tags(None);
                    self.pop_until(&local_name!("button"));
                }
                self.reconstruct()?;
                self.insert(tag.name.clone(), &tag.attrs);
                DONE
            }
            local_name!("a") => {
                let open_a = self
                    .formatting_after_marker()
                    .find(|(_, _, t)| t.name == local_name!("a"))
                    .map(|(_, id, _)| id);
                if let Some(node) = open_a {
                    self.adoption_agency(local_name!("a"))?;
                    if let Some(at) = self.formatting_position(node) {
                        self.formatting.remove(at);
                    }
                    if let Some(at) = self.open.iter().rposition(|o| o.id == node) {
                        self.open.remove(at);
                    }
                }
                self.reconstruct()?;
                self.formatting_element(tag);
                DONE
            }
            local_name!("nobr") => {
                self.reconstruct()?;
                if self.in_scope(&local_name!("nobr"), 0) {
                    self.adoption_agency(local_name!("nobr"))?;
                    self.reconstruct()?;
                }
                self.formatting_element(tag);
                DONE
            }
            ref name if super::nesting::is_formatting(name) => {
                self.reconstruct()?;
                self.formatting_element(tag);
                DONE
            }
            local_name!("applet") | local_name!("marquee") | local_name!("object") => {
                self.reconstruct()?;
                self.insert(tag.name.clone(), &tag.attrs);
                self.formatting.push(Entry::Marker);
                DONE
            }
            local_name!("area")
            | local_name!("br")
            | local_name!("embed")
            | local_name!("img")
            | local_name!("keygen")
            | local_name!("wbr") => {
                self.reconstruct()?;
                self.insert_void(tag.name.clone(), &tag.attrs);
                DONE
            }
            // `<select>`, `<option>`, `<optgroup>`, `<input>` and `<hr>`
            // as html5ever reads them since its `<select>` is parsed in the
            // body (the "in select" modes are gone from the standard).
            local_name!("input") => {
                if self.in_scope(&local_name!("select"), 0) {
                    self.pop_until(&local_name!("select"));
                }
                self.reconstruct()?;
                self.insert_void(tag.name.clone(), &tag.attrs);
                DONE
            }
            local_name!("select") => {
                if self.in_scope(&local_name!("select"), 0) {
                    self.pop_until(&local_name!("select"));
                } else {
                    self.reconstruct()?;
                    self.insert(tag.name.clone(), &tag.attrs);
                }
                DONE
            }
            local_name!("image") => {
                self.reconstruct()?;
                self.insert_void(local_name!("img"), &tag.attrs);
                DONE
            }
            local_name!("param") | local_name!("source") | local_name!("track") => {
                self.insert_void(tag.name.clone(), &tag.attrs);
                DONE
            }
            local_name!("hr") => {
                self.close_p_in_button_scope();
                if self.in_scope(&local_name!("select"), 0) {
                    self.implied_end_tags(None);
                }
                self.insert_void(tag.name.clone(), &tag.attrs);
                DONE
            }
            local_name!("textarea") => {
                self.ignore_lf = true;
                self.raw_text(tag, RawKind::Rcdata)
            }
            local_name!("xmp") => {
                self.close_p_in_button_scope();
                self.reconstruct()?;
                self.raw_text(tag, RawKind::Rawtext)
            }
            // Scripting is on in html5ever's default options.
            local_name!("iframe") | local_name!("noembed") | local_name!("noscript") => {
                self.raw_text(tag, RawKind::Rawtext)
            }
            local_name!("option") | local_name!("optgroup") => {
                if self.in_scope(&local_name!("select"), 0) {
                    let optgroup = local_name!("optgroup");
                    let except = (tag.name == local_name!("option")).then_some(&optgroup);
                    self.implied_end_tags(except);
                } else if self
                    .open
                    .last()
                    .is_some_and(|o| o.name == local_name!("option"))
                {
                    self.pop();
                }
                self.reconstruct()?;
                self.insert(tag.name.clone(), &tag.attrs);
                DONE
            }
            local_name!("caption")
            | local_name!("col")
            | local_name!("colgroup")
            | local_name!("frame")
            | local_name!("head")
            | local_name!("tbody")
            | local_name!("td")
            | local_name!("tfoot")
            | local_name!("th")
            | local_name!("thead")
            | local_name!("tr") => DONE,
            local_name!("table") => {
                match self.quirks {
                    Some(true) => {}
                    Some(false) => self.close_p_in_button_scope(),
                    None if self.in_scope(&local_name!("p"), BUTTON) => return Err(GiveUp),
                    None => {}
                }
                self.insert(tag.name.clone(), &tag.attrs);
                self.mode = Mode::InTable;
                DONE
            }
            local_name!("template")
            | local_name!("frameset")
            | local_name!("math")
            | local_name!("svg")
            | local_name!("rb")
            | local_name!("rtc")
            | local_name!("rp")
            | local_name!("rt") => Err(GiveUp),
            _ => {
                self.reconstruct()?;
                self.insert(tag.name.clone(), &tag.attrs);
                DONE
            }
        }
    }

    /// "In table" (with "in table text"): whitespace text, comments and
    /// the table's own parts; text or an element that would be foster
    /// parented (moved before the table) is left to html5ever.
    fn in_table(&mut self, tok: Tok<'_>) -> Step {
        let tag = match tok {
            Tok::Chars(text) => {
                let tableish = self.open.last().is_some_and(|o| {
                    matches!(
                        o.name,
                        local_name!("table")
                            | local_name!("tbody")
                            | local_name!("tfoot")
                            | local_name!("thead")
                            | local_name!("tr")
                    )
                });
                if !tableish || split_space(text) != text.len() {
                    return Err(GiveUp);
                }
                self.text(text);
                return DONE;
            }
            Tok::Comment => return self.comment(),
            Tok::Eof => return self.in_body(Tok::Eof),
            Tok::Tag(tag) => tag,
        };
        if tag.kind == TagKind::EndTag {
            return match tag.name {
                local_name!("table") => {
                    if self.in_table_scope(|n| *n == local_name!("table")) {
                        self.pop_until(&local_name!("table"));
                        self.mode = self.reset_mode()?;
                    }
                    DONE
                }
                local_name!("body")
                | local_name!("caption")
                | local_name!("col")
                | local_name!("colgroup")
                | local_name!("html")
                | local_name!("tbody")
                | local_name!("td")
                | local_name!("tfoot")
                | local_name!("th")
                | local_name!("thead")
                | local_name!("tr") => DONE,
                // Both would make an element, foster parented.
                local_name!("template") | local_name!("p") | local_name!("br") => Err(GiveUp),
                // The rest only close elements, as in the body: none that
                // would move nodes, since the table ends every scope.
                _ => self.end_tag_in_body(tag),
            };
        }
        match tag.name {
            local_name!("caption") => {
                self.clear_to(TABLE_CONTEXT);
                self.formatting.push(Entry::Marker);
                self.insert(tag.name.clone(), &tag.attrs);
                self.mode = Mode::InCaption;
                DONE
            }
            local_name!("colgroup") => {
                self.clear_to(TABLE_CONTEXT);
                self.insert(tag.name.clone(), &tag.attrs);
                self.mode = Mode::InColumnGroup;
                DONE
            }
            local_name!("col") => {
                self.clear_to(TABLE_CONTEXT);
                self.insert(local_name!("colgroup"), &[]);
                self.reprocess(Mode::InColumnGroup, Tok::Tag(tag))
            }
            local_name!("tbody") | local_name!("tfoot") | local_name!("thead") => {
                self.clear_to(TABLE_CONTEXT);
                self.insert(tag.name.clone(), &tag.attrs);
                self.mode = Mode::InTableBody;
                DONE
            }
            local_name!("td") | local_name!("th") | local_name!("tr") => {
                self.clear_to(TABLE_CONTEXT);
                self.insert(local_name!("tbody"), &[]);
                self.reprocess(Mode::InTableBody, Tok::Tag(tag))
            }
            local_name!("table") => {
                if !self.in_table_scope(|n| *n == local_name!("table")) {
                    return DONE;
                }
                self.pop_until(&local_name!("table"));
                let mode = self.reset_mode()?;
                self.reprocess(mode, Tok::Tag(tag))
            }
            local_name!("style") | local_name!("script") => self.in_head(Tok::Tag(tag)),
            local_name!("input") => {
                let hidden = tag
                    .attrs
                    .iter()
                    .find(|a| a.name.ns == ns!() && a.name.local == local_name!("type"));
                if !hidden.is_some_and(|a| a.value.eq_ignore_ascii_case("hidden")) {
                    return Err(GiveUp);
                }
                self.insert_void(tag.name.clone(), &tag.attrs);
                DONE
            }
            local_name!("form") => {
                if self.form.is_none() {
                    let form = self.insert_void(tag.name.clone(), &tag.attrs);
                    self.form = Some(form);
                }
                DONE
            }
            _ => Err(GiveUp),
        }
    }

    fn in_caption(&mut self, tok: Tok<'_>) -> Step {
        let Tok::Tag(tag) = tok else {
            return self.in_body(tok);
        };
        let start = tag.kind == TagKind::StartTag;
        match tag.name {
            local_name!("caption") => self.close_caption(tag),
            local_name!("table") if !start => self.close_caption(tag),
            local_name!("col")
            | local_name!("colgroup")
            | local_name!("tbody")
            | local_name!("td")
            | local_name!("tfoot")
            | local_name!("th")
            | local_name!("thead")
            | local_name!("tr") => {
                if start {
                    self.close_caption(tag)
                } else {
                    DONE
                }
            }
            local_name!("body") | local_name!("html") if !start => DONE,
            _ => self.in_body(tok),
        }
    }

    fn close_caption(&mut self, tag: &Tag) -> Step {
        if !self.in_table_scope(|n| *n == local_name!("caption")) {
            return DONE;
        }
        self.implied_end_tags(None);
        self.pop_until(&local_name!("caption"));
        self.clear_formatting_to_marker();
        if tag.kind == TagKind::EndTag && tag.name == local_name!("caption") {
            self.mode = Mode::InTable;
            return DONE;
        }
        self.reprocess(Mode::InTable, Tok::Tag(tag))
    }

    fn in_column_group(&mut self, tok: Tok<'_>) -> Step {
        let current_is_colgroup = |s: &Self| {
            s.open
                .last()
                .is_some_and(|o| o.name == local_name!("colgroup"))
        };
        let tag = match tok {
            Tok::Chars(text) => {
                let n = split_space(text);
                if n > 0 {
                    self.text(&text[..n]);
                }
                // Other text would be foster parented.
                return if n == text.len() { DONE } else { Err(GiveUp) };
            }
            Tok::Comment => return self.comment(),
            Tok::Eof => return self.in_body(Tok::Eof),
            Tok::Tag(tag) => tag,
        };
        match (tag.kind, &tag.name) {
            (TagKind::StartTag, &local_name!("html")) => self.in_body(tok),
            (TagKind::StartTag, &local_name!("col")) => {
                self.insert_void(tag.name.clone(), &tag.attrs);
                DONE
            }
            (TagKind::EndTag, &local_name!("colgroup")) => {
                if current_is_colgroup(self) {
                    self.pop();
                    self.mode = Mode::InTable;
                }
                DONE
            }
            (TagKind::EndTag, &local_name!("col")) => DONE,
            (_, &local_name!("template")) => Err(GiveUp),
            _ => {
                if !current_is_colgroup(self) {
                    return DONE;
                }
                self.pop();
                self.reprocess(Mode::InTable, tok)
            }
        }
    }

    fn in_table_body(&mut self, tok: Tok<'_>) -> Step {
        let Tok::Tag(tag) = tok else {
            return self.in_table(tok);
        };
        let start = tag.kind == TagKind::StartTag;
        match tag.name {
            local_name!("tr") if start => {
                self.clear_to(BODY_CONTEXT);
                self.insert(tag.name.clone(), &tag.attrs);
                self.mode = Mode::InRow;
                DONE
            }
            local_name!("th") | local_name!("td") if start => {
                self.clear_to(BODY_CONTEXT);
                self.insert(local_name!("tr"), &[]);
                self.reprocess(Mode::InRow, tok)
            }
            local_name!("tbody") | local_name!("tfoot") | local_name!("thead") if !start => {
                if self.in_table_scope(|n| *n == tag.name) {
                    self.clear_to(BODY_CONTEXT);
                    self.pop();
                    self.mode = Mode::InTable;
                }
                DONE
            }
            local_name!("caption")
            | local_name!("col")
            | local_name!("colgroup")
            | local_name!("tbody")
            | local_name!("tfoot")
            | local_name!("thead")
                if start =>
            {
                self.leave_table_body(tok)
            }
            local_name!("table") if !start => self.leave_table_body(tok),
            local_name!("body")
            | local_name!("caption")
            | local_name!("col")
            | local_name!("colgroup")
            | local_name!("html")
            | local_name!("td")
            | local_name!("th")
            | local_name!("tr")
                if !start =>
            {
                DONE
            }
            _ => self.in_table(tok),
        }
    }

    fn leave_table_body(&mut self, tok: Tok<'_>) -> Step {
        // html5ever's set (the standard's has `thead` for `tfoot`; with a
        // table open, which ends the scope, both hold).
        let outer = |n: &LocalName| {
            matches!(
                *n,
                local_name!("table") | local_name!("tbody") | local_name!("tfoot")
            )
        };
        if !self.in_table_scope(outer) {
            return DONE;
        }
        self.clear_to(BODY_CONTEXT);
        self.pop();
        self.reprocess(Mode::InTable, tok)
    }

    fn in_row(&mut self, tok: Tok<'_>) -> Step {
        let Tok::Tag(tag) = tok else {
            return self.in_table(tok);
        };
        let start = tag.kind == TagKind::StartTag;
        let tr_in_scope = |s: &Self| s.in_table_scope(|n| *n == local_name!("tr"));
        match tag.name {
            local_name!("th") | local_name!("td") if start => {
                self.clear_to(ROW_CONTEXT);
                self.insert(tag.name.clone(), &tag.attrs);
                self.mode = Mode::InCell;
                self.formatting.push(Entry::Marker);
                DONE
            }
            local_name!("tr") if !start => {
                if tr_in_scope(self) {
                    self.clear_to(ROW_CONTEXT);
                    self.pop();
                    self.mode = Mode::InTableBody;
                }
                DONE
            }
            local_name!("caption")
            | local_name!("col")
            | local_name!("colgroup")
            | local_name!("tbody")
            | local_name!("tfoot")
            | local_name!("thead")
            | local_name!("tr")
                if start =>
            {
                self.leave_row(tok)
            }
            local_name!("table") if !start => self.leave_row(tok),
            local_name!("tbody") | local_name!("tfoot") | local_name!("thead") if !start => {
                if self.in_table_scope(|n| *n == tag.name) {
                    self.leave_row(tok)
                } else {
                    DONE
                }
            }
            local_name!("body")
            | local_name!("caption")
            | local_name!("col")
            | local_name!("colgroup")
            | local_name!("html")
            | local_name!("td")
            | local_name!("th")
                if !start =>
            {
                DONE
            }
            _ => self.in_table(tok),
        }
    }

    fn leave_row(&mut self, tok: Tok<'_>) -> Step {
        if !self.in_table_scope(|n| *n == local_name!("tr")) {
            return DONE;
        }
        self.clear_to(ROW_CONTEXT);
        self.pop();
        self.reprocess(Mode::InTableBody, tok)
    }

    fn in_cell(&mut self, tok: Tok<'_>) -> Step {
        let Tok::Tag(tag) = tok else {
            return self.in_body(tok);
        };
        let start = tag.kind == TagKind::StartTag;
        match tag.name {
            local_name!("td") | local_name!("th") if !start => {
                if self.in_table_scope(|n| *n == tag.name) {
                    self.implied_end_tags(None);
                    self.pop_until(&tag.name);
                    self.clear_formatting_to_marker();
                    self.mode = Mode::InRow;
                }
                DONE
            }
            local_name!("caption")
            | local_name!("col")
            | local_name!("colgroup")
            | local_name!("tbody")
            | local_name!("td")
            | local_name!("tfoot")
            | local_name!("th")
            | local_name!("thead")
            | local_name!("tr")
                if start =>
            {
                let cell = |n: &LocalName| matches!(*n, local_name!("td") | local_name!("th"));
                if !self.in_table_scope(cell) {
                    return DONE;
                }
                self.close_cell();
                self.reprocess(Mode::InRow, tok)
            }
            local_name!("body")
            | local_name!("caption")
            | local_name!("col")
            | local_name!("colgroup")
            | local_name!("html")
                if !start =>
            {
                DONE
            }
            local_name!("table")
            | local_name!("tbody")
            | local_name!("tfoot")
            | local_name!("thead")
            | local_name!("tr")
                if !start =>
            {
                if !self.in_table_scope(|n| *n == tag.name) {
                    return DONE;
                }
                self.close_cell();
                self.reprocess(Mode::InRow, tok)
            }
            _ => self.in_body(tok),
        }
    }

    fn close_cell(&mut self) {
        self.implied_end_tags(None);
        while let Some(o) = self.open.pop() {
            if matches!(o.name, local_name!("td") | local_name!("th")) {
                break;
            }
        }
        self.clear_formatting_to_marker();
    }

    fn clear_formatting_to_marker(&mut self) {
        while let Some(e) = self.formatting.pop() {
            if matches!(e, Entry::Marker) {
                break;
            }
        }
    }

    /// Pops the current node until it is one of `context`'s elements (the
    /// standard's "clear the stack back to a table context" and its kin).
    fn clear_to(&mut self, context: fn(&LocalName) -> bool) {
        while let Some(o) = self.open.last() {
            if context(&o.name) {
                return;
            }
            self.open.pop();
        }
    }

    /// Whether an element that `is` matches is in table scope.
    fn in_table_scope(&self, is: impl Fn(&LocalName) -> bool) -> bool {
        for o in self.open.iter().rev() {
            if is(&o.name) {
                return true;
            }
            if TABLE_CONTEXT(&o.name) {
                return false;
            }
        }
        false
    }

    /// The standard's "reset the insertion mode appropriately", as
    /// html5ever does it for a whole document.
    fn reset_mode(&self) -> Result<Mode, GiveUp> {
        for (i, o) in self.open.iter().enumerate().rev() {
            return Ok(match o.name {
                local_name!("td") | local_name!("th") if i > 0 => Mode::InCell,
                local_name!("tr") => Mode::InRow,
                local_name!("tbody") | local_name!("thead") | local_name!("tfoot") => {
                    Mode::InTableBody
                }
                local_name!("caption") => Mode::InCaption,
                local_name!("colgroup") => Mode::InColumnGroup,
                local_name!("table") => Mode::InTable,
                local_name!("template") | local_name!("frameset") => return Err(GiveUp),
                local_name!("head") if i > 0 => Mode::InHead,
                local_name!("body") => Mode::InBody,
                local_name!("html") if self.head.is_none() => Mode::BeforeHead,
                local_name!("html") => Mode::AfterHead,
                _ => continue,
            });
        }
        Ok(Mode::InBody)
    }

    fn end_tag_in_body(&mut self, tag: &Tag) -> Step {
        match tag.name {
            local_name!("template") => DONE,
            local_name!("body") => {
                if self.in_scope(&local_name!("body"), 0) {
                    self.mode = Mode::AfterBody;
                }
                DONE
            }
            local_name!("html") => {
                if self.in_scope(&local_name!("body"), 0) {
                    return self.reprocess(Mode::AfterBody, Tok::Tag(tag));
                }
                DONE
            }
            local_name!("address")
            | local_name!("article")
            | local_name!("aside")
            | local_name!("blockquote")
            | local_name!("button")
            | local_name!("center")
            | local_name!("details")
            | local_name!("dialog")
            | local_name!("dir")
            | local_name!("div")
            | local_name!("dl")
            | local_name!("fieldset")
            | local_name!("figcaption")
            | local_name!("figure")
            | local_name!("footer")
            | local_name!("header")
            | local_name!("hgroup")
            | local_name!("listing")
            | local_name!("main")
            | local_name!("menu")
            | local_name!("nav")
            | local_name!("ol")
            | local_name!("pre")
            | local_name!("search")
            | local_name!("section")
            | local_name!("select")
            | local_name!("summary")
            | local_name!("ul") => {
                if self.in_scope(&tag.name, 0) {
                    self.implied_end_tags(None);
                    self.pop_until(&tag.name);
                }
                DONE
            }
            local_name!("form") => {
                let Some(node) = self.form.take() else {
                    return DONE;
                };
                if !self.id_in_scope(node) {
                    return DONE;
                }
                self.implied_end_tags(None);
                if let Some(at) = self.open.iter().rposition(|o| o.id == node) {
                    self.open.remove(at);
                }
                DONE
            }
            local_name!("p") => {
                if !self.in_scope(&local_name!("p"), BUTTON) {
                    self.insert(local_name!("p"), &[]);
                }
                self.close_p();
                DONE
            }
            local_name!("li") | local_name!("dd") | local_name!("dt") => {
                let extra = if tag.name == local_name!("li") {
                    LIST
                } else {
                    0
                };
                if self.in_scope(&tag.name, extra) {
                    self.implied_end_tags(Some(&tag.name));
                    self.pop_until(&tag.name);
                }
                DONE
            }
            local_name!("h1")
            | local_name!("h2")
            | local_name!("h3")
            | local_name!("h4")
            | local_name!("h5")
            | local_name!("h6") => {
                let mut in_scope = false;
                for o in self.open.iter().rev() {
                    if o.classes & HEADING != 0 {
                        in_scope = true;
                        break;
                    }
                    if o.classes & SCOPE != 0 {
                        break;
                    }
                }
                if in_scope {
                    self.implied_end_tags(None);
                    while let Some(o) = self.open.pop() {
                        if o.classes & HEADING != 0 {
                            break;
                        }
                    }
                }
                DONE
            }
            ref name if *name == local_name!("a") || super::nesting::is_formatting(name) => {
                self.adoption_agency(tag.name.clone())?;
                DONE
            }
            local_name!("applet") | local_name!("marquee") | local_name!("object") => {
                if self.in_scope(&tag.name, 0) {
                    self.implied_end_tags(None);
                    self.pop_until(&tag.name);
                    while let Some(e) = self.formatting.pop() {
                        if matches!(e, Entry::Marker) {
                            break;
                        }
                    }
                }
                DONE
            }
            local_name!("br") => {
                self.reconstruct()?;
                self.insert_void(local_name!("br"), &[]);
                DONE
            }
            _ => {
                self.any_other_end_tag(&tag.name);
                DONE
            }
        }
    }

    fn any_other_end_tag(&mut self, name: &LocalName) {
        let mut found = None;
        for (i, o) in self.open.iter().enumerate().rev() {
            if o.name == *name {
                found = Some(i);
                break;
            }
            if o.classes & SPECIAL != 0 {
                return;
            }
        }
        let Some(at) = found else { return };
        self.implied_end_tags(Some(name));
        self.open.truncate(at);
    }

    /// The adoption agency's common cases: the formatting element closes
    /// with whatever non-special elements are open inside it. Where it
    /// would move nodes (a special element open inside), html5ever does it.
    fn adoption_agency(&mut self, subject: LocalName) -> Result<(), GiveUp> {
        if let Some(current) = self.open.last() {
            if current.name == subject && self.formatting_position(current.id).is_none() {
                self.open.pop();
                return Ok(());
            }
        }
        let found = self
            .formatting_after_marker()
            .find(|(_, _, t)| t.name == subject)
            .map(|(i, id, _)| (i, id));
        let Some((entry, element)) = found else {
            self.any_other_end_tag(&subject);
            return Ok(());
        };
        let Some(at) = self.open.iter().rposition(|o| o.id == element) else {
            self.formatting.remove(entry);
            return Ok(());
        };
        if !self.id_in_scope(element) {
            return Ok(());
        }
        if self.open[at..].iter().any(|o| o.classes & SPECIAL != 0) {
            return Err(GiveUp);
        }
        self.open.truncate(at);
        self.formatting.remove(entry);
        Ok(())
    }

    /// Entries after the last marker, last first: (index, element, token).
    fn formatting_after_marker(&self) -> impl Iterator<Item = (usize, NodeId, &Tag)> {
        self.formatting
            .iter()
            .enumerate()
            .rev()
            .map_while(|(i, e)| match e {
                Entry::Marker => None,
                Entry::Element(id, tag) => Some((i, *id, tag)),
            })
    }

    fn formatting_position(&self, id: NodeId) -> Option<usize> {
        self.formatting
            .iter()
            .rposition(|e| matches!(e, Entry::Element(x, _) if *x == id))
    }

    fn formatting_element(&mut self, tag: &Tag) {
        // The Noah's Ark clause: at most three equal entries after the last marker.
        let mut first = None;
        let mut matches = 0;
        for (i, _, old) in self.formatting_after_marker() {
            if old.name == tag.name
                && old.attrs.len() == tag.attrs.len()
                && tag.equiv_modulo_attr_order(old)
            {
                first = Some(i);
                matches += 1;
            }
        }
        if matches >= 3 {
            if let Some(i) = first {
                self.formatting.remove(i);
            }
        }
        let id = self.insert(tag.name.clone(), &tag.attrs);
        self.formatting.push(Entry::Element(id, tag.clone()));
    }

    fn is_open(&self, id: NodeId) -> bool {
        self.open.iter().rev().any(|o| o.id == id)
    }

    /// Reconstructs the active formatting elements, as the standard (and
    /// html5ever) does.
    #[inline]
    fn reconstruct(&mut self) -> Result<(), GiveUp> {
        // Nearly always nothing to do: checked where it is asked.
        match self.formatting.last() {
            None | Some(Entry::Marker) => Ok(()),
            Some(Entry::Element(id, _)) if self.is_open(*id) => Ok(()),
            _ => self.reconstruct_from_last(),
        }
    }

    /// [`State::reconstruct`] once the last entry is known to be closed.
    #[inline(never)]
    fn reconstruct_from_last(&mut self) -> Result<(), GiveUp> {
        let mut at = self.formatting.len() - 1;
        while at > 0 {
            at -= 1;
            let stop = match &self.formatting[at] {
                Entry::Marker => true,
                Entry::Element(id, _) => self.is_open(*id),
            };
            if stop {
                at += 1;
                break;
            }
        }
        loop {
            let tag = match &mut self.formatting[at] {
                Entry::Element(_, tag) => std::mem::replace(tag, placeholder()),
                Entry::Marker => return Err(GiveUp),
            };
            let id = self.insert(tag.name.clone(), &tag.attrs);
            self.formatting[at] = Entry::Element(id, tag);
            if at == self.formatting.len() - 1 {
                return Ok(());
            }
            at += 1;
        }
    }

    fn current_classes(&self) -> u8 {
        self.open.last().map_or(0, |o| o.classes)
    }

    /// Whether an element named `name` is in scope; `extra` adds the
    /// list item or button scope's boundaries.
    fn in_scope(&self, name: &LocalName, extra: u8) -> bool {
        for o in self.open.iter().rev() {
            if o.name == *name {
                return true;
            }
            if o.classes & (SCOPE | extra) != 0 {
                return false;
            }
        }
        false
    }

    fn id_in_scope(&self, id: NodeId) -> bool {
        for o in self.open.iter().rev() {
            if o.id == id {
                return true;
            }
            if o.classes & SCOPE != 0 {
                return false;
            }
        }
        false
    }

    fn implied_end_tags(&mut self, except: Option<&LocalName>) {
        while let Some(o) = self.open.last() {
            if o.classes & IMPLIED == 0 || except.is_some_and(|e| o.name == *e) {
                return;
            }
            self.open.pop();
        }
    }

    fn pop_until(&mut self, name: &LocalName) {
        while let Some(o) = self.open.pop() {
            if o.name == *name {
                return;
            }
        }
    }

    fn close_p(&mut self) {
        self.implied_end_tags(Some(&local_name!("p")));
        self.pop_until(&local_name!("p"));
    }

    fn close_p_in_button_scope(&mut self) {
        if self.in_scope(&local_name!("p"), BUTTON) {
            self.close_p();
        }
    }

    fn pop(&mut self) -> Option<NodeId> {
        self.open.pop().map(|o| o.id)
    }

    fn push(&mut self, id: NodeId, name: LocalName) {
        let classes = classes(&name);
        self.open.push(Open { id, name, classes });
    }

    fn current(&self) -> NodeId {
        self.open.last().map_or(DOCUMENT, |o| o.id)
    }

    /// Makes an element, appends it to the current node and opens it.
    fn insert(&mut self, name: LocalName, attrs: &[Attribute]) -> NodeId {
        let id = self.insert_void(name.clone(), attrs);
        self.push(id, name);
        id
    }

    /// Makes an element and appends it to the current node.
    fn insert_void(&mut self, name: LocalName, attrs: &[Attribute]) -> NodeId {
        let parent = self.current();
        self.append_element(parent, name, attrs)
    }

    /// The flat view closed down to `parent`, where a node goes next;
    /// false if that node would go before one already there.
    fn place(&mut self, parent: NodeId) -> bool {
        if self.out_of_order {
            return false;
        }
        if parent == DOCUMENT || self.flat.is_closed(parent) {
            self.out_of_order = true;
            return false;
        }
        while let Some(top) = self.flat.top() {
            if top == parent {
                break;
            }
            self.flat.close();
        }
        true
    }

    fn append_element(&mut self, parent: NodeId, name: LocalName, attrs: &[Attribute]) -> NodeId {
        let is_root = matches!(name, local_name!("html") | local_name!("body"));
        if parent == DOCUMENT {
            // The root: nothing but comments and the doctype before it.
            if self.out_of_order || self.flat.top().is_some() {
                self.out_of_order = true;
                return DOCUMENT;
            }
        } else if !self.place(parent) {
            return DOCUMENT;
        }
        let [class, id, itemprop] = kept_attributes(attrs);
        let element = self.flat.open_html(
            name,
            class.map(|c| &**c),
            id.map(|i| &**i),
            itemprop.map_or("", |p| &**p),
        );
        if is_root {
            self.root_attrs
                .push((element, [class.cloned(), id.cloned(), itemprop.cloned()]));
        }
        element
    }

    fn create_root(&mut self, attrs: &[Attribute]) {
        let id = self.append_element(DOCUMENT, local_name!("html"), attrs);
        self.push(id, local_name!("html"));
    }

    fn html_attributes(&mut self, attrs: &[Attribute]) -> Step {
        let html = self.open.first().ok_or(GiveUp)?.id;
        self.add_attributes(html, attrs);
        DONE
    }

    /// Gives `target` (`<html>` or `<body>`) the attributes it lacks.
    fn add_attributes(&mut self, target: NodeId, attrs: &[Attribute]) {
        let added = kept_attributes(attrs);
        if added.iter().all(Option::is_none) || self.out_of_order {
            return;
        }
        let Some((_, slots)) = self.root_attrs.iter_mut().find(|(e, _)| *e == target) else {
            self.out_of_order = true;
            return;
        };
        for (slot, value) in slots.iter_mut().zip(added) {
            if slot.is_none() {
                *slot = value.cloned();
            }
        }
        let [class, id, itemprop] = slots.clone();
        self.flat.set_attributes(
            target,
            class.as_deref(),
            id.as_deref(),
            itemprop.as_deref().unwrap_or(""),
        );
    }

    fn text(&mut self, text: &str) {
        let parent = self.current();
        if self.place(parent) {
            self.flat.append_text(text);
        }
    }

    fn comment(&mut self) -> Step {
        let parent = self.current();
        self.comment_to(parent)
    }

    /// A comment appended to `parent`: the flat view leaves it out, but
    /// text on either side of it makes two nodes.
    fn comment_to(&mut self, parent: NodeId) -> Step {
        if !self.out_of_order && parent != DOCUMENT && self.flat.top() == Some(parent) {
            self.flat.end_text();
        }
        DONE
    }
}

/// The standard's table context: `html`, `table`, `template`.
const TABLE_CONTEXT: fn(&LocalName) -> bool = |n| {
    matches!(
        *n,
        local_name!("table") | local_name!("template") | local_name!("html")
    )
};

/// The table body context: `tbody`, `tfoot`, `thead`, `template`, `html`.
const BODY_CONTEXT: fn(&LocalName) -> bool = |n| {
    matches!(
        *n,
        local_name!("tbody")
            | local_name!("tfoot")
            | local_name!("thead")
            | local_name!("template")
            | local_name!("html")
    )
};

/// The table row context: `tr`, `template`, `html`.
const ROW_CONTEXT: fn(&LocalName) -> bool = |n| {
    matches!(
        *n,
        local_name!("tr") | local_name!("template") | local_name!("html")
    )
};

/// Whether the doctype puts the document in quirks mode, as html5ever's
/// builder decides it, for the common doctypes; `None` for the rest.
fn quirks(doctype: &html5ever::tokenizer::Doctype) -> Option<bool> {
    if doctype.force_quirks || doctype.name.as_deref() != Some("html") {
        return Some(true);
    }
    let lower = |x: &Option<StrTendril>| x.as_deref().map(str::to_ascii_lowercase);
    let (public, system) = (lower(&doctype.public_id), lower(&doctype.system_id));
    let starts = |prefixes: &[&str]| {
        public
            .as_deref()
            .is_some_and(|p| prefixes.iter().any(|x| p.starts_with(x)))
    };
    if system.as_deref() == Some("http://www.ibm.com/data/dtd/v11/ibmxhtml1-transitional.dtd") {
        return Some(true);
    }
    match (&public, &system) {
        (None, None) => Some(false),
        _ if starts(&[
            "-//w3c//dtd xhtml 1.0 frameset//",
            "-//w3c//dtd xhtml 1.0 transitional//",
            "-//w3c//dtd xhtml 1.0 strict//",
            "-//w3c//dtd xhtml 1.1//",
        ]) =>
        {
            Some(false)
        }
        _ if starts(&[
            "-//w3c//dtd html 4.01 frameset//",
            "-//w3c//dtd html 4.01 transitional//",
        ]) =>
        {
            Some(system.is_none())
        }
        (None, Some(_)) => Some(false),
        _ => None,
    }
}

/// Stands in for a formatting entry's token while its element is made again.
fn placeholder() -> Tag {
    Tag {
        kind: TagKind::StartTag,
        name: local_name!(""),
        self_closing: false,
        had_duplicate_attributes: false,
        attrs: Vec::new(),
    }
}

/// The values of the attributes the extractor reads (`class`, `id`,
/// `itemprop`), first of each name (the tokenizer has already dropped
/// repeats).
fn kept_attributes(attrs: &[Attribute]) -> [Option<&StrTendril>; 3] {
    let mut out = [None, None, None];
    for a in attrs {
        if let Some(slot) = super::sink::kept_attribute(&a.name) {
            out[slot].get_or_insert(&a.value);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use html5ever::tree_builder::{TreeBuilder, TreeBuilderOpts, TreeSink};

    /// Our builder's flat view of `html`, if it builds one, and the one
    /// html5ever's tree flattens to (both as [`super::super::sink::tests::summary`]
    /// writes them).
    pub(crate) fn both(html: &str, depth: usize) -> (Option<String>, Option<String>) {
        use super::super::sink::tests::summary;
        let page = StrTendril::from_slice(html);
        let fast = FlatTreeBuilder::new(html.len());
        let ours = super::super::lexer::feed_pruned(&page, &fast, depth)
            .ok()
            .and_then(|()| fast.finish())
            .map(|d| summary(&d));
        let reference = TreeBuilder::new(
            super::super::sink::Sink::default(),
            TreeBuilderOpts::default(),
        );
        let theirs = super::super::lexer::feed_pruned(&page, &reference, depth)
            .ok()
            .map(|()| summary(&Dom::flatten(reference.sink.finish(), html.len())));
        (ours, theirs)
    }

    const PIECES: &[&str] = &[
        "<!doctype html>",
        "<html class=h>",
        "<head>",
        "</head>",
        "<body id=b>",
        "</body>",
        "</html>",
        "<title>T</title>",
        "<meta charset=utf-8>",
        "<link rel=x>",
        "<p class=a>",
        "</p>",
        "<div>",
        "</div>",
        "<li>",
        "</li>",
        "<ul>",
        "</ul>",
        "<dl><dt>",
        "<dd>",
        "</dt>",
        "<h1>",
        "<h2>",
        "</h1>",
        "</h3>",
        "<a href=x>",
        "</a>",
        "<b>",
        "</b>",
        "<i class=c>",
        "</i>",
        "<font color=red>",
        "</font>",
        "<nobr>",
        "<span>",
        "</span>",
        "<form>",
        "</form>",
        "<button>",
        "</button>",
        "<input type=hidden>",
        "<br>",
        "</br>",
        "<img><image>",
        "<hr>",
        "<pre>",
        "\nx",
        "<textarea>\nt</textarea>",
        "<noscript>n<p></noscript>",
        "<iframe>f</iframe>",
        "<xmp>x</xmp>",
        "<plaintext>",
        "<option>",
        "<optgroup>",
        "</option>",
        "<object>",
        "</object>",
        "<marquee>",
        "<table>",
        "<td>",
        "<select>",
        "</select>",
        "</optgroup>",
        "<template>",
        "<svg>",
        "<ruby><rt>",
        "<frameset>",
        "<section>",
        "</section>",
        "<address>",
        "<center>",
        "<x-y>",
        "</x-y>",
        "text ",
        "  ",
        "中文",
        "<!-- c -->",
        "<script>s</script>",
        "<style>s</style>",
        "&amp;",
        "\u{0}",
        "</sarcasm>",
        "<caption>",
        "</form></p>",
        "</table>",
        "<tr>",
        "</tr>",
        "</td>",
        "<th>",
        "<tbody>",
        "</tbody>",
        "<thead>",
        "</tfoot>",
        "</caption>",
        "<colgroup><col>",
        "</colgroup>",
        "<col>",
        "<table><tr><td>",
        "<!DOCTYPE html PUBLIC \"-//W3C//DTD HTML 4.01 Transitional//EN\">",
        "<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0 Transitional//EN\" \"x\">",
    ];

    fn check(html: &str, built: &mut usize) {
        for depth in [512, 3] {
            let (ours, theirs) = both(html, depth);
            if let Some(ours) = ours {
                *built += 1;
                assert_eq!(Some(ours), theirs, "{html:?} at depth {depth}");
            }
        }
    }

    #[test]
    fn builds_html5evers_tree_or_gives_up() {
        let mut built = 0;
        for a in PIECES {
            for b in PIECES {
                check(&format!("{a}{b}"), &mut built);
            }
        }
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..20_000 {
            let mut html = String::new();
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let mut r = seed;
            for _ in 0..(r % 12) {
                r = r
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                html.push_str(PIECES[((r >> 33) % PIECES.len() as u64) as usize]);
            }
            check(&html, &mut built);
        }
        // Most runs stay on our builder: the comparison above means something.
        assert!(built > 20_000, "{built}");
    }

    /// Every page of the JSON Lines corpora named in `NEARDUP_TREE_CHECK`
    /// (paths separated by `:`, gzipped or not): where our builder builds
    /// a tree, html5ever's is the same.
    /// `NEARDUP_TREE_CHECK=datasets/imported/fan2008.jsonl.gz cargo test
    /// --release --lib builder -- --ignored`
    #[test]
    #[ignore]
    fn builds_html5evers_tree_on_corpora() {
        use std::io::BufRead;
        let paths = std::env::var("NEARDUP_TREE_CHECK").unwrap_or_default();
        for path in paths.split(':').filter(|p| !p.is_empty()) {
            let file = std::fs::File::open(path).unwrap();
            let reader: Box<dyn BufRead> = if path.ends_with(".gz") {
                Box::new(std::io::BufReader::new(flate2::read::MultiGzDecoder::new(
                    file,
                )))
            } else {
                Box::new(std::io::BufReader::new(file))
            };
            let (mut pages, mut built) = (0, 0);
            for line in reader.lines() {
                let line = line.unwrap();
                let value: serde_json::Value = serde_json::from_str(&line).unwrap();
                let Some(html) = value.get("html").and_then(|h| h.as_str()) else {
                    continue;
                };
                pages += 1;
                let (ours, theirs) = both(html, super::super::nesting::MAX_DEPTH);
                if let Some(ours) = ours {
                    built += 1;
                    assert!(Some(&ours) == theirs.as_ref(), "{path}: {html}");
                }
            }
            eprintln!("{path}: {built} of {pages} pages built by our builder");
        }
    }

    #[test]
    fn gives_up_where_html5ever_repairs() {
        for html in [
            "<p>a<table>b</table>",
            "<b>1<p>2</b>3",
            "<select><template>x</template></select>",
            "<template>x</template>",
            "<svg><p>x</svg>",
            "a\u{0}b",
        ] {
            assert_eq!(both(html, 512).0, None, "{html}");
        }
    }

    #[test]
    fn builds_tables() {
        for html in [
            "<table>\n<tr><td>a<td>b</table>c",
            "<p>a<table><caption>t<tr><th>h</tr></table>",
            "<!doctype html><p>a<table><col><tbody><tr><td><table><td>x</table></table>",
            "<table><script>s</script><form><input type=HIDDEN><!-- c --></table>",
        ] {
            let (ours, theirs) = both(html, 512);
            assert!(ours.is_some(), "{html}");
            assert_eq!(ours, theirs, "{html}");
        }
    }
}
