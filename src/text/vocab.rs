//! One vocabulary per tokeniser and run: every distinct token string once,
//! with its shingle hash, so that a page's tokens are u32 ids (4 bytes a
//! token instead of a span and the text it points into) and a token is
//! hashed once per run, not once per page and algorithm.
//!
//! Ids follow first occurrence in page order, whatever the number of
//! threads (see [`tokenize_many`]); nothing reads their values beyond
//! looking strings and hashes up, so results never depend on them.

use std::any::Any;
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use rayon::prelude::*;

use super::lang::detect_lang;
use super::segment::NO_WORD;
use super::shingle::token_hash;
use super::tokenize::{split, Span, Tokens};
use super::{NormalizeOptions, TokenKind, TokenizerConfig};
use crate::text::Lang;

/// Values an algorithm derived from the strings (SimHash's 128-bit
/// feature hashes by id, I-Match's lexicon as a bitset of ids), by the
/// name it gave them and the key of what else they depend on.
type Derived = Vec<(&'static str, u64, Arc<dyn Any + Send + Sync>)>;

/// The distinct tokens of a run's pages under one tokeniser.
pub struct Vocab {
    /// Every token's string, one after another.
    strings: String,
    /// Where each id's string ends in `strings` (it starts where the
    /// previous one ends).
    ends: Vec<usize>,
    /// Each id's [`token_hash`], the hash shingles are made of.
    hashes: Vec<u64>,
    /// How the text was normalised, to make it again from its source (see
    /// [`Vocab::normalized`]).
    normalize: NormalizeOptions,
    compact: bool,
    /// Shingle widths (bit w) whose sets the pages keep once made, because
    /// more than one algorithm reads them (see [`Tokens::shingles`]).
    shared_widths: AtomicU64,
    derived: Mutex<Derived>,
}

impl std::fmt::Debug for Vocab {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Vocab({} tokens)", self.len())
    }
}

impl Default for Vocab {
    fn default() -> Self {
        VocabBuilder::default().finish(&TokenizerConfig::default())
    }
}

impl Vocab {
    pub fn len(&self) -> usize {
        self.hashes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }

    /// The string of token `id`.
    #[inline]
    pub fn str(&self, id: u32) -> &str {
        let id = id as usize;
        let start = if id == 0 { 0 } else { self.ends[id - 1] };
        &self.strings[start..self.ends[id]]
    }

    /// The [`token_hash`] of token `id`.
    #[inline]
    pub fn hash(&self, id: u32) -> u64 {
        self.hashes[id as usize]
    }

    /// Bytes held: the strings, their ends and hashes.
    pub fn heap_bytes(&self) -> usize {
        self.strings.capacity() + self.ends.capacity() * 8 + self.hashes.capacity() * 8
    }

    /// `text` normalised as these tokens' pages were before splitting (for
    /// character tokens, with whitespace removed).
    pub fn normalized(&self, text: &str) -> String {
        let normalized = super::normalize::normalize(text, &self.normalize);
        match self.compact {
            true => normalized.chars().filter(|c| !c.is_whitespace()).collect(),
            false => normalized,
        }
    }

    /// `f` of every token's string, by id, made the first time `name` is
    /// asked for and kept with the vocabulary: each distinct token is
    /// hashed once per run, not once per page. Made on one thread: a
    /// rayon worker waiting for the lock must not be handed another page
    /// that asks for it.
    pub fn derived<T, F>(&self, name: &'static str, f: F) -> Arc<[T]>
    where
        T: Send + Sync + 'static,
        F: Fn(&str) -> T,
    {
        let values = self.derived_whole(name, 0, |vocab| {
            (0..vocab.len() as u32)
                .map(|id| f(vocab.str(id)))
                .collect::<Arc<[T]>>()
        });
        (*values).clone()
    }

    /// A value made from the whole vocabulary, kept under `name` and `key`
    /// as [`Vocab::derived`]'s are (`key` tells apart what else it depends
    /// on; a new key replaces the name's value). `make` runs under the
    /// lock, so it must not ask this vocabulary for derived values itself.
    pub fn derived_whole<T, F>(&self, name: &'static str, key: u64, make: F) -> Arc<T>
    where
        T: Send + Sync + 'static,
        F: FnOnce(&Vocab) -> T,
    {
        let mut derived = self.derived.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(value) = derived
            .iter()
            .find(|(n, k, _)| *n == name && *k == key)
            .and_then(|(_, _, v)| v.clone().downcast::<T>().ok())
        {
            return value;
        }
        let value = Arc::new(make(self));
        derived.retain(|(n, _, _)| *n != name);
        derived.push((name, key, value.clone()));
        value
    }

    /// Drops the values [`Vocab::derived`] made (the run calls this after
    /// each algorithm: making them again costs a pass over the distinct
    /// tokens, not over the pages).
    pub fn forget_derived(&self) {
        *self.derived.lock().unwrap_or_else(PoisonError::into_inner) = Vec::new();
    }

    /// Whether pages keep their shingle sets of `width` once made.
    pub fn shares(&self, width: usize) -> bool {
        width < 64 && self.shared_widths.load(Ordering::Relaxed) & (1 << width) != 0
    }

    /// Pages keep their shingle sets of each of `widths` once made (until
    /// [`Tokens::forget_shingles`]).
    pub fn share(&self, widths: impl IntoIterator<Item = usize>) {
        for w in widths.into_iter().filter(|&w| w < 64) {
            self.shared_widths.fetch_or(1 << w, Ordering::Relaxed);
        }
    }

    /// Shingle sets of `width` are no longer kept once made.
    pub fn unshare(&self, width: usize) {
        if width < 64 {
            self.shared_widths
                .fetch_and(!(1 << width), Ordering::Relaxed);
        }
    }
}

/// A vocabulary being filled.
#[derive(Default)]
pub(crate) struct VocabBuilder {
    strings: String,
    ends: Vec<usize>,
    hashes: Vec<u64>,
    /// Ids by their hash, to find a string again: open addressing with
    /// linear probing over [`Slot`]s, at most half full (a power of two
    /// long, or empty).
    slots: Vec<Slot>,
    /// While a run is tokenised ([`VocabBuilder::lend_words`]): each dictionary
    /// word's id plus one by its word number, 0 until it is first seen.
    /// A word the segmenter took from the dictionary is then one load in
    /// a table where common words sit together, not a string hash and a
    /// probe. The first sight goes through the slots, so a string seen
    /// with and without a word number has one id, and ids still follow
    /// first occurrence.
    words: Vec<u32>,
    /// The word numbers set in `words`, to clear before it is handed on.
    seen_words: Vec<u32>,
    /// Whether to borrow the thread's word table at the first word number.
    borrow_words: bool,
}

thread_local! {
    /// The thread's word table between runs (all zeros): 4 bytes a
    /// dictionary word, once per thread rather than once per run.
    static WORD_IDS: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
}

/// A token of up to [`INLINE`] bytes is found by comparing its slot alone:
/// looking a token up is one load where a table of ids needs three more
/// (the id, its string's end, the string), each a likely cache miss while
/// the segmenter's trie fills the cache. Bytes 0..11 hold the token (or,
/// for a longer one, its hash), byte 11 its length ([`LONG`] for a longer
/// one, 0 in an empty slot), bytes 12..16 its id.
type Slot = u128;

const INLINE: usize = 11;
const LONG: u8 = 0xFF;
const KEY_BITS: u128 = (1 << 96) - 1;

/// The slot key of `token`: its bytes and length, or, over [`INLINE`]
/// bytes (or empty), its hash marked [`LONG`].
#[inline(always)]
fn slot_key(token: &[u8], hash: u64) -> u128 {
    let n = token.len();
    if n == 0 || n > INLINE {
        return u128::from(hash) | u128::from(LONG) << 88;
    }
    let bytes = if n >= 8 {
        let head = u64::from_le_bytes(token[..8].try_into().expect("8 bytes"));
        u128::from(head) | u128::from(short_bytes(&token[8..])) << 64
    } else {
        u128::from(short_bytes(token))
    };
    bytes | (n as u128) << 88
}

/// Up to 7 bytes as a little-endian number, with overlapping loads
/// instead of a loop.
#[inline(always)]
fn short_bytes(b: &[u8]) -> u64 {
    let n = b.len();
    if n >= 4 {
        let head = u32::from_le_bytes(b[..4].try_into().expect("4 bytes"));
        let tail = u32::from_le_bytes(b[n - 4..].try_into().expect("4 bytes"));
        u64::from(head) | u64::from(tail) << (8 * (n - 4))
    } else if n > 0 {
        u64::from(b[0])
            | u64::from(b[n / 2]) << (8 * (n / 2))
            | u64::from(b[n - 1]) << (8 * (n - 1))
    } else {
        0
    }
}

impl VocabBuilder {
    /// Room for `tokens` distinct tokens before growing.
    pub(crate) fn with_capacity(tokens: usize) -> Self {
        VocabBuilder {
            strings: String::with_capacity(tokens * 6),
            ends: Vec::with_capacity(tokens),
            hashes: Vec::with_capacity(tokens),
            slots: vec![0; (2 * tokens).next_power_of_two().max(16)],
            words: Vec::new(),
            seen_words: Vec::new(),
            borrow_words: false,
        }
    }

    /// [`intern_spans`] takes the thread's word table (see `words`) when
    /// it first meets a dictionary word number, until [`return_words`]
    /// (a run tokenised inside another on the same thread makes one of
    /// its own). Pages without Chinese never load the segmenter for it.
    ///
    /// [`intern_spans`]: VocabBuilder::intern_spans
    /// [`return_words`]: VocabBuilder::return_words
    pub(crate) fn lend_words(&mut self) {
        self.borrow_words = true;
    }

    #[cold]
    fn borrow_word_table(&mut self) {
        self.borrow_words = false;
        let mut words = WORD_IDS.with(|w| std::mem::take(&mut *w.borrow_mut()));
        words.resize(super::segment::dictionary_words(), 0);
        self.words = words;
    }

    /// Gives the word table back to the thread, cleared.
    pub(crate) fn return_words(&mut self) {
        self.borrow_words = false;
        if self.words.is_empty() {
            return;
        }
        let mut words = std::mem::take(&mut self.words);
        for &w in &self.seen_words {
            words[w as usize] = 0;
        }
        self.seen_words = Vec::new();
        WORD_IDS.with(|w| *w.borrow_mut() = words);
    }

    /// The id of `token`, whose [`token_hash`] is `hash`, added if new.
    pub(crate) fn intern(&mut self, token: &str, hash: u64) -> u32 {
        if 2 * (self.hashes.len() + 1) > self.slots.len() {
            self.grow();
        }
        let key = slot_key(token.as_bytes(), hash);
        let long = key >> 88 & 0xFF == u128::from(LONG);
        let mask = self.slots.len() - 1;
        let mut i = hash as usize & mask;
        loop {
            let slot = self.slots[i];
            if slot & KEY_BITS == key {
                let id = (slot >> 96) as u32;
                if !long || self.str(id) == token {
                    return id;
                }
            } else if slot == 0 {
                break;
            }
            i = (i + 1) & mask;
        }
        let id = u32::try_from(self.hashes.len()).expect("fewer than 2^32 distinct tokens");
        self.strings.push_str(token);
        self.ends.push(self.strings.len());
        self.hashes.push(hash);
        self.slots[i] = key | u128::from(id) << 96;
        id
    }

    /// Twice the slots, every id placed again by its hash.
    fn grow(&mut self) {
        let size = (2 * self.slots.len()).max(16);
        let old = std::mem::replace(&mut self.slots, vec![0; size]);
        let mask = size - 1;
        for slot in old.into_iter().filter(|&s| s != 0) {
            let mut i = self.hashes[(slot >> 96) as usize] as usize & mask;
            while self.slots[i] != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = slot;
        }
    }

    /// The ids of the tokens at `spans` (byte ranges) of `text`.
    pub(crate) fn intern_spans(&mut self, text: &str, spans: &[Span]) -> Vec<u32> {
        spans
            .iter()
            .map(|&(a, b, word)| {
                let mut known = self.words.get(word as usize).copied();
                if let Some(known @ 1..) = known {
                    return known - 1;
                }
                if known.is_none() && self.borrow_words && word != NO_WORD {
                    self.borrow_word_table();
                    known = self.words.get(word as usize).copied();
                }
                let token = &text[a as usize..b as usize];
                let id = self.intern(token, token_hash(token));
                if known.is_some() {
                    self.words[word as usize] = id.wrapping_add(1);
                    self.seen_words.push(word);
                }
                id
            })
            .collect()
    }

    fn str(&self, id: u32) -> &str {
        let id = id as usize;
        let start = if id == 0 { 0 } else { self.ends[id - 1] };
        &self.strings[start..self.ends[id]]
    }

    /// The vocabulary, its lookup table dropped (nothing is added later).
    pub(crate) fn finish(mut self, config: &TokenizerConfig) -> Vocab {
        self.strings.shrink_to_fit();
        self.ends.shrink_to_fit();
        self.hashes.shrink_to_fit();
        Vocab {
            strings: self.strings,
            ends: self.ends,
            hashes: self.hashes,
            normalize: config.normalize,
            compact: config.kind == TokenKind::Chars,
            shared_widths: AtomicU64::new(0),
            derived: Mutex::new(Vec::new()),
        }
    }
}

/// Pages a worker tokenises into a vocabulary of its own before the
/// vocabularies are merged: large enough that merging (one lookup per
/// distinct token of a run) costs little beside tokenising, small enough
/// to keep two cores busy on a few thousand pages.
const RUN: usize = 512;

/// Tokenises `count` texts (`input(i)` gives text i and its language, if
/// known; otherwise it is decided by script) into one vocabulary: runs of
/// [`RUN`] pages are tokenised in parallel, each into a vocabulary of its
/// own, and merged in page order, so that ids are the same on any number
/// of threads. `keep_text` keeps each page's normalised text with its
/// tokens (for algorithms reading characters); without it the text is made
/// again from its source where it is read. `tick` is called once per page.
pub fn tokenize_many<F>(
    count: usize,
    config: &TokenizerConfig,
    keep_text: bool,
    input: F,
) -> (Vec<(Tokens, Lang)>, Arc<Vocab>)
where
    F: Fn(usize) -> (String, Option<Lang>) + Sync,
{
    type Page = (Vec<u32>, Option<Box<str>>, Lang);
    let runs: Vec<(Vocab, Vec<Page>)> = (0..count.div_ceil(RUN))
        .into_par_iter()
        .map(|run| {
            // Room for a run's distinct tokens on most text, so that the
            // table is not rehashed as it grows.
            let mut local = VocabBuilder::with_capacity(16_384);
            local.lend_words();
            let pages: Vec<Page> = (run * RUN..((run + 1) * RUN).min(count))
                .map(|i| {
                    let (text, lang) = input(i);
                    let lang = lang.unwrap_or_else(|| detect_lang(&text));
                    let (normalized, spans) = split(&text, lang, config);
                    drop(text);
                    let ids = local.intern_spans(&normalized, &spans);
                    (ids, keep_text.then(|| normalized.into_boxed_str()), lang)
                })
                .collect();
            local.return_words();
            // Merging reads each token's string and hash only: the probe
            // table and the room left for more tokens (most of what a run
            // allocated) go now, not once every run is done.
            (local.finish(config), pages)
        })
        .collect();
    // At least the largest run's tokens: sized once for them rather than
    // doubled up to them.
    let largest = runs.iter().map(|(local, _)| local.len()).max();
    let mut global = VocabBuilder::with_capacity(largest.unwrap_or(0));
    let remaps: Vec<Vec<u32>> = runs
        .iter()
        .map(|(local, _)| {
            (0..local.len() as u32)
                .map(|id| global.intern(local.str(id), local.hash(id)))
                .collect()
        })
        .collect();
    let vocab = Arc::new(global.finish(config));
    let tokens = runs
        .into_par_iter()
        .zip(remaps)
        .flat_map_iter(|((local, pages), remap)| {
            drop(local);
            let vocab = vocab.clone();
            pages.into_iter().map(move |(mut ids, text, lang)| {
                ids.iter_mut().for_each(|id| *id = remap[*id as usize]);
                (Tokens::new(ids, vocab.clone(), text), lang)
            })
        })
        .collect();
    (tokens, vocab)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(tokens: &Tokens) -> Vec<&str> {
        tokens.iter().collect()
    }

    #[test]
    fn one_vocabulary_holds_each_token_once_with_its_string_hash() {
        let texts = ["北京大学 北京", "上海 北京大学", "the quick fox", "The Fox"];
        let config = TokenizerConfig::default();
        let (many, vocab) = tokenize_many(texts.len(), &config, false, |i| {
            (texts[i].to_string(), None)
        });
        for (i, (tokens, lang)) in many.iter().enumerate() {
            let alone = super::super::tokenize(texts[i], *lang, &config);
            assert_eq!(strings(tokens), strings(&alone), "page {i}");
            let hashes: Vec<u64> = tokens.hashes().collect();
            let expected: Vec<u64> = alone.iter().map(token_hash).collect();
            assert_eq!(hashes, expected, "page {i}");
            assert!(tokens.text().is_none());
        }
        let distinct: std::collections::HashSet<&str> =
            many.iter().flat_map(|(t, _)| t.iter()).collect();
        assert_eq!(vocab.len(), distinct.len());
        assert_eq!(many[0].1, Lang::Zh);
        assert_eq!(many[2].1, Lang::En);
    }

    #[test]
    fn interning_finds_every_token_again_after_growing() {
        // Short tokens compared in their slots, long ones (and the empty
        // one) by hash and string; same lengths, shared prefixes, NULs.
        let mut tokens: Vec<String> = vec![
            String::new(),
            "a".into(),
            "a\0".into(),
            "\0".into(),
            "abcdefghijk".into(),
            "abcdefghijkl".into(),
            "abcdefghijj".into(),
            "中华人民共和国".into(),
            "中华".into(),
        ];
        tokens.extend((0..5000).map(|i| format!("{i}")));
        tokens.extend((0..500).map(|i| format!("长{}{i}", "长".repeat(i % 7))));
        let mut builder = VocabBuilder::default();
        let ids: Vec<u32> = tokens
            .iter()
            .map(|t| builder.intern(t, token_hash(t)))
            .collect();
        assert_eq!(ids, (0..tokens.len() as u32).collect::<Vec<_>>());
        for (t, &id) in tokens.iter().zip(&ids).rev() {
            assert_eq!(builder.intern(t, token_hash(t)), id, "{t:?}");
            assert_eq!(builder.str(id), t);
        }
        // Two strings under one hash stay two tokens.
        let mut builder = VocabBuilder::with_capacity(4);
        let long = ["abcdefghijklmn", "abcdefghijklmo"];
        assert_eq!(builder.intern(long[0], 7), 0);
        assert_eq!(builder.intern(long[1], 7), 1);
        assert_eq!(builder.intern(long[0], 7), 0);
        assert_eq!(builder.intern("ab", 7), 2);
        assert_eq!(builder.intern("ab", 7), 2);
    }

    #[test]
    fn ids_follow_page_order_on_any_number_of_threads() {
        // More pages than one run, so that runs are merged.
        let texts: Vec<String> = (0..3 * RUN + 7)
            .map(|i| format!("a{} b{} shared c{}", i % 97, i % 13, i % 1031))
            .collect();
        let config = TokenizerConfig::default();
        let ids = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                let (many, _) =
                    tokenize_many(texts.len(), &config, false, |i| (texts[i].clone(), None));
                many.iter()
                    .map(|(t, _)| t.ids().to_vec())
                    .collect::<Vec<_>>()
            })
        };
        let one = ids(1);
        assert_eq!(one, ids(3));
        // First occurrence in page order: page 0's tokens are 0, 1, 2, 3.
        assert_eq!(one[0], [0, 1, 2, 3]);
        let seen = one.iter().flatten().fold(0u32, |next, &id| {
            assert!(id <= next, "id {id} before {next}");
            next.max(id + 1)
        });
        assert!(seen > 1031);
    }

    #[test]
    fn a_dictionary_word_has_one_id_with_or_without_its_number() {
        let mut word = NO_WORD;
        crate::text::segment::cut_words("北京", |_, _, w| word = w);
        assert_ne!(word, NO_WORD, "北京 is a dictionary word");
        let text = "北京北京北京上海";
        for first in [NO_WORD, word] {
            let spans = [
                (0, 6, first),
                (6, 12, word),
                (12, 18, NO_WORD),
                (18, 24, NO_WORD),
            ];
            let mut builder = VocabBuilder::default();
            builder.lend_words();
            let ids = builder.intern_spans(text, &spans);
            assert_eq!(ids, [0, 0, 0, 1], "first with {first}");
            builder.return_words();
            assert!(builder.words.is_empty());
            // The table goes back to the thread cleared.
            WORD_IDS.with(|w| assert!(w.borrow().iter().all(|&id| id == 0)));
        }
    }

    #[test]
    fn chinese_ids_are_the_same_on_any_number_of_threads() {
        let words = [
            "北京", "大学", "上海", "经济", "发展", "人民", "今天", "记者",
        ];
        let texts: Vec<String> = (0..2 * RUN + 5)
            .map(|i| {
                let w = |k: usize| words[(i * k + k) % words.len()];
                format!("{}{}，{}的{}{}年", w(1), w(3), w(5), w(7), i % 31)
            })
            .collect();
        let config = TokenizerConfig::default();
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                let (many, _) = tokenize_many(texts.len(), &config, false, |i| {
                    (texts[i].clone(), Some(Lang::Zh))
                });
                many.iter()
                    .map(|(t, _)| (t.ids().to_vec(), strings(t).join(" ")))
                    .collect::<Vec<_>>()
            })
        };
        let one = run(1);
        assert_eq!(one, run(3));
        for (i, (_, joined)) in one.iter().enumerate() {
            let alone = super::super::tokenize(&texts[i], Lang::Zh, &config);
            assert_eq!(*joined, strings(&alone).join(" "), "page {i}");
        }
        let seen = one.iter().flat_map(|(ids, _)| ids).fold(0u32, |next, &id| {
            assert!(id <= next, "id {id} before {next}");
            next.max(id + 1)
        });
        assert!(seen > 31);
    }

    #[test]
    fn the_text_is_made_again_as_it_was_normalised() {
        let config = TokenizerConfig {
            kind: TokenKind::Chars,
            ..TokenizerConfig::default()
        };
        let text = "ＧＤＰ 增长，１０％";
        let kept = super::super::tokenize(text, Lang::Zh, &config);
        assert_eq!(kept.vocab().normalized(text), kept.text().unwrap());
    }

    #[test]
    fn derived_values_are_made_once_per_name() {
        let tokens = super::super::tokenize("a b a c", Lang::En, &TokenizerConfig::default());
        let calls = std::sync::atomic::AtomicUsize::new(0);
        let len = |s: &str| {
            calls.fetch_add(1, Ordering::Relaxed);
            s.len()
        };
        let first = tokens.vocab().derived("len", len);
        let again = tokens.vocab().derived("len", len);
        assert_eq!(calls.load(Ordering::Relaxed), 3, "three distinct tokens");
        assert!(Arc::ptr_eq(&first, &again));
        let by_page: Vec<usize> = tokens.ids().iter().map(|&id| first[id as usize]).collect();
        assert_eq!(by_page, [1, 1, 1, 1]);
    }
}
