//! Tokenisers: jieba-rs words for Chinese, Unicode words for English, and
//! character n-grams for either.

use std::cell::RefCell;
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use jieba_rs::Jieba;
use serde::{Deserialize, Serialize};
use unicode_segmentation::UnicodeSegmentation;

use super::normalize::{normalize, normalize_into, NormalizeOptions};
use super::segment::NO_WORD;
use super::shingle::{shingle_hashes, ShingleSet};

use super::vocab::{Vocab, VocabBuilder};
use crate::text::Lang;

/// Built once per process (about 0.1 s) and shared: `Jieba` is `Sync`.
static JIEBA: LazyLock<Jieba> = LazyLock::new(Jieba::new);

pub fn jieba() -> &'static Jieba {
    &JIEBA
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenKind {
    /// jieba words for Chinese pages, Unicode words for the others.
    Auto,
    Jieba,
    Words,
    /// Character n-grams over the text with whitespace removed.
    Chars,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TokenizerConfig {
    pub kind: TokenKind,
    /// n for character n-grams (`kind: chars`); seed 000's example uses 2.
    pub ngram: usize,
    pub normalize: NormalizeOptions,
}

impl Default for TokenizerConfig {
    fn default() -> Self {
        TokenizerConfig {
            kind: TokenKind::Auto,
            ngram: 2,
            normalize: NormalizeOptions::default(),
        }
    }
}

impl TokenizerConfig {
    /// How the tokens read in labels, e.g. `chars` or `char 2-grams`.
    pub fn describe(&self) -> String {
        match self.kind {
            TokenKind::Auto => "auto tokens".into(),
            TokenKind::Jieba => "jieba words".into(),
            TokenKind::Words => "unicode words".into(),
            TokenKind::Chars if self.ngram == 1 => "chars".into(),
            TokenKind::Chars => format!("char {}-grams", self.ngram),
        }
    }
}

/// A page's tokens as ids into its run's [`Vocab`]: 4 bytes a token, the
/// strings and their hashes held once per run.
pub struct Tokens {
    ids: Box<[u32]>,
    vocab: Arc<Vocab>,
    /// The normalised text, kept when the page was tokenised on its own
    /// (a run's pages make it again from their structure where it is read,
    /// see `Document::normalized_text`).
    text: Option<Box<str>>,
    /// Shingle sets made for more than one algorithm, by width (see
    /// [`Tokens::shingles`]).
    shared: Mutex<Vec<(usize, ShingleSet)>>,
}

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Default for Tokens {
    fn default() -> Self {
        Tokens::new(Vec::new(), Arc::default(), None)
    }
}

/// A copy shares the vocabulary, not the shingle sets made so far.
impl Clone for Tokens {
    fn clone(&self) -> Self {
        Tokens::new(self.ids.to_vec(), self.vocab.clone(), self.text.clone())
    }
}

/// Tokens are equal when their strings are, whatever their vocabularies.
impl PartialEq for Tokens {
    fn eq(&self, other: &Self) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Eq for Tokens {}

impl Tokens {
    pub(crate) fn new(ids: Vec<u32>, vocab: Arc<Vocab>, text: Option<Box<str>>) -> Self {
        Tokens {
            ids: ids.into_boxed_slice(),
            vocab,
            text,
            shared: Mutex::new(Vec::new()),
        }
    }

    /// The normalised text the tokens were split from (for `chars`,
    /// without whitespace), when it was kept.
    pub fn text(&self) -> Option<&str> {
        self.text.as_deref()
    }

    pub fn vocab(&self) -> &Vocab {
        &self.vocab
    }

    pub fn ids(&self) -> &[u32] {
        &self.ids
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        self.ids.iter().map(|&id| self.vocab.str(id))
    }

    /// Each token's [`token_hash`](super::shingle::token_hash), from the vocabulary.
    pub fn hashes(&self) -> impl Iterator<Item = u64> + '_ {
        self.ids.iter().map(|&id| self.vocab.hash(id))
    }

    /// The page's w-shingle set (see [`shingle_hashes`]). When the run has
    /// more than one algorithm reading this width (`Vocab::share`), the
    /// set is made once and kept here for the others.
    pub fn shingles(&self, width: usize) -> ShingleSet {
        let make = || -> ShingleSet {
            let hashes: Vec<u64> = self.hashes().collect();
            shingle_hashes(&hashes, width).into()
        };
        if !self.vocab.shares(width) {
            return make();
        }
        let mut shared = self.shared.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((_, set)) = shared.iter().find(|(w, _)| *w == width) {
            return set.clone();
        }
        let set = make();
        shared.push((width, set.clone()));
        set
    }

    /// Drops the shingle set of `width` kept for later readers.
    pub fn forget_shingles(&self, width: usize) {
        let mut shared = self.shared.lock().unwrap_or_else(PoisonError::into_inner);
        shared.retain(|(w, _)| *w != width);
        if shared.is_empty() {
            *shared = Vec::new();
        }
    }
}

/// A page tokenised on its own, into a vocabulary of its own, its
/// normalised text kept (see [`super::vocab::tokenize_many`] for a
/// collection).
pub fn tokenize(text: &str, lang: Lang, config: &TokenizerConfig) -> Tokens {
    let (normalized, spans) = split(text, lang, config);
    let mut builder = VocabBuilder::default();
    let ids = builder.intern_spans(&normalized, &spans);
    Tokens::new(
        ids,
        Arc::new(builder.finish(config)),
        Some(normalized.into_boxed_str()),
    )
}

/// A token as a byte span into its text and its dictionary word number
/// (see [`super::segment::cut_words`]), or [`NO_WORD`].
pub(crate) type Span = (u32, u32, u32);

/// The normalised text (for `chars`, without whitespace) and its tokens
/// as spans into it.
pub(crate) fn split(text: &str, lang: Lang, config: &TokenizerConfig) -> (String, Vec<Span>) {
    let normalized = normalize(text, &config.normalize);
    match token_kind(config.kind, lang) {
        TokenKind::Jieba => {
            // jieba-rs's `cut(text, true)`, token for token, only faster.
            let mut spans = Vec::with_capacity(normalized.len() / 4);
            super::segment::cut_words(&normalized, |a, b, word| {
                if is_word_token(&normalized, a, b) {
                    spans.push((a as u32, b as u32, word));
                }
            });
            (normalized, spans)
        }
        TokenKind::Words | TokenKind::Auto => {
            let spans = normalized
                .unicode_word_indices()
                .map(|(start, w)| (start as u32, (start + w.len()) as u32, NO_WORD))
                .collect();
            (normalized, spans)
        }
        TokenKind::Chars => char_ngram_spans(&normalized, config.ngram.max(1)),
    }
}

/// The tokeniser `kind` means for a page in `lang`.
fn token_kind(kind: TokenKind, lang: Lang) -> TokenKind {
    match (kind, lang) {
        (TokenKind::Auto, Lang::Zh) => TokenKind::Jieba,
        (TokenKind::Auto, Lang::En | Lang::Other(_)) => TokenKind::Words,
        (kind, _) => kind,
    }
}

/// Whether the segmenter's token `a..b` of `text` is kept: it has a letter
/// or digit (spaces and punctuation are cut as tokens of their own).
#[inline(always)]
fn is_word_token(text: &str, a: usize, b: usize) -> bool {
    // Most tokens start with a letter, a digit or a character of
    // U+4E00..=U+9FFF (lead byte 0xE5..=0xE9, or 0xE4 then 0xB8 or more),
    // all alphanumeric: no decoding for them.
    let bytes = text.as_bytes();
    let lead = bytes[a];
    let quick = (0xE5..=0xE9).contains(&lead)
        || lead.is_ascii_alphanumeric()
        || (lead == 0xE4 && b - a >= 3 && bytes[a + 1] >= 0xB8);
    // The other common token is the one space left of punctuation, a
    // sixth of the segmenter's tokens in Chinese news.
    quick || (lead != b' ' && text[a..b].chars().any(super::normalize::is_alphanumeric))
}

/// What [`feed_tokens`] hands the tokens of a text to.
pub trait TokenSink {
    /// Token `a..b`, byte offsets into the normalised text.
    fn token(&mut self, a: usize, b: usize);
    /// After the last token: the normalised text the offsets index.
    fn finish(&mut self, normalized: &str);
}

/// Each token of `text` (as [`split`] cuts it) to `sink`, in order, then
/// the normalised text: for a signature made straight from the text, with
/// no vocabulary.
///
/// Chinese tokens go to `sink` as the segmenter cuts them, from a
/// normalised copy of the text kept per thread, with no list of spans in
/// between; so `sink` must not tokenise or segment text itself.
pub fn feed_tokens(text: &str, lang: Lang, config: &TokenizerConfig, sink: &mut impl TokenSink) {
    thread_local! {
        static NORMALIZED: RefCell<String> = const { RefCell::new(String::new()) };
    }
    if token_kind(config.kind, lang) != TokenKind::Jieba {
        let (normalized, spans) = split(text, lang, config);
        for (a, b, _) in spans {
            sink.token(a as usize, b as usize);
        }
        sink.finish(&normalized);
        return;
    }
    NORMALIZED.with(|buffer| {
        let mut normalized = buffer.borrow_mut();
        normalize_into(text, &config.normalize, &mut normalized);
        let text: &str = &normalized;
        // Inlined, as the sink's `token` should be, so that a token costs
        // no call: the segmenter hands over some 240 a page.
        super::segment::cut(
            text,
            #[inline(always)]
            |a, b| {
                if is_word_token(text, a, b) {
                    sink.token(a, b);
                }
            },
        );
        sink.finish(text);
        // A huge page does not leave its buffer to the thread.
        if normalized.capacity() > 1 << 20 {
            *normalized = String::new();
        }
    });
}

/// `f` of each character n-gram of `text` with whitespace removed, in
/// order (a text shorter than n is one gram), without a vocabulary.
pub fn each_char_ngram(text: &str, n: usize, mut f: impl FnMut(&str)) {
    let (compact, spans) = char_ngram_spans(text, n.max(1));
    for (a, b, _) in spans {
        f(&compact[a as usize..b as usize]);
    }
}

/// `text` with whitespace removed and its n-grams as byte spans into it.
fn char_ngram_spans(text: &str, n: usize) -> (String, Vec<Span>) {
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let bounds: Vec<usize> = compact
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(compact.len()))
        .collect();
    let chars = bounds.len() - 1;
    let spans = if chars == 0 {
        Vec::new()
    } else if chars < n {
        // A text shorter than one window is one token, not none.
        vec![(0, compact.len() as u32, NO_WORD)]
    } else {
        (0..=chars - n)
            .map(|i| (bounds[i] as u32, bounds[i + n] as u32, NO_WORD))
            .collect()
    };
    (compact, spans)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str, lang: Lang, kind: TokenKind) -> Vec<String> {
        let config = TokenizerConfig {
            kind,
            ..TokenizerConfig::default()
        };
        tokenize(text, lang, &config)
            .iter()
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn chinese_is_segmented_into_words() {
        let w = words("我们中出了一个叛徒，北京大学。", Lang::Zh, TokenKind::Auto);
        assert!(w.contains(&"北京大学".to_string()), "{w:?}");
        assert!(!w.iter().any(|t| t.trim().is_empty()));
    }

    #[test]
    fn english_words_are_case_folded() {
        let w = words("The Quick, brown fox!", Lang::En, TokenKind::Auto);
        assert_eq!(w, ["the", "quick", "brown", "fox"]);
    }

    #[test]
    fn char_bigrams_skip_whitespace() {
        let w = words("北京 大学", Lang::Zh, TokenKind::Chars);
        assert_eq!(w, ["北京", "京大", "大学"]);
        assert_eq!(words("京", Lang::Zh, TokenKind::Chars), ["京"]);
        assert!(words("  ", Lang::Zh, TokenKind::Chars).is_empty());
    }

    #[test]
    fn shingle_sets_are_made_once_while_shared() {
        let tokens = tokenize("a b c d a b c", Lang::En, &TokenizerConfig::default());
        let fresh = super::super::shingle::shingles(&tokens, 2);
        let first = tokens.shingles(2);
        assert_eq!(&first[..], &fresh[..]);
        assert!(!Arc::ptr_eq(&first, &tokens.shingles(2)), "not shared");
        tokens.vocab().share([2]);
        let kept = tokens.shingles(2);
        assert!(Arc::ptr_eq(&kept, &tokens.shingles(2)));
        assert!(!Arc::ptr_eq(&kept, &tokens.shingles(3)), "another width");
        tokens.vocab().unshare(2);
        tokens.forget_shingles(2);
        assert!(!Arc::ptr_eq(&kept, &tokens.shingles(2)));
        assert_eq!(&tokens.shingles(2)[..], &fresh[..]);
    }

    #[test]
    fn full_width_forms_tokenise_like_half_width() {
        assert_eq!(
            words("ＧＤＰ增长１０％", Lang::Zh, TokenKind::Auto),
            words("GDP增长10%", Lang::Zh, TokenKind::Auto)
        );
    }
}
