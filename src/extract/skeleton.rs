//! A page's DOM skeleton, for grouping pages by template.
//!
//! The skeleton is the set of distinct root-to-element paths of the page's
//! block elements, each step a tag with its class and id words (words with
//! digits left out: `post-1234`, `item-3` name the story, not the
//! template). A set, not a sequence: a story with twelve paragraphs and one
//! with three give the same paths, and one extra figure or quote in the
//! body adds a path or two to the hundred or more a real template has.
//!
//! Pages are compared by the Jaccard similarity of those sets, estimated by
//! a 16-value MinHash ([`Skeleton`]). MinHash rather than SimHash because
//! the sets are small (tens to a few hundred paths): one extra path moves a
//! 64-bit SimHash by several bits on such a set, where it changes each
//! min-hash with probability 1/|set| only, so near-equal skeletons keep
//! near-equal signatures. Grouping ([`template_groups`]) is linear: LSH
//! buckets (4 bands of 4 min-hashes) and one comparison per page and band
//! with the bucket's first page, never all pairs.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use html5ever::LocalName;

use rustc_hash::FxBuildHasher;
use serde::Serialize;
use xxhash_rust::xxh3::xxh3_64_with_seed;

use super::dom::Dom;
use crate::util::unionfind::UnionFind;

/// Min-hashes per skeleton.
pub const HASHES: usize = 16;
const BANDS: usize = 4;
const ROWS: usize = HASHES / BANDS;
/// A page with fewer distinct block paths has no template worth the name
/// (a bare `<p>` page): it gets no skeleton, so bare pages are never
/// grouped together by their lack of structure.
const MIN_PATHS: usize = 8;
/// Min-hashes two skeletons must share to be one template: 12 of 16, an
/// estimated Jaccard of 0.75. Stories on one template share nearly every
/// path (0.9 and above); two templates of one CMS share the frame but not
/// its classes.
const MIN_AGREE: usize = 12;

/// The MinHash of a page's skeleton paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct Skeleton(pub [u32; HASHES]);

impl Skeleton {
    /// Min-hashes the two skeletons share, out of [`HASHES`].
    pub fn agreement(&self, other: &Skeleton) -> usize {
        self.0.iter().zip(&other.0).filter(|(a, b)| a == b).count()
    }
}

/// One step of a path: the tag and its class and id words without digits.
/// `words` and `label` are scratch space, reused across a page's elements.
fn step<'a>(tag: &str, class_id: &'a str, words: &mut Vec<&'a str>, label: &mut String) -> u64 {
    words.clear();
    words.extend(
        class_id
            .split_ascii_whitespace()
            .filter(|w| !w.bytes().any(|b| b.is_ascii_digit())),
    );
    words.sort_unstable();
    words.dedup();
    label.clear();
    label.push_str(tag);
    for w in words.iter() {
        label.push('.');
        label.push_str(w);
    }
    xxh3_64_with_seed(label.as_bytes(), 0x736b_656c)
}

/// A thread's buffers for [`of`], kept from page to page.
#[derive(Default)]
struct Scratch {
    paths: Vec<u64>,
    /// Whether an element's path is wanted: it is a feature, or holds one.
    wanted: Vec<bool>,
    features: Vec<u64>,
    /// Steps by their tag and by where their class names are stored:
    /// elements share their names (see `dom::Element::class_id`), and a
    /// site's pages repeat the same few dozen steps. Kept from page to
    /// page: each entry holds its class name, so no other name can be
    /// stored where it is while the entry lives.
    steps: HashMap<(LocalName, usize), (Rc<str>, u64), FxBuildHasher>,
    label: String,
    /// Each path's min-hash values, kept from page to page: a site's
    /// template gives its pages the same paths, and a path's [`HASHES`]
    /// hashes cost more than finding them again.
    path_hashes: HashMap<u64, [u32; HASHES], FxBuildHasher>,
}

/// Past this many paths the kept min-hash values start again (a crawl of
/// many sites would otherwise grow them without end).
const MAX_PATH_HASHES: usize = 1 << 16;

/// Past this many steps the kept ones start again.
const MAX_STEPS: usize = 1 << 14;

/// The [`HASHES`] values a path gives the MinHash, one per seed.
fn path_hashes(path: u64) -> [u32; HASHES] {
    let mut out = [0u32; HASHES];
    for (k, h) in out.iter_mut().enumerate() {
        *h = (xxh3_64_with_seed(&path.to_le_bytes(), k as u64) >> 32) as u32;
    }
    out
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::default();
}

/// The skeleton of a parsed page; `None` when its body has fewer than
/// [`MIN_PATHS`] distinct block paths.
pub fn of(dom: &Dom) -> Option<Skeleton> {
    SCRATCH.with(|s| match s.try_borrow_mut() {
        Ok(mut s) => of_with(dom, &mut s),
        Err(_) => of_with(dom, &mut Scratch::default()),
    })
}

fn of_with(dom: &Dom, scratch: &mut Scratch) -> Option<Skeleton> {
    let Scratch {
        paths,
        wanted,
        features,
        steps,
        label,
        path_hashes: kept,
    } = scratch;
    let n = dom.elements.len();
    // Body elements are numbered from the body on, in document order.
    let body_end = dom.body.map(|b| dom.elements[b as usize].close);
    let in_body = |i: usize| match (dom.body, body_end) {
        (Some(b), Some(end)) => i >= b as usize && dom.elements[i].open <= end,
        _ => true,
    };
    // Only the paths of features and of their ancestors are needed: the
    // inline elements (links, spans, pictures) that are most of a page
    // are never hashed.
    wanted.clear();
    wanted.resize(n, false);
    for i in (0..n).rev() {
        let e = &dom.elements[i];
        let feature = e.is_block && !e.dropped && in_body(i);
        if feature || wanted[i] {
            wanted[i] = true;
            if let Some(p) = e.parent {
                wanted[p as usize] = true;
            }
        }
    }
    paths.clear();
    paths.resize(n, 0);
    features.clear();
    if steps.len() > MAX_STEPS {
        steps.clear();
    }
    let mut words = Vec::new();
    for (i, e) in dom.elements.iter().enumerate() {
        if !wanted[i] {
            continue;
        }
        // Elements come in document order, so a parent's path is known
        // before its children's.
        let parent_path = e.parent.map_or(0, |p| paths[p as usize]);
        let key = (e.tag.name().clone(), e.class_id.as_ptr() as usize);
        let step = steps
            .entry(key)
            .or_insert_with(|| {
                let hash = step(&e.tag, &e.class_id, &mut words, label);
                (e.class_id.clone(), hash)
            })
            .1;
        let mut key = [0u8; 16];
        key[..8].copy_from_slice(&parent_path.to_le_bytes());
        key[8..].copy_from_slice(&step.to_le_bytes());
        let path = xxh3_64_with_seed(&key, 0x7061_7468);
        paths[i] = path;
        if e.is_block && !e.dropped && in_body(i) {
            features.push(path);
        }
    }
    features.sort_unstable();
    features.dedup();
    if features.len() < MIN_PATHS {
        return None;
    }
    if kept.len() > MAX_PATH_HASHES {
        kept.clear();
    }
    let mut mins = [u32::MAX; HASHES];
    for &f in features.iter() {
        let hashes = kept.entry(f).or_insert_with(|| path_hashes(f));
        for (m, &h) in mins.iter_mut().zip(hashes.iter()) {
            *m = (*m).min(h);
        }
    }
    Some(Skeleton(mins))
}

/// Template groups: `out[i]` is page i's group (groups numbered by their
/// first page), `None` for pages without a skeleton. Pages sharing all four
/// min-hashes of a band fall in one bucket; each joins the bucket's first
/// page when they share at least [`MIN_AGREE`] min-hashes in all. Linear
/// in the pages: four bucket look-ups and at most four comparisons each.
pub fn template_groups(skeletons: &[Option<&Skeleton>]) -> Vec<Option<usize>> {
    let n = skeletons.len();
    let mut sets = UnionFind::new(n);
    let mut heads: HashMap<(usize, [u32; ROWS]), usize> = HashMap::new();
    for (i, s) in skeletons.iter().enumerate() {
        let Some(s) = s else { continue };
        for band in 0..BANDS {
            let key: [u32; ROWS] = s.0[band * ROWS..(band + 1) * ROWS]
                .try_into()
                .expect("ROWS values");
            let head = *heads.entry((band, key)).or_insert(i);
            if head != i && skeletons[head].is_some_and(|h| h.agreement(s) >= MIN_AGREE) {
                sets.union(head as u32, i as u32);
            }
        }
    }
    // Pages without a skeleton join no group, so every group's least page,
    // its name, has a skeleton.
    let first_pages = sets.least_labels();
    (0..n)
        .map(|i| skeletons[i].map(|_| first_pages[i] as usize))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(wrapper: &str, story: &str) -> String {
        format!(
            "<html><body class='{wrapper}'><header class='top'><nav class='menu'><ul><li>Home</li>\
             <li>News</li></ul></nav></header><div class='layout'><main class='content'>\
             <article class='story post-{}'>{story}</article></main><aside class='side'>\
             <div class='box'><h3>Most read</h3><ul class='list'><li>a</li></ul></div></aside>\
             </div><footer class='foot'><p>Copyright</p><div class='legal'><p>x</p></div>\
             </footer></body></html>",
            story.len()
        )
    }

    fn skeleton(html: &str) -> Option<Skeleton> {
        of(&Dom::parse(html))
    }

    #[test]
    fn stories_on_one_template_share_a_skeleton_and_other_templates_do_not() {
        let a = skeleton(&page("site", "<p>One.</p><p>Two.</p><p>Three.</p>")).unwrap();
        // More paragraphs, another post number: the same set of paths.
        let b = skeleton(&page("site", "<p>Other story.</p>")).unwrap();
        assert_eq!(a, b);
        // Another template: other classes throughout.
        let other = page("site", "<p>One.</p>")
            .replace("class='", "class='v2-")
            .replace("<div", "<section")
            .replace("</div>", "</section>");
        let c = skeleton(&other).unwrap();
        assert!(a.agreement(&c) < MIN_AGREE, "{}", a.agreement(&c));
        // A bare page has no skeleton at all.
        assert_eq!(
            skeleton("<html><body><p>Just text.</p></body></html>"),
            None
        );
    }

    /// The steps kept from page to page give each page the skeleton a
    /// thread that has made none before gives it, whatever came between
    /// (the same classes on other tags, the class names' cache emptied).
    #[test]
    fn kept_steps_give_the_skeleton_fresh_ones_give() {
        let pages = [
            page("site", "<p>One.</p><p>Two.</p>"),
            page("site", "<div class='box'><p>Boxed.</p></div>"),
            page("site", "<p>One.</p>")
                .replace("<div", "<section")
                .replace("</div>", "</section>"),
            page(
                "other",
                "<custom-element class='layout'><p>x</p></custom-element>",
            ),
            page(
                "site",
                "<p class='Menu'>Upper case.</p><p class='menu 12'>Digits.</p>",
            ),
        ];
        let fresh: Vec<Option<Skeleton>> = pages
            .iter()
            .map(|p| of_with(&Dom::parse(p.as_str()), &mut Scratch::default()))
            .collect();
        for round in 0..3 {
            for (p, want) in pages.iter().zip(&fresh).rev() {
                assert_eq!(skeleton(p), *want, "round {round}");
            }
            for (p, want) in pages.iter().zip(&fresh) {
                assert_eq!(skeleton(p), *want, "round {round}");
            }
            super::super::dom::clear_class_names();
        }
    }

    #[test]
    fn blocks_inside_inline_elements_keep_their_whole_path() {
        let story = |wrapper: &str| {
            page(
                "site",
                &format!("<span class='{wrapper}'><div class='quote'><p>Q.</p></div></span>"),
            )
        };
        // Only the wrapper's class differs, and only its path's steps
        // carry it: the inline element's step must still be hashed.
        assert_ne!(
            skeleton(&story("pull")).unwrap(),
            skeleton(&story("aside")).unwrap()
        );
    }

    #[test]
    fn groups_join_near_equal_skeletons_only() {
        let a = skeleton(&page("site", "<p>One.</p>")).unwrap();
        let mut near = a;
        near.0[0] ^= 1; // one min-hash off: 15 of 16 agree
        let mut far = a;
        for v in &mut far.0[..8] {
            *v ^= 1; // half of them off, one band intact
        }
        let groups = template_groups(&[Some(&far), Some(&a), None, Some(&near), Some(&a)]);
        assert_eq!(groups, [Some(0), Some(1), None, Some(1), Some(1)]);
    }
}
