//! A lean tree for html5ever to build: nodes in one vector linked by
//! index, elements keeping only their name and the attributes the
//! extractor reads (`class`, `id`, `itemprop`). scraper's tree keeps every
//! attribute of every element, sorted, and frees it all again; the
//! extractor reads the tree once, in order, so that work was wasted.
//!
//! Text is merged into an adjacent text node as scraper's sink does, so
//! the tree (and what the extractor makes of it) is the same.

use std::borrow::Cow;
use std::cell::{Ref, RefCell};

use html5ever::tendril::{StrTendril, TendrilSink};
use html5ever::tree_builder::{
    ElementFlags, NodeOrText, QuirksMode, TreeBuilder, TreeBuilderOpts, TreeSink,
};
use html5ever::{local_name, ns, Attribute, QualName};

pub type NodeId = u32;

#[derive(Debug)]
pub enum Data {
    Document,
    /// A template's contents, its first child.
    Fragment,
    Element {
        name: QualName,
        class: Option<StrTendril>,
        id: Option<StrTendril>,
        itemprop: Option<StrTendril>,
    },
    Text(StrTendril),
    /// A comment, doctype or processing instruction: no page text.
    Other,
}

/// A link to a node, or none: four bytes where `Option<NodeId>` takes
/// eight (a page has thousands of nodes, each with five links, and the
/// tree builder's every insertion touches three or four of them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Link(u32);

impl Link {
    const NONE: Link = Link(u32::MAX);

    fn to(id: NodeId) -> Link {
        Link(id)
    }

    pub fn get(self) -> Option<NodeId> {
        (self.0 != u32::MAX).then_some(self.0)
    }
}

#[derive(Debug)]
pub struct Node {
    pub parent: Link,
    pub first_child: Link,
    pub last_child: Link,
    pub prev: Link,
    pub next: Link,
    pub data: Data,
}

/// A parsed page; node 0 is the document.
#[derive(Debug)]
pub struct Tree {
    pub nodes: Vec<Node>,
}

impl Tree {
    /// Parses a whole page as a browser would: html5ever's tree builder,
    /// fed by [`super::lexer`] (html5ever's tokenizer for the rare page
    /// the lexer leaves to it).
    pub fn parse(html: impl Into<StrTendril>) -> Tree {
        let page = html.into();
        let builder = TreeBuilder::new(Sink::default(), TreeBuilderOpts::default());
        match super::lexer::feed(&page, &builder, false) {
            Ok(()) => builder.sink.finish(),
            Err(super::lexer::Unsupported) => Tree::parse_with_html5ever_tokenizer(page),
        }
    }

    /// Parses a page as [`Tree::parse`] parses what
    /// [`super::nesting::for_parsing`] makes of it (comments, scripts,
    /// styles and the head's metadata left out, nesting capped at
    /// `max_depth`), reading the page itself where it can (see
    /// [`super::lexer::feed_pruned`]). `page` is `html`, as a tendril.
    pub fn parse_page(page: StrTendril, max_depth: usize) -> Tree {
        let builder = TreeBuilder::new(Sink::default(), TreeBuilderOpts::default());
        if super::lexer::feed_pruned(&page, &builder, max_depth).is_ok() {
            return builder.sink.finish();
        }
        builder.sink.finish().recycle();
        Tree::parse(super::nesting::for_parsing(&page, max_depth))
    }

    /// Parses a whole page with html5ever's tokenizer and tree builder.
    fn parse_with_html5ever_tokenizer(html: impl Into<StrTendril>) -> Tree {
        html5ever::parse_document(Sink::default(), Default::default()).one(html)
    }

    pub(super) fn push(&mut self, data: Data) -> NodeId {
        self.nodes.push(Node {
            parent: Link::NONE,
            first_child: Link::NONE,
            last_child: Link::NONE,
            prev: Link::NONE,
            next: Link::NONE,
            data,
        });
        (self.nodes.len() - 1) as NodeId
    }

    fn detach(&mut self, id: NodeId) {
        let (parent, prev, next) = {
            let n = &mut self.nodes[id as usize];
            let links = (n.parent, n.prev, n.next);
            (n.parent, n.prev, n.next) = (Link::NONE, Link::NONE, Link::NONE);
            links
        };
        let Some(parent) = parent.get() else { return };
        match prev.get() {
            Some(p) => self.nodes[p as usize].next = next,
            None => self.nodes[parent as usize].first_child = next,
        }
        match next.get() {
            Some(n) => self.nodes[n as usize].prev = prev,
            None => self.nodes[parent as usize].last_child = prev,
        }
    }

    pub(super) fn append(&mut self, parent: NodeId, child: NodeId) {
        self.detach(child);
        let last = self.nodes[parent as usize].last_child;
        {
            let c = &mut self.nodes[child as usize];
            c.parent = Link::to(parent);
            c.prev = last;
        }
        match last.get() {
            Some(l) => self.nodes[l as usize].next = Link::to(child),
            None => self.nodes[parent as usize].first_child = Link::to(child),
        }
        self.nodes[parent as usize].last_child = Link::to(child);
    }

    fn insert_before(&mut self, sibling: NodeId, child: NodeId) {
        self.detach(child);
        let (parent, prev) = {
            let s = &self.nodes[sibling as usize];
            (s.parent, s.prev)
        };
        {
            let c = &mut self.nodes[child as usize];
            c.parent = parent;
            c.prev = prev;
            c.next = Link::to(sibling);
        }
        self.nodes[sibling as usize].prev = Link::to(child);
        match prev.get() {
            Some(p) => self.nodes[p as usize].next = Link::to(child),
            None => {
                if let Some(parent) = parent.get() {
                    self.nodes[parent as usize].first_child = Link::to(child);
                }
            }
        }
    }

    /// Appends text to `parent`, merged into its last child if that is text.
    pub(super) fn append_text(&mut self, parent: NodeId, text: StrTendril) {
        let last = self.nodes[parent as usize].last_child;
        if !self.merge_text(last, &text) {
            let id = self.push(Data::Text(text));
            self.append(parent, id);
        }
    }

    /// Gives `target` the attributes it lacks (a second `<html>` or `<body>`).
    pub(super) fn add_attributes(&mut self, target: NodeId, attrs: Vec<Attribute>) {
        let [class, id, itemprop] = read_attributes(attrs);
        if let Data::Element {
            class: c,
            id: i,
            itemprop: p,
            ..
        } = &mut self.nodes[target as usize].data
        {
            for (slot, value) in [(c, class), (i, id), (p, itemprop)] {
                if slot.is_none() {
                    *slot = value;
                }
            }
        }
    }

    /// Appends `text` to the text node `to`, if it is one.
    fn merge_text(&mut self, to: Link, text: &StrTendril) -> bool {
        match to.get().map(|t| &mut self.nodes[t as usize].data) {
            Some(Data::Text(t)) => {
                t.push_tendril(text);
                true
            }
            _ => false,
        }
    }

    /// Depth-first, in document order: `f(id, true)` on entering a node,
    /// `f(id, false)` on leaving it. A loop, not recursion: a page nested
    /// deeply costs no stack.
    pub fn walk(&self, mut f: impl FnMut(NodeId, bool)) {
        let mut at = 0;
        loop {
            f(at, true);
            if let Some(child) = self.nodes[at as usize].first_child.get() {
                at = child;
                continue;
            }
            loop {
                f(at, false);
                if at == 0 {
                    return;
                }
                if let Some(next) = self.nodes[at as usize].next.get() {
                    at = next;
                    break;
                }
                match self.nodes[at as usize].parent.get() {
                    Some(parent) => at = parent,
                    None => return,
                }
            }
        }
    }
}

#[derive(Debug)]
pub(super) struct Sink {
    tree: RefCell<Tree>,
}

thread_local! {
    /// A parsed page's node vector, emptied, for the thread's next page:
    /// growing a fresh one to a page's thousands of nodes copied them
    /// several times over and touched new memory on every page.
    static NODES: RefCell<Vec<Node>> = const { RefCell::new(Vec::new()) };
}

/// Past this many nodes a page's vector is not kept for the next one.
const MAX_KEPT_NODES: usize = 1 << 15;

impl Tree {
    /// Frees the tree, keeping its node vector for the thread's next page.
    pub fn recycle(mut self) {
        self.nodes.clear();
        if self.nodes.capacity() <= MAX_KEPT_NODES {
            let _ = NODES.try_with(|kept| {
                if let Ok(mut kept) = kept.try_borrow_mut() {
                    if kept.capacity() < self.nodes.capacity() {
                        *kept = std::mem::take(&mut self.nodes);
                    }
                }
            });
        }
    }
}

impl Tree {
    /// A tree holding only the document, in the thread's kept vector.
    pub(super) fn fresh() -> Tree {
        let mut nodes = NODES
            .try_with(|kept| kept.try_borrow_mut().map(|mut k| std::mem::take(&mut *k)))
            .ok()
            .and_then(Result::ok)
            .unwrap_or_default();
        if nodes.capacity() < 1024 {
            nodes.reserve(1024);
        }
        let mut tree = Tree { nodes };
        tree.push(Data::Document);
        tree
    }
}

impl Default for Sink {
    fn default() -> Self {
        Sink {
            tree: RefCell::new(Tree::fresh()),
        }
    }
}

/// The attribute values the extractor reads, first of each name (the
/// tokenizer has already dropped repeats).
fn read_attributes(attrs: Vec<Attribute>) -> [Option<StrTendril>; 3] {
    let mut out: [Option<StrTendril>; 3] = [None, None, None];
    for a in attrs {
        if let Some(slot) = kept_attribute(&a.name) {
            out[slot].get_or_insert(a.value);
        }
    }
    out
}

/// Which of the attributes the extractor reads (`class`, `id`, `itemprop`,
/// in that order) `name` is.
#[inline]
pub(super) fn kept_attribute(name: &QualName) -> Option<usize> {
    // Compared as atoms: `is_empty` would read a static atom's text.
    if name.ns != ns!() {
        return None;
    }
    match name.local {
        local_name!("class") => Some(0),
        local_name!("id") => Some(1),
        local_name!("itemprop") => Some(2),
        _ => None,
    }
}

impl TreeSink for Sink {
    type Handle = NodeId;
    type Output = Tree;
    type ElemName<'a> = Ref<'a, QualName>;

    fn finish(self) -> Tree {
        self.tree.into_inner()
    }

    fn parse_error(&self, _msg: Cow<'static, str>) {}

    fn get_document(&self) -> NodeId {
        0
    }

    fn elem_name<'a>(&'a self, target: &NodeId) -> Ref<'a, QualName> {
        Ref::map(self.tree.borrow(), |t| {
            match &t.nodes[*target as usize].data {
                Data::Element { name, .. } => name,
                _ => panic!("the tree builder asked for the name of a non-element"),
            }
        })
    }

    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, flags: ElementFlags) -> NodeId {
        let [class, id, itemprop] = read_attributes(attrs);
        let mut tree = self.tree.borrow_mut();
        let element = tree.push(Data::Element {
            name,
            class,
            id,
            itemprop,
        });
        if flags.template {
            let contents = tree.push(Data::Fragment);
            tree.append(element, contents);
        }
        element
    }

    fn create_comment(&self, _text: StrTendril) -> NodeId {
        self.tree.borrow_mut().push(Data::Other)
    }

    fn create_pi(&self, _target: StrTendril, _data: StrTendril) -> NodeId {
        self.tree.borrow_mut().push(Data::Other)
    }

    fn append(&self, parent: &NodeId, child: NodeOrText<NodeId>) {
        let mut tree = self.tree.borrow_mut();
        match child {
            NodeOrText::AppendNode(id) => tree.append(*parent, id),
            NodeOrText::AppendText(text) => tree.append_text(*parent, text),
        }
    }

    fn append_based_on_parent_node(
        &self,
        element: &NodeId,
        prev_element: &NodeId,
        child: NodeOrText<NodeId>,
    ) {
        let has_parent = self.tree.borrow().nodes[*element as usize]
            .parent
            .get()
            .is_some();
        if has_parent {
            self.append_before_sibling(element, child)
        } else {
            self.append(prev_element, child)
        }
    }

    fn append_doctype_to_document(&self, _: StrTendril, _: StrTendril, _: StrTendril) {
        let mut tree = self.tree.borrow_mut();
        let id = tree.push(Data::Other);
        tree.append(0, id);
    }

    fn get_template_contents(&self, target: &NodeId) -> NodeId {
        self.tree.borrow().nodes[*target as usize]
            .first_child
            .get()
            .expect("a template element has its contents")
    }

    fn same_node(&self, x: &NodeId, y: &NodeId) -> bool {
        x == y
    }

    fn set_quirks_mode(&self, _mode: QuirksMode) {}

    fn append_before_sibling(&self, sibling: &NodeId, new_node: NodeOrText<NodeId>) {
        let mut tree = self.tree.borrow_mut();
        if let NodeOrText::AppendNode(id) = new_node {
            tree.detach(id);
        }
        if tree.nodes[*sibling as usize].parent.get().is_none() {
            return;
        }
        match new_node {
            NodeOrText::AppendNode(id) => tree.insert_before(*sibling, id),
            NodeOrText::AppendText(text) => {
                let prev = tree.nodes[*sibling as usize].prev;
                if !tree.merge_text(prev, &text) {
                    let id = tree.push(Data::Text(text));
                    tree.insert_before(*sibling, id);
                }
            }
        }
    }

    fn add_attrs_if_missing(&self, target: &NodeId, attrs: Vec<Attribute>) {
        self.tree.borrow_mut().add_attributes(*target, attrs);
    }

    fn remove_from_parent(&self, target: &NodeId) {
        self.tree.borrow_mut().detach(*target);
    }

    fn reparent_children(&self, node: &NodeId, new_parent: &NodeId) {
        let mut tree = self.tree.borrow_mut();
        while let Some(child) = tree.nodes[*node as usize].first_child.get() {
            tree.append(*new_parent, child);
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::dom::Dom;

    /// Everything of a flat view but scraper's node ids.
    pub(crate) fn summary(dom: &Dom) -> String {
        let elements: Vec<String> = dom
            .elements
            .iter()
            .map(|e| {
                format!(
                    "{} {:?} {} {:?} {} {} {} {:?} {:?} {} {} {}",
                    e.tag,
                    e.class_id,
                    e.itemprop,
                    e.parent,
                    e.depth,
                    e.open,
                    e.close,
                    e.stats,
                    e.inline,
                    e.dropped,
                    e.in_link,
                    e.in_bold
                )
            })
            .collect();
        format!(
            "{elements:#?} {:?} {:?} {:?} {:?}",
            dom.events, dom.text, dom.title, dom.body
        )
    }

    /// Pages that exercise the tree builder's repairs: misnested
    /// formatting (the adoption agency), text and hidden inputs in tables
    /// (foster parenting), repeated formatting elements (Noah's Ark),
    /// templates, foreign content, a second `<body>`, stray end tags.
    pub const TRICKY: [&str; 12] = [
        "<p class=a>1<b>2<i>3</b>4</i>5<table>6<tr><td>7</td></tr></table><body class=x>",
        "<!doctype html><p>a<table>b<input type=hidden><tr><td class=c>d</td></tr>e</table>f",
        "<p><font color=1>a<font color=2>b<font color=1>c<font color=1>d<font color=1>e</p><p>f",
        "<div id=m><template><p>t</p></template><svg><font color=red>x</font><p>y</svg>z</div>",
        "<math><annotation-xml encoding='text/html'><p>x</p></annotation-xml></math><p>y",
        "<ul><li>a<li>b<ul><li>c</ul></ul></li></li><dl><dt>d<dd>e</dl></p></div>g",
        "<a href=1>a<div>b<a href=2>c</a>d</div>e</a><h2>f<h3>g</h2>h",
        "<title>T  <b></title><p>x&amp;y&nbsp;z<br>w<select><option>o</select>v",
        "<p>a</p></body></html><p>b</p><!-- c --><meta name=x>d",
        "<frameset><frame></frameset><p>x",
        "<table><tr><td>a<table><tr><td>b</table>c</table><p itemprop=articleBody>d",
        "",
    ];

    #[test]
    fn the_lean_tree_flattens_as_scrapers_does() {
        for html in TRICKY {
            let lean = Dom::parse(html);
            let scraper = Dom::of(&scraper::Html::parse_document(html));
            assert_eq!(summary(&lean), summary(&scraper), "{html}");
        }
    }
}
